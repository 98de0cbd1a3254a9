/* cmd-llm-train.c - the training flags `roofline llm` and `llm plan` share: --recompute, --sequence-parallel, --virtual-stages, --overlap, --efficiency. */
#include "analyzer/cli/cli.h"
#include "analyzer/cli/cmd-llm.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void llm_train_defaults(struct rl_llm_layout *lay)
{
    /* DP's gradient reduction overlaps the backward by default: PyTorch
     * DDP and FSDP do it unasked (bucketed all-reduce / reduce-scatter
     * during the backward) and Megatron-Core's training scripts turn on
     * --overlap-grad-reduce; TP's overlap needs Transformer Engine's
     * userbuffers (--tp-comm-overlap), off by default in Megatron-Core, so
     * it is off here too. The 2021-2022 Megatron-LM runs overlapped
     * neither: their check set says --overlap none. */
    lay->overlap = RL_LLM_OVERLAP_DP;
}

static int parse_overlap(const char *cmd, const char *arg, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bits;
    } names[] = {{"none", 0},
                 {"dp", RL_LLM_OVERLAP_DP},
                 {"tp", RL_LLM_OVERLAP_TP},
                 {"dp,tp", RL_LLM_OVERLAP_DP | RL_LLM_OVERLAP_TP},
                 {"tp,dp", RL_LLM_OVERLAP_DP | RL_LLM_OVERLAP_TP}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(arg, names[i].name) == 0) {
            *out = names[i].bits;
            return 0;
        }
    return cli_usage_error(cmd, "--overlap takes none, dp, tp or dp,tp, not '%s'", arg);
}

int llm_train_option(const char *cmd, int c, int argc, char **argv, struct rl_llm_layout *lay,
                     bool *given)
{
    char *end;
    switch (c) {
    case LLM_OPT_RECOMPUTE: {
        /* --recompute alone is full (as before); --recompute MODE or
         * --recompute=MODE names it. */
        const char *arg = optarg;
        if (!arg && optind < argc && rl_llm_recompute_parse(argv[optind]) >= 0)
            arg = argv[optind++];
        int r = arg ? rl_llm_recompute_parse(arg) : RL_LLM_RECOMPUTE_FULL;
        if (r < 0)
            return cli_usage_error(cmd, "--recompute takes none, selective or full, not '%s'",
                                   arg);
        lay->recompute = (enum rl_llm_recompute)r;
        break;
    }
    case LLM_OPT_SEQ_PARALLEL: lay->seq_parallel = true; break;
    case LLM_OPT_UNFUSED_ATTENTION: lay->unfused_attention = true; break;
    case LLM_OPT_VIRTUAL_STAGES:
        if (cli_parse_int(cmd, "--virtual-stages", optarg, 1, 1024, &lay->virtual_stages))
            return CLI_USAGE;
        break;
    case LLM_OPT_OVERLAP:
        if (parse_overlap(cmd, optarg, &lay->overlap))
            return CLI_USAGE;
        break;
    case LLM_OPT_EFFICIENCY:
        lay->efficiency = strtod(optarg, &end);
        if (end == optarg || *end || !(lay->efficiency > 0) || !(lay->efficiency <= 1))
            return cli_usage_error(cmd, "--efficiency needs a fraction of the compute roof "
                                        "above 0 and at most 1 (0.55), not '%s'", optarg);
        break;
    default: return -1;
    }
    *given = true;
    return 0;
}

int llm_train_check(const char *cmd, const struct rl_llm_layout *lay, bool train, bool given)
{
    if (given && !train)
        return cli_usage_error(cmd, "--recompute, --sequence-parallel, --virtual-stages, "
                                    "--overlap, --efficiency and --unfused-attention are for "
                                    "training (--train)");
    if (lay->seq_parallel && lay->tp < 2 && strcmp(cmd, "llm") == 0)
        return cli_usage_error(cmd, "--sequence-parallel splits the sequence over TP: give "
                                    "--tp 2 or more");
    if (lay->virtual_stages > 1 && lay->pp < 2 && strcmp(cmd, "llm") == 0)
        return cli_usage_error(cmd, "--virtual-stages interleaves a pipeline: give --pp 2 or "
                                    "more");
    return 0;
}

void llm_train_layout_text(char *buf, size_t cap, const struct rl_llm_layout *lay)
{
    const int v = lay->virtual_stages > 1 ? lay->virtual_stages : 1;
    const unsigned o = lay->overlap;
    char vs[32] = "", ov[32] = "";
    if (v > 1)
        snprintf(vs, sizeof vs, ", %d virtual stages", v);
    if (o != RL_LLM_OVERLAP_DP)
        snprintf(ov, sizeof ov, ", overlap %s",
                 o == 0 ? "none" : o == RL_LLM_OVERLAP_TP ? "tp" : "dp,tp");
    snprintf(buf, cap, ", %s recomputation%s%s%s%s",
             lay->recompute == RL_LLM_RECOMPUTE_NONE ? "no" : rl_llm_recompute_name(lay->recompute),
             lay->seq_parallel ? ", sequence parallel" : "", vs, ov,
             lay->unfused_attention ? ", unfused attention" : "");
}
