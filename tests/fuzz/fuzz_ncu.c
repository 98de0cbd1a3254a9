/* fuzz_ncu.c - libFuzzer target: the Nsight Compute CSV importer (analyzer/readers/ncu.c), from text and streamed. */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/readers/ncu.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rl_trace_groups g = {0}, h = {0};
    char err[RL_ERRMSG_SIZE], err2[RL_ERRMSG_SIZE];
    double factor = size % 2 ? 2.0 : NAN;
    int rc = rl_ncu_parse(&g, (const char *)data, size, "fuzz.csv", factor, NULL, err);
    /* The stream, through a buffer of 1 to 16 bytes, reads the same. */
    rl_ncu_set_chunk_bytes(1 + size % 16);
    FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
    if (f) {
        int rc2 = rl_ncu_read(&h, f, "fuzz.csv", factor, NULL, err2);
        fclose(f);
        if (rc2 != rc || g.n != h.n || (rc && strcmp(err, err2) != 0))
            abort();
        for (size_t i = 0; i < g.n; i++)
            if (strcmp(g.v[i].name, h.v[i].name) != 0 || g.v[i].launches != h.v[i].launches)
                abort();
    }
    rl_ncu_set_chunk_bytes(0);
    rl_trace_groups_release(&g);
    rl_trace_groups_release(&h);
    return 0;
}
