/* check_outset.c - output sets: all or nothing, a failure leaves the previous set, two writers never mix. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/outset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* The content of dir/name, "" when missing (static buffer). */
static const char *get(const char *dir, const char *name)
{
    static char text[256];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    text[0] = '\0';
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    return text;
}

static bool exists(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}


/* Files in dir, the mark not counted. */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A fresh folder under the test's temporary one. */
static const char *fresh(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", rl_test_tmpdir(), name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    return path;
}

/* A folder set of files name=text..., committed. */
static int write_folder(const char *dir, const char *const *files, char *err)
{
    struct rl_outset s = {0};
    const char *stage;
    int rc = rl_outset_folder(&s, dir, "test", &stage, err);
    if (rc)
        return rc;
    for (size_t i = 0; files[i]; i += 2)
        put(stage, files[i], files[i + 1]);
    return rl_outset_commit(&s, err);
}

START_TEST(folder_set_replaced_whole)
{
    const char *top = fresh("whole");
    char dir[1100], err[RL_ERRMSG_SIZE];
    snprintf(dir, sizeof dir, "%s/out", top);
    static const char *const a[] = {"one", "a1", "two", "a2", NULL};
    ck_assert_msg(write_folder(dir, a, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "one"), "a1");
    ck_assert_str_eq(get(dir, "two"), "a2");
    ck_assert_str_eq(get(dir, RL_OUTSET_MARK), "roofline test\n");
    /* The second set has one file: the first set's other file goes with it. */
    static const char *const b[] = {"one", "b1", NULL};
    ck_assert_msg(write_folder(dir, b, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "one"), "b1");
    ck_assert(!exists(dir, "two"));
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    /* The folder has the mode mkdir gives, not mkdtemp's 0700. */
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    ck_assert_int_eq(st.st_mode & 0777, 0777 & ~mask);
    /* A trailing slash names the same folder. */
    char slash[1200];
    snprintf(slash, sizeof slash, "%s/", dir);
    static const char *const c[] = {"three", "c3", NULL};
    ck_assert_msg(write_folder(slash, c, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "three"), "c3");
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

START_TEST(folder_swap_without_rename_exchange)
{
    /* Where renameat2(RENAME_EXCHANGE) fails with EINVAL, ENOSYS or
     * ENOTSUP (no support), the old set is renamed aside and the new one
     * in; the aside goes at the end. Any other failure fails the commit. */
    static const int lacks[] = {EINVAL, ENOSYS, ENOTSUP};
    char dir[1100], err[RL_ERRMSG_SIZE];
    for (size_t i = 0; i < sizeof lacks / sizeof lacks[0]; i++) {
        const char *top = fresh("no-exchange");
        snprintf(dir, sizeof dir, "%s/out", top);
        rl_outset_fail_exchange(lacks[i]);
        static const char *const a[] = {"one", "a1", "two", "a2", NULL};
        ck_assert_msg(write_folder(dir, a, err) == 0, "errno %d: %s", lacks[i], err);
        static const char *const b[] = {"one", "b1", NULL};
        ck_assert_msg(write_folder(dir, b, err) == 0, "errno %d: %s", lacks[i], err);
        ck_assert_str_eq(get(dir, "one"), "b1");
        ck_assert(!exists(dir, "two"));
        ck_assert_int_eq(count_files(top), 1); /* out, no stage or aside left */
        ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
        /* A second part that fails puts the old set back from aside. */
        char blocker[1200], path[1200], staged[4096];
        snprintf(blocker, sizeof blocker, "%s/b.svg", top);
        ck_assert_int_eq(mkdir(blocker, 0777), 0);
        put(blocker, "inside", "x");
        struct rl_outset s = {0};
        const char *stage;
        ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), 0);
        put(stage, "one", "c1");
        snprintf(path, sizeof path, "%s/b.svg", top);
        ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
        FILE *f = fopen(staged, "w");
        ck_assert_ptr_nonnull(f);
        fputs("svg", f);
        fclose(f);
        ck_assert_int_eq(rl_outset_commit(&s, err), RL_EIO);
        ck_assert_str_eq(get(dir, "one"), "b1");
        ck_assert_int_eq(count_files(dir), 1);
        ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    }
    /* Another error: the commit fails, naming the folder; nothing moved. */
    const char *top = fresh("exchange-fails");
    snprintf(dir, sizeof dir, "%s/out", top);
    rl_outset_fail_exchange(0);
    static const char *const a[] = {"one", "a1", NULL};
    ck_assert_msg(write_folder(dir, a, err) == 0, "%s", err);
    rl_outset_fail_exchange(EIO);
    static const char *const b[] = {"one", "b1", NULL};
    ck_assert_int_eq(write_folder(dir, b, err), RL_EIO);
    char want[1300];
    snprintf(want, sizeof want, "cannot replace '%s': %s", dir, strerror(EIO));
    ck_assert_msg(strstr(err, want) != NULL, "%s", err);
    ck_assert_str_eq(get(dir, "one"), "a1");
    ck_assert_int_eq(count_files(top), 1);
    rl_outset_fail_exchange(0);
}
END_TEST

START_TEST(abort_leaves_the_previous_set)
{
    const char *top = fresh("abort");
    char dir[1100], err[RL_ERRMSG_SIZE];
    snprintf(dir, sizeof dir, "%s/out", top);
    static const char *const a[] = {"one", "a1", "two", "a2", NULL};
    ck_assert_msg(write_folder(dir, a, err) == 0, "%s", err);
    /* A member fails: the command aborts. Nothing of the new set shows. */
    struct rl_outset s = {0};
    const char *stage;
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), 0);
    put(stage, "one", "b1");
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 1);
    rl_outset_abort(&s);
    ck_assert_str_eq(get(dir, "one"), "a1");
    ck_assert_str_eq(get(dir, "two"), "a2");
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    rl_outset_abort(&s); /* twice is harmless */
    /* No set before: none after. */
    char never[1100];
    snprintf(never, sizeof never, "%s/never", top);
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(rl_outset_folder(&s, never, "test", &stage, err), 0);
    put(stage, "one", "x");
    rl_outset_abort(&s);
    ck_assert_int_ne(access(never, F_OK), 0);
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

START_TEST(foreign_folders_are_never_replaced)
{
    const char *top = fresh("foreign");
    char dir[1100], err[RL_ERRMSG_SIZE];
    snprintf(dir, sizeof dir, "%s/mine", top);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    put(dir, "thesis.tex", "keep");
    struct rl_outset s = {0};
    const char *stage;
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "holds files roofline did not write"));
    ck_assert_str_eq(get(dir, "thesis.tex"), "keep");
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    /* An empty folder is fine; so is a file's place taken by nothing. */
    snprintf(dir, sizeof dir, "%s/empty", top);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    static const char *const a[] = {"one", "a1", NULL};
    ck_assert_msg(write_folder(dir, a, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "one"), "a1");
    /* A file, '.', '..': not folders a set can replace. */
    snprintf(dir, sizeof dir, "%s/file", top);
    put(top, "file", "x");
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "is not a folder"));
    ck_assert_int_eq(rl_outset_folder(&s, ".", "test", &stage, err), RL_EIO);
    snprintf(dir, sizeof dir, "%s/..", top);
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), RL_EIO);
    ck_assert_uint_eq(s.n, 0);
    /* The folder above missing: said, nothing made. */
    snprintf(dir, sizeof dir, "%s/no/such", top);
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot create a folder beside"));
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

START_TEST(loose_files_all_or_nothing)
{
    const char *top = fresh("loose");
    char path[1100], staged[4096], err[RL_ERRMSG_SIZE];
    /* The first set: a.svg with its companions written beside it. */
    struct rl_outset s = {0};
    snprintf(path, sizeof path, "%s/a.svg", top);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
    ck_assert_ptr_nonnull(strstr(staged, "/.roofline.tmp."));
    char stage[4096];
    snprintf(stage, sizeof stage, "%.*s", (int)(strrchr(staged, '/') - staged), staged);
    put(stage, "a.svg", "svg 1");
    put(stage, "a.gp", "gp 1");
    ck_assert_int_eq(count_files(top), 0); /* nothing shows before the commit */
    ck_assert_msg(rl_outset_commit(&s, err) == 0, "%s", err);
    ck_assert_str_eq(get(top, "a.svg"), "svg 1");
    ck_assert_str_eq(get(top, "a.gp"), "gp 1");
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    /* The second: a.svg declared but not drawn (no gnuplot): the old image
     * goes, so the script and the image never come from two runs. */
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
    snprintf(stage, sizeof stage, "%.*s", (int)(strrchr(staged, '/') - staged), staged);
    put(stage, "a.gp", "gp 2");
    ck_assert_msg(rl_outset_commit(&s, err) == 0, "%s", err);
    ck_assert(!exists(top, "a.svg"));
    ck_assert_str_eq(get(top, "a.gp"), "gp 2");
    /* A member that cannot be renamed in (a folder holds its name): the
     * commit fails and puts back every member it had moved. */
    put(top, "a.svg", "svg 2");
    char blocker[1200];
    snprintf(blocker, sizeof blocker, "%s/z.dat", top);
    ck_assert_int_eq(mkdir(blocker, 0777), 0);
    put(blocker, "inside", "x");
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
    snprintf(stage, sizeof stage, "%.*s", (int)(strrchr(staged, '/') - staged), staged);
    put(stage, "a.svg", "svg 3");
    put(stage, "a.gp", "gp 3");
    put(stage, "new.dat", "new 3");
    put(stage, "z.dat", "z 3");
    ck_assert_int_eq(rl_outset_commit(&s, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "z.dat"));
    ck_assert_str_eq(get(top, "a.svg"), "svg 2");
    ck_assert_str_eq(get(top, "a.gp"), "gp 2");
    ck_assert(!exists(top, "new.dat"));
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    ck_assert_int_eq(rl_test_count_entries(top, ".old"), 0);
}
END_TEST

START_TEST(parts_commit_together)
{
    /* Two folders of loose files: the second fails, the first is put back. */
    const char *top = fresh("parts");
    char d1[1100], d2[1100], p1[1200], p2[1200], staged[4096], err[RL_ERRMSG_SIZE];
    snprintf(d1, sizeof d1, "%s/one", top);
    snprintf(d2, sizeof d2, "%s/two", top);
    ck_assert_int_eq(mkdir(d1, 0777), 0);
    ck_assert_int_eq(mkdir(d2, 0777), 0);
    put(d1, "a.svg", "old a");
    snprintf(p1, sizeof p1, "%s/a.svg", d1);
    snprintf(p2, sizeof p2, "%s/b.svg", d2);
    char blocker[1300];
    snprintf(blocker, sizeof blocker, "%s/b.svg", d2);
    ck_assert_int_eq(mkdir(blocker, 0777), 0);
    put(blocker, "inside", "x");
    struct rl_outset s = {0};
    ck_assert_int_eq(rl_outset_file(&s, p1, staged, sizeof staged, err), 0);
    FILE *f = fopen(staged, "w");
    fputs("new a", f);
    fclose(f);
    ck_assert_int_eq(rl_outset_file(&s, p2, staged, sizeof staged, err), 0);
    f = fopen(staged, "w");
    fputs("new b", f);
    fclose(f);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_int_eq(rl_outset_commit(&s, err), RL_EIO);
    ck_assert_str_eq(get(d1, "a.svg"), "old a");
    ck_assert_int_eq(rl_test_count_entries(d1, ".tmp."), 0);
    ck_assert_int_eq(rl_test_count_entries(d2, ".tmp."), 0);
}
END_TEST

START_TEST(messages_name_final_paths)
{
    const char *top = fresh("unstage");
    char dir[1100], file[1100], staged[4096], err[RL_ERRMSG_SIZE];
    snprintf(dir, sizeof dir, "%s/out", top);
    struct rl_outset s = {0};
    const char *stage;
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), 0);
    snprintf(file, sizeof file, "%s/b/c.svg", top);
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/b", top);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    ck_assert_int_eq(rl_outset_file(&s, file, staged, sizeof staged, err), 0);
    char text[8192], want[8192];
    snprintf(text, sizeof text, "gnuplot failed on '%s/roofline.gp'; then '%s'", stage, staged);
    rl_outset_unstage(&s, text, sizeof text);
    snprintf(want, sizeof want, "gnuplot failed on '%s/roofline.gp'; then '%s'", dir, file);
    ck_assert_str_eq(text, want);
    rl_outset_abort(&s);
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    ck_assert_int_eq(rl_test_count_entries(sub, ".tmp."), 0);
}
END_TEST

START_TEST(at_most_eight_parts)
{
    const char *top = fresh("eight");
    char dir[1100], err[RL_ERRMSG_SIZE];
    struct rl_outset s = {0};
    const char *stage;
    /* Eight folder sets fit; a ninth, folder or loose, does not. */
    for (int i = 0; i < RL_OUTSET_MAX; i++) {
        snprintf(dir, sizeof dir, "%s/d%d", top, i);
        ck_assert_msg(rl_outset_folder(&s, dir, "test", &stage, err) == 0, "%d: %s", i, err);
        put(stage, "f", dir);
    }
    ck_assert_uint_eq(s.n, RL_OUTSET_MAX);
    snprintf(dir, sizeof dir, "%s/d8", top);
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), RL_EINVAL);
    ck_assert_str_eq(err, "more than 8 output sets");
    char staged[4096];
    snprintf(dir, sizeof dir, "%s/x.svg", top);
    ck_assert_int_eq(rl_outset_file(&s, dir, staged, sizeof staged, err), RL_EINVAL);
    ck_assert_str_eq(err, "outputs in more than 8 folders");
    ck_assert_uint_eq(s.n, RL_OUTSET_MAX);
    ck_assert_msg(rl_outset_commit(&s, err) == 0, "%s", err);
    for (int i = 0; i < RL_OUTSET_MAX; i++) {
        snprintf(dir, sizeof dir, "%s/d%d", top, i);
        ck_assert_str_eq(get(dir, "f"), dir);
    }
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    /* Loose files: eight folders, then a ninth refused; a second file in
     * a folder already used is no new part. */
    memset(&s, 0, sizeof s);
    for (int i = 0; i < RL_OUTSET_MAX; i++) {
        snprintf(dir, sizeof dir, "%s/d%d/a.svg", top, i);
        ck_assert_msg(rl_outset_file(&s, dir, staged, sizeof staged, err) == 0, "%s", err);
    }
    snprintf(dir, sizeof dir, "%s/d0/b.svg", top);
    ck_assert_int_eq(rl_outset_file(&s, dir, staged, sizeof staged, err), 0);
    ck_assert_uint_eq(s.n, RL_OUTSET_MAX);
    ck_assert_uint_eq(s.part[0].n_names, 2);
    snprintf(dir, sizeof dir, "%s/c.svg", top);
    ck_assert_int_eq(rl_outset_file(&s, dir, staged, sizeof staged, err), RL_EINVAL);
    rl_outset_abort(&s);
    ck_assert_uint_eq(s.n, 0);
    for (int i = 0; i < RL_OUTSET_MAX; i++) {
        snprintf(dir, sizeof dir, "%s/d%d", top, i);
        ck_assert_int_eq(rl_test_count_entries(dir, ".tmp."), 0);
    }
    /* Loose files in eight folders committed: eight locks, all taken
     * (the lock array full: nothing past it read). */
    for (int i = 0; i < RL_OUTSET_MAX; i++) {
        snprintf(dir, sizeof dir, "%s/d%d/a.svg", top, i);
        ck_assert_msg(rl_outset_file(&s, dir, staged, sizeof staged, err) == 0, "%s", err);
        FILE *f = fopen(staged, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "a%d", i);
        fclose(f);
    }
    ck_assert_uint_eq(s.n, RL_OUTSET_MAX);
    ck_assert_msg(rl_outset_commit(&s, err) == 0, "%s", err);
    for (int i = 0; i < RL_OUTSET_MAX; i++) {
        char want[8];
        snprintf(dir, sizeof dir, "%s/d%d", top, i);
        snprintf(want, sizeof want, "a%d", i);
        ck_assert_str_eq(get(dir, "a.svg"), want);
        ck_assert_int_eq(rl_test_count_entries(dir, ".tmp."), 0);
    }
}
END_TEST

START_TEST(file_names_and_staged_paths)
{
    const char *top = fresh("names");
    char path[1100], staged[4096], err[RL_ERRMSG_SIZE];
    struct rl_outset s = {0};
    /* No file name: a trailing slash, ".", "..". */
    snprintf(path, sizeof path, "%s/", top);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), RL_EIO);
    char want[1300];
    snprintf(want, sizeof want, "'%s' has no file name", path);
    ck_assert_str_eq(err, want);
    snprintf(path, sizeof path, "%s/..", top);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), RL_EIO);
    ck_assert_int_eq(rl_outset_file(&s, ".", staged, sizeof staged, err), RL_EIO);
    ck_assert_int_eq(rl_outset_file(&s, "", staged, sizeof staged, err), RL_EIO);
    ck_assert_uint_eq(s.n, 0);
    /* The same name twice is one member. */
    snprintf(path, sizeof path, "%s/a.svg", top);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_uint_eq(s.part[0].n_names, 1);
    ck_assert_str_eq(s.part[0].target, top);
    snprintf(want, sizeof want, "%s/", top);
    ck_assert_str_eq(s.part[0].shown, want);
    /* The staged path: "<stage>/a.svg", exactly its length + 1 bytes fit,
     * one fewer does not. */
    size_t need = strlen(s.part[0].stage) + strlen("/a.svg") + 1;
    ck_assert_str_eq(staged + strlen(s.part[0].stage), "/a.svg");
    ck_assert_int_eq(strncmp(staged, s.part[0].stage, strlen(s.part[0].stage)), 0);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, need, err), 0);
    ck_assert_uint_eq(strlen(staged), need - 1);
    ck_assert_int_eq(rl_outset_file(&s, path, staged, need - 1, err), RL_EINVAL);
    snprintf(want, sizeof want, "'%s': path too long", path);
    ck_assert_str_eq(err, want);
    /* Files written beside it, a dot file among them, are members; the
     * stage's own ".old" is not a name to install. */
    rl_outset_file(&s, path, staged, sizeof staged, err);
    put(s.part[0].stage, "a.svg", "A");
    put(s.part[0].stage, ".hidden", "H");
    put(s.part[0].stage, "a.gp", "G");
    ck_assert_msg(rl_outset_commit(&s, err) == 0, "%s", err);
    ck_assert_str_eq(get(top, "a.svg"), "A");
    ck_assert_str_eq(get(top, ".hidden"), "H");
    ck_assert_str_eq(get(top, "a.gp"), "G");
    ck_assert(!exists(top, ".old"));
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

START_TEST(a_folder_and_loose_files_in_one_folder)
{
    /* A folder set and a loose file beside it: both lock the same folder,
     * which the commit must lock once (a second flock on another open of
     * it would wait for itself). */
    const char *top = fresh("mixed");
    char dir[1100], path[1100], staged[4096], err[RL_ERRMSG_SIZE];
    snprintf(dir, sizeof dir, "%s/out", top);
    snprintf(path, sizeof path, "%s/chart.svg", top);
    struct rl_outset s = {0};
    const char *stage;
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), 0);
    put(stage, "report.md", "md");
    ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
    FILE *f = fopen(staged, "w");
    fputs("svg", f);
    fclose(f);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_msg(rl_outset_commit(&s, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "report.md"), "md");
    ck_assert_str_eq(get(top, "chart.svg"), "svg");
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

START_TEST(folder_targets)
{
    const char *top = fresh("targets");
    char dir[1100], link_path[1100], err[RL_ERRMSG_SIZE];
    struct rl_outset s = {0};
    const char *stage;
    /* Trailing slashes come off; "/" is no folder of its own. */
    snprintf(dir, sizeof dir, "%s/out///", top);
    ck_assert_int_eq(rl_outset_folder(&s, dir, "cmd x", &stage, err), 0);
    char want[1200];
    snprintf(want, sizeof want, "%s/out", top);
    ck_assert_str_eq(s.part[0].target, want);
    /* The mark says which command wrote the set. */
    ck_assert_str_eq(get(stage, RL_OUTSET_MARK), "roofline cmd x\n");
    rl_outset_abort(&s);
    ck_assert_int_eq(rl_outset_folder(&s, "/", "test", &stage, err), RL_EIO);
    ck_assert_str_eq(err, "cannot replace '/' by a new set of files: give a folder of their own");
    snprintf(dir, sizeof dir, "%s/.", top);
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), RL_EIO);
    ck_assert_uint_eq(s.n, 0);
    /* A folder holding only the mark is roofline's: replaced. */
    snprintf(dir, sizeof dir, "%s/marked", top);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    put(dir, RL_OUTSET_MARK, "roofline old\n");
    static const char *const a[] = {"one", "a1", NULL};
    ck_assert_msg(write_folder(dir, a, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "one"), "a1");
    /* A link to a set: the set it points to is replaced, the link stays. */
    snprintf(link_path, sizeof link_path, "%s/link", top);
    ck_assert_int_eq(symlink(dir, link_path), 0);
    static const char *const b[] = {"two", "b2", NULL};
    ck_assert_msg(write_folder(link_path, b, err) == 0, "%s", err);
    ck_assert_str_eq(get(dir, "two"), "b2");
    ck_assert(!exists(dir, "one"));
    struct stat st;
    ck_assert_int_eq(lstat(link_path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    /* A dangling link: said, nothing made. */
    snprintf(link_path, sizeof link_path, "%s/dangling", top);
    ck_assert_int_eq(symlink("/nonexistent-target-dir", link_path), 0);
    ck_assert_int_eq(rl_outset_folder(&s, link_path, "test", &stage, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot use '"));
    /* A link to a file is not a folder. */
    put(top, "plain", "p");
    snprintf(dir, sizeof dir, "%s/plain", top);
    snprintf(link_path, sizeof link_path, "%s/filelink", top);
    ck_assert_int_eq(symlink(dir, link_path), 0);
    ck_assert_int_eq(rl_outset_folder(&s, link_path, "test", &stage, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "exists and is not a folder"));
    ck_assert_uint_eq(s.n, 0);
    ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
}
END_TEST

START_TEST(unstage_every_occurrence)
{
    const char *top = fresh("unstage2");
    char dir[1100], err[RL_ERRMSG_SIZE];
    snprintf(dir, sizeof dir, "%s/o", top);
    struct rl_outset s = {0};
    const char *stage;
    ck_assert_int_eq(rl_outset_folder(&s, dir, "test", &stage, err), 0);
    char text[8192], want[8192];
    snprintf(text, sizeof text, "%s/a %s/b %s", stage, stage, stage);
    rl_outset_unstage(&s, text, sizeof text);
    snprintf(want, sizeof want, "%s/a %s/b %s", dir, dir, dir);
    ck_assert_str_eq(text, want);
    /* A loose file in the current folder: "<stage>/x.svg" becomes "x.svg". */
    rl_outset_abort(&s);
    ck_assert_int_eq(chdir(top), 0);
    char staged[4096];
    ck_assert_int_eq(rl_outset_file(&s, "x.svg", staged, sizeof staged, err), 0);
    ck_assert_str_eq(s.part[0].target, ".");
    ck_assert_str_eq(s.part[0].shown, "");
    snprintf(text, sizeof text, "cannot draw '%s'", staged);
    rl_outset_unstage(&s, text, sizeof text);
    ck_assert_str_eq(text, "cannot draw 'x.svg'");
    rl_outset_abort(&s);
    ck_assert_int_eq(rl_test_count_entries(".", ".tmp."), 0);
}
END_TEST

/* ---- two writers at once ------------------------------------------------------ */

#define MEMBERS 6

/* One writer: a folder set (or loose files, loose) of MEMBERS files, each
 * holding the writer's stamp, written slowly enough that two overlap. */
static int writer(const char *target, const char *stamp, bool loose)
{
    char err[RL_ERRMSG_SIZE], staged[4096];
    struct rl_outset s = {0};
    const char *stage = NULL;
    char stage_buf[4096];
    if (loose) {
        char path[4096];
        snprintf(path, sizeof path, "%s/m0", target);
        if (rl_outset_file(&s, path, staged, sizeof staged, err))
            return 1;
        snprintf(stage_buf, sizeof stage_buf, "%.*s", (int)(strrchr(staged, '/') - staged),
                 staged);
        stage = stage_buf;
    } else if (rl_outset_folder(&s, target, "test", &stage, err)) {
        return 1;
    }
    for (int i = 0; i < MEMBERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        put(stage, name, stamp);
        usleep(200);
    }
    return rl_outset_commit(&s, err) ? 2 : 0;
}

/* Every member there, all from one writer. */
static void assert_one_writer(const char *dir, int round)
{
    char first[256];
    snprintf(first, sizeof first, "%s", get(dir, "m0"));
    ck_assert_msg(first[0], "round %d: no m0", round);
    for (int i = 1; i < MEMBERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        ck_assert_msg(strcmp(get(dir, name), first) == 0, "round %d: %s is '%s', m0 '%s'", round,
                      name, get(dir, name), first);
    }
}

static void race(const char *name, bool loose)
{
    const char *top = fresh(name);
    char target[1100];
    snprintf(target, sizeof target, loose ? "%s" : "%s/out", top);
    for (int round = 0; round < 60; round++) {
        int go[2];
        ck_assert_int_eq(pipe(go), 0);
        pid_t pid[2];
        for (int w = 0; w < 2; w++) {
            pid[w] = fork();
            ck_assert_int_ge(pid[w], 0);
            if (pid[w] == 0) {
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) < 0) /* both start together */
                    _exit(3);
                char stamp[32];
                snprintf(stamp, sizeof stamp, "writer %d round %d", w, round);
                _exit(writer(target, stamp, loose));
            }
        }
        close(go[0]);
        close(go[1]); /* EOF: go */
        for (int w = 0; w < 2; w++) {
            int st;
            ck_assert_int_eq(waitpid(pid[w], &st, 0), pid[w]);
            ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "round %d: writer %d: %d",
                          round, w, st);
        }
        assert_one_writer(target, round);
        ck_assert_int_eq(rl_test_count_entries(top, ".tmp."), 0);
    }
}

START_TEST(two_folder_writers_never_mix) { race("race-folder", false); }
END_TEST

START_TEST(two_loose_writers_never_mix) { race("race-loose", true); }
END_TEST

struct commit_job {
    struct rl_outset *s;
    char err[RL_ERRMSG_SIZE];
    int rc;
    atomic_bool done;
};

static void *commit_thread(void *arg)
{
    struct commit_job *j = arg;
    j->rc = rl_outset_commit(j->s, j->err);
    atomic_store(&j->done, true);
    return NULL;
}

/* Does another holder have dir's lock (flock would block)? A free lock is
 * taken and given back at once. */
static bool lock_held(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(fd, 0);
    bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

/* Commit loose files into the folders d[0] and d[1], declared in either
 * order: the commit locks the folder of the lower (device, inode) first,
 * as every writer does (one order: no deadlock). With the other's lock
 * held here, the commit is seen holding that one while it waits. */
static void check_lock_order(char d[2][1100])
{
    struct stat st[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(stat(d[i], &st[i]), 0);
    int lo = st[0].st_dev != st[1].st_dev ? st[0].st_dev > st[1].st_dev
                                          : st[0].st_ino > st[1].st_ino,
        hi = 1 - lo;
    const char *name[2] = {"zero", "one"};
    for (int first = 0; first < 2; first++) {
        int order[2] = {first ? hi : lo, first ? lo : hi};
        struct rl_outset s = {0};
        char path[1200], staged[4096], err[RL_ERRMSG_SIZE];
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/f.txt", d[order[k]]);
            ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
            FILE *f = fopen(staged, "w");
            ck_assert_ptr_nonnull(f);
            fputs(name[order[k]], f);
            fclose(f);
        }
        int fd = open(d[hi], O_RDONLY | O_DIRECTORY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(flock(fd, LOCK_EX), 0);
        struct commit_job j = {.s = &s};
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, commit_thread, &j), 0);
        /* Up to 5 s (500 looks 10 ms apart) for the commit to lock it. */
        bool seen = false;
        for (int look = 0; look < 500 && !seen; look++)
            if (!(seen = lock_held(d[lo])))
                usleep(10000);
        close(fd); /* the other lock: the commit goes on */
        pthread_join(t, NULL);
        ck_assert_msg(seen, "%s declared first: '%s' not locked first", d[order[0]], d[lo]);
        ck_assert_msg(j.rc == 0, "%s", j.err);
        ck_assert_str_eq(get(d[lo], "f.txt"), name[lo]);
        ck_assert_str_eq(get(d[hi], "f.txt"), name[hi]);
    }
}

static void on_signal(int sig) { (void)sig; }

START_TEST(an_interrupted_lock_wait_goes_on_waiting)
{
    /* A signal (its handler installed without SA_RESTART) breaks the
     * commit's wait for a lock with EINTR: the commit waits again, and
     * writes only once the lock is given back. Loose files in two folders:
     * once the lower one is locked, the commit is at (or about to be at)
     * its wait for the higher one, which is held here. */
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    const char *top = fresh("lock-eintr");
    char d[2][1100];
    struct stat st[2];
    for (int i = 0; i < 2; i++) {
        snprintf(d[i], sizeof d[i], "%s/%d", top, i);
        ck_assert_int_eq(mkdir(d[i], 0777), 0);
        ck_assert_int_eq(stat(d[i], &st[i]), 0);
    }
    int lo = st[0].st_ino > st[1].st_ino, hi = 1 - lo;
    struct rl_outset s = {0};
    char path[1200], staged[4096], err[RL_ERRMSG_SIZE];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/f.txt", d[k]);
        ck_assert_int_eq(rl_outset_file(&s, path, staged, sizeof staged, err), 0);
        FILE *f = fopen(staged, "w");
        ck_assert_ptr_nonnull(f);
        fputs(k ? "one" : "zero", f);
        fclose(f);
    }
    int fd = open(d[hi], O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0);
    /* With stdin closed, the commit's first folder opens as descriptor 0:
     * a lock like any other (the 50 ms let the commit open its folders
     * before lock_held opens any here). */
    close(STDIN_FILENO);
    struct commit_job j = {.s = &s};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, commit_thread, &j), 0);
    usleep(50000);
    bool seen = false;
    for (int look = 0; look < 500 && !seen; look++)
        if (!(seen = lock_held(d[lo])))
            usleep(10000);
    ck_assert_msg(seen, "'%s' never locked", d[lo]);
    /* Ten signals 20 ms apart: some land in the wait. */
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(pthread_kill(t, SIGUSR1), 0);
        usleep(20000);
    }
    bool early = atomic_load(&j.done);
    bool written = exists(d[hi], "f.txt");
    close(fd); /* the lock given back: the commit goes on */
    pthread_join(t, NULL);
    ck_assert_msg(!early, "the commit ended while '%s' was locked here", d[hi]);
    ck_assert_msg(!written, "'%s/f.txt' written while the folder was locked here", d[hi]);
    ck_assert_msg(j.rc == 0, "%s", j.err);
    ck_assert_str_eq(get(d[0], "f.txt"), "zero");
    ck_assert_str_eq(get(d[1], "f.txt"), "one");
}
END_TEST

START_TEST(commit_locks_in_one_order)
{
    /* Two folders on one device: by inode. */
    const char *top = fresh("lock-order");
    char d[2][1100];
    for (int i = 0; i < 2; i++) {
        snprintf(d[i], sizeof d[i], "%s/%d", top, i);
        ck_assert_int_eq(mkdir(d[i], 0777), 0);
    }
    check_lock_order(d);
    /* One on another device (/dev/shm, a tmpfs, where the machine has
     * one): by device first. */
    struct stat shm, here;
    snprintf(d[1], sizeof d[1], "/dev/shm/roofline-lock-order.%ld", (long)getpid());
    if (stat("/dev/shm", &shm) == 0 && stat(top, &here) == 0 && shm.st_dev != here.st_dev &&
        mkdir(d[1], 0777) == 0) {
        check_lock_order(d);
        char f[1200];
        snprintf(f, sizeof f, "%s/f.txt", d[1]);
        remove(f);
        rmdir(d[1]);
    }
}
END_TEST

static Suite *outset_suite(void)
{
    Suite *s = suite_create("outset");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, folder_set_replaced_whole);
    tcase_add_test(core, folder_swap_without_rename_exchange);
    tcase_add_test(core, abort_leaves_the_previous_set);
    tcase_add_test(core, loose_files_all_or_nothing);
    tcase_add_test(core, messages_name_final_paths);
    tcase_add_test(core, two_folder_writers_never_mix);
    tcase_add_test(core, two_loose_writers_never_mix);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, foreign_folders_are_never_replaced);
    tcase_add_test(limits, parts_commit_together);
    tcase_add_test(limits, at_most_eight_parts);
    tcase_add_test(limits, file_names_and_staged_paths);
    tcase_add_test(limits, a_folder_and_loose_files_in_one_folder);
    tcase_add_test(limits, folder_targets);
    tcase_add_test(limits, unstage_every_occurrence);
    tcase_add_test(limits, commit_locks_in_one_order);
    tcase_add_test(limits, an_interrupted_lock_wait_goes_on_waiting);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(outset_suite()); }
