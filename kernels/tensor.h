/* tensor.h - typed device buffers filled with reproducible data, read back as doubles for checks. */
#ifndef RL_TENSOR_H
#define RL_TENSOR_H

#include "kernels/workloads.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rl_tensor {
    void *d;               /* device memory */
    enum rl_dtype t;
    size_t n;              /* elements */
};

/* Allocation and filling */

int rl_tensor_alloc(struct rl_tensor *x, enum rl_dtype t, size_t n, char *errmsg);
void rl_tensor_free(struct rl_tensor *x);

/* Fill with (u x 4 - 3) x scale, u in [0.5, 1) from rl_mb_word(i, seed),
 * rounded to the type (INT8: -7..7). Never all zeros. */
int rl_tensor_fill(struct rl_tensor *x, uint32_t seed, float scale, cudaStream_t s,
                   char *errmsg);

/* Reading back */

/* Copy elements [i, i + count) with the given stride (in elements) to the
 * host as doubles. */
int rl_tensor_read(const struct rl_tensor *x, size_t i, size_t count, size_t stride,
                   double *out, char *errmsg);

/* One element's value from its bytes. */
double rl_dtype_decode(enum rl_dtype t, const void *p);

/* Checks */

/* |got - want| / scale within tol for every i; scale is the root-sum-square
 * of the terms that made want (or 1 when NULL). Returns 0 or -1 with the
 * worst index in why (160 bytes). */
int rl_check_close(const char *what, const double *got, const double *want,
                   const double *scale, size_t n, double tol, double *worst, char *why);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* Run the statement (the variadic part: it may hold commas) with T bound to
 * the storage type of the float tensor type t: float, __half or
 * __nv_bfloat16. Any other type makes the enclosing function return
 * RL_EINVAL with errmsg naming `what`. */
#define RL_FLOAT_DISPATCH(t, errmsg, what, ...)                                             \
    switch (t) {                                                                            \
    case RL_DT_F32: {                                                                       \
        typedef float T;                                                                    \
        __VA_ARGS__;                                                                        \
        break;                                                                              \
    }                                                                                       \
    case RL_DT_F16: {                                                                       \
        typedef __half T;                                                                   \
        __VA_ARGS__;                                                                        \
        break;                                                                              \
    }                                                                                       \
    case RL_DT_BF16: {                                                                      \
        typedef __nv_bfloat16 T;                                                            \
        __VA_ARGS__;                                                                        \
        break;                                                                              \
    }                                                                                       \
    default:                                                                                \
        return rl_fail(errmsg, RL_EINVAL, "%s: type %s not supported", what,                \
                       rl_dtype_name(t));                                                   \
    }
#endif

#endif
