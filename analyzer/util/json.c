/* json.c - cJSON helpers: parse files with line numbers, typed getters, output. */
#include "analyzer/util/json.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cJSON allocates through analyzer/util/alloc.h too, so that its
 * allocations are counted and can be failed (tests/faults). Set before
 * main; free() releases what rl_malloc gives. */
__attribute__((constructor)) static void json_hooks(void)
{
    cJSON_Hooks hooks = {rl_malloc, free};
    cJSON_InitHooks(&hooks);
}

void rl_json_position(const char *text, size_t offset, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* Does the text end inside a string or an open object/array? */
static int ends_open(const char *text, size_t len)
{
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return in_string || depth > 0;
}

int rl_json_parse(const char *text, size_t len, const char *what,
                  cJSON **out, char *errmsg)
{
    const char *end = NULL;
    unsigned long failed = rl_alloc_failures();
    *out = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!*out && rl_alloc_failures() != failed) /* cJSON says "malformed" then too */
        return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", what);
    if (*out) {
        /* Only blanks may follow the document. */
        size_t off = (size_t)(end - text);
        while (off < len && strchr(" \t\r\n", text[off]) && text[off])
            off++;
        if (off == len)
            return RL_OK;
        cJSON_Delete(*out);
        *out = NULL;
        int line, col;
        rl_json_position(text, off, &line, &col);
        return rl_fail(errmsg, RL_EPARSE,
                       "'%s': line %d, column %d: malformed JSON: text after the "
                       "end of the document", what, line, col);
    }
    /* cJSON reports where it stopped; an empty or all-blank document stops
     * at its start, which reads better as "empty". */
    size_t off = end && end >= text ? (size_t)(end - text) : 0;
    if (off > len)
        off = len;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' ||
                       text[i] == '\r'))
        i++;
    if (i == len)
        return rl_fail(errmsg, RL_EPARSE, "'%s': line 1: empty file, expected JSON",
                       what);
    int line, col;
    rl_json_position(text, off, &line, &col);
    char near[24];
    size_t n = 0;
    for (size_t j = off; j < len && n < 16 && text[j] != '\n'; j++)
        near[n++] = (text[j] >= 32 && text[j] < 127) ? text[j] : '?';
    near[n] = '\0';
    /* cJSON stops at the start of the unfinished token: call the file
     * truncated when it ends open and the stop is on its last line. */
    int end_line, end_col;
    rl_json_position(text, len, &end_line, &end_col);
    size_t rest = off;
    while (rest < len && strchr(" \t\r\n", text[rest]) && text[rest])
        rest++;
    if (rest >= len || (ends_open(text, len) && line == end_line)) {
        line = end_line;
        col = end_col;
        return rl_fail(errmsg, RL_EPARSE,
                       "'%s': line %d, column %d: malformed JSON (truncated: "
                       "unexpected end of file)", what, line, col);
    }
    return rl_fail(errmsg, RL_EPARSE,
                   "'%s': line %d, column %d: malformed JSON near '%s'", what,
                   line, col, near);
}

int rl_json_parse_file(const char *path, cJSON **out, char *errmsg)
{
    char *text;
    size_t len;
    *out = NULL;
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    rc = rl_json_parse(text, len, path, out, errmsg);
    free(text);
    return rc;
}

const char *rl_json_string(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

double rl_json_number(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

double rl_json_round(double v, int digits)
{
    if (!isfinite(v) || v == 0)
        return v;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    return strtod(buf, NULL);
}

cJSON *rl_json_add_number(cJSON *obj, const char *key, double v)
{
    if (!isfinite(v))
        return cJSON_AddNullToObject(obj, key);
    return cJSON_AddNumberToObject(obj, key, v);
}

int rl_json_write_file(const cJSON *doc, const char *path, char *errmsg)
{
    char *text = cJSON_Print(doc);
    if (!text)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory printing JSON");
    size_t n = strlen(text);
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, errmsg);
    if (rc == RL_OK) {
        if (fwrite(text, 1, n, f.fp) != n || fputc('\n', f.fp) == EOF) {
            rc = rl_atomic_fail(&f, errmsg);
        } else {
            rc = rl_atomic_commit(&f, errmsg);
        }
    }
    cJSON_free(text);
    return rc;
}

void rl_json_path_format(const struct rl_json_path *p, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (p->depth == 0) {
        snprintf(buf, size, "(document)");
        return;
    }
    for (int i = 0; i < p->depth && used < size; i++) {
        int n;
        if (p->step[i].key)
            n = snprintf(buf + used, size - used, "%s%s", i ? "." : "",
                         p->step[i].key);
        else
            n = snprintf(buf + used, size - used, "[%d]", p->step[i].index);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* The locator: a minimal JSON scanner that follows a path through the text
 * and returns the offset of the value it names. It trusts that cJSON already
 * accepted the text, so it only needs to skip values correctly. */
struct scan {
    const char *s;
    size_t len, pos;
};

static void scan_ws(struct scan *sc)
{
    while (sc->pos < sc->len && (sc->s[sc->pos] == ' ' || sc->s[sc->pos] == '\t' ||
                                 sc->s[sc->pos] == '\n' || sc->s[sc->pos] == '\r'))
        sc->pos++;
}

/* At an opening quote: move past the closing one. */
static void scan_string(struct scan *sc)
{
    sc->pos++;
    while (sc->pos < sc->len && sc->s[sc->pos] != '"')
        sc->pos += sc->s[sc->pos] == '\\' ? 2 : 1;
    sc->pos++;
}

static void scan_value(struct scan *sc)
{
    scan_ws(sc);
    if (sc->pos >= sc->len)
        return;
    char c = sc->s[sc->pos];
    if (c == '"') {
        scan_string(sc);
    } else if (c == '{' || c == '[') {
        int depth = 0;
        while (sc->pos < sc->len) {
            char d = sc->s[sc->pos];
            if (d == '"') {
                scan_string(sc);
                continue;
            }
            if (d == '{' || d == '[')
                depth++;
            else if (d == '}' || d == ']')
                depth--;
            sc->pos++;
            if (depth == 0)
                break;
        }
    } else {
        while (sc->pos < sc->len && !strchr(",}] \t\r\n", sc->s[sc->pos]))
            sc->pos++;
    }
}

/* Compare the string literal at sc->pos with key (escapes compared as
 * written: keys with escapes are not expected in our formats). */
static int scan_key_equals(const struct scan *sc, const char *key)
{
    size_t k = strlen(key);
    return sc->pos + k + 1 < sc->len && memcmp(sc->s + sc->pos + 1, key, k) == 0 &&
           sc->s[sc->pos + 1 + k] == '"';
}

static bool scan_step(struct scan *sc, const char *key, int index)
{
    scan_ws(sc);
    if (sc->pos >= sc->len)
        return false;
    char open = sc->s[sc->pos];
    if ((key && open != '{') || (!key && open != '['))
        return false;
    sc->pos++;
    for (int i = 0;; i++) {
        scan_ws(sc);
        if (sc->pos >= sc->len || sc->s[sc->pos] == '}' || sc->s[sc->pos] == ']')
            return false;
        if (key) {
            int match = scan_key_equals(sc, key);
            scan_string(sc);
            scan_ws(sc);
            if (sc->pos < sc->len) /* a text cut after the key: stay at its end */
                sc->pos++;         /* ':' */
            scan_ws(sc);
            if (match)
                return true;
        } else if (i == index) {
            return true;
        }
        scan_value(sc);
        scan_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == ',')
            sc->pos++;
    }
}

int rl_json_locate_line(const char *text, size_t len,
                        const struct rl_json_path *p)
{
    struct scan sc = {text, len, 0};
    for (int i = 0; i < p->depth; i++)
        if (!scan_step(&sc, p->step[i].key, p->step[i].index))
            return 0;
    scan_ws(&sc);
    int line, col;
    rl_json_position(text, sc.pos, &line, &col);
    return line;
}
