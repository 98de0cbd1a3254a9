/* gzin.h - a FILE that reads another FILE's bytes inflated when they are gzip (plain text passes through), for the streaming trace readers. */
#ifndef RL_GZIN_H
#define RL_GZIN_H

#include <stdio.h>

/* What went wrong reading a gzin FILE, once ferror() says something did. */
struct rl_gzin_fault {
    int io_errno;      /* the input's read failed: its errno (0: it did not) */
    char zmsg[128];    /* the stream is corrupt: zlib's word for it ("" if not) */
};

/* A FILE reading in's bytes from where in is (bytes in's buffer holds
 * already included): inflated when they start with gzip's magic bytes, as
 * they are otherwise. Concatenated gzip members are read one after another;
 * bytes after the last that are not gzip are ignored, and a stream cut
 * short ends where it is cut (both as zlib's gzread). A corrupt stream or a
 * failed read of in fails the read (ferror()), and *fault (the caller's,
 * zeroed here, to outlive the FILE) says which. Closing it leaves in open.
 * NULL with errno (ENOMEM). */
FILE *rl_gzin_open(FILE *in, struct rl_gzin_fault *fault);

#endif
