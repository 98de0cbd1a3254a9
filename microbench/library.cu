/* library.cu - the library ceiling: cuBLASLt GEMM per precision, best of the algorithms the heuristic offers.
 *
 * Shape M = N = K (8192; FP64 4096 in quick mode), TN layout (A transposed,
 * the layout FP8 and INT8 Tensor Core GEMMs require), D = A B (alpha 1,
 * beta 0). Work = 2 M N K. Inputs come from rl_mb_word() through the
 * type's rounding, so the host rebuilds any row or column and checks 64
 * sampled outputs against a dot product in double.
 */
#include "verify.h"
#include "error.h"
#include "fp.h"
#include "hash.h"
#include "nvml.h"
#include "runner.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace {

enum elem { E_F64, E_F32, E_F16, E_BF16, E_E4M3, E_S8, E_S32 };

struct gemm_config {
    const char *name;
    elem ab, d;
    cudaDataType_t ab_type, d_type, scale_type;
    cublasComputeType_t compute;
    double tol;
    const char *label;
};

const gemm_config configs[] = {
    {"gemm-fp64", E_F64, E_F64, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 1e-10,
     "cublasLtMatmul FP64"},
    {"gemm-tf32", E_F32, E_F32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_FAST_TF32, 2e-2, "cublasLtMatmul FP32 in, TF32 compute"},
    {"gemm-fp16", E_F16, E_F16, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2e-2,
     "cublasLtMatmul FP16 in/out, FP32 accumulate"},
    {"gemm-bf16", E_BF16, E_BF16, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     2e-2, "cublasLtMatmul BF16 in/out, FP32 accumulate"},
    {"gemm-fp8", E_E4M3, E_BF16, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     3e-2, "cublasLtMatmul FP8 E4M3 in, BF16 out, FP32 accumulate"},
    {"gemm-int8", E_S8, E_S32, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 0,
     "cublasLtMatmul INT8 in, INT32 out"},
};

size_t elem_size(elem e)
{
    switch (e) {
    case E_F64:
        return 8;
    case E_F32:
    case E_S32:
        return 4;
    case E_F16:
    case E_BF16:
        return 2;
    default:
        return 1;
    }
}

/* The value at storage index idx, as the host sees it (double). */
double host_value(elem e, uint64_t idx, uint32_t seed)
{
    const uint32_t h = rl_mb_word(idx, seed);
    const float x = rl_mb_unit_float(h) * 4.0f - 3.0f; /* [-1, 1) */
    switch (e) {
    case E_F64:
    case E_F32:
        return x;
    case E_F16:
        return rl_fp16_to_double(rl_fp16_from_double(x));
    case E_BF16:
        return rl_bf16_to_double(rl_bf16_from_double(x));
    case E_E4M3:
        return rl_e4m3_to_double(rl_e4m3_from_double(x));
    case E_S8:
        return (double)((int)(h % 15) - 7);
    default:
        return NAN;
    }
}

__global__ void fill_kernel(void *buf, size_t n, uint32_t seed, int e)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const uint32_t h = rl_mb_word(i, seed);
        const float x = rl_mb_unit_float(h) * 4.0f - 3.0f;
        switch (e) {
        case E_F64:
            ((double *)buf)[i] = x;
            break;
        case E_F32:
            ((float *)buf)[i] = x;
            break;
        case E_F16:
            ((__half *)buf)[i] = __float2half_rn(x);
            break;
        case E_BF16:
            ((__nv_bfloat16 *)buf)[i] = __float2bfloat16_rn(x);
            break;
        case E_E4M3:
            ((__nv_fp8_storage_t *)buf)[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
            break;
        case E_S8:
            ((int8_t *)buf)[i] = (int8_t)((int)(h % 15) - 7);
            break;
        default:
            break;
        }
    }
}

double decode(elem e, const void *p)
{
    switch (e) {
    case E_F64: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    case E_F32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case E_F16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return rl_fp16_to_double(h);
    }
    case E_BF16: {
        uint16_t b;
        memcpy(&b, p, 2);
        return rl_bf16_to_double(b);
    }
    case E_S32: {
        int32_t s;
        memcpy(&s, p, 4);
        return s;
    }
    default:
        return NAN;
    }
}

int lt_check(struct rl_run *r, cublasStatus_t s, const char *expr, int line)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return RL_OK;
    return rl_fail(r->errmsg, RL_ECUDA, "library.cu:%d: %s: %s", line, expr,
                   cublasLtGetStatusString(s));
}

#define LT(expr)                                                                 \
    do {                                                                         \
        if ((rc = lt_check(r, (expr), #expr, __LINE__)) != 0)                    \
            goto done;                                                           \
    } while (0)

} // namespace

extern "C" int rl_run_library(struct rl_run *r, const struct rl_mb_def *def,
                              struct rl_mb_raw *out)
{
    const gemm_config *cfg = nullptr;
    for (const auto &c : configs)
        if (strcmp(c.name, def->name) == 0)
            cfg = &c;
    const char *why;
    if (!cfg)
        return rl_fail(r->errmsg, RL_EINVAL, "no GEMM configuration for %s", def->name);
    if (!rl_mb_supported(def, r->dev->cc_major, r->dev->cc_minor, &why)) {
        out->status = RL_MB_UNSUPPORTED;
        snprintf(out->reason, sizeof out->reason, "%s", why);
        return RL_OK;
    }
    const bool quick = r->opt->quick;
    const int64_t n = (cfg->ab == E_F64 && quick) ? 4096 : 8192;
    const int64_t M = n, N = n, K = n;
    int rc = RL_OK;
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    void *A = nullptr, *B = nullptr, *D = nullptr, *ws = nullptr;
    float *scales = nullptr;
    const size_t ws_bytes = 64u << 20;
    cublasLtMatmulHeuristicResult_t heur[16];
    int returned = 0, best = -1;
    double best_ns = INFINITY;
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    /* alpha = 1, beta = 0 in the scale type. */
    double one_d = 1, zero_d = 0;
    float one_f = 1, zero_f = 0;
    int32_t one_i = 1, zero_i = 0;
    const void *alpha = cfg->scale_type == CUDA_R_64F   ? (const void *)&one_d
                        : cfg->scale_type == CUDA_R_32I ? (const void *)&one_i
                                                        : (const void *)&one_f;
    const void *beta = cfg->scale_type == CUDA_R_64F   ? (const void *)&zero_d
                       : cfg->scale_type == CUDA_R_32I ? (const void *)&zero_i
                                                       : (const void *)&zero_f;

    RL_CK(cudaMalloc(&A, (size_t)M * K * elem_size(cfg->ab)));
    RL_CK(cudaMalloc(&B, (size_t)K * N * elem_size(cfg->ab)));
    RL_CK(cudaMalloc(&D, (size_t)M * N * elem_size(cfg->d)));
    RL_CK(cudaMalloc(&ws, ws_bytes));
    fill_kernel<<<r->dev->sm_count * 8, 256, 0, r->stream>>>(A, (size_t)M * K, 0xA11CEu, cfg->ab);
    fill_kernel<<<r->dev->sm_count * 8, 256, 0, r->stream>>>(B, (size_t)K * N, 0xB0Bu, cfg->ab);
    RL_CK(cudaGetLastError());
    RL_CK(cudaStreamSynchronize(r->stream));

    LT(cublasLtCreate(&lt));
    LT(cublasLtMatmulDescCreate(&op, cfg->compute, cfg->scale_type));
    LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (cfg->ab == E_E4M3) {
        /* FP8 wants device scale factors; 1.0 leaves the values as they are. */
        const float ones[3] = {1, 1, 1};
        RL_CK(cudaMalloc((void **)&scales, sizeof ones));
        RL_CK(cudaMemcpy(scales, ones, sizeof ones, cudaMemcpyHostToDevice));
        const float *sa = scales, *sb = scales + 1, *sd = scales + 2;
        LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
        LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
        LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd));
    }
    /* Column-major: A stored K x M (op T gives M x K), B K x N, D M x N. */
    LT(cublasLtMatrixLayoutCreate(&la, cfg->ab_type, K, M, K));
    LT(cublasLtMatrixLayoutCreate(&lb, cfg->ab_type, K, N, K));
    LT(cublasLtMatrixLayoutCreate(&ld, cfg->d_type, M, N, M));
    LT(cublasLtMatmulPreferenceCreate(&pref));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                            &ws_bytes, sizeof ws_bytes));
    LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, quick ? 4 : 16, heur,
                                      &returned));
    if (returned == 0) {
        out->status = RL_MB_UNSUPPORTED;
        snprintf(out->reason, sizeof out->reason, "cuBLASLt offers no algorithm for %s here",
                 cfg->label);
        goto done;
    }

    /* Time each algorithm briefly; keep the fastest. */
    for (int i = 0; i < returned; i++) {
        if (heur[i].state != CUBLAS_STATUS_SUCCESS)
            continue;
        double times[3];
        bool ok = true;
        for (int k = 0; k < 3 && ok; k++) {
            float ms;
            RL_CK(cudaEventRecord(r->ev0, r->stream));
            cublasStatus_t s = cublasLtMatmul(lt, op, alpha, A, la, B, lb, beta, D, ld, D, ld,
                                              &heur[i].algo, ws, ws_bytes, r->stream);
            RL_CK(cudaEventRecord(r->ev1, r->stream));
            RL_CK(cudaEventSynchronize(r->ev1));
            RL_CK(cudaEventElapsedTime(&ms, r->ev0, r->ev1));
            ok = s == CUBLAS_STATUS_SUCCESS;
            times[k] = ms * 1e6;
        }
        if (ok && rl_run_median(times, 3) < best_ns) {
            best_ns = rl_run_median(times, 3);
            best = i;
        }
    }
    if (best < 0) {
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason, "every cuBLASLt algorithm failed");
        goto done;
    }

    /* Timed runs of the best, batched to the target time. */
    {
        int batch = (int)fmax(1, ceil(r->target_ns / best_ns));
        rl_nvml_sampler_start();
        for (int i = 0; i < r->reps; i++) {
            float ms;
            RL_CK(cudaEventRecord(r->ev0, r->stream));
            for (int k = 0; k < batch; k++)
                LT(cublasLtMatmul(lt, op, alpha, A, la, B, lb, beta, D, ld, D, ld,
                                  &heur[best].algo, ws, ws_bytes, r->stream));
            RL_CK(cudaEventRecord(r->ev1, r->stream));
            RL_CK(cudaEventSynchronize(r->ev1));
            RL_CK(cudaEventElapsedTime(&ms, r->ev0, r->ev1));
            out->time_ns[i] = ms * 1e6 / batch;
            out->n_reps = i + 1;
        }
        rl_nvml_sampler_stop(&out->cond);
    }

    /* Check 64 sampled outputs against the host. */
    {
        const size_t de = elem_size(cfg->d);
        double worst = 0;
        double *row = new double[K], *col = new double[K];
        for (int s = 0; s < 64 && out->status == RL_MB_OK; s++) {
            const int64_t m = rl_mb_hash((uint32_t)s * 31u + 1u) % M;
            const int64_t c = rl_mb_hash((uint32_t)s * 37u + 2u) % N;
            for (int64_t k = 0; k < K; k++) {
                row[k] = host_value(cfg->ab, (uint64_t)(k + m * K), 0xA11CEu);
                col[k] = host_value(cfg->ab, (uint64_t)(k + c * K), 0xB0Bu);
            }
            double ref = 0, rss = 0;
            for (int64_t k = 0; k < K; k++) {
                ref += row[k] * col[k];
                rss += row[k] * col[k] * row[k] * col[k];
            }
            unsigned char got[8];
            RL_CK(cudaMemcpy(got, (const char *)D + (size_t)(m + c * M) * de, de,
                             cudaMemcpyDeviceToHost));
            const double have = decode(cfg->d, got);
            const double err = fabs(have - ref) / (sqrt(rss) + 1e-30);
            worst = err > worst ? err : worst;
            if (!(err <= cfg->tol)) {
                out->status = RL_MB_CHECK_FAILED;
                snprintf(out->reason, sizeof out->reason,
                         "output check failed: D[%lld][%lld] = %.9g, host %.9g", (long long)m,
                         (long long)c, have, ref);
            }
        }
        delete[] row;
        delete[] col;
        out->check_error = worst;
        snprintf(out->check, sizeof out->check,
                 "64 sampled outputs vs host dot products in double: error / rss(products) "
                 "<= %g (largest %.2g)", cfg->tol, worst);
    }
    out->work = 2.0 * M * N * K;
    out->bytes = (double)(M * K + K * N) * elem_size(cfg->ab) + (double)M * N * elem_size(cfg->d);
    snprintf(out->instruction, sizeof out->instruction, "cublasLtMatmul");
    snprintf(out->variant, sizeof out->variant, "%s, %lldx%lldx%lld TN, best of %d algorithms",
             cfg->label, (long long)M, (long long)N, (long long)K, returned);
done:
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (ld)
        cublasLtMatrixLayoutDestroy(ld);
    if (op)
        cublasLtMatmulDescDestroy(op);
    if (lt)
        cublasLtDestroy(lt);
    cudaFree(A);
    cudaFree(B);
    cudaFree(D);
    cudaFree(ws);
    cudaFree(scales);
    if (rc && out->status == RL_MB_OK) {
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason, "%s", r->errmsg);
    }
    return rc == RL_ECUDA ? RL_OK : rc;
}
