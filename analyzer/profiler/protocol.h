/* protocol.h - what `roofline trace` and the injected library agree on: the environment variables that carry a trace's settings. */
#ifndef RL_PROFILER_PROTOCOL_H
#define RL_PROFILER_PROTOCOL_H

/* Set by analyzer/cli/cmd-trace.c in the traced program's environment, read
 * by analyzer/profiler/inject.c inside it (README: analyzer/profiler). */
#define RL_ENV_TRACE_FILE "ROOFLINE_TRACE_FILE"       /* where to write; %p: the pid */
#define RL_ENV_TRACE_METRICS "ROOFLINE_TRACE_METRICS" /* none | default | full */
#define RL_ENV_TRACE_KERNEL "ROOFLINE_TRACE_KERNEL"   /* regex of kernels to count */
#define RL_ENV_TRACE_NAMES "ROOFLINE_TRACE_NAMES"     /* file of exact names (--top) */
#define RL_ENV_TRACE_SAMPLES "ROOFLINE_TRACE_SAMPLES" /* counted launches per kernel; 0 all */
#define RL_ENV_TRACE_QUIET "ROOFLINE_TRACE_QUIET"     /* 1: no line on stderr */
#define RL_ENV_TENSOR_FLOPS_PER_OP "ROOFLINE_TENSOR_FLOPS_PER_OP" /* calibrated factor */
#define RL_ENV_TENSOR_CHECK "ROOFLINE_TENSOR_CHECK"   /* the calibration's line */

#endif
