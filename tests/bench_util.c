/* bench_util.c - what the benchmarks share: a clock, and one timed run of a command. */
#define _GNU_SOURCE
#include "bench_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

bool bench_run(char *const argv[], struct bench_run *out)
{
    fflush(stdout);
    double start = bench_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 1);
        execv(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
        perror("wait4");
        return false;
    }
    out->wall_s = bench_now_s() - start;
    out->user_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    out->peak_mb = ru.ru_maxrss / 1024.0;
    out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return true;
}
