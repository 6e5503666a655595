/* SPDX-License-Identifier: BSD-3-Clause */
/* The parts of a descriptor (fab_kernel_t, kernel/descriptor.h) that only some kernels have:
 * a kernel points to those it needs and leaves the others NULL, which means "none" (every
 * member zero, NULL or false; the harness reads them through kernel/traits.h). A part may be
 * shared: kernels that share options or columns point to one definition. */
#ifndef FAB_KERNEL_KEXT_H
#define FAB_KERNEL_KEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/opt.h"
#include "kernel/descriptor.h"
#include "kernel/kcol.h"

/* Options of its own (--name, FABRICBENCH_NAME, `run --help`), parsed like the harness's into
 * `values` at each row's offset; a kernel reads them there. Kernels that share options share
 * one fab_kopts_t (and so its rows and values). */
struct fab_kopts {
    const fab_opt_t *rows;
    int n;
    void *values;
};

/* Point to point: messages between two ranks, or pairs of them. */
struct fab_kp2p {
    bool uses_window;    /* -w/--window applies */
    int default_window;  /* window without -w (0: -w's) */
    double time_divisor; /* reported time = iteration time / divisor (ping-pong: 2; 0: 1) */
    bool duplex;         /* traffic flows both ways at once: line rate counts twice (bibw) */
    bool sleeps;         /* its ranks sleep in the OS while waiting (sockets, poll(2)): a rank's
                          * CPU share below 100% is its cost, not a wait for a core (no warning) */
    /* Pairs kernels, optional: one iteration of --schedule shift, where every member sends to
     * member `to` and receives from member `from` at the same time (ctx->comm holds every
     * member, ctx->rank is this one, and every member times). NULL: no shift schedule. */
    fab_status_t (*shift)(fab_kctx_t *ctx, void *state, size_t bytes, int to, int from);
};

/* Collectives. */
struct fab_kcoll {
    double (*bus_factor)(int nranks); /* busbw = algbw x bus_factor (nccl-tests); NULL: 1 */
    /* The message size actually used for a requested one (whole elements, divisible as the
     * pattern needs); NULL: as requested */
    size_t (*fit_bytes)(const fab_kctx_t *ctx, size_t bytes);
    bool uses_dtype; /* --dtype applies: it moves or reduces elements of ctx->dtype */
    bool uses_op;    /* --op applies */
    bool uses_root;  /* --root applies */
    bool no_sizes;   /* one row of 0 bytes, whatever -m says (barrier) */
    bool inplace;    /* has an in-place variant (ctx->inplace, --inplace) */
};

/* Columns of its own (fab_kcol_t, kernel/kcol.h), what fills them, and its text table. */
struct fab_kcolumns {
    const fab_kcol_t *kcols; /* at most FAB_KCOL_MAX */
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
    /* Optional: a warning at the kernel's end when its column low_col is below low_below in
     * some rows, naming the sizes and values, the pair, the rows' component and low_why (what
     * it means and what to try): the one-sided bandwidth far below two-sided */
    const char *low_col;
    double low_below;
    const char *low_why;
    /* Optional, with a FAB_KCOL_IMPLAUSIBLE column: what makes a row implausible, for the
     * warning at the kernel's end ("below what the pair's two-sided latency allows") */
    const char *implausible_why;
    /* Optional: its compact text table, column names as in the files ("bytes,Gbps,loss_pct");
     * NULL: its kind's. --wide shows the kind's wide table and then every column of kcols. */
    const char *table;
    /* Optional: whether --wide's table shows its column j in this run (columns that its
     * options leave NaN, or that it lists only to keep the files' column order); NULL: all */
    bool (*wide_shows)(int j);
};

/* Its rows in the automatic budget (the adaptive policy). */
struct fab_kbudget {
    double row_s;     /* seconds of the budget each row asks for (0: the harness's default) */
    bool spend_all;   /* its rows use their whole share even once precise (a loss count needs
                       * time) */
    bool whole_block; /* each row is one timed block (its traffic never pauses for the harness,
                       * whose pauses would let a UDP stream's queues drain) */
};

/* One of its own list options (FAB_OPT_INTS, FAB_OPT_RATES, FAB_OPT_WORDS) as an axis: the kernel
 * runs once per value (instances: consecutive kernels, ctx->axis set, the AXIS column). */
struct fab_kaxis {
    const char *option; /* the option's name ("streams") */
    /* Optional: the column the text table's knee line judges (UDP: undelivered_pct), and the
     * most it may be */
    const char *knee_col;
    double knee_max;
};

/* Buffers setup allocates on each rank beyond the harness's message buffers (the harness
 * counts them in its memory check before measuring). */
struct fab_kmem {
    size_t (*own_bytes)(const fab_kctx_t *ctx); /* ctx as for check */
    const char *hint;                           /* what lowers them, for the error message */
};

#endif
