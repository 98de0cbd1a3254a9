/* check_torch.c - the PyTorch profiler trace reader on real traces (tests/data/torch-real, SOURCES.md) and on hand-built ones. */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/strbuf.h"
#include "tests/test_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

static int load(const char *name, struct rl_trace_groups *g, struct rl_torch_stats *st,
                char *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", rl_test_data(name));
    memset(g, 0, sizeof *g);
    return rl_torch_load(g, path, st, err);
}

/* FLOPs of every group launched by operator `op` (NAN-free sum). */
static double op_flops(const struct rl_trace_groups *g, const char *op)
{
    double s = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].op && strcmp(g->v[i].op, op) == 0 && g->v[i].counted)
            s += g->v[i].flops;
    return s;
}

static uint64_t all_launches(const struct rl_trace_groups *g)
{
    uint64_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        n += g->v[i].launches;
    return n;
}

static int read_text(const char *text, struct rl_trace_groups *g, struct rl_torch_stats *st,
                     char *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/t.json", rl_test_tmpdir());
    FILE *o = fopen(path, "w");
    fputs(text, o);
    fclose(o);
    fclose(f);
    memset(g, 0, sizeof *g);
    return rl_torch_load(g, path, st, err);
}

/* An A100 training step (8 ranks, rank 3), 8568 kernels, shapes recorded:
 * the GEMM FLOPs are 2MNK of every aten::mm / aten::addmm call, summed
 * independently by facts.py: 1,927,955,386,368. */
START_TEST(a100_training_step)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(load("torch-real/trace_diff-control.json.gz", &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, 8568);
    ck_assert_uint_eq(st.memcpys, 228);
    ck_assert_uint_eq(st.memsets, 654);
    ck_assert_uint_eq(all_launches(&g), 8568 + 228 + 654);
    /* every GPU activity counted: 501,567 us of them (facts.json) */
    ck_assert_double_eq_tol(st.kernel_time_ns, 501567e3, 1);
    ck_assert_double_eq_tol(g.sum.time_ns, 501567e3, 1);
    ck_assert_double_eq(op_flops(&g, "aten::mm") + op_flops(&g, "aten::addmm"),
                        1927955386368.0);
    /* linked by span only: the trace's runtime calls carry no External id */
    ck_assert_uint_eq(st.linked_external, 0);
    ck_assert_uint_gt(st.linked_span, 9000);
    ck_assert_uint_eq(st.linked_span + st.unlinked + st.linked_runtime, 9450);
    ck_assert_str_eq(st.gpu_name, "NVIDIA A100-PG509-200");
    ck_assert_int_eq(st.sm_count, 108);
    ck_assert_int_eq(st.rank, 3);
    ck_assert_int_eq(st.world_size, 8);
    ck_assert(g.sum.rank.present);
    ck_assert(st.shapes);
    ck_assert_uint_eq(st.profiler_steps > 0, 1);
    rl_trace_groups_release(&g);
}
END_TEST

/* ROCm 6.2 on an MI250 (one GCD: "AMD Radeon Graphics", 104 CUs, warp 64):
 * addmm [5,128] x [128,128] = 2*5*128*128 = 163840 FLOPs and mm
 * [128,5] x [5,128] = 2*128*5*128 = 163840. */
START_TEST(rocm_mi250)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(load("torch-real/amd-mi250_minitoy_train_ROCm6_2_kineto.json.gz", &g, &st,
                          err),
                     RL_OK);
    ck_assert_uint_eq(st.kernels, 14);
    ck_assert_uint_eq(st.memcpys, 2);
    ck_assert_uint_eq(st.linked_external, 16);
    ck_assert_uint_eq(st.unlinked, 0);
    ck_assert_double_eq(op_flops(&g, "aten::addmm"), 163840);
    ck_assert_double_eq(op_flops(&g, "aten::mm"), 163840);
    ck_assert_int_eq(st.warp_size, 64);
    ck_assert_int_eq(st.sm_count, 104);
    ck_assert_str_eq(st.gpu_name, "AMD Radeon Graphics");
    ck_assert_double_eq_tol(st.kernel_time_ns, 149042, 1);
    /* the Tensile GEMM (MI16x16x1, SB = single) judged on FP32 */
    bool found = false;
    for (size_t i = 0; i < g.n; i++)
        if (strncmp(g.v[i].name, "Cijk_", 5) == 0 && g.v[i].counted) {
            ck_assert_str_eq(g.v[i].precision, "fp32");
            found = true;
        }
    ck_assert(found);
    /* host-to-device copies cross PCIe: no DRAM bytes */
    for (size_t i = 0; i < g.n; i++)
        if (strstr(g.v[i].name, "HtoD"))
            ck_assert_uint_eq(g.v[i].counted + g.v[i].bytes_only, 0);
    rl_trace_groups_release(&g);
}
END_TEST

/* A V100 trace whose kernels carry their operator's External id. */
START_TEST(v100_external_ids)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(
        load("torch-real/ns_resolution-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", &g, &st,
             err),
        RL_OK);
    ck_assert_uint_eq(st.kernels + st.memcpys + st.memsets, 6095);
    ck_assert_uint_eq(st.linked_external, 6095);
    ck_assert_str_eq(st.gpu_name, "Tesla V100-SXM2-32GB");
    ck_assert_double_eq_tol(st.kernel_time_ns, 472454441, 2);
    ck_assert(st.busy_ns <= st.span_ns);
    /* the union of spans is at most their sum (ts near 1e12 us: rounding) */
    ck_assert(st.busy_ns <= st.kernel_time_ns * (1 + 1e-5));
    rl_trace_groups_release(&g);
}
END_TEST

/* The old format: "cat" Kernel and Runtime, no operators. */
START_TEST(old_format)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(load("torch-real/oldformat-inference_rank_1.json.gz", &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, 4);
    ck_assert_uint_eq(st.unlinked, 4);
    ck_assert_double_eq_tol(st.kernel_time_ns, 30e3, 1e-6);
    rl_trace_groups_release(&g);
}
END_TEST

/* Linking by span, the innermost operator, and the longest kernel of a call
 * carrying its cost: mm [64,32] x [32,16] = 2*64*32*16 = 65536 FLOPs, bytes
 * (64*32 + 32*16 + 64*16) * 4 = 14336. */
static const char span_trace[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
    "HBM3\", \"numSms\": 132, \"totalGlobalMem\": 85000000000, \"warpSize\": 32}],\n"
    "\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 7, "
    "\"ts\": 100, \"dur\": 50, \"args\": {}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 7, "
    "\"ts\": 110, \"dur\": 20, \"args\": {\"Input Dims\": [[64, 32], [32, 16]], \"Input type\": "
    "[\"float\", \"float\"]}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
    "\"tid\": 7, \"ts\": 115, \"dur\": 3, \"args\": {\"correlation\": 9}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
    "\"tid\": 7, \"ts\": 120, \"dur\": 3, \"args\": {\"correlation\": 10}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
    "\"tid\": 7, \"ts\": 140, \"dur\": 3, \"args\": {\"correlation\": 11}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_32x32_sliced1x4_tn\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 10.5, \"args\": {\"correlation\": 9, "
    "\"device\": 0, \"grid\": [4, 1, 1], \"block\": [128, 1, 1]}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"splitKreduce_kernel\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 211, \"dur\": 2, \"args\": {\"correlation\": 10, \"device\": 0}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bias_kernel\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 220, \"dur\": 1, \"args\": {\"correlation\": 11, \"device\": 0}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"orphan\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 230, \"dur\": 1, \"args\": {\"correlation\": 99}},\n"
    "]}\n";

START_TEST(span_linking)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_text(span_trace, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, 4);
    ck_assert_uint_eq(st.linked_span, 3);
    ck_assert_uint_eq(st.unlinked, 1);
    ck_assert_uint_eq(st.costed, 1);
    ck_assert_uint_eq(st.op_helpers, 1);  /* splitKreduce: the same call, time only */
    ck_assert_uint_eq(st.uncosted, 2);    /* bias_kernel (aten::linear's own) and orphan */
    ck_assert_double_eq(op_flops(&g, "aten::mm"), 65536);
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *x = &g.v[i];
        if (strcmp(x->name, "ampere_sgemm_32x32_sliced1x4_tn") == 0) {
            ck_assert_double_eq(x->bytes[0], 14336);
            ck_assert_str_eq(x->precision, "fp32"); /* sgemm: CUDA cores */
            ck_assert_str_eq(x->op, "aten::mm");
            ck_assert_str_eq(x->shapes, "64x32, 32x16");
            ck_assert_str_eq(x->dtype, "fp32");
            ck_assert_double_eq_tol(x->time_ns, 10500, 1e-6);
            ck_assert_uint_eq(x->grid[0], 4);
        } else if (strcmp(x->name, "bias_kernel") == 0) {
            ck_assert_str_eq(x->op, "aten::linear");
        } else if (strcmp(x->name, "orphan") == 0) {
            ck_assert_ptr_null(x->op);
        }
    }
    ck_assert_str_eq(st.gpu_name, "NVIDIA H100 80GB HBM3");
    /* busy: [200, 210.5] + [211, 213] + [220, 221] + [230, 231] = 14.5 us of a 31 us span */
    ck_assert_double_eq_tol(st.busy_ns, 14500, 1e-6);
    ck_assert_double_eq_tol(st.span_ns, 31000, 1e-6);
    rl_trace_groups_release(&g);
}
END_TEST

/* A gzip stream and its plain text give the same groups. */
START_TEST(gzip_and_plain_alike)
{
    char src[4096], plain[4096];
    snprintf(src, sizeof src, "%s",
             rl_test_data("torch-real/amd-mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
    snprintf(plain, sizeof plain, "%s/plain.json", rl_test_tmpdir());
    gzFile z = gzopen(src, "rb");
    FILE *o = fopen(plain, "wb");
    char buf[8192];
    int n;
    while ((n = gzread(z, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, o);
    gzclose(z);
    fclose(o);
    ck_assert(rl_torch_sniff_file(src));
    ck_assert(rl_torch_sniff_file(plain));
    struct rl_trace_groups a = {0}, b = {0};
    struct rl_torch_stats sa, sb;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_torch_load(&a, src, &sa, err), RL_OK);
    ck_assert_int_eq(rl_torch_load(&b, plain, &sb, err), RL_OK);
    ck_assert_uint_eq(a.n, b.n);
    for (size_t i = 0; i < a.n; i++) {
        ck_assert_str_eq(a.v[i].name, b.v[i].name);
        ck_assert_uint_eq(a.v[i].launches, b.v[i].launches);
        ck_assert(a.v[i].flops == b.v[i].flops || (isnan(a.v[i].flops) && isnan(b.v[i].flops)));
    }
    rl_trace_groups_release(&a);
    rl_trace_groups_release(&b);
}
END_TEST

/* Bad input: one clear error, nothing added. */
START_TEST(bad_input)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_text("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\"", &g, &st,
                               err),
                     RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "t.json"));
    rl_trace_groups_release(&g);
    ck_assert_int_eq(read_text("{\"schemaVersion\": 1}", &g, &st, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "traceEvents"));
    rl_trace_groups_release(&g);
    ck_assert_int_eq(read_text("", &g, &st, err), RL_EPARSE);
    rl_trace_groups_release(&g);
    ck_assert_int_eq(read_text("\"a string\"", &g, &st, err), RL_ESCHEMA);
    rl_trace_groups_release(&g);
    ck_assert_int_eq(read_text("{\"traceEvents\": []} trailing", &g, &st, err), RL_EPARSE);
    rl_trace_groups_release(&g);
    /* a NUL byte after the document is text after it too (white space is
     * not: a document and its newline load) */
    {
        static const char nul[] = "{\"traceEvents\": []}\n\0\n";
        char p0[4096];
        snprintf(p0, sizeof p0, "%s/nul.json", rl_test_tmpdir());
        FILE *w = fopen(p0, "wb");
        ck_assert_ptr_nonnull(w);
        ck_assert_uint_eq(fwrite(nul, 1, sizeof nul - 1, w), sizeof nul - 1);
        fclose(w);
        memset(&g, 0, sizeof g);
        ck_assert_int_eq(rl_torch_load(&g, p0, &st, err), RL_EPARSE);
        ck_assert_ptr_nonnull(strstr(err, "text after the end of the trace"));
        rl_trace_groups_release(&g);
    }
    ck_assert_int_eq(read_text("{\"traceEvents\": []}\n \n", &g, &st, err), RL_OK);
    rl_trace_groups_release(&g);
    /* a gzip stream cut in half */
    char src[4096], cut[4096];
    snprintf(src, sizeof src, "%s", rl_test_data("torch-real/sampled-ranks/sampled_rank-0.json.gz"));
    snprintf(cut, sizeof cut, "%s/cut.json.gz", rl_test_tmpdir());
    char *all = NULL;
    size_t len = 0;
    FILE *f = fopen(src, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    rewind(f);
    all = malloc(len);
    ck_assert_uint_eq(fread(all, 1, len, f), len);
    fclose(f);
    FILE *o = fopen(cut, "wb");
    fwrite(all, 1, len / 2, o);
    fclose(o);
    free(all);
    memset(&g, 0, sizeof g);
    ck_assert_int_ne(rl_torch_load(&g, cut, &st, err), RL_OK);
    ck_assert_uint_eq(g.n, 0);
    rl_trace_groups_release(&g);
    /* a stream whose CRC is wrong, its document followed by 3 MB of white
     * space (the document is read whole before zlib reaches the CRC): an
     * error, not a trace (the same stream with its CRC loads) */
    static const char doc[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", "
                              "\"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 100, "
                              "\"dur\": 5, \"args\": {\"device\": 0}}]}";
    snprintf(cut, sizeof cut, "%s/crc.json.gz", rl_test_tmpdir());
    for (int bad = 0; bad < 2; bad++) {
        gzFile w = gzopen(cut, "wb");
        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(gzputs(w, doc), (int)strlen(doc));
        static char spaces[1 << 16];
        memset(spaces, ' ', sizeof spaces);
        for (int i = 0; i < 48; i++)
            ck_assert_int_eq(gzwrite(w, spaces, sizeof spaces), (int)sizeof spaces);
        ck_assert_int_eq(gzclose(w), Z_OK);
        if (bad) { /* the CRC is the trailer's first 4 bytes */
            FILE *rw = fopen(cut, "r+b");
            ck_assert_ptr_nonnull(rw);
            fseek(rw, -8, SEEK_END);
            int byte = fgetc(rw);
            fseek(rw, -8, SEEK_END);
            fputc(byte ^ 0xff, rw);
            fclose(rw);
        }
        memset(&g, 0, sizeof g);
        int rc = rl_torch_load(&g, cut, &st, err);
        if (bad) {
            ck_assert_int_eq(rc, RL_EPARSE);
            ck_assert_ptr_nonnull(strstr(err, "corrupt or truncated gzip stream: "));
            ck_assert_uint_eq(g.n, 0);
        } else {
            ck_assert_int_eq(rc, RL_OK);
            ck_assert_uint_eq(st.kernels, 1);
        }
        rl_trace_groups_release(&g);
    }
    /* a text field ends at its first NUL ("\u0000"), as printf's "%s" ends:
     * a kernel's cat "kernel\u0000x" is "kernel" */
    ck_assert_int_eq(read_text("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\\u0000x\", "
                               "\"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 100, "
                               "\"dur\": 5, \"args\": {\"device\": 0}}]}",
                               &g, &st, err),
                     RL_OK);
    ck_assert_uint_eq(st.kernels, 1);
    rl_trace_groups_release(&g);
    memset(&g, 0, sizeof g);
    ck_assert_int_eq(rl_torch_load(&g, "/nonexistent/trace.json", &st, err), RL_EIO);
    /* sniffing: a roofline trace and a CSV are not profiler traces */
    ck_assert(!rl_torch_sniff("{\"format\": \"roofline-trace\", \"traceEvents\": []}", 46));
    ck_assert(!rl_torch_sniff("ID,Kernel Name\n", 15));
    ck_assert(rl_torch_sniff("{\n  \"schemaVersion\": 1,", 23));
}
END_TEST

/* Two ranks of one job (world size 128). */
START_TEST(two_ranks)
{
    struct rl_trace_groups a, b;
    struct rl_torch_stats sa, sb;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(load("torch-real/sampled-ranks/sampled_rank-0.json.gz", &a, &sa, err), RL_OK);
    ck_assert_int_eq(load("torch-real/sampled-ranks/sampled_rank-1.json.gz", &b, &sb, err), RL_OK);
    ck_assert_uint_eq(sa.kernels, 1154);
    ck_assert_uint_eq(sb.kernels, 1104);
    ck_assert_int_eq(a.sum.rank.rank, 0);
    ck_assert_int_eq(b.sum.rank.rank, 1);
    ck_assert_int_eq(a.sum.rank.world_size, 128);
    struct rl_trace_groups m = {0};
    ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &a), RL_OK);
    ck_assert_int_eq(rl_trace_groups_merge_rank(&m, &b), RL_OK);
    ck_assert_uint_eq(all_launches(&m), 1204 + 1154);
    ck_assert_double_eq(op_flops(&m, "aten::mm") + op_flops(&m, "aten::addmm"),
                        op_flops(&a, "aten::mm") + op_flops(&a, "aten::addmm") +
                            op_flops(&b, "aten::mm") + op_flops(&b, "aten::addmm"));
    struct rl_torch_stats sum = sa;
    rl_torch_stats_add(&sum, &sb);
    ck_assert_uint_eq(sum.kernels, 1154 + 1104);
    char notes[4096];
    rl_torch_notes(&sum, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "2258 GPU kernels"));
    rl_trace_groups_release(&a);
    rl_trace_groups_release(&b);
    rl_trace_groups_release(&m);
}
END_TEST

/* The CLI: report --torch, the trace sniffed without --torch, the GPU from
 * the trace, and a GPU the database lacks. */
START_TEST(cli_report)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", rl_test_data("torch-real/trace_diff-control.json.gz"));
    struct rl_run r = rl_test_cli(NULL, "report", "--torch", path, "--json", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"step\": {\"headline\": \"biggest win, "));
    ck_assert_ptr_nonnull(strstr(r.out, "\"operators\": ["));
    ck_assert_ptr_nonnull(strstr(r.out, "\"op\": \"aten::mm\""));
    ck_assert_ptr_nonnull(strstr(r.out, "taken as a100-sxm-40gb by its 108 SMs and 43 GB"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"gpu\": \"NVIDIA A100 SXM4 40GB\""));
    rl_run_release(&r);
    char out[4096];
    snprintf(out, sizeof out, "%s/report-out", rl_test_tmpdir());
    r = rl_test_cli(NULL, "report", path, "--no-chart", "-o", out, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "biggest win, "));
    ck_assert_ptr_nonnull(strstr(r.out, "by bound: compute"));
    rl_run_release(&r);
    snprintf(path, sizeof path, "%s", rl_test_data("torch-real/oldformat-inference_rank_1.json.gz"));
    r = rl_test_cli(NULL, "report", "--torch", path, "--json", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "pass --gpu"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "report", "--torch", path, "--gpu", "h100-sxm", "--json", NULL);
    ck_assert_int_eq(r.status, 0);
    rl_run_release(&r);
}
END_TEST

/* ---- the order of the events ------------------------------------------------ */

static bool gpu_event(const cJSON *e)
{
    const char *c = cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat"));
    return c && (strcasecmp(c, "kernel") == 0 || strcmp(c, "gpu_memcpy") == 0 ||
                 strcmp(c, "gpu_memset") == 0 || strcmp(c, "Memcpy") == 0 ||
                 strcmp(c, "Memset") == 0);
}

/* Write a real trace's events (as cJSON prints them) to path, every GPU
 * activity first when gpu_first: before the operators and runtime calls
 * that launched them. The first operator stays first, so both read with
 * the same time base. */
static void write_events(const char *src, const char *path, bool gpu_first)
{
    gzFile z = gzopen(src, "rb");
    ck_assert_ptr_nonnull(z);
    struct rl_strbuf text = {0};
    char buf[65536];
    int n;
    while ((n = gzread(z, buf, sizeof buf)) > 0)
        rl_strbuf_append(&text, buf, (size_t)n);
    gzclose(z);
    cJSON *doc = cJSON_ParseWithLength(text.s, text.len);
    rl_strbuf_release(&text);
    ck_assert_ptr_nonnull(doc);
    cJSON *ev = cJSON_DetachItemFromObject(doc, "traceEvents");
    ck_assert_ptr_nonnull(ev);
    cJSON *out = cJSON_CreateArray();
    /* Walked with cJSON_ArrayForEach: cJSON_GetArrayItem(ev, i) walks the
     * list from its head, quadratic over 100k events (a timeout under load). */
    cJSON *first = NULL, *e;
    cJSON_ArrayForEach(e, ev)
    {
        const char *c = cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat"));
        if (c && strcmp(c, "cpu_op") == 0) {
            first = e;
            break;
        }
    }
    ck_assert_ptr_nonnull(first);
    cJSON_AddItemToArray(out, cJSON_Duplicate(first, true));
    for (int pass = gpu_first ? 0 : 1; pass < 2; pass++)
        cJSON_ArrayForEach(e, ev)
        {
            if (e != first && (!gpu_first || gpu_event(e) == (pass == 0)))
                cJSON_AddItemToArray(out, cJSON_Duplicate(e, true));
        }
    cJSON_AddItemToObject(doc, "traceEvents", out);
    cJSON_Delete(ev);
    char *printed = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(printed, f);
    fclose(f);
    free(printed);
}

static const struct rl_trace_group *find_group(const struct rl_trace_groups *g,
                                               const struct rl_trace_group *x)
{
    for (size_t i = 0; i < g->n; i++) {
        const struct rl_trace_group *y = &g->v[i];
        if (strcmp(x->name, y->name) == 0 && memcmp(x->grid, y->grid, sizeof x->grid) == 0 &&
            memcmp(x->block, y->block, sizeof x->block) == 0 &&
            (x->op ? y->op && strcmp(x->op, y->op) == 0 : !y->op) &&
            (x->shapes ? y->shapes && strcmp(x->shapes, y->shapes) == 0 : !y->shapes))
            return y;
    }
    return NULL;
}

/* Time and launches of the groups launched by operator `op`. */
static double op_time_ns(const struct rl_trace_groups *g, const char *op, uint64_t *launches)
{
    double t = 0;
    *launches = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].op && strcmp(g->v[i].op, op) == 0) {
            t += g->v[i].time_ns;
            *launches += g->v[i].launches;
        }
    return t;
}

/* An A100 AlexNet benchmark (PyTorch ~2.1) whose GPU activities and runtime
 * calls carry their own correlation id as External id: 17 of the 98 name
 * an unrelated operator call (aten::to, aten::empty_strided, aten::view,
 * aten::detach ...) whose span does not hold their runtime call. Linked by
 * the runtime call's thread and time instead (checked by hand with
 * python3, json + gzip: correlation -> runtime call -> innermost cpu_op on
 * its thread holding its start): the 16 host-to-device copies are
 * aten::copy_'s, 12 + 1 + 110 + 1 + 423 + 1 + 620 + 1 + 365 + 1 + 34780 +
 * 2 + 15497 + 3 + 3684 + 2 = 55503 us; the CPU-only operators have no GPU
 * time (before: aten::to 35.4 ms, aten::empty_strided 15.5 ms, aten::view
 * 3.686 ms, aten::detach 436 us); aten::uniform_ launched 1 (before: 2). */
START_TEST(colliding_external_ids)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(
        load("torch-real/alexnet-benchmark_result_2869224_1695835535_trace.json.gz", &g, &st,
             err),
        RL_OK);
    ck_assert_uint_eq(st.kernels + st.memcpys + st.memsets, 98);
    ck_assert_uint_eq(st.relinked, 17);
    ck_assert_uint_eq(st.linked_external, 0);
    ck_assert_uint_eq(st.linked_runtime, 0);
    ck_assert_uint_eq(st.linked_span, 98);
    uint64_t n;
    ck_assert_double_eq_tol(op_time_ns(&g, "aten::copy_", &n), 55503e3, 1e-3);
    ck_assert_uint_eq(n, 16);
    static const char *const cpu_only[] = {"aten::to", "aten::empty_strided", "aten::view",
                                           "aten::detach", "aten::empty",
                                           "aten::_has_compatible_shallow_copy_type"};
    for (size_t i = 0; i < sizeof cpu_only / sizeof *cpu_only; i++) {
        ck_assert_double_eq(op_time_ns(&g, cpu_only[i], &n), 0);
        ck_assert_uint_eq(n, 0);
    }
    op_time_ns(&g, "aten::uniform_", &n);
    ck_assert_uint_eq(n, 1);
    op_time_ns(&g, "aten::cudnn_convolution", &n);
    ck_assert_uint_eq(n, 31);
    rl_trace_groups_release(&g);
}
END_TEST

/* An MI300X ResNet (bf16) convolution backward of a 1x1, stride-2
 * convolution: grad_output [10,256,14,14], input [10,128,28,28], weight
 * [256,128,1,1], both grads. Forward 2 * 10 * 14 * 14 * 256 * 128 =
 * 128,450,560 FLOPs, so each grad 128,450,560 and the call 256,901,120.
 * MIOpen runs it as igemm_bwd (grad-input) and igemm_wrw (grad-weight)
 * among casts and transposes; its SubTensorOpWithCastTensor1d (21.4 us)
 * is the call's longest kernel and carried all the FLOPs before the split.
 * Bytes of each grad (bf16): grad_output 501,760 elements, input 1,003,520,
 * weight 32,768: (501,760 + 32,768 + 1,003,520) * 2 = 3,076,096. The trace
 * has 3 such calls. */
START_TEST(conv_backward_split)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(load("torch-real/tracelens_mi300x_resnet_act_checkpoint.json.gz", &g, &st,
                          err),
                     RL_OK);
    double dgrad = 0, wgrad = 0, dbytes = 0, wbytes = 0, other = 0;
    uint64_t nd = 0, nw = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *x = &g.v[i];
        if (!x->op || strcmp(x->op, "aten::convolution_backward") != 0 || !x->shapes ||
            strcmp(x->shapes, "10x256x14x14, 10x128x28x28, 256x128x1x1") != 0)
            continue;
        if (strncmp(x->name, "igemm_bwd", 9) == 0)
            dgrad += x->flops, dbytes += x->bytes[0], nd += x->counted;
        else if (strncmp(x->name, "igemm_wrw", 9) == 0)
            wgrad += x->flops, wbytes += x->bytes[0], nw += x->counted;
        else
            other += x->counted;
    }
    ck_assert_uint_eq(nd, 3);
    ck_assert_uint_eq(nw, 3);
    ck_assert_double_eq(dgrad, 3 * 128450560.0);
    ck_assert_double_eq(wgrad, 3 * 128450560.0);
    ck_assert_double_eq(dbytes, 3 * 3076096.0);
    ck_assert_double_eq(wbytes, 3 * 3076096.0);
    ck_assert_double_eq(other, 0); /* casts and transposes: time only */
    rl_trace_groups_release(&g);
}
END_TEST

/* The FLOPs of an operator call's kernels sum to the call's FLOPs, on every
 * real trace with shapes: the groups' FLOPs add up to the costed calls'. */
START_TEST(call_flops_conserved)
{
    static const char *const traces[] = {
        "torch-real/trace_diff-control.json.gz",
        "torch-real/trace_diff-test.json.gz",
        "torch-real/negative_queue-rank0.json.gz",
        "torch-real/tracelens_mi300x_resnet_act_checkpoint.json.gz",
        "torch-real/kineto_v100_resnet50__worker0.1623143089861.pt.trace.json.gz",
        "torch-real/tracelens_b200_eager_trace.json.gz",
        "torch-real/amd-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    };
    uint64_t split = 0, one_point = 0;
    for (size_t t = 0; t < sizeof traces / sizeof *traces; t++) {
        struct rl_trace_groups g;
        struct rl_torch_stats st;
        char err[RL_ERRMSG_SIZE];
        ck_assert_int_eq(load(traces[t], &g, &st, err), RL_OK);
        double sum = 0;
        for (size_t i = 0; i < g.n; i++)
            if (g.v[i].counted)
                sum += g.v[i].flops;
        ck_assert_msg(st.call_flops > 0, "%s", traces[t]);
        ck_assert_msg(fabs(sum - st.call_flops) <= 1e-12 * st.call_flops, "%s: %.17g vs %.17g",
                      traces[t], sum, st.call_flops);
        split += st.split_calls;
        one_point += st.one_point_calls;
        rl_trace_groups_release(&g);
    }
    ck_assert_uint_gt(split, 1000);
    ck_assert_uint_gt(one_point, 200);
}
END_TEST

static bool same_number(double a, double b)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * fabs(a) + 1e-6;
}

/* The GPU activities read before the calls that launched them link to the
 * same operators as in the order Kineto writes them: the same groups, with
 * the same launches, cost and time. */
START_TEST(gpu_events_first)
{
    static const char *const traces[] = {
        "torch-real/amd-mi250_minitoy_train_ROCm6_2_kineto.json.gz",   /* External ids */
        "torch-real/sampled-ranks/sampled_rank-0.json.gz",             /* spans, NCCL */
        "torch-real/tracelens_mi300x_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", /* both */
        "torch-real/alexnet-benchmark_result_2869224_1695835535_trace.json.gz", /* ids collide */
    };
    for (size_t t = 0; t < sizeof traces / sizeof *traces; t++) {
        char src[4096], ordered[4096], reordered[4096];
        snprintf(src, sizeof src, "%s", rl_test_data(traces[t]));
        snprintf(ordered, sizeof ordered, "%s/ordered.json", rl_test_tmpdir());
        snprintf(reordered, sizeof reordered, "%s/reordered.json", rl_test_tmpdir());
        write_events(src, ordered, false);
        write_events(src, reordered, true);
        struct rl_trace_groups a = {0}, b = {0};
        struct rl_torch_stats sa, sb;
        char err[RL_ERRMSG_SIZE];
        ck_assert_int_eq(rl_torch_load(&a, ordered, &sa, err), RL_OK);
        ck_assert_int_eq(rl_torch_load(&b, reordered, &sb, err), RL_OK);
        ck_assert_uint_gt(sa.kernels, 10);
        ck_assert_uint_eq(sa.kernels, sb.kernels);
        ck_assert_uint_eq(sa.linked_external, sb.linked_external);
        ck_assert_uint_eq(sa.linked_runtime, sb.linked_runtime);
        ck_assert_uint_eq(sa.linked_span, sb.linked_span);
        ck_assert_uint_eq(sa.unlinked, sb.unlinked);
        ck_assert_uint_eq(sa.relinked, sb.relinked);
        ck_assert_uint_eq(sa.split_calls, sb.split_calls);
        ck_assert_uint_eq(sa.one_point_calls, sb.one_point_calls);
        ck_assert_uint_eq(sa.costed, sb.costed);
        ck_assert_uint_eq(sa.op_helpers, sb.op_helpers);
        ck_assert_uint_eq(sa.uncosted, sb.uncosted);
        ck_assert_uint_eq(sa.comm_kernels, sb.comm_kernels);
        ck_assert_uint_eq(sa.comm_with_bytes, sb.comm_with_bytes);
        ck_assert(same_number(sa.busy_ns, sb.busy_ns));
        ck_assert(same_number(sa.span_ns, sb.span_ns));
        ck_assert_uint_eq(a.n, b.n);
        for (size_t i = 0; i < a.n; i++) {
            const struct rl_trace_group *x = &a.v[i], *y = find_group(&b, x);
            ck_assert_msg(y != NULL, "%s: group %s missing", traces[t], x->name);
            ck_assert_uint_eq(x->launches, y->launches);
            ck_assert_uint_eq(x->counted, y->counted);
            ck_assert_uint_eq(x->bytes_only, y->bytes_only);
            ck_assert(same_number(x->flops, y->flops));
            ck_assert(same_number(x->bytes[0], y->bytes[0]));
            ck_assert(same_number(x->time_ns, y->time_ns));
            ck_assert(same_number(x->comm_bytes, y->comm_bytes));
            ck_assert_str_eq(x->precision, y->precision);
        }
        rl_trace_groups_release(&a);
        rl_trace_groups_release(&b);
    }
}
END_TEST

static Suite *torch_suite(void)
{
    Suite *s = suite_create("torch");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, a100_training_step);
    tcase_add_test(core, rocm_mi250);
    tcase_add_test(core, v100_external_ids);
    tcase_add_test(core, old_format);
    tcase_add_test(core, span_linking);
    tcase_add_test(core, two_ranks);
    tcase_add_test(core, cli_report);
    tcase_add_test(core, gpu_events_first);
    tcase_add_test(core, colliding_external_ids);
    tcase_add_test(core, conv_backward_split);
    tcase_add_test(core, call_flops_conserved);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, gzip_and_plain_alike);
    tcase_add_test(limits, bad_input);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(torch_suite()); }
