/* records.c - kernel records (name, FLOPs, bytes per level, time) and their JSON files. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/readers/records.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/strbuf.h"
#include "analyzer/readers/tracefile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_record_list_push(struct rl_record_list *l, const struct rl_kernel_record *r)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct rl_kernel_record *v = rl_realloc(l->v, cap * sizeof *v);
        if (!v)
            return RL_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    char *name = rl_strdup(r->name ? r->name : "");
    if (!name)
        return RL_ENOMEM;
    l->v[l->n] = *r;
    l->v[l->n].name = name;
    l->n++;
    return RL_OK;
}

void rl_record_list_release(struct rl_record_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Parse state for error messages. */
struct ctx {
    const char *text, *what;
    size_t len;
    const char *array_key; /* "kernels" or NULL for a bare array */
    int index;
    const char *name;
    char *errmsg;
};

/* Fail at record c->index (and at its key loc_key when not NULL). */
static int bad(struct ctx *c, const char *loc_key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct ctx *c, const char *loc_key, const char *fmt, ...)
{
    struct rl_json_path p = {0};
    if (c->array_key) {
        p.step[p.depth].key = c->array_key;
        p.depth++;
    }
    p.step[p.depth].key = NULL;
    p.step[p.depth].index = c->index;
    p.depth++;
    if (loc_key) {
        p.step[p.depth].key = loc_key;
        p.depth++;
    }
    int line = rl_json_locate_line(c->text, c->len, &p);
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rl_fail(c->errmsg, RL_ESCHEMA, "'%s': line %d: %s[%d]%s%.80s%s: %s", c->what,
                   line, c->array_key ? c->array_key : "", c->index,
                   c->name ? " '" : "", c->name ? c->name : "", c->name ? "'" : "",
                   what);
}

/* A non-negative finite number at key; NAN when absent. */
static int get_quantity(struct ctx *c, const cJSON *o, const char *key,
                        bool required, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NAN;
    if (!v || cJSON_IsNull(v)) {
        if (required)
            return bad(c, NULL, "missing '%s'", key);
        return RL_OK;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || isinf(v->valuedouble))
        return bad(c, key, "'%s' must be a number >= 0", key);
    *out = v->valuedouble;
    return RL_OK;
}

static const char *const known_keys[] = {
    "name", "flops", "bytes", "dram_bytes", "l2_bytes", "l1_bytes", "time_ns",
    "count", "precision", "origin", "comm_bytes", NULL};

static int parse_record(struct ctx *c, const cJSON *o, struct rl_kernel_record *r)
{
    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(o))
        return bad(c, NULL, "expected an object {name, flops, bytes, time_ns}");
    const cJSON *it;
    cJSON_ArrayForEach(it, o) {
        int known = 0;
        for (int i = 0; known_keys[i]; i++)
            known |= strcmp(it->string, known_keys[i]) == 0;
        /* Unknown keys are allowed (traces carry more), except likely typos
         * of the keys that matter. */
        const char *near = NULL;
        for (int i = 0; !known && known_keys[i] && !near; i++)
            if (rl_edit_distance(it->string, known_keys[i]) <= 2)
                near = known_keys[i];
        if (!known && (near || strstr(it->string, "flop") || strstr(it->string, "byte")))
            return bad(c, it->string, "unknown key '%s' (did you mean '%s'?)", it->string,
                       near ? near : strstr(it->string, "flop") ? "flops" : "bytes");
    }
    const char *name = rl_json_string(o, "name");
    if (!name)
        return bad(c, NULL, "missing 'name'");
    c->name = name;
    r->name = (char *)name;
    int rc;
    if ((rc = get_quantity(c, o, "flops", true, &r->perf.flops)))
        return rc;
    double bytes, dram_bytes;
    if ((rc = get_quantity(c, o, "bytes", false, &bytes)) ||
        (rc = get_quantity(c, o, "dram_bytes", false, &dram_bytes)))
        return rc;
    if (!isnan(bytes) && !isnan(dram_bytes) && bytes != dram_bytes)
        return bad(c, "dram_bytes", "'bytes' and 'dram_bytes' disagree: give one");
    r->perf.bytes[RL_MEM_DRAM] = isnan(bytes) ? dram_bytes : bytes;
    if ((rc = get_quantity(c, o, "l2_bytes", false, &r->perf.bytes[RL_MEM_L2])) ||
        (rc = get_quantity(c, o, "l1_bytes", false, &r->perf.bytes[RL_MEM_L1])) ||
        (rc = get_quantity(c, o, "time_ns", false, &r->perf.time_ns)) ||
        (rc = get_quantity(c, o, "comm_bytes", false, &r->comm_bytes)))
        return rc;
    if (isnan(r->perf.bytes[RL_MEM_DRAM]) && isnan(r->perf.bytes[RL_MEM_L2]) &&
        isnan(r->perf.bytes[RL_MEM_L1]))
        return bad(c, NULL, "missing 'bytes' (or dram_bytes, l2_bytes, l1_bytes)");
    double count;
    if ((rc = get_quantity(c, o, "count", false, &count)))
        return rc;
    if (!isnan(count) && (count < 1 || count != floor(count) || count > 1e15))
        return bad(c, "count", "'count' must be a whole number from 1 to 1e15");
    r->count = isnan(count) ? 1 : (uint64_t)count;
    const char *prec = rl_json_string(o, "precision");
    if (prec)
        snprintf(r->precision, sizeof r->precision, "%s", prec);
    const char *origin = rl_json_string(o, "origin");
    r->origin = RL_ORIGIN_MEASURED;
    if (origin && strcmp(origin, "analytic") == 0)
        r->origin = RL_ORIGIN_ANALYTIC;
    else if (origin && strcmp(origin, "measured") != 0)
        return bad(c, "origin", "'origin' must be \"measured\" or \"analytic\"");
    return RL_OK;
}

/* A trace: one record per kernel name, grid and block, from its counted
 * launches (tracefile.c reads it in one streaming pass). */
static int trace_records(struct rl_record_list *l, struct rl_trace_groups *gp, int rc,
                         const char *what, char *errmsg)
{
    struct rl_trace_groups g = *gp;
    size_t first = l->n;
    for (size_t i = 0; i < g.n && rc == RL_OK; i++) {
        const struct rl_trace_group *t = &g.v[i];
        if (!t->counted)
            continue;
        struct rl_kernel_record r;
        memset(&r, 0, sizeof r);
        r.name = t->name;
        snprintf(r.precision, sizeof r.precision, "%s", t->precision);
        r.perf.flops = t->flops;
        for (int m = 0; m < RL_MEM_COUNT; m++)
            r.perf.bytes[m] = t->bytes[m];
        /* A rate needs the time of every launch whose FLOPs are summed. */
        r.perf.time_ns = t->counted_timed == t->counted ? t->counted_time_ns : NAN;
        r.count = t->counted;
        r.origin = t->origin;
        snprintf(r.signature, sizeof r.signature, "grid %ux%ux%u block %ux%ux%u", t->grid[0],
                 t->grid[1], t->grid[2], t->block[0], t->block[1], t->block[2]);
        if (rl_record_list_push(l, &r))
            rc = rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", what);
    }
    if (rc == RL_OK && l->n == first)
        rc = rl_fail(errmsg, RL_ESCHEMA,
                     "'%s': none of its %llu kernels has FLOPs and bytes: a timing-only trace "
                     "(run `roofline trace` with --metrics default, where counters are allowed)",
                     what, (unsigned long long)g.sum.kernels);
    rl_trace_groups_release(&g);
    return rc;
}

static int parse_trace(struct rl_record_list *l, const char *text, size_t len, const char *what,
                       char *errmsg)
{
    FILE *f = fmemopen((void *)text, len, "r");
    if (!f)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", what);
    struct rl_trace_groups g = {0};
    int rc = rl_trace_groups_read(&g, f, what, errmsg);
    fclose(f);
    return trace_records(l, &g, rc, what, errmsg);
}

static int load_trace(struct rl_record_list *l, const char *path, char *errmsg)
{
    struct rl_trace_groups g = {0};
    int rc = rl_trace_groups_load(&g, path, errmsg);
    return trace_records(l, &g, rc, path, errmsg);
}

int rl_records_parse(struct rl_record_list *l, const char *text, size_t len,
                     const char *what, char *errmsg)
{
    if (rl_trace_sniff(text, len))
        return parse_trace(l, text, len, what, errmsg);
    cJSON *doc;
    int rc = rl_json_parse(text, len, what, &doc, errmsg);
    if (rc)
        return rc;
    struct ctx c = {text, what, len, NULL, 0, NULL, errmsg};
    const cJSON *arr = doc;
    if (cJSON_IsObject(doc)) {
        arr = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
        c.array_key = "kernels";
    }
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(doc);
        return rl_fail(errmsg, RL_ESCHEMA,
                       "'%s': line 1: expected a JSON array of kernels or an "
                       "object with a \"kernels\" array", what);
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        struct rl_kernel_record r;
        c.name = NULL;
        rc = parse_record(&c, it, &r);
        if (rc == RL_OK && rl_record_list_push(l, &r) != RL_OK)
            rc = rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", what);
        if (rc)
            break;
        c.index++;
    }
    cJSON_Delete(doc);
    return rc;
}

int rl_records_load(struct rl_record_list *l, const char *path, char *errmsg)
{
    /* A trace may be far larger than memory allows as a DOM: stream it. */
    int trace = rl_trace_file_sniff(path, errmsg);
    if (trace < 0)
        return trace;
    if (trace)
        return load_trace(l, path, errmsg);
    char *text;
    size_t len;
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    rc = rl_records_parse(l, text, len, path, errmsg);
    free(text);
    return rc;
}

int rl_records_load_groups(struct rl_trace_groups *g, const char *path, char *errmsg)
{
    /* A trace: the trace reader, every group (timing-only ones too). */
    int trace = rl_trace_file_sniff(path, errmsg);
    if (trace < 0)
        return trace;
    if (trace)
        return rl_trace_groups_load(g, path, errmsg);
    struct rl_record_list l = {0};
    int rc = rl_records_load(&l, path, errmsg);
    for (size_t i = 0; i < l.n && rc == RL_OK; i++) {
        const struct rl_kernel_record *k = &l.v[i];
        rc = rl_trace_groups_add_comm(g, k->name, NULL, NULL, k->precision, k->origin,
                                      k->count, k->perf.flops, k->perf.bytes, k->perf.time_ns,
                                      k->comm_bytes);
        if (rc) /* the groups' own failure (out of memory) says nothing of the file */
            rl_fail(errmsg, rc, "%s reading '%s'", rl_strerror(rc), path);
    }
    rl_record_list_release(&l);
    return rc;
}
