/* check_comm_copies.c - tests of the comm plugin's copy matrix (analyzer/comm/copies.c: every cell, its median of samples, the check, peer access) on host-memory fakes of CUDA (tests/comm/fake) whose copies run at set rates: no GPU needed. */
#include "test_util.h"

#include "analyzer/comm/harness.h"
#include "analyzer/comm/kernels.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fakes --------------------------------------------------------- */

/* Every allocation with its device (-1: pinned host memory). */
static struct { char *p; size_t bytes; int dev; } allocs[64];
static int n_allocs, cur_dev;
static char fake_error[256];

static void misuse(const char *fmt, ...)
{
    if (fake_error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fake_error, sizeof fake_error, fmt, ap);
    va_end(ap);
}

/* The device of [p, p + bytes), or -2 (and a misuse) outside every block. */
static int where(const void *p, size_t bytes)
{
    const char *c = p;
    for (int i = 0; i < n_allocs; i++)
        if (allocs[i].p && c >= allocs[i].p && c + bytes <= allocs[i].p + allocs[i].bytes)
            return allocs[i].dev;
    misuse("%zu bytes at %p: outside every allocation", bytes, p);
    return -2;
}

struct rl_fake_stream { int device; double clock_ms; };
struct rl_fake_event { double t_ms; int device; };

static int peer_ok[4][4], peer_on[4][4], enable_error, peer_queries;
static int copies, corrupt, samples_cycle, elapsed_calls;
/* lazy: large copies only timed (nothing written or read: their memory is
 * never touched, and every word checks); no_time: every copy takes 0 ms */
static int lazy, no_time;
static char notes[4][256];
static int n_notes;

static void *block(size_t bytes, int dev)
{
    ck_assert_int_lt(n_allocs, 64);
    void *p = calloc(1, bytes ? bytes : 1);
    allocs[n_allocs].p = p;
    allocs[n_allocs].dev = dev;
    allocs[n_allocs++].bytes = bytes;
    return p;
}

static void unblock(void *p)
{
    for (int i = 0; i < n_allocs; i++)
        if (allocs[i].p == p)
            allocs[i].p = NULL;
    free(p);
}

cudaError_t cudaSetDevice(int device) { cur_dev = device; return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    *s = calloc(1, sizeof **s);
    (*s)->device = cur_dev;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = calloc(1, sizeof **e); return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    e->t_ms = s->clock_ms;
    e->device = s->device;
    return cudaSuccess;
}
/* Sample k of every cell takes x {1, 4, 0.5, 2}[k % samples_cycle] its
 * time, so that the median is the middle of spread samples. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    static const double mult[4] = {1, 4, 0.5, 2};
    if (a->device != b->device)
        misuse("events of two devices");
    *ms = no_time ? 0.0f : (float)((b->t_ms - a->t_ms) * mult[elapsed_calls++ % samples_cycle]);
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t bytes) { *p = block(bytes, cur_dev); return cudaSuccess; }
cudaError_t cudaMallocHost(void **p, size_t bytes) { *p = block(bytes, -1); return cudaSuccess; }
cudaError_t cudaFree(void *p) { unblock(p); return cudaSuccess; }
cudaError_t cudaFreeHost(void *p) { unblock(p); return cudaSuccess; }
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s)
{
    (void)s;
    if (where(p, bytes) >= -1)
        memset(p, v, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k)
{
    (void)k;
    memcpy(dst, src, bytes);
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int device)
{
    *v = a == cudaDevAttrMultiProcessorCount ? 100 + device : 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *ok, int device, int peer)
{
    peer_queries++;
    *ok = peer_ok[device][peer];
    return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags)
{
    (void)flags;
    if (enable_error)
        return cudaErrorInvalidDevice;
    if (!peer_ok[cur_dev][peer])
        misuse("peer access %d -> %d enabled where it cannot be", cur_dev, peer);
    if (peer_on[cur_dev][peer])
        return cudaErrorPeerAccessAlreadyEnabled;
    peer_on[cur_dev][peer] = 1;
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char *cudaGetErrorString(cudaError_t e) { (void)e; return "fake error"; }

/* A copy on stream s: done at once, its time bytes / rate with rate (GB/s)
 * 10 x (the stream's device + 1), x 2 through the SMs, x 1/2 to or from
 * the host, x 1/4 between two GPUs. */
static void copy(void *dst, const void *src, size_t bytes, cudaStream_t s, bool sm)
{
    int dd = where(dst, bytes), sd = where(src, bytes);
    if (dd < -1 || sd < -1)
        return;
    if (!lazy)
        memmove(dst, src, bytes);
    if (corrupt)
        ((unsigned *)dst)[0] ^= 1;
    double gbs = 10.0 * (s->device + 1) * (sm ? 2 : 1);
    if (dd == -1 || sd == -1)
        gbs /= 2;
    else if (dd != sd)
        gbs /= 4;
    s->clock_ms += bytes / (gbs * 1e9) * 1e3;
    copies++;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k,
                            cudaStream_t s)
{
    if (k == cudaMemcpyDeviceToHost) { /* the wrong-word counter read back */
        memcpy(dst, src, bytes);
        return cudaSuccess;
    }
    copy(dst, src, bytes, s, false);
    return cudaSuccess;
}

/* The kernels (kernels.h), on the host. */
static unsigned pattern(unsigned seed, long long i) { return seed * 2654435761u + (unsigned)i; }

cudaError_t rl__copy_pattern(unsigned *p, long long words, unsigned seed, cudaStream_t s)
{
    (void)s;
    if (where(p, (size_t)words * 4) >= -1 && !lazy)
        for (long long i = 0; i < words; i++)
            p[i] = pattern(seed, i);
    return cudaSuccess;
}
cudaError_t rl__copy_verify(const unsigned *p, long long words, unsigned seed,
                            unsigned long long *wrong, cudaStream_t s)
{
    (void)s;
    if (where(p, (size_t)words * 4) >= -1 && !lazy)
        for (long long i = 0; i < words; i++)
            *wrong += p[i] != pattern(seed, i);
    return cudaSuccess;
}
cudaError_t rl__copy_sm(void *dst, const void *src, long long bytes, int sms, cudaStream_t s)
{
    if (sms != 100 + s->device)
        misuse("a copy kernel on %d SMs on device %d", sms, s->device);
    copy(dst, src, (size_t)bytes, s, true);
    return cudaSuccess;
}
cudaError_t rl__copy_gate(const volatile int *flag, cudaStream_t s)
{
    (void)s;
    if (*flag != 0)
        misuse("the gate opened before its copies were queued");
    return cudaSuccess;
}

/* The plugin's own parts that copies.c calls (plugin.c): one process. */
void rl__tick(void) {}
void rl__note(struct rl__ctx *c, const char *fmt, ...)
{
    (void)c;
    va_list ap;
    va_start(ap, fmt);
    if (n_notes < 4)
        vsnprintf(notes[n_notes++], sizeof notes[0], fmt, ap);
    va_end(ap);
}
int rl__cuda_fail(struct rl__ctx *c, cudaError_t e, const char *expr, const char *file, int line)
{
    snprintf(c->errmsg, RL_ERRMSG_SIZE, "%s:%d: %s: %d", file, line, expr, (int)e);
    return RL_EIO;
}
int rl__fail(struct rl__ctx *c, int err, const char *fmt, ...)
{
    (void)c, (void)fmt;
    return err;
}
/* Under a pretend MPI: the other ranks' failures add to the sum, and
 * every rank gathers what this one measured, its figures x (rank + 1). */
static long long others_failed;
static int sums, gathers;
int rl__sum_ll(struct rl__ctx *c, long long *v, int n)
{
    (void)c, (void)n;
    *v += others_failed;
    sums++;
    return RL_OK;
}
int rl__gather(struct rl__ctx *c, const void *mine, void *all, int bytes)
{
    gathers++;
    if (!all)
        return RL_OK; /* not the root */
    const double *d = mine;
    for (int r = 0; r < c->world_size; r++) {
        memcpy((char *)all + (size_t)r * (size_t)bytes, mine, (size_t)bytes);
        double *o = (double *)((char *)all + (size_t)r * (size_t)bytes);
        for (int k = 0; k < 6; k++)
            o[k] = d[k] * (r + 1);
    }
    return RL_OK;
}

/* ---- the tests --------------------------------------------------------- */

static struct rl_comm_raw raw;
static struct rl__ctx ctx;
static struct rl_comm_request req;
static char errbuf[RL_ERRMSG_SIZE];

static int run(int n, double bytes, int samples, int cycle)
{
    memset(&raw, 0, sizeof raw);
    memset(&ctx, 0, sizeof ctx);
    memset(allocs, 0, sizeof allocs);
    memset(peer_on, 0, sizeof peer_on);
    n_allocs = n_notes = copies = elapsed_calls = peer_queries = 0;
    fake_error[0] = 0;
    samples_cycle = cycle;
    req = (struct rl_comm_request){.copies = true, .copy_bytes = bytes, .copy_samples = samples};
    ctx.req = &req;
    ctx.out = &raw;
    ctx.errmsg = errbuf;
    ctx.nlocal = ctx.nranks = n;
    for (int i = 0; i < n; i++)
        ctx.r[i].device = ctx.r[i].rank = i;
    int rc = rl__copies_run(&ctx);
    ck_assert_msg(!fake_error[0], "%s", fake_error);
    for (int i = 0; i < n_allocs; i++)
        ck_assert_msg(allocs[i].p == NULL, "block %d of %zu bytes not freed", i, allocs[i].bytes);
    return rc;
}

static const struct rl_comm_raw_copy *entry(const char *kind, const char *engine,
                                            const char *dir)
{
    for (int i = 0; i < raw.n_copies; i++)
        if (!strcmp(raw.copies[i].kind, kind) && !strcmp(raw.copies[i].engine, engine) &&
            !strcmp(raw.copies[i].direction, dir))
            return &raw.copies[i];
    ck_abort_msg("no %s %s %s", kind, engine, dir);
    return NULL;
}

static void cell(const struct rl_comm_raw_copy *e, int r, int c, double want)
{
    ck_assert_msg(fabs(e->gbs[r][c] - want) <= 1e-5 * want, "%s %s %s [%d][%d]: %g, not %g",
                  e->kind, e->engine, e->direction, r, c, e->gbs[r][c], want);
}

/* Two GPUs that reach each other, 4100 bytes asked (4096 copied: a
 * multiple of 16), 3 samples (x 1, 4 and 1/2 the time: the median is the
 * rate itself). Rates (GB/s): GPU g's stream 10 (g + 1), SMs x 2, host
 * x 1/2, peer x 1/4:
 *   h2d 1 x 2: ce 5 10, sm 10 20;   d2h 2 x 1: the same;
 *   d2d 2 x 2 diagonal: ce 10 20, sm 20 40, the rest null;
 *   p2p 2 x 2, timed on the source's stream: ce [0][1] 2.5 [1][0] 5,
 *   sm 5 10, bidirectional the same (the measured direction's), diagonal
 *   null. Copies: 16 a sample (at least 1 GiB, at most 16), 3 samples:
 *   12 local cells x 48, 4 p2p uni x 48, 4 bi x 96: 1344. */
START_TEST(two_gpus_every_cell)
{
    memset(peer_ok, 0, sizeof peer_ok);
    peer_ok[0][1] = peer_ok[1][0] = 1;
    ck_assert_int_eq(run(2, 4100, 3, 3), 0);
    ck_assert_int_eq(raw.n_copies, 10);
    ck_assert_int_eq(copies, 12 * 48 + 4 * 48 + 4 * 96);
    for (int i = 0; i < raw.n_copies; i++) {
        ck_assert_double_eq(raw.copies[i].bytes, 4096);
        ck_assert_int_eq(raw.copies[i].wrong, 0);
        ck_assert_str_eq(raw.copies[i].note, "");
    }
    const struct rl_comm_raw_copy *e = entry("h2d", "ce", "uni");
    ck_assert_int_eq(e->rows, 1);
    ck_assert_int_eq(e->cols, 2);
    cell(e, 0, 0, 5);
    cell(e, 0, 1, 10);
    ck_assert(isnan(e->gbs[1][0]));
    e = entry("h2d", "sm", "uni");
    cell(e, 0, 0, 10);
    cell(e, 0, 1, 20);
    e = entry("d2h", "ce", "uni");
    ck_assert_int_eq(e->rows, 2);
    ck_assert_int_eq(e->cols, 1);
    cell(e, 0, 0, 5);
    cell(e, 1, 0, 10);
    ck_assert(isnan(e->gbs[0][1]));
    cell(entry("d2h", "sm", "uni"), 1, 0, 20);
    e = entry("d2d", "ce", "uni");
    ck_assert_int_eq(e->rows, 2);
    ck_assert_int_eq(e->cols, 2);
    cell(e, 0, 0, 10);
    cell(e, 1, 1, 20);
    ck_assert(isnan(e->gbs[0][1]));
    cell(entry("d2d", "sm", "uni"), 1, 1, 40);
    for (int k = 0; k < 4; k++) {
        e = entry("p2p", k % 2 ? "sm" : "ce", k < 2 ? "uni" : "bi");
        ck_assert_int_eq(e->rows, 2);
        cell(e, 0, 1, k % 2 ? 5 : 2.5);
        cell(e, 1, 0, k % 2 ? 10 : 5);
        ck_assert(isnan(e->gbs[0][0]));
        ck_assert(isnan(e->gbs[1][1]));
    }
    /* peer access on, both ways; asked once per ordered pair to enable
     * it, twice (both ways) to measure it: 2 + 2 x 2 */
    ck_assert(peer_on[0][1] && peer_on[1][0]);
    ck_assert_int_eq(peer_queries, 6);
    ck_assert_int_eq(n_notes, 0);
}
END_TEST

/* Every copy wrong in one word: each checked destination counts one; a
 * matrix's count sums its cells (and both legs of a bidirectional one):
 * h2d / d2h / d2d 2 each (one a GPU), p2p uni 2 (two cells), bi 4. */
START_TEST(wrong_words_are_counted)
{
    memset(peer_ok, 0, sizeof peer_ok);
    peer_ok[0][1] = peer_ok[1][0] = 1;
    corrupt = 1;
    int rc = run(2, 64, 1, 1);
    corrupt = 0;
    ck_assert_int_eq(rc, 0);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(raw.copies[i].wrong, 2);
    ck_assert_int_eq(entry("p2p", "ce", "uni")->wrong, 2);
    ck_assert_int_eq(entry("p2p", "sm", "bi")->wrong, 4);
}
END_TEST

/* The median of an even count of samples is the mean of the middle two:
 * 4 samples at x 1, 4, 1/2, 2 the time: rates R, R/4, 2R, R/2, sorted
 * R/4 R/2 R 2R: (R/2 + R) / 2 = 0.75 R. Two: R and R/4: 0.625 R. None
 * asked: 3. */
START_TEST(median_of_the_samples)
{
    memset(peer_ok, 0, sizeof peer_ok);
    ck_assert_int_eq(run(1, 1024, 4, 4), 0);
    cell(entry("d2d", "ce", "uni"), 0, 0, 7.5);
    cell(entry("h2d", "sm", "uni"), 0, 0, 7.5);
    ck_assert_int_eq(run(1, 1024, 2, 2), 0);
    cell(entry("d2d", "ce", "uni"), 0, 0, 6.25);
    ck_assert_int_eq(run(1, 1024, 0, 3), 0);
    cell(entry("d2d", "ce", "uni"), 0, 0, 10);
    ck_assert_int_eq(elapsed_calls, 6 * 3);
}
END_TEST

/* Copies of a sample: at least 1 GiB, at most 16 (the other tests' small
 * sizes). 128 MiB (a divisor of 1 GiB): 8 a sample, exactly 1 GiB, not 9;
 * 100 MiB: 11 (1100 MiB: 10 would be 1000). One GPU, one sample, its 6
 * local cells. The rate does not depend on the count (h2d ce of GPU 0: 5).
 * A copy timed at 0 ms has no rate (NaN, not infinite). */
START_TEST(copies_per_sample)
{
    memset(peer_ok, 0, sizeof peer_ok);
    lazy = 1;
    static const double sizes[] = {128 * 1048576.0, 100 * 1048576.0};
    static const int reps[] = {8, 11};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(run(1, sizes[i], 1, 1), 0);
        ck_assert_msg(copies == 6 * reps[i], "%g bytes: %d copies, not 6 x %d", sizes[i], copies,
                      reps[i]);
        cell(entry("h2d", "ce", "uni"), 0, 0, 5);
    }
    lazy = 0;
    no_time = 1;
    ck_assert_int_eq(run(1, 64, 1, 1), 0);
    no_time = 0;
    ck_assert(isnan(entry("h2d", "ce", "uni")->gbs[0][0]));
    ck_assert(isnan(entry("d2d", "sm", "uni")->gbs[0][0]));
}
END_TEST

/* One GPU: no peer matrix, said; three GPUs of which 0 and 1 cannot reach
 * each other, and 1 cannot reach 2 (2 can reach 1): those cells null, the reason in every p2p note, the others
 * measured; peer access already on is no error, another failure is. */
START_TEST(peers_and_their_limits)
{
    memset(peer_ok, 0, sizeof peer_ok);
    ck_assert_int_eq(run(1, 64, 1, 1), 0);
    ck_assert_int_eq(raw.n_copies, 6);
    ck_assert_int_eq(n_notes, 1);
    ck_assert_str_eq(notes[0], "copies: peer-to-peer needs 2 GPUs in this process; 1 here");

    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            peer_ok[a][b] = a != b && a + b != 1;
    peer_ok[1][2] = 0; /* 2 reaches 1, not 1 reaches 2: neither way measured */
    ck_assert_int_eq(run(3, 64, 1, 1), 0);
    ck_assert_int_eq(raw.n_copies, 10);
    ck_assert_int_eq(n_notes, 0);
    for (int k = 0; k < 4; k++) {
        const struct rl_comm_raw_copy *e = entry("p2p", k % 2 ? "sm" : "ce", k < 2 ? "uni" : "bi");
        ck_assert_str_eq(e->note,
                         "null cells: no peer access between GPUs 0->1, 1->0, 1->2, 2->1 "
                         "(cudaDeviceCanAccessPeer 0)");
        ck_assert(isnan(e->gbs[0][1]));
        ck_assert(isnan(e->gbs[1][0]));
        /* 0 -> 2 on GPU 0's stream: 10 / 4 (x 2 through the SMs) */
        cell(e, 0, 2, k % 2 ? 5 : 2.5);
        cell(e, 2, 0, k % 2 ? 15 : 7.5); /* GPU 2's: 30 / 4 */
        ck_assert(isnan(e->gbs[1][2]));
        ck_assert(isnan(e->gbs[2][1]));
    }
    ck_assert(!peer_on[0][1] && peer_on[0][2] && peer_on[2][1]);
    ck_assert_int_eq(peer_queries, 3 * 3 * 2); /* 6 ordered pairs, 3 queries each */

    /* already enabled: fine (the fake's second enable of a run says so) */
    peer_ok[0][1] = peer_ok[1][0] = 1;
    memset(peer_on, 0, sizeof peer_on);
    peer_on[0][1] = 1;
    req.copy_bytes = 64;
    ctx.nlocal = 2;
    raw.n_copies = 0;
    n_allocs = 0;
    ck_assert_int_eq(rl__copies_run(&ctx), 0);
    for (int i = 0; i < n_allocs; i++)
        ck_assert_ptr_null(allocs[i].p);
    /* a failure to enable: RL_EIO, every block freed */
    enable_error = 1;
    int rc = run(2, 64, 1, 1);
    enable_error = 0;
    ck_assert_int_eq(rc, RL_EIO);
    ck_assert_ptr_nonnull(strstr(errbuf, ": 101")); /* the fake's cudaErrorInvalidDevice */
}
END_TEST

/* Under MPI each rank measures its own GPU's host and local copies in
 * turn (a sum of the failures after each turn: 2 ranks, 2 sums) and rank 0
 * gathers them: rank 0's figures are its own (GPU 0: h2d ce 5, d2d sm
 * 20), rank 1's (the fake gather: x 2) fill column / row / diagonal 1; no
 * peer matrix, said. Rank 1 sends and keeps nothing. Another rank's
 * failure stops everyone with RL_EIO. */
START_TEST(under_mpi_rank_by_rank)
{
    memset(&raw, 0, sizeof raw);
    memset(&ctx, 0, sizeof ctx);
    memset(allocs, 0, sizeof allocs);
    n_allocs = n_notes = copies = elapsed_calls = sums = gathers = 0;
    fake_error[0] = 0;
    samples_cycle = 1;
    req = (struct rl_comm_request){.copies = true, .copy_bytes = 64, .copy_samples = 1};
    ctx.req = &req;
    ctx.out = &raw;
    ctx.errmsg = errbuf;
    ctx.mpi = true;
    ctx.world_size = 2;
    ctx.nlocal = 1;
    ctx.r[0].device = 0;
    ck_assert_int_eq(rl__copies_run(&ctx), 0);
    ck_assert_msg(!fake_error[0], "%s", fake_error);
    ck_assert_int_eq(sums, 2);
    ck_assert_int_eq(gathers, 1);
    ck_assert_int_eq(raw.n_copies, 6);
    cell(entry("h2d", "ce", "uni"), 0, 0, 5);
    cell(entry("h2d", "ce", "uni"), 0, 1, 10);
    cell(entry("d2h", "sm", "uni"), 1, 0, 20);
    cell(entry("d2d", "sm", "uni"), 0, 0, 20);
    cell(entry("d2d", "sm", "uni"), 1, 1, 40);
    ck_assert(isnan(entry("d2d", "sm", "uni")->gbs[0][1]));
    ck_assert_int_eq(copies, 6 * 16); /* its own turn only */
    ck_assert_int_eq(n_notes, 1);
    ck_assert_ptr_nonnull(strstr(notes[0], "peer-to-peer between ranks' GPUs is not measured"));
    for (int i = 0; i < n_allocs; i++)
        ck_assert_ptr_null(allocs[i].p);

    /* rank 1 of 2: measures in its turn, gathers, keeps nothing */
    memset(&raw, 0, sizeof raw);
    n_notes = copies = sums = gathers = 0;
    ctx.world_rank = 1;
    ck_assert_int_eq(rl__copies_run(&ctx), 0);
    ck_assert_int_eq(copies, 6 * 16);
    ck_assert_int_eq(gathers, 1);
    ck_assert_int_eq(raw.n_copies, 0);
    ck_assert_int_eq(n_notes, 0);

    /* a failure elsewhere: stop after the first turn, no gather */
    memset(&raw, 0, sizeof raw);
    sums = gathers = 0;
    ctx.world_rank = 0;
    others_failed = 1;
    ck_assert_int_eq(rl__copies_run(&ctx), RL_EIO);
    others_failed = 0;
    ck_assert_int_eq(sums, 1);
    ck_assert_int_eq(gathers, 0);
    ck_assert_int_eq(raw.n_copies, 0);
}
END_TEST

/* More ranks than a matrix holds (18 of 16): the first 16 measured, in 16
 * turns (16 sums), said on rank 0; a rank past them (17) opens no GPU and
 * no host memory and copies nothing, but takes part in every turn and
 * the gather. */
START_TEST(under_mpi_past_the_matrix)
{
    memset(&raw, 0, sizeof raw);
    memset(&ctx, 0, sizeof ctx);
    memset(allocs, 0, sizeof allocs);
    n_allocs = n_notes = copies = elapsed_calls = sums = gathers = 0;
    fake_error[0] = 0;
    samples_cycle = 1;
    req = (struct rl_comm_request){.copies = true, .copy_bytes = 64, .copy_samples = 1};
    ctx.req = &req;
    ctx.out = &raw;
    ctx.errmsg = errbuf;
    ctx.mpi = true;
    ctx.world_size = 18;
    ctx.world_rank = 17;
    ctx.nlocal = 1;
    ck_assert_int_eq(rl__copies_run(&ctx), 0);
    ck_assert_msg(!fake_error[0], "%s", fake_error);
    ck_assert_int_eq(n_allocs, 0);
    ck_assert_int_eq(copies, 0);
    ck_assert_int_eq(sums, RL_COMM_MAX_GPUS);
    ck_assert_int_eq(gathers, 1);
    ck_assert_int_eq(raw.n_copies, 0);

    memset(&raw, 0, sizeof raw);
    n_notes = copies = sums = gathers = 0;
    ctx.world_rank = 0;
    ck_assert_int_eq(rl__copies_run(&ctx), 0);
    ck_assert_int_eq(copies, 6 * 16); /* its own turn */
    ck_assert_int_eq(sums, RL_COMM_MAX_GPUS);
    ck_assert_int_eq(raw.n_copies, 6);
    ck_assert_int_eq(entry("h2d", "ce", "uni")->cols, RL_COMM_MAX_GPUS);
    ck_assert_str_eq(notes[0], "copies: the first 16 of 18 GPUs measured");
    for (int i = 0; i < n_allocs; i++)
        ck_assert_ptr_null(allocs[i].p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_copies");
    TCase *tc = tcase_create("copies");
    tcase_add_test(tc, two_gpus_every_cell);
    tcase_add_test(tc, wrong_words_are_counted);
    tcase_add_test(tc, median_of_the_samples);
    tcase_add_test(tc, copies_per_sample);
    tcase_add_test(tc, peers_and_their_limits);
    tcase_add_test(tc, under_mpi_rank_by_rank);
    tcase_add_test(tc, under_mpi_past_the_matrix);
    suite_add_tcase(s, tc);
    return rl_test_run(s);
}
