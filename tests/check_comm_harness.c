/* check_comm_harness.c - tests of the comm plugin's collectives (analyzer/comm/collectives.c: nccl-tests' sizes, counts, launches, timing and check) on host-memory fakes of CUDA and NCCL (tests/comm/fake), every rank in this process: no GPU needed. */
#include "test_util.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/harness.h"
#include "analyzer/comm/kernels.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fakes --------------------------------------------------------- */

/* Every allocation, so that a call reaching outside one fails the test. */
static struct { char *p; size_t bytes; } allocs[64];
static int n_allocs, cur_dev, set_devices;
static char fake_error[256]; /* the first misuse seen */

static void misuse(const char *fmt, ...)
{
    if (fake_error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fake_error, sizeof fake_error, fmt, ap);
    va_end(ap);
}

static bool inside(const void *p, long long n_floats)
{
    const char *c = p;
    for (int i = 0; i < n_allocs; i++)
        if (allocs[i].p && c >= allocs[i].p &&
            n_floats >= 0 && c + n_floats * sizeof(float) <= allocs[i].p + allocs[i].bytes)
            return true;
    misuse("%lld floats at %p: outside every allocation", n_floats, p);
    return false;
}

struct rl_fake_stream { int device; double clock_ms; bool busy; };
struct rl_fake_event { double t_ms; };
struct rl_fake_comm { int rank, nranks; };

cudaError_t cudaSetDevice(int device) { cur_dev = device; set_devices++; return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    *s = calloc(1, sizeof **s);
    (*s)->device = cur_dev;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = calloc(1, sizeof **e); return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { e->t_ms = s->clock_ms; return cudaSuccess; }
/* A GPU's two events around nothing still differ by a little: extra_ms. */
static double extra_ms;
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(b->t_ms - a->t_ms + extra_ms);
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t bytes)
{
    ck_assert_int_lt(n_allocs, 64);
    *p = calloc(1, bytes ? bytes : 1);
    allocs[n_allocs].p = *p;
    allocs[n_allocs++].bytes = bytes;
    return cudaSuccess;
}
cudaError_t cudaFree(void *p)
{
    for (int i = 0; i < n_allocs; i++)
        if (allocs[i].p == p)
            allocs[i].p = NULL;
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s)
{
    (void)s;
    memset(p, v, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k)
{
    (void)k;
    memcpy(dst, src, bytes);
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) { (void)e; return "fake error"; }

/* Messages above BIG floats move no data on the fakes (and are not
 * filled, poisoned or checked): only their iterations are tested. */
#define BIG 4096

/* NCCL: the calls of a group are queued and run at its outermost end; a
 * launch advances each stream it ran on by (its device + 1) x 10 us. */
enum op_kind { OP_AR, OP_AG, OP_RS, OP_BC, OP_SEND, OP_RECV };
static struct op {
    enum op_kind kind;
    int rank, nranks, peer;
    const float *in;
    float *out;
    long long n;
    cudaStream_t s;
} ops[256];
static int n_ops, depth, launches, corrupt, poisoned;
/* Communicator calls counted; non-blocking answers (ncclInProgress from
 * every call, or from a group's outermost end) when asked; the call
 * (AllReduce, Send, ...) numbered fail_call, counting from 1, fails. */
static int unique_ids, inits, finalizes, destroys, aborts, calls, fail_call;
static bool call_in_progress, end_in_progress, inner_end_fails;

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    unique_ids++;
    memset(id, 0, sizeof *id);
    return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t *c, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *cfg)
{
    (void)id;
    if (cfg->blocking != 0)
        misuse("a blocking communicator");
    inits++;
    *c = calloc(1, sizeof **c);
    (*c)->rank = rank;
    (*c)->nranks = nranks;
    return ncclSuccess;
}
ncclResult_t ncclCommFinalize(ncclComm_t c) { (void)c; finalizes++; return ncclSuccess; }
ncclResult_t ncclCommDestroy(ncclComm_t c) { destroys++; free(c); return ncclSuccess; }
ncclResult_t ncclCommAbort(ncclComm_t c) { aborts++; free(c); return ncclSuccess; }
ncclResult_t ncclGroupStart(void) { depth++; return ncclSuccess; }

static ncclResult_t queue(enum op_kind k, const void *in, void *out, size_t n, int peer,
                          ncclComm_t c, cudaStream_t s)
{
    if (n_ops == 256 || depth == 0) {
        misuse("a call outside a group, or too many");
        return ncclInvalidUsage;
    }
    if (++calls == fail_call)
        return ncclSystemError;
    ops[n_ops++] = (struct op){k, c->rank, c->nranks, peer, in, out, (long long)n, s};
    return call_in_progress ? ncclInProgress : ncclSuccess;
}

/* Each call's output from the group's inputs, all computed before any
 * is written (in place, an output is another rank's input). */
static void run_group(void)
{
    static float res[256][4096];
    for (int i = 0; i < n_ops; i++) {
        struct op *o = &ops[i];
        const int n = o->nranks;
        long long out_n = o->kind == OP_AG ? o->n * n : o->n;
        if (o->kind == OP_SEND || out_n > BIG)
            continue;
        for (long long j = 0; j < out_n; j++) {
            double v = 0;
            for (int k = 0; k < n_ops; k++) {
                const struct op *p = &ops[k];
                if (o->kind == OP_RECV && p->kind == OP_SEND && p->rank == o->peer &&
                    p->peer == o->rank && p->n == o->n && inside(p->in, o->n))
                    v = p->in[j];
                else if (p->kind != o->kind)
                    continue;
                else if (o->kind == OP_AR && inside(p->in, o->n))
                    v += p->in[j];
                else if (o->kind == OP_RS && inside(p->in, o->n * n))
                    v += p->in[o->rank * o->n + j];
                else if (o->kind == OP_AG && p->rank == j / o->n && inside(p->in, o->n))
                    v = p->in[j % o->n];
                else if (o->kind == OP_BC && p->rank == 0 && inside(p->in, o->n))
                    v = p->in[j];
            }
            res[i][j] = (float)v;
        }
        if (o->kind == OP_RECV) {
            bool sent = false;
            for (int k = 0; k < n_ops; k++)
                sent |= ops[k].kind == OP_SEND && ops[k].rank == o->peer && ops[k].peer == o->rank;
            if (!sent)
                misuse("rank %d receives from %d, who sends it nothing", o->rank, o->peer);
        }
    }
    for (int i = 0; i < n_ops; i++) {
        struct op *o = &ops[i];
        long long out_n = o->kind == OP_AG ? o->n * o->nranks : o->n;
        if (o->kind != OP_SEND && out_n <= BIG && inside(o->out, out_n))
            memcpy(o->out, res[i], (size_t)out_n * sizeof(float));
        o->s->busy = true;
    }
    if (corrupt && poisoned && n_ops > 0 && ops[0].n <= BIG) {
        for (int i = 0; i < n_ops; i++)
            if (ops[i].kind != OP_SEND && ops[i].rank == 0) {
                ops[i].out[0] += 1;
                break;
            }
    }
    poisoned = 0;
    for (int i = 0; i < n_ops; i++)
        if (ops[i].s->busy) {
            ops[i].s->busy = false;
            ops[i].s->clock_ms += (ops[i].s->device + 1) * 0.01;
        }
    n_ops = 0;
    launches++;
}

ncclResult_t ncclGroupEnd(void)
{
    if (depth == 0) {
        misuse("a group ended twice");
        return ncclInvalidUsage;
    }
    if (--depth == 0 && n_ops)
        run_group();
    if (depth == 1 && inner_end_fails)
        return ncclSystemError;
    return depth == 0 && end_in_progress ? ncclInProgress : ncclSuccess;
}
ncclResult_t ncclAllReduce(const void *in, void *out, size_t n, ncclDataType_t t, ncclRedOp_t op,
                           ncclComm_t c, cudaStream_t s)
{
    (void)t, (void)op;
    return queue(OP_AR, in, out, n, -1, c, s);
}
/* In place, NCCL's rule: all-gather's input is its rank's part of the
 * output, reduce-scatter's output its rank's part of the input. */
static void in_place_at(const float *part, const float *whole, size_t n, const struct rl_fake_comm *c)
{
    if (part >= whole && part < whole + n * (size_t)c->nranks && part != whole + n * (size_t)c->rank)
        misuse("rank %d: an in-place part at %td, not %zu", c->rank, part - whole,
               n * (size_t)c->rank);
}
ncclResult_t ncclAllGather(const void *in, void *out, size_t n, ncclDataType_t t, ncclComm_t c,
                           cudaStream_t s)
{
    (void)t;
    in_place_at(in, out, n, c);
    return queue(OP_AG, in, out, n, -1, c, s);
}
ncclResult_t ncclReduceScatter(const void *in, void *out, size_t n, ncclDataType_t t,
                               ncclRedOp_t op, ncclComm_t c, cudaStream_t s)
{
    (void)t, (void)op;
    in_place_at(out, in, n, c);
    return queue(OP_RS, in, out, n, -1, c, s);
}
ncclResult_t ncclBroadcast(const void *in, void *out, size_t n, ncclDataType_t t, int root,
                           ncclComm_t c, cudaStream_t s)
{
    (void)t;
    if (root != 0)
        misuse("broadcast from %d", root);
    return queue(OP_BC, in, out, n, -1, c, s);
}
ncclResult_t ncclSend(const void *in, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                      cudaStream_t s)
{
    (void)t;
    return queue(OP_SEND, in, NULL, n, peer, c, s);
}
ncclResult_t ncclRecv(void *out, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                      cudaStream_t s)
{
    (void)t;
    return queue(OP_RECV, NULL, out, n, peer, c, s);
}
const char *ncclGetErrorString(ncclResult_t e) { (void)e; return "fake error"; }

/* The kernels (kernels.h), on the host: inputs f(rank, j) small integers. */
static float f(int rank, long long j) { return (float)((rank + 1) * 100 + j % 31); }

cudaError_t rl__comm_fill(float *p, long long n, int rank, cudaStream_t s)
{
    (void)s;
    if (n <= BIG && inside(p, n))
        for (long long j = 0; j < n; j++)
            p[j] = f(rank, j);
    return cudaSuccess;
}
cudaError_t rl__comm_poison(float *p, long long n, cudaStream_t s)
{
    (void)s;
    if (n <= BIG && inside(p, n))
        for (long long j = 0; j < n; j++)
            p[j] = NAN;
    poisoned = 1;
    return cudaSuccess;
}
cudaError_t rl__comm_check(int layout, const float *out, long long n_out, long long count,
                           int rank, int nranks, unsigned long long *wrong, cudaStream_t s)
{
    (void)s;
    /* the whole output: n parts of count (all-gather, all-to-all), or count */
    if (n_out != count * (layout == RL__LAYOUT_ALLGATHER || layout == RL__LAYOUT_ALLTOALL ? nranks : 1))
        misuse("%lld elements checked of %lld x %d", n_out, count, nranks);
    if (n_out > BIG || !inside(out, n_out))
        return cudaSuccess;
    for (long long j = 0; j < n_out; j++) {
        double want = 0;
        switch (layout) {
        case RL__LAYOUT_ALLREDUCE:
            for (int r = 0; r < nranks; r++)
                want += f(r, j);
            break;
        case RL__LAYOUT_ALLGATHER: want = f((int)(j / count), j % count); break;
        case RL__LAYOUT_REDUCESCATTER:
            for (int r = 0; r < nranks; r++)
                want += f(r, rank * count + j);
            break;
        case RL__LAYOUT_BROADCAST: want = f(0, j); break;
        case RL__LAYOUT_ALLTOALL: want = f((int)(j / count), rank * count + j % count); break;
        default: want = f((rank - 1 + nranks) % nranks, j); break;
        }
        *wrong += !(out[j] == want);
    }
    return cudaSuccess;
}

/* The plugin's own parts that collectives.c calls (plugin.c): one process. */
/* Calls counted; the wait numbered fail_wait (from 1) fails, and the
 * reductions named in fail_reduce ('s' sum_d, 'm' max_d, 'l' sum_ll). */
static int ticks, waits, fail_wait, readies;
static const char *fail_reduce = "";
void rl__tick(void) { ticks++; }
int rl__wait(struct rl__ctx *c, bool comms)
{
    (void)c, (void)comms;
    return ++waits == fail_wait ? RL_EIO : RL_OK;
}
int rl__wait_comms_ready(struct rl__ctx *c) { (void)c; readies++; return RL_OK; }
int rl__sum_ll(struct rl__ctx *c, long long *v, int n)
{
    (void)c, (void)v, (void)n;
    return strchr(fail_reduce, 'l') ? RL_EIO : RL_OK;
}
int rl__sum_d(struct rl__ctx *c, double *v, int n)
{
    (void)c, (void)v, (void)n;
    return strchr(fail_reduce, 's') ? RL_EIO : RL_OK;
}
int rl__max_d(struct rl__ctx *c, double *v, int n)
{
    (void)c, (void)v, (void)n;
    return strchr(fail_reduce, 'm') ? RL_EIO : RL_OK;
}
int rl__bcast_id(struct rl__ctx *c, void *id, int bytes) { (void)c, (void)id, (void)bytes; return RL_OK; }
int rl__cuda_fail(struct rl__ctx *c, cudaError_t e, const char *expr, const char *file, int line)
{
    (void)c, (void)e, (void)expr, (void)file, (void)line;
    return RL_EIO;
}
int rl__nccl_fail(struct rl__ctx *c, ncclResult_t e, const char *expr, const char *file, int line)
{
    snprintf(c->errmsg, RL_ERRMSG_SIZE, "%s:%d: %s: %d", file, line, expr, (int)e);
    return RL_EIO;
}

/* ---- the tests --------------------------------------------------------- */

static struct rl_comm_raw raw;
static struct rl__ctx ctx;
static struct rl_comm_request req;
static char errbuf[RL_ERRMSG_SIZE];

/* n ranks in this process set up, sizes min..max by x2 (the request's
 * collectives): each rank has its stream, events, 3 buffers and its
 * communicator, made once (the id by rank 0). */
static void set_up(int n, double min, double max, int iters, int warmup)
{
    memset(&raw, 0, sizeof raw);
    memset(&ctx, 0, sizeof ctx);
    memset(allocs, 0, sizeof allocs);
    n_allocs = n_ops = depth = 0;
    fake_error[0] = 0;
    launches = ticks = waits = readies = set_devices = calls = 0;
    unique_ids = inits = finalizes = destroys = aborts = 0;
    req = (struct rl_comm_request){.collectives = req.collectives, .min_bytes = min,
                                   .max_bytes = max, .iters = iters, .warmup = warmup};
    ctx.req = &req;
    ctx.out = &raw;
    ctx.errmsg = errbuf;
    ctx.nlocal = ctx.nranks = n;
    for (int i = 0; i < n; i++)
        ctx.r[i].device = ctx.r[i].rank = i;
    int rc = rl__collectives_setup(&ctx);
    ck_assert_msg(rc == 0, "%s", errbuf);
    ck_assert_uint_eq(ctx.buf_bytes, ((size_t)max + 255) / 256 * 256);
    ck_assert_int_eq(n_allocs, 3 * n);
    ck_assert_int_eq(inits, n);
    ck_assert_int_eq(unique_ids, 1);
    ck_assert(ctx.comms_up);
    for (int i = 0; i < n; i++)
        ck_assert(ctx.r[i].stream && ctx.r[i].comm && ctx.r[i].t0 && ctx.r[i].t1);
}

/* Every buffer freed and every handle cleared (teardown). */
static void assert_all_freed(int n)
{
    for (int i = 0; i < n_allocs; i++)
        ck_assert_ptr_null(allocs[i].p);
    for (int i = 0; i < n; i++)
        ck_assert(!ctx.r[i].stream && !ctx.r[i].t0 && !ctx.r[i].t1 && !ctx.r[i].send &&
                  !ctx.r[i].recv && !ctx.r[i].wrong);
    ck_assert(!ctx.comms_up);
}

/* ... run, torn down cleanly (each communicator finalized then destroyed,
 * one device switch a rank to free its buffers). */
static int run(int n, double min, double max, int iters, int warmup)
{
    set_up(n, min, max, iters, warmup);
    int rc = rl__collectives_run(&ctx);
    finalizes = destroys = aborts = set_devices = 0;
    rl__collectives_teardown(&ctx, false);
    ck_assert_int_eq(finalizes, n);
    ck_assert_int_eq(destroys, n);
    ck_assert_int_eq(aborts, 0);
    ck_assert_int_eq(set_devices, n);
    assert_all_freed(n);
    ck_assert_msg(!fake_error[0], "%s", fake_error);
    return rc;
}

static const struct rl_comm_raw_coll *coll(int c)
{
    for (int i = 0; i < raw.n_colls; i++)
        if (raw.colls[i].collective == c)
            return &raw.colls[i];
    ck_abort_msg("no %s", rl_collective_name(c));
    return NULL;
}

/* Three ranks, 8 B to 1 KiB by x2 (8 sizes). nccl-tests' counts
 * (floats): all-reduce, broadcast, send/recv b / 4, the message b;
 * all-gather, reduce-scatter b / 4 / 3 parts, the message 3 x that:
 * 8 B: 0 (skipped), 16: 1 -> 12 B, 32: 2 -> 24, 64: 5 -> 60, 128: 10 -> 120,
 * 256: 21 -> 252, 512: 42 -> 504, 1024: 85 -> 1020; all-to-all the same
 * rounded down to 4 floats: 64: 4 -> 48, 128: 8 -> 96, 256: 20 -> 240,
 * 512: 40 -> 480, 1024: 84 -> 1008 (16 and 32: 0, skipped). Each size out
 * of place then in place. Times: a launch takes (rank + 1) x 10 us on the
 * fakes: 20 us averaged over the ranks, 30 us the slowest. */
START_TEST(sizes_counts_times_on_three_ranks)
{
    req.collectives = (1u << RL_COLL_COUNT) - 1;
    ck_assert_int_eq(run(3, 8, 1024, -1, -1), 0);
    ck_assert_int_eq(raw.n_colls, RL_COLL_COUNT);
    static const double whole[] = {8, 16, 32, 64, 128, 256, 512, 1024};
    static const double parts_b[] = {12, 24, 60, 120, 252, 504, 1020};
    static const long long parts_n[] = {1, 2, 5, 10, 21, 42, 85};
    static const double a2a_b[] = {48, 96, 240, 480, 1008};
    static const long long a2a_n[] = {4, 8, 20, 40, 84};
    for (int c = 0; c < RL_COLL_COUNT; c++) {
        const struct rl_comm_raw_coll *k = coll(c);
        ck_assert(k->run);
        ck_assert_str_eq(k->note, "");
        const bool parts = c == RL_COLL_ALLGATHER || c == RL_COLL_REDUCESCATTER;
        const int sizes = c == RL_COLL_ALLTOALL ? 5 : parts ? 7 : 8;
        ck_assert_int_eq(k->n_results, 2 * sizes);
        for (int i = 0; i < k->n_results; i++) {
            const struct rl_comm_raw_result *r = &k->results[i];
            const int s = i / 2;
            ck_assert(r->in_place == (i % 2 == 1));
            double b = c == RL_COLL_ALLTOALL ? a2a_b[s] : parts ? parts_b[s] : whole[s];
            long long n = c == RL_COLL_ALLTOALL ? a2a_n[s] : parts ? parts_n[s]
                                                                 : (long long)whole[s] / 4;
            ck_assert_msg(r->bytes == b && r->count == n, "%s #%d: %g B, %lld", 
                          rl_collective_name(c), i, r->bytes, r->count);
            ck_assert_int_eq(r->iters, 20);
            ck_assert_double_eq_tol(r->time_us, 20, 1e-3);
            ck_assert_double_eq_tol(r->time_max_us, 30, 1e-3);
            /* every output checked and right, but in-place all-to-all and
             * send/recv (they overwrite their input) */
            const bool unchecked = r->in_place && (c == RL_COLL_ALLTOALL || c == RL_COLL_SENDRECV);
            ck_assert_int_eq(r->wrong, unchecked ? -1 : 0);
        }
    }
    /* launches: per result 5 warm-up, 20 timed and one checked (26), less
     * the check of the 5 + 8 unchecked results:
     * (16 + 14 + 14 + 16 + 10 + 16) x 26 - 13 = 86 x 26 - 13 */
    ck_assert_int_eq(launches, 86 * 26 - 13);
}
END_TEST

/* A wrong element in a checked output is counted: the fake NCCL adds 1 to
 * rank 0's first element after a poisoned launch (the check's). */
START_TEST(wrong_elements_are_counted)
{
    req.collectives = (1u << RL_COLL_COUNT) - 1;
    corrupt = 1;
    int rc = run(2, 64, 64, 2, 0);
    corrupt = 0;
    ck_assert_int_eq(rc, 0);
    for (int c = 0; c < RL_COLL_COUNT; c++) {
        const struct rl_comm_raw_coll *k = coll(c);
        ck_assert_int_eq(k->n_results, 2);
        ck_assert_int_eq(k->results[0].wrong, 1);
        const bool unchecked = c == RL_COLL_ALLTOALL || c == RL_COLL_SENDRECV;
        ck_assert_int_eq(k->results[1].wrong, unchecked ? -1 : 1);
    }
}
END_TEST

/* Iterations given: 3 timed, none to warm up: 2 ranks x 10 and 20 us a
 * launch: 15 on average, 20 the slowest; 3 + 1 launches a result. No
 * timed launch (iters 0): no time (NAN). */
START_TEST(iterations_as_given)
{
    req.collectives = 1u << RL_COLL_ALLREDUCE;
    ck_assert_int_eq(run(2, 1024, 1024, 3, 0), 0);
    const struct rl_comm_raw_coll *k = coll(RL_COLL_ALLREDUCE);
    ck_assert_int_eq(k->n_results, 2);
    ck_assert_int_eq(k->results[0].iters, 3);
    ck_assert_double_eq_tol(k->results[0].time_us, 15, 1e-3);
    ck_assert_double_eq_tol(k->results[1].time_max_us, 20, 1e-3);
    ck_assert_int_eq(launches, 2 * 4);
    ck_assert_int_eq(run(2, 1024, 1024, 1, 4), 0);
    ck_assert_int_eq(launches, 2 * 6);
    ck_assert_int_eq(run(2, 1024, 1024, 0, 0), 0);
    k = coll(RL_COLL_ALLREDUCE);
    ck_assert(isnan(k->results[0].time_us));
    ck_assert_int_eq(k->results[0].wrong, 0);
}
END_TEST

/* One rank: send/recv is skipped (a ring of one), the others run with the
 * note that they move nothing between GPUs, broadcast without one. */
START_TEST(one_rank)
{
    req.collectives = (1u << RL_COLL_COUNT) - 1;
    ck_assert_int_eq(run(1, 256, 256, 1, 0), 0);
    const struct rl_comm_raw_coll *sr = coll(RL_COLL_SENDRECV);
    ck_assert(!sr->run);
    ck_assert_int_eq(sr->n_results, 0);
    ck_assert_ptr_nonnull(strstr(sr->note, "send/recv needs 2 ranks"));
    ck_assert(coll(RL_COLL_ALLREDUCE)->run);
    ck_assert_ptr_nonnull(strstr(coll(RL_COLL_ALLREDUCE)->note, "all-reduce on 1 rank"));
    ck_assert_ptr_nonnull(strstr(coll(RL_COLL_ALLTOALL)->note, "all-to-all on 1 rank"));
    ck_assert_str_eq(coll(RL_COLL_BROADCAST)->note, "");
    ck_assert_int_eq(coll(RL_COLL_BROADCAST)->n_results, 2);
    /* only the collectives asked for */
    req.collectives = (1u << RL_COLL_BROADCAST) | (1u << RL_COLL_ALLGATHER);
    ck_assert_int_eq(run(2, 256, 512, 1, 0), 0);
    ck_assert_int_eq(raw.n_colls, 2);
    ck_assert_int_eq(raw.colls[0].collective, RL_COLL_ALLGATHER);
    ck_assert_int_eq(raw.colls[1].collective, RL_COLL_BROADCAST);
    ck_assert_int_eq(raw.colls[1].n_results, 4);
}
END_TEST

/* Above 64 MiB the default iterations halve with each doubling, at least
 * 5 timed and 1 warm-up: 128 MiB 10 and 2, 256 MiB 5 and 1 (launches a
 * result: warm-ups + timed + the check): 2 x 13 + 2 x 7 = 40. Given
 * iterations stay as given: 3 timed at 256 MiB, the warm-ups still the
 * default's 1. (The fakes move no data at these sizes.) */
START_TEST(fewer_iterations_above_64_mib)
{
    req.collectives = 1u << RL_COLL_ALLREDUCE;
    const double MiB = 1048576;
    ck_assert_int_eq(run(1, 128 * MiB, 256 * MiB, -1, -1), 0);
    const struct rl_comm_raw_coll *k = coll(RL_COLL_ALLREDUCE);
    ck_assert_int_eq(k->n_results, 4);
    ck_assert_int_eq(k->results[0].iters, 10);
    ck_assert_int_eq(k->results[2].iters, 5);
    ck_assert_int_eq(launches, 2 * 13 + 2 * 7);
    ck_assert_int_eq(run(1, 256 * MiB, 256 * MiB, 3, -1), 0);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->results[0].iters, 3);
    ck_assert_int_eq(launches, 2 * (1 + 3 + 1));
    ck_assert_int_eq(run(1, 64 * MiB, 64 * MiB, -1, -1), 0); /* 64 MiB itself: not above */
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->results[0].iters, 20);
    ck_assert_int_eq(launches, 2 * 26);
    /* 8 timed given stay 8 at 128 MiB (more than 5: never halved), the
     * warm-ups' default halved to 2: 2 x (2 + 8 + 1) */
    ck_assert_int_eq(run(1, 128 * MiB, 128 * MiB, 8, -1), 0);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->results[0].iters, 8);
    ck_assert_int_eq(launches, 2 * 11);
    /* 4 warm-ups given stay 4, the timed default halved to 10: 2 x (4 + 10 + 1) */
    ck_assert_int_eq(run(1, 128 * MiB, 128 * MiB, -1, 4), 0);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->results[0].iters, 10);
    ck_assert_int_eq(launches, 2 * 15);
    /* 512 MiB: 5 timed and 1 warm-up still (5 -> 2 -> 1, never 0) */
    ck_assert_int_eq(run(1, 512 * MiB, 512 * MiB, -1, -1), 0);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->results[0].iters, 5);
    ck_assert_int_eq(launches, 2 * (1 + 5 + 1));
}
END_TEST

/* One plain run, counted: 2 ranks, all-reduce of 64 B (16 floats), 2
 * timed launches and 1 warm-up. Each result (out of place, in place):
 * 1 + 2 launches and the check's 1 = 4, each a call per rank (8 calls);
 * waits: the inputs' (prepare), after the warm-up, after the timing, the
 * check's inputs, its launch and its kernels = 6; one tick. Setup: one
 * wait, two ticks (buffers, communicators); teardown one wait. So 8
 * launches, 16 calls, 1 + 2 x 6 + 1 = 14 waits, 2 + 2 = 4 ticks; no
 * non-blocking answer, so no readiness poll. Then the same on 16 ranks (a
 * process's most: every per-rank loop stops at the last one): times
 * (rank + 1) x 10 us, averaged (1 + ... + 16) x 10 / 16 = 85 us, the
 * slowest 160. */
START_TEST(a_plain_run_counted)
{
    req.collectives = 1u << RL_COLL_ALLREDUCE;
    ck_assert_int_eq(run(2, 64, 64, 2, 1), 0);
    ck_assert_int_eq(launches, 8);
    ck_assert_int_eq(calls, 16);
    ck_assert_int_eq(waits, 14);
    ck_assert_int_eq(ticks, 4);
    ck_assert_int_eq(readies, 0);
    const struct rl_comm_raw_coll *k = coll(RL_COLL_ALLREDUCE);
    ck_assert_int_eq(k->n_results, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(k->results[i].wrong, 0);
        ck_assert_double_eq_tol(k->results[i].time_us, 15, 1e-3);
        ck_assert_double_eq_tol(k->results[i].time_max_us, 20, 1e-3);
    }
    ck_assert_int_eq(run(RL_COMM_MAX_GPUS, 64, 64, 1, 0), 0);
    k = coll(RL_COLL_ALLREDUCE);
    ck_assert_int_eq(k->n_results, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(k->results[i].wrong, 0);
        ck_assert_double_eq_tol(k->results[i].time_us, 85, 1e-3);
        ck_assert_double_eq_tol(k->results[i].time_max_us, 160, 1e-3);
    }
}
END_TEST

/* Setup and teardown: the id is made by world rank 0 alone (the others
 * receive it); a failed wait for the communicators is returned, without
 * the tick of their readiness (only the buffers'). Teardown aborting:
 * every communicator aborted, none finalized or destroyed; a clean one
 * whose wait fails (a peer died): finalized, then aborted; a rank without
 * a communicator is skipped; communicators never up: no NCCL call. Each
 * frees every buffer. */
START_TEST(setup_and_teardown)
{
    req.collectives = 1u << RL_COLL_ALLREDUCE;
    set_up(3, 64, 64, 1, 0);
    ck_assert_int_eq(ticks, 2);
    ck_assert_int_eq(waits, 1);
    rl__collectives_teardown(&ctx, true);
    ck_assert_int_eq(aborts, 3);
    ck_assert_int_eq(finalizes, 0);
    ck_assert_int_eq(destroys, 0);
    ck_assert_int_eq(waits, 1);
    assert_all_freed(3);

    set_up(3, 64, 64, 1, 0);
    fail_wait = waits + 1;
    rl__collectives_teardown(&ctx, false);
    fail_wait = 0;
    ck_assert_int_eq(finalizes, 3);
    ck_assert_int_eq(aborts, 3);
    ck_assert_int_eq(destroys, 0);
    assert_all_freed(3);

    set_up(3, 64, 64, 1, 0);
    ncclCommDestroy(ctx.r[1].comm);
    ctx.r[1].comm = NULL;
    rl__collectives_teardown(&ctx, true);
    ck_assert_int_eq(aborts, 2);
    assert_all_freed(3);

    set_up(2, 64, 64, 1, 0);
    for (int i = 0; i < 2; i++)
        ncclCommDestroy(ctx.r[i].comm);
    ctx.comms_up = false;
    destroys = 0;
    rl__collectives_teardown(&ctx, false);
    ck_assert_int_eq(finalizes + destroys + aborts, 0);
    ck_assert_int_eq(waits, 1);
    assert_all_freed(2);

    /* world rank 1: no id made here */
    memset(&ctx, 0, sizeof ctx);
    ctx.req = &req;
    ctx.out = &raw;
    ctx.errmsg = errbuf;
    ctx.nlocal = 1;
    ctx.nranks = 2;
    ctx.world_rank = 1;
    ctx.r[0].rank = 1;
    unique_ids = 0;
    ck_assert_int_eq(rl__collectives_setup(&ctx), 0);
    ck_assert_int_eq(unique_ids, 0);
    rl__collectives_teardown(&ctx, true);

    /* the communicators' wait fails */
    memset(&ctx, 0, sizeof ctx);
    ctx.req = &req;
    ctx.out = &raw;
    ctx.errmsg = errbuf;
    ctx.nlocal = ctx.nranks = 2;
    ctx.r[1].device = ctx.r[1].rank = 1;
    ticks = waits = 0;
    fail_wait = 1;
    ck_assert_int_eq(rl__collectives_setup(&ctx), RL_EIO);
    fail_wait = 0;
    ck_assert_int_eq(ticks, 1);
    rl__collectives_teardown(&ctx, true);
}
END_TEST

/* Non-blocking answers (NCCL's ncclInProgress from every call and from
 * each group's end): the same launches and the same right outputs as the
 * blocking run, each launch followed by one readiness poll. */
START_TEST(non_blocking_answers)
{
    req.collectives = (1u << RL_COLL_COUNT) - 1;
    ck_assert_int_eq(run(3, 64, 128, 1, 0), 0);
    const int blocking = launches;
    ck_assert_int_gt(blocking, 0);
    call_in_progress = end_in_progress = true;
    int rc = run(3, 64, 128, 1, 0);
    call_in_progress = end_in_progress = false;
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(launches, blocking);
    ck_assert_int_eq(readies, blocking);
    for (int c = 0; c < RL_COLL_COUNT; c++) {
        const struct rl_comm_raw_coll *k = coll(c);
        ck_assert_int_eq(k->n_results, 4);
        for (int i = 0; i < k->n_results; i++) {
            const bool unchecked = k->results[i].in_place &&
                                   (c == RL_COLL_ALLTOALL || c == RL_COLL_SENDRECV);
            ck_assert_int_eq(k->results[i].wrong, unchecked ? -1 : 0);
        }
    }
}
END_TEST

/* A failure stops the run where it happens, and is returned (2 ranks,
 * all-reduce of 64 B, 2 timed, 1 warm-up; calls 2 a launch: the warm-up's
 * 1-2, the timed 3-6, the check's 7-8):
 * - call 1 (the warm-up): no launch done; waits: setup's, the inputs'
 *   (2), then teardown's (3); one result begun;
 * - call 3 (the first timed): the warm-up done (1 launch); waits 2 + the
 *   warm-up's = 3, teardown's 4;
 * - call 7 (the check): 3 launches done, the result's error not counted;
 * - a wait after the timing (the 4th): returned, no time;
 * - a sum or a maximum of the times over processes, or the sum of the
 *   wrong elements: RL_EIO. */
START_TEST(failures_stop_the_run)
{
    req.collectives = 1u << RL_COLL_ALLREDUCE;
    fail_call = 1;
    ck_assert_int_eq(run(2, 64, 64, 2, 1), RL_EIO);
    ck_assert_int_eq(launches, 0);
    ck_assert_int_eq(waits, 3);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->n_results, 1);
    ck_assert_ptr_nonnull(strstr(errbuf, "launch_rank"));
    fail_call = 3;
    ck_assert_int_eq(run(2, 64, 64, 2, 1), RL_EIO);
    ck_assert_int_eq(launches, 1);
    ck_assert_int_eq(waits, 4);
    fail_call = 7;
    ck_assert_int_eq(run(2, 64, 64, 2, 1), RL_EIO);
    ck_assert_int_eq(launches, 3);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->n_results, 1);
    ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->results[0].wrong, 0);
    fail_call = 0;
    fail_wait = 4;
    ck_assert_int_eq(run(2, 64, 64, 2, 1), RL_EIO);
    fail_wait = 0;
    ck_assert_int_eq(launches, 3);
    ck_assert_double_eq(coll(RL_COLL_ALLREDUCE)->results[0].time_us, 0);
    static const char *const reductions[] = {"s", "m", "l"};
    for (int i = 0; i < 3; i++) {
        fail_reduce = reductions[i];
        int rc = run(2, 64, 64, 2, 1);
        fail_reduce = "";
        ck_assert_int_eq(rc, RL_EIO);
        ck_assert_int_eq(coll(RL_COLL_ALLREDUCE)->n_results, 1);
    }
}
END_TEST

/* A group of a rank's sends and receives (all-to-all, send/recv) whose
 * end fails returns that failure, whether its calls said done or in
 * progress: RL_EIO from the first launch, no launch done. */
START_TEST(a_failed_group_end_is_returned)
{
    static const int colls[] = {RL_COLL_ALLTOALL, RL_COLL_SENDRECV};
    for (int k = 0; k < 4; k++) {
        req.collectives = 1u << colls[k % 2];
        call_in_progress = k >= 2;
        inner_end_fails = true;
        int rc = run(2, 64, 64, 1, 0);
        inner_end_fails = call_in_progress = false;
        ck_assert_msg(rc == RL_EIO, "%s, calls %s: %d", rl_collective_name(colls[k % 2]),
                      k >= 2 ? "in progress" : "done", rc);
        ck_assert_int_eq(launches, 0);
    }
}
END_TEST

/* No timed launch: no time, even when the GPU's two events differ (by
 * 0.5 ms here: 0.5 ms / 0 launches is no figure). */
START_TEST(no_timed_launch_no_time)
{
    req.collectives = 1u << RL_COLL_ALLREDUCE;
    extra_ms = 0.5;
    int rc = run(2, 1024, 1024, 0, 0);
    extra_ms = 0;
    ck_assert_int_eq(rc, 0);
    ck_assert(isnan(coll(RL_COLL_ALLREDUCE)->results[0].time_us));
    ck_assert(isnan(coll(RL_COLL_ALLREDUCE)->results[1].time_us));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_harness");
    TCase *tc = tcase_create("collectives");
    tcase_add_test(tc, sizes_counts_times_on_three_ranks);
    tcase_add_test(tc, wrong_elements_are_counted);
    tcase_add_test(tc, iterations_as_given);
    tcase_add_test(tc, one_rank);
    tcase_add_test(tc, fewer_iterations_above_64_mib);
    tcase_add_test(tc, a_plain_run_counted);
    tcase_add_test(tc, setup_and_teardown);
    tcase_add_test(tc, non_blocking_answers);
    tcase_add_test(tc, failures_stop_the_run);
    tcase_add_test(tc, no_timed_launch_no_time);
    tcase_add_test(tc, a_failed_group_end_is_returned);
    suite_add_tcase(s, tc);
    return rl_test_run(s);
}
