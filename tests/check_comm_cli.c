/* check_comm_cli.c - tests of the interconnect from the command line: `roofline comm`, `chart --comm`, the link roof in reports and llm. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define RUN(...) rl_test_cli(NULL, __VA_ARGS__, (const char *)NULL)

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "no number '%s'", key);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsString(v), "no string '%s'", key);
    return v->valuestring;
}

/* The example from the shipped datasheet (data/gpus/h100-sxm.json:
 * 18 x 25 GB/s), every key it names. */
START_TEST(cli_allreduce_json)
{
    struct rl_run r = RUN("comm", "--gpu", "h100-sxm", "--gpus", "8", "--collective",
                          "allreduce", "--bytes", "1GiB", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(str(doc, "collective"), "allreduce");
    ck_assert_double_eq(num(doc, "gpus"), 8);
    ck_assert_double_eq(num(doc, "nodes"), 1);
    ck_assert_double_eq(num(doc, "bytes"), 1073741824.0);
    ck_assert(strstr(str(doc, "link"), "NVLink 4") != NULL);
    ck_assert_double_eq(num(doc, "link_gbs_per_direction"), 450);
    ck_assert_double_eq_tol(num(doc, "algbw_gbs"), 255.51, 0.01);
    ck_assert_double_eq_tol(num(doc, "busbw_gbs"), 447.16, 0.01);
    ck_assert_double_eq_tol(num(doc, "time_us"), 4202.26, 0.01);
    ck_assert_str_eq(str(doc, "origin"), "analytic");
    /* 450 is the datasheet's 900 (both directions) halved: derived, so analytic */
    ck_assert_str_eq(str(doc, "link_origin"), "analytic");
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

/* Every collective, for every GPU of the database, answers (a GPU without
 * NVLink over PCIe), and a sweep gives one prediction per size and collective. */
START_TEST(cli_every_gpu_every_collective)
{
    const char *const gpus[] = {"v100-sxm2", "a100-sxm-80gb", "a100-pcie-80gb", "h100-sxm",
                                "h100-pcie", "h100-nvl", "h200", "b200", "gh200", "l4",
                                "l40s", "rtx-3090", "rtx-4090", NULL};
    for (int i = 0; gpus[i]; i++) {
        struct rl_run r = RUN("comm", "--gpu", gpus[i], "--gpus", "2", "--min-bytes", "8",
                              "--max-bytes", "1M", "--json");
        ck_assert_msg(r.status == 0, "%s: %s", gpus[i], r.err);
        cJSON *doc = cJSON_Parse(r.out);
        const cJSON *p = cJSON_GetObjectItem(doc, "predictions");
        /* 6 collectives x 18 sizes (8 B .. 1 MiB) */
        ck_assert_int_eq(cJSON_GetArraySize(p), 6 * 18);
        const cJSON *it;
        cJSON_ArrayForEach(it, p) {
            ck_assert(num(it, "time_us") > 0);
            ck_assert(num(it, "busbw_gbs") <= num(it, "link_gbs_per_direction") + 1e-9);
        }
        cJSON_Delete(doc);
        rl_run_release(&r);
    }
}
END_TEST

/* Two DGX H100 nodes: bound by the NICs (8 x 400 Gb/s), from the system file. */
START_TEST(cli_system_two_nodes)
{
    struct rl_run r = RUN("comm", "--system", "dgx-h100", "--gpus", "16", "--collective",
                          "allreduce", "--bytes", "1G", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_double_eq(num(doc, "nodes"), 2);
    ck_assert_double_eq(num(doc, "link_gbs_per_direction"), 400);
    ck_assert(strstr(str(doc, "link"), "NIC") != NULL);
    ck_assert_str_eq(str(doc, "system"), "dgx-h100");
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* the NIC's name whole, as its system file gives it (55 characters) */
    r = RUN("comm", "--system", "mi300x-platform", "--gpus", "16", "--collective", "sendrecv",
            "--bytes", "1G", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    doc = cJSON_Parse(r.out);
    ck_assert_str_eq(str(doc, "link"), "NIC share of 8 x 400 Gb/s per node (400 Gb/s RDMA NIC "
                                       "per GPU (the server vendor's choice))");
    cJSON_Delete(doc);
    rl_run_release(&r);
}
END_TEST

/* --nodes alone takes the NICs of the first system with the GPU (here
 * dgx-h100: 8 x 400 Gb/s for 8 GPUs): one GPU per node uses its share,
 * 400 GB/s / 8 = 50 GB/s, as with --system dgx-h100; 8 GPUs per node all 400. */
START_TEST(cli_nodes_take_the_system_nic_share)
{
    const char *const sizes[][2] = {{"2", "50"}, {"16", "400"}};
    for (int i = 0; i < 2; i++) {
        struct rl_run r = RUN("comm", "--gpu", "h100-sxm", "--gpus", sizes[i][0], "--nodes", "2",
                              "--collective", "allreduce", "--bytes", "1G", "--json");
        ck_assert_msg(r.status == 0, "%s", r.err);
        cJSON *doc = cJSON_Parse(r.out);
        ck_assert_ptr_nonnull(doc);
        ck_assert_str_eq(str(doc, "nic_from_system"), "dgx-h100");
        ck_assert_double_eq(num(doc, "link_gbs_per_direction"), atof(sizes[i][1]));
        cJSON_Delete(doc);
        rl_run_release(&r);
        struct rl_run q = RUN("comm", "--system", "dgx-h100", "--gpus", sizes[i][0], "--nodes",
                              "2", "--collective", "allreduce", "--bytes", "1G", "--json");
        ck_assert_msg(q.status == 0, "%s", q.err);
        doc = cJSON_Parse(q.out);
        ck_assert_double_eq(num(doc, "link_gbs_per_direction"), atof(sizes[i][1]));
        cJSON_Delete(doc);
        rl_run_release(&q);
    }
}
END_TEST

START_TEST(cli_bad_usage)
{
    struct {
        const char *a[10];
        const char *msg;
    } cases[] = {
        {{"comm", "--gpu", "h100-sxm", "--gpus", "8", "--collective", "allredux", NULL},
         "did you mean 'allreduce'"},
        {{"comm", "--gpu", "h100-sxm", "--gpus", "8", "--bytes", "12Q", NULL}, "--bytes"},
        {{"comm", "--gpu", "h100-sxm", "--gpus", "0", NULL}, "--gpus"},
        {{"comm", "--gpus", "8", NULL}, "--gpu or --system"},
        {{"comm", "--gpu", "h100-sxm", NULL}, "--gpus is required"},
        {{"comm", "--gpu", "h100-sxm", "--gpus", "8", "--bytes", "1G", "--min-bytes", "8", NULL},
         "not both"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].a;
        struct rl_run r = rl_test_cli(NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                                      (const char *)NULL);
        ck_assert_msg(r.status == 2, "case %zu: exit %d: %s", i, r.status, r.err);
        ck_assert_msg(strstr(r.err, cases[i].msg) != NULL, "case %zu: %s", i, r.err);
        rl_run_release(&r);
    }
    /* a long list of valid names (30 x "allreduce,", 300 characters) is valid */
    char list[400] = "";
    for (int i = 0; i < 30; i++)
        strcat(list, i ? ",allreduce" : "allreduce");
    strcat(list, ",sendrecv");
    struct rl_run l = RUN("comm", "--gpu", "h100-sxm", "--gpus", "8", "--collective", list,
                          "--bytes", "1G");
    ck_assert_msg(l.status == 0, "%s", l.err);
    ck_assert(strstr(l.out, "sendrecv") != NULL);
    rl_run_release(&l);
    /* runtime errors: exit 1, one line */
    struct rl_run r = RUN("comm", "--gpu", "h100-sxm", "--gpus", "12", "--nodes", "5");
    ck_assert_int_eq(r.status, 1);
    ck_assert(strstr(r.err, "divide evenly") != NULL);
    ck_assert_int_eq((int)rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
    r = RUN("comm", "--gpu", "h10-sxm", "--gpus", "8");
    ck_assert_int_eq(r.status, 1);
    ck_assert(strstr(r.err, "h100-sxm") != NULL);
    rl_run_release(&r);
}
END_TEST

/* Work that communicates, on the roofline (tests/data/comm/tp-layer.json,
 * H100 SXM: BF16 989.4 TFLOP/s, HBM3 3350 GB/s, NVLink 4 450 GB/s per
 * direction). A layer of 1e12 FLOP reading 1e9 bytes of HBM (1000 FLOP/B,
 * right of the 295 FLOP/B ridge) that sends 2e9 bytes: 500 FLOP per byte
 * communicated x 450 GB/s = 225 TFLOP/s < 989.4: bound by the link, whose
 * BF16 ridge is 989.4 / 0.45 = 2198.7 FLOP/B, 4.4x right of it. Timed at 8
 * ms: 125 TFLOP/s = 55.6% of 225. Sending 1e8 bytes (10000 FLOP/B: 4500
 * TFLOP/s) it stays compute-bound. */
START_TEST(cli_link_roof_on_the_roofline)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/tp.svg", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--gpu", "h100-sxm", "--kernels",
                          rl_test_data("comm/tp-layer.json"), "-o", out, "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    const cJSON *k, *ks = cJSON_GetObjectItem(doc, "kernels");
    int seen = 0;
    cJSON_ArrayForEach(k, ks) {
        const char *name = str(k, "name");
        if (strcmp(name, "tp8-mlp-layer") == 0) {
            ck_assert_str_eq(str(k, "bound"), "link");
            ck_assert_double_eq_tol(num(k, "ai_link_flop_per_byte"), 500, 1e-9);
            ck_assert_double_eq_tol(num(k, "link_attainable_tflops"), 225, 1e-9);
            ck_assert_double_eq(num(k, "link_gbs_per_direction"), 450);
            ck_assert_str_eq(str(k, "link_origin"), "analytic"); /* 900 / 2 */
            ck_assert(strstr(str(k, "sentence"), "bound by NVLink 4") != NULL);
            seen++;
        } else if (strcmp(name, "tp8-mlp-layer-timed") == 0) {
            ck_assert_str_eq(str(k, "bound"), "link");
            ck_assert_double_eq_tol(num(k, "pct_of_roof"), 125.0 / 225 * 100, 1e-6);
            seen++;
        } else if (strcmp(name, "little-comm") == 0 || strcmp(name, "gemm-local") == 0) {
            ck_assert_str_eq(str(k, "bound"), "compute");
            seen++;
        }
    }
    ck_assert_int_eq(seen, 4);
    cJSON_Delete(doc);
    /* The link roof and the communicated intensities are drawn. */
    snprintf(out, sizeof out, "%s/tp.gp", rl_test_tmpdir());
    char *gp = rl_test_slurp(out);
    ck_assert_ptr_nonnull(gp);
    ck_assert(strstr(gp, "NVLink 4 (link)") != NULL);
    ck_assert(strstr(gp, "FLOP per byte communicated") != NULL);
    free(gp);
    rl_run_release(&r);
}
END_TEST

/* `chart --comm` on tests/data/comm/synthetic.json (8 H100, all-reduce
 * out-of-place busbw 100 GB/s at 1 MiB, 300 at 4 MiB; send/recv 8 B): the
 * measured curves, their analytic predictions dashed (the file's GPU is in
 * the database), NVLink 4's 450 GB/s per direction as the ceiling. */
START_TEST(cli_chart_comm)
{
    char out[4200], gp_path[4200], dat_path[4200];
    snprintf(out, sizeof out, "%s/comm.svg", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--comm", rl_test_data("comm/synthetic.json"), "-o", out);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(gp_path, sizeof gp_path, "%s/comm.gp", rl_test_tmpdir());
    snprintf(dat_path, sizeof dat_path, "%s/comm.dat", rl_test_tmpdir());
    char *gp = rl_test_slurp(gp_path), *dat = rl_test_slurp(dat_path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(dat);
    ck_assert(strstr(gp, "NVLink 4: 450 GB/s per direction (datasheet)") != NULL);
    ck_assert(strstr(gp, "first 450 to graph 1, first 450") != NULL);
    ck_assert(strstr(gp, "title \"allreduce (measured)\"") != NULL);
    ck_assert(strstr(gp, "title \"sendrecv (measured)\"") != NULL);
    ck_assert(strstr(gp, "analytic (ring model), dashed") != NULL);
    /* measured all-reduce, out of place, in order of size */
    ck_assert(strstr(dat, "1048576 100\n4194304 300\n") != NULL);
    /* its prediction at 1 MiB, by LL: 2^20 x 14/8 / (450e9 / 4) = 16.311 us
     * + 14 x 0.47 us = 22.891 us; busbw = 2^20 / 22.891 us x 1.75 = 80.16 GB/s */
    ck_assert_msg(strstr(dat, "1048576 80.16") != NULL, "%s", dat);
    free(gp);
    free(dat);
    /* a GPU the database does not know: no prediction, so no legend for one */
    char *text = rl_test_slurp(rl_test_data("comm/synthetic.json"));
    char *at = strstr(text, "\"gpu_id\": \"h100-sxm\"");
    ck_assert_ptr_nonnull(at);
    char path[4200];
    snprintf(path, sizeof path, "%s/unknown-gpu.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    fprintf(f, "%.*s\"gpu_id\": null%s", (int)(at - text), text,
            at + strlen("\"gpu_id\": \"h100-sxm\""));
    fclose(f);
    free(text);
    snprintf(out, sizeof out, "%s/unknown-gpu.svg", rl_test_tmpdir());
    r = RUN("chart", "--comm", path, "-o", out);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(gp_path, sizeof gp_path, "%s/unknown-gpu.gp", rl_test_tmpdir());
    gp = rl_test_slurp(gp_path);
    ck_assert_ptr_nonnull(gp);
    ck_assert(strstr(gp, "title \"allreduce (measured)\"") != NULL);
    ck_assert_msg(strstr(gp, "analytic (ring model), dashed") == NULL, "%s", gp);
    free(gp);
    /* --comm draws bandwidth, not kernels */
    r = RUN("chart", "--comm", rl_test_data("comm/synthetic.json"), "--kernels", "k.json", "-o",
            out);
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    /* a file that is not one: one line, exit 1, nothing written */
    snprintf(out, sizeof out, "%s/bad.svg", rl_test_tmpdir());
    r = RUN("chart", "--comm", rl_test_data("comm/tp-layer.json"), "-o", out);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq((int)rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
}
END_TEST

/* `chart --comm` on a file of 16 ranks on 2 nodes (the synthetic file's
 * H100s, edited) without --system: the NICs of the first system with the
 * GPU (dgx-h100: 8 x 400 Gb/s = 400 GB/s per node) as `comm --nodes 2`
 * takes them: the NIC ceiling drawn and the predictions dashed, no warning. */
START_TEST(cli_chart_comm_two_nodes)
{
    char *text = rl_test_slurp(rl_test_data("comm/synthetic.json"));
    ck_assert_ptr_nonnull(text);
    char path[4200], out[4200], gp_path[4200];
    snprintf(path, sizeof path, "%s/two-nodes.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    /* "ranks": 8 -> 16, every "nodes": 1 -> 2, every "gpus": 8 -> 16 */
    for (const char *p = text; *p;) {
        if (strncmp(p, "\"ranks\": 8", 10) == 0) {
            fputs("\"ranks\": 16", f);
            p += 10;
        } else if (strncmp(p, "\"nodes\": 1", 10) == 0) {
            fputs("\"nodes\": 2", f);
            p += 10;
        } else if (strncmp(p, "\"gpus\": 8", 9) == 0) {
            fputs("\"gpus\": 16", f);
            p += 9;
        } else {
            fputc(*p++, f);
        }
    }
    fclose(f);
    free(text);
    snprintf(out, sizeof out, "%s/two-nodes.svg", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--comm", path, "-o", out);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "warning") == NULL, "%s", r.err);
    rl_run_release(&r);
    snprintf(gp_path, sizeof gp_path, "%s/two-nodes.gp", rl_test_tmpdir());
    char *gp = rl_test_slurp(gp_path);
    ck_assert_ptr_nonnull(gp);
    ck_assert_msg(strstr(gp, "NICs: 8 x 400 Gb/s = 400 GB/s per node (datasheet)") != NULL, "%s",
                  gp);
    ck_assert(strstr(gp, "pt 6 ps 0.6 dt (8,4)") != NULL); /* a dashed prediction */
    free(gp);
}
END_TEST

/* A file with more sizes than a measure run makes (70 out-of-place
 * send/recv points, 1 B .. 2^69 B): every one drawn, none read or written
 * past the chart's arrays (UBSan: index 64 out of bounds). */
START_TEST(cli_chart_comm_many_sizes)
{
    char *text = rl_test_slurp(rl_test_data("comm/synthetic.json"));
    ck_assert_ptr_nonnull(text);
    const char *from = strstr(text, "\"collective\": \"sendrecv\"");
    ck_assert_ptr_nonnull(from);
    const char *open = strchr(strstr(from, "\"results\""), '['), *close = strchr(open, ']');
    char path[4200], out[4200], dat_path[4200];
    snprintf(path, sizeof path, "%s/many.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%.*s", (int)(open + 1 - text), text);
    for (int i = 0; i < 70; i++)
        fprintf(f, "%s{\"bytes\": %.17g, \"count\": 1, \"in_place\": false, \"iters\": 20, "
                   "\"time_us\": 10, \"algbw_gbs\": %d, \"busbw_gbs\": %d, \"pct_of_link\": 1, "
                   "\"wrong\": 0}",
                i ? ", " : "", ldexp(1, i), i + 1, i + 1);
    fputs(close, f);
    fclose(f);
    free(text);
    snprintf(out, sizeof out, "%s/many.svg", rl_test_tmpdir());
    struct rl_run r = RUN("chart", "--comm", path, "-o", out);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(dat_path, sizeof dat_path, "%s/many.dat", rl_test_tmpdir());
    char *dat = rl_test_slurp(dat_path);
    ck_assert_ptr_nonnull(dat);
    /* the last size and its value: 2^69 B at 70 GB/s */
    ck_assert_msg(strstr(dat, "5.9029581e+20 70\n") != NULL, "%.3000s", dat);
    /* 70 measured points in the send/recv block: its lines up to the next */
    const char *blk = strstr(dat, "# index 2: sendrecv (measured)\n");
    ck_assert_ptr_nonnull(blk);
    const char *end = strstr(blk, "# index 3");
    ck_assert_ptr_nonnull(end);
    int lines = 0;
    for (const char *p = strchr(blk, '\n') + 1; p < end; p = strchr(p, '\n') + 1)
        lines += *p != '\n';
    ck_assert_int_eq(lines, 70);
    free(dat);
}
END_TEST

/* `llm` split over GPUs puts each step on the roofline against the link
 * too: Llama-3-8B on 8 L40S (no NVLink: PCIe Gen4 x16, 32 GB/s per
 * direction) at TP 8, batch 1: its FLOPs over the bytes its links carry
 * (64 all-reduces of 8 KiB x 2 x 7/8 per step and GPU). */
START_TEST(cli_llm_step_on_the_link_roof)
{
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/llm-tp", rl_test_tmpdir());
    struct rl_run r = RUN("llm", "--model", "llama-3-8b", "--gpu", "l40s", "--tp", "8", "-o", dir);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s/llm-roofline.kernels.dat", dir);
    char *dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(dat);
    const char *line = strstr(dat, "\"decode b1 step, TP 8 PP 1 DP 1 EP 1\"");
    ck_assert_ptr_nonnull(line);
    /* the last column: FLOP per byte communicated, a number */
    const char *end = strchr(line, '\n');
    const char *last = end;
    while (last > line && last[-1] != ' ')
        last--;
    double ai_link = strtod(last, NULL);
    ck_assert_msg(ai_link > 0, "%.*s", (int)(end - line), line);
    free(dat);
    /* its FLOPs per GPU (llm.json step.flops_per_gpu) / the 64 x 8192 x
     * 2 x 7/8 = 917504 bytes its links carry */
    snprintf(path, sizeof path, "%s/llm.json", dir);
    char *js = rl_test_slurp(path);
    cJSON *doc = cJSON_Parse(js);
    ck_assert_ptr_nonnull(doc);
    const cJSON *step = cJSON_GetObjectItem(doc, "step");
    double flops = num(step, "flops_per_gpu");
    const cJSON *tp = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "communication"), 0);
    ck_assert_str_eq(str(tp, "name"), "TP all-reduce");
    ck_assert_double_eq(num(tp, "bytes"), 8192);
    ck_assert_double_eq(num(tp, "calls_per_step"), 64);
    ck_assert_double_eq_tol(ai_link, flops / (64 * 8192 * 2.0 * 7 / 8), 1e-3);
    cJSON_Delete(doc);
    free(js);
    snprintf(path, sizeof path, "%s/llm-roofline.gp", dir);
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(gp);
    ck_assert(strstr(gp, "PCIe Gen4 x16 (link)") != NULL);
    free(gp);
}
END_TEST

/* --system takes a node file of the user's (a copy of data/systems/
 * dgx-h100.json with 4 NICs of 200 Gb/s: two nodes' all-reduce is bound
 * by 4 x 25 = 100 GB/s), checked like the shipped ones. */
START_TEST(cli_system_file_of_ones_own)
{
    char *text = rl_test_slurp(ROOFLINE_SOURCE_DIR "/data/systems/dgx-h100.json");
    ck_assert_ptr_nonnull(text);
    char *nics = strstr(text, "\"nics_per_node\": 8");
    char *rate = strstr(text, "\"nic_gbps\": 400");
    ck_assert_ptr_nonnull(nics);
    ck_assert_ptr_nonnull(rate);
    nics[strlen("\"nics_per_node\": ")] = '4';
    memcpy(rate + strlen("\"nic_gbps\": "), "200", 3);
    char path[4200];
    snprintf(path, sizeof path, "%s/dgx-h100.json", rl_test_tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    free(text);
    struct rl_run r = RUN("comm", "--system", path, "--gpus", "16", "--collective", "allreduce",
                          "--bytes", "1G", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_double_eq(num(doc, "link_gbs_per_direction"), 100);
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* 76 GPUs of 8-GPU nodes need 10 nodes, which 76 does not fill evenly */
    r = RUN("comm", "--system", "dgx-h100", "--gpus", "76");
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.err, "give --nodes, or 80 GPUs to fill 10 nodes") != NULL, "%s", r.err);
    rl_run_release(&r);
    /* not a system file: one line, exit 1 */
    r = RUN("comm", "--system", rl_test_data("comm/tp-layer.json"), "--gpus", "8");
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq((int)rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_cli");
    TCase *cl = tcase_create("cli");
    tcase_add_test(cl, cli_allreduce_json);
    tcase_add_test(cl, cli_every_gpu_every_collective);
    tcase_add_test(cl, cli_system_two_nodes);
    tcase_add_test(cl, cli_nodes_take_the_system_nic_share);
    tcase_add_test(cl, cli_bad_usage);
    tcase_add_test(cl, cli_link_roof_on_the_roofline);
    tcase_add_test(cl, cli_chart_comm);
    tcase_add_test(cl, cli_chart_comm_two_nodes);
    tcase_add_test(cl, cli_chart_comm_many_sizes);
    tcase_add_test(cl, cli_llm_step_on_the_link_roof);
    tcase_add_test(cl, cli_system_file_of_ones_own);
    suite_add_tcase(s, cl);
    return rl_test_run(s);
}
