/* bench_ncu.c - benchmark (not a test): `roofline report --ncu` on long-form exports of many launches built from a real one.
 *
 * Usage: bench_ncu [ROOFLINE_BIN] [LAUNCHES...]   (default: 50000 200000)
 * The kernel results of a real export (ROOFLINE_BENCH_SOURCE, default
 * tests/data/ncu-real/gardenia-a100-long-hfma.csv: A100, NERSC's metric
 * list) are replicated in order, each copy with a new ID and its kernel name
 * tagged with one of 240 suffixes (240 x the source's kernels = the groups),
 * values untouched. Then `roofline report --ncu FILE --gpu a100-sxm-80gb -o
 * DIR` runs on each file; its wall time and peak memory (getrusage of the
 * child) are printed against the targets: 2.4 s for 200,000 launches, and
 * under 64 MB and flat across sizes. Exit 1 when a target is missed.
 * ROOFLINE_BENCH_KEEP=1 keeps the files (for perf, or NERSC's recipe:
 * tests/nersc-compare).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define TAGS 240


/* One data row of the source split at its fields: ID, the text up to the
 * kernel name, the name, the rest. ncu quotes every field. */
struct row {
    long result;              /* index of its kernel result in the source */
    char *before_name, *name, *rest; /* after the ID field */
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        exit(2);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* The end of the quoted field starting at p (at its closing quote + 1). */
static const char *field_end(const char *p)
{
    if (*p != '"')
        return strchr(p, ',') ? strchr(p, ',') : p + strlen(p);
    for (p++; *p; p++)
        if (*p == '"') {
            if (p[1] == '"')
                p++;
            else
                return p + 1;
        }
    return p;
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : ROOFLINE_BIN;
    const char *src = getenv("ROOFLINE_BENCH_SOURCE");
    if (!src)
        src = ROOFLINE_TEST_DATA_DIR "/ncu-real/gardenia-a100-long-hfma.csv";
    long sizes[8] = {50000, 200000};
    int n_sizes = 2;
    if (argc > 2)
        for (n_sizes = 0; n_sizes < 8 && n_sizes + 2 < argc; n_sizes++)
            sizes[n_sizes] = atol(argv[n_sizes + 2]);

    /* The source: its header and its data rows by kernel result. */
    FILE *f = fopen(src, "rb");
    if (!f) {
        perror(src);
        return 2;
    }
    static char line[1 << 16];
    char *header = NULL;
    struct row *rows = NULL;
    size_t n_rows = 0, cap = 0;
    long results = 0;
    char last_id[64] = "";
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (!header) {
            if (strncmp(line, "\"ID\",", 5) == 0)
                header = dup_n(line, n);
            continue;
        }
        if (line[0] != '"')
            continue; /* ==PROF== lines */
        const char *id_end = field_end(line);
        const char *p = id_end;
        for (int k = 0; k < 3 && *p; k++) /* Process ID, Process Name, Host Name */
            p = field_end(p + 1);
        const char *name = p + 1, *name_end = field_end(name);
        if (strncmp(line, last_id, (size_t)(id_end - line)) != 0 ||
            last_id[id_end - line] != 0) {
            snprintf(last_id, sizeof last_id, "%.*s", (int)(id_end - line), line);
            results++;
        }
        if (n_rows == cap) {
            cap = cap ? 2 * cap : 256;
            rows = realloc(rows, cap * sizeof *rows);
            if (!rows)
                return 2;
        }
        rows[n_rows].result = results - 1;
        rows[n_rows].before_name = dup_n(id_end, (size_t)(name - id_end));
        rows[n_rows].name = dup_n(name + 1, (size_t)(name_end - name) - 2); /* unquoted */
        rows[n_rows].rest = dup_n(name_end, strlen(name_end));
        n_rows++;
    }
    fclose(f);
    if (!header || results == 0) {
        fprintf(stderr, "%s: no ncu long-form header or rows\n", src);
        return 2;
    }
    char dir[] = "/tmp/roofline-bench-ncu-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    bool ok = true;
    double rss[8] = {0};
    for (int s = 0; s < n_sizes; s++) {
        long n = sizes[s];
        char path[256], out[256];
        snprintf(path, sizeof path, "%s/ncu-%ld.csv", dir, n);
        snprintf(out, sizeof out, "%s/report-%ld", dir, n);
        double t0 = bench_now_s();
        FILE *o = fopen(path, "w");
        if (!o) {
            perror(path);
            return 2;
        }
        setvbuf(o, NULL, _IOFBF, 1 << 20);
        fprintf(o, "==PROF== Connected to process 1 (synthetic: tests/bench_ncu.c from %s)\n%s\n",
                src, header);
        for (long i = 0; i < n; i++) {
            long r = i % results;
            for (size_t k = 0; k < n_rows; k++)
                if (rows[k].result == r)
                    fprintf(o, "\"%ld\"%s\"%s #%ld\"%s\n", i, rows[k].before_name, rows[k].name,
                            (i / results) % TAGS, rows[k].rest);
        }
        if (fclose(o)) {
            perror(path);
            return 2;
        }
        struct stat st;
        stat(path, &st);
        printf("generated %ld launches, %.0f MB, in %.1f s: %s\n", n, st.st_size / 1e6,
               bench_now_s() - t0, path);
        char *argv_[] = {(char *)bin, "report", "--ncu", path, "--gpu", "a100-sxm-80gb", "-o",
                         out, NULL};
        struct bench_run run;
        if (!bench_run(argv_, &run))
            return 2;
        double wall = run.wall_s;
        rss[s] = run.peak_mb;
        double target_s = 2.4 * (double)n / 200000;
        printf("roofline report --ncu: exit %d, %.2f s wall (%.0f MB/s), %.2f s user, %.0f MB "
               "peak memory (targets: %.2f s, 64 MB)\n",
               run.exit_code, wall, st.st_size / 1e6 / wall, run.user_s, rss[s], target_s);
        ok &= run.exit_code == 0 && wall < target_s && rss[s] < 64;
        if (!getenv("ROOFLINE_BENCH_KEEP"))
            unlink(path);
    }
    if (n_sizes > 1)
        printf("peak memory from %ld to %ld launches: %.0f -> %.0f MB (%s)\n", sizes[0],
               sizes[n_sizes - 1], rss[0], rss[n_sizes - 1],
               rss[n_sizes - 1] < 1.25 * rss[0] + 4 ? "flat" : "GROWS");
    if (n_sizes > 1 && !(rss[n_sizes - 1] < 1.25 * rss[0] + 4))
        ok = false;
    if (getenv("ROOFLINE_BENCH_KEEP")) {
        printf("kept %s\n", dir);
    } else {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    return ok ? 0 : 1;
}
