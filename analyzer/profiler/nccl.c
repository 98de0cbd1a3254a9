/* nccl.c - communication by its names: NCCL's and RCCL's kernels and NVTX ranges, the other libraries' collective kernels and operators. */
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

/* The collective a name's words say, lower-cased: "all_reduce" /
 * "allreduce", "all_gather", "reduce_scatter", "all_to_all" / "alltoall",
 * DeepEP's "dispatch" / "combine" (all-to-all), "broadcast", "send" /
 * "recv", "reduce" alone last; NULL none. */
static const char *collective_word(const char *n)
{
    static const struct {
        const char *word, *id;
    } w[] = {{"all_reduce", "allreduce"},   {"allreduce", "allreduce"},
             {"cross_device_reduce", "allreduce"},
             {"all_gather", "allgather"},   {"allgather", "allgather"},
             {"reduce_scatter", "reducescatter"}, {"reducescatter", "reducescatter"},
             {"all_to_all", "alltoall"},    {"alltoall", "alltoall"},
             {"dispatch", "alltoall"},      {"combine", "alltoall"},
             {"broadcast", "broadcast"},    {"send", "sendrecv"},
             {"recv", "sendrecv"},          {"reduce", "reduce"}};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        if (strstr(n, w[i].word))
            return w[i].id;
    return NULL;
}

static void lower(char *out, size_t size, const char *in)
{
    size_t k = 0;
    for (; in && in[k] && k + 1 < size; k++)
        out[k] = (char)tolower((unsigned char)in[k]);
    out[k] = 0;
}

/* A kernel that is communication by its own name (not NCCL's). */
static bool comm_kernel_name(const char *n)
{
    static const char *const words[] = {
        "mscclkernel_",          /* RCCL's MSCCL */
        "multimem_all_reduce",   "multimem_one_shot_all_reduce", "multimem_all_gather",
        "one_shot_all_reduce",   "two_shot_all_reduce", /* PyTorch symm_mem */
        "cross_device_reduce_",  /* vLLM / SGLang custom all-reduce */
        "oneshotallreduce",      "twoshotallreduce", "allreduce_fusion_", /* TRT-LLM, FlashInfer */
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(n, words[i]))
            return true;
    return strstr(n, "deep_ep::") && (strstr(n, "dispatch") || strstr(n, "combine"));
}

/* An operator whose kernels are its collective. */
static bool comm_op_name(const char *n)
{
    if (strcmp(n, "record_param_comms") == 0 || strncmp(n, "nccl:", 5) == 0 ||
        strncmp(n, "deep_ep", 7) == 0)
        return true;
    if (strncmp(n, "symm_mem::", 10) == 0)
        return !strstr(n, "fused_") && collective_word(n + 10);
    /* vLLM's custom all-reduce (_C_custom_ar::all_reduce, qr_all_reduce),
     * SGLang's (sgl_kernel::all_reduce, ROCm's sgl_kernels::all_reduce_reg
     * / _unreg), functional collectives */
    static const char *const ns[] = {"c10d::",       "_c_custom_ar::", "vllm::",
                                     "sgl_kernel::", "sgl_kernels::",  "sglang::",
                                     "_c10d_functional::"};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        if (strncmp(n, ns[i], strlen(ns[i])) == 0) {
            const char *rest = n + strlen(ns[i]);
            /* the collectives, not their set-up (init_custom_ar, register_buffer) */
            return strstr(rest, "all_reduce") || strstr(rest, "allreduce") ||
                   strstr(rest, "all_gather") || strstr(rest, "allgather") ||
                   strstr(rest, "reduce_scatter") || strstr(rest, "all_to_all") ||
                   strstr(rest, "alltoall") || strstr(rest, "broadcast") ||
                   (strcmp(ns[i], "c10d::") == 0 && collective_word(rest));
        }
    return false;
}

bool rl_comm_recognize(const char *kernel, const char *op, char *collective, size_t size)
{
    if (size)
        collective[0] = 0;
    if (kernel && kernel[0] && rl_nccl_kernel(kernel, collective, size))
        return true;
    char k[512], o[160];
    lower(k, sizeof k, kernel);
    lower(o, sizeof o, op);
    bool by_kernel = k[0] && comm_kernel_name(k);
    /* ATen's own kernels under a collective (a cast, a copy) are not it */
    bool by_op = o[0] && comm_op_name(o) && !strstr(k, "at::native::");
    if (!by_kernel && !by_op)
        return false;
    const char *c = by_kernel ? collective_word(k) : NULL;
    if (!c && o[0] && strcmp(o, "record_param_comms") != 0)
        c = collective_word(o);
    if (c && size)
        snprintf(collective, size, "%s", c);
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
