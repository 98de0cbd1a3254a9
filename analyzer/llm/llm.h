/* llm.h - LLM inference on the roofline: FLOPs and bytes of every operator of a transformer, decode and prefill times, memory, the crossover batch. */
#ifndef RL_LLM_H
#define RL_LLM_H

#include "analyzer/model/ceilings.h"
#include "analyzer/util/json.h"

#include <stdbool.h>
#include <stddef.h>

struct rl_llm_model {
    char id[32], name[64];
    int layers, hidden, ffn, heads, kv_heads, head_dim, vocab, experts, experts_per_token;
    int sliding_window;         /* tokens each query attends to (Mistral: 4096); 0 all */
    bool gated, tied, qkv_bias;
    char source[256];
    /* A model known only by its parameter count (`--params`): layers is 0,
     * every shape 0, and only the model states (memory.h) are defined. */
    double given_params;
};

/* A model of `params` parameters and no shape. */
void rl_llm_model_of_params(struct rl_llm_model *m, double params);
static inline bool rl_llm_model_has_shape(const struct rl_llm_model *m) { return m->layers > 0; }

/* Load a model config (data/models/<id>.json, or a path ending in .json)
 * validated against data/models/schema.json. Errors name file and line. */
int rl_llm_model_load(struct rl_llm_model *m, const char *data_dir, const char *name,
                      char *errmsg);
int rl_llm_model_parse(struct rl_llm_model *m, const cJSON *schema, const char *text,
                       size_t len, const char *what, char *errmsg);

/* Number formats. */
enum rl_llm_precision { RL_LLM_BF16, RL_LLM_FP16, RL_LLM_FP8, RL_LLM_W8A8, RL_LLM_W4A16 };
enum rl_llm_kv { RL_LLM_KV_FP16, RL_LLM_KV_BF16, RL_LLM_KV_FP8 };

int rl_llm_precision_parse(const char *s);  /* -1 unknown */
int rl_llm_kv_parse(const char *s);         /* -1 unknown */
const char *rl_llm_precision_name(enum rl_llm_precision p);

/* Bytes per weight, per activation, and the roof the linear layers run on. */
double rl_llm_weight_bytes(enum rl_llm_precision p);
double rl_llm_act_bytes(enum rl_llm_precision p);
const char *rl_llm_linear_roof(enum rl_llm_precision p);
double rl_llm_kv_bytes(enum rl_llm_kv k);

/* Parameters: all, and of the linear layers of one layer. */
double rl_llm_params(const struct rl_llm_model *m);

/* Training (RL_LLM_TRAIN): a forward of every token, the backward (twice
 * the forward's work) and, with recomputation, the forward again; the
 * optimizer step is an operator of its own (layout.h). */
enum rl_llm_phase { RL_LLM_DECODE, RL_LLM_PREFILL, RL_LLM_TRAIN };

/* How one GPU holds its part of the model (Megatron-LM's splits): tp GPUs
 * share every layer (heads and MLP columns/rows), pp stages share the
 * layers, ep GPUs share the experts, dp replicas share the batch. */
struct rl_llm_split {
    int tp, pp, ep;
    bool recompute;             /* training: full activation recomputation */
};

/* One operator of one phase: per layer (count = layers) or per model (1). */
struct rl_llm_op {
    char name[24];              /* "qkv_proj", "attn_scores", "lm_head" */
    int count;                  /* times per step: layers, or 1 */
    bool linear;                /* a matrix product with weights (crossover) */
    double flops;               /* per occurrence */
    double weight_bytes, act_bytes, kv_bytes;
    const char *roof;           /* compute roof name */
    /* One GPU's shape: a linear layer's tokens x in -> out (per expert
     * pair for MoE: tokens are token-expert pairs); attention's heads and
     * KV heads on the GPU and the keys a query reads (on average: causal
     * prefill (S + 1) / 2). 0 when none. */
    double tokens, in, out;
    double heads, kv_heads, keys;
    /* on the roofline (filled by rl_llm_evaluate) */
    double ai_flop_per_byte;
    double time_ns;             /* attainable: max(FLOPs / peak, bytes / bandwidth), per occurrence */
    bool memory_bound;
};

#define RL_LLM_MAX_OPS 16

struct rl_llm_phase_cost {
    enum rl_llm_phase phase;
    int batch, seq;
    struct rl_llm_op ops[RL_LLM_MAX_OPS];
    int n_ops;
    double flops, bytes;        /* the whole step (decode) or prefill */
    double time_ns;             /* sum of the operators' attainable times */
};

struct rl_llm_config {
    enum rl_llm_precision precision;
    enum rl_llm_kv kv;
};

/* The operators of one decode step (batch sequences, seq tokens of context
 * each) or of a prefill (batch sequences of seq tokens). Derivations:
 * analyzer/llm.c and data/models/README.md. */
void rl_llm_phase(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                  enum rl_llm_phase phase, int batch, int seq, struct rl_llm_phase_cost *out);
/* The same on one GPU of a split (NULL: one GPU): its layers (a pipeline
 * stage of ceil(layers / pp); the LM head on it, the embedding only
 * without a pipeline), its heads, MLP columns and experts; batch is the
 * sequences whose attention this GPU computes (an expert GPU also serves
 * the tokens of its ep - 1 peers, k of E each). The shape needs tp to
 * divide heads and ffn and ep to divide experts (rl_llm_split_check). */
void rl_llm_phase_split(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                        const struct rl_llm_split *split, enum rl_llm_phase phase, int batch,
                        int seq, struct rl_llm_phase_cost *out);
/* 0, or RL_EINVAL with why a split cannot hold the model (tp not dividing
 * the heads, pp above the layers, ep above 1 for a dense model...). */
int rl_llm_split_check(const struct rl_llm_model *m, const struct rl_llm_split *split,
                       char *errmsg);
/* KV heads on one GPU: kv_heads / tp, or one (replicated) beyond kv_heads. */
int rl_llm_kv_heads_per_gpu(const struct rl_llm_model *m, int tp);
/* Tokens of context one query reads: seq, or the sliding window. */
int rl_llm_attended(const struct rl_llm_model *m, int seq);

/* Place each operator on the ceilings (DRAM roof and the operator's compute
 * roof; the datasheet's or the bench file's, measured first). Returns 0 or
 * an RL_E* code with errmsg (a roof the GPU lacks: FP8 on an A100). */
int rl_llm_evaluate(struct rl_llm_phase_cost *p, struct rl_ceilings *c, char *errmsg);

/* Memory */

double rl_llm_weights_bytes(const struct rl_llm_model *m, const struct rl_llm_config *cfg);
double rl_llm_kv_bytes_per_token(const struct rl_llm_model *m, const struct rl_llm_config *cfg);
/* The KV cache of one sequence of seq tokens: a sliding window keeps only
 * its last sliding_window tokens (Mistral's rolling buffer cache). */
double rl_llm_kv_bytes_per_sequence(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                                    int seq);
/* Training in mixed precision: 16 bytes per parameter (BF16 weights and
 * gradients, FP32 master weights and two Adam moments) plus activations
 * without recomputation, s b h (34 + 5 a s / h) bytes per layer
 * (Korthikanti et al., 2022). */
double rl_llm_training_bytes(const struct rl_llm_model *m, int batch, int seq);

/* The smallest batch at which every linear layer of a decode step is
 * compute-bound (its intensity at or right of its ridge); 0 when none up
 * to max_batch. */
int rl_llm_crossover_batch(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                           int seq, struct rl_ceilings *c, int max_batch);

#endif
