/* cmd-chart.c - `roofline chart`: draw a roofline chart with kernels placed on it. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/outset.h"
#include "plots/labels.h"
#include "plots/plot.h"
#include "analyzer/readers/records.h"
#include "analyzer/readers/torch.h"
#include "analyzer/report/report.h"
#include "analyzer/util/strbuf.h"
#include "microbench/results.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/results.h"
#include "analyzer/comm/system.h"
#include "plots/commchart.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "wrote OUT.svg (and OUT.gp, OUT.roofs.dat, OUT.kernels.dat)": the script
 * and data of a base name are listed once, with its first image; the other
 * images of that base name (OUT.png, OUT.pdf) are listed alone. */
static void print_written(const char *const *outputs, size_t n_out, const char *data_exts)
{
    for (size_t i = 0; i < n_out; i++) {
        int len = (int)(strrchr(outputs[i], '.') - outputs[i]);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = (int)(strrchr(outputs[j], '.') - outputs[j]) == len &&
                   strncmp(outputs[i], outputs[j], (size_t)len) == 0;
        if (seen) {
            printf("wrote %s\n", outputs[i]);
            continue;
        }
        printf("wrote %s (and %.*s.gp", outputs[i], len, outputs[i]);
        for (const char *e = data_exts; *e;) {
            size_t n = strcspn(e, ",");
            printf(", %.*s.%.*s", len, outputs[i], (int)n, e);
            e += n;
            e += strspn(e, ", ");
        }
        printf(")\n");
    }
}

static const char usage_text[] =
    "usage: roofline chart [--gpu <gpu>] [--bench FILE] [--library] [--precision LIST]\n"
    "                      [--sparse] [--memory LIST] [--kernels FILE | --torch FILE] [--title TEXT]\n"
    "                      [--label-max N] [--size single|double|WxH]\n"
    "                      [--json] -o OUT.svg|.png|.pdf [-o ...]\n"
    "       roofline chart --comm FILE [--gpu G] [--system S] [--title TEXT]\n"
    "                      -o OUT.svg|.png|.pdf [-o ...]\n"
    "\n"
    "Draw the roofline of a GPU from its datasheet and/or the ceilings measured\n"
    "by 'roofline bench', with kernels placed on it.\n"
    "Beside each image, OUT.gp (the gnuplot script) and OUT.roofs.dat /\n"
    "OUT.kernels.dat (its data) are written so the chart can be restyled:\n"
    "edit OUT.gp and run 'gnuplot OUT.gp'.\n"
    "\n"
    "  --gpu G            id, name or spec file (see 'roofline gpus'); default:\n"
    "                     the GPU of the --bench file\n"
    "  --bench FILE       a 'roofline bench' JSON: measured ceilings (dashed) beside\n"
    "                     the datasheet ones, and its intensity sweeps as curves\n"
    "  --library          also draw the cuBLASLt GEMM ceilings of the bench file\n"
    "  --precision LIST   compute roofs, comma-separated (default: fp64, fp32,\n"
    "                     tf32, fp16, bf16, fp8 where the GPU has them);\n"
    "                     names as in 'roofline ridge -h'\n"
    "  --sparse           Tensor Core roofs with 2:4 sparsity\n"
    "  --memory LIST      memory roofs: hbm, l2, l1 (default: every level the\n"
    "                     datasheet gives)\n"
    "  --torch FILE       a PyTorch profiler trace's kernels (as `report --torch`;\n"
    "                     its GPU when --gpu is not given)\n"
    "  --kernels FILE     kernels to place: JSON list of {name, flops, bytes,\n"
    "                     time_ns} (docs/file-formats.md); a trace works too\n"
    "  --title TEXT       chart title\n"
    "  --label-max N      longest kernel label, in characters (default 28): C++\n"
    "                     names lose return type, namespaces, template arguments\n"
    "                     and parameters; the full names stay in OUT.kernels.dat\n"
    "  --size S           single (a one-column paper figure: 3.5 in in the PDF),\n"
    "                     double (two columns, 7 in; the default) or WxH in\n"
    "                     layout units (~px of the SVG); fonts keep their size\n"
    "  -o FILE            output image; repeat for several formats\n"
    "  --json             print the judged kernels as `report --json` does\n"
    "  --comm FILE        a 'roofline comm --measure' file: each collective's bus\n"
    "                     bandwidth against message size (log-log), the datasheet\n"
    "                     link per direction as its ceiling (the NICs too across\n"
    "                     nodes), each collective's analytic prediction dashed;\n"
    "                     --gpu/--system name the datasheet when the file's GPU is\n"
    "                     not in the database or to compare with another\n"
    "\n"
    "Kernels are judged as `roofline report` judges them (the same verdicts,\n"
    "bounds and fallbacks): each against the roof of its 'precision' (default:\n"
    "the first --precision given, else the highest roof drawn; a precision not\n"
    "drawn falls back to the default with a warning), measured when the bench\n"
    "file has it, else datasheet. A kernel without time_ns is drawn at its\n"
    "attainable rate as an analytic point. --json prints the report JSON.\n";

#define MAX_OUTPUTS 8

/* Every image with its script and data is one set: each is drawn by
 * draw(ctx, path, err) into a stage beside it, and all appear together or
 * none does. CLI_OK, or CLI_FAIL reported. */
typedef int (*chart_draw_fn)(void *ctx, const char *path, char *errmsg);

static int draw_set(const char *const *outputs, size_t n_out, chart_draw_fn draw, void *ctx)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_outset set = {0};
    static char staged[MAX_OUTPUTS][4096];
    int status = CLI_OK;
    for (size_t i = 0; i < n_out && status == CLI_OK; i++)
        if (rl_outset_file(&set, outputs[i], staged[i], sizeof staged[i], err)) {
            cli_error("%s", err);
            status = CLI_FAIL;
        }
    cli_outset_show(&set);
    for (size_t i = 0; i < n_out && status == CLI_OK; i++)
        status = cli_chart_status(draw(ctx, staged[i], err), err);
    if (status == CLI_OK && rl_outset_commit(&set, err)) {
        cli_error("%s", err);
        status = CLI_FAIL;
    }
    rl_outset_abort(&set);
    cli_outset_show(NULL);
    return status;
}

struct comm_draw {
    const struct rl_comm_results *r;
    const struct rl_fabric *f;
    const char *title;
};

static int draw_comm(void *ctx, const char *path, char *errmsg)
{
    const struct comm_draw *d = ctx;
    return rl_comm_chart_render(d->r, d->f, d->title, path, errmsg);
}

struct roofline_draw {
    const struct rl_report *rep;
    const struct rl_ceilings *roofs;
    const char *title;
    const struct rl_chart_series *series;
    size_t n_series;
};

/* One warning line for the kernel groups not drawn (undrawn) or drawn
 * without a time: the one by name, else how many and the first three by
 * their short names ("Memcpy HtoD (Pinned -> Device), ncclKernel_...,
 * ..."), never a line each (a PyTorch trace has hundreds). RL_OK, or
 * RL_ENOMEM (nothing said): a short name could not be made. */
static int warn_kernels(const struct rl_report *rep, bool undrawn)
{
    size_t n = 0, listed = 0;
    char names[200] = "", one[64];
    const char *first = NULL;
    for (size_t i = 0; i < rep->n; i++) {
        const struct rl_report_row *w = &rep->rows[i];
        bool hit = undrawn ? w->bound == RL_BOUND_UNKNOWN
                           : w->bound != RL_BOUND_UNKNOWN && isnan(w->v.achieved_tflops) &&
                                 w->origin == RL_ORIGIN_MEASURED;
        if (!hit)
            continue;
        if (n++ == 0)
            first = w->name;
        if (rl_chart_short_name(one, sizeof one, w->name, 40))
            return RL_ENOMEM;
        if (listed < 3 && !strstr(names, one)) { /* each name once */
            size_t u = strlen(names);
            snprintf(names + u, sizeof names - u, "%s%s", listed++ ? ", " : "", one);
        }
    }
    if (n == 1 && undrawn)
        cli_warn("kernel '%s' is not drawn: no FLOPs and bytes to place it by", first);
    else if (n == 1)
        cli_warn("kernel '%s' has no time: drawn at its attainable rate (analytic)", first);
    else if (n > 1 && undrawn)
        cli_warn("%zu kernel groups are not drawn: no FLOPs and bytes to place them by (%s%s)",
                 n, names, n > listed ? ", ..." : "");
    else if (n > 1)
        cli_warn("%zu kernel groups have no time: drawn at their attainable rates (analytic; "
                 "%s%s)", n, names, n > listed ? ", ..." : "");
    return RL_OK;
}

static int draw_roofline(void *ctx, const char *path, char *errmsg)
{
    const struct roofline_draw *d = ctx;
    return rl_report_chart_series(d->rep, d->roofs, d->title, path, 0, d->series, d->n_series,
                                  errmsg);
}

/* `chart --comm FILE`: the measured curves, their predictions and the link. */
static int chart_comm(const char *path, const char *gpu, const char *system, const char *title,
                      const char *const *outputs, size_t n_out)
{
    static struct rl_comm_results r;
    char err[RL_ERRMSG_SIZE];
    if (rl_comm_results_load(&r, path, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    /* The datasheet to predict with: --gpu, else the system's, else the file's. */
    const struct rl_system *sys = system ? cli_find_system(system) : NULL;
    const struct rl_gpu_spec *spec = NULL;
    int status = CLI_OK;
    if (system && !sys)
        status = CLI_FAIL;
    else if (gpu || sys)
        status = (spec = cli_find_gpu(gpu ? gpu : sys->gpu)) ? CLI_OK : CLI_FAIL;
    else if (r.gpu_id[0])
        spec = cli_find_gpu(r.gpu_id);
    struct rl_fabric f;
    const struct rl_fabric *fp = NULL;
    if (status == CLI_OK && spec && r.ranks > 1) {
        int nodes = r.nodes > 0 ? r.nodes : 1;
        /* Several nodes and no --system: the NICs of the first system with
         * this GPU, as `comm --nodes K` takes them (its node size too). */
        const struct rl_system *nic_from = NULL;
        const struct rl_systemdb *db = !sys && nodes > 1 ? cli_systemdb() : NULL;
        if (!sys && nodes > 1 && !db)
            status = CLI_FAIL; /* said (a system file that cannot be read) */
        for (size_t i = 0; db && i < db->n && !nic_from; i++)
            if (strcmp(db->systems[i].gpu, spec->id) == 0 &&
                db->systems[i].gpus_per_node >= r.ranks / nodes)
                nic_from = &db->systems[i];
        if (status == CLI_OK &&
            (nic_from ? rl_fabric_build(&f, spec, NULL, r.ranks, nodes, nic_from->nic_gbps,
                                        nic_from->nics_per_node, err)
                      : rl_fabric_build(&f, spec, sys, r.ranks, nodes, NAN, 0, err))) {
            cli_warn("no prediction beside the measurement: %s", err);
        } else if (status == CLI_OK) {
            if (nic_from) {
                f.inter_origin = RL_ORIGIN_DATASHEET;
                snprintf(f.inter_link, sizeof f.inter_link, "%s", nic_from->nic);
                if (nic_from->gpus_per_node > f.node_gpus)
                    f.node_gpus = nic_from->gpus_per_node;
            }
            fp = &f;
        }
    }
    if (status == CLI_OK && spec && !(r.link_gbs > 0) && spec->links.gbs > 0) {
        /* a file measured before the database knew the link */
        snprintf(r.link_name, sizeof r.link_name, "%s", spec->links.name);
        r.link_gbs = spec->links.gbs;
    }
    char default_title[256];
    snprintf(default_title, sizeof default_title, "%s x %d%s: NCCL %s against message size",
             r.gpu, r.ranks, r.nodes > 1 ? " (several nodes)" : "",
             r.ranks > 1 ? "bus bandwidth" : "algorithm bandwidth (one GPU)");
    struct comm_draw cd = {&r, fp, title ? title : default_title};
    if (status == CLI_OK)
        status = draw_set(outputs, n_out, draw_comm, &cd);
    if (status == CLI_OK)
        print_written(outputs, n_out, "dat");
    rl_comm_results_release(&r);
    return status;
}

int cmd_chart(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpu", required_argument, NULL, 'g'},   {"precision", required_argument, NULL, 'p'},
        {"sparse", no_argument, NULL, 's'},      {"memory", required_argument, NULL, 'm'},
        {"kernels", required_argument, NULL, 'k'}, {"title", required_argument, NULL, 't'},
        {"torch", required_argument, NULL, 'P'},
        {"output", required_argument, NULL, 'o'}, {"json", no_argument, NULL, 'j'},
        {"bench", required_argument, NULL, 'b'},  {"library", no_argument, NULL, 'L'},
        {"label-max", required_argument, NULL, 'M'},
        {"size", required_argument, NULL, 'S'},
        {"comm", required_argument, NULL, 'c'},  {"system", required_argument, NULL, 'Y'},
        {"help", no_argument, NULL, 'h'},        {0}};
    const char *gpu = NULL, *precisions = NULL, *memory = NULL, *kernels = NULL, *torch = NULL;
    const char *title = NULL, *outputs[MAX_OUTPUTS], *bench_path = NULL;
    const char *comm = NULL, *system = NULL;
    size_t n_out = 0;
    bool sparse = false, json = false, library = false;
    int label_max = 0;
    double size_w = 0, size_h = 0;
    int c;
    static const char optstring[] = "ho:";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu = optarg; break;
        case 'p': precisions = optarg; break;
        case 's': sparse = true; break;
        case 'm': memory = optarg; break;
        case 'k': kernels = optarg; break;
        case 'P': torch = optarg; break;
        case 't': title = optarg; break;
        case 'j': json = true; break;
        case 'b': bench_path = optarg; break;
        case 'L': library = true; break;
        case 'c': comm = optarg; break;
        case 'Y': system = optarg; break;
        case 'M':
            if (cli_parse_int("chart", "--label-max", optarg, 8, 1000, &label_max))
                return CLI_USAGE;
            break;
        case 'S':
            if (rl_chart_size_parse(optarg, &size_w, &size_h))
                return cli_usage_error("chart", "--size takes single, double or WxH "
                                                "(320..4000 x 240..4000), not '%s'",
                                       optarg);
            break;
        case 'o':
            if (n_out == MAX_OUTPUTS)
                return cli_usage_error("chart", "at most %d outputs", MAX_OUTPUTS);
            outputs[n_out++] = optarg;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("chart", optstring, opts, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("chart", "unexpected argument '%s'", argv[optind]);
    if (comm) {
        if (kernels || bench_path || precisions || memory || sparse || library || json)
            return cli_usage_error("chart", "--comm draws bandwidth against message size: "
                                            "no --kernels, --bench, --precision, --memory, "
                                            "--sparse, --library or --json with it");
        if (n_out == 0)
            return cli_usage_error("chart", "-o OUT.svg|.png|.pdf is required");
        for (size_t i = 0; i < n_out; i++)
            if (rl_chart_format_from_path(outputs[i]) < 0)
                return cli_usage_error("chart", "cannot tell the format of '%s': use .svg, "
                                                ".png or .pdf", outputs[i]);
        return chart_comm(comm, gpu, system, title, outputs, n_out);
    }
    if (system)
        return cli_usage_error("chart", "--system goes with --comm");
    if (kernels && torch)
        return cli_usage_error("chart", "give --kernels or --torch, not both");
    if (!gpu && !bench_path && !torch)
        return cli_usage_error("chart", "--gpu or --bench is required");
    if (library && !bench_path)
        return cli_usage_error("chart", "--library needs --bench");
    if (n_out == 0)
        return cli_usage_error("chart", "-o OUT.svg|.png|.pdf is required");
    for (size_t i = 0; i < n_out; i++)
        if (rl_chart_format_from_path(outputs[i]) < 0)
            return cli_usage_error("chart", "cannot tell the format of '%s': use .svg, "
                                            ".png or .pdf", outputs[i]);

    if ((precisions && cli_check_precisions("chart", precisions)) ||
        (memory && cli_check_memory_levels("chart", memory)))
        return CLI_USAGE;

    char err[RL_ERRMSG_SIZE];
    /* A PyTorch profiler trace: read first, it may name the GPU. */
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    static struct rl_torch_stats torch_stats;
    char gpu_note[512] = "";
    if (torch && rl_torch_load(&g, torch, &torch_stats, err)) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        return CLI_FAIL;
    }
    if (torch && !gpu && !bench_path &&
        !(gpu = cli_torch_gpu(&torch_stats, &g, gpu_note, sizeof gpu_note))) {
        rl_trace_groups_release(&g);
        return CLI_FAIL;
    }
    static struct rl_bench_ceilings bench;
    const struct rl_bench_ceilings *b;
    const struct rl_gpu_spec *s;
    if (cli_ceiling_sources(gpu, bench_path, NULL, &bench, &b, &s)) {
        rl_trace_groups_release(&g);
        return CLI_FAIL;
    }
    const char *gpu_name = s ? s->name : b->gpu_name;

    static struct rl_ceilings ceil;
    int crc = rl_ceilings_init(&ceil, s, b, precisions, sparse, library, memory, err);
    if (crc == RL_EINVAL)
        return cli_usage_error("chart", "%s", err);
    if (crc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    struct rl_ceilings *roofs = &ceil;

    /* Intensity sweeps of the precisions drawn. */
    struct rl_chart_series series[4];
    char series_titles[4][96];
    size_t n_series = 0;
    for (int i = 0; b && i < b->n_sweeps; i++) {
        bool drawn = false;
        for (size_t k = 0; k < roofs->n_compute; k++)
            drawn |= strcmp(roofs->compute[k].name, b->sweeps[i].precision) == 0;
        if (!drawn)
            continue;
        struct rl_compute_roof d;
        rl_roof_describe(b->sweeps[i].precision, &d);
        snprintf(series_titles[n_series], sizeof series_titles[0], "%s intensity sweep",
                 d.label);
        series[n_series] = (struct rl_chart_series){series_titles[n_series],
                                                    b->sweeps[i].ai_flop_per_byte,
                                                    b->sweeps[i].tflops,
                                                    (size_t)b->sweeps[i].n,
                                                    b->sweeps[i].precision};
        n_series++;
    }

    /* Kernels: read into kernel groups, judged by the report's judge, drawn
     * by its chart writer. `chart` is `report` with only the chart written. */
    if (kernels && rl_records_load_groups(&g, kernels, err)) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        return CLI_FAIL;
    }
    static struct rl_report rep;
    int rc = rl_report_build(&rep, roofs, &g, err);
    rl_trace_groups_release(&g);
    rep.label_max = (size_t)label_max;
    rep.chart_w = size_w, rep.chart_h = size_h;
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (kernels || torch) {
        snprintf(rep.source_path, sizeof rep.source_path, "%s", kernels ? kernels : torch);
        snprintf(rep.source_kind, sizeof rep.source_kind, "%s", kernels ? "kernels" : "torch");
    }
    if (torch)
        rl_report_note(&rep, gpu_note);
    for (const char *n = rep.notes; *n;) {
        size_t len = strcspn(n, "\n");
        cli_warn("%.*s", (int)len, n);
        n += len + (n[len] == '\n');
    }
    if (warn_kernels(&rep, true) || warn_kernels(&rep, false)) {
        cli_error("out of memory");
        rl_report_release(&rep);
        return CLI_FAIL;
    }

    /* Draw. */
    char default_title[200], origins[64];
    rl_ceilings_origins(roofs, origins, sizeof origins);
    snprintf(default_title, sizeof default_title, "%s: roofline (%s ceilings%s)", gpu_name,
             origins, sparse ? ", 2:4 sparse" : "");
    struct roofline_draw rd = {&rep, roofs, title ? title : default_title, series, n_series};
    int status = draw_set(outputs, n_out, draw_roofline, &rd);
    if (status == CLI_OK && json) {
        rl_report_json(stdout, &rep, roofs);
    } else if (status == CLI_OK) {
        print_written(outputs, n_out, "roofs.dat, kernels.dat");
        if (rep.n) {
            putchar('\n');
            rl_report_table(stdout, &rep, roofs, torch ? 20 : 0);
        }
    }
    rl_report_release(&rep);
    return status;
}
