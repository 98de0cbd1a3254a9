/* records.h - kernel records (name, FLOPs, bytes per level, time) and their JSON files. */
#ifndef RL_RECORDS_H
#define RL_RECORDS_H

#include "analyzer/model/model.h"
#include "analyzer/readers/tracefile.h"

#include <stdint.h>

struct rl_kernel_record {
    char *name;           /* owned */
    char precision[24];   /* roof to judge it against ("bf16"); "" = default */
    struct rl_kernel_perf perf;
    double comm_bytes;    /* bytes it sends over the link (per GPU); NAN: none */
    uint64_t count;       /* launches aggregated into this record (>= 1) */
    enum rl_origin origin;/* measured (a trace) or analytic (a formula) */
    char signature[64];   /* traces: "grid 128x1x1 block 256x1x1" of the launches merged; "" */
};

struct rl_record_list {
    struct rl_kernel_record *v;
    size_t n, cap;
};

/* Construction */

/* Append a copy of r (its name is duplicated). RL_ENOMEM on failure. */
int rl_record_list_push(struct rl_record_list *l, const struct rl_kernel_record *r);
void rl_record_list_release(struct rl_record_list *l);

/* Reading (format: docs/file-formats.md, "Kernels file") */

/* Parse a kernels document: a JSON array of records, or an object with a
 * "kernels" array (as `roofline trace` writes). Each record:
 *   name (string), flops (number), bytes or dram_bytes (number),
 *   optional l2_bytes, l1_bytes, time_ns, count, precision, origin, comm_bytes
 *   (bytes it sends over the GPU link: judged against the link roof).
 * Errors name the file, the line and the record:
 * "'k.json': line 7: kernels[1] 'gemv': 'flops' must be a number >= 0".
 * A trace ("format": "roofline-trace") is read leniently: launches without
 * FLOPs (timing only) are skipped, and launches of the same kernel name,
 * grid and block become one record of `count` launches with their FLOPs,
 * bytes and times summed. */
int rl_records_parse(struct rl_record_list *l, const char *text, size_t len,
                     const char *what, char *errmsg);
int rl_records_load(struct rl_record_list *l, const char *path, char *errmsg);

/* The kernels of a kernels file or a trace, added to g as kernel groups (the
 * one type every source fills): a trace through the trace reader (every
 * group, timing-only ones too); a kernels file's records one group per name
 * (records of one name are summed). */
int rl_records_load_groups(struct rl_trace_groups *g, const char *path, char *errmsg);

#endif
