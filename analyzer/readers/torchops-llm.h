/* torchops-llm.h - FLOPs and bytes of LLM serving operators in a PyTorch trace (vLLM, SGLang: fused MoE, the small fused kernels), the MoE from the model `report --torch --model` names; formulas in readers/TORCH-OPS.md, "LLM serving operators". */
#ifndef RL_TORCHOPS_LLM_H
#define RL_TORCHOPS_LLM_H

#include "analyzer/llm/llm.h"
#include "analyzer/readers/torchops.h"

#include <stdbool.h>

/* The model custom operators are costed from, and how one rank holds it. */
struct rl_torch_llm {
    struct rl_llm_model model;
    /* Ranks sharing each expert's width (tensor parallel: F / tp columns
     * each) and ranks sharing the experts (expert parallel: E / ep each).
     * 0: from the trace, tp = its world size (distributedInfo), ep = 1
     * (vLLM's and SGLang's default without --enable-expert-parallel). */
    int tp, ep;
    /* Bytes of one expert weight with its scales (MXFP4 17/32, FP8 1 plus
     * its block scales, BF16 2); 0: the MoE operator's input dtype's. */
    double expert_weight_bytes;
};

/* Cost custom operators from ctx (NULL: no model; the MoE then stays
 * unknown, the small fused ops are still costed from their shapes). The
 * CLI sets it before reading traces; ctx must outlive the reading. One
 * model per process: not for concurrent readers. */
void rl_torch_llm_use(const struct rl_torch_llm *ctx);

/* The cost of a serving operator (vllm::moe_forward, _C::fused_add_rms_norm,
 * _C_cache_ops::reshape_and_cache_flash ...): true when it is one and its
 * shapes fit (cost->known), false otherwise with cost->note saying why
 * where it is one. rl_torch_op_cost calls it for names its table lacks. */
bool rl_torch_llm_op_cost(const struct rl_torch_op *op, struct rl_torch_cost *cost);

/* The part of its operator's cost one kernel of the operator carries.
 * A fused MoE runs several kernels (routing, quantize, the two expert
 * GEMMs, a finalize): the gate-up GEMM carries the gate-up FLOPs and
 * weights, the down GEMM the down ones, the others a pass over the
 * activations (bytes only, *flops NAN). Any other operator: the longest
 * kernel of a call carries the whole cost, the others none. Returns
 * whether this kernel carries a part (*flops and *bytes set). */
bool rl_torch_llm_kernel_part(const struct rl_torch_cost *cost, const char *kernel, bool longest,
                              double *flops, double *bytes);

/* One serving step as its annotation gives it (vLLM's
 * "execute_<tokens>_context_<n>(sq..sk..sqsq..sqsk..)_generation_<n>(...)",
 * SGLang's "step[DECODE bs=<n>]"): tokens through the model, sequences,
 * keys attended (sum of the sequences' context lengths); NAN unknown. */
struct rl_torch_llm_step {
    double tokens, seqs, keys;
};

/* Parse a step annotation; false when name is not one. */
bool rl_torch_llm_step_parse(const char *name, struct rl_torch_llm_step *step);

/* The FLOPs and bytes of one launch of a kernel replayed from a graph (no
 * operator, no shapes) in a step, from the model of rl_torch_llm_use and
 * the kernel's name: a fused MoE's kernels (matmul_ogs, fused_moe_kernel,
 * TensorRT-LLM's bmm, routing, finalize) as one layer's MoE of
 * step->tokens tokens, an RMSNorm, rotary embedding or KV-cache write as
 * one layer's over the tokens; activations in BF16. world: the trace's
 * world size (<= 0 none). Returns whether it could (*flops NAN where the
 * kernel does bytes only). */
bool rl_torch_llm_graph_cost(const char *kernel, const struct rl_torch_llm_step *step, int world,
                             double *flops, double *bytes, const char **what);
/* *what: the operator it stands for ("fused MoE", "rms_norm", "rotary_embedding",
 * "reshape_and_cache"), a static string. */

/* A serving operator that is a matrix product (a fused MoE: its GEMMs
 * run on the matrix units), by its name with or without a namespace. */
bool rl_torch_llm_op_matmul(const char *name);

/* Expected distinct experts of `experts` that `tokens` tokens pick, each
 * top `k` uniformly at random: E (1 - (1 - k/E)^T). */
double rl_torch_llm_distinct_experts(double experts, double k, double tokens);

#endif
