/* suggest.h - "did you mean": the names nearest to a mistyped one, by edit distance. */
#ifndef RL_SUGGEST_H
#define RL_SUGGEST_H

#include <stddef.h>

/* The names nearest to what was typed, nearest first: by edit distance,
 * ties by the longer prefix shared with what was typed, then by the order
 * they were offered in. A plain struct: build it on the stack. */
#define RL_SUGGEST_MAX 3
struct rl_suggest {
    const char *typed;
    size_t n;                             /* names kept, at most RL_SUGGEST_MAX */
    const char *name[RL_SUGGEST_MAX];     /* point at the caller's strings */
    size_t distance[RL_SUGGEST_MAX];
    size_t prefix[RL_SUGGEST_MAX];
};

/* Collecting */

void rl_suggest_init(struct rl_suggest *s, const char *typed);

/* Offer a name, compared with what was typed ignoring case. */
void rl_suggest_consider(struct rl_suggest *s, const char *name);

/* Offer a name at a distance and shared prefix the caller measured (a name
 * with several spellings offers its nearest). */
void rl_suggest_add(struct rl_suggest *s, const char *name, size_t distance, size_t prefix);

/* Answers */

/* The nearest name when it is near enough to be what was meant (1 edit, or
 * up to a third of what was typed, at most 3); NULL otherwise. */
const char *rl_suggest_best(const struct rl_suggest *s);

/* The hint for an unknown `typed` among `names` (NULL-terminated), into buf:
 * "did you mean 'fp8'?" when one is near, else `otherwise` when not NULL,
 * else "one of: a, b, c". Returns buf. */
const char *rl_suggest_hint(char *buf, size_t size, const char *typed,
                            const char *const *names, const char *otherwise);

#endif
