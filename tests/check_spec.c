/* check_spec.c - tests of the GPU datasheet files, their loader and the database lookup. */
#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/util/schema.h"
#include "analyzer/model/spec.h"
#include "analyzer/util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUS_DIR ROOFLINE_SOURCE_DIR "/data/gpus"

static struct rl_gpudb db;

static void load_db(void)
{
    char err[RL_ERRMSG_SIZE] = "";
    int rc = rl_gpudb_load(&db, GPUS_DIR, err);
    ck_assert_msg(rc == 0, "loading %s: %s", GPUS_DIR, err);
}

static void unload_db(void) { rl_gpudb_release(&db); }

static const struct rl_gpu_spec *gpu(const char *name)
{
    const struct rl_gpu_spec *s = rl_gpudb_find(&db, name);
    ck_assert_msg(s != NULL, "no GPU '%s'", name);
    return s;
}

static const char *const required_ids[] = {
    "v100-sxm2", "a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-80gb", "h100-sxm",
    "h100-pcie", "h100-nvl",  "h200",          "gh200",         "l4",
    "l40s",      "rtx-4090",  "b200",          "rtx-3090",      "mi300x",
    "mi325x",    "mi355x",    "mi210",         "mi250",         "mi250x",
    "b300",      "gb300",     "gb200",         "rtx-5090",      "rtx-5080",
    "rtx-pro-6000", NULL};

START_TEST(every_shipped_spec_loads_and_lints)
{
    /* rl_gpudb_load validates every file against schema.json, checks the
     * provenance of every number and lints it; here: the ids are there. */
    for (int i = 0; required_ids[i]; i++) {
        const struct rl_gpu_spec *s = rl_gpudb_find(&db, required_ids[i]);
        ck_assert_msg(s != NULL, "missing %s", required_ids[i]);
        ck_assert_str_eq(s->id, required_ids[i]);
        char err[RL_ERRMSG_SIZE];
        ck_assert_msg(rl_gpu_spec_lint(s, err) == 0, "%s", err);
    }
    ck_assert_uint_ge(db.n, 20);
}
END_TEST

/* Every key of the schema must say what it is: the schema documents them. */
static void assert_described(const cJSON *props, const char *where)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, props) {
        if (strcmp(p->string, "$comment") == 0)
            continue;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "description");
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(p, "$ref");
        ck_assert_msg(cJSON_IsString(d) || cJSON_IsString(ref), "%s.%s has no description",
                      where, p->string);
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(p, "properties");
        if (sub)
            assert_described(sub, p->string);
    }
}

START_TEST(schema_documents_every_key)
{
    assert_described(cJSON_GetObjectItemCaseSensitive(db.schema, "properties"), "spec");
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(db.schema, "$defs"), *d;
    cJSON_ArrayForEach(d, defs) {
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(d, "properties");
        if (props)
            assert_described(props, d->string);
    }
}
END_TEST

START_TEST(readme_documents_every_key)
{
    char *readme = rl_test_slurp(GPUS_DIR "/README.md");
    ck_assert_ptr_nonnull(readme);
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(db.schema, "properties")) {
        char quoted[96];
        snprintf(quoted, sizeof quoted, "`%s`", p->string);
        if (strcmp(p->string, "$comment") != 0)
            ck_assert_msg(strstr(readme, quoted) != NULL, "data/gpus/README.md lacks %s",
                          quoted);
    }
    free(readme);
}
END_TEST

START_TEST(datasheet_anchors)
{
    /* Figures a reader can check against NVIDIA's documents; the classic
     * mistakes (sparse quoted as dense, 128 FP32 lanes on A100) fail here. */
    const struct rl_gpu_spec *h100 = gpu("h100-sxm"), *h200 = gpu("h200");
    const struct rl_gpu_spec *a100 = gpu("a100-sxm-80gb"), *v100 = gpu("v100-sxm2");
    ck_assert_double_eq(h100->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_BF16], 989.4);
    ck_assert_double_eq(h100->peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_BF16], 1978.9);
    ck_assert_double_eq(h100->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32], 66.9);
    ck_assert_double_eq(h100->memory_bandwidth_gbs, 3350);
    ck_assert_double_eq(h200->memory_bandwidth_gbs, 4800);
    ck_assert_double_eq(h200->memory_size_gb, 141);
    ck_assert_double_eq(h200->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_BF16], 989.4);
    ck_assert_double_eq(a100->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32], 19.5);
    ck_assert_double_eq(a100->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP16], 312);
    ck_assert_double_eq(a100->memory_bandwidth_gbs, 2039);
    ck_assert(isnan(a100->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP8]));
    ck_assert_int_eq(a100->sm_count, 108);
    ck_assert_double_eq(v100->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP16], 125);
    ck_assert(isnan(v100->peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP16]));
    ck_assert(isnan(v100->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_BF16]));
    /* Hopper tensor peaks assume 1830 MHz: 132 x 4096 x 1.83 GHz. */
    ck_assert_double_eq_tol(132 * 4096 * h100->tensor_clock_mhz * 1e-6, 989.4, 0.1);
}
END_TEST

START_TEST(sparse_is_twice_dense_everywhere)
{
    for (size_t g = 0; g < db.n; g++) {
        const struct rl_gpu_spec *s = &db.gpus[g];
        for (int p = 0; p < RL_PREC_COUNT; p++) {
            double d = s->peak_tflops[RL_PEAKS_TENSOR_DENSE][p];
            double sp = s->peak_tflops[RL_PEAKS_TENSOR_SPARSE][p];
            if (!isnan(sp))
                ck_assert_msg(!isnan(d) && fabs(sp / d - 2) < 0.04, "%s %s: %g vs %g", s->id,
                              rl_precision_name(p), sp, d);
        }
    }
}
END_TEST

START_TEST(origins_follow_sources)
{
    const struct rl_gpu_spec *h100 = gpu("h100-sxm");
    int f = rl_spec_field_index("tensor_clock_mhz");
    ck_assert_int_ge(f, 0);
    ck_assert_int_eq(rl_gpu_spec_field_origin(h100, (size_t)f), RL_ORIGIN_ANALYTIC);
    ck_assert_int_eq(rl_gpu_spec_peak_origin(h100, RL_PEAKS_TENSOR_DENSE, RL_PREC_BF16),
                     RL_ORIGIN_DATASHEET);
    f = rl_spec_field_index("l1_bandwidth_gbs");
    ck_assert_int_eq(rl_gpu_spec_field_origin(h100, (size_t)f), RL_ORIGIN_ANALYTIC);
}
END_TEST

START_TEST(lookup_by_name_and_driver_string)
{
    static const char *const pairs[][2] = {
        {"H100-SXM", "h100-sxm"},           {"H100 SXM5", "h100-sxm"},
        {"NVIDIA H100 80GB HBM3", "h100-sxm"}, {"nvidia h200", "h200"},
        {"NVIDIA H200", "h200"},            {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"},
        {"NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"}, {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
        {"Tesla V100-SXM2-32GB", "v100-sxm2"}, {"NVIDIA H100 PCIe", "h100-pcie"},
        {"NVIDIA H100 NVL", "h100-nvl"},    {"NVIDIA GH200 480GB", "gh200"},
        {"NVIDIA L4", "l4"},                {"NVIDIA L40S", "l40s"},
        {"NVIDIA GeForce RTX 4090", "rtx-4090"}, {"NVIDIA GeForce RTX 3090", "rtx-3090"},
        {"NVIDIA B200", "b200"},            {"rtx_4090", "rtx-4090"},
        {"NVIDIA GeForce RTX 5090", "rtx-5090"}, {"NVIDIA GeForce RTX 5080", "rtx-5080"},
        {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000"},
        {"NVIDIA GB200", "gb200"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        ck_assert_str_eq(gpu(pairs[i][0])->id, pairs[i][1]);
}
END_TEST

START_TEST(aliases_are_unique)
{
    char a[128], b[128];
    for (size_t i = 0; i < db.n; i++)
        for (int k = -1; k < db.gpus[i].n_aliases; k++) {
            rl_gpudb_normalize(k < 0 ? db.gpus[i].id : db.gpus[i].aliases[k], a, sizeof a);
            for (size_t j = 0; j < db.n; j++) {
                if (j == i)
                    continue;
                for (int m = -1; m < db.gpus[j].n_aliases; m++) {
                    rl_gpudb_normalize(m < 0 ? db.gpus[j].id : db.gpus[j].aliases[m], b,
                                       sizeof b);
                    ck_assert_msg(strcmp(a, b) != 0, "'%s' names both %s and %s", a,
                                  db.gpus[i].id, db.gpus[j].id);
                }
            }
        }
}
END_TEST

START_TEST(unknown_gpu_names_closest)
{
    const struct rl_gpu_spec *s;
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(rl_gpudb_lookup(&db, "h100-sxm6", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err, "unknown GPU 'h100-sxm6' (did you mean 'h100-sxm'?)");
    ck_assert_int_eq(rl_gpudb_lookup(&db, "h10-sxm", &s, err), RL_ENOTFOUND);
    ck_assert_str_eq(err, "unknown GPU 'h10-sxm' (did you mean 'h100-sxm'?)");
    /* Far from every GPU: the closest three, and where the list is. */
    ck_assert_int_eq(rl_gpudb_lookup(&db, "quadro-xyz", &s, err), RL_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err, "unknown GPU 'quadro-xyz' (closest: "));
    ck_assert_ptr_nonnull(strstr(err, "; 'roofline gpus' lists all)"));
    ck_assert_int_eq(rl_gpudb_lookup(&db, "a10", &s, err), RL_ENOTFOUND);
    ck_assert_int_eq(rl_gpudb_lookup(&db, "", &s, err), RL_ENOTFOUND);
    ck_assert_uint_eq(rl_edit_distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(rl_edit_distance("", "abc"), 3);
}
END_TEST

/* ---- bad spec files ---- */

static char *h100_text(void)
{
    char *t = rl_test_slurp(GPUS_DIR "/h100-sxm.json");
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Replace the first occurrence of from with to (to no longer than from + 64). */
static char *edit(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "'%s' not in text", from);
    size_t n = strlen(text), a = (size_t)(at - text), f = strlen(from), t = strlen(to);
    char *out = malloc(n - f + t + 1);
    memcpy(out, text, a);
    memcpy(out + a, to, t);
    memcpy(out + a + t, at + f, n - a - f + 1);
    free(text);
    return out;
}

static int parse_text(const char *text, char *err)
{
    struct rl_gpu_spec s;
    return rl_gpu_spec_parse(&s, db.schema, text, strlen(text), "bad.json", err);
}

START_TEST(malformed_spec_names_file_and_line)
{
    char *t = edit(h100_text(), "\"sm_count\": 132,", "\"sm_count\": 132,,");
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(parse_text(t, err), RL_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "'bad.json': line 11, column"));
    free(t);
}
END_TEST

START_TEST(wrong_type_names_key_and_line)
{
    char *t = edit(h100_text(), "\"bf16_tflops\": 989.4", "\"bf16_tflops\": \"989.4\"");
    char err[RL_ERRMSG_SIZE];
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 46: tensor_core_dense.bf16_tflops: expected "
                          "number or null, got string");
    free(t);
}
END_TEST

START_TEST(provenance_is_enforced)
{
    char err[RL_ERRMSG_SIZE];
    char *t = edit(h100_text(), "\"tdp_w\": \"ds\",", "");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "'tdp_w' has no source"));
    free(t);
    t = edit(h100_text(), "\"tdp_w\": \"ds\"", "\"tdp_w\": \"nope\"");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "names a source that 'sources' does not list"));
    free(t);
    t = edit(h100_text(), "\"tdp_w\": \"ds\"", "\"tdp_watts\": \"ds\"");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "is not a numeric key"));
    free(t);
}
END_TEST

START_TEST(lint_catches_sparse_as_dense)
{
    char err[RL_ERRMSG_SIZE];
    char *t = edit(h100_text(), "\"bf16_tflops\": 989.4", "\"bf16_tflops\": 1978.9");
    struct rl_gpu_spec s;
    ck_assert_int_eq(rl_gpu_spec_parse(&s, db.schema, t, strlen(t), "x", err), 0);
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "is a sparse figure quoted as dense?"));
    free(t);
    /* 128 FP32 lanes per SM on a 64-lane chip doubles the "peak". */
    t = edit(h100_text(), "\"fp32_tflops\": 66.9", "\"fp32_tflops\": 133.8");
    ck_assert_int_eq(rl_gpu_spec_parse(&s, db.schema, t, strlen(t), "x", err), 0);
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "FP32 133.8 TFLOP/s but 132 SMs"));
    free(t);
}
END_TEST

/* Lint a copy of the shipped H100 SXM spec with one change. */
static int lint(const struct rl_gpu_spec *s, char *err)
{
    err[0] = 0;
    return rl_gpu_spec_lint(s, err);
}

START_TEST(lint_sparse_tolerance)
{
    struct rl_gpu_spec s = *gpu("h100-sxm");
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    double *dense = s.peak_tflops[RL_PEAKS_TENSOR_DENSE];
    double *sparse = s.peak_tflops[RL_PEAKS_TENSOR_SPARSE];
    /* Sparse within 2 +- 0.04 of dense: 2.03x and 1.97x pass. */
    dense[RL_PREC_BF16] = 1000;
    sparse[RL_PREC_BF16] = 2030;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    sparse[RL_PREC_BF16] = 1970;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    /* 2.05x and 1.95x do not. */
    sparse[RL_PREC_BF16] = 2050;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: bf16 sparse 2050.0 is 2.05x dense 1000.0, not 2x: is a "
                          "sparse figure quoted as dense?");
    sparse[RL_PREC_BF16] = 1950;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: bf16 sparse 1950.0 is 1.95x dense 1000.0, not 2x: is a "
                          "sparse figure quoted as dense?");
    /* The sparse figure quoted as dense: 1x. */
    sparse[RL_PREC_BF16] = 1000;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    /* A sparse rate without a dense one is not compared. */
    dense[RL_PREC_BF16] = NAN;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
}
END_TEST

START_TEST(lint_refuses_each_rule)
{
    const struct rl_gpu_spec *h100 = gpu("h100-sxm");
    char err[RL_ERRMSG_SIZE], want[RL_ERRMSG_SIZE];
    struct rl_gpu_spec s = *h100;
    /* There is no sparse FP64, even at exactly 2x dense. */
    s.peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP64] = 67;
    s.peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP64] = 134;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: there is no sparse FP64");
    /* No FP32 peak. */
    s = *h100;
    s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = NAN;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: no FP32 peak");
    /* FP32 within 2% of SMs x 128 lanes x 2 x clock: 1.019x passes, 1.021x
     * does not. */
    s = *h100;
    double fp32 = s.sm_count * 128 * 2.0 * s.boost_clock_mhz * 1e-6;
    s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = fp32 * 1.019;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = fp32 * 0.981;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = fp32 * 1.021;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    snprintf(want, sizeof want, "h100-sxm: FP32 %.1f TFLOP/s but %d SMs x 128 lanes x 2 x %.0f "
             "MHz = %.1f", fp32 * 1.021, s.sm_count, s.boost_clock_mhz, fp32);
    ck_assert_str_eq(err, want);
    /* GV100 and GA100 have 64 FP32 lanes per SM: the H100's figure is twice
     * theirs. */
    s = *h100;
    snprintf(s.chip, sizeof s.chip, "GA100");
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, " x 64 lanes x "));
    snprintf(s.chip, sizeof s.chip, "GV100");
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    /* Dense FP16 Tensor Core equal to FP32 passes, below it does not. */
    s = *h100;
    fp32 = s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32];
    s.peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP16] = fp32;
    s.peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP16] = 2 * fp32;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    s.peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP16] = fp32 - 0.5;
    s.peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP16] = 2 * (fp32 - 0.5);
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    snprintf(want, sizeof want, "h100-sxm: FP16 Tensor Core %.1f below FP32 CUDA cores %.1f",
             fp32 - 0.5, fp32);
    ck_assert_str_eq(err, want);
    /* Tensor clock equal to the boost clock passes, 1 MHz above does not. */
    s = *h100;
    s.tensor_clock_mhz = s.boost_clock_mhz;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    s.tensor_clock_mhz = s.boost_clock_mhz + 1;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    snprintf(want, sizeof want, "h100-sxm: tensor clock %.0f MHz above boost clock %.0f MHz",
             s.boost_clock_mhz + 1, s.boost_clock_mhz);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(database_rejects_bad_folder)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_gpudb bad;
    ck_assert_int_eq(rl_gpudb_load(&bad, "/nonexistent", err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/schema.json"));
    /* A file whose id differs from its name. */
    const char *dir = rl_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    char *schema = rl_test_slurp(GPUS_DIR "/schema.json");
    ck_assert_int_eq(rl_file_write_atomic(path, schema, strlen(schema), err), 0);
    free(schema);
    snprintf(path, sizeof path, "%s/h100-copy.json", dir);
    char *t = h100_text();
    ck_assert_int_eq(rl_file_write_atomic(path, t, strlen(t), err), 0);
    free(t);
    ck_assert_int_eq(rl_gpudb_load(&bad, dir, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "id 'h100-sxm' differs from the file name"));
}
END_TEST

/* ---- names, fields, origins ---- */

START_TEST(names_and_field_values)
{
    ck_assert_str_eq(rl_origin_name(RL_ORIGIN_DATASHEET), "datasheet");
    ck_assert_str_eq(rl_origin_name(RL_ORIGIN_ANALYTIC), "analytic");
    ck_assert_str_eq(rl_origin_name(RL_ORIGIN_MEASURED), "measured");
    ck_assert_str_eq(rl_origin_name((enum rl_origin)7), "?");
    static const char *const want[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8",
                                       "int8", "fp4", "fp6", "fp16-acc16", "fp8-acc16"};
    for (int p = 0; p < RL_PREC_COUNT; p++)
        ck_assert_str_eq(rl_precision_name((enum rl_precision)p), want[p]);
    ck_assert_str_eq(rl_precision_name(RL_PREC_COUNT), "?");
    ck_assert_str_eq(rl_precision_name((enum rl_precision)-1), "?");
    /* The table: sm_count first, an int; every key found at its index. */
    size_t n;
    const struct rl_spec_field *f = rl_spec_fields(&n);
    ck_assert_uint_eq(n, 11 + 4 + 10 + 10 + 7); /* scalars, CUDA, dense, sparse, links */
    ck_assert_str_eq(f[0].key, "sm_count");
    ck_assert_int_eq(f[0].kind, RL_FIELD_INT);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(rl_spec_field_index(f[i].key), (int)i);
    ck_assert_int_eq(rl_spec_field_index("tensor_core_sparse.fp8_fp16acc_tflops"), (int)n - 8);
    ck_assert_int_eq(rl_spec_field_index("links.pcie_gbs_per_direction"), (int)n - 1);
    ck_assert_int_eq(rl_spec_field_index("sm"), -1);
    ck_assert_int_eq(rl_spec_field_index(""), -1);
    /* Values through the table: the int and a double. */
    const struct rl_gpu_spec *h100 = gpu("h100-sxm");
    ck_assert_double_eq(rl_gpu_spec_field_value(h100, 0), 132);
    ck_assert_double_eq(rl_gpu_spec_field_value(
                            h100, (size_t)rl_spec_field_index("tensor_core_dense.bf16_tflops")),
                        989.4);
    ck_assert(isnan(rl_gpu_spec_field_value(
        h100, (size_t)rl_spec_field_index("tensor_core_sparse.fp64_tflops"))));
}
END_TEST

START_TEST(origin_follows_the_source_index)
{
    /* A spec built on the stack: source 0 is derived, source 1 a datasheet. */
    struct rl_gpu_spec s;
    memset(&s, 0, sizeof s);
    memset(s.source_of, -1, sizeof s.source_of);
    s.n_sources = 1;
    snprintf(s.sources[0].kind, sizeof s.sources[0].kind, "derived");
    snprintf(s.sources[1].kind, sizeof s.sources[1].kind, "derived"); /* not listed */
    int f = rl_spec_field_index("tdp_w");
    s.source_of[f] = 0;
    ck_assert_int_eq(rl_gpu_spec_field_origin(&s, (size_t)f), RL_ORIGIN_ANALYTIC);
    /* An index past n_sources, or none, is not read: datasheet. */
    s.source_of[f] = 1;
    ck_assert_int_eq(rl_gpu_spec_field_origin(&s, (size_t)f), RL_ORIGIN_DATASHEET);
    s.source_of[f] = -1;
    ck_assert_int_eq(rl_gpu_spec_field_origin(&s, (size_t)f), RL_ORIGIN_DATASHEET);
    s.n_sources = 2;
    snprintf(s.sources[1].kind, sizeof s.sources[1].kind, "datasheet");
    s.source_of[f] = 1;
    ck_assert_int_eq(rl_gpu_spec_field_origin(&s, (size_t)f), RL_ORIGIN_DATASHEET);
    /* Peaks: dense BF16 derived, its neighbours (dense FP16, dense FP8,
     * sparse BF16) from the datasheet: each peak finds its own field. */
    s.source_of[rl_spec_field_index("tensor_core_dense.bf16_tflops")] = 0;
    s.source_of[rl_spec_field_index("tensor_core_dense.fp16_tflops")] = 1;
    s.source_of[rl_spec_field_index("tensor_core_dense.fp8_tflops")] = 1;
    s.source_of[rl_spec_field_index("tensor_core_sparse.bf16_tflops")] = 1;
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_TENSOR_DENSE, RL_PREC_BF16),
                     RL_ORIGIN_ANALYTIC);
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_TENSOR_DENSE, RL_PREC_FP16),
                     RL_ORIGIN_DATASHEET);
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_TENSOR_DENSE, RL_PREC_FP8),
                     RL_ORIGIN_DATASHEET);
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_TENSOR_SPARSE, RL_PREC_BF16),
                     RL_ORIGIN_DATASHEET);
    /* The last field of the table and a rate with no field (CUDA-core FP8). */
    s.source_of[rl_spec_field_index("tensor_core_sparse.fp8_fp16acc_tflops")] = 0;
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_TENSOR_SPARSE, RL_PREC_FP8_ACC16),
                     RL_ORIGIN_ANALYTIC);
    s.source_of[rl_spec_field_index("cuda_core.fp64_tflops")] = 0;
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_CUDA, RL_PREC_FP64),
                     RL_ORIGIN_ANALYTIC);
    ck_assert_int_eq(rl_gpu_spec_peak_origin(&s, RL_PEAKS_CUDA, RL_PREC_FP8),
                     RL_ORIGIN_DATASHEET);
}
END_TEST

START_TEST(parse_fills_what_the_schema_lacks_with_nan)
{
    /* Rates the schema has no key for stay NAN (not 0): CUDA-core TF32 and
     * FP8, Tensor Core FP32. */
    const struct rl_gpu_spec *h100 = gpu("h100-sxm");
    ck_assert(isnan(h100->peak_tflops[RL_PEAKS_CUDA][RL_PREC_TF32]));
    ck_assert(isnan(h100->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP8]));
    ck_assert(isnan(h100->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP8_ACC16]));
    ck_assert(isnan(h100->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP32]));
    ck_assert(isnan(h100->peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP32]));
    /* Strings, aliases, sources as written. */
    ck_assert_str_eq(h100->memory_type, "HBM3");
    ck_assert_int_eq(h100->n_aliases, 6);
    ck_assert_str_eq(h100->aliases[0], "H100 SXM5");
    ck_assert_int_eq(h100->n_sources, 6);
    ck_assert_str_eq(h100->sources[2].id, "clk");
    ck_assert_str_eq(h100->sources[2].kind, "derived");
    ck_assert_int_eq(h100->source_of[0], 0); /* sm_count: "wp" */
}
END_TEST

/* The H100 text with n aliases / n extra sources. */
static char *with_aliases(int n)
{
    char list[2048] = "\"aliases\": [";
    for (int i = 0; i < n; i++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s\"X%d\"", i ? ", " : "", i);
    }
    strcat(list, "],");
    char *t = h100_text();
    char *at = strstr(t, "\"aliases\":"), *end = strchr(at, '\n');
    size_t a = (size_t)(at - t);
    char *out = malloc(strlen(t) + strlen(list) + 1);
    memcpy(out, t, a);
    strcpy(out + a, list);
    strcat(out, end);
    free(t);
    return out;
}

static char *with_sources(int extra)
{
    char list[4096] = "\"sources\": {";
    for (int i = 0; i < extra; i++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u,
                 "\"x%d\": {\"kind\": \"datasheet\", \"title\": \"t\", \"url\": \"u\"}, ", i);
    }
    return edit(h100_text(), "\"sources\": {", list);
}

START_TEST(at_most_sixteen_aliases_and_twelve_sources)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_gpu_spec s;
    char *t = with_aliases(16);
    ck_assert_msg(rl_gpu_spec_parse(&s, db.schema, t, strlen(t), "bad.json", err) == 0, "%s",
                  err);
    ck_assert_int_eq(s.n_aliases, 16);
    ck_assert_str_eq(s.aliases[15], "X15");
    free(t);
    t = with_aliases(17);
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': more than 16 aliases");
    free(t);
    /* H100 lists 6 sources: 6 more make 12, 7 more 13. */
    t = with_sources(6);
    ck_assert_msg(rl_gpu_spec_parse(&s, db.schema, t, strlen(t), "bad.json", err) == 0, "%s",
                  err);
    ck_assert_int_eq(s.n_sources, 12);
    free(t);
    t = with_sources(7);
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': more than 12 sources");
    free(t);
}
END_TEST

START_TEST(provenance_messages_carry_the_line)
{
    char err[RL_ERRMSG_SIZE];
    /* A number without a source: the line of "provenance" (76). The first
     * field, sm_count, is checked too. */
    char *t = edit(h100_text(), "\"sm_count\": \"wp\",", "");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 76: 'sm_count' has no source: add it to "
                          "'provenance'");
    free(t);
    t = edit(h100_text(), "\"tdp_w\": \"ds\",", "");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 76: 'tdp_w' has no source: add it to 'provenance'");
    free(t);
    /* A bad entry: its own line (84). */
    t = edit(h100_text(), "\"tdp_w\": \"ds\"", "\"tdp_w\": \"nope\"");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 84: provenance 'tdp_w' names a source that "
                          "'sources' does not list");
    free(t);
    /* An empty source id is not a source. */
    t = edit(h100_text(), "\"tdp_w\": \"ds\"", "\"tdp_w\": \"\"");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 84: provenance 'tdp_w' names a source that "
                          "'sources' does not list");
    free(t);
    t = edit(h100_text(), "\"tdp_w\": \"ds\"", "\"tdp_watts\": \"ds\"");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 84: provenance 'tdp_watts' is not a numeric key of "
                          "the schema");
    free(t);
    /* A source for a null. */
    t = edit(h100_text(), "\"gpu_link_bandwidth_gbs\": 900", "\"gpu_link_bandwidth_gbs\": null");
    ck_assert_int_eq(parse_text(t, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "'bad.json': line 86: provenance 'gpu_link_bandwidth_gbs' is null: a "
                          "null value has no source");
    free(t);
    /* The first source ("wp") is a source. */
    t = edit(h100_text(), "\"tdp_w\": \"ds\"", "\"tdp_w\": \"wp\"");
    struct rl_gpu_spec s;
    ck_assert_msg(rl_gpu_spec_parse(&s, db.schema, t, strlen(t), "bad.json", err) == 0, "%s",
                  err);
    ck_assert_int_eq(s.source_of[rl_spec_field_index("tdp_w")], 0);
    free(t);
}
END_TEST

START_TEST(load_errors)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_gpu_spec s;
    ck_assert_int_eq(rl_gpu_spec_load(&s, db.schema, "/nonexistent/x.json", err), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.json"));
    /* A file that does not match the schema: the parser's error, the path. */
    char path[512];
    snprintf(path, sizeof path, "%s/typed.json", rl_test_tmpdir());
    char *t = edit(h100_text(), "\"bf16_tflops\": 989.4", "\"bf16_tflops\": \"989.4\"");
    ck_assert_int_eq(rl_file_write_atomic(path, t, strlen(t), err), 0);
    free(t);
    ck_assert_int_eq(rl_gpu_spec_load(&s, db.schema, path, err), RL_ESCHEMA);
    char want[sizeof path + 128];
    snprintf(want, sizeof want, "'%s': line 46: tensor_core_dense.bf16_tflops: expected number "
             "or null, got string", path);
    ck_assert_str_eq(err, want);
    /* And one that does: loaded. */
    t = h100_text();
    ck_assert_int_eq(rl_file_write_atomic(path, t, strlen(t), err), 0);
    free(t);
    ck_assert_int_eq(rl_gpu_spec_load(&s, db.schema, path, err), RL_OK);
    ck_assert_str_eq(s.id, "h100-sxm");
}
END_TEST

START_TEST(lint_compares_fp64_too)
{
    /* Dense and sparse FP64 at 1x: the ratio rule speaks first. */
    struct rl_gpu_spec s = *gpu("h100-sxm");
    char err[RL_ERRMSG_SIZE];
    s.peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP64] = 67;
    s.peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP64] = 67;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: fp64 sparse 67.0 is 1.00x dense 67.0, not 2x: is a sparse "
                          "figure quoted as dense?");
    /* The last precision, FP8 with FP16 accumulate, is compared. */
    s = *gpu("h100-sxm");
    s.peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP8_ACC16] = 1000;
    s.peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_FP8_ACC16] = 1000;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: fp8-acc16 sparse 1000.0 is 1.00x dense 1000.0, not 2x: is "
                          "a sparse figure quoted as dense?");
    /* 125 SMs x 128 lanes x 2 x 1000 MHz = 32.0 TFLOP/s exactly. */
    s = *gpu("h100-sxm");
    s.sm_count = 125;
    s.boost_clock_mhz = 1000;
    s.tensor_clock_mhz = 1000;
    s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = 32;
    ck_assert_msg(lint(&s, err) == 0, "%s", err);
    s.peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32] = 33;
    ck_assert_int_eq(lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: FP32 33.0 TFLOP/s but 125 SMs x 128 lanes x 2 x 1000 MHz "
                          "= 32.0");
}
END_TEST

static Suite *spec_suite(void)
{
    Suite *s = suite_create("spec");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, load_db, unload_db);
    tcase_add_test(core, every_shipped_spec_loads_and_lints);
    tcase_add_test(core, schema_documents_every_key);
    tcase_add_test(core, readme_documents_every_key);
    tcase_add_test(core, datasheet_anchors);
    tcase_add_test(core, sparse_is_twice_dense_everywhere);
    tcase_add_test(core, origins_follow_sources);
    tcase_add_test(core, lookup_by_name_and_driver_string);
    tcase_add_test(core, aliases_are_unique);
    tcase_add_test(core, names_and_field_values);
    tcase_add_test(core, origin_follows_the_source_index);
    tcase_add_test(core, parse_fills_what_the_schema_lacks_with_nan);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, load_db, unload_db);
    tcase_add_test(limits, unknown_gpu_names_closest);
    tcase_add_test(limits, malformed_spec_names_file_and_line);
    tcase_add_test(limits, wrong_type_names_key_and_line);
    tcase_add_test(limits, provenance_is_enforced);
    tcase_add_test(limits, lint_catches_sparse_as_dense);
    tcase_add_test(limits, lint_sparse_tolerance);
    tcase_add_test(limits, lint_refuses_each_rule);
    tcase_add_test(limits, database_rejects_bad_folder);
    tcase_add_test(limits, at_most_sixteen_aliases_and_twelve_sources);
    tcase_add_test(limits, provenance_messages_carry_the_line);
    tcase_add_test(limits, load_errors);
    tcase_add_test(limits, lint_compares_fp64_too);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(spec_suite()); }
