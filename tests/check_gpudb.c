/* check_gpudb.c - tests of the GPU database's name matching and suggestions, on a database built in the test. */
#include "test_util.h"

#include "error.h"
#include "gpudb.h"

#include <stdio.h>
#include <string.h>

/* A database of made-up GPUs: what matching sees, nothing else. */
static struct rl_gpu_spec gpus[6];
static struct rl_gpudb db;

static void add(const char *id, const char *name, const char *alias)
{
    struct rl_gpu_spec *s = &gpus[db.n++];
    memset(s, 0, sizeof *s);
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->name, sizeof s->name, "%s", name);
    if (alias)
        snprintf(s->aliases[s->n_aliases++], sizeof s->aliases[0], "%s", alias);
}

static void setup(void)
{
    memset(&db, 0, sizeof db);
    db.gpus = gpus;
    /* Sorted by id, as rl_gpudb_load leaves them. */
    add("aacd", "aacd", NULL);
    add("abcx", "abcx", NULL);
    add("abzd", "abzd", NULL);
    add("h100-sxm", "NVIDIA H100 SXM5 80GB", "H100 SXM5");
    add("h200", "NVIDIA H200", NULL);
    add("zzcd", "zzcd", NULL);
}

static const char *norm(const char *name)
{
    static char buf[128];
    rl_gpudb_normalize(name, buf, sizeof buf);
    return buf;
}

START_TEST(normalize)
{
    /* Lower case; spaces, '-' and '_' dropped; a leading "NVIDIA" (any case)
     * stripped. */
    ck_assert_str_eq(norm("H100-SXM5"), "h100sxm5");
    ck_assert_str_eq(norm("NVIDIA H100 80GB HBM3"), "h10080gbhbm3");
    ck_assert_str_eq(norm("nvidia_h200"), "h200");
    ck_assert_str_eq(norm("Nvidia-A100"), "a100");
    ck_assert_str_eq(norm(" A-1_0 "), "a10");
    ck_assert_str_eq(norm("NVIDIA"), "");
    ck_assert_str_eq(norm(""), "");
    /* Only a leading NVIDIA. */
    ck_assert_str_eq(norm("GeForce NVIDIA"), "geforcenvidia");
    /* Truncated to the buffer: 3 characters and the NUL. */
    char small[4];
    rl_gpudb_normalize("RTX-4090", small, sizeof small);
    ck_assert_str_eq(small, "rtx");
}
END_TEST

START_TEST(find_by_id_name_alias)
{
    ck_assert_str_eq(rl_gpudb_find(&db, "h100-sxm")->id, "h100-sxm");
    ck_assert_str_eq(rl_gpudb_find(&db, "H100 SXM")->id, "h100-sxm");
    /* The alias "H100 SXM5", written with a dash. */
    ck_assert_str_eq(rl_gpudb_find(&db, "H100-SXM5")->id, "h100-sxm");
    /* The prefix stripped from the query ("h100sxm5" is the alias). */
    ck_assert_str_eq(rl_gpudb_find(&db, "NVIDIA H100 SXM5")->id, "h100-sxm");
    ck_assert_str_eq(rl_gpudb_find(&db, "NVIDIA H100 SXM5 80GB")->id, "h100-sxm");
    ck_assert_str_eq(rl_gpudb_find(&db, "nvidia h200")->id, "h200");
    ck_assert_str_eq(rl_gpudb_find(&db, "H200")->id, "h200");
    /* No partial matches; nothing for an empty name. */
    ck_assert_ptr_null(rl_gpudb_find(&db, "h10"));
    ck_assert_ptr_null(rl_gpudb_find(&db, "h200x"));
    ck_assert_ptr_null(rl_gpudb_find(&db, ""));
    ck_assert_ptr_null(rl_gpudb_find(&db, "NVIDIA"));
}
END_TEST

START_TEST(suggestions_by_distance_then_prefix)
{
    /* "abcd" is one edit from aacd, abcx and abzd, which share 1, 3 and 2
     * leading characters with it; zzcd is two edits away. Ties go to the
     * longer shared prefix: abcx, abzd, aacd. */
    const struct rl_gpu_spec *s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_gpudb_lookup(&db, "abcd", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err,
                     "unknown GPU 'abcd' (closest: abcx, abzd, aacd; 'roofline gpus' lists all)");
    /* A smaller distance beats a longer prefix: "zzcc" is one edit from zzcd. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "zzcc", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "(closest: zzcd, "));
    /* Distance to the alias counts: "H100 SXM6" is one edit from "h100sxm5". */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "H100 SXM6", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "(closest: h100-sxm, "));
    /* Found: 0 and the GPU. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "NVIDIA H200", &s, err), RL_OK);
    ck_assert_str_eq(s->id, "h200");
}
END_TEST

START_TEST(fewer_gpus_than_suggestions)
{
    db.n = 2;
    const struct rl_gpu_spec *s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_gpudb_lookup(&db, "abcd", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'abcd' (closest: abcx, aacd; 'roofline gpus' lists all)");
}
END_TEST

static Suite *gpudb_suite(void)
{
    Suite *s = suite_create("gpudb");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, normalize);
    tcase_add_test(core, find_by_id_name_alias);
    tcase_add_test(core, suggestions_by_distance_then_prefix);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, fewer_gpus_than_suggestions);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(gpudb_suite()); }
