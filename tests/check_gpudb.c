/* check_gpudb.c - tests of the GPU database's name matching and suggestions, on a database built in the test. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* opendir, replaced for this executable (the library is linked
 * statically, so its call lands here) so that a test can make listing a
 * folder fail after its schema.json was read, which no permission can do
 * for root. */
static int fail_opendir;
DIR *opendir(const char *name)
{
    if (fail_opendir) {
        errno = EACCES;
        return NULL;
    }
    int fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (fd >= 0 && !d)
        close(fd);
    return d;
}

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
     * longer shared prefix: abcx, near enough to be what was meant. */
    const struct rl_gpu_spec *s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_gpudb_lookup(&db, "abcd", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err, "unknown GPU 'abcd' (did you mean 'abcx'?)");
    /* Far from all ("abcdyy": three edits from each of those three, more
     * than a third of six letters): the closest three, in that order. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "abcdyy", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'abcdyy' (closest: abcx, abzd, aacd; 'roofline gpus' "
                          "lists all)");
    /* A smaller distance beats a longer prefix: "zzcc" is one edit from zzcd. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "zzcc", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'zzcc' (did you mean 'zzcd'?)");
    /* Distance to the alias counts: "H100 SXM6" is one edit from "h100sxm5". */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "H100 SXM6", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'H100 SXM6' (did you mean 'h100-sxm'?)");
    /* The brief's own: a missing digit. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "h10-sxm", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'h10-sxm' (did you mean 'h100-sxm'?)");
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
    ck_assert_int_eq(rl_gpudb_lookup(&db, "abcdyy", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err,
                     "unknown GPU 'abcdyy' (closest: abcx, aacd; 'roofline gpus' lists all)");
}
END_TEST

START_TEST(find_reads_every_gpu_and_only_those)
{
    /* The first GPU is found; with n = 2 the third is not. */
    ck_assert_str_eq(rl_gpudb_find(&db, "AACD")->id, "aacd");
    ck_assert_str_eq(rl_gpudb_find(&db, "zzcd")->id, "zzcd");
    /* A one-letter name, as an alias. */
    struct rl_gpu_spec *z = &gpus[5];
    snprintf(z->aliases[z->n_aliases++], sizeof z->aliases[0], "Q");
    ck_assert_str_eq(rl_gpudb_find(&db, "q")->id, "zzcd");
    /* Only the first n_aliases aliases count: a stale one is not a name. */
    snprintf(z->aliases[z->n_aliases], sizeof z->aliases[0], "stale");
    ck_assert_ptr_null(rl_gpudb_find(&db, "stale"));
    /* A second alias is found. */
    snprintf(z->aliases[z->n_aliases++], sizeof z->aliases[0], "Zed");
    ck_assert_str_eq(rl_gpudb_find(&db, "zed")->id, "zzcd");
    db.n = 2;
    ck_assert_ptr_null(rl_gpudb_find(&db, "abzd"));
    ck_assert_str_eq(rl_gpudb_find(&db, "abcx")->id, "abcx");
}
END_TEST

START_TEST(suggestions_use_aliases_and_prefixes)
{
    const struct rl_gpu_spec *s;
    char err[RL_ERRMSG_SIZE];
    /* Near an alias only ("qwerty9" on h200), far from every id and name. */
    struct rl_gpu_spec *h200 = &gpus[4];
    snprintf(h200->aliases[h200->n_aliases++], sizeof h200->aliases[0], "Qwerty9");
    ck_assert_int_eq(rl_gpudb_lookup(&db, "qwerty8", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'qwerty8' (did you mean 'h200'?)");
    /* ... a stale alias past n_aliases is not. */
    snprintf(h200->aliases[h200->n_aliases], sizeof h200->aliases[0], "Stale9");
    ck_assert_int_eq(rl_gpudb_lookup(&db, "stale8", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_null(strstr(err, "'h200'"));
    ck_assert_ptr_null(strstr(err, "(closest: h200, "));
    /* "xbcd" is two edits from each of aacd, abcx, abzd and zzcd and shares
     * no first letter with any: the first three in id order. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "xbcd", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'xbcd' (closest: aacd, abcx, abzd; 'roofline gpus' "
                          "lists all)");
    /* "zzccyy": zzcd at 3; then aacd and abcx at 5 ("zz" -> "aa"/"ab", one
     * more, and the "yy"); abzd and h200 further. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "zzccyy", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'zzccyy' (closest: zzcd, aacd, abcx; 'roofline gpus' "
                          "lists all)");
}
END_TEST

/* A small random generator (fixed seed: the same cases every run). */
static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 16) % n;
}
static void rnd_word(char *buf, size_t size)
{
    size_t n = 1 + rnd(4);
    for (size_t i = 0; i < n && i + 1 < size; i++)
        buf[i] = "abc"[rnd(3)];
    buf[n < size ? n : size - 1] = '\0';
}

START_TEST(suggestions_match_a_plain_sort)
{
    /* Property: the three suggestions are the first three GPUs of a stable
     * sort by (edit distance to the nearest id, name or alias; longest
     * prefix shared with the id), over random databases of short names
     * from a three-letter alphabet, where ties are everywhere; the first
     * alone when it is one edit away (the names are at most four letters). */
    static struct rl_gpu_spec many[9];
    for (int round = 0; round < 300; round++) {
        struct rl_gpudb rdb = {many, 0, NULL};
        size_t n = 1 + rnd(9);
        for (size_t i = 0; i < n; i++) {
            struct rl_gpu_spec *g = &many[rdb.n++];
            memset(g, 0, sizeof *g);
            rnd_word(g->id, sizeof g->id);
            rnd_word(g->name, sizeof g->name);
            g->n_aliases = (int)rnd(3);
            for (int a = 0; a < g->n_aliases; a++)
                rnd_word(g->aliases[a], sizeof g->aliases[0]);
        }
        char want[16];
        rnd_word(want, sizeof want);
        const struct rl_gpu_spec *found;
        char err[RL_ERRMSG_SIZE];
        int rc = rl_gpudb_lookup(&rdb, want, &found, err);
        if (rc == RL_OK)
            continue;
        /* The reference: selection of the best three by (d, -p), first wins. */
        size_t d[9], p[9];
        int used[9] = {0};
        for (size_t i = 0; i < n; i++) {
            d[i] = rl_edit_distance(want, many[i].id);
            size_t e = rl_edit_distance(want, many[i].name);
            d[i] = e < d[i] ? e : d[i];
            for (int a = 0; a < many[i].n_aliases; a++) {
                e = rl_edit_distance(want, many[i].aliases[a]);
                d[i] = e < d[i] ? e : d[i];
            }
            p[i] = 0;
            while (many[i].id[p[i]] && many[i].id[p[i]] == want[p[i]])
                p[i]++;
        }
        char list[160] = "";
        for (int k = 0; k < 3 && (size_t)k < n; k++) {
            int b = -1;
            for (size_t i = 0; i < n; i++)
                if (!used[i] && (b < 0 || d[i] < d[b] || (d[i] == d[b] && p[i] > p[b])))
                    b = (int)i;
            used[b] = 1;
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", k ? ", " : "", many[b].id);
        }
        char expect[RL_ERRMSG_SIZE];
        int first = -1;
        for (size_t i = 0; i < n; i++)
            if (first < 0 || d[i] < d[first] || (d[i] == d[first] && p[i] > p[first]))
                first = (int)i;
        if (d[first] == 1)
            snprintf(expect, sizeof expect, "unknown GPU '%s' (did you mean '%s'?)", want,
                     many[first].id);
        else
            snprintf(expect, sizeof expect,
                     "unknown GPU '%s' (closest: %s; 'roofline gpus' lists all)", want, list);
        ck_assert_msg(strcmp(err, expect) == 0, "round %d: got \"%s\", want \"%s\"", round, err,
                      expect);
    }
}
END_TEST

/* ---- loading a folder ---- */

static char *h100_text(void)
{
    char *t = rl_test_slurp(ROOFLINE_SOURCE_DIR "/data/gpus/h100-sxm.json");
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Write <dir>/<file> with the H100 spec, its id replaced by id. */
static void write_spec(const char *dir, const char *file, const char *id)
{
    char *t = h100_text();
    char *at = strstr(t, "\"id\": \"h100-sxm\"");
    ck_assert_ptr_nonnull(at);
    size_t a = (size_t)(at - t), f = strlen("\"id\": \"h100-sxm\"");
    char *out = malloc(strlen(t) + 64);
    memcpy(out, t, a);
    sprintf(out + a, "\"id\": \"%s\"%s", id, at + f);
    char path[1024], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ck_assert_int_eq(rl_file_write_atomic(path, out, strlen(out), err), 0);
    free(out);
    free(t);
}

/* A fresh folder under the test's temporary one, with the schema. */
static const char *new_dir(const char *name)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", rl_test_tmpdir(), name);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    char path[1024], err[RL_ERRMSG_SIZE];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    char *schema = rl_test_slurp(ROOFLINE_SOURCE_DIR "/data/gpus/schema.json");
    ck_assert_ptr_nonnull(schema);
    ck_assert_int_eq(rl_file_write_atomic(path, schema, strlen(schema), err), 0);
    free(schema);
    return dir;
}

START_TEST(load_grows_and_sorts)
{
    /* 40 specs, written in reverse order: the array grows past 16 and 32,
     * and comes back sorted by id. */
    const char *dir = new_dir("many");
    for (int i = 39; i >= 0; i--) {
        char id[16], file[32];
        snprintf(id, sizeof id, "g%02d", i % 100);
        snprintf(file, sizeof file, "%s.json", id);
        write_spec(dir, file, id);
    }
    /* Not specs: a hidden file, a file not ending in .json, ".json". */
    write_spec(dir, ".hidden.json", ".hidden");
    write_spec(dir, "notes.txt", "notes");
    write_spec(dir, ".json", "");
    struct rl_gpudb d;
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_msg(rl_gpudb_load(&d, dir, err) == 0, "%s", err);
    ck_assert_uint_eq(d.n, 40);
    for (size_t i = 0; i < d.n; i++) {
        char id[32];
        snprintf(id, sizeof id, "g%02u", (unsigned)i);
        ck_assert_str_eq(d.gpus[i].id, id);
        ck_assert_double_eq(d.gpus[i].memory_bandwidth_gbs, 3350);
    }
    ck_assert_ptr_nonnull(d.schema);
    rl_gpudb_release(&d);
    ck_assert_ptr_null(d.gpus);
    ck_assert_ptr_null(d.schema);
    ck_assert_uint_eq(d.n, 0);
}
END_TEST

START_TEST(load_one_and_none)
{
    struct rl_gpudb d;
    char err[RL_ERRMSG_SIZE] = "";
    const char *dir = new_dir("one");
    write_spec(dir, "solo.json", "solo");
    ck_assert_msg(rl_gpudb_load(&d, dir, err) == 0, "%s", err);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_str_eq(rl_gpudb_find(&d, "solo")->id, "solo");
    rl_gpudb_release(&d);
    /* Only the schema: no GPU, and the folder named. */
    dir = new_dir("none");
    ck_assert_int_eq(rl_gpudb_load(&d, dir, err), RL_ENOTFOUND);
    char want[1024];
    snprintf(want, sizeof want, "no GPU specs in '%s'", dir);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(d.gpus);
    ck_assert_uint_eq(d.n, 0);
}
END_TEST

START_TEST(load_refuses_bad_files)
{
    struct rl_gpudb d;
    char err[RL_ERRMSG_SIZE] = "", want[2048];
    /* An id of the file name's length that differs from it. */
    const char *dir = new_dir("misnamed");
    write_spec(dir, "abcd.json", "abce");
    ck_assert_int_eq(rl_gpudb_load(&d, dir, err), RL_ESCHEMA);
    snprintf(want, sizeof want, "'%s/abcd.json': id 'abce' differs from the file name", dir);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(d.gpus);
    /* An id that is a prefix of the file name. */
    dir = new_dir("prefix");
    write_spec(dir, "abcd.json", "abc");
    ck_assert_int_eq(rl_gpudb_load(&d, dir, err), RL_ESCHEMA);
    /* A spec that fails the lint: the file and the rule. */
    dir = new_dir("lint");
    char path[1024];
    snprintf(path, sizeof path, "%s/h100-sxm.json", dir);
    char *t = h100_text();
    char *at = strstr(t, "\"fp32_tflops\": 66.9");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "\"fp32_tflops\": 99.9", strlen("\"fp32_tflops\": 99.9"));
    ck_assert_int_eq(rl_file_write_atomic(path, t, strlen(t), err), 0);
    free(t);
    ck_assert_int_eq(rl_gpudb_load(&d, dir, err), RL_ESCHEMA);
    snprintf(want, sizeof want, "'%s': h100-sxm: FP32 99.9 TFLOP/s but 132 SMs x 128 lanes x 2 "
             "x 1980 MHz = 66.9", path);
    ck_assert_str_eq(err, want);
    /* A folder without a schema. */
    dir = new_dir("noschema");
    snprintf(path, sizeof path, "%s/schema.json", dir);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_ne(rl_gpudb_load(&d, dir, err), RL_OK);
    ck_assert_ptr_nonnull(strstr(err, "schema.json"));
    /* A folder whose schema reads but which cannot be listed. */
    dir = new_dir("unlisted");
    write_spec(dir, "solo.json", "solo");
    fail_opendir = 1;
    int rc = rl_gpudb_load(&d, dir, err);
    fail_opendir = 0;
    ck_assert_int_eq(rc, RL_EIO);
    snprintf(want, sizeof want, "cannot open GPU database folder '%s'", dir);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(d.schema);
}
END_TEST

/* Matching a trace's device by its counts (rl_gpudb_match_device), on a
 * database of its own: two 80 GB GPUs of 108 SMs (the PCIe card first by
 * id, then the SXM module), a 40 GB one of 108, an AMD part of 108 compute
 * units and 80 GB, and an entry whose SM count is unknown (0). */
static struct rl_gpu_spec dev_gpus[5];

static struct rl_gpudb device_db(void)
{
    static const struct {
        const char *id, *vendor;
        int sms;
        double gb;
    } g[] = {
        {"a100-pcie-80gb", "NVIDIA", 108, 80},
        {"a100-sxm-40gb", "NVIDIA", 108, 40},
        {"a100-sxm-80gb", "NVIDIA", 108, 80},
        {"mi-x", "AMD", 108, 80},
        {"nosm", "NVIDIA", 0, 80},
    };
    for (size_t i = 0; i < 5; i++) {
        memset(&dev_gpus[i], 0, sizeof dev_gpus[i]);
        snprintf(dev_gpus[i].id, sizeof dev_gpus[i].id, "%s", g[i].id);
        snprintf(dev_gpus[i].name, sizeof dev_gpus[i].name, "%s", g[i].id);
        snprintf(dev_gpus[i].vendor, sizeof dev_gpus[i].vendor, "%s", g[i].vendor);
        dev_gpus[i].sm_count = g[i].sms;
        dev_gpus[i].memory_size_gb = g[i].gb;
    }
    return (struct rl_gpudb){dev_gpus, 5, NULL};
}

START_TEST(match_device_by_name_then_counts)
{
    struct rl_gpudb d = device_db();
    char note[256] = "stale";
    /* by name: that entry, and no note */
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "A100 SXM 40GB", 1, 1, 32, note, sizeof note),
                     &dev_gpus[1]);
    ck_assert_str_eq(note, "");
    /* a board name, 108 SMs, 80 GB, warp 32: the two NVIDIA 80 GB entries
     * match (not the 40 GB one, not the AMD one); the SXM one wins the tie,
     * the PCIe one is named as the other match */
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "A100-PG509-200", 108, 80e9, 32, note,
                                           sizeof note),
                     &dev_gpus[2]);
    ck_assert_str_eq(note, "the trace names the GPU 'A100-PG509-200': taken as a100-sxm-80gb "
                           "by its 108 SMs and 80 GB; also matching: a100-pcie-80gb (--gpu to "
                           "choose)");
    /* no name, warp 64: the AMD entry alone, in compute units, no others */
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, NULL, 108, 80e9, 64, note, sizeof note),
                     &dev_gpus[3]);
    ck_assert_str_eq(note, "the trace names the GPU '(no name)': taken as mi-x by its 108 "
                           "compute units and 80 GB (--gpu to choose)");
    /* 40 GB: one match; an empty name is no name */
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "", 108, 40e9, 32, note, sizeof note),
                     &dev_gpus[1]);
    ck_assert_str_eq(note, "the trace names the GPU '(no name)': taken as a100-sxm-40gb by its "
                           "108 SMs and 40 GB (--gpu to choose)");
}
END_TEST

START_TEST(match_device_limits)
{
    struct rl_gpudb d = device_db();
    char note[256] = "stale";
    /* an SM count of 0 (unknown) matches nothing, not the entry of 0 SMs */
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "board", 0, 80e9, 32, note, sizeof note));
    ck_assert_str_eq(note, "");
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "board", -1, 80e9, 32, note, sizeof note));
    /* no memory figure, or NaN: nothing */
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "board", 108, 0, 32, note, sizeof note));
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "board", 108, NAN, 32, note, sizeof note));
    /* 10% of 40 GB is 4 GB (0.1 x 40 = 4.0 exactly in doubles): 44 GB and
     * 36 GB are within, 44.01 and 35.99 are not (and 80 GB is far) */
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "b", 108, 44e9, 32, note, sizeof note),
                     &dev_gpus[1]);
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "b", 108, 36e9, 32, note, sizeof note),
                     &dev_gpus[1]);
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "b", 108, 44.01e9, 32, note, sizeof note));
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "b", 108, 35.99e9, 32, note, sizeof note));
    ck_assert_str_eq(note, "");
    /* another SM count: nothing */
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "b", 132, 80e9, 32, note, sizeof note));
    /* an entry with no memory figure never matches by counts */
    dev_gpus[1].memory_size_gb = 0;
    ck_assert_ptr_null(rl_gpudb_match_device(&d, "b", 108, 40e9, 32, note, sizeof note));
}
END_TEST

/* Three matches, the SXM module first: it stays the pick (a PCIe card
 * after it does not win, a second SXM entry does not displace the first),
 * and the others are listed in database order, ", "-joined. */
START_TEST(match_device_first_sxm_wins_and_others_follow)
{
    struct rl_gpudb d = device_db();
    snprintf(dev_gpus[0].id, sizeof dev_gpus[0].id, "a100-sxm-80gb");
    snprintf(dev_gpus[2].id, sizeof dev_gpus[2].id, "a100-pcie-80gb");
    snprintf(dev_gpus[1].id, sizeof dev_gpus[1].id, "b-sxm-80gb");
    dev_gpus[1].memory_size_gb = 80;
    /* order: a100-sxm-80gb, b-sxm-80gb, a100-pcie-80gb, mi-x (AMD), nosm */
    char note[256] = "stale";
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "board", 108, 80e9, 32, note, sizeof note),
                     &dev_gpus[0]);
    ck_assert_str_eq(note, "the trace names the GPU 'board': taken as a100-sxm-80gb by its 108 "
                           "SMs and 80 GB; also matching: b-sxm-80gb, a100-pcie-80gb (--gpu to "
                           "choose)");
    /* the PCIe card first, then the two SXM entries: the first SXM takes
     * the pick from the card, the second does not */
    snprintf(dev_gpus[0].id, sizeof dev_gpus[0].id, "a100-pcie-80gb");
    snprintf(dev_gpus[1].id, sizeof dev_gpus[1].id, "a100-sxm-80gb");
    snprintf(dev_gpus[2].id, sizeof dev_gpus[2].id, "b-sxm-80gb");
    ck_assert_ptr_eq(rl_gpudb_match_device(&d, "board", 108, 80e9, 32, note, sizeof note),
                     &dev_gpus[1]);
    ck_assert_str_eq(note, "the trace names the GPU 'board': taken as a100-sxm-80gb by its 108 "
                           "SMs and 80 GB; also matching: a100-pcie-80gb, b-sxm-80gb (--gpu to "
                           "choose)");
}
END_TEST

/* The match reads the database's n entries and no more: the five test
 * entries in an array of exactly five (heap, as rl_gpudb_load's), the
 * same pick and note as from the static copy. */
START_TEST(match_device_reads_only_the_entries)
{
    struct rl_gpudb d = device_db();
    struct rl_gpu_spec *exact = malloc(d.n * sizeof *exact);
    ck_assert_ptr_nonnull(exact);
    memcpy(exact, d.gpus, d.n * sizeof *exact);
    struct rl_gpudb h = {exact, d.n, NULL};
    char note[256] = "stale";
    ck_assert_ptr_eq(rl_gpudb_match_device(&h, "board", 108, 40e9, 32, note, sizeof note),
                     &exact[1]);
    ck_assert_str_eq(note, "the trace names the GPU 'board': taken as a100-sxm-40gb by its 108 "
                           "SMs and 40 GB (--gpu to choose)");
    ck_assert_ptr_null(rl_gpudb_find(&h, "no such gpu"));
    free(exact);
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
    tcase_add_test(limits, find_reads_every_gpu_and_only_those);
    tcase_add_test(limits, suggestions_use_aliases_and_prefixes);
    tcase_add_test(limits, suggestions_match_a_plain_sort);
    tcase_add_test(limits, match_device_by_name_then_counts);
    tcase_add_test(limits, match_device_limits);
    tcase_add_test(limits, match_device_first_sxm_wins_and_others_follow);
    tcase_add_test(limits, match_device_reads_only_the_entries);
    suite_add_tcase(s, limits);
    TCase *load = tcase_create("load");
    tcase_add_test(load, load_grows_and_sorts);
    tcase_add_test(load, load_one_and_none);
    tcase_add_test(load, load_refuses_bad_files);
    suite_add_tcase(s, load);
    return s;
}

int main(void) { return rl_test_run(gpudb_suite()); }
