/* check_util_paths.c - tests of where roofline finds its data folder: $ROOFLINE_DATA_DIR, <exe>/../share/roofline, the source tree's data/. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/paths.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char buf[PATH_MAX + 64], err[RL_ERRMSG_SIZE];

START_TEST(the_variable_comes_first)
{
    /* A folder with gpus/schema.json: taken as given. */
    setenv("ROOFLINE_DATA_DIR", ROOFLINE_SOURCE_DIR "/data", 1);
    ck_assert_int_eq(rl_data_dir(buf, sizeof buf, err), RL_OK);
    ck_assert_str_eq(buf, ROOFLINE_SOURCE_DIR "/data");
    /* One without (tests/data holds no gpus/): refused, not passed over. */
    setenv("ROOFLINE_DATA_DIR", ROOFLINE_TEST_DATA_DIR, 1);
    ck_assert_int_eq(rl_data_dir(buf, sizeof buf, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "ROOFLINE_DATA_DIR='" ROOFLINE_TEST_DATA_DIR "' has no gpus/schema.json");
}
END_TEST

/* The folder of this test's executable, into dir. */
static void exe_dir(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    ck_assert_int_gt(n, 0);
    dir[n] = 0;
    char *slash = strrchr(dir, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = 0;
}

START_TEST(installed_then_the_source_tree)
{
    /* No variable (or an empty one), nothing installed beside the
     * executable: the source tree's data/. */
    unsetenv("ROOFLINE_DATA_DIR");
    ck_assert_int_eq(rl_data_dir(buf, sizeof buf, err), RL_OK);
    ck_assert_str_eq(buf, ROOFLINE_SOURCE_DIR "/data");
    setenv("ROOFLINE_DATA_DIR", "", 1);
    ck_assert_int_eq(rl_data_dir(buf, sizeof buf, err), RL_OK);
    ck_assert_str_eq(buf, ROOFLINE_SOURCE_DIR "/data");
    /* An installed layout: <exe>/../share/roofline with gpus/schema.json
     * comes before the source tree. */
    /* Each path a few bytes longer than the one it extends. */
    char dir[PATH_MAX], share[PATH_MAX + 16], roof[PATH_MAX + 32], gpus[PATH_MAX + 48],
        schema[PATH_MAX + 64], want[PATH_MAX + 32];
    exe_dir(dir, sizeof dir);
    snprintf(share, sizeof share, "%s/../share", dir);
    snprintf(roof, sizeof roof, "%s/roofline", share);
    snprintf(gpus, sizeof gpus, "%s/gpus", roof);
    snprintf(schema, sizeof schema, "%s/schema.json", gpus);
    bool made_share = mkdir(share, 0755) == 0;
    ck_assert_int_eq(mkdir(roof, 0755), 0);
    ck_assert_int_eq(mkdir(gpus, 0755), 0);
    FILE *f = fopen(schema, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    int rc = rl_data_dir(buf, sizeof buf, err);
    snprintf(want, sizeof want, "%s/../share/roofline", dir);
    remove(schema);
    rmdir(gpus);
    rmdir(roof);
    if (made_share)
        rmdir(share);
    ck_assert_int_eq(rc, RL_OK);
    ck_assert_str_eq(buf, want);
}
END_TEST

static Suite *paths_suite(void)
{
    Suite *s = suite_create("util_paths");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, the_variable_comes_first);
    tcase_add_test(tc, installed_then_the_source_tree);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return rl_test_run(paths_suite()); }
