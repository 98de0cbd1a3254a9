/* llm.c - LLM inference on the roofline: model configs and number formats, each operator placed on the roofline, the crossover batch.
 *
 * The operators and their FLOPs and bytes are in analyzer/llm/ops.c, the
 * parameter and KV-cache counts in analyzer/llm/params.c, Hugging Face
 * config.json files read by analyzer/llm/hfconfig.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/llm/llm.h"

#include "analyzer/llm/hfconfig.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/schema.h"
#include "analyzer/util/suggest.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- configs ----------------------------------------------------------------- */

static int int_of(const cJSON *o, const char *key)
{
    double v = rl_json_number(o, key);
    return v >= 0 && v < 1e9 ? (int)v : 0; /* the schema bounds it; 0 fails the check below */
}

int rl_llm_model_parse(struct rl_llm_model *m, const cJSON *schema, const char *text,
                       size_t len, const char *what, char *errmsg)
{
    memset(m, 0, sizeof *m);
    cJSON *doc;
    int rc = rl_json_parse(text, len, what, &doc, errmsg);
    if (rc)
        return rc;
    if (schema && (rc = rl_schema_check_text(schema, doc, text, len, what, errmsg))) {
        cJSON_Delete(doc);
        return rc;
    }
    snprintf(m->id, sizeof m->id, "%s", rl_json_string(doc, "id") ? rl_json_string(doc, "id") : "");
    snprintf(m->name, sizeof m->name, "%s",
             rl_json_string(doc, "name") ? rl_json_string(doc, "name") : m->id);
    snprintf(m->source, sizeof m->source, "%s",
             rl_json_string(doc, "source") ? rl_json_string(doc, "source") : "");
    m->layers = int_of(doc, "layers");
    m->hidden = int_of(doc, "hidden_size");
    m->ffn = int_of(doc, "ffn_size");
    m->heads = int_of(doc, "heads");
    m->kv_heads = int_of(doc, "kv_heads");
    m->head_dim = int_of(doc, "head_dim");
    m->vocab = int_of(doc, "vocab_size");
    m->experts = int_of(doc, "experts");
    m->experts_per_token = int_of(doc, "experts_per_token");
    m->sliding_window = int_of(doc, "sliding_window"); /* absent: 0, every position */
    const char *gating = rl_json_string(doc, "ffn_gating");
    m->gated = !gating || strcmp(gating, "swiglu") == 0;
    m->tied = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "tied_embeddings"));
    m->qkv_bias = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "qkv_bias"));
    cJSON_Delete(doc);
    if (m->layers < 1 || m->hidden < 1 || m->ffn < 1 || m->heads < 1 || m->kv_heads < 1 ||
        m->head_dim < 1 || m->vocab < 1 || m->experts < 1 || m->experts_per_token < 1)
        return rl_fail(errmsg, RL_ESCHEMA, "'%s': a size is missing or below 1", what);
    if (m->heads % m->kv_heads || m->experts_per_token > m->experts)
        return rl_fail(errmsg, RL_ESCHEMA,
                       "'%s': heads must be a multiple of kv_heads, experts_per_token at most "
                       "experts",
                       what);
    return RL_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* RL_ENOTFOUND for a name not in data_dir/models: the nearest model, or
 * every one (the folder's own list, so a new config is named at once). */
/* The ids of the configs in dir (file names less ".json", schema.json
 * left out), sorted, at most 64, each to be freed: their count. */
static size_t model_ids(const char *dir, char *names[64])
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && n < 64 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
            strcmp(e->d_name, "schema.json") != 0 && (names[n] = rl_strndup(e->d_name, len - 5)))
            n++;
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, by_name);
    return n;
}

/* Append the shipped Hugging Face configs' ids (the folders of dir/hf that
 * hold a config.json) to names[n..63]: the new count. */
static size_t hf_ids(const char *dir, char *names[64], size_t n)
{
    char hf[4096 + 8];
    snprintf(hf, sizeof hf, "%s/hf", dir);
    DIR *d = opendir(hf);
    struct dirent *e;
    const size_t first = n;
    while (d && n < 64 && (e = readdir(d))) {
        char file[sizeof hf + 256 + 16];
        snprintf(file, sizeof file, "%s/%s/config.json", hf, e->d_name);
        if (e->d_name[0] != '.' && access(file, R_OK) == 0 && (names[n] = rl_strdup(e->d_name)))
            n++;
    }
    if (d)
        closedir(d);
    qsort(names + first, n - first, sizeof *names, by_name);
    return n;
}

static int unknown_model(const char *name, const char *data_dir, char *errmsg)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models", data_dir);
    char *names[64];
    size_t n = hf_ids(dir, names, model_ids(dir, names));
    struct rl_suggest sug;
    rl_suggest_init(&sug, name);
    for (size_t i = 0; i < n; i++)
        rl_suggest_consider(&sug, names[i]);
    const char *best = rl_suggest_best(&sug);
    if (best) {
        rl_fail(errmsg, RL_ENOTFOUND, "unknown model '%s' (did you mean '%s'?)", name, best);
    } else {
        char list[1024] = "";
        for (size_t i = 0; i < n; i++) {
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "", names[i]);
        }
        rl_fail(errmsg, RL_ENOTFOUND, "unknown model '%s' in %s (%s%sor a config.json path or folder)", name,
                dir, list, n ? "; " : "");
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return RL_ENOTFOUND;
}

/* The Hugging Face id in a config's "source" URL
 * (https://huggingface.co/ORG/REPO/blob/...): "ORG/REPO" into out, or "". */
static void hf_id_of(const char *source, char *out, size_t cap)
{
    static const char host[] = "huggingface.co/";
    const char *p = source ? strstr(source, host) : NULL;
    out[0] = 0;
    if (!p)
        return;
    p += sizeof host - 1;
    const char *slash = strchr(p, '/');
    if (!slash)
        return;
    size_t n = strcspn(slash + 1, "/?#") + (size_t)(slash + 1 - p);
    if (n < cap)
        snprintf(out, cap, "%.*s", (int)n, p);
}

/* Whether name names the config in file (its path): its id, its "name" or
 * its Hugging Face id "ORG/REPO" or "REPO", each without regard to case.
 * 1 or 0 (a file that is no JSON: 0), or RL_EIO when file cannot be read
 * (errmsg says why: not taken for another model's file). */
static int model_named(const char *file, const char *name, char *errmsg)
{
    char *text;
    size_t len;
    int rc = rl_file_read(file, &text, &len, errmsg);
    if (rc)
        return rc;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    free(text);
    if (!doc)
        return 0;
    const char *id = rl_json_string(doc, "id"), *display = rl_json_string(doc, "name");
    char hf[256];
    hf_id_of(rl_json_string(doc, "source"), hf, sizeof hf);
    const char *repo = strchr(hf, '/');
    int hit = (id && strcasecmp(id, name) == 0) || (display && strcasecmp(display, name) == 0) ||
              (hf[0] && strcasecmp(hf, name) == 0) || (repo && strcasecmp(repo + 1, name) == 0);
    cJSON_Delete(doc);
    return hit;
}

/* The path of the config data_dir/models holds for name (see model_named):
 * 1 with path set, 0 when none does, or RL_EIO (errmsg says why). */
static int find_model(const char *data_dir, const char *name, char *path, size_t cap,
                      char *errmsg)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models", data_dir);
    char *names[64];
    size_t n = model_ids(dir, names); /* sorted: the first match by id, not readdir's order */
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        char file[4096 + 256];
        snprintf(file, sizeof file, "%s/%s.json", dir, names[i]);
        int hit = found ? 0 : model_named(file, name, errmsg);
        if (hit < 0)
            found = hit;
        else if (hit && strlen(file) < cap) {
            snprintf(path, cap, "%s", file);
            found = 1;
        }
        free(names[i]);
    }
    return found;
}

/* Whether path is a folder. */
static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read the file at path as a schema config (it has "schema_version") or
 * as a Hugging Face config.json (anything else), id the model's id. */
static int load_file(struct rl_llm_model *m, const char *data_dir, const char *path,
                     const char *id, char *errmsg)
{
    char *text;
    size_t len;
    int rc = rl_file_read(path, &text, &len, errmsg);
    if (rc)
        return rc;
    unsigned long failed = rl_alloc_failures();
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc && rl_alloc_failures() != failed) {
        free(text);
        return rl_fail(errmsg, RL_ENOMEM, "out of memory reading '%s'", path);
    }
    const bool schema_config =
        doc && cJSON_GetObjectItemCaseSensitive(doc, "schema_version") != NULL;
    cJSON_Delete(doc);
    if (schema_config) {
        char schema_path[4096];
        cJSON *schema;
        snprintf(schema_path, sizeof schema_path, "%s/models/schema.json", data_dir);
        if ((rc = rl_json_parse_file(schema_path, &schema, errmsg)) == RL_OK) {
            rc = rl_llm_model_parse(m, schema, text, len, path, errmsg);
            cJSON_Delete(schema);
        }
    } else {
        rc = rl_llm_hf_parse(m, text, len, path, id, errmsg);
    }
    free(text);
    return rc;
}

/* The id of a config at path: its folder's name for ".../NAME/config.json",
 * else the file name less ".json". */
static void id_of_path(const char *path, char *id, size_t cap)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(base);
    if (strcmp(base, "config.json") == 0 && base > path) {
        const char *end = base - 1, *start = end;
        while (start > path && start[-1] != '/')
            start--;
        n = (size_t)(end - start);
        base = start;
    } else if (n > 5 && strcmp(base + n - 5, ".json") == 0) {
        n -= 5;
    }
    snprintf(id, cap, "%.*s", (int)(n < cap ? n : cap - 1), base);
}

int rl_llm_model_load(struct rl_llm_model *m, const char *data_dir, const char *name,
                      char *errmsg)
{
    char path[4096 + 64], id[32];
    size_t n = strlen(name);
    memset(m, 0, sizeof *m);
    if (is_dir(name)) { /* a folder holding config.json (a Hugging Face snapshot) */
        snprintf(path, sizeof path, "%s/config.json", name);
        if (access(path, R_OK) != 0)
            return rl_fail(errmsg, RL_ENOTFOUND, "no config.json in folder '%s'", name);
    } else if (n > 5 && strcmp(name + n - 5, ".json") == 0) {
        snprintf(path, sizeof path, "%s", name);
    } else {
        unsigned long failed = rl_alloc_failures(); /* a config unread is not "unknown" */
        int found = find_model(data_dir, name, path, sizeof path, errmsg);
        if (found < 0)
            return found;
        if (!found && rl_alloc_failures() != failed)
            return rl_fail(errmsg, RL_ENOMEM, "out of memory looking up model '%s'", name);
        if (!found) {
            snprintf(path, sizeof path, "%s/models/hf/%s/config.json", data_dir, name);
            if (strchr(name, '/') || access(path, R_OK) != 0)
                return unknown_model(name, data_dir, errmsg);
        }
    }
    id_of_path(path, id, sizeof id);
    return load_file(m, data_dir, path, id, errmsg);
}

/* ---- number formats --------------------------------------------------------- */

static const struct {
    const char *name;
    double wb, ab;
    const char *roof;
} formats[] = {
    [RL_LLM_BF16] = {"bf16", 2, 2, "bf16"},
    [RL_LLM_FP16] = {"fp16", 2, 2, "fp16"},
    [RL_LLM_FP8] = {"fp8", 1, 1, "fp8"},
    [RL_LLM_W8A8] = {"w8a8", 1, 1, "int8"},
    /* 4-bit weights with an FP16 scale per group of 128: 0.5 + 2/128 B;
     * dequantized to BF16 for the Tensor Cores. */
    [RL_LLM_W4A16] = {"w4a16", 0.5 + 2.0 / 128, 2, "bf16"},
    /* FP8 with one FP32 scale per 128 x 128 block: 1 + 4 / 16384 B. */
    [RL_LLM_FP8_BLOCK] = {"fp8-block", 1 + 4.0 / (128 * 128), 1, "fp8"},
    /* MXFP4: 4-bit E2M1 values with one 8-bit E8M0 scale per 32: 0.5 +
     * 1/32 B; dequantized to BF16 for the Tensor Cores (Hopper's kernels). */
    [RL_LLM_MXFP4] = {"mxfp4", 0.5 + 1.0 / 32, 2, "bf16"},
    /* NVFP4: 4-bit E2M1 with one FP8 E4M3 scale per 16: 0.5 + 1/16 B,
     * weights and activations alike, on the FP4 Tensor Cores (Blackwell). */
    [RL_LLM_NVFP4] = {"nvfp4", 0.5 + 1.0 / 16, 0.5 + 1.0 / 16, "fp4"},
};

int rl_llm_precision_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof formats / sizeof formats[0]); i++)
        if (strcmp(s, formats[i].name) == 0)
            return i;
    return -1;
}

int rl_llm_kv_parse(const char *s)
{
    return strcmp(s, "fp16") == 0 ? RL_LLM_KV_FP16
           : strcmp(s, "bf16") == 0 ? RL_LLM_KV_BF16
           : strcmp(s, "fp8") == 0  ? RL_LLM_KV_FP8
                                    : -1;
}

static const char *const recompute_names[] = {"none", "full", "selective"};

int rl_llm_recompute_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, recompute_names[i]) == 0)
            return i;
    return -1;
}

const char *rl_llm_recompute_name(enum rl_llm_recompute r) { return recompute_names[r]; }

const char *rl_llm_precision_name(enum rl_llm_precision p) { return formats[p].name; }
double rl_llm_weight_bytes(enum rl_llm_precision p) { return formats[p].wb; }
double rl_llm_act_bytes(enum rl_llm_precision p) { return formats[p].ab; }
const char *rl_llm_linear_roof(enum rl_llm_precision p) { return formats[p].roof; }
double rl_llm_kv_bytes(enum rl_llm_kv k) { return k == RL_LLM_KV_FP8 ? 1 : 2; }

double rl_llm_linear_weight_bytes(const struct rl_llm_config *cfg, bool expert)
{
    if (!expert && cfg->experts_only)
        return 2; /* BF16 */
    return cfg->weight_bytes > 0 ? cfg->weight_bytes : formats[cfg->precision].wb;
}

void rl_llm_weights_text(char *buf, size_t cap, const struct rl_llm_model *m,
                         const struct rl_llm_config *cfg, bool given)
{
    if (!m->has_quant)
        snprintf(buf, cap, "%s", "");
    else if (given)
        snprintf(buf, cap, "weights %s by --precision, over config.json's %s",
                 rl_llm_precision_name(cfg->precision), m->quant.what);
    else
        snprintf(buf, cap, "weights as config.json stores them: %s; --precision overrides",
                 m->quant.what);
}

bool rl_llm_config_fit_roofs(struct rl_llm_config *cfg, struct rl_ceilings *c, char *note,
                             size_t cap)
{
    char err[RL_ERRMSG_SIZE];
    if (rl_ceilings_judge(c, formats[cfg->precision].roof, err) >= 0)
        return false;
    snprintf(note, cap, "%s: the %s weights are dequantized to bf16 as they are read "
             "(weight-only kernels), at their own bytes", err,
             formats[cfg->precision].name);
    cfg->weight_bytes = rl_llm_linear_weight_bytes(cfg, true);
    cfg->precision = RL_LLM_BF16;
    return true;
}

void rl_llm_config_of_model(const struct rl_llm_model *m, enum rl_llm_kv kv,
                            struct rl_llm_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->kv = kv;
    cfg->precision = RL_LLM_BF16;
    if (m->has_quant) {
        cfg->precision = m->quant.precision;
        cfg->weight_bytes = m->quant.weight_bytes;
        cfg->experts_only = m->quant.experts_only && m->experts > 1;
    }
}

/* ---- memory ------------------------------------------------------------------ */

double rl_llm_training_bytes(const struct rl_llm_model *m, int batch, int seq)
{
    const double s = seq, b = batch, h = m->hidden, a = m->heads;
    return 16 * rl_llm_params(m) + m->layers * s * b * h * (34 + 5 * a * s / h);
}

/* The DRAM roof that binds: measured when measured. */
static const struct rl_memory_roof *dram_roof(const struct rl_ceilings *c)
{
    const struct rl_memory_roof *best = NULL;
    for (size_t i = 0; i < c->n_memory; i++)
        if (c->memory[i].level == RL_MEM_DRAM &&
            (!best || (c->memory[i].origin == RL_ORIGIN_MEASURED &&
                       best->origin != RL_ORIGIN_MEASURED)))
            best = &c->memory[i];
    return best;
}

int rl_llm_evaluate(struct rl_llm_phase_cost *p, struct rl_ceilings *c, char *errmsg)
{
    const struct rl_memory_roof *mem = dram_roof(c);
    if (!mem)
        return rl_fail(errmsg, RL_EUNSUPPORTED, "no DRAM bandwidth among the ceilings");
    p->time_ns = 0;
    for (int i = 0; i < p->n_ops; i++) {
        struct rl_llm_op *o = &p->ops[i];
        int r = rl_ceilings_judge(c, o->roof, errmsg);
        if (r < 0 && strstr(o->roof, "-cuda")) {
            /* No 16-bit vector rate on the datasheet (AMD Instinct lists
             * none): the elementwise work runs in FP32 on the vector units. */
            char err2[RL_ERRMSG_SIZE];
            if ((r = rl_ceilings_judge(c, "fp32", err2)) >= 0)
                o->roof = "fp32";
        }
        if (r < 0)
            return RL_EUNSUPPORTED;
        const double peak = c->compute[r].peak_tflops * 1e12, bw = mem->bandwidth_gbs * 1e9;
        const double bytes = o->weight_bytes + o->act_bytes + o->kv_bytes;
        const double t_compute = o->flops / peak * 1e9, t_memory = bytes / bw * 1e9;
        o->ai_flop_per_byte = bytes > 0 ? o->flops / bytes : INFINITY;
        o->time_ns = fmax(t_compute, t_memory);
        /* The judge's rule (model.c, rl_classify): left of the ridge is
         * memory-bound, at the ridge compute-bound. */
        o->memory_bound =
            o->ai_flop_per_byte < rl_ridge_flop_per_byte(c->compute[r].peak_tflops,
                                                         mem->bandwidth_gbs);
        p->time_ns += o->count * o->time_ns;
    }
    return RL_OK;
}

int rl_llm_crossover_batch(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                           int seq, struct rl_ceilings *c, int max_batch)
{
    static struct rl_llm_phase_cost p;
    char err[RL_ERRMSG_SIZE];
    for (int b = 1; b <= max_batch; b++) {
        rl_llm_phase(m, cfg, RL_LLM_DECODE, b, seq, &p);
        if (rl_llm_evaluate(&p, c, err))
            return 0;
        bool all = true;
        for (int i = 0; i < p.n_ops && all; i++)
            all = !p.ops[i].linear || !p.ops[i].memory_bound;
        if (all)
            return b;
    }
    return 0;
}
