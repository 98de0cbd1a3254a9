/* model.c - the roofline model: ceilings, attainable performance, ridge points, bounds. */
#include "analyzer/model/model.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The roofs a datasheet can give, by CLI name. */
static const struct roof_def {
    const char *name;
    enum rl_precision precision;
    enum rl_unit unit;
    const char *label;
} roof_defs[] = {
    {"fp64", RL_PREC_FP64, RL_UNIT_CUDA, "FP64 CUDA cores"},
    {"fp32", RL_PREC_FP32, RL_UNIT_CUDA, "FP32 CUDA cores"},
    {"fp16-cuda", RL_PREC_FP16, RL_UNIT_CUDA, "FP16 CUDA cores"},
    {"bf16-cuda", RL_PREC_BF16, RL_UNIT_CUDA, "BF16 CUDA cores"},
    {"fp64-tc", RL_PREC_FP64, RL_UNIT_TENSOR, "FP64 Tensor Core"},
    {"tf32", RL_PREC_TF32, RL_UNIT_TENSOR, "TF32 Tensor Core"},
    {"fp16", RL_PREC_FP16, RL_UNIT_TENSOR, "FP16 Tensor Core"},
    {"bf16", RL_PREC_BF16, RL_UNIT_TENSOR, "BF16 Tensor Core"},
    {"fp8", RL_PREC_FP8, RL_UNIT_TENSOR, "FP8 Tensor Core"},
    {"int8", RL_PREC_INT8, RL_UNIT_TENSOR, "INT8 Tensor Core"},
    {"fp4", RL_PREC_FP4, RL_UNIT_TENSOR, "FP4 Tensor Core"},
    {"fp6", RL_PREC_FP6, RL_UNIT_TENSOR, "FP6 Tensor Core"},
    {"fp16-acc16", RL_PREC_FP16_ACC16, RL_UNIT_TENSOR, "FP16 Tensor Core, FP16 acc"},
    {"fp8-acc16", RL_PREC_FP8_ACC16, RL_UNIT_TENSOR, "FP8 Tensor Core, FP16 acc"},
};
#define N_ROOFS (sizeof roof_defs / sizeof roof_defs[0])

const char *const *rl_roof_names(void)
{
    static const char *names[N_ROOFS + 1];
    if (!names[0])
        for (size_t i = 0; i < N_ROOFS; i++)
            names[i] = roof_defs[i].name;
    return names;
}

const char *rl_mem_level_name(enum rl_mem_level level)
{
    switch (level) {
    case RL_MEM_DRAM:
        return "dram";
    case RL_MEM_L2:
        return "l2";
    case RL_MEM_L1:
        return "l1";
    case RL_MEM_COUNT:
        break;
    }
    return "?";
}

void rl_bound_text(char *buf, size_t cap, enum rl_bound bound, enum rl_mem_level level,
                   const char *compute_label)
{
    static const char *const levels[] = {[RL_MEM_DRAM] = "DRAM", [RL_MEM_L2] = "L2",
                                         [RL_MEM_L1] = "L1"};
    if (bound == RL_BOUND_MEMORY && (unsigned)level < RL_MEM_COUNT)
        snprintf(buf, cap, "memory (%s)", levels[level]);
    else if (bound == RL_BOUND_COMPUTE && compute_label && compute_label[0])
        snprintf(buf, cap, "compute (%s)", compute_label);
    else
        snprintf(buf, cap, "%s", rl_bound_name(bound));
}

int rl_mem_level_parse(const char *name)
{
    if (strcasecmp(name, "hbm") == 0 || strcasecmp(name, "dram") == 0)
        return RL_MEM_DRAM;
    if (strcasecmp(name, "l2") == 0)
        return RL_MEM_L2;
    if (strcasecmp(name, "l1") == 0 || strcasecmp(name, "shared") == 0)
        return RL_MEM_L1;
    return -1;
}

const char *rl_bound_name(enum rl_bound bound)
{
    switch (bound) {
    case RL_BOUND_MEMORY:
        return "memory";
    case RL_BOUND_COMPUTE:
        return "compute";
    case RL_BOUND_NEITHER:
        return "neither";
    case RL_BOUND_LINK:
        return "link";
    case RL_BOUND_UNKNOWN:
        break;
    }
    return "unknown";
}

static const struct roof_def *find_roof(const char *name)
{
    for (size_t i = 0; i < N_ROOFS; i++)
        if (strcasecmp(name, roof_defs[i].name) == 0)
            return &roof_defs[i];
    return NULL;
}

static int unknown_roof(const char *name, char *errmsg)
{
    char list[256] = "";
    for (size_t i = 0; i < N_ROOFS; i++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "", roof_defs[i].name);
    }
    return rl_fail(errmsg, RL_ENOTFOUND, "unknown precision '%s' (one of: %s)", name, list);
}

static void describe(const struct roof_def *d, bool sparse, struct rl_compute_roof *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", d->name);
    /* The name says the unit: "BF16 Tensor Core", "BF16 CUDA cores",
     * "FP8 Tensor Core, sparse" (2:4 structured sparsity). */
    snprintf(out->label, sizeof out->label, "%s%s", d->label,
             d->unit == RL_UNIT_TENSOR && sparse ? ", sparse" : "");
    out->precision = d->precision;
    out->unit = d->unit;
    out->sparse = sparse;
    out->ops = d->precision == RL_PREC_INT8;
    out->peak_tflops = NAN;
    out->origin = RL_ORIGIN_MEASURED;
}

int rl_roof_describe(const char *name, struct rl_compute_roof *out)
{
    const struct roof_def *d = find_roof(name);
    if (!d)
        return unknown_roof(name, NULL);
    describe(d, false, out);
    return RL_OK;
}

void rl_vendor_terms(const struct rl_gpu_spec *spec, char *label, size_t cap)
{
    if (!spec || strcasecmp(spec->vendor, "AMD") != 0)
        return;
    static const char *const words[][2] = {{"Tensor Core", "Matrix Core"},
                                           {"CUDA cores", "stream processors"},
                                           {"SMs", "compute units"}};
    for (size_t w = 0; w < 3; w++) {
        char *at = strstr(label, words[w][0]);
        if (!at)
            continue;
        char rest[64];
        snprintf(rest, sizeof rest, "%s", at + strlen(words[w][0]));
        snprintf(at, cap - (size_t)(at - label), "%s%s", words[w][1], rest);
    }
}

int rl_roof_from_spec(const struct rl_gpu_spec *spec, const char *name,
                      bool sparse, struct rl_compute_roof *out, char *errmsg)
{
    const struct roof_def *d = find_roof(name);
    if (!d)
        return unknown_roof(name, errmsg);
    if (sparse && d->unit == RL_UNIT_CUDA)
        return rl_fail(errmsg, RL_EINVAL,
                       "sparsity applies to Tensor Core roofs only, not '%s'", name);
    enum rl_peak_table t = d->unit == RL_UNIT_CUDA ? RL_PEAKS_CUDA
                           : sparse                ? RL_PEAKS_TENSOR_SPARSE
                                                   : RL_PEAKS_TENSOR_DENSE;
    double peak = spec->peak_tflops[t][d->precision];
    char label[64];
    snprintf(label, sizeof label, "%s", d->label);
    rl_vendor_terms(spec, label, sizeof label);
    if (isnan(peak))
        /* null: the GPU lacks the rate, or no source cited for it prints it
         * (data/gpus/README.md): the database's lack is what is known */
        return rl_fail(errmsg, RL_EUNSUPPORTED, "the GPU database holds no %s%s rate for %s",
                       label, sparse ? " (sparse)" : "", spec->name);
    describe(d, sparse, out);
    rl_vendor_terms(spec, out->label, sizeof out->label);
    out->peak_tflops = peak;
    out->origin = rl_gpu_spec_peak_origin(spec, t, d->precision);
    return RL_OK;
}

int rl_memory_roof_from_spec(const struct rl_gpu_spec *spec,
                             enum rl_mem_level level,
                             struct rl_memory_roof *out, char *errmsg)
{
    static const char *const keys[RL_MEM_COUNT] = {
        "memory_bandwidth_gbs", "l2_bandwidth_gbs", "l1_bandwidth_gbs"};
    if ((unsigned)level >= RL_MEM_COUNT)
        return rl_fail(errmsg, RL_EINVAL, "bad memory level");
    int f = rl_spec_field_index(keys[level]);
    double bw = rl_gpu_spec_field_value(spec, (size_t)f);
    if (isnan(bw))
        return rl_fail(errmsg, RL_EUNSUPPORTED,
                       "the %s datasheet gives no %s bandwidth (measure it with "
                       "'roofline bench')", spec->id,
                       level == RL_MEM_L2 ? "L2" : "L1/shared");
    memset(out, 0, sizeof *out);
    out->level = level;
    snprintf(out->label, sizeof out->label, "%s",
             level == RL_MEM_DRAM ? spec->memory_type
             : level == RL_MEM_L2 ? "L2"
                                  : "L1/shared");
    out->bandwidth_gbs = bw;
    out->origin = rl_gpu_spec_field_origin(spec, (size_t)f);
    return RL_OK;
}

double rl_ridge_flop_per_byte(double peak_tflops, double bandwidth_gbs)
{
    if (!(peak_tflops >= 0) || !(bandwidth_gbs > 0) || isinf(peak_tflops) ||
        isinf(bandwidth_gbs))
        return NAN;
    return peak_tflops * 1e3 / bandwidth_gbs;
}

/* The memory roof's rate at an intensity: AI (FLOP/B) x GB/s = GFLOP/s,
 * x 1e-3 = TFLOP/s. The one formula, for rl_attainable_tflops and the
 * judge (rl_classify). */
static double memory_roof_tflops(double ai_flop_per_byte, double bandwidth_gbs)
{
    return ai_flop_per_byte * bandwidth_gbs * 1e-3;
}

double rl_attainable_tflops(double peak_tflops, double bandwidth_gbs,
                            double ai_flop_per_byte)
{
    if (!(peak_tflops >= 0) || !(bandwidth_gbs > 0) || !(ai_flop_per_byte >= 0) ||
        isinf(peak_tflops) || isinf(bandwidth_gbs))
        return NAN;
    double mem_tflops = memory_roof_tflops(ai_flop_per_byte, bandwidth_gbs);
    return mem_tflops < peak_tflops ? mem_tflops : peak_tflops;
}

static int bad_quantity(double v, bool nan_ok)
{
    return isnan(v) ? !nan_ok : (v < 0 || isinf(v));
}

int rl_classify(const struct rl_kernel_perf *k, const struct rl_compute_roof *c,
                const struct rl_memory_roof *mem, size_t n_mem,
                struct rl_verdict *out, char *errmsg)
{
    if (bad_quantity(k->flops, false))
        return rl_fail(errmsg, RL_EINVAL, "FLOPs must be a finite number >= 0, got %g",
                       k->flops);
    if (bad_quantity(k->time_ns, true))
        return rl_fail(errmsg, RL_EINVAL, "time must be a finite number >= 0, got %g ns",
                       k->time_ns);
    for (int l = 0; l < RL_MEM_COUNT; l++)
        if (bad_quantity(k->bytes[l], true))
            return rl_fail(errmsg, RL_EINVAL,
                           "%s bytes must be a finite number >= 0, got %g",
                           rl_mem_level_name((enum rl_mem_level)l), k->bytes[l]);
    if (!(c->peak_tflops > 0) || isinf(c->peak_tflops))
        return rl_fail(errmsg, RL_EINVAL, "compute roof must be > 0, got %g TFLOP/s",
                       c->peak_tflops);

    memset(out, 0, sizeof *out);
    for (int l = 0; l < RL_MEM_COUNT; l++)
        out->ai_flop_per_byte[l] = NAN;
    out->attainable_tflops = out->achieved_tflops = out->pct_of_roof = NAN;
    out->headroom_x = out->ridge_flop_per_byte = out->ridge_distance_x = NAN;
    out->ai_link_flop_per_byte = out->link_attainable_tflops = NAN;

    double best = INFINITY;
    int limiter = -1, usable = 0;
    for (size_t i = 0; i < n_mem; i++) {
        enum rl_mem_level l = mem[i].level;
        if ((unsigned)l >= RL_MEM_COUNT || isnan(k->bytes[l]))
            continue;
        if (!(mem[i].bandwidth_gbs > 0) || isinf(mem[i].bandwidth_gbs))
            return rl_fail(errmsg, RL_EINVAL, "%s bandwidth must be > 0, got %g GB/s",
                           mem[i].label, mem[i].bandwidth_gbs);
        usable++;
        double ai = k->bytes[l] > 0 ? k->flops / k->bytes[l]
                    : k->flops > 0  ? INFINITY
                                    : NAN;
        out->ai_flop_per_byte[l] = ai;
        if (isnan(ai))
            continue;
        double att = isinf(ai) ? INFINITY : memory_roof_tflops(ai, mem[i].bandwidth_gbs);
        if (limiter < 0 || att < best) {
            best = att;
            limiter = (int)i;
        }
    }
    if (!usable)
        return rl_fail(errmsg, RL_EINVAL,
                       "no memory level has both a byte count and a roof");

    if (limiter >= 0) {
        const struct rl_memory_roof *m = &mem[limiter];
        double ai = out->ai_flop_per_byte[m->level];
        out->ridge_flop_per_byte = rl_ridge_flop_per_byte(c->peak_tflops,
                                                          m->bandwidth_gbs);
        out->ridge_distance_x = ai > 0 ? out->ridge_flop_per_byte / ai : INFINITY;
        out->attainable_tflops = best < c->peak_tflops ? best : c->peak_tflops;
        out->limiter = m->level;
        out->bound = ai < out->ridge_flop_per_byte ? RL_BOUND_MEMORY
                                                   : RL_BOUND_COMPUTE;
        if (out->bound == RL_BOUND_COMPUTE)
            out->attainable_tflops = c->peak_tflops;
    }
    if (!isnan(k->time_ns) && k->time_ns > 0) {
        out->achieved_tflops = k->flops / k->time_ns * 1e-3;
        if (out->attainable_tflops > 0) {
            out->pct_of_roof = out->achieved_tflops / out->attainable_tflops * 100;
            if (out->achieved_tflops > 0)
                out->headroom_x = out->attainable_tflops / out->achieved_tflops;
        }
    }
    return RL_OK;
}

int rl_classify_link(struct rl_verdict *v, double flops, double comm_bytes, double time_ns,
                     const struct rl_compute_roof *c, const struct rl_link_roof *link,
                     char *errmsg)
{
    v->ai_link_flop_per_byte = v->link_attainable_tflops = NAN;
    /* Nothing sent, or no FLOPs to place (a pure copy has intensity 0 on
     * every roof): nothing to judge against the link. */
    if (!(comm_bytes > 0) || isinf(comm_bytes) || !(flops > 0) || isinf(flops))
        return RL_OK;
    if (!link || !(link->bandwidth_gbs > 0) || isinf(link->bandwidth_gbs))
        return rl_fail(errmsg, RL_EINVAL, "link bandwidth must be > 0, got %g GB/s",
                       link ? link->bandwidth_gbs : NAN);
    double ai = flops / comm_bytes;
    double att = memory_roof_tflops(ai, link->bandwidth_gbs);
    v->ai_link_flop_per_byte = ai;
    v->link_attainable_tflops = att;
    if (!(att < v->attainable_tflops) && !isnan(v->attainable_tflops))
        return RL_OK;
    v->attainable_tflops = att;
    v->bound = RL_BOUND_LINK;
    v->ridge_flop_per_byte = rl_ridge_flop_per_byte(c->peak_tflops, link->bandwidth_gbs);
    v->ridge_distance_x = ai > 0 ? v->ridge_flop_per_byte / ai : INFINITY;
    v->pct_of_roof = v->headroom_x = NAN;
    if (!isnan(time_ns) && time_ns > 0) { /* att > 0: flops and comm_bytes are */
        v->achieved_tflops = flops / time_ns * 1e-3;
        v->pct_of_roof = v->achieved_tflops / att * 100;
        v->headroom_x = att / v->achieved_tflops; /* achieved > 0: flops and time are */
    }
    return RL_OK;
}
