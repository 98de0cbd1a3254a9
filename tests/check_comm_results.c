/* check_comm_results.c - tests of `roofline comm --measure`'s results: the rates from raw times, the JSON written against its schema, the reader, the queries, and the command's usage errors (no GPU needed). */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/comm/plugin.h"
#include "analyzer/comm/results.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (1024.0 * 1024)
#define GiB (1024.0 * 1024 * 1024)

static struct rl_comm_results load_ok(const char *path)
{
    struct rl_comm_results r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_comm_results_load(&r, path, err) == 0, "%s", err);
    return r;
}

START_TEST(synthetic_file_loads)
{
    struct rl_comm_results r = load_ok(rl_test_data("comm/synthetic.json"));
    ck_assert_int_eq(r.ranks, 8);
    ck_assert_str_eq(r.gpu_id, "h100-sxm");
    ck_assert_str_eq(r.link_name, "NVLink 4");
    ck_assert_double_eq(r.link_gbs, 450);
    ck_assert_str_eq(r.mpi, "");
    ck_assert_int_eq(r.iters, 20);
    ck_assert_double_eq(r.fewer_above_bytes, 64 * MiB);
    ck_assert_uint_eq(r.n_series, 2);
    ck_assert_uint_eq(r.n_devices, 2);
    ck_assert_str_eq(r.devices[1].pci_bus_id, "0000:2A:00.0");
    const struct rl_comm_series *sr = rl_comm_results_series(&r, RL_COLL_SENDRECV);
    ck_assert_ptr_nonnull(sr);
    ck_assert_int_eq(sr->points[1].wrong, -1); /* null: not checked */
    ck_assert(isnan(sr->points[1].time_max_us)); /* absent */
    ck_assert_str_eq(sr->redop, "");
    ck_assert(!r.check_failed);
    const struct rl_comm_copy *p2p = rl_comm_results_copy(&r, "p2p", "ce", "uni");
    ck_assert_ptr_nonnull(p2p);
    ck_assert_int_eq(p2p->rows, 2);
    ck_assert_int_eq(p2p->cols, 2);
    ck_assert(isnan(p2p->matrix_gbs[0]));
    ck_assert_double_eq(p2p->matrix_gbs[1], 380.5);
    ck_assert_ptr_null(rl_comm_results_copy(&r, "p2p", "sm", "bi"));
    rl_comm_results_release(&r);
}
END_TEST

START_TEST(busbw_interpolates_in_log_bytes)
{
    struct rl_comm_results r = load_ok(rl_test_data("comm/synthetic.json"));
    /* Out-of-place all-reduce: 100 GB/s at 1 MiB, 300 at 4 MiB (the file
     * lists 4 MiB first: order is the reader's job). Between them
     * v = 100 + 200 x ln(b / 1 MiB) / ln 4:
     *   2 MiB:   ln 2 / ln 4 = 0.5                  -> 200
     *   1.5 MiB: ln 1.5 / ln 4 = 0.405465 / 1.386294 = 0.2924813 -> 158.49625
     *   3 MiB:   ln 3 / ln 4 = 1.0986123 / 1.3862944 = 0.7924813 -> 258.49625
     * Outside: the end values (100 below 1 MiB, 300 above 4 MiB). */
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 2 * MiB), 200, 1e-9);
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1.5 * MiB),
                            158.49625, 1e-5);
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 3 * MiB),
                            258.49625, 1e-5);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1 * MiB), 100);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 4 * MiB), 300);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 8), 100);
    ck_assert_double_eq(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, GiB), 300);
    /* algbw likewise: 57.142857 and 171.428571; at 2 MiB their mean 114.285714. */
    ck_assert_double_eq_tol(rl_comm_results_algbw_gbs(&r, RL_COLL_ALLREDUCE, 2 * MiB),
                            114.285714, 1e-6);
    /* Not measured, no size: NAN. */
    ck_assert(isnan(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLGATHER, MiB)));
    ck_assert(isnan(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 0)));
    ck_assert(isnan(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, -1)));
    /* The curve: out-of-place only, by size. */
    double x[4], y[4];
    const struct rl_comm_series *s = rl_comm_results_series(&r, RL_COLL_ALLREDUCE);
    ck_assert_uint_eq(rl_comm_series_curve(s, false, x, y, 4), 2);
    ck_assert_double_eq(x[0], MiB);
    ck_assert_double_eq(y[0], 100);
    ck_assert_double_eq(x[1], 4 * MiB);
    ck_assert_double_eq(y[1], 300);
    ck_assert_uint_eq(rl_comm_series_curve(s, false, NULL, NULL, 0), 2);
    ck_assert_uint_eq(rl_comm_series_curve(s, true, x, y, 1), 2); /* one asked, two there */
    ck_assert_double_eq(x[0], MiB);
    ck_assert_double_eq_tol(y[0], 57.142857, 1e-9);
    rl_comm_results_release(&r);
}
END_TEST

/* A file with one change: its text with `from` replaced by `to`. */
static int load_edited(const char *from, const char *to, char *err)
{
    char *text = rl_test_slurp(rl_test_data("comm/synthetic.json"));
    char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "fixture lacks '%s'", from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    char path[1024];
    snprintf(path, sizeof path, "%s/edited.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fputs(edited, f);
    fclose(f);
    struct rl_comm_results r;
    int rc = rl_comm_results_load(&r, path, err);
    if (rc == 0)
        rl_comm_results_release(&r);
    free(edited);
    free(text);
    return rc;
}

/* What the reader keeps of the synthetic file beside the numbers: its one
 * host, each rank's device, the copy's GPU names (2, from the first copy
 * that names them), the run's notes; and of edited copies of it: a series
 * with no results (allowed by the schema) is read with none, not refused
 * as out of memory; a copy naming 17 GPUs keeps the first 16 (the array's
 * size); a failed check is read as failed. */
static struct rl_comm_results load_edited_ok(const char *from, const char *to)
{
    char *text = rl_test_slurp(rl_test_data("comm/synthetic.json"));
    char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "fixture lacks '%s'", from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    struct rl_comm_results r;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_msg(rl_comm_results_parse(&r, edited, strlen(edited), "edited", err) == 0, "%s",
                  err);
    free(edited);
    free(text);
    return r;
}

START_TEST(reader_keeps_hosts_names_and_notes)
{
    struct rl_comm_results r = load_ok(rl_test_data("comm/synthetic.json"));
    ck_assert_uint_eq(r.n_hosts, 1);
    ck_assert_str_eq(r.hosts[0], "node-a");
    ck_assert_int_eq(r.devices[1].rank, 1);
    ck_assert_int_eq(r.devices[1].device, 1);
    ck_assert_str_eq(r.devices[1].host, "node-a");
    ck_assert_int_eq(r.n_copy_devices, 2);
    ck_assert_str_eq(r.copy_devices[1], "NVIDIA H100 80GB HBM3");
    ck_assert_uint_eq(r.n_notes, 1);
    ck_assert_str_eq(r.notes[0], "synthetic");
    ck_assert_uint_eq(r.n_copies, 2);
    ck_assert_str_eq(r.copies[1].note, "null cells: no peer access between GPUs 1->0 "
                                       "(cudaDeviceCanAccessPeer 0)");
    rl_comm_results_release(&r);

    static const char *const first_results = "\"results\": [\n       {\"bytes\": 4194304, "
        "\"count\": 1048576, \"in_place\": false, \"iters\": 20, \"time_us\": 24.466773";
    char *text = rl_test_slurp(rl_test_data("comm/synthetic.json"));
    char *from = strstr(text, "\"results\": [");
    char *end = strstr(from, "]}");
    ck_assert_ptr_nonnull(end);
    char cut[2048];
    snprintf(cut, sizeof cut, "%.*s", (int)(end - from + 1), from);
    ck_assert_int_eq(strncmp(cut, first_results, strlen(first_results)), 0);
    free(text);
    r = load_edited_ok(cut, "\"results\": []");
    ck_assert_uint_eq(r.n_series, 2);
    ck_assert_uint_eq(r.series[0].n, 0);
    ck_assert_ptr_null(r.series[0].points);
    ck_assert_uint_eq(r.series[1].n, 2);
    ck_assert(isnan(rl_comm_results_busbw_gbs(&r, RL_COLL_ALLREDUCE, 1024)));
    rl_comm_results_release(&r);

    char names[1024] = "\"devices\": [";
    for (int i = 0; i < 17; i++) {
        char one[32];
        snprintf(one, sizeof one, "%s\"gpu %d\"", i ? ", " : "", i);
        strcat(names, one);
    }
    strcat(names, "],\n     \"matrix_gbs\": [[55.1");
    r = load_edited_ok("\"devices\": [\"NVIDIA H100 80GB HBM3\", \"NVIDIA H100 80GB HBM3\"],\n"
                       "     \"matrix_gbs\": [[55.1",
                       names);
    ck_assert_int_eq(r.n_copy_devices, 16);
    ck_assert_str_eq(r.copy_devices[0], "gpu 0");
    ck_assert_str_eq(r.copy_devices[15], "gpu 15");
    ck_assert(!r.check_failed);
    rl_comm_results_release(&r);

    r = load_edited_ok("\"check\": \"passed\"", "\"check\": \"failed\"");
    ck_assert(r.check_failed);
    rl_comm_results_release(&r);
}
END_TEST

START_TEST(bad_files_name_file_and_line)
{
    char err[RL_ERRMSG_SIZE];
    /* A rate that is a string, on line 32 of the file. */
    ck_assert_int_eq(load_edited("\"busbw_gbs\": 300", "\"busbw_gbs\": \"fast\"", err),
                     RL_ESCHEMA);
    ck_assert_msg(strstr(err, "edited.json': line 32") && strstr(err, "busbw_gbs"), "%s", err);
    ck_assert_int_eq(load_edited("\"kind\": \"roofline-comm\"", "\"kind\": \"roofline-bench\"",
                                 err), RL_ESCHEMA);
    ck_assert_msg(strstr(err, "line 4"), "%s", err);
    ck_assert_int_eq(load_edited("\"collective\": \"sendrecv\"", "\"collective\": \"reduce\"",
                                 err), RL_ESCHEMA);
    ck_assert_int_eq(load_edited("\"collective\": \"sendrecv\"", "\"collective\": \"allreduce\"",
                                 err), RL_ESCHEMA);
    ck_assert_msg(strstr(err, "twice"), "%s", err);
    ck_assert_int_eq(load_edited("[[null, 380.5], [null, null]]", "[[null, 380.5], [null]]", err),
                     RL_ESCHEMA);
    ck_assert_msg(strstr(err, "rows of different lengths"), "%s", err);
    ck_assert_int_eq(load_edited("\"check\": \"passed\",", "", err), RL_ESCHEMA);
    ck_assert_int_eq(load_edited("\"ranks\": 8,", "\"ranks\": 8,,", err), RL_EPARSE);
    ck_assert_int_eq(load_edited("\"wrong\": null", "\"wrong\": -1", err), RL_ESCHEMA);
    /* counts past what an int holds (read as ints): refused, not wrapped */
    ck_assert_int_eq(load_edited("\"ranks\": 8,", "\"ranks\": 1e12,", err), RL_ESCHEMA);
    ck_assert_msg(strstr(err, "ranks"), "%s", err);
    ck_assert_int_eq(load_edited("\"gpus\": 8,", "\"gpus\": 2147483648,", err), RL_ESCHEMA);
    struct rl_comm_results r;
    ck_assert_int_eq(rl_comm_results_load(&r, "/nonexistent/comm.json", err), RL_EIO);
}
END_TEST

/* A raw record as the plugin returns it: 8 ranks on one node, all-reduce at
 * 1 GiB in 4000 us out-of-place (2 wrong elements in place), all-gather on
 * one size, one skipped collective, an h2d copy row. */
static struct rl_comm_raw *raw_fixture(void)
{
    struct rl_comm_raw *raw = calloc(1, sizeof *raw);
    raw->root = true;
    raw->ranks = 8;
    raw->nodes = 1;
    raw->gpus_per_node = 8;
    raw->nccl_version = 22809;
    raw->cuda_runtime = 13000;
    raw->cuda_driver = 12080;
    raw->iters = 20;
    raw->warmup = 5;
    raw->fewer_above_bytes = 64 * MiB;
    raw->n_devices = 8;
    for (int i = 0; i < 8; i++) {
        raw->devices[i].rank = i;
        raw->devices[i].device = i;
        snprintf(raw->devices[i].host, sizeof raw->devices[i].host, "node-a");
        snprintf(raw->devices[i].name, sizeof raw->devices[i].name, "NVIDIA H100 80GB HBM3");
        snprintf(raw->devices[i].pci_bus_id, sizeof raw->devices[i].pci_bus_id, "0000:%02X:00.0",
                 i);
    }
    raw->n_colls = 3;
    struct rl_comm_raw_coll *ar = &raw->colls[0];
    ar->collective = RL_COLL_ALLREDUCE;
    ar->run = true;
    ar->n_results = 2;
    ar->results[0] = (struct rl_comm_raw_result){GiB, (long long)(GiB / 4), false, 5, 4000, 4100, 0};
    ar->results[1] = (struct rl_comm_raw_result){GiB, (long long)(GiB / 4), true, 5, 5000, 5100, 2};
    struct rl_comm_raw_coll *ag = &raw->colls[1];
    ag->collective = RL_COLL_ALLGATHER;
    ag->run = true;
    ag->n_results = 1;
    ag->results[0] = (struct rl_comm_raw_result){8 * MiB, (long long)(MiB / 4), false, 20, 100, 101, 0};
    struct rl_comm_raw_coll *sr = &raw->colls[2];
    sr->collective = RL_COLL_SENDRECV;
    snprintf(sr->note, sizeof sr->note, "skipped for the test");
    raw->n_copies = 1;
    struct rl_comm_raw_copy *h2d = &raw->copies[0];
    snprintf(h2d->kind, sizeof h2d->kind, "h2d");
    snprintf(h2d->engine, sizeof h2d->engine, "ce");
    snprintf(h2d->direction, sizeof h2d->direction, "uni");
    h2d->bytes = 256 * MiB;
    h2d->rows = 1;
    h2d->cols = 8;
    for (int i = 0; i < 8; i++)
        h2d->gbs[0][i] = i == 3 ? NAN : 50 + i;
    raw->copy_gpus = 8;
    for (int i = 0; i < 8; i++)
        snprintf(raw->copy_devices[i], sizeof raw->copy_devices[i], "NVIDIA H100 80GB HBM3");
    raw->n_notes = 1;
    snprintf(raw->notes[0], sizeof raw->notes[0], "a note");
    return raw;
}

START_TEST(rates_from_raw_times)
{
    struct rl_comm_raw *raw = raw_fixture();
    struct rl_comm_results r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_comm_results_from_raw(&r, raw, "NVIDIA H100 80GB HBM3", "h100-sxm",
                                              "NVLink 4", 450, "2026-12-02T02:00:00Z", "0.3.0",
                                              err), 0);
    /* 1 GiB in 4000 us: algbw = 1073741824 / 4000 / 1e3 = 268.435456 GB/s;
     * busbw = x 2 (8 - 1) / 8 = 1.75: 469.762048; % of 450: 104.391566. */
    const struct rl_comm_point *p = &r.series[0].points[0];
    ck_assert_double_eq_tol(p->algbw_gbs, 268.435456, 1e-9);
    ck_assert_double_eq_tol(p->busbw_gbs, 469.762048, 1e-9);
    ck_assert_double_eq_tol(p->pct_of_link, 104.391566, 1e-6);
    /* all-gather of 8 MiB in 100 us: algbw 83.886080, x 7/8 = 73.40032. */
    ck_assert_double_eq_tol(r.series[1].points[0].algbw_gbs, 83.88608, 1e-9);
    ck_assert_double_eq_tol(r.series[1].points[0].busbw_gbs, 73.40032, 1e-9);
    ck_assert_str_eq(r.series[0].redop, "sum");
    ck_assert_str_eq(r.series[1].redop, "");
    ck_assert(r.check_failed); /* 2 wrong in place */
    ck_assert_str_eq(r.nccl_version, "2.28.9");
    ck_assert_str_eq(r.cuda_driver, "12.8");
    ck_assert_uint_eq(r.n_hosts, 1);
    /* The skipped collective's note is a note of the file too. */
    ck_assert_uint_eq(r.n_notes, 2);
    ck_assert_str_eq(r.notes[0], "sendrecv: skipped for the test");
    /* The document validates against the shipped schema and reads back. */
    cJSON *doc = rl_comm_results_json(&r);
    char *text = cJSON_Print(doc);
    cJSON *schema;
    ck_assert_int_eq(rl_json_parse_file(ROOFLINE_SOURCE_DIR "/data/schemas/comm.schema.json",
                                        &schema, err), 0);
    ck_assert_msg(rl_schema_validate(schema, doc, NULL, err) == 0, "%s", err);
    ck_assert_str_eq(rl_json_string(doc, "check"), "failed");
    struct rl_comm_results back;
    ck_assert_msg(rl_comm_results_parse(&back, text, strlen(text), "written", err) == 0, "%s", err);
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&back, RL_COLL_ALLREDUCE, GiB), 469.762048,
                            1e-4);
    ck_assert_int_eq(back.series[0].points[1].wrong, 2);
    ck_assert_int_eq(back.series[0].points[0].wrong, 0); /* checked, none wrong: 0, not null */
    ck_assert_double_eq(back.fewer_above_bytes, 64 * MiB);
    ck_assert_double_eq(back.series[0].points[0].time_max_us, 4100);
    const struct rl_comm_copy *h2d = rl_comm_results_copy(&back, "h2d", "ce", "uni");
    ck_assert_int_eq(h2d->cols, 8);
    ck_assert(isnan(h2d->matrix_gbs[3]));
    ck_assert_double_eq(h2d->matrix_gbs[7], 57);
    ck_assert(back.check_failed);
    rl_comm_results_release(&back);
    /* no default used (fewer_above_bytes 0): the key is left out; a point
     * not checked (wrong -1) says null, a checked one its count */
    r.fewer_above_bytes = 0;
    r.series[0].points[0].wrong = -1;
    cJSON *plain = rl_comm_results_json(&r);
    ck_assert_ptr_null(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(plain, "conditions"),
                                         "fewer_above_bytes"));
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plain, "collectives"), 0), "results");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pts, 0), "wrong")));
    const cJSON *two = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pts, 1), "wrong");
    ck_assert(cJSON_IsNumber(two));
    ck_assert_double_eq(two->valuedouble, 2);
    ck_assert_msg(rl_schema_validate(schema, plain, NULL, err) == 0, "%s", err);
    cJSON_Delete(plain);
    cJSON_Delete(schema);
    cJSON_Delete(doc);
    free(text);
    rl_comm_results_release(&r);
    free(raw);
}
END_TEST

START_TEST(one_rank_has_no_bus_traffic)
{
    /* One GPU: all-reduce's factor 2 (1 - 1) / 1 = 0, so busbw 0 and no % of
     * link; broadcast's factor is 1 whatever n. */
    struct rl_comm_raw *raw = raw_fixture();
    raw->ranks = 1;
    raw->n_devices = 1;
    raw->colls[1].collective = RL_COLL_BROADCAST;
    struct rl_comm_results r;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_comm_results_from_raw(&r, raw, "NVIDIA H200", "h200", "NVLink 4", 450,
                                              "2026-12-02T02:00:00Z", "0.3.0", err), 0);
    ck_assert_double_eq_tol(r.series[0].points[0].algbw_gbs, 268.435456, 1e-9);
    ck_assert_double_eq(r.series[0].points[0].busbw_gbs, 0);
    ck_assert(isnan(r.series[0].points[0].pct_of_link));
    /* broadcast 8 MiB in 100 us: 83.88608 both, 18.641351 % of 450. */
    ck_assert_double_eq_tol(r.series[1].points[0].busbw_gbs, 83.88608, 1e-9);
    ck_assert_double_eq_tol(r.series[1].points[0].pct_of_link, 18.6413511, 1e-6);
    /* Without a link: no percentage, and the JSON says null. */
    rl_comm_results_release(&r);
    ck_assert_int_eq(rl_comm_results_from_raw(&r, raw, "NVIDIA H200", "", "", NAN,
                                              "2026-12-02T02:00:00Z", "0.3.0", err), 0);
    ck_assert(isnan(r.series[1].points[0].pct_of_link));
    cJSON *doc = rl_comm_results_json(&r);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "gpu_id")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "link"),
                                               "gbs_per_direction")));
    cJSON_Delete(doc);
    rl_comm_results_release(&r);
    free(raw);
}
END_TEST

/* ---- the command, without a GPU -------------------------------------- */

static void expect_usage(const char *what, struct rl_run r)
{
    ck_assert_msg(r.status == 2, "%s: exit %d: %s", what, r.status, r.err);
    ck_assert_msg(strstr(r.err, "roofline comm: ") == r.err, "%s: %s", what, r.err);
    rl_run_release(&r);
}

START_TEST(usage_errors_exit_2)
{
    /* ROOFLINE_COMM_LIB pointing nowhere: a usage error must come before
     * the plugin is even looked for. */
    const char *const env[] = {"ROOFLINE_COMM_LIB=/nonexistent/libroofline_comm.so", NULL};
    expect_usage("collective", rl_test_cli(env, "comm", "--measure", "--collective", "allreduc",
                                           NULL));
    expect_usage("bytes", rl_test_cli(env, "comm", "--measure", "--max-bytes", "1X", NULL));
    expect_usage("bytes frac", rl_test_cli(env, "comm", "--measure", "--min-bytes", "1.5", NULL));
    expect_usage("order", rl_test_cli(env, "comm", "--measure", "--min-bytes", "1M",
                                      "--max-bytes", "64k", NULL));
    expect_usage("iters", rl_test_cli(env, "comm", "--measure", "--iters", "0", NULL));
    expect_usage("gpus", rl_test_cli(env, "comm", "--measure", "--gpus", "x", NULL));
    expect_usage("dtype", rl_test_cli(env, "comm", "--measure", "--dtype", "bf16", NULL));
    expect_usage("both", rl_test_cli(env, "comm", "--measure", "--no-copies", "--copies-only",
                                     NULL));
    expect_usage("timeout", rl_test_cli(env, "comm", "--measure", "--timeout", "-1", NULL));
    /* --bytes: one size, or a sweep, not both; a size as the sweep's */
    expect_usage("bytes and sweep", rl_test_cli(env, "comm", "--measure", "--bytes", "1G",
                                                "--min-bytes", "8", NULL));
    expect_usage("bytes zero", rl_test_cli(env, "comm", "--measure", "--bytes", "0", NULL));
    expect_usage("unknown", rl_test_cli(env, "comm", "--measure", "--bogus", NULL));
    expect_usage("argument", rl_test_cli(env, "comm", "--measure", "extra", NULL));
    struct rl_run h = rl_test_cli(env, "comm", "--measure", "-h", NULL);
    ck_assert_int_eq(h.status, 0);
    ck_assert(strstr(h.out, "--collective LIST|all"));
    rl_run_release(&h);
    /* Unknown or AMD datasheet: one runtime line, exit 1, before the plugin. */
    struct rl_run g = rl_test_cli(env, "comm", "--measure", "--gpu", "h100-sxn", NULL);
    ck_assert_int_eq(g.status, 1);
    ck_assert_msg(strstr(g.err, "h100-sxm") && rl_test_count(g.err, "\n") == 1, "%s", g.err);
    rl_run_release(&g);
    g = rl_test_cli(env, "comm", "--measure", "--gpu", "mi300x", NULL);
    ck_assert_int_eq(g.status, 1);
    ck_assert_msg(strstr(g.err, "needs an NVIDIA GPU") && !strstr(g.err, "ROOFLINE_COMM_LIB"),
                  "%s", g.err);
    rl_run_release(&g);
    /* Good usage, missing plugin: one runtime line, exit 1. */
    struct rl_run r = rl_test_cli(env, "comm", "--measure", "--max-bytes", "64MiB", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strncmp(r.err, "roofline: error: cannot measure: cannot load ROOFLINE_COMM_LIB",
                          62) == 0, "%s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
}
END_TEST

/* --bytes with --measure as without it: one message size (it was an
 * unknown option there). With the fake plugin: 2 MiB only, both
 * in-place and out-of-place (nccl-tests' two points of a size). */
START_TEST(measure_takes_bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fake-comm-bytes.json", rl_test_tmpdir());
    const char *const env[] = {"ROOFLINE_COMM_LIB=" ROOFLINE_FAKE_COMM_LIB, NULL};
    struct rl_run r = rl_test_cli(env, "comm", "--measure", "--bytes", "2M", "--collective",
                                  "allreduce", "--no-copies", "-o", path, NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    rl_run_release(&r);
    struct rl_comm_results res = load_ok(path);
    ck_assert_uint_eq(res.n_series, 1);
    ck_assert_uint_ge(res.series[0].n, 1);
    for (size_t i = 0; i < res.series[0].n; i++)
        ck_assert_double_eq(res.series[0].points[i].bytes, 2 * MiB);
    rl_comm_results_release(&res);
}
END_TEST

START_TEST(cli_with_a_fake_plugin)
{
    /* The CLI's half on made-up raw times (tests/comm/fake_plugin.c): 8
     * ranks, bytes / 1e5 us per size, so algbw = 100 GB/s at every size;
     * all-reduce busbw = 100 x 2 x 7 / 8 = 175, all-gather 100 x 7 / 8 =
     * 87.5, broadcast 100; H100 SXM's link (data/gpus) is the datasheet's. */
    char path[1024], opt[1100];
    snprintf(path, sizeof path, "%s/fake-comm.json", rl_test_tmpdir());
    snprintf(opt, sizeof opt, "%s", path);
    const char *const env[] = {"ROOFLINE_COMM_LIB=" ROOFLINE_FAKE_COMM_LIB, NULL};
    struct rl_run r = rl_test_cli(env, "comm", "--measure", "--min-bytes", "1M", "--max-bytes",
                                  "4M", "--collective", "allreduce,allgather,broadcast,sendrecv",
                                  "-o", opt, NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "allreduce (float, sum), 8 GPUs"), "%.2000s", r.out);
    ck_assert_msg(strstr(r.out, "4 MiB"), "%.2000s", r.out);
    ck_assert_msg(strstr(r.out, "175.00"), "%.2000s", r.out);
    ck_assert_msg(strstr(r.out, "skipped: skipped by the fake plugin"), "%.2000s", r.out);
    ck_assert_msg(strstr(r.out, "copy h2d uni"), "%.2000s", r.out);
    ck_assert_msg(strstr(r.out, "wrote "), "%.2000s", r.out);
    rl_run_release(&r);
    struct rl_comm_results res = load_ok(path);
    ck_assert_uint_eq(res.n_series, 4);
    ck_assert_str_eq(res.gpu_id, "h100-sxm");
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&res, RL_COLL_ALLREDUCE, 2 * MiB), 175,
                            1e-9);
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&res, RL_COLL_ALLGATHER, 3 * MiB), 87.5,
                            1e-9);
    ck_assert_double_eq_tol(rl_comm_results_busbw_gbs(&res, RL_COLL_BROADCAST, 8 * MiB), 100,
                            1e-9);
    ck_assert(isnan(rl_comm_results_busbw_gbs(&res, RL_COLL_SENDRECV, MiB)));
    ck_assert_int_eq(res.iters, 20);
    ck_assert(!res.check_failed);
    /* % of link: when data/gpus gives H100 SXM's links, 175 / link x 100. */
    const struct rl_comm_point *p = &res.series[0].points[0];
    if (res.link_gbs > 0)
        ck_assert_double_eq_tol(p->pct_of_link, 100 * 175 / res.link_gbs, 1e-3);
    else
        ck_assert(isnan(p->pct_of_link));
    rl_comm_results_release(&res);

    /* --json: the same document on stdout. */
    r = rl_test_cli(env, "comm", "--measure", "--max-bytes", "16", "--json", "-o", opt, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strstr(r.out, "\"roofline-comm\"") && strstr(r.out, "\"collectives\""),
                  "%.300s", r.out);
    rl_run_release(&r);

    /* A wrong element: the file is written and says so, exit 1, one line. */
    const char *const wrong[] = {"ROOFLINE_COMM_LIB=" ROOFLINE_FAKE_COMM_LIB, "FAKE_COMM_WRONG=1",
                                 NULL};
    r = rl_test_cli(wrong, "comm", "--measure", "--max-bytes", "64", "-o", opt, NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.err, "roofline: error: comm --measure: a check failed"), "%s", r.err);
    rl_run_release(&r);
    res = load_ok(path);
    ck_assert(res.check_failed);
    ck_assert_int_eq(res.series[0].points[1].wrong, 3);
    rl_comm_results_release(&res);

    /* A file that cannot be written: the tables still print (the
     * measurement is not lost), one line, exit 1, and no "wrote". */
    r = rl_test_cli(env, "comm", "--measure", "--max-bytes", "16", "-o",
                    "/nonexistent/dir/comm.json", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.out, "allreduce (float, sum)"), "%.300s", r.out);
    ck_assert_msg(!strstr(r.out, "wrote "), "%s", r.out);
    ck_assert_msg(strstr(r.err, "roofline: error: cannot write '/nonexistent/dir/comm.json'"),
                  "%s", r.err);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);

    /* A failed run: one line, exit 1, no file. */
    const char *const fail[] = {"ROOFLINE_COMM_LIB=" ROOFLINE_FAKE_COMM_LIB, "FAKE_COMM_FAIL=1",
                                NULL};
    snprintf(opt, sizeof opt, "%s/none.json", rl_test_tmpdir());
    r = rl_test_cli(fail, "comm", "--measure", "-o", opt, NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.err, "roofline: error: cannot measure: rank 1: NCCL: remote process exited "
                            "or there was a network error (fake)\n");
    ck_assert(access(opt, F_OK) != 0);
    rl_run_release(&r);
}
END_TEST

static Suite *comm_results_suite(void)
{
    Suite *s = suite_create("comm_results");
    TCase *core = tcase_create("core");
    tcase_add_test(core, synthetic_file_loads);
    tcase_add_test(core, reader_keeps_hosts_names_and_notes);
    tcase_add_test(core, busbw_interpolates_in_log_bytes);
    tcase_add_test(core, rates_from_raw_times);
    tcase_add_test(core, one_rank_has_no_bus_traffic);
    tcase_add_test(core, cli_with_a_fake_plugin);
    tcase_add_test(core, measure_takes_bytes);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, bad_files_name_file_and_line);
    tcase_add_test(limits, usage_errors_exit_2);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(comm_results_suite()); }
