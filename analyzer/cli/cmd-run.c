/* cmd-run.c - `roofline run`: the main job: measure the ceilings, trace LLM decode and prefill, report; analytic without a GPU. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/device/device.h"
#include "analyzer/report/html.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/outset.h"
#include "kernels/costs.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: roofline run [-o DIR] [--gpu GPU] [--device N] [--tokens N] [--no-gpu]\n"
    "\n"
    "The first thing to run. On a GPU: `bench --quick` (the measured ceilings),\n"
    "`trace --builtin decode` and `--builtin prefill` (one Llama-3-8B layer:\n"
    "batch-1 decode at context N, prefill of N tokens), then `report` on both\n"
    "traces against the measured ceilings, all into DIR.\n"
    "Without a GPU (or with --no-gpu): the datasheet roofline of --gpu with the\n"
    "analytic FLOPs and bytes of the same decode and prefill steps\n"
    "(kernels/README.md), every figure labelled datasheet or analytic.\n"
    "\n"
    "  -o DIR       output folder (default roofline-run)\n"
    "  --gpu GPU    datasheet to use without a GPU (default h200), or to set\n"
    "               beside the measured ceilings\n"
    "  --device N   CUDA device (default 0)\n"
    "  --tokens N   decode context and prefill length (default 2048)\n"
    "  --no-gpu     the analytic report even where a GPU is present\n";

/* The decode and prefill steps as an analytic kernels file. */
static int write_plan(const char *path, int tokens)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_atomic_file f;
    if (rl_atomic_open(&f, path, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    fputs("{\n  \"schema_version\": 1,\n  \"$comment\": \"analytic: one Llama-3-8B layer, "
          "formulas in kernels/README.md\",\n  \"kernels\": [\n",
          f.fp);
    static const char *const phases[] = {"decode", "prefill"};
    bool first = true;
    for (int p = 0; p < 2; p++) {
        struct rl_plan_step steps[32];
        int n = rl_layer_plan(phases[p], tokens, steps, 32);
        for (int i = 0; i < n && i < 32; i++) {
            fprintf(f.fp, "%s    {\"name\": \"%s\", \"flops\": %.17g, \"bytes\": %.17g, "
                          "\"precision\": \"%s\", \"origin\": \"analytic\"}",
                    first ? "" : ",\n", steps[i].label, steps[i].cost.flops, steps[i].cost.bytes,
                    steps[i].cost.precision);
            first = false;
        }
    }
    fputs("\n  ]\n}\n", f.fp);
    if (rl_atomic_commit(&f, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* What run knows about how its kernels were made, for report.html. */
struct run_facts {
    struct rl_html_fact v[24];
    size_t n;
    char text[24][160];
};

static void fact(struct run_facts *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fact(struct run_facts *f, const char *key, const char *fmt, ...)
{
    if (f->n == sizeof f->v / sizeof *f->v)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text[f->n], sizeof f->text[f->n], fmt, ap);
    va_end(ap);
    f->v[f->n] = (struct rl_html_fact){key, f->text[f->n]};
    f->n++;
}

static void run_facts(struct run_facts *f, const struct rl_device_info *dev, const char *why,
                      const char *gpu, int tokens)
{
    f->n = 0;
    if (!dev) {
        fact(f, "run", "analytic: no GPU measured (%s)", why);
        fact(f, "datasheet", "%s", gpu);
    } else {
        fact(f, "run", "measured: bench --quick, trace --builtin decode and prefill on GPU %d",
             dev->index);
        fact(f, "device", "%s", dev->name);
        if (dev->uuid[0] || dev->pci_bus_id[0])
            fact(f, "device id", "%s%s%s", dev->uuid, dev->uuid[0] && dev->pci_bus_id[0] ? ", PCI " : "",
                 dev->pci_bus_id);
        fact(f, "compute capability", "%d.%d, %d SMs", dev->cc_major, dev->cc_minor,
             dev->sm_count);
        fact(f, "clocks (maximum)", "SM %.0f MHz, memory %.0f MHz, %d-bit bus",
             dev->sm_clock_max_mhz, dev->mem_clock_max_mhz, dev->mem_bus_bits);
        fact(f, "memory", "%.4g GB, L2 %.4g MB, shared memory per SM %.4g KB",
             dev->mem_bytes / 1e9, dev->l2_bytes / 1e6, dev->smem_per_sm_bytes / 1e3);
        fact(f, "driver", "%s%sCUDA %d.%d (runtime %d.%d)", dev->driver_version,
             dev->driver_version[0] ? ", " : "", dev->cuda_driver_version / 1000,
             dev->cuda_driver_version % 1000 / 10, dev->cuda_runtime_version / 1000,
             dev->cuda_runtime_version % 1000 / 10);
        if (!isnan(dev->power_limit_w))
            fact(f, "power limit", "%.0f W (enforced)", dev->power_limit_w);
        if (dev->build[0])
            fact(f, "CUDA build", "%s", dev->build);
        if (gpu)
            fact(f, "datasheet", "%s", gpu);
    }
    fact(f, "workload", "one Llama-3-8B layer: decode at batch 1 and context %d, prefill of %d "
                        "tokens",
         tokens, tokens);
}

static int analytic(const char *dir, const char *gpu, int tokens, const struct rl_outset *set,
                    const struct run_facts *facts)
{
    char plan[4096];
    snprintf(plan, sizeof plan, "%s/kernels-analytic.json", dir);
    if (write_plan(plan, tokens))
        return CLI_FAIL;
    struct cli_report_opts o = {.kernels = plan, .gpu = gpu, .dir = dir, .set = set,
                                .formats = "svg,png", .rows = 0, .tensor_factor = NAN,
                                .facts = facts->v, .n_facts = facts->n,
                                .no_sentences = true};
    return cli_report_run(&o);
}

/* Run another command of this CLI. */
static int sub(int (*cmd)(int, char **), const char *const *args)
{
    char *argv[24];
    int argc = 0;
    for (; args[argc] && argc < 23; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    printf("\n== roofline");
    for (int i = 0; i < argc; i++) {
        char shown[4096];
        snprintf(shown, sizeof shown, "%s", argv[i]);
        cli_unstage(shown, sizeof shown);
        printf(" %s", shown);
    }
    printf("\n");
    fflush(stdout);
    return cmd(argc, argv);
}

/* On the GPU: bench, the two traces and the report, into dir (a stage). */
static int measured(const char *dir, const char *gpu, const char *device, int tokens,
                    const struct rl_outset *set, const struct run_facts *facts)
{
    char bench[4096], dec[4096], pre[4096], tok[16];
    snprintf(bench, sizeof bench, "%s/bench.json", dir);
    snprintf(dec, sizeof dec, "%s/trace-decode.json", dir);
    snprintf(pre, sizeof pre, "%s/trace-prefill.json", dir);
    snprintf(tok, sizeof tok, "%d", tokens);
    const char *b_args[] = {"bench", "--quick", "--device", device, "-o", bench, NULL};
    if (sub(cmd_bench, b_args) != CLI_OK)
        return CLI_FAIL;
    const char *d_args[] = {"trace", "--builtin", "decode", "--tokens", tok,
                            "--device", device, "-o", dec, NULL};
    const char *p_args[] = {"trace", "--builtin", "prefill", "--tokens", tok,
                            "--device", device, "-o", pre, NULL};
    if (sub(cmd_trace, d_args) != CLI_OK || sub(cmd_trace, p_args) != CLI_OK)
        return CLI_FAIL;
    char shown[4 * 4096 + 64];
    snprintf(shown, sizeof shown, "--trace %s --trace %s --bench %s -o %s", dec, pre, bench,
             dir);
    cli_unstage(shown, sizeof shown);
    printf("\n== roofline report %s\n", shown);
    struct cli_report_opts o = {.traces = {dec, pre}, .n_traces = 2, .bench = bench, .gpu = gpu,
                                .dir = dir, .set = set, .formats = "svg,png", .rows = -1,
                                .tensor_factor = NAN, .no_sentences = true,
                                .facts = facts->v, .n_facts = facts->n};
    return cli_report_run(&o);
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu", required_argument, NULL, 'g'},
                                         {"device", required_argument, NULL, 'd'},
                                         {"tokens", required_argument, NULL, 't'},
                                         {"no-gpu", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *dir = "roofline-run", *gpu = NULL, *device = "0";
    int tokens = 2048, device_index = 0;
    bool no_gpu = false;
    int c;
    static const char optstring[] = "ho:";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case 'g': gpu = optarg; break;
        case 'd':
            if (cli_parse_int("run", "--device", optarg, 0, CLI_MAX_DEVICE, &device_index))
                return CLI_USAGE;
            device = optarg;
            break;
        case 'n': no_gpu = true; break;
        case 't':
            if (cli_parse_int("run", "--tokens", optarg, 16, 65536, &tokens))
                return CLI_USAGE;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("run", optstring, opts, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
    /* Everything that can be checked, before the GPU and before any file. */
    const struct rl_gpu_spec *asked = gpu ? cli_find_gpu(gpu) : NULL;
    if (gpu && !asked)
        return CLI_FAIL;
    char err[RL_ERRMSG_SIZE] = "--no-gpu";
    /* A datasheet CUDA cannot run (an AMD Instinct): the analytic report
     * only, whatever GPU is present, and its first line says why. */
    if (asked && strcmp(asked->vendor, "NVIDIA") != 0) {
        no_gpu = true;
        snprintf(err, sizeof err, "%s: bench and trace need an NVIDIA GPU with CUDA",
                 asked->name);
    }
    const struct rl_device_api *api = NULL;
    struct rl_device_info dev;
    bool have_gpu = !no_gpu && rl_device_open(&api, err) == RL_OK &&
                    api->query(device_index, &dev, err) == RL_OK;
    /* Every file of the run is one set: the folder appears whole or not at all. */
    struct rl_outset set = {0};
    const char *stage;
    char why[RL_ERRMSG_SIZE];
    if (rl_outset_folder(&set, dir, "run", &stage, why)) {
        cli_error("%s", why);
        return CLI_FAIL;
    }
    cli_outset_show(&set);
    int rc;
    static struct run_facts facts;
    if (!have_gpu) {
        const char *g = gpu ? gpu : "h200";
        /* The short line first; why there is no GPU after it. */
        printf("roofline run: no GPU here: the %s datasheet roofline with one Llama-3-8B layer "
               "(analytic)\n  why: %s\n  the layer: decode at batch 1 and prefill of %d tokens\n\n",
               g, err, tokens);
        run_facts(&facts, NULL, err, g, tokens);
        rc = analytic(stage, g, tokens, &set, &facts);
    } else {
        run_facts(&facts, &dev, NULL, gpu, tokens);
        rc = measured(stage, gpu, device, tokens, &set, &facts);
    }
    if (rc == CLI_OK && rl_outset_commit(&set, why)) {
        cli_error("%s", why);
        rc = CLI_FAIL;
    }
    rl_outset_abort(&set);
    cli_outset_show(NULL);
    return rc;
}
