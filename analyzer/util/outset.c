/* outset.c - output sets written all or nothing: staged beside their target, moved into place once every member is written. */
#define _GNU_SOURCE
#include "analyzer/util/outset.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where a part's commit got to, for putting it back. */
enum {
    PART_STAGED,    /* nothing moved yet */
    PART_EXCHANGED, /* folder: stage and target swapped (the stage path holds the old set) */
    PART_MOVED,     /* folder: there was none; the stage is the target now */
    PART_ASIDE,     /* folder: old set at `aside`, the stage is the target now */
    PART_INSTALLED  /* loose: n_done members renamed in, the old ones in <stage>/.old */
};

#define OLD_DIR ".old"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    if (path)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void part_release(struct rl_outset_part *p)
{
    free(p->target);
    free(p->shown);
    free(p->stage);
    free(p->aside);
    for (size_t i = 0; i < p->n_names; i++)
        free(p->names[i]);
    free(p->names);
    free(p->had_old);
    memset(p, 0, sizeof *p);
}

void rl_outset_abort(struct rl_outset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        remove_tree(s->part[i].stage);
        remove_tree(s->part[i].aside);
        part_release(&s->part[i]);
    }
    s->n = 0;
}

/* mkdtemp's folder gets 0700; a set gets what mkdir would have given. */
static void usual_mode(const char *dir)
{
    mode_t mask = umask(0);
    umask(mask);
    chmod(dir, 0777 & ~mask);
}

/* Empty, or holding the mark: a folder roofline may replace. */
static bool replaceable(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool empty = true;
    struct dirent *e;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    if (empty)
        return true;
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/%s", dir, RL_OUTSET_MARK);
    return access(mark, F_OK) == 0;
}

static int oom(char *errmsg) { return rl_fail(errmsg, RL_ENOMEM, "out of memory"); }

int rl_outset_folder(struct rl_outset *s, const char *dir, const char *what,
                     const char **stage, char *errmsg)
{
    if (s->n == RL_OUTSET_MAX)
        return rl_fail(errmsg, RL_EINVAL, "more than %d output sets", RL_OUTSET_MAX);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    struct rl_outset_part *p = &s->part[s->n];
    memset(p, 0, sizeof *p);
    p->folder = true;
    if (!(p->target = rl_strndup(dir, len)))
        return oom(errmsg);
    const char *base = strrchr(p->target, '/');
    base = base ? base + 1 : p->target;
    int rc = RL_OK;
    struct stat st;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        rc = rl_fail(errmsg, RL_EIO,
                     "cannot replace '%s' by a new set of files: give a folder of their own",
                     dir);
    } else if (lstat(p->target, &st) == 0) {
        if (S_ISLNK(st.st_mode)) { /* the folder it points to is the one to replace */
            char *real = realpath(p->target, NULL);
            if (real) {
                free(p->target);
                p->target = real;
            }
            if (!real || stat(p->target, &st) != 0)
                rc = rl_fail(errmsg, RL_EIO, "cannot use '%s': %s", dir, strerror(errno));
        }
        if (rc == RL_OK && !S_ISDIR(st.st_mode))
            rc = rl_fail(errmsg, RL_EIO, "'%s' exists and is not a folder", dir);
        else if (rc == RL_OK && !replaceable(p->target))
            rc = rl_fail(errmsg, RL_EIO,
                         "'%s' holds files roofline did not write (it has no %s): give a new "
                         "folder, or empty this one",
                         dir, RL_OUTSET_MARK);
    } else if (errno != ENOENT) {
        rc = rl_fail(errmsg, RL_EIO, "cannot use '%s': %s", dir, strerror(errno));
    }
    if (rc == RL_OK && rl_asprintf(&p->stage, "%s.tmp.%ld.XXXXXX", p->target, (long)getpid()) < 0) {
        p->stage = NULL;
        rc = oom(errmsg);
    }
    if (rc == RL_OK && !mkdtemp(p->stage)) {
        rc = rl_fail(errmsg, RL_EIO, "cannot create a folder beside '%s': %s", dir,
                     strerror(errno));
        free(p->stage);
        p->stage = NULL;
    }
    if (rc == RL_OK) {
        usual_mode(p->stage);
        char mark[4200], text[128];
        snprintf(mark, sizeof mark, "%s/%s", p->stage, RL_OUTSET_MARK);
        int n = snprintf(text, sizeof text, "roofline %s\n", what);
        rc = rl_file_write_atomic(mark, text, (size_t)n, errmsg);
    }
    if (rc) {
        remove_tree(p->stage);
        part_release(p);
        return rc;
    }
    s->n++;
    *stage = p->stage;
    return RL_OK;
}

int rl_outset_file(struct rl_outset *s, const char *path, char *staged, size_t size,
                   char *errmsg)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return rl_fail(errmsg, RL_EIO, "'%s' has no file name", path);
    char dir[4096], shown[4096];
    snprintf(shown, sizeof shown, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
    if (!slash || slash == path)
        snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct rl_outset_part *p = NULL;
    for (size_t i = 0; i < s->n && !p; i++)
        if (!s->part[i].folder && strcmp(s->part[i].target, dir) == 0)
            p = &s->part[i];
    if (!p) {
        if (s->n == RL_OUTSET_MAX)
            return rl_fail(errmsg, RL_EINVAL, "outputs in more than %d folders", RL_OUTSET_MAX);
        p = &s->part[s->n];
        memset(p, 0, sizeof *p);
        if (!(p->target = rl_strdup(dir)) || !(p->shown = rl_strdup(shown)) ||
            rl_asprintf(&p->stage, "%s/.roofline.tmp.%ld.XXXXXX", dir, (long)getpid()) < 0) {
            p->stage = NULL;
            part_release(p);
            return oom(errmsg);
        }
        if (!mkdtemp(p->stage)) {
            int e = errno;
            part_release(p);
            return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path, strerror(e));
        }
        usual_mode(p->stage);
        s->n++;
    }
    bool known = false;
    for (size_t i = 0; i < p->n_names && !known; i++)
        known = strcmp(p->names[i], name) == 0;
    if (!known) {
        char **names = rl_realloc(p->names, (p->n_names + 1) * sizeof *names);
        if (!names)
            return oom(errmsg);
        p->names = names;
        if (!(p->names[p->n_names] = rl_strdup(name)))
            return oom(errmsg);
        p->n_names++;
    }
    if ((size_t)snprintf(staged, size, "%s/%s", p->stage, name) >= size)
        return rl_fail(errmsg, RL_EINVAL, "'%s': path too long", path);
    return RL_OK;
}

/* ---- commit ----------------------------------------------------------------- */

static char *join(const char *a, const char *b)
{
    char *s;
    return rl_asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

/* A loose part's members: what its stage holds and what was declared. */
static int list_members(struct rl_outset_part *p, char *errmsg)
{
    DIR *d = opendir(p->stage);
    if (!d)
        return rl_fail(errmsg, RL_EIO, "cannot read '%s': %s", p->stage, strerror(errno));
    struct dirent *e;
    int rc = RL_OK;
    while (rc == RL_OK && (e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || strcmp(e->d_name, "..") == 0 ||
                                    strcmp(e->d_name, OLD_DIR) == 0))
            continue;
        bool known = false;
        for (size_t i = 0; i < p->n_names && !known; i++)
            known = strcmp(p->names[i], e->d_name) == 0;
        if (known)
            continue;
        char **names = rl_realloc(p->names, (p->n_names + 1) * sizeof *names);
        if (!names || !(names[p->n_names] = rl_strdup(e->d_name))) {
            if (names)
                p->names = names;
            rc = oom(errmsg);
            break;
        }
        p->names = names;
        p->n_names++;
    }
    closedir(d);
    if (rc == RL_OK && !(p->had_old = rl_calloc(p->n_names ? p->n_names : 1, sizeof *p->had_old)))
        rc = oom(errmsg);
    return rc;
}

/* Put a loose part's first n_done members back as they were. */
static void loose_undo(struct rl_outset_part *p)
{
    while (p->n_done > 0) {
        size_t i = --p->n_done;
        char *old = NULL, *tgt = join(p->target, p->names[i]), *dir = join(p->stage, OLD_DIR);
        if (dir)
            old = join(dir, p->names[i]);
        if (tgt && old && p->had_old[i])
            rl_io_rename(old, tgt);
        else if (tgt)
            unlink(tgt);
        free(old);
        free(tgt);
        free(dir);
    }
}

static int loose_install(struct rl_outset_part *p, char *errmsg)
{
    int rc = list_members(p, errmsg);
    char *olds = rc == RL_OK ? join(p->stage, OLD_DIR) : NULL;
    if (rc == RL_OK && (!olds || mkdir(olds, 0700) != 0))
        rc = olds ? rl_fail(errmsg, RL_EIO, "cannot create '%s': %s", olds, strerror(errno))
                  : oom(errmsg);
    /* Keep each old file (a hard link), then rename each new one over it. */
    for (size_t i = 0; rc == RL_OK && i < p->n_names; i++) {
        char *tgt = join(p->target, p->names[i]), *old = join(olds, p->names[i]);
        if (!tgt || !old)
            rc = oom(errmsg);
        else if (link(tgt, old) == 0)
            p->had_old[i] = true;
        else if (errno != ENOENT)
            rc = rl_fail(errmsg, RL_EIO, "cannot replace '%s': %s", tgt, strerror(errno));
        free(tgt);
        free(old);
    }
    p->state = PART_INSTALLED;
    for (size_t i = 0; rc == RL_OK && i < p->n_names; i++) {
        char *tgt = join(p->target, p->names[i]), *src = join(p->stage, p->names[i]);
        if (!tgt || !src)
            rc = oom(errmsg);
        else if (rl_io_rename(src, tgt) == 0 || (errno == ENOENT && (!p->had_old[i] ||
                                                               unlink(tgt) == 0)))
            p->n_done = i + 1;
        else
            rc = rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", tgt, strerror(errno));
        free(tgt);
        free(src);
    }
    free(olds);
    if (rc)
        loose_undo(p);
    return rc;
}

static bool no_exchange(int e) { return e == EINVAL || e == ENOSYS || e == ENOTSUP; }

static int exchange_errno; /* rl_outset_fail_exchange() */

void rl_outset_fail_exchange(int e) { exchange_errno = e; }

#ifdef RENAME_EXCHANGE
/* Stage and target swapped in one step, or false with errno set. */
static bool exchanged(const struct rl_outset_part *p)
{
    if (exchange_errno) {
        errno = exchange_errno;
        return false;
    }
    int f = rl_io_fault(RL_IO_RENAME); /* counts as a rename (the file layer's hook) */
    if (f > 0 && f != EINTR) { /* an interrupted one is tried again: at once */
        errno = f;
        return false;
    }
    return renameat2(AT_FDCWD, p->stage, AT_FDCWD, p->target, RENAME_EXCHANGE) == 0;
}
#endif

static int folder_swap(struct rl_outset_part *p, char *errmsg)
{
    struct stat st;
    if (lstat(p->target, &st) != 0) {
        if (rl_io_rename(p->stage, p->target) != 0)
            return rl_fail(errmsg, RL_EIO, "cannot create '%s': %s", p->target,
                           strerror(errno));
        p->state = PART_MOVED;
        return RL_OK;
    }
    if (!S_ISDIR(st.st_mode))
        return rl_fail(errmsg, RL_EIO, "'%s' exists and is not a folder", p->target);
#ifdef RENAME_EXCHANGE
    if (exchanged(p)) {
        p->state = PART_EXCHANGED;
        return RL_OK;
    }
    if (!no_exchange(errno))
        return rl_fail(errmsg, RL_EIO, "cannot replace '%s': %s", p->target, strerror(errno));
#endif
    if (rl_asprintf(&p->aside, "%s.old", p->stage) < 0) {
        p->aside = NULL;
        return oom(errmsg);
    }
    if (rl_io_rename(p->target, p->aside) != 0)
        return rl_fail(errmsg, RL_EIO, "cannot replace '%s': %s", p->target, strerror(errno));
    if (rl_io_rename(p->stage, p->target) != 0) {
        int e = errno;
        rl_io_rename(p->aside, p->target);
        return rl_fail(errmsg, RL_EIO, "cannot replace '%s': %s", p->target, strerror(e));
    }
    p->state = PART_ASIDE;
    return RL_OK;
}

static void folder_undo(struct rl_outset_part *p)
{
    switch (p->state) {
#ifdef RENAME_EXCHANGE
    case PART_EXCHANGED:
        renameat2(AT_FDCWD, p->stage, AT_FDCWD, p->target, RENAME_EXCHANGE);
        break;
#endif
    case PART_MOVED:
        rl_io_rename(p->target, p->stage);
        break;
    case PART_ASIDE:
        rl_io_rename(p->target, p->stage);
        rl_io_rename(p->aside, p->target);
        break;
    default:
        break;
    }
    p->state = PART_STAGED;
}

/* The folder whose lock a part's commit holds: the one its target sits in. */
static char *lock_dir(const struct rl_outset_part *p)
{
    if (!p->folder)
        return rl_strdup(p->target);
    const char *slash = strrchr(p->target, '/');
    if (!slash)
        return rl_strdup(".");
    return slash == p->target ? rl_strdup("/") : rl_strndup(p->target, (size_t)(slash - p->target));
}

struct lock {
    int fd;
    dev_t dev;
    ino_t ino;
};

static int by_inode(const void *a, const void *b)
{
    const struct lock *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Lock every folder the parts go to, each once, in one order for every
 * process (by device and inode: no deadlock between two writers). A file
 * system without flock (some network ones) goes unlocked. */
static size_t lock_all(const struct rl_outset *s, struct lock *locks)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        char *dir = lock_dir(&s->part[i]);
        if (!dir)
            continue;
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(dir);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) != 0) {
            close(fd);
            continue;
        }
        /* Each folder once. The new lock goes in at locks[n] (n <= i <
         * RL_OUTSET_MAX) as the search's sentinel: the search stops at a
         * lock taken before (k < n: this one goes) or at itself (k == n:
         * it stays). The search has no bound that could read past the
         * locks taken; a wrong k < n test locks nothing, or one folder
         * twice (a flock that waits for itself). */
        locks[n] = (struct lock){fd, st.st_dev, st.st_ino};
        size_t k = 0;
        while (locks[k].dev != st.st_dev || locks[k].ino != st.st_ino)
            k++;
        if (k < n)
            close(fd);
        else
            n++;
    }
    qsort(locks, n, sizeof *locks, by_inode);
    for (size_t k = 0; k < n; k++)
        while (flock(locks[k].fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    return n;
}

int rl_outset_commit(struct rl_outset *s, char *errmsg)
{
    struct lock locks[RL_OUTSET_MAX];
    size_t n_locks = lock_all(s, locks);
    int rc = RL_OK;
    size_t done = 0;
    for (; done < s->n && rc == RL_OK; done++) {
        struct rl_outset_part *p = &s->part[done];
        rc = p->folder ? folder_swap(p, errmsg) : loose_install(p, errmsg);
        if (rc)
            break;
    }
    if (rc) /* put back, newest first, what was moved */
        while (done-- > 0) {
            struct rl_outset_part *p = &s->part[done];
            if (p->folder)
                folder_undo(p);
            else
                loose_undo(p);
        }
    /* What is left at the stage paths is an old set, a new one not used,
     * or the old loose files: all go. */
    rl_outset_abort(s);
    for (size_t k = 0; k < n_locks; k++)
        close(locks[k].fd); /* releases the lock */
    return rc;
}

void rl_outset_unstage(const struct rl_outset *s, char *text, size_t size)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct rl_outset_part *p = &s->part[i];
        char from[4200];
        snprintf(from, sizeof from, p->folder ? "%s" : "%s/", p->stage);
        const char *to = p->folder ? p->target : p->shown;
        size_t lf = strlen(from), lt = strlen(to);
        for (char *at = strstr(text, from); at; at = strstr(at + lt, from)) {
            size_t tail = strlen(at + lf);
            if ((size_t)(at - text) + lt + tail >= size)
                break;
            memmove(at + lt, at + lf, tail + 1);
            memcpy(at, to, lt);
        }
    }
}
