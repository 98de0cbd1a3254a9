/* counts.c - the hardware-counter quantities roofline reads per kernel, and the FLOPs and bytes derived from them.
 *
 * Plain C, shared by the profiler (which reads the quantities through
 * CUPTI), the Nsight Compute importer (which finds the same metric names
 * in a CSV export) and the tests. Names per chip: analyzer/profiler/README.md.
 */
#include "analyzer/readers/counts.h"

#include <math.h>
#include <string.h>

#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"
#define OPS(src) "sm__ops_path_tensor_src_" src ".sum"

static const struct rl_q_def qdefs[RL_Q_COUNT] = {
    [RL_Q_TIME_NS] = {"time_ns", true, NULL, {"gpu__time_duration.sum"}},
    [RL_Q_DADD] = {"dadd", true, NULL, {SASS("dadd")}},
    [RL_Q_DMUL] = {"dmul", true, NULL, {SASS("dmul")}},
    [RL_Q_DFMA] = {"dfma", true, NULL, {SASS("dfma")}},
    [RL_Q_FADD] = {"fadd", true, NULL, {SASS("fadd")}},
    [RL_Q_FMUL] = {"fmul", true, NULL, {SASS("fmul")}},
    [RL_Q_FFMA] = {"ffma", true, NULL, {SASS("ffma")}},
    [RL_Q_HADD] = {"hadd", true, NULL, {SASS("hadd")}},
    [RL_Q_HMUL] = {"hmul", true, NULL, {SASS("hmul")}},
    [RL_Q_HFMA] = {"hfma", true, NULL, {SASS("hfma")}},
    [RL_Q_DRAM_READ] = {"dram_read_bytes", true, NULL,
                        {"dram__bytes_read.sum", "dram__bytes_op_read.sum"}},
    [RL_Q_DRAM_WRITE] = {"dram_write_bytes", true, NULL,
                         {"dram__bytes_write.sum", "dram__bytes_op_write.sum"}},
    [RL_Q_L2_BYTES] = {"l2_bytes", true, NULL, {"lts__t_bytes.sum"}},
    [RL_Q_L1_BYTES] = {"l1_bytes", true, NULL, {"l1tex__t_bytes.sum"}},
    /* Optional, in the order the default set tries them: the LLM formats first. */
    [RL_Q_TENSOR_BF16] = {"tensor_bf16_ops", false, "bf16", {OPS("bf16_dst_fp32")}},
    [RL_Q_TENSOR_FP8] = {"tensor_fp8_ops", false, "fp8",
                         {OPS("fp8"), OPS("fp8_dst_fp32") "+" OPS("fp8_dst_fp16"),
                          OPS("fp4_fp6_fp8_dst_fp32") "+" OPS("fp4_fp6_fp8_dst_fp16")}},
    [RL_Q_TENSOR_FP16] = {"tensor_fp16_ops", false, "fp16",
                          {OPS("fp16"), OPS("fp16_dst_fp32") "+" OPS("fp16_dst_fp16")}},
    [RL_Q_TENSOR_TF32] = {"tensor_tf32_ops", false, "tf32", {OPS("tf32_dst_fp32")}},
    [RL_Q_TENSOR_INT8] = {"tensor_int8_ops", false, "int8", {OPS("int8")}},
    [RL_Q_TENSOR_FP64] = {"tensor_fp64_ops", false, "fp64-tc", {OPS("fp64")}},
    [RL_Q_TENSOR_FP4] = {"tensor_fp4_ops", false, "fp4", {OPS("fp4_dst_fp32")}},
};

const struct rl_q_def *rl_q_defs(size_t *n)
{
    *n = RL_Q_COUNT;
    return qdefs;
}

static double nz(double v) { return isnan(v) ? 0 : v; }

void rl_counts_derive(const double *q, double tensor_flops_per_op, struct rl_kernel_counts *out)
{
    memset(out, 0, sizeof *out);
    out->time_ns = q[RL_Q_TIME_NS];
    out->flops_fp64 = nz(q[RL_Q_DADD]) + nz(q[RL_Q_DMUL]) + 2 * nz(q[RL_Q_DFMA]);
    out->flops_fp32 = nz(q[RL_Q_FADD]) + nz(q[RL_Q_FMUL]) + 2 * nz(q[RL_Q_FFMA]);
    out->flops_fp16 = 2 * (nz(q[RL_Q_HADD]) + nz(q[RL_Q_HMUL]) + 2 * nz(q[RL_Q_HFMA]));
    size_t n;
    const struct rl_q_def *defs = rl_q_defs(&n);
    double best = 0;
    out->precision = NULL;
    /* Counted when any instruction counter was read: a chip may expose only
     * some of them (HFMA without FFMA or DFMA). */
    bool any = false;
    for (int i = RL_Q_DADD; i <= RL_Q_HFMA; i++)
        any |= !isnan(q[i]);
    for (size_t i = 0; i < n; i++) {
        if (!defs[i].roof || isnan(q[i]))
            continue;
        any = true;
        /* A kernel with no tensor work has 0 tensor FLOPs also when the
         * factor is unknown (NAN). */
        out->flops_tensor_by[i] = q[i] == 0 ? 0 : q[i] * tensor_flops_per_op;
        out->flops_tensor += out->flops_tensor_by[i];
        if (out->flops_tensor_by[i] > best) {
            best = out->flops_tensor_by[i];
            out->precision = defs[i].roof;
        }
    }
    const struct {
        double v;
        const char *roof;
    } cuda[] = {{out->flops_fp64, "fp64"},
                {out->flops_fp32, "fp32"},
                {out->flops_fp16, "fp16-cuda"}};
    for (size_t i = 0; i < 3; i++)
        if (cuda[i].v > best) {
            best = cuda[i].v;
            out->precision = cuda[i].roof;
        }
    out->flops = any ? out->flops_fp64 + out->flops_fp32 + out->flops_fp16 + out->flops_tensor
                     : NAN;
    out->dram_read_bytes = q[RL_Q_DRAM_READ];
    out->dram_write_bytes = q[RL_Q_DRAM_WRITE];
    out->dram_bytes = isnan(q[RL_Q_DRAM_READ]) || isnan(q[RL_Q_DRAM_WRITE])
                          ? NAN
                          : q[RL_Q_DRAM_READ] + q[RL_Q_DRAM_WRITE];
    out->l2_bytes = q[RL_Q_L2_BYTES];
    out->l1_bytes = q[RL_Q_L1_BYTES];
}

