/* SPDX-License-Identifier: BSD-3-Clause */
/* bfloat16 and float16: conversions and sums against reference values; the integer types'
 * wrapping storage; --op avg's division; the bus factors. */
#include <string.h>

#include "check.h"
#include "kernel/collective.h"
#include "kernel/dtype.h"
#include "kernel/registry.h"

static uint16_t bf(float f)
{
    return fab_f32_to_bf16(f);
}

static uint16_t hf(float f)
{
    return fab_f32_to_f16(f);
}

/* A type as the kernels see it, without MPI (fab_dtype_init needs MPI for the 16-bit ops). */
static fab_dtype_t ty(int id, int op)
{
    fab_dtype_t d = {0};

    d.id = id;
    d.size = fab_dtype_size(id);
    d.op_id = op;
    d.name = fab_dtype_name(id);
    return d;
}

static void test_integers(void)
{
    fab_dtype_t i8 = ty(FAB_DT_INT8, FAB_OP_SUM), u8 = ty(FAB_DT_UINT8, FAB_OP_SUM);
    fab_dtype_t u32 = ty(FAB_DT_UINT32, FAB_OP_SUM), i64 = ty(FAB_DT_INT64, FAB_OP_SUM);
    fab_dtype_t u64 = ty(FAB_DT_UINT64, FAB_OP_SUM), i32 = ty(FAB_DT_INT32, FAB_OP_SUM);

    CHECK(i8.size == 1 && u8.size == 1 && u32.size == 4 && i64.size == 8 && u64.size == 8);
    /* storage wraps modulo 2^bits, as the types' own arithmetic does */
    CHECK(fab_dtype_round(&i8, 127) == 127 && fab_dtype_round(&i8, 128) == -128 &&
          fab_dtype_round(&i8, -2) == -2 && fab_dtype_round(&i8, 255) == -1);
    CHECK(fab_dtype_round(&u8, -2) == 254 && fab_dtype_round(&u8, 256) == 0 &&
          fab_dtype_round(&u8, 510) == 254);
    CHECK(fab_dtype_round(&u32, -1) == 4294967295.0 &&
          fab_dtype_round(&i32, 2147483648.0) == -2147483648.0);
    CHECK(fab_dtype_round(&i64, -5) == -5 && fab_dtype_round(&u64, -1) == 18446744073709551615.0);
    CHECK(fab_dtype_integer(FAB_DT_INT8) && fab_dtype_integer(FAB_DT_UINT64) &&
          !fab_dtype_integer(FAB_DT_FLOAT32) && !fab_dtype_integer(FAB_DT_BFLOAT16));
    CHECK(fab_dtype_epsilon(&u8) == 0.0 && fab_dtype_epsilon(&i64) == 0.0);
    CHECK(strcmp(fab_op_name(FAB_OP_AVG), "avg") == 0 && strcmp(fab_op_name(9), "unknown") == 0);
}

static void test_avg(void)
{
    /* integers: C's division, toward zero */
    {
        fab_dtype_t d = ty(FAB_DT_INT32, FAB_OP_AVG);
        int32_t v[4] = {7, -7, 8, 0};

        fab_dtype_avg(&d, v, 4, 2);
        CHECK(v[0] == 3 && v[1] == -3 && v[2] == 4 && v[3] == 0);
    }
    {
        fab_dtype_t d = ty(FAB_DT_UINT8, FAB_OP_AVG);
        uint8_t v[2] = {255, 9};

        fab_dtype_avg(&d, v, 2, 4);
        CHECK(v[0] == 63 && v[1] == 2);
    }
    {
        fab_dtype_t d = ty(FAB_DT_INT64, FAB_OP_AVG);
        int64_t v[1] = {-9};

        fab_dtype_avg(&d, v, 1, 4);
        CHECK(v[0] == -2);
    }
    {
        fab_dtype_t d = ty(FAB_DT_FLOAT64, FAB_OP_AVG);
        double v[2] = {3.0, -1.0};

        fab_dtype_avg(&d, v, 2, 4);
        CHECK(v[0] == 0.75 && v[1] == -0.25);
    }
    {
        fab_dtype_t d = ty(FAB_DT_BFLOAT16, FAB_OP_AVG);
        uint16_t v[1] = {bf(6.0f)};

        fab_dtype_avg(&d, v, 1, 4);
        CHECK(fab_bf16_to_f32(v[0]) == 1.5f);
    }
    /* only avg divides; one rank divides by nothing */
    {
        fab_dtype_t d = ty(FAB_DT_FLOAT32, FAB_OP_SUM), a = ty(FAB_DT_FLOAT32, FAB_OP_AVG);
        float v[1] = {6.0f};

        fab_dtype_avg(&d, v, 1, 4);
        fab_dtype_avg(&a, v, 1, 1);
        CHECK(v[0] == 6.0f);
        fab_dtype_avg(&a, v, 1, 3);
        CHECK(v[0] == 2.0f);
    }
}

int main(void)
{
    /* bfloat16: 8 significant bits, ties to even */
    CHECK(bf(1.0f) == 0x3f80 && bf(-2.0f) == 0xc000 && bf(0.0f) == 0x0000);
    CHECK(bf(1.00390625f) == 0x3f80); /* 1 + 2^-8: halfway, even is 1.0 */
    CHECK(bf(1.01171875f) == 0x3f82); /* 1 + 3*2^-8: halfway, even is 1 + 2^-6 */
    CHECK(bf(1.0078125f) == 0x3f81);  /* 1 + 2^-7: exact */
    CHECK(bf(3.14159265f) == 0x4049); /* 3.140625 */
    CHECK(fab_bf16_to_f32(0x4049) == 3.140625f);
    CHECK(bf(3.4e38f) == 0x7f80); /* rounds past the largest finite: infinity */
    CHECK((bf(__builtin_nanf("")) & 0x7fc0) == 0x7fc0);
    /* float16: 11 significant bits, subnormals down to 2^-24 */
    CHECK(hf(1.0f) == 0x3c00 && hf(-2.0f) == 0xc000 && hf(0.5f) == 0x3800);
    CHECK(hf(65504.0f) == 0x7bff); /* largest finite */
    CHECK(hf(65520.0f) == 0x7c00); /* halfway to 65536: rounds to even = infinity */
    CHECK(hf(0.1f) == 0x2e66);
    CHECK(hf(5.9604645e-8f) == 0x0001);  /* 2^-24, smallest subnormal */
    CHECK(hf(2.9802322e-8f) == 0x0000);  /* 2^-25: halfway to 0, even is 0 */
    CHECK(hf(1.00048828125f) == 0x3c00); /* 1 + 2^-11: halfway, even */
    CHECK(hf(1.00146484375f) == 0x3c02); /* 1 + 3*2^-11: halfway, even is 1 + 2^-9 */
    CHECK(fab_f16_to_f32(0x0001) == 5.9604645e-8f);
    CHECK(fab_f16_to_f32(0x7bff) == 65504.0f);
    CHECK(fab_f16_to_f32(0x2e66) == 0.0999755859375f);
    /* every float16 survives a round trip through float32 */
    {
        int bad = 0;

        for (uint32_t h = 0; h < 0x10000; h++) {
            float f = fab_f16_to_f32((uint16_t)h);

            if (((h & 0x7c00) != 0x7c00 || (h & 0x3ff) == 0) && hf(f) != h)
                bad++;
        }
        CHECK(bad == 0);
    }
    /* sums in float32, rounded back: 256 + 1 is 256 in bfloat16 (257 is not representable),
     * 2048 + 1 is 2048 in float16; max and min */
    {
        uint16_t a[4] = {bf(256), bf(1.5f), bf(-3), bf(7)}, b[4] = {bf(1), bf(2.25f), bf(3), bf(2)};
        uint16_t x[3] = {hf(2048), hf(0.1f), hf(-1)}, y[3] = {hf(1), hf(0.2f), hf(-1)};

        fab_h16_reduce(a, b, 4, true, FAB_OP_SUM);
        CHECK(fab_bf16_to_f32(b[0]) == 256.0f && fab_bf16_to_f32(b[1]) == 3.75f &&
              fab_bf16_to_f32(b[2]) == 0.0f && fab_bf16_to_f32(b[3]) == 9.0f);
        fab_h16_reduce(x, y, 3, false, FAB_OP_SUM);
        CHECK(fab_f16_to_f32(y[0]) == 2048.0f && fab_f16_to_f32(y[2]) == -2.0f);
        CHECK(y[1] == hf(fab_f16_to_f32(hf(0.1f)) + fab_f16_to_f32(hf(0.2f))));
        b[0] = bf(5);
        fab_h16_reduce(a, b, 1, true, FAB_OP_MAX);
        CHECK(fab_bf16_to_f32(b[0]) == 256.0f);
        b[0] = bf(5);
        fab_h16_reduce(a, b, 1, true, FAB_OP_MIN);
        CHECK(fab_bf16_to_f32(b[0]) == 5.0f);
        y[2] = hf(-5);
        fab_h16_reduce(x, y, 3, false, FAB_OP_MAX);
        CHECK(fab_f16_to_f32(y[2]) == -1.0f);
        y[2] = hf(-5);
        fab_h16_reduce(x, y, 3, false, FAB_OP_MIN);
        CHECK(fab_f16_to_f32(y[2]) == -5.0f);
    }
    /* NaN: a NaN in either input makes every operation's result NaN, in both types and in
     * either argument position (a diverged gradient must not vanish in a max or min) */
    for (int op = FAB_OP_SUM; op <= FAB_OP_MIN; op++)
        for (int pos = 0; pos < 2; pos++) {
            uint16_t bn[2] = {bf(NAN), bf(1)}, fn[2] = {hf(NAN), hf(1)};
            uint16_t bo[2] = {bf(1), bf(NAN)}, fo[2] = {hf(1), hf(NAN)};

            fab_h16_reduce(pos ? bo : bn, pos ? bn : bo, 2, true, op);
            CHECK(isnan(fab_bf16_to_f32((pos ? bn : bo)[0])) &&
                  isnan(fab_bf16_to_f32((pos ? bn : bo)[1])));
            fab_h16_reduce(pos ? fo : fn, pos ? fn : fo, 2, false, op);
            CHECK(isnan(fab_f16_to_f32((pos ? fn : fo)[0])) &&
                  isnan(fab_f16_to_f32((pos ? fn : fo)[1])));
        }
    /* bus factors as nccl-tests defines them */
    CHECK_NEAR(fab_kernel_find("allreduce")->coll->bus_factor(4), 1.5, 1e-12);
    CHECK_NEAR(fab_kernel_find("allreduce")->coll->bus_factor(2), 1.0, 1e-12);
    CHECK_NEAR(fab_kernel_find("allgather")->coll->bus_factor(4), 0.75, 1e-12);
    CHECK_NEAR(fab_kernel_find("reduce_scatter")->coll->bus_factor(8), 0.875, 1e-12);
    CHECK_NEAR(fab_kernel_find("alltoall")->coll->bus_factor(2), 0.5, 1e-12);
    CHECK_NEAR(fab_kernel_find("bcast")->coll->bus_factor(16), 1.0, 1e-12);
    CHECK_NEAR(fab_kernel_find("reduce")->coll->bus_factor(3), 1.0, 1e-12);
    CHECK(fab_kernel_find("barrier")->coll->bus_factor == NULL);
    CHECK_NEAR(fab_kernel_find("gradsync")->coll->bus_factor(4), 1.5, 1e-12);
    CHECK(fab_kernel_find("latency")->coll == NULL);
    test_integers();
    test_avg();
    return fab_test_report("test_dtype");
}
