/* torchops.h - FLOPs and minimum bytes of PyTorch operators from their input shapes and dtypes, and the roof a kernel's name says it runs on (the table of `report --torch`). */
#ifndef RL_TORCHOPS_H
#define RL_TORCHOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One operator as a PyTorch profiler trace records it (record_shapes=True):
 * its "Input Dims", "Input type" and "Concrete Inputs", argument by
 * argument, in the order the trace lists them. */

#define RL_TORCH_MAX_DIMS 12

struct rl_torch_tensor {
    int ndim;                           /* 0: a 0-d tensor (one element) */
    int64_t dims[RL_TORCH_MAX_DIMS];
};

enum rl_torch_arg_kind {
    RL_TORCH_ARG_TENSOR,      /* "Input type" a dtype name, dims a list of ints */
    RL_TORCH_ARG_LIST,        /* "TensorList" (or a list of lists of dims) */
    RL_TORCH_ARG_SCALAR,      /* "Scalar", "ScalarList", "int", "bool", "" with [] dims */
    RL_TORCH_ARG_NONE         /* an absent optional ("" type and [] dims, or "None") */
};

struct rl_torch_arg {
    enum rl_torch_arg_kind kind;
    char type[40];            /* "Input type" as written: "float", "c10::BFloat16",
                               * "c10::Half", "c10::Float8_e4m3fn", "long int",
                               * "TensorList", "Scalar", "" */
    size_t n_tensors;         /* 1 for a tensor, the list's length, 0 otherwise */
    const struct rl_torch_tensor *t;
    const char *concrete;     /* "Concrete Inputs" entry as written ("1", "True",
                               * "[-1]", "0.5"); "" when the trace gives none */
};

struct rl_torch_op {
    const char *name;         /* "aten::mm", "aten::_scaled_dot_product_flash_attention" */
    size_t n_args;
    const struct rl_torch_arg *args;
    double profiler_flops;    /* the trace's own "flops" arg (with_flops=True); NAN none */
    int world_size;           /* the trace's distributedInfo world size; <= 0 not given */
};

/* What an operator costs, for all of its launches together. */
struct rl_torch_cost {
    bool known;               /* the table has the operator and its shapes made sense */
    double flops;             /* NAN when the operator does no arithmetic worth a roof
                               * (copies: 0 FLOPs is written as 0) */
    double bytes;             /* minimum DRAM bytes: each input read once, each output
                               * written once (analytic) */
    char dtype[24];           /* the math dtype: "bf16", "fp16", "fp32", "fp64", "fp8",
                               * "int8", "int64", "bool", ""; from the first tensor */
    bool matmul;              /* a GEMM-like op: its precision depends on the kernel
                               * (Tensor Cores or CUDA cores), rl_torch_kernel_roof */
    char formula[48];         /* the table entry used: "mm", "sdpa-fwd", "eltwise", ... */
    char note[160];           /* an assumption taken ("causal from is_causal",
                               * "4-byte elements assumed: TensorList has no dtype"); "" */
    /* A fused operator of several kernels (torchops-llm.h: a fused MoE):
     * its weights' bytes and one pass over its activations, which its
     * kernels share out (rl_torch_llm_kernel_part); 0 for the others. */
    double weight_bytes, act_bytes;
};

/* The cost of op from its arguments. Returns true when the table knows the
 * operator (cost->known); false leaves a timing-only operator (cost->flops
 * and bytes NAN). Never fails otherwise: shapes that do not fit the
 * formula (a matrix product of 1-d tensors where 2-d is needed) give false
 * with cost->note saying why. */
bool rl_torch_op_cost(const struct rl_torch_op *op, struct rl_torch_cost *cost);

/* Is the operator (with or without "aten::") a matrix product, a
 * convolution or attention in the table (a kernel of it may run on Tensor
 * Cores); false for every other operator, known or not. */
bool rl_torch_op_matmul(const char *name);

/* A collective operator that PyTorch's c10d does not wrap in
 * record_param_comms (symm_mem::multimem_all_reduce_, vllm::all_reduce,
 * _C_custom_ar::all_reduce, sgl_kernel:: all-reduce, deep_ep ...;
 * rl_comm_recognize): true with its collective, and *bytes its message as
 * nccl-tests counts it, from its first tensor's shape x dtype (the buffer
 * of an all-reduce, reduce-scatter's whole input, all-to-all's and
 * broadcast's buffer); *bytes NAN where the inputs do not give it
 * (all-gather's whole output, DeepEP's routed tokens, no dtype). False
 * for other operators, c10d's and record_param_comms included (their
 * message is record_param_comms'). */
bool rl_torch_comm_message(const struct rl_torch_op *op, char *collective, size_t size,
                           double *bytes);

/* Bytes per element of an "Input type" name ("c10::BFloat16" 2, "float" 4,
 * "double" 8, "long int" 8, "bool" 1, "c10::Float8_e4m3fn" 1); 0 unknown. */
int rl_torch_dtype_bytes(const char *type);
/* The short dtype of an "Input type" name ("bf16", "fp32", ...); "" unknown. */
const char *rl_torch_dtype_name(const char *type);

/* The roof (rl_roof_names: "fp32", "tf32", "bf16", "fp16", "fp8", "fp6",
 * "fp4", "int8", "fp64", "fp64-tc", "fp16-cuda", "bf16-cuda") a kernel of
 * this name runs on, for an operator of math dtype `dtype` ("" unknown)
 * that is a matrix product or not (matmul); readers/torchroof.c.
 * Not a matrix product: the vector unit's roof of the dtype (fp32,
 * fp16-cuda, bf16-cuda, fp64), FP32's for any other dtype (integers,
 * bool, FP8/FP4 data, unknown), whatever the name: never a Tensor Core
 * roof. A matrix product: what the name says (ampere_sgemm_* FP32 CUDA
 * cores, *tensorop_s1688gemm* TF32, *h16816gemm* / hgemm FP16, *bf16*
 * BF16, *e4m3* / *e5m2* / f8f6f4 / mxf8 / fp8_gemm FP8, *e2m1* / nvfp4 /
 * mxf4 FP4, e3m2 / e2m3 FP6, *i8816* / imma INT8, dgemm / *d884* FP64,
 * Cijk_..._MI16x16x1_... AMD matrix cores by the kernel's types); where
 * it does not, the dtype's Tensor Core roof (TF32 for FP32: its most
 * generous), and *noted says so (a static string; "" when the name or the
 * vector rule decided). Returns "" only for a matrix product whose name
 * and dtype say nothing (the report's default judges). Whether the GPU
 * has the roof is rl_ceilings_judge_nearest's to settle. */
const char *rl_torch_kernel_roof(const char *kernel, const char *dtype, bool matmul,
                                 const char **noted);

#endif
