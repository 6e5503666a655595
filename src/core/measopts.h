/* SPDX-License-Identifier: BSD-3-Clause */
/* The measurement options (fab_measopts_t, fab_opts_t.meas): which sizes, how long or how
 * many iterations, to what precision, and how a kernel's iterations are made (window, sync,
 * datatype, reduction, root, overlap, validation). src/measure/ reads these. */
#ifndef FAB_CORE_MEASOPTS_H
#define FAB_CORE_MEASOPTS_H

#include <stdbool.h>

#include "core/opt.h"
#include "core/sizes.h"
#include "core/split.h"

/* --sync none|barrier: what comes between two timed iterations of a kernel. */
typedef enum { FAB_SYNC_NONE = 0, FAB_SYNC_BARRIER = 1 } fab_sync_t;
/* How a run with --sync barrier says so (the iteration policy, the header, the files). */
#define FAB_SYNC_BARRIER_WORDS                                                                     \
    "an untimed MPI_Barrier after every iteration (--sync barrier, OSU's method)"

typedef struct fab_measopts {
    fab_sizes_t sizes;    /* empty: the default sweep */
    long iters;           /* > 0: fixed iterations per size; 0: time budget */
    long warmup;          /* < 0: automatic */
    double time_s;        /* time budget per size */
    long min_iters;       /* floor of the time-budget policy */
    long max_iters;       /* ceiling of the time-budget policy */
    long max_samples;     /* raw samples kept per size for exact percentiles */
    bool adaptive;        /* neither -i nor --time: interleaved rounds, adaptive stop */
    double budget_s;      /* adaptive: the run's budget, s; 0: automatic (per row) */
    double precision_pct; /* adaptive: target half-width of the median's 95% interval, % */
    int window;
    bool window_given; /* -w given: it applies to a kernel with a default_window too */
    int sync;          /* fab_sync_t: back to back, or an untimed barrier after every iteration */
    bool validate;
    bool samples;    /* --samples: keep per-iteration times in the result file */
    fab_pair_t pair; /* --pair: the ranks pair kernels measure between */
    int timer;       /* fab_timer_kind_t (core/timing.h) */
    int dtype, op;   /* FAB_DT_*, FAB_OP_* */
    int root;        /* -1: rotate */
    bool nonblocking;
    double overlap_us; /* 0: none */
    /* --straggle RANK:DELAY as given (checked by measure/arrival.h's parser); NULL: none */
    const char *straggle;
    const char *split_text; /* --split as given; NULL: none */
    fab_split_t split;      /* --split parsed (kind FAB_SPLIT_NONE: the whole communicator) */
} fab_measopts_t;

#endif
