/* SPDX-License-Identifier: BSD-3-Clause */
/* What a kernel is (fab_kernel_t, the descriptor a file in kernels/ fills) and what the
 * harness hands it (fab_kctx_t). Kernels include fab_kernel.h, which includes this. */
#ifndef FAB_KERNEL_DESCRIPTOR_H
#define FAB_KERNEL_DESCRIPTOR_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/opt.h"
#include "core/status.h"
#include "kernel/dtype.h"
#include "kernel/kcol.h"

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
    char *sbuf, *rbuf;  /* harness-owned, page-aligned, slots * max_bytes each, pages touched */
    int slots;          /* distinct message buffers: 1, or more during --validate */
    MPI_Request *reqs;  /* room for 2 * window requests */
    fab_dtype_t dtype;  /* collectives: --dtype and --op */
    int root;           /* collectives with a root: -1 rotates (iteration i uses i % size) */
    uint64_t iteration; /* counts iterate() calls, for rotating roots */
    bool nonblocking;   /* collectives: --nonblocking (MPI_Iallreduce and friends) */
    double compute_s;   /* seconds of synthetic compute between start and wait */
    const char *netdev; /* the network interface of --fabric on this host ("" none): the
                         * socket kernels' default address (sock/sock.h) */
    double axis;        /* this instance's value of the kernel's axis option; NaN none */
    size_t bytes;       /* the size being measured (for counters and settle) */
    /* ---- set by setup ---- */
    bool timer;           /* this rank's per-iteration times count (reduced with max) */
    double msgs_per_iter; /* messages of `bytes` moved per iteration, all streams together */
    int streams;          /* independent streams (pairs) sharing that traffic; 1 if unset */
} fab_kctx_t;

typedef struct fab_kernel {
    const char *name;    /* fabricbench run <name> */
    const char *summary; /* one line for `fabricbench list` */
    fab_kind_t kind;
    fab_ranks_t ranks;
    int min_ranks;       /* fewest ranks the kernel can run on */
    int rank_multiple;   /* the rank count must be a multiple of this (1: any) */
    bool uses_window;    /* -w/--window applies */
    double time_divisor; /* reported time = iteration time / divisor (ping-pong: 2) */
    bool duplex;         /* traffic flows both ways at once: line rate counts twice (bibw) */
    /* Collectives: busbw = algbw x bus_factor(ranks) (nccl-tests); NULL for point-to-point */
    double (*bus_factor)(int nranks);
    /* Collectives: the message size actually used for a requested one (whole elements,
     * divisible as the pattern needs); NULL: as requested */
    size_t (*fit_bytes)(const fab_kctx_t *ctx, size_t bytes);
    bool uses_op;   /* --op applies */
    bool no_sizes;  /* one row of 0 bytes, whatever -m says (barrier) */
    bool uses_root; /* --root applies */
    bool sleeps;    /* its ranks sleep in the OS while waiting (sockets, poll(2)): a rank's CPU
                     * share below 100% is its cost, not a wait for a core (no warning) */
    /* Optional: sizes without -m ("128K"; NULL: the kind's), window without -w (0: -w's) */
    const char *default_sizes;
    int default_window;
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
    /* Optional: options of its own (--name, FABRICBENCH_NAME, `run --help`), parsed like the
     * harness's into option_values at each row's offset; a kernel reads them there. Kernels
     * that share options share one table and its values. */
    const fab_opt_t *options;
    int noptions;
    void *option_values;
    /* Optional: refuse, before anything is measured, what it cannot run: called on every
     * rank with ctx as setup would get it but without communicator or buffers (size: the
     * ranks it runs on; sizes, dtype, window, root, nonblocking set). Returns FAB_OK, or
     * FAB_ERR_CONFIG (exit 2) with what is wrong in msg and what to do in hint. */
    fab_status_t (*check)(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                          size_t hintlen);
    /* Optional: bytes of buffers setup will allocate on each rank beyond the harness's
     * message buffers (the harness counts them in its memory check before measuring); ctx as
     * for check. */
    size_t (*own_bytes)(const fab_kctx_t *ctx);
    const char *own_bytes_hint; /* what lowers them, for the error message */
    /* Optional: one line on what the kernel models (header line, result-file attribute). */
    void (*describe)(const fab_kctx_t *ctx, char *buf, size_t len);
    /* Pairs kernels, optional: one iteration of --schedule shift, where every member sends to
     * member `to` and receives from member `from` at the same time (ctx->comm holds every
     * member, ctx->rank is this one, and every member times). NULL: no shift schedule. */
    fab_status_t (*shift)(fab_kctx_t *ctx, void *state, size_t bytes, int to, int from);
    /* Optional: columns of its own (fab_kcol_t), at most FAB_KCOL_MAX. */
    const fab_kcol_t *kcols;
    int nkcols;
    /* Optional: this rank's values of its COUNTER and GAUGE columns into c[j], j its index
     * in kcols (preset to NaN: this rank does not count it). Called at both ends of every
     * timed block: it must be cheap and make no MPI call. */
    void (*counters)(const fab_kctx_t *ctx, void *state, double *c);
    /* Optional: after a row's last timed block, on its ranks (untimed, inside the counters'
     * window): wait for the row's traffic still in flight (UDP datagrams in queues). */
    fab_status_t (*settle)(fab_kctx_t *ctx, void *state);
    /* Optional: the value of its DERIVED column j from the row (the kernel's first rank). */
    double (*derive)(const fab_krow_t *row, int j);
    /* Optional: its compact text table, column names as in the files ("bytes,Gbps,loss_pct");
     * NULL: its kind's. --wide shows the kind's wide table and then every column of kcols. */
    const char *table;
    /* Optional: one of its own list options (FAB_OPT_INTS, FAB_OPT_RATES): the kernel runs
     * once per value (instances: consecutive kernels, ctx->axis set, the AXIS column). */
    const char *axis;
    /* Set by the harness in an instance's copy of the descriptor: the value of axis. */
    double axis_value;
    /* Optional: seconds of the automatic budget each of its rows asks for (0: the harness's
     * per-row default); spend_budget: its rows use their whole share even once precise (a
     * loss count needs time); whole_block: each row is one timed block (its traffic never
     * pauses for the harness, whose pauses would let a UDP stream's queues drain). */
    double budget_row_s;
    bool spend_budget, whole_block;
    /* Optional, with an axis: the column the text table's knee line judges (UDP: loss_pct) */
    const char *knee_col;
    double knee_max;
} fab_kernel_t;

#endif
