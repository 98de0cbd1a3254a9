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

/* s into buf, cut with "..." to fit n bytes (at a character boundary;
 * invalid UTF-8 replaced, as rl_utf8_clean). */
void rl_str_shorten(char *buf, size_t n, const char *s);

/* Text is data: names come from programs and files and may hold any byte.
 * Every output is valid UTF-8: a byte that does not start a valid sequence
 * becomes U+FFFD. */
#define RL_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* The length (1-4) of the valid UTF-8 character at s, 0 when s does not
 * start one (a stray continuation byte, an overlong or surrogate form, a
 * sequence cut short); 1 for the NUL. */
size_t rl_utf8_char(const char *s);

/* The characters of s as it prints (rl_utf8_clean): a valid sequence is one,
 * so is each byte that starts none (it prints as U+FFFD). */
size_t rl_utf8_width(const char *s);

/* s into buf (n bytes, always terminated), invalid bytes as U+FFFD and
 * control characters other than tab as spaces; a character that does not
 * fit is left out whole. */
void rl_utf8_clean(char *buf, size_t n, const char *s);

/* s as a JSON string literal, quotes and escapes included, invalid UTF-8
 * as U+FFFD (the document always parses). */
void rl_fput_json_string(FILE *f, const char *s);

/* v as a JSON number: a whole number exactly, digit for digit, up to 2^53
 * (FLOPs, bytes, parameters: "240518169000", never 2.40518169e+11); any
 * other value to 9 significant digits; null for NaN and infinities. */
void rl_fput_json_number(FILE *f, double v);

#endif
