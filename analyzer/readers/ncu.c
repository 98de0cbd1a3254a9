/* ncu.c - imports Nsight Compute CSV exports (long `ncu --csv` and wide `--page raw`) as kernel groups.
 *
 * Long form: one row per metric, with "ID", "Kernel Name", "Block Size",
 * "Grid Size", "Metric Name", "Metric Unit", "Metric Value" columns; rows of
 * one kernel result share an ID. Wide form (`--page raw`): one row per
 * kernel, one column per metric, units in the row under the header. Lines
 * before the header (==PROF== logs) are skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/readers/ncu.h"

#include "analyzer/readers/counts.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 4096

/* ---- CSV ------------------------------------------------------------------- */

struct csv {
    const char *p, *end;
    int line;          /* of the next row */
    char *buf;         /* the current row's fields, unescaped, NUL-separated */
    size_t cap;
    char *field[MAX_FIELDS];
    int n;
};

/* Read the next row into c->field; 1 row, 0 end, -1 malformed (errmsg set). */
static int csv_row(struct csv *c, const char *what, int *row_line, char *errmsg)
{
    if (c->p >= c->end)
        return 0;
    *row_line = c->line;
    size_t used = 0;
    c->n = 0;
    bool more = true;
    while (more) {
        if (c->n == MAX_FIELDS) {
            rl_fail(errmsg, RL_EPARSE, "'%s': line %d: more than %d columns", what, *row_line,
                    MAX_FIELDS);
            return -1;
        }
        /* A field never unescapes to more than the rest of the text. */
        size_t rest = (size_t)(c->end - c->p) + 1;
        if (used + rest > c->cap) {
            size_t cap = c->cap ? c->cap : 4096;
            while (cap < used + rest)
                cap *= 2;
            char *b = realloc(c->buf, cap);
            if (!b) {
                rl_fail(errmsg, RL_ENOMEM, "out of memory");
                return -1;
            }
            /* Re-point fields into the moved buffer. */
            for (int i = 0; i < c->n; i++)
                c->field[i] = b + (c->field[i] - c->buf);
            c->buf = b;
            c->cap = cap;
        }
        char *out = c->buf + used;
        c->field[c->n++] = out;
        size_t k = 0;
        if (c->p < c->end && *c->p == '"') {
            c->p++;
            for (;;) {
                if (c->p >= c->end) {
                    rl_fail(errmsg, RL_EPARSE, "'%s': line %d: a quoted field never ends", what,
                            *row_line);
                    return -1;
                }
                char ch = *c->p++;
                if (ch == '"') {
                    if (c->p < c->end && *c->p == '"') {
                        out[k++] = '"';
                        c->p++;
                        continue;
                    }
                    break;
                }
                if (ch == '\n')
                    c->line++;
                out[k++] = ch;
            }
            if (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
                rl_fail(errmsg, RL_EPARSE, "'%s': line %d: text after a closing quote", what,
                        c->line);
                return -1;
            }
        } else {
            while (c->p < c->end && *c->p != ',' && *c->p != '\n')
                out[k++] = *c->p++;
            if (k && out[k - 1] == '\r')
                k--;
        }
        if (c->p < c->end && *c->p == '\r')
            c->p++;
        out[k] = 0;
        used += k + 1;
        if (c->p < c->end && *c->p == ',') {
            c->p++;
        } else {
            more = false;
            if (c->p < c->end && *c->p == '\n') {
                c->p++;
                c->line++;
            }
        }
    }
    return 1;
}

/* ---- values ---------------------------------------------------------------- */

/* A value in base units (bytes, ns, counts); NAN for "", "n/a". -1 malformed. */
static int value(const char *text, const char *unit, double *out)
{
    char digits[64];
    size_t k = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ',' || *p == ' ')
            continue; /* thousands separators */
        if (k + 1 >= sizeof digits)
            return -1;
        digits[k++] = *p;
    }
    digits[k] = 0;
    if (k == 0 || strcasecmp(digits, "n/a") == 0 || strcmp(digits, "-") == 0) {
        *out = NAN;
        return 0;
    }
    char *end;
    double v = strtod(digits, &end);
    if (*end || !isfinite(v))
        return -1;
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"byte", 1},          {"kbyte", 1e3},      {"mbyte", 1e6},
                 {"gbyte", 1e9},       {"tbyte", 1e12},     {"kibyte", 1024.0},
                 {"mibyte", 1048576.0}, {"gibyte", 1073741824.0},
                 {"nsecond", 1},       {"usecond", 1e3},    {"msecond", 1e6},
                 {"second", 1e9}};
    double scale = 1;
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(unit, units[i].unit) == 0)
            scale = units[i].scale;
    *out = v * scale;
    return 0;
}

/* "(256, 1, 1)" */
static void dims(const char *text, uint32_t *out)
{
    out[0] = out[1] = out[2] = 0;
    const char *p = text;
    for (int i = 0; i < 3 && *p; i++) {
        while (*p && !isdigit((unsigned char)*p))
            p++;
        out[i] = (uint32_t)strtoul(p, (char **)&p, 10);
    }
}

/* ---- kernels --------------------------------------------------------------- */

/* Quantity terms by metric name. */
struct term {
    char name[96];
    int q;
};

static size_t build_terms(struct term *t, size_t max)
{
    size_t nq, n = 0;
    const struct rl_q_def *d = rl_q_defs(&nq);
    for (size_t q = 0; q < nq; q++)
        for (int c = 0; c < RL_Q_MAX_CANDIDATES && d[q].candidates[c]; c++)
            for (const char *p = d[q].candidates[c]; *p && n < max;) {
                size_t k = strcspn(p, "+");
                snprintf(t[n].name, sizeof t[n].name, "%.*s", (int)k, p);
                t[n++].q = (int)q;
                p += k + (p[k] == '+');
            }
    return n;
}

struct kernel {
    char id[32];
    char name[1024];
    uint32_t grid[3], block[3];
    double q[RL_Q_COUNT];
    double dram_total;      /* dram__bytes.sum, when read/write are absent */
    bool any;
};

struct importer {
    struct rl_trace_groups *g;
    double factor;
    struct rl_ncu_stats *stats;
    struct term terms[64];
    size_t n_terms;
};

static void kernel_reset(struct kernel *k)
{
    memset(k, 0, sizeof *k);
    for (int i = 0; i < RL_Q_COUNT; i++)
        k->q[i] = NAN;
    k->dram_total = NAN;
}

static void kernel_metric(struct importer *im, struct kernel *k, const char *metric, double v)
{
    if (isnan(v))
        return;
    if (strcmp(metric, "dram__bytes.sum") == 0) {
        k->dram_total = v;
        return;
    }
    for (size_t i = 0; i < im->n_terms; i++)
        if (strcmp(im->terms[i].name, metric) == 0) {
            double *q = &k->q[im->terms[i].q];
            *q = isnan(*q) ? v : *q + v;
            k->any = true;
            return;
        }
}

static int kernel_flush(struct importer *im, struct kernel *k)
{
    if (!k->name[0])
        return RL_OK;
    if (isnan(k->q[RL_Q_DRAM_READ]) && isnan(k->q[RL_Q_DRAM_WRITE]) && !isnan(k->dram_total)) {
        k->q[RL_Q_DRAM_READ] = k->dram_total; /* the total, read and write together */
        k->q[RL_Q_DRAM_WRITE] = 0;
    }
    struct rl_kernel_counts c;
    rl_counts_derive(k->q, im->factor, &c);
    double bytes[RL_MEM_COUNT] = {c.dram_bytes, c.l2_bytes, c.l1_bytes};
    bool have_bytes = !isnan(bytes[0]) || !isnan(bytes[1]) || !isnan(bytes[2]);
    double flops = have_bytes ? c.flops : NAN;
    im->stats->kernels++;
    bool tensor = false;
    size_t nq;
    const struct rl_q_def *d = rl_q_defs(&nq);
    for (size_t q = 0; q < nq; q++)
        tensor |= d[q].roof && k->q[q] > 0;
    if (tensor && isnan(im->factor))
        im->stats->tensor_unknown++;
    if (isnan(flops))
        im->stats->without_counts++;
    int rc = rl_trace_groups_add(im->g, k->name, k->grid, k->block,
                                 isnan(flops) ? "" : c.precision ? c.precision : "",
                                 RL_ORIGIN_MEASURED, 1, flops, bytes, k->q[RL_Q_TIME_NS]);
    kernel_reset(k);
    return rc;
}

static int column(const struct csv *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->field[i], name) == 0)
            return i;
    return -1;
}

int rl_ncu_parse(struct rl_trace_groups *g, const char *text, size_t len, const char *what,
                 double tensor_flops_per_op, struct rl_ncu_stats *stats, char *errmsg)
{
    struct rl_ncu_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    struct csv c = {text, text + len, 1, NULL, 0, {0}, 0};
    struct importer im = {g, tensor_flops_per_op, stats, {{{0}, 0}}, 0};
    im.n_terms = build_terms(im.terms, sizeof im.terms / sizeof im.terms[0]);
    int line = 0, r;
    int id_col = -1, name_col = -1, grid_col = -1, block_col = -1, mname = -1, munit = -1,
        mvalue = -1, ncols = 0;
    /* The header: the first row starting with "ID" that names the kernel. */
    while ((r = csv_row(&c, what, &line, errmsg)) == 1) {
        if (c.n > 1 && strcmp(c.field[0], "ID") == 0 && column(&c, "Kernel Name") >= 0)
            break;
    }
    if (r < 0) {
        free(c.buf);
        return RL_EPARSE;
    }
    if (r == 0) {
        free(c.buf);
        return rl_fail(errmsg, RL_ESCHEMA,
                       "'%s': no Nsight Compute CSV header (a row starting with \"ID\" and "
                       "naming \"Kernel Name\"): export with `ncu --csv` or `ncu --csv --page raw`",
                       what);
    }
    id_col = column(&c, "ID");
    name_col = column(&c, "Kernel Name");
    grid_col = column(&c, "Grid Size");
    block_col = column(&c, "Block Size");
    mname = column(&c, "Metric Name");
    munit = column(&c, "Metric Unit");
    mvalue = column(&c, "Metric Value");
    ncols = c.n;
    bool long_form = mname >= 0 && mvalue >= 0;
    snprintf(stats->form, sizeof stats->form, "%s", long_form ? "long" : "wide");
    /* Wide form: the metric columns and, in the next row, their units. */
    char **headers = NULL, **units = NULL;
    int *metric_cols = NULL, n_metric = 0;
    int rc = RL_OK;
    if (!long_form) {
        headers = calloc((size_t)ncols, sizeof *headers);
        units = calloc((size_t)ncols, sizeof *units);
        metric_cols = calloc((size_t)ncols, sizeof *metric_cols);
        if (!headers || !units || !metric_cols)
            rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
        for (int i = 0; i < ncols && rc == RL_OK; i++) {
            if (!(headers[i] = strdup(c.field[i])))
                rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
            else if (strstr(headers[i], "__"))
                metric_cols[n_metric++] = i;
        }
        if (rc == RL_OK && n_metric == 0)
            rc = rl_fail(errmsg, RL_ESCHEMA,
                         "'%s': line %d: no metric columns (names like dram__bytes_read.sum) "
                         "and no \"Metric Name\" column",
                         what, line);
    }
    struct kernel k;
    kernel_reset(&k);
    bool units_seen = long_form;
    while (rc == RL_OK && (r = csv_row(&c, what, &line, errmsg)) == 1) {
        if (c.n == 1 && !c.field[0][0])
            continue; /* a blank line */
        if (c.n != ncols) {
            rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: %d columns, the header has %d", what,
                         line, c.n, ncols);
            break;
        }
        if (!units_seen && !c.field[id_col][0]) { /* the units row */
            for (int i = 0; i < ncols && rc == RL_OK; i++)
                if (!(units[i] = strdup(c.field[i])))
                    rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
            units_seen = true;
            continue;
        }
        units_seen = true;
        if (strcmp(k.id, c.field[id_col]) != 0 && (rc = kernel_flush(&im, &k)))
            break;
        snprintf(k.id, sizeof k.id, "%s", c.field[id_col]);
        snprintf(k.name, sizeof k.name, "%s", c.field[name_col]);
        if (grid_col >= 0)
            dims(c.field[grid_col], k.grid);
        if (block_col >= 0)
            dims(c.field[block_col], k.block);
        if (long_form) {
            double v;
            if (value(c.field[mvalue], munit >= 0 ? c.field[munit] : NULL, &v)) {
                rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: %s: '%s' is not a number", what,
                             line, c.field[mname], c.field[mvalue]);
                break;
            }
            kernel_metric(&im, &k, c.field[mname], v);
        } else {
            for (int j = 0; j < n_metric && rc == RL_OK; j++) {
                int col = metric_cols[j];
                double v;
                if (value(c.field[col], units[col], &v))
                    rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: %s: '%s' is not a number",
                                 what, line, headers[col], c.field[col]);
                else
                    kernel_metric(&im, &k, headers[col], v);
            }
            if (rc == RL_OK)
                rc = kernel_flush(&im, &k); /* one row, one kernel */
        }
    }
    if (r < 0 && rc == RL_OK)
        rc = RL_EPARSE;
    if (rc == RL_OK)
        rc = kernel_flush(&im, &k);
    if (rc == RL_ENOMEM)
        rl_fail(errmsg, rc, "out of memory");
    if (rc == RL_OK && stats->kernels == 0)
        rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': the CSV holds no kernel", what);
    for (int i = 0; headers && i < ncols; i++) {
        free(headers[i]);
        free(units[i]);
    }
    free(headers);
    free(units);
    free(metric_cols);
    free(c.buf);
    return rc;
}

int rl_ncu_load(struct rl_trace_groups *g, const char *path, double tensor_flops_per_op,
                struct rl_ncu_stats *stats, char *errmsg)
{
    char *text;
    size_t len;
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    rc = rl_ncu_parse(g, text, len, path, tensor_flops_per_op, stats, errmsg);
    free(text);
    return rc;
}
