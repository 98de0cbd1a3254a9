/* check_cli.c - tests of the roofline command line: golden outputs, errors, exit codes. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>



/* Exactly one line on stderr, starting "roofline: error: ". */
static void assert_one_error_line(const struct rl_run *r, const char *fragment)
{
    ck_assert_msg(strncmp(r->err, "roofline: error: ", 17) == 0, "stderr: %s", r->err);
    ck_assert_msg(rl_test_count(r->err, "\n") == 1, "not one line: %s", r->err);
    ck_assert_msg(strstr(r->err, fragment) != NULL, "'%s' lacks '%s'", r->err, fragment);
}

#define RUN(...) rl_test_cli(NULL, __VA_ARGS__, (const char *)NULL)

START_TEST(version_and_help)
{
    struct rl_run r = RUN("--version");
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strncmp(r.out, "roofline ", 9) == 0, "%s", r.out);
    rl_run_release(&r);
    r = RUN("-h");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "usage: roofline"));
    rl_run_release(&r);
    static const char *const cmds[] = {"gpus", "ridge", "chart", "bench", NULL};
    for (int i = 0; cmds[i]; i++) {
        r = RUN(cmds[i], "-h");
        ck_assert_int_eq(r.status, 0);
        ck_assert_msg(strstr(r.out, "usage: roofline ") != NULL, "%s -h: %s", cmds[i], r.out);
        ck_assert_str_eq(r.err, "");
        rl_run_release(&r);
    }
    r = RUN("frobnicate");
    ck_assert_int_eq(r.status, 2);
    assert_one_error_line(&r, "unknown command 'frobnicate'");
    rl_run_release(&r);
}
END_TEST

START_TEST(golden_gpus)
{
    struct rl_run r = RUN("gpus");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus.txt");
    rl_run_release(&r);
    r = RUN("gpus", "--json");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus.json");
    rl_run_release(&r);
    r = RUN("gpus", "show", "H100 SXM5");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-show-h100-sxm.txt");
    rl_run_release(&r);
    r = RUN("gpus", "show", "NVIDIA H200", "--json");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-show-h200.json");
    rl_run_release(&r);
}
END_TEST

START_TEST(golden_ridge)
{
    struct rl_run r = RUN("ridge", "--gpu", "h200", "--precision", "bf16", "--json");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "ridge-h200-bf16.json");
    ck_assert_ptr_nonnull(strstr(r.out, "\"peak_tflops\":\t989.4"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"bandwidth_gbs\":\t4800"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"ridge_flop_per_byte\":\t206.125"));
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "NVIDIA H100 80GB HBM3", "--precision", "bf16");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "ridge-h100-bf16.txt");
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "h100-sxm", "--sparse");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "ridge-h100-sparse.txt");
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "a100-sxm-80gb", "--memory", "l2", "--json");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "ridge-a100-l2.json");
    rl_run_release(&r);
}
END_TEST

START_TEST(unknown_gpu_and_bad_usage)
{
    struct rl_run r = RUN("ridge", "--gpu", "h100-sxm6", "--precision", "bf16");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown GPU 'h100-sxm6' (did you mean 'h100-sxm'?)");
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "a100-sxm-80gb", "--precision", "fp8");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "holds no FP8 Tensor Core rate");
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "h200", "--memory", "l2");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "gives no L2 bandwidth");
    rl_run_release(&r);
    r = RUN("ridge", "--precision", "bf16");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "name a GPU"));
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "h200", "--precision", "fp7");
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = RUN("chart", "--gpu", "h200");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "-o OUT.svg|.png|.pdf is required"));
    rl_run_release(&r);
}
END_TEST

START_TEST(own_spec_file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/mine.json", rl_test_tmpdir());
    char *t = rl_test_slurp(ROOFLINE_SOURCE_DIR "/data/gpus/h100-sxm.json");
    FILE *f = fopen(path, "w");
    fputs(t, f);
    fclose(f);
    free(t);
    struct rl_run r = RUN("ridge", "--gpu", path, "--precision", "fp32", "--json");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "\"peak_tflops\":\t66.9"));
    rl_run_release(&r);
    /* A broken one: file and line. */
    f = fopen(path, "w");
    fputs("{\n  \"id\": \"x\",\n  \"sm_count\": 1,,\n}\n", f);
    fclose(f);
    r = RUN("gpus", "show", path);
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "mine.json': line 3, column");
    rl_run_release(&r);
}
END_TEST

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

START_TEST(chart_with_kernels)
{
    char svg[512], pdf[512];
    snprintf(svg, sizeof svg, "%s/c.svg", rl_test_tmpdir());
    snprintf(pdf, sizeof pdf, "%s/c.pdf", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--gpu", "h200", "--kernels",
                          ROOFLINE_SOURCE_DIR "/data/examples/llm-decode-prefill.json", "-o",
                          svg, "-o", pdf, "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_gt(file_size(svg), 1000);
    ck_assert_int_gt(file_size(pdf), 1000);
    /* From the kernels array on: the source path above it is the checkout's. */
    rl_test_golden(strstr(r.out, "\"kernels\": ["), "chart-h200-kernels.json");
    rl_run_release(&r);
}
END_TEST

START_TEST(chart_bad_inputs)
{
    char kern[512], out[512];
    snprintf(kern, sizeof kern, "%s/bad.json", rl_test_tmpdir());
    snprintf(out, sizeof out, "%s/never.svg", rl_test_tmpdir());
    FILE *f = fopen(kern, "w");
    fputs("[\n {\"name\": \"a\", \"flops\": 1, \"bytes\": 2},\n {\"name\": \"b\", \"flops\": 1\n", f);
    fclose(f);
    struct rl_run r = RUN("chart", "--gpu", "h200", "--kernels", kern, "-o", out);
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "bad.json': line 4");
    ck_assert_int_eq(file_size(out), -1);
    rl_run_release(&r);
    r = RUN("chart", "--gpu", "h200", "-o", "/nonexistent-dir/c.svg");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "cannot write '/nonexistent-dir/");
    rl_run_release(&r);
    r = RUN("chart", "--gpu", "h200", "-o", "c.bmp");
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
}
END_TEST

START_TEST(chart_with_measured_ceilings)
{
    char svg[512], gp[512];
    snprintf(svg, sizeof svg, "%s/b.svg", rl_test_tmpdir());
    snprintf(gp, sizeof gp, "%s/b.gp", rl_test_tmpdir());
    /* The GPU comes from the bench file (spec_id h200). */
    struct rl_run r = RUN("chart", "--bench", ROOFLINE_TEST_DATA_DIR "/bench-synthetic.json",
                          "--library", "--precision", "fp32,bf16,fp8", "-o", svg);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    char *script = rl_test_slurp(gp);
    ck_assert_ptr_nonnull(script);
    ck_assert_ptr_nonnull(strstr(script, "BF16 Tensor Core: 989.4 TFLOP/s"));
    ck_assert_ptr_nonnull(strstr(script, "BF16 Tensor Core: 760 TFLOP/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "BF16 cuBLASLt: 700 TFLOP/s (measured)"));
    /* FP8: the better of E4M3 and E5M2. */
    ck_assert_ptr_nonnull(strstr(script, "FP8 Tensor Core: 1300 TFLOP/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "HBM3e: 4.2 TB/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "L2: 9.5 TB/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "L1/shared: 30 TB/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "title \"measured ceiling\""));
    ck_assert_ptr_nonnull(strstr(script, "FP32 CUDA cores intensity sweep"));
    ck_assert_ptr_nonnull(strstr(script, "datasheet, measured and analytic ceilings"));
    free(script);
    /* A broken bench file: its name and line. */
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad-bench.json", rl_test_tmpdir());
    FILE *f = fopen(bad, "w");
    fputs("{\n \"schema_version\": 1,\n \"gpu\": {\n", f);
    fclose(f);
    r = RUN("chart", "--bench", bad, "-o", svg);
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "bad-bench.json': line 4");
    rl_run_release(&r);
}
END_TEST

START_TEST(bench_without_a_gpu)
{
    static const char *const env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    char out[512];
    snprintf(out, sizeof out, "%s/never-bench.json", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(env, "bench", "--quick", "-o", out, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    /* Built with CUDA: no driver or no device; without: says so. */
    ck_assert_msg(strstr(r.err, "roofline: error: cannot measure: no ") ||
                      strstr(r.err, "built without CUDA"),
                  "%s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    ck_assert_ptr_null(strstr(r.out, "wrote"));
    rl_run_release(&r);
    r = RUN("bench", "--only", "fp128");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "unknown benchmark or group 'fp128'"));
    rl_run_release(&r);
    r = RUN("bench", "--list");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "gemm-fp8"));
    rl_run_release(&r);
}
END_TEST

/* gnuplot missing: every command that draws says so in one warning, writes
 * the chart scripts and every other output, and succeeds. `llm -o` creates
 * a folder that does not exist yet. */
START_TEST(charts_skipped_without_gnuplot)
{
    static const char *const env[] = {"ROOFLINE_GNUPLOT=/nonexistent/gnuplot", NULL};
    const char *kernels = ROOFLINE_SOURCE_DIR "/data/examples/llm-decode-prefill.json";
    char svg[512], gp[512], dir[512], path[700];
    snprintf(svg, sizeof svg, "%s/nognuplot-chart.svg", rl_test_tmpdir());
    snprintf(gp, sizeof gp, "%s/nognuplot-chart.gp", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(env, "chart", "--gpu", "h200", "--kernels", kernels, "-o", svg,
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "chart: %s", r.err);
    ck_assert_msg(strncmp(r.err, "roofline: warning: chart image skipped: gnuplot not found",
                          57) == 0, "%s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    ck_assert_int_eq(file_size(svg), -1);
    ck_assert_int_gt(file_size(gp), 100);
    rl_run_release(&r);

    snprintf(dir, sizeof dir, "%s/nognuplot-report", rl_test_tmpdir());
    r = rl_test_cli(env, "report", "--gpu", "h200", "--kernels", kernels, "-o", dir,
                    (const char *)NULL);
    ck_assert_msg(r.status == 0, "report: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "chart image skipped: gnuplot not found"));
    snprintf(path, sizeof path, "%s/report.json", dir);
    ck_assert_int_gt(file_size(path), 100);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = rl_test_slurp(path);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_null(strstr(md, "roofline.svg")); /* no link to an image not drawn */
    free(md);
    rl_run_release(&r);

    snprintf(dir, sizeof dir, "%s/nognuplot-llm-new", rl_test_tmpdir());
    rmdir(dir);
    r = rl_test_cli(env, "llm", "--model", "llama-3-8b", "--batch", "1,64", "-o", dir,
                    (const char *)NULL);
    ck_assert_msg(r.status == 0, "llm: %s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "chart image skipped"), 1);
    snprintf(path, sizeof path, "%s/llm.json", dir);
    ck_assert_int_gt(file_size(path), 100);
    snprintf(path, sizeof path, "%s/llm-roofline.gp", dir);
    ck_assert_int_gt(file_size(path), 100);
    snprintf(path, sizeof path, "%s/llm-batch.gp", dir);
    ck_assert_int_gt(file_size(path), 100);
    rl_run_release(&r);
}
END_TEST

/* The GPU suites run their cases in the process that initialised CUDA. */
static pid_t inner_pid;
START_TEST(inner_case) { inner_pid = getpid(); }
END_TEST

START_TEST(gpu_suites_run_unforked)
{
    Suite *s = suite_create("inner");
    TCase *t = tcase_create("inner");
    tcase_add_test(t, inner_case);
    suite_add_tcase(s, t);
    inner_pid = 0;
    ck_assert_int_eq(rl_test_run_unforked(s), 0);
    ck_assert_int_eq(inner_pid, getpid());
}
END_TEST

/* One integer parser: --device x is a usage error (exit 2, one line) in
 * every command that takes it, before any GPU is looked for. */
START_TEST(device_option_parsed_alike)
{
    static const char *const cmds[] = {"bench", "trace", "run", "llm"};
    static const char *const bad[] = {"x", "-1", "1.5", "", "99999999999999999999"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            struct rl_run r = RUN(cmds[i], "--device", bad[j]);
            ck_assert_msg(r.status == 2, "%s --device '%s': exit %d: %s", cmds[i], bad[j],
                          r.status, r.err);
            ck_assert_int_eq(rl_test_count(r.err, "\n"), 2); /* the line and the usage hint */
            char want[160];
            snprintf(want, sizeof want, "--device needs a whole number in 0..1023, not '%s'",
                     bad[j]);
            ck_assert_msg(strstr(r.err, want) != NULL, "%s: %s", cmds[i], r.err);
            rl_run_release(&r);
        }
}
END_TEST

/* The kernels of a JSON output ("kernels": [...]) by name. */
static cJSON *kernels_of(const char *out)
{
    cJSON *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_json_parse(out, strlen(out), "stdout", &doc, err) == 0, "%s", err);
    return doc;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* One judge: the same kernels give the same verdicts (bound, % of roof,
 * attainable rate) from `report --json` and `chart --json`, ties at the
 * ridge included, and `llm`'s operators the verdicts the judge gives for
 * the same FLOPs and bytes. */
START_TEST(one_judge_for_report_chart_and_llm)
{
    /* H200 BF16: ridge 989.4 / 4800 = 206.125 FLOP/B. At the ridge exactly
     * (206125 FLOPs over 1000 bytes) compute-bound; a hair left, memory. A
     * timed kernel at 5% of its roof is bound by neither. */
    char kern[600], svg[600], dir[600];
    snprintf(kern, sizeof kern, "%s/judge-kernels.json", rl_test_tmpdir());
    snprintf(svg, sizeof svg, "%s/judge.svg", rl_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/judge-report", rl_test_tmpdir());
    write_text(kern, "[{\"name\": \"at ridge\", \"flops\": 206125, \"bytes\": 1000, "
                     "\"precision\": \"bf16\"},\n"
                     " {\"name\": \"left\", \"flops\": 206124, \"bytes\": 1000, "
                     "\"precision\": \"bf16\"},\n"
                     " {\"name\": \"slow\", \"flops\": 1e9, \"bytes\": 1e9, \"time_ns\": 4.1667e6,"
                     " \"precision\": \"bf16\"},\n"
                     " {\"name\": \"odd precision\", \"flops\": 1e9, \"bytes\": 1e6, "
                     "\"precision\": \"fp4\"}]\n");
    struct rl_run rep = RUN("report", "--gpu", "h200", "--kernels", kern, "-o", dir, "--json");
    struct rl_run cha = RUN("chart", "--gpu", "h200", "--kernels", kern, "-o", svg, "--json");
    ck_assert_msg(rep.status == 0, "%s", rep.err);
    ck_assert_msg(cha.status == 0, "%s", cha.err);
    cJSON *a = kernels_of(rep.out), *b = kernels_of(cha.out);
    const cJSON *ka = cJSON_GetObjectItem(a, "kernels"), *kb = cJSON_GetObjectItem(b, "kernels");
    ck_assert_int_eq(cJSON_GetArraySize(ka), 4);
    ck_assert_int_eq(cJSON_GetArraySize(kb), 4);
    static const char *const keys[] = {"bound", "roof", "pct_of_roof", "attainable_tflops",
                                       "ai_dram_flop_per_byte", "sentence"};
    for (int i = 0; i < 4; i++) {
        const cJSON *x = cJSON_GetArrayItem(ka, i), *y = cJSON_GetArrayItem(kb, i);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            char *sx = cJSON_PrintUnformatted(cJSON_GetObjectItem(x, keys[k]));
            char *sy = cJSON_PrintUnformatted(cJSON_GetObjectItem(y, keys[k]));
            ck_assert_msg(strcmp(sx, sy) == 0, "%s %s: report %s, chart %s",
                          rl_json_string(x, "name"), keys[k], sx, sy);
            free(sx);
            free(sy);
        }
        const char *name = rl_json_string(x, "name"), *bound = rl_json_string(x, "bound");
        if (strcmp(name, "at ridge") == 0)
            ck_assert_str_eq(bound, "compute");
        if (strcmp(name, "left") == 0)
            ck_assert_str_eq(bound, "memory");
        if (strcmp(name, "slow") == 0) /* 1e9 / 4.1667e6 ns = 0.24 TFLOP/s of 4.8: 5% */
            ck_assert_str_eq(bound, "neither");
        /* Not drawn: the default (the highest roof drawn, FP8), with a note. */
        if (strcmp(name, "odd precision") == 0)
            ck_assert_str_eq(rl_json_string(x, "roof"), "fp8");
    }
    ck_assert_ptr_nonnull(strstr(cha.err, "holds no FP4 Tensor Core rate"));
    cJSON_Delete(a);
    cJSON_Delete(b);
    rl_run_release(&rep);
    rl_run_release(&cha);

    /* llm: each operator's bound and time against the judge's verdict for its
     * FLOPs and bytes (decode at batch 1 and 256, prefill). */
    struct rl_run llm = RUN("llm", "--model", "llama-3-8b", "--batch", "1,256", "--json");
    ck_assert_msg(llm.status == 0, "%s", llm.err);
    cJSON *l = kernels_of(llm.out);
    char text[65536];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "[");
    int ops = 0;
    static const char *const phases[] = {"decode", "prefill"};
    const cJSON *opsj = cJSON_GetObjectItem(l, "operators");
    for (int ph = 0; ph < 2; ph++) {
        const cJSON *o;
        cJSON_ArrayForEach(o, cJSON_GetObjectItem(opsj, phases[ph]))
        {
            double flops = rl_json_number(o, "flops");
            double bytes = rl_json_number(o, "weight_bytes") + rl_json_number(o, "activation_bytes") +
                           rl_json_number(o, "kv_bytes");
            if (!(flops > 0) || !(bytes > 0))
                continue;
            n += (size_t)snprintf(text + n, sizeof text - n,
                                  "%s{\"name\": \"%s %s\", \"flops\": %.17g, \"bytes\": %.17g, "
                                  "\"precision\": \"%s\"}",
                                  ops ? ",\n" : "", phases[ph], rl_json_string(o, "name"), flops,
                                  bytes, rl_json_string(o, "roof"));
            ops++;
        }
    }
    snprintf(text + n, sizeof text - n, "]\n");
    ck_assert_int_gt(ops, 6);
    write_text(kern, text);
    rep = RUN("report", "--gpu", "h200", "--kernels", kern, "-o", dir, "--json");
    ck_assert_msg(rep.status == 0, "%s", rep.err);
    a = kernels_of(rep.out);
    int checked = 0;
    for (int ph = 0; ph < 2; ph++) {
        const cJSON *o;
        cJSON_ArrayForEach(o, cJSON_GetObjectItem(opsj, phases[ph]))
        {
            char name[128];
            snprintf(name, sizeof name, "%s %s", phases[ph], rl_json_string(o, "name"));
            const cJSON *k;
            cJSON_ArrayForEach(k, cJSON_GetObjectItem(a, "kernels"))
            {
                if (strcmp(rl_json_string(k, "name"), name) != 0)
                    continue;
                ck_assert_msg(strcmp(rl_json_string(k, "bound"), rl_json_string(o, "bound")) == 0,
                              "%s: judge %s, llm %s", name, rl_json_string(k, "bound"),
                              rl_json_string(o, "bound"));
                /* time = FLOPs / attainable */
                double t = rl_json_number(o, "flops") / rl_json_number(k, "attainable_tflops") / 1e3;
                ck_assert_msg(fabs(t / rl_json_number(o, "time_ns") - 1) < 1e-6,
                              "%s: judge %.6g ns, llm %.6g ns", name, t,
                              rl_json_number(o, "time_ns"));
                checked++;
            }
        }
    }
    ck_assert_int_eq(checked, ops);
    cJSON_Delete(a);
    cJSON_Delete(l);
    rl_run_release(&rep);
    rl_run_release(&llm);
}
END_TEST

/* ---- errors a person can act on -------------------------------------------- */

/* A usage error: exit 2, nothing on stdout, the line saying it (with
 * fragment) and the "see -h" line, nothing else. */
static void assert_usage(const struct rl_run *r, const char *cmd, const char *fragment)
{
    ck_assert_msg(r->status == 2, "exit %d: %s", r->status, r->err);
    ck_assert_str_eq(r->out, "");
    ck_assert_msg(rl_test_count(r->err, "\n") == 2, "not two lines: %s", r->err);
    char head[64], hint[96];
    snprintf(head, sizeof head, "roofline %s: ", cmd);
    snprintf(hint, sizeof hint, "\n(see 'roofline %s -h')\n", cmd);
    ck_assert_msg(strncmp(r->err, head, strlen(head)) == 0, "%s", r->err);
    ck_assert_msg(strstr(r->err, fragment) != NULL, "'%s' lacks '%s'", r->err, fragment);
    size_t n = strlen(r->err), k = strlen(hint);
    ck_assert_msg(n > k && strcmp(r->err + n - k, hint) == 0, "no hint line: %s", r->err);
}

/* Every command: one line and the hint, exit 2, and the nearest name for a
 * mistyped option, precision, memory level, format, built-in or set; the
 * same mistake the same exit code everywhere. No GPU is looked for. */
START_TEST(usage_errors_say_the_nearest_name)
{
    static const char *const env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    static const struct {
        const char *cmd, *args[8], *fragment;
    } cases[] = {
        {"ridge", {"--gpu", "h200", "--presicion", "bf16"},
         "unknown option '--presicion' (did you mean '--precision'?)"},
        {"ridge", {"--gpu"}, "option '--gpu' needs a value"},
        {"gpus", {"--json=1"}, "option '--json' takes no value"},
        {"chart", {"-x"}, "unknown option '-x'"},
        {"report", {"-o"}, "option '-o' needs a value"},
        {"trace", {"--frobnicate"}, "unknown option '--frobnicate'"},
        /* An unknown precision: usage, in every command that takes one. */
        {"ridge", {"--gpu", "h200", "--precision", "fp7"},
         "unknown precision 'fp7' (did you mean 'fp8'?)"},
        {"chart", {"--gpu", "h200", "--precision", "bf16,fp7", "-o", "never.svg"},
         "unknown precision 'fp7' (did you mean 'fp8'?)"},
        {"llm", {"--model", "llama-3-8b", "--precision", "bf17"},
         "unknown precision 'bf17' (did you mean 'bf16'?)"},
        {"llm", {"--model", "llama-3-8b", "--kv-precision", "fp9"},
         "unknown KV cache precision 'fp9' (did you mean 'fp8'?)"},
        {"ridge", {"--gpu", "h200", "--memory", "l3"},
         "unknown memory level 'l3' (did you mean 'l2'?)"},
        {"chart", {"--gpu", "h200", "--memory", "hbm,l3", "-o", "never.svg"},
         "unknown memory level 'l3' (did you mean 'l2'?)"},
        {"report", {"--kernels", "k.json", "--format", "svg,pngg"},
         "unknown chart format 'pngg' (did you mean 'png'?)"},
        /* Checked before any device: not "no driver", not "no GPU". */
        {"trace", {"--builtin", "gemmm"},
         "unknown built-in workload 'gemmm' (did you mean 'gemm'?)"},
        {"trace", {"--builtin", "foo"},
         "unknown built-in workload 'foo' (one of: gemm, gemv, elementwise, decode, prefill)"},
        {"trace", {"--builtin", "gemv", "--kernel", "gemv("}, "--kernel: bad regular expression"},
        {"trace", {"--metrics", "ful", "--", "true"},
         "unknown counter set 'ful' (did you mean 'full'?)"},
        {"metrics", {"--chip", "GH100", "--set", "ful"},
         "unknown counter set 'ful' (did you mean 'full'?)"},
        {"bench", {"--only", "fp33"}, "unknown benchmark or group 'fp33' (did you mean 'fp32'?)"},
        {"bench", {"--device", "x"}, "--device needs a whole number in 0..1023, not 'x'"},
        {"llm", {"--model", "llama-3-8b", "--precision", "fp8", "--measure"},
         "--measure runs BF16 layers, not fp8"},
        {"llm", {"--model", "mixtral-8x7b", "--measure"},
         "--measure runs dense layers: Mixtral-8x7B-v0.1 is a mixture of experts"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].args;
        struct rl_run r = rl_test_cli(env, cases[i].cmd, a[0], a[1], a[2], a[3], a[4], a[5],
                                      a[6], a[7], (const char *)NULL);
        assert_usage(&r, cases[i].cmd, cases[i].fragment);
        rl_run_release(&r);
    }
    /* Commands: one line; the nearest, or the list. */
    struct rl_run r = RUN("repot");
    ck_assert_int_eq(r.status, 2);
    assert_one_error_line(&r, "unknown command 'repot' (did you mean 'report'?)");
    rl_run_release(&r);
    r = RUN("help", "nosuch");
    ck_assert_int_eq(r.status, 2);
    assert_one_error_line(&r, "unknown command 'nosuch' (one of: gpus, ridge, chart, bench, "
                              "trace, metrics, report, llm, comm, run)");
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
    /* No command at all: two lines, not the whole help. */
    r = RUN(NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 2);
    ck_assert_ptr_nonnull(strstr(r.err, "(see 'roofline -h')"));
    rl_run_release(&r);
}
END_TEST

/* Names looked up in the data (GPUs, models, chips): one line, exit 1, the
 * nearest name. Chips are matched ignoring case. */
START_TEST(unknown_names_say_the_nearest)
{
    struct rl_run r = RUN("gpus", "show", "h10-sxm");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown GPU 'h10-sxm' (did you mean 'h100-sxm'?)");
    rl_run_release(&r);
    r = RUN("llm", "--model", "llama-3-9b");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown model 'llama-3-9b' (did you mean 'llama-3-8b'?)");
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
    /* Chips need CUPTI's host library: a build without CUDA says so. */
    struct rl_run upper = RUN("metrics", "--chip", "GH100", "--ncu");
    if (upper.status == 0) {
        struct rl_run lower = RUN("metrics", "--chip", "gh100", "--ncu");
        ck_assert_msg(lower.status == 0, "%s", lower.err);
        ck_assert_str_eq(lower.out, upper.out);
        rl_run_release(&lower);
        r = RUN("metrics", "--chip", "GH101");
        ck_assert_int_eq(r.status, 1);
        assert_one_error_line(&r, "unknown chip 'GH101' (did you mean 'GH100'?)");
        rl_run_release(&r);
    } else {
        ck_assert_ptr_nonnull(strstr(upper.err, "without CUDA"));
    }
    rl_run_release(&upper);
}
END_TEST

/* ---- output sets: all or nothing ---------------------------------------------- */


/* A new empty folder under the test's temporary one. */
static const char *fresh_dir(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", rl_test_tmpdir(), name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s'", buf, buf);
    ck_assert_int_eq(system(cmd), 0);
    return buf;
}

/* The content of each dir/names[i] ("(missing)" for none), malloc'd. */
#define SET_MAX 8
struct set {
    char *text[SET_MAX];
    const char *const *names;
};

static struct set set_read(const char *dir, const char *const *names)
{
    struct set st = {.names = names};
    for (size_t i = 0; names[i]; i++) {
        ck_assert_uint_lt(i, SET_MAX);
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        st.text[i] = rl_test_slurp(path);
        if (!st.text[i])
            st.text[i] = strdup("(missing)");
    }
    return st;
}

static void set_release(struct set *st)
{
    for (size_t i = 0; i < SET_MAX; i++)
        free(st->text[i]);
}

/* NULL when a and b hold the same files, else the first that differs. */
static const char *set_differs(const struct set *a, const struct set *b)
{
    for (size_t i = 0; a->names[i]; i++)
        if (strcmp(a->text[i], b->text[i]) != 0)
            return a->names[i];
    return NULL;
}

static bool set_has(const struct set *a, const char *text)
{
    for (size_t i = 0; a->names[i]; i++)
        if (strstr(a->text[i], text))
            return true;
    return false;
}

static const char *const report_files[] = {"report.md", "report.json", "report.csv",
                                           "roofline.gp", "roofline.roofs.dat",
                                           "roofline.kernels.dat", NULL};

/* Without -o, `report --json` prints and writes nothing: no folder. */
START_TEST(report_json_alone_writes_nothing)
{
    char dir[1024];
    fresh_dir("json-alone", dir, sizeof dir);
    ck_assert_int_eq(chdir(dir), 0);
    struct rl_run r = RUN("report", "--gpu", "h200", "--kernels",
                          ROOFLINE_SOURCE_DIR "/data/examples/llm-decode-prefill.json", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"format\": \"roofline-report\""));
    ck_assert_int_eq(rl_test_count_entries(dir, ""), 2); /* . and .. */
    rl_run_release(&r);
}
END_TEST

/* `run --gpu nope`: the error, and no folder made (nor a stage). */
START_TEST(run_checks_before_writing)
{
    char top[1024], dir[1100];
    fresh_dir("run-nope", top, sizeof top);
    snprintf(dir, sizeof dir, "%s/out", top);
    static const char *const env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    struct rl_run r = rl_test_cli(env, "run", "--gpu", "nope", "-o", dir, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown GPU 'nope'");
    ck_assert_str_eq(r.out, "");
    ck_assert_int_eq(rl_test_count_entries(top, ""), 2);
    rl_run_release(&r);
}
END_TEST

/* Integers stay integers in llm's JSON: parameters, FLOPs, bytes. */
START_TEST(llm_json_integers_exact)
{
    struct rl_run r = RUN("llm", "--model", "llama-3-8b", "--batch", "1,256", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"parameters\": 8030261248,"));
    /* Prefill of 2048 tokens, QKV projection: 2 x 2048 x 4096 x 6144. */
    ck_assert_ptr_nonnull(strstr(r.out, "{\"name\": \"qkv_proj\", \"count\": 32, "
                                        "\"flops\": 103079215104, "));
    static const char *const keys[] = {"\"flops\": ", "\"weight_bytes\": ", "\"kv_bytes\": ",
                                       "\"weights_bytes\": ", "\"kv_cache_bytes\": ",
                                       "\"training_bytes\": ", "\"bytes\": ", NULL};
    int seen = 0;
    for (size_t k = 0; keys[k]; k++)
        for (const char *p = strstr(r.out, keys[k]); p; p = strstr(p + 1, keys[k])) {
            const char *v = p + strlen(keys[k]);
            size_t digits = strspn(v, "0123456789");
            ck_assert_msg(digits > 0 && (v[digits] == ',' || v[digits] == '}' ||
                                         v[digits] == '\n'),
                          "%.60s", p);
            seen++;
        }
    ck_assert_int_gt(seen, 50);
    rl_run_release(&r);
}
END_TEST

/* A set whose member fails (gnuplot runs and fails: an error, not the
 * warning of a missing gnuplot) leaves the previous set as it was, byte for
 * byte, and no stage behind: report, llm, run and chart. */
START_TEST(failed_sets_leave_the_previous_one)
{
    static const char *const skip[] = {"ROOFLINE_GNUPLOT=/nonexistent/gnuplot",
                                       "CUDA_VISIBLE_DEVICES=-1", NULL};
    static const char *const fail[] = {"ROOFLINE_GNUPLOT=/bin/false", "CUDA_VISIBLE_DEVICES=-1",
                                       NULL};
    const char *kernels = ROOFLINE_SOURCE_DIR "/data/examples/llm-decode-prefill.json";
    char top[1024], dir[1100];
    fresh_dir("failed-sets", top, sizeof top);

    snprintf(dir, sizeof dir, "%s/report", top);
    struct rl_run r = rl_test_cli(skip, "report", "--gpu", "h200", "--kernels", kernels, "-o",
                                  dir, "--title", "first", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    struct set before = set_read(dir, report_files), after;
    r = rl_test_cli(fail, "report", "--gpu", "h100-sxm", "--kernels", kernels, "-o", dir,
                    "--title", "second", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "gnuplot failed");
    ck_assert_msg(strstr(r.err, ".tmp.") == NULL, "a stage named: %s", r.err);
    after = set_read(dir, report_files);
    ck_assert_msg(!set_differs(&after, &before), "report: %s changed", set_differs(&after, &before));
    ck_assert(set_has(&after, "first"));
    set_release(&before);
    set_release(&after);
    rl_run_release(&r);

    static const char *const llm_files[] = {"llm.json", "llm-roofline.gp", "llm-batch.gp",
                                            "llm-batch.dat", NULL};
    snprintf(dir, sizeof dir, "%s/llm", top);
    r = rl_test_cli(skip, "llm", "--model", "llama-3-8b", "--batch", "1", "-o", dir,
                    (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    before = set_read(dir, llm_files);
    r = rl_test_cli(fail, "llm", "--model", "llama-3-8b", "--batch", "1,64", "-o", dir,
                    (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    after = set_read(dir, llm_files);
    ck_assert_msg(!set_differs(&after, &before), "llm: %s changed", set_differs(&after, &before));
    set_release(&before);
    set_release(&after);
    rl_run_release(&r);

    static const char *const run_files[] = {"kernels-analytic.json", "report.md", "report.json",
                                            "report.csv", "roofline.gp", NULL};
    snprintf(dir, sizeof dir, "%s/run", top);
    r = rl_test_cli(skip, "run", "-o", dir, "--tokens", "1024", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    before = set_read(dir, run_files);
    ck_assert(!set_has(&before, ".tmp.")); /* its paths are the final ones */
    r = rl_test_cli(fail, "run", "-o", dir, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    after = set_read(dir, run_files);
    ck_assert_msg(!set_differs(&after, &before), "run: %s changed", set_differs(&after, &before));
    set_release(&before);
    set_release(&after);
    rl_run_release(&r);

    /* chart: every image with its script and data, several formats. */
    static const char *const chart_files[] = {"c.gp", "c.roofs.dat", "c.kernels.dat", NULL};
    char svg[1200], pdf[1200];
    snprintf(svg, sizeof svg, "%s/c.svg", top);
    snprintf(pdf, sizeof pdf, "%s/c.pdf", top);
    r = rl_test_cli(skip, "chart", "--gpu", "h200", "--kernels", kernels, "-o", svg, "-o", pdf,
                    "--title", "first", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    before = set_read(top, chart_files);
    r = rl_test_cli(fail, "chart", "--gpu", "h100-sxm", "--kernels", kernels, "-o", svg, "-o",
                    pdf, "--title", "second", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    after = set_read(top, chart_files);
    ck_assert_msg(!set_differs(&after, &before), "chart: %s changed", set_differs(&after, &before));
    set_release(&before);
    set_release(&after);
    rl_run_release(&r);
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

/* Two writers of one -o at once, many times over: each time every file
 * comes from one of them, as it writes it alone. */
static void race_cli(const char *name, const char *const *files, bool folder)
{
    static const char *const env[] = {"ROOFLINE_GNUPLOT=/nonexistent/gnuplot", NULL};
    char top[512], out[2048], kern[2][1024], ref[2][1024];
    fresh_dir(name, top, sizeof top);
    static const char *const gpu[2] = {"h200", "h100-sxm"};
    for (int w = 0; w < 2; w++) {
        snprintf(kern[w], sizeof kern[w], "%s/kernels-%d.json", top, w);
        char text[256];
        snprintf(text, sizeof text,
                 "[{\"name\": \"writer %d\", \"flops\": %d000000, \"bytes\": 1000000}]\n", w,
                 w + 1);
        write_text(kern[w], text);
    }
    /* What each writes alone. */
    struct set alone[2];
    for (int w = 0; w < 2; w++) {
        snprintf(ref[w], sizeof ref[w], "%s/alone-%d", top, w);
        mkdir(ref[w], 0777);
        snprintf(out, sizeof out, folder ? "%s/set" : "%s/c.svg", ref[w]);
        struct rl_run r = folder ? rl_test_cli(env, "report", "--gpu", gpu[w], "--kernels",
                                               kern[w], "-o", out, (const char *)NULL)
                                 : rl_test_cli(env, "chart", "--gpu", gpu[w], "--kernels",
                                               kern[w], "-o", out, (const char *)NULL);
        ck_assert_msg(r.status == 0, "%s", r.err);
        rl_run_release(&r);
        if (folder)
            snprintf(ref[w], sizeof ref[w], "%s/alone-%d/set", top, w);
        alone[w] = set_read(ref[w], files);
    }
    for (size_t i = 0; files[i]; i++) /* every file tells its writer */
        ck_assert_msg(strcmp(alone[0].text[i], alone[1].text[i]) != 0, "%s", files[i]);
    char shared[1024];
    snprintf(shared, sizeof shared, "%s/shared", top);
    mkdir(shared, 0777);
    snprintf(out, sizeof out, folder ? "%s/set" : "%s/c.svg", shared);
    char dir[2048];
    snprintf(dir, sizeof dir, folder ? "%s/set" : "%s", shared);
    for (int round = 0; round < 40; round++) {
        pid_t pid[2];
        for (int w = 0; w < 2; w++) {
            fflush(NULL);
            pid[w] = fork();
            ck_assert_int_ge(pid[w], 0);
            if (pid[w] == 0) {
                const char *argv[] = {ROOFLINE_BIN, folder ? "report" : "chart", "--gpu", gpu[w],
                                      "--kernels", kern[w], "-o", out, NULL};
                int devnull = open("/dev/null", O_WRONLY);
                dup2(devnull, 1);
                dup2(devnull, 2);
                putenv((char *)env[0]);
                execv(ROOFLINE_BIN, (char *const *)argv);
                _exit(127);
            }
        }
        for (int w = 0; w < 2; w++) {
            int st;
            ck_assert_int_eq(waitpid(pid[w], &st, 0), pid[w]);
            ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "round %d: writer %d: %d",
                          round, w, st);
        }
        struct set now = set_read(dir, files);
        const char *d0 = set_differs(&now, &alone[0]), *d1 = set_differs(&now, &alone[1]);
        ck_assert_msg(!d0 || !d1, "round %d: a mix of the two writers: %s not the first's, %s "
                                  "not the second's", round, d0, d1);
        set_release(&now);
        ck_assert_int_eq(rl_test_count_entries(shared, ".tmp."), 0);
    }
    set_release(&alone[0]);
    set_release(&alone[1]);
}

START_TEST(two_report_writers_never_mix) { race_cli("race-report", report_files, true); }
END_TEST

START_TEST(two_chart_writers_never_mix)
{
    static const char *const files[] = {"c.gp", "c.roofs.dat", "c.kernels.dat", NULL};
    race_cli("race-chart", files, false);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, version_and_help);
    tcase_add_test(core, golden_gpus);
    tcase_add_test(core, golden_ridge);
    tcase_add_test(core, own_spec_file);
    tcase_add_test(core, chart_with_kernels);
    tcase_add_test(core, chart_with_measured_ceilings);
    tcase_add_test(core, one_judge_for_report_chart_and_llm);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, unknown_gpu_and_bad_usage);
    tcase_add_test(limits, chart_bad_inputs);
    tcase_add_test(limits, bench_without_a_gpu);
    tcase_add_test(limits, charts_skipped_without_gnuplot);
    tcase_add_test(limits, gpu_suites_run_unforked);
    tcase_add_test(limits, device_option_parsed_alike);
    tcase_add_test(limits, usage_errors_say_the_nearest_name);
    tcase_add_test(limits, unknown_names_say_the_nearest);
    tcase_add_test(limits, report_json_alone_writes_nothing);
    tcase_add_test(limits, run_checks_before_writing);
    tcase_add_test(limits, llm_json_integers_exact);
    tcase_add_test(limits, failed_sets_leave_the_previous_one);
    suite_add_tcase(s, limits);
    TCase *sets = tcase_create("sets");
    tcase_set_timeout(sets, 120);
    tcase_add_test(sets, two_report_writers_never_mix);
    tcase_add_test(sets, two_chart_writers_never_mix);
    suite_add_tcase(s, sets);
    return s;
}

int main(void) { return rl_test_run(cli_suite()); }
