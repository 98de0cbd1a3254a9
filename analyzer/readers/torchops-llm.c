/*
 * torchops-llm.c - the cost of the custom operators LLM servers (vLLM,
 * SGLang) record in a PyTorch trace. Their names carry a namespace
 * ("vllm::moe_forward", "_C::fused_add_rms_norm",
 * "_C_cache_ops::reshape_and_cache_flash", "sgl_kernel::..."); the part
 * after the last "::" is looked up. Formulas (readers/TORCH-OPS.md, "LLM
 * serving operators"):
 *
 * Fused MoE whose expert weights are not inputs (vllm::moe_forward(
 * hidden_states [T, H'], router_logits [T, E], layer_name)): from the
 * model (hidden H, expert width F, E experts, top k, gated) and T, the
 * first dimension of hidden_states (H' may be H padded: gpt-oss 2880 to
 * 3072). Whole model:
 *   FLOPs = T k (2 H g F + 2 F H), g = 2 gated (gate and up), 1 not
 *   weights read = D (g + 1) H F b, D = E (1 - (1 - k/E)^T) the expected
 *   distinct experts T tokens pick (each expert's weights read once)
 * and one rank of tp x ep holds F / tp of each expert's width and E / ep
 * of the experts (each rank's tokens route k/E to each expert), so both
 * divide by tp x ep. b: ctx's expert_weight_bytes, else the model's
 * quantization_config's, else what the GEMM kernel's name says (MXFP4),
 * else hidden_states' element bytes. moe_forward_shared adds the shared
 * experts (shared_ffn S): T (2 H g S + 2 S H) / tp FLOPs, (g+1) H S b' / tp. Activations: hidden_states read, the output (T x H') written,
 * router_logits read.
 *
 * Fused MoE with the weights as inputs (fused_experts(hidden_states
 * [T, H], w1 [E, gF, H], w2 [E, H, F], topk_weights [T, k], topk_ids
 * [T, k], ...)): the same with E, F and k from the shapes (already this
 * rank's) and b the weights' stored bytes (w1 and w2's bytes over E).
 *
 * Small fused kernels, by their bytes (each input read once, each output
 * written once) and a few FLOPs per element:
 *   rms_norm(out, x, w, eps): x, w read, out written; 4 per element
 *   fused_add_rms_norm(x, residual, w, eps): x, residual, w read, both
 *     written (x normalized, residual the sum); 5 per element
 *   rotary_embedding(pos [T], q [T, *], k [T, *], head_size, cache [P, R],
 *     neox): q and k read and written, pos read, T rows of the cache
 *     read; 3 per element of q and k (two products and a sum)
 *   silu_and_mul / gelu_and_mul ... (out [T, F], x [T, 2F]): x read, out
 *     written; 5 per output (exp, add, divide, two products)
 *   static / dynamic_scaled_fp8_quant(out, x, scale): x read, out (one
 *     byte) written; 2 per element (scale, clamp)
 *   per_token_group_quant_fp8(x, out, scales, ...): likewise
 *   reshape_and_cache(_flash)(k [T, Hk, D], v, k_cache, v_cache, slots
 *     [T], dtype, k_scale, v_scale): k, v, slots read, T x Hk x D written
 *     into each cache in its element bytes; bytes only
 * Attention (vllm::unified_attention(_with_output)) needs the context
 * length of every sequence, which its inputs (this step's q, k, v) do not
 * carry: it stays unknown, with a note saying so.
 */
#include "analyzer/readers/torchops-llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct rl_torch_llm *the_ctx;

void rl_torch_llm_use(const struct rl_torch_llm *ctx) { the_ctx = ctx; }

double rl_torch_llm_distinct_experts(double experts, double k, double tokens)
{
    if (!(experts > 0) || !(k > 0) || !(tokens > 0))
        return 0;
    if (k >= experts)
        return experts;
    return experts * (1 - pow(1 - k / experts, tokens));
}

/* ---- arguments ------------------------------------------------------------ */

static const struct rl_torch_tensor *tensor(const struct rl_torch_op *op, size_t i)
{
    if (i >= op->n_args)
        return NULL;
    const struct rl_torch_arg *a = &op->args[i];
    return a->kind == RL_TORCH_ARG_TENSOR && a->t && a->t->ndim >= 0 ? a->t : NULL;
}

static double numel(const struct rl_torch_tensor *t)
{
    double n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= (double)t->dims[i];
    return n;
}

static double elem(const struct rl_torch_op *op, size_t i)
{
    return i < op->n_args ? rl_torch_dtype_bytes(op->args[i].type) : 0;
}

/* Bytes of tensor argument i (0 when it is none). */
static double tbytes(const struct rl_torch_op *op, size_t i)
{
    const struct rl_torch_tensor *t = tensor(op, i);
    return t ? numel(t) * elem(op, i) : 0;
}

static void set_dtype(struct rl_torch_cost *c, const struct rl_torch_op *op, size_t i)
{
    if (i < op->n_args)
        snprintf(c->dtype, sizeof c->dtype, "%s", rl_torch_dtype_name(op->args[i].type));
}

static bool fail(struct rl_torch_cost *c, const char *why)
{
    c->known = false;
    c->flops = c->bytes = NAN;
    snprintf(c->note, sizeof c->note, "%s", why);
    return false;
}

static bool done(struct rl_torch_cost *c, double flops, double bytes)
{
    if (!(bytes >= 0) || !isfinite(bytes) || (!isnan(flops) && !(flops >= 0 && isfinite(flops))))
        return fail(c, "shapes do not fit the formula");
    c->known = true;
    c->flops = flops;
    c->bytes = bytes;
    return true;
}

/* ---- fused MoE -------------------------------------------------------------- */

/* How many ranks share one expert's work: tp x ep, from ctx or the trace;
 * *tp and *ep set. */
static int ranks_of(const struct rl_torch_llm *x, const struct rl_torch_op *op, int *tp, int *ep)
{
    *ep = x->ep > 0 ? x->ep : 1;
    *tp = x->tp > 0 ? x->tp : op->world_size > 0 ? op->world_size / *ep : 1;
    if (*tp < 1)
        *tp = 1;
    return *tp * *ep;
}

/* The MoE of t tokens on one rank of the model's layout into c: row_bytes
 * the bytes of one token's hidden state, logits_bytes the router's
 * logits read, act_elem the weights' bytes when neither ctx nor the
 * model's stored format gives them; shared: the shared experts too
 * (moe_forward_shared). */
static bool moe_model(const struct rl_torch_llm *x, double t, double row_bytes,
                      double logits_bytes, double act_elem, bool shared, int world,
                      struct rl_torch_cost *c)
{
    const struct rl_llm_model *m = &x->model;
    if (!(t > 0) || m->experts < 2 || m->experts_per_token < 1 || m->ffn < 1 || m->hidden < 1)
        return fail(c, "a fused MoE needs hidden_states [T, H] and an MoE model");
    struct rl_torch_op none = {.world_size = world};
    int tp, ep;
    double ranks = ranks_of(x, &none, &tp, &ep);
    double H = m->hidden, F = m->ffn, E = m->experts, k = m->experts_per_token;
    double g = m->gated ? 2 : 1;
    /* the experts' bytes a weight: given, else as a config.json's
     * quantization_config stores them (MXFP4 17/32, FP8 with its block
     * scales), else unknown: the activations' until a GEMM kernel's name
     * says more (a BF16 torch_dtype alone does not outweigh "mxfp4") */
    double b = x->expert_weight_bytes, shared_b = 2;
    if (m->has_quant) {
        struct rl_llm_config cfg;
        rl_llm_config_of_model(m, RL_LLM_KV_BF16, &cfg);
        if (!(b > 0) && cfg.precision != RL_LLM_BF16 && cfg.precision != RL_LLM_FP16)
            b = rl_llm_linear_weight_bytes(&cfg, true);
        shared_b = rl_llm_linear_weight_bytes(&cfg, false);
    }
    bool known_b = b > 0;
    if (!known_b)
        b = act_elem;
    double flops = t * k * (2 * H * g * F + 2 * F * H) / ranks;
    double weights = rl_torch_llm_distinct_experts(E, k, t) * (g + 1) * H * F * b / ranks;
    if (shared && m->shared_ffn > 0) {
        /* the shared experts (DeepSeek, Qwen2-MoE), widths summed: every
         * token through them, their weights read once, split over tp */
        double S = m->shared_ffn;
        flops += t * (2 * H * g * S + 2 * S * H) / tp;
        weights += (g + 1) * H * S * shared_b / tp;
    }
    double act = t * row_bytes;
    /* "/w<b>": the weights taken at the activations' b bytes, for want of
     * their format: a kernel whose name says it rescales (kernel_part) */
    const char *name = m->gated ? "moe-gated" : "moe";
    if (known_b)
        snprintf(c->formula, sizeof c->formula, "%s", name);
    else
        snprintf(c->formula, sizeof c->formula, "%s/w%g", name, b);
    c->matmul = true;
    c->weight_bytes = weights;
    c->act_bytes = act;
    snprintf(c->note, sizeof c->note,
             "from the model %s: T %.0f tokens, top %.0f of %.0f experts, F %.0f, one rank of "
             "tp %d x ep %d",
             m->id, t, k, E, F, tp, ep);
    return done(c, flops, weights + 2 * act + logits_bytes);
}

/* moe_forward(hidden_states [T, H'], router_logits [T, E], layer_name) */
static bool moe_from_model(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    if (!the_ctx)
        return fail(c, "a fused MoE: its expert weights are not inputs; give --model");
    const struct rl_torch_tensor *h = tensor(op, 0);
    if (!h || h->ndim < 2)
        return fail(c, "a fused MoE needs hidden_states [T, H] and an MoE model");
    double t = 1;
    for (int i = 0; i < h->ndim - 1; i++)
        t *= (double)h->dims[i];
    set_dtype(c, op, 0);
    const char *base = strrchr(op->name, ':');
    bool shared = base && strcmp(base + 1, "moe_forward_shared") == 0;
    return moe_model(the_ctx, t, (double)h->dims[h->ndim - 1] * elem(op, 0), tbytes(op, 1),
                     elem(op, 0), shared, op->world_size, c);
}

/* fused_experts(hidden_states [T, H], w1 [E, gF, H], w2 [E, H, F],
 * topk_weights [T, k], topk_ids [T, k], ...) */
static bool moe_from_shapes(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *h = tensor(op, 0), *w1 = tensor(op, 1), *w2 = tensor(op, 2),
                                 *ids = tensor(op, 4);
    if (!h || h->ndim != 2 || !w1 || w1->ndim != 3 || !w2 || w2->ndim != 3 || !ids ||
        ids->ndim != 2)
        return moe_from_model(op, c); /* another signature: the model's */
    double t = (double)h->dims[0], H = (double)h->dims[1];
    double E = (double)w1->dims[0], gF = (double)w1->dims[1], F = (double)w2->dims[2];
    double k = (double)ids->dims[1];
    if (!(E > 0) || !(F > 0) || !(gF > 0) || !(k > 0))
        return fail(c, "fused experts: w1 [E, 2F, H], w2 [E, H, F] or topk_ids [T, k] empty");
    /* vLLM's and SGLang's fused_experts are gated (w1 holds gate and up,
     * [E, 2F, H]); w2's last dimension may pack two FP4 values a byte, so
     * F comes from w1's rows */
    double g = 2;
    F = gF / g;
    double wbytes = (tbytes(op, 1) + tbytes(op, 2)) / E;
    double flops = t * k * (2 * H * g * F + 2 * F * H);
    double weights = rl_torch_llm_distinct_experts(E, k, t) * wbytes;
    double act = tbytes(op, 0);
    set_dtype(c, op, 0);
    snprintf(c->formula, sizeof c->formula, "moe-gated");
    c->matmul = true;
    c->weight_bytes = weights;
    c->act_bytes = act;
    return done(c, flops, weights + 2 * act + tbytes(op, 3) + tbytes(op, 4));
}

/* ---- the small fused kernels -------------------------------------------------- */

/* rms_norm(out, x, w, eps) */
static bool rms_norm(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = tensor(op, 1);
    if (!x || !tensor(op, 0))
        return fail(c, "rms_norm needs out and input tensors");
    set_dtype(c, op, 1);
    return done(c, 4 * numel(x), tbytes(op, 1) + tbytes(op, 2) + tbytes(op, 0));
}

/* fused_add_rms_norm(x, residual, w, eps): both updated in place */
static bool fused_add_rms_norm(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = tensor(op, 0);
    if (!x || !tensor(op, 1))
        return fail(c, "fused_add_rms_norm needs input and residual tensors");
    set_dtype(c, op, 0);
    return done(c, 5 * numel(x), 2 * (tbytes(op, 0) + tbytes(op, 1)) + tbytes(op, 2));
}

/* rotary_embedding(positions [T], query, key, head_size, cos_sin_cache
 * [P, R], is_neox): q and k in place, T rows of the cache read */
static bool rotary(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *pos = tensor(op, 0), *q = tensor(op, 1), *k = tensor(op, 2),
                                 *cache = tensor(op, 4);
    if (!pos || !q)
        return fail(c, "rotary_embedding needs positions and query");
    double rows = numel(pos), row = cache && cache->ndim == 2 ? (double)cache->dims[1] : 0;
    double n = numel(q) + (k ? numel(k) : 0);
    set_dtype(c, op, 1);
    return done(c, 3 * n,
                2 * (tbytes(op, 1) + tbytes(op, 2)) + tbytes(op, 0) + rows * row * elem(op, 4));
}

/* silu_and_mul(out [T, F], x [T, 2F]) and the other gated activations */
static bool act_and_mul(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *out = tensor(op, 0);
    if (!out || !tensor(op, 1))
        return fail(c, "an activation-and-multiply needs out and input tensors");
    set_dtype(c, op, 1);
    return done(c, 5 * numel(out), tbytes(op, 0) + tbytes(op, 1));
}

/* scaled_fp8_quant(out, x, scale, ...): x read, out written */
static bool quant(const struct rl_torch_op *op, struct rl_torch_cost *c, size_t in, size_t out)
{
    const struct rl_torch_tensor *x = tensor(op, in);
    if (!x || !tensor(op, out))
        return fail(c, "a quantize needs its input and output tensors");
    set_dtype(c, op, in);
    double rest = 0; /* scales */
    for (size_t i = 0; i < op->n_args; i++)
        if (i != in && i != out)
            rest += tbytes(op, i);
    return done(c, 2 * numel(x), tbytes(op, in) + tbytes(op, out) + rest);
}

/* reshape_and_cache(_flash)(key [T, Hk, D], value, key_cache, value_cache,
 * slot_mapping [T], kv_cache_dtype, k_scale, v_scale) */
static bool cache_write(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *k = tensor(op, 0), *v = tensor(op, 1);
    if (!k || !v || !tensor(op, 2))
        return fail(c, "reshape_and_cache needs key, value and the caches");
    double cache_elem = elem(op, 2) > 0 ? elem(op, 2) : elem(op, 0);
    set_dtype(c, op, 0);
    return done(c, NAN, tbytes(op, 0) + tbytes(op, 1) + tbytes(op, 4) +
                            (numel(k) + numel(v)) * cache_elem);
}

/* ---- the table -------------------------------------------------------------- */

enum kind { MOE_MODEL, MOE_SHAPES, RMS, ADD_RMS, ROPE, ACT_MUL, QUANT, QUANT_IN_FIRST, CACHE,
            ATTENTION };

static const struct {
    const char *name; /* after the last "::" */
    enum kind kind;
} table[] = {
    {"moe_forward", MOE_MODEL},
    {"moe_forward_shared", MOE_MODEL},
    {"fused_moe", MOE_MODEL},
    {"fused_experts", MOE_SHAPES},
    {"inplace_fused_experts", MOE_SHAPES},
    {"outplace_fused_experts", MOE_SHAPES},
    {"fused_experts_impl", MOE_SHAPES},
    {"rms_norm", RMS},
    {"fused_add_rms_norm", ADD_RMS},
    {"rotary_embedding", ROPE},
    {"silu_and_mul", ACT_MUL},
    {"mul_and_silu", ACT_MUL},
    {"gelu_and_mul", ACT_MUL},
    {"gelu_tanh_and_mul", ACT_MUL},
    {"swigluoai_and_mul", ACT_MUL},
    {"static_scaled_fp8_quant", QUANT},
    {"dynamic_scaled_fp8_quant", QUANT},
    {"dynamic_per_token_scaled_fp8_quant", QUANT},
    {"per_token_group_quant_fp8", QUANT_IN_FIRST},
    {"sgl_per_token_group_quant_fp8", QUANT_IN_FIRST},
    {"reshape_and_cache", CACHE},
    {"reshape_and_cache_flash", CACHE},
    {"unified_attention", ATTENTION},
    {"unified_attention_with_output", ATTENTION},
};

bool rl_torch_llm_op_matmul(const char *name)
{
    const char *base = name ? name : "", *p;
    while ((p = strstr(base, "::")))
        base = p + 2;
    if (strcmp(base, "fused MoE") == 0)
        return true;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(table[i].name, base) == 0)
            return table[i].kind == MOE_MODEL || table[i].kind == MOE_SHAPES;
    return false;
}

bool rl_torch_llm_op_cost(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const char *name = op->name ? op->name : "";
    const char *base = name, *p;
    while ((p = strstr(base, "::")))
        base = p + 2;
    if (base == name)
        return false; /* no namespace: not a custom operator */
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        if (strcmp(table[i].name, base) != 0)
            continue;
        snprintf(c->formula, sizeof c->formula, "%s", base);
        switch (table[i].kind) {
        case MOE_MODEL: return moe_from_model(op, c);
        case MOE_SHAPES: return moe_from_shapes(op, c);
        case RMS: return rms_norm(op, c);
        case ADD_RMS: return fused_add_rms_norm(op, c);
        case ROPE: return rotary(op, c);
        case ACT_MUL: return act_and_mul(op, c);
        case QUANT: return quant(op, c, 1, 0);
        case QUANT_IN_FIRST: return quant(op, c, 0, 1);
        case CACHE: return cache_write(op, c);
        case ATTENTION:
            return fail(c, "attention: the context length of each sequence is not among its "
                           "inputs (this step's q, k, v only)");
        }
    }
    return false;
}

/* ---- a fused operator's kernels ------------------------------------------- */

static bool has(const char *s, const char *what) { return strstr(s, what) != NULL; }

/* Bytes of a weight with its scales by what a GEMM's name says of its
 * weights' format: MXFP4 (Triton's "mxfp4", TensorRT-LLM's "MxE2m1")
 * 17/32, else 0 (not said). */
static double weight_bytes_named(const char *k)
{
    if (has(k, "mxfp4") || has(k, "MxE2m1") || has(k, "_e2m1"))
        return 17.0 / 32;
    return 0;
}

enum role { ROLE_AUX, ROLE_ROUTE, ROLE_UP, ROLE_DOWN, ROLE_BOTH };

/* A fused MoE's kernel by its name: the gate-up GEMM (SwiGLU fused in,
 * or a TensorRT-LLM bmm writing a quantized output for the next GEMM),
 * the down GEMM, a GEMM launched for both (vLLM's Triton
 * fused_moe_kernel), the routing (top-k, sort, align), or another helper
 * (quantize, finalize, fill). */
static enum role role_of(const char *k)
{
    if (has(k, "routing") || has(k, "topk") || has(k, "align") || has(k, "sort") ||
        has(k, "histogram") || has(k, "bitmatrix"))
        return ROLE_ROUTE;
    if (has(k, "finalize") || has(k, "quantiz") || has(k, "scatter") || has(k, "gather") ||
        has(k, "elementwise") || has(k, "memset") || has(k, "fill") || has(k, "pad"))
        return ROLE_AUX;
    if (has(k, "fused_moe_kernel"))
        return ROLE_BOTH;
    if (has(k, "swiglu") || has(k, "gate_up") || has(k, "w13") || has(k, "gemm1") ||
        has(k, "fc1"))
        return ROLE_UP;
    if (strncmp(k, "bmm_", 4) == 0) /* bmm_<output>_<weights><activations> */
        return strncmp(k + 4, "Bfloat16", 8) == 0 || strncmp(k + 4, "Fp16", 4) == 0 ||
                       strncmp(k + 4, "Fp32", 4) == 0
                   ? ROLE_DOWN
                   : ROLE_UP;
    if (has(k, "matmul") || has(k, "gemm") || has(k, "Gemm") || has(k, "Cijk") ||
        has(k, "w2") || has(k, "fc2") || has(k, "moe"))
        return ROLE_DOWN;
    return ROLE_AUX;
}

bool rl_torch_llm_kernel_part(const struct rl_torch_cost *c, const char *kernel, bool longest,
                              double *flops, double *bytes)
{
    bool moe = strncmp(c->formula, "moe", 3) == 0 && c->weight_bytes > 0;
    if (!moe) {
        *flops = c->flops;
        *bytes = c->bytes;
        return longest;
    }
    /* the gate-up GEMM's share: 2 H gF of 2 H gF + 2 F H, g = 2 gated */
    double up = strncmp(c->formula, "moe-gated", 9) == 0 ? 2.0 / 3 : 1.0 / 2;
    /* weights taken at b bytes for want of their format ("/w<b>"): the
     * GEMM's name may say it (MXFP4: 4-bit E2M1 and an 8-bit scale per 32,
     * 17/32 byte; FP8 weights 1 byte) */
    const char *wb = strstr(c->formula, "/w");
    double w = c->weight_bytes, named = kernel ? weight_bytes_named(kernel) : 0;
    if (wb && named > 0 && atof(wb + 2) > 0)
        w *= named / atof(wb + 2);
    double route = c->bytes - c->weight_bytes - 2 * c->act_bytes; /* logits, ids */
    switch (role_of(kernel ? kernel : "")) {
    case ROLE_UP:
        *flops = up * c->flops;
        *bytes = up * w + c->act_bytes;
        return true;
    case ROLE_ROUTE:
        *flops = NAN;
        *bytes = route;
        return true;
    case ROLE_DOWN:
        *flops = (1 - up) * c->flops;
        *bytes = (1 - up) * w + c->act_bytes;
        return true;
    case ROLE_BOTH: /* launched twice a call (w13, then w2): half each */
        *flops = c->flops / 2;
        *bytes = (c->bytes - c->weight_bytes + w) / 2;
        return true;
    case ROLE_AUX:
        break;
    }
    *flops = NAN;
    *bytes = c->act_bytes;
    return true;
}

/* ---- kernels replayed from a graph ------------------------------------------ */

/* The number after `key` in s (NAN none). */
static double number_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    if (!p)
        return NAN;
    p += strlen(key);
    char *end;
    double v = strtod(p, &end);
    return end == p ? NAN : v;
}

bool rl_torch_llm_step_parse(const char *name, struct rl_torch_llm_step *step)
{
    step->tokens = step->seqs = step->keys = NAN;
    if (strncmp(name, "execute_", 8) == 0) {
        /* execute_<tokens>_context_<n>(sq<q>sk<k>sqsq<..>sqsk<..>)_generation_<n>(sq..sk..) */
        const char *ctx = strstr(name, "_context_"), *gen = strstr(name, "_generation_");
        step->tokens = number_after(name, "execute_");
        if (!ctx || !gen || !(step->tokens >= 0))
            return false;
        step->seqs = number_after(ctx, "_context_") + number_after(gen, "_generation_");
        step->keys = number_after(ctx, "sk") + number_after(gen, "sk");
        return true;
    }
    if (strncmp(name, "step[DECODE bs=", 15) == 0) { /* one new token a sequence */
        step->tokens = step->seqs = number_after(name, "bs=");
        return step->tokens >= 0;
    }
    return false;
}

static bool moe_kernel(const char *k)
{
    /* Triton's gpt-oss MoE routes with _topk_forward and _sum_bitmatrix_rows */
    return has(k, "moe") || has(k, "matmul_ogs") || has(k, "_routing_") || has(k, "expert") ||
           has(k, "MxE2m1") || has(k, "_finalize_matmul") || has(k, "_topk_") ||
           has(k, "bitmatrix");
}

bool rl_torch_llm_graph_cost(const char *k, const struct rl_torch_llm_step *step, int world,
                             double *flops, double *bytes, const char **what)
{
    const struct rl_torch_llm *x = the_ctx;
    *flops = *bytes = NAN;
    *what = "";
    if (!x || !k || !step || !(step->tokens > 0))
        return false;
    const struct rl_llm_model *m = &x->model;
    double t = step->tokens, H = m->hidden, act = 2; /* BF16 activations */
    if (moe_kernel(k)) {
        struct rl_torch_cost c;
        memset(&c, 0, sizeof c);
        if (!moe_model(x, t, H * act, t * m->experts * act, act, false, world, &c))
            return false;
        *what = "fused MoE";
        return rl_torch_llm_kernel_part(&c, k, true, flops, bytes);
    }
    struct rl_torch_op none = {.world_size = world};
    int tp, ep;
    ranks_of(x, &none, &tp, &ep);
    double hq = m->heads / (double)tp, hk = m->kv_heads >= tp ? m->kv_heads / (double)tp : 1;
    if (has(k, "msnorm") || has(k, "rms_norm") || has(k, "RmsNorm") || has(k, "Rmsnorm")) {
        /* x read, y written, the weight read (rms_norm) */
        *bytes = 2 * t * H * act + H * act;
        *flops = 4 * t * H;
        *what = "rms_norm";
        return H > 0;
    }
    if (has(k, "rotary")) { /* q and k read and written */
        double n = t * (hq + hk) * m->head_dim;
        *bytes = 2 * n * act;
        *flops = 3 * n;
        *what = "rotary_embedding";
        return n > 0;
    }
    if (has(k, "reshape_and_cache") || has(k, "store_kvcache")) {
        /* this step's k and v read, written into the cache (BF16 assumed) */
        *bytes = 2 * 2 * t * hk * m->head_dim * act;
        *what = "reshape_and_cache";
        return *bytes > 0;
    }
    return false;
}
