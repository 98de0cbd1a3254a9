/* bench_util.h - what the benchmarks share: a clock, and one timed run of a command. */
#ifndef RL_BENCH_UTIL_H
#define RL_BENCH_UTIL_H

#include <stdbool.h>

/* Seconds on the monotonic clock. */
double bench_now_s(void);

/* One timed run of argv (NULL-terminated; stdout to /dev/null). */
struct bench_run {
    int exit_code;          /* -1: did not exit normally */
    double wall_s, user_s;
    double peak_mb;         /* the child's maximum resident set */
};

/* Run it; false when it could not be waited for (perror said why). */
bool bench_run(char *const argv[], struct bench_run *out);

#endif
