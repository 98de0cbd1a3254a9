/* collective.c - collectives on the interconnect: nccl-tests' bandwidth definitions and the analytic model of one collective's time.
 *
 * The model (docs/comm.md) is the alpha-beta model of a ring,
 * bounded by the slowest link the ring crosses:
 *
 *   time = steps x alpha + bytes x F / busbw_max
 *
 * where F is nccl-tests' bus factor (busbw = algbw x F), so that for a
 * bandwidth-bound message busbw tends to busbw_max, the bandwidth of the
 * binding link per direction:
 *
 * - Inside one scale-up domain (the GPUs NVLink or Infinity Fabric joins:
 *   an NVSwitch node, a bridged pair, a board mesh) every rank sends and
 *   receives busbw x t bytes over its own links: busbw_max is the GPU's
 *   link bandwidth per direction (H100 SXM 18 x 25 = 450 GB/s).
 * - A ring over several domains crosses each domain boundary once per
 *   channel; summed over channels, what leaves a domain is one rank's whole
 *   traffic, F x bytes. The links that carry it out are the domain's NICs
 *   (between nodes: nics x Gb/s / 8; a DGX H100 8 x 400 Gb/s = 400 GB/s)
 *   or its GPUs' PCIe links (d x PCIe per direction). busbw_max is the
 *   least of the domain link and each boundary crossed. When d does not
 *   divide n the last domain is smaller (3 GPUs of bridged pairs: {0,1},
 *   {2}; 76 GPUs of an NVL72: 72 + 4): its boundary, d_min GPUs' links,
 *   carries the same traffic and binds.
 * - All-to-all sends bytes/n to each peer: d - 1 parts stay in the domain
 *   (over the GPU's links), n - d leave it; d ranks share the boundary:
 *   t = max(bytes (d-1) / (n intra), d bytes (n-d) / (n boundary)), the
 *   second at the smallest domain (d_min, its boundary), whose ranks send
 *   the most parts out.
 * - Send/recv (nccl-tests' ring: r sends to r+1) crosses one link per
 *   rank: the GPU's link inside a domain (in a mesh the one link that joins
 *   the pair: MI300X 64 GB/s, not its 7 x 64), else its share of the
 *   boundary (node NICs / GPUs per node, or its own PCIe link).
 * - A mesh of d GPUs taking part of a board of D uses d - 1 of each GPU's
 *   D - 1 links (from the GPU's links or the system's per-GPU figure / (D-1)).
 * - Broadcast is a pipelined ring: every domain receives the bytes once
 *   over its boundary, every GPU once over its link (F = 1).
 *
 * alpha per step is NCCL's own hop latency (src/graph/tuning.cc, hwLat,
 * ring), for the faster of two protocols at each size: LL (NVLink 0.47 us,
 * PCIe 1.0, network 2.7; a quarter of the bandwidth) and the bandwidth
 * protocol (LL128's 1.9, 2.5, 4.0; the full link). Steps are NCCL's
 * (2(n-1) all-reduce, n-1 all-gather / reduce-scatter / broadcast /
 * all-to-all, 1 send/recv), of which 2(m-1) or m-1 cross the m domains'
 * boundary. NVLink SHARP (NVLS) and tree algorithms are not modelled: their
 * all-reduce can exceed the ring's bound (nccl-tests PR #239); the
 * prediction is of the ring, said in docs/comm.md.
 */
#include "analyzer/comm/collective.h"

#include "analyzer/comm/system.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- names ---- */

static const char *const names[RL_COLL_COUNT + 1] = {
    "allreduce", "allgather", "reducescatter", "broadcast", "alltoall", "sendrecv", NULL,
};

const char *rl_collective_name(enum rl_collective c)
{
    return (unsigned)c < RL_COLL_COUNT ? names[c] : "?";
}

const char *const *rl_collective_names(void)
{
    return names;
}

int rl_collective_parse(const char *name)
{
    if (!name)
        return -1;
    char buf[32];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof buf; p++)
        if (*p != '-' && *p != '_' && *p != ' ')
            buf[n++] = *p;
    buf[n] = '\0';
    if (name[0] && strlen(name) >= sizeof buf)
        return -1;
    for (int c = 0; c < RL_COLL_COUNT; c++)
        if (strcasecmp(buf, names[c]) == 0)
            return c;
    if (strcasecmp(buf, "p2p") == 0)
        return RL_COLL_SENDRECV;
    return -1;
}

double rl_collective_bus_factor(enum rl_collective c, int n)
{
    if (n < 1)
        return NAN;
    switch (c) {
    case RL_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
    case RL_COLL_ALLGATHER:
    case RL_COLL_REDUCESCATTER:
    case RL_COLL_ALLTOALL: return (double)(n - 1) / n;
    case RL_COLL_BROADCAST:
    case RL_COLL_SENDRECV: return 1.0;
    default: return NAN;
    }
}

/* ---- the fabric ---- */

/* Two protocols, as NCCL chooses between them by the time its own model
 * predicts (src/graph/tuning.cc): LL, 8-byte stores with flags, the least
 * latency at a quarter of the bandwidth (its ring LL busBw x 1/4), for small
 * messages; and the bandwidth protocols at the full link with LL128's hop
 * latency. Hop latencies, microseconds (tuning.cc hwLat, ring: LL / LL128),
 * by link: NVLink (the domain), PCIe, network. */
enum { PROTO_LL, PROTO_BW, PROTO_COUNT };
static const char *const proto_name[PROTO_COUNT] = {"LL", "Simple"};
static const double proto_bw_share[PROTO_COUNT] = {0.25, 1.0};
static const double alpha_domain_us[PROTO_COUNT] = {0.47, 1.9};
static const double alpha_pcie_us[PROTO_COUNT] = {1.0, 2.5};
static const double alpha_net_us[PROTO_COUNT] = {2.7, 4.0};

static bool reach_is(const struct rl_gpu_links *l, const char *r)
{
    return strcmp(l->reach, r) == 0;
}

int rl_fabric_build(struct rl_fabric *f, const struct rl_gpu_spec *spec,
                    const struct rl_system *sys, int gpus, int nodes,
                    double nic_gbps, int nics_per_node, char *errmsg)
{
    memset(f, 0, sizeof *f);
    if (gpus > RL_FABRIC_MAX_GPUS) {
        snprintf(errmsg, RL_ERRMSG_SIZE, "%d GPUs: at most %d", gpus, RL_FABRIC_MAX_GPUS);
        return RL_EINVAL;
    }
    if (!spec || gpus < 1 || nodes < 1 || gpus % nodes != 0) {
        snprintf(errmsg, RL_ERRMSG_SIZE,
                 "%d GPUs do not divide evenly over %d nodes", gpus, nodes);
        return RL_EINVAL;
    }
    const struct rl_gpu_links *l = &spec->links;
    f->gpus = gpus;
    f->nodes = nodes;
    f->gpus_per_node = gpus / nodes;
    /* A link figure is the datasheet's, or analytic where the file derives
     * it (per direction as half of the both-directions figure printed). */
    int gi = rl_spec_field_index("links.gpu_link_gbs_per_direction");
    int pi = rl_spec_field_index("links.pcie_gbs_per_direction");
    f->intra_origin = gi >= 0 ? rl_gpu_spec_field_origin(spec, (size_t)gi) : RL_ORIGIN_DATASHEET;
    f->pcie_origin = pi >= 0 ? rl_gpu_spec_field_origin(spec, (size_t)pi) : RL_ORIGIN_DATASHEET;
    f->inter_origin = RL_ORIGIN_DATASHEET;
    f->intra_gbs = NAN;
    f->nic_gbs = NAN;
    f->pcie_gbs = l->pcie_gbs;
    if (l->pcie_gen > 0)
        snprintf(f->pcie_link, sizeof f->pcie_link, "PCIe Gen%d x%d", l->pcie_gen,
                 l->pcie_lanes);

    if (sys) {
        if (strcmp(sys->gpu, spec->id) != 0) {
            snprintf(errmsg, RL_ERRMSG_SIZE, "%s holds %s GPUs, not %s", sys->name, sys->gpu,
                     spec->id);
            return RL_EINVAL;
        }
        if (f->gpus_per_node > sys->gpus_per_node) {
            snprintf(errmsg, RL_ERRMSG_SIZE,
                     "%d GPUs per node, but a %s node has %d (use more nodes)",
                     f->gpus_per_node, sys->name, sys->gpus_per_node);
            return RL_EINVAL;
        }
        snprintf(f->system, sizeof f->system, "%s", sys->id);
        f->node_gpus = sys->gpus_per_node;
        f->domain_gpus = sys->domain_gpus;
        /* a domain larger than a node spans nodes (an NVL72's trays); one
         * inside a node is 0 here, 1 below (sys->gpus_per_node >= the
         * f->gpus_per_node >= 1 taking part, checked above) */
        f->domain_nodes = sys->domain_gpus / sys->gpus_per_node;
        snprintf(f->intra_link, sizeof f->intra_link, "%s", sys->intra_link);
        f->intra_gbs = sys->domain_gpus > 1 ? sys->intra_gbs : NAN;
        if (strcmp(sys->topology, "mesh") == 0 && sys->domain_gpus > 1) {
            /* a board mesh: one link to each of the domain_gpus - 1 others;
             * the GPUs taking part use those among them */
            int d = f->gpus_per_node < sys->domain_gpus ? f->gpus_per_node : sys->domain_gpus;
            f->peer_gbs = sys->intra_gbs / (sys->domain_gpus - 1);
            snprintf(f->peer_link, sizeof f->peer_link, "%s (one link to the peer)",
                     sys->intra_link);
            if (d > 1 && d < sys->domain_gpus) {
                f->intra_gbs = (d - 1) * f->peer_gbs;
                snprintf(f->intra_link, sizeof f->intra_link, "%.60s (%d of %d links)",
                         sys->intra_link, d - 1, sys->domain_gpus - 1);
            }
        }
        if (sys->pcie_gbs > 0) {
            f->pcie_gbs = sys->pcie_gbs;
            snprintf(f->pcie_link, sizeof f->pcie_link, "%s", sys->pcie_link);
        }
        f->nics_per_node = sys->nics_per_node;
        f->nic_gbs = sys->nic_gbps / 8.0;
        snprintf(f->inter_link, sizeof f->inter_link, "%s", sys->nic);
    } else {
        if (l->count > 0 && reach_is(l, "switch")) {
            if (f->gpus_per_node > 8) {
                snprintf(errmsg, RL_ERRMSG_SIZE,
                         "%d %s GPUs per node: an NVSwitch baseboard joins 8; name a "
                         "larger NVLink domain with --system (e.g. gb200-nvl72)",
                         f->gpus_per_node, spec->id);
                return RL_EINVAL;
            }
            f->domain_gpus = f->gpus_per_node;
            f->intra_gbs = l->gbs;
            snprintf(f->intra_link, sizeof f->intra_link, "%s (switch)", l->name);
        } else if (l->count > 0 && reach_is(l, "mesh")) {
            f->domain_gpus = f->gpus_per_node < l->count + 1 ? f->gpus_per_node : l->count + 1;
            /* A full mesh: each GPU reaches each of the d-1 others over its
             * own links (d - 1 <= l->count: d is at most l->count + 1). */
            int used = f->domain_gpus - 1;
            f->intra_gbs = used * l->gbs_per_link;
            snprintf(f->intra_link, sizeof f->intra_link, "%s (mesh, %d of %d links)", l->name,
                     used, l->count);
            f->peer_gbs = l->gbs_per_link;
            snprintf(f->peer_link, sizeof f->peer_link, "%s (mesh, one link to the peer)",
                     l->name);
        } else if (l->count > 0 && reach_is(l, "bridge")) {
            f->domain_gpus = l->bridge_gpus > 1 ? l->bridge_gpus : 2;
            f->intra_gbs = l->gbs;
            snprintf(f->intra_link, sizeof f->intra_link, "%s (bridge)", l->name);
        } else {
            f->domain_gpus = 1;
        }
        if (nodes > 1) {
            if (!(nic_gbps > 0)) {
                snprintf(errmsg, RL_ERRMSG_SIZE,
                         "%d nodes: no NIC rate for %s; give --system (see 'roofline gpus "
                         "systems') or --nic-gbps",
                         nodes, spec->id);
                return RL_EINVAL;
            }
        }
    }
    if (nic_gbps > 0) { /* given on the command line: overrides the system's */
        f->nic_gbs = nic_gbps / 8.0;
        /* default: one NIC per GPU of the node (the system's node size, of
         * which fewer GPUs taking part use their share in bounds_of) */
        f->nics_per_node = nics_per_node > 0 ? nics_per_node
                           : f->node_gpus > 0 ? f->node_gpus
                                              : f->gpus_per_node;
        f->inter_link[0] = '\0'; /* a rate, no product */
        f->inter_origin = RL_ORIGIN_ANALYTIC; /* the user's figure */
    }
    if (f->domain_gpus < 1)
        f->domain_gpus = 1;
    if (f->node_gpus < f->gpus_per_node)
        f->node_gpus = f->gpus_per_node;
    if (f->domain_nodes < 1)
        f->domain_nodes = 1;
    return 0;
}

/* ---- the prediction ---- */

/* The boundaries a collective over f crosses and the bandwidth per
 * direction each offers one domain (see the top of the file). */
struct bounds {
    int d;            /* GPUs of one domain taking part */
    int m;            /* domains taking part */
    int d_min;        /* GPUs of the smallest: the last one's when d does not divide n */
    bool domain;      /* two or more GPUs share a domain link */
    bool nic, pcie;   /* boundaries crossed */
    double nic_domain_gbs, pcie_domain_gbs; /* per domain */
    double nic_gpu_gbs, pcie_gpu_gbs;       /* one GPU's share */
};

static void bounds_of(const struct rl_fabric *f, struct bounds *b)
{
    memset(b, 0, sizeof *b);
    int gpn = f->gpus_per_node, n = f->gpus;
    /* the GPUs of one domain taking part: those of its nodes, up to its
     * size; at least 1 and at most n = gpn x nodes (rl_fabric_build makes
     * every count >= 1; span <= nodes) */
    int span = f->nodes < f->domain_nodes ? f->nodes : f->domain_nodes;
    b->d = gpn * span;
    if (b->d > f->domain_gpus)
        b->d = f->domain_gpus;
    if (f->domain_nodes > 1) {
        /* domains spanning nodes */
        b->m = (n + b->d - 1) / b->d;
        b->d_min = n - (b->m - 1) * b->d;
    } else {
        /* domains inside each node, or one a node (d = gpn: m = nodes,
         * d_min = gpn): a node of 3 bridged GPUs holds {0,1}, {2} */
        int per_node = (gpn + b->d - 1) / b->d;
        b->m = per_node * f->nodes;
        b->d_min = gpn - (per_node - 1) * b->d;
    }
    b->domain = b->d > 1 && f->intra_gbs > 0;
    if (b->m <= 1)
        return;
    /* the NICs the node's GPUs taking part reach: their share of the node's
     * (rl_fabric_build makes node_gpus >= gpus_per_node >= 1: 1 when all) */
    double share = (double)gpn / f->node_gpus;
    double node_nic_gbs = f->nics_per_node * f->nic_gbs * share;
    if (b->d >= gpn) {
        /* domains of whole nodes (a DGX; an NVL72 rack of trays), two or
         * more of them (m > 1): on two or more nodes */
        /* the smallest domain has the fewest NICs: its boundary binds */
        b->nic = true;
        b->nic_domain_gbs = node_nic_gbs * ((double)b->d_min / gpn);
        b->nic_gpu_gbs = node_nic_gbs / gpn;
    } else {
        /* several domains in a node meet over PCIe (the smallest's links
         * bind); nodes over NICs */
        b->pcie = true;
        b->pcie_domain_gbs = b->d_min * f->pcie_gbs;
        b->pcie_gpu_gbs = f->pcie_gbs;
        if (f->nodes > 1) {
            b->nic = true;
            b->nic_domain_gbs = node_nic_gbs; /* a node's boundary */
            b->nic_gpu_gbs = node_nic_gbs / gpn;
        }
    }
}

/* The least of the candidates (name, GB/s); NAN ones are skipped. */
struct pick {
    double gbs;
    char link[96];
    enum rl_origin origin;
};

static void consider(struct pick *p, double gbs, const char *link, enum rl_origin o)
{
    if (!(gbs > 0))
        return;
    if (!(p->gbs > 0) || gbs < p->gbs) {
        p->gbs = gbs;
        snprintf(p->link, sizeof p->link, "%.*s", (int)sizeof p->link - 1, link);
        p->origin = o;
    }
}

/* "NICs: 8 x 400 Gb/s per node (ConnectX-7 ...)"; one GPU's share with share. */
static void nic_name(const struct rl_fabric *f, bool share, char *buf, size_t n)
{
    snprintf(buf, n, "%s%d x %g Gb/s per node%s%s%s", share ? "NIC share of " : "NICs: ",
             f->nics_per_node, f->nic_gbs * 8.0, f->inter_link[0] ? " (" : "", f->inter_link,
             f->inter_link[0] ? ")" : "");
}

static void pcie_name(const struct rl_fabric *f, char *buf, size_t n)
{
    snprintf(buf, n, "%s", f->pcie_link[0] ? f->pcie_link : "PCIe");
}

int rl_comm_predict(const struct rl_fabric *f, enum rl_collective c, double bytes,
                    struct rl_comm_prediction *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    out->collective = c;
    out->gpus = f->gpus;
    out->nodes = f->nodes;
    out->bytes = bytes;
    out->origin = RL_ORIGIN_ANALYTIC;
    out->link_origin = RL_ORIGIN_DATASHEET;
    if ((unsigned)c >= RL_COLL_COUNT || !(bytes >= 0) || isinf(bytes)) {
        snprintf(errmsg, RL_ERRMSG_SIZE, "invalid collective or size (%g bytes)", bytes);
        return RL_EINVAL;
    }
    int n = f->gpus;
    if (c == RL_COLL_SENDRECV && n < 2) {
        snprintf(errmsg, RL_ERRMSG_SIZE, "send/recv needs at least 2 GPUs");
        return RL_EINVAL;
    }
    double factor = rl_collective_bus_factor(c, n);
    if (n == 1) { /* nothing crosses a link: a local copy at most */
        snprintf(out->link, sizeof out->link, "none (one GPU)");
        snprintf(out->protocol, sizeof out->protocol, "none");
        out->link_gbs = NAN;
        out->busbw_gbs = NAN;
        out->algbw_gbs = NAN;
        return 0;
    }
    struct bounds b;
    bounds_of(f, &b);
    char nic[160], nic_share[160], pcie[64]; /* cut to the prediction's link[] when chosen */
    nic_name(f, false, nic, sizeof nic);
    nic_name(f, true, nic_share, sizeof nic_share);
    /* fewer GPUs per node than it holds: they use their share of its NICs */
    bool part = f->node_gpus > f->gpus_per_node;
    pcie_name(f, pcie, sizeof pcie);

    struct pick p = {.gbs = NAN};
    double t_bw_s = NAN; /* the bandwidth term, seconds */
    if (c == RL_COLL_ALLTOALL) {
        /* the slower of the parts that stay in the domain and those leaving
         * it; with one GPU a domain (d = 1) nothing stays: the part leaving
         * binds, at 0 bytes too (it has the only link) */
        struct pick in = {.gbs = NAN}, outp = {.gbs = NAN};
        consider(&in, b.domain ? f->intra_gbs : f->pcie_gbs, b.domain ? f->intra_link : pcie,
                 b.domain ? f->intra_origin : f->pcie_origin);
        double t_in = bytes * (b.d - 1) / n / (in.gbs * 1e9);
        /* the boundaries are the smallest domain's, whose d_min ranks send
         * the most parts out: n - d_min (one domain, m = 1: no boundary,
         * outp and t_out stay NaN, never chosen: d = n > 1 there) */
        if (b.pcie)
            consider(&outp, b.pcie_domain_gbs, pcie, f->pcie_origin);
        if (b.nic)
            consider(&outp, b.nic_domain_gbs, part ? nic_share : nic, f->inter_origin);
        double t_out = b.d_min * bytes * (n - b.d_min) / n / (outp.gbs * 1e9);
        bool out = b.d == 1 || t_out > t_in;
        p = out ? outp : in;
        t_bw_s = out ? t_out : t_in;
    } else if (c == RL_COLL_SENDRECV) {
        if (b.m > 1) {
            if (b.pcie)
                consider(&p, b.pcie_gpu_gbs, pcie, f->pcie_origin);
            if (b.nic)
                consider(&p, b.nic_gpu_gbs, nic_share, f->inter_origin);
        } else if (b.domain && f->peer_gbs > 0) {
            consider(&p, f->peer_gbs, f->peer_link, f->intra_origin); /* a mesh's one link */
        } else if (b.domain) {
            consider(&p, f->intra_gbs, f->intra_link, f->intra_origin);
        } else {
            consider(&p, f->pcie_gbs, pcie, f->pcie_origin);
        }
        t_bw_s = bytes / (p.gbs * 1e9);
    } else {
        /* rings: all-reduce, all-gather, reduce-scatter, broadcast */
        if (b.domain)
            consider(&p, f->intra_gbs, f->intra_link, f->intra_origin);
        else if (b.d > 1 || b.m == 1)
            consider(&p, f->pcie_gbs, pcie, f->pcie_origin);
        if (b.pcie)
            consider(&p, b.pcie_domain_gbs, pcie, f->pcie_origin);
        if (b.nic)
            consider(&p, b.nic_domain_gbs, part ? nic_share : nic, f->inter_origin);
        t_bw_s = bytes * factor / (p.gbs * 1e9);
    }
    if (!(p.gbs > 0)) {
        snprintf(errmsg, RL_ERRMSG_SIZE,
                 "no link bandwidth known between these GPUs (the datasheet has no links)");
        return RL_ENOTFOUND;
    }
    snprintf(out->link, sizeof out->link, "%s", p.link);
    out->link_gbs = p.gbs;
    out->link_origin = p.origin;

    /* latency: NCCL's steps, those crossing a domain boundary at its alpha */
    int steps, cross;
    switch (c) {
    case RL_COLL_ALLREDUCE: steps = 2 * (n - 1); cross = 2 * (b.m - 1); break;
    case RL_COLL_SENDRECV: steps = 1; cross = b.m > 1 ? 1 : 0; break;
    default: steps = n - 1; cross = b.m - 1; break;
    }
    out->steps = steps;
    /* the faster protocol at this size */
    for (int q = 0; q < PROTO_COUNT; q++) {
        double alpha_in = b.domain ? alpha_domain_us[q] : alpha_pcie_us[q];
        double alpha_out = b.nic ? alpha_net_us[q] : alpha_pcie_us[q];
        double lat = (steps - cross) * alpha_in + cross * alpha_out;
        double bw = t_bw_s * 1e6 / proto_bw_share[q];
        if (q == 0 || lat + bw < out->time_us) {
            out->latency_us = lat;
            out->bandwidth_us = bw;
            out->time_us = lat + bw;
            snprintf(out->protocol, sizeof out->protocol, "%s", proto_name[q]);
        }
    }
    if (out->time_us > 0) {
        out->algbw_gbs = bytes / (out->time_us * 1e-6) / 1e9;
        out->busbw_gbs = out->algbw_gbs * factor;
    }
    return 0;
}
