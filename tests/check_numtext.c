/* check_numtext.c - tests of numbers as people read them (numtext.c): digits, rounding, no exponent, plurals, paths. */
#include "test_util.h"

#include "analyzer/util/numtext.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

static const char *num(double v, int digits)
{
    static char b[64];
    return rl_num_text(b, sizeof b, v, digits);
}

START_TEST(plain_decimals)
{
    ck_assert_str_eq(num(50012.3, 4), "50010");       /* 5.001e+04 before */
    ck_assert_str_eq(num(13240.7, 4), "13240");       /* 1.324e+04 */
    ck_assert_str_eq(num(9000.0, 4), "9000");         /* not 9000.0 */
    ck_assert_str_eq(num(37.0, 4), "37");             /* not 37.0 */
    ck_assert_str_eq(num(989.4, 4), "989.4");
    ck_assert_str_eq(num(989.44, 4), "989.4");        /* rounded to 4 digits */
    ck_assert_str_eq(num(0.473, 3), "0.473");
    ck_assert_str_eq(num(3.277e-05, 4), "0.00003277"); /* 3.277e-05 before */
    ck_assert_str_eq(num(-2.5, 2), "-2.5");
    ck_assert_str_eq(num(-0.00001, 1), "-0.00001");
    ck_assert_str_eq(num(82.58, 3), "82.6");
    ck_assert_str_eq(num(1978.9, 5), "1978.9");
}
END_TEST

START_TEST(rounding_moves_the_point)
{
    ck_assert_str_eq(num(9999.6, 4), "10000");  /* 1.000e+04: one more place */
    ck_assert_str_eq(num(0.99996, 4), "1");     /* 1.000 with its zeros dropped */
    ck_assert_str_eq(num(99.95, 3), "100");     /* 99.95 is 99.9500000000000028 */
    ck_assert_str_eq(num(120, 2), "120");
}
END_TEST

START_TEST(limits)
{
    ck_assert_str_eq(num(0, 4), "0");
    ck_assert_str_eq(num(-0.0, 4), "0");
    ck_assert_str_eq(num(NAN, 4), "-");
    ck_assert_str_eq(num(INFINITY, 4), "inf");
    ck_assert_str_eq(num(-INFINITY, 4), "-inf");
    ck_assert_str_eq(num(1e15, 4), "1e+15");       /* past any table: %g */
    ck_assert_str_eq(num(123456789012345.0, 15), "123456789012345");
    ck_assert_str_eq(num(1234.5678, 0), "1000");    /* digits at least 1 */
    ck_assert_str_eq(num(1.0 / 3, 40), "0.333333333333333"); /* at most 15 */
    const char *first = rl_num(1.5, 2); /* 16 in turn: the first survives 15 more */
    static const char *const want[15] = {"0", "1", "2", "3", "4", "5", "6", "7",
                                         "8", "9", "10", "11", "12", "13", "14"};
    for (int i = 0; i < 15; i++)
        ck_assert_str_eq(rl_num(i, 2), want[i]);
    ck_assert_str_eq(first, "1.5");
    char small[4];
    ck_assert_str_eq(rl_num_text(small, sizeof small, 12345, 5), "123"); /* cut, ended */
    ck_assert_ptr_eq(rl_num_text(small, 0, 1, 1), small);               /* nothing written */
}
END_TEST

START_TEST(counts_and_paths)
{
    char b[64];
    ck_assert_str_eq(rl_count_text(b, sizeof b, 1, "launch", "launches"), "1 launch");
    ck_assert_str_eq(rl_count_text(b, sizeof b, 0, "launch", "launches"), "0 launches");
    ck_assert_str_eq(rl_count_text(b, sizeof b, 2, "kernel group", "kernel groups"),
                     "2 kernel groups");
    ck_assert_str_eq(rl_path_join(b, sizeof b, "llm/", "llm.json"), "llm/llm.json");
    ck_assert_str_eq(rl_path_join(b, sizeof b, "llm", "llm.json"), "llm/llm.json");
    ck_assert_str_eq(rl_path_join(b, sizeof b, "a//", "x"), "a/x");
    ck_assert_str_eq(rl_path_join(b, sizeof b, "/", "x"), "/x");
    ck_assert_str_eq(rl_path_join(b, sizeof b, "", "x"), "x");
    ck_assert_str_eq(rl_path_join(b, sizeof b, NULL, "x"), "x");
}
END_TEST

/* No exponent anywhere a person reads: "[digit]e+04", "e-05". */
static void assert_no_exponent(const char *text, const char *what)
{
    regex_t re;
    ck_assert_int_eq(regcomp(&re, "[0-9]e[-+][0-9]", REG_EXTENDED | REG_NOSUB), 0);
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        ck_assert_msg(regexec(&re, buf, 0, NULL, 0) != 0, "%s: an exponent in '%s'", what, buf);
        line = end ? end + 1 : NULL;
    }
    regfree(&re);
}

/* The commands print their numbers through it: tables and sentences of
 * llm (training: 82460 GFLOP, 466700 us), llm plan (a 24990 ms step: pipeline sends as Megatron makes them),
 * report (a 46.91 s ncu export; 1 kernel group). */
START_TEST(commands_print_plain_numbers)
{
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                                  "--train", "--dp", "8", "--zero", "3", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    assert_no_exponent(r.out, "llm --train");
    ck_assert_ptr_nonnull(strstr(r.out, "qkv_proj          80       82460       40270"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpus", "32", "--system",
                    "dgx-h100", "--train", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    assert_no_exponent(r.out, "llm plan --train");
    ck_assert_ptr_nonnull(strstr(r.out, "   1 8x4x1          512      24990        41960"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--ncu", rl_test_data("ncu-real/gardenia-a100-long-hfma.csv"),
                    "--gpu", "a100-sxm-80gb", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    assert_no_exponent(r.out, "report --ncu");
    ck_assert_ptr_nonnull(strstr(r.out, ": 3 launches in 3 kernel groups, 46.91 s of GPU time;"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--ncu", rl_test_data("ncu-real/meinie-b200-wide-units-row.csv"),
                    "--gpu", "b200", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, ": 16 launches in 1 kernel group, 11 ms of GPU time;"));
    rl_run_release(&r);
}
END_TEST

/* "wrote DIR/llm.json" with one slash, whether -o ends in one or not. */
START_TEST(wrote_one_slash)
{
    char dir[512], want[600];
    snprintf(dir, sizeof dir, "%s/llm-slash/", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h200", "-o",
                                  dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    snprintf(want, sizeof want, "wrote %s/llm-slash/llm.json", rl_test_tmpdir());
    ck_assert_msg(strstr(r.out, want), "%s", r.out);
    ck_assert_ptr_null(strstr(r.out, "//"));
    rl_run_release(&r);
}
END_TEST

static Suite *numtext_suite(void)
{
    Suite *s = suite_create("numtext");
    TCase *core = tcase_create("core");
    tcase_add_test(core, plain_decimals);
    tcase_add_test(core, rounding_moves_the_point);
    tcase_add_test(core, counts_and_paths);
    tcase_add_test(core, commands_print_plain_numbers);
    tcase_add_test(core, wrote_one_slash);
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, limits);
    suite_add_tcase(s, lim);
    return s;
}

int main(void) { return rl_test_run(numtext_suite()); }
