/* torchops.c - FLOPs and minimum bytes of PyTorch operators from their input shapes and dtypes, and the roof a kernel's name says it runs on.
 *
 * The table, each entry with its formula, derivation and source, is
 * documented in analyzer/readers/TORCH-OPS.md (keep the two in step):
 * FLOPs of the matrix products, convolutions and attention follow
 * PyTorch's own torch/utils/flop_counter.py (mm_flop, addmm_flop,
 * bmm_flop, baddbmm_flop, conv_flop_count, conv_backward_flop,
 * sdpa_flop_count, sdpa_backward_flop_count): a multiply-add is 2 FLOPs,
 * a bias add is not counted. Other operators get a per-element count
 * written at their entry. Bytes are the minimum: every input tensor read
 * once and every output written once, in their dtypes (analytic).
 * The trace records inputs only: outputs are inferred from the operator.
 */
#define _GNU_SOURCE
#include "analyzer/readers/torchops.h"
#include "analyzer/readers/torchops-llm.h"

#include "analyzer/profiler/nccl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---------------------------------------------------------------- */

static const struct {
    const char *type, *name;
    int bytes;
} dtypes[] = {
    {"float", "fp32", 4},          {"double", "fp64", 8},
    {"c10::Half", "fp16", 2},      {"c10::BFloat16", "bf16", 2},
    {"c10::Float8_e4m3fn", "fp8", 1}, {"c10::Float8_e5m2", "fp8", 1},
    {"c10::Float8_e4m3fnuz", "fp8", 1}, {"c10::Float8_e5m2fnuz", "fp8", 1},
    {"long int", "int64", 8},      {"long", "int64", 8},
    {"int64_t", "int64", 8},       {"int", "int32", 4},
    {"short int", "int16", 2},     {"short", "int16", 2},
    {"signed char", "int8", 1},    {"unsigned char", "uint8", 1},
    {"bool", "bool", 1},           {"c10::complex<float>", "complex64", 8},
    {"unsigned short", "uint16", 2}, {"unsigned int", "uint32", 4},
    {"unsigned long", "uint64", 8}, {"c10::Float8_e8m0fnu", "e8m0", 1},
    /* two FP4 values a byte: its dims count bytes (pairs), see scaled_mm */
    {"c10::Float4_e2m1fn_x2", "fp4", 1},
    {"c10::complex<double>", "complex128", 16}, {"c10::complex<c10::Half>", "complex32", 4},
    /* ScalarType names (older traces, record_param_comms) */
    {"Float", "fp32", 4},          {"Double", "fp64", 8},
    {"Half", "fp16", 2},           {"BFloat16", "bf16", 2},
    {"Long", "int64", 8},          {"Int", "int32", 4},
    {"Bool", "bool", 1},           {"Byte", "uint8", 1},
    {"Char", "int8", 1},           {"Short", "int16", 2},
    {"UInt16", "uint16", 2},       {"UInt32", "uint32", 4},
    {"UInt64", "uint64", 8},
};

int rl_torch_dtype_bytes(const char *type)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (strcmp(type, dtypes[i].type) == 0)
            return dtypes[i].bytes;
    return 0;
}

const char *rl_torch_dtype_name(const char *type)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (strcmp(type, dtypes[i].type) == 0)
            return dtypes[i].name;
    return "";
}

/* c10::ScalarType codes as Concrete Inputs print a dtype argument: bytes
 * per element by code, in c10/core/ScalarType.h's order (TORCH-OPS.md,
 * "dtypes"). Sub-byte and packed types (QUInt4x2, Bits*, UInt1..7,
 * Int1..7, Float4_e2m1fn_x2) are stored one byte per element. */
static int scalar_type_bytes(int code)
{
    static const int bytes[] = {
        1, 1, 2, 4, 8,    /* 0 Byte 1 Char 2 Short 3 Int 4 Long */
        2, 4, 8,          /* 5 Half 6 Float 7 Double */
        4, 8, 16,         /* 8 ComplexHalf 9 ComplexFloat 10 ComplexDouble */
        1, 1, 1, 4,       /* 11 Bool 12 QInt8 13 QUInt8 14 QInt32 */
        2,                /* 15 BFloat16 */
        1, 1, 1, 1, 1, 1, /* 16 QUInt4x2 17 QUInt2x4 18 Bits1x8 19 Bits2x4 20 Bits4x2 21 Bits8 */
        2,                /* 22 Bits16 */
        1, 1, 1, 1,       /* 23 Float8_e5m2 24 Float8_e4m3fn 25 Float8_e5m2fnuz 26 Float8_e4m3fnuz */
        2, 4, 8,          /* 27 UInt16 28 UInt32 29 UInt64 */
        1, 1, 1, 1, 1, 1, 1, /* 30..36 UInt1..UInt7 */
        1, 1, 1, 1, 1, 1, 1, /* 37..43 Int1..Int7 */
        1,                /* 44 Float8_e8m0fnu */
        1,                /* 45 Float4_e2m1fn_x2 (two values a byte) */
    };
    return code >= 0 && code < (int)(sizeof bytes / sizeof *bytes) ? bytes[code] : 0;
}

/* ---- arguments ------------------------------------------------------------- */

static double numel(const struct rl_torch_tensor *t)
{
    if (t->ndim < 0)
        return NAN;
    double n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= (double)t->dims[i];
    return n;
}

/* Every helper below that takes an index takes any index: one past the
 * arguments, or NONE ((size_t)-1, "no such argument" in the table), reads
 * as absent (no tensor, 0 bytes, no Concrete Input), so callers pass NONE
 * through. Loops over every argument take the argument itself (tensor_of,
 * bytes_of). */
static const struct rl_torch_arg *arg(const struct rl_torch_op *op, size_t i)
{
    return i < op->n_args ? &op->args[i] : NULL;
}

/* An argument as one tensor, NULL otherwise. */
static const struct rl_torch_tensor *tensor_of(const struct rl_torch_arg *a)
{
    if (a->kind != RL_TORCH_ARG_TENSOR || !a->t || a->t->ndim < 0)
        return NULL;
    return a->t;
}

static const struct rl_torch_tensor *T(const struct rl_torch_op *op, size_t i)
{
    const struct rl_torch_arg *a = arg(op, i);
    return a ? tensor_of(a) : NULL;
}

static double E(const struct rl_torch_op *op, size_t i)
{
    const struct rl_torch_arg *a = arg(op, i);
    return a ? rl_torch_dtype_bytes(a->type) : 0;
}

/* Bytes of an argument: a tensor, or every tensor of a list (elem bytes
 * from its type, else `list_elem`). */
static double bytes_of(const struct rl_torch_arg *a, double list_elem)
{
    double e = rl_torch_dtype_bytes(a->type);
    if (a->kind == RL_TORCH_ARG_TENSOR && a->t)
        return numel(a->t) * e;
    if (a->kind == RL_TORCH_ARG_LIST) {
        double s = 0;
        for (size_t k = 0; k < a->n_tensors; k++)
            s += numel(&a->t[k]) * (e > 0 ? e : list_elem);
        return s;
    }
    return 0;
}

static double arg_bytes(const struct rl_torch_op *op, size_t i, double list_elem)
{
    const struct rl_torch_arg *a = arg(op, i);
    return a ? bytes_of(a, list_elem) : 0;
}

static double list_numel(const struct rl_torch_op *op, size_t i)
{
    const struct rl_torch_arg *a = arg(op, i);
    if (!a || a->kind != RL_TORCH_ARG_LIST)
        return NAN;
    double s = 0;
    for (size_t k = 0; k < a->n_tensors; k++)
        s += numel(&a->t[k]);
    return s;
}

static const char *concrete(const struct rl_torch_op *op, size_t i)
{
    const struct rl_torch_arg *a = arg(op, i);
    return a && a->concrete ? a->concrete : "";
}

/* A Concrete Inputs boolean that is true ("True", "true", "1"); false,
 * absent or anything else is not. */
static bool flag(const struct rl_torch_op *op, size_t i)
{
    const char *c = concrete(op, i);
    return strcasecmp(c, "true") == 0 || strcmp(c, "1") == 0;
}

/* A Concrete Inputs integer list ("[1, 1]" or "1"): how many read, -1 none. */
static int int_list(const struct rl_torch_op *op, size_t i, long long *out, int max)
{
    const char *p = concrete(op, i);
    if (!*p)
        return -1;
    int n = 0;
    while (*p && n < max) {
        while (*p && !(isdigit((unsigned char)*p) || *p == '-'))
            p++;
        if (!*p)
            break;
        char *end;
        out[n++] = strtoll(p, &end, 10);
        if (end == p)
            break;
        p = end;
    }
    return n;
}

static void set_dtype(struct rl_torch_cost *c, const struct rl_torch_op *op, size_t i)
{
    const struct rl_torch_arg *a = arg(op, i);
    if (a)
        snprintf(c->dtype, sizeof c->dtype, "%s", rl_torch_dtype_name(a->type));
}

static bool fail(struct rl_torch_cost *c, const char *why)
{
    c->known = false;
    c->flops = c->bytes = NAN;
    snprintf(c->note, sizeof c->note, "%s", why);
    return false;
}

static bool done(struct rl_torch_cost *c, double flops, double bytes)
{
    if (!(flops >= 0) || !(bytes >= 0) || !isfinite(flops) || !isfinite(bytes))
        return fail(c, "shapes do not fit the formula");
    c->known = true;
    c->flops = flops;
    c->bytes = bytes;
    return true;
}

/* ---- matrix products (flop_counter: mm_flop, addmm_flop, bmm_flop;
 * TORCH-OPS.md "Matrix products") ------------------------------------------ */

/* [M,K] x [K,N]: 2MNK FLOPs; A, B read, C written. */
static bool mm(const struct rl_torch_op *op, struct rl_torch_cost *c, size_t a, size_t b,
               size_t bias)
{
    const struct rl_torch_tensor *x = T(op, a), *y = T(op, b);
    if (!x || !y || x->ndim != 2 || y->ndim != 2 || x->dims[1] != y->dims[0])
        return fail(c, "mm needs [M,K] x [K,N]");
    double m = (double)x->dims[0], k = (double)x->dims[1], n = (double)y->dims[1];
    c->matmul = true;
    set_dtype(c, op, a);
    double e = E(op, a);
    return done(c, 2 * m * n * k,
                m * k * e + k * n * E(op, b) + arg_bytes(op, bias, e) +
                    m * n * e);
}

/* [B,M,K] x [B,K,N]: 2BMNK. */
static bool bmm(const struct rl_torch_op *op, struct rl_torch_cost *c, size_t a, size_t b,
                size_t bias)
{
    const struct rl_torch_tensor *x = T(op, a), *y = T(op, b);
    if (!x || !y || x->ndim != 3 || y->ndim != 3 || x->dims[0] != y->dims[0] ||
        x->dims[2] != y->dims[1])
        return fail(c, "bmm needs [B,M,K] x [B,K,N]");
    double bt = (double)x->dims[0], m = (double)x->dims[1], k = (double)x->dims[2],
           n = (double)y->dims[2];
    c->matmul = true;
    set_dtype(c, op, a);
    double e = E(op, a);
    return done(c, 2 * bt * m * n * k,
                bt * (m * k * e + k * n * E(op, b) + m * n * e) +
                    arg_bytes(op, bias, e));
}

/* torch.matmul: 1-d operands become a row or a column, leading dims
 * broadcast. */
static bool matmul(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = T(op, 0), *y = T(op, 1);
    if (!x || !y || x->ndim < 1 || y->ndim < 1)
        return fail(c, "matmul needs two tensors");
    double m = x->ndim >= 2 ? (double)x->dims[x->ndim - 2] : 1;
    double k = (double)x->dims[x->ndim - 1];
    double k2 = y->ndim >= 2 ? (double)y->dims[y->ndim - 2] : (double)y->dims[0];
    double n = y->ndim >= 2 ? (double)y->dims[y->ndim - 1] : 1;
    if (k != k2)
        return fail(c, "matmul: inner dimensions differ");
    double batch = 1;
    int bx = x->ndim - 2, by = y->ndim - 2;
    for (int i = 0; i < (bx > by ? bx : by); i++) {
        double dx = i < bx ? (double)x->dims[bx - 1 - i] : 1;
        double dy = i < by ? (double)y->dims[by - 1 - i] : 1;
        if (dx != dy && dx != 1 && dy != 1)
            return fail(c, "matmul: batch dimensions do not broadcast");
        batch *= dx > dy ? dx : dy;
    }
    c->matmul = true;
    set_dtype(c, op, 0);
    double e = E(op, 0);
    return done(c, 2 * batch * m * n * k, numel(x) * e + numel(y) * E(op, 1) + batch * m * n * e);
}

/* linear(input [..., K], weight [N, K], bias [N]): M = input rows. */
static bool linear(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = T(op, 0), *w = T(op, 1);
    if (!x || !w || x->ndim < 1 || w->ndim != 2 || x->dims[x->ndim - 1] != w->dims[1])
        return fail(c, "linear needs [..., K] and [N, K]");
    double k = (double)w->dims[1], n = (double)w->dims[0], m = numel(x) / k;
    c->matmul = true;
    set_dtype(c, op, 0);
    double e = E(op, 0);
    return done(c, 2 * m * n * k, m * k * e + n * k * E(op, 1) + arg_bytes(op, 2, e) + m * n * e);
}

/* _scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result, out_dtype,
 * use_fast_accum): FP8 inputs; the output's dtype from out_dtype. */
static bool scaled_mm(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = T(op, 0), *y = T(op, 1);
    if (!x || !y || x->ndim != 2 || y->ndim != 2 || x->dims[1] != y->dims[0])
        return fail(c, "_scaled_mm needs [M,K] x [K,N]");
    /* Float4_e2m1fn_x2 packs two values a byte: the dims count bytes, K
     * is twice the stored inner dim (NVFP4 / MXFP4 GEMMs) */
    double pack = strcmp(arg(op, 0)->type, "c10::Float4_e2m1fn_x2") == 0 ? 2 : 1;
    double m = (double)x->dims[0], k = (double)x->dims[1] * pack, n = (double)y->dims[1];
    long long code;
    double out_e = int_list(op, 6, &code, 1) == 1 ? scalar_type_bytes((int)code) : 0;
    if (out_e <= 0) {
        out_e = 2;
        snprintf(c->note, sizeof c->note, "output dtype not in the trace: 2-byte output assumed");
    }
    c->matmul = true;
    set_dtype(c, op, 0);
    return done(c, 2 * m * n * k,
                numel(x) * E(op, 0) + numel(y) * E(op, 1) + arg_bytes(op, 2, 4) +
                    arg_bytes(op, 3, 4) + arg_bytes(op, 4, out_e) + m * n * out_e);
}

/* _grouped_mm(self, mat2, offs, bias, out_dtype) and
 * _scaled_grouped_mm(self, mat2, scale_a, scale_b, offs, bias,
 * scale_result, out_dtype, use_fast_accum): one GEMM per group (MoE
 * experts), 2MNK each, summed. The four layouts (offs the groups' ends
 * along the dim that is split):
 *   2d x 3d: A [M_total, K], B [G, K, N], offs on M: 2 M_total K N, out [M_total, N]
 *   3d x 2d: A [G, M, K], B [K, N_total], offs on N: 2 M K N_total, out [M, N_total]
 *   2d x 2d: A [M, K_total], B [K_total, N], offs on K: 2 M K_total N, out [G, M, N]
 *   3d x 3d: A [G, M, K], B [G, K, N]: 2 G M K N, out [G, M, N]
 * G in the 2d x 2d case is offs' length. Bytes: A, B (and scales, bias)
 * read, the output written in out_dtype (else self's dtype for
 * _grouped_mm, 2-byte for the scaled one, noted). */
static bool grouped_mm(const struct rl_torch_op *op, struct rl_torch_cost *c, bool scaled)
{
    const struct rl_torch_tensor *a = T(op, 0), *b = T(op, 1);
    size_t offs = scaled ? 4 : 2, bias = scaled ? 5 : 3, out_dtype = scaled ? 7 : 4;
    if (!a || !b || a->ndim < 2 || a->ndim > 3 || b->ndim < 2 || b->ndim > 3)
        return fail(c, "grouped mm needs 2-d or 3-d operands");
    const int64_t *A = a->dims, *B = b->dims;
    double pack = strcmp(arg(op, 0)->type, "c10::Float4_e2m1fn_x2") == 0 ? 2 : 1;
    double flops, out;
    if (a->ndim == 2 && b->ndim == 3 && A[1] == B[1]) {
        flops = 2.0 * (double)A[0] * (double)A[1] * pack * (double)B[2];
        out = (double)A[0] * (double)B[2];
    } else if (a->ndim == 3 && b->ndim == 2 && A[2] == B[0]) {
        flops = 2.0 * (double)A[1] * (double)A[2] * pack * (double)B[1];
        out = (double)A[1] * (double)B[1];
    } else if (a->ndim == 2 && b->ndim == 2 && A[1] == B[0] && T(op, offs)) {
        flops = 2.0 * (double)A[0] * (double)A[1] * pack * (double)B[1];
        out = numel(T(op, offs)) * (double)A[0] * (double)B[1];
    } else if (a->ndim == 3 && b->ndim == 3 && A[0] == B[0] && A[2] == B[1]) {
        flops = 2.0 * (double)A[0] * (double)A[1] * (double)A[2] * pack * (double)B[2];
        out = (double)A[0] * (double)A[1] * (double)B[2];
    } else {
        return fail(c, "grouped mm: operand shapes that do not chain");
    }
    long long code;
    double out_e = int_list(op, out_dtype, &code, 1) == 1 ? scalar_type_bytes((int)code) : 0;
    if (out_e <= 0 && !scaled)
        out_e = E(op, 0);
    if (out_e <= 0) {
        out_e = 2;
        snprintf(c->note, sizeof c->note, "output dtype not in the trace: 2-byte output assumed");
    }
    c->matmul = true;
    set_dtype(c, op, 0);
    double scales = scaled ? arg_bytes(op, 2, 4) + arg_bytes(op, 3, 4) : 0;
    return done(c, flops,
                numel(a) * E(op, 0) + numel(b) * E(op, 1) + scales + arg_bytes(op, offs, 4) +
                    arg_bytes(op, bias, out_e) + out * out_e);
}

/* "no such argument" in the tables below (NONE, defined with the table) */
#define NO_ARG ((size_t)-1)

/* ---- convolution (flop_counter: conv_flop_count, conv_backward_flop;
 * TORCH-OPS.md "Convolutions", with the one deliberate difference) ---------- */

struct conv_args {
    size_t input, weight, stride, padding, dilation, transposed, output_padding, groups;
    bool always_transposed; /* a *_transpose backend op: no flag argument */
};

/* conv_flop_count: 2 x N x prod(conv spatial) x W[0] x W[1] x prod(kernel)
 * where conv spatial is the output's, (H + 2p - d(k - 1) - 1) / s + 1, or
 * for a transposed one the input's. The weight is [C_out, C_in/groups, k]
 * ([C_in, C_out/groups, k] transposed), so groups are in W[1] already. The
 * output has C_out channels, W[1] x groups for a transposed one, of
 * spatial size (H - 1)s - 2p + d(k - 1) + output_padding + 1. */
static bool conv_shape(const struct rl_torch_op *op, const struct conv_args *a, double *flops,
                       double *out_numel, const char **why)
{
    const struct rl_torch_tensor *x = T(op, a->input), *w = T(op, a->weight);
    if (!x || !w || x->ndim < 3 || w->ndim != x->ndim) {
        *why = "convolution needs input [N, C, ...] and weight [C_out, C_in/groups, ...]";
        return false;
    }
    int sp = x->ndim - 2;
    /* zero-filled: an entry past a list's end is never read, but a wrong
     * index reads 0 (no output), not whatever the stack held */
    long long s[8] = {0}, p[8] = {0}, d[8] = {0};
    int ns = int_list(op, a->stride, s, 8), np = int_list(op, a->padding, p, 8),
        nd = int_list(op, a->dilation, d, 8);
    if (a->dilation == NO_ARG) /* the slow_conv*d / thnn ops take none: 1 */
        d[0] = 1, nd = 1;
    if (ns < 1 || np < 1 || nd < 1) {
        *why = "convolution: stride, padding or dilation not in the trace (Concrete Inputs)";
        return false;
    }
    bool transposed = a->always_transposed || flag(op, a->transposed);
    /* output_padding (extra rows on one side: only a transposed one's
     * output reads it) and groups; absent means 0 and 1. A list shorter
     * than the spatial dims repeats its last entry (one entry: every dim).
     * op_ has a slot per spatial dim (up to RL_TORCH_MAX_DIMS - 2). */
    long long op_[RL_TORCH_MAX_DIMS - 2] = {0}, opl[8] = {0}, g = 1;
    int nop = int_list(op, a->output_padding, opl, 8);
    for (int i = 0; i < sp && nop > 0; i++)
        op_[i] = opl[i < nop ? i : nop - 1];
    if (int_list(op, a->groups, &g, 1) == 1 && g < 1)
        g = 1;
    double groups = (double)g;
    double out_spatial = 1, kernel = 1, true_out = 1;
    for (int i = 0; i < sp; i++) {
        long long si = s[i < ns ? i : ns - 1], pi = p[i < np ? i : np - 1],
                  di = d[i < nd ? i : nd - 1];
        long long h = x->dims[2 + i], k = w->dims[2 + i];
        long long o = transposed ? (h - 1) * si - 2 * pi + di * (k - 1) + op_[i] + 1
                                 : si > 0 ? (h + 2 * pi - di * (k - 1) - 1) / si + 1 : 0;
        if (o <= 0) {
            *why = "convolution: no output for these shapes";
            return false;
        }
        /* flop_counter: the input's spatial size for a transposed one */
        out_spatial *= transposed ? (double)h : (double)o;
        kernel *= (double)k;
        true_out *= (double)o;
    }
    double n = (double)x->dims[0], cout = (double)w->dims[0], cin = (double)w->dims[1];
    *flops = 2 * n * out_spatial * cout * cin * kernel;
    *out_numel = n * (transposed ? (double)w->dims[1] * (double)groups : cout) * true_out;
    return true;
}

static bool conv(const struct rl_torch_op *op, struct rl_torch_cost *c, struct conv_args a,
                 size_t bias)
{
    double flops, out;
    const char *why;
    if (!conv_shape(op, &a, &flops, &out, &why))
        return fail(c, why);
    c->matmul = true; /* implicit GEMM: Tensor Cores where the kernel says */
    set_dtype(c, op, a.input);
    double e = E(op, a.input);
    return done(c, flops,
                numel(T(op, a.input)) * e + numel(T(op, a.weight)) * E(op, a.weight) +
                    arg_bytes(op, bias, e) + out * e);
}

/* convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask):
 * grad_input and grad_weight each cost the forward's FLOPs
 * (conv_backward_flop), as output_mask asks. */
static bool conv_backward(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    struct conv_args a = {1, 2, 4, 5, 6, 7, 8, 9, false};
    double flops, out;
    const char *why;
    if (!conv_shape(op, &a, &flops, &out, &why))
        return fail(c, why);
    long long mask[3] = {1, 1, 0};
    const char *m = concrete(op, 10);
    if (*m) { /* "[True, True, False]" */
        int k = 0;
        for (const char *p = m; *p && k < 3; p++)
            if (*p == 'T' || *p == 'F')
                mask[k++] = *p == 'T';
    }
    c->matmul = true;
    set_dtype(c, op, 1);
    double e = E(op, 1), gi = numel(T(op, 1)) * e, gw = numel(T(op, 2)) * E(op, 2);
    double go = arg_bytes(op, 0, e);
    return done(c, flops * (double)(mask[0] + mask[1]),
                go + gi + gw + (mask[0] ? gi : 0) + (mask[1] ? gw : 0));
}

/* ---- attention (flop_counter: sdpa_flop_count, sdpa_backward_flop_count;
 * TORCH-OPS.md "Attention") ------------------------------------------------ */

/* Q [B,H,Sq,D], K [B,H,Sk,D], V [B,H,Sk,Dv] (bshd: [B,S,H,D]): forward
 * 2 B H Sq Sk (D + Dv) (two matrix products, sdpa_flop_count), backward
 * 2 B H Sq Sk (3D + 2Dv) (five: the scores recomputed, dP, dV, dQ, dK;
 * sdpa_backward_flop_count); causal halves them (the kernels skip the
 * masked half: a choice of ours, flop_counter counts the full square). */
static bool sdpa(const struct rl_torch_op *op, struct rl_torch_cost *c, size_t q, bool bshd,
                 size_t causal_at, bool backward)
{
    const struct rl_torch_tensor *Q = T(op, q), *K = T(op, q + 1), *V = T(op, q + 2);
    if (!Q || !K || !V || Q->ndim != 4 || K->ndim != 4 || V->ndim != 4)
        return fail(c, "attention needs 4-d query, key and value");
    int s = bshd ? 1 : 2, h = bshd ? 2 : 1;
    double b = (double)Q->dims[0], heads = (double)Q->dims[h], sq = (double)Q->dims[s],
           sk = (double)K->dims[s], d = (double)Q->dims[3], dv = (double)V->dims[3];
    double flops = 2 * b * heads * sq * sk * (backward ? 3 * d + 2 * dv : d + dv);
    /* is_causal (a bool), or the efficient kernels' custom_mask_type: 1 or
     * 2 causal */
    if (flag(op, causal_at) || strcmp(concrete(op, causal_at), "2") == 0) {
        flops /= 2;
        snprintf(c->note, sizeof c->note, "causal: half the score matrix counted");
    }
    c->matmul = true;
    set_dtype(c, op, q);
    double e = E(op, q);
    double qb = numel(Q) * e, kb = numel(K) * E(op, q + 1), vb = numel(V) * E(op, q + 2);
    double ob = b * heads * sq * dv * e;
    if (!backward)
        return done(c, flops, qb + kb + vb + ob);
    /* grad_out, q, k, v, out read; grad_q, grad_k, grad_v written */
    return done(c, flops, ob + qb + kb + vb + ob + qb + kb + vb);
}

/* ---- elementwise, reductions, norms, copies (not in flop_counter; each
 * per-element count derived in TORCH-OPS.md) ------------------------------- */

/* The broadcast shape of every tensor argument: its element count. */
static double broadcast_numel(const struct rl_torch_op *op, bool *ok)
{
    int nd = 0;
    int64_t dims[RL_TORCH_MAX_DIMS] = {0};
    *ok = false;
    for (size_t i = 0; i < op->n_args; i++) {
        const struct rl_torch_tensor *t = tensor_of(&op->args[i]);
        if (!t)
            continue;
        *ok = true;
        for (int k = 0; k < t->ndim; k++) {
            int at = RL_TORCH_MAX_DIMS - t->ndim + k;
            int64_t v = t->dims[k];
            if (dims[at] == 0 || dims[at] == 1)
                dims[at] = v;
            else if (v != 1 && v != dims[at])
                return NAN;
        }
        if (t->ndim > nd)
            nd = t->ndim;
    }
    double n = 1;
    for (int k = RL_TORCH_MAX_DIMS - nd; k < RL_TORCH_MAX_DIMS; k++)
        n *= (double)dims[k];
    return n;
}

static double inputs_bytes(const struct rl_torch_op *op)
{
    double s = 0;
    for (size_t i = 0; i < op->n_args; i++)
        s += bytes_of(&op->args[i], 4);
    return s;
}

static size_t first_tensor(const struct rl_torch_op *op)
{
    for (size_t i = 0; i < op->n_args; i++)
        if (tensor_of(&op->args[i]))
            return i;
    return (size_t)-1;
}

/* Every tensor read once, the broadcast output written in the first
 * tensor's dtype; `per` FLOPs per output element. */
static bool eltwise(const struct rl_torch_op *op, struct rl_torch_cost *c, double per)
{
    bool ok;
    double n = broadcast_numel(op, &ok);
    size_t f = first_tensor(op);
    if (!ok || f == (size_t)-1 || isnan(n))
        return fail(c, "elementwise: no tensor, or shapes that do not broadcast");
    const char *nm = op->name + (strncmp(op->name, "aten::", 6) == 0 ? 6 : 0);
    /* where(condition, self, other): the output has self's dtype, not the
     * bool condition's */
    for (size_t i = f + 1; strcmp(nm, "where") == 0 && i < op->n_args; i++)
        if (tensor_of(&op->args[i])) {
            f = i;
            break;
        }
    set_dtype(c, op, f);
    /* comparisons write bool (whole names: "ge" is no prefix of "gelu") */
    double oe = strcmp(nm, "eq") == 0 || strcmp(nm, "ne") == 0 || strcmp(nm, "lt") == 0 ||
                        strcmp(nm, "gt") == 0 || strcmp(nm, "le") == 0 ||
                        strcmp(nm, "ge") == 0 ||
                        strcmp(nm, "isnan") == 0 || strcmp(nm, "logical_not") == 0
                    ? 1
                    : E(op, f);
    return done(c, per * n, inputs_bytes(op) + n * oe);
}

/* pow(self, exponent): per element the operations PyTorch's pow kernel
 * does for the exponent the trace gives (Concrete Inputs of a Scalar
 * exponent; aten/src/ATen/native/cuda/PowKernel.cu special-cases them):
 * 2 one multiply (x * x), 3 two, 0.5 one sqrt, -0.5 one rsqrt, -1 one
 * reciprocal, -2 two (a multiply and a reciprocal); any other exponent,
 * a tensor exponent or none given: 2 (the table's transcendental count,
 * exp(y log x) as one exp and one log would be more: TORCH-OPS.md). */
static bool pow_cost(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    double per = 2;
    const struct rl_torch_arg *e = arg(op, 1);
    if (e && e->kind == RL_TORCH_ARG_SCALAR && e->concrete && e->concrete[0]) {
        char *end;
        double x = strtod(e->concrete, &end);
        if (end != e->concrete && *end == 0) {
            if (x == 2 || x == 0.5 || x == -0.5 || x == -1)
                per = 1; /* 3 and -2: two operations, as the default */
            snprintf(c->note, sizeof c->note, "exponent %g from the trace", x);
        }
    }
    return eltwise(op, c, per);
}

/* A reduction over dim (Concrete Inputs) or all of the input: one FLOP per
 * input element, the input read, the reduced output written: in int64 for
 * argmax / argmin, values and int64 indices for max / min over a dim. */
static bool reduce(const struct rl_torch_op *op, struct rl_torch_cost *c, size_t dim_at)
{
    const char *nm = op->name + (strncmp(op->name, "aten::", 6) == 0 ? 6 : 0);
    const struct rl_torch_tensor *x = T(op, 0);
    if (!x)
        return fail(c, "reduction needs a tensor");
    double n = numel(x), out = 1;
    long long dims[RL_TORCH_MAX_DIMS];
    int nd = int_list(op, dim_at, dims, RL_TORCH_MAX_DIMS);
    if (nd > 0) {
        out = n;
        for (int i = 0; i < nd; i++) {
            long long d = dims[i] < 0 ? dims[i] + x->ndim : dims[i];
            if (d >= 0 && d < x->ndim && x->dims[d] > 0)
                out /= (double)x->dims[d];
        }
    }
    set_dtype(c, op, 0);
    double oe = E(op, 0);
    if (strcmp(nm, "argmax") == 0 || strcmp(nm, "argmin") == 0)
        oe = 8;
    else if (nd > 0 && (strcmp(nm, "max") == 0 || strcmp(nm, "min") == 0))
        oe += 8;
    return done(c, n, n * E(op, 0) + out * oe);
}

/* Normalizations and softmax: `per` FLOPs per element (TORCH-OPS.md: the
 * arithmetic of one pass, reductions included), the input read, the other
 * arguments (weights, bias; a backward's saved input and statistics) read,
 * an input-sized output written. */
static bool per_element(const struct rl_torch_op *op, struct rl_torch_cost *c, double per)
{
    const struct rl_torch_tensor *x = T(op, 0);
    if (!x)
        return fail(c, "needs a tensor first");
    double n = numel(x), e = E(op, 0);
    set_dtype(c, op, 0);
    double rest = 0;
    for (size_t i = 1; i < op->n_args; i++)
        rest += bytes_of(&op->args[i], e);
    return done(c, per * n, n * e + rest + n * e);
}

/* copy_(self, src): src read in its dtype, self written in its own. */
static bool copy_into(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *dst = T(op, 0), *src = T(op, 1);
    if (!dst || !src)
        return fail(c, "copy_ needs two tensors");
    set_dtype(c, op, 1);
    return done(c, 0, numel(src) * E(op, 1) + numel(dst) * E(op, 0));
}

/* _to_copy / to (self, dtype, ...): read, written in the new dtype. */
static bool to_copy(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = T(op, 0);
    if (!x)
        return fail(c, "needs a tensor");
    double e = E(op, 0), oe = 0;
    for (size_t i = 1; i < op->n_args && oe == 0; i++) {
        long long code;
        if (op->args[i].kind == RL_TORCH_ARG_SCALAR && int_list(op, i, &code, 1) == 1 &&
            strcmp(op->args[i].type, "ScalarType") == 0)
            oe = scalar_type_bytes((int)code);
    }
    if (oe == 0) {
        oe = e;
        snprintf(c->note, sizeof c->note, "target dtype not in the trace: the input's assumed");
    }
    set_dtype(c, op, 0);
    return done(c, 0, numel(x) * (e + oe));
}

/* Read every tensor input, write the same bytes (clone, contiguous, cat,
 * stack: the output holds what was read). */
static bool gather_copy(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    double b = inputs_bytes(op);
    size_t f = first_tensor(op);
    if (f == (size_t)-1 && !(op->n_args && op->args[0].kind == RL_TORCH_ARG_LIST))
        return fail(c, "needs a tensor");
    set_dtype(c, op, f == (size_t)-1 ? 0 : f);
    return done(c, 0, 2 * b);
}

/* fill_, zero_: the tensor written once. */
static bool fill(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *x = T(op, 0);
    if (!x)
        return fail(c, "needs a tensor");
    set_dtype(c, op, 0);
    return done(c, 0, numel(x) * E(op, 0));
}

/* embedding(weight [V, D], indices): the gathered rows read and written,
 * the indices read; no arithmetic. */
static bool embedding(const struct rl_torch_op *op, struct rl_torch_cost *c, bool bag)
{
    const struct rl_torch_tensor *w = T(op, 0), *idx = T(op, 1);
    if (!w || !idx || w->ndim != 2)
        return fail(c, "embedding needs weight [V, D] and indices");
    double d = (double)w->dims[1], n = numel(idx), e = E(op, 0);
    set_dtype(c, op, 0);
    if (!bag)
        return done(c, 0, n * E(op, 1) + 2 * n * d * e);
    /* embedding_bag(weight, indices, offsets, ...): rows summed into bags */
    const struct rl_torch_tensor *off = T(op, 2);
    double bags = off ? numel(off) : 1;
    return done(c, n * d, n * E(op, 1) + n * d * e + arg_bytes(op, 2, 8) + bags * d * e);
}

/* embedding_dense_backward(grad_output, indices, num_weights, ...): grad
 * rows read and added into the weight's gradient. */
static bool embedding_backward(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    const struct rl_torch_tensor *g = T(op, 0), *idx = T(op, 1);
    if (!g || !idx)
        return fail(c, "needs grad and indices");
    double n = numel(g), e = E(op, 0);
    long long v;
    double rows = int_list(op, 2, &v, 1) == 1 && v > 0 ? (double)v : 0;
    double d = g->ndim ? (double)g->dims[g->ndim - 1] : 1;
    set_dtype(c, op, 0);
    return done(c, n, n * e + numel(idx) * E(op, 1) + rows * d * e);
}

/* _foreach_<op>(list, [list | scalar] ...): elementwise over each list,
 * the first list written (in place, or a new one); `per` FLOPs per
 * element of the first list. TensorList arguments carry no dtype. */
static bool foreach_op(const struct rl_torch_op *op, struct rl_torch_cost *c, double per)
{
    double n = list_numel(op, 0);
    if (isnan(n))
        return fail(c, "_foreach_ needs a TensorList first");
    double e = E(op, 0) > 0 ? E(op, 0) : 4;
    if (E(op, 0) <= 0)
        snprintf(c->note, sizeof c->note, "4-byte elements assumed: a TensorList has no dtype");
    double b = 0;
    for (size_t i = 0; i < op->n_args; i++)
        b += bytes_of(&op->args[i], e);
    snprintf(c->dtype, sizeof c->dtype, "%s", e == 4 ? "fp32" : "");
    bool reduces = strstr(op->name, "norm") != NULL;
    return done(c, per * n, b + (reduces ? (double)op->args[0].n_tensors * e : n * e));
}

/* _fused_adam(w)_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
 * state_steps, ...): per element read p, g, m, v and write p, m, v; 15
 * FLOPs per element (m: 3, v: 4, bias-corrected denominator: 3, update:
 * 3, weight decay: 2). */
static bool fused_adam(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    double n = list_numel(op, 0);
    if (isnan(n))
        return fail(c, "_fused_adam_ needs TensorLists");
    double e = 4;
    snprintf(c->note, sizeof c->note, "4-byte elements assumed: a TensorList has no dtype");
    snprintf(c->dtype, sizeof c->dtype, "fp32");
    double amsgrad = list_numel(op, 4) > 0 ? 2 : 0;
    return done(c, 15 * n, n * e * (7 + amsgrad));
}

/* ---- the table (TORCH-OPS.md lists every entry: add one there too) ------- */

enum kind {
    K_MM, K_ADDMM, K_BMM, K_BADDBMM, K_MATMUL, K_LINEAR, K_SCALED_MM, K_GROUPED_MM,
    K_SCALED_GROUPED_MM,
    K_CONV, K_CONV_, K_CONV_ND, K_CUDNN_CONV, K_CUDNN_CONV_T, K_CUDNN_CONV_RELU,
    K_MIOPEN_CONV, K_MIOPEN_CONV_T, K_MKLDNN_CONV, K_SLOW_CONV, K_SLOW_CONV_DIL,
    K_SLOW_CONV_T, K_CONV_BW,
    K_SDPA_FLASH, K_SDPA_EFF, K_SDPA_CUDNN, K_FLASH_FWD, K_EFF_FWD,
    K_SDPA_FLASH_BW, K_SDPA_EFF_BW, K_SDPA_CUDNN_BW, K_FLASH_BW, K_EFF_BW,
    K_EMBED, K_EMBED_BW, K_EMBED_BAG,
    K_LAYER_NORM, K_LAYER_NORM_BW, K_RMS_NORM, K_GROUP_NORM, K_SOFTMAX, K_SOFTMAX_BW,
    K_ELT1, K_ELT2, K_ELT4, K_POW, K_REDUCE, K_COPY_INTO, K_TO, K_CLONE, K_FILL,
    K_FOREACH1, K_FOREACH2, K_ADAM
};

static const struct entry {
    const char *name; /* without "aten::" */
    enum kind kind;
} table[] = {
    {"mm", K_MM}, {"addmm", K_ADDMM}, {"bmm", K_BMM}, {"baddbmm", K_BADDBMM},
    {"matmul", K_MATMUL}, {"linear", K_LINEAR}, {"_scaled_mm", K_SCALED_MM},
    {"_grouped_mm", K_GROUPED_MM}, {"_scaled_grouped_mm", K_SCALED_GROUPED_MM},
    {"convolution", K_CONV}, {"_convolution", K_CONV_}, {"conv1d", K_CONV_ND},
    {"conv2d", K_CONV_ND}, {"conv3d", K_CONV_ND},
    /* every backend's convolution, each in its own argument order */
    {"cudnn_convolution", K_CUDNN_CONV}, {"cudnn_convolution_transpose", K_CUDNN_CONV_T},
    {"cudnn_convolution_relu", K_CUDNN_CONV_RELU},
    {"miopen_convolution", K_MIOPEN_CONV}, {"miopen_depthwise_convolution", K_MIOPEN_CONV},
    {"miopen_convolution_transpose", K_MIOPEN_CONV_T}, {"mkldnn_convolution", K_MKLDNN_CONV},
    {"_slow_conv2d_forward", K_SLOW_CONV}, {"thnn_conv2d", K_SLOW_CONV},
    {"slow_conv3d_forward", K_SLOW_CONV}, {"slow_conv3d", K_SLOW_CONV},
    {"_conv_depthwise2d", K_SLOW_CONV_DIL}, {"conv_depthwise3d", K_SLOW_CONV_DIL},
    {"slow_conv_dilated2d", K_SLOW_CONV_DIL}, {"slow_conv_dilated3d", K_SLOW_CONV_DIL},
    {"slow_conv_transpose2d", K_SLOW_CONV_T}, {"slow_conv_transpose3d", K_SLOW_CONV_T},
    {"convolution_backward", K_CONV_BW},
    {"_scaled_dot_product_flash_attention", K_SDPA_FLASH},
    {"_scaled_dot_product_efficient_attention", K_SDPA_EFF},
    {"_scaled_dot_product_cudnn_attention", K_SDPA_CUDNN},
    {"_flash_attention_forward", K_FLASH_FWD}, {"_efficient_attention_forward", K_EFF_FWD},
    {"_scaled_dot_product_flash_attention_backward", K_SDPA_FLASH_BW},
    {"_scaled_dot_product_efficient_attention_backward", K_SDPA_EFF_BW},
    {"_scaled_dot_product_cudnn_attention_backward", K_SDPA_CUDNN_BW},
    {"_flash_attention_backward", K_FLASH_BW}, {"_efficient_attention_backward", K_EFF_BW},
    {"embedding", K_EMBED}, {"embedding_dense_backward", K_EMBED_BW},
    {"embedding_bag", K_EMBED_BAG}, {"_embedding_bag", K_EMBED_BAG},
    {"layer_norm", K_LAYER_NORM}, {"native_layer_norm", K_LAYER_NORM},
    {"native_layer_norm_backward", K_LAYER_NORM_BW}, {"rms_norm", K_RMS_NORM},
    {"_fused_rms_norm", K_RMS_NORM}, {"group_norm", K_GROUP_NORM},
    {"native_group_norm", K_GROUP_NORM},
    {"softmax", K_SOFTMAX}, {"_softmax", K_SOFTMAX}, {"log_softmax", K_SOFTMAX},
    {"_log_softmax", K_SOFTMAX}, {"_softmax_backward_data", K_SOFTMAX_BW},
    {"_log_softmax_backward_data", K_SOFTMAX_BW},
    /* elementwise, 1 FLOP per output element */
    {"add", K_ELT1}, {"add_", K_ELT1}, {"sub", K_ELT1}, {"sub_", K_ELT1}, {"rsub", K_ELT1},
    {"mul", K_ELT1}, {"mul_", K_ELT1}, {"div", K_ELT1}, {"div_", K_ELT1}, {"neg", K_ELT1},
    {"relu", K_ELT1}, {"relu_", K_ELT1}, {"threshold_backward", K_ELT1}, {"clamp", K_ELT1},
    {"clamp_", K_ELT1}, {"where", K_ELT1}, {"masked_fill", K_ELT1}, {"masked_fill_", K_ELT1},
    {"eq", K_ELT1}, {"ne", K_ELT1}, {"lt", K_ELT1}, {"gt", K_ELT1}, {"le", K_ELT1},
    {"ge", K_ELT1}, {"abs", K_ELT1}, {"reciprocal", K_ELT1}, {"sqrt", K_ELT1},
    {"rsqrt", K_ELT1}, {"square", K_ELT1}, {"maximum", K_ELT1}, {"minimum", K_ELT1},
    {"dropout", K_ELT1}, {"native_dropout", K_ELT1}, {"native_dropout_backward", K_ELT1},
    {"isnan", K_ELT1}, {"logical_not", K_ELT1},
    /* two FLOPs per element: a fused multiply-add */
    {"addcmul", K_ELT2}, {"addcmul_", K_ELT2}, {"addcdiv", K_ELT2}, {"addcdiv_", K_ELT2},
    {"lerp", K_ELT2}, {"lerp_", K_ELT2}, {"exp", K_ELT2}, {"log", K_ELT2},
    {"sigmoid", K_ELT2}, {"tanh", K_ELT2},
    /* by the exponent: 1 for x^2 (one multiply), ... (pow_cost) */
    {"pow", K_POW}, {"pow_", K_POW},
    /* activations as their usual kernels evaluate them: ~4 FLOPs */
    {"gelu", K_ELT4}, {"gelu_backward", K_ELT4}, {"silu", K_ELT4}, {"silu_", K_ELT4},
    {"silu_backward", K_ELT4}, {"sigmoid_backward", K_ELT4}, {"tanh_backward", K_ELT4},
    /* reductions */
    {"sum", K_REDUCE}, {"mean", K_REDUCE}, {"amax", K_REDUCE}, {"max", K_REDUCE},
    {"min", K_REDUCE}, {"norm", K_REDUCE}, {"linalg_vector_norm", K_REDUCE},
    {"var", K_REDUCE}, {"std", K_REDUCE}, {"argmax", K_REDUCE}, {"argmin", K_REDUCE},
    /* copies and casts */
    {"copy_", K_COPY_INTO}, {"_to_copy", K_TO}, {"to", K_TO}, {"clone", K_CLONE},
    {"contiguous", K_CLONE}, {"cat", K_CLONE}, {"stack", K_CLONE}, {"_cat", K_CLONE},
    {"fill_", K_FILL}, {"zero_", K_FILL}, {"zeros_like", K_FILL}, {"ones_like", K_FILL},
    /* the optimizer's multi-tensor kernels */
    {"_foreach_add_", K_FOREACH1}, {"_foreach_add", K_FOREACH1}, {"_foreach_mul_", K_FOREACH1},
    {"_foreach_mul", K_FOREACH1}, {"_foreach_div_", K_FOREACH1}, {"_foreach_div", K_FOREACH1},
    {"_foreach_sub_", K_FOREACH1}, {"_foreach_sqrt", K_FOREACH1}, {"_foreach_sqrt_", K_FOREACH1},
    {"_foreach_neg", K_FOREACH1}, {"_foreach_copy_", K_FOREACH1}, {"_foreach_zero_", K_FOREACH1},
    {"_foreach_addcmul_", K_FOREACH2}, {"_foreach_addcdiv_", K_FOREACH2},
    {"_foreach_lerp_", K_FOREACH2}, {"_foreach_norm", K_FOREACH2},
    {"_fused_adam_", K_ADAM}, {"_fused_adamw_", K_ADAM}, {"_fused_adam", K_ADAM},
    {"_fused_adamw", K_ADAM},
};

static const size_t NONE = (size_t)-1;

bool rl_torch_op_cost(const struct rl_torch_op *op, struct rl_torch_cost *c)
{
    memset(c, 0, sizeof *c);
    c->flops = c->bytes = NAN;
    const char *name = op->name ? op->name : "";
    if (strncmp(name, "aten::", 6) == 0)
        name += 6;
    const struct entry *e = NULL;
    for (size_t i = 0; i < sizeof table / sizeof *table && !e; i++)
        if (strcmp(table[i].name, name) == 0)
            e = &table[i];
    if (!e)
        return rl_torch_llm_op_cost(op, c); /* vLLM / SGLang custom operators */
    snprintf(c->formula, sizeof c->formula, "%s", e->name);
    switch (e->kind) {
    case K_MM: return mm(op, c, 0, 1, NONE);
    case K_ADDMM: return mm(op, c, 1, 2, 0);
    case K_BMM: return bmm(op, c, 0, 1, NONE);
    case K_BADDBMM: return bmm(op, c, 1, 2, 0);
    case K_MATMUL: return matmul(op, c);
    case K_LINEAR: return linear(op, c);
    case K_SCALED_MM: return scaled_mm(op, c);
    case K_GROUPED_MM: return grouped_mm(op, c, false);
    case K_SCALED_GROUPED_MM: return grouped_mm(op, c, true);
    /* The argument orders (native_functions.yaml; conv_args lists input,
     * weight, stride, padding, dilation, transposed, output_padding,
     * groups; the bias after):
     * convolution(input, weight, bias, stride, padding, dilation, transposed,
     * output_padding, groups); _convolution the same; conv2d(input, weight,
     * bias, stride, padding, dilation, groups); cudnn_convolution(input,
     * weight, padding, stride, dilation, groups, ...);
     * cudnn_convolution_transpose(input, weight, padding, output_padding,
     * stride, dilation, groups, ...); cudnn_convolution_relu(input, weight,
     * bias, stride, padding, dilation, groups); miopen_convolution and
     * miopen_depthwise_convolution(input, weight, bias, padding, stride,
     * dilation, groups, ...) - padding before stride, as MI300X traces
     * show (tests/data/torch-real, its parent convolution's stride [2, 2]
     * at index 4); miopen_convolution_transpose(input, weight, bias,
     * padding, output_padding, stride, dilation, groups, ...);
     * mkldnn_convolution(input, weight, bias, padding, stride, dilation,
     * groups); _slow_conv2d_forward, thnn_conv2d, slow_conv3d(_forward)
     * (input, weight, kernel_size, bias, stride, padding): dilation 1;
     * _conv_depthwise2d, conv_depthwise3d, slow_conv_dilated2d/3d (input,
     * weight, kernel_size, bias, stride, padding, dilation);
     * slow_conv_transpose2d/3d (input, weight, kernel_size, bias, stride,
     * padding, output_padding, dilation) */
    case K_CONV:
    case K_CONV_: return conv(op, c, (struct conv_args){0, 1, 3, 4, 5, 6, 7, 8, false}, 2);
    case K_CONV_ND:
        return conv(op, c, (struct conv_args){0, 1, 3, 4, 5, NONE, NONE, 6, false}, 2);
    case K_CUDNN_CONV:
        return conv(op, c, (struct conv_args){0, 1, 3, 2, 4, NONE, NONE, 5, false}, NONE);
    case K_CUDNN_CONV_T:
        return conv(op, c, (struct conv_args){0, 1, 4, 2, 5, NONE, 3, 6, true}, NONE);
    case K_CUDNN_CONV_RELU:
        return conv(op, c, (struct conv_args){0, 1, 3, 4, 5, NONE, NONE, 6, false}, 2);
    case K_MIOPEN_CONV:
    case K_MKLDNN_CONV:
        return conv(op, c, (struct conv_args){0, 1, 4, 3, 5, NONE, NONE, 6, false}, 2);
    case K_MIOPEN_CONV_T:
        return conv(op, c, (struct conv_args){0, 1, 5, 3, 6, NONE, 4, 7, true}, 2);
    case K_SLOW_CONV:
        return conv(op, c, (struct conv_args){0, 1, 4, 5, NONE, NONE, NONE, NONE, false}, 3);
    case K_SLOW_CONV_DIL:
        return conv(op, c, (struct conv_args){0, 1, 4, 5, 6, NONE, NONE, NONE, false}, 3);
    case K_SLOW_CONV_T:
        return conv(op, c, (struct conv_args){0, 1, 4, 5, 7, NONE, 6, NONE, true}, 3);
    case K_CONV_BW: return conv_backward(op, c);
    /* (query, key, value, dropout_p, is_causal, ...) [B, H, S, D] */
    case K_SDPA_FLASH: return sdpa(op, c, 0, false, 4, false);
    /* (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...) */
    case K_SDPA_EFF:
    case K_SDPA_CUDNN: return sdpa(op, c, 0, false, 6, false);
    /* (query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
     * is_causal, ...) [B, S, H, D] */
    case K_FLASH_FWD: return sdpa(op, c, 0, true, 8, false);
    /* (query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
     * max_seqlen_k, dropout_p, custom_mask_type, ...) [B, S, H, D] */
    case K_EFF_FWD: return sdpa(op, c, 0, true, 9, false);
    /* (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k,
     * max_q, max_k, dropout_p, is_causal, ...) */
    case K_SDPA_FLASH_BW: return sdpa(op, c, 1, false, 11, true);
    /* (grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed,
     * philox_offset, dropout_p, grad_input_mask, is_causal, ...) */
    case K_SDPA_EFF_BW: return sdpa(op, c, 1, false, 11, true);
    /* (grad_out, query, key, value, out, logsumexp, philox_seed,
     * philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k,
     * dropout_p, is_causal, ...) */
    case K_SDPA_CUDNN_BW: return sdpa(op, c, 1, false, 14, true);
    case K_FLASH_BW: return sdpa(op, c, 1, true, 11, true);
    /* (grad_out, query, key, value, bias, out, cu_seqlens_q, cu_seqlens_k,
     * max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed,
     * philox_offset, custom_mask_type, ...) */
    case K_EFF_BW: return sdpa(op, c, 1, true, 14, true);
    case K_EMBED: return embedding(op, c, false);
    case K_EMBED_BW: return embedding_backward(op, c);
    case K_EMBED_BAG: return embedding(op, c, true);
    /* layer norm: mean (1), variance (2), normalize (2), affine (2) = 7 */
    case K_LAYER_NORM: return per_element(op, c, 7);
    /* its backward: grad (the first) read, the saved input, mean, rstd,
     * weight and bias read as arguments, grad_input written; ~10 per element */
    case K_LAYER_NORM_BW: return per_element(op, c, 10);
    /* RMS norm: square-sum (2), scale (1), weight (1) = 4 */
    case K_RMS_NORM: return per_element(op, c, 4);
    case K_GROUP_NORM: return per_element(op, c, 7);
    /* softmax: max (1), subtract (1), exp (1), sum (1), divide (1) = 5 */
    case K_SOFTMAX: return per_element(op, c, 5);
    /* (grad_output, output, dim, input_dtype): both read, grad written; 3 */
    case K_SOFTMAX_BW: return per_element(op, c, 3);
    case K_ELT1: return eltwise(op, c, 1);
    case K_ELT2: return eltwise(op, c, 2);
    case K_ELT4: return eltwise(op, c, 4);
    case K_POW: return pow_cost(op, c);
    /* (self, dim, ...); norm and linalg_vector_norm (self, p, dim, ...) */
    case K_REDUCE:
        return reduce(op, c, strcmp(name, "norm") == 0 || strcmp(name, "linalg_vector_norm") == 0
                                 ? 2 : 1);
    case K_COPY_INTO: return copy_into(op, c);
    case K_TO: return to_copy(op, c);
    case K_CLONE: return gather_copy(op, c);
    case K_FILL: return fill(op, c);
    case K_FOREACH1: return foreach_op(op, c, 1);
    case K_FOREACH2: return foreach_op(op, c, 2);
    case K_ADAM: return fused_adam(op, c);
    }
    return false;
}

bool rl_torch_op_matmul(const char *name)
{
    name = name ? name : "";
    const char *replay = strstr(name, " graph replay) "); /* "(CUDA graph replay) aten::mm" */
    if (name[0] == '(' && replay)
        name = replay + 15;
    if (strncmp(name, "aten::", 6) == 0)
        name += 6;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].kind <= K_EFF_BW; /* products, convolutions, attention */
    return rl_torch_llm_op_matmul(name); /* a fused MoE */
}

bool rl_torch_comm_message(const struct rl_torch_op *op, char *collective, size_t size,
                           double *bytes)
{
    *bytes = NAN;
    const char *name = op->name ? op->name : "";
    /* PyTorch's c10d collectives carry record_param_comms: its message */
    if (strncmp(name, "c10d::", 6) == 0 || strncmp(name, "nccl:", 5) == 0 ||
        strcmp(name, "record_param_comms") == 0 ||
        !rl_comm_recognize(NULL, name, collective, size) || !collective[0])
        return false;
    /* all-gather's message is the gathered output (nccl-tests), which the
     * inputs do not give; DeepEP's dispatch / combine move what their
     * routing says, not their inputs */
    if (strcmp(collective, "allgather") == 0 || strncmp(name, "deep_ep", 7) == 0)
        return true;
    size_t f = first_tensor(op);
    const struct rl_torch_arg *a = f == (size_t)-1 ? NULL : &op->args[f];
    double e = a ? rl_torch_dtype_bytes(a->type) : 0;
    if (a && e > 0)
        *bytes = numel(a->t) * e;
    return true;
}
