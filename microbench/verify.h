/* verify.h - how benchmark outputs are verified: host references for FMA chains, linearity for MMAs.
 *
 * Plain C on host arrays, so the checks themselves are unit-tested without
 * a GPU (tests/check_microbench.c).
 */
#ifndef RL_MB_VERIFY_H
#define RL_MB_VERIFY_H

#include "microbench/bench.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FMA chains */

/* Constants a, b and the start value of chain c of thread t, as the raw
 * bits of the element type (double, float, half2 or bfloat162 in the low
 * bits). The host writes them, the kernel reads them, the check repeats. */
void rl_mb_fma_constants(enum rl_mb_check kind, uint64_t *a, uint64_t *b);
uint64_t rl_mb_fma_start(enum rl_mb_check kind, uint64_t t, int c);

/* The value after `steps` fused multiply-adds x = x a + b, bit-exact. */
uint64_t rl_mb_fma_simulate(enum rl_mb_check kind, uint64_t x, uint64_t a, uint64_t b,
                            long long steps);

/* MMA linearity */

/* What an MMA benchmark's accumulators must satisfy. c0 holds the start
 * values, d1, d2, d3 the values after 1, 2 and 3 loop iterations (each of
 * per_iter MMAs), dn after n iterations (NULL to skip). With p = d1 - c0:
 *  - d2 - d1 and d3 - d2 equal p within tol_small (relative);
 *  - the mean square of p / per_iter is k x mean(A^2) x mean(B^2) within a
 *    factor of 2: the unit summed k products (a wrong shape fails);
 *  - dn equals c0 + n p within tol_large, when dn is given;
 *  - everything is finite.
 * Returns 0 or -1 with the first failure in why (128 bytes); *err gets the
 * largest relative error seen. */
struct rl_mb_mma_expect {
    double k;         /* products summed per output per MMA */
    double per_iter;  /* MMAs per loop iteration */
    double a_ms, b_ms;/* mean squares of the A and B operands */
    double tol_small, tol_large;
};
int rl_mb_check_mma(const struct rl_mb_mma_expect *e, const double *c0, const double *d1,
                    const double *d2, const double *d3, const double *dn, double n,
                    size_t count, char *why, double *err);

/* Memory */

/* Sum mod 2^32 of rl_mb_cheap_word(w, seed) for w in [0, words): closed form. */
uint32_t rl_mb_cheap_sum(uint64_t words, uint32_t seed);

/* 64-bit FNV-1a of a buffer: outputs of repeated runs must match. */
uint64_t rl_mb_digest(const void *p, size_t n);

/* Fill an MMA variant's operand buffer (v->in_bytes) with random values
 * in [-1, 1) of its input type, in the layout the PTX ISA prescribes: for
 * mma.sync, per lane 4 A registers then 2 B registers (FP64: 1 + 1 or 8 +
 * 4 doubles); for wgmma and tcgen05, the A tile (a_bytes) then the B tile.
 * FP6 / FP4 of kind::f8f6f4: one element per byte container in registers,
 * 16-element chunks with all-ones padding in shared memory (fp.h); FP4 of
 * kind::mxf4 / mxf4nvf4: two per byte. *a_ms, *b_ms: the mean squares of
 * A's and B's element values. */
void rl_mb_fill_operands(const struct rl_mb_variant *v, unsigned char *in, double *a_ms,
                         double *b_ms);

/* FP8 / FP6 / FP4 inputs, whose MMAs may accumulate with fewer bits than
 * FP32: checked at small iteration counts only. */
bool rl_mb_narrow_inputs(const struct rl_mb_variant *v);

/* The start value of FP32 accumulator i (runner.c writes it, the
 * accumulation model below repeats it): hashed, in [-1, 1). */
float rl_mb_mma_start_f32(size_t i);

/* The linearity tolerance (tol_small of struct rl_mb_mma_expect) of a
 * variant's check at 1, 2 and 3 iterations, per input kind; its
 * derivation is written beside it in verify.c. */
double rl_mb_mma_tolerance(const struct rl_mb_variant *v);

/* Narrow-input accumulation, modelled on the host.
 *
 * One MMA step of an output, D = C + sum_k a_k b_k, as a Tensor Core with
 * an accumulator of `bits` significant bits computes it: every addend (C
 * and the k exact products) is aligned to the largest one's exponent and
 * truncated toward zero to a multiple of 2^(e_max - bits), the aligned
 * addends are summed exactly and the sum is truncated to FP32. bits >= 24
 * is FP32 accumulation with truncated alignment. */
double rl_mb_truncated_mma(double c, const double *a, const double *b, int k, int bits);

/* The error the linearity check (rl_mb_check_mma at 1, 2, 3 iterations)
 * would see for the first `outputs` accumulators of an FP8 tile variant
 * (wgmma or tcgen05, E4M3 / E5M2) whose Tensor Cores accumulate with
 * `bits` bits: the benchmark's own operands (rl_mb_fill_operands) and start
 * values, each output's row of A and column of B as the no-swizzle
 * K-major descriptors address them, per_iter MMAs per iteration. Returns
 * the largest relative error, or -1 for a variant it cannot model. */
double rl_mb_simulate_narrow_check(const struct rl_mb_variant *v, int bits, size_t outputs);

#ifdef __cplusplus
}
#endif

#endif
