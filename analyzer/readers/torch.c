/* torch.c - reads PyTorch profiler traces (Kineto's Chrome-trace JSON) in one streaming pass, plain or gzip, into kernel groups linked to their operators.
 *
 * The trace is an object with "traceEvents" (an array of events: CPU
 * operators, runtime calls, GPU kernels, copies, annotations, flows),
 * "deviceProperties" and "distributedInfo" (or a bare array of events).
 * The text is never held: each event is tokenized (util/jsonstream) and
 * reduced to a few dozen bytes - an operator to its span, External id,
 * thread and an interned signature (name, shapes, types, concrete inputs,
 * costed once by torchops); a runtime call to its correlation, External id,
 * thread and start; a GPU activity to its correlation, External id, span,
 * device and interned name. A GPU activity whose operator call is already
 * known (its id checked against its runtime call) goes into its kernel
 * group at once (torch-link.c), or, when that call is costed, is held until
 * the end, when the call's cost is split over its activities; those that
 * cannot be linked yet are kept, and linked after the last event.
 */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"
#include "analyzer/profiler/nccl.h"
#include "analyzer/readers/torch-internal.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/readers/gzin.h"
#include "analyzer/util/strbuf.h"
#include "analyzer/util/jsonstream.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* ---- interned strings ------------------------------------------------------ */

/* A hash of n bytes, eight at a time (a kernel's name runs to hundreds);
 * only the tables use it: ids are given in order, whatever it is. */
static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)p[i] << (8 * i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return h ? h : 1;
}

static int intern_grow(struct tr_intern *t)
{
    size_t slots = t->slots ? 2 * t->slots : 1024;
    uint32_t *s = rl_calloc(slots, sizeof *s);
    if (!s)
        return RL_ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->hash[i] & (slots - 1);
        while (s[j])
            j = (j + 1) & (slots - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = s;
    t->slots = slots;
    return RL_OK;
}

/* The id of text (n bytes), added when new (*added set); -1: no memory. */
long tr_intern(struct tr_intern *t, const char *text, size_t n, bool *added)
{
    if (added)
        *added = false;
    if (2 * (t->n + 1) > t->slots && intern_grow(t))
        return -1;
    uint64_t h = hash_bytes(text, n);
    size_t j = h & (t->slots - 1);
    while (t->slot[j]) {
        size_t i = t->slot[j] - 1;
        if (t->hash[i] == h && t->len[i] == n && memcmp(t->arena + t->off[i], text, n) == 0)
            return (long)i;
        j = (j + 1) & (t->slots - 1);
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        uint64_t *hh = rl_realloc(t->hash, cap * sizeof *hh);
        if (!hh)
            return -1;
        t->hash = hh;
        size_t *o = rl_realloc(t->off, cap * sizeof *o);
        if (!o)
            return -1;
        t->off = o;
        size_t *l = rl_realloc(t->len, cap * sizeof *l);
        if (!l)
            return -1;
        t->len = l;
        t->cap = cap;
    }
    if (t->arena_len + n + 1 > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 4096;
        while (cap < t->arena_len + n + 1)
            cap *= 2;
        char *a = rl_realloc(t->arena, cap);
        if (!a)
            return -1;
        t->arena = a;
        t->arena_cap = cap;
    }
    memcpy(t->arena + t->arena_len, text, n);
    t->arena[t->arena_len + n] = 0;
    t->hash[t->n] = h;
    t->off[t->n] = t->arena_len;
    t->len[t->n] = n;
    t->arena_len += n + 1;
    t->slot[j] = (uint32_t)t->n + 1;
    if (added)
        *added = true;
    return (long)t->n++;
}

void tr_intern_release(struct tr_intern *t)
{
    free(t->slot);
    free(t->hash);
    free(t->off);
    free(t->len);
    free(t->arena);
    memset(t, 0, sizeof *t);
}

/* Grow a vector of elements of `size` bytes to hold one more. */
int tr_reserve(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return RL_OK;
    size_t c = *cap ? 2 * *cap : 1024;
    void *p = rl_realloc(*v, c * size);
    if (!p)
        return RL_ENOMEM;
    *v = p;
    *cap = c;
    return RL_OK;
}

/* ---- one event ------------------------------------------------------------ */

#define MAX_ARGS 64

enum ev_kind { EV_SKIP, EV_OP, EV_RUNTIME, EV_KERNEL, EV_MEMCPY, EV_MEMSET, EV_STEP, EV_SERVE };

/* The fields of the event being read; reused event to event. */
struct ev {
    char ph[4], cat[32];
    struct rl_strbuf name;
    char pid[48], tid[48];
    double ts, dur;               /* ts: the part after ts_whole */
    long long ts_whole;
    int64_t corr, ext;            /* -1: none */
    uint32_t grid[3], block[3];
    int device;                   /* -1 */
    double bytes, flops;          /* NAN */
    char memcpy_kind[48];
    /* shapes: Input Dims (as tensors per argument), Input type, Concrete Inputs */
    bool have_dims, have_types;
    size_t n_dims, n_types, n_concrete;
    int dims_kind[MAX_ARGS];      /* 0 empty, 1 tensor, 2 list */
    size_t dims_first[MAX_ARGS], dims_count[MAX_ARGS];
    struct rl_torch_tensor *tensors;
    size_t n_tensors, tensors_cap;
    char types[MAX_ARGS][40];
    struct rl_strbuf concrete;    /* entries NUL-separated */
    size_t concrete_at[MAX_ARGS];
    bool too_many;                /* more arguments than MAX_ARGS */
    struct rl_strbuf sig;         /* the signature text, as read */
    /* record_param_comms */
    char coll[32], comm_dtype[24];
    double in_nelems, out_nelems;
    int group_size;
    int stream;                   /* args.stream; -1 */
    char pg[24];                  /* record_param_comms' Process Group Name; "" */
    long long seq;                /* its Seq; -1 */
};

static void ev_reset(struct ev *e)
{
    e->ph[0] = e->cat[0] = e->pid[0] = e->tid[0] = e->memcpy_kind[0] = 0;
    e->name.len = 0;
    if (e->name.s)
        e->name.s[0] = 0;
    e->ts = e->dur = NAN;
    e->ts_whole = 0;
    e->corr = e->ext = -1;
    memset(e->grid, 0, sizeof e->grid);
    memset(e->block, 0, sizeof e->block);
    e->device = -1;
    e->bytes = e->flops = NAN;
    e->have_dims = e->have_types = e->too_many = false;
    e->n_dims = e->n_types = e->n_concrete = e->n_tensors = 0;
    e->concrete.len = e->sig.len = 0;
    e->coll[0] = e->comm_dtype[0] = 0;
    e->in_nelems = e->out_nelems = NAN;
    e->group_size = 0;
    e->stream = -1;
    e->pg[0] = 0;
    e->seq = -1;
}

static int text_into(struct rl_jsr *r, enum rl_jsr_tok t, char *buf, size_t size)
{
    if (t == RL_TOK_STRING) { /* as snprintf "%s" would, without printf: to
                                 * the first NUL ("\u0000" makes one), cut */
        size_t len = 0;
        while (len + 1 < size && r->str[len])
            len++;
        memcpy(buf, r->str, len);
        buf[len] = 0;
        return 0;
    }
    if (t == RL_TOK_NUMBER) {
        char num[32];
        size_t len = rl_jsr_num_g17(r, num, sizeof num); /* "%.17g"; cut to size, as snprintf would */
        len = len < size ? len : size - 1;
        memcpy(buf, num, len);
        buf[len] = 0;
        return 0;
    }
    buf[0] = 0;
    return rl_jsr_skip_value(r, t);
}

static int number_into(struct rl_jsr *r, enum rl_jsr_tok t, double *out)
{
    if (t == RL_TOK_NUMBER) {
        *out = r->num;
        return 0;
    }
    if (t == RL_TOK_STRING) { /* some writers quote numbers */
        char *end;
        double v = strtod(r->str, &end);
        if (end != r->str && !*end)
            *out = v;
        return 0;
    }
    return rl_jsr_skip_value(r, t);
}

/* A timestamp: epoch microseconds (~1.7e15) hold their nanoseconds only
 * when the integer part is taken apart from the fraction and counted from
 * the trace's first one (a double alone keeps a quarter microsecond). */
static int ts_into(struct rl_jsr *r, enum rl_jsr_tok t, struct ev *e)
{
    if (t != RL_TOK_NUMBER)
        return number_into(r, t, &e->ts);
    const char *end;
    long long whole = rl_jsr_parse_whole(r->num_text, &end);
    double frac = *end == '.' ? rl_jsr_parse_frac(end) : 0;
    if (strpbrk(end, "eE") || (*end && *end != '.')) { /* an exponent ("1.1e2" too): as a double */
        e->ts = r->num;
        e->ts_whole = 0;
        return 0;
    }
    e->ts_whole = whole;
    e->ts = frac;
    return 0;
}

static int id_into(struct rl_jsr *r, enum rl_jsr_tok t, int64_t *out)
{
    double v = NAN;
    if (number_into(r, t, &v))
        return r->err;
    if (v >= 0 && v < 9.2e18)
        *out = (int64_t)v;
    return 0;
}

static int dim3_into(struct rl_jsr *r, enum rl_jsr_tok t, uint32_t out[3])
{
    if (t != RL_TOK_LBRACKET)
        return rl_jsr_skip_value(r, t);
    for (int i = 0;; i++) {
        t = rl_jsr_next(r);
        if (t == RL_TOK_RBRACKET)
            return 0;
        if (t == RL_TOK_COMMA)
            t = rl_jsr_next(r);
        if (t == RL_TOK_NUMBER) {
            if (i < 3 && r->num >= 0 && r->num < 4294967296.0)
                out[i] = (uint32_t)r->num;
        } else if (rl_jsr_skip_value(r, t)) {
            return r->err;
        }
        if (r->err)
            return r->err;
    }
}

static int push_tensor(struct ev *e, struct rl_torch_tensor **cur)
{
    if (tr_reserve((void **)&e->tensors, &e->tensors_cap, e->n_tensors, sizeof *e->tensors))
        return RL_ENOMEM;
    *cur = &e->tensors[e->n_tensors++];
    (*cur)->ndim = 0;
    return RL_OK;
}

/* One tensor's dims: the numbers of an array whose '[' was read. Dims past
 * RL_TORCH_MAX_DIMS make it unreadable (ndim -1). */
static int read_tensor_dims(struct rl_jsr *r, struct ev *e, enum rl_jsr_tok t)
{
    struct rl_torch_tensor *x;
    if (push_tensor(e, &x))
        return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
    for (bool first = true;; first = false) {
        if (t == RL_TOK_RBRACKET)
            break;
        if (!first) {
            if (t != RL_TOK_COMMA)
                return rl_jsr_fail(r, RL_EPARSE, "expected ',' or ']' in Input Dims");
            t = rl_jsr_next(r);
        }
        if (t == RL_TOK_NUMBER) {
            char num[32];
            size_t len = rl_jsr_num_g17(r, num, sizeof num); /* "%.17g" */
            num[len++] = ',';
            rl_strbuf_append(&e->sig, num, len);
            if (x->ndim >= 0 && x->ndim < RL_TORCH_MAX_DIMS && r->num >= 0 && r->num < 9.2e18)
                x->dims[x->ndim++] = (int64_t)r->num;
            else
                x->ndim = -1;
        } else if (rl_jsr_skip_value(r, t)) {
            return r->err;
        } else {
            /* not a number: the tensor is unreadable, and its signature
             * says so ([4, null, 3] is not [4, 3]) */
            rl_strbuf_append(&e->sig, "?,", 2);
            x->ndim = -1;
        }
        t = rl_jsr_next(r);
        if (r->err)
            return r->err;
    }
    return 0;
}

/* "Input Dims": [[d, ...] | [] | [[d, ...], ...], ...] */
static int read_dims(struct rl_jsr *r, struct ev *e, enum rl_jsr_tok t)
{
    if (t != RL_TOK_LBRACKET)
        return rl_jsr_skip_value(r, t);
    e->have_dims = true;
    rl_strbuf_append(&e->sig, "\x1f", 1);
    for (bool first = true;; first = false) {
        t = rl_jsr_next(r);
        if (t == RL_TOK_RBRACKET)
            return 0;
        if (!first) {
            if (t != RL_TOK_COMMA)
                return r->err ? r->err : rl_jsr_fail(r, RL_EPARSE, "expected ',' or ']' in Input Dims");
            t = rl_jsr_next(r);
        }
        size_t a = e->n_dims++;
        bool keep = a < MAX_ARGS;
        if (!keep)
            e->too_many = true;
        rl_strbuf_append(&e->sig, "[", 1);
        if (t != RL_TOK_LBRACKET) { /* a scalar where a list belongs: not a shape */
            if (rl_jsr_skip_value(r, t))
                return r->err;
            if (keep)
                e->dims_kind[a] = 0, e->dims_first[a] = e->n_tensors, e->dims_count[a] = 0;
            continue;
        }
        size_t first_tensor = e->n_tensors;
        t = rl_jsr_next(r);
        if (t == RL_TOK_LBRACKET) { /* a list of tensors */
            for (bool f2 = true;; f2 = false) {
                if (t == RL_TOK_RBRACKET)
                    break;
                if (!f2) {
                    if (t != RL_TOK_COMMA)
                        return r->err ? r->err
                                      : rl_jsr_fail(r, RL_EPARSE, "expected ',' or ']' in Input Dims");
                    t = rl_jsr_next(r);
                }
                if (t != RL_TOK_LBRACKET) {
                    if (rl_jsr_skip_value(r, t))
                        return r->err;
                } else {
                    rl_strbuf_append(&e->sig, "[", 1);
                    if (read_tensor_dims(r, e, rl_jsr_next(r)))
                        return r->err;
                    rl_strbuf_append(&e->sig, "]", 1);
                }
                t = rl_jsr_next(r);
                if (r->err)
                    return r->err;
            }
            if (keep)
                e->dims_kind[a] = 2;
        } else if (t == RL_TOK_RBRACKET) {
            if (keep)
                e->dims_kind[a] = 0;
        } else {
            if (read_tensor_dims(r, e, t))
                return r->err;
            if (keep)
                e->dims_kind[a] = 1;
        }
        rl_strbuf_append(&e->sig, "]", 1);
        if (keep)
            e->dims_first[a] = first_tensor, e->dims_count[a] = e->n_tensors - first_tensor;
        if (r->err)
            return r->err;
    }
}

/* An array of strings ("Input type", "Concrete Inputs"), each passed to put. */
static int read_strings(struct rl_jsr *r, struct ev *e, enum rl_jsr_tok t, bool types)
{
    if (t != RL_TOK_LBRACKET)
        return rl_jsr_skip_value(r, t);
    if (types)
        e->have_types = true;
    rl_strbuf_append(&e->sig, "\x1f", 1);
    for (bool first = true;; first = false) {
        t = rl_jsr_next(r);
        if (t == RL_TOK_RBRACKET)
            return 0;
        if (!first) {
            if (t != RL_TOK_COMMA)
                return r->err ? r->err : rl_jsr_fail(r, RL_EPARSE, "expected ',' or ']'");
            t = rl_jsr_next(r);
        }
        char text[256];
        if (t == RL_TOK_STRING || t == RL_TOK_NUMBER) {
            if (text_into(r, t, text, sizeof text))
                return r->err;
        } else {
            /* a nested list (Concrete Inputs of a list): kept as its shape only */
            text[0] = 0;
            if (rl_jsr_skip_value(r, t))
                return r->err;
        }
        size_t tl = strlen(text);
        text[tl] = '\x1e'; /* the separator after it, in one append */
        rl_strbuf_append(&e->sig, text, tl + 1);
        text[tl] = 0;
        size_t *n = types ? &e->n_types : &e->n_concrete;
        if (*n < MAX_ARGS) {
            if (types) { /* as snprintf "%s" would, cut to the field */
                size_t k = tl < sizeof e->types[*n] - 1 ? tl : sizeof e->types[*n] - 1;
                memcpy(e->types[*n], text, k);
                e->types[*n][k] = 0;
            } else {
                e->concrete_at[*n] = e->concrete.len;
                rl_strbuf_append(&e->concrete, text, tl + 1);
            }
        }
        (*n)++;
    }
}

/* Could key be one args_field reads: do its first two letters (any case)
 * start one of them? */
static bool wanted_key(const char *key)
{
    static const char two[][3] = {"ex", "co", "in", "gr", "bl", "de", "by", "st", "fl",
                                  "ki", "dt", "ou", "pr", "pg", "se"};
    if (!key[0] || !key[1])
        return false;
    char a = (char)tolower((unsigned char)key[0]), b = (char)tolower((unsigned char)key[1]);
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
        if (two[i][0] == a && two[i][1] == b)
            return true;
    return false;
}

/* key (a field's key: a 64-byte buffer, rl_jsr_read_object; or a buffer
 * of struct ev at least as long as lit) is lit: its bytes and NUL compared
 * at once, inline (lit a string literal). */
#define KEY_IS(key, lit) (memcmp((key), "" lit, sizeof lit) == 0)

static int args_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct ev *e = ctx;
    /* most keys (queued, context, shared memory, Ev Idx ...) are none of
     * these: their first two letters skip them at one look */
    if (!wanted_key(key))
        return rl_jsr_skip_fast(r);
    /* by the first letter: one or two comparisons, not the whole list */
    switch (tolower((unsigned char)key[0])) {
    case 'e':
        if (strcasecmp(key, "External id") == 0)
            return id_into(r, rl_jsr_next(r), &e->ext);
        break;
    case 'c':
        if (KEY_IS(key, "correlation"))
            return id_into(r, rl_jsr_next(r), &e->corr);
        if (KEY_IS(key, "Concrete Inputs"))
            return read_strings(r, e, rl_jsr_next(r), false);
        if (KEY_IS(key, "Collective name"))
            return text_into(r, rl_jsr_next(r), e->coll, sizeof e->coll);
        break;
    case 'i':
        if (strcasecmp(key, "Input Dims") == 0)
            return read_dims(r, e, rl_jsr_next(r));
        if (strcasecmp(key, "Input type") == 0)
            return read_strings(r, e, rl_jsr_next(r), true);
        if (KEY_IS(key, "In msg nelems") || KEY_IS(key, "In msg size"))
            return number_into(r, rl_jsr_next(r), &e->in_nelems);
        break;
    case 'g':
        if (KEY_IS(key, "grid"))
            return dim3_into(r, rl_jsr_next(r), e->grid);
        if (KEY_IS(key, "Group size")) {
            double v = NAN;
            if (number_into(r, rl_jsr_next(r), &v))
                return r->err;
            if (v >= 1 && v < 1e7)
                e->group_size = (int)v;
            return 0;
        }
        break;
    case 'b':
        if (KEY_IS(key, "block"))
            return dim3_into(r, rl_jsr_next(r), e->block);
        if (KEY_IS(key, "bytes"))
            return number_into(r, rl_jsr_next(r), &e->bytes);
        break;
    case 'd':
        if (KEY_IS(key, "device")) {
            double v = NAN;
            if (number_into(r, rl_jsr_next(r), &v))
                return r->err;
            if (v >= 0 && v < 1e6)
                e->device = (int)v;
            return 0;
        }
        if (KEY_IS(key, "dtype"))
            return text_into(r, rl_jsr_next(r), e->comm_dtype, sizeof e->comm_dtype);
        break;
    case 's':
        if (KEY_IS(key, "stream")) {
            double v = NAN;
            if (number_into(r, rl_jsr_next(r), &v))
                return r->err;
            if (v >= 0 && v < 2e9)
                e->stream = (int)v;
            return 0;
        }
        if (KEY_IS(key, "Seq") || KEY_IS(key, "seq")) {
            int64_t v = -1;
            if (id_into(r, rl_jsr_next(r), &v))
                return r->err;
            e->seq = v < UINT32_MAX ? v : -1;
            return 0;
        }
        break;
    case 'f':
        if (KEY_IS(key, "flops"))
            return number_into(r, rl_jsr_next(r), &e->flops);
        break;
    case 'k':
        if (KEY_IS(key, "kind"))
            return text_into(r, rl_jsr_next(r), e->memcpy_kind, sizeof e->memcpy_kind);
        break;
    case 'o':
        if (KEY_IS(key, "Out msg nelems") || KEY_IS(key, "Out msg size"))
            return number_into(r, rl_jsr_next(r), &e->out_nelems);
        break;
    case 'p':
        if (KEY_IS(key, "Process Group Name") || KEY_IS(key, "pg_name"))
            return text_into(r, rl_jsr_next(r), e->pg, sizeof e->pg);
        break;
    default: break;
    }
    return rl_jsr_skip_fast(r);
}

static int event_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct ev *e = ctx;
    enum rl_jsr_tok t;
    switch (key[0]) {
    case 'p':
        if (KEY_IS(key, "ph"))
            return text_into(r, rl_jsr_next(r), e->ph, sizeof e->ph);
        if (KEY_IS(key, "pid"))
            return text_into(r, rl_jsr_next(r), e->pid, sizeof e->pid);
        break;
    case 't':
        if (KEY_IS(key, "tid"))
            return text_into(r, rl_jsr_next(r), e->tid, sizeof e->tid);
        if (KEY_IS(key, "ts"))
            return ts_into(r, rl_jsr_next(r), e);
        break;
    case 'c':
        if (KEY_IS(key, "cat"))
            return text_into(r, rl_jsr_next(r), e->cat, sizeof e->cat);
        break;
    case 'n':
        if (KEY_IS(key, "name")) {
            t = rl_jsr_next(r);
            if (t != RL_TOK_STRING)
                return rl_jsr_skip_value(r, t);
            e->name.len = 0;
            rl_strbuf_append(&e->name, r->str, r->str_len);
            if (e->name.oom)
                return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
            return 0;
        }
        break;
    case 'd':
        if (KEY_IS(key, "dur"))
            return number_into(r, rl_jsr_next(r), &e->dur);
        break;
    case 'a':
        if (KEY_IS(key, "args")) {
            t = rl_jsr_next(r);
            if (t != RL_TOK_LBRACE)
                return rl_jsr_skip_value(r, t);
            return rl_jsr_read_object(r, e, args_field);
        }
        break;
    default: break;
    }
    return rl_jsr_skip_fast(r);
}

static enum ev_kind classify(const struct ev *e)
{
    if (e->ph[0] && !KEY_IS(e->ph, "X"))
        return EV_SKIP;
    const char *c = e->cat;
    /* Kineto's own three first, inline (cat is a 32-byte buffer): each is
     * what the tests below make of it */
    if (KEY_IS(c, "cuda_runtime"))
        return EV_RUNTIME;
    if (KEY_IS(c, "cpu_op"))
        return EV_OP;
    if (KEY_IS(c, "kernel"))
        return EV_KERNEL;
    if (strcasecmp(c, "kernel") == 0)
        return EV_KERNEL;
    if (strcmp(c, "gpu_memcpy") == 0 || strcmp(c, "Memcpy") == 0)
        return EV_MEMCPY;
    if (strcmp(c, "gpu_memset") == 0 || strcmp(c, "Memset") == 0)
        return EV_MEMSET;
    if (strcmp(c, "cpu_op") == 0 || strcasecmp(c, "Operator") == 0)
        return EV_OP;
    if (strcmp(c, "cuda_runtime") == 0 || strcasestr(c, "runtime") || strcasestr(c, "driver"))
        return EV_RUNTIME;
    if (strcmp(c, "user_annotation") == 0 && e->name.s &&
        strncmp(e->name.s, "ProfilerStep#", 13) == 0)
        return EV_STEP;
    if (strcmp(c, "user_annotation") == 0 && e->name.s &&
        (strncmp(e->name.s, "execute_", 8) == 0 || strncmp(e->name.s, "step[", 5) == 0))
        return EV_SERVE; /* a serving step's tokens (torch-graph.c) */
    return EV_SKIP;
}

/* ---- the arguments of an operator, for the cost table ---------------------- */

/* The Input types of scalar arguments that are also dtype names: with []
 * dims these are Python numbers, not 0-d tensors. (The other scalar types,
 * Scalar, ScalarList, GenericList, String, Device, Layout, ScalarType, name
 * no dtype, so they are never taken for a tensor.) */
static bool scalar_type(const char *t)
{
    return strcmp(t, "int") == 0 || strcmp(t, "bool") == 0 || strcmp(t, "float") == 0 ||
           strcmp(t, "double") == 0;
}

/* The shapes as people read them: "2048x4096, 4096x14336"; lists as
 * "[12 tensors]"; scalars left out. */
static void shapes_text(const struct rl_torch_arg *args, size_t n, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && at + 1 < size; i++) {
        const struct rl_torch_arg *a = &args[i];
        char one[128] = "";
        if (a->kind == RL_TORCH_ARG_TENSOR && a->n_tensors == 1) {
            const struct rl_torch_tensor *x = a->t;
            size_t k = 0;
            if (x->ndim == 0)
                k = (size_t)snprintf(one, sizeof one, "scalar");
            for (int d = 0; d < x->ndim && k + 1 < sizeof one; d++)
                k += (size_t)snprintf(one + k, sizeof one - k, "%s%lld", d ? "x" : "",
                                      (long long)x->dims[d]);
        } else if (a->kind == RL_TORCH_ARG_LIST) {
            snprintf(one, sizeof one, "[%zu tensors]", a->n_tensors);
        } else {
            continue;
        }
        int w = snprintf(buf + at, size - at, "%s%s", at ? ", " : "", one);
        if (w < 0 || (size_t)w >= size - at) {
            buf[at] = 0;
            if (at + (at ? 6 : 4) <= size) /* the mark and its NUL */
                memcpy(buf + at, at ? ", ..." : "...", at ? 6 : 4);
            return;
        }
        at += (size_t)w;
    }
}

/* Build the arguments of the event's operator (pointers into e). */
static size_t build_args(const struct ev *e, struct rl_torch_arg *args)
{
    size_t n = e->n_dims > e->n_types ? e->n_dims : e->n_types;
    if (n > MAX_ARGS)
        n = MAX_ARGS;
    for (size_t i = 0; i < n; i++) {
        struct rl_torch_arg *a = &args[i];
        memset(a, 0, sizeof *a);
        const char *type = i < e->n_types ? e->types[i] : "";
        snprintf(a->type, sizeof a->type, "%s", type);
        a->concrete = i < e->n_concrete && i < MAX_ARGS ? e->concrete.s + e->concrete_at[i] : "";
        int dk = i < e->n_dims ? e->dims_kind[i] : 0;
        size_t cnt = i < e->n_dims ? e->dims_count[i] : 0;
        a->t = cnt ? &e->tensors[e->dims_first[i]] : NULL;
        if (dk == 2 || strcmp(type, "TensorList") == 0 ||
            strcmp(type, "c10::List<std::optional<at::Tensor>>") == 0) {
            a->kind = RL_TORCH_ARG_LIST;
            a->n_tensors = cnt;
        } else if (dk == 1) { /* dims: a tensor, whatever its type says */
            a->kind = RL_TORCH_ARG_TENSOR;
            a->n_tensors = 1;
        } else if (dk == 0 && !scalar_type(type) && rl_torch_dtype_bytes(type) > 0) {
            /* a 0-d tensor: [] dims and a dtype */
            static const struct rl_torch_tensor zero_d = {0, {0}};
            a->kind = RL_TORCH_ARG_TENSOR;
            a->n_tensors = 1;
            a->t = &zero_d;
        } else if (type[0] == 0 || strcmp(type, "None") == 0) {
            a->kind = RL_TORCH_ARG_NONE;
        } else {
            a->kind = RL_TORCH_ARG_SCALAR;
        }
    }
    return n;
}

static double dtype_bytes_comm(const char *d)
{
    /* record_param_comms' dtype is a ScalarType name: Float, BFloat16, Half ... */
    static const struct {
        const char *name;
        double bytes;
    } t[] = {{"Float", 4},  {"BFloat16", 2}, {"Half", 2},  {"Double", 8}, {"Long", 8},
             {"Int", 4},    {"Byte", 1},     {"Char", 1},  {"Bool", 1},   {"Short", 2},
             {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(d, t[i].name) == 0)
            return t[i].bytes;
    int b = rl_torch_dtype_bytes(d);
    return b > 0 ? b : NAN;
}

/* The signature of the operator event e: interned, and costed when new. */
static long op_signature(struct tr_state *s, struct ev *e)
{
    /* name \x1f dims \x1f types \x1f concrete [\x1f comms], in a buffer
     * reused op to op */
    struct rl_strbuf *key = &s->sig_key;
    key->len = 0;
    key->oom = false;
    rl_strbuf_append(key, e->name.s ? e->name.s : "", e->name.len);
    rl_strbuf_append(key, e->sig.s ? e->sig.s : "", e->sig.len);
    if (e->coll[0])
        rl_strbuf_printf(key, "\x1f%s|%s|%.17g|%.17g|%d|%s", e->coll, e->comm_dtype,
                         e->in_nelems, e->out_nelems, e->group_size, e->pg);
    if (key->oom)
        return -1;
    bool added;
    long id = tr_intern(&s->sigs, key->s ? key->s : "", key->len, &added);
    if (id < 0 || !added)
        return id;
    if (tr_reserve((void **)&s->sig, &s->sig_cap, (size_t)id, sizeof *s->sig))
        return -1;
    struct tr_sig *g = &s->sig[id];
    memset(g, 0, sizeof *g);
    bool known_name;
    long nid = tr_intern(&s->opnames, e->name.s ? e->name.s : "", e->name.len, &known_name);
    if (nid < 0)
        return -1;
    g->name = (uint32_t)nid;
    struct rl_torch_arg args[MAX_ARGS];
    size_t n = build_args(e, args);
    char shapes[200];
    shapes_text(args, n, shapes, sizeof shapes);
    long shid = tr_intern(&s->strings, shapes, strlen(shapes), NULL);
    if (shid < 0)
        return -1;
    g->shapes = (uint32_t)shid;
    g->has_shapes = e->have_dims;
    struct rl_torch_op op = {.name = e->name.s ? e->name.s : "", .n_args = n, .args = args,
                             .profiler_flops = e->flops, .world_size = s->st->world_size};
    if (!e->too_many)
        rl_torch_op_cost(&op, &g->cost);
    else
        memset(&g->cost, 0, sizeof g->cost), g->cost.flops = g->cost.bytes = NAN;
    if (!g->cost.known)
        g->cost.flops = g->cost.bytes = NAN;
    else
        rl_torch_op_parts(&op, &g->cost, &g->parts);
    if (e->coll[0]) {
        snprintf(g->collective, sizeof g->collective, "%s", e->coll);
        double nel = e->in_nelems, eb = dtype_bytes_comm(e->comm_dtype);
        /* nccl-tests' message: all-gather's whole output, reduce-scatter's
         * whole input, the buffer of the others (COMM.md). */
        if (strcasestr(e->coll, "gather") && e->out_nelems > nel)
            nel = e->out_nelems;
        g->comm_bytes = nel >= 0 ? nel * eb : NAN;
        g->group_size = e->group_size;
        snprintf(g->pg, sizeof g->pg, "%s", e->pg);
    } else if (!rl_torch_comm_message(&op, g->collective, sizeof g->collective,
                                      &g->comm_bytes)) {
        g->comm_bytes = NAN; /* not a collective outside record_param_comms */
    }
    return id;
}

/* ---- events into the state ------------------------------------------------ */

static uint32_t thread_of(struct tr_state *s, const struct ev *e, int *err)
{
    /* the last one asked again (a thread's events come in runs) */
    if (s->thread_last_ok && strcmp(e->pid, s->thread_last_pid) == 0 &&
        strcmp(e->tid, s->thread_last_tid) == 0)
        return s->thread_last;
    char key[100]; /* "pid/tid" (each under 48 bytes: no cut) */
    size_t p = strlen(e->pid), t = strlen(e->tid);
    memcpy(key, e->pid, p);
    key[p] = '/';
    memcpy(key + p + 1, e->tid, t + 1);
    long id = tr_intern(&s->threads, key, p + 1 + t, NULL);
    if (id < 0) {
        *err = RL_ENOMEM;
        return 0;
    }
    memcpy(s->thread_last_pid, e->pid, p + 1);
    memcpy(s->thread_last_tid, e->tid, t + 1);
    s->thread_last = (uint32_t)id;
    s->thread_last_ok = true;
    return (uint32_t)id;
}

static int take_event(struct rl_jsr *r, struct tr_state *s, struct ev *e)
{
    s->st->events++;
    enum ev_kind k = classify(e);
    if (k == EV_SKIP)
        return 0;
    if (k == EV_STEP) {
        s->st->profiler_steps++;
        if (s->tl && isfinite(e->ts) &&
            rl_timeline_add_step(s->tl, e->name.s, e->ts_whole, e->ts, e->dur))
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        return 0;
    }
    long long tl_whole = e->ts_whole; /* the timeline's time, before the rebase below */
    double tl_frac = e->ts;
    if (!isfinite(e->ts))
        return 0; /* a span without a start: nothing to place */
    if (!s->have_base) {
        s->ts_base = e->ts_whole;
        s->have_base = true;
    }
    e->ts += (double)(e->ts_whole - s->ts_base);
    double dur = isfinite(e->dur) && e->dur >= 0 ? e->dur : 0;
    int err = 0;
    if (k == EV_SERVE)
        return tr_graph_step(s, e->name.s, e->ts, e->ts + dur)
                   ? rl_jsr_fail(r, RL_ENOMEM, "out of memory")
                   : 0;
    if (k == EV_OP) {
        s->st->cpu_ops++;
        if (e->have_dims)
            s->st->shapes = true;
        long sig = op_signature(s, e);
        uint32_t th = thread_of(s, e, &err);
        struct tr_op *o = sig < 0 || err || s->ops.n >= UINT32_MAX - 1
                              ? NULL
                              : tr_chunks_push(&s->ops);
        if (!o)
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        *o = (struct tr_op){.ts = e->ts, .end = e->ts + dur, .ext = e->ext, .thread = th,
                            .sig = (uint32_t)sig};
        if (e->ext >= 0 && tr_ids_put(&s->op_ext, e->ext, (uint32_t)(s->ops.n - 1)))
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        /* a collective's sequence number, for the timeline (kept by op) */
        if (s->tl && e->coll[0] && e->seq >= 0 &&
            tr_ids_put(&s->comm_seq, (int64_t)(s->ops.n - 1), (uint32_t)e->seq))
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        return 0;
    }
    if (k == EV_RUNTIME) {
        s->st->runtime_calls++;
        if (e->corr < 0)
            return 0;
        uint32_t th = thread_of(s, e, &err);
        struct tr_rt *rt = err || s->rts.n >= UINT32_MAX - 1 ? NULL : tr_chunks_push(&s->rts);
        if (!rt)
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        *rt = (struct tr_rt){.ext = e->ext, .ts = e->ts, .thread = th,
                             .graph = tr_graph_launch_name(e->name.s ? e->name.s : "")};
        if (tr_ids_put(&s->rt_corr, e->corr, (uint32_t)(s->rts.n - 1)) ||
            tr_take_runtime(s, e->corr))
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        return 0;
    }
    /* a GPU activity */
    if (k == EV_KERNEL)
        s->st->kernels++;
    else if (k == EV_MEMCPY)
        s->st->memcpys++;
    else
        s->st->memsets++;
    char key[4096 + 64];
    const char *name = e->name.s ? e->name.s : "";
    size_t nl = e->name.len < 4096 ? e->name.len : 4096;
    memcpy(key, name, nl);
    memcpy(key + nl, e->grid, sizeof e->grid);
    memcpy(key + nl + sizeof e->grid, e->block, sizeof e->block);
    bool added;
    long ks = tr_intern(&s->knames, key, nl + sizeof e->grid + sizeof e->block, &added);
    if (ks < 0)
        return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
    struct tr_gpu g = {
        .corr = e->corr, .ext = e->ext, .dur = dur, .bytes = e->bytes, .kname = (uint32_t)ks,
        .kind = (uint8_t)(k == EV_KERNEL ? TR_KERNEL : k == EV_MEMCPY ? TR_MEMCPY : TR_MEMSET),
        /* a copy's direction (only copies have one: a kernel's name is not searched) */
        .memcpy_dir = (uint8_t)(k == EV_MEMCPY ? tr_memcpy_dir(e->memcpy_kind[0] ? e->memcpy_kind
                                                                                 : name)
                                               : TR_COPY_OTHER)};
    if (tr_take_gpu(s, &g, e->device >= 0 ? e->device : 0, e->ts))
        return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
    if (s->tl) { /* activity n_gpus - 1 of the timeline: torch-link.c adds its bytes */
        char coll[24] = "";
        enum rl_act_kind ak = k != EV_KERNEL                              ? RL_ACT_COPY
                              : rl_comm_recognize(name, NULL, coll, sizeof coll) ? RL_ACT_COMM
                                                                                 : RL_ACT_COMPUTE;
        if (rl_timeline_add_act(s->tl, tl_whole, tl_frac, dur, e->stream, ak, coll))
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
    }
    return 0;
}

static int read_event(struct rl_jsr *r, struct tr_state *s, struct ev *e, enum rl_jsr_tok t)
{
    if (t != RL_TOK_LBRACE)
        return rl_jsr_skip_value(r, t); /* not an event: ignored */
    ev_reset(e);
    if (rl_jsr_read_object(r, e, event_field))
        return r->err;
    if (e->name.oom || e->sig.oom || e->concrete.oom)
        return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
    return take_event(r, s, e);
}

static int read_events(struct rl_jsr *r, struct tr_state *s, struct ev *e, enum rl_jsr_tok t)
{
    if (t != RL_TOK_LBRACKET)
        return r->err ? r->err : rl_jsr_fail(r, RL_ESCHEMA, "'traceEvents' must be an array");
    s->have_events = true;
    t = rl_jsr_next(r);
    if (t == RL_TOK_RBRACKET)
        return 0;
    for (;;) {
        if (read_event(r, s, e, t))
            return r->err;
        t = rl_jsr_next(r);
        if (t == RL_TOK_RBRACKET)
            return 0;
        if (t != RL_TOK_COMMA)
            return r->err ? r->err
                          : rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF
                                                          ? "truncated: traceEvents never ends"
                                                          : "expected ',' or ']' in traceEvents");
        t = rl_jsr_next(r);
        /* Kineto's writer leaves a trailing comma in some versions: "..., ]" */
        if (t == RL_TOK_RBRACKET)
            return 0;
    }
}

static int device_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct tr_device *d = ctx;
    enum rl_jsr_tok t = rl_jsr_next(r);
    double v = NAN;
    if (strcmp(key, "name") == 0)
        return text_into(r, t, d->name, sizeof d->name);
    if (strcmp(key, "id") == 0 || strcmp(key, "totalGlobalMem") == 0 ||
        strcmp(key, "numSms") == 0 || strcmp(key, "warpSize") == 0 ||
        strcmp(key, "computeMajor") == 0 || strcmp(key, "computeMinor") == 0) {
        if (number_into(r, t, &v))
            return r->err;
        if (!isfinite(v) || v < 0 || v > 1e15)
            return 0;
        if (key[0] != 't' && v > INT_MAX) /* an int field: (int)v would be undefined */
            return 0;
        if (key[0] == 'i')
            d->id = (int)v;
        else if (key[0] == 't')
            d->memory_bytes = v;
        else if (key[0] == 'n')
            d->sm_count = (int)v;
        else if (key[0] == 'w')
            d->warp_size = (int)v;
        else if (key[7] == 'M' && key[8] == 'a')
            d->cc_major = (int)v;
        else
            d->cc_minor = (int)v;
        return 0;
    }
    return rl_jsr_skip_value(r, t);
}

static int read_devices(struct rl_jsr *r, struct tr_state *s, enum rl_jsr_tok t)
{
    if (t != RL_TOK_LBRACKET)
        return rl_jsr_skip_value(r, t);
    for (bool first = true;; first = false) {
        t = rl_jsr_next(r);
        if (t == RL_TOK_RBRACKET)
            return 0;
        if (!first) {
            if (t != RL_TOK_COMMA)
                return r->err ? r->err : rl_jsr_fail(r, RL_EPARSE, "expected ',' or ']'");
            t = rl_jsr_next(r);
        }
        if (t != RL_TOK_LBRACE) {
            if (rl_jsr_skip_value(r, t))
                return r->err;
            continue;
        }
        struct tr_device d = {.id = (int)s->n_devices};
        if (rl_jsr_read_object(r, &d, device_field))
            return r->err;
        if (s->n_devices < TR_MAX_DEVICES)
            s->devices[s->n_devices++] = d;
    }
}

static int dist_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct rl_torch_stats *st = ctx;
    enum rl_jsr_tok t = rl_jsr_next(r);
    double v = NAN;
    if (strcmp(key, "backend") == 0)
        return text_into(r, t, st->backend, sizeof st->backend);
    if (strcmp(key, "rank") == 0 || strcmp(key, "world_size") == 0) {
        if (number_into(r, t, &v))
            return r->err;
        if (v >= 0 && v < 1e8)
            *(key[0] == 'r' ? &st->rank : &st->world_size) = (int)v;
        return 0;
    }
    return rl_jsr_skip_value(r, t);
}

struct doc {
    struct tr_state *s;
    struct ev *e;
};

static int doc_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct doc *d = ctx;
    if (strcmp(key, "traceEvents") == 0)
        return read_events(r, d->s, d->e, rl_jsr_next(r));
    if (strcmp(key, "deviceProperties") == 0)
        return read_devices(r, d->s, rl_jsr_next(r));
    if (strcmp(key, "distributedInfo") == 0) {
        enum rl_jsr_tok t = rl_jsr_next(r);
        if (t != RL_TOK_LBRACE)
            return rl_jsr_skip_value(r, t);
        return rl_jsr_read_object(r, d->s->st, dist_field);
    }
    if (strcmp(key, "displayTimeUnit") == 0) {
        char u[16];
        if (text_into(r, rl_jsr_next(r), u, sizeof u))
            return r->err;
        snprintf(d->s->display_unit, sizeof d->s->display_unit, "%s", u);
        return 0;
    }
    return rl_jsr_skip_fast(r);
}

/* Read the trace in f, or in fd when fd >= 0 (f unread: the file layer's
 * reads go straight into the tokenizer's buffer). */
static int torch_read(struct rl_trace_groups *g, FILE *f, int fd, const char *what,
                      struct rl_torch_stats *st, struct rl_timeline *tl, char *errmsg)
{
    memset(st, 0, sizeof *st);
    st->rank = st->world_size = -1;
    /* gzip or plain, through one reader */
    struct rl_gzin_fault fault;
    struct rl_gzin *z = rl_gzin_new(f, fd, &fault);
    if (!z && errno == ENOMEM)
        return rl_fail(errmsg, RL_ENOMEM, "'%s': out of memory", what);
    if (!z)
        return rl_fail(errmsg, RL_EIO, "'%s': cannot read: %s", what, strerror(errno));
    struct rl_jsr r = {.read = rl_gzin_read, .read_ctx = z, .what = what, .errmsg = errmsg,
                       .line = 1};
    static struct tr_state zero;
    struct tr_state *s = rl_calloc(1, sizeof *s);
    struct ev *e = rl_calloc(1, sizeof *e);
    int rc = RL_OK;
    if (!s || !e || !(r.buf = rl_malloc(RL_JSR_BUF_BYTES))) {
        rc = rl_fail(errmsg, RL_ENOMEM, "'%s': out of memory", what);
        goto out;
    }
    *s = zero;
    s->st = st;
    s->g = g;
    s->tl = tl;
    s->groups_first = g->n;
    s->ops.size = sizeof(struct tr_op);
    s->rts.size = sizeof(struct tr_rt);
    s->held.size = s->pending.size = s->late.size = s->graph.size = sizeof(struct tr_gpu);
    s->op_ext.pairs.size = s->rt_corr.pairs.size = s->comm_seq.pairs.size = 12;
    struct doc d = {s, e};
    enum rl_jsr_tok t = rl_jsr_next(&r);
    if (t == RL_TOK_LBRACE) {
        rc = rl_jsr_read_object(&r, &d, doc_field);
    } else if (t == RL_TOK_LBRACKET) {
        /* a bare array of events (the Chrome trace format's other form):
         * read_events wants its '[' unread */
        s->have_events = true;
        t = rl_jsr_next(&r);
        while (rc == RL_OK && t != RL_TOK_RBRACKET) {
            rc = read_event(&r, s, e, t);
            if (rc)
                break;
            t = rl_jsr_next(&r);
            if (t == RL_TOK_COMMA)
                t = rl_jsr_next(&r);
            else if (t != RL_TOK_RBRACKET)
                rc = r.err ? r.err : rl_jsr_fail(&r, RL_EPARSE, "expected ',' or ']'");
        }
    } else {
        rc = r.err ? r.err
                   : rl_jsr_fail(&r, t == RL_TOK_EOF ? RL_EPARSE : RL_ESCHEMA,
                                 t == RL_TOK_EOF ? "empty, or not JSON"
                                                 : "not a PyTorch profiler trace (expected an "
                                                   "object with traceEvents)");
    }
    if (rc == RL_OK && rl_jsr_skip_ws(&r) >= 0)
        rc = rl_jsr_fail(&r, RL_EPARSE, "text after the end of the trace");
    /* A read error, also one met looking past the document's end: zlib
     * checks a stream's CRC at its end, after the last bytes of a document
     * followed by more than a buffer of white space were read. Every zlib
     * error but a missing trailer (taken as the end) fails that read, so
     * this is the one test of the stream. It says why the parse failed, if
     * it did. */
    if ((rc == RL_OK || rc == RL_EIO || rc == RL_EPARSE) && rl_gzin_failed(z)) {
        if (fault.zmsg[0])
            rc = rl_fail(errmsg, RL_EPARSE, "'%s': corrupt or truncated gzip stream: %s", what,
                         fault.zmsg);
        else
            rc = rl_fail(errmsg, RL_EIO, "cannot read '%s': %s", what,
                         strerror(fault.io_errno ? fault.io_errno : EIO));
    }
    if (rc == RL_OK && !s->have_events)
        rc = rl_fail(errmsg, RL_ESCHEMA,
                     "'%s': not a PyTorch profiler trace: no 'traceEvents' array", what);
    if (rc == RL_OK)
        rc = tr_link(s, what, errmsg);
out:
    if (s)
        tr_state_release(s);
    free(s);
    if (e) {
        rl_strbuf_release(&e->name);
        rl_strbuf_release(&e->sig);
        rl_strbuf_release(&e->concrete);
        free(e->tensors);
    }
    free(e);
    free(r.buf);
    free(r.str);
    rl_gzin_free(z);
    return rc;
}

int rl_torch_read(struct rl_trace_groups *g, FILE *f, const char *what,
                  struct rl_torch_stats *st, char *errmsg)
{
    return torch_read(g, f, -1, what, st, NULL, errmsg);
}

int rl_torch_load_timeline(struct rl_trace_groups *g, const char *path,
                           struct rl_torch_stats *st, struct rl_timeline *tl, char *errmsg)
{
    bool in = strcmp(path, "-") == 0;
    FILE *f = rl_io_open_read(path);
    if (!f && errno == ENOMEM)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory opening '%s'", in ? "<stdin>" : path);
    if (!f)
        return rl_fail(errmsg, RL_EIO, "cannot open '%s': %s", in ? "<stdin>" : path,
                       strerror(errno));
    /* a FILE of the file layer, never read: its descriptor is read */
    int rc = torch_read(g, f, rl_io_fileno(f), in ? "<stdin>" : path, st, tl, errmsg);
    fclose(f);
    return rc;
}

int rl_torch_load(struct rl_trace_groups *g, const char *path, struct rl_torch_stats *st,
                  char *errmsg)
{
    return rl_torch_load_timeline(g, path, st, NULL, errmsg);
}

/* ---- sniffing -------------------------------------------------------------- */

static bool sniff_text(const char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        i = 3;
    while (i < n && strchr(" \t\r\n", p[i]))
        i++;
    if (i == n || (p[i] != '{' && p[i] != '['))
        return false;
    /* roofline's own traces say so first; a profiler trace names its parts */
    static const char *const marks[] = {"\"traceEvents\"", "\"deviceProperties\"",
                                        "\"schemaVersion\"", "\"distributedInfo\"",
                                        "\"displayTimeUnit\"", "\"ph\":", "\"ph\" :"};
    if (memmem(p, n, "\"roofline-trace\"", 16))
        return false;
    for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
        if (memmem(p, n, marks[k], strlen(marks[k])))
            return true;
    return false;
}

bool rl_torch_sniff(const char *head, size_t len)
{
    if (len >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b) {
        char out[4096];
        z_stream zs = {0};
        if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
            return false;
        zs.next_in = (Bytef *)(uintptr_t)head;
        zs.avail_in = (uInt)len;
        zs.next_out = (Bytef *)out;
        zs.avail_out = sizeof out;
        int z = inflate(&zs, Z_SYNC_FLUSH);
        size_t got = sizeof out - zs.avail_out;
        inflateEnd(&zs);
        return (z == Z_OK || z == Z_STREAM_END || z == Z_BUF_ERROR) && sniff_text(out, got);
    }
    return sniff_text(head, len);
}

int rl_torch_sniff_path(const char *path, bool *is_torch, char *errmsg)
{
    char head[4096];
    size_t n;
    int rc = rl_file_head(path, head, sizeof head, &n, errmsg);
    *is_torch = rc == RL_OK && rl_torch_sniff(head, n);
    return rc == RL_EIO ? rc : RL_OK;
}

bool rl_torch_sniff_file(const char *path)
{
    bool is;
    return rl_torch_sniff_path(path, &is, NULL) == RL_OK && is;
}
