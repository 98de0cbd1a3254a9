/* gzin.h - reads a file's bytes inflated when they are gzip (plain text passes through) straight into the caller's buffer, for the streaming trace readers. */
#ifndef RL_GZIN_H
#define RL_GZIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What went wrong reading, once rl_gzin_failed() says something did. */
struct rl_gzin_fault {
    int io_errno;      /* the input's read failed: its errno (0: it did not) */
    char zmsg[128];    /* the stream is corrupt: zlib's word for it ("" if not) */
};

struct rl_gzin;

/* A reader of in's bytes from where in is (bytes in's buffer holds already
 * included) - or, when fd >= 0, of fd's, read with rl_io_read() and no
 * FILE between (in is then not read; fd is left open): inflated when they
 * start with gzip's magic bytes, as they are otherwise. Concatenated gzip
 * members are read one after another; bytes after the last that are not
 * gzip are ignored, and a stream cut short ends where it is cut (both as
 * zlib's gzread). *fault (the caller's, zeroed here, to outlive the reader)
 * says what failed. NULL with errno (ENOMEM). */
struct rl_gzin *rl_gzin_new(FILE *in, int fd, struct rl_gzin_fault *fault);

/* Up to size bytes into out: size of them unless at the end or on a
 * failure (a corrupt stream, a failed read of the input), when *err gets
 * EIO (0 otherwise) and *fault says which. Returns the bytes read (before
 * the failure, if any). The rl_jsr read callback's shape. */
size_t rl_gzin_read(void *z, char *out, size_t size, int *err);

/* Whether a read failed (a corrupt stream or the input's error). */
bool rl_gzin_failed(const struct rl_gzin *z);

void rl_gzin_free(struct rl_gzin *z);

#endif
