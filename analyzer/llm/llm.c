/* llm.c - LLM inference on the roofline: FLOPs and bytes of every operator of a transformer, decode and prefill times, memory, the crossover batch.
 *
 * Notation: H hidden, F ffn, nh heads, nkv KV heads, d head dim, V vocab,
 * E experts, k experts per token; T tokens processed (decode: B, one per
 * sequence; prefill: B S); P query-key pairs (decode: B S; prefill,
 * causal: B S (S + 1) / 2). wb, ab, kvb: bytes per weight, activation and
 * KV-cache value. Bytes are minimum traffic: every weight, activation and
 * cache value read or written once per step (a fused attention kernel:
 * scores stay on chip). Embedding, LM head, norms, router and biases stay
 * 16-bit whatever the weight format, as serving stacks keep them.
 * Each operator's time is its roofline bound, max(FLOPs / peak, bytes /
 * bandwidth): no overlap between operators, no launch latency.
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/llm/llm.h"

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
            strcmp(e->d_name, "schema.json") != 0 && (names[n] = strndup(e->d_name, len - 5)))
            n++;
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, by_name);
    return n;
}

static int unknown_model(const char *name, const char *data_dir, char *errmsg)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models", data_dir);
    char *names[64];
    size_t n = model_ids(dir, names);
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
        rl_fail(errmsg, RL_ENOTFOUND, "unknown model '%s' in %s (%s%sor a .json path)", name,
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
 * its Hugging Face id "ORG/REPO" or "REPO", each without regard to case. */
static int model_named(const char *file, const char *name)
{
    char *text, err[RL_ERRMSG_SIZE];
    size_t len;
    if (rl_file_read(file, &text, &len, err))
        return 0;
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
 * 0 with path set, or -1 when none does. */
static int find_model(const char *data_dir, const char *name, char *path, size_t cap)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models", data_dir);
    char *names[64];
    size_t n = model_ids(dir, names); /* sorted: the first match by id, not readdir's order */
    int found = -1;
    for (size_t i = 0; i < n; i++) {
        char file[4096 + 256];
        snprintf(file, sizeof file, "%s/%s.json", dir, names[i]);
        if (found < 0 && model_named(file, name) && strlen(file) < cap) {
            snprintf(path, cap, "%s", file);
            found = 0;
        }
        free(names[i]);
    }
    return found;
}

int rl_llm_model_load(struct rl_llm_model *m, const char *data_dir, const char *name,
                      char *errmsg)
{
    char path[4096], schema_path[4096], *text;
    size_t len;
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0)
        snprintf(path, sizeof path, "%s", name);
    else if (find_model(data_dir, name, path, sizeof path) != 0)
        snprintf(path, sizeof path, "%s/models/%s.json", data_dir, name);
    snprintf(schema_path, sizeof schema_path, "%s/models/schema.json", data_dir);
    cJSON *schema;
    int rc = rl_json_parse_file(schema_path, &schema, errmsg);
    if (rc)
        return rc;
    if ((rc = rl_file_read(path, &text, &len, errmsg))) {
        cJSON_Delete(schema);
        if (path[0] && strstr(name, ".json") == NULL)
            return unknown_model(name, data_dir, errmsg);
        return rc;
    }
    rc = rl_llm_model_parse(m, schema, text, len, path, errmsg);
    free(text);
    cJSON_Delete(schema);
    return rc;
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

const char *rl_llm_precision_name(enum rl_llm_precision p) { return formats[p].name; }
double rl_llm_weight_bytes(enum rl_llm_precision p) { return formats[p].wb; }
double rl_llm_act_bytes(enum rl_llm_precision p) { return formats[p].ab; }
const char *rl_llm_linear_roof(enum rl_llm_precision p) { return formats[p].roof; }
double rl_llm_kv_bytes(enum rl_llm_kv k) { return k == RL_LLM_KV_FP8 ? 1 : 2; }

/* ---- parameters and memory ---------------------------------------------------- */

/* Weights of the linear layers of one layer (those stored in the weight
 * format), and the 16-bit rest. */
static void layer_params(const struct rl_llm_model *m, double *linear, double *other)
{
    const double H = m->hidden, F = m->ffn, d = m->head_dim;
    const double qkv = (m->heads + 2.0 * m->kv_heads) * d;
    *linear = H * qkv + m->heads * d * H + (double)m->experts * (m->gated ? 3 : 2) * H * F;
    *other = 2 * H + (m->qkv_bias ? qkv : 0) + (m->experts > 1 ? H * m->experts : 0);
}

void rl_llm_model_of_params(struct rl_llm_model *m, double params)
{
    memset(m, 0, sizeof *m);
    snprintf(m->id, sizeof m->id, "params");
    snprintf(m->name, sizeof m->name, "a model of %.4g B parameters", params / 1e9);
    m->given_params = params;
}

double rl_llm_params(const struct rl_llm_model *m)
{
    if (!rl_llm_model_has_shape(m))
        return m->given_params;
    double linear, other;
    layer_params(m, &linear, &other);
    return m->layers * (linear + other) + (double)m->vocab * m->hidden * (m->tied ? 1 : 2) +
           m->hidden;
}

double rl_llm_weights_bytes(const struct rl_llm_model *m, const struct rl_llm_config *cfg)
{
    if (!rl_llm_model_has_shape(m))
        return m->given_params * formats[cfg->precision].wb;
    double linear, other;
    layer_params(m, &linear, &other);
    return m->layers * (linear * formats[cfg->precision].wb + other * 2) +
           2.0 * ((double)m->vocab * m->hidden * (m->tied ? 1 : 2) + m->hidden);
}

double rl_llm_kv_bytes_per_token(const struct rl_llm_model *m, const struct rl_llm_config *cfg)
{
    /* K and V, every layer, the KV heads only (GQA). */
    return 2.0 * m->layers * m->kv_heads * m->head_dim * rl_llm_kv_bytes(cfg->kv);
}

double rl_llm_kv_bytes_per_sequence(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                                    int seq)
{
    return rl_llm_kv_bytes_per_token(m, cfg) * rl_llm_attended(m, seq);
}

double rl_llm_training_bytes(const struct rl_llm_model *m, int batch, int seq)
{
    const double s = seq, b = batch, h = m->hidden, a = m->heads;
    return 16 * rl_llm_params(m) + m->layers * s * b * h * (34 + 5 * a * s / h);
}

/* ---- operators ------------------------------------------------------------ */

static struct rl_llm_op *op(struct rl_llm_phase_cost *p, const char *name, int count,
                            bool linear, const char *roof)
{
    struct rl_llm_op *o = &p->ops[p->n_ops++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->count = count;
    o->linear = linear;
    o->roof = roof;
    return o;
}

int rl_llm_kv_heads_per_gpu(const struct rl_llm_model *m, int tp)
{
    return m->kv_heads >= tp ? m->kv_heads / tp : 1;
}

int rl_llm_attended(const struct rl_llm_model *m, int seq)
{
    return m->sliding_window > 0 && m->sliding_window < seq ? m->sliding_window : seq;
}

int rl_llm_split_check(const struct rl_llm_model *m, const struct rl_llm_split *sp, char *errmsg)
{
    if (sp->tp < 1 || sp->pp < 1 || sp->ep < 1)
        return rl_fail(errmsg, RL_EINVAL, "every degree of a layout is at least 1");
    if (!rl_llm_model_has_shape(m))
        return RL_OK; /* a parameter count splits any way */
    if (m->heads % sp->tp || m->ffn % sp->tp)
        return rl_fail(errmsg, RL_EINVAL,
                       "TP %d does not divide %s's %d heads and MLP width %d", sp->tp, m->name,
                       m->heads, m->ffn);
    if (m->kv_heads % sp->tp && sp->tp % m->kv_heads)
        return rl_fail(errmsg, RL_EINVAL,
                       "TP %d neither divides nor is a multiple of %s's %d KV heads", sp->tp,
                       m->name, m->kv_heads);
    if (sp->pp > m->layers)
        return rl_fail(errmsg, RL_EINVAL, "PP %d is more stages than %s's %d layers", sp->pp,
                       m->name, m->layers);
    if (sp->ep > 1 && m->experts % sp->ep)
        return rl_fail(errmsg, RL_EINVAL, "EP %d does not divide %s's %d experts%s", sp->ep,
                       m->name, m->experts, m->experts == 1 ? " (a dense model: EP 1)" : "");
    return RL_OK;
}

void rl_llm_phase(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                  enum rl_llm_phase phase, int batch, int seq, struct rl_llm_phase_cost *p)
{
    rl_llm_phase_split(m, cfg, NULL, phase, batch, seq, p);
}

/* Query-key pairs of one sequence: decode, the attended context; prefill
 * and training (causal), sum over positions i = 1..S of min(i, W):
 * S (S + 1) / 2 without a window, W (W + 1) / 2 + (S - W) W with one. */
static double pairs_per_sequence(const struct rl_llm_model *m, enum rl_llm_phase phase, int seq)
{
    const double S = seq, W = rl_llm_attended(m, seq);
    if (phase == RL_LLM_DECODE)
        return W;
    return W * (W + 1) / 2 + (S - W) * W;
}

/* Per GPU of a split (Megatron-LM, Shoeybi et al. 2019, section 3): the
 * QKV projection is split by columns, nh / tp query heads and
 * rl_llm_kv_heads_per_gpu KV heads per GPU; the output projection by rows
 * (its input, the heads, split; its output H whole, summed by an
 * all-reduce); gate/up by columns and down by rows, F / tp each; the
 * embedding and LM head by vocabulary rows, V / tp; norms, residuals and
 * the router whole on every GPU. EP: E / ep experts per GPU, each token's
 * k experts spread evenly, so a GPU serves T k token-expert pairs (its T
 * tokens' worth, sent by all ep peers) and touches E / ep (1 - (1 - k /
 * E)^(T ep)) experts. */
void rl_llm_phase_split(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                        const struct rl_llm_split *split, enum rl_llm_phase phase, int batch,
                        int seq, struct rl_llm_phase_cost *p)
{
    static const struct rl_llm_split one = {.tp = 1, .pp = 1, .ep = 1};
    const struct rl_llm_split *sp = split ? split : &one;
    memset(p, 0, sizeof *p);
    p->phase = phase;
    p->batch = batch;
    p->seq = seq;
    const double t = sp->tp, ep = sp->ep;
    const double H = m->hidden, F = m->ffn / t, d = m->head_dim, V = m->vocab / t;
    const double nh = m->heads / t, nkv = rl_llm_kv_heads_per_gpu(m, sp->tp);
    const double E = m->experts, k = m->experts_per_token;
    const double B = batch, S = seq;
    const double T = phase == RL_LLM_DECODE ? B : B * S;
    const double P = B * pairs_per_sequence(m, phase, seq);
    /* The cache attention reads: decode, the attended positions of each
     * sequence; prefill and training, every key and value once. */
    const double cached = phase == RL_LLM_DECODE ? B * rl_llm_attended(m, seq) : B * S;
    const double wb = formats[cfg->precision].wb, ab = formats[cfg->precision].ab;
    const double kvb = rl_llm_kv_bytes(cfg->kv);
    const double qkv = (nh + 2 * nkv) * d;
    const int L = (m->layers + sp->pp - 1) / sp->pp;
    const char *lin = formats[cfg->precision].roof;
    const char *cuda = cfg->precision == RL_LLM_FP16 ? "fp16-cuda" : "bf16-cuda";
    const char *attn = cfg->precision == RL_LLM_FP16 ? "fp16" : "bf16";
    /* Experts a step touches: each of T tokens picks k of E, uniformly. */
    const double touched = E == 1 ? 1 : E / ep * (1 - pow(1 - k / E, T * ep));
    const double mats = m->gated ? 2 : 1;
    /* Training: the logits of every position (the loss), not the last. */
    const double Tout = phase == RL_LLM_TRAIN ? T : B;
    struct rl_llm_op *o;

    o = op(p, "attn_norm", L, false, cuda);
    o->flops = 4 * T * H;
    o->weight_bytes = 2 * H;
    o->act_bytes = 2 * T * H * ab;

    o = op(p, "qkv_proj", L, true, lin);
    o->tokens = T, o->in = H, o->out = qkv;
    o->flops = 2 * T * H * qkv + (m->qkv_bias ? T * qkv : 0);
    o->weight_bytes = H * qkv * wb + (m->qkv_bias ? 2 * qkv : 0);
    o->act_bytes = T * H * ab + T * nh * d * ab; /* x in, q out */
    o->kv_bytes = T * 2 * nkv * d * kvb;         /* k, v into the cache */

    o = op(p, "attn_scores", L, false, attn);
    o->heads = nh, o->kv_heads = nkv, o->keys = P / (phase == RL_LLM_DECODE ? B : T);
    o->flops = 2 * P * nh * d + 6 * P * nh;      /* q.k, then softmax: 6 per score */
    o->act_bytes = T * nh * d * ab;              /* q */
    o->kv_bytes = cached * nkv * d * kvb;        /* K of every cached position, once */

    o = op(p, "attn_av", L, false, attn);
    o->heads = nh, o->kv_heads = nkv, o->keys = P / (phase == RL_LLM_DECODE ? B : T);
    o->flops = 2 * P * nh * d;
    o->act_bytes = T * nh * d * ab;              /* out */
    o->kv_bytes = cached * nkv * d * kvb;        /* V */

    o = op(p, "o_proj", L, true, lin);
    o->tokens = T, o->in = nh * d, o->out = H;
    o->flops = 2 * T * nh * d * H;
    o->weight_bytes = nh * d * H * wb;
    o->act_bytes = T * nh * d * ab + T * H * ab;

    o = op(p, "residual_add", L, false, cuda);   /* two per layer */
    o->flops = 2 * T * H;
    o->act_bytes = 2 * 3 * T * H * ab;

    o = op(p, "ffn_norm", L, false, cuda);
    o->flops = 4 * T * H;
    o->weight_bytes = 2 * H;
    o->act_bytes = 2 * T * H * ab;

    if (m->experts > 1) {
        o = op(p, "router", L, false, "bf16");
        o->flops = 2 * T * H * E;
        o->weight_bytes = H * E * 2;
        o->act_bytes = T * H * ab + T * E * 2;
    }

    o = op(p, m->gated ? "gate_up_proj" : "up_proj", L, true, lin);
    o->tokens = T * k, o->in = H, o->out = F * mats;
    o->flops = 2 * T * k * H * F * mats;
    o->weight_bytes = touched * H * F * mats * wb;
    o->act_bytes = T * k * H * ab + T * k * F * mats * ab;

    o = op(p, m->gated ? "silu_mul" : "gelu", L, false, cuda);
    o->flops = T * k * F * (m->gated ? 5 : 9);
    o->act_bytes = T * k * F * (m->gated ? 3 : 2) * ab;

    o = op(p, "down_proj", L, true, lin);
    o->tokens = T * k, o->in = F, o->out = H;
    o->flops = 2 * T * k * F * H;
    o->weight_bytes = touched * F * H * wb;
    o->act_bytes = T * k * F * ab + T * k * H * ab;

    if (sp->pp == 1) { /* on the first stage; the last (the LM head) binds */
        o = op(p, "embedding", 1, false, cuda);  /* a gather of T rows, V / tp on each GPU */
        o->weight_bytes = T * H * 2 / t;
        o->act_bytes = T * H * ab;
    }

    o = op(p, "final_norm", 1, false, cuda);
    o->flops = 4 * T * H;
    o->weight_bytes = 2 * H;
    o->act_bytes = 2 * T * H * ab;

    /* Logits of the last position of each sequence only (training: all). */
    o = op(p, "lm_head", 1, true, "bf16");
    o->tokens = Tout, o->in = H, o->out = V;
    o->flops = 2 * Tout * H * V;
    o->weight_bytes = V * H * 2;
    o->act_bytes = Tout * H * ab + Tout * V * 2;

    /* Training: the backward computes each product's input gradient and
     * weight gradient, each as large as the forward product (Narayanan et
     * al. 2021, section 5.1: backward twice the forward), reading and
     * writing as much again each: 3 passes' FLOPs and bytes; full
     * recomputation runs the forward once more before the backward: 4. */
    const double passes = phase == RL_LLM_TRAIN ? (sp->recompute ? 4 : 3) : 1;
    for (int i = 0; i < p->n_ops; i++) {
        struct rl_llm_op *x = &p->ops[i];
        x->flops *= passes;
        x->weight_bytes *= passes;
        x->act_bytes *= passes;
        x->kv_bytes *= passes;
        p->flops += x->count * x->flops;
        p->bytes += x->count * (x->weight_bytes + x->act_bytes + x->kv_bytes);
    }
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
