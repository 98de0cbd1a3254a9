/* verify.c - how benchmark outputs are verified: host references for FMA chains, linearity for MMAs. */
#include "microbench/verify.h"
#include "analyzer/util/alloc.h"

#include "microbench/fp.h"
#include "microbench/geometry.h"
#include "microbench/hash.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The chains grow (a slightly above 1) for FP64 and FP32, so a kernel
 * that skips steps ends elsewhere; FP16 and BF16 have too few bits to grow
 * for millions of steps, so they converge (a slightly below 1). */
void rl_mb_fma_constants(enum rl_mb_check kind, uint64_t *a, uint64_t *b)
{
    switch (kind) {
    case RL_MB_CHECK_FMA_F64:
        *a = f64_bits(1.0 + ldexp(1.0, -40));
        *b = f64_bits(ldexp(1.0, -30) * 0.7071067811865476);
        break;
    case RL_MB_CHECK_FMA_F32:
        *a = f32_bits(1.0f + ldexpf(1.0f, -23));
        *b = f32_bits(ldexpf(1.0f, -20) * 0.70710677f);
        break;
    case RL_MB_CHECK_FMA_F16X2: {
        uint32_t la = rl_fp16_from_double(1.0 - ldexp(1.0, -11));
        uint32_t lb = rl_fp16_from_double(ldexp(1.0, -12) * 1.375);
        *a = la | la << 16;
        *b = lb | (uint32_t)rl_fp16_from_double(ldexp(1.0, -12) * 1.625) << 16;
        break;
    }
    case RL_MB_CHECK_FMA_BF16X2: {
        uint32_t la = rl_bf16_from_double(1.0 - ldexp(1.0, -8));
        uint32_t lb = rl_bf16_from_double(ldexp(1.0, -9) * 1.375);
        *a = la | la << 16;
        *b = lb | (uint32_t)rl_bf16_from_double(ldexp(1.0, -9) * 1.625) << 16;
        break;
    }
    default:
        *a = *b = 0;
    }
}

uint64_t rl_mb_fma_start(enum rl_mb_check kind, uint64_t t, int c)
{
    uint32_t h0 = rl_mb_hash((uint32_t)(t * 16 + (uint64_t)c * 2));
    uint32_t h1 = rl_mb_hash((uint32_t)(t * 16 + (uint64_t)c * 2 + 1));
    double x0 = rl_mb_unit_float(h0), x1 = rl_mb_unit_float(h1);
    switch (kind) {
    case RL_MB_CHECK_FMA_F64:
        return f64_bits(x0 + x1 * 1e-8);
    case RL_MB_CHECK_FMA_F32:
        return f32_bits((float)x0);
    case RL_MB_CHECK_FMA_F16X2:
        return rl_fp16_from_double(x0) | (uint64_t)rl_fp16_from_double(x1) << 16;
    case RL_MB_CHECK_FMA_BF16X2:
        return rl_bf16_from_double(x0) | (uint64_t)rl_bf16_from_double(x1) << 16;
    default:
        return 0;
    }
}

uint64_t rl_mb_fma_simulate(enum rl_mb_check kind, uint64_t x, uint64_t a, uint64_t b,
                            long long steps)
{
    switch (kind) {
    case RL_MB_CHECK_FMA_F64: {
        double v = bits_f64(x), av = bits_f64(a), bv = bits_f64(b);
        for (long long i = 0; i < steps; i++)
            v = fma(v, av, bv);
        return f64_bits(v);
    }
    case RL_MB_CHECK_FMA_F32: {
        float v = bits_f32((uint32_t)x), av = bits_f32((uint32_t)a), bv = bits_f32((uint32_t)b);
        for (long long i = 0; i < steps; i++)
            v = fmaf(v, av, bv);
        return f32_bits(v);
    }
    case RL_MB_CHECK_FMA_F16X2:
    case RL_MB_CHECK_FMA_BF16X2: {
        uint16_t (*f)(uint16_t, uint16_t, uint16_t) =
            kind == RL_MB_CHECK_FMA_F16X2 ? rl_fp16_fma : rl_bf16_fma;
        uint16_t lo = (uint16_t)x, hi = (uint16_t)(x >> 16);
        for (long long i = 0; i < steps; i++) {
            lo = f(lo, (uint16_t)a, (uint16_t)b);
            hi = f(hi, (uint16_t)(a >> 16), (uint16_t)(b >> 16));
        }
        return lo | (uint64_t)hi << 16;
    }
    default:
        return x;
    }
}

static double rel(double got, double want, double scale)
{
    return fabs(got - want) / (scale > 0 ? scale : 1e-30);
}

int rl_mb_check_mma(const struct rl_mb_mma_expect *e, const double *c0, const double *d1,
                    const double *d2, const double *d3, const double *dn, double n,
                    size_t count, char *why, double *err)
{
    double worst = 0, sum_sq = 0;
    *err = 0;
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(c0[i]) || !isfinite(d1[i]) || !isfinite(d2[i]) || !isfinite(d3[i]) ||
            (dn && !isfinite(dn[i]))) {
            snprintf(why, 128, "accumulator %zu is not finite", i);
            return -1;
        }
        double p = d1[i] - c0[i];
        double scale = fabs(d3[i]) + fabs(c0[i]) + fabs(p) + 1e-30;
        double e2 = rel(d2[i] - d1[i], p, scale), e3 = rel(d3[i] - d2[i], p, scale);
        double es = e2 > e3 ? e2 : e3;
        worst = es > worst ? es : worst;
        if (es > e->tol_small) {
            snprintf(why, 128,
                     "accumulator %zu does not grow linearly: steps %.9g, %.9g, %.9g", i, p,
                     d2[i] - d1[i], d3[i] - d2[i]);
            *err = worst;
            return -1;
        }
        if (dn) {
            double want = c0[i] + n * p;
            double el = rel(dn[i], want, fabs(n * p) + fabs(c0[i]) + 1e-30);
            worst = el > worst ? el : worst;
            if (el > e->tol_large) {
                snprintf(why, 128, "accumulator %zu after %.0f iterations is %.9g, not %.9g",
                         i, n, dn[i], want);
                *err = worst;
                return -1;
            }
        }
        double per_mma = p / e->per_iter;
        sum_sq += per_mma * per_mma;
    }
    *err = worst;
    if (count == 0) {
        snprintf(why, 128, "no accumulators to check");
        return -1;
    }
    double ms = sum_sq / (double)count, want = e->k * e->a_ms * e->b_ms;
    if (!(ms > want / 2 && ms < want * 2)) {
        snprintf(why, 128,
                 "MMA products have mean square %.4g, expected %.4g (k = %.0f): wrong shape?",
                 ms, want, e->k);
        return -1;
    }
    return 0;
}

/* ---- MMA operands (moved from runner.c so the tests can read them) ---- */

/* FP6 / FP4 operands of kind::f8f6f4: 6 or 4 bits per element, else 0. */
static int subbyte_bits(const struct rl_mb_variant *v)
{
    if (strstr(v->kernel, "e2m1"))
        return 4;
    if (strstr(v->kernel, "e2m3") || strstr(v->kernel, "e3m2"))
        return 6;
    return 0;
}

/* FP4 packed two per byte, no padding: the block-scaled mxf4 / mxf4nvf4
 * (PTX ISA 9.7.16.10.4.6 for shared memory, 9.7.14.5.14 for registers);
 * element 2j in the low nibble. */
static bool packed_fp4(const struct rl_mb_variant *v)
{
    return strstr(v->kernel, "nvf4") || strstr(v->kernel, "mxf4");
}

/* Narrow-input MMAs (FP8, FP6, FP4), whose Tensor Cores may accumulate with
 * fewer bits than FP32: checked at 1, 2 and 3 iterations only. */
bool rl_mb_narrow_inputs(const struct rl_mb_variant *v)
{
    return strstr(v->kernel, "e4m3") || strstr(v->kernel, "e5m2") || subbyte_bits(v) ||
           packed_fp4(v);
}

/* A random operand value in [-1, 1) from hash h, as the bits of the MMA
 * input type; *sq gets its square, for the expected product size. */
static uint32_t operand(const struct rl_mb_variant *v, int type_bytes, uint32_t h, double *sq)
{
    double x = rl_mb_unit_float(h) * 4.0 - 3.0; /* [-1, 1) */
    if (x > -1e-3 && x < 1e-3)
        x = 0.5; /* never zero */
    switch (v->check) {
    case RL_MB_CHECK_MMA_S32: {
        int q = (int)(h % 16) - 8;
        q = q >= 0 ? q + 1 : q; /* -8..-1, 1..8 */
        *sq = (double)q * q;
        return (uint32_t)(q & 0xFF);
    }
    case RL_MB_CHECK_MMA_F64:
        *sq = x * x;
        return 0; /* doubles are written by the caller */
    default:
        break;
    }
    if (type_bytes == 4) { /* tf32 */
        uint32_t bits = rl_tf32_from_double(x);
        float f;
        memcpy(&f, &bits, sizeof f);
        *sq = (double)f * f;
        return bits;
    }
    if (packed_fp4(v)) { /* two E2M1 per byte: *sq gets the sum of both squares */
        uint8_t lo = rl_e2m1_from_double(x);
        double y = rl_mb_unit_float(rl_mb_hash(h ^ 0x5bd1e995u)) * 4.0 - 3.0; /* [-1, 1) */
        uint8_t hi = rl_e2m1_from_double(y);
        double dl = rl_e2m1_to_double(lo), dh = rl_e2m1_to_double(hi);
        *sq = dl * dl + dh * dh;
        return (uint32_t)(lo | hi << 4);
    }
    int sub = subbyte_bits(v);
    if (sub) { /* FP6 / FP4: the element code; fill_operands places it */
        double (*dec)(uint8_t) = sub == 4                      ? rl_e2m1_to_double
                                 : strstr(v->kernel, "e2m3") ? rl_e2m3_to_double
                                                             : rl_e3m2_to_double;
        uint8_t c = sub == 4                      ? rl_e2m1_from_double(x)
                    : strstr(v->kernel, "e2m3") ? rl_e2m3_from_double(x)
                                                : rl_e3m2_from_double(x);
        double d = dec(c);
        *sq = d * d;
        return c;
    }
    if (type_bytes == 1) { /* fp8 */
        bool e5 = strstr(v->kernel, "e5m2") != NULL;
        uint8_t b = e5 ? rl_e5m2_from_double(x) : rl_e4m3_from_double(x);
        double d = e5 ? rl_e5m2_to_double(b) : rl_e4m3_to_double(b);
        *sq = d * d;
        return b;
    }
    bool bf = strstr(v->kernel, "bf16") != NULL;
    uint16_t b = bf ? rl_bf16_from_double(x) : rl_fp16_from_double(x);
    double d = bf ? rl_bf16_to_double(b) : rl_fp16_to_double(b);
    *sq = d * d;
    return b;
}

/* Bytes per input element of an MMA variant. */
static int input_type_bytes(const struct rl_mb_variant *v)
{
    if (v->check == RL_MB_CHECK_MMA_F64)
        return 8;
    if (strstr(v->kernel, "tf32"))
        return 4;
    if (strstr(v->kernel, "e4m3") || strstr(v->kernel, "e5m2") || strstr(v->kernel, "s8") ||
        subbyte_bits(v) || packed_fp4(v))
        return 1; /* FP6 / FP4: a byte's room each (fp.h); packed FP4: a pair */
    return 2;
}

/* Fill the MMA operand buffer: for mma.sync, per lane 4 A registers then 2
 * B registers (6 x 32 bits; FP64: 1 + 1 or 8 + 4 doubles); for wgmma and
 * tcgen05, the A tile (a_bytes) then the B tile. Mean squares of A and B returned. */
void rl_mb_fill_operands(const struct rl_mb_variant *v, unsigned char *in, double *a_ms,
                         double *b_ms)
{
    int tb = input_type_bytes(v);
    size_t n = (size_t)v->in_bytes / (size_t)tb;
    double sum_a = 0, sum_b = 0;
    size_t n_a = 0, n_b = 0;
    uint8_t codes[16] = {0}; /* FP6 / FP4 shared-memory chunk being built */
    for (size_t i = 0; i < n; i++) {
        double sq;
        uint32_t h = rl_mb_hash((uint32_t)i * 2654435761u + 12345u);
        uint32_t bits = operand(v, tb, h, &sq);
        bool is_a;
        if (v->a_bytes) {
            is_a = i * (size_t)tb < (size_t)v->a_bytes;
        } else if (v->check == RL_MB_CHECK_MMA_F64) {
            size_t per_lane = strstr(v->kernel, "884") ? 2 : 12;
            size_t a_per_lane = per_lane == 2 ? 1 : 8;
            is_a = i % per_lane < a_per_lane;
        } else {
            size_t byte_in_lane = (i * (size_t)tb) % 24; /* 6 registers */
            is_a = byte_in_lane < 16;
        }
        if (v->check == RL_MB_CHECK_MMA_F64) {
            double x = rl_mb_unit_float(h) * 4.0 - 3.0;
            memcpy(in + i * 8, &x, 8);
        } else if (subbyte_bits(v) && v->a_bytes) {
            /* tcgen05 shared memory: 16 elements packed per 16-byte chunk,
             * written when the chunk's last element is known (A and B
             * tiles are whole chunks). */
            codes[i % 16] = (uint8_t)bits;
            if (i % 16 == 15) {
                unsigned char *chunk = in + (i - 15);
                if (subbyte_bits(v) == 4)
                    rl_fp4_smem_chunk(codes, chunk);
                else
                    rl_fp6_smem_chunk(codes, chunk);
                /* The padding, which the TMA leaves uninitialized (PTX ISA
                 * 5.5.1.1.1) and so the MMA must ignore, is all ones: read
                 * as elements (a byte-per-element layout) it would hold
                 * -6 / -7.5 / -28, far above the [-1, 1) data, and the
                 * products' mean square would fail the size check. */
                size_t used = subbyte_bits(v) == 4 ? 8 : 12;
                memset(chunk + used, 0xFF, 16 - used);
            }
        } else if (subbyte_bits(v)) {
            /* mma.sync registers: one element per byte container */
            in[i] = subbyte_bits(v) == 4 ? rl_fp4_reg_container((uint8_t)bits)
                                         : rl_fp6_reg_container((uint8_t)bits);
        } else {
            memcpy(in + i * (size_t)tb, &bits, (size_t)tb); /* little-endian low bytes */
        }
        size_t elems = packed_fp4(v) ? 2 : 1;
        if (is_a) {
            sum_a += sq;
            n_a += elems;
        } else {
            sum_b += sq;
            n_b += elems;
        }
    }
    *a_ms = n_a ? sum_a / (double)n_a : 0;
    *b_ms = n_b ? sum_b / (double)n_b : 0;
}

uint32_t rl_mb_cheap_sum(uint64_t words, uint32_t seed)
{
    /* sum of w * phi + seed over w < words = phi * words (words - 1) / 2 +
     * words * seed, all mod 2^32; halve the even factor first. */
    uint64_t a = words, b = words ? words - 1 : 0;
    if (a % 2 == 0)
        a /= 2;
    else
        b /= 2;
    uint32_t tri = (uint32_t)a * (uint32_t)b;
    return tri * 0x9E3779B9U + (uint32_t)words * seed;
}

uint64_t rl_mb_digest(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* ---- tolerances per input kind, and the accumulation model they rest on ---- */

float rl_mb_mma_start_f32(size_t i)
{
    uint32_t h = rl_mb_hash((uint32_t)i ^ 0xA5A5A5A5u);
    return (float)(rl_mb_unit_float(h) * 4.0 - 3.0);
}

/* How far D(2) - D(1) and D(3) - D(2) may stray from P = D(1) - C0,
 * relative to |D(3)| + |C0| + |P| (rl_mb_check_mma), after 1, 2 and 3
 * iterations of per_iter MMAs (8 for wgmma and tcgen05, 16 for mma.sync).
 *
 *  - FP64 (DMMA): IEEE FP64 throughout; 1e-12 leaves 4 decimal digits of
 *    room above the 2^-53 rounding of 24 to 48 additions.
 *  - INT32: exact integer arithmetic; 0.
 *  - FP16 accumulators: 2^-11 per addition against values of a few
 *    units; 2e-2 (as before).
 *  - FP32 accumulators fed by FP16, BF16, TF32: the alignment model of
 *    rl_mb_truncated_mma() with 24 bits (FP32's own) loses at most one
 *    unit of 2^(e_max - 24) per addend, 17 addends (C + 16 products) per
 *    MMA: per MMA at most 17 x 2 x 2^-24 = 2.0e-6 of the largest addend,
 *    and 48 MMAs between D(1) and D(3): 9.7e-5 of |D| in the worst case,
 *    under 1e-4 (as before; the errors of a random sign cancel, so a real
 *    run sits far below).
 *  - FP32 accumulators fed by FP8, FP6, FP4 and the block-scaled MX kinds:
 *    Hopper's FP8 WGMMA keeps about 14 bits while it accumulates (DeepSeek-
 *    V3 technical report, 2024, section 3.3.2: "limited to retaining around
 *    14 bits"); Blackwell's kind::f8f6f4 / mxf* are undocumented and
 *    assumed no wider. With 14 bits the same model gives up to 33 x 2 x
 *    2^-14 = 4.0e-3 of the largest addend per MMA in the worst case, 48
 *    MMAs between D(1) and D(3); truncation toward zero of addends of a
 *    random sign partly cancels. rl_mb_simulate_narrow_check() with the
 *    benchmark's own operands and the first 2^20 accumulators (what the
 *    runner checks) gives, as the largest error over the variants
 *    (wgmma / tcgen05, E4M3 / E5M2, MXFP8): 5.6e-3 at 14 bits (wgmma E5M2;
 *    4.1e-3 wgmma E4M3) and 1.6e-2 at 13 bits (wgmma E4M3): 1e-4 would
 *    fail every FP8 run. The tolerance is the 13-bit figure (one bit of
 *    margin on the measured width) times 2, rounded up: 3.5e-2.
 *    tests/check_microbench.c repeats the simulation on a sample: it
 *    passes this tolerance and fails 1e-4. What the linearity check
 *    loses here the size check keeps: the products' mean square must be
 *    K x mean(A^2) x mean(B^2) within a factor 2, and outputs must be
 *    finite and identical between timed runs. */
#define TOL_NARROW 3.5e-2

double rl_mb_mma_tolerance(const struct rl_mb_variant *v)
{
    switch (v->check) {
    case RL_MB_CHECK_MMA_F64:
        return 1e-12;
    case RL_MB_CHECK_MMA_S32:
        return 0;
    case RL_MB_CHECK_MMA_F16:
    case RL_MB_CHECK_MMA_F16_WIDE:
        return 2e-2;
    default:
        return rl_mb_narrow_inputs(v) ? TOL_NARROW : 1e-4;
    }
}

/* x truncated toward zero to FP32. */
static double to_f32_rz(double x)
{
    float f = (float)x;
    if (fabs((double)f) > fabs(x))
        f = nextafterf(f, 0.0f);
    return f;
}

double rl_mb_truncated_mma(double c, const double *a, const double *b, int k, int bits)
{
    double t[1 + 128];
    if (k < 0 || k > 128)
        return NAN;
    int n = 0, emax = INT_MIN;
    t[n++] = c;
    for (int j = 0; j < k; j++)
        t[n++] = a[j] * b[j]; /* FP8 x FP8: at most 8 significant bits, exact */
    for (int j = 0; j < n; j++) {
        int e;
        if (t[j] != 0) {
            frexp(t[j], &e);
            emax = e > emax ? e : emax;
        }
    }
    if (emax == INT_MIN)
        return 0;
    double q = ldexp(1.0, emax - bits), s = 0;
    for (int j = 0; j < n; j++)
        s += trunc(t[j] / q) * q; /* exact: multiples of q below 2^(emax + 7) */
    return to_f32_rz(s);
}

/* The (row, column) output i of a tile variant computes, in its block. */
static bool tile_output(const struct rl_mb_variant *v, size_t i, int *row, int *col)
{
    size_t t = (i / (size_t)v->out_per_thread) % (size_t)v->block_threads;
    int r = (int)(i % (size_t)v->out_per_thread);
    if (v->sm == 90 && v->out_per_thread == 128) {
        /* wgmma m64n256 FP32 accumulators (PTX ISA, "Register fragments"
         * of wgmma D): warp w holds rows 16w..16w+15; register r of lane
         * l is row l/4 (+8 for r bit 1), column 8 (r/4) + 2 (l%4) + r%2. */
        int w = (int)(t / 32), l = (int)(t % 32);
        *row = 16 * w + l / 4 + 8 * ((r >> 1) & 1);
        *col = 8 * (r >> 2) + 2 * (l % 4) + (r & 1);
        return true;
    }
    if (v->sm == 100 && v->out_per_thread == TC_N) {
        *row = (int)t; /* TMEM lane t = row t of D, column r */
        *col = r;
        return true;
    }
    return false;
}

/* Byte of element (row, k) of a K-major tile of 1-byte elements, as the
 * kernels' no-swizzle descriptors address it: 8-row x 16-byte core
 * matrices, 128 bytes apart along K, 256 apart along M / N. */
static size_t tile_byte(int row, int k)
{
    return (size_t)(row / 8) * 256 + (size_t)(k / 16) * 128 + (size_t)(row % 8) * 16 +
           (size_t)(k % 16);
}

double rl_mb_simulate_narrow_check(const struct rl_mb_variant *v, int bits, size_t outputs)
{
    bool e5 = strstr(v->kernel, "e5m2") != NULL, e4 = strstr(v->kernel, "e4m3") != NULL;
    int row, col;
    if ((!e4 && !e5) || !v->a_bytes || v->k > 128 || v->check != RL_MB_CHECK_MMA_F32 ||
        !tile_output(v, 0, &row, &col) || (size_t)v->in_bytes > 16384)
        return -1;
    unsigned char in[16384];
    double a_ms, b_ms;
    rl_mb_fill_operands(v, in, &a_ms, &b_ms);
    double *buf = rl_malloc(4 * outputs * sizeof *buf);
    if (!buf)
        return -1;
    double *c0 = buf, *d[3] = {buf + outputs, buf + 2 * outputs, buf + 3 * outputs};
    for (size_t i = 0; i < outputs; i++) {
        double a[128], b[128];
        tile_output(v, i, &row, &col);
        for (int k = 0; k < v->k; k++) {
            uint8_t ca = in[tile_byte(row, k)], cb = in[v->a_bytes + tile_byte(col, k)];
            a[k] = e5 ? rl_e5m2_to_double(ca) : rl_e4m3_to_double(ca);
            b[k] = e5 ? rl_e5m2_to_double(cb) : rl_e4m3_to_double(cb);
        }
        double x = c0[i] = rl_mb_mma_start_f32(i);
        for (int it = 0; it < 3; it++) {
            for (int m = 0; m < v->per_iter; m++)
                x = rl_mb_truncated_mma(x, a, b, v->k, bits);
            d[it][i] = x;
        }
    }
    /* The check's own measure: no tolerance, so it reports the worst. */
    struct rl_mb_mma_expect e = {.k = v->k, .per_iter = v->per_iter, .a_ms = a_ms,
                                 .b_ms = b_ms, .tol_small = INFINITY, .tol_large = INFINITY};
    char why[128];
    double err = -1;
    rl_mb_check_mma(&e, c0, d[0], d[1], d[2], NULL, 0, outputs, why, &err);
    free(buf);
    return err;
}
