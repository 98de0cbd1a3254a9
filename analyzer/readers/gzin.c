/* gzin.c - a FILE that reads another FILE's bytes inflated when they are gzip (plain text passes through), for the streaming trace readers.
 *
 * zlib's gzdopen() would read the file descriptor itself, past the file
 * layer (analyzer/util/fileio.h) and its fault hook: this inflates what
 * the input FILE gives instead, with zlib's inflate().
 */
#define _GNU_SOURCE /* fopencookie */
#include "analyzer/readers/gzin.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/fileio.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IN_BYTES (1u << 18)

struct gzin {
    FILE *in;
    struct rl_gzin_fault *fault;
    z_stream zs;
    bool started, gzip, zinit, in_eof, done;
    unsigned char buf[IN_BYTES];
};

static ssize_t io_failed(struct gzin *z)
{
    z->fault->io_errno = rl_io_errno(z->in);
    errno = EIO;
    return -1;
}

/* At least want bytes at next_in, or as many as are left: 0, or -1 when a
 * read of the input fails. */
static int need(struct gzin *z, size_t want)
{
    if (z->zs.avail_in >= want || z->in_eof)
        return 0;
    if (z->zs.avail_in && z->zs.next_in != z->buf)
        memmove(z->buf, z->zs.next_in, z->zs.avail_in);
    z->zs.next_in = z->buf;
    while (z->zs.avail_in < want && !z->in_eof) {
        size_t room = IN_BYTES - z->zs.avail_in;
        size_t n = fread(z->buf + z->zs.avail_in, 1, room, z->in);
        z->zs.avail_in += (uInt)n;
        if (ferror(z->in))
            return -1;
        if (n < room)
            z->in_eof = true;
    }
    return 0;
}

static ssize_t plain_read(struct gzin *z, char *out, size_t size)
{
    if (z->zs.avail_in) { /* the bytes read to look for the magic */
        size_t n = z->zs.avail_in < size ? z->zs.avail_in : size;
        memcpy(out, z->zs.next_in, n);
        z->zs.next_in += n;
        z->zs.avail_in -= (uInt)n;
        return (ssize_t)n;
    }
    if (z->in_eof)
        return 0;
    size_t n = fread(out, 1, size, z->in);
    if (ferror(z->in))
        return io_failed(z);
    if (n < size)
        z->in_eof = true;
    return (ssize_t)n;
}

static ssize_t corrupt(struct gzin *z, const char *why)
{
    snprintf(z->fault->zmsg, sizeof z->fault->zmsg, "%s", why && *why ? why : "corrupt data");
    errno = EIO;
    return -1;
}

static ssize_t gz_read(void *cookie, char *out, size_t size)
{
    struct gzin *z = cookie;
    if (z->fault->io_errno || z->fault->zmsg[0]) {
        errno = EIO;
        return -1;
    }
    if (!z->started) {
        z->started = true;
        if (need(z, 2))
            return io_failed(z);
        z->gzip = z->zs.avail_in >= 2 && z->buf[0] == 0x1f && z->buf[1] == 0x8b;
        if (z->gzip) {
            if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK)
                return corrupt(z, "out of memory");
            z->zinit = true;
        }
    }
    if (!z->gzip)
        return plain_read(z, out, size);
    if (z->done || size == 0)
        return 0;
    uInt room = size > UINT_MAX ? UINT_MAX : (uInt)size;
    z->zs.next_out = (Bytef *)out;
    z->zs.avail_out = room;
    while (z->zs.avail_out == room && !z->done) {
        if (z->zs.avail_in == 0) {
            if (need(z, 1))
                return io_failed(z);
            if (z->zs.avail_in == 0) { /* cut short: the end, as gzread */
                z->done = true;
                break;
            }
        }
        int ret = inflate(&z->zs, Z_NO_FLUSH);
        if (ret == Z_STREAM_END) {
            /* another gzip member follows, or the end (anything else
             * after a member is ignored, as gzread) */
            if (need(z, 2))
                return io_failed(z);
            if (z->zs.avail_in >= 2 && z->zs.next_in[0] == 0x1f && z->zs.next_in[1] == 0x8b)
                inflateReset(&z->zs);
            else
                z->done = true;
        } else if (ret == Z_BUF_ERROR && z->zs.avail_in > 0) {
            return corrupt(z, z->zs.msg);
        } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
            return corrupt(z, z->zs.msg);
        }
    }
    return (ssize_t)(room - z->zs.avail_out);
}

static int gz_close(void *cookie)
{
    struct gzin *z = cookie;
    if (z->zinit)
        inflateEnd(&z->zs);
    free(z);
    return 0;
}

FILE *rl_gzin_open(FILE *in, struct rl_gzin_fault *fault)
{
    memset(fault, 0, sizeof *fault);
    struct gzin *z = rl_calloc(1, sizeof *z);
    if (!z) {
        errno = ENOMEM;
        return NULL;
    }
    z->in = in;
    z->fault = fault;
    z->zs.next_in = z->buf;
    cookie_io_functions_t io = {.read = gz_read, .write = NULL, .seek = NULL, .close = gz_close};
    FILE *f = fopencookie(z, "r", io);
    if (!f) {
        free(z);
        errno = ENOMEM;
    }
    return f;
}
