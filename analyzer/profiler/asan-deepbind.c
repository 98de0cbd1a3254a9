/* asan-deepbind.c - sanitizer builds only: let CUPTI load libnvperf_host.so under AddressSanitizer.
 *
 * CUPTI's host API dlopen()s libnvperf_host.so with RTLD_DEEPBIND, which
 * AddressSanitizer refuses outright (google/sanitizers#611): the process
 * dies. Linked into the executables of a sanitizer build (never into a
 * release build or a library), this dlopen() comes first in symbol lookup,
 * drops RTLD_DEEPBIND and hands over to the next dlopen (the sanitizer's).
 * Without DEEPBIND the library binds to global symbols first; the profiler
 * tests pass that way, which is all a sanitizer build is for.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

void *dlopen(const char *file, int mode)
{
    static void *(*next)(const char *, int);
    if (!next)
        next = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return next ? next(file, mode & ~RTLD_DEEPBIND) : NULL;
}
