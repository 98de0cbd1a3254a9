/* check_guards.c - tests of the guards, end to end: numbers above their roof, L2 below DRAM, zero bytes, bytes without FLOPs, text that is not UTF-8, long names. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/strbuf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LONG_HEADER                                                                           \
    "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"Device\",\"Metric Name\","          \
    "\"Metric Unit\",\"Metric Value\"\n"
#define ROW(id, name, dev, metric, unit, value)                                               \
    "\"" id "\",\"" name "\",\"(132, 1, 1)\",\"(256, 1, 1)\",\"" dev "\",\"" metric "\",\"" \
    unit "\",\"" value "\"\n"
#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"

static const char *write_tmp(const char *name, const char *text, size_t len)
{
    static char path[4][1024];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", rl_test_tmpdir(), name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    return p;
}

/* `roofline report --ncu CSV --gpu G --json`: its document (checked to parse). */
static cJSON *report_json(const char *csv, const char *gpu, const char *extra, struct rl_run *out)
{
    const char *path = write_tmp("k.csv", csv, strlen(csv));
    struct rl_run r = extra ? rl_test_cli(NULL, "report", "--ncu", path, "--gpu", gpu, "--json",
                                          "--tensor-flops-per-op", extra, NULL)
                            : rl_test_cli(NULL, "report", "--ncu", path, "--gpu", gpu, "--json",
                                          NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_msg(doc != NULL, "report.json does not parse:\n%s", r.out);
    if (out)
        *out = r;
    else
        rl_run_release(&r);
    return doc;
}

static const cJSON *kernel(const cJSON *doc, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), i);
}

static bool flag(const cJSON *k, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, key);
    ck_assert_msg(cJSON_IsBool(v), "no boolean '%s'", key);
    return cJSON_IsTrue(v);
}

static bool notes_have(const cJSON *doc, const char *text)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(doc, "notes"))
        if (strstr(n->valuestring, text))
            return true;
    return false;
}

/* A GEMV measured on an H200: 117.5 MB read in 27.3 us = 4.3 TB/s. */
#define H200_GEMV(dev)                                                                        \
    LONG_HEADER ROW("0", "gemv", dev, SASS("hfma"), "inst", "29,360,128")                    \
    ROW("0", "gemv", dev, "dram__bytes_read.sum", "Mbyte", "117.47")                          \
    ROW("0", "gemv", dev, "dram__bytes_write.sum", "Kbyte", "28.67")                          \
    ROW("0", "gemv", dev, "lts__t_bytes.sum", "Mbyte", "130.10")                              \
    ROW("0", "gemv", dev, "gpu__time_duration.sum", "usecond", "27.30")

START_TEST(above_the_roof_is_flagged)
{
    /* Judged against the H100's 3.35 TB/s it runs at 128%: flagged in the
     * JSON, the note names the GPU the export says, the table marks it. */
    cJSON *doc = report_json(H200_GEMV("NVIDIA H200"), "h100-sxm", NULL, NULL);
    const cJSON *k = kernel(doc, 0);
    ck_assert(flag(k, "over_roof"));
    ck_assert_double_gt(cJSON_GetObjectItemCaseSensitive(k, "pct_of_roof")->valuedouble, 100);
    ck_assert(notes_have(doc, "1 kernel group runs above 100% of its roof"));
    ck_assert(notes_have(doc, "the source says the kernels ran on NVIDIA H200, but they are "
                              "judged against the NVIDIA H100 SXM5 80GB's ceilings"));
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "source"), "other_gpu")));
    cJSON_Delete(doc);
    /* On the GPU that ran it: under its roof, nothing flagged. */
    doc = report_json(H200_GEMV("NVIDIA H200"), "h200", NULL, NULL);
    k = kernel(doc, 0);
    ck_assert(!flag(k, "over_roof"));
    ck_assert(!notes_have(doc, "above 100%"));
    ck_assert(!notes_have(doc, "the source says"));
    cJSON_Delete(doc);
    /* The table marks it and says why. */
    const char *path = write_tmp("k.csv", H200_GEMV("NVIDIA H200"), strlen(H200_GEMV("NVIDIA H200")));
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/over", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "report", "--ncu", path, "--gpu", "h100-sxm", "-o", dir,
                                  NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "!  memory (DRAM)"));
    ck_assert_ptr_nonnull(strstr(r.out, "! above 100% of its roof"));
    rl_run_release(&r);
}
END_TEST

START_TEST(a_guessed_tensor_factor_is_flagged)
{
    /* BF16 Tensor ops times a guessed factor put a kernel at many times the
     * H100's Tensor Core roof: flagged, the note names the factor. */
    const char *csv = LONG_HEADER
        ROW("0", "gemm", "0", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "12,532,580,352")
        ROW("0", "gemm", "0", "dram__bytes_read.sum", "Mbyte", "17.50")
        ROW("0", "gemm", "0", "dram__bytes_write.sum", "byte", "0")
        ROW("0", "gemm", "0", "gpu__time_duration.sum", "us", "111.81");
    cJSON *doc = report_json(csv, "h100-sxm", "4096", NULL);
    const cJSON *k = kernel(doc, 0);
    ck_assert(flag(k, "over_roof"));
    ck_assert(notes_have(doc, "--tensor-flops-per-op"));
    cJSON_Delete(doc);
    /* Without a factor: no FLOPs, a memory point, and the note says so. */
    doc = report_json(csv, "h100-sxm", NULL, NULL);
    k = kernel(doc, 0);
    ck_assert(flag(k, "memory_only"));
    ck_assert(!flag(k, "over_roof"));
    ck_assert(notes_have(doc, "1 kernels have Tensor Core ops but no FLOPs"));
    cJSON_Delete(doc);
}
END_TEST

START_TEST(l2_below_dram_is_flagged)
{
    const char *csv = LONG_HEADER ROW("0", "k", "0", SASS("ffma"), "inst", "1000")
        ROW("0", "k", "0", "dram__bytes_read.sum", "byte", "4096")
        ROW("0", "k", "0", "dram__bytes_write.sum", "byte", "0")
        ROW("0", "k", "0", "lts__t_bytes.sum", "byte", "1024")
        ROW("0", "k", "0", "gpu__time_duration.sum", "us", "5");
    cJSON *doc = report_json(csv, "h100-sxm", NULL, NULL);
    ck_assert(flag(kernel(doc, 0), "l2_below_dram"));
    ck_assert(notes_have(doc, "fewer L2 than DRAM bytes"));
    cJSON_Delete(doc);
    /* L2 at or above DRAM: not flagged. */
    csv = LONG_HEADER ROW("0", "k", "0", SASS("ffma"), "inst", "1000")
        ROW("0", "k", "0", "dram__bytes_read.sum", "byte", "4096")
        ROW("0", "k", "0", "dram__bytes_write.sum", "byte", "0")
        ROW("0", "k", "0", "lts__t_bytes.sum", "byte", "4096");
    doc = report_json(csv, "h100-sxm", NULL, NULL);
    ck_assert(!flag(kernel(doc, 0), "l2_below_dram"));
    ck_assert(!notes_have(doc, "fewer L2"));
    cJSON_Delete(doc);
}
END_TEST

START_TEST(bytes_without_flops_are_a_memory_point)
{
    /* DRAM bytes and a time, no FLOP counter: the bandwidth against the
     * DRAM roof, and the exact metrics to add. */
    const char *csv = LONG_HEADER ROW("0", "saxpy", "0", "dram__bytes_read.sum", "byte", "134,221,568")
        ROW("0", "saxpy", "0", "dram__bytes_write.sum", "byte", "43,631,104")
        ROW("0", "saxpy", "0", "gpu__time_duration.sum", "ns", "292,928");
    struct rl_run r;
    cJSON *doc = report_json(csv, "h100-sxm", NULL, &r);
    const cJSON *k = kernel(doc, 0);
    ck_assert(flag(k, "memory_only"));
    ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(k, "dram_bytes")->valuedouble,
                        177852672);
    /* 177852672 B / 292928 ns = 607.2 GB/s = 18.1% of 3352 GB/s */
    double gbs = cJSON_GetObjectItemCaseSensitive(k, "achieved_dram_gbs")->valuedouble;
    ck_assert_double_eq_tol(gbs, 177852672.0 / 292928.0, 1e-6);
    ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(k, "pct_of_memory_roof")->valuedouble,
                            100 * gbs / 3352, 0.1);
    ck_assert(notes_have(doc, "no FLOP counters in this export"));
    ck_assert(notes_have(doc, "--metrics " SASS("dadd") ","));
    ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItemCaseSensitive(k, "sentence")->valuestring,
                                 "of DRAM traffic"));
    ck_assert_ptr_null(strstr(r.out, "trace it with counters"));
    rl_run_release(&r);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(zero_bytes_said_alike)
{
    /* FLOPs and 0 DRAM bytes: `report` and `chart` say the same line. */
    const char *kernels = "[{\"name\": \"regs\", \"flops\": 1e12, \"bytes\": 0, \"time_ns\": 2e6,"
                          " \"precision\": \"bf16\"}]";
    const char *path = write_tmp("k.json", kernels, strlen(kernels));
    struct rl_run rep = rl_test_cli(NULL, "report", "--kernels", path, "--gpu", "h100-sxm",
                                    "--json", NULL);
    ck_assert_msg(rep.status == 0, "%s", rep.err);
    char svg[1024];
    snprintf(svg, sizeof svg, "%s/z.svg", rl_test_tmpdir());
    struct rl_run cha = rl_test_cli(NULL, "chart", "--kernels", path, "--gpu", "h100-sxm", "-o",
                                    svg, "--json", NULL);
    ck_assert_msg(cha.status == 0, "%s", cha.err);
    const char *line = "1 kernel group counted FLOPs and 0 DRAM bytes (regs): intensity "
                       "unbounded, judged compute-bound, not drawn on a chart";
    ck_assert_msg(strstr(rep.out, line) != NULL, "%s", rep.out);
    ck_assert_msg(strstr(cha.out, line) != NULL, "%s", cha.out);
    ck_assert_ptr_null(strstr(rep.out, "inf FLOP/B"));
    ck_assert_ptr_null(strstr(rep.out, "-x right"));
    rl_run_release(&rep);
    rl_run_release(&cha);
}
END_TEST

/* Is the whole text valid UTF-8? */
static bool utf8_valid(const char *s)
{
    for (; *s;) {
        size_t n = rl_utf8_char(s);
        if (!n)
            return false;
        s += n;
    }
    return true;
}

START_TEST(text_that_is_not_utf8)
{
    /* A kernel name with bytes that are not UTF-8 (a Latin-1 program, a
     * cut multi-byte character): report.json parses, every file of the set
     * is UTF-8, the name is kept with U+FFFD where the bytes were. */
    const char *csv = LONG_HEADER ROW("0", "k\xE9rnel\xFF<&>\xE2\x82", "0", SASS("ffma"), "inst", "1000")
        ROW("0", "k\xE9rnel\xFF<&>\xE2\x82", "0", "dram__bytes_read.sum", "byte", "64")
        ROW("0", "k\xE9rnel\xFF<&>\xE2\x82", "0", "dram__bytes_write.sum", "byte", "0")
        ROW("0", "k\xE9rnel\xFF<&>\xE2\x82", "0", "gpu__time_duration.sum", "ns", "1000");
    cJSON *doc = report_json(csv, "h100-sxm", NULL, NULL);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(kernel(doc, 0), "name")->valuestring,
                     "k" RL_UTF8_REPLACEMENT "rnel" RL_UTF8_REPLACEMENT "<&>" RL_UTF8_REPLACEMENT
                     RL_UTF8_REPLACEMENT);
    cJSON_Delete(doc);
    const char *path = write_tmp("k.csv", csv, strlen(csv));
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/utf8", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "report", "--ncu", path, "--gpu", "h100-sxm", "-o", dir,
                                  "--format", "svg", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert(utf8_valid(r.out));
    rl_run_release(&r);
    static const char *const files[] = {"report.json", "report.csv", "report.md", "roofline.svg",
                                        "roofline.gp"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        char *text = rl_test_slurp(p);
        if (!text && strcmp(files[i] + strlen(files[i]) - 3, "svg") == 0)
            continue; /* no gnuplot here: the chart is skipped with a warning */
        ck_assert_msg(text != NULL, "%s missing", files[i]);
        ck_assert_msg(utf8_valid(text), "%s is not UTF-8", files[i]);
        if (strcmp(files[i], "report.json") == 0) {
            cJSON *d = cJSON_Parse(text);
            ck_assert_msg(d != NULL, "report.json does not parse");
            cJSON_Delete(d);
        }
        free(text);
    }
    /* The SVG is well-formed XML (python3's parser, where there is one). */
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "test ! -f '%s/roofline.svg' || ! command -v python3 >/dev/null || python3 -c "
             "\"import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])\" "
             "'%s/roofline.svg'",
             dir, dir);
    ck_assert_msg(system(cmd) == 0, "roofline.svg is not well-formed XML");
}
END_TEST

START_TEST(long_names_stay_apart)
{
    /* Templated C++ names run past 1 KB: two kernels alike in their first
     * 1100 bytes are two groups in every reader. */
    enum { PREFIX = 1100 };
    char a[PREFIX + 8], b[PREFIX + 8];
    memset(a, 'n', PREFIX);
    memcpy(b, a, PREFIX);
    strcpy(a + PREFIX, "<1>");
    strcpy(b + PREFIX, "<2>");
    size_t cap = 16 * PREFIX;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    /* ncu */
    snprintf(text, cap,
             "ID,Kernel Name,gpu__time_duration.sum,lts__t_bytes.sum," SASS("ffma") "\n,,ns,byte,"
             "inst\n0,%s,1,8,1\n1,%s,2,8,1\n",
             a, b);
    cJSON *doc = report_json(text, "h100-sxm", NULL, NULL);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "kernels")), 2);
    ck_assert_uint_eq(strlen(cJSON_GetObjectItemCaseSensitive(kernel(doc, 0), "name")->valuestring),
                      PREFIX + 3);
    cJSON_Delete(doc);
    /* a kernels file */
    snprintf(text, cap,
             "[{\"name\": \"%s\", \"flops\": 1, \"bytes\": 1}, {\"name\": \"%s\", \"flops\": 1, "
             "\"bytes\": 1}]",
             a, b);
    const char *path = write_tmp("k.json", text, strlen(text));
    struct rl_run r = rl_test_cli(NULL, "report", "--kernels", path, "--gpu", "h100-sxm",
                                  "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "kernels")), 2);
    cJSON_Delete(doc);
    rl_run_release(&r);
    free(text);
}
END_TEST

START_TEST(measured_ceilings_above_the_datasheet)
{
    /* A bench file read back beside another GPU's datasheet: its HBM (median)
     * at 125% of the H100's is flagged in the ceilings and the notes, by
     * report and chart alike; beside its own GPU's datasheet, nothing. */
    const char *kernels = "[{\"name\": \"k\", \"flops\": 1e9, \"bytes\": 1e8}]";
    const char *path = write_tmp("k.json", kernels, strlen(kernels));
    const char *bench = rl_test_data("bench-synthetic.json");
    struct rl_run r = rl_test_cli(NULL, "report", "--kernels", path, "--bench", bench, "--gpu",
                                  "h100-sxm", "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    bool flagged = false;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "ceilings"))
    {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(c, "over_datasheet");
        if (cJSON_IsTrue(o)) {
            flagged = true;
            ck_assert_double_gt(
                cJSON_GetObjectItemCaseSensitive(c, "pct_of_datasheet")->valuedouble, 100);
        }
    }
    ck_assert(flagged);
    ck_assert(notes_have(doc, "ceiling is 125% of the datasheet's"));
    cJSON_Delete(doc);
    rl_run_release(&r);
    char svg[1024];
    snprintf(svg, sizeof svg, "%s/b.svg", rl_test_tmpdir());
    r = rl_test_cli(NULL, "chart", "--kernels", path, "--bench", bench, "--gpu", "h100-sxm", "-o",
                    svg, "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "ceiling is 125% of the datasheet's"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--kernels", path, "--bench", bench, "--gpu", "h200", "--json",
                    NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.out, "of the datasheet's"));
    ck_assert_ptr_null(strstr(r.out, "\"over_datasheet\": true"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"over_datasheet\": false"));
    rl_run_release(&r);
}
END_TEST

START_TEST(ncu_from_stdin_and_without_chart)
{
    /* `ncu ... --csv | roofline report --ncu -`: standard input reads as the
     * file does; --no-chart writes the report's files and no chart. */
    const char *path = write_tmp("k.csv", H200_GEMV("NVIDIA H200"), strlen(H200_GEMV("NVIDIA H200")));
    char dir[1024], cmd[4096];
    snprintf(dir, sizeof dir, "%s/stdin", rl_test_tmpdir());
    snprintf(cmd, sizeof cmd,
             "'%s' report --ncu - --gpu h200 --no-chart -o '%s' < '%s' > '%s/out.txt' 2>&1",
             ROOFLINE_BIN, dir, path, rl_test_tmpdir());
    ck_assert_int_eq(system(cmd), 0);
    char p[1200];
    snprintf(p, sizeof p, "%s/report.json", dir);
    char *text = rl_test_slurp(p);
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(doc);
    const cJSON *k = kernel(doc, 0);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring, "gemv");
    ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(k, "dram_bytes")->valuedouble,
                            117.47e6 + 28.67e3, 1e-3);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(doc, "source"), "path")->valuestring,
                     "<stdin>");
    cJSON_Delete(doc);
    snprintf(p, sizeof p, "%s/roofline.svg", dir);
    ck_assert_int_ne(access(p, F_OK), 0);
    snprintf(p, sizeof p, "%s/roofline.gp", dir);
    ck_assert_int_ne(access(p, F_OK), 0);
    snprintf(p, sizeof p, "%s/report.md", dir);
    text = rl_test_slurp(p);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_null(strstr(text, "![roofline"));
    free(text);
    snprintf(p, sizeof p, "%s/out.txt", rl_test_tmpdir());
    text = rl_test_slurp(p);
    ck_assert_ptr_nonnull(strstr(text, "(no chart)"));
    free(text);
    /* A trace from a pipe too. */
    const char *trace = "{\"format\": \"roofline-trace\", \"kernels\": [{\"name\": \"t\", "
                        "\"flops\": 2e9, \"dram_bytes\": 1e9, \"time_ns\": 1e6}]}";
    const char *tp = write_tmp("t.json", trace, strlen(trace));
    snprintf(cmd, sizeof cmd,
             "cat '%s' | '%s' report --trace - --gpu h200 --json > '%s/trace.json'", tp,
             ROOFLINE_BIN, rl_test_tmpdir());
    ck_assert_int_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/trace.json", rl_test_tmpdir());
    text = rl_test_slurp(p);
    doc = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(doc);
    ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(kernel(doc, 0), "flops")->valuedouble,
                        2e9);
    cJSON_Delete(doc);
}
END_TEST

static Suite *guards_suite(void)
{
    Suite *s = suite_create("guards");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, above_the_roof_is_flagged);
    tcase_add_test(t, a_guessed_tensor_factor_is_flagged);
    tcase_add_test(t, l2_below_dram_is_flagged);
    tcase_add_test(t, bytes_without_flops_are_a_memory_point);
    tcase_add_test(t, zero_bytes_said_alike);
    tcase_add_test(t, text_that_is_not_utf8);
    tcase_add_test(t, long_names_stay_apart);
    tcase_add_test(t, measured_ceilings_above_the_datasheet);
    tcase_add_test(t, ncu_from_stdin_and_without_chart);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return rl_test_run(guards_suite()); }
