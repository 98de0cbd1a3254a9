/* kernels.h - the GPU kernels of the comm plugin (copy.cu): inputs whose collective output is exactly known, its check, the SM copy. */
#ifndef RL_COMM_KERNELS_H
#define RL_COMM_KERNELS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the check expects of a collective's output (one per enum rl_collective). */
enum rl__comm_layout {
    RL__LAYOUT_ALLREDUCE,      /* out[j] = sum_s f(s, j) */
    RL__LAYOUT_ALLGATHER,      /* out[j] = f(j / count, j % count) */
    RL__LAYOUT_REDUCESCATTER,  /* out[j] = sum_s f(s, rank * count + j) */
    RL__LAYOUT_BROADCAST,      /* out[j] = f(0, j) */
    RL__LAYOUT_ALLTOALL,       /* out[p * count + k] = f(p, rank * count + k) */
    RL__LAYOUT_SENDRECV        /* out[j] = f((rank - 1 + n) % n, j) */
};

/* Rank r's input element i: f(r, i) = (13 r + 7 (i mod 61)) mod 61, a small
 * integer, so that a sum over up to 2^18 ranks is exact in float. */
cudaError_t rl__comm_fill(float *p, long long n, int rank, cudaStream_t s);
/* Add to *wrong (device memory) the elements of out (n_out of them) that
 * differ from what `layout` expects on `rank` of `nranks` with per-rank
 * count `count`. */
cudaError_t rl__comm_check(int layout, const float *out, long long n_out, long long count,
                           int rank, int nranks, unsigned long long *wrong, cudaStream_t s);
/* NaN into every element (0xff bytes), so a stale output never passes. */
cudaError_t rl__comm_poison(float *p, long long n, cudaStream_t s);

/* Copies: 32-bit words w(i) = hash(i ^ seed); an SM copy of n bytes (a
 * multiple of 16) through 16-byte loads and stores, grid-stride, on the
 * current device; dst and src may be host (pinned) or any peer's memory. */
cudaError_t rl__copy_pattern(unsigned *p, long long words, unsigned seed, cudaStream_t s);
cudaError_t rl__copy_verify(const unsigned *p, long long words, unsigned seed,
                            unsigned long long *wrong, cudaStream_t s);
cudaError_t rl__copy_sm(void *dst, const void *src, long long bytes, int sms, cudaStream_t s);
/* nvbandwidth's gate: a one-thread kernel that spins until *flag (pinned
 * host memory) is non-zero, so that every copy is queued before the first
 * starts and enqueueing is not timed. It gives up after about 10 s. */
cudaError_t rl__copy_gate(const volatile int *flag, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
