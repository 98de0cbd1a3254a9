/* system.h - node descriptions (data/systems/<id>.json): the GPUs of a node, how they are joined, the NICs between nodes. */
#ifndef RL_SYSTEM_H
#define RL_SYSTEM_H

#include "analyzer/model/spec.h"
#include "analyzer/util/json.h"

#include <stdbool.h>
#include <stddef.h>

#define RL_SYSTEM_MAX_ALIASES 8

struct rl_system {
    char id[32];             /* file name: "dgx-h100" */
    char name[96];           /* "NVIDIA DGX H100" */
    char aliases[RL_SYSTEM_MAX_ALIASES][64];
    int n_aliases;
    char gpu[32];            /* id of its GPU in data/gpus/ ("h100-sxm") */
    int gpus_per_node;       /* 8; 4 per compute tray in a GB200 NVL72 */
    int domain_gpus;         /* GPUs one scale-up fabric joins: 8 in a DGX,
                              * 72 in a GB200 NVL72, 2 for bridged pairs,
                              * 1 when GPUs meet only over PCIe */
    char topology[16];       /* "switch" (NVSwitch), "mesh", "bridge", "pcie" */
    char intra_link[64];     /* "NVLink 4 through 4 NVSwitch chips" */
    double intra_gbs;        /* GB/s per GPU per direction inside the domain */
    char pcie_link[32];      /* between GPUs outside the domain in a node: "PCIe Gen4 x16" */
    double pcie_gbs;         /* GB/s per GPU per direction over PCIe */
    int nics_per_node;       /* compute-fabric NICs (not storage/management) */
    double nic_gbps;         /* Gb/s per NIC per direction (400 for NDR) */
    char nic[64];            /* "ConnectX-7 400 Gb/s InfiniBand NDR" */
    char notes[768];
    struct rl_spec_source sources[RL_SPEC_MAX_SOURCES];
    int n_sources;
};

struct rl_systemdb {
    struct rl_system *systems; /* sorted by id */
    size_t n;
    cJSON *schema;             /* data/systems/schema.json */
};

/* Load <dir>/schema.json and every other .json file in dir (each checked
 * against the schema, its id equal to its file name, every number naming a
 * source, its gpu an id of gpus when gpus is not NULL). 0 or the first
 * error, file and line in errmsg. */
struct rl_gpudb;
int rl_systemdb_load(struct rl_systemdb *db, const char *dir, const struct rl_gpudb *gpus,
                     char *errmsg);
void rl_systemdb_release(struct rl_systemdb *db);

/* Parse one system file's text (what names it in errors). */
int rl_system_parse(struct rl_system *sys, const cJSON *schema, const char *text, size_t len,
                    const char *what, char *errmsg);

/* By id, name or alias, matched as GPUs are (rl_gpudb_normalize). NULL when none. */
const struct rl_system *rl_systemdb_find(const struct rl_systemdb *db, const char *name);
/* The same, RL_ENOTFOUND with "unknown system 'x' (did you mean 'y'?)" or
 * the closest ids otherwise. */
int rl_systemdb_lookup(const struct rl_systemdb *db, const char *name,
                       const struct rl_system **out, char *errmsg);

/* NIC bandwidth of one node per direction in GB/s: nics x Gb/s / 8. */
double rl_system_node_nic_gbs(const struct rl_system *sys);

#endif
