/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers the collective kernels share: validation values and checks, the non-blocking
 * finish, bus factors and size fitting. */
#include <math.h>
#include <time.h>

#include "core/testhook.h"
#include "core/timing.h"
#include "kernel/collective.h"
#include "kernel/descriptor.h"
#include "kernel/patterns.h"

double fab_coll_value(int rank, size_t i, uint32_t seed)
{
    return (double)((int64_t)(((uint64_t)rank * 3 + i + seed) % 5)) - 2.0;
}

/* Rank's element i as the type holds it. MPI leaves an overflowing integer reduction
 * undefined (Open MPI 4.1's op/avx saturates an unsigned 8-bit sum, C would wrap), so the
 * integer types get values whose reduction stays in range at any scale: unsigned ones 0 to 4;
 * a product of +-1 (signed) or 0 and 1 (unsigned); a 1-byte sum or avg from one rank per
 * element (rank i % ranks), the others 0. */
static double fab_coll_elem(const fab_kctx_t *ctx, int rank, size_t i, uint32_t seed)
{
    const fab_dtype_t *dt = &ctx->dtype;
    double v = fab_coll_value(rank, i, seed);
    bool uns = dt->id == FAB_DT_UINT8 || dt->id == FAB_DT_UINT32 || dt->id == FAB_DT_UINT64;

    if (!fab_dtype_integer(dt->id))
        return v;
    if (dt->op_id == FAB_OP_PROD) {
        bool odd = ((int)v + 2) % 2 != 0;

        return uns ? (odd ? 1.0 : 0.0) : (odd ? -1.0 : 1.0);
    }
    if (dt->size == 1 && (dt->op_id == FAB_OP_SUM || dt->op_id == FAB_OP_AVG) && ctx->size > 0 &&
        (size_t)rank != i % (size_t)ctx->size)
        return 0.0;
    return uns ? v + 2.0 : v;
}

void fab_coll_fill(const fab_kctx_t *ctx, void *buf, size_t count, int rank, size_t first,
                   uint32_t seed)
{
    for (size_t j = 0; j < count; j++)
        fab_dtype_set(&ctx->dtype, buf, j, fab_coll_elem(ctx, rank, first + j, seed));
}

static double fab_coll_expect(const fab_kctx_t *ctx, size_t i, int from, uint32_t seed)
{
    const fab_dtype_t *dt = &ctx->dtype;
    bool exact = fab_dtype_integer(dt->id); /* integers: in the type's own, wrapping arithmetic */
    double r;

    if (from >= 0)
        return fab_dtype_round(dt, fab_coll_elem(ctx, from, i, seed));
    r = fab_dtype_round(dt, fab_coll_elem(ctx, 0, i, seed));
    for (int k = 1; k < ctx->size; k++) {
        double v = fab_dtype_round(dt, fab_coll_elem(ctx, k, i, seed));

        r = dt->op_id == FAB_OP_SUM || dt->op_id == FAB_OP_AVG ? r + v
            : dt->op_id == FAB_OP_PROD                         ? r * v
            : dt->op_id == FAB_OP_MAX                          ? (v > r ? v : r)
                                                               : (v < r ? v : r);
        if (exact)
            r = fab_dtype_round(dt, r);
    }
    if (dt->op_id == FAB_OP_AVG) /* integers: C's division, toward zero */
        r = exact ? fab_dtype_round(dt, trunc(r / ctx->size)) : r / ctx->size;
    return r;
}

void fab_coll_avg(const fab_kctx_t *ctx, void *buf, size_t count)
{
    fab_dtype_avg(&ctx->dtype, buf, count, ctx->size);
}

long fab_coll_check(const fab_kctx_t *ctx, const void *buf, size_t count, size_t first, int from,
                    uint32_t seed, const char *what)
{
    double eps = fab_dtype_epsilon(&ctx->dtype) * ctx->size;
    long bad = fab_pattern_corrupt_for_tests();

    for (size_t j = 0; j < count; j++) {
        double want = fab_coll_expect(ctx, first + j, from, seed);
        double got = fab_dtype_get(&ctx->dtype, buf, j);
        double tol = eps * (fabs(want) > 1.0 ? fabs(want) : 1.0);

        if (!(fabs(got - want) <= tol)) {
            if (bad == fab_pattern_corrupt_for_tests())
                FAB_ERROR("%s (%s): element %zu is %g, expected %g%s", what, ctx->dtype.name,
                          first + j, got, want, bad ? "" : " (first mismatch on this rank)");
            bad++;
        }
    }
    return bad;
}

size_t fab_coll_fit(const fab_kctx_t *ctx, size_t bytes, size_t unit)
{
    size_t b = ctx->dtype.size * unit;

    return bytes < b ? b : bytes / b * b;
}

/* FABRICBENCH_TEST_NB_CORRUPT=1 damages what every non-blocking collective delivered (the
 * top byte of the first element of both buffers), so the tests can prove that --validate
 * checks the non-blocking calls themselves. */
static int fab_nb_corrupt_for_tests(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_NB_CORRUPT", &cached);
}

/* FABRICBENCH_TEST_LAG=1: the kernel's last rank sleeps FAB_TEST_LAG_S after each
 * non-blocking collective has completed, inside its iteration, so that the tests know where
 * the time goes: back to back, every rank's next call waits for it; with --sync barrier, the
 * barrier does (the others' own times stay short, the peers' t_min and t_max part). */
#define FAB_TEST_LAG_S 0.02
static void fab_lag_for_tests(const fab_kctx_t *ctx)
{
    static int cached = -1;
    struct timespec ts = {0, (long)(FAB_TEST_LAG_S * 1e9)};

    if (fab_test_switch("FABRICBENCH_TEST_LAG", &cached) && ctx->rank == ctx->size - 1)
        nanosleep(&ts, NULL);
}

void fab_coll_compute(double s)
{
    uint64_t t0 = fab_ticks();

    while (s > 0 && fab_ticks_to_s(fab_ticks() - t0) < s)
        ;
}

fab_status_t fab_coll_finish(fab_kctx_t *ctx, MPI_Request *req)
{
    fab_status_t st;

    /* Compute without calling MPI: what overlaps is what the library progresses alone. */
    fab_coll_compute(ctx->compute_s);
    st = FAB_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (st == FAB_OK && fab_nb_corrupt_for_tests()) {
        ctx->sbuf[ctx->dtype.size - 1] ^= 0x40;
        ctx->rbuf[ctx->dtype.size - 1] ^= 0x40;
    }
    if (st == FAB_OK)
        fab_lag_for_tests(ctx);
    return st;
}

double fab_bus_allreduce(int n)
{
    return 2.0 * (n - 1) / n;
}

double fab_bus_ring(int n)
{
    return (double)(n - 1) / n;
}

double fab_bus_one(int n)
{
    (void)n;
    return 1.0;
}

size_t fab_fit_elements(const fab_kctx_t *ctx, size_t bytes)
{
    return fab_coll_fit(ctx, bytes, 1);
}

size_t fab_fit_blocks(const fab_kctx_t *ctx, size_t bytes)
{
    return fab_coll_fit(ctx, bytes, (size_t)ctx->size);
}
