/* check_html.c - tests of report.html: one self-contained file, nothing loaded from outside, its embedded report JSON whole whatever the names hold, written by report and run. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/report/html.h"
#include "analyzer/report/report.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names a page must show as text: markup, an entity, quotes, bytes that
 * are not UTF-8, the end of the script element the JSON sits in, and the
 * "<!--" that would hide that end from the HTML parser. */
#define N_HOSTILE "gemm<bf16, 128> & \"q\" 'a' \xE9\xFF k</script><b>x</b>"
#define N_COMMENT "copy <!--<script> a"
#define N_PLAIN "gemv 4096x14336"
#define N_MEMORY "memcpy DtoD"

static const char *const names[] = {N_HOSTILE, N_COMMENT, N_PLAIN, N_MEMORY};

static void build(struct rl_report *r, struct rl_ceilings *c)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_ceilings_init(c, rl_test_gpu("h200"), NULL, NULL, false, false, NULL, err) ==
                      0,
                  "%s", err);
    struct rl_trace_groups g = {0};
    const uint32_t grid[3] = {132, 1, 1}, block[3] = {256, 1, 1};
    const double b_comp[3] = {1e9, 2e9, 8e9}, b_mem[3] = {1e9, NAN, NAN},
                 b_copy[3] = {4e9, 4e9, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, N_HOSTILE, grid, block, "bf16", RL_ORIGIN_MEASURED,
                                         3, 1e12, b_comp, 2e6),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, N_COMMENT, grid, block, "bf16",
                                         RL_ORIGIN_MEASURED, 1, 1e10, b_mem, 4e5),
                     0);
    ck_assert_int_eq(rl_trace_groups_add(&g, N_PLAIN, grid, block, "bf16", RL_ORIGIN_ANALYTIC, 1,
                                         1.2e8, b_mem, NAN),
                     0);
    /* No FLOPs, only bytes: a memory point, listed and not drawn. */
    ck_assert_int_eq(rl_trace_groups_add(&g, N_MEMORY, grid, block, "", RL_ORIGIN_MEASURED, 1, 0,
                                         b_copy, 1e6),
                     0);
    ck_assert_msg(rl_report_build(r, c, &g, err) == 0, "%s", err);
    snprintf(r->source_kind, sizeof r->source_kind, "trace");
    snprintf(r->source_path, sizeof r->source_path, "t<1>.json");
    rl_report_note(r, "a note with <markup> & </script>");
    rl_trace_groups_release(&g);
}

static char *render_html(const struct rl_report *r, const struct rl_ceilings *c,
                         const char *title, const struct rl_html_fact *facts, size_t n_facts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(rl_report_html(f, r, c, title, facts, n_facts, NULL), 0);
    fclose(f);
    ck_assert_uint_eq(strlen(buf), len); /* no NUL inside */
    return buf;
}

static char *render_json(const struct rl_report *r, const struct rl_ceilings *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_json(f, r, c), 0);
    fclose(f);
    return buf;
}

static bool utf8_valid(const char *s)
{
    while (*s) {
        size_t n = rl_utf8_char(s);
        if (!n)
            return false;
        s += n;
    }
    return true;
}

/* The text of the element <script type="application/json" id="ID">
 * (malloc'd), NULL when there is none. */
static char *script_json(const char *html, const char *id)
{
    char open[128];
    snprintf(open, sizeof open, "<script type=\"application/json\" id=\"%s\">", id);
    const char *p = strstr(html, open);
    if (!p)
        return NULL;
    p += strlen(open);
    const char *end = strstr(p, "</script>");
    return end ? strndup(p, (size_t)(end - p)) : NULL;
}

static size_t count_ci(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, k) == 0)
            n++;
    return n;
}

/* Nothing in the page names anything outside it: no URL, no linked file,
 * no import, and no script call that could reach the network. */
static void assert_self_contained(const char *html)
{
    static const char *const never[] = {"http://", "https://", "ftp://", "//cdn", "<link",
                                        "@import", "<iframe", "<object", "<embed", "fetch(",
                                        "XMLHttpRequest", "WebSocket", "EventSource",
                                        "sendBeacon", "import(", "<base", "srcset", "<img",
                                        "new Image", "window.open", NULL};
    for (size_t i = 0; never[i]; i++)
        ck_assert_msg(count_ci(html, never[i]) == 0, "report.html holds '%s'", never[i]);
    /* src= and href= only to data: (there are none today); url( only to a
     * fragment of the page or to data:. */
    static const char *const attrs[] = {"src=", "href=", "url(", "action=", NULL};
    for (size_t a = 0; attrs[a]; a++) {
        size_t k = strlen(attrs[a]);
        for (const char *p = html; (p = strcasestr(p, attrs[a])); p += k) {
            const char *v = p + k;
            while (*v == '"' || *v == '\'' || *v == ' ')
                v++;
            ck_assert_msg(strncasecmp(v, "data:", 5) == 0 || (a == 2 && *v == '#'),
                          "report.html: '%.40s' points outside the page", p);
        }
    }
    /* The policy says so to the browser too. */
    ck_assert_ptr_nonnull(strstr(html, "<meta http-equiv=\"Content-Security-Policy\" "
                                       "content=\"default-src 'none';"));
}

START_TEST(html_is_one_self_contained_file)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build(&r, &c);
    static const struct rl_html_fact facts[] = {{"tokens", "2048"},
                                                {"device", "GPU <0> & \"x\" \xFF"}};
    char *html = render_html(&r, &c, "t <b>&</b> \"q\"", facts, 2);
    ck_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    ck_assert_msg(utf8_valid(html), "report.html is not UTF-8");
    assert_self_contained(html);
    /* Inline CSS and JS, every script element closed where it should be:
     * the names' "</script>" and "<!--<script>" did not end or hide one. */
    ck_assert_uint_eq(rl_test_count(html, "<style>"), 1);
    ck_assert_uint_eq(count_ci(html, "</script"), 4); /* policy listener, 2 JSON, the script */
    ck_assert_uint_eq(rl_test_count(html, "<!--"), 1); /* the template's own comment, first */
    ck_assert_ptr_eq(strstr(html, "<!--"), strstr(html, "\n") + 1);
    ck_assert_ptr_null(strstr(html, "@@"));             /* every marker replaced */
    /* The title is text. */
    ck_assert_ptr_nonnull(strstr(html, "<title>t &lt;b&gt;&amp;&lt;/b&gt; &quot;q&quot;</title>"));
    ck_assert_ptr_nonnull(strstr(html, "<h1>t &lt;b&gt;&amp;&lt;/b&gt; &quot;q&quot;</h1>"));
    free(html);
    /* An apostrophe as an entity, control characters (tab, 0x1F) as
     * spaces, a space (0x20) and '~' as they are, a byte that is not
     * UTF-8 as U+FFFD (EF BF BD), a 2-byte character whole. */
    html = render_html(&r, &c, "it's\ta\x1f b~\xFF\xC3\xA9", NULL, 0);
    ck_assert_msg(utf8_valid(html), "report.html is not UTF-8");
    ck_assert_ptr_nonnull(strstr(html, "<title>it&#39;s a  b~\xEF\xBF\xBD\xC3\xA9</title>"));
    free(html);
    rl_report_release(&r);
}
END_TEST

START_TEST(html_embeds_the_report_json)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build(&r, &c);
    char *html = render_html(&r, &c, NULL, NULL, 0);
    char *embedded = script_json(html, "report-data");
    ck_assert_ptr_nonnull(embedded);
    ck_assert_ptr_null(strstr(embedded, "</"));
    ck_assert_ptr_null(strstr(embedded, "<!--"));
    ck_assert_ptr_nonnull(strstr(embedded, "k<\\/script><b>x<\\/b>"));
    ck_assert_ptr_nonnull(strstr(embedded, "copy \\u003c!--<script> a"));
    cJSON *doc = cJSON_Parse(embedded);
    ck_assert_msg(doc != NULL, "the embedded JSON does not parse");
    /* The same document as report.json, key for key. */
    char *json = render_json(&r, &c);
    cJSON *want = cJSON_Parse(json);
    ck_assert_ptr_nonnull(want);
    ck_assert_msg(cJSON_Compare(doc, want, true), "the embedded JSON is not report.json's");
    /* Every kernel, its name whole (invalid bytes as U+FFFD). */
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
    ck_assert_int_eq(cJSON_GetArraySize(kernels), 4);
    for (size_t i = 0; i < 4; i++) {
        char clean[256];
        rl_utf8_clean(clean, sizeof clean, names[i]);
        bool found = false;
        const cJSON *k;
        cJSON_ArrayForEach(k, kernels) {
            found |= strcmp(rl_json_string(k, "name"), clean) == 0;
        }
        ck_assert_msg(found, "kernel '%s' missing", clean);
    }
    const cJSON *memory = NULL, *k;
    cJSON_ArrayForEach(k, kernels) {
        if (strcmp(rl_json_string(k, "name"), N_MEMORY) == 0)
            memory = k;
    }
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(memory, "memory_only")));
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "notes"), 0)
                         ->valuestring,
                     "a note with <markup> & </script>");
    cJSON_Delete(doc);
    cJSON_Delete(want);
    free(json);
    free(embedded);
    /* No title given: the GPU's. */
    ck_assert_ptr_nonnull(strstr(html, "<title>Roofline report: NVIDIA H200 SXM 141GB</title>"));
    free(html);
    rl_report_release(&r);
}
END_TEST

START_TEST(html_conditions)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build(&r, &c);
    snprintf(r.source.chip, sizeof r.source.chip, "GH100");
    r.source.sm_count = 132;
    snprintf(r.source.counters_status, sizeof r.source.counters_status, "off");
    snprintf(r.source.counters_reason, sizeof r.source.counters_reason, "no permission </script>");
    static const struct rl_html_fact facts[] = {{"tokens", "2048"},
                                                {"device", "GPU <0> \xFF"},
                                                {"empty", ""}};
    char *html = render_html(&r, &c, NULL, facts, 3);
    char *text = script_json(html, "run-facts");
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    ck_assert_msg(doc != NULL, "the facts do not parse: %s", text);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "facts");
    static const char *const want[][2] = {{"chip", "GH100"},
                                          {"SMs", "132"},
                                          {"counters", "off: no permission </script>"},
                                          {"tokens", "2048"},
                                          {"device", "GPU <0> " RL_UTF8_REPLACEMENT}};
    ck_assert_int_eq(cJSON_GetArraySize(list), 5); /* an empty value is left out */
    for (int i = 0; i < 5; i++) {
        const cJSON *f = cJSON_GetArrayItem(list, i);
        ck_assert_str_eq(cJSON_GetArrayItem(f, 0)->valuestring, want[i][0]);
        ck_assert_str_eq(cJSON_GetArrayItem(f, 1)->valuestring, want[i][1]);
    }
    cJSON_Delete(doc);
    free(text);
    free(html);
    rl_report_release(&r);
}
END_TEST

/* The DOM the script fills: the elements it looks up are in the page. */
START_TEST(html_page_skeleton)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build(&r, &c);
    char *html = render_html(&r, &c, NULL, NULL, 0);
    static const char *const ids[] = {"chart", "chart-title", "tip", "not-drawn", "filter",
                                      "count", "kernels", "ceilings", "notes", "conditions",
                                      "summary", "rl-selfcheck", "chart-wrap", NULL};
    for (size_t i = 0; ids[i]; i++) {
        char want[64];
        snprintf(want, sizeof want, "id=\"%s\"", ids[i]);
        ck_assert_msg(rl_test_count(html, want) == 1, "no single element %s", want);
    }
    ck_assert_ptr_nonnull(strstr(html, "<noscript>"));
    free(html);
    rl_report_release(&r);
}
END_TEST

/* ---- limits ---------------------------------------------------------------- */

START_TEST(html_write_errors)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build(&r, &c);
    FILE *f = fopen("/dev/null", "r");
    ck_assert_ptr_nonnull(f);
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_report_html(f, &r, &c, NULL, NULL, 0, err), RL_EIO);
    ck_assert_str_eq(err, "write failed");
    fclose(f);
    rl_report_release(&r);
}
END_TEST

START_TEST(html_no_kernels)
{
    static struct rl_ceilings c;
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("l4"), NULL, NULL, false, false, NULL, err),
                     0);
    struct rl_trace_groups g = {0};
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *html = render_html(&r, &c, "", NULL, 0);
    char *embedded = script_json(html, "report-data");
    cJSON *doc = cJSON_Parse(embedded);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "kernels")), 0);
    ck_assert_ptr_nonnull(strstr(html, "<title></title>"));
    cJSON_Delete(doc);
    free(embedded);
    free(html);
    rl_report_release(&r);
}
END_TEST

/* ---- the commands ---------------------------------------------------------- */

static char *slurp_in(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return rl_test_slurp(path);
}

/* report.html beside report.json in dir: self-contained, the same
 * document embedded. Returns the page (malloc'd). */
static char *assert_html_in(const char *dir)
{
    char *html = slurp_in(dir, "report.html"), *json = slurp_in(dir, "report.json");
    ck_assert_msg(html != NULL, "%s/report.html missing", dir);
    ck_assert_msg(json != NULL, "%s/report.json missing", dir);
    assert_self_contained(html);
    char *embedded = script_json(html, "report-data");
    ck_assert_ptr_nonnull(embedded);
    cJSON *a = cJSON_Parse(embedded), *b = cJSON_Parse(json);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(cJSON_Compare(a, b, true), "%s: report.html embeds another document", dir);
    ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "kernels")), 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(embedded);
    free(json);
    return html;
}

START_TEST(report_writes_html)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/rep", rl_test_tmpdir());
    static const char *const env[] = {"ROOFLINE_GNUPLOT=/nonexistent/gnuplot", NULL};
    struct rl_run r = rl_test_cli(env, "report", "--gpu", "h200", "--kernels",
                                  ROOFLINE_SOURCE_DIR "/data/examples/llm-decode-prefill.json",
                                  "--bench", rl_test_data("bench-synthetic.json"), "--title",
                                  "mine <&>", "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "report.html"));
    rl_run_release(&r);
    char *html = assert_html_in(dir);
    ck_assert_ptr_nonnull(strstr(html, "<title>mine &lt;&amp;&gt;</title>"));
    char *facts = script_json(html, "run-facts");
    ck_assert_ptr_nonnull(strstr(facts, "\"measured ceilings from\""));
    ck_assert_ptr_nonnull(strstr(facts, "bench-synthetic.json"));
    free(facts);
    free(html);
    /* --no-chart: no image, the page all the same. */
    snprintf(dir, sizeof dir, "%s/rep-nochart", rl_test_tmpdir());
    r = rl_test_cli(NULL, "report", "--gpu", "h200", "--kernels",
                    ROOFLINE_SOURCE_DIR "/data/examples/llm-decode-prefill.json", "--no-chart",
                    "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    free(assert_html_in(dir));
}
END_TEST

START_TEST(run_writes_html)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/run", rl_test_tmpdir());
    static const char *const env[] = {"ROOFLINE_GNUPLOT=/nonexistent/gnuplot",
                                      "CUDA_VISIBLE_DEVICES=-1", NULL};
    struct rl_run r = rl_test_cli(env, "run", "--no-gpu", "--tokens", "512", "-o", dir,
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    char *html = assert_html_in(dir);
    char *text = script_json(html, "run-facts");
    cJSON *doc = cJSON_Parse(text);
    ck_assert_ptr_nonnull(doc);
    const cJSON *f, *list = cJSON_GetObjectItemCaseSensitive(doc, "facts");
    bool run = false, workload = false;
    cJSON_ArrayForEach(f, list) {
        const char *k = cJSON_GetArrayItem(f, 0)->valuestring,
                   *v = cJSON_GetArrayItem(f, 1)->valuestring;
        run |= strcmp(k, "run") == 0 && strstr(v, "analytic: no GPU measured (--no-gpu)");
        workload |= strcmp(k, "workload") == 0 && strstr(v, "context 512, prefill of 512");
    }
    ck_assert_msg(run && workload, "run's facts missing: %s", text);
    cJSON_Delete(doc);
    free(text);
    /* A failing run leaves the page of the last good one. */
    static const char *const fail[] = {"ROOFLINE_GNUPLOT=/bin/false", "CUDA_VISIBLE_DEVICES=-1",
                                       NULL};
    r = rl_test_cli(fail, "run", "--no-gpu", "--tokens", "1024", "-o", dir, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    rl_run_release(&r);
    char *after = slurp_in(dir, "report.html");
    ck_assert_ptr_nonnull(after);
    ck_assert_str_eq(after, html);
    free(after);
    free(html);
}
END_TEST

/* Counts the source does not know (0 SMs, 0 replay passes) are left out
 * of the facts, not shown as "0": only the chip remains. */
START_TEST(html_unknown_counts_are_left_out)
{
    static struct rl_ceilings c;
    struct rl_report r;
    build(&r, &c);
    snprintf(r.source.chip, sizeof r.source.chip, "GH100");
    r.source.sm_count = 0;
    r.source.passes = 0;
    char *html = render_html(&r, &c, NULL, NULL, 0);
    char *text = script_json(html, "run-facts");
    ck_assert_ptr_nonnull(text);
    cJSON *doc = cJSON_Parse(text);
    ck_assert_msg(doc != NULL, "the facts do not parse: %s", text);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "facts");
    ck_assert_int_eq(cJSON_GetArraySize(list), 1);
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(list, 0), 0)->valuestring, "chip");
    cJSON_Delete(doc);
    free(text);
    free(html);
    rl_report_release(&r);
}
END_TEST

/* Copies and fills are rows of their own kind, and the page says each
 * row's bound in the reporter's words (bound_text), counting launches by
 * kind as the terminal does (issue 32). */
START_TEST(html_kinds_and_bound_words)
{
    char err[RL_ERRMSG_SIZE];
    static struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("h200"), NULL, NULL, false, false, NULL, err),
                     0);
    struct rl_trace_groups g = {0};
    const uint32_t grid[3] = {1, 1, 1};
    const double b_fill[3] = {4.8e6, NAN, NAN}, none[3] = {NAN, NAN, NAN};
    /* a fill: 4.8 MB written, 0 FLOPs, in 2 us */
    ck_assert_int_eq(rl_trace_groups_add(&g, "Memset (Device)", grid, grid, "",
                                         RL_ORIGIN_MEASURED, 2, 0, b_fill, 2000),
                     0);
    /* a host-to-device copy: no bytes, no FLOPs */
    ck_assert_int_eq(rl_trace_groups_add(&g, "Memcpy HtoD (Pinned -> Device)", grid, grid, "",
                                         RL_ORIGIN_MEASURED, 1, NAN, none, 5000),
                     0);
    struct rl_report r;
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    char *h = render_html(&r, &c, NULL, NULL, 0);
    char *j = script_json(h, "report-data");
    ck_assert_ptr_nonnull(j);
    ck_assert_ptr_nonnull(strstr(j, "\"launches\": 3, \"kernel_launches\": 0, "
                                    "\"memcpy_launches\": 1, \"memset_launches\": 2"));
    ck_assert_ptr_nonnull(strstr(j, "\"kind\": \"memset\""));
    ck_assert_ptr_nonnull(strstr(j, "\"kind\": \"memcpy\""));
    /* the fill: memory-bound at DRAM; the copy: no bound */
    ck_assert_ptr_nonnull(strstr(j, "\"bound\": \"memory\", \"limiter\": \"dram\", "
                                    "\"bound_text\": \"memory (DRAM)\""));
    ck_assert_ptr_nonnull(strstr(j, "\"bound\": \"unknown\", \"bound_text\": \"-\""));
    ck_assert_ptr_nonnull(strstr(h, "if (typeof k.bound_text === 'string') return k.bound_text;"));
    ck_assert_ptr_nonnull(strstr(h, "row('launches', launchesText(s));"));
    free(j);
    free(h);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

static Suite *html_suite(void)
{
    Suite *s = suite_create("html");
    TCase *core = tcase_create("core");
    tcase_add_test(core, html_is_one_self_contained_file);
    tcase_add_test(core, html_embeds_the_report_json);
    tcase_add_test(core, html_conditions);
    tcase_add_test(core, html_page_skeleton);
    tcase_add_test(core, report_writes_html);
    tcase_add_test(core, run_writes_html);
    tcase_add_test(core, html_kinds_and_bound_words);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, html_write_errors);
    tcase_add_test(limits, html_no_kernels);
    tcase_add_test(limits, html_unknown_counts_are_left_out);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(html_suite()); }
