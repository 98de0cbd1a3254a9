/* alloc.h - the one allocation wrapper of roofline, with a hook that fails the Nth call (tests). */
#ifndef RL_ALLOC_H
#define RL_ALLOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Allocation. As the libc functions they wrap: NULL (errno ENOMEM) when out
 * of memory; the memory is the C library's, released with free(), so it
 * may be handed to cJSON, zlib or libc. Every allocation of analyzer/,
 * plots/ and the benchmarks' host code goes through these (the lint test
 * `alloc_lint` fails on a raw call; tests/faults/use-rl-alloc rewrites
 * them). */
void *rl_malloc(size_t size);
void *rl_calloc(size_t n, size_t size);
void *rl_realloc(void *p, size_t size);
char *rl_strdup(const char *s);
char *rl_strndup(const char *s, size_t n);
/* As asprintf: the length, or -1 (and *out unspecified) on failure. */
int rl_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rl_vasprintf(char **out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* As open_memstream: NULL on failure. */
FILE *rl_open_memstream(char **buf, size_t *size);

/* Fault injection (always built in; one atomic counter per call when armed,
 * one relaxed load when not). The environment arms it at the first call:
 *   ROOFLINE_FAULT_ALLOC=N    the Nth call (counted from 1 at process
 *                             start, over every thread) fails, once;
 *   ROOFLINE_FAULT_ALLOC=N+   the Nth call and every one after it fail;
 *   ROOFLINE_FAULT_ALLOC_COUNT=<file>  at exit, write "<calls> <failed>\n"
 *                             to the file (how many N a path has).
 * docs/testing.md, "Allocation faults". */

/* How many allocations have returned NULL so far, injected or real: a caller
 * whose library hides an allocation failure (cJSON's parser says "malformed")
 * compares it before and after to tell "out of memory" apart. */
unsigned long rl_alloc_failures(void);

#ifdef __cplusplus
}
#endif

#endif
