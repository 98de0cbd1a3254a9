/* check_schema.c - tests of the JSON helpers and the JSON Schema validator. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *parse(const char *text)
{
    cJSON *doc = NULL;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse(text, strlen(text), "t", &doc, err), 0);
    return doc;
}

/* Validate doc text against schema text; return the code, message in err. */
static int check(const char *schema_text, const char *doc_text, char *err)
{
    cJSON *schema = parse(schema_text), *doc = parse(doc_text);
    err[0] = '\0';
    int rc = rl_schema_check_text(schema, doc, doc_text, strlen(doc_text), "d.json", err);
    cJSON_Delete(schema);
    cJSON_Delete(doc);
    return rc;
}

static const char obj_schema[] =
    "{\"type\":\"object\",\"required\":[\"a\",\"b\"],\"additionalProperties\":false,"
    "\"properties\":{\"a\":{\"type\":\"integer\",\"minimum\":1},"
    "\"b\":{\"type\":[\"number\",\"null\"],\"exclusiveMinimum\":0},"
    "\"c\":{\"enum\":[\"x\",\"y\"]},\"d\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"},"
    "\"e\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"$ref\":\"#/$defs/pos\"}},"
    "\"f\":{\"const\":1}},"
    "\"$defs\":{\"pos\":{\"type\":\"number\",\"exclusiveMinimum\":0}}}";

START_TEST(valid_document_passes)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check(obj_schema, "{\"a\":3,\"b\":null,\"c\":\"y\",\"d\":\"abc\","
                                       "\"e\":[1,2.5],\"f\":1}", err), 0);
    ck_assert_int_eq(check(obj_schema, "{\"a\":3,\"b\":0.5}", err), 0);
}
END_TEST

START_TEST(type_mismatch_names_key_and_line)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check(obj_schema, "{\n\"a\": 3,\n\"b\": \"fast\"\n}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 3: b: expected number or null, got string");
}
END_TEST

START_TEST(missing_and_unknown_keys)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check(obj_schema, "{\"a\":1}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "missing required key 'b'"));
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\n\"zz\":2}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 2: zz: unknown key 'zz' (not in the schema)");
}
END_TEST

START_TEST(bounds_enum_pattern_const)
{
    /* Each message whole: the key, the bound and the value, in that order. */
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check(obj_schema, "{\"a\":0,\"b\":1}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: a: must be >= 1, got 0");
    ck_assert_int_eq(check(obj_schema, "{\"a\":1.5,\"b\":1}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: a: expected integer, got number");
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":0}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: b: must be > 0, got 0");
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"c\":\"z\"}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: c: must be one of: x, y");
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"d\":\"A1\"}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: d: 'A1' does not match the pattern ^[a-z]+$");
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"f\":2}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: f: must equal the schema's constant");
    /* a maximum, a string constant, a minimum length */
    ck_assert_int_eq(check("{\"maximum\":2.5}", "3", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must be <= 2.5, got 3");
    ck_assert_int_eq(check("{\"maximum\":2.5}", "2.5", err), 0);
    ck_assert_int_eq(check("{\"const\":\"gpu\"}", "\"cpu\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must equal gpu");
    ck_assert_int_eq(check("{\"minLength\":3}", "\"ab\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must have at least 3 characters");
    ck_assert_int_eq(check("{\"minLength\":3}", "\"abc\"", err), 0);
}
END_TEST

START_TEST(arrays_and_refs)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"e\":[1,\n2,\n-3]}", err),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 3: e[2]: must be > 0, got -3");
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"e\":[]}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "at least 1 items"));
}
END_TEST

START_TEST(unknown_schema_keyword_is_an_error)
{
    char err[RL_ERRMSG_SIZE];
    /* A keyword the validator does not implement must not pass silently. */
    ck_assert_int_eq(check("{\"type\":\"number\",\"multipleOf\":2}", "3", err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "multipleOf"));
    ck_assert_int_eq(check("{\"$ref\":\"#/$defs/nope\"}", "3", err), RL_EINVAL);
}
END_TEST

START_TEST(syntax_error_has_line_and_column)
{
    const char *text = "{\n  \"a\": 1,\n  \"b\": [1, 2,, 3]\n}";
    cJSON *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse(text, strlen(text), "k.json", &doc, err), RL_EPARSE);
    ck_assert_ptr_null(doc);
    ck_assert_ptr_nonnull(strstr(err, "'k.json': line 3, column 14: malformed JSON"));
}
END_TEST

START_TEST(truncated_empty_and_trailing)
{
    cJSON *doc;
    char err[RL_ERRMSG_SIZE];
    const char *trunc = "{\"kernels\": [{\"name\": \"a\"";
    ck_assert_int_eq(rl_json_parse(trunc, strlen(trunc), "t.json", &doc, err), RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    ck_assert_int_eq(rl_json_parse(" \n ", 3, "e.json", &doc, err), RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "empty file"));
    ck_assert_int_eq(rl_json_parse("{} x", 4, "g.json", &doc, err), RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "text after the end"));
    ck_assert_int_eq(rl_json_parse("{}\n\n", 4, "ok.json", &doc, err), 0);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(missing_file_names_it)
{
    cJSON *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse_file("/nonexistent/x.json", &doc, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "'/nonexistent/x.json'"));
}
END_TEST

START_TEST(locate_line_follows_paths)
{
    const char *text = "{\"a\": {\"x\": 1,\n \"y\": [\n  10,\n  {\"z\": \"q,}]\"},\n"
                       "  {\"z\": 2}]},\n \"b\": 3}";
    struct rl_json_path p = {3, {{"a", 0}, {"y", 0}, {NULL, 2}}};
    ck_assert_int_eq(rl_json_locate_line(text, strlen(text), &p), 5);
    p = (struct rl_json_path){1, {{"b", 0}}};
    ck_assert_int_eq(rl_json_locate_line(text, strlen(text), &p), 6);
    p = (struct rl_json_path){1, {{"nope", 0}}};
    ck_assert_int_eq(rl_json_locate_line(text, strlen(text), &p), 0);
    char buf[64];
    p = (struct rl_json_path){3, {{"a", 0}, {"y", 0}, {NULL, 2}}};
    rl_json_path_format(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "a.y[2]");
}
END_TEST

START_TEST(round_and_null_numbers)
{
    ck_assert(rl_json_round(989.4 * 1000 / 4800, 6) == 206.125);
    ck_assert(rl_json_round(0.1 + 0.2, 6) == 0.3);
    ck_assert(isnan(rl_json_round(NAN, 6)));
    cJSON *o = cJSON_CreateObject();
    rl_json_add_number(o, "x", NAN);
    rl_json_add_number(o, "y", INFINITY);
    rl_json_add_number(o, "z", 2.5);
    char *s = cJSON_PrintUnformatted(o);
    ck_assert_str_eq(s, "{\"x\":null,\"y\":null,\"z\":2.5}");
    cJSON_free(s);
    cJSON_Delete(o);
}
END_TEST

START_TEST(position_counts_lines_and_columns)
{
    int line, col;
    const char *t = "ab\ncd";
    rl_json_position(t, 0, &line, &col);
    ck_assert_int_eq(line, 1);
    ck_assert_int_eq(col, 1);
    rl_json_position(t, 2, &line, &col); /* the '\n' itself: line 1, col 3 */
    ck_assert_int_eq(line, 1);
    ck_assert_int_eq(col, 3);
    rl_json_position(t, 3, &line, &col); /* 'c' */
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 1);
    rl_json_position(t, 5, &line, &col); /* the end */
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 3);
    rl_json_position(t, 100, &line, &col); /* stops at the NUL */
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 3);
}
END_TEST

/* rl_json_parse's message for text, RL_EPARSE expected and no document. */
static void parse_error(const char *text, size_t len, char *err)
{
    cJSON *doc = (cJSON *)1;
    ck_assert_int_eq(rl_json_parse(text, len, "x.json", &doc, err), RL_EPARSE);
    ck_assert_ptr_null(doc);
}

START_TEST(parse_error_messages)
{
    char err[RL_ERRMSG_SIZE];
    /* cJSON stops at the start of "tru": offset 6, column 7. */
    parse_error("{\"a\": tru}", 10, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 7: malformed JSON near 'tru}'");
    /* The excerpt: unprintable bytes as '?', at most 16 bytes, not past the
     * line's end. */
    parse_error("[\x7f]", 3, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 2: malformed JSON near '?]'");
    parse_error("[abcdefghijklmnopqrstuvwxyz]", 28, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 2: malformed JSON near 'abcdefghijklmnop'");
    /* Spaces are printable; the excerpt stops at len. */
    parse_error("[x y]", 5, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 2: malformed JSON near 'x y]'");
    parse_error("truXYZ", 3, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 1: malformed JSON near 'tru'");
    /* A NUL inside len after the document is text, not a blank. */
    parse_error("{}\0", 3, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 3: malformed JSON: text after the end "
                          "of the document");
    parse_error("[x\ny]", 5, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 2: malformed JSON near 'x'");
    /* Open at the end but the error on an earlier line: not "truncated". */
    parse_error("[tru,\n1", 7, err);
    ck_assert_str_eq(err, "'x.json': line 1, column 2: malformed JSON near 'tru,'");
    /* Error on the last line, closed at the end: not truncated either. */
    parse_error("[1,\n tru]", 9, err);
    ck_assert_str_eq(err, "'x.json': line 2, column 2: malformed JSON near 'tru]'");
    /* ... open at the end: truncated, at the end of the text (" tru" is 4
     * characters: column 5). */
    parse_error("[1,\n tru", 8, err);
    ck_assert_str_eq(err, "'x.json': line 2, column 5: malformed JSON (truncated: "
                          "unexpected end of file)");
    /* Inside a string whose last quote is escaped: still open. */
    parse_error("[1,\n\"a\\\"]", 9, err);
    ck_assert_ptr_nonnull(strstr(err, "line 2, column 6: malformed JSON (truncated"));
    /* Only the first len bytes count: "[1]" cut to "[1". */
    parse_error("[1]", 2, err);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    /* Blanks (space, tab, CR, LF) only: empty. */
    parse_error("", 0, err);
    ck_assert_str_eq(err, "'x.json': line 1: empty file, expected JSON");
    parse_error(" \t\r\n", 4, err);
    ck_assert_str_eq(err, "'x.json': line 1: empty file, expected JSON");
    /* Text after the document, at its own position. */
    parse_error("{}\n  x", 6, err);
    ck_assert_str_eq(err, "'x.json': line 2, column 3: malformed JSON: text after "
                          "the end of the document");
    parse_error("[1] ]", 5, err);
    ck_assert_ptr_nonnull(strstr(err, "line 1, column 5: malformed JSON: text after"));
}
END_TEST

START_TEST(parse_accepts_trailing_blanks)
{
    char err[RL_ERRMSG_SIZE];
    cJSON *doc = NULL;
    ck_assert_int_eq(rl_json_parse("[1] \t\r\n", 7, "x", &doc, err), 0);
    ck_assert_int_eq(cJSON_GetArraySize(doc), 1);
    cJSON_Delete(doc);
    /* len stops before junk that follows in memory. */
    ck_assert_int_eq(rl_json_parse("[2]xyz", 3, "x", &doc, err), 0);
    ck_assert_int_eq(cJSON_GetArrayItem(doc, 0)->valueint, 2);
    cJSON_Delete(doc);
}
END_TEST

START_TEST(parse_and_write_files)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/w.json", rl_test_tmpdir());
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "a", 1);
    ck_assert_int_eq(rl_json_write_file(o, path, err), 0);
    cJSON_Delete(o);
    /* cJSON_Print's formatted text and one newline. */
    char *text = rl_test_slurp(path);
    ck_assert_str_eq(text, "{\n\t\"a\":\t1\n}\n");
    free(text);
    cJSON *doc = NULL;
    ck_assert_int_eq(rl_json_parse_file(path, &doc, err), 0);
    ck_assert(rl_json_number(doc, "a") == 1);
    ck_assert(isnan(rl_json_number(doc, "b")));
    ck_assert_ptr_null(rl_json_string(doc, "a"));
    cJSON_Delete(doc);
    /* A syntax error names the file. */
    FILE *f = fopen(path, "w");
    fputs("{\n\"a\": ,}", f);
    fclose(f);
    ck_assert_int_eq(rl_json_parse_file(path, &doc, err), RL_EPARSE);
    ck_assert_ptr_null(doc);
    ck_assert_ptr_nonnull(strstr(err, path));
    ck_assert_ptr_nonnull(strstr(err, "line 2, column 6"));
    /* Writing into a missing folder fails and names the path. */
    o = cJSON_CreateObject();
    ck_assert_int_eq(rl_json_write_file(o, "/nonexistent-dir/w.json", err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent-dir/w.json"));
    cJSON_Delete(o);
}
END_TEST

START_TEST(round_to_digits)
{
    ck_assert(rl_json_round(123456789.0, 3) == 123000000.0);
    ck_assert(rl_json_round(-0.000123456, 2) == -0.00012);
    ck_assert(rl_json_round(0.0, 6) == 0.0);
    ck_assert(rl_json_round(INFINITY, 6) == INFINITY);
    ck_assert(rl_json_round(-INFINITY, 6) == -INFINITY);
}
END_TEST

START_TEST(path_format_forms)
{
    char buf[64];
    struct rl_json_path p = {0};
    rl_json_path_format(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "(document)");
    p = (struct rl_json_path){2, {{NULL, 0}, {"a", 0}}};
    rl_json_path_format(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "[0].a");
    p = (struct rl_json_path){3, {{"k", 0}, {NULL, 12}, {NULL, 3}}};
    rl_json_path_format(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "k[12][3]");
    /* Cut to the buffer. */
    p = (struct rl_json_path){2, {{"abc", 0}, {"def", 0}}};
    rl_json_path_format(&p, buf, 4);
    ck_assert_str_eq(buf, "abc");
    rl_json_path_format(&p, buf, 6);
    ck_assert_str_eq(buf, "abc.d");
    /* An index cut: "k" leaves 4 - 1 = 3 bytes, "[1" and the NUL. */
    p = (struct rl_json_path){2, {{"k", 0}, {NULL, 12}}};
    memset(buf, 'x', sizeof buf);
    rl_json_path_format(&p, buf, 4);
    ck_assert_str_eq(buf, "k[1");
    ck_assert_int_eq(buf[4], 'x'); /* nothing written past the size */
    /* An empty key writes nothing, and the steps after it still come. */
    p = (struct rl_json_path){3, {{"", 0}, {NULL, 1}, {"b", 0}}};
    rl_json_path_format(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "[1].b");
}
END_TEST

/* rl_json_locate_line on a heap copy of exactly text's bytes, no NUL. */
static int locate_cut(const char *text, const struct rl_json_path *p)
{
    size_t n = strlen(text);
    char *cut = malloc(n);
    ck_assert_ptr_nonnull(cut);
    memcpy(cut, text, n);
    int line = rl_json_locate_line(cut, n, p);
    free(cut);
    return line;
}

START_TEST(locate_line_edges)
{
    /* A key that is a prefix of another matches only itself. */
    const char *t1 = "{\"abc\": 1,\n \"ab\": 2,\n \"s\": \"x\\\"y\",\n\t\"t\": [5,\r\n 6]}";
    struct rl_json_path p = {1, {{"ab", 0}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 2);
    p = (struct rl_json_path){1, {{"abc", 0}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 1);
    p = (struct rl_json_path){1, {{"abcd", 0}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 0);
    /* Past a string with an escaped quote, a tab and a CR. */
    p = (struct rl_json_path){2, {{"t", 0}, {NULL, 1}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 5);
    p = (struct rl_json_path){2, {{"t", 0}, {NULL, 0}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 4);
    /* Index past the end; a key step on an array; an index on an object. */
    p = (struct rl_json_path){2, {{"t", 0}, {NULL, 2}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 0);
    p = (struct rl_json_path){2, {{"t", 0}, {"x", 0}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 0);
    p = (struct rl_json_path){1, {{NULL, 0}}};
    ck_assert_int_eq(rl_json_locate_line(t1, strlen(t1), &p), 0);
    /* The empty path: where the document starts. */
    p = (struct rl_json_path){0};
    ck_assert_int_eq(rl_json_locate_line("\n\n [1]", 6, &p), 3);
    /* Nested containers skipped whole; a value after them. */
    const char *t2 = "[[1, [2]], {\"a\": [3]},\n 4]";
    p = (struct rl_json_path){1, {{NULL, 2}}};
    ck_assert_int_eq(rl_json_locate_line(t2, strlen(t2), &p), 2);
    /* Only len bytes are read. */
    p = (struct rl_json_path){1, {{NULL, 1}}};
    ck_assert_int_eq(rl_json_locate_line("[1,\n2]", 3, &p), 0);
    /* Texts that end early, each in a heap copy of exactly its bytes (no
     * NUL: ASan sees a read past them). Where a step's container would
     * start: */
    p = (struct rl_json_path){2, {{"a", 0}, {NULL, 0}}};
    ck_assert_int_eq(locate_cut("{\"a\": ", &p), 0);
    p = (struct rl_json_path){2, {{"a", 0}, {"b", 0}}};
    ck_assert_int_eq(locate_cut("{\"a\": ", &p), 0);
    p = (struct rl_json_path){1, {{"a", 0}}};
    ck_assert_int_eq(locate_cut("{\"a\": ", &p), 1);
    /* Where a value to skip would start, inside one, inside a key: */
    p = (struct rl_json_path){1, {{"b", 0}}};
    ck_assert_int_eq(locate_cut("{\"a\": ", &p), 0);
    ck_assert_int_eq(locate_cut("{\"a\": [1", &p), 0);
    ck_assert_int_eq(locate_cut("{\"a\": \"x", &p), 0);
    p = (struct rl_json_path){1, {{"ab", 0}}};
    ck_assert_int_eq(locate_cut("{\"ab", &p), 0);
    ck_assert_int_eq(locate_cut("{\"ab\"", &p), 1);
    /* Right after an element: no second one. */
    p = (struct rl_json_path){1, {{NULL, 1}}};
    ck_assert_int_eq(locate_cut("[1", &p), 0);
    p = (struct rl_json_path){1, {{NULL, 0}}};
    ck_assert_int_eq(locate_cut("[1", &p), 1);
    /* An array's last element is its last: the step does not go on past
     * its ']' into the object around it (there, ", \"x\"" on line 2). */
    const char *t3 = "{\"a\": [1]\n, \"x\": 5}";
    p = (struct rl_json_path){2, {{"a", 0}, {NULL, 1}}};
    ck_assert_int_eq(rl_json_locate_line(t3, strlen(t3), &p), 0);
    p = (struct rl_json_path){2, {{"a", 0}, {NULL, 0}}};
    ck_assert_int_eq(rl_json_locate_line(t3, strlen(t3), &p), 1);
}
END_TEST

START_TEST(schema_numbers_strings_arrays)
{
    char err[RL_ERRMSG_SIZE];
    const char *sch = "{\"type\":\"number\",\"minimum\":1,\"maximum\":5}";
    ck_assert_int_eq(check(sch, "1", err), 0);
    ck_assert_int_eq(check(sch, "5", err), 0);
    ck_assert_int_eq(check(sch, "5.5", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must be <= 5, got 5.5");
    ck_assert_int_eq(check(sch, "0.5", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must be >= 1, got 0.5");
    sch = "{\"exclusiveMinimum\":2}";
    ck_assert_int_eq(check(sch, "2.001", err), 0);
    ck_assert_int_eq(check(sch, "2", err), RL_ESCHEMA);
    ck_assert_int_eq(check(sch, "\"2\"", err), 0); /* bounds apply to numbers */
    sch = "{\"type\":\"string\",\"minLength\":2}";
    ck_assert_int_eq(check(sch, "\"ab\"", err), 0);
    ck_assert_int_eq(check(sch, "\"a\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must have at least 2 characters");
    sch = "{\"type\":\"array\",\"minItems\":2}";
    ck_assert_int_eq(check(sch, "[1,2]", err), 0);
    ck_assert_int_eq(check(sch, "[1]", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): expected at least 2 items, got 1");
    sch = "{\"type\":\"integer\"}";
    ck_assert_int_eq(check(sch, "2.0", err), 0);
    ck_assert_int_eq(check(sch, "-7", err), 0);
    ck_assert_int_eq(check(sch, "2.5", err), RL_ESCHEMA);
    ck_assert_int_eq(check(sch, "\"2\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): expected integer, got string");
    /* Every type name. */
    ck_assert_int_eq(check("{\"type\":\"boolean\"}", "true", err), 0);
    ck_assert_int_eq(check("{\"type\":\"boolean\"}", "null", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): expected boolean, got null");
    ck_assert_int_eq(check("{\"type\":\"null\"}", "false", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): expected null, got boolean");
    ck_assert_int_eq(check("{\"type\":\"object\"}", "\n\n[1]", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 3: (document): expected object, got array");
    ck_assert_int_eq(check("{\"type\":\"array\"}", "{}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): expected array, got object");
    ck_assert_int_eq(check("{\"type\":[\"string\",\"integer\",\"null\"]}", "3", err), 0);
    ck_assert_int_eq(check("{\"type\":[\"string\",\"integer\",\"null\"]}", "3.5", err),
                     RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): expected string or integer or "
                          "null, got number");
    ck_assert_int_eq(check("{\"type\":[\"string\",3]}", "3", err), RL_EINVAL);
    ck_assert_str_eq(err, "'d.json': schema: bad 'type' list");
}
END_TEST

START_TEST(schema_const_enum_and_objects)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check("{\"const\":\"abc\"}", "\"abc\"", err), 0);
    ck_assert_int_eq(check("{\"const\":\"abc\"}", "\"abd\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must equal abc");
    ck_assert_int_eq(check("{\"const\":2}", "\"2\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must equal the schema's constant");
    ck_assert_int_eq(check("{\"const\":true}", "true", err), 0);
    ck_assert_int_eq(check("{\"const\":true}", "false", err), RL_ESCHEMA);
    ck_assert_int_eq(check("{\"const\":false}", "false", err), 0);
    ck_assert_int_eq(check("{\"const\":null}", "null", err), 0);
    ck_assert_int_eq(check("{\"const\":null}", "0", err), RL_ESCHEMA);
    /* enum: a later member matches; numbers compare by value; the message
     * lists the strings. */
    ck_assert_int_eq(check("{\"enum\":[1,\"a\",2.5,null]}", "2.5", err), 0);
    ck_assert_int_eq(check("{\"enum\":[1,\"a\",2.5,null]}", "null", err), 0);
    ck_assert_int_eq(check("{\"enum\":[1,\"a\",\"b\"]}", "\"c\"", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 1: (document): must be one of: a, b");
    /* An enum longer than the message holds: cut, not overrun (30 names
     * of 20 letters: 30 x 22 bytes, past the 256-byte list). */
    char big[1024] = "{\"enum\":[";
    for (int i = 0; i < 30; i++)
        snprintf(big + strlen(big), sizeof big - strlen(big), "%s\"%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c\"",
                 i ? "," : "", 'a' + i % 26, 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm',
                 'n', 'o', 'p', 'q', 'r', 's', 't');
    strcat(big, "]}");
    ck_assert_int_eq(check(big, "\"zz\"", err), RL_ESCHEMA);
    ck_assert_int_eq(strncmp(err, "'d.json': line 1: (document): must be one of: abcdefghijklmnopqrst, "
                                  "bbcdefghijklmnopqrst, ", 84), 0);
    ck_assert_uint_lt(strlen(err), RL_ERRMSG_SIZE);
    /* additionalProperties as a schema checks the unlisted keys. */
    const char *sch = "{\"properties\":{\"n\":{\"type\":\"string\"}},"
                      "\"additionalProperties\":{\"type\":\"number\"}}";
    ck_assert_int_eq(check(sch, "{\"n\":\"s\",\"x\":1}", err), 0);
    ck_assert_int_eq(check(sch, "{\"n\":\"s\",\n\"x\":\"y\"}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 2: x: expected number, got string");
    /* Neither: unknown keys are fine; required entries that are not
     * strings are ignored. */
    ck_assert_int_eq(check("{\"required\":[3]}", "{\"q\":[]}", err), 0);
    /* A nested failure names the whole path and its line. */
    sch = "{\"properties\":{\"a\":{\"items\":{\"properties\":{\"b\":{\"type\":\"string\"}}}}}}";
    ck_assert_int_eq(check(sch, "{\"a\": [{\"b\": \"x\"},\n {\"b\": 1}]}", err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'d.json': line 2: a[1].b: expected string, got number");
}
END_TEST

START_TEST(schema_refs_and_depth)
{
    char err[RL_ERRMSG_SIZE];
    /* A ref through two levels of $defs. */
    const char *sch = "{\"$defs\":{\"g\":{\"h\":{\"type\":\"string\"}}},\"$ref\":\"#/$defs/g/h\"}";
    ck_assert_int_eq(check(sch, "\"s\"", err), 0);
    ck_assert_int_eq(check(sch, "1", err), RL_ESCHEMA);
    ck_assert_int_eq(check("{\"$ref\":\"other.json#/a\"}", "1", err), RL_EINVAL);
    ck_assert_str_eq(err, "'d.json': schema: cannot resolve 'other.json#/a'");
    /* A 127-byte name still resolves. */
    char name[128], text[512];
    memset(name, 'n', 127), name[127] = 0;
    snprintf(text, sizeof text, "{\"$defs\":{\"%s\":{\"type\":\"null\"}},\"$ref\":\"#/$defs/%s\"}",
             name, name);
    ck_assert_int_eq(check(text, "null", err), 0);
    ck_assert_int_eq(check(text, "1", err), RL_ESCHEMA);
    /* Nesting: 16 arrays around a number fill the 16 path steps; a 17th
     * does not fit. */
    sch = "{\"$defs\":{\"n\":{\"type\":[\"array\",\"number\"],\"items\":{\"$ref\":\"#/$defs/n\"}}},"
          "\"$ref\":\"#/$defs/n\"}";
    char doc[64];
    snprintf(doc, sizeof doc, "%.*s1%.*s", 16, "[[[[[[[[[[[[[[[[[[[[", 16,
             "]]]]]]]]]]]]]]]]]]]]");
    ck_assert_int_eq(check(sch, doc, err), 0);
    snprintf(doc, sizeof doc, "%.*s1%.*s", 17, "[[[[[[[[[[[[[[[[[[[[", 17,
             "]]]]]]]]]]]]]]]]]]]]");
    ck_assert_int_eq(check(sch, doc, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "nested too deeply"));
    /* The same through objects. */
    sch = "{\"$defs\":{\"o\":{\"type\":[\"object\",\"number\"],"
          "\"additionalProperties\":{\"$ref\":\"#/$defs/o\"}}},\"$ref\":\"#/$defs/o\"}";
    char odoc[256] = "", close[32] = "";
    for (int i = 0; i < 16; i++)
        strcat(odoc, "{\"k\":"), strcat(close, "}");
    char full[320];
    snprintf(full, sizeof full, "%s1%s", odoc, close);
    ck_assert_int_eq(check(sch, full, err), 0);
    snprintf(full, sizeof full, "{\"k\":%s1%s}", odoc, close);
    ck_assert_int_eq(check(sch, full, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "nested too deeply"));
    /* A sub-schema that is not an object; a bad pattern. */
    ck_assert_int_eq(check("{\"items\":3}", "[1]", err), RL_EINVAL);
    ck_assert_str_eq(err, "'d.json': schema: a schema must be an object");
    ck_assert_int_eq(check("{\"pattern\":\"(\"}", "\"a\"", err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "bad pattern '('"));
}
END_TEST

START_TEST(schema_validate_reports_where)
{
    cJSON *schema = parse("{\"items\":{\"type\":\"number\"}}");
    cJSON *doc = parse("[1, 2, \"x\"]");
    struct rl_json_path where;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_schema_validate(schema, doc, &where, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "[2]: expected number, got string");
    ck_assert_int_eq(where.depth, 1);
    ck_assert_ptr_null(where.step[0].key);
    ck_assert_int_eq(where.step[0].index, 2);
    /* No message buffer, no where: just the code. */
    ck_assert_int_eq(rl_schema_validate(schema, doc, NULL, NULL), RL_ESCHEMA);
    cJSON_Delete(doc);
    doc = parse("[1, 2]");
    ck_assert_int_eq(rl_schema_validate(schema, doc, &where, err), 0);
    ck_assert_int_eq(where.depth, 0);
    cJSON_Delete(doc);
    cJSON_Delete(schema);
}
END_TEST

static Suite *schema_suite(void)
{
    Suite *s = suite_create("schema");
    TCase *core = tcase_create("core");
    tcase_add_test(core, valid_document_passes);
    tcase_add_test(core, arrays_and_refs);
    tcase_add_test(core, locate_line_follows_paths);
    tcase_add_test(core, round_and_null_numbers);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, type_mismatch_names_key_and_line);
    tcase_add_test(limits, missing_and_unknown_keys);
    tcase_add_test(limits, bounds_enum_pattern_const);
    tcase_add_test(limits, unknown_schema_keyword_is_an_error);
    tcase_add_test(limits, syntax_error_has_line_and_column);
    tcase_add_test(limits, truncated_empty_and_trailing);
    tcase_add_test(limits, missing_file_names_it);
    tcase_add_test(limits, position_counts_lines_and_columns);
    tcase_add_test(limits, parse_error_messages);
    tcase_add_test(limits, parse_accepts_trailing_blanks);
    tcase_add_test(limits, parse_and_write_files);
    tcase_add_test(limits, round_to_digits);
    tcase_add_test(limits, path_format_forms);
    tcase_add_test(limits, locate_line_edges);
    tcase_add_test(limits, schema_numbers_strings_arrays);
    tcase_add_test(limits, schema_const_enum_and_objects);
    tcase_add_test(limits, schema_refs_and_depth);
    tcase_add_test(limits, schema_validate_reports_where);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(schema_suite()); }
