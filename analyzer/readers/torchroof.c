/* torchroof.c - the roof a PyTorch kernel runs on: what its name says (instruction, library or type words), else its operator's dtype on the unit its kind of work uses.
 *
 * The rule (TORCH-OPS.md, "Which roof"): a kernel that is not a matrix
 * product (elementwise, reductions, norms, copies) runs on the vector unit
 * (CUDA cores, AMD stream processors) and takes that unit's roof of its
 * dtype - FP32's where the unit has no rate of the dtype (integers, bool,
 * FP8/FP4 data, unknown) - never a Tensor Core roof. A matrix product takes
 * the roof its name says, else its dtype's Tensor Core roof. Whether the
 * GPU has that roof is the ceilings' question (rl_ceilings_judge_nearest):
 * a roof the GPU lacks becomes the one its work runs on there.
 */
#include "analyzer/readers/torchops.h"

#include <ctype.h>
#include <string.h>

static bool has(const char *s, const char *w)
{
    return strstr(s, w) != NULL;
}

/* AMD Tensile (rocBLAS, hipBLASLt): Cijk_Ailk_Bljk_<types>_..._MI<m>x<n>x<k>...:
 * types HHS (half in/out, single accumulate), BBS (bf16), SSS, DDD, I8II,
 * F8... ; MI: matrix cores. Newer hipBLASLt names give the data type as
 * one letter (Cijk_Alik_Bljk_B_BS_BH_Bias_..., Cijk_Ailk_Bljk_S_B_Bias_...):
 * the fourth word is read first. An FP32 GEMM on MFMA (MI16x16x1: the
 * v_mfma_f32_16x16x1f32 shape) runs at the FP32 rate, not XF32's. */
static const char *amd_type(const char *n, bool mi)
{
    static const struct {
        const char *word, *matrix, *vector;
    } t[] = {{"s", "fp32", "fp32"},    {"sss", "fp32", "fp32"},  {"ss", "fp32", "fp32"},
             {"sb", "fp32", "fp32"},   {"b", "bf16", "bf16-cuda"}, {"bbs", "bf16", "bf16-cuda"},
             {"bss", "bf16", "bf16-cuda"}, {"bb", "bf16", "bf16-cuda"}, {"bbh", "bf16", "bf16-cuda"},
             {"h", "fp16", "fp16-cuda"}, {"hhs", "fp16", "fp16-cuda"}, {"hss", "fp16", "fp16-cuda"},
             {"hh", "fp16", "fp16-cuda"}, {"hhh", "fp16", "fp16-cuda"}, {"d", "fp64-tc", "fp64"},
             {"ddd", "fp64-tc", "fp64"}, {"dd", "fp64-tc", "fp64"}, {"db", "fp64-tc", "fp64"},
             {"f8", "fp8", "fp8"},     {"b8", "fp8", "fp8"},     {"i8", "int8", "int8"},
             {"f4", "fp4", "fp4"},     {"f6", "fp6", "fp6"}};
    const char *w = n;
    for (int i = 0; i < 3 && w; i++) /* past cijk_, a..._, b..._ */
        if ((w = strchr(w, '_')))
            w++;
    if (!w)
        return NULL;
    size_t len = strcspn(w, "_");
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strlen(t[i].word) == len && strncmp(w, t[i].word, len) == 0)
            return mi ? t[i].matrix : t[i].vector;
    return NULL;
}

static const char *amd_roof(const char *n)
{
    bool mi = has(n, "_mi");
    const char *typed = amd_type(n, mi);
    if (typed)
        return typed;
    if (has(n, "_f4") || has(n, "f4f4"))
        return "fp4";
    if (has(n, "_f6") || has(n, "f6f6"))
        return "fp6";
    if (has(n, "_f8") || has(n, "f8f8") || has(n, "_b8"))
        return "fp8";
    if (has(n, "_i8") || has(n, "4xi8"))
        return "int8";
    if (has(n, "_bbs") || has(n, "_bss") || has(n, "_bb_") || has(n, "_bbh"))
        return mi ? "bf16" : "bf16-cuda";
    if (has(n, "_hhs") || has(n, "_hss") || has(n, "_hh_") || has(n, "_hhh"))
        return mi ? "fp16" : "fp16-cuda";
    if (has(n, "_ddd") || has(n, "_dd_") || has(n, "_db_"))
        return mi ? "fp64-tc" : "fp64";
    if (has(n, "_sss") || has(n, "_ss_") || has(n, "_sb_"))
        return "fp32";
    return NULL;
}

/* The vector unit's roof of a dtype; NULL where the unit has no rate of
 * it (the caller takes FP32's). */
static const char *vector_roof(const char *dtype)
{
    if (strcmp(dtype, "fp32") == 0)
        return "fp32";
    if (strcmp(dtype, "fp16") == 0)
        return "fp16-cuda";
    if (strcmp(dtype, "bf16") == 0)
        return "bf16-cuda";
    if (strcmp(dtype, "fp64") == 0)
        return "fp64";
    return NULL;
}

/* A matrix product's Tensor Core roof by its dtype (TF32 for FP32: the
 * most generous, noted by the caller); "" none. */
static const char *tensor_roof(const char *dtype)
{
    static const char *const t[][2] = {{"fp32", "tf32"}, {"fp16", "fp16"}, {"bf16", "bf16"},
                                       {"fp64", "fp64-tc"}, {"fp8", "fp8"}, {"fp4", "fp4"},
                                       {"int8", "int8"}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(dtype, t[i][0]) == 0)
            return t[i][1];
    return "";
}

/* The roof a matrix product's name says; NULL when it says none. The
 * narrowest format first: an NVFP4 kernel names its E4M3 scales
 * ("ue4m3xe2m1") and an MX one its E8M0 scales beside the data type. */
static const char *name_roof(const char *n)
{
    if (strncmp(n, "cijk_", 5) == 0) {
        const char *r = amd_roof(n);
        if (r)
            return r;
    }
    /* FP4: NVFP4 and MXFP4 (E2M1 data; tcgen05 kind::mxf4 / mxf4nvf4) */
    if (has(n, "e2m1") || has(n, "nvfp4") || has(n, "mxf4") || has(n, "fp4"))
        return "fp4";
    /* FP6: E3M2 and E2M3 data (MXFP6) */
    if (has(n, "e3m2") || has(n, "e2m3") || has(n, "mxf6") || has(n, "fp6"))
        return "fp6";
    /* FP8: E4M3 / E5M2 data, MXFP8, sm_100's kind::f8f6f4 (FP8 inputs the
     * common case: the FP6/FP4 ones name their types), DeepGEMM's fp8_gemm */
    if (has(n, "e4m3") || has(n, "e5m2") || has(n, "fp8") || has(n, "qmma") ||
        has(n, "f8f6f4") || has(n, "mxf8"))
        return "fp8";
    if (has(n, "i8816") || has(n, "imma") || has(n, "int8") || has(n, "i8i8") ||
        has(n, "s8s8"))
        return "int8";
    if (has(n, "bf16"))
        return "bf16";
    if (has(n, "h1688") || has(n, "h16816") || has(n, "h884") || has(n, "hgemm") ||
        has(n, "f16") || has(n, "fp16") || has(n, "hmma") || has(n, "half"))
        return "fp16";
    if (has(n, "tf32") || has(n, "s1688") || has(n, "s16816") || has(n, "xf32"))
        return "tf32";
    if (has(n, "dmma") || has(n, "d884") || has(n, "tensorop_d"))
        return "fp64-tc";
    return NULL;
}

const char *rl_torch_kernel_roof(const char *kernel, const char *dtype, bool matmul,
                                 const char **noted)
{
    static const char *const from_dtype =
        "the kernel name does not say: the dtype's most generous roof";
    dtype = dtype ? dtype : "";
    *noted = "";
    const char *vec = vector_roof(dtype);
    /* elementwise, reductions, norms: the vector unit of their dtype; a
     * trace without "Input type" names none, and a roof picked for it
     * would be a guess the report would then call a loss: none */
    if (!matmul)
        return vec ? vec : dtype[0] ? "fp32" : "";
    /* the name, lowered, only for what it says (matmuls: most kernels are
     * not, and lowering every name was a fortieth of a trace's time) */
    char n[512];
    size_t k = 0;
    for (; kernel && kernel[k] && k + 1 < sizeof n; k++)
        n[k] = (char)tolower((unsigned char)kernel[k]);
    n[k] = 0;
    const char *r = name_roof(n);
    if (r)
        return r;
    /* CUDA-core GEMM and GEMV kernels (cuBLAS sgemm on any GPU, V100's
     * volta_sgemm included): the vector unit */
    if (has(n, "sgemm") || has(n, "gemv") || has(n, "gemmsn") || has(n, "gemmk1"))
        return vec ? vec : "fp32";
    r = tensor_roof(dtype);
    if (r[0])
        *noted = from_dtype;
    return r;
}
