/* check_ceilings.c - tests of the ceilings a chart or report judges against: datasheet, measured, both. */
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The bench file of a made-up run, rebuilt before each test (large: static). */
static struct rl_bench_ceilings bench;
static struct rl_ceilings c;

static void measured(const char *name, double tflops)
{
    struct rl_compute_roof *r = &bench.compute[bench.n_compute++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->label, sizeof r->label, "measured %s", name);
    r->peak_tflops = tflops;
    r->origin = RL_ORIGIN_MEASURED;
}

static void measured_memory(enum rl_mem_level level, double gbs)
{
    struct rl_memory_roof *m = &bench.memory[bench.n_memory++];
    memset(m, 0, sizeof *m);
    m->level = level;
    snprintf(m->label, sizeof m->label, "bench %s", rl_mem_level_name(level));
    m->bandwidth_gbs = gbs;
    m->origin = RL_ORIGIN_MEASURED;
}

static void setup(void)
{
    memset(&bench, 0, sizeof bench);
    memset(&c, 0, sizeof c);
    snprintf(bench.gpu_name, sizeof bench.gpu_name, "Bench GPU");
}

/* A copy of a shipped datasheet that a test may change. */
static struct rl_gpu_spec spec_copy;
static const struct rl_gpu_spec *copy_of(const char *id)
{
    spec_copy = *rl_test_gpu(id);
    return &spec_copy;
}

START_TEST(datasheet_defaults)
{
    /* H200, no precisions: fp64 33.5, fp32 66.9, tf32 494.7, fp16 989.4,
     * bf16 989.4, fp8 1978.9 TFLOP/s, in that order; the default judge is
     * the highest, fp8. Memory: HBM3e 4800 GB/s and L1 33454 GB/s; the
     * unpublished L2 is left out without an error. */
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, err), RL_OK);
    ck_assert_str_eq(c.gpu_name, "NVIDIA H200 SXM 141GB");
    ck_assert_uint_eq(c.n_compute, 6);
    static const char *const names[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};
    static const double peaks[] = {33.5, 66.9, 494.7, 989.4, 989.4, 1978.9};
    for (size_t i = 0; i < 6; i++) {
        ck_assert_str_eq(c.compute[i].name, names[i]);
        ck_assert_double_eq(c.compute[i].peak_tflops, peaks[i]);
        ck_assert_int_eq(c.compute[i].origin, RL_ORIGIN_DATASHEET);
        ck_assert(!c.compute[i].sparse);
    }
    ck_assert_uint_eq(c.default_roof, 5);
    ck_assert_uint_eq(c.n_memory, 2);
    ck_assert_int_eq(c.memory[0].level, RL_MEM_DRAM);
    ck_assert_str_eq(c.memory[0].label, "HBM3e");
    ck_assert_double_eq(c.memory[0].bandwidth_gbs, 4800);
    ck_assert_int_eq(c.memory[1].level, RL_MEM_L1);
    ck_assert_str_eq(c.memory[1].label, "L1/shared");
    ck_assert_double_eq(c.memory[1].bandwidth_gbs, 33454);
    char buf[64];
    rl_ceilings_origins(&c, buf, sizeof buf);
    ck_assert_str_eq(buf, "datasheet and analytic");
}
END_TEST

START_TEST(default_judge_is_the_first_highest)
{
    /* A100: fp64 9.7, fp32 19.5, tf32 156, fp16 312, bf16 312, no fp8. The
     * tie at 312 goes to the first, fp16 (index 3). */
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("a100-sxm-80gb"), NULL, NULL, false,
                                      false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 5);
    ck_assert_str_eq(c.compute[3].name, "fp16");
    ck_assert_str_eq(c.compute[4].name, "bf16");
    ck_assert_uint_eq(c.default_roof, 3);
    /* Only CUDA cores (the Tensor Core rates removed): fp32 66.9 over fp64
     * 33.5, index 1 - the second roof is compared too. */
    struct rl_gpu_spec *s = (struct rl_gpu_spec *)copy_of("h200");
    for (int p = 0; p < RL_PREC_COUNT; p++)
        s->peak_tflops[RL_PEAKS_TENSOR_DENSE][p] = s->peak_tflops[RL_PEAKS_TENSOR_SPARSE][p] = NAN;
    ck_assert_int_eq(rl_ceilings_init(&c, s, NULL, NULL, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_uint_eq(c.default_roof, 1);
    /* Only FP64: one roof, the default. */
    s->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = NAN;
    ck_assert_int_eq(rl_ceilings_init(&c, s, NULL, NULL, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_uint_eq(c.default_roof, 0);
    ck_assert_str_eq(c.compute[0].name, "fp64");
}
END_TEST

/* B200, no precisions: the FP6 and FP4 roofs are drawn after FP8 (dense
 * 4500 and 9000, sparse 9000 and 18000), but a kernel of unknown precision
 * is judged against FP8 (index 5), never against the faster FP4. */
START_TEST(blackwell_draws_fp6_and_fp4)
{
    char err[RL_ERRMSG_SIZE] = "";
    const struct rl_gpu_spec *b200 = rl_test_gpu("b200");
    ck_assert_int_eq(rl_ceilings_init(&c, b200, NULL, NULL, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 8);
    ck_assert_str_eq(c.compute[5].name, "fp8");
    ck_assert_str_eq(c.compute[6].name, "fp6");
    ck_assert_str_eq(c.compute[6].label, "FP6 Tensor Core");
    ck_assert_double_eq(c.compute[6].peak_tflops, 4500);
    ck_assert_str_eq(c.compute[7].name, "fp4");
    ck_assert_double_eq(c.compute[7].peak_tflops, 9000);
    ck_assert_uint_eq(c.default_roof, 5);
    ck_assert_int_eq(rl_ceilings_init(&c, b200, NULL, NULL, true, false, NULL, err), RL_OK);
    ck_assert_double_eq(c.compute[6].peak_tflops, 9000);
    ck_assert_double_eq(c.compute[7].peak_tflops, 18000);
    ck_assert_uint_eq(c.default_roof, 5);
    /* Asked for first, FP4 judges. */
    ck_assert_int_eq(rl_ceilings_init(&c, b200, NULL, "fp4,bf16", false, false, NULL, err),
                     RL_OK);
    ck_assert_uint_eq(c.default_roof, 0);
}
END_TEST

START_TEST(precisions_given_first_judges)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    char err[RL_ERRMSG_SIZE] = "";
    /* The first precision given judges, not the highest. */
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "fp32,bf16", false, false, NULL, err),
                     RL_OK);
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_str_eq(c.compute[0].name, "fp32");
    ck_assert_str_eq(c.compute[1].name, "bf16");
    ck_assert_uint_eq(c.default_roof, 0);
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "bf16,fp32", false, false, NULL, err),
                     RL_OK);
    ck_assert_str_eq(c.compute[0].name, "bf16");
    ck_assert_uint_eq(c.default_roof, 0);
    /* A precision named twice is drawn once; names are case-insensitive
     * through the datasheet. */
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "fp8,fp8,FP8", false, false, NULL, err),
                     RL_OK);
    ck_assert_uint_eq(c.n_compute, 1);
    /* The judge of a roof already drawn is its index. */
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp32", err), 1);
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp8", err), 0);
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp32", err), 1);
    ck_assert_uint_eq(c.n_compute, 2);
}
END_TEST

START_TEST(sparse_roofs)
{
    /* Sparse: Tensor Core roofs are the 2:4 rates, CUDA-core roofs stay dense. */
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "bf16,fp32", true, false, NULL, err),
                     RL_OK);
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_double_eq(c.compute[0].peak_tflops, 1978.9);
    ck_assert(c.compute[0].sparse);
    ck_assert_str_eq(c.compute[0].label, "BF16 Tensor Core, sparse");
    ck_assert_double_eq(c.compute[1].peak_tflops, 66.9);
    ck_assert(!c.compute[1].sparse);
    /* No sparse FP64 Tensor Core rate: refused with the datasheet's words. */
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "fp64-tc", true, false, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the GPU database holds no FP64 Tensor Core (sparse) rate for NVIDIA H200 SXM 141GB");
    /* Measured roofs are dense: a sparse chart leaves them out. */
    measured("bf16", 700);
    ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench, "bf16", true, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_int_eq(c.compute[0].origin, RL_ORIGIN_DATASHEET);
    ck_assert_double_eq(c.compute[0].peak_tflops, 1978.9);
}
END_TEST

START_TEST(measured_judges_before_datasheet)
{
    /* H200 and a bench with bf16 700 TFLOP/s, HBM 4000 GB/s and L2 9000 GB/s:
     * bf16 drawn twice (datasheet 989.4, measured 700), the measured one
     * judging (index 1). */
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    measured("fp32", 60);
    measured("bf16", 700);
    measured_memory(RL_MEM_DRAM, 4000);
    measured_memory(RL_MEM_L2, 9000);
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench, "bf16", false, false, NULL, err), RL_OK);
    ck_assert_str_eq(c.gpu_name, "NVIDIA H200 SXM 141GB");
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_int_eq(c.compute[0].origin, RL_ORIGIN_DATASHEET);
    ck_assert_double_eq(c.compute[0].peak_tflops, 989.4);
    ck_assert_int_eq(c.compute[1].origin, RL_ORIGIN_MEASURED);
    ck_assert_double_eq(c.compute[1].peak_tflops, 700);
    ck_assert_uint_eq(c.default_roof, 1);
    /* Memory per level, datasheet then measured: HBM 4800, HBM 4000 (named
     * after the datasheet's memory, HBM3e), L2 9000 (measured only), L1. */
    ck_assert_uint_eq(c.n_memory, 4);
    ck_assert_int_eq(c.memory[0].origin, RL_ORIGIN_DATASHEET);
    ck_assert_double_eq(c.memory[0].bandwidth_gbs, 4800);
    ck_assert_int_eq(c.memory[1].origin, RL_ORIGIN_MEASURED);
    ck_assert_double_eq(c.memory[1].bandwidth_gbs, 4000);
    ck_assert_str_eq(c.memory[1].label, "HBM3e");
    ck_assert_int_eq(c.memory[2].level, RL_MEM_L2);
    ck_assert_double_eq(c.memory[2].bandwidth_gbs, 9000);
    ck_assert_str_eq(c.memory[2].label, "bench l2");
    ck_assert_int_eq(c.memory[3].level, RL_MEM_L1);
    char buf[64];
    rl_ceilings_origins(&c, buf, sizeof buf);
    ck_assert_str_eq(buf, "datasheet, measured and analytic");
    /* Judging fp32 later adds both of its roofs and answers the measured. */
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp32", err), 3);
    ck_assert_uint_eq(c.n_compute, 4);
    ck_assert_double_eq(c.compute[2].peak_tflops, 66.9);
    ck_assert_double_eq(c.compute[3].peak_tflops, 60);
    /* A precision only measured: A100 has no FP8, the bench does. */
    measured("fp8", 500);
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("a100-sxm-80gb"), &bench, "fp8", false,
                                      false, "hbm", err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_double_eq(c.compute[0].peak_tflops, 500);
    ck_assert_uint_eq(c.n_memory, 2);
    ck_assert_str_eq(c.memory[1].label, "HBM2e");
}
END_TEST

START_TEST(bench_only_and_library_roofs)
{
    /* No datasheet: the bench's name, its roofs, its labels. */
    measured("bf16-blas", 800);
    measured("bf16", 700);
    measured("fp32", 60);
    measured_memory(RL_MEM_DRAM, 4000);
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "bf16", false, false, NULL, err), RL_OK);
    ck_assert_str_eq(c.gpu_name, "Bench GPU");
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_str_eq(c.compute[0].name, "bf16");
    ck_assert_uint_eq(c.n_memory, 1);
    ck_assert_str_eq(c.memory[0].label, "bench dram");
    char buf[64];
    rl_ceilings_origins(&c, buf, sizeof buf);
    ck_assert_str_eq(buf, "measured");
    /* With library roofs: bf16-blas drawn too, bf16 still judges. */
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "bf16", false, true, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_str_eq(c.compute[0].name, "bf16-blas");
    ck_assert_str_eq(c.compute[1].name, "bf16");
    ck_assert_uint_eq(c.default_roof, 1);
    /* Every measured roof without precisions; the default the highest, the
     * library's 800 only when library roofs are asked for. */
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, NULL, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 2);
    ck_assert_str_eq(c.compute[c.default_roof].name, "bf16");
    /* A library roof alone does not judge. */
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "fp64", false, true, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "no ceiling for precision 'fp64' in the datasheet or the bench file");
}
END_TEST

START_TEST(memory_levels_asked_for)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "bf16", false, false, "l1", err), RL_OK);
    ck_assert_uint_eq(c.n_memory, 1);
    ck_assert_int_eq(c.memory[0].level, RL_MEM_L1);
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "bf16", false, false, "HBM,shared", err),
                     RL_OK);
    ck_assert_uint_eq(c.n_memory, 2);
    ck_assert_int_eq(c.memory[0].level, RL_MEM_DRAM);
    ck_assert_int_eq(c.memory[1].level, RL_MEM_L1);
    /* A level asked for that the datasheet lacks: its message. */
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "bf16", false, false, "hbm,l2", err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the h200 datasheet gives no L2 bandwidth (measure it with "
                          "'roofline bench')");
    /* ... and with a bench that measured it, no error. */
    measured_memory(RL_MEM_L2, 9000);
    ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench, "bf16", false, false, "hbm,l2", err),
                     RL_OK);
    ck_assert_uint_eq(c.n_memory, 2);
    ck_assert_double_eq(c.memory[1].bandwidth_gbs, 9000);
    /* Bench only, a level it lacks. */
    measured("bf16", 700);
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "bf16", false, false, "l2", err), RL_OK);
    ck_assert_uint_eq(c.n_memory, 1);
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "bf16", false, false, "l1", err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the bench file has no such memory level");
    /* Not asked for: nothing missing is an error, nothing known is left out. */
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "bf16", false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_memory, 1);
    /* An unknown level is a usage error. */
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, "bf16", false, false, "hbm,l3", err),
                     RL_EINVAL);
    ck_assert_str_eq(err, "unknown memory level 'l3' (hbm, l2, l1)");
}
END_TEST

START_TEST(origins_sentence)
{
    /* Every combination of the three origins, by hand. */
    static const struct {
        bool d, m, a;
        const char *want;
    } cases[] = {
        {false, false, false, ""},
        {true, false, false, "datasheet"},
        {false, true, false, "measured"},
        {false, false, true, "analytic"},
        {true, true, false, "datasheet, measured"},
        {true, false, true, "datasheet and analytic"},
        {false, true, true, "measured and analytic"},
        {true, true, true, "datasheet, measured and analytic"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memset(&c, 0, sizeof c);
        /* Compute roofs carry datasheet and measured, memory the analytic,
         * and the other way round: both lists are read. */
        for (int pass = 0; pass < 2; pass++) {
            memset(&c, 0, sizeof c);
            if (cases[k].d)
                c.compute[c.n_compute++].origin = RL_ORIGIN_DATASHEET;
            if (cases[k].m) {
                if (pass)
                    c.memory[c.n_memory++].origin = RL_ORIGIN_MEASURED;
                else
                    c.compute[c.n_compute++].origin = RL_ORIGIN_MEASURED;
            }
            if (cases[k].a) {
                if (pass)
                    c.compute[c.n_compute++].origin = RL_ORIGIN_ANALYTIC;
                else
                    c.memory[c.n_memory++].origin = RL_ORIGIN_ANALYTIC;
            }
            char buf[64] = "junk";
            rl_ceilings_origins(&c, buf, sizeof buf);
            ck_assert_msg(strcmp(buf, cases[k].want) == 0, "case %zu pass %d: '%s', want '%s'",
                          k, pass, buf, cases[k].want);
        }
    }
    /* Truncated to the buffer. */
    c.n_compute = 1;
    c.compute[0].origin = RL_ORIGIN_DATASHEET;
    c.n_memory = 0;
    char small[5];
    rl_ceilings_origins(&c, small, sizeof small);
    ck_assert_str_eq(small, "data");
}
END_TEST

START_TEST(no_ceilings_at_all)
{
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, NULL, NULL, false, false, NULL, err), RL_EINVAL);
    ck_assert_str_eq(err, "no datasheet and no bench file: no ceilings");
    /* A bench without compute roofs, no precisions. */
    measured_memory(RL_MEM_DRAM, 4000);
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, NULL, false, false, NULL, err), RL_EINVAL);
    ck_assert_str_eq(err, "no compute roof to draw");
    /* An empty list of precisions. */
    measured("bf16", 700);
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, ",", false, false, NULL, err), RL_EINVAL);
    ck_assert_str_eq(err, "no compute roof to draw");
    /* Judging on ceilings with neither source: no suffix about the bench. */
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(rl_ceilings_judge(&c, "bf16", err), -1);
    ck_assert_str_eq(err, "no ceiling for precision 'bf16'");
}
END_TEST

START_TEST(unknown_and_missing_precisions)
{
    const struct rl_gpu_spec *a100 = rl_test_gpu("a100-sxm-80gb");
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, a100, NULL, "bf16,fp7", false, false, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err, "unknown precision 'fp7' (one of: fp64, fp32, "));
    /* Unknown to the datasheet even when the bench has it. */
    measured("fp7", 10);
    ck_assert_int_eq(rl_ceilings_init(&c, a100, &bench, "fp7", false, false, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err, "unknown precision 'fp7'"));
    /* Known but absent on this GPU: the datasheet's message. */
    ck_assert_int_eq(rl_ceilings_init(&c, a100, NULL, "fp8", false, false, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the GPU database holds no FP8 Tensor Core rate for NVIDIA A100 SXM4 80GB");
    ck_assert_int_eq(rl_ceilings_init(&c, a100, &bench, "fp8", false, false, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "the GPU database holds no FP8 Tensor Core rate for NVIDIA A100 SXM4 80GB");
}
END_TEST

START_TEST(at_most_sixteen_roofs)
{
    /* H200 and a bench measuring 8 precisions: 8 x 2 = 16 roofs fit. */
    static const char *const names[] = {"fp64", "fp32", "fp16-cuda", "bf16-cuda",
                                        "fp64-tc", "tf32", "fp16", "bf16"};
    for (int i = 0; i < 8; i++)
        measured(names[i], 1 + i);
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    const char *eight = "fp64,fp32,fp16-cuda,bf16-cuda,fp64-tc,tf32,fp16,bf16";
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench, eight, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, RL_CEIL_MAX_ROOFS);
    ck_assert_uint_eq(c.default_roof, 1); /* measured fp64 */
    /* A 17th, from the datasheet. */
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp8", err), -1);
    ck_assert_str_eq(err, "too many compute roofs (at most 16)");
    ck_assert_uint_eq(c.n_compute, RL_CEIL_MAX_ROOFS);
    /* ... from the bench. */
    strcpy(err, "");
    measured("fp8", 9);
    c.spec = NULL;
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp8", err), -1);
    ck_assert_str_eq(err, "too many compute roofs (at most 16)");
    /* ... and a library roof: 7 measured + bf16-blas, precisions with fp8
     * and bf16 from the datasheet: 14 + 2 + the 17th, bf16-blas. */
    setup();
    for (int i = 0; i < 7; i++)
        measured(names[i], 1 + i);
    measured("bf16-blas", 9);
    ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench,
                                      "fp64,fp32,fp16-cuda,bf16-cuda,fp64-tc,tf32,fp16,fp8,bf16",
                                      false, true, NULL, err), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "too many compute roofs (at most 16)");
    ck_assert_int_eq(rl_ceilings_init(&c, h200, &bench,
                                      "fp64,fp32,fp16-cuda,bf16-cuda,fp64-tc,tf32,fp16,fp8,bf16",
                                      false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, RL_CEIL_MAX_ROOFS);
}
END_TEST

START_TEST(errmsg_is_left_alone_on_success)
{
    /* Success writes nothing into errmsg, also when the judge is index 0. */
    measured("bf16", 700);
    char err[RL_ERRMSG_SIZE] = "untouched";
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "bf16", false, false, NULL, err), RL_OK);
    ck_assert_int_eq(rl_ceilings_judge(&c, "bf16", err), 0);
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h200"), NULL, "fp32,bf16", true, false,
                                      "hbm", err), RL_OK);
    ck_assert_int_eq(rl_ceilings_judge(&c, "fp32", err), 0);
    ck_assert_str_eq(err, "untouched");
}
END_TEST

START_TEST(out_of_memory)
{
    const struct rl_gpu_spec *h200 = rl_test_gpu("h200");
    char err[RL_ERRMSG_SIZE] = "";
    rl_test_strdup_fail = 1;
    int rc_precisions = rl_ceilings_init(&c, h200, NULL, "bf16", false, false, NULL, err);
    char err_precisions[RL_ERRMSG_SIZE];
    snprintf(err_precisions, sizeof err_precisions, "%s", err);
    strcpy(err, "");
    int rc_memory = rl_ceilings_init(&c, h200, NULL, NULL, false, false, "hbm", err);
    /* Without lists nothing is allocated. */
    int rc_none = rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, NULL);
    rl_test_strdup_fail = 0;
    ck_assert_int_eq(rc_precisions, RL_ENOMEM);
    ck_assert_str_eq(err_precisions, "out of memory");
    ck_assert_int_eq(rc_memory, RL_ENOMEM);
    ck_assert_str_eq(err, "out of memory");
    ck_assert_int_eq(rc_none, RL_OK);
}
END_TEST

START_TEST(odd_bench_roofs_stay_in_bounds)
{
    /* The default judge is always a drawn roof: a bench whose only roof
     * has a broken, negative peak still judges with it (index 0 of 1). */
    measured("fp32", -1);
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, NULL, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_uint_eq(c.default_roof, 0);
    /* A roof with an empty name is drawn like any other: the slots past
     * the last drawn roof are not roofs (here one with datasheet origin,
     * as the zeroed slot has). */
    setup();
    measured("", 5);
    bench.compute[0].origin = RL_ORIGIN_DATASHEET;
    memset(&c, 0, sizeof c);
    c.bench = &bench;
    ck_assert_int_eq(rl_ceilings_judge(&c, "", err), 0);
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_double_eq(c.compute[0].peak_tflops, 5);
}
END_TEST

/* A measured ceiling against the datasheet one of its name (compute) or
 * level (memory), by hand:
 *   compute[0] measured bf16 1100 TFLOP/s, compute[1] datasheet bf16 1000:
 *     100 x 1100 / 1000 = 110%, above the datasheet: a note;
 *   compute[2] measured fp8 500, no datasheet fp8: NAN (not 0);
 *   memory[0] measured DRAM 4000 GB/s, memory[1] datasheet DRAM 5000:
 *     100 x 4000 / 5000 = 80%, no note; memory[2] measured L2, none: NAN. */
START_TEST(measured_against_datasheet)
{
    static struct rl_ceilings c;
    memset(&c, 0, sizeof c);
    c.compute[0] = (struct rl_compute_roof){.name = "bf16", .label = "BF16 (measured)",
                                            .precision = RL_PREC_BF16, .peak_tflops = 1100,
                                            .origin = RL_ORIGIN_MEASURED};
    c.compute[1] = (struct rl_compute_roof){.name = "bf16", .label = "BF16",
                                            .precision = RL_PREC_BF16, .peak_tflops = 1000,
                                            .origin = RL_ORIGIN_DATASHEET};
    c.compute[2] = (struct rl_compute_roof){.name = "fp8", .label = "FP8 (measured)",
                                            .precision = RL_PREC_FP8, .peak_tflops = 500,
                                            .origin = RL_ORIGIN_MEASURED};
    c.n_compute = 3;
    c.memory[0] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM3 (measured)",
                                          .bandwidth_gbs = 4000, .origin = RL_ORIGIN_MEASURED};
    c.memory[1] = (struct rl_memory_roof){.level = RL_MEM_DRAM, .label = "HBM3",
                                          .bandwidth_gbs = 5000, .origin = RL_ORIGIN_DATASHEET};
    c.memory[2] = (struct rl_memory_roof){.level = RL_MEM_L2, .label = "L2 (measured)",
                                          .bandwidth_gbs = 9000, .origin = RL_ORIGIN_MEASURED};
    c.n_memory = 3;
    ck_assert_double_eq_tol(rl_ceilings_pct_of_datasheet(&c, false, 0), 110, 1e-12);
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, false, 1)));
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, false, 2)));
    ck_assert_double_eq_tol(rl_ceilings_pct_of_datasheet(&c, true, 0), 80, 1e-12);
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, true, 1)));
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, true, 2)));
    char out[1024];
    rl_ceilings_check(&c, out, sizeof out);
    ck_assert_str_eq(out, "the measured BF16 (measured) ceiling is 110% of the datasheet's: no GPU "
                          "runs above its datasheet peak, so the bench file is another GPU's "
                          "(--gpu), or its clocks, FLOPs per instruction or units are wrong");
    /* Memory above its datasheet: 5500 of 5000 = 110% too, the second and
     * last note (one per ceiling). */
    c.memory[0].bandwidth_gbs = 5500;
    rl_ceilings_check(&c, out, sizeof out);
    const char *tail = strstr(out, "wrong\nthe measured HBM3 (measured) ceiling is 110% of the "
                                   "datasheet's: ");
    ck_assert_msg(tail, "%s", out);
    ck_assert_msg(!strchr(tail + 6, '\n'), "%s", out); /* past "wrong\n" */
    c.memory[0].bandwidth_gbs = 4000;
    /* Roofs past n_compute and n_memory are not read: a stale datasheet
     * FP8 and L2 there leave the measured ones without a datasheet. */
    c.compute[3] = (struct rl_compute_roof){.name = "fp8", .label = "FP8",
                                            .precision = RL_PREC_FP8, .peak_tflops = 400,
                                            .origin = RL_ORIGIN_DATASHEET};
    c.memory[3] = (struct rl_memory_roof){.level = RL_MEM_L2, .label = "L2",
                                          .bandwidth_gbs = 8000, .origin = RL_ORIGIN_DATASHEET};
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, false, 2)));
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, true, 2)));
    /* A datasheet peak of 0 is none (NAN, not infinite); 0.5 is one:
     * 100 x 1100 / 0.5 = 220000%, 100 x 4000 / 0.5 = 800000%. */
    c.compute[1].peak_tflops = 0;
    c.memory[1].bandwidth_gbs = 0;
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, false, 0)));
    ck_assert(isnan(rl_ceilings_pct_of_datasheet(&c, true, 0)));
    c.compute[1].peak_tflops = 0.5;
    c.memory[1].bandwidth_gbs = 0.5;
    ck_assert_double_eq_tol(rl_ceilings_pct_of_datasheet(&c, false, 0), 220000, 1e-9);
    ck_assert_double_eq_tol(rl_ceilings_pct_of_datasheet(&c, true, 0), 800000, 1e-9);
    /* The datasheet roof first (index 0), the measured one after it:
     * found the same, 110% and 80%. */
    c.compute[1].peak_tflops = 1000;
    c.memory[1].bandwidth_gbs = 5000;
    struct rl_compute_roof cr = c.compute[0];
    c.compute[0] = c.compute[1];
    c.compute[1] = cr;
    struct rl_memory_roof mr = c.memory[0];
    c.memory[0] = c.memory[1];
    c.memory[1] = mr;
    ck_assert_double_eq_tol(rl_ceilings_pct_of_datasheet(&c, false, 1), 110, 1e-12);
    ck_assert_double_eq_tol(rl_ceilings_pct_of_datasheet(&c, true, 1), 80, 1e-12);
    /* The check reads only the n_compute roofs: a stale measured BF16 of
     * 2000 (200%) past them gives no note; 1008 of 1000 (100.8%, just
     * above) gives one, "101%". */
    c.compute[3] = (struct rl_compute_roof){.name = "bf16", .label = "stale",
                                            .precision = RL_PREC_BF16, .peak_tflops = 2000,
                                            .origin = RL_ORIGIN_MEASURED};
    c.compute[1].peak_tflops = 1008;
    rl_ceilings_check(&c, out, sizeof out);
    ck_assert_msg(strncmp(out, "the measured BF16 (measured) ceiling is 101% of the datasheet's",
                          62) == 0, "%s", out);
    ck_assert_msg(!strstr(out, "stale") && !strchr(out, '\n'), "%s", out);
}
END_TEST

/* Only the bench's first n_compute roofs are roofs: a slot past them may
 * hold a stale one (a buffer reused for a smaller file). Here bench had
 * fp32 and fp16 and was cut to fp32 alone: fp16 is in no source (no
 * datasheet), and fp32 is judged by its one measured roof. */
START_TEST(bench_roofs_past_the_count_are_not_read)
{
    measured("fp32", 50);
    measured("fp16", 400);
    bench.n_compute = 1;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, "fp16", false, false, NULL, err),
                     RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "no ceiling for precision 'fp16' in the datasheet or the bench file");
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, NULL, false, false, NULL, err), RL_OK);
    ck_assert_uint_eq(c.n_compute, 1);
    ck_assert_str_eq(c.compute[0].name, "fp32");
    ck_assert_double_eq(c.compute[0].peak_tflops, 50);
}
END_TEST

/* A link of 0 GB/s is no link: the NVLink figure at 0 falls to PCIe
 * (H100 SXM: Gen5 x16, 64 GB/s a direction), and PCIe at 0 with no NVLink
 * leaves no link roof at all. */
START_TEST(a_zero_link_is_no_link)
{
    char err[RL_ERRMSG_SIZE] = "";
    const struct rl_gpu_spec *s = copy_of("h100-sxm");
    spec_copy.links.gbs = 0;
    ck_assert_int_eq(rl_ceilings_init(&c, s, NULL, NULL, false, false, NULL, err), RL_OK);
    ck_assert(c.has_link);
    ck_assert_str_eq(c.link.label, "PCIe Gen5 x16");
    ck_assert_double_eq(c.link.bandwidth_gbs, spec_copy.links.pcie_gbs);
    spec_copy.links.gbs = NAN;
    spec_copy.links.pcie_gbs = 0;
    ck_assert_int_eq(rl_ceilings_init(&c, s, NULL, NULL, false, false, NULL, err), RL_OK);
    ck_assert(!c.has_link);
}
END_TEST

/* A roof the GPU lacks judges on the nearest one it has on the same kind of
 * unit (rl_ceilings_judge_nearest), never the fastest drawn: the defect of
 * issue 32 (3) was V100's FP32 GEMMs on the FP16 Tensor Core roof (no TF32)
 * and B200's / MI300X's BF16 elementwise kernels on the FP8 one (no BF16
 * vector rate in the datasheet). Peaks from data/gpus. */
struct nearest_case {
    const char *gpu, *asked, *judged; /* judged NULL: the asked one */
    double peak_tflops;
    enum rl_unit unit;
};

START_TEST(nearest_roof_a_gpu_has)
{
    static const struct nearest_case want[] = {
        /* V100: no TF32 (sm_70): FP32 CUDA cores, 15.7 */
        {"v100-sxm2", "tf32", "fp32", 15.7, RL_UNIT_CUDA},
        /* V100: no BF16 at all: FP32 for both units */
        {"v100-sxm2", "bf16-cuda", "fp32", 15.7, RL_UNIT_CUDA},
        {"v100-sxm2", "bf16", "fp32", 15.7, RL_UNIT_CUDA},
        /* V100 has FP16 on both units: kept (31.4 vector, 125 Tensor Core) */
        {"v100-sxm2", "fp16-cuda", NULL, 31.4, RL_UNIT_CUDA},
        {"v100-sxm2", "fp16", NULL, 125, RL_UNIT_TENSOR},
        /* V100: FP8 -> FP16 Tensor Core (125); FP4 -> FP8 -> FP16 */
        {"v100-sxm2", "fp8", "fp16", 125, RL_UNIT_TENSOR},
        {"v100-sxm2", "fp4", "fp16", 125, RL_UNIT_TENSOR},
        /* V100: FP64 Tensor Cores absent: FP64 CUDA cores 7.8 */
        {"v100-sxm2", "fp64-tc", "fp64", 7.8, RL_UNIT_CUDA},
        /* B200: no BF16 / FP16 vector figure: FP32 CUDA cores, 75 (not FP8's 4500) */
        {"b200", "bf16-cuda", "fp32", 75, RL_UNIT_CUDA},
        {"b200", "fp16-cuda", "fp32", 75, RL_UNIT_CUDA},
        {"b200", "fp4", NULL, 9000, RL_UNIT_TENSOR},
        /* MI300X: the same, its FP32 vector rate 163.4 (not FP8's 2614.9) */
        {"mi300x", "bf16-cuda", "fp32", 163.4, RL_UNIT_CUDA},
        /* MI300X has no FP4 / FP6: FP8 2614.9 */
        {"mi300x", "fp4", "fp8", 2614.9, RL_UNIT_TENSOR},
        /* A100: no FP8: FP16 Tensor Core 312 */
        {"a100-sxm-80gb", "fp8", "fp16", 312, RL_UNIT_TENSOR},
        {"a100-sxm-80gb", "bf16-cuda", NULL, 39, RL_UNIT_CUDA},
        /* H100: FP16 acc16 kept (989.4) */
        {"h100-sxm", "fp16-acc16", NULL, 989.4, RL_UNIT_TENSOR},
        /* MI250: no TF32: FP32 45.25 */
        {"mi250", "tf32", "fp32", 45.25, RL_UNIT_CUDA},
        /* MI300X: no FP6: FP8 */
        {"mi300x", "fp6", "fp8", 2614.9, RL_UNIT_TENSOR},
        /* B200: no FP16-accumulate figures: the full-accumulate ones */
        {"b200", "fp16-acc16", "fp16", 2250, RL_UNIT_TENSOR},
        {"b200", "fp8-acc16", "fp8", 4500, RL_UNIT_TENSOR},
        /* RTX 5090: no INT8 Tensor Core figure: FP16's 209.5 */
        {"rtx-5090", "int8", "fp16", 209.5, RL_UNIT_TENSOR},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char err[RL_ERRMSG_SIZE] = "";
        const char *instead = "unset";
        ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu(want[i].gpu), NULL, "fp32", false,
                                          false, NULL, err),
                         0);
        int j = rl_ceilings_judge_nearest(&c, want[i].asked, &instead, err);
        ck_assert_msg(j >= 0, "%s %s: %s", want[i].gpu, want[i].asked, err);
        const struct rl_compute_roof *r = &c.compute[j];
        ck_assert_msg(strcmp(r->name, want[i].judged ? want[i].judged : want[i].asked) == 0,
                      "%s %s: judged on %s", want[i].gpu, want[i].asked, r->name);
        if (want[i].judged) {
            ck_assert_str_eq(instead, want[i].judged);
            /* why the asked one did not: the datasheet's words */
            ck_assert_ptr_nonnull(strstr(err, "the GPU database holds no "));
        } else {
            ck_assert_ptr_null(instead);
        }
        ck_assert_double_eq_tol(r->peak_tflops, want[i].peak_tflops, 1e-9);
        ck_assert_int_eq(r->unit, want[i].unit);
    }
}
END_TEST

START_TEST(nearest_roof_limits)
{
    char err[RL_ERRMSG_SIZE] = "";
    const char *instead = "unset";
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h100-sxm"), NULL, "fp32", false, false,
                                      NULL, err),
                     0);
    /* an unknown name ends the chain at once: -1, the reason kept */
    ck_assert_int_eq(rl_ceilings_judge_nearest(&c, "fp7", &instead, err), -1);
    ck_assert_ptr_null(instead);
    ck_assert_ptr_nonnull(strstr(err, "unknown precision 'fp7'"));
    /* RTX 5080's datasheet has FP32 and FP4 only: BF16 Tensor Core work
     * falls to FP32 (56.3), FP8 work to FP32 too (fp8 -> fp16 -> fp32) */
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("rtx-5080"), NULL, "fp32", false, false,
                                      NULL, err),
                     0);
    int j = rl_ceilings_judge_nearest(&c, "fp8", &instead, err);
    ck_assert_int_ge(j, 0);
    ck_assert_str_eq(c.compute[j].name, "fp32");
    ck_assert_str_eq(instead, "fp32");
    ck_assert_double_eq_tol(c.compute[j].peak_tflops, 56.3, 1e-9);
    /* FP16 Tensor Core work there: FP32 too */
    j = rl_ceilings_judge_nearest(&c, "fp16", &instead, err);
    ck_assert_int_ge(j, 0);
    ck_assert_str_eq(c.compute[j].name, "fp32");
    /* its datasheet has no FP64 rate: FP32's, the vector unit's other */
    j = rl_ceilings_judge_nearest(&c, "fp64", &instead, err);
    ck_assert_int_ge(j, 0);
    ck_assert_str_eq(c.compute[j].name, "fp32");
    ck_assert_str_eq(err, "the GPU database holds no FP64 CUDA cores rate for NVIDIA GeForce RTX 5080");
    /* a bench-only ceiling set without the roof or its chain: -1 */
    measured("fp64", 10);
    ck_assert_int_eq(rl_ceilings_init(&c, NULL, &bench, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_ceilings_judge_nearest(&c, "bf16", &instead, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no ceiling for precision 'bf16'"));
}
END_TEST

static Suite *ceilings_suite(void)
{
    Suite *s = suite_create("ceilings");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, datasheet_defaults);
    tcase_add_test(core, default_judge_is_the_first_highest);
    tcase_add_test(core, precisions_given_first_judges);
    tcase_add_test(core, blackwell_draws_fp6_and_fp4);
    tcase_add_test(core, sparse_roofs);
    tcase_add_test(core, measured_judges_before_datasheet);
    tcase_add_test(core, bench_only_and_library_roofs);
    tcase_add_test(core, memory_levels_asked_for);
    tcase_add_test(core, origins_sentence);
    tcase_add_test(core, nearest_roof_a_gpu_has);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, no_ceilings_at_all);
    tcase_add_test(limits, unknown_and_missing_precisions);
    tcase_add_test(limits, at_most_sixteen_roofs);
    tcase_add_test(limits, errmsg_is_left_alone_on_success);
    tcase_add_test(limits, out_of_memory);
    tcase_add_test(limits, odd_bench_roofs_stay_in_bounds);
    tcase_add_test(limits, measured_against_datasheet);
    tcase_add_test(limits, bench_roofs_past_the_count_are_not_read);
    tcase_add_test(limits, a_zero_link_is_no_link);
    tcase_add_test(limits, nearest_roof_limits);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(ceilings_suite()); }
