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
    uint64_t j[FAB_CPU_NJ]; /* node-wide jiffies, when node */
    bool node;              /* this rank samples its node and could read /proc/stat */
} fab_cpu_mark_t;

/* Parse /proc/stat's "cpu " line. */
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

#endif
