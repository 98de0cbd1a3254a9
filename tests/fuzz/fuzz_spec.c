/* fuzz_spec.c - libFuzzer target: GPU spec files against their schema (analyzer/spec.c, schema.c). */
#include "analyzer/util/json.h"
#include "analyzer/model/spec.h"

#include "analyzer/util/error.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cJSON *schema;
    char err[RL_ERRMSG_SIZE];
    if (!schema && rl_json_parse_file(ROOFLINE_SOURCE_DIR "/data/gpus/schema.json", &schema, err))
        abort();
    struct rl_gpu_spec spec;
    if (rl_gpu_spec_parse(&spec, schema, (const char *)data, size, "fuzz.json", err) == 0)
        rl_gpu_spec_lint(&spec, err);
    return 0;
}
