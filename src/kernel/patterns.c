/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers the point-to-point kernels share: data patterns for --validate and the windowed
 * one-way exchange. */
#include <string.h>

#include "core/testhook.h"
#include "kernel/descriptor.h"
#include "kernel/kbuf.h"
#include "kernel/patterns.h"

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

/* FABRICBENCH_TEST_CORRUPT=1 makes every check find one bad byte: the test suite uses it to
 * prove that a validation failure reaches the table and the exit code. */
long fab_pattern_corrupt_for_tests(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_CORRUPT", &cached);
}

long fab_pattern_check(const void *buf, size_t bytes, uint32_t seed)
{
    const uint8_t *p = buf;
    long bad = fab_pattern_corrupt_for_tests();

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

fab_status_t fab_window_shift(fab_kctx_t *ctx, size_t bytes, int to, int from)
{
    int w = ctx->window, n = (int)bytes;
    fab_status_t st = FAB_OK;

    /* reqs holds 2 x window: the receives first, so that no send waits for its match */
    for (int j = 0; j < w && st == FAB_OK; j++)
        st = FAB_MPI(MPI_Irecv(ctx->rbuf, n, MPI_CHAR, from, ctx->tag, ctx->comm, &ctx->reqs[j]));
    for (int j = 0; j < w && st == FAB_OK; j++)
        st = FAB_MPI(MPI_Isend(ctx->sbuf, n, MPI_CHAR, to, ctx->tag, ctx->comm, &ctx->reqs[w + j]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Waitall(2 * w, ctx->reqs, MPI_STATUSES_IGNORE));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Irecv(ctx->rbuf, FAB_ACK_BYTES, MPI_CHAR, to, ctx->tag + 1, ctx->comm,
                               &ctx->reqs[0]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Send(ctx->sbuf, FAB_ACK_BYTES, MPI_CHAR, from, ctx->tag + 1, ctx->comm));
    return st != FAB_OK ? st : FAB_MPI(MPI_Wait(&ctx->reqs[0], MPI_STATUS_IGNORE));
}

fab_status_t fab_pingpong_shift(fab_kctx_t *ctx, size_t bytes, int to, int from)
{
    int n = (int)bytes;
    MPI_Request q[3]; /* 0: from's ping, 1: to's answer, 2: our ping */
    fab_status_t st;

    st = FAB_MPI(MPI_Irecv(ctx->rbuf, n, MPI_CHAR, from, ctx->tag, ctx->comm, &q[0]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Irecv(ctx->rbuf, n, MPI_CHAR, to, ctx->tag + 1, ctx->comm, &q[1]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Isend(ctx->sbuf, n, MPI_CHAR, to, ctx->tag, ctx->comm, &q[2]));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Send(ctx->sbuf, n, MPI_CHAR, from, ctx->tag + 1, ctx->comm));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Waitall(2, &q[1], MPI_STATUSES_IGNORE));
    return st;
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

fab_status_t fab_pingpong_iterate(fab_kctx_t *ctx, size_t bytes)
{
    int n = (int)bytes, peer = 1 - ctx->rank;
    fab_status_t st;

    if (ctx->rank == 0) {
        st = FAB_MPI(MPI_Send(ctx->sbuf, n, MPI_CHAR, peer, ctx->tag, ctx->comm));
        return st != FAB_OK ? st
                            : FAB_MPI(MPI_Recv(ctx->rbuf, n, MPI_CHAR, peer, ctx->tag, ctx->comm,
                                               MPI_STATUS_IGNORE));
    }
    st = FAB_MPI(MPI_Recv(ctx->rbuf, n, MPI_CHAR, peer, ctx->tag, ctx->comm, MPI_STATUS_IGNORE));
    return st != FAB_OK ? st : FAB_MPI(MPI_Send(ctx->sbuf, n, MPI_CHAR, peer, ctx->tag, ctx->comm));
}
