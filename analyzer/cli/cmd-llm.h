/* cmd-llm.h - what the files of `roofline llm` share: one run of the command (model, layout, ceilings, the steps and memory computed) and its parts in other files (--measure, plan). */
#ifndef RL_CMD_LLM_H
#define RL_CMD_LLM_H

#include "analyzer/llm/layout.h"
#include "analyzer/llm/llm.h"
#include "analyzer/llm/memory.h"
#include "analyzer/model/ceilings.h"

#include <stdio.h>

#define LLM_MAX_BATCHES 16
#define LLM_MAX_MEASURED (LLM_MAX_BATCHES * 5)
/* The largest batch looked at (crossover, what fits). */
#define LLM_BATCH_LIMIT 65536

/* A decode linear layer run on the GPU beside its prediction. */
struct llm_measured {
    int batch;
    char op[24];
    double predicted_ns, predicted_ai;
    bool predicted_memory;
    double time_ns, flops, dram_bytes; /* measured; NAN when not counted */
    bool over_roof;                    /* the report's judge: above 100% of its roof */
};

struct llm_run {
    struct rl_llm_model m;
    struct rl_llm_config cfg;
    struct rl_llm_layout lay;
    struct rl_llm_net net;             /* how the GPUs are joined */
    struct rl_ceilings c;
    struct rl_llm_capacity cap;        /* NAN without a datasheet */
    bool params_only;                  /* --params: model states only */
    bool precision_given;              /* --precision (else the config's own format) */
    char dequantized[256];             /* why the stored format is read as BF16; "" not */
    int batches[LLM_MAX_BATCHES], n_batches, seq, crossover;
    /* inference: decode at each batch and a prefill of one sequence;
     * training (lay.train): train at each batch */
    struct rl_llm_step steps[LLM_MAX_BATCHES], prefill;
    struct rl_llm_memory mem[LLM_MAX_BATCHES];
    struct rl_llm_memory train_mem;    /* inference: what training batch 1 would need */
    int max_fit;                       /* largest batch that fits; 0 none */
    int min_gpus;                      /* 0: none up to LLM_MAX_GPUS */
    int max_tp;                        /* TP inside a node or NVLink domain */
    struct rl_llm_layout min_layout;
    struct llm_measured meas[LLM_MAX_MEASURED];
    int n_meas;
    char measure_trace[4096];       /* where the trace is written */
    char measure_trace_shown[4096]; /* where it will be (a set's stage unstaged) */
    int charts_rc;                  /* RL_ENOTOOL: the scripts only (no gnuplot) */
};

#define LLM_MAX_GPUS 4096
#define LLM_MAX_LAYOUT_GPUS 1000000 /* TP x PP x DP x EP of --tp ... --ep: an int */
#define LLM_NODE_GPUS 8  /* TP stays inside a node of 8 (min_gpus) */

/* The model's notes, one line each on stdout: where the weight format
 * comes from (and dequantized, why: "" none), the MoE layers, MTP modules
 * left out, keys not understood. */
void llm_print_model_notes(const struct rl_llm_model *m, const struct rl_llm_config *cfg,
                           bool given, const char *dequantized);

static inline bool llm_fits(const struct llm_run *r, int i)
{
    return rl_llm_fits(&r->mem[i], &r->cap);
}

static inline double llm_tokens_per_s(const struct rl_llm_step *s)
{
    return s->tokens / (s->time_ns / 1e9);
}

static inline const char *llm_kv_name(const struct rl_llm_config *cfg)
{
    return cfg->kv == RL_LLM_KV_FP8 ? "fp8" : cfg->kv == RL_LLM_KV_FP16 ? "fp16" : "bf16";
}

/* The training flags both commands take (cmd-llm-train.c): option codes
 * and their getopt_long entries. */
enum { LLM_OPT_RECOMPUTE = 40, LLM_OPT_SEQ_PARALLEL, LLM_OPT_VIRTUAL_STAGES, LLM_OPT_OVERLAP,
       LLM_OPT_EFFICIENCY, LLM_OPT_UNFUSED_ATTENTION };
#define LLM_TRAIN_OPTIONS                                                                     \
    {"recompute", optional_argument, NULL, LLM_OPT_RECOMPUTE},                                \
        {"sequence-parallel", no_argument, NULL, LLM_OPT_SEQ_PARALLEL},                       \
        {"virtual-stages", required_argument, NULL, LLM_OPT_VIRTUAL_STAGES},                  \
        {"overlap", required_argument, NULL, LLM_OPT_OVERLAP},                                \
        {"efficiency", required_argument, NULL, LLM_OPT_EFFICIENCY},                          \
        {"unfused-attention", no_argument, NULL, LLM_OPT_UNFUSED_ATTENTION}
/* The defaults: DP's gradient reduction overlapped (why in the file). */
void llm_train_defaults(struct rl_llm_layout *lay);
/* Option c into lay: 0 (*given set), CLI_USAGE after saying why, -1 not
 * one of these. */
int llm_train_option(const char *cmd, int c, int argc, char **argv, struct rl_llm_layout *lay,
                     bool *given);
/* 0, or CLI_USAGE: the flags given without --train, SP without TP... */
int llm_train_check(const char *cmd, const struct rl_llm_layout *lay, bool train, bool given);
/* ", selective recomputation, sequence parallel, 3 virtual stages, overlap
 * none": what a layout line adds (the default overlap unsaid). */
void llm_train_layout_text(char *buf, size_t cap, const struct rl_llm_layout *lay);

/* Write llm.json of r to f (cmd-llm-json.c); -1 on a write error. */
int llm_write_json(FILE *f, const struct llm_run *r);

/* --measure (cmd-llm-measure.c): run the decode linear layers on the GPU
 * under the profiler, print them beside the prediction. CLI_OK or CLI_FAIL
 * (reported). */
int llm_measure(struct llm_run *r, const char *dir, int device);

/* How the GPUs are joined: spec's links, or sys (--system, may be NULL;
 * its GPU must be spec), with --nic-gbps as given in net; *max_tp gets the
 * largest TP inside a node or NVLink domain. CLI_OK, or CLI_FAIL reported. */
int llm_net_init(struct rl_llm_net *net, const struct rl_gpu_spec *spec,
                 const struct rl_system *sys, int *max_tp);

/* --comm FILE: measured collectives into *res (its GPU must be spec's);
 * CLI_OK, or CLI_FAIL reported. Released with rl_comm_results_release. */
struct rl_comm_results;
int llm_comm_load(const char *path, const struct rl_gpu_spec *spec, struct rl_comm_results *res);

/* The KV cache precisions, NULL-terminated (usage errors list them). */
extern const char *const llm_kv_precisions[];

/* `roofline llm plan` (cmd-llm-plan.c). */
int cmd_llm_plan(int argc, char **argv);

#endif
