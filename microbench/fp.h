/* fp.h - host emulation of the GPU's narrow number formats (FP16, BF16, TF32, FP8), bit-exact. */
#ifndef RL_MB_FP_H
#define RL_MB_FP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Conversions round to nearest, ties to even, as the GPU's cvt.rn does;
 * values beyond the range become infinity (FP16, BF16) or saturate to the
 * largest finite value (FP8, as .satfinite). NaN stays NaN. */

uint16_t rl_fp16_from_double(double x);
double rl_fp16_to_double(uint16_t h);

uint16_t rl_bf16_from_double(double x);
double rl_bf16_to_double(uint16_t b);

/* TF32: an FP32 bit pattern with the low 13 mantissa bits cleared. */
uint32_t rl_tf32_from_double(double x);

/* FP8 E4M3 (bias 7, max 448, no infinity) and E5M2 (bias 15, max 57344). */
uint8_t rl_e4m3_from_double(double x);
double rl_e4m3_to_double(uint8_t v);
uint8_t rl_e5m2_from_double(double x);
double rl_e5m2_to_double(uint8_t v);

/* One fused multiply-add with a single rounding, in FP16 or BF16: the
 * exact product and sum are formed in double (exact for the operands the
 * benchmarks use) and rounded once. */
uint16_t rl_fp16_fma(uint16_t a, uint16_t b, uint16_t c);
uint16_t rl_bf16_fma(uint16_t a, uint16_t b, uint16_t c);

#ifdef __cplusplus
}
#endif

#endif
