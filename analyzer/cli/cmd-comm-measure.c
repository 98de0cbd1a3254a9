/* cmd-comm-measure.c - `roofline comm --measure`: placeholder until the NCCL harness lands. */
#include "analyzer/cli/cli.h"

int cli_comm_measure(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("comm --measure: not in this build");
    return CLI_FAIL;
}
