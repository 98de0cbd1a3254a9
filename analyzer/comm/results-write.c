/* results-write.c - the rates of `roofline comm --measure` from the plugin's raw times, and the JSON file. */
#define _GNU_SOURCE
#include "analyzer/comm/results.h"

#include "analyzer/comm/plugin.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void version_of(char *buf, size_t n, int v, bool nccl)
{
    /* NCCL >= 2.9: major x 10000 + minor x 100 + patch; CUDA: major x 1000 + minor x 10. */
    if (v <= 0)
        snprintf(buf, n, "?");
    else if (nccl)
        snprintf(buf, n, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    else
        snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
}

/* The rates, in this one place:
 *   algbw = bytes / time                      (GB/s = 1e9 B/s, time in us: bytes / us / 1e3)
 *   busbw = algbw x bus factor(c, ranks)      (nccl-tests doc/PERFORMANCE.md)
 *   % of link = 100 x busbw / link GB/s per direction
 * busbw is comparable with the link's speed whatever the rank count; with
 * one rank the factor is 0 (all-reduce, all-gather, reduce-scatter,
 * all-to-all move nothing between GPUs), so % of link is not given. */
static void rates(struct rl_comm_point *p, enum rl_collective c, int ranks, double link_gbs)
{
    double factor = rl_collective_bus_factor(c, ranks);
    p->algbw_gbs = p->time_us > 0 ? p->bytes / p->time_us / 1e3 : NAN;
    p->busbw_gbs = p->algbw_gbs * factor;
    p->pct_of_link = link_gbs > 0 && factor > 0 ? 100 * p->busbw_gbs / link_gbs : NAN;
}

int rl_comm_results_from_raw(struct rl_comm_results *r, const struct rl_comm_raw *raw,
                             const char *gpu, const char *gpu_id, const char *link_name,
                             double link_gbs, const char *date, const char *version,
                             char *errmsg)
{
    memset(r, 0, sizeof *r);
    snprintf(r->roofline_version, sizeof r->roofline_version, "%s", version);
    snprintf(r->date, sizeof r->date, "%s", date);
    r->ranks = raw->ranks;
    r->nodes = raw->nodes;
    r->gpus_per_node = raw->gpus_per_node;
    version_of(r->nccl_version, sizeof r->nccl_version, raw->nccl_version, true);
    version_of(r->cuda_runtime, sizeof r->cuda_runtime, raw->cuda_runtime, false);
    version_of(r->cuda_driver, sizeof r->cuda_driver, raw->cuda_driver, false);
    snprintf(r->mpi, sizeof r->mpi, "%s", raw->mpi);
    snprintf(r->launcher, sizeof r->launcher, "%s", raw->launcher);
    r->iters = raw->iters;
    r->warmup = raw->warmup;
    r->fewer_above_bytes = raw->fewer_above_bytes;
    snprintf(r->gpu, sizeof r->gpu, "%s", gpu);
    snprintf(r->gpu_id, sizeof r->gpu_id, "%s", gpu_id);
    snprintf(r->link_name, sizeof r->link_name, "%s", link_name);
    r->link_gbs = link_gbs;
    size_t nd = (size_t)raw->n_devices;
    r->devices = rl_calloc(nd + 1, sizeof *r->devices);
    r->hosts = rl_calloc(nd + 1, sizeof *r->hosts);
    r->series = rl_calloc((size_t)raw->n_colls + 1, sizeof *r->series);
    r->copies = rl_calloc((size_t)raw->n_copies + 1, sizeof *r->copies);
    r->notes = rl_calloc((size_t)raw->n_notes + 2 * (size_t)raw->n_colls + 1, sizeof *r->notes);
    if (!r->devices || !r->hosts || !r->series || !r->copies || !r->notes)
        goto oom;
    for (size_t i = 0; i < nd; i++) {
        const struct rl_comm_raw_device *d = &raw->devices[i];
        struct rl_comm_device *o = &r->devices[r->n_devices++];
        o->rank = d->rank;
        o->device = d->device;
        snprintf(o->host, sizeof o->host, "%s", d->host);
        snprintf(o->name, sizeof o->name, "%s", d->name);
        snprintf(o->pci_bus_id, sizeof o->pci_bus_id, "%s", d->pci_bus_id);
        bool seen = false;
        for (size_t k = 0; k < r->n_hosts && !seen; k++)
            seen = strcmp(r->hosts[k], d->host) == 0;
        if (!seen)
            snprintf(r->hosts[r->n_hosts++], sizeof r->hosts[0], "%s", d->host);
    }
    for (int i = 0; i < raw->n_colls; i++) {
        const struct rl_comm_raw_coll *rc = &raw->colls[i];
        struct rl_comm_series *s = &r->series[r->n_series++];
        s->collective = (enum rl_collective)rc->collective;
        s->gpus = raw->ranks;
        s->nodes = raw->nodes;
        snprintf(s->dtype, sizeof s->dtype, "float");
        bool reduces = s->collective == RL_COLL_ALLREDUCE || s->collective == RL_COLL_REDUCESCATTER;
        snprintf(s->redop, sizeof s->redop, "%s", reduces ? "sum" : "");
        snprintf(s->note, sizeof s->note, "%s", rc->note);
        s->points = rl_calloc((size_t)rc->n_results + 1, sizeof *s->points);
        if (!s->points)
            goto oom;
        for (int k = 0; k < rc->n_results; k++) {
            const struct rl_comm_raw_result *x = &rc->results[k];
            struct rl_comm_point *p = &s->points[s->n++];
            p->bytes = x->bytes;
            p->count = (double)x->count;
            p->in_place = x->in_place;
            p->iters = x->iters;
            p->time_us = x->time_us;
            p->time_max_us = x->time_max_us;
            p->wrong = x->wrong;
            rates(p, s->collective, raw->ranks, link_gbs);
            if (p->wrong > 0)
                r->check_failed = true;
        }
        if (rc->note[0])
            snprintf(r->notes[r->n_notes++], sizeof r->notes[0], "%s: %s",
                     rl_collective_name(s->collective), rc->note);
    }
    for (int i = 0; i < raw->n_copies; i++) {
        const struct rl_comm_raw_copy *x = &raw->copies[i];
        struct rl_comm_copy *c = &r->copies[r->n_copies++];
        snprintf(c->kind, sizeof c->kind, "%s", x->kind);
        snprintf(c->engine, sizeof c->engine, "%s", x->engine);
        snprintf(c->direction, sizeof c->direction, "%s", x->direction);
        snprintf(c->note, sizeof c->note, "%s", x->note);
        c->bytes = x->bytes;
        c->rows = x->rows;
        c->cols = x->cols;
        c->wrong = x->wrong;
        c->matrix_gbs = rl_calloc((size_t)(x->rows * x->cols) + 1, sizeof *c->matrix_gbs);
        if (!c->matrix_gbs)
            goto oom;
        for (int a = 0; a < x->rows; a++)
            for (int b = 0; b < x->cols; b++)
                c->matrix_gbs[a * x->cols + b] = x->gbs[a][b];
        if (c->wrong > 0)
            r->check_failed = true;
    }
    r->n_copy_devices = raw->copy_gpus < 16 ? raw->copy_gpus : 16;
    for (int i = 0; i < r->n_copy_devices; i++)
        snprintf(r->copy_devices[i], sizeof r->copy_devices[i], "%s", raw->copy_devices[i]);
    for (int i = 0; i < raw->n_notes; i++)
        snprintf(r->notes[r->n_notes++], sizeof r->notes[0], "%s", raw->notes[i]);
    return RL_OK;
oom:
    rl_comm_results_release(r);
    return rl_fail(errmsg, RL_ENOMEM, "out of memory");
}

static cJSON *str_or_null(const char *s)
{
    return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void add_int_or_null(cJSON *o, const char *key, long long v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, (double)v);
}

cJSON *rl_comm_results_json(const struct rl_comm_results *r)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddStringToObject(doc, "kind", RL_COMM_KIND);
    cJSON_AddStringToObject(doc, "origin", "measured");
    cJSON_AddStringToObject(doc, "roofline_version", r->roofline_version);
    cJSON *cond = cJSON_AddObjectToObject(doc, "conditions");
    cJSON_AddStringToObject(cond, "date", r->date);
    cJSON *hosts = cJSON_AddArrayToObject(cond, "hosts");
    for (size_t i = 0; i < r->n_hosts; i++)
        cJSON_AddItemToArray(hosts, cJSON_CreateString(r->hosts[i]));
    cJSON_AddNumberToObject(cond, "ranks", r->ranks);
    cJSON_AddNumberToObject(cond, "nodes", r->nodes);
    cJSON_AddNumberToObject(cond, "gpus_per_node", r->gpus_per_node);
    cJSON_AddStringToObject(cond, "nccl_version", r->nccl_version);
    cJSON_AddStringToObject(cond, "cuda_runtime", r->cuda_runtime);
    cJSON_AddStringToObject(cond, "cuda_driver", r->cuda_driver);
    cJSON_AddItemToObject(cond, "mpi", str_or_null(r->mpi));
    cJSON_AddItemToObject(cond, "launcher", str_or_null(r->launcher));
    cJSON *devs = cJSON_AddArrayToObject(cond, "devices");
    for (size_t i = 0; i < r->n_devices; i++) {
        const struct rl_comm_device *d = &r->devices[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", d->rank);
        cJSON_AddStringToObject(o, "host", d->host);
        cJSON_AddNumberToObject(o, "device", d->device);
        cJSON_AddStringToObject(o, "name", d->name);
        cJSON_AddStringToObject(o, "pci_bus_id", d->pci_bus_id);
        cJSON_AddItemToArray(devs, o);
    }
    cJSON_AddNumberToObject(cond, "iters", r->iters);
    cJSON_AddNumberToObject(cond, "warmup", r->warmup);
    if (r->fewer_above_bytes > 0)
        cJSON_AddNumberToObject(cond, "fewer_above_bytes", r->fewer_above_bytes);
    cJSON_AddStringToObject(doc, "gpu", r->gpu);
    cJSON_AddItemToObject(doc, "gpu_id", str_or_null(r->gpu_id));
    cJSON *link = cJSON_AddObjectToObject(doc, "link");
    cJSON_AddStringToObject(link, "name", r->link_name);
    rl_json_add_number(link, "gbs_per_direction", r->link_gbs);
    cJSON_AddStringToObject(link, "origin", "datasheet");
    cJSON *colls = cJSON_AddArrayToObject(doc, "collectives");
    for (size_t i = 0; i < r->n_series; i++) {
        const struct rl_comm_series *s = &r->series[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "collective", rl_collective_name(s->collective));
        cJSON_AddNumberToObject(o, "gpus", s->gpus);
        cJSON_AddNumberToObject(o, "nodes", s->nodes);
        cJSON_AddStringToObject(o, "dtype", s->dtype);
        cJSON_AddItemToObject(o, "redop", str_or_null(s->redop));
        if (s->note[0])
            cJSON_AddStringToObject(o, "note", s->note);
        cJSON *res = cJSON_AddArrayToObject(o, "results");
        for (size_t k = 0; k < s->n; k++) {
            const struct rl_comm_point *p = &s->points[k];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "bytes", p->bytes);
            cJSON_AddNumberToObject(x, "count", p->count);
            cJSON_AddBoolToObject(x, "in_place", p->in_place);
            cJSON_AddNumberToObject(x, "iters", p->iters);
            rl_json_add_number(x, "time_us", rl_json_round(p->time_us, 6));
            rl_json_add_number(x, "time_max_us", rl_json_round(p->time_max_us, 6));
            rl_json_add_number(x, "algbw_gbs", rl_json_round(p->algbw_gbs, 6));
            rl_json_add_number(x, "busbw_gbs", rl_json_round(p->busbw_gbs, 6));
            rl_json_add_number(x, "pct_of_link", rl_json_round(p->pct_of_link, 6));
            add_int_or_null(x, "wrong", p->wrong);
            cJSON_AddItemToArray(res, x);
        }
        cJSON_AddItemToArray(colls, o);
    }
    cJSON *copies = cJSON_AddArrayToObject(doc, "copies");
    for (size_t i = 0; i < r->n_copies; i++) {
        const struct rl_comm_copy *c = &r->copies[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", c->kind);
        cJSON_AddStringToObject(o, "engine", c->engine);
        cJSON_AddStringToObject(o, "direction", c->direction);
        cJSON_AddNumberToObject(o, "bytes", c->bytes);
        cJSON *names = cJSON_AddArrayToObject(o, "devices");
        for (int k = 0; k < r->n_copy_devices; k++)
            cJSON_AddItemToArray(names, cJSON_CreateString(r->copy_devices[k]));
        cJSON *m = cJSON_AddArrayToObject(o, "matrix_gbs");
        for (int a = 0; a < c->rows; a++) {
            cJSON *row = cJSON_CreateArray();
            for (int b = 0; b < c->cols; b++) {
                double v = c->matrix_gbs[a * c->cols + b];
                cJSON_AddItemToArray(row, isfinite(v) ? cJSON_CreateNumber(rl_json_round(v, 5))
                                                      : cJSON_CreateNull());
            }
            cJSON_AddItemToArray(m, row);
        }
        cJSON_AddNumberToObject(o, "wrong", (double)c->wrong);
        if (c->note[0])
            cJSON_AddStringToObject(o, "note", c->note);
        cJSON_AddItemToArray(copies, o);
    }
    cJSON_AddStringToObject(doc, "check", r->check_failed ? "failed" : "passed");
    cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
    for (size_t i = 0; i < r->n_notes; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
    return doc;
}
