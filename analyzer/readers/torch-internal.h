/* torch-internal.h - the PyTorch trace reader's state between reading (torch.c) and linking (torch-link.c); not for other modules. */
#ifndef RL_TORCH_INTERNAL_H
#define RL_TORCH_INTERNAL_H

#include "analyzer/readers/torch.h"
#include "analyzer/readers/torchops.h"

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
    char collective[32];        /* record_param_comms: "allreduce" ...; "" */
    double comm_bytes;          /* its message bytes; NAN */
    int group_size;
};

/* One operator call (cpu_op). */
struct tr_op {
    double ts, end;
    int64_t ext;                /* External id; -1 none */
    uint32_t thread, sig;
    uint32_t parent;            /* index + 1 of the enclosing call; 0 none */
    uint32_t best;              /* index + 1 of its longest GPU activity; 0 none */
};

/* One runtime or driver call with a correlation id. */
struct tr_rt {
    int64_t corr, ext;
    double ts;
    uint32_t thread;
};

enum { TR_KERNEL, TR_MEMCPY, TR_MEMSET };
enum { TR_COPY_OTHER, TR_COPY_D2D, TR_COPY_H2D, TR_COPY_D2H };

/* One GPU activity. */
struct tr_gpu {
    int64_t corr, ext;
    double ts, dur, bytes;      /* bytes: a copy's or fill's (args.bytes); NAN */
    uint32_t kname, name_len;   /* in knames: name, then grid[3] and block[3] */
    int device;
    uint8_t kind, memcpy_dir;
    uint32_t op;                /* index + 1 of its operator call; 0 none */
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
    struct tr_intern sigs, opnames, strings, threads, knames;
    struct tr_sig *sig;
    size_t sig_cap;
    struct tr_op *ops;
    size_t n_ops, ops_cap;
    struct tr_rt *rts;
    size_t n_rts, rts_cap;
    struct tr_gpu *gpus;
    size_t n_gpus, gpus_cap;
    struct tr_device devices[TR_MAX_DEVICES];
    size_t n_devices;
    bool have_events, kineto;
    long long ts_base;          /* microseconds every ts is counted from */
    bool have_base;
    char display_unit[16];
};

long tr_intern(struct tr_intern *t, const char *text, size_t n, bool *added);
void tr_intern_release(struct tr_intern *t);
int tr_reserve(void **v, size_t *cap, size_t n, size_t size);

/* The direction of a copy from its "kind" or name ("Memcpy DtoD (Device ->
 * Device)", "Memcpy HtoD (Pageable -> Device)"). */
int tr_memcpy_dir(const char *kind);

/* Link every GPU activity to its operator and add them to g (torch-link.c). */
int tr_link(struct tr_state *s, struct rl_trace_groups *g, const char *what, char *errmsg);
void tr_state_release(struct tr_state *s);

#endif
