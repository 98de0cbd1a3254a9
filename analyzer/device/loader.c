/* loader.c - finds and opens roofline's run-time plugins. */
#define _GNU_SOURCE
#include "analyzer/device/loader.h"

#include "analyzer/util/error.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const void *try_open(const struct rl_plugin *p, const char *path, char *why, size_t n)
{
    void *h = dlopen(path, p->dlflags);
    if (!h) {
        snprintf(why, n, "%s", dlerror());
        return NULL;
    }
    const void *(*get)(void) = (const void *(*)(void))dlsym(h, p->symbol);
    if (!get) {
        snprintf(why, n, "'%s' has no %s", path, p->symbol);
        dlclose(h);
        return NULL;
    }
    const void *api = get();
    int abi = api ? *(const int *)api : -1; /* every plugin's struct opens with its ABI */
    if (abi != p->abi) {
        snprintf(why, n, "'%s' speaks ABI %d, this roofline %d: rebuild both", path, abi, p->abi);
        dlclose(h);
        return NULL;
    }
    return api; /* kept loaded for the life of the process */
}

int rl_plugin_open(const struct rl_plugin *p, const void **api, char *errmsg)
{
    *api = NULL;
    char why[512] = "";
    const char *env = getenv(p->env);
    if (env && *env) {
        *api = try_open(p, env, why, sizeof why);
        if (!*api)
            return rl_fail(errmsg, RL_EIO, "cannot load %s='%s': %s", p->env, env, why);
        return RL_OK;
    }
    if (!p->built)
        return rl_fail(errmsg, RL_EUNSUPPORTED, "%s", p->not_built);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return rl_fail(errmsg, RL_EIO, "cannot find the roofline executable's folder");
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    char path[PATH_MAX + 64];
    const char *const where[] = {"%s/%s", "%s/../lib/roofline/%s"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        snprintf(path, sizeof path, where[i], exe, p->file);
        if (access(path, F_OK) != 0)
            continue;
        *api = try_open(p, path, why, sizeof why);
        if (*api)
            return RL_OK;
        return rl_fail(errmsg, RL_EIO, "cannot load '%s': %s (%s)", path, why, p->hint);
    }
    return rl_fail(errmsg, RL_EIO, "cannot find %s beside '%s' (set %s)", p->file, exe, p->env);
}
