/* fileio.h - roofline's file layer: whole-file reads, atomic writes (temp file + rename), and the one read and write path every input and output goes through (with its fault hook). */
#ifndef RL_FILEIO_H
#define RL_FILEIO_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/types.h>

/* A file being written: data goes to a temporary file beside `path`, which
 * becomes `path` only on rl_atomic_commit(). Readers never see a partial
 * file, and a failed write leaves any earlier `path` untouched. */
struct rl_atomic_file {
    FILE *fp;         /* writes end in rl_io_write() */
    char *path;
    char *tmp_path;
    int fd;
};

/* Reading */

/* Read a whole file into a NUL-terminated malloc'd buffer (*out, length
 * *len_out, may be NULL). On error returns RL_EIO with the reason in errmsg
 * and *out == NULL. The caller frees *out. */
int rl_file_read(const char *path, char **out, size_t *len_out, char *errmsg);

/* The first bytes of path (at most size) into buf, their count in *len:
 * for sniffing a format. RL_ENOTFOUND when it cannot be opened (the reader
 * that follows says why), RL_EIO when a read fails ("cannot read 'path':
 * <reason>" in errmsg, may be NULL). */
int rl_file_head(const char *path, void *buf, size_t size, size_t *len, char *errmsg);

/* Writing */

/* Open a temporary file beside path. Returns 0 or RL_EIO (errmsg says why:
 * missing folder, no permission). */
int rl_atomic_open(struct rl_atomic_file *f, const char *path, char *errmsg);

/* Flush, fsync and rename onto the final path; closes f in every case.
 * On error the temporary file is removed and RL_EIO returned. */
int rl_atomic_commit(struct rl_atomic_file *f, char *errmsg);

/* After its writer failed: abort f and return RL_EIO, errmsg saying
 * "cannot write 'path': <reason>" when a write of it failed (a full disk),
 * else "'path': write failed". */
int rl_atomic_fail(struct rl_atomic_file *f, char *errmsg);

/* Close and delete the temporary file; safe on a closed or zeroed f. */
void rl_atomic_abort(struct rl_atomic_file *f);

/* Write `path` atomically through write(fp, ctx) (0, or nonzero when it
 * failed: RL_EIO "cannot write 'path': <reason>"); nothing is left on
 * failure. */
int rl_file_write_with(const char *path, int (*write)(FILE *fp, const void *ctx),
                       const void *ctx, char *errmsg);

/* Write len bytes as the whole content of path, atomically. */
int rl_file_write_atomic(const char *path, const void *data, size_t len,
                         char *errmsg);

/* The file layer. Every read and write of roofline's inputs and outputs
 * ends in rl_io_read() / rl_io_pread() or rl_io_write(), and every commit
 * in rl_io_fsync() and rl_io_rename(): one place where EINTR is retried,
 * short reads and writes are continued, and a fault can be injected.
 *
 * Fault injection (tests, docs/testing.md "I/O faults"): the environment
 * variable ROOFLINE_FAULT_IO=OP:KIND:N makes the Nth call of OP (read,
 * write, fsync, rename; counted from 1 over the whole process, all threads)
 * fail with KIND: eintr (the call is interrupted, then retried), short
 * (only part of the bytes move; read and write), enospc or eio. N+ (e.g.
 * write:enospc:5+) fails the Nth call and every one after it: a disk that
 * fills up. When ROOFLINE_FAULT_IO_FIRED names a file, the first injected
 * fault appends "OP:KIND:N" to it, so a driver knows whether N was reached. */

enum rl_io_op { RL_IO_READ, RL_IO_WRITE, RL_IO_FSYNC, RL_IO_RENAME, RL_IO_OPS };

/* What rl_io_fault() asks of a short read or write. */
#define RL_IO_SHORT (-1)

/* The fault this call of op is to have: 0 (none), an errno value
 * (EINTR, ENOSPC, EIO) or RL_IO_SHORT. Counts the call. */
int rl_io_fault(enum rl_io_op op);

/* One read(2): 0 at the end, -1 with errno on an error; EINTR retried.
 * May return fewer bytes than asked before the end (a pipe). */
ssize_t rl_io_read(int fd, void *buf, size_t size);

/* pread(2) until size bytes or the end: the bytes read, -1 with errno. */
ssize_t rl_io_pread(int fd, void *buf, size_t size, off_t offset);

/* Write all size bytes (short writes continued, EINTR retried): 0, or -1
 * with errno (ENOSPC, EIO, ...). */
int rl_io_write(int fd, const void *buf, size_t size);

/* fsync(2) and rename(2) through the hook: 0, or -1 with errno. */
int rl_io_fsync(int fd);
int rl_io_rename(const char *from, const char *to);

/* A FILE reading path ("-": standard input, left open by fclose) through
 * rl_io_read(); NULL with errno (ENOMEM: out of memory, to be said so).
 * Close with fclose(). */
FILE *rl_io_open_read(const char *path);

/* A FILE writing standard output through rl_io_write() (line-buffered on
 * a terminal, as stdout), which its fclose leaves open; NULL with errno. */
FILE *rl_io_open_stdout(void);

/* The file descriptor under a FILE of rl_io_open_read() (fileno() says -1
 * for it), or fileno(fp) for any other FILE. */
int rl_io_fileno(FILE *fp);

/* The errno of the first failed read or write on a FILE of the file layer
 * (rl_io_open_read(), rl_atomic_open()), else EIO: for "cannot read 'x':
 * <strerror>" once ferror(fp) is set. */
int rl_io_errno(FILE *fp);

#endif
