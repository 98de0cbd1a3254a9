/* ops.c - the operators of one LLM step (decode, prefill, training) on one GPU of a split: FLOPs and bytes of attention (GQA, sliding window, MLA), dense and MoE MLPs, embedding and LM head.
 *
 * Notation: H hidden, F ffn, nh heads, nkv KV heads, d head dim, V vocab,
 * E experts, k experts per token; T tokens processed (decode: B, one per
 * sequence; prefill: B S); P query-key pairs (decode: B S; prefill,
 * causal: B S (S + 1) / 2). wb, ab, kvb: bytes per weight, activation and
 * KV-cache value. Bytes are minimum traffic: every weight, activation and
 * cache value read or written once per step (a fused attention kernel:
 * scores stay on chip). Embedding, LM head, norms, router and biases stay
 * 16-bit whatever the weight format, as serving stacks keep them.
 * Each operator's time is its roofline bound, max(FLOPs / peak, bytes /
 * bandwidth): no overlap between operators, no launch latency.
 *
 * Layers of different kinds are operators of their own, each counted for
 * the layers of its kind (the stage's: ceil(n / pp) of a kind, at most
 * its layers): windowed attention (`swa_scores`, `swa_av`) beside
 * full attention where both are; an MoE model's dense layers
 * (`dense_gate_up`, `dense_act`, `dense_down`) and shared experts
 * (`shared_gate_up`, `shared_act`, `shared_down`) beside its routed experts
 * (`router`, `gate_up_proj`, `silu_mul`, `down_proj`).
 *
 * MLA (DeepSeek-V2 section 2.1; kvr kv_lora_rank, dr qk_rope, dn qk_nope,
 * dv v_head_dim, qr q_lora_rank): the cache holds kvr + dr values per token
 * per layer, shared by all heads. Decode runs the absorbed form (as FlashMLA
 * and vLLM do): q_nope goes through W_UK into the latent space
 * (`q_absorb`: 2 T nh dn kvr FLOPs, nh dn kvr weights), scores are dot
 * products of kvr + dr values (2 P nh (kvr + dr) + 6 P nh), attention x V
 * sums latents (2 P nh kvr) and W_UV brings them out (`v_absorb`: 2 T nh kvr
 * dv); the latent cache is read once for both products (cached (kvr + dr)
 * kvb). Prefill and training expand K and V from the latent (`kv_b_proj`:
 * 2 T kvr nh (dn + dv)) and run attention of head dims dn + dr and dv over
 * them, the expanded K and V read as activations.
 *
 * MoE: a step's T tokens each pick k of E experts; the experts touched,
 * whose weights are read, are rl_llm_expected_experts(E, k, T) (E (1 - (1
 * - k / E)^T)): k at batch 1, all E at large batch. Shared experts are read
 * whole and run on every token.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/llm/llm.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct rl_llm_op *op(struct rl_llm_phase_cost *p, const char *name, int count,
                            bool linear, const char *roof)
{
    struct rl_llm_op *o = &p->ops[p->n_ops++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->count = count;
    o->linear = linear;
    o->roof = roof;
    return o;
}

int rl_llm_kv_heads_per_gpu(const struct rl_llm_model *m, int tp)
{
    return m->kv_heads >= tp ? m->kv_heads / tp : 1;
}

int rl_llm_attended(const struct rl_llm_model *m, int seq)
{
    return m->sliding_window > 0 && m->sliding_window < seq ? m->sliding_window : seq;
}

int rl_llm_split_check(const struct rl_llm_model *m, const struct rl_llm_split *sp, char *errmsg)
{
    if (sp->tp < 1 || sp->pp < 1 || sp->ep < 1)
        return rl_fail(errmsg, RL_EINVAL, "every degree of a layout is at least 1");
    if (!rl_llm_model_has_shape(m))
        return RL_OK; /* a parameter count splits any way */
    if (m->heads % sp->tp || m->ffn % sp->tp)
        return rl_fail(errmsg, RL_EINVAL,
                       "TP %d does not divide %s's %d heads and MLP width %d", sp->tp, m->name,
                       m->heads, m->ffn);
    if (m->dense_ffn % sp->tp || m->shared_ffn % sp->tp)
        return rl_fail(errmsg, RL_EINVAL,
                       "TP %d does not divide %s's dense MLP width %d and shared experts' %d",
                       sp->tp, m->name, m->dense_ffn, m->shared_ffn);
    if (m->kv_heads % sp->tp && sp->tp % m->kv_heads)
        return rl_fail(errmsg, RL_EINVAL,
                       "TP %d neither divides nor is a multiple of %s's %d KV heads", sp->tp,
                       m->name, m->kv_heads);
    if (sp->pp > m->layers)
        return rl_fail(errmsg, RL_EINVAL, "PP %d is more stages than %s's %d layers", sp->pp,
                       m->name, m->layers);
    if (sp->ep > 1 && m->experts % sp->ep)
        return rl_fail(errmsg, RL_EINVAL, "EP %d does not divide %s's %d experts%s", sp->ep,
                       m->name, m->experts, m->experts == 1 ? " (a dense model: EP 1)" : "");
    return RL_OK;
}

void rl_llm_phase(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                  enum rl_llm_phase phase, int batch, int seq, struct rl_llm_phase_cost *p)
{
    rl_llm_phase_split(m, cfg, NULL, phase, batch, seq, p);
}

/* Query-key pairs of one sequence attending to at most W positions:
 * decode, the attended context; prefill and training (causal), sum over
 * positions i = 1..S of min(i, W): S (S + 1) / 2 without a window, W (W +
 * 1) / 2 + (S - W) W with one. */
static double pairs_per_sequence(enum rl_llm_phase phase, double S, double W)
{
    if (phase == RL_LLM_DECODE)
        return W;
    return W * (W + 1) / 2 + (S - W) * W;
}

/* What every operator builder shares. */
struct ctx {
    struct rl_llm_phase_cost *p;
    const struct rl_llm_model *m;
    enum rl_llm_phase phase;
    double t, H, T, B, S, nh, nkv;
    double ab, ab_attn, wb_attn, kvb;
    const char *lin, *lin_attn, *cuda, *attn;
    bool unfused;               /* split's unfused_attention */
};

/* The two attention products of the layers attending to W positions
 * (count of them), names prefixed (e.g. "swa_": "swa_scores"). GQA: K and V of every
 * cached position read once, nkv heads; MLA: see the top of the file. */
static void attention(struct ctx *c, int count, double W, const char *prefix)
{
    const struct rl_llm_model *m = c->m;
    const double B = c->B, S = c->S, T = c->T, nh = c->nh, kvb = c->kvb, ab = c->ab_attn;
    const double P = B * pairs_per_sequence(c->phase, S, W);
    const double cached = c->phase == RL_LLM_DECODE ? B * W : B * S;
    const double keys = P / (c->phase == RL_LLM_DECODE ? B : T);
    char name[24];
    struct rl_llm_op *s, *v;
    snprintf(name, sizeof name, "%sscores", prefix[0] ? prefix : "attn_");
    s = op(c->p, name, count, false, c->attn);
    snprintf(name, sizeof name, "%sav", prefix[0] ? prefix : "attn_");
    v = op(c->p, name, count, false, c->attn);
    s->heads = v->heads = nh, s->keys = v->keys = keys;
    if (!rl_llm_is_mla(m)) {
        const double d = m->head_dim, nkv = c->nkv;
        s->kv_heads = v->kv_heads = nkv;
        s->flops = 2 * P * nh * d + 6 * P * nh; /* q.k, then softmax: 6 per score */
        s->act_bytes = T * nh * d * ab;         /* q */
        s->kv_bytes = cached * nkv * d * kvb;   /* K of every cached position, once */
        v->flops = 2 * P * nh * d;
        v->act_bytes = T * nh * d * ab;         /* out */
        v->kv_bytes = cached * nkv * d * kvb;   /* V */
        if (c->phase == RL_LLM_TRAIN && c->unfused) {
            /* Every one of the B S^2 nh scores (the causal mask applied to
             * all of them) through DRAM in 16 bits: QK^T written (2 B), the
             * softmax read and written (4 B), dropout read, its output and
             * 1-byte mask written (5 B); AV reads the probabilities (2 B). */
            const double scores = B * S * S * nh;
            s->act_bytes += 11 * scores;
            v->act_bytes += 2 * scores;
        }
        return;
    }
    const double kvr = m->kv_lora_rank, dr = m->qk_rope_dim, dn = m->qk_nope_dim;
    const double dv = m->v_head_dim;
    if (c->phase == RL_LLM_DECODE) { /* absorbed: one latent "KV head" for all */
        s->kv_heads = v->kv_heads = 1;
        s->flops = 2 * P * nh * (kvr + dr) + 6 * P * nh;
        s->act_bytes = T * nh * (kvr + dr) * ab;  /* q in the latent space, with q_rope */
        s->kv_bytes = cached * (kvr + dr) * kvb;  /* the latent and rope key, read once */
        v->flops = 2 * P * nh * kvr;
        v->act_bytes = T * nh * kvr * ab;         /* out, in the latent space */
    } else { /* expanded: K (dn + dr) and V (dv) per head, from kv_b_proj */
        s->kv_heads = v->kv_heads = nh;
        s->flops = 2 * P * nh * (dn + dr) + 6 * P * nh;
        s->act_bytes = T * nh * (dn + dr) * ab + cached * nh * (dn + dr) * ab; /* q, k */
        v->flops = 2 * P * nh * dv;
        v->act_bytes = cached * nh * dv * ab + T * nh * dv * ab;              /* v, out */
    }
}

/* A linear operator of T tokens x in -> out. */
static struct rl_llm_op *linear(struct ctx *c, const char *name, int count, double tokens,
                                double in, double out, double wb, double ab, const char *roof)
{
    struct rl_llm_op *o = op(c->p, name, count, true, roof);
    o->tokens = tokens, o->in = in, o->out = out;
    o->flops = 2 * tokens * in * out;
    o->weight_bytes = in * out * wb;
    o->act_bytes = tokens * in * ab + tokens * out * ab;
    return o;
}

/* Attention's projections and products, every layer. */
static void attention_layers(struct ctx *c, int L, int sliding)
{
    const struct rl_llm_model *m = c->m;
    const double T = c->T, H = c->H, nh = c->nh, wb = c->wb_attn, ab = c->ab_attn;
    struct rl_llm_op *o;
    if (rl_llm_is_mla(m)) {
        const double qr = m->q_lora_rank, kvr = m->kv_lora_rank, dn = m->qk_nope_dim;
        const double dr = m->qk_rope_dim, dv = m->v_head_dim;
        if (qr > 0)
            linear(c, "q_a_proj", L, T, H, qr, wb, ab, c->lin_attn);
        linear(c, "q_b_proj", L, T, qr > 0 ? qr : H, nh * (dn + dr), wb, ab, c->lin_attn);
        o = linear(c, "kv_a_proj", L, T, H, kvr + dr, wb, ab, c->lin_attn);
        o->kv_bytes = T * (kvr + dr) * c->kvb; /* the latent and rope key into the cache */
        if (c->phase == RL_LLM_DECODE) {
            o = linear(c, "q_absorb", L, T * nh, dn, kvr, wb, ab, c->lin_attn);
            o->weight_bytes = nh * dn * kvr * wb; /* W_UK: one dn x kvr per head */
        } else {
            linear(c, "kv_b_proj", L, T, kvr, nh * (dn + dv), wb, ab, c->lin_attn);
        }
    } else {
        const double d = m->head_dim, qkv = (nh + 2 * c->nkv) * d;
        o = op(c->p, "qkv_proj", L, true, c->lin_attn);
        o->tokens = T, o->in = H, o->out = qkv;
        o->flops = 2 * T * H * qkv + (m->qkv_bias ? T * qkv : 0);
        o->weight_bytes = H * qkv * wb + (m->qkv_bias ? 2 * qkv : 0);
        o->act_bytes = T * H * ab + T * nh * d * ab; /* x in, q out */
        o->kv_bytes = T * 2 * c->nkv * d * c->kvb;   /* k, v into the cache */
    }
    const double W = rl_llm_attended(m, (int)c->S);
    if (sliding > 0 && sliding < L) {
        attention(c, L - sliding, c->S, "");
        attention(c, sliding, W, "swa_");
    } else {
        attention(c, L, sliding > 0 ? W : c->S, "");
    }
    if (rl_llm_is_mla(m) && c->phase == RL_LLM_DECODE) {
        o = linear(c, "v_absorb", L, T * nh, m->kv_lora_rank, m->v_head_dim, wb, ab, c->lin_attn);
        o->weight_bytes = nh * m->kv_lora_rank * m->v_head_dim * wb; /* W_UV per head */
    }
    const double o_in = nh * (rl_llm_is_mla(m) ? m->v_head_dim : m->head_dim);
    o = linear(c, "o_proj", L, T, o_in, H, wb, ab, c->lin_attn);
    o->weight_bytes += m->o_bias ? 2 * H : 0;
}

/* One MLP set: gate/up, activation, down, over `tokens` token rows of
 * width F (per GPU), `touched` weight sets read of wb bytes each. */
static void mlp(struct ctx *c, const char *const names[3], int count, double tokens, double F,
                double touched, double wb, double ab, const char *roof)
{
    const struct rl_llm_model *m = c->m;
    const double H = c->H, mats = m->gated ? 2 : 1;
    struct rl_llm_op *o;
    o = linear(c, names[0], count, tokens, H, F * mats, wb, ab, roof);
    o->weight_bytes = touched * (H * F * mats * wb + (m->mlp_bias ? 2 * F * mats : 0));
    o = op(c->p, names[1], count, false, c->cuda);
    o->flops = tokens * F * (m->gated ? 5 : 9);
    o->act_bytes = tokens * F * (m->gated ? 3 : 2) * ab;
    o = linear(c, names[2], count, tokens, F, H, wb, ab, roof);
    o->weight_bytes = touched * (F * H * wb + (m->mlp_bias ? 2 * H : 0));
}

/* Per GPU of a split (Megatron-LM, Shoeybi et al. 2019, section 3): the
 * QKV projection is split by columns, nh / tp query heads and
 * rl_llm_kv_heads_per_gpu KV heads per GPU; the output projection by rows
 * (its input, the heads, split; its output H whole, summed by an
 * all-reduce); gate/up by columns and down by rows, F / tp each; the
 * embedding and LM head by vocabulary rows, V / tp; norms, residuals and
 * the router whole on every GPU; MLA's q_a and kv_a down-projections
 * whole, its per-head up-projections by heads. EP: E / ep experts per GPU,
 * each token's k experts spread evenly, so a GPU serves T k token-expert
 * pairs (its T tokens' worth, sent by all ep peers) and touches E / ep (1 -
 * (1 - k / E)^(T ep)) experts. */
void rl_llm_phase_split(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                        const struct rl_llm_split *split, enum rl_llm_phase phase, int batch,
                        int seq, struct rl_llm_phase_cost *p)
{
    static const struct rl_llm_split one = {.tp = 1, .pp = 1, .ep = 1};
    const struct rl_llm_split *sp = split ? split : &one;
    memset(p, 0, sizeof *p);
    p->phase = phase;
    p->batch = batch;
    p->seq = seq;
    const double t = sp->tp, ep = sp->ep;
    const double H = m->hidden, V = m->vocab / t;
    const double E = m->experts, k = m->experts_per_token;
    const double B = batch, S = seq;
    const double T = phase == RL_LLM_DECODE ? B : B * S;
    const double ab = rl_llm_act_bytes(cfg->precision);
    struct ctx c = {
        .p = p, .m = m, .phase = phase, .t = t, .H = H, .T = T, .B = B, .S = S,
        .nh = m->heads / t, .nkv = rl_llm_kv_heads_per_gpu(m, sp->tp), .ab = ab,
        .ab_attn = cfg->experts_only ? 2 : ab,
        .wb_attn = rl_llm_linear_weight_bytes(cfg, false), .kvb = rl_llm_kv_bytes(cfg->kv),
        .lin = rl_llm_linear_roof(cfg->precision),
        .lin_attn = cfg->experts_only ? "bf16" : rl_llm_linear_roof(cfg->precision),
        .cuda = cfg->precision == RL_LLM_FP16 ? "fp16-cuda" : "bf16-cuda",
        .attn = cfg->precision == RL_LLM_FP16 ? "fp16" : "bf16",
        .unfused = sp->unfused_attention,
    };
    /* The stage's layers and how many of each kind (rl_llm_stage_params). */
    const int L = (m->layers + sp->pp - 1) / sp->pp;
    const int moe_all = (rl_llm_moe_layers(m) + sp->pp - 1) / sp->pp;
    const int slide_all = (rl_llm_sliding_layers(m) + sp->pp - 1) / sp->pp;
    const int moe = moe_all < L ? moe_all : L, sliding = slide_all < L ? slide_all : L;
    const int dense = L - moe;
    /* Training: the logits of every position (the loss), not the last. */
    const double Tout = phase == RL_LLM_TRAIN ? T : B;
    struct rl_llm_op *o;

    o = op(p, "attn_norm", L, false, c.cuda);
    o->flops = 4 * T * H;
    o->weight_bytes = 2 * H;
    o->act_bytes = 2 * T * H * ab;

    attention_layers(&c, L, sliding);

    o = op(p, "residual_add", L, false, c.cuda); /* two per layer */
    o->flops = 2 * T * H;
    o->act_bytes = 2 * 3 * T * H * ab;

    o = op(p, "ffn_norm", L, false, c.cuda);
    o->flops = 4 * T * H;
    o->weight_bytes = 2 * H;
    o->act_bytes = 2 * T * H * ab;

    static const char *const plain[3] = {"gate_up_proj", "silu_mul", "down_proj"};
    static const char *const ungated[3] = {"up_proj", "gelu", "down_proj"};
    static const char *const dense_names[3] = {"dense_gate_up", "dense_act", "dense_down"};
    static const char *const shared_names[3] = {"shared_gate_up", "shared_act", "shared_down"};
    const char *const *routed = m->gated ? plain : ungated;
    if (m->experts > 1) {
        /* Experts a step touches: each of T tokens picks k of E, uniformly. */
        const double touched = E / ep * (1 - pow(1 - k / E, T * ep));
        if (moe > 0) {
            o = op(p, "router", moe, false, "bf16");
            o->flops = 2 * T * H * E;
            o->weight_bytes = H * E * 2;
            o->act_bytes = T * H * ab + T * E * 2;
            mlp(&c, routed, moe, T * k, m->ffn / t, touched,
                rl_llm_linear_weight_bytes(cfg, true), ab, c.lin);
            if (m->shared_ffn > 0)
                mlp(&c, shared_names, moe, T, m->shared_ffn / t, 1, c.wb_attn, c.ab_attn,
                    c.lin_attn);
        }
        if (dense > 0)
            mlp(&c, dense_names, dense, T, (m->dense_ffn ? m->dense_ffn : m->ffn) / t, 1,
                c.wb_attn, c.ab_attn, c.lin_attn);
    } else {
        mlp(&c, routed, L, T, m->ffn / t, 1, c.wb_attn, c.ab_attn, c.lin_attn);
    }

    if (sp->pp == 1) { /* on the first stage; the last (the LM head) binds */
        o = op(p, "embedding", 1, false, c.cuda); /* a gather of T rows, V / tp on each GPU */
        o->weight_bytes = T * H * 2 / t;
        o->act_bytes = T * H * ab;
    }

    o = op(p, "final_norm", 1, false, c.cuda);
    o->flops = 4 * T * H;
    o->weight_bytes = 2 * H;
    o->act_bytes = 2 * T * H * ab;

    /* Logits of the last position of each sequence only (training: all). */
    o = op(p, "lm_head", 1, true, "bf16");
    o->tokens = Tout, o->in = H, o->out = V;
    o->flops = 2 * Tout * H * V;
    o->weight_bytes = V * H * 2;
    o->act_bytes = Tout * H * ab + Tout * V * 2;

    /* Training: the backward computes each product's input gradient and
     * weight gradient, each as large as the forward product (Narayanan et
     * al. 2021, section 5.1: backward twice the forward), reading and
     * writing as much again each: 3 passes' FLOPs and bytes; full
     * recomputation runs the forward once more before the backward: 4;
     * selective recomputation (Korthikanti et al. 2022, section 5) runs
     * only the attention core again (the scores with their softmax, and
     * the AV product): 4 passes of those, 3 of the rest. Sequence
     * parallelism (ibid. section 4.2.2) runs the norms and residual adds
     * on T / tp tokens of each GPU: their FLOPs and activations / tp. */
    const bool train = phase == RL_LLM_TRAIN;
    const bool seq_par = train && sp->seq_parallel && sp->tp > 1;
    for (int i = 0; i < p->n_ops; i++) {
        struct rl_llm_op *x = &p->ops[i];
        const bool core = strstr(x->name, "scores") || strstr(x->name, "_av");
        const double passes = !train                                    ? 1
                              : sp->recompute == RL_LLM_RECOMPUTE_FULL ? 4
                              : sp->recompute == RL_LLM_RECOMPUTE_SELECTIVE && core ? 4
                                                                                    : 3;
        if (seq_par && (strstr(x->name, "norm") || strcmp(x->name, "residual_add") == 0)) {
            x->flops /= sp->tp;
            x->act_bytes /= sp->tp;
        }
        x->flops *= passes;
        x->weight_bytes *= passes;
        x->act_bytes *= passes;
        x->kv_bytes *= passes;
        p->flops += x->count * x->flops;
        p->bytes += x->count * (x->weight_bytes + x->act_bytes + x->kv_bytes);
    }
}
