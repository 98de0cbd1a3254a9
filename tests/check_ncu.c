/* check_ncu.c - tests of the Nsight Compute CSV importer: metrics to FLOPs and bytes, units, dimensions, CSV edge cases. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/readers/ncu.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
    /* The same lines counted when read from a stream (rl_ncu_read), in
     * chunks smaller than a line and in one. */
    static const char bad[] = LONG_HEADER "\"0\",\"k\"x,\"\",\"\",\"a\",\"\",\"1\"\n";
    for (size_t chunk = 0; chunk <= 16; chunk += 16) {
        rl_ncu_set_chunk_bytes(chunk);
        FILE *f = fmemopen((void *)bad, sizeof bad - 1, "r");
        ck_assert_ptr_nonnull(f);
        rl_trace_groups_release(&g);
        ck_assert_int_eq(rl_ncu_read(&g, f, "k.csv", NAN, &st, err), RL_EPARSE);
        fclose(f);
        ck_assert_str_eq(err, "'k.csv': line 2: text after a closing quote");
    }
    rl_ncu_set_chunk_bytes(0);
    ck_assert_int_eq(parse(LONG_HEADER "\"0\",\"k", NAN), RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 2: a quoted field never ends");
    /* Wide form without a metric column. */
    ck_assert_int_eq(parse("ID,Kernel Name,Other\n0,k,1\n", NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 1: no metric columns (names like "
                          "dram__bytes_read.sum) and no \"Metric Name\" column");
    /* A bad number in the wide form names the metric. */
    ck_assert_int_eq(parse("ID,Kernel Name,gpu__time_duration.sum\n,,nsecond\n0,k,1e\n", NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 3, column 3 (gpu__time_duration.sum): "
                          "gpu__time_duration.sum: '1e' is not a number");
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "", "inf"), NAN),
                     RL_ESCHEMA);
    /* A metric roofline does not read may hold anything. */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "x", "", "inf")
                            ROW("0", "k", "Function Cache Configuration", "",
                                "cudaFuncCachePreferNone"),
                        NAN) == 0,
                  "%s", err);
}
END_TEST

/* ---- more export shapes ------------------------------------------------------- */

START_TEST(crlf_quoted_long_form)
{
    /* `ncu --csv` on Windows: every field quoted, CRLF line ends, ==PROF==
     * lines first. The CR after a closing quote ends the row. */
    const char *csv = "==PROF== Connected to process 7\r\n"
                      "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"Metric Name\","
                      "\"Metric Unit\",\"Metric Value\"\r\n"
                      "\"0\",\"k\",\"(2, 1, 1)\",\"(64, 1, 1)\",\"" SASS("fadd") "\",\"inst\","
                      "\"7\"\r\n"
                      "\"0\",\"k\",\"(2, 1, 1)\",\"(64, 1, 1)\",\"dram__bytes_read.sum\","
                      "\"byte\",\"70\"\r\n"
                      "\"0\",\"k\",\"(2, 1, 1)\",\"(64, 1, 1)\",\"dram__bytes_write.sum\","
                      "\"byte\",\"0\"\r\n"
                      "\"0\",\"k\",\"(2, 1, 1)\",\"(64, 1, 1)\",\"gpu__time_duration.sum\","
                      "\"nsecond\",\"12.345\"\r\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_str_eq(k->name, "k");
    ck_assert_double_eq(k->flops, 7); /* FADD: 1 FLOP each */
    ck_assert_str_eq(k->precision, "fp32");
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 70);
    ck_assert_double_eq(k->time_ns, 12.345);
    ck_assert_uint_eq(k->grid[0], 2);
    ck_assert_uint_eq(k->block[0], 64);
    ck_assert_uint_eq(k->block[1], 1);
    ck_assert_uint_eq(k->block[2], 1);
    ck_assert_uint_eq(st.tensor_unknown, 0);
    ck_assert_uint_eq(st.without_counts, 0);
    /* The same without a final line end, and a CR inside quotes kept. */
    csv = LONG_HEADER "\"0\",\"a\rb\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"gpu__time_duration.sum\","
                      "\"nsecond\",\"3\"";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_str_eq(only_group()->name, "a\rb");
    ck_assert_double_eq(only_group()->time_ns, 3);
    /* Unquoted, no final line end: the last field is whole. */
    csv = "ID,Kernel Name,Metric Name,Metric Unit,Metric Value\n0,k,gpu__time_duration.sum,,25";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 25);
}
END_TEST

START_TEST(quoted_newlines_count_lines)
{
    /* A kernel name spanning two lines (a quoted newline): the rows after it
     * are numbered by the file's lines, as an editor shows them. */
    const char *csv = LONG_HEADER
        "\"0\",\"two\nlines\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"gpu__time_duration.sum\","
        "\"nsecond\",\"4\"\n"
        "\"0\",\"two\nlines\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"" SASS("ffma") "\",\"inst\",\"x\"\n";
    ck_assert_int_eq(parse(csv, NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 4, column 7 (Metric Value): " SASS("ffma")
                          ": 'x' is not a number");
    /* Text after a closing quote: the line where it is. */
    csv = LONG_HEADER "\"0\",\"a\nb\"c,\"\",\"\",\"m\",\"\",\"1\"\n";
    ck_assert_int_eq(parse(csv, NAN), RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 3: text after a closing quote");
    /* A quoted field never closed: the line where its row began. */
    csv = LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "1") "\"1\",\"k\nx\n";
    ck_assert_int_eq(parse(csv, NAN), RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 3: a quoted field never ends");
    /* Valid: the name keeps its newline. */
    csv = LONG_HEADER "\"0\",\"a\nb\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"gpu__time_duration.sum\","
                      "\"nsecond\",\"4\"\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_str_eq(only_group()->name, "a\nb");
}
END_TEST

START_TEST(wide_form_units_row)
{
    /* `ncu --csv --page raw`: the row under the header holds the units, with
     * an empty ID; kernels one per row, quoted. Two results of one kernel:
     * FLOPs 2 x 2 x 3 = 12 and 2 x 2 x 5 = 20, bytes 1 KB + 1 KB each. */
    const char *csv =
        "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"gpu__time_duration.sum\","
        "\"" SASS("ffma") "\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\"\n"
        "\"\",\"\",\"\",\"\",\"usecond\",\"inst\",\"Kbyte\",\"Kbyte\"\n"
        "\"0\",\"w\",\"(8, 1, 1)\",\"(128, 1, 1)\",\"1.5\",\"3\",\"1\",\"1\"\n"
        "\"1\",\"w\",\"(8, 1, 1)\",\"(128, 1, 1)\",\"2.5\",\"5\",\"1\",\"1\"\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_str_eq(st.form, "wide");
    ck_assert_uint_eq(st.kernels, 2);
    ck_assert_uint_eq(k->launches, 2);
    ck_assert_uint_eq(k->counted, 2);
    ck_assert_double_eq(k->flops, 16);
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 4000);
    ck_assert_double_eq(k->time_ns, 4000);
    ck_assert_uint_eq(k->grid[0], 8);
    ck_assert_uint_eq(k->block[0], 128);
    /* Without a units row: base units; a later row with an empty ID is a
     * kernel, not units (only the row under the header can be). */
    csv = "ID,Kernel Name,gpu__time_duration.sum\n"
          "0,a,100\n"
          ",b,200\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_str_eq(g.v[0].name, "a");
    ck_assert_double_eq(g.v[0].time_ns, 100);
    ck_assert_str_eq(g.v[1].name, "b");
    ck_assert_double_eq(g.v[1].time_ns, 200);
    ck_assert_uint_eq(st.kernels, 2);
    /* After the units row, too. */
    csv = "ID,Kernel Name,gpu__time_duration.sum\n"
          ",,usecond\n"
          ",b,2\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_str_eq(only_group()->name, "b");
    ck_assert_double_eq(only_group()->time_ns, 2000);
    /* No Grid/Block columns: zero dimensions. */
    ck_assert_uint_eq(only_group()->grid[0], 0);
    ck_assert_uint_eq(only_group()->block[2], 0);
    /* A blank line is skipped in either form; a one-field row is not. */
    csv = "ID,Kernel Name,gpu__time_duration.sum\n,,nsecond\n\n0,a,5\n\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 5);
    csv = LONG_HEADER "\n" ROW("0", "k", "gpu__time_duration.sum", "nsecond", "1") "\n";
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 1);
    csv = LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "1") "x\n";
    ck_assert_int_eq(parse(csv, NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 3: 1 columns, the header has 7 (the row ends before "
                          "'Metric Value')");
}
END_TEST

START_TEST(values_and_units)
{
    /* Spaces and commas are thousands separators; exponents; "N/A" in any
     * case and "" are no value; units in any case. */
    const char *csv = LONG_HEADER
        ROW("0", "v", SASS("fmul"), "inst", "1 234")
        ROW("0", "v", SASS("dadd"), "inst", "N/A")
        ROW("0", "v", SASS("dmul"), "inst", "")
        ROW("0", "v", "dram__bytes_read.sum", "KBYTE", "2e1")
        ROW("0", "v", "dram__bytes_write.sum", "byte", "5")
        ROW("0", "v", "lts__t_bytes.sum", "", "3")
        ROW("0", "v", "l1tex__t_bytes.sum", "Mbyte", "0.25")
        ROW("0", "v", "gpu__time_duration.sum", "NSECOND", "9");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_double_eq(k->flops, 1234); /* FMUL: 1 FLOP each, FP64 absent */
    ck_assert_str_eq(k->precision, "fp32");
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 20005);
    ck_assert_double_eq(k->bytes[RL_MEM_L2], 3);
    ck_assert_double_eq(k->bytes[RL_MEM_L1], 250000);
    ck_assert_double_eq(k->time_ns, 9);
    ck_assert_uint_eq(st.tensor_unknown, 0);
    /* Time in milliseconds, a dram__bytes.sum total in Tbyte. */
    csv = LONG_HEADER
        ROW("0", "t", SASS("ffma"), "inst", "1")
        ROW("0", "t", "dram__bytes.sum", "Tbyte", "2")
        ROW("0", "t", "gpu__time_duration.sum", "msecond", "3");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->bytes[RL_MEM_DRAM], 2e12);
    ck_assert_double_eq(only_group()->time_ns, 3e6);
    /* The longest number read is 63 characters (separators aside). */
    char text[1024];
    const char *digits63 = "0.0000000000000000000000000000000000000000000000000000000000007";
    ck_assert_uint_eq(strlen(digits63), 63);
    snprintf(text, sizeof text, LONG_HEADER "\"0\",\"n\",\"(1, 1, 1)\",\"(1, 1, 1)\","
                                "\"gpu__time_duration.sum\",\"second\",\"%s\"\n",
             digits63);
    ck_assert_msg(parse(text, NAN) == 0, "%s", err);
    ck_assert_double_eq_tol(only_group()->time_ns, 7e-52, 1e-60);
    snprintf(text, sizeof text, LONG_HEADER "\"0\",\"n\",\"(1, 1, 1)\",\"(1, 1, 1)\","
                                "\"gpu__time_duration.sum\",\"second\",\"%s0\"\n",
             digits63);
    ck_assert_int_eq(parse(text, NAN), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "is not a number"));
    /* Not numbers: named with the metric and the line. */
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "12abc"),
                           NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2, column 7 (Metric Value): gpu__time_duration.sum: "
                          "'12abc' is not a number");
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "nan"),
                           NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2, column 7 (Metric Value): gpu__time_duration.sum: "
                          "'nan' is not a number");
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "--"),
                           NAN),
                     RL_ESCHEMA);
}
END_TEST

START_TEST(tensor_counters_at_zero_and_one)
{
    /* A Tensor counter at 0 is no Tensor work: no factor needed. At 1 it is. */
    const char *csv = LONG_HEADER
        ROW("0", "g", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "0")
        ROW("0", "g", SASS("ffma"), "inst", "3")
        ROW("0", "g", "dram__bytes_read.sum", "byte", "10")
        ROW("0", "g", "dram__bytes_write.sum", "byte", "0");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(st.tensor_unknown, 0);
    ck_assert_uint_eq(st.without_counts, 0);
    ck_assert_double_eq(only_group()->flops, 6);
    csv = LONG_HEADER
        ROW("0", "g", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "1")
        ROW("0", "g", "dram__bytes_read.sum", "byte", "10")
        ROW("0", "g", "dram__bytes_write.sum", "byte", "0");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(st.tensor_unknown, 1);
    ck_assert_uint_eq(st.without_counts, 1);
    ck_assert_uint_eq(st.bytes_only, 0);
    /* Bytes without any FLOP counter: timing only, not 0 FLOPs. */
    csv = LONG_HEADER ROW("0", "c", "lts__t_bytes.sum", "byte", "64");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(only_group()->counted, 0);
    ck_assert_uint_eq(st.without_counts, 1);
    ck_assert_uint_eq(st.tensor_unknown, 0);
    /* FLOP counters without bytes: a compute point, its FLOPs kept (64
     * FFMA = 128 FLOPs, FP32), no intensity; not timing only. */
    csv = LONG_HEADER ROW("0", "c", SASS("ffma"), "inst", "64");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(only_group()->counted, 0);
    ck_assert_uint_eq(only_group()->flops_only, 1);
    ck_assert_double_eq(only_group()->flops_only_flops, 128);
    ck_assert_str_eq(only_group()->precision, "fp32");
    ck_assert_uint_eq(st.without_counts, 1);
    ck_assert_uint_eq(st.flops_only, 1);
    ck_assert_uint_eq(st.timing_only, 0);
    /* dram__bytes.sum stands in only when read and write are both absent:
     * beside a write counter alone, no DRAM bytes (L2 bytes keep it
     * counted). */
    csv = LONG_HEADER
        ROW("0", "c", SASS("ffma"), "inst", "1")
        ROW("0", "c", "dram__bytes_write.sum", "byte", "8")
        ROW("0", "c", "dram__bytes.sum", "byte", "100")
        ROW("0", "c", "lts__t_bytes.sum", "byte", "1");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert(isnan(only_group()->bytes[RL_MEM_DRAM]));
    ck_assert_double_eq(only_group()->bytes[RL_MEM_L2], 1);
    /* The older op_read/op_write names are the same quantities. */
    csv = LONG_HEADER
        ROW("0", "c", SASS("ffma"), "inst", "1")
        ROW("0", "c", "dram__bytes_op_read.sum", "byte", "8")
        ROW("0", "c", "dram__bytes_op_write.sum", "byte", "4");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->bytes[RL_MEM_DRAM], 12);
}
END_TEST

START_TEST(kernel_names_and_ids)
{
    /* A result is the run of rows sharing an ID; a new ID flushes it even
     * with the same name; the same ID again later is a new result. */
    const char *csv = LONG_HEADER
        ROW("7", "a", "gpu__time_duration.sum", "nsecond", "1")
        ROW("8", "b", "gpu__time_duration.sum", "nsecond", "2")
        ROW("7", "a", "gpu__time_duration.sum", "nsecond", "4");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(st.kernels, 3);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_str_eq(g.v[0].name, "a");
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_double_eq(g.v[0].time_ns, 5);
    ck_assert_str_eq(g.v[1].name, "b");
    /* Stats may be left out. */
    rl_trace_groups_release(&g);
    ck_assert_int_eq(rl_ncu_parse(&g, csv, strlen(csv), "k.csv", NAN, NULL, err), 0);
    ck_assert_uint_eq(g.n, 2);
    /* Only `len` bytes are read: a text cut at the closing quote of the
     * last value leaves that field open; one cut after a comma ends with an
     * empty field, even where the next byte is a quote. */
    rl_trace_groups_release(&g);
    ck_assert_int_eq(rl_ncu_parse(&g, csv, strlen(csv) - 2, "k.csv", NAN, &st, err),
                     RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 4: a quoted field never ends");
    rl_trace_groups_release(&g);
    const char *cut = "ID,Kernel Name,gpu__time_duration.sum\n0,k,\"5\"\n";
    ck_assert_int_eq(rl_ncu_parse(&g, cut, strlen(cut) - 4, "k.csv", NAN, &st, err), 0);
    ck_assert_uint_eq(only_group()->launches, 1);
    ck_assert_double_eq(only_group()->time_ns, 0); /* no time */
}
END_TEST

START_TEST(many_rows_and_columns)
{
    /* 300 results of one kernel, 10 ns and 2 FFMA each: 25 KB of text, more
     * than the first buffer: 3000 ns, 1200 FLOPs, 300 launches. */
    size_t cap = 256 * 1024, n = 0;
    char *csv = malloc(cap);
    ck_assert_ptr_nonnull(csv);
    n += (size_t)snprintf(csv + n, cap - n, LONG_HEADER);
    for (int i = 0; i < 300; i++) {
        char id[16];
        snprintf(id, sizeof id, "%d", i);
        n += (size_t)snprintf(csv + n, cap - n,
                              "\"%s\",\"k\",\"(1, 1, 1)\",\"(32, 1, 1)\","
                              "\"gpu__time_duration.sum\",\"nsecond\",\"10\"\n"
                              "\"%s\",\"k\",\"(1, 1, 1)\",\"(32, 1, 1)\",\"" SASS("ffma")
                              "\",\"inst\",\"2\"\n"
                              "\"%s\",\"k\",\"(1, 1, 1)\",\"(32, 1, 1)\","
                              "\"lts__t_bytes.sum\",\"byte\",\"1\"\n",
                              id, id, id);
    }
    ck_assert_uint_gt(n, 8192);
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(only_group()->launches, 300);
    ck_assert_double_eq(only_group()->time_ns, 3000);
    ck_assert_double_eq(only_group()->flops, 1200);
    ck_assert_double_eq(only_group()->bytes[RL_MEM_L2], 300);
    /* A kernel name of 5000 characters in one field: read and kept whole. */
    n = (size_t)snprintf(csv, cap, "ID,gpu__time_duration.sum,Kernel Name\n0,6,");
    memset(csv + n, 'x', 5000);
    n += 5000;
    csv[n] = 0;
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_uint_eq(strlen(only_group()->name), 5000);
    ck_assert_double_eq(only_group()->time_ns, 6);
    /* 4096 columns are read (a metric given twice: the first); a row wider
     * than its header is refused. */
    n = (size_t)snprintf(csv, cap, "ID,Kernel Name");
    for (int i = 2; i < 4096; i++)
        n += (size_t)snprintf(csv + n, cap - n, ",gpu__time_duration.sum");
    n += (size_t)snprintf(csv + n, cap - n, "\n0,k");
    for (int i = 2; i < 4096; i++)
        n += (size_t)snprintf(csv + n, cap - n, ",1");
    n += (size_t)snprintf(csv + n, cap - n, "\n");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 1);
    csv[n - 1] = ',';
    snprintf(csv + n, cap - n, "1\n");
    ck_assert_int_eq(parse(csv, NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2: 4097 columns, the header has 4096");
    free(csv);
    /* More than 2^20 columns in a row is refused (the header here). */
    size_t big = 2 * ((size_t)1 << 20) + 64;
    csv = malloc(big);
    ck_assert_ptr_nonnull(csv);
    n = (size_t)snprintf(csv, big, "ID,Kernel Name");
    for (int i = 2; i <= 1 << 20; i++)
        csv[n++] = ',', csv[n++] = 'x';
    snprintf(csv + n, big - n, "\n0,k\n");
    ck_assert_int_eq(parse(csv, NAN), RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 1: more than 1048576 columns");
    free(csv);
}
END_TEST

START_TEST(no_header_no_kernel)
{
    ck_assert_int_eq(parse("==PROF== nothing profiled\nID,Name\n", NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': no Nsight Compute CSV header (a row starting with \"ID\" "
                          "and naming \"Kernel Name\"): export with `ncu --csv` or `ncu --csv "
                          "--page raw`");
    ck_assert_int_eq(parse("", NAN), RL_ESCHEMA);
    ck_assert_int_eq(parse("Kernel Name,ID\n", NAN), RL_ESCHEMA);
    /* A broken row before the header. */
    ck_assert_int_eq(parse("\"ID\"x,\"Kernel Name\"\n", NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': no Nsight Compute CSV header (a row starting with \"ID\" "
                          "and naming \"Kernel Name\"): export with `ncu --csv` or `ncu --csv "
                          "--page raw`");
    /* A broken header row. */
    ck_assert_int_eq(parse("\"ID\",\"Kernel\"x Name\"\n", NAN), RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 1: text after a closing quote");
    /* A header and no kernel under it. */
    ck_assert_int_eq(parse(LONG_HEADER, NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': the CSV holds no kernel");
    ck_assert_int_eq(parse("ID,Kernel Name,gpu__time_duration.sum\n,,nsecond\n", NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': the CSV holds no kernel");
    ck_assert_uint_eq(st.kernels, 0);
    /* A row of another width. */
    ck_assert_int_eq(parse(LONG_HEADER "\"0\",\"k\",\"x\"\n", NAN), RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2: 3 columns, the header has 7 (the row ends before "
                          "'Metric Value')");
    /* An error after good rows is still an error. */
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "1")
                               ROW("1", "k", "gpu__time_duration.sum", "nsecond", "1") "\"2",
                           NAN),
                     RL_EPARSE);
    ck_assert_str_eq(err, "'k.csv': line 4: a quoted field never ends");
}
END_TEST

START_TEST(buffer_out_of_memory)
{
    /* A stream that cannot be read (a folder): one error, no kernel. */
    ck_assert_int_eq(rl_ncu_load(&g, "/", NAN, &st, err), RL_EIO);
    ck_assert_str_eq(err, "cannot read '/': Is a directory");
    ck_assert_uint_eq(g.n, 0);
}
END_TEST

START_TEST(copies_out_of_memory)
{
    /* The group's name cannot be copied: said, and nothing half-read kept. */
    const char *csv = LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "1");
    rl_test_strdup_fail = 1;
    int rc = parse(csv, NAN);
    rl_test_strdup_fail = 0;
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_str_eq(err, "out of memory");
    /* The wide form's header copies. */
    rl_test_strdup_fail = 1;
    rc = parse("ID,Kernel Name,gpu__time_duration.sum\n0,k,1\n", NAN);
    rl_test_strdup_fail = 0;
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_str_eq(err, "out of memory");
}
END_TEST

START_TEST(rows_that_add_nothing)
{
    /* A row without a metric name adds to no quantity; a result without a
     * gpu__time_duration row is counted but has no time (not 0 ns). */
    const char *csv = LONG_HEADER
        ROW("0", "k", SASS("ffma"), "inst", "2")
        ROW("0", "k", "", "nsecond", "1000")
        ROW("0", "k", "lts__t_bytes.sum", "byte", "8");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_uint_eq(k->counted, 1);
    ck_assert_uint_eq(k->counted_timed, 0);
    ck_assert_double_eq(k->time_ns, 0);
    ck_assert_double_eq(k->flops, 4);
    /* The time read on an earlier row of the result survives the rows
     * after it (their grid and block are parsed again): 12.345 ns exactly. */
    csv = LONG_HEADER
        ROW("0", "k", "gpu__time_duration.sum", "nsecond", "12.345")
        ROW("0", "k", SASS("ffma"), "inst", "2")
        ROW("0", "k", "lts__t_bytes.sum", "byte", "8");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    k = only_group();
    ck_assert_uint_eq(k->counted_timed, 1);
    ck_assert_double_eq(k->time_ns, 12.345);
    ck_assert_uint_eq(k->block[0], 256);
    ck_assert_uint_eq(k->grid[0], 4);
}
END_TEST

START_TEST(load_files)
{
    /* tests/data/ncu-long.csv (a recorded `ncu --csv` of a GEMV). */
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-long.csv"), NAN, &st, err) == 0, "%s", err);
    ck_assert_uint_ge(g.n, 1);
    ck_assert_str_eq(st.form, "long");
    rl_trace_groups_release(&g);
    ck_assert_int_eq(rl_ncu_load(&g, "/nonexistent/k.csv", NAN, &st, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "'/nonexistent/k.csv'"));
    char path[512];
    snprintf(path, sizeof path, "%s/empty.csv", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("ID,Kernel Name,Other\n", f);
    fclose(f);
    ck_assert_int_eq(rl_ncu_load(&g, path, NAN, &st, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "empty.csv': line 1: no metric columns"));
}
END_TEST

/* ---- real exports (tests/data/ncu-real, origins in SOURCES.md) ------------- */

static double num_or_nan(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* [x, y, z]; an old export's Launch Statistics count as (n, 1, 1); else 0s. */
static void dim3_of(const cJSON *o, const char *key, const char *stats_key, uint32_t *out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    double n = num_or_nan(o, stats_key);
    for (int i = 0; i < 3; i++)
        out[i] = cJSON_IsArray(a) ? (uint32_t)cJSON_GetArrayItem(a, i)->valuedouble
                 : !isnan(n)      ? (i ? 1 : (uint32_t)n)
                                  : 0;
}

static void expect_near(const char *file, const char *what, double got, double want)
{
    if (isnan(want)) {
        ck_assert_msg(isnan(got), "%s: %s: got %.17g, the file has none", file, what, got);
        return;
    }
    ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%s: %s: got %.17g, want %.17g", file,
                  what, got, want);
}

START_TEST(real_exports)
{
    /* Every export read, and one kernel (or two) per file checked against
     * the FLOPs, bytes, time and intensity worked out by hand from the
     * file's metric values (expected.json, each with its derivation). */
    char *text = rl_test_slurp(rl_test_data("ncu-real/expected.json"));
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(doc);
    int files = 0, checks = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, doc)
    {
        const char *file = cJSON_GetObjectItemCaseSensitive(e, "file")->valuestring;
        char path[256];
        snprintf(path, sizeof path, "ncu-real/%s", file);
        rl_trace_groups_release(&g);
        ck_assert_msg(rl_ncu_load(&g, rl_test_data(path), NAN, &st, err) == 0, "%s", err);
        ck_assert_str_eq(st.form, cJSON_GetObjectItemCaseSensitive(e, "form")->valuestring);
        ck_assert_uint_eq(st.kernels, (size_t)num_or_nan(e, "kernel_results"));
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(e, "checks"))
        {
            const char *name = cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring;
            uint32_t grid[3], block[3];
            dim3_of(c, "grid", "launch_stats_grid_size", grid);
            dim3_of(c, "block", "launch_stats_block_size", block);
            const struct rl_trace_group *k = NULL;
            for (size_t i = 0; i < g.n && !k; i++)
                if (strcmp(g.v[i].name, name) == 0 && !memcmp(g.v[i].grid, grid, sizeof grid) &&
                    !memcmp(g.v[i].block, block, sizeof block))
                    k = &g.v[i];
            ck_assert_msg(k != NULL, "%s: no group %s", file, name);
            ck_assert_msg(k->launches == (uint64_t)num_or_nan(c, "launches"),
                          "%s: %s: %llu launches", file, name, (unsigned long long)k->launches);
            /* FLOPs and bytes: counted launches, or memory points (bytes, no FLOPs). */
            double flops = k->counted ? k->flops : NAN;
            const double *b = k->counted ? k->bytes : k->bytes_only_bytes;
            bool any_bytes = k->counted || k->bytes_only;
            double dram = num_or_nan(c, "dram_bytes");
            if (isnan(dram))
                dram = num_or_nan(c, "dram_bytes_op_read_plus_write");
            /* With Tensor FLOPs inferred from instruction counts where the
             * export gives the architecture (CC) and no op counters. */
            double want_flops = num_or_nan(c, "flops_inferred");
            if (isnan(want_flops))
                want_flops = num_or_nan(c, "flops");
            expect_near(file, "flops", flops, want_flops);
            expect_near(file, "dram bytes", any_bytes ? b[RL_MEM_DRAM] : NAN, dram);
            expect_near(file, "l2 bytes", any_bytes ? b[RL_MEM_L2] : NAN,
                        num_or_nan(c, "l2_bytes"));
            expect_near(file, "l1 bytes", any_bytes ? b[RL_MEM_L1] : NAN,
                        num_or_nan(c, "l1_bytes"));
            double t = num_or_nan(c, "time_ns");
            if (isnan(t))
                t = num_or_nan(c, "time_ns_from_cycles");
            expect_near(file, "time", k->time_ns > 0 ? k->time_ns : NAN, t);
            double want_ai = num_or_nan(c, "intensity_dram_inferred");
            if (isnan(want_ai))
                want_ai = num_or_nan(c, "intensity_dram");
            expect_near(file, "intensity", flops / b[RL_MEM_DRAM], want_ai);
            checks++;
        }
        files++;
    }
    cJSON_Delete(doc);
    ck_assert_int_ge(files, 10);
    ck_assert_int_ge(checks, files);
}
END_TEST

START_TEST(real_export_features)
{
    /* What the real files showed, each on its own (regressions). */
    /* The wide form: text attribute columns, a units row; the device named. */
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/meinie-b200-wide-units-row.csv"), NAN,
                              &st, err) == 0,
                  "%s", err);
    ck_assert(st.units_row);
    ck_assert_str_eq(g.sum.gpu_name, "NVIDIA B200");
    ck_assert_uint_eq(st.n_devices, 1);
    ck_assert_uint_eq(st.timing_only, st.kernels);
    /* Rows ending before the rule columns; us units. */
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/llmperfopt-rtx50-long-rules.csv"), NAN,
                              &st, err) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.tensor_unknown, 1); /* BF16 Tensor ops, no factor */
    /* A BOM before ==PROF== lines, CRLF, program output, ns, bytes only. */
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/badejo-rtx5070-long-bom-crlf-ns.csv"),
                              NAN, &st, err) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.bytes_only, 1);
    ck_assert_ptr_nonnull(strstr(st.missing_flops, SASS("ffma")));
    char notes[2048];
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "no FLOP counters in this export"));
    ck_assert_ptr_nonnull(strstr(notes, "--metrics " SASS("dadd")));
    /* NERSC's metric list: smsp__ counters, time from cycles. */
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/gardenia-a100-long-hfma.csv"), NAN, &st,
                              err) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.time_from_cycles, st.kernels);
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "time from cycles"));
    /* Tensor pipe instructions without op counters, on an A100 (CC 8.0),
     * in kernels with FP16 instructions: the count is exactly hfma / 32 (FP16
     * shares that pipe on GA100), so nothing is inferred, and said. */
    ck_assert_uint_gt(st.tensor_pipe_shared, 0);
    ck_assert_uint_eq(st.tensor_inferred, 0);
    ck_assert_ptr_nonnull(strstr(notes, "share that pipe on some GPUs (GA100)"));
    /* Without the architecture (an old header has no CC column): a stated
     * lower bound. */
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_load(&g, rl_test_data("ncu-real/leleucas-a100-old-kerneltime-rules-nersc.csv"),
                              NAN, &st, err) == 0,
                  "%s", err);
    ck_assert_uint_gt(st.tensor_inst_only, 0);
    ck_assert_uint_eq(st.tensor_inferred, 0);
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "a lower bound"));
    /* The factors per architecture, and none where no shape dominates. */
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(7.0, "k"), 512);
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(7.2, "k"), 512);
    ck_assert_double_eq(rl_ncu_tensor_flops_per_inst(7.5, "k"), 2048);
    /* On 8.x the name must give the shape (issue 24): a bare name gives none. */
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.0, "k")));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.6, "k")));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(8.9, "k")));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(9.0, "k")));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(10.0, "k")));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(6.1, "k")));
    ck_assert(isnan(rl_ncu_tensor_flops_per_inst(NAN, "k")));
    /* The wide form's compute capability attributes serve too; the
     * precision judged becomes the Tensor Core one. */
    static const char wide_cc[] =
        "ID,Kernel Name,device__attribute_compute_capability_major,"
        "device__attribute_compute_capability_minor,sm__inst_executed_pipe_tensor.sum," SASS("ffma")
        "," SASS("hfma") "," SASS("hadd") "," SASS("hmul") "," SASS("dfma") "," SASS("dadd") ","
        SASS("dmul") ",lts__t_bytes.sum\n,,,,inst,inst,inst,inst,inst,inst,inst,inst,byte\n"
        "0,k,7,0,10,1,0,0,0,0,0,0,8\n";
    ck_assert_msg(parse(wide_cc, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->flops, 10 * 512 + 2);
    ck_assert_str_eq(only_group()->precision, "fp16");
    ck_assert_uint_eq(st.tensor_inferred, 1);
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "inferred (not counted) from "
                                        "sm__inst_executed_pipe_tensor.sum"));
    ck_assert_ptr_nonnull(strstr(notes, "sm__ops_path_tensor_* counters give exact counts"));
    /* The minor version counts: 7.5 (Turing, HMMA.1688: 2048 FLOP a warp
     * instruction) from major 7 and minor 5, so 10 x 2048 + 2. */
    char turing[sizeof wide_cc];
    memcpy(turing, wide_cc, sizeof wide_cc);
    strstr(turing, "0,k,7,0,10")[6] = '5';
    ck_assert_msg(parse(turing, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->flops, 10 * 2048 + 2);
    /* FP16 work beside it, or FP16 counters missing: not inferred. */
    char text[sizeof wide_cc];
    memcpy(text, wide_cc, sizeof wide_cc);
    char *row = strstr(text, "0,k,7,0,10,1,0");
    row[13] = '5'; /* hfma 5 */
    ck_assert_msg(parse(text, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->flops, 2 + 2 * 2 * 5);
    ck_assert_uint_eq(st.tensor_pipe_shared, 1);
    ck_assert_msg(parse("ID,Kernel Name,CC,sm__inst_executed_pipe_tensor.sum," SASS("ffma")
                        ",lts__t_bytes.sum\n,,,inst,inst,byte\n0,k,8.0,10,1,8\n",
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq(only_group()->flops, 2);
    ck_assert_uint_eq(st.tensor_inferred, 0);
}
END_TEST

START_TEST(forms_and_units)
{
    /* Every unit family: decimal and binary bytes, ns/us/ms/s and the
     * nsecond family, counts with prefixes. */
    static const struct {
        const char *metric, *unit, *value;
        double want;
        int q; /* 0 time, 2 l2, 3 FLOPs */
    } cases[] = {
        {"gpu__time_duration.sum", "ns", "5", 5, 0},
        {"gpu__time_duration.sum", "us", "5", 5e3, 0},
        {"gpu__time_duration.sum", "ms", "5", 5e6, 0},
        {"gpu__time_duration.sum", "s", "5", 5e9, 0},
        {"gpu__time_duration.sum", "usecond", "1.5", 1500, 0},
        {"gpu__time_duration.sum", "psecond", "2000", 2, 0},
        {"lts__t_bytes.sum", "KB", "2", 2e3, 2},
        {"lts__t_bytes.sum", "KiB", "2", 2048, 2},
        {"lts__t_bytes.sum", "Kibyte", "2", 2048, 2},
        {"lts__t_bytes.sum", "MiB", "1", 1048576, 2},
        {"lts__t_bytes.sum", "Gibyte", "1", 1073741824.0, 2},
        {"lts__t_bytes.sum", "GB", "1.5", 1.5e9, 2},
        {"lts__t_bytes.sum", "TiB", "1", 1099511627776.0, 2},
        {"lts__t_bytes.sum", "Tbyte", "2", 2e12, 2},
        {SASS("ffma"), "Ginst", "2", 4e9, 3},
        {SASS("ffma"), "Minst", "2", 4e6, 3},
        {SASS("ffma"), "Kinst", "2", 4e3, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char csv[512];
        snprintf(csv, sizeof csv,
                 LONG_HEADER "\"0\",\"k\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"%s\",\"%s\",\"%s\"\n"
                 ROW("0", "k", SASS("ffma"), "inst", "1") ROW("0", "k", "l1tex__t_bytes.sum", "byte", "1"),
                 cases[i].metric, cases[i].unit, cases[i].value);
        ck_assert_msg(parse(csv, NAN) == 0, "%s: %s", cases[i].unit, err);
        double got = cases[i].q == 0   ? only_group()->time_ns
                     : cases[i].q == 3 ? only_group()->flops /* 2 x FFMA (the first row)*/
                                       : only_group()->bytes[RL_MEM_L2];
        ck_assert_msg(got == cases[i].want, "%s: %.17g", cases[i].unit, got);
    }
    /* A unit ncu does not print, or of the wrong kind: one clear error
     * naming file, line, column and value - never a guess. */
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "lts__t_bytes.sum", "furlong", "3"), NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2, column 6 (Metric Unit): lts__t_bytes.sum: unknown "
                          "unit 'furlong' (value '3')");
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "byte", "3"), NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2, column 6 (Metric Unit): gpu__time_duration.sum is a "
                          "time, but its unit 'byte' is not (value '3')");
    ck_assert_int_eq(parse("ID,Kernel Name,dram__bytes_read.sum\n,,parsec\n0,k,1\n", NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 3, column 3 (dram__bytes_read.sum): dram__bytes_read.sum: "
                          "unknown unit 'parsec' (value '1')");
    /* Time from cycles: cycles over their rate (cycle/nsecond, GHz). */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "smsp__cycles_elapsed.avg", "cycle", "3,000")
                            ROW("0", "k", "smsp__cycles_elapsed.avg.per_second", "cycle/nsecond",
                                "1.5"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq_tol(only_group()->time_ns, 2000, 1e-9);
    ck_assert_uint_eq(st.time_from_cycles, 1);
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "sm__cycles_elapsed.avg", "cycle", "3000")
                            ROW("0", "k", "sm__cycles_elapsed.avg.per_second", "Ghz", "1.5")
                                ROW("0", "k", "gpu__time_duration.sum", "ns", "2500"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 2500); /* the duration wins */
    ck_assert_uint_eq(st.time_from_cycles, 0);
    ck_assert_uint_eq(st.time_disagree, 1);
    ck_assert_double_eq_tol(st.time_disagree_max_pct, 20, 1e-9);
}
END_TEST

START_TEST(numbers_as_files_write_them)
{
    /* Grouping commas, spaces and dots; a decimal comma (a European
     * locale) is a decimal comma, never a thousands separator. */
    static const struct {
        const char *value;
        double want;
    } ok[] = {{"117,469,184", 117469184}, {"117 469 184", 117469184},
              {"117.469.184", 117469184}, {"117,47", 117.47},
              {"1.234,5", 1234.5},         {"1,234.5", 1234.5},
              {"2.5e+03", 2500},           {"-0", 0},
              /* four digits before the comma: no grouping, a decimal comma */
              {"1234,567", 1234.567},      {"1,234e1", 12340}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char csv[512];
        snprintf(csv, sizeof csv,
                 LONG_HEADER "\"0\",\"k\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"lts__t_bytes.sum\","
                             "\"byte\",\"%s\"\n" ROW("0", "k", SASS("ffma"), "inst", "1"),
                 ok[i].value);
        ck_assert_msg(parse(csv, NAN) == 0, "%s: %s", ok[i].value, err);
        ck_assert_msg(only_group()->bytes[RL_MEM_L2] == ok[i].want, "%s: %.17g", ok[i].value,
                      only_group()->bytes[RL_MEM_L2]);
    }
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "lts__t_bytes.sum", "Mbyte", "117,47")
                            ROW("0", "k", SASS("ffma"), "inst", "1"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq_tol(only_group()->bytes[RL_MEM_L2], 117.47e6, 1e-3);
    ck_assert(st.decimal_comma);
    /* Once the file writes decimal commas, "1,234" is 1.234. */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "lts__t_bytes.sum", "byte", "0,5")
                            ROW("0", "k", "l1tex__t_bytes.sum", "byte", "1,234")
                                ROW("0", "k", SASS("ffma"), "inst", "1"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq_tol(only_group()->bytes[RL_MEM_L1], 1.234, 1e-12);
    /* A file that reads "1,234" as 1234 and then writes "117,47": which
     * one is wrong cannot be known, so it is said. */
    ck_assert_int_eq(parse(LONG_HEADER ROW("0", "k", "lts__t_bytes.sum", "byte", "1,234")
                               ROW("0", "k", "l1tex__t_bytes.sum", "byte", "117,47"),
                           NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 3, column 7 (Metric Value): l1tex__t_bytes.sum: "
                          "'117,47' has a decimal comma, but line 2's '1,234' was read with a "
                          "thousands separator: export with one locale (LC_ALL=C ncu ...)");
    static const char *const bad[] = {"1,2,3", "12abc", "0x10", "inf", "1e", "--", ","};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char csv[512];
        snprintf(csv, sizeof csv,
                 LONG_HEADER "\"0\",\"k\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"lts__t_bytes.sum\","
                             "\"byte\",\"%s\"\n",
                 bad[i]);
        ck_assert_msg(parse(csv, NAN) == RL_ESCHEMA, "'%s' was read", bad[i]);
        ck_assert_msg(strstr(err, "is not a number") || strstr(err, "decimal comma"), "%s", err);
    }
}
END_TEST

/* A GPU the groups already name (an earlier file, or the caller) is kept:
 * the file's one device does not replace it. "X" is one letter, so
 * gpu_name[0] = 'X' and gpu_name[1] = 0: the test is on the first byte. */
START_TEST(a_named_gpu_is_kept)
{
    rl_trace_groups_release(&g);
    snprintf(g.sum.gpu_name, sizeof g.sum.gpu_name, "X");
    const char *csv = "ID,Kernel Name,Device,gpu__time_duration.sum\n,,,ns\n0,a,NVIDIA H200,1\n";
    ck_assert_msg(rl_ncu_parse(&g, csv, strlen(csv), "k.csv", NAN, &st, err) == 0, "%s", err);
    ck_assert_uint_eq(st.n_devices, 1);
    ck_assert_str_eq(st.devices, "NVIDIA H200");
    ck_assert_str_eq(g.sum.gpu_name, "X");
}
END_TEST

/* Edges of the reader's small machinery, each with its expected value. */
START_TEST(reader_edges)
{
    /* A BOM right before the header (no ==PROF== line between): stripped,
     * so the header is found; 5 ns read. */
    ck_assert_msg(
        parse("\xEF\xBB\xBFID,Kernel Name,gpu__time_duration.sum\n,,ns\n0,k,5\n", NAN) == 0,
        "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 5);
    /* Values that say "absent" ("", "n/a", "-") add no time: the kernel
     * has bytes (8) and no FLOPs, a memory point with no timed launch. */
    static const char *const absent[] = {"", "n/a", "-"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        char csv[256];
        snprintf(csv, sizeof csv, "ID,Kernel Name,gpu__time_duration.sum,dram__bytes.sum\n"
                                  ",,ns,byte\n0,k,%s,8\n", absent[i]);
        ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
        const struct rl_trace_group *k = only_group();
        ck_assert_uint_eq(k->bytes_only, 1);
        ck_assert_msg(k->bytes_only_timed == 0, "'%s' read as a time", absent[i]);
        ck_assert_double_eq(k->time_ns, 0);
        ck_assert_double_eq(k->bytes_only_bytes[RL_MEM_DRAM], 8);
    }
    /* Two metric names whose FNV-1a hash ends in 1023 (the last slot of the
     * 1024-slot table, found by search: a__collide_577.sum and
     * a__collide_2465.sum): the second probes on from slot 1023 to slot 0
     * (wrapping), and the known metric after them is still read: 8 bytes. */
    const char *csv = LONG_HEADER
        ROW("0", "k", "a__collide_577.sum", "byte", "1")
        ROW("0", "k", "a__collide_2465.sum", "byte", "2")
        ROW("0", "k", "a__collide_2465.sum", "byte", "2")
        ROW("0", "k", "lts__t_bytes.sum", "byte", "8");
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    ck_assert_double_eq(only_group()->bytes_only_bytes[RL_MEM_L2], 8);
    /* The device list (255 characters and its NUL) takes a name that fills
     * it exactly: "NVIDIA H100" (11) + "; " (2) + 242 characters + NUL =
     * 256 bytes; a 243-character one would need 257, and is counted only. */
    for (int extra = 0; extra < 2; extra++) {
        char name[300], text[1024];
        memset(name, 'G', 242 + (size_t)extra);
        name[242 + extra] = 0;
        snprintf(text, sizeof text, "ID,Kernel Name,Device,gpu__time_duration.sum\n,,,ns\n"
                                    "0,a,NVIDIA H100,1\n1,b,%s,2\n", name);
        ck_assert_msg(parse(text, NAN) == 0, "%s", err);
        ck_assert_uint_eq(st.n_devices, 2);
        char want[320];
        snprintf(want, sizeof want, "NVIDIA H100; %s", name);
        ck_assert_str_eq(st.devices, extra ? "NVIDIA H100" : want);
    }
    /* A short row after a whole one: its missing column reads "" (absent),
     * not the whole row's 8 bytes: b has a time (7 ns) and no bytes. */
    ck_assert_msg(parse("ID,Kernel Name,gpu__time_duration.sum,dram__bytes.sum\n,,ns,byte\n"
                        "0,a,5,8\n1,b,7\n",
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 2);
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *k = &g.v[i];
        bool a = strcmp(k->name, "a") == 0;
        ck_assert_double_eq(k->time_ns, a ? 5 : 7);
        ck_assert_uint_eq(k->bytes_only, a ? 1 : 0);
    }
    /* The first name has no "; ": 255 characters + NUL = 256 bytes fit. */
    char name[300], text[1024];
    memset(name, 'G', 255);
    name[255] = 0;
    snprintf(text, sizeof text, "ID,Kernel Name,Device,gpu__time_duration.sum\n,,,ns\n0,a,%s,1\n",
             name);
    ck_assert_msg(parse(text, NAN) == 0, "%s", err);
    ck_assert_str_eq(st.devices, name);
}
END_TEST

START_TEST(what_real_files_hold)
{
    /* A BOM, text attribute columns (a device name), a units row, short
     * rows, string values, NERSC's smsp__ counters, a repeated header and
     * ==PROF== lines between rows. */
    const char *wide =
        "\xEF\xBB\xBF==PROF== Connected to process 7\n"
        "ID,Kernel Name,device__attribute_display_name,device__attribute_confidential_computing_mode,"
        "launch__func_cache_config,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
        "dram__bytes.sum,gpu__time_duration.sum\r\n"
        ",,,,,inst,Kbyte,us\r\n"
        "0,k,NVIDIA H200,No-CC,CachePreferNone,\"1,000\",2,3\r\n";
    ck_assert_msg(parse(wide, NAN) == 0, "%s", err);
    ck_assert_str_eq(st.form, "wide");
    ck_assert(st.units_row);
    ck_assert_str_eq(g.sum.gpu_name, "NVIDIA H200");
    ck_assert_double_eq(only_group()->flops, 2000);
    ck_assert_double_eq(only_group()->bytes[RL_MEM_DRAM], 2000);
    ck_assert_double_eq(only_group()->time_ns, 3000);
    /* Without a units row: base units, and said. */
    ck_assert_msg(parse("ID,Kernel Name,gpu__time_duration.sum,lts__t_bytes.sum\n0,k,7,8\n", NAN) ==
                      0,
                  "%s", err);
    ck_assert(!st.units_row);
    ck_assert_double_eq(only_group()->time_ns, 7);
    char notes[2048];
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "no units row"));
    /* Long form with rule columns: rows end early, rule rows are empty,
     * string-valued metrics are kept as text; both SASS forms at once count once. */
    const char *rules =
        "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"Section Name\",\"Metric Name\","
        "\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\"\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"NVIDIA A100-SXM4-80GB\",\"s\","
        "\"Function Cache Configuration\",\"\",\"cudaFuncCachePreferNone\"\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"NVIDIA A100-SXM4-80GB\",\"s\","
        "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"inst\",\"4\"\n"
        "==PROF== a line of the tool between rows\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"NVIDIA A100-SXM4-80GB\",\"s\","
        "\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"inst\",\"4\"\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"NVIDIA A100-SXM4-80GB\",\"s\",\"\",\"\",\"\","
        "\"IssueSlotUtilization\",\"WRN\",\"text, with a comma\"\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"NVIDIA A100-SXM4-80GB\",\"s\","
        "\"dram__bytes_op_read.sum\",\"byte\",\"8\"\n"
        "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"Section Name\",\"Metric Name\","
        "\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\"\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"NVIDIA A100-SXM4-80GB\",\"s\","
        "\"dram__bytes_op_write.sum\",\"byte\",\"8\"\n";
    ck_assert_msg(parse(rules, NAN) == 0, "%s", err);
    ck_assert_str_eq(st.form, "long");
    ck_assert_double_eq(only_group()->flops, 8); /* 2 x 4 FFMA, not 16 */
    ck_assert_double_eq(only_group()->bytes[RL_MEM_DRAM], 16);
    ck_assert_uint_eq(only_group()->grid[0], 2);
    ck_assert_str_eq(g.sum.gpu_name, "NVIDIA A100-SXM4-80GB");
    ck_assert_uint_eq(st.skipped_lines, 2);
    /* Several devices in one file: named, and none names the ceilings. */
    ck_assert_msg(parse("ID,Kernel Name,Device,gpu__time_duration.sum\n,,,ns\n0,a,NVIDIA H100,1\n"
                        "1,b,NVIDIA H200,2\n",
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.n_devices, 2);
    ck_assert_str_eq(st.devices, "NVIDIA H100; NVIDIA H200");
    ck_assert_str_eq(g.sum.gpu_name, "");
    rl_ncu_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "2 devices (NVIDIA H100; NVIDIA H200)"));
    /* A device index is not a name. */
    ck_assert_msg(parse("ID,Kernel Name,Device,gpu__time_duration.sum\n,,,ns\n0,a,0,1\n", NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.n_devices, 0);
    /* A number where a number must be in the wide form names its column. */
    ck_assert_int_eq(parse("ID,Kernel Name,device__attribute_display_name,lts__t_bytes.sum\n"
                           ",,,byte\n0,k,No-CC,n-a\n",
                           NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 3, column 4 (lts__t_bytes.sum): lts__t_bytes.sum: 'n-a' "
                          "is not a number");
}
END_TEST

START_TEST(streamed_alike)
{
    /* The stream reads what the text reads, across chunk edges: a file
     * larger than the reader's buffer, rows split anywhere. */
    size_t cap = 8u << 20, n = 0;
    char *csv = malloc(cap);
    ck_assert_ptr_nonnull(csv);
    n += (size_t)snprintf(csv + n, cap - n, "==PROF== x\n" LONG_HEADER);
    int id = 0;
    while (n + 4096 < cap / 2) {
        n += (size_t)snprintf(csv + n, cap - n,
                              "\"%d\",\"kernel \"\"%d\"\"\",\"(4, 1, 1)\",\"(256, 1, 1)\","
                              "\"" SASS("ffma") "\",\"inst\",\"1,000\"\r\n"
                              "\"%d\",\"kernel \"\"%d\"\"\",\"(4, 1, 1)\",\"(256, 1, 1)\","
                              "\"lts__t_bytes.sum\",\"Kbyte\",\"%d.5\"\n",
                              id, id % 7, id, id % 7, id);
        id++;
    }
    ck_assert_msg(parse(csv, NAN) == 0, "%s", err);
    size_t groups = g.n;
    double flops = 0, bytes = 0;
    for (size_t i = 0; i < g.n; i++)
        flops += g.v[i].flops, bytes += g.v[i].bytes[RL_MEM_L2];
    FILE *f = fmemopen(csv, n, "r");
    ck_assert_ptr_nonnull(f);
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_read(&g, f, "k.csv", NAN, &st, err) == 0, "%s", err);
    fclose(f);
    ck_assert_uint_eq(g.n, groups);
    ck_assert_uint_eq(st.kernels, (size_t)id);
    double f2 = 0, b2 = 0;
    for (size_t i = 0; i < g.n; i++)
        f2 += g.v[i].flops, b2 += g.v[i].bytes[RL_MEM_L2];
    ck_assert_double_eq(f2, flops);
    ck_assert_double_eq(b2, bytes);
    ck_assert_double_eq(flops, 2000.0 * id);
    /* One row longer than the buffer (a 3 MB name). */
    n = (size_t)snprintf(csv, cap, "ID,Kernel Name,gpu__time_duration.sum\n,,ns\n0,");
    memset(csv + n, 'n', 3u << 20);
    n += 3u << 20;
    n += (size_t)snprintf(csv + n, cap - n, ",4\n");
    f = fmemopen(csv, n, "r");
    rl_trace_groups_release(&g);
    ck_assert_msg(rl_ncu_read(&g, f, "k.csv", NAN, &st, err) == 0, "%s", err);
    fclose(f);
    ck_assert_uint_eq(strlen(only_group()->name), 3u << 20);
    ck_assert_double_eq(only_group()->time_ns, 4);
    /* Through buffers of 1 to 13 bytes: every row crosses an edge. */
    for (size_t chunk = 1; chunk <= 13; chunk += 4) {
        rl_ncu_set_chunk_bytes(chunk);
        size_t small = (size_t)snprintf(csv, cap,
                                        "\xEF\xBB\xBF==PROF== x\r\n" LONG_HEADER
                                        ROW("0", "a\"\"b", SASS("ffma"), "inst", "1,000")
                                        "==PROF== between\n"
                                        ROW("0", "a\"\"b", "lts__t_bytes.sum", "KB", "2")
                                        ROW("1", "c", "lts__t_bytes.sum", "byte", "5"));
        f = fmemopen(csv, small, "r");
        rl_trace_groups_release(&g);
        ck_assert_msg(rl_ncu_read(&g, f, "k.csv", NAN, &st, err) == 0, "chunk %zu: %s", chunk,
                      err);
        fclose(f);
        ck_assert_uint_eq(g.n, 2);
        ck_assert_str_eq(g.v[0].name, "a\"b");
        ck_assert_double_eq(g.v[0].flops, 2000);
        ck_assert_double_eq(g.v[0].bytes[RL_MEM_L2], 2000);
        ck_assert_uint_eq(st.skipped_lines, 1);
    }
    rl_ncu_set_chunk_bytes(0);
    free(csv);
}
END_TEST

/* The metrics an export lacks, for `ncu --metrics`: every missing one, in
 * the order of the counters (rl_q_defs), ','-joined, each by its first
 * name. */
START_TEST(missing_metrics_are_listed_in_full)
{
    /* FLOPs only (1000 FFMA, a time): all four byte counters are missing,
     * DRAM read and write, L2, L1. */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", SASS("ffma"), "inst", "1000")
                            ROW("0", "k", "gpu__time_duration.sum", "nsecond", "100"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.flops_only, 1);
    ck_assert_str_eq(st.missing_bytes,
                     "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,"
                     "l1tex__t_bytes.sum");
    ck_assert_str_eq(st.missing_flops, "");
    /* The DRAM total in the file (another kernel's row): DRAM read and
     * write are not missing, L2 and L1 still are. */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "a", SASS("ffma"), "inst", "1000")
                            ROW("0", "a", "dram__bytes.sum", "byte", "64")
                            ROW("1", "b", SASS("ffma"), "inst", "1000"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.flops_only, 1);
    ck_assert_str_eq(st.missing_bytes, "lts__t_bytes.sum,l1tex__t_bytes.sum");
    /* Bytes only (DRAM read and write): the nine CUDA-core FLOP counters,
     * dadd to hfma, are missing. */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "c", "dram__bytes_read.sum", "byte", "64")
                            ROW("0", "c", "dram__bytes_write.sum", "byte", "64"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.bytes_only, 1);
    ck_assert_str_eq(st.missing_flops, SASS("dadd") "," SASS("dmul") "," SASS("dfma") ","
                     SASS("fadd") "," SASS("fmul") "," SASS("ffma") "," SASS("hadd") ","
                     SASS("hmul") "," SASS("hfma"));
    ck_assert_str_eq(st.missing_bytes, "");
}
END_TEST

/* An old export gives the launch only as Launch Statistics rows (no Grid
 * Size or Block Size column): "Grid Size" is the number of blocks, "Block
 * Size" of threads, each read as (n, 1, 1) when 0 <= n < 2^32 (a uint32_t),
 * else left (0, 0, 0). */
#define OLD_HEADER "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
#define OLD_ROW(id, name, metric, value) \
    "\"" id "\",\"" name "\",\"" metric "\",\"\",\"" value "\"\n"
START_TEST(launch_statistics_rows)
{
    ck_assert_msg(parse(OLD_HEADER OLD_ROW("0", "a", "Grid Size", "4294967295")
                            OLD_ROW("0", "a", "Block Size", "4294967296")
                            OLD_ROW("0", "a", "gpu__time_duration.sum", "10")
                            OLD_ROW("1", "b", "Grid Size", "0")
                            OLD_ROW("1", "b", "Block Size", "-1")
                            OLD_ROW("1", "b", "gpu__time_duration.sum", "20"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 2);
    const struct rl_trace_group *a = strcmp(g.v[0].name, "a") == 0 ? &g.v[0] : &g.v[1];
    const struct rl_trace_group *b = a == &g.v[0] ? &g.v[1] : &g.v[0];
    ck_assert_str_eq(b->name, "b");
    /* 2^32 - 1 blocks fit; 2^32 threads do not */
    ck_assert_uint_eq(a->grid[0], 4294967295u);
    ck_assert_uint_eq(a->grid[1], 1);
    ck_assert_uint_eq(a->grid[2], 1);
    ck_assert_uint_eq(a->block[0], 0);
    ck_assert_uint_eq(a->block[1], 0);
    ck_assert_uint_eq(a->block[2], 0);
    /* 0 blocks is a count (0, 1, 1); -1 threads is none */
    ck_assert_uint_eq(b->grid[0], 0);
    ck_assert_uint_eq(b->grid[1], 1);
    ck_assert_uint_eq(b->grid[2], 1);
    ck_assert_uint_eq(b->block[0], 0);
    ck_assert_uint_eq(b->block[1], 0);
    ck_assert_double_eq(b->time_ns, 20);
    /* With the columns there, a "Grid Size" row is only a metric name */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "Grid Size", "", "7")
                            ROW("0", "k", "gpu__time_duration.sum", "nsecond", "10"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(only_group()->grid[0], 4); /* the column's (4, 1, 1) */
}
END_TEST

/* A file whose last row ends in an empty field at the end of the file (a
 * trailing ',' and no newline), read through buffers of 1 to 64 bytes: the
 * byte after the window is stale (an earlier row's bytes: quotes and 7s
 * here), and the empty field is empty, never a quoted "7" read past the
 * end. Two kernels, 4 + 5 = 9 ns, no bytes: timing only, none counted. */
START_TEST(empty_last_field_at_the_end_of_a_file)
{
    /* '""7' 16 times: 48 bytes of a quoted field, its text '"7' x 16 */
#define Q7 "\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7\"\"7"
    static const char csv[] = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"note\","
                              "\"lts__t_bytes.sum\"\n"
                              "\"0\",\"k\"\"\",\"4\",\"" Q7 Q7 Q7 "\",\"\"\n"
                              "\"1\",\"q\"\"\"\"\",\"5\",\"xy\",";
#undef Q7
    for (size_t chunk = 1; chunk <= 64; chunk++) {
        rl_ncu_set_chunk_bytes(chunk);
        FILE *f = fmemopen((void *)csv, sizeof csv - 1, "r");
        ck_assert_ptr_nonnull(f);
        rl_trace_groups_release(&g);
        int rc = rl_ncu_read(&g, f, "k.csv", NAN, &st, err);
        fclose(f);
        ck_assert_msg(rc == 0, "chunk %zu: %s", chunk, err);
        ck_assert_uint_eq(st.kernels, 2);
        ck_assert_uint_eq(st.timing_only, 2);
        ck_assert_uint_eq(g.n, 2);
        ck_assert_uint_eq(g.v[0].counted + g.v[1].counted, 0);
        ck_assert_double_eq(g.v[0].time_ns + g.v[1].time_ns, 9);
    }
    rl_ncu_set_chunk_bytes(0);
}
END_TEST

/* Lines skipped at the end of the input with no newline after them: text
 * before any header (no header then), and a ==PROF== line after the last
 * row (the kernel is read). */
START_TEST(last_line_without_a_newline)
{
    ck_assert_int_eq(parse("==PROF== connected", NAN), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "no Nsight Compute CSV header"));
    ck_assert_int_eq(parse("program output\n==PROF== done", NAN), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "no Nsight Compute CSV header"));
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "7")
                            "==PROF== Disconnected",
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq(only_group()->time_ns, 7);
    ck_assert_uint_eq(st.skipped_lines, 1);
    /* the shortest such line, "==" (two bytes), at the very end */
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum", "nsecond", "7") "==",
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.skipped_lines, 1);
    ck_assert_double_eq(only_group()->time_ns, 7);
}
END_TEST

/* A ==PROF== line right after the header, through every buffer of 1 to
 * 160 bytes (the header and the line are 113 bytes): at some sizes the
 * window holds 0 or 1 byte of "==" when the row loop looks, and the
 * reader must read on before deciding the line is not the tool's (else it
 * is taken for a 1-column row: "the row ends before 'Metric Value'"). One
 * kernel, 7 ns, one line skipped. */
START_TEST(tool_line_and_bom_at_every_buffer_edge)
{
    static const char csv[] = LONG_HEADER "==PROF== between\n"
        ROW("0", "k", "gpu__time_duration.sum", "nsecond", "7");
    for (size_t chunk = 1; chunk <= 160; chunk++) {
        rl_ncu_set_chunk_bytes(chunk);
        FILE *f = fmemopen((void *)csv, sizeof csv - 1, "r");
        ck_assert_ptr_nonnull(f);
        rl_trace_groups_release(&g);
        int rc = rl_ncu_read(&g, f, "k.csv", NAN, &st, err);
        fclose(f);
        ck_assert_msg(rc == 0, "chunk %zu: %s", chunk, err);
        ck_assert_uint_eq(st.skipped_lines, 1);
        ck_assert_double_eq(only_group()->time_ns, 7);
    }
    /* A BOM right before the header, through buffers of 1 to 8 bytes: the
     * reader reads 3 bytes before looking for it, even when the first
     * read gives 1 or 2. */
    static const char bom[] = "\xEF\xBB\xBF" LONG_HEADER
        ROW("0", "k", "gpu__time_duration.sum", "nsecond", "7");
    for (size_t chunk = 1; chunk <= 8; chunk++) {
        rl_ncu_set_chunk_bytes(chunk);
        FILE *f = fmemopen((void *)bom, sizeof bom - 1, "r");
        ck_assert_ptr_nonnull(f);
        rl_trace_groups_release(&g);
        int rc = rl_ncu_read(&g, f, "k.csv", NAN, &st, err);
        fclose(f);
        ck_assert_msg(rc == 0, "chunk %zu: %s", chunk, err);
        ck_assert_str_eq(only_group()->name, "k");
        ck_assert_double_eq(only_group()->time_ns, 7);
    }
    rl_ncu_set_chunk_bytes(0);
}
END_TEST

/* A stream that gives its text, then a read error (EIO). */
static ssize_t failing_read(void *cookie, char *buf, size_t size)
{
    const char **text = cookie;
    if (!**text) {
        errno = EIO;
        return -1;
    }
    size_t n = strlen(*text) < size ? strlen(*text) : size;
    memcpy(buf, *text, n);
    *text += n;
    return (ssize_t)n;
}

static int read_failing(const char *text)
{
    FILE *f = fopencookie(&text, "r", (cookie_io_functions_t){.read = failing_read});
    ck_assert_ptr_nonnull(f);
    rl_trace_groups_release(&g);
    err[0] = 0;
    int rc = rl_ncu_read(&g, f, "k.csv", NAN, &st, err);
    fclose(f);
    return rc;
}

/* A read error is one, said as such (not "out of memory"), wherever it
 * comes: before the header, after a whole row (the row loop's look for
 * a ==PROF== line), inside a row (the CSV parser). No kernel is kept. */
START_TEST(read_errors_anywhere)
{
    ck_assert_int_eq(read_failing("==PROF== connected\n\"ID\",\"Kern"), RL_EIO);
    ck_assert_str_eq(err, "cannot read 'k.csv': Input/output error");
    ck_assert_int_eq(read_failing(LONG_HEADER ROW("0", "k", "gpu__time_duration.sum",
                                                  "nsecond", "7")),
                     RL_EIO);
    ck_assert_str_eq(err, "cannot read 'k.csv': Input/output error");
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(read_failing(LONG_HEADER "\"0\",\"k\",\"(4, 1"), RL_EIO);
    ck_assert_str_eq(err, "cannot read 'k.csv': Input/output error");
    ck_assert_uint_eq(g.n, 0);
}
END_TEST

/* Spaces around units, numbers and device names are not part of them:
 * " usecond " is microseconds and "  2" is 2 (a: 2 us = 2000 ns), " Kbyte"
 * is 1000 bytes (a: 3 x 1000); a device name of spaces names none; the
 * third distinct name is compared with every one before it ("A100",
 * "H100", then H100 again: 2 devices, e's H100 found after "; "). */
START_TEST(spaces_around_units_numbers_and_devices)
{
    ck_assert_msg(parse("ID,Kernel Name,Device,gpu__time_duration.sum,lts__t_bytes.sum\n"
                        ",,, usecond ,  Kbyte\n"
                        "0,a,  NVIDIA A100,  2 ,  3\n"
                        "1,b,   ,1,1\n"
                        "2,c,NVIDIA H100,1,1\n"
                        "3,e,  NVIDIA H100,1,1\n",
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 4);
    ck_assert_str_eq(g.v[0].name, "a");
    ck_assert_double_eq(g.v[0].time_ns, 2000);
    ck_assert_double_eq(g.v[0].bytes_only_bytes[RL_MEM_L2], 3000); /* no FLOPs: bytes only */
    ck_assert_double_eq(g.v[1].time_ns, 1000);
    ck_assert_uint_eq(st.n_devices, 2);
    ck_assert_str_eq(st.devices, "NVIDIA A100; NVIDIA H100");
}
END_TEST

/* A long-form row that ends before its Metric Value (the last column
 * here: 4 fields of 5) is refused, not read as an empty value. */
START_TEST(row_ending_before_the_metric_value)
{
    ck_assert_int_eq(parse("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                           "\"0\",\"k\",\"gpu__time_duration.sum\",\"ns\"\n",
                           NAN),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'k.csv': line 2: 4 columns, the header has 5 (the row ends before "
                          "'Metric Value')");
}
END_TEST

/* A CR between a closing quote and the comma after it is skipped, as at
 * a row's end, wherever the reader's buffer ends (1 to 24 bytes): the row
 * keeps its three fields, 6 ns. */
START_TEST(cr_after_a_closing_quote_across_chunk_edges)
{
    static const char csv[] = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                              "\"0\"\r,\"k\"\r,\"6\"\r\n";
    for (size_t chunk = 1; chunk <= 24; chunk++) {
        rl_ncu_set_chunk_bytes(chunk);
        FILE *f = fmemopen((void *)csv, sizeof csv - 1, "r");
        ck_assert_ptr_nonnull(f);
        rl_trace_groups_release(&g);
        int rc = rl_ncu_read(&g, f, "k.csv", NAN, &st, err);
        fclose(f);
        ck_assert_msg(rc == 0, "chunk %zu: %s", chunk, err);
        ck_assert_str_eq(only_group()->name, "k");
        ck_assert_double_eq(only_group()->time_ns, 6);
    }
    rl_ncu_set_chunk_bytes(0);
}
END_TEST

/* An exponent after every mantissa form, and a trailing space: the
 * mantissa's separators are read as above, the exponent is appended once.
 *   "1,5e3": a decimal comma, 1.5e3 = 1500; "1,234e1": grouping, 1234e1 =
 *   12340; "1,234.5e1" and "1.234,5e1": 1234.5e1 = 12345; "7 ": 7; and in
 *   a file with decimal commas "1,234e1" is 1.234e1 = 12.34. */
START_TEST(numbers_with_exponents_and_spaces)
{
    static const struct {
        const char *value;
        double want;
    } ok[] = {{"1,5e3", 1500},      {"1,234e1", 12340}, {"1,234.5e1", 12345},
              {"1.234,5e1", 12345}, {"7 ", 7},          {"-2.5E2 ", -250}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char csv[512];
        snprintf(csv, sizeof csv,
                 LONG_HEADER "\"0\",\"k\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"lts__t_bytes.sum\","
                             "\"byte\",\"%s\"\n" ROW("0", "k", SASS("ffma"), "inst", "1"),
                 ok[i].value);
        ck_assert_msg(parse(csv, NAN) == 0, "%s: %s", ok[i].value, err);
        ck_assert_msg(only_group()->bytes[RL_MEM_L2] == ok[i].want, "%s: %.17g", ok[i].value,
                      only_group()->bytes[RL_MEM_L2]);
    }
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "lts__t_bytes.sum", "byte", "0,5")
                            ROW("0", "k", "l1tex__t_bytes.sum", "byte", "1,234e1")
                                ROW("0", "k", SASS("ffma"), "inst", "1"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_double_eq_tol(only_group()->bytes[RL_MEM_L1], 12.34, 1e-12);
}
END_TEST

/* A launch shape is three numbers: a fourth in "Grid Size" is not read
 * (into the block, here with no Block Size column). */
START_TEST(launch_shapes_are_three_numbers)
{
    ck_assert_msg(parse("\"ID\",\"Kernel Name\",\"Grid Size\",\"Metric Name\",\"Metric Unit\","
                        "\"Metric Value\"\n"
                        "\"0\",\"k\",\"(4, 2, 3, 7)\",\"gpu__time_duration.sum\",\"\",\"5\"\n",
                        NAN) == 0,
                  "%s", err);
    const struct rl_trace_group *k = only_group();
    ck_assert_uint_eq(k->grid[0], 4);
    ck_assert_uint_eq(k->grid[1], 2);
    ck_assert_uint_eq(k->grid[2], 3);
    ck_assert_uint_eq(k->block[0], 0);
    ck_assert_uint_eq(k->block[1], 0);
    ck_assert_uint_eq(k->block[2], 0);
}
END_TEST

/* A name that starts with a shape's digits has no type letter before them:
 * no shape (the name on the heap, as the reader holds names). */
START_TEST(a_name_starting_with_digits_gives_no_shape)
{
    char *name = strdup("16816gemm");
    ck_assert_ptr_nonnull(name);
    ck_assert(!rl_ncu_name_gives_mma_shape(name));
    free(name);
    name = strdup("h16816gemm");
    ck_assert_ptr_nonnull(name);
    ck_assert(rl_ncu_name_gives_mma_shape(name));
    free(name);
}
END_TEST

/* Time from cycles at its edges: a rate of 0 gives no time (never
 * cycles / 0 = inf); a duration of 0 is not compared (no relative
 * difference to 0); 5% off exactly is not "more than 5%": 1050 cycles at 1
 * cycle/ns = 1050 ns against 1000 ns is |1050 - 1000| / 1000 = 0.05 (the
 * same double as 0.05); 1051 is 5.1%, said. */
START_TEST(time_from_cycles_edges)
{
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "sm__cycles_elapsed.avg", "cycle", "3000")
                            ROW("0", "k", "sm__cycles_elapsed.avg.per_second", "cycle/nsecond",
                                "0"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.time_from_cycles, 0);
    ck_assert(!isinf(only_group()->time_ns));
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "sm__cycles_elapsed.avg", "cycle", "3000")
                            ROW("0", "k", "sm__cycles_elapsed.avg.per_second", "Ghz", "1.5")
                                ROW("0", "k", "gpu__time_duration.sum", "ns", "0"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.time_disagree, 0);
    ck_assert_uint_eq(st.time_from_cycles, 0);
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "sm__cycles_elapsed.avg", "cycle", "1050")
                            ROW("0", "k", "sm__cycles_elapsed.avg.per_second", "cycle/nsecond",
                                "1")
                                ROW("0", "k", "gpu__time_duration.sum", "ns", "1000"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.time_disagree, 0);
    ck_assert_double_eq(only_group()->time_ns, 1000);
    ck_assert_msg(parse(LONG_HEADER ROW("0", "k", "sm__cycles_elapsed.avg", "cycle", "1051")
                            ROW("0", "k", "sm__cycles_elapsed.avg.per_second", "cycle/nsecond",
                                "1")
                                ROW("0", "k", "gpu__time_duration.sum", "ns", "1000"),
                        NAN) == 0,
                  "%s", err);
    ck_assert_uint_eq(st.time_disagree, 1);
    ck_assert_double_eq_tol(st.time_disagree_max_pct, 5.1, 1e-9);
}
END_TEST

/* A quantity summed from two metrics reads those two only: FP8 ops as
 * fp8_dst_fp32 + fp8_dst_fp16 (its second candidate) = 1000 + 500 = 1500,
 * x 2 FLOP per op = 3000, whatever the export also holds of the third
 * candidate (fp4_fp6_fp8_dst_fp32, 7 ops here, without its partner). */
START_TEST(two_term_sums_read_two_terms)
{
    ck_assert_msg(parse(LONG_HEADER
                        ROW("0", "g", "sm__ops_path_tensor_src_fp8_dst_fp32.sum", "", "1000")
                        ROW("0", "g", "sm__ops_path_tensor_src_fp8_dst_fp16.sum", "", "500")
                        ROW("0", "g", "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum", "", "7")
                        ROW("0", "g", "dram__bytes.sum", "byte", "64"),
                        2) == 0,
                  "%s", err);
    ck_assert_double_eq(only_group()->flops, 3000);
    ck_assert_str_eq(only_group()->precision, "fp8");
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
    tcase_add_test(core, crlf_quoted_long_form);
    tcase_add_test(core, wide_form_units_row);
    tcase_add_test(core, values_and_units);
    tcase_add_test(core, tensor_counters_at_zero_and_one);
    tcase_add_test(core, kernel_names_and_ids);
    tcase_add_test(core, load_files);
    tcase_add_test(core, real_exports);
    tcase_add_test(core, real_export_features);
    tcase_add_test(core, forms_and_units);
    tcase_add_test(core, numbers_as_files_write_them);
    tcase_add_test(core, what_real_files_hold);
    tcase_add_test(core, streamed_alike);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, teardown);
    tcase_add_test(limits, crlf_in_unquoted_fields);
    tcase_add_test(limits, quoted_fields);
    tcase_add_test(limits, broken_csv_is_refused);
    tcase_add_test(limits, quoted_newlines_count_lines);
    tcase_add_test(limits, many_rows_and_columns);
    tcase_add_test(limits, no_header_no_kernel);
    tcase_add_test(limits, buffer_out_of_memory);
    tcase_add_test(limits, copies_out_of_memory);
    tcase_add_test(limits, rows_that_add_nothing);
    tcase_add_test(limits, a_named_gpu_is_kept);
    tcase_add_test(limits, reader_edges);
    tcase_add_test(limits, missing_metrics_are_listed_in_full);
    tcase_add_test(limits, launch_statistics_rows);
    tcase_add_test(limits, empty_last_field_at_the_end_of_a_file);
    tcase_add_test(limits, last_line_without_a_newline);
    tcase_add_test(limits, cr_after_a_closing_quote_across_chunk_edges);
    tcase_add_test(limits, numbers_with_exponents_and_spaces);
    tcase_add_test(limits, launch_shapes_are_three_numbers);
    tcase_add_test(limits, a_name_starting_with_digits_gives_no_shape);
    tcase_add_test(limits, time_from_cycles_edges);
    tcase_add_test(limits, row_ending_before_the_metric_value);
    tcase_add_test(limits, two_term_sums_read_two_terms);
    tcase_add_test(limits, tool_line_and_bom_at_every_buffer_edge);
    tcase_add_test(limits, read_errors_anywhere);
    tcase_add_test(limits, spaces_around_units_numbers_and_devices);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(ncu_suite()); }
