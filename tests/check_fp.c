/* check_fp.c - the FP6 / FP4 element formats and the MMA operand buffers built from them, bit-exact against hand-worked values. */
#include "test_util.h"

#include "microbench/bench.h"
#include "microbench/fp.h"
#include "microbench/verify.h"

#include <math.h>
#include <string.h>

typedef uint8_t (*enc_fn)(double);
typedef double (*dec_fn)(uint8_t);

/* Every code decodes to a finite value that encodes back to itself (the
 * one exception: -0 encodes as -0, so all codes round-trip). */
static void round_trips(enc_fn enc, dec_fn dec, int bits)
{
    for (unsigned v = 0; v < 1u << bits; v++) {
        double d = dec((uint8_t)v);
        ck_assert_msg(isfinite(d), "code %#x is not finite", v);
        ck_assert_msg(enc(d) == v, "code %#x -> %g -> %#x", v, d, enc(d));
    }
}

START_TEST(every_code_round_trips)
{
    round_trips(rl_e2m3_from_double, rl_e2m3_to_double, 6);
    round_trips(rl_e3m2_from_double, rl_e3m2_to_double, 6);
    round_trips(rl_e2m1_from_double, rl_e2m1_to_double, 4);
}
END_TEST

START_TEST(e2m1_values)
{
    /* OCP MX v1.0 table: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives. */
    static const double want[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (int v = 0; v < 8; v++) {
        ck_assert_double_eq(rl_e2m1_to_double((uint8_t)v), want[v]);
        ck_assert_double_eq(rl_e2m1_to_double((uint8_t)(v | 8)), -want[v]);
    }
    ck_assert_uint_eq(rl_e2m1_from_double(6), 0x7);   /* largest finite */
    ck_assert_uint_eq(rl_e2m1_from_double(1e9), 0x7); /* saturates */
    ck_assert_uint_eq(rl_e2m1_from_double(-7), 0xF);
    ck_assert_uint_eq(rl_e2m1_from_double(0.5), 0x1); /* the one subnormal */
    /* ties to even: 0.25 between 0 and 0.5 -> 0; 0.75 -> 1.0; 2.5 -> 2;
     * 3.5 -> 4; 5 between 4 (0b110) and 6 (0b111) -> 4 */
    ck_assert_uint_eq(rl_e2m1_from_double(0.25), 0x0);
    ck_assert_uint_eq(rl_e2m1_from_double(-0.25), 0x8);
    ck_assert_uint_eq(rl_e2m1_from_double(0.75), 0x2);
    ck_assert_uint_eq(rl_e2m1_from_double(1.25), 0x2);
    ck_assert_uint_eq(rl_e2m1_from_double(1.75), 0x4);
    ck_assert_uint_eq(rl_e2m1_from_double(2.5), 0x4);
    ck_assert_uint_eq(rl_e2m1_from_double(3.5), 0x6);
    ck_assert_uint_eq(rl_e2m1_from_double(5), 0x6);
    ck_assert_uint_eq(rl_e2m1_from_double(5.01), 0x7);
    ck_assert_uint_eq(rl_e2m1_from_double(NAN), 0x0);
    ck_assert_double_eq(rl_e2m1_to_double(0xF7), 6); /* bits above 4 ignored */
}
END_TEST

START_TEST(e2m3_values)
{
    /* bias 1: 0 11 111 = 1.875 x 2^2 = 7.5; subnormals k/8 */
    ck_assert_double_eq(rl_e2m3_to_double(0x1F), 7.5);
    ck_assert_double_eq(rl_e2m3_to_double(0x3F), -7.5);
    ck_assert_double_eq(rl_e2m3_to_double(0x01), 0.125);
    ck_assert_double_eq(rl_e2m3_to_double(0x07), 0.875);
    ck_assert_double_eq(rl_e2m3_to_double(0x08), 1.0);
    ck_assert_double_eq(rl_e2m3_to_double(0x0D), 1.625);
    ck_assert_uint_eq(rl_e2m3_from_double(7.5), 0x1F);
    ck_assert_uint_eq(rl_e2m3_from_double(100), 0x1F);
    ck_assert_uint_eq(rl_e2m3_from_double(-100), 0x3F);
    ck_assert_uint_eq(rl_e2m3_from_double(0.0625), 0x00);  /* tie 0 / 0.125 -> 0 */
    ck_assert_uint_eq(rl_e2m3_from_double(0.1875), 0x02);  /* tie 0.125 / 0.25 -> 0.25 */
    ck_assert_uint_eq(rl_e2m3_from_double(1.0625), 0x08);  /* tie 1 / 1.125 -> 1 */
    ck_assert_uint_eq(rl_e2m3_from_double(1.1875), 0x0A);  /* tie 1.125 / 1.25 -> 1.25 */
    ck_assert_uint_eq(rl_e2m3_from_double(-0.3), 0x22);    /* -0.25 */
}
END_TEST

START_TEST(e3m2_values)
{
    /* bias 3: 0 111 11 = 1.75 x 2^4 = 28; subnormals k/16 */
    ck_assert_double_eq(rl_e3m2_to_double(0x1F), 28);
    ck_assert_double_eq(rl_e3m2_to_double(0x01), 0.0625);
    ck_assert_double_eq(rl_e3m2_to_double(0x03), 0.1875);
    ck_assert_double_eq(rl_e3m2_to_double(0x04), 0.25); /* smallest normal */
    ck_assert_double_eq(rl_e3m2_to_double(0x0C), 1.0);
    ck_assert_double_eq(rl_e3m2_to_double(0x2C), -1.0);
    ck_assert_uint_eq(rl_e3m2_from_double(28), 0x1F);
    ck_assert_uint_eq(rl_e3m2_from_double(30), 0x1F); /* 30 rounds to 32: saturate */
    ck_assert_uint_eq(rl_e3m2_from_double(26), 0x1E); /* tie 24 / 28 -> 24 (even) */
    ck_assert_uint_eq(rl_e3m2_from_double(0.03125), 0x00); /* tie 0 / 1/16 */
    ck_assert_uint_eq(rl_e3m2_from_double(0.09375), 0x02); /* tie 1/16 / 2/16 */
    ck_assert_uint_eq(rl_e3m2_from_double(1.125), 0x0C);   /* tie 1 / 1.25 -> 1 */
    ck_assert_uint_eq(rl_e3m2_from_double(1.375), 0x0E);   /* tie 1.25 / 1.5 -> 1.5 */
}
END_TEST

START_TEST(scale_factor_formats)
{
    ck_assert_double_eq(rl_ue8m0_to_double(127), 1.0);
    ck_assert_double_eq(rl_ue8m0_to_double(128), 2.0);
    ck_assert_double_eq(rl_ue8m0_to_double(0), ldexp(1, -127));
    ck_assert(isnan(rl_ue8m0_to_double(0xFF)));
    ck_assert_double_eq(rl_ue4m3_to_double(0x38), 1.0);
    ck_assert_double_eq(rl_ue4m3_to_double(0x7E), 448);
    ck_assert_double_eq(rl_ue4m3_to_double(0x01), ldexp(1, -9));
    ck_assert(isnan(rl_ue4m3_to_double(0x7F)));
}
END_TEST

START_TEST(register_containers)
{
    /* mma.sync kind::f8f6f4: E2M1 in bits 5-2, FP6 in bits 5-0. */
    ck_assert_uint_eq(rl_fp4_reg_container(0x7), 0x1C);
    ck_assert_uint_eq(rl_fp4_reg_container(0xF), 0x3C);
    ck_assert_uint_eq(rl_fp4_reg_container(0x1), 0x04);
    ck_assert_uint_eq(rl_fp6_reg_container(0x3F), 0x3F);
    ck_assert_uint_eq(rl_fp6_reg_container(0xFF), 0x3F);
}
END_TEST

START_TEST(shared_memory_chunks)
{
    uint8_t e[16], c[16];
    for (int i = 0; i < 16; i++)
        e[i] = (uint8_t)i;
    /* FP4: two per byte, element 2j in the low nibble; bytes 8-15 padding. */
    rl_fp4_smem_chunk(e, c);
    ck_assert_uint_eq(c[0], 0x10);
    ck_assert_uint_eq(c[1], 0x32);
    ck_assert_uint_eq(c[7], 0xFE);
    for (int i = 8; i < 16; i++)
        ck_assert_uint_eq(c[i], 0);
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(rl_fp4_smem_element(c, i), (unsigned)i);
    /* FP6: four elements per 3 bytes, 96 bits, bytes 12-15 padding.
     * Elements 0..3 = 0, 1, 2, 3: bits 0-5 = 0, 6-11 = 1, 12-17 = 2,
     * 18-23 = 3 -> bytes 0x40, 0x20, 0x0C. */
    for (int i = 0; i < 16; i++)
        e[i] = (uint8_t)(i * 4 + (i & 3));
    rl_fp6_smem_chunk(e, c);
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(rl_fp6_smem_element(c, i), e[i]);
    for (int i = 12; i < 16; i++)
        ck_assert_uint_eq(c[i], 0);
    uint8_t f[16] = {0, 1, 2, 3};
    rl_fp6_smem_chunk(f, c);
    ck_assert_uint_eq(c[0], 0x40);
    ck_assert_uint_eq(c[1], 0x20);
    ck_assert_uint_eq(c[2], 0x0C);
    memset(f, 0x3F, sizeof f);
    rl_fp6_smem_chunk(f, c);
    for (int i = 0; i < 12; i++)
        ck_assert_uint_eq(c[i], 0xFF);
}
END_TEST

/* ---- the operand buffers runner.c uploads ---- */

struct ms {
    double sum[2];
    size_t n[2];
};

static void add(struct ms *m, int b, double x)
{
    m->sum[b] += x * x;
    m->n[b]++;
}

static void same_ms(const struct ms *m, double a_ms, double b_ms)
{
    ck_assert_uint_gt(m->n[0], 0);
    ck_assert_uint_gt(m->n[1], 0);
    ck_assert_double_eq_tol(m->sum[0] / (double)m->n[0], a_ms, 1e-12);
    ck_assert_double_eq_tol(m->sum[1] / (double)m->n[1], b_ms, 1e-12);
    ck_assert(a_ms > 0.05 && a_ms < 1);
    ck_assert(b_ms > 0.05 && b_ms < 1);
}

static const struct rl_mb_variant *variant(const char *name, int major, int minor)
{
    const struct rl_mb_variant *v = rl_mb_select(rl_mb_find(name), major, minor, NULL);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_le(v->in_bytes, 16384);
    return v;
}

/* tcgen05 kind::f8f6f4 FP4 / FP6: 16-element chunks, padding all ones. */
START_TEST(tcgen05_subbyte_tiles_are_padded_chunks)
{
    static const char *const names[] = {"fp4-e2m1", "fp6-e2m3", "fp6-e3m2", "mxfp6"};
    for (int k = 0; k < 4; k++) {
        const struct rl_mb_variant *v = variant(names[k], 10, 0);
        unsigned char in[16384];
        double a_ms, b_ms;
        rl_mb_fill_operands(v, in, &a_ms, &b_ms);
        int fp4 = k == 0;
        double (*dec)(uint8_t) = fp4 ? rl_e2m1_to_double
                                 : k == 2 ? rl_e3m2_to_double : rl_e2m3_to_double;
        struct ms m = {{0, 0}, {0, 0}};
        ck_assert_int_eq(v->a_bytes % 16, 0);
        for (int c = 0; c < v->in_bytes; c += 16) {
            for (int b = fp4 ? 8 : 12; b < 16; b++)
                ck_assert_uint_eq(in[c + b], 0xFF);
            for (int i = 0; i < 16; i++)
                add(&m, c >= v->a_bytes,
                    dec(fp4 ? rl_fp4_smem_element(in + c, i) : rl_fp6_smem_element(in + c, i)));
        }
        same_ms(&m, a_ms, b_ms);
    }
}
END_TEST

/* mma.sync kind::f8f6f4 FP4 / FP6: one element per byte, padding zero;
 * per lane 16 bytes of A (4 registers) then 8 of B. */
START_TEST(mma_sync_subbyte_fragments_are_byte_containers)
{
    static const char *const names[] = {"fp4-e2m1", "fp6-e2m3", "fp6-e3m2", "mxfp6"};
    for (int k = 0; k < 4; k++) {
        const struct rl_mb_variant *v = variant(names[k], 12, 0);
        unsigned char in[16384];
        double a_ms, b_ms;
        rl_mb_fill_operands(v, in, &a_ms, &b_ms);
        struct ms m = {{0, 0}, {0, 0}};
        for (int i = 0; i < v->in_bytes; i++) {
            int is_b = i % 24 >= 16;
            if (k == 0) {
                ck_assert_uint_eq(in[i] & 0xC3, 0); /* E2M1 in bits 5-2 */
                add(&m, is_b, rl_e2m1_to_double((uint8_t)(in[i] >> 2)));
            } else {
                ck_assert_uint_eq(in[i] & 0xC0, 0); /* FP6 in bits 5-0 */
                add(&m, is_b, k == 2 ? rl_e3m2_to_double(in[i]) : rl_e2m3_to_double(in[i]));
            }
        }
        same_ms(&m, a_ms, b_ms);
    }
}
END_TEST

/* kind::mxf4 / mxf4nvf4: two E2M1 per byte, no padding, in shared memory
 * (tcgen05) and registers (mma.sync) alike; MXFP8: E4M3 bytes. */
START_TEST(block_scaled_operands)
{
    static const char *const names[] = {"nvfp4", "mxfp4", "mxfp8"};
    static const int cc[][2] = {{10, 0}, {12, 0}};
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 2; a++) {
            const struct rl_mb_variant *v = variant(names[k], cc[a][0], cc[a][1]);
            unsigned char in[16384];
            double a_ms, b_ms;
            rl_mb_fill_operands(v, in, &a_ms, &b_ms);
            struct ms m = {{0, 0}, {0, 0}};
            for (int i = 0; i < v->in_bytes; i++) {
                int is_b = v->a_bytes ? i >= v->a_bytes : i % 24 >= 16;
                if (k == 2) {
                    add(&m, is_b, rl_e4m3_to_double(in[i]));
                } else {
                    add(&m, is_b, rl_e2m1_to_double(in[i] & 0xF));
                    add(&m, is_b, rl_e2m1_to_double(in[i] >> 4));
                }
            }
            same_ms(&m, a_ms, b_ms);
            ck_assert(rl_mb_narrow_inputs(v));
        }
}
END_TEST

static Suite *fp_suite(void)
{
    Suite *s = suite_create("fp");
    TCase *core = tcase_create("core");
    tcase_add_test(core, every_code_round_trips);
    tcase_add_test(core, e2m1_values);
    tcase_add_test(core, e2m3_values);
    tcase_add_test(core, e3m2_values);
    tcase_add_test(core, scale_factor_formats);
    tcase_add_test(core, register_containers);
    tcase_add_test(core, shared_memory_chunks);
    tcase_add_test(core, tcgen05_subbyte_tiles_are_padded_chunks);
    tcase_add_test(core, mma_sync_subbyte_fragments_are_byte_containers);
    tcase_add_test(core, block_scaled_operands);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(fp_suite()); }
