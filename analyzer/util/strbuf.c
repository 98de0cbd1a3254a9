/* strbuf.c - growable strings for building scripts, tables and reports; string helpers. */
#include "analyzer/util/strbuf.h"
#include "analyzer/util/alloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(struct rl_strbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = rl_realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void rl_strbuf_append(struct rl_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void rl_strbuf_printf(struct rl_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void rl_strbuf_release(struct rl_strbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

size_t rl_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return la > lb ? la : lb;
    size_t row[128];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}


size_t rl_utf8_char(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    if (s[0] < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        if (s[0] == 0xE0)
            lo = 0xA0; /* overlong */
        else if (s[0] == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        if (s[0] == 0xF0)
            lo = 0x90;
        else if (s[0] == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0; /* the NUL stops here too */
    return len;
}

void rl_utf8_clean(char *buf, size_t n, const char *s)
{
    size_t k = 0;
    while (*s) {
        size_t len = rl_utf8_char(s);
        const char *put = len ? s : RL_UTF8_REPLACEMENT;
        size_t put_len = len ? len : 3;
        if (k + put_len + 1 > n)
            break;
        if (put_len == 1 && (unsigned char)*put < 0x20 && *put != '\t')
            buf[k++] = ' ';
        else
            memcpy(buf + k, put, put_len), k += put_len;
        s += len ? len : 1;
    }
    if (n)
        buf[k < n ? k : n - 1] = 0;
}

void rl_str_shorten(char *buf, size_t n, const char *s)
{
    if (n == 0)
        return;
    /* Output bytes of each character (3 for a replaced one), and the most
     * whole characters that leave room for "...". */
    size_t total = 0, keep = 0;
    bool fits = true;
    for (const char *p = s; *p;) {
        size_t len = rl_utf8_char(p), out = len ? len : 3;
        if (total + out + 4 <= n)
            keep = total + out;
        total += out;
        if (total + 1 > n) {
            fits = false;
            break;
        }
        p += len ? len : 1;
    }
    if (fits) {
        rl_utf8_clean(buf, n, s);
    } else if (n < 4) {
        buf[0] = 0;
    } else {
        rl_utf8_clean(buf, keep + 1, s);
        memcpy(buf + keep, "...", 4);
    }
}

void rl_fput_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const char *p = s ? s : "", *run = p; /* run: the bytes written as they are, up to p */
    while (*p) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            p++;
            continue;
        }
        size_t len = rl_utf8_char(p);
        if (c >= 0x80 && len) { /* a whole UTF-8 character: written as it is */
            p += len;
            continue;
        }
        fwrite(run, 1, (size_t)(p - run), f);
        if (len == 0) {
            fputs(RL_UTF8_REPLACEMENT, f);
            p++;
        } else if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            p++;
        } else { /* a control byte */
            fprintf(f, "\\u%04x", c);
            p++;
        }
        run = p;
    }
    fwrite(run, 1, (size_t)(p - run), f);
    fputc('"', f);
}

void rl_fput_json_number(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
    } else if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
        /* "%.0f" of an integer a double holds exactly: its digits (and
         * "-0" for negative zero), without printf */
        char d[24];
        size_t k = sizeof d;
        uint64_t u = (uint64_t)fabs(v);
        do
            d[--k] = (char)('0' + u % 10);
        while (u /= 10);
        if (signbit(v))
            d[--k] = '-';
        fwrite(d + k, 1, sizeof d - k, f);
    } else {
        fprintf(f, "%.9g", v);
    }
}

size_t rl_utf8_width(const char *s)
{
    size_t n = 0;
    while (*s) {
        size_t len = rl_utf8_char(s);
        s += len ? len : 1;
        n++;
    }
    return n;
}
