/* torch-store.c - the PyTorch trace reader's containers: chunked storage, int64 id maps, each device's busy intervals, and the GPU activities waiting for their runtime call.
 *
 * The waiting activities (tr_wait) are those linked by their own External
 * id whose runtime call is not read yet: the id is checked against that
 * call when it comes (torch-link.c). Kineto writes a GPU activity and its
 * runtime call close together (1 to 734 events apart in the real traces of
 * tests/data/torch-real), so few wait at once; the table is an open
 * addressing hash by correlation with slots marked gone when taken
 * (several activities share one correlation: a CUDA graph's kernels), and
 * rebuilt without them when they fill half of it.
 */
#include "analyzer/readers/torch-internal.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- chunked storage --------------------------------------------------------- */

void *tr_chunks_push(struct tr_chunks *c)
{
    if (c->n == c->n_chunks * TR_CHUNK_LEN) {
        if (c->n_chunks == c->chunks_cap &&
            tr_reserve((void **)&c->chunk, &c->chunks_cap, c->n_chunks, sizeof *c->chunk))
            return NULL;
        if (!(c->chunk[c->n_chunks] = rl_malloc(TR_CHUNK_LEN * c->size)))
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
        int64_t *key = rl_malloc(slots * sizeof *key);
        uint32_t *val = rl_calloc(slots, sizeof *val);
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
        /* most ids asked for are recent ones (a kernel's runtime call, its
         * operator): the last keys first; else where the keys (rising, and
         * dense in a trace) put id, when they bracket it there */
        if (hi > 64 && pair_key(m, hi - 64) <= id) {
            lo = hi - 64;
        } else if (hi > 64 && id > pair_key(m, 0)) {
            uint64_t first = (uint64_t)pair_key(m, 0);
            double at = (double)((uint64_t)id - first) / (double)((uint64_t)m->last - first);
            size_t guess = (size_t)(at * (double)(hi - 1));
            size_t a = guess > 32 ? guess - 32 : 0, b = guess + 32 < hi ? guess + 32 : hi - 1;
            if (pair_key(m, a) <= id && id <= pair_key(m, b))
                lo = a, hi = b + 1;
        }
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
int tr_busy_add(struct tr_state *s, int device, double ts, double end)
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

void tr_gpu_time(struct tr_state *s, double scale)
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

/* ---- activities waiting for their runtime call ------------------------------ */

static int wait_grow(struct tr_wait *w)
{
    size_t slots = w->slots ? (w->used * 4 > w->slots ? 2 * w->slots : w->slots) : 64;
    struct tr_gpu *v = rl_malloc(slots * sizeof *v);
    if (!v)
        return RL_ENOMEM;
    for (size_t i = 0; i < slots; i++)
        v[i].corr = TR_WAIT_EMPTY;
    for (size_t i = 0; i < w->slots; i++) {
        if (w->v[i].corr == TR_WAIT_EMPTY || w->v[i].corr == TR_WAIT_GONE)
            continue;
        size_t j = mix64((uint64_t)w->v[i].corr) & (slots - 1);
        while (v[j].corr != TR_WAIT_EMPTY)
            j = (j + 1) & (slots - 1);
        v[j] = w->v[i];
    }
    free(w->v);
    w->v = v;
    w->slots = slots;
    w->gone = 0;
    return RL_OK;
}

int tr_wait_put(struct tr_wait *w, const struct tr_gpu *k)
{
    if (2 * (w->used + w->gone + 1) > w->slots && wait_grow(w))
        return RL_ENOMEM;
    size_t j = mix64((uint64_t)k->corr) & (w->slots - 1);
    while (w->v[j].corr != TR_WAIT_EMPTY)
        j = (j + 1) & (w->slots - 1);
    w->v[j] = *k;
    w->used++;
    return RL_OK;
}

static int cmp_seq(const void *pa, const void *pb)
{
    const struct tr_gpu *a = pa, *b = pb;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int tr_wait_take(struct tr_wait *w, int64_t corr, bool all, struct tr_gpu **buf, size_t *cap,
                 size_t *n_out)
{
    size_t n = 0;
    *n_out = 0;
    if (!w->used)
        return RL_OK;
    size_t j = all ? 0 : mix64((uint64_t)corr) & (w->slots - 1);
    for (size_t seen = 0; seen < w->slots; seen++, j = (j + 1) & (w->slots - 1)) {
        int64_t c = w->v[j].corr;
        if (c == TR_WAIT_EMPTY && !all)
            break; /* the end of corr's run */
        if (c == TR_WAIT_EMPTY || c == TR_WAIT_GONE || (!all && c != corr))
            continue;
        if (tr_reserve((void **)buf, cap, n, sizeof **buf))
            return RL_ENOMEM;
        (*buf)[n++] = w->v[j];
        w->v[j].corr = TR_WAIT_GONE;
        w->used--;
        w->gone++;
    }
    if (n > 1)
        qsort(*buf, n, sizeof **buf, cmp_seq);
    *n_out = n;
    return RL_OK;
}
