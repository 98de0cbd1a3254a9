/* llm.h - LLM inference on the roofline: FLOPs and bytes of every operator of a transformer, decode and prefill times, memory, the crossover batch. */
#ifndef RL_LLM_H
#define RL_LLM_H

#include "analyzer/model/ceilings.h"
#include "analyzer/util/json.h"

#include <stdbool.h>
#include <stddef.h>

struct rl_llm_config;

/* Number formats (bytes per weight with their scales in llm.c's table):
 * fp8-block, FP8 with one FP32 scale per 128 x 128 block (DeepSeek-V3);
 * mxfp4, 4-bit E2M1 with one 8-bit E8M0 scale per 32 (OCP MX; gpt-oss),
 * dequantized to BF16 for the Tensor Cores as Hopper kernels do; nvfp4,
 * 4-bit with one FP8 E4M3 scale per 16 (NVIDIA ModelOpt), weights and
 * activations on the FP4 Tensor Cores. */
enum rl_llm_precision {
    RL_LLM_BF16, RL_LLM_FP16, RL_LLM_FP8, RL_LLM_W8A8, RL_LLM_W4A16,
    RL_LLM_FP8_BLOCK, RL_LLM_MXFP4, RL_LLM_NVFP4
};
#define RL_LLM_N_PRECISIONS (RL_LLM_NVFP4 + 1)
enum rl_llm_kv { RL_LLM_KV_FP16, RL_LLM_KV_BF16, RL_LLM_KV_FP8 };

/* The weights as a checkpoint stores them (a Hugging Face config's
 * torch_dtype and quantization_config): the default of --precision. */
struct rl_llm_quant {
    enum rl_llm_precision precision;
    double weight_bytes;        /* per weight with its scales (0: the format's own) */
    bool experts_only;          /* only the routed experts so stored; the rest BF16 */
    char what[128];             /* "fp8, weight_block_size 128 x 128 (quantization_config)" */
};

/* Layers are at most this many in a Hugging Face config (the masks below). */
#define RL_LLM_MAX_LAYERS 256

struct rl_llm_model {
    char id[32], name[64];
    /* ffn: the MLP width, of each routed expert in an MoE model (experts > 1).
     * head_dim: of a query and key head (MLA: qk_nope + qk_rope). */
    int layers, hidden, ffn, heads, kv_heads, head_dim, vocab, experts, experts_per_token;
    int sliding_window;         /* tokens each query attends to (Mistral: 4096); 0 all */
    bool gated, tied, qkv_bias;
    char source[256];
    /* A model known only by its parameter count (`--params`): layers is 0,
     * every shape 0, and only the model states (memory.h) are defined. */
    double given_params;

    /* ---- What a Hugging Face config.json adds (hfconfig.h). All zero in
     * the schema configs of data/models (one JSON per model): every layer alike. ---- */
    char model_type[32];        /* config.json's model_type; "" for a schema config */
    int dense_ffn;              /* MLP width of an MoE model's dense layers (0: ffn) */
    int shared_ffn;             /* the shared expert(s) of an MoE layer, their widths summed */
    /* Bit i (mask[i / 8] >> (i % 8) & 1) of dense_mask: layer i of an MoE
     * model has a dense MLP (none set: every layer has experts); of
     * full_mask: with a sliding window, layer i attends to every position
     * (none set: every layer is windowed). Layers past 256 are as bit 0. */
    unsigned char dense_mask[RL_LLM_MAX_LAYERS / 8], full_mask[RL_LLM_MAX_LAYERS / 8];
    /* Multi-head latent attention (DeepSeek-V2/V3, Kimi K2) when kv_lora_rank
     * > 0: q_lora_rank 0 is a plain query projection (V2-Lite). */
    int q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim;
    int mtp_layers;             /* multi-token prediction modules: not in rl_llm_params */
    int norms_per_layer;        /* RMSNorm weights of H per layer; 0: 2 (Gemma 2/3: 4) */
    bool o_bias;                /* the output projection has a bias (attention_bias) */
    bool mlp_bias;              /* the MLP projections (each expert's) have biases (gpt-oss) */
    bool router_bias;           /* the router has E biases (gpt-oss; DeepSeek's correction) */
    bool qk_norm;               /* per-head RMSNorm of q and k: 2 head_dim weights (Qwen3, Gemma 3) */
    bool attn_sinks;            /* one learned sink logit per head (gpt-oss) */
    bool shared_gate;           /* a sigmoid gate of H weights on the shared experts (Qwen2-MoE) */
    bool has_quant;             /* quant holds the checkpoint's format */
    struct rl_llm_quant quant;
    char unknown_keys[512];     /* config.json keys not understood, ", "-separated ("" none) */
};


/* A model of `params` parameters and no shape. */
void rl_llm_model_of_params(struct rl_llm_model *m, double params);
static inline bool rl_llm_model_has_shape(const struct rl_llm_model *m) { return m->layers > 0; }

/* Load a model: a shipped id (data/models/<id>.json validated against
 * data/models/schema.json, or data/models/hf/<id>/config.json), a path to
 * a schema config or to a Hugging Face config.json (any file whose JSON
 * has model_type or architectures), or a folder holding config.json.
 * Errors name file and line, or the key a config cannot be modelled by
 * (hfconfig.h). */
int rl_llm_model_load(struct rl_llm_model *m, const char *data_dir, const char *name,
                      char *errmsg);
int rl_llm_model_parse(struct rl_llm_model *m, const cJSON *schema, const char *text,
                       size_t len, const char *what, char *errmsg);


int rl_llm_precision_parse(const char *s);  /* -1 unknown */
int rl_llm_kv_parse(const char *s);         /* -1 unknown */
const char *rl_llm_precision_name(enum rl_llm_precision p);

/* Bytes per weight, per activation, and the roof the linear layers run on. */
double rl_llm_weight_bytes(enum rl_llm_precision p);
double rl_llm_act_bytes(enum rl_llm_precision p);
const char *rl_llm_linear_roof(enum rl_llm_precision p);
double rl_llm_kv_bytes(enum rl_llm_kv k);

/* Parameters (analyzer/llm/params.c; formulas in data/models/README.md):
 * every weight of the model (embedding, LM head unless tied, norms,
 * biases, MLA's low-rank matrices and norms, router, routed and shared
 * experts, dense layers), without the MTP modules. */
double rl_llm_params(const struct rl_llm_model *m);
/* Those one token uses: rl_llm_params less the embedding and the routed
 * experts a token does not pick, (E - k) of each MoE layer. */
double rl_llm_active_params(const struct rl_llm_model *m);
/* The multi-token prediction modules (num_nextn_predict_layers): each one
 * MoE layer plus its eh_proj (2H x H) and three norms; embedding and head
 * shared with the model. 0 without. */
double rl_llm_mtp_params(const struct rl_llm_model *m);

/* Per-layer queries (for costing one layer's operators, e.g. a traced
 * MoE kernel). Layers are numbered from 0 as in config.json.
 * rl_llm_layer_is_moe: layer i has routed experts (experts > 1 and not a
 * dense layer: DeepSeek's first_k_dense_replace, Llama 4's interleave,
 * Qwen's mlp_only_layers / decoder_sparse_step).
 * rl_llm_layer_is_sliding: layer i's attention is windowed (sliding_window
 * tokens; gpt-oss, Gemma, Mistral, Llama 4's chunks).
 * rl_llm_layer_ffn: the MLP width of layer i: each routed expert's (ffn) in
 * an MoE layer, else the dense width. rl_llm_moe_layers and
 * rl_llm_sliding_layers count them. */
bool rl_llm_layer_is_moe(const struct rl_llm_model *m, int i);
bool rl_llm_layer_is_sliding(const struct rl_llm_model *m, int i);
int rl_llm_layer_ffn(const struct rl_llm_model *m, int i);
int rl_llm_moe_layers(const struct rl_llm_model *m);
int rl_llm_sliding_layers(const struct rl_llm_model *m);
static inline bool rl_llm_is_mla(const struct rl_llm_model *m) { return m->kv_lora_rank > 0; }
/* Distinct experts that tokens tokens pick, each k of E uniformly and
 * independently: E (1 - (1 - k / E)^tokens) (1 token: k; many: E). */
double rl_llm_expected_experts(double experts, double k, double tokens);
/* Bytes per parameter, scales included, of a routed expert's weights
 * (expert true) or of another linear layer's (attention, dense and shared
 * MLPs) under cfg. */
double rl_llm_linear_weight_bytes(const struct rl_llm_config *cfg, bool expert);

/* Training (RL_LLM_TRAIN): a forward of every token, the backward (twice
 * the forward's work) and, with recomputation, the forward again; the
 * optimizer step is an operator of its own (layout.h). */
enum rl_llm_phase { RL_LLM_DECODE, RL_LLM_PREFILL, RL_LLM_TRAIN };

/* Activation recomputation in training (Korthikanti et al. 2022, section
 * 5): none; full, every layer's forward run again before its backward
 * (only each layer's input kept); selective, only the attention core
 * (QK^T, softmax, dropout, AV: the activations of 5 a s / h per token)
 * recomputed. FULL is 1 so that a true `recompute` still says full. */
enum rl_llm_recompute { RL_LLM_RECOMPUTE_NONE, RL_LLM_RECOMPUTE_FULL, RL_LLM_RECOMPUTE_SELECTIVE };
int rl_llm_recompute_parse(const char *s);  /* "none", "selective", "full"; -1 unknown */
const char *rl_llm_recompute_name(enum rl_llm_recompute r);

/* How one GPU holds its part of the model (Megatron-LM's splits): tp GPUs
 * share every layer (heads and MLP columns/rows), pp stages share the
 * layers, ep GPUs share the experts, dp replicas share the batch.
 * seq_parallel: Megatron's sequence parallelism (Korthikanti et al.
 * section 4.2.2): the norms, dropouts and residual adds run on s / tp of
 * the tokens on each GPU, TP's all-reduces become reduce-scatters and
 * all-gathers. */
struct rl_llm_split {
    int tp, pp, ep;
    enum rl_llm_recompute recompute;  /* training */
    bool seq_parallel;                /* training */
    /* Training: attention as Megatron-LM ran it before FlashAttention
     * (Korthikanti et al.'s 5 a s / h term): the a s^2 scores of each
     * sequence written and read through DRAM (ops.c). */
    bool unfused_attention;
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

#define RL_LLM_MAX_OPS 32

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
    /* Optional (0 / false: the format's own): bytes per weight with its
     * scales (INT4 of a config's group size), and whether only the routed
     * experts are in `precision`, attention, dense and shared MLPs in BF16
     * (gpt-oss's modules_to_not_convert). */
    double weight_bytes;
    bool experts_only;
};

/* One line on where the weight format comes from, for the CLI: the
 * config's ("as config.json stores them: <what>; --precision overrides")
 * or the flag's (given: "--precision <name>, over config.json's <what>");
 * "" for a model without a stored format (a schema config). */
void rl_llm_weights_text(char *buf, size_t cap, const struct rl_llm_model *m,
                         const struct rl_llm_config *cfg, bool given);
/* A stored format whose Tensor Core rate the GPU lacks (FP8 on an A100,
 * NVFP4 on an H100): its weights are dequantized to BF16 as they are read
 * (weight-only kernels, as vLLM's Marlin runs FP8 and FP4 on older GPUs),
 * so each weight keeps its bytes and the products run on the BF16 roof.
 * Changes cfg and returns true then (why in note: "NVIDIA A100 SXM4 80GB
 * has no FP8 Tensor Core rate: ..."); false, cfg untouched, when the roof
 * is there. */
bool rl_llm_config_fit_roofs(struct rl_llm_config *cfg, struct rl_ceilings *c, char *note,
                             size_t cap);
/* The config of the checkpoint's own weights (m->quant; BF16 without one)
 * and KV cache kv. */
void rl_llm_config_of_model(const struct rl_llm_model *m, enum rl_llm_kv kv,
                            struct rl_llm_config *cfg);

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
/* The share of a layer's KV cache one GPU of TP tp holds: its KV heads
 * of all (rl_llm_kv_heads_per_gpu / kv_heads); MLA's latent is one for
 * all heads, so every GPU holds all of it (1). */
double rl_llm_kv_share_per_gpu(const struct rl_llm_model *m, int tp);
/* Parameters of one GPU of a split: those of the linear layers other than
 * the routed experts (stored in the attention's format), of the routed
 * experts, and the 16-bit rest (norms, biases, router, sinks) of the
 * layers of its stage (ceil(layers / pp); MoE layers ceil(moe / pp) of
 * them), without embedding and LM head. */
void rl_llm_stage_params(const struct rl_llm_model *m, const struct rl_llm_split *sp,
                         double *linear, double *expert, double *other);
/* Tokens of context one query reads: seq, or the sliding window. */
int rl_llm_attended(const struct rl_llm_model *m, int seq);

/* Place each operator on the ceilings (DRAM roof and the operator's compute
 * roof; the datasheet's or the bench file's, measured first). Returns 0 or
 * an RL_E* code with errmsg (a roof the GPU lacks: FP8 on an A100). */
int rl_llm_evaluate(struct rl_llm_phase_cost *p, struct rl_ceilings *c, char *errmsg);

/* Memory */

double rl_llm_weights_bytes(const struct rl_llm_model *m, const struct rl_llm_config *cfg);
/* KV cache of one token in one layer: K and V of the KV heads, 2 nkv d
 * values; MLA caches the latent and the rope key, kv_lora_rank +
 * qk_rope_head_dim values (shared by every head). */
double rl_llm_kv_bytes_per_token_layer(const struct rl_llm_model *m,
                                       const struct rl_llm_config *cfg);
/* Of every layer (layers x the above; a window caps a sequence's, below). */
double rl_llm_kv_bytes_per_token(const struct rl_llm_model *m, const struct rl_llm_config *cfg);
/* The KV cache of one sequence of seq tokens: a sliding-window layer keeps
 * only its last sliding_window tokens (Mistral's rolling buffer cache), a
 * full layer all seq. */
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
