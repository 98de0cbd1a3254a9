/* check_profiler.c - tests of the profiler that need no GPU: metric sets per chip, counts from counters, trace files, the injection library. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/profiler/metrics.h"
#include "analyzer/readers/records.h"
#include "analyzer/util/schema.h"
#include "analyzer/profiler/trace.h"
#include "analyzer/profiler/tracer.h"
#include "tests/profiler/fake_cupti.h"

#include <cupti.h>
#include <cupti_result.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- metric sets, through the CUPTI host API (no GPU) ---------------------- */

static struct rl_metric_set *build(const char *chip, enum rl_counter_set kind)
{
    struct rl_metric_set *s = malloc(sizeof *s);
    char err[RL_ERRMSG_SIZE];
    ck_assert_ptr_nonnull(s);
    int rc = rl_metric_set_build(chip, kind, NULL, s, err);
    ck_assert_msg(rc == 0, "%s: %s", chip, err);
    return s;
}

/* Every required quantity is collected, each name CUPTI accepted. */
static void assert_complete(const struct rl_metric_set *s)
{
    size_t n;
    const struct rl_q_def *q = rl_q_defs(&n);
    ck_assert_uint_eq(n, RL_Q_COUNT);
    for (size_t i = 0; i < n; i++)
        if (q[i].required)
            ck_assert_msg(s->on[i], "%s: %s not collected", s->chip, q[i].key);
    for (int i = 0; i < s->n_tried; i++)
        if (s->tried[i].chosen)
            ck_assert_msg(s->tried[i].valid, "%s: chose invalid %s", s->chip, s->tried[i].name);
    ck_assert_int_gt(s->n_names, 13);
}

START_TEST(gh100_default_two_passes)
{
    struct rl_metric_set *s = build("GH100", RL_COUNTERS_DEFAULT);
    assert_complete(s);
    ck_assert_int_le(s->passes, 2);
    ck_assert_int_ge(s->passes, 1);
    /* The LLM formats are in the default set. */
    ck_assert(s->on[RL_Q_TENSOR_BF16]);
    ck_assert(s->on[RL_Q_TENSOR_FP8]);
    ck_assert_str_eq(s->metric[RL_Q_TENSOR_BF16], "sm__ops_path_tensor_src_bf16_dst_fp32.sum");
    ck_assert_str_eq(s->metric[RL_Q_DRAM_READ], "dram__bytes_read.sum");
    /* And wgmma's instruction count, the Tensor Core activity that fits
     * the 2 passes (the tensor pipe's cycles would make 3). */
    ck_assert_int_eq(s->n_guard, 1);
    ck_assert_str_eq(s->names[s->guard[0]], "sm__sass_inst_executed_op_shared_gmma.sum");
    struct rl_metric_set *b = build("GB100", RL_COUNTERS_DEFAULT);
    ck_assert_int_le(b->passes, 2);
    ck_assert_int_eq(b->n_guard, 2);
    ck_assert_str_eq(b->names[b->guard[0]], "sm__sass_inst_executed_op_utcmma.sum");
    free(b);
    b = build("GA100", RL_COUNTERS_DEFAULT); /* no room: nothing to tell with */
    ck_assert_int_eq(b->n_guard, 0);
    double v[RL_Q_COUNT * RL_Q_MAX_TERMS + RL_TENSOR_GUARD_MAX] = {0};
    ck_assert(isnan(rl_metric_set_tensor_activity(b, v)));
    free(b);
    v[s->guard[0]] = 96;
    ck_assert_double_eq(rl_metric_set_tensor_activity(s, v), 96);
    /* The config image CUPTI builds from it is real, and an evaluator opens. */
    uint8_t *image = NULL;
    size_t size = 0;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_metric_set_config(s, NULL, &image, &size, err), 0);
    ck_assert_uint_gt(size, 64);
    free(image);
    struct rl_metric_evaluator *ev;
    const uint8_t *img;
    ck_assert_int_eq(rl_metric_evaluator_open(s, NULL, &ev, &img, &size, err), 0);
    ck_assert_uint_gt(size, 64);
    rl_metric_evaluator_close(ev);
    free(s);
}
END_TEST

START_TEST(gh100_full_costs_more)
{
    struct rl_metric_set *s = build("GH100", RL_COUNTERS_FULL);
    assert_complete(s);
    ck_assert(s->on[RL_Q_TENSOR_FP16] && s->on[RL_Q_TENSOR_TF32] && s->on[RL_Q_TENSOR_INT8]);
    ck_assert_int_gt(s->passes, 2);
    ck_assert_int_eq(s->n_guard, 2); /* + the tensor pipe's cycles: mma.sync too */
    free(s);
}
END_TEST

START_TEST(fallbacks_per_chip)
{
    /* GA100 and AD102 split FP16 by destination: the second candidate. */
    static const char *const split[] = {"GA100", "AD102"};
    for (int i = 0; i < 2; i++) {
        struct rl_metric_set *s = build(split[i], RL_COUNTERS_FULL);
        assert_complete(s);
        ck_assert_str_eq(s->metric[RL_Q_TENSOR_FP16], "sm__ops_path_tensor_src_fp16_dst_fp32.sum"
                                                      "+sm__ops_path_tensor_src_fp16_dst_fp16.sum");
        free(s);
        s = build(split[i], RL_COUNTERS_DEFAULT);
        ck_assert_int_le(s->passes, 2);
        free(s);
    }
    /* GA100 has no FP8: not collected, never a zero. */
    struct rl_metric_set *s = build("GA100", RL_COUNTERS_FULL);
    ck_assert(!s->on[RL_Q_TENSOR_FP8]);
    free(s);
    /* GB100 folds FP8 with FP4/FP6. */
    s = build("GB100", RL_COUNTERS_FULL);
    assert_complete(s);
    ck_assert_ptr_nonnull(strstr(s->metric[RL_Q_TENSOR_FP8], "fp4_fp6_fp8"));
    free(s);
    /* GB202 names DRAM bytes differently. */
    s = build("GB202", RL_COUNTERS_DEFAULT);
    assert_complete(s);
    ck_assert_str_eq(s->metric[RL_Q_DRAM_READ], "dram__bytes_op_read.sum");
    free(s);
}
END_TEST

/* Every NVIDIA GPU of the database names a chip CUPTI 13.0 counts (the
 * spec files' "chip" is what `trace` and `metrics` use): its default set
 * builds in at most 2 passes, and the text says so. */
START_TEST(every_nvidia_gpu_has_a_counter_set)
{
    struct rl_run g = rl_test_cli(NULL, "gpus", "--json", (const char *)NULL);
    ck_assert_int_eq(g.status, 0);
    cJSON *doc = cJSON_Parse(g.out);
    ck_assert_ptr_nonnull(doc);
    const cJSON *gpu;
    char seen[512] = " ";
    cJSON_ArrayForEach(gpu, cJSON_GetObjectItem(doc, "gpus"))
    {
        const char *chip = rl_json_string(gpu, "chip");
        if (strcmp(rl_json_string(gpu, "vendor"), "NVIDIA") != 0)
            continue;
        char key[24];
        snprintf(key, sizeof key, " %s ", chip);
        if (strstr(seen, key))
            continue;
        strncat(seen, key + 1, sizeof seen - strlen(seen) - 1);
        struct rl_run r = rl_test_cli(NULL, "metrics", "--chip", chip, (const char *)NULL);
        if (r.status == 1 && strstr(r.err, "without CUDA")) {
            rl_run_release(&r);
            break;
        }
        ck_assert_msg(r.status == 0, "%s (%s): %s", chip, rl_json_string(gpu, "id"), r.err);
        char want[64];
        snprintf(want, sizeof want, "chip %s, default set: ", chip);
        ck_assert_msg(strncmp(r.out, want, strlen(want)) == 0, "%s", r.out);
        int passes = atoi(r.out + strlen(want));
        ck_assert_msg(passes >= 1 && passes <= 2, "%s: %d passes", chip, passes);
        rl_run_release(&r);
    }
    cJSON_Delete(doc);
    rl_run_release(&g);
}
END_TEST

START_TEST(unknown_chip)
{
    struct rl_metric_set *s = malloc(sizeof *s);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_metric_set_build("XX999", RL_COUNTERS_DEFAULT, NULL, s, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "XX999"));
    free(s);
}
END_TEST

START_TEST(quantities_sum_terms)
{
    struct rl_metric_set *s = build("GA100", RL_COUNTERS_FULL);
    double names[RL_Q_COUNT * RL_Q_MAX_TERMS], q[RL_Q_COUNT];
    for (int i = 0; i < s->n_names; i++)
        names[i] = i + 1;
    rl_metric_set_quantities(s, names, q);
    /* FP16 is the sum of its two terms; the others one name each. */
    int t0 = s->term[RL_Q_TENSOR_FP16][0], t1 = s->term[RL_Q_TENSOR_FP16][1];
    ck_assert_double_eq(q[RL_Q_TENSOR_FP16], (t0 + 1) + (t1 + 1));
    ck_assert_double_eq(q[RL_Q_FFMA], s->term[RL_Q_FFMA][0] + 1);
    ck_assert(isnan(q[RL_Q_TENSOR_FP8]));
    free(s);
}
END_TEST

/* ---- counts from recorded counter values ----------------------------------- */

static void q_empty(double *q)
{
    for (int i = 0; i < RL_Q_COUNT; i++)
        q[i] = NAN;
}

/* Counters as a default-set GH100 run would record them, all zero but the
 * given ones. */
static void q_default(double *q)
{
    q_empty(q);
    for (int i = 0; i <= RL_Q_TENSOR_FP8; i++)
        q[i] = 0;
}

START_TEST(counts_cuda_cores)
{
    double q[RL_Q_COUNT];
    q_default(q);
    q[RL_Q_FFMA] = 1e6;
    q[RL_Q_FADD] = 2e5;
    q[RL_Q_FMUL] = 1e5;
    q[RL_Q_DFMA] = 10;
    q[RL_Q_HFMA] = 100; /* HFMA2: 2 lanes x 2 FLOP */
    q[RL_Q_HADD] = 5;
    q[RL_Q_DRAM_READ] = 3e6;
    q[RL_Q_DRAM_WRITE] = 1e6;
    q[RL_Q_L2_BYTES] = 8e6;
    q[RL_Q_TIME_NS] = 1234;
    struct rl_kernel_counts c;
    rl_counts_derive(q, 2, &c);
    ck_assert_double_eq(c.flops_fp32, 2 * 1e6 + 2e5 + 1e5);
    ck_assert_double_eq(c.flops_fp64, 20);
    ck_assert_double_eq(c.flops_fp16, 2 * (5 + 2 * 100));
    ck_assert_double_eq(c.flops_tensor, 0);
    ck_assert_double_eq(c.flops, 2.3e6 + 20 + 410);
    ck_assert_str_eq(c.precision, "fp32");
    ck_assert_double_eq(c.dram_bytes, 4e6);
    ck_assert_double_eq(c.l2_bytes, 8e6);
    ck_assert_double_eq(c.time_ns, 1234);
}
END_TEST

START_TEST(counts_tensor)
{
    double q[RL_Q_COUNT];
    q_default(q);
    q[RL_Q_TENSOR_BF16] = 8.589934592e9; /* 2048^3 ops */
    q[RL_Q_FFMA] = 1000;
    q[RL_Q_DRAM_READ] = 25165824;
    q[RL_Q_DRAM_WRITE] = 8388608;
    struct rl_kernel_counts c;
    rl_counts_derive(q, 2, &c);
    ck_assert_double_eq(c.flops_tensor, 2 * 8.589934592e9);
    ck_assert_double_eq(c.flops, 2 * 8.589934592e9 + 2000);
    ck_assert_str_eq(c.precision, "bf16");
    /* Intensity of a 2048^3 BF16 GEMM reading A, B once, writing D once. */
    ck_assert_double_eq_tol(c.flops / c.dram_bytes, (2 * 8.589934592e9 + 2000) / 33554432.0, 1e-9);
    /* An unknown factor leaves tensor FLOPs unknown... */
    rl_counts_derive(q, NAN, &c);
    ck_assert(isnan(c.flops));
    /* ...but a kernel with no tensor work keeps its FLOPs. */
    q[RL_Q_TENSOR_BF16] = 0;
    rl_counts_derive(q, NAN, &c);
    ck_assert_double_eq(c.flops, 2000);
    /* Nothing collected: FLOPs unknown, not zero. */
    q_empty(q);
    rl_counts_derive(q, 2, &c);
    ck_assert(isnan(c.flops));
    ck_assert(isnan(c.dram_bytes));
}
END_TEST

/* ---- trace files --------------------------------------------------------- */

/* The file at path matches data/schemas/trace.schema.json. */
static void assert_schema(const char *path)
{
    cJSON *schema, *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse_file(ROOFLINE_SOURCE_DIR "/data/schemas/trace.schema.json",
                                        &schema, err), 0);
    char *text = rl_test_slurp(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(rl_json_parse(text, strlen(text), path, &doc, err), 0);
    ck_assert_msg(rl_schema_check_text(schema, doc, text, strlen(text), path, err) == 0, "%s",
                  err);
    cJSON_Delete(doc);
    cJSON_Delete(schema);
    free(text);
}

static struct rl_trace_kernel kernel(const char *name, uint32_t grid, uint64_t start, uint64_t ns)
{
    struct rl_trace_kernel k;
    memset(&k, 0, sizeof k);
    k.name = (char *)name;
    k.grid[0] = grid, k.grid[1] = k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = k.block[2] = 1;
    k.start_ns = start;
    k.end_ns = start + ns;
    k.step = -1;
    q_empty(k.q);
    return k;
}

START_TEST(sampled_counts)
{
    struct rl_trace_kernel k[4] = {kernel("gemv", 128, 0, 10), kernel("gemv", 128, 20, 10),
                                   kernel("gemv", 64, 40, 10), kernel("gemv", 128, 60, 10)};
    q_default(k[1].q);
    k[1].q[RL_Q_DRAM_READ] = 100;
    k[1].counts = RL_COUNTS_COUNTERS;
    ck_assert_int_eq(rl_trace_fill_sampled(k, 4), 2);
    ck_assert_int_eq(k[0].counts, RL_COUNTS_SAMPLED);
    ck_assert_double_eq(k[0].q[RL_Q_DRAM_READ], 100);
    ck_assert_int_eq(k[2].counts, RL_COUNTS_NONE); /* another grid: its own kernel */
    ck_assert_int_eq(k[3].counts, RL_COUNTS_SAMPLED);
}
END_TEST

START_TEST(trace_round_trip)
{
    /* A counted GEMV, two sampled launches of it, a timing-only kernel, and a
     * one-kernel step lending its analytic cost. */
    struct rl_trace_kernel k[5] = {kernel("gemv_bf16<4096>", 128, 1000, 20000),
                                   kernel("gemv_bf16<4096>", 128, 30000, 20000),
                                   kernel("gemv_bf16<4096>", 128, 60000, 22000),
                                   kernel("memset \"x\"", 1, 90000, 1000),
                                   kernel("rmsnorm", 1, 100000, 3000)};
    q_default(k[0].q);
    k[0].q[RL_Q_FFMA] = 4096.0 * 4096; /* bf16 GEMV on FP32 FMAs */
    k[0].q[RL_Q_DRAM_READ] = 2.0 * 4096 * 4096 + 2 * 4096;
    k[0].q[RL_Q_DRAM_WRITE] = 2 * 4096;
    k[0].q[RL_Q_TIME_NS] = 21000;
    k[0].counts = RL_COUNTS_COUNTERS;
    k[0].nvtx = "decode/layer0";
    k[4].step = 0;
    ck_assert_int_eq(rl_trace_fill_sampled(k, 5), 2);
    struct rl_trace_step step = {"rmsnorm 4096", 3.0 * 4096, 4.0 * 4096, "fp32"};
    struct rl_metric_set *set = build("GH100", RL_COUNTERS_DEFAULT);
    struct rl_trace_meta m = {.tool = "roofline test", .created = "2026-11-29T00:00:00Z",
                              .pid = 42, .program = "test", .gpu_name = "NVIDIA H200",
                              .chip = "GH100", .cc_major = 9, .sm_count = 132,
                              .counters_mode = "default", .counters_status = "ok",
                              .set = set, .tensor_flops_per_op = 2,
                              .tensor_check = "calibration: ok"};
    char path[512];
    snprintf(path, sizeof path, "%s/trace.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(rl_trace_write(f, &m, k, 5, &step, 1), 0);
    fclose(f);
    assert_schema(path);
    cJSON *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_json_parse_file(path, &doc, err) == 0, "%s", err);
    ck_assert_str_eq(rl_json_string(doc, "format"), "roofline-trace");
    ck_assert_double_eq(rl_json_number(doc, "schema_version"), 1);
    const cJSON *counters = cJSON_GetObjectItem(doc, "counters");
    ck_assert_double_eq(rl_json_number(counters, "passes"), set->passes);
    ck_assert(cJSON_GetArraySize(cJSON_GetObjectItem(counters, "metrics")) == set->n_names);
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(counters, "tensor_not_counted"), 0)
                         ->valuestring,
                     "fp16");
    const cJSON *ks = cJSON_GetObjectItem(doc, "kernels");
    ck_assert_int_eq(cJSON_GetArraySize(ks), 5);
    const cJSON *k0 = cJSON_GetArrayItem(ks, 0);
    ck_assert_str_eq(rl_json_string(k0, "counts"), "counters");
    ck_assert_double_eq(rl_json_number(k0, "flops"), 2.0 * 4096 * 4096);
    ck_assert_double_eq(rl_json_number(k0, "dram_bytes"), 2.0 * 4096 * 4096 + 4 * 4096);
    ck_assert_str_eq(rl_json_string(k0, "nvtx"), "decode/layer0");
    ck_assert_double_eq(rl_json_number(k0, "time_ns"), 20000);
    ck_assert_double_eq(rl_json_number(k0, "counter_time_ns"), 21000);
    ck_assert_str_eq(rl_json_string(cJSON_GetArrayItem(ks, 1), "counts"), "sampled");
    const cJSON *k3 = cJSON_GetArrayItem(ks, 3);
    ck_assert_str_eq(rl_json_string(k3, "name"), "memset \"x\"");
    ck_assert_str_eq(rl_json_string(k3, "counts"), "none");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(k3, "flops")));
    const cJSON *k4 = cJSON_GetArrayItem(ks, 4);
    ck_assert_str_eq(rl_json_string(k4, "counts"), "analytic");
    ck_assert_str_eq(rl_json_string(k4, "origin"), "analytic");
    ck_assert_double_eq(rl_json_number(k4, "flops"), 3.0 * 4096);
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "steps"), 0);
    ck_assert_str_eq(rl_json_string(s0, "label"), "rmsnorm 4096");
    ck_assert_double_eq(rl_json_number(s0, "launches"), 1);
    ck_assert_double_eq(rl_json_number(s0, "time_ns"), 3000);
    cJSON_Delete(doc);
    /* What `roofline chart --kernels` reads: the three GEMV launches merged
     * into one record of 3, the timing-only one skipped. */
    struct rl_record_list l = {0};
    ck_assert_msg(rl_records_load(&l, path, err) == 0, "%s", err);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_str_eq(l.v[0].name, "gemv_bf16<4096>");
    ck_assert_uint_eq(l.v[0].count, 3);
    ck_assert_double_eq(l.v[0].perf.flops, 3 * 2.0 * 4096 * 4096);
    ck_assert_double_eq(l.v[0].perf.time_ns, 62000);
    ck_assert_str_eq(l.v[0].signature, "grid 128x1x1 block 256x1x1");
    ck_assert_int_eq(l.v[1].origin, RL_ORIGIN_ANALYTIC);
    rl_record_list_release(&l);
    free(set);
}
END_TEST

/* A step run three times timing only, then once counted (builtin.c): its
 * time is the clean runs' median, its FLOPs the counted run's. */
START_TEST(timing_only_runs_give_the_step_time)
{
    /* Step 0: two launches per run, runs 0-2 timing only, run 3 counted.
     * Step 1: one launch, three timing-only runs and no counted one
     * (--metrics none): timed, and it lends its formula. */
    struct rl_trace_kernel k[11];
    const uint64_t ns[4] = {100, 300, 200, 900};
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 2; j++) {
            struct rl_trace_kernel *x = &k[2 * r + j];
            *x = kernel(j ? "gemv_b" : "gemv_a", 64, 1000u * (uint64_t)(2 * r + j + 1),
                        ns[r] + 10u * j);
            x->step = 0;
            x->run = r;
            x->timing_only = r < 3;
        }
    for (int j = 0; j < 2; j++) {
        q_default(k[6 + j].q);
        k[6 + j].q[RL_Q_FFMA] = 1000;
        k[6 + j].q[RL_Q_DRAM_READ] = 4000;
        k[6 + j].counts = RL_COUNTS_COUNTERS;
    }
    for (int r = 0; r < 3; r++) {
        k[8 + r] = kernel("rmsnorm", 1, 20000u + 1000u * (uint64_t)r, 50u + 10u * (uint64_t)r);
        k[8 + r].step = 1, k[8 + r].run = r, k[8 + r].timing_only = true;
    }
    ck_assert_int_eq(rl_trace_fill_sampled(k, 11), 6); /* the clean runs borrow */
    struct rl_trace_step steps[2] = {{"gemv x2", 4000, 8000, "fp32"},
                                     {"rmsnorm 4096", 3.0 * 4096, 4.0 * 4096, "fp32"}};
    struct rl_trace_meta m = {.tool = "roofline test", .created = "2026-11-29T00:00:00Z",
                              .program = "test", .counters_mode = "default",
                              .counters_status = "ok", .tensor_flops_per_op = NAN,
                              .setconfig = "per-launch", .launches_in_capture = 2};
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/runs.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(rl_trace_write(f, &m, k, 11, steps, 2), 0);
    fclose(f);
    assert_schema(path);
    cJSON *doc;
    ck_assert_msg(rl_json_parse_file(path, &doc, err) == 0, "%s", err);
    const cJSON *c = cJSON_GetObjectItem(doc, "counters");
    ck_assert_str_eq(rl_json_string(c, "setconfig"), "per-launch");
    ck_assert_double_eq(rl_json_number(c, "launches_in_capture"), 2);
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "steps"), 0);
    ck_assert_double_eq(rl_json_number(s0, "launches"), 2);
    ck_assert_double_eq(rl_json_number(s0, "counted_launches"), 2);
    ck_assert_double_eq(rl_json_number(s0, "timed_runs"), 3);
    ck_assert_double_eq(rl_json_number(s0, "time_ns"), 200 + 210); /* median run, not 900 */
    ck_assert_double_eq(rl_json_number(s0, "time_min_ns"), 100 + 110);
    ck_assert_double_eq(rl_json_number(s0, "time_max_ns"), 300 + 310);
    ck_assert_double_eq(rl_json_number(s0, "counted_run_time_ns"), 900 + 910);
    ck_assert_double_eq(rl_json_number(s0, "flops"), 4000); /* the counted run only */
    ck_assert_double_eq(rl_json_number(s0, "flops_vs_analytic"), 1);
    const cJSON *s1 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "steps"), 1);
    ck_assert_double_eq(rl_json_number(s1, "launches"), 1);
    ck_assert_double_eq(rl_json_number(s1, "counted_launches"), 0);
    ck_assert_double_eq(rl_json_number(s1, "time_ns"), 60);
    ck_assert_ptr_null(cJSON_GetObjectItem(s1, "counted_run_time_ns"));
    ck_assert_ptr_null(cJSON_GetObjectItem(s1, "flops"));
    const cJSON *ks = cJSON_GetObjectItem(doc, "kernels");
    const cJSON *k0 = cJSON_GetArrayItem(ks, 0), *k6 = cJSON_GetArrayItem(ks, 6);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(k0, "timing_only")));
    ck_assert_str_eq(rl_json_string(k0, "counts"), "sampled");
    ck_assert_ptr_null(cJSON_GetObjectItem(k6, "timing_only"));
    ck_assert_str_eq(rl_json_string(k6, "counts"), "counters");
    ck_assert_str_eq(rl_json_string(cJSON_GetArrayItem(ks, 9), "counts"), "analytic");
    cJSON_Delete(doc);
}
END_TEST

/* A launch into a stream being captured for a CUDA graph is never counted:
 * the tracer finds the launch's stream in each driver launch call's params
 * and counts only when cuStreamIsCapturing said "not capturing". */
START_TEST(capture_is_never_counted)
{
    void *st = NULL, *mine = (void *)(uintptr_t)0x5150;
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    lk.hStream = (CUstream)mine;
    ck_assert(rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &lk, &st));
    ck_assert_ptr_eq(st, mine);
    cuLaunchKernel_ptsz_params lp;
    memset(&lp, 0, sizeof lp);
    ck_assert(rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, &lp, &st));
    ck_assert_ptr_eq(st, (void *)CU_STREAM_PER_THREAD); /* NULL there is the thread's stream */
    lk.hStream = NULL;
    ck_assert(rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &lk, &st));
    ck_assert_ptr_null(st); /* the legacy stream */
    cuLaunchCooperativeKernel_params lc;
    memset(&lc, 0, sizeof lc);
    lc.hStream = (CUstream)mine;
    ck_assert(rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, &lc,
                                      &st));
    ck_assert_ptr_eq(st, mine);
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.hStream = (CUstream)mine;
    cuLaunchKernelEx_params le = {.config = &cfg};
    st = NULL;
    ck_assert(rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, &le, &st));
    ck_assert_ptr_eq(st, mine);
    le.config = NULL;
    ck_assert(!rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &le, &st));
    ck_assert(!rl_tracer_launch_stream(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &lk, &st));
    ck_assert(rl_tracer_capture_allows_counting(CUDA_SUCCESS, CU_STREAM_CAPTURE_STATUS_NONE));
    ck_assert(!rl_tracer_capture_allows_counting(CUDA_SUCCESS, CU_STREAM_CAPTURE_STATUS_ACTIVE));
    ck_assert(!rl_tracer_capture_allows_counting(CUDA_SUCCESS,
                                                 CU_STREAM_CAPTURE_STATUS_INVALIDATED));
    /* The legacy stream while a blocking stream is captured (global mode). */
    ck_assert(!rl_tracer_capture_allows_counting(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                                                 CU_STREAM_CAPTURE_STATUS_NONE));
    ck_assert(!rl_tracer_capture_allows_counting(CUDA_ERROR_INVALID_HANDLE,
                                                 CU_STREAM_CAPTURE_STATUS_NONE));
}
END_TEST

/* CUPTI loads libnvperf_host.so by name; the profiler loads the one beside
 * the libcupti in use first, so the two always come from one CUDA. */
START_TEST(nvperf_host_beside_cupti)
{
    struct rl_metric_set *set = build("GH100", RL_COUNTERS_DEFAULT);
    free(set);
    const char *nv = rl__nvperf_preload();
    ck_assert_ptr_nonnull(nv);
    Dl_info cu;
    ck_assert(dladdr((void *)cuptiGetResultString, &cu) && cu.dli_fname);
    char a[PATH_MAX], b[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(nv, a));
    ck_assert_ptr_nonnull(realpath(cu.dli_fname, b));
    *strrchr(a, '/') = 0;
    *strrchr(b, '/') = 0;
    ck_assert_str_eq(a, b);
    ck_assert_str_eq(rl__nvperf_preload(), nv); /* once per process */
}
END_TEST

START_TEST(timing_only_trace_cannot_be_charted)
{
    struct rl_trace_kernel k = kernel("k", 1, 10, 10);
    struct rl_trace_meta m = {.tool = "t", .created = "2026-11-29T00:00:00Z", .program = "p",
                              .counters_mode = "none", .counters_status = "off"};
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/timing.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(rl_trace_write(f, &m, &k, 1, NULL, 0), 0);
    fclose(f);
    assert_schema(path);
    struct rl_record_list l = {0};
    ck_assert_int_eq(rl_records_load(&l, path, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "timing-only trace"));
    rl_record_list_release(&l);
}
END_TEST

START_TEST(explanations_name_the_fix)
{
    char b[RL_ERRMSG_SIZE];
    ck_assert_ptr_nonnull(strstr(rl_tracer_explain(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, b,
                                                   sizeof b),
                                 "NVreg_RestrictProfilingToAdminUsers=0"));
    ck_assert_ptr_nonnull(strstr(rl_tracer_explain(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                                                   b, sizeof b),
                                 "another CUPTI client"));
    ck_assert_ptr_nonnull(strstr(rl_tracer_explain(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, b,
                                                   sizeof b),
                                 "MIG"));
    ck_assert_ptr_nonnull(strstr(rl_tracer_explain(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
                                                   b, sizeof b),
                                 "virtual GPU"));
}
END_TEST

/* A tensor type the set does not count makes a kernel's FLOPs unknown,
 * never smaller (issue 35, defect 6): GH100's default set counts BF16 and
 * FP8; an FP16 wgmma GEMM reads 0 ops in both, but wgmma ran. */
START_TEST(uncounted_tensor_type_gives_null_flops)
{
    struct rl_metric_set *set = build("GH100", RL_COUNTERS_DEFAULT);
    ck_assert(!set->on[RL_Q_TENSOR_FP16]);
    struct rl_trace_kernel k[5] = {kernel("fp16_gemm", 132, 1000, 900),
                                   kernel("fp16_gemm", 132, 3000, 900),
                                   kernel("bf16_gemm", 132, 5000, 900),
                                   kernel("rmsnorm", 64, 7000, 100),
                                   kernel("old_counts", 64, 9000, 100)};
    for (int i = 0; i < 5; i++) {
        q_default(k[i].q);
        k[i].q[RL_Q_FFMA] = 1000; /* the epilogue's 2000 FLOP */
        k[i].tensor_activity = 0;
        k[i].step = 0;
    }
    k[0].counts = k[2].counts = k[3].counts = k[4].counts = RL_COUNTS_COUNTERS;
    k[0].tensor_activity = 4096; /* wgmma instructions, no counted type's op */
    k[2].tensor_activity = 4096;
    k[2].q[RL_Q_TENSOR_BF16] = 1e9; /* counted: it stands */
    k[4].tensor_activity = NAN;    /* not read: stands as before */
    ck_assert_int_eq(rl_trace_fill_sampled(k, 5), 1); /* k[1] borrows k[0], activity too */
    ck_assert_double_eq(k[1].tensor_activity, 4096);
    k[3].step = k[4].step = -1;
    struct rl_trace_step step = {"fp16 and bf16 GEMMs", 4e9, 1e8, "fp16"};
    struct rl_trace_meta m = {.tool = "t", .created = "2026-12-05T00:00:00Z", .program = "p",
                              .counters_mode = "default", .counters_status = "ok", .set = set,
                              .tensor_flops_per_op = 2};
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/fp16.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(rl_trace_write(f, &m, k, 5, &step, 1), 0);
    fclose(f);
    assert_schema(path);
    cJSON *doc;
    ck_assert_msg(rl_json_parse_file(path, &doc, err) == 0, "%s", err);
    const cJSON *ks = cJSON_GetObjectItem(doc, "kernels");
    for (int i = 0; i < 2; i++) { /* counted and sampled: null, and why */
        const cJSON *x = cJSON_GetArrayItem(ks, i);
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(x, "flops")));
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(x, "flops_tensor")));
        ck_assert_ptr_null(cJSON_GetObjectItem(x, "precision"));
        ck_assert_ptr_nonnull(strstr(rl_json_string(x, "flops_note"), "leaves out"));
        ck_assert_double_eq(rl_json_number(x, "flops_fp32"), 2000); /* the rest stays */
    }
    /* 1e9 BF16 ops x 2 + 2000 FP32. */
    ck_assert_double_eq(rl_json_number(cJSON_GetArrayItem(ks, 2), "flops"), 2e9 + 2000);
    ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(ks, 2), "flops_note"));
    ck_assert_double_eq(rl_json_number(cJSON_GetArrayItem(ks, 3), "flops"), 2000);
    ck_assert_double_eq(rl_json_number(cJSON_GetArrayItem(ks, 4), "flops"), 2000);
    /* The step holding them: unknown, not the BF16 half. */
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "steps"), 0);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(s0, "flops")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(s0, "flops_vs_analytic")));
    cJSON_Delete(doc);
    /* The rule itself: every type counted, all 0, yet Tensor Cores ran. */
    bool all[RL_Q_COUNT];
    for (int i = 0; i < RL_Q_COUNT; i++)
        all[i] = true;
    ck_assert_ptr_nonnull(strstr(rl_tensor_flops_unknown(all, 1, 0), "every type"));
    ck_assert_ptr_null(rl_tensor_flops_unknown(all, 0, 0));
    ck_assert_ptr_null(rl_tensor_flops_unknown(all, NAN, 0));
    ck_assert_ptr_null(rl_tensor_flops_unknown(set->on, 1, 5));
    ck_assert_ptr_nonnull(rl_tensor_flops_unknown(set->on, 1, 0));
    ck_assert_ptr_null(rl_tensor_flops_unknown(set->on, -1, 0));
    free(set);
}
END_TEST

/* ---- the tracer on a fake CUPTI (tests/profiler/fake_cupti.c) ---------------- */

/* Counting NCCL kernels under kernel replay hangs (issue 35, defect 1): a
 * collective - by its name, or launched inside NCCL's collective range -
 * is never selected for counting, whatever the filters; other kernels
 * are (here the fake driver cannot say the stream is not captured, so
 * they end as launches_in_capture: selected, then kept from replay). */
START_TEST(collectives_are_never_replayed)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/collectives.json", rl_test_tmpdir());
    struct rl_tracer_options o = {.out_path = path, .program = "fake", .samples = 0,
                                  .counters = RL_COUNTERS_DEFAULT, .tensor_flops_per_op = NAN};
    rl_fake_cupti_on(true);
    ck_assert_msg(rl_tracer_start(&o, err) == 0, "%s", err);
    static const uint64_t payload[2] = {0x1234, 1 << 20};
    /* By name: NCCL's device kernel, PyTorch's symmetric memory, vLLM's. */
    rl_fake_cupti_launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0x100, 1);
    rl_fake_cupti_launch("_ZN4c10d16symmetric_memory27multimem_all_reduce_kernelILi16EEEvPf", 0x200, 2);
    rl_fake_cupti_launch("_ZN4vllm25cross_device_reduce_1stageIfLi8EEEvPv", 0x300, 3);
    /* By range: a kernel of any name inside ncclAllReduce's range. */
    rl_fake_cupti_nccl_range(true, payload);
    rl_fake_cupti_launch("ncclDevKernel_Generic", 0x400, 4);
    rl_fake_cupti_launch("_Z10my_reducerPf", 0x500, 5);
    rl_fake_cupti_nccl_range(false, payload);
    /* An ordinary GEMM: selected (then kept from replay by the capture
     * check the fake driver cannot answer). */
    rl_fake_cupti_launch("_Z11sgemm_largePfS_S_", 0x600, 6);
    ck_assert_int_eq(rl_tracer_finish(err), 0);
    rl_fake_cupti_on(false);
    cJSON *doc;
    ck_assert_msg(rl_json_parse_file(path, &doc, err) == 0, "%s", err);
    const cJSON *c = cJSON_GetObjectItem(doc, "counters");
    ck_assert_double_eq(rl_json_number(c, "launches_in_capture"), 1);
    const char *notes = rl_json_string(doc, "notes");
    ck_assert_ptr_nonnull(notes);
    ck_assert_ptr_nonnull(strstr(notes, "5 launches of collective kernels"));
    const cJSON *ks = cJSON_GetObjectItem(doc, "kernels");
    ck_assert_int_eq(cJSON_GetArraySize(ks), 6);
    for (int i = 0; i < 6; i++) {
        const cJSON *k = cJSON_GetArrayItem(ks, i);
        ck_assert_str_eq(rl_json_string(k, "counts"), "none");
        const char *note = rl_json_string(k, "flops_note");
        if (i < 5)
            ck_assert_msg(note && strstr(note, "a collective: timed only"), "kernel %d", i);
        else
            ck_assert_ptr_null(note);
    }
    /* NCCL's range gave its kernel the collective and the message size. */
    ck_assert_str_eq(rl_json_string(cJSON_GetArrayItem(ks, 3), "collective"), "allreduce");
    ck_assert_double_eq(rl_json_number(cJSON_GetArrayItem(ks, 3), "comm_bytes"), 1 << 20);
    cJSON_Delete(doc);
    assert_schema(path);
    /* The recognizer itself, demangled names. */
    static const char *const yes[] = {
        "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)",
        "void ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
        "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(float**)",
        "void at::symm_mem::barrier_kernel(unsigned int**)",
        "void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*)",
        "rcclGenericKernel<1>"};
    static const char *const no[] = {
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "nvjet_hsh_128x256_64x4",
        "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        ck_assert_msg(rl_trace_collective_kernel(yes[i]), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        ck_assert_msg(!rl_trace_collective_kernel(no[i]), "%s", no[i]);
    ck_assert(!rl_trace_collective_kernel(NULL));
}
END_TEST

/* ---- the injection library, without a GPU ------------------------------------- */

START_TEST(injection_fails_cleanly)
{
    const char *lib = getenv("ROOFLINE_INJECT_LIB");
    if (!lib || !*lib)
        return; /* a build without CUDA has none; the CMake test sets it */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/inject", rl_test_tmpdir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        /* What the CUDA driver does with CUDA_INJECTION64_PATH. */
        dup2(fds[1], 2);
        char pattern[600];
        snprintf(pattern, sizeof pattern, "%s/%%p.json", dir);
        setenv("ROOFLINE_TRACE_FILE", pattern, 1);
        unsetenv("NVTX_INJECTION64_PATH");
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            _exit(10);
        int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
        if (!init)
            _exit(11);
        if (init() != 1) /* never reports failure to the driver: the program runs on */
            _exit(12);
        /* NVTX is pointed at this library (not at a libcupti file a program
         * may hold another copy of), and finds its entry points there. */
        const char *nvtx = getenv("NVTX_INJECTION64_PATH");
        char want[PATH_MAX], got[PATH_MAX];
        if (!nvtx || !realpath(lib, want) || !realpath(nvtx, got) || strcmp(want, got) != 0)
            _exit(13);
        if (!dlsym(h, "InitializeInjectionNvtx2") || !dlsym(h, "InitializeInjectionNvtxExtension"))
            _exit(14);
        exit(0); /* through atexit, as a program would */
    }
    close(fds[1]);
    char err[2048] = "";
    ssize_t n = read(fds[0], err, sizeof err - 1);
    err[n > 0 ? n : 0] = 0;
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d, stderr: %s",
                  status, err);
    /* No driver here: one line saying tracing is off, and no trace left. */
    ck_assert_msg(strstr(err, "roofline: tracing off for pid"), "%s", err);
    ck_assert_int_eq(rl_test_count(err, "\n"), 1);
    ck_assert_int_eq(rmdir(dir), 0); /* empty */
}
END_TEST

/* ---- the commands -------------------------------------------------------- */

START_TEST(metrics_command_per_chip)
{
    static const char *const chips[] = {"GH100", "GA100", "AD102", "GB100", "GB202", "GB203"};
    for (int i = 0; i < 6; i++) {
        struct rl_run r = rl_test_cli(NULL, "metrics", "--chip", chips[i], "--json",
                                      (const char *)NULL);
        if (r.status == 1 && strstr(r.err, "without CUDA")) {
            rl_run_release(&r);
            return;
        }
        ck_assert_msg(r.status == 0, "%s: %s", chips[i], r.err);
        cJSON *doc = cJSON_Parse(r.out);
        ck_assert_ptr_nonnull(doc);
        ck_assert_str_eq(rl_json_string(doc, "chip"), chips[i]);
        double passes = rl_json_number(doc, "passes");
        ck_assert(passes >= 1);
        if (i == 0)
            ck_assert_double_le(passes, 2);
        const cJSON *m, *metrics = cJSON_GetObjectItem(doc, "metrics");
        int valid = 0, chosen = 0;
        cJSON_ArrayForEach(m, metrics)
        {
            ck_assert_ptr_nonnull(rl_json_string(m, "name"));
            ck_assert(cJSON_IsBool(cJSON_GetObjectItem(m, "valid")));
            valid += cJSON_IsTrue(cJSON_GetObjectItem(m, "valid"));
            chosen += cJSON_IsTrue(cJSON_GetObjectItem(m, "chosen"));
        }
        ck_assert_int_ge(valid, 15);
        ck_assert_int_ge(chosen, 14);
        cJSON_Delete(doc);
        rl_run_release(&r);
    }
    struct rl_run r = rl_test_cli(NULL, "metrics", "--chip", "ZZ123", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "metrics", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
}
END_TEST

START_TEST(trace_without_a_gpu)
{
    static const char *const env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    char out[512];
    snprintf(out, sizeof out, "%s/never-trace.json", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(env, "trace", "-o", out, "--", "true", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.err, "roofline: error: cannot trace: no ") ||
                      strstr(r.err, "built without CUDA"),
                  "%s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    ck_assert_int_ne(access(out, F_OK), 0);
    rl_run_release(&r);
    r = rl_test_cli(env, "trace", "--builtin", "gemv", "-o", out, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
    /* Usage errors come before any GPU is looked for. */
    r = rl_test_cli(env, "trace", "--metrics", "most", "--", "true", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(env, "trace", "--builtin", "gemv", "--", "true", (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = rl_test_cli(env, "trace", "--top", "5", "--kernel", "gemm", "--", "true",
                    (const char *)NULL);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
}
END_TEST

static Suite *profiler_suite(void)
{
    Suite *s = suite_create("profiler");
    TCase *metrics = tcase_create("metrics");
    tcase_set_timeout(metrics, 120);
    tcase_add_test(metrics, gh100_default_two_passes);
    tcase_add_test(metrics, gh100_full_costs_more);
    tcase_add_test(metrics, fallbacks_per_chip);
    tcase_add_test(metrics, unknown_chip);
    tcase_add_test(metrics, quantities_sum_terms);
    tcase_add_test(metrics, nvperf_host_beside_cupti);
    suite_add_tcase(s, metrics);
    TCase *counts = tcase_create("counts");
    tcase_add_test(counts, counts_cuda_cores);
    tcase_add_test(counts, counts_tensor);
    tcase_add_test(counts, sampled_counts);
    tcase_add_test(counts, trace_round_trip);
    tcase_add_test(counts, timing_only_runs_give_the_step_time);
    tcase_add_test(counts, capture_is_never_counted);
    tcase_add_test(counts, timing_only_trace_cannot_be_charted);
    tcase_add_test(counts, explanations_name_the_fix);
    tcase_add_test(counts, collectives_are_never_replayed);
    tcase_add_test(counts, uncounted_tensor_type_gives_null_flops);
    suite_add_tcase(s, counts);
    TCase *process = tcase_create("process");
    tcase_set_timeout(process, 120);
    tcase_add_test(process, injection_fails_cleanly);
    tcase_add_test(process, metrics_command_per_chip);
    tcase_add_test(process, every_nvidia_gpu_has_a_counter_set);
    tcase_add_test(process, trace_without_a_gpu);
    suite_add_tcase(s, process);
    return s;
}

int main(void) { return rl_test_run(profiler_suite()); }
