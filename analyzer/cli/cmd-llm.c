/* cmd-llm.c - `roofline llm`: why decode is bandwidth-bound and prefill compute-bound, operator by operator, for a model on a GPU or a parallel layout of GPUs, and whether it fits. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"
#include "analyzer/cli/cmd-llm.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/results.h"
#include "analyzer/comm/system.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/device/device.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/numtext.h"
#include "analyzer/util/outset.h"
#include "analyzer/readers/tracefile.h"
#include "analyzer/report/report.h"
#include "analyzer/util/paths.h"
#include "plots/plot.h"
#include "analyzer/util/strbuf.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: roofline llm --model M [--gpu G] [--bench FILE] [--batch LIST] [--seq N]\n"
    "                    [--precision P] [--kv-precision P] [--json] [-o DIR]\n"
    "                    [--tp N] [--pp N] [--dp N] [--ep N] [--microbatches M]\n"
    "                    [--system S] [--comm FILE] [--nic-gbps R [--nics-per-node K]]\n"
    "                    [--train [--recompute [selective|full]] [--zero 0|1|2|3]\n"
    "                     [--sequence-parallel] [--virtual-stages V] [--overlap O]\n"
    "                     [--efficiency E] [--unfused-attention]]\n"
    "                    [--measure [--device N]]\n"
    "       roofline llm --params N [--train] [--gpu G] [--tp N] [--pp N] [--dp N] [--zero S]\n"
    "                    [--json]\n"
    "       roofline llm plan --model M --gpu G --gpus N [...]   (roofline llm plan -h)\n"
    "\n"
    "Count the FLOPs and bytes (weights, activations, KV cache) of every operator\n"
    "of a transformer for one decode step at each batch (context --seq) and for a\n"
    "prefill of --seq tokens, place them on the GPU's roofline, and total them:\n"
    "time per decode step and tokens/s, prefill time, memory per GPU and whether\n"
    "it fits, and the crossover batch from which every decode linear layer is\n"
    "compute-bound. Every figure is analytic (the roofline's bound: no overlap,\n"
    "no launch latency) on datasheet or measured (--bench) ceilings.\n"
    "\n"
    "  --model M          llama-2-7b, llama-2-13b, llama-3-8b, llama-3-70b,\n"
    "                     mistral-7b, qwen2.5-7b, mixtral-8x7b, deepseek-v3,\n"
    "                     gpt-oss-120b, gpt-oss-20b, llama-3.1-8b, qwen3-30b-a3b,\n"
    "                     qwen3-32b (data/models), a\n"
    "                     Hugging Face config.json, or a folder holding one\n"
    "  --params N         a model of N parameters and no shape (7.5e9): its model\n"
    "                     states per GPU only (2 + 2 + 12 bytes per parameter)\n"
    "  --gpu G            datasheet (default h200, or the bench file's GPU)\n"
    "  --bench FILE       measured ceilings from `roofline bench`\n"
    "  --batch LIST       batches, sequences per step over all GPUs, comma-separated\n"
    "                     (default 1,8,64,256; training 8; each at least M x DP x EP)\n"
    "  --seq N            context of decode and length of prefill and training\n"
    "                     sequences (default 2048)\n"
    "  --precision P      bf16, fp16, fp8, fp8-block, w8a8, w4a16, mxfp4, nvfp4\n"
    "                     (weights/activations); default the format config.json\n"
    "                     stores (quantization_config, torch_dtype), else bf16\n"
    "  --kv-precision P   bf16 (default), fp16, fp8\n"
    "  --tp N             tensor parallel: heads and MLP split over N GPUs (Megatron)\n"
    "  --pp N             pipeline parallel: N stages of the layers\n"
    "  --dp N             data parallel: N replicas share the batch\n"
    "  --ep N             expert parallel (MoE): the experts over N GPUs\n"
    "  --microbatches M   microbatches per step through the pipeline (default 1)\n"
    "  --system S         the GPUs are a system's of data/systems (dgx-h100, gb200-nvl72,\n"
    "                     ...): its NVLink domain, its nodes and NICs; its GPU unless\n"
    "                     --gpu names it\n"
    "  --comm FILE        measured collectives (`roofline comm --measure -o FILE`): a\n"
    "                     group of the GPUs and nodes measured is timed on their bus\n"
    "                     bandwidth at its size (measured), others analytic\n"
    "  --nic-gbps R       between nodes: NICs of R Gb/s (a group past a node's GPUs\n"
    "                     spans nodes), --nics-per-node N of them (default one per GPU)\n"
    "  --train            a training step: forward, backward, optimizer (mixed\n"
    "                     precision Adam), activations kept for the backward\n"
    "  --recompute [R]    training: activation recomputation, full (alone) or\n"
    "                     selective (the attention core only; Korthikanti et al.)\n"
    "  --sequence-parallel  training: Megatron's sequence parallelism over --tp\n"
    "  --virtual-stages V training: V model chunks per stage (interleaved 1F1B)\n"
    "  --overlap O        training: collectives hidden behind compute: none, dp\n"
    "                     (default: DDP's, FSDP's, Megatron-Core's), tp, dp,tp\n"
    "  --efficiency E     training: predict, the compute-bound operators at E of\n"
    "                     their roof (a published or measured MFU-like factor);\n"
    "                     without it the step is the roofline's bound\n"
    "  --unfused-attention  training: the attention scores through DRAM, as\n"
    "                     Megatron-LM ran before FlashAttention (2021-2022 runs)\n"
    "  --zero S           training: ZeRO stage 0 (default), 1, 2, 3 over --dp\n"
    "  --json             JSON instead of the tables\n"
    "  -o DIR             also write DIR/llm.json, DIR/llm-roofline.svg (the\n"
    "                     operators on the roofline) and DIR/llm-batch.svg\n"
    "                     (tokens/s and step time against batch, crossover and\n"
    "                     the largest batch that fits marked)\n"
    "  --measure          on a GPU: run each decode linear layer's shape (GEMV at\n"
    "                     batch 1, cuBLASLt GEMM above, BF16, outputs checked) under\n"
    "                     the profiler and put measured time and intensity beside\n"
    "                     the prediction (dense BF16 models, one GPU)\n";

static void fmt_bytes(char *b, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(b, n, "?");
    else if (v >= 1e9)
        snprintf(b, n, "%.2f GB", v / 1e9);
    else if (v >= 1e6)
        snprintf(b, n, "%.2f MB", v / 1e6);
    else
        snprintf(b, n, "%.0f B", v);
}

static void print_ops(const struct rl_llm_phase_cost *p, const struct rl_ceilings *c)
{
    printf("%-14s %5s %11s %11s %11s %11s %9s %10s %6s  %s\n", "OPERATOR", "COUNT", "GFLOP",
           "WEIGHTS MB", "ACT MB", "KV MB", "AI F/B", "TIME us", "SHARE", "BOUND");
    for (int i = 0; i < p->n_ops; i++) {
        const struct rl_llm_op *o = &p->ops[i];
        char ai[16];
        if (isinf(o->ai_flop_per_byte))
            snprintf(ai, sizeof ai, "inf");
        else
            rl_num_text(ai, sizeof ai, o->ai_flop_per_byte, 3);
        char bound[96];
        rl_bound_text(bound, sizeof bound, o->memory_bound ? RL_BOUND_MEMORY : RL_BOUND_COMPUTE,
                      RL_MEM_DRAM, rl_llm_roof_label(c, o->roof));
        printf("%-14s %5d %11s %11s %11s %11s %9s %10s %5.1f%%  %s\n", o->name,
               o->count, rl_num(o->count * o->flops / 1e9, 4),
               rl_num(o->count * o->weight_bytes / 1e6, 4), rl_num(o->count * o->act_bytes / 1e6,
               4),
               rl_num(o->count * o->kv_bytes / 1e6, 4), ai, rl_num(o->count * o->time_ns / 1e3,
               4), 100.0 * o->count * o->time_ns / p->time_ns, bound);
    }
}


static bool layout_is_one(const struct rl_llm_layout *l)
{
    return rl_llm_layout_gpus(l) == 1 && l->microbatches == 1;
}

static void layout_text(const struct rl_llm_layout *l, char *b, size_t n)
{
    int g = rl_llm_layout_gpus(l);
    snprintf(b, n, "TP %d x PP %d x DP %d x EP %d = %d GPU%s, %d microbatch%s", l->tp, l->pp,
             l->dp, l->ep, g, g == 1 ? "" : "s", l->microbatches,
             l->microbatches == 1 ? "" : "es");
}


/* The memory of one GPU at r->batches[0] against its capacity. */
static void print_memory(const struct llm_run *r)
{
    const struct rl_llm_memory *mm = &r->mem[0];
    char lay[128], a[32], b[32], c[32], d[32], e[32], tot[32], cap[32], res[32], use[32];
    layout_text(&r->lay, lay, sizeof lay);
    char tr[160] = "";
    if (r->lay.train && !r->params_only)
        llm_train_layout_text(tr, sizeof tr, &r->lay);
    printf("layout: %s%s%s\n", lay, r->lay.train ? "; training" : "; inference", tr);
    fmt_bytes(a, sizeof a, mm->weights_bytes);
    fmt_bytes(b, sizeof b, mm->kv_cache_bytes);
    fmt_bytes(c, sizeof c, mm->activations_bytes);
    fmt_bytes(d, sizeof d, mm->gradients_bytes);
    fmt_bytes(e, sizeof e, mm->optimizer_bytes);
    fmt_bytes(tot, sizeof tot, mm->total_bytes);
    fmt_bytes(cap, sizeof cap, r->cap.gpu_memory_bytes);
    fmt_bytes(res, sizeof res, r->cap.reserve_bytes);
    fmt_bytes(use, sizeof use, r->cap.usable_bytes);
    if (r->params_only)
        printf("memory per GPU, model states (ZeRO stage %d over DP %d): weights %s + "
               "gradients %s + optimizer %s = %s",
               r->lay.zero, r->lay.dp, a, d, e, tot);
    else if (r->lay.train)
        printf("memory per GPU, training batch %d x %d (ZeRO stage %d over DP %d): weights %s "
               "+ gradients %s + optimizer %s + activations %s = %s",
               r->batches[0], r->seq, r->lay.zero, r->lay.dp, a, d, e, c, tot);
    else
        printf("memory per GPU at batch %d, context %d: weights %s + KV cache %s + "
               "activations %s = %s",
               r->batches[0], r->seq, a, b, c, tot);
    if (isnan(r->cap.gpu_memory_bytes)) {
        printf(" (GPU memory unknown: no datasheet)\n");
        return;
    }
    printf(" of %s (reserve %s: 1 GB + 5%%; usable %s): %s\n", cap, res, use,
           llm_fits(r, 0) ? "fits" : "does NOT fit");
    if (r->params_only)
        printf("activations not counted: a parameter count has no shape (--model gives them)\n");
    else if (r->max_fit)
        printf("largest batch that fits: %d%s", r->max_fit,
               r->max_fit == LLM_BATCH_LIMIT ? " (or more)" : "");
    else
        printf("largest batch that fits: none");
    if (r->min_gpus)
        printf("%sfewest GPUs that hold it: %d (TP %d x PP %d x DP %d x EP %d)\n",
               r->params_only ? "" : "; ", r->min_gpus, r->min_layout.tp, r->min_layout.pp,
               r->min_layout.dp, r->min_layout.ep);
    else
        printf("%sno layout of up to %d GPUs holds it\n", r->params_only ? "" : "; ",
               LLM_MAX_GPUS);
}

static void print_step(const struct rl_llm_step *s, const struct rl_system *nic_system)
{
    printf("time split: compute %s ms, memory %s ms, communication %s ms, bubble %s "
           "ms (%s of the pipeline)\n%s\n",
           rl_num(s->compute_ns / 1e6, 4), rl_num(s->memory_ns / 1e6, 4),
           rl_num(s->comm_ns / 1e6, 4), rl_num(s->bubble_ns / 1e6, 4),
           rl_num(s->bubble_fraction, 3), s->why);
    if (!s->n_comm)
        return;
    if (nic_system)
        for (int i = 0; i < s->n_comm; i++)
            if (strstr(s->comm[i].link, "NIC")) {
                printf("between nodes: the NICs of %s (%d x %g Gb/s, data/systems/%s.json); "
                       "--system or --nic-gbps to say otherwise\n",
                       nic_system->name, nic_system->nics_per_node, nic_system->nic_gbps,
                       nic_system->id);
                break;
            }
    printf("%-27s %5s %10s %11s %11s %10s %-9s %s\n", "COMMUNICATION", "GPUS", "CALLS",
           "MB EACH", "us EACH", "ms/STEP", "TIME", "LINK (GB/s per direction)");
    for (int i = 0; i < s->n_comm; i++) {
        const struct rl_llm_comm *c = &s->comm[i];
        char share[48] = "";
        if (c->nic_share < 1)
            snprintf(share, sizeof share, "; %s of it for this group", rl_num(c->nic_share, 3));
        printf("%-27s %5d %10s %11s %11s %10s %-9s %s (%s, %s%s)\n", c->name, c->gpus,
               rl_num(c->calls, 4), rl_num(c->bytes / 1e6, 4), rl_num(c->time_us, 4),
               rl_num(c->calls * c->time_us / 1e3, 4), rl_origin_name(c->origin), c->link,
               rl_num(c->link_gbs, 4), rl_origin_name(c->link_origin),
               share);
    }
}

static void print_train(const struct llm_run *r)
{
    const struct rl_llm_step *s = &r->steps[0];
    printf("training step, batch %d sequences of %d tokens: one GPU's operators, one "
           "microbatch of %d (forward, backward%s)\n",
           s->batch, s->seq, r->mem[0].microbatch,
           r->lay.recompute == RL_LLM_RECOMPUTE_FULL        ? ", recomputed forward"
           : r->lay.recompute == RL_LLM_RECOMPUTE_SELECTIVE ? ", recomputed attention core"
                                                            : "");
    print_ops(&s->micro, &r->c);
    printf("optimizer: %s GB of Adam state read and written, %s ms\n",
           rl_num(s->optimizer.weight_bytes / 1e9, 4), rl_num(s->optimizer.time_ns / 1e6, 4));
    printf("step %s ms: %s tokens/s; %s TFLOP/s per GPU", rl_num(s->time_ns / 1e6, 4),
           rl_num(llm_tokens_per_s(s), 4), rl_num(s->flops_per_gpu / s->time_ns / 1e3, 4));
    if (s->predicted)
        printf(" (a prediction: every roof at %s, --efficiency)\n", rl_num(r->lay.efficiency, 3));
    else
        printf(" (the roofline's bound; --efficiency E predicts)\n");
    if (s->comm_hidden_ns > 0)
        printf("communication hidden behind compute (--overlap): %s ms\n",
               rl_num(s->comm_hidden_ns / 1e6, 4));
    print_step(s, r->net.nic_system);
}

static void print_text(const struct llm_run *r)
{
    char origins[64], w[32], kv[32], tr[32];
    rl_ceilings_origins(&r->c, origins, sizeof origins);
    if (r->params_only) {
        printf("%s on %s\n", r->m.name, r->c.gpu_name);
        print_memory(r);
        return;
    }
    double wbytes = rl_llm_weights_bytes(&r->m, &r->cfg);
    double kvt = rl_llm_kv_bytes_per_token(&r->m, &r->cfg);
    fmt_bytes(w, sizeof w, wbytes);
    /* What matters first: a model that does not fit says so, in one line. */
    bool fits = isnan(r->cap.gpu_memory_bytes) || llm_fits(r, 0);
    if (!fits) {
        char need[32], use[32], lay[128];
        fmt_bytes(need, sizeof need, r->mem[0].total_bytes);
        fmt_bytes(use, sizeof use, r->cap.usable_bytes);
        layout_text(&r->lay, lay, sizeof lay);
        printf("does NOT fit: %s needs %s per GPU at batch %d (%s), %s has %s usable; ", r->m.name,
               need, r->batches[0], lay, r->c.gpu_name, use);
        if (r->min_gpus)
            printf("fewest GPUs that hold it: %d (TP %d x PP %d x DP %d x EP %d)\n", r->min_gpus,
                   r->min_layout.tp, r->min_layout.pp, r->min_layout.dp, r->min_layout.ep);
        else
            printf("no layout of up to %d GPUs holds it\n", LLM_MAX_GPUS);
        printf("(the times below are what this layout would take if it fit: no tokens/s)\n\n");
    }
    /* Training keeps no KV cache: its sequences are trained whole. */
    if (r->lay.train)
        printf("%s on %s (%s ceilings; analytic times): %s weights, sequences of %d\n",
               r->m.name, r->c.gpu_name, origins, rl_llm_precision_name(r->cfg.precision),
               r->seq);
    else
        printf("%s on %s (%s ceilings; analytic times): %s weights, %s KV cache, context %d\n",
               r->m.name, r->c.gpu_name, origins, rl_llm_precision_name(r->cfg.precision),
               llm_kv_name(&r->cfg), r->seq);
    printf("parameters %s B", rl_num(rl_llm_params(&r->m) / 1e9, 4));
    if (r->m.experts > 1)
        printf(" (%s B active per token)", rl_num(rl_llm_active_params(&r->m) / 1e9, 4));
    printf("; weights %s", w);
    if (!r->lay.train && rl_llm_is_mla(&r->m))
        printf("; KV cache %.0f bytes per token (%d layers x (%d latent + %d rope), MLA)", kvt,
               r->m.layers, r->m.kv_lora_rank, r->m.qk_rope_dim);
    else if (!r->lay.train)
        printf("; KV cache %.0f bytes per token (%d layers x 2 x %d KV heads x %d)", kvt,
               r->m.layers, r->m.kv_heads, r->m.head_dim);
    if (r->m.sliding_window && !r->lay.train) {
        const int windowed = rl_llm_sliding_layers(&r->m);
        if (windowed < r->m.layers)
            printf(", %d of the layers at most %d tokens per sequence (sliding window)",
                   windowed, r->m.sliding_window);
        else
            printf(", at most %d tokens per sequence (sliding window)", r->m.sliding_window);
    }
    printf("\n");
    llm_print_model_notes(&r->m, &r->cfg, r->precision_given, r->dequantized);
    print_memory(r);
    printf("\n");
    if (r->lay.train) {
        print_train(r);
        return;
    }
    const struct rl_llm_step *d0 = &r->steps[0];
    printf("decode, batch %d, context %d: one step (a token for each sequence)", d0->batch,
           r->seq);
    if (!layout_is_one(&r->lay))
        printf("; one GPU's operators, a microbatch of %d", r->mem[0].microbatch);
    printf("\n");
    print_ops(&d0->micro, &r->c);
    if (fits)
        printf("step %s ms: %s tokens/s; %s FLOP/B over the step\n", rl_num(d0->time_ns / 1e6, 4),
               rl_num(llm_tokens_per_s(d0), 4), rl_num(d0->micro.flops / d0->micro.bytes, 3));
    else
        printf("step %s ms if it fit (it does not); %s FLOP/B over the step\n",
               rl_num(d0->time_ns / 1e6, 4), rl_num(d0->micro.flops / d0->micro.bytes, 3));
    print_step(d0, r->net.nic_system);
    printf("\nprefill of %d tokens (time to first token)\n", r->seq);
    print_ops(&r->prefill.micro, &r->c);
    printf("prefill %s ms%s; %s FLOP/B over the prefill\n", rl_num(r->prefill.time_ns / 1e6, 4),
           fits ? "" : " if it fit (it does not)",
           rl_num(r->prefill.micro.flops / r->prefill.micro.bytes, 3));
    print_step(&r->prefill, r->net.nic_system); /* its collectives: rows, as decode's */
    printf("\n");
    printf("%6s %10s %12s %10s %12s %5s %s\n", "BATCH", "STEP ms", "TOKENS/s", "KV/GPU",
           "MEMORY/GPU", "FITS", "LINEAR LAYERS");
    for (int i = 0; i < r->n_batches; i++) {
        const struct rl_llm_step *d = &r->steps[i];
        int mem_bound = 0, linear = 0;
        for (int j = 0; j < d->micro.n_ops; j++)
            if (d->micro.ops[j].linear) {
                linear++;
                mem_bound += d->micro.ops[j].memory_bound;
            }
        fmt_bytes(kv, sizeof kv, r->mem[i].kv_cache_bytes);
        fmt_bytes(tr, sizeof tr, r->mem[i].total_bytes);
        /* no tokens/s for a batch that does not fit: it cannot run */
        bool row_fits = isnan(r->cap.gpu_memory_bytes) || llm_fits(r, i);
        char tps[32] = "-";
        if (row_fits)
            rl_num_text(tps, sizeof tps, llm_tokens_per_s(d), 4);
        printf("%6d %10s %12s %10s %12s %5s %d of %d memory-bound\n", d->batch,
               rl_num(d->time_ns / 1e6, 4), tps, kv, tr,
               isnan(r->cap.gpu_memory_bytes) ? "?" : row_fits ? "yes" : "NO", mem_bound,
               linear);
    }
    if (r->crossover) {
        printf("\ncrossover: from batch %d every decode linear layer is compute-bound (%s on "
               "%s)",
               r->crossover, rl_llm_roof_label(&r->c, rl_llm_linear_roof(r->cfg.precision)),
               r->c.gpu_name);
        if (r->crossover > r->max_fit && !isnan(r->cap.gpu_memory_bytes)) {
            if (r->max_fit)
                printf("; beyond the largest batch that fits: %d", r->max_fit);
            else
                printf("; the largest batch that fits: none");
        }
        printf("\n");
    } else
        printf("\ncrossover: not reached up to batch %d\n", LLM_BATCH_LIMIT);
}

static int charts(const struct llm_run *r, const char *dir, char *err)
{
    /* (a) every operator of every phase on the roofline: the operators are
     * kernel groups (analytic: their FLOPs, bytes and predicted time), judged
     * and drawn by the report's judge and chart writer like any kernels. */
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    int rc = RL_OK;
    const int n_phases = r->lay.train ? r->n_batches : r->n_batches + 1;
    const bool known = !isnan(r->cap.gpu_memory_bytes);
    int n_marked = 0;
    for (int ph = 0; ph < n_phases && rc == RL_OK; ph++) {
        const struct rl_llm_phase_cost *c =
            ph < r->n_batches ? &r->steps[ph].micro : &r->prefill.micro;
        /* A batch whose memory does not fit cannot run: its operators are
         * drawn marked, "decode b256* ...", the title saying what * means
         * (the chart shortens long labels: the mark stays near the front).
         * The prefill of one sequence: when not even batch 1 fits. */
        const char *mark = known && (ph < r->n_batches ? !llm_fits(r, ph) : r->max_fit == 0)
                               ? "*"
                               : "";
        n_marked += *mark != 0;
        for (int i = 0; i < c->n_ops && rc == RL_OK; i++) {
            const struct rl_llm_op *o = &c->ops[i];
            if (!(o->flops > 0) || !isfinite(o->ai_flop_per_byte))
                continue;
            char label[48];
            if (c->phase == RL_LLM_DECODE)
                snprintf(label, sizeof label, "decode b%d%s %s", c->batch, mark, o->name);
            else if (c->phase == RL_LLM_TRAIN)
                snprintf(label, sizeof label, "train b%d%s %s", r->steps[ph].batch, mark,
                         o->name);
            else
                snprintf(label, sizeof label, "prefill%s %s", mark, o->name);
            const double bytes[RL_MEM_COUNT] = {
                o->count * (o->weight_bytes + o->act_bytes + o->kv_bytes), NAN, NAN};
            rc = rl_trace_groups_add(&g, label, NULL, NULL, o->roof, RL_ORIGIN_ANALYTIC,
                                     (uint64_t)o->count, o->count * o->flops, bytes,
                                     o->count * o->time_ns);
        }
        /* A split step that communicates, whole, against the link roof too:
         * one GPU's FLOPs and HBM bytes of the step and the bytes its links
         * carry (each collective's nccl-tests size x its bus factor, per
         * call), so "this TP layer is bound by NVLink" is the judge's word. */
        const struct rl_llm_step *st = ph < r->n_batches ? &r->steps[ph] : &r->prefill;
        double comm_bytes = 0, step_bytes = 0;
        for (int k = 0; k < st->n_comm; k++) {
            int coll = rl_collective_parse(st->comm[k].collective);
            if (coll >= 0)
                comm_bytes += st->comm[k].calls * st->comm[k].bytes *
                              rl_collective_bus_factor((enum rl_collective)coll,
                                                       st->comm[k].gpus);
        }
        for (int i = 0; i < c->n_ops; i++)
            step_bytes += c->ops[i].count *
                          (c->ops[i].weight_bytes + c->ops[i].act_bytes + c->ops[i].kv_bytes);
        if (rc == RL_OK && comm_bytes > 0 && c->flops > 0 && st->flops_per_gpu > 0) {
            char label[64];
            const struct rl_llm_layout *L = &st->layout;
            snprintf(label, sizeof label, "%s b%d%s step, TP %d PP %d DP %d EP %d",
                     c->phase == RL_LLM_DECODE ? "decode" : c->phase == RL_LLM_TRAIN ? "train"
                                                                                   : "prefill",
                     st->batch, mark, L->tp, L->pp, L->dp, L->ep);
            /* the microbatch's bytes scaled to the step's FLOPs */
            const double bytes[RL_MEM_COUNT] = {step_bytes * st->flops_per_gpu / c->flops, NAN,
                                                NAN};
            rc = rl_trace_groups_add_comm(&g, label, NULL, NULL, rl_llm_linear_roof(r->cfg.precision),
                                          RL_ORIGIN_ANALYTIC, 1, st->flops_per_gpu, bytes, NAN,
                                          comm_bytes);
        }
    }
    static struct rl_report rep;
    if (rc == RL_OK)
        rc = rl_report_build(&rep, (struct rl_ceilings *)&r->c, &g, err);
    else
        rl_fail(err, rc, "out of memory");
    rl_trace_groups_release(&g);
    if (rc)
        return rc;
    char title[400], note[64] = "", path[4096];
    if (n_marked) /* first: a title too wide is cut at its end */
        snprintf(note, sizeof note, "* does not fit in %s GB; ", rl_num(r->cap.usable_bytes / 1e9, 4));
    if (r->lay.train)
        snprintf(title, sizeof title, "%s on %s: %straining (batch %d...%d of %d tokens)",
                 r->m.name, r->c.gpu_name, note, r->batches[0], r->batches[r->n_batches - 1],
                 r->seq);
    else
        snprintf(title, sizeof title,
                 "%s on %s: %sdecode (batch %d...%d) and prefill (%d tokens)", r->m.name,
                 r->c.gpu_name, note, r->batches[0], r->batches[r->n_batches - 1], r->seq);
    snprintf(path, sizeof path, "%s/llm-roofline.svg", dir);
    rc = rl_report_chart(&rep, &r->c, title, path, 0, err);
    rl_report_release(&rep);
    if ((rc && rc != RL_ENOTOOL) || r->lay.train)
        return rc;
    /* (b) tokens/s and step time against batch, cut at the largest batch
     * that fits (drawn to there; the batches beyond shaded and said):
     * they cannot run. When not even batch 1 fits, the whole curve is
     * drawn on the shaded region. */
    double xs[24], tps[24], ms[24];
    size_t m = 0;
    int top = r->batches[r->n_batches - 1];
    if (r->crossover > top)
        top = r->crossover;
    const bool cut = known && r->max_fit >= 1 && r->max_fit < 2 * top;
    static struct rl_llm_step d;
    for (int b = 1; m < 23 && b <= 2 * top && (!cut || b <= r->max_fit); b *= 2) {
        if (rl_llm_step(&r->m, &r->cfg, &r->lay, RL_LLM_DECODE, b, r->seq,
                        (struct rl_ceilings *)&r->c, &r->net, &d, err))
            return RL_EUNSUPPORTED;
        xs[m] = b;
        tps[m] = llm_tokens_per_s(&d);
        ms[m] = d.time_ns / 1e6;
        m++;
    }
    if (cut && xs[m - 1] < r->max_fit) { /* the last batch that fits ends the curve */
        if (rl_llm_step(&r->m, &r->cfg, &r->lay, RL_LLM_DECODE, r->max_fit, r->seq,
                        (struct rl_ceilings *)&r->c, &r->net, &d, err))
            return RL_EUNSUPPORTED;
        xs[m] = r->max_fit;
        tps[m] = llm_tokens_per_s(&d);
        ms[m] = d.time_ns / 1e6;
        m++;
    }
    struct rl_xy_series s[2] = {{.title = "tokens/s", .x = xs, .y = tps, .n = m},
                                {.title = "step time (ms)", .x = xs, .y = ms, .n = m, .y2 = true}};
    double vx = r->crossover;
    char vl[64], sl[2][96];
    snprintf(vl, sizeof vl, "crossover: batch %d", r->crossover);
    const char *vls[1] = {vl}, *sls[2] = {sl[0], sl[1]};
    snprintf(title, sizeof title, "%s on %s: decode throughput against batch (context %d)",
             r->m.name, r->c.gpu_name, r->seq);
    struct rl_xy_chart xy = {
        .title = title, .xlabel = "batch (sequences decoded together)", .ylabel = "tokens/s",
        .y2label = "step time (ms)", .logx = true, .logy = true, .logy2 = true, .series = s,
        .n_series = 2, .vline_x = &vx, .vline_label = vls,
        .n_vlines = r->crossover && (!known || r->crossover <= r->max_fit) ? 1 : 0,
        .shade_from_x = NAN, .shade_labels = sls};
    if (cut) {
        /* The shaded region: 28% of the (log) axis and 1.5 octaves at
         * least, room for its two short labels (at 40% it took half the
         * chart from the curves). */
        const double lx = log2(r->max_fit);
        xy.shade_from_x = r->max_fit;
        xy.x_max = exp2(fmax(fmax(lx + 1.5, lx / 0.72), log2(2.0 * top)));
        snprintf(sl[0], sizeof sl[0], "batch > %d: over %s GB", r->max_fit,
                 rl_num(r->cap.usable_bytes / 1e9, 4));
        snprintf(sl[1], sizeof sl[1], "crossover %d does not fit", r->crossover);
        xy.n_shade_labels = r->crossover > r->max_fit ? 2 : 1;
    } else if (known && r->max_fit == 0) {
        xy.shade_from_x = 1;
        xy.x_min = 1;
        xy.x_max = xs[m - 1];
        xy.shade_labels_low = true;
        snprintf(sl[0], sizeof sl[0], "not even batch 1 fits in %s GB",
                 rl_num(r->cap.usable_bytes / 1e9, 4));
        if (r->crossover) {
            size_t u = strlen(sl[0]);
            snprintf(sl[0] + u, sizeof sl[0] - u, " (crossover: %d)", r->crossover);
        }
        xy.n_shade_labels = 1;
    }
    snprintf(path, sizeof path, "%s/llm-batch.svg", dir);
    int rc_xy = rl_xy_chart_render(&xy, path, err);
    return rc_xy ? rc_xy : rc;
}

static int write_llm_json(FILE *f, const void *r)
{
    return llm_write_json(f, r);
}

/* Measure (--measure), print, and write dir's files (dir: a stage, or NULL). */
static int write_outputs(struct llm_run *r, bool json, bool do_measure, const char *dir,
                         int device)
{
    char err[RL_ERRMSG_SIZE];
    if (do_measure && !json)
        print_text(r);
    if (do_measure && llm_measure(r, dir, device))
        return CLI_FAIL;
    if (do_measure && !json) {
        /* printed above */
    } else if (json)
        llm_write_json(stdout, r);
    else
        print_text(r);
    if (!dir)
        return CLI_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s/llm.json", dir);
    int rc = rl_file_write_with(path, write_llm_json, r, err);
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (r->params_only)
        return CLI_OK;
    r->charts_rc = charts(r, dir, err);
    return cli_chart_status(r->charts_rc, err);
}

int llm_net_init(struct rl_llm_net *net, const struct rl_gpu_spec *spec,
                 const struct rl_system *sys, int *max_tp)
{
    net->spec = spec;
    net->sys = sys;
    net->gpus_per_node = LLM_NODE_GPUS;
    *max_tp = LLM_NODE_GPUS;
    if (!sys) {
        /* Nodes of 8 joined as a system of the database with this GPU
         * joins them (a DGX: its domain is its node), unless --nic-gbps. */
        const struct rl_systemdb *db = spec && !(net->nic_gbps > 0) ? cli_systemdb() : NULL;
        if (spec && !(net->nic_gbps > 0) && !db)
            return CLI_FAIL; /* said (a system file that cannot be read) */
        for (size_t i = 0; db && i < db->n && !net->nic_system; i++) {
            const struct rl_system *y = &db->systems[i];
            if (strcmp(y->gpu, spec->id) == 0 && y->gpus_per_node == LLM_NODE_GPUS &&
                y->domain_gpus <= y->gpus_per_node && y->nic_gbps > 0)
                net->nic_system = y;
        }
        return CLI_OK;
    }
    if (!spec || strcmp(sys->gpu, spec->id) != 0) {
        cli_error("%s holds %s GPUs, not %s: drop --gpu or name its GPU", sys->name, sys->gpu,
                  spec ? spec->id : "the bench file's");
        return CLI_FAIL;
    }
    net->gpus_per_node = sys->gpus_per_node;
    *max_tp = sys->domain_gpus > sys->gpus_per_node ? sys->domain_gpus : sys->gpus_per_node;
    return CLI_OK;
}

int llm_comm_load(const char *path, const struct rl_gpu_spec *spec, struct rl_comm_results *res)
{
    char err[RL_ERRMSG_SIZE];
    if (rl_comm_results_load(res, path, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (res->gpu_id[0] && spec && strcmp(res->gpu_id, spec->id) != 0) {
        cli_error("'%s' was measured on %s, not %s: give --gpu %s", path, res->gpu_id,
                  spec->id, res->gpu_id);
        rl_comm_results_release(res);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* Memory, steps, what fits: everything the outputs print. */
static int compute(struct llm_run *r, char *err)
{
    const int limit = LLM_BATCH_LIMIT;
    for (int i = 0; i < r->n_batches; i++) {
        rl_llm_memory_per_gpu(&r->m, &r->cfg, &r->lay, r->batches[i], r->seq, &r->mem[i]);
        if (r->params_only)
            continue;
        int rc = rl_llm_step(&r->m, &r->cfg, &r->lay,
                             r->lay.train ? RL_LLM_TRAIN : RL_LLM_DECODE, r->batches[i], r->seq,
                             &r->c, &r->net, &r->steps[i], err);
        if (rc)
            return rc;
    }
    const bool known = !isnan(r->cap.gpu_memory_bytes);
    r->max_fit = known && !r->params_only
                     ? rl_llm_max_batch(&r->m, &r->cfg, &r->lay, r->seq, &r->cap, limit)
                     : 0;
    r->min_gpus = known ? rl_llm_min_gpus(&r->m, &r->cfg, &r->lay, r->batches[0], r->seq,
                                          &r->cap, r->max_tp, LLM_MAX_GPUS, &r->min_layout)
                        : 0;
    if (r->params_only || r->lay.train)
        return RL_OK;
    int rc = rl_llm_step(&r->m, &r->cfg, &r->lay, RL_LLM_PREFILL, 1, r->seq, &r->c, &r->net,
                         &r->prefill, err);
    if (rc)
        return rc;
    struct rl_llm_layout t = r->lay;
    t.train = true;
    rl_llm_memory_per_gpu(&r->m, &r->cfg, &t, 1, r->seq, &r->train_mem);
    r->crossover = rl_llm_layout_crossover_batch(&r->m, &r->cfg, &r->lay, r->seq, &r->c, limit);
    return RL_OK;
}

/* Compute, print and write (cmd_llm's second half). */
static int run_llm(struct llm_run *r, bool json, bool do_measure, const char *dir, int device)
{
    char err[RL_ERRMSG_SIZE];
    if (compute(r, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (do_measure) { /* before anything is printed or written */
        const struct rl_device_api *api;
        struct rl_device_info dev;
        if (cli_open_gpu("--measure needs a GPU", device, &api, &dev))
            return CLI_FAIL;
    }
    /* The files are one set (--measure's trace among them): written whole
     * or not at all. */
    struct rl_outset set = {0};
    const char *stage = NULL;
    if (dir && rl_outset_folder(&set, dir, "llm", &stage, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    cli_outset_show(&set);
    int status = write_outputs(r, json, do_measure, stage, device);
    if (status == CLI_OK && dir && rl_outset_commit(&set, err)) {
        cli_error("%s", err);
        status = CLI_FAIL;
    }
    rl_outset_abort(&set);
    cli_outset_show(NULL);
    if (status == CLI_OK && dir && !json)
        printf("\nwrote %s%s\n", rl_path_join((char[4200]){0}, 4200, dir, "llm.json"),
               r->params_only                 ? ""
               : r->charts_rc == RL_ENOTOOL   ? " and the chart scripts (no images: gnuplot missing)"
               : r->lay.train                 ? ", llm-roofline.svg"
                                             : ", llm-roofline.svg, llm-batch.svg");
    return status;
}

void llm_print_model_notes(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                           bool given, const char *dequantized)
{
    char line[512];
    rl_llm_weights_text(line, sizeof line, m, cfg, given);
    if (line[0] && !dequantized[0])
        printf("%s\n", line);
    else if (line[0])
        printf("weights as config.json stores them: %s; %s; --precision overrides\n",
               m->quant.what, dequantized);
    if (m->experts > 1)
        printf("MoE: %d of %d layers route each token to %d of %d experts of width %d%s\n",
               rl_llm_moe_layers(m), m->layers, m->experts_per_token, m->experts, m->ffn,
               m->shared_ffn ? ", plus shared experts" : "");
    if (m->mtp_layers)
        printf("note: %d multi-token prediction module%s (num_nextn_predict_layers), %.4g B "
               "parameters, not counted: %.4g B with %s\n",
               m->mtp_layers, m->mtp_layers > 1 ? "s" : "", rl_llm_mtp_params(m) / 1e9,
               (rl_llm_params(m) + rl_llm_mtp_params(m)) / 1e9, m->mtp_layers > 1 ? "them" : "it");
    if (m->unknown_keys[0])
        printf("note: config.json keys not understood (left out of the model): %s\n",
               m->unknown_keys);
}

const char *const llm_kv_precisions[] = {"bf16", "fp16", "fp8", NULL};

int cmd_llm(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "plan") == 0)
        return cmd_llm_plan(argc - 1, argv + 1);
    const char *precisions[RL_LLM_N_PRECISIONS + 1];
    for (int p = 0; p < RL_LLM_N_PRECISIONS; p++)
        precisions[p] = rl_llm_precision_name((enum rl_llm_precision)p);
    precisions[RL_LLM_N_PRECISIONS] = NULL;
    static const struct option opts[] = {{"model", required_argument, NULL, 'm'},
                                         {"gpu", required_argument, NULL, 'g'},
                                         {"bench", required_argument, NULL, 'b'},
                                         {"batch", required_argument, NULL, 'B'},
                                         {"seq", required_argument, NULL, 's'},
                                         {"precision", required_argument, NULL, 'p'},
                                         {"kv-precision", required_argument, NULL, 'k'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"measure", no_argument, NULL, 'M'},
                                         {"device", required_argument, NULL, 'd'},
                                         {"tp", required_argument, NULL, 1},
                                         {"pp", required_argument, NULL, 2},
                                         {"dp", required_argument, NULL, 3},
                                         {"ep", required_argument, NULL, 4},
                                         {"microbatches", required_argument, NULL, 5},
                                         {"zero", required_argument, NULL, 6},
                                         {"train", no_argument, NULL, 7},
                                         LLM_TRAIN_OPTIONS,
                                         {"params", required_argument, NULL, 9},
                                         {"nic-gbps", required_argument, NULL, 10},
                                         {"system", required_argument, NULL, 12},
                                         {"comm", required_argument, NULL, 13},
                                         {"nics-per-node", required_argument, NULL, 11},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *model = NULL, *gpu = NULL, *bench_path = NULL, *batches = NULL, *dir = NULL,
               *system_name = NULL, *comm_path = NULL;
    static struct llm_run r;
    memset(&r, 0, sizeof r);
    r.seq = 2048;
    r.cfg.precision = RL_LLM_BF16;
    r.cfg.kv = RL_LLM_KV_BF16;
    r.lay = RL_LLM_LAYOUT_ONE;
    r.net.nic_gbps = NAN;
    bool json = false, do_measure = false, zero_given = false, train_given = false;
    llm_train_defaults(&r.lay);
    int c, v, device = 0;
    double params = 0;
    char *end;
    static const char optstring[] = "ho:";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'g': gpu = optarg; break;
        case 'b': bench_path = optarg; break;
        case 'B': batches = optarg; break;
        case 'o': dir = optarg; break;
        case 'j': json = true; break;
        case 'M': do_measure = true; break;
        case 'd':
            if (cli_parse_int("llm", "--device", optarg, 0, CLI_MAX_DEVICE, &device))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_parse_int("llm", "--seq", optarg, 1, 10000000, &r.seq))
                return CLI_USAGE;
            break;
        case 1:
            if (cli_parse_int("llm", "--tp", optarg, 1, 4096, &r.lay.tp))
                return CLI_USAGE;
            break;
        case 2:
            if (cli_parse_int("llm", "--pp", optarg, 1, 4096, &r.lay.pp))
                return CLI_USAGE;
            break;
        case 3:
            if (cli_parse_int("llm", "--dp", optarg, 1, 1000000, &r.lay.dp))
                return CLI_USAGE;
            break;
        case 4:
            if (cli_parse_int("llm", "--ep", optarg, 1, 4096, &r.lay.ep))
                return CLI_USAGE;
            break;
        case 5:
            if (cli_parse_int("llm", "--microbatches", optarg, 1, 1000000, &r.lay.microbatches))
                return CLI_USAGE;
            break;
        case 6:
            if (cli_parse_int("llm", "--zero", optarg, 0, 3, &r.lay.zero))
                return CLI_USAGE;
            zero_given = true;
            break;
        case 7: r.lay.train = true; break;
        case 9:
            params = strtod(optarg, &end);
            if (end == optarg || *end || !(params >= 1) || !(params <= 1e15))
                return cli_usage_error("llm", "--params needs a parameter count from 1 to 1e15 "
                                              "(7.5e9), not '%s'", optarg);
            break;
        case 10:
            r.net.nic_gbps = strtod(optarg, &end);
            if (end == optarg || *end || !(r.net.nic_gbps > 0) || !(r.net.nic_gbps <= 1e5))
                return cli_usage_error("llm", "--nic-gbps needs a rate in Gb/s per NIC, above 0 "
                                              "(400), not '%s'", optarg);
            break;
        case 12: system_name = optarg; break;
        case 13: comm_path = optarg; break;
        case 11:
            if (cli_parse_int("llm", "--nics-per-node", optarg, 1, 64, &r.net.nics_per_node))
                return CLI_USAGE;
            break;
        case 'p':
            if ((v = rl_llm_precision_parse(optarg)) < 0)
                return cli_unknown_name("llm", "precision", optarg, precisions);
            r.cfg.precision = (enum rl_llm_precision)v;
            r.precision_given = true;
            break;
        case 'k':
            if ((v = rl_llm_kv_parse(optarg)) < 0)
                return cli_unknown_name("llm", "KV cache precision", optarg, llm_kv_precisions);
            r.cfg.kv = (enum rl_llm_kv)v;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: {
            int rc = llm_train_option("llm", c, argc, argv, &r.lay, &train_given);
            if (rc == CLI_USAGE)
                return rc;
            if (rc)
                return cli_option_error("llm", optstring, opts, argv);
        }
        }
    }
    if (optind < argc)
        return cli_usage_error("llm", "unexpected argument '%s'", argv[optind]);
    if (!model && !params)
        return cli_usage_error("llm", "--model is required (e.g. llama-3-8b), or --params N");
    if (model && params)
        return cli_usage_error("llm", "--model or --params, not both");
    r.params_only = params > 0;
    if (train_given && r.params_only)
        return cli_usage_error("llm", "--params sizes model states only: no --measure, "
                                      "--recompute, --batch or --ep");
    if (llm_train_check("llm", &r.lay, r.lay.train, train_given))
        return CLI_USAGE;
    if (zero_given && r.lay.zero && !r.lay.train && !r.params_only)
        return cli_usage_error("llm", "--zero partitions training state: give --train (or "
                                      "--params)");
    /* --params is training's model states already: --train says it again
     * and is accepted; what needs a shape or a GPU is refused. */
    if (r.params_only && (do_measure || r.lay.recompute || batches || r.lay.ep > 1))
        return cli_usage_error("llm", "--params sizes model states only: no --measure, "
                                      "--recompute, --batch or --ep");
    if ((long long)r.lay.tp * r.lay.pp * r.lay.dp * r.lay.ep > LLM_MAX_LAYOUT_GPUS)
        return cli_usage_error("llm", "TP x PP x DP x EP is %lld GPUs: at most %d",
                               (long long)r.lay.tp * r.lay.pp * r.lay.dp * r.lay.ep,
                               LLM_MAX_LAYOUT_GPUS);
    if (r.params_only)
        r.lay.train = true; /* model states are training's */
    const bool default_batches = !batches;
    if (!batches)
        batches = r.lay.train ? "8" : "1,8,64,256";
    /* One number at least ("" had none: a division by zero), none empty
     * ("8," ends in one). */
    for (const char *p = batches; !r.n_batches || *p;) {
        long b = strtol(p, &end, 10);
        if (end == p || b < 1 || b > 1000000 || (*end && *end != ',') ||
            (*end == ',' && !end[1]) || r.n_batches == LLM_MAX_BATCHES)
            return cli_usage_error("llm", "--batch: up to %d whole numbers from 1, "
                                          "comma-separated", LLM_MAX_BATCHES);
        r.batches[r.n_batches++] = (int)b;
        p = *end ? end + 1 : end;
    }
    if (default_batches) {
        /* The defaults give every microbatch of every GPU a sequence at
         * least: M x DP x EP (--batch as given is taken as given). */
        const long least = (long)r.lay.microbatches * r.lay.dp * r.lay.ep;
        int n = 0;
        for (int i = 0; i < r.n_batches; i++) {
            int b = r.batches[i] < least ? (int)(least < 1000000 ? least : 1000000)
                                         : r.batches[i];
            if (!n || b != r.batches[n - 1])
                r.batches[n++] = b;
        }
        r.n_batches = n;
    }
    if (do_measure && (!layout_is_one(&r.lay) || r.lay.train))
        return cli_usage_error("llm", "--measure runs one GPU's inference layers: no layout "
                                      "or --train");
    char err[RL_ERRMSG_SIZE], data[4096];
    if (r.params_only)
        rl_llm_model_of_params(&r.m, params);
    else if (rl_data_dir(data, sizeof data, err) || rl_llm_model_load(&r.m, data, model, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (!r.params_only && !r.precision_given) /* the checkpoint's own format */
        rl_llm_config_of_model(&r.m, r.cfg.kv, &r.cfg);
    if (do_measure && (r.cfg.precision != RL_LLM_BF16 || r.cfg.experts_only))
        return cli_usage_error("llm", "--measure runs BF16 layers, not %s",
                               rl_llm_precision_name(r.cfg.precision));
    const struct rl_llm_split sp = rl_llm_layout_split(&r.lay);
    if (rl_llm_split_check(&r.m, &sp, err))
        return cli_usage_error("llm", "%s", err);
    if (r.lay.virtual_stages > 1 && r.m.layers % (r.lay.pp * r.lay.virtual_stages))
        return cli_usage_error("llm", "--virtual-stages %d: the %d layers do not split into PP "
                                      "%d x %d equal chunks",
                               r.lay.virtual_stages, r.m.layers, r.lay.pp,
                               r.lay.virtual_stages);
    if (do_measure && r.m.experts > 1)
        return cli_usage_error("llm", "--measure runs dense layers: %s is a mixture of experts",
                               r.m.name);
    const struct rl_system *sys = NULL;
    if (system_name && !(sys = cli_find_system(system_name)))
        return CLI_FAIL;
    static struct rl_bench_ceilings bench;
    const struct rl_bench_ceilings *b;
    const struct rl_gpu_spec *s;
    if (cli_ceiling_sources(gpu ? gpu : !bench_path && sys ? sys->gpu : NULL, bench_path,
                            bench_path ? NULL : "h200", &bench, &b, &s))
        return CLI_FAIL;
    if (do_measure && cli_require_cuda_gpu("llm --measure", s))
        return CLI_FAIL; /* it runs the layers on this machine's NVIDIA GPU */
    if (rl_ceilings_init(&r.c, s, b, NULL, false, false, NULL, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (!r.precision_given && !r.params_only) /* the stored format on an older GPU */
        rl_llm_config_fit_roofs(&r.cfg, &r.c, r.dequantized, sizeof r.dequantized);
    rl_llm_capacity_of(&r.cap, s ? s->memory_size_gb : NAN);
    if (llm_net_init(&r.net, s, sys, &r.max_tp))
        return CLI_FAIL;
    static struct rl_comm_results measured;
    if (comm_path) {
        if (llm_comm_load(comm_path, s, &measured))
            return CLI_FAIL;
        r.net.measured = &measured;
    }
    int status = run_llm(&r, json, do_measure, dir, device);
    if (comm_path)
        rl_comm_results_release(&measured);
    return status;
}

