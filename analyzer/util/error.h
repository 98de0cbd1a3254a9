/* error.h - error codes of libroofline and their messages. */
#ifndef RL_ERROR_H
#define RL_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One list generates the codes and rl_strerror() (libuv's UV_ERRNO_MAP). */
#define RL_ERRNO_MAP(X)                                                        \
    X(EINVAL, -1, "invalid argument")                                          \
    X(ENOMEM, -2, "out of memory")                                             \
    X(EIO, -3, "input/output error")                                           \
    X(EPARSE, -4, "malformed input")                                           \
    X(ESCHEMA, -5, "input does not match its schema")                          \
    X(ENOTFOUND, -6, "not found")                                              \
    X(EUNSUPPORTED, -7, "not supported on this build or device")               \
    X(ENODEV, -8, "no usable GPU")                                             \
    X(ECUDA, -9, "CUDA error")                                                 \
    X(ECUPTI, -10, "CUPTI error")                                              \
    X(EPERM, -11, "permission denied")                                         \
    X(EVERIFY, -12, "result verification failed")                              \
    X(ECHILD, -13, "child process failed")                                    \
    X(ENOTOOL, -14, "a program it needs is not installed")

enum rl_errno {
    RL_OK = 0,
#define RL__ERRNO_ENUM(name, code, text) RL_##name = (code),
    RL_ERRNO_MAP(RL__ERRNO_ENUM)
#undef RL__ERRNO_ENUM
};

/* Size of the caller-provided buffers that receive an error's context. */
#define RL_ERRMSG_SIZE 512

/* The fixed message of a code; "unknown error" for codes not in the list. */
const char *rl_strerror(int err);

/* printf into errmsg (may be NULL), and return err. Lets library code write
 * `return rl_fail(errmsg, RL_EPARSE, "'%s': line %d: ...", path, line);`. */
int rl_fail(char *errmsg, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif
