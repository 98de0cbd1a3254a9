/* cmd-gpus.c - `roofline gpus`: list the datasheet database, or show one GPU. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/util/json.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

static const char usage_text[] =
    "usage: roofline gpus [--json]\n"
    "       roofline gpus show <gpu> [--json]\n"
    "\n"
    "List the GPUs of the datasheet database (data/gpus/), or every figure of one\n"
    "GPU with the document it came from. <gpu> is an id (h100-sxm), a name\n"
    "(\"H100 SXM5\", \"NVIDIA H200\", the name the CUDA driver reports) or a spec\n"
    "file of your own (my-gpu.json, checked against data/gpus/schema.json).\n"
    "\n"
    "  --json    machine-readable output\n"
    "  -h        this help\n"
    "\n"
    "Tensor Core columns are dense (no sparsity). All figures are datasheet values\n"
    "unless marked analytic (derived from other datasheet figures).\n";

/* Is field i one to hide when null (optional keys, sparse FP64)? */
static bool hide_when_null(const char *key)
{
    return strstr(key, "fp4_") || strstr(key, "fp16acc") ||
           strcmp(key, "tensor_core_sparse.fp64_tflops") == 0;
}

static void add_json_peak(cJSON *o, const char *key, double v)
{
    rl_json_add_number(o, key, v);
}

static int list_gpus(const struct rl_gpudb *db, bool json)
{
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "origin", "datasheet");
        cJSON *arr = cJSON_AddArrayToObject(doc, "gpus");
        for (size_t i = 0; i < db->n; i++) {
            const struct rl_gpu_spec *s = &db->gpus[i];
            const double *cuda = s->peak_tflops[RL_PEAKS_CUDA];
            const double *dense = s->peak_tflops[RL_PEAKS_TENSOR_DENSE];
            cJSON *g = cJSON_CreateObject();
            cJSON_AddStringToObject(g, "id", s->id);
            cJSON_AddStringToObject(g, "name", s->name);
            cJSON_AddStringToObject(g, "architecture", s->architecture);
            cJSON_AddStringToObject(g, "chip", s->chip);
            cJSON_AddStringToObject(g, "compute_capability", s->compute_capability);
            cJSON_AddNumberToObject(g, "sm_count", s->sm_count);
            cJSON_AddStringToObject(g, "memory_type", s->memory_type);
            cJSON_AddNumberToObject(g, "memory_size_gb", s->memory_size_gb);
            cJSON_AddNumberToObject(g, "memory_bandwidth_gbs", s->memory_bandwidth_gbs);
            add_json_peak(g, "fp64_tflops", cuda[RL_PREC_FP64]);
            add_json_peak(g, "fp32_tflops", cuda[RL_PREC_FP32]);
            add_json_peak(g, "tf32_dense_tflops", dense[RL_PREC_TF32]);
            add_json_peak(g, "bf16_dense_tflops", dense[RL_PREC_BF16]);
            add_json_peak(g, "fp8_dense_tflops", dense[RL_PREC_FP8]);
            cJSON_AddItemToArray(arr, g);
        }
        return cli_print_json(doc);
    }
    printf("%-15s %-30s %-13s %4s %-14s %7s %6s %6s %7s %7s %7s\n", "ID", "NAME", "ARCH",
           "SMS", "MEMORY", "GB/s", "FP64", "FP32", "TF32", "BF16", "FP8");
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_gpu_spec *s = &db->gpus[i];
        const double *cuda = s->peak_tflops[RL_PEAKS_CUDA];
        const double *dense = s->peak_tflops[RL_PEAKS_TENSOR_DENSE];
        char mem[48], v[6][24];
        char size[16];
        cli_format_exact(size, sizeof size, s->memory_size_gb);
        snprintf(mem, sizeof mem, "%s GB %s", size, s->memory_type);
        cli_format_exact(v[0], sizeof v[0], s->memory_bandwidth_gbs);
        cli_format_exact(v[1], sizeof v[1], cuda[RL_PREC_FP64]);
        cli_format_exact(v[2], sizeof v[2], cuda[RL_PREC_FP32]);
        cli_format_exact(v[3], sizeof v[3], dense[RL_PREC_TF32]);
        cli_format_exact(v[4], sizeof v[4], dense[RL_PREC_BF16]);
        cli_format_exact(v[5], sizeof v[5], dense[RL_PREC_FP8]);
        printf("%-15s %-30.30s %-13s %4d %-14s %7s %6s %6s %7s %7s %7s\n", s->id, s->name,
               s->architecture, s->sm_count, mem, v[0], v[1], v[2], v[3], v[4], v[5]);
    }
    printf("\nTFLOP/s, datasheet. FP64/FP32 on CUDA cores; TF32/BF16/FP8 on Tensor Cores,\n"
           "dense ('-': the GPU has no such rate). 'roofline gpus show <id>' for the rest.\n");
    return CLI_OK;
}

static int show_gpu(const struct rl_gpu_spec *s, bool json)
{
    size_t nf;
    const struct rl_spec_field *f = rl_spec_fields(&nf);
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "id", s->id);
        cJSON_AddStringToObject(doc, "name", s->name);
        cJSON_AddStringToObject(doc, "architecture", s->architecture);
        cJSON_AddStringToObject(doc, "chip", s->chip);
        cJSON_AddStringToObject(doc, "form_factor", s->form_factor);
        cJSON_AddStringToObject(doc, "compute_capability", s->compute_capability);
        cJSON_AddStringToObject(doc, "memory_type", s->memory_type);
        cJSON_AddStringToObject(doc, "host_link", s->host_link);
        if (s->gpu_link[0])
            cJSON_AddStringToObject(doc, "gpu_link", s->gpu_link);
        else
            cJSON_AddNullToObject(doc, "gpu_link");
        if (s->variant[0])
            cJSON_AddStringToObject(doc, "variant", s->variant);
        cJSON *al = cJSON_AddArrayToObject(doc, "aliases");
        for (int i = 0; i < s->n_aliases; i++)
            cJSON_AddItemToArray(al, cJSON_CreateString(s->aliases[i]));
        cJSON *vals = cJSON_AddObjectToObject(doc, "values");
        for (size_t i = 0; i < nf; i++) {
            double v = rl_gpu_spec_field_value(s, i);
            if (isnan(v) && hide_when_null(f[i].key))
                continue;
            cJSON *o = cJSON_AddObjectToObject(vals, f[i].key);
            rl_json_add_number(o, "value", v);
            cJSON_AddStringToObject(o, "unit", f[i].unit);
            if (!isnan(v)) {
                cJSON_AddStringToObject(o, "origin",
                                        rl_origin_name(rl_gpu_spec_field_origin(s, i)));
                cJSON_AddStringToObject(o, "source", s->sources[s->source_of[i]].id);
            }
        }
        cJSON *src = cJSON_AddObjectToObject(doc, "sources");
        for (int i = 0; i < s->n_sources; i++) {
            cJSON *o = cJSON_AddObjectToObject(src, s->sources[i].id);
            cJSON_AddStringToObject(o, "kind", s->sources[i].kind);
            cJSON_AddStringToObject(o, "title", s->sources[i].title);
            if (s->sources[i].url[0])
                cJSON_AddStringToObject(o, "url", s->sources[i].url);
            if (s->sources[i].derivation[0])
                cJSON_AddStringToObject(o, "derivation", s->sources[i].derivation);
        }
        return cli_print_json(doc);
    }
    char size[16];
    cli_format_exact(size, sizeof size, s->memory_size_gb);
    printf("%s: %s\n", s->id, s->name);
    printf("  %-20s %s (%s), compute capability %s, %s\n", "architecture",
           s->architecture, s->chip, s->compute_capability, s->form_factor);
    printf("  %-20s %s GB %s\n", "memory", size, s->memory_type);
    printf("  %-20s %s\n", "host link", s->host_link);
    printf("  %-20s %s\n", "GPU link", s->gpu_link[0] ? s->gpu_link : "none");
    if (s->variant[0])
        printf("  %-20s %s\n", "variant", s->variant);
    printf("  %-20s", "aliases");
    for (int i = 0; i < s->n_aliases; i++)
        printf("%s\"%s\"", i ? ", " : " ", s->aliases[i]);
    printf("\n\n  %-36s %10s  %-8s %-10s %s\n", "FIGURE", "VALUE", "UNIT", "ORIGIN",
           "SOURCE");
    for (size_t i = 0; i < nf; i++) {
        double v = rl_gpu_spec_field_value(s, i);
        if (isnan(v) && hide_when_null(f[i].key))
            continue;
        char val[32];
        cli_format_exact(val, sizeof val, v);
        printf("  %-36s %10s  %-8s %-10s %s\n", f[i].label, val, f[i].unit,
               isnan(v) ? "" : rl_origin_name(rl_gpu_spec_field_origin(s, i)),
               isnan(v) ? "none / not published" : s->sources[s->source_of[i]].id);
    }
    printf("\n  Sources:\n");
    for (int i = 0; i < s->n_sources; i++) {
        const struct rl_spec_source *src = &s->sources[i];
        printf("  %-5s %-12s %s\n", src->id, src->kind, src->title);
        if (src->url[0])
            printf("  %-5s %-12s %s\n", "", "", src->url);
        if (src->derivation[0])
            printf("  %-5s %-12s %s\n", "", "", src->derivation);
    }
    if (s->notes[0])
        printf("\n  Notes: %s\n", s->notes);
    return CLI_OK;
}

int cmd_gpus(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0}};
    bool json = false;
    int c;
    static const char optstring[] = "h";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return CLI_OK;
        default: return cli_option_error("gpus", optstring, opts, argv);
        }
    }
    int rest = argc - optind;
    if (rest == 0) {
        const struct rl_gpudb *db = cli_gpudb();
        return db ? list_gpus(db, json) : CLI_FAIL;
    }
    if (strcmp(argv[optind], "show") != 0)
        return cli_usage_error("gpus", "unknown subcommand '%s' (expected 'show')",
                               argv[optind]);
    if (rest != 2)
        return cli_usage_error("gpus", "'show' takes one GPU");
    const struct rl_gpu_spec *s = cli_find_gpu(argv[optind + 1]);
    return s ? show_gpu(s, json) : CLI_FAIL;
}
