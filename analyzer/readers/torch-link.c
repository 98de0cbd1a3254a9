/* torch-link.c - links each GPU activity of a PyTorch profiler trace to the operator that launched it, and adds them to kernel groups with their operator's cost.
 *
 * A kernel finds its operator by, in order: its own "External id" (newer
 * traces put the operator's on the kernel), its runtime call's (matched by
 * "correlation"), or the innermost operator on the launching thread whose
 * span holds the runtime call (older traces link this way only). An
 * operator's FLOPs and bytes (torchops) go to its longest GPU activity of
 * the call, so a split-K GEMM's reduction kernel counts in time with the
 * operator but its FLOPs are not counted twice.
 */
#define _GNU_SOURCE
#include "analyzer/readers/torch-internal.h"

#include "analyzer/profiler/nccl.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tr_memcpy_dir(const char *kind)
{
    if (strcasestr(kind, "DtoD") || strcasestr(kind, "Device -> Device") ||
        strcasestr(kind, "PtoP"))
        return TR_COPY_D2D;
    if (strcasestr(kind, "HtoD"))
        return TR_COPY_H2D;
    if (strcasestr(kind, "DtoH"))
        return TR_COPY_D2H;
    return TR_COPY_OTHER;
}

void tr_state_release(struct tr_state *s)
{
    tr_intern_release(&s->sigs);
    tr_intern_release(&s->opnames);
    tr_intern_release(&s->strings);
    tr_intern_release(&s->threads);
    tr_intern_release(&s->knames);
    free(s->sig);
    free(s->ops);
    free(s->rts);
    free(s->gpus);
}

/* ---- id maps: int64 key to index ------------------------------------------ */

struct idmap {
    int64_t *key;
    uint32_t *val;              /* index + 1; 0 empty */
    size_t slots;
};

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int idmap_init(struct idmap *m, size_t n)
{
    m->slots = 1024;
    while (m->slots < 2 * n + 2)
        m->slots *= 2;
    m->key = malloc(m->slots * sizeof *m->key);
    m->val = calloc(m->slots, sizeof *m->val);
    return m->key && m->val ? RL_OK : RL_ENOMEM;
}

/* The first index put under key is kept. */
static void idmap_put(struct idmap *m, int64_t key, uint32_t index)
{
    size_t j = mix64((uint64_t)key) & (m->slots - 1);
    while (m->val[j]) {
        if (m->key[j] == key)
            return;
        j = (j + 1) & (m->slots - 1);
    }
    m->key[j] = key;
    m->val[j] = index + 1;
}

static uint32_t idmap_get(const struct idmap *m, int64_t key)
{
    size_t j = mix64((uint64_t)key) & (m->slots - 1);
    while (m->val[j]) {
        if (m->key[j] == key)
            return m->val[j];
        j = (j + 1) & (m->slots - 1);
    }
    return 0;
}

static void idmap_release(struct idmap *m)
{
    free(m->key);
    free(m->val);
}

/* ---- the operator calls, nested ------------------------------------------- */

static int cmp_op(const void *pa, const void *pb)
{
    const struct tr_op *a = pa, *b = pb;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) /* the enclosing call first */
        return a->end > b->end ? -1 : 1;
    return 0;
}

/* Sort the calls by thread and start, and give each its enclosing call. */
static int nest_ops(struct tr_state *s)
{
    if (s->n_ops)
        qsort(s->ops, s->n_ops, sizeof *s->ops, cmp_op);
    uint32_t *stack = malloc((s->n_ops + 1) * sizeof *stack);
    if (!stack)
        return RL_ENOMEM;
    size_t depth = 0;
    for (size_t i = 0; i < s->n_ops; i++) {
        struct tr_op *o = &s->ops[i];
        if (i && s->ops[i - 1].thread != o->thread)
            depth = 0;
        while (depth && s->ops[stack[depth - 1]].end < o->ts)
            depth--;
        o->parent = depth ? stack[depth - 1] + 1 : 0;
        o->best = 0;
        stack[depth++] = (uint32_t)i;
    }
    free(stack);
    return RL_OK;
}

/* The innermost call on thread th whose span holds t: index + 1, 0 none. */
static uint32_t innermost_at(const struct tr_state *s, uint32_t th, double t)
{
    size_t lo = 0, hi = s->n_ops; /* first op after (th, t) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct tr_op *o = &s->ops[mid];
        if (o->thread < th || (o->thread == th && o->ts <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || s->ops[lo - 1].thread != th)
        return 0;
    uint32_t k = (uint32_t)lo; /* index + 1 of the last call started by t */
    for (int steps = 0; k && steps < 4096; steps++) {
        if (s->ops[k - 1].end >= t)
            return k;
        k = s->ops[k - 1].parent;
    }
    return 0;
}

static int link_all(struct tr_state *s)
{
    struct idmap by_ext = {0}, by_corr = {0};
    int rc = idmap_init(&by_ext, s->n_ops);
    if (rc == RL_OK)
        rc = idmap_init(&by_corr, s->n_rts);
    if (rc == RL_OK) {
        for (size_t i = 0; i < s->n_ops; i++)
            if (s->ops[i].ext >= 0)
                idmap_put(&by_ext, s->ops[i].ext, (uint32_t)i);
        for (size_t i = 0; i < s->n_rts; i++)
            idmap_put(&by_corr, s->rts[i].corr, (uint32_t)i);
        struct rl_torch_stats *st = s->st;
        for (size_t i = 0; i < s->n_gpus; i++) {
            struct tr_gpu *k = &s->gpus[i];
            k->op = 0;
            if (k->ext >= 0 && (k->op = idmap_get(&by_ext, k->ext))) {
                st->linked_external++;
                continue;
            }
            uint32_t rt = k->corr >= 0 ? idmap_get(&by_corr, k->corr) : 0;
            if (rt && s->rts[rt - 1].ext >= 0 &&
                (k->op = idmap_get(&by_ext, s->rts[rt - 1].ext))) {
                st->linked_runtime++;
                continue;
            }
            if (rt && (k->op = innermost_at(s, s->rts[rt - 1].thread, s->rts[rt - 1].ts))) {
                st->linked_span++;
                continue;
            }
            st->unlinked++;
        }
    }
    idmap_release(&by_ext);
    idmap_release(&by_corr);
    return rc;
}

/* ---- GPU time: busy and span per device ----------------------------------- */

struct span {
    int device;
    double ts, end;
};

static int cmp_span(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int gpu_time(struct tr_state *s, double scale)
{
    struct rl_torch_stats *st = s->st;
    if (!s->n_gpus)
        return RL_OK;
    struct span *v = malloc(s->n_gpus * sizeof *v);
    if (!v)
        return RL_ENOMEM;
    for (size_t i = 0; i < s->n_gpus; i++)
        v[i] = (struct span){s->gpus[i].device, s->gpus[i].ts, s->gpus[i].ts + s->gpus[i].dur};
    qsort(v, s->n_gpus, sizeof *v, cmp_span);
    double busy = 0, span = 0, first = v[0].ts, last = v[0].end, cur_ts = v[0].ts,
           cur_end = v[0].end;
    st->devices = 1;
    for (size_t i = 1; i <= s->n_gpus; i++) {
        bool new_dev = i == s->n_gpus || v[i].device != v[i - 1].device;
        if (new_dev || v[i].ts > cur_end) {
            busy += cur_end - cur_ts;
            if (!new_dev)
                cur_ts = v[i].ts, cur_end = v[i].end;
        } else if (v[i].end > cur_end) {
            cur_end = v[i].end;
        }
        if (!new_dev && v[i].end > last)
            last = v[i].end;
        if (new_dev) {
            span += last - first;
            if (i < s->n_gpus) {
                st->devices++;
                first = cur_ts = v[i].ts;
                last = cur_end = v[i].end;
            }
        }
    }
    free(v);
    st->busy_ns = busy * scale;
    st->span_ns = span * scale;
    return RL_OK;
}

/* ---- the groups ------------------------------------------------------------ */

/* The collective's message bytes and group from the operator or the calls
 * around it (record_param_comms wraps the c10d call that launches it). */
static const struct tr_sig *comm_sig(const struct tr_state *s, uint32_t op)
{
    for (int up = 0; op && up < 8; up++) {
        const struct tr_sig *g = &s->sig[s->ops[op - 1].sig];
        if (g->collective[0] && g->comm_bytes >= 0)
            return g;
        op = s->ops[op - 1].parent;
    }
    return NULL;
}

static void note_unknown(struct tr_state *s, double *time, uint64_t *launches, uint32_t name,
                         double t)
{
    (void)s;
    time[name] += t;
    launches[name]++;
}

static int emit(struct tr_state *s, struct rl_trace_groups *g, double scale)
{
    struct rl_torch_stats *st = s->st;
    /* each call's longest GPU activity carries its cost */
    for (size_t i = 0; i < s->n_gpus; i++) {
        struct tr_gpu *k = &s->gpus[i];
        /* copies between host and device cross PCIe, not DRAM: never the
         * carrier of an operator's DRAM bytes */
        if (!k->op || (k->kind == TR_MEMCPY && k->memcpy_dir != TR_COPY_D2D))
            continue;
        struct tr_op *o = &s->ops[k->op - 1];
        if (!o->best || k->dur > s->gpus[o->best - 1].dur)
            o->best = (uint32_t)i + 1;
    }
    double *unk_time = calloc(s->opnames.n + 1, sizeof *unk_time);
    uint64_t *unk_launches = calloc(s->opnames.n + 1, sizeof *unk_launches);
    if (!unk_time || !unk_launches) {
        free(unk_time);
        free(unk_launches);
        return RL_ENOMEM;
    }
    int rc = RL_OK;
    for (size_t i = 0; i < s->n_gpus && rc == RL_OK; i++) {
        const struct tr_gpu *k = &s->gpus[i];
        const char *name = tr_text(&s->knames, k->kname);
        uint32_t dims[6];
        memcpy(dims, name + k->name_len, sizeof dims);
        char kname[4097];
        memcpy(kname, name, k->name_len);
        kname[k->name_len] = 0;
        const struct tr_op *o = k->op ? &s->ops[k->op - 1] : NULL;
        const struct tr_sig *sg = o ? &s->sig[o->sig] : NULL;
        struct rl_trace_launch l = {.name = kname, .grid = dims, .block = dims + 3,
                                    .origin = RL_ORIGIN_ANALYTIC, .launches = 1,
                                    .flops = NAN, .time_ns = k->dur * scale, .comm_bytes = NAN};
        for (int m = 0; m < RL_MEM_COUNT; m++)
            l.bytes[m] = NAN;
        if (sg) {
            l.op = tr_text(&s->opnames, sg->name);
            l.shapes = sg->has_shapes ? tr_text(&s->strings, sg->shapes) : NULL;
            l.dtype = sg->cost.dtype[0] ? sg->cost.dtype : NULL;
        }
        st->kernel_time_ns += l.time_ns;
        char coll[24] = "";
        if (k->kind == TR_KERNEL && rl_nccl_kernel(kname, coll, sizeof coll)) {
            st->comm_kernels++;
            const struct tr_sig *cs = comm_sig(s, k->op);
            l.collective = coll[0] ? coll : NULL;
            if (cs) {
                l.comm_bytes = cs->comm_bytes;
                l.comm_group_size = cs->group_size;
                st->comm_with_bytes++;
            }
        } else if (sg && sg->cost.known && o->best == i + 1) {
            const char *noted = "";
            l.flops = sg->cost.flops;
            l.bytes[RL_MEM_DRAM] = sg->cost.bytes;
            if (k->kind == TR_KERNEL) {
                l.precision = rl_torch_kernel_roof(kname, sg->cost.dtype, sg->cost.matmul,
                                                   &noted);
                if (noted && noted[0] && l.flops > 0)
                    st->roof_from_dtype++;
            }
            if (isnan(l.flops)) /* bytes only: a memory point */
                l.flops = NAN;
            st->costed++;
        } else if (sg && sg->cost.known) {
            st->op_helpers++;
        } else if (k->kind == TR_MEMSET && k->bytes >= 0) {
            l.bytes[RL_MEM_DRAM] = k->bytes; /* written once */
        } else if (k->kind == TR_MEMCPY && k->memcpy_dir == TR_COPY_D2D && k->bytes >= 0) {
            l.bytes[RL_MEM_DRAM] = 2 * k->bytes; /* read and written */
        } else if (k->kind == TR_KERNEL && sg) {
            st->uncosted++;
            note_unknown(s, unk_time, unk_launches, sg->name, l.time_ns);
        } else if (k->kind == TR_KERNEL) {
            st->uncosted++;
        }
        rc = rl_trace_groups_add_launch(g, &l);
    }
    /* the operators the table does not know, the largest first */
    for (size_t n = 0; n < s->opnames.n; n++) {
        if (!unk_launches[n])
            continue;
        st->unknown_ops++;
        size_t at = st->n_unknown;
        while (at > 0 && st->unknown[at - 1].time_ns < unk_time[n])
            at--;
        if (at >= RL_TORCH_TOP_UNKNOWN)
            continue;
        size_t keep = st->n_unknown < RL_TORCH_TOP_UNKNOWN ? st->n_unknown
                                                          : RL_TORCH_TOP_UNKNOWN - 1;
        memmove(&st->unknown[at + 1], &st->unknown[at], (keep - at) * sizeof st->unknown[0]);
        struct rl_torch_unknown_op *u = &st->unknown[at];
        snprintf(u->op, sizeof u->op, "%s", tr_text(&s->opnames, (uint32_t)n));
        u->time_ns = unk_time[n];
        u->launches = unk_launches[n];
        if (st->n_unknown < RL_TORCH_TOP_UNKNOWN)
            st->n_unknown++;
    }
    free(unk_time);
    free(unk_launches);
    return rc;
}

/* The GPU the trace ran on: the device of its first activity. */
static void name_gpu(struct tr_state *s, struct rl_trace_groups *g)
{
    struct rl_torch_stats *st = s->st;
    int dev = s->n_gpus ? s->gpus[0].device : 0;
    const struct tr_device *d = NULL;
    for (size_t i = 0; i < s->n_devices; i++)
        if (s->devices[i].id == dev)
            d = &s->devices[i];
    if (!d && s->n_devices)
        d = &s->devices[0];
    if (!d)
        return;
    snprintf(st->gpu_name, sizeof st->gpu_name, "%s", d->name);
    st->sm_count = d->sm_count;
    st->warp_size = d->warp_size;
    st->cc_major = d->cc_major;
    st->cc_minor = d->cc_minor;
    st->gpu_memory_bytes = d->memory_bytes;
    snprintf(g->sum.gpu_name, sizeof g->sum.gpu_name, "%s", d->name);
    g->sum.sm_count = d->sm_count;
}

int tr_link(struct tr_state *s, struct rl_trace_groups *g, const char *what, char *errmsg)
{
    /* Chrome trace time is in microseconds; Kineto writes "ts" and "dur"
     * in microseconds (fractions of one for nanoseconds) whatever its
     * displayTimeUnit, which only sets the viewer's display. */
    double scale = 1000.0;
    snprintf(s->st->time_unit, sizeof s->st->time_unit, "us");
    int rc = nest_ops(s);
    if (rc == RL_OK)
        rc = link_all(s);
    if (rc == RL_OK)
        rc = gpu_time(s, scale);
    if (rc == RL_OK)
        rc = emit(s, g, scale);
    if (rc == RL_OK)
        name_gpu(s, g);
    if (rc == RL_OK && s->st->world_size > 0) {
        g->sum.rank.present = true;
        g->sum.rank.rank = s->st->rank;
        g->sum.rank.local_rank = -1;
        g->sum.rank.world_size = s->st->world_size;
        snprintf(g->sum.rank.launcher, sizeof g->sum.rank.launcher, "torch.distributed");
    }
    if (rc)
        return rl_fail(errmsg, rc, "'%s': out of memory linking the trace's kernels", what);
    return RL_OK;
}

/* ---- notes ------------------------------------------------------------------ */

static void fmt_ms(char *buf, size_t n, double ns)
{
    snprintf(buf, n, ns >= 1e6 ? "%.4g ms" : "%.4g us", ns >= 1e6 ? ns / 1e6 : ns / 1e3);
}

void rl_torch_notes(const struct rl_torch_stats *st, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
#define PUT(...)                                                                      \
    do {                                                                              \
        if (at < size) {                                                              \
            int w_ = snprintf(buf + at, size - at, __VA_ARGS__);                      \
            at = w_ < 0 ? size : at + (size_t)w_;                                     \
        }                                                                             \
    } while (0)
    uint64_t gpu = st->kernels + st->memcpys + st->memsets;
    PUT("PyTorch profiler trace: %llu GPU kernels, %llu copies, %llu fills; operators linked: "
        "%llu by External id, %llu through their runtime call, %llu by the launching "
        "thread's span, %llu not linked (counted by name and time)\n",
        (unsigned long long)st->kernels, (unsigned long long)st->memcpys,
        (unsigned long long)st->memsets, (unsigned long long)st->linked_external,
        (unsigned long long)st->linked_runtime, (unsigned long long)st->linked_span,
        (unsigned long long)st->unlinked);
    if (!st->shapes && st->cpu_ops)
        PUT("no operator shapes in this trace (recorded without record_shapes=True): kernels "
            "are placed by time only; profile with torch.profiler.profile(record_shapes=True) "
            "for FLOPs and bytes\n");
    if (gpu)
        PUT("FLOPs and bytes are analytic, from the operators' shapes (minimum bytes: each "
            "input read once, each output written once; readers/TORCH-OPS.md): %llu GPU "
            "activities carry their operator's cost, %llu more of the same calls count in "
            "time only, %llu kernels of operators the table does not know are timing only\n",
            (unsigned long long)st->costed, (unsigned long long)st->op_helpers,
            (unsigned long long)st->uncosted);
    if (st->roof_from_dtype)
        PUT("%llu kernels are judged against their dtype's most generous roof: the kernel "
            "name does not say which unit ran it\n",
            (unsigned long long)st->roof_from_dtype);
    if (st->n_unknown) {
        PUT("operators the cost table does not know, by GPU time (%llu in all):",
            (unsigned long long)st->unknown_ops);
        for (size_t i = 0; i < st->n_unknown; i++) {
            char t[32];
            fmt_ms(t, sizeof t, st->unknown[i].time_ns);
            PUT("%s %s (%s, %llu launches)", i ? "," : "", st->unknown[i].op, t,
                (unsigned long long)st->unknown[i].launches);
        }
        PUT("\n");
    }
    if (st->comm_kernels)
        PUT("%llu NCCL/RCCL kernels; %llu with their message bytes from record_param_comms\n",
            (unsigned long long)st->comm_kernels, (unsigned long long)st->comm_with_bytes);
    if (st->span_ns > 0) {
        char idle[32], span[32];
        fmt_ms(idle, sizeof idle, st->span_ns - st->busy_ns);
        fmt_ms(span, sizeof span, st->span_ns);
        PUT("GPU idle: %s of the %s from the first GPU activity to the last (%.1f%%)%s\n", idle,
            span, 100.0 * (st->span_ns - st->busy_ns) / st->span_ns,
            st->devices > 1 ? ", summed over devices" : "");
    }
#undef PUT
    if (at >= size && size > 4)
        memcpy(buf + size - 4, "..\n", 4);
}

void rl_torch_stats_add(struct rl_torch_stats *d, const struct rl_torch_stats *s)
{
    d->events += s->events;
    d->cpu_ops += s->cpu_ops;
    d->runtime_calls += s->runtime_calls;
    d->kernels += s->kernels;
    d->memcpys += s->memcpys;
    d->memsets += s->memsets;
    d->linked_external += s->linked_external;
    d->linked_runtime += s->linked_runtime;
    d->linked_span += s->linked_span;
    d->unlinked += s->unlinked;
    d->costed += s->costed;
    d->op_helpers += s->op_helpers;
    d->uncosted += s->uncosted;
    d->roof_from_dtype += s->roof_from_dtype;
    d->comm_kernels += s->comm_kernels;
    d->comm_with_bytes += s->comm_with_bytes;
    d->profiler_steps += s->profiler_steps;
    d->kernel_time_ns += s->kernel_time_ns;
    d->busy_ns += s->busy_ns;
    d->span_ns += s->span_ns;
    d->devices += s->devices;
    d->shapes |= s->shapes;
    if (!d->gpu_name[0])
        memcpy(d->gpu_name, s->gpu_name, sizeof d->gpu_name);
    for (size_t i = 0; i < s->n_unknown; i++) {
        size_t j = 0;
        while (j < d->n_unknown && strcmp(d->unknown[j].op, s->unknown[i].op) != 0)
            j++;
        if (j == d->n_unknown) {
            if (d->n_unknown == RL_TORCH_TOP_UNKNOWN) {
                /* replace the smallest when this one is larger */
                size_t k = d->n_unknown - 1;
                if (d->unknown[k].time_ns >= s->unknown[i].time_ns)
                    continue;
                j = k;
            } else {
                d->n_unknown++;
            }
            d->unknown[j] = s->unknown[i];
        } else {
            d->unknown[j].time_ns += s->unknown[i].time_ns;
            d->unknown[j].launches += s->unknown[i].launches;
        }
        /* keep them sorted, largest first */
        while (j > 0 && d->unknown[j - 1].time_ns < d->unknown[j].time_ns) {
            struct rl_torch_unknown_op t = d->unknown[j - 1];
            d->unknown[j - 1] = d->unknown[j];
            d->unknown[j] = t;
            j--;
        }
    }
    if (s->unknown_ops > d->unknown_ops)
        d->unknown_ops = s->unknown_ops; /* distinct names: at least the largest rank's */
}
