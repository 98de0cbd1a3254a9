/* memory.c - LLM memory per GPU: weights, KV cache, activations, gradients and optimizer states of a parallel layout (ZeRO for training), against the GPU's memory less a reserve.
 *
 * Capacity. The datasheet's memory in GB of 1e9 bytes (an H100 SXM's
 * "80 GB"). What the driver shows is a little more (nvidia-smi: 81,559 MiB
 * = 85.5e9 B on an H100 SXM), so 1e9 is the conservative reading. Less a
 * reserve: 1 GB fixed for the CUDA context (some 0.3-0.5 GB), cuBLAS and
 * NCCL workspaces and buffers, and 5% of the memory for the caching
 * allocator's fragmentation (vLLM's default gpu_memory_utilization of 0.9
 * keeps 10% back, some of it for the same reasons): 80 GB keeps 5 GB back,
 * 141 GB 8.05 GB, 192 GB 10.6 GB.
 *
 * Inference: weights (the GPU's shard: rl_llm_params_per_gpu, linear
 * weights in the weight format, the rest 16-bit), the KV cache of its
 * sequences (ceil(batch / (dp ep)); layers of its stage; its KV heads; a
 * sliding window keeps the last W tokens), and the activations live at the
 * largest operator: the residual stream T H ab (kept across the layer)
 * plus that operator's inputs and outputs (its act_bytes: each read and
 * written once; a residual add, x + y into x, 3 T H ab with the stream
 * among them), for the decode step of one microbatch and for the
 * prefill of one sequence of seq tokens, whichever is larger (a server
 * prefills a request beside the decode batch). Attention is a fused kernel:
 * the scores stay on chip.
 *
 * Training: model states as ZeRO counts them (rl_llm_zero_states) for the
 * GPU's parameters, and the activations the backward keeps (Korthikanti et
 * al. 2022, "Reducing Activation Recomputation in Large Transformer
 * Models", section 4.1 and Table 2), per layer for a microbatch of b
 * sequences of s tokens, h hidden, a heads, t = tp, 16-bit activations
 * and 1-byte dropout masks (Table 2):
 *     no recomputation    s b h (10 + 24 / t + 5 a s / (h t))
 *                         (t = 1: s b h (34 + 5 a s / h))
 *       with sequence parallelism  s b h (34 + 5 a s / h) / t
 *     selective           s b h (10 + 24 / t); with sequence parallelism
 *                         34 s b h / t
 *     full recomputation  2 s b h (each layer's input), and one layer's
 *                         full set while its backward runs
 * The interleaved schedule of v model chunks per stage keeps (1 + (p - 1)
 * / (p v)) times as much on the first stage (Korthikanti et al. section
 * 4.2.3: the first stage starts p (1 + (p - 1) / (p v)) microbatches'
 * chunks before its first backward).
 * The paper counts a GPT layer (4h GELU MLP, one K and V per head); this
 * takes its formula as is for every model. The pipeline's first stage
 * keeps the activations of min(pp, M) microbatches in flight (1F1B,
 * Narayanan et al. 2021, section 2.2.1) for its ceil(L / pp) layers.
 * Embedding, loss and LM-head activations are left out (the paper: small
 * beside the layers' for these widths).
 */
#include "analyzer/llm/memory.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <string.h>

void rl_llm_capacity_of(struct rl_llm_capacity *c, double memory_size_gb)
{
    c->gpu_memory_bytes = memory_size_gb * 1e9;
    c->reserve_bytes = RL_LLM_RESERVE_FIXED_BYTES + RL_LLM_RESERVE_FRACTION * c->gpu_memory_bytes;
    c->usable_bytes = fmax(0, c->gpu_memory_bytes - c->reserve_bytes);
}

void rl_llm_zero_states(double params, int dp, int stage, double *w, double *g, double *o)
{
    const double n = dp < 1 ? 1 : dp;
    *w = RL_ZERO_PARAM_BYTES * params / (stage >= 3 ? n : 1);
    *g = RL_ZERO_GRAD_BYTES * params / (stage >= 2 ? n : 1);
    *o = RL_ZERO_OPTIMIZER_BYTES * params / (stage >= 1 ? n : 1);
}

/* Embedding and LM head on the GPU: both without a pipeline (one when
 * tied), else the last stage's LM head (the first stage's embedding is
 * as large) and final norm. */
static double vocab_params_per_gpu(const struct rl_llm_model *m, const struct rl_llm_split *sp)
{
    const double VH = (double)m->vocab / sp->tp * m->hidden;
    return (sp->pp == 1 ? VH * (m->tied ? 1 : 2) : VH) + m->hidden;
}

static int stage_layers(const struct rl_llm_model *m, int pp) { return (m->layers + pp - 1) / pp; }

double rl_llm_params_per_gpu(const struct rl_llm_model *m, const struct rl_llm_split *sp)
{
    if (!rl_llm_model_has_shape(m))
        return m->given_params / ((double)sp->tp * sp->pp);
    double linear, expert, other;
    rl_llm_stage_params(m, sp, &linear, &expert, &other);
    return linear + expert + other + vocab_params_per_gpu(m, sp);
}

/* Of a model with a shape: rl_llm_memory_per_gpu() counts a parameter
 * count alone by its model states (rl_llm_zero_states) instead. */
static double weights_bytes_per_gpu(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                                    const struct rl_llm_split *sp)
{
    double linear, expert, other;
    rl_llm_stage_params(m, sp, &linear, &expert, &other);
    return linear * rl_llm_linear_weight_bytes(cfg, false) +
           expert * rl_llm_linear_weight_bytes(cfg, true) + other * 2 +
           2 * vocab_params_per_gpu(m, sp);
}

/* The residual stream plus the largest other operator's inputs and
 * outputs; a residual add's own (x + y into x: 3 T H ab, one of the two
 * of residual_add) hold the stream already. */
static double live_activations(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                               const struct rl_llm_split *sp, enum rl_llm_phase phase,
                               int batch, int seq)
{
    static struct rl_llm_phase_cost p;
    rl_llm_phase_split(m, cfg, sp, phase, batch, seq, &p);
    const double T = phase == RL_LLM_DECODE ? batch : (double)batch * seq;
    const double stream = T * m->hidden * rl_llm_act_bytes(cfg->precision);
    double live = 0;
    for (int i = 0; i < p.n_ops; i++) {
        const struct rl_llm_op *o = &p.ops[i];
        live = fmax(live, strcmp(o->name, "residual_add") == 0 ? o->act_bytes / 2
                                                               : stream + o->act_bytes);
    }
    return live;
}

/* Korthikanti et al. 2022 per layer, bytes (see the top of the file):
 * what the backward keeps of one layer without full recomputation. */
static double layer_activations(const struct rl_llm_model *m, const struct rl_llm_layout *l,
                                double b, double s)
{
    const double h = m->hidden, a = m->heads, t = l->tp;
    const double attn_core = l->recompute == RL_LLM_RECOMPUTE_SELECTIVE ? 0 : 5 * a * s / (h * t);
    const double rest = l->seq_parallel ? 34 / t : 10 + 24 / t;
    return s * b * h * (rest + attn_core);
}

void rl_llm_memory_per_gpu(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                           const struct rl_llm_layout *lay, int batch, int seq,
                           struct rl_llm_memory *out)
{
    memset(out, 0, sizeof *out);
    const struct rl_llm_split sp = rl_llm_layout_split(lay);
    const int share = lay->dp * lay->ep;
    out->sequences = (batch + share - 1) / share;
    /* No more microbatches than the GPU has sequences. */
    const int mb = lay->microbatches < 1 ? 1 : lay->microbatches < out->sequences
                                                    ? lay->microbatches
                                                    : out->sequences;
    out->microbatch = (out->sequences + mb - 1) / mb;
    out->params = rl_llm_params_per_gpu(m, &sp);
    out->activations_counted = rl_llm_model_has_shape(m);
    if (lay->train || !rl_llm_model_has_shape(m)) {
        /* A parameter count alone: its model states, as ZeRO counts them. */
        rl_llm_zero_states(out->params, lay->dp, lay->zero, &out->weights_bytes,
                           &out->gradients_bytes, &out->optimizer_bytes);
        if (rl_llm_model_has_shape(m) && out->microbatch > 0) {
            const int L = stage_layers(m, lay->pp);
            const int v = lay->virtual_stages > 1 ? lay->virtual_stages : 1;
            const double in_flight = (mb < lay->pp ? mb : lay->pp) *
                                     (v > 1 ? 1 + (lay->pp - 1.0) / ((double)lay->pp * v) : 1);
            const double b = out->microbatch, s = seq;
            const double kept = layer_activations(m, lay, b, s);
            if (lay->recompute == RL_LLM_RECOMPUTE_FULL) {
                struct rl_llm_layout none = *lay;
                none.recompute = RL_LLM_RECOMPUTE_NONE;
                out->activations_bytes = in_flight * L * 2 * s * b * m->hidden +
                                         layer_activations(m, &none, b, s);
            } else {
                out->activations_bytes = in_flight * L * kept;
            }
        }
    } else {
        out->weights_bytes = weights_bytes_per_gpu(m, cfg, &sp);
        const double kv_per_seq = rl_llm_kv_bytes_per_sequence(m, cfg, seq) *
                                  rl_llm_kv_share_per_gpu(m, lay->tp) *
                                  stage_layers(m, lay->pp) / m->layers;
        out->kv_cache_bytes = kv_per_seq * out->sequences;
        double decode = out->microbatch > 0
                            ? live_activations(m, cfg, &sp, RL_LLM_DECODE, out->microbatch, seq)
                            : 0;
        double prefill = live_activations(m, cfg, &sp, RL_LLM_PREFILL, 1, seq);
        out->activations_bytes = fmax(decode, prefill);
    }
    out->model_state_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes;
    out->total_bytes = out->model_state_bytes + out->kv_cache_bytes + out->activations_bytes;
}

static bool fits_at(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                    const struct rl_llm_layout *lay, int batch, int seq,
                    const struct rl_llm_capacity *c)
{
    struct rl_llm_memory mem;
    rl_llm_memory_per_gpu(m, cfg, lay, batch, seq, &mem);
    return rl_llm_fits(&mem, c);
}

int rl_llm_max_batch(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                     const struct rl_llm_layout *lay, int seq, const struct rl_llm_capacity *c,
                     int limit)
{
    if (limit < 1 || !fits_at(m, cfg, lay, 1, seq, c))
        return 0;
    if (fits_at(m, cfg, lay, limit, seq, c))
        return limit;
    int lo = 1, hi = limit; /* memory grows with the batch: fits at lo, not at hi */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (fits_at(m, cfg, lay, mid, seq, c))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Whether layout l (tp, pp, dp, ep set) is one the model splits into and
 * whose memory fits. */
static bool holds(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                  const struct rl_llm_layout *l, int batch, int seq,
                  const struct rl_llm_capacity *c)
{
    const struct rl_llm_split sp = rl_llm_layout_split(l);
    char err[RL_ERRMSG_SIZE];
    return rl_llm_split_check(m, &sp, err) == 0 && fits_at(m, cfg, l, batch, seq, c);
}

int rl_llm_min_gpus(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                    const struct rl_llm_layout *lay, int batch, int seq,
                    const struct rl_llm_capacity *c, int max_tp, int max_gpus,
                    struct rl_llm_layout *found)
{
    /* ZeRO partitions the model states over DP: there, more replicas hold
     * it too, so DP is searched as well (at the fewest stages first). */
    const bool dp_free = lay->train && lay->zero >= 1;
    const int step = dp_free ? lay->ep : lay->ep * lay->dp;
    for (int n = step; n <= max_gpus; n += step) {
        const int replica = n / lay->ep; /* tp x pp x dp */
        for (int tp = replica < max_tp ? replica : max_tp; tp >= 1; tp--) {
            if (replica % tp)
                continue;
            const int rest = replica / tp; /* pp x dp */
            struct rl_llm_layout l = *lay;
            l.tp = tp;
            for (int pp = 1; pp <= rest && (!rl_llm_model_has_shape(m) || pp <= m->layers);
                 pp++) {
                if (rest % pp || (!dp_free && rest / pp != lay->dp))
                    continue;
                l.pp = pp;
                l.dp = rest / pp;
                if (holds(m, cfg, &l, batch, seq, c)) {
                    if (found)
                        *found = l;
                    return n;
                }
            }
        }
    }
    return 0;
}
