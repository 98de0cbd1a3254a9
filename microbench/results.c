/* results.c - benchmark results: statistics, accounting against the datasheet, cache plateaus, the JSON file. */
#define _POSIX_C_SOURCE 200809L
#include "microbench/results.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "dev"
#endif

/* ---- statistics ---------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rl_mb_stats_of(const double *v, int n, struct rl_mb_stats *out)
{
    memset(out, 0, sizeof *out);
    out->min = out->median = out->max = out->spread_pct = NAN;
    if (n <= 0)
        return;
    double *s = rl_malloc((size_t)n * sizeof *s);
    if (!s)
        return;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, by_value);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    out->spread_pct = out->median > 0 ? (out->max - out->min) / out->median * 100 : NAN;
    free(s);
}

/* ---- accounting ------------------------------------------------------------ */

double rl_mb_datasheet_clock(const struct rl_gpu_spec *spec, const struct rl_compute_roof *roof)
{
    if (roof->unit == RL_UNIT_TENSOR && roof->precision != RL_PREC_FP64)
        return spec->tensor_clock_mhz;
    return spec->boost_clock_mhz;
}

static bool is_bandwidth(enum rl_mb_kind k)
{
    return k == RL_MB_MEMORY || k == RL_MB_SHARED || k == RL_MB_CACHE || k == RL_MB_TRANSFER;
}

void rl_mb_account(const struct rl_mb_def *def, const struct rl_mb_raw *raw,
                   const struct rl_device_info *dev, const struct rl_gpu_spec *spec,
                   struct rl_mb_result *out)
{
    memset(out, 0, sizeof *out);
    out->def = def;
    out->raw = *raw;
    out->rate_best = out->rate_median = out->rate_worst = NAN;
    out->flop_per_clk_per_sm = out->datasheet = out->pct_of_datasheet = NAN;
    out->pct_of_clock_adjusted = NAN;
    out->rate_is_bandwidth = is_bandwidth(def->kind);
    out->clock_measured = raw->cond.nvml && raw->cond.sm_mhz_median > 0;
    out->clock_mhz = out->clock_measured ? raw->cond.sm_mhz_median : dev->sm_clock_max_mhz;
    out->clocks_stable = raw->cond.nvml && raw->cond.sm_mhz_median > 0 &&
                         (raw->cond.sm_mhz_max - raw->cond.sm_mhz_min) /
                                 raw->cond.sm_mhz_median < 0.03;
    rl_mb_stats_of(raw->time_ns, raw->n_reps, &out->time_ns);
    if (raw->status != RL_MB_OK)
        return;

    /* Rates. */
    double per = out->rate_is_bandwidth ? raw->bytes : raw->work;
    double scale = out->rate_is_bandwidth ? 1.0 : 1e-3; /* per ns: GB/s, or TFLOP/s */
    if (def->kind == RL_MB_SWEEP || def->kind == RL_MB_CACHE) {
        for (int i = 0; i < raw->n_points; i++) {
            const struct rl_mb_point *p = &raw->points[i];
            double rate = (def->kind == RL_MB_SWEEP ? p->work * 1e-3 : p->bytes) / p->time_ns;
            if (isnan(out->rate_best) || rate > out->rate_best)
                out->rate_best = rate;
        }
        out->rate_median = out->rate_worst = out->rate_best;
    } else if (out->time_ns.n > 0 && per > 0) {
        out->rate_best = per * scale / out->time_ns.min;
        out->rate_median = per * scale / out->time_ns.median;
        out->rate_worst = per * scale / out->time_ns.max;
    }
    if (def->kind == RL_MB_CACHE)
        out->n_plateaus = rl_mb_plateaus(raw->points, raw->n_points, dev->smem_per_sm_bytes,
                                         dev->l2_bytes, out->plateaus, RL_MB_MAX_PLATEAUS);
    if (!out->rate_is_bandwidth && out->clock_mhz > 0 && dev->sm_count > 0)
        out->flop_per_clk_per_sm =
            out->rate_median * 1e12 / (dev->sm_count * out->clock_mhz * 1e6);

    /* Against the datasheet. */
    if (!spec)
        return;
    if (out->rate_is_bandwidth) {
        int f = -1;
        if (def->roof && strcmp(def->roof, "dram") == 0)
            f = rl_spec_field_index("memory_bandwidth_gbs");
        else if (def->roof && strcmp(def->roof, "l1") == 0)
            f = rl_spec_field_index("l1_bandwidth_gbs");
        if (f >= 0) {
            out->datasheet = rl_gpu_spec_field_value(spec, (size_t)f);
            out->datasheet_origin = rl_gpu_spec_field_origin(spec, (size_t)f);
        } else if (def->kind == RL_MB_TRANSFER) {
            /* Datasheets give the link both ways: one direction is half. */
            out->datasheet = spec->host_link_bandwidth_gbs / 2;
            out->datasheet_origin = RL_ORIGIN_ANALYTIC;
        }
    } else if (def->roof) {
        struct rl_compute_roof roof;
        if (rl_roof_from_spec(spec, def->roof, false, &roof, NULL) == 0) {
            out->datasheet = roof.peak_tflops;
            out->datasheet_origin = roof.origin;
            double ds_clock = rl_mb_datasheet_clock(spec, &roof);
            if (ds_clock > 0 && out->clock_mhz > 0)
                out->pct_of_clock_adjusted =
                    out->rate_median / (roof.peak_tflops * out->clock_mhz / ds_clock) * 100;
        }
    }
    if (out->datasheet > 0) {
        out->pct_of_datasheet = out->rate_median / out->datasheet * 100;
        /* Above the roof at the clock the GPU actually ran is impossible; a
         * Tensor Core loop at 1980 MHz may pass a 1830 MHz datasheet. */
        double pct = isnan(out->pct_of_clock_adjusted) ? out->pct_of_datasheet
                                                       : out->pct_of_clock_adjusted;
        out->accounting_error = pct > 100;
    }
}

int rl_mb_plateaus(const struct rl_mb_point *p, int n, double l1_bytes, double l2_bytes,
                   struct rl_mb_plateau *out, int max)
{
    int count = 0, start = 0;
    double vals[RL_MB_MAX_POINTS];
    for (int i = 0; i <= n; i++) {
        bool end = i == n;
        if (!end) {
            double gbs = p[i].bytes / p[i].time_ns;
            int len = i - start;
            if (len > 0) {
                double tmp[RL_MB_MAX_POINTS];
                memcpy(tmp, vals, (size_t)len * sizeof *tmp);
                qsort(tmp, (size_t)len, sizeof *tmp, by_value);
                double med = len % 2 ? tmp[len / 2] : (tmp[len / 2 - 1] + tmp[len / 2]) / 2;
                end = fabs(gbs - med) > 0.2 * med;
            }
            if (!end) {
                vals[i - start] = gbs;
                continue;
            }
        }
        /* Close [start, i). */
        int len = i - start;
        if (len >= 2 && count < max) {
            struct rl_mb_plateau *pl = &out[count++];
            memset(pl, 0, sizeof *pl);
            qsort(vals, (size_t)len, sizeof *vals, by_value);
            pl->gbs = len % 2 ? vals[len / 2] : (vals[len / 2 - 1] + vals[len / 2]) / 2;
            pl->from_bytes = p[start].x;
            pl->to_bytes = p[i - 1].x;
            pl->n_points = len;
        }
        if (i < n) {
            start = i;
            vals[0] = p[i].bytes / p[i].time_ns;
        }
    }
    /* Name them: ends within L1 -> l1; within L2 -> l2 (a second one:
     * l2-far, the far partition); beyond -> dram. */
    bool seen_l2 = false;
    for (int k = 0; k < count; k++) {
        struct rl_mb_plateau *pl = &out[k];
        const char *name;
        if (l1_bytes > 0 && pl->to_bytes <= l1_bytes)
            name = "l1";
        else if (l2_bytes > 0 && pl->to_bytes <= l2_bytes * 1.05)
            name = seen_l2 ? "l2-far" : "l2";
        else if (l2_bytes > 0 && pl->from_bytes < l2_bytes)
            name = seen_l2 ? "l2-far" : "l2";
        else
            name = "dram";
        seen_l2 |= strncmp(name, "l2", 2) == 0;
        snprintf(pl->level, sizeof pl->level, "%s", name);
    }
    return count;
}

void rl_mb_throttle_names(unsigned long long mask, char *buf, size_t size)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{0x1, "gpu_idle"},
                 {0x2, "applications_clocks"},
                 {0x4, "sw_power_cap"},
                 {0x8, "hw_slowdown"},
                 {0x10, "sync_boost"},
                 {0x20, "sw_thermal"},
                 {0x40, "hw_thermal"},
                 {0x80, "hw_power_brake"},
                 {0x100, "display_clock"}};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (mask & names[i].bit) {
            int w = snprintf(buf + used, size - used, "%s%s", used ? "," : "", names[i].name);
            if (w < 0 || (size_t)w >= size - used)
                break;
            used += (size_t)w;
        }
}

/* ---- JSON ---------------------------------------------------------------- */

static const char *status_name(int s)
{
    switch (s) {
    case RL_MB_OK:
        return "ok";
    case RL_MB_UNSUPPORTED:
        return "unsupported";
    case RL_MB_CHECK_FAILED:
        return "check_failed";
    default:
        return "failed";
    }
}

static const char *kind_name(enum rl_mb_kind k)
{
    static const char *const names[] = {"compute", "memory", "shared", "cache",
                                        "transfer", "sweep", "library"};
    return names[k];
}

static double r6(double v) { return rl_json_round(v, 6); }

static cJSON *conditions_json(const struct rl_conditions *c, bool stable)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "nvml", c->nvml);
    cJSON_AddNumberToObject(o, "samples", c->n_samples);
    cJSON *sm = cJSON_AddObjectToObject(o, "sm_mhz");
    rl_json_add_number(sm, "min", c->sm_mhz_min);
    rl_json_add_number(sm, "median", c->sm_mhz_median);
    rl_json_add_number(sm, "max", c->sm_mhz_max);
    rl_json_add_number(o, "mem_mhz", c->mem_mhz_median);
    cJSON *pw = cJSON_AddObjectToObject(o, "power_w");
    rl_json_add_number(pw, "median", r6(c->power_w_median));
    rl_json_add_number(pw, "max", r6(c->power_w_max));
    rl_json_add_number(o, "temp_c_max", c->temp_c_max);
    char names[256];
    rl_mb_throttle_names(c->throttle_reasons, names, sizeof names);
    cJSON *arr = cJSON_AddArrayToObject(o, "throttle_reasons");
    for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save))
        cJSON_AddItemToArray(arr, cJSON_CreateString(t));
    cJSON_AddBoolToObject(o, "clocks_stable", stable);
    return o;
}

static cJSON *result_json(const struct rl_mb_result *r)
{
    const struct rl_mb_raw *raw = &r->raw;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", raw->name);
    cJSON_AddStringToObject(o, "kind", kind_name(r->def->kind));
    if (r->def->roof)
        cJSON_AddStringToObject(o, "roof", r->def->roof);
    cJSON_AddStringToObject(o, "status", status_name(raw->status));
    if (raw->status != RL_MB_OK) {
        cJSON_AddStringToObject(o, "reason", raw->reason);
        if (raw->status == RL_MB_UNSUPPORTED)
            return o;
    }
    cJSON_AddStringToObject(o, "instruction", raw->instruction);
    cJSON_AddStringToObject(o, "variant", raw->variant);
    cJSON_AddStringToObject(o, "check", raw->check);
    rl_json_add_number(o, "check_error", r6(raw->check_error));
    if (raw->work > 0)
        cJSON_AddNumberToObject(o, "work_flop", raw->work);
    if (raw->bytes > 0)
        cJSON_AddNumberToObject(o, "bytes", raw->bytes);
    if (raw->iters > 0)
        cJSON_AddNumberToObject(o, "iterations", (double)raw->iters);
    if (raw->threads > 0)
        cJSON_AddNumberToObject(o, "threads", (double)raw->threads);
    if (r->time_ns.n > 0) {
        cJSON *t = cJSON_AddObjectToObject(o, "time_ms");
        cJSON_AddNumberToObject(t, "reps", r->time_ns.n);
        rl_json_add_number(t, "min", r6(r->time_ns.min * 1e-6));
        rl_json_add_number(t, "median", r6(r->time_ns.median * 1e-6));
        rl_json_add_number(t, "max", r6(r->time_ns.max * 1e-6));
        rl_json_add_number(t, "spread_pct", rl_json_round(r->time_ns.spread_pct, 3));
        cJSON *all = cJSON_AddArrayToObject(t, "samples");
        for (int i = 0; i < raw->n_reps; i++)
            cJSON_AddItemToArray(all, cJSON_CreateNumber(r6(raw->time_ns[i] * 1e-6)));
    }
    cJSON *rate = cJSON_AddObjectToObject(o, r->rate_is_bandwidth ? "gbs" : "tflops");
    rl_json_add_number(rate, "best", r6(r->rate_best));
    rl_json_add_number(rate, "median", r6(r->rate_median));
    rl_json_add_number(rate, "worst", r6(r->rate_worst));
    if (!r->rate_is_bandwidth) {
        rl_json_add_number(o, "flop_per_clk_per_sm", r6(r->flop_per_clk_per_sm));
        rl_json_add_number(o, "clock_mhz", r->clock_mhz);
        cJSON_AddStringToObject(o, "clock_source",
                                r->clock_measured ? "measured (NVML median)"
                                                  : "maximum clock (no NVML)");
    }
    if (r->datasheet > 0) {
        cJSON *ds = cJSON_AddObjectToObject(o, "datasheet");
        cJSON_AddNumberToObject(ds, "value", r->datasheet);
        cJSON_AddStringToObject(ds, "unit", r->rate_is_bandwidth ? "GB/s" : "TFLOP/s");
        cJSON_AddStringToObject(ds, "origin", rl_origin_name(r->datasheet_origin));
        rl_json_add_number(o, "pct_of_datasheet", rl_json_round(r->pct_of_datasheet, 4));
        if (!r->rate_is_bandwidth)
            rl_json_add_number(o, "pct_of_clock_adjusted_peak",
                               rl_json_round(r->pct_of_clock_adjusted, 4));
        cJSON_AddBoolToObject(o, "accounting_error", r->accounting_error);
    }
    cJSON_AddItemToObject(o, "conditions", conditions_json(&raw->cond, r->clocks_stable));
    if (raw->n_points > 0) {
        cJSON *pts = cJSON_AddArrayToObject(o, "points");
        for (int i = 0; i < raw->n_points; i++) {
            const struct rl_mb_point *p = &raw->points[i];
            cJSON *q = cJSON_CreateObject();
            if (r->def->kind == RL_MB_SWEEP) {
                cJSON_AddNumberToObject(q, "k", p->x);
                rl_json_add_number(q, "ai_flop_per_byte", r6(p->work / p->bytes));
                rl_json_add_number(q, "tflops", r6(p->work / p->time_ns * 1e-3));
            } else {
                cJSON_AddNumberToObject(q, "working_set_bytes", p->x);
            }
            rl_json_add_number(q, "gbs", r6(p->bytes / p->time_ns));
            rl_json_add_number(q, "time_ms", r6(p->time_ns * 1e-6));
            cJSON_AddItemToArray(pts, q);
        }
    }
    if (r->n_plateaus > 0) {
        cJSON *pl = cJSON_AddArrayToObject(o, "plateaus");
        for (int i = 0; i < r->n_plateaus; i++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "level", r->plateaus[i].level);
            cJSON_AddNumberToObject(q, "from_bytes", r->plateaus[i].from_bytes);
            cJSON_AddNumberToObject(q, "to_bytes", r->plateaus[i].to_bytes);
            rl_json_add_number(q, "gbs", r6(r->plateaus[i].gbs));
            cJSON_AddItemToArray(pl, q);
        }
    }
    return o;
}

cJSON *rl_mb_session_json(const struct rl_mb_session *s)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddStringToObject(doc, "tool", "roofline " ROOFLINE_VERSION);
    cJSON_AddStringToObject(doc, "created", s->created);
    cJSON_AddStringToObject(doc, "mode", s->quick ? "quick" : "full");
    cJSON_AddStringToObject(doc, "origin", "measured");
    const struct rl_device_info *d = &s->dev;
    cJSON *g = cJSON_AddObjectToObject(doc, "gpu");
    cJSON_AddStringToObject(g, "name", d->name);
    if (s->spec)
        cJSON_AddStringToObject(g, "spec_id", s->spec->id);
    else
        cJSON_AddNullToObject(g, "spec_id");
    cJSON_AddStringToObject(g, "uuid", d->uuid);
    cJSON_AddStringToObject(g, "pci_bus_id", d->pci_bus_id);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    cJSON_AddStringToObject(g, "compute_capability", cc);
    cJSON_AddNumberToObject(g, "sm_count", d->sm_count);
    cJSON_AddNumberToObject(g, "sm_clock_max_mhz", d->sm_clock_max_mhz);
    cJSON_AddNumberToObject(g, "mem_clock_max_mhz", d->mem_clock_max_mhz);
    cJSON_AddNumberToObject(g, "mem_bus_bits", d->mem_bus_bits);
    cJSON_AddNumberToObject(g, "memory_bytes", d->mem_bytes);
    cJSON_AddNumberToObject(g, "l2_bytes", d->l2_bytes);
    cJSON_AddNumberToObject(g, "smem_per_sm_bytes", d->smem_per_sm_bytes);
    cJSON_AddStringToObject(g, "driver_version", d->driver_version);
    cJSON_AddNumberToObject(g, "cuda_driver_version", d->cuda_driver_version);
    cJSON_AddNumberToObject(g, "cuda_runtime_version", d->cuda_runtime_version);
    rl_json_add_number(g, "power_limit_w", d->power_limit_w);
    cJSON_AddStringToObject(g, "build", d->build);
    cJSON *arr = cJSON_AddArrayToObject(doc, "results");
    for (size_t i = 0; i < s->n; i++)
        cJSON_AddItemToArray(arr, result_json(&s->results[i]));
    return doc;
}

/* ---- reading a bench file back ------------------------------------------- */

static double median_rate(const cJSON *res, const char *key)
{
    return rl_json_number(cJSON_GetObjectItemCaseSensitive(res, key), "median");
}

static void set_memory(struct rl_bench_ceilings *c, enum rl_mem_level level, const char *label,
                       double gbs)
{
    if (!(gbs > 0))
        return;
    for (size_t i = 0; i < c->n_memory; i++)
        if (c->memory[i].level == level) {
            if (gbs > c->memory[i].bandwidth_gbs)
                c->memory[i].bandwidth_gbs = gbs;
            return;
        }
    struct rl_memory_roof *m = &c->memory[c->n_memory++];
    m->level = level;
    snprintf(m->label, sizeof m->label, "%s", label);
    m->bandwidth_gbs = gbs;
    m->origin = RL_ORIGIN_MEASURED;
}

int rl_bench_ceilings_load(const char *path, struct rl_bench_ceilings *out, char *errmsg)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    rc = rl_bench_ceilings_parse(text, len, path, out, errmsg);
    free(text);
    return rc;
}

int rl_bench_ceilings_parse(const char *text, size_t len, const char *path,
                            struct rl_bench_ceilings *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    cJSON *doc;
    int rc = rl_json_parse(text, len, path, &doc, errmsg);
    if (rc)
        return rc;
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(doc, "gpu");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
    if (rl_json_number(doc, "schema_version") != 1 || !cJSON_IsObject(gpu) ||
        !cJSON_IsArray(results)) {
        cJSON_Delete(doc);
        return rl_fail(errmsg, RL_ESCHEMA,
                       "'%s': line 1: not a roofline bench file (schema_version 1 with gpu "
                       "and results)", path);
    }
    const char *name = rl_json_string(gpu, "name"), *id = rl_json_string(gpu, "spec_id");
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", name ? name : "unknown GPU");
    snprintf(out->spec_id, sizeof out->spec_id, "%s", id ? id : "");
    const cJSON *res;
    cJSON_ArrayForEach(res, results) {
        const char *status = rl_json_string(res, "status"), *kind = rl_json_string(res, "kind");
        const char *roof = rl_json_string(res, "roof"), *rname = rl_json_string(res, "name");
        if (!status || strcmp(status, "ok") != 0 || !kind)
            continue;
        if ((strcmp(kind, "compute") == 0 || strcmp(kind, "library") == 0) && roof) {
            double tflops = median_rate(res, "tflops");
            struct rl_compute_roof r;
            if (!(tflops > 0) || rl_roof_describe(roof, &r) != 0)
                continue;
            bool library = strcmp(kind, "library") == 0;
            if (library) {
                snprintf(r.name, sizeof r.name, "%.16s-blas", roof);
                size_t u = strlen(r.label);
                snprintf(r.label + u, sizeof r.label - u, ", cuBLASLt");
            }
            r.peak_tflops = tflops;
            r.origin = RL_ORIGIN_MEASURED;
            bool merged = false;
            for (size_t i = 0; i < out->n_compute; i++)
                if (strcmp(out->compute[i].name, r.name) == 0) { /* fp8-e4m3 / e5m2 */
                    if (tflops > out->compute[i].peak_tflops)
                        out->compute[i].peak_tflops = tflops;
                    merged = true;
                }
            /* a full table still merges (above), drops only new roofs */
            if (!merged && out->n_compute < sizeof out->compute / sizeof out->compute[0])
                out->compute[out->n_compute++] = r;
        } else if (strcmp(kind, "memory") == 0) {
            set_memory(out, RL_MEM_DRAM, "DRAM", median_rate(res, "gbs"));
        } else if (strcmp(kind, "shared") == 0) {
            set_memory(out, RL_MEM_L1, "L1/shared", median_rate(res, "gbs"));
        } else if (strcmp(kind, "cache") == 0) {
            const cJSON *pl;
            cJSON_ArrayForEach(pl, cJSON_GetObjectItemCaseSensitive(res, "plateaus")) {
                const char *level = rl_json_string(pl, "level");
                double gbs = rl_json_number(pl, "gbs");
                if (level && strcmp(level, "l2") == 0)
                    set_memory(out, RL_MEM_L2, "L2", gbs);
                else if (level && strcmp(level, "l1") == 0)
                    set_memory(out, RL_MEM_L1, "L1/shared", gbs);
            }
        } else if (strcmp(kind, "sweep") == 0 && roof && out->n_sweeps < 4) {
            struct rl_bench_sweep *s = &out->sweeps[out->n_sweeps];
            snprintf(s->precision, sizeof s->precision, "%s", roof);
            const cJSON *p;
            cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(res, "points")) {
                double ai = rl_json_number(p, "ai_flop_per_byte");
                double tf = rl_json_number(p, "tflops");
                if (ai > 0 && tf > 0 && s->n < RL_MB_MAX_POINTS) {
                    s->ai_flop_per_byte[s->n] = ai;
                    s->tflops[s->n] = tf;
                    s->n++;
                }
            }
            if (s->n > 0)
                out->n_sweeps++;
        }
        (void)rname;
    }
    cJSON_Delete(doc);
    return RL_OK;
}
