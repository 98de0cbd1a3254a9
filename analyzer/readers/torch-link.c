/* torch-link.c - links each GPU activity of a PyTorch profiler trace to the operator that launched it, and adds them to kernel groups with their share of their operator call's cost.
 *
 * A kernel finds its operator by, in order: its own "External id" (newer
 * traces put the operator's on the kernel), its runtime call's (matched by
 * "correlation"), or the innermost operator on the launching thread whose
 * span holds the runtime call (older traces link this way only). An id is
 * taken only when the call it names holds the runtime call (same thread,
 * the call's start within the span): older Kineto writes an activity's own
 * correlation id as its External id, which names unrelated calls
 * (aten::empty, aten::detach); those are linked by span (stats relinked).
 * An id with no runtime call in the trace to check it against is taken.
 *
 * An operator call's FLOPs and bytes (torchops) are split over its GPU
 * activities by what each does (torch-split: grad-input and grad-weight
 * kernels, a GEMM and its bias copy or epilogue; set-up, split-K
 * reductions and copies carry none), or, where its kernels cannot be told
 * apart, spread over all of them by time (one point: split_call).
 *
 * Memory. Kineto writes every CPU operator first, then the GPU activities
 * and runtime calls, interleaved (all 15 real traces in tests/data/
 * torch-real), so every operator call is kept, compactly (40 bytes, in
 * chunks): a kernel read later may name any of them. A GPU activity is
 * linked when read if the link cannot change later: its External id names
 * a call already read that holds its runtime call, already read, or it has
 * none and its runtime call names one that holds it. One whose runtime
 * call is not read yet waits for it (torch-store.c, a few at a time). An
 * activity of an uncosted call then goes into its group at once and is
 * dropped; those of costed calls are held (56 bytes, chained per call)
 * until the end, when the call's cost is split over them. The others
 * (linked by span, or whose call is not read yet) are kept and linked after
 * the last event; so are NCCL kernels, whose message size comes from the
 * calls around theirs. A call's activities are split in the order read,
 * whichever way each was linked, so the result does not depend on the
 * order of the events. The GPU busy time is merged into per-device
 * intervals as the activities are read.
 */
#define _GNU_SOURCE
#include "analyzer/readers/torch-internal.h"
#include "analyzer/readers/torchops-llm.h"

#include "analyzer/profiler/nccl.h"
#include "analyzer/util/alloc.h"
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


/* rl_comm_recognize's answers by (kernel name id, operator name id): the
 * same pair is asked once per kernel launch, and its answer depends on the
 * two names alone. Direct-mapped: a slot holds one pair, compared whole. */
#define COMM_MEMO_SLOTS 4096
struct tr_comm_memo {
    uint32_t kname, opname; /* opname: its id + 1, 0 none; kname UINT32_MAX: empty */
    bool nccl;
    char coll[24];
};

static bool comm_of(struct tr_state *s, uint32_t kname_id, const char *kname, uint32_t op_id,
                    const char *kop, char *coll, size_t size)
{
    if (!s->comm_memo) {
        s->comm_memo = rl_malloc(COMM_MEMO_SLOTS * sizeof *s->comm_memo);
        if (!s->comm_memo) /* no room: asked each time */
            return rl_comm_recognize(kname, kop, coll, size);
        for (size_t i = 0; i < COMM_MEMO_SLOTS; i++)
            s->comm_memo[i].kname = UINT32_MAX;
    }
    struct tr_comm_memo *m =
        &s->comm_memo[(kname_id * 2654435761u ^ op_id * 40503u) % COMM_MEMO_SLOTS];
    if (m->kname != kname_id || m->opname != op_id) {
        m->nccl = rl_comm_recognize(kname, kop, m->coll, sizeof m->coll);
        m->kname = kname_id;
        m->opname = op_id;
    }
    snprintf(coll, size, "%s", m->coll);
    return m->nccl;
}

void tr_state_release(struct tr_state *s)
{
    free(s->comm_memo);
    free(s->kname_role);
    rl_strbuf_release(&s->sig_key);
    tr_intern_release(&s->sigs);
    tr_intern_release(&s->opnames);
    tr_intern_release(&s->strings);
    tr_intern_release(&s->threads);
    tr_intern_release(&s->knames);
    free(s->sig);
    tr_chunks_release(&s->ops);
    tr_ids_release(&s->op_ext);
    tr_ids_release(&s->comm_seq);
    tr_chunks_release(&s->rts);
    tr_ids_release(&s->rt_corr);
    tr_chunks_release(&s->held);
    tr_chunks_release(&s->pending);
    tr_chunks_release(&s->late);
    tr_chunks_release(&s->graph);
    free(s->twin);
    free(s->serve);
    free(s->wait.v);
    free(s->tmp);
    for (size_t i = 0; i < s->n_busy; i++)
        free(s->busy[i].v);
    free(s->busy);
    free(s->unk_time);
    free(s->unk_launches);
    tr_intern_release(&s->gkeys);
    free(s->gseen);
    free(s->parent);
    free(s->order);
}

/* ---- the operator calls, nested (at the end, when needed) ------------------ */

static const struct tr_op *op_at(const struct tr_state *s, uint32_t index)
{
    return tr_at(&s->ops, index);
}

/* qsort has no context argument; one per thread (ranks are read side by side) */
static _Thread_local const struct tr_state *sort_state;

static int cmp_op(const void *pa, const void *pb)
{
    const struct tr_op *a = op_at(sort_state, *(const uint32_t *)pa),
                       *b = op_at(sort_state, *(const uint32_t *)pb);
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) /* the enclosing call first */
        return a->end > b->end ? -1 : 1;
    /* the same span: the order read (a stable sort of the calls, as glibc's
     * qsort sorted them when they were records) */
    uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
    return ia < ib ? -1 : ia > ib;
}

/* Sort the calls by thread and start (order: indices), and give each its
 * enclosing call (parent, by index). */
static int nest_ops(struct tr_state *s)
{
    size_t n = s->ops.n;
    s->order = rl_malloc((n + 1) * sizeof *s->order);
    s->parent = rl_malloc((n + 1) * sizeof *s->parent);
    uint32_t *stack = rl_malloc((n + 1) * sizeof *stack);
    if (!s->order || !s->parent || !stack) {
        free(stack);
        return RL_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        s->order[i] = (uint32_t)i;
    sort_state = s;
    if (n)
        qsort(s->order, n, sizeof *s->order, cmp_op);
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tr_op *o = op_at(s, s->order[i]);
        if (i && op_at(s, s->order[i - 1])->thread != o->thread)
            depth = 0;
        while (depth && op_at(s, stack[depth - 1])->end < o->ts)
            depth--;
        s->parent[s->order[i]] = depth ? stack[depth - 1] + 1 : 0;
        stack[depth++] = s->order[i];
    }
    free(stack);
    return RL_OK;
}

/* The innermost call on thread th whose span holds t: index + 1, 0 none. */
static uint32_t innermost_at(const struct tr_state *s, uint32_t th, double t)
{
    size_t lo = 0, hi = s->ops.n; /* first op after (th, t) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct tr_op *o = op_at(s, s->order[mid]);
        if (o->thread < th || (o->thread == th && o->ts <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || op_at(s, s->order[lo - 1])->thread != th)
        return 0;
    uint32_t k = s->order[lo - 1] + 1; /* index + 1 of the last call started by t */
    for (int steps = 0; k && steps < 4096; steps++) {
        if (op_at(s, k - 1)->end >= t)
            return k;
        k = s->parent[k - 1];
    }
    return 0;
}

/* ---- the groups ------------------------------------------------------------ */

/* The collective's message bytes and group from the operator or the calls
 * around it (record_param_comms wraps the c10d call that launches it). */
static const struct tr_sig *comm_sig(const struct tr_state *s, uint32_t op)
{
    for (int up = 0; op && up < 8; up++) {
        const struct tr_sig *g = &s->sig[op_at(s, op - 1)->sig];
        if (g->collective[0] && g->comm_bytes >= 0)
            return g;
        op = s->parent[op - 1];
    }
    return NULL;
}

/* The call comm_sig finds: index + 1; 0 none. */
static uint32_t comm_op(const struct tr_state *s, uint32_t op)
{
    for (int up = 0; op && up < 8; up++) {
        const struct tr_sig *g = &s->sig[op_at(s, op - 1)->sig];
        if (g->collective[0] && g->comm_bytes >= 0)
            return op;
        op = s->parent[op - 1];
    }
    return 0;
}

static int note_unknown(struct tr_state *s, uint32_t name, double t)
{
    if (name >= s->unk_cap) {
        size_t cap = s->unk_cap ? s->unk_cap : 256;
        while (cap <= name)
            cap *= 2;
        double *tm = rl_realloc(s->unk_time, cap * sizeof *tm);
        if (!tm)
            return RL_ENOMEM;
        s->unk_time = tm;
        uint64_t *l = rl_realloc(s->unk_launches, cap * sizeof *l);
        if (!l)
            return RL_ENOMEM;
        s->unk_launches = l;
        memset(tm + s->unk_cap, 0, (cap - s->unk_cap) * sizeof *tm);
        memset(l + s->unk_cap, 0, (cap - s->unk_cap) * sizeof *l);
        s->unk_cap = cap;
    }
    s->unk_time[name] += t;
    s->unk_launches[name]++;
    return RL_OK;
}

/* The part of its call's cost one GPU activity carries. */
struct tr_share {
    double flops, bytes;        /* NAN: none known */
};

/* Add one GPU activity to its group; share: the part of its call's cost
 * it carries (split_call), NULL none. */
static int emit(struct tr_state *s, const struct tr_gpu *k, const struct tr_share *share,
                double scale)
{
    struct rl_torch_stats *st = s->st;
    const char *name = tr_text(&s->knames, k->kname);
    size_t name_len = s->knames.len[k->kname] - 6 * sizeof(uint32_t);
    uint32_t dims[6];
    memcpy(dims, name + name_len, sizeof dims);
    char kname[4097];
    memcpy(kname, name, name_len);
    kname[name_len] = 0;
    char coll[24] = "";
    uint32_t kop_id = k->op ? s->sig[op_at(s, k->op - 1)->sig].name : 0;
    const char *kop = k->op ? tr_text(&s->opnames, kop_id) : NULL;
    bool nccl = k->kind == TR_KERNEL &&
                comm_of(s, k->kname, kname, k->op ? kop_id + 1 : 0, kop, coll, sizeof coll);
    if (nccl && k->op && !s->parent) { /* its message bytes need the calls nested */
        struct tr_gpu *l = tr_chunks_push(&s->late);
        if (!l)
            return RL_ENOMEM;
        *l = *k;
        return RL_OK;
    }
    const char *graph_label = NULL; /* replayed from a graph: emitted last (torch-graph.c) */
    if (k->kind == TR_KERNEL && !nccl && tr_graph_of(s, k, &graph_label) && !s->graph_pass) {
        struct tr_gpu *l = tr_chunks_push(&s->graph);
        if (!l)
            return RL_ENOMEM;
        *l = *k;
        return RL_OK;
    }
    const struct tr_op *o = k->op && !graph_label ? op_at(s, k->op - 1) : NULL;
    const struct tr_sig *sg = o ? &s->sig[o->sig] : NULL;
    struct rl_trace_launch l = {.name = kname, .grid = dims, .block = dims + 3,
                                .origin = RL_ORIGIN_ANALYTIC, .launches = 1,
                                .flops = NAN, .time_ns = k->dur * scale, .comm_bytes = NAN};
    for (int m = 0; m < RL_MEM_COUNT; m++)
        l.bytes[m] = NAN;
    if (graph_label)
        l.op = graph_label;
    if (sg) {
        l.op = tr_text(&s->opnames, sg->name);
        l.shapes = sg->has_shapes ? tr_text(&s->strings, sg->shapes) : NULL;
        l.dtype = sg->cost.dtype[0] ? sg->cost.dtype : NULL;
    }
    if (nccl) {
        st->comm_kernels++;
        const struct tr_sig *cs = comm_sig(s, k->op);
        l.collective = coll[0] ? coll : NULL;
        if (cs) {
            /* the name may not say (RCCL's ncclDevKernel_Generic): the
             * collective record_param_comms or the operator names */
            l.collective = coll[0] ? coll : cs->collective;
            l.comm_bytes = cs->comm_bytes;
            l.comm_group_size = cs->group_size;
            if (l.comm_group_size <= 0 && st->world_size > 1) {
                l.comm_group_size = st->world_size; /* no process group: the job's */
                st->comm_group_from_world++;
            }
            st->comm_with_bytes++;
        }
        if (s->tl) { /* the timeline's activity k->seq: a collective, with its bytes */
            uint32_t co = cs ? comm_op(s, k->op) : 0;
            uint32_t sq = co ? tr_ids_get(&s->comm_seq, (int64_t)(co - 1)) : 0;
            rl_timeline_set_comm(s->tl, k->seq, l.collective, cs ? cs->pg : NULL,
                                 sq ? (long long)sq - 1 : -1, l.comm_bytes, l.comm_group_size);
        }
    } else if (graph_label) {
        int err = RL_OK;
        tr_graph_twin(s, k, &l, &err);
        if (err)
            return err;
    } else if (sg && sg->cost.known && share) {
        const char *noted = "";
        l.flops = share->flops;
        l.bytes[RL_MEM_DRAM] = share->bytes;
        /* a copy or fill carrying the call's cost runs on no Tensor Core */
        bool kernel = k->kind == TR_KERNEL;
        l.precision = rl_torch_kernel_roof(kname, sg->cost.dtype, kernel && sg->cost.matmul,
                                           &noted);
        if (kernel && noted && noted[0] && l.flops > 0)
            st->roof_from_dtype++;
        if (isnan(l.flops)) /* bytes only: a memory point */
            l.flops = NAN;
        st->costed++;
    } else if (k->kind == TR_MEMSET && k->bytes >= 0) {
        l.bytes[RL_MEM_DRAM] = k->bytes; /* written once */
        st->op_helpers += sg && sg->cost.known;
    } else if (k->kind == TR_MEMCPY && k->memcpy_dir == TR_COPY_D2D && k->bytes >= 0) {
        l.bytes[RL_MEM_DRAM] = 2 * k->bytes; /* read and written */
        st->op_helpers += sg && sg->cost.known;
    } else if (sg && sg->cost.known) {
        st->op_helpers++;
    } else if (k->kind == TR_KERNEL && sg) {
        st->uncosted++;
        if (note_unknown(s, sg->name, l.time_ns))
            return RL_ENOMEM;
    } else if (k->kind == TR_KERNEL) {
        st->uncosted++;
    }
    /* note the group's first activity read: groups are put back in that
     * order at the end (a held activity is added late), so the report's
     * rows come out as they did when every activity was added in order */
    uint32_t key[3] = {k->kname, sg ? sg->name + 1 : 0,
                       sg && sg->has_shapes ? sg->shapes + 1 : 0};
    bool added;
    long id = tr_intern(&s->gkeys, (const char *)key, sizeof key, &added);
    if (id < 0 || tr_reserve((void **)&s->gseen, &s->gseen_cap, (size_t)id, sizeof *s->gseen))
        return RL_ENOMEM;
    size_t n_before = s->g->n;
    int rc = rl_trace_groups_add_launch(s->g, &l);
    struct tr_group_seen *seen = &s->gseen[id];
    if (added)
        *seen = (struct tr_group_seen){k->seq, s->g->n > n_before
                                                   ? (uint32_t)(s->g->n - 1 - s->groups_first)
                                                   : UINT32_MAX};
    else if (k->seq < seen->seq)
        seen->seq = k->seq;
    return rc;
}

static int cmp_seen(const void *pa, const void *pb)
{
    const struct tr_group_seen *a = pa, *b = pb;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The groups this trace made, in the order of their first activity read. */
static int order_groups(struct tr_state *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->gkeys.n; i++)
        if (s->gseen[i].index != UINT32_MAX)
            s->gseen[n++] = s->gseen[i];
    if (n != s->g->n - s->groups_first || n == 0)
        return RL_OK; /* not all ours, or none (no qsort of an empty array): leave them */
    qsort(s->gseen, n, sizeof *s->gseen, cmp_seen);
    uint32_t *order = rl_malloc((n + 1) * sizeof *order);
    if (!order)
        return RL_ENOMEM;
    for (size_t i = 0; i < n; i++)
        order[i] = s->gseen[i].index;
    int rc = rl_trace_groups_reorder(s->g, s->groups_first, order);
    free(order);
    return rc;
}

#define TR_SCALE 1000.0 /* Kineto's microseconds to ns (tr_link) */

/* ---- linking: by id, checked against the launch --------------------------- */

/* Does call op (index + 1) hold runtime call r: on its thread, r's start
 * within its span? An External id that names a call that does not is not
 * that call's: older Kineto writes a GPU activity's own correlation id
 * there, which collides with unrelated operators' ids. */
static bool holds(const struct tr_state *s, uint32_t op, const struct tr_rt *r)
{
    /* 1 ns of slack: a start and a duration with nanosecond fractions may
     * round apart */
    const struct tr_op *o = op_at(s, op - 1);
    return o->thread == r->thread && o->ts - 1e-3 <= r->ts && r->ts <= o->end + 1e-3;
}

enum tr_how { TR_BY_EXT, TR_BY_RUNTIME, TR_BY_SPAN, TR_BY_NONE };

/* The call that launched k: by its External id, else its runtime call's
 * (r; NULL: not read), each checked against r when it is known; else, with
 * the calls nested, the innermost call on r's thread whose span holds r.
 * *op: index + 1, 0 none. k->collided is set when an id named a call that
 * does not hold r. */
static enum tr_how resolve(const struct tr_state *s, struct tr_gpu *k, const struct tr_rt *r,
                           bool nested, uint32_t *op)
{
    uint32_t o = tr_ids_get(&s->op_ext, k->ext); /* -1: found nowhere */
    if (o && (!r || holds(s, o, r))) {
        *op = o;
        return TR_BY_EXT;
    }
    k->collided |= o != 0;
    if (r) {
        o = tr_ids_get(&s->op_ext, r->ext);
        if (o && holds(s, o, r)) {
            *op = o;
            return TR_BY_RUNTIME;
        }
        k->collided |= o != 0;
        if (nested && (o = innermost_at(s, r->thread, r->ts))) {
            *op = o;
            return TR_BY_SPAN;
        }
    }
    *op = 0;
    return TR_BY_NONE;
}

static const struct tr_rt *runtime_of(const struct tr_state *s, int64_t corr)
{
    uint32_t rt = tr_ids_get(&s->rt_corr, corr); /* -1: never kept */
    return rt ? tr_at(&s->rts, rt - 1) : NULL;
}

static void count_link(struct tr_state *s, enum tr_how how, const struct tr_gpu *k)
{
    struct rl_torch_stats *st = s->st;
    st->linked_external += how == TR_BY_EXT;
    st->linked_runtime += how == TR_BY_RUNTIME;
    st->linked_span += how == TR_BY_SPAN;
    st->unlinked += how == TR_BY_NONE;
    st->relinked += k->collided;
}

/* ---- one call's activities, its cost split over them ----------------------- */

/* k is linked (k->op set, or 0: never will be): an activity of a costed
 * call is held until the end, when its call's cost is split over them
 * (split_call); the others go into their groups now. */
static int place(struct tr_state *s, const struct tr_gpu *k, double scale)
{
    /* copies between host and device cross PCIe, not DRAM: never a
     * carrier of an operator's DRAM bytes */
    if (!k->op || (k->kind == TR_MEMCPY && k->memcpy_dir != TR_COPY_D2D))
        return emit(s, k, NULL, scale);
    struct tr_op *o = tr_at(&s->ops, k->op - 1);
    if (!s->sig[o->sig].cost.known)
        return emit(s, k, NULL, scale);
    /* fewer held than GPU activities read (at most UINT32_MAX - 1: the
     * 1-based index fits) */
    if (s->held.n >= UINT32_MAX - 1)
        return RL_ENOMEM;
    struct tr_gpu *h = tr_chunks_push(&s->held);
    if (!h)
        return RL_ENOMEM;
    *h = *k;
    h->next = o->held;
    o->held = (uint32_t)s->held.n;
    return RL_OK;
}

static int cmp_seq(const void *pa, const void *pb)
{
    const struct tr_gpu *a = pa, *b = pb;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static enum rl_torch_role role_of(struct tr_state *s, const struct tr_gpu *k)
{
    if (k->kind != TR_KERNEL)
        return RL_TORCH_ROLE_COPY;
    /* one look per kernel name (its substring searches were a twentieth
     * of a trace's time): kname_role holds role + 1, 0 not looked at; no
     * memory for it only means looking again */
    if (k->kname >= s->kname_role_cap) {
        size_t cap = s->kname_role_cap ? 2 * s->kname_role_cap : 1024;
        while (cap <= k->kname)
            cap *= 2;
        uint8_t *m = rl_realloc(s->kname_role, cap);
        if (m) {
            memset(m + s->kname_role_cap, 0, cap - s->kname_role_cap);
            s->kname_role = m;
            s->kname_role_cap = cap;
        }
    }
    bool memo = k->kname < s->kname_role_cap;
    if (memo && s->kname_role[k->kname])
        return (enum rl_torch_role)(s->kname_role[k->kname] - 1);
    /* the interned name is NUL-terminated after its grid and block: copy
     * the name alone */
    char name[4097];
    size_t n = s->knames.len[k->kname] - 6 * sizeof(uint32_t);
    memcpy(name, tr_text(&s->knames, k->kname), n);
    name[n] = 0;
    enum rl_torch_role role = rl_torch_kernel_role(name, false);
    if (memo)
        s->kname_role[k->kname] = (uint8_t)(role + 1);
    return role;
}

/* A fused MoE's kernels each carry their part (rl_torch_llm_kernel_part:
 * the gate-up and down GEMMs, the routing, the helpers); its copies and
 * fills their own bytes. */
static int split_moe(struct tr_state *s, const struct rl_torch_cost *c, struct tr_gpu *v,
                     size_t n, double scale)
{
    int rc = RL_OK;
    s->st->split_calls++;
    for (size_t i = 0; i < n && rc == RL_OK; i++) {
        char name[4097];
        size_t len = s->knames.len[v[i].kname] - 6 * sizeof(uint32_t);
        memcpy(name, tr_text(&s->knames, v[i].kname), len);
        name[len] = 0;
        struct tr_share sh;
        bool part = v[i].kind == TR_KERNEL &&
                    rl_torch_llm_kernel_part(c, name, false, &sh.flops, &sh.bytes);
        rc = emit(s, &v[i], part ? &sh : NULL, scale);
    }
    return rc;
}

/* Split call op's cost over its n activities v (in the order read) and add
 * them to their groups. One activity carries it all. Several: a
 * convolution backward's grad-input kernels share its grad-input FLOPs and
 * bytes and its grad-weight kernels the rest; otherwise the one kernel
 * that does the arithmetic (role main) carries the FLOPs and bytes, an
 * addmm's bias copy its bytes; set-up, split-K reductions, copies and fills
 * carry none (a fill or device copy its own bytes, emit). Where the kernels
 * cannot be told apart (no main kernel or several, a convolution backward
 * without both a grad-input and a grad-weight kernel and no other) the
 * call is judged as
 * one point: each activity carries the FLOPs and bytes in proportion to its
 * time, so all sit at the call's intensity and rate. */
static int split_call(struct tr_state *s, const struct tr_sig *sg, struct tr_gpu *v, size_t n,
                      double scale)
{
    struct rl_torch_stats *st = s->st;
    const struct rl_torch_cost *c = &sg->cost;
    if (isfinite(c->flops))
        st->call_flops += c->flops;
    if (n == 1)
        return emit(s, &v[0], &(struct tr_share){c->flops, c->bytes}, scale);
    if (strncmp(c->formula, "moe", 3) == 0) /* a fused MoE: its kernels by role (tracellm) */
        return split_moe(s, c, v, n, scale);
    enum { MAX_SPLIT = 64 }; /* more: one point */
    enum rl_torch_role role[MAX_SPLIT];
    size_t n_main = 0, n_d = 0, n_w = 0, n_copy = 0, n_epi = 0, main_at = 0, bias_at = 0;
    double t_all = 0, t_d = 0, t_w = 0;
    for (size_t i = 0; i < n; i++) {
        t_all += v[i].dur;
        if (n > MAX_SPLIT)
            continue;
        role[i] = role_of(s, &v[i]);
        if (role[i] == RL_TORCH_ROLE_DGRAD)
            n_d++, t_d += v[i].dur;
        else if (role[i] == RL_TORCH_ROLE_WGRAD)
            n_w++, t_w += v[i].dur;
        else if (role[i] == RL_TORCH_ROLE_MAIN)
            n_main++, main_at = i;
        else if (role[i] == RL_TORCH_ROLE_COPY && v[i].kind == TR_KERNEL)
            n_copy++, bias_at = i;
        else if (role[i] == RL_TORCH_ROLE_EPILOGUE)
            n_epi++, bias_at = i;
    }
    const struct rl_torch_parts *p = &sg->parts;
    int rc = RL_OK;
    if (n <= MAX_SPLIT && p->conv_backward && n_d && n_w && !n_main) {
        st->split_calls++;
        for (size_t i = 0; i < n && rc == RL_OK; i++) {
            /* several kernels of one part share it by time (equally when
             * none took any) */
            bool d = role[i] == RL_TORCH_ROLE_DGRAD, w = role[i] == RL_TORCH_ROLE_WGRAD;
            double t = d ? t_d : t_w, nk = (double)(d ? n_d : n_w);
            double f = t > 0 ? v[i].dur / t : 1 / nk;
            struct tr_share sh = {f * (d ? p->dgrad_flops : p->wgrad_flops),
                                  f * (d ? p->dgrad_bytes : p->wgrad_bytes)};
            rc = emit(s, &v[i], d || w ? &sh : NULL, scale);
        }
        return rc;
    }
    /* one kernel does the arithmetic (a convolution backward asking both
     * grads has two) */
    if (n <= MAX_SPLIT && n_main + n_d + n_w == 1 && !p->conv_backward) {
        if (n_main == 0) /* the one grad kernel of a call that asks for one */
            for (size_t i = 0; i < n; i++)
                if (role[i] == RL_TORCH_ROLE_DGRAD || role[i] == RL_TORCH_ROLE_WGRAD)
                    main_at = i;
        /* an addmm's bias in its own kernel: copied in before the GEMM
         * (which then reads the output too) or added after it */
        bool bias = p->addmm && n_copy + n_epi == 1;
        double before = n_copy ? 1 : 0;
        struct tr_share gemm = {c->flops, bias ? p->ab_bytes + (1 + before) * p->out_bytes
                                               : c->bytes},
                        add = {0, p->bias_bytes + (2 - before) * p->out_bytes};
        st->split_calls++;
        for (size_t i = 0; i < n && rc == RL_OK; i++)
            rc = emit(s, &v[i], i == main_at ? &gemm : bias && i == bias_at ? &add : NULL, scale);
        return rc;
    }
    st->one_point_calls++;
    for (size_t i = 0; i < n && rc == RL_OK; i++) {
        double f = t_all > 0 ? v[i].dur / t_all : 1 / (double)n;
        rc = emit(s, &v[i], &(struct tr_share){f * c->flops, f * c->bytes}, scale);
    }
    return rc;
}

/* Every costed call's activities, split (at the end, calls in the order
 * read). */
static int split_calls(struct tr_state *s, double scale)
{
    int rc = RL_OK;
    for (size_t i = 0; i < s->ops.n && rc == RL_OK; i++) {
        const struct tr_op *o = op_at(s, (uint32_t)i);
        size_t n = 0;
        for (uint32_t h = o->held; h && rc == RL_OK; h = ((struct tr_gpu *)tr_at(&s->held, h - 1))->next) {
            if (tr_reserve((void **)&s->tmp, &s->tmp_cap, n, sizeof *s->tmp))
                rc = RL_ENOMEM;
            else
                s->tmp[n++] = *(struct tr_gpu *)tr_at(&s->held, h - 1);
        }
        if (rc || !n)
            continue;
        qsort(s->tmp, n, sizeof *s->tmp, cmp_seq);
        rc = split_call(s, &s->sig[o->sig], s->tmp, n, scale);
    }
    return rc;
}

/* Link an activity whose runtime call was not read when it was (r: that
 * call, NULL none in the trace): checked against it, placed when its id
 * holds, else kept to link by span at the end. */
static int link_waited(struct tr_state *s, struct tr_gpu *k, const struct tr_rt *r)
{
    enum tr_how how = resolve(s, k, r, false, &k->op);
    if (how == TR_BY_NONE) { /* collided: by span, at the end */
        struct tr_gpu *p = tr_chunks_push(&s->pending);
        if (!p)
            return RL_ENOMEM;
        *p = *k;
        return RL_OK;
    }
    count_link(s, how, k);
    return place(s, k, TR_SCALE);
}

int tr_take_runtime(struct tr_state *s, int64_t corr)
{
    size_t n;
    if (!s->wait.used || corr < 0)
        return RL_OK;
    if (tr_wait_take(&s->wait, corr, false, &s->tmp, &s->tmp_cap, &n))
        return RL_ENOMEM;
    const struct tr_rt *r = runtime_of(s, corr);
    int rc = RL_OK;
    for (size_t i = 0; i < n && rc == RL_OK; i++)
        rc = link_waited(s, &s->tmp[i], r);
    return rc;
}

/* After the last event: those whose runtime call never came keep their
 * External id's call, in the order read. */
static int wait_drain(struct tr_state *s)
{
    size_t n;
    if (tr_wait_take(&s->wait, 0, true, &s->tmp, &s->tmp_cap, &n))
        return RL_ENOMEM;
    int rc = RL_OK;
    for (size_t i = 0; i < n && rc == RL_OK; i++)
        rc = link_waited(s, &s->tmp[i], NULL);
    return rc;
}

int tr_take_gpu(struct tr_state *s, const struct tr_gpu *in, int device, double ts)
{
    struct rl_torch_stats *st = s->st;
    struct tr_gpu k = *in;
    k.seq = s->n_gpus++;
    k.op = k.next = 0;
    k.collided = false;
    if (k.seq == 0)
        s->first_device = device;
    st->kernel_time_ns += k.dur * TR_SCALE;
    if (tr_busy_add(s, device, ts, ts + k.dur))
        return RL_ENOMEM;
    /* an id of -1 (none) is never in the maps (ids are read >= 0, and a
     * runtime call without a correlation is not kept): looked up, it finds
     * nothing */
    const struct tr_rt *r = runtime_of(s, k.corr);
    if (tr_ids_get(&s->op_ext, k.ext)) {
        if (!r && k.corr >= 0) /* checked when its runtime call comes */
            return tr_wait_put(&s->wait, &k);
        enum tr_how how = resolve(s, &k, r, false, &k.op);
        if (how != TR_BY_NONE) {
            count_link(s, how, &k);
            return place(s, &k, TR_SCALE);
        }
    } else if (k.ext < 0 && r) {
        enum tr_how how = resolve(s, &k, r, false, &k.op);
        if (how != TR_BY_NONE) {
            count_link(s, how, &k);
            return place(s, &k, TR_SCALE);
        }
    }
    /* an activity with an External id of an operator not read yet waits
     * for it (linked at the end, link_pending), and so does one whose id
     * collided (by span) */
    struct tr_gpu *p = tr_chunks_push(&s->pending);
    if (!p)
        return RL_ENOMEM;
    *p = k;
    return RL_OK;
}

/* Link what could not be linked when read, in the order read. */
static int link_pending(struct tr_state *s, double scale)
{
    int rc = RL_OK;
    for (size_t i = 0; i < s->pending.n && rc == RL_OK; i++) {
        struct tr_gpu *k = tr_at(&s->pending, i);
        enum tr_how how = resolve(s, k, runtime_of(s, k->corr), true, &k->op);
        count_link(s, how, k);
        rc = place(s, k, scale);
    }
    return rc;
}

/* The operators the table does not know, the largest first. */
static void rank_unknown(struct tr_state *s)
{
    struct rl_torch_stats *st = s->st;
    for (size_t n = 0; n < s->unk_cap && n < s->opnames.n; n++) {
        if (!s->unk_launches[n])
            continue;
        st->unknown_ops++;
        size_t at = st->n_unknown;
        while (at > 0 && st->unknown[at - 1].time_ns < s->unk_time[n])
            at--;
        if (at >= RL_TORCH_TOP_UNKNOWN)
            continue;
        size_t keep = st->n_unknown < RL_TORCH_TOP_UNKNOWN ? st->n_unknown
                                                          : RL_TORCH_TOP_UNKNOWN - 1;
        memmove(&st->unknown[at + 1], &st->unknown[at], (keep - at) * sizeof st->unknown[0]);
        struct rl_torch_unknown_op *u = &st->unknown[at];
        snprintf(u->op, sizeof u->op, "%s", tr_text(&s->opnames, (uint32_t)n));
        u->time_ns = s->unk_time[n];
        u->launches = s->unk_launches[n];
        if (st->n_unknown < RL_TORCH_TOP_UNKNOWN)
            st->n_unknown++;
    }
}

/* The GPU the trace ran on: the device of its first activity. */
static void name_gpu(struct tr_state *s, struct rl_trace_groups *g)
{
    struct rl_torch_stats *st = s->st;
    int dev = s->n_gpus ? s->first_device : 0;
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

int tr_link(struct tr_state *s, const char *what, char *errmsg)
{
    /* Chrome trace time is in microseconds; Kineto writes "ts" and "dur"
     * in microseconds (fractions of one for nanoseconds) whatever its
     * displayTimeUnit, which only sets the viewer's display. */
    double scale = TR_SCALE;
    struct rl_trace_groups *g = s->g;
    snprintf(s->st->time_unit, sizeof s->st->time_unit, "us");
    int rc = wait_drain(s);
    if (rc == RL_OK && s->pending.n)
        rc = nest_ops(s); /* linking by span */
    if (rc == RL_OK)
        rc = link_pending(s, scale);
    if (rc == RL_OK)
        rc = split_calls(s, scale);
    if (rc == RL_OK && s->late.n && !s->parent)
        rc = nest_ops(s);
    for (size_t i = 0; i < s->late.n && rc == RL_OK; i++)
        rc = emit(s, tr_at(&s->late, i), NULL, scale); /* NCCL kernels: no cost either way */
    s->graph_pass = true; /* graph replays last: their eager twins are all in */
    for (size_t i = 0; i < s->graph.n && rc == RL_OK; i++)
        rc = emit(s, tr_at(&s->graph, i), NULL, scale);
    if (rc == RL_OK)
        rc = order_groups(s);
    if (rc == RL_OK) {
        rank_unknown(s);
        tr_gpu_time(s, scale);
        name_gpu(s, g);
    }
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
    PUT("PyTorch profiler trace: %llu GPU kernel%s, %llu cop%s, %llu fill%s; operators linked: "
        "%llu by External id, %llu through their runtime call, %llu by the launching "
        "thread's span, %llu not linked (counted by name and time)\n",
        (unsigned long long)st->kernels, st->kernels == 1 ? "" : "s",
        (unsigned long long)st->memcpys, st->memcpys == 1 ? "y" : "ies",
        (unsigned long long)st->memsets, st->memsets == 1 ? "" : "s",
        (unsigned long long)st->linked_external,
        (unsigned long long)st->linked_runtime, (unsigned long long)st->linked_span,
        (unsigned long long)st->unlinked);
    if (st->relinked) /* torchlink: ids that collide (issue 32) */
        PUT("%llu GPU activities' External id named an operator call that did not launch them "
            "(its span does not hold their runtime call: older Kineto writes the correlation id "
            "there): linked by the launching thread's span instead\n",
            (unsigned long long)st->relinked);
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
    if (st->split_calls || st->one_point_calls) /* torchlink: a call's cost over its kernels */
        PUT("operator calls of several GPU activities: %llu split by what each kernel does "
            "(grad-input and grad-weight, GEMM and bias copy; set-up, split-K reduction and "
            "copy kernels carry no FLOPs), %llu whose kernels cannot be told apart judged as "
            "one point (their FLOPs and bytes spread over all their kernels by time)\n",
            (unsigned long long)st->split_calls, (unsigned long long)st->one_point_calls);
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
            PUT("%s %s (%s, %llu launch%s)", i ? "," : "", st->unknown[i].op, t,
                (unsigned long long)st->unknown[i].launches,
                st->unknown[i].launches == 1 ? "" : "es");
        }
        PUT("\n");
    }
    if (st->graph_kernels && at < size) /* torch-graph.c */
        at += tr_graph_note(st, buf + at, size - at);
    if (st->comm_kernels)
        PUT("%llu communication kernels (NCCL/RCCL, symmetric memory, custom all-reduce, "
            "DeepEP); %llu with their message bytes (record_param_comms, else the "
            "collective operator's input shapes)\n",
            (unsigned long long)st->comm_kernels, (unsigned long long)st->comm_with_bytes);
    if (st->comm_group_from_world)
        PUT("%llu collective launches name no process group: their group is the trace's "
            "world size (%d, distributedInfo)\n",
            (unsigned long long)st->comm_group_from_world, st->world_size);
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
    d->relinked += s->relinked;
    d->costed += s->costed;
    d->op_helpers += s->op_helpers;
    d->split_calls += s->split_calls;
    d->one_point_calls += s->one_point_calls;
    d->call_flops += s->call_flops;
    d->uncosted += s->uncosted;
    d->roof_from_dtype += s->roof_from_dtype;
    d->comm_group_from_world += s->comm_group_from_world;
    d->comm_kernels += s->comm_kernels;
    d->comm_with_bytes += s->comm_with_bytes;
    d->graph_kernels += s->graph_kernels;
    d->graph_costed += s->graph_costed;
    d->graph_time_ns += s->graph_time_ns;
    d->graph_costed_ns += s->graph_costed_ns;
    d->graph_model += s->graph_model;
    d->graph_model_ns += s->graph_model_ns;
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
