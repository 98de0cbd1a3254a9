/* fuzz_kernels.c - libFuzzer target: kernels files and traces as `chart --kernels` reads them (analyzer/records.c). */
#include "analyzer/readers/records.h"

#include "analyzer/util/error.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rl_record_list l = {0};
    char err[RL_ERRMSG_SIZE];
    rl_records_parse(&l, (const char *)data, size, "fuzz.json", err);
    rl_record_list_release(&l);
    return 0;
}
