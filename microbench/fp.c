/* fp.c - host emulation of the GPU's narrow number formats (FP16, BF16, TF32, FP8, FP6, FP4), bit-exact. */
#include "microbench/fp.h"

#include <math.h>
#include <string.h>

/* A binary format: p significant bits (with the implicit one), smallest
 * normal exponent emin, exponent bias, mantissa bits m, largest finite. */
struct format {
    int p, emin, bias, m, exp_bits;
    double max;
};

static const struct format FP16 = {11, -14, 15, 10, 5, 65504.0};
static const struct format BF16 = {8, -126, 127, 7, 8, 3.3895313892515355e38};
static const struct format E4M3 = {4, -6, 7, 3, 4, 448.0};
static const struct format E5M2 = {3, -14, 15, 2, 5, 57344.0};
/* OCP MX formats (OCP Microscaling Formats v1.0, 5.3): every code finite. */
static const struct format E2M3 = {4, 0, 1, 3, 2, 7.5};
static const struct format E3M2 = {3, -2, 3, 2, 3, 28.0};
static const struct format E2M1 = {2, 0, 1, 1, 2, 6.0};

/* x rounded to f's precision (nearest, ties to even), no range check. */
static double round_to(const struct format *f, double x)
{
    if (x == 0 || !isfinite(x))
        return x;
    int e;
    frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
    int lead = e - 1;
    if (lead < f->emin)
        lead = f->emin; /* subnormal: fixed quantum */
    double quantum = ldexp(1.0, lead - (f->p - 1));
    return rint(x / quantum) * quantum; /* rint: ties to even */
}

/* Encode an already rounded, in-range value. */
static uint32_t encode(const struct format *f, double r)
{
    uint32_t sign = signbit(r) ? 1u << (f->m + f->exp_bits) : 0;
    double a = fabs(r);
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    int lead = e - 1;
    if (lead < f->emin) /* subnormal */
        return sign | (uint32_t)ldexp(a, -(f->emin - f->m));
    uint32_t mant = (uint32_t)((ldexp(a, -lead) - 1.0) * (1u << f->m));
    return sign | ((uint32_t)(lead + f->bias) << f->m) | mant;
}

static double decode(const struct format *f, uint32_t v)
{
    uint32_t mant = v & ((1u << f->m) - 1);
    uint32_t field = (v >> f->m) & ((1u << f->exp_bits) - 1);
    double sign = (v >> (f->m + f->exp_bits)) & 1 ? -1.0 : 1.0;
    if (field == 0)
        return sign * ldexp((double)mant, f->emin - f->m);
    return sign * ldexp(1.0 + (double)mant / (1u << f->m), (int)field - f->bias);
}

uint16_t rl_fp16_from_double(double x)
{
    if (isnan(x))
        return 0x7E00;
    double r = round_to(&FP16, x);
    if (fabs(r) > FP16.max)
        return signbit(r) ? 0xFC00 : 0x7C00;
    return (uint16_t)encode(&FP16, r);
}

double rl_fp16_to_double(uint16_t h)
{
    if ((h & 0x7C00) == 0x7C00)
        return (h & 0x3FF) ? NAN : (h & 0x8000 ? -INFINITY : INFINITY);
    return decode(&FP16, h);
}

uint16_t rl_bf16_from_double(double x)
{
    if (isnan(x))
        return 0x7FC0;
    double r = round_to(&BF16, x);
    if (fabs(r) > BF16.max)
        return signbit(r) ? 0xFF80 : 0x7F80;
    float f = (float)r; /* exact: BF16 values are floats */
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (uint16_t)(bits >> 16);
}

double rl_bf16_to_double(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint32_t rl_tf32_from_double(double x)
{
    static const struct format TF32 = {11, -126, 127, 10, 8, 3.4e38};
    float f = (float)round_to(&TF32, x);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits & ~0x1FFFu;
}

/* An FP8 value: rounded to nearest even, saturated to the format's largest
 * finite value (as the MMA conversions do); NaN is 0x7F in both formats. */
static uint8_t fp8_from_double(const struct format *f, double x)
{
    if (isnan(x))
        return 0x7F;
    double r = round_to(f, x);
    if (fabs(r) > f->max)
        r = copysign(f->max, r);
    return (uint8_t)encode(f, r);
}

uint8_t rl_e4m3_from_double(double x) { return fp8_from_double(&E4M3, x); }

double rl_e4m3_to_double(uint8_t v)
{
    if ((v & 0x7F) == 0x7F)
        return NAN;
    return decode(&E4M3, v);
}

uint8_t rl_e5m2_from_double(double x) { return fp8_from_double(&E5M2, x); }

double rl_e5m2_to_double(uint8_t v)
{
    if ((v & 0x7C) == 0x7C)
        return (v & 0x3) ? NAN : (v & 0x80 ? -INFINITY : INFINITY);
    return decode(&E5M2, v);
}

/* FP6 / FP4: round to nearest even, saturate; NaN (no encoding) gives +0. */
static uint8_t mx_from_double(const struct format *f, double x)
{
    if (isnan(x))
        return 0;
    double r = round_to(f, x);
    if (fabs(r) > f->max)
        r = copysign(f->max, r);
    return (uint8_t)encode(f, r);
}

static double mx_to_double(const struct format *f, uint8_t v)
{
    return decode(f, v & ((1u << (1 + f->exp_bits + f->m)) - 1));
}

uint8_t rl_e2m3_from_double(double x) { return mx_from_double(&E2M3, x); }
double rl_e2m3_to_double(uint8_t v) { return mx_to_double(&E2M3, v); }
uint8_t rl_e3m2_from_double(double x) { return mx_from_double(&E3M2, x); }
double rl_e3m2_to_double(uint8_t v) { return mx_to_double(&E3M2, v); }
uint8_t rl_e2m1_from_double(double x) { return mx_from_double(&E2M1, x); }
double rl_e2m1_to_double(uint8_t v) { return mx_to_double(&E2M1, v); }

double rl_ue8m0_to_double(uint8_t v) { return v == 0xFF ? NAN : ldexp(1.0, (int)v - 127); }

double rl_ue4m3_to_double(uint8_t v)
{
    v &= 0x7F;
    return v == 0x7F ? NAN : decode(&E4M3, v);
}

uint8_t rl_fp4_reg_container(uint8_t e2m1) { return (uint8_t)((e2m1 & 0xF) << 2); }
uint8_t rl_fp6_reg_container(uint8_t fp6) { return fp6 & 0x3F; }

/* Pack 16 elements of `bits` bits into a 16-byte chunk, low bits first. */
static void pack_chunk(const uint8_t *e, int bits, uint8_t out[16])
{
    memset(out, 0, 16);
    for (int i = 0; i < 16; i++)
        for (int b = 0; b < bits; b++)
            if (e[i] >> b & 1) {
                int at = i * bits + b;
                out[at / 8] |= (uint8_t)(1u << (at % 8));
            }
}

static uint8_t chunk_element(const uint8_t chunk[16], int bits, int i)
{
    uint8_t v = 0;
    for (int b = 0; b < bits; b++) {
        int at = i * bits + b;
        v |= (uint8_t)((chunk[at / 8] >> (at % 8) & 1) << b);
    }
    return v;
}

void rl_fp4_smem_chunk(const uint8_t e2m1[16], uint8_t out[16]) { pack_chunk(e2m1, 4, out); }
void rl_fp6_smem_chunk(const uint8_t fp6[16], uint8_t out[16]) { pack_chunk(fp6, 6, out); }
uint8_t rl_fp4_smem_element(const uint8_t chunk[16], int i) { return chunk_element(chunk, 4, i); }
uint8_t rl_fp6_smem_element(const uint8_t chunk[16], int i) { return chunk_element(chunk, 6, i); }

uint16_t rl_fp16_fma(uint16_t a, uint16_t b, uint16_t c)
{
    return rl_fp16_from_double(rl_fp16_to_double(a) * rl_fp16_to_double(b) +
                               rl_fp16_to_double(c));
}

uint16_t rl_bf16_fma(uint16_t a, uint16_t b, uint16_t c)
{
    return rl_bf16_from_double(rl_bf16_to_double(a) * rl_bf16_to_double(b) +
                               rl_bf16_to_double(c));
}
