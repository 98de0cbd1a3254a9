/* check_jsonstream_words.c - tests of the streaming JSON tokenizer's word-at-a-time paths (blanks, keys, strings) and its libc-exact number parsing, at each place around the eight-byte words. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/jsonstream.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsr_fixture.h"

/* The next token must be this number, read from this text. */
static void ck_number(double want, const char *text)
{
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NUMBER);
    ck_assert_double_eq(r.num, want);
    ck_assert_str_eq(r.num_text, text);
}

/* A number's text taken apart as strtoll and strtod take it: the edge
 * cases (signs, 18 / 19 / 20+ digits and the clamping past int64, leading
 * zeros, exponents, no digits, leading blanks), then random texts. */
START_TEST(whole_and_fraction_as_libc)
{
    static const char *const texts[] = {
        "0", "-0", "+7", "1661203462598738", "1661203462598738.25", "-1661203462598738",
        "000000000000000000123", "-000000000000000000000000000009", "999999999999999999",
        "-999999999999999999", "1000000000000000000", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "-123456789012345678901234567890", "1e5", "1.5e3",
        "-1.5E-3", "-", "+", "-.5", ".5", "", "e5", "+-5", "-+5", " 12", "\t-3", "12 ", "1.",
        "5.", "--1", "18446744073709551616", "0x1f", "1.2.3"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        char *we;
        const char *ge;
        long long want = strtoll(texts[i], &we, 10), got = rl_jsr_parse_whole(texts[i], &ge);
        ck_assert_msg(got == want && ge == we, "'%s': %lld end +%td, strtoll %lld end +%td",
                      texts[i], got, ge - texts[i], want, we - texts[i]);
    }
    static const char *const fracs[] = {
        ".", ".0", ".5", ".028", ".1", ".3", ".675", ".123456789", ".9999999999999999999",
        ".99999999999999999999", ".0000000000000000001", ".00000000000000000001",
        ".0000000000000000000000000001", ".9007199254740993", ".18014398509481985", ".5e3",
        ".25E-1", ".5 ", ".5.5", ".000000000000000000009007199254740993"};
    for (size_t i = 0; i < sizeof fracs / sizeof *fracs; i++) {
        double want = strtod(fracs[i], NULL), got = rl_jsr_parse_frac(fracs[i]);
        ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "'%s': %.17g, strtod %.17g",
                      fracs[i], got, want);
    }
    /* random texts of digits, signs, points and exponents */
    static const char alphabet[] = "0123456789000000000-+.eE";
    unsigned long long x = 88172645463325252ull;
    for (int n = 0; n < 200000; n++) {
        char t[32];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = 1 + x % 26;
        for (size_t k = 0; k < len; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* mostly digits: long runs reach the 18 / 19 digit limits */
            t[k] = x % 8 ? (char)('0' + (x >> 8) % 10) : alphabet[(x >> 8) % (sizeof alphabet - 1)];
        }
        t[len] = 0;
        char *we;
        const char *ge;
        long long want = strtoll(t, &we, 10), got = rl_jsr_parse_whole(t, &ge);
        ck_assert_msg(got == want && ge == we, "'%s': %lld, strtoll %lld", t, got, want);
        t[0] = '.';
        double fw = strtod(t, NULL), fg = rl_jsr_parse_frac(t);
        ck_assert_msg(memcmp(&fg, &fw, sizeof fg) == 0, "'%s': %.17g, strtod %.17g", t, fg, fw);
    }
}
END_TEST

/* Keys read into a 64-byte key (the word-at-a-time path): every length
 * around the words and the cut, an escape or a control byte anywhere. */
START_TEST(long_keys)
{
    char key[64], text[320], want[128];
    for (size_t len = 0; len < 80; len++) {
        for (int kind = 0; kind < 3; kind++) { /* plain, an escape, a control byte */
            for (size_t at = 0; at < (kind ? len : 1); at++) {
                size_t w = 0, k = 0;
                text[w++] = '{'; /* read first: the buffer is filled */
                text[w++] = '"';
                for (size_t i = 0; i < len; i++) {
                    char c = (char)('a' + (i + len) % 26); /* unlike the last key */
                    if (kind == 1 && i == at)
                        text[w++] = '\\', c = '"';
                    else if (kind == 2 && i == at)
                        c = '\x01';
                    text[w++] = c;
                    want[k++] = c;
                }
                /* blanks after: the buffer holds a whole key past the quote */
                snprintf(text + w, sizeof text - w, "\": 1%80s", "");
                want[k < 63 ? k : 63] = 0;
                open_text(text);
                ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACE);
                enum rl_jsr_tok t = rl_jsr_next_key(&r, key, sizeof key);
                if (kind == 2) {
                    ck_assert_int_eq(t, RL_TOK_EOF);
                    ck_assert_str_eq(err, "'t': line 1: control character in a string");
                    continue;
                }
                ck_assert_msg(t == RL_TOK_STRING, "len %zu kind %d at %zu", len, kind, at);
                ck_assert_str_eq(key, want);
                ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
                ck_number(1, "1");
            }
        }
    }
}
END_TEST

static int skip_field(struct rl_jsr *rd, void *ctx, const char *key)
{
    (void)ctx, (void)key;
    return rl_jsr_skip_fast(rd);
}

/* Lines counted over random runs of blanks between every token (runs of
 * spaces passed eight bytes at a time), in objects and arrays, and across
 * the buffer's refills: the error after them names the line. */
START_TEST(lines_over_blanks)
{
    static const char *const toks[] = {"{", "\"a\"", ":", "1", ",", "\"bc\"", ":", "[", "2",
                                       ",", "\"x\"", ",", "{", "}", "]", "}"};
    size_t cap = 4 * RL_JSR_BUF_BYTES;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    unsigned long long x = 88172645463325252ull;
    for (int doc = 0; doc < 400; doc++) {
        size_t w = 0;
        int lines = 1;
        /* the last docs are longer than the buffer: the blanks cross refills */
        size_t reps = doc < 395 ? 1 + doc % 7 : 12000;
        text[w++] = '[';
        for (size_t rep = 0; rep < reps; rep++) {
            if (rep)
                text[w++] = ',';
            for (size_t i = 0; i < sizeof toks / sizeof *toks; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                size_t blanks = x % 4 ? x % 11 : x % 29;
                for (size_t b = 0; b < blanks; b++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    char c = " \n \t \r    "[x % 10];
                    lines += c == '\n';
                    text[w++] = c;
                }
                size_t n = strlen(toks[i]);
                memcpy(text + w, toks[i], n);
                w += n;
            }
        }
        text[w++] = ']';
        for (int b = 0; b < doc % 19; b++) {
            text[w++] = b % 5 == 2 ? '\n' : ' ';
            lines += b % 5 == 2;
        }
        text[w++] = '@';
        text[w] = 0;
        ck_assert_uint_lt(w, cap);
        if (doc >= 395)
            ck_assert_uint_gt(w, RL_JSR_BUF_BYTES);
        open_text(text);
        ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
        for (size_t rep = 0; rep < reps; rep++) {
            if (rep)
                ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
            ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACE);
            ck_assert_int_eq(rl_jsr_read_object(&r, NULL, skip_field), 0);
        }
        ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_RBRACKET);
        ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_EOF);
        char want[64];
        snprintf(want, sizeof want, "'t': line %d: malformed JSON near '@'", lines);
        ck_assert_str_eq(err, want);
    }
    free(text);
}
END_TEST

/* Strings of every length with an escape or a control byte at every
 * place around the eight-byte words of the plain-run scan. */
START_TEST(strings_word_by_word)
{
    char text[128], want[64];
    for (size_t len = 0; len < 40; len++) {
        for (size_t at = 0; at <= len; at++) {
            for (int kind = 0; kind < 4; kind++) { /* plain, \", \n (escaped), a raw control */
                size_t w = 0, k = 0;
                text[w++] = '[';
                text[w++] = '"';
                for (size_t i = 0; i < len; i++) {
                    char c = (char)('A' + (i * 7 + len) % 50); /* letters and [\]^_` */
                    if (c == '\\')
                        c = '.';
                    if (i == at && kind == 1)
                        text[w++] = '\\', c = '"';
                    else if (i == at && kind == 2)
                        text[w++] = '\\', text[w++] = 'n', c = 0;
                    else if (i == at && kind == 3)
                        c = '\x1f';
                    if (c)
                        text[w++] = c;
                    want[k++] = c ? c : '\n';
                }
                text[w++] = '"';
                strcpy(text + w, ", 1]");
                want[k] = 0;
                open_text(text);
                ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
                enum rl_jsr_tok t = rl_jsr_next(&r);
                if (kind == 3 && at < len) {
                    ck_assert_int_eq(t, RL_TOK_EOF);
                    ck_assert_str_eq(err, "'t': line 1: control character in a string");
                    continue;
                }
                ck_assert_int_eq(t, RL_TOK_STRING);
                ck_assert_uint_eq(r.str_len, k);
                ck_assert_str_eq(r.str, want);
                ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
                ck_number(1, "1");
            }
        }
    }
}
END_TEST

static Suite *jsonstream_words_suite(void)
{
    Suite *s = suite_create("jsonstream_words");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, NULL, teardown);
    tcase_add_test(core, whole_and_fraction_as_libc);
    tcase_add_test(core, strings_word_by_word);
    tcase_add_test(core, long_keys);
    tcase_add_test(core, lines_over_blanks);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(jsonstream_words_suite()); }
