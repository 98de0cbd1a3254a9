/* fuzz_bench.c - libFuzzer target: `roofline bench` files as chart and report read them (microbench/results.c). */
#include "microbench/results.h"

#include "analyzer/util/error.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rl_bench_ceilings b;
    char err[RL_ERRMSG_SIZE];
    rl_bench_ceilings_parse((const char *)data, size, "fuzz.json", &b, err);
    return 0;
}
