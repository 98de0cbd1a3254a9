/* fuzz_trace.c - libFuzzer target: the streaming trace reader (analyzer/readers/tracefile.c), its fast path against its general one. */
#define _GNU_SOURCE
#include "analyzer/readers/tracefile.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    struct rl_trace_groups g[2] = {{0}, {0}};
    char err[2][RL_ERRMSG_SIZE];
    int rc[2];
    for (int i = 0; i < 2; i++) {
        FILE *f = fmemopen((void *)data, size, "r");
        if (!f)
            return 0;
        rl_trace_set_fast_path(i == 0);
        rc[i] = rl_trace_groups_read(&g[i], f, "fuzz.json", err[i]);
        fclose(f);
    }
    rl_trace_set_fast_path(true);
    /* Both paths read the same groups, or fail alike. */
    if (rc[0] != rc[1] || (rc[0] && strcmp(err[0], err[1]) != 0) || g[0].n != g[1].n)
        abort();
    for (size_t k = 0; !rc[0] && k < g[0].n; k++) {
        const struct rl_trace_group *a = &g[0].v[k], *b = &g[1].v[k];
        if (strcmp(a->name, b->name) != 0 || a->launches != b->launches ||
            a->counted != b->counted || memcmp(a->grid, b->grid, sizeof a->grid) != 0 ||
            strcmp(a->precision, b->precision) != 0 ||
            !(a->flops == b->flops || (isnan(a->flops) && isnan(b->flops))) ||
            !(a->time_ns == b->time_ns || (isnan(a->time_ns) && isnan(b->time_ns))))
            abort();
    }
    rl_trace_groups_release(&g[0]);
    rl_trace_groups_release(&g[1]);
    return 0;
}
