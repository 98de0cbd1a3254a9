/* results.c - reading a `roofline comm --measure` file and the queries on it (bandwidth at a size, the curves, the copy matrices). */
#define _GNU_SOURCE
#include "analyzer/comm/results.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char rl__comm_schema[]; /* generated from data/schemas/comm.schema.json */

const char *rl_comm_schema_text(void)
{
    return rl__comm_schema;
}

void rl_comm_results_release(struct rl_comm_results *r)
{
    for (size_t i = 0; i < r->n_series; i++)
        free(r->series[i].points);
    for (size_t i = 0; i < r->n_copies; i++)
        free(r->copies[i].matrix_gbs);
    free(r->series);
    free(r->copies);
    free(r->hosts);
    free(r->devices);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

/* ---- reading: the schema has checked every type and name ------------ */

static void copy_str(char *dst, size_t n, const cJSON *obj, const char *key)
{
    const char *s = rl_json_string(obj, key);
    snprintf(dst, n, "%s", s ? s : "");
}

static double num(const cJSON *obj, const char *key)
{
    return rl_json_number(obj, key); /* NAN for null */
}

static int read_series(struct rl_comm_series *s, const cJSON *j)
{
    s->collective = (enum rl_collective)rl_collective_parse(rl_json_string(j, "collective"));
    s->gpus = (int)num(j, "gpus");
    s->nodes = (int)num(j, "nodes");
    copy_str(s->dtype, sizeof s->dtype, j, "dtype");
    copy_str(s->redop, sizeof s->redop, j, "redop");
    copy_str(s->note, sizeof s->note, j, "note");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "results");
    size_t n = (size_t)cJSON_GetArraySize(res);
    s->points = n ? rl_calloc(n, sizeof *s->points) : NULL;
    if (n && !s->points)
        return RL_ENOMEM;
    const cJSON *p;
    cJSON_ArrayForEach(p, res) {
        struct rl_comm_point *pt = &s->points[s->n++];
        pt->bytes = num(p, "bytes");
        pt->count = num(p, "count");
        pt->in_place = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "in_place"));
        pt->iters = (int)num(p, "iters");
        pt->time_us = num(p, "time_us");
        pt->time_max_us = num(p, "time_max_us");
        pt->algbw_gbs = num(p, "algbw_gbs");
        pt->busbw_gbs = num(p, "busbw_gbs");
        pt->pct_of_link = num(p, "pct_of_link");
        double w = num(p, "wrong");
        pt->wrong = isnan(w) ? -1 : (long long)w;
    }
    return RL_OK;
}

static int read_copy(struct rl_comm_copy *c, const cJSON *j, const char *what, char *errmsg)
{
    copy_str(c->kind, sizeof c->kind, j, "kind");
    copy_str(c->engine, sizeof c->engine, j, "engine");
    copy_str(c->direction, sizeof c->direction, j, "direction");
    copy_str(c->note, sizeof c->note, j, "note");
    c->bytes = num(j, "bytes");
    c->wrong = (long long)num(j, "wrong");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "matrix_gbs");
    c->rows = cJSON_GetArraySize(m);
    c->cols = cJSON_GetArraySize(cJSON_GetArrayItem(m, 0));
    const cJSON *row;
    cJSON_ArrayForEach(row, m)
        if (cJSON_GetArraySize(row) != c->cols)
            return rl_fail(errmsg, RL_ESCHEMA, "'%s': copies: %s %s %s: rows of different "
                           "lengths in matrix_gbs", what, c->kind, c->engine, c->direction);
    c->matrix_gbs = rl_calloc((size_t)c->rows * (size_t)c->cols, sizeof *c->matrix_gbs);
    if (!c->matrix_gbs)
        return RL_ENOMEM;
    int i = 0;
    cJSON_ArrayForEach(row, m) {
        const cJSON *v;
        cJSON_ArrayForEach(v, row)
            c->matrix_gbs[i++] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }
    return RL_OK;
}

static int read_doc(struct rl_comm_results *r, const cJSON *doc, const char *what, char *errmsg)
{
    copy_str(r->roofline_version, sizeof r->roofline_version, doc, "roofline_version");
    const cJSON *cond = cJSON_GetObjectItemCaseSensitive(doc, "conditions");
    copy_str(r->date, sizeof r->date, cond, "date");
    r->ranks = (int)num(cond, "ranks");
    r->nodes = (int)num(cond, "nodes");
    r->gpus_per_node = (int)num(cond, "gpus_per_node");
    copy_str(r->nccl_version, sizeof r->nccl_version, cond, "nccl_version");
    copy_str(r->cuda_runtime, sizeof r->cuda_runtime, cond, "cuda_runtime");
    copy_str(r->cuda_driver, sizeof r->cuda_driver, cond, "cuda_driver");
    copy_str(r->mpi, sizeof r->mpi, cond, "mpi");
    copy_str(r->launcher, sizeof r->launcher, cond, "launcher");
    r->iters = (int)num(cond, "iters");
    r->warmup = (int)num(cond, "warmup");
    double fewer = num(cond, "fewer_above_bytes");
    r->fewer_above_bytes = isnan(fewer) ? 0 : fewer;
    const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(cond, "hosts");
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(cond, "devices");
    const cJSON *colls = cJSON_GetObjectItemCaseSensitive(doc, "collectives");
    const cJSON *copies = cJSON_GetObjectItemCaseSensitive(doc, "copies");
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(doc, "notes");
    size_t nh = (size_t)cJSON_GetArraySize(hosts), nd = (size_t)cJSON_GetArraySize(devs);
    size_t ns = (size_t)cJSON_GetArraySize(colls), nc = (size_t)cJSON_GetArraySize(copies);
    size_t nn = (size_t)cJSON_GetArraySize(notes);
    r->hosts = rl_calloc(nh + 1, sizeof *r->hosts);
    r->devices = rl_calloc(nd + 1, sizeof *r->devices);
    r->series = rl_calloc(ns + 1, sizeof *r->series);
    r->copies = rl_calloc(nc + 1, sizeof *r->copies);
    r->notes = rl_calloc(nn + 1, sizeof *r->notes);
    if (!r->hosts || !r->devices || !r->series || !r->copies || !r->notes)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, hosts)
        snprintf(r->hosts[r->n_hosts++], sizeof r->hosts[0], "%s", e->valuestring);
    cJSON_ArrayForEach(e, devs) {
        struct rl_comm_device *d = &r->devices[r->n_devices++];
        d->rank = (int)num(e, "rank");
        d->device = (int)num(e, "device");
        copy_str(d->host, sizeof d->host, e, "host");
        copy_str(d->name, sizeof d->name, e, "name");
        copy_str(d->pci_bus_id, sizeof d->pci_bus_id, e, "pci_bus_id");
    }
    copy_str(r->gpu, sizeof r->gpu, doc, "gpu");
    copy_str(r->gpu_id, sizeof r->gpu_id, doc, "gpu_id");
    const cJSON *link = cJSON_GetObjectItemCaseSensitive(doc, "link");
    copy_str(r->link_name, sizeof r->link_name, link, "name");
    r->link_gbs = num(link, "gbs_per_direction");
    cJSON_ArrayForEach(e, colls) {
        struct rl_comm_series *s = &r->series[r->n_series++];
        if (read_series(s, e))
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        for (size_t k = 0; k + 1 < r->n_series; k++)
            if (r->series[k].collective == s->collective)
                return rl_fail(errmsg, RL_ESCHEMA, "'%s': collectives: %s appears twice", what,
                               rl_collective_name(s->collective));
    }
    cJSON_ArrayForEach(e, copies) {
        struct rl_comm_copy *c = &r->copies[r->n_copies++];
        int rc = read_copy(c, e, what, errmsg);
        if (rc)
            return rc == RL_ENOMEM ? rl_fail(errmsg, rc, "out of memory") : rc;
        const cJSON *names = cJSON_GetObjectItemCaseSensitive(e, "devices");
        if (r->n_copy_devices == 0) {
            const cJSON *nm;
            cJSON_ArrayForEach(nm, names)
                if (r->n_copy_devices < 16)
                    snprintf(r->copy_devices[r->n_copy_devices++], sizeof r->copy_devices[0],
                             "%s", nm->valuestring);
        }
    }
    cJSON_ArrayForEach(e, notes)
        snprintf(r->notes[r->n_notes++], sizeof r->notes[0], "%s", e->valuestring);
    const char *check = rl_json_string(doc, "check");
    r->check_failed = check && strcmp(check, "failed") == 0;
    return RL_OK;
}

int rl_comm_results_parse(struct rl_comm_results *r, const char *text, size_t len,
                          const char *what, char *errmsg)
{
    memset(r, 0, sizeof *r);
    cJSON *schema = NULL, *doc = NULL;
    const char *st = rl_comm_schema_text();
    int rc = rl_json_parse(st, strlen(st), "comm.schema.json (embedded)", &schema, errmsg);
    if (!rc)
        rc = rl_json_parse(text, len, what, &doc, errmsg);
    if (!rc)
        rc = rl_schema_check_text(schema, doc, text, len, what, errmsg);
    if (!rc)
        rc = read_doc(r, doc, what, errmsg);
    cJSON_Delete(doc);
    cJSON_Delete(schema);
    if (rc)
        rl_comm_results_release(r);
    return rc;
}

int rl_comm_results_load(struct rl_comm_results *r, const char *path, char *errmsg)
{
    char *text = NULL;
    size_t len = 0;
    memset(r, 0, sizeof *r);
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    rc = rl_comm_results_parse(r, text, len, path, errmsg);
    free(text);
    return rc;
}

/* ---- queries --------------------------------------------------------- */

const struct rl_comm_series *rl_comm_results_series(const struct rl_comm_results *r,
                                                    enum rl_collective c)
{
    for (size_t i = 0; i < r->n_series; i++)
        if (r->series[i].collective == c)
            return &r->series[i];
    return NULL;
}

/* Out-of-place points with a finite value of `algbw ? algbw : busbw`, by
 * bytes (the writer keeps them in order; a hand-written file may not). */
static size_t curve(const struct rl_comm_series *s, bool algbw, double *x, double *y, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; s && i < s->n; i++) {
        const struct rl_comm_point *p = &s->points[i];
        double v = algbw ? p->algbw_gbs : p->busbw_gbs;
        if (p->in_place || !isfinite(v) || !(p->bytes > 0))
            continue;
        /* Insertion by bytes, keeping the `max` smallest. */
        size_t k = n < max ? n : max;
        if (k > 0 && k == max && !(x[k - 1] > p->bytes)) {
            n++;
            continue;
        }
        if (k == max && k > 0)
            k--; /* the largest kept gives way */
        while (k > 0 && x[k - 1] > p->bytes) {
            x[k] = x[k - 1];
            y[k] = y[k - 1];
            k--;
        }
        if (max > 0) {
            x[k] = p->bytes;
            y[k] = v;
        }
        n++;
    }
    return n;
}

size_t rl_comm_series_curve(const struct rl_comm_series *s, bool algbw, double *bytes,
                            double *gbs, size_t max)
{
    if (!bytes || !gbs)
        max = 0;
    return curve(s, algbw, bytes, gbs, max);
}

/* Linear in log(bytes) between the measured sizes around `bytes`:
 * v = v0 + (v1 - v0) x (ln b - ln b0) / (ln b1 - ln b0); clamped to the
 * first and last values outside them. */
static double at(const struct rl_comm_results *r, enum rl_collective c, double bytes, bool algbw)
{
    const struct rl_comm_series *s = rl_comm_results_series(r, c);
    if (!s || !(bytes > 0))
        return NAN;
    size_t n = curve(s, algbw, NULL, NULL, 0);
    if (n == 0)
        return NAN;
    double *x = rl_malloc(n * sizeof *x), *y = rl_malloc(n * sizeof *y);
    double v = NAN;
    if (x && y) {
        curve(s, algbw, x, y, n);
        if (bytes <= x[0]) {
            v = y[0];
        } else if (bytes >= x[n - 1]) {
            v = y[n - 1];
        } else {
            size_t k = 1;
            while (x[k] < bytes)
                k++;
            double t = (log(bytes) - log(x[k - 1])) / (log(x[k]) - log(x[k - 1]));
            v = x[k] == x[k - 1] ? y[k] : y[k - 1] + (y[k] - y[k - 1]) * t;
        }
    }
    free(x);
    free(y);
    return v;
}

double rl_comm_results_busbw_gbs(const struct rl_comm_results *r, enum rl_collective c,
                                 double bytes)
{
    return at(r, c, bytes, false);
}

double rl_comm_results_algbw_gbs(const struct rl_comm_results *r, enum rl_collective c,
                                 double bytes)
{
    return at(r, c, bytes, true);
}

const struct rl_comm_copy *rl_comm_results_copy(const struct rl_comm_results *r, const char *kind,
                                                const char *engine, const char *direction)
{
    for (size_t i = 0; i < r->n_copies; i++) {
        const struct rl_comm_copy *c = &r->copies[i];
        if (strcmp(c->kind, kind) == 0 && strcmp(c->engine, engine) == 0 &&
            strcmp(c->direction, direction) == 0)
            return c;
    }
    return NULL;
}
