/* check_torch_link.c - the PyTorch trace reader's linking, GPU timeline, costs and notes on small hand-built traces whose every number is worked out in the comments. */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"
#include "analyzer/util/error.h"
#include "tests/test_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/* Write text (with ' for ") to a file and read it as a trace. */
static int read_trace(const char *text, struct rl_trace_groups *g, struct rl_torch_stats *st,
                      char *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/link.json", rl_test_tmpdir());
    FILE *o = fopen(path, "w");
    ck_assert_ptr_nonnull(o);
    for (const char *p = text; *p; p++)
        fputc(*p == '\'' ? '"' : *p, o);
    fclose(o);
    memset(g, 0, sizeof *g);
    return rl_torch_load(g, path, st, err);
}

static const struct rl_trace_group *group(const struct rl_trace_groups *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->v[i].name, name) == 0)
            return &g->v[i];
    ck_abort_msg("no group '%s'", name);
    return NULL;
}

#define OP(name, ts, dur, args)                                                              \
    "{'ph': 'X', 'cat': 'cpu_op', 'name': '" name "', 'pid': 1, 'tid': 7, 'ts': " #ts        \
    ", 'dur': " #dur ", 'args': {" args "}},\n"
#define RT(tid, ts, args)                                                                    \
    "{'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 1, 'tid': " #tid \
    ", 'ts': " #ts ", 'dur': 2, 'args': {" args "}},\n"
#define GPU(cat, name, dev, ts, dur, args)                                                   \
    "{'ph': 'X', 'cat': '" cat "', 'name': '" name "', 'pid': 0, 'tid': 7, 'ts': " #ts      \
    ", 'dur': " #dur ", 'args': {'device': " #dev args "}},\n"

/* The GPU timeline, per device, summed:
 *   device 0: a [100,110], b [102,105] inside a, c [110,115] from a's end,
 *             d [120,130], e [125,127] inside d (the device's last start)
 *             busy = (115 - 100) + (130 - 120) = 25 us, span 130 - 100 = 30 us
 *   device 1: k1 [1000,1010], k2 [1005,1015], k3 [1030,1035]
 *             busy = (1015 - 1000) + 5 = 20 us, span 1035 - 1000 = 35 us
 * busy 45 us, span 65 us, every kernel's time 10+3+5+10+2 + 10+10+5 = 55 us.
 * The first activity runs on device 1: its properties name the GPU. */
static const char timeline_trace[] =
    "{'schemaVersion': 1, 'deviceProperties': ["
    "{'id': 0, 'name': 'GPU-A', 'numSms': 10, 'warpSize': 32, 'computeMajor': 9, "
    "'computeMinor': 0, 'totalGlobalMem': 1000},"
    "{'id': 1, 'name': 'GPU-B', 'numSms': 20, 'warpSize': 64, 'computeMajor': 8, "
    "'computeMinor': 6, 'totalGlobalMem': 2000}],\n"
    "'distributedInfo': {'backend': 'nccl', 'rank': 2, 'world_size': 4},\n"
    "'traceEvents': [\n"
    GPU("kernel", "k1", 1, 1000, 10, "")
    GPU("kernel", "a", 0, 100, 10, "")
    GPU("kernel", "b", 0, 102, 3, "")
    GPU("kernel", "c", 0, 110, 5, "")
    GPU("kernel", "d", 0, 120, 10, "")
    GPU("kernel", "e", 0, 125, 2, "")
    GPU("kernel", "k2", 1, 1005, 10, "")
    GPU("kernel", "k3", 1, 1030, 5, "")
    "{'ph': 'X', 'cat': 'kernel', 'name': 'z', 'pid': 0, 'tid': 7, 'dur': 5}\n"
    "]}\n";

START_TEST(timeline_per_device)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(timeline_trace, &g, &st, err), RL_OK);
    /* 'z' has no ts: counted as an event, nothing placed */
    ck_assert_uint_eq(st.events, 9);
    ck_assert_uint_eq(st.kernels, 8);
    ck_assert_uint_eq(st.unlinked, 8);
    ck_assert_uint_eq(st.uncosted, 8);
    ck_assert_int_eq(st.devices, 2);
    ck_assert_double_eq_tol(st.kernel_time_ns, 55000, 1e-6);
    ck_assert_double_eq_tol(st.busy_ns, 45000, 1e-6);
    ck_assert_double_eq_tol(st.span_ns, 65000, 1e-6);
    ck_assert_str_eq(st.gpu_name, "GPU-B");
    ck_assert_int_eq(st.sm_count, 20);
    ck_assert_int_eq(st.warp_size, 64);
    ck_assert_int_eq(st.cc_major, 8);
    ck_assert_int_eq(st.cc_minor, 6);
    ck_assert_double_eq(st.gpu_memory_bytes, 2000);
    ck_assert_str_eq(g.sum.gpu_name, "GPU-B");
    ck_assert_int_eq(g.sum.sm_count, 20);
    ck_assert_int_eq(st.rank, 2);
    ck_assert_int_eq(st.world_size, 4);
    ck_assert_str_eq(st.backend, "nccl");
    ck_assert(g.sum.rank.present);
    ck_assert_int_eq(g.sum.rank.rank, 2);
    ck_assert_int_eq(g.sum.rank.world_size, 4);
    ck_assert_str_eq(st.time_unit, "us");
    /* idle = 65 - 45 = 20 us of 65 us: 30.769...% -> "30.8" */
    char notes[2048];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "GPU idle: 20 us of the 65 us from the first GPU activity to "
                                "the last (30.8%), summed over devices\n"),
                  "%s", notes);
    ck_assert_ptr_nonnull(strstr(notes, "8 GPU kernels, 0 copies, 0 fills"));
    ck_assert_ptr_nonnull(strstr(notes, "0 by External id, 0 through their runtime call, 0 by "
                                        "the launching thread's span, 8 not linked"));
    /* no operators at all: no note about missing shapes */
    ck_assert_ptr_null(strstr(notes, "no operator shapes"));
    rl_trace_groups_release(&g);
}
END_TEST

/* One device, one kernel: busy = span = its duration; a device-less trace
 * names its GPU by device 0's properties; no rank without a world size.
 * numSms -5 and warpSize 1e20 are out of range; so are an id of 5e9 and
 * numSms of 3e9, past an int (the fuzzer's find: (int)5e9 is undefined,
 * which the UBSan build of this test catches): not taken either. */
START_TEST(one_kernel)
{
    static const char text[] =
        "{'deviceProperties': [{'id': 3, 'name': 'ONLY', 'numSms': -5, 'warpSize': 1e20},"
        " {'id': 5000000000, 'numSms': 3000000000}],\n"
        "'distributedInfo': {'rank': 1},\n"
        "'traceEvents': [" GPU("kernel", "solo", 0, 5, 2.5, "") "]}";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_int_eq(st.devices, 1);
    ck_assert_double_eq_tol(st.busy_ns, 2500, 1e-9);
    ck_assert_double_eq_tol(st.span_ns, 2500, 1e-9);
    /* no device 0 among the properties: the first listed */
    ck_assert_str_eq(st.gpu_name, "ONLY");
    /* out-of-range numbers are not taken */
    ck_assert_int_eq(st.sm_count, 0);
    ck_assert_int_eq(st.warp_size, 0);
    ck_assert_int_eq(st.rank, 1);
    ck_assert_int_eq(st.world_size, -1);
    ck_assert(!g.sum.rank.present);
    /* idle 0 of 2.5 us */
    char notes[2048];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "GPU idle: 0 us of the 2.5 us from the first GPU activity to "
                                "the last (0.0%)\n"),
                  "%s", notes);
    rl_trace_groups_release(&g);

    /* no GPU activity: no timeline, no idle note, no cost note */
    ck_assert_int_eq(read_trace("{'traceEvents': [" OP("aten::mm", 1, 1, "") "]}", &g, &st, err),
                     RL_OK);
    ck_assert_int_eq(st.devices, 0);
    ck_assert_double_eq(st.span_ns, 0);
    ck_assert_uint_eq(g.n, 0);
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_ptr_null(strstr(notes, "GPU idle"));
    ck_assert_ptr_null(strstr(notes, "FLOPs and bytes are analytic"));
    /* an operator without "Input Dims": the shapes note */
    ck_assert_ptr_nonnull(strstr(notes, "no operator shapes in this trace"));
    rl_trace_groups_release(&g);
}
END_TEST

/* Epoch timestamps (1.7e15 us) keep their fractions: a double alone holds
 * 1700000000000100.1 only to a quarter microsecond. a [100.1, 101.3] and
 * b [101.0, 101.5]: busy = span = 101.5 - 100.1 = 1.4 us. */
START_TEST(epoch_fractions)
{
    static const char text[] =
        "{'traceEvents': [" GPU("kernel", "a", 0, 1700000000000100.1, 1.2, "")
        GPU("kernel", "b", 0, 1700000000000101.0, 0.5, "")
        GPU("kernel", "neg", 0, 1700000000000101.2, -3, "") "]}";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_double_eq_tol(st.busy_ns, 1400, 1e-3);
    ck_assert_double_eq_tol(st.span_ns, 1400, 1e-3);
    /* a negative duration counts as 0 */
    ck_assert_double_eq_tol(st.kernel_time_ns, 1700, 1e-3);
    ck_assert_double_eq_tol(group(&g, "a")->time_ns, 1200, 1e-3);
    rl_trace_groups_release(&g);
}
END_TEST

/* Linking, on thread 1/7:
 *   A aten::mm [100,150] External id 5, [8,4] x [4,2] float:
 *     FLOPs 2*8*4*2 = 128, bytes (32 + 8 + 16) * 4 = 224
 *   B aten::foo [200,250]; C aten::outer [300,400] holding D aten::inner [310,320]
 * runtime calls (correlation -> where the kernel goes):
 *   1 (External id 5) -> A by its runtime call; 3 at 210 -> B by span;
 *   4 at 350 -> C (D ended at 320); 5 at 320 -> D (at its very end);
 *   6 at 300 -> C (at its very start); 7 at 350 on thread 1/8 -> none;
 *   8 at 260 (between B and C) -> none
 * GPU activities: gemm_a (corr 1, 6 us) and gemm_b (External id 5, 6 us):
 * two kernels of A that their names do not tell apart (both main), so A is
 * judged as one point over their 12 us: each carries 6/12 of its cost,
 * 64 FLOPs and 112 bytes; an HtoD copy of A (100 us) never carries any
 * (PCIe, not DRAM). A fill of 4096 bytes writes
 * 4096 DRAM bytes; a DtoD copy of 1000 bytes reads and writes 2000. */
static const char link_trace[] =
    "{'traceEvents': [\n"
    OP("aten::mm", 100, 50, "'External id': 5, 'Input Dims': [[8, 4], [4, 2]], "
                            "'Input type': ['float', 'float']")
    OP("aten::foo", 200, 50, "")
    OP("aten::outer", 300, 100, "")
    OP("aten::inner", 310, 10, "")
    RT(7, 110, "'correlation': 1, 'External id': 5")
    RT(7, 210, "'correlation': 3")
    RT(7, 350, "'correlation': 4")
    RT(7, 320, "'correlation': 5")
    RT(7, 300, "'correlation': 6")
    RT(8, 350, "'correlation': 7")
    RT(7, 260, "'correlation': 8")
    RT(7, 270, "'cbid': 1")
    GPU("kernel", "gemm_a", 0, 1000, 6, ", 'correlation': 1")
    GPU("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 1010, 100,
        ", 'External id': 5, 'bytes': 512")
    GPU("kernel", "gemm_b", 0, 1200, 6, ", 'External id': 5")
    GPU("kernel", "foo_kernel", 0, 1210, 7, ", 'correlation': 3")
    GPU("kernel", "outer_k", 0, 1220, 1, ", 'correlation': 4")
    GPU("kernel", "inner_k", 0, 1230, 4, ", 'correlation': 5")
    GPU("kernel", "outer_k2", 0, 1240, 2, ", 'correlation': 6")
    GPU("kernel", "lost_k", 0, 1250, 1, ", 'correlation': 7")
    GPU("kernel", "gap_k", 0, 1260, 1, ", 'correlation': 8")
    GPU("kernel", "nocorr", 0, 1270, 1, "")
    GPU("gpu_memset", "Memset (Device)", 0, 1280, 2, ", 'bytes': 4096")
    GPU("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, 1290, 3, ", 'bytes': 1000")
    "{'ph': 's', 'cat': 'ac2g', 'name': 'flow', 'id': 1, 'ts': 1},\n"
    "{'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#1', 'ts': 1, 'dur': 9}\n"
    "]}\n";

START_TEST(linking_and_carriers)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(link_trace, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.events, 26);
    ck_assert_uint_eq(st.cpu_ops, 4);
    ck_assert_uint_eq(st.runtime_calls, 8);
    ck_assert_uint_eq(st.kernels, 9);
    ck_assert_uint_eq(st.memcpys, 2);
    ck_assert_uint_eq(st.memsets, 1);
    ck_assert_uint_eq(st.profiler_steps, 1);
    ck_assert(st.shapes);
    ck_assert_uint_eq(st.linked_external, 2); /* gemm_b, the HtoD copy */
    ck_assert_uint_eq(st.linked_runtime, 1);  /* gemm_a */
    ck_assert_uint_eq(st.linked_span, 4);     /* foo_kernel, outer_k, inner_k, outer_k2 */
    ck_assert_uint_eq(st.unlinked, 5);        /* lost_k, gap_k, nocorr, the fill, DtoD */
    ck_assert_uint_eq(st.costed, 2);          /* gemm_a and gemm_b, half each */
    ck_assert_uint_eq(st.op_helpers, 1);      /* the copy: A's, time only */
    ck_assert_uint_eq(st.one_point_calls, 1);
    ck_assert_uint_eq(st.split_calls, 0);
    ck_assert_uint_eq(st.relinked, 0);
    ck_assert_uint_eq(st.uncosted, 7);
    /* 6+100+6+7+1+4+2+1+1+1+2+3 = 134 us */
    ck_assert_double_eq_tol(st.kernel_time_ns, 134000, 1e-6);

    const struct rl_trace_group *x = group(&g, "gemm_a");
    ck_assert_uint_eq(x->counted, 1);
    ck_assert_double_eq(x->flops, 64);
    ck_assert_double_eq(x->bytes[0], 112);
    ck_assert_str_eq(x->op, "aten::mm");
    ck_assert_str_eq(x->shapes, "8x4, 4x2");
    ck_assert_str_eq(x->dtype, "fp32");
    x = group(&g, "gemm_b");
    ck_assert_uint_eq(x->counted, 1);
    ck_assert_double_eq(x->flops, 64);
    ck_assert_double_eq(x->bytes[0], 112);
    ck_assert_str_eq(x->op, "aten::mm");
    x = group(&g, "Memcpy HtoD (Pageable -> Device)");
    ck_assert_uint_eq(x->counted + x->bytes_only, 0);
    ck_assert_str_eq(x->op, "aten::mm");
    ck_assert_str_eq(group(&g, "foo_kernel")->op, "aten::foo");
    ck_assert_str_eq(group(&g, "outer_k")->op, "aten::outer");
    ck_assert_str_eq(group(&g, "inner_k")->op, "aten::inner");
    ck_assert_str_eq(group(&g, "outer_k2")->op, "aten::outer");
    ck_assert_ptr_null(group(&g, "lost_k")->op);
    ck_assert_ptr_null(group(&g, "gap_k")->op);
    ck_assert_ptr_null(group(&g, "nocorr")->op);
    x = group(&g, "Memset (Device)");
    ck_assert_uint_eq(x->bytes_only, 1);
    ck_assert_double_eq(x->bytes_only_bytes[0], 4096);
    x = group(&g, "Memcpy DtoD (Device -> Device)");
    ck_assert_uint_eq(x->bytes_only, 1);
    ck_assert_double_eq(x->bytes_only_bytes[0], 2000);

    /* unknown operators by time: foo 7 us (1), inner 4 us (1), outer 1 + 2 = 3 us (2) */
    ck_assert_uint_eq(st.unknown_ops, 3);
    ck_assert_uint_eq(st.n_unknown, 3);
    ck_assert_str_eq(st.unknown[0].op, "aten::foo");
    ck_assert_double_eq_tol(st.unknown[0].time_ns, 7000, 1e-6);
    ck_assert_str_eq(st.unknown[1].op, "aten::inner");
    ck_assert_str_eq(st.unknown[2].op, "aten::outer");
    ck_assert_double_eq_tol(st.unknown[2].time_ns, 3000, 1e-6);
    ck_assert_uint_eq(st.unknown[2].launches, 2);

    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "9 GPU kernels, 2 copies, 1 fill; operators linked: 2 by "
                                "External id, 1 through their runtime call, 4 by the launching "
                                "thread's span, 5 not linked"),
                  "%s", notes);
    ck_assert_ptr_nonnull(strstr(notes, "2 GPU activities carry their operator's cost, 1 more "
                                        "of the same calls count in time only, 7 kernels"));
    ck_assert_msg(strstr(notes, "operator calls of several GPU activities: 0 split by what each "
                                "kernel does"),
                  "%s", notes);
    ck_assert_msg(strstr(notes, "1 whose kernels cannot be told apart judged as one point"),
                  "%s", notes);
    ck_assert_ptr_null(strstr(notes, "named an operator call that did not launch them"));
    ck_assert_msg(strstr(notes, "(3 in all): aten::foo (7 us, 1 launch), aten::inner (4 us, 1 "
                                "launch), aten::outer (3 us, 2 launches)\n"),
                  "%s", notes);
    ck_assert_ptr_null(strstr(notes, "no operator shapes"));
    ck_assert_ptr_null(strstr(notes, "NCCL/RCCL"));
    rl_trace_groups_release(&g);
}
END_TEST

/* Ten unknown operators, op<i> (External id i, from 0) taking (i + 1) us:
 * the notes keep the largest eight, largest first (op9 .. op2), and count
 * ten. */
START_TEST(top_unknown_operators)
{
    char text[16384];
    size_t at = (size_t)snprintf(text, sizeof text, "{'traceEvents': [\n");
    /* written in an order that is neither sorted nor reversed */
    static const int order[10] = {3, 9, 0, 5, 7, 1, 8, 2, 6, 4};
    for (int j = 0; j < 10; j++) {
        int i = order[j];
        at += (size_t)snprintf(text + at, sizeof text - at,
                               "{'ph': 'X', 'cat': 'cpu_op', 'name': 'op%d', 'pid': 1, 'tid': 1, "
                               "'ts': %d, 'dur': 10, 'args': {'External id': %d}},\n"
                               "{'ph': 'X', 'cat': 'kernel', 'name': 'k%d', 'pid': 0, 'tid': 7, "
                               "'ts': %d, 'dur': %d, 'args': {'External id': %d}},\n",
                               i, 100 * i, i, i, 10000 + 100 * i, i + 1, i);
    }
    snprintf(text + at - 2, sizeof text - at + 2, "\n]}\n");
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.linked_external, 10);
    ck_assert_uint_eq(st.unknown_ops, 10);
    ck_assert_uint_eq(st.n_unknown, RL_TORCH_TOP_UNKNOWN);
    for (int k = 0; k < RL_TORCH_TOP_UNKNOWN; k++) {
        char want[16];
        snprintf(want, sizeof want, "op%d", 9 - k);
        ck_assert_str_eq(st.unknown[k].op, want);
        ck_assert_double_eq_tol(st.unknown[k].time_ns, (10 - k) * 1000.0, 1e-6);
        ck_assert_uint_eq(st.unknown[k].launches, 1);
    }

    /* Two ranks. The second's op1 (20 us; the first's op1 was not kept)
     * replaces the smallest kept, op2 (3 us), and rises to the top; op9 adds
     * 10 us to 20 us (2 launches) and ties op1, staying below it; op0 (1 us)
     * is smaller than the smallest kept, op3 (4 us): left out; op11 (5 us)
     * replaces op3 and ties op4 (5 us), staying below it. */
    struct rl_torch_stats b = {0};
    b.kernels = 4;
    b.busy_ns = 10, b.span_ns = 30, b.devices = 1, b.kernel_time_ns = 36000;
    b.unknown_ops = 4;
    const struct {
        const char *op;
        double t;
    } more[] = {{"op1", 20000}, {"op9", 10000}, {"op0", 1000}, {"op11", 5000}};
    for (size_t i = 0; i < 4; i++) {
        snprintf(b.unknown[i].op, sizeof b.unknown[i].op, "%s", more[i].op);
        b.unknown[i].time_ns = more[i].t;
        b.unknown[i].launches = 1;
    }
    b.n_unknown = 4;
    snprintf(b.gpu_name, sizeof b.gpu_name, "other");
    struct rl_torch_stats sum = st;
    rl_torch_stats_add(&sum, &b);
    ck_assert_uint_eq(sum.kernels, 14);
    ck_assert_int_eq(sum.devices, 2);
    ck_assert_double_eq_tol(sum.kernel_time_ns, 55000 + 36000, 1e-6);
    ck_assert_double_eq_tol(sum.busy_ns, st.busy_ns + 10, 1e-6);
    ck_assert_double_eq_tol(sum.span_ns, st.span_ns + 30, 1e-6);
    ck_assert_uint_eq(sum.unknown_ops, 10); /* the larger rank's count */
    /* the first trace named no GPU (no deviceProperties): the second's */
    ck_assert_str_eq(st.gpu_name, "");
    ck_assert_str_eq(sum.gpu_name, "other");
    ck_assert_uint_eq(sum.n_unknown, RL_TORCH_TOP_UNKNOWN);
    /* op1 (20 us, 1 launch), op9 (20, 2), op8 (9), op7 (8), op6 (7), op5 (6),
     * op4 (5), op11 (5) */
    static const char *const want[] = {"op1", "op9", "op8", "op7", "op6", "op5", "op4", "op11"};
    static const double want_t[] = {20000, 20000, 9000, 8000, 7000, 6000, 5000, 5000};
    for (int k = 0; k < RL_TORCH_TOP_UNKNOWN; k++) {
        ck_assert_str_eq(sum.unknown[k].op, want[k]);
        ck_assert_double_eq_tol(sum.unknown[k].time_ns, want_t[k], 1e-6);
    }
    ck_assert_uint_eq(sum.unknown[0].launches, 1);
    ck_assert_uint_eq(sum.unknown[1].launches, 2);
    ck_assert_uint_eq(sum.unknown[7].launches, 1);
    rl_trace_groups_release(&g);
}
END_TEST

/* A collective's message bytes come from record_param_comms around the c10d
 * call that launches its kernel: an all-gather's whole output (400 x 2
 * bytes, BFloat16 = 800), a reduce-scatter's whole input (1000 x 4 = 4000,
 * not its 250-element output); "In msg size" spells nelems too: 10 Half =
 * 20 bytes (a group of 1e7 is not taken: 0); a dtype not known: no bytes. */
static const char comm_trace[] =
    "{'traceEvents': [\n"
    OP("record_param_comms", 100, 100, "'Collective name': 'allgather', 'dtype': 'BFloat16', "
       "'In msg nelems': 100, 'Out msg nelems': 400, 'Group size': 4")
    OP("c10d::allgather_", 110, 80, "")
    RT(7, 150, "'correlation': 1")
    OP("record_param_comms", 300, 100, "'Collective name': 'reduce_scatter', 'dtype': "
       "'Float', 'In msg nelems': 1000, 'Out msg nelems': 250, 'Group size': 4")
    RT(7, 350, "'correlation': 2")
    OP("c10d::plain", 500, 100, "")
    RT(7, 550, "'correlation': 3")
    OP("record_param_comms", 700, 10, "'Collective name': 'allreduce', 'dtype': 'Half', "
       "'In msg size': 10, 'Out msg size': 10, 'Group size': 1e7")
    RT(7, 705, "'correlation': 4")
    OP("record_param_comms", 800, 10, "'Collective name': 'allreduce', 'dtype': 'Weird', "
       "'In msg nelems': 10, 'Group size': 2")
    RT(7, 805, "'correlation': 5")
    GPU("kernel", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 1000,
        10, ", 'correlation': 1")
    GPU("kernel", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)", 0, 1100, 20,
        ", 'correlation': 2")
    GPU("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)", 0, 1200, 30,
        ", 'correlation': 3")
    GPU("kernel", "ncclDevKernel_Broadcast_RING_LL(x)", 0, 1300, 30, "")
    GPU("kernel", "ncclDevKernel_AllReduce_Sum_f16_RING_LL(half)", 0, 1400, 1,
        ", 'correlation': 4")
    GPU("kernel", "ncclDevKernel_AllReduce_Sum_f16_RING_LL(weird)", 0, 1500, 1,
        ", 'correlation': 5")
    "{'ph': 'i', 'cat': 'kernel', 'name': 'instant', 'ts': 5}\n"
    "]}\n";

/* One kernel name (same grid and block) launched under a collective's
 * operator and under an ordinary one: a collective only under the first.
 * The reader memoizes rl_comm_recognize by (kernel, operator) name: a memo
 * keyed by the kernel alone would call both collectives (torch-link.c). */
static const char memo_trace[] =
    "{'traceEvents': [\n"
    OP("c10d::allreduce_", 100, 100, "")
    RT(7, 150, "'correlation': 1")
    OP("aten::add", 300, 100, "")
    RT(7, 350, "'correlation': 2")
    GPU("kernel", "my_copy_kernel(x)", 0, 1000, 10, ", 'correlation': 1")
    GPU("kernel", "my_copy_kernel(x)", 0, 1100, 10, ", 'correlation': 2")
    "{'ph': 'i', 'cat': 'kernel', 'name': 'instant', 'ts': 5}\n"
    "]}\n";

START_TEST(comm_memo_by_operator)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(memo_trace, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, 2);
    ck_assert_uint_eq(st.comm_kernels, 1);
    rl_trace_groups_release(&g);
}
END_TEST

START_TEST(collective_bytes)
{
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(comm_trace, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, 6); /* an instant event is no kernel */
    ck_assert_uint_eq(st.comm_kernels, 6);
    ck_assert_uint_eq(st.comm_with_bytes, 3);
    const struct rl_trace_group *x =
        group(&g, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    ck_assert_double_eq(x->comm_bytes, 800);
    ck_assert_uint_eq(x->comm_launches, 1);
    ck_assert_int_eq(x->comm_group_size, 4);
    ck_assert_str_eq(x->collective, "allgather");
    ck_assert_str_eq(x->op, "c10d::allgather_");
    x = group(&g, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)");
    ck_assert_double_eq(x->comm_bytes, 4000);
    ck_assert_str_eq(x->collective, "reducescatter");
    x = group(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)");
    ck_assert_uint_eq(x->comm_launches, 0);
    ck_assert_str_eq(x->collective, "allreduce");
    x = group(&g, "ncclDevKernel_AllReduce_Sum_f16_RING_LL(half)");
    ck_assert_double_eq(x->comm_bytes, 20);
    ck_assert_int_eq(x->comm_group_size, 0);
    x = group(&g, "ncclDevKernel_AllReduce_Sum_f16_RING_LL(weird)");
    ck_assert_uint_eq(x->comm_launches, 0);
    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(
        strstr(notes, "6 communication kernels (NCCL/RCCL, symmetric memory, custom all-reduce, "
                      "DeepEP); 3 with their message bytes (record_param_comms, else the "
                      "collective operator's input shapes)\n"));
    rl_trace_groups_release(&g);
}
END_TEST

/* How far up the message bytes are looked for: the kernel's operator and
 * up to 7 operators around it. record_param_comms (an all-reduce of 100
 * floats: 400 bytes) with `depth` operators nested inside it, the launch
 * in the innermost: found at depth 7, not at depth 8. */
static void nested_comm_trace(char *buf, size_t size, int depth)
{
    size_t n = (size_t)snprintf(buf, size, "{'traceEvents': [\n" OP(
        "record_param_comms", 100, 200, "'Collective name': 'allreduce', 'dtype': 'Float', "
        "'In msg nelems': 100, 'Out msg nelems': 100, 'Group size': 2"));
    for (int d = 1; d <= depth; d++)
        n += (size_t)snprintf(buf + n, size - n,
                              "{'ph': 'X', 'cat': 'cpu_op', 'name': 'wrap%d', 'pid': 1, "
                              "'tid': 7, 'ts': %d, 'dur': %d, 'args': {}},\n",
                              d, 100 + d, 200 - 2 * d);
    snprintf(buf + n, size - n,
             RT(7, 150, "'correlation': 1") GPU("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)",
                                                0, 1000, 10, ", 'correlation': 1")
                 "{'ph': 'i', 'cat': 'kernel', 'name': 'instant', 'ts': 5}\n]}\n");
}

START_TEST(collective_bytes_up_to_seven_calls_out)
{
    for (int depth = 7; depth <= 8; depth++) {
        char text[4096];
        nested_comm_trace(text, sizeof text, depth);
        struct rl_trace_groups g;
        struct rl_torch_stats st;
        char err[RL_ERRMSG_SIZE];
        ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
        const struct rl_trace_group *x = group(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)");
        char want[16];
        snprintf(want, sizeof want, "wrap%d", depth);
        ck_assert_str_eq(x->op, want);
        ck_assert_uint_eq(st.comm_with_bytes, depth == 7 ? 1 : 0);
        if (depth == 7) {
            ck_assert_double_eq(x->comm_bytes, 400);
            ck_assert_int_eq(x->comm_group_size, 2);
        } else {
            ck_assert_uint_eq(x->comm_launches, 0);
        }
        rl_trace_groups_release(&g);
    }
}
END_TEST

/* The notes cut to the buffer end with "..\n"; a zero-filled stats prints
 * only the linking line. */
START_TEST(notes_limits)
{
    struct rl_torch_stats st = {0};
    char buf[4096];
    rl_torch_notes(&st, buf, sizeof buf);
    ck_assert_str_eq(buf, "PyTorch profiler trace: 0 GPU kernels, 0 copies, 0 fills; operators "
                          "linked: 0 by External id, 0 through their runtime call, 0 by the "
                          "launching thread's span, 0 not linked (counted by name and time)\n");
    char small[40];
    memset(small, 'x', sizeof small);
    rl_torch_notes(&st, small, sizeof small);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_str_eq(small + sizeof small - 4, "..\n");
    ck_assert(strncmp(small, "PyTorch profiler trace: 0 GPU ker", 33) == 0);
    st.roof_from_dtype = 3;
    st.memsets = 1;
    st.span_ns = 2e6, st.busy_ns = 5e5;
    rl_torch_notes(&st, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "\n3 kernels are judged against their dtype's most "
                                      "generous roof"));
    ck_assert_ptr_nonnull(strstr(buf, "FLOPs and bytes are analytic"));
    /* idle 1.5 ms of 2 ms: 75% */
    ck_assert_msg(strstr(buf, "GPU idle: 1.5 ms of the 2 ms from the first GPU activity to the "
                              "last (75.0%)\n"),
                  "%s", buf);
}
END_TEST

/* The shapes as a report prints them, from "Input Dims" and "Input type":
 * a tensor "4x4"; [] with a dtype a 0-d tensor "scalar"; [] with "Scalar"
 * and a bare number left out; a list "[2 tensors]"; 12 dims (the most
 * kept) written out, 13 unreadable (nothing written, no separator). A grid of four
 * numbers keeps three and leaves the block alone. An empty TensorList
 * "[0 tensors]"; types past the dims are arguments without dims. */
START_TEST(shapes_and_dims)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::foo", 100, 50, "'External id': 1, 'Input Dims': [[4, 4], [], [], [[2, 3], [5]], "
           "7, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]], 'Input type': ['float', "
           "'c10::BFloat16', 'Scalar', 'TensorList', 'int', 'float']")
        OP("aten::bar", 200, 50, "'External id': 2, 'Input Dims': [[1, 2, 3, 4, 5, 6, 7, 8, 9, "
           "10, 11, 12, 13], [3]], 'Input type': ['float', 'float']")
        OP("aten::cat", 300, 50, "'External id': 3, 'Input Dims': [[]], 'Input type': "
           "['TensorList', 'int']")
        GPU("kernel", "foo_k", 0, 1000, 1, ", 'External id': 1, 'block': [128, 2, 1], "
            "'grid': [2, 3, 4, 9]")
        GPU("kernel", "bar_k", 0, 1010, 1, ", 'External id': 2, 'grid': [1, 1, -1], "
            "'block': [4294967296, 5, 6]")
        GPU("kernel", "cat_k", 0, 1020, 1, ", 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    const struct rl_trace_group *x = group(&g, "foo_k");
    ck_assert_str_eq(x->shapes, "4x4, scalar, [2 tensors], 1x2x3x4x5x6x7x8x9x10x11x12");
    ck_assert_uint_eq(x->grid[0], 2);
    ck_assert_uint_eq(x->grid[1], 3);
    ck_assert_uint_eq(x->grid[2], 4);
    ck_assert_uint_eq(x->block[0], 128);
    ck_assert_uint_eq(x->block[1], 2);
    ck_assert_uint_eq(x->block[2], 1);
    x = group(&g, "bar_k");
    ck_assert_str_eq(x->shapes, "3"); /* the unreadable tensor writes nothing */
    /* numbers out of range are not taken: 0 */
    ck_assert_uint_eq(x->grid[2], 0);
    ck_assert_uint_eq(x->block[0], 0);
    ck_assert_uint_eq(x->block[1], 5);
    /* a TensorList typed [] (empty) is still a list, "[0 tensors]"; a
     * second type past the one dims entry is an argument without dims (the
     * int, a scalar, left out), whatever the event before had there
     * (aten::bar's second argument is a tensor) */
    x = group(&g, "cat_k");
    ck_assert_str_eq(x->shapes, "[0 tensors]");
    rl_trace_groups_release(&g);
}
END_TEST

/* Shapes longer than their 200 bytes end in ", ..." where it fits: 31
 * tensors, "100x10" then "10x10"s, reach 6 + 27 x 7 = 195 characters with
 * 28 of them; the 29th does not fit, nor does ", ..." (6 bytes with its
 * NUL, 5 left): the text stops at 195. With "10x10" first the 28th ends at
 * 5 + 27 x 7 = 194, and ", ..." fits (199 characters). */
START_TEST(long_shapes)
{
    char text[8192], dims[2048];
    for (int first = 0; first < 2; first++) {
        size_t at = (size_t)snprintf(dims, sizeof dims, "[%s]", first ? "10, 10" : "100, 10");
        for (int i = 0; i < 30; i++)
            at += (size_t)snprintf(dims + at, sizeof dims - at, ", [10, 10]");
        snprintf(text, sizeof text,
                 "{'traceEvents': [\n" OP("aten::foo", 100, 50, "'External id': 1, "
                                                              "'Input Dims': [%s]")
                 GPU("kernel", "k", 0, 1000, 1, ", 'External id': 1") "]}\n",
                 dims);
        struct rl_trace_groups g;
        struct rl_torch_stats st;
        char err[RL_ERRMSG_SIZE];
        ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
        const char *sh = group(&g, "k")->shapes;
        char want[256];
        size_t w = (size_t)snprintf(want, sizeof want, "%s", first ? "10x10" : "100x10");
        for (int i = 0; i < 27; i++)
            w += (size_t)snprintf(want + w, sizeof want - w, ", 10x10");
        if (first)
            snprintf(want + w, sizeof want - w, ", ...");
        ck_assert_str_eq(sh, want);
        ck_assert_uint_eq(strlen(sh), first ? 199 : 195);
        rl_trace_groups_release(&g);
    }
}
END_TEST

/* The older spellings: a bare array of events (with Kineto's trailing
 * comma), cats Operator / Runtime / Kernel / Memcpy, "external id" and
 * "Input dims" in lower case, numbers in quotes, a ts with an exponent.
 * aten::mm [2,3] x [3,4]: 2*2*3*4 = 48 FLOPs, (6 + 12 + 8) * 4 = 104 bytes.
 * The copy's "kind" says DtoD (its name does not): 2 x 64 = 128 bytes.
 * Times from the first event (100): the kernel [200, 204.5] -> [100, 104.5],
 * the copy [300, 301] -> [200, 201]: busy 5.5 us, span 101 us. */
START_TEST(old_spellings)
{
    static const char text[] =
        "[{'ph': 'X', 'cat': 'Operator', 'name': 'aten::mm', 'pid': 1, 'tid': 7, 'ts': 100, "
        "'dur': 50, 'args': {'external id': 5, 'Input dims': [[2, 3], [3, 4]], 'Input type': "
        "['float', 'float']}},\n"
        "{'cat': 'Runtime', 'name': 'cudaLaunchKernel', 'pid': 1, 'tid': 7, 'ts': 1.1e2, "
        "'dur': 2, 'args': {'correlation': '3', 'external id': 5}},\n"
        "{'ph': 'X', 'cat': 'Kernel', 'name': 'sgemm', 'pid': 0, 'tid': 'stream 7', 'ts': "
        "'200', 'dur': '4.5', 'args': {'correlation': 3, 'device': 1e7}},\n"
        "{'ph': 'X', 'cat': 'Memcpy', 'name': 'Memcpy', 'pid': 0, 'tid': 'stream 7', 'ts': 300, "
        "'dur': 1, 'args': {'kind': 'DtoD', 'bytes': '64', 'device': 0}},\n"
        "{'ph': 'X', 'cat': 'cuda_driver', 'name': 'cuLaunchKernel', 'pid': 1, 'tid': 7, 'ts': "
        "120, 'dur': 1, 'args': {'correlation': 9}},\n"
        "{'ph': 'X', 'cat': 'Kernel', 'name': 'splitKreduce_kernel', 'pid': 0, 'tid': 'stream 7', 'ts': 150, "
        "'dur': 1, 'args': {'correlation': 9}},\n"
        "{'ph': 'X', 'cat': 'user_annotation', 'name': 'forward', 'ts': 1, 'dur': 1},\n"
        "{'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep', 'ts': 1, 'dur': 1},\n"
        "]";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    ck_assert_uint_eq(st.events, 8);
    ck_assert_uint_eq(st.profiler_steps, 0); /* "ProfilerStep" without '#N' is not one */
    ck_assert_uint_eq(st.cpu_ops, 1);
    ck_assert_uint_eq(st.runtime_calls, 2);  /* cuLaunchKernel (cat cuda_driver) is one */
    ck_assert_uint_eq(st.kernels, 2);
    ck_assert_uint_eq(st.memcpys, 1);
    ck_assert_uint_eq(st.linked_runtime, 1);
    ck_assert_uint_eq(st.linked_span, 1);    /* the reduction: the driver call at 120 is in mm */
    ck_assert_uint_eq(st.unlinked, 1);
    ck_assert_uint_eq(st.op_helpers, 1);     /* the split-K reduction: time only */
    ck_assert_uint_eq(st.split_calls, 1);
    ck_assert(st.shapes);
    const struct rl_trace_group *x = group(&g, "sgemm");
    ck_assert_double_eq(x->flops, 48);
    ck_assert_double_eq(x->bytes[0], 104);
    ck_assert_double_eq_tol(x->time_ns, 4500, 1e-6);
    x = group(&g, "Memcpy");
    ck_assert_double_eq(x->bytes_only_bytes[0], 128);
    ck_assert_int_eq(st.devices, 1); /* device 1e7 is out of range: device 0 */
    /* the reduction [150, 151] -> [50, 51]: busy 1 + 4.5 + 1, span 201 - 50 */
    ck_assert_double_eq_tol(st.busy_ns, 6500, 1e-6);
    ck_assert_double_eq_tol(st.span_ns, 151000, 1e-6);
    rl_trace_groups_release(&g);
}
END_TEST

/* gzip of text, as a file would start. */
static size_t gzip_of(const char *text, unsigned char *out, size_t size)
{
    z_stream zs = {0};
    ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
                     Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = out;
    zs.avail_out = (uInt)size;
    ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t n = size - zs.avail_out;
    deflateEnd(&zs);
    return n;
}

/* Sniffing: an object or array that names a profiler trace's parts, after
 * a byte-order mark and white space, plain or gzipped; not a roofline
 * trace, not empty or blank, not an object that names none of them. */
START_TEST(sniffing)
{
    static const char bom[] = "\xEF\xBB\xBF {\"traceEvents\": []}";
    ck_assert(rl_torch_sniff(bom, sizeof bom - 1));
    ck_assert(!rl_torch_sniff("\xEF\xBB{\"traceEvents\": []}", 21));
    ck_assert(rl_torch_sniff(" \t\r\n[{\"ph\": \"X\"}]", 17));
    ck_assert(rl_torch_sniff("[{\"ph\" : \"X\"}]", 14));
    ck_assert(rl_torch_sniff("{\"distributedInfo\": {}}", 23));
    ck_assert(rl_torch_sniff("{\"displayTimeUnit\": \"ms\"}", 25));
    ck_assert(rl_torch_sniff("{\"deviceProperties\": []}", 24));
    ck_assert(!rl_torch_sniff("{\"other\": 1}", 12));
    ck_assert(!rl_torch_sniff("   \n", 4));
    ck_assert(!rl_torch_sniff("", 0));
    ck_assert(!rl_torch_sniff("x{\"traceEvents\": []}", 20));
    /* the marks only count inside the first len bytes */
    ck_assert(!rl_torch_sniff("{\"traceEvents\": []}", 12));
    ck_assert(!rl_torch_sniff("{\"roofline-trace\", \"traceEvents\": []}", 37));
    unsigned char z[512];
    size_t n = gzip_of("{\"schemaVersion\": 1, \"traceEvents\": []}", z, sizeof z);
    ck_assert(rl_torch_sniff((const char *)z, n));
    n = gzip_of("{\"format\": \"roofline-trace\", \"traceEvents\": []}", z, sizeof z);
    ck_assert(!rl_torch_sniff((const char *)z, n));
    /* a gzip magic with garbage after it */
    ck_assert(!rl_torch_sniff("\x1f\x8b\x08\x00garbage-garbage", 19));
    ck_assert(!rl_torch_sniff_file("/nonexistent/x.json"));
}
END_TEST

/* Malformed traces: one error naming what is wrong, no groups. */
START_TEST(malformed)
{
    static const struct {
        const char *text;
        int rc;
        const char *says;
    } bad[] = {
        {"{'traceEvents': [" OP("aten::mm", 1, 1, "'Input Dims': [[1 2]]") "]}", RL_EPARSE,
         "in Input Dims"},
        {"{'traceEvents': [" OP("aten::mm", 1, 1, "'Input Dims': [[1], [2] [3]]") "]}",
         RL_EPARSE, "in Input Dims"},
        {"{'traceEvents': [" OP("aten::mm", 1, 1, "'Input Dims': [[[1] [2]]]") "]}", RL_EPARSE,
         "in Input Dims"},
        {"{'traceEvents': [" OP("aten::mm", 1, 1, "'Input type': ['a' 'b']") "]}", RL_EPARSE,
         "expected ',' or ']'"},
        {"{'deviceProperties': [{} {}], 'traceEvents': []}", RL_EPARSE, "expected ',' or ']'"},
        {"{'traceEvents': [{} {}]}", RL_EPARSE, "expected ',' or ']' in traceEvents"},
        {"{'traceEvents': [{}, {}", RL_EPARSE, "truncated: traceEvents never ends"},
        {"[{} {}]", RL_EPARSE, "expected ',' or ']'"},
        {"{'traceEvents': 5}", RL_ESCHEMA, "'traceEvents' must be an array"},
        {"5", RL_ESCHEMA, "not a PyTorch profiler trace"},
        {"{'schemaVersion': 1, 'deviceProperties': []}", RL_ESCHEMA, "no 'traceEvents' array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct rl_trace_groups g;
        struct rl_torch_stats st;
        char err[RL_ERRMSG_SIZE] = "";
        ck_assert_msg(read_trace(bad[i].text, &g, &st, err) == bad[i].rc, "case %zu: %s", i,
                      err);
        ck_assert_msg(strstr(err, bad[i].says), "case %zu: %s", i, err);
        ck_assert_msg(strstr(err, "link.json"), "case %zu: %s", i, err);
        ck_assert_uint_eq(g.n, 0);
        rl_trace_groups_release(&g);
    }
    /* the same shapes well formed, and an empty array of events: fine */
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace("{'traceEvents': [" OP("aten::mm", 1, 1, "'Input Dims': [[1, 2], "
                                                                          "[2] , [[3]]]") "]}",
                                &g, &st, err),
                     RL_OK);
    rl_trace_groups_release(&g);
    ck_assert_int_eq(read_trace("[]", &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.events, 0);
    rl_trace_groups_release(&g);
}
END_TEST

/* Calls that start together nest by their ends (the longer encloses):
 * inner [500,510] written before outer [500,600]; a launch at 505 is the
 * inner's, one at 550 the outer's. Correlation 0 is an id like any other.
 * A collective of 0 elements has 0 message bytes (known, not unknown). */
START_TEST(same_start_and_zero_ids)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::inner2", 500, 10, "")
        OP("aten::outer2", 500, 100, "")
        RT(7, 505, "'correlation': 0")
        RT(7, 550, "'correlation': 1")
        OP("record_param_comms", 700, 20, "'Collective name': 'allreduce', 'dtype': 'Float', "
           "'In msg nelems': 0, 'Group size': 2")
        RT(7, 710, "'correlation': 2")
        GPU("kernel", "kin", 0, 1000, 1, ", 'correlation': 0")
        GPU("kernel", "kout", 0, 1010, 1, ", 'correlation': 1")
        GPU("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(z)", 0, 1020, 1,
            ", 'correlation': 2")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.linked_span, 3);
    ck_assert_str_eq(group(&g, "kin")->op, "aten::inner2");
    ck_assert_str_eq(group(&g, "kout")->op, "aten::outer2");
    const struct rl_trace_group *x = group(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(z)");
    ck_assert_uint_eq(st.comm_with_bytes, 1);
    ck_assert_double_eq(x->comm_bytes, 0);
    ck_assert_int_eq(x->comm_group_size, 2);
    rl_trace_groups_release(&g);
}
END_TEST

/* The count of costed kernels judged on their dtype's roof: a matmul whose
 * kernel name says nothing (gemm_x, 128 FLOPs) counts; one of 0 FLOPs
 * ([0,4] x [4,2]) does not, nor does an sgemm (its name says CUDA cores).
 * A world size of 0 is no rank. */
START_TEST(roof_from_dtype_counts)
{
    static const char text[] =
        "{'distributedInfo': {'rank': 0, 'world_size': 0}, 'traceEvents': [\n"
        OP("aten::mm", 100, 10, "'External id': 1, 'Input Dims': [[8, 4], [4, 2]], "
                                "'Input type': ['float', 'float']")
        OP("aten::mm", 200, 10, "'External id': 2, 'Input Dims': [[0, 4], [4, 2]], "
                                "'Input type': ['float', 'float']")
        OP("aten::mm", 300, 10, "'External id': 3, 'Input Dims': [[8, 4], [4, 2]], "
                                "'Input type': ['float', 'float']")
        OP("aten::mm", 400, 10, "'External id': 4, 'Input Dims': [[2, 4], [4, 2]], "
                                "'Input type': ['float', 'float']")
        GPU("kernel", "gemm_x", 0, 1000, 1, ", 'External id': 1")
        GPU("kernel", "gemm_z", 0, 1030, 1, ", 'External id': 4")
        GPU("kernel", "gemm_y", 0, 1010, 1, ", 'External id': 2")
        GPU("kernel", "volta_sgemm_128x64_nn", 0, 1020, 1, ", 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    /* gemm_x and gemm_z take fp32's roof from the dtype; gemm_y (0 FLOPs:
     * no roof needed) and the sgemm (its name says) do not */
    ck_assert_uint_eq(st.costed, 4);
    ck_assert_uint_eq(st.roof_from_dtype, 2);
    ck_assert_double_eq(group(&g, "gemm_y")->flops, 0);
    ck_assert_int_eq(st.world_size, 0);
    ck_assert(!g.sum.rank.present);
    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_ptr_nonnull(strstr(notes, "\n2 kernels are judged against their dtype's most "
                                        "generous roof"));
    rl_trace_groups_release(&g);
}
END_TEST

/* Every count and time of two ranks' stats adds up; the GPU stays the
 * first's when it has one; exactly 1 ms of idle time reads "1 ms". */
START_TEST(stats_add_every_field)
{
    struct rl_torch_stats a = {0}, b = {0};
    uint64_t *fa[] = {&a.events, &a.cpu_ops, &a.runtime_calls, &a.kernels, &a.memcpys,
                      &a.memsets, &a.linked_external, &a.linked_runtime, &a.linked_span,
                      &a.unlinked, &a.costed, &a.op_helpers, &a.uncosted, &a.roof_from_dtype,
                      &a.comm_kernels, &a.comm_with_bytes, &a.profiler_steps,
                      &a.relinked, &a.split_calls, &a.one_point_calls};
    uint64_t *fb[] = {&b.events, &b.cpu_ops, &b.runtime_calls, &b.kernels, &b.memcpys,
                      &b.memsets, &b.linked_external, &b.linked_runtime, &b.linked_span,
                      &b.unlinked, &b.costed, &b.op_helpers, &b.uncosted, &b.roof_from_dtype,
                      &b.comm_kernels, &b.comm_with_bytes, &b.profiler_steps,
                      &b.relinked, &b.split_calls, &b.one_point_calls};
    size_t n = sizeof fa / sizeof *fa;
    for (size_t i = 0; i < n; i++)
        *fa[i] = 100 + i, *fb[i] = 1000 * (i + 1);
    a.kernel_time_ns = 1, b.kernel_time_ns = 2;
    a.call_flops = 10, b.call_flops = 20;
    a.busy_ns = 1e6, b.busy_ns = 1e6;
    a.span_ns = 2e6, b.span_ns = 1e6;
    a.devices = 1, b.devices = 2;
    b.shapes = true;
    snprintf(a.gpu_name, sizeof a.gpu_name, "first");
    snprintf(b.gpu_name, sizeof b.gpu_name, "second");
    rl_torch_stats_add(&a, &b);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(*fa[i] == 100 + i + 1000 * (i + 1), "field %zu: %llu", i,
                      (unsigned long long)*fa[i]);
    ck_assert_double_eq(a.kernel_time_ns, 3);
    ck_assert_double_eq(a.call_flops, 30);
    ck_assert_double_eq(a.busy_ns, 2e6);
    ck_assert_double_eq(a.span_ns, 3e6);
    ck_assert_int_eq(a.devices, 3);
    ck_assert(a.shapes);
    ck_assert_str_eq(a.gpu_name, "first");
    char notes[8192];
    rl_torch_notes(&a, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "GPU idle: 1 ms of the 3 ms from the first GPU activity to the "
                                "last (33.3%), summed over devices\n"),
                  "%s", notes);
}
END_TEST

/* A dim that is not a number (null) makes its tensor unreadable, as 13 dims
 * do: aten::mm of [4, null, 3] and [3, 5] is not costed (its kernel is
 * timing only) and its shapes show the readable tensor alone; the same
 * call with [4, 3] is: 2 x 4 x 3 x 5 = 120 FLOPs (the two calls have
 * different signatures: the null is not dropped). */
START_TEST(dims_not_numbers)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::mm", 100, 10, "'External id': 1, 'Input Dims': [[4, null, 3], [3, 5]], "
                                "'Input type': ['float', 'float']")
        OP("aten::mm", 200, 10, "'External id': 2, 'Input Dims': [[4, 3], [3, 5]], "
                                "'Input type': ['float', 'float']")
        OP("aten::foo", 300, 10, "'External id': 3, 'Input Dims': [[9.2e18], [3]]")
        OP("aten::bar", 400, 10, "'External id': 9.2e18")
        GPU("kernel", "gemm_null", 0, 1000, 1, ", 'External id': 1")
        GPU("kernel", "gemm_ok", 0, 1010, 1, ", 'External id': 2")
        GPU("kernel", "foo_k", 0, 1020, 1, ", 'External id': 3")
        GPU("kernel", "bar_k", 0, 1030, 1, ", 'External id': 9.2e18")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.costed, 1);
    ck_assert_uint_eq(st.uncosted, 3); /* gemm_null, foo_k (unknown), bar_k (unlinked) */
    const struct rl_trace_group *x = group(&g, "gemm_null");
    ck_assert_str_eq(x->shapes, "3x5");
    ck_assert(!x->counted);
    x = group(&g, "gemm_ok");
    ck_assert_str_eq(x->shapes, "4x3, 3x5");
    ck_assert_double_eq(x->flops, 120);
    /* a dim or an id of 9.2e18 or more is not taken (an int64 ends at
     * 9.22e18): foo's first tensor is unreadable, bar_k links to nothing */
    ck_assert_str_eq(group(&g, "foo_k")->shapes, "3");
    ck_assert_ptr_null(group(&g, "bar_k")->op);
    ck_assert_uint_eq(st.unlinked, 1);
    rl_trace_groups_release(&g);
}
END_TEST

/* A fill or a device-to-device copy of 0 bytes is a memory point of 0
 * bytes, not one whose bytes are unknown; without 'bytes' it is timing
 * only. */
START_TEST(zero_byte_copies)
{
    static const char text[] =
        "{'traceEvents': [\n"
        GPU("gpu_memset", "Memset (Device)", 0, 100, 1, ", 'bytes': 0")
        GPU("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, 110, 1, ", 'bytes': 0")
        GPU("gpu_memset", "Memset (Unsized)", 0, 120, 1, "")
        GPU("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 130, 1, ", 'bytes': 4096")
        GPU("gpu_memcpy", "Memcpy DtoD (Unsized)", 0, 140, 1, "")
        GPU("gpu_memcpy", "Memcpy DtoD (Sized)", 0, 150, 1, ", 'bytes': 1000")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    const struct rl_trace_group *x = group(&g, "Memset (Device)");
    ck_assert_uint_eq(x->bytes_only, 1);
    ck_assert_double_eq(x->bytes_only_bytes[0], 0);
    x = group(&g, "Memcpy DtoD (Device -> Device)");
    ck_assert_uint_eq(x->bytes_only, 1);
    ck_assert_double_eq(x->bytes_only_bytes[0], 0);
    x = group(&g, "Memset (Unsized)");
    ck_assert_uint_eq(x->bytes_only + x->counted, 0);
    /* a host-to-device copy crosses PCIe, not DRAM: timing only, whatever
     * its bytes; a device-to-device copy without bytes is timing only too;
     * one of 1000 bytes reads and writes them: 2000 */
    x = group(&g, "Memcpy HtoD (Pageable -> Device)");
    ck_assert_uint_eq(x->bytes_only + x->counted, 0);
    x = group(&g, "Memcpy DtoD (Unsized)");
    ck_assert_uint_eq(x->bytes_only + x->counted, 0);
    x = group(&g, "Memcpy DtoD (Sized)");
    ck_assert_uint_eq(x->bytes_only, 1);
    ck_assert_double_eq(x->bytes_only_bytes[0], 2000);
    rl_trace_groups_release(&g);
}
END_TEST

/* An NCCL kernel linked by its External id while nothing waits to be
 * linked: its message bytes need the calls nested, which is done once at
 * the end (the kernel is added last): record_param_comms (id 1) of 100
 * Float around c10d::allreduce_ (id 2), whose kernel has id 2: 400 bytes
 * from the enclosing record; a second kernel of id 1 (the record itself):
 * 400 too. */
START_TEST(collective_linked_by_id)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("record_param_comms", 100, 100, "'External id': 1, 'Collective name': 'allreduce', "
           "'dtype': 'Float', 'In msg nelems': 100, 'Out msg nelems': 100, 'Group size': 2")
        OP("c10d::allreduce_", 110, 80, "'External id': 2")
        GPU("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(a)", 0, 1000, 10,
            ", 'External id': 2")
        GPU("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(b)", 0, 1100, 10,
            ", 'External id': 1")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.linked_external, 2);
    ck_assert_uint_eq(st.comm_kernels, 2);
    ck_assert_uint_eq(st.comm_with_bytes, 2);
    const struct rl_trace_group *x = group(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(a)");
    ck_assert_uint_eq(x->comm_launches, 1);
    ck_assert_double_eq(x->comm_bytes, 400);
    ck_assert_int_eq(x->comm_group_size, 2);
    ck_assert_str_eq(x->op, "c10d::allreduce_");
    x = group(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(b)");
    ck_assert_double_eq(x->comm_bytes, 400);
    ck_assert_str_eq(x->op, "record_param_comms");
    rl_trace_groups_release(&g);
}
END_TEST

/* Concrete Inputs as a trace writes them: strings, numbers (a dtype code
 * written as the number 15, not "15") and nested lists (a list argument's
 * values: kept as "", the arguments after it in their places).
 * _to_copy(self fp32 [4], dtype 15 = bf16): 4 read x 4 bytes + 4 written
 * x 2 = 24 bytes (with the dtype lost, the input's 4 bytes: 32). The same
 * with a nested list before the dtype: 24 again. */
START_TEST(concrete_numbers_and_lists)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::_to_copy", 100, 10, "'External id': 1, 'Input Dims': [[4], []], "
           "'Input type': ['float', 'ScalarType'], 'Concrete Inputs': ['', 15]")
        OP("aten::_to_copy", 200, 10, "'External id': 2, 'Input Dims': [[4], [], []], "
           "'Input type': ['float', 'Scalar', 'ScalarType'], "
           "'Concrete Inputs': ['', [1, [2, 3]], 15]")
        OP("aten::_to_copy", 300, 10, "'External id': 3, 'Input Dims': [[4], []], "
           "'Input type': ['float', 'ScalarType'], 'Concrete Inputs': ['', '']")
        GPU("kernel", "cast_number", 0, 1000, 1, ", 'External id': 1")
        GPU("kernel", "cast_after_list", 0, 1010, 1, ", 'External id': 2")
        GPU("kernel", "cast_no_dtype", 0, 1020, 1, ", 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.costed, 3);
    ck_assert_double_eq(group(&g, "cast_number")->bytes[0], 24);
    ck_assert_double_eq(group(&g, "cast_after_list")->bytes[0], 24);
    ck_assert_double_eq(group(&g, "cast_no_dtype")->bytes[0], 32);
    rl_trace_groups_release(&g);
}
END_TEST

/* A collective's message: the input buffer, except a gather's larger
 * output. An all-to-all of 100 Float in and 300 out (uneven splits) sends
 * its 100 x 4 = 400 bytes (the output is no gather's); an all-gather whose
 * output is not larger (300 in, 100 out: a malformed record) keeps its
 * input, 1200; an all-reduce of 0 elements is a message of 0 bytes, not
 * an unknown one. */
START_TEST(collective_message_sizes)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("record_param_comms", 100, 100, "'Collective name': 'all_to_all', 'dtype': 'Float', "
           "'In msg nelems': 100, 'Out msg nelems': 300, 'Group size': 4")
        RT(7, 150, "'correlation': 1")
        OP("record_param_comms", 300, 100, "'Collective name': 'allgather', 'dtype': 'Float', "
           "'In msg nelems': 300, 'Out msg nelems': 100, 'Group size': 4")
        RT(7, 350, "'correlation': 2")
        OP("record_param_comms", 500, 100, "'Collective name': 'allreduce', 'dtype': 'Half', "
           "'In msg nelems': 0, 'Out msg nelems': 0, 'Group size': 2")
        RT(7, 550, "'correlation': 3")
        GPU("kernel", "ncclDevKernel_SendRecv(x)", 0, 1000, 10, ", 'correlation': 1")
        GPU("kernel", "ncclDevKernel_AllGather_RING_LL(x)", 0, 1100, 10, ", 'correlation': 2")
        GPU("kernel", "ncclDevKernel_AllReduce_Sum_f16_RING_LL(x)", 0, 1200, 10,
            ", 'correlation': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.comm_kernels, 3);
    ck_assert_uint_eq(st.comm_with_bytes, 3);
    const struct rl_trace_group *x = group(&g, "ncclDevKernel_SendRecv(x)");
    ck_assert_uint_eq(x->comm_launches, 1);
    ck_assert_double_eq(x->comm_bytes, 400);
    x = group(&g, "ncclDevKernel_AllGather_RING_LL(x)");
    ck_assert_uint_eq(x->comm_launches, 1);
    ck_assert_double_eq(x->comm_bytes, 1200);
    x = group(&g, "ncclDevKernel_AllReduce_Sum_f16_RING_LL(x)");
    ck_assert_uint_eq(x->comm_launches, 1);
    ck_assert_double_eq(x->comm_bytes, 0);
    rl_trace_groups_release(&g);
}
END_TEST

/* Python numbers are no tensors: with [] dims, Input types int, bool,
 * float and double are scalars (left out of the shapes), a dtype such as
 * 'long int' is a 0-d tensor ("scalar"). An operator of 64 arguments (the
 * most kept) is costed: aten::cat of 64 [4] floats reads and writes
 * 64 x 4 x 4 = 1024 bytes, 2048; one of 65 is not (timing only). */
START_TEST(scalars_and_argument_limit)
{
    char text[16384], dims[4096], types[4096];
    size_t at = (size_t)snprintf(text, sizeof text, "{'traceEvents': [\n"
        OP("aten::add", 100, 10, "'External id': 1, 'Input Dims': [[4], [], [], [], [], []], "
           "'Input type': ['float', 'int', 'bool', 'float', 'double', 'long int']"));
    for (int n = 64; n <= 65; n++) {
        size_t d = 0, t = 0;
        for (int i = 0; i < n; i++) {
            d += (size_t)snprintf(dims + d, sizeof dims - d, "%s[4]", i ? ", " : "");
            t += (size_t)snprintf(types + t, sizeof types - t, "%s'float'", i ? ", " : "");
        }
        at += (size_t)snprintf(text + at, sizeof text - at,
                               OP("aten::cat", %d, 10, "'External id': %d, 'Input Dims': [%s], "
                                  "'Input type': [%s]"),
                               100 * n, n, dims, types);
    }
    at += (size_t)snprintf(text + at, sizeof text - at,
                           GPU("kernel", "add_k", 0, 1000, 1, ", 'External id': 1")
                           GPU("kernel", "cat64", 0, 1010, 1, ", 'External id': 64")
                           GPU("kernel", "cat65", 0, 1020, 1, ", 'External id': 65") "]}\n");
    ck_assert_uint_lt(at, sizeof text);
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_str_eq(group(&g, "add_k")->shapes, "4, scalar");
    const struct rl_trace_group *x = group(&g, "cat64");
    ck_assert_uint_eq(x->counted, 1);
    ck_assert_double_eq(x->flops, 0);
    ck_assert_double_eq(x->bytes[0], 2048);
    x = group(&g, "cat65");
    ck_assert_uint_eq(x->bytes_only + x->counted, 0);
    ck_assert_uint_eq(st.costed, 2); /* add_k and cat64 */
    ck_assert_uint_eq(st.uncosted, 1);
    rl_trace_groups_release(&g);
}
END_TEST

/* A kernel with no External id takes its runtime call's: kx's call (corr 1)
 * names opA (the next calls, corr 2 and 3, name opB, whose span [200, 210]
 * does not hold them). A kernel with both an External id and a
 * correlation goes by its id when that call holds its runtime call, even
 * when the operator comes later in the file: ky (id 5, corr 2 at 305) is
 * opC's [300, 310], not opB's, and kz (id 0, corr 3 at 405) opE's. */
START_TEST(links_by_id_before_runtime)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("opA", 100, 10, "'External id': 10")
        OP("opB", 200, 10, "'External id': 20")
        RT(7, 105, "'correlation': 1, 'External id': 10")
        RT(7, 305, "'correlation': 2, 'External id': 20")
        RT(7, 405, "'correlation': 3, 'External id': 20")
        GPU("kernel", "kx", 0, 1000, 1, ", 'correlation': 1")
        GPU("kernel", "ky", 0, 1010, 1, ", 'correlation': 2, 'External id': 5")
        GPU("kernel", "kz", 0, 1020, 1, ", 'correlation': 3, 'External id': 0")
        OP("opC", 300, 10, "'External id': 5")
        OP("opE", 400, 10, "'External id': 0")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.linked_runtime, 1);
    ck_assert_uint_eq(st.linked_external, 2);
    ck_assert_str_eq(group(&g, "kx")->op, "opA");
    ck_assert_str_eq(group(&g, "ky")->op, "opC");
    ck_assert_str_eq(group(&g, "kz")->op, "opE");
    rl_trace_groups_release(&g);
}
END_TEST

/* One kernel spanning several others' intervals merges them all: on device
 * 0, [0, 1], [2, 3], [4, 5], [6, 7], then [0.5, 4.5] joins the first three
 * into [0, 5] and [6.5, 10] extends [6, 7]: busy 5 + 4 = 9 us of 10. */
START_TEST(busy_merges_several)
{
    static const char text[] =
        "{'traceEvents': [\n"
        GPU("kernel", "a", 0, 0, 1, "")
        GPU("kernel", "b", 0, 2, 1, "")
        GPU("kernel", "c", 0, 4, 1, "")
        GPU("kernel", "d", 0, 6, 1, "")
        GPU("kernel", "e", 0, 0.5, 4, "")
        GPU("kernel", "f", 0, 6.5, 3.5, "")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_double_eq_tol(st.busy_ns, 9000, 1e-6);
    ck_assert_double_eq_tol(st.span_ns, 10000, 1e-6);
    rl_trace_groups_release(&g);
}
END_TEST

/* The groups come in the order of their first kernel read, also when that
 * kernel is added last: op1's longest kernel kA (read first, 5 us) carries
 * its cost and is added at the end, after op1's shorter kA (read third)
 * and the unlinked kB (read second): the kA group still comes first. */
START_TEST(group_order_first_read)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("op1", 100, 50, "'External id': 1")
        GPU("kernel", "kA", 0, 1000, 5, ", 'External id': 1")
        GPU("kernel", "kB", 0, 1010, 1, "")
        GPU("kernel", "kA", 0, 1020, 1, ", 'External id': 1")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_str_eq(g.v[0].name, "kA");
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_str_eq(g.v[1].name, "kB");
    rl_trace_groups_release(&g);
}
END_TEST

/* A second trace read into the same groups (a second rank): its groups
 * come in their first-read order after the first trace's, and a kernel
 * that joins one of the first trace's groups takes no place among them.
 * The first trace: kA. The second: kC (held: added after the others), kB,
 * kA (the first's group): kA, then kC, kB. */
START_TEST(group_order_second_trace)
{
    static const char first[] =
        "{'traceEvents': [\n"
        GPU("kernel", "kA", 0, 1000, 1, "")
        "]}\n";
    static const char second[] =
        "{'traceEvents': [\n"
        OP("op1", 100, 10, "'External id': 1")
        GPU("kernel", "kC", 0, 1000, 1, ", 'External id': 1")
        GPU("kernel", "kB", 0, 1010, 1, "")
        GPU("kernel", "kA", 0, 1020, 1, "")
        "]}\n";
    struct rl_trace_groups g, g2;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE], path[4096];
    ck_assert_int_eq(read_trace(second, &g2, &st, err), RL_OK); /* writes link.json */
    rl_trace_groups_release(&g2);
    snprintf(path, sizeof path, "%s/link.json", rl_test_tmpdir());
    char keep[4096];
    snprintf(keep, sizeof keep, "%s/second.json", rl_test_tmpdir());
    ck_assert_int_eq(rename(path, keep), 0);
    ck_assert_int_eq(read_trace(first, &g, &st, err), RL_OK);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_int_eq(rl_torch_load(&g, keep, &st, err), RL_OK);
    ck_assert_uint_eq(g.n, 3);
    ck_assert_str_eq(g.v[0].name, "kA");
    ck_assert_uint_eq(g.v[0].launches, 2);
    ck_assert_str_eq(g.v[1].name, "kC");
    ck_assert_str_eq(g.v[2].name, "kB");
    rl_trace_groups_release(&g);
}
END_TEST

/* One kernel name, three groups: kk of opB (the second operator name),
 * kk of no operator, zz of opA, read in that order, are reported in that
 * order (kk of opB is held and added last; its group is not kk of no
 * operator's though its name's index, 1, is one past no operator's 0).
 * Then kc of opC with shapes ("4", the second shapes text after "") and
 * kc of opC without: two groups, in that order. */
START_TEST(group_order_same_kernel)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("opA", 100, 10, "'External id': 1")
        OP("opB", 200, 10, "'External id': 2")
        GPU("kernel", "kk", 0, 1000, 1, ", 'External id': 2")
        GPU("kernel", "kk", 0, 1010, 1, "")
        GPU("kernel", "zz", 0, 1020, 1, ", 'External id': 1")
        OP("opC", 300, 10, "'External id': 3, 'Input Dims': [[4]], 'Input type': ['float']")
        OP("opC", 400, 10, "'External id': 4")
        GPU("kernel", "kc", 0, 1030, 1, ", 'External id': 3")
        GPU("kernel", "kc", 0, 1040, 1, ", 'External id': 4")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(read_trace(text, &g, &st, err), RL_OK);
    ck_assert_uint_eq(g.n, 5);
    ck_assert_str_eq(g.v[0].name, "kk");
    ck_assert_str_eq(g.v[0].op, "opB");
    ck_assert_str_eq(g.v[1].name, "kk");
    ck_assert_ptr_null(g.v[1].op);
    ck_assert_str_eq(g.v[2].name, "zz");
    ck_assert_str_eq(g.v[2].op, "opA");
    ck_assert_str_eq(g.v[3].name, "kc");
    ck_assert_str_eq(g.v[3].shapes, "4");
    ck_assert_str_eq(g.v[4].name, "kc");
    ck_assert_ptr_null(g.v[4].shapes);
    rl_trace_groups_release(&g);
}
END_TEST

static Suite *torch_link_suite(void)
{
    Suite *s = suite_create("torch_link");
    TCase *core = tcase_create("core");
    tcase_add_test(core, timeline_per_device);
    tcase_add_test(core, epoch_fractions);
    tcase_add_test(core, linking_and_carriers);
    tcase_add_test(core, top_unknown_operators);
    tcase_add_test(core, collective_bytes);
    tcase_add_test(core, comm_memo_by_operator);
    tcase_add_test(core, collective_bytes_up_to_seven_calls_out);
    tcase_add_test(core, collective_message_sizes);
    tcase_add_test(core, collective_linked_by_id);
    tcase_add_test(core, concrete_numbers_and_lists);
    tcase_add_test(core, same_start_and_zero_ids);
    tcase_add_test(core, roof_from_dtype_counts);
    tcase_add_test(core, stats_add_every_field);
    tcase_add_test(core, links_by_id_before_runtime);
    tcase_add_test(core, busy_merges_several);
    tcase_add_test(core, group_order_first_read);
    tcase_add_test(core, group_order_same_kernel);
    tcase_add_test(core, group_order_second_trace);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, one_kernel);
    tcase_add_test(limits, notes_limits);
    tcase_add_test(limits, shapes_and_dims);
    tcase_add_test(limits, dims_not_numbers);
    tcase_add_test(limits, zero_byte_copies);
    tcase_add_test(limits, scalars_and_argument_limit);
    tcase_add_test(limits, long_shapes);
    tcase_add_test(limits, old_spellings);
    tcase_add_test(limits, sniffing);
    tcase_add_test(limits, malformed);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(torch_link_suite()); }
