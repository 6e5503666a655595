/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' support (put_lat ... cas_lat in kernels/, OSU's one-sided programs):
 * their shared options (--win, --rma-sync), the window and its epochs, one timed iteration and
 * its validation for each operation, the rows' semantics columns and the check. Each kernel is
 * a fab_rma_spec_t and thin wrappers around these functions. */
#ifndef FAB_RMA_RMA_H
#define FAB_RMA_RMA_H

#include "kernel/fab_kernel.h"

/* The operation of a kernel. */
typedef enum {
    FAB_RMA_PUT = 0, /* MPI_Put of `bytes` */
    FAB_RMA_GET,     /* MPI_Get of `bytes` */
    FAB_RMA_ACC,     /* MPI_Accumulate, MPI_INT32_T, MPI_SUM: `bytes` / 4 elements */
    FAB_RMA_GET_ACC, /* MPI_Get_accumulate, MPI_INT32_T, MPI_SUM */
    FAB_RMA_FOP,     /* MPI_Fetch_and_op, one MPI_INT32_T, MPI_SUM (4 bytes) */
    FAB_RMA_CAS,     /* MPI_Compare_and_swap, one MPI_INT32_T (4 bytes) */
} fab_rma_op_t;

/* The synchronisation of --rma-sync (FAB_RMA_SYNC_AUTO: flush, pscw for put_bibw). */
typedef enum {
    FAB_RMA_SYNC_AUTO = 0,
    FAB_RMA_SYNC_LOCK,        /* lock, operations, unlock per iteration */
    FAB_RMA_SYNC_FLUSH,       /* one lock for the run; operations, MPI_Win_flush */
    FAB_RMA_SYNC_FLUSH_LOCAL, /* one lock for the run; operations, MPI_Win_flush_local */
    FAB_RMA_SYNC_LOCK_ALL,    /* lock_all, operations, unlock_all per iteration */
    FAB_RMA_SYNC_PSCW,        /* post/start/complete/wait (active target) */
    FAB_RMA_SYNC_FENCE,       /* MPI_Win_fence (active target) */
} fab_rma_sync_t;

/* --win: how the window's memory is made. */
typedef enum { FAB_RMA_WIN_CREATE = 0, FAB_RMA_WIN_ALLOCATE, FAB_RMA_WIN_DYNAMIC } fab_rma_win_t;

/* --rma-flush: a bandwidth kernel's flushes under flush and flush_local (auto: window). */
typedef enum { FAB_RMA_FLUSH_AUTO = 0, FAB_RMA_FLUSH_WINDOW, FAB_RMA_FLUSH_OP } fab_rma_flush_t;

/* --rma-pattern: who is origin to whom. */
typedef enum {
    FAB_RMA_PAIRS = 0,  /* rank 0 of --pair to rank 1 (both in turn or at once: ping-pong, bibw) */
    FAB_RMA_ONE_TO_ALL, /* rank 0 to every other rank of the run, in the same epoch */
    FAB_RMA_ALL_TO_ALL, /* every rank to every other rank, in the same epoch */
} fab_rma_pattern_t;

typedef struct fab_rma_opts {
    int win;          /* fab_rma_win_t */
    int sync;         /* fab_rma_sync_t */
    int flush;        /* fab_rma_flush_t */
    int pattern;      /* fab_rma_pattern_t */
    bool target_busy; /* --rma-target-busy: targets compute outside MPI while measured */
} fab_rma_opts_t;
extern fab_rma_opts_t fab_rma_opt;
extern const fab_kopts_t fab_rma_kopts; /* their rows, values in fab_rma_opt */

/* What a kernel is: its operation, a window of operations per synchronisation (bandwidth) or
 * one, and both ranks origin and target at once (bibw). */
typedef struct fab_rma_spec {
    const char *name; /* the kernel's */
    const char *osu;  /* the OSU program it follows */
    fab_rma_op_t op;
    bool bw;    /* ctx->window operations per synchronisation */
    bool bidir; /* both ranks put to each other in the same epoch (active target only) */
} fab_rma_spec_t;

/* The semantics columns every one-sided row carries (includes_remote_completion,
 * halved_round_trip), filled by fab_rma_counters. */
extern const fab_kcolumns_t fab_rma_columns;

fab_status_t fab_rma_setup(const fab_rma_spec_t *spec, fab_kctx_t *ctx, void **state);
fab_status_t fab_rma_iterate(fab_kctx_t *ctx, void *state, size_t bytes);
fab_status_t fab_rma_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors);
void fab_rma_cleanup(fab_kctx_t *ctx, void *state);
void fab_rma_describe(const fab_rma_spec_t *spec, const fab_kctx_t *ctx, char *buf, size_t len);
fab_status_t fab_rma_check(const fab_rma_spec_t *spec, const fab_kctx_t *ctx, char *msg,
                           size_t msglen, char *hint, size_t hintlen);
size_t fab_rma_own_bytes(const fab_rma_spec_t *spec, const fab_kctx_t *ctx);

/* The synchronisation a kernel runs with (--rma-sync, auto resolved). */
fab_rma_sync_t fab_rma_sync_of(const fab_rma_spec_t *spec);
/* Whether --rma-flush applies: a bandwidth kernel under flush or flush_local; and whether an
 * operation is flushed alone (op) rather than its window at once (window, auto). */
bool fab_rma_flush_applies(const fab_rma_spec_t *spec, fab_rma_sync_t sync);
bool fab_rma_flush_per_op(const fab_rma_spec_t *spec, fab_rma_sync_t sync);
/* The ranks of --rma-pattern (the descriptors' ranks_now): pairs a pair, the others all. */
fab_ranks_t fab_rma_ranks(void);
/* Origins and targets of each origin on `size` ranks (pairs: 1 and 1). */
int fab_rma_origins(int size);
int fab_rma_targets(int size);
/* Its semantics: whether the time includes the operation's completion at the target (flush,
 * unlock, fence, pscw; a fetching operation's result always does), and whether it is half a
 * round trip (never: fabricbench reports whole iterations; OSU halves fence and pscw). */
bool fab_rma_remote_completion(const fab_rma_spec_t *spec, fab_rma_sync_t sync);
/* Whether an iteration is a ping-pong: each rank the origin in turn (fence, pscw latency). */
bool fab_rma_pingpong(const fab_rma_spec_t *spec, fab_rma_sync_t sync);
/* The osc component of a window: Open MPI names a window "<component> window <n>"; else the
 * osc MCA selection when it names one component; else "unknown". */
void fab_rma_osc_name(MPI_Win win, char *buf, size_t len);

/* The hooks a one-sided kernel wraps around its spec, which it names NAME_spec: NAME_setup,
 * NAME_describe, NAME_check and NAME_own_bytes (kernels/put_lat.c). */
#define FAB_RMA_HOOKS(NAME)                                                                        \
    static fab_status_t NAME##_setup(fab_kctx_t *ctx, void **state)                                \
    {                                                                                              \
        return fab_rma_setup(&NAME##_spec, ctx, state);                                            \
    }                                                                                              \
    static void NAME##_describe(const fab_kctx_t *ctx, char *buf, size_t len)                      \
    {                                                                                              \
        fab_rma_describe(&NAME##_spec, ctx, buf, len);                                             \
    }                                                                                              \
    static fab_status_t NAME##_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,  \
                                     size_t hintlen)                                               \
    {                                                                                              \
        return fab_rma_check(&NAME##_spec, ctx, msg, msglen, hint, hintlen);                       \
    }                                                                                              \
    static size_t NAME##_own_bytes(const fab_kctx_t *ctx)                                          \
    {                                                                                              \
        return fab_rma_own_bytes(&NAME##_spec, ctx);                                               \
    }

/* The descriptor's members every one-sided kernel has (after its name, summary and kind): the
 * family rma (`fabricbench run rma` runs all nine). */
#define FAB_RMA_MEMBERS(NAME)                                                                      \
    .family = "rma", .ranks = FAB_RANKS_PAIR, .ranks_now = fab_rma_ranks, .min_ranks = 2,          \
    .rank_multiple = 1, .setup = NAME##_setup, .iterate = fab_rma_iterate,                         \
    .validate = fab_rma_validate, .cleanup = fab_rma_cleanup, .describe = NAME##_describe,         \
    .check = NAME##_check, .options = &fab_rma_kopts, .columns = &fab_rma_columns,                 \
    .mem = &(const fab_kmem_t)                                                                     \
    {                                                                                              \
        NAME##_own_bytes, "lower the largest size (-m) or the window (-w)"                         \
    }

#endif
