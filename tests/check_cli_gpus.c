/* check_cli_gpus.c - tests of `roofline gpus` for links and systems, and of the commands that refuse a GPU without CUDA. */
#include "test_util.h"

#include "analyzer/util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_one_error_line(const struct rl_run *r, const char *fragment)
{
    ck_assert_msg(strncmp(r->err, "roofline: error: ", 17) == 0, "stderr: %s", r->err);
    ck_assert_msg(rl_test_count(r->err, "\n") == 1, "not one line: %s", r->err);
    ck_assert_msg(strstr(r->err, fragment) != NULL, "'%s' lacks '%s'", r->err, fragment);
}

#define RUN(...) rl_test_cli(NULL, __VA_ARGS__, (const char *)NULL)

START_TEST(golden_systems)
{
    struct rl_run r = RUN("gpus", "systems");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-systems.txt");
    rl_run_release(&r);
    r = RUN("gpus", "systems", "--json");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-systems.json");
    rl_run_release(&r);
    /* One system, by id and by name: the same document. */
    r = RUN("gpus", "show", "dgx-h100", "--json");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-show-dgx-h100.json");
    /* Hand-checked: 450 GB/s per GPU per direction inside the node, 8 x
     * 400 Gb/s / 8 = 400 GB/s of NICs. */
    ck_assert_ptr_nonnull(strstr(r.out, "\"intra_gbs_per_direction\":\t450"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"node_nic_gbs_per_direction\":\t400"));
    struct rl_run r2 = RUN("gpus", "show", "NVIDIA DGX H100", "--json");
    ck_assert_str_eq(r2.out, r.out);
    rl_run_release(&r2);
    rl_run_release(&r);
    r = RUN("gpus", "show", "gb200-nvl72");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-show-gb200-nvl72.txt");
    rl_run_release(&r);
}
END_TEST

/* Blackwell Ultra: `gpus show` prints each figure with its origin and
 * source, FP4 and FP6 roofs included, a null rate as none and the systems
 * that hold the GPU. */
START_TEST(show_blackwell_ultra)
{
    struct rl_run r = RUN("gpus", "show", "b300");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Blackwell (GB110), compute capability 10.3"));
    ck_assert_ptr_nonnull(strstr(r.out, "FP4 Tensor Core, dense                    13500  TFLOP/s  analytic   per8"));
    ck_assert_ptr_nonnull(strstr(r.out, "FP6 Tensor Core, sparse                    9000  TFLOP/s  analytic   per8"));
    ck_assert_ptr_nonnull(strstr(r.out, "systems              hgx-b300"));
    ck_assert_ptr_nonnull(strstr(r.out, "https://www.nvidia.com/en-us/data-center/hgx/"));
    rl_run_release(&r);
    r = RUN("gpus", "show", "NVIDIA GB300", "--json");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(doc);
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "values"),
                                         "tensor_core_dense.fp4_tflops");
    ck_assert_double_eq(rl_json_number(v, "value"), 15000);
    ck_assert_str_eq(rl_json_string(v, "origin"), "datasheet");
    ck_assert_str_eq(rl_json_string(v, "source"), "blog");
    cJSON_Delete(doc);
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "gb300", "--precision", "fp4");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "15000"));
    ck_assert_ptr_nonnull(strstr(r.out, "1875")); /* 15000 TFLOP/s / 8000 GB/s */
    rl_run_release(&r);
}
END_TEST

/* RTX Blackwell and GB200 (issue 25): GeForce FP4 is the whitepaper's dense
 * 1676 (not halved with FP32 accumulate, unlike FP8's 419), the RTX 5080's
 * unread Tensor rates print as none, and GB200 NVL72 holds the gb200 file,
 * whose peaks are NVIDIA's GB200 superchip figures / 2. */
START_TEST(show_rtx_blackwell_and_gb200)
{
    struct rl_run r = RUN("gpus", "show", "NVIDIA GeForce RTX 5090");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Blackwell (GB202), compute capability 12.0"));
    ck_assert_ptr_nonnull(strstr(r.out, "FP4 Tensor Core, dense                     1676  TFLOP/s  datasheet  wp"));
    ck_assert_ptr_nonnull(strstr(r.out, "FP8 Tensor Core, dense                      419  TFLOP/s  datasheet  wp"));
    rl_run_release(&r);
    r = RUN("gpus", "show", "rtx-5080");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Blackwell (GB203), compute capability 12.0"));
    ck_assert_ptr_nonnull(strstr(r.out, "FP16 Tensor Core, dense                       -  TFLOP/s             none"));
    ck_assert_ptr_nonnull(strstr(r.out, "FP4 Tensor Core, dense                    900.5  TFLOP/s  analytic   fp4"));
    rl_run_release(&r);
    r = RUN("gpus", "show", "rtx-pro-6000");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "FP16 Tensor Core, dense                   503.8  TFLOP/s  datasheet  wp"));
    rl_run_release(&r);
    r = RUN("gpus", "show", "gb200");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Blackwell (GB100), compute capability 10.0"));
    ck_assert_ptr_nonnull(strstr(r.out, "systems              gb200-nvl72"));
    /* NVIDIA's GB200 NVL72 page prints the superchip (2 GPUs): 40 PF sparse NVFP4 / 2. */
    ck_assert_ptr_nonnull(strstr(r.out, "FP4 Tensor Core, sparse                   20000  TFLOP/s  analytic   per2"));
    rl_run_release(&r);
}
END_TEST

START_TEST(golden_links_and_amd)
{
    /* The links of a GPU (per direction) and the systems that hold it. */
    struct rl_run r = RUN("gpus", "show", "h100-sxm", "--json");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "\"gpu_link_count\":\t18"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"gpu_link_gbs_per_direction\":\t450"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"systems\":\t[\"dgx-h100\"]"));
    rl_run_release(&r);
    r = RUN("gpus", "show", "mi300x");
    ck_assert_int_eq(r.status, 0);
    rl_test_golden(r.out, "gpus-show-mi300x.txt");
    rl_run_release(&r);
    r = RUN("gpus", "show", "l40s", "--json");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "\"gpu_link\":\tnull"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"pcie_gbs_per_direction\":\t32"));
    rl_run_release(&r);
    /* AMD GPUs work with the datasheet commands: MI300X BF16 ridge is
     * 1307.4e12 / 5300e9 = 246.679 FLOP/byte. */
    r = RUN("ridge", "--gpu", "mi300x", "--precision", "bf16", "--json");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "1307.4"));
    ck_assert_ptr_nonnull(strstr(r.out, "246.679"));
    rl_run_release(&r);
}
END_TEST

START_TEST(cuda_commands_refuse_amd)
{
    /* Each in one line, exit 1, before any GPU is looked for. */
    struct rl_run r = RUN("bench", "--gpu", "mi300x");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "AMD Instinct MI300X: bench needs an NVIDIA GPU with CUDA; "
                              "ridge, chart and llm work with its datasheet");
    ck_assert_str_eq(r.out, "");
    rl_run_release(&r);
    r = RUN("trace", "--gpu", "MI355X", "--", "true");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "AMD Instinct MI355X: trace needs an NVIDIA GPU with CUDA");
    rl_run_release(&r);
    r = RUN("metrics", "--chip", "gfx942");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "AMD Instinct MI300X: metrics (CUPTI counters) needs an NVIDIA "
                              "GPU with CUDA");
    rl_run_release(&r);
    /* An unknown --gpu is the usual unknown GPU. */
    r = RUN("bench", "--gpu", "mi300");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown GPU 'mi300' (did you mean 'mi300x'?)");
    rl_run_release(&r);
}
END_TEST

START_TEST(run_on_amd_is_analytic)
{
    /* `run --gpu mi325x`: the analytic report, its first line saying why
     * nothing is measured. */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/run-mi325x", rl_test_tmpdir());
    struct rl_run r = RUN("run", "--gpu", "mi325x", "-o", dir);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "no GPU here: "));
    ck_assert_ptr_nonnull(strstr(r.out, "why: AMD Instinct MI325X: bench and trace "
                                        "need an NVIDIA GPU with CUDA\n"));
    rl_run_release(&r);
}
END_TEST

START_TEST(systems_errors)
{
    struct rl_run r = RUN("gpus", "show", "dgx-h10");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown system 'dgx-h10' (did you mean 'dgx-h100'?)");
    rl_run_release(&r);
    /* Neither a GPU nor a system near: the GPU message. */
    r = RUN("gpus", "show", "zzzzzzzzzz");
    ck_assert_int_eq(r.status, 1);
    assert_one_error_line(&r, "unknown GPU 'zzzzzzzzzz'");
    rl_run_release(&r);
    r = RUN("gpus", "systems", "extra");
    ck_assert_int_eq(r.status, 2);
    rl_run_release(&r);
    r = RUN("gpus", "sytems");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "did you mean 'systems'?"));
    rl_run_release(&r);
}
END_TEST

static Suite *cli_gpus_suite(void)
{
    Suite *s = suite_create("cli_gpus");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, golden_systems);
    tcase_add_test(core, show_blackwell_ultra);
    tcase_add_test(core, show_rtx_blackwell_and_gb200);
    tcase_add_test(core, golden_links_and_amd);
    tcase_add_test(core, run_on_amd_is_analytic);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, cuda_commands_refuse_amd);
    tcase_add_test(limits, systems_errors);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return rl_test_run(cli_gpus_suite()); }
