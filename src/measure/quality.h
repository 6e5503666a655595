/* SPDX-License-Identifier: BSD-3-Clause */
/* A row's quality (measure/quality.c): ok, noisy, disturbed or invalid, and the reasons, from
 * what the row measured of itself (its samples and blocks against the floor, regimes,
 * --precision) and of the machine while it ran (the ranks' CPU share, the node's steal time,
 * the ranks' involuntary context switches, the node's runnable tasks). Pure functions, no MPI;
 * docs/METRICS.md ("Row quality") defines the words and the thresholds. */
#ifndef FAB_MEASURE_QUALITY_H
#define FAB_MEASURE_QUALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The floor under every row (docs/METRICS.md, "The floor under every row"): no row is
 * published as a measurement from fewer than FAB_FLOOR_SAMPLES timed iterations, nor, under
 * the adaptive measurement, from fewer than FAB_FLOOR_BLOCKS blocks (one for a kernel whose
 * row is one block by design). Why 10: from n = 6 on the median has a 95% interval at all
 * (measure/adaptive.h); from n = 9 on its ends are no longer the extreme samples (ranks 2 and
 * n-1), so one stray sample (a rank descheduled for milliseconds) sets neither the interval
 * nor the median; 10, the first even such n, is also what --time has always guaranteed
 * (--min-iters). Three blocks are the fewest across time from which the blocks' agreement can
 * be judged at all. A row below the floor is written, marked invalid. */
#define FAB_FLOOR_SAMPLES 10
#define FAB_FLOOR_BLOCKS  3

/* The overrun cap: a size below the floor when its share of the budget is spent goes on,
 * taking time from the rest of the run, until the run has used FAB_CAP_FACTOR x its budget or
 * the budget + FAB_CAP_MIN_S, whichever is longer (a small budget on a busy machine still gets
 * seconds to reach the floor); past it, rows below the floor stop as they are (invalid). */
#define FAB_CAP_FACTOR 4.0
#define FAB_CAP_MIN_S  2.0
double fab_quality_cap(double budget_s);

typedef enum {
    FAB_Q_OK = 0,
    FAB_Q_NOISY = 1,     /* regimes, or --precision not met */
    FAB_Q_DISTURBED = 2, /* the machine took time from the ranks during the row */
    FAB_Q_INVALID = 3,   /* below the floor: not a measurement */
} fab_quality_t;

/* The reasons (bits) and their words in quality_reason, in this order. */
enum {
    FAB_QR_SAMPLES = 1 << 0,   /* fewer than FAB_FLOOR_SAMPLES timed iterations */
    FAB_QR_BLOCKS = 1 << 1,    /* adaptive: fewer blocks than the floor */
    FAB_QR_CPU = 1 << 2,       /* a rank ran less than FAB_DISTURB_CPU_PCT of the time */
    FAB_QR_STEAL = 1 << 3,     /* the hypervisor took more than FAB_DISTURB_STEAL_PCT */
    FAB_QR_RUNNABLE = 1 << 4,  /* more than FAB_DISTURB_RUNNABLE runnable tasks per CPU */
    FAB_QR_CTXSW = 1 << 5,     /* a rank was preempted more than FAB_DISTURB_CTXSW times/s */
    FAB_QR_REGIMES = 1 << 6,   /* adaptive: its block medians fell into separate levels */
    FAB_QR_PRECISION = 1 << 7, /* adaptive: the budget ended it before --precision */
    /* the kernel's own check: the number cannot be true (kernel/kcol.h FAB_KCOL_IMPLAUSIBLE) */
    FAB_QR_IMPLAUSIBLE = 1 << 8,
};
#define FAB_QR_NWORDS    9
#define FAB_QR_INVALID   (FAB_QR_SAMPLES | FAB_QR_BLOCKS | FAB_QR_IMPLAUSIBLE)
#define FAB_QR_DISTURBED (FAB_QR_CPU | FAB_QR_STEAL | FAB_QR_RUNNABLE | FAB_QR_CTXSW)
#define FAB_QR_NOISY     (FAB_QR_REGIMES | FAB_QR_PRECISION)

/* Disturbance thresholds (docs/METRICS.md gives the measurements behind them). A rank that
 * polls (MPI over UCX) runs all the time: one that ran less than FAB_DISTURB_CPU_PCT of a
 * row's window waited for a core. */
#define FAB_DISTURB_CPU_PCT     80.0
#define FAB_DISTURB_STEAL_PCT   5.0
#define FAB_DISTURB_RUNNABLE    1.25
#define FAB_DISTURB_CTXSW_PER_S 100.0
/* Preemptions are a second witness: above FAB_DISTURB_CTXSW_PER_S they mark a row only beside
 * another sign of the machine (cpu, steal, runnable), alone only above this rate (a switch in
 * each millisecond). A quiet machine's short rows read 0-480 a second from a few switches. */
#define FAB_DISTURB_CTXSW_ALONE_PER_S 1000.0

/* What the judgement needs of a row; NaN: unknown (not judged). */
typedef struct fab_quality_in {
    uint64_t iters;      /* timed iterations */
    uint64_t blocks;     /* adaptive: blocks measured */
    unsigned min_blocks; /* the blocks' floor: FAB_ADAPT_MIN_BLOCKS, 1 for a kernel whose row is
                            one block, 0 for the fixed policies (no blocks) */
    bool sleeps;         /* its ranks wait in the OS by design: their CPU share is no sign */
    double cpu_min_pct;  /* the least CPU share of a rank taking part, % */
    double steal_pct;    /* the node's steal share of all CPUs' time, % (the most on a node) */
    double runnable_per_cpu;
    double ctxsw_per_s; /* involuntary context switches per second, the most of a rank */
    int regimes;        /* 0: not assessed */
    int target_met;     /* 1, 0; -1 no target (fixed policies) */
    bool implausible;   /* a column of the kernel's own says the row cannot be true */
} fab_quality_in_t;

unsigned fab_quality_reasons(const fab_quality_in_t *in);
/* The worst class among the reasons: invalid, then disturbed, then noisy, else ok. */
fab_quality_t fab_quality_of(unsigned reasons);
/* "ok", "noisy", "disturbed", "invalid" (the quality column). */
const char *fab_quality_name(fab_quality_t q);
/* The reasons as ';'-separated words ("samples;cpu"), "" for none (quality_reason). */
void fab_quality_words(unsigned reasons, char *buf, size_t len);
/* Back: the reasons in such a text (words it does not know are ignored). */
unsigned fab_quality_parse_words(const char *text);

/* How disturbed a run was: its rows' qualities and the worst figures of its disturbed rows. */
typedef struct fab_quality_tally {
    int rows, invalid, disturbed, noisy;
    unsigned reasons;      /* every reason seen */
    double cpu_lo, cpu_hi; /* disturbed by cpu: the range of their least rank shares */
    double steal_max, runnable_max, ctxsw_max; /* over the disturbed rows */
} fab_quality_tally_t;

void fab_quality_tally_init(fab_quality_tally_t *t);
void fab_quality_tally_add(fab_quality_tally_t *t, const fab_quality_in_t *in, unsigned reasons);
/* One line: "quiet" (no row disturbed or invalid), else "busy: the ranks ran 2-20% of the
 * time, up to 3.5 runnable tasks per CPU; 14 of 92 rows disturbed, 3 invalid". */
void fab_quality_tally_text(const fab_quality_tally_t *t, char *buf, size_t len);

#endif
