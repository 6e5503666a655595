/* SPDX-License-Identifier: BSD-3-Clause */
/* What a run was asked to do: the values of every option, as the command line and the
 * FABRICBENCH_* variables set them (cli/option_table.c holds the table that fills it). cli/
 * owns the whole; every other folder takes the part of it that it reads: the launch
 * (core/launchopts.h), the measurement (core/measopts.h), the outputs (core/outopts.h), the
 * network (core/netopts.h), the pairs kernels (core/pairopts.h). */
#ifndef FAB_CLI_OPTS_H
#define FAB_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/outopts.h"
#include "core/pairopts.h"

/* --inplace: which variants of a collective with an in-place one run (auto: both with
 * --format nccl-tests or nccl-json, else out of place). */
typedef enum { FAB_INPLACE_AUTO, FAB_INPLACE_OFF, FAB_INPLACE_ON, FAB_INPLACE_BOTH } fab_inplace_t;

/* nccl-tests' words (cli/nccl_words.c): read by cli/ alone, which turns them into the
 * measurement's sizes, type and validation. */
typedef struct fab_ncclopts {
    bool mode;            /* --nccl-tests: -i -w -o -c -t -g -m read as nccl-tests reads them */
    size_t minbytes;      /* -b/--minbytes */
    size_t maxbytes;      /* -e/--maxbytes */
    long stepfactor;      /* -f/--stepfactor; 0: not given */
    size_t stepbytes;     /* --stepbytes (-i with --nccl-tests) */
    long check;           /* --check N (-c N with --nccl-tests): > 0 validates */
    const char *datatype; /* -d/--datatype: nccl-tests' name, checked */
    int inplace;          /* --inplace: fab_inplace_t */
} fab_ncclopts_t;

/* The other commands' own options (cli/options_subcommand.c). */
typedef struct fab_cmdopts {
    const char *topology;    /* placement: an lstopo XML file, NULL: this machine */
    int place_ranks;         /* placement: ranks per node */
    bool json_flag;          /* inventory, placement: --json */
    const char *sub_usage;   /* inventory, placement: --help was asked (their usage) */
    char *const *show_files; /* show: the files, in order */
    int nshow_files;         /* show: how many */
} fab_cmdopts_t;

typedef struct fab_opts {
    fab_launchopts_t launch; /* the kernels, --repeat, the timeouts, -q, -v */
    fab_measopts_t meas;     /* sizes, iterations, time, precision, how iterations are made */
    fab_outopts_t out;       /* the files and the text table's layout */
    fab_netopts_t net;       /* the network and the host: fabric, device, pml, placement */
    fab_pairopts_t pairs;    /* the pairs kernels: schedule, retest, verdict */
    fab_cmdopts_t cmd;       /* inventory, placement, show */
    fab_ncclopts_t nccl;     /* nccl-tests' words, turned into meas before the run */
    char note[1024];         /* warnings about the options, for rank 0 to print */
    bool help; /* -h/--help: the value of the help row (the command becomes run --help) */
} fab_opts_t;

#endif
