/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of the rma module share (rma/rma.c: options, window, check, description;
 * rma/rma_ops.c: the iterations and their validation). */
#ifndef FAB_RMA_RMA_INT_H
#define FAB_RMA_RMA_INT_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef struct fab_rma_spec fab_rma_spec_t; /* rma/rma.h */
struct fab_kctx;

/* The most bytes of window (and of the origin's own buffer) a bandwidth kernel spreads its
 * window of operations over: operation j goes to slot j % slots of max_bytes each, as OSU's
 * contiguous layout (bytes x window) as long as that fits. */
#define FAB_RMA_SPREAD_MAX (64UL << 20)

/* The floor under a one-sided iteration that includes remote completion (docs/METRICS.md,
 * "Implausible one-sided rows"): this fraction of the pair's two-sided 8-byte half round trip.
 * Across nodes the origin learns of remote completion by a message back, so an iteration holds
 * a round trip on the wire, which the two-sided half round trip (one crossing and both ends'
 * software) cannot exceed by 4x; on one node remote completion can be a store and a fence, so
 * only an iteration far below any MPI call's cost is impossible there (osc ucx: 3% of a busy
 * machine's two-sided half round trip, docs/PERFORMANCE.md). */
#define FAB_RMA_FLOOR_REMOTE 0.25
#define FAB_RMA_FLOOR_LOCAL  0.005
/* The warning when a bandwidth kernel's row moves its data at less than this share (%) of the
 * pair's two-sided window's rate at the same size (twosided_pct; docs/METRICS.md). */
#define FAB_RMA_BW_WARN_PCT 10.0

typedef struct fab_rma {
    const fab_rma_spec_t *spec;
    int sync; /* fab_rma_sync_t (rma/rma.h) */
    MPI_Win win;
    char *base;         /* this rank's window memory, slots x max_bytes */
    char *alloc;        /* what we allocated for it (create, dynamic); NULL for allocate */
    char *lbuf;         /* the origin's buffer (source of a put, result of a get), as large */
    char *cbuf;         /* compare and origin operands of the atomics (64 bytes) */
    MPI_Aint peer_base; /* the target's displacement of its slot 0 (dynamic: its address) */
    int slots;          /* window slots (1 for the latency kernels) */
    int peer;
    bool locked;     /* the run's passive epoch on the peer is open (flush, flush_local) */
    MPI_Group group; /* the peer alone (pscw) */
    char osc[32];    /* the osc component of the window */
    /* The two-sided references (rma/rma_ref.c), on rank 0: the 8-byte half round trip and the
     * floor under an iteration, s (NaN: not measured); per size of ctx->sizes, a two-sided
     * window's best time, s (put_bw, get_bw; NaN none). */
    bool same_node;
    double ref_lat, floor;
    double *ref_iter;
    long rounds; /* rounds this rank ran (the stall hook's count) */
} fab_rma_t;

/* Where operation j of an iteration of `bytes` goes: its offset in the slots. */
static inline size_t fab_rma_off(const fab_rma_t *s, int j, size_t bytes)
{
    return (size_t)(j % s->slots) * bytes;
}

/* One iteration: nops operations of `bytes` under the run's synchronisation (rma/rma_ops.c). */
fab_status_t fab_rma_round(struct fab_kctx *ctx, fab_rma_t *s, size_t bytes, int nops);
/* The pair's two-sided references at set-up (rma/rma_ref.c; collective over the pair). */
fab_status_t fab_rma_ref_measure(struct fab_kctx *ctx, fab_rma_t *s);
/* The index of `bytes` in ctx->sizes, -1 none. */
int fab_rma_size_index(const struct fab_kctx *ctx, size_t bytes);
/* FABRICBENCH_TEST_RMA_NOOP=1: the kernels issue no operation and no synchronisation, as a
 * component that neither moves data nor waits would (the implausible mark's test). */
bool fab_rma_test_noop(void);
/* FABRICBENCH_TEST_RMA_REMOTE=1: the pair is judged as if on two nodes (the floor across nodes,
 * which one host cannot otherwise show). FABRICBENCH_TEST_RMA_SLOW=1: every operation waits 20 ms
 * after it is issued, as a component far slower than two-sided (the bandwidth warning's test). */
bool fab_rma_test_remote(void);
bool fab_rma_test_slow(void);
/* FABRICBENCH_TEST_RMA_STALL=1: rank 1 of the pair stops itself (SIGSTOP) inside an epoch, in
 * its 50th round, so the tests see the watchdog name it. */
void fab_rma_test_stall(const struct fab_kctx *ctx, fab_rma_t *s);

/* Whether rank `rank` of the pair issues operations in an iteration. */
bool fab_rma_is_origin(const fab_rma_t *s, int rank);

#endif
