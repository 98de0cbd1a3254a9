/* check_strbuf.c - tests of the growable string, edit distance, UTF-8 helpers, JSON scalars and "did you mean". */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/strbuf.h"
#include "analyzer/util/suggest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What rl_fput_json_string / _number write, as a string (malloc'd). */
static char *json_string_of(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    rl_fput_json_string(f, s);
    fclose(f);
    return buf;
}

static char *json_number_of(double v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    rl_fput_json_number(f, v);
    fclose(f);
    return buf;
}

#define ck_json_string(in, want)                                               \
    do {                                                                       \
        char *got_ = json_string_of(in);                                       \
        ck_assert_str_eq(got_, want);                                          \
        free(got_);                                                            \
    } while (0)

#define ck_json_number(v, want)                                                \
    do {                                                                       \
        char *got_ = json_number_of(v);                                        \
        ck_assert_str_eq(got_, want);                                          \
        free(got_);                                                            \
    } while (0)

/* The buffer's invariant after every append: the text and its NUL fit in
 * what was allocated, and s[len] is that NUL. */
static void ck_fits(const struct rl_strbuf *b, size_t want_len)
{
    ck_assert(!b->oom);
    ck_assert_uint_eq(b->len, want_len);
    ck_assert_uint_lt(b->len, b->cap);
    ck_assert_uint_eq(strlen(b->s), want_len);
}

/* Once out of memory, a buffer takes nothing more, not even what would
 * fit in what it holds: the text and its length stay as they were. */
START_TEST(strbuf_out_of_memory_takes_nothing)
{
    struct rl_strbuf b = {0};
    rl_strbuf_append(&b, "abc", 3);
    ck_fits(&b, 3);
    b.oom = true; /* as a failed growth leaves it */
    rl_strbuf_append(&b, "de", 2);
    ck_assert_uint_eq(b.len, 3);
    ck_assert_str_eq(b.s, "abc");
    free(b.s);
}
END_TEST

START_TEST(strbuf_appends_and_grows)
{
    struct rl_strbuf b = {0};
    /* An empty append still gives a terminated (empty) string. */
    rl_strbuf_append(&b, "xyz", 0);
    ck_assert_ptr_nonnull(b.s);
    ck_fits(&b, 0);
    ck_assert_str_eq(b.s, "");
    rl_strbuf_append(&b, "abc", 3);
    ck_fits(&b, 3);
    ck_assert_str_eq(b.s, "abc");
    /* Fill to exactly one byte short of the first allocation and past it,
     * one byte at a time: the text must stay whole at every length. */
    char want[700];
    memcpy(want, "abc", 3);
    for (size_t i = 3; i < 600; i++) {
        char c = (char)('a' + i % 26);
        rl_strbuf_append(&b, &c, 1);
        want[i] = c;
        ck_fits(&b, i + 1);
    }
    want[600] = 0;
    ck_assert_str_eq(b.s, want);
    rl_strbuf_release(&b);
    ck_assert_ptr_null(b.s);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(b.cap, 0);
}
END_TEST

START_TEST(strbuf_printf_formats_and_grows)
{
    struct rl_strbuf b = {0};
    rl_strbuf_printf(&b, "%d-%s", 42, "x");
    ck_fits(&b, 4);
    ck_assert_str_eq(b.s, "42-x");
    rl_strbuf_printf(&b, "%s", "");
    ck_fits(&b, 4);
    /* One big piece, larger than any first allocation: 4 + 1000 bytes. */
    char big[1001];
    memset(big, 'q', 1000);
    big[1000] = 0;
    rl_strbuf_printf(&b, "%s", big);
    ck_fits(&b, 1004);
    ck_assert_int_eq(memcmp(b.s, "42-x", 4), 0);
    ck_assert_str_eq(b.s + 4, big);
    /* Pieces that land exactly on a boundary: 1004 + 251 x 4 = 2008. */
    for (int i = 0; i < 251; i++)
        rl_strbuf_printf(&b, "%04d", i);
    ck_fits(&b, 2008);
    ck_assert_int_eq(memcmp(b.s + 1004, "0000000100020003", 16), 0);
    ck_assert_str_eq(b.s + 2004, "0250");
    rl_strbuf_release(&b);
}
END_TEST

START_TEST(edit_distance_by_hand)
{
    ck_assert_uint_eq(rl_edit_distance("", ""), 0);
    ck_assert_uint_eq(rl_edit_distance("", "abc"), 3);  /* 3 insertions */
    ck_assert_uint_eq(rl_edit_distance("abc", ""), 3);  /* 3 deletions */
    ck_assert_uint_eq(rl_edit_distance("abc", "abc"), 0);
    ck_assert_uint_eq(rl_edit_distance("abc", "abd"), 1);  /* substitute c */
    ck_assert_uint_eq(rl_edit_distance("abc", "abxc"), 1); /* insert x */
    ck_assert_uint_eq(rl_edit_distance("abxc", "abc"), 1); /* delete x */
    ck_assert_uint_eq(rl_edit_distance("ab", "ba"), 2);    /* no transpositions */
    /* kitten -> sitten (k/s) -> sittin (e/i) -> sitting (+g) */
    ck_assert_uint_eq(rl_edit_distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(rl_edit_distance("sitting", "kitten"), 3);
    /* flaw -> law (-f) -> lawn (+n) */
    ck_assert_uint_eq(rl_edit_distance("flaw", "lawn"), 2);
    ck_assert_uint_eq(rl_edit_distance("a", "b"), 1);
    ck_assert_uint_eq(rl_edit_distance("h100", "H100"), 1); /* case counts */
}
END_TEST

START_TEST(edit_distance_length_limit)
{
    char a127[128], b127[128], a128[129], a130[131];
    memset(a127, 'a', 127), a127[127] = 0;
    memcpy(b127, a127, 128), b127[126] = 'b';
    memset(a128, 'a', 128), a128[128] = 0;
    memset(a130, 'a', 130), a130[130] = 0;
    /* 127 bytes is still measured: equal strings are 0 apart, one changed
     * byte is 1. */
    ck_assert_uint_eq(rl_edit_distance(a127, a127), 0);
    ck_assert_uint_eq(rl_edit_distance(a127, b127), 1);
    ck_assert_uint_eq(rl_edit_distance("", a127), 127);
    /* Longer than 127: the longer length, whichever side it is on, even for
     * equal strings. */
    ck_assert_uint_eq(rl_edit_distance(a128, a128), 128);
    ck_assert_uint_eq(rl_edit_distance(a128, "a"), 128);
    ck_assert_uint_eq(rl_edit_distance("a", a128), 128);
    ck_assert_uint_eq(rl_edit_distance(a130, a128), 130);
    ck_assert_uint_eq(rl_edit_distance(a128, a130), 130);
    ck_assert_uint_eq(rl_edit_distance(a127, a128), 128);
}
END_TEST

START_TEST(utf8_char_lengths)
{
    /* One byte: ASCII and the NUL. */
    ck_assert_uint_eq(rl_utf8_char("a"), 1);
    ck_assert_uint_eq(rl_utf8_char(""), 1);
    ck_assert_uint_eq(rl_utf8_char("\x7f"), 1);
    /* Continuation bytes and C0/C1 (overlong 2-byte) start nothing. */
    ck_assert_uint_eq(rl_utf8_char("\x80"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xbf\x80"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xc0\x80"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xc1\xbf"), 0);
    /* Two bytes: C2..DF then 80..BF. */
    ck_assert_uint_eq(rl_utf8_char("\xc2\x80"), 2);
    ck_assert_uint_eq(rl_utf8_char("\xdf\xbf"), 2);
    ck_assert_uint_eq(rl_utf8_char("\xc3\xa9x"), 2); /* e acute */
    ck_assert_uint_eq(rl_utf8_char("\xc2\x7f"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xc2\xc0"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xc2"), 0); /* cut short */
    /* Three bytes: E0 needs A0..BF (else overlong), ED 80..9F (else a
     * surrogate), E1..EC and EE..EF any continuation. */
    ck_assert_uint_eq(rl_utf8_char("\xe0\x9f\xbf"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xe0\xa0\x80"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xe0\xbf\xbf"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xe1\x80\x80"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xe2\x82\xac"), 3); /* euro sign */
    ck_assert_uint_eq(rl_utf8_char("\xec\xbf\xbf"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xed\x80\x80"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xed\x9f\xbf"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xed\xa0\x80"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xee\x80\x80"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xef\xbf\xbf"), 3);
    ck_assert_uint_eq(rl_utf8_char("\xe1\x80\x7f"), 0); /* third byte bad */
    ck_assert_uint_eq(rl_utf8_char("\xe1\x80\xc0"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xe1\x80"), 0);     /* the NUL stops it */
    /* Four bytes: F0 needs 90..BF, F4 80..8F, F1..F3 any; F5.. nothing. */
    ck_assert_uint_eq(rl_utf8_char("\xf0\x8f\xbf\xbf"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xf0\x90\x80\x80"), 4);
    ck_assert_uint_eq(rl_utf8_char("\xf0\x9f\x98\x80"), 4); /* an emoji */
    ck_assert_uint_eq(rl_utf8_char("\xf1\x80\x80\x80"), 4);
    ck_assert_uint_eq(rl_utf8_char("\xf3\xbf\xbf\xbf"), 4);
    ck_assert_uint_eq(rl_utf8_char("\xf4\x80\x80\x80"), 4);
    ck_assert_uint_eq(rl_utf8_char("\xf4\x8f\xbf\xbf"), 4);
    ck_assert_uint_eq(rl_utf8_char("\xf4\x90\x80\x80"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xf5\x80\x80\x80"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xff"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xf1\x80\x80\x7f"), 0); /* fourth bad */
    ck_assert_uint_eq(rl_utf8_char("\xf1\x80\x80\xc0"), 0);
    ck_assert_uint_eq(rl_utf8_char("\xf1\x80\x80"), 0);
}
END_TEST

START_TEST(utf8_clean_replaces_and_fits)
{
    char buf[32];
    rl_utf8_clean(buf, sizeof buf, "a\tb\nc\x01" "d\x1f" "e f\x7f");
    /* Tab kept; \n, \x01 and \x1f become spaces; space and DEL kept. */
    ck_assert_str_eq(buf, "a\tb c d e f\x7f");
    rl_utf8_clean(buf, sizeof buf, "a\x80" "b\xc3\xa9");
    ck_assert_str_eq(buf, "a" RL_UTF8_REPLACEMENT "b\xc3\xa9");
    /* n = 4 holds 3 bytes and the NUL: "abcd" loses the d. */
    rl_utf8_clean(buf, 4, "abcd");
    ck_assert_str_eq(buf, "abc");
    rl_utf8_clean(buf, 4, "abc");
    ck_assert_str_eq(buf, "abc");
    /* A character that does not fit whole is left out: "a" + euro (3
     * bytes) needs 5. */
    rl_utf8_clean(buf, 4, "a\xe2\x82\xac");
    ck_assert_str_eq(buf, "a");
    rl_utf8_clean(buf, 5, "a\xe2\x82\xac");
    ck_assert_str_eq(buf, "a\xe2\x82\xac");
    /* A replaced byte takes 3 bytes too. */
    rl_utf8_clean(buf, 4, "a\xff");
    ck_assert_str_eq(buf, "a");
    rl_utf8_clean(buf, 5, "a\xff" "b");
    ck_assert_str_eq(buf, "a" RL_UTF8_REPLACEMENT);
    rl_utf8_clean(buf, 1, "abc");
    ck_assert_str_eq(buf, "");
    /* n = 0 writes nothing. */
    memcpy(buf, "keep", 5);
    rl_utf8_clean(buf, 0, "abc");
    ck_assert_str_eq(buf, "keep");
}
END_TEST

START_TEST(str_shorten_at_the_limits)
{
    char buf[32];
    /* Fits exactly: 5 bytes + NUL in 6. */
    rl_str_shorten(buf, 6, "abcde");
    ck_assert_str_eq(buf, "abcde");
    /* One too many: keep the most characters that leave room for "...":
     * 2 + 3 + NUL = 6. */
    rl_str_shorten(buf, 6, "abcdef");
    ck_assert_str_eq(buf, "ab...");
    rl_str_shorten(buf, 7, "abcdefgh");
    ck_assert_str_eq(buf, "abc...");
    /* n = 4: only the dots fit. */
    rl_str_shorten(buf, 4, "abcdef");
    ck_assert_str_eq(buf, "...");
    rl_str_shorten(buf, 4, "abc");
    ck_assert_str_eq(buf, "abc");
    /* Below 4 a cut string is empty, a fitting one whole. */
    rl_str_shorten(buf, 3, "abc");
    ck_assert_str_eq(buf, "");
    rl_str_shorten(buf, 3, "ab");
    ck_assert_str_eq(buf, "ab");
    rl_str_shorten(buf, 1, "a");
    ck_assert_str_eq(buf, "");
    rl_str_shorten(buf, 1, "");
    ck_assert_str_eq(buf, "");
    /* Cut at a character boundary: three euros (9 bytes) in 8: one euro
     * (3) + "..." (3) + NUL; two would need 10. */
    rl_str_shorten(buf, 8, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
    ck_assert_str_eq(buf, "\xe2\x82\xac...");
    /* Four euros (12 bytes) in 10: two (6) + "..." + NUL. */
    rl_str_shorten(buf, 10, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
    ck_assert_str_eq(buf, "\xe2\x82\xac\xe2\x82\xac...");
    /* Three in 10 fit whole (9 + NUL). */
    rl_str_shorten(buf, 10, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
    ck_assert_str_eq(buf, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
    /* Invalid bytes count as their 3-byte replacement: two of them are 6
     * bytes, which fit in 7 but not in 6. */
    rl_str_shorten(buf, 7, "\x80\x80");
    ck_assert_str_eq(buf, RL_UTF8_REPLACEMENT RL_UTF8_REPLACEMENT);
    rl_str_shorten(buf, 6, "\x80\x80");
    ck_assert_str_eq(buf, "...");
    /* n = 0 writes nothing. */
    memcpy(buf, "keep", 5);
    rl_str_shorten(buf, 0, "abc");
    ck_assert_str_eq(buf, "keep");
}
END_TEST

START_TEST(json_strings_escape)
{
    ck_json_string("plain", "\"plain\"");
    ck_json_string(NULL, "\"\"");
    ck_json_string("", "\"\"");
    ck_json_string("a\"b\\c", "\"a\\\"b\\\\c\"");
    /* Control characters as \u00XX, lowercase hex; space and above as is. */
    ck_json_string("\n\x01\x1f \x7f", "\"\\u000a\\u0001\\u001f \x7f\"");
    ck_json_string("\t", "\"\\u0009\"");
    /* Valid multibyte characters pass through, invalid bytes are replaced
     * one by one. */
    ck_json_string("\xc3\xa9\xe2\x82\xac", "\"\xc3\xa9\xe2\x82\xac\"");
    ck_json_string("a\xff\x80z", "\"a" RL_UTF8_REPLACEMENT RL_UTF8_REPLACEMENT "z\"");
    /* escapes between runs written as they are, a character cut by the end */
    ck_json_string("ab\"cd\\\x01" "ef\xc3\xa9gh\xc3", "\"ab\\\"cd\\\\\\u0001ef\xc3\xa9gh" RL_UTF8_REPLACEMENT "\"");
    /* random bytes: what a byte-at-a-time writer writes */
    unsigned long long x = 88172645463325252ull;
    for (int n = 0; n < 20000; n++) {
        char in[24], want[24 * 8 + 3];
        size_t len = 0, w = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        len = x % 23;
        for (size_t k = 0; k < len; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            static const char some[] = "a\"\\\x01\x1f\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff\xed\xa0";
            in[k] = x % 3 ? some[(x >> 8) % (sizeof some - 1)] : (char)(1 + (x >> 16) % 255);
        }
        in[len] = 0;
        want[w++] = '"';
        for (const char *p = in; *p;) {
            unsigned char c = (unsigned char)*p;
            size_t cl = rl_utf8_char(p);
            if (cl == 0) {
                w += (size_t)sprintf(want + w, "%s", RL_UTF8_REPLACEMENT);
                cl = 1;
            } else if (c == '"' || c == '\\') {
                w += (size_t)sprintf(want + w, "\\%c", c);
            } else if (c < 0x20) {
                w += (size_t)sprintf(want + w, "\\u%04x", c);
            } else {
                memcpy(want + w, p, cl);
                w += cl;
            }
            p += cl;
        }
        want[w++] = '"';
        want[w] = 0;
        ck_json_string(in, want);
    }
}
END_TEST

START_TEST(json_numbers)
{
    ck_json_number(0.0, "0");
    ck_json_number(3.0, "3");
    ck_json_number(-3.0, "-3");
    ck_json_number(-0.0, "-0"); /* as printf's "%.0f" */
    ck_json_number(10.0, "10");
    ck_json_number(-1234567890.0, "-1234567890");
    ck_json_number(240518169000.0, "240518169000");
    /* 2^53 exactly, either sign, still digit for digit. */
    ck_json_number(9007199254740992.0, "9007199254740992");
    ck_json_number(-9007199254740992.0, "-9007199254740992");
    /* 2^53 + 2 is whole but past the limit: 9 significant digits. */
    ck_json_number(9007199254740994.0, "9.00719925e+15");
    ck_json_number(-9007199254740994.0, "-9.00719925e+15");
    ck_json_number(1.5, "1.5");
    ck_json_number(-0.25, "-0.25");
    ck_json_number(0.1, "0.1");
    ck_json_number(1.0 / 3.0, "0.333333333");
    ck_json_number(NAN, "null");
    ck_json_number(INFINITY, "null");
    ck_json_number(-INFINITY, "null");
}
END_TEST

START_TEST(suggest_orders_by_distance_then_prefix)
{
    struct rl_suggest s;
    rl_suggest_init(&s, "x");
    ck_assert_uint_eq(s.n, 0);
    ck_assert_ptr_null(rl_suggest_best(&s));
    /* a(2,0) -> [a]; b(1,0) nearer -> [b a]; c(1,1) same distance, longer
     * prefix -> [c b a]; d(1,1) ties c, offered later -> after c: [c d b]
     * (a falls off); e(3,5) farther than all three -> unchanged; f(0,0)
     * nearest -> [f c d]. */
    rl_suggest_add(&s, "a", 2, 0);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_str_eq(s.name[0], "a");
    rl_suggest_add(&s, "b", 1, 0);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_str_eq(s.name[0], "b");
    ck_assert_str_eq(s.name[1], "a");
    rl_suggest_add(&s, "c", 1, 1);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_str_eq(s.name[0], "c");
    ck_assert_str_eq(s.name[1], "b");
    ck_assert_str_eq(s.name[2], "a");
    ck_assert_uint_eq(s.distance[2], 2);
    rl_suggest_add(&s, "d", 1, 1);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_str_eq(s.name[0], "c");
    ck_assert_str_eq(s.name[1], "d");
    ck_assert_str_eq(s.name[2], "b");
    ck_assert_uint_eq(s.distance[2], 1);
    ck_assert_uint_eq(s.prefix[2], 0);
    rl_suggest_add(&s, "e", 3, 5);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_str_eq(s.name[2], "b");
    rl_suggest_add(&s, "f", 0, 0);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_str_eq(s.name[0], "f");
    ck_assert_str_eq(s.name[1], "c");
    ck_assert_str_eq(s.name[2], "d");
    ck_assert_uint_eq(s.distance[0], 0);
    ck_assert_uint_eq(s.distance[1], 1);
    ck_assert_uint_eq(s.prefix[1], 1);
}
END_TEST

START_TEST(suggest_considers_ignoring_case)
{
    struct rl_suggest s;
    rl_suggest_init(&s, "FP3");
    /* fp3 vs fp8: 1 substitution, prefix "fp" (2); vs fp16: substitute 3/1
     * and insert 6 (2), prefix 2; vs "Fp3", equal ignoring case: 0,
     * prefix 3. */
    rl_suggest_consider(&s, "fp16");
    rl_suggest_consider(&s, "fp8");
    ck_assert_str_eq(s.name[0], "fp8");
    ck_assert_uint_eq(s.distance[0], 1);
    ck_assert_uint_eq(s.prefix[0], 2);
    ck_assert_str_eq(s.name[1], "fp16");
    ck_assert_uint_eq(s.distance[1], 2);
    ck_assert_uint_eq(s.prefix[1], 2);
    rl_suggest_consider(&s, "Fp3");
    ck_assert_str_eq(s.name[0], "Fp3");
    ck_assert_uint_eq(s.distance[0], 0);
    ck_assert_uint_eq(s.prefix[0], 3);
    /* Same distance (1) from "fp3": "fx3" shares 1 character, "fp4" 2, so
     * fp4 goes first though offered last. */
    rl_suggest_init(&s, "fp3");
    rl_suggest_consider(&s, "fx3");
    rl_suggest_consider(&s, "fp4");
    ck_assert_str_eq(s.name[0], "fp4");
    ck_assert_uint_eq(s.prefix[0], 2);
    ck_assert_str_eq(s.name[1], "fx3");
    ck_assert_uint_eq(s.prefix[1], 1);
}
END_TEST

START_TEST(suggest_best_is_near_enough)
{
    struct rl_suggest s;
    /* "fp3": 3 characters, a third is 1: distance 1 is near, 2 is not. */
    rl_suggest_init(&s, "fp3");
    rl_suggest_add(&s, "one", 1, 0);
    ck_assert_str_eq(rl_suggest_best(&s), "one");
    rl_suggest_init(&s, "fp3");
    rl_suggest_add(&s, "two", 2, 0);
    ck_assert_ptr_null(rl_suggest_best(&s));
    /* "ab": a third is 0, at least 1. */
    rl_suggest_init(&s, "ab");
    rl_suggest_add(&s, "one", 1, 0);
    ck_assert_str_eq(rl_suggest_best(&s), "one");
    rl_suggest_init(&s, "ab");
    rl_suggest_add(&s, "two", 2, 0);
    ck_assert_ptr_null(rl_suggest_best(&s));
    /* 6 characters: 2 is near, 3 is not. */
    rl_suggest_init(&s, "abcdef");
    rl_suggest_add(&s, "two", 2, 0);
    ck_assert_str_eq(rl_suggest_best(&s), "two");
    rl_suggest_init(&s, "abcdef");
    rl_suggest_add(&s, "three", 3, 0);
    ck_assert_ptr_null(rl_suggest_best(&s));
    /* 9 characters: 3; 12 characters: a third is 4, at most 3. */
    rl_suggest_init(&s, "abcdefghi");
    rl_suggest_add(&s, "three", 3, 0);
    ck_assert_str_eq(rl_suggest_best(&s), "three");
    rl_suggest_init(&s, "abcdefghijkl");
    rl_suggest_add(&s, "three", 3, 0);
    ck_assert_str_eq(rl_suggest_best(&s), "three");
    rl_suggest_init(&s, "abcdefghijkl");
    rl_suggest_add(&s, "four", 4, 0);
    ck_assert_ptr_null(rl_suggest_best(&s));
}
END_TEST

START_TEST(suggest_hints)
{
    static const char *const names[] = {"fp8", "fp16", "bf16", NULL};
    char buf[64];
    ck_assert_str_eq(rl_suggest_hint(buf, sizeof buf, "fp3", names, "other"),
                     "did you mean 'fp8'?");
    ck_assert_str_eq(rl_suggest_hint(buf, sizeof buf, "zzzzzz", names, "other"), "other");
    ck_assert_str_eq(rl_suggest_hint(buf, sizeof buf, "zzzzzz", names, NULL),
                     "one of: fp8, fp16, bf16");
    /* A short buffer: "one of:" + " fp8" = 11 bytes + NUL; the rest is cut. */
    ck_assert_str_eq(rl_suggest_hint(buf, 12, "zzzzzz", names, NULL), "one of: fp8");
    ck_assert_str_eq(rl_suggest_hint(buf, 10, "zzzzzz", names, NULL), "one of: f");
    static const char *const none[] = {NULL};
    ck_assert_str_eq(rl_suggest_hint(buf, sizeof buf, "x", none, NULL), "one of:");
}
END_TEST

static Suite *strbuf_suite(void)
{
    Suite *s = suite_create("strbuf");
    TCase *core = tcase_create("core");
    tcase_add_test(core, strbuf_appends_and_grows);
    tcase_add_test(core, strbuf_out_of_memory_takes_nothing);
    tcase_add_test(core, strbuf_printf_formats_and_grows);
    tcase_add_test(core, edit_distance_by_hand);
    tcase_add_test(core, utf8_char_lengths);
    tcase_add_test(core, json_strings_escape);
    tcase_add_test(core, json_numbers);
    tcase_add_test(core, suggest_orders_by_distance_then_prefix);
    tcase_add_test(core, suggest_considers_ignoring_case);
    tcase_add_test(core, suggest_hints);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, edit_distance_length_limit);
    tcase_add_test(limits, utf8_clean_replaces_and_fits);
    tcase_add_test(limits, str_shorten_at_the_limits);
    tcase_add_test(limits, suggest_best_is_near_enough);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(strbuf_suite()); }
