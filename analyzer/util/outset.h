/* outset.h - output sets written all or nothing: staged beside their target, moved into place once every member is written. */
#ifndef RL_OUTSET_H
#define RL_OUTSET_H

#include <stdbool.h>
#include <stddef.h>

/* The files a command writes together (`report -o DIR`: its Markdown, JSON,
 * CSV and chart files; `chart -o a.svg -o a.pdf`: each image with its script
 * and data) are one set. Every member is written into a stage folder made
 * with mkdtemp beside its target ("<dir>.tmp.<pid>.XXXXXX" for a folder,
 * "<folder>/.roofline.tmp.<pid>.XXXXXX" for loose files), so the final
 * renames stay on one file system. rl_outset_commit() moves the stages into
 * place, rl_outset_abort() removes them: a failure anywhere leaves the
 * previous set (or none) as it was, and no stage behind.
 *
 * Two writers of one target each build their own stage. Commits hold an
 * exclusive flock() on the folder the target sits in, so one whole set
 * replaces the other and the two never mix. A folder is swapped in one step
 * with renameat2(RENAME_EXCHANGE): readers see the old set or the new, never
 * neither; where the file system lacks it, the old folder is renamed aside
 * and the new one renamed in, under the same lock. Loose files are each
 * renamed over their old version, the old ones kept (hard links) until the
 * last rename succeeds, to put back on a failure. */

/* Parts of a set: folders, or folders that loose files go to. */
#define RL_OUTSET_MAX 8

/* The mark in every folder set. A folder that exists, holds files and lacks
 * it is not roofline's, and is never replaced. */
#define RL_OUTSET_MARK ".roofline-set"

struct rl_outset_part {
    char *target;     /* the folder set; for loose files the folder they go to */
    char *shown;      /* loose: how the user wrote that folder ("", "out/") */
    char *stage;
    char *aside;      /* folder, no RENAME_EXCHANGE: the old set during commit */
    bool folder;
    char **names;     /* loose: the members (base names) */
    bool *had_old;    /* loose: the member existed before the commit */
    size_t n_names, n_done;
    int state;        /* commit progress (outset.c) */
};

/* Plain data: zero it to start ({0}); each rl_outset_folder() or
 * rl_outset_file() adds to it. */
struct rl_outset {
    struct rl_outset_part part[RL_OUTSET_MAX];
    size_t n;
};

/* Building */

/* A folder set at dir: the folder to write its files into in *stage (owned
 * by s). `what` (the command) goes into the mark. RL_EIO with errmsg saying
 * why when dir is not a folder, holds files and no RL_OUTSET_MARK, or the
 * stage cannot be made (the folder above dir missing, no permission). */
int rl_outset_folder(struct rl_outset *s, const char *dir, const char *what,
                     const char **stage, char *errmsg);

/* A loose file at path: the path to write it at into staged (size bytes).
 * Files written beside it in its stage (a chart's script and data) belong
 * to the set too. A member declared here and not written removes the old
 * file of that name at commit (a chart image gnuplot could not draw). */
int rl_outset_file(struct rl_outset *s, const char *path, char *staged, size_t size,
                   char *errmsg);

/* Finishing */

/* Move every stage into place: 0, or RL_EIO (errmsg says why) with every
 * target as it was before. Removes the stages in both cases. */
int rl_outset_commit(struct rl_outset *s, char *errmsg);

/* Remove the stages and what is in them; safe on a zeroed, committed or
 * aborted set. */
void rl_outset_abort(struct rl_outset *s);

/* Tests: every folder swap's renameat2(RENAME_EXCHANGE) fails with errno
 * e (EINVAL, ENOSYS, ENOTSUP: the file system lacks it, and the commit
 * renames the old set aside; anything else fails the commit), as on a file
 * system or kernel without it; 0 (the default) restores the real call. */
void rl_outset_fail_exchange(int e);

/* Replace each stage path in text (size bytes) by its target, so that a
 * message names the files where they will be. */
void rl_outset_unstage(const struct rl_outset *s, char *text, size_t size);

#endif
