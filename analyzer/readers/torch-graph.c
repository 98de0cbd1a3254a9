/*
 * torch-graph.c - kernels a PyTorch trace shows replayed from a CUDA or
 * HIP graph. vLLM and SGLang capture their decode steps (and pieces of
 * prefill) in graphs: the replay is one cudaGraphLaunch / hipGraphLaunch
 * whose kernels carry no operator, so nothing records their shapes. They
 * are grouped under "(CUDA graph replay)" / "(HIP graph replay)", and a
 * replayed kernel takes the FLOPs and bytes per launch of the same kernel
 * with the same grid and block run eagerly under a costed operator in the
 * same trace (a warm-up or an eager prefill), the same work by its launch
 * shape: its operator reads "(CUDA graph replay) aten::mm". Else, with
 * --model and a step annotation around the launch, from the model by the
 * kernel's name ("(HIP graph replay) fused MoE"; readers/TORCH-OPS.md).
 * The others stay timing only; the notes say how much GPU time that is
 * and how to cost it.
 */
#include "analyzer/readers/torch-internal.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const labels[] = {NULL, "(CUDA graph replay)", "(HIP graph replay)"};

uint8_t tr_graph_launch_name(const char *call)
{
    if (strcmp(call, "cudaGraphLaunch") == 0 || strncmp(call, "cudaGraphLaunch_", 16) == 0 ||
        strcmp(call, "cuGraphLaunch") == 0)
        return 1;
    if (strcmp(call, "hipGraphLaunch") == 0)
        return 2;
    return 0;
}

uint8_t tr_graph_of(const struct tr_state *s, const struct tr_gpu *k, const char **label)
{
    uint32_t rt = k->corr >= 0 ? tr_ids_get(&s->rt_corr, k->corr) : 0;
    const struct tr_rt *r = rt ? tr_at(&s->rts, rt - 1) : NULL;
    uint8_t g = r && r->graph <= 2 ? r->graph : 0;
    *label = labels[g];
    return g;
}

static bool is_label(const char *op)
{
    return op && (strncmp(op, labels[1], strlen(labels[1])) == 0 ||
                  strncmp(op, labels[2], strlen(labels[2])) == 0);
}

/* The index + 1 of a group of this trace with l's kernel, grid and block,
 * launched by an operator and costed; 0 none. */
static size_t find_twin(const struct tr_state *s, const struct rl_trace_launch *l)
{
    const struct rl_trace_groups *g = s->g;
    for (size_t i = s->groups_first; i < g->n; i++) {
        const struct rl_trace_group *t = &g->v[i];
        if (!t->op || is_label(t->op) || (!t->counted && !t->bytes_only))
            continue;
        if (strcmp(t->name, l->name) != 0 || memcmp(t->grid, l->grid, sizeof t->grid) != 0 ||
            memcmp(t->block, l->block, sizeof t->block) != 0)
            continue;
        return i + 1;
    }
    return 0;
}

int tr_graph_step(struct tr_state *s, const char *name, double ts, double end)
{
    struct rl_torch_llm_step step;
    if (!name || !rl_torch_llm_step_parse(name, &step))
        return RL_OK;
    if (tr_reserve((void **)&s->serve, &s->serve_cap, s->n_serve, sizeof *s->serve))
        return RL_ENOMEM;
    s->serve[s->n_serve++] = (struct tr_serve){ts, end, step};
    return RL_OK;
}

/* No eager twin: from the model, by the kernel's name and the tokens of
 * the step whose annotation holds the graph launch. */
static bool from_model(struct tr_state *s, const struct tr_gpu *k, struct rl_trace_launch *l)
{
    uint32_t rt = k->corr >= 0 ? tr_ids_get(&s->rt_corr, k->corr) : 0;
    const struct tr_rt *r = rt ? tr_at(&s->rts, rt - 1) : NULL;
    const struct tr_serve *step = NULL;
    for (size_t i = 0; r && i < s->n_serve && !step; i++)
        if (s->serve[i].ts <= r->ts && r->ts <= s->serve[i].end)
            step = &s->serve[i];
    double flops, bytes;
    const char *what = "";
    if (!step || !rl_torch_llm_graph_cost(l->name, &step->step, s->st->world_size, &flops, &bytes,
                                          &what))
        return false;
    snprintf(s->graph_op, sizeof s->graph_op, "%s %s", l->op ? l->op : "", what);
    l->op = s->graph_op;
    l->flops = flops;
    l->bytes[RL_MEM_DRAM] = bytes;
    const char *noted = "";
    if (flops > 0) /* BF16 activations: the roof the kernel's name says, else BF16's */
        l->precision = rl_torch_kernel_roof(l->name, "bf16", true, &noted);
    if (isfinite(flops))
        s->st->call_flops += flops;
    s->st->graph_model++;
    s->st->graph_model_ns += l->time_ns;
    return true;
}

bool tr_graph_twin(struct tr_state *s, const struct tr_gpu *k, struct rl_trace_launch *l,
                   int *err)
{
    struct rl_torch_stats *st = s->st;
    st->graph_kernels++;
    st->graph_time_ns += l->time_ns;
    if (k->kname >= s->twin_cap) {
        size_t cap = s->twin_cap ? s->twin_cap : 256;
        while (cap <= k->kname)
            cap *= 2;
        int64_t *v = rl_realloc(s->twin, cap * sizeof *v);
        if (!v) {
            *err = RL_ENOMEM;
            return false;
        }
        memset(v + s->twin_cap, 0, (cap - s->twin_cap) * sizeof *v);
        s->twin = v;
        s->twin_cap = cap;
    }
    if (s->twin[k->kname] == 0) {
        size_t t = find_twin(s, l);
        s->twin[k->kname] = t ? (int64_t)t : -1;
    }
    if (s->twin[k->kname] < 0)
        return from_model(s, k, l);
    const struct rl_trace_group *t = &s->g->v[s->twin[k->kname] - 1];
    if (t->counted) { /* FLOPs and bytes per launch */
        l->flops = t->flops / (double)t->counted;
        l->bytes[RL_MEM_DRAM] = t->bytes[RL_MEM_DRAM] / (double)t->counted;
        l->precision = t->precision[0] ? t->precision : NULL;
    } else { /* bytes only: a memory point */
        l->bytes[RL_MEM_DRAM] = t->bytes_only_bytes[RL_MEM_DRAM] / (double)t->bytes_only;
    }
    l->dtype = t->dtype[0] ? t->dtype : NULL;
    if (isfinite(l->flops))
        st->call_flops += l->flops;
    snprintf(s->graph_op, sizeof s->graph_op, "%s %s", l->op ? l->op : "", t->op);
    l->op = s->graph_op;
    st->graph_costed++;
    st->graph_costed_ns += l->time_ns;
    return true;
}

size_t tr_graph_note(const struct rl_torch_stats *st, char *buf, size_t size)
{
    double ms = st->graph_time_ns / 1e6;
    int n = snprintf(
        buf, size,
        "%llu kernels (%.4g ms, %.3g%% of GPU time) were replayed from a CUDA/HIP graph, with "
        "no operator: %llu of them costed from the same kernel and launch shape run eagerly "
        "under an operator in this trace, %llu from the model (--model) by their names and the "
        "step's tokens (its annotation)%s\n",
        (unsigned long long)st->graph_kernels, ms,
        st->kernel_time_ns > 0 ? 100 * st->graph_time_ns / st->kernel_time_ns : 0.0,
        (unsigned long long)st->graph_costed, (unsigned long long)st->graph_model,
        st->graph_costed + st->graph_model < st->graph_kernels
            ? "; for the others profile an eager step (vLLM --enforce-eager, SGLang "
              "--disable-cuda-graph) or measure them with `roofline trace`"
            : "");
    return n < 0 ? size : (size_t)n;
}
