/* ranks-split.c - a job's rank traces read by several processes, their summaries gathered on process 0 (see ranks-split.h). */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/report/ranks-split.h"

#include "analyzer/readers/timeline.h"
#include "analyzer/readers/torch.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/fileio.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- who this process is ---------------------------------------------------- */

static const struct launcher {
    const char *name, *rank, *size;
    const char *key[2];         /* joined with '.', those set */
} launchers[] = {
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", {"PMIX_NAMESPACE", NULL}},
    {"srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", {"SLURM_JOB_ID", "SLURM_STEP_ID"}},
    {"mpich", "PMI_RANK", "PMI_SIZE", {NULL, NULL}},
};

/* A whole number >= 0 below 2^30, else -1. */
static long env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    return *end || errno || x < 0 || x >= (1L << 30) ? -1 : x;
}

void rl_rank_split_detect(struct rl_rank_split *s)
{
    memset(s, 0, sizeof *s);
    s->count = 1;
    s->timeout_s = 600;
    for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
        const struct launcher *l = &launchers[i];
        long rank = env_count(l->rank), size = env_count(l->size);
        if (rank < 0 || size < 1 || rank >= size)
            continue;
        s->index = (int)rank, s->count = (int)size;
        snprintf(s->launcher, sizeof s->launcher, "%s", l->name);
        for (int k = 0; k < 2 && l->key[k]; k++) {
            const char *v = getenv(l->key[k]);
            if (!v || !*v)
                continue;
            size_t at = strlen(s->key);
            if (at && at + 1 < sizeof s->key)
                s->key[at++] = '.';
            /* a name part: '@', '/' and the like become '_' */
            for (; *v && at + 1 < sizeof s->key; v++)
                s->key[at++] = (*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'z') ||
                                       (*v >= 'A' && *v <= 'Z') || *v == '.' || *v == '-'
                                   ? *v
                                   : '_';
            s->key[at] = '\0';
        }
        return;
    }
}

int rl_rank_split_place(struct rl_rank_split *s, const char *out, char *errmsg)
{
    char parent[4096] = ".", name[1024] = "roofline";
    if (out && *out) {
        size_t len = strlen(out);
        while (len > 1 && out[len - 1] == '/')
            len--;
        size_t cut = len;
        while (cut > 0 && out[cut - 1] != '/')
            cut--;
        if (cut > 0)
            snprintf(parent, sizeof parent, "%.*s", (int)(cut > 1 ? cut - 1 : 1), out);
        if (len > cut)
            snprintf(name, sizeof name, "%.*s", (int)(len - cut), out + cut);
    }
    int k = snprintf(s->folder, sizeof s->folder, "%s%s.%s.parts%s%s", parent,
                     strcmp(parent, "/") == 0 ? "" : "/", name, s->key[0] ? "-" : "", s->key);
    if (k < 0 || (size_t)k >= sizeof s->folder)
        return rl_fail(errmsg, RL_EINVAL, "'%s': the path is too long", out ? out : ".");
    return RL_OK;
}

bool rl_rank_split_mine(const struct rl_rank_split *s, size_t i)
{
    return s->count <= 1 || i % (size_t)s->count == (size_t)s->index;
}

/* ---- the format ------------------------------------------------------------- */

/* "RLRANKP\n", version, byte order, the sizes of the structures copied as
 * they are (the same build reads them), from, count, the job's files
 * (their number and a hash of their paths, sizes and times), the entries,
 * and an FNV-1a hash of every byte before it. */
static const char magic[8] = {'R', 'L', 'R', 'A', 'N', 'K', 'P', '\n'};
#define BYTE_ORDER_MARK 0x01020304u

static const uint32_t struct_sizes[] = {
    sizeof(struct rl_torch_stats),  sizeof(struct rl_trace_summary),
    sizeof(struct rl_trace_group),  sizeof(struct rl_across_rank),
    sizeof(struct rl_timeline_act), sizeof(struct rl_timeline_step),
};
#define N_SIZES (sizeof struct_sizes / sizeof *struct_sizes)

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
#define FNV_START 0xcbf29ce484222325ull

/* The files of the job as this process sees them: paths, sizes, times. */
static uint64_t files_hash(const struct rl_rank_traces *t)
{
    uint64_t h = fnv(FNV_START, &t->n, sizeof t->n);
    for (size_t i = 0; i < t->n; i++) {
        struct stat st;
        int64_t id[3] = {-1, -1, -1};
        if (stat(t->paths[i], &st) == 0)
            id[0] = (int64_t)st.st_size, id[1] = (int64_t)st.st_mtim.tv_sec,
            id[2] = (int64_t)st.st_mtim.tv_nsec;
        h = fnv(h, t->paths[i], strlen(t->paths[i]) + 1);
        h = fnv(h, id, sizeof id);
    }
    return h;
}

struct out {
    FILE *f;
    uint64_t hash;
    bool failed;
};

static void put(struct out *o, const void *data, size_t n)
{
    o->hash = fnv(o->hash, data, n);
    if (n && fwrite(data, 1, n, o->f) != n)
        o->failed = true;
}

static void put_u64(struct out *o, uint64_t v)
{
    put(o, &v, sizeof v);
}

/* NULL: length UINT32_MAX. */
static void put_str(struct out *o, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
    put(o, &n, sizeof n);
    if (s)
        put(o, s, n);
}

static void put_slot(struct out *o, const struct rl_rank_part *p, size_t i)
{
    const struct rl_rank_traces *t = p->t;
    put_u64(o, i);
    put_str(o, t->paths[i]);
    int32_t rc = p->rc[i];
    put(o, &rc, sizeof rc);
    if (rc) {
        put_str(o, p->err[i]);
        return;
    }
    put(o, &p->stats[i], sizeof p->stats[i]);
    const struct rl_trace_groups *g = &t->groups[i];
    put(o, &g->sum, sizeof g->sum);
    put_u64(o, g->n);
    for (size_t k = 0; k < g->n; k++) {
        struct rl_trace_group y = g->v[k];
        y.name = y.op = y.shapes = NULL; /* their text follows */
        put(o, &y, sizeof y);
        put_str(o, g->v[k].name);
        put_str(o, g->v[k].op);
        put_str(o, g->v[k].shapes);
    }
    put(o, &t->sums[i], sizeof t->sums[i]);
    const struct rl_timeline *tl = &t->timelines[i];
    int64_t base = tl->base_us;
    uint8_t have = tl->have_base;
    put(o, &base, sizeof base);
    put(o, &have, sizeof have);
    put_u64(o, tl->n_act);
    put(o, tl->act, tl->n_act * sizeof *tl->act);
    put_u64(o, tl->n_step);
    put(o, tl->step, tl->n_step * sizeof *tl->step);
}

int rl_rank_part_write(FILE *f, const struct rl_rank_split *s, const struct rl_rank_part *p)
{
    struct out o = {f, FNV_START, false};
    uint32_t head[2 + N_SIZES + 2] = {RL_RANK_PART_VERSION, BYTE_ORDER_MARK};
    memcpy(head + 2, struct_sizes, sizeof struct_sizes);
    head[2 + N_SIZES] = (uint32_t)s->index;
    head[3 + N_SIZES] = (uint32_t)s->count;
    put(&o, magic, sizeof magic);
    put(&o, head, sizeof head);
    put_u64(&o, files_hash(p->t));
    uint64_t mine = 0;
    for (size_t i = 0; i < p->t->n; i++)
        mine += rl_rank_split_mine(s, i);
    put_u64(&o, mine);
    for (size_t i = 0; i < p->t->n; i++)
        if (rl_rank_split_mine(s, i))
            put_slot(&o, p, i);
    uint64_t h = o.hash;
    put(&o, &h, sizeof h);
    return o.failed ? RL_EIO : RL_OK;
}

/* Reading: every count checked against the bytes left. */
struct in {
    FILE *f;
    const char *what;
    uint64_t hash;
    long long left;             /* bytes not read yet */
    char *errmsg;
};

static int get(struct in *in, void *data, size_t n)
{
    if ((long long)n > in->left || (n && fread(data, 1, n, in->f) != n))
        return rl_fail(in->errmsg, RL_EPARSE, "'%s': truncated", in->what);
    in->left -= (long long)n;
    in->hash = fnv(in->hash, data, n);
    return RL_OK;
}

/* A count of items of `size` bytes that the rest of the part can hold. */
static int get_count(struct in *in, size_t size, uint64_t *n)
{
    int rc = get(in, n, sizeof *n);
    if (rc == RL_OK && size && *n > (uint64_t)in->left / size)
        rc = rl_fail(in->errmsg, RL_EPARSE, "'%s': a count past its end (%llu)", in->what,
                     (unsigned long long)*n);
    return rc;
}

/* *out: malloc'd text (NULL when written as NULL). */
static int get_str(struct in *in, char **out)
{
    uint32_t n;
    *out = NULL;
    int rc = get(in, &n, sizeof n);
    if (rc || n == UINT32_MAX)
        return rc;
    if ((long long)n > in->left)
        return rl_fail(in->errmsg, RL_EPARSE, "'%s': truncated", in->what);
    if (!(*out = rl_malloc((size_t)n + 1)))
        return rl_fail(in->errmsg, RL_ENOMEM, "out of memory");
    (*out)[n] = '\0';
    return get(in, *out, n);
}

static int get_groups(struct in *in, struct rl_trace_groups *g)
{
    uint64_t n;
    int rc = get_count(in, sizeof *g->v, &n);
    if (rc == RL_OK && !(g->v = rl_calloc(n ? n : 1, sizeof *g->v)))
        rc = rl_fail(in->errmsg, RL_ENOMEM, "out of memory");
    for (uint64_t k = 0; rc == RL_OK && k < n; k++) {
        struct rl_trace_group *y = &g->v[k];
        rc = get(in, y, sizeof *y);
        y->name = y->op = y->shapes = NULL;
        g->n = g->cap = k + 1;  /* releasable from here */
        if (rc == RL_OK)
            rc = get_str(in, &y->name);
        if (rc == RL_OK)
            rc = get_str(in, &y->op);
        if (rc == RL_OK)
            rc = get_str(in, &y->shapes);
        if (rc == RL_OK && !y->name)
            rc = rl_fail(in->errmsg, RL_EPARSE, "'%s': a kernel group without a name",
                         in->what);
    }
    return rc;
}

static int get_timeline(struct in *in, struct rl_timeline *tl)
{
    int64_t base;
    uint8_t have;
    uint64_t n;
    int rc = get(in, &base, sizeof base);
    if (rc == RL_OK)
        rc = get(in, &have, sizeof have);
    tl->base_us = base, tl->have_base = have != 0;
    if (rc == RL_OK)
        rc = get_count(in, sizeof *tl->act, &n);
    if (rc == RL_OK && !(tl->act = rl_malloc((n ? n : 1) * sizeof *tl->act)))
        rc = rl_fail(in->errmsg, RL_ENOMEM, "out of memory");
    if (rc == RL_OK && (rc = get(in, tl->act, n * sizeof *tl->act)) == RL_OK)
        tl->n_act = tl->cap_act = n;
    if (rc == RL_OK)
        rc = get_count(in, sizeof *tl->step, &n);
    if (rc == RL_OK && !(tl->step = rl_malloc((n ? n : 1) * sizeof *tl->step)))
        rc = rl_fail(in->errmsg, RL_ENOMEM, "out of memory");
    if (rc == RL_OK && (rc = get(in, tl->step, n * sizeof *tl->step)) == RL_OK)
        tl->n_step = tl->cap_step = n;
    return rc;
}

/* One entry into its slot: the index must be one of process from's, not
 * read before (*seen), and name the same file as here. */
static int get_slot(struct in *in, const struct rl_rank_split *s, int from, bool *seen,
                    struct rl_rank_part *p)
{
    struct rl_rank_traces *t = p->t;
    uint64_t i;
    char *path = NULL;
    int32_t code;
    int rc = get(in, &i, sizeof i);
    if (rc == RL_OK && (i >= t->n || i % (uint64_t)s->count != (uint64_t)from || seen[i]))
        rc = rl_fail(in->errmsg, RL_EPARSE, "'%s': file %llu is not one of process %d's",
                     in->what, (unsigned long long)i, from);
    if (rc == RL_OK)
        rc = get_str(in, &path);
    if (rc == RL_OK && (!path || strcmp(path, t->paths[i]) != 0))
        rc = rl_fail(in->errmsg, RL_EPARSE, "'%s': file %llu is '%.200s' there, '%.200s' here",
                     in->what, (unsigned long long)i, path ? path : "", t->paths[i]);
    free(path);
    if (rc == RL_OK)
        rc = get(in, &code, sizeof code);
    if (rc)
        return rc;
    seen[i] = true;
    p->rc[i] = code;
    if (code) {
        char *text;
        if ((rc = get_str(in, &text)) == RL_OK)
            snprintf(p->err[i], sizeof p->err[i], "%s", text ? text : "");
        free(text);
        if (rc == RL_OK && code >= 0)
            rc = rl_fail(in->errmsg, RL_EPARSE, "'%s': file %llu's result code %d",
                         in->what, (unsigned long long)i, (int)code);
        return rc;
    }
    struct rl_trace_groups *g = &t->groups[i];
    rc = get(in, &p->stats[i], sizeof p->stats[i]);
    if (rc == RL_OK)
        rc = get(in, &g->sum, sizeof g->sum);
    if (rc == RL_OK)
        rc = get_groups(in, g);
    if (rc == RL_OK)
        rc = get(in, &t->sums[i], sizeof t->sums[i]);
    if (rc == RL_OK)
        rc = get_timeline(in, &t->timelines[i]);
    return rc;
}

int rl_rank_part_read(FILE *f, const char *what, const struct rl_rank_split *s, int from,
                      struct rl_rank_part *p, char *errmsg)
{
    struct stat st;
    struct in in = {f, what, FNV_START, 0, errmsg};
    if (fstat(fileno(f), &st) != 0)
        return rl_fail(errmsg, RL_EIO, "'%s': %s", what, strerror(errno));
    in.left = (long long)st.st_size - (long long)sizeof(uint64_t); /* the hash after */
    char m[sizeof magic];
    uint32_t head[2 + N_SIZES + 2];
    uint64_t files, n;
    int rc = get(&in, m, sizeof m);
    if (rc == RL_OK && memcmp(m, magic, sizeof m) != 0)
        rc = rl_fail(errmsg, RL_EPARSE, "'%s': not a part of a split report", what);
    if (rc == RL_OK)
        rc = get(&in, head, sizeof head);
    if (rc == RL_OK && (head[0] != RL_RANK_PART_VERSION || head[1] != BYTE_ORDER_MARK ||
                        memcmp(head + 2, struct_sizes, sizeof struct_sizes) != 0))
        rc = rl_fail(errmsg, RL_ESCHEMA,
                     "'%s': format %u written by another roofline build (this one reads "
                     "format %d): run the same roofline on every process",
                     what, head[0], RL_RANK_PART_VERSION);
    if (rc == RL_OK && (head[2 + N_SIZES] != (uint32_t)from ||
                        head[3 + N_SIZES] != (uint32_t)s->count))
        rc = rl_fail(errmsg, RL_EPARSE, "'%s': written as process %u of %u, not %d of %d",
                     what, head[2 + N_SIZES], head[3 + N_SIZES], from, s->count);
    if (rc == RL_OK)
        rc = get(&in, &files, sizeof files);
    if (rc == RL_OK && files != files_hash(p->t))
        return RL_ENOTFOUND;    /* another job's files, or the same files changed */
    bool *seen = rc == RL_OK ? rl_calloc(p->t->n ? p->t->n : 1, sizeof *seen) : NULL;
    if (rc == RL_OK && !seen)
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    if (rc == RL_OK)
        rc = get_count(&in, 1, &n);
    size_t want = 0;
    for (size_t i = 0; rc == RL_OK && i < p->t->n; i++)
        want += i % (size_t)s->count == (size_t)from;
    if (rc == RL_OK && n != want)
        rc = rl_fail(errmsg, RL_EPARSE, "'%s': %llu files, process %d has %zu", what,
                     (unsigned long long)n, from, want);
    for (uint64_t k = 0; rc == RL_OK && k < n; k++)
        rc = get_slot(&in, s, from, seen, p);
    free(seen);
    uint64_t h = in.hash, stored;
    in.left += (long long)sizeof stored;
    if (rc == RL_OK)
        rc = get(&in, &stored, sizeof stored);
    if (rc == RL_OK && (stored != h || in.left != 0))
        rc = rl_fail(errmsg, RL_EPARSE, "'%s': %s", what,
                     stored != h ? "its checksum does not match (corrupt)" : "bytes past its end");
    return rc;
}

/* ---- the exchange ----------------------------------------------------------- */

static void part_path(char *buf, size_t size, const struct rl_rank_split *s, int index)
{
    snprintf(buf, size, "%s/part-%d-of-%d", s->folder, index, s->count);
}

static int make_folder(const struct rl_rank_split *s, char *errmsg)
{
    if (mkdir(s->folder, 0777) != 0 && errno != EEXIST)
        return rl_fail(errmsg, RL_EIO,
                       "cannot create '%s', where the processes' summaries meet: %s", s->folder,
                       strerror(errno));
    return RL_OK;
}

int rl_rank_split_send(const struct rl_rank_split *s, const struct rl_rank_part *p,
                       char *errmsg)
{
    char path[4200];
    part_path(path, sizeof path, s, s->index);
    int rc = make_folder(s, errmsg);
    struct rl_atomic_file f = {0};
    if (rc == RL_OK)
        rc = rl_atomic_open(&f, path, errmsg);
    if (rc)
        return rc;
    if (rl_rank_part_write(f.fp, s, p)) {
        rl_atomic_abort(&f);
        return rl_fail(errmsg, RL_EIO, "'%s': write failed", path);
    }
    return rl_atomic_commit(&f, errmsg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A stop (mpirun's SIGTERM when another process failed, ^C) while process
 * 0 waits: the parts and their folder are removed, then the signal acts. */
static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
    stopped = sig;
}

static void remove_parts(const struct rl_rank_split *s)
{
    char path[4200];
    for (int k = 1; k < s->count; k++) {
        part_path(path, sizeof path, s, k);
        unlink(path);
    }
    rmdir(s->folder);
}

int rl_rank_split_gather(const struct rl_rank_split *s, struct rl_rank_part *p, char *errmsg)
{
    struct sigaction stop = {.sa_handler = on_stop}, old_term, old_int;
    sigemptyset(&stop.sa_mask);
    stopped = 0;
    sigaction(SIGTERM, &stop, &old_term);
    sigaction(SIGINT, &stop, &old_int);
    int rc = make_folder(s, errmsg);
    bool *done = rc == RL_OK ? rl_calloc((size_t)s->count, sizeof *done) : NULL;
    if (rc == RL_OK && !done)
        rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
    int left = s->count - 1, stale = -1;
    double end = now_s() + s->timeout_s, nap_s = 0.01;
    char path[4200];
    while (rc == RL_OK && left > 0 && !stopped) {
        for (int k = 1; rc == RL_OK && k < s->count; k++) {
            if (done[k])
                continue;
            part_path(path, sizeof path, s, k);
            FILE *f = fopen(path, "rb");
            if (!f)
                continue;       /* not yet */
            rc = rl_rank_part_read(f, path, s, k, p, errmsg);
            fclose(f);
            if (rc == RL_ENOTFOUND) {
                stale = k;      /* a part left by another run: wait for this one's */
                rc = RL_OK;
                continue;
            }
            done[k] = true, left--;
        }
        if (rc == RL_OK && left > 0) {
            if (now_s() > end) {
                int k = 1;
                while (done[k])
                    k++;
                rc = stale >= 0 && !done[stale]
                         ? rl_fail(errmsg, RL_EIO,
                                   "process %d of %d (%s) sent a summary of other files than "
                                   "these (it sees other files, or its part is another run's): "
                                   "nothing written",
                                   stale, s->count, s->launcher)
                         : rl_fail(errmsg, RL_EIO,
                                   "process %d of %d (%s) sent no summary of its ranks' traces "
                                   "in %g s (--gather-timeout): it stopped, or does not see "
                                   "'%s' (every process must share that filesystem): nothing "
                                   "written",
                                   k, s->count, s->launcher, s->timeout_s, s->folder);
                break;
            }
            struct timespec ts = {0, (long)(nap_s * 1e9)};
            nanosleep(&ts, NULL);
            if (nap_s < 0.25)
                nap_s *= 2;
        }
    }
    remove_parts(s);
    free(done);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGINT, &old_int, NULL);
    if (stopped)
        raise(stopped);         /* acts now, as it would have */
    if (rc == RL_OK && stopped)
        rc = rl_fail(errmsg, RL_EIO, "stopped by signal %d", (int)stopped);
    return rc;
}
