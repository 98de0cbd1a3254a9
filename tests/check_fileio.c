/* check_fileio.c - tests of whole-file reads and atomic writes. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <dirent.h>
#include <errno.h>
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
    /* by hand: commit, then abort (safe on a closed f) keeps the file */
    struct rl_atomic_file f;
    ck_assert_int_eq(rl_atomic_open(&f, path, err), 0);
    fputs("yz", f.fp);
    ck_assert_int_eq(rl_atomic_commit(&f, err), 0);
    ck_assert(!f.fp && !f.path && !f.tmp_path && f.fd == -1);
    rl_atomic_abort(&f);
    ck_assert_int_eq(rl_file_read(path, &text, NULL, err), 0);
    ck_assert_str_eq(text, "yz");
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
    size_t fds = count_entries("/proc/self/fd");
    ck_assert_int_eq(rl_atomic_open(&f, path, err), 0);
    ck_assert_uint_eq(count_entries("/proc/self/fd"), fds + 1);
    fputs("new but unfinished", f.fp);
    rl_atomic_abort(&f);
    ck_assert_uint_eq(count_entries("/proc/self/fd"), fds); /* the temporary file closed */
    char *text;
    ck_assert_int_eq(rl_file_read(path, &text, NULL, err), 0);
    ck_assert_str_eq(text, "old");
    free(text);
    ck_assert_uint_eq(count_entries(rl_test_tmpdir()), 1);
    rl_atomic_abort(&f); /* safe twice */
}
END_TEST

/* A read that succeeds records no error, whatever errno held before it:
 * rl_io_errno() then gives its default, EIO. */
START_TEST(clean_reads_keep_no_errno)
{
    char path[512], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/clean.txt", rl_test_tmpdir());
    ck_assert_int_eq(rl_file_write_atomic(path, "abc", 3, err), 0);
    FILE *f = rl_io_open_read(path);
    ck_assert_ptr_nonnull(f);
    char buf[8];
    errno = ENOSPC;
    ck_assert_uint_eq(fread(buf, 1, sizeof buf, f), 3);
    ck_assert(!ferror(f));
    ck_assert_int_eq(rl_io_errno(f), EIO);
    fclose(f);
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


/* ---- the fault hook (ROOFLINE_FAULT_IO): each case in a child of its own,
 * the hook reading the environment once per process ---------------------- */

/* In the child: 1, saying which check failed. */
#define FAULT_CHECK(cond)                                                                         \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);                    \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static char fault_dir[512], fault_path[600], fault_fired[600];
static char big[100000];

static int file_is(const char *path, const char *want, size_t len)
{
    char *text, err[RL_ERRMSG_SIZE];
    size_t got;
    if (rl_file_read(path, &text, &got, err) != RL_OK)
        return 0;
    int same = got == len && memcmp(text, want, len) == 0;
    free(text);
    return same;
}

/* Run fn in a child with ROOFLINE_FAULT_IO=spec: its result (0: passed). */
static int with_fault(const char *spec, int (*fn)(void))
{
    snprintf(fault_dir, sizeof fault_dir, "%s", rl_test_tmpdir()); /* the parent's */
    snprintf(fault_path, sizeof fault_path, "%s/f.txt", fault_dir);
    snprintf(fault_fired, sizeof fault_fired, "%s/fired", fault_dir);
    unlink(fault_fired);
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    /* not through the layer: the hook is armed once per process, at its
     * first call (the child's) */
    FILE *old = fopen(fault_path, "wb");
    ck_assert_ptr_nonnull(old);
    ck_assert_uint_eq(fwrite("old", 1, 3, old), 3);
    ck_assert_int_eq(fclose(old), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("ROOFLINE_FAULT_IO", spec, 1);
        setenv("ROOFLINE_FAULT_IO_FIRED", fault_fired, 1);
        _exit(fn());
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static int fired(void) { return access(fault_fired, F_OK) == 0; }

/* A write that fails says so, names the file and why; the old one stays. */
static int write_fails_cleanly(const char *reason)
{
    int fired_before = access(fault_fired, F_OK) == 0;
    char err[RL_ERRMSG_SIZE];
    size_t before = count_entries(fault_dir);
    FAULT_CHECK(rl_file_write_atomic(fault_path, big, sizeof big, err) == RL_EIO);
    FAULT_CHECK(strstr(err, fault_path) && strstr(err, reason));
    FAULT_CHECK(file_is(fault_path, "old", 3));
    /* no temporary file left (the one more: the note that the fault fired) */
    FAULT_CHECK(count_entries(fault_dir) == before + !fired_before);
    return 0;
}

static int write_whole(void)
{
    char err[RL_ERRMSG_SIZE];
    FAULT_CHECK(rl_file_write_atomic(fault_path, big, sizeof big, err) == RL_OK);
    FAULT_CHECK(file_is(fault_path, big, sizeof big));
    return 0;
}

static int write_enospc(void) { return write_fails_cleanly("No space left on device"); }
static int write_eio(void) { return write_fails_cleanly("Input/output error"); }

static int read_eio(void)
{
    char *text, err[RL_ERRMSG_SIZE];
    FAULT_CHECK(rl_file_read(fault_path, &text, NULL, err) == RL_EIO);
    FAULT_CHECK(text == NULL && strstr(err, fault_path) && strstr(err, "Input/output error"));
    /* through a FILE of the layer: ferror, and the reason kept */
    FILE *f = rl_io_open_read(fault_path);
    FAULT_CHECK(f && rl_io_fileno(f) >= 0);
    char buf[8];
    FAULT_CHECK(fread(buf, 1, sizeof buf, f) == 3); /* the 2nd read: no fault */
    fclose(f);
    return 0;
}

static int read_short_twice(void)
{
    /* short reads are continued: the whole file, at once and by FILE */
    FAULT_CHECK(file_is(fault_path, "old", 3));
    FILE *f = rl_io_open_read(fault_path);
    char buf[8];
    FAULT_CHECK(f && fread(buf, 1, sizeof buf, f) == 3 && memcmp(buf, "old", 3) == 0);
    fclose(f);
    return 0;
}

static int read_eio_by_file(void)
{
    FILE *f = rl_io_open_read(fault_path);
    char buf[8];
    FAULT_CHECK(f && fread(buf, 1, sizeof buf, f) == 0 && ferror(f));
    FAULT_CHECK(rl_io_errno(f) == EIO);
    fclose(f);
    return 0;
}

/* A failing commit names the file as it is, a '%' included. */
static int write_percent_name(void)
{
    char path[700], err[RL_ERRMSG_SIZE], want[800];
    snprintf(path, sizeof path, "%s/100%%%%d.txt", fault_dir);
    FAULT_CHECK(rl_file_write_atomic(path, "x", 1, err) == RL_EIO);
    snprintf(want, sizeof want, "cannot write '%s': No space left on device", path);
    FAULT_CHECK(strcmp(err, want) == 0);
    return 0;
}

static int not_armed(void)
{
    FAULT_CHECK(write_whole() == 0);
    FAULT_CHECK(!fired());
    return 0;
}

START_TEST(faults_injected)
{
    /* interrupted and short writes are continued: the same bytes */
    ck_assert_int_eq(with_fault("write:eintr:1", write_whole), 0);
    ck_assert(fired());
    ck_assert_int_eq(with_fault("write:short:1", write_whole), 0);
    ck_assert(fired());
    ck_assert_int_eq(with_fault("write:short:3+", write_whole), 0);
    /* a full disk, at the first write or a later one; an I/O error */
    ck_assert_int_eq(with_fault("write:enospc:1", write_enospc), 0);
    ck_assert_int_eq(with_fault("write:enospc:2", write_enospc), 0);
    ck_assert_int_eq(with_fault("write:enospc:2+", write_enospc), 0);
    ck_assert_int_eq(with_fault("write:eio:2", write_eio), 0);
    /* the commit's fsync and rename */
    ck_assert_int_eq(with_fault("fsync:eio:1", write_eio), 0);
    ck_assert_int_eq(with_fault("fsync:eintr:1", write_whole), 0);
    ck_assert_int_eq(with_fault("rename:enospc:1", write_enospc), 0);
    ck_assert_int_eq(with_fault("rename:enospc:1", write_percent_name), 0);
    /* reads */
    ck_assert_int_eq(with_fault("read:eio:1", read_eio), 0);
    ck_assert_int_eq(with_fault("read:eintr:1", read_short_twice), 0);
    ck_assert_int_eq(with_fault("read:short:1", read_short_twice), 0);
    ck_assert_int_eq(with_fault("read:short:1+", read_short_twice), 0);
    ck_assert_int_eq(with_fault("read:eio:1", read_eio_by_file), 0);
    /* a spec that does not parse arms nothing (the loop driver then sees
     * no fault fire); an interrupt on every call would never end */
    ck_assert_int_eq(with_fault("write:eintr:1+", not_armed), 0);
    ck_assert_int_eq(with_fault("write:enospc:0", not_armed), 0);
    ck_assert_int_eq(with_fault("write:enospc", not_armed), 0);
    ck_assert_int_eq(with_fault("fsync:short:1", not_armed), 0);
    ck_assert_int_eq(with_fault("seek:eio:1", not_armed), 0);
    ck_assert_int_eq(with_fault("write:enospc:1x", not_armed), 0);
    /* past the last call: nothing fires */
    ck_assert_int_eq(with_fault("write:enospc:1000", not_armed), 0);
}
END_TEST

/* rl_atomic_open out of memory at each of its allocations (in a child
 * whose first allocation arms the hook: 1 the path, 2 the temporary
 * path, 3 the FILE's cookie): RL_ENOMEM "out of memory" for each (the
 * third after the temporary file was made, then closed and removed); no
 * descriptor or file left either way. */
static int open_out_of_memory(const char *dir, int k)
{
    char n[16], path[600], err[RL_ERRMSG_SIZE] = "";
    snprintf(n, sizeof n, "%d", k);
    snprintf(path, sizeof path, "%s/oom.txt", dir);
    setenv("ROOFLINE_FAULT_ALLOC", n, 1);
    size_t fds = count_entries("/proc/self/fd"), files = count_entries(dir);
    struct rl_atomic_file f;
    int rc = rl_atomic_open(&f, path, err);
    FAULT_CHECK(rc == RL_ENOMEM && strcmp(err, "out of memory") == 0);
    FAULT_CHECK(!f.fp && !f.path && !f.tmp_path && f.fd == -1);
    FAULT_CHECK(count_entries("/proc/self/fd") == fds && count_entries(dir) == files);
    return 0;
}

START_TEST(open_out_of_memory_cleans_up)
{
    const char *dir = rl_test_tmpdir();
    for (int k = 1; k <= 3; k++) {
        fflush(NULL);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
            _exit(open_out_of_memory(dir, k));
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        ck_assert_msg(WEXITSTATUS(status) == 0, "allocation %d: exit %d (its reason above)", k,
                      WEXITSTATUS(status));
    }
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
    tcase_add_test(limits, clean_reads_keep_no_errno);
    tcase_add_test(limits, read_sizes);
    tcase_add_test(limits, write_with_a_callback);
    tcase_add_test(limits, write_with_no_standard_input);
    tcase_add_test(limits, faults_injected);
    tcase_add_test(limits, open_out_of_memory_cleans_up);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(fileio_suite()); }
