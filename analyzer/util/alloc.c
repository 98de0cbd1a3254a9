/* alloc.c - the allocation wrapper and its fault-injection hook (alloc.h). */
#define _GNU_SOURCE
#include "analyzer/util/alloc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Hook state: UNREAD until the first call reads the environment (two
 * threads racing there read the same values, so the race is harmless). */
enum { UNREAD, OFF, ARMED };
static _Atomic int state = UNREAD;
static _Atomic unsigned long calls, failed;
static unsigned long fail_at;   /* the call that fails (1-based) */
static int fail_after;          /* and every call after it */
static const char *count_file;

static void write_count(void)
{
    FILE *f = fopen(count_file, "w");
    if (f) {
        fprintf(f, "%lu %lu\n", atomic_load(&calls), atomic_load(&failed));
        fclose(f);
    }
}

static void arm(void)
{
    const char *v = getenv("ROOFLINE_FAULT_ALLOC");
    count_file = getenv("ROOFLINE_FAULT_ALLOC_COUNT");
    if (count_file && *count_file)
        atexit(write_count);
    else
        count_file = NULL;
    if (v && *v) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (n > 0 && (*end == '\0' || (end[0] == '+' && end[1] == '\0'))) {
            fail_at = n;
            fail_after = *end == '+';
        }
    }
    atomic_store(&state, fail_at || count_file ? ARMED : OFF);
}

/* Does this call fail? Counts it when armed. */
static int inject(void)
{
    int s = atomic_load_explicit(&state, memory_order_relaxed);
    if (s == OFF)
        return 0;
    if (s == UNREAD) {
        arm();
        if (atomic_load(&state) == OFF)
            return 0;
    }
    unsigned long n = atomic_fetch_add(&calls, 1) + 1;
    if (fail_at && (n == fail_at || (fail_after && n > fail_at))) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

/* The result, counted as a failure when NULL. */
static void *counted(void *p)
{
    if (!p)
        atomic_fetch_add(&failed, 1);
    return p;
}

unsigned long rl_alloc_failures(void) { return atomic_load(&failed); }

void *rl_malloc(size_t size) { return counted(inject() ? NULL : malloc(size)); }

void *rl_calloc(size_t n, size_t size) { return counted(inject() ? NULL : calloc(n, size)); }

void *rl_realloc(void *p, size_t size) { return counted(inject() ? NULL : realloc(p, size)); }

char *rl_strdup(const char *s) { return counted(inject() ? NULL : strdup(s)); }

char *rl_strndup(const char *s, size_t n) { return counted(inject() ? NULL : strndup(s, n)); }

int rl_vasprintf(char **out, const char *fmt, va_list ap)
{
    if (inject()) {
        counted(NULL);
        *out = NULL;
        return -1;
    }
    int n = vasprintf(out, fmt, ap);
    if (n < 0) {
        counted(NULL);
        *out = NULL;
    }
    return n;
}

int rl_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = rl_vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

FILE *rl_open_memstream(char **buf, size_t *size)
{
    return counted(inject() ? NULL : open_memstream(buf, size));
}
