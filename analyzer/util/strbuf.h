/* strbuf.h - growable strings for building scripts, tables and reports; string helpers. */
#ifndef RL_STRBUF_H
#define RL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rl_strbuf {
    char *s;     /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
    bool oom;    /* an append failed: the content is truncated */
};

/* Append formatted text. On allocation failure sets oom and drops the text;
 * check oom once at the end. */
void rl_strbuf_printf(struct rl_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void rl_strbuf_append(struct rl_strbuf *b, const char *s, size_t n);
void rl_strbuf_release(struct rl_strbuf *b);

/* Helpers */

/* Edit distance between two strings (for "did you mean"); strings longer
 * than 127 bytes give the longer length. */
size_t rl_edit_distance(const char *a, const char *b);

/* s into buf, cut with "..." to fit n bytes. */
void rl_str_shorten(char *buf, size_t n, const char *s);

/* s as a JSON string literal, quotes and escapes included. */
void rl_fput_json_string(FILE *f, const char *s);

#endif
