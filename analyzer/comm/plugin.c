/* plugin.c - libroofline_comm.so's entry: ranks and launchers, MPI's part, the watchdog, then the collectives and copies.
 *
 * Under mpirun or srun (and built with MPI) every rank is one process on
 * one GPU, picked by its rank inside its node (MPI_COMM_TYPE_SHARED); NCCL
 * rank = MPI rank, the NCCL id goes out with MPI_Bcast, results come back
 * to rank 0 with MPI reductions and MPI_Gather. Without a launcher one
 * process drives every GPU it sees (or --gpus N of them), one NCCL rank
 * each, in one NCCL group.
 *
 * Failing without hanging: the ranks agree, with one MPI_Allreduce of a
 * status, that every one of them has its GPU before any NCCL call, so a
 * rank that failed never leaves the others in MPI_Bcast; communicators are
 * non-blocking and every wait polls ncclCommGetAsyncError, so a dead peer
 * ends in ncclCommAbort; and a watchdog thread ends the process (MPI_Abort
 * under MPI) when no unit of work has completed for --timeout seconds.
 * A rank that the launcher stops (SIGTERM, as mpirun does to the others
 * when one rank dies) says so in one line.
 */
#define _GNU_SOURCE
#include "analyzer/comm/harness.h"
#include "analyzer/util/alloc.h"

#include "analyzer/comm/collective.h"
#include "analyzer/profiler/rank.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef ROOFLINE_HAVE_MPI
#include <mpi.h>
#endif

#ifndef ROOFLINE_COMM_BUILD
#define ROOFLINE_COMM_BUILD "?"
#endif

/* ---- errors ---------------------------------------------------------- */

static char who_prefix[32];

const char *rl__who(const struct rl__ctx *c)
{
    (void)c;
    return who_prefix;
}

int rl__fail(struct rl__ctx *c, int err, const char *fmt, ...)
{
    char msg[RL_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rl_fail(c->errmsg, err, "%s%s", who_prefix, msg);
}

int rl__cuda_fail(struct rl__ctx *c, cudaError_t e, const char *expr, const char *file, int line)
{
    const char *base = strrchr(file, '/');
    return rl__fail(c, e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? RL_ENODEV
                                                                                  : RL_EIO,
                    "%s (%s:%d: %s)", cudaGetErrorString(e), base ? base + 1 : file, line, expr);
}

int rl__nccl_fail(struct rl__ctx *c, ncclResult_t e, const char *expr, const char *file, int line)
{
    const char *base = strrchr(file, '/');
    const char *last = c->nlocal > 0 && c->r[0].comm ? ncclGetLastError(c->r[0].comm) : "";
    return rl__fail(c, RL_EIO, "NCCL: %s%s%s (%s:%d: %s)", ncclGetErrorString(e),
                    last && *last ? ": " : "", last ? last : "", base ? base + 1 : file, line,
                    expr);
}

void rl__note(struct rl__ctx *c, const char *fmt, ...)
{
    struct rl_comm_raw *out = c->out;
    if (out->n_notes >= RL_COMM_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->notes[out->n_notes++], RL_COMM_NOTE_SIZE, fmt, ap);
    va_end(ap);
}

/* ---- the watchdog ---------------------------------------------------- */

static long long last_tick_ms;
static int watchdog_timeout_s;
static volatile int watchdog_stop;
#ifdef ROOFLINE_HAVE_MPI
static volatile int mpi_live;      /* MPI_Init done, MPI_Finalize not yet */
static int mpi_abort_ok;           /* MPI_THREAD_MULTIPLE: MPI_Abort from the watchdog */
#endif
static int watchdog_rank;
static pthread_t dog;
static bool dog_up;
static bool finalize_ok;           /* every rank will reach finish(): MPI may end cleanly */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rl__tick(void)
{
    __atomic_store_n(&last_tick_ms, now_ms(), __ATOMIC_RELAXED);
}

static void *watchdog(void *arg)
{
    (void)arg;
    while (!watchdog_stop) {
        usleep(100 * 1000);
        long long idle = now_ms() - __atomic_load_n(&last_tick_ms, __ATOMIC_RELAXED);
        if (idle < watchdog_timeout_s * 1000LL)
            continue;
        fprintf(stderr, "roofline: error: rank %d: no progress for %d s; aborting (--timeout)\n",
                watchdog_rank, watchdog_timeout_s);
        fflush(stderr);
#ifdef ROOFLINE_HAVE_MPI
        if (mpi_live && mpi_abort_ok)
            MPI_Abort(MPI_COMM_WORLD, 1);
#endif
        _exit(1);
    }
    return NULL;
}

#ifdef ROOFLINE_HAVE_MPI
static char term_line[128];

static void on_term(int sig)
{
    (void)sig;
    ssize_t n = write(STDERR_FILENO, term_line, strlen(term_line));
    (void)n;
    _exit(1);
}
#endif

/* ---- launchers ------------------------------------------------------- */

struct launch {
    const char *name;          /* mpirun, srun, torchrun, NULL */
    int rank, size, local_rank; /* from the environment; -1 unknown */
};

/* The launcher, from the one list of its variables (analyzer/profiler/
 * rank.h, which `roofline trace` reads too): Open MPI's, PMIx's and
 * MPICH's are mpirun's, unless Slurm started the step (srun --mpi=pmix). */
static struct launch detect_launcher(void)
{
    struct rl_rank_env e;
    rl_rank_env_read(&e);
    struct launch l = {NULL, e.rank, e.world_size, e.local_rank};
    if (!e.present)
        return l;
    if (strcmp(e.launcher, "torchrun") == 0)
        l.name = "torchrun";
    else if (strcmp(e.launcher, "srun") == 0 || getenv("SLURM_STEP_ID"))
        l.name = "srun";
    else
        l.name = "mpirun";
    return l;
}

/* ---- across processes ------------------------------------------------ */

#ifdef ROOFLINE_HAVE_MPI
static int mpi_check(struct rl__ctx *c, int e, const char *what)
{
    if (e == MPI_SUCCESS)
        return RL_OK;
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(e, s, &n);
    return rl__fail(c, RL_EIO, "MPI: %s: %s", what, s);
}
#endif

int rl__sum_ll(struct rl__ctx *c, long long *v, int n)
{
#ifdef ROOFLINE_HAVE_MPI
    if (c->mpi)
        return mpi_check(c, MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG_LONG, MPI_SUM,
                                          MPI_COMM_WORLD), "MPI_Allreduce");
#endif
    (void)c, (void)v, (void)n;
    return RL_OK;
}

int rl__sum_d(struct rl__ctx *c, double *v, int n)
{
#ifdef ROOFLINE_HAVE_MPI
    if (c->mpi)
        return mpi_check(c, MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM,
                                          MPI_COMM_WORLD), "MPI_Allreduce");
#endif
    (void)c, (void)v, (void)n;
    return RL_OK;
}

int rl__max_d(struct rl__ctx *c, double *v, int n)
{
#ifdef ROOFLINE_HAVE_MPI
    if (c->mpi)
        return mpi_check(c, MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX,
                                          MPI_COMM_WORLD), "MPI_Allreduce");
#endif
    (void)c, (void)v, (void)n;
    return RL_OK;
}

int rl__barrier(struct rl__ctx *c)
{
#ifdef ROOFLINE_HAVE_MPI
    if (c->mpi)
        return mpi_check(c, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
    (void)c;
    return RL_OK;
}

int rl__gather(struct rl__ctx *c, const void *mine, void *all, int bytes)
{
#ifdef ROOFLINE_HAVE_MPI
    if (c->mpi)
        return mpi_check(c, MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0,
                                       MPI_COMM_WORLD), "MPI_Gather");
#endif
    (void)c;
    memcpy(all, mine, (size_t)bytes);
    return RL_OK;
}

int rl__bcast_id(struct rl__ctx *c, void *id, int bytes)
{
#ifdef ROOFLINE_HAVE_MPI
    if (c->mpi)
        return mpi_check(c, MPI_Bcast(id, bytes, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
#endif
    (void)c, (void)id, (void)bytes;
    return RL_OK;
}

/* ---- waiting --------------------------------------------------------- */

static int comm_errors(struct rl__ctx *c, bool *busy)
{
    for (int i = 0; i < c->nlocal; i++) {
        ncclResult_t st = ncclSuccess;
        ncclResult_t e = ncclCommGetAsyncError(c->r[i].comm, &st);
        if (e != ncclSuccess)
            st = e;
        if (st == ncclInProgress) {
            *busy = true;
        } else if (st != ncclSuccess) {
            const char *last = ncclGetLastError(c->r[i].comm);
            return rl__fail(c, RL_EIO, "NCCL on GPU %d: %s%s%s (a peer died or failed?)",
                            c->r[i].device, ncclGetErrorString(st), last && *last ? ": " : "",
                            last ? last : "");
        }
    }
    return RL_OK;
}

int rl__wait_comms_ready(struct rl__ctx *c)
{
    for (;;) {
        bool busy = false;
        int rc = comm_errors(c, &busy);
        if (rc || !busy)
            return rc;
        usleep(20);
    }
}

int rl__wait(struct rl__ctx *c, bool comms)
{
    for (;;) {
        bool busy = false;
        for (int i = 0; i < c->nlocal; i++) {
            if (!c->r[i].stream)
                continue;
            cudaError_t e = cudaStreamQuery(c->r[i].stream);
            if (e == cudaErrorNotReady)
                busy = true;
            else if (e != cudaSuccess)
                return rl__cuda_fail(c, e, "cudaStreamQuery", __FILE__, __LINE__);
        }
        if (comms && c->comms_up) {
            int rc = comm_errors(c, &busy);
            if (rc)
                return rc;
        }
        if (!busy)
            return RL_OK;
        usleep(20);
    }
}

/* ---- the GPUs -------------------------------------------------------- */

static int open_gpus(struct rl__ctx *c, int local_rank, int local_size)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return rl__fail(c, RL_ENODEV, "no usable CUDA GPU: %s", cudaGetErrorString(e));
    if (count == 0)
        return rl__fail(c, RL_ENODEV, "no CUDA GPU found");
    if (c->mpi) {
        if (c->req->gpus > 1)
            return rl__fail(c, RL_EINVAL, "under MPI each rank drives one GPU: drop --gpus %d",
                            c->req->gpus);
        if (local_size > count)
            return rl__fail(c, RL_EINVAL, "%d ranks on a node with %d GPUs: NCCL takes one "
                            "rank per GPU", local_size, count);
        c->nlocal = 1;
        c->r[0].device = local_rank % count;
        c->r[0].rank = c->world_rank;
        c->nranks = c->world_size;
    } else {
        int n = c->req->gpus > 0 ? c->req->gpus : count;
        if (n > count)
            return rl__fail(c, RL_EINVAL, "--gpus %d: this machine has %d", n, count);
        if (n > RL_COMM_MAX_GPUS)
            n = RL_COMM_MAX_GPUS;
        c->nlocal = c->nranks = n;
        for (int i = 0; i < n; i++)
            c->r[i].device = c->r[i].rank = i;
    }
    for (int i = 0; i < c->nlocal; i++) {
        RL_CUDA(c, cudaSetDevice(c->r[i].device));
        RL_CUDA(c, cudaFree(NULL)); /* the context, now: a broken driver shows here */
    }
    return RL_OK;
}

static void describe(struct rl__ctx *c, struct rl_comm_raw_device *d, int i)
{
    struct cudaDeviceProp p;
    memset(d, 0, sizeof *d);
    d->rank = c->r[i].rank;
    d->device = c->r[i].device;
    gethostname(d->host, sizeof d->host - 1);
    if (cudaGetDeviceProperties(&p, c->r[i].device) == cudaSuccess)
        snprintf(d->name, sizeof d->name, "%.95s", p.name);
    cudaDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, c->r[i].device);
}

/* Ranks, nodes (distinct hosts), GPUs per node (the most on one). */
static void count_nodes(struct rl_comm_raw *out)
{
    int nodes = 0, most = 0;
    for (int i = 0; i < out->n_devices; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(out->devices[i].host, out->devices[j].host) == 0;
        if (seen)
            continue;
        nodes++;
        int here = 0;
        for (int j = 0; j < out->n_devices; j++)
            here += strcmp(out->devices[i].host, out->devices[j].host) == 0;
        most = here > most ? here : most;
    }
    out->nodes = nodes;
    out->gpus_per_node = most;
}

/* ---- the entry ------------------------------------------------------- */

/* The test hook (plugin.h): "die:R" or "hang:R". */
static void fault_hook(int rank)
{
    const char *f = getenv(RL_COMM_FAULT_ENV);
    if (!f)
        return;
    int r = -1;
    if (sscanf(f, "die:%d", &r) == 1 && r == rank)
        _exit(3);
    if (sscanf(f, "hang:%d", &r) == 1 && r == rank)
        for (;;)
            pause();
}

static int run(struct rl__ctx *c)
{
    const struct rl_comm_request *q = c->req;
    struct rl_comm_raw *out = c->out;
    int rc = RL_OK;
    if (q->collectives) {
        rc = rl__collectives_setup(c);
        if (!rc)
            rc = rl__collectives_run(c);
        rl__collectives_teardown(c, rc != 0);
    }
    if (!rc && q->copies) {
        rc = rl__copies_run(c);
        for (int i = 0; i < out->n_devices && i < RL_COMM_MAX_GPUS; i++)
            snprintf(out->copy_devices[i], sizeof out->copy_devices[i], "%s",
                     out->devices[i].name);
        out->copy_gpus = out->n_devices < RL_COMM_MAX_GPUS ? out->n_devices : RL_COMM_MAX_GPUS;
    }
    return rc;
}

static int measure(const struct rl_comm_request *q, struct rl_comm_raw *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    struct rl__ctx *c = rl_calloc(1, sizeof *c);
    if (!c)
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    c->req = q;
    c->out = out;
    c->errmsg = errmsg;
    out->iters = q->iters >= 0 ? q->iters : RL_COMM_DEFAULT_ITERS;
    out->warmup = q->warmup >= 0 ? q->warmup : RL_COMM_DEFAULT_WARMUP;
    out->fewer_above_bytes = q->iters >= 0 && q->warmup >= 0 ? 0 : RL_COMM_FEWER_ABOVE_BYTES;
    struct launch l = detect_launcher();
    snprintf(out->launcher, sizeof out->launcher, "%s", l.name ? l.name : "");
    who_prefix[0] = '\0';
    watchdog_rank = l.rank > 0 ? l.rank : 0;
    rl__tick();
    if (q->timeout_s > 0 && !dog_up) {
        watchdog_timeout_s = q->timeout_s;
        watchdog_stop = 0;
        dog_up = pthread_create(&dog, NULL, watchdog, NULL) == 0;
    }
    int local_rank = 0, local_size = 1, rc = RL_OK;
    bool use_mpi = l.name && strcmp(l.name, "torchrun") != 0;
#ifndef ROOFLINE_HAVE_MPI
    if (use_mpi && l.size > 1)
        rc = rl_fail(errmsg, RL_EUNSUPPORTED, "rank %d of %d under %s, but this roofline was "
                     "built without MPI (install libopenmpi-dev and rebuild)", l.rank, l.size,
                     l.name);
    use_mpi = false;
#else
    if (use_mpi) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
            rc = rl_fail(errmsg, RL_EIO, "rank %d: MPI_Init failed", l.rank);
        else {
            mpi_live = 1;
            mpi_abort_ok = provided == MPI_THREAD_MULTIPLE;
            c->mpi = true;
            MPI_Comm_rank(MPI_COMM_WORLD, &c->world_rank);
            MPI_Comm_size(MPI_COMM_WORLD, &c->world_size);
            watchdog_rank = c->world_rank;
            snprintf(who_prefix, sizeof who_prefix, "rank %d: ", c->world_rank);
            snprintf(term_line, sizeof term_line, "roofline: error: rank %d: stopped by the "
                     "launcher (another rank failed)\n", c->world_rank);
            signal(SIGTERM, on_term);
            MPI_Comm node;
            if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->world_rank,
                                    MPI_INFO_NULL, &node) == MPI_SUCCESS) {
                MPI_Comm_rank(node, &local_rank);
                MPI_Comm_size(node, &local_size);
                MPI_Comm_free(&node);
            } else if (l.local_rank >= 0) {
                local_rank = l.local_rank; /* the launcher's word; the node's size unknown */
            }
            char v[MPI_MAX_LIBRARY_VERSION_STRING];
            int n = 0;
            MPI_Get_library_version(v, &n);
            v[strcspn(v, ",\n")] = '\0';
            snprintf(out->mpi, sizeof out->mpi, "%.127s", v);
        }
    }
#endif
    if (!c->mpi && l.name && l.size > 1 && !rc)
        rc = rl_fail(errmsg, RL_EUNSUPPORTED, "rank %d of %d under %s, which starts no MPI: "
                     "launch `roofline comm --measure` with mpirun or srun", l.rank, l.size,
                     l.name);
    if (!rc) {
        c->world_size = c->mpi ? c->world_size : 1;
        fault_hook(c->world_rank);
        rc = open_gpus(c, local_rank, local_size);
        rl__tick();
    }
#ifdef ROOFLINE_HAVE_MPI
    /* Every rank has its GPU, or none goes on: before any NCCL call. */
    if (c->mpi) {
        int first_bad = rc ? c->world_rank : c->world_size;
        if (MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
            MPI_SUCCESS && !rc)
            rc = rl__fail(c, RL_EIO, "MPI_Allreduce of the start-up status failed");
        else if (first_bad < c->world_size && !rc)
            rc = rl__fail(c, RL_EIO, "stopping: rank %d could not start (its own line says why)",
                          first_bad);
        /* Agreed: every rank stops here, so MPI may end cleanly (finish()). */
        finalize_ok = rc != 0;
    }
#endif
    if (!rc) {
        struct rl_comm_raw_device mine[RL_COMM_MAX_GPUS];
        for (int i = 0; i < c->nlocal; i++)
            describe(c, &mine[i], i);
        if (c->mpi) {
            if (c->world_size > RL_COMM_MAX_RANKS)
                rc = rl__fail(c, RL_EINVAL, "%d ranks: at most %d", c->world_size,
                              RL_COMM_MAX_RANKS);
            else
                rc = rl__gather(c, &mine[0], out->devices, (int)sizeof mine[0]);
            out->n_devices = c->world_size;
        } else {
            memcpy(out->devices, mine, sizeof mine[0] * (size_t)c->nlocal);
            out->n_devices = c->nlocal;
        }
        out->rank = c->world_rank;
        out->ranks = c->nranks;
        out->root = c->world_rank == 0;
        count_nodes(out);
        ncclGetVersion(&out->nccl_version);
        cudaRuntimeGetVersion(&out->cuda_runtime);
        cudaDriverGetVersion(&out->cuda_driver);
    }
    if (!rc)
        rc = run(c);
    /* A rank that failed on its own leaves MPI as it is (finish() does not
     * end it): its exit makes the launcher end the others, which may be
     * waiting for it. */
    if (!rc)
        finalize_ok = true;
    rl__tick();
    free(c);
    return rc;
}

/* After the CLI has said what it has to say: MPI_Finalize (when every rank
 * got here: it waits for the others, so that no rank's exit ends a rank
 * still printing), then the watchdog is stopped. */
static void finish(void)
{
#ifdef ROOFLINE_HAVE_MPI
    if (mpi_live && finalize_ok) {
        MPI_Finalize();
        mpi_live = 0;
        signal(SIGTERM, SIG_DFL);
    }
#endif
    if (dog_up) {
        watchdog_stop = 1;
        pthread_join(dog, NULL);
        dog_up = false;
    }
}

static const struct rl_comm_api api = {
    .abi = RL_COMM_ABI,
    .measure = measure,
    .finish = finish,
    .build = ROOFLINE_COMM_BUILD,
};

__attribute__((visibility("default"))) const struct rl_comm_api *RL_COMM_ENTRY(void)
{
    return &api;
}
