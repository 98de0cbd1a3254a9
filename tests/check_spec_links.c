/* check_spec_links.c - tests of the links (per direction) and the AMD Instinct entries of data/gpus. */
#include "test_util.h"

#include "analyzer/model/gpudb.h"
#include "analyzer/model/spec.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GPUS_DIR ROOFLINE_SOURCE_DIR "/data/gpus"

static struct rl_gpudb db;

static void load_db(void)
{
    char err[RL_ERRMSG_SIZE] = "";
    ck_assert_msg(rl_gpudb_load(&db, GPUS_DIR, err) == 0, "loading %s: %s", GPUS_DIR, err);
}

static void unload_db(void) { rl_gpudb_release(&db); }

static const struct rl_gpu_spec *gpu(const char *name)
{
    const struct rl_gpu_spec *s = rl_gpudb_find(&db, name);
    ck_assert_msg(s != NULL, "no GPU '%s'", name);
    return s;
}

START_TEST(links_per_direction)
{
    /* Datasheets print NVLink both directions combined; the links are per
     * direction: H100 SXM 18 x 25 = 450 = 900 / 2; B200 18 x 50 = 900 =
     * 1800 / 2; A100 SXM 12 x 25 = 300 = 600 / 2; V100 SXM2 6 x 25 = 150 =
     * 300 / 2; RTX 3090 4 x 14.0625 = 56.25 = 112.5 / 2 over a 2-GPU bridge;
     * MI300X 7 x (128 / 2) = 448 over a mesh. */
    const struct rl_gpu_links *h100 = &gpu("h100-sxm")->links;
    ck_assert_str_eq(h100->name, "NVLink 4");
    ck_assert_int_eq(h100->count, 18);
    ck_assert_double_eq(h100->gbs_per_link, 25);
    ck_assert_double_eq(h100->gbs, 450);
    ck_assert_str_eq(h100->reach, "switch");
    ck_assert_int_eq(h100->bridge_gpus, 0);
    ck_assert_int_eq(h100->pcie_gen, 5);
    ck_assert_int_eq(h100->pcie_lanes, 16);
    ck_assert_double_eq(h100->pcie_gbs, 64); /* 32 GT/s x 16 / 8 */
    ck_assert_double_eq(gpu("h200")->links.gbs, 450);
    ck_assert_double_eq(gpu("b200")->links.gbs, 900);
    ck_assert_double_eq(gpu("b200")->links.gbs_per_link, 50);
    ck_assert_double_eq(gpu("a100-sxm-80gb")->links.gbs, 300);
    ck_assert_double_eq(gpu("v100-sxm2")->links.gbs, 150);
    ck_assert_str_eq(gpu("v100-sxm2")->links.reach, "mesh");
    ck_assert_double_eq(gpu("v100-sxm2")->links.pcie_gbs, 16); /* Gen3: 8 GT/s x 16 / 8 */
    const struct rl_gpu_links *a100p = &gpu("a100-pcie-80gb")->links;
    ck_assert_str_eq(a100p->reach, "bridge");
    ck_assert_int_eq(a100p->bridge_gpus, 2);
    ck_assert_double_eq(a100p->gbs, 300); /* the datasheet's 600 GB/s bridge / 2 */
    const struct rl_gpu_links *r3090 = &gpu("rtx-3090")->links;
    ck_assert_int_eq(r3090->count, 4);
    ck_assert_double_eq(r3090->gbs, 56.25);
    /* No NVLink: empty name, 0 count, NAN rates; PCIe Gen4 x16 = 32. */
    const struct rl_gpu_links *l40s = &gpu("l40s")->links;
    ck_assert_str_eq(l40s->name, "");
    ck_assert_int_eq(l40s->count, 0);
    ck_assert(isnan(l40s->gbs));
    ck_assert(isnan(l40s->gbs_per_link));
    ck_assert_str_eq(l40s->reach, "");
    ck_assert_double_eq(l40s->pcie_gbs, 32);
    /* GH200's host link is NVLink-C2C, not PCIe. */
    const struct rl_gpu_links *gh = &gpu("gh200")->links;
    ck_assert_int_eq(gh->pcie_gen, 0);
    ck_assert(isnan(gh->pcie_gbs));
    ck_assert_double_eq(gh->gbs, 450);
    const struct rl_gpu_links *mi = &gpu("mi300x")->links;
    ck_assert_str_eq(mi->name, "Infinity Fabric");
    ck_assert_int_eq(mi->count, 7);
    ck_assert_double_eq(mi->gbs, 448);
    ck_assert_str_eq(mi->reach, "mesh");
    ck_assert_double_eq(gpu("mi355x")->links.gbs, 535.5); /* 7 x 153 / 2 */
    /* Counts go through the field table: a 0 is "none". */
    int f = rl_spec_field_index("links.gpu_link_count");
    ck_assert_int_ge(f, 0);
    ck_assert_double_eq(rl_gpu_spec_field_value(gpu("h100-sxm"), (size_t)f), 18);
    ck_assert(isnan(rl_gpu_spec_field_value(gpu("l40s"), (size_t)f)));
    ck_assert_int_eq(rl_gpu_spec_field_origin(gpu("h100-sxm"), (size_t)f), RL_ORIGIN_ANALYTIC);
}
END_TEST

START_TEST(lint_checks_the_links)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_gpu_spec s = *gpu("h100-sxm");
    /* A wrong count: 16 x 25 = 400, not 450. */
    s.links.count = 16;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: links: 16 links x 25 GB/s = 400, not the 450 GB/s per "
                          "direction");
    /* Both directions quoted per direction: 18 x 50 = 900, and 2 x 900 is
     * not the datasheet's 900. */
    s = *gpu("h100-sxm");
    s.links.gbs_per_link = 50;
    s.links.gbs = 900;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: links: 2 x 900 GB/s per direction is not the datasheet's "
                          "900 GB/s (both directions): is a both-direction figure quoted per "
                          "direction?");
    /* Within 1% passes: 449 x 2 = 898 is 0.2% off 900. */
    s = *gpu("h100-sxm");
    s.links.gbs = 449;
    s.links.gbs_per_link = 449.0 / 18;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_OK);
    /* PCIe: 2 x 32 is not the datasheet's 128 GB/s of Gen5. */
    s = *gpu("h100-sxm");
    s.links.pcie_gbs = 32;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_str_eq(err, "h100-sxm: links: 2 x 32 GB/s PCIe per direction is not the "
                          "datasheet's 128 GB/s");
    /* A bridge without its GPU count. */
    s = *gpu("a100-pcie-80gb");
    s.links.bridge_gpus = 0;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "bridge_gpus is set exactly when"));
    /* Half a link description. */
    s = *gpu("h100-sxm");
    s.links.name[0] = '\0';
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "all set or all null"));
    /* One character is a name and a reach (set, not empty). */
    s = *gpu("h100-sxm");
    strcpy(s.links.name, "X");
    strcpy(s.links.reach, "Y");
    ck_assert_msg(rl_gpu_spec_lint(&s, err) == RL_OK, "%s", err);
    /* Links but no datasheet figure to agree with. */
    s = *gpu("h100-sxm");
    s.gpu_link_bandwidth_gbs = NAN;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "both set or both null"));
}
END_TEST

/* Each field of the all-or-nothing rules alone: the GPU link's count (0),
 * per-link rate (null) and reach (empty) on the H100 SXM; PCIe's gen (0),
 * lanes (0) and rate (null) on the H100 SXM (a PCIe host), and a PCIe
 * gen on the GH200 (NVLink-C2C host, none of the three). */
START_TEST(lint_links_each_field_alone)
{
    static const char links_msg[] =
        "h100-sxm: links: gpu_link, gpu_link_count, gpu_link_gbs_per_link, "
        "gpu_link_gbs_per_direction and gpu_link_reach are all set or all null";
    static const char pcie_msg[] =
        "%s: links: pcie_gen, pcie_lanes and pcie_gbs_per_direction are set exactly when "
        "host_link is PCIe ('%s')";
    char err[RL_ERRMSG_SIZE], want[RL_ERRMSG_SIZE];
    const struct rl_gpu_spec *h100 = gpu("h100-sxm");
    ck_assert_msg(rl_gpu_spec_lint(h100, err) == RL_OK, "%s", err);
    for (int field = 0; field < 3; field++) {
        struct rl_gpu_spec s = *h100;
        if (field == 0)
            s.links.count = 0;
        else if (field == 1)
            s.links.gbs_per_link = NAN;
        else
            s.links.reach[0] = '\0';
        ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
        ck_assert_str_eq(err, links_msg);
    }
    snprintf(want, sizeof want, pcie_msg, "h100-sxm", h100->host_link);
    for (int field = 0; field < 3; field++) {
        struct rl_gpu_spec s = *h100;
        if (field == 0)
            s.links.pcie_gen = 0;
        else if (field == 1)
            s.links.pcie_lanes = 0;
        else
            s.links.pcie_gbs = NAN;
        ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
        ck_assert_str_eq(err, want);
    }
    const struct rl_gpu_spec *gh = gpu("gh200");
    ck_assert_msg(rl_gpu_spec_lint(gh, err) == RL_OK, "%s", err);
    struct rl_gpu_spec s = *gh;
    s.links.pcie_gen = 5;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    snprintf(want, sizeof want, pcie_msg, "gh200", gh->host_link);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(amd_instinct_anchors)
{
    /* AMD's product pages and ROCm tables: MI300X 304 CUs x 128 FP32 lanes x
     * 2 x 2100 MHz = 163.4 TFLOP/s; 1307.4 dense BF16, 2614.9 with sparsity;
     * 192 GB at 5.3 TB/s. MI325X: the same compute, 256 GB at 6 TB/s.
     * MI355X: 256 CUs x 4096 x 2.4 GHz = 2516.6 BF16, no TF32 Matrix rate,
     * MXFP4 256 x 16384 x 2.4 GHz = 10066.3. */
    const struct rl_gpu_spec *x = gpu("mi300x"), *x325 = gpu("mi325x"), *x355 = gpu("mi355x");
    ck_assert_str_eq(x->vendor, "AMD");
    ck_assert_str_eq(x->compute_capability, "gfx942");
    ck_assert_str_eq(x355->compute_capability, "gfx950");
    ck_assert_int_eq(x->sm_count, 304);
    ck_assert_double_eq(x->memory_size_gb, 192);
    ck_assert_double_eq(x->memory_bandwidth_gbs, 5300);
    ck_assert_double_eq(x->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32], 163.4);
    ck_assert_double_eq(x->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP64], 81.7);
    ck_assert_double_eq(x->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_BF16], 1307.4);
    ck_assert_double_eq(x->peak_tflops[RL_PEAKS_TENSOR_SPARSE][RL_PREC_BF16], 2614.9);
    ck_assert_double_eq(x->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_TF32], 653.7);
    ck_assert_double_eq(x->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP8], 2614.9);
    ck_assert_double_eq(x325->memory_size_gb, 256);
    ck_assert_double_eq(x325->memory_bandwidth_gbs, 6000);
    ck_assert_double_eq(x325->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_BF16], 1307.4);
    ck_assert_double_eq(x355->memory_size_gb, 288);
    ck_assert_double_eq(x355->memory_bandwidth_gbs, 8000);
    ck_assert_double_eq_tol(256 * 4096 * 2.4e9 * 1e-12, 2516.6, 0.05);
    ck_assert_double_eq(x355->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_BF16], 2516.6);
    ck_assert_double_eq(x355->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_FP4], 10066.3);
    ck_assert(isnan(x355->peak_tflops[RL_PEAKS_TENSOR_DENSE][RL_PREC_TF32]));
    ck_assert_double_eq(x355->peak_tflops[RL_PEAKS_CUDA][RL_PREC_FP32], 157.3);
    /* AMD's GPU link: 8 links listed, 7 to the peers of the platform. */
    ck_assert_double_eq(x->gpu_link_bandwidth_gbs, 896);
    ck_assert(rl_gpudb_find(&db, "AMD Instinct MI300X") == x);
    ck_assert(rl_gpudb_find(&db, "MI355X") == x355);
}
END_TEST

/* "Within 1%" includes exactly 1%: 18 x 25.25 = 454.5 GB/s is 4.5 off 450,
 * and 0.01 x 450 = 4.5 in doubles too: it passes; 18 x 25.26 = 454.68 is
 * 4.68 off, more than 1%: refused. */
START_TEST(lint_links_one_percent_is_near)
{
    char err[RL_ERRMSG_SIZE];
    struct rl_gpu_spec s = *gpu("h100-sxm");
    s.links.gbs_per_link = 25.25;
    ck_assert_msg(rl_gpu_spec_lint(&s, err) == RL_OK, "%s", err);
    s.links.gbs_per_link = 25.26;
    ck_assert_int_eq(rl_gpu_spec_lint(&s, err), RL_ESCHEMA);
    ck_assert_ptr_nonnull(strstr(err, "h100-sxm: links: 18 links x 25.26 GB/s"));
}
END_TEST

static Suite *spec_links_suite(void)
{
    Suite *s = suite_create("spec_links");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, load_db, unload_db);
    tcase_add_test(core, links_per_direction);
    tcase_add_test(core, amd_instinct_anchors);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, load_db, unload_db);
    tcase_add_test(limits, lint_checks_the_links);
    tcase_add_test(limits, lint_links_one_percent_is_near);
    tcase_add_test(limits, lint_links_each_field_alone);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(spec_links_suite()); }
