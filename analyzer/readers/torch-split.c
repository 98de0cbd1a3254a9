/* torch-split.c - what each kernel of an operator call does, by its name, and the cost of the parts that separate kernels compute.
 *
 * The names are those of the real traces in tests/data/torch-real
 * (docs/torch.md "One call, several kernels"): cuDNN's
 * cudnn::detail::dgrad_engine and cudnn::cnn::wgrad_alg0_engine, its
 * set-up kernels cask_cudnn::computeOffsetsKernel,
 * computeWgradSplitKOffsetsKernel, scalePackedTensor_kernel,
 * nchwToNhwcKernel; cuBLAS's splitKreduce_kernel and cudnn's
 * reduce_wgrad_nchw_helper; MIOpen's igemm_bwd_gtc (grad-input),
 * igemm_wrw_gtc (grad-weight), batched_transpose_*, SubTensorOp*; PyTorch's
 * copy_device_to_device / direct_copy_kernel (the bias an addmm copies
 * into its output before the GEMM adds into it); cuBLAS's
 * epilogue::impl::globalKernel (the bias added after the GEMM).
 */
#define _GNU_SOURCE
#include "analyzer/readers/torch-split.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static bool has(const char *s, const char *w)
{
    return strcasestr(s, w) != NULL;
}

enum rl_torch_role rl_torch_kernel_role(const char *k, bool copy)
{
    if (copy)
        return RL_TORCH_ROLE_COPY;
    /* set-up first: cuDNN's offset kernels name the wgrad they prepare */
    static const char *const aux[] = {"offsets", "transpose", "nchwtonhwc", "nhwctonchw",
                                      "scalepackedtensor", "subtensorop",
                                      "generatewinogradtiles"};
    for (size_t i = 0; i < sizeof aux / sizeof *aux; i++)
        if (has(k, aux[i]))
            return RL_TORCH_ROLE_AUX;
    if (has(k, "splitkreduce") || has(k, "reducesplitk") || has(k, "splitk_reduce") ||
        has(k, "reduce_wgrad"))
        return RL_TORCH_ROLE_REDUCE;
    if (has(k, "wgrad") || has(k, "bwd_filter") || has(k, "bwdfilter") ||
        has(k, "bwd_weight") || has(k, "_wrw"))
        return RL_TORCH_ROLE_WGRAD;
    if (has(k, "dgrad") || has(k, "bwd_data") || has(k, "bwddata") || has(k, "igemm_bwd"))
        return RL_TORCH_ROLE_DGRAD;
    if (has(k, "copy"))
        return RL_TORCH_ROLE_COPY;
    if (strncmp(k, "void ", 5) == 0)
        k += 5;
    if (strncasecmp(k, "epilogue::", 10) == 0)
        return RL_TORCH_ROLE_EPILOGUE;
    return RL_TORCH_ROLE_MAIN;
}

const char *rl_torch_role_name(enum rl_torch_role r)
{
    switch (r) {
    case RL_TORCH_ROLE_MAIN: return "main";
    case RL_TORCH_ROLE_DGRAD: return "dgrad";
    case RL_TORCH_ROLE_WGRAD: return "wgrad";
    case RL_TORCH_ROLE_REDUCE: return "reduce";
    case RL_TORCH_ROLE_COPY: return "copy";
    case RL_TORCH_ROLE_EPILOGUE: return "epilogue";
    case RL_TORCH_ROLE_AUX: return "aux";
    }
    return "?";
}

/* The tensor of argument i; NULL when it is not one. */
static const struct rl_torch_tensor *tensor(const struct rl_torch_op *op, size_t i)
{
    if (i >= op->n_args || op->args[i].kind != RL_TORCH_ARG_TENSOR || op->args[i].n_tensors != 1)
        return NULL;
    return op->args[i].t;
}

static double numel(const struct rl_torch_tensor *t)
{
    double n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= (double)t->dims[d];
    return n;
}

/* Bytes per element of argument i; 0 unknown. */
static double elem_bytes(const struct rl_torch_op *op, size_t i)
{
    return i < op->n_args ? rl_torch_dtype_bytes(op->args[i].type) : 0;
}

/* convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask):
 * torchops counts each grad asked the forward's FLOPs, so each part is
 * half the call's when both are asked. */
static bool conv_backward(const struct rl_torch_op *op, const struct rl_torch_cost *c,
                          struct rl_torch_parts *p)
{
    const struct rl_torch_tensor *go = tensor(op, 0), *in = tensor(op, 1), *w = tensor(op, 2);
    if (!go || !in || !w)
        return false;
    const char *m = op->n_args > 10 && op->args[10].concrete ? op->args[10].concrete : "";
    int mask[2] = {1, 1}, k = 0; /* "[True, True, False]"; none given: both */
    for (const char *q = m; *q && k < 2; q++)
        if (*q == 'T' || *q == 'F')
            mask[k++] = *q == 'T';
    double e = elem_bytes(op, 1), ew = elem_bytes(op, 2), eg = elem_bytes(op, 0);
    if (!mask[0] || !mask[1] || !(e > 0) || !(ew > 0))
        return false; /* one grad: the whole call is that part */
    if (!(eg > 0))
        eg = e;
    p->conv_backward = true;
    p->dgrad_flops = p->wgrad_flops = c->flops / 2;
    /* grad_input = conv_transpose(grad_output, weight): reads both, writes
     * the input's shape; grad_weight = conv(input, grad_output): reads
     * both, writes the weight's shape */
    p->dgrad_bytes = numel(go) * eg + numel(w) * ew + numel(in) * e;
    p->wgrad_bytes = numel(go) * eg + numel(in) * e + numel(w) * ew;
    return true;
}

/* addmm(bias, A [M,K], B [K,N]): the bias (N or M x N), A, B, the output. */
static bool addmm(const struct rl_torch_op *op, struct rl_torch_parts *p)
{
    const struct rl_torch_tensor *b = tensor(op, 0), *x = tensor(op, 1), *y = tensor(op, 2);
    if (!b || !x || !y || x->ndim != 2 || y->ndim != 2)
        return false;
    double e = elem_bytes(op, 1), eb = elem_bytes(op, 0), ey = elem_bytes(op, 2);
    if (!(e > 0))
        return false;
    if (!(eb > 0))
        eb = e;
    if (!(ey > 0))
        ey = e;
    double m = (double)x->dims[0], k = (double)x->dims[1], n = (double)y->dims[1];
    p->addmm = true;
    p->ab_bytes = m * k * e + k * n * ey;
    p->out_bytes = m * n * e;
    p->bias_bytes = numel(b) * eb;
    return true;
}

bool rl_torch_op_parts(const struct rl_torch_op *op, const struct rl_torch_cost *cost,
                       struct rl_torch_parts *parts)
{
    memset(parts, 0, sizeof *parts);
    if (!cost->known || !op->name)
        return false;
    const char *n = strncmp(op->name, "aten::", 6) == 0 ? op->name + 6 : op->name;
    bool ok = false;
    if (strcmp(n, "convolution_backward") == 0 && cost->flops > 0)
        ok = conv_backward(op, cost, parts);
    else if (strcmp(n, "addmm") == 0)
        ok = addmm(op, parts);
    if (!ok)
        memset(parts, 0, sizeof *parts);
    return ok;
}
