/* check_ranks_split.c - the parts of a job split over processes (report/ranks-split.h): who a process is from the launcher's environment, a part read back as written, and every bad part refused. */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks-split.h"
#include "analyzer/report/ranks.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const launcher_vars[] = {
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_NAMESPACE", "SLURM_PROCID",
    "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID", "PMI_RANK",
    "PMI_SIZE", "RANK", "WORLD_SIZE"};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof launcher_vars / sizeof *launcher_vars; i++)
        unsetenv(launcher_vars[i]);
}

START_TEST(who_this_process_is)
{
    struct rl_rank_split s;
    char err[RL_ERRMSG_SIZE];
    clear_env();
    setenv("RANK", "1", 1), setenv("WORLD_SIZE", "4", 1); /* torchrun's: not ours */
    rl_rank_split_detect(&s);
    ck_assert_int_eq(s.count, 1);
    /* a batch script: SLURM_PROCID and SLURM_NTASKS, no step */
    setenv("SLURM_PROCID", "0", 1), setenv("SLURM_NTASKS", "8", 1);
    rl_rank_split_detect(&s);
    ck_assert_int_eq(s.count, 1);
    setenv("SLURM_STEP_NUM_TASKS", "8", 1), setenv("SLURM_PROCID", "5", 1);
    setenv("SLURM_JOB_ID", "777", 1), setenv("SLURM_STEP_ID", "0", 1);
    rl_rank_split_detect(&s);
    ck_assert_int_eq(s.index, 5); ck_assert_int_eq(s.count, 8);
    ck_assert_str_eq(s.launcher, "srun"); ck_assert_str_eq(s.key, "777.0");
    ck_assert(s.timeout_s == 600);
    /* Open MPI first; its namespace made a name part */
    setenv("OMPI_COMM_WORLD_RANK", "2", 1), setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    setenv("PMIX_NAMESPACE", "prterun-h/12@1", 1);
    rl_rank_split_detect(&s);
    ck_assert_int_eq(s.index, 2); ck_assert_int_eq(s.count, 3);
    ck_assert_str_eq(s.launcher, "mpirun"); ck_assert_str_eq(s.key, "prterun-h_12_1");
    ck_assert_int_eq(rl_rank_split_place(&s, "a/b/out/", err), RL_OK);
    ck_assert_str_eq(s.folder, "a/b/.out.parts-prterun-h_12_1");
    ck_assert_int_eq(rl_rank_split_place(&s, "out", err), RL_OK);
    ck_assert_str_eq(s.folder, "./.out.parts-prterun-h_12_1");
    ck_assert_int_eq(rl_rank_split_place(&s, "/out", err), RL_OK);
    ck_assert_str_eq(s.folder, "/.out.parts-prterun-h_12_1");
    ck_assert_int_eq(rl_rank_split_place(&s, NULL, err), RL_OK);
    ck_assert_str_eq(s.folder, "./.roofline.parts-prterun-h_12_1");
    /* a rank past the size, a word: not a launcher's */
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("SLURM_PROCID", "x", 1);
    rl_rank_split_detect(&s);
    ck_assert_int_eq(s.count, 1);
    /* MPICH's Hydra: no job id */
    setenv("PMI_RANK", "1", 1), setenv("PMI_SIZE", "2", 1);
    rl_rank_split_detect(&s);
    ck_assert_int_eq(s.index, 1); ck_assert_str_eq(s.launcher, "mpich");
    ck_assert_str_eq(s.key, "");
    ck_assert(rl_rank_split_mine(&s, 1) && rl_rank_split_mine(&s, 3));
    ck_assert(!rl_rank_split_mine(&s, 0) && !rl_rank_split_mine(&s, 2));
    clear_env();
}
END_TEST

/* kineto3's three ranks, copied to a folder of their own, read whole. */
struct job {
    struct rl_rank_traces t;
    struct rl_torch_stats stats[3];
    int rc[3];
    char err[3][RL_ERRMSG_SIZE];
    char dir[4096];
};

static void load_job(struct job *j)
{
    memset(j, 0, sizeof *j);
    snprintf(j->dir, sizeof j->dir, "%s/job", rl_test_tmpdir());
    mkdir(j->dir, 0777);
    char **files = calloc(3, sizeof *files);
    for (int i = 0; i < 3; i++) {
        char name[32], path[4200];
        snprintf(name, sizeof name, "ranks/kineto3/rank-%d.json", i);
        char *text = rl_test_slurp(rl_test_data(name));
        ck_assert_ptr_nonnull(text);
        snprintf(path, sizeof path, "%s/rank-%d.json", j->dir, i);
        FILE *f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
        free(text);
        files[i] = strdup(path);
        /* each file's stats as a pattern: copied as they are */
        memset(&j->stats[i], 0x40 + i, sizeof j->stats[i]);
    }
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_rank_traces_load_torch(&j->t, files, 3, 1, &st, err), RL_OK);
}

/* An empty job of j's files, to read a part into. */
static void empty_like(struct job *e, const struct job *j)
{
    memset(e, 0, sizeof *e);
    e->t.n = j->t.n;
    e->t.paths = calloc(j->t.n, sizeof *e->t.paths);
    for (size_t i = 0; i < j->t.n; i++)
        e->t.paths[i] = strdup(j->t.paths[i]);
    e->t.groups = calloc(j->t.n, sizeof *e->t.groups);
    e->t.timelines = calloc(j->t.n, sizeof *e->t.timelines);
    e->t.sums = calloc(j->t.n, sizeof *e->t.sums);
}

static struct rl_rank_part part_of(struct job *j)
{
    return (struct rl_rank_part){&j->t, j->stats, j->rc, j->err};
}

/* The part of process 1 of 2 written to path; its bytes (malloc'd), *len. */
static char *write_part(struct job *j, const char *path, size_t *len)
{
    struct rl_rank_split s = {.index = 1, .count = 2};
    struct rl_rank_part p = part_of(j);
    FILE *f = fopen(path, "wb");
    ck_assert_int_eq(rl_rank_part_write(f, &s, &p), RL_OK);
    fclose(f);
    char *bytes = NULL;
    f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    bytes = malloc(*len);
    ck_assert_uint_eq(fread(bytes, 1, *len, f), *len);
    fclose(f);
    return bytes;
}

static int read_part(struct job *e, const char *path, const void *bytes, size_t len, char *err)
{
    FILE *f = fopen(path, "wb");
    fwrite(bytes, 1, len, f);
    fclose(f);
    f = fopen(path, "rb");
    struct rl_rank_split s = {.index = 0, .count = 2};
    struct rl_rank_part p = part_of(e);
    int rc = rl_rank_part_read(f, path, &s, 1, &p, err);
    fclose(f);
    return rc;
}

START_TEST(a_part_reads_back_as_written)
{
    struct job *j = calloc(1, sizeof *j), *e = calloc(1, sizeof *e);
    load_job(j);
    char path[4200], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/part", rl_test_tmpdir());
    size_t len;
    char *bytes = write_part(j, path, &len);
    empty_like(e, j);
    ck_assert_int_eq(read_part(e, path, bytes, len, err), RL_OK);
    /* process 1 of 2 has file 1 only */
    ck_assert_uint_eq(e->t.groups[0].n, 0); ck_assert_uint_eq(e->t.groups[2].n, 0);
    const struct rl_trace_groups *a = &j->t.groups[1], *b = &e->t.groups[1];
    ck_assert_uint_gt(a->n, 0);
    ck_assert_uint_eq(a->n, b->n);
    ck_assert(memcmp(&a->sum, &b->sum, sizeof a->sum) == 0);
    for (size_t k = 0; k < a->n; k++) {
        ck_assert_str_eq(a->v[k].name, b->v[k].name);
        ck_assert(a->v[k].op ? b->v[k].op && !strcmp(a->v[k].op, b->v[k].op) : !b->v[k].op);
        ck_assert(a->v[k].time_ns == b->v[k].time_ns);
        ck_assert_uint_eq(a->v[k].launches, b->v[k].launches);
    }
    ck_assert(memcmp(&j->t.sums[1], &e->t.sums[1], sizeof j->t.sums[1]) == 0);
    const struct rl_timeline *x = &j->t.timelines[1], *y = &e->t.timelines[1];
    ck_assert_uint_gt(x->n_act, 0);
    ck_assert_uint_eq(x->n_act, y->n_act); ck_assert_uint_eq(x->n_step, y->n_step);
    ck_assert(x->base_us == y->base_us && x->have_base == y->have_base);
    ck_assert(memcmp(x->act, y->act, x->n_act * sizeof *x->act) == 0);
    ck_assert(memcmp(x->step, y->step, x->n_step * sizeof *x->step) == 0);
    ck_assert(memcmp(&j->stats[1], &e->stats[1], sizeof j->stats[1]) == 0);
    rl_rank_traces_release(&e->t);

    /* a failed file travels as its code and message */
    j->rc[1] = RL_EPARSE;
    snprintf(j->err[1], sizeof j->err[1], "'rank-1.json': line 3: expected ','");
    free(bytes);
    bytes = write_part(j, path, &len);
    empty_like(e, j);
    ck_assert_int_eq(read_part(e, path, bytes, len, err), RL_OK);
    ck_assert_int_eq(e->rc[1], RL_EPARSE);
    ck_assert_str_eq(e->err[1], "'rank-1.json': line 3: expected ','");
    rl_rank_traces_release(&e->t);
    free(bytes);
    rl_rank_traces_release(&j->t);
    free(j), free(e);
}
END_TEST

START_TEST(bad_parts_are_refused)
{
    struct job *j = calloc(1, sizeof *j), *e = calloc(1, sizeof *e);
    load_job(j);
    char path[4200], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/part", rl_test_tmpdir());
    size_t len;
    char *bytes = write_part(j, path, &len);
    char *bad = malloc(len);
    /* every single byte flipped in turn: never read as good */
    size_t step = len / 97 ? len / 97 : 1;
    for (size_t at = 0; at < len; at += step) {
        memcpy(bad, bytes, len);
        bad[at] ^= 0x10;
        empty_like(e, j);
        int rc = read_part(e, path, bad, len, err);
        ck_assert_msg(rc != RL_OK, "byte %zu flipped, read as good", at);
        rl_rank_traces_release(&e->t);
    }
    /* the version (after the 8-byte magic): another build's */
    memcpy(bad, bytes, len);
    bad[8] ^= 0x01;
    empty_like(e, j);
    ck_assert_int_eq(read_part(e, path, bad, len, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "another roofline build"));
    rl_rank_traces_release(&e->t);
    /* cut anywhere: truncated */
    for (size_t cut = 0; cut < len; cut += step) {
        empty_like(e, j);
        ck_assert_int_eq(read_part(e, path, bytes, cut, err), RL_EPARSE);
        rl_rank_traces_release(&e->t);
    }
    /* one of the job's files changed since: the part is another run's */
    char file[4200];
    snprintf(file, sizeof file, "%s/rank-2.json", j->dir);
    FILE *f = fopen(file, "a");
    fputs("\n", f);
    fclose(f);
    empty_like(e, j);
    ck_assert_int_eq(read_part(e, path, bytes, len, err), RL_ENOTFOUND);
    rl_rank_traces_release(&e->t);
    free(bad), free(bytes);
    rl_rank_traces_release(&j->t);
    free(j), free(e);
}
END_TEST

START_TEST(gather_waits_then_says_who)
{
    struct job *j = calloc(1, sizeof *j), *e = calloc(1, sizeof *e);
    load_job(j);
    char err[RL_ERRMSG_SIZE];
    struct rl_rank_split s = {.index = 0, .count = 2, .timeout_s = 0.3};
    snprintf(s.launcher, sizeof s.launcher, "mpirun");
    snprintf(s.folder, sizeof s.folder, "%s/.out.parts-1", rl_test_tmpdir());
    empty_like(e, j);
    struct rl_rank_part p = part_of(e);
    ck_assert_int_eq(rl_rank_split_gather(&s, &p, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "process 1 of 2 (mpirun) sent no summary"));
    ck_assert_int_ne(access(s.folder, F_OK), 0); /* removed */
    /* sent by process 1, gathered by process 0, the folder gone after */
    struct rl_rank_split one = s;
    one.index = 1;
    struct rl_rank_part q = part_of(j);
    ck_assert_int_eq(rl_rank_split_send(&one, &q, err), RL_OK);
    ck_assert_int_eq(rl_rank_split_gather(&s, &p, err), RL_OK);
    ck_assert_uint_eq(e->t.timelines[1].n_act, j->t.timelines[1].n_act);
    ck_assert_int_ne(access(s.folder, F_OK), 0);
    rl_rank_traces_release(&e->t);
    rl_rank_traces_release(&j->t);
    free(j), free(e);
}
END_TEST

static Suite *ranks_split_suite(void)
{
    Suite *s = suite_create("ranks_split");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, who_this_process_is);
    tcase_add_test(core, a_part_reads_back_as_written);
    tcase_add_test(core, bad_parts_are_refused);
    tcase_add_test(core, gather_waits_then_says_who);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(ranks_split_suite()); }
