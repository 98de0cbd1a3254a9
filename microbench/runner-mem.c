/* runner-mem.c - runners for bandwidth benchmarks: HBM streams, shared memory, the cache sweep, host copies, the intensity sweep. */
#define _GNU_SOURCE
#include "microbench/runner.h"

#include "microbench/verify.h"
#include "analyzer/util/error.h"
#include "microbench/fp.h"
#include "microbench/geometry.h"
#include "microbench/hash.h"
#include "microbench/nvml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024 * 1024)
#define SEED_A 0x1234567u
#define SEED_B 0x2468ACEu
#define SEED_C 0x13579BDu

static int blocks_per_sm(struct rl_run *r, const void *fn, int block, int *per_sm)
{
    int rc = RL_OK;
    RL_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, fn, block, 0));
    if (*per_sm < 1)
        *per_sm = 1;
done:
    return rc;
}

static int fill(struct rl_run *r, void *buf, size_t n_vec, uint32_t seed, int mode)
{
    const void *fn = rl_mb_memory_kernel("rl_mb_fill");
    void *args[] = {&buf, &n_vec, &seed, &mode};
    double t;
    return rl_time_launches(r, fn, (unsigned)r->dev->sm_count * 8, 256, args, 0, 1, &t);
}

/* Time `reps` samples of `batch` launches each, sized to the target time;
 * per-launch times go to out->time_ns. */
static int time_reps(struct rl_run *r, const void *fn, unsigned grid, unsigned block,
                     void **args, size_t smem, struct rl_mb_raw *out)
{
    double t;
    int rc = rl_time_launches(r, fn, grid, block, args, smem, 1, &t);
    if (rc)
        return rc;
    int batch = t > 0 ? (int)ceil(r->target_ns / t) : 1;
    batch = batch < 1 ? 1 : batch > 1000 ? 1000 : batch;
    rl_nvml_sampler_start();
    for (int i = 0; i < r->reps && rc == RL_OK; i++) {
        rc = rl_time_launches(r, fn, grid, block, args, smem, batch, &t);
        out->time_ns[i] = t / batch;
        out->n_reps = i + 1;
    }
    rl_nvml_sampler_stop(&out->cond);
    return rc;
}

static void fail_check(struct rl_mb_raw *out, const char *fmt, unsigned long long a,
                       unsigned long long b)
{
    out->status = RL_MB_CHECK_FAILED;
    snprintf(out->reason, sizeof out->reason, fmt, a, b);
}

/* ---- HBM streams ---------------------------------------------------- */

int rl_run_stream(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out)
{
    int rc = RL_OK, per_sm;
    const void *fn = rl_mb_memory_kernel(def->mem_kernel);
    size_t bytes = (size_t)((r->opt->quick ? 1 : 2) * GIB), n = bytes / 16;
    uint4 *a = NULL, *b = NULL, *c = NULL;
    uint32_t *partial = NULL, *host = NULL;
    if ((rc = blocks_per_sm(r, fn, STREAM_BLOCK, &per_sm)))
        return rc;
    unsigned grid = (unsigned)(r->dev->sm_count * per_sm);
    size_t threads = (size_t)grid * STREAM_BLOCK;
    RL_CK(cudaMalloc((void **)&a, bytes));
    if (def->reads + def->writes > 1)
        RL_CK(cudaMalloc((void **)&b, bytes));
    if (def->reads + def->writes > 2)
        RL_CK(cudaMalloc((void **)&c, bytes));
    RL_CK(cudaMalloc((void **)&partial, threads * sizeof *partial));
    RL_CK(cudaMallocHost((void **)&host, threads * sizeof *host));

    void *args[5];
    uint32_t seed = SEED_A;
    float s = 0.75f;
    bool triad = strcmp(def->name, "hbm-triad") == 0;
    if (strcmp(def->name, "hbm-read") == 0) {
        if ((rc = fill(r, a, n, SEED_A, 0)))
            goto done;
        args[0] = &a, args[1] = &n, args[2] = &partial;
    } else if (strcmp(def->name, "hbm-write") == 0) {
        args[0] = &a, args[1] = &n, args[2] = &seed;
    } else if (strcmp(def->name, "hbm-copy") == 0) {
        if ((rc = fill(r, a, n, SEED_A, 0)))
            goto done;
        args[0] = &a, args[1] = &b, args[2] = &n;
    } else { /* triad: a = b + s c */
        if ((rc = fill(r, b, n, SEED_B, 1)) || (rc = fill(r, c, n, SEED_C, 1)))
            goto done;
        args[0] = &a, args[1] = &b, args[2] = &c, args[3] = &s, args[4] = &n;
    }

    /* One checked run. */
    double t;
    if ((rc = rl_time_launches(r, fn, grid, STREAM_BLOCK, args, 0, 1, &t)))
        goto done;
    if (strcmp(def->name, "hbm-read") == 0) {
        if ((rc = rl_copy_to_host(r, host, partial, threads * sizeof *host)))
            goto done;
        uint32_t sum = 0;
        for (size_t i = 0; i < threads; i++)
            sum += host[i];
        uint32_t want = rl_mb_cheap_sum(4 * (uint64_t)n, SEED_A);
        if (sum != want) {
            fail_check(out, "output check failed: sum of words read %#llx, host %#llx", sum,
                       want);
            goto done;
        }
        snprintf(out->check, sizeof out->check,
                 "sum of every word read equals the closed form (mod 2^32)");
    } else {
        /* Sample 256 vectors of the written array. */
        const uint4 *dst = b ? (triad ? a : b) : a;
        for (int k = 0; k < 256; k++) {
            size_t i = (size_t)rl_mb_hash((uint32_t)k * 7919u) % n;
            uint32_t got[4], want[4];
            if ((rc = rl_copy_to_host(r, got, dst + i, 16)))
                goto done;
            for (int l = 0; l < 4; l++) {
                uint64_t w = 4 * (uint64_t)i + (uint64_t)l;
                if (triad) {
                    float bv = rl_mb_unit_float(rl_mb_word(w, SEED_B));
                    float cv = rl_mb_unit_float(rl_mb_word(w, SEED_C));
                    float av = fmaf(s, cv, bv);
                    memcpy(&want[l], &av, 4);
                } else {
                    want[l] = rl_mb_cheap_word((uint32_t)w, SEED_A);
                }
            }
            if (memcmp(got, want, 16) != 0) {
                fail_check(out, "output check failed: word %llu is %#llx", 4 * (unsigned long long)i,
                           got[0]);
                goto done;
            }
        }
        snprintf(out->check, sizeof out->check, "256 sampled vectors match the host%s",
                 triad ? " (fmaf)" : "");
    }
    out->bytes = (double)(def->reads + def->writes) * (double)n * 16;
    out->threads = (long long)threads;
    snprintf(out->instruction, sizeof out->instruction, "%s",
             def->load_sass ? def->load_sass : def->store_sass);
    snprintf(out->variant, sizeof out->variant,
             "%.1f GiB per array, %d blocks x %d threads per SM, %d accesses in flight",
             bytes / GIB, per_sm, STREAM_BLOCK, STREAM_UNROLL);
    rc = time_reps(r, fn, grid, STREAM_BLOCK, args, 0, out);
done:
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(partial);
    cudaFreeHost(host);
    return rc;
}

/* ---- shared memory ----------------------------------------------------- */

int rl_run_shared(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out)
{
    int rc = RL_OK, per_sm;
    const void *fn = rl_mb_memory_kernel(def->mem_kernel);
    uint32_t *partial = NULL, *host = NULL;
    if ((rc = blocks_per_sm(r, fn, SMEM_BLOCK, &per_sm)))
        return rc;
    unsigned grid = (unsigned)(r->dev->sm_count * per_sm);
    size_t threads = (size_t)grid * SMEM_BLOCK;
    RL_CK(cudaMalloc((void **)&partial, threads * sizeof *partial));
    RL_CK(cudaMallocHost((void **)&host, threads * sizeof *host));
    int passes = 64;
    uint32_t seed = SEED_A;
    void *args[] = {&partial, &passes, &seed};
    double t;
    if ((rc = rl_time_launches(r, fn, grid, SMEM_BLOCK, args, 0, 1, &t)))
        goto done;
    if ((rc = rl_copy_to_host(r, host, partial, threads * sizeof *host)))
        goto done;
    for (size_t i = 0; i < threads; i++) {
        uint32_t tid = (uint32_t)(i % SMEM_BLOCK), one = 0;
        for (int k = 0; k < SMEM_PER_ITER; k++)
            for (int l = 0; l < 4; l++)
                one += rl_mb_word(4 * (uint64_t)(tid + (uint32_t)k * SMEM_BLOCK) + (uint64_t)l,
                                  seed);
        if (host[i] != one * (uint32_t)passes) {
            fail_check(out, "output check failed: thread %llu summed %#llx", i, host[i]);
            goto done;
        }
    }
    snprintf(out->check, sizeof out->check, "every thread's sum of the words it loaded matches");
    passes = (int)fmin(1 << 22, ceil(passes * (r->target_ns / 4) / t));
    out->bytes = (double)grid * passes * SMEM_VECS * 16.0;
    out->iters = passes;
    out->threads = (long long)threads;
    snprintf(out->instruction, sizeof out->instruction, "%s", def->load_sass);
    snprintf(out->variant, sizeof out->variant, "%d KiB per block, %d blocks x %d threads per SM",
             SMEM_VECS * 16 / 1024, per_sm, SMEM_BLOCK);
    rc = time_reps(r, fn, grid, SMEM_BLOCK, args, 0, out);
done:
    cudaFree(partial);
    cudaFreeHost(host);
    return rc;
}

/* ---- cache working-set sweep ------------------------------------------ */

int rl_run_cache(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out)
{
    int rc = RL_OK, per_sm;
    const void *fn = rl_mb_memory_kernel(def->mem_kernel);
    uint4 *a = NULL;
    uint32_t *partial = NULL, *host = NULL;
    if ((rc = blocks_per_sm(r, fn, STREAM_BLOCK, &per_sm)))
        return rc;
    unsigned grid = (unsigned)(r->dev->sm_count * per_sm);
    size_t threads = (size_t)grid * STREAM_BLOCK;
    const size_t min_slice = 16 * 1024;
    double max_ws = fmin(4 * r->dev->l2_bytes, 512.0 * 1024 * 1024);
    if (max_ws < 64e6)
        max_ws = 64e6;
    size_t buf_bytes = (size_t)max_ws + (size_t)grid * min_slice;
    RL_CK(cudaMalloc((void **)&a, buf_bytes));
    RL_CK(cudaMalloc((void **)&partial, threads * sizeof *partial));
    RL_CK(cudaMallocHost((void **)&host, threads * sizeof *host));
    if ((rc = fill(r, a, buf_bytes / 16, SEED_A, 0)))
        goto done;

    /* Check one small configuration (2 slices, 1 pass) against the host. */
    {
        size_t slice_vecs = min_slice / 16;
        int n_slices = 2, passes = 1;
        void *args[] = {&a, &slice_vecs, &n_slices, &passes, &partial};
        double t;
        if ((rc = rl_time_launches(r, fn, grid, STREAM_BLOCK, args, 0, 1, &t)))
            goto done;
        if ((rc = rl_copy_to_host(r, host, partial, threads * sizeof *host)))
            goto done;
        for (size_t i = 0; i < threads; i++) {
            size_t blk = i / STREAM_BLOCK, tid = i % STREAM_BLOCK, slice = blk % 2;
            uint32_t want = 0;
            for (size_t v = tid; v < slice_vecs; v += STREAM_BLOCK)
                for (int l = 0; l < 4; l++)
                    want += rl_mb_cheap_word(
                        (uint32_t)(4 * (slice * slice_vecs + v) + (size_t)l), SEED_A);
            if (host[i] != want) {
                fail_check(out, "output check failed: thread %llu summed %#llx", i, host[i]);
                goto done;
            }
        }
        snprintf(out->check, sizeof out->check,
                 "sums checked against the host on a 32 KiB working set");
    }

    /* Working sets from 16 KiB up, by sqrt(2) (quick: by 2). */
    double step = r->opt->quick ? 2.0 : sqrt(2.0);
    out->n_points = 0;
    for (double ws = (double)min_slice; ws <= max_ws * 1.0001 && out->n_points < RL_MB_MAX_POINTS;
         ws *= step) {
        size_t slice_vecs, n_slices;
        if (ws <= (double)min_slice * grid) {
            slice_vecs = min_slice / 16;
            n_slices = (size_t)(ws / (double)min_slice);
        } else {
            slice_vecs = (size_t)(ws / 16 / grid);
            n_slices = grid;
        }
        if (n_slices < 1)
            n_slices = 1;
        int ns = (int)n_slices, passes = 4;
        void *args[] = {&a, &slice_vecs, &ns, &passes, &partial};
        double t;
        if ((rc = rl_time_launches(r, fn, grid, STREAM_BLOCK, args, 0, 1, &t)))
            goto done;
        /* At least two sweeps over the whole set, about target/2 long. */
        double want_passes = fmax(2.0 * n_slices / grid, passes * (r->target_ns / 2) / t);
        passes = (int)fmin(1 << 20, ceil(want_passes));
        double times[RL_MB_MAX_REPS];
        int reps = r->opt->quick ? 3 : 5;
        for (int k = 0; k < reps; k++)
            if ((rc = rl_time_launches(r, fn, grid, STREAM_BLOCK, args, 0, 1, &times[k])))
                goto done;
        struct rl_mb_point *p = &out->points[out->n_points++];
        p->x = (double)n_slices * (double)slice_vecs * 16;
        p->bytes = (double)grid * passes * (double)slice_vecs * 16;
        p->work = 0;
        p->time_ns = rl_run_median(times, reps);
    }
    out->threads = (long long)threads;
    snprintf(out->instruction, sizeof out->instruction, "%s", def->load_sass);
    snprintf(out->variant, sizeof out->variant,
             "%d blocks x %d threads per SM; block b reads slice (b + pass) mod slices",
             per_sm, STREAM_BLOCK);
done:
    cudaFree(a);
    cudaFree(partial);
    cudaFreeHost(host);
    return rc;
}

/* ---- host <-> device copies --------------------------------------------- */

int rl_run_transfer(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out)
{
    int rc = RL_OK;
    bool h2d = strcmp(def->name, "h2d") == 0;
    size_t bytes = r->opt->quick ? ((size_t)256 << 20) : ((size_t)1 << 30), n = bytes / 4;
    uint32_t *host = NULL;
    void *dev = NULL;
    RL_CK(cudaMallocHost((void **)&host, bytes));
    RL_CK(cudaMalloc(&dev, bytes));
    if (h2d) {
        for (size_t i = 0; i < n; i++)
            host[i] = rl_mb_cheap_word((uint32_t)i, SEED_B);
    } else {
        memset(host, 0, bytes);
        if ((rc = fill(r, dev, bytes / 16, SEED_B, 0)))
            goto done;
    }
    rl_nvml_sampler_start();
    for (int i = 0; i < r->reps && rc == RL_OK; i++) {
        float ms;
        RL_CK(cudaEventRecord(r->ev0, r->stream));
        if (h2d)
            RL_CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, r->stream));
        else
            RL_CK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, r->stream));
        RL_CK(cudaEventRecord(r->ev1, r->stream));
        RL_CK(cudaEventSynchronize(r->ev1));
        RL_CK(cudaEventElapsedTime(&ms, r->ev0, r->ev1));
        out->time_ns[i] = ms * 1e6;
        out->n_reps = i + 1;
    }
    rl_nvml_sampler_stop(&out->cond);
    /* Check: 4096 sampled words at the destination. */
    for (int k = 0; k < 4096; k++) {
        size_t i = (size_t)rl_mb_hash((uint32_t)k * 104729u) % n;
        uint32_t got = host[i];
        if (h2d && (rc = rl_copy_to_host(r, &got, (uint32_t *)dev + i, 4)))
            goto done;
        uint32_t want = rl_mb_cheap_word((uint32_t)i, SEED_B);
        if (got != want) {
            fail_check(out, "output check failed: word %llu is %#llx", i, got);
            goto done;
        }
    }
    snprintf(out->check, sizeof out->check, "4096 sampled words match at the destination");
    out->bytes = (double)bytes;
    snprintf(out->instruction, sizeof out->instruction, "cudaMemcpyAsync");
    snprintf(out->variant, sizeof out->variant, "%zu MiB, pinned host memory, one direction",
             bytes >> 20);
done:
    cudaFreeHost(host);
    cudaFree(dev);
    return rc;
}

/* ---- arithmetic-intensity sweep ---------------------------------------- */

static const int sweep_k[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
#define N_SWEEP_K ((int)(sizeof sweep_k / sizeof sweep_k[0]))

/* Lane l of vector i as filled by rl_mb_sweep_fill (sweep.cu), as the bits
 * rl_mb_fma_simulate() works on: a float, a double, or a half2 / bfloat162
 * pair (lanes 2c and 2c+1 share word c). */
static uint64_t sweep_start(enum rl_mb_check kind, size_t i, int l, uint32_t seed)
{
    if (kind == RL_MB_CHECK_FMA_F64) {
        double d = rl_mb_unit_float(rl_mb_word(4 * (uint64_t)i + 2 * (uint64_t)l, seed));
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    uint32_t h = rl_mb_word(4 * (uint64_t)i + (uint64_t)l, seed);
    float lo = rl_mb_unit_float(h), hi = rl_mb_unit_float(rl_mb_hash(h));
    if (kind == RL_MB_CHECK_FMA_F32) {
        uint32_t u;
        memcpy(&u, &lo, 4);
        return u;
    }
    if (kind == RL_MB_CHECK_FMA_F16X2)
        return rl_fp16_from_double(lo) | (uint64_t)rl_fp16_from_double(hi) << 16;
    return rl_bf16_from_double(lo) | (uint64_t)rl_bf16_from_double(hi) << 16;
}

/* x = x alpha + beta converges to 0.5 and stays in [0.5, 1): never zero,
 * never infinite, however many steps. Bits of alpha and beta per type. */
static void sweep_constants(enum rl_mb_check kind, uint64_t *alpha, uint64_t *beta)
{
    switch (kind) {
    case RL_MB_CHECK_FMA_F64: {
        double a = 1 - ldexp(1, -20), b = ldexp(1, -21);
        memcpy(alpha, &a, 8);
        memcpy(beta, &b, 8);
        break;
    }
    case RL_MB_CHECK_FMA_F32: {
        float a = 1 - ldexpf(1, -12), b = ldexpf(1, -13);
        uint32_t ua, ub;
        memcpy(&ua, &a, 4);
        memcpy(&ub, &b, 4);
        *alpha = ua;
        *beta = ub;
        break;
    }
    case RL_MB_CHECK_FMA_F16X2: {
        uint32_t a = rl_fp16_from_double(1 - ldexp(1, -8)), b = rl_fp16_from_double(ldexp(1, -9));
        *alpha = a | a << 16;
        *beta = b | b << 16;
        break;
    }
    default: {
        uint32_t a = rl_bf16_from_double(1 - ldexp(1, -6)), b = rl_bf16_from_double(ldexp(1, -7));
        *alpha = a | a << 16;
        *beta = b | b << 16;
    }
    }
}

int rl_run_sweep(struct rl_run *r, const struct rl_mb_def *def, struct rl_mb_raw *out)
{
    int rc = RL_OK;
    const struct rl_mb_variant *v = &def->variants[0];
    enum rl_mb_check kind = v->check;
    const char *why;
    if (!rl_mb_supported(def, r->dev->cc_major, r->dev->cc_minor, &why)) {
        out->status = RL_MB_UNSUPPORTED;
        snprintf(out->reason, sizeof out->reason, "%s", why);
        return RL_OK;
    }
    size_t bytes = (size_t)((r->opt->quick ? 0.5 : 1.0) * GIB), n = bytes / 16;
    int type = kind == RL_MB_CHECK_FMA_F32   ? 0
               : kind == RL_MB_CHECK_FMA_F64 ? 1
               : kind == RL_MB_CHECK_FMA_F16X2 ? 2
                                               : 3;
    uint4 *a = NULL;
    uint64_t alpha, beta;
    sweep_constants(kind, &alpha, &beta);
    RL_CK(cudaMalloc((void **)&a, bytes));
    {
        uint32_t seed = SEED_C;
        void *args[] = {&a, &n, &seed, &type};
        double t;
        if ((rc = rl_time_launches(r, rl_mb_sweep_kernel("rl_mb_sweep_fill"),
                                   (unsigned)r->dev->sm_count * 8, 256, args, 0, 1, &t)))
            goto done;
    }
    /* Kernel arguments: alpha and beta by value in the element type. */
    unsigned char alpha_arg[8], beta_arg[8];
    memcpy(alpha_arg, &alpha, 8);
    memcpy(beta_arg, &beta, 8);
    long long steps = 0; /* FMAs applied to every lane so far */
    int per_sm = 0;
    rl_nvml_sampler_start();
    for (int ki = 0; ki < N_SWEEP_K && rc == RL_OK; ki++) {
        char kname[64];
        snprintf(kname, sizeof kname, "%s_k%d", def->mem_kernel, sweep_k[ki]);
        const void *fn = rl_mb_sweep_kernel(kname);
        if (!fn) {
            rc = rl_fail(r->errmsg, RL_EINVAL, "no kernel %s", kname);
            break;
        }
        if ((rc = blocks_per_sm(r, fn, 256, &per_sm)))
            break;
        unsigned grid = (unsigned)(r->dev->sm_count * per_sm);
        void *args[] = {&a, &n, alpha_arg, beta_arg};
        double t, times[RL_MB_MAX_REPS];
        if ((rc = rl_time_launches(r, fn, grid, 256, args, 0, 1, &t)))
            break;
        int batch = (int)fmax(1, ceil(r->target_ns / 2 / t));
        int reps = r->opt->quick ? 3 : 5;
        steps += sweep_k[ki];
        for (int k = 0; k < reps && rc == RL_OK; k++) {
            rc = rl_time_launches(r, fn, grid, 256, args, 0, batch, &times[k]);
            times[k] /= batch;
            steps += (long long)sweep_k[ki] * batch;
        }
        struct rl_mb_point *p = &out->points[out->n_points++];
        p->x = sweep_k[ki];
        p->work = (double)n * v->per_iter * sweep_k[ki] * v->flop_per_instr;
        p->bytes = (double)n * 32;
        p->time_ns = rl_run_median(times, reps);
    }
    rl_nvml_sampler_stop(&out->cond);
    if (rc)
        goto done;
    /* Check: 16 sampled vectors against the host after every step taken. */
    int lanes = kind == RL_MB_CHECK_FMA_F64 ? 2 : 4; /* words simulated per vector */
    for (int k = 0; k < 16; k++) {
        size_t i = (size_t)rl_mb_hash((uint32_t)k * 15485863u) % n;
        uint64_t got[2];
        if ((rc = rl_copy_to_host(r, got, a + i, 16)))
            goto done;
        for (int l = 0; l < lanes; l++) {
            size_t eb = kind == RL_MB_CHECK_FMA_F64 ? 8 : 4;
            uint64_t have = 0;
            memcpy(&have, (const char *)got + (size_t)l * eb, eb);
            uint64_t want = rl_mb_fma_simulate(kind, sweep_start(kind, i, l, SEED_C), alpha,
                                               beta, steps);
            if (eb == 4)
                want &= 0xFFFFFFFFu;
            if (have != want) {
                fail_check(out, "output check failed: lane bits %#llx, host %#llx", have, want);
                goto done;
            }
        }
    }
    snprintf(out->check, sizeof out->check,
             "16 sampled vectors bit-exact with the host after all %lld FMAs per lane", steps);
    out->bytes = (double)bytes;
    snprintf(out->instruction, sizeof out->instruction, "%.*s", (int)strcspn(v->sass, "|"),
             v->sass);
    snprintf(out->variant, sizeof out->variant,
             "%.1f GiB in place, K = 1..1024, %d blocks x 256 threads per SM", bytes / GIB,
             per_sm);
done:
    cudaFree(a);
    return rc;
}
