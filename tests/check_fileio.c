/* check_fileio.c - tests of whole-file reads and atomic writes. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int write_ctx(FILE *fp, const void *ctx)
{
    return fprintf(fp, "%s\n", (const char *)ctx) < 0;
}

static int write_fails(FILE *fp, const void *ctx)
{
    fputs(ctx, fp);
    return 1;
}

START_TEST(write_then_read)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/a.txt", rl_test_tmpdir());
    ck_assert_int_eq(rl_file_write_atomic(path, "hello\n", 6, err), 0);
    char *text;
    size_t len;
    ck_assert_int_eq(rl_file_read(path, &text, &len, err), 0);
    ck_assert_str_eq(text, "hello\n");
    ck_assert_uint_eq(len, 6);
    free(text);
    /* Overwrite replaces the content; no temporary file is left behind. */
    ck_assert_int_eq(rl_file_write_atomic(path, "x", 1, err), 0);
    ck_assert_int_eq(rl_file_read(path, &text, NULL, err), 0);
    ck_assert_str_eq(text, "x");
    free(text);
    ck_assert_uint_eq(count_entries(rl_test_tmpdir()), 1);
}
END_TEST

START_TEST(abort_keeps_the_old_file)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/b.txt", rl_test_tmpdir());
    ck_assert_int_eq(rl_file_write_atomic(path, "old", 3, err), 0);
    struct rl_atomic_file f;
    ck_assert_int_eq(rl_atomic_open(&f, path, err), 0);
    fputs("new but unfinished", f.fp);
    rl_atomic_abort(&f);
    char *text;
    ck_assert_int_eq(rl_file_read(path, &text, NULL, err), 0);
    ck_assert_str_eq(text, "old");
    free(text);
    ck_assert_uint_eq(count_entries(rl_test_tmpdir()), 1);
    rl_atomic_abort(&f); /* safe twice */
}
END_TEST

START_TEST(unwritable_folder_fails_cleanly)
{
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_file_write_atomic("/nonexistent-dir/x.json", "{}", 2, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot write '/nonexistent-dir/x.json'"));
    ck_assert_int_eq(access("/nonexistent-dir/x.json", F_OK), -1);
}
END_TEST

START_TEST(read_errors)
{
    char *text;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_file_read("/nonexistent/f", &text, NULL, err), RL_EIO);
    ck_assert_ptr_null(text);
    ck_assert_ptr_nonnull(strstr(err, "cannot open '/nonexistent/f'"));
    ck_assert_int_eq(rl_file_read(rl_test_tmpdir(), &text, NULL, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "is a directory"));
}
END_TEST

START_TEST(read_sizes)
{
    char path[512], err[RL_ERRMSG_SIZE];
    /* Empty: "" and length 0. */
    snprintf(path, sizeof path, "%s/empty", rl_test_tmpdir());
    ck_assert_int_eq(rl_file_write_atomic(path, "", 0, err), 0);
    char *text;
    size_t len = 99;
    ck_assert_int_eq(rl_file_read(path, &text, &len, err), 0);
    ck_assert_uint_eq(len, 0);
    ck_assert_str_eq(text, "");
    free(text);
    /* 10,000 bytes (more than the 4096 a size-less file starts with),
     * byte i = 'a' + i % 26, a NUL in the middle kept. */
    size_t n = 10000;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + i % 26);
    data[5000] = 0;
    snprintf(path, sizeof path, "%s/big", rl_test_tmpdir());
    ck_assert_int_eq(rl_file_write_atomic(path, data, n, err), 0);
    ck_assert_int_eq(rl_file_read(path, &text, &len, err), 0);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(memcmp(text, data, n), 0);
    ck_assert_int_eq(text[n], 0);
    free(text);
    /* The same through a pipe, which reports no size: the buffer grows
     * from 4096 by doubling. */
    snprintf(path, sizeof path, "%s/fifo", rl_test_tmpdir());
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        FILE *w = fopen(path, "wb");
        fwrite(data, 1, n, w);
        fclose(w);
        _exit(0);
    }
    ck_assert_int_eq(rl_file_read(path, &text, &len, err), 0);
    waitpid(pid, NULL, 0);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(memcmp(text, data, n), 0);
    ck_assert_int_eq(text[n], 0);
    free(text);
    free(data);
}
END_TEST

START_TEST(write_with_a_callback)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/cb.txt", rl_test_tmpdir());
    ck_assert_int_eq(rl_file_write_with(path, write_ctx, "abc", err), 0);
    char *text;
    ck_assert_int_eq(rl_file_read(path, &text, NULL, err), 0);
    ck_assert_str_eq(text, "abc\n");
    free(text);
    /* A failing writer: RL_EIO, the old file kept, no stage left. */
    ck_assert_int_eq(rl_file_write_with(path, write_fails, "new", err), RL_EIO);
    char want[600];
    snprintf(want, sizeof want, "'%s': write failed", path);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(rl_file_read(path, &text, NULL, err), 0);
    ck_assert_str_eq(text, "abc\n");
    free(text);
    ck_assert_uint_eq(count_entries(rl_test_tmpdir()), 1);
    /* Commit without an open file. */
    struct rl_atomic_file f = {0};
    ck_assert_int_eq(rl_atomic_commit(&f, err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "cannot write '?'"));
    /* The new file is readable by all (0644), not the temp file's 0600. */
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
}
END_TEST

START_TEST(write_with_no_standard_input)
{
    /* With descriptor 0 closed (a daemon's standard input), mkstemp gives
     * the temporary file descriptor 0: a file like any other, written
     * and renamed into place. */
    close(0);
    char path[1024], err[RL_ERRMSG_SIZE], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/no-stdin.txt", rl_test_tmpdir());
    ck_assert_msg(rl_file_write_atomic(path, "abc", 3, err) == RL_OK, "%s", err);
    ck_assert_int_eq(rl_file_read(path, &text, &len, err), RL_OK);
    ck_assert_uint_eq(len, 3);
    ck_assert_str_eq(text, "abc");
    free(text);
}
END_TEST

static Suite *fileio_suite(void)
{
    Suite *s = suite_create("fileio");
    TCase *core = tcase_create("core");
    tcase_add_test(core, write_then_read);
    tcase_add_test(core, abort_keeps_the_old_file);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, unwritable_folder_fails_cleanly);
    tcase_add_test(limits, read_errors);
    tcase_add_test(limits, read_sizes);
    tcase_add_test(limits, write_with_a_callback);
    tcase_add_test(limits, write_with_no_standard_input);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(fileio_suite()); }
