/* collective.h - collectives on the interconnect: nccl-tests' bandwidth definitions and the analytic model of one collective's time. */
#ifndef RL_COLLECTIVE_H
#define RL_COLLECTIVE_H

#include "analyzer/model/spec.h"

#include <stdbool.h>

struct rl_system;

/* Units: bytes, GB/s (1e9 B/s) per direction, microseconds. */

enum rl_collective {
    RL_COLL_ALLREDUCE,
    RL_COLL_ALLGATHER,
    RL_COLL_REDUCESCATTER,
    RL_COLL_BROADCAST,
    RL_COLL_ALLTOALL,
    RL_COLL_SENDRECV,
    RL_COLL_COUNT
};

/* "allreduce", ...; parse also takes "all-reduce", "all_reduce",
 * "reduce-scatter", "send-recv", "p2p"; -1 when unknown. */
const char *rl_collective_name(enum rl_collective c);
int rl_collective_parse(const char *name);
/* The names, NULL-terminated (usage errors list them). */
const char *const *rl_collective_names(void);

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): busbw = algbw x
 * factor, with algbw = bytes / time and bytes the whole message (for
 * all-gather and reduce-scatter, n x the per-rank part):
 * all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
 * broadcast, send/recv 1. n = 1 gives 0 for the first four (no traffic). */
double rl_collective_bus_factor(enum rl_collective c, int n);

/* The most GPUs (and nodes) a fabric holds: the CLI's --gpus limit; NCCL's
 * step counts, 2(n-1), stay ints. */
#define RL_FABRIC_MAX_GPUS (1 << 20)

/* What a collective over n GPUs on `nodes` nodes crosses. */
struct rl_fabric {
    int gpus, nodes, gpus_per_node; /* gpus_per_node: taking part, on each node */
    int node_gpus;               /* GPUs a node holds (the system's; else gpus_per_node) */
    int domain_gpus;             /* GPUs one scale-up domain joins */
    int domain_nodes;            /* nodes one domain spans: 1, or 18 trays of a GB200 NVL72 */
    /* inside a domain (NVLink, Infinity Fabric) */
    char intra_link[96];
    double intra_gbs;            /* per GPU per direction */
    char peer_link[96];          /* one GPU to one other of its domain: a mesh's one link */
    double peer_gbs;             /* its GB/s per direction (send/recv); 0: intra_gbs */
    enum rl_origin intra_origin;
    /* between domains inside a node (PCIe) */
    char pcie_link[32];
    double pcie_gbs;
    enum rl_origin pcie_origin;
    /* between nodes */
    char inter_link[64];
    double nic_gbs;              /* per NIC per direction */
    int nics_per_node;
    enum rl_origin inter_origin;
    char system[32];             /* data/systems id, "" when built from the GPU alone */
};

/* The fabric of `gpus` GPUs of spec over `nodes` nodes: from sys when given
 * (its NICs, its domain; its GPU must be spec), else from the GPU's own
 * links (every GPU of a node joined by the scale-up link for reach
 * "switch", bridged pairs for "bridge", a board mesh, PCIe otherwise), with
 * nics_per_node NICs of nic_gbps between nodes (given: overrides the
 * system's; neither for nodes > 1: RL_EINVAL "give --system or
 * --nic-gbps"; the CLI first looks for a system of the database with this
 * GPU). gpus (at most RL_FABRIC_MAX_GPUS) must divide evenly over nodes. Fewer GPUs per node than the
 * node holds use their share of its NICs (one NIC per GPU in a DGX). */
int rl_fabric_build(struct rl_fabric *f, const struct rl_gpu_spec *spec,
                    const struct rl_system *sys, int gpus, int nodes,
                    double nic_gbps, int nics_per_node, char *errmsg);

/* The predicted cost of one collective. */
struct rl_comm_prediction {
    enum rl_collective collective;
    int gpus, nodes;
    double bytes;
    char link[96];               /* the binding link: "NVLink 4 (switch)", "NIC: 8 x 400 Gb/s" */
    double link_gbs;             /* its GB/s per direction, per GPU (or per node for NICs) */
    double busbw_gbs, algbw_gbs;
    double bandwidth_us;         /* bytes x factor / busbw */
    double latency_us;           /* steps x per-step latency */
    int steps;
    double time_us;              /* bandwidth_us + latency_us */
    char protocol[8];            /* the faster at this size: "LL" or "Simple" */
    enum rl_origin origin;       /* analytic */
    enum rl_origin link_origin;  /* of link_gbs: datasheet */
};

/* Predict one collective of `bytes` (nccl-tests' size) on f. Derivation in
 * collective.c and docs/comm.md. RL_EINVAL for bytes < 0 or a
 * collective that needs 2 GPUs on 1 (send/recv). */
int rl_comm_predict(const struct rl_fabric *f, enum rl_collective c, double bytes,
                    struct rl_comm_prediction *out, char *errmsg);

#endif
