/* cmd-report.c - `roofline report`: every kernel group of a trace or an Nsight Compute export, placed on the roofline and explained. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/numtext.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/outset.h"
#include "analyzer/readers/ncu.h"
#include "analyzer/readers/records.h"
#include "analyzer/readers/torch.h"
#include "analyzer/readers/torchops-llm.h"
#include "analyzer/report/llm-step.h"
#include "analyzer/util/paths.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/report/step.h"
#include <dirent.h>
#include "analyzer/report/html.h"
#include "analyzer/report/ranks.h"
#include "analyzer/report/ranks-split.h"
#include "analyzer/report/report.h"
#include "plots/plot.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "usage: roofline report (--trace FILE|DIR... | TRACE... | --torch FILE|DIR... | --ncu FILE |\n"
    "                        --kernels FILE)\n"
    "                       [--bench FILE] [--model M [--tp N] [--ep N]]\n"
    "                       [--gpu GPU] [-o DIR] [--format LIST | --no-chart] [--rows N]\n"
    "                       [--json]\n"
    "                       [--tensor-flops-per-op F] [--title TEXT] [--label-max N]\n"
    "                       [--size single|double|WxH] [-j N]\n"
    "\n"
    "Place every kernel group (launches of one kernel, grid and block) on the\n"
    "roofline and say what bounds it: memory (which level), compute, or neither\n"
    "(far below both: latency, launch overhead, occupancy, with the evidence).\n"
    "Writes DIR/report.md (the chart and the table), report.json, report.csv,\n"
    "report.html (one self-contained page: the chart to hover, the tables to sort)\n"
    "and roofline.svg (with .gp and .dat beside it), and prints the top kernels.\n"
    "\n"
    "  --trace FILE|DIR  a `roofline trace` file, or a folder of them (every trace\n"
    "                    in it); repeat, or name traces after the options, for the\n"
    "                    ranks of a parallel job: a section per rank (time, NCCL\n"
    "                    communication share, top kernels) and the kernels merged\n"
    "  --torch FILE|DIR  a PyTorch profiler trace (torch.profiler's Chrome-trace\n"
    "                    JSON, plain or .gz; - reads standard input), or a folder of\n"
    "                    them, one per rank (tensorboard_trace_handler): each\n"
    "                    kernel linked to its operator, FLOPs and bytes from the\n"
    "                    operator's shapes (record_shapes=True), the step's GPU\n"
    "                    time by bound and the operators ranked by time lost\n"
    "                    against their roof; a trace named without --torch is\n"
    "                    recognized\n"
    "  --model M         with --torch: the LLM the trace served or trained (a\n"
    "                    shipped id, `roofline llm --list`, or a config .json):\n"
    "                    its fused MoE operators (vllm::moe_forward ...) are\n"
    "                    costed from it, and the step's headline says what\n"
    "                    bounds it\n"
    "  --tp N, --ep N    the layout of --model's experts: ranks sharing each\n"
    "                    expert's width, ranks sharing the experts (default: tp\n"
    "                    the trace's world size, ep 1)\n"
    "  --ncu FILE        an Nsight Compute CSV: `ncu --csv` (long) or `ncu --csv\n"
    "                    --page raw` (wide), with roofline's metrics (README);\n"
    "                    - reads standard input (`ncu ... --csv | roofline report\n"
    "                    --ncu -`)\n"
    "  --kernels FILE    a kernels file (docs/file-formats.md)\n"
    "  --bench FILE      measured ceilings from `roofline bench` (dashed beside the\n"
    "                    datasheet's, and the ones kernels are judged against)\n"
    "  --gpu GPU         datasheet ceilings (default: the bench file's, else the\n"
    "                    GPU the trace or export names; an export naming none\n"
    "                    needs --gpu)\n"
    "  -o DIR            output folder (default roofline-report; with --json and\n"
    "                    no -o, nothing is written)\n"
    "  --format LIST     chart formats: svg, png, pdf, comma-separated (default svg)\n"
    "  --no-chart        no chart: report.md, report.json, report.csv and\n"
    "                    report.html only (the page draws its own)\n"
    "  --rows N          kernels in the printed table (default 20; 0: all)\n"
    "  --json            print report.json instead of the table\n"
    "  --tensor-flops-per-op F  FLOPs per Tensor Core op for --ncu (what\n"
    "                    `roofline trace` calibrates; without it Tensor Core\n"
    "                    kernels of an ncu export have no FLOPs)\n"
    "  --title TEXT      chart title\n"
    "  --label-max N     longest kernel label on the chart, in characters (default\n"
    "                    28); the full names stay in the report's files\n"
    "  --size S          chart size: single (one paper column), double (two; the\n"
    "                    default) or WxH in layout units\n"
    "  -j, --jobs N      threads reading the ranks' traces (--trace, --torch;\n"
    "                    default: one per core); the report is the same for any N\n"
    "\n"
    "Under mpirun or srun, a folder of ranks (--torch) is split over the\n"
    "processes: each reads its share on its -j threads, process 0 gathers the\n"
    "ranks' summaries (through a folder beside -o, which every process must\n"
    "see) and writes the report, the same as one process's; the others write\n"
    "nothing (docs/ranks.md).\n"
    "  --gather-timeout S  process 0's wait for the others' summaries after its\n"
    "                    own share (default 600 s); then one error, no files\n"
    "  --no-split        every process reads every file (and writes the report)\n";

/* Write f's content through an atomic file at dir/name. fn returns 0;
 * RL_ENOMEM with err set (out of memory: said as it is); any other nonzero
 * when a write failed (rl_atomic_fail says which file and why). */
static int write_file(const char *dir, const char *name,
                      int (*fn)(FILE *, const struct rl_report *, const struct rl_ceilings *,
                                char *),
                      const struct rl_report *r, const struct rl_ceilings *c, char *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, err);
    if (rc)
        return rc;
    rc = fn(f.fp, r, c, err);
    if (rc == RL_ENOMEM) {
        rl_atomic_abort(&f);
        return rc;
    }
    if (rc)
        return rl_atomic_fail(&f, err);
    return rl_atomic_commit(&f, err);
}

static const char *md_chart;

static int write_md(FILE *f, const struct rl_report *r, const struct rl_ceilings *c, char *err)
{
    (void)err;
    return rl_report_markdown(f, r, c, md_chart);
}

static int write_json(FILE *f, const struct rl_report *r, const struct rl_ceilings *c, char *err)
{
    (void)err;
    return rl_report_json(f, r, c);
}

static int write_csv(FILE *f, const struct rl_report *r, const struct rl_ceilings *c, char *err)
{
    (void)err;
    return rl_report_csv(f, r, c);
}

/* report.html's title and conditions: the caller's facts and the bench file. */
static const char *html_title;
static struct rl_html_fact html_facts[48];
static size_t n_html_facts;

static int write_html(FILE *f, const struct rl_report *r, const struct rl_ceilings *c, char *err)
{
    return rl_report_html(f, r, c, html_title, html_facts, n_html_facts, err);
}

/* The files of a report into dir (a stage of set): the charts, report.md,
 * report.json, report.csv. CLI_OK, or CLI_FAIL reported. */
static int write_report(const struct cli_report_opts *o, const char *dir,
                        const struct rl_report *r, const struct rl_ceilings *c,
                        const char *origins)
{
    char err[RL_ERRMSG_SIZE], title[512], chart[4096], first_chart[64] = "";
    /* How many the chart places: those judged against a roof (the rest,
     * timing only or communication, are in the tables). */
    size_t placed = 0;
    for (size_t i = 0; i < r->n; i++)
        placed += r->rows[i].bound == RL_BOUND_MEMORY || r->rows[i].bound == RL_BOUND_COMPUTE ||
                  r->rows[i].bound == RL_BOUND_NEITHER;
    char groups[96];
    if (placed == r->n)
        snprintf(groups, sizeof groups, "%zu kernel group%s", r->n, r->n == 1 ? "" : "s");
    else
        snprintf(groups, sizeof groups, "%zu of %zu kernel group%s placed", placed, r->n,
                 r->n == 1 ? "" : "s");
    snprintf(title, sizeof title, "%s: %s (%s ceilings)", c->gpu_name, groups, origins);
    int status = CLI_OK;
    char formats[256], *save = NULL;
    snprintf(formats, sizeof formats, "%s", o->no_chart ? "" : o->formats);
    for (char *f = strtok_r(formats, ",", &save); f && status == CLI_OK;
         f = strtok_r(NULL, ",", &save)) {
        snprintf(chart, sizeof chart, "%s/roofline.%s", dir, f);
        if (!first_chart[0])
            snprintf(first_chart, sizeof first_chart, "roofline.%s", f);
        int rc = rl_report_chart(r, c, o->title ? o->title : title, chart, 0, err);
        if (rc == RL_ENOTOOL)
            first_chart[0] = '\0'; /* no image for report.md to show */
        status = cli_chart_status(rc, err);
    }
    md_chart = status == CLI_OK && first_chart[0] ? first_chart : NULL;
    int rc = RL_OK;
    if (status == CLI_OK)
        rc = write_file(dir, "report.md", write_md, r, c, err);
    if (status == CLI_OK && rc == RL_OK)
        rc = write_file(dir, "report.json", write_json, r, c, err);
    if (status == CLI_OK && rc == RL_OK)
        rc = write_file(dir, "report.csv", write_csv, r, c, err);
    char bench[1024] = "";
    if (o->bench) {
        snprintf(bench, sizeof bench, "%s", o->bench);
        cli_unstage(bench, sizeof bench);
    }
    n_html_facts = 0;
    for (size_t i = 0; i < o->n_facts && n_html_facts + 1 < sizeof html_facts / sizeof *html_facts;
         i++)
        html_facts[n_html_facts++] = o->facts[i];
    if (o->bench)
        html_facts[n_html_facts++] = (struct rl_html_fact){"measured ceilings from", bench};
    html_title = o->title;
    if (status == CLI_OK && rc == RL_OK)
        rc = write_file(dir, "report.html", write_html, r, c, err);
    if (rc) {
        cli_error("%s", err);
        status = CLI_FAIL;
    }
    return status;
}

static bool torch_name(const char *n)
{
    size_t k = strlen(n);
    return (k > 5 && strcmp(n + k - 5, ".json") == 0) ||
           (k > 8 && strcmp(n + k - 8, ".json.gz") == 0);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of --torch: files as given, folders' profiler traces by name. */
static int torch_files(const struct cli_report_opts *o, char ***out, size_t *n, char *err)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (int i = 0; i < o->n_torch; i++) {
        struct stat st;
        const char *p = o->torch[i];
        bool dir = strcmp(p, "-") != 0 && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
        DIR *d = dir ? opendir(p) : NULL;
        if (dir && !d)
            return rl_fail(err, RL_EIO, "cannot read the folder '%s': %s", p, strerror(errno));
        size_t first = *n;
        for (struct dirent *e; dir ? (e = readdir(d)) != NULL : *n == first;) {
            char path[4096];
            if (dir) {
                snprintf(path, sizeof path, "%s/%s", p, e->d_name);
                bool is_torch = false;
                if (e->d_name[0] == '.' || !torch_name(e->d_name))
                    continue;
                if (rl_torch_sniff_path(path, &is_torch, err)) {
                    closedir(d);
                    return RL_EIO;
                }
                if (!is_torch)
                    continue;
            } else {
                snprintf(path, sizeof path, "%s", p);
            }
            if (*n == cap) {
                cap = cap ? 2 * cap : 8;
                char **v = rl_realloc(*out, cap * sizeof *v);
                if (!v) {
                    if (d)
                        closedir(d);
                    return rl_fail(err, RL_ENOMEM, "out of memory");
                }
                *out = v;
            }
            if (!((*out)[(*n)++] = rl_strdup(path))) {
                if (d)
                    closedir(d);
                return rl_fail(err, RL_ENOMEM, "out of memory");
            }
        }
        if (d) {
            closedir(d);
            if (*n == first)
                return rl_fail(err, RL_EIO, "no PyTorch profiler trace (*.json, *.json.gz) in '%s'",
                               p);
            qsort(*out + first, *n - first, sizeof **out, cmp_str);
        }
    }
    return RL_OK;
}

/* Read the PyTorch traces into g: one, or one per rank merged (ranks). */
static int load_torch(const struct cli_report_opts *o, struct rl_trace_groups *g,
                      struct rl_rank_traces *ranks, struct rl_torch_stats *st, char *err)
{
    char **files;
    size_t n;
    int rc = torch_files(o, &files, &n, err);
    bool helper = o->split && o->split->count > 1 && o->split->index != 0;
    if (rc == RL_OK && n == 1 && helper) {
        /* one file: process 0 reads it alone */
    } else if (rc == RL_OK && n == 1) {
        rc = rl_torch_load(g, files[0], st, err);
    } else if (rc == RL_OK) {
        /* in parallel, sorted by rank (analyzer/report/ranks.h); under
         * mpirun / srun split over the processes (ranks-split.h) */
        rc = rl_rank_traces_load_torch_split(ranks, files, n, o->jobs, st, o->split, err);
        files = NULL;
        if (rc == RL_OK)
            rc = rl_rank_traces_merge(ranks, g, err);
    }
    for (size_t i = 0; files && i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

/* --model: the model serving operators are costed from (set for the reading). */
static int serving_model(const struct cli_report_opts *o, struct rl_torch_llm *x, char *err)
{
    char data[4096];
    memset(x, 0, sizeof *x);
    int rc = rl_data_dir(data, sizeof data, err);
    if (rc == RL_OK)
        rc = rl_llm_model_load(&x->model, data, o->model, err);
    if (rc == RL_OK) {
        x->tp = o->tp, x->ep = o->ep;
        rl_torch_llm_use(x);
    }
    return rc;
}

int cli_report_run(const struct cli_report_opts *o)
{
    char err[RL_ERRMSG_SIZE];
    /* Under a launcher, process 0 writes the report; the others only read
     * their share of a folder of ranks. */
    bool helper = o->split && o->split->count > 1 && o->split->index != 0;
    if (helper && !o->n_torch)
        return CLI_OK;
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    const char *source = NULL, *kind = NULL;
    int rc = RL_OK;
    /* Traces: each read on its own (a rank each), then merged. */
    static struct rl_rank_traces ranks;
    memset(&ranks, 0, sizeof ranks);
    if (o->n_traces) {
        rc = rl_rank_traces_load_jobs(&ranks, o->traces, (size_t)o->n_traces, o->jobs, err);
        if (rc == RL_OK && (ranks.n > 1 || rl_rank_traces_ranked(&ranks)))
            rc = rl_rank_traces_merge(&ranks, &g, err);
        else if (rc == RL_OK)
            g = ranks.groups[0], memset(&ranks.groups[0], 0, sizeof g);
        source = o->traces[0], kind = "trace";
    }
    static struct rl_torch_stats torch;
    memset(&torch, 0, sizeof torch);
    static struct rl_torch_llm llm;
    if (rc == RL_OK && o->model)
        rc = serving_model(o, &llm, err);
    if (rc == RL_OK && o->n_torch) {
        rc = load_torch(o, &g, &ranks, &torch, err);
        rl_torch_llm_use(NULL);
        source = strcmp(o->torch[0], "-") == 0 ? "<stdin>" : o->torch[0], kind = "torch";
    }
    if (helper) {
        /* its share sent (or one file, process 0's): done, silently */
        if (rc)
            cli_error("%s", err);
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        return rc ? CLI_FAIL : CLI_OK;
    }
    struct rl_ncu_stats ncu = {0};
    if (rc == RL_OK && o->ncu) {
        rc = rl_ncu_load(&g, o->ncu, o->tensor_factor, &ncu, err);
        source = strcmp(o->ncu, "-") == 0 ? "<stdin>" : o->ncu, kind = "ncu";
    }
    if (rc == RL_OK && o->kernels) {
        rc = rl_records_load_groups(&g, o->kernels, err);
        source = o->kernels, kind = "kernels";
    }
    if (rc) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        return CLI_FAIL;
    }
    /* Ceilings: the bench file's and/or the datasheet's (else the trace's GPU). */
    static struct rl_bench_ceilings bench;
    const struct rl_bench_ceilings *b;
    const struct rl_gpu_spec *s;
    const char *fallback = g.sum.gpu_name[0] ? g.sum.gpu_name : NULL;
    char gpu_note[512] = "";
    if (o->n_torch && !o->gpu && !o->bench &&
        !(fallback = cli_torch_gpu(&torch, &g, gpu_note, sizeof gpu_note))) {
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        return CLI_FAIL;
    }
    /* An export: the GPU is --gpu's, else the bench file's, else the one
     * the export names (said on the first line), else an error. */
    const bool gpu_from_export = o->ncu && !o->gpu && !o->bench && fallback;
    if (o->ncu && !o->gpu && !o->bench && !fallback) {
        cli_error("the export names no GPU (no device__attribute_display_name, or several): "
                  "give --gpu (see 'roofline gpus') or --bench");
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        return CLI_FAIL;
    }
    if (cli_ceiling_sources(o->gpu, o->bench, fallback, &bench, &b, &s)) {
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        return CLI_FAIL;
    }
    static struct rl_ceilings c;
    if (rl_ceilings_init(&c, s, b, NULL, false, false, NULL, err)) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        return CLI_FAIL;
    }
    static struct rl_report r;
    if (rl_report_build(&r, &c, &g, err) ||
        (ranks.n && rl_rank_traces_ranked(&ranks) && rl_report_ranks(&r, &ranks, err)) ||
        rl_report_across(&r, &ranks, &c, err)) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        rl_report_release(&r);
        return CLI_FAIL;
    }
    if (o->n_torch && (rl_report_step_build(&r, &c, torch.busy_ns, torch.span_ns, err) ||
                       (o->model &&
                        rl_report_llm_headline(&r, &c, &llm.model,
                                               &(struct rl_report_llm_layout){
                                                   o->tp, o->ep, torch.world_size},
                                               err)))) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        rl_rank_traces_release(&ranks);
        rl_report_release(&r);
        return CLI_FAIL;
    }
    size_t n_traces = ranks.n;
    rl_rank_traces_release(&ranks);
    r.label_max = o->label_max;
    r.chart_w = o->chart_w, r.chart_h = o->chart_h;
    rl_trace_groups_release(&g);
    snprintf(r.source_path, sizeof r.source_path, "%s%s", source,
             n_traces > 1 ? " (and more traces)" : "");
    cli_unstage(r.source_path, sizeof r.source_path); /* run's inputs sit in its stage */
    snprintf(r.source_kind, sizeof r.source_kind, "%s", kind);
    if (o->ncu) {
        char text[2048];
        rl_ncu_notes(&ncu, text, sizeof text);
        rl_report_note(&r, text);
    }
    if (o->n_torch) {
        char text[3072];
        rl_torch_notes(&torch, text, sizeof text);
        rl_report_note(&r, text);
        rl_report_note(&r, gpu_note);
    }
    char origins[64];
    rl_ceilings_origins(&c, origins, sizeof origins);

    /* The files, one set: written whole or not at all. */
    int status = CLI_OK;
    char shown[4096] = "";
    if (o->dir) {
        struct rl_outset own = {0};
        const char *dir = o->dir;
        if (!o->set && rl_outset_folder(&own, o->dir, "report", &dir, err)) {
            cli_error("%s", err);
            status = CLI_FAIL;
        }
        if (!o->set)
            cli_outset_show(&own);
        if (status == CLI_OK)
            status = write_report(o, dir, &r, &c, origins);
        if (!o->set && status == CLI_OK && rl_outset_commit(&own, err)) {
            cli_error("%s", err);
            status = CLI_FAIL;
        }
        rl_outset_abort(&own);
        if (!o->set)
            cli_outset_show(NULL);
        snprintf(shown, sizeof shown, "%s", o->dir);
        cli_unstage(shown, sizeof shown);
    }
    if (status == CLI_OK) {
        if (o->json) {
            rl_report_json(stdout, &r, &c);
        } else {
            char src[1024];
            snprintf(src, sizeof src, "%s", source);
            cli_unstage(src, sizeof src);
            char launches[160];
            rl_report_launches_text(launches, sizeof launches, &r);
            printf("%s: %s", src, launches);
            if (r.time_ns > 0)
                printf(", %s %s of GPU time", rl_num(r.time_ns / (r.time_ns >= 1e9 ? 1e9 : 1e6), 4),
                       r.time_ns >= 1e9 ? "s" : "ms");
            printf("; ceilings: %s", origins);
            if (gpu_from_export)
                printf(", of the %s the export names (--gpu for another)", c.gpu_name);
            printf("\n\n");
            if (r.step) {
                rl_report_step_table(stdout, &r, o->rows < 0 ? 20 : (size_t)o->rows);
                printf("\nkernels:\n");
            }
            rl_report_table(stdout, &r, &c, o->rows < 0 ? 20 : (size_t)o->rows);
            if (r.notes[0]) {
                printf("\nnotes:\n");
                for (const char *p = r.notes; *p;) {
                    size_t k = strcspn(p, "\n");
                    printf("  %.*s\n", (int)k, p);
                    p += k + (p[k] == '\n');
                }
            }
            if (o->dir && o->no_chart)
                printf("\nwrote %s, report.json, report.csv and report.html (no "
                       "chart)\n",
                       rl_path_join((char[4200]){0}, 4200, shown, "report.md"));
            else if (o->dir)
                printf("\nwrote %s, report.json, report.csv, report.html and the chart "
                       "(%s)\n",
                       rl_path_join((char[4200]){0}, 4200, shown, "report.md"), o->formats);
            if (r.n && !o->no_sentences) {
                printf("\n");
                for (size_t i = 0; i < r.n && i < 5; i++)
                    printf("%s\n", r.rows[i].sentence);
            }
        }
    }
    rl_report_release(&r);
    return status;
}

/* Whether path starts like a CSV file (an Nsight Compute export: '"ID",...',
 * '==PROF==' lines, or the profiled program's output before them) rather than
 * JSON or gzip: its first byte after a UTF-8 byte order mark and white space.
 * 1 or 0 (a file that cannot be opened is not: its reader says why), or
 * RL_EIO when its read fails (err says why). */
static int looks_like_csv(const char *path, char *err)
{
    if (strcmp(path, "-") == 0)
        return 0;
    unsigned char buf[64];
    size_t n, i = 0;
    int rc = rl_file_head(path, buf, sizeof buf, &n, err);
    if (rc != RL_OK)
        return rc == RL_EIO ? rc : 0;
    if (n >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf)
        i = 3;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    /* Not JSON ('{', '['), not gzip (0x1f 0x8b): ncu's CSV, which may
     * follow the program's own output lines. */
    return i < n && buf[i] != '{' && buf[i] != '[' && buf[i] != 0x1f;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"trace", required_argument, NULL, 't'},
                                         {"ncu", required_argument, NULL, 'n'},
                                         {"kernels", required_argument, NULL, 'k'},
                                         {"torch", required_argument, NULL, 'P'},
                                         {"model", required_argument, NULL, 'm'},
                                         {"tp", required_argument, NULL, 'p'},
                                         {"ep", required_argument, NULL, 'e'},
                                         {"bench", required_argument, NULL, 'b'},
                                         {"gpu", required_argument, NULL, 'g'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"rows", required_argument, NULL, 'r'},
                                         {"json", no_argument, NULL, 'J'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"gather-timeout", required_argument, NULL, 'G'},
                                         {"no-split", no_argument, NULL, 'N'},
                                         {"no-chart", no_argument, NULL, 'C'},
                                         {"tensor-flops-per-op", required_argument, NULL, 'T'},
                                         {"title", required_argument, NULL, 'L'},
                                         {"label-max", required_argument, NULL, 'M'},
                                         {"size", required_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct cli_report_opts o = {.formats = "svg", .rows = -1, .tensor_factor = NAN};
    int gather_timeout_s = 0;
    bool no_split = false;
    int c;
    char *end;
    static const char optstring[] = "ho:j:";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (o.n_traces == CLI_MAX_TRACES)
                return cli_usage_error("report", "at most %d traces", CLI_MAX_TRACES);
            o.traces[o.n_traces++] = optarg;
            break;
        case 'n': o.ncu = optarg; break;
        case 'P':
            if (o.n_torch == CLI_MAX_TRACES)
                return cli_usage_error("report", "at most %d traces", CLI_MAX_TRACES);
            o.torch[o.n_torch++] = optarg;
            break;
        case 'k': o.kernels = optarg; break;
        case 'm': o.model = optarg; break;
        case 'p':
        case 'e':
            if (cli_parse_int("report", c == 'p' ? "--tp" : "--ep", optarg, 1, 65536,
                              c == 'p' ? &o.tp : &o.ep))
                return CLI_USAGE;
            break;
        case 'b': o.bench = optarg; break;
        case 'g': o.gpu = optarg; break;
        case 'o': o.dir = optarg; break;
        case 'f': o.formats = optarg; break;
        case 'L': o.title = optarg; break;
        case 'S':
            if (rl_chart_size_parse(optarg, &o.chart_w, &o.chart_h))
                return cli_usage_error("report", "--size takes single, double or WxH "
                                                 "(320..4000 x 240..4000), not '%s'",
                                       optarg);
            break;
        case 'M': {
            int m;
            if (cli_parse_int("report", "--label-max", optarg, 8, 1000, &m))
                return CLI_USAGE;
            o.label_max = (size_t)m;
            break;
        }
        case 'J': o.json = true; break;
        case 'j': {
            int jobs;
            if (cli_parse_int("report", "--jobs", optarg, 1, 1024, &jobs))
                return CLI_USAGE;
            o.jobs = jobs;
            break;
        }
        case 'G':
            if (cli_parse_int("report", "--gather-timeout", optarg, 1, 86400, &gather_timeout_s))
                return CLI_USAGE;
            break;
        case 'N': no_split = true; break;
        case 'C': o.no_chart = true; break;
        case 'r': {
            int rows;
            if (cli_parse_int("report", "--rows", optarg, 0, 1000000000, &rows))
                return CLI_USAGE;
            o.rows = rows;
            break;
        }
        case 'T':
            o.tensor_factor = strtod(optarg, &end);
            if (*end || end == optarg || !(o.tensor_factor > 0))
                return cli_usage_error("report", "--tensor-flops-per-op needs a number > 0");
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("report", optstring, opts, argv);
        }
    }
    /* Traces may follow the options: `roofline report t.rank*.json`. */
    for (; optind < argc; optind++) {
        if (o.n_traces == CLI_MAX_TRACES)
            return cli_usage_error("report", "at most %d traces", CLI_MAX_TRACES);
        o.traces[o.n_traces++] = argv[optind];
    }
    /* A PyTorch profiler trace given as a trace is read as one; so is one
     * Nsight Compute CSV export. */
    char err[RL_ERRMSG_SIZE];
    int csv = o.n_traces == 1 && !o.n_torch && !o.ncu ? looks_like_csv(o.traces[0], err) : 0;
    bool torch = false;
    if (csv == 1) {
        o.ncu = o.traces[0];
        o.n_traces = 0;
    }
    if (csv < 0 || (o.n_traces && !o.n_torch && strcmp(o.traces[0], "-") != 0 &&
                    rl_torch_sniff_path(o.traces[0], &torch, err))) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (torch) {
        for (int i = 0; i < o.n_traces; i++)
            o.torch[i] = o.traces[i];
        o.n_torch = o.n_traces;
        o.n_traces = 0;
    }
    if ((o.n_traces > 0) + (o.n_torch > 0) + !!o.ncu + !!o.kernels != 1)
        return cli_usage_error("report", "give one source: --trace FILE..., --torch FILE..., "
                                         "--ncu FILE or --kernels FILE");
    if ((o.model || o.tp || o.ep) && !o.n_torch)
        return cli_usage_error("report", "--model, --tp and --ep go with --torch");
    static const char *const chart_formats[] = {"svg", "png", "pdf", NULL};
    char formats[256], *save = NULL;
    if (snprintf(formats, sizeof formats, "%s", o.formats) >= (int)sizeof formats ||
        !strtok_r(formats, ",", &save))
        return cli_usage_error("report", "--format takes svg, png or pdf, comma-separated");
    save = NULL;
    snprintf(formats, sizeof formats, "%s", o.formats);
    for (char *f = strtok_r(formats, ",", &save); f; f = strtok_r(NULL, ",", &save))
        if (strcmp(f, "svg") != 0 && strcmp(f, "png") != 0 && strcmp(f, "pdf") != 0)
            return cli_unknown_name("report", "chart format", f, chart_formats);
    /* Files only where asked for: --json alone prints, and writes nothing. */
    if (!o.dir && !o.json)
        o.dir = "roofline-report";
    /* mpirun / srun: which process this is; the parts meet beside -o */
    static struct rl_rank_split split;
    rl_rank_split_detect(&split);
    if (!no_split && split.count > 1) {
        char err[RL_ERRMSG_SIZE];
        if (gather_timeout_s)
            split.timeout_s = gather_timeout_s;
        if (rl_rank_split_place(&split, o.dir, err)) {
            cli_error("%s", err);
            return CLI_FAIL;
        }
        if (split.index != 0) {
            static char prefix[64];
            snprintf(prefix, sizeof prefix, "process %d of %d: ", split.index, split.count);
            cli_message_prefix(prefix);
        }
        o.split = &split;
    }
    return cli_report_run(&o);
}
