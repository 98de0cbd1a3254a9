/* check_records.c - tests of kernel records and their JSON files. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/readers/records.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int parse(const char *text, struct rl_record_list *l, char *err)
{
    memset(l, 0, sizeof *l);
    return rl_records_parse(l, text, strlen(text), "k.json", err);
}

START_TEST(bare_array)
{
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(parse("[{\"name\":\"gemv\",\"flops\":2e8,\"bytes\":2e8,\"time_ns\":50000},"
                           " {\"name\":\"gemm\",\"flops\":1e12,\"bytes\":1e9}]", &l, err), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_str_eq(l.v[0].name, "gemv");
    ck_assert_double_eq(l.v[0].perf.flops, 2e8);
    ck_assert_double_eq(l.v[0].perf.bytes[RL_MEM_DRAM], 2e8);
    ck_assert(isnan(l.v[0].perf.bytes[RL_MEM_L2]));
    ck_assert_double_eq(l.v[0].perf.time_ns, 50000);
    ck_assert_uint_eq(l.v[0].count, 1);
    ck_assert_int_eq(l.v[0].origin, RL_ORIGIN_MEASURED);
    ck_assert(isnan(l.v[1].perf.time_ns));
    rl_record_list_release(&l);
}
END_TEST

START_TEST(object_with_levels_and_extras)
{
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(parse("{\"schema_version\":1,\"kernels\":[{\"name\":\"k\",\"flops\":10,"
                           "\"dram_bytes\":4,\"l2_bytes\":8,\"l1_bytes\":16,\"time_ns\":1,"
                           "\"count\":3,\"precision\":\"fp16\",\"origin\":\"analytic\","
                           "\"grid\":[1,1,1]}]}", &l, err), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_double_eq(l.v[0].perf.bytes[RL_MEM_DRAM], 4);
    ck_assert_double_eq(l.v[0].perf.bytes[RL_MEM_L2], 8);
    ck_assert_double_eq(l.v[0].perf.bytes[RL_MEM_L1], 16);
    ck_assert_uint_eq(l.v[0].count, 3);
    ck_assert_str_eq(l.v[0].precision, "fp16");
    ck_assert_int_eq(l.v[0].origin, RL_ORIGIN_ANALYTIC);
    rl_record_list_release(&l);
    /* Bytes at one level only are enough. */
    ck_assert_int_eq(parse("[{\"name\":\"k\",\"flops\":1,\"l2_bytes\":8}]", &l, err), 0);
    ck_assert(isnan(l.v[0].perf.bytes[RL_MEM_DRAM]));
    rl_record_list_release(&l);
    /* An empty list is valid. */
    ck_assert_int_eq(parse("[]", &l, err), 0);
    ck_assert_uint_eq(l.n, 0);
    rl_record_list_release(&l);
}
END_TEST

START_TEST(example_file_loads)
{
    struct rl_record_list l = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_records_load(&l, ROOFLINE_SOURCE_DIR
                                     "/data/examples/llm-decode-prefill.json", err),
                     0);
    ck_assert_uint_eq(l.n, 2);
    /* GEMV: 2 FLOP per BF16 weight -> about 1 FLOP/byte. */
    ck_assert_double_eq_tol(l.v[0].perf.flops / l.v[0].perf.bytes[RL_MEM_DRAM], 1.0, 1e-3);
    rl_record_list_release(&l);
}
END_TEST

/* Each bad input: the code and a fragment the message must hold. */
static void assert_bad(const char *text, const char *fragment)
{
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE] = "";
    int rc = parse(text, &l, err);
    rl_record_list_release(&l);
    ck_assert_msg(rc == RL_ESCHEMA || rc == RL_EPARSE, "accepted: %s", text);
    ck_assert_msg(strstr(err, fragment) != NULL, "'%s' lacks '%s'", err, fragment);
    ck_assert_msg(strncmp(err, "'k.json': line ", 15) == 0, "no file/line: %s", err);
}

START_TEST(bad_records_name_file_line_and_kernel)
{
    assert_bad("[{\"name\":\"a\",\"flops\":1,\"bytes\":1},\n {\"name\":\"gemv\",\n \"bytes\":4}]",
               "line 2: [1] 'gemv': missing 'flops'");
    assert_bad("{\"kernels\":[\n{\"name\":\"g\",\"flops\":1,\n\"bytes\":-4}]}",
               "line 3: kernels[0] 'g': 'bytes' must be a number >= 0");
    assert_bad("[{\"name\":\"g\",\"flops\":\"1e9\",\"bytes\":4}]", "'flops' must be a number");
    assert_bad("[{\"name\":\"g\",\"flops\":1,\"byts\":4}]", "unknown key 'byts'");
    assert_bad("[{\"name\":\"g\",\"flops\":1}]", "missing 'bytes'");
    assert_bad("[{\"flops\":1,\"bytes\":1}]", "missing 'name'");
    assert_bad("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"dram_bytes\":2}]", "disagree");
    assert_bad("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"count\":0.5}]", "whole number");
    assert_bad("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"origin\":\"guess\"}]", "'origin'");
    assert_bad("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"time_ns\":-1}]", "'time_ns'");
    assert_bad("[7]", "expected an object");
    assert_bad("{\"kernel\":[]}", "expected a JSON array of kernels");
    assert_bad("[{\"name\":\"g\",\"flops\":1,\n\"bytes\":1}", "truncated");
    assert_bad("[{\"name\":\"g\" \"flops\":1}]", "malformed JSON");
}
END_TEST

START_TEST(missing_file)
{
    struct rl_record_list l = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_records_load(&l, "/nonexistent/k.json", err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot open '/nonexistent/k.json'"));
}
END_TEST

START_TEST(many_records_grow_the_list)
{
    /* 40 records: past the first allocation (16) and its doubling (32);
     * record i has flops i and bytes 2i. */
    char text[4096] = "[";
    for (int i = 0; i < 40; i++) {
        char one[96];
        snprintf(one, sizeof one, "%s{\"name\":\"k%d\",\"flops\":%d,\"bytes\":%d}", i ? "," : "",
                 i, i, 2 * i);
        strcat(text, one);
    }
    strcat(text, "]");
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(parse(text, &l, err), 0);
    ck_assert_uint_eq(l.n, 40);
    ck_assert_uint_ge(l.cap, 40);
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        ck_assert_str_eq(l.v[i].name, name);
        ck_assert_double_eq(l.v[i].perf.flops, i);
        ck_assert_double_eq(l.v[i].perf.bytes[RL_MEM_DRAM], 2 * i);
    }
    rl_record_list_release(&l);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_ptr_null(l.v);
    /* push copies the name; a NULL name becomes "". */
    struct rl_kernel_record r = {0};
    char name[] = "mine";
    r.name = name;
    r.count = 5;
    ck_assert_int_eq(rl_record_list_push(&l, &r), 0);
    r.name = NULL;
    ck_assert_int_eq(rl_record_list_push(&l, &r), 0);
    name[0] = 'X';
    ck_assert_str_eq(l.v[0].name, "mine");
    ck_assert_str_eq(l.v[1].name, "");
    ck_assert_uint_eq(l.v[1].count, 5);
    rl_record_list_release(&l);
}
END_TEST

START_TEST(quantities_at_their_limits)
{
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE];
    /* Zero is a quantity; null is absent; count 1 and 1e15 are the ends of
     * its range; bytes equal to dram_bytes is no disagreement; comm_bytes
     * is read. */
    ck_assert_msg(parse("[{\"name\":\"z\",\"flops\":0,\"bytes\":4,\"dram_bytes\":4,\"time_ns\":null,"
                        "\"count\":1,\"comm_bytes\":0},"
                        "{\"name\":\"big\",\"flops\":1,\"dram_bytes\":3,\"count\":1e15,"
                        "\"comm_bytes\":64,\"origin\":\"measured\","
                        "\"precision\":\"abcdefghijklmnopqrstuvwxyz\"}]", &l, err) == 0, "%s", err);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_double_eq(l.v[0].perf.flops, 0);
    ck_assert_double_eq(l.v[0].perf.bytes[RL_MEM_DRAM], 4);
    ck_assert(isnan(l.v[0].perf.time_ns));
    ck_assert_uint_eq(l.v[0].count, 1);
    ck_assert_double_eq(l.v[0].comm_bytes, 0);
    ck_assert_str_eq(l.v[0].precision, "");
    /* dram_bytes alone is the DRAM level. */
    ck_assert_double_eq(l.v[1].perf.bytes[RL_MEM_DRAM], 3);
    ck_assert_uint_eq(l.v[1].count, 1000000000000000ull);
    ck_assert_double_eq(l.v[1].comm_bytes, 64);
    ck_assert(isnan(l.v[0].perf.bytes[RL_MEM_L1]));
    ck_assert_int_eq(l.v[1].origin, RL_ORIGIN_MEASURED);
    /* Cut to the field: 23 characters and the NUL. */
    ck_assert_str_eq(l.v[1].precision, "abcdefghijklmnopqrstuvw");
    rl_record_list_release(&l);
}
END_TEST

/* The whole message for one bad record. */
static void assert_message(const char *text, const char *want)
{
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE] = "";
    int rc = parse(text, &l, err);
    rl_record_list_release(&l);
    ck_assert_msg(rc == RL_ESCHEMA, "accepted (%d): %s", rc, text);
    ck_assert_str_eq(err, want);
}

START_TEST(bad_quantities_and_keys)
{
    /* count: below 1, above 1e15 (2e15), a fraction. */
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\n\"count\":0}]",
                   "'k.json': line 2: [0] 'g': 'count' must be a whole number from 1 to 1e15");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"count\":2e15}]",
                   "'k.json': line 1: [0] 'g': 'count' must be a whole number from 1 to 1e15");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"count\":1.5}]",
                   "'k.json': line 1: [0] 'g': 'count' must be a whole number from 1 to 1e15");
    /* null flops is missing flops; 1e999 parses as infinity, no quantity. */
    assert_message("[{\"name\":\"g\",\"flops\":null,\"bytes\":1}]",
                   "'k.json': line 1: [0] 'g': missing 'flops'");
    assert_message("[{\"name\":\"g\",\"flops\":1e999,\"bytes\":1}]",
                   "'k.json': line 1: [0] 'g': 'flops' must be a number >= 0");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"l1_bytes\":-0.5}]",
                   "'k.json': line 1: [0] 'g': 'l1_bytes' must be a number >= 0");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"comm_bytes\":\"8\"}]",
                   "'k.json': line 1: [0] 'g': 'comm_bytes' must be a number >= 0");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"dram_bytes\":2}]",
                   "'k.json': line 1: [0] 'g': 'bytes' and 'dram_bytes' disagree: give one");
    /* Typos: within 2 edits of a key ("nmae" is 2 from "name", "xxcount" 2
     * from "count"); anything with "flop" or "byte" in it. 3 edits away
     * ("xxxcount") is just another key. */
    assert_message("[{\"nmae\":\"g\",\"flops\":1,\"bytes\":1}]",
                   "'k.json': line 1: [0]: unknown key 'nmae' (did you mean 'name'?)");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"xxcount\":1}]",
                   "'k.json': line 1: [0]: unknown key 'xxcount' (did you mean 'count'?)");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"my_flop_total\":1}]",
                   "'k.json': line 1: [0]: unknown key 'my_flop_total' (did you mean 'flops'?)");
    assert_message("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"bytes_total_x\":1}]",
                   "'k.json': line 1: [0]: unknown key 'bytes_total_x' (did you mean 'bytes'?)");
    struct rl_record_list l;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(parse("[{\"name\":\"g\",\"flops\":1,\"bytes\":1,\"xxxcount\":1}]", &l, err), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_uint_eq(l.v[0].count, 1);
    rl_record_list_release(&l);
    /* The second record of a "kernels" object; a long name cut to 80. */
    char text[512], want[512];
    char name[101];
    memset(name, 'n', 100), name[100] = 0;
    snprintf(text, sizeof text, "{\"kernels\":[{\"name\":\"a\",\"flops\":1,\"bytes\":1},\n"
                                "{\"name\":\"%s\",\"flops\":1,\"bytes\":1,\n\"origin\":\"Analytic\"}]}", name);
    snprintf(want, sizeof want, "'k.json': line 3: kernels[1] '%.80s': 'origin' must be "
                                "\"measured\" or \"analytic\"", name);
    assert_message(text, want);
    /* The first record is kept in the list even when a later one fails. */
    ck_assert_int_eq(parse(text, &l, err), RL_ESCHEMA);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_str_eq(l.v[0].name, "a");
    rl_record_list_release(&l);
}
END_TEST

/* A roofline trace: gemv twice on one grid (one timed), gemm counted and
 * timed, a timing-only copy. */
static const char trace_text[] =
    "{\n\"format\": \"roofline-trace\",\n\"kernels\": [\n"
    "{\"name\": \"gemv\", \"grid\": [4, 1, 1], \"block\": [128, 1, 1], \"flops\": 10,"
    " \"dram_bytes\": 20, \"time_ns\": 5, \"precision\": \"bf16\"},\n"
    "{\"name\": \"gemv\", \"grid\": [4, 1, 1], \"block\": [128, 1, 1], \"flops\": 30,"
    " \"dram_bytes\": 40, \"precision\": \"bf16\"},\n"
    "{\"name\": \"gemm\", \"grid\": [2, 3, 1], \"block\": [256, 1, 1], \"flops\": 1000,"
    " \"dram_bytes\": 10, \"l2_bytes\": 30, \"time_ns\": 7},\n"
    "{\"name\": \"copy\", \"grid\": [1, 1, 1], \"block\": [32, 1, 1], \"time_ns\": 3}\n"
    "]}\n";

START_TEST(trace_becomes_records)
{
    struct rl_record_list l = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_records_parse(&l, trace_text, strlen(trace_text), "t.json", err) == 0,
                  "%s", err);
    /* copy has no FLOPs: no record. gemv: 2 launches, 10 + 30 FLOPs, 20 +
     * 40 bytes; one launch untimed, so no time for the sum. */
    ck_assert_uint_eq(l.n, 2);
    const struct rl_kernel_record *gemv = strcmp(l.v[0].name, "gemv") == 0 ? &l.v[0] : &l.v[1];
    const struct rl_kernel_record *gemm = gemv == &l.v[0] ? &l.v[1] : &l.v[0];
    ck_assert_str_eq(gemv->name, "gemv");
    ck_assert_str_eq(gemm->name, "gemm");
    ck_assert_uint_eq(gemv->count, 2);
    ck_assert_double_eq(gemv->perf.flops, 40);
    ck_assert_double_eq(gemv->perf.bytes[RL_MEM_DRAM], 60);
    ck_assert(isnan(gemv->perf.time_ns));
    ck_assert_str_eq(gemv->precision, "bf16");
    ck_assert_str_eq(gemv->signature, "grid 4x1x1 block 128x1x1");
    ck_assert_uint_eq(gemm->count, 1);
    ck_assert_double_eq(gemm->perf.flops, 1000);
    ck_assert_double_eq(gemm->perf.bytes[RL_MEM_L2], 30);
    ck_assert_double_eq(gemm->perf.time_ns, 7);
    ck_assert_str_eq(gemm->signature, "grid 2x3x1 block 256x1x1");
    rl_record_list_release(&l);
    /* The same text from a file, streamed. */
    char path[512];
    snprintf(path, sizeof path, "%s/t.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fputs(trace_text, f);
    fclose(f);
    ck_assert_msg(rl_records_load(&l, path, err) == 0, "%s", err);
    ck_assert_uint_eq(l.n, 2);
    rl_record_list_release(&l);
    /* As groups: every group, the timing-only one too. */
    struct rl_trace_groups g = {0};
    ck_assert_msg(rl_records_load_groups(&g, path, err) == 0, "%s", err);
    ck_assert_uint_eq(g.n, 3);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(timing_only_trace_is_an_error)
{
    const char *text = "{\"format\": \"roofline-trace\", \"kernels\": ["
                       "{\"name\": \"a\", \"time_ns\": 3}, {\"name\": \"b\", \"time_ns\": 4}]}";
    struct rl_record_list l = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_records_parse(&l, text, strlen(text), "t.json", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "'t.json': none of its 2 kernels has FLOPs and bytes"));
    ck_assert_uint_eq(l.n, 0);
    rl_record_list_release(&l);
    /* A broken trace keeps the reader's error. */
    const char *bad = "{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": 3}]}";
    ck_assert_int_eq(rl_records_parse(&l, bad, strlen(bad), "b.json", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "b.json"));
    ck_assert_ptr_null(strstr(err, "none of its"));
    rl_record_list_release(&l);
}
END_TEST

START_TEST(kernels_file_as_groups)
{
    /* Two records of one name sum into one group; another name is its own. */
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/k.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fputs("[{\"name\":\"a\",\"flops\":10,\"bytes\":4,\"time_ns\":2,\"count\":2},\n"
          " {\"name\":\"a\",\"flops\":30,\"bytes\":6,\"time_ns\":3},\n"
          " {\"name\":\"b\",\"flops\":1,\"bytes\":1,\"comm_bytes\":8}]\n", f);
    fclose(f);
    struct rl_trace_groups g = {0};
    ck_assert_msg(rl_records_load_groups(&g, path, err) == 0, "%s", err);
    ck_assert_uint_eq(g.n, 2);
    const struct rl_trace_group *a = strcmp(g.v[0].name, "a") == 0 ? &g.v[0] : &g.v[1];
    const struct rl_trace_group *b = a == &g.v[0] ? &g.v[1] : &g.v[0];
    ck_assert_uint_eq(a->launches, 3);
    ck_assert_uint_eq(a->counted, 3);
    ck_assert_double_eq(a->flops, 40);
    ck_assert_double_eq(a->bytes[RL_MEM_DRAM], 10);
    ck_assert_double_eq(a->time_ns, 5);
    ck_assert_double_eq(b->comm_bytes, 8);
    rl_trace_groups_release(&g);
    /* A bad kernels file: its error, no groups. */
    f = fopen(path, "w");
    fputs("[{\"name\":\"a\",\"flops\":-1,\"bytes\":4}]", f);
    fclose(f);
    ck_assert_int_eq(rl_records_load_groups(&g, path, err), RL_ESCHEMA);
    ck_assert_uint_eq(g.n, 0);
    rl_trace_groups_release(&g);
}
END_TEST

static Suite *records_suite(void)
{
    Suite *s = suite_create("records");
    TCase *core = tcase_create("core");
    tcase_add_test(core, bare_array);
    tcase_add_test(core, object_with_levels_and_extras);
    tcase_add_test(core, example_file_loads);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, bad_records_name_file_line_and_kernel);
    tcase_add_test(limits, missing_file);
    tcase_add_test(limits, many_records_grow_the_list);
    tcase_add_test(limits, quantities_at_their_limits);
    tcase_add_test(limits, bad_quantities_and_keys);
    tcase_add_test(limits, trace_becomes_records);
    tcase_add_test(limits, timing_only_trace_is_an_error);
    tcase_add_test(limits, kernels_file_as_groups);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(records_suite()); }
