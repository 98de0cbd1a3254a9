/* check_comm.c - tests of the collective model: nccl-tests' bus factors and the analytic time of each collective, against hand-worked values. */
#include "test_util.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/system.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPUs and nodes built on the stack, from their datasheets' links. */
static struct rl_gpu_spec gpu(const char *id, const char *link, int count, double per_link,
                              const char *reach, int bridge, int pcie_gen, double pcie_gbs)
{
    struct rl_gpu_spec s;
    memset(&s, 0, sizeof s);
    snprintf(s.id, sizeof s.id, "%s", id);
    snprintf(s.links.name, sizeof s.links.name, "%s", link);
    s.links.count = count;
    s.links.gbs_per_link = count ? per_link : NAN;
    s.links.gbs = count ? count * per_link : NAN;
    snprintf(s.links.reach, sizeof s.links.reach, "%s", reach);
    s.links.bridge_gpus = bridge;
    s.links.pcie_gen = pcie_gen;
    s.links.pcie_lanes = 16;
    s.links.pcie_gbs = pcie_gbs;
    return s;
}

static struct rl_gpu_spec h100(void)
{
    return gpu("h100-sxm", "NVLink 4", 18, 25, "switch", 0, 5, 64);
}

static struct rl_system dgx_h100(void)
{
    struct rl_system s;
    memset(&s, 0, sizeof s);
    strcpy(s.id, "dgx-h100");
    strcpy(s.name, "NVIDIA DGX H100");
    strcpy(s.gpu, "h100-sxm");
    s.gpus_per_node = 8;
    s.domain_gpus = 8;
    strcpy(s.topology, "switch");
    strcpy(s.intra_link, "NVLink 4 through NVSwitch");
    s.intra_gbs = 450;
    strcpy(s.pcie_link, "PCIe Gen5 x16");
    s.pcie_gbs = 64;
    s.nics_per_node = 8;
    s.nic_gbps = 400;
    strcpy(s.nic, "8 x 400 Gb/s NDR");
    return s;
}

static struct rl_comm_prediction predict(const struct rl_fabric *f, enum rl_collective c,
                                         double bytes)
{
    struct rl_comm_prediction p;
    char err[RL_ERRMSG_SIZE] = "";
    int rc = rl_comm_predict(f, c, bytes, &p, err);
    ck_assert_msg(rc == 0, "%s", err);
    return p;
}

static struct rl_fabric fabric(const struct rl_gpu_spec *s, const struct rl_system *sys,
                               int gpus, int nodes)
{
    struct rl_fabric f;
    char err[RL_ERRMSG_SIZE] = "";
    int rc = rl_fabric_build(&f, s, sys, gpus, nodes, NAN, 0, err);
    ck_assert_msg(rc == 0, "%s", err);
    return f;
}

START_TEST(bus_factors_are_nccl_tests)
{
    /* doc/PERFORMANCE.md: 2(n-1)/n, (n-1)/n, 1. */
    ck_assert_double_eq_tol(rl_collective_bus_factor(RL_COLL_ALLREDUCE, 8), 14.0 / 8, 1e-12);
    ck_assert_double_eq_tol(rl_collective_bus_factor(RL_COLL_ALLGATHER, 8), 7.0 / 8, 1e-12);
    ck_assert_double_eq_tol(rl_collective_bus_factor(RL_COLL_REDUCESCATTER, 4), 3.0 / 4, 1e-12);
    ck_assert_double_eq_tol(rl_collective_bus_factor(RL_COLL_ALLTOALL, 16), 15.0 / 16, 1e-12);
    ck_assert_double_eq(rl_collective_bus_factor(RL_COLL_BROADCAST, 8), 1);
    ck_assert_double_eq(rl_collective_bus_factor(RL_COLL_SENDRECV, 2), 1);
    ck_assert_double_eq(rl_collective_bus_factor(RL_COLL_ALLREDUCE, 1), 0);
    ck_assert(isnan(rl_collective_bus_factor(RL_COLL_ALLREDUCE, 0)));
}
END_TEST

START_TEST(names_parse)
{
    ck_assert_int_eq(rl_collective_parse("allreduce"), RL_COLL_ALLREDUCE);
    ck_assert_int_eq(rl_collective_parse("all-reduce"), RL_COLL_ALLREDUCE);
    ck_assert_int_eq(rl_collective_parse("Reduce_Scatter"), RL_COLL_REDUCESCATTER);
    ck_assert_int_eq(rl_collective_parse("send-recv"), RL_COLL_SENDRECV);
    ck_assert_int_eq(rl_collective_parse("p2p"), RL_COLL_SENDRECV);
    ck_assert_int_eq(rl_collective_parse("alltoall"), RL_COLL_ALLTOALL);
    ck_assert_int_eq(rl_collective_parse("reduce"), -1);
    ck_assert_int_eq(rl_collective_parse(""), -1);
    for (int c = 0; c < RL_COLL_COUNT; c++)
        ck_assert_int_eq(rl_collective_parse(rl_collective_name(c)), c);
}
END_TEST

/* The example: all-reduce of 1 GiB on 8 H100 SXM over NVSwitch, 450
 * GB/s per direction: bandwidth term 2^30 x 14/8 / 450e9 = 4175.7 us
 * (algbw 450 x 8/14 = 257.1 GB/s); latency 14 steps x 1.9 us = 26.6 us;
 * time 4202.3 us, algbw 2^30 / 4202.3 us = 255.51 GB/s, busbw x 1.75 = 447.2. */
START_TEST(allreduce_8_h100)
{
    struct rl_gpu_spec s = h100();
    struct rl_fabric f = fabric(&s, NULL, 8, 1);
    struct rl_comm_prediction p = predict(&f, RL_COLL_ALLREDUCE, 1073741824.0);
    ck_assert_double_eq(p.link_gbs, 450);
    ck_assert_str_eq(p.link, "NVLink 4 (switch)");
    ck_assert_double_eq_tol(p.bandwidth_us, 4175.66, 0.01);
    ck_assert_int_eq(p.steps, 14);
    ck_assert_double_eq_tol(p.latency_us, 26.6, 1e-9);
    ck_assert_double_eq_tol(p.time_us, 4202.26, 0.01);
    ck_assert_double_eq_tol(p.algbw_gbs, 255.51, 0.01);
    ck_assert_double_eq_tol(p.busbw_gbs, 447.16, 0.01);
    ck_assert_int_eq(p.origin, RL_ORIGIN_ANALYTIC);
    ck_assert_int_eq(p.link_origin, RL_ORIGIN_DATASHEET);
    /* Bandwidth-bound: busbw tends to the link. */
    struct rl_comm_prediction big = predict(&f, RL_COLL_ALLREDUCE, 1e12);
    ck_assert_double_eq_tol(big.busbw_gbs, 450, 0.01);
    ck_assert_str_eq(p.protocol, "Simple");
    /* Latency-bound: 8 bytes go by LL, 14 steps x 0.47 us = 6.58 us plus
     * 8 x 14/8 / (450e9 / 4) = 0.000124 us. */
    struct rl_comm_prediction tiny = predict(&f, RL_COLL_ALLREDUCE, 8);
    ck_assert_double_eq_tol(tiny.time_us, 6.580124, 1e-6);
    ck_assert_str_eq(tiny.protocol, "LL");
    /* The crossover: LL's 6.58 + 1.75 x B / 112.5e9 against Simple's 26.6 +
     * 1.75 x B / 450e9: equal at B = 20.02 us / (1.75 x (4 - 1) / 450e9) =
     * 1.716 MB; 1 MiB still goes by LL, 2 MiB by Simple. */
    ck_assert_str_eq(predict(&f, RL_COLL_ALLREDUCE, 1048576).protocol, "LL");
    ck_assert_str_eq(predict(&f, RL_COLL_ALLREDUCE, 2097152).protocol, "Simple");
}
END_TEST

/* Every collective on one DGX H100 (8 GPUs) at 1 GB:
 * all-gather: 1e9 x 7/8 / 450e9 = 1944.44 us + 7 x 1.9 = 13.3 -> 1957.74;
 * all-to-all: 1e9 x 7/8 / 450e9 the same bandwidth term (d = n);
 * broadcast: 1e9 / 450e9 = 2222.22 + 13.3 = 2235.52;
 * send/recv: 1e9 / 450e9 + 1.9 = 2224.12. */
START_TEST(every_collective_in_a_node)
{
    struct rl_gpu_spec s = h100();
    struct rl_system sys = dgx_h100();
    struct rl_fabric f = fabric(&s, &sys, 8, 1);
    ck_assert_double_eq_tol(predict(&f, RL_COLL_ALLGATHER, 1e9).time_us, 1957.74, 0.01);
    ck_assert_double_eq_tol(predict(&f, RL_COLL_REDUCESCATTER, 1e9).time_us, 1957.74, 0.01);
    ck_assert_double_eq_tol(predict(&f, RL_COLL_ALLTOALL, 1e9).time_us, 1957.74, 0.01);
    ck_assert_double_eq_tol(predict(&f, RL_COLL_BROADCAST, 1e9).time_us, 2235.52, 0.01);
    struct rl_comm_prediction sr = predict(&f, RL_COLL_SENDRECV, 1e9);
    ck_assert_double_eq_tol(sr.time_us, 2224.12, 0.01);
    ck_assert_int_eq(sr.steps, 1);
}
END_TEST

/* Two DGX H100 (16 GPUs): the ring leaves each node through its 8 x 400
 * Gb/s = 400 GB/s of NICs, below NVLink's 450: busbw bound 400.
 * all-reduce 1 GiB: 2^30 x 30/16 / 400e9 = 5033.16 us; steps 30, 2 of them
 * between nodes: 28 x 1.9 + 2 x 4.0 = 61.2 us.
 * all-to-all 1 GiB: d = 8, 8 of 16 parts leave the node: 8 x 2^30 x 8/16 /
 * 400e9 = 10737.42 us (inside: 2^30 x 7/16 / 450e9 = 1043.97 us, hidden);
 * busbw = 15/16 x 2^30 / t = 93.75 GB/s + latency. */
START_TEST(two_nodes_bound_by_nics)
{
    struct rl_gpu_spec s = h100();
    struct rl_system sys = dgx_h100();
    struct rl_fabric f = fabric(&s, &sys, 16, 2);
    struct rl_comm_prediction ar = predict(&f, RL_COLL_ALLREDUCE, 1073741824.0);
    ck_assert_double_eq(ar.link_gbs, 400);
    ck_assert(strstr(ar.link, "NIC") != NULL);
    ck_assert_double_eq_tol(ar.bandwidth_us, 5033.16, 0.01);
    ck_assert_double_eq_tol(ar.latency_us, 61.2, 1e-9);
    struct rl_comm_prediction a2a = predict(&f, RL_COLL_ALLTOALL, 1073741824.0);
    ck_assert_double_eq_tol(a2a.bandwidth_us, 10737.42, 0.01);
    ck_assert(strstr(a2a.link, "NIC") != NULL);
    /* send/recv across nodes: one GPU's NIC share, 400 / 8 = 50 GB/s. */
    struct rl_comm_prediction sr = predict(&f, RL_COLL_SENDRECV, 1e9);
    ck_assert_double_eq(sr.link_gbs, 50);
    ck_assert_double_eq_tol(sr.bandwidth_us, 20000, 1e-6);
}
END_TEST

/* PCIe only (8 x L40S: no NVLink, Gen4 x16 = 32 GB/s per direction): every
 * GPU its own domain; a ring over PCIe: all-reduce 1 GB = 1e9 x 14/8 / 32e9
 * = 54687.5 us + 14 x 2.5 us. */
START_TEST(pcie_only)
{
    struct rl_gpu_spec s = gpu("l40s", "", 0, 0, "", 0, 4, 32);
    struct rl_fabric f = fabric(&s, NULL, 8, 1);
    struct rl_comm_prediction p = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 32);
    ck_assert_str_eq(p.link, "PCIe Gen4 x16");
    ck_assert_double_eq_tol(p.time_us, 54687.5 + 35, 1e-6);
}
END_TEST

/* Bridged pairs (A100 PCIe, NVLink 3 bridge of 2, 12 x 25 = 300 GB/s):
 * two GPUs over the bridge; four cross PCIe between the pairs, 2 x 32 =
 * 64 GB/s per pair: bound 64. */
START_TEST(bridged_pairs)
{
    struct rl_gpu_spec s = gpu("a100-pcie-80gb", "NVLink 3", 12, 25, "bridge", 2, 4, 32);
    struct rl_fabric two = fabric(&s, NULL, 2, 1);
    ck_assert_double_eq(predict(&two, RL_COLL_ALLREDUCE, 1e9).link_gbs, 300);
    struct rl_fabric four = fabric(&s, NULL, 4, 1);
    struct rl_comm_prediction p = predict(&four, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 64);
    /* send/recv between pairs: one GPU's PCIe link. */
    ck_assert_double_eq(predict(&four, RL_COLL_SENDRECV, 1e9).link_gbs, 32);
}
END_TEST

/* A board mesh (MI300X: 7 links of 64 GB/s per direction): 8 GPUs use all
 * 7 (448 GB/s), 4 GPUs only the 3 that reach the others (192 GB/s). */
START_TEST(mesh_uses_the_links_it_has)
{
    struct rl_gpu_spec s = gpu("mi300x", "Infinity Fabric", 7, 64, "mesh", 0, 5, 64);
    struct rl_fabric eight = fabric(&s, NULL, 8, 1);
    ck_assert_double_eq(predict(&eight, RL_COLL_ALLREDUCE, 1e9).link_gbs, 448);
    struct rl_fabric four = fabric(&s, NULL, 4, 1);
    ck_assert_double_eq(predict(&four, RL_COLL_ALLREDUCE, 1e9).link_gbs, 192);
}
END_TEST

/* Fewer GPUs per node than a node holds, and domains that span nodes:
 * - pipeline neighbours one per DGX H100 node (2 GPUs, 2 nodes): not over
 *   NVLink; each GPU reaches its own NIC (8 NICs / 8 GPUs): 400 Gb/s = 50
 *   GB/s per direction; send/recv 1 GB = 20000 us + 4 us;
 * - 4 GPUs per node on 2 DGX: half the NICs, 200 GB/s per node;
 * - a GB200 NVL72 (4 GPUs per tray, 72 in one NVLink domain): 8 GPUs on 2
 *   trays stay on NVLink 5 (900 GB/s); 144 on 36 trays cross between two
 *   racks over 18 trays x 4 x 400 Gb/s = 3600 GB/s per domain, above the
 *   900 of NVLink: NVLink binds the ring; all-to-all (72 of 144 parts
 *   leave): 72 x 2^30 x 72/144 / 3600e9 = 10737.4 us. */
START_TEST(partial_nodes_and_spanning_domains)
{
    struct rl_gpu_spec s = h100();
    struct rl_system sys = dgx_h100();
    struct rl_fabric pp = fabric(&s, &sys, 2, 2);
    struct rl_comm_prediction p = predict(&pp, RL_COLL_SENDRECV, 1e9);
    ck_assert_double_eq(p.link_gbs, 50);
    ck_assert(strstr(p.link, "NIC") != NULL);
    ck_assert_double_eq_tol(p.time_us, 20004, 1e-6);
    ck_assert_double_eq(predict(&pp, RL_COLL_ALLREDUCE, 1e9).link_gbs, 50);
    struct rl_fabric half = fabric(&s, &sys, 8, 2);
    ck_assert_double_eq(predict(&half, RL_COLL_ALLREDUCE, 1e9).link_gbs, 200);

    struct rl_gpu_spec b = gpu("b200", "NVLink 5", 18, 50, "switch", 0, 5, 64);
    struct rl_system nvl;
    memset(&nvl, 0, sizeof nvl);
    strcpy(nvl.id, "gb200-nvl72");
    strcpy(nvl.gpu, "b200");
    nvl.gpus_per_node = 4;
    nvl.domain_gpus = 72;
    strcpy(nvl.intra_link, "NVLink 5 through NVLink Switch trays");
    nvl.intra_gbs = 900;
    nvl.nics_per_node = 4;
    nvl.nic_gbps = 400;
    struct rl_fabric two_trays = fabric(&b, &nvl, 8, 2);
    struct rl_comm_prediction q = predict(&two_trays, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(q.link_gbs, 900);
    ck_assert(strstr(q.link, "NVLink 5") != NULL);
    struct rl_fabric racks = fabric(&b, &nvl, 144, 36);
    ck_assert_double_eq(predict(&racks, RL_COLL_ALLREDUCE, 1e9).link_gbs, 900);
    struct rl_comm_prediction a2a = predict(&racks, RL_COLL_ALLTOALL, 1073741824.0);
    ck_assert_double_eq(a2a.link_gbs, 3600);
    ck_assert_double_eq_tol(a2a.bandwidth_us, 10737.42, 0.01);
}
END_TEST

START_TEST(bad_fabrics_are_refused)
{
    struct rl_gpu_spec s = h100();
    struct rl_fabric f;
    char err[RL_ERRMSG_SIZE] = "";
    /* 12 GPUs over 5 nodes */
    ck_assert_int_eq(rl_fabric_build(&f, &s, NULL, 12, 5, NAN, 0, err), RL_EINVAL);
    /* two nodes and no NIC rate */
    ck_assert_int_eq(rl_fabric_build(&f, &s, NULL, 16, 2, NAN, 0, err), RL_EINVAL);
    ck_assert(strstr(err, "--nic-gbps") != NULL);
    /* 16 SXM GPUs in one node without an NVLink domain that large */
    ck_assert_int_eq(rl_fabric_build(&f, &s, NULL, 16, 1, NAN, 0, err), RL_EINVAL);
    /* a system of another GPU */
    struct rl_system sys = dgx_h100();
    struct rl_gpu_spec b = gpu("b200", "NVLink 5", 18, 50, "switch", 0, 5, 64);
    ck_assert_int_eq(rl_fabric_build(&f, &b, &sys, 8, 1, NAN, 0, err), RL_EINVAL);
    /* more GPUs per node than the system has */
    ck_assert_int_eq(rl_fabric_build(&f, &s, &sys, 16, 1, NAN, 0, err), RL_EINVAL);
    /* a NIC rate given: 2 nodes of 8, 8 x 200 Gb/s = 200 GB/s */
    ck_assert_int_eq(rl_fabric_build(&f, &s, NULL, 16, 2, 200, 8, err), 0);
    struct rl_comm_prediction p = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 200);
    ck_assert_int_eq(p.link_origin, RL_ORIGIN_ANALYTIC);
    /* send/recv on one GPU; negative sizes */
    struct rl_fabric one = fabric(&s, NULL, 1, 1);
    struct rl_comm_prediction q;
    ck_assert_int_eq(rl_comm_predict(&one, RL_COLL_SENDRECV, 8, &q, err), RL_EINVAL);
    ck_assert_int_eq(rl_comm_predict(&one, RL_COLL_ALLREDUCE, -1, &q, err), RL_EINVAL);
    /* one GPU: no traffic */
    ck_assert_int_eq(rl_comm_predict(&one, RL_COLL_ALLREDUCE, 8, &q, err), 0);
    ck_assert_double_eq(q.time_us, 0);
    ck_assert(isnan(q.busbw_gbs));
}
END_TEST

/* ---- the command ---- */

#define RUN(...) rl_test_cli(NULL, __VA_ARGS__, (const char *)NULL)

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "no number '%s'", key);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsString(v), "no string '%s'", key);
    return v->valuestring;
}

/* The example from the shipped datasheet (data/gpus/h100-sxm.json:
 * 18 x 25 GB/s), every key it names. */
START_TEST(cli_allreduce_json)
{
    struct rl_run r = RUN("comm", "--gpu", "h100-sxm", "--gpus", "8", "--collective",
                          "allreduce", "--bytes", "1GiB", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(str(doc, "collective"), "allreduce");
    ck_assert_double_eq(num(doc, "gpus"), 8);
    ck_assert_double_eq(num(doc, "nodes"), 1);
    ck_assert_double_eq(num(doc, "bytes"), 1073741824.0);
    ck_assert(strstr(str(doc, "link"), "NVLink 4") != NULL);
    ck_assert_double_eq(num(doc, "link_gbs_per_direction"), 450);
    ck_assert_double_eq_tol(num(doc, "algbw_gbs"), 255.51, 0.01);
    ck_assert_double_eq_tol(num(doc, "busbw_gbs"), 447.16, 0.01);
    ck_assert_double_eq_tol(num(doc, "time_us"), 4202.26, 0.01);
    ck_assert_str_eq(str(doc, "origin"), "analytic");
    /* 450 is the datasheet's 900 (both directions) halved: derived, so analytic */
    ck_assert_str_eq(str(doc, "link_origin"), "analytic");
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

/* Every collective, for every GPU of the database, answers (a GPU without
 * NVLink over PCIe), and a sweep gives one prediction per size and collective. */
START_TEST(cli_every_gpu_every_collective)
{
    const char *const gpus[] = {"v100-sxm2", "a100-sxm-80gb", "a100-pcie-80gb", "h100-sxm",
                                "h100-pcie", "h100-nvl", "h200", "b200", "gh200", "l4",
                                "l40s", "rtx-3090", "rtx-4090", NULL};
    for (int i = 0; gpus[i]; i++) {
        struct rl_run r = RUN("comm", "--gpu", gpus[i], "--gpus", "2", "--min-bytes", "8",
                              "--max-bytes", "1M", "--json");
        ck_assert_msg(r.status == 0, "%s: %s", gpus[i], r.err);
        cJSON *doc = cJSON_Parse(r.out);
        const cJSON *p = cJSON_GetObjectItem(doc, "predictions");
        /* 6 collectives x 18 sizes (8 B .. 1 MiB) */
        ck_assert_int_eq(cJSON_GetArraySize(p), 6 * 18);
        const cJSON *it;
        cJSON_ArrayForEach(it, p) {
            ck_assert(num(it, "time_us") > 0);
            ck_assert(num(it, "busbw_gbs") <= num(it, "link_gbs_per_direction") + 1e-9);
        }
        cJSON_Delete(doc);
        rl_run_release(&r);
    }
}
END_TEST

/* Two DGX H100 nodes: bound by the NICs (8 x 400 Gb/s), from the system file. */
START_TEST(cli_system_two_nodes)
{
    struct rl_run r = RUN("comm", "--system", "dgx-h100", "--gpus", "16", "--collective",
                          "allreduce", "--bytes", "1G", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_double_eq(num(doc, "nodes"), 2);
    ck_assert_double_eq(num(doc, "link_gbs_per_direction"), 400);
    ck_assert(strstr(str(doc, "link"), "NIC") != NULL);
    ck_assert_str_eq(str(doc, "system"), "dgx-h100");
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

START_TEST(cli_bad_usage)
{
    struct {
        const char *a[10];
        const char *msg;
    } cases[] = {
        {{"comm", "--gpu", "h100-sxm", "--gpus", "8", "--collective", "allredux", NULL},
         "did you mean 'allreduce'"},
        {{"comm", "--gpu", "h100-sxm", "--gpus", "8", "--bytes", "12Q", NULL}, "--bytes"},
        {{"comm", "--gpu", "h100-sxm", "--gpus", "0", NULL}, "--gpus"},
        {{"comm", "--gpus", "8", NULL}, "--gpu or --system"},
        {{"comm", "--gpu", "h100-sxm", NULL}, "--gpus is required"},
        {{"comm", "--gpu", "h100-sxm", "--gpus", "8", "--bytes", "1G", "--min-bytes", "8", NULL},
         "not both"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].a;
        struct rl_run r = rl_test_cli(NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                                      (const char *)NULL);
        ck_assert_msg(r.status == 2, "case %zu: exit %d: %s", i, r.status, r.err);
        ck_assert_msg(strstr(r.err, cases[i].msg) != NULL, "case %zu: %s", i, r.err);
        rl_run_release(&r);
    }
    /* runtime errors: exit 1, one line */
    struct rl_run r = RUN("comm", "--gpu", "h100-sxm", "--gpus", "12", "--nodes", "5");
    ck_assert_int_eq(r.status, 1);
    ck_assert(strstr(r.err, "divide evenly") != NULL);
    ck_assert_int_eq((int)rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
    r = RUN("comm", "--gpu", "h10-sxm", "--gpus", "8");
    ck_assert_int_eq(r.status, 1);
    ck_assert(strstr(r.err, "h100-sxm") != NULL);
    rl_run_release(&r);
}
END_TEST

/* Work that communicates, on the roofline (tests/data/comm/tp-layer.json,
 * H100 SXM: BF16 989.4 TFLOP/s, HBM3 3350 GB/s, NVLink 4 450 GB/s per
 * direction). A layer of 1e12 FLOP reading 1e9 bytes of HBM (1000 FLOP/B,
 * right of the 295 FLOP/B ridge) that sends 2e9 bytes: 500 FLOP per byte
 * communicated x 450 GB/s = 225 TFLOP/s < 989.4: bound by the link, whose
 * BF16 ridge is 989.4 / 0.45 = 2198.7 FLOP/B, 4.4x right of it. Timed at 8
 * ms: 125 TFLOP/s = 55.6% of 225. Sending 1e8 bytes (10000 FLOP/B: 4500
 * TFLOP/s) it stays compute-bound. */
START_TEST(cli_link_roof_on_the_roofline)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/tp.svg", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--gpu", "h100-sxm", "--kernels",
                          rl_test_data("comm/tp-layer.json"), "-o", out, "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    const cJSON *k, *ks = cJSON_GetObjectItem(doc, "kernels");
    int seen = 0;
    cJSON_ArrayForEach(k, ks) {
        const char *name = str(k, "name");
        if (strcmp(name, "tp8-mlp-layer") == 0) {
            ck_assert_str_eq(str(k, "bound"), "link");
            ck_assert_double_eq_tol(num(k, "ai_link_flop_per_byte"), 500, 1e-9);
            ck_assert_double_eq_tol(num(k, "link_attainable_tflops"), 225, 1e-9);
            ck_assert_double_eq(num(k, "link_gbs_per_direction"), 450);
            ck_assert_str_eq(str(k, "link_origin"), "analytic"); /* 900 / 2 */
            ck_assert(strstr(str(k, "sentence"), "bound by NVLink 4") != NULL);
            seen++;
        } else if (strcmp(name, "tp8-mlp-layer-timed") == 0) {
            ck_assert_str_eq(str(k, "bound"), "link");
            ck_assert_double_eq_tol(num(k, "pct_of_roof"), 125.0 / 225 * 100, 1e-6);
            seen++;
        } else if (strcmp(name, "little-comm") == 0 || strcmp(name, "gemm-local") == 0) {
            ck_assert_str_eq(str(k, "bound"), "compute");
            seen++;
        }
    }
    ck_assert_int_eq(seen, 4);
    cJSON_Delete(doc);
    /* The link roof and the communicated intensities are drawn. */
    snprintf(out, sizeof out, "%s/tp.gp", rl_test_tmpdir());
    char *gp = rl_test_slurp(out);
    ck_assert_ptr_nonnull(gp);
    ck_assert(strstr(gp, "NVLink 4 (link)") != NULL);
    ck_assert(strstr(gp, "FLOP per byte communicated") != NULL);
    free(gp);
    rl_run_release(&r);
}
END_TEST

/* `chart --comm` on tests/data/comm/synthetic.json (8 H100, all-reduce
 * out-of-place busbw 100 GB/s at 1 MiB, 300 at 4 MiB; send/recv 8 B): the
 * measured curves, their analytic predictions dashed (the file's GPU is in
 * the database), NVLink 4's 450 GB/s per direction as the ceiling. */
START_TEST(cli_chart_comm)
{
    char out[4200], gp_path[4200], dat_path[4200];
    snprintf(out, sizeof out, "%s/comm.svg", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--comm", rl_test_data("comm/synthetic.json"), "-o", out);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(gp_path, sizeof gp_path, "%s/comm.gp", rl_test_tmpdir());
    snprintf(dat_path, sizeof dat_path, "%s/comm.dat", rl_test_tmpdir());
    char *gp = rl_test_slurp(gp_path), *dat = rl_test_slurp(dat_path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(dat);
    ck_assert(strstr(gp, "NVLink 4: 450 GB/s per direction (datasheet)") != NULL);
    ck_assert(strstr(gp, "first 450 to graph 1, first 450") != NULL);
    ck_assert(strstr(gp, "title \"allreduce (measured)\"") != NULL);
    ck_assert(strstr(gp, "title \"sendrecv (measured)\"") != NULL);
    ck_assert(strstr(gp, "analytic (ring model), dashed") != NULL);
    /* measured all-reduce, out of place, in order of size */
    ck_assert(strstr(dat, "1048576 100\n4194304 300\n") != NULL);
    /* its prediction at 1 MiB, by LL: 2^20 x 14/8 / (450e9 / 4) = 16.311 us
     * + 14 x 0.47 us = 22.891 us; busbw = 2^20 / 22.891 us x 1.75 = 80.16 GB/s */
    ck_assert_msg(strstr(dat, "1048576 80.16") != NULL, "%s", dat);
    free(gp);
    free(dat);
    /* --comm draws bandwidth, not kernels */
    r = RUN("chart", "--comm", rl_test_data("comm/synthetic.json"), "--kernels", "k.json", "-o",
            out);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    /* a file that is not one: one line, exit 1, nothing written */
    snprintf(out, sizeof out, "%s/bad.svg", rl_test_tmpdir());
    r = RUN("chart", "--comm", rl_test_data("comm/tp-layer.json"), "-o", out);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq((int)rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
}
END_TEST

/* `llm` split over GPUs puts each step on the roofline against the link
 * too: Llama-3-8B on 8 L40S (no NVLink: PCIe Gen4 x16, 32 GB/s per
 * direction) at TP 8, batch 1: its FLOPs over the bytes its links carry
 * (64 all-reduces of 8 KiB x 2 x 7/8 per step and GPU). */
START_TEST(cli_llm_step_on_the_link_roof)
{
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/llm-tp", rl_test_tmpdir());
    struct rl_run r = RUN("llm", "--model", "llama-3-8b", "--gpu", "l40s", "--tp", "8", "-o", dir);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s/llm-roofline.kernels.dat", dir);
    char *dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(dat);
    const char *line = strstr(dat, "\"decode b1 step, TP 8 PP 1 DP 1 EP 1\"");
    ck_assert_ptr_nonnull(line);
    /* the last column: FLOP per byte communicated, a number */
    const char *end = strchr(line, '\n');
    const char *last = end;
    while (last > line && last[-1] != ' ')
        last--;
    double ai_link = strtod(last, NULL);
    ck_assert_msg(ai_link > 0, "%.*s", (int)(end - line), line);
    free(dat);
    /* its FLOPs per GPU (llm.json step.flops_per_gpu) / the 64 x 8192 x
     * 2 x 7/8 = 917504 bytes its links carry */
    snprintf(path, sizeof path, "%s/llm.json", dir);
    char *js = rl_test_slurp(path);
    cJSON *doc = cJSON_Parse(js);
    ck_assert_ptr_nonnull(doc);
    const cJSON *step = cJSON_GetObjectItem(doc, "step");
    double flops = num(step, "flops_per_gpu");
    const cJSON *tp = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "communication"), 0);
    ck_assert_str_eq(str(tp, "name"), "TP all-reduce");
    ck_assert_double_eq(num(tp, "bytes"), 8192);
    ck_assert_double_eq(num(tp, "calls_per_step"), 64);
    ck_assert_double_eq_tol(ai_link, flops / (64 * 8192 * 2.0 * 7 / 8), 1e-3);
    cJSON_Delete(doc);
    free(js);
    snprintf(path, sizeof path, "%s/llm-roofline.gp", dir);
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert(strstr(gp, "PCIe Gen4 x16 (link)") != NULL);
    free(gp);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm");
    TCase *tc = tcase_create("collective");
    tcase_add_test(tc, bus_factors_are_nccl_tests);
    tcase_add_test(tc, names_parse);
    tcase_add_test(tc, allreduce_8_h100);
    tcase_add_test(tc, every_collective_in_a_node);
    tcase_add_test(tc, two_nodes_bound_by_nics);
    tcase_add_test(tc, pcie_only);
    tcase_add_test(tc, bridged_pairs);
    tcase_add_test(tc, mesh_uses_the_links_it_has);
    tcase_add_test(tc, bad_fabrics_are_refused);
    tcase_add_test(tc, partial_nodes_and_spanning_domains);
    suite_add_tcase(s, tc);
    TCase *cl = tcase_create("cli");
    tcase_add_test(cl, cli_allreduce_json);
    tcase_add_test(cl, cli_every_gpu_every_collective);
    tcase_add_test(cl, cli_system_two_nodes);
    tcase_add_test(cl, cli_bad_usage);
    tcase_add_test(cl, cli_link_roof_on_the_roofline);
    tcase_add_test(cl, cli_chart_comm);
    tcase_add_test(cl, cli_llm_step_on_the_link_roof);
    suite_add_tcase(s, cl);
    return rl_test_run(s);
}
