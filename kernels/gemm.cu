/* gemm.cu - cuBLASLt GEMM per precision: set up once, run any of the heuristic's algorithms, check. */
#include "kernels/gemm.h"

#include "kernels/costs.h"

#include "analyzer/util/error.h"
#include "microbench/hash.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cublasLt.h>

namespace {

struct kind_config {
    enum rl_dtype ab, d;
    cudaDataType_t ab_type, d_type, scale_type;
    cublasComputeType_t compute;
    double tol;
    const char *roof, *label;
};

/* Tolerances: error over the root-sum-square of the products. */
const kind_config kinds[] = {
    {RL_DT_F64, RL_DT_F64, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 1e-10,
     "fp64-tc", "FP64"},
    {RL_DT_F32, RL_DT_F32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1e-5,
     "fp32", "FP32"},
    {RL_DT_F32, RL_DT_F32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
     2e-2, "tf32", "FP32 in, TF32 compute"},
    {RL_DT_F16, RL_DT_F16, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2e-2, "fp16",
     "FP16 in/out, FP32 accumulate"},
    {RL_DT_BF16, RL_DT_BF16, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2e-2,
     "bf16", "BF16 in/out, FP32 accumulate"},
    {RL_DT_E4M3, RL_DT_BF16, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 3e-2,
     "fp8", "FP8 E4M3 in, BF16 out, FP32 accumulate"},
    {RL_DT_S8, RL_DT_S32, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 0, "int8",
     "INT8 in, INT32 out"},
};

} // namespace

struct rl_gemm {
    const kind_config *cfg;
    int64_t m, n, k;
    cudaStream_t stream;
    struct rl_tensor a, b, d;
    bool own_a, own_b, own_d;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t heur[16];
    int n_algos;
    void *ws;
    size_t ws_bytes;
    float *scales;
    double one_d, zero_d;
    float one_f, zero_f;
    int32_t one_i, zero_i;
    char label[160];
};

static int lt_fail(char *errmsg, cublasStatus_t s, const char *expr, int line)
{
    return rl_fail(errmsg, RL_ECUDA, "gemm.cu:%d: %s: %s", line, expr, cublasLtGetStatusString(s));
}

#define LT(expr)                                                                 \
    do {                                                                         \
        cublasStatus_t s_ = (expr);                                              \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                       \
            rc = lt_fail(errmsg, s_, #expr, __LINE__);                           \
            goto fail;                                                           \
        }                                                                        \
    } while (0)

#define CU(expr)                                                                 \
    do {                                                                         \
        cudaError_t e_ = (expr);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            rc = rl_fail(errmsg, RL_ECUDA, "gemm.cu:%d: %s: %s", __LINE__, #expr, \
                         cudaGetErrorString(e_));                                \
            goto fail;                                                           \
        }                                                                        \
    } while (0)

static int own_tensor(struct rl_tensor *t, bool *own, const struct rl_tensor *given,
                      enum rl_dtype type, size_t n, uint32_t seed, cudaStream_t s, char *errmsg)
{
    if (given) {
        *t = *given;
        *own = false;
        if (given->t != type || given->n < n)
            return rl_fail(errmsg, RL_EINVAL, "GEMM operand of the wrong type or size");
        return RL_OK;
    }
    *own = true;
    int rc = rl_tensor_alloc(t, type, n, errmsg);
    if (rc == RL_OK && type != RL_DT_S32 && seed)
        rc = rl_tensor_fill(t, seed, 1.0f, s, errmsg);
    return rc;
}

extern "C" int rl_gemm_create(struct rl_gemm **out, enum rl_gemm_kind kind, int64_t m,
                              int64_t n, int64_t k, const struct rl_tensor *a,
                              const struct rl_tensor *b, const struct rl_tensor *d,
                              int max_algos, cudaStream_t stream, char *errmsg)
{
    int rc = RL_OK;
    struct rl_gemm *g = new rl_gemm();
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    *out = nullptr;
    g->cfg = &kinds[kind];
    g->m = m;
    g->n = n;
    g->k = k;
    g->stream = stream;
    g->one_d = g->one_f = 1;
    g->one_i = 1;
    g->ws_bytes = 64u << 20;
    if (max_algos > 16)
        max_algos = 16;
    snprintf(g->label, sizeof g->label, "GEMM %lldx%lldx%lld %s", (long long)m, (long long)n,
             (long long)k, g->cfg->roof);
    if ((rc = own_tensor(&g->a, &g->own_a, a, g->cfg->ab, (size_t)(m * k), 0xA11CEu, stream,
                         errmsg)) ||
        (rc = own_tensor(&g->b, &g->own_b, b, g->cfg->ab, (size_t)(k * n), 0xB0Bu, stream,
                         errmsg)) ||
        (rc = own_tensor(&g->d, &g->own_d, d, g->cfg->d, (size_t)(m * n), 0, stream, errmsg)))
        goto fail;
    CU(cudaMalloc(&g->ws, g->ws_bytes));
    LT(cublasLtCreate(&g->lt));
    LT(cublasLtMatmulDescCreate(&g->op, g->cfg->compute, g->cfg->scale_type));
    LT(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (g->cfg->ab == RL_DT_E4M3) {
        /* FP8 takes device scale factors; 1.0 leaves the values as they are. */
        const float ones[3] = {1, 1, 1};
        CU(cudaMalloc((void **)&g->scales, sizeof ones));
        /* On the GEMM's stream, landed before `ones` goes: a plain cudaMemcpy
         * would run on the legacy stream, unordered with a non-blocking one. */
        CU(cudaMemcpyAsync(g->scales, ones, sizeof ones, cudaMemcpyHostToDevice, stream));
        CU(cudaStreamSynchronize(stream));
        const float *sa = g->scales, *sb = g->scales + 1, *sd = g->scales + 2;
        LT(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa,
                                          sizeof sa));
        LT(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb,
                                          sizeof sb));
        /* D's scale applies to an FP8 output only (cuBLASLt's FP8 sample sets
         * it for FP8 D alone); a BF16 D takes none. */
        if (g->cfg->d == RL_DT_E4M3)
            LT(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd,
                                              sizeof sd));
    }
    LT(cublasLtMatrixLayoutCreate(&g->la, g->cfg->ab_type, k, m, k));
    LT(cublasLtMatrixLayoutCreate(&g->lb, g->cfg->ab_type, k, n, k));
    LT(cublasLtMatrixLayoutCreate(&g->ld, g->cfg->d_type, m, n, m));
    LT(cublasLtMatmulPreferenceCreate(&g->pref));
    LT(cublasLtMatmulPreferenceSetAttribute(g->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                            &g->ws_bytes, sizeof g->ws_bytes));
    {
        cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(g->lt, g->op, g->la, g->lb, g->ld,
                                                          g->ld, g->pref, max_algos, g->heur,
                                                          &g->n_algos);
        if (s != CUBLAS_STATUS_SUCCESS || g->n_algos == 0) {
            rc = rl_fail(errmsg, RL_EUNSUPPORTED,
                         "cuBLASLt offers no algorithm for %s on this GPU (%s)", g->cfg->label,
                         cublasLtGetStatusString(s));
            goto fail;
        }
    }
    CU(cudaStreamSynchronize(stream));
    *out = g;
    return RL_OK;
fail:
    rl_gemm_destroy(g);
    return rc;
}

extern "C" void rl_gemm_destroy(struct rl_gemm *g)
{
    if (!g)
        return;
    if (g->pref)
        cublasLtMatmulPreferenceDestroy(g->pref);
    if (g->la)
        cublasLtMatrixLayoutDestroy(g->la);
    if (g->lb)
        cublasLtMatrixLayoutDestroy(g->lb);
    if (g->ld)
        cublasLtMatrixLayoutDestroy(g->ld);
    if (g->op)
        cublasLtMatmulDescDestroy(g->op);
    if (g->lt)
        cublasLtDestroy(g->lt);
    if (g->own_a)
        rl_tensor_free(&g->a);
    if (g->own_b)
        rl_tensor_free(&g->b);
    if (g->own_d)
        rl_tensor_free(&g->d);
    cudaFree(g->ws);
    cudaFree(g->scales);
    delete g;
}

extern "C" int rl_gemm_algos(const struct rl_gemm *g) { return g->n_algos; }

extern "C" int rl_gemm_run(struct rl_gemm *g, int algo, char *errmsg)
{
    const void *alpha = g->cfg->scale_type == CUDA_R_64F   ? (const void *)&g->one_d
                        : g->cfg->scale_type == CUDA_R_32I ? (const void *)&g->one_i
                                                           : (const void *)&g->one_f;
    const void *beta = g->cfg->scale_type == CUDA_R_64F   ? (const void *)&g->zero_d
                       : g->cfg->scale_type == CUDA_R_32I ? (const void *)&g->zero_i
                                                          : (const void *)&g->zero_f;
    if (algo < 0 || algo >= g->n_algos)
        return rl_fail(errmsg, RL_EINVAL, "no algorithm %d", algo);
    cublasStatus_t s = cublasLtMatmul(g->lt, g->op, alpha, g->a.d, g->la, g->b.d, g->lb, beta,
                                      g->d.d, g->ld, g->d.d, g->ld, &g->heur[algo].algo, g->ws,
                                      g->ws_bytes, g->stream);
    return s == CUBLAS_STATUS_SUCCESS ? RL_OK : lt_fail(errmsg, s, "cublasLtMatmul", __LINE__);
}

extern "C" int rl_gemm_check(struct rl_gemm *g, int samples, double *worst, char *why,
                             char *errmsg)
{
    const int64_t K = g->k;
    double *row = new double[K], *col = new double[K];
    int rc = RL_OK;
    *worst = 0;
    cudaError_t e = cudaStreamSynchronize(g->stream);
    if (e != cudaSuccess) {
        rc = rl_fail(errmsg, RL_ECUDA, "GEMM: %s", cudaGetErrorString(e));
        samples = 0;
    }
    for (int s = 0; s < samples && rc == RL_OK; s++) {
        const int64_t m = rl_mb_hash((uint32_t)s * 31u + 1u) % g->m;
        const int64_t n = rl_mb_hash((uint32_t)s * 37u + 2u) % g->n;
        double got;
        /* A stored K x M: output m's weights are contiguous; B K x N likewise. */
        if ((rc = rl_tensor_read(&g->a, (size_t)(m * K), (size_t)K, 1, row, errmsg)) ||
            (rc = rl_tensor_read(&g->b, (size_t)(n * K), (size_t)K, 1, col, errmsg)) ||
            (rc = rl_tensor_read(&g->d, (size_t)(m + n * g->m), 1, 1, &got, errmsg)))
            break;
        double ref = 0, rss = 0;
        for (int64_t k = 0; k < K; k++) {
            ref += row[k] * col[k];
            rss += row[k] * col[k] * row[k] * col[k];
        }
        double err, scale = sqrt(rss) + 1e-30;
        if (rl_check_close(g->label, &got, &ref, &scale, 1, g->cfg->tol, &err, why) != 0) {
            snprintf(why, 160, "%s: D[%lld][%lld] = %.6g, host %.6g", g->label, (long long)m,
                     (long long)n, got, ref);
            *worst = err;
            rc = -1;
            break;
        }
        *worst = err > *worst ? err : *worst;
    }
    delete[] row;
    delete[] col;
    return rc;
}

extern "C" double rl_gemm_flops(const struct rl_gemm *g) { return 2.0 * g->m * g->n * g->k; }

extern "C" double rl_gemm_min_bytes(const struct rl_gemm *g)
{
    return rl_gemm_cost(g->m, g->n, g->k, g->cfg->ab, g->cfg->d, g->cfg->roof).bytes;
}

extern "C" const char *rl_gemm_label(const struct rl_gemm *g) { return g->cfg->label; }
extern "C" const char *rl_gemm_roof(const struct rl_gemm *g) { return g->cfg->roof; }
extern "C" double rl_gemm_tolerance(const struct rl_gemm *g) { return g->cfg->tol; }
extern "C" const struct rl_tensor *rl_gemm_output(const struct rl_gemm *g) { return &g->d; }
