/* rank.c - which process of a parallel job this is, from the launcher's environment. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/profiler/rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct var {
    const char *name, *launcher;
};

static const struct var rank_vars[] = {{"OMPI_COMM_WORLD_RANK", "mpirun"},
                                       {"PMIX_RANK", "pmix"},
                                       {"PMI_RANK", "mpich"},
                                       {"SLURM_PROCID", "srun"},
                                       {"RANK", "torchrun"}};
static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                         "SLURM_LOCALID", "LOCAL_RANK"};
static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                        "WORLD_SIZE"};

/* The variable as a whole number >= 0, else -1. */
static int whole(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    long x = strtol(v, &end, 10);
    return *end || x < 0 || x > 1000000000L ? -1 : (int)x;
}

static int first(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int x = whole(names[i]);
        if (x >= 0)
            return x;
    }
    return -1;
}

void rl_rank_env_read(struct rl_rank_env *e)
{
    memset(e, 0, sizeof *e);
    e->rank = -1;
    for (size_t i = 0; i < sizeof rank_vars / sizeof *rank_vars && e->rank < 0; i++) {
        e->rank = whole(rank_vars[i].name);
        if (e->rank >= 0)
            snprintf(e->launcher, sizeof e->launcher, "%s", rank_vars[i].launcher);
    }
    e->present = e->rank >= 0;
    e->local_rank = first(local_vars, sizeof local_vars / sizeof *local_vars);
    e->world_size = first(size_vars, sizeof size_vars / sizeof *size_vars);
    if (gethostname(e->hostname, sizeof e->hostname) != 0)
        e->hostname[0] = 0;
    e->hostname[sizeof e->hostname - 1] = 0;
}

int rl_rank_trace_path(char *buf, size_t size, const char *out, bool is_dir, int rank)
{
    size_t len = strlen(out);
    if (is_dir || (len && out[len - 1] == '/'))
        return snprintf(buf, size, "%.*s/trace.rank%d.json",
                        (int)(len && out[len - 1] == '/' ? len - 1 : len), out, rank);
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    int stem = dot && (!slash || dot > slash) && dot != out && dot[-1] != '/'
                   ? (int)(dot - out)
                   : (int)len;
    return snprintf(buf, size, "%.*s.rank%d%s", stem, out, rank, out + stem);
}
