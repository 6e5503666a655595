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

/* --rma-target-busy: a target computes this many idle-target iterations (idle_target_us) per
 * iteration, polling MPI once between them. Not 1: a component that completes operations only
 * at the target's polls falls into step with them, so its iteration would be the compute time,
 * and a compute as long as the idle iteration would hide it (ratio 1 either way); with 4 such
 * a component's ratio is about 4, a truly passive one's about 1 (docs/METRICS.md). */
#define FAB_RMA_BUSY_FACTOR 4 /* whole: the help and the columns print it (FAB_RMA_STR) */
/* The two-sided reference (twosided_lat_us): the least of this many timed 8-byte ping-pongs,
 * after this many untimed ones. */
#define FAB_RMA_REF_WARM  20
#define FAB_RMA_REF_ITERS 200
/* ... taken again (at most FAB_RMA_REF_TRIES tries, the least kept) while one rank of the pair
 * ran on a CPU for less than this share of a try's wall time (an MPI that polls while it waits,
 * as Open MPI and UCX, runs near all of it): a busy machine that does not run one of them
 * makes every ping-pong wait for the scheduler. */
#define FAB_RMA_REF_TRIES 3
#define FAB_RMA_REF_RAN   0.5
/* The idle-target iteration (idle_target_us): the median of this many timed rounds, after
 * this many untimed ones. */
#define FAB_RMA_IDLE_WARM  5
#define FAB_RMA_IDLE_ITERS 30

#define FAB_RMA_STR_(x) #x
#define FAB_RMA_STR(x)  FAB_RMA_STR_(x) /* a constant as the help's and the columns' text */

typedef struct fab_rma {
    const fab_rma_spec_t *spec;
    int sync;    /* fab_rma_sync_t (rma/rma.h) */
    int pattern; /* fab_rma_pattern_t */
    MPI_Win win;
    char *base;       /* this rank's window memory, regions x slots x max_bytes */
    char *alloc;      /* what we allocated for it (create, dynamic); NULL for allocate */
    char *lbuf;       /* the origin's buffer (source of a put, result of a get), as large */
    char *res;        /* get-accumulate's results, as large */
    char *cbuf;       /* per rank t: compare operand at 8t, fetched result at 8t + 4 */
    MPI_Aint *bases;  /* per rank: its displacement of its slot 0 (dynamic: its address) */
    int slots;        /* window slots per region (1 for the latency kernels) */
    int regions;      /* pairs 1; else one per rank of comm (the origin's at a target, the
                       * target's at an origin) */
    int peer;         /* pairs: the other rank; else -1 */
    int ntg, *tg;     /* the ranks this rank is origin to (none: not an origin) */
    int nor, *orig;   /* the ranks that are origin to this rank (pscw, validation) */
    bool locked;      /* the run's passive epoch is open (flush, flush_local) */
    bool locked_all;  /* ... by MPI_Win_lock_all (one-to-all, all-to-all) */
    MPI_Group group;  /* pairs: the peer alone (pscw); else the targets of this rank */
    MPI_Group ogroup; /* one-to-all, all-to-all: the origins of this rank (pscw) */
    char osc[32];     /* the osc component of the window */
    /* The two-sided references (rma/rma_ref.c), on rank 0: the 8-byte half round trip and the
     * floor under an iteration, s (NaN: not measured); per size of ctx->sizes, a two-sided
     * window's best time, s (put_bw, get_bw; NaN none). */
    bool same_node;
    double ref_lat, floor;
    double *ref_iter;
    /* --rma-target-busy: per size of ctx->sizes, the median iteration with the targets idle in
     * MPI (s, every rank: the targets compute that long per iteration) */
    double *idle_iter;
    long rounds; /* rounds this rank ran (the stall hook's count) */
} fab_rma_t;

/* Where operation j of an iteration of `bytes` goes: its offset in region `reg`'s slots. */
static inline size_t fab_rma_off(const fab_rma_t *s, int reg, int j, size_t bytes)
{
    return ((size_t)reg * (size_t)s->slots + (size_t)(j % s->slots)) * bytes;
}
/* The region of rank r in another rank's memory (pairs: 0). */
static inline int fab_rma_reg(const fab_rma_t *s, int r)
{
    return s->regions > 1 ? r : 0;
}

/* One iteration: nops operations of `bytes` under the run's synchronisation (rma/rma_ops.c). */
fab_status_t fab_rma_round(struct fab_kctx *ctx, fab_rma_t *s, size_t bytes, int nops);
/* The pair's two-sided references at set-up (rma/rma_ref.c; collective over the pair). */
fab_status_t fab_rma_ref_measure(struct fab_kctx *ctx, fab_rma_t *s);
/* --rma-target-busy: the idle-target reference per size at set-up (rma/rma_ref.c; collective),
 * and a target's iteration: computing outside MPI as long as that, then one MPI poll. */
fab_status_t fab_rma_idle_measure(struct fab_kctx *ctx, fab_rma_t *s);
fab_status_t fab_rma_busy(struct fab_kctx *ctx, fab_rma_t *s, size_t bytes);
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
/* (FABRICBENCH_TEST_RMA_REF_SLEEP=N, read in rma/rma_ref.c: in the two-sided reference's first
 * N tries rank 1 sleeps 3 ms before each answer, as a rank a busy machine does not run.) */

/* Names of the choices (rma/rma.c), whether a synchronisation is passive target, and the
 * window's regions and slots per region for a kernel run as ctx says (rma/rma_check.c). */
extern const char *const fab_rma_sync_names[];
extern const char *const fab_rma_pattern_names[];
bool fab_rma_passive(int sync);
int fab_rma_regions(const struct fab_kctx *ctx);
int fab_rma_slots(const fab_rma_spec_t *spec, const struct fab_kctx *ctx);

/* Whether rank `rank` issues operations in an iteration (pairs: of the pair), and whether
 * rank `rank` is a target of some origin. */
bool fab_rma_is_origin(const fab_rma_t *s, int rank);
bool fab_rma_is_target(const fab_rma_t *s, int rank);

#endif
