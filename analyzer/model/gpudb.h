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

/* The GPU a profiler trace's device is: by name as rl_gpudb_find, else
 * (board names, "AMD Radeon Graphics") by its SM or compute-unit count,
 * memory (within 10%) and vendor (warp_size 64: AMD); an SXM entry wins a
 * tie. note says how it was matched when not by name ("" by name). NULL
 * when nothing matches. */
const struct rl_gpu_spec *rl_gpudb_match_device(const struct rl_gpudb *db, const char *name,
                                                int sm_count, double memory_bytes,
                                                int warp_size, char *note, size_t note_size);

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

/* Names of a database entry (a GPU, a node of data/systems), matched and
 * suggested alike: its id, name and aliases. */
struct rl_entry_names {
    const char *id, *name;
    const char (*aliases)[64];
    int n_aliases;
};

/* Does the normalized `want` name the entry? */
bool rl_entry_named(const struct rl_entry_names *e, const char *want);

/* Offer the entry to a suggestion for the normalized `want`: its nearest
 * spelling's edit distance, then the prefix shared with its id. */
struct rl_suggest;
void rl_entry_offer(struct rl_suggest *sug, const struct rl_entry_names *e, const char *want);

/* RL_ENOTFOUND with "unknown <what> 'typed' (did you mean 'x'?)" when sug
 * has one near, else "(closest: a, b, c; '<lister>' lists all)". */
int rl_entry_unknown(char *errmsg, const char *what, const char *typed,
                     const struct rl_suggest *sug, const char *lister);

#endif
