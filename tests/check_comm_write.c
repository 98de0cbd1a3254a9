/* check_comm_write.c - tests of turning the comm plugin's raw record into results (results-write.c): versions, hosts, notes, the copy GPUs, the rates' edges, the check's verdict, and every allocation failing. */
#include "test_util.h"

#include "analyzer/comm/plugin.h"
#include "analyzer/comm/results.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* calloc, replaced for this executable (the library is linked statically,
 * so its calls land here) so that a test can make the n-th one fail. Not
 * under AddressSanitizer, whose own allocator must see every block. */
#if defined(__SANITIZE_ADDRESS__)
#define FAKE_CALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAKE_CALLOC 0
#endif
#endif
#ifndef FAKE_CALLOC
#define FAKE_CALLOC 1
extern void *__libc_calloc(size_t n, size_t size);
static int fail_calloc_at; /* 0: never; k: the k-th call from now */
void *calloc(size_t n, size_t size)
{
    if (fail_calloc_at > 0 && --fail_calloc_at == 0)
        return NULL;
    return __libc_calloc(n, size);
}
#endif

/* Four ranks on hosts a, b, a, c; an all-reduce of one size on 4 ranks
 * with a note; a d2d copy of 2 x 2 with 0 wrong; one note of the run. */
static struct rl_comm_raw *fixture(void)
{
    struct rl_comm_raw *raw = calloc(1, sizeof *raw);
    ck_assert_ptr_nonnull(raw);
    raw->ranks = 4;
    raw->nodes = 3;
    raw->nccl_version = 21903;
    raw->cuda_runtime = 12020;
    raw->cuda_driver = 0;
    raw->n_devices = 4;
    static const char *const hosts[] = {"a", "b", "a", "c"};
    for (int i = 0; i < 4; i++) {
        raw->devices[i].rank = i;
        raw->devices[i].device = i % 2;
        snprintf(raw->devices[i].host, sizeof raw->devices[i].host, "%s", hosts[i]);
    }
    raw->n_colls = 1;
    struct rl_comm_raw_coll *ar = &raw->colls[0];
    ar->collective = RL_COLL_ALLREDUCE;
    ar->run = true;
    snprintf(ar->note, sizeof ar->note, "few sizes");
    ar->n_results = 3;
    /* 1e6 B in 10 us: algbw 1e6 / 10 / 1e3 = 100 GB/s, x 2 x 3/4 = 150 busbw;
     * no time: no rate; wrong -1: not checked */
    ar->results[0] = (struct rl_comm_raw_result){1e6, 250000, false, 20, 10, 12, 0};
    ar->results[1] = (struct rl_comm_raw_result){1e6, 250000, true, 20, 0, 0, -1};
    ar->results[2] = (struct rl_comm_raw_result){2e6, 500000, false, 20, 10, 12, 0};
    raw->n_copies = 1;
    struct rl_comm_raw_copy *d = &raw->copies[0];
    snprintf(d->kind, sizeof d->kind, "d2d");
    snprintf(d->engine, sizeof d->engine, "ce");
    snprintf(d->direction, sizeof d->direction, "uni");
    d->rows = d->cols = 2;
    d->gbs[0][0] = 1;
    d->gbs[0][1] = 2;
    d->gbs[1][0] = 3;
    d->gbs[1][1] = 4;
    raw->copy_gpus = 3;
    for (int i = 0; i < 3; i++)
        snprintf(raw->copy_devices[i], sizeof raw->copy_devices[i], "gpu %d", i);
    raw->n_notes = 1;
    snprintf(raw->notes[0], sizeof raw->notes[0], "run note");
    return raw;
}

static int from_raw(struct rl_comm_results *r, const struct rl_comm_raw *raw, double link_gbs)
{
    char err[RL_ERRMSG_SIZE] = "";
    return rl_comm_results_from_raw(r, raw, "G", "g", "L", link_gbs, "today", "9.9", err);
}

START_TEST(record_to_results)
{
    struct rl_comm_raw *raw = fixture();
    struct rl_comm_results r;
    ck_assert_int_eq(from_raw(&r, raw, 300), 0);
    /* NCCL 21903 = 2.19.3; CUDA 12020 = 12.2; 0: unknown */
    ck_assert_str_eq(r.nccl_version, "2.19.3");
    ck_assert_str_eq(r.cuda_runtime, "12.2");
    ck_assert_str_eq(r.cuda_driver, "?");
    /* each host once, in order of the ranks */
    ck_assert_uint_eq(r.n_devices, 4);
    ck_assert_uint_eq(r.n_hosts, 3);
    ck_assert_str_eq(r.hosts[0], "a");
    ck_assert_str_eq(r.hosts[1], "b");
    ck_assert_str_eq(r.hosts[2], "c");
    ck_assert_int_eq(r.devices[3].device, 1);
    /* the series: rates, and none without a time */
    ck_assert_uint_eq(r.n_series, 1);
    const struct rl_comm_series *s = &r.series[0];
    ck_assert_int_eq(s->gpus, 4);
    ck_assert_int_eq(s->nodes, 3);
    ck_assert_uint_eq(s->n, 3);
    ck_assert_double_eq_tol(s->points[0].algbw_gbs, 100, 1e-12);
    ck_assert_double_eq_tol(s->points[0].busbw_gbs, 150, 1e-12);
    ck_assert_double_eq_tol(s->points[0].pct_of_link, 50, 1e-12);
    ck_assert(isnan(s->points[1].algbw_gbs));
    ck_assert(isnan(s->points[1].pct_of_link));
    ck_assert_int_eq(s->points[1].wrong, -1);
    ck_assert_double_eq(s->points[2].count, 500000);
    ck_assert(!r.check_failed);
    /* notes: the collective's, then the run's */
    ck_assert_uint_eq(r.n_notes, 2);
    ck_assert_str_eq(r.notes[0], "allreduce: few sizes");
    ck_assert_str_eq(r.notes[1], "run note");
    /* the copy matrix row by row, and its GPUs */
    ck_assert_uint_eq(r.n_copies, 1);
    ck_assert_double_eq(r.copies[0].matrix_gbs[1], 2);
    ck_assert_double_eq(r.copies[0].matrix_gbs[2], 3);
    ck_assert_int_eq(r.n_copy_devices, 3);
    ck_assert_str_eq(r.copy_devices[0], "gpu 0");
    ck_assert_str_eq(r.copy_devices[2], "gpu 2");
    rl_comm_results_release(&r);

    /* no link figure: no % of link; a wrong copy fails the check; the
     * most copy GPUs a record holds, 16 */
    raw->copies[0].wrong = 1;
    raw->copy_gpus = 16;
    snprintf(raw->copy_devices[15], sizeof raw->copy_devices[15], "last");
    ck_assert_int_eq(from_raw(&r, raw, 0), 0);
    ck_assert(isnan(r.series[0].points[0].pct_of_link));
    ck_assert_double_eq_tol(r.series[0].points[0].busbw_gbs, 150, 1e-12);
    ck_assert(r.check_failed);
    ck_assert_int_eq(r.n_copy_devices, 16);
    ck_assert_str_eq(r.copy_devices[15], "last");
    rl_comm_results_release(&r);

    /* a wrong element of a collective fails it too; one rank: no bus
     * traffic (factor 0), no % of link */
    raw->copies[0].wrong = 0;
    raw->colls[0].results[2].wrong = 3;
    raw->ranks = 1;
    ck_assert_int_eq(from_raw(&r, raw, 300), 0);
    ck_assert(r.check_failed);
    ck_assert_double_eq(r.series[0].points[0].busbw_gbs, 0);
    ck_assert(isnan(r.series[0].points[0].pct_of_link));
    rl_comm_results_release(&r);

    /* a rank whose host is not known (""): a host of its own, once, like
     * any name; the hosts are matched against those listed so far only
     * (ranks on "", a, "", c: 3 hosts "", a, c) */
    raw->devices[0].host[0] = '\0';
    raw->devices[2].host[0] = '\0';
    ck_assert_int_eq(from_raw(&r, raw, 300), 0);
    ck_assert_uint_eq(r.n_hosts, 3);
    ck_assert_str_eq(r.hosts[0], "");
    ck_assert_str_eq(r.hosts[1], "b");
    ck_assert_str_eq(r.hosts[2], "c");
    rl_comm_results_release(&r);
    free(raw);
}
END_TEST

/* Every allocation of the conversion failing in turn (five tables, one
 * series' points, one copy's matrix: seven): RL_ENOMEM and nothing held. */
START_TEST(every_allocation_failing)
{
#if FAKE_CALLOC
    struct rl_comm_raw *raw = fixture();
    struct rl_comm_results r;
    for (int k = 1; k <= 7; k++) {
        fail_calloc_at = k;
        ck_assert_int_eq(from_raw(&r, raw, 300), RL_ENOMEM);
        ck_assert_int_eq(fail_calloc_at, 0);
        ck_assert_ptr_null(r.series);
        ck_assert_ptr_null(r.devices);
        ck_assert_uint_eq(r.n_series, 0);
    }
    fail_calloc_at = 8; /* one more than it makes */
    ck_assert_int_eq(from_raw(&r, raw, 300), 0);
    ck_assert_int_eq(fail_calloc_at, 1);
    fail_calloc_at = 0;
    rl_comm_results_release(&r);
    free(raw);
#endif
}
END_TEST

/* The curve of a series built here, out of order: out-of-place points of
 * a finite rate and a size, by bytes; of two of one size (a hand-written
 * file) the first listed first. Kept: the `max` smallest. */
START_TEST(curve_orders_and_keeps_the_smallest)
{
    struct rl_comm_point pts[] = {
        {.bytes = 4096, .busbw_gbs = 40},
        {.bytes = 1024, .busbw_gbs = 10},
        {.bytes = 2048, .busbw_gbs = 21},
        {.bytes = 1024, .busbw_gbs = 11, .in_place = true}, /* in place: left out */
        {.bytes = 2048, .busbw_gbs = 22},                   /* the same size again */
        {.bytes = 0, .busbw_gbs = 5},                       /* no size */
        {.bytes = 512, .busbw_gbs = NAN},                   /* no rate */
        {.bytes = 8192, .busbw_gbs = INFINITY},             /* no finite rate */
    };
    struct rl_comm_series s = {.collective = RL_COLL_ALLREDUCE, .points = pts, .n = 8};
    double x[8], y[8];
    ck_assert_uint_eq(rl_comm_series_curve(&s, false, x, y, 8), 4);
    static const double want_x[] = {1024, 2048, 2048, 4096}, want_y[] = {10, 21, 22, 40};
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq(x[i], want_x[i]);
        ck_assert_double_eq(y[i], want_y[i]);
    }
    /* two kept of four: the two smallest, in order */
    x[2] = y[2] = -1;
    ck_assert_uint_eq(rl_comm_series_curve(&s, false, x, y, 2), 4);
    ck_assert_double_eq(x[0], 1024);
    ck_assert_double_eq(x[1], 2048);
    ck_assert_double_eq(y[1], 21);
    ck_assert_double_eq(x[2], -1); /* nothing written past max */
    /* three kept: the second 2048 as well, not the 4096 */
    ck_assert_uint_eq(rl_comm_series_curve(&s, false, x, y, 3), 4);
    ck_assert_double_eq(x[2], 2048);
    ck_assert_double_eq(y[2], 22);
    /* one kept: the smallest, whatever came first */
    ck_assert_uint_eq(rl_comm_series_curve(&s, false, x, y, 1), 4);
    ck_assert_double_eq(x[0], 1024);
    ck_assert_double_eq(y[0], 10);
    /* none asked: counted only; no series: none */
    ck_assert_uint_eq(rl_comm_series_curve(&s, false, NULL, y, 8), 4);
    ck_assert_uint_eq(rl_comm_series_curve(NULL, false, x, y, 8), 0);
    /* values at sizes: 1024 and below 10; 2048 (measured twice) the end
     * of the segment from 1024, the first one's 21; between 2048 and 4096
     * at 2^11.5 = 2896.3: halfway in log from the second's 22 to 40 = 31;
     * above 4096: 40 */
    struct rl_comm_results r = {.series = &s, .n_series = 1};
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1024), 10);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 100), 10);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 2048), 21);
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 2048 * sqrt(2)), 31,
                            1e-9);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 4096), 40);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1e9), 40);
    /* 1536 = 2^10.585: (10 + 11 x 0.585) between 1024 and the first 2048:
     * 10 + (21 - 10) x log2(1.5) = 10 + 11 x 0.5849625 = 16.4345875 */
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1536), 16.4345875,
                            1e-6);
    /* a series with nothing usable: NAN */
    struct rl_comm_series none = {.collective = RL_COLL_BROADCAST, .points = pts + 5, .n = 3};
    struct rl_comm_results rn = {.series = &none, .n_series = 1};
    ck_assert(isnan(rl_comm_results_busbw_gbs(&rn, RL_COLL_BROADCAST, 1024)));
}
END_TEST

/* At a measured size the value read back is the measurement itself, the
 * last size too (not the segment's end: algbw 0.7 + (0.1 - 0.7) x 1 is
 * 0.10000000000000009 in doubles). */
START_TEST(measured_sizes_read_back_exactly)
{
    struct rl_comm_point pts[] = {{.bytes = 1048576, .busbw_gbs = 0.1, .algbw_gbs = 0.7},
                                  {.bytes = 2097152, .busbw_gbs = 0.3, .algbw_gbs = 0.1}};
    struct rl_comm_series s = {.collective = RL_COLL_ALLGATHER, .points = pts, .n = 2};
    struct rl_comm_results r = {.series = &s, .n_series = 1};
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLGATHER, 2097152), 0.3);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLGATHER, 1048576), 0.1);
    ck_assert_double_eq(rl_comm_results_algbw_gbs(&r, RL_COLL_ALLGATHER, 2097152), 0.1);
    ck_assert_double_eq(rl_comm_results_algbw_gbs(&r, RL_COLL_ALLGATHER, 1048576), 0.7);
    ck_assert(isnan(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1048576)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_write");
    TCase *tc = tcase_create("from_raw");
    tcase_add_test(tc, record_to_results);
    tcase_add_test(tc, every_allocation_failing);
    tcase_add_test(tc, curve_orders_and_keeps_the_smallest);
    tcase_add_test(tc, measured_sizes_read_back_exactly);
    suite_add_tcase(s, tc);
    return rl_test_run(s);
}
