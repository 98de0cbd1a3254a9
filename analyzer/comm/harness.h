/* harness.h - inside the comm plugin: the ranks this process drives, MPI's part, the watchdog, the CUDA/NCCL checks. */
#ifndef RL_COMM_HARNESS_H
#define RL_COMM_HARNESS_H

#include "analyzer/comm/plugin.h"
#include "analyzer/util/error.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdbool.h>
#include <stddef.h>

/* One GPU this process drives, as one NCCL rank. */
struct rl__rank {
    int device;                /* CUDA index */
    int rank;                  /* NCCL rank */
    int sms;
    cudaStream_t stream;
    ncclComm_t comm;
    float *send, *recv;        /* each buf_bytes */
    unsigned long long *wrong; /* device counter of the checks */
    cudaEvent_t t0, t1;
};

struct rl__ctx {
    const struct rl_comm_request *req;
    struct rl_comm_raw *out;
    char *errmsg;
    bool mpi;                  /* under MPI: one rank per process */
    int world_rank, world_size;
    int nlocal;                /* ranks (GPUs) of this process */
    int nranks;                /* NCCL ranks in all */
    struct rl__rank r[RL_COMM_MAX_GPUS];
    size_t buf_bytes;
    bool comms_up;
};

/* The checking macros record file:line, the expression and the library's
 * own message in ctx->errmsg and return an RL_E* code (nccl-tests'
 * CUDACHECK/NCCLCHECK, returning instead of exiting). */
int rl__cuda_fail(struct rl__ctx *c, cudaError_t e, const char *expr, const char *file, int line);
int rl__nccl_fail(struct rl__ctx *c, ncclResult_t e, const char *expr, const char *file, int line);
#define RL_CUDA(c, expr)                                                              \
    do {                                                                              \
        cudaError_t rl__e = (expr);                                                   \
        if (rl__e != cudaSuccess)                                                     \
            return rl__cuda_fail((c), rl__e, #expr, __FILE__, __LINE__);              \
    } while (0)
#define RL_NCCL(c, expr)                                                              \
    do {                                                                              \
        ncclResult_t rl__e = (expr);                                                  \
        if (rl__e != ncclSuccess && rl__e != ncclInProgress)                          \
            return rl__nccl_fail((c), rl__e, #expr, __FILE__, __LINE__);              \
    } while (0)

/* "rank R: " under MPI, "" otherwise (errmsg prefixes). */
const char *rl__who(const struct rl__ctx *c);
int rl__fail(struct rl__ctx *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rl__note(struct rl__ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Progress, for the watchdog: called when a unit of work completed (never
 * while waiting on a peer). */
void rl__tick(void);
/* Wait for every local stream (and, with comms, every communicator) to
 * finish: polls, so that a peer's death (ncclCommGetAsyncError) or the
 * watchdog ends it instead of a hang. */
int rl__wait(struct rl__ctx *c, bool comms);
/* After a non-blocking ncclGroupEnd() said ncclInProgress: poll every
 * communicator until it is ready again. */
int rl__wait_comms_ready(struct rl__ctx *c);

/* Across processes (no-ops without MPI): sums, maxima, a barrier. */
int rl__sum_ll(struct rl__ctx *c, long long *v, int n);
int rl__sum_d(struct rl__ctx *c, double *v, int n);
int rl__max_d(struct rl__ctx *c, double *v, int n);
int rl__barrier(struct rl__ctx *c);
int rl__gather(struct rl__ctx *c, const void *mine, void *all, int bytes);
/* NCCL's id from world rank 0 to every rank (MPI_Bcast). */
int rl__bcast_id(struct rl__ctx *c, void *id, int bytes);

/* The parts. */
int rl__collectives_setup(struct rl__ctx *c);
int rl__collectives_run(struct rl__ctx *c);
void rl__collectives_teardown(struct rl__ctx *c, bool abort);
int rl__copies_run(struct rl__ctx *c);

#endif
