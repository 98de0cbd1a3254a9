/* timeline.h - one rank's GPU timeline from its trace: every GPU activity's span (compute, communication, copy), the collectives' message bytes, the ProfilerStep spans. */
#ifndef RL_TIMELINE_H
#define RL_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a GPU activity does. */
enum rl_act_kind { RL_ACT_COMPUTE, RL_ACT_COMM, RL_ACT_COPY };

/* One GPU activity. Times in ns from the timeline's base_us. */
struct rl_timeline_act {
    double start_ns, end_ns;
    double comm_bytes;          /* a collective's message bytes; NAN unknown */
    int32_t stream, group_size; /* -1 / 0 unknown */
    uint8_t kind;               /* enum rl_act_kind */
    char collective[15];        /* "allreduce" ...; "" unknown or not one */
    char pg[16];                /* its process group's name; "" unknown */
    long long seq;              /* its sequence number in the group; -1 unknown */
};

/* One ProfilerStep#N annotation. */
struct rl_timeline_step {
    long long number;
    double start_ns, end_ns;
};

struct rl_timeline {
    long long base_us;          /* epoch microseconds of the first thing placed */
    bool have_base;
    struct rl_timeline_act *act; /* in the order read */
    size_t n_act, cap_act;
    struct rl_timeline_step *step;
    size_t n_step, cap_step;
};

/* Construction (the trace readers). A time is whole_us + frac_us
 * microseconds since the epoch (split so that ns survive a double);
 * durations in us. RL_ENOMEM on failure. */
int rl_timeline_add_act(struct rl_timeline *t, long long whole_us, double frac_us, double dur_us,
                        int stream, enum rl_act_kind kind, const char *collective);
/* "ProfilerStep#12": step 12; other names are ignored (RL_OK). */
int rl_timeline_add_step(struct rl_timeline *t, const char *name, long long whole_us,
                         double frac_us, double dur_us);
/* Activity `index` (the order added) is a collective: its name (NULL:
 * the one the kernel name gave), process group (NULL: unknown), sequence
 * number (-1 unknown), message bytes and group size. An index past the end
 * is ignored. */
void rl_timeline_set_comm(struct rl_timeline *t, size_t index, const char *collective,
                          const char *pg, long long seq, double comm_bytes, int group_size);
/* Keep only the communication activities (after the per-rank sums that
 * need the others): memory falls to the collectives. */
void rl_timeline_keep_comm(struct rl_timeline *t);
void rl_timeline_release(struct rl_timeline *t);

#endif
