/* check_microbench.c - tests of the benchmarks' host logic: catalog, rules, number formats, checks, accounting, JSON. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "microbench/bench.h"
#include "analyzer/util/error.h"
#include "microbench/fp.h"
#include "microbench/geometry.h"
#include "microbench/hash.h"
#include "microbench/results.h"
#include "analyzer/util/schema.h"
#include "microbench/verify.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- catalog and architecture rules ---- */

START_TEST(catalog_is_consistent)
{
    size_t n;
    const struct rl_mb_def *c = rl_mb_catalog(&n);
    ck_assert_uint_ge(n, 28);
    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_eq(rl_mb_find(c[i].name), &c[i]);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(c[i].name, c[j].name);
        if (c[i].kind == RL_MB_COMPUTE) {
            ck_assert_int_ge(c[i].n_variants, 1);
            for (int v = 0; v < c[i].n_variants; v++) {
                const struct rl_mb_variant *x = &c[i].variants[v];
                ck_assert_ptr_nonnull(x->kernel);
                ck_assert_ptr_nonnull(x->sass);
                ck_assert_int_gt(x->per_iter, 0);
                ck_assert(x->issuer_threads == 1 || x->issuer_threads == 32 ||
                          x->issuer_threads == 128);
                /* An MMA's FLOPs are 2 M N K: K must come out whole. */
                ck_assert_int_ge(x->k, 1);
            }
        }
    }
    ck_assert_ptr_null(rl_mb_find("fp128"));
}
END_TEST

START_TEST(groups_select_benchmarks)
{
    ck_assert(rl_mb_matches(rl_mb_find("bf16"), "tensor"));
    ck_assert(!rl_mb_matches(rl_mb_find("fp32"), "tensor"));
    ck_assert(rl_mb_matches(rl_mb_find("fp32"), "cuda"));
    ck_assert(rl_mb_matches(rl_mb_find("hbm-copy"), "memory"));
    ck_assert(rl_mb_matches(rl_mb_find("cache-sweep"), "memory"));
    ck_assert(rl_mb_matches(rl_mb_find("sweep-fp32"), "sweep"));
    ck_assert(rl_mb_matches(rl_mb_find("gemm-fp8"), "library"));
    ck_assert(!rl_mb_matches(rl_mb_find("gemm-fp8"), "compute"));
    ck_assert(rl_mb_matches(rl_mb_find("gemm-fp8"), "gemm-fp8"));
}
END_TEST

START_TEST(unsupported_precisions_are_named_not_zero)
{
    const char *why;
    const struct rl_mb_def *fp8 = rl_mb_find("fp8-e4m3");
    /* A100: no FP8. */
    ck_assert_ptr_null(rl_mb_select(fp8, 8, 0, &why));
    ck_assert_ptr_nonnull(strstr(why, "FP8"));
    /* H100/H200: real FP8 through wgmma (QGMMA), never mma.sync. */
    const struct rl_mb_variant *v = rl_mb_select(fp8, 9, 0, &why);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->sm, 90);
    ck_assert_str_eq(v->sass, "QGMMA.64x256x32.F32.E4M3.E4M3");
    /* Ada: mma.sync FP8. */
    v = rl_mb_select(fp8, 8, 9, &why);
    ck_assert_int_eq(v->sm, 89);
    /* FP64 Tensor Cores: data-center chips only. */
    ck_assert_ptr_null(rl_mb_select(rl_mb_find("fp64-tc"), 8, 9, &why));
    ck_assert_ptr_nonnull(strstr(why, "FP64 Tensor Cores"));
    ck_assert_int_eq(rl_mb_select(rl_mb_find("fp64-tc"), 9, 0, &why)->sm, 90);
    ck_assert_int_eq(rl_mb_select(rl_mb_find("fp64-tc"), 8, 0, &why)->sm, 80);
    /* BF16 Tensor Cores: wgmma on Hopper, mma.sync on Ampere/Ada. */
    ck_assert_int_eq(rl_mb_select(rl_mb_find("bf16"), 9, 0, &why)->sm, 90);
    ck_assert_int_eq(rl_mb_select(rl_mb_find("bf16"), 8, 6, &why)->sm, 80);
    /* Volta is older than this build. */
    ck_assert_ptr_null(rl_mb_select(rl_mb_find("fp32"), 7, 0, &why));
    ck_assert(!rl_mb_supported(rl_mb_find("gemm-fp8"), 8, 0, &why));
    ck_assert(rl_mb_supported(rl_mb_find("gemm-fp8"), 9, 0, &why));
    ck_assert(rl_mb_supported(rl_mb_find("hbm-copy"), 8, 0, &why));
}
END_TEST

START_TEST(blackwell_selects_tcgen05_and_the_new_mma_sync)
{
    const char *why;
    const struct rl_mb_def *fp8 = rl_mb_find("fp8-e4m3");
    /* B200 (10.0) and B300 (10.3): tcgen05.mma, 128x256x32 per CTA issue. */
    const struct rl_mb_variant *v = rl_mb_select(fp8, 10, 0, &why);
    ck_assert_int_eq(v->sm, 100);
    ck_assert_str_eq(v->sass, "UTCQMMA");
    ck_assert_double_eq(v->flop_per_instr, 2.0 * 128 * 256 * 32);
    ck_assert_int_eq(v->k, 32);
    ck_assert_int_eq(rl_mb_select(fp8, 10, 3, &why)->sm, 100);
    /* One issue per 128-thread CTA: 148 SMs x 2 CTAs, 10 iterations of 8. */
    ck_assert_double_eq(rl_mb_launch_work(v, 148LL * 2 * 128, 10),
                        296.0 * 10 * 8 * v->flop_per_instr);
    v = rl_mb_select(rl_mb_find("fp16"), 10, 0, &why);
    ck_assert_str_eq(v->kernel, "rl_mb_tc05_f16");
    ck_assert_int_eq(v->k, 16);
    ck_assert_int_eq(rl_mb_select(rl_mb_find("tf32"), 10, 0, &why)->k, 8);
    ck_assert_str_eq(rl_mb_select(rl_mb_find("int8"), 10, 0, &why)->sass, "UTCIMMA");
    /* No kind::i8 in sm_103a: said, not measured on mma.sync instead. */
    ck_assert_ptr_null(rl_mb_select(rl_mb_find("int8"), 10, 3, &why));
    ck_assert_ptr_nonnull(strstr(why, "sm_103a"));
    /* RTX 50 / RTX PRO (12.0): mma.sync kind::f8f6f4; 12.1 has no sm_121a code. */
    v = rl_mb_select(fp8, 12, 0, &why);
    ck_assert_int_eq(v->sm, 120);
    ck_assert_str_eq(v->sass, "QMMA.16832.F32.E4M3.E4M3");
    ck_assert_ptr_null(rl_mb_select(fp8, 12, 1, &why));
    ck_assert_int_eq(rl_mb_select(rl_mb_find("bf16"), 12, 0, &why)->sm, 80);
    ck_assert_ptr_null(rl_mb_select(rl_mb_find("fp64-tc"), 12, 0, &why));
    ck_assert_int_eq(rl_mb_select(rl_mb_find("fp64-tc"), 10, 0, &why)->sm, 80);
    /* FP6 / FP4 through kind::f8f6f4: Blackwell only, FP8's shape. */
    static const char *const sub[] = {"fp6-e2m3", "fp6-e3m2", "fp4-e2m1"};
    static const unsigned types[] = {3, 4, 5};
    for (int i = 0; i < 3; i++) {
        const struct rl_mb_def *d = rl_mb_find(sub[i]);
        ck_assert_ptr_nonnull(d);
        ck_assert_str_eq(d->roof, i < 2 ? "fp6" : "fp4");
        v = rl_mb_select(d, 10, 0, &why);
        ck_assert_str_eq(v->sass, "UTCQMMA");
        ck_assert_int_eq(v->k, 32);
        ck_assert_uint_eq(v->idesc >> 7 & 7, types[i]);
        ck_assert_uint_eq(v->idesc >> 10 & 7, types[i]);
        ck_assert_int_eq(rl_mb_select(d, 10, 3, &why)->sm, 100);
        v = rl_mb_select(d, 12, 0, &why);
        ck_assert_int_eq(v->sm, 120);
        ck_assert_double_eq(v->flop_per_instr, 2.0 * 16 * 8 * 32);
        ck_assert_ptr_null(rl_mb_select(d, 9, 0, &why));
        ck_assert_ptr_nonnull(strstr(why, "FP6 / FP4"));
        ck_assert_ptr_null(rl_mb_select(d, 8, 9, &why));
    }
    /* Block-scaled: NVFP4 / MXFP4 are K = 64 per instruction (the FP4
     * peak), MXFP8 K = 32; one CTA per SM (scale factors in TMEM). */
    v = rl_mb_select(rl_mb_find("nvfp4"), 10, 0, &why);
    ck_assert(v->block_scaled);
    ck_assert_int_eq(v->k, 64);
    ck_assert_double_eq(v->flop_per_instr, 2.0 * 128 * 256 * 64);
    ck_assert_int_eq(v->max_blocks_per_sm, 1);
    ck_assert_uint_eq(v->idesc >> 23 & 1, 0); /* UE4M3 scales */
    ck_assert_uint_eq(v->idesc >> 31, 0);     /* K = 64 */
    ck_assert_uint_eq(rl_mb_select(rl_mb_find("mxfp4"), 10, 3, &why)->idesc >> 23 & 1, 1);
    ck_assert_str_eq(rl_mb_find("nvfp4")->roof, "fp4");
    ck_assert_str_eq(rl_mb_find("mxfp4")->roof, "fp4");
    v = rl_mb_select(rl_mb_find("mxfp8"), 10, 0, &why);
    ck_assert_str_eq(rl_mb_find("mxfp8")->roof, "fp8");
    ck_assert_int_eq(v->k, 32);
    ck_assert_str_eq(v->sass, "UTCQMMA");
    v = rl_mb_select(rl_mb_find("nvfp4"), 12, 0, &why);
    ck_assert_int_eq(v->k, 64);
    ck_assert_double_eq(v->flop_per_instr, 2.0 * 16 * 8 * 64);
    v = rl_mb_select(rl_mb_find("mxfp6"), 10, 3, &why);
    ck_assert_str_eq(rl_mb_find("mxfp6")->roof, "fp6");
    ck_assert_uint_eq(v->idesc >> 7 & 7, 3); /* E2M3 */
    ck_assert(v->block_scaled);
    ck_assert_ptr_null(rl_mb_select(rl_mb_find("mxfp8"), 9, 0, &why));
    ck_assert_ptr_nonnull(strstr(why, "block-scaled"));
}
END_TEST

START_TEST(launch_work_follows_the_catalog)
{
    /* FP32: 128 FFMA per iteration per thread, 2 FLOP each. */
    const struct rl_mb_variant *f = &rl_mb_find("fp32")->variants[0];
    ck_assert_double_eq(rl_mb_launch_work(f, 1000, 10), 1000.0 * 10 * 128 * 2);
    /* wgmma m64n256k16: 8 per iteration per warpgroup of 128 threads. */
    const struct rl_mb_variant *w = rl_mb_select(rl_mb_find("bf16"), 9, 0, NULL);
    ck_assert_int_eq(w->k, 16);
    ck_assert_double_eq(rl_mb_launch_work(w, 128 * 396, 100), 396.0 * 100 * 8 * 524288);
    /* mma.sync m16n8k16: 16 per iteration per warp, 4096 FLOP each. */
    const struct rl_mb_variant *m = rl_mb_select(rl_mb_find("bf16"), 8, 0, NULL);
    ck_assert_double_eq(rl_mb_launch_work(m, 32 * 10, 7), 10.0 * 7 * 16 * 4096);
    ck_assert_int_eq(rl_mb_find("fp8-e4m3")->variants[0].k, 32);
    ck_assert_int_eq(rl_mb_find("tf32")->variants[0].k, 8);
    ck_assert_int_eq(rl_mb_find("fp64-tc")->variants[1].k, 4);
}
END_TEST

/* ---- number formats ---- */

START_TEST(fp16_and_bf16_round_to_nearest_even)
{
    ck_assert_uint_eq(rl_fp16_from_double(1.0), 0x3C00);
    ck_assert_uint_eq(rl_fp16_from_double(-2.0), 0xC000);
    ck_assert_uint_eq(rl_fp16_from_double(65504), 0x7BFF);
    ck_assert_uint_eq(rl_fp16_from_double(65520), 0x7C00); /* tie rounds up: infinity */
    ck_assert_uint_eq(rl_fp16_from_double(1 + ldexp(1, -11)), 0x3C00); /* tie to even */
    ck_assert_uint_eq(rl_fp16_from_double(1 + 3 * ldexp(1, -11)), 0x3C02);
    ck_assert_uint_eq(rl_fp16_from_double(ldexp(1, -24)), 0x0001); /* smallest subnormal */
    ck_assert_uint_eq(rl_fp16_from_double(0.0), 0);
    ck_assert_double_eq(rl_fp16_to_double(0x3555), 0.333251953125);
    ck_assert_uint_eq(rl_bf16_from_double(1.0), 0x3F80);
    ck_assert_uint_eq(rl_bf16_from_double(1 + ldexp(1, -8)), 0x3F80); /* tie to even */
    ck_assert_uint_eq(rl_bf16_from_double(1 + 3 * ldexp(1, -8)), 0x3F82);
    ck_assert_double_eq(rl_bf16_to_double(0x4049), 3.140625);
    for (int i = 0; i < 1000; i++) { /* round trips */
        uint16_t h = (uint16_t)(i * 61);
        if ((h & 0x7C00) != 0x7C00)
            ck_assert_uint_eq(rl_fp16_from_double(rl_fp16_to_double(h)), h);
        if ((h & 0x7F80) != 0x7F80)
            ck_assert_uint_eq(rl_bf16_from_double(rl_bf16_to_double(h)), h);
    }
}
END_TEST

START_TEST(fp8_and_tf32)
{
    ck_assert_uint_eq(rl_e4m3_from_double(1.0), 0x38);
    ck_assert_uint_eq(rl_e4m3_from_double(448), 0x7E);
    ck_assert_uint_eq(rl_e4m3_from_double(1000), 0x7E); /* saturates, no infinity */
    ck_assert_uint_eq(rl_e4m3_from_double(-1000), 0xFE);
    ck_assert_uint_eq(rl_e4m3_from_double(ldexp(1, -9)), 0x01);
    ck_assert_double_eq(rl_e4m3_to_double(0x7E), 448);
    ck_assert(isnan(rl_e4m3_to_double(0x7F)));
    ck_assert_uint_eq(rl_e5m2_from_double(1.0), 0x3C);
    ck_assert_uint_eq(rl_e5m2_from_double(57344), 0x7B);
    ck_assert_double_eq(rl_e5m2_to_double(0x7B), 57344);
    for (int b = 0; b < 256; b++) {
        double d = rl_e4m3_to_double((uint8_t)b);
        if (!isnan(d))
            ck_assert_uint_eq(rl_e4m3_from_double(d), (unsigned)b);
    }
    ck_assert_uint_eq(rl_tf32_from_double(1.0), 0x3F800000);
    ck_assert_uint_eq(rl_tf32_from_double(1 + ldexp(1, -10)) & 0x1FFF, 0); /* low bits clear */
    ck_assert_uint_eq(rl_tf32_from_double(1 + ldexp(1, -12)), 0x3F800000);
}
END_TEST

START_TEST(fma_simulation)
{
    uint64_t a, b;
    rl_mb_fma_constants(RL_MB_CHECK_FMA_F32, &a, &b);
    uint64_t x0 = rl_mb_fma_start(RL_MB_CHECK_FMA_F32, 5, 3);
    float av, bv, xv;
    uint32_t u = (uint32_t)a;
    memcpy(&av, &u, 4);
    u = (uint32_t)b;
    memcpy(&bv, &u, 4);
    u = (uint32_t)x0;
    memcpy(&xv, &u, 4);
    for (int i = 0; i < 1000; i++)
        xv = fmaf(xv, av, bv);
    memcpy(&u, &xv, 4);
    ck_assert_uint_eq(rl_mb_fma_simulate(RL_MB_CHECK_FMA_F32, x0, a, b, 1000), u);
    /* FP32 and FP64 chains grow: a kernel skipping steps ends elsewhere. */
    ck_assert_uint_ne(rl_mb_fma_simulate(RL_MB_CHECK_FMA_F32, x0, a, b, 100000),
                      rl_mb_fma_simulate(RL_MB_CHECK_FMA_F32, x0, a, b, 50000));
    rl_mb_fma_constants(RL_MB_CHECK_FMA_F64, &a, &b);
    x0 = rl_mb_fma_start(RL_MB_CHECK_FMA_F64, 1, 1);
    ck_assert_uint_ne(rl_mb_fma_simulate(RL_MB_CHECK_FMA_F64, x0, a, b, 1 << 20),
                      rl_mb_fma_simulate(RL_MB_CHECK_FMA_F64, x0, a, b, 1 << 19));
    /* FP16 pairs: one step by hand. */
    uint16_t h = rl_fp16_fma(0x3C00 /* 1 */, 0x4000 /* 2 */, 0x3800 /* 0.5 */);
    ck_assert_uint_eq(h, 0x4100); /* 2.5 */
    rl_mb_fma_constants(RL_MB_CHECK_FMA_F16X2, &a, &b);
    x0 = rl_mb_fma_start(RL_MB_CHECK_FMA_F16X2, 0, 0);
    uint64_t one = rl_mb_fma_simulate(RL_MB_CHECK_FMA_F16X2, x0, a, b, 1);
    ck_assert_uint_eq(one & 0xFFFF, rl_fp16_fma((uint16_t)x0, (uint16_t)a, (uint16_t)b));
    ck_assert_uint_eq(one >> 16,
                      rl_fp16_fma((uint16_t)(x0 >> 16), (uint16_t)(a >> 16), (uint16_t)(b >> 16)));
    /* Starts are never zero. */
    for (int t = 0; t < 100; t++)
        ck_assert_uint_ne(rl_mb_fma_start(RL_MB_CHECK_FMA_BF16X2, (uint64_t)t, t % 8) & 0x7FFF, 0);
}
END_TEST

/* ---- MMA linearity ---- */

#define N_ACC 512

static void make_mma(double *c0, double *d1, double *d2, double *d3, double *dn, double n,
                     double scale)
{
    for (int i = 0; i < N_ACC; i++) {
        double p = (rl_mb_unit_float(rl_mb_hash((uint32_t)i)) * 4 - 3) * 4 * scale;
        c0[i] = rl_mb_unit_float(rl_mb_hash((uint32_t)i + 77)) - 0.75;
        d1[i] = c0[i] + p;
        d2[i] = c0[i] + 2 * p;
        d3[i] = c0[i] + 3 * p;
        dn[i] = c0[i] + n * p;
    }
}

START_TEST(mma_linearity_check)
{
    static double c0[N_ACC], d1[N_ACC], d2[N_ACC], d3[N_ACC], dn[N_ACC];
    char why[160];
    double err;
    /* per MMA: p / 4, uniform in [-scale, scale): mean square scale^2 / 3,
     * which must be k a_ms b_ms = 16 / 9: scale^2 = 16 / 3. */
    struct rl_mb_mma_expect e = {16, 4, 1.0 / 3, 1.0 / 3, 1e-6, 1e-2};
    double scale = sqrt(16.0 / 3);
    make_mma(c0, d1, d2, d3, dn, 1000, scale);
    ck_assert_int_eq(rl_mb_check_mma(&e, c0, d1, d2, d3, dn, 1000, N_ACC, why, &err), 0);
    /* Half the iterations done: caught. */
    ck_assert_int_eq(rl_mb_check_mma(&e, c0, d1, d2, d3, dn, 2000, N_ACC, why, &err), -1);
    ck_assert_ptr_nonnull(strstr(why, "after 2000 iterations"));
    /* A step that is not repeated: caught. */
    d3[7] += 1;
    ck_assert_int_eq(rl_mb_check_mma(&e, c0, d1, d2, d3, NULL, 0, N_ACC, why, &err), -1);
    ck_assert_ptr_nonnull(strstr(why, "does not grow linearly"));
    d3[7] -= 1;
    /* Products of the wrong size (a K = 8 unit counted as K = 16): caught. */
    make_mma(c0, d1, d2, d3, dn, 1000, scale / sqrt(2.5));
    ck_assert_int_eq(rl_mb_check_mma(&e, c0, d1, d2, d3, dn, 1000, N_ACC, why, &err), -1);
    ck_assert_ptr_nonnull(strstr(why, "wrong shape"));
    /* Nothing done at all (D = C0): caught. */
    ck_assert_int_eq(rl_mb_check_mma(&e, c0, c0, c0, c0, c0, 1000, N_ACC, why, &err), -1);
    /* Not finite: caught. */
    make_mma(c0, d1, d2, d3, dn, 1000, scale);
    dn[3] = NAN;
    ck_assert_int_eq(rl_mb_check_mma(&e, c0, d1, d2, d3, dn, 1000, N_ACC, why, &err), -1);
    ck_assert_ptr_nonnull(strstr(why, "not finite"));
}
END_TEST

START_TEST(closed_form_sum_and_digest)
{
    for (uint64_t n = 0; n < 300; n += 7) {
        uint32_t brute = 0;
        for (uint64_t w = 0; w < n; w++)
            brute += rl_mb_cheap_word((uint32_t)w, 0x1234567u);
        ck_assert_uint_eq(rl_mb_cheap_sum(n, 0x1234567u), brute);
    }
    /* Beyond 2^32 words the word index wraps as in the kernels. */
    ck_assert_uint_eq(rl_mb_cheap_sum(1ULL << 28, 5) + rl_mb_cheap_sum(0, 5),
                      rl_mb_cheap_sum(1ULL << 28, 5));
    ck_assert_uint_ne(rl_mb_digest("abc", 3), rl_mb_digest("abd", 3));
}
END_TEST

/* ---- statistics, accounting, plateaus ---- */

START_TEST(stats)
{
    double v[5] = {12, 10, 11, 13, 10};
    struct rl_mb_stats s;
    rl_mb_stats_of(v, 5, &s);
    ck_assert_double_eq(s.min, 10);
    ck_assert_double_eq(s.median, 11);
    ck_assert_double_eq(s.max, 13);
    ck_assert_double_eq_tol(s.spread_pct, 3.0 / 11 * 100, 1e-9);
    rl_mb_stats_of(v, 4, &s);
    ck_assert_double_eq(s.median, 11.5);
    rl_mb_stats_of(v, 0, &s);
    ck_assert(isnan(s.median));
}
END_TEST


static struct rl_device_info h200_dev(void)
{
    struct rl_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    d.cc_major = 9;
    d.sm_count = 132;
    d.sm_clock_max_mhz = 1980;
    d.l2_bytes = 50e6;
    d.smem_per_sm_bytes = 233472;
    return d;
}

/* A raw compute result: `tflops` at `mhz`, NVML present. */
static struct rl_mb_raw compute_raw(const char *name, double tflops, double mhz)
{
    struct rl_mb_raw r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    r.status = RL_MB_OK;
    r.work = 1e12;
    r.n_reps = 3;
    double t = r.work / (tflops * 1e3); /* ns */
    r.time_ns[0] = t;
    r.time_ns[1] = t * 1.01;
    r.time_ns[2] = t * 0.99;
    r.cond.nvml = true;
    r.cond.sm_mhz_min = r.cond.sm_mhz_median = r.cond.sm_mhz_max = mhz;
    return r;
}

START_TEST(accounting_against_the_datasheet)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    struct rl_device_info dev = h200_dev();
    struct rl_mb_result r;
    /* FP32 at 65 TFLOP/s and 1980 MHz: 97.2% of 66.9, 124.3 FLOP/clk/SM. */
    struct rl_mb_raw raw = compute_raw("fp32", 65, 1980);
    rl_mb_account(rl_mb_find("fp32"), &raw, &dev, h200, &r);
    ck_assert_double_eq_tol(r.rate_median, 65, 1e-9);
    ck_assert_double_eq_tol(r.rate_best, 65 / 0.99, 1e-9);
    ck_assert_double_eq_tol(r.pct_of_datasheet, 65 / 66.9 * 100, 1e-9);
    ck_assert_double_eq_tol(r.flop_per_clk_per_sm, 65e12 / (132 * 1980e6), 1e-9);
    ck_assert_double_eq_tol(r.pct_of_clock_adjusted, r.pct_of_datasheet, 1e-9);
    ck_assert(!r.accounting_error);
    ck_assert(r.clocks_stable);
    /* BF16 at 1000 TFLOP/s and 1980 MHz: 101.07% of the 989.4 datasheet
     * (which assumes 1830 MHz) but 93.4% of the peak at the clock it ran,
     * 989.4 x 1980 / 1830 = 1070.5: no error. */
    raw = compute_raw("bf16", 1000, 1980);
    rl_mb_account(rl_mb_find("bf16"), &raw, &dev, h200, &r);
    ck_assert_double_eq_tol(r.pct_of_datasheet, 1000 / 989.4 * 100, 1e-9);
    ck_assert_double_eq_tol(r.pct_of_clock_adjusted, 1000 / (989.4 * 1980 / 1830) * 100, 1e-9);
    ck_assert(!r.accounting_error);
    /* FP16 accumulate on Hopper runs at the FP32-accumulate rate (989.4),
     * on A100 312: every data-center part gives this benchmark a percentage. */
    raw = compute_raw("fp16-acc16", 900, 1830);
    rl_mb_account(rl_mb_find("fp16-acc16"), &raw, &dev, h200, &r);
    ck_assert_double_eq_tol(r.datasheet, 989.4, 1e-9);
    ck_assert_double_eq_tol(r.pct_of_datasheet, 900 / 989.4 * 100, 1e-9);
    static const char *const dc[] = {"a100-sxm-80gb", "a100-sxm-40gb", "a100-pcie-80gb",
                                     "h100-sxm", "h100-pcie", "h100-nvl", "gh200"};
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++) {
        rl_mb_account(rl_mb_find("fp16-acc16"), &raw, &dev, rl_test_gpu(dc[i]), &r);
        ck_assert_msg(r.datasheet > 300, "%s: no FP16-accumulate roof", dc[i]);
    }
    /* 1080 at 1980 MHz: 100.9% of 1070.5, flagged; 1000 at 1830 MHz: 101.07%. */
    raw = compute_raw("bf16", 1080, 1980);
    rl_mb_account(rl_mb_find("bf16"), &raw, &dev, h200, &r);
    ck_assert(r.accounting_error);
    raw = compute_raw("bf16", 1000, 1830);
    rl_mb_account(rl_mb_find("bf16"), &raw, &dev, h200, &r);
    ck_assert(r.accounting_error);
    raw = compute_raw("bf16", 989, 1830);
    rl_mb_account(rl_mb_find("bf16"), &raw, &dev, h200, &r);
    ck_assert(!r.accounting_error);
    /* Without NVML: the maximum clock, said so. */
    raw = compute_raw("fp32", 60, 1500);
    raw.cond.nvml = false;
    rl_mb_account(rl_mb_find("fp32"), &raw, &dev, h200, &r);
    ck_assert(!r.clock_measured);
    ck_assert_double_eq(r.clock_mhz, 1980);
    /* Unsupported: no rate at all, never zero. */
    raw = compute_raw("fp8-e4m3", 1, 1);
    raw.status = RL_MB_UNSUPPORTED;
    rl_mb_account(rl_mb_find("fp8-e4m3"), &raw, &dev, h200, &r);
    ck_assert(isnan(r.rate_median) && isnan(r.pct_of_datasheet));
    /* Unknown GPU: measured, no percentages. */
    raw = compute_raw("fp32", 65, 1980);
    rl_mb_account(rl_mb_find("fp32"), &raw, &dev, NULL, &r);
    ck_assert(isnan(r.pct_of_datasheet));
    ck_assert_double_eq_tol(r.rate_median, 65, 1e-9);
    /* Memory: a copy moving 2 GiB x 2 in 1 ms = 4295 GB/s, 89.5% of 4800. */
    raw = compute_raw("hbm-copy", 1, 1);
    raw.work = 0;
    raw.bytes = 4.0 * (1 << 30);
    raw.n_reps = 1;
    raw.time_ns[0] = 1e6;
    rl_mb_account(rl_mb_find("hbm-copy"), &raw, &dev, h200, &r);
    ck_assert(r.rate_is_bandwidth);
    ck_assert_double_eq_tol(r.rate_median, 4.0 * (1 << 30) / 1e6, 1e-6);
    ck_assert_double_eq_tol(r.pct_of_datasheet, 4.0 * (1 << 30) / 1e6 / 4800 * 100, 1e-6);
    /* Host copies against half the bidirectional link. */
    raw.bytes = 55e6;
    rl_mb_account(rl_mb_find("h2d"), &raw, &dev, h200, &r);
    ck_assert_double_eq(r.datasheet, 64);
    ck_assert_int_eq(r.datasheet_origin, RL_ORIGIN_ANALYTIC);
}
END_TEST

static void curve(struct rl_mb_point *p, int *n, double from, double to, double gbs)
{
    for (double ws = from; ws <= to; ws *= 1.5, (*n)++) {
        p[*n].x = ws;
        p[*n].bytes = 1e9;
        p[*n].time_ns = 1e9 / gbs * (1 + 0.02 * ((*n % 3) - 1));
    }
}

START_TEST(plateaus_name_the_levels)
{
    struct rl_mb_point p[RL_MB_MAX_POINTS];
    int n = 0;
    curve(p, &n, 16e3, 150e3, 30000);  /* L1 */
    curve(p, &n, 250e3, 24e6, 10000);  /* L2, near partition */
    curve(p, &n, 30e6, 48e6, 6500);    /* L2, far partition */
    curve(p, &n, 80e6, 500e6, 4000);   /* DRAM */
    struct rl_mb_plateau pl[8];
    int k = rl_mb_plateaus(p, n, 233472, 50e6, pl, 8);
    ck_assert_int_eq(k, 4);
    ck_assert_str_eq(pl[0].level, "l1");
    ck_assert_str_eq(pl[1].level, "l2");
    ck_assert_str_eq(pl[2].level, "l2-far");
    ck_assert_str_eq(pl[3].level, "dram");
    ck_assert_double_eq_tol(pl[1].gbs, 10000, 300);
    ck_assert_double_eq_tol(pl[3].gbs, 4000, 120);
    /* A flat curve is one plateau. */
    n = 0;
    curve(p, &n, 1e9, 1e10, 4000);
    k = rl_mb_plateaus(p, n, 233472, 50e6, pl, 8);
    ck_assert_int_eq(k, 1);
    ck_assert_str_eq(pl[0].level, "dram");
}
END_TEST

START_TEST(throttle_names)
{
    char buf[128];
    rl_mb_throttle_names(0x4 | 0x40, buf, sizeof buf);
    ck_assert_str_eq(buf, "sw_power_cap,hw_thermal");
    rl_mb_throttle_names(0, buf, sizeof buf);
    ck_assert_str_eq(buf, "");
}
END_TEST

/* ---- the JSON file ---- */

START_TEST(session_json_matches_schema_and_reads_back)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    struct rl_mb_session s;
    memset(&s, 0, sizeof s);
    s.dev = h200_dev();
    s.spec = h200;
    snprintf(s.created, sizeof s.created, "2026-11-29T00:00:00Z");
    struct rl_mb_result res[5];
    s.results = res;
    struct rl_mb_raw raw = compute_raw("bf16", 760, 1755);
    snprintf(raw.instruction, sizeof raw.instruction, "HGMMA.64x256x16.F32.BF16");
    rl_mb_account(rl_mb_find("bf16"), &raw, &s.dev, h200, &res[s.n++]);
    raw = compute_raw("gemm-bf16", 700, 1755);
    rl_mb_account(rl_mb_find("gemm-bf16"), &raw, &s.dev, h200, &res[s.n++]);
    raw = compute_raw("hbm-copy", 1, 1);
    raw.bytes = 4e9;
    raw.work = 0;
    rl_mb_account(rl_mb_find("hbm-copy"), &raw, &s.dev, h200, &res[s.n++]);
    raw = compute_raw("fp8-e4m3", 1, 1);
    raw.status = RL_MB_UNSUPPORTED;
    snprintf(raw.reason, sizeof raw.reason, "test");
    rl_mb_account(rl_mb_find("fp8-e4m3"), &raw, &s.dev, h200, &res[s.n++]);
    raw = compute_raw("sweep-fp32", 1, 1);
    raw.n_points = 2;
    raw.points[0] = (struct rl_mb_point){1, 1e9, 4e9, 1e6};
    raw.points[1] = (struct rl_mb_point){64, 64e9, 4e9, 1.5e6};
    rl_mb_account(rl_mb_find("sweep-fp32"), &raw, &s.dev, h200, &res[s.n++]);

    cJSON *doc = rl_mb_session_json(&s);
    cJSON *schema;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse_file(ROOFLINE_SOURCE_DIR "/data/schemas/bench.schema.json",
                                        &schema, err), 0);
    struct rl_json_path where;
    ck_assert_msg(rl_schema_validate(schema, doc, &where, err) == 0, "%s", err);
    char path[512];
    snprintf(path, sizeof path, "%s/bench.json", rl_test_tmpdir());
    ck_assert_int_eq(rl_json_write_file(doc, path, err), 0);
    cJSON_Delete(doc);
    cJSON_Delete(schema);

    struct rl_bench_ceilings c;
    ck_assert_msg(rl_bench_ceilings_load(path, &c, err) == 0, "%s", err);
    ck_assert_str_eq(c.spec_id, "h200");
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_str_eq(c.compute[0].name, "bf16");
    ck_assert_int_eq(c.compute[0].origin, RL_ORIGIN_MEASURED);
    ck_assert_double_eq_tol(c.compute[0].peak_tflops, 760, 1e-3);
    ck_assert_str_eq(c.compute[1].name, "bf16-blas");
    ck_assert_uint_eq(c.n_memory, 1);
    ck_assert_double_eq_tol(c.memory[0].bandwidth_gbs, 4, 1e-6); /* 4e9 B in 1e9 ns */
    ck_assert_int_eq(c.n_sweeps, 1);
    ck_assert_int_eq(c.sweeps[0].n, 2);
    ck_assert_double_eq_tol(c.sweeps[0].ai_flop_per_byte[1], 16, 1e-9);
}
END_TEST

START_TEST(bad_bench_file)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/notbench.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fputs("{\"kernels\": []}\n", f);
    fclose(f);
    struct rl_bench_ceilings c;
    ck_assert_int_eq(rl_bench_ceilings_load(path, &c, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "not a roofline bench file"));
    f = fopen(path, "w");
    fputs("{\"schema_version\": 1,\n \"gpu\": {", f);
    fclose(f);
    ck_assert_int_eq(rl_bench_ceilings_load(path, &c, err), RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "line 2"));
}
END_TEST

/* A Blackwell run measures 13 compute roofs (FP6 / FP4 new) and 6
 * cuBLASLt ones: the bench file keeps them all, the best per roof. */
START_TEST(bench_file_keeps_every_roof)
{
    size_t n;
    const struct rl_mb_def *c = rl_mb_catalog(&n);
    char *text = malloc(65536);
    size_t len = (size_t)snprintf(text, 65536, "{\"schema_version\": 1, \"gpu\": {}, \"results\": [");
    int distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if ((c[i].kind != RL_MB_COMPUTE && c[i].kind != RL_MB_LIBRARY) || !c[i].roof)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= c[j].kind == c[i].kind && c[j].roof && strcmp(c[j].roof, c[i].roof) == 0;
        distinct += !seen;
        len += (size_t)snprintf(text + len, 65536 - len,
                                "%s{\"name\": \"%s\", \"kind\": \"%s\", \"roof\": \"%s\", "
                                "\"status\": \"ok\", \"tflops\": {\"median\": %zu}}",
                                len > 60 ? ", " : "", c[i].name,
                                c[i].kind == RL_MB_LIBRARY ? "library" : "compute", c[i].roof,
                                i + 1);
    }
    len += (size_t)snprintf(text + len, 65536 - len, "]}");
    ck_assert_int_ge(distinct, 19);
    struct rl_bench_ceilings b;
    char err[256] = "";
    ck_assert_int_eq(rl_bench_ceilings_parse(text, len, "x.json", &b, err), RL_OK);
    ck_assert_int_eq((int)b.n_compute, distinct);
    int found = 0;
    for (size_t i = 0; i < b.n_compute; i++)
        if (strcmp(b.compute[i].name, "fp4") == 0) {
            /* fp4-e2m1, nvfp4, mxfp4: the last listed has the largest value */
            size_t last = 0;
            for (size_t j = 0; j < n; j++)
                if (c[j].kind == RL_MB_COMPUTE && strcmp(c[j].roof, "fp4") == 0)
                    last = j + 1;
            ck_assert_double_eq(b.compute[i].peak_tflops, (double)last);
            found = 1;
        }
    ck_assert(found);
    free(text);
}
END_TEST

/* ---- defects of the GPU path found by reading (issue 35) ---- */

/* FP8 Tensor Cores accumulate with about 14 bits (verify.c): the model
 * with the benchmark's own operands passes the FP8 tolerance and would
 * fail the 1e-4 every FP32-accumulator check used before. */
START_TEST(narrow_tolerance_covers_truncated_accumulation)
{
    /* The model by hand. 1 = 0.5 x 2^1 is the largest addend (e_max 1);
     * with 4 bits the unit is 2^(1 - 4) = 0.125, so the products 2^-5
     * truncate to 0; with 24 bits 1 + 2 x 2^-5 = 1.0625. */
    const double a[2] = {0.25, 0.25}, b[2] = {0.125, 0.125}, m[2] = {-0.75, 0.5};
    ck_assert_double_eq(rl_mb_truncated_mma(1, a, b, 2, 4), 1);
    ck_assert_double_eq(rl_mb_truncated_mma(1, a, b, 2, 24), 1.0625);
    /* Toward zero: -1 + (-3/16) + 1/32 at unit 0.125 is -1 - 0.125 + 0. */
    ck_assert_double_eq(rl_mb_truncated_mma(-1, m, (const double[]){0.25, 0.0625}, 2, 4), -1.125);
    ck_assert(isnan(rl_mb_truncated_mma(0, a, b, 129, 14)));
    static const char *const fp8[] = {"fp8-e4m3", "fp8-e5m2"};
    for (int i = 0; i < 2; i++) {
        const struct rl_mb_def *d = rl_mb_find(fp8[i]);
        const struct rl_mb_variant *hop = rl_mb_select(d, 9, 0, NULL),
                                   *bw = rl_mb_select(d, 10, 0, NULL);
        double tol = rl_mb_mma_tolerance(hop);
        ck_assert_double_eq(tol, 3.5e-2);
        ck_assert_double_eq(rl_mb_mma_tolerance(bw), tol);
        /* One block of accumulators (wgmma: 128 threads x 128). */
        double e14 = rl_mb_simulate_narrow_check(hop, 14, 16384);
        double e13 = rl_mb_simulate_narrow_check(hop, 13, 16384);
        double e24 = rl_mb_simulate_narrow_check(hop, 24, 16384);
        ck_assert_msg(e14 > 1e-4 && e14 < tol, "%s 14 bits: %g", fp8[i], e14);
        ck_assert_msg(e13 > e14 && e13 < tol, "%s 13 bits: %g", fp8[i], e13);
        ck_assert_msg(e24 < 1e-4, "%s 24 bits: %g", fp8[i], e24);
        double t14 = rl_mb_simulate_narrow_check(bw, 14, 16384);
        ck_assert_msg(t14 > 1e-4 && t14 < tol, "%s tcgen05 14 bits: %g", fp8[i], t14);
    }
    /* The other kinds keep theirs; a variant the model cannot read: -1. */
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("bf16"), 9, 0, NULL)), 1e-4);
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("tf32"), 10, 0, NULL)), 1e-4);
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("fp64-tc"), 9, 0, NULL)),
                        1e-12);
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("int8"), 9, 0, NULL)), 0);
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("fp4-e2m1"), 10, 0, NULL)),
                        3.5e-2);
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("nvfp4"), 12, 0, NULL)),
                        3.5e-2);
    ck_assert_double_eq(rl_mb_mma_tolerance(rl_mb_select(rl_mb_find("fp16-acc16"), 10, 0, NULL)),
                        2e-2);
    ck_assert_double_eq(
        rl_mb_simulate_narrow_check(rl_mb_select(rl_mb_find("bf16"), 9, 0, NULL), 14, 64), -1);
    ck_assert_double_eq(
        rl_mb_simulate_narrow_check(rl_mb_select(rl_mb_find("fp8-e4m3"), 8, 9, NULL), 14, 64), -1);
}
END_TEST

/* FP16 accumulate on B200 / B300 is tcgen05 kind::f16 with an F16 D, not
 * the mma.sync of sm_80. */
START_TEST(fp16_acc16_runs_tcgen05_on_blackwell)
{
    const struct rl_mb_def *d = rl_mb_find("fp16-acc16");
    for (int minor = 0; minor <= 3; minor += 3) {
        const struct rl_mb_variant *v = rl_mb_select(d, 10, minor, NULL);
        ck_assert_str_eq(v->kernel, "rl_mb_tc05_f16acc16");
        ck_assert_str_eq(v->sass, "UTCHMMA");
        ck_assert_uint_eq(v->idesc >> 4 & 3, 0); /* D type F16 (F32 is 1) */
        ck_assert_uint_eq(v->idesc, TC_IDESC_F16 & ~(3u << 4));
        ck_assert_int_eq(v->check, RL_MB_CHECK_MMA_F16_WIDE);
        ck_assert_double_eq(v->flop_per_instr, 2.0 * 128 * 256 * 16);
        ck_assert_int_eq(v->max_blocks_per_sm, 2);
    }
    ck_assert_str_eq(rl_mb_select(d, 9, 0, NULL)->kernel, "rl_mb_wgmma_f16acc16");
    ck_assert_str_eq(rl_mb_select(d, 12, 0, NULL)->kernel, "rl_mb_mma_f16acc16_16816");
}
END_TEST

/* TMEM residency (bench.c): B200 has 233472 B of shared memory per SM, 1024
 * reserved per block, 232448 opt-in; a tcgen05 kernel holds 12308 B. */
START_TEST(shared_memory_enforces_tmem_residency)
{
    const long sm = 233472, res = 1024, stat = 12308, optin = 232448 - 12308;
    /* Without dynamic shared memory 233472 / (12308 + 1024) = 17 CTAs fit. */
    ck_assert_int_eq(rl_mb_blocks_by_smem(sm, res, stat), 17);
    /* Two (256 columns each): 233472 / 2 = 116736 = 1024 + 12308 + 103404. */
    ck_assert_int_eq(rl_mb_residency_smem_bytes(sm, res, stat, optin, 2), 103404);
    ck_assert_int_eq(rl_mb_blocks_by_smem(sm, res, stat + 103404), 2);
    /* One (512 columns, block-scaled): 233472 - 1024 - 12308. */
    ck_assert_int_eq(rl_mb_residency_smem_bytes(sm, res, stat, optin, 1), 220140);
    ck_assert_int_eq(rl_mb_blocks_by_smem(sm, res, stat + 220140), 1);
    /* Every SM size from 64 KiB to 256 KiB in 1 KiB steps: exactly n. */
    for (long s = 65536; s <= 262144; s += 1024)
        for (int n = 1; n <= 2; n++) {
            long dyn = rl_mb_residency_smem_bytes(s, res, stat, s, n);
            ck_assert_msg(dyn >= 0 && rl_mb_blocks_by_smem(s, res, stat + dyn) == n,
                          "%ld B, %d CTAs: %ld", s, n, dyn);
        }
    /* Limits: no such size, or none allowed. */
    ck_assert_int_eq(rl_mb_residency_smem_bytes(sm, res, 200000, optin, 2), -1);
    ck_assert_int_eq(rl_mb_residency_smem_bytes(sm, res, stat, 100000, 1), -1);
    ck_assert_int_eq(rl_mb_residency_smem_bytes(sm, res, stat, optin, 0), -1);
    ck_assert_int_eq(rl_mb_residency_smem_bytes(0, res, stat, optin, 1), -1);
    ck_assert_int_eq(rl_mb_blocks_by_smem(sm, 0, 0), 0);
}
END_TEST

/* Every copy and memset of the benchmarks and workloads is on a stream
 * the kernels are ordered with: no cudaMemcpy / cudaMemset, which run on
 * the legacy stream that a non-blocking stream does not wait for. */
START_TEST(copies_run_on_the_benchmark_stream)
{
    static const char *const dirs[] = {"microbench", "kernels"};
    int files = 0;
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ROOFLINE_SOURCE_DIR, dirs[i]);
        DIR *dir = opendir(path);
        ck_assert_ptr_nonnull(dir);
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            const char *dot = strrchr(e->d_name, '.');
            if (!dot || (strcmp(dot, ".c") && strcmp(dot, ".cu")))
                continue;
            snprintf(path, sizeof path, "%s/%s/%s", ROOFLINE_SOURCE_DIR, dirs[i], e->d_name);
            char *text = rl_test_slurp(path);
            ck_assert_ptr_nonnull(text);
            files++;
            ck_assert_msg(!strstr(text, "cudaMemcpy(") && !strstr(text, "cudaMemset("),
                          "%s/%s: a copy on the legacy stream", dirs[i], e->d_name);
            free(text);
        }
        closedir(dir);
    }
    ck_assert_int_ge(files, 15);
}
END_TEST

static Suite *microbench_suite(void)
{
    Suite *s = suite_create("microbench");
    TCase *core = tcase_create("core");
        tcase_add_test(core, catalog_is_consistent);
    tcase_add_test(core, groups_select_benchmarks);
    tcase_add_test(core, launch_work_follows_the_catalog);
    tcase_add_test(core, fp16_and_bf16_round_to_nearest_even);
    tcase_add_test(core, fp8_and_tf32);
    tcase_add_test(core, fma_simulation);
    tcase_add_test(core, closed_form_sum_and_digest);
    tcase_add_test(core, stats);
    tcase_add_test(core, accounting_against_the_datasheet);
    tcase_add_test(core, plateaus_name_the_levels);
    tcase_add_test(core, throttle_names);
    tcase_add_test(core, session_json_matches_schema_and_reads_back);
    tcase_add_test(core, bench_file_keeps_every_roof);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
        tcase_add_test(limits, unsupported_precisions_are_named_not_zero);
        tcase_add_test(limits, blackwell_selects_tcgen05_and_the_new_mma_sync);
    tcase_add_test(limits, mma_linearity_check);
    tcase_add_test(limits, bad_bench_file);
    tcase_add_test(limits, narrow_tolerance_covers_truncated_accumulation);
    tcase_add_test(limits, fp16_acc16_runs_tcgen05_on_blackwell);
    tcase_add_test(limits, shared_memory_enforces_tmem_residency);
    tcase_add_test(limits, copies_run_on_the_benchmark_stream);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(microbench_suite()); }
