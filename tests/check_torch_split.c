/* check_torch_split.c - one operator call's cost split over its kernels (torch-split: what each kernel does) and External ids checked against the launch, on small hand-built traces whose every number is worked out in the comments. */
#define _GNU_SOURCE
#include "analyzer/readers/torch-split.h"
#include "analyzer/readers/torch.h"
#include "analyzer/util/error.h"
#include "tests/test_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write text (with ' for ") to a file and read it as a trace. */
static int read_trace(const char *text, struct rl_trace_groups *g, struct rl_torch_stats *st,
                      char *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/split.json", rl_test_tmpdir());
    FILE *o = fopen(path, "w");
    ck_assert_ptr_nonnull(o);
    for (const char *p = text; *p; p++)
        fputc(*p == '\'' ? '"' : *p, o);
    fclose(o);
    memset(g, 0, sizeof *g);
    return rl_torch_load(g, path, st, err);
}

static const struct rl_trace_group *group(const struct rl_trace_groups *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->v[i].name, name) == 0)
            return &g->v[i];
    ck_abort_msg("no group '%s'", name);
    return NULL;
}

/* FLOPs of every group (the counted ones). */
static double all_flops(const struct rl_trace_groups *g)
{
    double s = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].counted)
            s += g->v[i].flops;
    return s;
}

#define OP(name, ts, dur, args)                                                              \
    "{'ph': 'X', 'cat': 'cpu_op', 'name': '" name "', 'pid': 1, 'tid': 7, 'ts': " #ts        \
    ", 'dur': " #dur ", 'args': {" args "}},\n"
#define RT(tid, ts, args)                                                                    \
    "{'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 1, 'tid': " #tid \
    ", 'ts': " #ts ", 'dur': 2, 'args': {" args "}},\n"
#define GPU(cat, name, ts, dur, args)                                                        \
    "{'ph': 'X', 'cat': '" cat "', 'name': '" name "', 'pid': 0, 'tid': 7, 'ts': " #ts      \
    ", 'dur': " #dur ", 'args': {'device': 0" args "}},\n"

/* ---- roles by name (real names from tests/data/torch-real) ------------------ */

START_TEST(roles_by_name)
{
    static const struct {
        const char *name;
        enum rl_torch_role role;
    } t[] = {
        {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int)",
         RL_TORCH_ROLE_DGRAD},
        {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int)",
         RL_TORCH_ROLE_WGRAD},
        {"igemm_bwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x64x32_wt32x32x8_ws1x1", RL_TORCH_ROLE_DGRAD},
        {"igemm_wrw_gtcx3_nhwc_bf16_bx0_ex1_bt64x64x64_wt32x32x8_ws1x1", RL_TORCH_ROLE_WGRAD},
        {"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47Grid",
         RL_TORCH_ROLE_WGRAD},
        {"cudnn::bwd_data_kernel", RL_TORCH_ROLE_DGRAD},
        {"convolveNd_bwd_filter_kernel", RL_TORCH_ROLE_WGRAD},
        /* set-up kernels that name the wgrad they prepare */
        {"cask_cudnn::computeWgradSplitKOffsetsKernel(cask_cudnn::ComputeWgradSplitKOffsetsParams)",
         RL_TORCH_ROLE_AUX},
        {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", RL_TORCH_ROLE_AUX},
        {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(int)",
         RL_TORCH_ROLE_AUX},
        {"batched_transpose_32x32_half", RL_TORCH_ROLE_AUX},
        {"SubTensorOpWithScalar1d", RL_TORCH_ROLE_AUX},
        {"void cudnn::ops::scalePackedTensor_kernel<float, float>(long, float*, float)",
         RL_TORCH_ROLE_AUX},
        {"void cudnn::winograd::generateWinogradTilesKernel<0, float, float>(int)",
         RL_TORCH_ROLE_AUX},
        {"void splitKreduce_kernel<float, float, float, float>(cublasSplitKParams<float>)",
         RL_TORCH_ROLE_REDUCE},
        {"void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(int)", RL_TORCH_ROLE_REDUCE},
        {"void at::native::unrolled_elementwise_kernel<at::native::copy_device_to_device("
         "at::TensorIterator&, bool)>(int)",
         RL_TORCH_ROLE_COPY},
        {"void epilogue::impl::globalKernel<float, float, float, true, false, false>(int)",
         RL_TORCH_ROLE_EPILOGUE},
        /* a CUTLASS GEMM names its epilogue inside its template: a GEMM */
        {"cutlass::gemm::kernel::Gemm<cutlass::epilogue::threadblock::Epilogue<>>",
         RL_TORCH_ROLE_MAIN},
        {"volta_scudnn_128x128_stridedB_splitK_small_nn_v1", RL_TORCH_ROLE_MAIN},
        {"volta_sgemm_64x32_sliced1x4_tn", RL_TORCH_ROLE_MAIN},
        {"Memset (Device)", RL_TORCH_ROLE_MAIN}, /* a name alone: a fill says so by kind */
        /* only "void " (with its space) is passed over; no space before
         * the namespace, no epilogue */
        {"voidXepilogue::impl::globalKernel", RL_TORCH_ROLE_MAIN},
        {"EPILOGUE::impl::k", RL_TORCH_ROLE_EPILOGUE}, /* any case */
        {"epilogue:impl", RL_TORCH_ROLE_MAIN},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        ck_assert_msg(rl_torch_kernel_role(t[i].name, false) == t[i].role, "%s: %s", t[i].name,
                      rl_torch_role_name(rl_torch_kernel_role(t[i].name, false)));
    ck_assert_int_eq(rl_torch_kernel_role("Memset (Device)", true), RL_TORCH_ROLE_COPY);
    ck_assert_str_eq(rl_torch_role_name(RL_TORCH_ROLE_DGRAD), "dgrad");
    ck_assert_str_eq(rl_torch_role_name(RL_TORCH_ROLE_EPILOGUE), "epilogue");
}
END_TEST

/* ---- splits on hand-built traces -------------------------------------------- */

/* convolution_backward(grad_output [2,8,4,4], input [2,4,4,4], weight
 * [8,4,3,3], stride 1, padding 1, dilation 1, groups 1, mask [T, T, F]),
 * float. The forward: output 4x4, 2 * N 2 * 4 * 4 * Cout 8 * Cin 4 * 3 * 3
 * = 18432 FLOPs; the call asks both grads: 36864. Bytes (4 each): grad_out
 * 2*8*16 = 256 elements (1024 B), input 2*4*16 = 128 (512 B), weight
 * 8*4*9 = 288 (1152 B). grad-input reads grad_out and weight and writes
 * the input's shape: 1024 + 1152 + 512 = 2688; grad-weight reads grad_out
 * and input and writes the weight's: the same 2688.
 * Kernels: scalePackedTensor 1 us (aux), dgrad_engine 3 us, a memset of
 * 1152 bytes 1 us, computeWgradSplitKOffsets 1 us (aux), wgrad_alg0 6 us:
 * dgrad carries 18432 FLOPs in 3 us, wgrad 18432 in 6 us (before the
 * split, wgrad, the longest, carried all 36864 and dgrad nothing). The
 * parts' bytes add up to more than the call's minimum (4352: grad_out read
 * once): each kernel reads grad_out itself. */
#define CONV_BW                                                                                \
    "'Input Dims': [[2, 8, 4, 4], [2, 4, 4, 4], [8, 4, 3, 3], [], [], [], [], [], [], [], []], " \
    "'Input type': ['float', 'float', 'float', 'SymIntArrayRef', 'ScalarList', "              \
    "'ScalarList', 'ScalarList', 'Scalar', 'ScalarList', 'Scalar', 'ScalarList'], "          \
    "'Concrete Inputs': ['', '', '', '[8]', '[1, 1]', '[1, 1]', '[1, 1]', 'False', "         \
    "'[0, 0]', '1', '[True, True, False]']"

START_TEST(conv_backward_dgrad_wgrad)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::convolution_backward", 100, 50, "'External id': 3, " CONV_BW)
        GPU("kernel", "void cudnn::ops::scalePackedTensor_kernel<float, float>", 1000, 1,
            ", 'External id': 3")
        GPU("kernel", "void cudnn::detail::dgrad_engine<float, 512>", 1001, 3,
            ", 'External id': 3")
        GPU("gpu_memset", "Memset (Device)", 1004, 1, ", 'External id': 3, 'bytes': 1152")
        GPU("kernel", "cask_cudnn::computeWgradSplitKOffsetsKernel", 1005, 1,
            ", 'External id': 3")
        GPU("kernel", "void cudnn::cnn::wgrad_alg0_engine<float, 128>", 1006, 6,
            ", 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    ck_assert_double_eq(st.call_flops, 36864);
    ck_assert_uint_eq(st.split_calls, 1);
    ck_assert_uint_eq(st.one_point_calls, 0);
    ck_assert_uint_eq(st.costed, 2);     /* dgrad, wgrad */
    ck_assert_uint_eq(st.op_helpers, 3); /* the two set-up kernels and the memset */
    const struct rl_trace_group *x = group(&g, "void cudnn::detail::dgrad_engine<float, 512>");
    ck_assert_uint_eq(x->counted, 1);
    ck_assert_double_eq(x->flops, 18432);
    ck_assert_double_eq(x->bytes[0], 2688);
    x = group(&g, "void cudnn::cnn::wgrad_alg0_engine<float, 128>");
    ck_assert_double_eq(x->flops, 18432);
    ck_assert_double_eq(x->bytes[0], 2688);
    x = group(&g, "Memset (Device)");
    ck_assert_uint_eq(x->bytes_only, 1);
    ck_assert_double_eq(x->bytes_only_bytes[0], 1152); /* its own bytes, written once */
    x = group(&g, "cask_cudnn::computeWgradSplitKOffsetsKernel");
    ck_assert_uint_eq(x->counted + x->bytes_only, 0);
    ck_assert_double_eq(all_flops(&g), 36864);
    rl_trace_groups_release(&g);
}
END_TEST

/* addmm(bias [16], A [8,32], B [32,16]) float: 2 * 8 * 16 * 32 = 8192 FLOPs
 * (the bias add not counted). Bytes: A and B (256 + 512) * 4 = 3072, the
 * output 8 * 16 * 4 = 512, the bias 64.
 *   call 1 (id 3): the bias copied in (1 us), the GEMM (4 us), a split-K
 *     reduction (1 us): the copy 64 + 512 = 576, the GEMM reads A, B and
 *     the output and writes it: 3072 + 2 * 512 = 4096; the reduction none;
 *   call 2 (id 4): the GEMM (4 us) and cuBLAS's epilogue adding the bias
 *     (1 us): the GEMM 3072 + 512 = 3584, the epilogue reads the output
 *     and the bias and writes the output: 64 + 2 * 512 = 1088. */
#define ADDMM                                                                                  \
    "'Input Dims': [[16], [8, 32], [32, 16], [], []], 'Input type': ['float', 'float', "    \
    "'float', 'Scalar', 'Scalar'], 'Concrete Inputs': ['', '', '', '1', '1']"
#define COPY_K "void at::native::unrolled_elementwise_kernel<at::native::copy_device_to_device>"

START_TEST(addmm_gemm_and_bias)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::addmm", 100, 50, "'External id': 3, " ADDMM)
        OP("aten::addmm", 200, 50, "'External id': 4, " ADDMM)
        GPU("kernel", COPY_K, 1000, 1, ", 'External id': 3")
        GPU("kernel", "volta_sgemm_64x32_sliced1x4_tn", 1001, 4, ", 'External id': 3")
        GPU("kernel", "void splitKreduce_kernel<float, float, float, float>", 1005, 1,
            ", 'External id': 3")
        GPU("kernel", "sm80_gemm", 1010, 4, ", 'External id': 4")
        GPU("kernel", "void epilogue::impl::globalKernel<float, float, float, true>", 1014, 1,
            ", 'External id': 4")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    ck_assert_uint_eq(st.split_calls, 2);
    ck_assert_uint_eq(st.costed, 4);     /* the GEMMs, the copy, the epilogue */
    ck_assert_uint_eq(st.op_helpers, 1); /* the reduction */
    const struct rl_trace_group *x = group(&g, "volta_sgemm_64x32_sliced1x4_tn");
    ck_assert_double_eq(x->flops, 8192);
    ck_assert_double_eq(x->bytes[0], 4096);
    x = group(&g, COPY_K);
    ck_assert_double_eq(x->flops, 0);
    ck_assert_double_eq(x->bytes[0], 576);
    x = group(&g, "void splitKreduce_kernel<float, float, float, float>");
    ck_assert_uint_eq(x->counted + x->bytes_only, 0);
    ck_assert_double_eq_tol(x->time_ns, 1000, 1e-9);
    x = group(&g, "sm80_gemm");
    ck_assert_double_eq(x->flops, 8192);
    ck_assert_double_eq(x->bytes[0], 3584);
    x = group(&g, "void epilogue::impl::globalKernel<float, float, float, true>");
    ck_assert_double_eq(x->flops, 0);
    ck_assert_double_eq(x->bytes[0], 1088);
    ck_assert_double_eq(all_flops(&g), 2 * 8192.0);
    ck_assert_double_eq(st.call_flops, 2 * 8192.0);
    rl_trace_groups_release(&g);
}
END_TEST

/* A 1x1 convolution(input [2,4,4,4], weight [8,4,1,1]) float, stride 1,
 * padding 0: 2 * 2 * 4 * 4 * 8 * 4 = 2048 FLOPs; bytes 4 * (128 + 32 +
 * 256) = 1664. Its layout casts (nchwToNhwc 5 us, nhwcToNchw 4 us) take
 * longer than the convolution (2 us) and carry nothing: the convolution
 * carries all (before, the longest cast did). */
START_TEST(layout_casts_carry_nothing)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::convolution", 100, 50,
           "'External id': 3, 'Input Dims': [[2, 4, 4, 4], [8, 4, 1, 1], [], [], [], [], [], "
           "[], []], 'Input type': ['float', 'float', '', 'ScalarList', 'ScalarList', "
           "'ScalarList', 'Scalar', 'ScalarList', 'Scalar'], 'Concrete Inputs': ['', '', '', "
           "'[1, 1]', '[0, 0]', '[1, 1]', 'False', '[0, 0]', '1']")
        GPU("kernel", "void cudnn::ops::nchwToNhwcKernel<float>", 1000, 5, ", 'External id': 3")
        GPU("kernel", "sm80_xmma_fprop_implicit_gemm", 1005, 2, ", 'External id': 3")
        GPU("kernel", "void cudnn::ops::nhwcToNchwKernel<float>", 1007, 4, ", 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    const struct rl_trace_group *x = group(&g, "sm80_xmma_fprop_implicit_gemm");
    ck_assert_double_eq(x->flops, 2048);
    ck_assert_double_eq(x->bytes[0], 1664);
    x = group(&g, "void cudnn::ops::nchwToNhwcKernel<float>");
    ck_assert_uint_eq(x->counted + x->bytes_only, 0);
    ck_assert_uint_eq(st.split_calls, 1);
    ck_assert_uint_eq(st.op_helpers, 2);
    rl_trace_groups_release(&g);
}
END_TEST

/* Kernels that cannot be told apart: aten::mm [8,4] x [4,2] float (128
 * FLOPs, 224 bytes) in two GEMM-named kernels of 1 and 3 us. The call is
 * one point over its 4 us: 1/4 and 3/4 of each, 32 and 96 FLOPs, 56 and
 * 168 bytes - both at 32 FLOP/us and 128/224 FLOP/byte, the call's. A
 * convolution backward whose kernels say only one of its grads (a dgrad
 * and an unnamed GEMM) is one point too: 36864 over 2 + 6 us, 9216 and
 * 27648 FLOPs; the call's bytes (torchops: grad_out, input and weight read
 * once, 1024 + 512 + 1152, both grads written, 512 + 1152: 4352) 1088 and
 * 3264. And one whose only arithmetic kernel is a dgrad (2 us, beside a
 * scalePackedTensor of 2 us): its grad-weight is in no kernel named so,
 * one point, 18432 FLOPs and 2176 bytes each. */
START_TEST(one_point_when_not_told_apart)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::mm", 100, 50,
           "'External id': 3, 'Input Dims': [[8, 4], [4, 2]], 'Input type': ['float', "
           "'float']")
        OP("aten::convolution_backward", 200, 50, "'External id': 4, " CONV_BW)
        GPU("kernel", "gemm_one", 1000, 1, ", 'External id': 3")
        GPU("kernel", "gemm_two", 1001, 3, ", 'External id': 3")
        GPU("kernel", "void cudnn::detail::dgrad_engine<float, 512>", 1010, 2,
            ", 'External id': 4")
        GPU("kernel", "volta_sgemm_128x64_nt", 1012, 6, ", 'External id': 4")
        OP("aten::convolution_backward", 300, 50, "'External id': 5, " CONV_BW)
        GPU("kernel", "dgrad2", 1020, 2, ", 'External id': 5")
        GPU("kernel", "scalePackedTensor2", 1022, 2, ", 'External id': 5")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    ck_assert_uint_eq(st.one_point_calls, 3);
    ck_assert_uint_eq(st.split_calls, 0);
    ck_assert_uint_eq(st.costed, 6);
    const struct rl_trace_group *x = group(&g, "gemm_one");
    ck_assert_double_eq(x->flops, 32);
    ck_assert_double_eq(x->bytes[0], 56);
    x = group(&g, "gemm_two");
    ck_assert_double_eq(x->flops, 96);
    ck_assert_double_eq(x->bytes[0], 168);
    x = group(&g, "void cudnn::detail::dgrad_engine<float, 512>");
    ck_assert_double_eq(x->flops, 9216);
    ck_assert_double_eq(x->bytes[0], 1088);
    x = group(&g, "volta_sgemm_128x64_nt");
    ck_assert_double_eq(x->flops, 27648);
    ck_assert_double_eq(x->bytes[0], 3264);
    x = group(&g, "dgrad2");
    ck_assert_double_eq(x->flops, 18432);
    ck_assert_double_eq(x->bytes[0], 2176);
    x = group(&g, "scalePackedTensor2");
    ck_assert_double_eq(x->flops, 18432);
    ck_assert_double_eq(all_flops(&g), 128 + 2 * 36864);
    ck_assert_double_eq(st.call_flops, 128 + 2 * 36864);
    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "0 split by what each kernel does"), "%s", notes);
    ck_assert_msg(strstr(notes, "3 whose kernels cannot be told apart judged as one point"), "%s",
                  notes);
    rl_trace_groups_release(&g);
}
END_TEST

/* An aten::mm ([8, 4] x [4, 2] float: 2 x 8 x 4 x 2 = 128 FLOPs, (32 + 8
 * + 16) x 4 = 224 bytes) whose three kernels are a main one, a dgrad and
 * a wgrad by name (1, 1 and 2 us): not one kernel doing the arithmetic
 * (three candidates) and not a convolution backward, so one point split
 * by time: 1/4, 1/4, 1/2 of the FLOPs and bytes. */
START_TEST(one_point_of_mixed_roles)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::mm", 100, 50,
           "'External id': 3, 'Input Dims': [[8, 4], [4, 2]], 'Input type': ['float', "
           "'float']")
        GPU("kernel", "gemm_main", 1000, 1, ", 'External id': 3")
        GPU("kernel", "conv_dgrad_k", 1001, 1, ", 'External id': 3")
        GPU("kernel", "conv_wgrad_k", 1002, 2, ", 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    ck_assert_uint_eq(st.one_point_calls, 1);
    ck_assert_uint_eq(st.split_calls, 0);
    const struct rl_trace_group *x = group(&g, "gemm_main");
    ck_assert_double_eq(x->flops, 32);
    ck_assert_double_eq(x->bytes[0], 56);
    x = group(&g, "conv_dgrad_k");
    ck_assert_double_eq(x->flops, 32);
    ck_assert_double_eq(x->bytes[0], 56);
    x = group(&g, "conv_wgrad_k");
    ck_assert_double_eq(x->flops, 64);
    ck_assert_double_eq(x->bytes[0], 112);
    rl_trace_groups_release(&g);
}
END_TEST

/* ---- External ids that collide ---------------------------------------------- */

/* Older Kineto writes a GPU activity's own correlation id as its External
 * id; it names unrelated operator calls. On thread 7: aten::empty [100,
 * 105] (External id 2, CPU only), aten::mm [110, 160] (id 9: [8,4] x [4,2],
 * 128 FLOPs) holding aten::copy_ [150, 155] (id 10). On thread 8:
 * aten::detach [110, 160] (id 3).
 *   gemm: correlation and External id 2; its runtime call (read before it)
 *     at 120 on 7: aten::empty does not hold it: by span, aten::mm;
 *   copy_k: 3 and 3, its runtime call read after it at 152 on 7:
 *     aten::detach (thread 8) does not hold it: waits, then by span the
 *     innermost, aten::copy_;
 *   graph_a, graph_b: two kernels under one runtime call (correlation 4,
 *     at 130, read after both): External id 9 names aten::mm, which holds
 *     it: by External id;
 *   nort: External id 2, correlation 50 that no runtime call has: kept on
 *     aten::empty (nothing to check it against);
 *   rt_only: no External id, correlation 5 whose runtime call (at 140 on 7)
 *     names id 3, aten::detach on thread 8: by span, aten::mm.
 * Relinked: gemm, copy_k, rt_only. */
START_TEST(colliding_ids_relinked)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("aten::empty", 100, 5, "'External id': 2")
        OP("aten::mm", 110, 50,
           "'External id': 9, 'Input Dims': [[8, 4], [4, 2]], 'Input type': ['float', "
           "'float']")
        OP("aten::copy_", 150, 5, "'External id': 10")
        "{'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::detach', 'pid': 1, 'tid': 8, 'ts': 110, "
        "'dur': 50, 'args': {'External id': 3}},\n"
        RT(7, 120, "'correlation': 2, 'External id': 2")
        GPU("kernel", "gemm", 1000, 4, ", 'correlation': 2, 'External id': 2")
        GPU("kernel", "copy_k", 1010, 1, ", 'correlation': 3, 'External id': 3")
        GPU("kernel", "graph_a", 1020, 1, ", 'correlation': 4, 'External id': 9")
        GPU("kernel", "graph_b", 1021, 1, ", 'correlation': 4, 'External id': 9")
        GPU("kernel", "nort", 1030, 1, ", 'correlation': 50, 'External id': 2")
        GPU("kernel", "rt_only", 1040, 1, ", 'correlation': 5")
        RT(7, 152, "'correlation': 3, 'External id': 3")
        RT(7, 130, "'correlation': 4, 'External id': 9")
        RT(7, 140, "'correlation': 5, 'External id': 3")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    ck_assert_str_eq(group(&g, "gemm")->op, "aten::mm");
    ck_assert_str_eq(group(&g, "copy_k")->op, "aten::copy_");
    ck_assert_str_eq(group(&g, "graph_a")->op, "aten::mm");
    ck_assert_str_eq(group(&g, "graph_b")->op, "aten::mm");
    ck_assert_str_eq(group(&g, "nort")->op, "aten::empty");
    ck_assert_str_eq(group(&g, "rt_only")->op, "aten::mm");
    ck_assert_uint_eq(st.relinked, 3);
    ck_assert_uint_eq(st.linked_span, 3);     /* gemm, copy_k, rt_only */
    ck_assert_uint_eq(st.linked_external, 3); /* graph_a, graph_b, nort */
    ck_assert_uint_eq(st.linked_runtime, 0);
    ck_assert_uint_eq(st.unlinked, 0);
    /* aten::mm's four kernels, none told apart: one point over 4+1+1+1 us */
    ck_assert_double_eq(group(&g, "gemm")->flops, 128 * 4 / 7.0);
    char notes[4096];
    rl_torch_notes(&st, notes, sizeof notes);
    ck_assert_msg(strstr(notes, "\n3 GPU activities' External id named an operator call that did "
                                "not launch them"),
                  "%s", notes);
    rl_trace_groups_release(&g);
}
END_TEST

/* A runtime call read when nothing waits, one with no correlation, and an
 * activity whose External id names a call that holds its runtime call's
 * time but not its thread: the span test is on the thread too. The span
 * holds a launch 1 ns past its end, not 2. */
START_TEST(collision_limits)
{
    static const char text[] =
        "{'traceEvents': [\n"
        OP("opA", 100, 50, "'External id': 1")
        RT(7, 90, "'correlation': 8")
        RT(7, 91, "'External id': 1")
        RT(9, 120, "'correlation': 1, 'External id': 1")
        GPU("kernel", "other_thread", 1000, 1, ", 'correlation': 1, 'External id': 1")
        GPU("kernel", "edge", 1001, 1, ", 'correlation': 2, 'External id': 1")
        GPU("kernel", "past", 1002, 1, ", 'correlation': 3, 'External id': 1")
        RT(7, 150.0005, "'correlation': 2, 'External id': 1")
        RT(7, 150.002, "'correlation': 3, 'External id': 1")
        "]}\n";
    struct rl_trace_groups g;
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    ck_assert_msg(read_trace(text, &g, &st, err) == RL_OK, "%s", err);
    /* its runtime call is on thread 9, where no call runs: none */
    ck_assert_ptr_null(group(&g, "other_thread")->op);
    /* launched half a nanosecond past opA's end (150): held (1 ns of
     * slack); 2 ns past it: not */
    ck_assert_str_eq(group(&g, "edge")->op, "opA");
    ck_assert_ptr_null(group(&g, "past")->op);
    ck_assert_uint_eq(st.relinked, 2);
    ck_assert_uint_eq(st.unlinked, 2);
    ck_assert_uint_eq(st.linked_external, 1);
    rl_trace_groups_release(&g);
}
END_TEST

/* The parts of an operator from its arguments, and where there are none. */
static struct rl_torch_arg tensor_arg(const char *type, const struct rl_torch_tensor *t)
{
    struct rl_torch_arg a = {.kind = RL_TORCH_ARG_TENSOR, .n_tensors = 1, .t = t,
                             .concrete = ""};
    snprintf(a.type, sizeof a.type, "%s", type);
    return a;
}

START_TEST(parts_limits)
{
    const struct rl_torch_tensor bias = {1, {16}}, a = {2, {8, 32}}, b = {2, {32, 16}},
                                 v = {1, {32}};
    struct rl_torch_arg args[11] = {tensor_arg("c10::BFloat16", &bias),
                                    tensor_arg("c10::BFloat16", &a),
                                    tensor_arg("c10::BFloat16", &b)};
    struct rl_torch_op op = {.name = "aten::addmm", .n_args = 3, .args = args};
    struct rl_torch_cost c = {.known = true, .flops = 8192, .bytes = 1};
    struct rl_torch_parts p;
    /* bf16: A and B (256 + 512) * 2 = 1536, the output 8 * 16 * 2 = 256,
     * the bias 16 * 2 = 32 */
    ck_assert(rl_torch_op_parts(&op, &c, &p));
    ck_assert(p.addmm && !p.conv_backward);
    ck_assert_double_eq(p.ab_bytes, 1536);
    ck_assert_double_eq(p.out_bytes, 256);
    ck_assert_double_eq(p.bias_bytes, 32);
    /* the name without its aten:: prefix too */
    op.name = "addmm";
    ck_assert(rl_torch_op_parts(&op, &c, &p));
    /* no parts: a cost not known, a 1-d matrix, a missing argument, an
     * unknown dtype, another operator, no name */
    c.known = false;
    ck_assert(!rl_torch_op_parts(&op, &c, &p));
    ck_assert(!p.addmm);
    c.known = true;
    args[2] = tensor_arg("float", &v);
    ck_assert(!rl_torch_op_parts(&op, &c, &p));
    args[2] = tensor_arg("float", &b);
    op.n_args = 2;
    ck_assert(!rl_torch_op_parts(&op, &c, &p));
    op.n_args = 3;
    args[1] = tensor_arg("c10::Weird", &a);
    ck_assert(!rl_torch_op_parts(&op, &c, &p));
    op.name = "aten::mm";
    ck_assert(!rl_torch_op_parts(&op, &c, &p));
    op.name = NULL;
    ck_assert(!rl_torch_op_parts(&op, &c, &p));
    /* convolution_backward: one grad asked ([False, True, False]) has no
     * parts (the call is that grad); no FLOPs, none either; both asked:
     * half each */
    const struct rl_torch_tensor go = {4, {2, 8, 4, 4}}, in = {4, {2, 4, 4, 4}},
                                 w = {4, {8, 4, 3, 3}};
    struct rl_torch_arg cargs[11] = {tensor_arg("float", &go), tensor_arg("float", &in),
                                     tensor_arg("float", &w)};
    for (int i = 3; i < 11; i++)
        cargs[i] = (struct rl_torch_arg){.kind = RL_TORCH_ARG_SCALAR, .concrete = ""};
    cargs[10].concrete = "[False, True, False]";
    struct rl_torch_op cop = {.name = "aten::convolution_backward", .n_args = 11,
                              .args = cargs};
    c = (struct rl_torch_cost){.known = true, .flops = 18432, .bytes = 1};
    ck_assert(!rl_torch_op_parts(&cop, &c, &p));
    cargs[10].concrete = "[True, True, False]";
    c.flops = 0;
    ck_assert(!rl_torch_op_parts(&cop, &c, &p));
    c.flops = 36864;
    ck_assert(rl_torch_op_parts(&cop, &c, &p));
    ck_assert_double_eq(p.dgrad_flops, 18432);
    ck_assert_double_eq(p.wgrad_flops, 18432);
    ck_assert_double_eq(p.dgrad_bytes, 2688); /* check_torch_split's CONV_BW */
    ck_assert_double_eq(p.wgrad_bytes, 2688);
    cargs[10].concrete = ""; /* none given: both */
    ck_assert(rl_torch_op_parts(&cop, &c, &p));
    cop.n_args = 2;
    ck_assert(!rl_torch_op_parts(&cop, &c, &p));
}
END_TEST

static Suite *torch_split_suite(void)
{
    Suite *s = suite_create("torch_split");
    TCase *core = tcase_create("core");
    tcase_add_test(core, roles_by_name);
    tcase_add_test(core, conv_backward_dgrad_wgrad);
    tcase_add_test(core, addmm_gemm_and_bias);
    tcase_add_test(core, layout_casts_carry_nothing);
    tcase_add_test(core, one_point_when_not_told_apart);
    tcase_add_test(core, one_point_of_mixed_roles);
    tcase_add_test(core, colliding_ids_relinked);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, collision_limits);
    tcase_add_test(limits, parts_limits);
    suite_add_tcase(s, limits);
    return s;
}

int main(void)
{
    return rl_test_run(torch_split_suite());
}
