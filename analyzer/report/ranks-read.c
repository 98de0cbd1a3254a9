/* ranks-read.c - the traces of a parallel job's ranks read: files and folders listed, each rank streamed by one of a pool of threads (or its share under mpirun/srun), then sorted by rank; the same result for any -j. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/ranks.h"

#include "analyzer/readers/torch.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks-split.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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
        int trace = rl_trace_file_sniff(path, errmsg);
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

/* A rank read should cost the process only what the rank keeps (H of the
 * memory bound, docs/ranks.md "Memory"). glibc's malloc raises its mmap
 * threshold to the largest block freed (up to 32 MB): after the first
 * rank, the next ones' activity arrays and read buffers (MBs) come from
 * the heap, where the kept collectives and steps of every rank land between
 * them and freed memory stays resident: a rank of 41 MB cost 1.2 MiB of
 * resident set from 2 to 4 ranks, not the 0.86 MiB it keeps (bench_ranks).
 * A fixed threshold (glibc's default one) keeps each block of 128 KiB or
 * more in its own mapping, unmapped when freed. It is the process's
 * setting from then on: the report is written right after. */
static void keep_heap_bounded(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
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
        keep_heap_bounded();
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
