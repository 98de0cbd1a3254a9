/* ranks-split.h - a job's rank traces read by several processes (mpirun, srun): which process this is, its share of the files, and the per-rank summaries each sends process 0 through a folder every process sees.
 *
 * No MPI: the processes learn who they are from the launcher's environment
 * and meet in a folder beside the output (docs/ranks.md, "Several
 * processes"). A process's part is one file, written whole (temp file and
 * rename), in a versioned binary format that only the same roofline build
 * reads back (rl_rank_part_read checks it).
 */
#ifndef RL_REPORT_RANKS_SPLIT_H
#define RL_REPORT_RANKS_SPLIT_H

#include "analyzer/util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rl_rank_traces;
struct rl_torch_stats;

/* The part format's version: raise it when what a part holds changes. */
#define RL_RANK_PART_VERSION 1

/* Which process of how many this is, and where the parts meet. */
struct rl_rank_split {
    int index, count;           /* this process of count (0-based); count 1: alone */
    char launcher[16];          /* "mpirun", "srun", "mpich"; "" alone */
    char key[96];               /* the job's id from the launcher ("" none), in the folder's
                                 * name so that two jobs never share one */
    char folder[4096];          /* where the parts meet; "" until rl_rank_split_place */
    double timeout_s;           /* process 0's wait for the others' parts */
};

/* One process's reading: per file of the job, its slot in t (groups,
 * timelines, sums), its stats, its result code and error. */
struct rl_rank_part {
    struct rl_rank_traces *t;
    struct rl_torch_stats *stats;
    int *rc;
    char (*err)[RL_ERRMSG_SIZE];
};

/* Construction */

/* s from the environment: Open MPI's mpirun (OMPI_COMM_WORLD_RANK / _SIZE,
 * the job PMIX_NAMESPACE), Slurm's srun (SLURM_PROCID,
 * SLURM_STEP_NUM_TASKS - set by srun only, not in a batch script - and
 * SLURM_JOB_ID.SLURM_STEP_ID), MPICH's Hydra (PMI_RANK, PMI_SIZE); the
 * first launcher whose two variables are whole numbers with rank < size.
 * Else (torchrun's RANK is no launcher of roofline) count 1: alone.
 * timeout_s: 600. */
void rl_rank_split_detect(struct rl_rank_split *s);

/* s->folder: beside the output folder out ("<parent>/.<name>.parts-<key>"),
 * or in the working directory when out is NULL. RL_EINVAL when the name
 * would not fit. */
int rl_rank_split_place(struct rl_rank_split *s, const char *out, char *errmsg);

/* Queries */

/* Is file i of the job this process's to read? Every count-th from index. */
bool rl_rank_split_mine(const struct rl_rank_split *s, size_t i);

/* The exchange */

/* Another process than 0: write this process's part (its files' slots of
 * p) into s->folder. RL_EIO (the folder or file cannot be written). */
int rl_rank_split_send(const struct rl_rank_split *s, const struct rl_rank_part *p,
                       char *errmsg);

/* Process 0: wait for every other process's part (up to s->timeout_s from
 * the call), read each into p's slots, then remove the parts and the
 * folder. Errors: RL_EIO (a part that did not come in time, or one of
 * other files: a stale part, or a process that sees other files),
 * RL_EPARSE (a corrupt part), RL_ESCHEMA (a part of another format or
 * build), RL_ENOMEM. The parts are removed on failure too. */
int rl_rank_split_gather(const struct rl_rank_split *s, struct rl_rank_part *p, char *errmsg);

/* The format (for the exchange and its tests) */

/* Write the part of process s->index (the files that are its) to f.
 * RL_EIO when a write fails. */
int rl_rank_part_write(FILE *f, const struct rl_rank_split *s, const struct rl_rank_part *p);

/* Read the part of process `from` of s->count (named `what` in errors) from
 * f into p's slots, checked against p->t's files (paths, sizes, times).
 * RL_ENOTFOUND: the part is of other files (*its header only read);
 * RL_EPARSE: truncated, or its checksum or a count wrong; RL_ESCHEMA:
 * another format version or build; RL_ENOMEM. On failure the slots read
 * so far stay releasable (rl_rank_traces_release). */
int rl_rank_part_read(FILE *f, const char *what, const struct rl_rank_split *s, int from,
                      struct rl_rank_part *p, char *errmsg);

#endif
