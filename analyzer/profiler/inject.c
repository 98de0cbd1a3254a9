/* inject.c - libroofline_inject.so: the tracer inside any CUDA program, loaded through CUDA_INJECTION64_PATH.
 *
 * The CUDA driver loads this library when the program initialises CUDA and
 * calls InitializeInjection(). Settings come from the environment, which
 * `roofline trace` fills (analyzer/profiler/README.md lists them):
 *   ROOFLINE_TRACE_FILE            where to write; %p becomes the pid
 *                                  (default roofline-trace.%p.json)
 *   ROOFLINE_TRACE_METRICS         none | default | full (default: default)
 *   ROOFLINE_TRACE_KERNEL          regex on demangled kernel names to count
 *   ROOFLINE_TRACE_NAMES           file of exact names to count (from --top)
 *   ROOFLINE_TRACE_SAMPLES         counted launches per kernel/grid/block (1; 0 all)
 *   ROOFLINE_TENSOR_FLOPS_PER_OP   FLOPs per Tensor Core counter op (calibrated)
 *   ROOFLINE_TENSOR_CHECK          the calibration's line, copied to the trace
 *   ROOFLINE_TRACE_QUIET           1: no line on stderr
 * The library links libcupti only: libcuda is the program's, reached at run
 * time. A failure to trace is one line on stderr; the program runs on. It is
 * also the program's NVTX tool (NVTX_INJECTION64_PATH), forwarding to the
 * libcupti it uses.
 */
#define _GNU_SOURCE
#include "analyzer/profiler/protocol.h"
#include "analyzer/profiler/tracer.h"

#include "analyzer/util/error.h"

#include <cupti.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* pattern with every %p replaced by the pid. */
static void expand(const char *pattern, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            int n = snprintf(out + o, size - o, "%ld", (long)getpid());
            o += n > 0 ? (size_t)n : 0;
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < size ? o : size - 1] = 0;
}

/* The command line, NULs turned to spaces. */
static void cmdline(char *out, size_t size)
{
    out[0] = 0;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return;
    size_t n = fread(out, 1, size - 1, f);
    fclose(f);
    out[n] = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (!out[i])
            out[i] = ' ';
}

/* ---- NVTX: this library is the program's NVTX tool, handing over to CUPTI ---- */

/* NVTX_INJECTION64_PATH names this library, not a libcupti file: a program
 * (PyTorch) may load its own libcupti, and the one this library's tracer
 * subscribed to is the copy it was linked against, whichever that is. NVTX
 * dlopen()s the path and calls InitializeInjectionNvtx2 (nvtx3's
 * nvtxDetail/nvtxInit.h; extension modules call
 * InitializeInjectionNvtxExtension): both go to that libcupti's own. */
typedef const void *(*nvtx_get_export_table)(uint32_t table_id);
typedef int (*nvtx_init)(nvtx_get_export_table get_table);
typedef int (*nvtx_ext_init)(void *module_info);

/* A symbol of the libcupti this library uses (never this library's own). */
static void *cupti_symbol(const char *name)
{
    Dl_info info;
    if (!dladdr((void *)cuptiSubscribe, &info) || !info.dli_fname)
        return NULL;
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    void *sym = h ? dlsym(h, name) : NULL;
    if (h)
        dlclose(h); /* stays loaded: this library needs it */
    return sym;
}

EXPORT int InitializeInjectionNvtx2(nvtx_get_export_table get_table);
EXPORT int InitializeInjectionNvtxExtension(void *module_info);

EXPORT int InitializeInjectionNvtx2(nvtx_get_export_table get_table)
{
    nvtx_init init = (nvtx_init)cupti_symbol("InitializeInjectionNvtx2");
    return init ? init(get_table) : 0; /* 0: NVTX goes on without a tool */
}

EXPORT int InitializeInjectionNvtxExtension(void *module_info)
{
    nvtx_ext_init init = (nvtx_ext_init)cupti_symbol("InitializeInjectionNvtxExtension");
    return init ? init(module_info) : 0;
}

/* Point NVTX at this library, so NVTX ranges reach our callbacks, unless
 * the program chose another NVTX tool. */
static void nvtx_to_self(void)
{
    if (getenv("NVTX_INJECTION64_PATH"))
        return;
    /* A static function's address: an exported name may resolve to the
     * libcupti's of the same name (it exports InitializeInjectionNvtx2). */
    Dl_info info;
    if (dladdr((void *)cupti_symbol, &info) && info.dli_fname)
        setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

/* ---- CUDA injection ----------------------------------------------------------- */

EXPORT int InitializeInjection(void);

EXPORT int InitializeInjection(void)
{
    static int done;
    if (done)
        return 1;
    done = 1;
    bool quiet = getenv(RL_ENV_TRACE_QUIET) && atoi(getenv(RL_ENV_TRACE_QUIET));
    const char *pattern = getenv(RL_ENV_TRACE_FILE);
    char path[4096], program[2048];
    expand(pattern && *pattern ? pattern : "roofline-trace.%p.json", path, sizeof path);
    cmdline(program, sizeof program);
    struct rl_tracer_options opt = {
        .out_path = path,
        .program = program,
        .counters = RL_COUNTERS_DEFAULT,
        .kernel_regex = getenv(RL_ENV_TRACE_KERNEL),
        .names_file = getenv(RL_ENV_TRACE_NAMES),
        .samples = 1,
        .tensor_flops_per_op = NAN,
        .tensor_check = getenv(RL_ENV_TENSOR_CHECK),
        .exit_handlers = true,
        .verbose = !quiet,
    };
    const char *m = getenv(RL_ENV_TRACE_METRICS);
    if (m && strcmp(m, "none") == 0)
        opt.counters = RL_COUNTERS_NONE;
    else if (m && strcmp(m, "full") == 0)
        opt.counters = RL_COUNTERS_FULL;
    else if (m && *m && strcmp(m, "default") != 0 && !quiet)
        fprintf(stderr, "roofline: " RL_ENV_TRACE_METRICS "='%s' is not none|default|full: "
                        "using default\n", m);
    if (opt.kernel_regex && !*opt.kernel_regex)
        opt.kernel_regex = NULL;
    if (opt.names_file && !*opt.names_file)
        opt.names_file = NULL;
    const char *s = getenv(RL_ENV_TRACE_SAMPLES);
    if (s && *s)
        opt.samples = atoi(s);
    const char *f = getenv(RL_ENV_TENSOR_FLOPS_PER_OP);
    if (f && *f)
        opt.tensor_flops_per_op = strtod(f, NULL);
    nvtx_to_self();
    char err[RL_ERRMSG_SIZE];
    if (rl_tracer_start(&opt, err)) {
        if (!quiet)
            fprintf(stderr, "roofline: tracing off for pid %ld: %s\n", (long)getpid(), err);
        return 1; /* the program runs on, untraced */
    }
    return 1;
}
