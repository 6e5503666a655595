/* SPDX-License-Identifier: BSD-3-Clause */
/* What a run was asked to do: the values of every harness option, as the command line and
 * the FABRICBENCH_* variables set them (cli/options.c holds the table that fills it). */
#ifndef FAB_CORE_OPTS_H
#define FAB_CORE_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/netopts.h"
#include "core/opt.h"
#include "core/sizes.h"

struct fab_kernel;

/* Values in the order of the option's choice list: --timer auto|tsc|clock. */
typedef enum { FAB_TIMER_AUTO = 0, FAB_TIMER_TSC = 1, FAB_TIMER_CLOCK = 2 } fab_timer_kind_t;
/* --sync none|barrier: what comes between two timed iterations of a kernel. */
typedef enum { FAB_SYNC_NONE = 0, FAB_SYNC_BARRIER = 1 } fab_sync_t;
/* How a run with --sync barrier says so (the iteration policy, the header, the files). */
#define FAB_SYNC_BARRIER_WORDS                                                                     \
    "an untimed MPI_Barrier after every iteration (--sync barrier, OSU's method)"

#define FAB_MAX_KERNELS 32

/* A kernel as the run runs it (cli/kernel_list.c): its descriptor, which is the same for
 * every run, and what differs between its instances (a kernel with an axis option runs once
 * per value of it). The harness hands kernels' outputs the instance, never a changed copy of
 * the descriptor. */
typedef struct fab_kinst {
    const struct fab_kernel *k;
    double axis; /* this instance's value of the kernel's axis option; NaN without one */
} fab_kinst_t;

typedef struct fab_opts {
    fab_kinst_t kernels[FAB_MAX_KERNELS]; /* the run's instances, in order */
    int nkernels;
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
    int repeat;           /* --repeat: the whole plan this many times, each its own run */
    int window;
    bool window_given; /* -w given: it applies to a kernel with a default_window too */
    int sync;          /* fab_sync_t: back to back, or an untimed barrier after every iteration */
    bool validate;
    bool samples;       /* --samples: keep per-iteration times in the result file */
    const char *output; /* -o: NULL = automatic name, "none" = no file */
    bool append, force;
    const char *json, *csv; /* NULL: none; "-": standard output (output/outputs.h) */
    const char *json_doc;   /* --json-doc: one JSON document; NULL none, "-" stdout */
    const char *prom;       /* --prom: a Prometheus textfile; NULL none, "-" stdout */
    char note[512];         /* warnings about the options, for rank 0 to print */
    fab_pair_t pair;        /* --pair: the ranks pair kernels measure between */
    int timer;              /* fab_timer_kind_t */
    int dtype, op;          /* FAB_DT_*, FAB_OP_* */
    int root;               /* -1: rotate */
    bool nonblocking;
    double overlap_us;       /* 0: none */
    fab_netopts_t net;       /* the network and the host: fabric, device, pml, placement */
    const char *topology;    /* placement command: an lstopo XML file, NULL: this machine */
    int place_ranks;         /* placement command: ranks per node */
    bool json_flag;          /* inventory, placement commands: --json */
    const char *sub_usage;   /* inventory, placement commands: --help was asked (their usage) */
    bool wide;               /* --wide: the text table with every column (run, show) */
    const char *columns;     /* --columns: the text table's columns, checked; NULL: a layout */
    char *const *show_files; /* show: the files, in order */
    int nshow_files;         /* show: how many */
    int schedule;            /* pairs kernels: fab_sched_t (--schedule) */
    int retest;              /* pairs kernels: retest slow pairs alone (--retest on: 1) */
    int pairs_per;           /* pairs kernels: 0 one rank per node, 1 every rank (--pairs-per) */
    double pair_time_s;      /* pairs kernels, adaptive: the most per pair and direction; 0 auto */
    double slow_bw;          /* pairs verdict: slow below this share of the median pair */
    double slow_latency;     /* pairs verdict: slow above this multiple of the median latency */
    const char *switches;    /* pairs verdict: FILE of "node switch" lines; NULL: host names */
    long stall_timeout;      /* --stall-timeout: seconds without progress that end the job; 0 off */
    long startup_timeout;    /* --startup-timeout: start-up's and the end's bound, s; 0 none */
    bool quiet;
    int verbose;
    bool help; /* -h/--help: the value of the help row (the command becomes run --help) */
} fab_opts_t;

#endif
