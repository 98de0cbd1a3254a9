/* fuzz_ncu.c - libFuzzer target: the Nsight Compute CSV importer (analyzer/ncu.c). */
#include "analyzer/readers/ncu.h"

#include "analyzer/util/error.h"

#include <math.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rl_trace_groups g = {0};
    char err[RL_ERRMSG_SIZE];
    rl_ncu_parse(&g, (const char *)data, size, "fuzz.csv", size % 2 ? 2.0 : NAN, NULL, err);
    rl_trace_groups_release(&g);
    return 0;
}
