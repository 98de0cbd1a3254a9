/* cmd-trace.c - `roofline trace`: time every kernel of a CUDA program (or of a built-in workload) and count the selected ones. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/device/device.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/outset.h"
#include "analyzer/readers/tracefile.h"
#include "analyzer/profiler/protocol.h"
#include "analyzer/profiler/rank.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: roofline trace [options] -- PROGRAM [ARGS...]\n"
    "       roofline trace --builtin gemm|gemv|elementwise|decode|prefill [options]\n"
    "\n"
    "Trace every kernel a CUDA program launches (PyTorch included) through an\n"
    "injected library: name, grid, block, registers, shared memory, start/end,\n"
    "stream and NVTX range for all; FLOPs by precision, Tensor Core work and DRAM,\n"
    "L2 and L1 bytes from hardware counters for the selected ones. A program that\n"
    "starts several CUDA processes (torchrun) gives one trace per process.\n"
    "\n"
    "  -o FILE|DIR/     trace file (default roofline-trace.json; DIR/: DIR/trace.json);\n"
    "                   a process that names its rank (RANK ... under torchrun):\n"
    "                   FILE with .rank<R> before its extension; several processes\n"
    "                   without one: .<pid>\n"
    "  --metrics SET    none (timing only), default (2 replay passes on GH100) or\n"
    "                   full (every counter the chip has)\n"
    "  --kernel REGEX   count only kernels whose demangled name matches (POSIX ERE)\n"
    "  --top K          run the program twice: timing only, then counters for the K\n"
    "                   kernels that took the most time\n"
    "  --samples N      counted launches per kernel, grid and block (default 1; 0:\n"
    "                   every launch); other launches borrow their counts (\"sampled\")\n"
    "  --builtin NAME   trace one of roofline's workloads instead of a program\n"
    "  --reps N         timing-only runs of each built-in step, its time their median\n"
    "                   (default 3); with counters one more run is counted\n"
    "  --tokens N       decode context and prefill length of the built-ins (2048)\n"
    "  --device N       GPU for the calibration and built-in workloads (default 0)\n"
    "  --gpu GPU        the GPU the trace is meant for, checked before anything runs:\n"
    "                   an AMD Instinct is refused (no CUDA), another device warned of\n"
    "  --quiet          no summary\n"
    "\n"
    "Under a launcher (mpirun, srun: OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,\n"
    "SLURM_PROCID or RANK set) each rank writes its own trace, FILE.rank<R>:\n"
    "  mpirun -np 8 roofline trace -o t.json -- python train.py   (t.rank0.json ...)\n"
    "  roofline trace -o t.json -- torchrun --nproc-per-node 8 train.py  (the same)\n"
    "and `roofline report --trace DIR` reads them all.\n"
    "\n"
    "Counters replay each counted kernel once per pass, serialising launches: the\n"
    "program runs slower, timing-only tracing barely so. When counters are not\n"
    "allowed (no permission, vGPU, MIG, another profiler attached) the trace is\n"
    "timing only and says why, with the fix. The trace format is described in\n"
    "analyzer/profiler/README.md; `roofline chart --kernels FILE` reads it.\n";

struct trace_opts {
    const char *out, *builtin, *kernel, *gpu;
    int counters, top, samples, reps, device, tokens;
    bool quiet;
    bool ranked;    /* this roofline runs under a launcher: out is its rank's */
};

/* ---- reading traces back: summary and --top ---------------------------------- */

/* Group indices by time, largest first (qsort context: the groups). */
static const struct rl_trace_groups *sort_groups;

static int cmp_time(const void *a, const void *b)
{
    double x = sort_groups->v[*(const size_t *)a].time_ns;
    double y = sort_groups->v[*(const size_t *)b].time_ns;
    return (x < y) - (x > y);
}

/* What a trace holds, read by the one trace reader (readers/tracefile). */
static void summarize(const char *path)
{
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    char err[RL_ERRMSG_SIZE];
    if (rl_trace_groups_load(&g, path, err)) {
        cli_error("%s", err);
        rl_trace_groups_release(&g);
        return;
    }
    char shown[4096];
    snprintf(shown, sizeof shown, "%s", path);
    cli_unstage(shown, sizeof shown); /* `run` writes it into its stage */
    const struct rl_trace_summary *s = &g.sum;
    printf("%s: %llu kernels: %llu counted, %llu sampled, %llu analytic, %llu timing only\n",
           shown, (unsigned long long)s->kernels,
           (unsigned long long)s->by_counts[RL_TRACE_COUNTS_COUNTERS],
           (unsigned long long)s->by_counts[RL_TRACE_COUNTS_SAMPLED],
           (unsigned long long)s->by_counts[RL_TRACE_COUNTS_ANALYTIC],
           (unsigned long long)s->by_counts[RL_TRACE_COUNTS_NONE]);
    printf("  counters: %s", s->counters_status[0] ? s->counters_status : "?");
    if (s->passes > 0)
        printf(" (%g replay passes)", s->passes);
    printf("%s%s\n", s->counters_reason[0] ? ": " : "", s->counters_reason);
    if (s->tensor_not_counted[0])
        printf("  Tensor Core work not counted: %s (--metrics full counts it)\n",
               s->tensor_not_counted);
    if (s->tensor_check[0])
        printf("  tensor check: %s\n", s->tensor_check);
    if (s->notes[0])
        printf("  notes: %s\n", s->notes);
    size_t *order = rl_malloc((g.n ? g.n : 1) * sizeof *order);
    if (order && g.n) {
        for (size_t i = 0; i < g.n; i++)
            order[i] = i;
        sort_groups = &g;
        qsort(order, g.n, sizeof *order, cmp_time);
        printf("  %-10s %-8s %s\n", "time (ms)", "launches", "kernel (top 5 by time)");
        for (size_t i = 0; i < g.n && i < 5; i++)
            printf("  %-10.3f %-8llu %.90s\n", g.v[order[i]].time_ns / 1e6,
                   (unsigned long long)g.v[order[i]].launches, g.v[order[i]].name);
    }
    free(order);
    rl_trace_groups_release(&g);
}

/* ---- running a program under the injection library ------------------------- */

struct child_env {
    const char *inject, *cupti, *pattern, *metrics, *kernel, *names;
    int samples;
    double factor;
    const char *check;
};

static void set_env(const struct child_env *e)
{
    char buf[64];
    setenv("CUDA_INJECTION64_PATH", e->inject, 1);
    /* NVTX loads the injection library, which hands over to the libcupti it
     * uses (a program may load another copy); a user's own NVTX tool stays. */
    setenv("NVTX_INJECTION64_PATH", e->inject, 0);
    setenv(RL_ENV_TRACE_FILE, e->pattern, 1);
    setenv(RL_ENV_TRACE_METRICS, e->metrics, 1);
    if (e->kernel)
        setenv(RL_ENV_TRACE_KERNEL, e->kernel, 1);
    else
        unsetenv(RL_ENV_TRACE_KERNEL);
    if (e->names)
        setenv(RL_ENV_TRACE_NAMES, e->names, 1);
    else
        unsetenv(RL_ENV_TRACE_NAMES);
    snprintf(buf, sizeof buf, "%d", e->samples);
    setenv(RL_ENV_TRACE_SAMPLES, buf, 1);
    if (!isnan(e->factor)) {
        snprintf(buf, sizeof buf, "%.17g", e->factor);
        setenv(RL_ENV_TENSOR_FLOPS_PER_OP, buf, 1);
    } else {
        unsetenv(RL_ENV_TENSOR_FLOPS_PER_OP);
    }
    if (e->check)
        setenv(RL_ENV_TENSOR_CHECK, e->check, 1);
    setenv(RL_ENV_TRACE_QUIET, "0", 0);
}

/* Run argv with the tracer injected. Returns the program's exit code
 * (128 + signal when killed), or -1 when it could not start. */
static int run_traced(char **argv, const struct child_env *e)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        set_env(e);
        execvp(argv[0], argv);
        fprintf(stderr, "roofline: error: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C reaches the program; we stay to collect its traces. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* The trace files (<pid>.json) the program's processes left in dir. */
static int list_traces(const char *dir, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return RL_EIO;
    struct dirent *de;
    size_t cap = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 ||
            strspn(de->d_name, "0123456789") != len - 5)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            char **v = rl_realloc(*out, cap * sizeof *v);
            if (!v)
                break;
            *out = v;
        }
        if (rl_asprintf(&(*out)[*n], "%s/%s", dir, de->d_name) >= 0)
            ++*n;
    }
    closedir(d);
    return RL_OK;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Remove dir and the files in it. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char *p;
            if (rl_asprintf(&p, "%s/%s", dir, de->d_name) >= 0) {
                unlink(p);
                free(p);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Kernel names with their time summed over grids and blocks. */
struct by_name {
    const char *name;
    double time_ns;
};

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct by_name *)a)->name, ((const struct by_name *)b)->name);
}

static int cmp_name_time(const void *a, const void *b)
{
    double x = ((const struct by_name *)a)->time_ns, y = ((const struct by_name *)b)->time_ns;
    return (x < y) - (x > y);
}

/* Write the names of the K kernels with the most time in the traces (read
 * by the one trace reader). */
static int top_names(char **files, size_t n, int k, const char *path)
{
    static struct rl_trace_groups g;
    memset(&g, 0, sizeof g);
    char err[RL_ERRMSG_SIZE] = "";
    int rc = RL_OK;
    for (size_t i = 0; i < n && rc == RL_OK; i++)
        rc = rl_trace_groups_load(&g, files[i], err);
    struct by_name *v = rc == RL_OK ? rl_malloc((g.n ? g.n : 1) * sizeof *v) : NULL;
    if (rc == RL_OK && !v)
        rc = rl_fail(err, RL_ENOMEM, "out of memory");
    size_t nv = 0;
    if (rc == RL_OK) {
        for (size_t i = 0; i < g.n; i++)
            v[i] = (struct by_name){g.v[i].name, g.v[i].time_ns};
        qsort(v, g.n, sizeof *v, cmp_name);
        for (size_t i = 0; i < g.n; i++) {
            if (nv && strcmp(v[nv - 1].name, v[i].name) == 0)
                v[nv - 1].time_ns += v[i].time_ns;
            else
                v[nv++] = v[i];
        }
        qsort(v, nv, sizeof *v, cmp_name_time);
        struct rl_atomic_file f;
        rc = rl_atomic_open(&f, path, err);
        for (size_t i = 0; rc == RL_OK && i < nv && i < (size_t)k; i++)
            fprintf(f.fp, "%s\n", v[i].name);
        if (rc == RL_OK)
            rc = rl_atomic_commit(&f, err);
    }
    if (rc)
        cli_error("choosing the top kernels: %s", err);
    free(v);
    rl_trace_groups_release(&g);
    return rc;
}

/* The stem and extension of a trace path: "t" and ".json" for "t.json". */
static int stem_of(const char *out)
{
    const char *dot = strrchr(out, '.');
    const char *slash = strrchr(out, '/');
    return dot && (!slash || dot > slash) ? (int)(dot - out) : (int)strlen(out);
}

/* Declare to set, as members to replace, the traces an earlier run left
 * at out: out itself and every <stem>.<pid><ext> beside it. */
static int declare_earlier(struct rl_outset *set, const char *out, char *err)
{
    int stem = stem_of(out);
    const char *slash = strrchr(out, '/');
    int dir_len = slash ? (int)(slash - out + 1) : 0;
    char dir[4096], staged[4096];
    snprintf(dir, sizeof dir, "%.*s", dir_len, out);
    int rc = rl_outset_file(set, out, staged, sizeof staged, err);
    DIR *d = opendir(dir_len ? dir : ".");
    struct dirent *de;
    const char *base = out + dir_len, *ext = out + stem;
    size_t nb = (size_t)(stem - dir_len), ne = strlen(ext);
    while (rc == RL_OK && d && (de = readdir(d))) {
        const char *n = de->d_name;
        size_t len = strlen(n);
        if (len <= nb + 1 + ne || strncmp(n, base, nb) != 0 || n[nb] != '.' ||
            strcmp(n + len - ne, ext) != 0)
            continue;
        /* <stem>.<pid><ext> and <stem>.rank<R><ext> */
        size_t skip = strncmp(n + nb + 1, "rank", 4) == 0 ? 4 : 0;
        if (len <= nb + 1 + skip + ne ||
            strspn(n + nb + 1 + skip, "0123456789") != len - nb - 1 - skip - ne)
            continue;
        char path[4600];
        snprintf(path, sizeof path, "%s%s", dir, n);
        rc = rl_outset_file(set, path, staged, sizeof staged, err);
    }
    if (d)
        closedir(d);
    return rc;
}

/* Move the traces from the run folder to their final names, as one set:
 * they replace every trace an earlier run left at that name together. */
/* The rank each trace names (-1 none, or a world of 1), read by the one
 * trace reader; a rank two traces name is no one's (-1 for both). */
static void ranks_of(char **files, size_t n, int *rank)
{
    static struct rl_trace_groups g;
    char err[RL_ERRMSG_SIZE];
    for (size_t i = 0; i < n; i++) {
        memset(&g, 0, sizeof g);
        rank[i] = rl_trace_groups_load(&g, files[i], err) == RL_OK && g.sum.rank.present &&
                          g.sum.rank.world_size != 1
                      ? g.sum.rank.rank
                      : -1;
        rl_trace_groups_release(&g);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (rank[i] >= 0 && rank[i] == rank[j]) {
                int r = rank[i];
                for (size_t k = 0; k < n; k++)
                    if (rank[k] == r)
                        rank[k] = -1;
            }
}

/* ranked: out is already this rank's (roofline under a launcher); else
 * the processes that name their rank (torchrun's children) get
 * out.rank<R>, the others out.<pid> (out itself when alone). */
static int place_traces(char **files, size_t n, const char *out, bool ranked)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_outset set = {0};
    int rc = declare_earlier(&set, out, err);
    int stem = stem_of(out);
    int *rank = rl_calloc(n ? n : 1, sizeof *rank);
    if (!rank)
        rc = rl_fail(err, RL_ENOMEM, "out of memory");
    else if (!ranked)
        ranks_of(files, n, rank);
    for (size_t i = 0; rc == RL_OK && i < n; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        char *dest, staged[4096];
        char named[4096];
        if (!ranked && rank[i] >= 0 &&
            rl_rank_trace_path(named, sizeof named, out, false, rank[i]) < (int)sizeof named)
            dest = rl_strdup(named);
        else if (n == 1)
            dest = rl_strdup(out);
        else if (rl_asprintf(&dest, "%.*s.%.*s%s", stem, out, (int)(strlen(base) - 5), base,
                          out + stem) < 0)
            dest = NULL;
        if (!dest) {
            rc = rl_fail(err, RL_ENOMEM, "out of memory");
            break;
        }
        rc = rl_outset_file(&set, dest, staged, sizeof staged, err);
        if (rc == RL_OK && rl_io_rename(files[i], staged) != 0)
            rc = rl_fail(err, RL_EIO, "cannot write '%s': %s", dest, strerror(errno));
        free(files[i]);
        files[i] = dest;
    }
    free(rank);
    if (rc == RL_OK)
        rc = rl_outset_commit(&set, err);
    rl_outset_abort(&set);
    if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

static int trace_program(const struct trace_opts *o, const struct rl_device_api *api,
                         char **argv)
{
    char err[RL_ERRMSG_SIZE], inject[4096], cupti[4096];
    if (api->profiler_paths(inject, sizeof inject, cupti, sizeof cupti, err)) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    if (access(inject, R_OK) != 0) {
        cli_error("the injection library '%s' is missing: rebuild roofline", inject);
        return CLI_FAIL;
    }
    struct rl_calibration cal;
    if (api->calibrate(o->device, o->counters, &cal, err)) {
        /* Tracing goes on; Tensor Core FLOPs stay unknown (null). */
        cli_warn("calibration GEMM failed: %s: Tensor Core FLOPs will be unknown", err);
        cal.flops_per_op = NAN;
        snprintf(cal.line, sizeof cal.line, "not done: the calibration GEMM failed: %.400s",
                 err);
    }
    if (!o->quiet && o->counters != RL_COUNTERS_NONE)
        fprintf(stderr, "roofline: tensor check: %s\n", cal.line);
    /* The processes write <pid>.json into a folder beside the output. */
    const char *slash = strrchr(o->out, '/');
    char *dir;
    if (rl_asprintf(&dir, "%.*s.roofline-XXXXXX", slash ? (int)(slash - o->out + 1) : 0, o->out) <
            0 ||
        !mkdtemp(dir)) {
        cli_error("cannot create a folder beside '%s': %s", o->out, strerror(errno));
        return CLI_FAIL;
    }
    char *pattern = NULL, *names = NULL;
    int rc = CLI_OK, code = 0;
    if (rl_asprintf(&pattern, "%s/%%p.json", dir) < 0 || rl_asprintf(&names, "%s/top.txt", dir) < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    static const char *const sets[] = {"none", "default", "full"};
    struct child_env e = {inject, cupti, pattern, sets[o->counters], o->kernel, NULL, o->samples,
                          cal.flops_per_op, cal.line};
    char **files = NULL;
    size_t n = 0;
    if (o->top > 0 && o->counters != RL_COUNTERS_NONE) {
        struct child_env first = e;
        first.metrics = "none";
        code = run_traced(argv, &first);
        list_traces(dir, &files, &n);
        if (code < 0 || !n) {
            cli_error("the timing run wrote no trace%s", code < 0 ? "" : " (did it use CUDA?)");
            rc = CLI_FAIL;
            free_list(files, n);
            goto out;
        }
        rc = top_names(files, n, o->top, names) ? CLI_FAIL : CLI_OK;
        for (size_t i = 0; i < n; i++)
            unlink(files[i]);
        free_list(files, n);
        if (rc)
            goto out;
        e.names = names;
        if (!o->quiet)
            fprintf(stderr, "roofline: counting the top %d kernels in a second run\n", o->top);
    }
    code = run_traced(argv, &e);
    if (code < 0) {
        rc = CLI_FAIL;
        goto out;
    }
    list_traces(dir, &files, &n);
    if (!n) {
        cli_error("the program wrote no trace: it never initialised CUDA, or was killed by "
                  "SIGKILL (exit code %d)",
                  code);
        rc = CLI_FAIL;
    } else {
        rc = place_traces(files, n, o->out, o->ranked);
        for (size_t i = 0; rc == CLI_OK && !o->quiet && i < n; i++)
            summarize(files[i]);
    }
    free_list(files, n);
    if (code != 0) {
        cli_warn("the program exited with code %d", code);
        rc = code;
    }
out:
    remove_dir(dir);
    free(dir);
    free(pattern);
    free(names);
    return rc;
}

static int trace_builtin(const struct trace_opts *o, const struct rl_device_api *api)
{
    char program[128], err[RL_ERRMSG_SIZE];
    snprintf(program, sizeof program, "roofline trace --builtin %s", o->builtin);
    struct rl_trace_request req = {
        .device = o->device,
        .workload = o->builtin,
        .out_path = o->out,
        .counters = o->counters,
        .kernel_regex = o->kernel,
        .samples = o->samples,
        .reps = o->reps,
        .decode_context = o->tokens,
        .prefill_tokens = o->tokens,
        .program = program,
        .verbose = !o->quiet,
    };
    struct rl_calibration cal;
    int rc = api->trace_builtin(&req, &cal, err);
    if (rc == RL_EVERIFY)
        cli_error("%s (the trace was written)", err);
    else if (rc) {
        cli_error("%s", err);
        return CLI_FAIL;
    }
    const char *untraced = getenv(RL_UNTRACED_ENV);
    if (untraced && strcmp(untraced, "1") == 0) {
        if (!o->quiet)
            printf("ran --builtin %s untraced (%s=1): no trace written\n", o->builtin,
                   RL_UNTRACED_ENV);
    } else if (!o->quiet)
        summarize(o->out);
    return rc ? CLI_FAIL : CLI_OK;
}

static const char *const counter_sets[] = {"none", "default", "full", NULL};

/* A built-in workload's name, checked before any GPU is looked for: true,
 * or the usage error reported. "shapes" is `llm --measure`'s, which gives
 * the shapes: not one to ask for by name. */
static bool builtin_known(const char *name)
{
    const char *names[16];
    size_t n = 0;
    for (const char *const *w = rl_workload_names(); *w && n < 15; w++)
        if (strcmp(*w, "shapes") != 0)
            names[n++] = *w;
    names[n] = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    cli_unknown_name("trace", "built-in workload", name, names);
    return false;
}

int cmd_trace(int argc, char **argv)
{
    static const struct option opts[] = {{"metrics", required_argument, NULL, 'm'},
                                         {"kernel", required_argument, NULL, 'k'},
                                         {"top", required_argument, NULL, 't'},
                                         {"samples", required_argument, NULL, 's'},
                                         {"builtin", required_argument, NULL, 'b'},
                                         {"reps", required_argument, NULL, 'r'},
                                         {"device", required_argument, NULL, 'd'},
                                         {"tokens", required_argument, NULL, 'T'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"gpu", required_argument, NULL, 'g'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct trace_opts o = {.out = "roofline-trace.json",
                           .counters = RL_COUNTERS_DEFAULT,
                           .samples = 1,
                           .reps = 3};
    int c;
    static const char optstring[] = "+ho:";
    optind = 1;
    /* '+': stop at the program's name, so its own options stay its own. */
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o.out = optarg;
            break;
        case 'm':
            if (strcmp(optarg, "none") == 0)
                o.counters = RL_COUNTERS_NONE;
            else if (strcmp(optarg, "default") == 0)
                o.counters = RL_COUNTERS_DEFAULT;
            else if (strcmp(optarg, "full") == 0)
                o.counters = RL_COUNTERS_FULL;
            else
                return cli_unknown_name("trace", "counter set", optarg, counter_sets);
            break;
        case 'k':
            o.kernel = optarg;
            break;
        case 't':
            if (cli_parse_int("trace", "--top", optarg, 0, 1000000, &o.top))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_parse_int("trace", "--samples", optarg, 0, 1000000, &o.samples))
                return CLI_USAGE;
            break;
        case 'r':
            if (cli_parse_int("trace", "--reps", optarg, 0, 1000000, &o.reps))
                return CLI_USAGE;
            break;
        case 'd':
            if (cli_parse_int("trace", "--device", optarg, 0, CLI_MAX_DEVICE, &o.device))
                return CLI_USAGE;
            break;
        case 'T':
            if (cli_parse_int("trace", "--tokens", optarg, 16, 65536, &o.tokens))
                return CLI_USAGE;
            break;
        case 'b':
            o.builtin = optarg;
            break;
        case 'q':
            o.quiet = true;
            break;
        case 'g':
            o.gpu = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return CLI_OK;
        default: return cli_option_error("trace", optstring, opts, argv);
        }
    }
    char **program = argv + optind;
    if (optind < argc && strcmp(argv[optind], "--") == 0)
        program++;
    bool has_program = program < argv + argc;
    if (o.builtin && has_program)
        return cli_usage_error("trace", "give --builtin or a program, not both");
    if (!o.builtin && !has_program)
        return cli_usage_error("trace", "what to trace? -- PROGRAM [ARGS...] or --builtin NAME");
    if (o.top && o.kernel)
        return cli_usage_error("trace", "--top and --kernel both choose kernels: give one");
    if (o.top && o.builtin)
        return cli_usage_error("trace", "--top runs a program twice: not with --builtin");
    if (o.reps == 0)
        o.reps = 3;
    if (o.builtin && !builtin_known(o.builtin))
        return CLI_USAGE;
    if (o.kernel) {
        regex_t re;
        int rc = regcomp(&re, o.kernel, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char why[160];
            regerror(rc, &re, why, sizeof why);
            return cli_usage_error("trace", "--kernel: bad regular expression '%s': %s",
                                   o.kernel, why);
        }
        regfree(&re);
    }
    /* -o DIR/ (or an existing folder): DIR/trace.json. Under a launcher
     * each rank writes its own file, and every message names the rank. */
    static char out_buf[4096], rank_buf[4096];
    struct stat st;
    size_t out_len = strlen(o.out);
    bool out_dir = (out_len && o.out[out_len - 1] == '/') ||
                   (stat(o.out, &st) == 0 && S_ISDIR(st.st_mode));
    if (out_dir) {
        if (snprintf(out_buf, sizeof out_buf, "%.*s/trace.json",
                     (int)(o.out[out_len - 1] == '/' ? out_len - 1 : out_len),
                     o.out) >= (int)sizeof out_buf)
            return cli_usage_error("trace", "-o: path too long");
        o.out = out_buf;
    }
    struct rl_rank_env rank;
    rl_rank_env_read(&rank);
    /* A job of one (mpirun -np 1, or a Slurm batch script's SLURM_PROCID=0
     * with SLURM_NTASKS=1) keeps the plain name. */
    if (rank.present && rank.world_size != 1) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "rank %d: ", rank.rank);
        cli_message_prefix(prefix);
        if (rl_rank_trace_path(rank_buf, sizeof rank_buf, o.out, false, rank.rank) >=
            (int)sizeof rank_buf)
            return cli_usage_error("trace", "-o: path too long");
        o.out = rank_buf;
        o.ranked = true;
    }
    const struct rl_gpu_spec *asked = o.gpu ? cli_find_gpu(o.gpu) : NULL;
    if (o.gpu && (!asked || cli_require_cuda_gpu("trace", asked)))
        return CLI_FAIL;
    const struct rl_device_api *api;
    struct rl_device_info dev;
    if (cli_open_gpu("cannot trace", o.device, &api, &dev))
        return CLI_FAIL;
    if (out_dir) {
        /* The folder, made once the GPU is there (nothing is left behind
         * when it is not); ranks make it at once: EEXIST is no error. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(o.out, '/') - o.out), o.out);
        if (dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST) {
            cli_error("cannot create '%s': %s", dir, strerror(errno));
            return CLI_FAIL;
        }
    }
    if (asked && !rl_gpu_spec_named(asked, dev.name))
        cli_warn("device %d is '%s', not %s (--gpu %s)", o.device, dev.name, asked->name,
                 asked->id);
    return o.builtin ? trace_builtin(&o, api) : trace_program(&o, api, program);
}
