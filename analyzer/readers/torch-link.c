/* torch-link.c - links each GPU activity of a PyTorch profiler trace to the operator that launched it, and adds them to kernel groups with their operator's cost.
 *
 * A kernel finds its operator by, in order: its own "External id" (newer
 * traces put the operator's on the kernel), its runtime call's (matched by
 * "correlation"), or the innermost operator on the launching thread whose
 * span holds the runtime call (older traces link this way only). An
 * operator's FLOPs and bytes (torchops) go to its longest GPU activity of
 * the call, so a split-K GEMM's reduction kernel counts in time with the
 * operator but its FLOPs are not counted twice.
 *
 * Memory. Kineto writes every CPU operator first, then the GPU activities,
 * then the runtime calls (all 15 real traces in tests/data/torch-real), so
 * every operator call is kept, compactly (40 bytes, in chunks): a kernel
 * read later may name any of them. A GPU activity is linked when read if
 * the link cannot change later: its External id names a call already read
 * (that rule comes first), or it has none and its runtime call, already
 * read, names one. It then goes into its group at once and is dropped -
 * except each call's longest activity so far (held, one per call), which
 * carries the call's cost and is added when a longer one replaces it or
 * at the end. The others (linked by span, or whose call or runtime call is
 * not read yet) are kept (48 bytes) and linked after the last event,
 * exactly as before; so are NCCL kernels, whose message size comes from
 * the calls around theirs. Ties for the longest go to the activity read
 * first, whichever way each was linked, so the result does not depend on
 * the order of the events. The GPU busy time is merged into per-device
 * intervals as the activities are read.
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
    tr_chunks_release(&s->ops);
    tr_ids_release(&s->op_ext);
    tr_chunks_release(&s->rts);
    tr_ids_release(&s->rt_corr);
    tr_chunks_release(&s->held);
    tr_chunks_release(&s->pending);
    tr_chunks_release(&s->late);
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

/* ---- chunked storage --------------------------------------------------------- */

void *tr_chunks_push(struct tr_chunks *c)
{
    if (c->n == c->n_chunks * TR_CHUNK_LEN) {
        if (c->n_chunks == c->chunks_cap &&
            tr_reserve((void **)&c->chunk, &c->chunks_cap, c->n_chunks, sizeof *c->chunk))
            return NULL;
        if (!(c->chunk[c->n_chunks] = malloc(TR_CHUNK_LEN * c->size)))
            return NULL;
        c->n_chunks++;
    }
    void *p = tr_at(c, c->n++);
    memset(p, 0, c->size);
    return p;
}

void tr_chunks_release(struct tr_chunks *c)
{
    for (size_t i = 0; i < c->n_chunks; i++)
        free(c->chunk[i]);
    free(c->chunk);
    c->chunk = NULL;
    c->n = c->n_chunks = c->chunks_cap = 0;
}

/* ---- id maps: int64 id to index ------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int64_t pair_key(const struct tr_ids *m, size_t i)
{
    int64_t k;
    memcpy(&k, tr_at(&m->pairs, i), sizeof k);
    return k;
}

static uint32_t hash_get(const struct tr_ids *m, int64_t id)
{
    if (!m->slots)
        return 0;
    size_t j = mix64((uint64_t)id) & (m->slots - 1);
    while (m->val[j]) {
        if (m->key[j] == id)
            return m->val[j];
        j = (j + 1) & (m->slots - 1);
    }
    return 0;
}

static int hash_put(struct tr_ids *m, int64_t id, uint32_t index)
{
    if (2 * (m->used + 1) > m->slots) {
        size_t slots = m->slots ? 2 * m->slots : 1024;
        int64_t *key = malloc(slots * sizeof *key);
        uint32_t *val = calloc(slots, sizeof *val);
        if (!key || !val) {
            free(key);
            free(val);
            return RL_ENOMEM;
        }
        for (size_t i = 0; i < m->slots; i++) {
            if (!m->val[i])
                continue;
            size_t j = mix64((uint64_t)m->key[i]) & (slots - 1);
            while (val[j])
                j = (j + 1) & (slots - 1);
            key[j] = m->key[i];
            val[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = key;
        m->val = val;
        m->slots = slots;
    }
    size_t j = mix64((uint64_t)id) & (m->slots - 1);
    while (m->val[j])
        j = (j + 1) & (m->slots - 1);
    m->key[j] = id;
    m->val[j] = index + 1;
    m->used++;
    return RL_OK;
}

uint32_t tr_ids_get(const struct tr_ids *m, int64_t id)
{
    if (m->pairs.n && id <= m->last) {
        size_t lo = 0, hi = m->pairs.n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (pair_key(m, mid) < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* the keys rise and the last is m->last >= id: lo is a key's */
        if (pair_key(m, lo) == id) {
            uint32_t v;
            memcpy(&v, (char *)tr_at(&m->pairs, lo) + sizeof(int64_t), sizeof v);
            return v + 1;
        }
    }
    return hash_get(m, id);
}

int tr_ids_put(struct tr_ids *m, int64_t id, uint32_t index)
{
    if (!m->pairs.n || id > m->last) {
        char *p = tr_chunks_push(&m->pairs);
        if (!p)
            return RL_ENOMEM;
        memcpy(p, &id, sizeof id);
        memcpy(p + sizeof id, &index, sizeof index);
        m->last = id;
        return RL_OK;
    }
    if (tr_ids_get(m, id))
        return RL_OK; /* the first one stays */
    return hash_put(m, id, index);
}

void tr_ids_release(struct tr_ids *m)
{
    tr_chunks_release(&m->pairs);
    free(m->key);
    free(m->val);
    m->key = NULL;
    m->val = NULL;
    m->slots = m->used = 0;
}

/* ---- GPU time: busy and span per device ----------------------------------- */

/* Intervals kept per device before the older half is folded into a sum:
 * traces come in time order per stream, so an activity older than that
 * many idle gaps is not expected; one that comes anyway is counted busy
 * only after the folded part ends. */
#define TR_BUSY_KEEP ((size_t)1 << 16)

static struct tr_busy *busy_of(struct tr_state *s, int device)
{
    for (size_t i = 0; i < s->n_busy; i++)
        if (s->busy[i].device == device)
            return &s->busy[i];
    if (tr_reserve((void **)&s->busy, &s->busy_cap, s->n_busy, sizeof *s->busy))
        return NULL;
    struct tr_busy *b = &s->busy[s->n_busy++];
    *b = (struct tr_busy){.device = device, .first = INFINITY, .last = -INFINITY,
                          .folded_end = -INFINITY};
    return b;
}

/* Add [ts, end] to the device's intervals, merging those it overlaps or
 * touches (as a sweep over the sorted spans would). */
static int busy_add(struct tr_state *s, int device, double ts, double end)
{
    struct tr_busy *b = busy_of(s, device);
    if (!b)
        return RL_ENOMEM;
    if (ts < b->first)
        b->first = ts;
    if (end > b->last)
        b->last = end;
    if (ts <= b->folded_end) {
        if (end <= b->folded_end)
            return RL_OK;
        ts = b->folded_end;
    }
    size_t lo = 0, hi = b->n; /* the first interval ending at or after ts */
    if (b->n && b->v[b->n - 1].end < ts) {
        lo = b->n;
    } else {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b->v[mid].end < ts)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    if (lo < b->n && b->v[lo].ts <= end) {
        if (ts < b->v[lo].ts)
            b->v[lo].ts = ts;
        if (end > b->v[lo].end)
            b->v[lo].end = end;
        size_t k = lo + 1;
        while (k < b->n && b->v[k].ts <= b->v[lo].end) {
            if (b->v[k].end > b->v[lo].end)
                b->v[lo].end = b->v[k].end;
            k++;
        }
        memmove(&b->v[lo + 1], &b->v[k], (b->n - k) * sizeof *b->v);
        b->n -= k - lo - 1;
        return RL_OK;
    }
    if (b->n == TR_BUSY_KEEP) {
        size_t half = b->n / 2;
        for (size_t i = 0; i < half; i++)
            b->folded_ns += b->v[i].end - b->v[i].ts;
        b->folded_end = b->v[half - 1].end;
        memmove(b->v, b->v + half, (b->n - half) * sizeof *b->v);
        b->n -= half;
        lo -= lo < half ? lo : half;
    }
    if (tr_reserve((void **)&b->v, &b->cap, b->n, sizeof *b->v))
        return RL_ENOMEM;
    memmove(&b->v[lo + 1], &b->v[lo], (b->n - lo) * sizeof *b->v);
    b->v[lo].ts = ts;
    b->v[lo].end = end;
    b->n++;
    return RL_OK;
}

static int cmp_busy(const void *pa, const void *pb)
{
    const struct tr_busy *a = pa, *b = pb;
    return a->device < b->device ? -1 : a->device > b->device;
}

static void gpu_time(struct tr_state *s, double scale)
{
    struct rl_torch_stats *st = s->st;
    if (!s->n_busy)
        return;
    if (s->n_busy > 1)
        qsort(s->busy, s->n_busy, sizeof *s->busy, cmp_busy);
    double busy = 0, span = 0;
    for (size_t d = 0; d < s->n_busy; d++) {
        const struct tr_busy *b = &s->busy[d];
        busy += b->folded_ns;
        for (size_t i = 0; i < b->n; i++)
            busy += b->v[i].end - b->v[i].ts;
        span += b->last - b->first;
    }
    st->devices = (int)s->n_busy;
    st->busy_ns = busy * scale;
    st->span_ns = span * scale;
}

/* ---- the operator calls, nested (at the end, when needed) ------------------ */

static const struct tr_op *op_at(const struct tr_state *s, uint32_t index)
{
    return tr_at(&s->ops, index);
}

static const struct tr_state *sort_state; /* qsort has no context argument */

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
    s->order = malloc((n + 1) * sizeof *s->order);
    s->parent = malloc((n + 1) * sizeof *s->parent);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
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

static int note_unknown(struct tr_state *s, uint32_t name, double t)
{
    if (name >= s->unk_cap) {
        size_t cap = s->unk_cap ? s->unk_cap : 256;
        while (cap <= name)
            cap *= 2;
        double *tm = realloc(s->unk_time, cap * sizeof *tm);
        if (!tm)
            return RL_ENOMEM;
        s->unk_time = tm;
        uint64_t *l = realloc(s->unk_launches, cap * sizeof *l);
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

/* Add one GPU activity to its group; best: it carries its call's cost. */
static int emit(struct tr_state *s, const struct tr_gpu *k, bool best, double scale)
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
    bool nccl = k->kind == TR_KERNEL && rl_nccl_kernel(kname, coll, sizeof coll);
    if (nccl && k->op && !s->parent) { /* its message bytes need the calls nested */
        struct tr_gpu *l = tr_chunks_push(&s->late);
        if (!l)
            return RL_ENOMEM;
        *l = *k;
        return RL_OK;
    }
    const struct tr_op *o = k->op ? op_at(s, k->op - 1) : NULL;
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
    if (nccl) {
        st->comm_kernels++;
        const struct tr_sig *cs = comm_sig(s, k->op);
        l.collective = coll[0] ? coll : NULL;
        if (cs) {
            l.comm_bytes = cs->comm_bytes;
            l.comm_group_size = cs->group_size;
            st->comm_with_bytes++;
        }
    } else if (sg && sg->cost.known && best) {
        const char *noted = "";
        l.flops = sg->cost.flops;
        l.bytes[RL_MEM_DRAM] = sg->cost.bytes;
        if (k->kind == TR_KERNEL) {
            l.precision = rl_torch_kernel_roof(kname, sg->cost.dtype, sg->cost.matmul, &noted);
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
    uint32_t *order = malloc((n + 1) * sizeof *order);
    if (!order)
        return RL_ENOMEM;
    for (size_t i = 0; i < n; i++)
        order[i] = s->gseen[i].index;
    int rc = rl_trace_groups_reorder(s->g, s->groups_first, order);
    free(order);
    return rc;
}

/* k is linked (k->op set, or 0: never will be): held as its call's longest
 * activity so far, or added to its group now. */
static int place(struct tr_state *s, const struct tr_gpu *k, double scale)
{
    /* copies between host and device cross PCIe, not DRAM: never the
     * carrier of an operator's DRAM bytes */
    if (!k->op || (k->kind == TR_MEMCPY && k->memcpy_dir != TR_COPY_D2D))
        return emit(s, k, false, scale);
    struct tr_op *o = tr_at(&s->ops, k->op - 1);
    if (!o->held) {
        /* one held per operator, this one's not yet: fewer than the
         * operators (at most UINT32_MAX - 1, take_event), so the 1-based
         * index fits o->held */
        struct tr_gpu *h = tr_chunks_push(&s->held);
        if (!h)
            return RL_ENOMEM;
        *h = *k;
        o->held = (uint32_t)s->held.n;
        return RL_OK;
    }
    struct tr_gpu *h = tr_at(&s->held, o->held - 1);
    if (k->dur > h->dur || (k->dur == h->dur && k->seq < h->seq)) {
        struct tr_gpu old = *h;
        *h = *k;
        return emit(s, &old, false, scale);
    }
    return emit(s, k, false, scale);
}

#define TR_SCALE 1000.0 /* Kineto's microseconds to ns (tr_link) */

int tr_take_gpu(struct tr_state *s, const struct tr_gpu *in, int device, double ts)
{
    struct rl_torch_stats *st = s->st;
    struct tr_gpu k = *in;
    k.seq = s->n_gpus++;
    k.op = 0;
    if (k.seq == 0)
        s->first_device = device;
    st->kernel_time_ns += k.dur * TR_SCALE;
    if (busy_add(s, device, ts, ts + k.dur))
        return RL_ENOMEM;
    /* an id of -1 (none) is never in the maps (ids are read >= 0, and a
     * runtime call without a correlation is not kept): looked up, it finds
     * nothing */
    if ((k.op = tr_ids_get(&s->op_ext, k.ext))) {
        st->linked_external++;
        return place(s, &k, TR_SCALE);
    }
    /* an activity with an External id of an operator not read yet waits
     * for it (linked at the end, link_pending) */
    uint32_t rt = k.ext < 0 ? tr_ids_get(&s->rt_corr, k.corr) : 0;
    const struct tr_rt *r = rt ? tr_at(&s->rts, rt - 1) : NULL;
    if (r && (k.op = tr_ids_get(&s->op_ext, r->ext))) {
        st->linked_runtime++;
        return place(s, &k, TR_SCALE);
    }
    struct tr_gpu *p = tr_chunks_push(&s->pending);
    if (!p)
        return RL_ENOMEM;
    *p = k;
    return RL_OK;
}

/* Link what could not be linked when read, in the order read. */
static int link_pending(struct tr_state *s, double scale)
{
    struct rl_torch_stats *st = s->st;
    int rc = RL_OK;
    for (size_t i = 0; i < s->pending.n && rc == RL_OK; i++) {
        struct tr_gpu *k = tr_at(&s->pending, i);
        if ((k->op = tr_ids_get(&s->op_ext, k->ext))) { /* -1: found nowhere */
            st->linked_external++;
        } else {
            uint32_t rt = tr_ids_get(&s->rt_corr, k->corr);
            const struct tr_rt *r = rt ? tr_at(&s->rts, rt - 1) : NULL;
            if (r && (k->op = tr_ids_get(&s->op_ext, r->ext)))
                st->linked_runtime++;
            else if (r && (k->op = innermost_at(s, r->thread, r->ts)))
                st->linked_span++;
            else
                st->unlinked++;
        }
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
    int rc = RL_OK;
    if (s->pending.n)
        rc = nest_ops(s); /* linking by span */
    if (rc == RL_OK)
        rc = link_pending(s, scale);
    for (size_t i = 0; i < s->ops.n && rc == RL_OK; i++) {
        const struct tr_op *o = op_at(s, (uint32_t)i);
        if (o->held)
            rc = emit(s, tr_at(&s->held, o->held - 1), true, scale);
    }
    if (rc == RL_OK && s->late.n && !s->parent)
        rc = nest_ops(s);
    for (size_t i = 0; i < s->late.n && rc == RL_OK; i++)
        rc = emit(s, tr_at(&s->late, i), false, scale); /* NCCL kernels: no cost either way */
    if (rc == RL_OK)
        rc = order_groups(s);
    if (rc == RL_OK) {
        rank_unknown(s);
        gpu_time(s, scale);
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
            PUT("%s %s (%s, %llu launch%s)", i ? "," : "", st->unknown[i].op, t,
                (unsigned long long)st->unknown[i].launches,
                st->unknown[i].launches == 1 ? "" : "es");
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
