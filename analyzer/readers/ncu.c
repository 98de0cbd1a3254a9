/* ncu.c - imports Nsight Compute CSV exports (long `ncu --csv` and wide `--page raw`) as kernel groups.
 *
 * Long form: one row per metric, with "ID", "Kernel Name", "Block Size",
 * "Grid Size", "Metric Name", "Metric Unit", "Metric Value" columns (and
 * more: process, device, section, rule columns); rows of one kernel result
 * share an ID, and a row with no rule result may end before the trailing
 * rule columns. Wide form (`--page raw`): one row per kernel, one column per
 * metric, units in a row under the header (where ncu writes one); many
 * columns hold text (device__attribute_display_name, launch attributes).
 *
 * Only the metrics roofline uses are read as numbers; every other column is
 * text and is not judged. Lines before the header and ==PROF== lines between
 * rows are skipped. The input is streamed: one row in memory at a time.
 * Forms and real files: tests/data/ncu-real/SOURCES.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/readers/ncu.h"

#include "analyzer/readers/counts.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t chunk_bytes = 1u << 20;

void rl_ncu_set_chunk_bytes(size_t bytes) { chunk_bytes = bytes ? bytes : 1u << 20; }
#define MAX_FIELDS (1 << 20)

/* ---- input: a window over the bytes, refilled from a file ------------------ */

/* The window lies in one writable buffer (a file's chunk, or a copy of the
 * text): a row's fields are cut in place, never copied. */
struct input {
    FILE *f;               /* NULL: all the text is in the window */
    char *chunk;           /* the buffer the window lies in (one byte of slack) */
    size_t chunk_cap;
    char *p, *end;         /* unread bytes */
    bool eof;
    /* Lines, counted lazily: `line` is the number of the line at lines_to. */
    const char *lines_to;
    int line;
};

/* The line number at pos (pos at or after every earlier call's). */
static int line_at(struct input *in, const char *pos)
{
    for (const char *q = in->lines_to; q < pos && (q = memchr(q, '\n', (size_t)(pos - q))); q++)
        in->line++;
    in->lines_to = pos;
    return in->line;
}

/* Keep [p, end), read more after it. RL_OK (eof set when nothing more
 * came), RL_ENOMEM or RL_EIO. */
static int refill(struct input *in)
{
    if (!in->f || in->eof) {
        in->eof = true;
        return RL_OK;
    }
    line_at(in, in->p); /* the bytes before p go */
    size_t keep = (size_t)(in->end - in->p);
    if (keep == in->chunk_cap) { /* one row fills the buffer: double it */
        size_t cap = in->chunk_cap ? 2 * in->chunk_cap : chunk_bytes;
        char *b = rl_malloc(cap + 1);
        if (!b)
            return RL_ENOMEM;
        if (keep)
            memcpy(b, in->p, keep);
        free(in->chunk);
        in->chunk = b;
        in->chunk_cap = cap;
    } else if (keep) {
        memmove(in->chunk, in->p, keep);
    }
    size_t got = fread(in->chunk + keep, 1, in->chunk_cap - keep, in->f);
    in->p = in->chunk;
    in->lines_to = in->p;
    in->end = in->chunk + keep + got;
    *in->end = 0; /* the slack byte: never a quote, comma or newline of the text */
    if (got == 0) {
        if (ferror(in->f))
            return RL_EIO;
        in->eof = true;
    }
    return RL_OK;
}

/* ---- CSV ------------------------------------------------------------------- */

struct csv {
    struct input in;
    const char *what;
    char *row_start;   /* of the current row, in the window */
    int row_line;      /* its line number; 0 until asked */
    struct span {
        char *s;       /* in the window */
        size_t n;
        bool escaped;  /* holds doubled quotes */
    } *span;
    char **field;      /* the current row's fields, NUL-terminated in place */
    int n, fcap;
    int rc;            /* why the last ROW_ERROR came: RL_EPARSE, RL_ENOMEM, RL_EIO */
};

enum { ROW_END = 0, ROW_OK = 1, ROW_MORE = 2, ROW_ERROR = -1 };

static char empty_field[1];

/* The line of the current row (counted on demand: only errors and rare
 * notes need it). */
static int row_line(struct csv *c)
{
    if (!c->row_line)
        c->row_line = line_at(&c->in, c->row_start);
    return c->row_line;
}

static int new_field_slow(struct csv *c, char *s, size_t n, bool escaped)
{
    if (c->n == c->fcap) {
        if (c->fcap >= MAX_FIELDS)
            return RL_EPARSE;
        int fcap = c->fcap ? 2 * c->fcap : 256;
        struct span *o = rl_realloc(c->span, (size_t)fcap * sizeof *o);
        if (!o)
            return RL_ENOMEM;
        c->span = o;
        char **f = rl_realloc(c->field, (size_t)fcap * sizeof *f);
        if (!f)
            return RL_ENOMEM;
        c->field = f;
        c->fcap = fcap;
    }
    c->span[c->n++] = (struct span){s, n, escaped};
    return RL_OK;
}

static inline int new_field(struct csv *c, char *s, size_t n, bool escaped)
{
    if (c->n < c->fcap) {
        c->span[c->n++] = (struct span){s, n, escaped};
        return RL_OK;
    }
    return new_field_slow(c, s, n, escaped);
}

static int csv_fail(struct csv *c, char *errmsg, int code, const char *at,
                    const char *what_is_wrong)
{
    int line = line_at(&c->in, at);
    c->rc = code;
    if (code == RL_ENOMEM)
        rl_fail(errmsg, code, "out of memory");
    else if (code == RL_EPARSE && !what_is_wrong)
        rl_fail(errmsg, code, "'%s': line %d: more than %d columns", c->what, line, MAX_FIELDS);
    else
        rl_fail(errmsg, code, "'%s': line %d: %s", c->what, line, what_is_wrong);
    return ROW_ERROR;
}

/* Parse one row from the window: ROW_OK, ROW_END, ROW_MORE (the window ends
 * inside the row and more input may come: nothing was changed) or
 * ROW_ERROR (errmsg set). */
static int parse_row(struct csv *c, char *errmsg)
{
    char *p = c->in.p, *end = c->in.end;
    bool eof = c->in.eof;
    if (p >= end)
        return eof ? ROW_END : ROW_MORE;
    c->row_start = p;
    c->row_line = 0;
    c->n = 0;
    int rc;
    for (;;) {
        char *s;
        size_t n;
        bool escaped = false;
        if (p < end && *p == '"') {
            s = ++p;
            for (;;) {
                char *q = memchr(p, '"', (size_t)(end - p));
                if (!q) {
                    if (!eof)
                        return ROW_MORE;
                    return csv_fail(c, errmsg, RL_EPARSE, c->row_start,
                                    "a quoted field never ends");
                }
                p = q + 1;
                if (p >= end && !eof)
                    return ROW_MORE; /* a doubled quote may follow */
                if (p < end && *p == '"') {
                    escaped = true;
                    p++;
                    continue;
                }
                n = (size_t)(q - s);
                break;
            }
            if (p < end && *p == '\r')
                p++;
            if (p >= end && !eof)
                return ROW_MORE;
            if (p < end && *p != ',' && *p != '\n')
                return csv_fail(c, errmsg, RL_EPARSE, p, "text after a closing quote");
        } else {
            s = p;
            while (p < end && *p != ',' && *p != '\n')
                p++;
            if (p >= end && !eof)
                return ROW_MORE;
            n = (size_t)(p - s);
            if (n && s[n - 1] == '\r')
                n--;
        }
        if ((rc = new_field(c, s, n, escaped)))
            return csv_fail(c, errmsg, rc, c->row_start, NULL);
        if (p < end && *p == ',') {
            p++;
            if (p >= end && !eof)
                return ROW_MORE;
            continue;
        }
        if (p < end && *p == '\n')
            p++;
        break;
    }
    /* The row is whole: cut its fields in place (each ends at its closing
     * quote, comma, CR or newline, or the buffer's slack byte). */
    for (int i = 0; i < c->n; i++) {
        struct span *f = &c->span[i];
        if (f->escaped) {
            size_t k = 0;
            for (size_t j = 0; j < f->n; j++, k++) {
                f->s[k] = f->s[j];
                if (f->s[j] == '"')
                    j++; /* "" is one quote */
            }
            f->n = k;
        }
        if (f->s[f->n] == '\n') {
            /* A newline about to become the field's end: count it first
             * (quoted fields, as ncu writes them, end at their quote). */
            row_line(c);
            line_at(&c->in, f->s + f->n);
            c->in.line++;
            c->in.lines_to = f->s + f->n + 1;
        }
        f->s[f->n] = 0;
        c->field[i] = f->s;
    }
    c->in.p = p;
    return ROW_OK;
}

/* refill()'s error in errmsg: rc. */
static int input_fail(const struct csv *c, int rc, char *errmsg)
{
    if (rc == RL_EIO)
        return rl_fail(errmsg, rc, "cannot read '%s': %s", c->what,
                       strerror(rl_io_errno(c->in.f)));
    return rl_fail(errmsg, rc, "out of memory");
}

/* Read the next row into c->field: ROW_OK, ROW_END or ROW_ERROR. */
static int csv_row(struct csv *c, char *errmsg)
{
    for (;;) {
        int r = parse_row(c, errmsg);
        if (r != ROW_MORE)
            return r;
        int rc = refill(&c->in);
        if (rc) {
            c->rc = rc;
            input_fail(c, rc, errmsg);
            return ROW_ERROR;
        }
    }
}

/* The next line's bytes without consuming them (NULL at the end); *len
 * excludes the newline. */
static const char *peek_line(struct csv *c, size_t *len, int *io)
{
    for (;;) {
        const char *nl = memchr(c->in.p, '\n', (size_t)(c->in.end - c->in.p));
        if (nl || c->in.eof) {
            if (c->in.p >= c->in.end)
                return NULL;
            *len = (size_t)((nl ? nl : c->in.end) - c->in.p);
            return c->in.p;
        }
        if ((*io = refill(&c->in)))
            return NULL;
    }
}

static void skip_line(struct csv *c, size_t len)
{
    c->in.p += len;
    if (c->in.p < c->in.end)
        c->in.p++; /* the newline */
}

/* ---- values ---------------------------------------------------------------- */

enum dim { DIM_COUNT, DIM_BYTES, DIM_TIME, DIM_RATE, DIM_TEXT };

static const char *const dim_names[] = {"a count", "bytes", "a time", "a rate per second", ""};

/* Units ncu prints, case ignored, with their scale to base units (count,
 * byte, nanosecond, per second). */
static const struct unit {
    const char *name;
    enum dim dim;
    double scale;
} units[] = {
    {"", DIM_COUNT, 1},          {"inst", DIM_COUNT, 1},         {"Kinst", DIM_COUNT, 1e3},
    {"Minst", DIM_COUNT, 1e6},   {"Ginst", DIM_COUNT, 1e9},      {"op", DIM_COUNT, 1},
    {"ops", DIM_COUNT, 1},       {"cycle", DIM_COUNT, 1},        {"Kcycle", DIM_COUNT, 1e3},
    {"Mcycle", DIM_COUNT, 1e6},  {"Gcycle", DIM_COUNT, 1e9},     {"warp", DIM_COUNT, 1},
    {"thread", DIM_COUNT, 1},    {"sector", DIM_COUNT, 1},       {"request", DIM_COUNT, 1},
    {"block", DIM_COUNT, 1},
    {"byte", DIM_BYTES, 1},      {"B", DIM_BYTES, 1},            {"Kbyte", DIM_BYTES, 1e3},
    {"KB", DIM_BYTES, 1e3},      {"Mbyte", DIM_BYTES, 1e6},      {"MB", DIM_BYTES, 1e6},
    {"Gbyte", DIM_BYTES, 1e9},   {"GB", DIM_BYTES, 1e9},         {"Tbyte", DIM_BYTES, 1e12},
    {"TB", DIM_BYTES, 1e12},     {"Kibyte", DIM_BYTES, 1024.0},  {"KiB", DIM_BYTES, 1024.0},
    {"Mibyte", DIM_BYTES, 1048576.0},    {"MiB", DIM_BYTES, 1048576.0},
    {"Gibyte", DIM_BYTES, 1073741824.0}, {"GiB", DIM_BYTES, 1073741824.0},
    {"Tibyte", DIM_BYTES, 1099511627776.0}, {"TiB", DIM_BYTES, 1099511627776.0},
    {"psecond", DIM_TIME, 1e-3}, {"ps", DIM_TIME, 1e-3},         {"nsecond", DIM_TIME, 1},
    {"ns", DIM_TIME, 1},         {"usecond", DIM_TIME, 1e3},     {"us", DIM_TIME, 1e3},
    {"msecond", DIM_TIME, 1e6},  {"ms", DIM_TIME, 1e6},          {"second", DIM_TIME, 1e9},
    {"s", DIM_TIME, 1e9},
    {"cycle/second", DIM_RATE, 1},       {"cycle/msecond", DIM_RATE, 1e3},
    {"cycle/usecond", DIM_RATE, 1e6},    {"cycle/nsecond", DIM_RATE, 1e9},
    {"hz", DIM_RATE, 1},         {"khz", DIM_RATE, 1e3},         {"mhz", DIM_RATE, 1e6},
    {"ghz", DIM_RATE, 1e9},
};

static const struct unit *unit_find(const char *name)
{
    while (*name == ' ')
        name++;
    size_t n = strlen(name);
    while (n && name[n - 1] == ' ')
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && strncasecmp(units[i].name, name, n) == 0)
            return &units[i];
    return NULL;
}

/* How a file writes its numbers: ncu follows the locale. */
struct numfmt {
    struct csv *c;            /* for the line of a first sighting */
    bool decimal_comma;       /* seen "117,47" */
    int grouping_line;        /* a line where "1,234" was read as 1234; 0 none */
    char grouping_value[32];
    int comma_line;           /* where the decimal comma was seen */
};

enum { NUM_OK = 0, NUM_ABSENT = 1, NUM_BAD = -1, NUM_MIXED = -2 };

/* Digits in groups of three after the first one to three: "117,469,184". */
static bool grouped(const char *s, size_t n, char sep)
{
    size_t i = 0;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    if (i < 1 || i > 3 || i == n)
        return false;
    while (i < n) { /* each group: the separator and three digits */
        if (s[i] != sep)
            return false;
        i++;
        for (int k = 0; k < 3; k++, i++)
            if (i >= n || !isdigit((unsigned char)s[i]))
                return false;
    }
    return true;
}

/* A number as the file writes it into *out (no unit applied). */
static int number(struct numfmt *nf, const char *text, double *out)
{
    while (*text == ' ')
        text++;
    size_t n = strlen(text);
    while (n && text[n - 1] == ' ')
        n--;
    if (n == 0 || (n == 3 && strncasecmp(text, "n/a", 3) == 0) || (n == 1 && text[0] == '-'))
        return NUM_ABSENT;
    char digits[64];
    if (n >= sizeof digits)
        return NUM_BAD;
    /* Split off the sign and the exponent; the mantissa decides the locale. */
    size_t a = (text[0] == '-' || text[0] == '+') ? 1 : 0, e = n;
    for (size_t i = a; i < n; i++)
        if (text[i] == 'e' || text[i] == 'E') {
            e = i;
            break;
        }
    const char *m = text + a;
    size_t mn = e - a;
    const char *comma = memchr(m, ',', mn), *dot = memchr(m, '.', mn);
    size_t k = 0;
    if (a)
        digits[k++] = text[0];
    if (!comma) {
        /* "117.47", "1234", "117 469 184", or "117.469.184" (dot grouping) */
        bool dots = dot && memchr(dot + 1, '.', (size_t)(m + mn - dot - 1));
        for (size_t i = 0; i < mn; i++)
            if (m[i] != ' ' && !(dots && m[i] == '.'))
                digits[k++] = m[i];
    } else if (!dot && !grouped(m, mn, ',')) {
        /* "117,47": a decimal comma */
        if (nf->grouping_line)
            return NUM_MIXED;
        if (!nf->decimal_comma)
            nf->comma_line = row_line(nf->c);
        nf->decimal_comma = true;
        for (size_t i = 0; i < mn; i++)
            digits[k++] = m[i] == ',' ? '.' : m[i];
    } else if (!dot) {
        /* "1,234" or "117,469,184": grouping, unless the file writes decimal commas */
        if (nf->decimal_comma) {
            for (size_t i = 0; i < mn; i++)
                digits[k++] = m[i] == ',' ? '.' : m[i];
        } else {
            if (!nf->grouping_line) {
                nf->grouping_line = row_line(nf->c);
                snprintf(nf->grouping_value, sizeof nf->grouping_value, "%.*s", (int)n, text);
            }
            for (size_t i = 0; i < mn; i++)
                if (m[i] != ',')
                    digits[k++] = m[i];
        }
    } else if (dot > comma) {
        /* "1,234.5": comma grouping, dot decimal */
        for (size_t i = 0; i < mn; i++)
            if (m[i] != ',')
                digits[k++] = m[i];
    } else {
        /* "1.234,5": dot grouping, comma decimal */
        if (nf->grouping_line)
            return NUM_MIXED;
        nf->decimal_comma = true;
        for (size_t i = 0; i < mn; i++)
            if (m[i] != '.')
                digits[k++] = m[i] == ',' ? '.' : m[i];
    }
    for (size_t i = e; i < n; i++)
        digits[k++] = text[i];
    digits[k] = 0;
    if (!isdigit((unsigned char)digits[a]) && digits[a] != '.')
        return NUM_BAD; /* "nan", "inf", "0x1p3" are not what ncu writes */
    char *endp;
    errno = 0;
    double v = strtod(digits, &endp);
    if (*endp || !isfinite(v) || memchr(digits, 'x', k) || memchr(digits, 'X', k))
        return NUM_BAD;
    *out = v;
    return NUM_OK;
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

/* ---- the metrics read ------------------------------------------------------ */

/* What a metric feeds: a counts quantity, or one of these. */
enum {
    X_DRAM_TOTAL = RL_Q_COUNT, /* dram__bytes.sum: read and write together */
    X_DURATION,                /* the Speed Of Light section's "Duration" */
    X_TENSOR_INST,             /* sm__inst_executed_pipe_tensor.sum */
    X_DEVICE,                  /* device__attribute_display_name: text */
    X_CYCLES,                  /* sm__cycles_elapsed.avg (or smsp__, gpc__) */
    X_CYCLES_PER_SECOND,       /* its .per_second: time = cycles / rate */
    X_CC_MAJOR,                /* device__attribute_compute_capability_major */
    X_CC_MINOR,
    X_COUNT
};

struct term {
    char name[96];
    int q;          /* the quantity it feeds */
    int cand, part; /* which candidate of the quantity, which '+' term of it */
    bool alias;     /* the smsp__ form of an sm__ counter */
    enum dim dim;
};

static enum dim q_dim(int q)
{
    if (q == RL_Q_TIME_NS || q == X_DURATION)
        return DIM_TIME;
    if (q == RL_Q_DRAM_READ || q == RL_Q_DRAM_WRITE || q == RL_Q_L2_BYTES ||
        q == RL_Q_L1_BYTES || q == X_DRAM_TOTAL)
        return DIM_BYTES;
    if (q == X_DEVICE)
        return DIM_TEXT;
    if (q == X_CYCLES_PER_SECOND)
        return DIM_RATE;
    return DIM_COUNT;
}

#define MAX_TERMS 96

static size_t add_term(struct term *t, size_t n, const char *name, size_t len, int q, int cand,
                       int part, bool alias)
{
    if (n < MAX_TERMS) {
        snprintf(t[n].name, sizeof t[n].name, "%.*s", (int)len, name);
        t[n].q = q;
        t[n].cand = cand;
        t[n].part = part;
        t[n].alias = alias;
        t[n].dim = q_dim(q);
        n++;
    }
    return n;
}

/* Every metric name of readers/counts.c, each SASS counter also in its
 * smsp__ form (NERSC's recipe), and the extras above. */
static size_t build_terms(struct term *t)
{
    size_t nq, n = 0;
    const struct rl_q_def *d = rl_q_defs(&nq);
    for (size_t q = 0; q < nq; q++)
        for (int c = 0; c < RL_Q_MAX_CANDIDATES && d[q].candidates[c]; c++) {
            int part = 0;
            for (const char *p = d[q].candidates[c]; *p; part++) {
                size_t k = strcspn(p, "+");
                n = add_term(t, n, p, k, (int)q, c, part, false);
                if (strncmp(p, "sm__sass_", 9) == 0) {
                    char alias[96];
                    snprintf(alias, sizeof alias, "smsp__%.*s", (int)k - 4, p + 4);
                    n = add_term(t, n, alias, strlen(alias), (int)q, c, part, true);
                }
                p += k + (p[k] == '+');
            }
        }
    n = add_term(t, n, "dram__bytes.sum", 15, X_DRAM_TOTAL, 0, 0, false);
    n = add_term(t, n, "Duration", 8, X_DURATION, 0, 0, false);
    n = add_term(t, n, "sm__inst_executed_pipe_tensor.sum", 33, X_TENSOR_INST, 0, 0, false);
    n = add_term(t, n, "smsp__inst_executed_pipe_tensor.sum", 35, X_TENSOR_INST, 0, 0, true);
    n = add_term(t, n, "device__attribute_display_name", 30, X_DEVICE, 0, 0, false);
    n = add_term(t, n, "device__attribute_compute_capability_major", 42, X_CC_MAJOR, 0, 0, false);
    n = add_term(t, n, "device__attribute_compute_capability_minor", 42, X_CC_MINOR, 0, 0, false);
    static const char *const units_[] = {"sm", "smsp", "gpc"};
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s__cycles_elapsed.avg", units_[i]);
        n = add_term(t, n, name, strlen(name), X_CYCLES, i, 0, false);
        snprintf(name, sizeof name, "%s__cycles_elapsed.avg.per_second", units_[i]);
        n = add_term(t, n, name, strlen(name), X_CYCLES_PER_SECOND, i, 0, false);
    }
    return n;
}

static const struct term *term_find(const struct term *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* ---- Tensor Core instructions to FLOPs ------------------------------------ */

/* The warp-level MMA shapes a kernel name can give, as cuBLAS and CUTLASS
 * write them: a shape token after the type letter ("h1688gemm",
 * "s16816gemm", "i8816gemm", "s1688tf32gemm", wmma's "s161616gemm"),
 * xmma's "tensor16x8x16", or an instruction shape among CUTLASS's
 * template arguments ("cutlass::gemm::GemmShape<16, 8, 8>"). */
static const struct mma_shape {
    const char *token;
    unsigned m, n, k;
} mma_shapes[] = {
    {"884", 8, 8, 4},      {"1684", 16, 8, 4},   {"1688", 16, 8, 8},
    {"16816", 16, 8, 16},  {"8816", 8, 8, 16},   {"16832", 16, 8, 32},
    {"161616", 16, 16, 16},
    /* Volta's mma.sync m8n8k4 over the warp's four quad pairs, as CUTLASS's
     * Volta TensorOp kernels write their instruction shape (no token). */
    {"", 16, 16, 4},
};
#define N_MMA_SHAPES (sizeof mma_shapes / sizeof mma_shapes[0])

static const struct mma_shape *mma_shape_of(unsigned m, unsigned n, unsigned k)
{
    for (size_t i = 0; i < N_MMA_SHAPES; i++)
        if (mma_shapes[i].m == m && mma_shapes[i].n == n && mma_shapes[i].k == k)
            return &mma_shapes[i];
    return NULL;
}

/* One shape found: keep it; a second, different one makes the name
 * ambiguous (*many). */
static void shape_seen(const struct mma_shape **found, bool *many, const struct mma_shape *s)
{
    if (!s)
        return;
    if (*found && *found != s)
        *many = true;
    *found = s;
}

/* Three unsigned numbers "a, b, c" or "axbxc" (sep ',' or 'x', spaces
 * around commas) at p; false unless all three are there. */
static bool three_numbers(const char *p, char sep, unsigned *v)
{
    for (int i = 0; i < 3; i++) {
        while (*p == ' ')
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        char *e;
        unsigned long x = strtoul(p, &e, 10);
        if (x > 1024)
            return false;
        v[i] = (unsigned)x;
        p = e;
        while (*p == ' ')
            p++;
        if (i < 2 && *p++ != sep)
            return false;
    }
    return true;
}

/* The one MMA shape the name gives; NULL for none, or for two different. */
static const struct mma_shape *name_mma_shape(const char *name)
{
    const struct mma_shape *found = NULL;
    bool many = false;
    if (!name)
        return NULL;
    for (const char *p = name; *p; p++) {
        /* A digit run after a type letter, followed by a letter or '_' or
         * the end: "h1688gemm", "_s16816gemm_". Not "128x128", "sm80". */
        if (isdigit((unsigned char)*p) && p > name && isalpha((unsigned char)p[-1]) &&
            p[-1] != 'x') {
            size_t n = strspn(p, "0123456789");
            char after = p[n];
            if (after == 0 || after == '_' || (isalpha((unsigned char)after) && after != 'x'))
                for (size_t i = 0; i < N_MMA_SHAPES; i++)
                    if (strlen(mma_shapes[i].token) == n &&
                        memcmp(p, mma_shapes[i].token, n) == 0)
                        shape_seen(&found, &many, &mma_shapes[i]);
            p += n - 1;
            continue;
        }
        unsigned v[3];
        if (strncmp(p, "GemmShape<", 10) == 0 && three_numbers(p + 10, ',', v))
            shape_seen(&found, &many, mma_shape_of(v[0], v[1], v[2]));
        else if (strncmp(p, "tensor", 6) == 0 && three_numbers(p + 6, 'x', v))
            shape_seen(&found, &many, mma_shape_of(v[0], v[1], v[2]));
    }
    return many ? NULL : found;
}

bool rl_ncu_name_gives_mma_shape(const char *name) { return name_mma_shape(name) != NULL; }

/* The roof of Tensor FLOPs inferred for a kernel of this name: the type
 * its name says (cuBLAS and CUTLASS spell "tf32", "bf16"; CUTLASS's
 * templates "tfloat32_t", "bfloat16_t"; IMMA shapes are INT8), FP16
 * otherwise. */
static const char *inferred_precision(const char *name)
{
    const struct mma_shape *s = name_mma_shape(name);
    if (strstr(name, "tf32") || strstr(name, "tfloat32"))
        return "tf32";
    if (strstr(name, "bf16") || strstr(name, "bfloat16"))
        return "bf16";
    if (s && (strcmp(s->token, "8816") == 0 || strcmp(s->token, "16832") == 0))
        return "int8";
    return "fp16";
}

/* FLOPs per warp-level Tensor Core instruction (what
 * sm__inst_executed_pipe_tensor counts; integer ops for IMMA):
 * - Volta (7.0, 7.2): HMMA.884 only; a wmma m16n16k16 (16 x 16 x 16 x 2 =
 *   8192 FLOPs) is 16 of them: 512 per instruction (NERSC's factor),
 *   whatever the name says.
 * - Turing (7.5): HMMA.1688, m16n8k8: 16 x 8 x 8 x 2 = 2048 (an m16n8k16
 *   is two of them; IMMA.8816, 8 x 8 x 16 x 2, is 2048 too).
 * - Ampere and Ada (8.x): several shapes, and real GEMMs use each (cuBLAS
 *   ships both ampere_h1688gemm and ampere_h16816gemm kernels), so only
 *   the kernel name decides, 2 x M x N x K per instruction:
 *   HMMA.16816 (FP16/BF16 m16n8k16) 2 x 16 x 8 x 16 = 4096;
 *   HMMA.1688 (FP16 m16n8k8, and TF32 m16n8k8 "s1688tf32") 2 x 16 x 8 x 8
 *   = 2048; TF32 m16n8k4 (1684) 2 x 16 x 8 x 4 = 1024;
 *   IMMA.8816 (INT8 m8n8k16) 2 x 8 x 8 x 16 = 2048; IMMA.16832 (INT8
 *   m16n8k32) 2 x 16 x 8 x 32 = 8192; a wmma m16n16k16 ("161616") is two
 *   HMMA.16816: 8192 / 2 = 4096 (INT4 shapes have no roof here: NAN).
 *   An m8n8k4 name ("884", CUTLASS's Volta GemmShape<16, 16, 4>: Volta's
 *   HMMA emulated, or FP64 DMMA.884) is not one known instruction: NAN,
 *   as is a name with no shape or two different ones.
 * - Hopper and later: warpgroup MMAs (HGMMA.64xNx16, N up to 256, and
 *   tcgen05) whose N the count does not give: no single factor (NAN). */
double rl_ncu_tensor_flops_per_inst(double cc, const char *name)
{
    if (!(cc > 0))
        return NAN;
    int major = (int)cc, minor = (int)lround((cc - major) * 10);
    if (major == 7)
        return minor < 5 ? 512 : 2048;
    if (major != 8)
        return NAN;
    const struct mma_shape *s = name_mma_shape(name);
    bool volta = s && s->k == 4 && !(s->m == 16 && s->n == 8); /* m8n8k4, not TF32's 1684 */
    if (!s || volta)
        return NAN;
    double flops = 2.0 * s->m * s->n * s->k;
    return s->n == 16 ? flops / 2 : flops; /* wmma m16n16k16: two HMMA.16816 */
}

/* ---- kernels --------------------------------------------------------------- */

struct kernel {
    char id[32];
    double cc;              /* compute capability from the "CC" column (8.0); NAN */
    char *name;             /* whole: group identity is the full name */
    size_t name_cap;
    uint32_t grid[3], block[3];
    double tv[MAX_TERMS];   /* each metric read, in base units; NAN absent */
};

struct importer {
    struct rl_trace_groups *g;
    double factor;
    struct rl_ncu_stats *stats;
    struct term terms[MAX_TERMS];
    size_t n_terms;
    /* Per quantity, candidate and '+' term: the sm__ and smsp__ term
     * indices (-1 none), built once from terms. */
    signed char slot[X_COUNT][RL_Q_MAX_CANDIDATES][RL_Q_MAX_TERMS][2];
    /* Metric names seen, hashed: the term each feeds (NULL: not read). */
    struct seen_name {
        char *name;
        const struct term *t;
    } names[1024];
    size_t n_names;
    bool seen[X_COUNT];     /* quantities the file has a column or row for */
    bool device_named;      /* g->sum.gpu_name came from this file */
    char *errmsg;
};

/* The term a metric name feeds, looked up once per distinct name. */
static const struct term *term_of(struct importer *im, const char *name)
{
    size_t size = sizeof im->names / sizeof im->names[0];
    for (size_t j = name_hash(name) & (size - 1), probes = 0; probes < size;
         j = (j + 1) & (size - 1), probes++) {
        struct seen_name *e = &im->names[j];
        if (!e->name) {
            const struct term *t = term_find(im->terms, im->n_terms, name);
            if (im->n_names + 1 < size / 2 && (e->name = rl_strdup(name))) {
                e->t = t;
                im->n_names++;
            }
            return t;
        }
        if (strcmp(e->name, name) == 0)
            return e->t;
    }
    return term_find(im->terms, im->n_terms, name);
}

static void importer_slots(struct importer *im)
{
    memset(im->slot, -1, sizeof im->slot);
    for (size_t t = 0; t < im->n_terms; t++) {
        const struct term *x = &im->terms[t];
        im->slot[x->q][x->cand][x->part][x->alias] = (signed char)t;
    }
}

static void kernel_reset(struct kernel *k)
{
    k->id[0] = 0;
    if (k->name)
        k->name[0] = 0;
    k->grid[0] = k->grid[1] = k->grid[2] = k->block[0] = k->block[1] = k->block[2] = 0;
    for (int i = 0; i < MAX_TERMS; i++)
        k->tv[i] = NAN;
    k->cc = NAN;
}

/* The quantities of a kernel from its metrics: per quantity the first
 * candidate whose every term was read (a term in its sm__ form, else in its
 * smsp__ form), as readers/counts.c orders them. */
static void kernel_quantities(const struct importer *im, const struct kernel *k, double *q)
{
    for (int i = 0; i < X_COUNT; i++)
        q[i] = NAN;
    for (int qi = 0; qi < X_COUNT; qi++)
        for (int c = 0; c < RL_Q_MAX_CANDIDATES && isnan(q[qi]); c++) {
            double sum = 0;
            bool any = false, complete = true;
            for (int part = 0; part < RL_Q_MAX_TERMS && complete; part++) {
                const signed char *ix = im->slot[qi][c][part];
                if (ix[0] < 0 && ix[1] < 0)
                    break;
                /* The sm__ form wins over the smsp__ one. */
                double v = ix[0] >= 0 ? k->tv[ix[0]] : NAN;
                if (isnan(v) && ix[1] >= 0)
                    v = k->tv[ix[1]];
                if (isnan(v))
                    complete = false;
                else
                    sum += v, any = true;
            }
            if (any && complete)
                q[qi] = sum;
        }
}

static int kernel_name(struct kernel *k, const char *name)
{
    size_t n = strlen(name) + 1;
    if (n > k->name_cap) {
        char *b = rl_realloc(k->name, n);
        if (!b)
            return RL_ENOMEM;
        k->name = b;
        k->name_cap = n;
    }
    memcpy(k->name, name, n);
    return RL_OK;
}

static void device_seen(struct importer *im, const char *name)
{
    while (*name == ' ')
        name++;
    if (!*name)
        return;
    bool digits = true;
    for (const char *p = name; *p; p++)
        digits &= isdigit((unsigned char)*p) != 0;
    if (digits)
        return; /* "Device" holds the device's index in many exports */
    struct rl_ncu_stats *st = im->stats;
    /* Whole-entry match in the "; "-joined list. */
    size_t n = strlen(name);
    for (const char *p = st->devices; *p;) {
        size_t k = strcspn(p, ";");
        if (k == n && strncmp(p, name, n) == 0)
            return;
        p += k;
        while (*p == ';' || *p == ' ')
            p++;
    }
    st->n_devices++;
    size_t used = strlen(st->devices);
    size_t sep = used ? 2 : 0;
    if (used + sep + n + 1 <= sizeof st->devices) { /* "; ", the name, NUL fit */
        memcpy(st->devices + used, "; ", sep);
        memcpy(st->devices + used + sep, name, n + 1);
    }
    if (st->n_devices == 1 && !im->g->sum.gpu_name[0]) {
        snprintf(im->g->sum.gpu_name, sizeof im->g->sum.gpu_name, "%s", name);
        im->device_named = true;
    }
}

/* A metric's value in its base unit into k; RL_OK or RL_ESCHEMA. */
static int kernel_metric(struct importer *im, struct numfmt *nf, struct kernel *k,
                         const struct term *t, const char *value, const char *unit_text,
                         struct csv *c, int col, int unit_col, const char *col_name)
{
    im->seen[t->q] = true;
    if (t->dim == DIM_TEXT) {
        device_seen(im, value);
        return RL_OK;
    }
    double v;
    int r = number(nf, value, &v);
    if (r == NUM_ABSENT)
        return RL_OK;
    const char *what = im->stats->form[0] == 'l' ? "Metric Value" : col_name;
    if (r == NUM_MIXED)
        return rl_fail(im->errmsg, RL_ESCHEMA,
                       "line %d, column %d (%s): %s: '%s' has a decimal comma, but line %d's "
                       "'%s' was read with a thousands separator: export with one locale "
                       "(LC_ALL=C ncu ...)",
                       row_line(c), col, what, t->name, value, nf->grouping_line,
                       nf->grouping_value);
    if (r != NUM_OK)
        return rl_fail(im->errmsg, RL_ESCHEMA, "line %d, column %d (%s): %s: '%s' is not a number",
                       row_line(c), col, what, t->name, value);
    /* No unit (no units row or column, or an empty cell): ncu's base units,
     * as --print-units base writes them. */
    static const struct unit base[] = {{"", DIM_COUNT, 1}, {"byte", DIM_BYTES, 1},
                                       {"nsecond", DIM_TIME, 1}, {"", DIM_RATE, 1}};
    while (unit_text && *unit_text == ' ')
        unit_text++;
    if (unit_text && !*unit_text)
        unit_text = NULL;
    const struct unit *u = unit_text ? unit_find(unit_text) : &base[t->dim];
    if (!unit_text)
        unit_text = u->name;
    if (!u)
        return rl_fail(im->errmsg, RL_ESCHEMA,
                       "line %d, column %d (%s): %s: unknown unit '%s' (value '%s')", row_line(c), unit_col,
                       im->stats->form[0] == 'l' ? "Metric Unit" : col_name, t->name, unit_text,
                       value);
    if (u->dim != t->dim)
        return rl_fail(im->errmsg, RL_ESCHEMA,
                       "line %d, column %d (%s): %s is %s, but its unit '%s' is not (value '%s')",
                       row_line(c), unit_col, im->stats->form[0] == 'l' ? "Metric Unit" : col_name, t->name,
                       dim_names[t->dim], unit_text, value);
    size_t i = (size_t)(t - im->terms);
    if (isnan(k->tv[i]))
        k->tv[i] = v * u->scale; /* a metric given twice (two sections): the first */
    return RL_OK;
}

/* The FLOP counters a bytes-only export lacks, for `ncu --metrics`. */
static void missing_flops(struct importer *im)
{
    char *out = im->stats->missing_flops;
    size_t size = sizeof im->stats->missing_flops, used = strlen(out);
    if (used)
        return;
    size_t nq;
    const struct rl_q_def *d = rl_q_defs(&nq);
    for (int q = RL_Q_DADD; q <= RL_Q_HFMA; q++)
        if (!im->seen[q])
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s",
                                     used ? "," : "", d[q].candidates[0]);
    if (used >= size)
        out[0] = 0;
}

/* The byte counters a FLOPs-only export lacks, for `ncu --metrics`. */
static void missing_bytes(struct importer *im)
{
    char *out = im->stats->missing_bytes;
    size_t size = sizeof im->stats->missing_bytes, used = strlen(out);
    if (used)
        return;
    size_t nq;
    const struct rl_q_def *d = rl_q_defs(&nq);
    bool dram = im->seen[X_DRAM_TOTAL];
    for (int q = RL_Q_DRAM_READ; q <= RL_Q_L1_BYTES; q++)
        if (!im->seen[q] && !(dram && q <= RL_Q_DRAM_WRITE))
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s",
                                     used ? "," : "", d[q].candidates[0]);
    if (used >= size)
        out[0] = 0;
}

static int kernel_flush(struct importer *im, struct kernel *k)
{
    if (!k->name || !k->name[0])
        return RL_OK;
    double q[X_COUNT];
    kernel_quantities(im, k, q);
    if (isnan(q[RL_Q_DRAM_READ]) && isnan(q[RL_Q_DRAM_WRITE]) && !isnan(q[X_DRAM_TOTAL])) {
        q[RL_Q_DRAM_READ] = q[X_DRAM_TOTAL]; /* the total, read and write together */
        q[RL_Q_DRAM_WRITE] = 0;
    }
    if (isnan(q[RL_Q_TIME_NS]))
        q[RL_Q_TIME_NS] = q[X_DURATION];
    /* Time from cycles (NERSC's recipe): elapsed cycles over their rate. A
     * duration wins; a disagreement above 5% is said. */
    double cycles_ns = q[X_CYCLES_PER_SECOND] > 0 ? q[X_CYCLES] / q[X_CYCLES_PER_SECOND] * 1e9
                                                   : NAN;
    if (isnan(q[RL_Q_TIME_NS]) && !isnan(cycles_ns)) {
        q[RL_Q_TIME_NS] = cycles_ns;
        im->stats->time_from_cycles++;
    } else if (!isnan(cycles_ns) && q[RL_Q_TIME_NS] > 0) {
        double d = fabs(cycles_ns - q[RL_Q_TIME_NS]) / q[RL_Q_TIME_NS];
        if (d > 0.05) {
            im->stats->time_disagree++;
            if (100 * d > im->stats->time_disagree_max_pct)
                im->stats->time_disagree_max_pct = 100 * d;
        }
    }
    struct rl_kernel_counts c;
    rl_counts_derive(q, im->factor, &c);
    double bytes[RL_MEM_COUNT] = {c.dram_bytes, c.l2_bytes, c.l1_bytes};
    bool have_bytes = !isnan(bytes[0]) || !isnan(bytes[1]) || !isnan(bytes[2]);
    /* FLOPs without bytes are kept: a compute point (no intensity); no
     * FLOPs and no bytes leave nothing to place (timing only). */
    double flops = have_bytes || c.flops > 0 ? c.flops : NAN;
    struct rl_ncu_stats *st = im->stats;
    st->kernels++;
    bool tensor = false, tensor_ops = false;
    size_t nq;
    const struct rl_q_def *d = rl_q_defs(&nq);
    for (size_t i = 0; i < nq; i++) {
        tensor |= d[i].roof && q[i] > 0;
        tensor_ops |= d[i].roof && !isnan(q[i]);
    }
    /* Tensor Core instructions and no op counters (NERSC's list): FLOPs
     * inferred from the MMA instruction's shape, where the architecture
     * has one or the kernel name gives it; else none, and said. */
    const char *precision = c.precision;
    bool pipe = q[X_TENSOR_INST] > 0 && !tensor_ops;
    if (pipe) {
        double cc = !isnan(k->cc) ? k->cc : q[X_CC_MAJOR] + q[X_CC_MINOR] / 10;
        double per_inst = rl_ncu_tensor_flops_per_inst(cc, k->name);
        /* FP16 and FP64 instructions share that pipe on some GPUs (GA100:
         * real A100 exports count exactly hfma / 32 there): only a kernel
         * with none of them has a count that is Tensor work alone. Where
         * the export does not count them, only a name that gives the MMA
         * shape says the kernel is Tensor Core work. */
        bool shared = false, uncounted = false;
        for (int i = RL_Q_DADD; i <= RL_Q_HFMA; i++)
            if (i < RL_Q_FADD || i > RL_Q_FFMA) {
                shared |= q[i] > 0;
                uncounted |= isnan(q[i]);
            }
        bool named = rl_ncu_name_gives_mma_shape(k->name);
        int major = cc > 0 ? (int)cc : 0;
        if (isnan(per_inst) && major != 8) {
            st->tensor_inst_only++;
        } else if (shared || (uncounted && !named && !isnan(per_inst))) {
            st->tensor_pipe_shared++;
        } else if (isnan(per_inst)) {
            st->tensor_shape_unknown++;
            if (!st->shape_unknown_name[0])
                rl_str_shorten(st->shape_unknown_name, sizeof st->shape_unknown_name, k->name);
        } else {
            double inferred = q[X_TENSOR_INST] * per_inst;
            if (!(inferred <= flops))
                precision = inferred_precision(k->name);
            flops = (isnan(flops) ? 0 : flops) + inferred;
            st->tensor_inferred++;
        }
    }
    if (!isnan(flops) && !have_bytes) {
        st->without_counts++;
        st->flops_only++;
        missing_bytes(im);
    } else if (isnan(flops)) {
        /* Why it is not on the roofline: one reason per kernel (a Tensor
         * pipe count not turned into FLOPs was counted above). */
        st->without_counts++;
        if (!have_bytes)
            st->timing_only++;
        else if (tensor && isnan(im->factor))
            st->tensor_unknown++;
        else if (!pipe) {
            /* c.flops is NAN with bytes only when no FLOP counter was read
             * (no CUDA-core or Tensor op counter) or a Tensor count had no
             * factor (the branch above): none was read here. */
            st->bytes_only++;
            missing_flops(im);
        }
    }
    int rc = rl_trace_groups_add(im->g, k->name, k->grid, k->block,
                                 isnan(flops) ? "" : precision ? precision : "",
                                 RL_ORIGIN_MEASURED, 1, flops, bytes, q[RL_Q_TIME_NS]);
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

/* Does this line start an ncu header ("ID" first)? */
static bool header_like(const char *s, size_t n)
{
    return (n >= 5 && memcmp(s, "\"ID\",", 5) == 0) || (n >= 3 && memcmp(s, "ID,", 3) == 0);
}

struct layout {
    int id, name, grid, block, device, cc, mname, munit, mvalue, ncols;
    bool long_form;
    char **headers, **units;          /* wide form: per column */
    const struct term **col_term;     /* wide form: the metric each column feeds, or NULL */
};

static void layout_release(struct layout *L)
{
    for (int i = 0; L->headers && i < L->ncols; i++) {
        free(L->headers[i]);
        if (L->units)
            free(L->units[i]);
    }
    free(L->headers);
    free(L->units);
    free(L->col_term);
}

static int read_rows(struct importer *im, struct csv *c, struct layout *L, char *errmsg)
{
    struct numfmt nf = {c, false, 0, "", 0};
    struct kernel k = {.name = NULL};
    kernel_reset(&k);
    int rc = RL_OK, r;
    bool first = true;
    for (;;) {
        /* ==PROF== lines (and ==WARNING==, ==ERROR==) between rows. */
        int io = RL_OK;
        while (!io && c->in.end - c->in.p < 2 && !c->in.eof)
            io = refill(&c->in);
        if (!io && c->in.end - c->in.p >= 2 && c->in.p[0] == '=' && c->in.p[1] == '=') {
            size_t len = 0;
            if (peek_line(c, &len, &io)) {
                skip_line(c, len);
                im->stats->skipped_lines++;
                continue;
            }
        }
        if (io) {
            rc = input_fail(c, io, errmsg);
            break;
        }
        if ((r = csv_row(c, errmsg)) != ROW_OK) {
            if (r == ROW_ERROR)
                rc = c->rc;
            break;
        }
        if (c->n == 1 && !c->field[0][0])
            continue; /* a blank line */
        if (c->n > L->ncols) {
            rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: %d columns, the header has %d",
                         c->what, row_line(c), c->n, L->ncols);
            break;
        }
        if (strcmp(c->field[0], "ID") == 0) {
            im->stats->skipped_lines++; /* the header again: another process's export */
            continue;
        }
        /* A row that ends early (no rule results): the rest is empty. */
        int need = L->long_form ? (L->mvalue > L->mname ? L->mvalue : L->mname) : L->name;
        if (c->n <= need || c->n <= L->id) {
            rc = rl_fail(errmsg, RL_ESCHEMA,
                         "'%s': line %d: %d columns, the header has %d (the row ends before "
                         "'%s')",
                         c->what, row_line(c), c->n, L->ncols,
                         L->long_form ? "Metric Value" : "Kernel Name");
            break;
        }
        while (c->n < L->ncols) {
            if (new_field(c, empty_field, 0, false)) {
                rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
                break;
            }
            c->field[c->n - 1] = empty_field;
        }
        if (rc)
            break;
        if (!L->long_form && first && !c->field[L->id][0]) { /* the units row */
            for (int i = 0; i < L->ncols && rc == RL_OK; i++)
                if (!(L->units[i] = rl_strdup(c->field[i])))
                    rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
            im->stats->units_row = true;
            first = false;
            continue;
        }
        first = false;
        /* A new kernel result: its name, launch and device, once. */
        if (!L->long_form || strcmp(k.id, c->field[L->id]) != 0 || !k.name) {
            if ((rc = kernel_flush(im, &k)))
                break;
            snprintf(k.id, sizeof k.id, "%s", c->field[L->id]);
            if ((rc = kernel_name(&k, c->field[L->name])))
                break;
            if (L->grid >= 0)
                dims(c->field[L->grid], k.grid);
            if (L->block >= 0)
                dims(c->field[L->block], k.block);
            if (L->device >= 0)
                device_seen(im, c->field[L->device]);
            char *e;
            k.cc = L->cc >= 0 ? strtod(c->field[L->cc], &e) : NAN;
            if (L->cc >= 0 && (*e || e == c->field[L->cc]))
                k.cc = NAN;
        }
        if (L->long_form) {
            /* Old exports give the launch only as Launch Statistics rows:
             * "Grid Size" is the number of blocks, "Block Size" of threads. */
            const char *mn = c->field[L->mname];
            bool g_row = L->grid < 0 && strcmp(mn, "Grid Size") == 0;
            if (g_row || (L->block < 0 && strcmp(mn, "Block Size") == 0)) {
                double v;
                if (number(&nf, c->field[L->mvalue], &v) == NUM_OK && v >= 0 &&
                    v < 4294967296.0) {
                    uint32_t *d = g_row ? k.grid : k.block;
                    d[0] = (uint32_t)v;
                    d[1] = d[2] = 1;
                }
            }
            const struct term *t = term_of(im, mn);
            if (t)
                rc = kernel_metric(im, &nf, &k, t, c->field[L->mvalue],
                                   L->munit >= 0 ? c->field[L->munit] : NULL, c,
                                   L->mvalue + 1, L->munit + 1, "Metric Value");
        } else {
            for (int j = 0; j < L->ncols && rc == RL_OK; j++)
                if (L->col_term[j])
                    rc = kernel_metric(im, &nf, &k, L->col_term[j], c->field[j],
                                       L->units[j] ? L->units[j] : NULL, c, j + 1, j + 1,
                                       L->headers[j]);
            if (rc == RL_OK)
                rc = kernel_flush(im, &k); /* one row, one kernel */
        }
        if (rc == RL_ESCHEMA) {
            /* kernel_metric's message lacks the file: prefix it. */
            char tail[RL_ERRMSG_SIZE];
            snprintf(tail, sizeof tail, "%s", errmsg ? errmsg : "");
            rl_fail(errmsg, rc, "'%s': %s", c->what, tail);
        }
        if (rc)
            break;
    }
    if (rc == RL_OK)
        rc = kernel_flush(im, &k);
    if (rc == RL_ENOMEM)
        rl_fail(errmsg, rc, "out of memory");
    im->stats->decimal_comma = nf.decimal_comma;
    free(k.name);
    return rc;
}

static int parse(struct rl_trace_groups *g, struct csv *c, double factor,
                 struct rl_ncu_stats *stats, char *errmsg)
{
    struct rl_ncu_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    struct importer *im = rl_calloc(1, sizeof *im);
    if (!im)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    im->g = g;
    im->factor = factor;
    im->stats = stats;
    im->errmsg = errmsg;
    im->n_terms = build_terms(im->terms);
    importer_slots(im);
    int rc = RL_OK, r = ROW_END;
    /* A BOM, then lines until the header: a row starting with "ID" that
     * names the kernel (==PROF== lines and program output come before). */
    int io = refill(&c->in);
    while (!io && c->in.end - c->in.p < 3 && !c->in.eof)
        io = refill(&c->in);
    if (!io && c->in.end - c->in.p >= 3 && memcmp(c->in.p, "\xEF\xBB\xBF", 3) == 0)
        c->in.p += 3;
    for (;;) {
        size_t len = 0;
        const char *s = io ? NULL : peek_line(c, &len, &io);
        if (!s) {
            r = io ? ROW_ERROR : ROW_END;
            if (io)
                input_fail(c, io, errmsg);
            break;
        }
        if (!header_like(s, len)) {
            skip_line(c, len);
            continue;
        }
        if ((r = csv_row(c, errmsg)) != ROW_OK)
            break;
        if (column(c, "Kernel Name") >= 0)
            break;
    }
    struct layout L = {0};
    if (r == ROW_ERROR) {
        rc = io ? io : c->rc;
    } else if (r == ROW_END) {
        rc = rl_fail(errmsg, RL_ESCHEMA,
                     "'%s': no Nsight Compute CSV header (a row starting with \"ID\" and "
                     "naming \"Kernel Name\"): export with `ncu --csv` or `ncu --csv --page raw`",
                     c->what);
    } else {
        L.id = column(c, "ID");
        L.name = column(c, "Kernel Name");
        L.grid = column(c, "Grid Size");
        L.block = column(c, "Block Size");
        L.device = column(c, "Device");
        L.cc = column(c, "CC");
        L.mname = column(c, "Metric Name");
        L.munit = column(c, "Metric Unit");
        L.mvalue = column(c, "Metric Value");
        L.ncols = c->n;
        L.long_form = L.mname >= 0 && L.mvalue >= 0;
        snprintf(stats->form, sizeof stats->form, "%s", L.long_form ? "long" : "wide");
        if (!L.long_form) {
            /* Wide form: the metric columns and, in the next row, their units. */
            L.headers = rl_calloc((size_t)L.ncols, sizeof *L.headers);
            L.units = rl_calloc((size_t)L.ncols, sizeof *L.units);
            L.col_term = rl_calloc((size_t)L.ncols, sizeof *L.col_term);
            if (!L.headers || !L.units || !L.col_term)
                rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
            int metrics = 0;
            for (int i = 0; i < L.ncols && rc == RL_OK; i++) {
                if (!(L.headers[i] = rl_strdup(c->field[i])))
                    rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
                else if (strstr(L.headers[i], "__"))
                    metrics++;
                if (rc == RL_OK)
                    L.col_term[i] = term_find(im->terms, im->n_terms, L.headers[i]);
            }
            if (rc == RL_OK && metrics == 0)
                rc = rl_fail(errmsg, RL_ESCHEMA,
                             "'%s': line %d: no metric columns (names like dram__bytes_read.sum) "
                             "and no \"Metric Name\" column",
                             c->what, row_line(c));
        }
        if (rc == RL_OK)
            rc = read_rows(im, c, &L, errmsg);
        if (rc == RL_OK && stats->kernels == 0)
            rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': the CSV holds no kernel", c->what);
    }
    if (stats->n_devices > 1 && im->device_named)
        g->sum.gpu_name[0] = 0; /* several GPUs: none of them names the ceilings */
    layout_release(&L);
    for (size_t i = 0; i < sizeof im->names / sizeof im->names[0]; i++)
        free(im->names[i].name);
    free(im);
    free(c->span);
    free(c->field);
    free(c->in.chunk);
    return rc;
}

int rl_ncu_parse(struct rl_trace_groups *g, const char *text, size_t len, const char *what,
                 double tensor_flops_per_op, struct rl_ncu_stats *stats, char *errmsg)
{
    /* A writable copy: fields are cut in place. */
    char *copy = rl_malloc(len + 1);
    if (!copy)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    memcpy(copy, text, len);
    copy[len] = 0; /* the slack byte, as refill() sets it */
    struct csv c = {.in = {NULL, copy, len, copy, copy + len, true, copy, 1}, .what = what};
    return parse(g, &c, tensor_flops_per_op, stats, errmsg);
}

int rl_ncu_read(struct rl_trace_groups *g, FILE *f, const char *what,
                double tensor_flops_per_op, struct rl_ncu_stats *stats, char *errmsg)
{
    struct csv c = {.in = {f, NULL, 0, NULL, NULL, false, NULL, 1}, .what = what};
    return parse(g, &c, tensor_flops_per_op, stats, errmsg);
}

int rl_ncu_load(struct rl_trace_groups *g, const char *path, double tensor_flops_per_op,
                struct rl_ncu_stats *stats, char *errmsg)
{
    bool std_in = strcmp(path, "-") == 0;
    FILE *f = rl_io_open_read(path);
    if (!f && errno == ENOMEM)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory opening '%s'",
                       std_in ? "<stdin>" : path);
    if (!f)
        return rl_fail(errmsg, RL_EIO, "cannot open '%s': %s", std_in ? "<stdin>" : path,
                       strerror(errno));
    int rc = rl_ncu_read(g, f, std_in ? "<stdin>" : path, tensor_flops_per_op, stats, errmsg);
    fclose(f);
    return rc;
}

void rl_ncu_notes(const struct rl_ncu_stats *st, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
#define NOTE(...)                                                                                 \
    do {                                                                                          \
        if (used < size && used)                                                                  \
            out[used++] = '\n', out[used] = 0;                                                    \
        if (used < size)                                                                          \
            used += (size_t)snprintf(out + used, size - used, __VA_ARGS__);                       \
    } while (0)
    if (st->time_from_cycles)
        NOTE("%zu of %zu kernels have no gpu__time_duration.sum: their time is "
             "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second (time from cycles)",
             st->time_from_cycles, st->kernels);
    if (st->time_disagree)
        NOTE("%zu kernels' time from cycles differs from gpu__time_duration.sum by more than "
             "5%% (up to %.3g%%): the duration is used",
             st->time_disagree, st->time_disagree_max_pct);
    if (st->bytes_only)
        NOTE("%zu of %zu kernels have bytes but no FLOP counters in this export: shown as "
             "memory points (achieved bandwidth against the memory roof); to place them on the "
             "roofline add `--metrics %s` to the ncu command (the Tensor Core counters of your "
             "chip: `roofline metrics --ncu --chip CHIP`)",
             st->bytes_only, st->kernels, st->missing_flops[0] ? st->missing_flops : "...");
    if (st->tensor_inferred)
        NOTE("%zu kernels' Tensor Core FLOPs are inferred (not counted) from "
             "sm__inst_executed_pipe_tensor.sum x the FLOPs of one MMA instruction, the shape "
             "the architecture has (Volta HMMA.884 512, Turing HMMA.1688 2048) or the kernel "
             "name gives (CC 8.x: h1688gemm 2048, h16816gemm 4096, GemmShape<16, 8, 8> 2048): "
             "the sm__ops_path_tensor_* counters give exact counts (add them with `roofline "
             "metrics --ncu --chip CHIP`'s list)",
             st->tensor_inferred);
    if (st->tensor_shape_unknown)
        NOTE("%zu kernels (the first: '%s') count Tensor pipe instructions "
             "(sm__inst_executed_pipe_tensor.sum) but the MMA shape is not in the kernel name: "
             "on CC 8.x an instruction is 2048 FLOPs (HMMA.1688) or 4096 (HMMA.16816), and "
             "GEMMs use both, so no Tensor FLOPs are inferred (their FLOPs count CUDA cores "
             "only, where the export counts them); add `--metrics "
             "sm__ops_path_tensor_src_fp16_dst_fp32.sum,sm__ops_path_tensor_src_fp16_dst_fp16.sum,"
             "sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum` "
             "to the ncu command (the list of your chip: `roofline metrics --ncu --chip CHIP`)",
             st->tensor_shape_unknown, st->shape_unknown_name);
    if (st->tensor_pipe_shared)
        NOTE("%zu kernels count sm__inst_executed_pipe_tensor.sum but also FP16 or FP64 "
             "instructions (or the export does not count those, and the kernel name gives no "
             "MMA shape), which share that pipe on some GPUs (GA100): no Tensor FLOPs are "
             "inferred, and where a kernel did use Tensor Cores its FLOPs (CUDA cores only) are "
             "a lower bound (the sm__ops_path_tensor_* counters give exact counts)",
             st->tensor_pipe_shared);
    if (st->tensor_inst_only)
        NOTE("%zu kernels ran Tensor Core instructions (sm__inst_executed_pipe_tensor.sum) but "
             "the export has no Tensor Core op counters and no architecture with one MMA shape "
             "(no CC, or Hopper and later): their FLOPs count CUDA cores only (where the export "
             "counts them), a lower bound (re-export with `roofline metrics --ncu --chip "
             "CHIP`'s list)",
             st->tensor_inst_only);
    if (st->tensor_unknown)
        NOTE("%zu kernels have Tensor Core ops but no FLOPs: give --tensor-flops-per-op "
             "(the factor `roofline trace` prints in its tensor check)",
             st->tensor_unknown);
    if (st->flops_only)
        NOTE("%zu of %zu kernels have FLOPs but no byte counters in this export: shown as "
             "compute points (achieved FLOP/s against the compute roof, no intensity); to place "
             "them on the roofline add `--metrics %s` to the ncu command",
             st->flops_only, st->kernels,
             st->missing_bytes[0] ? st->missing_bytes
                                  : "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,"
                                    "l1tex__t_bytes.sum");
    if (st->timing_only)
        NOTE("%zu of %zu kernels have no byte counters in this export: timing only (export "
             "with `--metrics` from `roofline metrics --ncu --chip CHIP`)",
             st->timing_only, st->kernels);
    if (st->form[0] == 'w' && !st->units_row)
        NOTE("the export has no units row: values were read in ncu's base units (byte, "
             "nsecond), as `--print-units base` writes them");
    if (st->n_devices > 1)
        NOTE("the export holds kernels of %zu devices (%s): all are judged against one GPU's "
             "ceilings",
             st->n_devices, st->devices);
#undef NOTE
}
