/* fp.h - host emulation of the GPU's narrow number formats (FP16, BF16, TF32, FP8, FP6, FP4), bit-exact. */
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

/* FP6 E2M3 (bias 1, max 7.5), FP6 E3M2 (bias 3, max 28) and FP4 E2M1
 * (bias 1, max 6), the OCP MX element formats: no infinity, no NaN, so
 * values beyond the range saturate to the largest finite (cvt .satfinite)
 * and NaN, which has no encoding, becomes +0 here. Codes in the low 6 / 4
 * bits; decode ignores the bits above. */
uint8_t rl_e2m3_from_double(double x);
double rl_e2m3_to_double(uint8_t v);
uint8_t rl_e3m2_from_double(double x);
double rl_e3m2_to_double(uint8_t v);
uint8_t rl_e2m1_from_double(double x);
double rl_e2m1_to_double(uint8_t v);

/* The unsigned scale-factor formats of block scaling (PTX ISA 9.7.14.3 /
 * 9.7.16.10.7): UE8M0 is 2^(v - 127) (0xFF NaN), UE4M3 is E4M3 without the
 * sign bit (1.0 = 0x38, 0x7F NaN). */
double rl_ue8m0_to_double(uint8_t v);
double rl_ue4m3_to_double(uint8_t v);

/* Where sub-byte elements sit for the MMAs of kind::f8f6f4 / mxf8f6f4.
 * Registers (mma.sync, PTX ISA 9.7.14.5.14): one element per 8-bit
 * container, E2M1 in bits 5-2, E2M3 / E3M2 in bits 5-0, the rest zero.
 * Shared memory (tcgen05.mma, PTX ISA 9.7.16.10.4.4): 16 consecutive K
 * elements packed contiguously (element i at bits 4i / 6i of the chunk,
 * little-endian, as the TMA's .b4x16_p64 / .b6x16_p32 copy them from packed
 * global memory) in the first 8 / 12 bytes of a 16-byte chunk, zero padding
 * after: a chunk holds 16 elements as an 8-bit type's would, so tiles and
 * descriptors are those of FP8. */
uint8_t rl_fp4_reg_container(uint8_t e2m1);
uint8_t rl_fp6_reg_container(uint8_t fp6);
void rl_fp4_smem_chunk(const uint8_t e2m1[16], uint8_t out[16]);
void rl_fp6_smem_chunk(const uint8_t fp6[16], uint8_t out[16]);
/* The inverses: element i of a chunk. */
uint8_t rl_fp4_smem_element(const uint8_t chunk[16], int i);
uint8_t rl_fp6_smem_element(const uint8_t chunk[16], int i);

/* One fused multiply-add with a single rounding, in FP16 or BF16: the
 * exact product and sum are formed in double (exact for the operands the
 * benchmarks use) and rounded once. */
uint16_t rl_fp16_fma(uint16_t a, uint16_t b, uint16_t c);
uint16_t rl_bf16_fma(uint16_t a, uint16_t b, uint16_t c);

#ifdef __cplusplus
}
#endif

#endif
