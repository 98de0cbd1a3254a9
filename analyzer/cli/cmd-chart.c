/* cmd-chart.c - `roofline chart`: draw a roofline chart with kernels placed on it. */
#define _GNU_SOURCE
#include "cli.h"

#include "../ceilings.h"
#include "../error.h"
#include "../json.h"
#include "../plot.h"
#include "../records.h"
#include "../strbuf.h"
#include "results.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: roofline chart [--gpu <gpu>] [--bench FILE] [--library] [--precision LIST]\n"
    "                      [--sparse] [--memory LIST] [--kernels FILE] [--title TEXT]\n"
    "                      [--json] -o OUT.svg|.png|.pdf [-o ...]\n"
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
    "  --kernels FILE     kernels to place: JSON list of {name, flops, bytes,\n"
    "                     time_ns} (README: Kernels file); a trace works too\n"
    "  --title TEXT       chart title\n"
    "  -o FILE            output image; repeat for several formats\n"
    "  --json             print the kernel table as JSON\n"
    "\n"
    "Each kernel is judged against the roof of its 'precision' (default: the\n"
    "first --precision given, else the highest roof drawn), measured when the\n"
    "bench file has it, else datasheet. A kernel without time_ns is drawn at\n"
    "its attainable rate as an analytic point.\n";

#define MAX_OUTPUTS 8

/* name cut to fit buf; returns buf. */
static char *shorten(const char *name, char *buf, size_t n)
{
    rl_str_shorten(buf, n, name);
    return buf;
}

int cmd_chart(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpu", required_argument, NULL, 'g'},   {"precision", required_argument, NULL, 'p'},
        {"sparse", no_argument, NULL, 's'},      {"memory", required_argument, NULL, 'm'},
        {"kernels", required_argument, NULL, 'k'}, {"title", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'}, {"json", no_argument, NULL, 'j'},
        {"bench", required_argument, NULL, 'b'},  {"library", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},        {0}};
    const char *gpu = NULL, *precisions = NULL, *memory = NULL, *kernels = NULL;
    const char *title = NULL, *outputs[MAX_OUTPUTS], *bench_path = NULL;
    size_t n_out = 0;
    bool sparse = false, json = false, library = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu = optarg; break;
        case 'p': precisions = optarg; break;
        case 's': sparse = true; break;
        case 'm': memory = optarg; break;
        case 'k': kernels = optarg; break;
        case 't': title = optarg; break;
        case 'j': json = true; break;
        case 'b': bench_path = optarg; break;
        case 'L': library = true; break;
        case 'o':
            if (n_out == MAX_OUTPUTS)
                return cli_usage_error("chart", "at most %d outputs", MAX_OUTPUTS);
            outputs[n_out++] = optarg;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_usage_error("chart", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("chart", "unexpected argument '%s'", argv[optind]);
    if (!gpu && !bench_path)
        return cli_usage_error("chart", "--gpu or --bench is required");
    if (library && !bench_path)
        return cli_usage_error("chart", "--library needs --bench");
    if (n_out == 0)
        return cli_usage_error("chart", "-o OUT.svg|.png|.pdf is required");
    for (size_t i = 0; i < n_out; i++)
        if (rl_chart_format_from_path(outputs[i]) < 0)
            return cli_usage_error("chart", "cannot tell the format of '%s': use .svg, "
                                            ".png or .pdf", outputs[i]);

    char err[RL_ERRMSG_SIZE];
    static struct rl_bench_ceilings bench;
    const struct rl_bench_ceilings *b;
    const struct rl_gpu_spec *s;
    if (cli_ceiling_sources(gpu, bench_path, NULL, &bench, &b, &s))
        return CLI_FAIL;
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

    /* Kernels. */
    struct rl_record_list recs = {0};
    if (kernels && rl_records_load(&recs, kernels, err)) {
        cli_error("%s", err);
        rl_record_list_release(&recs);
        return CLI_FAIL;
    }
    const size_t default_roof = roofs->default_roof;
    struct rl_chart_point *points = calloc(recs.n ? recs.n : 1, sizeof *points);
    struct rl_verdict *verdicts = calloc(recs.n ? recs.n : 1, sizeof *verdicts);
    int *roof_of = calloc(recs.n ? recs.n : 1, sizeof *roof_of);
    char (*labels)[48] = calloc(recs.n ? recs.n : 1, sizeof *labels);
    int status = CLI_OK;
    if (!points || !verdicts || !roof_of || !labels) {
        cli_error("out of memory");
        status = CLI_FAIL;
    }
    for (size_t i = 0; i < recs.n && status == CLI_OK; i++) {
        const struct rl_kernel_record *r = &recs.v[i];
        int ri = (int)default_roof;
        if (r->precision[0]) {
            ri = rl_ceilings_judge(roofs, r->precision, err);
            if (ri < 0) {
                cli_error("kernel '%s' in '%s': %s", r->name, kernels, err);
                status = CLI_FAIL;
                break;
            }
        }
        roof_of[i] = ri;
        if (rl_classify(&r->perf, &roofs->compute[ri], roofs->memory, roofs->n_memory,
                        &verdicts[i], err)) {
            cli_error("kernel '%s' in '%s': %s", r->name, kernels, err);
            status = CLI_FAIL;
            break;
        }
        const struct rl_verdict *v = &verdicts[i];
        struct rl_chart_point *p = &points[i];
        p->label = shorten(r->name, labels[i], sizeof labels[i]);
        p->roof = ri;
        /* x: the farthest memory level with bytes (DRAM first). */
        p->ai_flop_per_byte = NAN;
        for (int l = 0; l < RL_MEM_COUNT && isnan(p->ai_flop_per_byte); l++)
            p->ai_flop_per_byte = v->ai_flop_per_byte[l];
        if (isnan(v->achieved_tflops)) {
            p->tflops = v->attainable_tflops;
            p->origin = RL_ORIGIN_ANALYTIC;
            if (r->origin == RL_ORIGIN_MEASURED)
                cli_warn("kernel '%s' has no time: drawn at its attainable rate "
                         "(analytic)", r->name);
        } else {
            p->tflops = v->achieved_tflops;
            p->origin = r->origin;
        }
        if (!(p->ai_flop_per_byte > 0) || isinf(p->ai_flop_per_byte))
            cli_warn("kernel '%s' is not drawn: its intensity is %s", r->name,
                     isinf(p->ai_flop_per_byte) ? "infinite (zero bytes)"
                                                : "zero or unknown (zero FLOPs)");
        else if (!(p->tflops > 0))
            cli_warn("kernel '%s' is not drawn: zero FLOP/s", r->name);
    }

    /* Draw. */
    char default_title[200], origins[64];
    rl_ceilings_origins(roofs, origins, sizeof origins);
    snprintf(default_title, sizeof default_title, "%s: roofline (%s ceilings%s)", gpu_name,
             origins, sparse ? ", 2:4 sparse" : "");
    struct rl_chart chart = {title ? title : default_title,
                             roofs->compute,
                             roofs->n_compute,
                             roofs->memory,
                             roofs->n_memory,
                             points,
                             recs.n,
                             0,
                             series,
                             n_series};
    for (size_t i = 0; i < n_out && status == CLI_OK; i++) {
        status = cli_chart_status(rl_chart_render(&chart, outputs[i], err), err);
    }

    if (status == CLI_OK && json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "gpu", s ? s->id : b->gpu_name);
        cJSON *outs = cJSON_AddArrayToObject(doc, "outputs");
        for (size_t i = 0; i < n_out; i++)
            cJSON_AddItemToArray(outs, cJSON_CreateString(outputs[i]));
        cJSON *arr = cJSON_AddArrayToObject(doc, "kernels");
        for (size_t i = 0; i < recs.n; i++) {
            const struct rl_verdict *v = &verdicts[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", recs.v[i].name);
            cJSON_AddStringToObject(o, "precision", roofs->compute[roof_of[i]].name);
            cJSON_AddStringToObject(o, "roof_origin",
                                    rl_origin_name(roofs->compute[roof_of[i]].origin));
            cJSON_AddStringToObject(o, "origin", rl_origin_name(points[i].origin));
            rl_json_add_number(o, "ai_dram_flop_per_byte",
                               rl_json_round(v->ai_flop_per_byte[RL_MEM_DRAM], 6));
            rl_json_add_number(o, "achieved_tflops", rl_json_round(v->achieved_tflops, 6));
            rl_json_add_number(o, "attainable_tflops", rl_json_round(v->attainable_tflops, 6));
            rl_json_add_number(o, "pct_of_roof", rl_json_round(v->pct_of_roof, 4));
            cJSON_AddStringToObject(o, "bound", rl_bound_name(v->bound));
            if (v->bound == RL_BOUND_MEMORY)
                cJSON_AddStringToObject(o, "limiter", rl_mem_level_name(v->limiter));
            cJSON_AddItemToArray(arr, o);
        }
        status = cli_print_json(doc);
    } else if (status == CLI_OK) {
        for (size_t i = 0; i < n_out; i++) {
            char base[1024];
            snprintf(base, sizeof base, "%.*s", (int)(strrchr(outputs[i], '.') - outputs[i]),
                     outputs[i]);
            printf("wrote %s (and %s.gp, %s.roofs.dat, %s.kernels.dat)\n", outputs[i], base,
                   base, base);
        }
        if (recs.n) {
            printf("\n%-32s %-9s %10s %11s %11s %7s  %s\n", "KERNEL", "ROOF", "AI FLOP/B",
                   "TFLOP/s", "ROOF TF/s", "% ROOF", "BOUND");
            for (size_t i = 0; i < recs.n; i++) {
                const struct rl_verdict *v = &verdicts[i];
                char ai[24], ach[24], att[24], pct[24], nm[33];
                cli_format_derived(ai, sizeof ai, points[i].ai_flop_per_byte);
                cli_format_derived(ach, sizeof ach, v->achieved_tflops);
                cli_format_derived(att, sizeof att, v->attainable_tflops);
                cli_format_derived(pct, sizeof pct, v->pct_of_roof);
                printf("%-32s %-9s %10s %11s %11s %7s  %s%s%s%s\n",
                       shorten(recs.v[i].name, nm, sizeof nm), roofs->compute[roof_of[i]].name, ai,
                       ach, att, pct, rl_bound_name(v->bound),
                       v->bound == RL_BOUND_MEMORY ? " (" : "",
                       v->bound == RL_BOUND_MEMORY ? rl_mem_level_name(v->limiter) : "",
                       v->bound == RL_BOUND_MEMORY ? ")" : "");
            }
            printf("\nAI and roofs: analytic from the kernel file and the datasheet; "
                   "TFLOP/s: %s.\n", "as given in the kernel file ('-': no time)");
        }
    }
    free(points);
    free(verdicts);
    free(roof_of);
    free(labels);
    rl_record_list_release(&recs);
    return status;
}
