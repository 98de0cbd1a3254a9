/* open.c - loads libroofline_comm.so (NCCL, MPI) at run time. */
#define _GNU_SOURCE
#include "analyzer/comm/plugin.h"

#include "analyzer/device/loader.h"
#include "analyzer/util/error.h"

#include <dlfcn.h>

#ifndef ROOFLINE_HAVE_COMM
#define ROOFLINE_HAVE_COMM 0
#endif

int rl_comm_open(const struct rl_comm_api **api, char *errmsg)
{
    static const struct rl_comm_api *cached;
    static const struct rl_plugin plugin = {
        .file = "libroofline_comm.so",
        .env = RL_COMM_LIB_ENV,
        .symbol = RL_COMM_SYMBOL,
        .abi = RL_COMM_ABI,
        .dlflags = RTLD_NOW | RTLD_GLOBAL,
        .built = ROOFLINE_HAVE_COMM,
        .not_built = "this roofline was built without NCCL (no CUDA toolkit, or no nccl.h "
                     "and libnccl at build time): rebuild with them to measure collectives",
        .hint = "are libnccl.so.2 and the MPI libraries on LD_LIBRARY_PATH?",
    };
    *api = NULL;
    if (!cached) {
        const void *got;
        int rc = rl_plugin_open(&plugin, &got, errmsg);
        if (rc)
            return rc;
        cached = got;
    }
    *api = cached;
    return RL_OK;
}
