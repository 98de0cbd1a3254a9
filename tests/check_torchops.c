/* check_torchops.c - tests of the PyTorch operator table (FLOPs, minimum bytes, dtype from input shapes) and of the roof a kernel's name says. */
#include "test_util.h"

#include "analyzer/readers/torchops.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/profiler/nccl.h"
#include "analyzer/readers/torch.h"
#include "analyzer/report/report.h"
#include "analyzer/report/step.h"
#include "analyzer/util/error.h"

#include <dirent.h>

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One argument as a trace records it: its kind, "Input type", dims (a
 * tensor) or tensors (a list), and "Concrete Inputs". */
struct spec {
    enum rl_torch_arg_kind kind;
    const char *type;
    int ndim;
    int64_t dims[RL_TORCH_MAX_DIMS];
    size_t n_list;
    const struct rl_torch_tensor *list;
    const char *concrete;
};

#define BF16 "c10::BFloat16"
#define F16 "c10::Half"
#define F32 "float"
#define E4M3 "c10::Float8_e4m3fn"
#define I64 "long int"
#define I32 "int"
#define FP4X2 "c10::Float4_e2m1fn_x2"

#define TEN(ty, nd, ...) {.kind = RL_TORCH_ARG_TENSOR, .type = ty, .ndim = nd, .dims = {__VA_ARGS__}}
/* A 0-d tensor (a scale). */
#define TEN0(ty) {.kind = RL_TORCH_ARG_TENSOR, .type = ty, .ndim = 0}
#define SCA(ty, c) {.kind = RL_TORCH_ARG_SCALAR, .type = ty, .concrete = c}
#define NIL {.kind = RL_TORCH_ARG_NONE, .type = ""}
#define LIST(arr) \
    {.kind = RL_TORCH_ARG_LIST, .type = "TensorList", .n_list = sizeof arr / sizeof *arr, .list = arr}
#define EMPTY_LIST {.kind = RL_TORCH_ARG_LIST, .type = "TensorList", .n_list = 0}

/* The cost of operator `name` over the n arguments of s. Each array the
 * table reads (the arguments, each tensor, each list) is its own heap
 * block of exactly its size, so that a read one past the end is an
 * AddressSanitizer error, not a read of the last call's leftovers. */
static bool cost_of(const char *name, const struct spec *s, size_t n, struct rl_torch_cost *c)
{
    struct rl_torch_arg *args = n ? calloc(n, sizeof *args) : NULL;
    ck_assert(!n || args);
    for (size_t i = 0; i < n; i++) {
        args[i].kind = s[i].kind;
        snprintf(args[i].type, sizeof args[i].type, "%s", s[i].type);
        args[i].concrete = s[i].concrete ? s[i].concrete : "";
        if (s[i].kind == RL_TORCH_ARG_TENSOR) {
            struct rl_torch_tensor *t = malloc(sizeof *t);
            ck_assert_ptr_nonnull(t);
            t->ndim = s[i].ndim;
            memcpy(t->dims, s[i].dims, sizeof t->dims);
            args[i].t = t;
            args[i].n_tensors = 1;
        } else if (s[i].kind == RL_TORCH_ARG_LIST && s[i].n_list) {
            struct rl_torch_tensor *t = malloc(s[i].n_list * sizeof *t);
            ck_assert_ptr_nonnull(t);
            memcpy(t, s[i].list, s[i].n_list * sizeof *t);
            args[i].t = t;
            args[i].n_tensors = s[i].n_list;
        }
    }
    struct rl_torch_op op = {.name = name, .n_args = n, .args = args, .profiler_flops = NAN};
    bool ok = rl_torch_op_cost(&op, c);
    for (size_t i = 0; i < n; i++)
        free((void *)args[i].t);
    free(args);
    ck_assert(ok == c->known);
    return ok;
}

#define COST(c, name, ...)                                                      \
    cost_of(name, (const struct spec[]){__VA_ARGS__},                          \
            sizeof((const struct spec[]){__VA_ARGS__}) / sizeof(struct spec), c)

/* Known, with these FLOPs, bytes and dtype. */
#define ck_cost(c, f, b, dt)                    \
    do {                                        \
        ck_assert((c).known);                   \
        ck_assert_double_eq((c).flops, (f));    \
        ck_assert_double_eq((c).bytes, (b));    \
        ck_assert_str_eq((c).dtype, (dt));      \
    } while (0)

/* Refused: unknown or shapes that do not fit. */
#define ck_refused(c)                      \
    do {                                   \
        ck_assert(!(c).known);             \
        ck_assert(isnan((c).flops));       \
        ck_assert(isnan((c).bytes));       \
    } while (0)

/* ---- matrix products ------------------------------------------------------- */

START_TEST(mm_bf16)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::mm", TEN(BF16, 2, 2048, 4096), TEN(BF16, 2, 4096, 14336)));
    /* 2MNK; A [2048,4096], B [4096,14336] read and C [2048,14336] written, 2 bytes */
    ck_cost(c, 2.0 * 2048 * 4096 * 14336, (2048.0 * 4096 + 4096.0 * 14336 + 2048.0 * 14336) * 2,
            "bf16");
    ck_assert(c.matmul);
    ck_assert_str_eq(c.formula, "mm");
    ck_assert_str_eq(c.note, "");
}
END_TEST

START_TEST(addmm_reads_the_bias)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::addmm", TEN(BF16, 1, 14336), TEN(BF16, 2, 2048, 4096),
                   TEN(BF16, 2, 4096, 14336), SCA("Scalar", "1"), SCA("Scalar", "1")));
    /* as mm (the bias add not counted) + the bias [14336] read, 2 bytes */
    ck_cost(c, 2.0 * 2048 * 4096 * 14336,
            (2048.0 * 4096 + 4096.0 * 14336 + 2048.0 * 14336) * 2 + 14336.0 * 2, "bf16");
    ck_assert(c.matmul);
}
END_TEST

START_TEST(bmm_and_baddbmm)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::bmm", TEN(F16, 3, 8, 128, 64), TEN(F16, 3, 8, 64, 256)));
    /* 2BMNK = 2*8*128*256*64; per batch A 128x64, B 64x256, C 128x256, 2 bytes */
    ck_cost(c, 2.0 * 8 * 128 * 256 * 64, 8.0 * (128 * 64 + 64 * 256 + 128 * 256) * 2, "fp16");
    ck_assert(c.matmul);
    ck_assert(COST(&c, "aten::baddbmm", TEN(F32, 3, 8, 128, 256), TEN(F32, 3, 8, 128, 64),
                   TEN(F32, 3, 8, 64, 256), SCA("Scalar", "1"), SCA("Scalar", "1")));
    /* the same FLOPs in fp32 (4 bytes) + the [8,128,256] bias read */
    ck_cost(c, 2.0 * 8 * 128 * 256 * 64,
            8.0 * (128 * 64 + 64 * 256 + 128 * 256) * 4 + 8.0 * 128 * 256 * 4, "fp32");
    /* batches differ */
    ck_assert(!COST(&c, "aten::bmm", TEN(F16, 3, 8, 128, 64), TEN(F16, 3, 4, 64, 256)));
    ck_refused(c);
    /* refused: no first or second operand, a 2-d one, inner dims 64 and 63 */
    ck_assert(!COST(&c, "aten::bmm", NIL, TEN(F16, 3, 8, 64, 256)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::bmm", TEN(F16, 3, 8, 128, 64), NIL));
    ck_refused(c);
    /* (2-d operands whose other dims would pass: [8, 128] x [8, 0, 256] and
     * [8, 128, 64] x [8, 64]) */
    ck_assert(!COST(&c, "aten::bmm", TEN(F16, 2, 8, 128), TEN(F16, 3, 8, 0, 256)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::bmm", TEN(F16, 3, 8, 128, 64), TEN(F16, 2, 8, 64)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::bmm", TEN(F16, 3, 8, 128, 64), TEN(F16, 3, 8, 63, 256)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "bmm needs [B,M,K] x [B,K,N]");
    /* mm the same: no first or second operand, a 3-d one */
    ck_assert(!COST(&c, "aten::mm", NIL, TEN(F16, 2, 64, 256)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::mm", TEN(F16, 2, 128, 64), NIL));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::mm", TEN(F16, 3, 1, 128, 64), TEN(F16, 2, 64, 256)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::mm", TEN(F16, 2, 128, 64), TEN(F16, 3, 64, 256, 1)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "mm needs [M,K] x [K,N]");
}
END_TEST

START_TEST(matmul_broadcasts_and_takes_vectors)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::matmul", TEN(F32, 3, 4, 32, 64), TEN(F32, 2, 64, 16)));
    /* the [64,16] broadcast over batch 4: 2*4*32*16*64; x, y read once,
     * out [4,32,16] written; 4 bytes */
    ck_cost(c, 2.0 * 4 * 32 * 16 * 64, (4.0 * 32 * 64 + 64 * 16 + 4 * 32 * 16) * 4, "fp32");
    ck_assert(c.matmul);
    /* 1-d first: a row [1,64] x [64,16] -> 16; 2*16*64 */
    ck_assert(COST(&c, "aten::matmul", TEN(F32, 1, 64), TEN(F32, 2, 64, 16)));
    ck_cost(c, 2.0 * 16 * 64, (64.0 + 64 * 16 + 16) * 4, "fp32");
    /* 1-d second: a column; [4,32,64] x [64] -> [4,32]; 2*4*32*64 */
    ck_assert(COST(&c, "aten::matmul", TEN(F32, 3, 4, 32, 64), TEN(F32, 1, 64)));
    ck_cost(c, 2.0 * 4 * 32 * 64, (4.0 * 32 * 64 + 64 + 4 * 32) * 4, "fp32");
    /* batch 2 against 3 does not broadcast; inner 64 against 32 differs */
    ck_assert(!COST(&c, "aten::matmul", TEN(F32, 3, 2, 32, 64), TEN(F32, 3, 3, 64, 16)));
    ck_assert(!COST(&c, "aten::matmul", TEN(F32, 2, 32, 64), TEN(F32, 2, 32, 16)));
    ck_refused(c);
    /* 2-d x 2-d: [8, 16] x [16, 4]: 2 x 8 x 4 x 16 = 1024 FLOPs, bytes
     * (128 + 64 + 32) x 4 = 896 */
    ck_assert(COST(&c, "aten::matmul", TEN(F32, 2, 8, 16), TEN(F32, 2, 16, 4)));
    ck_cost(c, 1024.0, 896.0, "fp32");
    /* the batch from the second: [32, 64] x [4, 64, 16] is 4 products of
     * 32 x 16 x 64: 262144 FLOPs, bytes (2048 + 4096 + 4 x 32 x 16) x 4 =
     * 32768 */
    ck_assert(COST(&c, "aten::matmul", TEN(F32, 2, 32, 64), TEN(F32, 3, 4, 64, 16)));
    ck_cost(c, 262144.0, 32768.0, "fp32");
    /* two batch dims each, matched from the innermost: [2, 3, 4, 5] x
     * [2, 3, 5, 6]: batch 3 x 2 = 6, 2 x 6 x 4 x 6 x 5 = 1440 FLOPs, bytes
     * (120 + 180 + 6 x 4 x 6) x 4 = 1776 */
    ck_assert(COST(&c, "aten::matmul", TEN(F32, 4, 2, 3, 4, 5), TEN(F32, 4, 2, 3, 5, 6)));
    ck_cost(c, 1440.0, 1776.0, "fp32");
    /* no first operand */
    ck_assert(!COST(&c, "aten::matmul", NIL, TEN(F32, 2, 16, 4)));
    ck_refused(c);
    /* a 0-d operand (a scale) is no matrix: refused, either side */
    ck_assert(!COST(&c, "aten::matmul", TEN0(F32), TEN(F32, 2, 0, 5)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::matmul", TEN(F32, 2, 5, 0), TEN0(F32)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "matmul needs two tensors");
}
END_TEST

START_TEST(linear_3d_input)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::linear", TEN(BF16, 3, 4, 512, 1024), TEN(BF16, 2, 4096, 1024),
                   TEN(BF16, 1, 4096)));
    /* M = 4*512 = 2048 rows, N 4096, K 1024: 2MNK; input, weight, bias read,
     * out [2048,4096] written, 2 bytes */
    ck_cost(c, 2.0 * 2048 * 4096 * 1024,
            (2048.0 * 1024 + 4096.0 * 1024 + 4096 + 2048.0 * 4096) * 2, "bf16");
    ck_assert(c.matmul);
    /* without the bias: 4096*2 bytes fewer */
    ck_assert(COST(&c, "aten::linear", TEN(BF16, 3, 4, 512, 1024), TEN(BF16, 2, 4096, 1024),
                   NIL));
    ck_cost(c, 2.0 * 2048 * 4096 * 1024, (2048.0 * 1024 + 4096.0 * 1024 + 2048.0 * 4096) * 2,
            "bf16");
    /* weight [N,K] with K 512 against the input's 1024 */
    ck_assert(!COST(&c, "aten::linear", TEN(BF16, 3, 4, 512, 1024), TEN(BF16, 2, 1024, 512)));
    /* a 1-d input [64] is one row: x [16, 64]^T: 2 x 1 x 16 x 64 = 2048
     * FLOPs; bytes (64 + 16 x 64 + 16) x 4 = 4416 */
    ck_assert(COST(&c, "aten::linear", TEN(F32, 1, 64), TEN(F32, 2, 16, 64), NIL));
    ck_cost(c, 2048.0, 4416.0, "fp32");
    /* the same without a third argument at all (no bias read) */
    ck_assert(COST(&c, "aten::linear", TEN(F32, 1, 64), TEN(F32, 2, 16, 64)));
    ck_cost(c, 2048.0, 4416.0, "fp32");
    /* refused: no input, no weight, a 3-d weight, a 0-d input */
    ck_assert(!COST(&c, "aten::linear", NIL, TEN(F32, 2, 16, 64)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::linear", TEN(F32, 2, 2, 64), NIL));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::linear", TEN(F32, 2, 2, 64), TEN(F32, 3, 16, 64, 1)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::linear", TEN0(F32), TEN(F32, 2, 16, 0)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "linear needs [..., K] and [N, K]");
}
END_TEST

START_TEST(scaled_mm_fp8_out_dtype)
{
    struct rl_torch_cost c;
    /* (self, mat2, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum) */
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), TEN(E4M3, 2, 256, 512),
                   TEN0(F32), TEN0(F32), NIL, NIL, SCA("ScalarType", "15"),
                   SCA("bool", "False")));
    /* 2*128*512*256; A, B 1 byte each, two fp32 scales (4 + 4), the output
     * [128,512] bf16 (ScalarType 15) 2 bytes */
    ck_cost(c, 2.0 * 128 * 512 * 256, 128.0 * 256 + 256.0 * 512 + 4 + 4 + 128.0 * 512 * 2, "fp8");
    ck_assert(c.matmul);
    ck_assert_str_eq(c.note, "");
    /* a bias [512] bf16 is read too: 512 x 2 bytes more */
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), TEN(E4M3, 2, 256, 512),
                   TEN0(F32), TEN0(F32), TEN(BF16, 1, 512), NIL, SCA("ScalarType", "15"),
                   SCA("bool", "False")));
    ck_cost(c, 2.0 * 128 * 512 * 256,
            128.0 * 256 + 256.0 * 512 + 4 + 4 + 512.0 * 2 + 128.0 * 512 * 2, "fp8");
    /* out_dtype 6 (float): a 4-byte output */
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), TEN(E4M3, 2, 256, 512),
                   TEN0(F32), TEN0(F32), NIL, NIL, SCA("ScalarType", "6"),
                   SCA("bool", "False")));
    ck_cost(c, 2.0 * 128 * 512 * 256, 128.0 * 256 + 256.0 * 512 + 4 + 4 + 128.0 * 512 * 4, "fp8");
    /* no out_dtype: 2 bytes assumed, and said */
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), TEN(E4M3, 2, 256, 512),
                   TEN0(F32), TEN0(F32)));
    ck_cost(c, 2.0 * 128 * 512 * 256, 128.0 * 256 + 256.0 * 512 + 4 + 4 + 128.0 * 512 * 2, "fp8");
    ck_assert_str_eq(c.note, "output dtype not in the trace: 2-byte output assumed");
    /* refused: no first or second matrix, a 3-d one, inner dims 256 and 255 */
    ck_assert(!COST(&c, "aten::_scaled_mm", NIL, TEN(E4M3, 2, 256, 512)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), NIL));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::_scaled_mm", TEN(E4M3, 3, 1, 128, 256), TEN(E4M3, 2, 256, 512)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), TEN(E4M3, 3, 256, 512, 1)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 128, 256), TEN(E4M3, 2, 255, 512)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "_scaled_mm needs [M,K] x [K,N]");
    /* operands of other widths read in their own: A [16, 32] bf16 (512 x
     * 2), B [32, 8] fp32 (256 x 4), two fp32 scales, out [16, 8] bf16 (128
     * x 2): 1024 + 1024 + 8 + 256 = 2312 bytes; 2 x 16 x 8 x 32 = 8192 */
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(BF16, 2, 16, 32), TEN(F32, 2, 32, 8), TEN0(F32),
                   TEN0(F32), NIL, NIL, SCA("ScalarType", "15")));
    ck_cost(c, 8192.0, 2312.0, "bf16");
}
END_TEST

/* NVFP4 _scaled_mm: Float4_e2m1fn_x2 packs two values a byte, so A's
 * stored [128, 2048] is K = 4096. 2 x 128 x 256 x 4096 = 268,435,456
 * FLOPs; bytes: A 128 x 2048 = 262,144, B [2048, 256] 524,288, the block
 * scales (1 per 16 values, E4M3) A [128, 256] 32,768 and B [256, 256]
 * 65,536, out [128, 256] bf16 65,536: 950,272. */
START_TEST(scaled_mm_fp4_packed)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(FP4X2, 2, 128, 2048), TEN(FP4X2, 2, 2048, 256),
                   TEN(E4M3, 2, 128, 256), TEN(E4M3, 2, 256, 256), NIL, NIL,
                   SCA("ScalarType", "15"), SCA("bool", "False")));
    ck_cost(c, 268435456.0, 950272.0, "fp4");
    ck_assert(c.matmul);
}
END_TEST

/* MoE grouped GEMMs, one layout each (grouped_mm in torchops.c). */
START_TEST(grouped_mm_layouts)
{
    struct rl_torch_cost c;
    /* _scaled_grouped_mm 2d x 3d: A [512, 1024] fp8, B [8, 1024, 2048] fp8,
     * scale_a [512] fp32, scale_b [8, 2048] fp32, offs [8] int32, out bf16.
     * FLOPs 2 x 512 x 1024 x 2048 = 2,147,483,648. Bytes: A 524,288 + B
     * 16,777,216 + 2,048 + 65,536 + offs 32 + out 512 x 2048 x 2 =
     * 2,097,152: 19,466,272 */
    ck_assert(COST(&c, "aten::_scaled_grouped_mm", TEN(E4M3, 2, 512, 1024),
                   TEN(E4M3, 3, 8, 1024, 2048), TEN(F32, 1, 512), TEN(F32, 2, 8, 2048),
                   TEN(I32, 1, 8), NIL, NIL, SCA("ScalarType", "15"), SCA("bool", "False")));
    ck_cost(c, 2147483648.0, 19466272.0, "fp8");
    ck_assert(c.matmul);
    /* _grouped_mm 3d x 3d bf16: [4, 64, 128] x [4, 128, 32]: 2 x 4 x 64 x
     * 128 x 32 = 2,097,152; 65,536 + 32,768 + out 4 x 64 x 32 x 2 = 16,384:
     * 114,688 (no out_dtype: self's) */
    ck_assert(COST(&c, "aten::_grouped_mm", TEN(BF16, 3, 4, 64, 128), TEN(BF16, 3, 4, 128, 32)));
    ck_cost(c, 2097152.0, 114688.0, "bf16");
    /* 2d x 2d, offs on K (4 groups): [64, 256] x [256, 32]: 2 x 64 x 256 x
     * 32 = 1,048,576; 32,768 + 16,384 + offs 16 + out [4, 64, 32] 16,384:
     * 65,552 */
    ck_assert(COST(&c, "aten::_grouped_mm", TEN(BF16, 2, 64, 256), TEN(BF16, 2, 256, 32),
                   TEN(I32, 1, 4)));
    ck_cost(c, 1048576.0, 65552.0, "bf16");
    /* 3d x 2d, offs on N: [4, 64, 128] x [128, 96]: 2 x 64 x 128 x 96 =
     * 1,572,864; 65,536 + 24,576 + out [64, 96] 12,288: 102,400 */
    ck_assert(COST(&c, "aten::_grouped_mm", TEN(BF16, 3, 4, 64, 128), TEN(BF16, 2, 128, 96)));
    ck_cost(c, 1572864.0, 102400.0, "bf16");
    /* no out_dtype for the scaled one: 2 bytes, said */
    ck_assert(COST(&c, "aten::_scaled_grouped_mm", TEN(E4M3, 3, 2, 16, 32),
                   TEN(E4M3, 3, 2, 32, 8), TEN(F32, 1, 32), TEN(F32, 1, 16)));
    ck_cost(c, 2.0 * 2 * 16 * 32 * 8, 2 * 16 * 32 + 2 * 32 * 8 + 32 * 4 + 16 * 4 + 2 * 16 * 8 * 2.0,
            "fp8");
    ck_assert_str_eq(c.note, "output dtype not in the trace: 2-byte output assumed");
    /* refused: K that do not chain, 2d x 2d without offs, a 1-d operand */
    ck_assert(!COST(&c, "aten::_grouped_mm", TEN(BF16, 2, 64, 256), TEN(BF16, 3, 4, 255, 32)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "grouped mm: operand shapes that do not chain");
    ck_assert(!COST(&c, "aten::_grouped_mm", TEN(BF16, 2, 64, 256), TEN(BF16, 2, 256, 32)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::_grouped_mm", TEN(BF16, 1, 64), TEN(BF16, 2, 64, 32)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::_grouped_mm", TEN(BF16, 3, 4, 64, 128), TEN(BF16, 3, 5, 128, 32)));
    ck_refused(c);
}
END_TEST

/* pow by its exponent (issue 32 (9)): x^2 is one multiply a element, not
 * two. x [1024] fp32: 1024 x 4 read, 1024 x 4 written = 8192 bytes. */
START_TEST(pow_counts_by_exponent)
{
    struct rl_torch_cost c;
    static const struct {
        const char *exponent;
        double per;
    } want[] = {{"2", 1}, {"2.0", 1}, {"0.5", 1}, {"-0.5", 1}, {"-1", 1},
                {"3", 2}, {"-2", 2}, {"2.5", 2}, {"x", 2},    {"", 2}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        ck_assert(COST(&c, "aten::pow", TEN(F32, 1, 1024), SCA("Scalar", want[i].exponent)));
        ck_assert_msg(c.flops == 1024 * want[i].per, "pow(x, %s): %g FLOPs", want[i].exponent,
                      c.flops);
        ck_assert_double_eq(c.bytes, 8192);
        ck_assert(!c.matmul);
    }
    /* the exponent said in the note when it was read */
    ck_assert(COST(&c, "aten::pow", TEN(F32, 1, 1024), SCA("Scalar", "2")));
    ck_assert_str_eq(c.note, "exponent 2 from the trace");
    /* in place, and a tensor exponent (read too: 2 x 4096 + 4096 written) */
    ck_assert(COST(&c, "aten::pow_", TEN(BF16, 1, 1024), SCA("Scalar", "2")));
    ck_cost(c, 1024.0, 1024.0 * 2 * 2, "bf16");
    ck_assert(COST(&c, "aten::pow", TEN(F32, 1, 1024), TEN(F32, 1, 1024)));
    ck_cost(c, 2048.0, 3 * 4096.0, "fp32");
}
END_TEST

/* Every backend's convolution in its own argument order (issue 32 (7)). */
START_TEST(backend_convolutions)
{
    struct rl_torch_cost c, parent;
    /* A real MI300X call (tests/data/torch-real/
     * tracelens_mi300x_resnet_act_checkpoint.json.gz, External id 1085 and
     * its miopen_convolution 1091): input [10,256,14,14] bf16, weight
     * [512,256,3,3], stride 2, padding 1: out (14 + 2 - 2 - 1) / 2 + 1 = 7.
     * FLOPs 2 x 10 x 49 x 512 x 256 x 9 = 1,156,055,040; bytes input
     * 1,003,520 + weight 2,359,296 + out [10,512,7,7] 501,760 = 3,864,576 */
    ck_assert(COST(&parent, "aten::convolution", TEN(BF16, 4, 10, 256, 14, 14),
                   TEN(BF16, 4, 512, 256, 3, 3), NIL, SCA("ScalarList", "[2, 2]"),
                   SCA("ScalarList", "[1, 1]"), SCA("ScalarList", "[1, 1]"),
                   SCA("Scalar", "False"), SCA("ScalarList", "[0, 0]"), SCA("Scalar", "1")));
    ck_cost(parent, 1156055040.0, 3864576.0, "bf16");
    /* miopen_convolution(input, weight, bias, padding, stride, dilation,
     * groups, benchmark, deterministic), as the trace writes it */
    ck_assert(COST(&c, "aten::miopen_convolution", TEN(BF16, 4, 10, 256, 14, 14),
                   TEN(BF16, 4, 512, 256, 3, 3), NIL, SCA("ScalarList", "[1, 1]"),
                   SCA("ScalarList", "[2, 2]"), SCA("ScalarList", "[1, 1]"), SCA("Scalar", "1"),
                   SCA("Scalar", "False"), SCA("Scalar", "False")));
    ck_cost(c, 1156055040.0, 3864576.0, "bf16");
    ck_assert(c.matmul);
    /* mkldnn's and miopen's depthwise take the same order; a bias [512]
     * read: 1,024 bytes more */
    ck_assert(COST(&c, "aten::mkldnn_convolution", TEN(BF16, 4, 10, 256, 14, 14),
                   TEN(BF16, 4, 512, 256, 3, 3), TEN(BF16, 1, 512), SCA("", "[1, 1]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "1")));
    ck_cost(c, 1156055040.0, 3864576.0 + 1024, "bf16");
    ck_assert(COST(&c, "aten::miopen_depthwise_convolution", TEN(BF16, 4, 10, 256, 14, 14),
                   TEN(BF16, 4, 512, 256, 3, 3), NIL, SCA("", "[1, 1]"), SCA("", "[2, 2]"),
                   SCA("", "[1, 1]"), SCA("", "1")));
    ck_cost(c, 1156055040.0, 3864576.0, "bf16");
    /* cudnn_convolution_relu(input, weight, bias, stride, padding, ...) */
    ck_assert(COST(&c, "aten::cudnn_convolution_relu", TEN(BF16, 4, 10, 256, 14, 14),
                   TEN(BF16, 4, 512, 256, 3, 3), NIL, SCA("", "[2, 2]"), SCA("", "[1, 1]"),
                   SCA("", "[1, 1]"), SCA("", "1")));
    ck_cost(c, 1156055040.0, 3864576.0, "bf16");
    /* transposed: input [1,16,8,8] fp32, weight [16,8,3,3], stride 2,
     * padding 1, output_padding 1: out (8 - 1) 2 - 2 + 2 + 1 + 1 = 16;
     * FLOPs (flop_counter: the input's spatial size) 2 x 64 x 16 x 8 x 9 =
     * 147,456; bytes 4,096 + 4,608 + out [1,8,16,16] 8,192 = 16,896 */
    ck_assert(COST(&parent, "aten::convolution", TEN(F32, 4, 1, 16, 8, 8),
                   TEN(F32, 4, 16, 8, 3, 3), NIL, SCA("", "[2, 2]"), SCA("", "[1, 1]"),
                   SCA("", "[1, 1]"), SCA("", "True"), SCA("", "[1, 1]"), SCA("", "1")));
    ck_cost(parent, 147456.0, 16896.0, "fp32");
    /* cudnn_convolution_transpose(input, weight, padding, output_padding,
     * stride, dilation, groups, ...) */
    ck_assert(COST(&c, "aten::cudnn_convolution_transpose", TEN(F32, 4, 1, 16, 8, 8),
                   TEN(F32, 4, 16, 8, 3, 3), SCA("", "[1, 1]"), SCA("", "[1, 1]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "1")));
    ck_cost(c, 147456.0, 16896.0, "fp32");
    /* miopen_convolution_transpose(input, weight, bias, padding,
     * output_padding, stride, dilation, groups, ...) */
    ck_assert(COST(&c, "aten::miopen_convolution_transpose", TEN(F32, 4, 1, 16, 8, 8),
                   TEN(F32, 4, 16, 8, 3, 3), NIL, SCA("", "[1, 1]"), SCA("", "[1, 1]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "1")));
    ck_cost(c, 147456.0, 16896.0, "fp32");
    /* slow_conv_transpose2d(input, weight, kernel_size, bias, stride,
     * padding, output_padding, dilation) */
    ck_assert(COST(&c, "aten::slow_conv_transpose2d", TEN(F32, 4, 1, 16, 8, 8),
                   TEN(F32, 4, 16, 8, 3, 3), SCA("", "[3, 3]"), NIL, SCA("", "[2, 2]"),
                   SCA("", "[1, 1]"), SCA("", "[1, 1]"), SCA("", "[1, 1]")));
    ck_cost(c, 147456.0, 16896.0, "fp32");
    /* _slow_conv2d_forward(input, weight, kernel_size, bias, stride,
     * padding): no dilation (1). input [1,3,8,8] fp32, weight [4,3,3,3],
     * bias [4]: out 6 x 6; 2 x 36 x 4 x 3 x 9 = 7,776; bytes 768 + 432 +
     * 16 + 576 = 1,792 */
    ck_assert(COST(&c, "aten::_slow_conv2d_forward", TEN(F32, 4, 1, 3, 8, 8),
                   TEN(F32, 4, 4, 3, 3, 3), SCA("", "[3, 3]"), TEN(F32, 1, 4),
                   SCA("", "[1, 1]"), SCA("", "[0, 0]")));
    ck_cost(c, 7776.0, 1792.0, "fp32");
    /* _conv_depthwise2d(..., stride, padding, dilation): dilation 2 on the
     * same: out 8 - 4 = 4; 2 x 16 x 4 x 3 x 9 = 3,456; 768 + 432 + 16 + 256 */
    ck_assert(COST(&c, "aten::_conv_depthwise2d", TEN(F32, 4, 1, 3, 8, 8),
                   TEN(F32, 4, 4, 3, 3, 3), SCA("", "[3, 3]"), TEN(F32, 1, 4),
                   SCA("", "[1, 1]"), SCA("", "[0, 0]"), SCA("", "[2, 2]")));
    ck_cost(c, 3456.0, 1472.0, "fp32");
    /* the old reading of miopen's order (cuDNN's: padding at 2) refused it;
     * a miopen call without its lists still is */
    ck_assert(!COST(&c, "aten::miopen_convolution", TEN(BF16, 4, 10, 256, 14, 14),
                    TEN(BF16, 4, 512, 256, 3, 3), NIL));
    ck_refused(c);
}
END_TEST

/* ---- convolutions ---------------------------------------------------------- */

/* input [8,64,56,56], weight [128,64,3,3], stride 2, padding 1, dilation 1:
 * out (56 + 2 - 2 - 1) / 2 + 1 = 28; 2 N Ho Wo Cout Cin k*k */
#define CONV_FLOPS (2.0 * 8 * 28 * 28 * 128 * 64 * 9)
#define IN_B (8.0 * 64 * 56 * 56 * 2)
#define W_B (128.0 * 64 * 9 * 2)
#define OUT_B (8.0 * 128 * 28 * 28 * 2)

START_TEST(convolution_2d)
{
    struct rl_torch_cost c;
    /* (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups) */
    ck_assert(COST(&c, "aten::convolution", TEN(BF16, 4, 8, 64, 56, 56),
                   TEN(BF16, 4, 128, 64, 3, 3), TEN(BF16, 1, 128), SCA("", "[2, 2]"),
                   SCA("", "[1, 1]"), SCA("", "[1, 1]"), SCA("bool", "False"),
                   SCA("", "[0, 0]"), SCA("int", "1")));
    /* input, weight, bias [128] read, out [8,128,28,28] written; bf16 */
    ck_cost(c, CONV_FLOPS, IN_B + W_B + 128.0 * 2 + OUT_B, "bf16");
    ck_assert(c.matmul);
    /* dilation 2: (56 + 2 - 4 - 1) / 2 + 1 = 27 */
    ck_assert(COST(&c, "aten::convolution", TEN(BF16, 4, 8, 64, 56, 56),
                   TEN(BF16, 4, 128, 64, 3, 3), NIL, SCA("", "[2, 2]"), SCA("", "[1, 1]"),
                   SCA("", "[2, 2]"), SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1")));
    ck_cost(c, 2.0 * 8 * 27 * 27 * 128 * 64 * 9, IN_B + W_B + 8.0 * 128 * 27 * 27 * 2, "bf16");
    /* no stride in the trace: refused */
    ck_assert(!COST(&c, "aten::convolution", TEN(BF16, 4, 8, 64, 56, 56),
                    TEN(BF16, 4, 128, 64, 3, 3), NIL));
    ck_refused(c);
}
END_TEST

START_TEST(transposed_convolution_groups)
{
    struct rl_torch_cost c;
    /* ConvTranspose2d(64, 128, 4, stride 2, padding 1, output_padding 1,
     * groups 4): input [2,64,16,16], weight [C_in 64, C_out/groups 32, 4, 4].
     * conv_flop_count(transposed=True): prod(x spatial 16x16) x prod(k 4x4)
     * x N 2 x W[0] 64 x W[1] 32 x 2 = 256*16*2*64*32*2 = 33554432; the
     * output [2, 32*4 = 128, 33, 33] with (16-1)*2 - 2 + 3 + 1 + 1 = 33 */
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 4, 2, 64, 16, 16),
                   TEN(F32, 4, 64, 32, 4, 4), NIL, SCA("", "[2, 2]"), SCA("", "[1, 1]"),
                   SCA("", "[1, 1]"), SCA("bool", "True"), SCA("", "[1, 1]"), SCA("int", "4")));
    ck_cost(c, 33554432.0,
            (2.0 * 64 * 16 * 16 + 64.0 * 32 * 16 + 2.0 * 128 * 33 * 33) * 4, "fp32");
    /* groups 1, output_padding 0: out [2, 32, 32, 32]; FLOPs the same
     * formula (the weight's shape holds the groups) */
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 4, 2, 64, 16, 16),
                   TEN(F32, 4, 64, 32, 4, 4), NIL, SCA("", "[2, 2]"), SCA("", "[1, 1]"),
                   SCA("", "[1, 1]"), SCA("bool", "True"), SCA("", "[0, 0]"), SCA("int", "1")));
    ck_cost(c, 33554432.0,
            (2.0 * 64 * 16 * 16 + 64.0 * 32 * 16 + 2.0 * 32 * 32 * 32) * 4, "fp32");
}
END_TEST

/* Per-dimension lists: stride [1, 2], padding [2, 0], dilation [1, 2] on
 * input [1, 3, 10, 20] and weight [4, 3, 3, 5] (fp32):
 *   h: (10 + 2*2 - 1*(3 - 1) - 1) / 1 + 1 = 12
 *   w: (20 + 2*0 - 2*(5 - 1) - 1) / 2 + 1 = 11 / 2 + 1 = 6
 * FLOPs 2 x N 1 x (12 x 6) x C_out 4 x C_in 3 x k (3 x 5) = 25920; bytes
 * (in 600 + weight 180 + out 4 x 12 x 6 = 288 elements) x 4 = 4272.
 * A list shorter than the spatial dims repeats its last entry: a 3-d
 * convolution, input [1, 2, 4, 6, 8], weight [3, 2, 1, 3, 3], stride
 * [1, 2], padding [0, 1], dilation [1, 1] (the third dim: stride 2,
 * padding 1, dilation 1):
 *   d: (4 + 0 - 1 x 0 - 1) / 1 + 1 = 4, h: (6 + 2 - 2 - 1) / 2 + 1 = 3,
 *   w: (8 + 2 - 2 - 1) / 2 + 1 = 4
 * FLOPs 2 x 1 x (4 x 3 x 4) x 3 x 2 x (1 x 3 x 3) = 5184; bytes (in 384 +
 * weight 54 + out 3 x 48 = 144) x 4 = 2328. One padding entry, [1], pads
 * every dim: d (4 + 2 - 1) + 1 = 6, h 3, w 4: FLOPs 2 x 72 x 54 = 7776,
 * bytes (384 + 54 + 216) x 4 = 2616. A 3 x 3 kernel over a 2 x 2 input
 * leaves (2 - 2 - 1) / 1 + 1 = 0 rows: refused. */
START_TEST(convolution_lists_per_dim)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 4, 1, 3, 10, 20), TEN(F32, 4, 4, 3, 3, 5),
                   NIL, SCA("", "[1, 2]"), SCA("", "[2, 0]"), SCA("", "[1, 2]"),
                   SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1")));
    ck_cost(c, 25920.0, 4272.0, "fp32");
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 5, 1, 2, 4, 6, 8),
                   TEN(F32, 5, 3, 2, 1, 3, 3), NIL, SCA("", "[1, 2]"), SCA("", "[0, 1]"),
                   SCA("", "[1, 1]"), SCA("bool", "False"), SCA("", "[0]"), SCA("int", "1")));
    ck_cost(c, 5184.0, 2328.0, "fp32");
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 5, 1, 2, 4, 6, 8),
                   TEN(F32, 5, 3, 2, 1, 3, 3), NIL, SCA("", "[1, 2]"), SCA("", "[1]"),
                   SCA("", "[1, 1]"), SCA("bool", "False"), SCA("", "[0]"), SCA("int", "1")));
    ck_cost(c, 7776.0, 2616.0, "fp32");
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 2, 2), TEN(F32, 4, 1, 1, 3, 3),
                    NIL, SCA("", "[1, 1]"), SCA("", "[0, 0]"), SCA("", "[1, 1]"),
                    SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1")));
    ck_refused(c);
    ck_assert_str_eq(c.note, "convolution: no output for these shapes");
}
END_TEST

/* Transposed, with a padding of 2 and a dilation of 2 (where 2p and d(k-1)
 * are not p and k-1): ConvTranspose1d, input [1, 4, 5], weight
 * [C_in 4, C_out/groups 2, 3], stride 3, padding 2, dilation 2,
 * output_padding 1, groups 2: out (5 - 1) x 3 - 2 x 2 + 2 x (3 - 1) + 1 +
 * 1 = 14, channels 2 x 2 = 4. FLOPs (the input's spatial size):
 * 2 x 1 x 5 x 4 x 2 x 3 = 240; bytes (in 20 + weight 24 + out 4 x 14 = 56)
 * x 4 = 400.
 * Per-dimension lists, 2-d: input [1, 2, 3, 4], weight [2, 1, 2, 2],
 * stride [2, 3], padding [0, 1], dilation [1], output_padding [1, 0]:
 *   h: (3 - 1) x 2 - 0 + 1 x 1 + 1 + 1 = 7
 *   w: (4 - 1) x 3 - 2 + 1 x 1 + 0 + 1 = 9
 * FLOPs 2 x 1 x (3 x 4) x 2 x 1 x (2 x 2) = 192; bytes (in 24 + weight 8 +
 * out 1 x 7 x 9 = 63) x 4 = 380. One output_padding entry, [1], pads both:
 * w (4 - 1) x 3 - 2 + 1 + 1 + 1 = 10, out 70, bytes (24 + 8 + 70) x 4 =
 * 408. An output_padding with no number ("[]") and groups 0 count as 0 and
 * 1: h (3 - 1) x 2 + 1 + 1 = 6, w (4 - 1) x 3 - 2 + 1 + 1 = 9: out 54,
 * bytes (24 + 8 + 54) x 4 = 344.
 * Ten spatial dims, the most a tensor holds (a 12-d input, every size 1;
 * stride 1, padding 0, dilation 1, output_padding [0]): each dim (1 - 1)
 * x 1 - 0 + 1 x 0 + 0 + 1 = 1; FLOPs 2 x 1 x 1 x 1 x 1 x 1 = 2, bytes
 * (1 + 1 + 1) x 4 = 12. */
START_TEST(transposed_convolution_padding)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 3, 1, 4, 5), TEN(F32, 3, 4, 2, 3), NIL,
                   SCA("", "[3]"), SCA("", "[2]"), SCA("", "[2]"), SCA("bool", "True"),
                   SCA("", "[1]"), SCA("int", "2")));
    ck_cost(c, 240.0, 400.0, "fp32");
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 4, 1, 2, 3, 4), TEN(F32, 4, 2, 1, 2, 2),
                   NIL, SCA("", "[2, 3]"), SCA("", "[0, 1]"), SCA("", "[1]"),
                   SCA("bool", "True"), SCA("", "[1, 0]"), SCA("int", "1")));
    ck_cost(c, 192.0, 380.0, "fp32");
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 4, 1, 2, 3, 4), TEN(F32, 4, 2, 1, 2, 2),
                   NIL, SCA("", "[2, 3]"), SCA("", "[0, 1]"), SCA("", "[1]"),
                   SCA("bool", "True"), SCA("", "[]"), SCA("int", "0")));
    ck_cost(c, 192.0, 344.0, "fp32");
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 4, 1, 2, 3, 4), TEN(F32, 4, 2, 1, 2, 2),
                   NIL, SCA("", "[2, 3]"), SCA("", "[0, 1]"), SCA("", "[1]"),
                   SCA("bool", "True"), SCA("", "[1]"), SCA("int", "1")));
    ck_cost(c, 192.0, 408.0, "fp32");
    ck_assert(COST(&c, "aten::convolution", TEN(F32, 12, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
                   TEN(F32, 12, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), NIL, SCA("", "[1]"),
                   SCA("", "[0]"), SCA("", "[1]"), SCA("bool", "True"), SCA("", "[0]"),
                   SCA("int", "1")));
    ck_cost(c, 2.0, 12.0, "fp32");
}
END_TEST

START_TEST(cudnn_convolution_argument_order)
{
    struct rl_torch_cost c;
    /* (input, weight, padding, stride, dilation, groups, benchmark,
     * deterministic, allow_tf32): padding before stride; swapped, the
     * output would be (56 + 4 - 2 - 1) / 1 + 1 = 58 */
    ck_assert(COST(&c, "aten::cudnn_convolution", TEN(BF16, 4, 8, 64, 56, 56),
                   TEN(BF16, 4, 128, 64, 3, 3), SCA("", "[1, 1]"), SCA("", "[2, 2]"),
                   SCA("", "[1, 1]"), SCA("int", "1"), SCA("bool", "False"),
                   SCA("bool", "False"), SCA("bool", "True")));
    /* no bias argument */
    ck_cost(c, CONV_FLOPS, IN_B + W_B + OUT_B, "bf16");
}
END_TEST

START_TEST(convolution_backward_output_mask)
{
    struct rl_torch_cost c;
    /* (grad_output, input, weight, bias_sizes, stride, padding, dilation,
     * transposed, output_padding, groups, output_mask) */
    ck_assert(COST(&c, "aten::convolution_backward", TEN(BF16, 4, 8, 128, 28, 28),
                   TEN(BF16, 4, 8, 64, 56, 56), TEN(BF16, 4, 128, 64, 3, 3), SCA("", "[128]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "[1, 1]"),
                   SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1"),
                   SCA("", "[True, True, False]")));
    /* grad_input and grad_weight: 2x the forward; grad_output, input, weight
     * read, grad_input (input-sized) and grad_weight (weight-sized) written */
    ck_cost(c, 2 * CONV_FLOPS, OUT_B + IN_B + W_B + IN_B + W_B, "bf16");
    ck_assert(c.matmul);
    /* grad_weight only: 1x, no grad_input written */
    ck_assert(COST(&c, "aten::convolution_backward", TEN(BF16, 4, 8, 128, 28, 28),
                   TEN(BF16, 4, 8, 64, 56, 56), TEN(BF16, 4, 128, 64, 3, 3), SCA("", "[128]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "[1, 1]"),
                   SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1"),
                   SCA("", "[False, True, False]")));
    ck_cost(c, CONV_FLOPS, OUT_B + IN_B + W_B + W_B, "bf16");
    /* grad_input only; a fourth letter is past the mask (3 outputs) */
    ck_assert(COST(&c, "aten::convolution_backward", TEN(BF16, 4, 8, 128, 28, 28),
                   TEN(BF16, 4, 8, 64, 56, 56), TEN(BF16, 4, 128, 64, 3, 3), SCA("", "[128]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "[1, 1]"),
                   SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1"),
                   SCA("", "[True, False, True, True]")));
    ck_cost(c, CONV_FLOPS, OUT_B + IN_B + W_B + IN_B, "bf16");
    /* no output_mask: [True, True, False] */
    ck_assert(COST(&c, "aten::convolution_backward", TEN(BF16, 4, 8, 128, 28, 28),
                   TEN(BF16, 4, 8, 64, 56, 56), TEN(BF16, 4, 128, 64, 3, 3), SCA("", "[128]"),
                   SCA("", "[2, 2]"), SCA("", "[1, 1]"), SCA("", "[1, 1]"),
                   SCA("bool", "False"), SCA("", "[0, 0]"), SCA("int", "1")));
    ck_cost(c, 2 * CONV_FLOPS, OUT_B + IN_B + W_B + IN_B + W_B, "bf16");
    /* no stride: refused */
    ck_assert(!COST(&c, "aten::convolution_backward", TEN(BF16, 4, 8, 128, 28, 28),
                    TEN(BF16, 4, 8, 64, 56, 56), TEN(BF16, 4, 128, 64, 3, 3)));
    ck_refused(c);
}
END_TEST

/* ---- attention ------------------------------------------------------------- */

/* q, k, v [B=2, H=16, S=1024, D=64] bf16: each 2*16*1024*64*2 bytes */
#define QKV_B (2.0 * 16 * 1024 * 64 * 2)

START_TEST(sdpa_flash_causal_and_not)
{
    struct rl_torch_cost c;
    /* refused: a missing or 3-d query, key or value */
    static const char *const flash = "aten::_scaled_dot_product_flash_attention";
    ck_assert(!COST(&c, flash, NIL, TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64)));
    ck_refused(c);
    ck_assert(!COST(&c, flash, TEN(BF16, 4, 2, 16, 1024, 64), NIL, TEN(BF16, 4, 2, 16, 1024, 64)));
    ck_refused(c);
    ck_assert(!COST(&c, flash, TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64), NIL));
    ck_refused(c);
    ck_assert(!COST(&c, flash, TEN(BF16, 3, 2, 16, 1024), TEN(BF16, 4, 2, 16, 1024, 64),
                    TEN(BF16, 4, 2, 16, 1024, 64)));
    ck_refused(c);
    ck_assert(!COST(&c, flash, TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 3, 2, 16, 1024),
                    TEN(BF16, 4, 2, 16, 1024, 64)));
    ck_refused(c);
    ck_assert(!COST(&c, flash, TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                    TEN(BF16, 3, 2, 16, 1024)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "attention needs 4-d query, key and value");
    /* (query, key, value, dropout_p, is_causal, return_debug_mask, scale) */
    ck_assert(COST(&c, "aten::_scaled_dot_product_flash_attention",
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                   TEN(BF16, 4, 2, 16, 1024, 64), SCA("float", "0."), SCA("bool", "False"),
                   SCA("bool", "False"), NIL));
    /* QK^T and PV: 2 B H S S (D + Dv) = 4*2*16*1024*1024*64; q, k, v read,
     * out [2,16,1024,64] written */
    ck_cost(c, 4.0 * 2 * 16 * 1024 * 1024 * 64, 4 * QKV_B, "bf16");
    ck_assert(c.matmul);
    ck_assert_str_eq(c.note, "");
    ck_assert(COST(&c, "aten::_scaled_dot_product_flash_attention",
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                   TEN(BF16, 4, 2, 16, 1024, 64), SCA("float", "0."), SCA("bool", "True")));
    /* causal: half, the same bytes */
    ck_cost(c, 2.0 * 2 * 16 * 1024 * 1024 * 64, 4 * QKV_B, "bf16");
    ck_assert_str_eq(c.note, "causal: half the score matrix counted");
}
END_TEST

START_TEST(sdpa_other_lengths_and_value_width)
{
    struct rl_torch_cost c;
    /* Sq 128, Sk 256, D 64, Dv 32: 2*1*1*128*256*(64+32); q 128*64, k 256*64,
     * v 256*32 read, out 128*32 written; fp16 */
    ck_assert(COST(&c, "aten::_scaled_dot_product_flash_attention",
                   TEN(F16, 4, 1, 1, 128, 64), TEN(F16, 4, 1, 1, 256, 64),
                   TEN(F16, 4, 1, 1, 256, 32), SCA("float", "0."), SCA("bool", "False")));
    ck_cost(c, 2.0 * 128 * 256 * 96, (128.0 * 64 + 256 * 64 + 256 * 32 + 128 * 32) * 2, "fp16");
}
END_TEST

START_TEST(sdpa_flash_backward_five_products)
{
    struct rl_torch_cost c;
    /* (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k,
     * max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale) */
    ck_assert(COST(&c, "aten::_scaled_dot_product_flash_attention_backward",
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(F32, 3, 2, 16, 1024), NIL, NIL,
                   SCA("int", "1024"), SCA("int", "1024"), SCA("float", "0."),
                   SCA("bool", "False"), TEN0(I64), TEN0(I64), NIL));
    /* sdpa_backward_flop_count: five bmm_flop of 2 B H S S D each (scores
     * recomputed, dP, dV, dQ, dK) = 10 B H S S D, 2.5x the forward (an
     * earlier 2x, 8 B H S S D, disagreed with flop_counter); grad_out, q,
     * k, v, out read, dq, dk, dv written: 8 q-sized tensors */
    ck_cost(c, 10.0 * 2 * 16 * 1024 * 1024 * 64, 8 * QKV_B, "bf16");
    /* causal at 11: half of that */
    ck_assert(COST(&c, "aten::_scaled_dot_product_flash_attention_backward",
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(BF16, 4, 2, 16, 1024, 64),
                   TEN(BF16, 4, 2, 16, 1024, 64), TEN(F32, 3, 2, 16, 1024), NIL, NIL,
                   SCA("int", "1024"), SCA("int", "1024"), SCA("float", "0."),
                   SCA("bool", "True")));
    ck_cost(c, 5.0 * 2 * 16 * 1024 * 1024 * 64, 8 * QKV_B, "bf16");
    /* Dv != D (efficient attention, [B,H,S,D]: (grad_out, query, key,
     * value, attn_bias, out, logsumexp, philox_seed, philox_offset,
     * dropout_p, grad_input_mask, is_causal)): B 1, H 8, Sq 256, Sk 512,
     * D 64, Dv 128: 2*1*8*256*512*(3*64 + 2*128) = 939524096 by hand */
    ck_assert(COST(&c, "aten::_scaled_dot_product_efficient_attention_backward",
                   TEN(F16, 4, 1, 8, 256, 128), TEN(F16, 4, 1, 8, 256, 64),
                   TEN(F16, 4, 1, 8, 512, 64), TEN(F16, 4, 1, 8, 512, 128), NIL,
                   TEN(F16, 4, 1, 8, 256, 128), TEN(F32, 3, 1, 8, 256), TEN0(I64), TEN0(I64),
                   SCA("float", "0."), SCA("", "[True, True, True, False]"),
                   SCA("bool", "False")));
    /* q 131072, k 262144, v 524288, out 262144 elements, 2 bytes:
     * out (as grad_out) + q + k + v + out read, dq dk dv written */
    ck_cost(c, 939524096.0,
            (262144.0 + 131072 + 262144 + 524288 + 262144 + 131072 + 262144 + 524288) * 2,
            "fp16");
}
END_TEST

/* The efficient kernels say causal by custom_mask_type: 0 none, 1 and 2
 * causal (top-left, bottom-right). q, k, v [B 1, S 128, H 4, D 32] fp16
 * (bshd): forward 2 x 1 x 4 x 128 x 128 x (32 + 32) = 8388608 FLOPs,
 * causal half; q, k, v read and out written, 128 x 4 x 32 x 2 = 32768
 * bytes each: 131072. Backward 2 x 4 x 16384 x (3 x 32 + 2 x 32) =
 * 20971520 FLOPs, causal half; grad_out, q, k, v, out read, dq, dk, dv
 * written: 8 x 32768 = 262144 bytes. */
START_TEST(efficient_attention_mask_type)
{
    struct rl_torch_cost c;
    static const char *const types[] = {"0", "1", "2"};
    for (int t = 0; t < 3; t++) {
        double half = t ? 0.5 : 1;
        /* (query, key, value, bias, cu_seqlens_q, cu_seqlens_k,
         * max_seqlen_q, max_seqlen_k, dropout_p, custom_mask_type, ...) */
        ck_assert(COST(&c, "aten::_efficient_attention_forward", TEN(F16, 4, 1, 128, 4, 32),
                       TEN(F16, 4, 1, 128, 4, 32), TEN(F16, 4, 1, 128, 4, 32), NIL, NIL, NIL,
                       SCA("int", "128"), SCA("int", "128"), SCA("float", "0."),
                       SCA("int", types[t])));
        ck_cost(c, 8388608.0 * half, 131072.0, "fp16");
        /* (grad_out, query, key, value, bias, out, cu_seqlens_q,
         * cu_seqlens_k, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p,
         * philox_seed, philox_offset, custom_mask_type, ...) */
        ck_assert(COST(&c, "aten::_efficient_attention_backward", TEN(F16, 4, 1, 128, 4, 32),
                       TEN(F16, 4, 1, 128, 4, 32), TEN(F16, 4, 1, 128, 4, 32),
                       TEN(F16, 4, 1, 128, 4, 32), NIL, TEN(F16, 4, 1, 128, 4, 32), NIL, NIL,
                       SCA("int", "128"), SCA("int", "128"), TEN(F32, 3, 1, 4, 128),
                       SCA("float", "0."), TEN0(I64), TEN0(I64), SCA("int", types[t])));
        ck_cost(c, 20971520.0 * half, 262144.0, "fp16");
        ck_assert_str_eq(c.note, t ? "causal: half the score matrix counted" : "");
    }
}
END_TEST

START_TEST(flash_attention_forward_bshd)
{
    struct rl_torch_cost c;
    /* (query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
     * is_causal, return_debug_mask) with [B=2, S=1024, H=16, D=64]; read as
     * [B,H,S,D] it would be S 16, H 1024: 4*2*1024*16*16*64, not this */
    ck_assert(COST(&c, "aten::_flash_attention_forward", TEN(BF16, 4, 2, 1024, 16, 64),
                   TEN(BF16, 4, 2, 1024, 16, 64), TEN(BF16, 4, 2, 1024, 16, 64), NIL, NIL,
                   SCA("int", "1024"), SCA("int", "1024"), SCA("float", "0."),
                   SCA("bool", "True"), SCA("bool", "False")));
    /* causal: 4 B H S S D / 2 */
    ck_cost(c, 4.0 * 2 * 16 * 1024 * 1024 * 64 / 2, 4 * QKV_B, "bf16");
    /* 3-d tensors are refused */
    ck_assert(!COST(&c, "aten::_flash_attention_forward", TEN(BF16, 3, 2, 1024, 64),
                    TEN(BF16, 3, 2, 1024, 64), TEN(BF16, 3, 2, 1024, 64)));
    ck_refused(c);
}
END_TEST

/* ---- gathers, norms, elementwise, reductions, copies -------------------- */

START_TEST(embedding_gathers_rows)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::embedding", TEN(BF16, 2, 32000, 4096), TEN(I64, 2, 4, 512),
                   SCA("int", "-1"), SCA("bool", "False"), SCA("bool", "False")));
    /* 2048 indices (8 bytes) read; 2048 rows of 4096 bf16 read and written */
    ck_cost(c, 0, 2048.0 * 8 + 2 * 2048.0 * 4096 * 2, "bf16");
    ck_assert(!c.matmul);
    /* no indices, or a weight that is not [V, D]: refused */
    ck_assert(!COST(&c, "aten::embedding", TEN(BF16, 2, 32000, 4096)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::embedding", TEN(BF16, 3, 2, 32000, 4096), TEN(I64, 2, 4, 512)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "embedding needs weight [V, D] and indices");
}
END_TEST

/* embedding_bag(weight [1000, 64] fp32, indices [40] int64, offsets [8]
 * int64): 40 rows of 64 read and summed into 8 bags (40 x 64 = 2560
 * FLOPs); bytes: indices 40 x 8 = 320, rows 40 x 64 x 4 = 10240, offsets
 * 8 x 8 = 64, bags written 8 x 64 x 4 = 2048: 12672. */
START_TEST(embedding_bag_sums_rows)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::embedding_bag", TEN(F32, 2, 1000, 64), TEN(I64, 1, 40),
                   TEN(I64, 1, 8), SCA("bool", "False"), SCA("int", "0")));
    ck_cost(c, 2560.0, 12672.0, "fp32");
    ck_assert(!c.matmul);
    /* no offsets: one bag; 320 + 10240 + 64 x 4 = 10816 bytes */
    ck_assert(COST(&c, "aten::_embedding_bag", TEN(F32, 2, 1000, 64), TEN(I64, 1, 40)));
    ck_cost(c, 2560.0, 10816.0, "fp32");
}
END_TEST

/* embedding_dense_backward(grad_output [2, 3, 8] fp32, indices [2, 3]
 * int64, num_weights 10, ...): one add per grad element (48); grad read
 * 48 x 4 = 192, indices 6 x 8 = 48, the weight's gradient 10 rows of 8
 * written: 320; 560. num_weights -5 or not in the trace: no rows
 * counted, 240. A 0-d grad has rows of 1: 10 x 1 x 4 = 40, + 4 + 48 = 92. */
START_TEST(embedding_dense_backward_rows)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::embedding_dense_backward", TEN(F32, 3, 2, 3, 8), TEN(I64, 2, 2, 3),
                   SCA("int", "10"), SCA("int", "-1"), SCA("bool", "False")));
    ck_cost(c, 48.0, 560.0, "fp32");
    /* a list where one number belongs: its first, 10 rows (560 again) */
    ck_assert(COST(&c, "aten::embedding_dense_backward", TEN(F32, 3, 2, 3, 8), TEN(I64, 2, 2, 3),
                   SCA("", "[10, 3]")));
    ck_cost(c, 48.0, 560.0, "fp32");
    ck_assert(COST(&c, "aten::embedding_dense_backward", TEN(F32, 3, 2, 3, 8), TEN(I64, 2, 2, 3),
                   SCA("int", "-5")));
    ck_cost(c, 48.0, 240.0, "fp32");
    ck_assert(COST(&c, "aten::embedding_dense_backward", TEN(F32, 3, 2, 3, 8), TEN(I64, 2, 2, 3)));
    ck_cost(c, 48.0, 240.0, "fp32");
    ck_assert(COST(&c, "aten::embedding_dense_backward", TEN0(F32), TEN(I64, 2, 2, 3),
                   SCA("int", "10")));
    ck_cost(c, 1.0, 92.0, "fp32");
    ck_assert(!COST(&c, "aten::embedding_dense_backward", TEN(F32, 3, 2, 3, 8)));
    ck_refused(c);
}
END_TEST

START_TEST(layer_norm_and_softmax)
{
    struct rl_torch_cost c;
    /* (input, normalized_shape, weight, bias, eps, cudnn_enable);
     * n = 4*512*1024 = 2097152 */
    ck_assert(COST(&c, "aten::layer_norm", TEN(BF16, 3, 4, 512, 1024), SCA("", "[1024]"),
                   TEN(BF16, 1, 1024), TEN(BF16, 1, 1024), SCA("float", "1e-05"),
                   SCA("bool", "True")));
    /* 7 per element; input read and output written (2 bytes), weight and
     * bias [1024] read */
    ck_cost(c, 7.0 * 2097152, 2 * 2097152.0 * 2 + 2 * 1024.0 * 2, "bf16");
    /* (self, dim, half_to_float); n = 8*16*128*128 = 2097152 fp32: 5 per
     * element, read and written */
    ck_assert(COST(&c, "aten::_softmax", TEN(F32, 4, 8, 16, 128, 128), SCA("int", "-1"),
                   SCA("bool", "False")));
    ck_cost(c, 5.0 * 2097152, 2 * 2097152.0 * 4, "fp32");
}
END_TEST

START_TEST(layer_norm_backward_reads_input_once)
{
    struct rl_torch_cost c;
    /* (grad_out, input, normalized_shape, mean, rstd, weight, bias,
     * output_mask); n = 2097152 */
    ck_assert(COST(&c, "aten::native_layer_norm_backward", TEN(BF16, 3, 4, 512, 1024),
                   TEN(BF16, 3, 4, 512, 1024), SCA("", "[1024]"), TEN(F32, 3, 4, 512, 1),
                   TEN(F32, 3, 4, 512, 1), TEN(BF16, 1, 1024), TEN(BF16, 1, 1024),
                   SCA("", "[True, True, True]")));
    /* 10 per element; grad_out and input read, grad_input written (3 n bf16),
     * mean and rstd [2048] fp32 and weight, bias [1024] bf16 read */
    ck_cost(c, 10.0 * 2097152, 3 * 2097152.0 * 2 + 2 * 2048.0 * 4 + 2 * 1024.0 * 2, "bf16");
}
END_TEST

START_TEST(add_broadcasts)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::add", TEN(F32, 3, 4, 1, 8), TEN(F32, 2, 3, 1), SCA("Scalar", "1")));
    /* [4,1,8] + [3,1] -> [4,3,8] = 96 elements, 1 FLOP each; inputs 32 + 3
     * read, 96 written, 4 bytes */
    ck_cost(c, 96, (32.0 + 3) * 4 + 96.0 * 4, "fp32");
    ck_assert(!c.matmul);
    ck_assert_str_eq(c.formula, "add");
    /* [4,3] + [5]: no broadcast */
    ck_assert(!COST(&c, "aten::add", TEN(F32, 2, 4, 3), TEN(F32, 1, 5)));
    ck_refused(c);
}
END_TEST

START_TEST(add_in_place)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::add_", TEN(BF16, 2, 1024, 1024), TEN(BF16, 2, 1024, 1024),
                   SCA("Scalar", "1")));
    /* 1048576 FLOPs; self and other read, self written: 3 * 1048576 * 2 */
    ck_cost(c, 1048576, 3 * 1048576.0 * 2, "bf16");
}
END_TEST

START_TEST(comparisons_write_bool)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::eq", TEN(F32, 1, 1000), TEN(F32, 1, 1000)));
    /* two fp32 inputs read, a bool output (1 byte) written */
    ck_cost(c, 1000, 2 * 1000.0 * 4 + 1000, "fp32");
    ck_assert(COST(&c, "aten::ge", TEN(F16, 1, 1000), SCA("Scalar", "0")));
    ck_cost(c, 1000, 1000.0 * 2 + 1000, "fp16");
    /* every comparison, and isnan and logical_not, writes one byte an
     * element: 1000 fp16 read (2 bytes each), 1000 bools written */
    static const char *const to_bool[] = {"aten::eq", "aten::ne", "aten::lt", "aten::gt",
                                          "aten::le", "aten::ge", "aten::isnan",
                                          "aten::logical_not"};
    for (size_t i = 0; i < sizeof to_bool / sizeof to_bool[0]; i++) {
        ck_assert_msg(COST(&c, to_bool[i], TEN(F16, 1, 1000)), "%s", to_bool[i]);
        ck_assert_msg(c.bytes == 1000.0 * 2 + 1000, "%s: %g bytes", to_bool[i], c.bytes);
    }
    /* names that merely begin like one do not: gelu (4 per element), neg,
     * lerp_ (2) write their input's dtype */
    ck_assert(COST(&c, "aten::gelu", TEN(BF16, 1, 1000), SCA("", "none")));
    ck_cost(c, 4000, 1000.0 * 2 + 1000.0 * 2, "bf16");
    ck_assert(COST(&c, "aten::neg", TEN(F32, 1, 1000)));
    ck_cost(c, 1000, 1000.0 * 4 + 1000.0 * 4, "fp32");
    ck_assert(COST(&c, "aten::lerp_", TEN(F32, 1, 1000), TEN(F32, 1, 1000), SCA("Scalar", "0.1")));
    ck_cost(c, 2000, 2 * 1000.0 * 4 + 1000.0 * 4, "fp32");
}
END_TEST

START_TEST(where_writes_the_values_dtype)
{
    struct rl_torch_cost c;
    /* where(condition bool, self bf16, other bf16): 1000 bools and 2000 bf16
     * read, 1000 bf16 written */
    ck_assert(COST(&c, "aten::where", TEN("bool", 1, 1000), TEN(BF16, 1, 1000),
                   TEN(BF16, 1, 1000)));
    ck_cost(c, 1000, 1000.0 + 2 * 1000.0 * 2 + 1000.0 * 2, "bf16");
    /* where(condition, scalar, scalar): no values tensor, the condition's
     * dtype (bool, 1 byte): 1000 read, 1000 written */
    ck_assert(COST(&c, "aten::where", TEN("bool", 1, 1000), SCA("Scalar", "0"),
                   SCA("Scalar", "1")));
    ck_cost(c, 1000, 2000.0, "bool");
    /* an operator that is not where keeps its first tensor's dtype:
     * masked_fill(self bf16, mask bool, value) writes bf16 */
    ck_assert(COST(&c, "aten::masked_fill", TEN(BF16, 1, 1000), TEN("bool", 1, 1000),
                   SCA("Scalar", "0")));
    ck_cost(c, 1000, 1000.0 * 2 + 1000.0 + 1000.0 * 2, "bf16");
    ck_assert(COST(&c, "aten::masked_fill", TEN("bool", 1, 1000), TEN(BF16, 1, 1000)));
    ck_cost(c, 1000, 1000.0 + 1000.0 * 2 + 1000.0, "bool");
}
END_TEST

START_TEST(sum_over_a_dim)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024), SCA("", "[1]"), SCA("bool", "False"),
                   NIL));
    /* 32768 adds; [32,1024] read, [32] written, 4 bytes */
    ck_cost(c, 32768, 32768.0 * 4 + 32 * 4, "fp32");
    /* dim -1 is the same dim */
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024), SCA("", "[-1]")));
    ck_cost(c, 32768, 32768.0 * 4 + 32 * 4, "fp32");
    /* no dim: everything into one element */
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024)));
    ck_cost(c, 32768, 32768.0 * 4 + 4, "fp32");
    /* an empty dim list is every dim too: one element */
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024), SCA("", "[]")));
    ck_cost(c, 32768, 32768.0 * 4 + 4, "fp32");
    /* dim 0: [1024] written */
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024), SCA("", "[0]")));
    ck_cost(c, 32768, 32768.0 * 4 + 1024 * 4, "fp32");
    /* dims [0, 1] (the second as -1): one element */
    ck_assert(COST(&c, "aten::mean", TEN(F32, 2, 32, 1024), SCA("", "[0, -1]")));
    ck_cost(c, 32768, 32768.0 * 4 + 4, "fp32");
    /* a dim past the tensor's (2 of a 2-d one; -3) reduces nothing: the
     * [32, 1024] written whole (a size left in dims[2] is no dim) */
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024, 7), SCA("", "[2]")));
    ck_cost(c, 32768, 2 * 32768.0 * 4, "fp32");
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 1024), SCA("", "[-3]")));
    ck_cost(c, 32768, 2 * 32768.0 * 4, "fp32");
    /* a dim of size 0: nothing read, nothing written (not 0 / 0) */
    ck_assert(COST(&c, "aten::sum", TEN(F32, 2, 32, 0), SCA("", "[1]")));
    ck_cost(c, 0, 0, "fp32");
}
END_TEST

START_TEST(argmax_writes_int64)
{
    struct rl_torch_cost c;
    /* argmax(self bf16 [32,1024], dim 1, keepdim): 32768 compares, [32]
     * int64 indices written (8 bytes, not the input's 2) */
    ck_assert(COST(&c, "aten::argmax", TEN(BF16, 2, 32, 1024), SCA("int", "1"),
                   SCA("bool", "False")));
    ck_cost(c, 32768, 32768.0 * 2 + 32 * 8, "bf16");
    ck_assert(COST(&c, "aten::argmin", TEN(BF16, 2, 32, 1024), SCA("int", "-1")));
    ck_cost(c, 32768, 32768.0 * 2 + 32 * 8, "bf16");
    /* no dim: one int64 */
    ck_assert(COST(&c, "aten::argmax", TEN(BF16, 2, 32, 1024)));
    ck_cost(c, 32768, 32768.0 * 2 + 8, "bf16");
    /* max over a dim: values (bf16) and indices (int64) */
    ck_assert(COST(&c, "aten::max", TEN(BF16, 2, 32, 1024), SCA("int", "1"),
                   SCA("bool", "False")));
    ck_cost(c, 32768, 32768.0 * 2 + 32 * (2 + 8), "bf16");
    /* max of everything: one value, no indices; min the same */
    ck_assert(COST(&c, "aten::max", TEN(BF16, 2, 32, 1024)));
    ck_cost(c, 32768, 32768.0 * 2 + 2, "bf16");
    ck_assert(COST(&c, "aten::min", TEN(BF16, 2, 32, 1024), SCA("", "[]")));
    ck_cost(c, 32768, 32768.0 * 2 + 2, "bf16");
    /* min over a dim: values and indices */
    ck_assert(COST(&c, "aten::min", TEN(BF16, 2, 32, 1024), SCA("int", "0")));
    ck_cost(c, 32768, 32768.0 * 2 + 1024 * (2 + 8), "bf16");
    /* amax over a dim: values only */
    ck_assert(COST(&c, "aten::amax", TEN(BF16, 2, 32, 1024), SCA("", "[1]")));
    ck_cost(c, 32768, 32768.0 * 2 + 32 * 2, "bf16");
    /* refused without a tensor */
    ck_assert(!COST(&c, "aten::max", SCA("int", "0")));
    ck_refused(c);
    ck_assert_str_eq(c.note, "reduction needs a tensor");
}
END_TEST

START_TEST(norm_dim_follows_p)
{
    struct rl_torch_cost c;
    /* linalg_vector_norm(self [32,1024,64], ord 2, dim [1], keepdim, dtype):
     * out [32,64] = 2048; ord "2" is no dim (that would give [32,1024]) */
    ck_assert(COST(&c, "aten::linalg_vector_norm", TEN(F32, 3, 32, 1024, 64), SCA("Scalar", "2"),
                   SCA("", "[1]"), SCA("bool", "False"), NIL));
    ck_cost(c, 2097152, 2097152.0 * 4 + 2048.0 * 4, "fp32");
    ck_assert(COST(&c, "aten::norm", TEN(F32, 3, 32, 1024, 64), SCA("Scalar", "2")));
    ck_cost(c, 2097152, 2097152.0 * 4 + 4, "fp32");
}
END_TEST

START_TEST(copies_and_casts)
{
    struct rl_torch_cost c;
    /* copy_(self bf16, src fp32): 1048576 fp32 read, as many bf16 written;
     * no arithmetic (0, not NAN); the dtype is the source's */
    ck_assert(COST(&c, "aten::copy_", TEN(BF16, 2, 1024, 1024), TEN(F32, 2, 1024, 1024),
                   SCA("bool", "False")));
    ck_cost(c, 0, 1048576.0 * 4 + 1048576.0 * 2, "fp32");
    /* without its destination or its source: refused */
    ck_assert(!COST(&c, "aten::copy_", NIL, TEN(F32, 1, 4)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::copy_", TEN(F32, 1, 4), NIL));
    ck_refused(c);
    ck_assert_str_eq(c.note, "copy_ needs two tensors");
    /* clone of a [4, 8] bf16 tensor: 32 x 2 = 64 bytes read, 64 written */
    ck_assert(COST(&c, "aten::clone", TEN(BF16, 2, 4, 8), NIL));
    ck_cost(c, 0, 128.0, "bf16");
    /* _to_copy(self fp32, dtype 15 = bf16, layout, device, pin_memory,
     * non_blocking, memory_format): read 4, write 2 bytes per element */
    ck_assert(COST(&c, "aten::_to_copy", TEN(F32, 2, 1024, 1024), SCA("ScalarType", "15"), NIL,
                   NIL, NIL, SCA("bool", "False"), NIL));
    ck_cost(c, 0, 1048576.0 * (4 + 2), "fp32");
    ck_assert_str_eq(c.note, "");
    /* to(self, device, dtype, non_blocking, copy): the device "cuda:0"
     * holds a number but is no ScalarType: the dtype 15 is read (2 bytes) */
    ck_assert(COST(&c, "aten::to", TEN(F32, 1, 1024), SCA("Device", "cuda:0"),
                   SCA("ScalarType", "15"), SCA("bool", "False"), SCA("bool", "False")));
    ck_cost(c, 0, 1024.0 * (4 + 2), "fp32");
    ck_assert_str_eq(c.note, "");
    /* a ScalarType that is not a scalar argument (none), then one without
     * a number: no dtype */
    ck_assert(COST(&c, "aten::to", TEN(F32, 1, 1024),
                   {.kind = RL_TORCH_ARG_NONE, .type = "ScalarType", .concrete = "15"},
                   SCA("ScalarType", "")));
    ck_cost(c, 0, 1024.0 * (4 + 4), "fp32");
    ck_assert_str_eq(c.note, "target dtype not in the trace: the input's assumed");
    ck_assert(!COST(&c, "aten::to", SCA("ScalarType", "15")));
    ck_refused(c);
    /* no dtype: the input's assumed, and said */
    ck_assert(COST(&c, "aten::_to_copy", TEN(F32, 2, 1024, 1024)));
    ck_cost(c, 0, 1048576.0 * (4 + 4), "fp32");
    ck_assert_str_eq(c.note, "target dtype not in the trace: the input's assumed");
}
END_TEST

/* ---- the optimizer ------------------------------------------------------- */

static const struct rl_torch_tensor params[] = {
    {.ndim = 2, .dims = {1024, 1024}}, {.ndim = 1, .dims = {4096}}, {.ndim = 1, .dims = {10}}};
static const struct rl_torch_tensor steps[] = {{.ndim = 0}, {.ndim = 0}, {.ndim = 0}};
#define PARAMS_N (1048576.0 + 4096 + 10)

/* clone, contiguous, cat, stack: every tensor read and written once, the
 * dtype the first tensor's. stack(int 0, [4, 8] bf16): 64 bytes read, 64
 * written, bf16 (not the int's int32). A TensorList first (untyped: 4-byte
 * elements): cat(params, 0) reads and writes PARAMS_N x 4, no dtype; a list
 * typed float the same bytes, dtype fp32. A scalar alone: refused. */
START_TEST(cat_and_stack)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::stack", SCA("int", "0"), TEN(BF16, 2, 4, 8)));
    ck_cost(c, 0, 128.0, "bf16");
    ck_assert_str_eq(c.formula, "stack");
    ck_assert(COST(&c, "aten::cat", LIST(params), SCA("int", "0")));
    ck_cost(c, 0, 2 * PARAMS_N * 4, "");
    ck_assert(COST(&c, "aten::cat",
                   {.kind = RL_TORCH_ARG_LIST, .type = F32, .n_list = 3, .list = params},
                   SCA("int", "0")));
    ck_cost(c, 0, 2 * PARAMS_N * 4, "fp32");
    /* two bf16 tensors after a list of none: 2 x (32 + 8) x 2 = 160 bytes */
    ck_assert(COST(&c, "aten::_cat", EMPTY_LIST, TEN(BF16, 2, 4, 8), TEN(BF16, 1, 8)));
    ck_cost(c, 0, 160.0, "bf16");
    ck_assert(!COST(&c, "aten::contiguous", SCA("int", "0"), NIL));
    ck_refused(c);
    ck_assert_str_eq(c.note, "needs a tensor");
}
END_TEST

/* c10/core/ScalarType.h numbering past 21 (Bits16 22 ... Float4_e2m1fn_x2
 * 45): each code's bytes through _to_copy(fp32 [1024], dtype code) */
START_TEST(scalar_type_codes)
{
    static const struct {
        const char *code;
        double bytes;
    } want[] = {
        {"22", 2}, /* Bits16 */          {"23", 1}, /* Float8_e5m2 */
        {"24", 1}, /* Float8_e4m3fn */   {"25", 1}, /* Float8_e5m2fnuz */
        {"26", 1}, /* Float8_e4m3fnuz */ {"27", 2}, /* UInt16 */
        {"28", 4}, /* UInt32 */          {"29", 8}, /* UInt64 */
        {"30", 1}, /* UInt1 */           {"43", 1}, /* Int7 */
        {"44", 1}, /* Float8_e8m0fnu */  {"45", 1}, /* Float4_e2m1fn_x2 */
        {"15", 2}, /* BFloat16 */        {"8", 4},  /* ComplexHalf */
        {"0", 1},  /* Byte: the first */ {"1", 1},  /* Char */
        {"2", 2},  /* Short */           {"3", 4},  /* Int */
        {"4", 8},  /* Long */            {"5", 2},  /* Half */
        {"6", 4},  /* Float */           {"7", 8},  /* Double */
        {"9", 8},  /* ComplexFloat */    {"10", 16}, /* ComplexDouble */
        {"11", 1}, /* Bool */            {"14", 4}, /* QInt32 */
        {"16", 1}, /* QUInt4x2 */        {"21", 1}, /* Bits8 */
    };
    struct rl_torch_cost c;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        ck_assert(COST(&c, "aten::_to_copy", TEN(F32, 1, 1024), SCA("ScalarType", want[i].code)));
        ck_assert_msg(c.bytes == 1024.0 * (4 + want[i].bytes), "code %s: %g bytes", want[i].code,
                      c.bytes);
        ck_assert_str_eq(c.note, "");
    }
    /* past the list, or before it (-1): unknown, the input's size assumed
     * and said */
    ck_assert(COST(&c, "aten::_to_copy", TEN(F32, 1, 1024), SCA("ScalarType", "46")));
    ck_cost(c, 0, 1024.0 * 8, "fp32");
    ck_assert_str_eq(c.note, "target dtype not in the trace: the input's assumed");
    ck_assert(COST(&c, "aten::_to_copy", TEN(F32, 1, 1024), SCA("ScalarType", "-1")));
    ck_cost(c, 0, 1024.0 * 8, "fp32");
    ck_assert_str_eq(c.note, "target dtype not in the trace: the input's assumed");
    /* _scaled_mm's out_dtype 29 (UInt64, 8 bytes: a code past 26 read too) */
    ck_assert(COST(&c, "aten::_scaled_mm", TEN(E4M3, 2, 16, 32), TEN(E4M3, 2, 32, 8),
                   TEN0(F32), TEN0(F32), NIL, NIL, SCA("ScalarType", "29")));
    /* 2*16*8*32; A 512 + B 256 fp8, two fp32 scales, out 128 x 8 bytes */
    ck_cost(c, 8192, 512.0 + 256 + 4 + 4 + 128 * 8, "fp8");
}
END_TEST


START_TEST(foreach_add_lists)
{
    struct rl_torch_cost c;
    ck_assert(COST(&c, "aten::_foreach_add_", LIST(params), LIST(params), SCA("Scalar", "1")));
    /* 1 FLOP per element of the first list; both lists read and the first
     * written, 4 bytes each (a TensorList has no dtype) */
    ck_cost(c, PARAMS_N, 3 * PARAMS_N * 4, "fp32");
    ck_assert_str_eq(c.note, "4-byte elements assumed: a TensorList has no dtype");
    /* a Scalar second: one list read, one written */
    ck_assert(COST(&c, "aten::_foreach_add_", LIST(params), SCA("Scalar", "1")));
    ck_cost(c, PARAMS_N, 2 * PARAMS_N * 4, "fp32");
    /* a tensor first is no TensorList */
    ck_assert(!COST(&c, "aten::_foreach_add_", TEN(F32, 1, 10), TEN(F32, 1, 10)));
    ck_refused(c);
    /* _foreach_norm(params, 2): 2 FLOPs an element (square-add), the list
     * read, one 4-byte norm per tensor (3) written */
    ck_assert(COST(&c, "aten::_foreach_norm", LIST(params), SCA("Scalar", "2")));
    ck_cost(c, 2 * PARAMS_N, PARAMS_N * 4 + 3 * 4, "fp32");
    /* a list typed bf16: 2-byte elements, nothing assumed; the dtype is
     * only said for the assumed fp32 */
    ck_assert(COST(&c, "aten::_foreach_mul_",
                   {.kind = RL_TORCH_ARG_LIST, .type = BF16, .n_list = 3, .list = params},
                   SCA("Scalar", "0.5")));
    ck_cost(c, PARAMS_N, 2 * PARAMS_N * 2, "");
    ck_assert_str_eq(c.note, "");
}
END_TEST

START_TEST(fused_adamw)
{
    struct rl_torch_cost c;
    /* (params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
     * lr, beta1, beta2, weight_decay, eps, amsgrad, maximize) */
    ck_assert(COST(&c, "aten::_fused_adamw_", LIST(params), LIST(params), LIST(params),
                   LIST(params), EMPTY_LIST, LIST(steps), SCA("float", "0.001"),
                   SCA("float", "0.9"), SCA("float", "0.999"), SCA("float", "0.01"),
                   SCA("float", "1e-08"), SCA("bool", "False"), SCA("bool", "False")));
    /* 15 FLOPs per element; p, g, m, v read and p, m, v written: 7 x 4 bytes */
    ck_cost(c, 15 * PARAMS_N, 7 * PARAMS_N * 4, "fp32");
    ck_assert_str_eq(c.note, "4-byte elements assumed: a TensorList has no dtype");
    /* amsgrad: max_exp_avg_sqs read and written too: 9 x 4 */
    ck_assert(COST(&c, "aten::_fused_adamw_", LIST(params), LIST(params), LIST(params),
                   LIST(params), LIST(params), LIST(steps)));
    ck_cost(c, 15 * PARAMS_N, 9 * PARAMS_N * 4, "fp32");
    /* no max_exp_avg_sqs argument at all (four lists): not amsgrad, 7 x 4 */
    ck_assert(COST(&c, "aten::_fused_adam_", LIST(params), LIST(params), LIST(params),
                   LIST(params)));
    ck_cost(c, 15 * PARAMS_N, 7 * PARAMS_N * 4, "fp32");
    /* a tensor first is no TensorList */
    ck_assert(!COST(&c, "aten::_fused_adam_", TEN(F32, 1, 10), LIST(params)));
    ck_refused(c);
}
END_TEST

/* ---- refusals ----------------------------------------------------------- */

START_TEST(unknown_operator)
{
    struct rl_torch_cost c;
    ck_assert(!COST(&c, "aten::frobnicate", TEN(F32, 2, 4, 4)));
    ck_refused(c);
    ck_assert_str_eq(c.formula, "");
    ck_assert(!COST(&c, "my_ext::mm", TEN(F32, 2, 4, 4), TEN(F32, 2, 4, 4)));
    ck_refused(c);
    struct rl_torch_op op = {.name = NULL, .n_args = 0, .args = NULL, .profiler_flops = NAN};
    ck_assert(!rl_torch_op_cost(&op, &c));
    ck_refused(c);
}
END_TEST

START_TEST(malformed_shapes)
{
    struct rl_torch_cost c;
    /* 1-d tensors */
    ck_assert(!COST(&c, "aten::mm", TEN(F32, 1, 4), TEN(F32, 1, 4)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "mm needs [M,K] x [K,N]");
    /* inner dims 3 and 4 */
    ck_assert(!COST(&c, "aten::mm", TEN(F32, 2, 2, 3), TEN(F32, 2, 4, 5)));
    ck_refused(c);
    /* an unreadable tensor (ndim -1) */
    ck_assert(!COST(&c, "aten::mm", TEN(F32, -1, 0), TEN(F32, 2, 4, 5)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::add", TEN(F32, -1, 0), TEN(F32, 1, 4)));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::layer_norm", TEN(F32, -1, 0)));
    ck_refused(c);
    /* negative sizes make negative FLOPs */
    ck_assert(!COST(&c, "aten::mm", TEN(F32, 2, -2, 3), TEN(F32, 2, 3, 5)));
    ck_refused(c);
    /* negative bytes with FLOPs 0: embedding of weight [10, -3] fp32,
     * indices [4] int64: 4 x 8 + 2 x 4 x -3 x 4 = -64 bytes */
    ck_assert(!COST(&c, "aten::embedding", TEN(F32, 2, 10, -3), TEN(I64, 1, 4)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "shapes do not fit the formula");
    /* negative FLOPs with bytes of 0 or more: embedding_bag of weight
     * [10, -1] fp32, indices [4], offsets [2] int64: 4 x -1 = -4 FLOPs;
     * bytes 32 - 16 + 16 - 8 = 24 */
    ck_assert(!COST(&c, "aten::embedding_bag", TEN(F32, 2, 10, -1), TEN(I64, 1, 4),
                    TEN(I64, 1, 2)));
    ck_refused(c);
    ck_assert_str_eq(c.note, "shapes do not fit the formula");
    /* FLOPs past a double with finite bytes: a 10-d convolution, input
     * [1, 1, 2e16 x 10], weight [1, 1, 1e16 x 10], stride 1: each dim
     * (2e16 - (1e16 - 1) - 1) + 1 = 1e16 + 1, FLOPs 2 x (1e16 + 1)^10 x
     * 1e160 = inf; bytes (1.024e166 + 1e160 + 1e160) x 4, finite */
#define E16 10000000000000000LL
    ck_assert(!COST(&c, "aten::convolution",
                    TEN(F32, 12, 1, 1, 2 * E16, 2 * E16, 2 * E16, 2 * E16, 2 * E16, 2 * E16,
                        2 * E16, 2 * E16, 2 * E16, 2 * E16),
                    TEN(F32, 12, 1, 1, E16, E16, E16, E16, E16, E16, E16, E16, E16, E16), NIL,
                    SCA("", "[1]"), SCA("", "[0]"), SCA("", "[1]")));
    ck_refused(c);
    ck_assert_str_eq(c.note, "shapes do not fit the formula");
    /* an empty tensor is known, of 0 bytes: fill_ of [0] fp32 */
    ck_assert(COST(&c, "aten::fill_", TEN(F32, 1, 0), SCA("Scalar", "1")));
    ck_cost(c, 0, 0, "fp32");
    /* a stride of 0 */
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 8, 8), TEN(F32, 4, 1, 1, 3, 3),
                    NIL, SCA("", "[0, 0]"), SCA("", "[0, 0]"), SCA("", "[1, 1]")));
    ck_refused(c);
    /* cat of no tensor and no list: nothing to copy */
    ck_assert(!COST(&c, "aten::cat", SCA("int", "0")));
    ck_refused(c);
    ck_assert_str_eq(c.note, "needs a tensor");
    /* a convolution without a weight, with a 2-d input and weight (no
     * spatial dim), and with a 3-d weight for a 4-d input */
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 8, 8), NIL, NIL,
                    SCA("", "[1, 1]"), SCA("", "[0, 0]"), SCA("", "[1, 1]")));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 2, 1, 1), TEN(F32, 2, 1, 1), NIL,
                    SCA("", "[1, 1]"), SCA("", "[0, 0]"), SCA("", "[1, 1]")));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 8, 8), TEN(F32, 3, 1, 1, 3), NIL,
                    SCA("", "[1, 1]"), SCA("", "[0, 0]"), SCA("", "[1, 1]")));
    ck_refused(c);
    ck_assert_str_eq(c.note, "convolution needs input [N, C, ...] and weight [C_out, "
                             "C_in/groups, ...]");
    /* stride, padding or dilation missing: refused, saying so */
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 8, 8), TEN(F32, 4, 1, 1, 3, 3),
                    NIL, SCA("", ""), SCA("", "[0, 0]"), SCA("", "[1, 1]")));
    ck_refused(c);
    ck_assert_str_eq(c.note, "convolution: stride, padding or dilation not in the trace "
                             "(Concrete Inputs)");
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 8, 8), TEN(F32, 4, 1, 1, 3, 3),
                    NIL, SCA("", "[1, 1]"), SCA("", ""), SCA("", "[1, 1]")));
    ck_refused(c);
    ck_assert(!COST(&c, "aten::convolution", TEN(F32, 4, 1, 1, 8, 8), TEN(F32, 4, 1, 1, 3, 3),
                    NIL, SCA("", "[1, 1]"), SCA("", "[0, 0]"), SCA("", "")));
    ck_refused(c);
}
END_TEST

/* A tensor argument whose dims were not recorded (no tensor attached) is
 * no tensor: aten::add of it and a [4] fp32 tensor reads the [4] only,
 * 16 bytes, and writes 4 elements of its dtype, 16: 4 FLOPs, 32 bytes. */
START_TEST(tensor_without_dims)
{
    struct rl_torch_tensor four = {.ndim = 1, .dims = {4}};
    struct rl_torch_arg args[2] = {{.kind = RL_TORCH_ARG_TENSOR, .type = "float", .t = NULL,
                                    .n_tensors = 1, .concrete = ""},
                                   {.kind = RL_TORCH_ARG_TENSOR, .type = "float", .t = &four,
                                    .n_tensors = 1, .concrete = ""}};
    struct rl_torch_op op = {.name = "aten::add", .n_args = 2, .args = args,
                             .profiler_flops = NAN};
    struct rl_torch_cost c;
    ck_assert(rl_torch_op_cost(&op, &c));
    ck_cost(c, 4.0, 32.0, "fp32");
}
END_TEST

START_TEST(no_arguments)
{
    static const char *const names[] = {
        "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
        "aten::linear", "aten::_scaled_mm", "aten::convolution", "aten::conv2d",
        "aten::cudnn_convolution", "aten::convolution_backward",
        "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention", "aten::_flash_attention_forward",
        "aten::_efficient_attention_forward", "aten::_flash_attention_backward",
        "aten::_efficient_attention_backward", "aten::embedding",
        "aten::embedding_dense_backward", "aten::embedding_bag", "aten::layer_norm",
        "aten::native_layer_norm_backward", "aten::_softmax", "aten::add", "aten::eq",
        "aten::sum", "aten::copy_", "aten::_to_copy", "aten::cat", "aten::fill_",
        "aten::_foreach_add_", "aten::_foreach_norm", "aten::_fused_adamw_"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct rl_torch_cost c;
        struct rl_torch_op op = {.name = names[i], .n_args = 0, .args = NULL,
                                 .profiler_flops = NAN};
        ck_assert_msg(!rl_torch_op_cost(&op, &c), "%s", names[i]);
        ck_refused(c);
        ck_assert_msg(c.note[0], "%s gives no reason", names[i]);
    }
}
END_TEST

/* ---- dtypes and kernel roofs -------------------------------------------- */

START_TEST(dtype_names_and_bytes)
{
    static const struct {
        const char *type, *name;
        int bytes;
    } want[] = {
        {"float", "fp32", 4}, {"double", "fp64", 8}, {"c10::Half", "fp16", 2},
        {"c10::BFloat16", "bf16", 2}, {"c10::Float8_e4m3fn", "fp8", 1},
        {"c10::Float8_e5m2", "fp8", 1}, {"c10::Float8_e4m3fnuz", "fp8", 1},
        {"c10::Float8_e5m2fnuz", "fp8", 1}, {"long int", "int64", 8}, {"long", "int64", 8},
        {"int64_t", "int64", 8}, {"int", "int32", 4}, {"short int", "int16", 2},
        {"short", "int16", 2}, {"signed char", "int8", 1}, {"unsigned char", "uint8", 1},
        {"bool", "bool", 1}, {"c10::complex<float>", "complex64", 8},
        {"c10::complex<double>", "complex128", 16}, {"c10::complex<c10::Half>", "complex32", 4},
        {"Float", "fp32", 4}, {"Double", "fp64", 8}, {"Half", "fp16", 2},
        {"BFloat16", "bf16", 2}, {"Long", "int64", 8}, {"Int", "int32", 4},
        {"Bool", "bool", 1}, {"Byte", "uint8", 1}, {"Char", "int8", 1},
        /* unknown */
        {"", "", 0}, {"TensorList", "", 0}, {"Scalar", "", 0}, {"c10::bfloat16", "", 0},
        {"float ", "", 0}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        ck_assert_msg(rl_torch_dtype_bytes(want[i].type) == want[i].bytes, "%s", want[i].type);
        ck_assert_str_eq(rl_torch_dtype_name(want[i].type), want[i].name);
    }
}
END_TEST

START_TEST(kernel_roofs_from_names)
{
    static const struct {
        const char *kernel, *dtype, *roof;
    } want[] = {
        {"ampere_sgemm_128x64_nn", "fp32", "fp32"},
        {"cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4", "fp32", "tf32"},
        {"ampere_h16816gemm_256x128_ldg8_stages_32x3_nn", "fp16", "fp16"},
        {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8", "bf16", "bf16"},
        {"sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_"
         "execute_segment_k_off_kernel__5x_cublas",
         "fp8", "fp8"},
        {"volta_sgemm_32x128_tn", "fp32", "fp32"},
        {"volta_sgemm_32x128_tn", "", "fp32"},
        {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN", "fp16", "fp16"},
        {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN", "fp32", "fp32"},
        /* AMD bf16 without matrix cores */
        {"Cijk_Ailk_Bljk_BBS_BH_MT64x64x8_SN", "bf16", "bf16-cuda"},
        {"sm80_xmma_gemm_i8i8_i8i32_f32_tn_n_tilesize128x128x64", "int8", "int8"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *noted = NULL;
        ck_assert_str_eq(rl_torch_kernel_roof(want[i].kernel, want[i].dtype, true, &noted),
                         want[i].roof);
        ck_assert_ptr_nonnull(noted);
        ck_assert_msg(noted[0] == 0, "%s: the name decided", want[i].kernel);
    }
}
END_TEST

/* Every word of the kernel-name tables decides alone: each name below holds
 * one of them and no other (names lower-cased first). AMD Tensile names
 * (Cijk_...) by their types, "_MI" for matrix cores; the others by the
 * instruction or library word. A GEMV / sgemm-like name takes its dtype's
 * CUDA-core roof (bf16: bf16-cuda), fp32 without one. */
START_TEST(kernel_roofs_every_word)
{
    static const struct {
        const char *kernel, *dtype, *roof;
    } want[] = {
        {"Cijk_Alik_Bljk_F8_MT", "", "fp8"},
        {"Cijk_Alik_Bljk_XF8F8X", "", "fp8"},
        {"Cijk_Alik_Bljk_B8_MT", "", "fp8"},
        {"Cijk_Alik_Bljk_I8_MT", "", "int8"},
        {"Cijk_Alik_Bljk_4XI8", "", "int8"},
        {"Cijk_Alik_Bljk_BBS", "", "bf16-cuda"},
        {"Cijk_Alik_Bljk_BSS", "", "bf16-cuda"},
        {"Cijk_Alik_Bljk_BB_X", "", "bf16-cuda"},
        {"Cijk_Alik_Bljk_BBH", "", "bf16-cuda"},
        {"Cijk_Alik_Bljk_BBH_MI16", "", "bf16"},
        {"Cijk_Alik_Bljk_HHS", "", "fp16-cuda"},
        {"Cijk_Alik_Bljk_HSS", "", "fp16-cuda"},
        {"Cijk_Alik_Bljk_HH_X", "", "fp16-cuda"},
        {"Cijk_Alik_Bljk_HHH", "", "fp16-cuda"},
        {"Cijk_Alik_Bljk_DDD", "", "fp64"},
        {"Cijk_Alik_Bljk_DD_X", "", "fp64"},
        {"Cijk_Alik_Bljk_DB_X", "", "fp64"},
        {"Cijk_Alik_Bljk_DDD_MI16", "", "fp64-tc"},
        {"Cijk_Alik_Bljk_SSS", "", "fp32"},
        {"Cijk_Alik_Bljk_SS_X", "", "fp32"},
        {"Cijk_Alik_Bljk_SB_X", "", "fp32"},
        {"k_e4m3_k", "", "fp8"},
        {"k_e5m2_k", "", "fp8"},
        {"k_fp8_k", "", "fp8"},
        {"k_qmma_k", "", "fp8"},
        {"k_f8f6f4_k", "", "fp8"},
        {"k_i8816_k", "", "int8"},
        {"k_imma_k", "", "int8"},
        {"k_int8_k", "", "int8"},
        {"k_i8i8_k", "", "int8"},
        {"k_s8s8_k", "", "int8"},
        {"k_bf16_k", "", "bf16"},
        {"k_h1688_k", "", "fp16"},
        {"k_h16816_k", "", "fp16"},
        {"k_h884_k", "", "fp16"},
        {"k_hgemm_k", "", "fp16"},
        {"k_f16_k", "", "fp16"},
        {"k_fp16_k", "", "fp16"},
        {"k_hmma_k", "", "fp16"},
        {"k_half_k", "", "fp16"},
        {"k_tf32_k", "", "tf32"},
        {"k_s1688_k", "", "tf32"},
        {"k_s16816_k", "", "tf32"},
        {"k_xf32_k", "", "tf32"},
        {"k_dmma_k", "", "fp64-tc"},
        {"k_d884_k", "", "fp64-tc"},
        {"k_tensorop_d_k", "", "fp64-tc"},
        {"k_sgemm_k", "", "fp32"},
        {"k_gemv_k", "", "fp32"},
        {"k_gemmsn_k", "", "fp32"},
        {"k_gemmk1_k", "", "fp32"},
        {"k_gemv_k", "bf16", "bf16-cuda"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *noted = NULL;
        const char *roof = rl_torch_kernel_roof(want[i].kernel, want[i].dtype, true, &noted);
        ck_assert_msg(strcmp(roof, want[i].roof) == 0, "%s: %s, not %s", want[i].kernel, roof,
                      want[i].roof);
        ck_assert_ptr_nonnull(noted);
        ck_assert_msg(noted[0] == 0, "%s: the name decided", want[i].kernel);
    }
}
END_TEST

START_TEST(kernel_roofs_from_dtype)
{
    const char *noted = NULL;
    /* nvjet names no type: the dtype's most generous roof, noted */
    ck_assert_str_eq(rl_torch_kernel_roof("nvjet_tst_128x128_64x4_1x2_h_bz_coopA_NNT", "bf16",
                                          true, &noted),
                     "bf16");
    ck_assert_ptr_nonnull(noted);
    ck_assert(noted[0] != 0);
    ck_assert_str_eq(rl_torch_kernel_roof("nvjet_tst_128x128_64x4_1x2_h_bz_coopA_NNT", "fp32",
                                          true, &noted),
                     "tf32");
    ck_assert(noted[0] != 0);
    /* neither the name nor the dtype */
    ck_assert_str_eq(rl_torch_kernel_roof("nvjet_tst_128x128_64x4_1x2_h_bz_coopA_NNT", "", true,
                                          &noted),
                     "");
    ck_assert_str_eq(noted, "");
    /* not a matrix product: the dtype's CUDA cores, whatever the name */
    ck_assert_str_eq(rl_torch_kernel_roof("void at::native::vectorized_elementwise_kernel<4, "
                                          "at::native::CUDAFunctor_add<c10::BFloat16> >",
                                          "bf16", false, &noted),
                     "bf16-cuda");
    ck_assert_str_eq(noted, "");
    ck_assert_str_eq(rl_torch_kernel_roof("ampere_h16816gemm_256x128_ldg8_stages_32x3_nn", "fp16",
                                          false, &noted),
                     "fp16-cuda");
    ck_assert_str_eq(rl_torch_kernel_roof("reduce_kernel", "fp32", false, &noted), "fp32");
    /* no vector rate of the dtype (integers, bool, FP8 / FP4 data, unknown):
     * FP32's, never a Tensor Core roof (issue 32 (3): int64 ops were judged
     * against FP8 Tensor Cores) */
    ck_assert_str_eq(rl_torch_kernel_roof("reduce_kernel", "int64", false, &noted), "fp32");
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "bool", false, &noted), "fp32");
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "int32", false, &noted), "fp32");
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "fp8", false, &noted), "fp32");
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "fp4", false, &noted), "fp32");
    /* no dtype in the trace: no roof (the report does not judge a guess) */
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "", false, &noted), "");
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "fp64", false, &noted), "fp64");
    ck_assert_str_eq(rl_torch_kernel_roof("elementwise_kernel", "fp16", false, &noted),
                     "fp16-cuda");
    /* a name that says Tensor Cores does not make a non-matrix op one */
    ck_assert_str_eq(rl_torch_kernel_roof("sm90_xmma_gemm_e4m3", "fp8", false, &noted), "fp32");
    ck_assert_str_eq(noted, "");
    /* a GEMV of FP8 data: the vector unit's FP32 */
    ck_assert_str_eq(rl_torch_kernel_roof("gemv2T_kernel", "fp8", true, &noted), "fp32");
    ck_assert_str_eq(noted, "");
    /* a matrix product of FP4 data whose name says nothing: FP4, noted */
    ck_assert_str_eq(rl_torch_kernel_roof("nvjet_tst_x", "fp4", true, &noted), "fp4");
    ck_assert(noted[0] != 0);
    /* integers in a matrix product: no roof (the report's default) */
    ck_assert_str_eq(rl_torch_kernel_roof("nvjet_tst_x", "int64", true, &noted), "");
    ck_assert_str_eq(rl_torch_kernel_roof(NULL, "bf16", false, &noted), "bf16-cuda");
    /* a name is read up to its first 511 characters: "bf16" at 500 is
     * seen, at 600 it is not (the fp32 dtype's roof, noted) */
    char longname[700];
    memset(longname, 'x', sizeof longname);
    memcpy(longname + 500, "bf16", 4);
    longname[520] = 0;
    ck_assert_str_eq(rl_torch_kernel_roof(longname, "fp32", true, &noted), "bf16");
    ck_assert_str_eq(noted, "");
    memset(longname, 'x', sizeof longname);
    memcpy(longname + 600, "bf16", 4);
    longname[650] = 0;
    ck_assert_str_eq(rl_torch_kernel_roof(longname, "fp32", true, &noted), "tf32");
    ck_assert(noted[0] != 0);
}
END_TEST

/* FP8 / FP6 / FP4 and block-scaled GEMM names (issue 33 (3)): the
 * narrowest data type a name gives, its scales' types aside. */
START_TEST(kernel_roofs_low_precision_names)
{
    static const struct {
        const char *kernel, *dtype, *roof;
    } want[] = {
        /* NVFP4 (E2M1 data, UE4M3 scales): not FP8 for its scales' "e4m3" */
        {"cutlass3x_sm100_bstensorop_s256x128x256gemm_block_scaled_ue4m3xe2m1_ue4m3xe2m1_f32_"
         "bf16_bf16_256x128x256_0_tnn_align32_o_vs16_2sm",
         "", "fp4"},
        /* MXFP4 through tcgen05 kind::mxf4nvf4, and an nvfp4 word */
        {"void gemm_kernel<kind::mxf4nvf4, 128, 256>", "", "fp4"},
        {"flashinfer::nvfp4_gemm_sm100", "bf16", "fp4"},
        /* MXFP8 (E8M0 scales, E4M3 data) and sm_100's kind::f8f6f4 */
        {"cutlass3x_sm100_bstensorop_s128x128x128gemm_block_scaled_ue8m0xe4m3_ue8m0xe4m3_f32_"
         "bf16_bf16",
         "", "fp8"},
        {"sm100_xmma_gemm_f8f6f4_bf16_tn", "", "fp8"},
        {"void gemm<kind::mxf8f6f4>", "", "fp8"},
        /* DeepGEMM */
        {"void deep_gemm::sm90_fp8_gemm_1d2d_impl<0u, 4096u>", "bf16", "fp8"},
        /* FP6 data */
        {"gemm_ue8m0xe3m2_ue8m0xe3m2", "", "fp6"},
        {"gemm_e2m3", "", "fp6"},
        /* AMD hipBLASLt's one-letter types: FP32 on MFMA 16x16x1 at the FP32
         * rate (was: TF32 from the dtype, 4x too high on MI300X), BF16 */
        {"Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB1_AFC1",
         "fp32", "fp32"},
        {"Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x224x64_MI16x16x1_SN", "bf16",
         "bf16"},
        {"Cijk_Alik_Bljk_H_HS_MT64x64x8_SN", "fp16", "fp16-cuda"},
        {"Cijk_Alik_Bljk_F4_MI16", "", "fp4"},
        {"Cijk_Alik_Bljk_F6_MI16", "", "fp6"},
        {"Cijk_Alik_Bljk_D_MT64", "", "fp64"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *noted = NULL;
        const char *roof = rl_torch_kernel_roof(want[i].kernel, want[i].dtype, true, &noted);
        ck_assert_msg(strcmp(roof, want[i].roof) == 0, "%s: %s, not %s", want[i].kernel, roof,
                      want[i].roof);
        ck_assert_msg(noted && noted[0] == 0, "%s: the name decided", want[i].kernel);
    }
    /* the table's matrix products, convolutions and attention, nothing else */
    ck_assert(rl_torch_op_matmul("aten::mm"));
    ck_assert(rl_torch_op_matmul("_scaled_grouped_mm"));
    ck_assert(rl_torch_op_matmul("aten::miopen_convolution"));
    ck_assert(rl_torch_op_matmul("aten::_efficient_attention_backward"));
    ck_assert(!rl_torch_op_matmul("aten::embedding"));
    ck_assert(!rl_torch_op_matmul("aten::add"));
    /* a fused MoE is its expert GEMMs (torchops-llm.h), and so is a replay of a product */
    ck_assert(rl_torch_op_matmul("vllm::moe_forward"));
    ck_assert(rl_torch_op_matmul("(CUDA graph replay) aten::mm"));
    ck_assert(!rl_torch_op_matmul("(CUDA graph replay) aten::add"));
    ck_assert(!rl_torch_op_matmul("_C::fused_add_rms_norm"));
    ck_assert(!rl_torch_op_matmul(NULL));
}
END_TEST

/* ---- real traces: roofs and collectives ------------------------------------ */

static const char *const real_traces[] = {
    "alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
    "amd-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "hta_a100_triton_example.json.gz",
    "kineto_2021-01_resnet50_profiler_api__worker0.pt.trace.json.gz",
    "kineto_v100_resnet50__worker0.1623143089861.pt.trace.json.gz",
    "negative_queue-rank0.json.gz",
    "ns_resolution-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "oldformat-inference_rank_1.json.gz",
    "sampled-ranks/sampled_rank-0.json.gz",
    "sampled-ranks/sampled_rank-1.json.gz",
    "trace_diff-control.json.gz",
    "trace_diff-test.json.gz",
    "tracelens_b200_eager_trace.json.gz",
    "tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "tracelens_mi300x_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "tracelens_mi300x_resnet_act_checkpoint.json.gz",
};

static void load_real(const char *name, struct rl_trace_groups *g, struct rl_torch_stats *st)
{
    char path[1024], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s", rl_test_data("torch-real/"));
    snprintf(path + strlen(path), sizeof path - strlen(path), "%s", name);
    memset(g, 0, sizeof *g);
    ck_assert_msg(rl_torch_load(g, path, st, err) == RL_OK, "%s: %s", name, err);
}

static struct rl_report report; /* large: static */

/* The property of issue 32 (3), over every GPU of data/gpus and every real
 * trace: no kernel of an operator that is not a matrix product is judged
 * on a Tensor Core roof, no kernel on a roof its GPU lacks, and a kernel
 * whose precision the GPU has is judged on exactly that one. On the old
 * judge B200's and MI300X's BF16 elementwise kernels fell to FP8 Tensor
 * Cores, V100's int64 ops to FP16 Tensor Cores. */
START_TEST(no_kernel_on_a_roof_it_cannot_run_on)
{
    struct rl_gpudb db;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_gpudb_load(&db, ROOFLINE_SOURCE_DIR "/data/gpus", err), 0);
    ck_assert_uint_ge(db.n, 26); /* every file of data/gpus but schema.json */
    size_t judged = 0, vector = 0, fell = 0;
    for (size_t t = 0; t < sizeof real_traces / sizeof *real_traces; t++) {
        struct rl_trace_groups g;
        struct rl_torch_stats st;
        load_real(real_traces[t], &g, &st);
        for (size_t k = 0; k < db.n; k++) {
            const struct rl_gpu_spec *spec = &db.gpus[k];
            struct rl_ceilings c;
            ck_assert_int_eq(rl_ceilings_init(&c, spec, NULL, NULL, false, false, NULL, err), 0);
            for (size_t i = 0; i < g.n; i++) {
                const struct rl_trace_group *x = &g.v[i];
                if (!x->precision[0])
                    continue;
                const char *instead;
                struct rl_compute_roof has;
                int j = rl_ceilings_judge_nearest(&c, x->precision, &instead, err);
                ck_assert_msg(j >= 0, "%s on %s: %s", x->precision, spec->id, err);
                bool on_gpu =
                    rl_roof_from_spec(spec, x->precision, false, &has, err) == RL_OK;
                ck_assert_msg(on_gpu == (instead == NULL), "%s on %s: judged on %s",
                              x->precision, spec->id, c.compute[j].name);
                fell += instead != NULL;
            }
            ck_assert_int_eq(rl_report_build(&report, &c, &g, err), RL_OK);
            for (size_t i = 0; i < report.n; i++) {
                const struct rl_report_row *w = &report.rows[i];
                /* a row with no precision of its own sits on the default
                 * roof and is not judged (no loss; the notes say so) */
                if (w->roof < 0 || w->default_roof)
                    continue;
                const struct rl_compute_roof *r = &c.compute[w->roof];
                struct rl_compute_roof has;
                ck_assert_msg(rl_roof_from_spec(spec, r->name, false, &has, err) == RL_OK &&
                                  has.peak_tflops == r->peak_tflops,
                              "%s: %s judged on %s, which %s lacks", real_traces[t], w->name,
                              r->name, spec->id);
                judged++;
                if (w->op && !rl_torch_op_matmul(w->op)) {
                    ck_assert_msg(r->unit == RL_UNIT_CUDA,
                                  "%s on %s: %s (%s, %s) judged on the %s roof",
                                  real_traces[t], spec->id, w->name, w->op, w->dtype, r->label);
                    vector++;
                }
            }
            rl_report_release(&report);
        }
        rl_trace_groups_release(&g);
    }
    /* the property held over real rows, not an empty set: kernels judged,
     * most of them not matrix products, and roofs some GPUs lack */
    ck_assert_uint_gt(judged, 10000);
    ck_assert_uint_gt(vector, judged / 2);
    ck_assert_uint_gt(fell, 100);
    rl_gpudb_release(&db);
}
END_TEST

/* ROCm's convolutions costed (issue 32 (7)): in tests/data/torch-real/
 * tracelens_mi300x_resnet_act_checkpoint.json.gz the 117 forward calls go
 * aten::conv2d -> convolution -> _convolution -> miopen_convolution, whose
 * kernels carry the innermost call's cost. Summed over the 117
 * aten::convolution calls, 2 N Ho Wo Cout Cin kh kw (Ho = (H + 2p -
 * d(k - 1) - 1) / s + 1, from each call's Input Dims and Concrete Inputs,
 * counted by a separate script) = 210,546,524,160 FLOPs: the
 * miopen_convolution groups carry exactly that (before: 0, refused as
 * "stride, padding or dilation not in the trace" - miopen's padding is
 * argument 3, cuDNN's 2). */
START_TEST(miopen_convolution_from_a_real_trace)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    load_real("tracelens_mi300x_resnet_act_checkpoint.json.gz", &g, &st);
    double flops = 0;
    uint64_t counted = 0;
    for (size_t i = 0; i < g.n; i++)
        if (g.v[i].op && strcmp(g.v[i].op, "aten::miopen_convolution") == 0 && g.v[i].counted) {
            flops += g.v[i].flops;
            counted += g.v[i].counted;
        }
    ck_assert_double_eq(flops, 210546524160.0);
    ck_assert_uint_eq(counted, 117);
    for (size_t i = 0; i < st.n_unknown; i++)
        ck_assert_str_ne(st.unknown[i].op, "aten::miopen_convolution");
    rl_trace_groups_release(&g);
}
END_TEST

/* The kernel group of this name (and operator, when given). */
static const struct rl_trace_group *group_of(const struct rl_trace_groups *g, const char *name,
                                             const char *op, double comm_bytes)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->v[i].name, name) == 0 && (!op || (g->v[i].op && !strcmp(g->v[i].op, op))) &&
            (isnan(comm_bytes) || g->v[i].comm_bytes == comm_bytes))
            return &g->v[i];
    ck_abort_msg("no group '%s'", name);
    return NULL;
}

static const struct rl_report_row *row_of(const struct rl_report *r, const char *name,
                                          double comm_bytes)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].name, name) == 0 && r->rows[i].comm_bytes == comm_bytes)
            return &r->rows[i];
    ck_abort_msg("no row '%s'", name);
    return NULL;
}

#define RCCL_GENERIC "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"

/* RCCL on MI300X (issue 32 (6)): tests/data/torch-real/
 * tracelens_mi300x_resnet_act_checkpoint.json.gz, an 8-GPU DDP step. RCCL's
 * kernel is ncclDevKernel_Generic: its name says no collective; the
 * record_param_comms around it does (allreduce, 8 ranks, its message). The
 * six all-reduce launches carry 70,137,072 bytes in 47,137,038 ns: algbw
 * 70137072 / 47137038 = 1.487939 GB/s, x nccl-tests' 2 (8 - 1) / 8 = 1.75
 * = 2.603894 GB/s bus bandwidth, 0.58122% of the Infinity Fabric's 448 GB/s
 * per direction (7 links x 64). Before: no collective, no link roof. */
START_TEST(rccl_on_the_infinity_fabric)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    load_real("tracelens_mi300x_resnet_act_checkpoint.json.gz", &g, &st);
    const struct rl_trace_group *x = group_of(&g, RCCL_GENERIC, "record_param_comms", 70137072);
    ck_assert_str_eq(x->collective, "allreduce");
    ck_assert_int_eq(x->comm_group_size, 8);
    ck_assert_uint_eq(x->comm_launches, 6);
    ck_assert_double_eq(x->time_ns, 47137038);
    /* the broadcast of the start (6 launches, 58,080 bytes) */
    x = group_of(&g, RCCL_GENERIC, "record_param_comms", 58080);
    ck_assert_str_eq(x->collective, "broadcast");
    struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("mi300x"), NULL, NULL, false, false, NULL,
                                      err),
                     0);
    ck_assert_str_eq(c.link.label, "Infinity Fabric");
    ck_assert_double_eq(c.link.bandwidth_gbs, 448);
    ck_assert_int_eq(rl_report_build(&report, &c, &g, err), RL_OK);
    ck_assert_int_eq(rl_report_step_build(&report, &c, NAN, NAN, err), RL_OK);
    const struct rl_report_row *w = row_of(&report, RCCL_GENERIC, 70137072);
    ck_assert(w->comm);
    ck_assert_str_eq(w->collective, "allreduce");
    ck_assert_double_eq_tol(w->comm_busbw_gbs, 70137072.0 / 47137038 * 1.75, 1e-12);
    ck_assert_double_eq_tol(w->pct_of_link, 100 * 70137072.0 / 47137038 * 1.75 / 448, 1e-12);
    ck_assert_double_eq_tol(w->pct_of_link, 0.58122646, 1e-8);
    rl_report_release(&report);
    rl_trace_groups_release(&g);
}
END_TEST

#define MULTIMEM                                                                          \
    "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, " \
    "unsigned long, unsigned int**, unsigned long, unsigned long)"

/* Symmetric-memory all-reduce in a real vLLM decode on B200 (issue 33 (3)):
 * tests/data/torch-real/tracelens_b200_eager_trace.json.gz, tensor-parallel
 * rank 0 of 8. symm_mem::multimem_all_reduce_ launches
 * multimem_all_reduce_kernel: no "nccl" in its name and no
 * record_param_comms. Its input [2557440] bf16 is the message: 5,114,880
 * bytes a call, 37 calls = 189,250,560 bytes in 1,124,446 ns; the group is
 * the trace's world size, 8 (distributedInfo; the op's group name is not in
 * the trace): bus bandwidth 189250560 / 1124446 x 1.75 = 294.53 GB/s,
 * 32.726% of NVLink 5's 900 GB/s per direction. Before: a kernel of an
 * unknown operator, 18% of the GPU time unexplained. */
START_TEST(symmetric_memory_all_reduce_on_nvlink)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    load_real("tracelens_b200_eager_trace.json.gz", &g, &st);
    const struct rl_trace_group *x =
        group_of(&g, MULTIMEM, "symm_mem::multimem_all_reduce_", 189250560);
    ck_assert_str_eq(x->collective, "allreduce");
    ck_assert_int_eq(x->comm_group_size, 8);
    ck_assert_uint_eq(x->comm_launches, 37);
    ck_assert_double_eq(x->time_ns, 1124446);
    /* the other shape: [2727936] bf16 x 36 calls = 196,411,392 bytes */
    x = group_of(&g, MULTIMEM, "symm_mem::multimem_all_reduce_", 196411392);
    ck_assert_uint_eq(x->comm_launches, 36);
    ck_assert_uint_eq(st.comm_kernels, 74); /* 73 multimem + 1 NCCL all-gather */
    ck_assert_uint_eq(st.comm_with_bytes, 74);
    ck_assert_uint_eq(st.comm_group_from_world, 73);
    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "73 collective launches name no process group: their "
                                        "group is the trace's world size (8, distributedInfo)"));
    struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, rl_test_gpu("b200"), NULL, NULL, false, false, NULL,
                                      err),
                     0);
    ck_assert_int_eq(rl_report_build(&report, &c, &g, err), RL_OK);
    ck_assert_int_eq(rl_report_step_build(&report, &c, NAN, NAN, err), RL_OK);
    const struct rl_report_row *w = row_of(&report, MULTIMEM, 189250560);
    ck_assert(w->comm);
    ck_assert_int_lt(w->roof, 0);
    ck_assert_double_eq_tol(w->pct_of_link, 100 * 189250560.0 / 1124446 * 1.75 / 900, 1e-12);
    ck_assert_double_eq_tol(w->pct_of_link, 32.7260891, 1e-6);
    rl_report_release(&report);
    rl_trace_groups_release(&g);
}
END_TEST

/* One recognizer of communication, by what it is (issue 33 (3)). */
START_TEST(communication_by_what_it_is)
{
    static const struct {
        const char *kernel, *op;
        bool comm;
        const char *collective;
    } want[] = {
        /* NCCL / RCCL: the kernel's name, whatever the operator */
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", NULL, true, "allreduce"},
        {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", "aten::add", true,
         "sendrecv"},
        {RCCL_GENERIC, "record_param_comms", true, ""},
        {"mscclKernel_Sum_bf16_LL128(ncclDevComm*)", NULL, true, ""},
        /* symmetric memory, custom all-reduce, DeepEP by their kernels */
        {MULTIMEM, NULL, true, "allreduce"},
        {"void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 16>", NULL, true,
         "allreduce"},
        {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(...)", NULL, true,
         "allreduce"},
        {"void vllm::cross_device_reduce_2stage<half, 4>(...)", "", true, "allreduce"},
        {"void sglang::cross_device_reduce_2stage<float, 8>", NULL, true, "allreduce"},
        {"void tensorrt_llm::oneShotAllReduceKernel<__nv_bfloat16>", NULL, true, "allreduce"},
        {"void deep_ep::intranode::dispatch<8, 768>(...)", NULL, true, "alltoall"},
        {"void deep_ep::internode_ll::combine<false>(...)", NULL, true, "alltoall"},
        /* by the collective operator that launched it */
        {"some_kernel", "symm_mem::multimem_all_reduce_", true, "allreduce"},
        {"some_kernel", "symm_mem::two_shot_all_reduce_", true, "allreduce"},
        {"some_kernel", "_C_custom_ar::all_reduce", true, "allreduce"},
        {"some_kernel", "vllm::all_reduce", true, "allreduce"},
        {"some_kernel", "sgl_kernel::all_reduce", true, "allreduce"},
        {"some_kernel", "sgl_kernels::all_reduce_unreg", true, "allreduce"},
        {"some_kernel", "_C_custom_ar::qr_all_reduce", true, "allreduce"},
        {"some_kernel", "_c10d_functional::all_gather_into_tensor", true, "allgather"},
        {"some_kernel", "c10d::allreduce_", true, "allreduce"},
        {"some_kernel", "c10d::alltoall_base_", true, "alltoall"},
        {"some_kernel", "nccl:_reduce_scatter_base", true, "reducescatter"},
        {"some_kernel", "nccl:_all_gather_base", true, "allgather"},
        {"some_kernel", "deep_ep::dispatch", true, "alltoall"},
        {NULL, "symm_mem::multimem_all_reduce_", true, "allreduce"},
        /* not communication: ATen's copy under a collective, compute fused
         * with one, set-up calls, ordinary kernels */
        {"void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor>",
         "vllm::all_reduce", false, ""},
        {"some_kernel", "symm_mem::fused_all_gather_matmul", false, ""},
        {"some_kernel", "symm_mem::rendezvous", false, ""},
        {"some_kernel", "_C_custom_ar::init_custom_ar", false, ""},
        {"some_kernel", "c10d::barrier", false, ""},
        {"some_kernel", "vllm::moe_forward", false, ""},
        {"ampere_sgemm_128x64_nn", "aten::mm", false, ""},
        {"void reduce_kernel<512, 1>", "aten::sum", false, ""},
        {NULL, NULL, false, ""},
        {"", "", false, ""},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char coll[24] = "x";
        bool comm = rl_comm_recognize(want[i].kernel, want[i].op, coll, sizeof coll);
        ck_assert_msg(comm == want[i].comm, "%s / %s: %d", want[i].kernel, want[i].op, comm);
        ck_assert_msg(strcmp(coll, want[i].collective) == 0, "%s / %s: '%s'", want[i].kernel,
                      want[i].op, coll);
    }
    /* no room for the collective: only the answer */
    ck_assert(rl_comm_recognize(MULTIMEM, NULL, NULL, 0));
}
END_TEST

/* A collective operator's message from its inputs (no record_param_comms). */
START_TEST(collective_message_from_shapes)
{
    struct rl_torch_tensor buf = {.ndim = 1, .dims = {2557440}};
    struct rl_torch_arg args[3] = {
        {.kind = RL_TORCH_ARG_TENSOR, .type = BF16, .n_tensors = 1, .t = &buf, .concrete = ""},
        {.kind = RL_TORCH_ARG_SCALAR, .type = "", .concrete = ""},
        {.kind = RL_TORCH_ARG_SCALAR, .type = "", .concrete = ""}};
    struct rl_torch_op op = {.name = "symm_mem::multimem_all_reduce_", .n_args = 3,
                             .args = args, .profiler_flops = NAN};
    char coll[24];
    double bytes;
    /* 2,557,440 bf16 = 5,114,880 bytes */
    ck_assert(rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    ck_assert_str_eq(coll, "allreduce");
    ck_assert_double_eq(bytes, 5114880);
    /* vLLM's wrapper [888, 2880] bf16: the same message */
    struct rl_torch_tensor m = {.ndim = 2, .dims = {888, 2880}};
    args[0].t = &m;
    op.name = "vllm::all_reduce";
    ck_assert(rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    ck_assert_double_eq(bytes, 5114880);
    /* vLLM's / SGLang's custom all-reduce (int fa, Tensor inp, Tensor out,
     * ...): the first tensor, inp */
    struct rl_torch_arg ar[3] = {
        {.kind = RL_TORCH_ARG_SCALAR, .type = "int", .concrete = "1234"},
        {.kind = RL_TORCH_ARG_TENSOR, .type = F16, .n_tensors = 1, .t = &m, .concrete = ""},
        {.kind = RL_TORCH_ARG_TENSOR, .type = F16, .n_tensors = 1, .t = &m, .concrete = ""}};
    struct rl_torch_op custom = {.name = "_C_custom_ar::all_reduce", .n_args = 3, .args = ar,
                                 .profiler_flops = NAN};
    ck_assert(rl_torch_comm_message(&custom, coll, sizeof coll, &bytes));
    ck_assert_double_eq(bytes, 888.0 * 2880 * 2);
    /* an all-gather's message is its output: not from the inputs */
    op.name = "vllm::all_gather";
    ck_assert(rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    ck_assert_str_eq(coll, "allgather");
    ck_assert(isnan(bytes));
    /* a dtype unknown: no bytes */
    snprintf(args[0].type, sizeof args[0].type, "TensorList");
    op.name = "_C_custom_ar::all_reduce";
    ck_assert(rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    ck_assert(isnan(bytes));
    /* c10d's own and record_param_comms: record_param_comms says it */
    op.name = "c10d::allreduce_";
    ck_assert(!rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    op.name = "record_param_comms";
    ck_assert(!rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    op.name = "aten::add";
    ck_assert(!rl_torch_comm_message(&op, coll, sizeof coll, &bytes));
    ck_assert(isnan(bytes));
}
END_TEST

static Suite *torchops_suite(void)
{
    Suite *s = suite_create("torchops");
    TCase *matmul = tcase_create("matmul");
    tcase_add_test(matmul, mm_bf16);
    tcase_add_test(matmul, addmm_reads_the_bias);
    tcase_add_test(matmul, bmm_and_baddbmm);
    tcase_add_test(matmul, matmul_broadcasts_and_takes_vectors);
    tcase_add_test(matmul, linear_3d_input);
    tcase_add_test(matmul, scaled_mm_fp8_out_dtype);
    tcase_add_test(matmul, scaled_mm_fp4_packed);
    tcase_add_test(matmul, grouped_mm_layouts);
    suite_add_tcase(s, matmul);
    TCase *conv = tcase_create("conv");
    tcase_add_test(conv, convolution_2d);
    tcase_add_test(conv, transposed_convolution_groups);
    tcase_add_test(conv, convolution_lists_per_dim);
    tcase_add_test(conv, transposed_convolution_padding);
    tcase_add_test(conv, cudnn_convolution_argument_order);
    tcase_add_test(conv, convolution_backward_output_mask);
    tcase_add_test(conv, backend_convolutions);
    suite_add_tcase(s, conv);
    TCase *attention = tcase_create("attention");
    tcase_add_test(attention, sdpa_flash_causal_and_not);
    tcase_add_test(attention, sdpa_other_lengths_and_value_width);
    tcase_add_test(attention, sdpa_flash_backward_five_products);
    tcase_add_test(attention, flash_attention_forward_bshd);
    tcase_add_test(attention, efficient_attention_mask_type);
    suite_add_tcase(s, attention);
    TCase *other = tcase_create("other");
    tcase_add_test(other, embedding_gathers_rows);
    tcase_add_test(other, embedding_bag_sums_rows);
    tcase_add_test(other, embedding_dense_backward_rows);
    tcase_add_test(other, layer_norm_and_softmax);
    tcase_add_test(other, layer_norm_backward_reads_input_once);
    tcase_add_test(other, add_broadcasts);
    tcase_add_test(other, add_in_place);
    tcase_add_test(other, comparisons_write_bool);
    tcase_add_test(other, where_writes_the_values_dtype);
    tcase_add_test(other, sum_over_a_dim);
    tcase_add_test(other, argmax_writes_int64);
    tcase_add_test(other, norm_dim_follows_p);
    tcase_add_test(other, copies_and_casts);
    tcase_add_test(other, scalar_type_codes);
    tcase_add_test(other, cat_and_stack);
    tcase_add_test(other, foreach_add_lists);
    tcase_add_test(other, fused_adamw);
    tcase_add_test(other, pow_counts_by_exponent);
    suite_add_tcase(s, other);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, unknown_operator);
    tcase_add_test(limits, malformed_shapes);
    tcase_add_test(limits, no_arguments);
    tcase_add_test(limits, tensor_without_dims);
    suite_add_tcase(s, limits);
    TCase *roofs = tcase_create("roofs");
    tcase_add_test(roofs, dtype_names_and_bytes);
    tcase_add_test(roofs, kernel_roofs_from_names);
    tcase_add_test(roofs, kernel_roofs_every_word);
    tcase_add_test(roofs, kernel_roofs_from_dtype);
    tcase_add_test(roofs, kernel_roofs_low_precision_names);
    suite_add_tcase(s, roofs);
    TCase *real = tcase_create("real");
    tcase_set_timeout(real, 240);
    tcase_add_test(real, no_kernel_on_a_roof_it_cannot_run_on);
    tcase_add_test(real, rccl_on_the_infinity_fabric);
    tcase_add_test(real, miopen_convolution_from_a_real_trace);
    tcase_add_test(real, symmetric_memory_all_reduce_on_nvlink);
    tcase_add_test(real, communication_by_what_it_is);
    tcase_add_test(real, collective_message_from_shapes);
    suite_add_tcase(s, real);
    return s;
}

int main(void) { return rl_test_run(torchops_suite()); }
