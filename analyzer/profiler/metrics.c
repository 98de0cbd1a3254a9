/* metrics.c - the hardware counters roofline reads per kernel: per chip, with fallbacks and pass counts.
 *
 * The quantities and their candidate names are in analyzer/counts.c;
 * which name a chip has is asked of the CUPTI 13.0 host API, no GPU
 * needed (see shared/notes/CUPTI.md).
 */
#define _GNU_SOURCE
#include "analyzer/profiler/metrics.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_result.h>
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- libnvperf_host, beside the libcupti in use ---------------------------- */

/* CUPTI dlopen()s libnvperf_host.so by name: whatever the search path finds
 * first, which may belong to another CUDA than the libcupti loaded (pip's
 * nvidia-cuda-cupti beside /usr/local/cuda). Load the one in libcupti's own
 * folder first, with CUPTI's flags; CUPTI's dlopen then finds it by its
 * soname. Where that folder has none, CUPTI's own search stands. */
static char nvperf_path[4096];
static pthread_once_t nvperf_once = PTHREAD_ONCE_INIT;

static void loaded_path(void *h)
{
    struct link_map *lm = NULL;
    if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        snprintf(nvperf_path, sizeof nvperf_path, "%s", lm->l_name);
}

static void nvperf_load(void)
{
    void *h = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD);
    if (h) { /* already there: that is the one CUPTI will use */
        loaded_path(h);
        dlclose(h);
        return;
    }
    Dl_info cu;
    if (!dladdr((void *)cuptiGetResultString, &cu) || !cu.dli_fname)
        return;
    const char *slash = strrchr(cu.dli_fname, '/');
    if (!slash)
        return;
    char path[sizeof nvperf_path];
    snprintf(path, sizeof path, "%.*s/libnvperf_host.so", (int)(slash - cu.dli_fname),
             cu.dli_fname);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND); /* kept for the process */
    if (h)
        loaded_path(h);
}

const char *rl__nvperf_preload(void)
{
    pthread_once(&nvperf_once, nvperf_load);
    return nvperf_path[0] ? nvperf_path : NULL;
}

/* ---- CUPTI host objects -------------------------------------------------- */

static const char *result_name(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return s;
}

static int host_open(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj,
                     char *errmsg)
{
    rl__nvperf_preload();
    CUpti_Profiler_Host_Initialize_Params p = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail;
    CUptiResult r = cuptiProfilerHostInitialize(&p);
    if (r != CUPTI_SUCCESS)
        return rl_fail(errmsg, r == CUPTI_ERROR_INVALID_CHIP_NAME ? RL_ENOTFOUND : RL_ECUPTI,
                       "CUPTI cannot set up counters for chip '%s': %s", chip, result_name(r));
    *obj = p.pHostObject;
    return RL_OK;
}

static void host_close(CUpti_Profiler_Host_Object *obj)
{
    CUpti_Profiler_Host_Deinitialize_Params p = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = obj;
    cuptiProfilerHostDeinitialize(&p);
}

/* Add names to obj; 0 or the CUPTI result. */
static CUptiResult host_add(CUpti_Profiler_Host_Object *obj, const char **names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params p = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    p.pHostObject = obj;
    p.ppMetricNames = names;
    p.numMetrics = n;
    return cuptiProfilerHostConfigAddMetrics(&p);
}

static int host_image(CUpti_Profiler_Host_Object *obj, uint8_t **image, size_t *size,
                      char *errmsg)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sp.pHostObject = obj;
    CUptiResult r = cuptiProfilerHostGetConfigImageSize(&sp);
    if (r != CUPTI_SUCCESS)
        return rl_fail(errmsg, RL_ECUPTI, "config image size: %s", result_name(r));
    *image = rl_calloc(1, sp.configImageSize ? sp.configImageSize : 1);
    if (!*image)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    CUpti_Profiler_Host_GetConfigImage_Params gp = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gp.pHostObject = obj;
    gp.configImageSize = sp.configImageSize;
    gp.pConfigImage = *image;
    r = cuptiProfilerHostGetConfigImage(&gp);
    if (r != CUPTI_SUCCESS) {
        free(*image);
        *image = NULL;
        return rl_fail(errmsg, RL_ECUPTI, "config image: %s", result_name(r));
    }
    *size = sp.configImageSize;
    return RL_OK;
}

/* Passes a list of names costs on chip; -1 if CUPTI refuses them. */
static int passes_of(const char *chip, const uint8_t *avail, const char **names, size_t n)
{
    CUpti_Profiler_Host_Object *obj;
    if (host_open(chip, avail, &obj, NULL) != RL_OK)
        return -1;
    int passes = -1;
    uint8_t *image = NULL;
    size_t size = 0;
    if (host_add(obj, names, n) == CUPTI_SUCCESS && host_image(obj, &image, &size, NULL) == 0) {
        CUpti_Profiler_Host_GetNumOfPasses_Params p = {
            .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
        p.configImageSize = size;
        p.pConfigImage = image;
        if (cuptiProfilerHostGetNumOfPasses(&p) == CUPTI_SUCCESS)
            passes = (int)p.numOfPasses;
    }
    free(image);
    host_close(obj);
    return passes;
}

/* ---- building a set ------------------------------------------------------- */

/* Split "a+b" into terms (at most RL_Q_MAX_TERMS). */
static int split_terms(const char *cand, char out[][96])
{
    int n = 0;
    for (const char *p = cand; *p && n < RL_Q_MAX_TERMS;) {
        size_t k = strcspn(p, "+"), m = k < 95 ? k : 95;
        memcpy(out[n], p, m);
        out[n++][m] = 0;
        p += k + (p[k] == '+');
    }
    return n;
}

/* Is every term of candidate valid on chip? Records each in tried. */
static bool candidate_valid(struct rl_metric_set *s, CUpti_Profiler_Host_Object *probe, int q,
                            const char *cand)
{
    char terms[RL_Q_MAX_TERMS][96];
    int n = split_terms(cand, terms);
    bool ok = true;
    for (int t = 0; t < n; t++) {
        const char *name = terms[t];
        bool valid = host_add(probe, &name, 1) == CUPTI_SUCCESS;
        if (s->n_tried < (int)(sizeof s->tried / sizeof s->tried[0])) {
            struct rl_metric_tried *tr = &s->tried[s->n_tried++];
            snprintf(tr->name, sizeof tr->name, "%s", name);
            tr->valid = valid;
            tr->q = q;
            tr->chosen = false;
        }
        ok &= valid;
    }
    return ok;
}

/* Append quantity q's chosen candidate to the flat name list. */
static void add_names(struct rl_metric_set *s, int q)
{
    char terms[RL_Q_MAX_TERMS][96];
    int n = split_terms(s->metric[q], terms);
    for (int t = 0; t < RL_Q_MAX_TERMS; t++)
        s->term[q][t] = -1;
    for (int t = 0; t < n; t++) {
        int k = s->n_names++;
        memcpy(s->name_buf[k], terms[t], sizeof s->name_buf[k]);
        s->names[k] = s->name_buf[k];
        s->term[q][t] = k;
        for (int i = 0; i < s->n_tried; i++)
            if (strcmp(s->tried[i].name, terms[t]) == 0)
                s->tried[i].chosen = true;
    }
    s->on[q] = true;
}

static void remove_last(struct rl_metric_set *s, int q)
{
    for (int t = RL_Q_MAX_TERMS - 1; t >= 0; t--)
        if (s->term[q][t] >= 0) {
            s->n_names--;
            s->term[q][t] = -1;
        }
    s->on[q] = false;
    char terms[RL_Q_MAX_TERMS][96];
    int n = split_terms(s->metric[q], terms);
    for (int t = 0; t < n; t++)
        for (int i = 0; i < s->n_tried; i++)
            if (strcmp(s->tried[i].name, terms[t]) == 0)
                s->tried[i].chosen = false;
}

/* Tensor Core activity of any type (rl_metric_set.guard), each valid one
 * kept where it adds no pass over max_passes (-1: any number):
 *  - GH100's wgmma instructions (every wgmma reads B from shared memory,
 *    so it is an "op_shared_gmma" SASS instruction): the one that fits the
 *    default set's 2 passes there (the tensor pipe's cycles make it 3);
 *  - GB100's tcgen05.mma instructions (op_utcmma) and its tc pipe's active
 *    cycles: both fit GB100's 2;
 *  - the tensor pipe's active cycles (every chip; mma.sync's HMMA too):
 *    one more pass in every default set, so in full sets only.
 * So the default set tells on GH100 (wgmma kernels; an mma.sync kernel of
 * a type not counted is not seen) and GB100 (tcgen05 kernels), and not on
 * GA100, AD102, GB202, whose default sets have no room. Names and passes
 * checked with the CUPTI 13.0 host API (GA100, AD102, GH100, GB100, GB202). */
static const char *const tensor_guards[RL_TENSOR_GUARD_MAX] = {
    "sm__sass_inst_executed_op_shared_gmma.sum", "sm__sass_inst_executed_op_utcmma.sum",
    "sm__pipe_tc_cycles_active.sum", "sm__pipe_tensor_cycles_active.sum"};

static void add_guards(struct rl_metric_set *s, const uint8_t *avail, int max_passes)
{
    s->n_guard = 0;
    for (int g = 0; g < RL_TENSOR_GUARD_MAX; g++) {
        CUpti_Profiler_Host_Object *probe = NULL;
        if (host_open(s->chip, avail, &probe, NULL) != RL_OK)
            return;
        const char *name = tensor_guards[g];
        bool valid = host_add(probe, &name, 1) == CUPTI_SUCCESS;
        host_close(probe);
        if (!valid)
            continue;
        int k = s->n_names++;
        snprintf(s->name_buf[k], sizeof s->name_buf[k], "%s", name);
        s->names[k] = s->name_buf[k];
        int p = passes_of(s->chip, avail, s->names, (size_t)s->n_names);
        if (p < 0 || (max_passes >= 0 && p > max_passes)) {
            s->n_names--;
            continue;
        }
        s->passes = p;
        s->guard[s->n_guard++] = k;
    }
}

int rl_metric_set_build(const char *chip, enum rl_counter_set kind,
                        const uint8_t *counter_avail, struct rl_metric_set *out, char *errmsg)
{
    size_t n_defs;
    const struct rl_q_def *qdefs = rl_q_defs(&n_defs);
    memset(out, 0, sizeof *out);
    snprintf(out->chip, sizeof out->chip, "%s", chip);
    out->kind = kind;
    for (int q = 0; q < RL_Q_COUNT; q++)
        for (int t = 0; t < RL_Q_MAX_TERMS; t++)
            out->term[q][t] = -1;
    /* One probe object per candidate test keeps a bad name from poisoning
     * the others. */
    for (int q = 0; q < RL_Q_COUNT; q++) {
        for (int c = 0; c < RL_Q_MAX_CANDIDATES && qdefs[q].candidates[c]; c++) {
            CUpti_Profiler_Host_Object *probe = NULL;
            int rc = host_open(chip, counter_avail, &probe, errmsg);
            if (rc)
                return rc;
            bool ok = candidate_valid(out, probe, q, qdefs[q].candidates[c]);
            host_close(probe);
            if (ok) {
                snprintf(out->metric[q], sizeof out->metric[q], "%s", qdefs[q].candidates[c]);
                break;
            }
        }
        if (!out->metric[q][0] && qdefs[q].required)
            return rl_fail(errmsg, RL_EUNSUPPORTED,
                           "chip %s has no counter for %s (tried %s)", chip, qdefs[q].key,
                           qdefs[q].candidates[0]);
    }
    for (int q = 0; q < RL_Q_COUNT; q++)
        if (qdefs[q].required)
            add_names(out, q);
    int base = passes_of(chip, counter_avail, out->names, (size_t)out->n_names);
    if (base < 0)
        return rl_fail(errmsg, RL_ECUPTI, "CUPTI refuses the counter set for %s", chip);
    int budget = base > 2 ? base : 2;
    out->passes = base;
    for (int q = 0; q < RL_Q_COUNT; q++) {
        if (qdefs[q].required || !out->metric[q][0])
            continue;
        add_names(out, q);
        int p = passes_of(chip, counter_avail, out->names, (size_t)out->n_names);
        if (p < 0 || (kind == RL_COUNTERS_DEFAULT && p > budget))
            remove_last(out, q);
        else
            out->passes = p;
    }
    add_guards(out, counter_avail, kind == RL_COUNTERS_DEFAULT ? out->passes : -1);
    return RL_OK;
}

int rl_metric_set_config(const struct rl_metric_set *set, const uint8_t *counter_avail,
                         uint8_t **image, size_t *size, char *errmsg)
{
    CUpti_Profiler_Host_Object *obj = NULL;
    int rc = host_open(set->chip, counter_avail, &obj, errmsg);
    if (rc)
        return rc;
    CUptiResult r = host_add(obj, (const char **)set->names, (size_t)set->n_names);
    if (r != CUPTI_SUCCESS)
        rc = rl_fail(errmsg, RL_ECUPTI, "counter set: %s", result_name(r));
    else
        rc = host_image(obj, image, size, errmsg);
    host_close(obj);
    return rc;
}

struct rl_metric_evaluator {
    CUpti_Profiler_Host_Object *host;
    const struct rl_metric_set *set;
    uint8_t *image;
    size_t image_size;
};

int rl_metric_evaluator_open(const struct rl_metric_set *set, const uint8_t *counter_avail,
                             struct rl_metric_evaluator **ev, const uint8_t **image,
                             size_t *image_size, char *errmsg)
{
    struct rl_metric_evaluator *e = rl_calloc(1, sizeof *e);
    if (!e)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    e->set = set;
    int rc = host_open(set->chip, counter_avail, &e->host, errmsg);
    if (rc) {
        free(e);
        return rc;
    }
    CUptiResult r = host_add(e->host, (const char **)set->names, (size_t)set->n_names);
    if (r != CUPTI_SUCCESS)
        rc = rl_fail(errmsg, RL_ECUPTI, "counter set: %s", result_name(r));
    else
        rc = host_image(e->host, &e->image, &e->image_size, errmsg);
    if (rc) {
        rl_metric_evaluator_close(e);
        return rc;
    }
    *ev = e;
    *image = e->image;
    *image_size = e->image_size;
    return RL_OK;
}

int rl_metric_evaluate(struct rl_metric_evaluator *ev, const uint8_t *data, size_t data_size,
                       size_t range, double *values, char *errmsg)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = ev->host;
    p.pCounterDataImage = data;
    p.counterDataImageSize = data_size;
    p.rangeIndex = range;
    p.ppMetricNames = (const char **)ev->set->names;
    p.numMetrics = (size_t)ev->set->n_names;
    p.pMetricValues = values;
    CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p);
    if (r != CUPTI_SUCCESS)
        return rl_fail(errmsg, RL_ECUPTI, "evaluating counters: %s", result_name(r));
    return RL_OK;
}

void rl_metric_evaluator_close(struct rl_metric_evaluator *ev)
{
    if (!ev)
        return;
    if (ev->host)
        host_close(ev->host);
    free(ev->image);
    free(ev);
}

void rl_metric_set_quantities(const struct rl_metric_set *set, const double *name_values,
                              double *q_values)
{
    for (int q = 0; q < RL_Q_COUNT; q++) {
        q_values[q] = NAN;
        if (!set->on[q])
            continue;
        double sum = 0;
        for (int t = 0; t < RL_Q_MAX_TERMS; t++)
            if (set->term[q][t] >= 0)
                sum += name_values[set->term[q][t]];
        q_values[q] = sum;
    }
}

double rl_metric_set_tensor_activity(const struct rl_metric_set *set, const double *name_values)
{
    if (!set->n_guard)
        return NAN;
    double sum = 0;
    for (int g = 0; g < set->n_guard; g++)
        sum += name_values[set->guard[g]];
    return sum;
}
