/* check_ncu.c - tests of the Nsight Compute CSV importer: metrics to FLOPs and bytes, units, dimensions, CSV edge cases. */
#include "test_util.h"

#include "error.h"
#include "ncu.h"

#include <math.h>
#include <string.h>

#define LONG_HEADER                                                                        \
    "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"Metric Name\",\"Metric Unit\","  \
    "\"Metric Value\"\n"
#define ROW(id, name, metric, unit, value)                                                 \
    "\"" id "\",\"" name "\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"" metric "\",\"" unit "\",\"" \
    value "\"\n"
#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"

static struct rl_trace_groups g;
static struct rl_ncu_stats st;
static char err[RL_ERRMSG_SIZE];

static int parse(const char *text, double factor)
{
    rl_trace_groups_release(&g);
    err[0] = 0;
    return rl_ncu_parse(&g, text, strlen(text), "k.csv", factor, &st, err);
}

static void teardown(void) { rl_trace_groups_release(&g); }

static const struct rl_trace_group *only_group(void)
{
    ck_assert_uint_eq(g.n, 1);
    return &g.v[0];
}

/* ---- metrics to FLOPs and bytes --------------------------------------------- */

START_TEST(two_counter_metrics_are_summed)
{
    /* An FP16 GEMM on a chip that splits the Tensor counter by accumulator:
     * 3M ops to FP32 + 1M ops to FP16 = 4M ops, x 2 FLOP/op = 8M FLOPs. */
    const char *csv = LONG_HEADER
        ROW("0", "hgemm", "sm__ops_path_tensor_src_fp16_dst_fp32.sum", "", "3,000,000")
        ROW("0", "hgemm", "sm__ops_path_tensor_src_fp16_dst_fp16.sum", "", "1,000,000")
        ROW("0", "hgemm", "dram__bytes_read.sum", "Mbyte", "2")
        ROW("0", "hgemm", "dram__bytes_write.sum", "Kbyte", "500")
        ROW("0", "hgemm", "gpu__time_duration.sum", "usecond", "4");
    ck_assert_msg(parse(csv, 2) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_double_eq(k->flops, 8e6);
    ck_assert_str_eq(k->precision, "fp16");
    /* 2 MB read + 500 KB written = 2.5e6 bytes; 4 us = 4000 ns. */
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 2.5e6);
    ck_assert_double_eq(k->time_ns, 4000);
    ck_assert_uint_eq(k->counted, 1);
    ck_assert_str_eq(st.form, "long");
    ck_assert_uint_eq(st.kernels, 1);
    ck_assert_uint_eq(st.without_counts, 0);
    ck_assert_uint_eq(st.tensor_unknown, 0);
}
END_TEST

START_TEST(dram_total_when_read_and_write_are_absent)
{
    /* Only dram__bytes.sum (older ncu sections): the total stands for read
     * and write together: 1.5 GB. 2 x 1e6 FFMA = 2e6 FLOPs. */
    const char *csv = LONG_HEADER
        ROW("0", "axpy", SASS("ffma"), "inst", "1,000,000")
        ROW("0", "axpy", "dram__bytes.sum", "Gbyte", "1.5")
        ROW("0", "axpy", "gpu__time_duration.sum", "msecond", "0.5");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 1.5e9);
    ck_assert_double_eq(k->flops, 2e6);
    ck_assert_double_eq(k->time_ns, 5e5);
    ck_assert_uint_eq(k->counted, 1);
    /* With read and write given, the total is not added on top. */
    csv = LONG_HEADER
        ROW("0", "axpy", SASS("ffma"), "inst", "1")
        ROW("0", "axpy", "dram__bytes_read.sum", "byte", "100")
        ROW("0", "axpy", "dram__bytes_write.sum", "byte", "20")
        ROW("0", "axpy", "dram__bytes.sum", "byte", "999");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->bytes[RL_MEM_DRAM], 120);
}
END_TEST

START_TEST(hfma_only_kernel_has_flops)
{
    /* Only the FP16 instruction counter: 2 x 2 x 250 = 1000 FLOPs. */
    const char *csv = LONG_HEADER
        ROW("0", "h2", SASS("hfma"), "inst", "250")
        ROW("0", "h2", "lts__t_bytes.sum", "byte", "64");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_double_eq(k->flops, 1000);
    ck_assert_str_eq(k->precision, "fp16-cuda");
    ck_assert_double_eq(k->bytes[RL_MEM_L2], 64);
    ck_assert(isnan(k->bytes[RL_MEM_DRAM]));
    ck_assert_uint_eq(st.without_counts, 0);
}
END_TEST

START_TEST(units_and_separators)
{
    /* Each unit to base units: 1 KiB = 1024 B, 1 MiB = 1048576 B; 2 s = 2e9 ns. */
    const char *csv = LONG_HEADER
        ROW("0", "u", SASS("dfma"), "inst", "1,234")
        ROW("0", "u", "dram__bytes_read.sum", "KiByte", "1")
        ROW("0", "u", "dram__bytes_write.sum", "MiByte", "1")
        ROW("0", "u", "lts__t_bytes.sum", "Tbyte", "0.001")
        ROW("0", "u", "l1tex__t_bytes.sum", "GiByte", "1")
        ROW("0", "u", "gpu__time_duration.sum", "second", "2");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_double_eq(k->flops, 2 * 1234.0);
    ck_assert_str_eq(k->precision, "fp64");
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 1024 + 1048576);
    ck_assert_double_eq_tol(k->bytes[RL_MEM_L2], 1e9, 1e-3);
    ck_assert_double_eq(k->bytes[RL_MEM_L1], 1073741824.0);
    ck_assert_double_eq(k->time_ns, 2e9);
    /* "n/a" and "-" are no value: the metric is absent. */
    csv = LONG_HEADER
        ROW("0", "u", SASS("ffma"), "inst", "n/a")
        ROW("0", "u", "dram__bytes_read.sum", "byte", "-")
        ROW("0", "u", "gpu__time_duration.sum", "nsecond", "10");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(only_group()->counted, 0);
    ck_assert_uint_eq(st.without_counts, 1);
}
END_TEST

START_TEST(three_dimensions)
{
    const char *csv =
        "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"Metric Name\",\"Metric Unit\","
        "\"Metric Value\"\n"
        "\"0\",\"conv\",\"(4, 2, 3)\",\"(32, 8, 2)\",\"gpu__time_duration.sum\",\"nsecond\","
        "\"10\"\n"
        "\"1\",\"conv\",\"(4, 2, 5)\",\"(32, 8, 2)\",\"gpu__time_duration.sum\",\"nsecond\","
        "\"10\"\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    /* Grids differing only in z are two groups. */
    ck_assert_uint_eq(g.n, 2);
    ck_assert_uint_eq(g.v[0].grid[0], 4);
    ck_assert_uint_eq(g.v[0].grid[1], 2);
    ck_assert_uint_eq(g.v[0].grid[2], 3);
    ck_assert_uint_eq(g.v[0].block[0], 32);
    ck_assert_uint_eq(g.v[0].block[1], 8);
    ck_assert_uint_eq(g.v[0].block[2], 2);
    ck_assert_uint_eq(g.v[1].grid[2], 5);
}
END_TEST

START_TEST(results_of_one_kernel_group)
{
    /* Two results (IDs 0 and 1) of one kernel and shape: one group of two
     * launches, FLOPs and times summed: 2 x (2 x 100) = 400, 30 + 50 ns. A
     * third result without counters adds its time, not its FLOPs. */
    const char *csv = LONG_HEADER
        ROW("0", "k", SASS("ffma"), "inst", "100")
        ROW("0", "k", "dram__bytes_read.sum", "byte", "10")
        ROW("0", "k", "dram__bytes_write.sum", "byte", "0")
        ROW("0", "k", "gpu__time_duration.sum", "nsecond", "30")
        ROW("1", "k", SASS("ffma"), "inst", "100")
        ROW("1", "k", "dram__bytes_read.sum", "byte", "10")
        ROW("1", "k", "dram__bytes_write.sum", "byte", "0")
        ROW("1", "k", "gpu__time_duration.sum", "nsecond", "50")
        ROW("2", "k", "gpu__time_duration.sum", "nsecond", "7");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_uint_eq(k->launches, 3);
    ck_assert_uint_eq(k->counted, 2);
    ck_assert_double_eq(k->flops, 400);
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 20);
    ck_assert_double_eq(k->time_ns, 87);
    ck_assert_double_eq(k->counted_time_ns, 80);
    ck_assert_uint_eq(st.kernels, 3);
    ck_assert_uint_eq(st.without_counts, 1);
}
END_TEST

START_TEST(tensor_ops_without_factor)
{
    const char *csv = LONG_HEADER
        ROW("0", "g", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "10")
        ROW("0", "g", "dram__bytes_read.sum", "byte", "10")
        ROW("0", "g", "dram__bytes_write.sum", "byte", "10");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(only_group()->counted, 0);
    ck_assert_str_eq(only_group()->precision, "");
    ck_assert_uint_eq(st.tensor_unknown, 1);
    ck_assert_uint_eq(st.without_counts, 1);
    ck_assert_msg(parse(csv, 4) == 0, "%s", err);
    ck_assert_double_eq(only_group()->flops, 40);
    ck_assert_str_eq(only_group()->precision, "bf16");
    ck_assert_uint_eq(st.tensor_unknown, 0);
}
END_TEST

/* ---- the CSV itself ---------------------------------------------------------- */

START_TEST(crlf_in_unquoted_fields)
{
    /* An export saved on Windows, no quotes: the CR of each line is not part
     * of the last field ("1500\r" would not be a number). */
    const char *csv = "==PROF== Connected to process 1\r\n"
                      "ID,Kernel Name,Metric Name,Metric Unit,Metric Value\r\n"
                      "0,k,gpu__time_duration.sum,nsecond,1500\r\n"
                      "0,k," SASS("ffma") ",inst,8\r\n"
                      "0,k,l1tex__t_bytes.sum,byte,32\r\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_str_eq(k->name, "k");
    ck_assert_double_eq(k->time_ns, 1500);
    ck_assert_double_eq(k->flops, 16);
    ck_assert_double_eq(k->bytes[RL_MEM_L1], 32);
    /* The wide form too, with its units row; the kernel name is the last
     * column. */
    csv = "ID,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,Kernel Name\r\n"
          ",usecond,Kbyte,byte,\r\n"
          "0,2,3,0,wide_k\r\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    k = only_group();
    ck_assert_str_eq(k->name, "wide_k");
    ck_assert_double_eq(k->time_ns, 2000);
    ck_assert_str_eq(st.form, "wide");
}
END_TEST

START_TEST(quoted_fields)
{
    /* Quotes around commas and doubled quotes inside a name. */
    const char *csv = LONG_HEADER
        "\"0\",\"void f<int, \"\"x\"\">(int)\",\"(1, 1, 1)\",\"(1, 1, 1)\","
        "\"gpu__time_duration.sum\",\"nsecond\",\"1\"\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_str_eq(only_group()->name, "void f<int, \"x\">(int)");
}
END_TEST

START_TEST(broken_csv_is_refused)
{
    ck_assert_int_eq(parse(LONG_HEADER "\"0\",\"k\"x,\"\",\"\",\"a\",\"\",\"1\"\n", NAN),
                     RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 2: text after a closing quote");
    ck_assert_int_eq(parse(LONG_HEADER "\"0\",\"k", NAN), RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 2: a quoted field never ends");
    /* Wide form without a metric column. */
    ck_assert_int_eq(parse("ID,Kernel Name,Other\n0,k,1\n", NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 1: no metric columns (names like "
                          "dram__bytes_read.sum) and no \"Metric Name\" column");
    /* A bad number in the wide form names the metric. */
    ck_assert_int_eq(parse("ID,Kernel Name,gpu__time_duration.sum\n,,nsecond\n0,k,1e\n", NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 3: gpu__time_duration.sum: '1e' is not a number");
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "x", "", "inf"), NAN), RL_ESCHEMA);
}
END_TEST

static Suite *ncu_suite(void)
{
    Suite *s = suite_create("ncu");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, NULL, teardown);
    tcase_add_test(core, two_counter_metrics_are_summed);
    tcase_add_test(core, dram_total_when_read_and_write_are_absent);
    tcase_add_test(core, hfma_only_kernel_has_flops);
    tcase_add_test(core, units_and_separators);
    tcase_add_test(core, three_dimensions);
    tcase_add_test(core, results_of_one_kernel_group);
    tcase_add_test(core, tensor_ops_without_factor);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, teardown);
    tcase_add_test(limits, crlf_in_unquoted_fields);
    tcase_add_test(limits, quoted_fields);
    tcase_add_test(limits, broken_csv_is_refused);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(ncu_suite()); }
