/* paths.h - where roofline finds its data folder (GPU specs, model configs). */
#ifndef RL_PATHS_H
#define RL_PATHS_H

#include <stddef.h>

/* The data folder, first of: $ROOFLINE_DATA_DIR; <exe>/../share/roofline
 * (installed); the source tree's data/ (a build tree). Returns 0 and the
 * folder in buf, or RL_ENOTFOUND with errmsg saying where it looked. */
int rl_data_dir(char *buf, size_t size, char *errmsg);

#endif
