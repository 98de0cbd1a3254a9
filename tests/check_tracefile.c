/* check_tracefile.c - tests of the streaming trace reader: launches into groups, numbers, flags; the same kernels from every reader. */
#define _GNU_SOURCE
#include "test_util.h"

#include "error.h"
#include "ncu.h"
#include "records.h"
#include "tracefile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct rl_trace_groups g;
static char err[RL_ERRMSG_SIZE];

static void teardown(void) { rl_trace_groups_release(&g); }

/* Read a trace whose "kernels" array is `kernels`, after `head` fields. */
static int read_trace(const char *head, const char *kernels)
{
    rl_trace_groups_release(&g);
    char text[8192];
    snprintf(text, sizeof text, "{\"format\": \"roofline-trace\",%s\n\"kernels\": [%s]}", head,
             kernels);
    FILE *f = fmemopen(text, strlen(text), "r");
    err[0] = 0;
    int rc = rl_trace_groups_read(&g, f, "t.json", err);
    fclose(f);
    return rc;
}

static const struct rl_trace_group *group(const char *name)
{
    for (size_t i = 0; i < g.n; i++)
        if (strcmp(g.v[i].name, name) == 0)
            return &g.v[i];
    ck_abort_msg("no group '%s'", name);
    return NULL;
}

/* ---- grouping ---------------------------------------------------------------- */

START_TEST(launches_fold_into_groups)
{
    /* gemv twice (counted), gemv once timing only, gemv on another grid. */
    ck_assert_msg(read_trace("",
                             "{\"name\": \"gemv\", \"grid\": [4, 1, 1], \"block\": [256, 1, 1],"
                             " \"flops\": 100, \"dram_bytes\": 50, \"l2_bytes\": 70,"
                             " \"time_ns\": 10, \"precision\": \"bf16\"},"
                             "{\"name\": \"gemv\", \"grid\": [4, 1, 1], \"block\": [256, 1, 1],"
                             " \"flops\": 300, \"dram_bytes\": 150, \"l2_bytes\": 30,"
                             " \"time_ns\": 30, \"precision\": \"bf16\"},"
                             "{\"name\": \"gemv\", \"grid\": [4, 1, 1], \"block\": [256, 1, 1],"
                             " \"flops\": null, \"time_ns\": 5},"
                             "{\"name\": \"gemv\", \"grid\": [4, 1, 2], \"block\": [256, 1, 1],"
                             " \"flops\": 1, \"dram_bytes\": 1}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 2);
    const struct rl_trace_group *v = &g.v[0];
    ck_assert_uint_eq(v->grid[2], 1);
    /* 3 launches, 2 counted: 100 + 300 FLOPs, 50 + 150 and 70 + 30 bytes,
     * 10 + 30 + 5 ns in all, 10 + 30 ns counted. */
    ck_assert_uint_eq(v->launches, 3);
    ck_assert_uint_eq(v->counted, 2);
    ck_assert_uint_eq(v->counted_timed, 2);
    ck_assert_double_eq(v->flops, 400);
    ck_assert_double_eq(v->bytes[RL_MEM_DRAM], 200);
    ck_assert_double_eq(v->bytes[RL_MEM_L2], 100);
    ck_assert(isnan(v->bytes[RL_MEM_L1])); /* no launch measured L1 */
    ck_assert_double_eq(v->time_ns, 45);
    ck_assert_double_eq(v->counted_time_ns, 40);
    ck_assert_str_eq(v->precision, "bf16");
    ck_assert_uint_eq(g.v[1].grid[2], 2);
    ck_assert_uint_eq(g.v[1].launches, 1);
    ck_assert_uint_eq(g.sum.kernels, 4);
    ck_assert_double_eq(g.sum.time_ns, 45);
}
END_TEST

START_TEST(first_counted_launch_gives_the_precision)
{
    /* A timing-only launch first (its precision is not a counted one's),
     * then fp32, then bf16: the group is fp32, and analytic from the first
     * counted launch. */
    ck_assert_msg(read_trace("", "{\"name\": \"k\", \"time_ns\": 1, \"precision\": \"fp8\"},"
                                 "{\"name\": \"k\", \"flops\": 1, \"dram_bytes\": 1,"
                                 " \"precision\": \"fp32\", \"origin\": \"analytic\"},"
                                 "{\"name\": \"k\", \"flops\": 1, \"dram_bytes\": 1,"
                                 " \"precision\": \"bf16\", \"origin\": \"measured\"}") == 0,
                  "%s", err);
    ck_assert_str_eq(group("k")->precision, "fp32");
    ck_assert_int_eq(group("k")->origin, RL_ORIGIN_ANALYTIC);
    ck_assert_uint_eq(group("k")->counted, 2);
    ck_assert_uint_eq(group("k")->counted_timed, 0);
}
END_TEST

START_TEST(flops_without_bytes_are_timing_only)
{
    /* FLOPs but no byte count at any level: cannot be placed, so neither its
     * FLOPs nor its precision are kept. */
    ck_assert_msg(read_trace("", "{\"name\": \"k\", \"flops\": 100, \"time_ns\": 9,"
                                 " \"precision\": \"bf16\"},"
                                 "{\"name\": \"k\", \"flops\": 7, \"l1_bytes\": 1, \"time_ns\": 1,"
                                 " \"precision\": \"fp32\"}") == 0,
                  "%s", err);
    const struct rl_trace_group *k = group("k");
    ck_assert_uint_eq(k->launches, 2);
    ck_assert_uint_eq(k->counted, 1);
    ck_assert_double_eq(k->flops, 7);
    ck_assert_str_eq(k->precision, "fp32");
    ck_assert_double_eq(k->time_ns, 10);
    ck_assert_double_eq(k->counted_time_ns, 1);
}
END_TEST

/* ---- the document ------------------------------------------------------------ */

START_TEST(summary_fields)
{
    ck_assert_msg(read_trace("\"gpu\": {\"name\": \"NVIDIA H200\", \"chip\": \"GH100\","
                             " \"sm_count\": 132, \"uuid\": \"x\"},"
                             "\"counters\": {\"status\": \"off\", \"reason\": \"no access\","
                             " \"tensor_not_counted\": [\"fp16\", \"tf32\", \"int8\"]},"
                             "\"incomplete\": false, \"extra\": {\"a\": [1, 2, {\"b\": null}]},",
                             "") == 0,
                  "%s", err);
    ck_assert_str_eq(g.sum.gpu_name, "NVIDIA H200");
    ck_assert_str_eq(g.sum.chip, "GH100");
    ck_assert_int_eq(g.sum.sm_count, 132);
    ck_assert_str_eq(g.sum.counters_status, "off");
    ck_assert_str_eq(g.sum.counters_reason, "no access");
    ck_assert_str_eq(g.sum.tensor_not_counted, "fp16, tf32, int8");
    ck_assert(!g.sum.incomplete);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_msg(read_trace("\"incomplete\": true,", "") == 0, "%s", err);
    ck_assert(g.sum.incomplete);
    /* Absent: complete. */
    ck_assert_msg(read_trace("", "") == 0, "%s", err);
    ck_assert(!g.sum.incomplete);
    /* A negative or absurd SM count is unknown (0). */
    ck_assert_msg(read_trace("\"gpu\": {\"sm_count\": -4},", "") == 0, "%s", err);
    ck_assert_int_eq(g.sum.sm_count, 0);
}
END_TEST

START_TEST(numbers)
{
    /* Integers, exponents, fractions and integers past 15 digits. */
    ck_assert_msg(read_trace("", "{\"name\": \"a\", \"flops\": 1e3, \"dram_bytes\": 2.5,"
                                 " \"time_ns\": 1234567890123456789},"
                                 "{\"name\": \"b\", \"flops\": 0, \"dram_bytes\": 0,"
                                 " \"l2_bytes\": 123456789012345, \"time_ns\": 0.5E+1}") == 0,
                  "%s", err);
    ck_assert_double_eq(group("a")->flops, 1000);
    ck_assert_double_eq(group("a")->bytes[RL_MEM_DRAM], 2.5);
    ck_assert_double_eq(group("a")->time_ns, 1234567890123456789.0);
    ck_assert_double_eq(group("b")->flops, 0);
    ck_assert_uint_eq(group("b")->counted, 1);
    ck_assert_double_eq(group("b")->bytes[RL_MEM_L2], 123456789012345.0);
    ck_assert_double_eq(group("b")->time_ns, 5);
}
END_TEST

START_TEST(negative_numbers_are_refused)
{
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"flops\": -5, \"dram_bytes\": 1}"),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: 'flops' must be >= 0");
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"time_ns\": -1}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: 'time_ns' must be >= 0");
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"dram_bytes\": -0.5}"), RL_ESCHEMA);
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"grid\": [1, -2, 1]}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: 'grid' holds a bad dimension");
    /* A minus sign alone is no number. */
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"flops\": -}"), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 2: malformed number '-'");
}
END_TEST

START_TEST(bad_fields_are_refused)
{
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"grid\": [1, 2]}"), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 2: expected ','");
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"block\": 3}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: 'block' must be an array of 3 numbers");
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"precision\": 3}"), RL_ESCHEMA);
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"origin\": \"guessed\"}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: 'origin' must be \"measured\" or \"analytic\"");
    ck_assert_int_eq(read_trace("", "{\"name\": 1}"), RL_ESCHEMA);
    ck_assert_int_eq(read_trace("", "3"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: kernels[0] must be an object");
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\"} {\"name\": \"k\"}"), RL_EPARSE);
}
END_TEST

START_TEST(added_launches)
{
    /* Other readers add launches in bulk: 0 launches counts as 1. */
    const uint32_t grid[3] = {2, 3, 4};
    const double bytes[RL_MEM_COUNT] = {10, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "k", grid, NULL, "fp32", RL_ORIGIN_MEASURED, 0, 5,
                                         bytes, 8),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "k", grid, NULL, "bf16", RL_ORIGIN_MEASURED, 3, 15,
                                         bytes, NAN),
                     0);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_uint_eq(g.v[0].launches, 4);
    ck_assert_uint_eq(g.v[0].counted, 4);
    ck_assert_uint_eq(g.v[0].counted_timed, 1);
    ck_assert_double_eq(g.v[0].flops, 20);
    ck_assert_double_eq(g.v[0].bytes[RL_MEM_DRAM], 20);
    ck_assert_str_eq(g.v[0].precision, "fp32");
    ck_assert_uint_eq(g.v[0].block[0], 0);
    ck_assert_uint_eq(g.sum.kernels, 4);
    ck_assert_double_eq(g.sum.time_ns, 8);
    /* Many groups: the hash table grows and finds every one again. */
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof name, "k%d", i);
        ck_assert_int_eq(rl_trace_groups_add(&g, name, grid, grid, "", RL_ORIGIN_MEASURED, 1,
                                             NAN, bytes, 1),
                         0);
        ck_assert_int_eq(rl_trace_groups_add(&g, name, grid, grid, "", RL_ORIGIN_MEASURED, 1,
                                             NAN, bytes, 1),
                         0);
    }
    ck_assert_uint_eq(g.n, 3001);
    ck_assert_uint_eq(g.v[3000].launches, 2);
}
END_TEST

START_TEST(sniff)
{
    const char *head = "{\n \"schema_version\": 1,\n \"format\": \"roofline-trace\"";
    ck_assert(rl_trace_sniff(head, strlen(head)));
    ck_assert(!rl_trace_sniff("[{\"name\": \"k\"}]", 15));
    ck_assert(!rl_trace_sniff("\"roofline-trace\"", 10)); /* past len */
}
END_TEST

/* ---- one set of kernels, three readers ---------------------------------------- */

/* Groups as report sees them, without the fields a source may not carry. */
static void same_groups(const struct rl_trace_groups *a, const struct rl_trace_groups *b,
                        const char *what)
{
    ck_assert_msg(a->n == b->n, "%s: %zu groups for %zu", what, b->n, a->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct rl_trace_group *x = &a->v[i], *y = &b->v[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_msg(x->launches == y->launches && x->counted == y->counted, "%s: %s", what,
                      x->name);
        ck_assert_str_eq(x->precision, y->precision);
        ck_assert_msg(x->flops == y->flops, "%s: %s: %g FLOPs for %g", what, x->name, y->flops,
                      x->flops);
        for (int m = 0; m < RL_MEM_COUNT; m++)
            ck_assert_msg(x->bytes[m] == y->bytes[m] || (isnan(x->bytes[m]) && isnan(y->bytes[m])),
                          "%s: %s level %d", what, x->name, m);
        ck_assert_msg(x->time_ns == y->time_ns && x->counted_time_ns == y->counted_time_ns,
                      "%s: %s time", what, x->name);
    }
}

START_TEST(three_readers_agree)
{
    /* Two launches of an FP32 axpy (500 FFMA = 1000 FLOPs, 4000 + 0 DRAM
     * bytes, 100 and 300 ns each) and one of a timing-only copy (50 ns). */
    ck_assert_msg(read_trace("", "{\"name\": \"axpy\", \"flops\": 1000, \"dram_bytes\": 4000,"
                                 " \"time_ns\": 100, \"precision\": \"fp32\"},"
                                 "{\"name\": \"axpy\", \"flops\": 1000, \"dram_bytes\": 4000,"
                                 " \"time_ns\": 300, \"precision\": \"fp32\"},"
                                 "{\"name\": \"copy\", \"time_ns\": 50}") == 0,
                  "%s", err);
    struct rl_trace_groups trace = g;
    memset(&g, 0, sizeof g);

    /* The kernels file: one record of two launches (sums), as `roofline
     * report --kernels` adds it; timing-only kernels cannot be written. */
    const char *kernels = "[{\"name\": \"axpy\", \"flops\": 2000, \"dram_bytes\": 8000,"
                          " \"time_ns\": 400, \"count\": 2, \"precision\": \"fp32\"}]";
    struct rl_record_list l = {0};
    ck_assert_msg(rl_records_parse(&l, kernels, strlen(kernels), "k.json", err) == 0, "%s", err);
    struct rl_trace_groups file = {0};
    for (size_t i = 0; i < l.n; i++)
        ck_assert_int_eq(rl_trace_groups_add(&file, l.v[i].name, NULL, NULL, l.v[i].precision,
                                             l.v[i].origin, l.v[i].count, l.v[i].perf.flops,
                                             l.v[i].perf.bytes, l.v[i].perf.time_ns),
                         0);
    rl_record_list_release(&l);

    const char *csv =
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"axpy\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"inst\",\"500\"\n"
        "\"0\",\"axpy\",\"dram__bytes_read.sum\",\"Kbyte\",\"4\"\n"
        "\"0\",\"axpy\",\"dram__bytes_write.sum\",\"byte\",\"0\"\n"
        "\"0\",\"axpy\",\"gpu__time_duration.sum\",\"nsecond\",\"100\"\n"
        "\"1\",\"axpy\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"inst\",\"500\"\n"
        "\"1\",\"axpy\",\"dram__bytes_read.sum\",\"Kbyte\",\"4\"\n"
        "\"1\",\"axpy\",\"dram__bytes_write.sum\",\"byte\",\"0\"\n"
        "\"1\",\"axpy\",\"gpu__time_duration.sum\",\"usecond\",\"0.3\"\n"
        "\"2\",\"copy\",\"gpu__time_duration.sum\",\"nsecond\",\"50\"\n";
    struct rl_trace_groups ncu = {0};
    ck_assert_msg(rl_ncu_parse(&ncu, csv, strlen(csv), "k.csv", NAN, NULL, err) == 0, "%s",
                  err);

    same_groups(&trace, &ncu, "ncu");
    /* The kernels file has only the counted kernel. */
    ck_assert_uint_eq(file.n, 1);
    struct rl_trace_groups counted = trace;
    counted.n = 1;
    same_groups(&counted, &file, "kernels file");
    ck_assert_double_eq(trace.v[0].flops, 2000);
    ck_assert_double_eq(trace.v[0].bytes[RL_MEM_DRAM], 8000);
    rl_trace_groups_release(&trace);
    rl_trace_groups_release(&file);
    rl_trace_groups_release(&ncu);
}
END_TEST

static Suite *tracefile_suite(void)
{
    Suite *s = suite_create("tracefile");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, NULL, teardown);
    tcase_add_test(core, launches_fold_into_groups);
    tcase_add_test(core, first_counted_launch_gives_the_precision);
    tcase_add_test(core, summary_fields);
    tcase_add_test(core, numbers);
    tcase_add_test(core, added_launches);
    tcase_add_test(core, sniff);
    tcase_add_test(core, three_readers_agree);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, teardown);
    tcase_add_test(limits, flops_without_bytes_are_timing_only);
    tcase_add_test(limits, negative_numbers_are_refused);
    tcase_add_test(limits, bad_fields_are_refused);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(tracefile_suite()); }
