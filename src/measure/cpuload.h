/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU cost of a measurement window: the ranks' own CPU time (getrusage) and the node's
 * user, system and softirq shares (/proc/stat). */
#ifndef FAB_MEASURE_CPULOAD_H
#define FAB_MEASURE_CPULOAD_H

#include <stdbool.h>
#include <stdint.h>

/* /proc/stat's first eight cpu fields: user nice system idle iowait irq softirq steal. */
#define FAB_CPU_NJ 8
typedef struct fab_cpu_mark {
    double wall;            /* s, CLOCK_MONOTONIC */
    double self;            /* this process's user + system CPU time, s */
    uint64_t nivcsw;        /* this process's involuntary context switches (getrusage) */
    uint64_t j[FAB_CPU_NJ]; /* node-wide jiffies, when node */
    bool node;              /* this rank samples its node and could read /proc/stat */
    bool steal;             /* the kernel reports steal time (the eighth field) */
} fab_cpu_mark_t;

/* Parse /proc/stat's "cpu " line: the fields it has (7 or 8; missing ones 0), 0 when it is
 * not that line or has fewer than 7. */
int fab_proc_stat_fields(const char *line, uint64_t j[FAB_CPU_NJ]);
bool fab_proc_stat_parse(const char *line, uint64_t j[FAB_CPU_NJ]);
/* Mark the start or end of a window; node: also read /proc/stat (one rank per node). */
void fab_cpu_mark(fab_cpu_mark_t *m, bool node);
/* Node-wide shares of all CPUs' time between two readings, %: user (+nice), system,
 * softirq; NaN when no time passed. */
void fab_cpu_shares(const uint64_t a[FAB_CPU_NJ], const uint64_t b[FAB_CPU_NJ], double *user,
                    double *sys, double *softirq);
/* out[0]: this rank's CPU time / wall time, % (100: one core busy); out[1..3]: the node's
 * user, system, softirq shares (NaN unless both marks read /proc/stat). */
void fab_cpu_window(const fab_cpu_mark_t *a, const fab_cpu_mark_t *b, double out[4]);
/* The window's disturbance: this process's involuntary context switches per second (NaN for
 * a window shorter than FAB_CTXSW_MIN_S: a scheduler tick), and the node's steal share of all
 * CPUs' time, % (NaN unless both marks read a steal field and a tick passed). */
#define FAB_CTXSW_MIN_S 0.01
void fab_cpu_disturbance(const fab_cpu_mark_t *a, const fab_cpu_mark_t *b, double *ctxsw_per_s,
                         double *steal_pct);

/* Runnable tasks on the node: /proc/loadavg's fourth field "R/T" (R: runnable now, the reader
 * included), per online CPU, sampled at block ends by the node's sampling rank. */
typedef struct fab_load {
    double sum; /* of runnable tasks per CPU */
    int n;      /* samples */
} fab_load_t;
/* R of a /proc/loadavg line ("0.50 0.40 0.30 3/456 789"), -1 when it is not one. */
long fab_loadavg_parse(const char *line);
/* Add one reading of the node's runnable tasks per online CPU (FABRICBENCH_PROC_LOADAVG=PATH:
 * a recorded file instead, for tests); nothing when it cannot be read. */
void fab_load_sample(fab_load_t *l);

#endif
