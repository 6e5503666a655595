/* Helpers the kernels share: data patterns for --validate and the windowed one-way exchange. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fab.h"

#define FAB_ACK_BYTES 4

/* Byte i of the pattern for `seed`: a multiplicative hash of the 32-bit word index and the
 * seed, so every word differs and two seeds differ almost everywhere. */
static inline uint8_t fab_pattern_byte(size_t i, uint32_t seed)
{
    uint32_t v = ((uint32_t)(i >> 2) + seed) * 0x9E3779B1u;

    return (uint8_t)(v >> ((i & 3) * 8));
}

void fab_pattern_fill(void *buf, size_t bytes, uint32_t seed)
{
    uint8_t *p = buf;

    for (size_t i = 0; i < bytes; i++)
        p[i] = fab_pattern_byte(i, seed);
}

/* A test-only switch from the environment (NAME=1), read once into *cache. */
static int fab_test_switch(const char *name, int *cache)
{
    if (*cache < 0) {
        const char *e = getenv(name);
        *cache = e && strcmp(e, "1") == 0;
    }
    return *cache;
}

/* FABRICBENCH_TEST_CORRUPT=1 makes every check find one bad byte: the test suite uses it to
 * prove that a validation failure reaches the table and the exit code. */
static int fab_corrupt_for_tests(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_CORRUPT", &cached);
}

long fab_pattern_check(const void *buf, size_t bytes, uint32_t seed)
{
    const uint8_t *p = buf;
    long bad = fab_corrupt_for_tests();

    for (size_t i = 0; i < bytes; i++)
        bad += p[i] != fab_pattern_byte(i, seed);
    return bad;
}

uint32_t fab_pattern_seed(uint32_t round_seed, int from, int msg)
{
    return round_seed * 31u + (uint32_t)from * 65599u + (uint32_t)msg * 977u + 1u;
}

fab_status_t fab_window_iterate(fab_kctx_t *ctx, size_t bytes, int peer, bool sender)
{
    int w = ctx->window, n = (int)bytes;
    fab_status_t st = FAB_OK;

    for (int j = 0; j < w && st == FAB_OK; j++)
        st = sender ? FAB_MPI(MPI_Isend(ctx->sbuf, n, MPI_CHAR, peer, ctx->tag, ctx->comm,
                                        &ctx->reqs[j]))
                    : FAB_MPI(MPI_Irecv(ctx->rbuf, n, MPI_CHAR, peer, ctx->tag, ctx->comm,
                                        &ctx->reqs[j]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Waitall(w, ctx->reqs, MPI_STATUSES_IGNORE));
    if (st != FAB_OK)
        return st;
    if (sender)
        return FAB_MPI(MPI_Recv(ctx->rbuf, FAB_ACK_BYTES, MPI_CHAR, peer, ctx->tag + 1, ctx->comm,
                                MPI_STATUS_IGNORE));
    return FAB_MPI(MPI_Send(ctx->sbuf, FAB_ACK_BYTES, MPI_CHAR, peer, ctx->tag + 1, ctx->comm));
}

fab_status_t fab_window_validate(fab_kctx_t *ctx, size_t bytes, int peer, bool sender,
                                 uint32_t seed, long *errors)
{
    int w = ctx->slots, n = (int)bytes;
    int from = sender ? ctx->rank : peer;
    fab_status_t st = FAB_OK;

    for (int j = 0; j < w && st == FAB_OK; j++) {
        if (sender) {
            fab_pattern_fill(fab_sbuf(ctx, j), bytes, fab_pattern_seed(seed, from, j));
            st = FAB_MPI(MPI_Isend(fab_sbuf(ctx, j), n, MPI_CHAR, peer, ctx->tag + 2, ctx->comm,
                                   &ctx->reqs[j]));
        } else {
            memset(fab_rbuf(ctx, j), 0, bytes);
            st = FAB_MPI(MPI_Irecv(fab_rbuf(ctx, j), n, MPI_CHAR, peer, ctx->tag + 2, ctx->comm,
                                   &ctx->reqs[j]));
        }
    }
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Waitall(w, ctx->reqs, MPI_STATUSES_IGNORE));
    for (int j = 0; j < w && st == FAB_OK && !sender; j++)
        *errors += fab_pattern_check(fab_rbuf(ctx, j), bytes, fab_pattern_seed(seed, from, j));
    return st;
}

/* ------------------------------------------------------------------ collectives */

double fab_coll_value(int rank, size_t i, uint32_t seed)
{
    return (double)((int64_t)(((uint64_t)rank * 3 + i + seed) % 5)) - 2.0;
}

void fab_coll_fill(const fab_kctx_t *ctx, void *buf, size_t count, int rank, size_t first,
                   uint32_t seed)
{
    for (size_t j = 0; j < count; j++)
        fab_dtype_set(&ctx->dtype, buf, j, fab_coll_value(rank, first + j, seed));
}

static double fab_coll_expect(const fab_kctx_t *ctx, size_t i, int from, uint32_t seed)
{
    double r;

    if (from >= 0)
        return fab_coll_value(from, i, seed);
    r = fab_coll_value(0, i, seed);
    for (int k = 1; k < ctx->size; k++) {
        double v = fab_coll_value(k, i, seed);

        r = ctx->dtype.op_id == FAB_OP_SUM   ? r + v
            : ctx->dtype.op_id == FAB_OP_MAX ? (v > r ? v : r)
                                             : (v < r ? v : r);
    }
    return r;
}

long fab_coll_check(const fab_kctx_t *ctx, const void *buf, size_t count, size_t first, int from,
                    uint32_t seed, const char *what)
{
    double eps = fab_dtype_epsilon(&ctx->dtype) * ctx->size;
    long bad = fab_corrupt_for_tests();

    for (size_t j = 0; j < count; j++) {
        double want = fab_coll_expect(ctx, first + j, from, seed);
        double got = fab_dtype_get(&ctx->dtype, buf, j);
        double tol = eps * (fabs(want) > 1.0 ? fabs(want) : 1.0);

        if (!(fabs(got - want) <= tol)) {
            if (bad == fab_corrupt_for_tests())
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

void fab_buckets(size_t total, size_t bucket, size_t elem, size_t *n, size_t *last)
{
    size_t b = bucket / elem * elem;

    if (b == 0)
        b = elem;
    *n = total == 0 ? 0 : (total + b - 1) / b;
    *last = total == 0 ? 0 : total - (*n - 1) * b;
}

/* FABRICBENCH_TEST_NB_CORRUPT=1 damages what every non-blocking collective delivered (the
 * top byte of the first element of both buffers), so the tests can prove that --validate
 * checks the non-blocking calls themselves. */
static int fab_nb_corrupt_for_tests(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_NB_CORRUPT", &cached);
}

fab_status_t fab_coll_finish(fab_kctx_t *ctx, MPI_Request *req)
{
    fab_status_t st;

    if (ctx->compute_s > 0) {
        /* Compute without calling MPI: what overlaps is what the library progresses alone. */
        uint64_t t0 = fab_ticks();

        while (fab_ticks_to_s(fab_ticks() - t0) < ctx->compute_s)
            ;
    }
    st = FAB_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (st == FAB_OK && fab_nb_corrupt_for_tests()) {
        ctx->sbuf[ctx->dtype.size - 1] ^= 0x40;
        ctx->rbuf[ctx->dtype.size - 1] ^= 0x40;
    }
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
