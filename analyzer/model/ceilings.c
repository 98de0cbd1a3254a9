/* ceilings.h - the ceilings a chart or a report judges kernels against: datasheet, measured, or both. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/model/ceilings.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Drawn when no precision is asked for, where the GPU has them. FP6 and FP4
 * (Blackwell, CDNA 4) are drawn but never judge a kernel of unknown
 * precision: that stays the fastest of the others (FP8 or BF16). */
static const char *const default_roofs[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8",
                                            "fp6", "fp4", NULL};

static bool narrow_format(const struct rl_compute_roof *r)
{
    return r->precision == RL_PREC_FP4 || r->precision == RL_PREC_FP6;
}

static int push_roof(struct rl_ceilings *c, const struct rl_compute_roof *roof, char *errmsg)
{
    for (size_t i = 0; i < c->n_compute; i++)
        if (strcmp(c->compute[i].name, roof->name) == 0 && c->compute[i].origin == roof->origin)
            return (int)i;
    if (c->n_compute == RL_CEIL_MAX_ROOFS) {
        rl_fail(errmsg, RL_EINVAL, "too many compute roofs (at most %d)", RL_CEIL_MAX_ROOFS);
        return -1;
    }
    c->compute[c->n_compute] = *roof;
    return (int)c->n_compute++;
}

int rl_ceilings_judge(struct rl_ceilings *c, const char *name, char *errmsg)
{
    char err[RL_ERRMSG_SIZE] = "";
    int judge = -1;
    struct rl_compute_roof roof;
    if (c->spec) {
        /* Sparsity only exists on Tensor Cores: CUDA-core roofs stay dense. */
        int rc = rl_roof_from_spec(c->spec, name, c->sparse, &roof, err);
        if (rc == RL_EINVAL && c->sparse)
            rc = rl_roof_from_spec(c->spec, name, false, &roof, err);
        if (rc == RL_OK && (judge = push_roof(c, &roof, errmsg)) < 0)
            return -1;
        if (rc == RL_ENOTFOUND) {
            rl_fail(errmsg, rc, "%s", err);
            return -1;
        }
    }
    char blas[32];
    snprintf(blas, sizeof blas, "%s-blas", name);
    for (size_t i = 0; c->bench && i < c->bench->n_compute; i++) {
        const struct rl_compute_roof *m = &c->bench->compute[i];
        if (c->sparse)
            continue;
        if (strcmp(m->name, name) == 0) {
            if ((judge = push_roof(c, m, errmsg)) < 0)
                return -1;
        } else if (c->library && strcmp(m->name, blas) == 0 && push_roof(c, m, errmsg) < 0) {
            return -1;
        }
    }
    if (judge < 0) {
        if (!err[0])
            snprintf(err, sizeof err, "no ceiling for precision '%s'%s", name,
                     c->bench ? " in the datasheet or the bench file" : "");
        rl_fail(errmsg, RL_EUNSUPPORTED, "%s", err);
    }
    return judge;
}

/* Where a GPU lacks a roof, the one its work runs on instead
 * (rl_ceilings_judge_nearest's chain; a vector roof's next is a vector
 * roof). */
static const char *next_roof(const char *name)
{
    static const char *const chain[][2] = {
        {"tf32", "fp32"},      {"fp16-cuda", "fp32"}, {"bf16-cuda", "fp32"},
        {"fp64-tc", "fp64"},   {"fp64", "fp32"},      {"fp16", "fp32"},
        {"bf16", "fp32"},
        {"fp8", "fp16"},       {"fp6", "fp8"},        {"fp4", "fp8"},
        {"fp16-acc16", "fp16"}, {"fp8-acc16", "fp8"}, {"int8", "fp16"},
    };
    for (size_t i = 0; i < sizeof chain / sizeof *chain; i++)
        if (strcmp(chain[i][0], name) == 0)
            return chain[i][1];
    return NULL;
}

int rl_ceilings_judge_nearest(struct rl_ceilings *c, const char *name, const char **instead,
                              char *errmsg)
{
    *instead = NULL;
    char first[RL_ERRMSG_SIZE] = "";
    /* the chain is acyclic and at most 4 long (fp4 fp8 fp16 fp32) */
    for (const char *n = name; n; n = next_roof(n)) {
        char err[RL_ERRMSG_SIZE];
        int j = rl_ceilings_judge(c, n, err);
        if (j >= 0) {
            *instead = n == name ? NULL : c->compute[j].name;
            if (*instead)
                snprintf(errmsg, RL_ERRMSG_SIZE, "%s", first);
            return j;
        }
        if (!first[0])
            snprintf(first, sizeof first, "%s", err);
    }
    rl_fail(errmsg, RL_EUNSUPPORTED, "%s", first);
    return -1;
}

static int memory_roofs(struct rl_ceilings *c, const char *memory, char *errmsg)
{
    bool want[RL_MEM_COUNT] = {!memory, !memory, !memory};
    if (memory) {
        char *list = rl_strdup(memory), *save = NULL;
        if (!list)
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int level = rl_mem_level_parse(t);
            if (level < 0) {
                rl_fail(errmsg, RL_EINVAL, "unknown memory level '%s' (hbm, l2, l1)", t);
                free(list);
                return RL_EINVAL;
            }
            want[level] = true;
        }
        free(list);
    }
    char err[RL_ERRMSG_SIZE];
    for (int l = 0; l < RL_MEM_COUNT; l++) {
        if (!want[l])
            continue;
        bool have = false;
        if (c->spec &&
            rl_memory_roof_from_spec(c->spec, (enum rl_mem_level)l, &c->memory[c->n_memory],
                                     err) == 0) {
            c->n_memory++;
            have = true;
        }
        for (size_t i = 0; c->bench && i < c->bench->n_memory; i++)
            if (c->bench->memory[i].level == (enum rl_mem_level)l) {
                struct rl_memory_roof *m = &c->memory[c->n_memory++];
                *m = c->bench->memory[i];
                if (l == RL_MEM_DRAM && c->spec)
                    snprintf(m->label, sizeof m->label, "%s", c->spec->memory_type);
                have = true;
            }
        if (!have && memory)
            return rl_fail(errmsg, RL_EUNSUPPORTED, "%s",
                           c->spec ? err : "the bench file has no such memory level");
    }
    return RL_OK;
}

int rl_ceilings_init(struct rl_ceilings *c, const struct rl_gpu_spec *spec,
                     const struct rl_bench_ceilings *bench, const char *precisions, bool sparse,
                     bool library, const char *memory, char *errmsg)
{
    memset(c, 0, sizeof *c);
    c->spec = spec;
    c->bench = bench;
    c->sparse = sparse;
    c->library = library;
    if (!spec && !bench)
        return rl_fail(errmsg, RL_EINVAL, "no datasheet and no bench file: no ceilings");
    snprintf(c->gpu_name, sizeof c->gpu_name, "%s", spec ? spec->name : bench->gpu_name);
    if (spec && spec->links.gbs > 0) {
        snprintf(c->link.label, sizeof c->link.label, "%s", spec->links.name);
        c->link.bandwidth_gbs = spec->links.gbs;
        c->has_link = true;
    } else if (spec && spec->links.pcie_gbs > 0) {
        snprintf(c->link.label, sizeof c->link.label, "PCIe Gen%d x%d", spec->links.pcie_gen,
                 spec->links.pcie_lanes);
        c->link.bandwidth_gbs = spec->links.pcie_gbs;
        c->has_link = true;
    }
    /* the datasheet's, or analytic where the file derives it (per direction) */
    int li = rl_spec_field_index(spec && spec->links.gbs > 0 ? "links.gpu_link_gbs_per_direction"
                                                            : "links.pcie_gbs_per_direction");
    c->link.origin = spec && li >= 0 ? rl_gpu_spec_field_origin(spec, (size_t)li)
                                     : RL_ORIGIN_DATASHEET;
    char err[RL_ERRMSG_SIZE];
    if (precisions) {
        char *list = rl_strdup(precisions), *save = NULL;
        if (!list)
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        int first = -1;
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int j = rl_ceilings_judge(c, t, errmsg);
            if (j < 0) {
                free(list);
                return RL_EUNSUPPORTED;
            }
            if (first < 0)
                first = j;
        }
        free(list);
        c->default_roof = first < 0 ? 0 : (size_t)first;
    } else {
        for (const char *const *n = default_roofs; *n; n++)
            rl_ceilings_judge(c, *n, err); /* a GPU lacking one just lacks it */
        for (size_t i = 1; i < c->n_compute; i++)
            if (!narrow_format(&c->compute[i]) &&
                (narrow_format(&c->compute[c->default_roof]) ||
                 c->compute[i].peak_tflops > c->compute[c->default_roof].peak_tflops))
                c->default_roof = i;
    }
    if (c->n_compute == 0)
        return rl_fail(errmsg, RL_EINVAL, "no compute roof to draw");
    return memory_roofs(c, memory, errmsg);
}

void rl_ceilings_origins(const struct rl_ceilings *c, char *buf, size_t size)
{
    bool o[3] = {false, false, false};
    for (size_t i = 0; i < c->n_compute; i++)
        o[c->compute[i].origin] = true;
    for (size_t i = 0; i < c->n_memory; i++)
        o[c->memory[i].origin] = true;
    snprintf(buf, size, "%s%s%s%s%s", o[RL_ORIGIN_DATASHEET] ? "datasheet" : "",
             o[RL_ORIGIN_DATASHEET] && o[RL_ORIGIN_MEASURED] ? ", " : "",
             o[RL_ORIGIN_MEASURED] ? "measured" : "",
             o[RL_ORIGIN_ANALYTIC] && (o[RL_ORIGIN_DATASHEET] || o[RL_ORIGIN_MEASURED]) ? " and "
                                                                                      : "",
             o[RL_ORIGIN_ANALYTIC] ? "analytic" : "");
}

double rl_ceilings_pct_of_datasheet(const struct rl_ceilings *c, bool memory, size_t i)
{
    if (memory) {
        const struct rl_memory_roof *m = &c->memory[i];
        if (m->origin != RL_ORIGIN_MEASURED)
            return NAN;
        for (size_t k = 0; k < c->n_memory; k++)
            if (c->memory[k].origin == RL_ORIGIN_DATASHEET && c->memory[k].level == m->level &&
                c->memory[k].bandwidth_gbs > 0)
                return 100 * m->bandwidth_gbs / c->memory[k].bandwidth_gbs;
        return NAN;
    }
    const struct rl_compute_roof *r = &c->compute[i];
    if (r->origin != RL_ORIGIN_MEASURED)
        return NAN;
    for (size_t k = 0; k < c->n_compute; k++)
        if (c->compute[k].origin == RL_ORIGIN_DATASHEET && strcmp(c->compute[k].name, r->name) == 0 &&
            c->compute[k].sparse == r->sparse && c->compute[k].peak_tflops > 0)
            return 100 * r->peak_tflops / c->compute[k].peak_tflops;
    return NAN;
}

void rl_ceilings_check(const struct rl_ceilings *c, char *out, size_t size)
{
    size_t used = 0;
    if (size)
        out[0] = 0;
    for (int memory = 0; memory < 2; memory++)
        for (size_t i = 0; i < (memory ? c->n_memory : c->n_compute); i++) {
            double pct = rl_ceilings_pct_of_datasheet(c, memory, i);
            if (!(pct > 100) || used >= size)
                continue;
            used += (size_t)snprintf(
                out + used, size - used,
                "%sthe measured %s ceiling is %.3g%% of the datasheet's: no GPU runs above its "
                "datasheet peak, so the bench file is another GPU's (--gpu), or its clocks, "
                "FLOPs per instruction or units are wrong",
                used ? "\n" : "", memory ? c->memory[i].label : c->compute[i].label, pct);
        }
}
