/* hash.h - the data every memory benchmark reads, computable on host and device alike. */
#ifndef RL_MB_HASH_H
#define RL_MB_HASH_H

#include <stdint.h>

#ifdef __CUDACC__
#define RL_HD __host__ __device__ __forceinline__
#else
#define RL_HD static inline
#endif

/* A 32-bit integer hash (lowbias32, C. Wellons): random-looking, never the
 * same constant, cheap on both sides. */
RL_HD uint32_t rl_mb_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Word w of the buffer filled with seed. */
RL_HD uint32_t rl_mb_word(uint64_t w, uint32_t seed)
{
    return rl_mb_hash((uint32_t)w * 0x9E3779B9U ^ seed ^ (uint32_t)(w >> 32));
}

/* A cheaper word for kernels that must not spend their time hashing. */
RL_HD uint32_t rl_mb_cheap_word(uint32_t w, uint32_t seed)
{
    return w * 0x9E3779B9U + seed;
}

/* A float in [0.5, 1) from a word: full mantissa, never zero. */
RL_HD float rl_mb_unit_float(uint32_t h)
{
    return 0.5f + (float)(h >> 8) * (1.0f / 33554432.0f); /* 2^-25 */
}

#endif
