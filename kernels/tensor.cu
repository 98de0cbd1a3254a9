/* tensor.cu - typed device buffers filled with reproducible data, read back as doubles for checks. */
#include "kernels/tensor.h"

#include "analyzer/util/error.h"
#include "microbench/fp.h"
#include "microbench/hash.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>



static int cuda_fail(char *errmsg, cudaError_t e, const char *what)
{
    return rl_fail(errmsg, RL_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

extern "C" int rl_tensor_alloc(struct rl_tensor *x, enum rl_dtype t, size_t n, char *errmsg)
{
    x->t = t;
    x->n = n;
    x->d = nullptr;
    cudaError_t e = cudaMalloc(&x->d, n * rl_dtype_bytes(t) + 16);
    return e == cudaSuccess ? RL_OK : cuda_fail(errmsg, e, "cudaMalloc");
}

extern "C" void rl_tensor_free(struct rl_tensor *x)
{
    if (x->d)
        cudaFree(x->d);
    x->d = nullptr;
}

__global__ void rl_tensor_fill_kernel(void *buf, size_t n, uint32_t seed, float scale, int t)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const uint32_t h = rl_mb_word(i, seed);
        const float x = (rl_mb_unit_float(h) * 4.0f - 3.0f) * scale;
        switch (t) {
        case RL_DT_F64:
            ((double *)buf)[i] = x;
            break;
        case RL_DT_F32:
            ((float *)buf)[i] = x;
            break;
        case RL_DT_F16:
            ((__half *)buf)[i] = __float2half_rn(x);
            break;
        case RL_DT_BF16:
            ((__nv_bfloat16 *)buf)[i] = __float2bfloat16_rn(x);
            break;
        case RL_DT_E4M3:
            ((__nv_fp8_storage_t *)buf)[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
            break;
        case RL_DT_S8:
            ((int8_t *)buf)[i] = (int8_t)((int)(h % 15) - 7);
            break;
        default:
            ((int32_t *)buf)[i] = (int32_t)((int)(h % 15) - 7);
        }
    }
}

extern "C" int rl_tensor_fill(struct rl_tensor *x, uint32_t seed, float scale, cudaStream_t s,
                              char *errmsg)
{
    rl_tensor_fill_kernel<<<1024, 256, 0, s>>>(x->d, x->n, seed, scale, (int)x->t);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? RL_OK : cuda_fail(errmsg, e, "fill kernel");
}

extern "C" double rl_dtype_decode(enum rl_dtype t, const void *p)
{
    switch (t) {
    case RL_DT_F64: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    case RL_DT_F32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case RL_DT_F16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return rl_fp16_to_double(h);
    }
    case RL_DT_BF16: {
        uint16_t b;
        memcpy(&b, p, 2);
        return rl_bf16_to_double(b);
    }
    case RL_DT_E4M3:
        return rl_e4m3_to_double(*(const uint8_t *)p);
    case RL_DT_S8:
        return *(const int8_t *)p;
    default: {
        int32_t s;
        memcpy(&s, p, 4);
        return s;
    }
    }
}

extern "C" int rl_tensor_read(const struct rl_tensor *x, size_t i, size_t count, size_t stride,
                              double *out, char *errmsg)
{
    const size_t eb = rl_dtype_bytes(x->t);
    if (count == 0)
        return RL_OK;
    if (i + (count - 1) * stride >= x->n)
        return rl_fail(errmsg, RL_EINVAL, "read past the end of a tensor");
    unsigned char *tmp = new unsigned char[count * eb];
    cudaError_t e = cudaMemcpy2D(tmp, eb, (const char *)x->d + i * eb, stride * eb, eb, count,
                                 cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        for (size_t k = 0; k < count; k++)
            out[k] = rl_dtype_decode(x->t, tmp + k * eb);
    delete[] tmp;
    return e == cudaSuccess ? RL_OK : cuda_fail(errmsg, e, "cudaMemcpy2D");
}

extern "C" int rl_check_close(const char *what, const double *got, const double *want,
                              const double *scale, size_t n, double tol, double *worst,
                              char *why)
{
    *worst = 0;
    for (size_t i = 0; i < n; i++) {
        const double s = scale ? scale[i] : 1.0;
        const double err = fabs(got[i] - want[i]) / (s > 0 ? s : 1e-30);
        if (!(err <= tol)) { /* NaN fails too */
            snprintf(why, 160, "%s: element %zu is %.6g, host %.6g (error %.2g > %.2g)", what, i,
                     got[i], want[i], err, tol);
            *worst = err;
            return -1;
        }
        *worst = err > *worst ? err : *worst;
    }
    return 0;
}
