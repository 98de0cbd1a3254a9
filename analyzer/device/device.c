/* device.c - loads the CUDA side of roofline (libroofline_cuda.so) at run time. */
#define _GNU_SOURCE
#include "analyzer/device/device.h"

#include "analyzer/util/error.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ROOFLINE_HAVE_CUDA
#define ROOFLINE_HAVE_CUDA 0
#endif

#define PLUGIN "libroofline_cuda.so"

static const struct rl_device_api *try_open(const char *path, char *why, size_t n)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, n, "%s", dlerror());
        return NULL;
    }
    const struct rl_device_api *(*get)(void) =
        (const struct rl_device_api *(*)(void))dlsym(h, RL_DEVICE_SYMBOL);
    if (!get) {
        snprintf(why, n, "'%s' has no %s", path, RL_DEVICE_SYMBOL);
        dlclose(h);
        return NULL;
    }
    const struct rl_device_api *api = get();
    if (!api || api->abi != RL_DEVICE_ABI) {
        snprintf(why, n, "'%s' speaks ABI %d, this roofline %d: rebuild both", path,
                 api ? api->abi : -1, RL_DEVICE_ABI);
        dlclose(h);
        return NULL;
    }
    return api; /* kept loaded for the life of the process */
}

int rl_device_open(const struct rl_device_api **api, char *errmsg)
{
    static const struct rl_device_api *cached;
    *api = NULL;
    if (cached) {
        *api = cached;
        return RL_OK;
    }
    char why[512] = "";
    const char *env = getenv("ROOFLINE_CUDA_LIB");
    if (env && *env) {
        cached = try_open(env, why, sizeof why);
        if (!cached)
            return rl_fail(errmsg, RL_EIO, "cannot load ROOFLINE_CUDA_LIB='%s': %s", env, why);
        *api = cached;
        return RL_OK;
    }
    if (!ROOFLINE_HAVE_CUDA)
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "this roofline was built without CUDA (nvcc was not found at build "
                       "time): rebuild with the CUDA toolkit to measure a GPU");
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return rl_fail(errmsg, RL_EIO, "cannot find the roofline executable's folder");
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    char path[PATH_MAX + 64];
    const char *const where[] = {"%s/" PLUGIN, "%s/../lib/roofline/" PLUGIN};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        snprintf(path, sizeof path, where[i], exe);
        if (access(path, F_OK) != 0)
            continue;
        cached = try_open(path, why, sizeof why);
        if (cached) {
            *api = cached;
            return RL_OK;
        }
        return rl_fail(errmsg, RL_EIO, "cannot load '%s': %s (are the CUDA libraries on "
                       "LD_LIBRARY_PATH?)", path, why);
    }
    return rl_fail(errmsg, RL_EIO, "cannot find %s beside '%s' (set ROOFLINE_CUDA_LIB)",
                   PLUGIN, exe);
}
