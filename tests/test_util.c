/* test_util.c - helpers shared by the Check suites: paths, temp folders, running the CLI. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/model/gpudb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int rl_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

int rl_test_run_unforked(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

int rl_test_strdup_fail;
const char *rl_test_strdup_fail_for;

char *strdup(const char *s)
{
    if (rl_test_strdup_fail || (rl_test_strdup_fail_for && strcmp(s, rl_test_strdup_fail_for) == 0))
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

static char tmpdir[256];

static void remove_tmpdir(void)
{
    /* Only the test process that made it removes it (Check forks). */
    static pid_t owner;
    (void)owner;
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
}

static pid_t tmp_owner;

static void cleanup(void)
{
    if (getpid() == tmp_owner)
        remove_tmpdir();
}

const char *rl_test_tmpdir(void)
{
    if (!tmpdir[0] || tmp_owner != getpid()) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/rltest.XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            abort();
        }
        tmp_owner = getpid();
        atexit(cleanup);
    }
    return tmpdir;
}

const char *rl_test_data(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", ROOFLINE_TEST_DATA_DIR, name);
    return path;
}

char *rl_test_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

static char *read_all(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ssize_t r;
    while (buf && ((r = read(fd, buf + len, cap - len - 1)) > 0 || (r < 0 && errno == EINTR))) {
        if (r < 0)
            continue;
        len += (size_t)r;
        if (len + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                free(buf);
            buf = b;
        }
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

struct rl_run rl_test_cli(const char *const *env, const char *arg0, ...)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = ROOFLINE_BIN;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a && n < 63; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;

    char outpath[512], errpath[512];
    snprintf(outpath, sizeof outpath, "%s/cli.out.XXXXXX", rl_test_tmpdir());
    snprintf(errpath, sizeof errpath, "%s/cli.err.XXXXXX", rl_test_tmpdir());
    int ofd = mkstemp(outpath), efd = mkstemp(errpath);
    struct rl_run r = {-1, NULL, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        dup2(ofd, 1);
        dup2(efd, 2);
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(ROOFLINE_BIN, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    lseek(ofd, 0, SEEK_SET);
    lseek(efd, 0, SEEK_SET);
    r.out = read_all(ofd);
    r.err = read_all(efd);
    close(ofd);
    close(efd);
    unlink(outpath);
    unlink(errpath);
    return r;
}

void rl_run_release(struct rl_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

size_t rl_test_count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += k)
        n++;
    return n;
}

void rl_test_golden(const char *text, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/golden/%s", ROOFLINE_TEST_DATA_DIR, name);
    const char *update = getenv("ROOFLINE_UPDATE_GOLDEN");
    if (update && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
        return;
    }
    char *want = rl_test_slurp(path);
    ck_assert_msg(want != NULL, "missing golden file %s (run with ROOFLINE_UPDATE_GOLDEN=1)",
                  path);
    ck_assert_msg(strcmp(text, want) == 0, "output differs from %s:\n%s", path, text);
    free(want);
}

static struct rl_gpudb test_db;
static int test_db_loaded;

static void release_test_db(void) { rl_gpudb_release(&test_db); }

const struct rl_gpu_spec *rl_test_gpu(const char *id)
{
    if (!test_db_loaded) {
        char err[RL_ERRMSG_SIZE];
        ck_assert_msg(rl_gpudb_load(&test_db, ROOFLINE_SOURCE_DIR "/data/gpus", err) == 0, "%s",
                      err);
        test_db_loaded = 1;
        atexit(release_test_db);
    }
    const struct rl_gpu_spec *s = rl_gpudb_find(&test_db, id);
    ck_assert_msg(s != NULL, "no GPU '%s' in data/gpus", id);
    return s;
}

int rl_test_count_entries(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strstr(e->d_name, needle) != NULL;
    closedir(d);
    return n;
}
