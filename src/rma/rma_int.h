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
} fab_rma_t;

/* Where operation j of an iteration of `bytes` goes: its offset in the slots. */
static inline size_t fab_rma_off(const fab_rma_t *s, int j, size_t bytes)
{
    return (size_t)(j % s->slots) * bytes;
}

/* One iteration: nops operations of `bytes` under the run's synchronisation (rma/rma_ops.c). */
fab_status_t fab_rma_round(struct fab_kctx *ctx, fab_rma_t *s, size_t bytes, int nops);
/* Whether rank `rank` of the pair issues operations in an iteration. */
bool fab_rma_is_origin(const fab_rma_t *s, int rank);

#endif
