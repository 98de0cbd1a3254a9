/* cmd-llm-measure.c - `roofline llm --measure`: each decode linear layer's shape run on the GPU under the profiler, beside its prediction. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"
#include "analyzer/cli/cmd-llm.h"

#include "analyzer/device/device.h"
#include "analyzer/readers/tracefile.h"
#include "analyzer/report/report.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/numtext.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
        const struct llm_measured *x = &r->meas[i];
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
int llm_measure(struct llm_run *r, const char *dir, int device)
{
    char err[RL_ERRMSG_SIZE];
    const struct rl_device_api *api;
    struct rl_device_info dev;
    if (cli_open_gpu("--measure needs a GPU", device, &api, &dev))
        return CLI_FAIL;
    static struct rl_wl_shape shapes[LLM_MAX_MEASURED];
    int n = 0;
    for (int b = 0; b < r->n_batches; b++)
        for (int i = 0; i < r->steps[b].micro.n_ops && n < LLM_MAX_MEASURED; i++) {
            const struct rl_llm_op *o = &r->steps[b].micro.ops[i];
            int64_t out, in;
            if (!o->linear || !linear_shape(&r->m, o->name, &out, &in))
                continue;
            snprintf(shapes[n].label, sizeof shapes[n].label, "b%d %s", r->batches[b], o->name);
            shapes[n].m = out;
            shapes[n].n = r->batches[b];
            shapes[n].k = in;
            struct llm_measured *x = &r->meas[n];
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
        const struct llm_measured *x = &r->meas[i];
        double ai = x->dram_bytes > 0 ? x->flops / x->dram_bytes : NAN;
        bool fast = x->over_roof;
        over += fast;
        printf("%6d %-14s %12s %12s %6s%s %10s %10s %9s\n", x->batch, x->op,
               rl_num(x->predicted_ns / 1e3, 4), rl_num(x->time_ns / 1e3, 4),
               rl_num(x->time_ns / x->predicted_ns, 3), fast ? "!" : " ",
               rl_num(x->predicted_ai, 4), rl_num(ai, 4),
               x->predicted_memory ? "memory" : "compute");
    }
    if (over)
        printf("! %d layer%s ran faster than the roofline allows (above 100%% of the roof): the "
               "ceilings may be another GPU's (--gpu), the model's shapes or precision wrong, or "
               "a count or unit misread\n",
               over, over == 1 ? "" : "s");
    return CLI_OK;
}

