/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels' options (fab_pairopts_t, fab_opts_t.pairs): who meets whom, for how
 * long, and what the verdict calls slow. src/pairs/ reads these. */
#ifndef FAB_CORE_PAIROPTS_H
#define FAB_CORE_PAIROPTS_H

typedef struct fab_pairopts {
    int schedule;         /* fab_sched_t (--schedule) */
    int retest;           /* retest slow pairs alone (--retest on: 1) */
    int pairs_per;        /* 0 one rank per node, 1 every rank (--pairs-per) */
    double pair_time_s;   /* adaptive: the most per pair and direction; 0 auto */
    double slow_bw;       /* verdict: slow below this share of the median pair */
    double slow_latency;  /* verdict: slow above this multiple of the median latency */
    const char *switches; /* verdict: FILE of "node switch" lines; NULL: host names */
} fab_pairopts_t;

#endif
