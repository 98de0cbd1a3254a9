/* check_across.c - tests of a job across its ranks: timelines, interval sums, collectives matched rank to rank (skew, straggler, bus bandwidth), the parallel read, on tests/data/ranks/kineto3 (hand-worked) and the real sampled-ranks set (hand counts by tests/data/ranks/across_facts.py). */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/comm/collective.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/readers/timeline.h"
#include "analyzer/readers/torch.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks.h"
#include "analyzer/report/report.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1700000000000000LL /* epoch us, as Kineto writes them */

static void near(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want) + 1e-9, "got %.17g, want %.17g", got,
                  want);
}

/* A compute or communication activity [a, b) us after T0. */
static void act(struct rl_timeline *t, double a_us, double b_us, enum rl_act_kind k,
                const char *coll)
{
    ck_assert_int_eq(rl_timeline_add_act(t, T0 + (long long)a_us, a_us - floor(a_us),
                                         b_us - a_us, 7, k, coll),
                     RL_OK);
}

/* Interval sums worked by hand:
 * compute [0,10) [5,20) [30,40)  -> union [0,20) [30,40) = 30 us
 * comm    [15,35) [50,60) [60,70) -> union [15,35) [50,70) = 40 us
 * copy    [80,90)
 * every   [0,40) [50,70) [80,90) = 70 us busy; span 0..90 = 90; idle 20
 * hidden  = comm ∩ compute = [15,20) + [30,35) = 10 us; exposed 30 us. */
START_TEST(interval_sums_by_hand)
{
    struct rl_timeline t = {0};
    act(&t, 0, 10, RL_ACT_COMPUTE, NULL);
    act(&t, 5, 20, RL_ACT_COMPUTE, NULL);
    act(&t, 15, 35, RL_ACT_COMM, "allreduce");
    act(&t, 30, 40, RL_ACT_COMPUTE, NULL);
    act(&t, 60, 70, RL_ACT_COMM, "allreduce"); /* out of order, touching the next */
    act(&t, 50, 60, RL_ACT_COMM, "allreduce");
    act(&t, 80, 90, RL_ACT_COPY, NULL);
    ck_assert_int_eq(rl_timeline_add_step(&t, "ProfilerStep#7", T0, 0.5, 40), RL_OK);
    ck_assert_int_eq(rl_timeline_add_step(&t, "ProfilerStep#8", T0 + 40, 0.5, 60), RL_OK);
    struct rl_across_rank k;
    ck_assert_int_eq(rl_across_rank_sum(&k, 3, &t), RL_OK);
    ck_assert_int_eq(k.rank, 3);
    near(k.busy_ns, 70e3);
    near(k.span_ns, 90e3);
    near(k.idle_ns, 20e3);
    near(k.compute_ns, 30e3);
    near(k.comm_ns, 40e3);
    near(k.hidden_ns, 10e3);
    near(k.exposed_ns, 30e3);
    ck_assert_uint_eq(k.steps, 2);
    near(k.step_mean_ns, 50e3); /* (40 + 60) / 2 us */
    near(k.step_min_ns, 40e3);
    near(k.step_max_ns, 60e3);
    ck_assert_uint_eq(t.n_step, 2);
    near(t.step[0].start_ns, 500); /* the fraction kept: 0.5 us */
    rl_timeline_keep_comm(&t);
    ck_assert_uint_eq(t.n_act, 3);
    near(t.act[0].start_ns, 15e3);
    rl_timeline_release(&t);
}
END_TEST

/* Two ranks in memory: ties go to the lower rank; a rank's later clock
 * base is added. Rank 0 starts allreduce at 100 and 300 us, rank 1 (its
 * base 50 us later) at 50 + 50 = 100 (tie: rank 0 last) and 50 + 300 =
 * 350: skews 0 and 50 us, one call each last. */
/* Ranks 0 and 1's sums of t, then the across-ranks analysis of both
 * against a link of link_gbs (NAN: none) named label. */
static void across_of_two(struct rl_across *a, struct rl_timeline t[2], double link_gbs,
                          const char *label)
{
    struct rl_across_rank sums[2];
    ck_assert_int_eq(rl_across_rank_sum(&sums[0], 0, &t[0]), RL_OK);
    ck_assert_int_eq(rl_across_rank_sum(&sums[1], 1, &t[1]), RL_OK);
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_across_build(a, sums, t, 2, link_gbs, label, err), RL_OK);
}

START_TEST(two_ranks_ties_and_bases)
{
    struct rl_timeline t[2] = {{0}, {0}};
    act(&t[0], 100, 110, RL_ACT_COMM, "allreduce");
    act(&t[0], 300, 310, RL_ACT_COMM, "allreduce");
    act(&t[1], 50, 60, RL_ACT_COMM, "allreduce");  /* base: T0 + 50 */
    act(&t[1], 100, 110, RL_ACT_COMM, "allreduce");
    act(&t[1], 350, 355, RL_ACT_COMM, "allreduce");
    /* rank 1's first is an extra: shift its list to line up */
    t[1].act[0] = t[1].act[1], t[1].act[1] = t[1].act[2], t[1].n_act = 2;
    rl_timeline_set_comm(&t[1], 1, NULL, NULL, -1, 1e6, 2);
    rl_timeline_set_comm(&t[1], 99, NULL, NULL, -1, 1e6, 2); /* past the end: ignored */
    struct rl_across a;
    across_of_two(&a, t, 100, "test link");
    ck_assert_uint_eq(a.n_calls, 2);
    ck_assert_uint_eq(a.unmatched, 0);
    near(a.calls[0].skew_ns, 0);
    ck_assert_int_eq(a.calls[0].last_rank, 0);
    near(a.calls[1].skew_ns, 50e3);
    ck_assert_int_eq(a.calls[1].last_rank, 1);
    near(a.calls[1].transfer_ns, 5e3);
    /* 1e6 bytes x 2(2-1)/2 = 1e6 / 5e3 ns = 200 GB/s */
    near(a.calls[1].busbw_gbs, 200);
    ck_assert(isnan(a.calls[0].busbw_gbs)); /* rank 0's bytes unknown, rank 1's not set */
    ck_assert_uint_eq(a.n_sizes, 1);
    near(a.sizes[0].bytes_lo, 524288); /* 2^19 <= 1e6 < 2^20 */
    near(a.sizes[0].pct_of_link, 200);
    ck_assert_int_eq(a.straggler, 0); /* 1 call each: the lower rank */
    near(a.skew_mean_ns, 25e3);
    ck_assert(isnan(a.step_spread_ns));
    ck_assert_uint_eq(a.common_steps, 0);
    ck_assert_ptr_nonnull(strstr(a.headline, "rank 0 arrives last at 50%"));
    /* no step common to every rank: the table says so (no "nan ms over 0") */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    rl_across_table(f, &a);
    fclose(f);
    ck_assert_msg(strstr(text, "\n2 collective calls matched (0 launches not on every rank); skew "
                               "mean 0.025 ms, max 0.05 ms; no step common to every rank\n"),
                  "%s", text);
    free(text);
    free(a.ranks), free(a.calls), free(a.sizes);
    rl_timeline_release(&t[0]);
    rl_timeline_release(&t[1]);
}
END_TEST

/* Process groups and sequence numbers: group "0"'s all-reduces carry Seq
 * (rank 0: 5, 6, 7; rank 1: 6, 7, 9), matched by it: 6 and 7 are calls, 5
 * and 9 unmatched. Group "1"'s carry none (ordinal), interleaved in time
 * with group "0"'s but never matched with them. */
static void pg_act(struct rl_timeline *t, double a_us, const char *pg, long long seq)
{
    act(t, a_us, a_us + 10, RL_ACT_COMM, "allreduce");
    rl_timeline_set_comm(t, t->n_act - 1, NULL, pg, seq, 8e6, 2);
}

START_TEST(process_groups_and_seq)
{
    struct rl_timeline t[2] = {{0}, {0}};
    pg_act(&t[0], 0, "0", 5);
    pg_act(&t[0], 100, "0", 6);
    pg_act(&t[0], 150, "1", -1);
    pg_act(&t[0], 200, "0", 7);
    pg_act(&t[1], 0, "1", -1);   /* group 1's first call: starts at 0 on rank 1 */
    pg_act(&t[1], 130, "0", 6);  /* skew 30, rank 1 last */
    pg_act(&t[1], 190, "0", 7);  /* skew 10, rank 0 last */
    pg_act(&t[1], 300, "0", 9);
    struct rl_across a;
    across_of_two(&a, t, NAN, NULL);
    ck_assert_uint_eq(a.n_calls, 3);
    ck_assert_uint_eq(a.unmatched, 2);
    ck_assert_str_eq(a.calls[0].pg, "0");
    ck_assert_int_eq((int)a.calls[0].seq, 6);
    near(a.calls[0].skew_ns, 30e3);
    ck_assert_int_eq(a.calls[0].last_rank, 1);
    ck_assert_uint_eq(a.calls[0].ordinal, 0);
    ck_assert_int_eq((int)a.calls[1].seq, 7);
    near(a.calls[1].skew_ns, 10e3);
    ck_assert_int_eq(a.calls[1].last_rank, 0);
    ck_assert_str_eq(a.calls[2].pg, "1"); /* 150 vs 0: skew 150, rank 0 last */
    ck_assert_int_eq((int)a.calls[2].seq, -1);
    near(a.calls[2].skew_ns, 150e3);
    ck_assert_int_eq(a.calls[2].last_rank, 0);
    ck_assert_int_eq(a.straggler, 0);
    near(a.straggler_ns, 160e3);
    /* 8e6 bytes x 2(2-1)/2 / 10 us = 800 GB/s, one bucket 2^22..2^23 */
    ck_assert_uint_eq(a.n_sizes, 1);
    near(a.sizes[0].busbw_gbs, 800);
    near(a.sizes[0].bytes_lo, 4194304);
    ck_assert(isnan(a.sizes[0].pct_of_link));
    free(a.ranks), free(a.calls), free(a.sizes);
    rl_timeline_release(&t[0]);
    rl_timeline_release(&t[1]);
}
END_TEST

/* Sequence numbers from 0: rank 0 has 0 and 1, rank 1 only 1 (at 120):
 * 1 is the one call (skew 20, rank 1 last), 0 unmatched. */
START_TEST(seq_from_zero)
{
    struct rl_timeline t[2] = {{0}, {0}};
    pg_act(&t[0], 0, "0", 0);
    pg_act(&t[0], 100, "0", 1);
    pg_act(&t[1], 120, "0", 1);
    struct rl_across a;
    across_of_two(&a, t, NAN, NULL);
    ck_assert_uint_eq(a.n_calls, 1);
    ck_assert_uint_eq(a.unmatched, 1);
    ck_assert_int_eq((int)a.calls[0].seq, 1);
    near(a.calls[0].skew_ns, 20e3);
    ck_assert_int_eq(a.calls[0].last_rank, 1);
    free(a.ranks), free(a.calls), free(a.sizes);
    rl_timeline_release(&t[0]);
    rl_timeline_release(&t[1]);
}
END_TEST

struct job {
    struct rl_rank_traces t;
    struct rl_trace_groups g;
    struct rl_ceilings c;
    struct rl_report r;
    struct rl_torch_stats st;
};

static char **paths(const char *folder, const char *const *names, size_t n)
{
    char **v = calloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", folder, names[i]);
        v[i] = strdup(rl_test_data(p));
    }
    return v;
}

static void load(struct job *j, const char *folder, const char *const *names, size_t n,
                 const char *gpu, int jobs)
{
    char err[RL_ERRMSG_SIZE];
    memset(j, 0, sizeof *j);
    ck_assert_msg(rl_rank_traces_load_torch(&j->t, paths(folder, names, n), n, jobs, &j->st,
                                            err) == RL_OK,
                  "%s", err);
    ck_assert_int_eq(rl_rank_traces_merge(&j->t, &j->g, err), 0);
    ck_assert_int_eq(rl_ceilings_init(&j->c, rl_test_gpu(gpu), NULL, NULL, false, false, NULL,
                                      err),
                     0);
    ck_assert_int_eq(rl_report_build(&j->r, &j->c, &j->g, err), 0);
    ck_assert_int_eq(rl_report_ranks(&j->r, &j->t, err), 0);
    ck_assert_int_eq(rl_report_across(&j->r, &j->t, &j->c, err), 0);
    ck_assert_ptr_nonnull(j->r.across);
}

static void unload(struct job *j)
{
    rl_report_release(&j->r);
    rl_trace_groups_release(&j->g);
    rl_rank_traces_release(&j->t);
}

/* tests/data/ranks/kineto3 (README.md works every value out). Given in
 * the order 2, 0, 1: sorted by rank. */
START_TEST(kineto3_by_hand)
{
    static const char *const names[] = {"rank-2.json", "rank-0.json", "rank-1.json"};
    struct job j;
    load(&j, "ranks/kineto3", names, 3, "h100-sxm", 2);
    const struct rl_across *a = j.r.across;
    ck_assert_uint_eq(a->n_ranks, 3);
    static const double busy[] = {1600, 1300, 1350}, span[] = {1900, 1800, 1800},
                        idle[] = {300, 500, 450}, compute[] = {600, 500, 700},
                        comm[] = {1200, 800, 750}, hidden[] = {200, 0, 100},
                        step[] = {1050, 2010, 2050};
    static const size_t last_at[] = {0, 1, 2};
    static const double waited[] = {0, 300, 300};
    for (int r = 0; r < 3; r++) {
        const struct rl_across_rank *k = &a->ranks[r];
        ck_assert_int_eq(k->rank, r);
        near(k->busy_ns, busy[r] * 1e3);
        near(k->span_ns, span[r] * 1e3);
        near(k->idle_ns, idle[r] * 1e3);
        near(k->compute_ns, compute[r] * 1e3);
        near(k->comm_ns, comm[r] * 1e3);
        near(k->hidden_ns, hidden[r] * 1e3);
        near(k->exposed_ns, (comm[r] - hidden[r]) * 1e3);
        near(k->step_mean_ns, step[r] * 1e3);
        ck_assert_uint_eq(k->last_at, last_at[r]);
        near(k->waited_ns, waited[r] * 1e3);
    }
    /* skews: 700-450 = 250 (rank 2), 1300-1000 = 300 (rank 1; rank 1's
     * clock starts 5 us later, at its step), 1650-1600 = 50 (rank 2) */
    ck_assert_uint_eq(a->n_calls, 3);
    static const double skew[] = {250, 300, 50}, transfer[] = {200, 200, 150};
    static const int last[] = {2, 1, 2};
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(a->calls[i].collective, "allreduce");
        ck_assert_str_eq(a->calls[i].pg, "0"); /* record_param_comms' Process Group Name */
        ck_assert_int_eq((int)a->calls[i].seq, i); /* its Seq */
        near(a->calls[i].skew_ns, skew[i] * 1e3);
        ck_assert_int_eq(a->calls[i].last_rank, last[i]);
        near(a->calls[i].transfer_ns, transfer[i] * 1e3);
        near(a->calls[i].bytes, 4194304); /* 1048576 Float elements */
        ck_assert_int_eq(a->calls[i].group_size, 3);
        /* 4194304 x 2(3-1)/3 / transfer */
        near(a->calls[i].busbw_gbs, 4194304.0 * 4 / 3 / (transfer[i] * 1e3));
    }
    ck_assert_uint_eq(a->unmatched, 1); /* rank 0's all-gather */
    near(a->skew_mean_ns, 200e3);
    near(a->skew_max_ns, 300e3);
    ck_assert_int_eq(a->straggler, 2);
    ck_assert_uint_eq(a->straggler_calls, 2);
    near(a->straggler_ns, 300e3);
    ck_assert_uint_eq(a->common_steps, 1); /* step 2 only on rank 0 */
    near(a->step_spread_ns, 50e3);        /* 2050 - 2000 */
    ck_assert_uint_eq(a->n_sizes, 1);
    near(a->sizes[0].bytes_lo, 4194304);
    ck_assert_uint_eq(a->sizes[0].calls, 3);
    /* 3 x 4194304 x 4/3 = 16777216 bytes over 550 us */
    near(a->sizes[0].busbw_gbs, 16777216.0 / 550e3);
    near(a->link_gbs, j.c.link.bandwidth_gbs);
    near(a->sizes[0].pct_of_link, 100 * 16777216.0 / 550e3 / j.c.link.bandwidth_gbs);
    ck_assert_ptr_nonnull(strstr(a->headline, "rank 2 arrives last at 66.7% of the 3 "
                                              "collectives matched across 3 ranks: 0.3 ms"));
    ck_assert_ptr_nonnull(strstr(j.r.notes, "across ranks: rank 2 arrives last"));
    /* the terminal table: the headline, the columns, one line a rank, the
     * calls (skew mean 200 us, max 300; spread 50 us over 1 step) and the
     * message sizes (3 x 16,777,216 / 3 bus bytes over 550 us: 30.5 GB/s) */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    rl_across_table(f, a);
    rl_across_table(f, NULL); /* nothing */
    fclose(f);
    char want[1024];
    snprintf(want, sizeof want, "\nacross ranks: %s\n%-6s %9s %9s %9s %9s %9s %9s %9s\n",
             a->headline, "RANK", "STEP ms", "IDLE ms", "COMM ms", "EXPOSED", "HIDDEN",
             "LAST AT", "WAITED");
    ck_assert_int_eq(strncmp(text, want, strlen(want)), 0);
    ck_assert_msg(strstr(text, "\n3 collective calls matched (1 launch not on every rank); skew "
                               "mean 0.2 ms, max 0.3 ms; step time spread 0.05 ms over 1 common "
                               "step\n  messages 4.194..8.389 MB: 3 calls at 30.5 GB/s bus "
                               "bandwidth"),
                  "%s", text);
    /* and its share of the link, which the report named */
    ck_assert(a->link_label[0]);
    snprintf(want, sizeof want, "30.5 GB/s bus bandwidth, %.3g%% of %s (%.4g GB/s)\n",
             a->sizes[0].pct_of_link, a->link_label, a->link_gbs);
    ck_assert_msg(strstr(text, want), "%s", text);
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, 1 + 1 + 1 + 3 + 1 + 1); /* blank, headline, columns, ranks, calls, size */
    free(text);
    /* the memory bound: each rank kept its collectives only */
    ck_assert_uint_eq(j.t.timelines[0].n_act, 4);
    ck_assert_uint_eq(j.t.timelines[1].n_act, 3);
    unload(&j);
}
END_TEST

/* The real two-rank set: every value from across_facts.py's output. */
START_TEST(real_sampled_ranks)
{
    static const char *const names[] = {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"};
    struct job j;
    load(&j, "torch-real/sampled-ranks", names, 2, "a100-sxm4-80gb", 1);
    const struct rl_across *a = j.r.across;
    static const double busy[] = {547656000, 580050000}, span[] = {1222847000, 1231186000},
                        compute[] = {210320000, 271973000}, comm[] = {396199000, 379053000},
                        hidden[] = {59216000, 75530000}, step[] = {615120000, 619271500},
                        waited[] = {132166000, 381329000};
    static const size_t last_at[] = {2, 8};
    for (int r = 0; r < 2; r++) {
        const struct rl_across_rank *k = &a->ranks[r];
        near(k->busy_ns, busy[r]);
        near(k->span_ns, span[r]);
        near(k->idle_ns, span[r] - busy[r]);
        near(k->compute_ns, compute[r]);
        near(k->comm_ns, comm[r]);
        near(k->hidden_ns, hidden[r]);
        near(k->exposed_ns, comm[r] - hidden[r]);
        ck_assert_uint_eq(k->steps, 2);
        near(k->step_mean_ns, step[r]);
        ck_assert_uint_eq(k->last_at, last_at[r]);
        near(k->waited_ns, waited[r]);
    }
    static const double skew[] = {35534000, 109290000, 3302000, 164191000, 84000,
                                  39645000, 45308000,  92521000, 22328000,  1292000};
    static const double transfer[] = {57924000, 41375000, 8370000,  17614000, 42744000,
                                      67827000, 4624000,  12119000, 13838000, 62163000};
    static const int last[] = {1, 1, 1, 1, 1, 0, 1, 0, 1, 1};
    ck_assert_uint_eq(a->n_calls, 10);
    for (int i = 0; i < 10; i++) {
        ck_assert_str_eq(a->calls[i].collective, "sendrecv");
        ck_assert_int_eq((int)a->calls[i].seq, -1);
        near(a->calls[i].skew_ns, skew[i]);
        near(a->calls[i].transfer_ns, transfer[i]);
        ck_assert_int_eq(a->calls[i].last_rank, last[i]);
        ck_assert(isnan(a->calls[i].bytes)); /* no record_param_comms sizes in this era */
    }
    ck_assert_uint_eq(a->unmatched, 0);
    near(a->skew_max_ns, 164191000);
    near(a->skew_mean_ns, 51349500); /* 513495000 / 10 */
    ck_assert_int_eq(a->straggler, 1);
    ck_assert_uint_eq(a->straggler_calls, 8);
    near(a->straggler_ns, 381329000);
    ck_assert_uint_eq(a->common_steps, 2);
    near(a->step_spread_ns, 630639000 - 622928000.0); /* step 552: rank 1's - rank 0's */
    ck_assert_uint_eq(a->n_sizes, 0);
    ck_assert_ptr_nonnull(strstr(a->headline, "rank 1 arrives last at 80% of the 10"));
    /* its wait over the 2 common steps: 381.329 / 2 = 190.66 ms */
    ck_assert_ptr_nonnull(strstr(a->headline, ", 191 ms per step over 2 steps"));
    unload(&j);
}
END_TEST

static char *report_json(const char *flag, const char *folder, const char *jobs)
{
    struct rl_run r = rl_test_cli(NULL, "report", flag, rl_test_data(folder), "--gpu",
                                  "h100-sxm", "--json", "-j", jobs, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *out = r.out;
    r.out = NULL;
    rl_run_release(&r);
    return out;
}

/* -j1 and -j4 print the same report.json, byte for byte. */
START_TEST(parallel_read_is_serial_read)
{
    static const char *const sets[] = {"ranks/kineto3", "torch-real/sampled-ranks"};
    for (size_t i = 0; i < 2; i++) {
        char *one = report_json("--torch", sets[i], "1");
        char *four = report_json("--torch", sets[i], "4");
        ck_assert_ptr_nonnull(strstr(one, "\"across_ranks\""));
        ck_assert_str_eq(one, four);
        free(one), free(four);
    }
    /* roofline's own traces: the four ranks of tests/data/ranks/4 */
    char *one = report_json("--trace", "ranks/4", "1"), *four = report_json("--trace", "ranks/4", "4");
    ck_assert_ptr_nonnull(strstr(one, "\"rank\": 3"));
    ck_assert_str_eq(one, four);
    free(one), free(four);
    char *three = report_json("--torch", "ranks/kineto3", "3");
    cJSON *doc = cJSON_Parse(three);
    ck_assert_ptr_nonnull(doc);
    const cJSON *a = cJSON_GetObjectItem(doc, "across_ranks");
    ck_assert_double_eq(rl_json_number(a, "calls_matched"), 3);
    ck_assert_double_eq(rl_json_number(a, "straggler"), 2);
    ck_assert_double_eq(rl_json_number(a, "skew_max_ns"), 300000);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(a, "ranks")), 3);
    cJSON_Delete(doc);
    free(three);
}
END_TEST

/* report.md, report.html and the terminal carry the across-ranks section. */
START_TEST(report_files_have_the_section)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%.400s/out", rl_test_tmpdir());
    struct rl_run r = rl_test_cli(NULL, "report", "--torch", rl_test_data("ranks/kineto3"),
                                  "--gpu", "h100-sxm", "--no-chart", "-o", dir, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "across ranks: rank 2 arrives last at 66.7%"));
    ck_assert_ptr_nonnull(strstr(r.out, "3 collective calls matched (1 launch not on every "
                                        "rank); skew mean 0.2 ms, max 0.3 ms"));
    ck_assert_ptr_nonnull(strstr(r.out, "messages 4.194..8.389 MB: 3 calls at 30.5 GB/s"));
    rl_run_release(&r);
    char p[1024];
    snprintf(p, sizeof p, "%s/report.md", dir);
    char *md = rl_test_slurp(p);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "## Across ranks"));
    ck_assert_ptr_nonnull(strstr(md, "| 1 | 2.01 ms | 0.5 ms | 0.8 ms | 0.8 ms | 0 ms | 1 | 0.3 ms |"));
    free(md);
    snprintf(p, sizeof p, "%s/report.html", dir);
    char *html = rl_test_slurp(p);
    ck_assert_ptr_nonnull(html);
    ck_assert_ptr_nonnull(strstr(html, "id=\"across-section\""));
    ck_assert_ptr_nonnull(strstr(html, "\"across_ranks\": {\"headline\""));
    free(html);
}
END_TEST

/* 64 ranks written here: rank r's two all-reduces start r us after rank
 * 0's (at 100 and 300 us) and end together (200, 400 us); one compute
 * kernel [0, 150) on another stream. Every call: skew 63 us, rank 63
 * last, its kernel 100 - 63 = 37 us. Rank r's communication [100+r, 200)
 * and [300+r, 400): 200 - 2r us, of which [100+r, 150) = 50 - r hidden
 * (none from r = 50). */
START_TEST(sixty_four_ranks)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%.500s/r64", rl_test_tmpdir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    for (int r = 0; r < 64; r++) {
        char p[700];
        snprintf(p, sizeof p, "%s/rank%02d.json", dir, 63 - r); /* names against rank order */
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 64}, "
                   "\"traceEvents\": [\n", 63 - r);
        int rank = 63 - r;
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, "
                   "\"tid\": 7, \"ts\": %lld, \"dur\": 150, \"args\": {\"stream\": 7}},\n",
                T0);
        for (int c = 0; c < 2; c++)
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                       "\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(int)\", \"pid\": 0, \"tid\": 20, "
                       "\"ts\": %lld, \"dur\": %d, \"args\": {\"stream\": 20}}%s\n",
                    T0 + 100 + 200 * c + rank, 100 - rank, c ? "" : ",");
        fputs("]}\n", f);
        fclose(f);
    }
    struct rl_run one = rl_test_cli(NULL, "report", "--torch", dir, "--gpu", "h100-sxm", "--json",
                                    "-j", "1", NULL);
    struct rl_run four = rl_test_cli(NULL, "report", "--torch", dir, "--gpu", "h100-sxm",
                                     "--json", "-j", "4", NULL);
    ck_assert_msg(one.status == 0, "%s", one.err);
    ck_assert_str_eq(one.out, four.out);
    cJSON *doc = cJSON_Parse(one.out);
    const cJSON *a = cJSON_GetObjectItem(doc, "across_ranks");
    ck_assert_double_eq(rl_json_number(a, "calls_matched"), 2);
    ck_assert_double_eq(rl_json_number(a, "straggler"), 63);
    ck_assert_double_eq(rl_json_number(a, "straggler_calls"), 2);
    ck_assert_double_eq(rl_json_number(a, "skew_max_ns"), 63000);
    ck_assert_double_eq(rl_json_number(a, "straggler_wait_ns"), 126000);
    ck_assert_double_eq(rl_json_number(a, "common_steps"), 0); /* no ProfilerStep here */
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(a, "step_spread_ns")));
    const cJSON *ranks = cJSON_GetObjectItem(a, "ranks");
    ck_assert_int_eq(cJSON_GetArraySize(ranks), 64);
    for (int r = 0; r < 64; r += 21) {
        const cJSON *k = cJSON_GetArrayItem(ranks, r);
        ck_assert_double_eq(rl_json_number(k, "rank"), r);
        ck_assert_double_eq(rl_json_number(k, "comm_ns"), (200 - 2 * r) * 1e3);
        double hidden = r < 50 ? 50 - r : 0; /* rank 63's first starts after the GEMM */
        ck_assert_double_eq(rl_json_number(k, "comm_hidden_ns"), hidden * 1e3);
        ck_assert_double_eq(rl_json_number(k, "comm_exposed_ns"), (200 - 2 * r - hidden) * 1e3);
    }
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "calls"), 1);
    ck_assert_double_eq(rl_json_number(c, "transfer_ns"), 37000);
    cJSON_Delete(doc);
    rl_run_release(&one);
    rl_run_release(&four);
}
END_TEST

/* ---- limits ---------------------------------------------------------------- */

START_TEST(timeline_limits)
{
    struct rl_timeline t = {0};
    ck_assert_int_eq(rl_timeline_add_step(&t, "ProfilerStep#", T0, 0, 1), RL_OK);
    ck_assert_int_eq(rl_timeline_add_step(&t, "ProfilerStep#3a", T0, 0, 1), RL_OK);
    ck_assert_int_eq(rl_timeline_add_step(&t, "Step#3", T0, 0, 1), RL_OK);
    ck_assert_uint_eq(t.n_step, 0);
    ck_assert(!t.have_base);
    ck_assert_int_eq(rl_timeline_add_step(&t, "ProfilerStep#12", T0, 0, -5), RL_OK);
    ck_assert_int_eq((int)t.step[0].number, 12);
    near(t.step[0].end_ns - t.step[0].start_ns, 0); /* a negative duration: none */
    act(&t, 0, 1, RL_ACT_COMPUTE, NULL);
    rl_timeline_set_comm(&t, 0, "allgather", "0", 3, 64, 4); /* an operator's collective */
    ck_assert_int_eq(t.act[0].kind, RL_ACT_COMM);
    ck_assert_str_eq(t.act[0].collective, "allgather");
    struct rl_across_rank k;
    struct rl_timeline empty = {0};
    ck_assert_int_eq(rl_across_rank_sum(&k, -1, &empty), RL_OK);
    near(k.busy_ns, 0);
    near(k.span_ns, 0);
    ck_assert(isnan(k.step_mean_ns));
    /* no rank shares a collective: nothing matched, said so */
    struct rl_timeline two[2] = {t, empty};
    struct rl_across_rank sums[2];
    ck_assert_int_eq(rl_across_rank_sum(&sums[0], 0, &two[0]), RL_OK);
    ck_assert_int_eq(rl_across_rank_sum(&sums[1], 1, &two[1]), RL_OK);
    struct rl_across a;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_across_build(&a, sums, two, 2, NAN, NULL, err), RL_OK);
    ck_assert_uint_eq(a.n_calls, 0);
    ck_assert_uint_eq(a.unmatched, 1);
    ck_assert_int_eq(a.straggler, -1);
    ck_assert(isnan(a.skew_mean_ns) && isnan(a.link_gbs));
    ck_assert_ptr_nonnull(strstr(a.headline, "no collective was matched across the 2 ranks"));
    ck_assert(!a.apart); /* rank 1 has no activity: nothing to compare */
    free(a.ranks), free(a.calls), free(a.sizes);
    /* ranks an hour apart on the clock: no straggler named */
    struct rl_timeline far[2] = {{0}, {0}};
    act(&far[0], 0, 10, RL_ACT_COMM, "allreduce");
    act(&far[1], 3.6e9, 3.6e9 + 10, RL_ACT_COMM, "allreduce");
    ck_assert_int_eq(rl_across_rank_sum(&sums[0], 0, &far[0]), RL_OK);
    ck_assert_int_eq(rl_across_rank_sum(&sums[1], 1, &far[1]), RL_OK);
    ck_assert_int_eq(rl_across_build(&a, sums, far, 2, NAN, NULL, err), RL_OK);
    ck_assert(a.apart);
    ck_assert_uint_eq(a.n_calls, 1);
    ck_assert_int_eq(a.straggler, -1);
    ck_assert_ptr_nonnull(strstr(a.headline, "does not overlap in time"));
    free(a.ranks), free(a.calls), free(a.sizes);
    /* touching spans still overlap (lo == hi) */
    rl_timeline_release(&far[1]);
    act(&far[1], 10, 20, RL_ACT_COMM, "allreduce");
    ck_assert_int_eq(rl_across_rank_sum(&sums[1], 1, &far[1]), RL_OK);
    ck_assert_int_eq(rl_across_build(&a, sums, far, 2, NAN, NULL, err), RL_OK);
    ck_assert(!a.apart);
    ck_assert_int_eq(a.straggler, 1);
    free(a.ranks), free(a.calls), free(a.sizes);
    rl_timeline_release(&far[0]);
    rl_timeline_release(&far[1]);
    rl_timeline_release(&t);
}
END_TEST

/* -j takes 1..1024; a bad rank file fails the read naming it, whatever -j. */
START_TEST(jobs_and_bad_ranks)
{
    struct rl_run r = rl_test_cli(NULL, "report", "--torch", rl_test_data("ranks/kineto3"),
                                  "--gpu", "h100-sxm", "--json", "-j", "0", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--jobs"));
    rl_run_release(&r);
    const char *dir = rl_test_tmpdir();
    char p[1024];
    static const char *const good[] = {"rank-0.json", "rank-1.json"};
    for (int i = 0; i < 2; i++) {
        char *text = rl_test_slurp(rl_test_data(good[i][5] == '0' ? "ranks/kineto3/rank-0.json"
                                                                   : "ranks/kineto3/rank-1.json"));
        snprintf(p, sizeof p, "%s/%s", dir, good[i]);
        FILE *f = fopen(p, "w");
        fputs(text, f);
        fclose(f);
        free(text);
    }
    snprintf(p, sizeof p, "%s/rank-2.json", dir);
    FILE *f = fopen(p, "w");
    fputs("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,", f);
    fclose(f);
    for (int jobs = 1; jobs <= 4; jobs += 3) {
        char *s = jobs == 1 ? "1" : "4";
        r = rl_test_cli(NULL, "report", "--torch", dir, "--gpu", "h100-sxm", "--json", "-j", s,
                        NULL);
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.err, "rank-2.json"));
        rl_run_release(&r);
    }
    /* traces that name no rank (distributedInfo renamed away): no section */
    char two[600];
    snprintf(two, sizeof two, "%.500s/norank", dir);
    ck_assert_int_eq(mkdir(two, 0755), 0);
    for (int i = 0; i < 2; i++) {
        char *text = rl_test_slurp(rl_test_data(i ? "ranks/kineto3/rank-1.json"
                                                  : "ranks/kineto3/rank-0.json"));
        char *k = strstr(text, "\"distributedInfo\"");
        ck_assert_ptr_nonnull(k);
        k[1] = 'X';
        snprintf(p, sizeof p, "%s/t%d.json", two, i);
        f = fopen(p, "w");
        fputs(text, f);
        fclose(f);
        free(text);
    }
    r = rl_test_cli(NULL, "report", "--torch", two, "--gpu", "h100-sxm", "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.out, "across_ranks"));
    ck_assert_ptr_null(strstr(r.out, "\"ranks\": ["));
    rl_run_release(&r);
}
END_TEST

static Suite *across_suite(void)
{
    Suite *s = suite_create("across");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, interval_sums_by_hand);
    tcase_add_test(core, two_ranks_ties_and_bases);
    tcase_add_test(core, process_groups_and_seq);
    tcase_add_test(core, seq_from_zero);
    tcase_add_test(core, kineto3_by_hand);
    tcase_add_test(core, real_sampled_ranks);
    tcase_add_test(core, parallel_read_is_serial_read);
    tcase_add_test(core, report_files_have_the_section);
    tcase_add_test(core, sixty_four_ranks);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, timeline_limits);
    tcase_add_test(limits, jobs_and_bad_ranks);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(across_suite()); }
