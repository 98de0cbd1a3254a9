/* check_torch_llm.c - LLM serving operators in PyTorch traces (readers/torchops-llm.h, torch-graph.c, report/llm-step.h): the fused MoE from the model, the small fused kernels, graph replays, on real vLLM and SGLang traces (tests/data/torch-serving, torch-real). */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"
#include "analyzer/readers/torchops-llm.h"
#include "analyzer/util/error.h"
#include "tests/test_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BF16 "c10::BFloat16"
#define E4M3 "c10::Float8_e4m3fn"
#define I64 "long int"

static const struct rl_torch_tensor *tens(int ndim, int64_t d0, int64_t d1, int64_t d2,
                                          int64_t d3)
{
    /* from a pool that lives as long as the test (nothing to free) */
    static struct rl_torch_tensor pool[256];
    static size_t used;
    ck_assert_uint_lt(used, sizeof pool / sizeof pool[0]);
    struct rl_torch_tensor *t = &pool[used++];
    memset(t, 0, sizeof *t);
    t->ndim = ndim;
    t->dims[0] = d0, t->dims[1] = d1, t->dims[2] = d2, t->dims[3] = d3;
    return t;
}

static struct rl_torch_arg ten(const char *type, const struct rl_torch_tensor *t)
{
    struct rl_torch_arg a = {.kind = RL_TORCH_ARG_TENSOR, .n_tensors = 1, .t = t, .concrete = ""};
    snprintf(a.type, sizeof a.type, "%s", type);
    return a;
}

static struct rl_torch_arg none(void)
{
    return (struct rl_torch_arg){.kind = RL_TORCH_ARG_NONE, .concrete = ""};
}

static bool cost(const char *name, struct rl_torch_arg *args, size_t n, int world,
                 struct rl_torch_cost *c)
{
    struct rl_torch_op op = {.name = name, .n_args = n, .args = args, .profiler_flops = NAN,
                             .world_size = world};
    return rl_torch_op_cost(&op, c);
}

static struct rl_torch_llm ctx_of(const char *model_json)
{
    struct rl_torch_llm x;
    memset(&x, 0, sizeof x);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_llm_model_load(&x.model, getenv("ROOFLINE_DATA_DIR"),
                                       rl_test_data(model_json), err),
                     RL_OK);
    return x;
}

/* ---- the expected distinct experts ------------------------------------------ */

START_TEST(distinct_experts)
{
    /* one token: its k experts */
    ck_assert_double_eq_tol(rl_torch_llm_distinct_experts(128, 4, 1), 4, 1e-9);
    /* two tokens of top 4 of 128: 128 (1 - (124/128)^2) = 128 (1 - 0.9384765625) = 7.875 */
    ck_assert_double_eq_tol(rl_torch_llm_distinct_experts(128, 4, 2), 7.875, 1e-9);
    /* Mixtral, 4 tokens of top 2 of 8: 8 (1 - 0.75^4) = 8 x 0.68359375 = 5.46875 */
    ck_assert_double_eq_tol(rl_torch_llm_distinct_experts(8, 2, 4), 5.46875, 1e-9);
    /* every expert picked by each token, and no tokens */
    ck_assert_double_eq(rl_torch_llm_distinct_experts(8, 8, 3), 8);
    ck_assert_double_eq(rl_torch_llm_distinct_experts(8, 2, 0), 0);
    ck_assert_double_eq(rl_torch_llm_distinct_experts(0, 2, 5), 0);
}
END_TEST

/* ---- the fused MoE from the model -------------------------------------------- */

/* vllm::moe_forward(hidden_states [888, 3072] bf16, router_logits [888, 128]
 * bf16, layer_name) of gpt-oss-120b (H = F = 2880, top 4 of 128, gated) on
 * one rank of 8 (tensor parallel), MXFP4 experts (17/32 byte a weight:
 * four bits and one 8-bit scale per 32):
 *   FLOPs = 888 x 4 x (2 x 2880 x 2 x 2880 + 2 x 2880 x 2880) / 8
 *         = 3552 x 49766400 / 8 = 22 096 281 600
 *   weights = D x 3 x 2880 x 2880 x 17/32 / 8, D = 128 (1 - (31/32)^888)
 *         = 128 - 7.3e-11: 211 507 200 (to a byte)
 *   activations: hidden_states 888 x 3072 x 2 = 5 455 872 read and
 *   written, router_logits 888 x 128 x 2 = 227 328 read
 *   bytes = 211 507 200 + 2 x 5 455 872 + 227 328 = 222 646 272 */
START_TEST(moe_forward_from_model)
{
    struct rl_torch_llm x = ctx_of("torch-serving/gpt-oss-120b.json");
    x.expert_weight_bytes = 17.0 / 32;
    rl_torch_llm_use(&x);
    struct rl_torch_arg a[] = {ten(BF16, tens(2, 888, 3072, 0, 0)),
                               ten(BF16, tens(2, 888, 128, 0, 0)), none()};
    struct rl_torch_cost c;
    ck_assert(cost("vllm::moe_forward", a, 3, 8, &c));
    ck_assert_double_eq_tol(c.flops, 22096281600.0, 1);
    ck_assert_double_eq_tol(c.weight_bytes, 211507200.0, 1);
    ck_assert_double_eq_tol(c.act_bytes, 5455872.0, 1e-6);
    ck_assert_double_eq_tol(c.bytes, 222646272.0, 1);
    ck_assert_str_eq(c.formula, "moe-gated");
    ck_assert_str_eq(c.dtype, "bf16");
    ck_assert(c.matmul);
    ck_assert_ptr_nonnull(strstr(c.note, "tp 8 x ep 1"));
    /* --tp 4 --ep 2: the same 8 ranks, the same share */
    x.tp = 4, x.ep = 2;
    ck_assert(cost("vllm::moe_forward", a, 3, 8, &c));
    ck_assert_double_eq_tol(c.flops, 22096281600.0, 1);
    /* one GPU (no distributedInfo): eight times the rank's */
    x.tp = x.ep = 0;
    ck_assert(cost("vllm::moe_forward", a, 3, -1, &c));
    ck_assert_double_eq_tol(c.flops, 8 * 22096281600.0, 8);
    /* no expert bytes given: the hidden states' bf16, 2 bytes a weight:
     * 128 x 3 x 2880^2 x 2 / 8 = 796 262 400 */
    x.expert_weight_bytes = 0;
    ck_assert(cost("vllm::moe_forward", a, 3, 8, &c));
    ck_assert_double_eq_tol(c.weight_bytes, 796262400.0, 1);
    rl_torch_llm_use(NULL);
}
END_TEST

/* The shipped Hugging Face configs (data/models/hf): gpt-oss-120b's
 * quantization_config gives the MXFP4 experts (17/32 byte) with no
 * bytes given: the same 211 507 200 as moe_forward_from_model. DeepSeek-V3
 * (H 7168, F 2048, top 8 of 256, one shared expert of 2048, FP8 with one
 * FP32 scale per 128 x 128: 1 + 4/16384 bytes), vllm::moe_forward_shared
 * of 16 tokens on one rank of 8:
 *   routed FLOPs = 16 x 8 x (2 x 7168 x 2 x 2048 + 2 x 2048 x 7168) / 8
 *                = 128 x 88 080 384 / 8 = 1 409 286 144
 *   shared FLOPs = 16 x 88 080 384 / 8 = 176 160 768; sum 1 585 446 912
 *   routed weights = D x 3 x 7168 x 2048 x 1.000244140625 / 8,
 *     D = 256 (1 - (31/32)^16) = 101.962162: 561 441 187.8
 *   shared weights = 3 x 7168 x 2048 x 1.000244140625 / 8 = 5 506 368
 *   bytes = 566 947 555.8 + 2 x 16 x 7168 x 2 + 16 x 256 x 2 = 567 414 499.8 */
START_TEST(moe_from_shipped_configs)
{
    struct rl_torch_llm x;
    memset(&x, 0, sizeof x);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_llm_model_load(&x.model, getenv("ROOFLINE_DATA_DIR"), "gpt-oss-120b", err),
                     RL_OK);
    rl_torch_llm_use(&x);
    struct rl_torch_arg a[] = {ten(BF16, tens(2, 888, 3072, 0, 0)),
                               ten(BF16, tens(2, 888, 128, 0, 0)), none()};
    struct rl_torch_cost c;
    ck_assert(cost("vllm::moe_forward", a, 3, 8, &c));
    ck_assert_double_eq_tol(c.weight_bytes, 211507200.0, 1);
    ck_assert_str_eq(c.formula, "moe-gated"); /* the format known: no name needed */
    ck_assert_int_eq(rl_llm_model_load(&x.model, getenv("ROOFLINE_DATA_DIR"), "deepseek-v3", err),
                     RL_OK);
    struct rl_torch_arg d[] = {ten(BF16, tens(2, 16, 7168, 0, 0)),
                               ten(BF16, tens(2, 16, 256, 0, 0)), none()};
    ck_assert(cost("vllm::moe_forward_shared", d, 3, 8, &c));
    ck_assert_double_eq_tol(c.flops, 1585446912.0, 1e-3);
    ck_assert_double_eq_tol(c.weight_bytes, 566947555.8, 1);
    ck_assert_double_eq_tol(c.bytes, 567414499.8, 1);
    /* moe_forward: the routed experts alone */
    ck_assert(cost("vllm::moe_forward", d, 3, 8, &c));
    ck_assert_double_eq_tol(c.flops, 1409286144.0, 1e-3);
    ck_assert_double_eq_tol(c.weight_bytes, 561441187.8, 1);
    rl_torch_llm_use(NULL);
}
END_TEST

/* fused_experts(hidden_states [4, 4096] bf16, w1 [8, 28672, 4096] bf16,
 * w2 [8, 4096, 14336] bf16, topk_weights [4, 2] float, topk_ids [4, 2]
 * int): Mixtral's shapes, no model needed.
 *   FLOPs = 4 x 2 x (2 x 4096 x 28672 + 2 x 14336 x 4096)
 *         = 8 x (234 881 024 + 117 440 512) = 2 818 572 288
 *   an expert's bytes = (28672 x 4096 + 4096 x 14336) x 2 = 352 321 536
 *   weights = 5.46875 x 352 321 536 = 1 926 758 400 (D of 4 tokens, top 2 of 8)
 *   bytes = 1 926 758 400 + 2 x 32 768 + 32 + 32 = 1 926 824 000 */
START_TEST(fused_experts_from_shapes)
{
    rl_torch_llm_use(NULL);
    struct rl_torch_arg a[] = {ten(BF16, tens(2, 4, 4096, 0, 0)),
                               ten(BF16, tens(3, 8, 28672, 4096, 0)),
                               ten(BF16, tens(3, 8, 4096, 14336, 0)),
                               ten("float", tens(2, 4, 2, 0, 0)),
                               ten("int", tens(2, 4, 2, 0, 0))};
    struct rl_torch_cost c;
    ck_assert(cost("vllm::inplace_fused_experts", a, 5, 8, &c));
    ck_assert_double_eq_tol(c.flops, 2818572288.0, 1e-3);
    ck_assert_double_eq_tol(c.weight_bytes, 1926758400.0, 1e-3);
    ck_assert_double_eq_tol(c.bytes, 1926824000.0, 1e-3);
}
END_TEST

/* The small fused kernels of the B200 trace, by their bytes (readers/
 * TORCH-OPS.md, "LLM serving operators"). */
START_TEST(small_fused_kernels)
{
    rl_torch_llm_use(NULL);
    struct rl_torch_cost c;
    /* _C::fused_add_rms_norm(x [888, 2880], residual [888, 2880], w [2880], eps):
     * 2 x (5 114 880 + 5 114 880) + 5 760 = 20 465 280 bytes, 5 x 2 557 440 FLOPs */
    struct rl_torch_arg n[] = {ten(BF16, tens(2, 888, 2880, 0, 0)),
                               ten(BF16, tens(2, 888, 2880, 0, 0)),
                               ten(BF16, tens(1, 2880, 0, 0, 0)), none()};
    ck_assert(cost("_C::fused_add_rms_norm", n, 4, 8, &c));
    ck_assert_double_eq(c.bytes, 20465280);
    ck_assert_double_eq(c.flops, 12787200);
    /* _C::rms_norm(out, x, w, eps): 5 114 880 + 5 760 + 5 114 880 = 10 235 520, 4 x 2 557 440 */
    ck_assert(cost("_C::rms_norm", n, 4, 8, &c));
    ck_assert_double_eq(c.bytes, 10235520);
    ck_assert_double_eq(c.flops, 10229760);
    /* _C::rotary_embedding(pos [888] int64, q [888, 512], k [888, 64], 64,
     * cache [131072, 64], True): 2 x (909 312 + 113 664) + 7 104 + 888 x 64 x 2
     * = 2 045 952 + 7 104 + 113 664 = 2 166 720; 3 x (454 656 + 56 832) = 1 534 464 */
    struct rl_torch_arg r[] = {ten(I64, tens(1, 888, 0, 0, 0)), ten(BF16, tens(2, 888, 512, 0, 0)),
                               ten(BF16, tens(2, 888, 64, 0, 0)), none(),
                               ten(BF16, tens(2, 131072, 64, 0, 0)), none()};
    ck_assert(cost("_C::rotary_embedding", r, 6, 8, &c));
    ck_assert_double_eq(c.bytes, 2166720);
    ck_assert_double_eq(c.flops, 1534464);
    /* _C_cache_ops::reshape_and_cache_flash(k [888, 1, 64], v, caches uint8,
     * slots [888], ...): 113 664 x 2 + 7 104 + 2 x 56 832 x 1 = 348 096; no FLOPs */
    struct rl_torch_arg k[] = {ten(BF16, tens(3, 888, 1, 64, 0)), ten(BF16, tens(3, 888, 1, 64, 0)),
                               ten("unsigned char", tens(4, 4213816, 16, 1, 64)),
                               ten("unsigned char", tens(4, 4213816, 16, 1, 64)),
                               ten(I64, tens(1, 888, 0, 0, 0)), none()};
    ck_assert(cost("_C_cache_ops::reshape_and_cache_flash", k, 6, 8, &c));
    ck_assert_double_eq(c.bytes, 348096);
    ck_assert(isnan(c.flops));
    /* _C::static_scaled_fp8_quant(out fp8 [888, 512], x bf16 [888, 512],
     * scale float 0-d): 909 312 + 454 656 + 4 = 1 363 972; 2 x 454 656 */
    struct rl_torch_arg q[] = {ten(E4M3, tens(2, 888, 512, 0, 0)), ten(BF16, tens(2, 888, 512, 0, 0)),
                               ten("float", tens(0, 0, 0, 0, 0))};
    ck_assert(cost("_C::static_scaled_fp8_quant", q, 3, 8, &c));
    ck_assert_double_eq(c.bytes, 1363972);
    ck_assert_double_eq(c.flops, 909312);
    ck_assert_str_eq(c.dtype, "bf16");
    /* _C::silu_and_mul(out [4, 14336], x [4, 28672]): 114 688 + 229 376 = 344 064; 5 x 57 344 */
    struct rl_torch_arg s[] = {ten(BF16, tens(2, 4, 14336, 0, 0)), ten(BF16, tens(2, 4, 28672, 0, 0))};
    ck_assert(cost("_C::silu_and_mul", s, 2, 8, &c));
    ck_assert_double_eq(c.bytes, 344064);
    ck_assert_double_eq(c.flops, 286720);
}
END_TEST

/* A fused MoE's kernels share its cost by role (flops 300 = 200 gate-up + 100
 * down, weights 600 = 400 + 200, one pass over the activations 10, logits 5). */
START_TEST(moe_kernel_parts)
{
    struct rl_torch_cost c = {.known = true, .flops = 300, .bytes = 600 + 2 * 10 + 5,
                              .weight_bytes = 600, .act_bytes = 10};
    snprintf(c.formula, sizeof c.formula, "moe-gated");
    double f, b;
    /* TensorRT-LLM's bmm writing FP8 for the next GEMM: gate-up */
    ck_assert(rl_torch_llm_kernel_part(&c, "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16", false, &f, &b));
    ck_assert_double_eq_tol(f, 200, 1e-9);
    ck_assert_double_eq_tol(b, 410, 1e-9);
    /* writing BF16: the down GEMM */
    ck_assert(rl_torch_llm_kernel_part(&c, "bmm_Bfloat16_MxE2m1MxE4m3_Fp32", true, &f, &b));
    ck_assert_double_eq_tol(f, 100, 1e-9);
    ck_assert_double_eq_tol(b, 210, 1e-9);
    /* Triton matmul_ogs with SwiGLU fused in, and without */
    ck_assert(rl_torch_llm_kernel_part(&c, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu",
                                       false, &f, &b));
    ck_assert_double_eq_tol(f, 200, 1e-9);
    ck_assert(rl_torch_llm_kernel_part(&c, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", false,
                                       &f, &b));
    ck_assert_double_eq_tol(f, 100, 1e-9);
    /* vLLM's Triton fused_moe_kernel, launched for both: half each */
    ck_assert(rl_torch_llm_kernel_part(&c, "fused_moe_kernel", false, &f, &b));
    ck_assert_double_eq_tol(f, 150, 1e-9);
    ck_assert_double_eq_tol(b, 312.5, 1e-9);
    /* the routing reads the logits; the other helpers one pass over the activations */
    ck_assert(rl_torch_llm_kernel_part(&c, "void moe::dev::routing::routingIndicesHistogramKernel",
                                       false, &f, &b));
    ck_assert(isnan(f));
    ck_assert_double_eq_tol(b, 5, 1e-9);
    ck_assert(rl_torch_llm_kernel_part(&c, "void moe::dev::finalize::finalizeKernelVecLoad", false,
                                       &f, &b));
    ck_assert(isnan(f));
    ck_assert_double_eq_tol(b, 10, 1e-9);
    /* any other operator: the whole cost on its longest kernel only */
    snprintf(c.formula, sizeof c.formula, "mm");
    ck_assert(rl_torch_llm_kernel_part(&c, "bmm_Bfloat16", true, &f, &b));
    ck_assert_double_eq(f, 300);
    ck_assert(!rl_torch_llm_kernel_part(&c, "bmm_Bfloat16", false, &f, &b));
}
END_TEST

/* ---- real traces -------------------------------------------------------------- */

static double op_sum(const struct rl_trace_groups *g, const char *op, bool flops)
{
    double s = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct rl_trace_group *t = &g->v[i];
        if (!t->op || strcmp(t->op, op) != 0)
            continue;
        if (flops && t->counted)
            s += t->flops;
        if (!flops && t->counted)
            s += t->bytes[RL_MEM_DRAM];
        if (!flops && t->bytes_only)
            s += t->bytes_only_bytes[RL_MEM_DRAM];
    }
    return s;
}

/* vLLM eager, gpt-oss-120b, tensor-parallel rank 0 of 8 on a B200
 * (torch-real/SOURCES.md): 36 vllm::moe_forward calls of 888 tokens. The
 * MoE FLOPs are 36 x 22 096 281 600 = 795 466 137 600 (moe_forward_from_model),
 * all on the two expert GEMMs (the helpers carry bytes only). */
START_TEST(b200_moe_flops_equal_the_hand_count)
{
    struct rl_torch_llm x = ctx_of("torch-serving/gpt-oss-120b.json");
    x.expert_weight_bytes = 17.0 / 32;
    rl_torch_llm_use(&x);
    struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_torch_load(&g, rl_test_data("torch-real/tracelens_b200_eager_trace.json.gz"),
                                   &st, err),
                     RL_OK);
    rl_torch_llm_use(NULL);
    ck_assert_int_eq(st.world_size, 8);
    ck_assert_double_eq_tol(op_sum(&g, "vllm::moe_forward", true), 795466137600.0, 36);
    /* the gate-up GEMM (bmm_MxE4m3...) two thirds, the down GEMM one third;
     * weights 2/3 x 211 507 200 + 5 455 872 = 146 460 672 a call */
    double up = 0, down = 0, up_bytes = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *t = &g.v[i];
        if (!t->op || strcmp(t->op, "vllm::moe_forward") != 0 || !t->counted)
            continue;
        if (strncmp(t->name, "bmm_MxE4m3", 10) == 0)
            up += t->flops, up_bytes += t->bytes[RL_MEM_DRAM];
        else if (strncmp(t->name, "bmm_Bfloat16", 12) == 0)
            down += t->flops;
    }
    ck_assert_double_eq_tol(up, 36 * 14730854400.0, 36);
    ck_assert_double_eq_tol(down, 36 * 7365427200.0, 36);
    ck_assert_double_eq_tol(up_bytes, 36 * 146460672.0, 36);
    /* the small fused kernels are costed: 72 fused_add_rms_norm calls of
     * 20 465 280 bytes (small_fused_kernels) */
    ck_assert_double_eq_tol(op_sum(&g, "_C::fused_add_rms_norm", false), 72 * 20465280.0, 1);
    /* attention stays unknown: its context lengths are not in the trace */
    ck_assert_double_eq(op_sum(&g, "vllm::unified_attention_with_output", false), 0);
    rl_trace_groups_release(&g);
}
END_TEST

/* Without --model the MoE is unknown, the small kernels still costed. */
START_TEST(b200_without_model)
{
    rl_torch_llm_use(NULL);
    struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_torch_load(&g, rl_test_data("torch-real/tracelens_b200_eager_trace.json.gz"),
                                   &st, err),
                     RL_OK);
    ck_assert_double_eq(op_sum(&g, "vllm::moe_forward", true), 0);
    ck_assert_double_eq_tol(op_sum(&g, "_C::fused_add_rms_norm", false), 72 * 20465280.0, 1);
    ck_assert_uint_eq(st.graph_kernels, 0); /* an eager trace */
    rl_trace_groups_release(&g);
}
END_TEST

/* vLLM, gpt-oss-20b decode in one full HIP graph on an MI300X
 * (torch-serving/SOURCES.md): 421 of its 425 kernels come from the one
 * hipGraphLaunch (counted by correlation with python, SOURCES.md), none
 * has an eager twin: all grouped as "(HIP graph replay)", none costed. */
START_TEST(graph_replay_grouped)
{
    rl_torch_llm_use(NULL);
    struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(
        rl_torch_load(&g, rl_test_data("torch-serving/vllm_gptoss20b_mi300x_decode_fullgraph.json.gz"),
                      &st, err),
        RL_OK);
    ck_assert_uint_eq(st.graph_kernels, 421);
    ck_assert_uint_eq(st.graph_costed, 0);
    uint64_t replayed = 0;
    for (size_t i = 0; i < g.n; i++)
        if (g.v[i].op && strncmp(g.v[i].op, "(HIP graph replay)", 18) == 0)
            replayed += g.v[i].launches;
    ck_assert_uint_eq(replayed, 421);
    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "421 kernels"));
    ck_assert_ptr_nonnull(strstr(notes, "--enforce-eager"));
    rl_trace_groups_release(&g);
}
END_TEST

/* A V100 trace (torch-real/trace_diff-test) replays 4464 kernels from CUDA
 * graphs (python: kernels whose correlation is a cudaGraphLaunch's); 726 of
 * them have a twin of the same name, grid and block launched eagerly. A
 * replayed group costed from its twin carries the twin's FLOPs per launch. */
START_TEST(graph_replay_costed_from_eager_twin)
{
    rl_torch_llm_use(NULL);
    struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_torch_load(&g, rl_test_data("torch-real/trace_diff-test.json.gz"), &st, err),
                     RL_OK);
    ck_assert_uint_eq(st.graph_kernels, 4464);
    ck_assert_uint_gt(st.graph_costed, 0);
    ck_assert_uint_le(st.graph_costed, 726);
    size_t checked = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *r = &g.v[i];
        if (!r->op || strncmp(r->op, "(CUDA graph replay) ", 20) != 0 || !r->counted)
            continue;
        for (size_t j = 0; j < g.n; j++) {
            const struct rl_trace_group *t = &g.v[j];
            if (j == i || !t->counted || !t->op || strncmp(t->op, "(CUDA graph replay)", 19) == 0 ||
                strcmp(t->name, r->name) != 0 || memcmp(t->grid, r->grid, sizeof t->grid) ||
                memcmp(t->block, r->block, sizeof t->block))
                continue;
            char label[200];
            snprintf(label, sizeof label, "(CUDA graph replay) %s", t->op);
            ck_assert_str_eq(r->op, label);
            ck_assert_double_eq_tol(r->flops / (double)r->counted, t->flops / (double)t->counted,
                                    1e-6 * t->flops / (double)t->counted + 1e-9);
            checked++;
            break;
        }
    }
    ck_assert_uint_gt(checked, 0);
    rl_trace_groups_release(&g);
}
END_TEST

/* The same decode with --model: the replayed MoE kernels costed from the
 * model by their names and the step's 32 tokens (its annotation
 * execute_32_context_0(...)_generation_32(...)). gpt-oss-20b, one GPU:
 * a layer's MoE FLOPs = 32 x 4 x (2 x 2880 x 2 x 2880 + 2 x 2880 x 2880)
 * = 128 x 49 766 400 = 6 370 099 200, two thirds (4 246 732 800) on the
 * gate-up GEMM (_matmul_ogs_..._swiglu), a third (2 123 366 400) on the
 * down GEMM; 24 launches each (24 layers). Its bytes: the MXFP4 weights
 * its name says (17/32 byte) of D = 32 (1 - (7/8)^32) = 31.553925 experts,
 * 2/3 x 31.553925 x 3 x 2880^2 x 17/32 = 2 x 31.553925 x 8 294 400 x 0.53125
 * = 278 078 432.1, plus 32 x 2880 x 2 = 184 320 of activations. */
START_TEST(graph_replay_costed_from_model)
{
    struct rl_torch_llm x = ctx_of("torch-serving/gpt-oss-20b.json");
    rl_torch_llm_use(&x);
    struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(
        rl_torch_load(&g, rl_test_data("torch-serving/vllm_gptoss20b_mi300x_decode_fullgraph.json.gz"),
                      &st, err),
        RL_OK);
    rl_torch_llm_use(NULL);
    double up = NAN, down = NAN, up_bytes = NAN;
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *t = &g.v[i];
        if (!t->counted || strncmp(t->name, "_matmul_ogs_", 12) != 0)
            continue;
        ck_assert_uint_eq(t->counted, 24);
        if (strstr(t->name, "_swiglu"))
            up = t->flops, up_bytes = t->bytes[RL_MEM_DRAM];
        else
            down = t->flops;
    }
    ck_assert_double_eq_tol(up, 24 * 4246732800.0, 24);
    ck_assert_double_eq_tol(down, 24 * 2123366400.0, 24);
    double d = 32 * (1 - pow(7.0 / 8, 32));
    ck_assert_double_eq_tol(d, 31.553925, 1e-6);
    ck_assert_double_eq_tol(up_bytes, 24 * (2.0 / 3 * d * 3 * 2880.0 * 2880 * 17 / 32 + 184320),
                            24);
    ck_assert_double_eq_tol(up_bytes / 24, 278078432.1 + 184320, 1);
    ck_assert_uint_gt(st.graph_model, 0);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(step_annotations)
{
    struct rl_torch_llm_step s;
    ck_assert(rl_torch_llm_step_parse(
        "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37("
        "sq37sk34489sqsq37sqsk34489)",
        &s));
    ck_assert_double_eq(s.tokens, 8192);
    ck_assert_double_eq(s.seqs, 46);      /* 9 + 37 */
    ck_assert_double_eq(s.keys, 42919);   /* 8430 + 34489 */
    ck_assert(rl_torch_llm_step_parse("step[DECODE bs=32]", &s));
    ck_assert_double_eq(s.tokens, 32);
    ck_assert(isnan(s.keys));
    ck_assert(!rl_torch_llm_step_parse("ProfilerStep#3", &s));
    ck_assert(!rl_torch_llm_step_parse("execute_x", &s));
    ck_assert(!rl_torch_llm_step_parse("execute_12_nothing", &s));
    /* no model, no tokens: not costed */
    double f, b;
    rl_torch_llm_use(NULL);
    const char *what;
    ck_assert(!rl_torch_llm_graph_cost("_matmul_ogs_x_swiglu", &s, 1, &f, &b, &what));
}
END_TEST

/* Graph-replayed small kernels from the model alone: 16 tokens of a dense
 * model (H 4096, 32 query heads, 8 KV heads of 128), BF16 activations.
 *   rms_norm: x read, y written (2 x 16 x 4096 x 2 = 262,144) and the
 *     weight (4096 x 2 = 8192): 270,336 bytes; 4 x 16 x 4096 = 262,144 FLOPs;
 *   rotary, one GPU: q and k, 16 x (32 + 8) x 128 = 81,920 elements, read
 *     and written: 327,680 bytes, 3 FLOPs each: 245,760; on 4 (tp 4:
 *     8 + 2 heads): 20,480 elements, 81,920 bytes, 61,440 FLOPs;
 *   the KV-cache write, one GPU: k and v, 2 x 2 x 16 x 8 x 128 x 2 =
 *     131,072 bytes, no FLOPs; on 16 GPUs (tp 16 > 8 KV heads) one KV head
 *     each: 16,384 bytes, and the rotary 16 x (2 + 1) x 128 = 6144. */
START_TEST(graph_small_kernels)
{
    static struct rl_torch_llm x;
    memset(&x, 0, sizeof x);
    snprintf(x.model.id, sizeof x.model.id, "dense");
    x.model.hidden = 4096;
    x.model.heads = 32;
    x.model.kv_heads = 8;
    x.model.head_dim = 128;
    rl_torch_llm_use(&x);
    struct rl_torch_llm_step s = {.tokens = 16, .seqs = 16, .keys = NAN};
    double f, b;
    const char *what;
    static const char *const norms[] = {"rms_norm_kernel", "triton_fused_msnorm_x",
                                        "RmsNormKernel", "gemmaRmsnorm_k"};
    for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++) {
        ck_assert_msg(rl_torch_llm_graph_cost(norms[i], &s, 1, &f, &b, &what), "%s", norms[i]);
        ck_assert_double_eq(b, 270336);
        ck_assert_double_eq(f, 262144);
        ck_assert_str_eq(what, "rms_norm");
    }
    ck_assert(rl_torch_llm_graph_cost("rotary_embedding_kernel", &s, 1, &f, &b, &what));
    ck_assert_double_eq(b, 327680);
    ck_assert_double_eq(f, 245760);
    ck_assert_str_eq(what, "rotary_embedding");
    ck_assert(rl_torch_llm_graph_cost("rotary_embedding_kernel", &s, 4, &f, &b, &what));
    ck_assert_double_eq(b, 81920);
    ck_assert_double_eq(f, 61440);
    ck_assert(rl_torch_llm_graph_cost("rotary_embedding_kernel", &s, 16, &f, &b, &what));
    ck_assert_double_eq(f, 3 * 6144);
    ck_assert(rl_torch_llm_graph_cost("reshape_and_cache_flash_kernel", &s, 1, &f, &b, &what));
    ck_assert_double_eq(b, 131072);
    ck_assert(isnan(f));
    ck_assert_str_eq(what, "reshape_and_cache");
    ck_assert(rl_torch_llm_graph_cost("store_kvcache_kernel", &s, 16, &f, &b, &what));
    ck_assert_double_eq(b, 16384);
    /* not one of them, and no tokens: nothing */
    ck_assert(!rl_torch_llm_graph_cost("vectorized_elementwise_kernel", &s, 1, &f, &b, &what));
    ck_assert(isnan(f) && isnan(b));
    ck_assert_str_eq(what, "");
    /* a name that is only part of a pattern is not the kernel */
    static const char *const parts[] = {"norm", "Norm", "tary", "cache"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        ck_assert_msg(!rl_torch_llm_graph_cost(parts[i], &s, 1, &f, &b, &what), "%s", parts[i]);
    /* a model too small to cost: no hidden size, no head size; the
     * smallest that is (1 token, hidden 1: 2 x 1 x 1 x 2 + 2 = 6 bytes; no
     * query heads and one KV head (0 < tp) of 1: 1 element, 4 bytes;
     * 2 x 2 x 1 x 1 x 1 x 2 = 8 cache bytes, 1 at 1/8 token) */
    x.model.hidden = 0;
    ck_assert(!rl_torch_llm_graph_cost("rms_norm_kernel", &s, 1, &f, &b, &what));
    x.model.head_dim = 0;
    ck_assert(!rl_torch_llm_graph_cost("rotary_embedding_kernel", &s, 1, &f, &b, &what));
    ck_assert(!rl_torch_llm_graph_cost("reshape_and_cache_flash_kernel", &s, 1, &f, &b, &what));
    x.model.hidden = 1;
    x.model.heads = x.model.kv_heads = 0;
    x.model.head_dim = 1;
    s.tokens = 1;
    ck_assert(rl_torch_llm_graph_cost("rms_norm_kernel", &s, 1, &f, &b, &what));
    ck_assert_double_eq(b, 6);
    ck_assert(rl_torch_llm_graph_cost("rotary_embedding_kernel", &s, 1, &f, &b, &what));
    ck_assert_double_eq(b, 4);
    ck_assert(rl_torch_llm_graph_cost("reshape_and_cache_flash_kernel", &s, 1, &f, &b, &what));
    ck_assert_double_eq(b, 8);
    s.tokens = 0.125;
    ck_assert(rl_torch_llm_graph_cost("reshape_and_cache_flash_kernel", &s, 1, &f, &b, &what));
    ck_assert_double_eq(b, 1);
    s.tokens = 0;
    ck_assert(!rl_torch_llm_graph_cost("rms_norm_kernel", &s, 1, &f, &b, &what));
    rl_torch_llm_use(NULL);
}
END_TEST

/* The graph replays' note among the others: 3 kernels of 2 ms (25% of
 * the 8 ms of kernels), 1 costed from an eager twin and 1 from the model:
 * the one left gets the advice; the notes after it (communication) follow
 * whole. */
START_TEST(graph_note_among_the_notes)
{
    struct rl_torch_stats st;
    memset(&st, 0, sizeof st);
    st.graph_kernels = 3;
    st.graph_time_ns = 2e6;
    st.kernel_time_ns = 8e6;
    st.graph_costed = 1;
    st.graph_model = 1;
    st.comm_kernels = 2;
    st.comm_with_bytes = 1;
    char notes[8192];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "3 kernels (2 ms, 25% of GPU time) were replayed from a CUDA/HIP "
                                "graph, with no operator: 1 of them costed from the same kernel"),
                  "%s", notes);
    ck_assert_msg(strstr(notes, ", 1 from the model (--model) by their names and the step's "
                                "tokens (its annotation); for the others profile an eager step"),
                  "%s", notes);
    ck_assert_msg(strstr(notes, "\n2 communication kernels (NCCL/RCCL"), "%s", notes);
    ck_assert_msg(strstr(notes, "; 1 with their message bytes"), "%s", notes);
    size_t n = strlen(notes);
    ck_assert(n > 3 && strcmp(notes + n - 3, "..\n") != 0); /* not cut */
    /* every one costed (2 + 1 of 3): no advice; no kernel time: 0% */
    st.graph_costed = 2;
    st.kernel_time_ns = 0;
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "3 kernels (2 ms, 0% of GPU time) were replayed"), "%s", notes);
    ck_assert_msg(strstr(notes, "tokens (its annotation)\n2 communication kernels"), "%s", notes);
    /* 1 ns of kernels, half of it replayed */
    st.kernel_time_ns = 1;
    st.graph_time_ns = 0.5;
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "ms, 50% of GPU time) were replayed"), "%s", notes);
}
END_TEST

/* The CLI: the headline says what bounds the step. */
START_TEST(cli_headline)
{
    char model[4096];
    snprintf(model, sizeof model, "%s", rl_test_data("torch-serving/gpt-oss-120b.json"));
    struct rl_run r = rl_test_cli(NULL, "report", "--torch",
                                  rl_test_data("torch-real/tracelens_b200_eager_trace.json.gz"),
                                  "--model", model, "--json", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "gpt-oss-120b step, 888 tokens a forward: memory-bound: "));
    ck_assert_ptr_nonnull(strstr(r.out, "expert weights"));
    ck_assert_ptr_nonnull(strstr(r.out, "one rank of tp 8 x ep 1"));
    rl_run_release(&r);
    /* the decode in a HIP graph: memory-bound, 73% of the time in the
     * fused MoE's kernels (GEMMs 35.1% + 30.5%, routing and helpers) at 26% of MI300X's
     * 5.3 TB/s; the 8192-token mixed step compute-bound in them */
    snprintf(model, sizeof model, "%s", rl_test_data("torch-serving/gpt-oss-20b.json"));
    r = rl_test_cli(NULL, "report", "--torch",
                    rl_test_data("torch-serving/vllm_gptoss20b_mi300x_decode_fullgraph.json.gz"),
                    "--gpu", "mi300x", "--model", model, "--json", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "gpt-oss-20b step: memory-bound: 77% of GPU time moves "
                                        "expert weights (73%)"));
    ck_assert_ptr_nonnull(strstr(r.out, "(HIP graph replay) fused MoE"));
    ck_assert_ptr_nonnull(strstr(r.out, "at 26% of the HBM3 roof"));
    ck_assert_ptr_nonnull(strstr(r.out, "; 19% unknown"));
    rl_run_release(&r);
    r = rl_test_cli(
        NULL, "report", "--torch",
        rl_test_data("torch-serving/vllm_gptoss20b_mi300x_prefilldecode_piecewise.json.gz"), "--gpu",
        "mi300x", "--model", model, "--tp", "1", "--json", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "compute-bound: 79% of GPU time in the expert GEMMs (79%)"));
    ck_assert_ptr_nonnull(strstr(r.out, "tp 1 x ep 1 (--tp / --ep)"));
    rl_run_release(&r);
}
END_TEST

/* ---- limits --------------------------------------------------------------------- */

START_TEST(moe_without_model)
{
    rl_torch_llm_use(NULL);
    struct rl_torch_arg a[] = {ten(BF16, tens(2, 888, 3072, 0, 0)),
                               ten(BF16, tens(2, 888, 128, 0, 0)), none()};
    struct rl_torch_cost c;
    ck_assert(!cost("vllm::moe_forward", a, 3, 8, &c));
    ck_assert(!c.known);
    ck_assert_ptr_nonnull(strstr(c.note, "--model"));
    /* a dense model cannot cost an MoE */
    struct rl_torch_llm x;
    memset(&x, 0, sizeof x);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_llm_model_load(&x.model, getenv("ROOFLINE_DATA_DIR"), "llama-3-8b", err),
                     RL_OK);
    rl_torch_llm_use(&x);
    ck_assert(!cost("vllm::moe_forward", a, 3, 8, &c));
    /* hidden_states not a matrix */
    struct rl_torch_arg one[] = {ten(BF16, tens(1, 888, 0, 0, 0))};
    ck_assert(!cost("vllm::moe_forward", one, 1, 8, &c));
    ck_assert(!cost("vllm::moe_forward", NULL, 0, 8, &c));
    rl_torch_llm_use(NULL);
}
END_TEST

START_TEST(bad_shapes)
{
    rl_torch_llm_use(NULL);
    struct rl_torch_cost c;
    /* fused_experts with no experts */
    struct rl_torch_arg e[] = {ten(BF16, tens(2, 4, 4096, 0, 0)), ten(BF16, tens(3, 0, 28672, 4096, 0)),
                               ten(BF16, tens(3, 0, 4096, 14336, 0)),
                               ten("float", tens(2, 4, 2, 0, 0)), ten("int", tens(2, 4, 2, 0, 0))};
    ck_assert(!cost("vllm::outplace_fused_experts", e, 5, 1, &c));
    /* arguments missing */
    ck_assert(!cost("_C::fused_add_rms_norm", NULL, 0, 1, &c));
    ck_assert(!cost("_C::rotary_embedding", NULL, 0, 1, &c));
    ck_assert(!cost("_C_cache_ops::reshape_and_cache_flash", NULL, 0, 1, &c));
    ck_assert(!cost("_C::silu_and_mul", NULL, 0, 1, &c));
    ck_assert(!cost("_C::static_scaled_fp8_quant", NULL, 0, 1, &c));
    ck_assert(!cost("_C::rms_norm", NULL, 0, 1, &c));
    /* attention: said why */
    ck_assert(!cost("vllm::unified_attention_with_output", NULL, 0, 1, &c));
    ck_assert_ptr_nonnull(strstr(c.note, "context length"));
    /* not a custom operator, and an unknown one */
    ck_assert(!cost("rms_norm_without_namespace", NULL, 0, 1, &c));
    ck_assert(!cost("vllm::no_such_op", NULL, 0, 1, &c));
    ck_assert_str_eq(c.note, "");
}
END_TEST

START_TEST(cli_model_errors)
{
    struct rl_run r = rl_test_cli(NULL, "report", "--kernels", "x.json", "--model", "gpt-oss-120b",
                                  NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--model, --tp and --ep go with --torch"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--torch",
                    rl_test_data("torch-real/tracelens_b200_eager_trace.json.gz"), "--model",
                    "no-such-model", "--json", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "roofline: error: "));
    ck_assert_ptr_nonnull(strstr(r.err, "no-such-model"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--torch", "t.json", "--tp", "0", NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
}
END_TEST

static Suite *torch_llm_suite(void)
{
    Suite *s = suite_create("torch_llm");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, distinct_experts);
    tcase_add_test(core, moe_forward_from_model);
    tcase_add_test(core, moe_from_shipped_configs);
    tcase_add_test(core, fused_experts_from_shapes);
    tcase_add_test(core, small_fused_kernels);
    tcase_add_test(core, moe_kernel_parts);
    tcase_add_test(core, b200_moe_flops_equal_the_hand_count);
    tcase_add_test(core, b200_without_model);
    tcase_add_test(core, graph_replay_grouped);
    tcase_add_test(core, graph_replay_costed_from_eager_twin);
    tcase_add_test(core, graph_replay_costed_from_model);
    tcase_add_test(core, step_annotations);
    tcase_add_test(core, graph_small_kernels);
    tcase_add_test(core, graph_note_among_the_notes);
    tcase_add_test(core, cli_headline);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, moe_without_model);
    tcase_add_test(limits, bad_shapes);
    tcase_add_test(limits, cli_model_errors);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(torch_llm_suite()); }
