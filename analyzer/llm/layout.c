/* layout.c - one LLM step on a parallel layout: one GPU's operators, the communication each split adds, the pipeline bubble, and what bounds the step.
 *
 * A step runs M microbatches (each ceil(sequences per GPU / M)
 * sequences) through P pipeline stages. One microbatch on one stage takes
 * t = its operators' roofline times (rl_llm_phase_split on the GPU's shard)
 * plus the communication it adds per microbatch (TP all-reduces, the
 * send to the next stage, EP all-to-alls); the pipeline takes (M + (P -
 * 1) / v) t (1F1B, Narayanan et al. 2021, section 2.2.1; v model chunks per
 * stage with the interleaved schedule, section 2.2.2), of which (P - 1) t
 * / v is the bubble. Training then reduces the gradients over DP (once
 * per step) and runs the optimizer.
 *
 * Overlap (layout.overlap): a collective that overlaps computation costs
 * only what it exceeds it by, max(compute + memory, communication) and
 * not their sum: TP's per microbatch against the microbatch's operators
 * (RL_LLM_OVERLAP_TP), DP's against the whole pipeline
 * (RL_LLM_OVERLAP_DP: the gradients reduced in buckets as the backward
 * produces them). The step is compute (the compute-bound operators' time),
 * memory (the memory-bound ones'), the exposed communication and the
 * bubble; the largest part bounds it.
 *
 * Bound or prediction: with layout.efficiency 0 every operator and
 * collective runs at its roof (the roofline's lower bound on the step);
 * with an efficiency e in (0, 1) at e of it, compute, DRAM and links
 * alike (every time / e, so the prediction is the bound / e where
 * nothing overlaps): one stated factor for what the roofline leaves out
 * (GEMM tile quantization, kernel launch gaps, NCCL below the link rate,
 * the loss and the embedding's small kernels). Held against the 8 runs of
 * Korthikanti et al. 2022, Table 5 in tests/check_llm_train.c.
 *
 * The optimizer step (training): Adam over the parameters whose state the
 * GPU holds (all of its shard, or 1 / dp of it from ZeRO stage 1): it
 * reads the 16-bit gradient (2 B), the FP32 master weight and two moments
 * (12 B), writes those (12 B) and the 16-bit weight (2 B): 28 B and some
 * 10 FP32 operations per parameter, on the FP32 CUDA-core roof.
 */
#include "analyzer/llm/layout.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/results.h"
#include "analyzer/comm/system.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *rl_llm_bound_name(enum rl_llm_bound b)
{
    static const char *const names[] = {"compute", "memory", "communication", "bubble"};
    return names[b];
}

double rl_llm_bubble_fraction(int pp, int microbatches)
{
    return (pp - 1.0) / (microbatches + pp - 1.0);
}

double rl_llm_bubble_fraction_interleaved(int pp, int microbatches, int v)
{
    const double chunks = v > 1 ? v : 1;
    return (pp - 1.0) / (chunks * microbatches + pp - 1.0);
}

static const char *phase_name(enum rl_llm_phase p)
{
    return p == RL_LLM_DECODE ? "decode" : p == RL_LLM_PREFILL ? "prefill" : "training";
}

const char *rl_llm_step_roof(const struct rl_llm_step *s)
{
    const char *roof = NULL;
    double most_ns = 0;
    for (int i = 0; i < s->micro.n_ops; i++) {
        const struct rl_llm_op *o = &s->micro.ops[i];
        if (!o->memory_bound && o->roof && o->count * o->time_ns > most_ns) {
            most_ns = o->count * o->time_ns;
            roof = o->roof;
        }
    }
    return roof;
}

const char *rl_llm_roof_label(const struct rl_ceilings *c, const char *name)
{
    for (size_t i = 0; name && i < c->n_compute; i++)
        if (strcmp(c->compute[i].name, name) == 0)
            return c->compute[i].label;
    return name;
}

void rl_llm_step_bound_text(char *buf, size_t cap, const struct rl_llm_step *s,
                            const struct rl_ceilings *c)
{
    if (s->bound == RL_LLM_BOUND_MEMORY)
        rl_bound_text(buf, cap, RL_BOUND_MEMORY, RL_MEM_DRAM, NULL);
    else if (s->bound == RL_LLM_BOUND_COMPUTE)
        rl_bound_text(buf, cap, RL_BOUND_COMPUTE, RL_MEM_DRAM,
                      rl_llm_roof_label(c, rl_llm_step_roof(s)));
    else
        snprintf(buf, cap, "%s", rl_llm_bound_name(s->bound));
}

/* "TP 8 decode is bound by ...": the sentence of what bounds the step. */
static void explain(struct rl_llm_step *s, const struct rl_ceilings *c)
{
    const struct rl_llm_layout *l = &s->layout;
    char who[64] = "";
    size_t n = 0;
    const int deg[] = {l->tp, l->pp, l->dp, l->ep};
    const char *const tag[] = {"TP", "PP", "DP", "EP"};
    for (int i = 0; i < 4; i++)
        if (deg[i] > 1)
            n += (size_t)snprintf(who + n, sizeof who - n, "%s%s %d", n ? " x " : "", tag[i],
                                  deg[i]);
    if (!n)
        snprintf(who, sizeof who, "one-GPU");
    const double share = 100 * (s->bound == RL_LLM_BOUND_COMPUTE  ? s->compute_ns
                                : s->bound == RL_LLM_BOUND_MEMORY ? s->memory_ns
                                : s->bound == RL_LLM_BOUND_COMM   ? s->comm_ns
                                                              : s->bubble_ns) /
                         s->time_ns;
    const char *ph = phase_name(s->phase);
    switch (s->bound) {
    case RL_LLM_BOUND_MEMORY:
        snprintf(s->why, sizeof s->why,
                 "%s %s is bound by memory bandwidth: %.0f%% of the step is memory-bound "
                 "operators (weights%s read at the DRAM roof)",
                 who, ph, share, s->phase == RL_LLM_DECODE ? " and KV cache" : "");
        break;
    case RL_LLM_BOUND_COMPUTE:
        snprintf(s->why, sizeof s->why,
                 "%s %s is bound by compute: %.0f%% of the step is compute-bound operators "
                 "(at the %s roof of the %s)",
                 who, ph, share, rl_llm_roof_label(c, rl_llm_step_roof(s)), c->gpu_name);
        break;
    case RL_LLM_BOUND_COMM: {
        const struct rl_llm_comm *top = NULL;
        for (int i = 0; i < s->n_comm; i++)
            if (!top || s->comm[i].calls * s->comm[i].time_us > top->calls * top->time_us)
                top = &s->comm[i];
        snprintf(s->why, sizeof s->why, "%s %s is bound by %s: %.0f%% of the step is %s", who,
                 ph, top ? top->link : "the interconnect", share,
                 top ? top->name : "communication");
        break;
    }
    case RL_LLM_BOUND_BUBBLE:
        snprintf(s->why, sizeof s->why,
                 "%s %s is bound by the pipeline bubble: %.0f%% of the step the stages wait "
                 "((P - 1) / (v M + P - 1) with P %d, M %d, v %d)",
                 who, ph, share, l->pp, l->microbatches,
                 l->virtual_stages > 1 ? l->virtual_stages : 1);
        break;
    }
}

int rl_llm_layout_crossover_batch(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                                  const struct rl_llm_layout *lay, int seq, struct rl_ceilings *c,
                                  int max_batch)
{
    static struct rl_llm_phase_cost p;
    const struct rl_llm_split sp = rl_llm_layout_split(lay);
    const int share = lay->dp * lay->ep;
    char err[RL_ERRMSG_SIZE];
    int last = 0;
    for (int b = 1; b <= max_batch; b++) {
        /* The microbatch of rl_llm_step: no more microbatches than the
         * GPU has sequences. */
        const int per_gpu = (b + share - 1) / share;
        const int M = lay->microbatches < 1          ? 1
                      : lay->microbatches < per_gpu ? lay->microbatches
                                                    : per_gpu;
        const int micro = (per_gpu + M - 1) / M;
        if (micro == last)
            continue; /* the same shapes as at b - 1 */
        last = micro;
        rl_llm_phase_split(m, cfg, &sp, RL_LLM_DECODE, micro, seq, &p);
        if (rl_llm_evaluate(&p, c, err))
            return 0;
        bool all = true;
        for (int i = 0; i < p.n_ops && all; i++)
            all = !p.ops[i].linear || !p.ops[i].memory_bound;
        if (all)
            return b;
    }
    return 0;
}

int rl_llm_group_nodes(int n, int stride, int gpus_per_node)
{
    const long span = (long)n * stride;
    if (n <= 1 || gpus_per_node < 1 || span <= gpus_per_node)
        return 1;
    const long need = (span + gpus_per_node - 1) / gpus_per_node; /* clamped before the int */
    int nodes = need > n ? n : (int)need;
    while (n % nodes)
        nodes++;
    return nodes;
}

/* Time one collective of a group and add it to the step. */
static int add_comm(struct rl_llm_step *s, const struct rl_llm_net *net, const char *name,
                    enum rl_collective coll, int gpus, int stride, double bytes, double calls,
                    bool in_pipeline, char *errmsg)
{
    if (gpus < 2 || calls <= 0 || s->n_comm == RL_LLM_MAX_COMM)
        return RL_OK;
    if (!net->spec)
        return rl_fail(errmsg, RL_EINVAL,
                       "%s: the links between the GPUs are unknown without a datasheet (give "
                       "--gpu)",
                       name);
    const int per_node = net->gpus_per_node > 0 ? net->gpus_per_node : 8;
    const int nodes = coll == RL_COLL_SENDRECV ? (stride >= per_node ? 2 : 1)
                                               : rl_llm_group_nodes(gpus, stride, per_node);
    struct rl_fabric f;
    struct rl_comm_prediction pr;
    char err[RL_ERRMSG_SIZE];
    /* A system's fabric puts the group's GPUs in domains of domain_gpus;
     * a group of fewer GPUs per node than the node holds (one DP rank per
     * node) has that many per domain: its fabric is built from the GPU's
     * own links and the system's NICs (their origin stays the system
     * file's datasheet). An NVLink domain wider than a node (GB200 NVL72)
     * keeps the system's. */
    const struct rl_system *sys = net->sys;
    double nic_gbps = net->nic_gbps;
    int nics = net->nics_per_node;
    bool sys_nics = false;
    if (!sys && !(nic_gbps > 0) && nodes > 1 && net->nic_system) {
        nic_gbps = net->nic_system->nic_gbps;
        nics = net->nic_system->nics_per_node;
        sys_nics = true;
    }
    if (sys && nodes > 1 && gpus / nodes < sys->gpus_per_node &&
        sys->domain_gpus <= sys->gpus_per_node) {
        if (!(nic_gbps > 0)) {
            nic_gbps = sys->nic_gbps;
            nics = sys->nics_per_node;
            sys_nics = true;
        }
        sys = NULL;
    }
    /* "one NIC per GPU" is per GPU of the node, not of the group: the
     * groups sharing the node's NICs are counted in `share` below */
    if (!sys && nics < 1)
        nics = per_node;
    int rc = rl_fabric_build(&f, net->spec, sys, gpus, nodes, nic_gbps, nics, err);
    /* Every group of the layout runs its collective at once: groups of g
     * GPUs per node across nodes share the node's NICs, per_node / g of
     * them (8 DP groups of one GPU per node: an eighth of the NICs each). */
    const double g = (double)gpus / nodes;
    const double share = nodes > 1 && g < per_node ? per_node / g : 1;
    if (rc == RL_OK)
        rc = rl_comm_predict(&f, coll, bytes * share, &pr, err);
    if (rc) {
        char said[32]; /* the model's message may start with the node count: said once */
        size_t n = (size_t)snprintf(said, sizeof said, "%d nodes: ", nodes);
        return rl_fail(errmsg, rc, "%s over %d GPUs on %d node%s: %s", name, gpus, nodes,
                       nodes == 1 ? "" : "s", strncmp(err, said, n) == 0 ? err + n : err);
    }
    /* Measured, for the group's size and nodes: time from busbw. */
    const struct rl_comm_series *ms =
        net->measured ? rl_comm_results_series(net->measured, coll) : NULL;
    double busbw = NAN;
    if (ms && ms->gpus == gpus && ms->nodes == nodes && share == 1)
        busbw = rl_comm_results_busbw_gbs(net->measured, coll, bytes);
    if (busbw > 0) {
        const double factor = rl_collective_bus_factor(coll, gpus);
        pr.time_us = bytes * factor / (busbw * 1e9) * 1e6;
        pr.origin = RL_ORIGIN_MEASURED;
        pr.link_origin = RL_ORIGIN_MEASURED;
        pr.link_gbs = busbw;
        snprintf(pr.link, sizeof pr.link, "%s (measured busbw)",
                 net->measured->link_name[0] ? net->measured->link_name : "the link");
        sys_nics = false;
    }
    struct rl_llm_comm *c = &s->comm[s->n_comm++];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->collective, sizeof c->collective, "%s", rl_collective_name(coll));
    c->gpus = gpus;
    c->bytes = bytes;
    c->calls = calls;
    c->nic_share = 1 / share;
    c->in_pipeline = in_pipeline;
    c->time_us = pr.time_us;
    snprintf(c->link, sizeof c->link, "%s", pr.link);
    c->link_gbs = pr.link_gbs;
    c->origin = pr.origin;
    c->link_origin = sys_nics ? RL_ORIGIN_DATASHEET : pr.link_origin;
    return RL_OK;
}

/* The collectives of the layout, per GPU (docs/llm.md):
 * TP: Megatron's two all-reduces per layer in the forward (after the
 * attention's output projection and the MLP's down projection: the f and
 * g operators of Shoeybi et al. 2019, section 3), two more in the
 * backward and two in a recomputed forward, of the microbatch's T x H x
 * ab bytes; with sequence parallelism each becomes a reduce-scatter and an
 * all-gather of the same bus bytes (Korthikanti et al. 2022, section
 * 4.2.2), timed as the all-reduce, and the backward gathers each layer's
 * two column-parallel inputs again (half an all-reduce each: 5 all-reduces'
 * worth per layer); PP: each microbatch's activations sent to the next
 * stage (and in training its gradient sent back) once per model chunk,
 * v times with v virtual stages; in training as Megatron sends them (its
 * scatter-gather, Narayanan et al. 2021 section 4.1; inference sends the
 * whole activation from each GPU): each GPU of the TP
 * group sends 1 / tp of it over its own NIC, and without sequence
 * parallelism the receivers all-gather it over the TP group (with it, the
 * activation stays split); EP: an all-to-all
 * to the experts and one back per MoE layer of the stage (ceil(moe / pp),
 * at most its layers; twice more in the backward), of
 * the T k tokens x H x ab each GPU routes; DP (training): the gradients,
 * 2 bytes per parameter of the GPU, all-reduced once per step; under
 * ZeRO 1 and 2 a reduce-scatter and an all-gather of the updated 16-bit
 * parameters (the same volume, Rajbhandari et al. section 7.2.1), under
 * ZeRO 3 one more all-gather of the parameters (forward and backward each
 * gather them: 3 x the parameter bytes in all, section 7.2.2). The
 * vocabulary-parallel embedding's and the loss's small collectives are
 * left out. Which of them overlap computation is rl_llm_step's. */
static int layout_comm(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                       const struct rl_llm_layout *l, enum rl_llm_phase phase, int micro,
                       int seq, const struct rl_llm_net *net, struct rl_llm_step *s,
                       char *errmsg)
{
    if (!net || !rl_llm_model_has_shape(m))
        return RL_OK;
    const double T = phase == RL_LLM_DECODE ? micro : (double)micro * seq;
    const double act = T * m->hidden * rl_llm_act_bytes(cfg->precision);
    const int M = l->microbatches, L = (m->layers + l->pp - 1) / l->pp;
    const int v = l->virtual_stages > 1 ? l->virtual_stages : 1;
    const bool train = phase == RL_LLM_TRAIN;
    const bool seq_par = train && l->seq_parallel && l->tp > 1;
    /* forwards + backward, and SP's gathers again in the backward */
    const double passes = !train ? 1 : (l->recompute == RL_LLM_RECOMPUTE_FULL ? 3 : 2) +
                                           (seq_par ? 0.5 : 0);
    int rc = add_comm(s, net, seq_par ? "TP reduce-scatter+gather" : "TP all-reduce",
                      RL_COLL_ALLREDUCE, l->tp, 1, act, (double)M * L * 2 * passes, true, errmsg);
    const int moe_all = (rl_llm_moe_layers(m) + l->pp - 1) / l->pp, moe = moe_all < L ? moe_all : L;
    if (rc == RL_OK && m->experts > 1)
        rc = add_comm(s, net, "EP all-to-all", RL_COLL_ALLTOALL, l->ep, l->tp,
                      act * m->experts_per_token, (double)M * moe * 2 * passes, true, errmsg);
    const double sends = (double)M * v * (train ? 2 : 1);
    if (rc == RL_OK && l->pp > 1)
        rc = add_comm(s, net, "PP send/recv", RL_COLL_SENDRECV, 2, l->tp * l->ep * l->dp,
                      train ? act / l->tp : act, sends, true, errmsg);
    if (rc == RL_OK && train && l->pp > 1 && l->tp > 1 && !seq_par)
        rc = add_comm(s, net, "PP all-gather over TP", RL_COLL_ALLGATHER, l->tp, 1, act, sends,
                      true, errmsg);
    if (rc || !train || l->dp < 2)
        return rc;
    const struct rl_llm_split sp = rl_llm_layout_split(l);
    const double grads = 2 * rl_llm_params_per_gpu(m, &sp), stride = l->tp * l->ep;
    if (l->zero == 0)
        return add_comm(s, net, "DP gradient all-reduce", RL_COLL_ALLREDUCE, l->dp, stride,
                        grads, 1, false, errmsg);
    rc = add_comm(s, net, "DP gradient reduce-scatter", RL_COLL_REDUCESCATTER, l->dp, stride,
                  grads, 1, false, errmsg);
    if (rc == RL_OK)
        rc = add_comm(s, net, "ZeRO parameter all-gather", RL_COLL_ALLGATHER, l->dp, stride,
                      grads, l->zero == 3 ? 2 : 1, false, errmsg);
    return rc;
}

int rl_llm_step(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                const struct rl_llm_layout *lay, enum rl_llm_phase phase, int batch, int seq,
                struct rl_ceilings *c, const struct rl_llm_net *net, struct rl_llm_step *s,
                char *errmsg)
{
    memset(s, 0, sizeof *s);
    s->phase = phase;
    s->layout = *lay;
    s->batch = batch;
    s->seq = seq;
    const int v = lay->virtual_stages > 1 ? lay->virtual_stages : 1;
    if (v > 1 && (lay->pp < 2 || (rl_llm_model_has_shape(m) && m->layers % (lay->pp * v))))
        return rl_fail(errmsg, RL_EINVAL,
                       "%d virtual stages need a pipeline whose stages split the %d layers "
                       "evenly into chunks (layers a multiple of PP %d x %d)",
                       v, m->layers, lay->pp, v);
    const double eff = lay->efficiency > 0 && lay->efficiency < 1 ? lay->efficiency : 1;
    s->predicted = eff < 1;
    const int share = lay->dp * lay->ep, per_gpu = (batch + share - 1) / share;
    /* No more microbatches than the GPU has sequences. */
    const int M = lay->microbatches < 1 ? 1 : lay->microbatches < per_gpu ? lay->microbatches
                                                                           : per_gpu;
    const int P = lay->pp, micro = (per_gpu + M - 1) / M;
    s->layout.microbatches = M;
    s->layout.virtual_stages = v;
    const struct rl_llm_split sp = rl_llm_layout_split(lay);
    rl_llm_phase_split(m, cfg, &sp, phase, micro, seq, &s->micro);
    int rc = rl_llm_evaluate(&s->micro, c, errmsg);
    if (rc)
        return rc;
    /* A prediction: every roof (compute, DRAM, each link) reached at eff. */
    double compute = 0, memory = 0;
    for (int i = 0; i < s->micro.n_ops; i++) {
        const struct rl_llm_op *o = &s->micro.ops[i];
        *(o->memory_bound ? &memory : &compute) += o->count * o->time_ns / eff;
    }
    if ((rc = layout_comm(m, cfg, &s->layout, phase, micro, seq, net, s, errmsg)))
        return rc;
    /* Per microbatch: the collectives that overlap the GEMMs (TP with
     * RL_LLM_OVERLAP_TP) hide behind its compute and memory time, the rest
     * add to it; once per step: DP's, hidden behind the pipeline with
     * RL_LLM_OVERLAP_DP (the backward's gradients reduced as they come). */
    const bool train = phase == RL_LLM_TRAIN;
    double hidden_micro = 0, exposed_micro = 0, dp_hidden = 0, dp_exposed = 0;
    for (int i = 0; i < s->n_comm; i++) {
        const struct rl_llm_comm *k = &s->comm[i];
        const double ns = k->calls * k->time_us * 1e3 / eff;
        const bool tp = strncmp(k->name, "TP ", 3) == 0;
        if (k->in_pipeline && tp && train && (lay->overlap & RL_LLM_OVERLAP_TP))
            hidden_micro += ns / M; /* its calls are per step: M microbatches' */
        else if (k->in_pipeline)
            exposed_micro += ns / M;
        else if (train && (lay->overlap & RL_LLM_OVERLAP_DP))
            dp_hidden += ns;
        else
            dp_exposed += ns;
    }
    const double work = compute + memory;
    const double over_micro = hidden_micro > work ? hidden_micro - work : 0;
    const double t_micro = work + over_micro + exposed_micro;
    /* The pipeline: M microbatches and the bubble, (P - 1) / v of a
     * microbatch's time with v virtual stages (Narayanan et al. 2021,
     * section 2.2.2: bubble (p - 1) / (m v) of the ideal time). */
    const double pipeline = (M + (P - 1.0) / v) * t_micro;
    const double over_dp = dp_hidden > pipeline ? dp_hidden - pipeline : 0;
    s->compute_ns = M * compute;
    s->memory_ns = M * memory;
    s->comm_ns = M * (over_micro + exposed_micro) + over_dp + dp_exposed;
    s->comm_hidden_ns = M * (hidden_micro - over_micro) + (dp_hidden - over_dp);
    s->bubble_ns = (P - 1.0) / v * t_micro;
    s->bubble_fraction = rl_llm_bubble_fraction_interleaved(P, M, v);
    s->flops_per_gpu = M * s->micro.flops;
    if (train) {
        struct rl_llm_phase_cost opt;
        memset(&opt, 0, sizeof opt);
        struct rl_llm_op *o = &opt.ops[opt.n_ops++];
        snprintf(o->name, sizeof o->name, "optimizer");
        o->count = 1;
        o->roof = "fp32";
        const double params = rl_llm_params_per_gpu(m, &sp) / (lay->zero >= 1 ? lay->dp : 1);
        o->flops = 10 * params;
        o->weight_bytes = 28 * params;
        if ((rc = rl_llm_evaluate(&opt, c, errmsg)))
            return rc;
        s->optimizer = *o;
        *(o->memory_bound ? &s->memory_ns : &s->compute_ns) += o->time_ns / eff;
        s->flops_per_gpu += o->flops;
    }
    s->time_ns = s->compute_ns + s->memory_ns + s->comm_ns + s->bubble_ns;
    s->tokens = phase == RL_LLM_DECODE ? batch : (double)batch * seq;
    const double parts[] = {s->compute_ns, s->memory_ns, s->comm_ns, s->bubble_ns};
    s->bound = RL_LLM_BOUND_COMPUTE;
    for (int i = 1; i < 4; i++)
        if (parts[i] > parts[s->bound])
            s->bound = (enum rl_llm_bound)i;
    explain(s, c);
    return RL_OK;
}
