/* tracefile.c - reads `roofline trace` files in one streaming pass, whatever their size, into kernel groups.
 *
 * A trace of a serving run holds hundreds of thousands of launches: a DOM
 * parser (cJSON) would need several times the file in memory. This reader
 * pulls JSON tokens from a fixed buffer, keeps the few fields a roofline
 * needs per launch and folds each launch into its group at once.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/readers/tracefile.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/jsonstream.h"

#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- fields ---------------------------------------------------------------- */

static int number_or_null(struct rl_jsr *r, enum rl_jsr_tok t, const char *key, double *out)
{
    if (t == RL_TOK_NULL) {
        *out = NAN;
        return 0;
    }
    if (t != RL_TOK_NUMBER)
        return r->err ? r->err : rl_jsr_fail(r, RL_ESCHEMA, "'%s' must be a number or null", key);
    if (!(r->num >= 0))
        return rl_jsr_fail(r, RL_ESCHEMA, "'%s' must be >= 0", key);
    *out = r->num;
    return 0;
}

static int dim3(struct rl_jsr *r, enum rl_jsr_tok t, const char *key, uint32_t *out)
{
    if (t != RL_TOK_LBRACKET)
        return r->err ? r->err : rl_jsr_fail(r, RL_ESCHEMA, "'%s' must be an array of 3 numbers", key);
    for (int i = 0; i < 3; i++) {
        if (rl_jsr_expect(r, RL_TOK_NUMBER, "a number") || !(r->num >= 0 && r->num < 4294967296.0))
            return r->err ? r->err : rl_jsr_fail(r, RL_ESCHEMA, "'%s' holds a bad dimension", key);
        out[i] = (uint32_t)r->num;
        if (rl_jsr_expect(r, i < 2 ? RL_TOK_COMMA : RL_TOK_RBRACKET, i < 2 ? "','" : "']'"))
            return r->err;
    }
    return 0;
}

struct launch {
    const char *name;       /* whole: group identity is the full name */
    char *name_buf;         /* the reader's copy, reused launch to launch */
    size_t name_cap;
    bool have_name;
    uint32_t grid[3], block[3];
    double flops, bytes[RL_MEM_COUNT], time_ns;
    char precision[24];
    enum rl_origin origin;
    int counts;             /* enum rl_trace_counts; -1: not given */
    double comm_bytes;      /* NAN: not given */
    char collective[24];
    const char *op, *shapes;/* PyTorch traces' operator and shapes; NULL none */
    const char *dtype;
    int comm_group_size;
};

static int launch_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct launch *l = ctx;
    enum rl_jsr_tok t;
    switch (key[0]) {
    case 'n':
        if (strcmp(key, "name") == 0) {
            if ((t = rl_jsr_next(r)) != RL_TOK_STRING)
                return rl_jsr_fail(r, RL_ESCHEMA, "'name' must be a string");
            if (r->str_len + 1 > l->name_cap) {
                char *b = rl_realloc(l->name_buf, r->str_len + 1);
                if (!b)
                    return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
                l->name_buf = b;
                l->name_cap = r->str_len + 1;
            }
            memcpy(l->name_buf, r->str, r->str_len + 1);
            l->name = l->name_buf;
            l->have_name = true;
            return 0;
        }
        break;
    case 'g':
        if (strcmp(key, "grid") == 0)
            return dim3(r, rl_jsr_next(r), key, l->grid);
        break;
    case 'b':
        if (strcmp(key, "block") == 0)
            return dim3(r, rl_jsr_next(r), key, l->block);
        break;
    case 'f':
        if (strcmp(key, "flops") == 0)
            return number_or_null(r, rl_jsr_next(r), key, &l->flops);
        break;
    case 'd':
        if (strcmp(key, "dram_bytes") == 0)
            return number_or_null(r, rl_jsr_next(r), key, &l->bytes[RL_MEM_DRAM]);
        break;
    case 'l':
        if (strcmp(key, "l2_bytes") == 0)
            return number_or_null(r, rl_jsr_next(r), key, &l->bytes[RL_MEM_L2]);
        if (strcmp(key, "l1_bytes") == 0)
            return number_or_null(r, rl_jsr_next(r), key, &l->bytes[RL_MEM_L1]);
        break;
    case 't':
        if (strcmp(key, "time_ns") == 0)
            return number_or_null(r, rl_jsr_next(r), key, &l->time_ns);
        break;
    case 'p':
        if (strcmp(key, "precision") == 0) {
            if ((t = rl_jsr_next(r)) != RL_TOK_STRING)
                return rl_jsr_fail(r, RL_ESCHEMA, "'precision' must be a string");
            size_t n = r->str_len < sizeof l->precision - 1 ? r->str_len
                                                               : sizeof l->precision - 1;
            memcpy(l->precision, r->str, n);
            l->precision[n] = 0;
            return 0;
        }
        break;
    case 'c':
        if (strcmp(key, "comm_bytes") == 0)
            return number_or_null(r, rl_jsr_next(r), key, &l->comm_bytes);
        if (strcmp(key, "collective") == 0) {
            if ((t = rl_jsr_next(r)) != RL_TOK_STRING)
                return rl_jsr_fail(r, RL_ESCHEMA, "'collective' must be a string");
            snprintf(l->collective, sizeof l->collective, "%s", r->str);
            return 0;
        }
        if (strcmp(key, "counts") == 0) {
            static const char *const names[RL_TRACE_COUNTS_N] = {"counters", "sampled",
                                                                 "analytic", "none"};
            if ((t = rl_jsr_next(r)) != RL_TOK_STRING)
                return rl_jsr_fail(r, RL_ESCHEMA, "'counts' must be a string");
            for (int i = 0; i < RL_TRACE_COUNTS_N; i++)
                if (strcmp(r->str, names[i]) == 0)
                    l->counts = i;
            return 0;
        }
        break;
    case 'o':
        if (strcmp(key, "origin") == 0) {
            if ((t = rl_jsr_next(r)) != RL_TOK_STRING ||
                (strcmp(r->str, "measured") != 0 && strcmp(r->str, "analytic") != 0))
                return rl_jsr_fail(r, RL_ESCHEMA, "'origin' must be \"measured\" or \"analytic\"");
            l->origin = r->str[0] == 'a' ? RL_ORIGIN_ANALYTIC : RL_ORIGIN_MEASURED;
            return 0;
        }
        break;
    }
    return rl_jsr_skip_fast(r);
}

/* ---- the fast path of a launch record -------------------------------------- */

/* A launch record parsed straight from the buffer, for speed: the same
 * fields and rules as launch_field. Anything it does not expect (an
 * escape, a value of the wrong type, the buffer's end) makes it give up
 * with nothing consumed, and the general path reads the record (and says
 * what is wrong). Returns 1 when the record was read, 0 to fall back. */

static inline const char *fp_ws(const char *p, const char *end, int *lines)
{
    /* One compare for the byte that ends the run, the common case. */
    while (p < end && (unsigned char)*p <= ' ') {
        if (*p == '\n')
            ++*lines;
        else if (*p != ' ' && *p != '\t' && *p != '\r')
            break;
        p++;
    }
    return p;
}

/* A byte a plain string runs over: not a quote, a backslash or a control
 * (a test, not a table: nothing to set up, nothing shared between the
 * threads that read ranks side by side). */
static inline bool plain_byte(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\';
}

static inline const char *plain_run(const char *q, const char *end)
{
    while (end - q >= 8 && rl_jsr_word_plain(q))
        q += 8;
    while (q < end && plain_byte((unsigned char)*q))
        q++;
    return q;
}

/* A plain string's bytes (p after its opening quote): NULL to fall back. */
static inline const char *fp_string(const char *p, const char *end, const char **s, size_t *n)
{
    const char *q = memchr(p, '"', (size_t)(end - p));
    if (!q || plain_run(p, q) != q)
        return NULL;
    if (q >= end || *q != '"')
        return NULL;
    *s = p;
    *n = (size_t)(q - p);
    return q + 1;
}

/* A JSON number >= 0, or null (NAN): NULL to fall back. */
static const char *fp_number(const char *p, const char *end, double *out)
{
    if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
        *out = NAN;
        return p + 4;
    }
    const char *q = p;
    uint64_t v = 0;
    int digits = 0;
    while (q < end && *q >= '0' && *q <= '9')
        v = v * 10 + (uint64_t)(*q++ - '0'), digits++;
    if (digits == 0 || q >= end)
        return NULL;
    if (*q != '.' && *q != 'e' && *q != 'E') {
        if (digits > 15 || (digits > 1 && *p == '0'))
            return NULL;
        *out = (double)v;
        return q;
    }
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' ||
                       *q == '+' || *q == '-'))
        q++;
    if (q >= end || q - p >= 63)
        return NULL;
    char tmp[64], *e;
    memcpy(tmp, p, (size_t)(q - p));
    tmp[q - p] = 0;
    double d = strtod(tmp, &e);
    if (*e || !(d >= 0) || !isfinite(d))
        return NULL;
    *out = d;
    return q;
}

static const char *fp_dim3(const char *p, const char *end, int *lines, uint32_t *out)
{
    if (p >= end || *p++ != '[')
        return NULL;
    for (int i = 0; i < 3; i++) {
        p = fp_ws(p, end, lines);
        /* Plain integers below 2^32 (else the general path). */
        uint64_t v = 0;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9' && p - d < 10)
            v = v * 10 + (uint64_t)(*p++ - '0');
        /* No digit, a leading zero, 2^32 or more: NULL. An 11th digit, a
         * fraction or an exponent, or the data's end, fails the separator
         * test below (fp_ws skips none of those bytes). */
        if (p == d || (*d == '0' && p - d > 1) || v >= 4294967296ull)
            return NULL;
        out[i] = (uint32_t)v;
        p = fp_ws(p, end, lines);
        if (p >= end || *p++ != (i < 2 ? ',' : ']'))
            return NULL;
    }
    return p;
}

/* A string's end (p after its opening quote), escapes checked as
 * read_string checks them: NULL to fall back. */
static const char *fp_skip_string(const char *p, const char *end)
{
    for (;; p++) { /* p <= end here: an escape leaves p < end */
        p = plain_run(p, end);
        if (p >= end)
            return NULL;
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            if (++p >= end || !*p || !strchr("\"\\/bfnrt", *p))
                return NULL; /* \u and the odd ones: the general path */
        }
    }
}

/* A JSON number's end (its grammar exactly, at most 62 characters as the
 * general path reads them): NULL to fall back. A longer number is read to
 * its end and refused there (no cap on the scan: it changed no result). */
static const char *fp_skip_number(const char *p, const char *end)
{
    const char *start = p;
    if (p < end && *p == '-')
        p++;
    if (p >= end || !(*p >= '0' && *p <= '9'))
        return NULL;
    if (*p == '0')
        p++;
    else
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    if (p < end && *p == '.') {
        const char *d = ++p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return NULL;
    }
    return p < end && p - start <= 62 ? p : NULL;
}

/* Skip a value the record does not need, validated as JSON: anything the
 * general path might judge differently makes it fall back (NULL). */
static const char *fp_skip(const char *p, const char *end, int *lines)
{
    /* Scalars, most of a record, directly. */
    if (p < end && ((*p >= '0' && *p <= '9') || *p == '-'))
        return fp_skip_number(p, end);
    if (p < end && *p == '"')
        return fp_skip_string(p + 1, end);
    char stack[64];
    int depth = 0;
    enum { S_VALUE, S_VALUE_OR_CLOSE, S_KEY, S_KEY_OR_CLOSE, S_AFTER } st = S_VALUE;
    for (;;) {
        p = fp_ws(p, end, lines);
        if (p >= end)
            return NULL;
        char c = *p;
        if (st == S_AFTER) {
            if (depth == 0)
                return p;
            if (c == ',') {
                p++;
                st = stack[depth - 1] == '}' ? S_KEY : S_VALUE;
            } else if (c == stack[depth - 1]) {
                p++;
                depth--;
            } else {
                return NULL;
            }
            continue;
        }
        if (st == S_KEY || st == S_KEY_OR_CLOSE) {
            if (st == S_KEY_OR_CLOSE && c == '}') {
                p++;
                depth--;
                st = S_AFTER;
                continue;
            }
            if (c != '"' || !(p = fp_skip_string(p + 1, end)))
                return NULL;
            p = fp_ws(p, end, lines);
            if (p >= end || *p++ != ':')
                return NULL;
            st = S_VALUE;
            continue;
        }
        if (st == S_VALUE_OR_CLOSE && c == ']') {
            p++;
            depth--;
            st = S_AFTER;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == (int)sizeof stack)
                return NULL;
            stack[depth++] = c == '{' ? '}' : ']';
            p++;
            st = c == '{' ? S_KEY_OR_CLOSE : S_VALUE_OR_CLOSE;
            continue;
        }
        if (c == '"')
            p = fp_skip_string(p + 1, end);
        else if (end - p >= 4 && (memcmp(p, "true", 4) == 0 || memcmp(p, "null", 4) == 0))
            p += 4;
        else if (end - p >= 5 && memcmp(p, "false", 5) == 0)
            p += 5;
        else
            p = fp_skip_number(p, end);
        if (!p)
            return NULL;
        st = S_AFTER;
    }
}

static bool fast_path = true;

void rl_trace_set_fast_path(bool on) { fast_path = on; }

static int fast_launch(struct rl_jsr *r, struct launch *l)
{
    if (!fast_path)
        return 0;
    const char *p = r->buf + r->pos, *end = r->buf + r->len;
    int lines = 0;
    p = fp_ws(p, end, &lines);
    if (p < end && *p == '}')
        return 0;
    for (;;) {
        const char *key, *s;
        size_t kn, n;
        if (p >= end || *p != '"' || !(p = fp_string(p + 1, end, &key, &kn)))
            return 0;
        p = fp_ws(p, end, &lines);
        if (p >= end || *p++ != ':')
            return 0;
        p = fp_ws(p, end, &lines);
#define KEY(lit) (kn == sizeof lit - 1 && memcmp(key, lit, kn) == 0)
        if (KEY("name")) {
            if (p >= end || *p != '"' || !(p = fp_string(p + 1, end, &s, &n)))
                return 0;
            if (n + 1 > l->name_cap) {
                char *b = rl_realloc(l->name_buf, n + 1);
                if (!b)
                    return 0;
                l->name_buf = b;
                l->name_cap = n + 1;
            }
            memcpy(l->name_buf, s, n);
            l->name_buf[n] = 0;
            l->name = l->name_buf;
            l->have_name = true;
        } else if (KEY("grid") || KEY("block")) {
            if (!(p = fp_dim3(p, end, &lines, key[0] == 'g' ? l->grid : l->block)))
                return 0;
        } else if (KEY("comm_bytes")) {
            if (!(p = fp_number(p, end, &l->comm_bytes)))
                return 0;
        } else if (KEY("collective")) {
            if (p >= end || *p != '"' || !(p = fp_string(p + 1, end, &s, &n)))
                return 0;
            size_t k = n < sizeof l->collective - 1 ? n : sizeof l->collective - 1;
            memcpy(l->collective, s, k);
            l->collective[k] = 0;
        } else if (KEY("flops") || KEY("dram_bytes") || KEY("l2_bytes") || KEY("l1_bytes") ||
                   KEY("time_ns")) {
            double *out = key[0] == 'f'   ? &l->flops
                          : key[0] == 'd' ? &l->bytes[RL_MEM_DRAM]
                          : key[0] == 't' ? &l->time_ns
                          : key[1] == '2' ? &l->bytes[RL_MEM_L2]
                                          : &l->bytes[RL_MEM_L1];
            if (!(p = fp_number(p, end, out)))
                return 0;
        } else if (KEY("precision") || KEY("counts") || KEY("origin")) {
            if (p >= end || *p != '"' || !(p = fp_string(p + 1, end, &s, &n)))
                return 0;
            if (key[0] == 'p') {
                size_t k = n < sizeof l->precision - 1 ? n : sizeof l->precision - 1;
                memcpy(l->precision, s, k);
                l->precision[k] = 0;
            } else if (key[0] == 'c') {
                static const char *const names[RL_TRACE_COUNTS_N] = {"counters", "sampled",
                                                                     "analytic", "none"};
                for (int i = 0; i < RL_TRACE_COUNTS_N; i++)
                    if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0)
                        l->counts = i;
            } else if (n == 8 && memcmp(s, "measured", 8) == 0) {
                l->origin = RL_ORIGIN_MEASURED;
            } else if (n == 8 && memcmp(s, "analytic", 8) == 0) {
                l->origin = RL_ORIGIN_ANALYTIC;
            } else {
                return 0;
            }
        } else if (!(p = fp_skip(p, end, &lines))) {
            return 0;
        }
#undef KEY
        p = fp_ws(p, end, &lines);
        if (p >= end)
            return 0;
        if (*p == '}') {
            r->pos = (size_t)(p + 1 - r->buf);
            r->line += lines;
            return 1;
        }
        if (*p++ != ',')
            return 0;
        p = fp_ws(p, end, &lines);
    }
}

/* ---- groups ---------------------------------------------------------------- */

static uint64_t group_hash(const struct launch *l)
{
    /* The name eight bytes at a time, then its tail byte by byte. */
    uint64_t h = 1469598103934665603ull;
    size_t n = strlen(l->name);
    const char *p = l->name;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; n; n--, p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (int i = 0; i < 3; i++)
        h = ((h ^ l->grid[i]) * 1099511628211ull ^ l->block[i]) * 1099511628211ull;
    for (const char *q = l->op; q && *q; q++)
        h = (h ^ (unsigned char)*q) * 1099511628211ull;
    for (const char *q = l->shapes; q && *q; q++)
        h = (h ^ (unsigned char)*q) * 1099511628211ull;
    return h;
}

/* Two optional strings alike (NULL is ""). */
static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool same(const struct rl_trace_group *g, const struct launch *l)
{
    return memcmp(g->grid, l->grid, sizeof g->grid) == 0 &&
           memcmp(g->block, l->block, sizeof g->block) == 0 && strcmp(g->name, l->name) == 0 &&
           same_text(g->op, l->op) && same_text(g->shapes, l->shapes);
}

static int grow_slots(struct rl_trace_groups *g)
{
    size_t slots = g->slots ? 2 * g->slots : 1024;
    uint32_t *s = rl_calloc(slots, sizeof *s);
    if (!s)
        return RL_ENOMEM;
    for (size_t i = 0; i < g->n; i++) {
        size_t j = g->v[i].hash & (slots - 1);
        while (s[j])
            j = (j + 1) & (slots - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(g->slot);
    g->slot = s;
    g->slots = slots;
    return RL_OK;
}

/* Launches group by kernel name, grid and block; the first counted launch
 * gives the group its precision and origin (timing-only launches count for
 * time). */
/* The group of l's name, grid and block, made when new (NULL: no memory). */
static struct rl_trace_group *group_of(struct rl_trace_groups *g, const struct launch *l)
{
    if (2 * (g->n + 1) > g->slots && grow_slots(g))
        return NULL;
    uint64_t h = group_hash(l);
    size_t j = h & (g->slots - 1);
    while (g->slot[j] && !(g->v[g->slot[j] - 1].hash == h && same(&g->v[g->slot[j] - 1], l)))
        j = (j + 1) & (g->slots - 1);
    struct rl_trace_group *grp;
    if (g->slot[j]) {
        grp = &g->v[g->slot[j] - 1];
    } else {
        if (g->n == g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 64;
            struct rl_trace_group *v = rl_realloc(g->v, cap * sizeof *v);
            if (!v)
                return NULL;
            g->v = v;
            g->cap = cap;
        }
        grp = &g->v[g->n];
        memset(grp, 0, sizeof *grp);
        if (!(grp->name = rl_strdup(l->name)))
            return NULL;
        if ((l->op && !(grp->op = rl_strdup(l->op))) ||
            (l->shapes && !(grp->shapes = rl_strdup(l->shapes)))) {
            free(grp->name);
            free(grp->op);
            return NULL;
        }
        if (l->dtype)
            snprintf(grp->dtype, sizeof grp->dtype, "%s", l->dtype);
        memcpy(grp->grid, l->grid, sizeof grp->grid);
        memcpy(grp->block, l->block, sizeof grp->block);
        grp->hash = h;
        grp->origin = RL_ORIGIN_MEASURED;
        g->slot[j] = (uint32_t)++g->n;
    }
    return grp;
}

static int add_launch(struct rl_trace_groups *g, const struct launch *l, uint64_t launches)
{
    struct rl_trace_group *grp = group_of(g, l);
    if (!grp)
        return RL_ENOMEM;
    bool has_bytes = !isnan(l->bytes[RL_MEM_DRAM]) || !isnan(l->bytes[RL_MEM_L2]) ||
                     !isnan(l->bytes[RL_MEM_L1]);
    /* The first counted launch names the group's precision; until one
     * comes, the first launch with FLOPs only. */
    if (!isnan(l->flops) && grp->counted == 0 && (has_bytes || grp->flops_only == 0)) {
        snprintf(grp->precision, sizeof grp->precision, "%s", l->precision);
        grp->origin = l->origin;
    }
    grp->launches += launches;
    if (!isnan(l->time_ns))
        grp->time_ns += l->time_ns;
    if (!isnan(l->comm_bytes) && l->comm_bytes >= 0) {
        grp->comm_bytes += l->comm_bytes;
        grp->comm_launches += launches;
    }
    if (l->collective[0] && !grp->collective[0])
        memcpy(grp->collective, l->collective, sizeof grp->collective);
    if (l->comm_group_size > 0 && !grp->comm_group_size)
        grp->comm_group_size = l->comm_group_size;
    if (!isnan(l->flops) && !has_bytes) {
        /* FLOPs without a byte count at any level: a compute point. */
        grp->flops_only += launches;
        grp->flops_only_flops += l->flops;
        if (!isnan(l->time_ns)) {
            grp->flops_only_time_ns += l->time_ns;
            grp->flops_only_timed += launches;
        }
    } else if (!isnan(l->flops)) {
        grp->counted += launches;
        grp->flops += l->flops;
        if (!isnan(l->time_ns)) {
            grp->counted_time_ns += l->time_ns;
            grp->counted_timed += launches;
        }
        for (int m = 0; m < RL_MEM_COUNT; m++)
            grp->bytes[m] += l->bytes[m]; /* NAN stays NAN: a level not measured */
    } else if (has_bytes) {
        grp->bytes_only += launches;
        for (int m = 0; m < RL_MEM_COUNT; m++)
            grp->bytes_only_bytes[m] += l->bytes[m];
        if (!isnan(l->time_ns)) {
            grp->bytes_only_time_ns += l->time_ns;
            grp->bytes_only_timed += launches;
        }
    }
    return RL_OK;
}

int rl_trace_groups_add(struct rl_trace_groups *g, const char *name, const uint32_t grid[3],
                        const uint32_t block[3], const char *precision, enum rl_origin origin,
                        uint64_t launches, double flops, const double bytes[RL_MEM_COUNT],
                        double time_ns)
{
    return rl_trace_groups_add_comm(g, name, grid, block, precision, origin, launches, flops,
                                    bytes, time_ns, NAN);
}

int rl_trace_groups_add_comm(struct rl_trace_groups *g, const char *name,
                             const uint32_t grid[3], const uint32_t block[3],
                             const char *precision, enum rl_origin origin, uint64_t launches,
                             double flops, const double bytes[RL_MEM_COUNT], double time_ns,
                             double comm_bytes)
{
    struct launch l;
    l.name = name;
    l.have_name = true;
    for (int i = 0; i < 3; i++) {
        l.grid[i] = grid ? grid[i] : 0;
        l.block[i] = block ? block[i] : 0;
    }
    snprintf(l.precision, sizeof l.precision, "%s", precision ? precision : "");
    l.origin = origin;
    l.flops = flops;
    l.time_ns = time_ns;
    l.comm_bytes = comm_bytes;
    l.collective[0] = 0;
    l.op = l.shapes = l.dtype = NULL;
    l.comm_group_size = 0;
    memcpy(l.bytes, bytes, sizeof l.bytes);
    if (add_launch(g, &l, launches ? launches : 1))
        return RL_ENOMEM;
    g->sum.kernels += launches ? launches : 1;
    if (!isnan(time_ns))
        g->sum.time_ns += time_ns;
    return RL_OK;
}

int rl_trace_groups_add_launch(struct rl_trace_groups *g, const struct rl_trace_launch *a)
{
    struct launch l;
    l.name = a->name;
    l.have_name = true;
    for (int i = 0; i < 3; i++) {
        l.grid[i] = a->grid ? a->grid[i] : 0;
        l.block[i] = a->block ? a->block[i] : 0;
    }
    snprintf(l.precision, sizeof l.precision, "%s", a->precision ? a->precision : "");
    l.origin = a->origin;
    l.flops = a->flops;
    l.time_ns = a->time_ns;
    l.comm_bytes = a->comm_bytes;
    snprintf(l.collective, sizeof l.collective, "%s", a->collective ? a->collective : "");
    l.op = a->op, l.shapes = a->shapes, l.dtype = a->dtype;
    l.comm_group_size = a->comm_group_size;
    memcpy(l.bytes, a->bytes, sizeof l.bytes);
    uint64_t n = a->launches ? a->launches : 1;
    if (add_launch(g, &l, n))
        return RL_ENOMEM;
    g->sum.kernels += n;
    if (!isnan(a->time_ns))
        g->sum.time_ns += a->time_ns;
    return RL_OK;
}

/* ---- the document -------------------------------------------------------- */

struct doc {
    struct rl_trace_groups *g;
    bool format_ok;
};

static int string_into(struct rl_jsr *r, enum rl_jsr_tok t, char *buf, size_t size)
{
    if (t == RL_TOK_NULL) {
        buf[0] = 0;
        return 0;
    }
    if (t != RL_TOK_STRING)
        return rl_jsr_skip_value(r, t);
    snprintf(buf, size, "%s", r->str);
    return 0;
}

static int gpu_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct rl_trace_summary *s = ctx;
    enum rl_jsr_tok t = rl_jsr_next(r);
    if (strcmp(key, "name") == 0)
        return string_into(r, t, s->gpu_name, sizeof s->gpu_name);
    if (strcmp(key, "chip") == 0)
        return string_into(r, t, s->chip, sizeof s->chip);
    if (strcmp(key, "sm_count") == 0 && t == RL_TOK_NUMBER) {
        s->sm_count = r->num >= 0 && r->num < 1e6 ? (int)r->num : 0; /* 0: unknown */
        return 0;
    }
    return rl_jsr_skip_value(r, t);
}

static int rank_number(struct rl_jsr *r, enum rl_jsr_tok t, int *out)
{
    if (t == RL_TOK_NULL)
        return 0;
    if (t != RL_TOK_NUMBER || !(r->num >= 0 && r->num < 1e9))
        return rl_jsr_fail(r, RL_ESCHEMA, "'rank' fields must be whole numbers >= 0 or null");
    *out = (int)r->num;
    return 0;
}

static int rank_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct rl_trace_rank *k = ctx;
    enum rl_jsr_tok t = rl_jsr_next(r);
    if (strcmp(key, "rank") == 0)
        return rank_number(r, t, &k->rank);
    if (strcmp(key, "local_rank") == 0)
        return rank_number(r, t, &k->local_rank);
    if (strcmp(key, "world_size") == 0)
        return rank_number(r, t, &k->world_size);
    if (strcmp(key, "launcher") == 0)
        return string_into(r, t, k->launcher, sizeof k->launcher);
    if (strcmp(key, "hostname") == 0)
        return string_into(r, t, k->hostname, sizeof k->hostname);
    return rl_jsr_skip_value(r, t);
}

static int counters_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct rl_trace_summary *s = ctx;
    enum rl_jsr_tok t = rl_jsr_next(r);
    if (strcmp(key, "status") == 0)
        return string_into(r, t, s->counters_status, sizeof s->counters_status);
    if (strcmp(key, "reason") == 0)
        return string_into(r, t, s->counters_reason, sizeof s->counters_reason);
    if (strcmp(key, "tensor_check") == 0)
        return string_into(r, t, s->tensor_check, sizeof s->tensor_check);
    if (strcmp(key, "passes") == 0 && t == RL_TOK_NUMBER) {
        s->passes = r->num;
        return 0;
    }
    if (strcmp(key, "tensor_not_counted") == 0 && t == RL_TOK_LBRACKET) {
        size_t used = 0;
        for (t = rl_jsr_next(r); t == RL_TOK_STRING || t == RL_TOK_COMMA; t = rl_jsr_next(r))
            if (t == RL_TOK_STRING)
                used += (size_t)snprintf(s->tensor_not_counted + used,
                                         used < sizeof s->tensor_not_counted
                                             ? sizeof s->tensor_not_counted - used
                                             : 0,
                                         "%s%s", used ? ", " : "", r->str);
        return t == RL_TOK_RBRACKET ? 0 : rl_jsr_fail(r, RL_EPARSE, "expected ']'");
    }
    return rl_jsr_skip_value(r, t);
}

/* A record read: its launch added to g (FLOPs without bytes are timing
 * only). RL_OK or RL_ENOMEM. */
static int commit_launch(struct rl_trace_groups *g, struct launch *l)
{
    if (isnan(l->flops))
        l->precision[0] = 0, l->origin = RL_ORIGIN_MEASURED;
    if (add_launch(g, l, 1))
        return RL_ENOMEM;
    g->sum.kernels++;
    if (!isnan(l->time_ns))
        g->sum.time_ns += l->time_ns;
    if (l->counts >= 0)
        g->sum.by_counts[l->counts]++;
    return RL_OK;
}

static void launch_init(struct launch *l, char *name_buf, size_t name_cap)
{
    *l = (struct launch){.name = NULL, .name_buf = name_buf, .name_cap = name_cap};
    l->flops = l->time_ns = NAN;
    for (int m = 0; m < RL_MEM_COUNT; m++)
        l->bytes[m] = NAN;
    l->origin = RL_ORIGIN_MEASURED;
    l->counts = -1;
    l->comm_bytes = NAN;
}

/* b's groups (read after g's launches, in file order) added into g, as if
 * their launches had been read one by one. */
static int merge_groups(struct rl_trace_groups *g, const struct rl_trace_groups *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct rl_trace_group *x = &b->v[i];
        struct launch key = {.name = x->name, .op = x->op, .shapes = x->shapes,
                             .dtype = x->dtype[0] ? x->dtype : NULL};
        memcpy(key.grid, x->grid, sizeof key.grid);
        memcpy(key.block, x->block, sizeof key.block);
        struct rl_trace_group *y = group_of(g, &key);
        if (!y)
            return RL_ENOMEM;
        /* The first counted launch names them, else the first FLOPs only. */
        if (y->counted == 0 && (x->counted || (y->flops_only == 0 && x->flops_only))) {
            memcpy(y->precision, x->precision, sizeof y->precision);
            y->origin = x->origin;
        }
        y->launches += x->launches;
        y->counted += x->counted;
        y->counted_timed += x->counted_timed;
        y->time_ns += x->time_ns;
        y->counted_time_ns += x->counted_time_ns;
        y->flops += x->flops;
        y->bytes_only += x->bytes_only;
        y->bytes_only_timed += x->bytes_only_timed;
        y->bytes_only_time_ns += x->bytes_only_time_ns;
        y->flops_only += x->flops_only;
        y->flops_only_timed += x->flops_only_timed;
        y->flops_only_time_ns += x->flops_only_time_ns;
        y->flops_only_flops += x->flops_only_flops;
        y->comm_bytes += x->comm_bytes;
        y->comm_launches += x->comm_launches;
        if (x->collective[0] && !y->collective[0])
            memcpy(y->collective, x->collective, sizeof y->collective);
        if (x->comm_group_size > 0 && !y->comm_group_size)
            y->comm_group_size = x->comm_group_size;
        for (int m = 0; m < RL_MEM_COUNT; m++) {
            y->bytes[m] += x->bytes[m];
            y->bytes_only_bytes[m] += x->bytes_only_bytes[m];
        }
    }
    g->sum.kernels += b->sum.kernels;
    g->sum.time_ns += b->sum.time_ns;
    for (int i = 0; i < RL_TRACE_COUNTS_N; i++)
        g->sum.by_counts[i] += b->sum.by_counts[i];
    return RL_OK;
}

int rl_trace_groups_merge_rank(struct rl_trace_groups *g, const struct rl_trace_groups *rank)
{
    if (!g->n && !g->sum.kernels && !g->sum.gpu_name[0]) {
        /* The first rank describes the merge; merge_groups adds the totals. */
        g->sum = rank->sum;
        g->sum.kernels = 0;
        g->sum.time_ns = 0;
        memset(g->sum.by_counts, 0, sizeof g->sum.by_counts);
    }
    if (merge_groups(g, rank))
        return RL_ENOMEM;
    for (size_t i = 0; i < rank->n; i++) {
        const struct rl_trace_group *x = &rank->v[i];
        struct launch key = {.name = x->name, .op = x->op, .shapes = x->shapes,
                             .dtype = x->dtype[0] ? x->dtype : NULL};
        memcpy(key.grid, x->grid, sizeof key.grid);
        memcpy(key.block, x->block, sizeof key.block);
        struct rl_trace_group *y = group_of(g, &key); /* there: merge_groups made it */
        if (!y)
            return RL_ENOMEM;
        y->ranks++;
        if (y->time_ns_max_rank < x->time_ns)
            y->time_ns_max_rank = x->time_ns;
    }
    return RL_OK;
}

/* Reading a large trace file on two cores: a helper thread reads the
 * second half's launch records with the fast path, from the first record
 * start after a newline (a newline is never inside a JSON string), into
 * its own groups, and stops at the first record it does not take. When
 * the main reader reaches that same record start by itself (so it was one:
 * the layout `roofline trace` writes), it takes the helper's groups and
 * jumps past them; otherwise it discards them. Either way the result is
 * the one-by-one reading's, and every error is the main reader's. */
static off_t helper_min_bytes = (off_t)32 << 20;

void rl_trace_set_parallel_min_bytes(long long bytes)
{
    helper_min_bytes = bytes > 0 ? (off_t)bytes : (off_t)32 << 20;
}

struct helper {
    pthread_t thread;
    int fd;
    off_t from;             /* where to look for a record start */
    off_t rec_start;        /* the first record's '{' (-1: none found) */
    off_t stop;             /* just after the last record taken */
    int lines;              /* newlines from rec_start to stop */
    uint64_t records;
    struct rl_trace_groups g;
    bool running;           /* the thread is to be joined */
    bool active;            /* its records may still be taken */
};

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    struct rl_jsr r = {.f = NULL, .fd = h->fd, .off = h->from, .base = h->from, .line = 0};
    h->rec_start = -1;
    if (!(r.buf = rl_malloc(RL_JSR_BUF_BYTES)))
        return NULL;
    int c;
    while ((c = rl_jsr_get(&r)) >= 0 && c != '\n')
        ;
    char *name_buf = NULL;
    size_t name_cap = 0;
    if (c == '\n' && rl_jsr_skip_ws(&r) == '{') {
        h->rec_start = r.base + (off_t)r.pos;
        r.line = 0;
        for (;;) {
            size_t at = r.pos;
            r.pos++; /* the '{' */
            struct launch l;
            launch_init(&l, name_buf, name_cap);
            int ok = fast_launch(&r, &l) && l.have_name;
            name_buf = l.name_buf, name_cap = l.name_cap;
            if (!ok && at > 0) {
                /* The buffer may end inside the record: read on from its
                 * start, and try it once more. */
                r.off = r.base + (off_t)at;
                r.base = r.off;
                r.pos = r.len = 0;
                r.eof = false;
                if (rl_jsr_peek(&r) != '{')
                    break;
                r.pos++;
                launch_init(&l, name_buf, name_cap);
                ok = fast_launch(&r, &l) && l.have_name;
                name_buf = l.name_buf, name_cap = l.name_cap;
            }
            if (!ok || commit_launch(&h->g, &l))
                break;
            h->records++;
            h->stop = r.base + (off_t)r.pos;
            h->lines = r.line;
            if (rl_jsr_skip_ws(&r) != ',')
                break;
            r.pos++;
            if (rl_jsr_skip_ws(&r) != '{')
                break;
        }
    }
    free(name_buf);
    free(r.buf);
    free(r.str);
    return NULL;
}

/* Start a helper for the rest of f from r's position, when it is worth it. */
static void helper_start(struct helper *h, struct rl_jsr *r)
{
    memset(h, 0, sizeof *h);
    struct stat st;
    if (!fast_path || !r->f || fstat(rl_io_fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode) ||
        sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return;
    off_t here = r->base + (off_t)r->pos;
    if (st.st_size - here < helper_min_bytes)
        return;
    h->fd = rl_io_fileno(r->f);
    h->from = here + (st.st_size - here) / 2;
    h->rec_start = -1;
    h->running = h->active = pthread_create(&h->thread, NULL, helper_main, h) == 0;
}

static void helper_finish(struct helper *h)
{
    if (h->running)
        pthread_join(h->thread, NULL);
    h->running = false;
}

static void helper_release(struct helper *h)
{
    helper_finish(h);
    rl_trace_groups_release(&h->g);
}

/* At the record starting at file offset at: take the helper's records when
 * they start here. 1 taken (r is after them), 0 not. */
static int helper_take(struct helper *h, struct rl_jsr *r, struct rl_trace_groups *g,
                       off_t at)
{
    if (!h->active || at < h->from)
        return 0;
    helper_finish(h);
    if (at < h->rec_start)
        return 0; /* not there yet */
    h->active = false;
    if (at != h->rec_start || h->records == 0 || fseeko(r->f, h->stop, SEEK_SET) != 0) {
        rl_trace_groups_release(&h->g);
        return 0;
    }
    g->sum.read_by_helper += h->records;
    g->sum.read_fast += h->records;
    if (merge_groups(g, &h->g)) {
        rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        return 0;
    }
    rl_trace_groups_release(&h->g);
    r->base = h->stop;
    r->pos = r->len = 0;
    r->eof = false;
    r->line += h->lines;
    return 1;
}

/* The name buffer one array's launches share. */
struct name_store {
    char *buf;
    size_t cap;
    struct helper *helper;  /* NULL: one reader */
};

static int read_kernels_with(struct rl_jsr *r, struct rl_trace_groups *g, enum rl_jsr_tok t,
                             struct name_store *ns)
{
    if (t != RL_TOK_LBRACKET)
        return r->err ? r->err : rl_jsr_fail(r, RL_ESCHEMA, "'kernels' must be an array");
    t = rl_jsr_next(r);
    if (t == RL_TOK_RBRACKET)
        return 0;
    for (;;) {
        if (t != RL_TOK_LBRACE)
            return r->err ? r->err
                          : rl_jsr_fail(r, RL_ESCHEMA, t == RL_TOK_EOF ? "truncated: kernels[%llu] never ends"
                                                           : "kernels[%llu] must be an object",
                                 (unsigned long long)g->sum.kernels);
        if (ns->helper && helper_take(ns->helper, r, g, r->base + (off_t)r->pos - 1)) {
            t = rl_jsr_next(r); /* after the helper's last record: ',' or ']' */
            goto after_record;
        }
        if (r->err)
            return r->err;
        struct launch l;
        launch_init(&l, ns->buf, ns->cap);
        int line = r->line;
        /* A record the fast path gives up on is read again from its start
         * (nothing consumed) by the general path. */
        struct launch saved = l;
        int rc = 0;
        if (fast_launch(r, &l)) {
            g->sum.read_fast++;
        } else {
            l = (struct launch){.name = NULL, .name_buf = l.name_buf, .name_cap = l.name_cap,
                                .have_name = false};
            memcpy(l.grid, saved.grid, sizeof l.grid);
            memcpy(l.block, saved.block, sizeof l.block);
            l.flops = saved.flops, l.time_ns = saved.time_ns;
            memcpy(l.bytes, saved.bytes, sizeof l.bytes);
            memcpy(l.precision, saved.precision, sizeof l.precision);
            l.origin = saved.origin;
            l.counts = saved.counts;
            l.comm_bytes = saved.comm_bytes;
            memcpy(l.collective, saved.collective, sizeof l.collective);
            rc = rl_jsr_read_object(r, &l, launch_field);
        }
        ns->buf = l.name_buf;
        ns->cap = l.name_cap;
        if (rc)
            return r->err;
        if (!l.have_name) {
            r->line = line;
            return rl_jsr_fail(r, RL_ESCHEMA, "kernels[%llu] has no 'name'",
                        (unsigned long long)g->sum.kernels);
        }
        if (commit_launch(g, &l))
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        t = rl_jsr_next(r);
    after_record:
        if (t == RL_TOK_RBRACKET)
            return 0;
        if (t != RL_TOK_COMMA)
            return r->err ? r->err
                          : rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated: the kernels array never ends"
                                                          : "expected ',' or ']' after a kernel");
        t = rl_jsr_next(r);
    }
}

static int read_kernels(struct rl_jsr *r, struct rl_trace_groups *g, enum rl_jsr_tok t)
{
    struct helper h = {.running = false};
    struct name_store ns = {NULL, 0, NULL};
    if (t == RL_TOK_LBRACKET) {
        helper_start(&h, r);
        ns.helper = &h;
    }
    int rc = read_kernels_with(r, g, t, &ns);
    helper_release(&h);
    free(ns.buf);
    return rc;
}

static int doc_field(struct rl_jsr *r, void *ctx, const char *key)
{
    struct doc *d = ctx;
    enum rl_jsr_tok t = rl_jsr_next(r);
    if (strcmp(key, "format") == 0) {
        if (t != RL_TOK_STRING || strcmp(r->str, "roofline-trace") != 0)
            return rl_jsr_fail(r, RL_ESCHEMA, "not a roofline trace ('format' is not \"roofline-trace\")");
        d->format_ok = true;
        return 0;
    }
    if (strcmp(key, "kernels") == 0)
        return read_kernels(r, d->g, t);
    if (strcmp(key, "gpu") == 0 && t == RL_TOK_LBRACE)
        return rl_jsr_read_object(r, &d->g->sum, gpu_field);
    if (strcmp(key, "counters") == 0 && t == RL_TOK_LBRACE)
        return rl_jsr_read_object(r, &d->g->sum, counters_field);
    if (strcmp(key, "incomplete") == 0 && (t == RL_TOK_TRUE || t == RL_TOK_FALSE)) {
        d->g->sum.incomplete = t == RL_TOK_TRUE;
        return 0;
    }
    if (strcmp(key, "notes") == 0 && t == RL_TOK_STRING)
        return string_into(r, t, d->g->sum.notes, sizeof d->g->sum.notes);
    if (strcmp(key, "program") == 0 && t == RL_TOK_STRING)
        return string_into(r, t, d->g->sum.program, sizeof d->g->sum.program);
    if (strcmp(key, "rank") == 0 && t == RL_TOK_LBRACE) {
        struct rl_trace_rank *k = &d->g->sum.rank;
        *k = (struct rl_trace_rank){.present = true, .rank = -1, .local_rank = -1,
                                    .world_size = -1};
        return rl_jsr_read_object(r, k, rank_field);
    }
    if (strcmp(key, "rank") == 0 && t != RL_TOK_NULL)
        return rl_jsr_fail(r, RL_ESCHEMA, "'rank' must be an object");
    return rl_jsr_skip_value(r, t);
}

int rl_trace_groups_read(struct rl_trace_groups *g, FILE *f, const char *what, char *errmsg)
{
    off_t start = ftello(f);
    struct rl_jsr r = {.f = f, .fd = -1, .base = start > 0 ? start : 0, .what = what, .line = 1,
                       .errmsg = errmsg};
    r.buf = rl_malloc(RL_JSR_BUF_BYTES);
    if (!r.buf)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    struct doc d = {g, false};
    enum rl_jsr_tok t = rl_jsr_next(&r);
    if (t != RL_TOK_LBRACE && !r.err)
        rl_jsr_fail(&r, RL_ESCHEMA, "not a roofline trace (expected a JSON object)");
    if (!r.err)
        rl_jsr_read_object(&r, &d, doc_field);
    if (!r.err && rl_jsr_next(&r) != RL_TOK_EOF)
        rl_jsr_fail(&r, RL_EPARSE, "text after the end of the document");
    if (!r.err && ferror(f))
        rl_jsr_fail(&r, RL_EIO, "cannot read: %s", strerror(rl_io_errno(f)));
    if (!r.err && !d.format_ok)
        rl_jsr_fail(&r, RL_ESCHEMA, "not a roofline trace (no \"format\": \"roofline-trace\")");
    free(r.buf);
    free(r.str);
    return r.err;
}

int rl_trace_groups_load(struct rl_trace_groups *g, const char *path, char *errmsg)
{
    bool in = strcmp(path, "-") == 0;
    FILE *f = rl_io_open_read(path);
    if (!f && errno == ENOMEM)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory opening '%s'", in ? "<stdin>" : path);
    if (!f)
        return rl_fail(errmsg, RL_EIO, "'%s': %s", in ? "<stdin>" : path, strerror(errno));
    int rc = rl_trace_groups_read(g, f, in ? "<stdin>" : path, errmsg);
    fclose(f);
    return rc;
}

int rl_trace_groups_reorder(struct rl_trace_groups *g, size_t first, const uint32_t *order)
{
    size_t n = g->n - first;
    struct rl_trace_group *v = rl_malloc((n + 1) * sizeof *v);
    if (!v)
        return RL_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = g->v[first + order[i]];
    memcpy(g->v + first, v, n * sizeof *v);
    free(v);
    /* the hash table holds indices: rebuilt at its size */
    size_t slots = g->slots;
    free(g->slot);
    g->slot = NULL;
    g->slots = slots / 2;
    return grow_slots(g);
}

void rl_trace_groups_release(struct rl_trace_groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->v[i].name);
        free(g->v[i].op);
        free(g->v[i].shapes);
    }
    free(g->v);
    free(g->slot);
    memset(g, 0, sizeof *g);
}

bool rl_trace_sniff(const char *text, size_t len)
{
    /* The writer puts "format" on the third line; look at the first 4 KB. */
    size_t n = len < 4096 ? len : 4096;
    const char *needle = "\"roofline-trace\"";
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(text + i, needle, k) == 0)
            return true;
    return false;
}

int rl_trace_file_sniff(const char *path, char *errmsg)
{
    char head[4096];
    size_t n;
    int rc = rl_file_head(path, head, sizeof head, &n, errmsg);
    if (rc == RL_EIO)
        return rc;
    return rc == RL_OK && rl_trace_sniff(head, n);
}
