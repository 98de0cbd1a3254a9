/* copies.c - the copy bandwidth matrix, measured as nvbandwidth does (github.com/NVIDIA/nvbandwidth, README "Measurement Details").
 *
 * Host-to-device and device-to-host from pinned memory (cudaMallocHost),
 * device-to-device inside each GPU, peer-to-peer for every ordered pair of
 * GPUs this process drives that can reach each other
 * (cudaDeviceCanAccessPeer; a pair that cannot is null, with the reason),
 * unidirectional and bidirectional; each through the copy engine
 * (cudaMemcpyAsync) and through the SMs (a copy kernel, copy.cu).
 *
 * One sample: a gate kernel holds every stream until all of its copies are
 * queued (so enqueueing is not timed), then CUDA events around `reps`
 * copies of `bytes` on the measured stream; GB/s = bytes x reps / time.
 * The cell is the median of the samples (nvbandwidth's default: 3).
 * Bidirectional: the reverse copy runs at the same time on the peer's
 * stream, the cell is the measured direction's rate (nvbandwidth's "CE
 * bidir. bandwidth = size on measured stream / time on measured stream").
 * Bytes are counted once per copy (not read plus written, unlike `roofline
 * bench`'s HBM figures). Every destination is checked word by word against
 * the source's pattern after the timed copies.
 *
 * Under MPI each rank measures its own GPU's host and local copies, one
 * rank at a time (so that ranks sharing a PCIe switch do not share it while
 * timed), and rank 0 gathers them; peer copies between processes are not
 * measured (one process per node drives every GPU and measures them).
 */
#define _GNU_SOURCE
#include "analyzer/comm/harness.h"
#include "analyzer/util/alloc.h"

#include "analyzer/comm/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H2D_CE, H2D_SM, D2H_CE, D2H_SM, D2D_CE, D2D_SM, N_LOCAL };

struct gpu {
    int dev, sms;
    cudaStream_t s;
    unsigned *a, *b;           /* source (pattern) and destination */
    unsigned long long *wrong;
    cudaEvent_t e0, e1;
    unsigned seed;
};

struct leg {
    struct gpu *g;             /* whose stream */
    void *dst;
    const void *src;
    bool sm;
};

static int gpu_open(struct rl__ctx *c, struct gpu *g, int dev, unsigned seed, size_t bytes)
{
    memset(g, 0, sizeof *g);
    g->dev = dev;
    g->seed = seed;
    RL_CUDA(c, cudaSetDevice(dev));
    RL_CUDA(c, cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, dev));
    RL_CUDA(c, cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking));
    RL_CUDA(c, cudaEventCreate(&g->e0));
    RL_CUDA(c, cudaEventCreate(&g->e1));
    RL_CUDA(c, cudaMalloc((void **)&g->a, bytes));
    RL_CUDA(c, cudaMalloc((void **)&g->b, bytes));
    RL_CUDA(c, cudaMalloc((void **)&g->wrong, sizeof *g->wrong));
    RL_CUDA(c, rl__copy_pattern(g->a, (long long)(bytes / 4), seed, g->s));
    RL_CUDA(c, cudaStreamSynchronize(g->s));
    return RL_OK;
}

static void gpu_close(struct gpu *g)
{
    if (!g->s)
        return;
    cudaSetDevice(g->dev);
    cudaFree(g->a);
    cudaFree(g->b);
    cudaFree(g->wrong);
    cudaEventDestroy(g->e0);
    cudaEventDestroy(g->e1);
    cudaStreamDestroy(g->s);
    memset(g, 0, sizeof *g);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Time legs[0] while every leg runs (median of the samples), GB/s. */
static int timed(struct rl__ctx *c, struct leg *legs, int nlegs, size_t bytes, volatile int *flag,
                 double *gbs)
{
    int samples = c->req->copy_samples > 0 ? c->req->copy_samples : 3;
    /* At least 1 GiB per sample, at most 16 copies. */
    int reps = (int)((1024.0 * 1024 * 1024 + bytes - 1) / bytes);
    reps = reps < 1 ? 1 : reps > 16 ? 16 : reps;
    double got[64];
    if (samples > 64)
        samples = 64;
    for (int k = 0; k < samples; k++) {
        *flag = 0;
        __sync_synchronize();
        for (int l = 0; l < nlegs; l++) {
            struct gpu *g = legs[l].g;
            RL_CUDA(c, cudaSetDevice(g->dev));
            RL_CUDA(c, rl__copy_gate(flag, g->s));
            RL_CUDA(c, cudaEventRecord(g->e0, g->s));
            for (int i = 0; i < reps; i++) {
                if (legs[l].sm)
                    RL_CUDA(c, rl__copy_sm(legs[l].dst, legs[l].src, (long long)bytes, g->sms,
                                           g->s));
                else
                    RL_CUDA(c, cudaMemcpyAsync(legs[l].dst, legs[l].src, bytes, cudaMemcpyDefault,
                                               g->s));
            }
            RL_CUDA(c, cudaEventRecord(g->e1, g->s));
        }
        __sync_synchronize();
        *flag = 1;
        for (int l = 0; l < nlegs; l++)
            RL_CUDA(c, cudaStreamSynchronize(legs[l].g->s));
        float ms = 0;
        RL_CUDA(c, cudaEventElapsedTime(&ms, legs[0].g->e0, legs[0].g->e1));
        got[k] = ms > 0 ? (double)bytes * reps / (ms * 1e-3) / 1e9 : NAN;
    }
    qsort(got, (size_t)samples, sizeof got[0], cmp_double);
    *gbs = samples % 2 ? got[samples / 2] : (got[samples / 2 - 1] + got[samples / 2]) / 2;
    rl__tick();
    return RL_OK;
}

/* Words of dst (on g's device or host) that are not g_src's pattern. */
static int verify(struct rl__ctx *c, struct gpu *g, const void *dst, size_t bytes, unsigned seed,
                  long long *wrong)
{
    unsigned long long w = 0;
    RL_CUDA(c, cudaSetDevice(g->dev));
    RL_CUDA(c, cudaMemsetAsync(g->wrong, 0, sizeof *g->wrong, g->s));
    RL_CUDA(c, rl__copy_verify(dst, (long long)(bytes / 4), seed, g->wrong, g->s));
    RL_CUDA(c, cudaMemcpyAsync(&w, g->wrong, sizeof w, cudaMemcpyDeviceToHost, g->s));
    RL_CUDA(c, cudaStreamSynchronize(g->s));
    *wrong += (long long)w;
    return RL_OK;
}

static int clear(struct rl__ctx *c, struct gpu *g, void *dst, size_t bytes)
{
    /* Another pattern (a kernel, since dst may be pinned host memory): a
     * copy that did not happen fails the check. */
    RL_CUDA(c, cudaSetDevice(g->dev));
    RL_CUDA(c, rl__copy_pattern(dst, (long long)(bytes / 4), 0xa5a5a5a5u, g->s));
    RL_CUDA(c, cudaStreamSynchronize(g->s));
    return RL_OK;
}

/* One measured copy: clear the destination, time, verify. */
static int one(struct rl__ctx *c, struct leg *legs, int nlegs, size_t bytes, volatile int *flag,
               const unsigned *seeds, const struct gpu *const *checkers, double *gbs,
               long long *wrong)
{
    int rc;
    for (int l = 0; l < nlegs; l++)
        if ((rc = clear(c, legs[l].g, legs[l].dst, bytes)))
            return rc;
    if ((rc = timed(c, legs, nlegs, bytes, flag, gbs)))
        return rc;
    for (int l = 0; l < nlegs; l++)
        if ((rc = verify(c, (struct gpu *)checkers[l], legs[l].dst, bytes, seeds[l], wrong)))
            return rc;
    return RL_OK;
}

/* Host and local copies of one GPU: gbs[N_LOCAL], wrong[N_LOCAL]. */
static int local_copies(struct rl__ctx *c, struct gpu *g, unsigned *host, size_t bytes,
                        volatile int *flag, double *gbs, long long *wrong)
{
    int rc;
    unsigned hseed = 0x51ed27u;
    /* The host buffer's pattern, written by the GPU through the mapping. */
    RL_CUDA(c, cudaSetDevice(g->dev));
    RL_CUDA(c, rl__copy_pattern(host, (long long)(bytes / 4), hseed, g->s));
    RL_CUDA(c, cudaStreamSynchronize(g->s));
    for (int k = 0; k < N_LOCAL; k++) {
        bool sm = k % 2 == 1;
        struct leg leg = {g, NULL, NULL, sm};
        unsigned seed = g->seed;
        unsigned *restore = NULL;
        if (k == H2D_CE || k == H2D_SM) {
            leg.dst = g->b, leg.src = host, seed = hseed;
        } else if (k == D2H_CE || k == D2H_SM) {
            /* Into a second pinned half? One host buffer: copy the GPU's
             * pattern over it, check, then restore the host pattern. */
            leg.dst = host, leg.src = g->a;
            restore = host;
        } else {
            leg.dst = g->b, leg.src = g->a;
        }
        const struct gpu *chk[1] = {g};
        if ((rc = one(c, &leg, 1, bytes, flag, &seed, chk, &gbs[k], &wrong[k])))
            return rc;
        if (restore) {
            RL_CUDA(c, rl__copy_pattern(restore, (long long)(bytes / 4), hseed, g->s));
            RL_CUDA(c, cudaStreamSynchronize(g->s));
        }
    }
    return RL_OK;
}

static struct rl_comm_raw_copy *entry(struct rl_comm_raw *out, const char *kind,
                                      const char *engine, const char *dir, double bytes,
                                      int rows, int cols)
{
    struct rl_comm_raw_copy *e = &out->copies[out->n_copies++];
    memset(e, 0, sizeof *e);
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    snprintf(e->engine, sizeof e->engine, "%s", engine);
    snprintf(e->direction, sizeof e->direction, "%s", dir);
    e->bytes = bytes;
    e->rows = rows;
    e->cols = cols;
    for (int i = 0; i < RL_COMM_MAX_GPUS; i++)
        for (int j = 0; j < RL_COMM_MAX_GPUS; j++)
            e->gbs[i][j] = NAN;
    return e;
}

/* The local entries of the matrix from per-GPU figures (n GPUs). */
static void fill_local(struct rl_comm_raw *out, int n, double bytes, double (*gbs)[N_LOCAL],
                       long long (*wrong)[N_LOCAL])
{
    static const char *const kind[N_LOCAL] = {"h2d", "h2d", "d2h", "d2h", "d2d", "d2d"};
    for (int k = 0; k < N_LOCAL; k++) {
        bool h2d = k < D2H_CE, d2h = k == D2H_CE || k == D2H_SM;
        struct rl_comm_raw_copy *e = entry(out, kind[k], k % 2 ? "sm" : "ce", "uni", bytes,
                                           h2d ? 1 : n, d2h ? 1 : n);
        for (int g = 0; g < n; g++) {
            if (h2d)
                e->gbs[0][g] = gbs[g][k];
            else if (d2h)
                e->gbs[g][0] = gbs[g][k];
            else
                e->gbs[g][g] = gbs[g][k];
            e->wrong += wrong[g][k];
        }
    }
}

static int p2p(struct rl__ctx *c, struct gpu *gs, int n, size_t bytes, volatile int *flag)
{
    struct rl_comm_raw *out = c->out;
    struct rl_comm_raw_copy *e[4];
    static const char *const engine[4] = {"ce", "sm", "ce", "sm"};
    static const char *const dir[4] = {"uni", "uni", "bi", "bi"};
    for (int k = 0; k < 4; k++)
        e[k] = entry(out, "p2p", engine[k], dir[k], (double)bytes, n, n);
    char unreachable[RL_COMM_NOTE_SIZE] = "";
    size_t u = 0;
    for (int s = 0; s < n; s++) {
        for (int d = 0; d < n; d++) {
            if (s == d)
                continue;
            int ok_sd = 0, ok_ds = 0;
            RL_CUDA(c, cudaDeviceCanAccessPeer(&ok_sd, gs[s].dev, gs[d].dev));
            RL_CUDA(c, cudaDeviceCanAccessPeer(&ok_ds, gs[d].dev, gs[s].dev));
            if (!ok_sd || !ok_ds) {
                if (u < sizeof unreachable - 16)
                    u += (size_t)snprintf(unreachable + u, sizeof unreachable - u, "%s%d->%d",
                                          u ? ", " : "", s, d);
                continue;
            }
            for (int k = 0; k < 4; k++) {
                bool bi = k >= 2, sm = k % 2 == 1;
                struct leg legs[2] = {{&gs[s], gs[d].b, gs[s].a, sm},
                                      {&gs[d], gs[s].b, gs[d].a, sm}};
                unsigned seeds[2] = {gs[s].seed, gs[d].seed};
                const struct gpu *chk[2] = {&gs[d], &gs[s]};
                int rc = one(c, legs, bi ? 2 : 1, bytes, flag, seeds, chk, &e[k]->gbs[s][d],
                             &e[k]->wrong);
                if (rc)
                    return rc;
            }
        }
    }
    if (u)
        for (int k = 0; k < 4; k++)
            snprintf(e[k]->note, sizeof e[k]->note,
                     "null cells: no peer access between GPUs %s (cudaDeviceCanAccessPeer 0)",
                     unreachable);
    return RL_OK;
}

static int enable_peers(struct rl__ctx *c, struct gpu *gs, int n)
{
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++) {
            int ok = 0;
            if (s == d)
                continue;
            RL_CUDA(c, cudaDeviceCanAccessPeer(&ok, gs[s].dev, gs[d].dev));
            if (!ok)
                continue;
            RL_CUDA(c, cudaSetDevice(gs[s].dev));
            cudaError_t e = cudaDeviceEnablePeerAccess(gs[d].dev, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                RL_CUDA(c, e);
        }
    return RL_OK;
}

struct turn {
    double gbs[N_LOCAL];
    long long wrong[N_LOCAL];
};

int rl__copies_run(struct rl__ctx *c)
{
    struct rl_comm_raw *out = c->out;
    size_t bytes = (size_t)c->req->copy_bytes / 16 * 16;
    int n = c->mpi ? c->world_size : c->nlocal;
    if (n > RL_COMM_MAX_GPUS) {
        rl__note(c, "copies: the first %d of %d GPUs measured", RL_COMM_MAX_GPUS, n);
        n = RL_COMM_MAX_GPUS;
    }
    bool mine = !c->mpi || c->world_rank < n;
    int rc = RL_OK;
    struct gpu gs[RL_COMM_MAX_GPUS];
    memset(gs, 0, sizeof gs);
    unsigned *host = NULL;
    volatile int *flag = NULL;
    double gbs[RL_COMM_MAX_GPUS][N_LOCAL];
    long long wrong[RL_COMM_MAX_GPUS][N_LOCAL];
    memset(wrong, 0, sizeof wrong);
    int nmine = c->mpi ? 1 : n;
    if (mine) {
        RL_CUDA(c, cudaSetDevice(c->r[0].device));
        RL_CUDA(c, cudaMallocHost((void **)&host, bytes));
        RL_CUDA(c, cudaMallocHost((void **)&flag, sizeof *flag));
        for (int g = 0; g < nmine && !rc; g++)
            rc = gpu_open(c, &gs[g], c->r[g].device, 0x9e37u + 977u * (unsigned)(c->mpi ? c->world_rank : g), bytes);
    }
    if (c->mpi) {
        /* One rank at a time; everyone else waits at the barrier. */
        struct turn t;
        memset(&t, 0, sizeof t);
        for (int k = 0; k < N_LOCAL; k++)
            t.gbs[k] = NAN;
        for (int who = 0; who < n; who++) {
            if (who == c->world_rank && !rc)
                rc = local_copies(c, &gs[0], host, bytes, flag, t.gbs, t.wrong);
            int bad = rc != 0;
            long long any = bad;
            if (rl__sum_ll(c, &any, 1))
                return RL_EIO;
            if (any) {
                if (!rc)
                    rc = rl__fail(c, RL_EIO, "stopping: another rank's copies failed");
                break;
            }
            rl__tick();
        }
        struct turn *all = c->world_rank == 0 ? rl_calloc((size_t)c->world_size, sizeof *all) : NULL;
        if (!rc && rl__gather(c, &t, all, (int)sizeof t))
            rc = RL_EIO;
        if (!rc && c->world_rank == 0) {
            for (int g = 0; g < n; g++) {
                memcpy(gbs[g], all[g].gbs, sizeof gbs[g]);
                memcpy(wrong[g], all[g].wrong, sizeof wrong[g]);
            }
            fill_local(out, n, (double)bytes, gbs, wrong);
            rl__note(c, "copies: peer-to-peer between ranks' GPUs is not measured under MPI; "
                        "run one process per node (no mpirun) for the peer matrix");
        }
        free(all);
    } else {
        for (int g = 0; g < n && !rc; g++)
            rc = local_copies(c, &gs[g], host, bytes, flag, gbs[g], wrong[g]);
        if (!rc)
            fill_local(out, n, (double)bytes, gbs, wrong);
        if (!rc && n > 1 && !(rc = enable_peers(c, gs, n)))
            rc = p2p(c, gs, n, bytes, flag);
        if (!rc && n == 1)
            rl__note(c, "copies: peer-to-peer needs 2 GPUs in this process; 1 here");
    }
    for (int g = 0; g < nmine; g++)
        gpu_close(&gs[g]);
    if (host)
        cudaFreeHost(host);
    if (flag)
        cudaFreeHost((void *)flag);
    return rc;
}
