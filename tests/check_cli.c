/* check_cli.c - tests of the roofline command line: golden outputs, errors, exit codes. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    assert_one_error_line(&r, "unknown GPU 'h100-sxm6' (closest: h100-sxm");
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "a100-sxm-80gb", "--precision", "fp8");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "has no FP8 Tensor Core rate");
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "h200", "--memory", "l2");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "gives no L2 bandwidth");
    rl_run_release(&r);
    r = RUN("ridge", "--precision", "bf16");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--gpu is required"));
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
    ck_assert_ptr_nonnull(strstr(script, "BF16 Tensor Core: 760.0 TFLOP/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "BF16 cuBLASLt: 700.0 TFLOP/s (measured)"));
    /* FP8: the better of E4M3 and E5M2. */
    ck_assert_ptr_nonnull(strstr(script, "FP8 Tensor Core: 1300.0 TFLOP/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "HBM3e: 4.2 TB/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "L2: 9.5 TB/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "L1/shared: 30 TB/s (measured)"));
    ck_assert_ptr_nonnull(strstr(script, "title \"measured ceiling\""));
    ck_assert_ptr_nonnull(strstr(script, "FP32 intensity sweep"));
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
    ck_assert_ptr_nonnull(strstr(cha.err, "has no FP4 Tensor Core rate"));
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
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(cli_suite()); }
