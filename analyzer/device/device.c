/* device.c - loads the CUDA side of roofline (libroofline_cuda.so) at run time. */
#define _GNU_SOURCE
#include "analyzer/device/device.h"

#include "analyzer/device/loader.h"
#include "analyzer/util/error.h"

#include <dlfcn.h>

#ifndef ROOFLINE_HAVE_CUDA
#define ROOFLINE_HAVE_CUDA 0
#endif

int rl_device_open(const struct rl_device_api **api, char *errmsg)
{
    static const struct rl_device_api *cached;
    static const struct rl_plugin plugin = {
        .file = "libroofline_cuda.so",
        .env = "ROOFLINE_CUDA_LIB",
        .symbol = RL_DEVICE_SYMBOL,
        .abi = RL_DEVICE_ABI,
        .dlflags = RTLD_NOW | RTLD_LOCAL,
        .built = ROOFLINE_HAVE_CUDA,
        .not_built = "this roofline was built without CUDA (-DROOFLINE_CUDA=OFF, or nvcc not "
                     "found at build time): rebuild with the CUDA toolkit to measure a GPU",
        .hint = "are the CUDA libraries on LD_LIBRARY_PATH?",
    };
    *api = NULL;
    if (cached) {
        *api = cached;
        return RL_OK;
    }
    const void *got;
    int rc = rl_plugin_open(&plugin, &got, errmsg);
    if (rc)
        return rc;
    cached = got;
    *api = cached;
    return RL_OK;
}
