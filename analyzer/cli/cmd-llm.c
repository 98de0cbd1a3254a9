/* cmd-llm.c - `roofline llm`: why decode is bandwidth-bound and prefill compute-bound, operator by operator, for a model on a GPU. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/device/device.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/outset.h"
#include "analyzer/llm/llm.h"
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
    "                    [--measure [--device N]]\n"
    "\n"
    "Count the FLOPs and bytes (weights, activations, KV cache) of every operator\n"
    "of a transformer for one decode step at each batch (context --seq) and for a\n"
    "prefill of --seq tokens, place them on the GPU's roofline, and total them:\n"
    "time per decode step and tokens/s, prefill time, memory, and the crossover\n"
    "batch from which every decode linear layer is compute-bound. Every figure is\n"
    "analytic (the roofline's bound: no overlap, no launch latency) on datasheet\n"
    "or measured (--bench) ceilings.\n"
    "\n"
    "  --model M          llama-2-7b, llama-2-13b, llama-3-8b, llama-3-70b,\n"
    "                     mistral-7b, qwen2.5-7b, mixtral-8x7b (data/models), or a\n"
    "                     .json config\n"
    "  --gpu G            datasheet (default h200, or the bench file's GPU)\n"
    "  --bench FILE       measured ceilings from `roofline bench`\n"
    "  --batch LIST       decode batches, comma-separated (default 1,8,64,256)\n"
    "  --seq N            context of decode and length of prefill (default 2048)\n"
    "  --precision P      bf16 (default), fp16, fp8, w8a8, w4a16 (weights/activations)\n"
    "  --kv-precision P   bf16 (default), fp16, fp8\n"
    "  --json             JSON instead of the tables\n"
    "  -o DIR             also write DIR/llm.json, DIR/llm-roofline.svg (the\n"
    "                     operators on the roofline) and DIR/llm-batch.svg\n"
    "                     (tokens/s and step time against batch, crossover marked)\n"
    "  --measure          on a GPU: run each decode linear layer's shape (GEMV at\n"
    "                     batch 1, cuBLASLt GEMM above, BF16, outputs checked) under\n"
    "                     the profiler and put measured time and intensity beside\n"
    "                     the prediction (dense BF16 models)\n";

#define MAX_BATCHES 16

#define MAX_MEASURED (MAX_BATCHES * 5)

/* A decode linear layer run on the GPU beside its prediction. */
struct measured {
    int batch;
    char op[24];
    double predicted_ns, predicted_ai;
    bool predicted_memory;
    double time_ns, flops, dram_bytes; /* measured; NAN when not counted */
    bool over_roof;                    /* the report's judge: above 100% of its roof */
};

struct llm_run {
    struct rl_llm_model m;
    struct rl_llm_config cfg;
    struct rl_ceilings c;
    int batches[MAX_BATCHES], n_batches, seq, crossover;
    struct rl_llm_phase_cost decode[MAX_BATCHES], prefill;
    struct measured meas[MAX_MEASURED];
    int n_meas;
    char measure_trace[4096];       /* where the trace is written */
    char measure_trace_shown[4096]; /* where it will be (a set's stage unstaged) */
    int charts_rc;                  /* RL_ENOTOOL: the scripts only (no gnuplot) */
};

static void fmt_bytes(char *b, size_t n, double v)
{
    if (v >= 1e9)
        snprintf(b, n, "%.2f GB", v / 1e9);
    else if (v >= 1e6)
        snprintf(b, n, "%.2f MB", v / 1e6);
    else
        snprintf(b, n, "%.0f B", v);
}

static void print_ops(const struct rl_llm_phase_cost *p)
{
    printf("%-14s %5s %11s %11s %11s %11s %9s %10s %6s  %s\n", "OPERATOR", "COUNT", "GFLOP",
           "WEIGHTS MB", "ACT MB", "KV MB", "AI F/B", "TIME us", "SHARE", "BOUND");
    for (int i = 0; i < p->n_ops; i++) {
        const struct rl_llm_op *o = &p->ops[i];
        char ai[16];
        if (isinf(o->ai_flop_per_byte))
            snprintf(ai, sizeof ai, "inf");
        else
            snprintf(ai, sizeof ai, "%.3g", o->ai_flop_per_byte);
        printf("%-14s %5d %11.4g %11.4g %11.4g %11.4g %9s %10.4g %5.1f%%  %s (%s)\n", o->name,
               o->count, o->count * o->flops / 1e9, o->count * o->weight_bytes / 1e6,
               o->count * o->act_bytes / 1e6, o->count * o->kv_bytes / 1e6, ai,
               o->count * o->time_ns / 1e3, 100 * o->count * o->time_ns / p->time_ns,
               o->memory_bound ? "memory" : "compute", o->roof);
    }
}

static double tokens_per_s(const struct rl_llm_phase_cost *d) { return d->batch / (d->time_ns / 1e9); }

static void print_text(const struct llm_run *r)
{
    char origins[64], w[32], kv[32], tr[32];
    rl_ceilings_origins(&r->c, origins, sizeof origins);
    double wbytes = rl_llm_weights_bytes(&r->m, &r->cfg);
    double kvt = rl_llm_kv_bytes_per_token(&r->m, &r->cfg);
    fmt_bytes(w, sizeof w, wbytes);
    printf("%s on %s (%s ceilings; analytic times): %s weights, %s KV cache, context %d\n",
           r->m.name, r->c.gpu_name, origins, rl_llm_precision_name(r->cfg.precision),
           r->cfg.kv == RL_LLM_KV_FP8 ? "fp8" : r->cfg.kv == RL_LLM_KV_FP16 ? "fp16" : "bf16",
           r->seq);
    printf("parameters %.4g B; weights %s; KV cache %.0f bytes per token (%d layers x 2 x %d KV "
           "heads x %d)\n\n",
           rl_llm_params(&r->m) / 1e9, w, kvt, r->m.layers, r->m.kv_heads, r->m.head_dim);
    const struct rl_llm_phase_cost *d0 = &r->decode[0];
    printf("decode, batch %d, context %d: one step (a token for each sequence)\n", d0->batch,
           r->seq);
    print_ops(d0);
    printf("step %.4g ms: %.4g tokens/s; %.3g FLOP/B over the step\n\n", d0->time_ns / 1e6,
           tokens_per_s(d0), d0->flops / d0->bytes);
    printf("prefill of %d tokens (time to first token)\n", r->seq);
    print_ops(&r->prefill);
    printf("prefill %.4g ms; %.3g FLOP/B over the prefill\n\n", r->prefill.time_ns / 1e6,
           r->prefill.flops / r->prefill.bytes);
    printf("%6s %10s %12s %10s %12s %s\n", "BATCH", "STEP ms", "TOKENS/s", "KV CACHE",
           "MEMORY", "LINEAR LAYERS");
    for (int i = 0; i < r->n_batches; i++) {
        const struct rl_llm_phase_cost *d = &r->decode[i];
        int mem_bound = 0, linear = 0;
        for (int j = 0; j < d->n_ops; j++)
            if (d->ops[j].linear) {
                linear++;
                mem_bound += d->ops[j].memory_bound;
            }
        fmt_bytes(kv, sizeof kv, kvt * d->batch * r->seq);
        fmt_bytes(tr, sizeof tr, wbytes + kvt * d->batch * r->seq);
        printf("%6d %10.4g %12.4g %10s %12s %d of %d memory-bound\n", d->batch, d->time_ns / 1e6,
               tokens_per_s(d), kv, tr, mem_bound, linear);
    }
    if (r->crossover)
        printf("\ncrossover: from batch %d every decode linear layer is compute-bound (%s on "
               "%s)\n",
               r->crossover, rl_llm_linear_roof(r->cfg.precision), r->c.gpu_name);
    else
        printf("\ncrossover: not reached up to batch 65536\n");
    fmt_bytes(tr, sizeof tr, rl_llm_training_bytes(&r->m, 1, r->seq));
    printf("training memory (mixed precision, Adam, batch 1 x %d, no recomputation): %s\n",
           r->seq, tr);
}

/* `, "key": v` (no comma when first): every number of llm.json. */
static void num(FILE *f, const char *key, double v, bool first)
{
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", key);
    rl_fput_json_number(f, v);
}

static void ops_json(FILE *f, const struct rl_llm_phase_cost *p)
{
    fputs("[", f);
    for (int i = 0; i < p->n_ops; i++) {
        const struct rl_llm_op *o = &p->ops[i];
        fprintf(f, "%s\n      {\"name\": \"%s\"", i ? "," : "", o->name);
        num(f, "count", o->count, false);
        num(f, "flops", o->flops, false);
        num(f, "weight_bytes", o->weight_bytes, false);
        num(f, "activation_bytes", o->act_bytes, false);
        num(f, "kv_bytes", o->kv_bytes, false);
        num(f, "ai_flop_per_byte", o->ai_flop_per_byte, false);
        num(f, "time_ns", o->time_ns, false);
        fprintf(f, ", \"roof\": \"%s\", \"bound\": \"%s\", \"linear\": %s}", o->roof,
                o->memory_bound ? "memory" : "compute", o->linear ? "true" : "false");
    }
    fputs("]", f);
}

static int write_json(FILE *f, const struct llm_run *r)
{
    char origins[64];
    rl_ceilings_origins(&r->c, origins, sizeof origins);
    const struct rl_llm_phase_cost *d0 = &r->decode[0];
    double kvt = rl_llm_kv_bytes_per_token(&r->m, &r->cfg);
    fputs("{\n  \"schema_version\": 1,\n  \"origin\": \"analytic\",\n  \"model\": ", f);
    rl_fput_json_string(f, r->m.id);
    fputs(",\n  \"gpu\": ", f);
    rl_fput_json_string(f, r->c.gpu_name);
    fprintf(f, ",\n  \"ceilings\": \"%s\",\n  \"precision\": \"%s\",\n  \"kv_precision\": \"%s\","
               "\n  \"seq\": %d,\n  ",
            origins, rl_llm_precision_name(r->cfg.precision),
            r->cfg.kv == RL_LLM_KV_FP8 ? "fp8" : r->cfg.kv == RL_LLM_KV_FP16 ? "fp16" : "bf16",
            r->seq);
    num(f, "parameters", rl_llm_params(&r->m), true);
    fputs(",\n  ", f);
    num(f, "weights_bytes", rl_llm_weights_bytes(&r->m, &r->cfg), true);
    fputs(",\n  ", f);
    num(f, "kv_bytes_per_token", kvt, true);
    fputs(",\n  ", f);
    num(f, "kv_cache_bytes", kvt * d0->batch * r->seq, true);
    fprintf(f, ",\n  \"batch\": %d,\n  ", d0->batch);
    num(f, "decode_ms_per_token", d0->time_ns / 1e6, true);
    fputs(",\n  ", f);
    num(f, "tokens_per_s", tokens_per_s(d0), true);
    fputs(",\n  ", f);
    num(f, "prefill_ms", r->prefill.time_ns / 1e6, true);
    fputs(",\n  ", f);
    num(f, "crossover_batch", r->crossover ? r->crossover : NAN, true);
    fputs(",\n  ", f);
    num(f, "training_bytes", rl_llm_training_bytes(&r->m, 1, r->seq), true);
    fputs(",\n  \"operators\": {\"decode\": ", f);
    ops_json(f, d0);
    fputs(",\n    \"prefill\": ", f);
    ops_json(f, &r->prefill);
    fputs("},\n  \"batches\": [", f);
    for (int i = 0; i < r->n_batches; i++) {
        const struct rl_llm_phase_cost *d = &r->decode[i];
        fprintf(f, "%s\n    {\"batch\": %d", i ? "," : "", d->batch);
        num(f, "decode_ms_per_token", d->time_ns / 1e6, false);
        num(f, "tokens_per_s", tokens_per_s(d), false);
        num(f, "kv_cache_bytes", kvt * d->batch * r->seq, false);
        num(f, "flops", d->flops, false);
        num(f, "bytes", d->bytes, false);
        fputs("}", f);
    }
    fputs("\n  ]", f);
    if (r->n_meas) {
        fputs(",\n  \"measured\": {\"trace\": ", f);
        rl_fput_json_string(f, r->measure_trace_shown);
        fputs(", \"layers\": [", f);
        for (int i = 0; i < r->n_meas; i++) {
            const struct measured *x = &r->meas[i];
            fprintf(f, "%s\n    {\"batch\": %d, \"op\": \"%s\"", i ? "," : "", x->batch, x->op);
            num(f, "predicted_ns", x->predicted_ns, false);
            num(f, "predicted_ai_flop_per_byte", x->predicted_ai, false);
            fprintf(f, ", \"predicted_bound\": \"%s\"", x->predicted_memory ? "memory" : "compute");
            /* Not counted (or not timed): null, never zero. */
            num(f, "time_ns", x->time_ns, false);
            /* The prediction is the roofline's bound: faster than it is above
             * the roof, a number to distrust (the guard of every judge). */
            fprintf(f, ", \"over_roof\": %s", x->over_roof ? "true" : "false");
            num(f, "ai_flop_per_byte", x->dram_bytes > 0 ? x->flops / x->dram_bytes : NAN,
                false);
            fputs(", \"origin\": \"measured\"}", f);
        }
        fputs("]}", f);
    }
    fputs("\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* ---- --measure ------------------------------------------------------------ */

/* The measured layers judged by the report's judge, as every measured
 * kernel is: its guards flag a layer above its roof. */
static int judge_measured(struct llm_run *r)
{
    char err[RL_ERRMSG_SIZE];
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    int rc = RL_OK;
    for (int i = 0; i < r->n_meas && rc == RL_OK; i++) {
        const struct measured *x = &r->meas[i];
        char name[64];
        snprintf(name, sizeof name, "b%d %s", x->batch, x->op);
        const double bytes[RL_MEM_COUNT] = {x->dram_bytes, NAN, NAN};
        bool counted = !isnan(x->flops) && !isnan(x->dram_bytes);
        rc = rl_trace_groups_add(&g, name, NULL, NULL, counted ? rl_llm_linear_roof(r->cfg.precision) : "",
                                 RL_ORIGIN_MEASURED, 1, counted ? x->flops : NAN, bytes,
                                 x->time_ns);
    }
    static struct rl_report rep;
    if (rc == RL_OK)
        rc = rl_report_build(&rep, &r->c, &g, err);
    for (size_t k = 0; rc == RL_OK && k < rep.n; k++)
        for (int i = 0; i < r->n_meas; i++) {
            char name[64];
            snprintf(name, sizeof name, "b%d %s", r->meas[i].batch, r->meas[i].op);
            if (strcmp(name, rep.rows[k].name) == 0)
                r->meas[i].over_roof = rep.rows[k].over_roof;
        }
    if (rc == RL_OK)
        rl_report_release(&rep);
    rl_trace_groups_release(&g);
    if (rc)
        cli_error("%s", rc == RL_ENOMEM ? "out of memory" : err);
    return rc ? CLI_FAIL : CLI_OK;
}

/* The shape of a decode linear layer: out x batch x in. */
static bool linear_shape(const struct rl_llm_model *m, const char *op, int64_t *out, int64_t *in)
{
    const int64_t H = m->hidden, F = m->ffn, qkv = (int64_t)(m->heads + 2 * m->kv_heads) * m->head_dim;
    if (strcmp(op, "qkv_proj") == 0)
        *out = qkv, *in = H;
    else if (strcmp(op, "o_proj") == 0)
        *out = H, *in = (int64_t)m->heads * m->head_dim;
    else if (strcmp(op, "gate_up_proj") == 0)
        *out = 2 * F, *in = H;
    else if (strcmp(op, "up_proj") == 0)
        *out = F, *in = H;
    else if (strcmp(op, "down_proj") == 0)
        *out = H, *in = F;
    else if (strcmp(op, "lm_head") == 0)
        *out = m->vocab, *in = H;
    else
        return false;
    return true;
}

/* Run the decode linear layers under the profiler (the GPU was checked by
 * cmd_llm, dense BF16 too); the trace goes into dir (a set's stage) or ".". */
static int measure(struct llm_run *r, const char *dir, int device)
{
    char err[RL_ERRMSG_SIZE];
    const struct rl_device_api *api;
    struct rl_device_info dev;
    if (cli_open_gpu("--measure needs a GPU", device, &api, &dev))
        return CLI_FAIL;
    static struct rl_wl_shape shapes[MAX_MEASURED];
    int n = 0;
    for (int b = 0; b < r->n_batches; b++)
        for (int i = 0; i < r->decode[b].n_ops && n < MAX_MEASURED; i++) {
            const struct rl_llm_op *o = &r->decode[b].ops[i];
            int64_t out, in;
            if (!o->linear || !linear_shape(&r->m, o->name, &out, &in))
                continue;
            snprintf(shapes[n].label, sizeof shapes[n].label, "b%d %s", r->batches[b], o->name);
            shapes[n].m = out;
            shapes[n].n = r->batches[b];
            shapes[n].k = in;
            struct measured *x = &r->meas[n];
            x->batch = r->batches[b];
            snprintf(x->op, sizeof x->op, "%s", o->name);
            x->predicted_ns = o->time_ns;
            x->predicted_ai = o->ai_flop_per_byte;
            x->predicted_memory = o->memory_bound;
            x->time_ns = x->flops = x->dram_bytes = NAN;
            n++;
        }
    r->n_meas = n;
    snprintf(r->measure_trace, sizeof r->measure_trace, "%s/llm-measure-trace.json",
             dir ? dir : ".");
    snprintf(r->measure_trace_shown, sizeof r->measure_trace_shown, "%s", r->measure_trace);
    cli_unstage(r->measure_trace_shown, sizeof r->measure_trace_shown);
    struct rl_trace_request req = {.device = device, .workload = "shapes",
                                   .out_path = r->measure_trace,
                                   .counters = RL_COUNTERS_DEFAULT, .samples = 1,
                                   .reps = 3, .program = "roofline llm --measure",
                                   .shapes = shapes, .n_shapes = n};
    struct rl_calibration cal;
    if (api->trace_builtin(&req, &cal, err)) {
        cli_error("measuring: %s", err);
        return CLI_FAIL;
    }
    cJSON *doc;
    if (rl_json_parse_file(r->measure_trace, &doc, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    const cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(doc, "steps"))
    {
        const char *label = rl_json_string(st, "label");
        for (int i = 0; label && i < n; i++) {
            size_t k = strlen(shapes[i].label);
            if (strncmp(label, shapes[i].label, k) != 0 || label[k] != ' ')
                continue;
            r->meas[i].time_ns = rl_json_number(st, "time_ns");
            r->meas[i].flops = rl_json_number(st, "flops");
            r->meas[i].dram_bytes = rl_json_number(st, "dram_bytes");
        }
    }
    cJSON_Delete(doc);
    if (judge_measured(r))
        return CLI_FAIL;
    printf("\nmeasured on %s (trace %s; counters: %s)\n", dev.name, r->measure_trace_shown,
           cal.counters_status);
    printf("%6s %-14s %12s %12s %7s %10s %10s %9s\n", "BATCH", "LAYER", "PREDICTED us",
           "MEASURED us", "RATIO", "AI pred", "AI meas", "BOUND");
    int over = 0;
    for (int i = 0; i < n; i++) {
        const struct measured *x = &r->meas[i];
        double ai = x->dram_bytes > 0 ? x->flops / x->dram_bytes : NAN;
        bool fast = x->over_roof;
        over += fast;
        printf("%6d %-14s %12.4g %12.4g %6.3g%s %10.4g %10.4g %9s\n", x->batch, x->op,
               x->predicted_ns / 1e3, x->time_ns / 1e3, x->time_ns / x->predicted_ns,
               fast ? "!" : " ", x->predicted_ai, ai, x->predicted_memory ? "memory" : "compute");
    }
    if (over)
        printf("! %d layer%s ran faster than the roofline allows (above 100%% of the roof): the "
               "ceilings may be another GPU's (--gpu), the model's shapes or precision wrong, or "
               "a count or unit misread\n",
               over, over == 1 ? "" : "s");
    return CLI_OK;
}

static int charts(const struct llm_run *r, const char *dir, char *err)
{
    /* (a) every operator of every phase on the roofline: the operators are
     * kernel groups (analytic: their FLOPs, bytes and predicted time), judged
     * and drawn by the report's judge and chart writer like any kernels. */
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    int rc = RL_OK;
    for (int ph = 0; ph <= r->n_batches && rc == RL_OK; ph++) {
        const struct rl_llm_phase_cost *c = ph < r->n_batches ? &r->decode[ph] : &r->prefill;
        for (int i = 0; i < c->n_ops && rc == RL_OK; i++) {
            const struct rl_llm_op *o = &c->ops[i];
            if (!(o->flops > 0) || !isfinite(o->ai_flop_per_byte))
                continue;
            char label[48];
            if (c->phase == RL_LLM_DECODE)
                snprintf(label, sizeof label, "decode b%d %s", c->batch, o->name);
            else
                snprintf(label, sizeof label, "prefill %s", o->name);
            const double bytes[RL_MEM_COUNT] = {
                o->count * (o->weight_bytes + o->act_bytes + o->kv_bytes), NAN, NAN};
            rc = rl_trace_groups_add(&g, label, NULL, NULL, o->roof, RL_ORIGIN_ANALYTIC,
                                     (uint64_t)o->count, o->count * o->flops, bytes,
                                     o->count * o->time_ns);
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
    char title[400], path[4096];
    snprintf(title, sizeof title, "%s on %s: decode (batch %d...%d) and prefill (%d tokens)",
             r->m.name, r->c.gpu_name, r->batches[0], r->batches[r->n_batches - 1], r->seq);
    snprintf(path, sizeof path, "%s/llm-roofline.svg", dir);
    rc = rl_report_chart(&rep, &r->c, title, path, 12, err);
    rl_report_release(&rep);
    if (rc && rc != RL_ENOTOOL)
        return rc;
    /* (b) tokens/s and step time against batch. */
    double xs[24], tps[24], ms[24];
    size_t m = 0;
    int top = r->batches[r->n_batches - 1];
    if (r->crossover > top)
        top = r->crossover;
    static struct rl_llm_phase_cost d;
    for (int b = 1; m < 24 && b <= 2 * top; b *= 2) {
        rl_llm_phase(&r->m, &r->cfg, RL_LLM_DECODE, b, r->seq, &d);
        if (rl_llm_evaluate(&d, (struct rl_ceilings *)&r->c, err))
            return RL_EUNSUPPORTED;
        xs[m] = b;
        tps[m] = tokens_per_s(&d);
        ms[m] = d.time_ns / 1e6;
        m++;
    }
    struct rl_xy_series s[2] = {{.title = "tokens/s", .x = xs, .y = tps, .n = m},
                                {.title = "step time (ms)", .x = xs, .y = ms, .n = m, .y2 = true}};
    double vx = r->crossover;
    char vl[64];
    snprintf(vl, sizeof vl, "crossover: batch %d", r->crossover);
    const char *vls[1] = {vl};
    snprintf(title, sizeof title, "%s on %s: decode throughput against batch (context %d)",
             r->m.name, r->c.gpu_name, r->seq);
    struct rl_xy_chart xy = {.title = title, .xlabel = "batch (sequences decoded together)",
                             .ylabel = "tokens/s", .y2label = "step time (ms)", .logx = true,
                             .logy = true, .logy2 = true, .series = s, .n_series = 2,
                             .vline_x = &vx, .vline_label = vls,
                             .n_vlines = r->crossover ? 1 : 0};
    snprintf(path, sizeof path, "%s/llm-batch.svg", dir);
    int rc_xy = rl_xy_chart_render(&xy, path, err);
    return rc_xy ? rc_xy : rc;
}

/* Measure (--measure), print, and write dir's files (dir: a stage, or NULL). */
static int write_outputs(struct llm_run *r, bool json, bool do_measure, const char *dir,
                         int device)
{
    char err[RL_ERRMSG_SIZE];
    if (do_measure && !json)
        print_text(r);
    if (do_measure && measure(r, dir, device))
        return CLI_FAIL;
    if (do_measure && !json) {
        /* printed above */
    } else if (json)
        write_json(stdout, r);
    else
        print_text(r);
    if (!dir)
        return CLI_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s/llm.json", dir);
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, err);
    if (rc == RL_OK && write_json(f.fp, r)) {
        rl_atomic_abort(&f);
        rc = rl_fail(err, RL_EIO, "'%s': write failed", path);
    }
    if (rc == RL_OK)
        rc = rl_atomic_commit(&f, err);
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    r->charts_rc = charts(r, dir, err);
    return cli_chart_status(r->charts_rc, err);
}

static const char *const kv_precisions[] = {"bf16", "fp16", "fp8", NULL};

int cmd_llm(int argc, char **argv)
{
    const char *precisions[RL_LLM_W4A16 + 2];
    for (int p = 0; p <= RL_LLM_W4A16; p++)
        precisions[p] = rl_llm_precision_name((enum rl_llm_precision)p);
    precisions[RL_LLM_W4A16 + 1] = NULL;
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
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *model = NULL, *gpu = NULL, *bench_path = NULL, *batches = "1,8,64,256",
               *dir = NULL;
    static struct llm_run r;
    memset(&r, 0, sizeof r);
    r.seq = 2048;
    r.cfg.precision = RL_LLM_BF16;
    r.cfg.kv = RL_LLM_KV_BF16;
    bool json = false, do_measure = false;
    int c, v, device = 0;
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
        case 'p':
            if ((v = rl_llm_precision_parse(optarg)) < 0)
                return cli_unknown_name("llm", "precision", optarg, precisions);
            r.cfg.precision = (enum rl_llm_precision)v;
            break;
        case 'k':
            if ((v = rl_llm_kv_parse(optarg)) < 0)
                return cli_unknown_name("llm", "KV cache precision", optarg, kv_precisions);
            r.cfg.kv = (enum rl_llm_kv)v;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("llm", optstring, opts, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("llm", "unexpected argument '%s'", argv[optind]);
    if (!model)
        return cli_usage_error("llm", "--model is required (e.g. llama-3-8b)");
    for (const char *p = batches; *p;) {
        long b = strtol(p, &end, 10);
        if (end == p || b < 1 || b > 1000000 || (*end && *end != ',') ||
            r.n_batches == MAX_BATCHES)
            return cli_usage_error("llm", "--batch: up to %d whole numbers from 1, "
                                          "comma-separated", MAX_BATCHES);
        r.batches[r.n_batches++] = (int)b;
        p = *end ? end + 1 : end;
    }
    if (do_measure && r.cfg.precision != RL_LLM_BF16)
        return cli_usage_error("llm", "--measure runs BF16 layers, not %s",
                               rl_llm_precision_name(r.cfg.precision));
    char err[RL_ERRMSG_SIZE], data[4096];
    if (rl_data_dir(data, sizeof data, err) ||
        rl_llm_model_load(&r.m, data, model, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (do_measure && r.m.experts > 1)
        return cli_usage_error("llm", "--measure runs dense layers: %s is a mixture of experts",
                               r.m.name);
    static struct rl_bench_ceilings bench;
    const struct rl_bench_ceilings *b;
    const struct rl_gpu_spec *s;
    if (cli_ceiling_sources(gpu, bench_path, bench_path ? NULL : "h200", &bench, &b, &s))
        return CLI_FAIL;
    if (rl_ceilings_init(&r.c, s, b, NULL, false, false, NULL, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    for (int i = 0; i < r.n_batches; i++) {
        rl_llm_phase(&r.m, &r.cfg, RL_LLM_DECODE, r.batches[i], r.seq, &r.decode[i]);
        if (rl_llm_evaluate(&r.decode[i], &r.c, err)) {
            cli_error("%s", err);
            return CLI_FAIL;
        }
    }
    rl_llm_phase(&r.m, &r.cfg, RL_LLM_PREFILL, 1, r.seq, &r.prefill);
    if (rl_llm_evaluate(&r.prefill, &r.c, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    r.crossover = rl_llm_crossover_batch(&r.m, &r.cfg, r.seq, &r.c, 65536);
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
    int status = write_outputs(&r, json, do_measure, stage, device);
    if (status == CLI_OK && dir && rl_outset_commit(&set, err)) {
        cli_error("%s", err);
        status = CLI_FAIL;
    }
    rl_outset_abort(&set);
    cli_outset_show(NULL);
    if (status == CLI_OK && dir && !json)
        printf("\nwrote %s/llm.json%s\n", dir,
               r.charts_rc == RL_ENOTOOL ? " and the chart scripts (no images: gnuplot missing)"
                                         : ", llm-roofline.svg, llm-batch.svg");
    return status;
}
