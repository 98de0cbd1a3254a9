/* gzin.c - reads a file's bytes inflated when they are gzip (plain text passes through) straight into the caller's buffer, for the streaming trace readers.
 *
 * zlib's gzdopen() would read the file descriptor itself, past the file
 * layer (analyzer/util/fileio.h) and its fault hook: this inflates what
 * the layer reads instead, with zlib's inflate(). No FILE stands between
 * the reader's buffer and the file: a FILE made with fopencookie() reads
 * through its own small buffer (BUFSIZ bytes a call) and copies every
 * byte out of it again, which cost a tenth of the PyTorch reader's time
 * (docs/performance.md).
 */
#define _GNU_SOURCE
#include "analyzer/readers/gzin.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/fileio.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IN_BYTES (1u << 18)

struct rl_gzin {
    FILE *in;          /* or, when NULL, fd */
    int fd;
    struct rl_gzin_fault *fault;
    z_stream zs;
    bool started, gzip, zinit, in_eof, done;
    unsigned char buf[IN_BYTES];
};

bool rl_gzin_failed(const struct rl_gzin *z)
{
    return z->fault->io_errno || z->fault->zmsg[0];
}

/* Up to size bytes of the input (size unless at its end or on an error,
 * which sets fault->io_errno). */
static size_t in_read(struct rl_gzin *z, unsigned char *out, size_t size)
{
    size_t got = 0;
    if (z->in) {
        got = fread(out, 1, size, z->in);
        if (got < size && ferror(z->in))
            z->fault->io_errno = rl_io_errno(z->in);
    } else {
        while (got < size) {
            ssize_t n = rl_io_read(z->fd, out + got, size - got);
            if (n < 0) {
                z->fault->io_errno = errno ? errno : EIO;
                break;
            }
            if (n == 0)
                break;
            got += (size_t)n;
        }
    }
    if (got < size)
        z->in_eof = true;
    return got;
}

/* At least want bytes at next_in, or as many as are left: false when a
 * read of the input fails. */
static bool need(struct rl_gzin *z, size_t want)
{
    if (z->zs.avail_in >= want || z->in_eof)
        return true;
    if (z->zs.avail_in && z->zs.next_in != z->buf)
        memmove(z->buf, z->zs.next_in, z->zs.avail_in);
    z->zs.next_in = z->buf;
    while (z->zs.avail_in < want && !z->in_eof) {
        z->zs.avail_in += (uInt)in_read(z, z->buf + z->zs.avail_in, IN_BYTES - z->zs.avail_in);
        if (z->fault->io_errno)
            return false;
    }
    return true;
}

static void corrupt(struct rl_gzin *z, const char *why)
{
    snprintf(z->fault->zmsg, sizeof z->fault->zmsg, "%s", why && *why ? why : "corrupt data");
}

static size_t plain_read(struct rl_gzin *z, char *out, size_t size)
{
    size_t got = 0;
    if (z->zs.avail_in) { /* the bytes read to look for the magic */
        got = z->zs.avail_in < size ? z->zs.avail_in : size;
        memcpy(out, z->zs.next_in, got);
        z->zs.next_in += got;
        z->zs.avail_in -= (uInt)got;
    }
    if (got < size && !z->in_eof)
        got += in_read(z, (unsigned char *)out + got, size - got);
    return got;
}

/* Inflate into out until it is full, the stream ends or fails. */
static size_t inflate_read(struct rl_gzin *z, char *out, size_t size)
{
    size_t got = 0;
    while (got < size && !z->done) {
        if (z->zs.avail_in == 0) {
            if (!need(z, 1))
                break;
            if (z->zs.avail_in == 0) { /* cut short: the end, as gzread */
                z->done = true;
                break;
            }
        }
        size_t want = size - got;
        uInt room = want > UINT_MAX ? UINT_MAX : (uInt)want;
        z->zs.next_out = (Bytef *)out + got;
        z->zs.avail_out = room;
        int ret = inflate(&z->zs, Z_NO_FLUSH);
        got += room - z->zs.avail_out;
        if (ret == Z_STREAM_END) {
            /* another gzip member follows, or the end (anything else
             * after a member is ignored, as gzread) */
            if (!need(z, 2))
                break;
            if (z->zs.avail_in >= 2 && z->zs.next_in[0] == 0x1f && z->zs.next_in[1] == 0x8b)
                inflateReset(&z->zs);
            else
                z->done = true;
        } else if (ret != Z_OK && (ret != Z_BUF_ERROR || z->zs.avail_in > 0)) {
            corrupt(z, z->zs.msg);
            break;
        }
    }
    return got;
}

size_t rl_gzin_read(void *cookie, char *out, size_t size, int *err)
{
    struct rl_gzin *z = cookie;
    size_t got = 0;
    *err = 0;
    if (!rl_gzin_failed(z) && !z->started) {
        z->started = true;
        if (need(z, 2)) {
            z->gzip = z->zs.avail_in >= 2 && z->buf[0] == 0x1f && z->buf[1] == 0x8b;
            if (z->gzip) {
                if (inflateInit2(&z->zs, 16 + MAX_WBITS) == Z_OK)
                    z->zinit = true;
                else
                    corrupt(z, "out of memory");
            }
        }
    }
    if (!rl_gzin_failed(z) && size > 0)
        got = z->gzip ? inflate_read(z, out, size) : plain_read(z, out, size);
    if (rl_gzin_failed(z))
        *err = EIO;
    return got;
}

struct rl_gzin *rl_gzin_new(FILE *in, int fd, struct rl_gzin_fault *fault)
{
    memset(fault, 0, sizeof *fault);
    struct rl_gzin *z = rl_calloc(1, sizeof *z);
    if (!z) {
        errno = ENOMEM;
        return NULL;
    }
    z->in = fd >= 0 ? NULL : in;
    z->fd = fd;
    z->fault = fault;
    z->zs.next_in = z->buf;
    return z;
}

void rl_gzin_free(struct rl_gzin *z)
{
    if (!z)
        return;
    if (z->zinit)
        inflateEnd(&z->zs);
    free(z);
}
