/* SPDX-License-Identifier: BSD-3-Clause */
/* bfloat16 and float16: conversions and sums against reference values; the bus factors. */
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
    return fab_test_report("test_dtype");
}
