/* check_records.c - tests of kernel records and their JSON files. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/readers/records.h"

#include <math.h>
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
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(records_suite()); }
