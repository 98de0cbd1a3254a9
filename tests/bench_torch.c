/* bench_torch.c - benchmark (not a test): `roofline report --torch -` on a generated PyTorch profiler trace streamed through a pipe, never on disk.
 *
 * Usage: bench_torch [ROOFLINE_BIN] [MB ...]   (default: 64 256)
 * For each size, writes a synthetic Kineto chrome trace (labelled synthetic
 * in its traceName) of that many MB into a pipe to `roofline report --torch
 * - --json` and reports wall time, throughput and the child's peak resident
 * set (getrusage), against the target: under 256 MB whatever the size. The
 * trace repeats one training step of a transformer block: a fixed set of
 * OPS distinct operator signatures, each a cpu_op (Input Dims, Input type,
 * Concrete Inputs, External id) holding its aten:: op, a cudaLaunchKernel
 * with a correlation id, the flow events, and the kernel (External id,
 * correlation, grid, block); ProfilerStep# annotations. Distinct operators
 * and kernels stay fixed as the size grows, so memory should not grow.
 * Verifies the report: every generated kernel counted. Exit 1 when the
 * target is missed or the report is wrong.
 *
 * Measured (2-core shared machine, other builds running; docs/torch.md): 64 MB in
 * 3.1 s at 12.4 MB peak, 256 MB in 8.4 s at 35.1 MB, 2 GB (1.25 M kernels)
 * in 194 s at 242.0 MB - under the target, with memory still growing with
 * the operator calls the reader keeps (before linking while reading: 15.6,
 * 48.7 and 357.8 MB). Issue 36's reader work (2026-12-05, same machine):
 * 64 MB in 0.87 s before, 0.52 s after (docs/performance.md).
 */
#define _GNU_SOURCE
#include "bench_util.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define TARGET_PEAK_MB 256.0

/* One operator of the step: the module call, its aten op, its kernel. */
static const struct step_op {
    const char *module, *op, *dims, *types, *concrete, *kernel;
    int grid, block;
    double dur_us;
} step[] = {
    {"aten::layer_norm", "aten::native_layer_norm", "[[8, 2048, 4096], [], [4096], [4096], []]",
     "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
     "[\"\", \"[4096]\", \"\", \"\", \"1e-05\"]",
     "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>",
     16384, 256, 310.0},
    {"aten::linear", "aten::addmm", "[[12288], [16384, 4096], [4096, 12288], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"1\", \"1\"]",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     1536, 384, 2100.0},
    {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
     "[[8, 32, 2048, 128], [8, 32, 2048, 128], [8, 32, 2048, 128], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\"]",
     "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]",
     "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, "
     "false, cutlass::bfloat16_t>, false, true, false, false, true, true, false>",
     4096, 128, 1800.0},
    {"aten::linear", "aten::mm", "[[16384, 4096], [4096, 4096]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\"]", "[\"\", \"\"]",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     1024, 256, 720.0},
    {"aten::add", "aten::add", "[[8, 2048, 4096], [8, 2048, 4096], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", "[\"\", \"\", \"1\"]",
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::"
     "BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "at::detail::Array<char*, 3>)",
     65536, 128, 260.0},
    {"aten::gelu", "aten::gelu", "[[8, 2048, 16384], []]", "[\"c10::BFloat16\", \"\"]",
     "[\"\", \"'tanh'\"]",
     "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
     "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}"
     "::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >",
     131072, 128, 880.0},
    {"aten::softmax", "aten::_softmax", "[[8, 2048, 32000], [], []]",
     "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]", "[\"\", \"-1\", \"False\"]",
     "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, "
     "(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
     16384, 1024, 1400.0},
    {"aten::sum", "aten::sum", "[[8, 2048, 4096], [], [], []]",
     "[\"float\", \"ScalarList\", \"Scalar\", \"\"]", "[\"\", \"[0, 1]\", \"False\", \"\"]",
     "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
     "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::"
     "TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >",
     2048, 512, 190.0},
};
#define OPS (sizeof step / sizeof *step)

struct gen {
    FILE *f;
    unsigned long long bytes, kernels, ext, corr;
    double ts;
};

static void put(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(g->f, fmt, ap);
    va_end(ap);
    if (n > 0)
        g->bytes += (unsigned long long)n;
}

/* One training step: every operator once, its launch, flows and kernel;
 * the GPU events of the step after its CPU events, as Kineto groups them. */
static void one_step(struct gen *g, int stepno)
{
    enum { PID = 4242, TID = 4243 };
    double t0 = g->ts, gpu_t = g->ts + 40;
    unsigned long long ext0 = g->ext, corr0 = g->corr;
    put(g,
        ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", "
        "\"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": "
        "%llu}}",
        stepno, PID, TID, t0, 30.0 * OPS + 10, g->ext++);
    for (size_t i = 0; i < OPS; i++) {
        const struct step_op *o = &step[i];
        double ts = t0 + 1 + 30.0 * (double)i;
        put(g,
            ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": "
            "%d, \"ts\": %.3f, \"dur\": 28.5, \"args\": {\"External id\": %llu, \"Record "
            "function id\": 0, \"Ev Idx\": %llu, \"Input Dims\": %s, \"Input type\": %s, "
            "\"Concrete Inputs\": %s}}",
            o->module, PID, TID, ts, g->ext, g->ext, o->dims, o->types, o->concrete);
        g->ext++;
        put(g,
            ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": "
            "%d, \"ts\": %.3f, \"dur\": 22.25, \"args\": {\"External id\": %llu, \"Record "
            "function id\": 0, \"Ev Idx\": %llu, \"Input Dims\": %s, \"Input type\": %s, "
            "\"Concrete Inputs\": %s}}",
            o->op, PID, TID, ts + 2, g->ext, g->ext, o->dims, o->types, o->concrete);
        put(g,
            ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
            "\"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": 6.125, \"args\": {\"External id\": "
            "%llu, \"cbid\": 211, \"correlation\": %llu}}",
            PID, TID, ts + 12, g->ext, g->corr);
        put(g,
            ",\n{\"ph\": \"s\", \"id\": %llu, \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"cat\": "
            "\"ac2g\", \"name\": \"ac2g\"}",
            g->corr, PID, TID, ts + 12);
        g->ext++;
        g->corr++;
    }
    for (size_t i = 0; i < OPS; i++) {
        const struct step_op *o = &step[i];
        unsigned long long ext = ext0 + 2 + 2 * i, corr = corr0 + i;
        put(g,
            ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
            "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %llu, \"queued\": 0, "
            "\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %llu, "
            "\"registers per thread\": 128, \"shared memory\": 49152, \"blocks per SM\": 4.5, "
            "\"warps per SM\": 18, \"grid\": [%d, 1, 1], \"block\": [%d, 1, 1], "
            "\"est. achieved occupancy %%\": 25}}",
            o->kernel, gpu_t, o->dur_us, ext, corr, o->grid, o->block);
        put(g,
            ",\n{\"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"cat\": "
            "\"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
            corr, gpu_t);
        gpu_t += o->dur_us + 2;
        g->kernels++;
    }
    g->ts = gpu_t > t0 + 30.0 * OPS + 20 ? gpu_t : t0 + 30.0 * OPS + 20;
}

static void write_trace(FILE *f, double mb, struct gen *g)
{
    *g = (struct gen){.f = f, .ext = 1, .corr = 1, .ts = 1700000000000.0};
    put(g,
        "{\n\"schemaVersion\": 1, \"traceName\": \"synthetic (bench_torch)\", "
        "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", "
        "\"totalGlobalMem\": 85029158912, \"computeMajor\": 9, \"computeMinor\": 0, "
        "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": "
        "65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": 132}],\n"
        "\"record_shapes\": 1, \"displayTimeUnit\": \"ms\", \"traceEvents\": [\n"
        "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 4242, \"tid\": 0, "
        "\"args\": {\"name\": \"python3\"}}");
    unsigned long long limit = (unsigned long long)(mb * 1024 * 1024);
    for (int s = 1; g->bytes < limit && !ferror(f); s++)
        one_step(g, s);
    put(g, "\n]}\n");
}

struct result {
    double mb, wall_s, mb_per_s, peak_mb;
    unsigned long long kernels;
    int exit_code;
    bool verified;
};

/* Stream `mb` MB into `bin report --torch - --json`, its stdout into out. */
static bool run_one(const char *bin, double mb, struct result *res)
{
    char out[] = "/tmp/roofline-bench-torch-XXXXXX";
    int ofd = mkstemp(out);
    int p[2];
    if (ofd < 0 || pipe(p) != 0) {
        perror("bench_torch");
        return false;
    }
    double start = bench_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[0], 0);
        dup2(ofd, 1);
        close(p[0]);
        close(p[1]);
        execl(bin, bin, "report", "--torch", "-", "--json", (char *)NULL);
        perror(bin);
        _exit(127);
    }
    close(p[0]);
    FILE *f = fdopen(p[1], "w");
    struct gen g;
    signal(SIGPIPE, SIG_IGN);
    write_trace(f, mb, &g);
    fclose(f);
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
        perror("wait4");
        return false;
    }
    res->wall_s = bench_now_s() - start;
    res->mb = (double)g.bytes / (1024.0 * 1024.0);
    res->mb_per_s = res->mb / res->wall_s;
    res->peak_mb = ru.ru_maxrss / 1024.0;
    res->kernels = g.kernels;
    res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    /* the report counts every kernel: "launches": N appears with the total
     * of one operator, so check the addmm kernel's launches = steps */
    char want[64];
    snprintf(want, sizeof want, "%llu", g.kernels / OPS);
    FILE *o = fdopen(ofd, "r");
    res->verified = false;
    if (o) {
        rewind(o);
        char line[8192];
        while (fgets(line, sizeof line, o))
            if (strstr(line, "aten::addmm") && strstr(line, want))
                res->verified = true;
        fclose(o);
    }
    if (!res->verified)
        fprintf(stderr, "bench_torch: report in %s does not show %s addmm launches\n", out,
                want);
    else
        unlink(out);
    return true;
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : ROOFLINE_BIN;
    static const double defaults[] = {64, 256};
    int n = argc > 2 ? argc - 2 : 2;
    int failed = 0;
    printf("%-10s %10s %10s %10s %12s %10s  %s\n", "trace MB", "kernels", "wall s", "MB/s",
           "peak RSS MB", "target MB", "verdict");
    for (int i = 0; i < n; i++) {
        double mb = argc > 2 ? atof(argv[2 + i]) : defaults[i];
        struct result r;
        if (!run_one(bin, mb, &r))
            return 2;
        bool ok = r.exit_code == 0 && r.verified && r.peak_mb < TARGET_PEAK_MB;
        printf("%-10.1f %10llu %10.2f %10.1f %12.1f %10.0f  %s%s\n", r.mb, r.kernels, r.wall_s,
               r.mb_per_s, r.peak_mb, TARGET_PEAK_MB, ok ? "ok" : "MISSED",
               r.exit_code ? " (report failed)" : !r.verified ? " (report wrong)" : "");
        fflush(stdout);
        failed |= !ok;
    }
    return failed;
}
