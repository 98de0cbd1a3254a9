/* bench_ranks.c - benchmark (not a test): a generated job of PyTorch profiler traces, one per rank (64 x 40 MB by default, a few GB), read by `roofline report --torch DIR` at several -j and under mpirun -np 2, each run's peak resident set against a memory bound calibrated on small reads.
 *
 * Usage: bench_ranks [ROOFLINE_BIN] [RANKS [MB_PER_RANK [JOBS]]]
 *        (default 64 40 1,2,4,8; JOBS: the -j values, comma-separated)
 * Writes RANKS synthetic Kineto traces (labelled synthetic in traceName) of
 * about MB_PER_RANK MB each into a folder under $TMPDIR (deleted after, kept
 * with BENCH_RANKS_KEEP set): per ProfilerStep, COMPUTE kernels (cpu_op,
 * cudaLaunchKernel, kernel) and COLLS all-reduces (record_param_comms with
 * Seq, process group, message size, and the NCCL kernel), each rank's clock
 * a little skewed.
 *
 * The bound (docs/ranks.md, "Memory"): one process of J reading threads
 * (J' = min(J, RANKS)) peaks at most at
 *     F + J' x R + (J' - 1) x T + RANKS x H
 *   F  fixed: start-up, the GPU database, the report of a job of nothing -
 *      measured: two 1-step ranks read with -j 1;
 *   T  one more thread: its stack, its malloc arena, its buffers -
 *      measured: the same two with -j 2, minus F;
 *   R  one reader at its worst: its parse state and its rank's whole GPU
 *      timeline before the cut - measured: two of the job's ranks with -j 1
 *      (one held while the other is read: minus F and H) and with -j 2
 *      (both at once: half of what is left after F and T); the larger;
 *   H  what every rank keeps once read (analytic): its collectives (an
 *      array cut to size), its step spans (an array grown by doubling), its
 *      kernel groups, stats and sums (sizeof, KB).
 * Each calibration is run REPS times, its largest peak taken (two threads'
 * peaks meet or not as they are scheduled). RANKS x H also counts the J'
 * ranks being read, whose timelines are in R: J' x H of slack. Under
 * mpirun -np P (-j 1 each), process 0 reads its share and gathers every
 * rank's summary: its bound is one process's with -j 1 over all RANKS; the
 * others keep their own share. Exit 1 when a peak passes its bound, a read
 * fails, or a report.json differs from the first -j's.
 */
#define _GNU_SOURCE
#include "analyzer/readers/timeline.h"
#include "analyzer/readers/torch.h"
#include "analyzer/report/across.h"
#include "analyzer/report/ranks.h"
#include "bench_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COMPUTE 10   /* compute kernels per step */
#define COLLS 2      /* all-reduces per step */
#define REPS 3       /* runs of each calibration */
#define MAX_JOBS 16  /* -j values in one sweep */

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

static const char *bin;
static const char *const gpu_args[] = {"--gpu", "h100-sxm", "--no-chart"};

/* One `report --torch src -j jobs -o out`: wall s and peak MiB (rusage),
 * false when it could not run or failed. */
static bool report(const char *src, int jobs, const char *out, struct bench_run *r)
{
    char j[16];
    snprintf(j, sizeof j, "%d", jobs);
    char *argv[] = {(char *)bin, "report", "--torch", (char *)src, "-j", j, "-o", (char *)out,
                    (char *)gpu_args[0], (char *)gpu_args[1], (char *)gpu_args[2], NULL};
    if (!bench_run(argv, r) || r->exit_code != 0) {
        fprintf(stderr, "bench_ranks: report --torch %s -j %d failed\n", src, jobs);
        return false;
    }
    return true;
}

/* The largest peak of REPS runs (MiB); -1 when one fails. */
static double peak_of(const char *src, int jobs)
{
    double peak = 0;
    for (int i = 0; i < REPS; i++) {
        struct bench_run r;
        if (!report(src, jobs, "cal", &r))
            return -1;
        if (r.peak_mb > peak)
            peak = r.peak_mb;
    }
    return peak;
}

/* The peak resident set (MiB) /usr/bin/time -v wrote into path; -1 none. */
static double time_v_peak(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    double peak = -1;
    while (f && fgets(line, sizeof line, f)) {
        long kb;
        if (sscanf(line, " Maximum resident set size (kbytes): %ld", &kb) == 1)
            peak = kb / 1024.0;
    }
    if (f)
        fclose(f);
    return peak;
}

static bool same_report(const char *a, const char *b)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cmp -s %s/report.json %s/report.json", a, b);
    if (system(cmd) == 0)
        return true;
    printf("bench_ranks: %s/report.json differs from %s/report.json\n", b, a);
    return false;
}

int main(int argc, char **argv)
{
    char binbuf[4096];
    if (!realpath(argc > 1 ? argv[1] : ROOFLINE_BIN, binbuf)) {
        perror(argc > 1 ? argv[1] : ROOFLINE_BIN);
        return 1;
    }
    bin = binbuf;
    int ranks = argc > 2 ? atoi(argv[2]) : 64;
    double mb = argc > 3 ? atof(argv[3]) : 40;
    int jobs[MAX_JOBS], n_jobs = 0;
    char jlist[256];
    snprintf(jlist, sizeof jlist, "%s", argc > 4 ? argv[4] : "1,2,4,8");
    for (char *tok = strtok(jlist, ","); tok && n_jobs < MAX_JOBS; tok = strtok(NULL, ","))
        if ((jobs[n_jobs] = atoi(tok)) >= 1)
            n_jobs++;
    if (ranks < 2 || mb <= 0 || n_jobs == 0) {
        fprintf(stderr, "usage: bench_ranks [ROOFLINE_BIN] [RANKS>=2 [MB_PER_RANK [J,J,...]]]\n");
        return 2;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096], one[4200], cmd[16384];
    snprintf(dir, sizeof dir, "%s/bench_ranks.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (chdir(dir) != 0 || mkdir("job", 0777) != 0 || mkdir("tiny", 0777) != 0 ||
        mkdir("two", 0777) != 0) {
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
    ok = ok && write_rank("tiny/rank-00.json", 0, 2, 1) && write_rank("tiny/rank-01.json", 1, 2, 1);
    ok = ok && symlink("../job/rank-00.json", "two/rank-00.json") == 0 &&
         symlink("../job/rank-01.json", "two/rank-01.json") == 0;
    printf("generated %d ranks x %ld steps (%d kernels, %d all-reduces each), %.0f MB in %.1f s "
           "into %s\n",
           ranks, steps, COMPUTE, COLLS, bytes / 1e6, bench_now_s() - t0, dir);

    /* H: what every rank keeps (analytic), MiB */
    size_t step_cap = 1;
    while (step_cap < (size_t)steps)
        step_cap *= 2;
    double slots = sizeof(struct rl_trace_groups) + 2.0 * (COMPUTE + COLLS) *
                   sizeof(struct rl_trace_group) + sizeof(struct rl_timeline) +
                   sizeof(struct rl_across_rank) + sizeof(struct rl_torch_stats) +
                   sizeof(struct rl_report_rank) + 4096 /* names, path */;
    double h = (steps * COLLS * (double)sizeof(struct rl_timeline_act) +
                (double)step_cap * sizeof(struct rl_timeline_step) + slots) / 1048576.0;

    /* the calibration */
    double f = ok ? peak_of("tiny", 1) : -1, f2 = f >= 0 ? peak_of("tiny", 2) : -1;
    double p12 = f2 >= 0 ? peak_of("two", 1) : -1, p22 = p12 >= 0 ? peak_of("two", 2) : -1;
    ok = ok && p22 >= 0;
    double t = f2 > f ? f2 - f : 0, r1 = p12 - f - h, r2 = (p22 - f - t) / 2;
    double rd = r1 > r2 ? r1 : r2;
    if (ok)
        printf("calibration (largest of %d runs each), MiB: F %.1f (fixed), T %.2f (a thread), "
               "R %.1f (a reader: %.1f on one thread, %.1f each of two), H %.3f (a rank kept, "
               "analytic)\n",
               REPS, f, t, rd, r1, r2, h);

    /* the sweep */
    char first[32] = "";
    double j1_peak = -1;
    for (int i = 0; i < n_jobs && ok; i++) {
        int jn = jobs[i] < ranks ? jobs[i] : ranks;
        double bound = f + jn * rd + (jn - 1) * t + ranks * h;
        char out[32];
        snprintf(out, sizeof out, "rj%d", jobs[i]);
        struct bench_run r;
        ok = report("job", jobs[i], out, &r);
        if (!ok)
            break;
        if (jobs[i] == 1)
            j1_peak = r.peak_mb;
        bool in = r.peak_mb <= bound;
        printf("-j %-2d %6.2f s %5.0f MB/s  peak %6.1f MiB  bound %6.1f MiB  %s\n", jobs[i],
               r.wall_s, bytes / 1e6 / r.wall_s, r.peak_mb, bound, in ? "ok" : "PAST THE BOUND");
        ok = in && (first[0] ? same_report(first, out) : true);
        if (!first[0])
            snprintf(first, sizeof first, "%s", out);
    }
    /* mpirun -np 2, -j 1 each: each process's /usr/bin/time into its own
     * file (two processes on this machine's two cores) */
    if (ok && system("command -v mpirun >/dev/null 2>&1") != 0) {
        printf("mpirun -np 2: skipped (no mpirun)\n");
    } else if (ok) {
        snprintf(cmd, sizeof cmd,
                 "mpirun %s --oversubscribe -np 2 sh -c 'exec /usr/bin/time -v -o "
                 "time.$OMPI_COMM_WORLD_RANK %s report --torch job -j 1 -o rm %s %s %s' "
                 ">/dev/null",
                 getuid() == 0 ? "--allow-run-as-root" : "", bin, gpu_args[0], gpu_args[1],
                 gpu_args[2]);
        double w0 = bench_now_s();
        ok = system(cmd) == 0;
        double wall = bench_now_s() - w0;
        double p0 = time_v_peak("time.0"), p1 = time_v_peak("time.1");
        double bound0 = f + rd + ranks * h, bound1 = f + rd + (ranks + 1) / 2 * h;
        ok = ok && p0 > 0 && p1 > 0;
        if (ok) {
            bool in = p0 <= bound0 && p1 <= bound1;
            printf("mpirun -np 2, -j 1 each: %.2f s %5.0f MB/s  peak %.1f MiB process 0 (bound "
                   "%.1f), %.1f MiB process 1 (bound %.1f)  %s\n",
                   wall, bytes / 1e6 / wall, p0, bound0, p1, bound1,
                   in ? "ok" : "PAST THE BOUND");
            if (j1_peak > 0)
                printf("process 0 under mpirun: %.1f MiB; one process -j 1: %.1f MiB (it gathers "
                       "every rank's summary)\n",
                       p0, j1_peak);
            ok = in && (first[0] ? same_report(first, "rm") : true);
        } else {
            fprintf(stderr, "bench_ranks: failed: %s\n", cmd);
        }
    }
    if (getenv("BENCH_RANKS_KEEP"))
        printf("kept %s (BENCH_RANKS_KEEP)\n", dir);
    else if (chdir("/") == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_ranks: could not remove %s\n", dir);
    }
    printf("%s\n", ok ? "bench_ranks: within the bound" : "bench_ranks: FAILED");
    return ok ? 0 : 1;
}
