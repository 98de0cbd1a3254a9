/* cmd-comm-measure.c - `roofline comm --measure`: NCCL collectives and the copy matrix, measured (libroofline_comm.so), beside the datasheet link. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/plugin.h"
#include "analyzer/comm/results.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CMD "comm"
#define MAX_BYTES (32.0 * 1024 * 1024 * 1024)

static const char usage_text[] =
    "usage: roofline comm --measure [--collective LIST|all]\n"
    "                     [--bytes B | --min-bytes B --max-bytes B]\n"
    "                     [--iters N] [--warmup N] [--dtype float] [--gpus N]\n"
    "                     [--no-copies | --copies-only] [--copy-bytes B] [-o FILE] [--json]\n"
    "                     [--timeout S] [--gpu NAME]\n"
    "\n"
    "Measure NCCL collectives as nccl-tests does (algbw = bytes / time, busbw =\n"
    "algbw x its bus factor; every result checked element by element) and the copy\n"
    "bandwidth matrix as nvbandwidth does (host<->device, device-local, peer to peer;\n"
    "copy engine and SM kernels; every copy checked), beside the datasheet link.\n"
    "One process drives every GPU it sees; under mpirun or srun, one rank per GPU\n"
    "(rank 0 writes the file): mpirun -np 16 -N 8 roofline comm --measure -o comm.json\n"
    "\n"
    "  --collective LIST  allreduce, allgather, reducescatter, broadcast, alltoall,\n"
    "                     sendrecv, comma-separated, or all (default)\n"
    "  --bytes B          one message size, as without --measure (k/K, M, G = KiB,\n"
    "                     MiB, GiB)\n"
    "  --min-bytes B      smallest message (default 8)\n"
    "  --max-bytes B      largest (default 1G); sizes double from min to max\n"
    "  --iters N          timed launches per size (default 20, halved per doubling above\n"
    "                     64 MiB, at least 5)\n"
    "  --warmup N         untimed launches first (default 5, likewise, at least 1)\n"
    "  --dtype float      element type (float only)\n"
    "  --gpus N           GPUs this process drives (default: all it sees; 1 under MPI)\n"
    "  --no-copies        collectives only\n"
    "  --copies-only      the copy matrix only\n"
    "  --copy-bytes B     one copy's size (default 256M)\n"
    "  -o FILE            JSON file (default roofline-comm-<gpu>-<time>.json)\n"
    "  --json             print the JSON instead of the tables\n"
    "  --timeout S        abort when nothing completes for S seconds (default 300; 0 off)\n"
    "  --gpu NAME         datasheet to compare with (default: the GPU's own)\n"
    "\n"
    "Needs NVIDIA GPUs, NCCL, and MPI across nodes. Times and rates are measured; the\n"
    "link (GB/s per direction) is the datasheet's. Exit 1 when a check fails (the\n"
    "file is written and says so).\n";

/* A size (cli_parse_bytes: nccl-tests' suffixes), a whole number of bytes
 * in lo..hi. */
static int parse_bytes(const char *option, const char *arg, double lo, double hi, double *out)
{
    double v;
    int rc = cli_parse_bytes(CMD, option, arg, &v);
    if (rc)
        return rc;
    if (floor(v) != v || v < lo || v > hi)
        return cli_usage_error(CMD, "%s needs a whole number of bytes from %.0f to %.0f, not '%s'",
                               option, lo, hi, arg);
    *out = v;
    return CLI_OK;
}

static int parse_collectives(const char *list, unsigned *mask)
{
    *mask = 0;
    char *copy = rl_strdup(list), *save = NULL;
    if (!copy) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "all") == 0) {
            *mask |= (1u << RL_COLL_COUNT) - 1;
            continue;
        }
        int c = rl_collective_parse(t);
        if (c < 0)
            rc = cli_unknown_name(CMD, "collective", t, rl_collective_names());
        else
            *mask |= 1u << c;
    }
    if (!rc && !*mask)
        rc = cli_usage_error(CMD, "--collective needs at least one name (or all)");
    free(copy);
    return rc;
}

/* "8 B", "64 KiB", "1 GiB": sizes as nccl-tests prints them, binary. */
static void format_size(char *buf, size_t n, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && b >= 1024 && fmod(b, 1024) == 0)
        b /= 1024, u++;
    snprintf(buf, n, "%.0f %s", b, unit[u]);
}

static void cell(char *buf, size_t n, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "-");
}

static void print_tables(const struct rl_comm_results *r)
{
    printf("%s%s%s%s: %d rank%s on %d node%s, NCCL %s, CUDA runtime %s, driver %s%s%s\n", r->gpu,
           r->gpu_id[0] ? " (" : "", r->gpu_id, r->gpu_id[0] ? ")" : "", r->ranks,
           r->ranks == 1 ? "" : "s", r->nodes, r->nodes == 1 ? "" : "s", r->nccl_version,
           r->cuda_runtime, r->cuda_driver, r->mpi[0] ? ", " : "", r->mpi);
    char link[64];
    cell(link, sizeof link, r->link_gbs, "%.0f GB/s per direction");
    printf("link (datasheet): %s %s\n", r->link_name[0] ? r->link_name : "unknown", link);
    for (size_t i = 0; i < r->n_series; i++) {
        const struct rl_comm_series *s = &r->series[i];
        printf("\n%s (%s%s%s), %d GPU%s\n", rl_collective_name(s->collective), s->dtype,
               s->redop[0] ? ", " : "", s->redop, s->gpus, s->gpus == 1 ? "" : "s");
        if (s->n == 0) {
            printf("  skipped: %s\n", s->note);
            continue;
        }
        printf("%12s %12s %6s %6s %11s %11s %11s %7s %7s\n", "SIZE", "COUNT", "PLACE", "ITERS",
               "TIME(us)", "ALGBW(GB/s)", "BUSBW(GB/s)", "%LINK", "WRONG");
        for (size_t k = 0; k < s->n; k++) {
            const struct rl_comm_point *p = &s->points[k];
            char size[32], t[32], a[32], b[32], pct[32], w[32];
            format_size(size, sizeof size, p->bytes);
            cell(t, sizeof t, p->time_us, "%.2f");
            cell(a, sizeof a, p->algbw_gbs, "%.2f");
            cell(b, sizeof b, p->busbw_gbs, "%.2f");
            cell(pct, sizeof pct, p->pct_of_link, "%.1f");
            if (p->wrong < 0)
                snprintf(w, sizeof w, "n/a");
            else
                snprintf(w, sizeof w, "%lld", p->wrong);
            printf("%12s %12.0f %6s %6d %11s %11s %11s %7s %7s\n", size, p->count,
                   p->in_place ? "in" : "out", p->iters, t, a, b, pct, w);
        }
        if (s->note[0])
            printf("  note: %s\n", s->note);
    }
    for (size_t i = 0; i < r->n_copies; i++) {
        const struct rl_comm_copy *c = &r->copies[i];
        char size[32];
        format_size(size, sizeof size, c->bytes);
        printf("\ncopy %s %s %s (%s engine), %s per copy, GB/s: rows source, columns destination\n",
               c->kind, c->direction,
               strcmp(c->direction, "bi") == 0 ? "(measured direction, reverse running)" : "",
               strcmp(c->engine, "ce") == 0 ? "copy" : "SM", size);
        bool host_row = strcmp(c->kind, "h2d") == 0, host_col = strcmp(c->kind, "d2h") == 0;
        printf("%8s", "");
        for (int b = 0; b < c->cols; b++)
            printf(host_col ? "%9s" : "%8s%d", host_col ? "host" : "gpu", b);
        printf("\n");
        for (int a = 0; a < c->rows; a++) {
            if (host_row)
                printf("%8s", "host");
            else
                printf("%7s%d", "gpu", a);
            for (int b = 0; b < c->cols; b++) {
                char v[32];
                cell(v, sizeof v, c->matrix_gbs[a * c->cols + b], "%.1f");
                printf("%9s", v);
            }
            printf("\n");
        }
        if (c->wrong)
            printf("  CHECK FAILED: %lld words wrong\n", c->wrong);
        if (c->note[0])
            printf("  note: %s\n", c->note);
    }
    if (r->n_copy_devices > 0) {
        printf("\n");
        for (int i = 0; i < r->n_copy_devices; i++)
            printf("gpu%d = %s\n", i, r->copy_devices[i]);
    }
    for (size_t i = 0; i < r->n_notes; i++)
        printf("note: %s\n", r->notes[i]);
    printf("\nMeasured: TIME per launch averaged over ranks; ALGBW = size / time; BUSBW = ALGBW x\n"
           "nccl-tests' bus factor; %%LINK = BUSBW / the datasheet link per direction. WRONG:\n"
           "elements that differ from the exact expected output (n/a: not checked).\n");
}

/* Rank 0's part: rates, the file, the tables; CLI_OK, or CLI_FAIL reported. */
static int write_results(const struct rl_comm_raw *raw, const struct rl_gpu_spec *spec,
                         const char *date, const struct tm *tm, const char *output, bool json)
{
    char err[RL_ERRMSG_SIZE];
    const char *name = raw->n_devices > 0 ? raw->devices[0].name : "";
    if (!spec) {
        const struct rl_gpudb *db = cli_gpudb();
        spec = db ? rl_gpudb_find(db, name) : NULL;
        if (!spec)
            cli_warn("'%s' is not in the datasheet database: no link to compare with (give "
                     "--gpu or add data/gpus/<id>.json)", name);
    }
    struct rl_comm_results res;
    int rc = rl_comm_results_from_raw(&res, raw, name, spec ? spec->id : "",
                                      spec ? spec->links.name : "",
                                      spec && spec->links.gbs > 0 ? spec->links.gbs : NAN, date,
                                      ROOFLINE_VERSION, err);
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    char path[512];
    if (!output) {
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", tm);
        snprintf(path, sizeof path, "roofline-comm-%s-%s.json", spec ? spec->id : "unknown-gpu",
                 stamp);
        output = path;
    }
    int status = CLI_OK;
    cJSON *doc = rl_comm_results_json(&res);
    if (rl_json_write_file(doc, output, err)) {
        cli_error("%s", err);
        status = CLI_FAIL;
    }
    if (json) {
        cli_print_json(doc);
    } else {
        cJSON_Delete(doc);
        print_tables(&res);
        if (status == CLI_OK)
            printf("\nwrote %s\n", output);
    }
    if (res.check_failed && status == CLI_OK) { /* else the one line said the file failed */
        cli_error("comm --measure: a check failed (wrong > 0; '%s' says so)", output);
        status = CLI_FAIL;
    }
    rl_comm_results_release(&res);
    return status;
}

int cli_comm_measure(int argc, char **argv)
{
    enum { O_MEASURE = 256, O_COLL, O_BYTES, O_MIN, O_MAX, O_ITERS, O_WARMUP, O_DTYPE, O_GPUS,
           O_NOCOPY, O_COPYONLY, O_COPYBYTES, O_JSON, O_TIMEOUT, O_GPU };
    static const struct option opts[] = {
        {"measure", no_argument, NULL, O_MEASURE},
        {"collective", required_argument, NULL, O_COLL},
        {"bytes", required_argument, NULL, O_BYTES},
        {"min-bytes", required_argument, NULL, O_MIN},
        {"max-bytes", required_argument, NULL, O_MAX},
        {"iters", required_argument, NULL, O_ITERS},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"dtype", required_argument, NULL, O_DTYPE},
        {"gpus", required_argument, NULL, O_GPUS},
        {"no-copies", no_argument, NULL, O_NOCOPY},
        {"copies-only", no_argument, NULL, O_COPYONLY},
        {"copy-bytes", required_argument, NULL, O_COPYBYTES},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, O_JSON},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"gpu", required_argument, NULL, O_GPU},
        {"help", no_argument, NULL, 'h'},
        {0}};
    static const char optstring[] = "ho:";
    struct rl_comm_request req = {
        .collectives = (1u << RL_COLL_COUNT) - 1,
        .min_bytes = 8,
        .max_bytes = 1024.0 * 1024 * 1024,
        .iters = -1,
        .warmup = -1,
        .copies = true,
        .copy_bytes = 256.0 * 1024 * 1024,
        .copy_samples = 3,
        .timeout_s = 300,
    };
    const char *output = NULL, *gpu_name = NULL;
    bool json = false, no_copies = false, copies_only = false, one_size = false, sweep = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        int rc = CLI_OK;
        switch (c) {
        case O_MEASURE: break;
        case O_COLL: rc = parse_collectives(optarg, &req.collectives); break;
        case O_BYTES: /* one size: the sweep from it to itself */
            one_size = true;
            rc = parse_bytes("--bytes", optarg, 1, MAX_BYTES, &req.min_bytes);
            req.max_bytes = req.min_bytes;
            break;
        case O_MIN:
            sweep = true;
            rc = parse_bytes("--min-bytes", optarg, 1, MAX_BYTES, &req.min_bytes);
            break;
        case O_MAX:
            sweep = true;
            rc = parse_bytes("--max-bytes", optarg, 1, MAX_BYTES, &req.max_bytes);
            break;
        case O_ITERS: rc = cli_parse_int(CMD, "--iters", optarg, 1, 100000, &req.iters); break;
        case O_WARMUP: rc = cli_parse_int(CMD, "--warmup", optarg, 0, 100000, &req.warmup); break;
        case O_DTYPE: {
            static const char *const dtypes[] = {"float", NULL};
            if (strcmp(optarg, "float") != 0)
                rc = cli_unknown_name(CMD, "dtype", optarg, dtypes);
            break;
        }
        case O_GPUS: rc = cli_parse_int(CMD, "--gpus", optarg, 1, RL_COMM_MAX_GPUS, &req.gpus); break;
        case O_NOCOPY: no_copies = true; break;
        case O_COPYONLY: copies_only = true; break;
        case O_COPYBYTES:
            rc = parse_bytes("--copy-bytes", optarg, 16, 16.0 * 1024 * 1024 * 1024,
                             &req.copy_bytes);
            break;
        case 'o': output = optarg; break;
        case O_JSON: json = true; break;
        case O_TIMEOUT: rc = cli_parse_int(CMD, "--timeout", optarg, 0, 86400, &req.timeout_s); break;
        case O_GPU: gpu_name = optarg; break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return cli_option_error(CMD, optstring, opts, argv);
        }
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (no_copies && copies_only)
        return cli_usage_error(CMD, "--no-copies and --copies-only exclude each other");
    if (one_size && sweep)
        return cli_usage_error(CMD, "--bytes is one size, --min-bytes/--max-bytes a sweep: "
                                    "give one or the other");
    if (req.min_bytes > req.max_bytes)
        return cli_usage_error(CMD, "--min-bytes %.0f is above --max-bytes %.0f", req.min_bytes,
                               req.max_bytes);
    req.copies = !no_copies;
    if (copies_only)
        req.collectives = 0;
    /* The datasheet asked for, before any GPU: NCCL measures NVIDIA GPUs only. */
    const struct rl_gpu_spec *spec = NULL;
    if (gpu_name && (!(spec = cli_find_gpu(gpu_name)) ||
                     cli_require_cuda_gpu("comm --measure", spec)))
        return CLI_FAIL;
    char err[RL_ERRMSG_SIZE];
    const struct rl_comm_api *api;
    if (rl_comm_open(&api, err)) {
        cli_error("cannot measure: %s", err);
        return CLI_FAIL;
    }
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    struct rl_comm_raw *raw = rl_calloc(1, sizeof *raw);
    if (!raw) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int status;
    if (api->measure(&req, raw, err)) {
        cli_error("cannot measure: %s", err);
        status = CLI_FAIL;
    } else {
        status = raw->root ? write_results(raw, spec, date, &tm, output, json) : CLI_OK;
    }
    free(raw);
    fflush(stdout);
    fflush(stderr);
    if (api->finish)
        api->finish(); /* every rank has had its say before MPI ends */
    return status;
}
