/* check_tracefile.c - tests of the streaming trace reader: launches into groups, numbers, flags; the same kernels from every reader. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/readers/ncu.h"
#include "analyzer/readers/records.h"
#include "analyzer/readers/tracefile.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

START_TEST(flops_without_bytes_are_kept_apart)
{
    /* FLOPs but no byte count at any level: no intensity, but the FLOPs
     * are counted all the same, apart from the launches with bytes (a
     * compute point when the group has no counted launch); the counted
     * launch names the precision. */
    ck_assert_msg(read_trace("", "{\"name\": \"k\", \"flops\": 100, \"time_ns\": 9,"
                                 " \"precision\": \"bf16\"},"
                                 "{\"name\": \"k\", \"flops\": 7, \"l1_bytes\": 1, \"time_ns\": 1,"
                                 " \"precision\": \"fp32\"},"
                                 "{\"name\": \"f\", \"flops\": 64, \"precision\": \"fp64\"},"
                                 "{\"name\": \"f\", \"flops\": 36, \"time_ns\": 5,"
                                 " \"precision\": \"fp32\"}") == 0,
                  "%s", err);
    const struct rl_trace_group *k = group("k");
    ck_assert_uint_eq(k->launches, 2);
    ck_assert_uint_eq(k->counted, 1);
    ck_assert_double_eq(k->flops, 7);
    ck_assert_str_eq(k->precision, "fp32");
    ck_assert_double_eq(k->time_ns, 10);
    ck_assert_double_eq(k->counted_time_ns, 1);
    ck_assert_uint_eq(k->flops_only, 1);
    ck_assert_double_eq(k->flops_only_flops, 100);
    const struct rl_trace_group *f = group("f");
    ck_assert_uint_eq(f->counted, 0);
    ck_assert_uint_eq(f->flops_only, 2);
    ck_assert_uint_eq(f->flops_only_timed, 1);
    ck_assert_double_eq(f->flops_only_flops, 100);
    ck_assert_double_eq(f->flops_only_time_ns, 5);
    ck_assert_str_eq(f->precision, "fp64");
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

/* ---- the tokenizer, from files ------------------------------------------------ */

#define CHUNK_BYTES (1u << 20) /* the reader's buffer (tracefile.c BUF_BYTES) */

/* Write len bytes to a temporary file and read it as "t.json". */
static int read_bytes(const char *text, size_t len)
{
    rl_trace_groups_release(&g);
    char path[512];
    snprintf(path, sizeof path, "%s/t.json", rl_test_tmpdir());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    err[0] = 0;
    int rc = rl_trace_groups_read(&g, f, "t.json", err);
    fclose(f);
    return rc;
}

static int read_doc(const char *text) { return read_bytes(text, strlen(text)); }

/* The document must be refused with code and exactly msg, and leave no
 * group behind (the malformed launch is not added). */
#define refused(text, code, msg)                                                            \
    do {                                                                                    \
        ck_assert_int_eq(read_doc(text), code);                                             \
        ck_assert_str_eq(err, msg);                                                         \
        ck_assert_uint_eq(g.n, 0);                                                          \
    } while (0)

#define HEAD "{\"format\": \"roofline-trace\", \"kernels\": ["

/* A trace of one kernel whose name is the JSON string literal lit. */
static const char *one_name(const char *lit)
{
    static char text[4096];
    snprintf(text, sizeof text, HEAD "{\"name\": %s, \"flops\": 1, \"dram_bytes\": 1}]}", lit);
    ck_assert_msg(read_doc(text) == 0, "%s: %s", lit, err);
    ck_assert_uint_eq(g.n, 1);
    return g.v[0].name;
}

START_TEST(string_escapes)
{
    ck_assert_str_eq(one_name("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\""),
                     "a\"b\\c/d\be\ff\ng\rh\ti");
    /* UTF-8 lengths at each boundary: 1 byte to U+007F, 2 to U+07FF, 3 to
     * U+FFFF, 4 from a surrogate pair. */
    ck_assert_str_eq(one_name("\"\\u0041\\u007f\""), "A\x7f");
    ck_assert_str_eq(one_name("\"\\u0080\""), "\xc2\x80");
    ck_assert_str_eq(one_name("\"\\u00e9\\u00FF\""), "\xc3\xa9\xc3\xbf");
    ck_assert_str_eq(one_name("\"\\u07FF\""), "\xdf\xbf");
    ck_assert_str_eq(one_name("\"\\u0800\""), "\xe0\xa0\x80");
    ck_assert_str_eq(one_name("\"\\uabcd\\uABCD\""), "\xea\xaf\x8d\xea\xaf\x8d");
    ck_assert_str_eq(one_name("\"\\uffff\""), "\xef\xbf\xbf");
    /* A low surrogate alone is not a pair: encoded as it is. */
    ck_assert_str_eq(one_name("\"\\uDC00\""), "\xed\xb0\x80");
}
END_TEST

START_TEST(surrogate_pairs)
{
    /* U+1F600 = D83D DE00; U+10000 = D800 DC00; U+10FFFF = DBFF DFFF. */
    ck_assert_str_eq(one_name("\"x\\uD83D\\uDE00y\""), "x\xf0\x9f\x98\x80y");
    ck_assert_str_eq(one_name("\"\\ud800\\udc00\""), "\xf0\x90\x80\x80");
    ck_assert_str_eq(one_name("\"\\uDBFF\\uDFFF\""), "\xf4\x8f\xbf\xbf");
    ck_assert_str_eq(one_name("\"\\uD800\\uDFFF\""), "\xf0\x90\x8f\xbf");
}
END_TEST

START_TEST(string_errors)
{
    refused(HEAD "{\"name\": \"a\\xb\"}]}", RL_EPARSE, "'t.json': line 1: bad escape in a string");
    refused(HEAD "{\"name\": \"\\u12G4\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed \\u escape in a string");
    /* The error leaves the rest unread: "\u12G}" must not end the record. */
    refused(HEAD "{\"name\": \"\\u12G}]}", RL_EPARSE,
            "'t.json': line 1: malformed \\u escape in a string");
    refused(HEAD "{\"name\": \"\\u12\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed \\u escape in a string");
    refused(HEAD "{\"name\": \"\\uD800x\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed surrogate pair in a string");
    refused(HEAD "{\"name\": \"\\uD800\\n\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed surrogate pair in a string");
    refused(HEAD "{\"name\": \"\\uD800\\u0041\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed surrogate pair in a string");
    refused(HEAD "{\"name\": \"\\uDBFF\\uDBFF\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed surrogate pair in a string");
    refused(HEAD "{\"name\": \"\\uD800\\uE000\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed surrogate pair in a string");
    refused(HEAD "{\"name\": \"\\uD800\\uDC0x\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed \\u escape in a string");
    refused(HEAD "{\"name\": \"a\tb\"}]}", RL_EPARSE,
            "'t.json': line 1: control character in a string");
    refused(HEAD "{\"name\": \"a\nb\"}]}", RL_EPARSE,
            "'t.json': line 1: control character in a string");
    refused(HEAD "{\"name\": \"a\\", RL_EPARSE, "'t.json': line 1: bad escape in a string");
    refused(HEAD "{\"name\": \"abc", RL_EPARSE, "'t.json': line 1: truncated: a string never ends");
    refused(HEAD "\n{\"name\": \"", RL_EPARSE, "'t.json': line 2: truncated: a string never ends");
    /* A NUL byte in a string is a control character, first or later. */
    static const char nul_first[] = HEAD "{\"name\": \"\0\"}]}";
    ck_assert_int_eq(read_bytes(nul_first, sizeof nul_first - 1), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: control character in a string");
    static const char nul_after_escape[] = HEAD "{\"name\": \"\\n\0\"}]}";
    ck_assert_int_eq(read_bytes(nul_after_escape, sizeof nul_after_escape - 1), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: control character in a string");
}
END_TEST

START_TEST(long_strings)
{
    /* Strings past every capacity the decoder doubles through, with escapes
     * on the way; names are kept whole, precisions to 23 bytes. */
    enum { LEN = 5000 };
    static char text[LEN * 2 + 512], want[LEN + 1];
    char *p = text + sprintf(text, HEAD "{\"name\": \"");
    for (int i = 0; i < LEN; i++) {
        if (i % 100 == 99)
            p += sprintf(p, "\\u0041"), want[i] = 'A';
        else
            *p++ = (char)('a' + i % 26), want[i] = (char)('a' + i % 26);
    }
    sprintf(p, "\", \"origin\": \"analytic\", \"precision\": \"abcdefghijklmnopqrstuvwxyz0123\","
               " \"flops\": 1, \"dram_bytes\": 1}]}");
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    ck_assert_uint_eq(strlen(g.v[0].name), LEN);
    ck_assert(strcmp(g.v[0].name, want) == 0);
    ck_assert_str_eq(g.v[0].precision, "abcdefghijklmnopqrstuvw");
    ck_assert_int_eq(g.v[0].origin, RL_ORIGIN_ANALYTIC);
    /* Exactly 23 and 24 bytes of precision, after the origin. */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"k\", \"origin\": \"analytic\","
                                " \"precision\": \"abcdefghijklmnopqrstuvwx\","
                                " \"flops\": 1, \"dram_bytes\": 1},"
                                "{\"name\": \"j\", \"origin\": \"analytic\","
                                " \"precision\": \"abcdefghijklmnopqrstuvw\","
                                " \"flops\": 1, \"dram_bytes\": 1}]}") == 0,
                  "%s", err);
    ck_assert_str_eq(group("k")->precision, "abcdefghijklmnopqrstuvw");
    ck_assert_int_eq(group("k")->origin, RL_ORIGIN_ANALYTIC);
    ck_assert_str_eq(group("j")->precision, "abcdefghijklmnopqrstuvw");
    ck_assert_int_eq(group("j")->origin, RL_ORIGIN_ANALYTIC);
    /* Two names alike in their first 1100 bytes are two kernels: group
     * identity is the whole name (templated C++ names run past 1 KB). */
    p = text + sprintf(text, HEAD);
    for (int k = 0; k < 2; k++) {
        p += sprintf(p, "%s{\"name\": \"", k ? "," : "");
        memset(p, 'n', 1100);
        p += 1100;
        p += sprintf(p, "%c\"}", 'x' + k);
    }
    sprintf(p, "]}");
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_uint_eq(strlen(g.v[0].name), 1101);
    ck_assert_uint_eq(strlen(g.v[1].name), 1101);
    ck_assert_uint_eq(g.v[0].launches, 1);
    ck_assert_uint_eq(g.v[1].launches, 1);
    ck_assert(g.v[0].name[1100] != g.v[1].name[1100]);
}
END_TEST

START_TEST(fast_and_general_paths_agree)
{
    /* The reader's fast path and its general path read every record alike:
     * escaped keys and names, duplicates, nulls, nested and unknown values,
     * exponents, records split over lines, and errors word for word. */
    static const char *const docs[] = {
        HEAD "{\"name\": \"k\", \"grid\": [2, 1, 1], \"block\": [64, 1, 1], \"flops\": 1e3,"
             " \"dram_bytes\": 2.5E2, \"l2_bytes\": null, \"time_ns\": 7, \"precision\": \"bf16\","
             " \"counts\": \"sampled\", \"origin\": \"analytic\", \"x\": {\"a\": [1, -2.5e-3, true,"
             " false, null, \"s\\\"q\"], \"b\": {}}, \"y\": []}]}",
        HEAD "{\"n\\u0061me\": \"k\\tq\", \"flops\": 1, \"dram_bytes\": 1}]}",
        HEAD "{\"name\": \"a\", \"name\": \"b\", \"flops\": 1, \"flops\": 2, \"l1_bytes\": 3}]}",
        HEAD "{\"name\": \"k\",\n \"flops\":\n 4,\r\n \"dram_bytes\": 8\n}, {\"name\": \"j\"}]}",
        HEAD "{\"name\": \"k\", \"x\": [1 2]}]}",
        HEAD "{\"name\": \"k\", \"flops\": -1}]}",
        HEAD "{\"name\": \"k\", \"grid\": [1, 2]}]}",
        HEAD "{\"name\": \"k\", \"grid\": [1.5, 2, 3]}]}",
        HEAD "{\"name\": \"k\", \"origin\": \"guessed\"}]}",
        HEAD "{\"name\": \"k\", \"flops\": 01}]}",
        HEAD "{\"name\": \"k\", \"x\": tru}]}",
        HEAD "{\"name\": \"k\", \"x\": {\"a\" 1}}]}",
        HEAD "{\"name\": \"k\", \"x\": \"\\u00e9\"}, {}]}",
        HEAD "{\"flops\": 1}]}",
        HEAD "{\"name\": \"k\", \"flops\": 123456789012345, \"dram_bytes\": 1.5e3, \"x\": [0, -0.5, 1E+2, "
             "12345678901234567890], \"time_ns\": 0.25}]}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char e[2][RL_ERRMSG_SIZE];
        int rc[2];
        size_t n[2];
        char names[2][256];
        double flops[2], l1[2];
        for (int fast = 0; fast < 2; fast++) {
            rl_trace_set_fast_path(fast);
            rc[fast] = read_doc(docs[i]);
            snprintf(e[fast], sizeof e[fast], "%s", rc[fast] ? err : "");
            n[fast] = g.n;
            snprintf(names[fast], sizeof names[fast], "%s", g.n ? g.v[0].name : "");
            flops[fast] = g.n ? g.v[0].flops : -1;
            l1[fast] = g.n ? g.v[0].bytes[RL_MEM_L1] : -1;
        }
        rl_trace_set_fast_path(true);
        ck_assert_msg(rc[0] == rc[1], "doc %zu: %d vs %d", i, rc[0], rc[1]);
        ck_assert_str_eq(e[0], e[1]);
        ck_assert_uint_eq(n[0], n[1]);
        ck_assert_str_eq(names[0], names[1]);
        ck_assert(flops[0] == flops[1] || (isnan(flops[0]) && isnan(flops[1])));
        ck_assert(l1[0] == l1[1] || (isnan(l1[0]) && isnan(l1[1])));
    }
    /* A short name after a long one, both paths: whole, nothing of the
     * longer left behind in the buffer the reader reuses. */
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        ck_assert_msg(read_doc(HEAD "{\"name\": \"a_long_kernel_name\", \"flops\": 1, "
                                    "\"dram_bytes\": 1}, {\"name\": \"ab\", \"flops\": 1, "
                                    "\"dram_bytes\": 1}]}") == 0,
                      "%s", err);
        rl_trace_set_fast_path(true);
        ck_assert_uint_eq(g.n, 2);
        bool short_seen = false;
        for (size_t k = 0; k < g.n; k++)
            short_seen |= strcmp(g.v[k].name, "ab") == 0;
        ck_assert_msg(short_seen, "fast %d: %s, %s", fast, g.v[0].name, g.v[1].name);
    }
    /* The seeds of the fuzzer too: a trace as `roofline trace` writes it. */
    char *text = rl_test_slurp(ROOFLINE_TEST_DATA_DIR "/../fuzz/seeds/trace/bench-6-launches.json");
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    /* A trace as roofline writes it is read by the fast path, every record. */
    ck_assert_uint_eq(g.sum.read_fast, g.sum.kernels);
    size_t groups = g.n;
    double f = g.v[0].flops;
    rl_trace_set_fast_path(false);
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    rl_trace_set_fast_path(true);
    ck_assert_uint_eq(g.n, groups);
    ck_assert_double_eq(g.v[0].flops, f);
    free(text);
}
END_TEST

/* text of n launch records in the layout given, into a malloc'd document */
static char *records_doc(int n, int layout, int bad_at)
{
    size_t cap = (size_t)n * 400 + 256, k = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    k += (size_t)snprintf(t + k, cap - k, "{\n  \"format\": \"roofline-trace\",\n  \"kernels\": [\n");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(
            t + k, cap - k,
            layout == 1
                ? "    {\"name\": \"k%d\", \"grid\": [%d, 1, 1],\n     \"counters\": {\n"
                  "      \"ffma\": %d},\n     \"flops\": %d, \"dram_bytes\": %d, \"time_ns\": %d}%s\n"
            : layout == 3
                /* every line starts with a nested object that has a "name"
                 * of its own; records start mid-line */
                ? "{\"name\": \"k%d\", \"grid\": [%d, 1, 1], \"x\":\n{\"name\": \"inner\", "
                  "\"ffma\": %d}, \"flops\": %d, \"dram_bytes\": %d, \"time_ns\": %d}%s "
                : "    {\"name\": \"k%d\", \"grid\": [%d, 1, 1], \"counters\": {\"ffma\": %d}, "
                  "\"flops\": %d, \"dram_bytes\": %d, \"time_ns\": %d}%s\n",
            i % 37, 1 + i % 3, i, i == bad_at ? -1 : 2 * i, 64, 100 + i % 11,
            i + 1 < n ? "," : "");
    snprintf(t + k, cap - k, "  ],\n  \"incomplete\": false\n}\n");
    return t;
}

START_TEST(two_cores_read_alike)
{
    /* Read on two cores (the helper taking the second half) or on one, a
     * trace gives the same groups and the same errors, whatever its layout:
     * records one per line (taken), records over several lines (the
     * helper's guess lands inside one: discarded), an error in the second
     * half (the helper stops before it; the main reader says it). */
    rl_trace_set_parallel_min_bytes(1024);
    for (int variant = 0; variant < 4; variant++) {
        char *text = records_doc(5000, variant, variant == 2 ? 4000 : -1);
        char e[2][RL_ERRMSG_SIZE];
        int rc[2];
        size_t n[2];
        uint64_t launches[2], kernels[2];
        double flops[2], time_ns[2];
        for (int par = 0; par < 2; par++) {
            rl_trace_set_parallel_min_bytes(par ? 1024 : (long long)1 << 40);
            rc[par] = read_doc(text);
            snprintf(e[par], sizeof e[par], "%s", rc[par] ? err : "");
            n[par] = g.n;
            launches[par] = 0, flops[par] = 0, time_ns[par] = 0;
            for (size_t i = 0; i < g.n; i++)
                launches[par] += g.v[i].launches, flops[par] += g.v[i].flops,
                    time_ns[par] += g.v[i].time_ns;
            kernels[par] = g.sum.kernels;
            if (!par)
                ck_assert_uint_eq(g.sum.read_by_helper, 0);
            else if (variant == 0)
                ck_assert_uint_gt(g.sum.read_by_helper, 1000); /* the second half, taken */
            else if (variant == 3)
                ck_assert_uint_eq(g.sum.read_by_helper, 0);    /* a guess inside a record */
        }
        ck_assert_msg(rc[0] == rc[1], "variant %d: %d vs %d", variant, rc[0], rc[1]);
        ck_assert_str_eq(e[0], e[1]);
        ck_assert_uint_eq(n[0], n[1]);
        ck_assert_uint_eq(launches[0], launches[1]);
        ck_assert_uint_eq(kernels[0], kernels[1]);
        ck_assert_double_eq(flops[0], flops[1]);
        ck_assert_double_eq(time_ns[0], time_ns[1]);
        if (variant == 2)
            ck_assert_ptr_nonnull(strstr(e[0], "'flops' must be >= 0"));
        else
            ck_assert_uint_eq(kernels[0], 5000);
        free(text);
    }
    rl_trace_set_parallel_min_bytes(0);
}
END_TEST

/* The helper's smallest take: of three records one a line (about 110
 * bytes each), the second half of the file after the kernels' '[' starts
 * inside the second record, so the helper reads from the third: one
 * record, taken (read by the helper: 1); the groups are the one core's. */
START_TEST(helper_takes_a_single_record)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return; /* one core: no helper */
    char *text = records_doc(3, 0, -1);
    rl_trace_set_parallel_min_bytes(16);
    ck_assert_int_eq(read_doc(text), 0);
    ck_assert_uint_eq(g.sum.read_by_helper, 1);
    ck_assert_uint_eq(g.sum.kernels, 3);
    ck_assert_uint_eq(g.n, 3);
    ck_assert_double_eq(g.v[0].flops + g.v[1].flops + g.v[2].flops, 0 + 2 + 4);
    rl_trace_set_parallel_min_bytes(0);
    free(text);
}
END_TEST

/* Every field of two groups alike (sums of whole numbers: exact). */
static void same_group_fields(const struct rl_trace_group *x, const struct rl_trace_group *y)
{
#define SAME_D(f) ck_assert_msg(x->f == y->f || (isnan(x->f) && isnan(y->f)), "%s: " #f ": %g vs %g", \
                                x->name, x->f, y->f)
#define SAME_U(f) ck_assert_msg(x->f == y->f, "%s: " #f ": %llu vs %llu", x->name, \
                                (unsigned long long)x->f, (unsigned long long)y->f)
    ck_assert_str_eq(x->name, y->name);
    ck_assert_int_eq(memcmp(x->grid, y->grid, sizeof x->grid), 0);
    ck_assert_int_eq(memcmp(x->block, y->block, sizeof x->block), 0);
    ck_assert_str_eq(x->precision, y->precision);
    ck_assert_int_eq(x->origin, y->origin);
    ck_assert_str_eq(x->collective, y->collective);
    SAME_U(launches);
    SAME_U(counted);
    SAME_U(counted_timed);
    SAME_U(bytes_only);
    SAME_U(bytes_only_timed);
    SAME_U(flops_only);
    SAME_U(flops_only_timed);
    SAME_U(comm_launches);
    SAME_D(time_ns);
    SAME_D(counted_time_ns);
    SAME_D(flops);
    SAME_D(bytes_only_time_ns);
    SAME_D(flops_only_time_ns);
    SAME_D(flops_only_flops);
    SAME_D(comm_bytes);
    for (int m = 0; m < RL_MEM_COUNT; m++) {
        SAME_D(bytes[m]);
        SAME_D(bytes_only_bytes[m]);
    }
#undef SAME_D
#undef SAME_U
}

START_TEST(two_cores_merge_every_field)
{
    /* 3000 records, one a line, of six kinds in turn (counted and timed
     * with DRAM and L2 bytes and a collective; counted untimed with L1
     * bytes; bytes only; FLOPs only timed; timing only; FLOPs only with a
     * precision), named by i % 7 so that every group holds every kind in
     * both halves: the helper's groups, merged in, give every field the
     * one-core reading gives. Whole numbers: every sum is exact. */
    static const char *const kind[6] = {
        "\"flops\": %d, \"dram_bytes\": 64, \"l2_bytes\": 128, \"time_ns\": %d,"
        " \"precision\": \"bf16\", \"origin\": \"analytic\", \"counts\": \"counters\","
        " \"comm_bytes\": 8, \"collective\": \"allreduce\"",
        "\"flops\": %d, \"l1_bytes\": 32, \"time_ns\": null, \"counts\": \"sampled\", \"x\": %d",
        "\"flops\": null, \"dram_bytes\": %d, \"time_ns\": %d, \"counts\": \"none\"",
        "\"flops\": %d, \"time_ns\": %d, \"counts\": \"analytic\"",
        "\"time_ns\": %d, \"y\": %d",
        "\"flops\": %d, \"precision\": \"fp8\", \"z\": %d",
    };
    int n = 3000;
    size_t cap = (size_t)n * 400 + 256, k = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    k += (size_t)snprintf(text + k, cap - k, "{\n  \"format\": \"roofline-trace\",\n  \"kernels\": [\n");
    for (int i = 0; i < n; i++) {
        char fields[400];
        snprintf(fields, sizeof fields, kind[i % 6], 10 + i, 100 + i % 13);
        k += (size_t)snprintf(text + k, cap - k, "    {\"name\": \"k%d\", \"grid\": [%d, 1, 1], %s}%s\n",
                              i % 7, 1 + i % 2, fields, i + 1 < n ? "," : "");
    }
    snprintf(text + k, cap - k, "  ]\n}\n");
    struct rl_trace_groups one = {0};
    rl_trace_set_parallel_min_bytes((long long)1 << 40);
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    ck_assert_uint_eq(g.sum.read_by_helper, 0);
    one = g;
    memset(&g, 0, sizeof g);
    rl_trace_set_parallel_min_bytes(1024);
    int rc = read_doc(text);
    /* The same through the file layer's FILE (rl_trace_groups_load: the
     * helper finds its descriptor by rl_io_fileno, seeks past its part). */
    struct rl_trace_groups layer = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/t.json", rl_test_tmpdir());
    int rc_layer = rl_trace_groups_load(&layer, path, err);
    rl_trace_set_parallel_min_bytes(0);
    ck_assert_msg(rc == 0 && rc_layer == 0, "%s", err);
    ck_assert_uint_eq(layer.n, g.n);
    ck_assert_uint_eq(layer.sum.kernels, g.sum.kernels);
    /* The helper took records (when the machine has a second core). */
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        ck_assert_uint_gt(g.sum.read_by_helper, 0);
        ck_assert_uint_gt(layer.sum.read_by_helper, 0);
    }
    rl_trace_groups_release(&layer);
    /* 7 names x 2 grids = 14 groups. */
    ck_assert_uint_eq(one.n, 14);
    ck_assert_uint_eq(g.n, one.n);
    for (size_t i = 0; i < g.n; i++)
        same_group_fields(&one.v[i], &g.v[i]);
    ck_assert_uint_eq(g.sum.kernels, 3000);
    ck_assert_uint_eq(g.sum.kernels, one.sum.kernels);
    ck_assert_double_eq(g.sum.time_ns, one.sum.time_ns);
    for (int c = 0; c < RL_TRACE_COUNTS_N; c++)
        ck_assert_uint_eq(g.sum.by_counts[c], one.sum.by_counts[c]);
    /* 500 records of each kind: by counts, 500 counters, 500 sampled, 500
     * none, 500 analytic. */
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_COUNTERS], 500);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_SAMPLED], 500);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_NONE], 500);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_ANALYTIC], 500);
    rl_trace_groups_release(&one);
    /* An error after the records: its line (the records' 3000 lines, 3
     * before, "  ]," then the bad field: 3005) counts the lines the helper
     * read. */
    snprintf(text + k, cap - k, "  ],\n  \"x\": @\n}\n");
    for (int par = 0; par < 2; par++) {
        rl_trace_set_parallel_min_bytes(par ? 1024 : (long long)1 << 40);
        ck_assert_int_eq(read_doc(text), RL_EPARSE);
        ck_assert_str_eq(err, "'t.json': line 3005: malformed JSON near '@'");
        if (par && sysconf(_SC_NPROCESSORS_ONLN) > 1)
            ck_assert_uint_gt(g.sum.read_by_helper, 0);
    }
    rl_trace_set_parallel_min_bytes(0);
    free(text);
}
END_TEST

START_TEST(keys)
{
    /* Keys with escapes or control characters take the general path; keys
     * longer than 63 bytes are cut and match nothing. */
    ck_assert_msg(read_doc(HEAD "{\"n\\u0061me\": \"k\", \"fl\\u006fps\": 3,"
                                " \"dram_\\u0062ytes\": 4, \"time ns\": 5,"
                                " \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": 1"
                                "}]}") == 0,
                  "%s", err);
    ck_assert_str_eq(g.v[0].name, "k");
    ck_assert_double_eq(g.v[0].flops, 3);
    ck_assert_double_eq(g.v[0].bytes[RL_MEM_DRAM], 4);
    ck_assert_double_eq(g.v[0].time_ns, 0);
    refused(HEAD "{\"na\tme\": \"k\"}]}", RL_EPARSE,
            "'t.json': line 1: control character in a string");
    /* A key split over lines, and a value after newlines. */
    ck_assert_msg(read_doc(HEAD "{\n\"name\"\n:\n\"k\",\n\"x\":\n\n 5,\r\n\t\"time_ns\": 2}]}") == 0,
                  "%s", err);
    ck_assert_double_eq(g.v[0].time_ns, 2);
    refused(HEAD "{\n\"name\"\n:\n\"k\",\n\"x\":\n\n 5,\r\n\t\"time_ns\": @}]}", RL_EPARSE,
            "'t.json': line 8: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\",\n\"x\":\n\n\t 5 \"y\"}]}", RL_EPARSE,
            "'t.json': line 4: expected ',' or '}'");
}
END_TEST

START_TEST(numbers_at_their_limits)
{
    /* 15 and 16 digits, -0, a fraction under 1, the largest dimension. */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"a\", \"flops\": 999999999999999, \"dram_bytes\": -0,"
                                " \"l2_bytes\": 9007199254740993, \"l1_bytes\": 0.25, \"time_ns\": 0.5,"
                                " \"grid\": [4294967295, 0, 7], \"block\": [1.9, 32, 0]}]}") == 0,
                  "%s", err);
    const struct rl_trace_group *a = &g.v[0];
    ck_assert_double_eq(a->flops, 999999999999999.0);
    ck_assert_double_eq(a->bytes[RL_MEM_DRAM], 0);
    ck_assert_double_eq(a->bytes[RL_MEM_L2], 9007199254740992.0);
    ck_assert_double_eq(a->bytes[RL_MEM_L1], 0.25);
    ck_assert_double_eq(a->time_ns, 0.5);
    ck_assert_uint_eq(a->grid[0], 4294967295u);
    ck_assert_uint_eq(a->grid[1], 0);
    ck_assert_uint_eq(a->grid[2], 7);
    ck_assert_uint_eq(a->block[0], 1);
    ck_assert_uint_eq(a->block[1], 32);
    ck_assert_uint_eq(a->block[2], 0);
    /* 63 characters are the longest number. */
    char text[512], digits[80];
    memset(digits, '0', sizeof digits);
    digits[0] = '1';
    digits[63] = 0;
    snprintf(text, sizeof text, HEAD "{\"name\": \"a\", \"flops\": %s, \"dram_bytes\": 1}]}", digits);
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    ck_assert_double_eq(g.v[0].flops, 1e62);
    digits[63] = '0';
    digits[64] = 0;
    snprintf(text, sizeof text, HEAD "{\"name\": \"a\", \"flops\": %s, \"dram_bytes\": 1}]}", digits);
    refused(text, RL_EPARSE, "'t.json': line 1: number too long");
    refused(HEAD "{\"name\": \"a\", \"grid\": [4294967296, 1, 1]}]}", RL_ESCHEMA,
            "'t.json': line 1: 'grid' holds a bad dimension");
    refused(HEAD "{\"name\": \"a\", \"block\": [1, \"2\", 1]}]}", RL_EPARSE,
            "'t.json': line 1: expected a number");
    refused(HEAD "{\"name\": \"a\", \"block\": [1, 2, 3, 4]}]}", RL_EPARSE,
            "'t.json': line 1: expected ']'");
    refused(HEAD "{\"name\": \"a\", \"block\": [1 2 3]}]}", RL_EPARSE,
            "'t.json': line 1: expected ','");
    refused(HEAD "{\"name\": \"a\", \"grid\": 3}]}", RL_ESCHEMA,
            "'t.json': line 1: 'grid' must be an array of 3 numbers");
    refused(HEAD "{\"name\": \"a\", \"flops\": 1.5.2}]}", RL_EPARSE,
            "'t.json': line 1: malformed number '1.5.2'");
    refused(HEAD "{\"name\": \"a\", \"flops\": 1e}]}", RL_EPARSE,
            "'t.json': line 1: malformed number '1e'");
    refused(HEAD "{\"name\": \"a\", \"flops\": \"3\"}]}", RL_ESCHEMA,
            "'t.json': line 1: 'flops' must be a number or null");
    refused(HEAD "{\"name\": \"a\", \"l2_bytes\": true}]}", RL_ESCHEMA,
            "'t.json': line 1: 'l2_bytes' must be a number or null");
    refused(HEAD "{\"name\": \"a\", \"l1_bytes\": -1}]}", RL_ESCHEMA,
            "'t.json': line 1: 'l1_bytes' must be >= 0");
    refused(HEAD "{\"name\": \"a\", \"dram_bytes\": -3}]}", RL_ESCHEMA,
            "'t.json': line 1: 'dram_bytes' must be >= 0");
    refused(HEAD "{\"name\": \"a\", \"time_ns\": -2.5}]}", RL_ESCHEMA,
            "'t.json': line 1: 'time_ns' must be >= 0");
    /* null is "not measured". */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"a\", \"flops\": null, \"dram_bytes\": 2, \"time_ns\": null},"
                                "{\"name\": \"a\", \"flops\": 4, \"dram_bytes\": null, \"l2_bytes\": 3,"
                                " \"time_ns\": 6}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_uint_eq(g.v[0].counted, 1);
    ck_assert_double_eq(g.v[0].flops, 4);
    ck_assert(isnan(g.v[0].bytes[RL_MEM_DRAM]));
    ck_assert_double_eq(g.v[0].bytes[RL_MEM_L2], 3);
    ck_assert_double_eq(g.v[0].time_ns, 6);
}
END_TEST

START_TEST(words)
{
    ck_assert_msg(read_doc("{\"incomplete\": true, \"format\": \"roofline-trace\","
                           " \"x\": [false, null, true], \"kernels\": []}") == 0,
                  "%s", err);
    ck_assert(g.sum.incomplete);
    refused("{\"format\": \"roofline-trace\", \"incomplete\": tru}", RL_EPARSE,
            "'t.json': line 1: malformed JSON (expected true, false or null)");
    refused("{\"format\": \"roofline-trace\", \"x\": nul}", RL_EPARSE,
            "'t.json': line 1: malformed JSON (expected true, false or null)");
    refused("{\"format\": \"roofline-trace\", \"x\": fals}", RL_EPARSE,
            "'t.json': line 1: malformed JSON (expected true, false or null)");
    refused("{\"format\": \"roofline-trace\", \"x\": nulL}", RL_EPARSE,
            "'t.json': line 1: malformed JSON (expected true, false or null)");
}
END_TEST

START_TEST(skipped_values)
{
    /* Fields a roofline does not read, in a launch (skipped without
     * tokenizing) and in the document (skipped by tokens). */
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\","
                           " \"extra\": {\"a\": [1, {\"b\": [true, false, null, \"s]\"]}], \"c\": {}, \"d\": []},"
                           " \"kernels\": [{\"s\": \"a\\\"b}\\\\\", \"name\": \"k\", \"n\": -1.5e+3,"
                           " \"t\": true, \"f\": false, \"z\": null, \"o\": {\"x\": [\"]\", {}]},"
                           " \"e\": [], \"nine\": 19, \"sp\": 1 , \"tab\": 2\t, \"nl\": 3\n,"
                           " \"flops\": 2, \"dram_bytes\": 8}], \"after\": [[], {}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_str_eq(g.v[0].name, "k");
    ck_assert_double_eq(g.v[0].flops, 2);
    ck_assert_double_eq(g.v[0].bytes[RL_MEM_DRAM], 8);
    /* Skipped strings are not decoded: a control byte inside passes. */
    static const char ctl[] = HEAD "{\"x\": \"\0\", \"y\": \"\\\0\", \"z\": \"\t\", \"name\": \"k\"}]}";
    ck_assert_msg(read_bytes(ctl, sizeof ctl - 1) == 0, "%s", err);
    ck_assert_uint_eq(g.n, 1);

    refused(HEAD "{\"name\": \"k\", \"x\": @}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    /* A NUL byte is no part of a number or a word (strchr would find the
     * terminator); %c of it ends the message. */
    static const char nul_in_number[] = HEAD "{\"name\": \"k\", \"x\": 1\0}]}";
    ck_assert_int_eq(read_bytes(nul_in_number, sizeof nul_in_number - 1), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: malformed JSON near '");
    ck_assert_uint_eq(g.n, 0);
    static const char nul_value[] = HEAD "{\"name\": \"k\", \"x\": \0}]}";
    ck_assert_int_eq(read_bytes(nul_value, sizeof nul_value - 1), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: malformed JSON near '");
    refused(HEAD "{\"name\": \"k\", \"x\": 1x}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near 'x'");
    /* Tokens JSON has, in the wrong place: the scalar's own error. */
    refused(HEAD "{\"name\": \"k\", \"x\": 1:}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near ':'");
    refused(HEAD "{\"name\": \"k\", \"x\": 1\"a\"}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '\"'");
    refused(HEAD "{\"name\": \"k\", \"x\": }]}", RL_EPARSE, "'t.json': line 1: expected a value");
    refused(HEAD "{\"name\": \"k\", \"x\": ", RL_EPARSE, "'t.json': line 1: truncated: expected a value");
    refused(HEAD "{\"name\": \"k\", \"x\": \"ab", RL_EPARSE,
            "'t.json': line 1: truncated: a string never ends");
    refused(HEAD "{\"name\": \"k\", \"x\": \"ab\\", RL_EPARSE,
            "'t.json': line 1: truncated: a string never ends");
    refused(HEAD "{\"name\": \"k\", \"x\": [1 2]}]}", RL_EPARSE,
            "'t.json': line 1: expected ',' or a closing bracket");
    refused(HEAD "{\"name\": \"k\", \"x\": [1 2}]}", RL_EPARSE,
            "'t.json': line 1: expected ',' or a closing bracket");
    refused(HEAD "{\"name\": \"k\", \"x\": [1,]}]}", RL_EPARSE, "'t.json': line 1: expected a value");
    /* A bad token inside a skipped container ends the read there, even
     * when what follows would close the record. */
    refused(HEAD "{\"name\": \"k\", \"x\": [1 @}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"x\": {\"a\": 1 @}}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"x\": {@}}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"x\": [@}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"x\": {\"a\" @}}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"grid\": [1, 2 @}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"grid\": [1, @}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"flops\": @}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"precision\": @}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"origin\": @}]}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": @}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\" @}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", @}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\" @}]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"name\": \"k\", \"x\": [,]}]}", RL_EPARSE, "'t.json': line 1: expected a value");
    refused(HEAD "{\"name\": \"k\", \"x\": {\"a\": 1,}}]}", RL_EPARSE, "'t.json': line 1: expected a key");
    refused(HEAD "{\"name\": \"k\", \"x\": {1: 2}}]}", RL_EPARSE, "'t.json': line 1: expected a key");
    refused(HEAD "{\"name\": \"k\", \"x\": {\"a\" 2}}]}", RL_EPARSE, "'t.json': line 1: expected ':'");
    refused(HEAD "{\"name\": \"k\", \"x\": {\"a\"", RL_EPARSE, "'t.json': line 1: truncated: expected ':'");
    refused(HEAD "{\"name\": \"k\", \"x\": {", RL_EPARSE, "'t.json': line 1: truncated object");
    refused(HEAD "{\"name\": \"k\", \"x\": [", RL_EPARSE, "'t.json': line 1: truncated: expected a value");
    refused(HEAD "{\"name\": \"k\", \"x\": [1", RL_EPARSE, "'t.json': line 1: truncated");
    refused(HEAD "{\"name\": \"k\", \"x\": [\"a\\", RL_EPARSE, "'t.json': line 1: bad escape in a string");
    refused("{\"format\": \"roofline-trace\", \"x\": [1 2]}", RL_EPARSE,
            "'t.json': line 1: expected ',' or a closing bracket");
    refused("{\"format\": \"roofline-trace\", \"x\": }", RL_EPARSE, "'t.json': line 1: expected a value");
    refused("{\"format\": \"roofline-trace\", \"x\": ", RL_EPARSE,
            "'t.json': line 1: truncated: expected a value");
    refused("{\"format\": \"roofline-trace\", \"x\": {\"a\": 1,}}", RL_EPARSE,
            "'t.json': line 1: expected a key");
}
END_TEST

START_TEST(object_errors)
{
    refused("", RL_ESCHEMA, "'t.json': line 1: not a roofline trace (expected a JSON object)");
    refused("\n[]", RL_ESCHEMA, "'t.json': line 2: not a roofline trace (expected a JSON object)");
    refused("{", RL_EPARSE, "'t.json': line 1: truncated object");
    refused("{}", RL_ESCHEMA, "'t.json': line 1: not a roofline trace (no \"format\": \"roofline-trace\")");
    refused("{\"kernels\": []}", RL_ESCHEMA,
            "'t.json': line 1: not a roofline trace (no \"format\": \"roofline-trace\")");
    refused("{\"format\": \"chrome-trace\", \"kernels\": []}", RL_ESCHEMA,
            "'t.json': line 1: not a roofline trace ('format' is not \"roofline-trace\")");
    refused("{\"format\": 1}", RL_ESCHEMA,
            "'t.json': line 1: not a roofline trace ('format' is not \"roofline-trace\")");
    refused("{\"format\": \"roofline-trace\"} x", RL_EPARSE,
            "'t.json': line 1: malformed JSON near 'x'");
    refused("{\"format\": \"roofline-trace\"}\n{}", RL_EPARSE,
            "'t.json': line 2: text after the end of the document");
    refused("{\"format\" \"roofline-trace\"}", RL_EPARSE, "'t.json': line 1: expected ':'");
    refused("{\"format\"", RL_EPARSE, "'t.json': line 1: truncated: expected ':'");
    refused("{\"format\": \"roofline-trace\" \"x\": 1}", RL_EPARSE,
            "'t.json': line 1: expected ',' or '}'");
    refused("{\"format\": \"roofline-trace\",", RL_EPARSE, "'t.json': line 1: truncated object");
    refused("{\"format\": \"roofline-trace\"", RL_EPARSE, "'t.json': line 1: truncated object");
    refused("{\"format\": \"roofline-trace\", 3: 1}", RL_EPARSE, "'t.json': line 1: expected a key");
    refused(HEAD "{\"name\": \"k\", 3: 1}]}", RL_EPARSE, "'t.json': line 1: expected a key");
    refused(HEAD "{\"name\": \"k\",", RL_EPARSE, "'t.json': line 1: truncated object");
    refused(HEAD "{\"name\": \"k\"", RL_EPARSE, "'t.json': line 1: truncated object");
    refused(HEAD "{\"name\": \"k\" \"x\": 1}]}", RL_EPARSE, "'t.json': line 1: expected ',' or '}'");
    refused(HEAD "{\"name\" 1}]}", RL_EPARSE, "'t.json': line 1: expected ':'");
    refused(HEAD "{\"name\": 1}]}", RL_ESCHEMA, "'t.json': line 1: 'name' must be a string");
    refused(HEAD "{\"name\": \"k\", \"precision\": null}]}", RL_ESCHEMA,
            "'t.json': line 1: 'precision' must be a string");
    refused(HEAD "{\"name\": \"k\", \"origin\": 1}]}", RL_ESCHEMA,
            "'t.json': line 1: 'origin' must be \"measured\" or \"analytic\"");
    /* The kernels array. */
    refused("{\"format\": \"roofline-trace\", \"kernels\": 3}", RL_ESCHEMA,
            "'t.json': line 1: 'kernels' must be an array");
    refused("{\"format\": \"roofline-trace\", \"kernels\": {}}", RL_ESCHEMA,
            "'t.json': line 1: 'kernels' must be an array");
    refused("{\"format\": \"roofline-trace\", \"kernels\": @}", RL_EPARSE,
            "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD, RL_ESCHEMA, "'t.json': line 1: truncated: kernels[0] never ends");
    refused(HEAD "[]]}", RL_ESCHEMA, "'t.json': line 1: kernels[0] must be an object");
    refused(HEAD "@]}", RL_EPARSE, "'t.json': line 1: malformed JSON near '@'");
    refused(HEAD "{\"x\": 1}]}", RL_ESCHEMA, "'t.json': line 1: kernels[0] has no 'name'");
    refused(HEAD "{}]}", RL_ESCHEMA, "'t.json': line 1: kernels[0] has no 'name'");
    /* The record's first line, not its last. */
    refused(HEAD "\n\n{\"x\": 1,\n\n\"y\": 2\n}]}", RL_ESCHEMA, "'t.json': line 3: kernels[0] has no 'name'");
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"}, {\"name\": \"j\"},\n{\"x\": 1}]}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: kernels[2] has no 'name'");
    ck_assert_uint_eq(g.n, 2); /* the two before it are read */
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"},"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 1: truncated: kernels[1] never ends");
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"}, 3]}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 1: kernels[1] must be an object");
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"} {\"name\": \"j\"}]}"), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: expected ',' or ']' after a kernel");
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"}"), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: truncated: the kernels array never ends");
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"} @"), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: malformed JSON near '@'");
    ck_assert_int_eq(read_doc(HEAD "{\"name\": \"k\"}]"), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: truncated object");
    /* Empty objects and arrays are fine where they are allowed. */
    ck_assert_msg(read_doc("{\"gpu\": {}, \"counters\": {}, \"format\": \"roofline-trace\", \"kernels\": []}") == 0,
                  "%s", err);
}
END_TEST

START_TEST(every_truncation_is_refused)
{
    /* Every prefix of a valid trace is an error, never a smaller trace. */
    const char *text = "{\"format\": \"roofline-trace\", \"gpu\": {\"name\": \"G\"},"
                       " \"kernels\": [{\"name\": \"k\\u00e9\", \"x\": [1, \"a\"], \"s\": \"q\\\"\","
                       " \"grid\": [1, 2, 3], \"flops\": 1.5, \"dram_bytes\": 2, \"t\": true}]}";
    size_t n = strlen(text);
    for (size_t k = 0; k < n; k++) {
        int rc = read_bytes(text, k);
        ck_assert_msg(rc == RL_EPARSE || rc == RL_ESCHEMA, "prefix %zu: %d", k, rc);
        /* The launch is added once its record closes. */
        ck_assert_msg(g.n == (k < n - 2 ? 0u : 1u), "prefix %zu: %zu groups", k, g.n);
    }
    ck_assert_msg(read_bytes(text, n) == 0, "%s", err);
    ck_assert_double_eq(g.v[0].flops, 1.5);
}
END_TEST

START_TEST(summary_edge_cases)
{
    /* null strings empty a field; values of the wrong type are skipped;
     * unknown fields with containers are skipped. */
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\","
                           " \"gpu\": {\"name\": \"A\", \"name\": null, \"chip\": {\"a\": [1]},"
                           " \"x\": [1, {}], \"sm_count\": \"132\", \"chip\": \"C\"},"
                           " \"counters\": {\"x\": [\"nope\"], \"status\": null, \"status\": \"ok\","
                           " \"reason\": [1, 2], \"y\": {\"a\": 1}, \"reason\": \"R\"},"
                           " \"incomplete\": 1, \"kernels\": []}") == 0,
                  "%s", err);
    ck_assert_str_eq(g.sum.gpu_name, "");
    ck_assert_str_eq(g.sum.chip, "C");
    ck_assert_int_eq(g.sum.sm_count, 0);
    ck_assert_str_eq(g.sum.counters_status, "ok");
    ck_assert_str_eq(g.sum.counters_reason, "R");
    ck_assert_str_eq(g.sum.tensor_not_counted, "");
    ck_assert(!g.sum.incomplete);
    /* SM counts: the largest kept is 999999. */
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\", \"gpu\": {\"sm_count\": 999999}}") == 0, "%s", err);
    ck_assert_int_eq(g.sum.sm_count, 999999);
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\", \"gpu\": {\"sm_count\": 1000000}}") == 0, "%s", err);
    ck_assert_int_eq(g.sum.sm_count, 0);
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\", \"gpu\": {\"sm_count\": 1}}") == 0, "%s", err);
    ck_assert_int_eq(g.sum.sm_count, 1);
    /* The tensor list is cut at 63 bytes, and writes nothing past it: 60
     * bytes, then ", ab" reaches 64 exactly, then one more. */
    char text[512], sixty[61];
    memset(sixty, 'x', 60);
    sixty[60] = 0;
    snprintf(text, sizeof text,
             "{\"format\": \"roofline-trace\", \"incomplete\": true, \"counters\":"
             " {\"tensor_not_counted\": [\"%s\", \"ab\", \"c\", \"d\"]}, \"kernels\": []}",
             sixty);
    ck_assert_msg(read_doc(text) == 0, "%s", err);
    ck_assert_uint_eq(strlen(g.sum.tensor_not_counted), 63);
    ck_assert(strncmp(g.sum.tensor_not_counted, sixty, 60) == 0);
    ck_assert_str_eq(g.sum.tensor_not_counted + 60, ", a");
    ck_assert(g.sum.incomplete);
    ck_assert_uint_eq(g.sum.kernels, 0);
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\", \"counters\": {\"tensor_not_counted\": []}}") == 0,
                  "%s", err);
    ck_assert_str_eq(g.sum.tensor_not_counted, "");
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\", \"counters\": {\"tensor_not_counted\": [\"fp8\"]}}") == 0,
                  "%s", err);
    ck_assert_str_eq(g.sum.tensor_not_counted, "fp8");
    refused("{\"format\": \"roofline-trace\", \"counters\": {\"tensor_not_counted\": [\"a\", 1]}}", RL_EPARSE,
            "'t.json': line 1: expected ']'");
    /* gpu and counters of another type are skipped. */
    ck_assert_msg(read_doc("{\"format\": \"roofline-trace\", \"gpu\": [{\"name\": \"A\"}],"
                           " \"counters\": \"off\", \"extra\": {\"name\": \"B\", \"status\": \"x\"}}") == 0,
                  "%s", err);
    ck_assert_str_eq(g.sum.gpu_name, "");
    ck_assert_str_eq(g.sum.counters_status, "");
}
END_TEST

START_TEST(launch_fields_start_fresh)
{
    /* Each record starts from nothing: no grid, block, bytes or precision
     * carried over from the record before. */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"a\", \"grid\": [5, 6, 7], \"block\": [8, 9, 10],"
                                " \"flops\": 1, \"dram_bytes\": 2, \"l2_bytes\": 3, \"l1_bytes\": 4,"
                                " \"precision\": \"fp32\", \"origin\": \"analytic\", \"time_ns\": 1},"
                                "{\"name\": \"b\", \"flops\": 1, \"l2_bytes\": 3},"
                                "{\"name\": \"a\", \"grid\": [5, 6, 7], \"block\": [8, 9, 10],"
                                " \"flops\": 2, \"dram_bytes\": 2, \"l2_bytes\": 3, \"l1_bytes\": 4}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 2);
    const struct rl_trace_group *b = group("b");
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(b->grid[i], 0);
        ck_assert_uint_eq(b->block[i], 0);
    }
    ck_assert(isnan(b->bytes[RL_MEM_DRAM]));
    ck_assert(isnan(b->bytes[RL_MEM_L1]));
    ck_assert_double_eq(b->bytes[RL_MEM_L2], 3);
    ck_assert_str_eq(b->precision, "");
    ck_assert_int_eq(b->origin, RL_ORIGIN_MEASURED);
    ck_assert(isnan(b->time_ns) || b->time_ns == 0);
    ck_assert_double_eq(b->time_ns, 0);
    const struct rl_trace_group *a = group("a");
    ck_assert_uint_eq(a->launches, 2);
    ck_assert_double_eq(a->flops, 3);
    ck_assert_double_eq(a->bytes[RL_MEM_DRAM], 4);
    ck_assert_double_eq(a->bytes[RL_MEM_L2], 6);
    ck_assert_double_eq(a->bytes[RL_MEM_L1], 8);
    ck_assert_uint_eq(a->grid[2], 7);
    ck_assert_uint_eq(a->block[0], 8);
    ck_assert_uint_eq(a->counted_timed, 1);
    ck_assert_double_eq(a->counted_time_ns, 1);
    ck_assert_str_eq(g.v[1].name, "b"); /* a's second launch left b whole */
    ck_assert_uint_eq(g.sum.kernels, 3);
    /* The same name on another grid or block is another kernel. */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"a\", \"grid\": [1, 2, 3]}, {\"name\": \"a\"},"
                                "{\"name\": \"a\", \"block\": [1, 2, 3]}, {\"name\": \"a\", \"grid\": [1, 2, 3]},"
                                "{\"name\": \"b\", \"grid\": [1, 2, 3]}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 4);
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_uint_eq(g.v[1].grid[2], 0);
    ck_assert_uint_eq(g.v[1].launches, 1);
    ck_assert_uint_eq(g.v[2].block[2], 3);
    ck_assert_str_eq(g.v[3].name, "b");
}
END_TEST

/* A trace of n distinct kernels, each launched twice (the second pass after
 * every group exists): many groups, a file over the reader's buffer, and
 * lookups that stay fast only while the hash spreads names over the table. */
START_TEST(many_kernels)
{
    enum { N = 60000 };
    size_t cap = (size_t)N * 2 * 128 + 128, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)sprintf(text, "{\"format\": \"roofline-trace\", \"kernels\": [\n");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N; i++)
            len += (size_t)sprintf(text + len,
                                   "%s{\"name\": \"k%d\", \"grid\": [%d, 1, 1], \"flops\": %d,"
                                   " \"dram_bytes\": 1, \"time_ns\": 2}\n",
                                   pass || i ? "," : "", i, i % 7, i);
    len += (size_t)sprintf(text + len, "]}");
    ck_assert_uint_gt(len, 2 * CHUNK_BYTES);
    int rc = read_bytes(text, len);
    free(text);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(g.n, N);
    ck_assert_uint_eq(g.sum.kernels, 2 * N);
    ck_assert_double_eq(g.sum.time_ns, 4.0 * N);
    for (size_t i = 0; i < g.n; i++) {
        ck_assert_uint_eq(g.v[i].launches, 2);
        ck_assert_double_eq(g.v[i].flops, 2.0 * (double)i);
        char name[32];
        snprintf(name, sizeof name, "k%zu", i);
        ck_assert_str_eq(g.v[i].name, name);
        ck_assert_uint_eq(g.v[i].grid[0], i % 7);
    }
}
END_TEST

/* Place tail so that its byte at split is the first of the reader's second
 * buffer, after a padding launch; read it. */
static int read_split(const char *tail, size_t tail_len, size_t split)
{
    static char *text;
    size_t cap = CHUNK_BYTES + 4096;
    if (!text)
        text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    const char *open = "{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": \"pad\", \"x\": \"";
    size_t head = strlen(open) + 4; /* the padding string, then "}, " */
    size_t pad = CHUNK_BYTES - split - head;
    size_t len = (size_t)sprintf(text, "%s", open);
    memset(text + len, 'a', pad);
    len += pad;
    len += (size_t)sprintf(text + len, "\"}, ");
    ck_assert_uint_eq(len + split, CHUNK_BYTES);
    memcpy(text + len, tail, tail_len);
    return read_bytes(text, len + tail_len);
}

START_TEST(tokens_across_the_buffer_edge)
{
    /* Every token of a record cut at every byte by the buffer's end. */
    const char *tail = "{\"name\": \"e\\u00e9\\n\\uD83D\\uDE00x\", \"grid\": [12345, 2, 3],"
                       " \"long_key_long_key_long_key_long_key_long_key_long_key_long_key_x\": 1,"
                       " \"flops\": 1.5e3, \"dram_bytes\": 4096, \"y\": \"s\\\"k\\\\\","
                       " \"z\": [1, {\"q\": null}], \"w\": -2.5e-1, \"b\": true,\n"
                       " \"time_ns\": 77}]}";
    size_t n = strlen(tail);
    for (size_t split = 0; split <= n; split++) {
        ck_assert_msg(read_split(tail, n, split) == 0, "split %zu: %s", split, err);
        ck_assert_uint_eq(g.n, 2);
        ck_assert_str_eq(g.v[1].name, "e\xc3\xa9\n\xf0\x9f\x98\x80x");
        ck_assert_uint_eq(g.v[1].grid[0], 12345);
        ck_assert_double_eq(g.v[1].flops, 1500);
        ck_assert_double_eq(g.v[1].bytes[RL_MEM_DRAM], 4096);
        ck_assert_double_eq(g.v[1].time_ns, 77);
    }
    /* The same with a plain name, so that the fast path reads every field
     * up to the cut (and gives up there: the general path reads the
     * record again from its start). */
    const char *plain = "{\"name\": \"plain_kernel_name\", \"grid\": [12345, 2, 3],"
                        " \"block\": [64, 1, 1], \"flops\": 1.5e3, \"dram_bytes\": 4096,"
                        " \"l2_bytes\": 2.5, \"time_ns\": 77, \"precision\": \"fp32\","
                        " \"counts\": \"sampled\", \"origin\": \"analytic\","
                        " \"collective\": \"allreduce\", \"comm_bytes\": 12,"
                        " \"y\": \"s\\\"k\\\\\", \"z\": [1, {\"q\": null}, true, false],"
                        " \"w\": -2.5e-1, \"v\": 10, \"n\": null, \"b\": true}]}";
    n = strlen(plain);
    for (size_t split = 0; split <= n; split++) {
        ck_assert_msg(read_split(plain, n, split) == 0, "split %zu: %s", split, err);
        ck_assert_uint_eq(g.n, 2);
        const struct rl_trace_group *k = &g.v[1];
        ck_assert_str_eq(k->name, "plain_kernel_name");
        ck_assert_uint_eq(k->grid[0], 12345);
        ck_assert_uint_eq(k->block[0], 64);
        ck_assert_double_eq(k->flops, 1500);
        ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 4096);
        ck_assert_double_eq(k->bytes[RL_MEM_L2], 2.5);
        ck_assert_double_eq(k->time_ns, 77);
        ck_assert_str_eq(k->precision, "fp32");
        ck_assert_int_eq(k->origin, RL_ORIGIN_ANALYTIC);
        ck_assert_str_eq(k->collective, "allreduce");
        ck_assert_double_eq(k->comm_bytes, 12);
        ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_SAMPLED], 1);
    }
    /* Cut short in the second buffer (the first still holds old bytes). */
    ck_assert_int_eq(read_split("{\"name\": \"abc", 13, 0), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: truncated: a string never ends");
    ck_assert_int_eq(read_split("{\"name\": \"k\", \"x\": \"abc", 23, 0), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: truncated: a string never ends");
    ck_assert_int_eq(read_split("{\"name\": \"k\", \"x\": 12", 21, 0), RL_EPARSE);
    ck_assert_str_eq(err, "'t.json': line 1: truncated object");
    ck_assert_uint_eq(g.n, 1);
    /* Exactly one byte in the second buffer. */
    ck_assert_int_eq(read_split("}", 1, 0), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 1: kernels[1] must be an object");
    ck_assert_int_eq(read_split("{\"name\": \"k\"}]}", 15, 14), 0);
    ck_assert_uint_eq(g.n, 2);
    /* A file that is exactly one buffer long. */
    ck_assert_int_eq(read_split("{\"name\": \"k\"}]}", 15, 15), 0);
    ck_assert_uint_eq(g.n, 2);
}
END_TEST

START_TEST(one_byte_files)
{
    refused("{", RL_EPARSE, "'t.json': line 1: truncated object");
    refused("3", RL_ESCHEMA, "'t.json': line 1: not a roofline trace (expected a JSON object)");
    refused(" ", RL_ESCHEMA, "'t.json': line 1: not a roofline trace (expected a JSON object)");
}
END_TEST

/* A stream that gives its text, then a read error. */
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

START_TEST(read_errors)
{
    const char *text = "{\"format\": \"roofline-trace\",\n\"kernels\": []}";
    FILE *f = fopencookie(&text, "r", (cookie_io_functions_t){.read = failing_read});
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(rl_trace_groups_read(&g, f, "t.json", err), RL_EIO);
    ck_assert_str_eq(err, "'t.json': line 2: cannot read: Input/output error");
    fclose(f);
    /* load: the path names the file in errors. */
    char path[512];
    snprintf(path, sizeof path, "%s/missing.json", rl_test_tmpdir());
    char want[600];
    snprintf(want, sizeof want, "'%s': No such file or directory", path);
    ck_assert_int_eq(rl_trace_groups_load(&g, path, err), RL_EIO);
    ck_assert_str_eq(err, want);
    snprintf(path, sizeof path, "%s/bad.json", rl_test_tmpdir());
    f = fopen(path, "w");
    fputs("{\"format\": \"roofline-trace\", \"kernels\": [{}]}", f);
    fclose(f);
    ck_assert_int_eq(rl_trace_groups_load(&g, path, err), RL_ESCHEMA);
    snprintf(want, sizeof want, "'%s': line 1: kernels[0] has no 'name'", path);
    ck_assert_str_eq(err, want);
    snprintf(path, sizeof path, "%s/good.json", rl_test_tmpdir());
    f = fopen(path, "w");
    fputs("{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": \"k\"}]}", f);
    fclose(f);
    ck_assert_int_eq(rl_trace_groups_load(&g, path, err), 0);
    ck_assert_uint_eq(g.n, 1);
}
END_TEST

START_TEST(release_frees_everything)
{
    /* Read, release, read again: the same heap in use, and g zeroed. */
    const char *text = HEAD "{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}]}";
    ck_assert_int_eq(read_doc(text), 0);
    rl_trace_groups_release(&g);
    struct mallinfo2 before = mallinfo2();
    ck_assert_int_eq(read_doc(text), 0);
    ck_assert_uint_eq(g.n, 3);
    rl_trace_groups_release(&g);
    struct mallinfo2 after = mallinfo2();
    ck_assert_uint_eq(after.uordblks, before.uordblks);
    ck_assert_ptr_null(g.v);
    ck_assert_ptr_null(g.slot);
    ck_assert_uint_eq(g.n + g.cap + g.slots + g.sum.kernels, 0);
    rl_trace_groups_release(&g); /* twice is harmless */
}
END_TEST

/* Two ranks' traces of a kernel with bytes and no FLOPs (an export without
 * FLOP counters) merge into one memory point: rank A 1 launch, 100 DRAM
 * bytes, 10 ns; rank B 2 launches, 30 bytes, 20 ns. Merged: 3 launches,
 * 100 + 30 = 130 bytes, 10 + 20 = 30 ns, 2 ranks, the slower rank 20 ns. */
START_TEST(ranks_merge_bytes_only_kernels)
{
    struct rl_trace_groups a = {0}, b = {0};
    const uint32_t one[3] = {1, 1, 1};
    const double ba[3] = {100, NAN, NAN}, bb[3] = {30, NAN, NAN};
    ck_assert_int_eq(
        rl_trace_groups_add(&a, "copy", one, one, "", RL_ORIGIN_MEASURED, 1, NAN, ba, 10), 0);
    ck_assert_int_eq(
        rl_trace_groups_add(&b, "copy", one, one, "", RL_ORIGIN_MEASURED, 2, NAN, bb, 20), 0);
    /* Launches by where their counts come from: 1 + 2 = 3 from counters. */
    a.sum.by_counts[RL_TRACE_COUNTS_COUNTERS] = 1;
    b.sum.by_counts[RL_TRACE_COUNTS_COUNTERS] = 2;
    rl_trace_groups_release(&g);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&g, &a), 0);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&g, &b), 0);
    ck_assert_uint_eq(g.n, 1);
    const struct rl_trace_group *k = &g.v[0];
    ck_assert_uint_eq(k->counted, 0);
    ck_assert_uint_eq(k->bytes_only, 3);
    ck_assert_uint_eq(k->bytes_only_timed, 3);
    ck_assert_double_eq(k->bytes_only_bytes[RL_MEM_DRAM], 130);
    ck_assert(isnan(k->bytes_only_bytes[RL_MEM_L2]));
    ck_assert_double_eq(k->bytes_only_time_ns, 30);
    ck_assert_uint_eq(k->ranks, 2);
    ck_assert_double_eq(k->time_ns_max_rank, 20);
    ck_assert_uint_eq(g.sum.kernels, 3);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_COUNTERS], 3);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_SAMPLED], 0);
    rl_trace_groups_release(&a);
    rl_trace_groups_release(&b);
    /* A counted kernel: the first rank that counted it names its
     * precision (bf16), a later one (fp16) does not replace it. */
    const double bc[3] = {10, NAN, NAN};
    ck_assert_int_eq(
        rl_trace_groups_add(&a, "gemm", one, one, "bf16", RL_ORIGIN_MEASURED, 1, 100, bc, 10), 0);
    ck_assert_int_eq(
        rl_trace_groups_add(&b, "gemm", one, one, "fp16", RL_ORIGIN_ANALYTIC, 1, 100, bc, 10), 0);
    rl_trace_groups_release(&g);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&g, &a), 0);
    ck_assert_str_eq(g.v[0].precision, "bf16");
    ck_assert_int_eq(rl_trace_groups_merge_rank(&g, &b), 0);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_str_eq(g.v[0].precision, "bf16");
    ck_assert_int_eq(g.v[0].origin, RL_ORIGIN_MEASURED);
    ck_assert_uint_eq(g.v[0].counted, 2);
    rl_trace_groups_release(&a);
    rl_trace_groups_release(&b);
    /* Launches of one group naming different collectives: the first
     * named (allreduce) is kept. */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"k\", \"collective\": \"allreduce\"},"
                                "{\"name\": \"k\"},"
                                "{\"name\": \"k\", \"collective\": \"allgather\"}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_str_eq(g.v[0].collective, "allreduce");
}
END_TEST

/* Keys and values at the edges of the fast paths. */
START_TEST(fast_path_edges)
{
    /* An empty key ("") is a key like any other: skipped with its value,
     * on both paths, and the kernel after it read (the key's closing quote
     * is its first byte). */
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        int rc = read_doc("{\"format\": \"roofline-trace\", \"\": 1, \"kernels\": ["
                          "{\"\": 2, \"name\": \"k\", \"flops\": 3, \"dram_bytes\": 4}]}");
        rl_trace_set_fast_path(true);
        ck_assert_msg(rc == 0, "fast %d: %s", fast, err);
        ck_assert_uint_eq(g.n, 1);
        ck_assert_str_eq(g.v[0].name, "k");
        ck_assert_double_eq(g.v[0].flops, 3);
    }
    /* comm_bytes of 16 digits (past the fast path's 15) sends the record to
     * the general path; the next, 4, stays on the fast one. Summed:
     * 1234567890123456 + 4 = 1234567890123460 (below 2^53, exact). */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"k\", \"flops\": 1, \"dram_bytes\": 1, "
                                "\"comm_bytes\": 1234567890123456},"
                                "{\"name\": \"k\", \"flops\": 1, \"dram_bytes\": 1, "
                                "\"comm_bytes\": 4}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_uint_eq(g.sum.kernels, 2);
    ck_assert_uint_eq(g.sum.read_fast, 1);
    ck_assert_uint_eq(g.v[0].comm_launches, 2);
    ck_assert_double_eq(g.v[0].comm_bytes, 1234567890123460.0);
    /* Fields the reader does not know, with true, null and false inside,
     * are skipped on the fast path: both records read there, 2 + 3 = 5
     * FLOPs. */
    ck_assert_msg(read_doc(HEAD "{\"name\": \"k\", \"x\": [true, null, false, {\"y\": null}], "
                                "\"flops\": 2, \"dram_bytes\": 1},"
                                "{\"z\": true, \"name\": \"k\", \"w\": null, \"flops\": 3, "
                                "\"dram_bytes\": 1}]}") == 0,
                  "%s", err);
    ck_assert_uint_eq(g.sum.kernels, 2);
    ck_assert_uint_eq(g.sum.read_fast, 2);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_double_eq(g.v[0].flops, 5);
    /* An unknown field's number of 62 characters (1 and 61 zeros), the
     * longest the general path reads, is skipped on the fast path too. */
    char doc[512], num[63];
    memset(num, '0', 62);
    num[0] = '1', num[62] = 0;
    snprintf(doc, sizeof doc,
             HEAD "{\"name\": \"k\", \"x\": %s, \"flops\": 2, \"dram_bytes\": 1}]}", num);
    ck_assert_msg(read_doc(doc) == 0, "%s", err);
    ck_assert_uint_eq(g.sum.read_fast, 1);
    ck_assert_double_eq(g.v[0].flops, 2);
    /* An empty name, then one of 100,000 bytes, on both paths: the reused
     * name buffer grows from its 1 byte ("" and its NUL) to 100,001. */
    size_t big = 100000, n = 0;
    char *text = malloc(big + 256);
    ck_assert_ptr_nonnull(text);
    n += (size_t)sprintf(text, HEAD "{\"name\": \"\", \"flops\": 1, \"dram_bytes\": 1}, "
                                    "{\"name\": \"");
    memset(text + n, 'b', big);
    n += big;
    sprintf(text + n, "\", \"flops\": 1, \"dram_bytes\": 1}]}");
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        int rc = read_doc(text);
        rl_trace_set_fast_path(true);
        ck_assert_msg(rc == 0, "fast %d: %s", fast, err);
        ck_assert_uint_eq(g.n, 2);
        size_t longest = 0;
        for (size_t k = 0; k < g.n; k++)
            longest = strlen(g.v[k].name) > longest ? strlen(g.v[k].name) : longest;
        ck_assert_uint_eq(longest, big);
        /* Both records whole in the buffer: the fast path reads both. */
        ck_assert_uint_eq(g.sum.read_fast, fast ? 2 : 0);
    }
    free(text);
    /* A FLOP count of 63 characters ("1." and 61 zeros): one past what the
     * fast path takes, so both paths give the general path's answer. */
    char num63[64];
    memset(num63, '0', 63);
    num63[0] = '1', num63[1] = '.', num63[63] = 0;
    snprintf(doc, sizeof doc, HEAD "{\"name\": \"k\", \"flops\": %s, \"dram_bytes\": 1}]}",
             num63);
    int rc_path[2];
    char err_path[2][RL_ERRMSG_SIZE];
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        rc_path[fast] = read_doc(doc);
        rl_trace_set_fast_path(true);
        snprintf(err_path[fast], sizeof err_path[fast], "%s", rc_path[fast] ? err : "");
    }
    ck_assert_int_eq(rc_path[0], rc_path[1]);
    ck_assert_str_eq(err_path[0], err_path[1]);
    ck_assert_uint_eq(g.sum.read_fast, 0);
}
END_TEST

/* Read one record with grid `grid` on both paths: both must agree (code,
 * message, grid); returns the code, *fast_reads the fast path's count. */
static int grid_both_paths(const char *grid, uint32_t want[3], uint64_t *fast_reads)
{
    char doc[512];
    snprintf(doc, sizeof doc, HEAD "{\"name\": \"k\", \"grid\": %s, \"flops\": 1, "
                                   "\"dram_bytes\": 1}]}", grid);
    int rc[2];
    char msg[2][RL_ERRMSG_SIZE];
    uint32_t got[2][3] = {{0}};
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        rc[fast] = read_doc(doc);
        rl_trace_set_fast_path(true);
        snprintf(msg[fast], sizeof msg[fast], "%s", rc[fast] ? err : "");
        if (rc[fast] == 0 && g.n == 1)
            memcpy(got[fast], g.v[0].grid, sizeof got[fast]);
        if (fast)
            *fast_reads = g.sum.read_fast;
    }
    ck_assert_msg(rc[0] == rc[1], "%s: general %d, fast %d (%s)", grid, rc[0], rc[1], msg[1]);
    ck_assert_str_eq(msg[0], msg[1]);
    ck_assert_int_eq(memcmp(got[0], got[1], sizeof got[0]), 0);
    if (want)
        memcpy(want, got[1], sizeof got[1]);
    return rc[1];
}

START_TEST(fast_path_dimensions)
{
    uint32_t dim[3];
    uint64_t fast;
    /* Plain integers up to 2^32 - 1 (10 digits) on the fast path. */
    ck_assert_int_eq(grid_both_paths("[4294967295, 0, 7]", dim, &fast), 0);
    ck_assert_uint_eq(dim[0], 4294967295u);
    ck_assert_uint_eq(dim[1], 0);
    ck_assert_uint_eq(dim[2], 7);
    ck_assert_uint_eq(fast, 1);
    ck_assert_int_eq(grid_both_paths("[ 1 ,\n2 , 3 ]", dim, &fast), 0);
    ck_assert_uint_eq(dim[2], 3);
    ck_assert_uint_eq(fast, 1);
    /* 2^32 is too big: the general path says so. */
    ck_assert_int_eq(grid_both_paths("[4294967296, 1, 1]", NULL, &fast), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 1: 'grid' holds a bad dimension");
    /* 11 digits, a leading zero, a fraction, an exponent: the general
     * path reads them (2.0 and 1e1 are whole numbers there). */
    ck_assert_int_eq(grid_both_paths("[42949672950, 1, 1]", NULL, &fast), RL_ESCHEMA);
    ck_assert_int_eq(grid_both_paths("[2.0, 1, 1]", dim, &fast), 0);
    ck_assert_uint_eq(dim[0], 2);
    ck_assert_uint_eq(fast, 0);
    ck_assert_int_eq(grid_both_paths("[1e1, 1, 1]", dim, &fast), 0);
    ck_assert_uint_eq(dim[0], 10);
    ck_assert_uint_eq(fast, 0);
    ck_assert_int_eq(grid_both_paths("[1, 1, 2E0]", dim, &fast), 0);
    ck_assert_uint_eq(dim[2], 2);
    ck_assert_uint_eq(fast, 0);
    /* A leading zero: the fast path leaves it to the general one (which
     * takes "07" as 7). */
    ck_assert_int_eq(grid_both_paths("[07, 1, 1]", dim, &fast), 0);
    ck_assert_uint_eq(dim[0], 7);
    ck_assert_uint_eq(fast, 0);
    ck_assert_int_eq(grid_both_paths("[0, 0, 0]", dim, &fast), 0);
    ck_assert_uint_eq(fast, 1);
    /* A missing element is malformed, first, middle or last; so is a
     * missing separator or closing bracket. */
    static const char *const bad[] = {"[, 2, 3]", "[1, , 3]", "[1, 2, ]", "[1, 2]",
                                      "[1 2 3]", "[1, 2, 3, 4]", "[]", "[-1, 2, 3]",
                                      "[1, 2, 3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_int_ne(grid_both_paths(bad[i], NULL, &fast), 0);
}
END_TEST

START_TEST(rank_fields_at_their_limits)
{
    /* 0 and 999999999 are the ends of a rank number; null leaves -1
     * (not given); unknown fields are skipped; strings are cut to their
     * fields (launcher 23 characters). */
    ck_assert_msg(read_trace("\"rank\": {\"rank\": 0, \"local_rank\": null, \"world_size\": 999999999,"
                             " \"launcher\": \"abcdefghijklmnopqrstuvwxyz\", \"hostname\": \"n1\","
                             " \"extra\": [1, 2]},", "") == 0, "%s", err);
    ck_assert(g.sum.rank.present);
    ck_assert_int_eq(g.sum.rank.rank, 0);
    ck_assert_int_eq(g.sum.rank.local_rank, -1);
    ck_assert_int_eq(g.sum.rank.world_size, 999999999);
    ck_assert_str_eq(g.sum.rank.launcher, "abcdefghijklmnopqrstuvw");
    ck_assert_str_eq(g.sum.rank.hostname, "n1");
    /* 2.5 is kept as its whole part; a launcher of null is empty. */
    ck_assert_msg(read_trace("\"rank\": {\"rank\": 2.5, \"launcher\": null},", "") == 0, "%s", err);
    ck_assert_int_eq(g.sum.rank.rank, 2);
    ck_assert_int_eq(g.sum.rank.world_size, -1);
    ck_assert_str_eq(g.sum.rank.launcher, "");
    /* An empty object: present, nothing given. */
    ck_assert_msg(read_trace("\"rank\": {},", "") == 0, "%s", err);
    ck_assert(g.sum.rank.present);
    ck_assert_int_eq(g.sum.rank.rank, -1);
    ck_assert_int_eq(g.sum.rank.local_rank, -1);
    /* null: no rank object. */
    ck_assert_msg(read_trace("\"rank\": null,", "") == 0, "%s", err);
    ck_assert(!g.sum.rank.present);
    /* 1e9, a negative, a string: refused. */
    static const char *const bad[] = {"{\"rank\": 1e9}", "{\"world_size\": 1000000000}",
                                      "{\"local_rank\": -1}", "{\"rank\": \"3\"}",
                                      "{\"rank\": true}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char head[128];
        snprintf(head, sizeof head, "\"rank\": %s,", bad[i]);
        ck_assert_int_eq(read_trace(head, ""), RL_ESCHEMA);
        ck_assert_str_eq(err, "'t.json': line 1: 'rank' fields must be whole numbers >= 0 or null");
    }
    ck_assert_int_eq(read_trace("\"rank\": 3,", ""), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 1: 'rank' must be an object");
    ck_assert_int_eq(read_trace("\"rank\": [],", ""), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 1: 'rank' must be an object");
}
END_TEST

START_TEST(fast_path_reads_every_field)
{
    /* Every field the reader takes, in records as `roofline trace` lays
     * them out: all five are read on the fast path, and both paths give
     * the values worked out here. */
    const char *doc =
        HEAD "{\"name\": \"k1\", \"grid\": [2, 3, 4], \"block\": [32, 8, 1], \"flops\": 1000,"
        " \"dram_bytes\": 250, \"l2_bytes\": 500, \"l1_bytes\": 7.5e+2, \"time_ns\": 12.5,"
        " \"precision\": \"bf16\", \"counts\": \"counters\", \"origin\": \"measured\"},\n"
        "{\"name\": \"k2\", \"flops\": 0.5, \"dram_bytes\": 1e2, \"time_ns\": null,"
        " \"precision\": \"abcdefghijklmnopqrstuvwxyz\", \"counts\": \"sampled\","
        " \"origin\": \"analytic\", \"comm_bytes\": 4096, \"collective\": \"allreduce\"},\n"
        "{\"name\": \"k3\", \"flops\": 7, \"l1_bytes\": 3, \"counts\": \"analytic\","
        " \"x\": {\"a\": [1, \"s\", true, null, false, {}], \"b\": -2.5}, \"y\": \"str\", \"z\": 12,"
        " \"w\": 2.5e-3, \"v\": 1E+2, \"u\": 0.5, \"t\": -0, \"s\": 7e1},\n"
        "{\"name\": \"k4\", \"counts\": \"none\", \"time_ns\": 9},\n"
        "{\"name\": \"k5\", \"counts\": \"weird\", \"flops\": null,"
        " \"collective\": \"abcdefghijklmnopqrstuvwxyz\", \"comm_bytes\": 0}]}";
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        int rc = read_doc(doc);
        rl_trace_set_fast_path(true);
        ck_assert_msg(rc == 0, "fast %d: %s", fast, err);
        ck_assert_uint_eq(g.sum.kernels, 5);
        ck_assert_uint_eq(g.sum.read_fast, fast ? 5 : 0);
        /* counts: one each of counters, sampled, analytic, none; "weird"
         * is none of them. */
        ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_COUNTERS], 1);
        ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_SAMPLED], 1);
        ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_ANALYTIC], 1);
        ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_NONE], 1);
        /* 12.5 + 9 ns in all. */
        ck_assert_double_eq(g.sum.time_ns, 21.5);
        const struct rl_trace_group *k = group("k1");
        ck_assert_ptr_nonnull(k);
        ck_assert_uint_eq(k->grid[0], 2);
        ck_assert_uint_eq(k->grid[1], 3);
        ck_assert_uint_eq(k->grid[2], 4);
        ck_assert_uint_eq(k->block[0], 32);
        ck_assert_uint_eq(k->block[1], 8);
        ck_assert_uint_eq(k->block[2], 1);
        ck_assert_double_eq(k->flops, 1000);
        ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 250);
        ck_assert_double_eq(k->bytes[RL_MEM_L2], 500);
        ck_assert_double_eq(k->bytes[RL_MEM_L1], 750);
        ck_assert_double_eq(k->counted_time_ns, 12.5);
        ck_assert_uint_eq(k->counted_timed, 1);
        ck_assert_str_eq(k->precision, "bf16");
        ck_assert_int_eq(k->origin, RL_ORIGIN_MEASURED);
        ck_assert(isnan(k->comm_bytes) || k->comm_launches == 0);
        k = group("k2");
        ck_assert_ptr_nonnull(k);
        ck_assert_double_eq(k->flops, 0.5);
        ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 100);
        ck_assert(isnan(k->bytes[RL_MEM_L2]));
        ck_assert(isnan(k->bytes[RL_MEM_L1]));
        ck_assert_uint_eq(k->counted, 1);
        ck_assert_uint_eq(k->counted_timed, 0);
        ck_assert_str_eq(k->precision, "abcdefghijklmnopqrstuvw");
        ck_assert_int_eq(k->origin, RL_ORIGIN_ANALYTIC);
        ck_assert_double_eq(k->comm_bytes, 4096);
        ck_assert_uint_eq(k->comm_launches, 1);
        ck_assert_str_eq(k->collective, "allreduce");
        k = group("k3");
        ck_assert_ptr_nonnull(k);
        ck_assert_double_eq(k->flops, 7);
        ck_assert(isnan(k->bytes[RL_MEM_DRAM]));
        ck_assert_double_eq(k->bytes[RL_MEM_L1], 3);
        ck_assert_str_eq(k->precision, "");
        k = group("k4");
        ck_assert_ptr_nonnull(k);
        ck_assert_uint_eq(k->launches, 1);
        ck_assert_uint_eq(k->counted, 0);
        ck_assert_double_eq(k->time_ns, 9);
        k = group("k5");
        ck_assert_ptr_nonnull(k);
        ck_assert_uint_eq(k->counted, 0);
        ck_assert_double_eq(k->time_ns, 0);
        ck_assert_str_eq(k->collective, "abcdefghijklmnopqrstuvw");
        ck_assert_double_eq(k->comm_bytes, 0);
        ck_assert_uint_eq(k->comm_launches, 1);
    }
}
END_TEST

START_TEST(fast_path_counts_lines)
{
    /* Records over several lines read on the fast path, then a bad one:
     * the error names its line (7), as the general path counts. */
    const char *doc = HEAD "\n"                                         /* line 1 */
                      "{\"name\": \"a\",\n \"flops\": 1,\r\n\t\"dram_bytes\": 2},\n" /* 2-4 */
                      "{\"name\": \"b\", \"x\": [1,\n 2], \"flops\": 1, \"dram_bytes\": 2},\n" /* 5-6 */
                      "{\"name\": 3}]}";                                /* 7 */
    for (int fast = 0; fast < 2; fast++) {
        rl_trace_set_fast_path(fast);
        int rc = read_doc(doc);
        rl_trace_set_fast_path(true);
        ck_assert_int_eq(rc, RL_ESCHEMA);
        ck_assert_str_eq(err, "'t.json': line 7: 'name' must be a string");
        ck_assert_uint_eq(g.sum.read_fast, fast ? 2 : 0);
    }
}
END_TEST

START_TEST(merge_rank_keeps_the_first_summary)
{
    /* The first rank read describes the merge even when it launched
     * nothing: a later rank adds its launches, not its GPU or rank. */
    struct rl_trace_groups a = {0}, b = {0}, m = {0};
    ck_assert_msg(read_trace("\"gpu\": {\"name\": \"GPU A\"}, \"rank\": {\"rank\": 0},", "") == 0,
                  "%s", err);
    a = g;
    memset(&g, 0, sizeof g);
    ck_assert_msg(read_trace("\"gpu\": {\"name\": \"GPU B\"}, \"rank\": {\"rank\": 1},",
                             "{\"name\": \"k\", \"flops\": 2, \"dram_bytes\": 4, \"time_ns\": 3}") == 0,
                  "%s", err);
    b = g;
    memset(&g, 0, sizeof g);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &a), 0);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &b), 0);
    ck_assert_str_eq(m.sum.gpu_name, "GPU A");
    ck_assert_int_eq(m.sum.rank.rank, 0);
    ck_assert_uint_eq(m.sum.kernels, 1);
    ck_assert_double_eq(m.sum.time_ns, 3);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_uint_eq(m.v[0].ranks, 1);
    ck_assert_double_eq(m.v[0].time_ns_max_rank, 3);
    rl_trace_groups_release(&a);
    rl_trace_groups_release(&b);
    rl_trace_groups_release(&m);
}
END_TEST

START_TEST(added_launches_edge_cases)
{
    /* No grid or block: zeros, read no further than three values. */
    const uint32_t dims[4] = {2, 3, 4, 99};
    const double bytes[RL_MEM_COUNT] = {1, 2, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "k", dims, NULL, NULL, RL_ORIGIN_ANALYTIC, 2, 6,
                                         bytes, 10),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, "j", NULL, dims, "fp16", RL_ORIGIN_MEASURED, 1, NAN,
                                         bytes, NAN),
                     0);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_uint_eq(g.v[0].grid[2], 4);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(g.v[0].block[i], 0);
        ck_assert_uint_eq(g.v[1].grid[i], 0);
    }
    ck_assert_uint_eq(g.v[1].block[2], 4);
    ck_assert_str_eq(g.v[0].precision, "");
    ck_assert_int_eq(g.v[0].origin, RL_ORIGIN_ANALYTIC);
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_uint_eq(g.v[0].counted, 2);
    ck_assert_uint_eq(g.v[0].counted_timed, 2);
    ck_assert_double_eq(g.v[0].bytes[RL_MEM_L2], 2);
    /* Timing only: no precision, counted 0, origin measured. */
    ck_assert_str_eq(g.v[1].precision, "");
    ck_assert_int_eq(g.v[1].origin, RL_ORIGIN_MEASURED);
    ck_assert_uint_eq(g.v[1].counted, 0);
    ck_assert_double_eq(g.v[1].time_ns, 0);
    ck_assert_uint_eq(g.sum.kernels, 3);
    ck_assert_double_eq(g.sum.time_ns, 10);
}
END_TEST

START_TEST(sniff_limits)
{
    const char *needle = "\"roofline-trace\"";
    ck_assert(rl_trace_sniff(needle, 16));
    ck_assert(!rl_trace_sniff(needle, 15));
    static char text[5000];
    memset(text, ' ', sizeof text);
    memcpy(text + 4096 - 16, needle, 16); /* ends at 4 KB */
    ck_assert(rl_trace_sniff(text, sizeof text));
    memset(text, ' ', sizeof text);
    memcpy(text + 4096 - 15, needle, 16); /* one byte past it */
    ck_assert(!rl_trace_sniff(text, sizeof text));
}
END_TEST

#ifndef __SANITIZE_ADDRESS__ /* ASan reserves its own address space */
/* Allow the process only extra bytes more address space than it maps now;
 * returns the old limit. */
static struct rlimit limit_memory(size_t extra)
{
    struct rlimit old;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
    FILE *f = fopen("/proc/self/statm", "r");
    ck_assert_ptr_nonnull(f);
    unsigned long pages = 0;
    ck_assert_int_eq(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    struct rlimit rl = old;
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + extra;
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
    return old;
}

START_TEST(out_of_memory)
{
    /* No room for the reader's buffer. */
    const char *doc = HEAD "]}";
    FILE *f = fmemopen((void *)doc, strlen(doc), "r");
    ck_assert_ptr_nonnull(f);
    struct rlimit old = limit_memory(CHUNK_BYTES / 4);
    int rc = rl_trace_groups_read(&g, f, "t.json", err);
    setrlimit(RLIMIT_AS, &old);
    fclose(f);
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_str_eq(err, "out of memory");
    /* Room for the buffer, not for a 64 MB string. */
    size_t len = 64u << 20;
    char *big = malloc(len);
    ck_assert_ptr_nonnull(big);
    size_t n = (size_t)sprintf(big, "{\"format\": \"");
    memset(big + n, 'a', len - n);
    f = fmemopen(big, len, "r");
    ck_assert_ptr_nonnull(f);
    old = limit_memory(8 * CHUNK_BYTES);
    rc = rl_trace_groups_read(&g, f, "t.json", err);
    setrlimit(RLIMIT_AS, &old);
    fclose(f);
    free(big);
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_str_eq(err, "'t.json': line 1: out of memory");
}
END_TEST

/* Room for the reader's buffer, not for the groups: 200,000 kernels of
 * distinct names need 200,000 groups (tens of MB, each group well over
 * 40 bytes), past 8 MB more address space. The launch that finds no room
 * for its group fails the read: RL_ENOMEM, not a trace with kernels left
 * out. */
/* Room for an 8 MB kernel name as the general path decodes it (its string
 * buffer, 8 MiB), not for the copy the launch keeps: RL_ENOMEM. */
START_TEST(out_of_memory_for_a_name)
{
    const size_t n = (8u << 20) - 100;
    char *doc = malloc(n + 64);
    ck_assert_ptr_nonnull(doc);
    size_t len = (size_t)sprintf(doc, "%s{\"name\": \"", HEAD);
    memset(doc + len, 'a', n);
    len += n;
    len += (size_t)sprintf(doc + len, "\"}]}");
    FILE *f = fmemopen(doc, len, "r");
    ck_assert_ptr_nonnull(f);
    rl_trace_groups_release(&g);
    rl_trace_set_fast_path(false);
    struct rlimit old = limit_memory(14u << 20);
    int rc = rl_trace_groups_read(&g, f, "t.json", err);
    setrlimit(RLIMIT_AS, &old);
    rl_trace_set_fast_path(true);
    fclose(f);
    free(doc);
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_msg(strstr(err, "out of memory"), "%s", err);
}
END_TEST

START_TEST(out_of_memory_for_groups)
{
    const size_t n = 200000;
    size_t cap = n * 48 + 64, len = 0;
    char *doc = malloc(cap);
    ck_assert_ptr_nonnull(doc);
    len += (size_t)sprintf(doc + len, "%s", HEAD);
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(doc + len, "%s{\"name\": \"k%zu\"}", i ? "," : "", i);
    len += (size_t)sprintf(doc + len, "]}");
    FILE *f = fmemopen(doc, len, "r");
    ck_assert_ptr_nonnull(f);
    rl_trace_groups_release(&g);
    struct rlimit old = limit_memory(8 * CHUNK_BYTES);
    int rc = rl_trace_groups_read(&g, f, "t.json", err);
    setrlimit(RLIMIT_AS, &old);
    fclose(f);
    free(doc);
    ck_assert_int_eq(rc, RL_ENOMEM);
    ck_assert_msg(strstr(err, "out of memory"), "%s", err);
}
END_TEST
#endif

/* What `roofline trace` prints of a trace comes from the reader too: the
 * launches by where their counts come from, the replay passes, the
 * calibration's line and the notes. */
START_TEST(summary_for_the_trace_command)
{
    ck_assert_int_eq(read_trace("\"counters\": {\"mode\": \"default\", \"status\": \"ok\", "
                                "\"passes\": 2, \"tensor_check\": \"cuBLASLt BF16: 2.0 FLOP/op\"},"
                                "\"notes\": \"a; b\",",
                                "{\"name\": \"k\", \"counts\": \"counters\"},"
                                "{\"name\": \"k\", \"counts\": \"sampled\"},"
                                "{\"name\": \"k\", \"counts\": \"sampled\"},"
                                "{\"name\": \"a\", \"counts\": \"analytic\"},"
                                "{\"name\": \"n\", \"counts\": \"none\"},"
                                "{\"name\": \"x\", \"counts\": \"other\"},"
                                "{\"name\": \"y\"}"),
                     0);
    ck_assert_uint_eq(g.sum.kernels, 7);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_COUNTERS], 1);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_SAMPLED], 2);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_ANALYTIC], 1);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_NONE], 1);
    ck_assert_double_eq(g.sum.passes, 2);
    ck_assert_str_eq(g.sum.tensor_check, "cuBLASLt BF16: 2.0 FLOP/op");
    ck_assert_str_eq(g.sum.notes, "a; b");
    ck_assert_int_eq(read_trace("", "{\"name\": \"k\", \"counts\": 3}"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t.json': line 2: 'counts' must be a string");
}
END_TEST

/* Read doc on both paths; the fast path's groups into *fast (the caller
 * releases it), the general path's left in g. Both must agree on the code,
 * the message and every group field; returns the fast path's read_fast. */
static uint64_t both_paths_agree(const char *text, size_t len, struct rl_trace_groups *fast)
{
    int rc[2];
    char msg[2][RL_ERRMSG_SIZE];
    uint64_t read_fast = 0;
    for (int f = 1; f >= 0; f--) {
        rl_trace_set_fast_path(f);
        rc[f] = read_bytes(text, len);
        rl_trace_set_fast_path(true);
        snprintf(msg[f], sizeof msg[f], "%s", rc[f] ? err : "");
        if (f) {
            read_fast = g.sum.read_fast;
            *fast = g;
            memset(&g, 0, sizeof g);
        }
    }
    ck_assert_msg(rc[0] == rc[1], "general %d (%s), fast %d (%s)", rc[0], msg[0], rc[1], msg[1]);
    ck_assert_str_eq(msg[0], msg[1]);
    same_groups(&g, fast, "fast path");
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *x = &g.v[i], *y = &fast->v[i];
        ck_assert_int_eq(memcmp(x->grid, y->grid, sizeof x->grid), 0);
        ck_assert_int_eq(memcmp(x->block, y->block, sizeof x->block), 0);
        ck_assert_int_eq(x->origin, y->origin);
        ck_assert_str_eq(x->collective, y->collective);
        ck_assert_uint_eq(x->comm_launches, y->comm_launches);
        ck_assert(x->comm_bytes == y->comm_bytes || (isnan(x->comm_bytes) && isnan(y->comm_bytes)));
        ck_assert_uint_eq(x->flops_only, y->flops_only);
        ck_assert_uint_eq(x->bytes_only, y->bytes_only);
    }
    ck_assert_uint_eq(g.sum.kernels, fast->sum.kernels);
    for (int i = 0; i < RL_TRACE_COUNTS_N; i++)
        ck_assert_uint_eq(g.sum.by_counts[i], fast->sum.by_counts[i]);
    return read_fast;
}

START_TEST(fast_path_takes_plain_records)
{
    /* Each record holds what the fast path reads itself at one of its
     * limits: every one is read there (read_fast counts them all), with
     * the general path's values. */
    char deep[2 * 64 + 1]; /* 64 nested arrays, the fast path's stack */
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    deep[128] = 0;
    char num62[63]; /* "1." and 60 zeros: 62 characters, the longest taken */
    memset(num62, '0', 62);
    num62[0] = '1', num62[1] = '.', num62[62] = 0;
    char doc[4096];
    snprintf(doc, sizeof doc,
             HEAD
             /* 1: a tab, CR, LF or space around every token */
             "{\t\"name\"\t:\t\"ws\"\r\n,\r\"flops\"\n:\n1\t,\t\"dram_bytes\" : 2 \r\n},\n"
             /* 2: a name of one 8-byte word; 15 digits; 0 */
             "{\"name\": \"abcdefgh\", \"flops\": 999999999999999, \"dram_bytes\": 0},\n"
             /* 3: two words and UTF-8; 0.0; 62 characters; every digit
              * and sign of a decimal (9.009) */
             "{\"name\": \"abcdef\xc3\xa9" "ghijklmnop\", \"flops\": 0.0, \"l2_bytes\": 0,"
             " \"time_ns\": %s, \"dram_bytes\": 90.09E-1},\n"
             /* 4: skipped values: a long string with every plain escape,
              * the quote in its second word; nesting to the stack's depth;
              * numbers with a 0 and a 9 in each of their parts */
             "{\"x\": \"abcdefghij\\\"klmnop\\\\qr\\/\\b\\f\\n\\r\\tuvwxyz\", \"name\": \"skip\","
             " \"y\": [[[[]]], {}], \"z\": {\"a\": {\"b\": []}, \"c\": \"abcdefghijklmnopq\"},"
             " \"w\": -0.5e-3, \"v\": -12, \"u\": 1E+2, \"t\": true, \"f\": false, \"n\": null,"
             " \"deep\": %s, \"e\": 0, \"r\": 90.09e+90, \"q\": -0.0E-09, \"flops\": 1,"
             " \"l1_bytes\": 1},\n"
             /* 5: nulls and the words */
             "{\"name\": \"c\", \"flops\": null, \"dram_bytes\": 1, \"comm_bytes\": null,"
             " \"counts\": \"none\", \"origin\": \"measured\", \"precision\": \"fp8\","
             " \"collective\": \"allgather\"},\n"
             /* 6: precision of 24 characters, collective of 23: cut to 23 */
             "{\"name\": \"p\", \"precision\": \"abcdefghijklmnopqrstuvwx\","
             " \"collective\": \"abcdefghijklmnopqrstuvw\", \"flops\": 1, \"dram_bytes\": 1,"
             " \"comm_bytes\": 0.5, \"counts\": \"counters\", \"origin\": \"analytic\"}]}",
             num62, deep);
    struct rl_trace_groups fast = {0};
    ck_assert_uint_eq(both_paths_agree(doc, strlen(doc), &fast), 6);
    ck_assert_uint_eq(fast.sum.kernels, 6);
    const struct rl_trace_group *k = group("ws");
    ck_assert_double_eq(k->flops, 1);
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 2);
    k = group("abcdefgh");
    ck_assert_double_eq(k->flops, 999999999999999.0);
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 0);
    k = group("abcdef\xc3\xa9" "ghijklmnop");
    ck_assert_uint_eq(k->counted, 1);
    ck_assert_double_eq(k->flops, 0);
    ck_assert_double_eq_tol(k->bytes[RL_MEM_DRAM], 9.009, 1e-12);
    ck_assert_double_eq(k->counted_time_ns, 1);
    k = group("skip");
    ck_assert_double_eq(k->bytes[RL_MEM_L1], 1);
    k = group("c");
    ck_assert_uint_eq(k->bytes_only, 1);
    ck_assert_uint_eq(k->comm_launches, 0);
    ck_assert_str_eq(k->collective, "allgather");
    k = group("p");
    ck_assert_str_eq(k->precision, "abcdefghijklmnopqrstuvw");
    ck_assert_str_eq(k->collective, "abcdefghijklmnopqrstuvw");
    ck_assert_int_eq(k->origin, RL_ORIGIN_ANALYTIC);
    ck_assert_double_eq(k->comm_bytes, 0.5);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_NONE], 1);
    ck_assert_uint_eq(g.sum.by_counts[RL_TRACE_COUNTS_COUNTERS], 1);
    rl_trace_groups_release(&fast);
}
END_TEST

START_TEST(fast_path_gives_up_alike)
{
    /* What the fast path must not take itself, each where its word-at-a-
     * time and byte tests look: both paths give the general path's
     * answer (the name decoded, the same error), and the record the fast
     * path gives up on is the one read_fast misses. */
    static const struct {
        const char *text;
        size_t len;
        uint64_t fast; /* records the fast path reads */
    } docs[] = {
#define DOC(s, n) {s, sizeof s - 1, n}
        /* an escape in a name's first and in its second 8-byte word */
        DOC(HEAD "{\"name\": \"ab\\tcdefghijk\", \"flops\": 1, \"dram_bytes\": 1},"
                 "{\"name\": \"abcdefghij\\u0041klmnop\", \"flops\": 1, \"dram_bytes\": 1},"
                 "{\"name\": \"ok\", \"flops\": 1, \"dram_bytes\": 1}]}", 1),
        /* a control byte in a long name (refused), between two tokens
         * (refused), in a long skipped string (allowed there) */
        DOC(HEAD "{\"name\": \"abcdefghij\x01klmnop\", \"flops\": 1}]}", 0),
        DOC(HEAD "{\"name\": \"abcdefgh\x1f\", \"flops\": 1}]}", 0),
        DOC(HEAD "{\"name\": \"k\",\x01\"flops\": 1}]}", 0),
        DOC(HEAD "{\"name\": \"k\",\f\"flops\": 1}]}", 0),
        DOC(HEAD "{\"name\": \"k\", \"flops\": 1\x0b}]}", 0),
        DOC(HEAD "{\"name\": \"k\", \"x\": \"abcdefghij\x01klmnop\", \"flops\": 1,"
                 " \"dram_bytes\": 1}]}", 0),
        /* a quote or a backslash in a skipped string's first word */
        DOC(HEAD "{\"x\": \"a\\\\\", \"name\": \"k\", \"y\": \"\\\"abcdefghij\", \"flops\": 1,"
                 " \"dram_bytes\": 1}]}", 1),
        /* in a skipped string: \u (decoded by the general path only), an
         * escape JSON lacks, a backslash before a NUL byte: each read by
         * the general path, the last two refused there */
        DOC(HEAD "{\"name\": \"k\", \"x\": \"ab\\u0041\", \"flops\": 1, \"dram_bytes\": 1}]}", 0),
        DOC(HEAD "{\"name\": \"k\", \"x\": \"ab\\x\", \"flops\": 1, \"dram_bytes\": 1}]}", 0),
        DOC(HEAD "{\"name\": \"k\", \"x\": \"ab\\\0\", \"flops\": 1, \"dram_bytes\": 1}]}", 0),
        /* 16 digits, a leading zero: the general path's numbers */
        DOC(HEAD "{\"name\": \"k\", \"flops\": 1000000000000000, \"dram_bytes\": 1},"
                 "{\"name\": \"k\", \"flops\": 1, \"dram_bytes\": 00}]}", 0),
#undef DOC
    };
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        struct rl_trace_groups fast = {0};
        uint64_t n = both_paths_agree(docs[i].text, docs[i].len, &fast);
        ck_assert_msg(n == docs[i].fast, "doc %zu: %llu read fast, not %llu", i,
                      (unsigned long long)n, (unsigned long long)docs[i].fast);
        rl_trace_groups_release(&fast);
    }
    /* 65 nested arrays, one past the fast path's stack of 64. */
    char doc[512];
    int n = snprintf(doc, sizeof doc, HEAD "{\"name\": \"k\", \"x\": ");
    memset(doc + n, '[', 65);
    memset(doc + n + 65, ']', 65);
    snprintf(doc + n + 130, sizeof doc - (size_t)n - 130, ", \"flops\": 1, \"dram_bytes\": 1}]}");
    struct rl_trace_groups fast = {0};
    ck_assert_uint_eq(both_paths_agree(doc, strlen(doc), &fast), 0);
    ck_assert_uint_eq(g.n, 1);
    rl_trace_groups_release(&fast);
    /* The escapes decoded: a tab and an 'A'. */
    both_paths_agree(docs[0].text, docs[0].len, &fast);
    ck_assert_ptr_nonnull(group("ab\tcdefghijk"));
    ck_assert_ptr_nonnull(group("abcdefghijAklmnop"));
    rl_trace_groups_release(&fast);
}
END_TEST

START_TEST(added_launch_keeps_every_field)
{
    /* A launch added whole (the PyTorch reader's way): grid 2x3x4, block
     * 32x8x1, 3 launches of 600 FLOPs, 90 DRAM bytes and 30 ns in all,
     * a collective of 8 GPUs moving 64 bytes; the group holds each field
     * as given. */
    const uint32_t grid[3] = {2, 3, 4}, block[3] = {32, 8, 1};
    struct rl_trace_launch l = {.name = "nccl_k", .grid = grid, .block = block,
                                .precision = "bf16", .origin = RL_ORIGIN_ANALYTIC,
                                .launches = 3, .flops = 600, .time_ns = 30, .comm_bytes = 64,
                                .collective = "allreduce", .comm_group_size = 8,
                                .op = "aten::mm", .shapes = "[[2, 3]]", .dtype = "bf16"};
    l.bytes[RL_MEM_DRAM] = 90;
    l.bytes[RL_MEM_L2] = l.bytes[RL_MEM_L1] = NAN;
    rl_trace_groups_release(&g);
    ck_assert_int_eq(rl_trace_groups_add_launch(&g, &l), 0);
    ck_assert_uint_eq(g.n, 1);
    const struct rl_trace_group *k = &g.v[0];
    ck_assert_uint_eq(k->grid[0], 2);
    ck_assert_uint_eq(k->grid[1], 3);
    ck_assert_uint_eq(k->grid[2], 4);
    ck_assert_uint_eq(k->block[0], 32);
    ck_assert_uint_eq(k->block[1], 8);
    ck_assert_uint_eq(k->block[2], 1);
    ck_assert_str_eq(k->precision, "bf16");
    ck_assert_int_eq(k->origin, RL_ORIGIN_ANALYTIC);
    ck_assert_uint_eq(k->launches, 3);
    ck_assert_uint_eq(k->counted, 3);
    ck_assert_double_eq(k->flops, 600);
    ck_assert_double_eq(k->bytes[RL_MEM_DRAM], 90);
    ck_assert_double_eq(k->counted_time_ns, 30);
    ck_assert_double_eq(k->comm_bytes, 64);
    ck_assert_uint_eq(k->comm_launches, 3);
    ck_assert_str_eq(k->collective, "allreduce");
    ck_assert_int_eq(k->comm_group_size, 8);
    ck_assert_str_eq(k->op, "aten::mm");
    ck_assert_str_eq(k->shapes, "[[2, 3]]");
    ck_assert_str_eq(k->dtype, "bf16");
    ck_assert_uint_eq(g.sum.kernels, 3);
    ck_assert_double_eq(g.sum.time_ns, 30);
    /* No grid, a block: the grid is 0x0x0 and the block whole; 0
     * launches count as 1. */
    l.grid = NULL;
    l.launches = 0;
    l.name = "k2";
    ck_assert_int_eq(rl_trace_groups_add_launch(&g, &l), 0);
    ck_assert_uint_eq(g.n, 2);
    k = &g.v[1];
    ck_assert_uint_eq(k->grid[0] + k->grid[1] + k->grid[2], 0);
    ck_assert_uint_eq(k->block[0], 32);
    ck_assert_uint_eq(k->block[1], 8);
    ck_assert_uint_eq(k->block[2], 1);
    ck_assert_uint_eq(k->launches, 1);
    ck_assert_uint_eq(g.sum.kernels, 4);
}
END_TEST

START_TEST(reorder_keeps_the_table)
{
    /* Groups a, b, c, d; the last three put in the order d, b, c (order
     * {2, 0, 1} from first = 1): the table is rebuilt at its size, so a
     * launch of each name after it joins its group (one launch more
     * each, still 4 groups, a first). */
    const double bytes[RL_MEM_COUNT] = {1, NAN, NAN};
    static const char *const names[] = {"a", "b", "c", "d"};
    rl_trace_groups_release(&g);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(rl_trace_groups_add(&g, names[i], NULL, NULL, "fp32",
                                             RL_ORIGIN_MEASURED, 1, 1, bytes, 1), 0);
    size_t slots = g.slots;
    const uint32_t order[3] = {2, 0, 1};
    ck_assert_int_eq(rl_trace_groups_reorder(&g, 1, order), 0);
    ck_assert_uint_eq(g.n, 4);
    ck_assert_uint_eq(g.slots, slots);
    ck_assert_str_eq(g.v[0].name, "a");
    ck_assert_str_eq(g.v[1].name, "d");
    ck_assert_str_eq(g.v[2].name, "b");
    ck_assert_str_eq(g.v[3].name, "c");
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(rl_trace_groups_add(&g, names[i], NULL, NULL, "fp32",
                                             RL_ORIGIN_MEASURED, 1, 1, bytes, 1), 0);
    ck_assert_uint_eq(g.n, 4);
    for (size_t i = 0; i < g.n; i++)
        ck_assert_uint_eq(g.v[i].launches, 2);
    /* Nothing to reorder (first = n): the same groups, table whole. */
    ck_assert_int_eq(rl_trace_groups_reorder(&g, 4, order), 0);
    ck_assert_uint_eq(g.n, 4);
    ck_assert_str_eq(g.v[1].name, "d");
    ck_assert_int_eq(rl_trace_groups_add(&g, "d", NULL, NULL, "fp32", RL_ORIGIN_MEASURED, 1, 1,
                                         bytes, 1), 0);
    ck_assert_uint_eq(g.v[1].launches, 3);
}
END_TEST

/* One launch of "nccl" on rank groups r: the collective, its GPUs, its
 * message bytes and time as given. */
static void put_comm(struct rl_trace_groups *r, const char *collective, int gpus,
                     double comm_bytes, double time_ns)
{
    const uint32_t one[3] = {1, 1, 1};
    struct rl_trace_launch l = {.name = "nccl", .grid = one, .block = one,
                                .origin = RL_ORIGIN_MEASURED, .launches = 1, .flops = NAN,
                                .time_ns = time_ns, .comm_bytes = comm_bytes,
                                .collective = collective, .comm_group_size = gpus};
    for (int m = 0; m < RL_MEM_COUNT; m++)
        l.bytes[m] = NAN;
    ck_assert_int_eq(rl_trace_groups_add_launch(r, &l), 0);
}

START_TEST(merge_rank_keeps_the_first_collective)
{
    /* Rank 0 launched nccl as an allreduce of 8 GPUs (64 bytes, 30 ns);
     * rank 1 as an allgather of 4 (16 bytes, 50 ns); a third launched it
     * with neither named (0 GPUs, 4 bytes, 10 ns). Merged: the first
     * named collective and group size stay (allreduce, 8), the bytes and
     * launches add (64 + 16 + 4 = 84 over 3), 3 ranks, 50 ns the most
     * one rank took. */
    struct rl_trace_groups r[3] = {{0}}, m = {0};
    put_comm(&r[0], "allreduce", 8, 64, 30);
    put_comm(&r[1], "allgather", 4, 16, 50);
    put_comm(&r[2], NULL, 0, 4, 10);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &r[i]), 0);
    ck_assert_uint_eq(m.n, 1);
    const struct rl_trace_group *k = &m.v[0];
    ck_assert_str_eq(k->collective, "allreduce");
    ck_assert_int_eq(k->comm_group_size, 8);
    ck_assert_double_eq(k->comm_bytes, 84);
    ck_assert_uint_eq(k->comm_launches, 3);
    ck_assert_uint_eq(k->launches, 3);
    ck_assert_uint_eq(k->ranks, 3);
    ck_assert_double_eq(k->time_ns_max_rank, 50);
    ck_assert_double_eq(k->time_ns, 90);
    rl_trace_groups_release(&m);
    /* The unnamed rank first: the names come from the next one. */
    ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &r[2]), 0);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &r[1]), 0);
    ck_assert_str_eq(m.v[0].collective, "allgather");
    ck_assert_int_eq(m.v[0].comm_group_size, 4);
    ck_assert_double_eq(m.v[0].time_ns_max_rank, 50);
    rl_trace_groups_release(&m);
    for (int i = 0; i < 3; i++)
        rl_trace_groups_release(&r[i]);
}
END_TEST

START_TEST(document_fields_of_another_type)
{
    /* A document field of a type the reader does not take is skipped
     * whole, and sets nothing: an object for "incomplete", a string for
     * "gpu", a number for "counters" and "notes", an array for "program";
     * a boolean under another key is not "incomplete". */
    ck_assert_msg(read_trace("\"incomplete\": {\"a\": [1, true]}, \"gpu\": \"H100\","
                             " \"counters\": 3, \"notes\": 5, \"program\": [\"x\"], \"flag\": true,",
                             "{\"name\": \"k\"}") == 0,
                  "%s", err);
    ck_assert(!g.sum.incomplete);
    ck_assert_str_eq(g.sum.gpu_name, "");
    ck_assert_str_eq(g.sum.notes, "");
    ck_assert_str_eq(g.sum.program, "");
    ck_assert_str_eq(g.sum.counters_status, "");
    ck_assert_uint_eq(g.sum.kernels, 1);
    /* The same keys with their own types. */
    ck_assert_msg(read_trace("\"incomplete\": true, \"gpu\": {\"name\": \"H100\"},"
                             " \"counters\": {\"status\": \"ok\"}, \"notes\": \"n\", \"program\": \"p\","
                             " \"flag\": false,", "") == 0, "%s", err);
    ck_assert(g.sum.incomplete);
    ck_assert_str_eq(g.sum.gpu_name, "H100");
    ck_assert_str_eq(g.sum.counters_status, "ok");
    ck_assert_str_eq(g.sum.notes, "n");
    ck_assert_str_eq(g.sum.program, "p");
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
    tcase_add_test(core, summary_for_the_trace_command);
    tcase_add_test(core, numbers);
    tcase_add_test(core, added_launches);
    tcase_add_test(core, sniff);
    tcase_add_test(core, three_readers_agree);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, teardown);
    tcase_add_test(limits, flops_without_bytes_are_kept_apart);
    tcase_add_test(limits, negative_numbers_are_refused);
    tcase_add_test(limits, bad_fields_are_refused);
    tcase_add_test(limits, string_escapes);
    tcase_add_test(limits, surrogate_pairs);
    tcase_add_test(limits, string_errors);
    tcase_add_test(limits, long_strings);
    tcase_add_test(limits, fast_and_general_paths_agree);
    tcase_add_test(limits, two_cores_read_alike);
    tcase_add_test(limits, helper_takes_a_single_record);
    tcase_add_test(limits, keys);
    tcase_add_test(limits, numbers_at_their_limits);
    tcase_add_test(limits, words);
    tcase_add_test(limits, skipped_values);
    tcase_add_test(limits, object_errors);
    tcase_add_test(limits, every_truncation_is_refused);
    tcase_add_test(limits, summary_edge_cases);
    tcase_add_test(limits, launch_fields_start_fresh);
    tcase_add_test(limits, many_kernels);
    tcase_add_test(limits, tokens_across_the_buffer_edge);
    tcase_add_test(limits, one_byte_files);
    tcase_add_test(limits, read_errors);
    tcase_add_test(limits, release_frees_everything);
    tcase_add_test(limits, added_launches_edge_cases);
    tcase_add_test(limits, ranks_merge_bytes_only_kernels);
    tcase_add_test(limits, fast_path_edges);
    tcase_add_test(limits, fast_path_dimensions);
    tcase_add_test(limits, merge_rank_keeps_the_first_summary);
    tcase_add_test(limits, two_cores_merge_every_field);
    tcase_add_test(limits, fast_path_reads_every_field);
    tcase_add_test(limits, fast_path_counts_lines);
    tcase_add_test(limits, rank_fields_at_their_limits);
    tcase_add_test(limits, sniff_limits);
    tcase_add_test(limits, fast_path_takes_plain_records);
    tcase_add_test(limits, fast_path_gives_up_alike);
    tcase_add_test(limits, added_launch_keeps_every_field);
    tcase_add_test(limits, reorder_keeps_the_table);
    tcase_add_test(limits, merge_rank_keeps_the_first_collective);
    tcase_add_test(limits, document_fields_of_another_type);
#ifndef __SANITIZE_ADDRESS__
    tcase_add_test(limits, out_of_memory);
    tcase_add_test(limits, out_of_memory_for_groups);
    tcase_add_test(limits, out_of_memory_for_a_name);
#endif
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(tracefile_suite()); }
