/* schema.c - validates a JSON document against a JSON Schema subset. */
#include "analyzer/util/schema.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct ctx {
    const cJSON *root;
    struct rl_json_path path;
    char *errmsg;
};

static const char *type_of(const cJSON *n)
{
    if (cJSON_IsObject(n))
        return "object";
    if (cJSON_IsArray(n))
        return "array";
    if (cJSON_IsString(n))
        return "string";
    if (cJSON_IsNumber(n))
        return "number";
    if (cJSON_IsBool(n))
        return "boolean";
    if (cJSON_IsNull(n))
        return "null";
    return "invalid";
}

static int has_type(const cJSON *n, const char *t)
{
    if (strcmp(t, "integer") == 0)
        return cJSON_IsNumber(n) && isfinite(n->valuedouble) &&
               n->valuedouble == floor(n->valuedouble);
    return strcmp(type_of(n), t) == 0;
}

static int fail(struct ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct ctx *c, const char *fmt, ...)
{
    if (c->errmsg) {
        char where[200], what[280];
        rl_json_path_format(&c->path, where, sizeof where);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(c->errmsg, RL_ERRMSG_SIZE, "%s: %s", where, what);
    }
    return RL_ESCHEMA;
}

static int push(struct ctx *c, const char *key, int index)
{
    if (c->path.depth >= RL_JSON_PATH_MAX)
        return -1;
    c->path.step[c->path.depth].key = key;
    c->path.step[c->path.depth].index = index;
    c->path.depth++;
    return 0;
}

static int equal_scalar(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsBool(a) && cJSON_IsBool(b))
        return cJSON_IsTrue(a) == cJSON_IsTrue(b);
    return cJSON_IsNull(a) && cJSON_IsNull(b);
}

static const cJSON *resolve_ref(const cJSON *root, const char *ref)
{
    if (strncmp(ref, "#/", 2) != 0)
        return NULL;
    const cJSON *n = root;
    char tok[128];
    const char *p = ref + 2;
    while (*p && n) {
        size_t k = strcspn(p, "/");
        if (k >= sizeof tok)
            return NULL;
        memcpy(tok, p, k);
        tok[k] = '\0';
        n = cJSON_GetObjectItemCaseSensitive(n, tok);
        p += k + (p[k] == '/');
    }
    return n;
}

static int validate(struct ctx *c, const cJSON *sch, const cJSON *node);

static int check_type(struct ctx *c, const cJSON *t, const cJSON *node)
{
    if (cJSON_IsString(t))
        return has_type(node, t->valuestring)
                   ? 0
                   : fail(c, "expected %s, got %s", t->valuestring, type_of(node));
    char want[128] = "";
    const cJSON *it;
    cJSON_ArrayForEach(it, t) {
        if (!cJSON_IsString(it))
            return rl_fail(c->errmsg, RL_EINVAL, "schema: bad 'type' list");
        if (has_type(node, it->valuestring))
            return 0;
        size_t u = strlen(want);
        snprintf(want + u, sizeof want - u, "%s%s", u ? " or " : "",
                 it->valuestring);
    }
    return fail(c, "expected %s, got %s", want, type_of(node));
}

static int check_object(struct ctx *c, const cJSON *sch, const cJSON *node)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(sch, "required");
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(sch, "properties");
    const cJSON *addl = cJSON_GetObjectItemCaseSensitive(sch, "additionalProperties");
    const cJSON *it;
    cJSON_ArrayForEach(it, req) {
        if (cJSON_IsString(it) &&
            !cJSON_GetObjectItemCaseSensitive(node, it->valuestring))
            return fail(c, "missing required key '%s'", it->valuestring);
    }
    cJSON_ArrayForEach(it, node) {
        const cJSON *sub = props ? cJSON_GetObjectItemCaseSensitive(props, it->string)
                                 : NULL;
        if (!sub && cJSON_IsFalse(addl)) {
            push(c, it->string, 0);
            return fail(c, "unknown key '%s' (not in the schema)", it->string);
        }
        if (!sub && cJSON_IsObject(addl))
            sub = addl;
        if (!sub)
            continue;
        if (push(c, it->string, 0))
            return fail(c, "nested too deeply");
        int rc = validate(c, sub, it);
        if (rc)
            return rc;
        c->path.depth--;
    }
    return 0;
}

static int check_array(struct ctx *c, const cJSON *sch, const cJSON *node)
{
    double min_items = rl_json_number(sch, "minItems");
    int n = cJSON_GetArraySize(node);
    if (!isnan(min_items) && n < min_items)
        return fail(c, "expected at least %g items, got %d", min_items, n);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(sch, "items");
    if (!items)
        return 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, node) {
        if (push(c, NULL, i++))
            return fail(c, "nested too deeply");
        int rc = validate(c, items, it);
        if (rc)
            return rc;
        c->path.depth--;
    }
    return 0;
}

static int check_number(struct ctx *c, const cJSON *sch, const cJSON *node)
{
    double v = node->valuedouble;
    double lo = rl_json_number(sch, "minimum");
    double xlo = rl_json_number(sch, "exclusiveMinimum");
    double hi = rl_json_number(sch, "maximum");
    if (!isnan(lo) && !(v >= lo))
        return fail(c, "must be >= %g, got %g", lo, v);
    if (!isnan(xlo) && !(v > xlo))
        return fail(c, "must be > %g, got %g", xlo, v);
    if (!isnan(hi) && !(v <= hi))
        return fail(c, "must be <= %g, got %g", hi, v);
    return 0;
}

static int check_string(struct ctx *c, const cJSON *sch, const cJSON *node)
{
    double min_len = rl_json_number(sch, "minLength");
    if (!isnan(min_len) && strlen(node->valuestring) < min_len)
        return fail(c, "must have at least %g characters", min_len);
    const char *pat = rl_json_string(sch, "pattern");
    if (!pat)
        return 0;
    regex_t re;
    if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0)
        return rl_fail(c->errmsg, RL_EINVAL, "schema: bad pattern '%s'", pat);
    int match = regexec(&re, node->valuestring, 0, NULL, 0) == 0;
    regfree(&re);
    return match ? 0
                 : fail(c, "'%s' does not match the pattern %s",
                        node->valuestring, pat);
}

static const char *const known_keywords[] = {
    "type", "const", "enum", "minimum", "maximum", "exclusiveMinimum",
    "pattern", "minLength", "minItems", "items", "required", "properties",
    "additionalProperties", "$ref", "$defs", "description", "$comment", NULL};

static int validate(struct ctx *c, const cJSON *sch, const cJSON *node)
{
    if (!cJSON_IsObject(sch))
        return rl_fail(c->errmsg, RL_EINVAL, "schema: a schema must be an object");
    const cJSON *kw;
    cJSON_ArrayForEach(kw, sch) {
        int known = 0;
        for (int i = 0; known_keywords[i]; i++)
            known |= strcmp(kw->string, known_keywords[i]) == 0;
        if (!known)
            return rl_fail(c->errmsg, RL_EINVAL,
                           "schema: unsupported keyword '%s'", kw->string);
    }
    const char *ref = rl_json_string(sch, "$ref");
    if (ref) {
        const cJSON *target = resolve_ref(c->root, ref);
        if (!target)
            return rl_fail(c->errmsg, RL_EINVAL, "schema: cannot resolve '%s'", ref);
        return validate(c, target, node);
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(sch, "type");
    if (t) {
        int rc = check_type(c, t, node);
        if (rc)
            return rc;
    }
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(sch, "const");
    if (k && !equal_scalar(k, node))
        return fail(c, "must equal %s",
                    cJSON_IsString(k) ? k->valuestring : "the schema's constant");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(sch, "enum");
    if (e) {
        const cJSON *it;
        char list[256] = "";
        cJSON_ArrayForEach(it, e) {
            if (equal_scalar(it, node))
                goto enum_ok;
            size_t u = strlen(list);
            if (cJSON_IsString(it))
                snprintf(list + u, sizeof list - u, "%s%s", u ? ", " : "",
                         it->valuestring);
        }
        return fail(c, "must be one of: %s", list);
    }
enum_ok:
    if (cJSON_IsObject(node))
        return check_object(c, sch, node);
    if (cJSON_IsArray(node))
        return check_array(c, sch, node);
    if (cJSON_IsNumber(node))
        return check_number(c, sch, node);
    if (cJSON_IsString(node))
        return check_string(c, sch, node);
    return 0;
}

int rl_schema_validate(const cJSON *schema, const cJSON *doc,
                       struct rl_json_path *where, char *errmsg)
{
    struct ctx c = {.root = schema, .errmsg = errmsg};
    int rc = validate(&c, schema, doc);
    if (where)
        *where = c.path;
    return rc;
}

int rl_schema_check_text(const cJSON *schema, const cJSON *doc,
                         const char *text, size_t len, const char *what,
                         char *errmsg)
{
    struct rl_json_path where;
    char msg[RL_ERRMSG_SIZE] = "";
    int rc = rl_schema_validate(schema, doc, &where, msg);
    if (rc == RL_OK)
        return RL_OK;
    int line = rc == RL_ESCHEMA ? rl_json_locate_line(text, len, &where) : 0;
    if (line > 0)
        return rl_fail(errmsg, rc, "'%s': line %d: %s", what, line, msg);
    return rl_fail(errmsg, rc, "'%s': %s", what, msg);
}
