/* check_fp.c - the FP6 / FP4 element formats and their MMA operand layouts, bit-exact against hand-worked values. */
#include "test_util.h"

#include "microbench/fp.h"

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
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return rl_test_run(fp_suite()); }
