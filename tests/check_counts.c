/* check_counts.c - tests of the counter quantities and the FLOPs, bytes and precision derived from them. */
#include "test_util.h"

#include "analyzer/readers/counts.h"

#include <math.h>
#include <string.h>

/* Every quantity unread (NAN), as for a kernel no counter reached. */
static void unread(double *q)
{
    for (int i = 0; i < RL_Q_COUNT; i++)
        q[i] = NAN;
}

static struct rl_kernel_counts derive(const double *q, double factor)
{
    struct rl_kernel_counts c;
    rl_counts_derive(q, factor, &c);
    return c;
}

/* ---- formulas -------------------------------------------------------------- */

START_TEST(fp64_fma_is_two_flops)
{
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_DADD] = 3;
    q[RL_Q_DMUL] = 5;
    q[RL_Q_DFMA] = 7;
    q[RL_Q_DRAM_READ] = 100;
    q[RL_Q_DRAM_WRITE] = 28;
    struct rl_kernel_counts c = derive(q, NAN);
    /* 3 DADD + 5 DMUL + 2 x 7 DFMA = 22 FLOPs. */
    ck_assert_double_eq(c.flops_fp64, 22);
    ck_assert_double_eq(c.flops, 22);
    ck_assert_double_eq(c.flops_fp32, 0);
    ck_assert_double_eq(c.flops_fp16, 0);
    ck_assert_str_eq(c.precision, "fp64");
    /* 100 read + 28 written = 128 DRAM bytes. */
    ck_assert_double_eq(c.dram_read_bytes, 100);
    ck_assert_double_eq(c.dram_write_bytes, 28);
    ck_assert_double_eq(c.dram_bytes, 128);
}
END_TEST

START_TEST(fp32_fma_is_two_flops)
{
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_FADD] = 1;
    q[RL_Q_FMUL] = 2;
    q[RL_Q_FFMA] = 10;
    struct rl_kernel_counts c = derive(q, NAN);
    /* 1 + 2 + 2 x 10 = 23. */
    ck_assert_double_eq(c.flops_fp32, 23);
    ck_assert_double_eq(c.flops, 23);
    ck_assert_str_eq(c.precision, "fp32");
}
END_TEST

START_TEST(fp16_counts_paired_half2)
{
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_FFMA] = 0;
    q[RL_Q_HADD] = 1;
    q[RL_Q_HMUL] = 2;
    q[RL_Q_HFMA] = 3;
    struct rl_kernel_counts c = derive(q, NAN);
    /* half2: 2 x (1 HADD2 + 2 HMUL2 + 2 x 3 HFMA2) = 2 x 9 = 18. */
    ck_assert_double_eq(c.flops_fp16, 18);
    ck_assert_double_eq(c.flops, 18);
    ck_assert_str_eq(c.precision, "fp16-cuda");
}
END_TEST

START_TEST(hfma_alone_is_counted)
{
    /* A chip where only the FP16 counters exist (no FFMA/DFMA metric): the
     * kernel still has FLOPs, 2 x 2 x 100 = 400, not "timing only". */
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_HFMA] = 100;
    q[RL_Q_DRAM_READ] = 800;
    q[RL_Q_DRAM_WRITE] = 0;
    struct rl_kernel_counts c = derive(q, NAN);
    ck_assert_double_eq(c.flops, 400);
    ck_assert_str_eq(c.precision, "fp16-cuda");
    /* Also an HADD-only or FADD-only kernel. */
    unread(q);
    q[RL_Q_HADD] = 5; /* 2 x 5 = 10 */
    ck_assert_double_eq(derive(q, NAN).flops, 10);
    unread(q);
    q[RL_Q_FADD] = 5;
    ck_assert_double_eq(derive(q, NAN).flops, 5);
}
END_TEST

START_TEST(tensor_ops_times_the_factor)
{
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_FFMA] = 10;
    q[RL_Q_TENSOR_BF16] = 1000;
    struct rl_kernel_counts c = derive(q, 2);
    /* 1000 ops x 2 FLOP/op = 2000 Tensor FLOPs, + 2 x 10 FFMA = 2020. */
    ck_assert_double_eq(c.flops_tensor, 2000);
    ck_assert_double_eq(c.flops_tensor_by[RL_Q_TENSOR_BF16], 2000);
    ck_assert_double_eq(c.flops, 2020);
    ck_assert_str_eq(c.precision, "bf16");
    /* The factor unknown: Tensor work that cannot be counted, so no FLOPs. */
    c = derive(q, NAN);
    ck_assert(isnan(c.flops));
}
END_TEST

START_TEST(tensor_counter_zero_without_factor)
{
    /* No --tensor-flops-per-op (NAN) and a Tensor counter at 0: the kernel did
     * no Tensor work, so it keeps its 2 x 10 = 20 FFMA FLOPs. */
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_FFMA] = 10;
    q[RL_Q_TENSOR_BF16] = 0;
    q[RL_Q_TENSOR_FP16] = 0;
    struct rl_kernel_counts c = derive(q, NAN);
    ck_assert_double_eq(c.flops, 20);
    ck_assert_double_eq(c.flops_tensor, 0);
    ck_assert_str_eq(c.precision, "fp32");
}
END_TEST

/* ---- the precision of a kernel ----------------------------------------------- */

START_TEST(zero_flops_take_the_default_roof)
{
    /* Counters read, all 0 (a copy kernel): 0 FLOPs, and no precision, so
     * the report judges it against the default roof. */
    double q[RL_Q_COUNT];
    for (int i = 0; i < RL_Q_COUNT; i++)
        q[i] = 0;
    q[RL_Q_DRAM_READ] = 4096;
    struct rl_kernel_counts c = derive(q, 2);
    ck_assert_double_eq(c.flops, 0);
    ck_assert_ptr_null(c.precision);
}
END_TEST

START_TEST(precision_ties_and_largest_share)
{
    double q[RL_Q_COUNT];
    unread(q);
    /* fp64 10 = fp32 10: the first in fp64, fp32, fp16 order keeps it. */
    q[RL_Q_DADD] = 10;
    q[RL_Q_FADD] = 10;
    ck_assert_str_eq(derive(q, NAN).precision, "fp64");
    /* fp32 one FLOP ahead: fp32. */
    q[RL_Q_FADD] = 11;
    ck_assert_str_eq(derive(q, NAN).precision, "fp32");
    /* FP16 on CUDA cores 2 x 6 = 12 > 11. */
    q[RL_Q_HADD] = 6;
    ck_assert_str_eq(derive(q, NAN).precision, "fp16-cuda");
    /* A Tensor share equal to the largest CUDA share (12): the Tensor roof. */
    q[RL_Q_TENSOR_TF32] = 6;
    ck_assert_str_eq(derive(q, 2).precision, "tf32");
    /* Two Tensor types: the larger, bf16 7 x 2 = 14 over tf32 12. */
    q[RL_Q_TENSOR_BF16] = 7;
    struct rl_kernel_counts c = derive(q, 2);
    ck_assert_str_eq(c.precision, "bf16");
    /* 10 + 11 + 12 + 12 + 14 = 59. */
    ck_assert_double_eq(c.flops, 59);
}
END_TEST

/* ---- properties ------------------------------------------------------------ */

START_TEST(flops_scale_linearly_with_counters)
{
    /* derive(k q) = k derive(q) for FLOPs and bytes: every term is linear. */
    double base[RL_Q_COUNT];
    for (int i = 0; i < RL_Q_COUNT; i++)
        base[i] = 3 + 7 * i;
    const struct rl_kernel_counts one = derive(base, 2);
    ck_assert(one.flops > 0);
    static const double ks[] = {0, 1, 2, 3, 10, 1e6};
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        double q[RL_Q_COUNT];
        for (int i = 0; i < RL_Q_COUNT; i++)
            q[i] = ks[j] * base[i];
        q[RL_Q_TIME_NS] = base[RL_Q_TIME_NS];
        struct rl_kernel_counts c = derive(q, 2);
        ck_assert_double_eq_tol(c.flops, ks[j] * one.flops, 1e-9 * (1 + ks[j] * one.flops));
        ck_assert_double_eq_tol(c.flops_fp64, ks[j] * one.flops_fp64, 1e-6);
        ck_assert_double_eq_tol(c.flops_fp16, ks[j] * one.flops_fp16, 1e-6);
        ck_assert_double_eq_tol(c.flops_tensor, ks[j] * one.flops_tensor, 1e-3);
        ck_assert_double_eq_tol(c.dram_bytes, ks[j] * one.dram_bytes, 1e-6);
    }
    /* One more FFMA adds exactly 2 FLOPs, one more HFMA exactly 4, one more
     * DFMA exactly 2, one more Tensor op exactly the factor. */
    double q[RL_Q_COUNT];
    memcpy(q, base, sizeof q);
    q[RL_Q_FFMA] += 1;
    ck_assert_double_eq(derive(q, 2).flops - one.flops, 2);
    memcpy(q, base, sizeof q);
    q[RL_Q_HFMA] += 1;
    ck_assert_double_eq(derive(q, 2).flops - one.flops, 4);
    memcpy(q, base, sizeof q);
    q[RL_Q_DFMA] += 1;
    ck_assert_double_eq(derive(q, 2).flops - one.flops, 2);
    memcpy(q, base, sizeof q);
    q[RL_Q_TENSOR_FP8] += 1;
    ck_assert_double_eq(derive(q, 2).flops - one.flops, 2);
}
END_TEST

/* ---- limits ------------------------------------------------------------------ */

START_TEST(nothing_counted)
{
    double q[RL_Q_COUNT];
    unread(q);
    struct rl_kernel_counts c = derive(q, 2);
    ck_assert(isnan(c.flops));
    ck_assert(isnan(c.dram_bytes));
    ck_assert(isnan(c.l2_bytes) && isnan(c.l1_bytes) && isnan(c.time_ns));
    ck_assert_ptr_null(c.precision);
    /* Reads without writes: the DRAM total is unknown, not the reads. */
    q[RL_Q_DRAM_READ] = 10;
    ck_assert(isnan(derive(q, 2).dram_bytes));
    q[RL_Q_DRAM_READ] = NAN;
    q[RL_Q_DRAM_WRITE] = 10;
    ck_assert(isnan(derive(q, 2).dram_bytes));
    q[RL_Q_L2_BYTES] = 5;
    q[RL_Q_L1_BYTES] = 6;
    q[RL_Q_TIME_NS] = 7;
    c = derive(q, 2);
    ck_assert_double_eq(c.l2_bytes, 5);
    ck_assert_double_eq(c.l1_bytes, 6);
    ck_assert_double_eq(c.time_ns, 7);
}
END_TEST

START_TEST(quantity_table)
{
    size_t n;
    const struct rl_q_def *d = rl_q_defs(&n);
    ck_assert_uint_eq(n, RL_Q_COUNT);
    ck_assert_str_eq(d[RL_Q_TIME_NS].candidates[0], "gpu__time_duration.sum");
    ck_assert_str_eq(d[RL_Q_HFMA].candidates[0],
                     "sm__sass_thread_inst_executed_op_hfma_pred_on.sum");
    ck_assert_str_eq(d[RL_Q_DRAM_WRITE].candidates[1], "dram__bytes_op_write.sum");
    ck_assert_str_eq(d[RL_Q_TENSOR_FP16].candidates[1],
                     "sm__ops_path_tensor_src_fp16_dst_fp32.sum+"
                     "sm__ops_path_tensor_src_fp16_dst_fp16.sum");
    /* Exactly the tensor quantities carry a roof, and they are optional. */
    int roofs = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(d[i].key);
        if (d[i].roof) {
            roofs++;
            ck_assert(!d[i].required);
        } else {
            ck_assert(d[i].required);
        }
    }
    ck_assert_int_eq(roofs, 7);
    ck_assert_str_eq(d[RL_Q_TENSOR_FP64].roof, "fp64-tc");
}
END_TEST

START_TEST(tensor_only_and_small_counts)
{
    double q[RL_Q_COUNT];
    /* Only a Tensor counter read (no CUDA-core counter at all): counted, 3
     * ops x 4 FLOP/op = 12, nothing else. */
    unread(q);
    q[RL_Q_TENSOR_FP16] = 3;
    struct rl_kernel_counts c = derive(q, 4);
    ck_assert_double_eq(c.flops, 12);
    ck_assert_double_eq(c.flops_tensor, 12);
    ck_assert_double_eq(c.flops_fp32, 0);
    ck_assert_str_eq(c.precision, "fp16");
    /* One Tensor op is one op, not none: 1 x 4 = 4. */
    q[RL_Q_TENSOR_FP16] = 1;
    c = derive(q, 4);
    ck_assert_double_eq(c.flops_tensor_by[RL_Q_TENSOR_FP16], 4);
    ck_assert_double_eq(c.flops, 4);
    /* A kernel of one FLOP has a precision: 1 DADD is fp64. */
    unread(q);
    q[RL_Q_DADD] = 1;
    c = derive(q, NAN);
    ck_assert_double_eq(c.flops, 1);
    ck_assert_str_eq(c.precision, "fp64");
    /* Half a Tensor FLOP (0.5 ops x 1) is the largest share too. */
    unread(q);
    q[RL_Q_TENSOR_INT8] = 0.5;
    c = derive(q, 1);
    ck_assert_double_eq(c.flops, 0.5);
    ck_assert_str_eq(c.precision, "int8");
    /* Bytes: reads + writes, each kept. */
    q[RL_Q_DRAM_READ] = 300;
    q[RL_Q_DRAM_WRITE] = 100;
    c = derive(q, 1);
    ck_assert_double_eq(c.dram_bytes, 400);
    ck_assert_double_eq(c.dram_read_bytes, 300);
    ck_assert_double_eq(c.dram_write_bytes, 100);
}
END_TEST

START_TEST(tensor_ties_go_to_the_first_in_table_order)
{
    /* bf16 7 ops and fp8 7 ops at 2 FLOP/op: 14 each; bf16 comes first in
     * the table (the LLM formats first), so bf16. Each share kept. */
    double q[RL_Q_COUNT];
    unread(q);
    q[RL_Q_TENSOR_BF16] = 7;
    q[RL_Q_TENSOR_FP8] = 7;
    struct rl_kernel_counts c = derive(q, 2);
    ck_assert_str_eq(c.precision, "bf16");
    ck_assert_double_eq(c.flops_tensor_by[RL_Q_TENSOR_BF16], 14);
    ck_assert_double_eq(c.flops_tensor_by[RL_Q_TENSOR_FP8], 14);
    ck_assert_double_eq(c.flops, 28);
    /* fp8 one op ahead: fp8. */
    q[RL_Q_TENSOR_FP8] = 8;
    ck_assert_str_eq(derive(q, 2).precision, "fp8");
    /* A CUDA-core share equal to the Tensor one (16 = 2 x 8 FFMA) leaves
     * the Tensor roof. */
    q[RL_Q_FFMA] = 8;
    ck_assert_str_eq(derive(q, 2).precision, "fp8");
    /* Non-tensor quantities never become Tensor FLOPs. */
    c = derive(q, 2);
    ck_assert_double_eq(c.flops_tensor, 30);
    for (int i = 0; i < RL_Q_TENSOR_BF16; i++)
        ck_assert_double_eq(c.flops_tensor_by[i], 0);
}
END_TEST

static Suite *counts_suite(void)
{
    Suite *s = suite_create("counts");
    TCase *core = tcase_create("core");
    tcase_add_test(core, fp64_fma_is_two_flops);
    tcase_add_test(core, fp32_fma_is_two_flops);
    tcase_add_test(core, fp16_counts_paired_half2);
    tcase_add_test(core, hfma_alone_is_counted);
    tcase_add_test(core, tensor_ops_times_the_factor);
    tcase_add_test(core, precision_ties_and_largest_share);
    tcase_add_test(core, flops_scale_linearly_with_counters);
    tcase_add_test(core, quantity_table);
    tcase_add_test(core, tensor_ties_go_to_the_first_in_table_order);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, tensor_counter_zero_without_factor);
    tcase_add_test(limits, zero_flops_take_the_default_roof);
    tcase_add_test(limits, nothing_counted);
    tcase_add_test(limits, tensor_only_and_small_counts);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(counts_suite()); }
