/* results.h - `roofline comm --measure` results (kind "roofline-comm"): the rates from the plugin's raw times, the JSON file, its reader and queries.
 *
 * One record feeds the tables, the JSON file and its readers (`chart
 * --comm`, `llm --comm`): struct rl_comm_results. Every rate in it is
 * measured; the link beside it is the datasheet's (its origin says so).
 */
#ifndef RL_COMM_RESULTS_H
#define RL_COMM_RESULTS_H

#include "analyzer/comm/collective.h"
#include "analyzer/util/json.h"

#include <stdbool.h>
#include <stddef.h>

struct rl_comm_raw;

#define RL_COMM_KIND "roofline-comm"

/* One size of one collective: nccl-tests' line. */
struct rl_comm_point {
    double bytes;              /* the whole message (nccl-tests' size) */
    double count;              /* elements per rank's call */
    bool in_place;
    int iters;                 /* timed launches */
    double time_us;            /* per launch, averaged over ranks (nccl-tests' -a 1) */
    double time_max_us;        /* the slowest rank's; NAN when the file has none */
    double algbw_gbs;          /* bytes / time */
    double busbw_gbs;          /* algbw x rl_collective_bus_factor(c, gpus) */
    double pct_of_link;        /* busbw / link, %; NAN without a link or with factor 0 */
    long long wrong;           /* wrong elements over every rank; -1 not checked */
};

struct rl_comm_series {
    enum rl_collective collective;
    int gpus, nodes;
    char dtype[16];            /* "float" */
    char redop[8];             /* "sum"; "" for collectives without one (JSON null) */
    struct rl_comm_point *points; /* by bytes, out-of-place and in-place of a size adjacent */
    size_t n;
    char note[256];            /* why skipped, what a 1-rank figure means; "" none */
};

/* One copy matrix: rows the source, columns the destination. */
struct rl_comm_copy {
    char kind[4];              /* h2d (1 x n: the host row), d2h (n x 1), d2d, p2p (n x n) */
    char engine[4];            /* ce, sm */
    char direction[4];         /* uni, bi */
    double bytes;              /* one copy */
    int rows, cols;
    double *matrix_gbs;        /* rows x cols, row-major; NAN where not run (JSON null) */
    long long wrong;           /* 32-bit words wrong over every copy */
    char note[256];
};

struct rl_comm_device {
    int rank;
    char host[64];
    int device;
    char name[96];
    char pci_bus_id[32];
};

struct rl_comm_results {
    char roofline_version[32];
    /* conditions */
    char date[32];             /* ISO 8601 UTC */
    char (*hosts)[64];
    size_t n_hosts;
    int ranks, nodes, gpus_per_node;
    char nccl_version[16];     /* "2.28.9" */
    char cuda_runtime[16], cuda_driver[16]; /* "13.0" */
    char mpi[128];             /* "" when run without MPI (JSON null) */
    char launcher[16];         /* mpirun, srun, torchrun; "" none (JSON null) */
    struct rl_comm_device *devices;
    size_t n_devices;
    int iters, warmup;         /* as asked, or the defaults (20, 5) */
    double fewer_above_bytes;  /* the defaults halve per doubling above this; 0: never */
    /* the GPU and its datasheet link */
    char gpu[96];              /* "NVIDIA H200" */
    char gpu_id[32];           /* "h200"; "" not in the database (JSON null) */
    char link_name[32];        /* "NVLink 4"; "" unknown */
    double link_gbs;           /* per direction, datasheet; NAN unknown */
    struct rl_comm_series *series;
    size_t n_series;
    struct rl_comm_copy *copies;
    size_t n_copies;
    char copy_devices[16][96];  /* the GPUs of the copy matrices, in order */
    int n_copy_devices;
    char (*notes)[256];
    size_t n_notes;
    bool check_failed;         /* some result or copy had wrong > 0 */
};

/* Building and writing */

/* Rates from the plugin's raw record: algbw = bytes / time, busbw = algbw x
 * rl_collective_bus_factor(c, ranks), % of link = busbw / link_gbs (NAN
 * unless link_gbs > 0 and the factor > 0). gpu and gpu_id name the
 * datasheet compared with ("" none), link_name/link_gbs its link. date and
 * version are recorded as given. RL_ENOMEM. */
int rl_comm_results_from_raw(struct rl_comm_results *r, const struct rl_comm_raw *raw,
                             const char *gpu, const char *gpu_id, const char *link_name,
                             double link_gbs, const char *date, const char *version,
                             char *errmsg);
/* The document (kind "roofline-comm", schema data/schemas/comm.schema.json). */
cJSON *rl_comm_results_json(const struct rl_comm_results *r);

/* Reading */

/* Load and schema-check a results file. RL_EIO, RL_EPARSE or RL_ESCHEMA
 * with "'<path>': line N: ..." in errmsg. r is released on error. */
int rl_comm_results_load(struct rl_comm_results *r, const char *path, char *errmsg);
/* The same from text (`what` names it in errors). */
int rl_comm_results_parse(struct rl_comm_results *r, const char *text, size_t len,
                          const char *what, char *errmsg);
void rl_comm_results_release(struct rl_comm_results *r);
/* The schema (embedded from data/schemas/comm.schema.json). */
const char *rl_comm_schema_text(void);

/* Queries */

/* The series of collective c, or NULL when it was not measured. */
const struct rl_comm_series *rl_comm_results_series(const struct rl_comm_results *r,
                                                    enum rl_collective c);
/* Out-of-place points of a series, in order of bytes, with a finite busbw
 * (algbw when `algbw`: a one-GPU run's busbw is 0): up to max of them into
 * bytes[] and gbs[] (NULL: none); returns how many there are. What `chart
 * --comm` draws. */
size_t rl_comm_series_curve(const struct rl_comm_series *s, bool algbw, double *bytes,
                            double *gbs, size_t max);
/* Out-of-place busbw of c at `bytes`: linear in log(bytes) between the two
 * measured sizes around it, the end value beyond either end; NAN when c was
 * not measured (or has no out-of-place point), or bytes <= 0. */
double rl_comm_results_busbw_gbs(const struct rl_comm_results *r, enum rl_collective c,
                                 double bytes);
/* The same for algbw (what a one-GPU all-reduce has). */
double rl_comm_results_algbw_gbs(const struct rl_comm_results *r, enum rl_collective c,
                                 double bytes);
/* The copy matrix of kind/engine/direction, or NULL. */
const struct rl_comm_copy *rl_comm_results_copy(const struct rl_comm_results *r, const char *kind,
                                                const char *engine, const char *direction);

#endif
