/* layout.c - one LLM step on a parallel layout: one GPU's operators, the communication each split adds, the pipeline bubble, and what bounds the step.
 *
 * A step runs M microbatches (each ceil(sequences per GPU / M)
 * sequences) through P pipeline stages. One microbatch on one stage takes
 * t = its operators' roofline times (rl_llm_phase_split on the GPU's shard)
 * plus the communication it adds per microbatch (TP all-reduces, the
 * send to the next stage, EP all-to-alls); the pipeline takes (M + P - 1) t
 * (GPipe / 1F1B without interleaving, Narayanan et al. 2021, section
 * 2.2.1), of which (P - 1) t is the bubble: a fraction (P - 1) / (M + P -
 * 1) of the pipeline's time. Training then all-reduces the gradients
 * over DP (once per step, not overlapped with the backward) and runs the
 * optimizer. The step is the sum: compute (the compute-bound operators'
 * time), memory (the memory-bound ones'), communication and bubble; the
 * largest part bounds it.
 *
 * The optimizer step (training): Adam over the parameters whose state the
 * GPU holds (all of its shard, or 1 / dp of it from ZeRO stage 1): it
 * reads the 16-bit gradient (2 B), the FP32 master weight and two moments
 * (12 B), writes those (12 B) and the 16-bit weight (2 B): 28 B and some
 * 10 FP32 operations per parameter, on the FP32 CUDA-core roof.
 */
#include "analyzer/llm/layout.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *rl_llm_bound_name(enum rl_llm_bound b)
{
    static const char *const names[] = {"compute", "memory", "communication", "bubble"};
    return names[b];
}

double rl_llm_bubble_fraction(int pp, int microbatches)
{
    return (pp - 1.0) / (microbatches + pp - 1.0);
}

static const char *phase_name(enum rl_llm_phase p)
{
    return p == RL_LLM_DECODE ? "decode" : p == RL_LLM_PREFILL ? "prefill" : "training";
}

/* "TP 8 decode is bound by ...": the sentence of what bounds the step. */
static void explain(struct rl_llm_step *s, const struct rl_ceilings *c)
{
    const struct rl_llm_layout *l = &s->layout;
    char who[64] = "";
    size_t n = 0;
    const int deg[] = {l->tp, l->pp, l->dp, l->ep};
    const char *const tag[] = {"TP", "PP", "DP", "EP"};
    for (int i = 0; i < 4; i++)
        if (deg[i] > 1)
            n += (size_t)snprintf(who + n, sizeof who - n, "%s%s %d", n ? " x " : "", tag[i],
                                  deg[i]);
    if (!n)
        snprintf(who, sizeof who, "one-GPU");
    const double share = 100 * (s->bound == RL_LLM_BOUND_COMPUTE  ? s->compute_ns
                                : s->bound == RL_LLM_BOUND_MEMORY ? s->memory_ns
                                : s->bound == RL_LLM_BOUND_COMM   ? s->comm_ns
                                                              : s->bubble_ns) /
                         s->time_ns;
    const char *ph = phase_name(s->phase);
    switch (s->bound) {
    case RL_LLM_BOUND_MEMORY:
        snprintf(s->why, sizeof s->why,
                 "%s %s is bound by memory bandwidth: %.0f%% of the step is memory-bound "
                 "operators (weights%s read at the HBM roof)",
                 who, ph, share, s->phase == RL_LLM_DECODE ? " and KV cache" : "");
        break;
    case RL_LLM_BOUND_COMPUTE:
        snprintf(s->why, sizeof s->why,
                 "%s %s is bound by compute: %.0f%% of the step is compute-bound operators "
                 "(%s)",
                 who, ph, share, c->gpu_name);
        break;
    case RL_LLM_BOUND_COMM: {
        const struct rl_llm_comm *top = NULL;
        for (int i = 0; i < s->n_comm; i++)
            if (!top || s->comm[i].calls * s->comm[i].time_us > top->calls * top->time_us)
                top = &s->comm[i];
        snprintf(s->why, sizeof s->why, "%s %s is bound by %s: %.0f%% of the step is %s", who,
                 ph, top ? top->link : "the interconnect", share,
                 top ? top->name : "communication");
        break;
    }
    case RL_LLM_BOUND_BUBBLE:
        snprintf(s->why, sizeof s->why,
                 "%s %s is bound by the pipeline bubble: %.0f%% of the step the stages wait "
                 "((P - 1) / (M + P - 1) with P %d, M %d)",
                 who, ph, share, l->pp, l->microbatches);
        break;
    }
}

int rl_llm_step(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                const struct rl_llm_layout *lay, enum rl_llm_phase phase, int batch, int seq,
                struct rl_ceilings *c, struct rl_llm_step *s, char *errmsg)
{
    memset(s, 0, sizeof *s);
    s->phase = phase;
    s->layout = *lay;
    s->batch = batch;
    s->seq = seq;
    const int M = lay->microbatches < 1 ? 1 : lay->microbatches, P = lay->pp;
    s->layout.microbatches = M;
    const int share = lay->dp * lay->ep;
    const int per_gpu = (batch + share - 1) / share, micro = (per_gpu + M - 1) / M;
    const struct rl_llm_split sp = rl_llm_layout_split(lay);
    rl_llm_phase_split(m, cfg, &sp, phase, micro, seq, &s->micro);
    int rc = rl_llm_evaluate(&s->micro, c, errmsg);
    if (rc)
        return rc;
    double compute = 0, memory = 0;
    for (int i = 0; i < s->micro.n_ops; i++) {
        const struct rl_llm_op *o = &s->micro.ops[i];
        *(o->memory_bound ? &memory : &compute) += o->count * o->time_ns;
    }
    double comm_micro = 0, comm_once = 0;
    for (int i = 0; i < s->n_comm; i++) /* per microbatch unless once per step */
        comm_micro += s->comm[i].calls * s->comm[i].time_us * 1e3;
    const double t_micro = compute + memory + comm_micro;
    s->compute_ns = M * compute;
    s->memory_ns = M * memory;
    s->comm_ns = M * comm_micro + comm_once;
    s->bubble_ns = (P - 1) * t_micro;
    s->bubble_fraction = rl_llm_bubble_fraction(P, M);
    s->flops_per_gpu = M * s->micro.flops;
    if (phase == RL_LLM_TRAIN) {
        struct rl_llm_phase_cost opt;
        memset(&opt, 0, sizeof opt);
        struct rl_llm_op *o = &opt.ops[opt.n_ops++];
        snprintf(o->name, sizeof o->name, "optimizer");
        o->count = 1;
        o->roof = "fp32";
        const double params = rl_llm_params_per_gpu(m, &sp) / (lay->zero >= 1 ? lay->dp : 1);
        o->flops = 10 * params;
        o->weight_bytes = 28 * params;
        if ((rc = rl_llm_evaluate(&opt, c, errmsg)))
            return rc;
        s->optimizer = *o;
        *(o->memory_bound ? &s->memory_ns : &s->compute_ns) += o->time_ns;
        s->flops_per_gpu += o->flops;
    }
    s->time_ns = s->compute_ns + s->memory_ns + s->comm_ns + s->bubble_ns;
    s->tokens = phase == RL_LLM_DECODE ? batch : (double)batch * seq;
    const double parts[] = {s->compute_ns, s->memory_ns, s->comm_ns, s->bubble_ns};
    s->bound = RL_LLM_BOUND_COMPUTE;
    for (int i = 1; i < 4; i++)
        if (parts[i] > parts[s->bound])
            s->bound = (enum rl_llm_bound)i;
    explain(s, c);
    return RL_OK;
}
