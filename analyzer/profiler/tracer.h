/* tracer.h - the CUPTI tracer: every kernel launch of this process, timed, and counted when selected.
 *
 * One tracer per process. It subscribes to CUPTI (driver launch callbacks,
 * resource and NVTX callbacks, kernel activity records) and, for the
 * launches it selects, reads hardware counters through the Range Profiler
 * with kernel replay: the launch is bracketed by Start/Stop in its
 * callback, replayed once per pass, decoded and evaluated at once. The
 * libroofline_cuda plugin runs it around our own workloads; the injection
 * library (inject.c) runs it inside any CUDA program.
 *
 * Nothing here may crash the traced program: a CUPTI failure turns counters
 * off (timing goes on) and is reported in the trace with the fix.
 */
#ifndef RL_PROFILER_TRACER_H
#define RL_PROFILER_TRACER_H

#include "analyzer/device/device.h"
#include "analyzer/profiler/trace.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif


struct rl_tracer_options {
    const char *out_path;        /* written by rl_tracer_finish; NULL: kept in memory only */
    const char *program;         /* the command line, for the trace's "program" */
    enum rl_counter_set counters;
    const char *kernel_regex;    /* POSIX extended regex on demangled names; NULL: all */
    const char *names_file;      /* exact demangled names, one per line (from --top) */
    int samples;                 /* counted launches per (name, grid, block); 0: every launch */
    double tensor_flops_per_op;  /* NAN: unknown until calibrated */
    const char *tensor_check;    /* the calibration's one line, if done elsewhere */
    bool exit_handlers;          /* write the trace at exit and on fatal signals */
    bool verbose;                /* one line on stderr when counters are off, and where the trace went */
};

/* Subscribe and start tracing. Returns 0, or RL_ECUPTI / RL_EINVAL with
 * errmsg (another CUPTI subscriber: errmsg names it; a bad regex). */
int rl_tracer_start(const struct rl_tracer_options *opt, char *errmsg);

/* Bracket a step of a built-in workload (kernels/workloads.h). */
void rl_tracer_step_begin(const char *label, double analytic_flops, double analytic_bytes,
                          const char *precision);
void rl_tracer_step_end(void);

/* One run of a step. Run 0 opens a new step (rl_tracer_step_begin); a later
 * run of the same label reopens the step opened last: the same operation
 * again. A timing_only run is never counted: the step's time is the median
 * of its timing-only runs, its FLOPs and bytes come from its other run. */
void rl_tracer_step_begin_run(const char *label, double analytic_flops, double analytic_bytes,
                              const char *precision, int run, bool timing_only);

/* Counter quantities summed over the counted launches of the step labelled
 * `label` so far (available right after the step, before any flush).
 * Returns the number of counted launches; *launches gets all launches. */
int rl_tracer_step_counters(const char *label, double q[RL_Q_COUNT], int *launches);

/* The state of counters: "ok", "off" or "unavailable", and why (NULL when ok). */
const char *rl_tracer_counters_status(const char **reason);
const struct rl_metric_set *rl_tracer_metric_set(void);

/* Count every launch from now on regardless of the name filters and
 * samples (the calibration GEMM), or go back to them. */
void rl_tracer_force_counting(bool on);

/* Add a line to the trace's notes (skipped steps, failed checks). */
void rl_tracer_note(const char *text);

/* Set the Tensor Core FLOPs per counted op and the check line written to the trace. */
void rl_tracer_set_tensor_factor(double flops_per_op, const char *check_line);

/* Flush, join, write the trace (when out_path was given) and unsubscribe.
 * Returns 0 or RL_EIO with errmsg. Safe to call twice. */
int rl_tracer_finish(char *errmsg);

/* The records of the last finished trace; valid until the next start. */
const struct rl_trace_kernel *rl_tracer_kernels(size_t *n);

/* Demangle a C++ name into buf (the mangled name when it is not one). */
void rl_demangle(const char *mangled, char *buf, size_t size);

/* The decision a trace makes for counters from CUpti results, exposed for
 * tests: the one-line reason and fix for a CUPTI error (privileges,
 * another profiler, vGPU, MIG...). */
const char *rl_tracer_explain(int cupti_result, char *buf, size_t size);

/* The stream a driver launch callback's params name (cbid a
 * CUPTI_DRIVER_TRACE_CBID_*; the per-thread stream for a _ptsz NULL):
 * false for other calls. And whether a launch on a stream may be counted,
 * from cuStreamIsCapturing's result and status: only when not capturing
 * and the query worked (a launch into a CUDA graph capture is timed only;
 * counting it would synchronise inside the capture). */
bool rl_tracer_launch_stream(int cbid, const void *params, void **stream);
bool rl_tracer_capture_allows_counting(int query_result, int capture_status);

#ifdef __cplusplus
}
#endif

#endif
