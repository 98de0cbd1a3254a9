/* nccl.c - NCCL's kernel and NVTX range names. */
#include "analyzer/profiler/nccl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* NCCL's kernels are named ncclDevKernel_<Coll>_<Op>_<type>_<algo>_<proto>
 * (src/device/generate.py, NCCL 2.19+; e.g. ncclDevKernel_AllReduce_Sum_f32_RING_LL,
 * ncclDevKernel_SendRecv) and, before, ncclKernel_<Coll>_<algo>_<proto>_<Op>_<type>.
 * The first word after the prefix is the collective. */
static const struct {
    const char *word, *id, *label;
} colls[] = {{"AllReduce", "allreduce", "all-reduce"},
             {"AllGather", "allgather", "all-gather"},
             {"ReduceScatter", "reducescatter", "reduce-scatter"},
             {"Broadcast", "broadcast", "broadcast"},
             {"Reduce", "reduce", "reduce"},
             {"SendRecv", "sendrecv", "send/recv"},
             {"AlltoAll", "alltoall", "all-to-all"},
             {"Gather", "gather", "gather"},
             {"Scatter", "scatter", "scatter"}};
#define N_COLLS (sizeof colls / sizeof *colls)

bool rl_nccl_kernel(const char *name, char *collective, size_t size)
{
    if (size)
        collective[0] = 0;
    while (isspace((unsigned char)*name))
        name++;
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    const char *rest = NULL;
    if (strncmp(name, "ncclDevKernel_", 14) == 0)
        rest = name + 14;
    else if (strncmp(name, "ncclKernel_", 11) == 0)
        rest = name + 11;
    if (!rest)
        return false;
    size_t w = strcspn(rest, "_(<");
    for (size_t i = 0; i < N_COLLS; i++)
        if (strlen(colls[i].word) == w && strncmp(rest, colls[i].word, w) == 0 && size)
            snprintf(collective, size, "%s", colls[i].id);
    return true;
}

const char *rl_nccl_range_collective(const char *range)
{
    if (!range || strncmp(range, "nccl", 4) != 0)
        return NULL;
    const char *w = range + 4;
    if (strcmp(w, "Send") == 0 || strcmp(w, "Recv") == 0)
        return "sendrecv";
    for (size_t i = 0; i < N_COLLS; i++)
        if (strcmp(w, colls[i].word) == 0)
            return colls[i].id;
    return NULL;
}

const char *rl_nccl_collective_label(const char *collective)
{
    for (size_t i = 0; i < N_COLLS; i++)
        if (strcmp(collective, colls[i].id) == 0)
            return colls[i].label;
    return collective;
}
