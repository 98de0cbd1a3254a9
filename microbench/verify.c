/* verify.c - how benchmark outputs are verified: host references for FMA chains, linearity for MMAs. */
#include "microbench/verify.h"

#include "microbench/fp.h"
#include "microbench/hash.h"

#include <math.h>
#include <stdio.h>
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
