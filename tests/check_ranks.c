/* check_ranks.c - tests of multi-rank traces: the rank environment, NCCL names, per-rank and merged reports from the synthetic rank files in tests/data/ranks/. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/model/ceilings.h"
#include "analyzer/profiler/nccl.h"
#include "analyzer/profiler/rank.h"
#include "analyzer/profiler/trace.h"
#include "analyzer/readers/tracefile.h"
#include "analyzer/report/ranks.h"
#include "analyzer/report/report.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/schema.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct rl_gpu_spec *h200;

static void setup(void) { h200 = rl_test_gpu("h200"); }

#define MIB256 268435456.0

/* The traces of args loaded, merged and reported against the H200's
 * datasheet ceilings. */
struct built {
    struct rl_rank_traces t;
    struct rl_trace_groups g;
    struct rl_ceilings c;
    struct rl_report r;
};

static void build(struct built *b, const char *const *args, size_t n)
{
    char err[RL_ERRMSG_SIZE];
    memset(b, 0, sizeof *b);
    ck_assert_msg(rl_rank_traces_load(&b->t, args, n, err) == 0, "%s", err);
    ck_assert(rl_rank_traces_ranked(&b->t));
    ck_assert_int_eq(rl_rank_traces_merge(&b->t, &b->g, err), 0);
    ck_assert_int_eq(rl_ceilings_init(&b->c, h200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_int_eq(rl_report_build(&b->r, &b->c, &b->g, err), 0);
    ck_assert_int_eq(rl_report_ranks(&b->r, &b->t, err), 0);
}

static void unbuild(struct built *b)
{
    rl_report_release(&b->r);
    rl_trace_groups_release(&b->g);
    rl_rank_traces_release(&b->t);
}

static const struct rl_report_row *row(const struct rl_report *r, const char *part)
{
    for (size_t i = 0; i < r->n; i++)
        if (strstr(r->rows[i].name, part))
            return &r->rows[i];
    ck_abort_msg("no row '%s'", part);
    return NULL;
}

static void near(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "got %.12g, want %.12g", got, want);
}

/* JSON numbers carry 9 significant digits. */
static void near_json(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-8 * fabs(want), "got %.12g, want %.12g", got, want);
}

/* ---- names and the environment ------------------------------------------------ */

START_TEST(nccl_kernel_names)
{
    char coll[24];
    ck_assert(rl_nccl_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", coll, sizeof coll));
    ck_assert_str_eq(coll, "allreduce");
    ck_assert(rl_nccl_kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", coll,
                             sizeof coll));
    ck_assert_str_eq(coll, "sendrecv");
    ck_assert(rl_nccl_kernel("void ncclKernel_ReduceScatter_RING_SIMPLE_Sum_half(ncclWorkElem)",
                             coll, sizeof coll));
    ck_assert_str_eq(coll, "reducescatter");
    ck_assert(rl_nccl_kernel("ncclDevKernel_Reduce_Sum_f32_RING_LL", coll, sizeof coll));
    ck_assert_str_eq(coll, "reduce");
    ck_assert(rl_nccl_kernel("ncclDevKernel_Generic", coll, sizeof coll));
    ck_assert_str_eq(coll, ""); /* NCCL's, collective not said */
    ck_assert(!rl_nccl_kernel("gemm_nccl_like", coll, sizeof coll));
    ck_assert(!rl_nccl_kernel("ncclDevKernelX", coll, sizeof coll));
    ck_assert(!rl_nccl_kernel("my_ncclKernel_AllReduce", coll, sizeof coll));
    ck_assert_str_eq(rl_nccl_range_collective("ncclAllReduce"), "allreduce");
    ck_assert_str_eq(rl_nccl_range_collective("ncclSend"), "sendrecv");
    ck_assert_str_eq(rl_nccl_range_collective("ncclRecv"), "sendrecv");
    ck_assert_str_eq(rl_nccl_range_collective("ncclAlltoAll"), "alltoall");
    ck_assert_ptr_null(rl_nccl_range_collective("ncclCommInitRank"));
    ck_assert_ptr_null(rl_nccl_range_collective("forward"));
    ck_assert_str_eq(rl_nccl_collective_label("allreduce"), "all-reduce");
    ck_assert_str_eq(rl_nccl_collective_label("sendrecv"), "send/recv");
}
END_TEST

/* NCCL's NVTX payload as NCCL 2.19+ builds it (nvtx.h): an
 * nvtxPayloadData_t {schemaId, size, payload} behind payload.ullValue, the
 * payload {uint64_t comm; size_t bytes; ...}. */
START_TEST(nccl_nvtx_payload)
{
    struct {
        uint64_t comm;
        size_t bytes;
        int op;
    } allreduce = {0x1234, 67108864, 0};
    struct {
        uint64_t schema_id;
        size_t size;
        const void *payload;
    } data = {(1ull << 24) + 5, sizeof allreduce, &allreduce};
    const int32_t ext = (int32_t)0xDFBD0009;
    const char *coll = NULL;
    uint64_t bytes = 0;
    ck_assert(rl_nccl_nvtx_payload(ext, (uint64_t)(uintptr_t)&data, 1, &coll, &bytes));
    ck_assert_str_eq(coll, "allreduce");
    ck_assert_uint_eq(bytes, 67108864);
    data.schema_id = (1ull << 24) + 9; /* ncclSend */
    ck_assert(rl_nccl_nvtx_payload(ext, (uint64_t)(uintptr_t)&data, 1, &coll, &bytes));
    ck_assert_str_eq(coll, "sendrecv");
    data.schema_id = (1ull << 24) + 0; /* ncclCommInitRank: no message size */
    ck_assert(!rl_nccl_nvtx_payload(ext, (uint64_t)(uintptr_t)&data, 1, &coll, &bytes));
    data.schema_id = (1ull << 24) + 5;
    ck_assert(!rl_nccl_nvtx_payload(3, (uint64_t)(uintptr_t)&data, 1, &coll, &bytes));
    ck_assert(!rl_nccl_nvtx_payload(ext, 0, 1, &coll, &bytes));
    ck_assert(!rl_nccl_nvtx_payload(ext, (uint64_t)(uintptr_t)&data, 0, &coll, &bytes));
    data.size = 8; /* too small to hold the bytes */
    ck_assert(!rl_nccl_nvtx_payload(ext, (uint64_t)(uintptr_t)&data, 1, &coll, &bytes));
}
END_TEST

static const char *const all_vars[] = {
    "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK",
    "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE"};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof all_vars / sizeof *all_vars; i++)
        unsetenv(all_vars[i]);
}

START_TEST(rank_from_environment)
{
    struct rl_rank_env e;
    clear_env();
    rl_rank_env_read(&e);
    ck_assert(!e.present);
    ck_assert_int_eq(e.rank, -1);
    ck_assert_int_eq(e.world_size, -1);
    /* torchrun's children */
    setenv("RANK", "3", 1), setenv("LOCAL_RANK", "1", 1), setenv("WORLD_SIZE", "8", 1);
    rl_rank_env_read(&e);
    ck_assert(e.present);
    ck_assert_int_eq(e.rank, 3);
    ck_assert_int_eq(e.local_rank, 1);
    ck_assert_int_eq(e.world_size, 8);
    ck_assert_str_eq(e.launcher, "torchrun");
    /* Open MPI's variables come first, then PMIx, MPICH, Slurm */
    setenv("SLURM_PROCID", "5", 1);
    rl_rank_env_read(&e);
    ck_assert_int_eq(e.rank, 5);
    ck_assert_str_eq(e.launcher, "srun");
    setenv("PMI_RANK", "6", 1);
    rl_rank_env_read(&e);
    ck_assert_str_eq(e.launcher, "mpich");
    setenv("PMIX_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_RANK", "7", 1), setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "16", 1);
    rl_rank_env_read(&e);
    ck_assert_int_eq(e.rank, 7);
    ck_assert_int_eq(e.local_rank, 0);
    ck_assert_int_eq(e.world_size, 16);
    ck_assert_str_eq(e.launcher, "mpirun");
    /* Not a whole number: as if not set */
    clear_env();
    setenv("RANK", "x1", 1), setenv("SLURM_PROCID", "-1", 1);
    rl_rank_env_read(&e);
    ck_assert(!e.present);
    clear_env();
}
END_TEST

START_TEST(rank_trace_names)
{
    char b[256];
    rl_rank_trace_path(b, sizeof b, "t.json", false, 3);
    ck_assert_str_eq(b, "t.rank3.json");
    rl_rank_trace_path(b, sizeof b, "out/run.v2/trace.json", false, 0);
    ck_assert_str_eq(b, "out/run.v2/trace.rank0.json");
    rl_rank_trace_path(b, sizeof b, "out/run.v2/trace", false, 12);
    ck_assert_str_eq(b, "out/run.v2/trace.rank12");
    rl_rank_trace_path(b, sizeof b, "traces/", false, 1);
    ck_assert_str_eq(b, "traces/trace.rank1.json");
    rl_rank_trace_path(b, sizeof b, "traces", true, 1);
    ck_assert_str_eq(b, "traces/trace.rank1.json");
    rl_rank_trace_path(b, sizeof b, ".hidden", false, 2);
    ck_assert_str_eq(b, ".hidden.rank2");
    ck_assert_int_ge(rl_rank_trace_path(b, 8, "long-name.json", false, 1), 8); /* cut: said */
}
END_TEST

/* ---- the synthetic ranks -------------------------------------------------------- */

/* Every file under tests/data/ranks/ matches data/schemas/trace.schema.json. */
START_TEST(rank_files_match_the_schema)
{
    static const char *const files[] = {"ranks/2/trace.rank0.json", "ranks/2/trace.rank1.json",
                                        "ranks/4/trace.rank0.json", "ranks/4/trace.rank3.json",
                                        "ranks/odd/a.json",         "ranks/odd/b.json"};
    cJSON *schema, *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse_file(ROOFLINE_SOURCE_DIR "/data/schemas/trace.schema.json",
                                        &schema, err), 0);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        const char *path = rl_test_data(files[i]);
        char *text = rl_test_slurp(path);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(rl_json_parse(text, strlen(text), path, &doc, err), 0);
        ck_assert_msg(rl_schema_check_text(schema, doc, text, strlen(text), path, err) == 0,
                      "%s", err);
        cJSON_Delete(doc);
        free(text);
    }
    cJSON_Delete(schema);
}
END_TEST

START_TEST(reader_keeps_rank_and_comm_bytes)
{
    struct rl_trace_groups g = {0};
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_trace_groups_load(&g, rl_test_data("ranks/2/trace.rank1.json"), err) == 0,
                  "%s", err);
    ck_assert(g.sum.rank.present);
    ck_assert_int_eq(g.sum.rank.rank, 1);
    ck_assert_int_eq(g.sum.rank.local_rank, 1);
    ck_assert_int_eq(g.sum.rank.world_size, 2);
    ck_assert_str_eq(g.sum.rank.launcher, "mpirun");
    ck_assert_str_eq(g.sum.rank.hostname, "node0");
    ck_assert_str_eq(g.sum.program, "python train.py");
    const struct rl_trace_group *ar = NULL;
    for (size_t i = 0; i < g.n; i++)
        if (strstr(g.v[i].name, "AllReduce"))
            ar = &g.v[i];
    ck_assert_ptr_nonnull(ar);
    /* 2 launches of 256 MiB each: 2 x 268435456 = 536870912 bytes, 2 x 300 us */
    ck_assert_double_eq(ar->comm_bytes, 2 * MIB256);
    ck_assert_uint_eq(ar->comm_launches, 2);
    ck_assert_str_eq(ar->collective, "allreduce");
    ck_assert_double_eq(ar->time_ns, 600000);
    rl_trace_groups_release(&g);
    /* Both reading paths agree */
    rl_trace_set_fast_path(false);
    memset(&g, 0, sizeof g);
    ck_assert_int_eq(rl_trace_groups_load(&g, rl_test_data("ranks/2/trace.rank1.json"), err), 0);
    rl_trace_set_fast_path(true);
    for (size_t i = 0; i < g.n; i++)
        if (strstr(g.v[i].name, "AllReduce"))
            ck_assert_double_eq(g.v[i].comm_bytes, 2 * MIB256);
    ck_assert_int_eq(g.sum.rank.rank, 1);
    rl_trace_groups_release(&g);
}
END_TEST

/* Two ranks, each: 2 GEMMs and 2 all-reduces of 256 MiB.
 *   rank 0: GEMM 2 x 1.0 ms, all-reduce 2 x 0.5 ms: 3.0 ms, comm 1.0 ms = 1/3
 *   rank 1: GEMM 2 x 1.2 ms, all-reduce 2 x 0.3 ms: 3.0 ms, comm 0.6 ms = 0.2
 * Merged: GEMM 4.4 ms summed, 2.4 ms on the busiest rank; all-reduce 1.6 ms,
 * 1.0 ms; 4 x 268435456 = 1073741824 bytes / 1.6e6 ns = 671.08864 GB/s. */
START_TEST(two_ranks_per_rank_and_merged)
{
    const char *args[] = {rl_test_data("ranks/2")};
    struct built b;
    build(&b, args, 1);
    ck_assert_uint_eq(b.r.n_ranks, 2);
    const struct rl_report_rank *k0 = &b.r.ranks[0], *k1 = &b.r.ranks[1];
    ck_assert_int_eq(k0->rank, 0);
    ck_assert_int_eq(k1->rank, 1);
    ck_assert_str_eq(k1->host, "node0");
    ck_assert_str_eq(k1->gpu, "NVIDIA H200");
    near(k0->kernel_time_ns, 3e6);
    near(k0->comm_time_ns, 1e6);
    near(k0->comm_share, 1.0 / 3);
    near(k1->comm_time_ns, 6e5);
    near(k1->comm_share, 0.2);
    near(k0->comm_bytes, 2 * MIB256);
    ck_assert_uint_eq(k0->launches, 4);
    ck_assert(strstr(k0->top[0].name, "gemm_bf16") && !k0->top[0].comm);
    ck_assert(k0->top[1].comm);

    const struct rl_report_row *gemm = row(&b.r, "gemm_bf16"), *ar = row(&b.r, "AllReduce");
    ck_assert_uint_eq(gemm->ranks, 2);
    near(gemm->time_ns, 4.4e6);
    near(gemm->time_ns_max_rank, 2.4e6);
    ck_assert(!gemm->comm);
    ck_assert_int_eq(gemm->bound, RL_BOUND_COMPUTE); /* 500 FLOP/B, right of 206 */
    ck_assert(ar->comm);
    ck_assert_str_eq(ar->collective, "allreduce");
    ck_assert_int_eq(ar->roof, -1);
    ck_assert(!ar->over_roof);
    near(ar->time_ns, 1.6e6);
    near(ar->time_ns_max_rank, 1e6);
    near(ar->comm_bytes, 4 * MIB256);
    near(ar->comm_algbw_gbs, 4 * MIB256 / 1.6e6);
    near(b.r.comm_time_ns, 1.6e6);
    ck_assert_ptr_nonnull(strstr(ar->sentence, "communication (NCCL all-reduce)"));
    ck_assert_ptr_nonnull(strstr(ar->sentence, "671 GB/s"));
    ck_assert_ptr_null(strstr(b.r.notes, "bytes unknown"));
    /* The per-rank table names rank 0 as 0 (not "-", kept for a trace
     * without a rank) and gives each rank's communication share: 1e6 of
     * 3e6 ns = 33.3%, 6e5 of 3e6 = 20%. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    rl__report_ranks_table(f, &b.r);
    fclose(f);
    ck_assert_msg(strstr(buf, "\n0      node0") && strstr(buf, "\n1      node0"), "%s", buf);
    ck_assert_msg(strstr(buf, "  33.3%  ") && strstr(buf, "    20%  "), "%s", buf);
    free(buf);
    unbuild(&b);
}
END_TEST

/* Four ranks, rank r: GEMM 1e6 + 1e5 r ns, all-gather 2e5 (r + 1) ns (no
 * NVTX: bytes unknown), send/recv 1e5 ns of 1 MiB.
 *   kernel time: 1.3, 1.6, 1.9, 2.2 ms (1.3e6 + 3e5 r); sum 7.0 ms, max 2.2
 *   comm: 0.3, 0.5, 0.7, 0.9 ms (3e5 + 2e5 r); shares 3/13, 5/16, 7/19, 9/22
 *   merged comm share 2.4 / 7.0; send/recv 4 MiB / 4e5 ns = 10.48576 GB/s */
START_TEST(four_ranks_sorted_with_unknown_bytes)
{
    char p[4][4096];
    const char *args[4];
    static const int given[4] = {3, 1, 0, 2};
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "ranks/4/trace.rank%d.json", given[i]);
        snprintf(p[i], sizeof p[i], "%s", rl_test_data(name));
        args[i] = p[i];
    }
    struct built b;
    build(&b, args, 4);
    ck_assert_uint_eq(b.r.n_ranks, 4);
    static const double share[4] = {3.0 / 13, 5.0 / 16, 7.0 / 19, 9.0 / 22};
    for (int r = 0; r < 4; r++) {
        const struct rl_report_rank *k = &b.r.ranks[r];
        ck_assert_int_eq(k->rank, r); /* sorted by rank, whatever the order given */
        ck_assert_int_eq(k->local_rank, r % 2);
        ck_assert_int_eq(k->world_size, 4);
        near(k->kernel_time_ns, 1.3e6 + 3e5 * r);
        near(k->comm_time_ns, 3e5 + 2e5 * r);
        near(k->comm_share, share[r]);
        ck_assert(isnan(k->comm_bytes)); /* the all-gather's are unknown */
    }
    ck_assert_str_eq(b.r.ranks[3].host, "node1");
    const struct rl_report_row *ag = row(&b.r, "AllGather"), *sr = row(&b.r, "SendRecv");
    const struct rl_report_row *gemm = row(&b.r, "gemm_bf16");
    near(ag->time_ns, 2e6);
    near(ag->time_ns_max_rank, 8e5);
    ck_assert(isnan(ag->comm_bytes));
    ck_assert_str_eq(ag->collective, "allgather"); /* from the kernel's name */
    ck_assert_ptr_nonnull(strstr(ag->sentence, "bytes unknown: NCCL's NVTX ranges were not seen"));
    near(sr->comm_bytes, 4 * 1048576.0);
    near(sr->comm_algbw_gbs, 4 * 1048576.0 / 4e5);
    near(gemm->time_ns, 4.6e6);
    near(gemm->time_ns_max_rank, 1.3e6);
    ck_assert_uint_eq(gemm->ranks, 4);
    near(b.r.comm_time_ns, 2.4e6);
    ck_assert_ptr_nonnull(strstr(b.r.notes, "bytes unknown: NCCL's NVTX ranges were not seen"));
    ck_assert_ptr_null(strstr(b.r.notes, "the job had")); /* all 4 of 4 */
    unbuild(&b);
}
END_TEST

/* The command: a folder, JSON keys and their values (same arithmetic as above). */
START_TEST(report_command_json)
{
    struct rl_run r = rl_test_cli(NULL, "report", "--trace", rl_test_data("ranks/4"), "--json",
                                  NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse(r.out, strlen(r.out), "stdout", &doc, err), 0);
    const cJSON *ranks = cJSON_GetObjectItem(doc, "ranks");
    ck_assert_int_eq(cJSON_GetArraySize(ranks), 4);
    const cJSON *k2 = cJSON_GetArrayItem(ranks, 2);
    ck_assert_double_eq(rl_json_number(k2, "rank"), 2);
    ck_assert_str_eq(cJSON_GetObjectItem(k2, "host")->valuestring, "node1");
    ck_assert_str_eq(cJSON_GetObjectItem(k2, "gpu")->valuestring, "NVIDIA H200");
    ck_assert_double_eq(rl_json_number(k2, "kernel_time_ns"), 1.9e6);
    ck_assert_double_eq(rl_json_number(k2, "comm_time_ns"), 7e5);
    near_json(rl_json_number(k2, "comm_share"), 7.0 / 19);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(k2, "comm_bytes")));
    const cJSON *m = cJSON_GetObjectItem(doc, "merged");
    ck_assert_double_eq(rl_json_number(m, "ranks"), 4);
    ck_assert_double_eq(rl_json_number(m, "kernel_time_ns_sum"), 7e6);
    ck_assert_double_eq(rl_json_number(m, "kernel_time_ns_max_rank"), 2.2e6);
    ck_assert_double_eq(rl_json_number(m, "comm_time_ns_sum"), 2.4e6);
    ck_assert_double_eq(rl_json_number(m, "comm_time_ns_max_rank"), 9e5);
    const cJSON *k;
    int comm = 0;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(doc, "kernels"))
    {
        const char *kind = cJSON_GetObjectItem(k, "kind")->valuestring;
        const char *name = cJSON_GetObjectItem(k, "name")->valuestring;
        ck_assert_double_eq(rl_json_number(k, "ranks"), 4);
        if (strstr(name, "SendRecv")) {
            ck_assert_str_eq(kind, "communication");
            ck_assert_str_eq(cJSON_GetObjectItem(k, "collective")->valuestring, "sendrecv");
            ck_assert_double_eq(rl_json_number(k, "comm_bytes"), 4194304);
            ck_assert_double_eq(rl_json_number(k, "time_ns_sum"), 4e5);
            ck_assert_double_eq(rl_json_number(k, "time_ns_max_rank"), 1e5);
            ck_assert_str_eq(cJSON_GetObjectItem(k, "bound")->valuestring, "communication");
            comm++;
        } else if (strstr(name, "AllGather")) {
            ck_assert_str_eq(kind, "communication");
            ck_assert(cJSON_IsNull(cJSON_GetObjectItem(k, "comm_bytes")));
            ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(k, "over_roof")));
            comm++;
        } else {
            ck_assert_str_eq(kind, "kernel");
            ck_assert_double_eq(rl_json_number(k, "time_ns_sum"), 4.6e6);
            ck_assert_double_eq(rl_json_number(k, "time_ns_max_rank"), 1.3e6);
        }
    }
    ck_assert_int_eq(comm, 2);
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

/* Files: the per-rank table in report.md, the comm columns in report.csv. */
START_TEST(report_command_files)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ranks-report", rl_test_tmpdir());
    char one[4096], zero[4096]; /* rl_test_data's buffer is reused */
    snprintf(one, sizeof one, "%s", rl_test_data("ranks/2/trace.rank1.json"));
    snprintf(zero, sizeof zero, "%s", rl_test_data("ranks/2/trace.rank0.json"));
    struct rl_run r = rl_test_cli(NULL, "report", one, zero, "--no-chart", "-o", dir, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "communication (NCCL all-reduce)"));
    ck_assert_ptr_nonnull(strstr(r.out, "33.3%")); /* rank 0: 1 of 3 ms */
    ck_assert_ptr_nonnull(strstr(r.out, "20%"));   /* rank 1: 0.6 of 3 ms */
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = rl_test_slurp(path);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "## Ranks"));
    ck_assert_ptr_nonnull(strstr(md, "| 0 | node0 | NVIDIA H200 | 3 ms | 1 ms | 33.3% |"));
    ck_assert_ptr_nonnull(strstr(md, "| 1 | node0 | NVIDIA H200 | 3 ms | 0.6 ms | 20% |"));
    ck_assert_ptr_nonnull(strstr(md, "6 ms of kernel time summed, 3 ms on the busiest rank"));
    free(md);
    snprintf(path, sizeof path, "%s/report.csv", dir);
    char *csv = rl_test_slurp(path);
    ck_assert_ptr_nonnull(csv);
    ck_assert_ptr_nonnull(strstr(csv, ",sentence,kind,collective,comm_bytes,ranks,"
                                      "time_ns_max_rank\n"));
    ck_assert_ptr_nonnull(strstr(csv, ",communication,allreduce,1073741824,2,1000000\n"));
    free(csv);
    /* report.html: the page's per-rank section, drawn from its embedded ranks */
    snprintf(path, sizeof path, "%s/report.html", dir);
    char *html = rl_test_slurp(path);
    ck_assert_ptr_nonnull(html);
    ck_assert_ptr_nonnull(strstr(html, "<section id=\"ranks-section\" hidden>"));
    ck_assert_ptr_nonnull(strstr(html, "\"comm_share\": 0.333333333"));
    free(html);
    rl_run_release(&r);
}
END_TEST

/* What the tracer writes (rank object, collective, comm_bytes) matches the
 * schema and reads back: one all-reduce of 64 MiB in 200 us, one launch
 * outside any NCCL range. */
START_TEST(writer_round_trip)
{
    struct rl_trace_kernel k[2];
    memset(k, 0, sizeof k);
    for (int i = 0; i < 2; i++) {
        k[i].name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        k[i].grid[0] = k[i].grid[1] = k[i].grid[2] = 1;
        k[i].block[0] = 640, k[i].block[1] = k[i].block[2] = 1;
        k[i].start_ns = 1000 + 300000 * (uint64_t)i;
        k[i].end_ns = k[i].start_ns + 200000;
        k[i].step = -1;
        for (int q = 0; q < RL_Q_COUNT; q++)
            k[i].q[q] = NAN;
    }
    snprintf(k[0].collective, sizeof k[0].collective, "allreduce");
    k[0].comm_bytes = 67108864;
    k[0].nvtx = "ncclAllReduce";
    struct rl_rank_env rank = {.present = true, .rank = 5, .local_rank = 1, .world_size = 8,
                               .launcher = "torchrun", .hostname = "gpu-node-3"};
    struct rl_trace_meta m = {.tool = "roofline test", .created = "2026-11-29T00:00:00Z",
                              .pid = 42, .program = "python train.py", .gpu_name = "NVIDIA H200",
                              .chip = "GH100", .cc_major = 9, .sm_count = 132,
                              .counters_mode = "none", .counters_status = "off", .rank = &rank};
    char path[512];
    snprintf(path, sizeof path, "%s/written.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(rl_trace_write(f, &m, k, 2, NULL, 0), 0);
    fclose(f);
    cJSON *schema, *doc;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_json_parse_file(ROOFLINE_SOURCE_DIR "/data/schemas/trace.schema.json",
                                        &schema, err), 0);
    char *text = rl_test_slurp(path);
    ck_assert_int_eq(rl_json_parse(text, strlen(text), path, &doc, err), 0);
    ck_assert_msg(rl_schema_check_text(schema, doc, text, strlen(text), path, err) == 0, "%s",
                  err);
    ck_assert_ptr_nonnull(strstr(text, "\"collective\": \"allreduce\", \"comm_bytes\": 67108864"));
    cJSON_Delete(doc);
    cJSON_Delete(schema);
    free(text);
    struct rl_trace_groups g = {0};
    ck_assert_int_eq(rl_trace_groups_load(&g, path, err), 0);
    ck_assert_int_eq(g.sum.rank.rank, 5);
    ck_assert_int_eq(g.sum.rank.local_rank, 1);
    ck_assert_int_eq(g.sum.rank.world_size, 8);
    ck_assert_str_eq(g.sum.rank.launcher, "torchrun");
    ck_assert_str_eq(g.sum.rank.hostname, "gpu-node-3");
    ck_assert_uint_eq(g.n, 1);
    /* 1 of 2 launches carries bytes: the group's bytes are not all known */
    ck_assert_double_eq(g.v[0].comm_bytes, 67108864);
    ck_assert_uint_eq(g.v[0].comm_launches, 1);
    ck_assert_uint_eq(g.v[0].launches, 2);
    rl_trace_groups_release(&g);
    /* Without a rank: no rank object */
    m.rank = NULL;
    f = fopen(path, "w");
    ck_assert_int_eq(rl_trace_write(f, &m, k, 2, NULL, 0), 0);
    fclose(f);
    text = rl_test_slurp(path);
    ck_assert_ptr_null(strstr(text, "\"rank\""));
    free(text);
}
END_TEST

/* ---- limits --------------------------------------------------------------------- */

/* Under a launcher (here torchrun's RANK) every message names the rank. */
START_TEST(trace_errors_name_the_rank)
{
    char out[4096];
    snprintf(out, sizeof out, "%s/rank-out/", rl_test_tmpdir()); /* a folder: made only with a GPU */
    const char *env[] = {"RANK=3", "LOCAL_RANK=1", "WORLD_SIZE=4",
                         "ROOFLINE_CUDA_LIB=/nonexistent/libroofline_cuda.so", NULL};
    struct rl_run r = rl_test_cli(env, "trace", "-o", out, "--", "true", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strncmp(r.err, "roofline: error: rank 3: ", 25) == 0, "%s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/rank-out", rl_test_tmpdir());
    struct stat st;
    ck_assert_int_ne(stat(dir, &st), 0); /* nothing made */
}
END_TEST

/* Rank 0 twice, two GPUs, two programs: notes, no failure. The old NCCL
 * name (ncclKernel_*) is communication too. */
START_TEST(odd_sets_give_notes)
{
    const char *args[] = {rl_test_data("ranks/odd")};
    struct built b;
    build(&b, args, 1);
    ck_assert_uint_eq(b.r.n_ranks, 2);
    ck_assert_ptr_nonnull(strstr(b.r.notes, "rank 0 appears in 2 traces"));
    ck_assert_ptr_nonnull(strstr(b.r.notes, "the ranks ran on different GPUs"));
    ck_assert_ptr_nonnull(strstr(b.r.notes, "different programs"));
    ck_assert_ptr_nonnull(strstr(b.r.notes, "the job had 2 ranks, the traces are of 1"));
    const struct rl_report_row *old = row(&b.r, "ncclKernel_AllReduce");
    ck_assert(old->comm);
    ck_assert_str_eq(old->collective, "allreduce");
    near(old->time_ns, 5e5);
    /* a.json: 0.4 of 2.0 ms; b.json: all of its 0.1 ms */
    near(b.r.ranks[0].comm_share, 0.2);
    near(b.r.ranks[1].comm_share, 1.0);
    unbuild(&b);
}
END_TEST

static const char *write_text(const char *name, const char *text)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", rl_test_tmpdir(), name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define HEAD "{\"schema_version\": 1, \"format\": \"roofline-trace\", "
#define KERNEL                                                                                 \
    "\"kernels\": [{\"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", \"grid\": [1,1,1], " \
    "\"block\": [64,1,1], \"time_ns\": 1000, \"flops\": null, \"dram_bytes\": null}]}"

START_TEST(bad_and_old_rank_objects)
{
    struct rl_trace_groups g = {0};
    char err[RL_ERRMSG_SIZE];
    /* No rank object (an old trace): read, not ranked; NCCL still communication */
    const char *old = write_text("old.json", HEAD KERNEL);
    ck_assert_int_eq(rl_trace_groups_load(&g, old, err), 0);
    ck_assert(!g.sum.rank.present);
    rl_trace_groups_release(&g);
    struct rl_run r = rl_test_cli(NULL, "report", "--trace", old, "--gpu", "h200", "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.out, "\"ranks\": ["));
    ck_assert_ptr_nonnull(strstr(r.out, "\"kind\": \"communication\""));
    ck_assert_ptr_nonnull(strstr(r.out, "bytes unknown: NCCL's NVTX ranges were not seen"));
    ck_assert_ptr_nonnull(strstr(r.out, "100% of GPU time, communication (NCCL all-reduce)"));
    rl_run_release(&r);
    /* Without a time: said, never "nan%" */
    const char *untimed = write_text(
        "untimed.json", HEAD "\"kernels\": [{\"name\": \"ncclKernel_Broadcast_RING_LL\", "
                        "\"grid\": [1,1,1], \"block\": [64,1,1], \"time_ns\": null}]}");
    r = rl_test_cli(NULL, "report", "--trace", untimed, "--gpu", "h200", "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "communication (NCCL broadcast): no time, bytes unknown"));
    ck_assert_ptr_null(strstr(r.out, "nan"));
    rl_run_release(&r);
    /* Named as a rank's trace (t.rank<R>.json): that rank, the rest unknown */
    const char *named = write_text("old.rank2.json", HEAD KERNEL);
    char named_copy[4096];
    snprintf(named_copy, sizeof named_copy, "%s", named);
    const char *other = write_text("old.rankx.json", HEAD KERNEL);
    const char *args[] = {named_copy, other};
    struct rl_rank_traces t;
    ck_assert_int_eq(rl_rank_traces_load(&t, args, 2, err), 0);
    ck_assert(rl_rank_traces_ranked(&t));
    ck_assert_int_eq(t.groups[0].sum.rank.rank, 2);
    ck_assert_int_eq(t.groups[0].sum.rank.world_size, -1);
    ck_assert(!t.groups[1].sum.rank.present); /* "rankx": no number */
    rl_rank_traces_release(&t);
        /* A rank that is not an object, or not a number */
    memset(&g, 0, sizeof g);
    const char *bad = write_text("bad.json", HEAD "\"rank\": 3, " KERNEL);
    ck_assert_int_eq(rl_trace_groups_load(&g, bad, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "'rank' must be an object"));
    rl_trace_groups_release(&g);
    memset(&g, 0, sizeof g);
    bad = write_text("bad2.json", HEAD "\"rank\": {\"rank\": \"one\"}, " KERNEL);
    ck_assert_int_eq(rl_trace_groups_load(&g, bad, err), RL_ESCHEMA);
    rl_trace_groups_release(&g);
    /* A rank object with only the rank: the rest unknown */
    memset(&g, 0, sizeof g);
    const char *min = write_text("min.json", HEAD "\"rank\": {\"rank\": 4}, " KERNEL);
    ck_assert_int_eq(rl_trace_groups_load(&g, min, err), 0);
    ck_assert(g.sum.rank.present);
    ck_assert_int_eq(g.sum.rank.rank, 4);
    ck_assert_int_eq(g.sum.rank.local_rank, -1);
    ck_assert_int_eq(g.sum.rank.world_size, -1);
    rl_trace_groups_release(&g);
    /* ... and one without the rank: unknown (-1), never rank 1 or 0 */
    memset(&g, 0, sizeof g);
    const char *norank = write_text("norank.json", HEAD "\"rank\": {\"world_size\": 8}, " KERNEL);
    ck_assert_int_eq(rl_trace_groups_load(&g, norank, err), 0);
    ck_assert(g.sum.rank.present);
    ck_assert_int_eq(g.sum.rank.rank, -1);
    ck_assert_int_eq(g.sum.rank.world_size, 8);
    rl_trace_groups_release(&g);
}
END_TEST

/* A file, then a folder: the folder's traces sorted by name among
 * themselves only (the file given first stays first), none ranked, so
 * kept in that order: x.json, then the folder's a, b, c. */
START_TEST(a_file_then_a_folder)
{
    char dir[4096], name[64];
    snprintf(dir, sizeof dir, "%s/file-then-folder", rl_test_tmpdir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    const char *order[] = {"c", "a", "b"};
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "file-then-folder/%s.json", order[i]);
        write_text(name, HEAD KERNEL);
    }
    char file[4096];
    snprintf(file, sizeof file, "%s", write_text("x.json", HEAD KERNEL));
    const char *args[] = {file, dir};
    struct rl_rank_traces t;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_rank_traces_load(&t, args, 2, err) == 0, "%s", err);
    ck_assert_uint_eq(t.n, 4);
    ck_assert_str_eq(t.paths[0], file);
    const char *want[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.json", dir, want[i]);
        ck_assert_str_eq(t.paths[i + 1], path);
    }
    rl_rank_traces_release(&t);
}
END_TEST

START_TEST(folder_without_traces)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/empty-ranks", rl_test_tmpdir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    struct rl_run r = rl_test_cli(NULL, "report", "--trace", dir, "--json", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "roofline: error: "));
    ck_assert_ptr_nonnull(strstr(r.err, "no roofline trace in this folder"));
    rl_run_release(&r);
}
END_TEST

/* ---- a set built in memory ------------------------------------------------------ */

static void put(struct rl_trace_groups *g, const char *name, double time_ns, double comm_bytes)
{
    const uint32_t one[3] = {1, 1, 1};
    struct rl_trace_launch l = {.name = name, .grid = one, .block = one,
                                .origin = RL_ORIGIN_MEASURED, .launches = 1, .flops = NAN,
                                .time_ns = time_ns, .comm_bytes = comm_bytes};
    for (int m = 0; m < RL_MEM_COUNT; m++)
        l.bytes[m] = NAN;
    ck_assert_int_eq(rl_trace_groups_add_launch(g, &l), 0);
}

static void set_rank(struct rl_trace_groups *g, int rank, int world, const char *gpu,
                     const char *program, const char *host)
{
    g->sum.rank = (struct rl_trace_rank){.present = rank >= 0, .rank = rank, .local_rank = -1,
                                         .world_size = world};
    snprintf(g->sum.rank.hostname, sizeof g->sum.rank.hostname, "%s", host);
    snprintf(g->sum.gpu_name, sizeof g->sum.gpu_name, "%s", gpu);
    snprintf(g->sum.program, sizeof g->sum.program, "%s", program);
}

#define NCCL "ncclDevKernel_AllReduce_Sum_f32_RING_LL"

/* Five traces, in the loader's order: rank 0 three times (world 4), rank 2
 * (world 8, no GPU or program named), one without a rank (A100, "eval").
 *   0: gemm 3 us, NCCL 1 us with 5e5 message bytes: 4 us, comm 25%
 *   1: gemm 2 us, NCCL 0.5 us, bytes unknown: 2.5 us, comm 20%, bytes NAN
 *   2: gemm 1 us, no NCCL: comm 0, bytes NAN
 *   3: k1..k7 of 100, 700, 300, 700, 200, 600, 50 ns (2.65 us): the top five
 *      by time, ties by name: k2, k4, k6, k3, k5
 *   4: nothing: no time, share unknown
 * Sums: kernel 4000 + 2500 + 1000 + 2650 = 10150 ns, the busiest rank 4000;
 * comm 1500 (14.8%), the most on one rank 1000. Ranks seen: 0 and 2 of 8. */
START_TEST(rank_set_in_memory)
{
    struct rl_rank_traces t = {0};
    t.n = 5;
    t.paths = calloc(5, sizeof *t.paths);
    t.groups = calloc(5, sizeof *t.groups);
    for (size_t i = 0; i < 5; i++) {
        char p[32];
        snprintf(p, sizeof p, "/p/%zu.json", i);
        t.paths[i] = strdup(p);
    }
    set_rank(&t.groups[0], 0, 4, "H100", "train", "h0");
    t.groups[0].sum.rank.local_rank = 0; /* a number, 0 included; the others unknown */
    put(&t.groups[0], "gemm", 3000, NAN);
    put(&t.groups[0], NCCL, 1000, 5e5);
    set_rank(&t.groups[1], 0, 4, "H100", "train", "h0");
    put(&t.groups[1], "gemm", 2000, NAN);
    put(&t.groups[1], NCCL, 500, NAN);
    /* a host name with Markdown's specials and a tab */
    set_rank(&t.groups[2], 0, 4, "H100", "train", "h1|<*`_\tx");
    put(&t.groups[2], "gemm", 1000, NAN);
    set_rank(&t.groups[3], 2, 8, "", "", "");
    static const double k[7] = {100, 700, 300, 700, 200, 600, 50};
    for (int i = 0; i < 7; i++) {
        char name[8];
        snprintf(name, sizeof name, "k%d", i + 1);
        put(&t.groups[3], name, k[i], NAN);
    }
    set_rank(&t.groups[4], -1, -1, "A100", "eval", "");
    ck_assert(rl_rank_traces_ranked(&t));

    static struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, NULL), 0);
    struct rl_trace_groups none = {0};
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &none, err), 0);
    ck_assert_int_eq(rl_report_ranks(&r, &t, err), 0);
    ck_assert_uint_eq(r.n_ranks, 5);
    const struct rl_report_rank *x = &r.ranks[0];
    ck_assert_uint_eq(x->launches, 2);
    near(x->kernel_time_ns, 4000);
    near(x->comm_time_ns, 1000);
    near(x->comm_share, 0.25);
    near(x->comm_bytes, 5e5);
    x = &r.ranks[1];
    near(x->comm_share, 0.2);
    ck_assert(isnan(x->comm_bytes));
    x = &r.ranks[2];
    ck_assert_double_eq(x->comm_share, 0);
    ck_assert(isnan(x->comm_bytes));
    x = &r.ranks[3];
    ck_assert_uint_eq(x->n_top, RL_RANK_TOP);
    static const char *const top[] = {"k2", "k4", "k6", "k3", "k5"};
    for (int i = 0; i < RL_RANK_TOP; i++)
        ck_assert_str_eq(x->top[i].name, top[i]);
    near(x->top[4].time_ns, 200);
    x = &r.ranks[4];
    ck_assert_int_eq(x->rank, -1);
    ck_assert(isnan(x->comm_share) && isnan(x->comm_bytes));
    ck_assert_uint_eq(x->n_top, 0);

    ck_assert_msg(strstr(r.notes, "rank 0 appears in 3 traces ('/p/0.json', '/p/1.json', ...): "
                                  "each is its own entry here, and the merge sums them all"),
                  "%s", r.notes);
    ck_assert_uint_eq(rl_test_count(r.notes, "appears in"), 1);
    ck_assert_msg(strstr(r.notes, "the ranks ran on different GPUs (H100 on rank 0, A100 on "
                                  "trace 5)"),
                  "%s", r.notes);
    ck_assert_msg(strstr(r.notes, "the traces are of different programs ('train' on rank 0, "
                                  "'eval' on trace 5)"),
                  "%s", r.notes);
    ck_assert_msg(strstr(r.notes, "the job had 8 ranks, the traces are of 2: the merge covers "
                                  "only those"),
                  "%s", r.notes);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_json(f, &r, &c), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "{\"rank\": 0, \"local_rank\": 0, \"world_size\": 4, \"host\": "
                              "\"h0\", \"gpu\": \"H100\", \"launcher\": null, \"path\": "
                              "\"/p/0.json\", \"launches\": 2, \"kernel_time_ns\": 4000, "
                              "\"comm_time_ns\": 1000, \"comm_share\": 0.25, \"comm_bytes\": "
                              "500000, \"top_kernels\": [{\"name\": \"gemm\", \"time_ns\": 3000, "
                              "\"kind\": \"kernel\"}, {\"name\": \"" NCCL "\", \"time_ns\": "
                              "1000, \"kind\": \"communication\"}]},\n"),
                  "%s", buf);
    ck_assert_msg(strstr(buf, "{\"rank\": null, \"local_rank\": null, \"world_size\": null, "
                              "\"host\": null, \"gpu\": \"A100\", \"launcher\": null, \"path\": "
                              "\"/p/4.json\", \"launches\": 0, \"kernel_time_ns\": 0, "
                              "\"comm_time_ns\": 0, \"comm_share\": null, \"comm_bytes\": null, "
                              "\"top_kernels\": []}\n  ],\n  \"merged\": {\"ranks\": 5, "
                              "\"kernel_time_ns_sum\": 10150, \"kernel_time_ns_max_rank\": 4000, "
                              "\"comm_time_ns_sum\": 1500, \"comm_time_ns_max_rank\": 1000, "
                              "\"comm_share\": 0.14778"),
                  "%s", buf);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_markdown(f, &r, &c, NULL), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "| 0 | h0 | H100 | 0.004 ms | 0.001 ms | 25% | gemm, "
                              "ncclDevKernel\\_AllReduce\\_Sum\\_f32\\_RING\\_LL |\n"),
                  "%s", buf);
    /* the third trace's host escaped, its tab a space */
    ck_assert_msg(strstr(buf, "| 0 | h1\\|\\<\\*\\`\\_ x | H100 | 0.001 ms | 0 ms | 0% | gemm |\n"),
                  "%s", buf);
    ck_assert_msg(strstr(buf, "| 2 | - | - | 0.00265 ms | 0 ms | 0% | k2, k4, k6 |\n"), "%s",
                  buf);
    ck_assert_msg(strstr(buf, "| - | - | A100 | 0 ms | 0 ms | - |  |\n"), "%s", buf);
    ck_assert_msg(strstr(buf, "Merged over 5 traces: 0.01015 ms of kernel time summed, 0.004 ms "
                              "on the busiest rank (the step's time when the ranks run "
                              "together); communication 14.8% of the sum."),
                  "%s", buf);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    rl_report_table(f, &r, &c, 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "merged: 5 traces; kernel time 0.01015 ms summed, 0.004 ms on the "
                              "busiest rank; communication 14.8% of it\n"),
                  "%s", buf);
    ck_assert_msg(strstr(buf, "\n-      -                A100                             0  "
                              "         0       -  -\n"),
                  "%s", buf);
    free(buf);
    rl_report_release(&r);
    rl_rank_traces_release(&t);
}
END_TEST

/* Communication rows of one trace: message bytes as people read them
 * (decimal units, capped at PB), algbw = bytes / time, their share, the
 * notes. Four NCCL groups of 1 us each and a 6 us GEMM: 4 of 10 us = 40%.
 *   a: 1000 B -> "1 kB" at 1 GB/s; b: 999 B -> "999 B" at 0.999 GB/s;
 *   c: 2e18 B -> 2000 PB (plain digits, never "2e+03 PB"); d: bytes unknown */
START_TEST(comm_rows_and_notes)
{
    struct rl_trace_groups g = {0};
    put(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(a)", 1000, 1000);
    put(&g, "ncclDevKernel_AllGather_RING_LL(b)", 1000, 999);
    put(&g, "ncclDevKernel_Broadcast_RING_LL(c)", 1000, 2e18);
    put(&g, "ncclDevKernel_SendRecv(d)", 1000, NAN);
    const uint32_t one[3] = {1, 1, 1};
    const double b[3] = {1e6, NAN, NAN};
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemm", one, one, "", RL_ORIGIN_MEASURED, 1, 1e9, b,
                                         6000),
                     0);
    static struct rl_ceilings c;
    ck_assert_int_eq(rl_ceilings_init(&c, h200, NULL, NULL, false, false, NULL, NULL), 0);
    struct rl_report r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    const struct rl_report_row *w = row(&r, "(a)");
    ck_assert(w->comm);
    near(w->comm_algbw_gbs, 1);
    ck_assert_msg(strstr(w->sentence, ": 10% of GPU time, communication (NCCL all-reduce): 1 kB "
                                      "of messages in 1 launch at 1 GB/s"),
                  "%s", w->sentence);
    w = row(&r, "(b)");
    ck_assert_msg(strstr(w->sentence, "communication (NCCL all-gather): 999 B of messages in 1 "
                                      "launch at 0.999 GB/s"),
                  "%s", w->sentence);
    w = row(&r, "(c)");
    ck_assert_msg(strstr(w->sentence, ": 2000 PB of messages"), "%s", w->sentence);
    w = row(&r, "(d)");
    ck_assert(isnan(w->comm_algbw_gbs));
    ck_assert_msg(strstr(w->sentence, ": 10% of GPU time, communication (NCCL send/recv): time "
                                      "only, bytes unknown"),
                  "%s", w->sentence);
    ck_assert(!row(&r, "gemm")->comm);
    near(r.comm_time_ns, 4000);
    ck_assert_msg(strstr(r.notes, "communication: 4 NCCL kernel groups took 40% of the GPU time; "
                                  "counted in time, not judged against the compute or memory roofs"),
                  "%s", r.notes);
    ck_assert_msg(strstr(r.notes, "bytes unknown: NCCL's NVTX ranges were not seen for 1 of them"),
                  "%s", r.notes);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_json(f, &r, &c), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"communication\": {\"time_ns\": 4000, \"share\": 0.4, "
                              "\"bytes_known\": false},\n"),
                  "%s", buf);
    free(buf);
    rl_report_release(&r);
    rl_trace_groups_release(&g);

    /* one NCCL group, its bytes known, beside a kernel (no message bytes,
     * not communication): singular, and bytes_known; 1 of 7 us = 14.3% */
    memset(&g, 0, sizeof g);
    put(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(a)", 1000, 1000);
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemm", one, one, "", RL_ORIGIN_MEASURED, 1, 1e9, b,
                                         6000),
                     0);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert_msg(strstr(r.notes, "communication: 1 NCCL kernel group took 14.3% of the GPU "
                                  "time"),
                  "%s", r.notes);
    ck_assert_ptr_null(strstr(r.notes, "bytes unknown"));
    buf = NULL;
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_json(f, &r, &c), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"bytes_known\": true},\n"), "%s", buf);
    ck_assert_ptr_null(strstr(buf, "\"ranks\": ["));
    free(buf);
    rl_report_release(&r);
    rl_trace_groups_release(&g);

    /* no communication, no ranks: no section */
    memset(&g, 0, sizeof g);
    ck_assert_int_eq(rl_trace_groups_add(&g, "gemm", one, one, "", RL_ORIGIN_MEASURED, 1, 1e9, b,
                                         6000),
                     0);
    ck_assert_int_eq(rl_report_build(&r, &c, &g, err), 0);
    ck_assert(!rl__report_has_comm(&r));
    ck_assert_ptr_null(strstr(r.notes, "communication:"));
    buf = NULL;
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(rl_report_json(f, &r, &c), 0);
    fclose(f);
    ck_assert_ptr_null(strstr(buf, "\"communication\""));
    free(buf);
    rl_report_release(&r);
    rl_trace_groups_release(&g);
}
END_TEST

/* The rank a file's name gives a trace without a rank object, or -2 when
 * the name gives none (the file alone: no sorting). */
static int rank_of_named(const char *name)
{
    char path[4096], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s", write_text(name, HEAD KERNEL));
    const char *args[] = {path};
    struct rl_rank_traces t;
    ck_assert_msg(rl_rank_traces_load(&t, args, 1, err) == 0, "%s", err);
    int rank = t.groups[0].sum.rank.present ? t.groups[0].sum.rank.rank : -2;
    if (t.groups[0].sum.rank.present)
        ck_assert_int_eq(t.groups[0].sum.rank.world_size, -1);
    rl_rank_traces_release(&t);
    return rank;
}

/* rank_from_name: "rank<R>" right after a '.' or at the name's start, R
 * digits up to a '.', 0 <= R < 1e9. */
START_TEST(rank_from_file_names)
{
    ck_assert_int_eq(rank_of_named("t.rank0.json"), 0);          /* rank 0 is a rank */
    ck_assert_int_eq(rank_of_named("rank5.json"), 5);            /* at the name's start */
    ck_assert_int_eq(rank_of_named("trank5.json"), -2);          /* 't' before it: a word */
    ck_assert_int_eq(rank_of_named("t.rank7x.json"), -2);        /* digits then 'x', not '.' */
    ck_assert_int_eq(rank_of_named("a.rankx.rank4.json"), 4);    /* the second "rank" */
    ck_assert_int_eq(rank_of_named("t.rank999999999.json"), 999999999); /* 1e9 - 1 */
    ck_assert_int_eq(rank_of_named("t.rank1000000000.json"), -2);       /* 1e9: too big */
}
END_TEST

static Suite *ranks_suite(void)
{
    Suite *s = suite_create("ranks");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, nccl_kernel_names);
    tcase_add_test(core, nccl_nvtx_payload);
    tcase_add_test(core, rank_from_environment);
    tcase_add_test(core, rank_trace_names);
    tcase_add_test(core, rank_files_match_the_schema);
    tcase_add_test(core, reader_keeps_rank_and_comm_bytes);
    tcase_add_test(core, two_ranks_per_rank_and_merged);
    tcase_add_test(core, four_ranks_sorted_with_unknown_bytes);
    tcase_add_test(core, report_command_json);
    tcase_add_test(core, report_command_files);
    tcase_add_test(core, writer_round_trip);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, odd_sets_give_notes);
    tcase_add_test(limits, rank_set_in_memory);
    tcase_add_test(limits, comm_rows_and_notes);
    tcase_add_test(limits, bad_and_old_rank_objects);
    tcase_add_test(limits, folder_without_traces);
    tcase_add_test(limits, a_file_then_a_folder);
    tcase_add_test(limits, trace_errors_name_the_rank);
    tcase_add_test(limits, rank_from_file_names);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(ranks_suite()); }
