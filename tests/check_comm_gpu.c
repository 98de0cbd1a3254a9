/* check_comm_gpu.c - `roofline comm --measure` on the GPUs of this machine: every result checked right, no rate above its datasheet bound.
 *
 * Label gpu. Runs the roofline binary ($ROOFLINE_BIN, else the build's) on
 * a short sweep (8 B to 256 MiB, 256 MiB copies) and reads its file back.
 * Exits 77 (skipped, never passed) where there is no GPU or no comm plugin.
 */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/comm/results.h"
#include "analyzer/model/gpudb.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rl_comm_results res;
static const struct rl_gpu_spec *spec;
static char out_text[8192];

START_TEST(every_result_is_checked_right)
{
    ck_assert_msg(!res.check_failed, "the file says a check failed");
    size_t checked = 0;
    for (size_t i = 0; i < res.n_series; i++) {
        const struct rl_comm_series *s = &res.series[i];
        for (size_t k = 0; k < s->n; k++) {
            const struct rl_comm_point *p = &s->points[k];
            ck_assert_msg(p->wrong <= 0, "%s %.0f B %s: %lld wrong",
                          rl_collective_name(s->collective), p->bytes,
                          p->in_place ? "in place" : "out of place", p->wrong);
            /* Only in-place all-to-all and send/recv go unchecked (nccl-tests). */
            if (p->wrong < 0)
                ck_assert(p->in_place && (s->collective == RL_COLL_ALLTOALL ||
                                          s->collective == RL_COLL_SENDRECV));
            else
                checked++;
            ck_assert_msg(p->time_us > 0 && isfinite(p->algbw_gbs), "%s %.0f B: time %g",
                          rl_collective_name(s->collective), p->bytes, p->time_us);
        }
    }
    ck_assert_uint_gt(checked, 20);
    for (size_t i = 0; i < res.n_copies; i++)
        ck_assert_msg(res.copies[i].wrong == 0, "copy %s %s %s: %lld words wrong",
                      res.copies[i].kind, res.copies[i].engine, res.copies[i].direction,
                      res.copies[i].wrong);
}
END_TEST

START_TEST(no_rate_above_its_bound)
{
    if (!spec) {
        printf("'%s' is not in the database: no datasheet bounds to check\n", res.gpu);
        return;
    }
    double hbm = spec->memory_bandwidth_gbs, link = spec->links.gbs, pcie = spec->links.pcie_gbs;
    for (size_t i = 0; i < res.n_series; i++) {
        const struct rl_comm_series *s = &res.series[i];
        for (size_t k = 0; k < s->n; k++) {
            const struct rl_comm_point *p = &s->points[k];
            /* More than one GPU: bus bandwidth never above the link. */
            if (res.ranks > 1 && link > 0)
                ck_assert_msg(p->busbw_gbs <= link, "%s %.0f B: busbw %g above the %g GB/s link",
                              rl_collective_name(s->collective), p->bytes, p->busbw_gbs, link);
            /* One GPU, out of place: NCCL copies send to receive inside HBM,
             * reading and writing every byte: 2 x algbw <= HBM, for sizes
             * well past the L2 (4 x its size), which is faster than HBM. */
            if (res.ranks == 1 && !p->in_place && s->collective == RL_COLL_ALLREDUCE &&
                p->bytes >= 4 * spec->l2_cache_mb * 1e6)
                ck_assert_msg(2 * p->algbw_gbs <= hbm, "all-reduce %.0f B: 2 x %g above HBM %g",
                              p->bytes, p->algbw_gbs, hbm);
        }
    }
    const struct rl_comm_copy *d2d = rl_comm_results_copy(&res, "d2d", "ce", "uni");
    const struct rl_comm_copy *h2d = rl_comm_results_copy(&res, "h2d", "ce", "uni");
    const struct rl_comm_copy *d2h = rl_comm_results_copy(&res, "d2h", "sm", "uni");
    ck_assert(d2d && h2d && d2h);
    for (int g = 0; g < d2d->rows; g++) {
        double v = d2d->matrix_gbs[g * d2d->cols + g];
        ck_assert_msg(v > 0 && 2 * v <= hbm, "d2d gpu%d: %g GB/s copied, HBM %g", g, v, hbm);
        double up = h2d->matrix_gbs[g], down = d2h->matrix_gbs[g];
        ck_assert_msg(up > 1 && down > 1, "host copies of gpu%d: %g, %g GB/s", g, up, down);
        if (pcie > 0)
            ck_assert_msg(up <= pcie && down <= pcie, "host copies of gpu%d: %g, %g above PCIe %g",
                          g, up, down, pcie);
    }
}
END_TEST

static struct rl_gpudb db;

static Suite *comm_gpu_suite(void)
{
    Suite *s = suite_create("comm_gpu");
    TCase *core = tcase_create("core");
    tcase_add_test(core, every_result_is_checked_right);
    tcase_add_test(core, no_rate_above_its_bound);
    suite_add_tcase(s, core);
    return s;
}

int main(void)
{
    const char *bin = getenv("ROOFLINE_BIN");
    if (!bin || !*bin)
        bin = ROOFLINE_BIN;
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/comm-gpu.json", rl_test_tmpdir());
    snprintf(cmd, sizeof cmd, "'%s' comm --measure --max-bytes 256M --copy-bytes 256M --iters 5 "
             "--warmup 1 --timeout 120 -o '%s' 2>&1", bin, path);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out_text, 1, sizeof out_text - 1, p) : 0;
    out_text[n] = '\0';
    int status = p ? pclose(p) : -1;
    printf("%s", out_text);
    if (strstr(out_text, "no usable CUDA GPU") || strstr(out_text, "no CUDA GPU") ||
        strstr(out_text, "built without") || strstr(out_text, "cannot load") ||
        strstr(out_text, "cannot find libroofline_comm")) {
        printf("SKIP: no GPU or no comm plugin here\n");
        return 77;
    }
    char err[RL_ERRMSG_SIZE];
    if (rl_comm_results_load(&res, path, err) != 0) {
        printf("FAIL: roofline comm --measure exit %d wrote no readable file: %s\n", status, err);
        return 1;
    }
    /* The datasheet from the data folder this run uses (the device's copy). */
    const char *data = getenv("ROOFLINE_DATA_DIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/gpus", data && *data ? data : ROOFLINE_SOURCE_DIR "/data");
    if (rl_gpudb_load(&db, dir, err) == 0)
        spec = rl_gpudb_find(&db, res.gpu_id[0] ? res.gpu_id : res.gpu);
    int rc = rl_test_run(comm_gpu_suite());
    rl_comm_results_release(&res);
    rl_gpudb_release(&db);
    return rc;
}
