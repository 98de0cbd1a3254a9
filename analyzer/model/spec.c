/* spec.c - one GPU's datasheet: the parsed form of a data/gpus/<id>.json file. */
#include "analyzer/model/spec.h"

#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/schema.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCALAR(key, label, unit, kind)                                         \
    {#key, label, unit, offsetof(struct rl_gpu_spec, key), kind}
#define LINK(member, key, label, unit, kind)                                   \
    {"links." key, label, unit, offsetof(struct rl_gpu_spec, links.member), kind}
#define PEAK(table, tkey, prec, pkey, label, unit)                             \
    {tkey "." pkey, label, unit,                                               \
     offsetof(struct rl_gpu_spec, peak_tflops[table][prec]), RL_FIELD_NUMBER}
#define TENSOR_PEAKS(table, tkey, what)                                        \
    PEAK(table, tkey, RL_PREC_FP64, "fp64_tflops", "FP64 Tensor Core, " what, "TFLOP/s"), \
    PEAK(table, tkey, RL_PREC_TF32, "tf32_tflops", "TF32 Tensor Core, " what, "TFLOP/s"), \
    PEAK(table, tkey, RL_PREC_FP16, "fp16_tflops", "FP16 Tensor Core, " what, "TFLOP/s"), \
    PEAK(table, tkey, RL_PREC_BF16, "bf16_tflops", "BF16 Tensor Core, " what, "TFLOP/s"), \
    PEAK(table, tkey, RL_PREC_FP8, "fp8_tflops", "FP8 Tensor Core, " what, "TFLOP/s"),    \
    PEAK(table, tkey, RL_PREC_INT8, "int8_tops", "INT8 Tensor Core, " what, "TOPS"),      \
    PEAK(table, tkey, RL_PREC_FP4, "fp4_tflops", "FP4 Tensor Core, " what, "TFLOP/s"),    \
    PEAK(table, tkey, RL_PREC_FP6, "fp6_tflops", "FP6 Tensor Core, " what, "TFLOP/s"),    \
    PEAK(table, tkey, RL_PREC_FP16_ACC16, "fp16_fp16acc_tflops",                \
         "FP16 Tensor Core (FP16 acc), " what, "TFLOP/s"),                      \
    PEAK(table, tkey, RL_PREC_FP8_ACC16, "fp8_fp16acc_tflops",                  \
         "FP8 Tensor Core (FP16 acc), " what, "TFLOP/s")

static const struct rl_spec_field fields[] = {
    SCALAR(sm_count, "SMs", "", RL_FIELD_INT),
    SCALAR(boost_clock_mhz, "boost clock", "MHz", RL_FIELD_NUMBER),
    SCALAR(tensor_clock_mhz, "clock of the Tensor Core peaks", "MHz", RL_FIELD_NUMBER),
    SCALAR(memory_size_gb, "memory size", "GB", RL_FIELD_NUMBER),
    SCALAR(memory_bandwidth_gbs, "memory bandwidth", "GB/s", RL_FIELD_NUMBER),
    SCALAR(l2_cache_mb, "L2 cache", "MB", RL_FIELD_NUMBER),
    SCALAR(l2_bandwidth_gbs, "L2 bandwidth", "GB/s", RL_FIELD_NUMBER),
    SCALAR(l1_bandwidth_gbs, "L1/shared bandwidth", "GB/s", RL_FIELD_NUMBER),
    SCALAR(tdp_w, "TDP", "W", RL_FIELD_NUMBER),
    SCALAR(host_link_bandwidth_gbs, "host link bandwidth", "GB/s", RL_FIELD_NUMBER),
    SCALAR(gpu_link_bandwidth_gbs, "GPU link bandwidth", "GB/s", RL_FIELD_NUMBER),
    PEAK(RL_PEAKS_CUDA, "cuda_core", RL_PREC_FP64, "fp64_tflops", "FP64 CUDA cores", "TFLOP/s"),
    PEAK(RL_PEAKS_CUDA, "cuda_core", RL_PREC_FP32, "fp32_tflops", "FP32 CUDA cores", "TFLOP/s"),
    PEAK(RL_PEAKS_CUDA, "cuda_core", RL_PREC_FP16, "fp16_tflops", "FP16 CUDA cores", "TFLOP/s"),
    PEAK(RL_PEAKS_CUDA, "cuda_core", RL_PREC_BF16, "bf16_tflops", "BF16 CUDA cores", "TFLOP/s"),
    TENSOR_PEAKS(RL_PEAKS_TENSOR_DENSE, "tensor_core_dense", "dense"),
    TENSOR_PEAKS(RL_PEAKS_TENSOR_SPARSE, "tensor_core_sparse", "sparse"),
    /* The links, per GPU and per direction (struct rl_gpu_links). Counts of
     * 0 are "none" and print as such, like a null number. */
    LINK(count, "gpu_link_count", "GPU links", "", RL_FIELD_INT),
    LINK(gbs_per_link, "gpu_link_gbs_per_link", "GPU link, one link per direction", "GB/s",
         RL_FIELD_NUMBER),
    LINK(gbs, "gpu_link_gbs_per_direction", "GPU links, per direction", "GB/s",
         RL_FIELD_NUMBER),
    LINK(bridge_gpus, "bridge_gpus", "GPUs per bridge", "", RL_FIELD_INT),
    LINK(pcie_gen, "pcie_gen", "PCIe generation", "", RL_FIELD_INT),
    LINK(pcie_lanes, "pcie_lanes", "PCIe lanes", "", RL_FIELD_INT),
    LINK(pcie_gbs, "pcie_gbs_per_direction", "PCIe, per direction", "GB/s", RL_FIELD_NUMBER),
};

#define N_FIELDS (sizeof fields / sizeof fields[0])
_Static_assert(N_FIELDS <= sizeof(((struct rl_gpu_spec *)0)->source_of),
               "source_of too small for the field table");

const struct rl_spec_field *rl_spec_fields(size_t *n)
{
    *n = N_FIELDS;
    return fields;
}

int rl_spec_field_index(const char *key)
{
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(fields[i].key, key) == 0)
            return (int)i;
    return -1;
}

const char *rl_origin_name(enum rl_origin origin)
{
    switch (origin) {
    case RL_ORIGIN_DATASHEET:
        return "datasheet";
    case RL_ORIGIN_ANALYTIC:
        return "analytic";
    case RL_ORIGIN_MEASURED:
        return "measured";
    }
    return "?";
}

const char *rl_precision_name(enum rl_precision p)
{
    static const char *const names[RL_PREC_COUNT] = {
        "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4", "fp6",
        "fp16-acc16", "fp8-acc16"};
    return (unsigned)p < RL_PREC_COUNT ? names[p] : "?";
}

static double *field_double(struct rl_gpu_spec *s, size_t i)
{
    return (double *)((char *)s + fields[i].offset);
}

double rl_gpu_spec_field_value(const struct rl_gpu_spec *spec, size_t i)
{
    const char *base = (const char *)spec + fields[i].offset;
    if (fields[i].kind == RL_FIELD_INT) /* 0: none (every count is >= 1) */
        return *(const int *)base ? *(const int *)base : NAN;
    return *(const double *)base;
}

enum rl_origin rl_gpu_spec_field_origin(const struct rl_gpu_spec *spec, size_t i)
{
    int s = spec->source_of[i];
    if (s >= 0 && s < spec->n_sources &&
        strcmp(spec->sources[s].kind, "derived") == 0)
        return RL_ORIGIN_ANALYTIC;
    return RL_ORIGIN_DATASHEET;
}

enum rl_origin rl_gpu_spec_peak_origin(const struct rl_gpu_spec *spec,
                                       enum rl_peak_table t,
                                       enum rl_precision p)
{
    size_t want = offsetof(struct rl_gpu_spec, peak_tflops[0][0]) +
                  ((size_t)t * RL_PREC_COUNT + (size_t)p) * sizeof(double);
    for (size_t i = 0; i < N_FIELDS; i++)
        if (fields[i].offset == want)
            return rl_gpu_spec_field_origin(spec, i);
    return RL_ORIGIN_DATASHEET;
}

/* Follow a dotted key path ("cuda_core.fp64_tflops") in doc. */
static const cJSON *get_path(const cJSON *doc, const char *key)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s", key);
    char *dot = strchr(buf, '.');
    if (!dot)
        return cJSON_GetObjectItemCaseSensitive(doc, buf);
    *dot = '\0';
    return cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, buf), dot + 1);
}

static void copy_str(char *dst, size_t size, const cJSON *doc, const char *key)
{
    const char *s = rl_json_string(doc, key);
    snprintf(dst, size, "%s", s ? s : "");
}

#define COPY(field, key) copy_str(spec->field, sizeof spec->field, doc, key)

static int fill(struct rl_gpu_spec *spec, const cJSON *doc, const char *text,
                size_t len, const char *what, char *errmsg)
{
    COPY(id, "id");
    COPY(name, "name");
    COPY(vendor, "vendor");
    COPY(architecture, "architecture");
    COPY(chip, "chip");
    COPY(form_factor, "form_factor");
    COPY(variant, "variant");
    COPY(compute_capability, "compute_capability");
    COPY(memory_type, "memory_type");
    COPY(host_link, "host_link");
    COPY(gpu_link, "gpu_link");
    COPY(notes, "notes");
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(doc, "links");
    copy_str(spec->links.name, sizeof spec->links.name, links, "gpu_link");
    copy_str(spec->links.reach, sizeof spec->links.reach, links, "gpu_link_reach");

    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "aliases")) {
        if (spec->n_aliases == RL_SPEC_MAX_ALIASES)
            return rl_fail(errmsg, RL_ESCHEMA, "'%s': more than %d aliases", what,
                           RL_SPEC_MAX_ALIASES);
        snprintf(spec->aliases[spec->n_aliases++], sizeof spec->aliases[0], "%s",
                 it->valuestring);
    }

    int rc = rl_spec_sources_parse(doc, spec->sources, &spec->n_sources, what, errmsg);
    if (rc)
        return rc;

    for (size_t i = 0; i < N_FIELDS; i++) {
        const cJSON *v = get_path(doc, fields[i].key);
        spec->source_of[i] = -1;
        if (fields[i].kind == RL_FIELD_INT)
            *(int *)((char *)spec + fields[i].offset) = v ? v->valueint : 0;
        else
            *field_double(spec, i) = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }

    /* Provenance: every key names a field and a known source; every number
     * has an entry. */
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(doc, "provenance");
    struct rl_json_path where = {1, {{"provenance", 0}}};
    cJSON_ArrayForEach(it, prov) {
        int f = rl_spec_field_index(it->string);
        const char *problem = NULL;
        int s = -1;
        if (f < 0)
            problem = "is not a numeric key of the schema";
        else if (isnan(rl_gpu_spec_field_value(spec, (size_t)f)))
            problem = "is null: a null value has no source";
        for (int k = 0; k < spec->n_sources; k++)
            if (strcmp(spec->sources[k].id, it->valuestring) == 0)
                s = k;
        if (!problem && s < 0)
            problem = "names a source that 'sources' does not list";
        if (problem) {
            where.depth = 2;
            where.step[1].key = it->string;
            return rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: provenance '%s' %s",
                           what, rl_json_locate_line(text, len, &where),
                           it->string, problem);
        }
        spec->source_of[f] = (signed char)s;
    }
    for (size_t i = 0; i < N_FIELDS; i++) {
        if (isnan(rl_gpu_spec_field_value(spec, i)) || spec->source_of[i] >= 0)
            continue;
        return rl_fail(errmsg, RL_ESCHEMA,
                       "'%s': line %d: '%s' has no source: add it to 'provenance'",
                       what, rl_json_locate_line(text, len, &where), fields[i].key);
    }
    return RL_OK;
}

int rl_spec_sources_parse(const cJSON *doc, struct rl_spec_source *out, int *n,
                          const char *what, char *errmsg)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "sources")) {
        if (*n == RL_SPEC_MAX_SOURCES)
            return rl_fail(errmsg, RL_ESCHEMA, "'%s': more than %d sources", what,
                           RL_SPEC_MAX_SOURCES);
        struct rl_spec_source *s = &out[(*n)++];
        snprintf(s->id, sizeof s->id, "%s", it->string);
        copy_str(s->kind, sizeof s->kind, it, "kind");
        copy_str(s->title, sizeof s->title, it, "title");
        copy_str(s->url, sizeof s->url, it, "url");
        copy_str(s->derivation, sizeof s->derivation, it, "derivation");
    }
    return RL_OK;
}

int rl_gpu_spec_parse(struct rl_gpu_spec *spec, const cJSON *schema,
                      const char *text, size_t len, const char *what,
                      char *errmsg)
{
    memset(spec, 0, sizeof *spec);
    for (int t = 0; t < RL_PEAKS_COUNT; t++)
        for (int p = 0; p < RL_PREC_COUNT; p++)
            spec->peak_tflops[t][p] = NAN; /* rates the schema has no key for */
    cJSON *doc;
    int rc = rl_json_parse(text, len, what, &doc, errmsg);
    if (rc)
        return rc;
    rc = rl_schema_check_text(schema, doc, text, len, what, errmsg);
    if (rc == RL_OK)
        rc = fill(spec, doc, text, len, what, errmsg);
    cJSON_Delete(doc);
    return rc;
}

int rl_gpu_spec_load(struct rl_gpu_spec *spec, const cJSON *schema,
                     const char *path, char *errmsg)
{
    char *text;
    size_t len;
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    rc = rl_gpu_spec_parse(spec, schema, text, len, path, errmsg);
    free(text);
    return rc;
}

/* FP32 lanes per SM: 64 on GV100 and GA100, 128 since GA102 (and on GH100).
 * The mistake this catches: 128 lanes on an A100 doubles its "peak". */
static int fp32_lanes_per_sm(const char *chip)
{
    return strcmp(chip, "GV100") == 0 || strcmp(chip, "GA100") == 0 ? 64 : 128;
}

/* a and b within 1% of b. */
static bool near(double a, double b) { return fabs(a - b) <= 0.01 * fabs(b); }

/* The links agree with themselves and with the datasheet's both-direction
 * figures: count x per link = per direction; 2 x per direction = the
 * datasheet's GPU link (H100 SXM: 18 x 25 = 450, 2 x 450 = 900) and, for a
 * PCIe host link, 2 x PCIe per direction = host link (Gen5 x16: 2 x 64 = 128). */
static int lint_links(const struct rl_gpu_spec *spec, char *errmsg)
{
    const struct rl_gpu_links *l = &spec->links;
    bool has = !isnan(l->gbs);
    if (has != (l->name[0] != '\0') || has != (l->count > 0) || has != !isnan(l->gbs_per_link) ||
        has != (l->reach[0] != '\0'))
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: links: gpu_link, gpu_link_count, gpu_link_gbs_per_link, "
                       "gpu_link_gbs_per_direction and gpu_link_reach are all set or all null",
                       spec->id);
    if (has && !near(l->count * l->gbs_per_link, l->gbs))
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: links: %d links x %g GB/s = %g, not the %g GB/s per direction",
                       spec->id, l->count, l->gbs_per_link, l->count * l->gbs_per_link, l->gbs);
    if (has != !isnan(spec->gpu_link_bandwidth_gbs))
        return rl_fail(errmsg, RL_ESCHEMA, "%s: links.gpu_link_gbs_per_direction and "
                       "gpu_link_bandwidth_gbs are both set or both null", spec->id);
    if (has && !near(2 * l->gbs, spec->gpu_link_bandwidth_gbs))
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: links: 2 x %g GB/s per direction is not the datasheet's %g GB/s "
                       "(both directions): is a both-direction figure quoted per direction?",
                       spec->id, l->gbs, spec->gpu_link_bandwidth_gbs);
    if ((strcmp(l->reach, "bridge") == 0) != (l->bridge_gpus >= 2))
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: links: bridge_gpus is set exactly when gpu_link_reach is 'bridge'",
                       spec->id);
    bool pcie = strncmp(spec->host_link, "PCIe", 4) == 0;
    if (pcie != (l->pcie_gen > 0) || pcie != (l->pcie_lanes > 0) || pcie != !isnan(l->pcie_gbs))
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: links: pcie_gen, pcie_lanes and pcie_gbs_per_direction are set "
                       "exactly when host_link is PCIe ('%s')", spec->id, spec->host_link);
    if (pcie && !near(2 * l->pcie_gbs, spec->host_link_bandwidth_gbs))
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: links: 2 x %g GB/s PCIe per direction is not the datasheet's %g GB/s",
                       spec->id, l->pcie_gbs, spec->host_link_bandwidth_gbs);
    return RL_OK;
}

int rl_gpu_spec_lint(const struct rl_gpu_spec *spec, char *errmsg)
{
    const double *dense = spec->peak_tflops[RL_PEAKS_TENSOR_DENSE];
    const double *sparse = spec->peak_tflops[RL_PEAKS_TENSOR_SPARSE];
    for (int p = 0; p < RL_PREC_COUNT; p++) {
        if (isnan(dense[p]) || isnan(sparse[p]))
            continue;
        double ratio = sparse[p] / dense[p];
        if (fabs(ratio - 2.0) > 0.04)
            return rl_fail(errmsg, RL_ESCHEMA,
                           "%s: %s sparse %.1f is %.2fx dense %.1f, not 2x: "
                           "is a sparse figure quoted as dense?", spec->id,
                           rl_precision_name((enum rl_precision)p), sparse[p],
                           ratio, dense[p]);
    }
    if (!isnan(sparse[RL_PREC_FP64]))
        return rl_fail(errmsg, RL_ESCHEMA, "%s: there is no sparse FP64", spec->id);
    double fp32 = spec->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32];
    if (isnan(fp32))
        return rl_fail(errmsg, RL_ESCHEMA, "%s: no FP32 peak", spec->id);
    double fp32_analytic_tflops = spec->sm_count * fp32_lanes_per_sm(spec->chip) *
                                  2.0 * spec->boost_clock_mhz * 1e-6;
    if (fabs(fp32 / fp32_analytic_tflops - 1.0) > 0.02)
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: FP32 %.1f TFLOP/s but %d SMs x %d lanes x 2 x %.0f MHz "
                       "= %.1f", spec->id, fp32, spec->sm_count,
                       fp32_lanes_per_sm(spec->chip), spec->boost_clock_mhz,
                       fp32_analytic_tflops);
    if (!isnan(dense[RL_PREC_FP16]) && dense[RL_PREC_FP16] < fp32)
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: FP16 Tensor Core %.1f below FP32 CUDA cores %.1f",
                       spec->id, dense[RL_PREC_FP16], fp32);
    if (spec->tensor_clock_mhz > spec->boost_clock_mhz)
        return rl_fail(errmsg, RL_ESCHEMA,
                       "%s: tensor clock %.0f MHz above boost clock %.0f MHz",
                       spec->id, spec->tensor_clock_mhz, spec->boost_clock_mhz);
    return lint_links(spec, errmsg);
}
