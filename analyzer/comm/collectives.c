/* collectives.c - NCCL collectives timed and checked as nccl-tests does them (src/common.cu, doc/PERFORMANCE.md).
 *
 * For each collective and each size, out-of-place then in-place: `warmup`
 * launches, then CUDA events around `iters` back-to-back launches on every
 * rank's stream; time = elapsed / iters per rank, averaged over the ranks
 * (nccl-tests' default `-a 1`; the slowest rank's is kept too). Then, as
 * nccl-tests' BenchTime does after timing, the inputs are written afresh,
 * the output poisoned with NaN, one more launch made and its output
 * compared element by element on the GPU with what it must be (inputs
 * are small integers, kernels.h, so sums are exact): wrong elements are
 * counted over every rank. In-place all-to-all and send/recv overwrite
 * their own input as they go, so nccl-tests does not check them, nor do we.
 *
 * Sizes are nccl-tests' (its *GetCollByteCount): the whole message;
 * all-gather and reduce-scatter move n parts of count elements, all-to-all
 * n parts rounded down to 16 bytes. A size that rounds to nothing, or to
 * the one before it, is skipped.
 */
#define _GNU_SOURCE
#include "analyzer/comm/harness.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const coll_label[RL_COLL_COUNT] = {
    "all-reduce", "all-gather", "reduce-scatter", "broadcast", "all-to-all", "send/recv"};

int rl__collectives_setup(struct rl__ctx *c)
{
    const struct rl_comm_request *q = c->req;
    c->buf_bytes = ((size_t)q->max_bytes + 255) / 256 * 256;
    for (int i = 0; i < c->nlocal; i++) {
        struct rl__rank *r = &c->r[i];
        RL_CUDA(c, cudaSetDevice(r->device));
        RL_CUDA(c, cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
        RL_CUDA(c, cudaEventCreate(&r->t0));
        RL_CUDA(c, cudaEventCreate(&r->t1));
        RL_CUDA(c, cudaMalloc((void **)&r->send, c->buf_bytes));
        RL_CUDA(c, cudaMalloc((void **)&r->recv, c->buf_bytes));
        RL_CUDA(c, cudaMalloc((void **)&r->wrong, sizeof *r->wrong));
    }
    rl__tick();
    /* The id: made by NCCL rank 0, sent to the others by MPI (one process:
     * it already has it). Communicators non-blocking, so that a dead peer
     * shows in ncclCommGetAsyncError instead of hanging a call. */
    ncclUniqueId id;
    if (c->world_rank == 0)
        RL_NCCL(c, ncclGetUniqueId(&id));
    if (rl__bcast_id(c, &id, sizeof id))
        return RL_EIO;
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;
    RL_NCCL(c, ncclGroupStart());
    for (int i = 0; i < c->nlocal; i++) {
        RL_CUDA(c, cudaSetDevice(c->r[i].device));
        RL_NCCL(c, ncclCommInitRankConfig(&c->r[i].comm, c->nranks, id, c->r[i].rank, &cfg));
    }
    c->comms_up = true;
    RL_NCCL(c, ncclGroupEnd());
    int rc = rl__wait(c, true);
    if (!rc)
        rl__tick();
    return rc;
}

void rl__collectives_teardown(struct rl__ctx *c, bool abort)
{
    if (c->comms_up) {
        for (int i = 0; i < c->nlocal; i++) {
            if (!c->r[i].comm)
                continue;
            if (abort) {
                ncclCommAbort(c->r[i].comm);
            } else {
                ncclCommFinalize(c->r[i].comm);
            }
        }
        if (!abort) {
            if (rl__wait(c, true) == 0)
                for (int i = 0; i < c->nlocal; i++)
                    ncclCommDestroy(c->r[i].comm);
            else
                for (int i = 0; i < c->nlocal; i++)
                    ncclCommAbort(c->r[i].comm);
        }
        c->comms_up = false;
    }
    for (int i = 0; i < c->nlocal; i++) {
        struct rl__rank *r = &c->r[i];
        cudaSetDevice(r->device);
        cudaFree(r->send);
        cudaFree(r->recv);
        cudaFree(r->wrong);
        if (r->stream)
            cudaStreamDestroy(r->stream);
        if (r->t0)
            cudaEventDestroy(r->t0);
        if (r->t1)
            cudaEventDestroy(r->t1);
        r->send = r->recv = NULL;
        r->wrong = NULL;
        r->stream = NULL;
        r->t0 = r->t1 = NULL;
    }
}

/* Elements per call (nccl-tests' paramcount) for a message of `bytes`. */
static long long param_count(int coll, double bytes, int n)
{
    long long elems = (long long)(bytes / sizeof(float));
    switch (coll) {
    case RL_COLL_ALLGATHER:
    case RL_COLL_REDUCESCATTER: return elems / n;
    case RL_COLL_ALLTOALL: return (elems / n) & ~3LL; /* 16-byte parts */
    default: return elems;
    }
}

/* The whole message nccl-tests reports for that count. */
static double message_bytes(int coll, long long per, int n)
{
    bool parts = coll == RL_COLL_ALLGATHER || coll == RL_COLL_REDUCESCATTER ||
                 coll == RL_COLL_ALLTOALL;
    return (double)per * sizeof(float) * (parts ? n : 1);
}

struct place {
    float *in, *out;
    long long in_n, out_n;
};

static struct place where(const struct rl__ctx *c, const struct rl__rank *r, int coll,
                          long long per, bool in_place)
{
    int n = c->nranks;
    struct place p = {in_place ? r->recv : r->send, r->recv, per, per};
    switch (coll) {
    case RL_COLL_ALLGATHER:
        if (in_place)
            p.in = r->recv + (long long)r->rank * per;
        p.out_n = per * n;
        break;
    case RL_COLL_REDUCESCATTER:
        p.in_n = per * n;
        if (in_place)
            p.out = r->recv + (long long)r->rank * per;
        break;
    case RL_COLL_ALLTOALL:
        p.in_n = p.out_n = per * n;
        break;
    default: break;
    }
    return p;
}

static ncclResult_t launch_rank(const struct rl__ctx *c, const struct rl__rank *r, int coll,
                                long long per, bool in_place)
{
    struct place p = where(c, r, coll, per, in_place);
    int n = c->nranks;
    size_t cnt = (size_t)per;
    switch (coll) {
    case RL_COLL_ALLREDUCE:
        return ncclAllReduce(p.in, p.out, cnt, ncclFloat, ncclSum, r->comm, r->stream);
    case RL_COLL_ALLGATHER:
        return ncclAllGather(p.in, p.out, cnt, ncclFloat, r->comm, r->stream);
    case RL_COLL_REDUCESCATTER:
        return ncclReduceScatter(p.in, p.out, cnt, ncclFloat, ncclSum, r->comm, r->stream);
    case RL_COLL_BROADCAST:
        return ncclBroadcast(p.in, p.out, cnt, ncclFloat, 0, r->comm, r->stream);
    case RL_COLL_ALLTOALL: {
        /* nccl-tests' alltoall: a send and a receive per peer, in one group. */
        ncclResult_t e = ncclGroupStart();
        for (int peer = 0; peer < n && (e == ncclSuccess || e == ncclInProgress); peer++) {
            e = ncclSend(p.in + (long long)peer * per, cnt, ncclFloat, peer, r->comm, r->stream);
            if (e == ncclSuccess || e == ncclInProgress)
                e = ncclRecv(p.out + (long long)peer * per, cnt, ncclFloat, peer, r->comm,
                             r->stream);
        }
        ncclResult_t end = ncclGroupEnd();
        return e == ncclSuccess || e == ncclInProgress ? end : e;
    }
    default: {
        /* A ring: rank r sends to r + 1 and receives from r - 1. */
        ncclResult_t e = ncclGroupStart();
        if (e == ncclSuccess)
            e = ncclSend(p.in, cnt, ncclFloat, (r->rank + 1) % n, r->comm, r->stream);
        if (e == ncclSuccess || e == ncclInProgress)
            e = ncclRecv(p.out, cnt, ncclFloat, (r->rank - 1 + n) % n, r->comm, r->stream);
        ncclResult_t end = ncclGroupEnd();
        return e == ncclSuccess || e == ncclInProgress ? end : e;
    }
    }
}

/* One launch on every local rank, as one NCCL group. */
static int launch(struct rl__ctx *c, int coll, long long per, bool in_place)
{
    RL_NCCL(c, ncclGroupStart());
    for (int i = 0; i < c->nlocal; i++) {
        RL_CUDA(c, cudaSetDevice(c->r[i].device));
        RL_NCCL(c, launch_rank(c, &c->r[i], coll, per, in_place));
    }
    ncclResult_t e = ncclGroupEnd();
    if (e == ncclInProgress)
        return rl__wait_comms_ready(c);
    RL_NCCL(c, e);
    return RL_OK;
}

/* Fresh inputs (and, for the check, a poisoned output) on every rank. */
static int prepare(struct rl__ctx *c, int coll, long long per, bool in_place, bool poison)
{
    for (int i = 0; i < c->nlocal; i++) {
        struct rl__rank *r = &c->r[i];
        struct place p = where(c, r, coll, per, in_place);
        RL_CUDA(c, cudaSetDevice(r->device));
        if (poison) {
            RL_CUDA(c, rl__comm_poison(r->recv, (long long)(c->buf_bytes / sizeof(float)),
                                       r->stream));
            RL_CUDA(c, cudaMemsetAsync(r->wrong, 0, sizeof *r->wrong, r->stream));
        }
        RL_CUDA(c, rl__comm_fill(p.in, p.in_n, r->rank, r->stream));
    }
    return rl__wait(c, false);
}

/* nccl-tests' -n / -w, or ours: 20 and 5, halved for each doubling above
 * 64 MiB, at least 5 and 1, so that 1 GiB costs what 128 MiB does. */
static void iterations(const struct rl_comm_request *q, double bytes, int *iters, int *warmup)
{
    *iters = q->iters >= 0 ? q->iters : RL_COMM_DEFAULT_ITERS;
    *warmup = q->warmup >= 0 ? q->warmup : RL_COMM_DEFAULT_WARMUP;
    for (double b = RL_COMM_FEWER_ABOVE_BYTES; bytes > b; b *= 2) {
        if (q->iters < 0 && *iters > 5)
            *iters = *iters / 2 < 5 ? 5 : *iters / 2;
        if (q->warmup < 0 && *warmup > 1)
            *warmup /= 2;
    }
}

static int time_one(struct rl__ctx *c, int coll, long long per, bool in_place,
                    struct rl_comm_raw_result *res)
{
    int iters, warmup;
    iterations(c->req, res->bytes, &iters, &warmup);
    res->iters = iters;
    int rc = prepare(c, coll, per, in_place, false);
    for (int k = 0; k < warmup && !rc; k++)
        rc = launch(c, coll, per, in_place);
    if (!rc)
        rc = rl__wait(c, true);
    if (rc)
        return rc;
    for (int i = 0; i < c->nlocal; i++) {
        RL_CUDA(c, cudaSetDevice(c->r[i].device));
        RL_CUDA(c, cudaEventRecord(c->r[i].t0, c->r[i].stream));
    }
    for (int k = 0; k < iters && !rc; k++)
        rc = launch(c, coll, per, in_place);
    for (int i = 0; i < c->nlocal && !rc; i++) {
        RL_CUDA(c, cudaSetDevice(c->r[i].device));
        RL_CUDA(c, cudaEventRecord(c->r[i].t1, c->r[i].stream));
    }
    if (!rc)
        rc = rl__wait(c, true);
    if (rc)
        return rc;
    double t[2] = {0, 0}; /* sum and max over ranks, us per launch */
    for (int i = 0; i < c->nlocal; i++) {
        float ms = 0;
        RL_CUDA(c, cudaEventElapsedTime(&ms, c->r[i].t0, c->r[i].t1));
        double us = iters > 0 ? ms * 1e3 / iters : NAN;
        t[0] += us;
        t[1] = fmax(t[1], us);
    }
    if (rl__sum_d(c, &t[0], 1) || rl__max_d(c, &t[1], 1))
        return RL_EIO;
    res->time_us = t[0] / c->nranks;
    res->time_max_us = t[1];
    /* The check. */
    long long wrong = -1;
    if (!in_place || (coll != RL_COLL_ALLTOALL && coll != RL_COLL_SENDRECV)) {
        if ((rc = prepare(c, coll, per, in_place, true)) || (rc = launch(c, coll, per, in_place)) ||
            (rc = rl__wait(c, true)))
            return rc;
        wrong = 0;
        for (int i = 0; i < c->nlocal; i++) {
            struct rl__rank *r = &c->r[i];
            struct place p = where(c, r, coll, per, in_place);
            RL_CUDA(c, cudaSetDevice(r->device));
            RL_CUDA(c, rl__comm_check(coll, p.out, p.out_n, per, r->rank, c->nranks, r->wrong,
                                      r->stream));
        }
        if ((rc = rl__wait(c, false)))
            return rc;
        for (int i = 0; i < c->nlocal; i++) {
            unsigned long long w = 0;
            RL_CUDA(c, cudaMemcpy(&w, c->r[i].wrong, sizeof w, cudaMemcpyDeviceToHost));
            wrong += (long long)w;
        }
        if (rl__sum_ll(c, &wrong, 1))
            return RL_EIO;
    }
    res->wrong = wrong;
    rl__tick();
    return RL_OK;
}

int rl__collectives_run(struct rl__ctx *c)
{
    const struct rl_comm_request *q = c->req;
    struct rl_comm_raw *out = c->out;
    for (int coll = 0; coll < RL_COLL_COUNT; coll++) {
        if (!(q->collectives & (1u << coll)))
            continue;
        struct rl_comm_raw_coll *rc = &out->colls[out->n_colls++];
        memset(rc, 0, sizeof *rc);
        rc->collective = coll;
        if (coll == RL_COLL_SENDRECV && c->nranks < 2) {
            snprintf(rc->note, sizeof rc->note,
                     "send/recv needs 2 ranks; skipped on 1 (a ring of one sends to itself)");
            continue;
        }
        rc->run = true;
        if (c->nranks == 1 && coll != RL_COLL_BROADCAST)
            snprintf(rc->note, sizeof rc->note,
                     "%s on 1 rank moves no data between GPUs: bus bandwidth factor 0, busbw 0 "
                     "(algbw is a local copy)", coll_label[coll]);
        double last = -1;
        for (double b = q->min_bytes; b <= q->max_bytes && rc->n_results < 2 * RL_COMM_MAX_SIZES;
             b *= 2) {
            long long per = param_count(coll, b, c->nranks);
            double bytes = message_bytes(coll, per, c->nranks);
            if (per <= 0 || bytes == last)
                continue;
            last = bytes;
            for (int ip = 0; ip < 2; ip++) {
                struct rl_comm_raw_result *res = &rc->results[rc->n_results++];
                memset(res, 0, sizeof *res);
                res->bytes = bytes;
                res->count = per;
                res->in_place = ip == 1;
                int err = time_one(c, coll, per, ip == 1, res);
                if (err)
                    return err;
            }
        }
    }
    return RL_OK;
}
