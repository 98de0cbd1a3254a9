/* trace.c - the records of a traced program's kernel launches, their FLOPs and bytes, and the trace file. */
#include "analyzer/profiler/trace.h"

#include "analyzer/profiler/nccl.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON, written by hand: streaming, no allocation per record ---------- */

#define put_string rl_fput_json_string

static void put_number(FILE *f, double v)
{
    if (!isfinite(v))
        fputs("null", f);
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.9g", v);
}

static void key(FILE *f, const char *k, bool first)
{
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", k);
}

static const char *counts_name(enum rl_counts_origin o)
{
    static const char *const names[] = {"none", "counters", "sampled", "analytic"};
    return names[o];
}

static void put_counts(FILE *f, const struct rl_kernel_counts *c)
{
    key(f, "dram_read_bytes", false);
    put_number(f, c->dram_read_bytes);
    key(f, "dram_write_bytes", false);
    put_number(f, c->dram_write_bytes);
    key(f, "l2_bytes", false);
    put_number(f, c->l2_bytes);
    key(f, "l1_bytes", false);
    put_number(f, c->l1_bytes);
    key(f, "flops_fp64", false);
    put_number(f, c->flops_fp64);
    key(f, "flops_fp32", false);
    put_number(f, c->flops_fp32);
    key(f, "flops_fp16", false);
    put_number(f, c->flops_fp16);
    key(f, "flops_tensor", false);
    put_number(f, c->flops_tensor);
    key(f, "counter_time_ns", false);
    put_number(f, c->time_ns);
}

static bool has_counters(const struct rl_trace_kernel *k)
{
    return k->counts == RL_COUNTS_COUNTERS || k->counts == RL_COUNTS_SAMPLED;
}

static bool timed(const struct rl_trace_kernel *k)
{
    return k->start_ns != 0 && k->end_ns >= k->start_ns;
}

/* single: the kernel is its step's only launch, so the step's analytic
 * cost is the kernel's. */
static void write_kernel(FILE *f, const struct rl_trace_kernel *k, double factor,
                         const struct rl_trace_step *step, bool single, const bool *on)
{
    struct rl_kernel_counts c;
    rl_counts_derive(k->q, factor, &c);
    enum rl_counts_origin origin = k->counts;
    double flops = c.flops, dram = c.dram_bytes;
    const char *precision = c.precision, *note = k->note;
    const char *unknown =
        on && has_counters(k) ? rl_tensor_flops_unknown(on, k->tensor_activity, c.flops_tensor)
                              : NULL;
    if (unknown) { /* never a smaller number: null, and why */
        flops = c.flops = c.flops_tensor = NAN;
        precision = NULL;
        note = unknown;
    }
    if (!has_counters(k)) {
        flops = dram = NAN;
        precision = NULL;
        if (step && single) {
            origin = RL_COUNTS_ANALYTIC;
            flops = step->analytic_flops;
            dram = step->analytic_bytes;
            precision = step->precision[0] ? step->precision : NULL;
        }
    }
    fputs("    {", f);
    key(f, "name", true);
    put_string(f, k->name);
    fprintf(f, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u]", k->grid[0], k->grid[1],
            k->grid[2], k->block[0], k->block[1], k->block[2]);
    fprintf(f, ", \"registers\": %d, \"shared_static_bytes\": %u, \"shared_dynamic_bytes\": %u",
            k->registers, k->smem_static_bytes, k->smem_dynamic_bytes);
    if (timed(k))
        fprintf(f, ", \"start_ns\": %llu, \"end_ns\": %llu, \"time_ns\": %llu",
                (unsigned long long)k->start_ns, (unsigned long long)k->end_ns,
                (unsigned long long)(k->end_ns - k->start_ns));
    else
        fputs(", \"start_ns\": null, \"end_ns\": null, \"time_ns\": null", f);
    fprintf(f, ", \"stream\": %u, \"device\": %u, \"context\": %u, \"correlation\": %u",
            k->stream, k->device, k->context, k->correlation);
    if (k->graph)
        fprintf(f, ", \"graph\": %u", k->graph);
    if (k->nvtx) {
        key(f, "nvtx", false);
        put_string(f, k->nvtx);
    }
    if (k->collective[0]) {
        key(f, "collective", false);
        put_string(f, k->collective);
        if (k->comm_bytes)
            fprintf(f, ", \"comm_bytes\": %llu", (unsigned long long)k->comm_bytes);
    }
    if (step) {
        key(f, "step", false);
        put_string(f, step->label);
    }
    if (k->timing_only)
        fputs(", \"timing_only\": true", f);
    key(f, "counts", false);
    put_string(f, counts_name(origin));
    key(f, "flops", false);
    put_number(f, flops);
    if (precision) {
        key(f, "precision", false);
        put_string(f, precision);
    }
    if (note) {
        key(f, "flops_note", false);
        put_string(f, note);
    }
    key(f, "dram_bytes", false);
    put_number(f, dram);
    if (has_counters(k))
        put_counts(f, &c);
    /* The raw counters once per counted launch; sampled launches lend them. */
    if (k->counts == RL_COUNTS_COUNTERS) {
        size_t n;
        const struct rl_q_def *defs = rl_q_defs(&n);
        fputs(", \"counters\": {", f);
        bool first = true;
        for (size_t i = 0; i < n; i++)
            if (!isnan(k->q[i])) {
                key(f, defs[i].key, first);
                put_number(f, k->q[i]);
                first = false;
            }
        fputc('}', f);
    }
    fprintf(f, ", \"origin\": \"%s\"}", origin == RL_COUNTS_ANALYTIC ? "analytic" : "measured");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median, min and max over the timing-only runs of step `index` of the
 * run times (each run's launches summed; runs with an untimed launch left
 * out); *runs gets how many were used, *per_run the launches of its first
 * run. Returns -1 when out of memory. */
static int clean_times(const struct rl_trace_kernel *k, size_t n, size_t index, double t[3],
                       size_t *runs, size_t *per_run)
{
    t[0] = t[1] = t[2] = NAN;
    *runs = *per_run = 0;
    int max_run = -1;
    for (size_t i = 0; i < n; i++)
        if (k[i].step == (int)index && k[i].timing_only && k[i].run > max_run)
            max_run = k[i].run;
    if (max_run < 0)
        return 0;
    size_t nr = (size_t)max_run + 1;
    double *sum = rl_calloc(nr, sizeof *sum);
    size_t *count = rl_calloc(nr, sizeof *count);
    bool *untimed = rl_calloc(nr, sizeof *untimed);
    if (!sum || !count || !untimed) {
        free(sum);
        free(count);
        free(untimed);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (k[i].step != (int)index || !k[i].timing_only || k[i].run < 0)
            continue;
        count[k[i].run]++;
        if (timed(&k[i]))
            sum[k[i].run] += (double)(k[i].end_ns - k[i].start_ns);
        else
            untimed[k[i].run] = true;
    }
    size_t used = 0;
    for (size_t r = 0; r < nr; r++) {
        if (count[r] && !*per_run)
            *per_run = count[r];
        if (count[r] && !untimed[r])
            sum[used++] = sum[r];
    }
    if (used) {
        qsort(sum, used, sizeof *sum, cmp_double);
        t[0] = used % 2 ? sum[used / 2] : (sum[used / 2 - 1] + sum[used / 2]) / 2;
        t[1] = sum[0];
        t[2] = sum[used - 1];
    }
    *runs = used;
    free(sum);
    free(count);
    free(untimed);
    return 0;
}

/* A step: its launches, their time and (when every launch was counted)
 * summed counters, beside the analytic cost. A step run several times
 * (builtin.c) has timing-only runs, whose median is its time, and one run
 * whose launches were counted. */
static int write_step(FILE *f, const struct rl_trace_step *s, size_t index,
                      const struct rl_trace_kernel *k, size_t n, double factor, const bool *on)
{
    bool unknown = false; /* a counted launch's FLOPs cannot stand (tensor type not counted) */
    double q[RL_Q_COUNT];
    for (int i = 0; i < RL_Q_COUNT; i++)
        q[i] = 0;
    size_t launches = 0, counted = 0, with_time = 0;
    double time_ns = 0;
    for (size_t i = 0; i < n; i++) {
        if (k[i].step != (int)index || k[i].timing_only)
            continue;
        launches++;
        if (timed(&k[i])) {
            with_time++;
            time_ns += (double)(k[i].end_ns - k[i].start_ns);
        }
        if (has_counters(&k[i])) {
            counted++;
            for (int j = 0; j < RL_Q_COUNT; j++)
                q[j] += k[i].q[j]; /* NAN stays NAN: a quantity not collected */
            struct rl_kernel_counts ck;
            rl_counts_derive(k[i].q, factor, &ck);
            unknown |= on && rl_tensor_flops_unknown(on, k[i].tensor_activity, ck.flops_tensor);
        }
    }
    double clean[3];
    size_t runs, per_run;
    if (clean_times(k, n, index, clean, &runs, &per_run))
        return -1;
    double own_time = launches && with_time == launches ? time_ns : NAN;
    fputs("    {", f);
    key(f, "label", true);
    put_string(f, s->label);
    fprintf(f, ", \"launches\": %zu, \"counted_launches\": %zu", launches ? launches : per_run,
            counted);
    key(f, "time_ns", false);
    put_number(f, per_run ? clean[0] : own_time);
    if (per_run) {
        fprintf(f, ", \"timed_runs\": %zu", runs);
        key(f, "time_min_ns", false);
        put_number(f, clean[1]);
        key(f, "time_max_ns", false);
        put_number(f, clean[2]);
        if (launches) {
            key(f, "counted_run_time_ns", false);
            put_number(f, own_time);
        }
    }
    key(f, "analytic_flops", false);
    put_number(f, s->analytic_flops);
    key(f, "analytic_bytes", false);
    put_number(f, s->analytic_bytes);
    if (s->precision[0]) {
        key(f, "precision", false);
        put_string(f, s->precision);
    }
    if (launches && counted == launches) {
        struct rl_kernel_counts c;
        rl_counts_derive(q, factor, &c);
        if (unknown)
            c.flops = c.flops_tensor = NAN;
        key(f, "flops", false);
        put_number(f, c.flops);
        key(f, "dram_bytes", false);
        put_number(f, c.dram_bytes);
        put_counts(f, &c);
        key(f, "flops_vs_analytic", false);
        put_number(f, s->analytic_flops > 0 ? c.flops / s->analytic_flops : NAN);
        key(f, "dram_bytes_vs_analytic", false);
        put_number(f, s->analytic_bytes > 0 ? c.dram_bytes / s->analytic_bytes : NAN);
    }
    fputc('}', f);
    return 0;
}

int rl_trace_write(FILE *f, const struct rl_trace_meta *m, const struct rl_trace_kernel *k,
                   size_t n, const struct rl_trace_step *steps, size_t n_steps)
{
    /* Launches per run of each step: of its counted run, else of its first
     * timing-only run. */
    size_t *launches = rl_calloc(2 * (n_steps ? n_steps : 1), sizeof *launches);
    if (!launches)
        return -1;
    size_t *first_clean = launches + (n_steps ? n_steps : 1);
    for (size_t i = 0; i < n; i++)
        if (k[i].step >= 0 && (size_t)k[i].step < n_steps) {
            if (!k[i].timing_only)
                launches[k[i].step]++;
            else if (k[i].run == 0)
                first_clean[k[i].step]++;
        }
    for (size_t i = 0; i < n_steps; i++)
        if (!launches[i])
            launches[i] = first_clean[i];
    fputs("{\n  \"schema_version\": 1,\n  \"format\": \"roofline-trace\",\n", f);
    fputs("  \"tool\": ", f);
    put_string(f, m->tool);
    fputs(",\n  \"created\": ", f);
    put_string(f, m->created);
    fprintf(f, ",\n  \"pid\": %ld,\n  \"program\": ", m->pid);
    put_string(f, m->program);
    if (m->rank && m->rank->present) {
        const struct rl_rank_env *r = m->rank;
        fprintf(f, ",\n  \"rank\": {\"rank\": %d", r->rank);
        if (r->local_rank >= 0)
            fprintf(f, ", \"local_rank\": %d", r->local_rank);
        else
            fputs(", \"local_rank\": null", f);
        if (r->world_size > 0)
            fprintf(f, ", \"world_size\": %d", r->world_size);
        else
            fputs(", \"world_size\": null", f);
        fputs(", \"launcher\": ", f);
        put_string(f, r->launcher);
        fputs(", \"hostname\": ", f);
        put_string(f, r->hostname);
        fputc('}', f);
    }
    fputs(",\n  \"gpu\": {\"name\": ", f);
    put_string(f, m->gpu_name);
    fputs(", \"chip\": ", f);
    put_string(f, m->chip);
    fprintf(f, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d},\n", m->cc_major,
            m->cc_minor, m->sm_count);
    fputs("  \"counters\": {\"mode\": ", f);
    put_string(f, m->counters_mode);
    fputs(", \"status\": ", f);
    put_string(f, m->counters_status);
    if (m->counters_reason) {
        fputs(", \"reason\": ", f);
        put_string(f, m->counters_reason);
    }
    if (m->set) {
        fprintf(f, ", \"passes\": %d, \"metrics\": [", m->set->passes);
        for (int i = 0; i < m->set->n_names; i++) {
            if (i)
                fputs(", ", f);
            put_string(f, m->set->names[i]);
        }
        fputs("], \"tensor_flops_per_op\": ", f);
        put_number(f, m->tensor_flops_per_op);
        /* Tensor Core work of a type the set does not count is missing
         * from every kernel's FLOPs: say which types are seen. */
        size_t nq;
        const struct rl_q_def *defs = rl_q_defs(&nq);
        for (int pass = 0; pass < 2; pass++) {
            fputs(pass ? "], \"tensor_not_counted\": [" : ", \"tensor_counted\": [", f);
            bool first = true;
            for (size_t i = 0; i < nq; i++)
                if (defs[i].roof && m->set->on[i] == !pass) {
                    fprintf(f, "%s\"%s\"", first ? "" : ", ", defs[i].roof);
                    first = false;
                }
        }
        fputc(']', f);
    }
    if (m->tensor_check) {
        fputs(", \"tensor_check\": ", f);
        put_string(f, m->tensor_check);
    }
    if (m->setconfig) {
        fputs(", \"setconfig\": ", f);
        put_string(f, m->setconfig);
    }
    if (m->counters_mode && strcmp(m->counters_mode, "none") != 0)
        fprintf(f, ", \"launches_in_capture\": %llu",
                (unsigned long long)m->launches_in_capture);
    fputs("},\n", f);
    fprintf(f, "  \"dropped_records\": %llu,\n  \"incomplete\": %s,\n",
            (unsigned long long)m->dropped_records, m->incomplete ? "true" : "false");
    if (m->signal)
        fprintf(f, "  \"signal\": %d,\n", m->signal);
    if (m->notes) {
        fputs("  \"notes\": ", f);
        put_string(f, m->notes);
        fputs(",\n", f);
    }
    if (n_steps) {
        fputs("  \"steps\": [\n", f);
        for (size_t i = 0; i < n_steps; i++) {
            if (write_step(f, &steps[i], i, k, n, m->tensor_flops_per_op,
                           m->set ? m->set->on : NULL)) {
                free(launches);
                return -1;
            }
            fputs(i + 1 < n_steps ? ",\n" : "\n", f);
        }
        fputs("  ],\n", f);
    }
    fprintf(f, "  \"kernel_count\": %zu,\n  \"kernels\": [\n", n);
    for (size_t i = 0; i < n; i++) {
        bool in_step = k[i].step >= 0 && (size_t)k[i].step < n_steps;
        write_kernel(f, &k[i], m->tensor_flops_per_op, in_step ? &steps[k[i].step] : NULL,
                     in_step && launches[k[i].step] == 1, m->set ? m->set->on : NULL);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fputs("  ]\n}\n", f);
    free(launches);
    return ferror(f) ? -1 : 0;
}

/* ---- sampled counts -------------------------------------------------------- */

static uint64_t signature(const struct rl_trace_kernel *k)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)(k->name ? k->name : ""); *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    for (int i = 0; i < 3; i++) {
        h = (h ^ k->grid[i]) * 1099511628211ull;
        h = (h ^ k->block[i]) * 1099511628211ull;
    }
    return h ? h : 1;
}

struct sig_slot {
    uint64_t sig;       /* 0: empty */
    double sum[RL_Q_COUNT];
    double activity;    /* summed tensor_activity (NAN: not read) */
    double n;
};

long rl_trace_fill_sampled(struct rl_trace_kernel *k, size_t n)
{
    size_t counted = 0;
    for (size_t i = 0; i < n; i++)
        counted += k[i].counts == RL_COUNTS_COUNTERS;
    if (!counted)
        return 0;
    size_t cap = 16;
    while (cap < 2 * counted)
        cap *= 2;
    struct sig_slot *t = rl_calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (k[i].counts != RL_COUNTS_COUNTERS)
            continue;
        uint64_t s = signature(&k[i]);
        size_t j = s & (cap - 1);
        while (t[j].sig && t[j].sig != s)
            j = (j + 1) & (cap - 1);
        t[j].sig = s;
        for (int q = 0; q < RL_Q_COUNT; q++)
            t[j].sum[q] += k[i].q[q];
        t[j].activity += k[i].tensor_activity;
        t[j].n++;
    }
    long filled = 0;
    for (size_t i = 0; i < n; i++) {
        if (k[i].counts != RL_COUNTS_NONE)
            continue;
        uint64_t s = signature(&k[i]);
        size_t j = s & (cap - 1);
        while (t[j].sig && t[j].sig != s)
            j = (j + 1) & (cap - 1);
        if (!t[j].sig)
            continue;
        for (int q = 0; q < RL_Q_COUNT; q++)
            k[i].q[q] = t[j].sum[q] / t[j].n;
        k[i].tensor_activity = t[j].activity / t[j].n;
        k[i].counts = RL_COUNTS_SAMPLED;
        filled++;
    }
    free(t);
    return filled;
}

const char *rl_tensor_flops_unknown(const bool on[RL_Q_COUNT], double tensor_activity,
                                    double flops_tensor)
{
    if (isnan(tensor_activity) || tensor_activity <= 0 || flops_tensor != 0)
        return NULL;
    size_t n;
    const struct rl_q_def *defs = rl_q_defs(&n);
    for (size_t i = 0; i < n; i++)
        if (defs[i].roof && !on[i])
            return "Tensor Cores ran but the types counted read 0 ops: the work is of a type "
                   "this metric set leaves out (the trace's tensor_not_counted); FLOPs unknown, "
                   "not the CUDA-core part alone: --metrics full counts every type";
    return "Tensor Cores ran but every type's op counter read 0: FLOPs unknown, not the "
           "CUDA-core part alone";
}

/* ---- collectives ------------------------------------------------------------ */

const char rl_trace_collective_note[] =
    "a collective: timed only, never counted (kernel replay would run it alone, waiting for "
    "peers that do not replay it)";

/* Words of the kernels that wait for other GPUs besides NCCL's own names:
 * RCCL, PyTorch's symmetric memory (torch/csrc/distributed/c10d/symm_mem:
 * namespace c10d::symmetric_memory, multimem_all_reduce...), vLLM's custom
 * all-reduce (csrc/custom_all_reduce.cuh: cross_device_reduce_1stage /
 * _2stage). Case-insensitive substrings of the demangled name. */
static const char *const collective_words[] = {"nccl", "rccl", "symm_mem", "symmetric_memory",
                                               "multimem", "cross_device_reduce"};

static bool contains_nocase(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == word[i])
            i++;
        if (i == n)
            return true;
    }
    return false;
}

bool rl_trace_collective_kernel(const char *name)
{
    if (!name)
        return false;
    if (rl_nccl_kernel(name, NULL, 0))
        return true;
    for (size_t i = 0; i < sizeof collective_words / sizeof *collective_words; i++)
        if (contains_nocase(name, collective_words[i]))
            return true;
    return false;
}
