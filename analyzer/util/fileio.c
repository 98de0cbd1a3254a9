/* fileio.c - roofline's file layer: whole-file reads, atomic writes (temp file + rename), and the one read and write path every input and output goes through (with its fault hook). */
#define _GNU_SOURCE /* fopencookie */
#include "analyzer/util/fileio.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the fault hook ------------------------------------------------------- */

static const char *const op_names[RL_IO_OPS] = {"read", "write", "fsync", "rename"};

static struct {
    bool armed;
    enum rl_io_op op;
    int fault;         /* an errno value or RL_IO_SHORT */
    unsigned long at;  /* the call that fails, from 1 */
    bool sticky;       /* and every one after it */
    char text[64];
} spec;

static pthread_once_t spec_once = PTHREAD_ONCE_INIT;
static atomic_ulong calls[RL_IO_OPS];
static atomic_int fired;

/* ROOFLINE_FAULT_IO=OP:KIND:N[+]. A spec that does not parse arms nothing:
 * the loop driver sees no fault fire at N = 1 and fails. */
static void spec_parse(void)
{
    const char *v = getenv("ROOFLINE_FAULT_IO");
    if (!v || !*v)
        return;
    char op[16], kind[16], tail[4] = "";
    unsigned long at;
    if (sscanf(v, "%15[a-z]:%15[a-z]:%lu%3s", op, kind, &at, tail) < 3 || at == 0 ||
        (tail[0] && strcmp(tail, "+") != 0))
        return;
    int o = 0;
    while (o < RL_IO_OPS && strcmp(op, op_names[o]) != 0)
        o++;
    static const struct { const char *name; int fault; } kinds[] = {
        {"eintr", EINTR}, {"short", RL_IO_SHORT}, {"enospc", ENOSPC}, {"eio", EIO}};
    size_t k = 0;
    while (k < sizeof kinds / sizeof *kinds && strcmp(kind, kinds[k].name) != 0)
        k++;
    if (o == RL_IO_OPS || k == sizeof kinds / sizeof *kinds)
        return;
    bool sticky = tail[0] == '+';
    /* An interrupted call is retried: interrupting every one never ends. A
     * short fsync or rename means nothing. */
    if ((sticky && kinds[k].fault == EINTR) ||
        (kinds[k].fault == RL_IO_SHORT && o != RL_IO_READ && o != RL_IO_WRITE))
        return;
    spec.op = (enum rl_io_op)o;
    spec.fault = kinds[k].fault;
    spec.at = at;
    spec.sticky = sticky;
    snprintf(spec.text, sizeof spec.text, "%s:%s:%lu%s", op, kind, at, sticky ? "+" : "");
    spec.armed = true;
}

/* Tell the driver the fault happened (plain write(2): not through the hook). */
static void note_fired(void)
{
    const char *path = getenv("ROOFLINE_FAULT_IO_FIRED");
    if (!path || !*path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[80];
    int n = snprintf(line, sizeof line, "%s\n", spec.text);
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

int rl_io_fault(enum rl_io_op op)
{
    pthread_once(&spec_once, spec_parse);
    if (!spec.armed || op != spec.op)
        return 0;
    unsigned long k = atomic_fetch_add(&calls[op], 1) + 1;
    if (k < spec.at || (k > spec.at && !spec.sticky))
        return 0;
    if (atomic_exchange(&fired, 1) == 0)
        note_fired();
    return spec.fault;
}

/* ---- reads and writes ----------------------------------------------------- */

ssize_t rl_io_read(int fd, void *buf, size_t size)
{
    for (;;) {
        int f = rl_io_fault(RL_IO_READ);
        ssize_t n;
        if (f > 0) {
            errno = f;
            n = -1;
        } else {
            n = read(fd, buf, f == RL_IO_SHORT && size > 1 ? size / 2 : size);
        }
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

ssize_t rl_io_pread(int fd, void *buf, size_t size, off_t offset)
{
    size_t got = 0;
    while (got < size) {
        int f = rl_io_fault(RL_IO_READ);
        size_t want = size - got;
        ssize_t n;
        if (f > 0) {
            errno = f;
            n = -1;
        } else {
            n = pread(fd, (char *)buf + got, f == RL_IO_SHORT && want > 1 ? want / 2 : want,
                      offset + (off_t)got);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

int rl_io_write(int fd, const void *buf, size_t size)
{
    const char *p = buf;
    while (size > 0) {
        int f = rl_io_fault(RL_IO_WRITE);
        ssize_t n;
        if (f > 0) {
            errno = f;
            n = -1;
        } else {
            n = write(fd, p, f == RL_IO_SHORT && size > 1 ? size / 2 : size);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0) /* no progress and no reason: do not spin */
                errno = EIO;
            return -1;
        }
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

int rl_io_fsync(int fd)
{
    for (;;) {
        int f = rl_io_fault(RL_IO_FSYNC);
        int r = f > 0 ? (errno = f, -1) : fsync(fd);
        if (r == 0 || errno != EINTR)
            return r;
    }
}

int rl_io_rename(const char *from, const char *to)
{
    for (;;) {
        int f = rl_io_fault(RL_IO_RENAME);
        int r = f > 0 ? (errno = f, -1) : rename(from, to);
        if (r == 0 || errno != EINTR)
            return r;
    }
}

/* ---- FILEs over the layer (glibc's fopencookie) --------------------------- */

struct io_file {
    FILE *fp;
    int fd;
    bool own;          /* fclose closes fd (not standard input) */
    int err;           /* the first failed read or write */
    struct io_file *next;
};

/* The open ones, for rl_io_fileno() and rl_io_errno() (ranks are read in
 * threads). */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static struct io_file *files;

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
    struct io_file *c = cookie;
    ssize_t n = rl_io_read(c->fd, buf, size);
    if (n < 0 && !c->err)
        c->err = errno;
    return n;
}

/* fopencookie: the bytes written, 0 on an error (never negative). */
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    struct io_file *c = cookie;
    if (c->err) /* the file has a hole already: write nothing more */
        return 0;
    if (rl_io_write(c->fd, buf, size) != 0) {
        c->err = errno;
        return 0;
    }
    return (ssize_t)size;
}

/* fseeko/ftello (the trace reader skips what its helper thread read). */
static int cookie_seek(void *cookie, off64_t *offset, int whence)
{
    struct io_file *c = cookie;
    off_t at = lseek(c->fd, (off_t)*offset, whence);
    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

static int cookie_close(void *cookie)
{
    struct io_file *c = cookie;
    pthread_mutex_lock(&files_lock);
    for (struct io_file **at = &files; *at; at = &(*at)->next)
        if (*at == c) {
            *at = c->next;
            break;
        }
    pthread_mutex_unlock(&files_lock);
    int rc = c->own ? close(c->fd) : 0;
    free(c);
    return rc;
}

/* A FILE over fd through the layer; NULL with errno (fd left open). */
static FILE *io_fdopen(int fd, bool own, const char *mode)
{
    struct io_file *c = rl_calloc(1, sizeof *c);
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->fd = fd;
    c->own = own;
    cookie_io_functions_t io = {.read = cookie_read, .write = cookie_write, .seek = cookie_seek,
                                .close = cookie_close};
    FILE *fp = fopencookie(c, mode, io);
    if (!fp) {
        int e = errno;
        free(c);
        errno = e ? e : ENOMEM;
        return NULL;
    }
    c->fp = fp;
    pthread_mutex_lock(&files_lock);
    c->next = files;
    files = c;
    pthread_mutex_unlock(&files_lock);
    return fp;
}

static struct io_file *io_find(FILE *fp)
{
    pthread_mutex_lock(&files_lock);
    struct io_file *c = files;
    while (c && c->fp != fp)
        c = c->next;
    pthread_mutex_unlock(&files_lock);
    return c;
}

FILE *rl_io_open_read(const char *path)
{
    if (strcmp(path, "-") == 0)
        return io_fdopen(STDIN_FILENO, false, "r");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    FILE *fp = io_fdopen(fd, true, "r");
    if (!fp) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return fp;
}

FILE *rl_io_open_stdout(void)
{
    FILE *fp = io_fdopen(STDOUT_FILENO, false, "w");
    if (fp && isatty(STDOUT_FILENO))
        setvbuf(fp, NULL, _IOLBF, BUFSIZ);
    return fp;
}

int rl_io_fileno(FILE *fp)
{
    struct io_file *c = io_find(fp);
    return c ? c->fd : fileno(fp);
}

int rl_io_errno(FILE *fp)
{
    struct io_file *c = io_find(fp);
    return c && c->err ? c->err : EIO;
}

/* ---- whole files ---------------------------------------------------------- */

int rl_file_read(const char *path, char **out, size_t *len_out, char *errmsg)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rl_fail(errmsg, RL_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
        close(fd);
        return rl_fail(errmsg, RL_EIO, "cannot read '%s': %s", path,
                       e == EISDIR ? "is a directory" : strerror(e));
    }
    /* A file is read to the size it had when opened (one read); pipes and
     * /proc files (size 0) to their end. */
    size_t size = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
    size_t cap = size > 0 ? size + 1 : 4096, len = 0;
    char *buf = rl_malloc(cap);
    if (!buf) {
        close(fd);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", path);
    }
    while (size == 0 || len < size) {
        if (len + 1 >= cap) {
            char *bigger = rl_realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                close(fd);
                return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", path);
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = rl_io_read(fd, buf + len, cap - len - 1);
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return rl_fail(errmsg, RL_EIO, "cannot read '%s': %s", path, strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    *out = buf;
    if (len_out)
        *len_out = len;
    return RL_OK;
}

int rl_file_head(const char *path, void *buf, size_t size, size_t *len, char *errmsg)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rl_fail(errmsg, RL_ENOTFOUND, "cannot open '%s': %s", path, strerror(errno));
    while (*len < size) {
        ssize_t got = rl_io_read(fd, (char *)buf + *len, size - *len);
        if (got < 0) {
            int e = errno;
            close(fd);
            /* a folder is no format: its reader says so */
            if (e == EISDIR)
                return rl_fail(errmsg, RL_ENOTFOUND, "cannot read '%s': %s", path, strerror(e));
            return rl_fail(errmsg, RL_EIO, "cannot read '%s': %s", path, strerror(e));
        }
        if (got == 0)
            break;
        *len += (size_t)got;
    }
    close(fd);
    return RL_OK;
}

/* ---- atomic writes -------------------------------------------------------- */

int rl_atomic_open(struct rl_atomic_file *f, const char *path, char *errmsg)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    size_t n = strlen(path);
    f->path = rl_malloc(n + 1);
    f->tmp_path = rl_malloc(n + 16);
    if (!f->path || !f->tmp_path) {
        rl_atomic_abort(f);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    }
    memcpy(f->path, path, n + 1);
    /* A dot-prefixed name would be nicer but needs the folder split out;
     * the suffix keeps the temp file in the same folder, so rename() stays
     * atomic (same file system). */
    snprintf(f->tmp_path, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(f->tmp_path, O_CLOEXEC); /* not into gnuplot's child */
    if (fd < 0) {
        int e = errno;
        free(f->tmp_path);
        f->tmp_path = NULL;
        rl_atomic_abort(f);
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    fchmod(fd, 0644);
    f->fp = io_fdopen(fd, true, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        rl_atomic_abort(f);
        if (e == ENOMEM)
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    f->fd = fd;
    return RL_OK;
}

int rl_atomic_commit(struct rl_atomic_file *f, char *errmsg)
{
    int err = 0;
    if (!f->fp)
        err = EBADF;
    if (!err && (fflush(f->fp) != 0 || ferror(f->fp)))
        err = rl_io_errno(f->fp);
    /* EINVAL: a file that cannot be synced (a pipe, /dev/null) */
    if (!err && rl_io_fsync(f->fd) != 0 && errno != EINVAL)
        err = errno;
    if (f->fp && fclose(f->fp) != 0 && !err)
        err = errno ? errno : EIO;
    f->fp = NULL;
    f->fd = -1;
    if (!err && rl_io_rename(f->tmp_path, f->path) != 0)
        err = errno;
    if (err) {
        char path[512];
        snprintf(path, sizeof path, "%s", f->path ? f->path : "?");
        rl_atomic_abort(f);
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path, strerror(err));
    }
    free(f->tmp_path);
    free(f->path);
    f->tmp_path = f->path = NULL;
    return RL_OK;
}

void rl_atomic_abort(struct rl_atomic_file *f)
{
    if (f->fp)
        fclose(f->fp);
    if (f->tmp_path)
        unlink(f->tmp_path);
    free(f->tmp_path);
    free(f->path);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

int rl_atomic_fail(struct rl_atomic_file *f, char *errmsg)
{
    int e = f->fp && ferror(f->fp) ? rl_io_errno(f->fp) : 0;
    char path[512];
    snprintf(path, sizeof path, "%s", f->path ? f->path : "?");
    rl_atomic_abort(f);
    if (e)
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path, strerror(e));
    return rl_fail(errmsg, RL_EIO, "'%s': write failed", path);
}

int rl_file_write_with(const char *path, int (*write)(FILE *fp, const void *ctx),
                       const void *ctx, char *errmsg)
{
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, errmsg);
    if (rc)
        return rc;
    if (write(f.fp, ctx))
        return rl_atomic_fail(&f, errmsg);
    return rl_atomic_commit(&f, errmsg);
}

int rl_file_write_atomic(const char *path, const void *data, size_t len, char *errmsg)
{
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, errmsg);
    if (rc)
        return rc;
    if (len && fwrite(data, 1, len, f.fp) != len)
        return rl_atomic_fail(&f, errmsg);
    return rl_atomic_commit(&f, errmsg);
}
