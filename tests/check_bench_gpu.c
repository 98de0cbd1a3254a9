/* check_bench_gpu.c - on a GPU: the benchmarks run, pass their own checks, and stay within the datasheet.
 *
 * Label gpu. Exits 77 (skipped, never passed) without a CUDA build, a
 * driver or a device.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/device/device.h"
#include "analyzer/util/error.h"
#include "analyzer/model/gpudb.h"
#include "microbench/results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct rl_device_api *api;
static struct rl_device_info dev;
static struct rl_gpudb db;
static const struct rl_gpu_spec *spec;

/* Failures of the current case, one line each: every benchmark of a case
 * runs and is judged even when an earlier one fails. */
static char failures[8192];

static void add_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add_failure(const char *fmt, ...)
{
    size_t n = strlen(failures);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failures + n, sizeof failures - n, fmt, ap);
    va_end(ap);
    n = strlen(failures);
    if (n + 1 < sizeof failures) {
        failures[n] = '\n';
        failures[n + 1] = '\0';
    }
}

/* Run one benchmark quickly, account it, and judge it. */
static void run(const char *name)
{
    struct rl_bench_options opt = {.device = 0, .quick = true};
    struct rl_mb_raw raw;
    struct rl_mb_result out;
    char err[RL_ERRMSG_SIZE] = "";
    if (api->bench(&opt, name, &raw, err) != 0) {
        add_failure("%s: %s", name, err);
        return;
    }
    if (raw.status != RL_MB_OK && raw.status != RL_MB_UNSUPPORTED) {
        add_failure("%s: %s", name, raw.reason);
        return;
    }
    rl_mb_account(rl_mb_find(name), &raw, &dev, spec, &out);
    if (raw.status == RL_MB_UNSUPPORTED) {
        printf("%-12s unsupported: %s\n", name, raw.reason);
        return;
    }
    printf("%-12s %10.4g %s  %5.1f%% of datasheet  %5.1f%% at %.0f MHz  %s\n", name,
           out.rate_median, out.rate_is_bandwidth ? "GB/s" : "TFLOP/s", out.pct_of_datasheet,
           out.pct_of_clock_adjusted, out.clock_mhz, raw.instruction);
    if (!(out.rate_median > 0))
        add_failure("%s: no rate", name);
    else if (out.accounting_error)
        add_failure("%s: %.1f%% of the datasheet, %.1f%% of the peak at %.0f MHz: an accounting "
             "error", name, out.pct_of_datasheet, out.pct_of_clock_adjusted, out.clock_mhz);
    /* Far below the datasheet is a broken kernel, not a slow GPU. */
    else if (out.datasheet > 0 && !(out.pct_of_datasheet > 10))
        add_failure("%s: only %.1f%% of the datasheet", name, out.pct_of_datasheet);
}

static void run_all(const char *const *names, size_t n)
{
    failures[0] = '\0';
    for (size_t i = 0; i < n; i++)
        run(names[i]);
    ck_assert_msg(failures[0] == '\0', "%s", failures);
}

START_TEST(compute_peaks)
{
    static const char *const names[] = {"fp32", "fp64", "fp16-cuda", "bf16-cuda", "fp64-tc",
                                        "tf32", "bf16", "fp16", "fp16-acc16", "fp8-e4m3",
                                        "int8"};
    run_all(names, sizeof names / sizeof names[0]);
}
END_TEST

START_TEST(memory_and_sweeps)
{
    static const char *const names[] = {"hbm-copy", "hbm-triad", "smem-read", "h2d",
                                        "cache-sweep", "sweep-fp32"};
    run_all(names, sizeof names / sizeof names[0]);
}
END_TEST

START_TEST(library_gemm)
{
    static const char *const names[] = {"gemm-bf16", "gemm-fp8"};
    run_all(names, sizeof names / sizeof names[0]);
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
    /* cuInit has run in this process (the query above): a forked child
     * would get CUDA_ERROR_NOT_INITIALIZED, so the cases run unforked. */
    return rl_test_run_unforked(gpu_suite());
}
