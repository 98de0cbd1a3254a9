/* gemm.h - cuBLASLt GEMM per precision: set up once, run any of the heuristic's algorithms, check. */
#ifndef RL_GEMM_H
#define RL_GEMM_H

#include "kernels/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* D (M x N) = A^T (M x K) B (K x N), column-major ("TN": the layout FP8 and
 * INT8 Tensor Core GEMMs require). Read row-major, this is Y[N][M] =
 * X[N][K] W[M][K]^T: A holds weights W (M outputs x K inputs), B the
 * activations X (N tokens x K), D the outputs Y (N tokens x M). */
enum rl_gemm_kind {
    RL_GEMM_FP64,
    RL_GEMM_FP32,  /* FP32 in, FP32 compute (no TF32) */
    RL_GEMM_TF32,  /* FP32 in, TF32 Tensor Cores */
    RL_GEMM_FP16,  /* FP16 in/out, FP32 accumulate */
    RL_GEMM_BF16,  /* BF16 in/out, FP32 accumulate */
    RL_GEMM_FP8,   /* E4M3 in, BF16 out, FP32 accumulate */
    RL_GEMM_INT8   /* INT8 in, INT32 out */
};

struct rl_gemm; /* opaque */

/* Construction */

/* Set up M x N x K. a, b, d may be NULL: the GEMM then allocates and fills
 * its own; otherwise they must hold at least M K, K N and M N elements of
 * the kind's types. The heuristic's first max_algos algorithms are kept.
 * RL_EUNSUPPORTED when the GPU or cuBLASLt has none (FP8 before 8.9). */
int rl_gemm_create(struct rl_gemm **out, enum rl_gemm_kind kind, int64_t m, int64_t n,
                   int64_t k, const struct rl_tensor *a, const struct rl_tensor *b,
                   const struct rl_tensor *d, int max_algos, cudaStream_t stream, char *errmsg);
void rl_gemm_destroy(struct rl_gemm *g);

/* Running */

int rl_gemm_algos(const struct rl_gemm *g);
int rl_gemm_run(struct rl_gemm *g, int algo, char *errmsg);

/* Check `samples` outputs against dot products in double of the same
 * inputs (copied back): error / rss(products) within the kind's tolerance.
 * 0, -1 (why says where), or an RL_E* code. */
int rl_gemm_check(struct rl_gemm *g, int samples, double *worst, char *why, char *errmsg);

/* Queries */

double rl_gemm_flops(const struct rl_gemm *g);     /* 2 M N K */
double rl_gemm_min_bytes(const struct rl_gemm *g); /* (M K + K N) in + M N out */
const char *rl_gemm_label(const struct rl_gemm *g);
const char *rl_gemm_roof(const struct rl_gemm *g); /* "bf16", "tf32", ... */
double rl_gemm_tolerance(const struct rl_gemm *g);
const struct rl_tensor *rl_gemm_output(const struct rl_gemm *g);

#ifdef __cplusplus
}
#endif

#endif
