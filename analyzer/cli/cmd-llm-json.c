/* cmd-llm-json.c - llm.json: the JSON of one `roofline llm` run (docs/llm.md, "JSON", lists its keys). */
#include "analyzer/cli/cmd-llm.h"

#include "analyzer/comm/system.h"

#include "analyzer/util/strbuf.h"

#include <math.h>
#include <stdio.h>

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
        if (o->linear) {
            fputs(", \"shape\": {", f);
            num(f, "tokens", o->tokens, true);
            num(f, "in", o->in, false);
            num(f, "out", o->out, false);
            fputs("}", f);
        } else if (o->heads > 0) {
            fputs(", \"shape\": {", f);
            num(f, "heads", o->heads, true);
            num(f, "kv_heads", o->kv_heads, false);
            num(f, "keys", o->keys, false);
            fputs("}", f);
        }
        fprintf(f, ", \"roof\": \"%s\", \"bound\": \"%s\", \"linear\": %s}", o->roof,
                o->memory_bound ? "memory" : "compute", o->linear ? "true" : "false");
    }
    fputs("]", f);
}

static void memory_json(FILE *f, const struct rl_llm_memory *mm)
{
    fputs("{", f);
    num(f, "weights", mm->weights_bytes, true);
    num(f, "kv_cache", mm->kv_cache_bytes, false);
    num(f, "activations", mm->activations_counted ? mm->activations_bytes : NAN, false);
    num(f, "gradients", mm->gradients_bytes, false);
    num(f, "optimizer", mm->optimizer_bytes, false);
    num(f, "total", mm->total_bytes, false);
    fputs("}", f);
}

/* The keys of the memory, layout and step: every result carries them. */
static void fit_json(FILE *f, const struct llm_run *r)
{
    const struct rl_llm_layout *l = &r->lay;
    fprintf(f, ",\n  \"layout\": {\"tp\": %d, \"pp\": %d, \"dp\": %d, \"ep\": %d, \"zero\": %d, "
               "\"microbatches\": %d, \"gpus\": %d, \"train\": %s, \"recompute\": %s",
            l->tp, l->pp, l->dp, l->ep, l->zero, l->microbatches, rl_llm_layout_gpus(l),
            l->train ? "true" : "false", l->recompute ? "true" : "false");
    /* training's options (issue 38): which recomputation, SP, chunks per
     * stage, what overlaps, and whether the steps are a bound or a
     * prediction at an efficiency */
    if (l->train && !r->params_only) {
        fprintf(f, ", \"recompute_mode\": \"%s\", \"sequence_parallel\": %s, "
                   "\"virtual_stages\": %d, \"overlap_dp\": %s, \"overlap_tp\": %s, "
                   "\"unfused_attention\": %s, \"estimate\": \"%s\", ",
                rl_llm_recompute_name(l->recompute), l->seq_parallel ? "true" : "false",
                l->virtual_stages > 1 ? l->virtual_stages : 1,
                l->overlap & RL_LLM_OVERLAP_DP ? "true" : "false",
                l->overlap & RL_LLM_OVERLAP_TP ? "true" : "false",
                l->unfused_attention ? "true" : "false",
                l->efficiency > 0 && l->efficiency < 1 ? "prediction" : "bound");
        num(f, "efficiency", l->efficiency > 0 && l->efficiency < 1 ? l->efficiency : NAN, true);
    }
    fputs("}", f);
    fputs(",\n  ", f);
    num(f, "gpu_memory_bytes", r->cap.gpu_memory_bytes, true);
    fputs(",\n  ", f);
    num(f, "reserve_bytes", r->cap.reserve_bytes, true);
    fputs(",\n  ", f);
    num(f, "usable_memory_bytes", r->cap.usable_bytes, true);
    fputs(",\n  \"memory_per_gpu_bytes\": ", f);
    memory_json(f, &r->mem[0]);
    fputs(",\n  ", f);
    num(f, "model_state_bytes_per_gpu", r->mem[0].model_state_bytes, true);
    fprintf(f, ",\n  \"fits\": %s",
            isnan(r->cap.gpu_memory_bytes) ? "null" : llm_fits(r, 0) ? "true" : "false");
    fputs(",\n  ", f);
    num(f, "max_batch_that_fits",
        r->params_only || isnan(r->cap.gpu_memory_bytes) ? NAN : r->max_fit, true);
    fputs(",\n  ", f);
    num(f, "min_gpus", r->min_gpus ? r->min_gpus : NAN, true);
    if (r->min_gpus)
        fprintf(f, ",\n  \"min_gpus_layout\": {\"tp\": %d, \"pp\": %d, \"dp\": %d, \"ep\": %d}",
                r->min_layout.tp, r->min_layout.pp, r->min_layout.dp, r->min_layout.ep);
    if (r->params_only) {
        /* No shape, no step: the bubble is the layout's alone (P and M as
         * given), no communication or bound is known. */
        fputs(",\n  ", f);
        num(f, "pipeline_bubble_fraction", rl_llm_bubble_fraction(l->pp, l->microbatches), true);
        fputs(",\n  \"comm_ms_per_step\": null,\n  \"bound\": null", f);
        return;
    }
    const struct rl_llm_step *s = &r->steps[0];
    fputs(",\n  ", f);
    num(f, "pipeline_bubble_fraction", s->bubble_fraction, true);
    fputs(",\n  ", f);
    num(f, "comm_ms_per_step", s->comm_ns / 1e6, true);
    fputs(",\n  \"step\": {", f);
    num(f, "time_ms", s->time_ns / 1e6, true);
    num(f, "compute_ms", s->compute_ns / 1e6, false);
    num(f, "memory_ms", s->memory_ns / 1e6, false);
    num(f, "comm_ms", s->comm_ns / 1e6, false);
    num(f, "bubble_ms", s->bubble_ns / 1e6, false);
    num(f, "flops_per_gpu", s->flops_per_gpu, false);
    num(f, "microbatches", s->layout.microbatches, false); /* at most the GPU's sequences */
    num(f, "tflops_per_gpu", s->flops_per_gpu / s->time_ns / 1e3, false);
    fputs("}", f);
    fprintf(f, ",\n  \"bound\": \"%s\",\n  \"bound_reason\": ", rl_llm_bound_name(s->bound));
    rl_fput_json_string(f, s->why);
    fputs(",\n  \"nics_from_system\": ", f); /* NICs between nodes taken from data/systems */
    if (r->net.nic_system)
        rl_fput_json_string(f, r->net.nic_system->id);
    else if (r->net.sys)
        rl_fput_json_string(f, r->net.sys->id);
    else
        fputs("null", f);
    fputs(",\n  \"communication\": [", f);
    for (int i = 0; i < s->n_comm; i++) {
        const struct rl_llm_comm *c = &s->comm[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        rl_fput_json_string(f, c->name);
        fprintf(f, ", \"collective\": \"%s\", \"gpus\": %d", c->collective, c->gpus);
        num(f, "bytes", c->bytes, false);
        num(f, "calls_per_step", c->calls, false);
        num(f, "time_us", c->time_us, false);
        num(f, "ms_per_step", c->calls * c->time_us / 1e3, false);
        num(f, "nic_share", c->nic_share, false);
        fprintf(f, ", \"in_pipeline\": %s", c->in_pipeline ? "true" : "false");
        fputs(", \"link\": ", f);
        rl_fput_json_string(f, c->link);
        num(f, "link_gbs", c->link_gbs, false);
        fprintf(f, ", \"origin\": \"%s\", \"link_origin\": \"%s\"}", rl_origin_name(c->origin),
                rl_origin_name(c->link_origin));
    }
    fputs(s->n_comm ? "\n  ]" : "]", f);
}

int llm_write_json(FILE *f, const struct llm_run *r)
{
    char origins[64];
    rl_ceilings_origins(&r->c, origins, sizeof origins);
    const struct rl_llm_step *d0 = &r->steps[0];
    double kvt = rl_llm_kv_bytes_per_token(&r->m, &r->cfg);
    fputs("{\n  \"schema_version\": 1,\n  \"origin\": \"analytic\",\n  \"model\": ", f);
    rl_fput_json_string(f, r->m.id);
    fputs(",\n  \"gpu\": ", f);
    rl_fput_json_string(f, r->c.gpu_name);
    fprintf(f, ",\n  \"ceilings\": \"%s\",\n  \"precision\": \"%s\",\n  \"kv_precision\": \"%s\","
               "\n  \"seq\": %d,\n  ",
            origins, rl_llm_precision_name(r->cfg.precision), llm_kv_name(&r->cfg), r->seq);
    num(f, "parameters", rl_llm_params(&r->m), true);
    fputs(",\n  ", f);
    num(f, "active_parameters", rl_llm_active_params(&r->m), true);
    fputs(",\n  ", f);
    num(f, "mtp_parameters", r->m.mtp_layers ? rl_llm_mtp_params(&r->m) : NAN, true);
    /* The checkpoint's stored format (config.json), and what set precision. */
    fputs(",\n  \"weights_format\": ", f);
    if (r->m.has_quant)
        rl_fput_json_string(f, r->m.quant.what);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"precision_from\": \"%s\",\n  \"weights_dequantized\": %s",
            r->precision_given ? "--precision" : r->m.has_quant ? "config" : "default",
            r->dequantized[0] ? "true" : "false");
    fputs(",\n  \"config_keys_not_understood\": ", f);
    if (r->m.unknown_keys[0])
        rl_fput_json_string(f, r->m.unknown_keys);
    else
        fputs("null", f);
    fputs(",\n  ", f);
    num(f, "weights_bytes", rl_llm_weights_bytes(&r->m, &r->cfg), true);
    fit_json(f, r);
    if (r->params_only) {
        fputs("\n}\n", f);
        return ferror(f) ? -1 : 0;
    }
    fputs(",\n  ", f);
    num(f, "sliding_window", r->m.sliding_window ? r->m.sliding_window : NAN, true);
    fputs(",\n  ", f);
    num(f, "kv_bytes_per_token", kvt, true);
    fputs(",\n  ", f);
    num(f, "kv_cache_bytes", r->lay.train ? 0 : rl_llm_kv_bytes_per_sequence(&r->m, &r->cfg,
                                                                              r->seq) *
                                                     d0->batch,
        true);
    fprintf(f, ",\n  \"batch\": %d,\n  ", d0->batch);
    if (r->lay.train) {
        num(f, "step_ms", d0->time_ns / 1e6, true);
        fputs(",\n  ", f);
        num(f, "tokens_per_s", llm_tokens_per_s(d0), true);
        fputs(",\n  \"operators\": {\"train\": ", f);
        ops_json(f, &d0->micro);
        fputs("},\n  \"batches\": [", f);
    } else {
        num(f, "decode_ms_per_token", d0->time_ns / 1e6, true);
        fputs(",\n  ", f);
        num(f, "tokens_per_s", llm_tokens_per_s(d0), true);
        fputs(",\n  ", f);
        num(f, "prefill_ms", r->prefill.time_ns / 1e6, true);
        fputs(",\n  ", f);
        num(f, "crossover_batch", r->crossover ? r->crossover : NAN, true);
        fprintf(f, ",\n  \"crossover_fits\": %s",
                !r->crossover || isnan(r->cap.gpu_memory_bytes) ? "null"
                : r->crossover <= r->max_fit                     ? "true"
                                                                 : "false");
        fputs(",\n  ", f);
        num(f, "training_bytes", r->train_mem.total_bytes, true);
        fputs(",\n  \"operators\": {\"decode\": ", f);
        ops_json(f, &d0->micro);
        fputs(",\n    \"prefill\": ", f);
        ops_json(f, &r->prefill.micro);
        fputs("},\n  \"batches\": [", f);
    }
    for (int i = 0; i < r->n_batches; i++) {
        const struct rl_llm_step *d = &r->steps[i];
        fprintf(f, "%s\n    {\"batch\": %d", i ? "," : "", d->batch);
        num(f, r->lay.train ? "step_ms" : "decode_ms_per_token", d->time_ns / 1e6, false);
        num(f, "tokens_per_s", llm_tokens_per_s(d), false);
        num(f, "kv_cache_bytes",
            r->lay.train ? 0 : rl_llm_kv_bytes_per_sequence(&r->m, &r->cfg, r->seq) * d->batch,
            false);
        num(f, "flops", d->micro.flops * d->layout.microbatches, false);
        num(f, "bytes", d->micro.bytes * d->layout.microbatches, false);
        fprintf(f, ", \"fits\": %s, \"memory_per_gpu_bytes\": ",
                isnan(r->cap.gpu_memory_bytes) ? "null" : llm_fits(r, i) ? "true" : "false");
        memory_json(f, &r->mem[i]);
        fprintf(f, ", \"bound\": \"%s\"", rl_llm_bound_name(d->bound));
        fputs("}", f);
    }
    fputs("\n  ]", f);
    if (r->n_meas) {
        fputs(",\n  \"measured\": {\"trace\": ", f);
        rl_fput_json_string(f, r->measure_trace_shown);
        fputs(", \"layers\": [", f);
        for (int i = 0; i < r->n_meas; i++) {
            const struct llm_measured *x = &r->meas[i];
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

