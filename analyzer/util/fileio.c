/* fileio.c - whole-file reads and atomic writes (temp file + rename). */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/util/fileio.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rl_file_read(const char *path, char **out, size_t *len_out, char *errmsg)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return rl_fail(errmsg, RL_EIO, "cannot open '%s': %s", path,
                       strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || S_ISDIR(st.st_mode)) {
        fclose(fp);
        return rl_fail(errmsg, RL_EIO, "cannot read '%s': %s", path,
                       S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
    char *buf = rl_malloc(cap);
    if (!buf) {
        fclose(fp);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", path);
    }
    for (;;) {
        if (len + 1 >= cap) { /* pipes and /proc files report size 0 */
            char *bigger = rl_realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                fclose(fp);
                return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'",
                               path);
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, fp);
        len += got;
        if (got == 0)
            break;
    }
    int failed = ferror(fp);
    fclose(fp);
    if (failed) {
        free(buf);
        return rl_fail(errmsg, RL_EIO, "cannot read '%s'", path);
    }
    buf[len] = '\0';
    *out = buf;
    if (len_out)
        *len_out = len;
    return RL_OK;
}

int rl_atomic_open(struct rl_atomic_file *f, const char *path, char *errmsg)
{
    memset(f, 0, sizeof *f);
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
    int fd = mkstemp(f->tmp_path);
    if (fd < 0) {
        int e = errno;
        free(f->tmp_path);
        f->tmp_path = NULL;
        rl_atomic_abort(f);
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path,
                       strerror(e));
    }
    fchmod(fd, 0644);
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        close(fd);
        rl_atomic_abort(f);
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path,
                       strerror(errno));
    }
    return RL_OK;
}

int rl_atomic_commit(struct rl_atomic_file *f, char *errmsg)
{
    int err = 0;
    if (!f->fp)
        err = EBADF;
    if (!err && (fflush(f->fp) != 0 || ferror(f->fp)))
        err = errno ? errno : EIO;
    if (!err && fsync(fileno(f->fp)) != 0 && errno != EINVAL)
        err = errno;
    if (f->fp && fclose(f->fp) != 0 && !err)
        err = errno;
    f->fp = NULL;
    if (!err && rename(f->tmp_path, f->path) != 0)
        err = errno;
    if (err) {
        char path[512];
        snprintf(path, sizeof path, "%s", f->path ? f->path : "?");
        rl_atomic_abort(f);
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path,
                       strerror(err));
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
}

int rl_file_write_with(const char *path, int (*write)(FILE *fp, const void *ctx),
                       const void *ctx, char *errmsg)
{
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, errmsg);
    if (rc)
        return rc;
    if (write(f.fp, ctx)) {
        rl_atomic_abort(&f);
        return rl_fail(errmsg, RL_EIO, "'%s': write failed", path);
    }
    return rl_atomic_commit(&f, errmsg);
}

int rl_file_write_atomic(const char *path, const void *data, size_t len,
                         char *errmsg)
{
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, errmsg);
    if (rc)
        return rc;
    if (len && fwrite(data, 1, len, f.fp) != len) {
        int e = errno;
        rl_atomic_abort(&f);
        return rl_fail(errmsg, RL_EIO, "cannot write '%s': %s", path,
                       strerror(e));
    }
    return rl_atomic_commit(&f, errmsg);
}
