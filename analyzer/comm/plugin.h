/* plugin.h - the measuring side of `roofline comm --measure` (libroofline_comm.so: NCCL, CUDA, MPI), loaded at run time.
 *
 * NCCL and MPI live in their own plugin, apart from libroofline_cuda.so, so
 * that neither the CLI nor the CUDA plugin links them: `roofline` runs
 * where they are absent and says so in one line. The plugin runs the
 * collectives and copies and returns raw times and check counts; rates
 * (algbw, busbw, % of link) are computed by the CLI in one place
 * (analyzer/comm/results.c). Both sides are compiled from this header and
 * check RL_COMM_ABI.
 */
#ifndef RL_COMM_PLUGIN_H
#define RL_COMM_PLUGIN_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_COMM_ABI 2
/* The entry's name carries the ABI: rl_comm_api_v2. */
#define RL_COMM__STR(x) #x
#define RL_COMM__XSTR(x) RL_COMM__STR(x)
#define RL_COMM__CAT(a, b) a##b
#define RL_COMM__XCAT(a, b) RL_COMM__CAT(a, b)
#define RL_COMM_ENTRY RL_COMM__XCAT(rl_comm_api_v, RL_COMM_ABI)
#define RL_COMM_SYMBOL "rl_comm_api_v" RL_COMM__XSTR(RL_COMM_ABI)
#define RL_COMM_LIB_ENV "ROOFLINE_COMM_LIB"
/* Test hook: "die:R" makes rank R _exit(3) right after MPI_Init (or, in
 * one process, before the GPUs are opened); "hang:R" makes rank R sleep
 * there (the watchdog's test). Read by the plugin only. */
#define RL_COMM_FAULT_ENV "ROOFLINE_COMM_FAULT"

#define RL_COMM_MAX_SIZES 40       /* 8 B .. 4 TiB by x2 */
#define RL_COMM_MAX_RANKS 1024
#define RL_COMM_MAX_GPUS 16        /* GPUs of a copy matrix (one process's, or ranks') */
#define RL_COMM_MAX_COPIES 10
#define RL_COMM_MAX_NOTES 24
#define RL_COMM_NOTE_SIZE 256
#define RL_COMM_DEFAULT_ITERS 20
#define RL_COMM_DEFAULT_WARMUP 5
#define RL_COMM_FEWER_ABOVE_BYTES (64.0 * 1024 * 1024)

struct rl_comm_request {
    unsigned collectives;      /* bit (1u << enum rl_collective) per collective */
    double min_bytes, max_bytes; /* sizes min, 2 min, ... <= max */
    int iters, warmup;         /* -1: the defaults, fewer above 64 MiB */
    int gpus;                  /* GPUs one process drives; 0: all it sees */
    bool copies;               /* the copy matrix */
    double copy_bytes;
    int copy_samples;          /* median of these */
    int timeout_s;             /* watchdog: no progress for this long aborts */
};

/* One timed size of one collective, as one rank saw it and the ranks agreed. */
struct rl_comm_raw_result {
    double bytes;              /* nccl-tests' size: the whole message */
    long long count;           /* elements per rank's call (the count argument) */
    bool in_place;
    int iters;                 /* timed launches */
    double time_us;            /* elapsed / iters, averaged over ranks (nccl-tests -a 1) */
    double time_max_us;        /* the slowest rank's */
    long long wrong;           /* wrong elements over all ranks; -1 not checked */
};

struct rl_comm_raw_coll {
    int collective;            /* enum rl_collective */
    bool run;                  /* false: skipped, note says why */
    char note[RL_COMM_NOTE_SIZE];
    int n_results;
    struct rl_comm_raw_result results[2 * RL_COMM_MAX_SIZES];
};

struct rl_comm_raw_copy {
    char kind[4];              /* h2d, d2h, d2d, p2p */
    char engine[4];            /* ce (cudaMemcpyAsync), sm (a copy kernel) */
    char direction[4];         /* uni, bi (both ways at once: the sum) */
    double bytes;              /* one copy's size */
    int rows, cols;            /* h2d 1 x n (host row), d2h n x 1, d2d and p2p n x n */
    double gbs[RL_COMM_MAX_GPUS][RL_COMM_MAX_GPUS]; /* NAN: not run */
    long long wrong;           /* 32-bit words wrong over every copy checked */
    char note[RL_COMM_NOTE_SIZE];
};

struct rl_comm_raw_device {
    int rank;
    char host[64];
    int device;                /* CUDA index in its process */
    char name[96];
    char pci_bus_id[32];
};

struct rl_comm_raw {
    bool root;                 /* this process holds the results and writes them */
    int rank, ranks, nodes, gpus_per_node;
    char mpi[128];             /* MPI library version; "" without MPI */
    char launcher[16];         /* mpirun, srun, torchrun; "" none */
    int nccl_version;          /* 22809 = 2.28.9 */
    int cuda_runtime, cuda_driver; /* 13000 = 13.0 */
    int iters, warmup;         /* as asked, or the defaults (20, 5) */
    double fewer_above_bytes;  /* the defaults halve above this size; 0: never */
    int n_devices;             /* one per rank, in rank order */
    struct rl_comm_raw_device devices[RL_COMM_MAX_RANKS];
    int n_colls;
    struct rl_comm_raw_coll colls[8];
    int n_copies;
    struct rl_comm_raw_copy copies[RL_COMM_MAX_COPIES];
    int copy_gpus;
    char copy_devices[RL_COMM_MAX_GPUS][96]; /* the GPUs of the matrices, in order */
    int n_notes;
    char notes[RL_COMM_MAX_NOTES][RL_COMM_NOTE_SIZE];
};

struct rl_comm_api {
    int abi;                   /* RL_COMM_ABI */
    /* Run what req asks on the GPUs this process drives (under MPI: one
     * rank per GPU, every rank calling this). Returns 0 with out filled on
     * the root (out->root); wrong elements are counted, not errors. Else an
     * RL_E* code, errmsg prefixed with "rank R: " under MPI: RL_ENODEV (no
     * GPU), RL_EIO (CUDA, NCCL or MPI; a peer that died or
     * hung). */
    int (*measure)(const struct rl_comm_request *req, struct rl_comm_raw *out, char *errmsg);
    /* Once the caller has printed and written what it had to, on every
     * rank, success or not: MPI_Finalize where every rank reaches it (it
     * waits for them, so that no rank's exit ends one still printing; not
     * after a rank's own failure, which must exit for the launcher to end
     * the others), the watchdog stopped. */
    void (*finish)(void);
    const char *build;         /* "NCCL 2.28.9, CUDA 13.0, Open MPI" */
};

/* Loading (analyzer/comm/open.c, in libroofline: no NCCL) */

/* Open libroofline_comm.so with RTLD_NOW | RTLD_GLOBAL (Open MPI's own
 * components need libmpi's symbols global): $ROOFLINE_COMM_LIB, else
 * beside the executable, else <exe>/../lib/roofline/. RL_EUNSUPPORTED when
 * this build has no NCCL; RL_EIO when it cannot be loaded. */
int rl_comm_open(const struct rl_comm_api **api, char *errmsg);

#ifdef __cplusplus
}
#endif

#endif
