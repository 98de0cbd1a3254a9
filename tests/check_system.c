/* check_system.c - tests of the node descriptions (data/systems/) and their loader. */
#include "test_util.h"

#include "analyzer/comm/system.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DATA_DIR ROOFLINE_SOURCE_DIR "/data"

static struct rl_gpudb gpus;
static struct rl_systemdb db;

static void load(void)
{
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_msg(rl_gpudb_load(&gpus, DATA_DIR "/gpus", err) == 0, "%s", err);
    ck_assert_msg(rl_systemdb_load(&db, DATA_DIR "/systems", &gpus, err) == 0, "%s", err);
}

static void unload(void)
{
    rl_systemdb_release(&db);
    rl_gpudb_release(&gpus);
}

static const struct rl_system *sys(const char *name)
{
    const struct rl_system *s = rl_systemdb_find(&db, name);
    ck_assert_msg(s != NULL, "no system '%s'", name);
    return s;
}

static const char *const required[] = {"dgx-a100", "dgx-h100", "dgx-h200", "hgx-b200",
                                       "gb200-nvl72", "l40s-8gpu-pcie", "mi300x-platform",
                                       NULL};

START_TEST(every_system_loads)
{
    for (int i = 0; required[i]; i++)
        ck_assert_str_eq(sys(required[i])->id, required[i]);
    /* Sorted by id; each one's GPU is in data/gpus and every figure sourced
     * (the loader refuses otherwise). */
    for (size_t i = 1; i < db.n; i++)
        ck_assert_int_lt(strcmp(db.systems[i - 1].id, db.systems[i].id), 0);
    for (size_t i = 0; i < db.n; i++) {
        ck_assert_ptr_nonnull(rl_gpudb_find(&gpus, db.systems[i].gpu));
        ck_assert_int_gt(db.systems[i].n_sources, 0);
    }
}
END_TEST

START_TEST(hand_checked_values)
{
    /* DGX H100: 8 H100 SXM on 4 NVSwitch chips, 18 x 25 = 450 GB/s per GPU
     * per direction; 8 ConnectX-7 at 400 Gb/s: 8 x 400 / 8 = 400 GB/s. */
    const struct rl_system *h = sys("dgx-h100");
    ck_assert_str_eq(h->gpu, "h100-sxm");
    ck_assert_int_eq(h->gpus_per_node, 8);
    ck_assert_int_eq(h->domain_gpus, 8);
    ck_assert_str_eq(h->topology, "switch");
    ck_assert_double_eq(h->intra_gbs, 450);
    ck_assert_double_eq(h->pcie_gbs, 64);
    ck_assert_int_eq(h->nics_per_node, 8);
    ck_assert_double_eq(h->nic_gbps, 400);
    ck_assert_double_eq(rl_system_node_nic_gbs(h), 400);
    /* DGX A100: 12 x 25 = 300; 8 x 200 Gb/s HDR = 200 GB/s. */
    const struct rl_system *a = sys("dgx-a100");
    ck_assert_double_eq(a->intra_gbs, 300);
    ck_assert_double_eq(rl_system_node_nic_gbs(a), 200);
    /* HGX B200: 18 x 50 = 900; 8 x 400 Gb/s. */
    ck_assert_double_eq(sys("hgx-b200")->intra_gbs, 900);
    ck_assert_double_eq(rl_system_node_nic_gbs(sys("hgx-b200")), 400);
    /* GB200 NVL72: one NVLink domain of 72, a node is a tray of 4 GPUs with
     * 4 x 400 Gb/s = 200 GB/s. */
    const struct rl_system *nvl = sys("gb200-nvl72");
    ck_assert_int_eq(nvl->domain_gpus, 72);
    ck_assert_int_eq(nvl->gpus_per_node, 4);
    ck_assert_double_eq(rl_system_node_nic_gbs(nvl), 200);
    /* 8 x L40S: no GPU link, PCIe Gen4 x16 = 32 GB/s per direction. */
    const struct rl_system *l = sys("l40s-8gpu-pcie");
    ck_assert_str_eq(l->topology, "pcie");
    ck_assert_int_eq(l->domain_gpus, 1);
    ck_assert_double_eq(l->intra_gbs, 32);
    /* MI300X platform: a mesh of 7 x 64 = 448 GB/s per direction. */
    const struct rl_system *m = sys("mi300x-platform");
    ck_assert_str_eq(m->topology, "mesh");
    ck_assert_double_eq(m->intra_gbs, 448);
}
END_TEST

START_TEST(systems_agree_with_their_gpus)
{
    /* A system's domain link is its GPU's links per direction (NVLink or
     * Infinity Fabric), or PCIe when it has none; its PCIe is the GPU's. */
    for (size_t i = 0; i < db.n; i++) {
        const struct rl_system *s = &db.systems[i];
        const struct rl_gpu_spec *g = rl_gpudb_find(&gpus, s->gpu);
        double want = strcmp(s->topology, "pcie") == 0 ? g->links.pcie_gbs : g->links.gbs;
        ck_assert_msg(want == s->intra_gbs, "%s: intra %g, its GPU %s: %g", s->id,
                      s->intra_gbs, g->id, want);
        ck_assert_msg(s->domain_gpus <= s->gpus_per_node || strcmp(s->topology, "switch") == 0,
                      "%s: a domain beyond the node needs a switch", s->id);
    }
}
END_TEST

START_TEST(readme_documents_every_key)
{
    char *readme = rl_test_slurp(DATA_DIR "/systems/README.md");
    ck_assert_ptr_nonnull(readme);
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(db.schema, "properties")) {
        char quoted[96];
        snprintf(quoted, sizeof quoted, "`%s`", p->string);
        if (strcmp(p->string, "$comment") != 0)
            ck_assert_msg(strstr(readme, quoted) != NULL, "data/systems/README.md lacks %s",
                          quoted);
    }
    free(readme);
}
END_TEST

START_TEST(lookup_by_name_and_suggestions)
{
    ck_assert_str_eq(sys("DGX H100")->id, "dgx-h100");
    ck_assert_str_eq(sys("nvidia dgx h100")->id, "dgx-h100");
    ck_assert_str_eq(sys("GB200 NVL72")->id, "gb200-nvl72");
    ck_assert_str_eq(sys("HGX B200")->id, "hgx-b200");
    ck_assert_ptr_null(rl_systemdb_find(&db, ""));
    const struct rl_system *s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_systemdb_lookup(&db, "dgx-h10", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err, "unknown system 'dgx-h10' (did you mean 'dgx-h100'?)");
    ck_assert_int_eq(rl_systemdb_lookup(&db, "cray-ex-frontier-node", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "unknown system 'cray-ex-frontier-node' (closest: "));
    ck_assert_ptr_nonnull(strstr(err, "'roofline gpus systems' lists all)"));
    ck_assert_int_eq(rl_systemdb_lookup(&db, "DGX-A100", &s, err), RL_OK);
    ck_assert_str_eq(s->id, "dgx-a100");
}
END_TEST

/* A system file of the test's own, one line per key: "gpu" is line 5. */
static char *system_text(const char *gpu, const char *nic, const char *prov_extra)
{
    char *t = malloc(4096);
    snprintf(t, 4096,
             "{\n"
             "  \"schema_version\": 1,\n"
             "  \"id\": \"my-node\",\n"
             "  \"name\": \"My node\",\n"
             "  \"gpu\": \"%s\",\n"
             "  \"aliases\": [],\n"
             "  \"gpus_per_node\": 8,\n"
             "  \"domain_gpus\": 8,\n"
             "  \"topology\": \"switch\",\n"
             "  \"intra_link\": \"NVLink 4\",\n"
             "  \"intra_gbs_per_direction\": 450,\n"
             "  \"pcie_link\": \"PCIe Gen5 x16\",\n"
             "  \"pcie_gbs_per_direction\": 64,\n"
             "  \"nics_per_node\": 8,\n"
             "  \"nic_gbps\": 400,\n"
             "  \"nic\": \"%s\",\n"
             "  \"sources\": {\"s\": {\"kind\": \"datasheet\", \"title\": \"t\"}},\n"
             "  \"provenance\": {\"gpus_per_node\": \"s\", \"domain_gpus\": \"s\",\n"
             "                  \"intra_gbs_per_direction\": \"s\", %s\n"
             "                  \"nics_per_node\": \"s\", \"nic_gbps\": \"s\"}\n"
             "}\n",
             gpu, nic, prov_extra);
    return t;
}

/* A folder with the shipped schema and one file; returns the folder. */
static const char *folder_with(const char *file, const char *text)
{
    static char dir[512];
    static int n;
    snprintf(dir, sizeof dir, "%s/systems%d", rl_test_tmpdir(), n++);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char path[700], err[RL_ERRMSG_SIZE];
    char *schema = rl_test_slurp(DATA_DIR "/systems/schema.json");
    snprintf(path, sizeof path, "%s/schema.json", dir);
    ck_assert_int_eq(rl_file_write_atomic(path, schema, strlen(schema), err), 0);
    free(schema);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ck_assert_int_eq(rl_file_write_atomic(path, text, strlen(text), err), 0);
    return dir;
}

START_TEST(unknown_gpu_refused_with_file_and_line)
{
    char *t = system_text("h100-sxmm", "CX7", "\"pcie_gbs_per_direction\": \"s\",");
    const char *dir = folder_with("my-node.json", t);
    free(t);
    struct rl_systemdb d;
    char err[RL_ERRMSG_SIZE], want[1024];
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    snprintf(want, sizeof want,
             "'%s/my-node.json': line 5: gpu 'h100-sxmm' is not in the GPU database (did you "
             "mean 'h100-sxm'?)",
             dir);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(d.systems);
    /* Without a GPU database the GPU is not checked. */
    ck_assert_msg(rl_systemdb_load(&d, dir, NULL, err) == 0, "%s", err);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_double_eq(rl_system_node_nic_gbs(&d.systems[0]), 400);
    rl_systemdb_release(&d);
}
END_TEST

START_TEST(bad_files_refused)
{
    struct rl_systemdb d;
    char err[RL_ERRMSG_SIZE];
    /* The id is the file name. */
    char *t = system_text("h100-sxm", "CX7", "\"pcie_gbs_per_direction\": \"s\",");
    const char *dir = folder_with("other-name.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "other-name.json': id 'my-node' differs from the file"));
    /* ... the whole name: an id that only begins it is refused too */
    dir = folder_with("my-node2.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "my-node2.json': id 'my-node' differs from the file"));
    /* Every number has a source: the line of "provenance" (18). */
    free(t);
    t = system_text("h100-sxm", "CX7", "");
    dir = folder_with("my-node.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "my-node.json': line 18: 'pcie_gbs_per_direction' has "
                                      "no source: add it to 'provenance'"));
    /* A source that is not listed. */
    free(t);
    t = system_text("h100-sxm", "CX7", "\"pcie_gbs_per_direction\": \"nope\",");
    dir = folder_with("my-node.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "provenance 'pcie_gbs_per_direction' names a source "
                                      "that 'sources' does not list"));
    /* ... nor does an empty one (no source has an empty id) */
    free(t);
    t = system_text("h100-sxm", "CX7", "\"pcie_gbs_per_direction\": \"\",");
    dir = folder_with("my-node.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "provenance 'pcie_gbs_per_direction' names a source "
                                      "that 'sources' does not list"));
    /* A string longer than its field is refused, not cut. */
    free(t);
    char nic[100];
    memset(nic, 'x', 80);
    nic[80] = '\0';
    t = system_text("h100-sxm", nic, "\"pcie_gbs_per_direction\": \"s\",");
    dir = folder_with("my-node.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "line 16: nic is longer than 63 characters"));
    /* The schema: a topology it does not know. */
    free(t);
    t = system_text("h100-sxm", "CX7", "\"pcie_gbs_per_direction\": \"s\",");
    char *p = strstr(t, "\"switch\"");
    memcpy(p, "\"torus\" ", 8);
    dir = folder_with("my-node.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "line 9: topology: must be one of: switch, mesh, bridge, "
                                      "pcie"));
    free(t);
    /* A folder without systems, and none at all. */
    dir = folder_with("README.md", "no json here\n");
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ENOTFOUND);
    ck_assert_int_eq(rl_systemdb_load(&d, "/nonexistent/systems", &gpus, err), RL_EIO);
}
END_TEST

/* Systems at their limits: a string of 63 characters (nic[64] less its
 * NUL) is kept whole, one of 64 refused; a "pcie" topology with a domain of
 * 2 is refused at domain_gpus' line (8), of 1 read; a folder of 17 systems
 * (past the first 16 the table holds) reads them all, sorted by id. */
START_TEST(systems_at_their_limits)
{
    struct rl_systemdb d;
    char err[RL_ERRMSG_SIZE];
    char nic[80];
    memset(nic, 'n', 63);
    nic[63] = '\0';
    char *t = system_text("h100-sxm", nic, "\"pcie_gbs_per_direction\": \"s\",");
    const char *dir = folder_with("my-node.json", t);
    free(t);
    ck_assert_msg(rl_systemdb_load(&d, dir, &gpus, err) == 0, "%s", err);
    ck_assert_str_eq(d.systems[0].nic, nic);
    rl_systemdb_release(&d);
    strcat(nic, "n");
    t = system_text("h100-sxm", nic, "\"pcie_gbs_per_direction\": \"s\",");
    dir = folder_with("my-node.json", t);
    free(t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "line 16: nic is longer than 63 characters"));

    t = system_text("h100-sxm", "CX7", "\"pcie_gbs_per_direction\": \"s\",");
    memcpy(strstr(t, "\"switch\""), "\"pcie\"  ", 8);
    memcpy(strstr(t, "\"domain_gpus\": 8"), "\"domain_gpus\": 2", 16);
    dir = folder_with("my-node.json", t);
    ck_assert_int_eq(rl_systemdb_load(&d, dir, &gpus, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "my-node.json': line 8: topology 'pcie' has no scale-up "
                                      "domain: domain_gpus is 1"));
    memcpy(strstr(t, "\"domain_gpus\": 2"), "\"domain_gpus\": 1", 16);
    dir = folder_with("my-node.json", t);
    ck_assert_msg(rl_systemdb_load(&d, dir, &gpus, err) == 0, "%s", err);
    ck_assert_int_eq(d.systems[0].domain_gpus, 1);
    ck_assert_str_eq(d.systems[0].topology, "pcie");
    rl_systemdb_release(&d);
    free(t);

    t = system_text("h100-sxm", "CX7", "\"pcie_gbs_per_direction\": \"s\",");
    char *id = strstr(t, "\"my-node\"");
    dir = NULL;
    for (int i = 16; i >= 0; i--) {
        char one[4096], file[32], path[700];
        snprintf(one, sizeof one, "%.*s\"node-%02d\"%s", (int)(id - t), t, i, id + 9);
        snprintf(file, sizeof file, "node-%02d.json", i);
        if (!dir) {
            dir = folder_with(file, one);
        } else {
            snprintf(path, sizeof path, "%s/%s", dir, file);
            ck_assert_int_eq(rl_file_write_atomic(path, one, strlen(one), err), 0);
        }
    }
    free(t);
    ck_assert_msg(rl_systemdb_load(&d, dir, &gpus, err) == 0, "%s", err);
    ck_assert_uint_eq(d.n, 17);
    ck_assert_str_eq(d.systems[0].id, "node-00");
    ck_assert_str_eq(d.systems[16].id, "node-16");
    ck_assert_int_eq(d.systems[16].gpus_per_node, 8);
    rl_systemdb_release(&d);
}
END_TEST

static Suite *system_suite(void)
{
    Suite *s = suite_create("system");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, load, unload);
    tcase_add_test(core, every_system_loads);
    tcase_add_test(core, hand_checked_values);
    tcase_add_test(core, systems_agree_with_their_gpus);
    tcase_add_test(core, lookup_by_name_and_suggestions);
    tcase_add_test(core, readme_documents_every_key);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, load, unload);
    tcase_add_test(limits, unknown_gpu_refused_with_file_and_line);
    tcase_add_test(limits, bad_files_refused);
    tcase_add_test(limits, systems_at_their_limits);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(system_suite()); }
