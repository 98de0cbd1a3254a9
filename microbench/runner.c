/* runner.c - the compute runner: FLOP/s per precision on CUDA cores and Tensor Cores, its operands and checks. */
#define _GNU_SOURCE
#include "microbench/runner.h"

#include "microbench/verify.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "microbench/fp.h"
#include "microbench/geometry.h"
#include "microbench/hash.h"
#include "microbench/nvml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_CUDA_ARCHS
#define ROOFLINE_CUDA_ARCHS "?"
#endif

/* ---- the compute runner ------------------------------------------------- */

static size_t elem_bytes(enum rl_mb_check c)
{
    return c == RL_MB_CHECK_FMA_F64 || c == RL_MB_CHECK_MMA_F64 ? 8 : 4;
}

static bool is_fma(enum rl_mb_check c)
{
    return c == RL_MB_CHECK_FMA_F64 || c == RL_MB_CHECK_FMA_F32 ||
           c == RL_MB_CHECK_FMA_F16X2 || c == RL_MB_CHECK_FMA_BF16X2;
}

static uint64_t load_elem(const void *p, size_t i, size_t bytes)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)p + i * bytes, bytes);
    return v;
}

static void store_elem(void *p, size_t i, size_t bytes, uint64_t v)
{
    memcpy((char *)p + i * bytes, &v, bytes);
}

/* Start values: FMA chains from rl_mb_fma_start(); accumulators random in
 * [-1, 1) (small integers for INT32). */
static void fill_start(const struct rl_mb_variant *v, void *out, size_t count)
{
    size_t eb = elem_bytes(v->check);
    for (size_t i = 0; i < count; i++) {
        uint32_t h = rl_mb_hash((uint32_t)i ^ 0xA5A5A5A5u);
        double x = rl_mb_unit_float(h) * 4.0 - 3.0;
        uint64_t bits = 0;
        switch (v->check) {
        case RL_MB_CHECK_MMA_F32: {
            float f = rl_mb_mma_start_f32(i); /* the accumulation model's too */
            memcpy(&bits, &f, 4);
            break;
        }
        case RL_MB_CHECK_MMA_F16_WIDE: /* one FP16 in the low half of its word */
            bits = rl_fp16_from_double(x);
            break;
        case RL_MB_CHECK_MMA_F64:
            memcpy(&bits, &x, 8);
            break;
        case RL_MB_CHECK_MMA_S32:
            bits = (uint32_t)((int32_t)(h % 2001) - 1000);
            break;
        case RL_MB_CHECK_MMA_F16:
            bits = rl_fp16_from_double(x) |
                   (uint32_t)rl_fp16_from_double(rl_mb_unit_float(h >> 3) * 2 - 1.5) << 16;
            break;
        default: /* FMA chains */
            bits = rl_mb_fma_start(v->check, i / (size_t)v->out_per_thread,
                                   (int)(i % (size_t)v->out_per_thread));
        }
        store_elem(out, i, eb, bits);
    }
}

/* Accumulator i as a double (FP16 accumulators: two per 32-bit word). */
static double acc_value(const struct rl_mb_variant *v, const void *buf, size_t i)
{
    switch (v->check) {
    case RL_MB_CHECK_MMA_F32: {
        float f;
        memcpy(&f, (const char *)buf + i * 4, 4);
        return f;
    }
    case RL_MB_CHECK_MMA_F64: {
        double d;
        memcpy(&d, (const char *)buf + i * 8, 8);
        return d;
    }
    case RL_MB_CHECK_MMA_S32: {
        int32_t s;
        memcpy(&s, (const char *)buf + i * 4, 4);
        return s;
    }
    case RL_MB_CHECK_MMA_F16: {
        uint32_t w;
        memcpy(&w, (const char *)buf + (i / 2) * 4, 4);
        return rl_fp16_to_double((uint16_t)(i % 2 ? w >> 16 : w));
    }
    case RL_MB_CHECK_MMA_F16_WIDE: {
        uint32_t w;
        memcpy(&w, (const char *)buf + i * 4, 4);
        return rl_fp16_to_double((uint16_t)w);
    }
    default:
        return NAN;
    }
}

struct compute_bufs {
    void *d_out, *d_in;
    size_t smem;      /* dynamic shared memory per block (tcgen05: residency) */
    unsigned char *c0, *host, *d1, *d2, *d3, *dn;
    double *v[5]; /* c0, d1, d2, d3, dn as doubles (checked accumulators) */
};

/* Reset the state to c0, launch `iters`, copy the state back to dst. */
static int run_once(struct rl_run *r, const void *fn, unsigned grid, unsigned block,
                    struct compute_bufs *b, size_t bytes, long long iters, void *dst,
                    double *ns)
{
    int rc = RL_OK;
    double t = 0;
    void *args[] = {&b->d_out, &b->d_in, &iters};
    RL_CK(cudaMemcpyAsync(b->d_out, b->c0, bytes, cudaMemcpyHostToDevice, r->stream));
    if ((rc = rl_time_launches(r, fn, grid, block, args, b->smem, 1, &t)))
        goto done;
    if (dst)
        RL_CK(cudaMemcpyAsync(dst, b->d_out, bytes, cudaMemcpyDeviceToHost, r->stream));
    RL_CK(cudaStreamSynchronize(r->stream));
    if (ns)
        *ns = t;
done:
    return rc;
}

/* Check FMA chains of a few threads against the host simulation. */
static int check_fma(const struct rl_mb_variant *v, const void *got, long long steps,
                     long long threads, int n_threads, char *why, double *err)
{
    uint64_t a, b;
    rl_mb_fma_constants(v->check, &a, &b);
    size_t eb = elem_bytes(v->check);
    *err = 0;
    for (int s = 0; s < n_threads; s++) {
        long long t = n_threads == 1 ? 0 : (threads - 1) * s / (n_threads - 1);
        for (int c = 0; c < v->out_per_thread; c++) {
            size_t i = (size_t)t * (size_t)v->out_per_thread + (size_t)c;
            uint64_t want = rl_mb_fma_simulate(v->check, rl_mb_fma_start(v->check, (uint64_t)t, c),
                                               a, b, steps);
            uint64_t have = load_elem(got, i, eb);
            if (eb == 4)
                want &= 0xFFFFFFFFu;
            if (have != want) {
                snprintf(why, 160, "thread %lld chain %d after %lld FMAs: bits %#llx, host "
                         "%#llx", t, c, steps, (unsigned long long)have,
                         (unsigned long long)want);
                *err = 1;
                return -1;
            }
        }
    }
    return 0;
}

/* Dynamic shared memory that lets exactly v->max_blocks_per_sm CTAs of fn
 * share an SM (rl_mb_residency_smem_bytes, bench.c, derives it), with the
 * carveout at its largest so the SM offers all its shared memory. Then the
 * hardware, not the grid size, keeps a CTA that would find no TMEM columns
 * off the SM. */
static int size_residency(struct rl_run *r, const struct rl_mb_variant *v, const void *fn,
                          size_t *smem)
{
    int rc = RL_OK, per_sm = 0, reserved = 0, optin = 0;
    struct cudaFuncAttributes fa;
    RL_CK(cudaFuncGetAttributes(&fa, fn));
    RL_CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                 r->dev->index));
    RL_CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                 r->dev->index));
    RL_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                 r->dev->index));
    long dyn = rl_mb_residency_smem_bytes(per_sm, reserved, (long)fa.sharedSizeBytes,
                                          optin - (long)fa.sharedSizeBytes,
                                          v->max_blocks_per_sm);
    if (dyn < 0)
        return rl_fail(r->errmsg, RL_ECUDA,
                       "%s: no shared-memory size keeps %d CTAs per SM (%d B per SM, %zu B "
                       "static)", v->kernel, v->max_blocks_per_sm, per_sm, fa.sharedSizeBytes);
    RL_CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
    RL_CK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared));
    *smem = (size_t)dyn;
done:
    return rc;
}

int rl_run_compute(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out)
{
    const char *why = NULL;
    const struct rl_mb_variant *v =
        rl_mb_select(def, r->dev->cc_major, r->dev->cc_minor, &why);
    if (!v) {
        out->status = RL_MB_UNSUPPORTED;
        snprintf(out->reason, sizeof out->reason, "%s", why);
        return RL_OK;
    }
    const void *fn = rl_mb_compute_kernel(v->kernel);
    int rc = RL_OK, per_sm = 0;
    struct compute_bufs b;
    memset(&b, 0, sizeof b);
    if (!fn)
        return rl_fail(r->errmsg, RL_EINVAL, "no kernel %s in this build", v->kernel);
    if (v->max_blocks_per_sm && (rc = size_residency(r, v, fn, &b.smem)) != RL_OK)
        goto done;
    RL_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, v->block_threads,
                                                        b.smem));
    if (v->max_blocks_per_sm && per_sm > v->max_blocks_per_sm) {
        /* The shared memory sized above should make this impossible: more
         * CTAs than TMEM holds would stall in tcgen05.alloc. */
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason,
                 "%s: %d CTAs fit an SM with %zu B of dynamic shared memory, TMEM holds %d",
                 v->kernel, per_sm, b.smem, v->max_blocks_per_sm);
        goto done;
    }
    if (per_sm < 1) {
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason, "%s cannot be resident on an SM", v->kernel);
        goto done;
    }
    unsigned grid = (unsigned)(r->dev->sm_count * per_sm), block = (unsigned)v->block_threads;
    long long threads = (long long)grid * block;
    size_t count = (size_t)threads * (size_t)v->out_per_thread;
    size_t eb = elem_bytes(v->check), bytes = count * eb;
    /* FP16 accumulators: 2 values per word. */
    size_t values = v->check == RL_MB_CHECK_MMA_F16 ? count * 2 : count;
    size_t checked = values < (size_t)1 << 20 ? values : (size_t)1 << 20;
    snprintf(out->instruction, sizeof out->instruction, "%.*s", (int)strcspn(v->sass, "|"),
             v->sass);
    snprintf(out->variant, sizeof out->variant, "%s; %d blocks x %d threads per SM", v->ptx,
             per_sm, v->block_threads);

    RL_CK(cudaMalloc(&b.d_out, bytes));
    RL_CK(cudaMalloc(&b.d_in, (size_t)v->in_bytes));
    RL_CK(cudaMallocHost((void **)&b.c0, bytes));
    RL_CK(cudaMallocHost((void **)&b.host, bytes));
    b.d1 = rl_malloc(bytes);
    b.d2 = rl_malloc(bytes);
    b.d3 = rl_malloc(bytes);
    b.dn = rl_malloc(bytes);
    for (int i = 0; i < 5; i++)
        b.v[i] = rl_malloc(checked * sizeof(double));
    if (!b.d1 || !b.d2 || !b.d3 || !b.dn || !b.v[0] || !b.v[1] || !b.v[2] || !b.v[3] || !b.v[4]) {
        rc = rl_fail(r->errmsg, RL_ENOMEM, "out of host memory for %s", def->name);
        goto done;
    }
    unsigned char in[WG_IN_BYTES > TC_IN_BYTES ? WG_IN_BYTES : TC_IN_BYTES];
    if ((size_t)v->in_bytes > sizeof in) {
        rc = rl_fail(r->errmsg, RL_EINVAL, "%s: operands larger than the buffer", v->kernel);
        goto done;
    }
    double a_ms = 0, b_ms = 0;
    memset(in, 0, sizeof in);
    if (is_fma(v->check)) {
        uint64_t a, bb;
        rl_mb_fma_constants(v->check, &a, &bb);
        store_elem(in, 0, eb, a);
        store_elem(in, 1, eb, bb);
    } else {
        rl_mb_fill_operands(v, in, &a_ms, &b_ms);
    }
    /* On the benchmark's own stream, finished before the first launch: a
     * plain cudaMemcpy runs on the legacy stream, which a non-blocking
     * stream does not wait for, and from pageable memory it may return
     * before the DMA has landed. */
    RL_CK(cudaMemcpyAsync(b.d_in, in, (size_t)v->in_bytes, cudaMemcpyHostToDevice, r->stream));
    RL_CK(cudaStreamSynchronize(r->stream));
    fill_start(v, b.c0, count);

    /* 1. Check at small iteration counts. */
    if ((rc = run_once(r, fn, grid, block, &b, bytes, 1, b.d1, NULL)) ||
        (rc = run_once(r, fn, grid, block, &b, bytes, 2, b.d2, NULL)) ||
        (rc = run_once(r, fn, grid, block, &b, bytes, 3, b.d3, NULL)))
        goto done;
    struct rl_mb_mma_expect expect = {
        .k = v->k, .per_iter = v->per_iter, .a_ms = a_ms, .b_ms = b_ms,
        .tol_small = rl_mb_mma_tolerance(v), /* per input kind: verify.c */
        .tol_large = v->check == RL_MB_CHECK_MMA_F64   ? 1e-9
                     : v->check == RL_MB_CHECK_MMA_S32 ? 0
                                                       : 5e-2};
    char check_why[160] = "";
    if (is_fma(v->check)) {
        if (check_fma(v, b.d3, 3LL * FMA_UNROLL, threads, 64, check_why, &out->check_error)) {
            out->status = RL_MB_CHECK_FAILED;
            snprintf(out->reason, sizeof out->reason, "output check failed: %s", check_why);
            goto done;
        }
    } else {
        for (size_t i = 0; i < checked; i++) {
            b.v[0][i] = acc_value(v, b.c0, i);
            b.v[1][i] = acc_value(v, b.d1, i);
            b.v[2][i] = acc_value(v, b.d2, i);
            b.v[3][i] = acc_value(v, b.d3, i);
        }
        if (rl_mb_check_mma(&expect, b.v[0], b.v[1], b.v[2], b.v[3], NULL, 0, checked,
                            check_why, &out->check_error)) {
            out->status = RL_MB_CHECK_FAILED;
            snprintf(out->reason, sizeof out->reason, "output check failed: %s", check_why);
            goto done;
        }
    }

    /* 2. Calibrate the iteration count to the target time. */
    long long iters = is_fma(v->check) ? 64 : 16;
    double t = 0;
    for (;;) {
        if ((rc = run_once(r, fn, grid, block, &b, bytes, iters, NULL, &t)))
            goto done;
        if (t > r->target_ns / 8 || iters > (1LL << 40))
            break;
        iters *= 4;
    }
    iters = (long long)ceil(iters * r->target_ns / t);
    out->iters = iters;
    out->threads = threads;
    out->work = rl_mb_launch_work(v, threads, iters);
    out->bytes = 0;

    /* 3. One untimed run at full length, then the timed ones. */
    if ((rc = run_once(r, fn, grid, block, &b, bytes, iters, NULL, NULL)))
        goto done;
    uint64_t first = 0;
    rl_nvml_sampler_start();
    for (int i = 0; i < r->reps && rc == RL_OK; i++) {
        rc = run_once(r, fn, grid, block, &b, bytes, iters, i ? b.host : b.dn,
                      &out->time_ns[i]);
        uint64_t d = rl_mb_digest(i ? b.host : b.dn, bytes);
        if (i == 0)
            first = d;
        else if (d != first && rc == RL_OK) {
            out->status = RL_MB_CHECK_FAILED;
            snprintf(out->reason, sizeof out->reason,
                     "output check failed: run %d differs from run 1 (not deterministic)", i + 1);
        }
        out->n_reps = i + 1;
    }
    rl_nvml_sampler_stop(&out->cond);
    if (rc || out->status != RL_MB_OK)
        goto done;

    /* 4. Check the timed output where the format allows it at this length. */
    if (is_fma(v->check)) {
        bool half = v->check == RL_MB_CHECK_FMA_F16X2 || v->check == RL_MB_CHECK_FMA_BF16X2;
        int n_threads = half ? (r->opt->quick ? 0 : 1) : 8;
        if (n_threads && check_fma(v, b.dn, iters * FMA_UNROLL, threads, n_threads, check_why,
                                   &out->check_error)) {
            out->status = RL_MB_CHECK_FAILED;
            snprintf(out->reason, sizeof out->reason, "output check failed: %s", check_why);
            goto done;
        }
        snprintf(out->check, sizeof out->check,
                 "FMA chains bit-exact with the host after 48 steps (64 threads) and %s; "
                 "timed runs identical",
                 n_threads ? "after every step of the timed run (sampled threads)"
                           : "not re-simulated at full length (FP16/BF16, quick)");
    } else {
        /* Reduced-precision accumulation (FP16, and FP8 / FP6 / FP4 whose tensor cores
         * accumulate with fewer bits) cannot stay linear over millions of
         * MMAs: those are checked at 1, 2 and 3 iterations only. */
        bool large = v->check != RL_MB_CHECK_MMA_F16 && v->check != RL_MB_CHECK_MMA_F16_WIDE &&
                     !rl_mb_narrow_inputs(v);
        if (large) {
            for (size_t i = 0; i < checked; i++)
                b.v[4][i] = acc_value(v, b.dn, i);
            if (rl_mb_check_mma(&expect, b.v[0], b.v[1], b.v[2], b.v[3], b.v[4], (double)iters,
                                checked, check_why, &out->check_error)) {
                out->status = RL_MB_CHECK_FAILED;
                snprintf(out->reason, sizeof out->reason, "output check failed: %s", check_why);
                goto done;
            }
        }
        snprintf(out->check, sizeof out->check,
                 "accumulators linear in the MMA count at 1, 2, 3%s iterations, products of "
                 "the expected size (K = %d); timed runs identical",
                 large ? " and all" : "", v->k);
    }
done:
    cudaFree(b.d_out);
    cudaFree(b.d_in);
    cudaFreeHost(b.c0);
    cudaFreeHost(b.host);
    free(b.d1);
    free(b.d2);
    free(b.d3);
    free(b.dn);
    for (int i = 0; i < 5; i++)
        free(b.v[i]);
    if (rc && out->status == RL_MB_OK) {
        out->status = RL_MB_FAILED;
        snprintf(out->reason, sizeof out->reason, "%s", r->errmsg);
    }
    return rc == RL_ECUDA ? RL_OK : rc;
}
