// copy.cu - the comm plugin's kernels: collective inputs and their exact check, the SM copy and its pattern.
#include "analyzer/comm/kernels.h"

namespace {

__device__ __forceinline__ float input_of(int r, long long i)
{
    return (float)((13LL * r + 7LL * (i % 61)) % 61);
}

// Sum over every rank of f(s, i): at most 60 x nranks, exact in float.
__device__ float sum_of(int nranks, long long i)
{
    float acc = 0.0f;
    for (int s = 0; s < nranks; s++)
        acc += input_of(s, i);
    return acc;
}

__device__ float expected(int layout, long long j, long long count, int rank, int nranks)
{
    switch (layout) {
    case RL__LAYOUT_ALLREDUCE: return sum_of(nranks, j);
    case RL__LAYOUT_ALLGATHER: return input_of((int)(j / count), j % count);
    case RL__LAYOUT_REDUCESCATTER: return sum_of(nranks, rank * count + j);
    case RL__LAYOUT_BROADCAST: return input_of(0, j);
    case RL__LAYOUT_ALLTOALL: return input_of((int)(j / count), rank * count + j % count);
    default: return input_of((rank - 1 + nranks) % nranks, j);
    }
}

__global__ void fill_kernel(float *p, long long n, int rank)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        p[i] = input_of(rank, i);
}

__global__ void check_kernel(int layout, const float *out, long long n, long long count, int rank,
                             int nranks, unsigned long long *wrong)
{
    unsigned long long bad = 0;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n;
         j += (long long)gridDim.x * blockDim.x)
        bad += out[j] != expected(layout, j, count, rank, nranks); // NaN never equals
    if (bad)
        atomicAdd(wrong, bad);
}

__device__ __forceinline__ unsigned word_of(long long i, unsigned seed)
{
    unsigned x = (unsigned)i ^ seed ^ (unsigned)(i >> 32) * 0x9e3779b9u;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

__global__ void pattern_kernel(unsigned *p, long long n, unsigned seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        p[i] = word_of(i, seed);
}

__global__ void verify_kernel(const unsigned *p, long long n, unsigned seed,
                              unsigned long long *wrong)
{
    unsigned long long bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        bad += p[i] != word_of(i, seed);
    if (bad)
        atomicAdd(wrong, bad);
}

__global__ void copy_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

__global__ void gate_kernel(const volatile int *flag)
{
    long long start = clock64();
    // About 10 s at 2 GHz: a host that never opens the gate cannot hang the GPU.
    while (*flag == 0 && clock64() - start < 20000000000LL) {
    }
}

constexpr int kThreads = 256;

int blocks_for(long long n)
{
    long long b = (n + kThreads - 1) / kThreads;
    return (int)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

} // namespace

extern "C" cudaError_t rl__comm_fill(float *p, long long n, int rank, cudaStream_t s)
{
    fill_kernel<<<blocks_for(n), kThreads, 0, s>>>(p, n, rank);
    return cudaGetLastError();
}

extern "C" cudaError_t rl__comm_check(int layout, const float *out, long long n_out,
                                      long long count, int rank, int nranks,
                                      unsigned long long *wrong, cudaStream_t s)
{
    check_kernel<<<blocks_for(n_out), kThreads, 0, s>>>(layout, out, n_out, count, rank, nranks,
                                                         wrong);
    return cudaGetLastError();
}

extern "C" cudaError_t rl__comm_poison(float *p, long long n, cudaStream_t s)
{
    return cudaMemsetAsync(p, 0xff, (size_t)n * sizeof(float), s);
}

extern "C" cudaError_t rl__copy_pattern(unsigned *p, long long words, unsigned seed, cudaStream_t s)
{
    pattern_kernel<<<blocks_for(words), kThreads, 0, s>>>(p, words, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t rl__copy_verify(const unsigned *p, long long words, unsigned seed,
                                       unsigned long long *wrong, cudaStream_t s)
{
    verify_kernel<<<blocks_for(words), kThreads, 0, s>>>(p, words, seed, wrong);
    return cudaGetLastError();
}

// Enough blocks to fill every SM several times over (nvbandwidth's SM copies
// also size the grid by the SM count); each thread moves 16 bytes per step.
extern "C" cudaError_t rl__copy_sm(void *dst, const void *src, long long bytes, int sms,
                                   cudaStream_t s)
{
    long long n = bytes / 16;
    int blocks = sms > 0 ? sms * 8 : blocks_for(n);
    copy_kernel<<<blocks, 512, 0, s>>>((uint4 *)dst, (const uint4 *)src, n);
    return cudaGetLastError();
}

extern "C" cudaError_t rl__copy_gate(const volatile int *flag, cudaStream_t s)
{
    gate_kernel<<<1, 1, 0, s>>>(flag);
    return cudaGetLastError();
}
