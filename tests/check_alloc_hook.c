/* check_alloc_hook.c - the allocation wrapper's fault hook (util/alloc.h): ROOFLINE_FAULT_ALLOC=N fails the Nth call once, N+ every call from the Nth, the count file says calls and failures, anything else arms nothing, a real vasprintf failure is counted; each case in a child process of its own (the hook reads the environment once). */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/util/alloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

enum { CALLS = 12 };

/* One call of kind i % 6 (malloc, calloc, realloc, strdup, strndup,
 * asprintf): whether it failed as a failure must (NULL, errno ENOMEM; for
 * asprintf -1 and *out NULL), 0 when it succeeded, -1 when it did
 * neither cleanly. The last asprintf writes "" (0 characters: a success). */
static int one_call(int i)
{
    char *sentinel = (char *)&sentinel, *s = sentinel;
    void *p = NULL;
    errno = 0;
    switch (i % 6) {
    case 0: p = rl_malloc(16); break;
    case 1: p = rl_calloc(4, 8); break;
    case 2: p = rl_realloc(NULL, 32); break;
    case 3: p = rl_strdup("abc"); break;
    case 4: p = rl_strndup("abcdef", 3); break;
    default: {
        const char *text = i == CALLS - 1 ? "" : "42";
        int n = rl_asprintf(&s, "%s", text);
        if (n == -1)
            return s == NULL && errno == ENOMEM ? 1 : -1;
        if (n != (int)strlen(text) || s == sentinel || !s || strcmp(s, text) != 0)
            return -1;
        free(s);
        return 0;
    }
    }
    if (!p)
        return errno == ENOMEM ? 1 : -1;
    free(p);
    return 0;
}

/* In a child: arm the hook with `fail` (NULL: unset) and `count` (a file
 * or NULL), make CALLS calls and exit 0 when exactly the calls of mask
 * (bit i: call i + 1) failed, each cleanly, and the failure counter says
 * as many; 1 otherwise (the calls on standard error). exit() runs the
 * hook's count writer. */
static int calls_failing(const char *fail, const char *count, unsigned mask)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (fail)
            setenv("ROOFLINE_FAULT_ALLOC", fail, 1);
        else
            unsetenv("ROOFLINE_FAULT_ALLOC");
        if (count)
            setenv("ROOFLINE_FAULT_ALLOC_COUNT", count, 1);
        else
            unsetenv("ROOFLINE_FAULT_ALLOC_COUNT");
        unsigned got = 0;
        bool bad = false;
        for (int i = 0; i < CALLS; i++) {
            int r = one_call(i);
            bad |= r < 0;
            got |= (r > 0 ? 1u : 0u) << i;
        }
        unsigned long failed = 0;
        for (int i = 0; i < CALLS; i++)
            failed += got >> i & 1;
        bad |= rl_alloc_failures() != failed;
        if (bad || got != mask)
            fprintf(stderr, "'%s': failed 0x%x, want 0x%x%s\n", fail ? fail : "(unset)", got,
                    mask, bad ? ", not cleanly" : "");
        exit(bad || got != mask);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status) == 0;
}

static char *count_text(const char *path)
{
    char *t = rl_test_slurp(path);
    ck_assert_ptr_nonnull(t);
    return t;
}

START_TEST(nth_call_fails_once)
{
    char count[4200];
    snprintf(count, sizeof count, "%s/count-once", rl_test_tmpdir());
    ck_assert(calls_failing("3", count, 1u << 2)); /* realloc, the third, alone */
    char *t = count_text(count);
    ck_assert_str_eq(t, "12 1\n");
    free(t);
    ck_assert(calls_failing("1", NULL, 1));
    ck_assert(calls_failing("6", NULL, 1u << 5)); /* an asprintf */
    ck_assert(calls_failing("10", NULL, 1u << 9)); /* decimal */
    ck_assert(calls_failing("13", NULL, 0));
}
END_TEST

START_TEST(nth_and_after_fail)
{
    char count[4200];
    snprintf(count, sizeof count, "%s/count-after", rl_test_tmpdir());
    ck_assert(calls_failing("2+", count, 0xffe)); /* calls 2 to 12 */
    char *t = count_text(count);
    ck_assert_str_eq(t, "12 11\n");
    free(t);
    ck_assert(calls_failing("12+", NULL, 1u << 11));
    ck_assert(calls_failing("1+", NULL, 0xfff));
}
END_TEST

/* Counted without failing; and what arms nothing: unset, empty, 0, a
 * number with another suffix, not a number. */
START_TEST(counted_or_not_armed)
{
    char count[4200];
    snprintf(count, sizeof count, "%s/count-only", rl_test_tmpdir());
    ck_assert(calls_failing(NULL, count, 0));
    char *t = count_text(count);
    ck_assert_str_eq(t, "12 0\n");
    free(t);
    static const char *const off[] = {"", "0", "0+", "3-", "3++", "x", "-"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        ck_assert_msg(calls_failing(off[i], NULL, 0), "'%s'", off[i]);
    ck_assert(calls_failing(NULL, NULL, 0));
    /* an empty count file name writes nothing */
    ck_assert(calls_failing("2", "", 1u << 1));
}
END_TEST

/* A real failure of vasprintf (not injected): an é in the C locale cannot
 * be written ("%ls": EILSEQ): -1, *out NULL, counted as a failure. */
START_TEST(real_asprintf_failure)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        unsetenv("ROOFLINE_FAULT_ALLOC");
        unsetenv("ROOFLINE_FAULT_ALLOC_COUNT");
        char *s = (char *)&s;
        int n = rl_asprintf(&s, "%ls", L"\u00e9");
        exit(!(n == -1 && s == NULL && rl_alloc_failures() == 1));
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

static Suite *alloc_hook_suite(void)
{
    Suite *s = suite_create("alloc_hook");
    TCase *core = tcase_create("core");
    tcase_add_test(core, nth_call_fails_once);
    tcase_add_test(core, nth_and_after_fail);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, counted_or_not_armed);
    tcase_add_test(limits, real_asprintf_failure);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(alloc_hook_suite()); }
