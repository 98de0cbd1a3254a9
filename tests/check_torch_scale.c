/* check_torch_scale.c - the PyTorch trace reader past its first allocations: more than 256 operators the cost table does not know (the per-name tallies grow), more than 2^16 idle gaps on one device (the busy intervals' older half is folded into a sum), and thousands of GPU activities waiting for their runtime call; traces written by loops, every number worked out in the comments. */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"
#include "analyzer/readers/torch-internal.h"
#include "analyzer/util/error.h"
#include "tests/test_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace file being written: its path and stream. */
struct trace_out {
    char path[4096];
    FILE *f;
};

static void trace_open(struct trace_out *o, const char *name)
{
    snprintf(o->path, sizeof o->path, "%s/%s", rl_test_tmpdir(), name);
    o->f = fopen(o->path, "w");
    ck_assert_ptr_nonnull(o->f);
    fputs("{\"traceEvents\": [\n", o->f);
}

/* Close the event list (first: no comma before the closing event) and read. */
static int trace_read(struct trace_out *o, struct rl_trace_groups *g, struct rl_torch_stats *st,
                      char *err)
{
    fputs("{\"ph\": \"i\", \"cat\": \"marker\", \"name\": \"end\", \"ts\": 0}\n]}\n", o->f);
    ck_assert_int_eq(fclose(o->f), 0);
    memset(g, 0, sizeof *g);
    return rl_torch_load(g, o->path, st, err);
}

static void kernel(FILE *f, const char *name, int device, double ts_us, double dur_us,
                   long ext)
{
    fprintf(f,
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
            "\"ts\": %.17g, \"dur\": %.17g, \"args\": {\"device\": %d",
            name, ts_us, dur_us, device);
    if (ext >= 0)
        fprintf(f, ", \"External id\": %ld", ext);
    fputs("}},\n", f);
}

/* 300 operators no cost table knows, op0 .. op299, each launching one
 * kernel of (i + 1) us: the tallies per operator name start at 256 names
 * and double when op256 (name 256) comes, so it must land in the grown
 * part. Every one is counted, and the 8 largest are op299 (300 us) down to
 * op292 (293 us), one launch each. Kernel i runs at 1000 i us, so the
 * device is busy 1 + 2 + ... + 300 = 300 x 301 / 2 = 45150 us of the
 * 1000 x 299 + 300 = 299300 us from the first start to the last end. */
START_TEST(many_unknown_operators)
{
    struct trace_out o;
    trace_open(&o, "unknown300.json");
    for (int i = 0; i < 300; i++) {
        fprintf(o.f,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"External id\": %d}},\n",
                i, 10 * i, i);
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        kernel(o.f, name, 0, 1000.0 * i, i + 1, i);
    }
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(trace_read(&o, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, 300);
    ck_assert_uint_eq(st.linked_external, 300);
    ck_assert_uint_eq(st.uncosted, 300);
    ck_assert_uint_eq(st.unknown_ops, 300);
    ck_assert_uint_eq(st.n_unknown, RL_TORCH_TOP_UNKNOWN);
    for (int k = 0; k < RL_TORCH_TOP_UNKNOWN; k++) {
        char want[16];
        snprintf(want, sizeof want, "op%d", 299 - k);
        ck_assert_str_eq(st.unknown[k].op, want);
        ck_assert_double_eq_tol(st.unknown[k].time_ns, (300 - k) * 1000.0, 1e-6);
        ck_assert_uint_eq(st.unknown[k].launches, 1);
    }
    ck_assert_double_eq_tol(st.busy_ns, 45150e3, 1e-3);
    ck_assert_double_eq_tol(st.span_ns, 299300e3, 1e-3);
    ck_assert_uint_eq(g.n, 300);
    rl_trace_groups_release(&g);
}
END_TEST

/* One device, N = 65540 kernels every 2 us (kernel i starts at 2i), of
 * 1 us for i < 32768 and 0.5 us after: 65540 disjoint intervals, busy
 * 32768 x 1 + 32772 x 0.5 = 49154 us. When the 65537th comes the 65536
 * kept are full: the older half, 32768 intervals, is folded into 32768 us
 * of busy time ending at 2 x 32767 + 1 = 65535 us (the kept half moves to
 * the front; the folded ones, of another length, must not stay). Then
 * two late kernels, read last:
 *   [10, 10.5]: inside the folded part (kernel 5 ran on [10, 11]): adds 0;
 *   [65534.5, 65535.5]: starts inside the folded part (kernel 32767 ran on
 *     [65534, 65535]) and ends 0.5 us past it, before kernel 32768 starts
 *     at 65536: adds 0.5 us;
 *   [131072.25, 131072.75]: overlaps kernel 65536 ([131072, 131072.5], the
 *     one whose coming folded the rest: it must sit in order after them):
 *     adds 0.25 us.
 * busy = 49154 + 0.5 + 0.25 = 49154.75 us; span from 0 to kernel 65539's
 * end, 2 x 65539 + 0.5 = 131078.5 us; kernel time 49154 + 0.5 + 1 + 0.5 =
 * 49156 us.
 * A second device's one kernel [0, 3] adds 3 us to each. */
/* The interned texts (operator names, signatures, kernel names): a text
 * and a longer one that begins with it are two ids, whichever comes first
 * and however the probe chains run (2,000 pairs: the table grows through
 * 4,096 slots, so many a short text's probe passes over a long one). */
START_TEST(interned_prefixes_are_other_texts)
{
    struct tr_intern t = {0};
    enum { PAIRS = 2000 };
    static long long_id[PAIRS], short_id[PAIRS];
    char text[64];
    for (int i = 0; i < PAIRS; i++) {
        bool added = false;
        int n = snprintf(text, sizeof text, "aten::op_%d_backward", i);
        long_id[i] = tr_intern(&t, text, (size_t)n, &added);
        ck_assert(added);
        ck_assert_int_eq(long_id[i], 2 * i);
        n = snprintf(text, sizeof text, "aten::op_%d", i);
        short_id[i] = tr_intern(&t, text, (size_t)n, &added);
        ck_assert_msg(added, "'%s' found as another text", text);
        ck_assert_int_eq(short_id[i], 2 * i + 1);
    }
    /* every text begins "aten::op_": it and each of its prefixes is a new
     * text (a probe that meets any occupied slot must not take a text
     * that merely begins the same) */
    const char stem[] = "aten::op_";
    for (size_t n = 1; n <= strlen(stem); n++) {
        bool added = false;
        ck_assert_int_eq(tr_intern(&t, stem, n, &added), 2 * PAIRS + (long)n - 1);
        ck_assert_msg(added, "'%.*s' found as another text", (int)n, stem);
    }
    /* each found again as itself, its text whole */
    for (int i = 0; i < PAIRS; i++) {
        bool added = true;
        int n = snprintf(text, sizeof text, "aten::op_%d", i);
        ck_assert_int_eq(tr_intern(&t, text, (size_t)n, &added), short_id[i]);
        ck_assert(!added);
        ck_assert_str_eq(tr_text(&t, (uint32_t)short_id[i]), text);
        n = snprintf(text, sizeof text, "aten::op_%d_backward", i);
        ck_assert_int_eq(tr_intern(&t, text, (size_t)n, &added), long_id[i]);
        ck_assert_str_eq(tr_text(&t, (uint32_t)long_id[i]), text);
    }
    tr_intern_release(&t);
}
END_TEST

START_TEST(busy_intervals_folded)
{
    enum { N = 65540 };
    struct trace_out o;
    trace_open(&o, "busy65540.json");
    for (int i = 0; i < N; i++)
        kernel(o.f, "k", 0, 2.0 * i, i < 32768 ? 1 : 0.5, -1);
    kernel(o.f, "late_inside", 0, 10, 0.5, -1);
    kernel(o.f, "late_across", 0, 65534.5, 1, -1);
    kernel(o.f, "late_after", 0, 131072.25, 0.5, -1);
    kernel(o.f, "other", 1, 0, 3, -1);
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(trace_read(&o, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, N + 4);
    ck_assert_int_eq(st.devices, 2);
    ck_assert_double_eq_tol(st.kernel_time_ns, (49156.0 + 3) * 1e3, 1e-3);
    ck_assert_double_eq_tol(st.busy_ns, (49154.75 + 3) * 1e3, 1e-3);
    ck_assert_double_eq_tol(st.span_ns, (131078.5 + 3) * 1e3, 1e-3);
    rl_trace_groups_release(&g);
}
END_TEST

/* 1100 operators op0 .. op1099, called twice: External ids in falling
 * order, 5000 down to 3901, then 3000 down to 1901. The first call opens
 * the sorted list, the other 2199 go to the id map (1024 slots at first,
 * doubled whenever it would pass half full: 2048, 4096, then 8192 slots).
 * The names, signatures and kernel names pass 512 and 1024 entries too (the
 * interned tables double the same way), and the second calls and kernels
 * find them again. Then the kernels, k<i> for each call of op<i> (1 us
 * each), in the order of the calls, and one kernel whose id (6000) names
 * no call: 2200 linked by External id, each to its own operator, one not
 * linked; 1100 groups of 2 launches plus the stray one; 1100 operators the
 * table does not know, each 2 launches, 2 us: a tie, so the first 8 read
 * (op0 .. op7) are the ones kept. */
START_TEST(external_ids_out_of_order)
{
    enum { N = 1100 };
    struct trace_out o;
    trace_open(&o, "ext1100.json");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N; i++)
            fprintf(o.f,
                    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, "
                    "\"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"External id\": %d}},\n",
                    i, 10 * (pass * N + i), (pass ? 3000 : 5000) - i);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N; i++) {
            char name[16];
            snprintf(name, sizeof name, "k%d", i);
            kernel(o.f, name, 0, 30000.0 + 10 * (pass * N + i), 1, (pass ? 3000 : 5000) - i);
        }
    kernel(o.f, "stray", 0, 60000, 1, 6000);
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(trace_read(&o, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.cpu_ops, 2 * N);
    ck_assert_uint_eq(st.kernels, 2 * N + 1);
    ck_assert_uint_eq(st.linked_external, 2 * N);
    ck_assert_uint_eq(st.unlinked, 1);
    ck_assert_uint_eq(g.n, N + 1);
    /* the groups in the order of their first kernel read: k0 .. k1099, then
     * the stray one (added first: the unlinked are placed before the held
     * carriers of each call's cost) */
    for (int i = 0; i < N; i++) {
        char want[16];
        snprintf(want, sizeof want, "k%d", i);
        ck_assert_str_eq(g.v[i].name, want);
    }
    ck_assert_str_eq(g.v[N].name, "stray");
    for (size_t i = 0; i < g.n; i++) {
        const struct rl_trace_group *x = &g.v[i];
        if (strcmp(x->name, "stray") == 0) {
            ck_assert_ptr_null(x->op);
            ck_assert_uint_eq(x->launches, 1);
            continue;
        }
        ck_assert_ptr_nonnull(x->op);
        ck_assert_str_eq(x->op + 2, x->name + 1); /* k<i> was launched by op<i> */
        ck_assert_uint_eq(x->launches, 2);
    }
    ck_assert_uint_eq(st.unknown_ops, N);
    ck_assert_uint_eq(st.n_unknown, RL_TORCH_TOP_UNKNOWN);
    for (int k = 0; k < RL_TORCH_TOP_UNKNOWN; k++) {
        char want[16];
        snprintf(want, sizeof want, "op%d", k);
        ck_assert_str_eq(st.unknown[k].op, want);
        ck_assert_uint_eq(st.unknown[k].launches, 2);
        ck_assert_double_eq_tol(st.unknown[k].time_ns, 2000, 1e-6);
    }
    rl_trace_groups_release(&g);
}
END_TEST

/* Exactly 1024 groups (the group bookkeeping's first allocation, full):
 * kernels k0 .. k1023, none linked, in the order read; each 1 us at
 * 2 i us: busy 1024 us of 2 x 1023 + 1 = 2047 us. */
START_TEST(groups_first_allocation_full)
{
    enum { N = 1024 };
    struct trace_out o;
    trace_open(&o, "groups1024.json");
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        kernel(o.f, name, 0, 2.0 * i, 1, -1);
    }
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(trace_read(&o, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.unlinked, N);
    ck_assert_uint_eq(g.n, N);
    for (int i = 0; i < N; i++) {
        char want[16];
        snprintf(want, sizeof want, "k%d", i);
        ck_assert_str_eq(g.v[i].name, want);
        ck_assert_uint_eq(g.v[i].launches, 1);
    }
    ck_assert_double_eq_tol(st.busy_ns, 1024e3, 1e-3);
    ck_assert_double_eq_tol(st.span_ns, 2047e3, 1e-3);
    rl_trace_groups_release(&g);
}
END_TEST

/* 3000 operator calls op (ids 1 .. 3000, thread 1, call i at [10 i, 10 i +
 * 5]) and their kernels k, each read before its runtime call (correlation
 * 100000 + i), so each waits for it: the waiting table grows past its 64
 * slots. In two halves: the kernels of calls 0 .. 1499, their runtime
 * calls in falling order, then the same for 1500 .. 2999 (the table, half
 * of it gone by then, is rebuilt). A runtime call of a call i divisible by
 * 3 starts at 10 i + 7, after its call ended: the id collides (1000 of
 * them: 0, 3, .., 2997), and no call holds the launch: not linked. The
 * others start at 10 i + 1: by External id (2000). And 200 kernels g of a
 * CUDA graph under one correlation (99999) and id 1, whose runtime call (at
 * 1, in call 0) comes last: all 200 by External id, on op. */
START_TEST(waiting_for_runtime_calls)
{
    enum { N = 3000, G = 200 };
    struct trace_out o;
    trace_open(&o, "wait3000.json");
    for (int i = 0; i < N; i++)
        fprintf(o.f,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %d, \"dur\": 5, \"args\": {\"External id\": %d}},\n",
                10 * i, i + 1);
    for (int j = 0; j < G; j++)
        fprintf(o.f,
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g\", \"pid\": 0, \"tid\": 7, "
                "\"ts\": %d, \"dur\": 1, \"args\": {\"device\": 0, \"External id\": 1, "
                "\"correlation\": 99999}},\n",
                50000 + j);
    for (int half = 0; half < 2; half++) {
        for (int i = half * N / 2; i < (half + 1) * N / 2; i++)
            fprintf(o.f,
                    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": "
                    "7, \"ts\": %d, \"dur\": 1, \"args\": {\"device\": 0, \"External id\": %d, "
                    "\"correlation\": %d}},\n",
                    60000 + 2 * i, i + 1, 100000 + i);
        for (int i = (half + 1) * N / 2 - 1; i >= half * N / 2; i--)
            fprintf(o.f,
                    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                    "\"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": "
                    "%d}},\n",
                    10 * i + (i % 3 ? 1 : 7), 100000 + i);
    }
    fputs("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"pid\": 1, "
          "\"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": 99999}},\n",
          o.f);
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(trace_read(&o, &g, &st, err), RL_OK);
    ck_assert_uint_eq(st.kernels, N + G);
    ck_assert_uint_eq(st.linked_external, 2000 + G);
    ck_assert_uint_eq(st.relinked, 1000);
    ck_assert_uint_eq(st.unlinked, 1000);
    ck_assert_uint_eq(st.linked_span + st.linked_runtime, 0);
    uint64_t graph = 0, on_op = 0, off = 0;
    for (size_t i = 0; i < g.n; i++) {
        if (strcmp(g.v[i].name, "g") == 0 && g.v[i].op)
            graph += g.v[i].launches;
        else if (g.v[i].op)
            on_op += g.v[i].launches;
        else
            off += g.v[i].launches;
    }
    ck_assert_uint_eq(graph, G);
    ck_assert_uint_eq(on_op, 2000);
    ck_assert_uint_eq(off, 1000);
    rl_trace_groups_release(&g);
}
END_TEST

static Suite *torch_scale_suite(void)
{
    Suite *s = suite_create("torch_scale");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, many_unknown_operators);
    tcase_add_test(core, interned_prefixes_are_other_texts);
    tcase_add_test(core, busy_intervals_folded);
    tcase_add_test(core, external_ids_out_of_order);
    tcase_add_test(core, groups_first_allocation_full);
    tcase_add_test(core, waiting_for_runtime_calls);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(torch_scale_suite()); }
