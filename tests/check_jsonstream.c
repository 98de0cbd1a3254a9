/* check_jsonstream.c - tests of the streaming JSON tokenizer: tokens, strings, numbers, skipping, keys, objects and their errors. */
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

/* The next token must be a string with these bytes (n of them). */
static void ck_string(const char *want, size_t n)
{
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_STRING);
    ck_assert_uint_eq(r.str_len, n);
    ck_assert_int_eq(memcmp(r.str, want, n), 0);
    ck_assert_int_eq(r.str[n], 0);
}

static void ck_number(double want, const char *text)
{
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NUMBER);
    ck_assert_double_eq(r.num, want);
    ck_assert_str_eq(r.num_text, text);
}

/* The next token fails with this message. */
static void ck_error(int code, const char *want)
{
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_EOF);
    ck_assert_int_eq(r.err, code);
    ck_assert_str_eq(err, want);
}

START_TEST(tokens_in_order)
{
    open_text(" {\"a\" :\n[1, -2.5,\r\ntrue,\tfalse, null]}\n\n");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACE);
    ck_string("a", 1);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
    ck_assert_int_eq(r.line, 2);
    ck_number(1, "1");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    ck_number(-2.5, "-2.5");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_TRUE);
    ck_assert_int_eq(r.line, 3);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_FALSE);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NULL);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_RBRACKET);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_RBRACE);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_EOF);
    ck_assert_int_eq(r.err, 0);
    ck_assert_int_eq(r.line, 5);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_EOF); /* and stays there */
    ck_assert_int_eq(rl_jsr_peek(&r), -1);
    ck_assert_int_eq(rl_jsr_get(&r), -1);
}
END_TEST

START_TEST(empty_input_by_pread)
{
    open_text("x");
    fclose(in);
    in = NULL;
    r.f = NULL;
    r.fd = open("/dev/null", O_RDONLY);
    ck_assert_int_ge(r.fd, 0);
    ck_assert_int_eq(rl_jsr_skip_ws(&r), -1);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_EOF);
    ck_assert_int_eq(r.err, 0);
    ck_assert(r.eof);
    close(r.fd);
}
END_TEST

START_TEST(pread_from_an_offset)
{
    char path[512];
    snprintf(path, sizeof path, "%s/p.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fputs("junk[7, \"q\"]", f);
    fclose(f);
    open_text("x");
    fclose(in);
    in = NULL;
    r.f = NULL;
    r.fd = open(path, O_RDONLY);
    r.off = 4;
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
    ck_number(7, "7");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    ck_string("q", 1);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_RBRACKET);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_EOF);
    /* 8 bytes read from offset 4. */
    ck_assert_int_eq((int)r.off, 12);
    ck_assert_uint_eq(r.len, 8);
    close(r.fd);
}
END_TEST

START_TEST(string_escapes)
{
    open_text("\"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t\"");
    ck_string("q\"b\\s/b\bf\fn\nr\rt\t", 16);
    /* \u at each UTF-8 length's edges: U+007F (1 byte), U+0080 and U+07FF
     * (2), U+0800 and U+FFFF (3); hex digits 0-9, a-f, A-F. */
    open_text("\"\\u007F\\u0080\\u07ff\\u0800\\uFFFF\\u09aF\\u0041\"");
    ck_string("\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xe0\xa6\xaf" "A", 15);
    /* Surrogate pairs: the first and last pair, an emoji. A lone low
     * surrogate is taken as it is written (3 bytes). */
    open_text("\"\\uD800\\uDC00\\uDBFF\\uDFFF\\ud83d\\ude00\\uDC00\"");
    ck_string("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\xf0\x9f\x98\x80\xed\xb0\x80", 15);
    /* A NUL is a byte of the string. */
    open_text("\"a\\u0000b\"");
    ck_string("a\0b", 3);
    /* Space and above are plain; multibyte text passes through. */
    open_text("\" ~\xc3\xa9\x7f\"");
    ck_string(" ~\xc3\xa9\x7f", 5);
    open_text("\"\"");
    ck_string("", 0);
}
END_TEST

START_TEST(long_strings_grow)
{
    /* 1000 bytes: past the first allocation (256) and two doublings, with
     * an escape in the middle. */
    char text[1100], want[1001];
    text[0] = '"';
    for (int i = 0; i < 1000; i++)
        want[i] = (char)('a' + i % 26);
    memcpy(text + 1, want, 500);
    memcpy(text + 501, "\\n", 2);
    want[500] = '\n';
    memcpy(text + 503, want + 501, 499);
    memcpy(text + 1002, "\"", 2);
    open_text(text);
    ck_string(want, 1000);
    ck_assert_uint_gt(r.str_cap, 1000);
    /* The next string starts afresh. */
    open_text("[\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\", \"x\"]");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
    ck_string("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 52);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    ck_string("x", 1);
}
END_TEST

START_TEST(string_errors)
{
    open_text("\"abc");
    ck_error(RL_EPARSE, "'t': line 1: truncated: a string never ends");
    /* Cut after a backslash: the escape is what is missing (as the trace
     * reader's tests pin it). */
    open_text("\"abc\\");
    ck_error(RL_EPARSE, "'t': line 1: bad escape in a string");
    open_text("\"a\x01\"");
    ck_error(RL_EPARSE, "'t': line 1: control character in a string");
    open_text("\"a\x1f\"");
    ck_error(RL_EPARSE, "'t': line 1: control character in a string");
    open_text("\n\"a\nb\"");
    ck_error(RL_EPARSE, "'t': line 2: control character in a string");
    open_text("\"\\x\"");
    ck_error(RL_EPARSE, "'t': line 1: bad escape in a string");
    /* Not hex: the characters just outside 0-9, a-f and A-F. */
    static const char *const bad_hex[] = {"/", ":", "`", "g", "@", "G"};
    for (size_t i = 0; i < sizeof bad_hex / sizeof *bad_hex; i++) {
        char text[32];
        snprintf(text, sizeof text, "\"\\u00%s0\"", bad_hex[i]);
        open_text(text);
        ck_error(RL_EPARSE, "'t': line 1: malformed \\u escape in a string");
    }
    open_text("\"\\u12\"");
    ck_error(RL_EPARSE, "'t': line 1: malformed \\u escape in a string");
    /* A high surrogate needs a low one: none, another escape, one below
     * DC00 or above DFFF. */
    static const char *const bad_pair[] = {"\"\\uD800x\"", "\"\\uD800\\n\"",
                                           "\"\\uD800\\uDBFF\"", "\"\\uDBFF\\uE000\"",
                                           "\"\\uD800\\u0041\""};
    for (size_t i = 0; i < sizeof bad_pair / sizeof *bad_pair; i++) {
        open_text(bad_pair[i]);
        ck_error(RL_EPARSE, "'t': line 1: malformed surrogate pair in a string");
    }
}
END_TEST

START_TEST(numbers)
{
    open_text("[0, 7, -45, 1.5, 1.50, 1e3, 2E-2, -0.25, 1e+2, 999999999999999, "
              "1234567890123456, 9007199254740993, 12345678901234567890123]");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
    ck_number(0, "0");
    rl_jsr_next(&r);
    ck_number(7, "7");
    rl_jsr_next(&r);
    ck_number(-45, "-45");
    rl_jsr_next(&r);
    ck_number(1.5, "1.5");
    rl_jsr_next(&r);
    ck_number(1.5, "1.50");
    rl_jsr_next(&r);
    ck_number(1000, "1e3");
    rl_jsr_next(&r);
    ck_number(0.02, "2E-2");
    rl_jsr_next(&r);
    ck_number(-0.25, "-0.25");
    rl_jsr_next(&r);
    ck_number(100, "1e+2");
    rl_jsr_next(&r);
    /* 15 digits (the fast path), 16 and more (strtod: 2^53 + 1 rounds to
     * 2^53; past 2^64 still a double). */
    ck_number(999999999999999.0, "999999999999999");
    rl_jsr_next(&r);
    ck_number(1234567890123456.0, "1234567890123456");
    rl_jsr_next(&r);
    ck_number(9007199254740992.0, "9007199254740993");
    rl_jsr_next(&r);
    ck_number(12345678901234567890123.0, "12345678901234567890123");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_RBRACKET);
    /* A number ends at the first byte that cannot be part of one. */
    open_text("12x");
    ck_number(12, "12");
    ck_error(RL_EPARSE, "'t': line 1: malformed JSON near 'x'");
}
END_TEST

/* The division fast path (digits <= 19, value <= 2^53, over 10^k exact)
 * gives strtod's double, bit for bit; past it strtod itself; the text as
 * "%.17g" writes it, with and without printf. */
START_TEST(numbers_as_strtod)
{
    static const char *const texts[] = {
        "1712195495521130.028", "1661203462598738", "30669.0", "0.1", "0.3", "2.675",
        "123456789012345.6789", "9007199254740992", "9007199254740993", "9007199254740992.5",
        "-0.0", "-0", "0.0000000000000000000001", "0.00000000000000000000001",
        "1234567890123456789", "12345678901234567890", "-17.25", "5e-324", "1.7976931348623157e308",
        "4503599627370497.5", "1.", "7.000000000000001",
        /* beyond int64: its conversion was undefined (found by fuzz_torch) */
        "1e300", "-1e300", "9.3e18",
        /* integers as written, or not (leading zeros, 16 digits and more) */
        "0", "7", "-7", "10", "123456789012345", "-123456789012345", "999999999999999",
        "1234567890123456", "007", "-007", "00", "-0000000000000001"};
    char text[2048] = "[";
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", i ? ", " : "",
                 texts[i]);
    strcat(text, "]");
    open_text(text);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACKET);
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        if (i)
            ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
        ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NUMBER);
        double want = strtod(texts[i], NULL);
        ck_assert_msg(memcmp(&r.num, &want, sizeof want) == 0, "%s: %.17g, strtod %.17g",
                      texts[i], r.num, want);
        char g[40], fast[40];
        snprintf(g, sizeof g, "%.17g", want);
        ck_assert_uint_eq(rl_jsr_num_g17(&r, fast, sizeof fast), strlen(g));
        ck_assert_str_eq(fast, g);
    }
    /* every count of fraction digits, 1 to 22 (each divides by its own
     * exact power of ten), as strtod reads them */
    const char *digits = "9876543210987654321098";
    for (int k = 1; k <= 22; k++) {
        char one[40];
        snprintf(one, sizeof one, "0.%.*s", k, digits);
        open_text(one);
        ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NUMBER);
        double want = strtod(one, NULL);
        ck_assert_msg(memcmp(&r.num, &want, sizeof want) == 0, "%s: %.17g, strtod %.17g", one,
                      r.num, want);
    }
    /* cut to size as snprintf cuts */
    open_text("123456789");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NUMBER);
    char small[5];
    ck_assert_uint_eq(rl_jsr_num_g17(&r, small, sizeof small), 4);
    ck_assert_str_eq(small, "1234");
}
END_TEST

START_TEST(number_errors_and_length)
{
    open_text("-");
    ck_error(RL_EPARSE, "'t': line 1: malformed number '-'");
    open_text("-]");
    ck_error(RL_EPARSE, "'t': line 1: malformed number '-'");
    open_text("--1");
    ck_error(RL_EPARSE, "'t': line 1: malformed number '--1'");
    open_text("1.2.3");
    ck_error(RL_EPARSE, "'t': line 1: malformed number '1.2.3'");
    open_text("-e");
    ck_error(RL_EPARSE, "'t': line 1: malformed number '-e'");
    /* 63 characters fit the number's buffer, 64 do not. */
    char text[80];
    text[0] = '1';
    memset(text + 1, '0', 62);
    text[63] = 0;
    open_text(text);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_NUMBER);
    ck_assert_double_eq(r.num, 1e62);
    ck_assert_str_eq(r.num_text, text);
    text[63] = '0', text[64] = 0;
    open_text(text);
    ck_error(RL_EPARSE, "'t': line 1: number too long");
}
END_TEST

START_TEST(words_and_bad_bytes)
{
    open_text("tru");
    ck_error(RL_EPARSE, "'t': line 1: malformed JSON (expected true, false or null)");
    open_text("fals]");
    ck_error(RL_EPARSE, "'t': line 1: malformed JSON (expected true, false or null)");
    open_text("nul");
    ck_error(RL_EPARSE, "'t': line 1: malformed JSON (expected true, false or null)");
    open_text("\n\n@");
    ck_error(RL_EPARSE, "'t': line 3: malformed JSON near '@'");
    /* The first error sticks: a later one does not replace it. */
    ck_assert_int_eq(rl_jsr_fail(&r, RL_ESCHEMA, "other %d", 1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 3: malformed JSON near '@'");
    open_text("1");
    ck_assert_int_eq(rl_jsr_fail(&r, RL_ESCHEMA, "bad %s", "x"), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t': line 1: bad x");
}
END_TEST

START_TEST(expect_says_what)
{
    open_text("[");
    ck_assert_int_eq(rl_jsr_expect(&r, RL_TOK_LBRACKET, "'['"), 0);
    ck_assert_int_eq(rl_jsr_expect(&r, RL_TOK_COLON, "':'"), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: truncated: expected ':'");
    open_text("1");
    ck_assert_int_eq(rl_jsr_expect(&r, RL_TOK_COLON, "':'"), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected ':'");
    /* A token error is kept, not turned into "expected". */
    open_text("\"a");
    ck_assert_int_eq(rl_jsr_expect(&r, RL_TOK_COLON, "':'"), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: truncated: a string never ends");
}
END_TEST

/* Skip the first value of text (by rl_jsr_skip_value after one token, or
 * rl_jsr_skip_fast) and return the token after it. */
static enum rl_jsr_tok after_skip(const char *text, bool fast)
{
    open_text(text);
    int rc = fast ? rl_jsr_skip_fast(&r) : rl_jsr_skip_value(&r, rl_jsr_next(&r));
    ck_assert_msg(rc == 0, "%s: %s", text, err);
    return rl_jsr_next(&r);
}

START_TEST(skipping_values)
{
    for (int fast = 0; fast < 2; fast++) {
        ck_assert_int_eq(after_skip("{\"a\": [1, {\"b\": null}, []], \"c\": {}} 5", fast),
                         RL_TOK_NUMBER);
        ck_assert_double_eq(r.num, 5);
        ck_assert_int_eq(after_skip("[] ,", fast), RL_TOK_COMMA);
        ck_assert_int_eq(after_skip("{}]", fast), RL_TOK_RBRACKET);
        ck_assert_int_eq(after_skip("\"s\\\"}]\\\\\" }", fast), RL_TOK_RBRACE);
        ck_assert_int_eq(after_skip("-1.5e3,", fast), RL_TOK_COMMA);
        ck_assert_int_eq(after_skip("true]", fast), RL_TOK_RBRACKET);
        ck_assert_int_eq(after_skip("null}", fast), RL_TOK_RBRACE);
        ck_assert_int_eq(after_skip("false\n:", fast), RL_TOK_COLON);
        ck_assert_int_eq(after_skip("\n 0\t", fast), RL_TOK_EOF);
        ck_assert_int_eq(r.line, 2);
        ck_assert_int_eq(after_skip("9\r[", fast), RL_TOK_LBRACKET);
    }
    /* skip_fast checks a scalar's characters only. */
    ck_assert_int_eq(after_skip("tru ,", true), RL_TOK_COMMA);
    ck_assert_int_eq(after_skip("\"ab\\u12\"]", true), RL_TOK_RBRACKET);
}
END_TEST

/* Skipping the first value of text fails with this message. */
static void skip_fails(const char *text, bool fast, const char *want)
{
    open_text(text);
    int rc = fast ? rl_jsr_skip_fast(&r) : rl_jsr_skip_value(&r, rl_jsr_next(&r));
    ck_assert_msg(rc == RL_EPARSE, "%s: accepted", text);
    ck_assert_str_eq(err, want);
}

START_TEST(skipping_errors)
{
    for (int fast = 0; fast < 2; fast++) {
        skip_fails("{1: 2}", fast, "'t': line 1: expected a key");
        skip_fails("{\"a\" 1}", fast, "'t': line 1: expected ':'");
        skip_fails("{\"a\": 1,}", fast, "'t': line 1: expected a key");
        skip_fails("{\"a\": 1", fast, "'t': line 1: truncated");
        skip_fails("{", fast, "'t': line 1: truncated object");
        skip_fails("{\"a\":", fast, "'t': line 1: truncated: expected a value");
        skip_fails("[1 2]", fast, "'t': line 1: expected ',' or a closing bracket");
        skip_fails("[1,", fast, "'t': line 1: truncated: expected a value");
        skip_fails("[1,]", fast, "'t': line 1: expected a value");
        skip_fails("[,1]", fast, "'t': line 1: expected a value");
        skip_fails("[1}", fast, "'t': line 1: expected ',' or a closing bracket");
        skip_fails("[\n[\"a\",\n@]]", fast, "'t': line 3: malformed JSON near '@'");
    }
    skip_fails("]", false, "'t': line 1: expected a value");
    skip_fails(":", false, "'t': line 1: expected a value");
    /* skip_fast: a scalar's characters; an empty value; the end. */
    skip_fails("x", true, "'t': line 1: malformed JSON near 'x'");
    skip_fails("1/", true, "'t': line 1: malformed JSON near '/'");
    skip_fails("1:", true, "'t': line 1: malformed JSON near ':'");
    skip_fails(",", true, "'t': line 1: expected a value");
    skip_fails("]", true, "'t': line 1: expected a value");
    skip_fails(" \n", true, "'t': line 2: truncated: expected a value");
    skip_fails("\"abc", true, "'t': line 1: truncated: a string never ends");
    skip_fails("\"ab\\", true, "'t': line 1: truncated: a string never ends");
    /* Every character a scalar may hold passes. */
    open_text("0123456789.-+eEtruefalsn,");
    ck_assert_int_eq(rl_jsr_skip_fast(&r), 0);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
}
END_TEST

START_TEST(keys)
{
    char key[8];
    /* The fast path: a plain key straight from the buffer, lines counted
     * on the way. */
    open_text("\n \"abc\": 1, \"a\\\"b\": 2, \"abcdefghij\": 3, \"abcdefg\": 4,"
              " \"abcdef\": 5, \"\": 6, 7");
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_STRING);
    ck_assert_str_eq(key, "abc");
    ck_assert_int_eq(r.line, 2);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
    ck_number(1, "1");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COMMA);
    /* An escape: decoded by the general path. */
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_STRING);
    ck_assert_str_eq(key, "a\"b");
    rl_jsr_next(&r), rl_jsr_next(&r), rl_jsr_next(&r);
    /* Longer than the key buffer (8): cut to 7. */
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_STRING);
    ck_assert_str_eq(key, "abcdefg");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
    ck_number(3, "3");
    rl_jsr_next(&r);
    /* Exactly 7 and 6 bytes. */
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_STRING);
    ck_assert_str_eq(key, "abcdefg");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
    ck_number(4, "4");
    rl_jsr_next(&r);
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_STRING);
    ck_assert_str_eq(key, "abcdef");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
    ck_number(5, "5");
    rl_jsr_next(&r);
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_STRING);
    ck_assert_str_eq(key, "");
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_COLON);
    ck_number(6, "6");
    rl_jsr_next(&r);
    /* Not a key: the token, key untouched. */
    strcpy(key, "keep");
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_NUMBER);
    ck_assert_str_eq(key, "keep");
    /* A key cut short by the end of the input is truncated, whatever the
     * buffer holds past the bytes read: here a '"' left at buf[10] by a
     * longer input read before (the buffer is reused, as across refills),
     * just past "    \"abcde" (10 bytes, the key at 4). */
    open_text("xxxxxxxxxx\"yyyy");
    ck_assert_int_eq(rl_jsr_peek(&r), 'x');
    ck_assert_int_eq(r.buf[10], '"');
    open_text("    \"abcde");
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_EOF);
    ck_assert_str_eq(err, "'t': line 1: truncated: a string never ends");
    /* A control character in a key is refused (general path). */
    open_text("\"a\x01\"        ");
    ck_assert_int_eq(rl_jsr_next_key(&r, key, sizeof key), RL_TOK_EOF);
    ck_assert_str_eq(err, "'t': line 1: control character in a string");
}
END_TEST

struct seen {
    char keys[8][80];
    double nums[8];
    int n, fail_at;
};

static int field(struct rl_jsr *rd, void *ctx, const char *key)
{
    struct seen *s = ctx;
    if (s->n == s->fail_at)
        return rl_jsr_fail(rd, RL_ESCHEMA, "no '%s' here", key);
    snprintf(s->keys[s->n], sizeof s->keys[s->n], "%s", key);
    if (rl_jsr_next(rd) != RL_TOK_NUMBER)
        return rl_jsr_fail(rd, RL_ESCHEMA, "'%s' must be a number", key);
    s->nums[s->n++] = rd->num;
    return 0;
}

/* rl_jsr_read_object over text (after its '{'). */
static int read_obj(const char *text, struct seen *s, int fail_at)
{
    memset(s, 0, sizeof *s);
    s->fail_at = fail_at;
    open_text(text);
    ck_assert_int_eq(rl_jsr_next(&r), RL_TOK_LBRACE);
    return rl_jsr_read_object(&r, s, field);
}

START_TEST(objects)
{
    struct seen s;
    ck_assert_int_eq(read_obj("{}", &s, -1), 0);
    ck_assert_int_eq(s.n, 0);
    ck_assert_int_eq(read_obj("{ \"a\" : 1 ,\n \"bb\": 2 } 9", &s, -1), 0);
    ck_assert_int_eq(s.n, 2);
    ck_assert_str_eq(s.keys[0], "a");
    ck_assert_str_eq(s.keys[1], "bb");
    ck_assert_double_eq(s.nums[0], 1);
    ck_assert_double_eq(s.nums[1], 2);
    ck_number(9, "9"); /* the '}' was read, nothing more */
    /* A key of 70 bytes reaches the field cut to 63. */
    char text[128], want[64];
    memset(want, 'k', 63), want[63] = 0;
    snprintf(text, sizeof text, "{\"%.63sxxxxxxx\": 3}", want);
    ck_assert_int_eq(read_obj(text, &s, -1), 0);
    ck_assert_int_eq(s.n, 1);
    ck_assert_str_eq(s.keys[0], want);
    ck_assert_double_eq(s.nums[0], 3);
    ck_assert_int_eq(read_obj("{\"a\": 1 \"b\": 2}", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected ',' or '}'");
    /* closed by a ']' (the ',' / '}' fast path takes neither) */
    ck_assert_int_eq(read_obj("{\"a\": 1]", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected ',' or '}'");
    ck_assert_int_eq(read_obj("{\"a\": 1 ]", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected ',' or '}'");
    ck_assert_int_eq(read_obj("{\"a\": 1,", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: truncated object");
    ck_assert_int_eq(read_obj("{\"a\": 1", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: truncated object");
    ck_assert_int_eq(read_obj("{", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: truncated object");
    ck_assert_int_eq(read_obj("{3: 1}", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected a key");
    ck_assert_int_eq(read_obj("{\"a\": 1, ]", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected a key");
    ck_assert_int_eq(read_obj("{\"a\" 1}", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: expected ':'");
    ck_assert_int_eq(read_obj("{\"a\": 1, \"b\": 2 @", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: malformed JSON near '@'");
    ck_assert_int_eq(read_obj("{\"a\": 1, \"b\x02\": 2}", &s, -1), RL_EPARSE);
    ck_assert_str_eq(err, "'t': line 1: control character in a string");
    /* The field's own error comes back, and stops the object there. */
    ck_assert_int_eq(read_obj("{\"a\": 1,\n \"b\": 2, \"c\": 3}", &s, 1), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t': line 2: no 'b' here");
    ck_assert_int_eq(s.n, 1);
    ck_assert_int_eq(read_obj("{\"a\": \"x\"}", &s, -1), RL_ESCHEMA);
    ck_assert_str_eq(err, "'t': line 1: 'a' must be a number");
}
END_TEST

static Suite *jsonstream_suite(void)
{
    Suite *s = suite_create("jsonstream");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, NULL, teardown);
    tcase_add_test(core, tokens_in_order);
    tcase_add_test(core, string_escapes);
    tcase_add_test(core, numbers);
    tcase_add_test(core, numbers_as_strtod);
    tcase_add_test(core, skipping_values);
    tcase_add_test(core, keys);
    tcase_add_test(core, objects);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, teardown);
    tcase_add_test(limits, empty_input_by_pread);
    tcase_add_test(limits, pread_from_an_offset);
    tcase_add_test(limits, long_strings_grow);
    tcase_add_test(limits, string_errors);
    tcase_add_test(limits, number_errors_and_length);
    tcase_add_test(limits, words_and_bad_bytes);
    tcase_add_test(limits, expect_says_what);
    tcase_add_test(limits, skipping_errors);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(jsonstream_suite()); }
