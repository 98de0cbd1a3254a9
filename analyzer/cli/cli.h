/* cli.h - the roofline command line: the command table and helpers shared by commands.
 *
 * Adding a command:
 *   1. write cmd-<name>.c with `int cmd_<name>(int argc, char **argv)` and its
 *      usage text (printed by -h to stdout; usage errors go to stderr, exit 2);
 *   2. declare it below and add it to the table in main.c;
 *   3. add the file to ROOFLINE_CLI_SOURCES in CMakeLists.txt;
 *   4. document its synopsis (and JSON, if any) in docs/ (docs/commands.md
 *      lists the pages);
 *   5. add golden tests to tests/check_cli.c;
 *   6. bad usage through cli_usage_error() / cli_option_error() /
 *      cli_unknown_name(), before any GPU or file; several output files
 *      written as one set (analyzer/util/outset.h).
 */
#ifndef RL_CLI_H
#define RL_CLI_H

#include "analyzer/model/gpudb.h"
#include "analyzer/model/model.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* Exit codes. */
#define CLI_OK 0
#define CLI_FAIL 1  /* runtime error: bad input file, unknown GPU, ... */
#define CLI_USAGE 2 /* bad command line */

/* Commands */

int cmd_gpus(int argc, char **argv);
int cmd_ridge(int argc, char **argv);
int cmd_chart(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_llm(int argc, char **argv);
int cmd_comm(int argc, char **argv);
/* `roofline comm --measure` (cmd-comm-measure.c): argv as cmd_comm got it. */
int cli_comm_measure(int argc, char **argv);

/* `roofline report`, as `roofline run` calls it. */
#define CLI_MAX_TRACES 64
struct rl_outset;
struct rl_html_fact;
struct rl_rank_split;
struct cli_report_opts {
    const char *traces[CLI_MAX_TRACES];
    int n_traces;
    const char *ncu, *kernels, *bench, *gpu, *formats, *title;
    /* PyTorch profiler traces (files, or folders of one file per rank) */
    const char *torch[CLI_MAX_TRACES];
    int n_torch;
    /* The folder of the files, written as one set (NULL: no files). With
     * `set`, dir is a stage of the caller's set, which the caller commits. */
    const char *dir;
    const struct rl_outset *set;
    double tensor_factor;   /* NAN: unknown */
    long rows;              /* -1: the default (20) */
    bool json;
    bool no_chart;          /* --no-chart: the files without the chart */
    bool no_sentences;      /* the table only on the terminal (run: the sentences stay in
                             * report.md and report.html) */
    /* What the caller knows about how the kernels were made (run: its
     * device, build, workload), shown in report.html; may be NULL. */
    const struct rl_html_fact *facts;
    size_t n_facts;
    size_t label_max;       /* chart labels' longest (0: default) */
    double chart_w, chart_h; /* chart canvas (--size), layout units; 0: default */
    /* --model: the LLM a serving trace ran, its custom operators costed
     * from it (readers/torchops-llm.h); --tp / --ep its layout (0: from
     * the trace) */
    const char *model;
    int tp, ep;
    int jobs;               /* -j: threads reading ranks' traces; 0: one per core */
    /* Under mpirun / srun (report/ranks-split.h): this process's share of
     * a folder of ranks; NULL or count 1: alone. Another process than 0
     * reads its share, sends it to process 0 and writes nothing. */
    const struct rl_rank_split *split;
};
int cli_report_run(const struct cli_report_opts *o);

/* The GPU a PyTorch profiler trace ran on: its deviceProperties name, else
 * its SM count and memory (a board name, AMD's "Radeon Graphics"); g's GPU
 * name becomes the match's then, and note says how it was matched. The
 * database id, or NULL with the error reported ("pass --gpu"). */
struct rl_torch_stats;
struct rl_trace_groups;
const char *cli_torch_gpu(const struct rl_torch_stats *st, struct rl_trace_groups *g,
                          char *note, size_t size);

/* Messages: one line on stderr, "roofline: error: ..." */

/* While s (may be NULL: none) is being written, messages and the paths
 * passed to cli_unstage() name its files where they will be, not where
 * they are staged. */
void cli_outset_show(const struct rl_outset *s);
void cli_unstage(char *text, size_t size);

/* Words every later error and warning starts with ("rank 1: " under a
 * launcher, so each rank's line says whose it is); NULL or "" none. */
void cli_message_prefix(const char *prefix);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Open the CUDA plugin and, with dev, query GPU `device` into it: CLI_OK, or
 * "roofline: error: WHAT: <why>" reported and CLI_FAIL. */
struct rl_device_api;
struct rl_device_info;
int cli_open_gpu(const char *what, int device, const struct rl_device_api **api,
                 struct rl_device_info *dev);

/* One integer option: `arg` a whole number in lo..hi into *out, CLI_OK; else
 * the usage error "<cmd>: OPTION needs a whole number in lo..hi, not 'ARG'",
 * CLI_USAGE (exit 2). Every command parses its integer options with it. */
int cli_parse_int(const char *cmd, const char *option, const char *arg, long lo, long hi,
                  int *out);
/* A size in bytes: a number with an optional suffix, K (or k)/M/G/T (and KiB..TiB)
 * powers of 1024 as nccl-tests' -b/-e, kB/MB/GB/TB powers of 1000. CLI_OK,
 * else the usage error (exit 2). */
int cli_parse_bytes(const char *cmd, const char *option, const char *arg, double *out);

/* The largest GPU index any --device takes. */
#define CLI_MAX_DEVICE 1023

/* What a chart render's result means for a command: RL_OK is CLI_OK; gnuplot
 * missing (RL_ENOTOOL) is a warning and CLI_OK, since the script and data
 * are written and every other output still comes; anything else is an
 * error, reported, CLI_FAIL. */
int cli_chart_status(int rc, const char *err);
/* Usage errors: each is "roofline <cmd>: <msg>" and the line
 * "(see 'roofline <cmd> -h')" on stderr, and CLI_USAGE (exit 2), before
 * anything is written and before any GPU is looked for. A name roofline
 * knows the whole list of (a command, option, precision, memory level,
 * format, built-in, benchmark) is usage; a name looked up in the data (a
 * GPU, a model, a chip) that is not there is CLI_FAIL, one line with the
 * nearest names. */

/* Print "roofline <cmd>: <msg>" and the usage hint, return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The usage error of an option getopt_long() refused (its '?'): unknown
 * (with the nearest of opts), missing its value, or given one it does not
 * take. main() turns getopt's own messages off. */
int cli_option_error(const char *cmd, const char *optstring, const struct option *opts,
                     char *const *argv);

/* "unknown <what> '<typed>' (did you mean 'x'?)", else "(one of: ...)",
 * from names (NULL-terminated): a usage error. */
int cli_unknown_name(const char *cmd, const char *what, const char *typed,
                     const char *const *names);

/* Every name of a comma-separated list of precisions (compute roofs, as in
 * `ridge -h`) or of memory levels known: CLI_OK, else the usage error of the
 * first unknown one. */
int cli_check_precisions(const char *cmd, const char *list);
int cli_check_memory_levels(const char *cmd, const char *list);

/* The GPU database, loaded once from the data folder. NULL on error
 * (already reported). */
const struct rl_gpudb *cli_gpudb(void);

/* A GPU by id, name or alias, or a spec file path (anything ending in .json).
 * NULL on error (already reported: unknown GPU with the closest ids). */
const struct rl_gpu_spec *cli_find_gpu(const char *name);

/* The node descriptions (data/systems/), loaded once and checked against
 * the GPU database; NULL on error (already reported). cli_systems_dir puts
 * the folder's path in buf (CLI_OK, else CLI_FAIL reported). */
struct rl_systemdb;
struct rl_system;
const struct rl_systemdb *cli_systemdb(void);
int cli_systems_dir(char *buf, size_t size);
/* A system by id, name or alias; NULL on error (already reported: unknown
 * system with the closest ids). */
const struct rl_system *cli_find_system(const char *name);

/* Commands that run on the local GPU (bench, trace, measured run) given a
 * datasheet that is not an NVIDIA GPU: "roofline: error: AMD Instinct
 * MI300X: WHAT needs an NVIDIA GPU with CUDA; ridge, chart and llm work with
 * its datasheet", CLI_FAIL. CLI_OK for NVIDIA GPUs and for NULL. */
int cli_require_cuda_gpu(const char *what, const struct rl_gpu_spec *spec);

/* The sources of ceilings: the bench file (bench_path, may be NULL) loaded
 * into *bench_buf, and the datasheet of gpu, else of the bench file's GPU,
 * else of fallback (may be NULL). At least one is required. Returns CLI_OK
 * with *bench (NULL without a file) and *spec (NULL without a datasheet) or
 * CLI_FAIL, reported. */
struct rl_bench_ceilings;
int cli_ceiling_sources(const char *gpu, const char *bench_path, const char *fallback,
                        struct rl_bench_ceilings *bench_buf,
                        const struct rl_bench_ceilings **bench,
                        const struct rl_gpu_spec **spec);

/* Printing */

/* Print a cJSON document to stdout and free it. */
int cli_print_json(cJSON *doc);

/* A datasheet value exactly as written: "989.4", "362.05", "4800"; "-" NAN. */
void cli_format_exact(char *buf, size_t n, double v);

/* A computed value at a readable precision: "206", "12.5", "0.98", "0.012". */
void cli_format_derived(char *buf, size_t n, double v);

#endif
