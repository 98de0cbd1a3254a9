/* check_model.c - tests of the roofline model: ridges, attainable rates, classification. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/model/model.h"

#include <math.h>
#include <string.h>

/* A GPU built on the stack: 1000 TFLOP/s, 5000 GB/s DRAM, 20000 GB/s L2. */
static const struct rl_compute_roof roof = {.name = "bf16", .peak_tflops = 1000};
static const struct rl_memory_roof dram = {.level = RL_MEM_DRAM, .bandwidth_gbs = 5000};
static const struct rl_memory_roof l2 = {.level = RL_MEM_L2, .bandwidth_gbs = 20000};

static struct rl_kernel_perf kernel(double flops, double dram_bytes, double time_ns)
{
    struct rl_kernel_perf k = {flops, {dram_bytes, NAN, NAN}, time_ns};
    return k;
}

static struct rl_verdict judge(struct rl_kernel_perf k)
{
    struct rl_verdict v;
    char err[RL_ERRMSG_SIZE];
    int rc = rl_classify(&k, &roof, &dram, 1, &v, err);
    ck_assert_msg(rc == 0, "%s", err);
    return v;
}

START_TEST(ridge_points)
{
    ck_assert_double_eq(rl_ridge_flop_per_byte(1000, 5000), 200);
    ck_assert_double_eq_tol(rl_ridge_flop_per_byte(989.4, 4800), 206.125, 1e-9);
    ck_assert_double_eq_tol(rl_ridge_flop_per_byte(989.4, 3350), 295.3433, 1e-4);
    ck_assert(isnan(rl_ridge_flop_per_byte(1000, 0)));
    ck_assert(isnan(rl_ridge_flop_per_byte(-1, 5000)));
    ck_assert(isnan(rl_ridge_flop_per_byte(NAN, 5000)));
    ck_assert(isnan(rl_ridge_flop_per_byte(1000, INFINITY)));
}
END_TEST

START_TEST(attainable_around_the_ridge)
{
    /* Below the ridge: AI x bandwidth; at and above: the peak. */
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, 1), 5);
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, 100), 500);
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, 199.99), 999.95);
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, 200), 1000);
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, 1e6), 1000);
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, INFINITY), 1000);
    ck_assert_double_eq(rl_attainable_tflops(1000, 5000, 0), 0);
    ck_assert(isnan(rl_attainable_tflops(1000, 5000, -1)));
    ck_assert(isnan(rl_attainable_tflops(1000, 5000, NAN)));
    ck_assert(isnan(rl_attainable_tflops(1000, -5, 1)));
}
END_TEST

START_TEST(gemv_is_memory_bound)
{
    /* Batch-1 decode GEMV 4096 x 14336 in BF16: 2 FLOP per 2-byte weight. */
    double flops = 2.0 * 4096 * 14336, bytes = (4096.0 * 14336 + 4096 + 14336) * 2;
    struct rl_verdict v = judge(kernel(flops, bytes, 30000));
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_int_eq(v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq_tol(v.ai_flop_per_byte[RL_MEM_DRAM], 0.99969, 1e-5);
    ck_assert_double_eq_tol(v.attainable_tflops, 4.99843, 1e-4);
    ck_assert_double_eq_tol(v.achieved_tflops, flops / 30000 / 1e3, 1e-9);
    ck_assert_double_eq_tol(v.pct_of_roof, v.achieved_tflops / v.attainable_tflops * 100, 1e-9);
    ck_assert_double_eq_tol(v.headroom_x, v.attainable_tflops / v.achieved_tflops, 1e-9);
    ck_assert_double_eq(v.ridge_flop_per_byte, 200);
    ck_assert_double_eq_tol(v.ridge_distance_x, 200 / 0.99969, 1e-2);
}
END_TEST

START_TEST(gemm_is_compute_bound)
{
    double m = 2048, n = 14336, k = 4096;
    double flops = 2 * m * n * k, bytes = (m * k + k * n + m * n) * 2;
    struct rl_verdict v = judge(kernel(flops, bytes, flops / 800e12 * 1e9));
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq(v.attainable_tflops, 1000);
    ck_assert_double_eq_tol(v.achieved_tflops, 800, 1e-6);
    ck_assert_double_eq_tol(v.pct_of_roof, 80, 1e-6);
}
END_TEST

START_TEST(classification_edges)
{
    /* Exactly at the ridge: compute-bound (the roofs meet there). */
    double ridge = rl_ridge_flop_per_byte(1000, 5000);
    struct rl_verdict v = judge(kernel(ridge * 1e6, 1e6, 1000));
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq(v.attainable_tflops, 1000);
    v = judge(kernel(ridge * 0.999 * 1e6, 1e6, 1000));
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_double_eq_tol(v.attainable_tflops, 999, 1e-9);
    v = judge(kernel(ridge * 1.001 * 1e6, 1e6, 1000));
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
}
END_TEST

START_TEST(hierarchy_picks_the_tightest_level)
{
    /* DRAM AI 100 (-> 500 TFLOP/s), L2 AI 10 (-> 200 TFLOP/s): L2 limits. */
    struct rl_kernel_perf k = {1e12, {1e10, 1e11, NAN}, 1e7};
    struct rl_memory_roof mem[2] = {dram, l2};
    struct rl_verdict v;
    ck_assert_int_eq(rl_classify(&k, &roof, mem, 2, &v, NULL), 0);
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_int_eq(v.limiter, RL_MEM_L2);
    ck_assert_double_eq(v.attainable_tflops, 200);
    ck_assert_double_eq(v.ridge_flop_per_byte, 50);
    ck_assert_double_eq(v.ai_flop_per_byte[RL_MEM_DRAM], 100);
    ck_assert_double_eq(v.ai_flop_per_byte[RL_MEM_L2], 10);
    /* Bytes for a level without a roof are ignored; NAN bytes skip the level. */
    k.bytes[RL_MEM_L2] = NAN;
    ck_assert_int_eq(rl_classify(&k, &roof, mem, 2, &v, NULL), 0);
    ck_assert_int_eq(v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq(v.attainable_tflops, 500);
}
END_TEST

START_TEST(attainable_is_min_of_roofs_and_monotone)
{
    /* Property over AI from 1e-3 to 1e6 FLOP/B, three roofs: attainable =
     * min(peak, AI x bandwidth), never decreasing in AI, reaching the peak
     * exactly from the ridge on. */
    static const double peaks[] = {19.5, 989.4, 1000}, bws[] = {2039, 4800, 5000};
    for (int r = 0; r < 3; r++) {
        double prev = 0;
        for (double ai = 1e-3; ai < 1e6; ai *= 1.07) {
            double a = rl_attainable_tflops(peaks[r], bws[r], ai);
            double want = fmin(peaks[r], ai * bws[r] * 1e-3);
            ck_assert_double_eq_tol(a, want, 1e-12 * want);
            ck_assert_msg(a >= prev, "attainable fell from %g to %g at AI %g", prev, a, ai);
            prev = a;
            /* The classifier agrees with the formula. */
            struct rl_compute_roof c = {.name = "x", .peak_tflops = peaks[r]};
            struct rl_memory_roof m = {.level = RL_MEM_DRAM, .bandwidth_gbs = bws[r]};
            struct rl_kernel_perf k = {ai * 1e6, {1e6, NAN, NAN}, NAN};
            struct rl_verdict v;
            ck_assert_int_eq(rl_classify(&k, &c, &m, 1, &v, NULL), 0);
            ck_assert_double_eq_tol(v.attainable_tflops, want, 1e-9 * want);
        }
        ck_assert_double_eq(prev, peaks[r]);
        double ridge = rl_ridge_flop_per_byte(peaks[r], bws[r]);
        ck_assert_double_eq(rl_attainable_tflops(peaks[r], bws[r], 2 * ridge), peaks[r]);
        ck_assert_double_lt(rl_attainable_tflops(peaks[r], bws[r], 0.5 * ridge), peaks[r]);
    }
}
END_TEST

START_TEST(verdict_flips_exactly_at_the_ridge)
{
    /* 1000 TFLOP/s over 5000 GB/s: ridge exactly 200 FLOP/B. One byte and
     * 200 FLOPs is at the ridge (compute); the next double below is memory. */
    struct rl_verdict v = judge(kernel(200, 1, NAN));
    ck_assert_double_eq(v.ai_flop_per_byte[RL_MEM_DRAM], 200);
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq(v.ridge_distance_x, 1);
    v = judge(kernel(nextafter(200, 0), 1, NAN));
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_double_lt(v.attainable_tflops, 1000);
    ck_assert_double_gt(v.ridge_distance_x, 1);
    /* Scanning AI: memory strictly left of the ridge, compute at and right. */
    for (double ai = 1; ai < 1e5; ai *= 1.5) {
        v = judge(kernel(ai, 1, NAN));
        ck_assert_int_eq(v.bound, ai < 200 ? RL_BOUND_MEMORY : RL_BOUND_COMPUTE);
    }
    /* With L2 (20000 GB/s, ridge 50) tighter than DRAM: the flip follows the
     * limiting level's ridge. DRAM AI 400, L2 AI 40: L2 limits at 800 TFLOP/s,
     * memory-bound; L2 AI 50: compute. */
    struct rl_memory_roof mem[2] = {dram, l2};
    struct rl_kernel_perf k = {4e8, {1e6, 1e7, NAN}, NAN};
    ck_assert_int_eq(rl_classify(&k, &roof, mem, 2, &v, NULL), 0);
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_int_eq(v.limiter, RL_MEM_L2);
    ck_assert_double_eq(v.attainable_tflops, 800);
    k.bytes[RL_MEM_L2] = 8e6;
    ck_assert_int_eq(rl_classify(&k, &roof, mem, 2, &v, NULL), 0);
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq(v.attainable_tflops, 1000);
}
END_TEST

START_TEST(zero_time_and_zero_bytes_are_not_divided_by)
{
    struct rl_verdict v = judge(kernel(1e9, 1e6, 0));
    ck_assert(isnan(v.achieved_tflops) && isnan(v.pct_of_roof) && isnan(v.headroom_x));
    ck_assert_double_eq(v.ai_flop_per_byte[RL_MEM_DRAM], 1000);
    v = judge(kernel(1e9, 1e6, NAN));
    ck_assert(isnan(v.achieved_tflops));
    /* No bytes: infinite intensity, compute-bound. */
    v = judge(kernel(1e9, 0, 1000));
    ck_assert(isinf(v.ai_flop_per_byte[RL_MEM_DRAM]));
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq(v.attainable_tflops, 1000);
    ck_assert_double_eq(v.ridge_distance_x, 0);
    /* No FLOPs (a copy): intensity 0, memory-bound, attainable 0. */
    v = judge(kernel(0, 1e6, 1000));
    ck_assert_double_eq(v.ai_flop_per_byte[RL_MEM_DRAM], 0);
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_double_eq(v.attainable_tflops, 0);
    ck_assert(isnan(v.pct_of_roof));
    /* Neither: no intensity at all. */
    v = judge(kernel(0, 0, 1000));
    ck_assert_int_eq(v.bound, RL_BOUND_UNKNOWN);
    ck_assert(isnan(v.attainable_tflops));
}
END_TEST

START_TEST(invalid_inputs_are_rejected)
{
    struct rl_verdict v;
    char err[RL_ERRMSG_SIZE];
    struct rl_kernel_perf k = kernel(-1, 1e6, 1000);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "FLOPs must be"));
    k = kernel(NAN, 1e6, 1000);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    k = kernel(1e9, -5, 1000);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "dram bytes"));
    k = kernel(1e9, INFINITY, 1000);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    k = kernel(1e9, 1e6, -3);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "time"));
    /* Bytes only at a level without a roof. */
    struct rl_kernel_perf only_l1 = {1e9, {NAN, NAN, 1e6}, 1000};
    ck_assert_int_eq(rl_classify(&only_l1, &roof, &dram, 1, &v, err), RL_EINVAL);
    struct rl_compute_roof zero = roof;
    zero.peak_tflops = 0;
    k = kernel(1e9, 1e6, 1000);
    ck_assert_int_eq(rl_classify(&k, &zero, &dram, 1, &v, err), RL_EINVAL);
    struct rl_memory_roof bad = dram;
    bad.bandwidth_gbs = NAN;
    ck_assert_int_eq(rl_classify(&k, &roof, &bad, 1, &v, err), RL_EINVAL);
}
END_TEST

/* ---- roofs from datasheets ---- */


START_TEST(roofs_from_datasheet)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    struct rl_compute_roof r;
    struct rl_memory_roof m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_roof_from_spec(h200, "bf16", false, &r, err), 0);
    ck_assert_double_eq(r.peak_tflops, 989.4);
    ck_assert_str_eq(r.label, "BF16 Tensor Core");
    ck_assert_int_eq(r.origin, RL_ORIGIN_DATASHEET);
    ck_assert_int_eq(rl_roof_from_spec(h200, "BF16", true, &r, err), 0);
    ck_assert_double_eq(r.peak_tflops, 1978.9);
    ck_assert_str_eq(r.label, "BF16 Tensor Core, sparse");
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp64", false, &r, err), 0);
    ck_assert_double_eq(r.peak_tflops, 33.5);
    ck_assert_int_eq(r.unit, RL_UNIT_CUDA);
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp64-tc", false, &r, err), 0);
    ck_assert_double_eq(r.peak_tflops, 66.9);
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp16-cuda", false, &r, err), 0);
    ck_assert_double_eq(r.peak_tflops, 133.8);
    ck_assert_int_eq(rl_roof_from_spec(h200, "int8", false, &r, err), 0);
    ck_assert(r.ops);
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_DRAM, &m, err), 0);
    ck_assert_double_eq(m.bandwidth_gbs, 4800);
    ck_assert_str_eq(m.label, "HBM3e");
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_L1, &m, err), 0);
    ck_assert_int_eq(m.origin, RL_ORIGIN_ANALYTIC);
    /* H200's L2 bandwidth is not published. */
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_L2, &m, err), RL_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err, "roofline bench"));
}
END_TEST

START_TEST(roof_errors)
{
    const struct rl_gpu_spec *a100 = rl_test_gpu("a100-sxm-80gb");
    struct rl_compute_roof r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_roof_from_spec(a100, "fp8", false, &r, err), RL_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err, "holds no FP8 Tensor Core rate"));
    ck_assert_int_eq(rl_roof_from_spec(a100, "fp7", false, &r, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "one of: fp64, fp32"));
    ck_assert_int_eq(rl_roof_from_spec(a100, "fp32", true, &r, err), RL_EINVAL);
    ck_assert_int_eq(rl_roof_from_spec(a100, "fp64-tc", true, &r, err), RL_EUNSUPPORTED);
    ck_assert_int_eq(rl_mem_level_parse("HBM"), RL_MEM_DRAM);
    ck_assert_int_eq(rl_mem_level_parse("shared"), RL_MEM_L1);
    ck_assert_int_eq(rl_mem_level_parse("l3"), -1);
}
END_TEST

/* ---- names, parsing, and the edges of every formula ---- */

START_TEST(names_of_levels_bounds_and_roofs)
{
    ck_assert_str_eq(rl_mem_level_name(RL_MEM_DRAM), "dram");
    ck_assert_str_eq(rl_mem_level_name(RL_MEM_L2), "l2");
    ck_assert_str_eq(rl_mem_level_name(RL_MEM_L1), "l1");
    ck_assert_str_eq(rl_mem_level_name(RL_MEM_COUNT), "?");
    ck_assert_str_eq(rl_bound_name(RL_BOUND_MEMORY), "memory");
    ck_assert_str_eq(rl_bound_name(RL_BOUND_COMPUTE), "compute");
    ck_assert_str_eq(rl_bound_name(RL_BOUND_UNKNOWN), "unknown");
    ck_assert_int_eq(rl_mem_level_parse("hbm"), RL_MEM_DRAM);
    ck_assert_int_eq(rl_mem_level_parse("DRAM"), RL_MEM_DRAM);
    ck_assert_int_eq(rl_mem_level_parse("L2"), RL_MEM_L2);
    ck_assert_int_eq(rl_mem_level_parse("l1"), RL_MEM_L1);
    ck_assert_int_eq(rl_mem_level_parse("Shared"), RL_MEM_L1);
    ck_assert_int_eq(rl_mem_level_parse("l2x"), -1);
    ck_assert_int_eq(rl_mem_level_parse(""), -1);
    /* The 14 roof names in table order, NULL-terminated, the same array
     * on every call. */
    static const char *const want[] = {"fp64", "fp32", "fp16-cuda", "bf16-cuda", "fp64-tc",
                                       "tf32", "fp16", "bf16", "fp8", "int8", "fp4", "fp6",
                                       "fp16-acc16", "fp8-acc16"};
    const char *const *names = rl_roof_names();
    for (size_t i = 0; i < 14; i++)
        ck_assert_str_eq(names[i], want[i]);
    ck_assert_ptr_null(names[14]);
    ck_assert_ptr_eq(rl_roof_names(), names);
    ck_assert_str_eq(rl_roof_names()[0], "fp64");
}
END_TEST

START_TEST(roof_describe_without_a_datasheet)
{
    /* A measured roof: name and label from the table, no peak yet. */
    struct rl_compute_roof r;
    ck_assert_int_eq(rl_roof_describe("FP64", &r), RL_OK);
    ck_assert_str_eq(r.name, "fp64");
    ck_assert_str_eq(r.label, "FP64 CUDA cores");
    ck_assert_int_eq(r.unit, RL_UNIT_CUDA);
    ck_assert_int_eq(r.precision, RL_PREC_FP64);
    ck_assert(!r.sparse && !r.ops);
    ck_assert(isnan(r.peak_tflops));
    ck_assert_int_eq(r.origin, RL_ORIGIN_MEASURED);
    ck_assert_int_eq(rl_roof_describe("fp8-acc16", &r), RL_OK);
    ck_assert_str_eq(r.label, "FP8 Tensor Core, FP16 acc");
    ck_assert_int_eq(r.unit, RL_UNIT_TENSOR);
    ck_assert_int_eq(r.precision, RL_PREC_FP8_ACC16);
    ck_assert(!r.sparse);
    ck_assert_int_eq(rl_roof_describe("int8", &r), RL_OK);
    ck_assert(r.ops);
    ck_assert_int_eq(rl_roof_describe("fp9", &r), RL_ENOTFOUND);
}
END_TEST

START_TEST(roof_messages_word_for_word)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    const struct rl_gpu_spec *a100 = rl_test_gpu("a100-sxm-80gb");
    struct rl_compute_roof r;
    struct rl_memory_roof m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp7", false, &r, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown precision 'fp7' (one of: fp64, fp32, fp16-cuda, bf16-cuda, "
                          "fp64-tc, tf32, fp16, bf16, fp8, int8, fp4, fp6, fp16-acc16, fp8-acc16)");
    ck_assert_int_eq(rl_roof_from_spec(h200, "bf16-cuda", true, &r, err), RL_EINVAL);
    ck_assert_str_eq(err, "sparsity applies to Tensor Core roofs only, not 'bf16-cuda'");
    ck_assert_int_eq(rl_roof_from_spec(a100, "fp8", false, &r, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the GPU database holds no FP8 Tensor Core rate for NVIDIA A100 SXM4 80GB");
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp64-tc", true, &r, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the GPU database holds no FP64 Tensor Core (sparse) rate for NVIDIA H200 SXM 141GB");
    /* CUDA-core labels carry no "(dense)"; only INT8 counts operations. */
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp32", false, &r, err), RL_OK);
    ck_assert_str_eq(r.label, "FP32 CUDA cores");
    ck_assert_double_eq(r.peak_tflops, 66.9);
    ck_assert(!r.ops && !r.sparse);
    ck_assert_int_eq(rl_roof_from_spec(h200, "fp8", true, &r, err), RL_OK);
    ck_assert_str_eq(r.label, "FP8 Tensor Core, sparse");
    ck_assert_double_eq(r.peak_tflops, 3957.8);
    ck_assert(!r.ops && r.sparse);
    /* Memory: L2 from a datasheet that has it, its label; the missing
     * levels named in the message. */
    ck_assert_int_eq(rl_memory_roof_from_spec(a100, RL_MEM_L2, &m, err), RL_OK);
    ck_assert_str_eq(m.label, "L2");
    ck_assert_int_eq(m.level, RL_MEM_L2);
    ck_assert_double_eq(m.bandwidth_gbs, 7219);
    ck_assert_int_eq(rl_memory_roof_from_spec(a100, RL_MEM_L1, &m, err), RL_OK);
    ck_assert_str_eq(m.label, "L1/shared");
    ck_assert_int_eq(m.level, RL_MEM_L1);
    ck_assert_double_eq(m.bandwidth_gbs, 19492);
    ck_assert_int_eq(rl_memory_roof_from_spec(a100, RL_MEM_DRAM, &m, err), RL_OK);
    ck_assert_str_eq(m.label, "HBM2e");
    ck_assert_int_eq(m.level, RL_MEM_DRAM);
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_L2, &m, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the h200 datasheet gives no L2 bandwidth (measure it with "
                          "'roofline bench')");
    struct rl_gpu_spec no_l1 = *h200;
    no_l1.l1_bandwidth_gbs = NAN;
    ck_assert_int_eq(rl_memory_roof_from_spec(&no_l1, RL_MEM_L1, &m, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the h200 datasheet gives no L1/shared bandwidth (measure it with "
                          "'roofline bench')");
    ck_assert_int_eq(rl_memory_roof_from_spec(h200, RL_MEM_COUNT, &m, err), RL_EINVAL);
    ck_assert_str_eq(err, "bad memory level");
}
END_TEST

START_TEST(formula_domains)
{
    /* Ridge: a zero peak is a ridge at 0; below 0, infinite or NAN is none. */
    ck_assert_double_eq(rl_ridge_flop_per_byte(0, 5000), 0);
    ck_assert_double_eq(rl_ridge_flop_per_byte(0.5, 5000), 0.1);
    ck_assert(isnan(rl_ridge_flop_per_byte(INFINITY, 5000)));
    ck_assert(isnan(rl_ridge_flop_per_byte(1000, -1)));
    ck_assert_double_eq(rl_ridge_flop_per_byte(1, 0.5), 2000);
    /* Attainable: 0.5 GB/s at AI 2 is 1e-3 TFLOP/s; an infinite roof is
     * refused whichever it is. */
    ck_assert_double_eq_tol(rl_attainable_tflops(1000, 0.5, 2), 1e-3, 1e-15);
    ck_assert(isnan(rl_attainable_tflops(INFINITY, 5000, 1)));
    ck_assert(isnan(rl_attainable_tflops(1000, INFINITY, 1)));
    ck_assert(isnan(rl_attainable_tflops(-1, 5000, 1)));
    ck_assert(isnan(rl_attainable_tflops(1000, 0, 1)));
    ck_assert_double_eq(rl_attainable_tflops(0, 5000, 1), 0);
    /* At a tie the peak is the answer: with a zero peak and AI -0 that is
     * +0 (printed "0"), not the -0 of AI x bandwidth. */
    double z = rl_attainable_tflops(0, 5000, -0.0);
    ck_assert(z == 0 && !signbit(z));
}
END_TEST

START_TEST(classify_small_values_are_not_rounded)
{
    /* Values between 0 and 1 are valid everywhere: 0.5 TFLOP/s peak, 0.5
     * GB/s, 0.5 bytes, 0.5 FLOPs, 0.5 ns. */
    struct rl_compute_roof small = {.name = "x", .peak_tflops = 0.5};
    struct rl_memory_roof slow = {.level = RL_MEM_DRAM, .label = "slow", .bandwidth_gbs = 0.5};
    /* 1 FLOP on 0.5 bytes: AI 2; 2 x 0.5 GB/s = 1e-3 TFLOP/s; ridge 0.5e3 /
     * 0.5 = 1000 FLOP/B, 500x to the right. */
    struct rl_kernel_perf k = {1, {0.5, NAN, NAN}, 0.5};
    struct rl_verdict v;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_classify(&k, &small, &slow, 1, &v, err), RL_OK);
    ck_assert_double_eq(v.ai_flop_per_byte[RL_MEM_DRAM], 2);
    ck_assert_double_eq_tol(v.attainable_tflops, 1e-3, 1e-15);
    ck_assert_double_eq(v.ridge_flop_per_byte, 1000);
    ck_assert_double_eq(v.ridge_distance_x, 500);
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    /* 1 FLOP in 0.5 ns = 2e-3 TFLOP/s: 200% of the 1e-3 roof. */
    ck_assert_double_eq_tol(v.achieved_tflops, 2e-3, 1e-15);
    ck_assert_double_eq_tol(v.pct_of_roof, 200, 1e-9);
    ck_assert_double_eq_tol(v.headroom_x, 0.5, 1e-12);
    /* Half a FLOP and no bytes: infinite intensity, compute-bound. */
    k = (struct rl_kernel_perf){0.5, {0, NAN, NAN}, 1000};
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_OK);
    ck_assert(isinf(v.ai_flop_per_byte[RL_MEM_DRAM]));
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    /* AI 0.5 (0.5e6 FLOPs on 1e6 bytes): ridge distance 200 / 0.5 = 400;
     * attainable 2.5 TFLOP/s, achieved 0.5e6 / 1000 ns = 0.5 TFLOP/s: 20%,
     * 5x headroom. */
    v = judge(kernel(0.5e6, 1e6, 1000));
    ck_assert_double_eq(v.ridge_distance_x, 400);
    ck_assert_double_eq(v.attainable_tflops, 2.5);
    ck_assert_double_eq(v.achieved_tflops, 0.5);
    ck_assert_double_eq(v.pct_of_roof, 20);
    ck_assert_double_eq(v.headroom_x, 5);
    /* AI 1e-3 (1e3 FLOPs on 1e6 bytes): attainable 5e-3 TFLOP/s, achieved
     * 1e3 / 1e6 ns = 1e-6 TFLOP/s = 0.02%. */
    v = judge(kernel(1e3, 1e6, 1e6));
    ck_assert_double_eq_tol(v.attainable_tflops, 5e-3, 1e-15);
    ck_assert_double_eq_tol(v.pct_of_roof, 0.02, 1e-12);
}
END_TEST

START_TEST(classify_zero_and_underflow)
{
    /* -0 FLOPs is 0 FLOPs: intensity 0, infinitely far left of the ridge
     * (+inf, not -inf). */
    struct rl_verdict v = judge(kernel(-0.0, 1e6, 1000));
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert(isinf(v.ridge_distance_x) && v.ridge_distance_x > 0);
    v = judge(kernel(0, 1e6, 1000));
    ck_assert(isinf(v.ridge_distance_x) && v.ridge_distance_x > 0);
    ck_assert(isnan(v.headroom_x));
    /* 1e-320 FLOPs on 1e10 bytes: the intensity underflows to 0, so the
     * attainable rate is 0; the achieved 1e-323 TFLOP/s is not divided by
     * it (no percentage, no headroom). */
    v = judge(kernel(1e-320, 1e10, 1));
    ck_assert_double_eq(v.attainable_tflops, 0);
    ck_assert_double_gt(v.achieved_tflops, 0);
    ck_assert(isnan(v.pct_of_roof) && isnan(v.headroom_x));
    /* 1e-320 FLOPs on one byte in 1e10 ns: attainable 5e-321 > 0, achieved
     * underflows to 0: 0% of the roof, and no headroom (not infinite). */
    v = judge(kernel(1e-320, 1, 1e10));
    ck_assert_double_gt(v.attainable_tflops, 0);
    ck_assert_double_eq(v.achieved_tflops, 0);
    ck_assert_double_eq(v.pct_of_roof, 0);
    ck_assert(isnan(v.headroom_x));
}
END_TEST

START_TEST(classify_reads_only_the_roofs_given)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_verdict v;
    /* The tightest level wins whatever the order: L2 (AI 10, 200 TFLOP/s)
     * listed before DRAM (AI 100, 500 TFLOP/s). */
    struct rl_kernel_perf k = {1e12, {1e10, 1e11, NAN}, 1e7};
    struct rl_memory_roof rev[2] = {l2, dram};
    ck_assert_int_eq(rl_classify(&k, &roof, rev, 2, &v, err), RL_OK);
    ck_assert_int_eq(v.limiter, RL_MEM_L2);
    ck_assert_double_eq(v.attainable_tflops, 200);
    /* A tie: 1e6 FLOPs on 1e6 DRAM bytes (AI 1 x 5000 GB/s) and on 4e6 L2
     * bytes (AI 0.25 x 20000 GB/s) both give 5 TFLOP/s: the first listed
     * limits. */
    k = (struct rl_kernel_perf){1e6, {1e6, 4e6, NAN}, 1000};
    struct rl_memory_roof both[2] = {dram, l2};
    ck_assert_int_eq(rl_classify(&k, &roof, both, 2, &v, err), RL_OK);
    ck_assert_int_eq(v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq(v.attainable_tflops, 5);
    ck_assert_int_eq(rl_classify(&k, &roof, rev, 2, &v, err), RL_OK);
    ck_assert_int_eq(v.limiter, RL_MEM_L2);
    /* n_mem = 1 of an array of 2: the second roof is not read. */
    k = (struct rl_kernel_perf){1e12, {1e10, 1e11, NAN}, 1e7};
    ck_assert_int_eq(rl_classify(&k, &roof, both, 1, &v, err), RL_OK);
    ck_assert_int_eq(v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq(v.attainable_tflops, 500);
    /* A roof of no real level is skipped, even with bytes and a time. */
    struct rl_memory_roof odd[2] = {{.level = RL_MEM_COUNT, .label = "odd", .bandwidth_gbs = 1},
                                    dram};
    ck_assert_int_eq(rl_classify(&k, &roof, odd, 2, &v, err), RL_OK);
    ck_assert_int_eq(v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq(v.attainable_tflops, 500);
    /* Only L2 measured: DRAM's intensity stays unknown. */
    k = (struct rl_kernel_perf){1e12, {NAN, 1e11, NAN}, 1e7};
    ck_assert_int_eq(rl_classify(&k, &roof, both, 2, &v, err), RL_OK);
    ck_assert(isnan(v.ai_flop_per_byte[RL_MEM_DRAM]));
    ck_assert(isnan(v.ai_flop_per_byte[RL_MEM_L1]));
    ck_assert_int_eq(v.limiter, RL_MEM_L2);
    /* A kernel timed at 0.5 ns is timed: 1e3 FLOPs / 0.5 ns = 2 TFLOP/s. */
    v = judge(kernel(1e3, 1e6, 0.5));
    ck_assert_double_eq_tol(v.achieved_tflops, 2, 1e-12);
}
END_TEST

START_TEST(classify_messages_word_for_word)
{
    struct rl_verdict v;
    char err[RL_ERRMSG_SIZE];
    struct rl_kernel_perf k = kernel(-1, 1e6, 1000);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "FLOPs must be a finite number >= 0, got -1");
    k = kernel(INFINITY, 1e6, 1000);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "FLOPs must be a finite number >= 0, got inf");
    k = kernel(1e9, 1e6, INFINITY);
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "time must be a finite number >= 0, got inf ns");
    k = (struct rl_kernel_perf){1e9, {1e6, -2, NAN}, 1000};
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "l2 bytes must be a finite number >= 0, got -2");
    k = (struct rl_kernel_perf){1e9, {1e6, NAN, -3}, 1000};
    ck_assert_int_eq(rl_classify(&k, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "l1 bytes must be a finite number >= 0, got -3");
    k = kernel(1e9, 1e6, 1000);
    struct rl_compute_roof bad_roof = roof;
    bad_roof.peak_tflops = INFINITY;
    ck_assert_int_eq(rl_classify(&k, &bad_roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "compute roof must be > 0, got inf TFLOP/s");
    bad_roof.peak_tflops = 0.5; /* small is fine */
    ck_assert_int_eq(rl_classify(&k, &bad_roof, &dram, 1, &v, err), RL_OK);
    struct rl_memory_roof bad = {.level = RL_MEM_DRAM, .label = "HBM3", .bandwidth_gbs = INFINITY};
    ck_assert_int_eq(rl_classify(&k, &roof, &bad, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "HBM3 bandwidth must be > 0, got inf GB/s");
    bad.bandwidth_gbs = 0;
    ck_assert_int_eq(rl_classify(&k, &roof, &bad, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "HBM3 bandwidth must be > 0, got 0 GB/s");
    struct rl_kernel_perf only_l1 = {1e9, {NAN, NAN, 1e6}, 1000};
    ck_assert_int_eq(rl_classify(&only_l1, &roof, &dram, 1, &v, err), RL_EINVAL);
    ck_assert_str_eq(err, "no memory level has both a byte count and a roof");
}
END_TEST

/* A tensor-parallel layer that does 1e12 FLOP, reads 1e9 bytes of HBM and
 * all-reduces 1e9 bytes per GPU. HBM alone allows min(1000, 1000 FLOP/B x
 * 5000 GB/s) = 1000 TFLOP/s (compute-bound); the 450 GB/s link only 1000
 * FLOP/B x 450 GB/s = 450 TFLOP/s: the link binds. Its ridge is 1000 TFLOP/s
 * / 450 GB/s = 2222.2 FLOP/byte, 2.22x right of the layer. Timed at 4 ms:
 * 250 TFLOP/s, 55.6% of 450. With 1e8 bytes communicated (10000 FLOP/B:
 * 4500 TFLOP/s) the link does not bind and the verdict stays. */
START_TEST(link_roof_binds_a_tp_layer)
{
    struct rl_kernel_perf k = kernel(1e12, 1e9, 4e6);
    struct rl_verdict v = judge(k);
    ck_assert_int_eq(v.bound, RL_BOUND_COMPUTE);
    struct rl_link_roof nvl = {.label = "NVLink 4", .bandwidth_gbs = 450};
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_classify_link(&v, k.flops, 1e9, k.time_ns, &roof, &nvl, err), 0);
    ck_assert_int_eq(v.bound, RL_BOUND_LINK);
    ck_assert_str_eq(rl_bound_name(v.bound), "link");
    ck_assert_double_eq_tol(v.ai_link_flop_per_byte, 1000, 1e-9);
    ck_assert_double_eq_tol(v.attainable_tflops, 450, 1e-9);
    ck_assert_double_eq_tol(v.ridge_flop_per_byte, 2222.2222, 1e-3);
    ck_assert_double_eq_tol(v.ridge_distance_x, 2.2222, 1e-3);
    ck_assert_double_eq_tol(v.pct_of_roof, 250.0 / 450 * 100, 1e-9);

    struct rl_verdict w = judge(k);
    ck_assert_int_eq(rl_classify_link(&w, k.flops, 1e8, k.time_ns, &roof, &nvl, err), 0);
    ck_assert_int_eq(w.bound, RL_BOUND_COMPUTE);
    ck_assert_double_eq_tol(w.link_attainable_tflops, 4500, 1e-9);
    ck_assert_double_eq_tol(w.attainable_tflops, 1000, 1e-9);
    /* nothing communicated: unchanged, no link intensity */
    ck_assert_int_eq(rl_classify_link(&w, k.flops, 0, k.time_ns, &roof, &nvl, err), 0);
    ck_assert(isnan(w.ai_link_flop_per_byte));
    /* no FLOPs (a copy): not placed against the link */
    struct rl_verdict z = judge(kernel(0, 1e9, 4e6));
    ck_assert_int_eq(rl_classify_link(&z, 0, 1e9, 4e6, &roof, &nvl, err), 0);
    ck_assert(isnan(z.ai_link_flop_per_byte));
    ck_assert_int_ne(z.bound, RL_BOUND_LINK);
    /* untimed (time 0): bound by the link, no achieved rate */
    struct rl_verdict u = judge(kernel(1e12, 1e9, 0));
    ck_assert_int_eq(rl_classify_link(&u, 1e12, 1e9, 0, &roof, &nvl, err), 0);
    ck_assert_int_eq(u.bound, RL_BOUND_LINK);
    ck_assert(isnan(u.pct_of_roof));
    ck_assert(isnan(u.achieved_tflops));
    /* Small figures are figures: half a byte sent (intensity 2e12, the link
     * does not bind), a 0.5 GB/s link (1e12 FLOP, 1e9 bytes: 1000 FLOP/B x
     * 0.5 GB/s = 0.5 TFLOP/s binds), timed at 0.5 ns; an intensity below 1
     * (1e9 FLOP over 2e9 bytes: 0.5, x 450 GB/s = 0.225 TFLOP/s, ridge
     * 1000 / 0.45 = 2222.2, 4444.4x right), slow (timed 40 ms: 0.025
     * TFLOP/s, headroom 0.225 / 0.025 = 9x). */
    struct rl_verdict h = judge(k);
    ck_assert_int_eq(rl_classify_link(&h, 1e12, 0.5, 4e6, &roof, &nvl, err), 0);
    ck_assert_double_eq_tol(h.ai_link_flop_per_byte, 2e12, 1);
    ck_assert_int_eq(h.bound, RL_BOUND_COMPUTE);
    struct rl_link_roof slow_link = {.label = "slow", .bandwidth_gbs = 0.5};
    struct rl_verdict sl = judge(kernel(1e12, 1e9, 0.5));
    ck_assert_int_eq(rl_classify_link(&sl, 1e12, 1e9, 0.5, &roof, &slow_link, err), 0);
    ck_assert_int_eq(sl.bound, RL_BOUND_LINK);
    ck_assert_double_eq_tol(sl.attainable_tflops, 0.5, 1e-12);
    ck_assert_double_eq_tol(sl.achieved_tflops, 2e9, 1); /* 1e12 FLOP in 0.5 ns: 2e21 FLOP/s */
    ck_assert_double_eq_tol(sl.pct_of_roof, 2e9 / 0.5 * 100, 1e3);
    struct rl_verdict lo = judge(kernel(1e9, 1e6, 4e7));
    ck_assert_int_eq(rl_classify_link(&lo, 1e9, 2e9, 4e7, &roof, &nvl, err), 0);
    ck_assert_int_eq(lo.bound, RL_BOUND_LINK);
    ck_assert_double_eq_tol(lo.attainable_tflops, 0.225, 1e-12);
    ck_assert_double_eq_tol(lo.ridge_distance_x, 2222.2222 / 0.5, 1e-3);
    ck_assert_double_eq_tol(lo.achieved_tflops, 0.025, 1e-12);
    ck_assert_double_eq_tol(lo.headroom_x, 9, 1e-9);
    ck_assert_double_eq_tol(lo.pct_of_roof, 0.025 / 0.225 * 100, 1e-9);
    struct rl_link_roof none = {.bandwidth_gbs = 0};
    ck_assert_int_eq(rl_classify_link(&w, k.flops, 1e9, k.time_ns, &roof, &none, err),
                     RL_EINVAL);
}
END_TEST

/* Two levels that limit alike: the first given is the limiter (its ridge
 * and its name), whichever order. 1e12 FLOPs over 1e10 DRAM bytes is AI
 * 100, x 5000 GB/s = 500000 x 1e-3 TFLOP/s; over 4e10 L2 bytes AI 25,
 * x 20000 GB/s = the same 500000 x 1e-3: a tie, both below the 1000 peak.
 * DRAM's ridge is 1000 x 1e3 / 5000 = 200, L2's 1000 x 1e3 / 20000 = 50. */
START_TEST(tied_levels_keep_the_first)
{
    struct rl_kernel_perf k = {1e12, {1e10, 4e10, NAN}, NAN};
    struct rl_memory_roof mem[2] = {dram, l2};
    struct rl_verdict v;
    ck_assert_int_eq(rl_classify(&k, &roof, mem, 2, &v, NULL), 0);
    ck_assert_int_eq(v.bound, RL_BOUND_MEMORY);
    ck_assert_int_eq(v.limiter, RL_MEM_DRAM);
    ck_assert_double_eq(v.ridge_flop_per_byte, 200);
    ck_assert_double_eq(v.ridge_distance_x, 2); /* 200 / 100 */
    mem[0] = l2;
    mem[1] = dram;
    ck_assert_int_eq(rl_classify(&k, &roof, mem, 2, &v, NULL), 0);
    ck_assert_int_eq(v.limiter, RL_MEM_L2);
    ck_assert_double_eq(v.ridge_flop_per_byte, 50);
    ck_assert_double_eq(v.ridge_distance_x, 2); /* 50 / 25 */
}
END_TEST

/* A memory bound at a level out of range names no level: "memory" alone,
 * never a level read past the table (DRAM, L2, L1). */
START_TEST(bound_text_of_an_unknown_level)
{
    char buf[64];
    rl_bound_text(buf, sizeof buf, RL_BOUND_MEMORY, RL_MEM_COUNT, NULL);
    ck_assert_str_eq(buf, "memory");
    rl_bound_text(buf, sizeof buf, RL_BOUND_MEMORY, RL_MEM_L1, NULL);
    ck_assert_str_eq(buf, "memory (L1)");
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *core = tcase_create("core");
    tcase_add_test(core, ridge_points);
    tcase_add_test(core, attainable_around_the_ridge);
    tcase_add_test(core, gemv_is_memory_bound);
    tcase_add_test(core, gemm_is_compute_bound);
    tcase_add_test(core, hierarchy_picks_the_tightest_level);
    suite_add_tcase(s, core);
    TCase *spec = tcase_create("datasheet");
    tcase_add_test(spec, roofs_from_datasheet);
    tcase_add_test(spec, roof_errors);
    tcase_add_test(spec, names_of_levels_bounds_and_roofs);
    tcase_add_test(spec, roof_describe_without_a_datasheet);
    tcase_add_test(spec, roof_messages_word_for_word);
    suite_add_tcase(s, spec);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, classification_edges);
    tcase_add_test(limits, attainable_is_min_of_roofs_and_monotone);
    tcase_add_test(limits, verdict_flips_exactly_at_the_ridge);
    tcase_add_test(limits, zero_time_and_zero_bytes_are_not_divided_by);
    tcase_add_test(limits, invalid_inputs_are_rejected);
    tcase_add_test(limits, formula_domains);
    tcase_add_test(limits, classify_small_values_are_not_rounded);
    tcase_add_test(limits, classify_zero_and_underflow);
    tcase_add_test(limits, classify_reads_only_the_roofs_given);
    tcase_add_test(limits, classify_messages_word_for_word);
    tcase_add_test(limits, link_roof_binds_a_tp_layer);
    tcase_add_test(limits, tied_levels_keep_the_first);
    tcase_add_test(limits, bound_text_of_an_unknown_level);
    suite_add_tcase(s, limits);
    return s;
}


int main(void) { return rl_test_run(model_suite()); }
