/* schema.h - validates a JSON document against a JSON Schema subset. */
#ifndef RL_SCHEMA_H
#define RL_SCHEMA_H

#include "analyzer/util/json.h"

/* Supported keywords: type (name or list), const, enum, minimum, maximum,
 * exclusiveMinimum, pattern (POSIX ERE), minLength, minItems, items,
 * required, properties, additionalProperties (false or a schema), and local
 * $ref ("#/$defs/name"). description and $comment are documentation.
 * An unknown keyword in the schema is an error (RL_EINVAL), so the schema
 * cannot silently promise a check that is not made.
 *
 * Returns 0, or RL_ESCHEMA with the first violation in errmsg
 * ("tensor_core_dense.bf16_tflops: expected number or null, got string")
 * and its location in *where (may be NULL). */
int rl_schema_validate(const cJSON *schema, const cJSON *doc,
                       struct rl_json_path *where, char *errmsg);

/* Validate and, on failure, prefix errmsg with "'<what>': line N: " using the
 * document's text to find the line. */
int rl_schema_check_text(const cJSON *schema, const cJSON *doc,
                         const char *text, size_t len, const char *what,
                         char *errmsg);

#endif
