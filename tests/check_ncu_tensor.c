/* check_ncu_tensor.c - tests of Tensor FLOPs inferred from an ncu export's Tensor pipe instruction count: the MMA shape from the kernel name (issue 24). */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/readers/ncu.h"
#include "analyzer/util/error.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER                                                                             \
    "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"CC\",\"Metric Name\","           \
    "\"Metric Unit\",\"Metric Value\"\n"
#define ROW(name, cc, metric, unit, value)                                                  \
    "\"0\",\"" name "\",\"(108, 1, 1)\",\"(256, 1, 1)\",\"" cc "\",\"" metric "\",\"" unit \
    "\",\"" value "\"\n"
/* What NERSC's list gives a Tensor GEMM when the FP counters are left
 * out: the pipe count, DRAM bytes and a time; no FLOP counter at all. */
#define PIPE_ONLY(name, cc)                                                                 \
    HEADER ROW(name, cc, "sm__inst_executed_pipe_tensor.sum", "inst", "1,000")              \
    ROW(name, cc, "dram__bytes_read.sum", "byte", "2,000")                                  \
    ROW(name, cc, "dram__bytes_write.sum", "byte", "48")                                    \
    ROW(name, cc, "gpu__time_duration.sum", "ns", "1,000")
#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"

/* Real names: cuBLAS's, as a public benchmark table lists them; CUTLASS
 * template names spelled as Nsight Compute prints them. */
#define H1688 "ampere_h1688gemm_128x128_ldg8_stages_32x1_tn"
#define H16816 "ampere_h16816gemm_128x64_ldg8_tn"
#define XMMA "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel"
#define CUTLASS_TF32(inst)                                                                  \
    "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::"        \
    "MmaMultistage<cutlass::gemm::GemmShape<128, 128, 16>, cutlass::tfloat32_t, "          \
    "cutlass::gemm::warp::MmaTensorOp<cutlass::gemm::GemmShape<64, 64, 16>, "              \
    "cutlass::arch::Mma<cutlass::gemm::GemmShape<" inst ">, 32, cutlass::tfloat32_t>>>>>(T1::Params)"

static struct rl_trace_groups g;
static struct rl_ncu_stats st;
static char err[RL_ERRMSG_SIZE];
static char notes[4096];

static int parse(const char *text)
{
    rl_trace_groups_release(&g);
    err[0] = 0;
    int rc = rl_ncu_parse(&g, text, strlen(text), "k.csv", NAN, &st, err);
    rl_ncu_notes(&st, notes, sizeof notes);
    return rc;
}

static void teardown(void) { rl_trace_groups_release(&g); }

static const struct rl_trace_group *only_group(void)
{
    ck_assert_uint_eq(g.n, 1);
    return &g.v[0];
}

/* FLOPs of the one group: counted, or a compute point; NAN for none. */
static double group_flops(void)
{
    const struct rl_trace_group *k = only_group();
    return k->counted ? k->flops : k->flops_only ? k->flops_only_flops : NAN;
}

START_TEST(shape_from_cublas_names)
{
    /* 1,000 HMMA.1688 (m16n8k8): 2 x 16 x 8 x 8 = 2048 FLOPs each, 2,048,000;
     * multiplying by 4096 (the old Ampere factor) doubled it. */
    ck_assert_msg(parse(PIPE_ONLY(H1688, "8.0")) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 2048000);
    ck_assert_str_eq(only_group()->precision, "fp16");
    ck_assert_uint_eq(st.tensor_inferred, 1);
    ck_assert_uint_eq(st.bytes_only, 0);
    ck_assert_ptr_nonnull(strstr(notes, "inferred (not counted)"));
    /* Its DRAM bytes are kept: 2,000 + 48 = 2,048, so 1,000 FLOP/B. */
    ck_assert_double_eq(only_group()->bytes[RL_MEM_DRAM], 2048);
    /* 1,000 HMMA.16816 (m16n8k16), on Ada/GA10x too (CC 8.6): 2 x 16 x 8 x
     * 16 = 4096 each, 4,096,000. */
    ck_assert_msg(parse(PIPE_ONLY(H16816, "8.6")) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 4096000);
    /* xmma's "tensor16x8x16" (its "tilesize128x128x32" is not a shape):
     * 4096 x 1,000 = 4,096,000. */
    ck_assert_msg(parse(PIPE_ONLY(XMMA, "8.9")) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 4096000);
}
END_TEST

START_TEST(shape_from_cutlass_templates)
{
    /* TF32 m16n8k8, GemmShape<16, 8, 8> beside the threadblock's
     * <128, 128, 16> and the warp's <64, 64, 16> (neither an instruction):
     * 2 x 16 x 8 x 8 = 2048 per instruction, 2,048,000, on the TF32 roof. */
    ck_assert_msg(parse(PIPE_ONLY(CUTLASS_TF32("16, 8, 8"), "8.0")) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 2048000);
    ck_assert_str_eq(only_group()->precision, "tf32");
    /* No spaces, m16n8k16: 4096 x 1,000. */
    ck_assert_msg(parse(PIPE_ONLY(CUTLASS_TF32("16,8,16"), "8.0")) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 4096000);
    /* TF32 m16n8k4: 2 x 16 x 8 x 4 = 1024 per instruction. */
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, CUTLASS_TF32("16, 8, 4")), 1024);
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, "cutlass_tensorop_s1688tf32gemm_256x128_16x3_tn_align4"), 2048);
    /* INT8: IMMA.8816 2 x 8 x 8 x 16 = 2048 ops, IMMA.16832 2 x 16 x 8 x 32 = 8192. */
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, "cutlass_tensorop_i8816gemm_s8_128x128_64x2_tn"), 2048);
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, "cutlass_tensorop_i16832gemm_s8_256x128_64x3_tn"), 8192);
    /* wmma m16n16k16 on sm_80 is two HMMA.16816: 8192 / 2 = 4096. */
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8"), 4096);
}
END_TEST

START_TEST(shape_from_real_exports)
{
    /* The names in real exports: CUTLASS's SM80 BF16 GEMM (an RTX 5090,
     * CC 12.0, in the file) gives m16n8k16: 4096 on CC 8.x, none on 12.0. */
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/llmperfopt-rtx50-long-rules.csv"), NAN,
                              &st, err) == 0,
                  "%s", err);
    const char *name = only_group()->name;
    ck_assert_ptr_nonnull(strstr(name, "s16816gemm"));
    ck_assert(rl_ncu_name_gives_mma_shape(name));
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, name), 4096);
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(12.0, name)));
    /* CUTLASS's Volta TensorOp GEMM: instruction GemmShape<16, 16, 4> (the
     * warp's m8n8k4 over four quad pairs) beside <128, 256, 32> and
     * <64, 64, 32>. Volta counts it as HMMA.884: 512; on 8.x it is no
     * native instruction: none. */
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/dphpc-rtx50-long-bodyitem-displaynames.csv"),
                              NAN, &st, err) == 0,
                  "%s", err);
    name = only_group()->name;
    ck_assert_ptr_nonnull(strstr(name, "GemmShape<16, 16, 4>"));
    ck_assert(rl_ncu_name_gives_mma_shape(name));
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(7.0, name), 512);
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.0, name)));
    /* Names without a shape: cuBLAS's SIMT sgemm (its "32x32" and "1x4"
     * are tiles) in a real A100 export, whose pipe count is not inferred
     * (no CC there); a gemv. */
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/leleucas-a100-old-kerneltime-nersc-duration.csv"),
                              NAN, &st, err) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.tensor_inferred, 0);
    ck_assert(!rl_ncu_name_gives_mma_shape("ampere_sgemm_32x32_sliced1x4_tn"));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.0, "ampere_sgemm_32x32_sliced1x4_tn")));
    ck_assert(!rl_ncu_name_gives_mma_shape("gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false>"));
}
END_TEST

START_TEST(volta_and_turing_unchanged)
{
    /* Volta's one shape, HMMA.884: 512 per instruction whatever the name;
     * the name giving a shape says the count is Tensor work where the
     * export counts no FP16: 512 x 1,000 = 512,000. */
    ck_assert_msg(parse(PIPE_ONLY("volta_h884gemm_64x64_ldg8_nn", "7.0")) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 512000);
    /* Turing: HMMA.1688, 2 x 16 x 8 x 8 = 2048 (an m16n8k16 is two). */
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(7.5, H16816), 2048);
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(7.0, H16816), 512);
    /* Hopper: warpgroup MMAs, no factor even with a shape in the name. */
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(9.0, H16816)));
    /* FP counters present and zero beside a named shape: CUDA-core FLOPs
     * 2 x ffma = 2, plus 2048 x 1,000 = 2,048,002. */
    static const char with_fp[] =
        HEADER ROW(H1688, "8.0", "sm__inst_executed_pipe_tensor.sum", "inst", "1000")
        ROW(H1688, "8.0", SASS("ffma"), "inst", "1") ROW(H1688, "8.0", SASS("hfma"), "inst", "0")
        ROW(H1688, "8.0", SASS("hadd"), "inst", "0") ROW(H1688, "8.0", SASS("hmul"), "inst", "0")
        ROW(H1688, "8.0", SASS("dfma"), "inst", "0") ROW(H1688, "8.0", SASS("dadd"), "inst", "0")
        ROW(H1688, "8.0", SASS("dmul"), "inst", "0")
        ROW(H1688, "8.0", "dram__bytes.sum", "byte", "4096");
    ck_assert_msg(parse(with_fp) == 0, "%s", err);
    ck_assert_double_eq(group_flops(), 2048002);
}
END_TEST

START_TEST(no_shape_no_flops)
{
    /* CC 8.x and a name without a shape: 2048 or 4096 per instruction, the
     * count cannot say: no FLOPs inferred, a memory point, and the note
     * names the kernel, why, and the counters that count exactly. */
    ck_assert_msg(parse(PIPE_ONLY("gemm_tensorcore_kernel", "8.0")) == 0, "%s", err);
    ck_assert(isnan(group_flops()));
    ck_assert_uint_eq(only_group()->bytes_only, 1);
    ck_assert_uint_eq(st.tensor_shape_unknown, 1);
    ck_assert_uint_eq(st.tensor_inferred, 0);
    ck_assert_ptr_nonnull(strstr(notes, "'gemm_tensorcore_kernel'"));
    ck_assert_ptr_nonnull(strstr(notes, "the MMA shape is not in the kernel name"));
    ck_assert_ptr_nonnull(strstr(notes, "no Tensor FLOPs are inferred"));
    ck_assert_ptr_nonnull(strstr(notes, "--metrics sm__ops_path_tensor_src_fp16_dst_fp32.sum,"));
    /* It counted Tensor pipe instructions: not "no FLOP counters". */
    ck_assert_uint_eq(st.bytes_only, 0);
    ck_assert_ptr_null(strstr(notes, "no FLOP counters"));
    /* Two different shapes in one name: ambiguous, none. */
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.0, H1688 "<cutlass::gemm::GemmShape<16, 8, 16>>")));
    ck_assert_msg(parse(PIPE_ONLY(H1688 " GemmShape<16, 8, 16>", "8.0")) == 0, "%s", err);
    ck_assert(isnan(group_flops()));
    ck_assert_uint_eq(st.tensor_shape_unknown, 1);
    /* Volta without a shape in the name nor FP16 counters: FP16 may share
     * the pipe, so none either, and said. */
    ck_assert_msg(parse(PIPE_ONLY("gemm_tensorcore_kernel", "7.0")) == 0, "%s", err);
    ck_assert(isnan(group_flops()));
    ck_assert_uint_eq(st.tensor_pipe_shared, 1);
    ck_assert_ptr_null(strstr(notes, "no FLOP counters"));
    ck_assert_ptr_nonnull(strstr(notes, "or the export does not count those"));
    /* FP16 work beside a named shape: the pipe is shared, none inferred;
     * CUDA-core FLOPs 2 x 2 x hfma = 2 x 2 x 5 = 20. */
    ck_assert_msg(parse(HEADER ROW(H1688, "8.0", "sm__inst_executed_pipe_tensor.sum", "inst", "1000")
                        ROW(H1688, "8.0", SASS("hfma"), "inst", "5")
                        ROW(H1688, "8.0", "dram__bytes.sum", "byte", "4096")) == 0,
                  "%s", err);
    ck_assert_double_eq(group_flops(), 20);
    ck_assert_uint_eq(st.tensor_pipe_shared, 1);
}
END_TEST

START_TEST(report_says_what_was_counted)
{
    /* `roofline report`: the memory point's sentence does not claim the
     * export has no FLOP counters; the notes say what it counted. */
    const char *csv = PIPE_ONLY("gemm_tensorcore_kernel", "8.0");
    char path[1024];
    snprintf(path, sizeof path, "%s/pipe.csv", rl_test_tmpdir());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(csv, f);
    fclose(f);
    struct rl_run r = rl_test_cli(NULL, "report", "--ncu", path, "--gpu", "a100-sxm-80gb",
                                  "--json", NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), 0);
    const char *sentence = cJSON_GetObjectItemCaseSensitive(k, "sentence")->valuestring;
    ck_assert_ptr_null(strstr(sentence, "no FLOP counters"));
    ck_assert_ptr_nonnull(strstr(sentence, "no FLOPs counted in this export"));
    bool said = false;
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(doc, "notes"))
    {
        ck_assert_ptr_null(strstr(n->valuestring, "no FLOP counters"));
        said |= strstr(n->valuestring, "count Tensor pipe instructions") != NULL;
    }
    ck_assert(said);
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

/* A pipe count of 0 is no Tensor work: nothing inferred, a memory point
 * (bytes, no FLOP counter). */
START_TEST(zero_pipe_instructions_infer_nothing)
{
    ck_assert_msg(parse(HEADER ROW(H16816, "8.0", "sm__inst_executed_pipe_tensor.sum", "inst", "0")
                        ROW(H16816, "8.0", "dram__bytes_read.sum", "byte", "2,000")
                        ROW(H16816, "8.0", "dram__bytes_write.sum", "byte", "48")
                        ROW(H16816, "8.0", "gpu__time_duration.sum", "ns", "1,000")) == 0,
                  "%s", err);
    ck_assert(isnan(group_flops()));
    ck_assert_uint_eq(st.tensor_inferred, 0);
    ck_assert_uint_eq(st.tensor_shape_unknown + st.tensor_pipe_shared + st.tensor_inst_only, 0);
    ck_assert_uint_eq(st.bytes_only, 1);
}
END_TEST

/* The precision is the Tensor one when the inferred FLOPs outweigh the
 * CUDA-core ones, the counted one on a tie. H16816 at CC 8.0: 1 instruction
 * x 4096 = 4096 inferred; 2048 FFMA x 2 = 4096 CUDA-core FLOPs (FP32): a
 * tie, FP32, 8192 in all; 2047 FFMA = 4094 < 4096: FP16, 8190. */
START_TEST(inferred_precision_wins_only_when_larger)
{
    ck_assert_msg(parse(HEADER ROW(H16816, "8.0", "sm__inst_executed_pipe_tensor.sum", "inst", "1")
                        ROW(H16816, "8.0", SASS("ffma"), "inst", "2048")
                        ROW(H16816, "8.0", "dram__bytes.sum", "byte", "4096")) == 0,
                  "%s", err);
    ck_assert_double_eq(group_flops(), 8192);
    ck_assert_str_eq(only_group()->precision, "fp32");
    ck_assert_uint_eq(st.tensor_inferred, 1);
    ck_assert_msg(parse(HEADER ROW(H16816, "8.0", "sm__inst_executed_pipe_tensor.sum", "inst", "1")
                        ROW(H16816, "8.0", SASS("ffma"), "inst", "2047")
                        ROW(H16816, "8.0", "dram__bytes.sum", "byte", "4096")) == 0,
                  "%s", err);
    ck_assert_double_eq(group_flops(), 8190);
    ck_assert_str_eq(only_group()->precision, "fp16");
}
END_TEST

/* The precision of inferred Tensor FLOPs follows the name: "tf32" /
 * "tfloat32" TF32, "bf16" / "bfloat16" BF16, the IMMA shapes 8816 and
 * 16832 INT8, else FP16. Pipe instructions only (1,000 of them) at CC
 * 8.0: i8816 1000 x 2048, i16832 1000 x 8192, a bf16 16816 (HMMA.16816,
 * 4096) and a bfloat16 one 1000 x 4096 each, h16816 FP16. */
START_TEST(inferred_precision_from_the_name)
{
    static const struct {
        const char *csv, *precision;
        double flops;
    } cases[] = {
        {PIPE_ONLY("cutlass_tensorop_i8816gemm_s8_128x128_64x2_tn", "8.0"), "int8", 2048e3},
        {PIPE_ONLY("cutlass_tensorop_i16832gemm_s8_256x128_64x3_tn", "8.0"), "int8", 8192e3},
        {PIPE_ONLY("ampere_bf16_s16816gemm_bf16_128x64_ldg8_tn", "8.0"), "bf16", 4096e3},
        {PIPE_ONLY("sm80_s16816gemm_bfloat16_128x64_tn", "8.0"), "bf16", 4096e3},
        {PIPE_ONLY(H16816, "8.0"), "fp16", 4096e3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(parse(cases[i].csv) == 0, "%s", err);
        ck_assert_double_eq(group_flops(), cases[i].flops);
        ck_assert_str_eq(only_group()->precision, cases[i].precision);
    }
}
END_TEST

/* A shape token is a digit run right after a type letter that is not
 * 'x', and followed by the end, '_' or a letter that is not 'x': "h1688"
 * at the end, "h1688_", "h1688gemm" give HMMA.1688; "h1688x64" (a tile
 * size) and "x16816gemm" (after an 'x') give none. */
START_TEST(shape_token_edges)
{
    ck_assert(rl_ncu_name_gives_mma_shape("k_h1688"));
    ck_assert(rl_ncu_name_gives_mma_shape("k_h1688_"));
    ck_assert(rl_ncu_name_gives_mma_shape("k_h1688gemm"));
    ck_assert(!rl_ncu_name_gives_mma_shape("k_h1688x64"));
    ck_assert(!rl_ncu_name_gives_mma_shape("tile_x16816gemm"));
    ck_assert(!rl_ncu_name_gives_mma_shape("k_h1689gemm"));
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(8.0, "k_h1688gemm"), 2048);
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.0, "k_h1688x64")));
}
END_TEST

static Suite *ncu_tensor_suite(void)
{
    Suite *s = suite_create("ncu_tensor");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, NULL, teardown);
    tcase_add_test(core, shape_from_cublas_names);
    tcase_add_test(core, shape_from_cutlass_templates);
    tcase_add_test(core, shape_from_real_exports);
    tcase_add_test(core, volta_and_turing_unchanged);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, teardown);
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, no_shape_no_flops);
    tcase_add_test(limits, report_says_what_was_counted);
    tcase_add_test(limits, zero_pipe_instructions_infer_nothing);
    tcase_add_test(limits, inferred_precision_wins_only_when_larger);
    tcase_add_test(limits, inferred_precision_from_the_name);
    tcase_add_test(limits, shape_token_edges);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(ncu_tensor_suite()); }
