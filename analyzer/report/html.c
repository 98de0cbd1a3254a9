/* html.c - report.html: the report as one self-contained page (the report JSON embedded, drawn by inline JS as an SVG roofline and tables; nothing loaded from the network). */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/html.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "dev"
#endif

/* The page: analyzer/report/report.html.in, embedded by CMakeLists.txt. Its
 * markers @@TITLE@@, @@VERSION@@, @@REPORT_JSON@@ and @@FACTS_JSON@@ are
 * replaced here; the rest (CSS, the script that draws the chart and the
 * tables from the JSON) is written as it is. */
extern const char rl__html_template[];

/* Text in HTML: markup characters as entities, invalid UTF-8 as U+FFFD,
 * control characters as spaces. */
static void put_html_text(FILE *f, const char *s)
{
    while (*s) {
        size_t len = rl_utf8_char(s);
        if (!len) {
            fputs(RL_UTF8_REPLACEMENT, f);
            s++;
            continue;
        }
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((unsigned char)*s < 0x20)
                fputc(' ', f);
            else
                fwrite(s, 1, len, f);
        }
        s += len;
    }
}

/* JSON text (n bytes) as the content of a <script> element. "</" would end
 * the element whatever follows it, and "<!--" changes how the parser looks
 * for that end (a later "<script" would hide it), so neither is written:
 * both can only be inside JSON strings, where "<\/" and "\u003c!--" mean
 * the same. */
static void put_script_json(FILE *f, const char *s, size_t n)
{
    size_t run = 0; /* the bytes from run to i are written as they are */
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<')
            continue;
        if (i + 1 < n && s[i + 1] == '/') {
            fwrite(s + run, 1, i - run, f);
            fputs("<\\/", f);
            run = ++i + 1;
        } else if (n - i >= 4 && memcmp(s + i, "<!--", 4) == 0) {
            fwrite(s + run, 1, i - run, f);
            fputs("\\u003c", f);
            run = i + 1;
        }
    }
    fwrite(s + run, 1, n - run, f);
}

static void put_fact(FILE *m, bool *first, const char *key, const char *value)
{
    if (!value || !*value)
        return;
    fputs(*first ? "\n  [" : ",\n  [", m);
    rl_fput_json_string(m, key);
    fputs(", ", m);
    rl_fput_json_string(m, value);
    fputc(']', m);
    *first = false;
}

/* {"facts": [[key, value], ...]}: what the source said about itself, then
 * the caller's facts. */
static void write_facts(FILE *m, const struct rl_report *r, const struct rl_html_fact *facts,
                        size_t n_facts)
{
    const struct rl_trace_summary *s = &r->source;
    char v[sizeof s->counters_reason + 64];
    bool first = true;
    fputs("{\"facts\": [", m);
    put_fact(m, &first, "chip", s->chip);
    if (s->sm_count > 0) {
        snprintf(v, sizeof v, "%d", s->sm_count);
        put_fact(m, &first, "SMs", v);
    }
    if (s->counters_status[0]) {
        snprintf(v, sizeof v, "%s%s%s", s->counters_status, s->counters_reason[0] ? ": " : "",
                 s->counters_reason);
        put_fact(m, &first, "counters", v);
    }
    if (s->passes > 0) {
        snprintf(v, sizeof v, "%.3g", s->passes);
        put_fact(m, &first, "replay passes per counted launch", v);
    }
    put_fact(m, &first, "Tensor Core types not counted", s->tensor_not_counted);
    put_fact(m, &first, "Tensor Core check", s->tensor_check);
    put_fact(m, &first, "trace notes", s->notes);
    if (s->incomplete)
        put_fact(m, &first, "trace", "incomplete: the program ended on a signal");
    for (size_t i = 0; i < n_facts; i++)
        put_fact(m, &first, facts[i].key, facts[i].value);
    fputs("\n]}\n", m);
}

int rl_report_html(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                   const char *title, const struct rl_html_fact *facts, size_t n_facts,
                   char *errmsg)
{
    /* The report's JSON and the facts are built in memory first: a failure
     * there (an allocation, or a memory stream that could not grow) is out
     * of memory, and nothing has been written to f yet. */
    char *report = NULL, *extra = NULL;
    size_t report_len = 0, extra_len = 0;
    FILE *m = rl_open_memstream(&report, &report_len);
    int rc = m ? rl_report_json(m, r, c) : -1;
    if (m && fclose(m))
        rc = -1;
    m = rc ? NULL : rl_open_memstream(&extra, &extra_len);
    if (m) {
        write_facts(m, r, facts, n_facts);
        if (ferror(m))
            rc = -1;
        if (fclose(m))
            rc = -1;
    } else {
        rc = -1;
    }
    if (rc) {
        free(report);
        free(extra);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    }
    char own_title[160];
    if (!title) {
        snprintf(own_title, sizeof own_title, "Roofline report: %s", c->gpu_name);
        title = own_title;
    }
    /* to the template's end: there strstr finds no marker */
    for (const char *t = rl__html_template;;) {
        const char *at = strstr(t, "@@");
        size_t k = at ? (size_t)(at - t) : strlen(t);
        fwrite(t, 1, k, f);
        t += k;
        if (!at)
            break;
        if (strncmp(at, "@@TITLE@@", 9) == 0)
            put_html_text(f, title), t += 9;
        else if (strncmp(at, "@@VERSION@@", 11) == 0)
            put_html_text(f, ROOFLINE_VERSION), t += 11;
        else if (strncmp(at, "@@REPORT_JSON@@", 15) == 0)
            put_script_json(f, report, report_len), t += 15;
        else if (strncmp(at, "@@FACTS_JSON@@", 14) == 0)
            put_script_json(f, extra, extra_len), t += 14;
        else
            fputc(*t++, f); /* not a marker */
    }
    free(report);
    free(extra);
    return ferror(f) ? rl_fail(errmsg, RL_EIO, "write failed") : RL_OK;
}
