/* metrics.h - the hardware counters roofline reads per kernel: per chip, with fallbacks and pass counts. */
#ifndef RL_PROFILER_METRICS_H
#define RL_PROFILER_METRICS_H

#include "analyzer/readers/counts.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The counter sets, one enum for the CLI, the tracer and the metric sets:
 * none (timing only), default (at most 2 replay passes on GH100), full. */
enum rl_counter_set { RL_COUNTERS_NONE, RL_COUNTERS_DEFAULT, RL_COUNTERS_FULL };


/* Every metric tried, for `roofline metrics`. */
struct rl_metric_tried {
    char name[96];
    bool valid;
    int q;                    /* the quantity it serves */
    bool chosen;
};

/* Tensor Core activity of any type, read beside the quantities: a kernel
 * whose Tensor Cores ran while every counted type's ops read 0 did work of
 * a type the set does not count, and its FLOPs are unknown, not smaller. */
#define RL_TENSOR_GUARD_MAX 4

struct rl_metric_set {
    char chip[32];
    enum rl_counter_set kind;
    int passes;               /* replay passes the set costs on this chip */
    bool on[RL_Q_COUNT];      /* quantity collected */
    char metric[RL_Q_COUNT][192]; /* its chosen candidate ("a.sum+b.sum") */
    /* The flat list of metric names handed to CUPTI, and where each
     * quantity's terms sit in it. */
    const char *names[RL_Q_COUNT * RL_Q_MAX_TERMS + RL_TENSOR_GUARD_MAX];
    char name_buf[RL_Q_COUNT * RL_Q_MAX_TERMS + RL_TENSOR_GUARD_MAX][96];
    int n_names;
    int term[RL_Q_COUNT][RL_Q_MAX_TERMS]; /* index into names, -1 unused */
    struct rl_metric_tried tried[RL_Q_COUNT * RL_Q_MAX_CANDIDATES * RL_Q_MAX_TERMS];
    int n_tried;
    /* The Tensor Core activity metrics of the chip in the set (indices into
     * names), only where they add no replay pass; 0 of them: not read. */
    int guard[RL_TENSOR_GUARD_MAX];
    int n_guard;
};

/* Build the set for chip (GH100, GA100, AD102, GB100, ...) with the CUPTI
 * host API: no GPU needed. The default set takes every required quantity
 * and then optional ones, in table order, while the passes stay within
 * max(2, passes of the required ones); the full set takes every quantity
 * the chip has. counter_avail (may be NULL) is the device's counter
 * availability image. Returns 0, or an RL_E* code with errmsg (an unknown
 * chip, a required quantity with no valid name). */
int rl_metric_set_build(const char *chip, enum rl_counter_set kind,
                        const uint8_t *counter_avail, struct rl_metric_set *out, char *errmsg);

/* Config image of a built set (for the range profiler); caller frees. */
int rl_metric_set_config(const struct rl_metric_set *set, const uint8_t *counter_avail,
                         uint8_t **image, size_t *size, char *errmsg);

/* An evaluator: a CUPTI host object holding a set's config, which turns a
 * decoded counter-data image into metric values. */
struct rl_metric_evaluator;

/* Open an evaluator for set and hand out its config image (owned by the
 * evaluator). Returns 0 or an RL_E* code with errmsg. */
int rl_metric_evaluator_open(const struct rl_metric_set *set, const uint8_t *counter_avail,
                             struct rl_metric_evaluator **ev, const uint8_t **image,
                             size_t *image_size, char *errmsg);

/* Values of every name of the set (set->n_names of them) in range `range`
 * of a decoded counter-data image. Returns 0 or RL_ECUPTI with errmsg. */
int rl_metric_evaluate(struct rl_metric_evaluator *ev, const uint8_t *data, size_t data_size,
                       size_t range, double *values, char *errmsg);

void rl_metric_evaluator_close(struct rl_metric_evaluator *ev);

/* Load libnvperf_host.so from the folder of the libcupti in use, before
 * CUPTI looks for it by name (once per process; the profiler calls it
 * first). Returns the path of the libnvperf_host.so loaded, or NULL when
 * neither that folder nor the loaded libraries have one (CUPTI's own
 * search then applies). */
const char *rl__nvperf_preload(void);

/* Sum each quantity's terms from per-name values (NAN when not collected). */
void rl_metric_set_quantities(const struct rl_metric_set *set, const double *name_values,
                              double *q_values);

/* The sum of the set's Tensor Core activity metrics (only 0 or not 0
 * means anything: they mix instructions and cycles), NAN without any. */
double rl_metric_set_tensor_activity(const struct rl_metric_set *set, const double *name_values);

#endif
