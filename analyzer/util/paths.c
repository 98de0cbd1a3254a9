/* paths.c - where roofline finds its data folder (GPU specs, model configs). */
#define _DEFAULT_SOURCE
#include "analyzer/util/paths.h"

#include "analyzer/util/error.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ROOFLINE_SOURCE_DATA_DIR
#define ROOFLINE_SOURCE_DATA_DIR ""
#endif

static int has_gpus(const char *dir)
{
    char p[PATH_MAX + 32];
    struct stat st;
    if (snprintf(p, sizeof p, "%s/gpus/schema.json", dir) >= (int)sizeof p)
        return 0;
    return stat(p, &st) == 0;
}

int rl_data_dir(char *buf, size_t size, char *errmsg)
{
    const char *env = getenv("ROOFLINE_DATA_DIR");
    if (env && *env) {
        if (!has_gpus(env))
            return rl_fail(errmsg, RL_ENOTFOUND,
                           "ROOFLINE_DATA_DIR='%s' has no gpus/schema.json", env);
        snprintf(buf, size, "%s", env);
        return RL_OK;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char cand[PATH_MAX + 32];
            snprintf(cand, sizeof cand, "%s/../share/roofline", exe);
            if (has_gpus(cand)) {
                snprintf(buf, size, "%s", cand);
                return RL_OK;
            }
        }
    }
    if (ROOFLINE_SOURCE_DATA_DIR[0] && has_gpus(ROOFLINE_SOURCE_DATA_DIR)) {
        snprintf(buf, size, "%s", ROOFLINE_SOURCE_DATA_DIR);
        return RL_OK;
    }
    return rl_fail(errmsg, RL_ENOTFOUND,
                   "cannot find the data folder (looked in $ROOFLINE_DATA_DIR, "
                   "<exe>/../share/roofline and '%s'): set ROOFLINE_DATA_DIR",
                   ROOFLINE_SOURCE_DATA_DIR);
}
