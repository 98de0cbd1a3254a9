/* cmd-metrics.c - `roofline metrics`: the hardware counters roofline reads on a chip, validated, with their passes. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/device/device.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"
#include "analyzer/util/suggest.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
    "usage: roofline metrics --chip NAME [--set default|full] [--json | --ncu]\n"
    "\n"
    "List the counters `roofline trace` reads per kernel on a chip (GH100, GA100,\n"
    "AD102, GB100, GB202, ...): every candidate name, whether CUPTI accepts it on\n"
    "that chip, the one chosen for each quantity, and the replay passes the set\n"
    "costs. Names are checked by the CUPTI host API: no GPU is needed.\n"
    "\n"
    "  --chip NAME    CUPTI chip name (as `roofline trace` reports it), or a GPU\n"
    "                 of `roofline gpus` (h100 is GH100)\n"
    "  --set SET      default (at most 2 passes on GH100) or full (every quantity)\n"
    "  --json         JSON: chip, set, passes, metrics [{name, valid, quantity, chosen}]\n"
    "  --ncu          the chosen names, comma-separated, for `ncu --metrics` (then\n"
    "                 `roofline report --ncu` reads its CSV)\n";

static cJSON *to_json(const struct rl_metric_set *s, const struct rl_q_def *q, const char *set)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "chip", s->chip);
    cJSON_AddStringToObject(doc, "set", set);
    cJSON_AddNumberToObject(doc, "passes", s->passes);
    cJSON *metrics = cJSON_AddArrayToObject(doc, "metrics");
    for (int i = 0; i < s->n_tried; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "name", s->tried[i].name);
        cJSON_AddBoolToObject(m, "valid", s->tried[i].valid);
        cJSON_AddStringToObject(m, "quantity", q[s->tried[i].q].key);
        cJSON_AddBoolToObject(m, "chosen", s->tried[i].chosen);
        cJSON_AddItemToArray(metrics, m);
    }
    cJSON *quantities = cJSON_AddObjectToObject(doc, "quantities");
    for (int i = 0; i < RL_Q_COUNT; i++) {
        if (s->on[i])
            cJSON_AddStringToObject(quantities, q[i].key, s->metric[i]);
        else
            cJSON_AddNullToObject(quantities, q[i].key);
    }
    return doc;
}

static void print_text(const struct rl_metric_set *s, const struct rl_q_def *q, const char *set)
{
    printf("chip %s, %s set: %d replay pass%s per counted kernel\n\n", s->chip, set, s->passes,
           s->passes == 1 ? "" : "es");
    printf("%-18s %-7s %-6s %s\n", "quantity", "valid", "chosen", "metric");
    for (int i = 0; i < s->n_tried; i++)
        printf("%-18s %-7s %-6s %s\n", q[s->tried[i].q].key, s->tried[i].valid ? "yes" : "no",
               s->tried[i].chosen ? "yes" : "-", s->tried[i].name);
    bool first = true;
    for (int i = 0; i < RL_Q_COUNT; i++)
        if (!s->on[i]) {
            printf("%s%s", first ? "\nnot collected: " : ", ", q[i].key);
            first = false;
        }
    if (!first)
        printf("%s\n", strcmp(set, "default") == 0 ? " (try --set full)" : "");
}

/* The chips whose counter sets the tests check (CUPTI knows more). */
static const char *const checked_chips[] = {"GA100", "AD102", "GH100", "GB100", "GB110",
                                            "GB202", "GB203", NULL};

/* An unknown chip: the nearest of those and of the GPU database's chips. */
static void unknown_chip(const char *chip)
{
    const struct rl_gpudb *db = cli_gpudb();
    struct rl_suggest sug;
    rl_suggest_init(&sug, chip);
    for (size_t i = 0; checked_chips[i]; i++)
        rl_suggest_consider(&sug, checked_chips[i]);
    for (size_t i = 0; db && i < db->n; i++)
        if (strcmp(db->gpus[i].vendor, "NVIDIA") == 0) /* CUPTI knows NVIDIA chips only */
            rl_suggest_consider(&sug, db->gpus[i].chip);
    const char *best = rl_suggest_best(&sug);
    if (best)
        cli_error("unknown chip '%s' (did you mean '%s'?)", chip, best);
    else
        cli_error("unknown chip '%s': CUPTI names chips like GA100, AD102, GH100, GB100, "
                  "GB202 (`roofline trace` prints the one of your GPU)",
                  chip);
}

int cmd_metrics(int argc, char **argv)
{
    static const struct option opts[] = {{"chip", required_argument, NULL, 'c'},
                                         {"set", required_argument, NULL, 's'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"ncu", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *chip = NULL, *set = "default";
    bool json = false, ncu = false;
    int c;
    static const char optstring[] = "h";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            chip = optarg;
            break;
        case 's':
            set = optarg;
            break;
        case 'j':
            json = true;
            break;
        case 'n':
            ncu = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return CLI_OK;
        default: return cli_option_error("metrics", optstring, opts, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("metrics", "unexpected argument '%s'", argv[optind]);
    if (json && ncu)
        return cli_usage_error("metrics", "give --json or --ncu, not both");
    if (!chip)
        return cli_usage_error("metrics", "--chip NAME is required (GH100, GA100, AD102, ...)");
    static const char *const sets[] = {"default", "full", NULL};
    if (strcmp(set, "default") != 0 && strcmp(set, "full") != 0)
        return cli_unknown_name("metrics", "counter set", set, sets);
    /* CUPTI's chip names are upper case: --chip gh100 is GH100. */
    char chip_name[32];
    size_t n = 0;
    for (; chip[n] && n + 1 < sizeof chip_name; n++)
        chip_name[n] = (char)toupper((unsigned char)chip[n]);
    chip_name[n] = '\0';
    const char *typed = chip;
    chip = chip_name;
    /* A chip (gfx942) or name (MI300X) of a GPU CUPTI cannot count. */
    const struct rl_gpudb *db = cli_gpudb();
    for (size_t i = 0; db && i < db->n; i++) {
        const struct rl_gpu_spec *g = &db->gpus[i];
        if (strcmp(g->vendor, "NVIDIA") != 0 &&
            (strcasecmp(g->chip, typed) == 0 || rl_gpu_spec_named(g, typed)))
            return cli_require_cuda_gpu("metrics (CUPTI counters)", g);
    }
    /* A GPU's name (h100, "NVIDIA H100 SXM5 80GB") is its chip (GH100). */
    for (size_t i = 0; db && i < db->n; i++) {
        const struct rl_gpu_spec *g = &db->gpus[i];
        if (strcmp(g->vendor, "NVIDIA") == 0 && g->chip[0] && rl_gpu_spec_named(g, typed)) {
            for (n = 0; g->chip[n] && n + 1 < sizeof chip_name; n++)
                chip_name[n] = (char)toupper((unsigned char)g->chip[n]);
            chip_name[n] = '\0';
            break;
        }
    }
    char err[RL_ERRMSG_SIZE];
    const struct rl_device_api *api;
    if (cli_open_gpu("cannot read the counter names", 0, &api, NULL))
        return CLI_FAIL;
    struct rl_metric_set *s = rl_malloc(sizeof *s);
    if (!s) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int rc = api->metric_set(chip, strcmp(set, "full") == 0, s, err);
    if (rc) {
        if (rc == RL_ENOTFOUND)
            unknown_chip(typed);
        else
            cli_error("%s", err);
        free(s);
        return CLI_FAIL;
    }
    size_t nq;
    const struct rl_q_def *q = api->quantities(&nq);
    if (ncu) {
        for (int i = 0; i < s->n_names; i++)
            printf("%s%s", i ? "," : "", s->names[i]);
        printf("\n");
    } else if (json)
        rc = cli_print_json(to_json(s, q, set));
    else
        print_text(s, q, set);
    free(s);
    return rc ? CLI_FAIL : CLI_OK;
}
