/* labels.c - short kernel names for charts: C++ signatures without return type, template arguments and parameter lists, cut at a word. */
#include "plots/labels.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/strbuf.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Is the '(' at s[i] a C++ parameter list's (right after a name or '>')? */
static bool params_open(const char *s, size_t i)
{
    if (i == 0)
        return false;
    char c = s[i - 1];
    return isalnum((unsigned char)c) || c == '_' || c == '>' || c == ']';
}

/* The index of the '(' opening the parameter list that ends s, or -1. */
static long params_start(const char *s, size_t n)
{
    if (n == 0 || s[n - 1] != ')')
        return -1;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            return params_open(s, i) ? (long)i : -1;
    }
    return -1;
}

int rl_chart_short_name(char *out, size_t size, const char *name, size_t max_chars)
{
    if (size == 0)
        return RL_OK;
    out[0] = '\0';
    size_t n = strlen(name);
    char *work = rl_malloc(n + 1);
    if (!work)
        return RL_ENOMEM;
    memcpy(work, name, n + 1);
    /* 1. The parameter list (and a trailing " const"), when it is C++'s. */
    while (n > 6 && strcmp(work + n - 6, " const") == 0)
        work[n -= 6] = 0;
    long p = params_start(work, n);
    bool cxx = p > 0;
    if (cxx)
        work[n = (size_t)p] = 0;
    /* 2. The return type: the text before the last top-level space. */
    size_t start = 0;
    if (cxx) {
        int angle = 0, paren = 0;
        for (size_t i = 0; i < n; i++) {
            char c = work[i];
            angle += c == '<' ? 1 : c == '>' ? -1 : 0;
            paren += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (c == ' ' && angle == 0 && paren == 0)
                start = i + 1;
        }
    }
    /* 3. Template arguments as <...>, namespaces dropped, in C++ names. */
    char *t = rl_malloc(n - start + 8);
    if (!t) {
        free(work);
        return RL_ENOMEM;
    }
    size_t k = 0;
    int depth = 0;
    for (size_t i = start; i < n; i++) {
        char c = work[i];
        if (cxx && c == '<') {
            if (depth++ == 0) {
                memcpy(t + k, "<...>", 5);
                k += 5;
            }
            continue;
        }
        if (cxx && c == '>' && depth > 0) {
            depth--;
            continue;
        }
        if (depth > 0)
            continue;
        if (cxx && c == ':' && work[i + 1] == ':') {
            k = 0; /* a namespace or class: keep what follows */
            i++;
            continue;
        }
        t[k++] = c;
    }
    t[k] = 0;
    /* 3b. A generic launcher (CUTLASS's Kernel<Op>, Kernel2<Op>,
     * device_kernel<Op>) says nothing: the first template argument names
     * the kernel, shortened the same way. */
    static const char *const launchers[] = {"Kernel<...>", "Kernel2<...>", "device_kernel<...>"};
    for (size_t w = 0; cxx && w < sizeof launchers / sizeof launchers[0]; w++) {
        const char *lt = strchr(work + start, '<');
        if (strcmp(t, launchers[w]) != 0 || !lt)
            continue;
        size_t a0 = (size_t)(lt - work) + 1, a1 = a0;
        for (int d = 0; a1 < n && (d > 0 || (work[a1] != ',' && work[a1] != '>')); a1++)
            d += work[a1] == '<' ? 1 : work[a1] == '>' ? -1 : 0;
        while (a0 < a1 && work[a0] == ' ')
            a0++;
        while (a1 > a0 && work[a1 - 1] == ' ')
            a1--;
        if (a1 == a0)
            break;
        char *arg = rl_malloc(a1 - a0 + 3);
        if (!arg) {
            free(work);
            free(t);
            return RL_ENOMEM;
        }
        memcpy(arg, work + a0, a1 - a0);
        memcpy(arg + (a1 - a0), "()", 3); /* parsed as a C++ name */
        free(work);
        free(t);
        int rc = rl_chart_short_name(out, size, arg, max_chars);
        free(arg);
        return rc;
    }
    free(work);
    /* 4. At most max_chars, cut at a word (a space, '_' or '<', or a
     * shape's 'x' between digits: "2048x4096...", never "2048x4096x14..."),
     * never inside one, with "..." marking the cut. */
    if (max_chars == 0)
        max_chars = RL_CHART_LABEL_MAX;
    if (max_chars < 8)
        max_chars = 8;
    size_t len = strlen(t);
    if (len > max_chars) {
        size_t cut = max_chars - 3;
        size_t word = cut;
        while (word > max_chars / 2 && t[word] != ' ' && t[word] != '_' && t[word] != '<' &&
               t[word] != '-' &&
               !(t[word] == 'x' && isdigit((unsigned char)t[word - 1]) &&
                 isdigit((unsigned char)t[word + 1])))
            word--;
        if (word > max_chars / 2)
            cut = word;
        while (cut > 0 && t[cut - 1] == ' ')
            cut--;
        memcpy(t + cut, "...", 4);
    }
    rl_utf8_clean(out, size, t);
    free(t);
    return RL_OK;
}
