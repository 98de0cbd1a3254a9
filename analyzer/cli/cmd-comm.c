/* cmd-comm.c - `roofline comm`: one collective's predicted bandwidth and time on the interconnect (analytic); --measure hands over to cmd-comm-measure.c. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/system.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: roofline comm --gpu G --gpus N [--nodes K] [--system S]\n"
    "                     [--nic-gbps R [--nics-per-node M]]\n"
    "                     [--collective LIST|all] [--bytes B | --min-bytes B --max-bytes B]\n"
    "                     [--json]\n"
    "       roofline comm --measure [...]   (NCCL on this node's GPUs, or one rank per GPU\n"
    "                                        under mpirun/srun; 'roofline comm --measure -h')\n"
    "\n"
    "Predict one collective's algorithm bandwidth, bus bandwidth and time on N\n"
    "GPUs (analytic: a ring bound by the slowest link it crosses, plus NCCL's\n"
    "per-step latency), from the datasheet links of the GPU and the node.\n"
    "\n"
    "  --gpu G            id, name or spec file (default: the system's GPU)\n"
    "  --gpus N           GPUs taking part (default: one node of the system)\n"
    "  --nodes K          nodes they are spread over, evenly (default 1, or as many\n"
    "                     nodes of the system as N needs)\n"
    "  --system S         a node of data/systems ('roofline gpus systems'): its\n"
    "                     NVLink domain, PCIe and NICs\n"
    "  --nic-gbps R       NIC rate between nodes, Gb/s per direction (overrides the\n"
    "                     system's); --nics-per-node M (default: one per GPU of a node)\n"
    "  --collective C     allreduce, allgather, reducescatter, broadcast, alltoall,\n"
    "                     sendrecv, a comma list, or all (default: all)\n"
    "  --bytes B          message size, nccl-tests' (all-gather/reduce-scatter: the\n"
    "                     whole buffer); K/M/G = 1024^k, kB/MB/GB = 1000^k (default 1G)\n"
    "  --min-bytes B, --max-bytes B   a sweep, x2 steps, as nccl-tests -b/-e -f 2\n"
    "  --json             machine-readable output\n"
    "\n"
    "busbw = algbw x 2(n-1)/n (all-reduce), x (n-1)/n (all-gather, reduce-scatter,\n"
    "all-to-all), x 1 (broadcast, send/recv); algbw = bytes / time. Link figures\n"
    "are datasheet values; predictions are analytic. JSON keys: collective, gpus,\n"
    "nodes, bytes, link, link_gbs_per_direction, algbw_gbs, busbw_gbs, time_us,\n"
    "origin; one size and one collective give one object, more an object with\n"
    "\"predictions\".\n";

#define MAX_SIZES 64

static cJSON *prediction_json(const struct rl_comm_prediction *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "collective", rl_collective_name(p->collective));
    cJSON_AddNumberToObject(o, "gpus", p->gpus);
    cJSON_AddNumberToObject(o, "nodes", p->nodes);
    rl_json_add_number(o, "bytes", p->bytes);
    cJSON_AddStringToObject(o, "link", p->link);
    rl_json_add_number(o, "link_gbs_per_direction", p->link_gbs);
    cJSON_AddStringToObject(o, "link_origin", rl_origin_name(p->link_origin));
    rl_json_add_number(o, "bus_factor",
                       rl_json_round(rl_collective_bus_factor(p->collective, p->gpus), 9));
    rl_json_add_number(o, "algbw_gbs", rl_json_round(p->algbw_gbs, 6));
    rl_json_add_number(o, "busbw_gbs", rl_json_round(p->busbw_gbs, 6));
    rl_json_add_number(o, "time_us", rl_json_round(p->time_us, 6));
    rl_json_add_number(o, "bandwidth_us", rl_json_round(p->bandwidth_us, 6));
    rl_json_add_number(o, "latency_us", rl_json_round(p->latency_us, 6));
    cJSON_AddNumberToObject(o, "steps", p->steps);
    cJSON_AddStringToObject(o, "protocol", p->protocol);
    cJSON_AddStringToObject(o, "origin", rl_origin_name(p->origin));
    return o;
}

static void fabric_json(cJSON *o, const struct rl_gpu_spec *spec, const struct rl_fabric *f)
{
    cJSON_AddStringToObject(o, "gpu", spec->id);
    cJSON_AddStringToObject(o, "gpu_name", spec->name);
    if (f->system[0])
        cJSON_AddStringToObject(o, "system", f->system);
    else
        cJSON_AddNullToObject(o, "system");
    cJSON_AddNumberToObject(o, "gpus_per_node", f->gpus_per_node);
    cJSON_AddNumberToObject(o, "domain_gpus", f->domain_gpus);
}

static void format_bytes(char *buf, size_t n, double b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = b;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (v == floor(v))
        snprintf(buf, n, "%.0f %s", v, units[u]);
    else
        snprintf(buf, n, "%.3g %s", v, units[u]);
}

static void print_row(const struct rl_comm_prediction *p)
{
    char size[32], link[16], alg[16], bus[16], t[16];
    format_bytes(size, sizeof size, p->bytes);
    cli_format_derived(link, sizeof link, p->link_gbs);
    cli_format_derived(alg, sizeof alg, p->algbw_gbs);
    cli_format_derived(bus, sizeof bus, p->busbw_gbs);
    cli_format_derived(t, sizeof t, p->time_us);
    printf("  %-13s %10s  %10s %10s %10s %10s  %s\n", rl_collective_name(p->collective), size, t,
           alg, bus, link, p->link_gbs > 0 ? p->link : "-");
}

/* --collective: a list of names or "all" into want[]. */
static int parse_collectives(const char *arg, bool want[RL_COLL_COUNT])
{
    memset(want, 0, RL_COLL_COUNT * sizeof want[0]);
    if (strcmp(arg, "all") == 0) {
        for (int c = 0; c < RL_COLL_COUNT; c++)
            want[c] = true;
        return CLI_OK;
    }
    char *buf = rl_strdup(arg), *save = NULL; /* any length */
    if (!buf) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int n = 0, rc = CLI_OK;
    for (char *t = strtok_r(buf, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        int c = rl_collective_parse(t);
        if (c < 0) {
            rc = cli_unknown_name("comm", "collective", t, rl_collective_names());
        } else {
            want[c] = true;
            n++;
        }
    }
    free(buf);
    if (rc)
        return rc;
    if (!n)
        return cli_usage_error("comm", "--collective needs a name");
    return CLI_OK;
}

int cmd_comm(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--measure") == 0)
            return cli_comm_measure(argc, argv);

    static const struct option opts[] = {
        {"gpu", required_argument, NULL, 'g'},        {"gpus", required_argument, NULL, 'n'},
        {"nodes", required_argument, NULL, 'N'},      {"system", required_argument, NULL, 'S'},
        {"nic-gbps", required_argument, NULL, 'r'},   {"nics-per-node", required_argument, NULL, 'R'},
        {"collective", required_argument, NULL, 'c'}, {"bytes", required_argument, NULL, 'b'},
        {"min-bytes", required_argument, NULL, 'm'},  {"max-bytes", required_argument, NULL, 'M'},
        {"json", no_argument, NULL, 'j'},             {"help", no_argument, NULL, 'h'},
        {0}};
    static const char optstring[] = "h";
    const char *gpu = NULL, *system = NULL, *collective = "all";
    int gpus = 0, nodes = 0, nics = 0;
    double nic_gbps = NAN, bytes = NAN, min_bytes = NAN, max_bytes = NAN;
    bool json = false;
    int c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu = optarg; break;
        case 'n':
            if ((rc = cli_parse_int("comm", "--gpus", optarg, 1, 1 << 20, &gpus)))
                return rc;
            break;
        case 'N':
            if ((rc = cli_parse_int("comm", "--nodes", optarg, 1, 1 << 20, &nodes)))
                return rc;
            break;
        case 'S': system = optarg; break;
        case 'r': {
            char *end;
            nic_gbps = strtod(optarg, &end);
            if (end == optarg || *end || !(nic_gbps > 0) || !isfinite(nic_gbps))
                return cli_usage_error("comm", "--nic-gbps needs a rate in Gb/s, not '%s'",
                                       optarg);
            break;
        }
        case 'R':
            if ((rc = cli_parse_int("comm", "--nics-per-node", optarg, 1, 1024, &nics)))
                return rc;
            break;
        case 'c': collective = optarg; break;
        case 'b':
            if ((rc = cli_parse_bytes("comm", "--bytes", optarg, &bytes)))
                return rc;
            break;
        case 'm':
            if ((rc = cli_parse_bytes("comm", "--min-bytes", optarg, &min_bytes)))
                return rc;
            break;
        case 'M':
            if ((rc = cli_parse_bytes("comm", "--max-bytes", optarg, &max_bytes)))
                return rc;
            break;
        case 'j': json = true; break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error("comm", optstring, opts, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("comm", "unexpected argument '%s'", argv[optind]);
    bool want[RL_COLL_COUNT];
    if ((rc = parse_collectives(collective, want)))
        return rc;
    if (!gpu && !system)
        return cli_usage_error("comm", "--gpu or --system is required");
    if (!isnan(bytes) && (!isnan(min_bytes) || !isnan(max_bytes)))
        return cli_usage_error("comm", "--bytes or --min-bytes/--max-bytes, not both");
    if (isnan(min_bytes) != isnan(max_bytes))
        return cli_usage_error("comm", "--min-bytes and --max-bytes go together");
    if (!isnan(min_bytes) && (min_bytes < 1 || max_bytes < min_bytes))
        return cli_usage_error("comm", "--min-bytes must be at least 1 and at most --max-bytes");
    if (nics && isnan(nic_gbps))
        return cli_usage_error("comm", "--nics-per-node needs --nic-gbps");

    /* the sizes: one, or min..max by x2 */
    double sizes[MAX_SIZES];
    int n_sizes = 0;
    if (!isnan(min_bytes)) {
        for (double b = min_bytes; b <= max_bytes * (1 + 1e-12) && n_sizes < MAX_SIZES; b *= 2)
            sizes[n_sizes++] = b;
        if (n_sizes == MAX_SIZES && sizes[MAX_SIZES - 1] * 2 <= max_bytes)
            return cli_usage_error("comm", "--min-bytes..--max-bytes spans more than %d sizes",
                                   MAX_SIZES);
    } else {
        sizes[n_sizes++] = isnan(bytes) ? 1073741824.0 : bytes;
    }

    const struct rl_system *sys = NULL;
    if (system && !(sys = cli_find_system(system)))
        return CLI_FAIL;
    const struct rl_gpu_spec *spec = cli_find_gpu(gpu ? gpu : sys->gpu);
    if (!spec)
        return CLI_FAIL;
    if (!gpus) {
        if (!sys)
            return cli_usage_error("comm", "--gpus is required without --system");
        gpus = sys->gpus_per_node * (nodes ? nodes : 1);
    }
    if (!nodes) {
        nodes = sys ? (gpus + sys->gpus_per_node - 1) / sys->gpus_per_node : 1;
        if (gpus % nodes) {
            cli_error("comm: %d GPUs do not spread evenly over the %d %s nodes they need "
                      "(%d GPUs each); give --nodes, or %d GPUs to fill %d nodes",
                      gpus, nodes, sys->id, sys->gpus_per_node, nodes * sys->gpus_per_node,
                      nodes);
            return CLI_FAIL;
        }
    }

    /* More than one node and no NIC figure: a system of the database with
     * this GPU gives its NICs (said so). */
    const struct rl_system *nic_from = NULL;
    if (!sys && nodes > 1 && isnan(nic_gbps)) {
        const struct rl_systemdb *db = cli_systemdb();
        if (!db)
            return CLI_FAIL;
        for (size_t i = 0; i < db->n && !nic_from; i++)
            if (strcmp(db->systems[i].gpu, spec->id) == 0 &&
                db->systems[i].gpus_per_node >= gpus / nodes)
                nic_from = &db->systems[i];
    }
    struct rl_fabric f;
    char err[RL_ERRMSG_SIZE];
    /* nic_from: the GPU's own links inside a node, the system's NICs between */
    if (nic_from ? rl_fabric_build(&f, spec, NULL, gpus, nodes, nic_from->nic_gbps,
                                   nic_from->nics_per_node, err)
                 : rl_fabric_build(&f, spec, sys, gpus, nodes, nic_gbps, nics, err)) {
        cli_error("comm: %s", err);
        return CLI_FAIL;
    }
    if (nic_from) {
        f.inter_origin = RL_ORIGIN_DATASHEET;
        snprintf(f.inter_link, sizeof f.inter_link, "%s", nic_from->nic);
        /* its NICs serve its node's GPUs: fewer GPUs per node use their share */
        if (nic_from->gpus_per_node > f.node_gpus)
            f.node_gpus = nic_from->gpus_per_node;
    }

    struct rl_comm_prediction preds[RL_COLL_COUNT * MAX_SIZES];
    int n_preds = 0;
    for (int k = 0; k < RL_COLL_COUNT; k++) {
        if (!want[k])
            continue;
        if (k == RL_COLL_SENDRECV && gpus < 2) {
            if (strcmp(collective, "all") == 0)
                continue; /* "all" on one GPU: the five that run */
        }
        for (int i = 0; i < n_sizes; i++) {
            if (rl_comm_predict(&f, (enum rl_collective)k, sizes[i], &preds[n_preds], err)) {
                cli_error("comm: %s", err);
                return CLI_FAIL;
            }
            n_preds++;
        }
    }

    if (json) {
        cJSON *doc;
        if (n_preds == 1) {
            doc = prediction_json(&preds[0]);
            fabric_json(doc, spec, &f);
        } else {
            doc = cJSON_CreateObject();
            fabric_json(doc, spec, &f);
            cJSON_AddNumberToObject(doc, "gpus", gpus);
            cJSON_AddNumberToObject(doc, "nodes", nodes);
            cJSON_AddStringToObject(doc, "origin", "analytic");
            cJSON *arr = cJSON_AddArrayToObject(doc, "predictions");
            for (int i = 0; i < n_preds; i++)
                cJSON_AddItemToArray(arr, prediction_json(&preds[i]));
        }
        if (nic_from)
            cJSON_AddStringToObject(doc, "nic_from_system", nic_from->id);
        return cli_print_json(doc);
    }

    printf("%d x %s on %d node%s%s%s (analytic; links from the datasheet)\n", gpus, spec->name,
           nodes, nodes == 1 ? "" : "s", sys ? ", " : "", sys ? sys->name : "");
    if (nic_from)
        printf("between nodes: the NICs of a %s (%s)\n", nic_from->name, nic_from->nic);
    printf("  %-13s %10s  %10s %10s %10s %10s  %s\n", "collective", "bytes", "time us",
           "algbw GB/s", "busbw GB/s", "link GB/s", "bound by");
    for (int i = 0; i < n_preds; i++)
        print_row(&preds[i]);
    printf("link GB/s: per direction, %s%s; times and bandwidths: analytic (ring + NCCL's "
           "per-step latency)\n",
           n_preds ? rl_origin_name(preds[0].link_origin) : "datasheet",
           !isnan(nic_gbps) ? " (NICs as given)"
           : n_preds && preds[0].link_origin == RL_ORIGIN_ANALYTIC
               ? " (from the datasheet's figure)"
               : "");
    return CLI_OK;
}
