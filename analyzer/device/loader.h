/* loader.h - finds and opens roofline's run-time plugins (libroofline_cuda.so, libroofline_comm.so). */
#ifndef RL_LOADER_H
#define RL_LOADER_H

#include <stdbool.h>

/* One plugin: its file, the variable that names it elsewhere, the entry
 * symbol (a function of no arguments returning a pointer to a struct whose
 * first member is `int abi`), the ABI this roofline speaks. */
struct rl_plugin {
    const char *file;        /* "libroofline_cuda.so" */
    const char *env;         /* "ROOFLINE_CUDA_LIB" */
    const char *symbol;      /* "rl_device_api_v3" */
    int abi;
    int dlflags;             /* RTLD_NOW | RTLD_LOCAL, ... */
    bool built;              /* this build has the plugin */
    const char *not_built;   /* the message when it has not */
    const char *hint;        /* after a loader error: "are the CUDA libraries on LD_LIBRARY_PATH?" */
};

/* Open p: $env, else beside the roofline executable, else
 * <exe>/../lib/roofline/<file>. 0 with *api (kept loaded for the life of
 * the process); RL_EUNSUPPORTED when !p->built (errmsg: p->not_built);
 * RL_EIO when it cannot be found or loaded (errmsg has dlerror() or the ABI
 * mismatch). */
int rl_plugin_open(const struct rl_plugin *p, const void **api, char *errmsg);

#endif
