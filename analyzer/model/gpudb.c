/* gpudb.c - the GPU datasheet database: every spec in data/gpus/, found by name. */
#define _DEFAULT_SOURCE
#include "analyzer/model/gpudb.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/strbuf.h"
#include "analyzer/util/suggest.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int by_id(const void *a, const void *b)
{
    return strcmp(((const struct rl_gpu_spec *)a)->id,
                  ((const struct rl_gpu_spec *)b)->id);
}

static int is_spec_file(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0 &&
           strcmp(name, "schema.json") != 0 && name[0] != '.';
}

int rl_gpudb_load(struct rl_gpudb *db, const char *dir, char *errmsg)
{
    memset(db, 0, sizeof *db);
    char path[4096];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    int rc = rl_json_parse_file(path, &db->schema, errmsg);
    if (rc)
        return rc;

    DIR *d = opendir(dir);
    if (!d) {
        rl_gpudb_release(db); /* the schema read above */
        return rl_fail(errmsg, RL_EIO, "cannot open GPU database folder '%s'", dir);
    }
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_spec_file(e->d_name))
            continue;
        if (db->n == cap) {
            cap = cap ? cap * 2 : 16;
            struct rl_gpu_spec *bigger = rl_realloc(db->gpus, cap * sizeof *bigger);
            if (!bigger) {
                rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
                break;
            }
            db->gpus = bigger;
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct rl_gpu_spec *s = &db->gpus[db->n];
        rc = rl_gpu_spec_load(s, db->schema, path, errmsg);
        if (rc == RL_OK) {
            char lint[RL_ERRMSG_SIZE];
            rc = rl_gpu_spec_lint(s, lint);
            if (rc)
                rl_fail(errmsg, rc, "'%s': %s", path, lint);
        }
        if (rc == RL_OK && (strlen(s->id) + 5 != strlen(e->d_name) ||
                            strncmp(s->id, e->d_name, strlen(s->id)) != 0))
            rc = rl_fail(errmsg, RL_ESCHEMA, "'%s': id '%s' differs from the file name",
                         path, s->id);
        if (rc)
            break;
        db->n++;
    }
    closedir(d);
    if (rc) {
        rl_gpudb_release(db);
        return rc;
    }
    if (db->n == 0) {
        rl_gpudb_release(db);
        return rl_fail(errmsg, RL_ENOTFOUND, "no GPU specs in '%s'", dir);
    }
    qsort(db->gpus, db->n, sizeof *db->gpus, by_id);
    return RL_OK;
}

void rl_gpudb_release(struct rl_gpudb *db)
{
    free(db->gpus);
    cJSON_Delete(db->schema);
    memset(db, 0, sizeof *db);
}

void rl_gpudb_normalize(const char *name, char *buf, size_t size)
{
    size_t n = 0;
    if (strncasecmp(name, "nvidia", 6) == 0)
        name += 6;
    for (; *name && n + 1 < size; name++) {
        if (*name == ' ' || *name == '-' || *name == '_')
            continue;
        buf[n++] = (char)tolower((unsigned char)*name);
    }
    buf[n] = '\0';
}

bool rl_entry_named(const struct rl_entry_names *e, const char *want)
{
    char have[128];
    rl_gpudb_normalize(e->id, have, sizeof have);
    if (strcmp(want, have) == 0)
        return true;
    rl_gpudb_normalize(e->name, have, sizeof have);
    if (strcmp(want, have) == 0)
        return true;
    for (int a = 0; a < e->n_aliases; a++) {
        rl_gpudb_normalize(e->aliases[a], have, sizeof have);
        if (strcmp(want, have) == 0)
            return true;
    }
    return false;
}

/* Distance of a normalized query to an entry: the best over its id, name
 * and aliases. */
static size_t distance_to(const struct rl_entry_names *e, const char *want)
{
    char have[128];
    rl_gpudb_normalize(e->id, have, sizeof have);
    size_t best = rl_edit_distance(want, have);
    rl_gpudb_normalize(e->name, have, sizeof have);
    size_t d = rl_edit_distance(want, have);
    best = d < best ? d : best;
    for (int a = 0; a < e->n_aliases; a++) {
        rl_gpudb_normalize(e->aliases[a], have, sizeof have);
        d = rl_edit_distance(want, have);
        best = d < best ? d : best;
    }
    return best;
}

void rl_entry_offer(struct rl_suggest *sug, const struct rl_entry_names *e, const char *want)
{
    /* by edit distance to the id, name or an alias, then by the length of
     * the prefix shared with the id ("h100-sxm6" is nearer h100-nvl than
     * a100-sxm) */
    char id[128];
    rl_gpudb_normalize(e->id, id, sizeof id);
    size_t p = 0;
    while (id[p] && id[p] == want[p])
        p++;
    rl_suggest_add(sug, e->id, distance_to(e, want), p);
}

int rl_entry_unknown(char *errmsg, const char *what, const char *typed,
                     const struct rl_suggest *sug, const char *lister)
{
    const char *best = rl_suggest_best(sug);
    if (best)
        return rl_fail(errmsg, RL_ENOTFOUND, "unknown %s '%s' (did you mean '%s'?)", what, typed,
                       best);
    char list[160] = "";
    for (size_t k = 0; k < sug->n; k++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s%s", k ? ", " : "", sug->name[k]);
    }
    return rl_fail(errmsg, RL_ENOTFOUND, "unknown %s '%s' (closest: %s; '%s' lists all)", what,
                   typed, list, lister);
}

static struct rl_entry_names gpu_names(const struct rl_gpu_spec *s)
{
    return (struct rl_entry_names){s->id, s->name, s->aliases, s->n_aliases};
}

bool rl_gpu_spec_named(const struct rl_gpu_spec *s, const char *name)
{
    char want[128];
    rl_gpudb_normalize(name, want, sizeof want);
    const struct rl_entry_names e = gpu_names(s);
    return want[0] && rl_entry_named(&e, want);
}

const struct rl_gpu_spec *rl_gpudb_find(const struct rl_gpudb *db,
                                        const char *name)
{
    char want[128];
    rl_gpudb_normalize(name, want, sizeof want);
    if (!want[0])
        return NULL;
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_entry_names e = gpu_names(&db->gpus[i]);
        if (rl_entry_named(&e, want))
            return &db->gpus[i];
    }
    return NULL;
}

int rl_gpudb_lookup(const struct rl_gpudb *db, const char *name,
                    const struct rl_gpu_spec **out, char *errmsg)
{
    *out = rl_gpudb_find(db, name);
    if (*out)
        return RL_OK;
    char want[128];
    rl_gpudb_normalize(name, want, sizeof want);
    struct rl_suggest sug;
    rl_suggest_init(&sug, want);
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_entry_names e = gpu_names(&db->gpus[i]);
        rl_entry_offer(&sug, &e, want);
    }
    return rl_entry_unknown(errmsg, "GPU", name, &sug, "roofline gpus");
}

/* Board names ("A100-PG509-200"), and AMD's "AMD Radeon Graphics", name no
 * product: the device's SM (compute unit) count, memory and warp width do. */
const struct rl_gpu_spec *rl_gpudb_match_device(const struct rl_gpudb *db, const char *name,
                                                int sm_count, double memory_bytes,
                                                int warp_size, char *note, size_t note_size)
{
    note[0] = 0;
    const struct rl_gpu_spec *s = name && name[0] ? rl_gpudb_find(db, name) : NULL;
    if (s || sm_count <= 0 || !(memory_bytes > 0))
        return s;
    bool amd = warp_size == 64;
    const struct rl_gpu_spec *pick = NULL;
    char others[256] = "";
    size_t n = 0, at = 0;
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_gpu_spec *g = &db->gpus[i];
        if ((strcmp(g->vendor, "AMD") == 0) != amd || g->sm_count != sm_count)
            continue;
        /* the runtime reports bytes; datasheets print GB or GiB, less
         * what ECC or the driver keeps: within 10% */
        double gb = memory_bytes / 1e9;
        if (!(g->memory_size_gb > 0) || fabs(gb - g->memory_size_gb) > 0.1 * g->memory_size_gb)
            continue;
        n++;
        /* Board names are SXM/OAM modules: an SXM entry wins a tie. */
        if (!pick || (strstr(g->id, "sxm") && !strstr(pick->id, "sxm"))) {
            if (pick && at < sizeof others)
                at += (size_t)snprintf(others + at, sizeof others - at, "%s%s", at ? ", " : "",
                                       pick->id);
            pick = g;
        } else if (at < sizeof others) {
            at += (size_t)snprintf(others + at, sizeof others - at, "%s%s", at ? ", " : "", g->id);
        }
    }
    if (pick)
        snprintf(note, note_size,
                 "the trace names the GPU '%s': taken as %s by its %d %s and %.0f GB%s%s "
                 "(--gpu to choose)",
                 name && name[0] ? name : "(no name)", pick->id, sm_count,
                 amd ? "compute units" : "SMs", memory_bytes / 1e9, n > 1 ? "; also matching: " : "",
                 n > 1 ? others : "");
    return pick;
}
