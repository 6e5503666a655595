/* SPDX-License-Identifier: BSD-3-Clause */
/* The launch options (fab_launchopts_t, fab_opts_t.launch): which kernels a run runs and how
 * often, the bounds on its waits, and how much it says on stderr while it runs. */
#ifndef FAB_CORE_LAUNCHOPTS_H
#define FAB_CORE_LAUNCHOPTS_H

#include <stdbool.h>

struct fab_kernel;

#define FAB_MAX_KERNELS 32

/* A kernel as the run runs it (cli/kernel_list.c): its descriptor, which is the same for
 * every run, and what differs between its instances (a kernel with an axis option runs once
 * per value of it). The harness hands kernels' outputs the instance, never a changed copy of
 * the descriptor. */
typedef struct fab_kinst {
    const struct fab_kernel *k;
    double axis;  /* this instance's value of the kernel's axis option; NaN without one */
    bool inplace; /* a collective's in-place variant (MPI_IN_PLACE; --inplace) */
} fab_kinst_t;

typedef struct fab_launchopts {
    fab_kinst_t kernels[FAB_MAX_KERNELS]; /* the run's instances, in order */
    int nkernels;
    bool ladder;          /* `run ladder`: the layer ladder's kernels, and the ladder after them */
    int repeat;           /* --repeat: the whole plan this many times, each its own run */
    long stall_timeout;   /* --stall-timeout: seconds without progress that end the job; 0 off */
    long startup_timeout; /* --startup-timeout: start-up's and the end's bound, s; 0 none */
    bool quiet;           /* -q: no progress lines (and no table where an output takes stdout) */
    int verbose;          /* -v: log levels above the default */
} fab_launchopts_t;

#endif
