/* main.c - the roofline command line: dispatch to one command per subcommand. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/comm/system.h"
#include "analyzer/device/device.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/outset.h"
#include "analyzer/util/paths.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/model/spec.h"
#include "analyzer/readers/torch.h"
#include "analyzer/util/suggest.h"
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
    {"comm", cmd_comm, "collectives on the interconnect: predicted, or measured with NCCL"},
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

#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* An unknown command: one line, the nearest command or the list. */
static int unknown_command(const char *name)
{
    const char *names[N_COMMANDS + 1];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    names[N_COMMANDS] = NULL;
    char hint[256];
    cli_error("unknown command '%s' (%s)", name,
              rl_suggest_hint(hint, sizeof hint, name, names, NULL));
    return CLI_USAGE;
}

static int dispatch(int argc, char **argv);

/* Standard output through the file layer (its writes retried, continued
 * and counted like a file's), and a failed write of it said: a full disk
 * under `roofline gpus --json > f` is an error, not a silent short file. */
int main(int argc, char **argv)
{
    FILE *out = rl_io_open_stdout();
    if (out)
        stdout = out;
    int rc = dispatch(argc, argv);
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc == CLI_OK) {
        int e = rl_io_errno(stdout);
        clearerr(stdout);
        cli_error("cannot write the standard output: %s", strerror(e));
        rc = CLI_FAIL;
    }
    return rc;
}

static int dispatch(int argc, char **argv)
{
    opterr = 0; /* getopt's own messages: each command says it in one line */
    if (argc < 2) {
        char list[256] = "";
        for (size_t i = 0; i < N_COMMANDS; i++) {
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "", commands[i].name);
        }
        fprintf(stderr, "usage: roofline <command> [<args>] (%s)\n(see 'roofline -h')\n",
                list);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            char *h[] = {argv[2], "-h", NULL};
            for (size_t i = 0; i < N_COMMANDS; i++)
                if (strcmp(argv[2], commands[i].name) == 0)
                    return commands[i].fn(2, h);
            return unknown_command(argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("roofline %s\n", ROOFLINE_VERSION);
        return CLI_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    return unknown_command(argv[1]);
}

/* ---- helpers shared by the commands ----------------------------------- */

static const struct rl_outset *shown_set;

void cli_outset_show(const struct rl_outset *s) { shown_set = s; }

void cli_unstage(char *text, size_t size)
{
    if (shown_set)
        rl_outset_unstage(shown_set, text, size);
}

static char message_prefix[64];

void cli_message_prefix(const char *prefix)
{
    snprintf(message_prefix, sizeof message_prefix, "%s", prefix ? prefix : "");
}

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    char text[4096];
    vsnprintf(text, sizeof text, fmt, ap);
    cli_unstage(text, sizeof text);
    fflush(stdout);
    fprintf(stderr, "roofline: %s: %s%s\n", kind, message_prefix, text);
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

int cli_parse_bytes(const char *cmd, const char *option, const char *arg, double *out)
{
    /* nccl-tests' -b/-e: K (or k), M, G, T are powers of 1024 (so are KiB..TiB);
     * kB, MB, GB, TB powers of 1000. */
    static const struct { const char *suffix; double scale; } units[] = {
        {"", 1},          {"B", 1},          {"K", 1024.0},     {"k", 1024.0},
        {"KiB", 1024.0},
        {"M", 1048576.0}, {"MiB", 1048576.0}, {"G", 1073741824.0}, {"GiB", 1073741824.0},
        {"T", 1099511627776.0}, {"TiB", 1099511627776.0},
        {"kB", 1e3},      {"MB", 1e6},       {"GB", 1e9},       {"TB", 1e12},
    };
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end != arg && errno != ERANGE && isfinite(v) && v >= 0)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strcmp(end, units[i].suffix) == 0 && (*end || end[-1] != '.')) {
                *out = v * units[i].scale;
                if (*out > 1e18)
                    break;
                return CLI_OK;
            }
    return cli_usage_error(cmd, "%s needs a size in bytes (8, 64K, 1M, 1G, 1GiB, 1GB), not '%s'",
                           option, arg);
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
    fflush(stdout);
    fprintf(stderr, "roofline %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'roofline %s -h')\n", cmd);
    return CLI_USAGE;
}

int cli_option_error(const char *cmd, const char *optstring, const struct option *opts,
                     char *const *argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    bool is_long = strncmp(arg, "--", 2) == 0;
    int name_len = (int)strcspn(arg, "=");
    if (optopt && is_long) /* a known long option */
        return arg[name_len] ? cli_usage_error(cmd, "option '%.*s' takes no value", name_len,
                                               arg)
                             : cli_usage_error(cmd, "option '%s' needs a value", arg);
    if (optopt) {
        const char *o = optopt != ':' ? strchr(optstring, optopt) : NULL;
        return o && o[1] == ':' ? cli_usage_error(cmd, "option '-%c' needs a value", optopt)
                                : cli_usage_error(cmd, "unknown option '-%c'", optopt);
    }
    /* An unknown long option: the nearest of the command's own. */
    char names[48][40], typed[64];
    snprintf(typed, sizeof typed, "%.*s", name_len, arg);
    struct rl_suggest s;
    rl_suggest_init(&s, typed);
    for (size_t i = 0; opts[i].name && i < 48; i++) {
        snprintf(names[i], sizeof names[i], "--%s", opts[i].name);
        rl_suggest_consider(&s, names[i]);
    }
    const char *best = rl_suggest_best(&s);
    if (best)
        return cli_usage_error(cmd, "unknown option '%s' (did you mean '%s'?)", typed, best);
    return cli_usage_error(cmd, "unknown option '%s'", typed);
}

int cli_unknown_name(const char *cmd, const char *what, const char *typed,
                     const char *const *names)
{
    char hint[400];
    return cli_usage_error(cmd, "unknown %s '%s' (%s)", what, typed,
                           rl_suggest_hint(hint, sizeof hint, typed, names, NULL));
}

/* Call check(cmd, item) on each item of a comma-separated list: CLI_OK or
 * the first error. */
static int each_item(const char *cmd, const char *list, int (*check)(const char *, const char *))
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int rc = check(cmd, t);
        if (rc)
            return rc;
    }
    return CLI_OK;
}

static int check_precision(const char *cmd, const char *name)
{
    struct rl_compute_roof r;
    return rl_roof_describe(name, &r) == RL_OK
               ? CLI_OK
               : cli_unknown_name(cmd, "precision", name, rl_roof_names());
}

int cli_check_precisions(const char *cmd, const char *list)
{
    return each_item(cmd, list, check_precision);
}

/* Every spelling rl_mem_level_parse() takes. */
static const char *const memory_levels[] = {"hbm", "dram", "l2", "l1", "shared", NULL};

static int check_memory(const char *cmd, const char *name)
{
    return rl_mem_level_parse(name) >= 0
               ? CLI_OK
               : cli_unknown_name(cmd, "memory level", name, memory_levels);
}

int cli_check_memory_levels(const char *cmd, const char *list)
{
    return each_item(cmd, list, check_memory);
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

static struct rl_systemdb sysdb;
static bool sysdb_loaded;

static void release_sysdb(void) { rl_systemdb_release(&sysdb); }

int cli_systems_dir(char *buf, size_t size)
{
    char dir[4096], err[RL_ERRMSG_SIZE];
    if (rl_data_dir(dir, sizeof dir, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    snprintf(buf, size, "%s/systems", dir);
    return CLI_OK;
}

const struct rl_systemdb *cli_systemdb(void)
{
    if (sysdb_loaded)
        return &sysdb;
    const struct rl_gpudb *gpus = cli_gpudb();
    char dir[4200], err[RL_ERRMSG_SIZE];
    if (!gpus || cli_systems_dir(dir, sizeof dir))
        return NULL;
    if (rl_systemdb_load(&sysdb, dir, gpus, err)) {
        cli_error("%s", err);
        return NULL;
    }
    sysdb_loaded = true;
    atexit(release_sysdb);
    return &sysdb;
}

const struct rl_system *cli_find_system(const char *name)
{
    const struct rl_systemdb *d = cli_systemdb();
    if (!d)
        return NULL;
    char err[RL_ERRMSG_SIZE];
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) {
        /* A node of the user's (a copy of one in data/systems, edited):
         * checked like the shipped ones, its GPU in the database. */
        static struct rl_system own;
        char *text = NULL;
        size_t len = 0;
        int rc = rl_file_read(name, &text, &len, err);
        if (rc == 0)
            rc = rl_system_parse(&own, d->schema, text, len, name, err);
        free(text);
        if (rc) {
            cli_error("%s", err);
            return NULL;
        }
        if (!rl_gpudb_find(cli_gpudb(), own.gpu)) {
            cli_error("'%s': gpu '%s' is not in the GPU database ('roofline gpus' lists them)",
                      name, own.gpu);
            return NULL;
        }
        return &own;
    }
    const struct rl_system *s;
    if (rl_systemdb_lookup(d, name, &s, err)) {
        cli_error("%s", err);
        return NULL;
    }
    return s;
}

int cli_require_cuda_gpu(const char *what, const struct rl_gpu_spec *spec)
{
    if (!spec || strcmp(spec->vendor, "NVIDIA") == 0)
        return CLI_OK;
    cli_error("%s: %s needs an NVIDIA GPU with CUDA; ridge, chart and llm work with its "
              "datasheet", spec->name, what);
    return CLI_FAIL;
}

int cli_print_json(cJSON *doc)
{
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    /* cJSON's builders drop what they cannot allocate, silently: a document
     * made while an allocation failed may lack members, so it is not shown. */
    if (text && rl_alloc_failures()) {
        cJSON_free(text);
        text = NULL;
    }
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

/* The GPU of a PyTorch trace: its name, else its SMs and memory. NULL:
 * reported. */
const char *cli_torch_gpu(const struct rl_torch_stats *st, struct rl_trace_groups *g,
                             char *note, size_t size)
{
    const struct rl_gpudb *db = cli_gpudb();
    if (!db)
        return NULL;
    const struct rl_gpu_spec *s = rl_gpudb_match_device(db, st->gpu_name, st->sm_count,
                                                        st->gpu_memory_bytes, st->warp_size,
                                                        note, size);
    if (s && note[0]) /* matched by SMs and memory: the trace's name is in the note */
        snprintf(g->sum.gpu_name, sizeof g->sum.gpu_name, "%s", s->name);
    if (s)
        return s->id;
    if (!st->gpu_name[0] && !st->sm_count)
        cli_error("the trace names no GPU (no deviceProperties): pass --gpu (see 'roofline "
                  "gpus')");
    else
        cli_error("the trace's GPU '%s' (%d %s, %.0f GB) is not in the database: pass --gpu "
                  "(see 'roofline gpus')",
                  st->gpu_name, st->sm_count, st->warp_size == 64 ? "compute units" : "SMs",
                  st->gpu_memory_bytes / 1e9);
    return NULL;
}
