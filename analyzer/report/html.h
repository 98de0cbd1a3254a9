/* html.h - report.html: the report as one self-contained page (the report JSON embedded, drawn by inline JS as an SVG roofline and tables; nothing loaded from the network). */
#ifndef RL_HTML_H
#define RL_HTML_H

#include "analyzer/report/report.h"

#include <stddef.h>
#include <stdio.h>

/* One line of the page's "Conditions" table: how the report was made
 * ("tokens", "2048"; "device", "NVIDIA H200 (GPU 0)"). Both strings are
 * the caller's; any bytes (shown as text, invalid UTF-8 as U+FFFD). */
struct rl_html_fact {
    const char *key, *value;
};

/* Output */

/* Write report.html to f: one file, its CSS and JS inline, the document
 * rl_report_json writes embedded as <script type="application/json"> (every
 * "</" written "<\/", "<!--" as "\u003c!--", so no name closes the element),
 * with the source's own facts (trace chip, counters, ...) and the caller's
 * `facts` (n_facts, may be 0) under "Conditions". title: the page's title
 * (NULL: "Roofline report: <GPU>"). Returns 0; RL_ENOMEM ("out of memory"
 * in errmsg, may be NULL) when the page could not be built in memory
 * (nothing written to f); RL_EIO when a write to f failed (f then holds
 * part of the page; the caller knows the file and says why). */
int rl_report_html(FILE *f, const struct rl_report *r, const struct rl_ceilings *c,
                   const char *title, const struct rl_html_fact *facts, size_t n_facts,
                   char *errmsg);

#endif
