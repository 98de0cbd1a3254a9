/* rank.h - which process of a parallel job this is: rank, local rank and world size from the launcher's environment (mpirun, srun, torchrun).
 *
 * One list of the variables, read by `roofline trace` (its own rank, to
 * name the trace file) and by the tracer in each traced process (the
 * trace's "rank" object), so both sides agree.
 */
#ifndef RL_PROFILER_RANK_H
#define RL_PROFILER_RANK_H

#include <stdbool.h>
#include <stddef.h>

/* Variables in the order they are looked at: the first one set wins.
 *   rank:       OMPI_COMM_WORLD_RANK (Open MPI mpirun), PMIX_RANK (PMIx),
 *               PMI_RANK (MPICH/Hydra), SLURM_PROCID (srun), RANK (torchrun)
 *   local rank: OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID,
 *               LOCAL_RANK
 *   world size: OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, WORLD_SIZE */

struct rl_rank_env {
    bool present;           /* a rank variable is set: under a launcher */
    int rank, local_rank, world_size; /* -1: not set */
    char launcher[24];      /* "mpirun", "pmix", "mpich", "srun", "torchrun"; "" none */
    char hostname[128];     /* gethostname(); "" unknown */
};

/* Fill e from the environment. A variable that is not a whole number
 * >= 0 counts as not set. */
void rl_rank_env_read(struct rl_rank_env *e);

/* A trace path for rank `rank`: "t.json" -> "t.rank<R>.json" ("t" ->
 * "t.rank<R>"); a folder (out ends in '/', or is_dir) -> "<out>/trace.rank<R>.json".
 * Returns the length written (snprintf's: >= size means cut). */
int rl_rank_trace_path(char *buf, size_t size, const char *out, bool is_dir, int rank);

#endif
