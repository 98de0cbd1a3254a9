/* check_bench_gpu.c - on a GPU: the benchmarks run, pass their own checks, and stay within the datasheet.
 *
 * Label gpu. Exits 77 (skipped, never passed) without a CUDA build, a
 * driver or a device.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "device.h"
#include "error.h"
#include "gpudb.h"
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct rl_device_api *api;
static struct rl_device_info dev;
static struct rl_gpudb db;
static const struct rl_gpu_spec *spec;

/* Run one benchmark quickly and account it. */
static void run(const char *name, struct rl_mb_result *out)
{
    struct rl_bench_options opt = {.device = 0, .quick = true};
    struct rl_mb_raw raw;
    char err[RL_ERRMSG_SIZE] = "";
    int rc = api->bench(&opt, name, &raw, err);
    ck_assert_msg(rc == 0, "%s: %s", name, err);
    ck_assert_msg(raw.status == RL_MB_OK || raw.status == RL_MB_UNSUPPORTED, "%s: %s", name,
                  raw.reason);
    rl_mb_account(rl_mb_find(name), &raw, &dev, spec, out);
    if (raw.status == RL_MB_UNSUPPORTED)
        return;
    ck_assert_msg(out->rate_median > 0, "%s: no rate", name);
    ck_assert_msg(!out->accounting_error, "%s: %.1f%% of the datasheet: an accounting error",
                  name, out->pct_of_datasheet);
    /* Far below the datasheet is a broken kernel, not a slow GPU. */
    if (out->datasheet > 0)
        ck_assert_msg(out->pct_of_datasheet > 10, "%s: only %.1f%% of the datasheet", name,
                      out->pct_of_datasheet);
    printf("%-12s %10.4g %s  %5.1f%% of datasheet  %s\n", name, out->rate_median,
           out->rate_is_bandwidth ? "GB/s" : "TFLOP/s", out->pct_of_datasheet, raw.instruction);
}

START_TEST(compute_peaks)
{
    static const char *const names[] = {"fp32", "fp64", "fp16-cuda", "bf16-cuda", "fp64-tc",
                                        "tf32", "bf16", "fp16", "fp8-e4m3", "int8"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct rl_mb_result r;
        run(names[i], &r);
    }
}
END_TEST

START_TEST(memory_and_sweeps)
{
    static const char *const names[] = {"hbm-copy", "hbm-triad", "smem-read", "h2d",
                                        "cache-sweep", "sweep-fp32"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct rl_mb_result r;
        run(names[i], &r);
    }
}
END_TEST

START_TEST(library_gemm)
{
    struct rl_mb_result r;
    run("gemm-bf16", &r);
    run("gemm-fp8", &r);
}
END_TEST

static Suite *gpu_suite(void)
{
    Suite *s = suite_create("bench_gpu");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 300);
    tcase_add_test(core, compute_peaks);
    tcase_add_test(core, memory_and_sweeps);
    tcase_add_test(core, library_gemm);
    suite_add_tcase(s, core);
    return s;
}

int main(void)
{
    char err[RL_ERRMSG_SIZE];
    if (rl_device_open(&api, err) != 0) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    if (api->query(0, &dev, err) != 0) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    const char *data = getenv("ROOFLINE_DATA_DIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/gpus", data && *data ? data : ROOFLINE_SOURCE_DIR "/data");
    if (rl_gpudb_load(&db, dir, err) == 0)
        spec = rl_gpudb_find(&db, dev.name);
    printf("GPU: %s (%s), %d SMs, cc %d.%d\n", dev.name, spec ? spec->id : "not in the database",
           dev.sm_count, dev.cc_major, dev.cc_minor);
    /* The device may not be forked into (CUDA contexts do not survive fork):
     * run the cases in this process. */
    setenv("CK_FORK", "no", 1);
    return rl_test_run(gpu_suite());
}
