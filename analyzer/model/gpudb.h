/* gpudb.h - the GPU datasheet database: every spec in data/gpus/, found by name. */
#ifndef RL_GPUDB_H
#define RL_GPUDB_H

#include "analyzer/model/spec.h"

struct rl_gpudb {
    struct rl_gpu_spec *gpus; /* sorted by id */
    size_t n;
    cJSON *schema;            /* data/gpus/schema.json */
};

/* Construction */

/* Load <dir>/schema.json and every other .json file in dir. Each must pass
 * the schema and rl_gpu_spec_lint(), and its id must equal its file name.
 * Returns 0, or the first error (file and line in errmsg). */
int rl_gpudb_load(struct rl_gpudb *db, const char *dir, char *errmsg);
void rl_gpudb_release(struct rl_gpudb *db);

/* Queries */

/* Find a GPU by id, name or alias: case-insensitive, ignoring spaces, '-',
 * '_' and a leading "NVIDIA" ("H100 SXM5", "nvidia h200", "NVIDIA H100 80GB
 * HBM3" all work). NULL when nothing matches. */
const struct rl_gpu_spec *rl_gpudb_find(const struct rl_gpudb *db,
                                        const char *name);

/* Does name name s, as rl_gpudb_find matches (its id, name or an alias)? */
bool rl_gpu_spec_named(const struct rl_gpu_spec *s, const char *name);

/* Like rl_gpudb_find, but on failure returns RL_ENOTFOUND with
 * "unknown GPU 'x' (did you mean 'y'?)" in errmsg when one is near (see
 * rl_suggest_best), else "unknown GPU 'x' (closest: a, b, c; 'roofline gpus'
 * lists all)". */
int rl_gpudb_lookup(const struct rl_gpudb *db, const char *name,
                    const struct rl_gpu_spec **out, char *errmsg);

/* Write the normalized form of name (what matching compares) into buf. */
void rl_gpudb_normalize(const char *name, char *buf, size_t size);

#endif
