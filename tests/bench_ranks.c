/* bench_ranks.c - benchmark (not a test): a generated job of 64 ranks' PyTorch profiler traces (a few GB) read by `roofline report --torch DIR` with -j 2 and under mpirun -np 2, against a memory bound derived from one rank's read.
 *
 * Usage: bench_ranks [ROOFLINE_BIN] [RANKS [MB_PER_RANK]]   (default 64 40)
 * Writes RANKS synthetic Kineto traces (labelled synthetic in traceName) of
 * about MB_PER_RANK MB each into a folder under $TMPDIR (deleted after):
 * per ProfilerStep, COMPUTE kernels (cpu_op, cudaLaunchKernel, kernel) and
 * COLLS all-reduces (record_param_comms with Seq, process group, message
 * size, and the NCCL kernel), each rank's clock a little skewed. Then runs,
 * each under /usr/bin/time -v (peak resident set, wall time):
 *   1. one rank's file alone (-j 1)                      -> r1, its peak
 *   2. a 3-event trace alone                             -> r0, start-up
 *   2b. two ranks' files, -j 2                           -> r2, two readers
 *   3. the folder, -j 2                                  -> the job
 *   4. the folder, mpirun -np 2 ... -j 1 (each process)  -> the split job
 * The bound (docs/ranks.md, "Memory"): a reader holds one rank at a time,
 * so a process of J threads needs at most r0 + J x (one reader) for its
 * readers - one reader: r1 - r0 - h alone, (r2 - r0 - 2 h) / 2 of two
 * threads (each its own malloc arena) - plus N x h, what every rank keeps after its read - its kernel groups
 * and its collectives and steps (analytic: COLLS x steps x the size of a
 * timeline activity, steps x a step's, plus the groups' few KB) - which
 * process 0 gathers whole (h: one rank's). Exit 1 when a peak passes its bound or a read
 * fails or the reports differ.
 */
#define _GNU_SOURCE
#include "analyzer/readers/timeline.h"
#include "bench_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COMPUTE 10   /* compute kernels per step */
#define COLLS 2      /* all-reduces per step */

static const char *const kernels[COMPUTE] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_execute_kernel__5x_cublas",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_kernel__5x_cublas",
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4> >",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >",
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>",
    "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>"};
static const char *const ops[COMPUTE] = {"aten::add", "aten::addmm", "aten::layer_norm",
                                         "aten::mm", "aten::_flash_attention_forward",
                                         "aten::gelu", "aten::sum", "aten::copy_", "aten::mul",
                                         "aten::bmm"};

/* One rank's trace of `steps` steps into path; false on a write error. */
static bool write_rank(const char *path, int rank, int ranks, long steps)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "{\"schemaVersion\": 1, \"traceName\": \"synthetic (bench_ranks)\",\n"
               "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
               "\"traceEvents\": [\n",
            rank, ranks);
    long long t = 1700000000000000LL + rank * 3; /* each rank's clock a little off */
    long id = 1;
    for (long s = 0; s < steps; s++) {
        long long step_start = t;
        long long step_len = COMPUTE * 60 + COLLS * (200 + rank % 7) + 40;
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%ld\", "
                   "\"pid\": 1, \"tid\": 1, \"ts\": %lld, \"dur\": %lld, \"args\": {}},\n",
                s, step_start, step_len);
        for (int k = 0; k < COMPUTE + COLLS; k++, id++) {
            bool coll = k >= COMPUTE;
            long long dur = coll ? 200 + rank % 7 : 50 + k;
            if (coll)
                fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", "
                           "\"pid\": 1, \"tid\": 1, \"ts\": %lld, \"dur\": 5, \"args\": "
                           "{\"External id\": %ld, \"Collective name\": \"allreduce\", \"dtype\": "
                           "\"Float\", \"In msg nelems\": 4194304, \"Out msg nelems\": 4194304, "
                           "\"Group size\": %d, \"Process Group Name\": \"0\", \"Seq\": %ld}},\n",
                        t, id, ranks, s * COLLS + (k - COMPUTE));
            else
                fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, "
                           "\"tid\": 1, \"ts\": %lld, \"dur\": 5, \"args\": {\"External id\": %ld, "
                           "\"Input Dims\": [[4096, 4096], [4096, 4096]], \"Input type\": "
                           "[\"float\", \"float\"]}},\n",
                        ops[k], t, id);
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                       "\"pid\": 1, \"tid\": 1, \"ts\": %lld, \"dur\": 3, \"args\": {\"External id\": "
                       "%ld, \"correlation\": %ld}},\n",
                    t + 1, id, id);
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, "
                       "\"tid\": \"stream %d\", \"ts\": %lld, \"dur\": %lld, \"args\": {\"External id\": "
                       "%ld, \"correlation\": %ld, \"device\": 0, \"stream\": %d, \"grid\": [132, 1, 1], "
                       "\"block\": [256, 1, 1]}}%s\n",
                    coll ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                         : kernels[k],
                    coll ? 20 : 7, t + 10, dur, id, id, coll ? 20 : 7,
                    s + 1 == steps && k + 1 == COMPUTE + COLLS ? "" : ",");
            t += dur + 5;
        }
        t = step_start + step_len + 10;
    }
    fputs("]}\n", f);
    return fclose(f) == 0;
}

/* Run cmd (a shell line) under /usr/bin/time -v into tfile; wall s and the
 * peak resident MB of the largest line found (each process's for mpirun). */
static bool timed(const char *cmd, double *wall_s, double *peak_mb, double *peak0_mb)
{
    double t0 = bench_now_s();
    int rc = system(cmd);
    *wall_s = bench_now_s() - t0;
    if (rc != 0) {
        fprintf(stderr, "bench_ranks: failed (%d): %s\n", rc, cmd);
        return false;
    }
    *peak_mb = *peak0_mb = 0;
    FILE *f = fopen("bench_ranks.time", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        long kb;
        if (sscanf(line, " Maximum resident set size (kbytes): %ld", &kb) == 1) {
            if (kb / 1024.0 > *peak_mb)
                *peak_mb = kb / 1024.0;
        }
    }
    if (f)
        fclose(f);
    /* process 0's (mpirun: one file per process) */
    f = fopen("bench_ranks.time.0", "r");
    while (f && fgets(line, sizeof line, f)) {
        long kb;
        if (sscanf(line, " Maximum resident set size (kbytes): %ld", &kb) == 1)
            *peak0_mb = kb / 1024.0;
    }
    if (f)
        fclose(f);
    return true;
}

int main(int argc, char **argv)
{
    char bin[4096];
    if (!realpath(argc > 1 ? argv[1] : ROOFLINE_BIN, bin)) {
        perror(argc > 1 ? argv[1] : ROOFLINE_BIN);
        return 1;
    }
    int ranks = argc > 2 ? atoi(argv[2]) : 64;
    double mb = argc > 3 ? atof(argv[3]) : 40;
    if (ranks < 2 || mb <= 0) {
        fprintf(stderr, "usage: bench_ranks [ROOFLINE_BIN] [RANKS>=2 [MB_PER_RANK]]\n");
        return 2;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096], one[4200], cmd[16384];
    snprintf(dir, sizeof dir, "%s/bench_ranks.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (chdir(dir) != 0 || mkdir("job", 0777) != 0 || mkdir("one", 0777) != 0) {
        perror(dir);
        return 1;
    }
    /* about 700 bytes per kernel (its three events) */
    long steps = (long)(mb * 1e6 / (700.0 * (COMPUTE + COLLS)));
    double t0 = bench_now_s(), bytes = 0;
    bool ok = true;
    for (int r = 0; r < ranks && ok; r++) {
        snprintf(one, sizeof one, "job/rank-%02d.json", r);
        ok = write_rank(one, r, ranks, steps);
        struct stat st;
        if (ok && stat(one, &st) == 0)
            bytes += (double)st.st_size;
    }
    ok = ok && write_rank("one/tiny.json", 0, 1, 1);
    ok = ok && mkdir("two", 0777) == 0 && symlink("../job/rank-00.json", "two/rank-00.json") == 0 &&
         symlink("../job/rank-01.json", "two/rank-01.json") == 0;
    printf("generated %d ranks x %ld steps (%d kernels, %d all-reduces each), %.0f MB in %.1f s "
           "into %s\n",
           ranks, steps, COMPUTE, COLLS, bytes / 1e6, bench_now_s() - t0, dir);
    const char *gpu = "--gpu h100-sxm --no-chart";
    double w1, p1, w0, p0, w2, p2, wj, pj, wm, pm, pm0, unused;
    snprintf(cmd, sizeof cmd,
             "/usr/bin/time -v -o bench_ranks.time %s report --torch job/rank-00.json -j 1 -o r1 %s "
             ">/dev/null",
             bin, gpu);
    ok = ok && timed(cmd, &w1, &p1, &unused);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/time -v -o bench_ranks.time %s report --torch one/tiny.json -o r0 %s >/dev/null",
             bin, gpu);
    ok = ok && timed(cmd, &w0, &p0, &unused);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/time -v -o bench_ranks.time %s report --torch two -j 2 -o r2 %s >/dev/null",
             bin, gpu);
    ok = ok && timed(cmd, &w2, &p2, &unused);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/time -v -o bench_ranks.time %s report --torch job -j 2 -o rj %s >/dev/null",
             bin, gpu);
    ok = ok && timed(cmd, &wj, &pj, &unused);
    printf("one rank (%.1f MB): %.2f s, peak %.1f MB; start-up (3 events): peak %.1f MB\n",
           bytes / ranks / 1e6, w1, p1, p0);
    /* Each process's /usr/bin/time into its own file; -j 1 per process:
     * two processes on this machine's two cores */
    snprintf(cmd, sizeof cmd,
             "rm -f bench_ranks.time.*; mpirun %s --oversubscribe -np 2 sh -c "
             "'exec /usr/bin/time -v -o bench_ranks.time.$OMPI_COMM_WORLD_RANK %s report --torch "
             "job -j 1 -o rm %s' >/dev/null && cat bench_ranks.time.* > bench_ranks.time",
             getuid() == 0 ? "--allow-run-as-root" : "", bin, gpu);
    ok = ok && timed(cmd, &wm, &pm, &pm0);
    /* what every rank keeps: its collectives (their array cut to size) and
     * steps (an array grown by doubling: up to twice); its groups, stats
     * and sums are KB */
    size_t step_cap = 1;
    while (step_cap < (size_t)steps)
        step_cap *= 2;
    double held_rank_mb = (steps * COLLS * (double)sizeof(struct rl_timeline_act) +
                           (double)step_cap * sizeof(struct rl_timeline_step)) / 1048576.0;
    double held_mb = ranks * held_rank_mb;
    /* one reader: a rank read alone on one thread (p1), or two at once on
     * two threads (p2, each thread its own malloc arena): its share */
    double reader1_mb = p1 - p0 - held_rank_mb;
    double reader2_mb = (p2 - p0 - 2 * held_rank_mb) / 2;
    double bound_j2 = p0 + 2 * reader2_mb + held_mb, bound_j1 = p0 + reader1_mb + held_mb;
    if (ok) {
        printf("held after reading, all ranks (analytic): %.1f MB; one reader: %.1f MB alone, "
               "%.1f MB of two on two threads (measured: %.1f MB peak)\n",
               held_mb, reader1_mb, reader2_mb, p2);
        printf("-j 2:           %.2f s, %.0f MB/s, peak %.1f MB (bound %.1f MB)\n", wj,
               bytes / 1e6 / wj, pj, bound_j2);
        printf("mpirun -np 2:   %.2f s, %.0f MB/s, peak %.1f MB process 0, %.1f MB the largest "
               "(bound %.1f MB each)\n",
               wm, bytes / 1e6 / wm, pm0, pm, bound_j1);
        ok = pj <= bound_j2 && pm <= bound_j1;
        if (system("cmp -s rj/report.json rm/report.json") != 0) {
            printf("bench_ranks: the -j 2 and mpirun reports differ\n");
            ok = false;
        }
    }
    if (chdir("/") == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_ranks: could not remove %s\n", dir);
    }
    printf("%s\n", ok ? "bench_ranks: within the bound" : "bench_ranks: FAILED");
    return ok ? 0 : 1;
}
