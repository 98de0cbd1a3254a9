/* workloads.c - the workload sets (gemm, gemv, elementwise) and one transformer layer's decode and prefill. */
#include "kernels/workloads.h"

#include "kernels/costs.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "kernels/gemm.h"
#include "kernels/ops.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Llama-3-8B (costs.h). */
#define HIDDEN RL_L3_HIDDEN
#define HEADS RL_L3_HEADS
#define KV_HEADS RL_L3_KV_HEADS
#define HEAD_DIM RL_L3_HEAD_DIM
#define FFN RL_L3_FFN
#define VOCAB RL_L3_VOCAB
#define QKV RL_L3_QKV

#define MAX_PLAN 32

struct wl {
    const struct rl_wl_options *opt;
    const struct rl_wl_hooks *hooks;
    void (*note)(void *, const char *);
    cudaStream_t s;
    cublasHandle_t cublas;
    char *errmsg;
    int reps;
    /* decode and prefill: the plan (costs.c) every step must match, so
     * that `roofline run` without a GPU draws the steps traced with one. */
    struct rl_plan_step plan[MAX_PLAN];
    int plan_n;
    bool plan_seen[MAX_PLAN];
    char drift[160];
};

static void begin(struct wl *w, const char *label, struct rl_step_cost cost)
{
    if (w->plan_n > 0) {
        int i = 0;
        while (i < w->plan_n && !(strcmp(w->plan[i].label, label) == 0 &&
                                  w->plan[i].cost.flops == cost.flops &&
                                  w->plan[i].cost.bytes == cost.bytes))
            i++;
        if (i < w->plan_n)
            w->plan_seen[i] = true;
        else if (!w->drift[0])
            snprintf(w->drift, sizeof w->drift, "%s", label);
    }
    if (w->hooks && w->hooks->begin)
        w->hooks->begin(w->hooks->ctx, label, &cost);
}

/* After decode or prefill: every step matched the plan, every plan step ran. */
static int plan_check(struct wl *w, int rc)
{
    if (rc)
        return rc;
    for (int i = 0; i < w->plan_n && !w->drift[0]; i++)
        if (!w->plan_seen[i])
            snprintf(w->drift, sizeof w->drift, "%s (never ran)", w->plan[i].label);
    if (w->drift[0])
        return rl_fail(w->errmsg, RL_EINVAL,
                       "step '%s' differs from its plan in kernels/costs.c: fix the two together",
                       w->drift);
    return RL_OK;
}

static void end(struct wl *w)
{
    if (w->hooks && w->hooks->end)
        w->hooks->end(w->hooks->ctx);
}

static int sync(struct wl *w)
{
    cudaError_t e = cudaStreamSynchronize(w->s);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e == cudaSuccess ? RL_OK
                            : rl_fail(w->errmsg, RL_ECUDA, "GPU error: %s", cudaGetErrorString(e));
}

static void note(struct wl *w, const char *text)
{
    if (w->note)
        w->note(w->hooks ? w->hooks->ctx : NULL, text);
}

/* Run `call` reps times, each rep a step of its own (the cost is per
 * rep), then wait for them; rc keeps the first error. */
#define STEP(w, label, cost, call)                                               \
    do {                                                                         \
        if (rc)                                                                  \
            break;                                                               \
        for (int r_ = 0; r_ < (w)->reps && rc == RL_OK; r_++) {                  \
            begin(w, label, cost);                                               \
            rc = (call);                                                         \
            end(w);                                                              \
        }                                                                        \
        if (rc == RL_OK)                                                         \
            rc = sync(w);                                                        \
    } while (0)

/* A failed check becomes RL_EVERIFY with the step in errmsg. */
static int checked(struct wl *w, int c, const char *label, const char *why)
{
    if (c < 0)
        return rl_fail(w->errmsg, RL_EVERIFY, "%s: output check failed: %s", label, why);
    return c;
}

#define CHECK(w, label, call)                                                    \
    do {                                                                         \
        if (rc)                                                                  \
            break;                                                               \
        double worst_;                                                           \
        char why_[160] = "";                                                     \
        rc = checked(w, (call), label, why_);                                    \
        (void)worst_;                                                            \
    } while (0)

static int tensor(struct wl *w, struct rl_tensor *t, enum rl_dtype type, size_t n, uint32_t seed,
                  float scale)
{
    int rc = rl_tensor_alloc(t, type, n, w->errmsg);
    if (rc == RL_OK && seed)
        rc = rl_tensor_fill(t, seed, scale, w->s, w->errmsg);
    return rc;
}

/* A view of n elements of t starting at element off. */
static struct rl_tensor view(const struct rl_tensor *t, size_t off, size_t n)
{
    struct rl_tensor v = {(char *)t->d + off * rl_dtype_bytes(t->t), t->t, n};
    return v;
}

/* ---- GEMM ---------------------------------------------------------------- */

static int gemm_step(struct wl *w, const char *what, enum rl_gemm_kind kind, int64_t m, int64_t n,
                     int64_t k, const struct rl_tensor *a, const struct rl_tensor *b,
                     const struct rl_tensor *d)
{
    struct rl_gemm *g;
    int rc = rl_gemm_create(&g, kind, m, n, k, a, b, d, 1, w->s, w->errmsg);
    char label[160];
    if (rc == RL_EUNSUPPORTED) {
        snprintf(label, sizeof label, "skipped %s: %.120s", what, w->errmsg);
        note(w, label);
        return RL_OK;
    }
    if (rc)
        return rc;
    snprintf(label, sizeof label, "%s GEMM %lldx%lldx%lld %s (cuBLASLt)", what, (long long)m,
             (long long)n, (long long)k, rl_gemm_roof(g));
    struct rl_step_cost cost = {rl_gemm_flops(g), rl_gemm_min_bytes(g), rl_gemm_roof(g)};
    STEP(w, label, cost, rl_gemm_run(g, 0, w->errmsg));
    CHECK(w, label, rl_gemm_check(g, 16, &worst_, why_, w->errmsg));
    rl_gemm_destroy(g);
    return rc;
}

static int run_gemm(struct wl *w)
{
    static const struct {
        enum rl_gemm_kind kind;
        const char *name;
    } kinds[] = {{RL_GEMM_FP32, "fp32"}, {RL_GEMM_TF32, "tf32"}, {RL_GEMM_FP16, "fp16"},
                 {RL_GEMM_BF16, "bf16"}, {RL_GEMM_FP8, "fp8"}};
    int rc = RL_OK;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && rc == RL_OK; i++)
        rc = gemm_step(w, "square", kinds[i].kind, 4096, 4096, 4096, NULL, NULL, NULL);
    /* The GEMMs of one Llama-3-8B layer over 2048 tokens, BF16: M outputs x
     * N tokens x K inputs. */
    static const struct {
        const char *what;
        int64_t m, k;
    } layer[] = {{"qkv", QKV, HIDDEN}, {"o", HIDDEN, HIDDEN}, {"gate", FFN, HIDDEN},
                 {"down", HIDDEN, FFN}};
    for (size_t i = 0; i < sizeof layer / sizeof layer[0] && rc == RL_OK; i++)
        rc = gemm_step(w, layer[i].what, RL_GEMM_BF16, layer[i].m, 2048, layer[i].k, NULL, NULL,
                       NULL);
    return rc;
}

/* ---- GEMV ---------------------------------------------------------------- */

static int gemv_step(struct wl *w, const char *what, enum rl_dtype t, int64_t m, int64_t k,
                     int cublas)
{
    struct rl_tensor W = {0}, x = {0}, y = {0};
    char label[160];
    int rc;
    if ((rc = tensor(w, &W, t, (size_t)(m * k), 0x5EEDu + (uint32_t)m, 1.0f / sqrtf((float)k))) ||
        (rc = tensor(w, &x, t, (size_t)k, 0xF00Du, 1.0f)) ||
        (rc = tensor(w, &y, t, (size_t)m, 0, 0)))
        goto done;
    snprintf(label, sizeof label, "%s GEMV %lld->%lld %s (%s)", what, (long long)k, (long long)m,
             rl_dtype_name(t), cublas ? "cuBLAS" : "ours");
    if (cublas)
        STEP(w, label, rl_gemv_cost(m, k, t), rl_gemv_cublas(w->cublas, &W, &x, &y, m, k, w->errmsg));
    else
        STEP(w, label, rl_gemv_cost(m, k, t), rl_gemv(&W, &x, &y, m, k, w->s, w->errmsg));
    CHECK(w, label, rl_gemv_check(&W, &x, &y, m, k, &worst_, why_, w->errmsg));
done:
    rl_tensor_free(&W);
    rl_tensor_free(&x);
    rl_tensor_free(&y);
    return rc;
}

static int run_gemv(struct wl *w)
{
    /* Decode shapes of Llama-3-8B (inputs -> outputs). */
    static const struct {
        const char *what;
        int64_t m, k;
    } shapes[] = {{"q/o projection", HIDDEN, HIDDEN},
                  {"k/v projection (GQA)", KV_HEADS * HEAD_DIM, HIDDEN},
                  {"up/gate projection", FFN, HIDDEN},
                  {"down projection", HIDDEN, FFN},
                  {"LM head", VOCAB, HIDDEN}};
    int rc = RL_OK;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0] && rc == RL_OK; i++) {
        rc = gemv_step(w, shapes[i].what, RL_DT_BF16, shapes[i].m, shapes[i].k, 0);
        if (rc == RL_OK)
            rc = gemv_step(w, shapes[i].what, RL_DT_BF16, shapes[i].m, shapes[i].k, 1);
    }
    if (rc == RL_OK)
        rc = gemv_step(w, "up/gate projection", RL_DT_F16, FFN, HIDDEN, 0);
    if (rc == RL_OK)
        rc = gemv_step(w, "up/gate projection", RL_DT_F32, FFN, HIDDEN, 0);
    return rc;
}

/* ---- elementwise ----------------------------------------------------------- */

static int ew_step(struct wl *w, const char *label, enum rl_ew_op op, const struct rl_tensor *a,
                   const struct rl_tensor *b, struct rl_tensor *c, size_t n, float s)
{
    int rc = RL_OK;
    STEP(w, label, rl_ew_cost(op, n, a->t), rl_ew(op, a, b, c, n, s, w->s, w->errmsg));
    CHECK(w, label, rl_ew_check(op, a, b, c, n, s, &worst_, why_, w->errmsg));
    return rc;
}

static int rmsnorm_step(struct wl *w, const char *label, const struct rl_tensor *x,
                        const struct rl_tensor *g, struct rl_tensor *y, int64_t rows)
{
    int rc = RL_OK;
    STEP(w, label, rl_rmsnorm_cost(rows, HIDDEN, x->t),
         rl_rmsnorm(x, g, y, rows, HIDDEN, 1e-5f, w->s, w->errmsg));
    CHECK(w, label, rl_rmsnorm_check(x, g, y, rows, HIDDEN, 1e-5f, &worst_, why_, w->errmsg));
    return rc;
}

static int run_elementwise(struct wl *w)
{
    const size_t n = (size_t)2048 * HIDDEN, big = (size_t)64 << 20;
    struct rl_tensor a = {0}, b = {0}, c = {0}, g = {0}, fa = {0}, fb = {0}, fc = {0};
    double rows[4 * 2048];
    int rc;
    if ((rc = tensor(w, &a, RL_DT_BF16, n, 0xA1u, 2.0f)) ||
        (rc = tensor(w, &b, RL_DT_BF16, n, 0xB2u, 2.0f)) ||
        (rc = tensor(w, &c, RL_DT_BF16, n, 0, 0)) ||
        (rc = tensor(w, &g, RL_DT_BF16, HIDDEN, 0xC3u, 1.0f)) ||
        (rc = tensor(w, &fa, RL_DT_F32, big, 0xD4u, 1.0f)) ||
        (rc = tensor(w, &fb, RL_DT_F32, big, 0xE5u, 1.0f)) ||
        (rc = tensor(w, &fc, RL_DT_F32, big, 0, 0)))
        goto done;
    rc = ew_step(w, "vector add 64M fp32", RL_EW_ADD, &fa, &fb, &fc, big, 0);
    if (rc == RL_OK)
        rc = ew_step(w, "add 2048x4096 bf16", RL_EW_ADD, &a, &b, &c, n, 0);
    if (rc == RL_OK)
        rc = ew_step(w, "scale 2048x4096 bf16", RL_EW_SCALE, &a, NULL, &c, n, 0.5f);
    if (rc == RL_OK)
        rc = ew_step(w, "SiLU 2048x4096 bf16", RL_EW_SILU, &a, NULL, &c, n, 0);
    if (rc == RL_OK)
        rc = ew_step(w, "GELU 2048x4096 bf16", RL_EW_GELU, &a, NULL, &c, n, 0);
    if (rc == RL_OK)
        rc = ew_step(w, "SiLU x up (SwiGLU) 2048x4096 bf16", RL_EW_SILU_MUL, &a, &b, &c, n, 0);
    if (rc == RL_OK)
        rc = rmsnorm_step(w, "RMSNorm 2048x4096 bf16", &a, &g, &c, 2048);
    /* Softmax over 4096 rows of 2048 (attention-score sized), checked on
     * the first 4 rows read before it ran. */
    if (rc == RL_OK)
        rc = rl_tensor_read(&a, 0, 4 * 2048, 1, rows, w->errmsg);
    STEP(w, "softmax 4096x2048 bf16", rl_softmax_cost(4096, 2048, RL_DT_BF16),
         rl_softmax(&a, &c, 4096, 2048, 1.0f, 0, w->s, w->errmsg));
    CHECK(w, "softmax 4096x2048 bf16",
          rl_softmax_check(rows, &c, 0, 4, 2048, 1.0f, 0, &worst_, why_, w->errmsg));
done:
    rl_tensor_free(&a);
    rl_tensor_free(&b);
    rl_tensor_free(&c);
    rl_tensor_free(&g);
    rl_tensor_free(&fa);
    rl_tensor_free(&fb);
    rl_tensor_free(&fc);
    return rc;
}

/* ---- one transformer layer ------------------------------------------------- */

/* The weights of one Llama-3-8B layer, row-major [outputs][inputs]. */
struct layer {
    struct rl_tensor attn_norm, ffn_norm, wqkv, wo, wgate, wup, wdown;
};

static int layer_init(struct wl *w, struct layer *L)
{
    const float s_in = 1.0f / sqrtf((float)HIDDEN), s_ffn = 1.0f / sqrtf((float)FFN);
    int rc;
    memset(L, 0, sizeof *L);
    if ((rc = tensor(w, &L->attn_norm, RL_DT_BF16, HIDDEN, 0x11u, 0.5f)) ||
        (rc = tensor(w, &L->ffn_norm, RL_DT_BF16, HIDDEN, 0x12u, 0.5f)) ||
        (rc = tensor(w, &L->wqkv, RL_DT_BF16, (size_t)QKV * HIDDEN, 0x13u, s_in)) ||
        (rc = tensor(w, &L->wo, RL_DT_BF16, (size_t)HIDDEN * HIDDEN, 0x14u, s_in)) ||
        (rc = tensor(w, &L->wgate, RL_DT_BF16, (size_t)FFN * HIDDEN, 0x15u, s_in)) ||
        (rc = tensor(w, &L->wup, RL_DT_BF16, (size_t)FFN * HIDDEN, 0x16u, s_in)) ||
        (rc = tensor(w, &L->wdown, RL_DT_BF16, (size_t)HIDDEN * FFN, 0x17u, s_ffn)))
        return rc;
    return RL_OK;
}

static void layer_free(struct layer *L)
{
    rl_tensor_free(&L->attn_norm);
    rl_tensor_free(&L->ffn_norm);
    rl_tensor_free(&L->wqkv);
    rl_tensor_free(&L->wo);
    rl_tensor_free(&L->wgate);
    rl_tensor_free(&L->wup);
    rl_tensor_free(&L->wdown);
}

/* Our GEMV on given tensors, as one step, checked. */
static int gemv_bound(struct wl *w, const char *what, const struct rl_tensor *W,
                      const struct rl_tensor *x, struct rl_tensor *y, int64_t m, int64_t k)
{
    char label[160];
    int rc = RL_OK;
    snprintf(label, sizeof label, "%s GEMV %lld->%lld bf16 (built-in)", what, (long long)k,
             (long long)m);
    STEP(w, label, rl_gemv_cost(m, k, W->t), rl_gemv(W, x, y, m, k, w->s, w->errmsg));
    CHECK(w, label, rl_gemv_check(W, x, y, m, k, &worst_, why_, w->errmsg));
    return rc;
}

#define N_ACT 10

static int run_decode(struct wl *w)
{
    const int ctx = w->opt->decode_context > 0 ? w->opt->decode_context : 2048;
    struct layer L;
    struct rl_tensor t[N_ACT], kc = {0}, vc = {0};
    memset(t, 0, sizeof t);
    struct rl_tensor *x = &t[0], *h = &t[1], *qkv = &t[2], *att = &t[3], *o = &t[4], *x2 = &t[5],
                     *g = &t[6], *u = &t[7], *a = &t[8], *x3 = &t[9];
    struct rl_tensor d;
    char label[128];
    w->plan_n = rl_layer_plan("decode", ctx, w->plan, MAX_PLAN);
    int rc = layer_init(w, &L);
    if (rc == RL_OK &&
        ((rc = tensor(w, x, RL_DT_BF16, HIDDEN, 0x21u, 1.0f)) ||
         (rc = tensor(w, h, RL_DT_BF16, HIDDEN, 0, 0)) ||
         (rc = tensor(w, qkv, RL_DT_BF16, QKV, 0, 0)) ||
         (rc = tensor(w, att, RL_DT_BF16, HIDDEN, 0, 0)) ||
         (rc = tensor(w, o, RL_DT_BF16, HIDDEN, 0, 0)) ||
         (rc = tensor(w, x2, RL_DT_BF16, HIDDEN, 0, 0)) ||
         (rc = tensor(w, g, RL_DT_BF16, FFN, 0, 0)) ||
         (rc = tensor(w, u, RL_DT_BF16, FFN, 0, 0)) ||
         (rc = tensor(w, a, RL_DT_BF16, FFN, 0, 0)) ||
         (rc = tensor(w, x3, RL_DT_BF16, HIDDEN, 0, 0)) ||
         (rc = tensor(w, &kc, RL_DT_BF16, (size_t)KV_HEADS * ctx * HEAD_DIM, 0x22u, 1.0f)) ||
         (rc = tensor(w, &vc, RL_DT_BF16, (size_t)KV_HEADS * ctx * HEAD_DIM, 0x23u, 1.0f))))
        goto done;
    if (rc)
        goto done;
    if ((rc = sync(w)))
        goto done;
    d = *o; /* the down projection's output reuses o's buffer size (HIDDEN) */
    rc = rmsnorm_step(w, "decode attention RMSNorm 1x4096 bf16", x, &L.attn_norm, h, 1);
    if (rc == RL_OK)
        rc = gemv_bound(w, "decode qkv", &L.wqkv, h, qkv, QKV, HIDDEN);
    if (rc == RL_OK) {
        struct rl_tensor q = view(qkv, 0, (size_t)HEADS * HEAD_DIM);
        snprintf(label, sizeof label, "decode attention 32 heads / 8 KV heads, context %d bf16",
                 ctx);
        STEP(w, label, rl_attention_decode_cost(HEADS, KV_HEADS, ctx),
             rl_attention_decode(&q, &kc, &vc, att, HEADS, KV_HEADS, ctx, w->s, w->errmsg));
        CHECK(w, label, rl_attention_decode_check(&q, &kc, &vc, att, HEADS, KV_HEADS, ctx,
                                                  &worst_, why_, w->errmsg));
    }
    if (rc == RL_OK)
        rc = gemv_bound(w, "decode o", &L.wo, att, o, HIDDEN, HIDDEN);
    if (rc == RL_OK)
        rc = ew_step(w, "decode residual add 1x4096 bf16", RL_EW_ADD, x, o, x2, HIDDEN, 0);
    if (rc == RL_OK)
        rc = rmsnorm_step(w, "decode FFN RMSNorm 1x4096 bf16", x2, &L.ffn_norm, h, 1);
    if (rc == RL_OK)
        rc = gemv_bound(w, "decode gate", &L.wgate, h, g, FFN, HIDDEN);
    if (rc == RL_OK)
        rc = gemv_bound(w, "decode up", &L.wup, h, u, FFN, HIDDEN);
    if (rc == RL_OK)
        rc = ew_step(w, "decode SiLU x up (SwiGLU) 1x14336 bf16", RL_EW_SILU_MUL, g, u, a, FFN, 0);
    if (rc == RL_OK)
        rc = gemv_bound(w, "decode down", &L.wdown, a, &d, HIDDEN, FFN);
    if (rc == RL_OK)
        rc = ew_step(w, "decode residual add 1x4096 bf16", RL_EW_ADD, x2, &d, x3, HIDDEN, 0);
done:
    for (int i = 0; i < N_ACT; i++)
        rl_tensor_free(&t[i]);
    rl_tensor_free(&kc);
    rl_tensor_free(&vc);
    layer_free(&L);
    return plan_check(w, rc);
}

#define N_PRE 13

static int run_prefill(struct wl *w)
{
    const int64_t T = w->opt->prefill_tokens > 0 ? w->opt->prefill_tokens : 2048;
    struct layer L;
    struct rl_tensor t[N_PRE];
    memset(t, 0, sizeof t);
    struct rl_tensor *x = &t[0], *h = &t[1], *qkv = &t[2], *sc = &t[3], *pr = &t[4], *att = &t[5],
                     *o = &t[6], *x2 = &t[7], *g = &t[8], *u = &t[9], *a = &t[10], *dn = &t[11],
                     *x3 = &t[12];
    char label[160];
    double *rows = NULL;
    w->plan_n = rl_layer_plan("prefill", (int)T, w->plan, MAX_PLAN);
    int rc = layer_init(w, &L);
    if (rc == RL_OK &&
        ((rc = tensor(w, x, RL_DT_BF16, (size_t)T * HIDDEN, 0x31u, 1.0f)) ||
         (rc = tensor(w, h, RL_DT_BF16, (size_t)T * HIDDEN, 0, 0)) ||
         (rc = tensor(w, qkv, RL_DT_BF16, (size_t)T * QKV, 0, 0)) ||
         (rc = tensor(w, sc, RL_DT_BF16, (size_t)HEADS * T * T, 0, 0)) ||
         (rc = tensor(w, pr, RL_DT_BF16, (size_t)HEADS * T * T, 0, 0)) ||
         (rc = tensor(w, att, RL_DT_BF16, (size_t)T * HIDDEN, 0, 0)) ||
         (rc = tensor(w, o, RL_DT_BF16, (size_t)T * HIDDEN, 0, 0)) ||
         (rc = tensor(w, x2, RL_DT_BF16, (size_t)T * HIDDEN, 0, 0)) ||
         (rc = tensor(w, g, RL_DT_BF16, (size_t)T * FFN, 0, 0)) ||
         (rc = tensor(w, u, RL_DT_BF16, (size_t)T * FFN, 0, 0)) ||
         (rc = tensor(w, a, RL_DT_BF16, (size_t)T * FFN, 0, 0)) ||
         (rc = tensor(w, dn, RL_DT_BF16, (size_t)T * HIDDEN, 0, 0)) ||
         (rc = tensor(w, x3, RL_DT_BF16, (size_t)T * HIDDEN, 0, 0))))
        goto done;
    if (rc || (rc = sync(w)))
        goto done;
    snprintf(label, sizeof label, "prefill attention RMSNorm %lldx4096 bf16", (long long)T);
    rc = rmsnorm_step(w, label, x, &L.attn_norm, h, T);
    /* Y[T][M] = X[T][K] W[M][K]^T: A = weights, B = activations. */
    if (rc == RL_OK)
        rc = gemm_step(w, "prefill qkv", RL_GEMM_BF16, QKV, T, HIDDEN, &L.wqkv, h, qkv);
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill attention QK^T %d heads x %lldx%lld (cuBLAS batched)",
                 HEADS, (long long)T, (long long)T);
        STEP(w, label, rl_attention_prefill_cost(0, HEADS, KV_HEADS, (int)T),
             rl_attention_prefill_qk(w->cublas, qkv, sc, HEADS, KV_HEADS, (int)T, w->errmsg));
    }
    /* The causal softmax, checked on 2 rows of scores read before it ran. */
    if (rc == RL_OK && !(rows = rl_malloc(2 * (size_t)T * sizeof *rows)))
        rc = rl_fail(w->errmsg, RL_ENOMEM, "out of memory");
    if (rc == RL_OK)
        rc = rl_tensor_read(sc, (size_t)(T - 2) * T, 2 * (size_t)T, 1, rows, w->errmsg);
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill attention softmax (causal) %lldx%lld bf16",
                 (long long)(HEADS * T), (long long)T);
        STEP(w, label, rl_softmax_cost(HEADS * T, T, RL_DT_BF16),
             rl_softmax(sc, pr, HEADS * T, T, 1.0f / sqrtf((float)HEAD_DIM), T, w->s, w->errmsg));
        CHECK(w, label, rl_softmax_check(rows, pr, T - 2, 2, T, 1.0f / sqrtf((float)HEAD_DIM), T,
                                         &worst_, why_, w->errmsg));
    }
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill attention PV %d heads x %lldx%lld (cuBLAS batched)",
                 HEADS, (long long)T, (long long)T);
        STEP(w, label, rl_attention_prefill_cost(1, HEADS, KV_HEADS, (int)T),
             rl_attention_prefill_pv(w->cublas, pr, qkv, att, HEADS, KV_HEADS, (int)T,
                                     w->errmsg));
        CHECK(w, label, rl_attention_prefill_check(qkv, att, HEADS, KV_HEADS, (int)T, &worst_,
                                                   why_, w->errmsg));
    }
    if (rc == RL_OK)
        rc = gemm_step(w, "prefill o", RL_GEMM_BF16, HIDDEN, T, HIDDEN, &L.wo, att, o);
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill residual add %lldx4096 bf16", (long long)T);
        rc = ew_step(w, label, RL_EW_ADD, x, o, x2, (size_t)T * HIDDEN, 0);
    }
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill FFN RMSNorm %lldx4096 bf16", (long long)T);
        rc = rmsnorm_step(w, label, x2, &L.ffn_norm, h, T);
    }
    if (rc == RL_OK)
        rc = gemm_step(w, "prefill gate", RL_GEMM_BF16, FFN, T, HIDDEN, &L.wgate, h, g);
    if (rc == RL_OK)
        rc = gemm_step(w, "prefill up", RL_GEMM_BF16, FFN, T, HIDDEN, &L.wup, h, u);
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill SiLU x up (SwiGLU) %lldx14336 bf16", (long long)T);
        rc = ew_step(w, label, RL_EW_SILU_MUL, g, u, a, (size_t)T * FFN, 0);
    }
    if (rc == RL_OK)
        rc = gemm_step(w, "prefill down", RL_GEMM_BF16, HIDDEN, T, FFN, &L.wdown, a, dn);
    if (rc == RL_OK) {
        snprintf(label, sizeof label, "prefill residual add %lldx4096 bf16", (long long)T);
        rc = ew_step(w, label, RL_EW_ADD, x2, dn, x3, (size_t)T * HIDDEN, 0);
    }
done:
    free(rows);
    for (int i = 0; i < N_PRE; i++)
        rl_tensor_free(&t[i]);
    layer_free(&L);
    return plan_check(w, rc);
}

/* ---- given shapes (roofline llm --measure) --------------------------------- */

static int run_shapes(struct wl *w)
{
    if (!w->opt->shapes || w->opt->n_shapes < 1)
        return rl_fail(w->errmsg, RL_EINVAL, "workload 'shapes' needs shapes");
    int rc = RL_OK;
    for (int i = 0; i < w->opt->n_shapes && rc == RL_OK; i++) {
        const struct rl_wl_shape *s = &w->opt->shapes[i];
        if (s->m < 1 || s->n < 1 || s->k < 1)
            return rl_fail(w->errmsg, RL_EINVAL, "shape '%s': sizes must be >= 1", s->label);
        if (s->n == 1)
            rc = gemv_step(w, s->label, RL_DT_BF16, s->m, s->k, 0);
        else
            rc = gemm_step(w, s->label, RL_GEMM_BF16, s->m, s->n, s->k, NULL, NULL, NULL);
    }
    return rc;
}

/* ---- the registry ---------------------------------------------------------- */

static const struct {
    const char *name;
    int (*run)(struct wl *w);
} workloads[] = {{"gemm", run_gemm},
                 {"gemv", run_gemv},
                 {"elementwise", run_elementwise},
                 {"decode", run_decode},
                 {"prefill", run_prefill},
                 {"shapes", run_shapes}};

/* rl_workload_names() is in costs.c: the host side (the CLI checks
 * `--builtin` before it opens this plugin). */

int rl_workload_run(const char *name, const struct rl_wl_options *opt,
                    const struct rl_wl_hooks *hooks,
                    void (*note_fn)(void *ctx, const char *text), char *errmsg)
{
    int (*run)(struct wl *) = NULL;
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        if (strcmp(workloads[i].name, name) == 0)
            run = workloads[i].run;
    if (!run)
        return rl_fail(errmsg, RL_ENOTFOUND,
                       "no workload '%s' (gemm, gemv, elementwise, decode, prefill, shapes)",
                       name);
    static struct wl w;
    memset(&w, 0, sizeof w);
    w.opt = opt;
    w.hooks = hooks;
    w.note = note_fn;
    w.errmsg = errmsg;
    w.reps = opt->reps > 0 ? opt->reps : 1;
    cudaError_t e;
    if ((e = cudaSetDevice(opt->device)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&w.s, cudaStreamNonBlocking)) != cudaSuccess)
        return rl_fail(errmsg, RL_ENODEV, "cannot use GPU %d: %s", opt->device,
                       cudaGetErrorString(e));
    int rc = RL_OK;
    cublasStatus_t st = cublasCreate(&w.cublas);
    if (st != CUBLAS_STATUS_SUCCESS || cublasSetStream(w.cublas, w.s) != CUBLAS_STATUS_SUCCESS)
        rc = rl_fail(errmsg, RL_ECUDA, "cublasCreate: %s", cublasGetStatusString(st));
    if (rc == RL_OK)
        rc = run(&w);
    if (w.cublas)
        cublasDestroy(w.cublas);
    cudaStreamDestroy(w.s);
    return rc;
}
