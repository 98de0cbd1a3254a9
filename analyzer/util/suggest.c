/* suggest.c - "did you mean": the names nearest to a mistyped one, by edit distance. */
#include "analyzer/util/suggest.h"

#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void rl_suggest_init(struct rl_suggest *s, const char *typed)
{
    memset(s, 0, sizeof *s);
    s->typed = typed;
}

static void lower(char *buf, size_t size, const char *s)
{
    size_t n = 0;
    for (; s[n] && n + 1 < size; n++)
        buf[n] = (char)tolower((unsigned char)s[n]);
    buf[n] = '\0';
}

void rl_suggest_consider(struct rl_suggest *s, const char *name)
{
    char a[128], b[128];
    lower(a, sizeof a, s->typed);
    lower(b, sizeof b, name);
    size_t p = 0;
    while (a[p] && a[p] == b[p])
        p++;
    rl_suggest_add(s, name, rl_edit_distance(a, b), p);
}

void rl_suggest_add(struct rl_suggest *s, const char *name, size_t distance, size_t prefix)
{
    for (size_t k = 0; k < RL_SUGGEST_MAX; k++) {
        if (k < s->n && (distance > s->distance[k] ||
                         (distance == s->distance[k] && prefix <= s->prefix[k])))
            continue;
        size_t last = s->n < RL_SUGGEST_MAX ? s->n : RL_SUGGEST_MAX - 1;
        for (size_t m = last; m > k; m--) {
            s->name[m] = s->name[m - 1];
            s->distance[m] = s->distance[m - 1];
            s->prefix[m] = s->prefix[m - 1];
        }
        s->name[k] = name;
        s->distance[k] = distance;
        s->prefix[k] = prefix;
        if (s->n < RL_SUGGEST_MAX)
            s->n++;
        return;
    }
}

const char *rl_suggest_best(const struct rl_suggest *s)
{
    if (s->n == 0)
        return NULL;
    size_t near = strlen(s->typed) / 3;
    near = near < 1 ? 1 : near > 3 ? 3 : near;
    return s->distance[0] <= near ? s->name[0] : NULL;
}

const char *rl_suggest_hint(char *buf, size_t size, const char *typed,
                            const char *const *names, const char *otherwise)
{
    struct rl_suggest s;
    rl_suggest_init(&s, typed);
    for (size_t i = 0; names[i]; i++)
        rl_suggest_consider(&s, names[i]);
    const char *best = rl_suggest_best(&s);
    if (best) {
        snprintf(buf, size, "did you mean '%s'?", best);
    } else if (otherwise) {
        snprintf(buf, size, "%s", otherwise);
    } else {
        size_t used = (size_t)snprintf(buf, size, "one of:");
        for (size_t i = 0; names[i] && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "%s %s", i ? "," : "", names[i]);
    }
    return buf;
}
