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
    /* all-to-all: every GPU its own domain, nothing stays inside one: the
     * smallest domain (1 GPU) sends 7 of 8 parts over its PCIe: 1e9 x 7/8
     * / 32e9 = 27343.75 us + 7 x 2.5; at 0 bytes only the latency, 7 steps
     * of LL's 1.0 us over PCIe, the link still PCIe's (it was refused as
     * having none) */
    p = predict(&f, RL_COLL_ALLTOALL, 1e9);
    ck_assert_double_eq(p.link_gbs, 32);
    ck_assert_double_eq_tol(p.time_us, 27343.75 + 17.5, 1e-6);
    p = predict(&f, RL_COLL_ALLTOALL, 0);
    ck_assert_double_eq(p.link_gbs, 32);
    ck_assert_str_eq(p.link, "PCIe Gen4 x16");
    ck_assert_double_eq_tol(p.time_us, 7, 1e-12);
    ck_assert_str_eq(p.protocol, "LL");
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
    /* named as the share it is, not as the node's whole 8 x 400 Gb/s */
    ck_assert_str_eq(predict(&half, RL_COLL_ALLREDUCE, 1e9).link,
                     "NIC share of 8 x 400 Gb/s per node (8 x 400 Gb/s NDR)");
    /* the same NIC rate given (--nic-gbps 400, no --nics-per-node): one NIC
     * per GPU of the node, 8, of which the 4 GPUs use half: 200 again */
    char err[RL_ERRMSG_SIZE] = "";
    struct rl_fabric given;
    ck_assert_int_eq(rl_fabric_build(&given, &s, &sys, 8, 2, 400, 0, err), 0);
    ck_assert_double_eq(predict(&given, RL_COLL_ALLREDUCE, 1e9).link_gbs, 200);

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
    /* all-to-all on those 8: all inside the domain, 7 of 8 parts over
     * NVLink 5: 1e9 x 7/8 / 900e9 = 972.22 us (the domain's GPUs taking
     * part are the 8 of the 2 trays, not the rack's 72) */
    q = predict(&two_trays, RL_COLL_ALLTOALL, 1e9);
    ck_assert_double_eq(q.link_gbs, 900);
    ck_assert_double_eq_tol(q.bandwidth_us, 1e9 * 7 / 8 / 900e9 * 1e6, 1e-6);
    struct rl_fabric racks = fabric(&b, &nvl, 144, 36);
    ck_assert_double_eq(predict(&racks, RL_COLL_ALLREDUCE, 1e9).link_gbs, 900);
    struct rl_comm_prediction a2a = predict(&racks, RL_COLL_ALLTOALL, 1073741824.0);
    ck_assert_double_eq(a2a.link_gbs, 3600);
    ck_assert_double_eq_tol(a2a.bandwidth_us, 10737.42, 0.01);
}
END_TEST

/* Domains of unequal size (n not a multiple of d): the ring crosses the
 * boundary of the smallest one too, which has the fewest links out.
 * - 3 RTX 3090 (bridged pairs, 4 x 14.0625 = 56.25 GB/s; PCIe Gen4 x16 32):
 *   domains {0,1} and {2}; the ring leaves {2} through its one PCIe link,
 *   32 GB/s, below the pair's 2 x 32 = 64 and the bridge's 56.25: bound 32.
 * - 76 B200 of a GB200 NVL72 on 19 trays: one rack's 72 (18 trays) and one
 *   tray of 4; that tray's 4 x 400 Gb/s = 200 GB/s binds the ring (not the
 *   900 of NVLink, nor the rack's 18 x 200 = 3600). all-to-all 1 GiB: the
 *   tray's 4 ranks send 72 of 76 parts out: 4 x 2^30 x 72/76 / 200e9 =
 *   20344.58 us (the rack's 72: 72 x 2^30 x 4/76 / 3600e9 = 1130.25 us;
 *   inside: 2^30 x 71/76 / 900e9 = 1114.55 us). */
START_TEST(uneven_domains_bind_at_the_smallest)
{
    struct rl_gpu_spec g = gpu("rtx-3090", "NVLink 3", 4, 14.0625, "bridge", 2, 4, 32);
    struct rl_fabric three = fabric(&g, NULL, 3, 1);
    struct rl_comm_prediction p = predict(&three, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 32);
    ck_assert_str_eq(p.link, "PCIe Gen4 x16");
    /* four GPUs: two whole pairs, 64 per pair above the bridge: the bridge binds */
    struct rl_fabric four = fabric(&g, NULL, 4, 1);
    ck_assert_double_eq(predict(&four, RL_COLL_ALLREDUCE, 1e9).link_gbs, 56.25);

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
    struct rl_fabric f = fabric(&b, &nvl, 76, 19);
    struct rl_comm_prediction ar = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(ar.link_gbs, 200);
    ck_assert(strstr(ar.link, "NIC") != NULL);
    struct rl_comm_prediction a2a = predict(&f, RL_COLL_ALLTOALL, 1073741824.0);
    ck_assert_double_eq(a2a.link_gbs, 200);
    ck_assert_double_eq_tol(a2a.bandwidth_us, 20344.58, 0.01);
}
END_TEST

/* A mesh joins each pair of GPUs by one link (MI300X platform: 7 x 64 GB/s
 * per direction, data/systems/mi300x-platform.json: "a pair alone gets
 * 64"): a subset of the board's GPUs uses the links among them, from the
 * system file as from the GPU's, and send/recv (r to r+1, one peer) one
 * link: 1 GB / 64 GB/s = 15625 us + 1.9 us. */
START_TEST(mesh_subsets_and_one_peer)
{
    struct rl_gpu_spec s = gpu("mi300x", "Infinity Fabric", 7, 64, "mesh", 0, 5, 64);
    struct rl_system sys;
    memset(&sys, 0, sizeof sys);
    strcpy(sys.id, "mi300x-platform");
    strcpy(sys.gpu, "mi300x");
    sys.gpus_per_node = 8;
    sys.domain_gpus = 8;
    strcpy(sys.topology, "mesh");
    strcpy(sys.intra_link, "Infinity Fabric full mesh");
    sys.intra_gbs = 448;
    strcpy(sys.pcie_link, "PCIe Gen5 x16");
    sys.pcie_gbs = 64;
    sys.nics_per_node = 8;
    sys.nic_gbps = 400;
    struct rl_fabric eight = fabric(&s, &sys, 8, 1);
    ck_assert_double_eq(predict(&eight, RL_COLL_ALLREDUCE, 1e9).link_gbs, 448);
    struct rl_fabric two = fabric(&s, &sys, 2, 1);
    ck_assert_double_eq(predict(&two, RL_COLL_ALLREDUCE, 1e9).link_gbs, 64);
    struct rl_fabric four = fabric(&s, &sys, 4, 1);
    ck_assert_double_eq(predict(&four, RL_COLL_ALLREDUCE, 1e9).link_gbs, 192);
    /* the link names the links a subset uses; the whole mesh is the system's link */
    ck_assert_str_eq(four.intra_link, "Infinity Fabric full mesh (3 of 7 links)");
    ck_assert_str_eq(two.intra_link, "Infinity Fabric full mesh (1 of 7 links)");
    ck_assert_str_eq(eight.intra_link, "Infinity Fabric full mesh");
    ck_assert_str_eq(eight.peer_link, "Infinity Fabric full mesh (one link to the peer)");
    /* send/recv: one link to the next GPU, from the system and from the GPU alone */
    struct rl_comm_prediction sr = predict(&eight, RL_COLL_SENDRECV, 1e9);
    ck_assert_double_eq(sr.link_gbs, 64);
    ck_assert_double_eq_tol(sr.time_us, 15626.9, 1e-6);
    struct rl_fabric alone = fabric(&s, NULL, 8, 1);
    ck_assert_double_eq(predict(&alone, RL_COLL_SENDRECV, 1e9).link_gbs, 64);
    /* inside a switch the pair gets the whole link */
    struct rl_gpu_spec h = h100();
    struct rl_fabric sw = fabric(&h, NULL, 8, 1);
    ck_assert_double_eq(predict(&sw, RL_COLL_SENDRECV, 1e9).link_gbs, 450);
}
END_TEST

/* A switch reached over a single link is still a switch: 8 GPUs in its
 * domain at that link's 25 GB/s. A system's names are copied as they are,
 * a '%' included (never read as a format). */
START_TEST(one_link_switch_and_names_as_given)
{
    struct rl_gpu_spec one = gpu("x1", "NVLink 4", 1, 25, "switch", 0, 5, 64);
    struct rl_fabric f = fabric(&one, NULL, 8, 1);
    ck_assert_int_eq(f.domain_gpus, 8);
    ck_assert_double_eq(f.intra_gbs, 25);
    ck_assert_str_eq(f.intra_link, "NVLink 4 (switch)");
    struct rl_gpu_spec h = h100();
    struct rl_system sys = dgx_h100();
    strcpy(sys.id, "dgx-%%d");
    strcpy(sys.intra_link, "NVLink 4 at 100%% %s");
    strcpy(sys.pcie_link, "PCIe %%s");
    strcpy(sys.nic, "8 x 400 Gb/s %%");
    f = fabric(&h, &sys, 8, 1);
    ck_assert_str_eq(f.system, "dgx-%%d");
    ck_assert_str_eq(f.intra_link, "NVLink 4 at 100%% %s");
    ck_assert_str_eq(f.pcie_link, "PCIe %%s");
    ck_assert_str_eq(f.inter_link, "8 x 400 Gb/s %%");
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
    /* more GPUs than any fabric (steps 2(n-1) would overflow an int) */
    struct rl_gpu_spec l = gpu("l40s", "", 0, 0, "", 0, 4, 32);
    ck_assert_int_eq(rl_fabric_build(&f, &l, NULL, 2000000000, 1, NAN, 0, err), RL_EINVAL);
    ck_assert_int_eq(rl_fabric_build(&f, &l, NULL, RL_FABRIC_MAX_GPUS, 1, NAN, 0, err), 0);
    /* send/recv on one GPU; negative sizes */
    struct rl_fabric one = fabric(&s, NULL, 1, 1);
    struct rl_comm_prediction q;
    ck_assert_int_eq(rl_comm_predict(&one, RL_COLL_SENDRECV, 8, &q, err), RL_EINVAL);
    ck_assert_int_eq(rl_comm_predict(&one, RL_COLL_ALLREDUCE, -1, &q, err), RL_EINVAL);
    /* one GPU: no traffic */
    ck_assert_int_eq(rl_comm_predict(&one, RL_COLL_ALLREDUCE, 8, &q, err), 0);
    ck_assert_double_eq(q.time_us, 0);
    ck_assert(isnan(q.busbw_gbs));
    ck_assert(isnan(q.link_gbs) && isnan(q.algbw_gbs));
    ck_assert_str_eq(q.link, "none (one GPU)");
    ck_assert_str_eq(q.protocol, "none");
}
END_TEST

/* Names and factors at their edges: an unknown collective is "?" and has
 * no factor; spaces, '-' and '_' are dropped; a name of 31 characters is
 * read, one of 32 (the buffer) is not. */
START_TEST(names_and_factors_at_the_edges)
{
    ck_assert_str_eq(rl_collective_name(RL_COLL_COUNT), "?");
    ck_assert_str_eq(rl_collective_name((enum rl_collective)-1), "?");
    ck_assert_str_eq(rl_collective_name(RL_COLL_SENDRECV), "sendrecv");
    ck_assert(isnan(rl_collective_bus_factor(RL_COLL_COUNT, 8)));
    ck_assert(isnan(rl_collective_bus_factor(RL_COLL_BROADCAST, 0)));
    ck_assert_double_eq(rl_collective_bus_factor(RL_COLL_BROADCAST, 1), 1);
    ck_assert_double_eq(rl_collective_bus_factor(RL_COLL_ALLGATHER, 1), 0);
    ck_assert_double_eq_tol(rl_collective_bus_factor(RL_COLL_ALLREDUCE, 2), 1, 1e-15);
    ck_assert_int_eq(rl_collective_parse(NULL), -1);
    ck_assert_int_eq(rl_collective_parse("all reduce"), RL_COLL_ALLREDUCE);
    ck_assert_int_eq(rl_collective_parse("ALL_TO_ALL"), RL_COLL_ALLTOALL);
    ck_assert_int_eq(rl_collective_parse("P2P"), RL_COLL_SENDRECV);
    ck_assert_int_eq(rl_collective_parse("broadcastx"), -1);
    char name[40];
    snprintf(name, sizeof name, "broadcast%s", "----------------------"); /* 9 + 22 = 31 */
    ck_assert_uint_eq(strlen(name), 31);
    ck_assert_int_eq(rl_collective_parse(name), RL_COLL_BROADCAST);
    strcat(name, "-");
    ck_assert_int_eq(rl_collective_parse(name), -1);
    ck_assert_ptr_eq(rl_collective_names()[RL_COLL_COUNT], NULL);
    ck_assert_str_eq(rl_collective_names()[RL_COLL_ALLGATHER], "allgather");
}
END_TEST

/* Fabrics at their limits:
 * - an NVSwitch baseboard joins 8: 8 SXM GPUs a node are one domain, 9
 *   are refused;
 * - NICs given: 2 nodes of 8 H100 with 4 x 100 Gb/s = 50 GB/s a node,
 *   named as given (no product); all-reduce 1 GB: 1e9 x 30/16 / 50e9 =
 *   37500 us + 28 x 1.9 + 2 x 4.0 = 61.2 us (Simple);
 * - a GPU with no link and no PCIe generation: its PCIe by rate, named
 *   "PCIe": 2 of them, 16 GB/s: 1e9 / 16e9 = 62500 us + 2 x 2.5 us;
 * - nothing known (no link, no PCIe rate): RL_ENOTFOUND;
 * - a board mesh of 8 (7 x 64 GB/s) holding 16 a node: two domains of 8
 *   meet over PCIe, 8 x 64 = 512 GB/s a domain above the mesh's 448, which
 *   binds the ring; all-to-all sends 8 of 16 parts out of each domain: 8 x
 *   1e9 x 8/16 / 512e9 = 7812.5 us (inside: 1e9 x 7/16 / 448e9 = 976.6 us);
 *   send/recv across the domains one GPU's PCIe, 64 GB/s: 15625 us;
 * - domains wider than a node: an NVL72 of 4-GPU trays spans 18 trays. */
START_TEST(fabrics_at_their_limits)
{
    struct rl_gpu_spec h = h100();
    struct rl_fabric f;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 8, 1, NAN, 0, err), 0);
    ck_assert_int_eq(f.domain_gpus, 8);
    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 9, 1, NAN, 0, err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "an NVSwitch baseboard joins 8"));
    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 0, 1, NAN, 0, err), RL_EINVAL);
    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 8, 0, NAN, 0, err), RL_EINVAL);
    ck_assert_int_eq(rl_fabric_build(&f, NULL, NULL, 8, 1, NAN, 0, err), RL_EINVAL);

    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 16, 2, 100, 4, err), 0);
    ck_assert_int_eq(f.nics_per_node, 4);
    ck_assert_double_eq(f.nic_gbs, 12.5);
    struct rl_comm_prediction p = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 50);
    ck_assert_str_eq(p.link, "NICs: 4 x 100 Gb/s per node");
    ck_assert_int_eq(p.link_origin, RL_ORIGIN_ANALYTIC);
    ck_assert_double_eq_tol(p.time_us, 37500 + 61.2, 1e-6);
    ck_assert_str_eq(p.protocol, "Simple");

    struct rl_gpu_spec bare = gpu("bare", "", 0, 0, "", 0, 0, 16);
    struct rl_fabric two = fabric(&bare, NULL, 2, 1);
    p = predict(&two, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 16);
    ck_assert_str_eq(p.link, "PCIe");
    ck_assert_double_eq_tol(p.time_us, 62500 + 5, 1e-6);
    struct rl_gpu_spec none = gpu("none", "", 0, 0, "", 0, 0, NAN);
    struct rl_fabric nf = fabric(&none, NULL, 2, 1);
    struct rl_comm_prediction q;
    ck_assert_int_eq(rl_comm_predict(&nf, RL_COLL_ALLREDUCE, 1e9, &q, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "no link bandwidth known"));

    struct rl_gpu_spec mi = gpu("mi300x", "Infinity Fabric", 7, 64, "mesh", 0, 5, 64);
    struct rl_fabric sixteen = fabric(&mi, NULL, 16, 1);
    ck_assert_int_eq(sixteen.domain_gpus, 8);
    ck_assert_double_eq(predict(&sixteen, RL_COLL_ALLREDUCE, 1e9).link_gbs, 448);
    p = predict(&sixteen, RL_COLL_ALLTOALL, 1e9);
    ck_assert_double_eq(p.link_gbs, 512);
    ck_assert_str_eq(p.link, "PCIe Gen5 x16");
    ck_assert_double_eq_tol(p.bandwidth_us, 7812.5, 1e-6);
    p = predict(&sixteen, RL_COLL_SENDRECV, 1e9);
    ck_assert_double_eq(p.link_gbs, 64);
    ck_assert_double_eq_tol(p.bandwidth_us, 15625, 1e-6);

    struct rl_gpu_spec b = gpu("b200", "NVLink 5", 18, 50, "switch", 0, 5, 64);
    struct rl_system nvl;
    memset(&nvl, 0, sizeof nvl);
    strcpy(nvl.id, "gb200-nvl72");
    strcpy(nvl.gpu, "b200");
    nvl.gpus_per_node = 4;
    nvl.domain_gpus = 72;
    nvl.intra_gbs = 900;
    nvl.nics_per_node = 4;
    nvl.nic_gbps = 400;
    ck_assert_int_eq(fabric(&b, &nvl, 8, 2).domain_nodes, 18);
    struct rl_system dgx = dgx_h100();
    ck_assert_int_eq(fabric(&h, &dgx, 8, 1).domain_nodes, 1);
    nvl.domain_gpus = 4; /* a domain of one tray */
    ck_assert_int_eq(fabric(&b, &nvl, 8, 2).domain_nodes, 1);
}
END_TEST

/* Sizes the model refuses, and none: NaN, infinite, negative bytes and an
 * unknown collective are RL_EINVAL; 0 bytes cost only the latency (LL: 14
 * x 0.47 us on 8 H100s). */
START_TEST(sizes_refused_and_zero)
{
    struct rl_gpu_spec s = h100();
    struct rl_fabric f = fabric(&s, NULL, 8, 1);
    struct rl_comm_prediction p;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_ALLREDUCE, NAN, &p, err), RL_EINVAL);
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_ALLREDUCE, INFINITY, &p, err), RL_EINVAL);
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_ALLREDUCE, -8, &p, err), RL_EINVAL);
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_COUNT, 8, &p, err), RL_EINVAL);
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_ALLREDUCE, 0, &p, err), 0);
    ck_assert_double_eq_tol(p.time_us, 14 * 0.47, 1e-12);
    ck_assert_double_eq(p.bandwidth_us, 0);
    ck_assert_str_eq(p.protocol, "LL");
    ck_assert_double_eq(p.algbw_gbs, 0);
    /* two GPUs: send/recv is allowed, one step */
    struct rl_fabric two = fabric(&s, NULL, 2, 1);
    ck_assert_int_eq(rl_comm_predict(&two, RL_COLL_SENDRECV, 0, &p, err), 0);
    ck_assert_int_eq(p.steps, 1);
    ck_assert_double_eq_tol(p.latency_us, 0.47, 1e-12);
}
END_TEST

/* Domains inside nodes on several nodes: 2 nodes of 3 RTX 3090 (bridged
 * pairs, 56.25 GB/s; PCIe Gen4 32; 3 NICs of 100 Gb/s = 37.5 GB/s a node
 * given) are 4 domains, {0,1} {2} on each node. The ring leaves a lone
 * GPU through its one PCIe link, 32 GB/s, below the NICs' 37.5 and the
 * bridge: bound 32. All-reduce 1 GB: 1e9 x 2 x 5/6 / 32e9 = 52083.33 us;
 * 10 steps, 2 x (4 - 1) = 6 of them across domains (between nodes: the
 * network's 4.0 us), 4 on the bridge (1.9): 31.6 us. */
START_TEST(domains_inside_nodes_on_several_nodes)
{
    struct rl_gpu_spec g = gpu("rtx-3090", "NVLink 3", 4, 14.0625, "bridge", 2, 4, 32);
    struct rl_fabric f;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_fabric_build(&f, &g, NULL, 6, 2, 100, 3, err), 0);
    struct rl_comm_prediction p = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 32);
    ck_assert_str_eq(p.link, "PCIe Gen4 x16");
    ck_assert_int_eq(p.steps, 10);
    ck_assert_double_eq_tol(p.latency_us, 4 * 1.9 + 6 * 4.0, 1e-9);
    ck_assert_double_eq_tol(p.bandwidth_us, 1e9 * 2 * 5 / 6 / 32e9 * 1e6, 1e-6);
}
END_TEST

/* The fabric's own fields at their edges (rl_fabric_build):
 * - a board whose system says "mesh" but whose domain is one GPU (the
 *   schema allows domain_gpus 1 with any topology): no scale-up link at all
 *   (intra_gbs NaN), no one-link peer (peer_gbs 0, peer_link ""), and 2 of
 *   its GPUs meet over PCIe: send/recv 1 GB / 64 GB/s = 15625 us;
 * - the same board with a domain of 2: the pair's one link is the whole
 *   mesh, 64 / (2 - 1) = 64 GB/s, and the link keeps its name (2 GPUs of
 *   2: no "(1 of 1 links)");
 * - one GPU a node on the mesh of 8 (2 nodes of 1): no subset to name
 *   (d = 1), the link and its 448 stay the system's;
 * - a NIC rate of 0 given is none: without a system 2 nodes are refused,
 *   with one the system's 400 Gb/s = 50 GB/s, its 8 NICs and its NIC's
 *   name stay (datasheet origin);
 * - a NIC rate given without --nics-per-node: one NIC per GPU of the
 *   system's node (8) with a system, per GPU of the node taking part (4)
 *   without one;
 * - the nodes a system's domain spans: its GPUs / a node's, at least 1;
 * - a bridge joins the GPUs its datasheet says, at least a pair. */
START_TEST(fabric_fields_at_their_edges)
{
    struct rl_gpu_spec s = gpu("mi300x", "Infinity Fabric", 7, 64, "mesh", 0, 5, 64);
    struct rl_system sys;
    memset(&sys, 0, sizeof sys);
    strcpy(sys.id, "mi300x-platform");
    strcpy(sys.gpu, "mi300x");
    sys.gpus_per_node = 8;
    sys.domain_gpus = 1;
    strcpy(sys.topology, "mesh");
    strcpy(sys.intra_link, "Infinity Fabric full mesh");
    sys.intra_gbs = 64;
    strcpy(sys.pcie_link, "PCIe Gen5 x16");
    sys.pcie_gbs = 64;
    sys.nics_per_node = 8;
    sys.nic_gbps = 400;
    strcpy(sys.nic, "8 x 400 Gb/s NDR");
    struct rl_fabric one = fabric(&s, &sys, 2, 1);
    ck_assert_int_eq(one.domain_gpus, 1);
    ck_assert(isnan(one.intra_gbs));
    ck_assert_double_eq(one.peer_gbs, 0);
    ck_assert_str_eq(one.peer_link, "");
    struct rl_comm_prediction p = predict(&one, RL_COLL_SENDRECV, 1e9);
    ck_assert_double_eq(p.link_gbs, 64);
    ck_assert_str_eq(p.link, "PCIe Gen5 x16");
    ck_assert_double_eq_tol(p.bandwidth_us, 15625, 1e-6);
    /* a system without a PCIe figure (none in a file: the schema wants one)
     * keeps the GPU's, 64 GB/s over "PCIe Gen5 x16" */
    sys.pcie_gbs = 0;
    sys.pcie_link[0] = '\0';
    one = fabric(&s, &sys, 2, 1);
    ck_assert_double_eq(one.pcie_gbs, 64);
    ck_assert_str_eq(one.pcie_link, "PCIe Gen5 x16");
    ck_assert_double_eq(predict(&one, RL_COLL_SENDRECV, 1e9).link_gbs, 64);
    sys.pcie_gbs = 64;

    sys.domain_gpus = 2;
    struct rl_fabric pair = fabric(&s, &sys, 2, 1);
    ck_assert_double_eq(pair.peer_gbs, 64);
    ck_assert_double_eq(pair.intra_gbs, 64);
    ck_assert_str_eq(pair.intra_link, "Infinity Fabric full mesh");
    ck_assert_str_eq(pair.peer_link, "Infinity Fabric full mesh (one link to the peer)");

    sys.domain_gpus = 8;
    sys.intra_gbs = 448;
    char err[RL_ERRMSG_SIZE] = "";
    struct rl_fabric f;
    ck_assert_int_eq(rl_fabric_build(&f, &s, &sys, 2, 2, NAN, 0, err), 0);
    ck_assert_double_eq(f.intra_gbs, 448);
    ck_assert_double_eq(f.peer_gbs, 64);
    ck_assert_str_eq(f.intra_link, "Infinity Fabric full mesh");

    struct rl_gpu_spec h = h100();
    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 16, 2, 0, 8, err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "--nic-gbps"));
    struct rl_system dgx = dgx_h100();
    ck_assert_int_eq(rl_fabric_build(&f, &h, &dgx, 16, 2, 0, 0, err), 0);
    ck_assert_double_eq(f.nic_gbs, 50);
    ck_assert_int_eq(f.nics_per_node, 8);
    ck_assert_str_eq(f.inter_link, "8 x 400 Gb/s NDR");
    ck_assert_int_eq(f.inter_origin, RL_ORIGIN_DATASHEET);
    ck_assert_int_eq(rl_fabric_build(&f, &h, &dgx, 8, 2, 200, 0, err), 0);
    ck_assert_double_eq(f.nic_gbs, 25);
    ck_assert_int_eq(f.nics_per_node, 8);
    ck_assert_str_eq(f.inter_link, "");
    ck_assert_int_eq(f.inter_origin, RL_ORIGIN_ANALYTIC);
    ck_assert_int_eq(rl_fabric_build(&f, &h, NULL, 8, 2, 200, 0, err), 0);
    ck_assert_int_eq(f.nics_per_node, 4);
    ck_assert_int_eq(f.node_gpus, 4);
    /* a domain inside a node (the DGX's 8 as 2 of 4 of a node) and one of
     * a node: one node each; 3 nodes of a 12-GPU domain: 3 */
    dgx.domain_gpus = 4;
    ck_assert_int_eq(fabric(&h, &dgx, 8, 1).domain_nodes, 1);
    dgx.domain_gpus = 8;
    ck_assert_int_eq(fabric(&h, &dgx, 8, 1).domain_nodes, 1);
    dgx.gpus_per_node = 4;
    dgx.domain_gpus = 12;
    ck_assert_int_eq(fabric(&h, &dgx, 12, 3).domain_nodes, 3);
    /* a bridge's GPUs: as the datasheet says (4), a pair when it says
     * fewer than two (1, or 0: not given) */
    struct rl_gpu_spec g = gpu("bridged", "NVLink", 4, 25, "bridge", 4, 4, 32);
    ck_assert_int_eq(fabric(&g, NULL, 4, 1).domain_gpus, 4);
    g.links.bridge_gpus = 1;
    ck_assert_int_eq(fabric(&g, NULL, 4, 1).domain_gpus, 2);
    g.links.bridge_gpus = 0;
    ck_assert_int_eq(fabric(&g, NULL, 4, 1).domain_gpus, 2);
    /* a bridge reach with no links counted is no bridge: each GPU alone */
    struct rl_gpu_spec none = gpu("unbridged", "NVLink", 0, 25, "bridge", 2, 4, 32);
    ck_assert_int_eq(fabric(&none, NULL, 4, 1).domain_gpus, 1);
}
END_TEST

/* The link a collective is bound by (consider()): the least of the
 * boundaries it crosses, skipping an unknown one (0, as NaN), the first
 * named on a tie.
 * - 4 GPUs of bridged pairs (12 x 25 = 300 GB/s) whose PCIe rate is 0:
 *   the pairs' PCIe boundary is unknown, the bridge binds: 300;
 * - 2 DGX H100 nodes with 8 NICs of 450 Gb/s (8 x 56.25 = 450 GB/s a
 *   node): NVLink's 450 and the NICs' 450 tie; the ring names NVLink;
 * - 2 GPUs of a bridge whose rate is 0 (unknown): no domain link, PCIe's
 *   32 (Gen4 x16);
 * - 2 nodes of 8 H100s whose PCIe is slow (16 GB/s; 8 x 16 = 128 a node):
 *   whole-node domains meet over the NICs only (8 x 400 Gb/s = 400 GB/s),
 *   not PCIe: the ring is bound by 400, send/recv by one GPU's NIC, 50. */
START_TEST(the_binding_link)
{
    struct rl_gpu_spec g = gpu("a100-pcie-80gb", "NVLink 3", 12, 25, "bridge", 2, 4, 0);
    struct rl_fabric four = fabric(&g, NULL, 4, 1);
    struct rl_comm_prediction p = predict(&four, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 300);
    ck_assert_str_eq(p.link, "NVLink 3 (bridge)");

    struct rl_gpu_spec h = h100();
    struct rl_system sys = dgx_h100();
    struct rl_fabric f;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_fabric_build(&f, &h, &sys, 16, 2, 450, 8, err), 0);
    p = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 450);
    ck_assert_str_eq(p.link, "NVLink 4 through NVSwitch");

    struct rl_gpu_spec z = gpu("zero-bridge", "NVLink", 4, 0, "bridge", 2, 4, 32);
    struct rl_fabric two = fabric(&z, NULL, 2, 1);
    p = predict(&two, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 32);
    ck_assert_str_eq(p.link, "PCIe Gen4 x16");

    struct rl_gpu_spec slow = gpu("h100-sxm", "NVLink 4", 18, 25, "switch", 0, 5, 16);
    ck_assert_int_eq(rl_fabric_build(&f, &slow, NULL, 16, 2, 400, 8, err), 0);
    p = predict(&f, RL_COLL_ALLREDUCE, 1e9);
    ck_assert_double_eq(p.link_gbs, 400);
    ck_assert_str_eq(p.link, "NICs: 8 x 400 Gb/s per node");
    ck_assert_double_eq(predict(&f, RL_COLL_SENDRECV, 1e9).link_gbs, 50);
    ck_assert_double_eq(predict(&f, RL_COLL_ALLTOALL, 1e9).link_gbs, 400);
    /* ... at 0 bytes both parts take no time: the tie names the inside's
     * link (NVLink); the latency is 15 steps, 1 across nodes: 14 x 0.47 +
     * 2.7 us (LL) */
    p = predict(&f, RL_COLL_ALLTOALL, 0);
    ck_assert_str_eq(p.link, "NVLink 4 (switch)");
    ck_assert_double_eq_tol(p.time_us, 14 * 0.47 + 2.7, 1e-12);
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
    tcase_add_test(tc, one_link_switch_and_names_as_given);
    tcase_add_test(tc, partial_nodes_and_spanning_domains);
    tcase_add_test(tc, uneven_domains_bind_at_the_smallest);
    tcase_add_test(tc, mesh_subsets_and_one_peer);
    tcase_add_test(tc, names_and_factors_at_the_edges);
    tcase_add_test(tc, fabrics_at_their_limits);
    tcase_add_test(tc, sizes_refused_and_zero);
    tcase_add_test(tc, domains_inside_nodes_on_several_nodes);
    tcase_add_test(tc, fabric_fields_at_their_edges);
    tcase_add_test(tc, the_binding_link);
    suite_add_tcase(s, tc);
    return rl_test_run(s);
}
