/* cmd-ridge.c - `roofline ridge`: compute roof, memory roof and their ridge point. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <getopt.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
    "usage: roofline ridge [--gpu] <gpu> [--precision P] [--sparse]\n"
    "                      [--memory hbm|l2|l1] [--json]\n"
    "\n"
    "Print the compute ceiling, the memory ceiling and their ridge point\n"
    "(peak / bandwidth, FLOP/byte): kernels left of it are memory-bound, right\n"
    "of it compute-bound. Without --precision, one row per precision the GPU has.\n"
    "\n"
    "  --gpu G          id, name or spec file (see 'roofline gpus')\n"
    "  --precision P    fp64, fp32 (CUDA cores); fp16-cuda, bf16-cuda (CUDA-core\n"
    "                   half precision); fp64-tc, tf32, fp16, bf16, fp8, int8, fp4,\n"
    "                   fp6, fp16-acc16, fp8-acc16 (Tensor Cores)\n"
    "  --sparse         Tensor Core rate with 2:4 sparsity (default: dense)\n"
    "  --memory LEVEL   hbm (= dram, default), l2, l1 (= shared)\n"
    "  --json           machine-readable output\n"
    "\n"
    "Peaks and bandwidths are datasheet values (or analytic where derived); the\n"
    "ridge is analytic. JSON keys: peak_tflops, bandwidth_gbs, ridge_flop_per_byte.\n";

/* Add one ceiling pair to o (a new object when o is NULL). */
static cJSON *ridge_json(cJSON *o, const struct rl_compute_roof *c,
                         const struct rl_memory_roof *m, double ridge)
{
    if (!o)
        o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "precision", c->name);
    cJSON_AddStringToObject(o, "ceiling", c->label);
    cJSON_AddStringToObject(o, "unit", c->unit == RL_UNIT_CUDA ? "cuda_core" : "tensor_core");
    cJSON_AddBoolToObject(o, "sparse", c->sparse);
    cJSON_AddNumberToObject(o, "peak_tflops", c->peak_tflops);
    cJSON_AddStringToObject(o, "peak_unit", c->ops ? "TOPS" : "TFLOP/s");
    cJSON_AddStringToObject(o, "peak_origin", rl_origin_name(c->origin));
    cJSON_AddStringToObject(o, "memory", rl_mem_level_name(m->level));
    cJSON_AddStringToObject(o, "memory_label", m->label);
    cJSON_AddNumberToObject(o, "bandwidth_gbs", m->bandwidth_gbs);
    cJSON_AddStringToObject(o, "bandwidth_origin", rl_origin_name(m->origin));
    rl_json_add_number(o, "ridge_flop_per_byte", rl_json_round(ridge, 6));
    cJSON_AddStringToObject(o, "ridge_origin", "analytic");
    return o;
}

int cmd_ridge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpu", required_argument, NULL, 'g'},  {"precision", required_argument, NULL, 'p'},
        {"sparse", no_argument, NULL, 's'},     {"memory", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'j'},       {"help", no_argument, NULL, 'h'},
        {0}};
    const char *gpu = NULL, *precision = NULL, *memory = "hbm";
    bool sparse = false, json = false;
    int c;
    static const char optstring[] = "h";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu = optarg; break;
        case 'p': precision = optarg; break;
        case 's': sparse = true; break;
        case 'm': memory = optarg; break;
        case 'j': json = true; break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("ridge", optstring, opts, argv);
        }
    }
    /* `ridge h100` as well as `ridge --gpu h100`. */
    if (optind < argc && !gpu)
        gpu = argv[optind++];
    if (optind < argc)
        return cli_usage_error("ridge", "unexpected argument '%s'", argv[optind]);
    if (!gpu)
        return cli_usage_error("ridge", "name a GPU: roofline ridge GPU (or --gpu GPU)");
    if (strchr(memory, ','))
        return cli_usage_error("ridge", "--memory takes one level, not '%s'", memory);
    if (cli_check_memory_levels("ridge", memory) ||
        (precision && cli_check_precisions("ridge", precision)))
        return CLI_USAGE;
    if (precision && strchr(precision, ','))
        return cli_usage_error("ridge", "--precision takes one precision, not '%s'", precision);
    int level = rl_mem_level_parse(memory);
    const struct rl_gpu_spec *s = cli_find_gpu(gpu);
    if (!s)
        return CLI_FAIL;
    char err[RL_ERRMSG_SIZE];
    struct rl_memory_roof m;
    if (rl_memory_roof_from_spec(s, (enum rl_mem_level)level, &m, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    char bw[32], peak[32], ridge_s[32];
    cli_format_exact(bw, sizeof bw, m.bandwidth_gbs);

    if (precision) {
        struct rl_compute_roof r;
        int rc = rl_roof_from_spec(s, precision, sparse, &r, err);
        if (rc) {
            cli_error("%s", err);
            return rc == RL_ENOTFOUND || rc == RL_EINVAL ? CLI_USAGE : CLI_FAIL;
        }
        double ridge = rl_ridge_flop_per_byte(r.peak_tflops, m.bandwidth_gbs);
        if (json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "schema_version", 1);
            cJSON_AddStringToObject(o, "gpu", s->id);
            cJSON_AddStringToObject(o, "gpu_name", s->name);
            return cli_print_json(ridge_json(o, &r, &m, ridge));
        }
        cli_format_exact(peak, sizeof peak, r.peak_tflops);
        cli_format_derived(ridge_s, sizeof ridge_s, ridge);
        printf("%-13s %s (%s)\n", "GPU", s->name, s->id);
        printf("%-13s %s: %s %s [%s]\n", "compute roof", r.label, peak,
               r.ops ? "TOPS" : "TFLOP/s", rl_origin_name(r.origin));
        printf("%-13s %s: %s GB/s [%s]\n", "memory roof", m.label, bw,
               rl_origin_name(m.origin));
        printf("%-13s %s FLOP/byte [analytic: peak / bandwidth]\n", "ridge point", ridge_s);
        printf("\nKernels below %s FLOP/byte are bound by %s bandwidth; above it, by the\n"
               "%s rate.\n", ridge_s, m.label, r.label);
        return CLI_OK;
    }

    cJSON *doc = NULL, *arr = NULL;
    if (json) {
        doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "gpu", s->id);
        cJSON_AddStringToObject(doc, "gpu_name", s->name);
        arr = cJSON_AddArrayToObject(doc, "ridges");
    } else {
        printf("%s (%s): memory roof %s %s GB/s [%s]%s\n\n", s->name, s->id, m.label, bw,
               rl_origin_name(m.origin),
               !sparse ? "" : strcasecmp(s->vendor, "AMD") == 0 ? ", Matrix Cores with 2:4 sparsity"
                                                             : ", Tensor Cores with 2:4 sparsity");
        printf("%-11s %-34s %10s %-8s %-10s %s\n", "PRECISION", "COMPUTE ROOF", "PEAK", "UNIT",
               "ORIGIN", "RIDGE FLOP/B");
    }
    for (const char *const *n = rl_roof_names(); *n; n++) {
        struct rl_compute_roof r;
        if (rl_roof_from_spec(s, *n, sparse, &r, NULL))
            continue; /* the GPU lacks it, or no sparse form */
        double ridge = rl_ridge_flop_per_byte(r.peak_tflops, m.bandwidth_gbs);
        if (json) {
            cJSON_AddItemToArray(arr, ridge_json(NULL, &r, &m, ridge));
            continue;
        }
        cli_format_exact(peak, sizeof peak, r.peak_tflops);
        cli_format_derived(ridge_s, sizeof ridge_s, ridge);
        printf("%-11s %-34s %10s %-8s %-10s %s\n", r.name, r.label, peak,
               r.ops ? "TOPS" : "TFLOP/s", rl_origin_name(r.origin), ridge_s);
    }
    if (json)
        return cli_print_json(doc);
    printf("\nRidge = peak / bandwidth (analytic). Left of it: memory-bound.\n");
    return CLI_OK;
}
