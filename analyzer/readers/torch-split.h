/* torch-split.h - how one operator call's FLOPs and bytes split over its kernels: what each kernel does (by its name) and the cost of an operator's parts (a convolution backward's grad-input and grad-weight, an addmm's GEMM and bias copy). */
#ifndef RL_TORCH_SPLIT_H
#define RL_TORCH_SPLIT_H

#include "analyzer/readers/torchops.h"

#include <stdbool.h>

/* What a kernel does within its operator call, from its name. */
enum rl_torch_role {
    RL_TORCH_ROLE_MAIN,    /* the arithmetic: a GEMM, a convolution, an elementwise op */
    RL_TORCH_ROLE_DGRAD,   /* a convolution's grad-input (data gradient) kernel */
    RL_TORCH_ROLE_WGRAD,   /* a convolution's grad-weight (filter gradient) kernel */
    RL_TORCH_ROLE_REDUCE,  /* a split-K reduction of partial sums (splitKreduce, reduce_wgrad) */
    RL_TORCH_ROLE_COPY,    /* a copy or cast kernel, a memcpy or memset: bytes, no FLOPs */
    RL_TORCH_ROLE_EPILOGUE,/* cuBLAS's separate epilogue (epilogue::impl::globalKernel):
                            * adds an addmm's bias to the GEMM's output */
    RL_TORCH_ROLE_AUX      /* set-up: offsets, layout transposes, tensor scaling (time only) */
};

/* The role of a kernel named `kernel` (a GPU activity of a copy or fill:
 * copy true, always RL_TORCH_ROLE_COPY). Names are matched without case:
 * "dgrad", "bwd_data", MIOpen's "igemm_bwd" are grad-input; "wgrad",
 * "bwd_filter", "bwd_weight", MIOpen's "_wrw" grad-weight, except the
 * cuDNN set-up kernels that name them ("computeWgradSplitKOffsetsKernel",
 * aux); "splitKreduce", "ReduceSplitK", "reduce_wgrad" reductions;
 * "copy" kernels copies; a name that starts "epilogue::" (after "void ")
 * an epilogue (CUTLASS GEMMs name their epilogue inside the template: not
 * that); "Offsets", "transpose", "nchwToNhwc",
 * "nhwcToNchw", "scalePackedTensor", "SubTensorOp",
 * "generateWinogradTiles" aux. Everything else is main. */
enum rl_torch_role rl_torch_kernel_role(const char *kernel, bool copy);

/* A short word for a role ("main", "dgrad", ...). */
const char *rl_torch_role_name(enum rl_torch_role r);

/* The parts of one operator call that separate kernels compute. */
struct rl_torch_parts {
    bool conv_backward;        /* convolution_backward with both grads asked */
    double dgrad_flops, dgrad_bytes;  /* grad_input: the forward's FLOPs; reads
                                       * grad_output and weight, writes grad_input */
    double wgrad_flops, wgrad_bytes;  /* grad_weight: the forward's FLOPs; reads
                                       * grad_output and input, writes grad_weight */
    /* addmm(bias, A [M,K], B [K,N]) in two kernels: either a copy of the
     * bias into the output and the GEMM adding A x B into it (beta 1: the
     * copy bias + out, the GEMM ab + 2 out), or the GEMM writing A x B and
     * an epilogue adding the bias (the GEMM ab + out, the epilogue bias +
     * 2 out); one kernel: the call's minimum bytes */
    bool addmm;
    double ab_bytes;           /* A and B read */
    double out_bytes;          /* the M x N output, once */
    double bias_bytes;         /* the bias read */
};

/* The parts of op whose whole cost is `cost` (rl_torch_op_cost, known).
 * Returns false, *parts zeroed, when op has no parts that separate
 * kernels are known to compute: its cost then goes to its kernels as a
 * whole. */
bool rl_torch_op_parts(const struct rl_torch_op *op, const struct rl_torch_cost *cost,
                       struct rl_torch_parts *parts);

#endif
