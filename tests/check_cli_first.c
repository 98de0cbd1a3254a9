/* check_cli_first.c - tests of first contact (issue 26): names looked up alike everywhere, the important thing said first, one wording for bounds. */
#define _GNU_SOURCE
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(...) rl_test_cli(NULL, __VA_ARGS__, (const char *)NULL)

/* The first line of s, copied into b. */
static const char *first_line(const char *s, char *b, size_t n)
{
    size_t len = strcspn(s, "\n");
    snprintf(b, n, "%.*s", (int)len, s);
    return b;
}

/* A model by its id, by its name in any case, and by its Hugging Face id
 * (data/models/llama-3-70b.json's source is huggingface.co/meta-llama/
 * Meta-Llama-3-70B): the same output, byte for byte. */
START_TEST(models_by_id_name_and_hugging_face_id)
{
    struct rl_run ref = RUN("llm", "--model", "llama-3-70b", "--gpu", "h200");
    ck_assert_msg(ref.status == 0, "%s", ref.err);
    static const char *const names[] = {"Llama-3-70B", "LLAMA-3-70B",
                                        "meta-llama/Meta-Llama-3-70B",
                                        "meta-llama/meta-llama-3-70b", "Meta-Llama-3-70B", NULL};
    for (size_t i = 0; names[i]; i++) {
        struct rl_run r = RUN("llm", "--model", names[i], "--gpu", "h200");
        ck_assert_msg(r.status == 0, "%s: %s", names[i], r.err);
        ck_assert_str_eq(r.out, ref.out);
        rl_run_release(&r);
    }
    rl_run_release(&ref);
    /* A near miss still names the nearest; an unknown org/repo is one error. */
    struct rl_run r = RUN("llm", "--model", "llama-3-7b", "--gpu", "h200");
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "did you mean 'llama-3-70b'"));
    rl_run_release(&r);
    r = RUN("llm", "--model", "nobody/Nothing-1B", "--gpu", "h200");
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "unknown model 'nobody/Nothing-1B'"));
    ck_assert_int_eq(rl_test_count(r.err, "\n"), 1);
    rl_run_release(&r);
}
END_TEST

/* `ridge h100` is `ridge --gpu h100`; no GPU at all is a usage error. */
START_TEST(ridge_takes_the_gpu_as_an_argument)
{
    struct rl_run a = RUN("ridge", "h100"), b = RUN("ridge", "--gpu", "h100");
    ck_assert_msg(a.status == 0, "%s", a.err);
    ck_assert_str_eq(a.out, b.out);
    rl_run_release(&a);
    rl_run_release(&b);
    a = RUN("ridge", "h100", "h200");
    ck_assert_int_eq(a.status, 2);
    ck_assert_ptr_nonnull(strstr(a.err, "unexpected argument 'h200'"));
    rl_run_release(&a);
    a = RUN("ridge");
    ck_assert_int_eq(a.status, 2);
    rl_run_release(&a);
}
END_TEST

/* An Nsight Compute CSV given as `report FILE` reads as `report --ncu FILE`,
 * also with a byte order mark and CRLF lines (a real export: badejo's RTX
 * 5070 one) and with the program's own output before ncu's lines. */
START_TEST(report_reads_an_ncu_csv_given_as_a_file)
{
    static const char *const files[] = {"badejo-rtx5070-long-bom-crlf-ns.csv",
                                        "xplacer-v100-old-kerneltime.csv",
                                        "gardenia-a100-long-hfma.csv", NULL};
    for (size_t i = 0; files[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/data/ncu-real/%s", ROOFLINE_SOURCE_DIR, files[i]);
        struct rl_run a = RUN("report", "--gpu", "h100", "--json", path);
        struct rl_run b = RUN("report", "--gpu", "h100", "--json", "--ncu", path);
        ck_assert_msg(b.status == 0, "%s: %s", files[i], b.err);
        ck_assert_msg(a.status == 0, "%s: %s", files[i], a.err);
        ck_assert_str_eq(a.out, b.out);
        rl_run_release(&a);
        rl_run_release(&b);
    }
}
END_TEST

/* Llama-3-70B in BF16 on one H100 (80 GB): the weights alone are 2 B x
 * 70.55e9 = 141 GB, so it does not fit, and that is the first line; no
 * tokens/s is printed for a batch that cannot run (the table's TOKENS/s
 * column is '-' on every NO row), and an inference query prints no
 * training-memory line. */
START_TEST(llm_that_does_not_fit_says_so_first)
{
    struct rl_run r = RUN("llm", "--model", "llama-3-70b", "--gpu", "h100");
    ck_assert_msg(r.status == 0, "%s", r.err);
    char line[512];
    first_line(r.out, line, sizeof line);
    ck_assert_msg(strncmp(line, "does NOT fit: Llama-3-70B needs 142.16 GB per GPU", 49) == 0,
                  "%s", line);
    ck_assert_ptr_nonnull(strstr(line, "fewest GPUs that hold it: 2"));
    ck_assert_ptr_null(strstr(r.out, "tokens/s;"));
    ck_assert_ptr_null(strstr(r.out, "training memory"));
    /* Every time of a layout that does not fit says so: the step's and the
     * prefill's. */
    ck_assert_ptr_nonnull(strstr(r.out, "\nstep 41.71 ms if it fit (it does not);"));
    ck_assert_ptr_nonnull(strstr(r.out, "\nprefill 306.1 ms if it fit (it does not);"));
    for (const char *p = strstr(r.out, "\n     1 "); p && *p; p = strchr(p + 1, '\n')) {
        char row[256];
        first_line(p + 1, row, sizeof row);
        if (!strstr(row, "memory-bound"))
            break;
        ck_assert_msg(strstr(row, "    NO ") != NULL, "%s", row);
        ck_assert_msg(strstr(row, "            - ") != NULL, "tokens/s on a NO row: %s", row);
    }
    rl_run_release(&r);
    /* One that fits starts with the model and prints its tokens/s. */
    r = RUN("llm", "--model", "llama-3-8b", "--gpu", "h100");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strncmp(r.out, "Llama-3-8B on ", 14) == 0, "%.80s", r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "tokens/s;"));
    ck_assert_ptr_null(strstr(r.out, "does NOT fit:"));
    ck_assert_ptr_null(strstr(r.out, "training memory"));
    ck_assert_ptr_null(strstr(r.out, "if it fit"));
    ck_assert_ptr_nonnull(strstr(r.out, "bf16 KV cache, context 2048"));
    rl_run_release(&r);
    /* A training step keeps no KV cache: none is named. */
    r = RUN("llm", "--model", "llama-3-8b", "--gpu", "h100", "--train", "--tp", "8");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.out, "KV cache"));
    ck_assert_ptr_nonnull(strstr(r.out, "bf16 weights, sequences of 2048\n"));
    rl_run_release(&r);
}
END_TEST

/* One wording of a bound: a memory bound names its level in capitals, a
 * compute bound its roof, in llm's table and report's (decode is memory-
 * bound at DRAM; 2048-token prefill of the QKV projection is compute-bound
 * on the BF16 Tensor Cores: 2 x 2048 x 4096 x 6144 FLOPs over 2 x 4096 x
 * 6144 + ... bytes is ~1,100 FLOP/B, right of H100's ~295 FLOP/B ridge). */
START_TEST(one_wording_for_bounds)
{
    struct rl_run r = RUN("llm", "--model", "llama-3-8b", "--gpu", "h100");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "memory (DRAM)\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "compute (BF16 Tensor Core)\n"));
    ck_assert_ptr_null(strstr(r.out, "(bf16"));
    rl_run_release(&r);
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/ncu-real/gardenia-a100-long-hfma.csv",
             ROOFLINE_SOURCE_DIR);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/first-bounds", rl_test_tmpdir());
    r = RUN("report", "--gpu", "a100-sxm-40gb", "--ncu", path, "-o", dir);
    ck_assert_msg(r.status == 0, "%s", r.err);
    int memory = 0;
    for (const char *p = strstr(r.out, "memory ("); p; p = strstr(p + 1, "memory (")) {
        ck_assert_msg(strncmp(p, "memory (DRAM)", 13) == 0 || strncmp(p, "memory (L2)", 11) == 0 ||
                          strncmp(p, "memory (L1)", 11) == 0,
                      "%.40s", p);
        memory++;
    }
    ck_assert_int_gt(memory, 0);
    rl_run_release(&r);
}
END_TEST

/* AMD's terms on AMD GPUs (Matrix Cores, stream processors, compute
 * units), NVIDIA's on NVIDIA's, in ridge, gpus show and errors. */
START_TEST(vendor_terms)
{
    struct rl_run r = RUN("ridge", "mi300x");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "FP8 Matrix Core "));
    ck_assert_ptr_nonnull(strstr(r.out, "FP64 stream processors "));
    ck_assert_ptr_null(strstr(r.out, "Tensor Core"));
    ck_assert_ptr_null(strstr(r.out, "CUDA core"));
    rl_run_release(&r);
    r = RUN("gpus", "show", "mi300x");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "  compute units "));
    ck_assert_ptr_null(strstr(r.out, "Tensor Core"));
    ck_assert_ptr_null(strstr(r.out, "CUDA core"));
    rl_run_release(&r);
    r = RUN("ridge", "--gpu", "mi250x", "--precision", "fp8"); /* CDNA 2: no FP8 */
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "holds no FP8 Matrix Core rate"));
    rl_run_release(&r);
    r = RUN("ridge", "h100");
    ck_assert_ptr_nonnull(strstr(r.out, "FP8 Tensor Core "));
    ck_assert_ptr_nonnull(strstr(r.out, "FP64 CUDA cores "));
    rl_run_release(&r);
}
END_TEST

/* `gpus` and `gpus systems` never cut a name: every name of --json's list
 * is whole on its row of the table. */
START_TEST(gpu_lists_never_cut_a_name)
{
    static const char *const which[] = {"gpus", "systems"};
    for (int k = 0; k < 2; k++) {
        struct rl_run t = k ? RUN("gpus", "systems") : RUN("gpus");
        struct rl_run j = k ? RUN("gpus", "systems", "--json") : RUN("gpus", "--json");
        ck_assert_msg(t.status == 0 && j.status == 0, "%s%s", t.err, j.err);
        int names = 0;
        static const char key[] = "\"name\":\t\"";
        for (const char *p = strstr(j.out, key); p; p = strstr(p + 1, key)) {
            char name[256];
            const char *v = p + sizeof key - 1;
            size_t n = strcspn(v, "\"");
            snprintf(name, sizeof name, " %.*s ", (int)n, v);
            ck_assert_msg(strstr(t.out, name) != NULL, "%s: '%s' cut", which[k], name);
            names++;
        }
        ck_assert_int_gt(names, 5);
        rl_run_release(&t);
        rl_run_release(&j);
    }
}
END_TEST

/* `metrics --chip h100`: a GPU's name is its chip (h100-sxm.json: GH100;
 * rtx-4090.json: AD102), the same set as naming the chip. Chips need
 * CUPTI's host library: a build without CUDA says so instead. */
START_TEST(metrics_takes_a_gpu_name)
{
    static const char *const pairs[][2] = {{"h100", "GH100"}, {"rtx-4090", "AD102"}};
    for (size_t i = 0; i < 2; i++) {
        struct rl_run chip = RUN("metrics", "--chip", pairs[i][1], "--ncu");
        struct rl_run gpu = RUN("metrics", "--chip", pairs[i][0], "--ncu");
        if (chip.status == 0) {
            ck_assert_msg(gpu.status == 0, "%s", gpu.err);
            ck_assert_str_eq(gpu.out, chip.out);
        } else {
            ck_assert_ptr_nonnull(strstr(chip.err, "without CUDA"));
        }
        rl_run_release(&chip);
        rl_run_release(&gpu);
    }
}
END_TEST

/* H100 SXM and H200 are the same GH100 at the same clocks: their Tensor
 * Core clock is the same figure with the same origin and label. */
START_TEST(tensor_clock_alike_on_h100_and_h200)
{
    struct rl_run a = RUN("gpus", "show", "h100"), b = RUN("gpus", "show", "h200");
    ck_assert_msg(a.status == 0 && b.status == 0, "%s%s", a.err, b.err);
    const char *la = strstr(a.out, "clock of the Tensor Core peaks");
    const char *lb = strstr(b.out, "clock of the Tensor Core peaks");
    ck_assert_ptr_nonnull(la);
    ck_assert_ptr_nonnull(lb);
    size_t na = strcspn(la, "\n"), nb = strcspn(lb, "\n");
    ck_assert_msg(na == nb && strncmp(la, lb, na) == 0, "'%.*s' vs '%.*s'", (int)na, la, (int)nb,
                  lb);
    rl_run_release(&a);
    rl_run_release(&b);
}
END_TEST

/* report --ncu: one rule for the GPU (issue 34). An export that names its
 * GPU (meinie-b200: device__attribute_display_name "NVIDIA B200") is
 * judged against it and the first line says so; one that names none
 * (gardenia-a100) is refused in one line asking for --gpu; --gpu wins
 * over the export's name, said nowhere since it was asked for. */
START_TEST(ncu_gpu_one_rule)
{
    char line[1024];
    struct rl_run r = RUN("report", "--ncu", rl_test_data("ncu-real/meinie-b200-wide-units-row.csv"));
    ck_assert_msg(r.status == 0, "%s", r.err);
    first_line(r.out, line, sizeof line);
    ck_assert_msg(strstr(line, "ceilings: datasheet and analytic, of the NVIDIA B200 SXM 180GB "
                               "the export names (--gpu for another)"), "%s", line);
    rl_run_release(&r);
    r = RUN("report", "--ncu", rl_test_data("ncu-real/meinie-b200-wide-units-row.csv"), "--gpu",
            "h100-sxm");
    ck_assert_msg(r.status == 0, "%s", r.err);
    first_line(r.out, line, sizeof line);
    ck_assert_ptr_null(strstr(line, "the export names"));
    rl_run_release(&r);
    r = RUN("report", "--ncu", rl_test_data("ncu-real/gardenia-a100-long-hfma.csv"));
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.err, "roofline: error: the export names no GPU (no "
                            "device__attribute_display_name, or several): give --gpu (see "
                            "'roofline gpus') or --bench\n");
    rl_run_release(&r);
}
END_TEST

static Suite *first_suite(void)
{
    Suite *s = suite_create("cli_first");
    TCase *t = tcase_create("first");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, models_by_id_name_and_hugging_face_id);
    tcase_add_test(t, ridge_takes_the_gpu_as_an_argument);
    tcase_add_test(t, report_reads_an_ncu_csv_given_as_a_file);
    tcase_add_test(t, llm_that_does_not_fit_says_so_first);
    tcase_add_test(t, one_wording_for_bounds);
    tcase_add_test(t, vendor_terms);
    tcase_add_test(t, gpu_lists_never_cut_a_name);
    tcase_add_test(t, metrics_takes_a_gpu_name);
    tcase_add_test(t, tensor_clock_alike_on_h100_and_h200);
    tcase_add_test(t, ncu_gpu_one_rule);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return rl_test_run(first_suite()); }
