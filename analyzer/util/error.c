/* error.c - error codes of libroofline and their messages. */
#include "analyzer/util/error.h"

#include <stdarg.h>
#include <stdio.h>

const char *rl_strerror(int err)
{
    switch (err) {
    case RL_OK:
        return "success";
#define RL__ERRNO_CASE(name, code, text)                                       \
    case RL_##name:                                                            \
        return text;
        RL_ERRNO_MAP(RL__ERRNO_CASE)
#undef RL__ERRNO_CASE
    }
    return "unknown error";
}

int rl_fail(char *errmsg, int err, const char *fmt, ...)
{
    if (errmsg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errmsg, RL_ERRMSG_SIZE, fmt, ap);
        va_end(ap);
    }
    return err;
}
