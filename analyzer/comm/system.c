/* system.c - node descriptions (data/systems/<id>.json): the GPUs of a node, how they are joined, the NICs between nodes. */
#define _DEFAULT_SOURCE
#include "analyzer/comm/system.h"

#include "analyzer/model/gpudb.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/schema.h"
#include "analyzer/util/strbuf.h"
#include "analyzer/util/suggest.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every number of a system file: its key and where it lives. Each needs an
 * entry in "provenance" naming one of "sources", as in data/gpus. */
enum field_kind { F_INT, F_NUMBER };
static const struct {
    const char *key;
    size_t offset;
    enum field_kind kind;
} fields[] = {
    {"gpus_per_node", offsetof(struct rl_system, gpus_per_node), F_INT},
    {"domain_gpus", offsetof(struct rl_system, domain_gpus), F_INT},
    {"intra_gbs_per_direction", offsetof(struct rl_system, intra_gbs), F_NUMBER},
    {"pcie_gbs_per_direction", offsetof(struct rl_system, pcie_gbs), F_NUMBER},
    {"nics_per_node", offsetof(struct rl_system, nics_per_node), F_INT},
    {"nic_gbps", offsetof(struct rl_system, nic_gbps), F_NUMBER},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static int line_of(const char *text, size_t len, const char *k1, const char *k2)
{
    struct rl_json_path p = {k2 ? 2 : 1, {{k1, 0}, {k2, 0}}};
    return rl_json_locate_line(text, len, &p);
}

static void copy_str(char *dst, size_t size, const cJSON *doc, const char *key)
{
    const char *s = rl_json_string(doc, key);
    snprintf(dst, size, "%s", s ? s : "");
}

/* A string of the file into a field of struct rl_system, refused when it
 * does not fit (rather than cut). */
static int copy_field(char *dst, size_t size, const cJSON *doc, const char *key,
                      const char *text, size_t len, const char *what, char *errmsg)
{
    const char *s = rl_json_string(doc, key);
    if (s && strlen(s) >= size)
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: %s is longer than %zu characters",
                       what, line_of(text, len, key, NULL), key, size - 1);
    copy_str(dst, size, doc, key);
    return RL_OK;
}

static int fill(struct rl_system *sys, const cJSON *doc, const char *text, size_t len,
                const char *what, char *errmsg)
{
#define COPY(field, key)                                                              \
    do {                                                                              \
        int rc_ = copy_field(sys->field, sizeof sys->field, doc, key, text, len, what, \
                             errmsg);                                                 \
        if (rc_)                                                                      \
            return rc_;                                                               \
    } while (0)
    COPY(id, "id");
    COPY(name, "name");
    COPY(gpu, "gpu");
    COPY(topology, "topology");
    COPY(intra_link, "intra_link");
    COPY(pcie_link, "pcie_link");
    COPY(nic, "nic");
    COPY(notes, "notes");
#undef COPY
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "aliases")) {
        if (sys->n_aliases == RL_SYSTEM_MAX_ALIASES)
            return rl_fail(errmsg, RL_ESCHEMA, "'%s': more than %d aliases", what,
                           RL_SYSTEM_MAX_ALIASES);
        snprintf(sys->aliases[sys->n_aliases++], sizeof sys->aliases[0], "%s",
                 it->valuestring);
    }
    int src_rc = rl_spec_sources_parse(doc, sys->sources, &sys->n_sources, what, errmsg);
    if (src_rc)
        return src_rc;
    for (size_t i = 0; i < N_FIELDS; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, fields[i].key);
        char *at = (char *)sys + fields[i].offset;
        if (fields[i].kind == F_INT)
            *(int *)at = v->valueint; /* required and typed by the schema */
        else
            *(double *)at = v->valuedouble;
    }
    /* Provenance: every entry names a number of the schema and a listed
     * source; every number has an entry. */
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(doc, "provenance");
    cJSON_ArrayForEach(it, prov) {
        bool known = false, listed = false;
        for (size_t i = 0; i < N_FIELDS; i++)
            known |= strcmp(fields[i].key, it->string) == 0;
        for (int k = 0; k < sys->n_sources; k++)
            listed |= strcmp(sys->sources[k].id, it->valuestring) == 0;
        if (!known || !listed)
            return rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: provenance '%s' %s", what,
                           line_of(text, len, "provenance", it->string), it->string,
                           !known ? "is not a numeric key of the schema"
                                  : "names a source that 'sources' does not list");
    }
    for (size_t i = 0; i < N_FIELDS; i++)
        if (!cJSON_GetObjectItemCaseSensitive(prov, fields[i].key))
            return rl_fail(errmsg, RL_ESCHEMA,
                           "'%s': line %d: '%s' has no source: add it to 'provenance'", what,
                           line_of(text, len, "provenance", NULL), fields[i].key);
    if (sys->domain_gpus > 1 && strcmp(sys->topology, "pcie") == 0)
        return rl_fail(errmsg, RL_ESCHEMA,
                       "'%s': line %d: topology 'pcie' has no scale-up domain: domain_gpus is 1",
                       what, line_of(text, len, "domain_gpus", NULL));
    return RL_OK;
}

int rl_system_parse(struct rl_system *sys, const cJSON *schema, const char *text, size_t len,
                    const char *what, char *errmsg)
{
    memset(sys, 0, sizeof *sys);
    cJSON *doc;
    int rc = rl_json_parse(text, len, what, &doc, errmsg);
    if (rc)
        return rc;
    rc = rl_schema_check_text(schema, doc, text, len, what, errmsg);
    if (rc == RL_OK)
        rc = fill(sys, doc, text, len, what, errmsg);
    cJSON_Delete(doc);
    return rc;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const struct rl_system *)a)->id, ((const struct rl_system *)b)->id);
}

static bool is_system_file(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0 && strcmp(name, "schema.json") != 0 &&
           name[0] != '.';
}

/* The file's own checks beyond the schema: its id is its name, its GPU is
 * in the GPU database. */
static int check_file(const struct rl_system *s, const char *file, const char *path,
                      const char *text, size_t len, const struct rl_gpudb *gpus, char *errmsg)
{
    if (strlen(s->id) + 5 != strlen(file) || strncmp(s->id, file, strlen(s->id)) != 0)
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': id '%s' differs from the file name", path,
                       s->id);
    if (!gpus)
        return RL_OK;
    struct rl_suggest sug;
    rl_suggest_init(&sug, s->gpu);
    for (size_t i = 0; i < gpus->n; i++) {
        if (strcmp(gpus->gpus[i].id, s->gpu) == 0)
            return RL_OK;
        rl_suggest_consider(&sug, gpus->gpus[i].id);
    }
    const char *best = rl_suggest_best(&sug);
    char hint[96] = "";
    if (best)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
    return rl_fail(errmsg, RL_ESCHEMA, "'%s': line %d: gpu '%s' is not in the GPU database%s",
                   path, line_of(text, len, "gpu", NULL), s->gpu, hint);
}

int rl_systemdb_load(struct rl_systemdb *db, const char *dir, const struct rl_gpudb *gpus,
                     char *errmsg)
{
    memset(db, 0, sizeof *db);
    char path[4096];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    int rc = rl_json_parse_file(path, &db->schema, errmsg);
    if (rc)
        return rc;
    DIR *d = opendir(dir);
    if (!d) {
        rl_systemdb_release(db);
        return rl_fail(errmsg, RL_EIO, "cannot open the systems folder '%s'", dir);
    }
    size_t cap = 0;
    struct dirent *e;
    while (rc == RL_OK && (e = readdir(d)) != NULL) {
        if (!is_system_file(e->d_name))
            continue;
        if (db->n == cap) {
            cap = cap ? cap * 2 : 16;
            struct rl_system *bigger = rl_realloc(db->systems, cap * sizeof *bigger);
            if (!bigger) {
                rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
                break;
            }
            db->systems = bigger;
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text;
        size_t len;
        rc = rl_file_read(path, &text, &len, errmsg);
        if (rc)
            break;
        struct rl_system *s = &db->systems[db->n];
        rc = rl_system_parse(s, db->schema, text, len, path, errmsg);
        if (rc == RL_OK)
            rc = check_file(s, e->d_name, path, text, len, gpus, errmsg);
        free(text);
        if (rc == RL_OK)
            db->n++;
    }
    closedir(d);
    if (rc) {
        rl_systemdb_release(db);
        return rc;
    }
    if (db->n == 0) {
        rl_systemdb_release(db);
        return rl_fail(errmsg, RL_ENOTFOUND, "no system files in '%s'", dir);
    }
    qsort(db->systems, db->n, sizeof *db->systems, by_id);
    return RL_OK;
}

void rl_systemdb_release(struct rl_systemdb *db)
{
    free(db->systems);
    cJSON_Delete(db->schema);
    memset(db, 0, sizeof *db);
}

static struct rl_entry_names system_names(const struct rl_system *s)
{
    return (struct rl_entry_names){s->id, s->name, s->aliases, s->n_aliases};
}

const struct rl_system *rl_systemdb_find(const struct rl_systemdb *db, const char *name)
{
    char want[128];
    rl_gpudb_normalize(name, want, sizeof want);
    if (!want[0])
        return NULL;
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_entry_names e = system_names(&db->systems[i]);
        if (rl_entry_named(&e, want))
            return &db->systems[i];
    }
    return NULL;
}

int rl_systemdb_lookup(const struct rl_systemdb *db, const char *name,
                       const struct rl_system **out, char *errmsg)
{
    *out = rl_systemdb_find(db, name);
    if (*out)
        return RL_OK;
    char want[128];
    rl_gpudb_normalize(name, want, sizeof want);
    struct rl_suggest sug;
    rl_suggest_init(&sug, want);
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_entry_names e = system_names(&db->systems[i]);
        rl_entry_offer(&sug, &e, want);
    }
    return rl_entry_unknown(errmsg, "system", name, &sug, "roofline gpus systems");
}

double rl_system_node_nic_gbs(const struct rl_system *sys)
{
    /* Gb/s to GB/s: 8 bits a byte (8 x 400 Gb/s = 3200 Gb/s = 400 GB/s). */
    return sys->nics_per_node * sys->nic_gbps / 8.0;
}
