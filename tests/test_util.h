/* test_util.h - helpers shared by the Check suites: paths, temp folders, running the CLI. */
#ifndef RL_TEST_UTIL_H
#define RL_TEST_UTIL_H

#include <check.h>
#include <stddef.h>

/* Run the suite with CK_NORMAL output; return 0 if every test passed. */
int rl_test_run(Suite *s);

/* The same, every test in this process (never forked): for the GPU suites,
 * whose process has initialised CUDA, which a forked child cannot use. */
int rl_test_run_unforked(Suite *s);

/* strdup() for the whole test program (the libraries are linked statically,
 * so their calls land here), failing on demand to reach out-of-memory paths:
 * every call while rl_test_strdup_fail is set, or the copy of the one string
 * equal to rl_test_strdup_fail_for. */
extern int rl_test_strdup_fail;
extern const char *rl_test_strdup_fail_for;

/* A fresh temporary folder (removed at exit with its content). */
const char *rl_test_tmpdir(void);

/* Path of a file in tests/data/ (static buffer, valid until the next call). */
const char *rl_test_data(const char *name);

/* Read a whole file (malloc'd, NUL-terminated) or NULL. */
char *rl_test_slurp(const char *path);

/* Result of running the roofline binary. */
struct rl_run {
    int status;  /* exit code, or -1 if it did not exit normally */
    char *out;   /* stdout (malloc'd) */
    char *err;   /* stderr (malloc'd) */
};

/* Run `roofline <args...>` (NULL-terminated) with extra environment
 * assignments env (NULL-terminated, may be NULL). */
struct rl_run rl_test_cli(const char *const *env, const char *arg0, ...);
void rl_run_release(struct rl_run *r);

/* Compare text with tests/data/golden/<name>; ROOFLINE_UPDATE_GOLDEN=1
 * rewrites the file instead (then read the diff). */
void rl_test_golden(const char *text, const char *name);

/* A GPU of the shipped database (data/gpus), loaded once per process;
 * fails the test when the id is unknown. */
struct rl_gpu_spec;
const struct rl_gpu_spec *rl_test_gpu(const char *id);

/* Entries of folder dir whose name contains needle (a set's stages: ".tmp."). */
int rl_test_count_entries(const char *dir, const char *needle);

/* Count occurrences of needle in hay. */
size_t rl_test_count(const char *hay, const char *needle);

#endif
