/* check_schema.c - tests of the JSON helpers and the JSON Schema validator. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/schema.h"

#include <math.h>
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
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(check(obj_schema, "{\"a\":0,\"b\":1}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "a: must be >= 1, got 0"));
    ck_assert_int_eq(check(obj_schema, "{\"a\":1.5,\"b\":1}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "expected integer"));
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":0}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "b: must be > 0, got 0"));
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"c\":\"z\"}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "must be one of: x, y"));
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"d\":\"A1\"}", err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "does not match"));
    ck_assert_int_eq(check(obj_schema, "{\"a\":1,\"b\":1,\"f\":2}", err), RL_ESCHEMA);
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
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(schema_suite()); }
