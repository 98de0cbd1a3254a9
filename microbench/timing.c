/* timing.c - what every benchmark runner shares: CUDA error checks, timed launches, medians, warm-up. */
#include "microbench/runner.h"

#include "analyzer/util/error.h"
#include "microbench/geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rl_cuda_check(struct rl_run *r, cudaError_t e, const char *expr, const char *file,
                  int line)
{
    if (e == cudaSuccess)
        return RL_OK;
    const char *base = strrchr(file, '/');
    return rl_fail(r->errmsg, RL_ECUDA, "%s:%d: %s: %s (%s)", base ? base + 1 : file, line,
                   expr, cudaGetErrorString(e), cudaGetErrorName(e));
}

int rl_time_launches(struct rl_run *r, const void *fn, unsigned grid, unsigned block,
                     void **args, size_t smem, int launches, double *ns)
{
    int rc = RL_OK;
    float ms = 0;
    dim3 g = {grid, 1, 1}, b = {block, 1, 1};
    RL_CK(cudaEventRecord(r->ev0, r->stream));
    for (int i = 0; i < launches; i++)
        RL_CK(cudaLaunchKernel(fn, g, b, args, smem, r->stream));
    RL_CK(cudaEventRecord(r->ev1, r->stream));
    RL_CK(cudaEventSynchronize(r->ev1));
    RL_CK(cudaGetLastError());
    RL_CK(cudaEventElapsedTime(&ms, r->ev0, r->ev1));
    *ns = ms * 1e6;
done:
    return rc;
}

int rl_copy_to_host(struct rl_run *r, void *dst, const void *src, size_t bytes)
{
    int rc = RL_OK;
    RL_CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, r->stream));
    RL_CK(cudaStreamSynchronize(r->stream));
done:
    return rc;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rl_run_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int rl_warm_up(struct rl_run *r, double ns)
{
    /* FP32 FMA chains on every SM until `ns` has passed. */
    const void *fn = rl_mb_compute_kernel("rl_mb_fma_f32");
    int rc = RL_OK, grid = r->dev->sm_count * (2048 / FMA_BLOCK);
    size_t n = (size_t)grid * FMA_BLOCK * FMA_CHAINS;
    float *out = NULL, *in = NULL;
    const float consts[2] = {1.0f, 0.0f};
    RL_CK(cudaMalloc((void **)&out, n * sizeof *out));
    RL_CK(cudaMalloc((void **)&in, sizeof consts));
    RL_CK(cudaMemsetAsync(out, 0, n * sizeof *out, r->stream));
    RL_CK(cudaMemcpyAsync(in, consts, sizeof consts, cudaMemcpyHostToDevice, r->stream));
    RL_CK(cudaStreamSynchronize(r->stream));
    long long iters = 256;
    double spent = 0, t;
    while (spent < ns) {
        void *args[] = {&out, &in, &iters};
        if ((rc = rl_time_launches(r, fn, (unsigned)grid, FMA_BLOCK, args, 0, 1, &t)))
            goto done;
        spent += t;
        if (t < 5e6)
            iters *= 2;
    }
done:
    cudaFree(out);
    cudaFree(in);
    return rc;
}

