/* nccl.c - NCCL's kernel and NVTX range names. */
#include "analyzer/profiler/nccl.h"

#include <ctype.h>
#include <stdint.h>
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

/* nvtxPayloadData_t (nvtx3/nvToolsExtPayload.h), and the constants named in
 * nccl.h, written here so that this file needs no NVTX header. */
struct payload_data {
    uint64_t schema_id;
    size_t size;
    const void *payload;
};
#define PAYLOAD_TYPE_EXT ((int32_t)0xDFBD0009)
#define SCHEMA_ID_STATIC_START (1ull << 24)

static const struct {
    unsigned sid;
    const char *id;
} sids[] = {{4, "allgather"},     {5, "allreduce"}, {6, "broadcast"}, {7, "reducescatter"},
            {8, "reduce"},        {9, "sendrecv"},  {10, "sendrecv"}, {16, "alltoall"},
            {17, "gather"},       {18, "scatter"}};

bool rl_nccl_nvtx_payload(int32_t payload_type, uint64_t payload_value, uint32_t count,
                          const char **collective, uint64_t *bytes)
{
    if (payload_type != PAYLOAD_TYPE_EXT || count < 1 || !payload_value)
        return false;
    const struct payload_data *d = (const struct payload_data *)(uintptr_t)payload_value;
    if (!d->payload || d->size < 2 * sizeof(uint64_t) || d->schema_id < SCHEMA_ID_STATIC_START)
        return false;
    uint64_t sid = d->schema_id - SCHEMA_ID_STATIC_START;
    for (size_t i = 0; i < sizeof sids / sizeof *sids; i++)
        if (sids[i].sid == sid) {
            /* {uint64_t comm; size_t bytes; ...}: bytes at offset 8 */
            size_t b;
            memcpy(&b, (const char *)d->payload + sizeof(uint64_t), sizeof b);
            *collective = sids[i].id;
            *bytes = (uint64_t)b;
            return true;
        }
    return false;
}
