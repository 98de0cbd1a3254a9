/* torch-internal.h - the PyTorch trace reader's state between reading (torch.c) and linking (torch-link.c); not for other modules. */
#ifndef RL_TORCH_INTERNAL_H
#define RL_TORCH_INTERNAL_H

#include "analyzer/readers/timeline.h"
#include "analyzer/readers/torch.h"
#include "analyzer/readers/torch-split.h"
#include "analyzer/readers/torchops.h"
#include "analyzer/readers/torchops-llm.h"
#include "analyzer/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strings interned: an id per distinct byte string (ids from 0). */
struct tr_intern {
    uint32_t *slot;             /* hash table of id + 1 */
    size_t slots;
    uint64_t *hash;
    size_t *off, *len;          /* into arena */
    size_t n, cap;
    char *arena;                /* the strings, each NUL-terminated */
    size_t arena_len, arena_cap;
};

static inline const char *tr_text(const struct tr_intern *t, uint32_t id)
{
    return t->arena + t->off[id];
}

/* One operator signature (name and arguments) with its cost. */
struct tr_sig {
    uint32_t name;              /* in opnames */
    uint32_t shapes;            /* in strings: "2048x4096, 4096x14336" */
    bool has_shapes;
    struct rl_torch_cost cost;
    struct rl_torch_parts parts; /* what separate kernels of a call compute (torch-split) */
    char collective[32];        /* record_param_comms: "allreduce" ...; "" */
    double comm_bytes;          /* its message bytes; NAN */
    int group_size;
    char pg[24];                /* its Process Group Name; "" */
};

/* Chunked storage: elements of `size` bytes in chunks of TR_CHUNK_LEN that
 * never move. Growing adds one chunk, so the peak is the live data plus one
 * chunk (a doubling realloc peaks at three times the live data). */
#define TR_CHUNK_SHIFT 12
#define TR_CHUNK_LEN ((size_t)1 << TR_CHUNK_SHIFT)
struct tr_chunks {
    char **chunk;
    size_t n, n_chunks, chunks_cap;
    size_t size;                /* bytes per element; set before the first push */
};

static inline void *tr_at(const struct tr_chunks *c, size_t i)
{
    return c->chunk[i >> TR_CHUNK_SHIFT] + (i & (TR_CHUNK_LEN - 1)) * c->size;
}

/* A new zeroed element at the end; NULL: no memory. */
void *tr_chunks_push(struct tr_chunks *c);
void tr_chunks_release(struct tr_chunks *c);

/* An int64 id (External id, correlation) to an index. Ids mostly arrive
 * increasing: those are kept as sorted (id, index) pairs in chunks (12
 * bytes an id, found by bisection); the others go to a hash table. The
 * first index put under an id is kept. */
struct tr_ids {
    struct tr_chunks pairs;
    int64_t last;
    int64_t *key;               /* the hash table: key, index + 1 (0 empty) */
    uint32_t *val;
    size_t slots, used;
};

int tr_ids_put(struct tr_ids *m, int64_t id, uint32_t index);
/* index + 1; 0: not there */
uint32_t tr_ids_get(const struct tr_ids *m, int64_t id);
void tr_ids_release(struct tr_ids *m);

/* One operator call (cpu_op), by its index in the order read. */
struct tr_op {
    double ts, end;
    int64_t ext;                /* External id; -1 none */
    uint32_t thread, sig;
    uint32_t held;              /* a costed call: index + 1 in held of its last GPU
                                 * activity linked (they chain by next); 0 none */
};

/* One runtime or driver call with a correlation id (the id is in rt_ids). */
struct tr_rt {
    int64_t ext;
    double ts;
    uint32_t thread;
    uint8_t graph;              /* a graph launch: 1 cudaGraphLaunch, 2 hipGraphLaunch */
};

enum { TR_KERNEL, TR_MEMCPY, TR_MEMSET };
enum { TR_COPY_OTHER, TR_COPY_D2D, TR_COPY_H2D, TR_COPY_D2H };

/* One GPU activity, as far as linking and its group need it (its span has
 * gone into the device's busy time when read). */
struct tr_gpu {
    int64_t corr, ext;
    double dur, bytes;          /* bytes: a copy's or fill's (args.bytes); NAN */
    uint64_t seq;               /* its place among the GPU activities read */
    uint32_t kname;             /* in knames: name, then grid[3] and block[3] */
    uint32_t op;                /* index + 1 of its operator call; 0 none */
    uint32_t next;              /* held: index + 1 of the call's activity linked before; 0 */
    uint8_t kind, memcpy_dir;
    bool collided;              /* an External id named a call that did not launch it */
};

/* GPU activities linked by their own External id whose runtime call is not
 * read yet: held until it is (or the end), keyed by correlation (several
 * under one: a CUDA graph's kernels). Open addressing; a slot's corr is
 * TR_WAIT_EMPTY or TR_WAIT_GONE when it holds none. */
#define TR_WAIT_EMPTY INT64_MIN
#define TR_WAIT_GONE (INT64_MIN + 1)
struct tr_wait {
    struct tr_gpu *v;
    size_t slots, used, gone;
};

/* The busy intervals of one device: sorted, disjoint and not touching. */
struct tr_busy {
    int device;
    double first, last;         /* the first start, the last end */
    struct { double ts, end; } *v;
    size_t n, cap;
    double folded_ns;           /* busy time of the intervals folded away (us) */
    double folded_end;          /* where they end; -INFINITY none */
};

#define TR_MAX_DEVICES 64

struct tr_device {
    int id;
    char name[96];
    double memory_bytes;
    int sm_count, warp_size, cc_major, cc_minor;
};

struct tr_state {
    struct rl_torch_stats *st;
    struct rl_trace_groups *g;
    struct rl_timeline *tl;     /* filled when set (rl_torch_load_timeline); NULL */
    struct tr_ids comm_seq;     /* with tl: a collective op's index -> its Seq */
    struct tr_intern sigs, opnames, strings, threads, knames;
    struct tr_comm_memo *comm_memo; /* rl_comm_recognize by (kernel, operator) name ids;
                                     * NULL until the first look (torch-link.c) */
    struct rl_strbuf sig_key;   /* an op's signature text, reused (torch.c) */
    uint32_t thread_last;       /* thread_of's last answer, for thread_last_pid/tid */
    bool thread_last_ok;
    char thread_last_pid[48], thread_last_tid[48];
    uint8_t *kname_role;        /* per knames id: rl_torch_kernel_role + 1, 0 unseen
                                 * (torch-link.c) */
    size_t kname_role_cap;
    struct tr_sig *sig;
    size_t sig_cap;
    struct tr_chunks ops;       /* struct tr_op, every call: needed until the end */
    struct tr_ids op_ext;       /* External id -> op */
    struct tr_chunks rts;       /* struct tr_rt */
    struct tr_ids rt_corr;      /* correlation -> rt */
    struct tr_chunks held;      /* struct tr_gpu: the activities of costed calls, their
                                 * cost split over them at the end (torch-link.c) */
    struct tr_wait wait;        /* linked by External id, waiting for their runtime call */
    struct tr_gpu *tmp;         /* scratch: one call's activities, or those a runtime call frees */
    size_t tmp_cap;
    struct tr_chunks pending;   /* struct tr_gpu: not linkable when read */
    struct tr_chunks late;      /* struct tr_gpu: linked NCCL kernels, emitted last */
    struct tr_chunks graph;     /* struct tr_gpu: replayed from a graph, emitted after all */
    bool graph_pass;            /* emitting those (torch-graph.c) */
    int64_t *twin;              /* per kname: index + 1 of an eager twin group, -1 none, 0 unseen */
    size_t twin_cap;
    struct tr_serve { double ts, end; struct rl_torch_llm_step step; } *serve; /* annotations */
    size_t n_serve, serve_cap;
    char graph_op[192];         /* a replayed group's operator: "(CUDA graph replay) aten::mm" */
    uint64_t n_gpus;
    int first_device;
    struct tr_busy *busy;
    size_t n_busy, busy_cap;
    double *unk_time;           /* per opnames id: kernels of operators not costed */
    uint64_t *unk_launches;
    size_t unk_cap;
    size_t groups_first;        /* g->n before this trace */
    struct tr_intern gkeys;     /* per group this trace made: kname, op name, shapes */
    struct tr_group_seen { uint64_t seq; uint32_t index; } *gseen; /* its first activity read */
    size_t gseen_cap;
    uint32_t *parent;           /* per op, index + 1 of the enclosing call (at the end) */
    uint32_t *order;            /* the ops sorted by thread and start (at the end) */
    struct tr_device devices[TR_MAX_DEVICES];
    size_t n_devices;
    bool have_events;
    long long ts_base;          /* microseconds every ts is counted from */
    bool have_base;
    char display_unit[16];
};

long tr_intern(struct tr_intern *t, const char *text, size_t n, bool *added);
void tr_intern_release(struct tr_intern *t);
int tr_reserve(void **v, size_t *cap, size_t n, size_t size);

/* Each device's busy intervals (torch-store.c): [ts, end] of an activity
 * on `device` added (RL_ENOMEM); at the end, their union and span summed
 * over devices into the stats (scale: to ns). */
int tr_busy_add(struct tr_state *s, int device, double ts, double end);
void tr_gpu_time(struct tr_state *s, double scale);

/* The activities waiting for their runtime call (torch-store.c): k added
 * (RL_ENOMEM); those under correlation corr (all: every one) taken out
 * into *buf (grown as needed, *cap its size) in the order read, *n of
 * them (RL_ENOMEM, none taken). */
int tr_wait_put(struct tr_wait *w, const struct tr_gpu *k);
int tr_wait_take(struct tr_wait *w, int64_t corr, bool all, struct tr_gpu **buf, size_t *cap,
                 size_t *n);

/* The direction of a copy from its "kind" or name ("Memcpy DtoD (Device ->
 * Device)", "Memcpy HtoD (Pageable -> Device)"). */
int tr_memcpy_dir(const char *kind);

/* One GPU activity read (torch-link.c): its span counted in its device's
 * busy time, and added to the groups at once when its operator call is
 * known, else kept to link at the end. RL_ENOMEM. */
int tr_take_gpu(struct tr_state *s, const struct tr_gpu *k, int device, double ts);
/* A runtime call read (and kept in rts under corr): the activities that
 * waited for it are checked against it and linked (torch-link.c). RL_ENOMEM. */
int tr_take_runtime(struct tr_state *s, int64_t corr);
/* After the last event: link what is left, add it to the groups (torch-link.c). */
int tr_link(struct tr_state *s, const char *what, char *errmsg);
void tr_state_release(struct tr_state *s);

/* Kernels replayed from a CUDA or HIP graph (torch-graph.c): launched by
 * cudaGraphLaunch / hipGraphLaunch, with no operator of their own. */
/* 1 cudaGraphLaunch (and cuGraphLaunch), 2 hipGraphLaunch; 0 another call. */
uint8_t tr_graph_launch_name(const char *runtime_call);
/* The graph launch k came from (0 none); *label "(CUDA graph replay)". */
uint8_t tr_graph_of(const struct tr_state *s, const struct tr_gpu *k, const char **label);
/* Cost l (a replayed kernel, name and launch shape set) from a group of
 * the same kernel, grid and block that ran eagerly under a costed
 * operator in this trace: its FLOPs and bytes per launch. Returns whether
 * one was found. RL_ENOMEM is returned through *err. */
bool tr_graph_twin(struct tr_state *s, const struct tr_gpu *k, struct rl_trace_launch *l,
                   int *err);
/* A serving step's annotation (name, span): kept when it parses
 * (rl_torch_llm_step_parse) for the replayed kernels launched in it.
 * RL_ENOMEM. */
int tr_graph_step(struct tr_state *s, const char *name, double ts, double end);
/* The notes' line on the graph replays into buf (size > 0): the length
 * written, as snprintf's (may exceed size: the caller stops there). */
size_t tr_graph_note(const struct rl_torch_stats *st, char *buf, size_t size);

#endif
