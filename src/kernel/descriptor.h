/* SPDX-License-Identifier: BSD-3-Clause */
/* What a kernel is (fab_kernel_t, the descriptor a file in kernels/ fills) and what the
 * harness hands it (fab_kctx_t). Kernels include fab_kernel.h, which includes this and
 * kernel/kext.h (the parts only some kernels have). */
#ifndef FAB_KERNEL_DESCRIPTOR_H
#define FAB_KERNEL_DESCRIPTOR_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/status.h"
#include "kernel/dtype.h"

/* What the headline of a row is: a time (latency) or a rate (bandwidth). */
typedef enum {
    FAB_KIND_LATENCY = 0,
    FAB_KIND_BANDWIDTH = 1,
    FAB_KIND_COLLECTIVE = 2, /* time per call, algbw and busbw (nccl-tests) */
} fab_kind_t;

/* How the ranks of a kernel run are chosen. */
typedef enum {
    FAB_RANKS_PAIR = 0,  /* two ranks, --pair A,B (default 0,1); the others wait idle */
    FAB_RANKS_ALL = 1,   /* every rank takes part */
    FAB_RANKS_NODES = 2, /* every pair of nodes (--pairs-per), pair by pair as --schedule says
                          * (pairs/pairs.c): iterate runs on a 2-rank comm, 0 the sender */
} fab_ranks_t;

/* What the harness hands a kernel. Fields above the line are set by the harness before setup;
 * fields below it are set by the kernel's setup on each rank. */
typedef struct fab_kctx {
    MPI_Comm comm;       /* the ranks taking part, in kernel order (pair: A is 0, B is 1) */
    int rank;            /* this rank in comm */
    int size;            /* ranks in comm */
    int window;          /* messages in flight per iteration (bandwidth kernels) */
    int tag;             /* first tag the kernel may use; it owns tag .. tag+15 */
    size_t max_bytes;    /* largest message of this run (at least 64): the size of a slot */
    const size_t *sizes; /* the sizes it measures (before fit_bytes), nsizes of them */
    int nsizes;
    bool sizes_given;   /* those are -m's (or nccl-tests' -b/-e), not the kernel's default */
    char *sbuf, *rbuf;  /* harness-owned, page-aligned, slots * max_bytes each, pages touched */
    int slots;          /* distinct message buffers: 1, or more during --validate */
    MPI_Request *reqs;  /* room for 2 * window requests */
    fab_dtype_t dtype;  /* collectives: --dtype and --op */
    int root;           /* collectives with a root: -1 rotates (iteration i uses i % size) */
    uint64_t iteration; /* counts iterate() calls, for rotating roots */
    bool nonblocking;   /* collectives: --nonblocking (MPI_Iallreduce and friends) */
    bool inplace;       /* collectives with kcoll.inplace: MPI_IN_PLACE, the data in rbuf */
    double compute_s;   /* seconds of synthetic compute between start and wait */
    const char *netdev; /* the network interface of --fabric on this host ("" none): the
                         * socket kernels' default address (sock/sock.h) */
    double axis;        /* this instance's value of the kernel's axis option; NaN none */
    size_t bytes;       /* the size being measured (for counters and settle) */
    /* ---- set by setup ---- */
    bool timer;           /* this rank's per-iteration times count (reduced with max) */
    double msgs_per_iter; /* messages of `bytes` moved per iteration, all streams together */
    int streams;          /* independent streams (pairs) sharing that traffic; 1 if unset */
    /* The component of the MPI library under the measurement as the kernel names it, on its
     * rank 0 ("" none): every row's `component` column (one-sided kernels: the osc component
     * of the window: ucx, rdma, pt2pt, sm). Letters, digits and _, at most 31. */
    char component[32];
} fab_kctx_t;

/* The parts only some kernels have (kernel/kext.h); NULL where a kernel has none. */
typedef struct fab_kopts fab_kopts_t;
typedef struct fab_kp2p fab_kp2p_t;
typedef struct fab_kcoll fab_kcoll_t;
typedef struct fab_kcolumns fab_kcolumns_t;
typedef struct fab_kbudget fab_kbudget_t;
typedef struct fab_kaxis fab_kaxis_t;
typedef struct fab_kmem fab_kmem_t;

/* A kernel: what every kernel has, and pointers to the parts only some have. It is const: what
 * differs between runs of a kernel is in fab_kctx_t (this rank's) and in the harness's
 * instance (fab_kinst_t, core/launchopts.h: an axis value). */
typedef struct fab_kernel {
    const char *name;    /* fabricbench run <name> */
    const char *summary; /* one line for `fabricbench list` */
    fab_kind_t kind;     /* the headline of its rows */
    fab_ranks_t ranks;   /* which ranks take part */
    /* Optional: which ranks take part under this run's options, when its options decide it
     * (a pair, or every rank for a many-to-one pattern); asked after the options are parsed,
     * read through fab_kranks (kernel/traits.h). NULL: `ranks`. */
    fab_ranks_t (*ranks_now)(void);
    int min_ranks;             /* fewest ranks the kernel can run on */
    int rank_multiple;         /* the rank count must be a multiple of this (1: any) */
    const char *default_sizes; /* optional: sizes without -m ("128K"; NULL: the kind's) */
    /* Optional: the family it belongs to ("rma"): `fabricbench run FAMILY` runs every kernel
     * of the family, in registry order (cli/kernel_list.c); a family is never a kernel's name */
    const char *family;
    /* Optional: the layer ladder's layer it measures (`run ladder`, output/ladder.c: "socket",
     * "ucp_tag", "mpi", ...): a latency kernel its latency, a bandwidth kernel its bandwidth */
    const char *layer;
    /* Optional: set ctx->timer, ->msgs_per_iter, ->streams; allocate per-run state if any.
     * Without it every rank of a collective times and nothing else does. */
    fab_status_t (*setup)(fab_kctx_t *ctx, void **state);
    /* One timed iteration with messages of `bytes`. Called on every rank of ctx->comm. */
    fab_status_t (*iterate)(fab_kctx_t *ctx, void *state, size_t bytes);
    /* One untimed iteration that sends fab_pattern_fill()ed data and checks what arrives with
     * fab_pattern_check(), adding mismatching bytes to *errors. `seed` differs per call. */
    fab_status_t (*validate)(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                             long *errors);
    void (*cleanup)(fab_kctx_t *ctx, void *state); /* optional: frees what setup made */
    /* Optional: one line on what the kernel models (header line, result-file attribute). */
    void (*describe)(const fab_kctx_t *ctx, char *buf, size_t len);
    /* Optional: refuse, before anything is measured, what it cannot run: called on every
     * rank with ctx as setup would get it but without communicator or buffers (size: the
     * ranks it runs on; sizes, dtype, window, root, nonblocking set). Returns FAB_OK, or
     * FAB_ERR_CONFIG (exit 2) with what is wrong in msg and what to do in hint. */
    fab_status_t (*check)(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                          size_t hintlen);
    const fab_kopts_t *options; /* optional: options of its own */
    /* The optional parts (kernel/kext.h). */
    const fab_kp2p_t *p2p;         /* point to point: window, time divisor, shift */
    const fab_kcoll_t *coll;       /* collectives: bus factor, size fitting, --op, --root */
    const fab_kcolumns_t *columns; /* columns of its own, their counters, its text table */
    const fab_kbudget_t *budget;   /* its rows' share of the automatic budget */
    const fab_kaxis_t *axis;       /* one instance per value of one of its list options */
    const fab_kmem_t *mem;         /* buffers of its own beyond the harness's */
} fab_kernel_t;

#endif
