/* ranks.c - traces of a parallel job, one per rank: loaded, reported per rank and merged; NCCL kernels as communication. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/ranks.h"

#include "analyzer/profiler/nccl.h"
#include "analyzer/readers/torch.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks-split.h"
#include "analyzer/report/report.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/util/numtext.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- loading ---------------------------------------------------------------- */

static int push_path(struct rl_rank_traces *t, size_t *cap, const char *path, char *errmsg)
{
    if (t->n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        char **p = rl_realloc(t->paths, c * sizeof *p);
        if (!p)
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
        t->paths = p;
        *cap = c;
    }
    if (!(t->paths[t->n] = rl_strdup(path)))
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    t->n++;
    return RL_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is the file at path a roofline trace (its first bytes say so)? 1 or 0,
 * or RL_EIO when its read fails (errmsg says why). */
static int is_trace(const char *path, char *errmsg)
{
    char head[4096];
    size_t n;
    int rc = rl_file_head(path, head, sizeof head, &n, errmsg);
    if (rc == RL_EIO)
        return rc;
    return rc == RL_OK && rl_trace_sniff(head, n);
}

/* Every trace in folder dir, by name. */
static int add_folder(struct rl_rank_traces *t, size_t *cap, const char *dir, char *errmsg)
{
    DIR *d = opendir(dir);
    if (!d)
        return rl_fail(errmsg, RL_EIO, "'%s': %s", dir, strerror(errno));
    size_t first = t->n;
    int rc = RL_OK;
    struct dirent *de;
    size_t dl = strlen(dir);
    while (rc == RL_OK && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        char path[4096];
        /* dl >= 1: opendir("") fails above; "/" gives "/x.json" */
        snprintf(path, sizeof path, "%.*s/%s", (int)(dir[dl - 1] == '/' ? dl - 1 : dl), dir,
                 de->d_name);
        int trace = is_trace(path, errmsg);
        if (trace < 0)
            rc = trace;
        else if (trace)
            rc = push_path(t, cap, path, errmsg);
    }
    closedir(d);
    if (rc == RL_OK && t->n == first)
        rc = rl_fail(errmsg, RL_EIO, "'%s': no roofline trace in this folder", dir);
    if (rc == RL_OK)
        qsort(t->paths + first, t->n - first, sizeof *t->paths, cmp_str);
    return rc;
}

/* Sort order: ranks first by number, then traces without one as given. */
static const struct rl_rank_traces *sort_set;

static int cmp_rank(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct rl_trace_rank *x = &sort_set->groups[i].sum.rank;
    const struct rl_trace_rank *y = &sort_set->groups[j].sum.rank;
    long rx = x->present && x->rank >= 0 ? x->rank : 2000000000L;
    long ry = y->present && y->rank >= 0 ? y->rank : 2000000000L;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* A trace without a rank object named as `roofline trace` names a rank's
 * (<stem>.rank<R>.json): rank R, the rest unknown. */
static void rank_from_name(struct rl_trace_rank *k, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *p = strstr(base, "rank"); p; p = strstr(p + 1, "rank")) {
        if ((p != base && p[-1] != '.') || !isdigit((unsigned char)p[4]))
            continue;
        char *end;
        long r = strtol(p + 4, &end, 10);
        if (end != p + 4 && *end == '.' && r >= 0 && r < 1000000000L) {
            *k = (struct rl_trace_rank){.present = true, .rank = (int)r, .local_rank = -1,
                                        .world_size = -1};
            return;
        }
    }
}

static int read_traces(struct rl_rank_traces *t, int jobs, char *errmsg);

int rl_rank_traces_load(struct rl_rank_traces *t, const char *const *args, size_t n,
                        char *errmsg)
{
    return rl_rank_traces_load_jobs(t, args, n, 0, errmsg);
}

int rl_rank_traces_load_jobs(struct rl_rank_traces *t, const char *const *args, size_t n,
                             int jobs, char *errmsg)
{
    memset(t, 0, sizeof *t);
    size_t cap = 0;
    int rc = RL_OK;
    for (size_t i = 0; i < n && rc == RL_OK; i++) {
        struct stat st;
        if (strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_folder(t, &cap, args[i], errmsg);
        else
            rc = push_path(t, &cap, args[i], errmsg);
    }
    if (rc == RL_OK && !(t->groups = rl_calloc(t->n ? t->n : 1, sizeof *t->groups)))
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    if (rc == RL_OK)
        rc = read_traces(t, jobs, errmsg);
    size_t *order = rc == RL_OK ? rl_malloc((t->n ? t->n : 1) * sizeof *order) : NULL;
    char **paths = order ? rl_malloc((t->n ? t->n : 1) * sizeof *paths) : NULL;
    struct rl_trace_groups *groups = paths ? rl_malloc((t->n ? t->n : 1) * sizeof *groups) : NULL;
    if (rc == RL_OK && !groups)
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    if (rc == RL_OK) {
        for (size_t i = 0; i < t->n; i++)
            order[i] = i;
        sort_set = t;
        qsort(order, t->n, sizeof *order, cmp_rank);
        for (size_t i = 0; i < t->n; i++) {
            paths[i] = t->paths[order[i]];
            groups[i] = t->groups[order[i]];
        }
        memcpy(t->paths, paths, t->n * sizeof *paths);
        memcpy(t->groups, groups, t->n * sizeof *groups);
    }
    free(order);
    free(paths);
    free(groups);
    if (rc)
        rl_rank_traces_release(t);
    return rc;
}

void rl_rank_traces_release(struct rl_rank_traces *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->paths[i]);
        if (t->groups)
            rl_trace_groups_release(&t->groups[i]);
    }
    for (size_t i = 0; t->timelines && i < t->n; i++)
        rl_timeline_release(&t->timelines[i]);
    free(t->paths);
    free(t->groups);
    free(t->timelines);
    free(t->sums);
    memset(t, 0, sizeof *t);
}

/* ---- PyTorch traces, read in parallel ---------------------------------------- */

/* The work of the threads: files taken in order by index; each result in
 * its own slot, so the threads share nothing but `next`. */
struct pool {
    struct rl_rank_traces *t;
    const size_t *which;          /* the files to read (NULL: all of t) */
    size_t n_which;
    bool torch;                   /* PyTorch traces (else roofline's) */
    struct rl_torch_stats *stats; /* one per file */
    int *rc;
    char (*err)[RL_ERRMSG_SIZE];
    pthread_mutex_t lock;
    size_t next;
};

static void read_one(struct pool *p, size_t i)
{
    struct rl_rank_traces *t = p->t;
    if (!p->torch) {
        p->rc[i] = rl_trace_groups_load(&t->groups[i], t->paths[i], p->err[i]);
        if (p->rc[i] == RL_OK && !t->groups[i].sum.rank.present)
            rank_from_name(&t->groups[i].sum.rank, t->paths[i]);
        return;
    }
    p->rc[i] = rl_torch_load_timeline(&t->groups[i], t->paths[i], &p->stats[i],
                                      &t->timelines[i], p->err[i]);
    if (p->rc[i] == RL_OK) {
        const struct rl_trace_rank *k = &t->groups[i].sum.rank;
        p->rc[i] = rl_across_rank_sum(&t->sums[i], k->present ? k->rank : -1, &t->timelines[i]);
        if (p->rc[i])
            rl_fail(p->err[i], p->rc[i], "out of memory");
    }
    /* the memory bound: a rank keeps its collectives and steps, no more */
    rl_timeline_keep_comm(&t->timelines[i]);
}

static void *reader(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n_which)
            return NULL;
        read_one(p, p->which ? p->which[i] : i);
    }
}

/* Read p's files on `jobs` threads (0: one per core); each file's result
 * in its slot (p->rc, p->err). A thread that cannot be started leaves its
 * share to the others. */
static void run_pool(struct pool *p, int jobs)
{
    size_t n = p->n_which;
    if (jobs <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 ? (int)(cores < 1024 ? cores : 1024) : 1;
    }
    if ((size_t)jobs > n)
        jobs = n ? (int)n : 1;
    pthread_t *th = jobs > 1 ? rl_calloc((size_t)jobs, sizeof *th) : NULL;
    int started = 0;
    if (th && pthread_mutex_init(&p->lock, NULL) == 0) {
        /* this thread reads too: jobs - 1 more */
        while (started < jobs - 1 && pthread_create(&th[started], NULL, reader, p) == 0)
            started++;
        reader(p);
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        pthread_mutex_destroy(&p->lock);
    } else {
        for (size_t i = 0; i < n; i++)
            read_one(p, p->which ? p->which[i] : i);
    }
    free(th);
}

/* The first failing file's error, in file order. */
static int first_error(const int *rc, char (*err)[RL_ERRMSG_SIZE], size_t n, char *errmsg)
{
    for (size_t i = 0; i < n; i++)
        if (rc[i])
            return rl_fail(errmsg, rc[i], "%s", err[i]);
    return RL_OK;
}

/* A stable sort of t's entries by rank (insertion: n is small). */
static void sort_by_rank(struct rl_rank_traces *t)
{
    for (size_t i = 1; i < t->n; i++)
        for (size_t j = i; j > 0; j--) {
            const struct rl_trace_rank *x = &t->groups[j - 1].sum.rank, *y = &t->groups[j].sum.rank;
            int a = x->present ? x->rank : 1 << 30, b = y->present ? y->rank : 1 << 30;
            if (a <= b)
                break;
            struct rl_trace_groups tg = t->groups[j - 1];
            t->groups[j - 1] = t->groups[j], t->groups[j] = tg;
            char *tp = t->paths[j - 1];
            t->paths[j - 1] = t->paths[j], t->paths[j] = tp;
            struct rl_timeline tl = t->timelines[j - 1];
            t->timelines[j - 1] = t->timelines[j], t->timelines[j] = tl;
            struct rl_across_rank ks = t->sums[j - 1];
            t->sums[j - 1] = t->sums[j], t->sums[j] = ks;
        }
}

/* Roofline traces t->paths into t->groups (allocated), a rank from the
 * file's name where the trace names none. */
static int read_traces(struct rl_rank_traces *t, int jobs, char *errmsg)
{
    size_t m = t->n ? t->n : 1;
    struct pool p = {.t = t, .n_which = t->n, .torch = false, .next = 0};
    p.rc = rl_calloc(m, sizeof *p.rc);
    p.err = rl_calloc(m, sizeof *p.err);
    int rc = RL_OK;
    if (p.rc && p.err) {
        run_pool(&p, jobs);
        rc = first_error(p.rc, p.err, t->n, errmsg);
    } else {
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    }
    free(p.rc), free(p.err);
    return rc;
}

/* Read the share of files that is this process's (all of them without
 * split), then, split over several processes, send it to process 0
 * (another process: done) or gather the others' there. */
static int load_torch(struct rl_rank_traces *t, char **files, size_t n, int jobs,
                      struct rl_torch_stats *st, const struct rl_rank_split *split,
                      char *errmsg)
{
    memset(t, 0, sizeof *t);
    t->paths = files;
    t->n = n;
    struct pool p = {.t = t, .torch = true, .next = 0};
    size_t m = n ? n : 1;
    t->groups = rl_calloc(m, sizeof *t->groups);
    t->timelines = rl_calloc(m, sizeof *t->timelines);
    t->sums = rl_calloc(m, sizeof *t->sums);
    p.stats = rl_calloc(m, sizeof *p.stats);
    p.rc = rl_calloc(m, sizeof *p.rc);
    p.err = rl_calloc(m, sizeof *p.err);
    size_t *mine = rl_calloc(m, sizeof *mine);
    int rc = RL_OK;
    if (!t->groups || !t->timelines || !t->sums || !p.stats || !p.rc || !p.err || !mine)
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    bool apart = split && split->count > 1;
    if (rc == RL_OK) {
        /* this process's files: every count-th from its index */
        for (size_t i = 0; i < n; i++)
            if (!apart || rl_rank_split_mine(split, i))
                mine[p.n_which++] = i;
        p.which = mine;
        run_pool(&p, jobs);
    }
    struct rl_rank_part part = {.t = t, .stats = p.stats, .rc = p.rc, .err = p.err};
    if (rc == RL_OK && apart && split->index != 0)
        rc = rl_rank_split_send(split, &part, errmsg);
    else if (rc == RL_OK && apart)
        rc = rl_rank_split_gather(split, &part, errmsg);
    if (rc == RL_OK && (!apart || split->index == 0))
        rc = first_error(p.rc, p.err, n, errmsg);
    if (rc == RL_OK && (!apart || split->index == 0)) {
        memset(st, 0, sizeof *st);
        for (size_t i = 0; i < n; i++)
            if (i == 0)
                *st = p.stats[0];
            else
                rl_torch_stats_add(st, &p.stats[i]);
        sort_by_rank(t);
    }
    free(p.stats), free(p.rc), free(p.err), free(mine);
    return rc;
}

int rl_rank_traces_load_torch(struct rl_rank_traces *t, char **files, size_t n, int jobs,
                              struct rl_torch_stats *st, char *errmsg)
{
    return load_torch(t, files, n, jobs, st, NULL, errmsg);
}

int rl_rank_traces_load_torch_split(struct rl_rank_traces *t, char **files, size_t n, int jobs,
                                    struct rl_torch_stats *st, const struct rl_rank_split *split,
                                    char *errmsg)
{
    return load_torch(t, files, n, jobs, st, split, errmsg);
}

bool rl_rank_traces_ranked(const struct rl_rank_traces *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->groups[i].sum.rank.present)
            return true;
    return false;
}

int rl_rank_traces_merge(const struct rl_rank_traces *t, struct rl_trace_groups *g, char *errmsg)
{
    for (size_t i = 0; i < t->n; i++)
        if (rl_trace_groups_merge_rank(g, &t->groups[i]))
            return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    return RL_OK;
}

/* ---- communication ---------------------------------------------------------- */

static bool comm_group(const struct rl_trace_group *x)
{
    return x->collective[0] || rl_comm_recognize(x->name, x->op, NULL, 0);
}

/* "communication (NCCL all-reduce)", "communication (NCCL)". */
void rl__report_comm_kind(const struct rl_report_row *w, char *buf, size_t size)
{
    if (w->collective[0])
        snprintf(buf, size, "communication (NCCL %s)", rl_nccl_collective_label(w->collective));
    else
        snprintf(buf, size, "communication (NCCL)");
}

/* "1.07 GB", "512 kB": bytes as people read them (decimal units). */
static void fmt_bytes(char *b, size_t n, double v)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (v >= 1000 && u < 5)
        v /= 1000, u++;
    snprintf(b, n, "%s %s", rl_num(v, 3), unit[u]);
}

void rl__report_comm_sentence(struct rl_report_row *w, const char *name, bool torch)
{
    char kind[64], bytes[32];
    rl__report_comm_kind(w, kind, sizeof kind);
    double share = 100 * w->time_share;
    if (!isnan(w->comm_bytes)) {
        fmt_bytes(bytes, sizeof bytes, w->comm_bytes);
        if (!isnan(w->comm_algbw_gbs))
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s%% of GPU time, %s: %s of messages in %s at %s GB/s "
                     "(message bytes / kernel time, measured); it moves data between GPUs, so "
                     "no roof judges it",
                     name, rl_num(share, 3), kind, bytes, rl_count_text((char[32]){0}, 32,
                     w->launches, "launch", "launches"),
                     rl_num(w->comm_algbw_gbs, 3));
        else
            snprintf(w->sentence, sizeof w->sentence,
                     "%s: %s: %s of messages in %s, no time; it moves data between "
                     "GPUs, so no roof judges it",
                     name, kind, bytes,
                     rl_count_text((char[32]){0}, 32, w->launches, "launch", "launches"));
    } else if (!isnan(share)) {
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %.3g%% of GPU time, %s: time only, bytes unknown: %s; it moves data "
                 "between GPUs, so no roof judges it",
                 name, share, kind,
                 torch ? "record_param_comms gave no message size"
                       : "NCCL's NVTX ranges were not seen");
    } else {
        snprintf(w->sentence, sizeof w->sentence,
                 "%s: %s: no time, bytes unknown: NCCL's NVTX ranges were not seen; it moves "
                 "data between GPUs, so no roof judges it",
                 name, kind);
    }
}

bool rl__report_has_comm(const struct rl_report *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].comm)
            return true;
    return r->n_ranks > 0;
}

void rl__report_comm_notes(struct rl_report *r)
{
    size_t groups = 0, unknown = 0;
    bool torch = r->torch;
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].comm)
            groups++, unknown += isnan(r->rows[i].comm_bytes);
    if (!groups)
        return;
    char text[512];
    /* a PyTorch trace's collectives with their message size and group are
     * set against the link roof (the step's operators, step.c) */
    snprintf(text, sizeof text,
             "communication: %zu NCCL kernel group%s took %.3g%% of the GPU time; counted in "
             "time, not judged against the compute or memory roofs%s",
             groups, groups == 1 ? "" : "s",
             r->time_ns > 0 ? 100 * r->comm_time_ns / r->time_ns : 0.0,
             torch ? " (one whose message size and group record_param_comms gives is set "
                     "against the link roof)"
                   : "");
    rl_report_note(r, text);
    if (unknown) {
        /* where the message size comes from: a PyTorch trace's
         * record_param_comms, a roofline trace's NCCL NVTX ranges */
        if (torch)
            snprintf(text, sizeof text,
                     "bytes unknown for %zu of them: record_param_comms gave no message size "
                     "for their call: time only",
                     unknown);
        else
            snprintf(text, sizeof text,
                     "bytes unknown: NCCL's NVTX ranges were not seen for %zu of them (NCCL "
                     "2.19+ emits them unless NCCL_NVTX_DISABLE=1): time only",
                     unknown);
        rl_report_note(r, text);
    }
}

void rl__report_comm_json(FILE *f, const struct rl_report_row *w, bool tagged, bool ranked)
{
    if (tagged)
        fprintf(f, ", \"kind\": \"%s\"", w->comm ? "communication" : "kernel");
    if (w->comm) {
        fputs(", \"collective\": ", f);
        if (w->collective[0])
            rl_fput_json_string(f, w->collective);
        else
            fputs("null", f);
        fputs(", \"comm_bytes\": ", f);
        rl_fput_json_number(f, w->comm_bytes);
        fputs(", \"comm_algbw_gbs\": ", f);
        rl_fput_json_number(f, w->comm_algbw_gbs);
    }
    if (ranked) {
        fprintf(f, ", \"ranks\": %u, \"time_ns_sum\": ", w->ranks);
        rl_fput_json_number(f, w->time_ns);
        fputs(", \"time_ns_max_rank\": ", f);
        rl_fput_json_number(f, w->time_ns_max_rank);
    }
}

/* ---- per rank --------------------------------------------------------------- */

static const struct rl_trace_groups *top_of;

static int cmp_time(const void *a, const void *b)
{
    double x = top_of->v[*(const size_t *)a].time_ns, y = top_of->v[*(const size_t *)b].time_ns;
    if (x != y)
        return (x < y) - (x > y);
    return strcmp(top_of->v[*(const size_t *)a].name, top_of->v[*(const size_t *)b].name);
}

static void fill_rank(struct rl_report_rank *k, const char *path, const struct rl_trace_groups *g)
{
    const struct rl_trace_rank *x = &g->sum.rank;
    k->rank = x->present ? x->rank : -1;
    k->local_rank = x->present ? x->local_rank : -1;
    k->world_size = x->present ? x->world_size : -1;
    snprintf(k->host, sizeof k->host, "%s", x->present ? x->hostname : "");
    snprintf(k->launcher, sizeof k->launcher, "%s", x->present ? x->launcher : "");
    snprintf(k->gpu, sizeof k->gpu, "%s", g->sum.gpu_name);
    snprintf(k->path, sizeof k->path, "%s", path);
    bool bytes_known = true, any_comm = false;
    for (size_t i = 0; i < g->n; i++) {
        const struct rl_trace_group *y = &g->v[i];
        k->launches += y->launches;
        k->kernel_time_ns += y->time_ns;
        if (comm_group(y)) {
            any_comm = true;
            k->comm_time_ns += y->time_ns;
            k->comm_bytes += y->comm_bytes;
            bytes_known &= y->comm_launches == y->launches;
        }
    }
    /* Comm share = NCCL kernel time / all kernel time of this rank. */
    k->comm_share = k->kernel_time_ns > 0 ? k->comm_time_ns / k->kernel_time_ns : NAN;
    if (!any_comm || !bytes_known)
        k->comm_bytes = NAN;
}

/* The top kernels of g by time into k. RL_OK, or RL_ENOMEM (none). */
static int fill_top(struct rl_report_rank *k, const struct rl_trace_groups *g)
{
    size_t *order = rl_malloc((g->n ? g->n : 1) * sizeof *order);
    if (!order)
        return RL_ENOMEM;
    for (size_t i = 0; i < g->n; i++)
        order[i] = i;
    top_of = g;
    qsort(order, g->n, sizeof *order, cmp_time);
    for (size_t i = 0; i < g->n && k->n_top < RL_RANK_TOP; i++) {
        const struct rl_trace_group *y = &g->v[order[i]];
        rl_str_shorten(k->top[k->n_top].name, sizeof k->top[k->n_top].name, y->name);
        k->top[k->n_top].time_ns = y->time_ns;
        k->top[k->n_top].comm = comm_group(y);
        k->n_top++;
    }
    free(order);
    return RL_OK;
}

static void rank_word(char *b, size_t n, const struct rl_report_rank *k, size_t index)
{
    if (k->rank >= 0)
        snprintf(b, n, "rank %d", k->rank);
    else
        snprintf(b, n, "trace %zu", index + 1);
}

/* The notes of a set of ranks: what a reader must know before trusting
 * the merge. */
static void rank_notes(struct rl_report *r, const struct rl_rank_traces *t)
{
    char text[1400], a[64], b[64];
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        size_t same = 1;
        if (k->rank < 0 || (i > 0 && r->ranks[i - 1].rank == k->rank))
            continue;
        while (i + same < r->n_ranks && r->ranks[i + same].rank == k->rank)
            same++;
        if (same > 1) {
            snprintf(text, sizeof text,
                     "rank %d appears in %zu traces ('%.300s', '%.300s'%s): each is its own entry "
                     "here, and the merge sums them all",
                     k->rank, same, k->path, r->ranks[i + 1].path, same > 2 ? ", ..." : "");
            rl_report_note(r, text);
        }
    }
    for (size_t i = 1; i < r->n_ranks; i++) {
        const struct rl_report_rank *x = &r->ranks[0], *y = &r->ranks[i];
        if (x->gpu[0] && y->gpu[0] && strcmp(x->gpu, y->gpu) != 0) {
            rank_word(a, sizeof a, x, 0);
            rank_word(b, sizeof b, y, i);
            snprintf(text, sizeof text,
                     "the ranks ran on different GPUs (%s on %s, %s on %s): the merged kernels "
                     "are judged against one GPU's ceilings",
                     x->gpu, a, y->gpu, b);
            rl_report_note(r, text);
            break;
        }
    }
    for (size_t i = 1; i < t->n; i++) {
        const char *x = t->groups[0].sum.program, *y = t->groups[i].sum.program;
        if (x[0] && y[0] && strcmp(x, y) != 0) {
            rank_word(a, sizeof a, &r->ranks[0], 0);
            rank_word(b, sizeof b, &r->ranks[i], i);
            snprintf(text, sizeof text,
                     "the traces are of different programs ('%.200s' on %s, '%.200s' on %s): "
                     "the merge sums kernels of unrelated runs",
                     x, a, y, b);
            rl_report_note(r, text);
            break;
        }
    }
    int world = -1;
    size_t distinct = 0;
    for (size_t i = 0; i < r->n_ranks; i++) {
        if (r->ranks[i].world_size > world)
            world = r->ranks[i].world_size;
        distinct += r->ranks[i].rank >= 0 && (i == 0 || r->ranks[i - 1].rank != r->ranks[i].rank);
    }
    if (world > 0 && distinct < (size_t)world) {
        snprintf(text, sizeof text,
                 "the job had %d ranks, the traces are of %zu: the merge covers only those", world,
                 distinct);
        rl_report_note(r, text);
    }
}

int rl_report_ranks(struct rl_report *r, const struct rl_rank_traces *t, char *errmsg)
{
    free(r->ranks);
    r->n_ranks = 0;
    if (!(r->ranks = rl_calloc(t->n ? t->n : 1, sizeof *r->ranks)))
        return rl_fail(errmsg, RL_ENOMEM, "out of memory");
    for (size_t i = 0; i < t->n; i++) {
        fill_rank(&r->ranks[i], t->paths[i], &t->groups[i]);
        if (fill_top(&r->ranks[i], &t->groups[i]))
            return rl_fail(errmsg, RL_ENOMEM, "out of memory"); /* r->ranks: the report's */
    }
    r->n_ranks = t->n;
    rank_notes(r, t);
    return RL_OK;
}

/* ---- outputs ---------------------------------------------------------------- */

/* The merge's totals: sums over ranks, and the largest one rank's (the
 * step's time when ranks run in parallel: the slowest rank ends the step). */
struct totals {
    double kernel_sum, kernel_max, comm_sum, comm_max;
};

static struct totals totals_of(const struct rl_report *r)
{
    struct totals s = {0, 0, 0, 0};
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        s.kernel_sum += k->kernel_time_ns;
        s.comm_sum += k->comm_time_ns;
        if (k->kernel_time_ns > s.kernel_max)
            s.kernel_max = k->kernel_time_ns;
        if (k->comm_time_ns > s.comm_max)
            s.comm_max = k->comm_time_ns;
    }
    return s;
}

static void fmt_pct(char *b, size_t n, double share)
{
    if (isnan(share))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%s%%", rl_num(100 * share, 3));
}

void rl__report_ranks_table(FILE *f, const struct rl_report *r)
{
    if (!r->n_ranks)
        return;
    fprintf(f, "\n%-6s %-16s %-22s %11s %11s %7s  %s\n", "RANK", "HOST", "GPU", "KERNEL ms",
            "COMM ms", "COMM%", "TOP KERNEL");
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        char rank[16], pct[16], top[41] = "-";
        if (k->rank >= 0)
            snprintf(rank, sizeof rank, "%d", k->rank);
        else
            snprintf(rank, sizeof rank, "-");
        fmt_pct(pct, sizeof pct, k->comm_share);
        if (k->n_top)
            rl_str_shorten(top, sizeof top, k->top[0].name);
        fprintf(f, "%-6s %-16.16s %-22.22s %11s %11s %7s  %s\n", rank,
                k->host[0] ? k->host : "-", k->gpu[0] ? k->gpu : "-",
                rl_num(k->kernel_time_ns / 1e6, 4),
                rl_num(k->comm_time_ns / 1e6, 4), pct, top);
    }
    struct totals s = totals_of(r);
    char pct[16];
    fmt_pct(pct, sizeof pct, s.kernel_sum > 0 ? s.comm_sum / s.kernel_sum : NAN);
    fprintf(f,
            "merged: %zu traces; kernel time %s ms summed, %s ms on the busiest rank; "
            "communication %s of it\n",
            r->n_ranks, rl_num(s.kernel_sum / 1e6, 4), rl_num(s.kernel_max / 1e6, 4), pct);
    rl_across_table(f, r->across);
}

static void json_int_or_null(FILE *f, const char *key, int v)
{
    if (v >= 0)
        fprintf(f, ", \"%s\": %d", key, v);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void json_str_or_null(FILE *f, const char *key, const char *v)
{
    fprintf(f, ", \"%s\": ", key);
    if (v[0])
        rl_fput_json_string(f, v);
    else
        fputs("null", f);
}

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    rl_fput_json_number(f, v);
}

void rl__report_ranks_json(FILE *f, const struct rl_report *r)
{
    bool comm = false;
    for (size_t i = 0; i < r->n && !comm; i++)
        comm = r->rows[i].comm;
    if (comm || r->n_ranks) {
        fputs("  \"communication\": {\"time_ns\": ", f);
        rl_fput_json_number(f, r->comm_time_ns);
        json_num(f, "share", r->time_ns > 0 ? r->comm_time_ns / r->time_ns : NAN);
        bool known = comm;
        for (size_t i = 0; i < r->n; i++)
            known &= !r->rows[i].comm || !isnan(r->rows[i].comm_bytes);
        fprintf(f, ", \"bytes_known\": %s},\n", known ? "true" : "false");
    }
    if (!r->n_ranks)
        return;
    fputs("  \"ranks\": [\n", f);
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        fputs("    {\"rank\": ", f);
        if (k->rank >= 0)
            fprintf(f, "%d", k->rank);
        else
            fputs("null", f);
        json_int_or_null(f, "local_rank", k->local_rank);
        json_int_or_null(f, "world_size", k->world_size);
        json_str_or_null(f, "host", k->host);
        json_str_or_null(f, "gpu", k->gpu);
        json_str_or_null(f, "launcher", k->launcher);
        json_str_or_null(f, "path", k->path);
        fprintf(f, ", \"launches\": %llu", (unsigned long long)k->launches);
        json_num(f, "kernel_time_ns", k->kernel_time_ns);
        json_num(f, "comm_time_ns", k->comm_time_ns);
        json_num(f, "comm_share", k->comm_share);
        json_num(f, "comm_bytes", k->comm_bytes);
        fputs(", \"top_kernels\": [", f);
        for (size_t j = 0; j < k->n_top; j++) {
            fputs(j ? ", {\"name\": " : "{\"name\": ", f);
            rl_fput_json_string(f, k->top[j].name);
            json_num(f, "time_ns", k->top[j].time_ns);
            fprintf(f, ", \"kind\": \"%s\"}", k->top[j].comm ? "communication" : "kernel");
        }
        fputs(i + 1 < r->n_ranks ? "]},\n" : "]}\n", f);
    }
    struct totals s = totals_of(r);
    fprintf(f, "  ],\n  \"merged\": {\"ranks\": %zu", r->n_ranks);
    json_num(f, "kernel_time_ns_sum", s.kernel_sum);
    json_num(f, "kernel_time_ns_max_rank", s.kernel_max);
    json_num(f, "comm_time_ns_sum", s.comm_sum);
    json_num(f, "comm_time_ns_max_rank", s.comm_max);
    json_num(f, "comm_share", s.kernel_sum > 0 ? s.comm_sum / s.kernel_sum : NAN);
    fputs("},\n", f);
    rl_across_json(f, r->across);
}

static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '<' || *s == '*' || *s == '_' || *s == '`')
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
}

void rl__report_ranks_markdown(FILE *f, const struct rl_report *r)
{
    if (!r->n_ranks)
        return;
    fputs("\n## Ranks\n\n| rank | host | GPU | kernel time | communication | comm share | top "
          "kernels |\n|---:|---|---|---:|---:|---:|---|\n",
          f);
    for (size_t i = 0; i < r->n_ranks; i++) {
        const struct rl_report_rank *k = &r->ranks[i];
        char pct[16];
        fmt_pct(pct, sizeof pct, k->comm_share);
        if (k->rank >= 0)
            fprintf(f, "| %d | ", k->rank);
        else
            fputs("| - | ", f);
        md_text(f, k->host[0] ? k->host : "-");
        fputs(" | ", f);
        md_text(f, k->gpu[0] ? k->gpu : "-");
        fprintf(f, " | %s ms | %s ms | %s | ", rl_num(k->kernel_time_ns / 1e6, 4),
                rl_num(k->comm_time_ns / 1e6, 4), pct);
        for (size_t j = 0; j < k->n_top && j < 3; j++) {
            fputs(j ? ", " : "", f);
            md_text(f, k->top[j].name);
        }
        fputs(" |\n", f);
    }
    struct totals s = totals_of(r);
    char pct[16];
    fmt_pct(pct, sizeof pct, s.kernel_sum > 0 ? s.comm_sum / s.kernel_sum : NAN);
    fprintf(f,
            "\nMerged over %zu traces: %s ms of kernel time summed, %s ms on the busiest "
            "rank (the step's time when the ranks run together); communication %s of the sum. "
            "The kernel table above sums each group over the ranks.\n",
            r->n_ranks, rl_num(s.kernel_sum / 1e6, 4), rl_num(s.kernel_max / 1e6, 4), pct);
    rl_across_markdown(f, r->across);
}
