/* cmd-llm-plan.c - `roofline llm plan`: every TP x PP x DP (x EP) layout of N GPUs that holds a model, ranked by predicted step time, with what bounds each. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"
#include "analyzer/cli/cmd-llm.h"

#include "analyzer/comm/results.h"
#include "analyzer/comm/system.h"
#include "analyzer/llm/plan.h"
#include "analyzer/util/error.h"
#include "analyzer/util/numtext.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/outset.h"
#include "analyzer/util/paths.h"
#include "analyzer/util/strbuf.h"
#include "plots/plot.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: roofline llm plan --model M --gpus N [--gpu G | --system S] [--bench FILE]\n"
    "                         [--train [--recompute [selective|full]] [--zero S]\n"
    "                          [--sequence-parallel] [--virtual-stages V] [--overlap O]\n"
    "                          [--efficiency E] [--unfused-attention]] [--prefill]\n"
    "                         [--batch B] [--seq S] [--precision P] [--kv-precision P]\n"
    "                         [--comm FILE] [--nic-gbps R [--nics-per-node K]] [--top K]\n"
    "                         [--json] [-o DIR]\n"
    "\n"
    "Enumerate the layouts of N GPUs, TP x PP x DP (x EP for a mixture of experts)\n"
    "= N with TP inside a node, that hold the model; predict each one's step\n"
    "(`roofline llm` on that layout: the roofline time of one GPU's operators, the\n"
    "collectives of the split on the collective model, the pipeline bubble), rank\n"
    "them by tokens/s and print the best few with what bounds them and their\n"
    "memory per GPU. Every figure is analytic: the roofline's bound, or with\n"
    "--efficiency E (training) a prediction at E of every roof.\n"
    "\n"
    "  --model M          a model of data/models, a Hugging Face config.json or a\n"
    "                     folder holding one\n"
    "  --gpus N           GPUs in all\n"
    "  --gpu G            datasheet (default h200, or the bench file's GPU)\n"
    "  --bench FILE       measured ceilings from `roofline bench`\n"
    "  --train            plan a training step (forward, backward, optimizer); else\n"
    "                     a decode step (--prefill: a prefill)\n"
    "  --recompute [R]    training: activation recomputation, full (alone) or\n"
    "                     selective (the attention core only; Korthikanti et al.)\n"
    "  --sequence-parallel  training: Megatron's sequence parallelism over TP\n"
    "  --virtual-stages V training: V model chunks per stage (interleaved 1F1B) on\n"
    "                     the splits whose stages take them evenly\n"
    "  --overlap O        training: collectives hidden behind compute: none, dp\n"
    "                     (default: DDP's, FSDP's, Megatron-Core's), tp, dp,tp\n"
    "  --efficiency E     training: predict at E of every roof (compute, DRAM,\n"
    "                     links): 0.75 predicts Korthikanti et al.'s A100 runs\n"
    "                     within 2.8% (docs/llm.md); without it, the bound\n"
    "  --unfused-attention  training: attention scores through DRAM (Megatron-LM\n"
    "                     before FlashAttention)\n"
    "  --zero S           training: ZeRO stage 0 (default), 1, 2, 3\n"
    "  --batch B          sequences per step over all GPUs (default 64; training 512)\n"
    "  --seq S            context (decode) or sequence length (default 2048)\n"
    "  --precision P      bf16, fp16, fp8, fp8-block, w8a8, w4a16, mxfp4, nvfp4; default\n"
    "                     the format config.json stores (quantization_config), else bf16\n"
    "  --kv-precision P   bf16 (default), fp16, fp8\n"
    "  --system S         the GPUs are a system's of data/systems (dgx-h100, gb200-nvl72,\n"
    "                     ...): its NVLink domain (TP within it), nodes and NICs\n"
    "  --comm FILE        measured collectives (`roofline comm --measure`): groups of\n"
    "                     the GPUs and nodes measured timed on them\n"
    "  --nic-gbps R       between nodes: NICs of R Gb/s, --nics-per-node K (default\n"
    "                     one per GPU); without --system, needed past a node (8)\n"
    "  --top K            layouts printed (default 5; the JSON has every one)\n"
    "  --json             JSON instead of the table\n"
    "  -o DIR             also write DIR/plan.json and DIR/llm-plan.svg (each\n"
    "                     candidate's step split into compute, memory,\n"
    "                     communication and bubble, and its memory per GPU)\n";

struct plan_run {
    struct rl_llm_model m;
    struct rl_llm_config cfg;
    struct rl_llm_plan_request req;
    struct rl_ceilings c;
    struct rl_llm_net net;
    struct rl_llm_capacity cap;
    struct rl_llm_plan plan;
    int top;
    bool precision_given;          /* --precision (else the config's own format) */
    char dequantized[256];         /* why the stored format is read as BF16; "" not */
    int min_gpus;                  /* the fewest GPUs that hold it; 0 none up to LLM_MAX_GPUS */
    struct rl_llm_layout min_layout;
};

static const char *phase_name(enum rl_llm_phase p)
{
    return p == RL_LLM_DECODE ? "decode" : p == RL_LLM_PREFILL ? "prefill" : "training";
}

static void layout_name(const struct rl_llm_layout *l, char *b, size_t n, bool ep)
{
    if (ep)
        snprintf(b, n, "%dx%dx%dx%d", l->tp, l->pp, l->dp, l->ep);
    else
        snprintf(b, n, "%dx%dx%d", l->tp, l->pp, l->dp);
}

static void print_plan(const struct plan_run *p)
{
    const bool moe = p->m.experts > 1;
    char what[96] = "analytic";
    if (p->req.phase == RL_LLM_TRAIN)
        snprintf(what, sizeof what, "%s",
                 p->req.efficiency > 0 && p->req.efficiency < 1
                     ? "analytic prediction: every roof at the --efficiency given"
                     : "analytic: the roofline's bound");
    printf("%s on %d x %s: %s, batch %d, sequences of %d (%s)\n", p->m.name, p->req.gpus,
           p->c.gpu_name, phase_name(p->req.phase), p->req.batch, p->req.seq, what);
    if (p->req.phase == RL_LLM_TRAIN) {
        struct rl_llm_layout tl = RL_LLM_LAYOUT_ONE;
        tl.recompute = p->req.recompute, tl.seq_parallel = p->req.seq_parallel;
        tl.virtual_stages = p->req.virtual_stages, tl.overlap = p->req.overlap;
        tl.unfused_attention = p->req.unfused_attention;
        char tr[160];
        llm_train_layout_text(tr, sizeof tr, &tl);
        printf("training%s%s", tr, p->req.efficiency > 0 && p->req.efficiency < 1 ? "" : "\n");
        if (p->req.efficiency > 0 && p->req.efficiency < 1)
            printf(", efficiency %.3g (--efficiency)\n", p->req.efficiency);
    }
    llm_print_model_notes(&p->m, &p->cfg, p->precision_given, p->dequantized);
    printf("%zu layout%s of %d GPU%s (TP x PP x DP%s, TP within %d), %zu fit in %.2f GB per "
           "GPU (%.2f GB less a %.2f GB reserve)\n\n",
           p->plan.n, p->plan.n == 1 ? "" : "s", p->req.gpus, p->req.gpus == 1 ? "" : "s",
           moe ? " x EP" : "",
           p->req.max_tp, p->plan.n_fit, p->cap.usable_bytes / 1e9,
           p->cap.gpu_memory_bytes / 1e9, p->cap.reserve_bytes / 1e9);
    if (p->plan.n_skipped)
        printf("%zu more layout%s left out: %s\n\n", p->plan.n_skipped,
               p->plan.n_skipped == 1 ? "" : "s", p->plan.skipped_why);
    printf("%4s %-12s %5s %10s %12s %9s %9s %9s %9s %9s %7s  %s\n", "RANK",
           moe ? "TPxPPxDPxEP" : "TPxPPxDP", "M", "STEP ms", "TOKENS/s", "MEM GB", "COMPUTE",
           "MEMORY", "COMM", "BUBBLE", "TFLOP/s", "BOUND");
    size_t shown = 0;
    for (size_t i = 0; i < p->plan.n_fit && shown < (size_t)p->top; i++, shown++) {
        const struct rl_llm_candidate *k = &p->plan.c[i];
        const struct rl_llm_step *s = &k->step;
        char name[48], bound[96];
        layout_name(&s->layout, name, sizeof name, moe);
        rl_llm_step_bound_text(bound, sizeof bound, s, &p->c);
        printf("%4zu %-12s %5d %10s %12s %9.2f %8.1f%% %8.1f%% %8.1f%% %8.1f%% %7s  %s\n",
               i + 1, name, s->layout.microbatches, rl_num(s->time_ns / 1e6, 4),
               rl_num(k->tokens_per_s, 4), k->mem.total_bytes / 1e9,
               100 * s->compute_ns / s->time_ns, 100 * s->memory_ns / s->time_ns,
               100 * s->comm_ns / s->time_ns, 100 * s->bubble_ns / s->time_ns,
               rl_num(s->flops_per_gpu / s->time_ns / 1e3, 4), bound);
    }
    if (p->plan.n_fit) {
        const struct rl_llm_step *b = &p->plan.c[0].step;
        printf("\nbest: %s\n", b->why);
        if (p->net.nic_system && p->req.gpus > LLM_NODE_GPUS)
            printf("between nodes: the NICs of %s (%d x %g Gb/s, data/systems/%s.json); "
                   "--system or --nic-gbps to say otherwise\n",
                   p->net.nic_system->name, p->net.nic_system->nics_per_node,
                   p->net.nic_system->nic_gbps, p->net.nic_system->id);
    } else {
        const struct rl_llm_candidate *k = &p->plan.c[0];
        char name[48];
        layout_name(&k->step.layout, name, sizeof name, moe);
        printf("none fits: the least memory per GPU is %.2f GB (%s), of %.2f GB usable\n",
               k->mem.total_bytes / 1e9, name, p->cap.usable_bytes / 1e9);
        if (p->min_gpus)
            printf("fewest GPUs that hold it: %d (TP %d x PP %d x DP %d x EP %d)\n",
                   p->min_gpus, p->min_layout.tp, p->min_layout.pp, p->min_layout.dp,
                   p->min_layout.ep);
        else
            printf("no layout of up to %d GPUs holds it\n", LLM_MAX_GPUS);
    }
}

static void num(FILE *f, const char *key, double v, bool first)
{
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", key);
    rl_fput_json_number(f, v);
}

static int write_json(FILE *f, const struct plan_run *p)
{
    fputs("{\n  \"schema_version\": 1,\n  \"origin\": \"analytic\",\n  \"estimate\": ", f);
    const bool pred = p->req.phase == RL_LLM_TRAIN && p->req.efficiency > 0 &&
                      p->req.efficiency < 1;
    fputs(pred ? "\"prediction\"" : "\"bound\"", f);
    fputs(",\n  \"efficiency\": ", f);
    rl_fput_json_number(f, pred ? p->req.efficiency : NAN);
    fputs(",\n  \"model\": ", f);
    rl_fput_json_string(f, p->m.id);
    fputs(",\n  \"gpu\": ", f);
    rl_fput_json_string(f, p->c.gpu_name);
    fprintf(f, ",\n  \"gpus\": %d,\n  \"phase\": \"%s\",\n  \"batch\": %d,\n  \"seq\": %d,\n  "
               "\"max_tp\": %d,\n  ",
            p->req.gpus, phase_name(p->req.phase), p->req.batch, p->req.seq, p->req.max_tp);
    num(f, "gpu_memory_bytes", p->cap.gpu_memory_bytes, true);
    fputs(",\n  ", f);
    num(f, "reserve_bytes", p->cap.reserve_bytes, true);
    fputs(",\n  ", f);
    num(f, "min_gpus", p->min_gpus ? p->min_gpus : NAN, true);
    if (p->min_gpus)
        fprintf(f, ",\n  \"min_gpus_layout\": {\"tp\": %d, \"pp\": %d, \"dp\": %d, \"ep\": %d}",
                p->min_layout.tp, p->min_layout.pp, p->min_layout.dp, p->min_layout.ep);
    fprintf(f, ",\n  \"layouts\": %zu,\n  \"layouts_that_fit\": %zu,\n  \"layouts_skipped\": %zu",
            p->plan.n, p->plan.n_fit, p->plan.n_skipped);
    if (p->plan.n_skipped) {
        fputs(",\n  \"skipped_because\": ", f);
        rl_fput_json_string(f, p->plan.skipped_why);
    }
    fputs(",\n  \"candidates\": [", f);
    for (size_t i = 0; i < p->plan.n; i++) {
        const struct rl_llm_candidate *k = &p->plan.c[i];
        const struct rl_llm_step *s = &k->step;
        const struct rl_llm_layout *l = &s->layout;
        fprintf(f, "%s\n    {\"rank\": ", i ? "," : "");
        if (k->fits)
            fprintf(f, "%zu", i + 1);
        else
            fputs("null", f);
        fprintf(f, ", \"layout\": {\"tp\": %d, \"pp\": %d, \"dp\": %d, \"ep\": %d, \"zero\": %d, "
                   "\"microbatches\": %d, \"virtual_stages\": %d, \"recompute\": \"%s\", "
                   "\"sequence_parallel\": %s}, \"fits\": %s",
                l->tp, l->pp, l->dp, l->ep, l->zero, l->microbatches,
                l->virtual_stages > 1 ? l->virtual_stages : 1,
                rl_llm_recompute_name(l->recompute), l->seq_parallel ? "true" : "false",
                k->fits ? "true" : "false");
        num(f, "comm_hidden_ms", s->comm_hidden_ns / 1e6, false);
        /* The largest batch this layout (its microbatches) holds at --seq. */
        num(f, "max_batch_that_fits",
            rl_llm_max_batch(&p->m, &p->cfg, l, p->req.seq, &p->cap, LLM_BATCH_LIMIT), false);
        num(f, "step_ms", s->time_ns / 1e6, false);
        num(f, "tokens_per_s", k->tokens_per_s, false);
        num(f, "compute_ms", s->compute_ns / 1e6, false);
        num(f, "memory_ms", s->memory_ns / 1e6, false);
        num(f, "comm_ms_per_step", s->comm_ns / 1e6, false);
        num(f, "bubble_ms", s->bubble_ns / 1e6, false);
        num(f, "pipeline_bubble_fraction", s->bubble_fraction, false);
        num(f, "tflops_per_gpu", s->flops_per_gpu / s->time_ns / 1e3, false);
        fputs(", \"memory_per_gpu_bytes\": {", f);
        num(f, "weights", k->mem.weights_bytes, true);
        num(f, "kv_cache", k->mem.kv_cache_bytes, false);
        num(f, "activations", k->mem.activations_bytes, false);
        num(f, "gradients", k->mem.gradients_bytes, false);
        num(f, "optimizer", k->mem.optimizer_bytes, false);
        num(f, "total", k->mem.total_bytes, false);
        fputs("}", f);
        num(f, "model_state_bytes_per_gpu", k->mem.model_state_bytes, false);
        fprintf(f, ", \"bound\": \"%s\", \"bound_reason\": ", rl_llm_bound_name(s->bound));
        rl_fput_json_string(f, s->why);
        fputs("}", f);
    }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* The best candidates' steps as stacked bars, memory per GPU beside. */
static int chart(const struct plan_run *p, const char *dir, char *err)
{
    enum { MAX_BARS = 10 };
    static char names[MAX_BARS][48];
    const char *bars[MAX_BARS];
    double values[MAX_BARS * 4], mem[MAX_BARS];
    size_t n = 0;
    for (size_t i = 0; i < p->plan.n_fit && n < MAX_BARS; i++, n++) {
        const struct rl_llm_step *s = &p->plan.c[i].step;
        layout_name(&s->layout, names[n], sizeof names[n], p->m.experts > 1);
        bars[n] = names[n];
        values[4 * n] = s->compute_ns / 1e6;
        values[4 * n + 1] = s->memory_ns / 1e6;
        values[4 * n + 2] = s->comm_ns / 1e6;
        values[4 * n + 3] = s->bubble_ns / 1e6;
        mem[n] = p->plan.c[i].mem.total_bytes / 1e9;
    }
    if (!n)
        return RL_OK; /* nothing fits: nothing to draw (said in the output) */
    static const char *const stacks[] = {"compute", "memory", "communication", "bubble"};
    char title[256], xl[96], line[64], path[4096];
    snprintf(title, sizeof title, "%s on %d x %s: %s step of the best layouts", p->m.name,
             p->req.gpus, p->c.gpu_name, phase_name(p->req.phase));
    snprintf(xl, sizeof xl, "layout (TP x PP x DP%s), fastest first",
             p->m.experts > 1 ? " x EP" : "");
    snprintf(line, sizeof line, "usable: %s GB", rl_num(p->cap.usable_bytes / 1e9, 4));
    struct rl_bar_chart bc = {.title = title, .xlabel = xl, .ylabel = "step time (ms)",
                              .bars = bars, .n_bars = n, .stack_titles = stacks, .n_stacks = 4,
                              .values = values, .y2 = mem, .y2label = "memory per GPU (GB)",
                              .y2_title = "memory per GPU (GB)",
                              .y2_line = p->cap.usable_bytes / 1e9, .y2_line_label = line};
    snprintf(path, sizeof path, "%s/llm-plan.svg", dir);
    return rl_bar_chart_render(&bc, path, err);
}

static int write_plan_json(FILE *f, const void *p)
{
    return write_json(f, p);
}

static int write_files(struct plan_run *p, const char *dir, char *err, int *chart_rc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    int rc = rl_file_write_with(path, write_plan_json, p, err);
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    *chart_rc = chart(p, dir, err);
    return cli_chart_status(*chart_rc, err);
}

int cmd_llm_plan(int argc, char **argv)
{
    static const struct option opts[] = {{"model", required_argument, NULL, 'm'},
                                         {"gpu", required_argument, NULL, 'g'},
                                         {"gpus", required_argument, NULL, 'N'},
                                         {"bench", required_argument, NULL, 'b'},
                                         {"batch", required_argument, NULL, 'B'},
                                         {"seq", required_argument, NULL, 's'},
                                         {"precision", required_argument, NULL, 'p'},
                                         {"kv-precision", required_argument, NULL, 'k'},
                                         {"train", no_argument, NULL, 't'},
                                         {"prefill", no_argument, NULL, 'P'},
                                         LLM_TRAIN_OPTIONS,
                                         {"zero", required_argument, NULL, 'z'},
                                         {"nic-gbps", required_argument, NULL, 1},
                                         {"system", required_argument, NULL, 3},
                                         {"comm", required_argument, NULL, 4},
                                         {"nics-per-node", required_argument, NULL, 2},
                                         {"top", required_argument, NULL, 'T'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *precisions[RL_LLM_N_PRECISIONS + 1];
    for (int i = 0; i < RL_LLM_N_PRECISIONS; i++)
        precisions[i] = rl_llm_precision_name((enum rl_llm_precision)i);
    precisions[RL_LLM_N_PRECISIONS] = NULL;
    static struct plan_run p;
    memset(&p, 0, sizeof p);
    p.cfg.precision = RL_LLM_BF16;
    p.cfg.kv = RL_LLM_KV_BF16;
    p.req.phase = RL_LLM_DECODE;
    p.req.seq = 2048;
    p.net.nic_gbps = NAN;
    p.top = 5;
    const char *model = NULL, *gpu = NULL, *bench_path = NULL, *dir = NULL,
               *system_name = NULL, *comm_path = NULL;
    bool json = false, prefill = false, precision_given = false, train_given = false;
    struct rl_llm_layout tl = RL_LLM_LAYOUT_ONE;
    llm_train_defaults(&tl);
    int c, v;
    char *end;
    static const char optstring[] = "ho:";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'g': gpu = optarg; break;
        case 'b': bench_path = optarg; break;
        case 'o': dir = optarg; break;
        case 'j': json = true; break;
        case 't': p.req.phase = RL_LLM_TRAIN; break;
        case 'P': prefill = true; break;
        case 'N':
            if (cli_parse_int("llm plan", "--gpus", optarg, 1, 65536, &p.req.gpus))
                return CLI_USAGE;
            break;
        case 'B':
            if (cli_parse_int("llm plan", "--batch", optarg, 1, 1000000, &p.req.batch))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_parse_int("llm plan", "--seq", optarg, 1, 10000000, &p.req.seq))
                return CLI_USAGE;
            break;
        case 'z':
            if (cli_parse_int("llm plan", "--zero", optarg, 0, 3, &p.req.zero))
                return CLI_USAGE;
            break;
        case 'T':
            if (cli_parse_int("llm plan", "--top", optarg, 1, 1000, &p.top))
                return CLI_USAGE;
            break;
        case 1:
            p.net.nic_gbps = strtod(optarg, &end);
            if (end == optarg || *end || !(p.net.nic_gbps > 0) || !(p.net.nic_gbps <= 1e5))
                return cli_usage_error("llm plan", "--nic-gbps needs a rate in Gb/s per NIC, "
                                                   "above 0 (400), not '%s'", optarg);
            break;
        case 3: system_name = optarg; break;
        case 4: comm_path = optarg; break;
        case 2:
            if (cli_parse_int("llm plan", "--nics-per-node", optarg, 1, 64,
                              &p.net.nics_per_node))
                return CLI_USAGE;
            break;
        case 'p':
            if ((v = rl_llm_precision_parse(optarg)) < 0)
                return cli_unknown_name("llm plan", "precision", optarg, precisions);
            p.cfg.precision = (enum rl_llm_precision)v;
            precision_given = true;
            break;
        case 'k':
            if ((v = rl_llm_kv_parse(optarg)) < 0)
                return cli_unknown_name("llm plan", "KV cache precision", optarg,
                                        llm_kv_precisions);
            p.cfg.kv = (enum rl_llm_kv)v;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: {
            int rc = llm_train_option("llm plan", c, argc, argv, &tl, &train_given);
            if (rc == CLI_USAGE)
                return rc;
            if (rc)
                return cli_option_error("llm plan", optstring, opts, argv);
        }
        }
    }
    if (optind < argc)
        return cli_usage_error("llm plan", "unexpected argument '%s'", argv[optind]);
    if (!model)
        return cli_usage_error("llm plan", "--model is required (e.g. llama-3-70b)");
    if (!p.req.gpus)
        return cli_usage_error("llm plan", "--gpus is required (the GPUs to lay out)");
    const bool train = p.req.phase == RL_LLM_TRAIN;
    if (prefill && train)
        return cli_usage_error("llm plan", "--prefill or --train, not both");
    if (p.req.zero && !train)
        return cli_usage_error("llm plan", "--recompute and --zero are for training (--train)");
    if (llm_train_check("llm plan", &tl, train, train_given))
        return CLI_USAGE;
    p.req.recompute = tl.recompute;
    p.req.seq_parallel = tl.seq_parallel;
    p.req.unfused_attention = tl.unfused_attention;
    p.req.virtual_stages = tl.virtual_stages;
    p.req.overlap = tl.overlap;
    p.req.efficiency = tl.efficiency;
    if (prefill)
        p.req.phase = RL_LLM_PREFILL;
    if (!p.req.batch)
        p.req.batch = train ? 512 : prefill ? 1 : 64;
    char err[RL_ERRMSG_SIZE], data[4096];
    if (rl_data_dir(data, sizeof data, err) || rl_llm_model_load(&p.m, data, model, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (!precision_given) /* the checkpoint's own format */
        rl_llm_config_of_model(&p.m, p.cfg.kv, &p.cfg);
    p.precision_given = precision_given;
    const struct rl_system *sys = NULL;
    if (system_name && !(sys = cli_find_system(system_name)))
        return CLI_FAIL;
    static struct rl_bench_ceilings bench;
    const struct rl_bench_ceilings *b;
    const struct rl_gpu_spec *s;
    if (cli_ceiling_sources(gpu ? gpu : !bench_path && sys ? sys->gpu : NULL, bench_path,
                            bench_path ? NULL : "h200", &bench, &b, &s))
        return CLI_FAIL;
    if (rl_ceilings_init(&p.c, s, b, NULL, false, false, NULL, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (!precision_given) /* the stored format on an older GPU */
        rl_llm_config_fit_roofs(&p.cfg, &p.c, p.dequantized, sizeof p.dequantized);
    if (!s) {
        cli_error("llm plan needs the GPU's datasheet (its memory and links): give --gpu");
        return CLI_FAIL;
    }
    rl_llm_capacity_of(&p.cap, s->memory_size_gb);
    if (llm_net_init(&p.net, s, sys, &p.req.max_tp))
        return CLI_FAIL;
    static struct rl_comm_results measured;
    if (comm_path) {
        if (llm_comm_load(comm_path, s, &measured))
            return CLI_FAIL;
        p.net.measured = &measured;
    }
    int rc = rl_llm_plan_build(&p.m, &p.cfg, &p.req, &p.c, &p.net, &p.cap, &p.plan, err);
    if (rc == RL_OK) { /* the fewest GPUs whose plan has a layout that fits */
        struct rl_llm_candidate best;
        rc = rl_llm_plan_min_gpus(&p.m, &p.cfg, &p.req, &p.c, &p.net, &p.cap, LLM_MAX_GPUS,
                                  &p.min_gpus, &best, err);
        if (p.min_gpus)
            p.min_layout = best.step.layout;
        if (rc)
            rl_llm_plan_release(&p.plan);
    }
    if (comm_path)
        rl_comm_results_release(&measured); /* the plan keeps no pointer into it */
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    struct rl_outset set = {0};
    const char *stage = NULL;
    int status = CLI_OK, chart_rc = RL_OK;
    if (dir && rl_outset_folder(&set, dir, "plan", &stage, err)) {
        cli_error("%s", err);
        rl_llm_plan_release(&p.plan);
        return CLI_FAIL;
    }
    cli_outset_show(&set);
    if (json)
        write_json(stdout, &p);
    else
        print_plan(&p);
    if (dir)
        status = write_files(&p, stage, err, &chart_rc);
    if (status == CLI_OK && dir && rl_outset_commit(&set, err)) {
        cli_error("%s", err);
        status = CLI_FAIL;
    }
    rl_outset_abort(&set);
    cli_outset_show(NULL);
    if (status == CLI_OK && dir && !json)
        printf("\nwrote %s%s\n", rl_path_join((char[4200]){0}, 4200, dir, "plan.json"),
               chart_rc == RL_ENOTOOL ? " and the chart script (no image: gnuplot missing)"
               : p.plan.n_fit         ? ", llm-plan.svg"
                                      : "");
    rl_llm_plan_release(&p.plan);
    return status;
}
