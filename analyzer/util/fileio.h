/* fileio.h - whole-file reads and atomic writes (temp file + rename). */
#ifndef RL_FILEIO_H
#define RL_FILEIO_H

#include <stdio.h>
#include <stddef.h>

/* A file being written: data goes to a temporary file beside `path`, which
 * becomes `path` only on rl_atomic_commit(). Readers never see a partial
 * file, and a failed write leaves any earlier `path` untouched. */
struct rl_atomic_file {
    FILE *fp;
    char *path;
    char *tmp_path;
};

/* Reading */

/* Read a whole file into a NUL-terminated malloc'd buffer (*out, length
 * *len_out, may be NULL). On error returns RL_EIO with the reason in errmsg
 * and *out == NULL. The caller frees *out. */
int rl_file_read(const char *path, char **out, size_t *len_out, char *errmsg);

/* Writing */

/* Open a temporary file beside path. Returns 0 or RL_EIO (errmsg says why:
 * missing folder, no permission). */
int rl_atomic_open(struct rl_atomic_file *f, const char *path, char *errmsg);

/* Flush, fsync and rename onto the final path; closes f in every case.
 * On error the temporary file is removed and RL_EIO returned. */
int rl_atomic_commit(struct rl_atomic_file *f, char *errmsg);

/* Close and delete the temporary file; safe on a closed or zeroed f. */
void rl_atomic_abort(struct rl_atomic_file *f);

/* Write `path` atomically through write(fp, ctx) (0, or nonzero when it
 * failed: RL_EIO "'path': write failed"); nothing is left on failure. */
int rl_file_write_with(const char *path, int (*write)(FILE *fp, const void *ctx),
                       const void *ctx, char *errmsg);

/* Write len bytes as the whole content of path, atomically. */
int rl_file_write_atomic(const char *path, const void *data, size_t len,
                         char *errmsg);

#endif
