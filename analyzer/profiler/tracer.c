/* tracer.c - the CUPTI tracer: every kernel launch of this process, timed, and counted when selected.
 *
 * Three streams of facts meet here, joined by CUPTI correlation ids:
 *  - launch callbacks (driver API, on the launching thread): the NVTX
 *    ranges and workload step open at the launch, and for a selected
 *    launch the counters read around it;
 *  - runtime launch callbacks, only to learn the runtime correlation id a
 *    kernel record carries when it was launched through cudart;
 *  - kernel activity records (asynchronous buffers): name, grid, block,
 *    registers, shared memory, start/end, stream, device.
 * rl_tracer_finish() joins them, lends counted launches' counts to the
 * uncounted launches of the same kernel/grid/block, and writes the trace.
 *
 * Counters (Range Profiler, CUDA 13; see shared/notes/CUPTI.md): set up
 * lazily on the first selected launch; each selected launch runs inside
 * Start/Stop with auto ranges and kernel replay, so CUPTI replays it once
 * per pass and the range holds that kernel alone. Launches are serialised
 * while one is counted. Any failure turns counters off for the rest of the
 * run, with a reason and a fix: timing goes on.
 */
#define _GNU_SOURCE
#include "analyzer/profiler/tracer.h"
#include "analyzer/profiler/nccl.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ACTIVITY_BUFFER_BYTES (8u << 20)
#define NVTX_DEPTH 16
#define NVTX_NAME 96
#define MAX_RANGES 4 /* ranges one counted launch may produce */

/* libstdc++'s demangler (C linkage), present wherever CUDA programs run. */
char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

void rl_demangle(const char *mangled, char *buf, size_t size)
{
    int status = -1;
    char *d = mangled && mangled[0] == '_' && mangled[1] == 'Z'
                  ? __cxa_demangle(mangled, NULL, NULL, &status)
                  : NULL;
    snprintf(buf, size, "%s", status == 0 && d ? d : mangled ? mangled : "?");
    free(d);
}

/* ---- small maps: open addressing, u64 key -> u32 value ------------------- */

struct u64map {
    uint64_t *key; /* 0: empty */
    uint32_t *val;
    size_t cap, n;
};

static int map_put(struct u64map *m, uint64_t k, uint32_t v);

static uint32_t *map_get(struct u64map *m, uint64_t k)
{
    if (!m->cap || !k)
        return NULL;
    for (size_t i = (k * 0x9E3779B97F4A7C15ull) >> 20 & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == k)
            return &m->val[i];
        if (!m->key[i])
            return NULL;
    }
}

static int map_grow(struct u64map *m)
{
    struct u64map g = {0};
    g.cap = m->cap ? m->cap * 2 : 1024;
    g.key = rl_calloc(g.cap, sizeof *g.key);
    g.val = rl_calloc(g.cap, sizeof *g.val);
    if (!g.key || !g.val) {
        free(g.key);
        free(g.val);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i])
            map_put(&g, m->key[i], m->val[i]);
    free(m->key);
    free(m->val);
    *m = g;
    return 0;
}

static int map_put(struct u64map *m, uint64_t k, uint32_t v)
{
    if (!k)
        return 0;
    if (2 * (m->n + 1) > m->cap && map_grow(m))
        return -1;
    size_t i = (k * 0x9E3779B97F4A7C15ull) >> 20 & (m->cap - 1);
    while (m->key[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (!m->key[i])
        m->n++;
    m->key[i] = k;
    m->val[i] = v;
    return 0;
}

static void map_free(struct u64map *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* ---- state ----------------------------------------------------------------- */

/* What a launch callback learned, kept when there is something to join. */
struct launch {
    uint32_t corr_driver, corr_runtime;
    char *nvtx;      /* owned */
    int step;        /* -1 none */
    int run;         /* the step's run (rl_tracer_step_begin_run) */
    bool clean;      /* a timing-only run: never counted */
    bool counted;
    char collective[16]; /* launched inside NCCL's NVTX range of a collective; "" */
    uint64_t comm_bytes; /* that range's message size; 0 unknown */
    bool collective_kernel; /* would have been counted, but a collective: timed only */
    double q[RL_Q_COUNT];
    double tensor_activity; /* metrics.h's guard; NAN not read */
};

enum prof_state { PROF_UNSET, PROF_READY, PROF_FAILED };

/* How often SetConfig is called: once per profiler session (NVIDIA's range
 * profiling sample), or before every counted launch when CUPTI refused to
 * reuse the configuration on a second launch. */
enum setconfig_mode { SETCONFIG_ONCE, SETCONFIG_PER_LAUNCH };

static struct tracer {
    bool active, finished;
    pthread_mutex_t lock;        /* the records below; never held across a CUPTI call that
                                  * can wait for buffer_completed (which takes it) */
    pthread_mutex_t count_lock;  /* the profiler object: held from its set-up or Start to
                                  * the Stop and decoding of a counted launch */
    struct rl_tracer_options opt;
    char *out_path, *program, *names_text, *tensor_check;
    regex_t regex;
    bool have_regex;
    const char **names;          /* sorted exact names (from --top) */
    size_t n_names;
    CUpti_SubscriberHandle sub;
    /* records */
    struct rl_trace_kernel *k;
    size_t n_k, cap_k;
    struct launch *l;
    size_t n_l, cap_l;
    struct u64map by_corr;       /* correlation id -> launch index + 1 */
    struct rl_trace_step *steps;
    size_t n_steps, cap_steps;
    int step_now;                /* -1 outside a step */
    int step_run;                /* the run of step_now */
    bool step_clean;             /* step_now's run is timing only */
    uint64_t in_capture;         /* selected launches skipped: stream being captured */
    uint64_t collectives;        /* selected launches skipped: collectives (never replayed) */
    struct u64map fn_collective; /* CUfunction -> 1 a collective kernel, 2 not */
    struct u64map fn_selected;   /* CUfunction -> 1 selected, 2 not */
    struct u64map sig_counted;   /* hash(function, grid, block) -> launches counted */
    uint64_t dropped;
    /* device facts, from the first context seen */
    bool have_gpu;
    char gpu_name[96], chip[32];
    int cc_major, cc_minor, sm_count;
    /* counters */
    enum prof_state prof;
    char reason[RL_ERRMSG_SIZE];
    char notes[2048];
    bool force;                  /* count every launch (calibration) */
    CUcontext prof_ctx;
    struct rl_metric_set set;
    uint8_t *avail;
    struct rl_metric_evaluator *eval;
    const uint8_t *config;
    size_t config_size;
    CUpti_RangeProfiler_Object *rp;
    uint8_t *data;
    size_t data_size;
    double factor;
    bool profiler_initialized;
    enum setconfig_mode setconfig;
    unsigned armed;              /* launches armed since the last SetConfig */
    /* the rank of a parallel job this process is (the trace's "rank") */
    struct rl_rank_env rank;
    /* NVTX strings registered by handle (NCCL names its ranges so) */
    struct {
        const void *handle;
        char name[NVTX_NAME];
    } strings[64];
    size_t n_strings;
    /* signals */
    struct sigaction old_sa[32];
    volatile sig_atomic_t in_signal;
} T = {.lock = PTHREAD_MUTEX_INITIALIZER, .count_lock = PTHREAD_MUTEX_INITIALIZER, .step_now = -1};

/* Per thread: the runtime launch being made, the NVTX range stack, the
 * counted launch in flight. */
static __thread uint32_t t_runtime_corr;
static __thread int t_nvtx_depth;
static __thread char t_nvtx[NVTX_DEPTH][NVTX_NAME];
/* Per NVTX level: the NCCL collective its range is, and its message size
 * (analyzer/profiler/nccl.h: NCCL's payload). */
static __thread char t_nccl[NVTX_DEPTH][16];
static __thread uint64_t t_nccl_bytes[NVTX_DEPTH];
static __thread long t_counting = -1; /* launch index being counted */
static __thread int t_nested;         /* launch callbacks inside a counted launch (replay) */

/* ---- the driver, reached through the loaded libcuda (never linked) ------- */

typedef CUresult (*fn_ctx_get_device)(CUdevice *);
typedef CUresult (*fn_device_get_name)(char *, int, CUdevice);
typedef CUresult (*fn_device_get_attribute)(int *, CUdevice_attribute, CUdevice);

static void *cuda_sym(const char *name)
{
    static void *lib;
    if (!lib)
        lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return lib ? dlsym(lib, name) : NULL;
}

/* The device of the current context (the launch's), or -1. */
static int current_device(void)
{
    fn_ctx_get_device get = (fn_ctx_get_device)cuda_sym("cuCtxGetDevice");
    CUdevice d;
    return get && get(&d) == CUDA_SUCCESS ? (int)d : -1;
}

static void learn_chip(int dev)
{
    CUpti_Device_GetChipName_Params p = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    p.deviceIndex = (size_t)dev;
    if (cuptiDeviceGetChipName(&p) == CUPTI_SUCCESS && p.pChipName)
        snprintf(T.chip, sizeof T.chip, "%s", p.pChipName);
}

static void learn_device(int dev)
{
    if (T.have_gpu || dev < 0)
        return;
    fn_device_get_name name = (fn_device_get_name)cuda_sym("cuDeviceGetName");
    fn_device_get_attribute attr = (fn_device_get_attribute)cuda_sym("cuDeviceGetAttribute");
    if (!name || !attr)
        return;
    name(T.gpu_name, sizeof T.gpu_name, dev);
    attr(&T.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    attr(&T.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    attr(&T.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    learn_chip(dev); /* may need the profiler initialised: retried in counters_setup */
    T.have_gpu = true;
}

/* ---- explaining CUPTI failures --------------------------------------------- */

static const char *cupti_text(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return s;
}

const char *rl_tracer_explain(int result, char *buf, size_t size)
{
    const char *why;
    switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        why = "no permission to read GPU counters (ERR_NVGPUCTRPERM): run as root (or with "
              "CAP_PERFMON / CAP_SYS_ADMIN), or load the nvidia module with "
              "NVreg_RestrictProfilingToAdminUsers=0";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        why = "another CUPTI client is attached (Nsight, compute-sanitizer or the PyTorch "
              "profiler): run without it";
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        why = "counters are not available on this virtual GPU: ask for profiling to be "
              "enabled on the vGPU, or use a bare-metal GPU";
        break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        why = "counters are not available on a MIG instance: profile on a GPU without MIG";
        break;
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        why = "counters are disabled under confidential computing";
        break;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        why = "counters are not available on CMP devices";
        break;
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
        why = "counters are not available with SLI: disable it";
        break;
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        why = "counters are not available under this WSL setup";
        break;
    case CUPTI_ERROR_HARDWARE_BUSY:
        why = "the counters are in use by another profiler (e.g. DCGM profiling): pause it "
              "(dcgmi profile --pause) and retry";
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
        why = "this GPU or driver does not support the range profiler (compute capability "
              "7.0 or later and a CUDA 13 driver are needed)";
        break;
    default:
        snprintf(buf, size, "CUPTI error %d (%s): counters off", result,
                 cupti_text((CUptiResult)result));
        return buf;
    }
    snprintf(buf, size, "%s", why);
    return buf;
}

/* Turn counters off for the rest of the run. Holds count_lock, not T.lock. */
static void counters_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void counters_fail(const char *fmt, ...)
{
    if (T.prof == PROF_FAILED)
        return;
    T.prof = PROF_FAILED;
    pthread_mutex_lock(&T.lock);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(T.reason, sizeof T.reason, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&T.lock);
    if (T.opt.verbose)
        fprintf(stderr, "roofline: counters off, timing only: %s\n", T.reason);
}

static void note_locked(const char *text);

#define CUPTI_CALL(call, what)                                                                 \
    do {                                                                                       \
        CUptiResult r_ = (call);                                                               \
        if (r_ != CUPTI_SUCCESS) {                                                             \
            char b_[RL_ERRMSG_SIZE];                                                           \
            counters_fail("%s: %s", what, rl_tracer_explain(r_, b_, sizeof b_));               \
            return false;                                                                      \
        }                                                                                      \
    } while (0)

/* ---- counters -------------------------------------------------------------- */

static bool support_ok(int dev)
{
    CUpti_Profiler_DeviceSupported_Params p = {
        .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUPTI_CALL(cuptiProfilerDeviceSupported(&p), "checking profiler support");
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return true;
    char b[RL_ERRMSG_SIZE];
    int r = p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? CUPTI_ERROR_NOT_SUPPORTED
            : p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                ? CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED
            : p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                ? CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED
            : p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED
            : p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED
            : p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED
                                                              : CUPTI_ERROR_NOT_SUPPORTED;
    counters_fail("%s", rl_tracer_explain(r, b, sizeof b));
    return false;
}

static CUptiResult counter_data_init(void);
static CUptiResult counters_configure(const char **what);

/* Set counters up on ctx, the current context of this thread. Holds
 * count_lock (not T.lock: CUPTI may wait for the activity buffer thread). */
static bool counters_setup(CUcontext ctx)
{
    int dev = current_device();
    pthread_mutex_lock(&T.lock);
    learn_device(dev);
    pthread_mutex_unlock(&T.lock);
    rl__nvperf_preload();
    if (!T.profiler_initialized) {
        CUpti_Profiler_Initialize_Params ip = {
            .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUPTI_CALL(cuptiProfilerInitialize(&ip), "starting the profiler");
        T.profiler_initialized = true;
    }
    if (dev >= 0 && !T.chip[0])
        learn_chip(dev);
    if (dev < 0 || !T.chip[0]) {
        counters_fail("cannot tell the GPU (or its CUPTI chip name) of the launching context");
        return false;
    }
    if (!support_ok(dev))
        return false;
    CUpti_Profiler_GetCounterAvailability_Params ap = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ap.ctx = ctx;
    CUPTI_CALL(cuptiProfilerGetCounterAvailability(&ap), "reading counter availability");
    T.avail = rl_calloc(1, ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
    if (!T.avail) {
        counters_fail("out of memory");
        return false;
    }
    ap.pCounterAvailabilityImage = T.avail;
    CUPTI_CALL(cuptiProfilerGetCounterAvailability(&ap), "reading counter availability");
    char err[RL_ERRMSG_SIZE];
    enum rl_counter_set kind =
        T.opt.counters == RL_COUNTERS_FULL ? RL_COUNTERS_FULL : RL_COUNTERS_DEFAULT;
    if (rl_metric_set_build(T.chip, kind, T.avail, &T.set, err) ||
        rl_metric_evaluator_open(&T.set, T.avail, &T.eval, &T.config, &T.config_size, err)) {
        counters_fail("%s", err);
        return false;
    }
    CUpti_RangeProfiler_Enable_Params ep = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = ctx;
    CUPTI_CALL(cuptiRangeProfilerEnable(&ep), "enabling the range profiler");
    T.rp = ep.pRangeProfilerObject;
    T.prof_ctx = ctx;
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = T.rp;
    sp.pMetricNames = T.set.names;
    sp.numMetrics = (size_t)T.set.n_names;
    sp.maxNumOfRanges = MAX_RANGES;
    sp.maxNumRangeTreeNodes = MAX_RANGES;
    CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize(&sp), "sizing counter data");
    T.data_size = sp.counterDataSize;
    T.data = rl_calloc(1, T.data_size ? T.data_size : 1);
    if (!T.data) {
        counters_fail("out of memory");
        return false;
    }
    /* The configuration is set once per session, as in NVIDIA's range
     * profiling sample; counter data is initialised again per launch. */
    T.setconfig = SETCONFIG_ONCE;
    T.armed = 0;
    const char *what;
    CUptiResult r = counters_configure(&what);
    if (r != CUPTI_SUCCESS) {
        char b[RL_ERRMSG_SIZE];
        counters_fail("%s: %s", what, rl_tracer_explain(r, b, sizeof b));
        return false;
    }
    T.prof = PROF_READY;
    return true;
}

/* Once-per-session SetConfig refused on a later launch: SetConfig before
 * every launch from now on. Holds count_lock. */
static void setconfig_fall_back(const char *why)
{
    T.setconfig = SETCONFIG_PER_LAUNCH;
    char line[RL_ERRMSG_SIZE + 160];
    snprintf(line, sizeof line,
             "CUPTI refused to reuse the session's SetConfig on counted launch %u (%s): "
             "SetConfig before every counted launch from then on",
             T.armed + 1, why);
    pthread_mutex_lock(&T.lock);
    note_locked(line);
    pthread_mutex_unlock(&T.lock);
}

/* Arm the profiler for the next launch. Holds count_lock. */
static bool counters_start(void)
{
    const char *what = "starting a range";
    CUptiResult r = CUPTI_SUCCESS;
    if (T.armed > 0) { /* the session's first launch uses the image set up with it */
        if (T.setconfig == SETCONFIG_PER_LAUNCH)
            r = counters_configure(&what);
        else if ((r = counter_data_init()) != CUPTI_SUCCESS)
            what = "initialising counter data";
    }
    if (r == CUPTI_SUCCESS) {
        CUpti_RangeProfiler_Start_Params st = {
            .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = T.rp;
        r = cuptiRangeProfilerStart(&st);
    }
    if (r != CUPTI_SUCCESS && T.setconfig == SETCONFIG_ONCE && T.armed > 0) {
        char why[RL_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s: %s", what, cupti_text(r));
        setconfig_fall_back(why);
        what = "starting a range";
        r = counters_configure(&what);
        if (r == CUPTI_SUCCESS) {
            CUpti_RangeProfiler_Start_Params st = {
                .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            st.pRangeProfilerObject = T.rp;
            r = cuptiRangeProfilerStart(&st);
        }
    }
    if (r != CUPTI_SUCCESS) {
        char b[RL_ERRMSG_SIZE];
        counters_fail("%s: %s", what, rl_tracer_explain(r, b, sizeof b));
        return false;
    }
    T.armed++;
    return true;
}

/* The counter data image, initialised for the next range. */
static CUptiResult counter_data_init(void)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ip.pRangeProfilerObject = T.rp;
    ip.counterDataSize = T.data_size;
    ip.pCounterData = T.data;
    return cuptiRangeProfilerCounterDataImageInitialize(&ip);
}

/* Counter data initialised, then SetConfig (auto range, kernel replay, one
 * nesting level); *what names the call that failed. Holds count_lock. */
static CUptiResult counters_configure(const char **what)
{
    *what = "initialising counter data";
    CUptiResult r = counter_data_init();
    if (r != CUPTI_SUCCESS)
        return r;
    CUpti_RangeProfiler_SetConfig_Params cp = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    cp.pRangeProfilerObject = T.rp;
    cp.configSize = T.config_size;
    cp.pConfig = T.config;
    cp.counterDataImageSize = T.data_size;
    cp.pCounterDataImage = T.data;
    cp.range = CUPTI_AutoRange;
    cp.replayMode = CUPTI_KernelReplay;
    cp.maxRangesPerPass = MAX_RANGES;
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    *what = "configuring the range profiler";
    r = cuptiRangeProfilerSetConfig(&cp);
    if (r == CUPTI_SUCCESS)
        T.armed = 0;
    return r;
}

/* Stop, decode and evaluate; the launch's quantities into q. Holds
 * count_lock only: Stop and DecodeData may wait for CUPTI's buffer thread,
 * which takes T.lock in buffer_completed. A launch armed without its own
 * SetConfig that fails here turns SetConfig per launch on (the launch stays
 * uncounted); any other failure turns counters off. */
static bool counters_stop(const char *what, double *q, double *tensor_activity)
{
    bool reused = T.setconfig == SETCONFIG_ONCE && T.armed > 1;
    char why[RL_ERRMSG_SIZE], b[RL_ERRMSG_SIZE];
    CUptiResult r;
    CUpti_RangeProfiler_Stop_Params sp = {
        .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = T.rp;
    CUpti_RangeProfiler_DecodeData_Params dp = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = T.rp;
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ip.pCounterDataImage = T.data;
    ip.counterDataImageSize = T.data_size;
    if ((r = cuptiRangeProfilerStop(&sp)) != CUPTI_SUCCESS)
        snprintf(why, sizeof why, "stopping a range: %s", rl_tracer_explain(r, b, sizeof b));
    else if (!sp.isAllPassSubmitted)
        snprintf(why, sizeof why, "kernel replay did not submit every pass for %s", what);
    else if ((r = cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS)
        snprintf(why, sizeof why, "decoding counters: %s", rl_tracer_explain(r, b, sizeof b));
    else if ((r = cuptiRangeProfilerGetCounterDataInfo(&ip)) != CUPTI_SUCCESS)
        snprintf(why, sizeof why, "reading counter data: %s", rl_tracer_explain(r, b, sizeof b));
    else if (ip.numTotalRanges == 0)
        snprintf(why, sizeof why, "the range profiler recorded no range for %s (%zu dropped)",
                 what, dp.numOfRangeDropped);
    else
        why[0] = 0;
    if (why[0]) {
        if (reused)
            setconfig_fall_back(why);
        else
            counters_fail("%s", why);
        return false;
    }
    double values[RL_Q_COUNT * RL_Q_MAX_TERMS], sum[RL_Q_COUNT * RL_Q_MAX_TERMS] = {0};
    char err[RL_ERRMSG_SIZE];
    for (size_t i = 0; i < ip.numTotalRanges; i++) {
        if (rl_metric_evaluate(T.eval, T.data, T.data_size, i, values, err)) {
            counters_fail("%s", err);
            return false;
        }
        for (int j = 0; j < T.set.n_names; j++)
            sum[j] += values[j];
    }
    rl_metric_set_quantities(&T.set, sum, q);
    *tensor_activity = rl_metric_set_tensor_activity(&T.set, sum);
    return true;
}

static void counters_teardown(void)
{
    if (T.rp) {
        CUpti_RangeProfiler_Disable_Params p = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = T.rp;
        cuptiRangeProfilerDisable(&p);
        T.rp = NULL;
    }
    rl_metric_evaluator_close(T.eval);
    T.eval = NULL;
    T.config = NULL;
    free(T.data);
    T.data = NULL;
    free(T.avail);
    T.avail = NULL;
    if (T.profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params p = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        cuptiProfilerDeInitialize(&p);
        T.profiler_initialized = false;
    }
}

/* Append a line to the notes. Holds T.lock. */
static void note_locked(const char *text)
{
    size_t used = strlen(T.notes);
    snprintf(T.notes + used, sizeof T.notes - used, "%s%s", used ? "; " : "", text);
}

/* ---- selection ------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is this function selected by the name filters? Cached per function. */
static bool name_selected(CUfunction f, const char *symbol)
{
    if (!T.have_regex && !T.names)
        return true;
    uint32_t *hit = map_get(&T.fn_selected, (uint64_t)(uintptr_t)f);
    if (hit)
        return *hit == 1;
    char name[1024];
    rl_demangle(symbol, name, sizeof name);
    bool sel = true;
    if (T.have_regex)
        sel = regexec(&T.regex, name, 0, NULL, 0) == 0;
    if (sel && T.names) {
        const char *key = name;
        sel = bsearch(&key, T.names, T.n_names, sizeof *T.names, cmp_str) != NULL;
    }
    map_put(&T.fn_selected, (uint64_t)(uintptr_t)f, sel ? 1 : 2);
    return sel;
}

/* Does this launch still want counting (name filters, samples left)? With
 * take, it uses one of its (function, grid, block)'s samples. */
static bool launch_selected(CUfunction f, const char *symbol, const uint32_t *grid,
                            const uint32_t *block, bool take)
{
    if (T.force)
        return true;
    if (!name_selected(f, symbol))
        return false;
    if (T.opt.samples <= 0)
        return true;
    uint64_t h = (uint64_t)(uintptr_t)f * 1099511628211ull;
    for (int i = 0; i < 3; i++)
        h = ((h ^ grid[i]) * 1099511628211ull) ^ ((uint64_t)block[i] << 32);
    uint32_t *n = map_get(&T.sig_counted, h);
    if (n && *n >= (uint32_t)T.opt.samples)
        return false;
    if (take)
        map_put(&T.sig_counted, h, n ? *n + 1 : 1);
    return true;
}

/* ---- collectives ------------------------------------------------------------ */

/* Is this thread inside NCCL's NVTX range of a collective (any level)? */
static bool in_nccl_range(void)
{
    int depth = t_nvtx_depth < NVTX_DEPTH ? t_nvtx_depth : NVTX_DEPTH;
    for (int d = 0; d < depth; d++)
        if (t_nccl[d][0])
            return true;
    return false;
}

/* Would replaying this launch wait for other GPUs or processes: launched
 * inside NCCL's collective range, or a kernel whose name says it is a
 * collective (rl_trace_collective_kernel; cached per function)? Holds
 * T.lock. */
static bool launch_is_collective(CUfunction f, const char *symbol)
{
    if (in_nccl_range())
        return true;
    uint32_t *hit = map_get(&T.fn_collective, (uint64_t)(uintptr_t)f);
    if (hit)
        return *hit == 1;
    char name[1024];
    rl_demangle(symbol, name, sizeof name);
    bool yes = rl_trace_collective_kernel(name);
    map_put(&T.fn_collective, (uint64_t)(uintptr_t)f, yes ? 1 : 2);
    return yes;
}

/* ---- stream capture -------------------------------------------------------- */

bool rl_tracer_launch_stream(int cbid, const void *params, void **stream)
{
    /* A per-thread-default-stream entry point (_ptsz) means that stream by
     * NULL; the plain query would read NULL as the legacy stream. */
    CUstream s;
    bool ptsz = false;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        s = ((const cuLaunchKernel_params *)params)->hStream;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        s = ((const cuLaunchKernel_ptsz_params *)params)->hStream, ptsz = true;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        s = ((const cuLaunchCooperativeKernel_params *)params)->hStream;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        s = ((const cuLaunchCooperativeKernel_ptsz_params *)params)->hStream, ptsz = true;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)params)->config;
        if (!c)
            return false;
        s = c->hStream;
        ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
        break;
    }
    default:
        return false;
    }
    *stream = (void *)(ptsz && !s ? CU_STREAM_PER_THREAD : s);
    return true;
}

bool rl_tracer_capture_allows_counting(int query_result, int capture_status)
{
    return query_result == CUDA_SUCCESS && capture_status == CU_STREAM_CAPTURE_STATUS_NONE;
}

typedef CUresult (*fn_stream_is_capturing)(CUstream, CUstreamCaptureStatus *);

/* Is this launch recorded into a CUDA graph being captured, or would the
 * replay's synchronisation break a capture? Then it is timed only. The
 * launch's stream is asked, and the legacy stream, which answers
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT while a blocking stream of the context
 * is captured (cudaStreamIsCapturing's rule). Any failure to tell counts as
 * capturing. One or two driver calls, only for launches that would be
 * counted. Holds T.lock (no CUPTI call). */
static bool launch_in_capture(CUpti_CallbackId cbid, const void *params)
{
    static fn_stream_is_capturing is_capturing; /* written once, under T.lock */
    if (!is_capturing)
        is_capturing = (fn_stream_is_capturing)cuda_sym("cuStreamIsCapturing");
    void *stream;
    if (!is_capturing || !rl_tracer_launch_stream((int)cbid, params, &stream))
        return true;
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult r = is_capturing((CUstream)stream, &st);
    if (!rl_tracer_capture_allows_counting(r, st))
        return true;
    if (stream == NULL || stream == (void *)CU_STREAM_LEGACY)
        return false;
    r = is_capturing(CU_STREAM_LEGACY, &st);
    return !rl_tracer_capture_allows_counting(r, st);
}

/* Function, grid and block of a launch call; false for graph launches and
 * unknown calls (timed, never counted). */
static bool launch_shape(CUpti_CallbackId cbid, const void *params, CUfunction *f,
                         uint32_t *grid, uint32_t *block)
{
    /* The launch structs all spell them gridDimX..blockDimZ. */
#define SHAPE(s)                                                                               \
    (grid[0] = (s)->gridDimX, grid[1] = (s)->gridDimY, grid[2] = (s)->gridDimZ,                \
     block[0] = (s)->blockDimX, block[1] = (s)->blockDimY, block[2] = (s)->blockDimZ)
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = params;
        *f = p->f;
        SHAPE(p);
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = params;
        *f = p->f;
        SHAPE(p);
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = params;
        if (!p->config)
            return false;
        *f = p->f;
        SHAPE(p->config);
        return true;
    }
    default:
        return false;
    }
#undef SHAPE
}

/* ---- launches -------------------------------------------------------------- */

/* "outer/inner" of this thread's NVTX stack, malloc'd; NULL when empty. */
static char *nvtx_path(void)
{
    if (t_nvtx_depth <= 0)
        return NULL;
    size_t len = 0;
    int depth = t_nvtx_depth < NVTX_DEPTH ? t_nvtx_depth : NVTX_DEPTH;
    for (int i = 0; i < depth; i++)
        len += strlen(t_nvtx[i]) + 1;
    char *s = rl_malloc(len);
    if (!s)
        return NULL;
    s[0] = 0;
    for (int i = 0; i < depth; i++) {
        if (i)
            strcat(s, "/");
        strcat(s, t_nvtx[i]);
    }
    return s;
}

/* Record a launch's context; its index, or -1. Holds T.lock. */
static long launch_add(uint32_t corr_driver, uint32_t corr_runtime, char *nvtx, int step,
                       int run, bool clean)
{
    if (T.n_l == T.cap_l) {
        size_t cap = T.cap_l ? T.cap_l * 2 : 1024;
        struct launch *l = rl_realloc(T.l, cap * sizeof *l);
        if (!l)
            return -1;
        T.l = l;
        T.cap_l = cap;
    }
    struct launch *l = &T.l[T.n_l];
    memset(l, 0, sizeof *l);
    l->corr_driver = corr_driver;
    l->corr_runtime = corr_runtime;
    l->nvtx = nvtx;
    l->step = step;
    l->run = run;
    l->clean = clean;
    for (int q = 0; q < RL_Q_COUNT; q++)
        l->q[q] = NAN;
    l->tensor_activity = NAN;
    if (map_put(&T.by_corr, corr_driver, (uint32_t)T.n_l + 1) ||
        (corr_runtime && map_put(&T.by_corr, corr_runtime, (uint32_t)T.n_l + 1)))
        return -1;
    return (long)T.n_l++;
}

/* Launch callbacks. A counted launch holds count_lock from its ENTER to its
 * EXIT (other threads' launches wait); T.lock is taken only for the records,
 * never across a profiler call. */
static void on_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cb->callbackSite == CUPTI_API_EXIT) {
        if (t_counting < 0)
            return;
        if (t_nested > 0) { /* the EXIT of a launch made inside the counted one */
            t_nested--;
            return;
        }
        double q[RL_Q_COUNT], activity = NAN;
        const char *what = cb->symbolName ? cb->symbolName : "a kernel";
        if (T.prof == PROF_READY && counters_stop(what, q, &activity)) {
            pthread_mutex_lock(&T.lock);
            memcpy(T.l[t_counting].q, q, sizeof q);
            T.l[t_counting].tensor_activity = activity;
            T.l[t_counting].counted = true;
            pthread_mutex_unlock(&T.lock);
        }
        t_counting = -1;
        pthread_mutex_unlock(&T.count_lock);
        return;
    }
    if (t_counting >= 0) {
        /* A launch inside the counted one (if replay ever calls back):
         * this thread holds count_lock; leave it alone. */
        t_nested++;
        return;
    }
    CUfunction f = NULL;
    uint32_t grid[3] = {0}, block[3] = {0};
    bool shaped = launch_shape(cbid, cb->functionParams, &f, grid, block);
    char *nvtx = nvtx_path();
    bool counting = T.opt.counters != RL_COUNTERS_NONE;
    if (counting) /* wait while another thread's launch is being counted */
        pthread_mutex_lock(&T.count_lock);
    pthread_mutex_lock(&T.lock);
    if (!T.have_gpu)
        learn_device(current_device());
    bool select = counting && shaped && T.prof != PROF_FAILED && !T.step_clean &&
                  launch_selected(f, cb->symbolName, grid, block, false);
    /* A collective is never replayed (README: "Collectives"): timed only. */
    bool collective = select && launch_is_collective(f, cb->symbolName);
    if (collective) {
        T.collectives++;
        select = false;
    }
    if (select && launch_in_capture(cbid, cb->functionParams)) {
        T.in_capture++; /* its sample stays for a launch outside the capture */
        select = false;
    }
    if (select)
        launch_selected(f, cb->symbolName, grid, block, true);
    long idx = -1;
    if (nvtx || T.step_now >= 0 || select || collective) {
        idx = launch_add(cb->correlationId, t_runtime_corr, nvtx, T.step_now, T.step_run,
                         T.step_clean);
        if (idx < 0)
            free(nvtx);
        else
            T.l[idx].collective_kernel = collective;
        /* The innermost NCCL collective range around the launch. */
        int top = (t_nvtx_depth < NVTX_DEPTH ? t_nvtx_depth : NVTX_DEPTH) - 1;
        for (int d = top; idx >= 0 && d >= 0; d--)
            if (t_nccl[d][0]) {
                memcpy(T.l[idx].collective, t_nccl[d], sizeof T.l[idx].collective);
                T.l[idx].comm_bytes = t_nccl_bytes[d];
                break;
            }
    } else {
        free(nvtx);
    }
    pthread_mutex_unlock(&T.lock);
    if (select && idx >= 0 && T.prof == PROF_UNSET && !counters_setup(cb->context))
        select = false;
    if (select && idx >= 0 && T.prof == PROF_READY && cb->context != T.prof_ctx) {
        static const char other_ctx[] =
            "counters are read in the first context that launched a selected kernel; launches "
            "in other contexts are timed only";
        pthread_mutex_lock(&T.lock);
        if (!strstr(T.notes, other_ctx))
            note_locked(other_ctx);
        pthread_mutex_unlock(&T.lock);
        select = false;
    }
    if (select && idx >= 0 && T.prof == PROF_READY && counters_start()) {
        t_counting = idx;
        return; /* count_lock is held until the launch's EXIT */
    }
    if (counting)
        pthread_mutex_unlock(&T.count_lock);
}

/* ---- NVTX ---------------------------------------------------------------- */

static void nvtx_push(const char *msg)
{
    if (t_nvtx_depth < NVTX_DEPTH) {
        snprintf(t_nvtx[t_nvtx_depth], NVTX_NAME, "%s", msg && msg[0] ? msg : "?");
        t_nccl[t_nvtx_depth][0] = 0;
        t_nccl_bytes[t_nvtx_depth] = 0;
    }
    t_nvtx_depth++;
}

/* A registered string's text (nvtxDomainRegisterStringA), or NULL. */
static const char *registered(const void *handle)
{
    const char *name = NULL;
    pthread_mutex_lock(&T.lock);
    for (size_t i = 0; i < T.n_strings && !name; i++)
        if (T.strings[i].handle == handle)
            name = T.strings[i].name;
    pthread_mutex_unlock(&T.lock);
    return name;
}

static void nvtx_register(const nvtxDomainRegisterStringA_params *p, const void *ret)
{
    if (!p || !p->string || !ret)
        return;
    const void *handle = *(const nvtxStringHandle_t *)ret;
    pthread_mutex_lock(&T.lock);
    if (handle && T.n_strings < sizeof T.strings / sizeof *T.strings) {
        T.strings[T.n_strings].handle = handle;
        snprintf(T.strings[T.n_strings].name, NVTX_NAME, "%s", p->string);
        T.n_strings++;
    }
    pthread_mutex_unlock(&T.lock);
}

static void nvtx_push_attr(const nvtxEventAttributes_t *a)
{
    const char *msg = "?", *name;
    if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        msg = a->message.ascii;
    else if (a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED &&
             (name = registered(a->message.registered)))
        msg = name;
    nvtx_push(msg);
    /* NCCL's collective ranges: the collective and its message size from
     * the payload (its schema id names the call; the range's name, when
     * registered and seen, says the same). */
    const char *coll = NULL;
    uint64_t bytes = 0;
    int d = t_nvtx_depth - 1;
    if (a && d < NVTX_DEPTH &&
        rl_nccl_nvtx_payload(a->payloadType, a->payload.ullValue, (uint32_t)a->reserved0, &coll,
                             &bytes)) {
        snprintf(t_nccl[d], sizeof t_nccl[d], "%s", coll);
        t_nccl_bytes[d] = bytes;
    } else if (d < NVTX_DEPTH && (coll = rl_nccl_range_collective(msg))) {
        snprintf(t_nccl[d], sizeof t_nccl[d], "%s", coll); /* bytes unknown */
    }
}

static void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        nvtx_push(((const nvtxRangePushA_params *)d->functionParams)->message);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        nvtx_push_attr(((const nvtxRangePushEx_params *)d->functionParams)->eventAttrib);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
        nvtx_push_attr(((const nvtxDomainRangePushEx_params *)d->functionParams)->core.eventAttrib);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        if (t_nvtx_depth > 0)
            t_nvtx_depth--;
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
        nvtx_register(d->functionParams, d->functionReturnValue);
        break;
    default:
        break;
    }
}

/* ---- activity records ------------------------------------------------------ */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, ACTIVITY_BUFFER_BYTES);
    *size = *buffer ? ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void add_kernel(const CUpti_ActivityKernel10 *a)
{
    if (T.n_k == T.cap_k) {
        size_t cap = T.cap_k ? T.cap_k * 2 : 4096;
        struct rl_trace_kernel *k = rl_realloc(T.k, cap * sizeof *k);
        if (!k) {
            T.dropped++;
            return;
        }
        T.k = k;
        T.cap_k = cap;
    }
    struct rl_trace_kernel *k = &T.k[T.n_k];
    memset(k, 0, sizeof *k);
    char name[1024];
    rl_demangle(a->name, name, sizeof name);
    k->name = rl_strdup(name);
    if (!k->name) {
        T.dropped++;
        return;
    }
    k->grid[0] = (uint32_t)a->gridX, k->grid[1] = (uint32_t)a->gridY;
    k->grid[2] = (uint32_t)a->gridZ;
    k->block[0] = (uint32_t)a->blockX, k->block[1] = (uint32_t)a->blockY,
    k->block[2] = (uint32_t)a->blockZ;
    k->registers = a->registersPerThread;
    k->smem_static_bytes = (uint32_t)a->staticSharedMemory;
    k->smem_dynamic_bytes = (uint32_t)a->dynamicSharedMemory;
    k->start_ns = a->start;
    k->end_ns = a->end;
    k->stream = a->streamId;
    k->device = a->deviceId;
    k->context = a->contextId;
    k->correlation = a->correlationId;
    k->graph = a->graphId;
    k->step = -1;
    k->counts = RL_COUNTS_NONE;
    for (int q = 0; q < RL_Q_COUNT; q++)
        k->q[q] = NAN;
    k->tensor_activity = NAN;
    T.n_k++;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    pthread_mutex_lock(&T.lock);
    CUpti_Activity *rec = NULL;
    while (valid && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            rec->kind == CUPTI_ACTIVITY_KIND_KERNEL)
            add_kernel((const CUpti_ActivityKernel10 *)rec);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        T.dropped += dropped;
    pthread_mutex_unlock(&T.lock);
    free(buffer);
}

/* ---- callbacks ----------------------------------------------------------- */

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (!T.active)
        return;
    switch (domain) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
        on_launch(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RUNTIME_API: {
        const CUpti_CallbackData *cb = data;
        t_runtime_corr = cb->callbackSite == CUPTI_API_ENTER ? cb->correlationId : 0;
        break;
    }
    case CUPTI_CB_DOMAIN_NVTX:
        on_nvtx(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RESOURCE:
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            /* Records of a dying context must be read before it goes. */
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
            const CUpti_ResourceData *r = data;
            pthread_mutex_lock(&T.count_lock); /* the profiler object's lock */
            if (T.rp && r->context == T.prof_ctx) {
                CUpti_RangeProfiler_Disable_Params p = {
                    .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
                p.pRangeProfilerObject = T.rp;
                cuptiRangeProfilerDisable(&p);
                T.rp = NULL;
                if (T.prof == PROF_READY)
                    T.prof = PROF_FAILED; /* no reason: nothing went wrong */
            }
            pthread_mutex_unlock(&T.count_lock);
        }
        break;
    default:
        break;
    }
}

static const CUpti_CallbackId driver_launches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

static const CUpti_CallbackId runtime_launches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
};

static const CUpti_CallbackId nvtx_ids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,        CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,          CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,    CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
};

/* ---- start / finish ------------------------------------------------------ */

static void install_exit_handlers(void);

static char *dup_or_null(const char *s) { return s ? rl_strdup(s) : NULL; }

static int load_names(const char *path, char *errmsg)
{
    size_t len;
    int rc = rl_file_read(path, &T.names_text, &len, errmsg);
    if (rc)
        return rc;
    size_t n = 0, cap = 0;
    for (char *save = NULL, *line = strtok_r(T.names_text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (!*line)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            const char **v = rl_realloc(T.names, cap * sizeof *v);
            if (!v)
                return rl_fail(errmsg, RL_ENOMEM, "out of memory");
            T.names = v;
        }
        T.names[n++] = line;
    }
    T.n_names = n;
    if (!n) { /* an empty list selects nothing: keep a list that matches nothing */
        T.names = rl_calloc(1, sizeof *T.names);
        if (!T.names)
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        T.names[0] = "";
        T.n_names = 0;
        return RL_OK;
    }
    qsort(T.names, n, sizeof *T.names, cmp_str);
    return RL_OK;
}

/* The name filters of a start that failed or finished. */
static void release_filters(void)
{
    if (T.have_regex)
        regfree(&T.regex);
    T.have_regex = false;
    free(T.names);
    free(T.names_text);
    T.names = NULL;
    T.names_text = NULL;
    T.n_names = 0;
}

static void reset_records(void)
{
    for (size_t i = 0; i < T.n_k; i++) {
        free(T.k[i].name);
        free(T.k[i].nvtx);
    }
    free(T.k);
    T.k = NULL;
    T.n_k = T.cap_k = 0;
    for (size_t i = 0; i < T.n_steps; i++)
        free(T.steps[i].label);
    free(T.steps);
    T.steps = NULL;
    T.n_steps = T.cap_steps = 0;
}

int rl_tracer_start(const struct rl_tracer_options *opt, char *errmsg)
{
    if (T.active)
        return rl_fail(errmsg, RL_EINVAL, "the tracer is already running");
    reset_records();
    T.opt = *opt;
    T.finished = false;
    T.out_path = dup_or_null(opt->out_path);
    T.program = dup_or_null(opt->program);
    T.tensor_check = dup_or_null(opt->tensor_check);
    T.opt.out_path = T.out_path;
    T.opt.program = T.program;
    T.opt.tensor_check = T.tensor_check;
    T.factor = opt->tensor_flops_per_op;
    T.prof = PROF_UNSET;
    rl_rank_env_read(&T.rank); /* torchrun's children: each its own RANK */
    T.n_strings = 0;
    T.reason[0] = T.notes[0] = 0;
    T.step_now = -1;
    T.step_run = 0;
    T.step_clean = false;
    T.in_capture = 0;
    T.collectives = 0;
    T.setconfig = SETCONFIG_ONCE;
    T.armed = 0;
    T.dropped = 0;
    T.force = false;
    if (opt->kernel_regex) {
        int rc = regcomp(&T.regex, opt->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char b[128];
            regerror(rc, &T.regex, b, sizeof b);
            return rl_fail(errmsg, RL_EINVAL, "--kernel '%s': %s", opt->kernel_regex, b);
        }
        T.have_regex = true;
    }
    if (opt->names_file) {
        int rc = load_names(opt->names_file, errmsg);
        if (rc) {
            release_filters();
            return rc;
        }
    }
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
    CUpti_SubscriberParams sp = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE};
    sp.subscriberName = "roofline";
    sp.oldSubscriberName = old;
    sp.oldSubscriberSize = sizeof old;
    CUptiResult r = cuptiSubscribe_v2(&T.sub, on_callback, NULL, &sp);
    if (r != CUPTI_SUCCESS)
        release_filters();
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        return rl_fail(errmsg, RL_ECUPTI,
                       "another CUPTI client is attached (%s): roofline cannot trace under "
                       "Nsight, compute-sanitizer or the PyTorch profiler; run without it",
                       old[0] ? old : "unnamed");
    if (r != CUPTI_SUCCESS)
        return rl_fail(errmsg, RL_ECUPTI, "cannot subscribe to CUPTI: %s", cupti_text(r));
    bool ok = true;
    for (size_t i = 0; i < sizeof driver_launches / sizeof *driver_launches; i++)
        ok &= cuptiEnableCallback(1, T.sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_launches[i]) ==
              CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof runtime_launches / sizeof *runtime_launches; i++)
        ok &= cuptiEnableCallback(1, T.sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launches[i]) ==
              CUPTI_SUCCESS;
    ok &= cuptiEnableCallback(1, T.sub, CUPTI_CB_DOMAIN_RESOURCE,
                              CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) == CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof nvtx_ids / sizeof *nvtx_ids; i++)
        cuptiEnableCallback(1, T.sub, CUPTI_CB_DOMAIN_NVTX, nvtx_ids[i]); /* optional */
    ok &= cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS;
    r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (!ok || r != CUPTI_SUCCESS) {
        release_filters();
        cuptiUnsubscribe(T.sub);
        return rl_fail(errmsg, RL_ECUPTI, "cannot enable CUPTI tracing: %s",
                       r != CUPTI_SUCCESS ? cupti_text(r) : "callbacks refused");
    }
    if (opt->counters == RL_COUNTERS_NONE)
        T.prof = PROF_FAILED; /* "off", with no reason */
    T.active = true;
    static bool handlers;
    if (opt->exit_handlers && !handlers) {
        install_exit_handlers();
        handlers = true;
    }
    return RL_OK;
}

void rl_tracer_step_begin(const char *label, double flops, double bytes, const char *precision)
{
    rl_tracer_step_begin_run(label, flops, bytes, precision, 0, false);
}

void rl_tracer_step_begin_run(const char *label, double flops, double bytes,
                              const char *precision, int run, bool timing_only)
{
    pthread_mutex_lock(&T.lock);
    if (run > 0 && T.n_steps > 0 && strcmp(T.steps[T.n_steps - 1].label, label ? label : "?") == 0) {
        T.step_now = (int)T.n_steps - 1; /* the same operation again */
        T.step_run = run;
        T.step_clean = timing_only;
        pthread_mutex_unlock(&T.lock);
        return;
    }
    if (T.n_steps == T.cap_steps) {
        size_t cap = T.cap_steps ? 2 * T.cap_steps : 32;
        struct rl_trace_step *s = rl_realloc(T.steps, cap * sizeof *s);
        if (!s) {
            pthread_mutex_unlock(&T.lock);
            return;
        }
        T.steps = s;
        T.cap_steps = cap;
    }
    struct rl_trace_step *s = &T.steps[T.n_steps];
    memset(s, 0, sizeof *s);
    s->label = rl_strdup(label ? label : "?");
    s->analytic_flops = flops;
    s->analytic_bytes = bytes;
    snprintf(s->precision, sizeof s->precision, "%s", precision ? precision : "");
    if (s->label) {
        T.step_now = (int)T.n_steps++;
        T.step_run = run > 0 ? run : 0;
        T.step_clean = timing_only;
    }
    pthread_mutex_unlock(&T.lock);
}

void rl_tracer_step_end(void)
{
    pthread_mutex_lock(&T.lock);
    T.step_now = -1;
    T.step_run = 0;
    T.step_clean = false;
    pthread_mutex_unlock(&T.lock);
}

int rl_tracer_step_counters(const char *label, double q[RL_Q_COUNT], int *launches)
{
    int counted = 0;
    *launches = 0;
    for (int i = 0; i < RL_Q_COUNT; i++)
        q[i] = 0;
    pthread_mutex_lock(&T.lock);
    for (size_t i = 0; i < T.n_l; i++) {
        const struct launch *l = &T.l[i];
        if (l->step < 0 || l->clean || strcmp(T.steps[l->step].label, label) != 0)
            continue;
        ++*launches;
        if (!l->counted)
            continue;
        counted++;
        for (int j = 0; j < RL_Q_COUNT; j++)
            q[j] += l->q[j];
    }
    pthread_mutex_unlock(&T.lock);
    return counted;
}

const char *rl_tracer_counters_status(const char **reason)
{
    if (reason)
        *reason = T.reason[0] ? T.reason : NULL;
    if (T.opt.counters == RL_COUNTERS_NONE)
        return "off";
    return T.reason[0] ? "unavailable" : "ok";
}

const struct rl_metric_set *rl_tracer_metric_set(void)
{
    return T.set.n_names ? &T.set : NULL;
}

void rl_tracer_force_counting(bool on)
{
    pthread_mutex_lock(&T.lock);
    T.force = on;
    pthread_mutex_unlock(&T.lock);
}

void rl_tracer_note(const char *text)
{
    pthread_mutex_lock(&T.lock);
    note_locked(text);
    pthread_mutex_unlock(&T.lock);
}

void rl_tracer_set_tensor_factor(double flops_per_op, const char *check_line)
{
    pthread_mutex_lock(&T.lock);
    T.factor = flops_per_op;
    free(T.tensor_check);
    T.tensor_check = dup_or_null(check_line);
    pthread_mutex_unlock(&T.lock);
}

const struct rl_trace_kernel *rl_tracer_kernels(size_t *n)
{
    *n = T.n_k;
    return T.k;
}

/* Give each kernel record its launch's NVTX path, step and counters. */
static void join(void)
{
    for (size_t i = 0; i < T.n_k; i++) {
        struct rl_trace_kernel *k = &T.k[i];
        uint32_t *idx = map_get(&T.by_corr, k->correlation);
        if (!idx)
            continue;
        struct launch *l = &T.l[*idx - 1];
        k->step = l->step;
        k->run = l->run;
        k->timing_only = l->clean;
        if (l->nvtx && !k->nvtx)
            k->nvtx = rl_strdup(l->nvtx);
        /* NCCL's kernel inside NCCL's range: the collective and its bytes. */
        if (l->collective[0] && k->name && rl_nccl_kernel(k->name, NULL, 0)) {
            memcpy(k->collective, l->collective, sizeof k->collective);
            k->comm_bytes = l->comm_bytes;
        }
        /* A graph launch shares one correlation id among its kernels:
         * its counters (never read) and NVTX path only. */
        if (l->counted && !k->graph) {
            memcpy(k->q, l->q, sizeof k->q);
            k->tensor_activity = l->tensor_activity;
            k->counts = RL_COUNTS_COUNTERS;
        }
        if (l->collective_kernel)
            k->note = rl_trace_collective_note;
    }
}

static void iso_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Write the trace to T.out_path. Holds T.lock (or runs in a signal handler). */
static int write_trace(bool incomplete, int signal, char *errmsg)
{
    if (!T.out_path)
        return RL_OK;
    char created[32], tool[48];
    iso_now(created, sizeof created);
    snprintf(tool, sizeof tool, "roofline %s", ROOFLINE_VERSION);
    const char *reason;
    struct rl_trace_meta m = {
        .tool = tool,
        .created = created,
        .pid = (long)getpid(),
        .program = T.program ? T.program : "",
        .gpu_name = T.have_gpu ? T.gpu_name : NULL,
        .chip = T.chip[0] ? T.chip : NULL,
        .cc_major = T.cc_major,
        .cc_minor = T.cc_minor,
        .sm_count = T.sm_count,
        .counters_mode = T.opt.counters == RL_COUNTERS_NONE      ? "none"
                         : T.opt.counters == RL_COUNTERS_FULL    ? "full"
                                                                 : "default",
        .counters_status = rl_tracer_counters_status(&reason),
        .counters_reason = reason,
        .set = T.set.n_names ? &T.set : NULL,
        .tensor_flops_per_op = T.factor,
        .tensor_check = T.tensor_check,
        .dropped_records = T.dropped,
        .incomplete = incomplete,
        .signal = signal,
        .notes = T.notes[0] ? T.notes : NULL,
        .setconfig = !T.set.n_names                      ? NULL
                     : T.setconfig == SETCONFIG_PER_LAUNCH ? "per-launch"
                                                           : "once",
        .launches_in_capture = T.in_capture,
        .rank = &T.rank,
    };
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, T.out_path, errmsg);
    if (rc)
        return rc;
    if (rl_trace_write(f.fp, &m, T.k, T.n_k, T.steps, T.n_steps))
        return rl_atomic_fail(&f, errmsg);
    return rl_atomic_commit(&f, errmsg);
}

static void free_launches(void)
{
    for (size_t i = 0; i < T.n_l; i++)
        free(T.l[i].nvtx);
    free(T.l);
    T.l = NULL;
    T.n_l = T.cap_l = 0;
    map_free(&T.by_corr);
    map_free(&T.fn_selected);
    map_free(&T.fn_collective);
    map_free(&T.sig_counted);
}

int rl_tracer_finish(char *errmsg)
{
    if (!T.active)
        return RL_OK;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&T.lock);
    T.active = false;
    join();
    if (rl_trace_fill_sampled(T.k, T.n_k) < 0)
        note_locked("out of memory while lending sampled counts");
    if (T.collectives) {
        char line[256];
        snprintf(line, sizeof line,
                 "%llu launches of collective kernels (NCCL, symmetric memory, custom "
                 "all-reduce) timed only, never counted: kernel replay would hang them",
                 (unsigned long long)T.collectives);
        note_locked(line);
    }
    int rc = write_trace(false, 0, errmsg);
    if (rc == RL_OK && T.out_path && T.opt.verbose)
        fprintf(stderr, "roofline: %zu kernels traced into %s\n", T.n_k, T.out_path);
    pthread_mutex_unlock(&T.lock);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiUnsubscribe(T.sub);
    counters_teardown();
    free_launches();
    release_filters();
    free(T.out_path);
    free(T.program);
    T.out_path = T.program = NULL;
    T.finished = true;
    return rc;
}

/* ---- exit paths (injection) -------------------------------------------------- */

static const int fatal_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT};

/* A fatal signal: write what we have (best effort: not async-signal-safe,
 * but the process is ending anyway), then let the old disposition act. */
static void on_signal(int sig)
{
    if (!T.in_signal && T.active) {
        T.in_signal = 1;
        /* Flushing delivers buffers to buffer_completed, which takes the
         * lock: only when no thread (this one included) holds it. */
        bool locked = false;
        if (pthread_mutex_trylock(&T.lock) == 0) {
            pthread_mutex_unlock(&T.lock);
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
            locked = pthread_mutex_trylock(&T.lock) == 0;
        }
        join();
        rl_trace_fill_sampled(T.k, T.n_k);
        write_trace(true, sig, NULL);
        T.active = false;
        if (locked)
            pthread_mutex_unlock(&T.lock);
    }
    if (sig > 0 && sig < 32)
        sigaction(sig, &T.old_sa[sig], NULL);
    raise(sig);
}

static void at_exit(void)
{
    char err[RL_ERRMSG_SIZE];
    if (rl_tracer_finish(err))
        fprintf(stderr, "roofline: trace not written: %s\n", err);
    /* CUDA 13.0-13.2 can crash at exit when CUPTI is left initialised. */
    cuptiFinalize();
}

/* Crashes always write the trace, then go on to the program's own handler.
 * SIGTERM and SIGINT only when the program left them at their default: a
 * program that handles them (Python turns SIGINT into KeyboardInterrupt)
 * exits through atexit, where the trace is written whole. */
static void install_exit_handlers(void)
{
    atexit(at_exit);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
        int s = fatal_signals[i];
        struct sigaction old;
        if (sigaction(s, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        if ((s == SIGTERM || s == SIGINT) && old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(s, &sa, &T.old_sa[s]);
    }
}
