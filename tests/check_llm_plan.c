/* check_llm_plan.c - tests of where a layout's groups land (nodes, the system's fabric or the GPU's own links with the system's NICs) and of the plan's enumeration, against hand-worked values. */
#include "test_util.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/system.h"
#include "analyzer/llm/layout.h"
#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/llm/plan.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/util/error.h"
#include "analyzer/util/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char data[1024];
static struct rl_gpu_spec h100, gb200;
static struct rl_ceilings c;
static struct rl_systemdb systems;

static const struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};

static void setup(void)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_data_dir(data, sizeof data, err), 0);
    h100 = *rl_test_gpu("h100-sxm");
    gb200 = *rl_test_gpu("gb200"); /* the GPU of gb200-nvl72 */
    ck_assert_int_eq(rl_ceilings_init(&c, &h100, NULL, NULL, false, false, NULL, err), 0);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/systems", data);
    ck_assert_msg(rl_systemdb_load(&systems, dir, NULL, err) == 0, "%s", err);
}

static void teardown(void)
{
    rl_systemdb_release(&systems);
}

static struct rl_llm_model load(const char *id)
{
    struct rl_llm_model m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_model_load(&m, data, id, err) == 0, "%s: %s", id, err);
    return m;
}

static const struct rl_llm_comm *find_comm(const struct rl_llm_step *s, const char *name)
{
    for (int i = 0; i < s->n_comm; i++)
        if (strcmp(s->comm[i].name, name) == 0)
            return &s->comm[i];
    ck_abort_msg("no '%s' in the step", name);
    return NULL;
}

static struct rl_comm_prediction predict_on(const struct rl_gpu_spec *g,
                                            const struct rl_system *sys, int gpus, int nodes,
                                            double nic_gbps, int nics, enum rl_collective coll,
                                            double bytes)
{
    struct rl_fabric f;
    struct rl_comm_prediction p;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_fabric_build(&f, g, sys, gpus, nodes, nic_gbps, nics, err) == 0, "%s", err);
    ck_assert_msg(rl_comm_predict(&f, coll, bytes, &p, err) == 0, "%s", err);
    return p;
}

/* Megatron's rank order puts a group of n GPUs at stride k over
 * ceil(n k / per_node) nodes, raised to a divisor of n:
 *   8 at 1 on 8-GPU nodes: 8 <= 8, one node (the boundary);
 *   9 at 1: ceil(9/8) = 2, 9 % 2 != 0 -> 3;  16 at 1: 2;  2 at 8: 16 / 8 = 2;
 *   3 at 4: ceil(12/8) = 2, 3 % 2 -> 3;  2 at 16: 32 / 8 = 4, at most n = 2;
 *   4 at 4: 2;  6 at 4 on 8: ceil(24/8) = 3, 6 % 3 = 0 -> 3;
 *   one GPU, or no node size: 1. */
START_TEST(group_nodes_by_rank_order)
{
    ck_assert_int_eq(rl_llm_group_nodes(8, 1, 8), 1);
    ck_assert_int_eq(rl_llm_group_nodes(9, 1, 8), 3);
    ck_assert_int_eq(rl_llm_group_nodes(16, 1, 8), 2);
    ck_assert_int_eq(rl_llm_group_nodes(2, 8, 8), 2);
    ck_assert_int_eq(rl_llm_group_nodes(3, 4, 8), 3);
    ck_assert_int_eq(rl_llm_group_nodes(2, 16, 8), 2);
    ck_assert_int_eq(rl_llm_group_nodes(4, 4, 8), 2);
    ck_assert_int_eq(rl_llm_group_nodes(6, 4, 8), 3);
    ck_assert_int_eq(rl_llm_group_nodes(2, 4, 8), 1);
    ck_assert_int_eq(rl_llm_group_nodes(1, 64, 8), 1);
    ck_assert_int_eq(rl_llm_group_nodes(16, 1, 0), 1);
    /* a span beyond an int: 65536 x 65536 = 2^32 GPUs over 2^31 nodes of 2,
     * at most n */
    ck_assert_int_eq(rl_llm_group_nodes(65536, 65536, 2), 65536);
}
END_TEST

/* A group inside one node of a system is on the system's fabric: TP 4 of
 * Llama-3-8B prefill (1 x 512 tokens) on a DGX H100: each all-reduce is
 * T H 2 B = 512 x 4096 x 2 = 4,194,304 bytes over 4 GPUs of the system's
 * NVSwitch domain (its intra_link, 450 GB/s), as rl_fabric_build(sys, 4, 1)
 * times it. */
START_TEST(a_group_in_one_node_keeps_the_system)
{
    struct rl_llm_model m = load("llama-3-8b");
    const struct rl_system *dgx = rl_systemdb_find(&systems, "dgx-h100");
    ck_assert_ptr_nonnull(dgx);
    struct rl_llm_net net = {.spec = &h100, .sys = dgx, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 4;
    struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_PREFILL, 1, 512, &c, &net, &s, err) == 0,
                  "%s", err);
    const struct rl_llm_comm *tp = find_comm(&s, "TP all-reduce");
    ck_assert_double_eq(tp->bytes, 4194304);
    ck_assert_str_eq(tp->link, dgx->intra_link);
    ck_assert_double_eq(tp->link_gbs, 450);
    ck_assert_double_eq(tp->nic_share, 1);
    struct rl_comm_prediction want =
        predict_on(&h100, dgx, 4, 1, NAN, 0, RL_COLL_ALLREDUCE, 4194304);
    ck_assert_double_eq_tol(tp->time_us, want.time_us, 1e-9);
}
END_TEST

/* DP 2 of TP 8 training on two DGX H100: one GPU of each node per DP
 * group (2 GPUs at stride 8: 2 nodes). Its fabric is the GPU's own links
 * with the system's NICs (8 x 400 Gb/s = 400 GB/s a node, their origin the
 * system file's datasheet); the node's 8 DP groups share those NICs, so
 * each gradient all-reduce moves 8 x its bytes through them:
 * rl_fabric_build(h100, no system, 2, 2, 400, 8) at 8 x 2 x params bytes.
 * On the system's fabric instead a GPU would get an eighth of the NICs
 * (50 GB/s) and the 8 x again: 8 times too slow. */
START_TEST(a_group_across_nodes_uses_the_system_nics)
{
    struct rl_llm_model m = load("llama-3-8b");
    const struct rl_system *dgx = rl_systemdb_find(&systems, "dgx-h100");
    struct rl_llm_net net = {.spec = &h100, .sys = dgx, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 8;
    l.dp = 2;
    l.train = true;
    struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 2, 512, &c, &net, &s, err) == 0, "%s",
                  err);
    const struct rl_llm_split sp = rl_llm_layout_split(&l);
    const double grads = 2 * rl_llm_params_per_gpu(&m, &sp);
    const struct rl_llm_comm *dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_int_eq(dp->gpus, 2);
    ck_assert_double_eq(dp->bytes, grads);
    ck_assert_double_eq(dp->calls, 1);
    ck_assert(!dp->in_pipeline);
    ck_assert_double_eq(dp->nic_share, 1.0 / 8);
    ck_assert_double_eq(dp->link_gbs, 400);
    ck_assert_int_eq(dp->link_origin, RL_ORIGIN_DATASHEET);
    struct rl_comm_prediction want =
        predict_on(&h100, NULL, 2, 2, 400, 8, RL_COLL_ALLREDUCE, 8 * grads);
    ck_assert_double_eq_tol(dp->time_us, want.time_us, 1e-6);
    /* the same with the NIC rate given (--nic-gbps 400, one NIC per GPU):
     * the user's figure, analytic */
    net.nic_gbps = 400;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 2, 512, &c, &net, &s, err), 0);
    dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_double_eq(dp->link_gbs, 400);
    ck_assert_int_eq(dp->link_origin, RL_ORIGIN_ANALYTIC);
    ck_assert_double_eq_tol(dp->time_us, want.time_us, 1e-6);
}
END_TEST

/* A GB200 NVL72's NVLink domain spans its trays (72 GPUs, 4 a tray): DP 2
 * of TP 4 crosses two trays but stays in the domain, on the system's
 * fabric: 900 GB/s of NVLink 5, not the trays' NICs. The tray's 4 DP
 * groups are counted as sharing it (4 x the bytes), as rl_fabric_build(
 * nvl72, 2, 2) at 4 x 2 x params. */
START_TEST(a_domain_wider_than_a_node_keeps_the_system)
{
    struct rl_llm_model m = load("llama-3-8b");
    const struct rl_system *nvl = rl_systemdb_find(&systems, "gb200-nvl72");
    ck_assert_ptr_nonnull(nvl);
    ck_assert_int_eq(nvl->gpus_per_node, 4);
    struct rl_llm_net net = {.spec = &gb200, .sys = nvl, .gpus_per_node = 4, .nic_gbps = NAN};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 4;
    l.dp = 2;
    l.train = true;
    struct rl_ceilings cb;
    struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_ceilings_init(&cb, &gb200, NULL, NULL, false, false, NULL, err), 0);
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 2, 512, &cb, &net, &s, err) == 0,
                  "%s", err);
    const struct rl_llm_split sp = rl_llm_layout_split(&l);
    const double grads = 2 * rl_llm_params_per_gpu(&m, &sp);
    const struct rl_llm_comm *dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_str_eq(dp->link, nvl->intra_link);
    ck_assert_double_eq(dp->link_gbs, 900);
    struct rl_comm_prediction want =
        predict_on(&gb200, nvl, 2, 2, NAN, 0, RL_COLL_ALLREDUCE, 4 * grads);
    ck_assert_double_eq_tol(dp->time_us, want.time_us, 1e-6);
}
END_TEST

/* The microbatch count of a layout is the fastest of M = 1, then pp, 2 pp,
 * ... and the GPU's every sequence: a prefill of 12 sequences of 2048 on
 * PP 4 (one GPU a stage) tries M = 1, 4, 8 and 12 (16 > 12: the 12
 * sequences). The plan's PP 4 candidate must be the fastest of those four
 * steps, each timed here by rl_llm_step. */
START_TEST(plan_picks_the_fastest_microbatches)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 4, .max_tp = 8, .phase = RL_LLM_PREFILL,
                                      .batch = 12, .seq = 2048};
    struct rl_llm_plan plan;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err) == 0, "%s",
                  err);
    /* 4 = tp x pp x dp, tp in 1, 2, 4: (1,1,4) (1,2,2) (1,4,1) (2,1,2) (2,2,1) (4,1,1) */
    ck_assert_uint_eq(plan.n, 6);
    ck_assert_uint_eq(plan.n_fit, 6);
    ck_assert_uint_eq(plan.n_skipped, 0);
    const struct rl_llm_candidate *pp4 = NULL;
    for (size_t i = 0; i < plan.n; i++)
        if (plan.c[i].step.layout.pp == 4)
            pp4 = &plan.c[i];
    ck_assert_ptr_nonnull(pp4);
    static const int tries[] = {1, 4, 8, 12};
    double best = INFINITY;
    int best_m = 0;
    for (int k = 0; k < 4; k++) {
        struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
        l.pp = 4;
        l.microbatches = tries[k];
        static struct rl_llm_step s;
        ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_PREFILL, 12, 2048, &c, &net, &s, err),
                         0);
        if (s.time_ns < best) {
            best = s.time_ns;
            best_m = tries[k];
        }
    }
    ck_assert_int_eq(pp4->step.layout.microbatches, best_m);
    ck_assert_double_eq(pp4->step.time_ns, best);
    /* tokens per second: 12 x 2048 tokens in the step */
    ck_assert_double_eq_tol(pp4->tokens_per_s, 12 * 2048 / (best / 1e9), 1e-6);
    rl_llm_plan_release(&plan);
    ck_assert_ptr_null(plan.c);
    ck_assert_uint_eq(plan.n, 0);
}
END_TEST

/* Ties rank by the fewer stages, then the less TP: a model known by its
 * parameter count alone (1e12: nothing fits on 4 H100s) has the same
 * memory per GPU, its model states as ZeRO counts them (16 B a parameter)
 * over TP x PP, 16 x 1e12 / 4 = 4e12, on every split of its 4 GPUs into
 * TP x PP (DP 1): TP 4 x PP 1, TP 2 x PP 2, TP 1 x PP 4, in that order,
 * before the splits that keep more of it per GPU. Its memory does not
 * depend on the microbatches either (no activations counted): of the
 * counts tried for 8 sequences (1, then PP, 2 PP, ... 8), the first, 1,
 * is kept. */
START_TEST(plan_ties_rank_by_stages_then_tp)
{
    struct rl_llm_model m;
    rl_llm_model_of_params(&m, 1e12);
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 4, .max_tp = 8, .phase = RL_LLM_DECODE,
                                      .batch = 8, .seq = 2048};
    struct rl_llm_plan plan;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err) == 0, "%s",
                  err);
    ck_assert_uint_eq(plan.n_fit, 0);
    static const int want[3][2] = {{4, 1}, {2, 2}, {1, 4}};
    for (int i = 0; i < 3; i++) {
        const struct rl_llm_layout *l = &plan.c[i].step.layout;
        ck_assert_msg(l->tp == want[i][0] && l->pp == want[i][1] && l->dp == 1,
                      "#%d: TP %d PP %d DP %d", i, l->tp, l->pp, l->dp);
        ck_assert(!plan.c[i].fits);
        ck_assert_double_eq(plan.c[i].mem.total_bytes, 4e12);
        ck_assert_int_eq(l->microbatches, 1);
    }
    ck_assert_double_gt(plan.c[3].mem.total_bytes, plan.c[0].mem.total_bytes);
    rl_llm_plan_release(&plan);
}
END_TEST

/* More layouts than the plan's first 64 slots: Llama-3-8B (32 heads, 32
 * layers) on 5040 = 2^4 3^2 5 7 GPUs. tp in 1, 2, 4, 8; pp a divisor of
 * 5040 / tp of at most 32 layers; dp the rest:
 *   5040: 1 2 3 4 5 6 7 8 9 10 12 14 15 16 18 20 21 24 28 30     20
 *   2520: the same but 16                                          19
 *   1260: also without 8 and 24                                    17
 *    630: also without 4, 12, 20, 28                               13
 * 69 in all. */
START_TEST(plan_grows_past_its_first_slots)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 8, .nic_gbps = 400,
                             .nics_per_node = 8};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 5040, .max_tp = 8, .phase = RL_LLM_DECODE,
                                      .batch = 5040, .seq = 128};
    struct rl_llm_plan plan;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err) == 0, "%s",
                  err);
    ck_assert_uint_eq(plan.n, 69);
    ck_assert_uint_eq(plan.n_fit, 69);
    int seen[9][33] = {{0}};
    for (size_t i = 0; i < plan.n; i++) {
        const struct rl_llm_layout *l = &plan.c[i].step.layout;
        ck_assert_int_eq(l->tp * l->pp * l->dp * l->ep, 5040);
        ck_assert_int_le(l->tp, 8);
        ck_assert_int_le(l->pp, 32);
        ck_assert_int_eq(seen[l->tp][l->pp]++, 0); /* each split once */
        if (i + 1 < plan.n)
            ck_assert_double_le(plan.c[i].step.time_ns, plan.c[i + 1].step.time_ns);
    }
    rl_llm_plan_release(&plan);
}
END_TEST

/* The fewest GPUs that hold a model are those whose plan has a layout
 * that fits: Llama-3-70B trained at batch 512 x 2048 on H100s (75 GB
 * usable of 80: 1 GB + 5% reserve) in DGX H100 nodes. No plan of 1 to 31
 * GPUs fits (the least memory at 16 is 101.43 GB, TP 8 x PP 2); at 32,
 * TP 8 x PP 4 x DP 1 holds it with 512 microbatches of one sequence:
 * 20 of the 80 layers a stage, activations of at most 4 microbatches in
 * flight, 67.20 GB a GPU. The old search tried one microbatch (all 512
 * sequences' activations at once) and said no layout of up to 4096 GPUs
 * held it, while the plan of 32 listed this one. */
START_TEST(fewest_gpus_agree_with_the_plans)
{
    struct rl_llm_model m = load("llama-3-70b");
    const struct rl_system *dgx = rl_systemdb_find(&systems, "dgx-h100");
    ck_assert_ptr_nonnull(dgx);
    struct rl_llm_net net = {.spec = &h100, .sys = dgx, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    ck_assert_double_eq_tol(cap.usable_bytes, 75e9, 1);
    struct rl_llm_plan_request req = {.gpus = 16, .max_tp = 8, .phase = RL_LLM_TRAIN,
                                      .batch = 512, .seq = 2048};
    char err[RL_ERRMSG_SIZE];
    int gpus = -1;
    struct rl_llm_candidate best;
    ck_assert_msg(rl_llm_plan_min_gpus(&m, &bf16, &req, &c, &net, &cap, 4096, &gpus, &best,
                                       err) == 0, "%s", err);
    ck_assert_int_eq(gpus, 32);
    ck_assert_int_eq(best.step.layout.tp, 8);
    ck_assert_int_eq(best.step.layout.pp, 4);
    ck_assert_int_eq(best.step.layout.dp, 1);
    ck_assert_int_eq(best.step.layout.microbatches, 512);
    ck_assert(best.fits);
    ck_assert_double_eq_tol(best.mem.total_bytes / 1e9, 67.20, 0.005);
    for (int n = 1; n <= 32; n++) { /* every smaller plan fits none; 32's fits one */
        struct rl_llm_plan plan;
        req.gpus = n;
        int rc = rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err);
        if (rc == RL_EINVAL)
            continue;
        ck_assert_msg(rc == 0, "%d: %s", n, err);
        ck_assert_msg(plan.n_fit == (n == 32 ? 1u : 0u), "%d GPUs: %zu fit", n, plan.n_fit);
        rl_llm_plan_release(&plan);
    }
    /* none up to the limit: 0; a limit below the answer: 0 too */
    req.gpus = 16;
    ck_assert_int_eq(rl_llm_plan_min_gpus(&m, &bf16, &req, &c, &net, &cap, 31, &gpus, NULL,
                                          err), 0);
    ck_assert_int_eq(gpus, 0);
    req.phase = RL_LLM_DECODE;
    req.batch = 1;
    ck_assert_int_eq(rl_llm_plan_min_gpus(&m, &bf16, &req, &c, &net, &cap, 4096, &gpus, NULL,
                                          err), 0);
    ck_assert_int_eq(gpus, 2); /* 141.11 GB of weights: 2 GPUs at 70.6 GB + KV, TP 2 */
}
END_TEST

/* Layouts the collective model cannot time (a group across nodes and no
 * NIC rate) are skipped and counted, the first one's reason kept. One GPU
 * a node (gpus_per_node 1), 2 GPUs, decode: the loop meets (tp 1, pp 1,
 * dp 2) - replicas do not talk, kept -, then (1, 2, 1): PP send/recv
 * across the 2 nodes, skipped first, then (2, 1, 1): TP all-reduce across
 * them, skipped. In training (1, 1, 2) needs its gradient all-reduce too:
 * all three skipped: RL_EINVAL with the first reason, the DP all-reduce's,
 * and nothing left to release. */
START_TEST(plan_skips_what_it_cannot_time)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 1, .nic_gbps = NAN};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 2, .max_tp = 8, .phase = RL_LLM_DECODE,
                                      .batch = 2, .seq = 128};
    struct rl_llm_plan plan;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err) == 0, "%s",
                  err);
    ck_assert_uint_eq(plan.n, 1);
    ck_assert_int_eq(plan.c[0].step.layout.dp, 2);
    ck_assert_uint_eq(plan.n_skipped, 2);
    ck_assert_msg(strncmp(plan.skipped_why, "PP send/recv over 2 GPUs on 2 nodes", 35) == 0,
                  "%s", plan.skipped_why);
    rl_llm_plan_release(&plan);

    req.phase = RL_LLM_TRAIN;
    req.batch = 8;
    ck_assert_int_eq(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err), RL_EINVAL);
    ck_assert_msg(strncmp(err, "DP gradient all-reduce over 2 GPUs on 2 nodes", 45) == 0, "%s",
                  err);
    ck_assert_ptr_null(plan.c);
    ck_assert_uint_eq(plan.n, 0);
}
END_TEST

/* No split at all (TP limited to 0 GPUs): RL_EINVAL saying so; a step
 * error other than a group it cannot time (FP8 on an A100, which has no
 * FP8 roof) ends the plan with that error. */
START_TEST(plan_errors)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 8, .max_tp = 0, .phase = RL_LLM_DECODE,
                                      .batch = 8, .seq = 128};
    struct rl_llm_plan plan;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_int_eq(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err), RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "no split of 8 GPUs holds"));
    ck_assert_ptr_null(plan.c);

    const struct rl_gpu_spec *a100 = rl_test_gpu("a100-sxm-80gb");
    struct rl_ceilings ca;
    ck_assert_int_eq(rl_ceilings_init(&ca, a100, NULL, NULL, false, false, NULL, err), 0);
    const struct rl_llm_config fp8 = {.precision = RL_LLM_FP8, .kv = RL_LLM_KV_FP8};
    net.spec = a100;
    req.max_tp = 8;
    ck_assert_int_eq(rl_llm_plan_build(&m, &fp8, &req, &ca, &net, &cap, &plan, err),
                     RL_EUNSUPPORTED);
    ck_assert_ptr_null(plan.c);
    ck_assert_uint_eq(plan.n, 0);
}
END_TEST

/* Which splits a model takes (rl_llm_split_check), on a model built here:
 * 24 heads, 8 KV heads, MLP 4800, 10 layers, 8 experts.
 *   every degree at least 1: tp, pp or ep 0 refused, each alone;
 *   TP must divide heads and MLP: 24 and 4800 by 3, 6, 12, 24 yes; 5
 *   (4800 yes, 24 no) and 9 (neither) no; TP against the KV heads: 4
 *   divides 8, 24 is a multiple of 8, 12 neither: refused; 2 and 8 fine;
 *   PP at most the layers: 10 yes, 11 no; EP divides the experts: 8 and 2
 *   yes, 3 and 16 no; a dense model: EP 2 no, said so. A model of a
 *   parameter count alone splits any way (degrees still at least 1). */
START_TEST(split_check_limits)
{
    struct rl_llm_model m;
    memset(&m, 0, sizeof m);
    strcpy(m.name, "M");
    m.layers = 10;
    m.hidden = 2400;
    m.ffn = 4800;
    m.heads = 24;
    m.kv_heads = 8;
    m.head_dim = 100;
    m.vocab = 1000;
    m.experts = 8;
    m.experts_per_token = 2;
    char err[RL_ERRMSG_SIZE];
#define SPLIT(t, p, e) rl_llm_split_check(&m, &(struct rl_llm_split){.tp = t, .pp = p, .ep = e}, err)
    ck_assert_int_eq(SPLIT(1, 1, 1), 0);
    ck_assert_int_eq(SPLIT(0, 1, 1), RL_EINVAL);
    ck_assert_int_eq(SPLIT(1, 0, 1), RL_EINVAL);
    ck_assert_int_eq(SPLIT(1, 1, 0), RL_EINVAL);
    ck_assert_str_eq(err, "every degree of a layout is at least 1");
    ck_assert_int_eq(SPLIT(2, 1, 1), 0);
    ck_assert_int_eq(SPLIT(8, 1, 1), 0);
    ck_assert_int_eq(SPLIT(24, 1, 1), 0);
    ck_assert_int_eq(SPLIT(5, 1, 1), RL_EINVAL);
    ck_assert_str_eq(err, "TP 5 does not divide M's 24 heads and MLP width 4800");
    ck_assert_int_eq(SPLIT(9, 1, 1), RL_EINVAL);
    m.ffn = 4810; /* 24 heads by 6 yes, 4810 by 6 no */
    ck_assert_int_eq(SPLIT(6, 1, 1), RL_EINVAL);
    m.ffn = 4800;
    ck_assert_int_eq(SPLIT(4, 1, 1), 0);
    ck_assert_int_eq(SPLIT(12, 1, 1), RL_EINVAL);
    ck_assert_str_eq(err, "TP 12 neither divides nor is a multiple of M's 8 KV heads");
    ck_assert_int_eq(SPLIT(1, 10, 1), 0);
    ck_assert_int_eq(SPLIT(1, 11, 1), RL_EINVAL);
    ck_assert_str_eq(err, "PP 11 is more stages than M's 10 layers");
    ck_assert_int_eq(SPLIT(1, 1, 8), 0);
    ck_assert_int_eq(SPLIT(1, 1, 2), 0);
    ck_assert_int_eq(SPLIT(1, 1, 3), RL_EINVAL);
    ck_assert_str_eq(err, "EP 3 does not divide M's 8 experts");
    ck_assert_int_eq(SPLIT(1, 1, 16), RL_EINVAL);
    m.experts = 1;
    ck_assert_int_eq(SPLIT(1, 1, 1), 0);
    ck_assert_int_eq(SPLIT(1, 1, 2), RL_EINVAL);
    ck_assert_str_eq(err, "EP 2 does not divide M's 1 experts (a dense model: EP 1)");
    struct rl_llm_model p;
    rl_llm_model_of_params(&p, 7e9);
    ck_assert_int_eq(rl_llm_split_check(&p, &(struct rl_llm_split){.tp = 7, .pp = 99, .ep = 5},
                                        err),
                     0);
    ck_assert_int_eq(rl_llm_split_check(&p, &(struct rl_llm_split){.tp = 1, .pp = 0, .ep = 1},
                                        err),
                     RL_EINVAL);
#undef SPLIT
}
END_TEST

/* A MoE's parameters per GPU (rl_llm_params_per_gpu) on each split of
 * Mixtral-8x7B (H 4096, MLP 14336 gated, 32 heads of 128, 8 KV heads, 32
 * layers, vocabulary 32000 untied, 8 experts). Per layer on TP t, EP e:
 *   attention  H (32/t + 2 x 8/t) 128 + (32/t) 128 H
 *   experts    8/e x 3 H (14336/t)
 *   the rest   2 H norms + H x 8 router
 * plus the embedding and LM head (V/t x H each; one of them a stage on a
 * pipeline) and the final norm H:
 *   1 x 1 x 1: 32 x 1,451,270,144 + 262,148,096 = 46,702,792,704
 *   EP 8:      32 x   218,144,768 + 262,148,096 =  7,242,780,672
 *   EP 2:      32 x   746,627,072 + 262,148,096 = 24,154,214,400
 *   TP 2, PP 2, EP 4: 16 x 197,173,248 + 65,536,000 + 4096 = 3,220,312,064 */
START_TEST(moe_params_per_gpu)
{
    struct rl_llm_model m = load("mixtral-8x7b");
#define PARAMS(t, p, e) rl_llm_params_per_gpu(&m, &(struct rl_llm_split){.tp = t, .pp = p, .ep = e})
    ck_assert_double_eq(PARAMS(1, 1, 1), 46702792704.0);
    ck_assert_double_eq(PARAMS(1, 1, 8), 7242780672.0);
    ck_assert_double_eq(PARAMS(1, 1, 2), 24154214400.0);
    ck_assert_double_eq(PARAMS(2, 2, 4), 3220312064.0);
#undef PARAMS
}
END_TEST

/* A training plan carries the request's options to every split: virtual
 * stages only where the stage's layers split into them (GPT-3's 96 layers
 * into 3 chunks: PP 2, 4, 8 yes), sequence parallelism, recomputation;
 * with an efficiency, each candidate is its bound / e (nothing overlaps
 * here: overlap none), with the same layout and microbatches. */
START_TEST(plan_carries_the_training_options)
{
    struct rl_llm_model m = load("gpt-3-175b");
    struct rl_llm_net net = {.spec = &h100, .sys = rl_systemdb_find(&systems, "dgx-h100"),
                             .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 64, .max_tp = 8, .phase = RL_LLM_TRAIN,
                                      .batch = 64, .seq = 2048,
                                      .recompute = RL_LLM_RECOMPUTE_SELECTIVE,
                                      .seq_parallel = true, .virtual_stages = 3};
    static struct rl_llm_plan bound, pred;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &bound, err) == 0, "%s",
                  err);
    req.efficiency = 0.5;
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &pred, err) == 0, "%s",
                  err);
    ck_assert_uint_eq(bound.n, pred.n);
    ck_assert_uint_gt(bound.n_fit, 0);
    for (size_t i = 0; i < bound.n; i++) {
        const struct rl_llm_layout *l = &bound.c[i].step.layout;
        const int want_v = l->pp > 1 && 96 % (l->pp * 3) == 0 ? 3 : 1;
        ck_assert_int_eq(l->virtual_stages, want_v);
        ck_assert_int_eq(l->recompute, RL_LLM_RECOMPUTE_SELECTIVE);
        ck_assert(l->seq_parallel);
        ck_assert(!bound.c[i].step.predicted);
        /* the same layout at e = 0.5 takes twice as long */
        for (size_t j = 0; j < pred.n; j++) {
            const struct rl_llm_layout *q = &pred.c[j].step.layout;
            if (q->tp == l->tp && q->pp == l->pp && q->dp == l->dp &&
                q->microbatches == l->microbatches) {
                ck_assert(pred.c[j].step.predicted);
                ck_assert_double_eq_tol(pred.c[j].step.time_ns, 2 * bound.c[i].step.time_ns,
                                        1e-9 * bound.c[i].step.time_ns);
            }
        }
    }
    rl_llm_plan_release(&bound);
    rl_llm_plan_release(&pred);
}
END_TEST

static Suite *plan_suite(void)
{
    Suite *s = suite_create("llm_plan");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_add_test(core, group_nodes_by_rank_order);
    tcase_add_test(core, moe_params_per_gpu);
    tcase_add_test(core, a_group_in_one_node_keeps_the_system);
    tcase_add_test(core, a_group_across_nodes_uses_the_system_nics);
    tcase_add_test(core, a_domain_wider_than_a_node_keeps_the_system);
    tcase_add_test(core, plan_picks_the_fastest_microbatches);
    tcase_add_test(core, plan_ties_rank_by_stages_then_tp);
    tcase_add_test(core, plan_grows_past_its_first_slots);
    tcase_add_test(core, fewest_gpus_agree_with_the_plans);
    tcase_add_test(core, plan_carries_the_training_options);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_add_test(limits, plan_skips_what_it_cannot_time);
    tcase_add_test(limits, plan_errors);
    tcase_add_test(limits, split_check_limits);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(plan_suite()); }
