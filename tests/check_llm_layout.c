/* check_llm_layout.c - tests of an LLM step on a parallel layout: the collectives each split adds (TP, PP, EP, DP/ZeRO), the bubble in the step, what bounds it; the plan; the published Megatron-LM check. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/results.h"
#include "analyzer/comm/system.h"
#include "analyzer/llm/layout.h"
#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/llm/plan.h"
#include "analyzer/model/ceilings.h"
#include "analyzer/model/spec.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char data[1024];
static struct rl_gpu_spec h100;  /* the datasheet, with its NVLink set here */
static struct rl_ceilings c;

static const struct rl_llm_config bf16 = {.precision = RL_LLM_BF16, .kv = RL_LLM_KV_BF16};

static void setup(void)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_data_dir(data, sizeof data, err), 0);
    /* The datasheet's links: NVLink 4, 18 x 25 GB/s per direction = 450,
     * through NVSwitch (the H100 datasheet's 900 GB/s is both directions). */
    h100 = *rl_test_gpu("h100-sxm");
    ck_assert_double_eq(h100.links.gbs, 450);
    ck_assert_str_eq(h100.links.reach, "switch");
    ck_assert_int_eq(rl_ceilings_init(&c, &h100, NULL, NULL, false, false, NULL, err), 0);
}

static struct rl_llm_model load(const char *id)
{
    struct rl_llm_model m;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_model_load(&m, data, id, err) == 0, "%s: %s", id, err);
    return m;
}

static struct rl_llm_net node_net(void)
{
    return (struct rl_llm_net){.spec = &h100, .gpus_per_node = 8, .nic_gbps = NAN};
}

static const struct rl_llm_comm *find_comm(const struct rl_llm_step *s, const char *name)
{
    for (int i = 0; i < s->n_comm; i++)
        if (strcmp(s->comm[i].name, name) == 0)
            return &s->comm[i];
    return NULL;
}

/* The collective model's time for one call (analyzer/comm: its own tests
 * check it; here it is what the step must have used). */
static double predicted_us(enum rl_collective coll, int gpus, int nodes, double nic_gbps,
                           double bytes)
{
    struct rl_fabric f;
    struct rl_comm_prediction p;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_fabric_build(&f, &h100, NULL, gpus, nodes, nic_gbps, 0, err) == 0, "%s",
                  err);
    ck_assert_msg(rl_comm_predict(&f, coll, bytes, &p, err) == 0, "%s", err);
    return p.time_us;
}

START_TEST(tp_all_reduces_per_layer)
{
    /* Llama-3-70B, TP 8, a prefill of 1 x 2048 tokens: per layer two
     * all-reduces of b s h x 2 B = 1 x 2048 x 8192 x 2 = 33,554,432 bytes,
     * 80 layers: 160 per step. On NVLink 4 through NVSwitch (450 GB/s per
     * direction) the ring takes 2 (8 - 1) = 14 hops of 1.9 us and 33.55 MB
     * x 2 x 7/8 / 450 GB/s = 130.49 us: 157.09 us each. */
    struct rl_llm_model m = load("llama-3-70b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 8;
    struct rl_llm_net net = node_net();
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_PREFILL, 1, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    ck_assert_int_eq(s.n_comm, 1);
    const struct rl_llm_comm *tp = find_comm(&s, "TP all-reduce");
    ck_assert_ptr_nonnull(tp);
    ck_assert_str_eq(tp->collective, "allreduce");
    ck_assert_int_eq(tp->gpus, 8);
    ck_assert_double_eq(tp->bytes, 2048.0 * 8192 * 2);
    ck_assert_double_eq(tp->calls, 160);
    ck_assert_double_eq_tol(tp->time_us, 14 * 1.9 + 33554432.0 * 1.75 / 450e9 * 1e6, 0.01);
    ck_assert_double_eq(tp->time_us,
                        predicted_us(RL_COLL_ALLREDUCE, 8, 1, NAN, 2048.0 * 8192 * 2));
    ck_assert_int_eq(tp->origin, RL_ORIGIN_ANALYTIC);
    /* 450 per direction is derived from the datasheet's 900 both ways. */
    ck_assert_int_eq(tp->link_origin, RL_ORIGIN_ANALYTIC);
    ck_assert_ptr_nonnull(strstr(tp->link, "NVLink 4"));
    ck_assert_double_eq_tol(s.comm_ns, 160 * tp->time_us * 1e3, 1e-3);
    ck_assert_double_eq_tol(s.time_ns, s.compute_ns + s.memory_ns + s.comm_ns, 1e-3);
    /* Training with recomputation: 2 forward + 2 backward + 2 recomputed
     * per layer, of the microbatch's tokens (batch 8 over M 8: 1 x 2048). */
    l.train = true;
    l.recompute = true;
    l.microbatches = 8;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 8, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    tp = find_comm(&s, "TP all-reduce");
    ck_assert_double_eq(tp->bytes, 2048.0 * 8192 * 2);
    ck_assert_double_eq(tp->calls, 8 * 80 * 6);
    /* Decode, batch 64: 64 tokens, 64 x 8192 x 2 = 1 MiB each. */
    l = RL_LLM_LAYOUT_ONE;
    l.tp = 8;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 64, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    tp = find_comm(&s, "TP all-reduce");
    ck_assert_double_eq(tp->bytes, 64.0 * 8192 * 2);
    ck_assert_double_eq(tp->calls, 160);
    /* One GPU: nothing to communicate. */
    l.tp = 1;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 1, 2048, &c, &net, &s, err), 0);
    ck_assert_int_eq(s.n_comm, 0);
    ck_assert_double_eq(s.comm_ns, 0);
}
END_TEST

START_TEST(pipeline_bubble_in_the_step)
{
    /* PP 4, M 8 microbatches: the pipeline takes (M + P - 1) t, the bubble
     * (P - 1) t, 3/11 of it. Llama-3-8B, 32 layers: 8 per stage; a training
     * batch of 8 sequences, one per microbatch. The activations cross each
     * stage boundary forward and back: 2 x 8 send/recvs of 2048 x 4096 x 2
     * bytes. */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.pp = 4;
    l.microbatches = 8;
    l.train = true;
    struct rl_llm_net net = node_net();
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 8, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    ck_assert_double_eq_tol(s.bubble_fraction, 3.0 / 11, 1e-15);
    const struct rl_llm_comm *pp = find_comm(&s, "PP send/recv");
    ck_assert_ptr_nonnull(pp);
    ck_assert_double_eq(pp->bytes, 2048.0 * 4096 * 2);
    ck_assert_double_eq(pp->calls, 16);
    ck_assert_int_eq(s.micro.ops[0].count, 8);
    /* The pipeline part is (M + P - 1) t with t one microbatch on a stage
     * (its operators and its share of the send/recvs); the bubble is
     * (P - 1) t: bubble / (pipeline) = 3 / 11. */
    const double pipeline = s.compute_ns + s.memory_ns + s.comm_ns + s.bubble_ns -
                            s.optimizer.time_ns;
    ck_assert_double_eq_tol(s.bubble_ns / pipeline, 3.0 / 11, 1e-9);
    ck_assert_double_eq_tol(s.bubble_ns, 3 * (s.micro.time_ns + 2 * pp->time_us * 1e3), 1e-3);
    ck_assert_ptr_null(strstr(pp->link, "NIC")); /* PP 4 alone: the stages share a node */
    {
        /* TP 2 x DP 4 inside a stage: the next stage is 2 x 1 x 4 = 8 GPUs
         * on, on the next node of 8, so its send/recv crosses the NICs. */
        struct rl_llm_layout l2 = l;
        l2.pp = 2;
        l2.tp = 2;
        l2.dp = 4;
        struct rl_llm_net nics = node_net();
        nics.nic_gbps = 400;
        nics.nics_per_node = 8;
        static struct rl_llm_step s2;
        ck_assert_msg(rl_llm_step(&m, &bf16, &l2, RL_LLM_TRAIN, 32, 2048, &c, &nics, &s2, err) == 0,
                      "%s", err);
        const struct rl_llm_comm *pp2 = find_comm(&s2, "PP send/recv");
        ck_assert_ptr_nonnull(pp2);
        ck_assert_msg(strstr(pp2->link, "NIC") != NULL, "PP link: %s", pp2->link);
    }
    /* The step is its four parts together, the bubble included (3/11 of
     * the pipeline part, so the step is 11/8 of it without the bubble) */
    ck_assert_double_gt(s.bubble_ns, 0);
    ck_assert_double_eq_tol(s.time_ns, s.compute_ns + s.memory_ns + s.comm_ns + s.bubble_ns,
                            1e-9 * s.time_ns);
    ck_assert_double_eq_tol(s.time_ns - s.optimizer.time_ns,
                            (s.time_ns - s.optimizer.time_ns - s.bubble_ns) * 11 / 8,
                            1e-9 * s.time_ns);
    /* FLOPs per GPU: the 8 microbatches' on its stage, and the optimizer's
     * 10 a parameter of the stage (no ZeRO) */
    const struct rl_llm_split sp = rl_llm_layout_split(&l);
    ck_assert_double_eq(s.optimizer.flops, 10 * rl_llm_params_per_gpu(&m, &sp));
    ck_assert_double_gt(s.micro.flops, 0);
    ck_assert_double_eq_tol(s.flops_per_gpu, 8 * s.micro.flops + s.optimizer.flops,
                            1e-9 * s.flops_per_gpu);
}
END_TEST

START_TEST(dp_gradients_and_zero)
{
    /* Llama-3-8B, DP 8, training: the gradients, 2 B x 8,030,261,248
     * parameters = 16,060,522,496 B, all-reduced once per step; ZeRO 1: a
     * reduce-scatter and an all-gather of as many bytes; ZeRO 3: the
     * all-gather twice (forward and backward). */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.dp = 8;
    l.train = true;
    struct rl_llm_net net = node_net();
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 8, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    const struct rl_llm_comm *dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_ptr_nonnull(dp);
    ck_assert_double_eq(dp->bytes, 2 * 8030261248.0);
    ck_assert_double_eq(dp->calls, 1);
    ck_assert(!dp->in_pipeline);
    ck_assert_double_eq_tol(s.comm_ns, dp->time_us * 1e3, 1e-3);
    l.zero = 1;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 8, 2048, &c, &net, &s, err), 0);
    ck_assert_ptr_null(find_comm(&s, "DP gradient all-reduce"));
    ck_assert_double_eq(find_comm(&s, "DP gradient reduce-scatter")->bytes, 2 * 8030261248.0);
    ck_assert_double_eq(find_comm(&s, "ZeRO parameter all-gather")->calls, 1);
    /* ZeRO 1 runs Adam on 1/8 of the parameters: 28 B each. */
    ck_assert_double_eq(s.optimizer.weight_bytes, 28 * 8030261248.0 / 8);
    l.zero = 3;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 8, 2048, &c, &net, &s, err), 0);
    ck_assert_double_eq(find_comm(&s, "ZeRO parameter all-gather")->calls, 2);
    /* DP 16 spans two nodes of 8: without a NIC rate, said. */
    l.dp = 16;
    l.zero = 0;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 16, 2048, &c, &net, &s, err),
                     RL_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "DP gradient all-reduce over 16 GPUs on 2 nodes"));
    /* With 8 x 400 Gb/s NICs a node: the ring crosses the NICs. */
    net.nic_gbps = 400;
    net.nics_per_node = 8;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 16, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_double_eq(dp->time_us,
                        predicted_us(RL_COLL_ALLREDUCE, 16, 2, 400, 2 * 8030261248.0));
    ck_assert_ptr_nonnull(strstr(dp->link, "NIC"));
    /* Inference replicas do not talk. */
    l = RL_LLM_LAYOUT_ONE;
    l.dp = 8;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 8, 2048, &c, &net, &s, err), 0);
    ck_assert_int_eq(s.n_comm, 0);
}
END_TEST

START_TEST(ep_all_to_all)
{
    /* Mixtral-8x7B, EP 8, decode of 64 sequences: 8 per GPU (attention data
     * parallel over EP); each routes 8 tokens x k 2 x 4096 x 2 B = 131,072
     * B to the experts and back, per layer (32): 64 all-to-alls. Each GPU
     * holds 1 expert. */
    struct rl_llm_model m = load("mixtral-8x7b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.ep = 8;
    struct rl_llm_net net = node_net();
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 64, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    const struct rl_llm_comm *ep = find_comm(&s, "EP all-to-all");
    ck_assert_ptr_nonnull(ep);
    ck_assert_str_eq(ep->collective, "alltoall");
    ck_assert_double_eq(ep->bytes, 8.0 * 2 * 4096 * 2);
    ck_assert_double_eq(ep->calls, 64);
    /* The expert GPU serves 8 x 2 token-expert pairs over its one expert
     * (E / ep = 1): down_proj 2 x 16 x 14336 x 4096 FLOPs. */
    ck_assert_str_eq(s.micro.ops[10].name, "down_proj");
    ck_assert_double_eq(s.micro.ops[10].flops, 2.0 * 16 * 14336 * 4096);
    ck_assert_double_eq_tol(s.micro.ops[10].weight_bytes / (14336.0 * 4096 * 2),
                            1 - pow(0.75, 64), 1e-12);
}
END_TEST

START_TEST(what_bounds_the_step)
{
    /* Llama-3-8B decode at batch 1 on one GPU: 100% memory-bound
     * operators. TP 8 at batch 1: 64 all-reduces of 8 KiB, each by NCCL's
     * LL protocol 14 hops x 0.47 us + 8192 x 1.75 / (450e9 / 4) = 6.707 us,
     * 0.43 ms against some 0.6 ms of weights per GPU (2 GB at 3350 GB/s):
     * still bound by memory. Without NVLink (the same GPUs on PCIe Gen5 x16,
     * 64 GB/s: 14 x 1.0 us + 8192 x 1.75 / 16e9 = 14.896 us each, 0.95 ms):
     * bound by PCIe. */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    struct rl_llm_net net = node_net();
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 1, 2048, &c, &net, &s, err), 0);
    ck_assert_int_eq(s.bound, RL_LLM_BOUND_MEMORY);
    ck_assert_str_eq(rl_llm_bound_name(s.bound), "memory");
    ck_assert_ptr_nonnull(strstr(s.why, "one-GPU decode is bound by memory bandwidth: 100% "));
    ck_assert_ptr_nonnull(strstr(s.why, "read at the DRAM roof"));
    char bound[96];
    rl_llm_step_bound_text(bound, sizeof bound, &s, &c);
    ck_assert_str_eq(bound, "memory (DRAM)");
    ck_assert_ptr_null(rl_llm_step_roof(&s)); /* no operator compute-bound */
    l.tp = 8;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 1, 2048, &c, &net, &s, err), 0);
    ck_assert_int_eq(s.bound, RL_LLM_BOUND_MEMORY);
    ck_assert_double_eq_tol(find_comm(&s, "TP all-reduce")->time_us,
                            14 * 0.47 + 8192.0 * 1.75 / (450e9 / 4) * 1e6, 0.001);
    struct rl_gpu_spec pcie = h100;
    pcie.links.count = 0;
    pcie.links.gbs = pcie.links.gbs_per_link = NAN;
    pcie.links.reach[0] = '\0';
    struct rl_llm_net slow = {.spec = &pcie, .gpus_per_node = 8, .nic_gbps = NAN};
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 1, 2048, &c, &slow, &s, err), 0);
    ck_assert_int_eq(s.bound, RL_LLM_BOUND_COMM);
    char want[160];
    snprintf(want, sizeof want, "TP 8 decode is bound by PCIe Gen5 x16: %.0f%% of the step "
                                "is TP all-reduce",
             100 * s.comm_ns / s.time_ns);
    ck_assert_msg(strcmp(s.why, want) == 0, "%s", s.why);
    printf("Llama-3-8B on PCIe H100s, batch 1: %s\n", s.why);
    ck_assert_double_eq_tol(find_comm(&s, "TP all-reduce")->time_us,
                            14 * 1.0 + 8192.0 * 1.75 / (64e9 / 4) * 1e6, 0.001);
    /* PP 8 with one microbatch: 7/8 of the pipeline idles. */
    l = RL_LLM_LAYOUT_ONE;
    l.pp = 8;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 1, 2048, &c, &net, &s, err), 0);
    ck_assert_int_eq(s.bound, RL_LLM_BOUND_BUBBLE);
    ck_assert_ptr_nonnull(strstr(s.why, "PP 8 decode is bound by the pipeline bubble"));
    /* A prefill: compute. */
    l = RL_LLM_LAYOUT_ONE;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_PREFILL, 1, 2048, &c, &net, &s, err), 0);
    ck_assert_int_eq(s.bound, RL_LLM_BOUND_COMPUTE);
    /* Named by its roof, as every table names a compute bound. */
    ck_assert_str_eq(rl_llm_step_roof(&s), "bf16");
    rl_llm_step_bound_text(bound, sizeof bound, &s, &c);
    ck_assert_str_eq(bound, "compute (BF16 Tensor Core)");
    ck_assert_ptr_nonnull(strstr(s.why, "compute-bound operators (at the BF16 Tensor Core roof of "
                                        "the NVIDIA H100"));
    ck_assert_str_eq(rl_llm_roof_label(&c, "no-such-roof"), "no-such-roof");
    ck_assert_ptr_null(rl_llm_roof_label(&c, NULL));
}
END_TEST

/* A step bound by communication names its largest collective (calls x
 * time), wherever it stands in the list: Llama-3-8B training on 8 PCIe
 * H100s (no NVLink; PCIe Gen5 x16, 64 GB/s per direction), TP 2 x DP 4,
 * batch 4 of 2048 (one sequence a replica). First the TP all-reduces, 2
 * forward + 2 backward a layer, 128, of 1 x 2048 x 4096 x 2 = 16,777,216
 * B: a ring of 2 (factor 1, 2 hops of 2.5 us): 262.144 + 5 = 267.144 us,
 * 34.19 ms in all; then the DP gradient all-reduce, one call of a TP
 * half's gradients (2 B x about 4.0e9 parameters) over a ring of 4
 * (factor 1.5): about 188 ms, the larger: the sentence names it. */
START_TEST(comm_bound_names_the_largest)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_gpu_spec pcie = h100;
    pcie.links.count = 0;
    pcie.links.gbs = pcie.links.gbs_per_link = NAN;
    pcie.links.reach[0] = '\0';
    struct rl_llm_net slow = {.spec = &pcie, .gpus_per_node = 8, .nic_gbps = NAN};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 2;
    l.dp = 4;
    l.train = true;
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 4, 2048, &c, &slow, &s, err) == 0,
                  "%s", err);
    ck_assert_int_eq(s.bound, RL_LLM_BOUND_COMM);
    ck_assert_int_eq(s.n_comm, 2);
    ck_assert_str_eq(s.comm[0].name, "TP all-reduce");
    ck_assert_double_eq(s.comm[0].calls, 128);
    ck_assert_double_eq_tol(s.comm[0].time_us, 16777216.0 / 64e9 * 1e6 + 2 * 2.5, 1e-6);
    ck_assert_str_eq(s.comm[1].name, "DP gradient all-reduce");
    ck_assert_double_eq(s.comm[1].calls, 1);
    ck_assert_double_gt(s.comm[1].time_us, 180e3);
    char want[160];
    snprintf(want, sizeof want, "TP 2 x DP 4 training is bound by PCIe Gen5 x16: %.0f%% of the "
                                "step is DP gradient all-reduce",
             100 * s.comm_ns / s.time_ns);
    ck_assert_str_eq(s.why, want);
}
END_TEST

/* NICs given as one a node are one a node (0 would be one per GPU): DP
 * 16 over 2 nodes of 8 H100s with one 400 Gb/s NIC each: the gradient
 * all-reduce is the collective model's on that fabric, 16 GPUs, 2 nodes,
 * 1 x 50 GB/s between them, not 8 x 50. */
START_TEST(one_nic_a_node_as_given)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 8, .nic_gbps = 400,
                             .nics_per_node = 1};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.dp = 16;
    l.train = true;
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 16, 2048, &c, &net, &s, err) == 0,
                  "%s", err);
    const struct rl_llm_comm *dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_ptr_nonnull(dp);
    struct rl_fabric f;
    struct rl_comm_prediction one, eight;
    ck_assert_int_eq(rl_fabric_build(&f, &h100, NULL, 16, 2, 400, 1, err), 0);
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_ALLREDUCE, dp->bytes, &one, err), 0);
    ck_assert_int_eq(rl_fabric_build(&f, &h100, NULL, 16, 2, 400, 8, err), 0);
    ck_assert_int_eq(rl_comm_predict(&f, RL_COLL_ALLREDUCE, dp->bytes, &eight, err), 0);
    ck_assert_double_eq(dp->time_us, one.time_us);
    ck_assert_double_gt(one.time_us, 2 * eight.time_us);
}
END_TEST

/* A system that only lends its NICs (the CLI's guess for a GPU named
 * without --system: net.nic_system, 8 x 400 Gb/s a node): DP 16 over 2
 * nodes of 8 H100s with no NIC rate given (NAN, or 0: no rate either) is
 * the collective model's on the GPU's own fabric with those NICs, 8 x 50
 * GB/s a node, and its link is the system file's (datasheet); a rate
 * given (100 Gb/s) is used instead, the user's figure (analytic); a group
 * inside one node (TP 8) crosses no NIC and borrows none (its link stays
 * NVLink's). */
START_TEST(nics_lent_by_a_system)
{
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_system lender;
    memset(&lender, 0, sizeof lender);
    strcpy(lender.id, "lender");
    strcpy(lender.gpu, "h100-sxm");
    lender.gpus_per_node = 8;
    lender.nics_per_node = 8;
    lender.nic_gbps = 400;
    struct rl_llm_net net = {.spec = &h100, .gpus_per_node = 8, .nic_gbps = NAN,
                             .nic_system = &lender};
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.dp = 16;
    l.train = true;
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    static const double none[] = {NAN, 0};
    for (int i = 0; i < 2; i++) {
        net.nic_gbps = none[i];
        ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 16, 2048, &c, &net, &s, err) == 0,
                      "%s", err);
        const struct rl_llm_comm *dp = find_comm(&s, "DP gradient all-reduce");
        ck_assert_ptr_nonnull(dp);
        ck_assert_double_eq(dp->time_us, predicted_us(RL_COLL_ALLREDUCE, 16, 2, 400, dp->bytes));
        ck_assert_double_eq(dp->link_gbs, 400);
        ck_assert_int_eq(dp->link_origin, RL_ORIGIN_DATASHEET);
    }
    net.nic_gbps = 100;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 16, 2048, &c, &net, &s, err) == 0, "%s",
                  err);
    const struct rl_llm_comm *dp = find_comm(&s, "DP gradient all-reduce");
    ck_assert_double_eq(dp->time_us, predicted_us(RL_COLL_ALLREDUCE, 16, 2, 100, dp->bytes));
    ck_assert_double_eq(dp->link_gbs, 100);
    ck_assert_int_eq(dp->link_origin, RL_ORIGIN_ANALYTIC);

    net.nic_gbps = NAN;
    l.dp = 1;
    l.tp = 8;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 1, 2048, &c, &net, &s, err) == 0, "%s",
                  err);
    const struct rl_llm_comm *tp = &s.comm[0];
    ck_assert_ptr_nonnull(strstr(tp->name, "TP"));
    ck_assert_double_eq(tp->link_gbs, 450);
    ck_assert_double_eq(tp->time_us, predicted_us(RL_COLL_ALLREDUCE, 8, 1, NAN, tp->bytes));
    /* ... its link's origin the GPU file's, here made "derived" (analytic),
     * not the lender's datasheet */
    struct rl_gpu_spec derived = h100;
    int gi = rl_spec_field_index("links.gpu_link_gbs_per_direction");
    ck_assert_int_ge(derived.source_of[gi], 0);
    snprintf(derived.sources[derived.source_of[gi]].kind,
             sizeof derived.sources[0].kind, "derived");
    net.spec = &derived;
    ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 1, 2048, &c, &net, &s, err) == 0, "%s",
                  err);
    ck_assert_double_eq(s.comm[0].link_gbs, 450);
    ck_assert_int_eq(s.comm[0].link_origin, RL_ORIGIN_ANALYTIC);
}
END_TEST

START_TEST(training_flops_six_params_tokens)
{
    /* The training step's FLOPs: 6 x params x tokens for the products
     * (forward 2, backward 4) plus attention, 3 x (4 P nh d + 6 P nh) per
     * layer with P = S (S + 1) / 2 causal pairs per sequence; plus the
     * elementwise operators. Llama-3-8B, 1 x 2048, one GPU: the linear
     * layers' parameters are all but the embedding and the norms. */
    struct rl_llm_model m = load("llama-3-8b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.train = true;
    static struct rl_llm_step s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 1, 2048, &c, NULL, &s, err), 0);
    double linear = 0, attention = 0;
    for (int i = 0; i < s.micro.n_ops; i++) {
        const struct rl_llm_op *o = &s.micro.ops[i];
        if (o->linear)
            linear += o->count * o->flops;
        if (strncmp(o->name, "attn_", 5) == 0 && strcmp(o->name, "attn_norm") != 0)
            attention += o->count * o->flops;
    }
    /* Linear parameters: 8,030,261,248 - embedding 128256 x 4096 - norms
     * (65 x 4096) = 7,504,924,672. */
    const double lin_params = 8030261248.0 - 128256.0 * 4096 - 65.0 * 4096;
    ck_assert_double_eq(linear, 6 * lin_params * 2048);
    const double P = 2048.0 * 2049 / 2;
    ck_assert_double_eq(attention, 32 * 3 * (4 * P * 32 * 128 + 6 * P * 32));
    /* Recomputation runs the forward once more: 8 x params x tokens. */
    l.recompute = true;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, 1, 2048, &c, NULL, &s, err), 0);
    linear = 0;
    for (int i = 0; i < s.micro.n_ops; i++)
        if (s.micro.ops[i].linear)
            linear += s.micro.ops[i].count * s.micro.ops[i].flops;
    ck_assert_double_eq(linear, 8 * lin_params * 2048);
}
END_TEST

/* A100 SXM4 80GB in a DGX A100 (Selene's nodes), from data/gpus and
 * data/systems: NVLink 3, 12 links x 25 GB/s per direction = 300 through
 * NVSwitch; eight ConnectX-6 HDR InfiniBand NICs of 200 Gb/s a node. */
static struct rl_gpu_spec a100;
static struct rl_ceilings a100_c;
static struct rl_systemdb systems;

static const struct rl_system *a100_setup(void)
{
    char err[RL_ERRMSG_SIZE], dir[1100];
    a100 = *rl_test_gpu("a100-sxm-80gb");
    ck_assert_double_eq(a100.links.gbs, 300);
    ck_assert_int_eq(rl_ceilings_init(&a100_c, &a100, NULL, NULL, false, false, NULL, err), 0);
    snprintf(dir, sizeof dir, "%s/systems", data);
    ck_assert_msg(rl_systemdb_load(&systems, dir, NULL, err) == 0, "%s", err);
    const struct rl_system *dgx = rl_systemdb_find(&systems, "dgx-a100");
    ck_assert_ptr_nonnull(dgx);
    ck_assert_int_eq(dgx->nics_per_node, 8);
    ck_assert_double_eq(dgx->nic_gbps, 200);
    return dgx;
}

/* Megatron's FLOPs of a training iteration with activation recomputation
 * (Narayanan et al. 2021, section 5.1): 96 B s l h^2 (1 + s / (6 h) + V /
 * (16 l h)). */
static double megatron_flops(double B, double s, double l, double h, double V)
{
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

START_TEST(megatron_gpt3_is_an_upper_bound)
{
    /* Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
     * on GPU Clusters Using Megatron-LM" (SC '21, arXiv 2104.04473),
     * measured on Selene (DGX A100 80GB nodes, 8 x 200 Gb/s HDR
     * InfiniBand), sequence 2048, vocabulary 51,200, BF16/FP16 mixed
     * precision with activation recomputation, microbatch 1:
     *   Table 2, PTD-P, GPT-3 175B (174.6 B): TP 8 x PP 12 (model-parallel
     *   size 96), 384 GPUs (DP 4), batch 1536: 153 TFLOP/s per GPU;
     *   Table 1, the 145.6 B model (h 12288, 96 heads, 80 layers): TP 8,
     *   PP 8, 1536 GPUs (DP 24), batch 2304: 148 TFLOP/s per GPU.
     * The prediction is a roofline's: each operator at its roof, nothing
     * overlapped; what the cluster achieved must not exceed it. The rate
     * is Megatron's own FLOP count over the predicted step time. */
    const struct rl_system *dgx = a100_setup();
    struct rl_llm_model m = load("gpt-3-175b");
    struct rl_llm_net net = {.spec = &a100, .sys = dgx, .gpus_per_node = 8, .nic_gbps = NAN};
    static const struct {
        int layers, pp, gpus, batch;
        double achieved_tflops;
        const char *what;
    } runs[] = {{96, 12, 384, 1536, 153, "Table 2, GPT-3 175B"},
                {80, 8, 1536, 2304, 148, "Table 1, 145.6B"}};
    for (size_t i = 0; i < 2; i++) {
        m.layers = runs[i].layers;
        struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
        l.tp = 8;
        l.pp = runs[i].pp;
        l.dp = runs[i].gpus / (8 * runs[i].pp);
        l.microbatches = runs[i].batch / l.dp; /* microbatch 1 */
        l.train = true;
        l.recompute = true;
        static struct rl_llm_step s;
        char err[RL_ERRMSG_SIZE];
        ck_assert_msg(rl_llm_step(&m, &bf16, &l, RL_LLM_TRAIN, runs[i].batch, 2048, &a100_c,
                                  &net, &s, err) == 0,
                      "%s", err);
        const double F = megatron_flops(runs[i].batch, 2048, m.layers, 12288, 51200);
        const double predicted = F / runs[i].gpus / (s.time_ns * 1e-9) / 1e12;
        printf("Megatron-LM %s: predicted %.1f TFLOP/s per GPU (bound: %s), achieved %.0f: "
               "achieved / predicted %.2f\n",
               runs[i].what, predicted, rl_llm_bound_name(s.bound), runs[i].achieved_tflops,
               runs[i].achieved_tflops / predicted);
        ck_assert_msg(predicted >= runs[i].achieved_tflops, "%s: predicted %.1f < achieved %.0f",
                      runs[i].what, predicted, runs[i].achieved_tflops);
        /* ... and below the A100's 312 TFLOP/s BF16: a bound that means something. */
        ck_assert_double_lt(predicted, 312);
        /* It fitted in 80 GB: so must our memory. */
        struct rl_llm_memory mem;
        rl_llm_memory_per_gpu(&m, &bf16, &l, runs[i].batch, 2048, &mem);
        struct rl_llm_capacity cap;
        rl_llm_capacity_of(&cap, 80);
        ck_assert_msg(rl_llm_fits(&mem, &cap), "%s: %.1f GB per GPU", runs[i].what,
                      mem.total_bytes / 1e9);
    }
    rl_systemdb_release(&systems);
}
END_TEST

START_TEST(plan_ranks_the_layouts)
{
    /* Llama-3-70B on 8 H100s, decode of 64 sequences at 2048: the splits of
     * 8 = tp x pp x dp are the ordered factorizations of 2^3 into three,
     * C(5, 2) = 10, every one valid (64 heads, 8 KV heads, MLP 28672, 80
     * layers). DP 8 (a whole copy per GPU, 141 GB) cannot fit. */
    struct rl_llm_model m = load("llama-3-70b");
    struct rl_llm_net net = node_net();
    struct rl_llm_capacity cap;
    rl_llm_capacity_of(&cap, 80);
    struct rl_llm_plan_request req = {.gpus = 8, .max_tp = 8, .phase = RL_LLM_DECODE,
                                      .batch = 64, .seq = 2048};
    struct rl_llm_plan plan;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err) == 0, "%s",
                  err);
    ck_assert_uint_eq(plan.n, 10);
    ck_assert_uint_ge(plan.n_fit, 1);
    for (size_t i = 0; i < plan.n; i++) {
        const struct rl_llm_layout *l = &plan.c[i].step.layout;
        ck_assert_int_eq(l->tp * l->pp * l->dp * l->ep, 8);
        ck_assert(plan.c[i].fits == (i < plan.n_fit));
        if (i + 1 < plan.n_fit) /* fastest first */
            ck_assert_double_le(plan.c[i].step.time_ns, plan.c[i + 1].step.time_ns);
        if (l->dp == 8)
            ck_assert(!plan.c[i].fits);
        /* the candidate's memory is the layout's */
        struct rl_llm_memory mem;
        rl_llm_memory_per_gpu(&m, &bf16, l, 64, 2048, &mem);
        ck_assert_double_eq(mem.total_bytes, plan.c[i].mem.total_bytes);
    }
    rl_llm_plan_release(&plan);
    /* Seven GPUs: TP must divide 64 heads: TP 1 only, PP 7 or DP 7. */
    req.gpus = 7;
    ck_assert_int_eq(rl_llm_plan_build(&m, &bf16, &req, &c, &net, &cap, &plan, err), 0);
    ck_assert_uint_eq(plan.n, 2);
    rl_llm_plan_release(&plan);
    /* Mixtral on 8: EP is a fourth degree. */
    struct rl_llm_model x = load("mixtral-8x7b");
    req.gpus = 8;
    ck_assert_int_eq(rl_llm_plan_build(&x, &bf16, &req, &c, &net, &cap, &plan, err), 0);
    bool ep = false;
    for (size_t i = 0; i < plan.n; i++)
        ep |= plan.c[i].step.layout.ep > 1;
    ck_assert(ep);
    rl_llm_plan_release(&plan);
}
END_TEST

START_TEST(plan_command)
{
    struct rl_run r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-8b", "--gpus", "1",
                                  "--gpu", "h100-sxm", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(rl_json_string(doc, "origin"), "analytic");
    ck_assert_str_eq(rl_json_string(doc, "phase"), "decode");
    ck_assert_double_eq(rl_json_number(doc, "layouts"), 1);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0);
    ck_assert_double_eq(rl_json_number(k, "rank"), 1);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(k, "fits")));
    ck_assert_str_eq(rl_json_string(k, "bound"), "memory");
    static const char *const keys[] = {"layout", "step_ms", "tokens_per_s", "compute_ms",
                                       "memory_ms", "comm_ms_per_step", "bubble_ms",
                                       "pipeline_bubble_fraction", "memory_per_gpu_bytes",
                                       "model_state_bytes_per_gpu", "bound_reason"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(cJSON_GetObjectItem(k, keys[i]), "no %s", keys[i]);
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* Text: the table and the best one's sentence. */
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-8b", "--gpus", "1", "--gpu",
                    "h100-sxm", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "best: one-GPU decode is bound by memory bandwidth"));
    rl_run_release(&r);
    /* Llama-3-70B does not fit one H100: said, with the least it needs. */
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpus", "1", "--gpu",
                    "h100-sxm", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "none fits: the least memory per GPU is"));
    rl_run_release(&r);
    /* Usage. */
    static const char *const bad[][8] = {
        {"llm", "plan", "--model", "llama-3-8b", NULL},
        {"llm", "plan", "--gpus", "8", NULL},
        {"llm", "plan", "--model", "llama-3-8b", "--gpus", "8", "--zero", "1"},
        {"llm", "plan", "--model", "llama-3-8b", "--gpus", "0", NULL},
        {"llm", "plan", "--model", "llama-3-8b", "--gpus", "8", "--precision", "fp7"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = rl_test_cli(NULL, bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], bad[i][5],
                        bad[i][6], bad[i][7], (const char *)NULL);
        ck_assert_msg(r.status == 2, "case %zu: %d %s", i, r.status, r.err);
        rl_run_release(&r);
    }
}
END_TEST

START_TEST(system_and_plan_files)
{
    /* A DGX H100: TP 8 inside the node on NVLink, the second stage in the
     * next node: the send/recv of 64 x 8192 x 2 B crosses the NICs (8 x 400
     * Gb/s a node), an eighth of them for each of the node's 8 pairs. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--system", "dgx-h100",
                                  "--tp", "8", "--pp", "2", "--microbatches", "2", "--batch",
                                  "64", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(rl_json_string(doc, "gpu"), "NVIDIA H100 SXM5 80GB"); /* the system's */
    const cJSON *e;
    bool tp = false, pp = false;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "communication"))
    {
        const char *name = rl_json_string(e, "name");
        if (strcmp(name, "TP all-reduce") == 0) {
            tp = true;
            ck_assert_double_eq(rl_json_number(e, "bytes"), 32.0 * 8192 * 2);
            /* 2 per layer of the stage's 40, x M 2 */
            ck_assert_double_eq(rl_json_number(e, "calls_per_step"), 2 * 40 * 2);
            ck_assert_ptr_nonnull(strstr(rl_json_string(e, "link"), "NVLink"));
        } else if (strcmp(name, "PP send/recv") == 0) {
            pp = true;
            ck_assert_ptr_nonnull(strstr(rl_json_string(e, "link"), "NIC"));
            ck_assert_double_eq(rl_json_number(e, "nic_share"), 0.125);
            ck_assert_str_eq(rl_json_string(e, "link_origin"), "datasheet");
            ck_assert_str_eq(rl_json_string(e, "origin"), "analytic");
        }
    }
    ck_assert(tp && pp);
    /* (P - 1) / (M + P - 1) = 1/3 */
    ck_assert_double_eq_tol(rl_json_number(doc, "pipeline_bubble_fraction"), 1.0 / 3, 1e-6);
    ck_assert(rl_json_number(doc, "comm_ms_per_step") > 0);
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* Another GPU than the system's: one line. */
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--system", "dgx-h100", "--gpu",
                    "a100-sxm-80gb", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "holds h100-sxm GPUs, not a100-sxm-80gb"));
    rl_run_release(&r);
    /* Two nodes of H100 SXMs without --system: the NICs of the database's
     * system with that GPU (the DGX H100's 8 x 400 Gb/s), said. */
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "8",
                    "--pp", "2", "--json", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    doc = cJSON_Parse(r.out);
    ck_assert_str_eq(rl_json_string(doc, "nics_from_system"), "dgx-h100");
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* H100 PCIe: no system of the database holds it: without a NIC rate,
     * said. */
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-pcie", "--tp", "8",
                    "--pp", "2", (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "--nic-gbps"));
    rl_run_release(&r);
    /* The plan's files: plan.json and the stacked bars. */
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/plan", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpus", "8", "--gpu",
                    "h100-sxm", "-o", dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "10 layouts of 8 GPUs"));
    rl_run_release(&r);
    static const char *const files[] = {"plan.json", "llm-plan.gp", "llm-plan.dat"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    }
    snprintf(path, sizeof path, "%s/llm-plan.gp", dir);
    char *gp = rl_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(gp, "set style histogram rowstacked"));
    ck_assert_ptr_nonnull(strstr(gp, "title \"communication\""));
    free(gp);
    snprintf(path, sizeof path, "%s/llm-plan.dat", dir);
    char *dat = rl_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(dat, "\n8x1x1\t")); /* the fastest first */
    free(dat);
}
END_TEST

START_TEST(train_and_bubble_through_the_command)
{
    /* PP 4, M 8 without --batch: the default batches give each of the 8
     * microbatches a sequence, and the bubble is 3/11. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h100-sxm",
                                  "--pp", "4", "--microbatches", "8", "--json",
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_double_eq_tol(rl_json_number(doc, "pipeline_bubble_fraction"), 3.0 / 11, 1e-6);
    ck_assert_double_eq(rl_json_number(doc, "batch"), 8);
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* A training step: its operators, gradients and optimizer states. */
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/llm-train", rl_test_tmpdir());
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--train",
                    "--recompute", "--dp", "8", "--zero", "2", "--batch", "16", "--json", "-o",
                    dir, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "operators"), "train"));
    ck_assert(rl_json_number(doc, "step_ms") > 0);
    const cJSON *mem = cJSON_GetObjectItem(doc, "memory_per_gpu_bytes");
    /* ZeRO 2 over DP 8: 2 B x params whole, gradients and optimizer / 8 */
    ck_assert_double_eq(rl_json_number(mem, "weights"), 2 * 8030261248.0);
    ck_assert_double_eq(rl_json_number(mem, "gradients"), 2 * 8030261248.0 / 8);
    ck_assert_double_eq(rl_json_number(mem, "optimizer"), 12 * 8030261248.0 / 8);
    ck_assert_double_eq(rl_json_number(mem, "kv_cache"), 0);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "layout"), "recompute")));
    cJSON_Delete(doc);
    rl_run_release(&r);
    /* Its files: llm.json and the operators on the roofline; no batch
     * chart (a decode chart). */
    snprintf(path, sizeof path, "%s/llm.json", dir);
    ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    snprintf(path, sizeof path, "%s/llm-roofline.gp", dir);
    ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
    snprintf(path, sizeof path, "%s/llm-batch.gp", dir);
    ck_assert_msg(access(path, F_OK) != 0, "%s written", path);
}
END_TEST

START_TEST(measured_collectives)
{
    /* tests/data/comm/synthetic.json (made-up numbers: the reader's
     * fixture): an 8-GPU, one-node all-reduce at 100 GB/s busbw at 1 MiB,
     * 300 at 4 MiB and beyond. Llama-3-70B TP 8, decode of 64: 64 x 8192 x
     * 2 = 1 MiB per all-reduce: 1,048,576 x 2 x 7/8 / 100e9 = 18.35 us;
     * prefill of 2048: 32 MiB, 300 GB/s: 195.7 us. TP 4 was not measured:
     * analytic. */
    char path[1200], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s", rl_test_data("comm/synthetic.json"));
    static struct rl_comm_results res;
    ck_assert_msg(rl_comm_results_load(&res, path, err) == 0, "%s", err);
    struct rl_llm_model m = load("llama-3-70b");
    struct rl_llm_layout l = RL_LLM_LAYOUT_ONE;
    l.tp = 8;
    struct rl_llm_net net = node_net();
    net.measured = &res;
    static struct rl_llm_step s;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 64, 2048, &c, &net, &s, err), 0);
    const struct rl_llm_comm *tp = find_comm(&s, "TP all-reduce");
    ck_assert_double_eq_tol(tp->time_us, 1048576.0 * 1.75 / 100e9 * 1e6, 1e-9);
    ck_assert_int_eq(tp->origin, RL_ORIGIN_MEASURED);
    ck_assert_int_eq(tp->link_origin, RL_ORIGIN_MEASURED);
    ck_assert_double_eq(tp->link_gbs, 100);
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_PREFILL, 1, 2048, &c, &net, &s, err), 0);
    tp = find_comm(&s, "TP all-reduce");
    ck_assert_double_eq_tol(tp->time_us, 33554432.0 * 1.75 / 300e9 * 1e6, 1e-9);
    l.tp = 4;
    ck_assert_int_eq(rl_llm_step(&m, &bf16, &l, RL_LLM_DECODE, 64, 2048, &c, &net, &s, err), 0);
    tp = find_comm(&s, "TP all-reduce");
    ck_assert_int_eq(tp->origin, RL_ORIGIN_ANALYTIC);
    rl_comm_results_release(&res);
    /* Through the command; a file of another GPU refused. */
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                                  "--tp", "8", "--batch", "64", "--comm", path, "--json",
                                  (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "communication"), 0);
    ck_assert_str_eq(rl_json_string(e, "origin"), "measured");
    ck_assert_double_eq_tol(rl_json_number(e, "time_us"), 18.350080, 1e-5);
    cJSON_Delete(doc);
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h200", "--tp", "8",
                    "--comm", path, (const char *)NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "was measured on h100-sxm, not h200"));
    rl_run_release(&r);
    r = rl_test_cli(NULL, "llm", "plan", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                    "--gpus", "8", "--comm", path, (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    rl_run_release(&r);
}
END_TEST

/* Every millisecond of the prefill is a row: its operators' TIME us and
 * its collectives' ms/STEP add up to the prefill's total. Llama-3-70B on
 * 4 H100s (TP 4): the operators are 82.58 ms and the TP all-reduce 19.72
 * ms (2 a layer x 80 layers = 160 calls of 2048 tokens x 8192 x 2 B =
 * 33.55 MB, 123.2 us each on NVLink 4): 102.3 ms printed, each figure to
 * 4 significant digits (hence the tolerance).
 * It once printed only the operators, 20 ms short of the total. */
START_TEST(prefill_rows_sum_to_its_time)
{
    struct rl_run r = rl_test_cli(NULL, "llm", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                                  "--tp", "4", (const char *)NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *p = strstr(r.out, "\nprefill of ");
    ck_assert_ptr_nonnull(p);
    p = strchr(p + 1, '\n') + 1; /* the header */
    p = strchr(p, '\n') + 1;
    double ops_us = 0, comm_ms = 0, total_ms = NAN;
    int ops = 0, comms = 0;
    bool in_comm = false;
    for (const char *line = p; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
        char name[64], ai[64];
        int count;
        double f[5], t;
        if (sscanf(line, "prefill %lf ms", &t) == 1)
            total_ms = t;
        else if (strncmp(line, "COMMUNICATION", 13) == 0)
            in_comm = true;
        else if (in_comm && strlen(line) > 28 &&
                 sscanf(line + 28, "%d %lf %lf %lf %lf", &count, &f[0], &f[1], &f[2], &f[3]) == 5) {
            comm_ms += f[3];
            comms++;
        } else if (!in_comm && isnan(total_ms) &&
                   sscanf(line, "%63s %d %lf %lf %lf %lf %63s %lf", name, &count, &f[0], &f[1],
                          &f[2], &f[3], ai, &t) == 8) {
            ops_us += t;
            ops++;
        }
        if (!strchr(line, '\n'))
            break;
    }
    ck_assert_int_eq(ops, 13);  /* 10 per layer, embedding, final norm, lm_head */
    ck_assert_int_eq(comms, 1); /* the TP all-reduce */
    ck_assert_double_eq_tol(total_ms, 102.3, 0.05);
    ck_assert_double_eq_tol(comm_ms, 19.72, 0.005);
    ck_assert_double_eq_tol(ops_us / 1e3 + comm_ms, total_ms, 0.002 * total_ms);
    rl_run_release(&r);
}
END_TEST

/* The roof that names a compute bound: the compute-bound operator with
 * the most time over the step (count x time_ns), the first on a tie;
 * memory-bound ones and those without a roof never. */
START_TEST(step_roof_is_the_largest)
{
    static struct rl_llm_step s;
    memset(&s, 0, sizeof s);
    static const struct {
        const char *roof;
        int count;
        double time_ns;
        bool memory_bound;
    } ops[] = {
        {"bf16", 32, 10, false},   /* 320 */
        {"fp32", 1, 100, false},   /* 100: smaller, after it */
        {"fp8", 1, 1000, true},    /* memory-bound: not a compute roof */
        {NULL, 1, 5000, false},    /* no roof */
        {"tf32", 2, 160, false},   /* 320: a tie, later */
        {"fp16", 0, 900, false},   /* never run */
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        struct rl_llm_op *o = &s.micro.ops[s.micro.n_ops++];
        o->roof = ops[i].roof;
        o->count = ops[i].count;
        o->time_ns = ops[i].time_ns;
        o->memory_bound = ops[i].memory_bound;
    }
    ck_assert_str_eq(rl_llm_step_roof(&s), "bf16");
    s.micro.ops[1].time_ns = 330; /* 330 > 320 */
    ck_assert_str_eq(rl_llm_step_roof(&s), "fp32");
    s.micro.n_ops = 1;
    s.micro.ops[0].time_ns = 0;
    ck_assert_ptr_null(rl_llm_step_roof(&s));
}
END_TEST

static Suite *llm_layout_suite(void)
{
    Suite *s = suite_create("llm_layout");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_set_timeout(core, 60);
    tcase_add_test(core, tp_all_reduces_per_layer);
    tcase_add_test(core, pipeline_bubble_in_the_step);
    tcase_add_test(core, dp_gradients_and_zero);
    tcase_add_test(core, ep_all_to_all);
    tcase_add_test(core, what_bounds_the_step);
    tcase_add_test(core, comm_bound_names_the_largest);
    tcase_add_test(core, one_nic_a_node_as_given);
    tcase_add_test(core, training_flops_six_params_tokens);
    tcase_add_test(core, megatron_gpt3_is_an_upper_bound);
    tcase_add_test(core, plan_ranks_the_layouts);
    tcase_add_test(core, plan_command);
    tcase_add_test(core, system_and_plan_files);
    tcase_add_test(core, train_and_bubble_through_the_command);
    tcase_add_test(core, measured_collectives);
    tcase_add_test(core, nics_lent_by_a_system);
    tcase_add_test(core, prefill_rows_sum_to_its_time);
    tcase_add_test(core, step_roof_is_the_largest);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(llm_layout_suite()); }
