/* fuzz_trace.c - libFuzzer target: the streaming trace reader (analyzer/tracefile.c). */
#define _GNU_SOURCE
#include "analyzer/readers/tracefile.h"

#include "analyzer/util/error.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    struct rl_trace_groups g = {0};
    char err[RL_ERRMSG_SIZE];
    rl_trace_groups_read(&g, f, "fuzz.json", err);
    fclose(f);
    rl_trace_groups_release(&g);
    return 0;
}
