/* params.c - an LLM's parameters, weight bytes and KV cache per token: every layer kind (dense, MoE with shared experts, MLA, sliding window) counted from the shape.
 *
 * Notation: H hidden, V vocab, nh heads, nkv KV heads, d head dim, F the
 * MLP width of a routed expert (ffn), Fd of a dense layer (dense_ffn or F),
 * Fs of the shared experts together (shared_ffn), E experts, k per token;
 * g = 3 matrices for a gated MLP (gate, up, down), else 2. MLA: qr
 * q_lora_rank, kvr kv_lora_rank, dn qk_nope, dr qk_rope, dv v_head_dim.
 * One layer holds (per GPU of TP t: heads, MLP columns and each expert's
 * columns divided by t; MLA's down-projections q_a and kv_a whole):
 *   attention   H (nh + 2 nkv) d + nh d H                   (q, k, v, o)
 *        MLA    H qr + qr nh (dn + dr)   (q_a, q_b; qr 0: H nh (dn + dr))
 *             + H (kvr + dr) + kvr nh (dn + dv) + nh dv H   (kv_a, kv_b, o)
 *   dense MLP   g H Fd
 *   MoE         E g H F + g H Fs + H E                 (experts, shared, router;
 *               Qwen2-MoE gates its shared experts with H more)
 *   16-bit rest norms_per_layer H, MLA's q_a / kv_a norms (qr + kvr), biases
 *               (q, k, v: (nh + 2 nkv) d; o: H; each expert's MLP: (g - 1) F
 *               + H; router E), sinks nh, q/k norms 2 d
 * and the model V H (embedding) + V H (LM head, unless tied) + H (final
 * norm). A token uses all of it but the embedding table (one row read) and
 * the E - k experts it does not pick in each MoE layer.
 */
#include "analyzer/llm/llm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool mask_bit(const unsigned char *mask, int i)
{
    return i >= 0 && i < RL_LLM_MAX_LAYERS && (mask[i / 8] >> (i % 8) & 1);
}

bool rl_llm_layer_is_moe(const struct rl_llm_model *m, int i)
{
    return m->experts > 1 && i >= 0 && i < m->layers && !mask_bit(m->dense_mask, i);
}

bool rl_llm_layer_is_sliding(const struct rl_llm_model *m, int i)
{
    return m->sliding_window > 0 && i >= 0 && i < m->layers && !mask_bit(m->full_mask, i);
}

int rl_llm_layer_ffn(const struct rl_llm_model *m, int i)
{
    return rl_llm_layer_is_moe(m, i) || m->dense_ffn == 0 ? m->ffn : m->dense_ffn;
}

/* Layers whose mask bit is clear, of those counted by the mask (a model
 * of more than RL_LLM_MAX_LAYERS layers has the rest clear). */
static int clear_bits(const unsigned char *mask, int layers)
{
    int n = layers;
    for (int i = 0; i < layers && i < RL_LLM_MAX_LAYERS; i++)
        n -= mask_bit(mask, i);
    return n;
}

int rl_llm_moe_layers(const struct rl_llm_model *m)
{
    return m->experts > 1 ? clear_bits(m->dense_mask, m->layers) : 0;
}

int rl_llm_sliding_layers(const struct rl_llm_model *m)
{
    return m->sliding_window > 0 ? clear_bits(m->full_mask, m->layers) : 0;
}

double rl_llm_expected_experts(double E, double k, double tokens)
{
    return E <= 1 ? 1 : E * (1 - pow(1 - k / E, tokens));
}

/* ---- one layer ---------------------------------------------------------------- */

/* The parts of one layer on one GPU (TP t, EP ep). */
struct layer_parts {
    double attn_linear, attn_other;      /* every layer */
    double dense_linear, dense_other;    /* a dense MLP */
    double expert_linear, expert_other;  /* the routed experts on the GPU */
    double moe_linear, moe_other;        /* shared experts; router */
};

static void layer_parts(const struct rl_llm_model *m, int tp, int ep, struct layer_parts *p)
{
    const double t = tp, H = m->hidden, d = m->head_dim, nh = m->heads / t;
    const double nkv = rl_llm_kv_heads_per_gpu(m, tp), g = m->gated ? 3 : 2;
    const double F = m->ffn / t, Fd = (m->dense_ffn ? m->dense_ffn : m->ffn) / t;
    const double Fs = m->shared_ffn / t, E = m->experts;
    memset(p, 0, sizeof *p);
    if (rl_llm_is_mla(m)) {
        const double qr = m->q_lora_rank, kvr = m->kv_lora_rank, dn = m->qk_nope_dim;
        const double dr = m->qk_rope_dim, dv = m->v_head_dim;
        p->attn_linear = (qr > 0 ? H * qr + qr * nh * (dn + dr) : H * nh * (dn + dr)) +
                         H * (kvr + dr) + kvr * nh * (dn + dv) + nh * dv * H;
        p->attn_other = qr + kvr;
    } else {
        p->attn_linear = H * (nh + 2 * nkv) * d + nh * d * H;
        p->attn_other = (m->qkv_bias ? (nh + 2 * nkv) * d : 0);
    }
    p->attn_other += (m->norms_per_layer ? m->norms_per_layer : 2) * H + (m->o_bias ? H : 0) +
                     (m->qk_norm ? 2 * d : 0) + (m->attn_sinks ? nh : 0);
    p->dense_linear = g * H * Fd;
    p->dense_other = m->mlp_bias ? (g - 1) * Fd + H : 0;
    p->expert_linear = E / ep * g * H * F;
    p->expert_other = m->mlp_bias ? E / ep * ((g - 1) * F + H) : 0;
    p->moe_linear = g * H * Fs;
    p->moe_other = H * E + (m->router_bias ? E : 0) + (m->shared_gate ? H : 0);
}

/* Layers of the largest pipeline stage: ceil(layers / pp), of which
 * ceil(moe / pp) with experts (at most all). */
static void stage_layers(const struct rl_llm_model *m, int pp, int *L, int *moe)
{
    *L = (m->layers + pp - 1) / pp;
    const int n = (rl_llm_moe_layers(m) + pp - 1) / pp;
    *moe = n < *L ? n : *L;
}

void rl_llm_stage_params(const struct rl_llm_model *m, const struct rl_llm_split *sp,
                         double *linear, double *expert, double *other)
{
    struct layer_parts p;
    int L, moe;
    layer_parts(m, sp->tp, sp->ep, &p);
    stage_layers(m, sp->pp, &L, &moe);
    const double dense = (double)L - moe;
    if (m->experts > 1) {
        *linear = L * p.attn_linear + dense * p.dense_linear + moe * p.moe_linear;
        *expert = moe * p.expert_linear;
        *other = L * p.attn_other + dense * p.dense_other + moe * (p.expert_other + p.moe_other);
    } else { /* a dense model's MLP is its only one */
        *linear = L * (p.attn_linear + p.dense_linear);
        *expert = 0;
        *other = L * (p.attn_other + p.dense_other);
    }
}

/* ---- the model ----------------------------------------------------------------- */

static double vocab_params(const struct rl_llm_model *m)
{
    return (double)m->vocab * m->hidden * (m->tied ? 1 : 2) + m->hidden;
}

void rl_llm_model_of_params(struct rl_llm_model *m, double params)
{
    memset(m, 0, sizeof *m);
    snprintf(m->id, sizeof m->id, "params");
    snprintf(m->name, sizeof m->name, "a model of %.4g B parameters", params / 1e9);
    m->given_params = params;
}

static const struct rl_llm_split one = {.tp = 1, .pp = 1, .ep = 1};

double rl_llm_params(const struct rl_llm_model *m)
{
    if (!rl_llm_model_has_shape(m))
        return m->given_params;
    double linear, expert, other;
    rl_llm_stage_params(m, &one, &linear, &expert, &other);
    return linear + expert + other + vocab_params(m);
}

double rl_llm_active_params(const struct rl_llm_model *m)
{
    if (!rl_llm_model_has_shape(m))
        return m->given_params;
    struct layer_parts p;
    layer_parts(m, 1, 1, &p);
    const double unpicked = m->experts > 1 ? (double)(m->experts - m->experts_per_token) /
                                                 m->experts * (p.expert_linear + p.expert_other)
                                           : 0;
    const double embedding = m->tied ? 0 : (double)m->vocab * m->hidden;
    return rl_llm_params(m) - embedding - rl_llm_moe_layers(m) * unpicked;
}

double rl_llm_mtp_params(const struct rl_llm_model *m)
{
    if (m->mtp_layers < 1 || !rl_llm_model_has_shape(m))
        return 0;
    struct layer_parts p;
    layer_parts(m, 1, 1, &p);
    const double H = m->hidden;
    const double layer = p.attn_linear + p.attn_other +
                         (m->experts > 1 ? p.expert_linear + p.expert_other + p.moe_linear +
                                               p.moe_other
                                         : p.dense_linear + p.dense_other);
    /* enorm, hnorm and the shared head's norm: 3 H; eh_proj 2H -> H. */
    return m->mtp_layers * (layer + 2 * H * H + 3 * H);
}

/* ---- bytes ------------------------------------------------------------------------ */

double rl_llm_weights_bytes(const struct rl_llm_model *m, const struct rl_llm_config *cfg)
{
    if (!rl_llm_model_has_shape(m))
        return m->given_params * rl_llm_linear_weight_bytes(cfg, true);
    double linear, expert, other;
    rl_llm_stage_params(m, &one, &linear, &expert, &other);
    return linear * rl_llm_linear_weight_bytes(cfg, false) +
           expert * rl_llm_linear_weight_bytes(cfg, true) + 2 * (other + vocab_params(m));
}

double rl_llm_kv_bytes_per_token_layer(const struct rl_llm_model *m,
                                       const struct rl_llm_config *cfg)
{
    const double values = rl_llm_is_mla(m) ? (double)m->kv_lora_rank + m->qk_rope_dim
                                           : 2.0 * m->kv_heads * m->head_dim;
    return values * rl_llm_kv_bytes(cfg->kv);
}

double rl_llm_kv_bytes_per_token(const struct rl_llm_model *m, const struct rl_llm_config *cfg)
{
    return m->layers * rl_llm_kv_bytes_per_token_layer(m, cfg);
}

double rl_llm_kv_bytes_per_sequence(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                                    int seq)
{
    const double sliding = rl_llm_sliding_layers(m), full = m->layers - sliding;
    return rl_llm_kv_bytes_per_token_layer(m, cfg) *
           (full * seq + sliding * rl_llm_attended(m, seq));
}

double rl_llm_kv_share_per_gpu(const struct rl_llm_model *m, int tp)
{
    return rl_llm_is_mla(m) ? 1 : (double)rl_llm_kv_heads_per_gpu(m, tp) / m->kv_heads;
}
