/* main.c - the roofline command line: dispatch to one command per subcommand. */
#include "analyzer/cli/cli.h"

#include "analyzer/device/device.h"
#include "analyzer/util/error.h"
#include "analyzer/util/paths.h"
#include "analyzer/model/spec.h"
#include "microbench/results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "dev"
#endif

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"gpus", cmd_gpus, "list the GPU datasheet database, or show one GPU"},
    {"ridge", cmd_ridge, "print compute and memory ceilings and their ridge point"},
    {"chart", cmd_chart, "draw a roofline chart (SVG, PNG, PDF) with kernels on it"},
    {"bench", cmd_bench, "measure the GPU's real ceilings (needs a GPU)"},
    {"trace", cmd_trace, "trace a CUDA program's kernels: time, FLOPs, bytes (needs a GPU)"},
    {"metrics", cmd_metrics, "list the hardware counters read on a chip (no GPU needed)"},
    {"report", cmd_report, "place and explain every kernel of a trace or ncu export"},
    {"llm", cmd_llm, "why LLM decode is bandwidth-bound and prefill compute-bound"},
    {"run", cmd_run, "the main job: bench, trace decode and prefill, report (or analytic)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: roofline [--version] [-h] <command> [<args>]\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'roofline <command> -h' describes a command. Figures are labelled\n"
                 "datasheet (vendor documents), analytic (computed) or measured.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            char *h[] = {argv[2], "-h", NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(argv[2], commands[i].name) == 0)
                    return commands[i].fn(2, h);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("roofline %s\n", ROOFLINE_VERSION);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    cli_error("unknown command '%s' (see 'roofline -h')", argv[1]);
    return CLI_USAGE;
}

/* ---- helpers shared by the commands ----------------------------------- */

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "roofline: %s: ", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("error", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning", fmt, ap);
    va_end(ap);
}

int cli_parse_int(const char *cmd, const char *option, const char *arg, long lo, long hi,
                  int *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || errno == ERANGE || v < lo || v > hi)
        return cli_usage_error(cmd, "%s needs a whole number in %ld..%ld, not '%s'", option, lo,
                               hi, arg);
    *out = (int)v;
    return CLI_OK;
}

int cli_open_gpu(const char *what, int device, const struct rl_device_api **api,
                 struct rl_device_info *dev)
{
    char err[RL_ERRMSG_SIZE];
    if (rl_device_open(api, err) || (dev && (*api)->query(device, dev, err))) {
        cli_error("%s: %s", what, err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cli_chart_status(int rc, const char *err)
{
    if (rc == RL_OK)
        return CLI_OK;
    if (rc == RL_ENOTOOL) {
        cli_warn("chart image skipped: %s", err);
        return CLI_OK;
    }
    cli_error("%s", err);
    return CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "roofline %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'roofline %s -h')\n", cmd);
    return CLI_USAGE;
}

static struct rl_gpudb db;
static bool db_loaded;

static void release_db(void) { rl_gpudb_release(&db); }

const struct rl_gpudb *cli_gpudb(void)
{
    if (db_loaded)
        return &db;
    char dir[4096], gpus[4200], err[RL_ERRMSG_SIZE];
    if (rl_data_dir(dir, sizeof dir, err)) {
        cli_error("%s", err);
        return NULL;
    }
    snprintf(gpus, sizeof gpus, "%s/gpus", dir);
    if (rl_gpudb_load(&db, gpus, err)) {
        cli_error("%s", err);
        return NULL;
    }
    db_loaded = true;
    atexit(release_db);
    return &db;
}

const struct rl_gpu_spec *cli_find_gpu(const char *name)
{
    const struct rl_gpudb *d = cli_gpudb();
    if (!d)
        return NULL;
    char err[RL_ERRMSG_SIZE];
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) {
        /* A spec file of the user's: checked like the shipped ones. */
        static struct rl_gpu_spec own;
        if (rl_gpu_spec_load(&own, d->schema, name, err) ||
            rl_gpu_spec_lint(&own, err)) {
            cli_error("%s", err);
            return NULL;
        }
        return &own;
    }
    const struct rl_gpu_spec *s;
    if (rl_gpudb_lookup(d, name, &s, err)) {
        cli_error("%s", err);
        return NULL;
    }
    return s;
}

int cli_print_json(cJSON *doc)
{
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) {
        cli_error("out of memory printing JSON");
        return CLI_FAIL;
    }
    puts(text);
    cJSON_free(text);
    return CLI_OK;
}

void cli_format_exact(char *buf, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
        return;
    }
    for (int digits = 1; digits <= 12; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (strchr(buf, 'e')) /* large round numbers: no exponent */
        snprintf(buf, n, "%.0f", v);
}

void cli_format_derived(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (isinf(v))
        snprintf(buf, n, "inf");
    else if (fabs(v) >= 100)
        snprintf(buf, n, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, n, "%.1f", v);
    else if (fabs(v) >= 0.1 || v == 0)
        snprintf(buf, n, "%.2f", v);
    else
        snprintf(buf, n, "%.2g", v);
}

int cli_ceiling_sources(const char *gpu, const char *bench_path, const char *fallback,
                        struct rl_bench_ceilings *bench_buf,
                        const struct rl_bench_ceilings **bench,
                        const struct rl_gpu_spec **spec)
{
    char err[RL_ERRMSG_SIZE];
    *bench = NULL;
    *spec = NULL;
    if (bench_path) {
        if (rl_bench_ceilings_load(bench_path, bench_buf, err)) {
            cli_error("%s", err);
            return CLI_FAIL;
        }
        *bench = bench_buf;
    }
    const char *name = gpu                              ? gpu
                       : *bench && (*bench)->spec_id[0] ? (*bench)->spec_id
                                                        : fallback;
    if (name && !(*spec = cli_find_gpu(name)))
        return CLI_FAIL;
    if (!*spec && !*bench) {
        cli_error("no ceilings: give --gpu (see 'roofline gpus') or --bench");
        return CLI_FAIL;
    }
    return CLI_OK;
}
