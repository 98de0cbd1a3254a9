/*
 * llm-step.c - the headline of a profiled LLM step. With the model known,
 * the step's operators fall into what an LLM step is made of: the fused
 * MoE (expert weights), attention and the KV-cache writes (the KV cache),
 * the dense linear layers (weights), collectives (the link) and the rest
 * (activations). The sentence names the bound holding most of the GPU
 * time and, for the memory-bound part, what it reads and how near the
 * DRAM roof it runs: its DRAM bytes over its time against the roof.
 */
#include "analyzer/report/llm-step.h"

#include "analyzer/report/report.h"
#include "analyzer/report/step.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A share in percent, for "%.*g%%": two significant digits, three from
 * 99.5 up so that a whole share reads "100", not "1e+02". */
#define PCT(p) (fabs(p) >= 99.5 ? 3 : 2), (p)

enum part { P_MOE, P_KV, P_LINEAR, P_OTHER, P_PARTS };

static const char *const part_words[P_PARTS] = {"expert weights", "the KV cache",
                                                "dense weights", "activations"};
static const char *const compute_words[P_PARTS] = {"the expert GEMMs", "attention",
                                                   "the dense GEMMs", "the rest"};

/* "a (x%), b (y%)": the parts of ns[] largest first, shares of total. */
static void parts_text(char *what, size_t size, double *ns, const char *const *words,
                       double total)
{
    size_t at = 0;
    what[0] = 0;
    for (int p = 0; p < P_PARTS && at < size; p++) {
        int best = -1;
        for (int q = 0; q < P_PARTS; q++)
            if (ns[q] > 0 && (best < 0 || ns[q] > ns[best]))
                best = q;
        if (best < 0)
            break;
        int n = snprintf(what + at, size - at, "%s%s (%.*g%%)", at ? ", " : "", words[best],
                         PCT(100 * ns[best] / total));
        at = n < 0 ? size : at + (size_t)n;
        ns[best] = 0;
    }
}

/* What a row moves: by its operator, or for a kernel replayed from a
 * graph (no operator) by its name. */
static enum part part_of_row(const struct rl_report_row *w)
{
    const char *op = w->op;
    const char *replay = op ? strstr(op, "graph replay)") : NULL;
    if (replay) { /* "(CUDA graph replay) aten::mm", "(HIP graph replay) fused MoE" */
        op = replay + 13;
        while (*op == ' ')
            op++;
    }
    if (replay && !*op && w->name) {
        const char *k = w->name;
        if (strstr(k, "moe") || strstr(k, "matmul_ogs") || strstr(k, "MxE2m1") ||
            strstr(k, "_routing_") || strstr(k, "_finalize_matmul"))
            return P_MOE;
        if (strstr(k, "attention") || strstr(k, "fmha") || strstr(k, "cache"))
            return P_KV;
        return P_OTHER;
    }
    if (!op)
        return P_OTHER;
    if (strstr(op, "moe") || strstr(op, "MoE") || strstr(op, "experts"))
        return P_MOE;
    if (strstr(op, "attention") || strstr(op, "cache") || strstr(op, "attn"))
        return P_KV;
    if (strstr(op, "addmm") || strstr(op, "::mm") || strstr(op, "linear") ||
        strstr(op, "matmul") || strstr(op, "gemm") || strstr(op, "scaled_mm"))
        return P_LINEAR;
    return P_OTHER;
}

static bool memory_bound(const struct rl_report_row *w)
{
    if (w->comm)
        return false;
    if (w->memory_only)
        return !isnan(w->achieved_gbs);
    return w->bound == RL_BOUND_MEMORY;
}

/* The tokens a forward: the first dimension of a fused MoE's shapes. */
static double tokens_of(const struct rl_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        if (part_of_row(w) == P_MOE && w->shapes && w->shapes[0] >= '0' && w->shapes[0] <= '9')
            return strtod(w->shapes, NULL);
    }
    return NAN;
}

int rl_report_llm_headline(struct rl_report *r, const struct rl_ceilings *c,
                           const struct rl_llm_model *m, const struct rl_report_llm_layout *lay,
                           char *errmsg)
{
    struct rl_report_step *s = r->step;
    if (!s)
        return rl_fail(errmsg, RL_EINVAL, "no step to put a headline on");
    int ep = lay->ep > 0 ? lay->ep : 1;
    int tp = lay->tp > 0 ? lay->tp : lay->world_size > 0 ? lay->world_size / ep : 1;
    char note[768];
    snprintf(note, sizeof note,
             "serving operators costed from the model %s (readers/TORCH-OPS.md, \"LLM serving "
             "operators\"): one rank of tp %d x ep %d (%s), each holding %d of every expert's "
             "%d columns and %d of its %d experts; expert weights in the bytes config.json's "
             "quantization_config stores, else the GEMM kernel's name says (MXFP4: 17/32 a "
             "weight), else the activations'; attention stays "
             "unknown (the context lengths are not among its inputs)",
             m->id, tp < 1 ? 1 : tp, ep,
             lay->tp > 0 || lay->ep > 0 ? "--tp / --ep"
             : lay->world_size > 0     ? "tp the trace's world size (distributedInfo), ep 1: "
                                         "--tp / --ep to change"
                                       : "one GPU: no distributedInfo",
             m->ffn / (tp < 1 ? 1 : tp), m->ffn, m->experts / ep, m->experts);
    rl_report_note(r, note);
    double total = s->gpu_time_ns;
    if (!(total > 0))
        return RL_OK;
    double part_ns[P_PARTS] = {0}, mem_ns = 0, mem_bytes = 0;
    double cpart_ns[P_PARTS] = {0}, comp_ns = 0, comp_roof_ns = 0; /* compute-bound rows */
    for (size_t i = 0; i < r->n; i++) {
        const struct rl_report_row *w = &r->rows[i];
        if (!w->comm && w->bound == RL_BOUND_COMPUTE && w->time_ns > 0 &&
            w->roof_time_ns >= 0) {
            cpart_ns[part_of_row(w)] += w->time_ns;
            comp_ns += w->time_ns;
            comp_roof_ns += w->roof_time_ns;
        }
        if (!memory_bound(w) || !(w->time_ns > 0) || !(w->bytes[RL_MEM_DRAM] >= 0))
            continue;
        part_ns[part_of_row(w)] += w->time_ns;
        mem_ns += w->time_ns;
        mem_bytes += w->bytes[RL_MEM_DRAM];
    }
    double dram_gbs = NAN;
    const char *dram = "DRAM";
    for (size_t i = 0; i < c->n_memory; i++)
        if (c->memory[i].level == RL_MEM_DRAM) {
            dram_gbs = c->memory[i].bandwidth_gbs;
            dram = c->memory[i].label;
        }
    /* the bound that holds the most time; unknown only when it holds more */
    static const enum rl_step_bucket known[] = {RL_STEP_MEMORY, RL_STEP_COMPUTE, RL_STEP_LINK,
                                                RL_STEP_NEITHER};
    enum rl_step_bucket top = RL_STEP_MEMORY;
    for (size_t i = 1; i < sizeof known / sizeof *known; i++)
        if (s->bucket_ns[known[i]] > s->bucket_ns[top])
            top = known[i];
    char head[700], what[200];
    parts_text(what, sizeof what, part_ns, part_words, total);
    double tokens = tokens_of(r);
    char who[160];
    if (tokens > 0)
        snprintf(who, sizeof who, "%s step, %.0f tokens a forward", m->id, tokens);
    else
        snprintf(who, sizeof who, "%s step", m->id);
    double unknown = 100 * s->bucket_ns[RL_STEP_UNKNOWN] / total;
    if (s->bucket_ns[RL_STEP_UNKNOWN] > s->bucket_ns[top]) {
        snprintf(head, sizeof head, "%s: %.*g%% of the GPU time has no FLOPs or bytes known, "
                                    "more than any bound holds",
                 who, PCT(unknown));
    } else if (top == RL_STEP_MEMORY && mem_ns > 0) {
        double gbs = mem_bytes / mem_ns; /* bytes per ns = GB/s */
        snprintf(head, sizeof head,
                 "%s: memory-bound: %.*g%% of GPU time moves %s at %.*g%% of the %s roof "
                 "(%.3g of %.3g TB/s)",
                 who, PCT(100 * mem_ns / total), what, PCT(100 * gbs / dram_gbs), dram, gbs / 1e3,
                 dram_gbs / 1e3);
    } else if (top == RL_STEP_COMPUTE && comp_ns > 0) {
        /* each row's FLOPs at its own roof: the time they would take there
         * over the time they took */
        parts_text(what, sizeof what, cpart_ns, compute_words, total);
        snprintf(head, sizeof head,
                 "%s: compute-bound: %.*g%% of GPU time in %s, at %.*g%% of their roofs", who,
                 PCT(100 * comp_ns / total), what, PCT(100 * comp_roof_ns / comp_ns));
    } else {
        snprintf(head, sizeof head, "%s: %s-bound: %.*g%% of GPU time", who,
                 rl_step_bucket_name(top), PCT(100 * s->bucket_ns[top] / total));
    }
    char tail[160] = "";
    if (unknown >= 0.5 && s->bucket_ns[RL_STEP_UNKNOWN] <= s->bucket_ns[top])
        snprintf(tail, sizeof tail, "; %.*g%% unknown", PCT(unknown));
    char old[sizeof s->headline];
    snprintf(old, sizeof old, "%s", s->headline);
    int n = snprintf(s->headline, sizeof s->headline, "%.450s%.100s\n%s", head, tail, old);
    if (n < 0 || (size_t)n >= sizeof s->headline)
        snprintf(s->headline, sizeof s->headline, "%.450s%.100s", head, tail);
    return RL_OK;
}
