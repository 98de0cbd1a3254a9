/* cmd-bench.c - `roofline bench`: measure a GPU's real ceilings, beside its datasheet ones. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/device/device.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/suggest.h"
#include "microbench/results.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: roofline bench [--quick] [--only LIST] [--device N] [--gpu GPU] [-o FILE] [--json]\n"
    "\n"
    "Measure what the GPU really does: peak FLOP/s per precision on CUDA cores and\n"
    "Tensor Cores, HBM bandwidth (read, write, copy, triad), the L1/L2/DRAM\n"
    "plateaus of a working-set sweep, shared memory, host copies, an arithmetic-\n"
    "intensity sweep per precision, and cuBLASLt GEMM per precision. Every\n"
    "kernel's output is checked; each result is given against the datasheet.\n"
    "\n"
    "  --quick        fewer repetitions, smaller sweeps (not yet timed on a GPU)\n"
    "  --only LIST    benchmarks or groups, comma-separated: " RL_MB_GROUPS ",\n"
    "                 or names (fp32, bf16, hbm-copy, cache-sweep, gemm-bf16, ...;\n"
    "                 'roofline bench --list' shows them)\n"
    "  --device N     CUDA device index (default 0)\n"
    "  --gpu GPU      datasheet to compare with (default: the one whose name the\n"
    "                 driver reports); an AMD Instinct is refused: no CUDA there\n"
    "  -o FILE        JSON file (default roofline-bench-<gpu>-<time>.json)\n"
    "  --json         print the JSON instead of the table\n"
    "  --list         list the benchmarks and exit\n"
    "\n"
    "Needs an NVIDIA GPU and driver. All rates are measured; datasheet figures\n"
    "and percentages beside them say what they are compared with. A result above\n"
    "100% of the datasheet is flagged as an accounting error.\n";

static void list_benchmarks(void)
{
    size_t n;
    const struct rl_mb_def *c = rl_mb_catalog(&n);
    static const char *const kinds[] = {"compute", "memory", "shared", "cache",
                                        "transfer", "sweep", "library"};
    for (size_t i = 0; i < n; i++)
        printf("%-12s %-9s %s\n", c[i].name, kinds[c[i].kind], c[i].summary);
}

static void progress(size_t i, size_t n, const char *name)
{
    if (!isatty(STDERR_FILENO))
        return;
    if (name)
        fprintf(stderr, "\r\033[K[%2zu/%zu] %s ...", i + 1, n, name);
    else
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

/* "65.1 TFLOP/s", "4.21 TB/s", "812 GB/s". */
static void format_rate(char *buf, size_t n, double v, bool bandwidth)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (bandwidth)
        snprintf(buf, n, v >= 1000 ? "%.3g TB/s" : "%.3g GB/s", v >= 1000 ? v / 1000 : v);
    else
        snprintf(buf, n, v >= 100 ? "%.0f TFLOP/s" : "%.3g TFLOP/s", v);
}

static void print_table(const struct rl_mb_session *s)
{
    const struct rl_device_info *d = &s->dev;
    printf("%s%s%s%s, %d SMs, cc %d.%d, driver %s, CUDA %d.%d, %s run\n", d->name,
           s->spec ? " (" : "", s->spec ? s->spec->id : "", s->spec ? ")" : "", d->sm_count,
           d->cc_major, d->cc_minor, d->driver_version[0] ? d->driver_version : "?",
           d->cuda_driver_version / 1000, (d->cuda_driver_version % 1000) / 10,
           s->quick ? "quick" : "full");
    printf("%-11s %-26s %13s %13s %6s %9s %13s %6s %6s %6s  %s\n", "BENCHMARK", "INSTRUCTION",
           "MEDIAN", "BEST", "SPREAD", "FLOP/CLK", "DATASHEET", "%DS", "%CLK", "MHz", "CHECK");
    for (size_t i = 0; i < s->n; i++) {
        const struct rl_mb_result *r = &s->results[i];
        const struct rl_mb_raw *raw = &r->raw;
        if (raw->status == RL_MB_UNSUPPORTED) {
            printf("%-11s unsupported: %s\n", raw->name, raw->reason);
            continue;
        }
        if (raw->status != RL_MB_OK) {
            printf("%-11s %s: %s\n", raw->name,
                   raw->status == RL_MB_CHECK_FAILED ? "CHECK FAILED" : "FAILED", raw->reason);
            continue;
        }
        char med[32], best[32], ds[32], spread[16], per_clk[16], pct[16], pclk[16], mhz[16];
        format_rate(med, sizeof med, r->rate_median, r->rate_is_bandwidth);
        format_rate(best, sizeof best, r->rate_best, r->rate_is_bandwidth);
        format_rate(ds, sizeof ds, r->datasheet > 0 ? r->datasheet : NAN, r->rate_is_bandwidth);
        snprintf(spread, sizeof spread, isnan(r->time_ns.spread_pct) ? "-" : "%.1f%%",
                 r->time_ns.spread_pct);
        snprintf(per_clk, sizeof per_clk, isnan(r->flop_per_clk_per_sm) ? "-" : "%.0f",
                 r->flop_per_clk_per_sm);
        snprintf(pct, sizeof pct, isnan(r->pct_of_datasheet) ? "-" : "%.1f", r->pct_of_datasheet);
        snprintf(pclk, sizeof pclk, isnan(r->pct_of_clock_adjusted) ? "-" : "%.1f",
                 r->pct_of_clock_adjusted);
        snprintf(mhz, sizeof mhz, r->rate_is_bandwidth ? "-" : "%.0f%s", r->clock_mhz,
                 r->clock_measured ? "" : "*");
        printf("%-11s %-26.26s %13s %13s %6s %9s %13s %6s %6s %6s  ok%s\n", raw->name,
               raw->instruction, med, best, spread, per_clk, ds, pct, pclk, mhz,
               r->accounting_error ? ", ABOVE THE PEAK AT ITS CLOCK: accounting error" : "");
        for (int k = 0; k < r->n_plateaus; k++) {
            char g[32];
            format_rate(g, sizeof g, r->plateaus[k].gbs, true);
            printf("  %-9s %-26s %13s   %.3g to %.3g MB\n", "plateau", r->plateaus[k].level, g,
                   r->plateaus[k].from_bytes / 1e6, r->plateaus[k].to_bytes / 1e6);
        }
    }
    printf("\nMeasured: MEDIAN and BEST of the timed runs (SPREAD = (max - min) / median).\n"
           "DATASHEET: the vendor figure (analytic where derived); %%DS = median / datasheet;\n"
           "%%CLK = median / (datasheet scaled to the measured SM clock, MHz; * = no NVML, the\n"
           "maximum clock). FLOP/CLK per SM at that clock. Bandwidth counts bytes read plus\n"
           "bytes written.\n");
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quick", no_argument, NULL, 'q'},        {"only", required_argument, NULL, 'n'},
        {"device", required_argument, NULL, 'd'}, {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},         {"list", no_argument, NULL, 'l'},
        {"gpu", required_argument, NULL, 'g'},
        {"help", no_argument, NULL, 'h'},         {0}};
    const char *only = NULL, *output = NULL, *gpu = NULL;
    bool quick = false, json = false;
    int device = 0, c;
    static const char optstring[] = "ho:";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'q': quick = true; break;
        case 'n': only = optarg; break;
        case 'd':
            if (cli_parse_int("bench", "--device", optarg, 0, CLI_MAX_DEVICE, &device))
                return CLI_USAGE;
            break;
        case 'o': output = optarg; break;
        case 'g': gpu = optarg; break;
        case 'j': json = true; break;
        case 'l': list_benchmarks(); return CLI_OK;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("bench", optstring, opts, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
    /* The datasheet asked for, before any GPU: an AMD one cannot be measured. */
    const struct rl_gpu_spec *asked = gpu ? cli_find_gpu(gpu) : NULL;
    if (gpu && (!asked || cli_require_cuda_gpu("bench", asked)))
        return CLI_FAIL;

    /* Which benchmarks. */
    size_t n_cat;
    const struct rl_mb_def *cat = rl_mb_catalog(&n_cat);
    const struct rl_mb_def **todo = rl_calloc(n_cat, sizeof *todo);
    size_t n_todo = 0;
    if (!todo) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    if (only) {
        char *list = rl_strdup(only), *save = NULL;
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            bool any = false;
            for (size_t i = 0; i < n_cat; i++)
                any |= rl_mb_matches(&cat[i], t);
            if (!any) {
                /* The nearest name or group, else where the names are. */
                char groups[] = RL_MB_GROUPS, *gs = NULL;
                struct rl_suggest sug;
                rl_suggest_init(&sug, t);
                for (char *g = strtok_r(groups, ", ", &gs); g; g = strtok_r(NULL, ", ", &gs))
                    rl_suggest_consider(&sug, g);
                for (size_t i = 0; i < n_cat; i++)
                    rl_suggest_consider(&sug, cat[i].name);
                const char *best = rl_suggest_best(&sug);
                int rc = best ? cli_usage_error("bench", "unknown benchmark or group '%s' (did "
                                                         "you mean '%s'?)", t, best)
                              : cli_usage_error("bench", "unknown benchmark or group '%s' "
                                                         "(groups: %s; 'roofline bench --list' "
                                                         "for names)", t, RL_MB_GROUPS);
                free(list);
                free(todo);
                return rc;
            }
        }
        for (size_t i = 0; i < n_cat; i++) {
            bool want = false;
            char *copy = rl_strdup(only), *s2 = NULL;
            for (char *t = strtok_r(copy, ",", &s2); t; t = strtok_r(NULL, ",", &s2))
                want |= rl_mb_matches(&cat[i], t);
            free(copy);
            if (want)
                todo[n_todo++] = &cat[i];
        }
        free(list);
    } else {
        for (size_t i = 0; i < n_cat; i++)
            todo[n_todo++] = &cat[i];
    }

    /* The GPU. */
    char err[RL_ERRMSG_SIZE];
    const struct rl_device_api *api;
    struct rl_mb_session s;
    memset(&s, 0, sizeof s);
    s.quick = quick;
    if (cli_open_gpu("cannot measure", device, &api, &s.dev)) {
        free(todo);
        return CLI_FAIL;
    }
    const struct rl_gpudb *db = cli_gpudb();
    s.spec = asked ? asked : db ? rl_gpudb_find(db, s.dev.name) : NULL;
    if (asked && !rl_gpu_spec_named(asked, s.dev.name))
        cli_warn("device %d is '%s', not %s: percentages are of --gpu %s's datasheet", device,
                 s.dev.name, asked->name, asked->id);
    if (!s.spec)
        cli_warn("'%s' is not in the datasheet database: measuring it anyway, without "
                 "datasheet percentages (add data/gpus/<id>.json)", s.dev.name);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(s.created, sizeof s.created, "%Y-%m-%dT%H:%M:%SZ", &tm);

    s.results = rl_calloc(n_todo, sizeof *s.results);
    if (!s.results) {
        cli_error("out of memory");
        free(todo);
        return CLI_FAIL;
    }
    struct rl_bench_options opt = {.device = device, .quick = quick};
    int status = CLI_OK;
    for (size_t i = 0; i < n_todo; i++) {
        struct rl_mb_raw raw;
        progress(i, n_todo, todo[i]->name);
        int rc = api->bench(&opt, todo[i]->name, &raw, err);
        if (rc == RL_ENODEV) {
            progress(0, 0, NULL);
            cli_error("cannot measure: %s", err);
            status = CLI_FAIL;
            break;
        }
        if (rc) {
            raw.status = RL_MB_FAILED;
            snprintf(raw.reason, sizeof raw.reason, "%.255s", err);
        }
        rl_mb_account(todo[i], &raw, &s.dev, s.spec, &s.results[s.n++]);
        if (raw.status == RL_MB_FAILED || raw.status == RL_MB_CHECK_FAILED)
            status = CLI_FAIL;
    }
    progress(0, 0, NULL);

    if (s.n > 0) {
        char path[512];
        if (!output) {
            char stamp[32];
            strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
            snprintf(path, sizeof path, "roofline-bench-%s-%s.json",
                     s.spec ? s.spec->id : "unknown-gpu", stamp);
            output = path;
        }
        cJSON *doc = rl_mb_session_json(&s);
        if (rl_json_write_file(doc, output, err)) {
            cli_error("%s", err);
            status = CLI_FAIL;
        }
        if (json) {
            cli_print_json(doc);
        } else {
            cJSON_Delete(doc);
            print_table(&s);
            char shown[4096];
            snprintf(shown, sizeof shown, "%s", output);
            cli_unstage(shown, sizeof shown); /* `run` writes it into its stage */
            printf("\nwrote %s\n", shown);
        }
    }
    free(s.results);
    free(todo);
    return status;
}
