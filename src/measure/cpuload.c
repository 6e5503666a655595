/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU cost of a measurement window: this rank's own CPU time (getrusage) and, on one rank per
 * node, the node-wide user / system / softirq shares from /proc/stat. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "measure/cpuload.h"
#include "measure/timing.h"

bool fab_proc_stat_parse(const char *line, uint64_t j[FAB_CPU_NJ])
{
    unsigned long long v[FAB_CPU_NJ] = {0};
    int n;

    if (strncmp(line, "cpu ", 4) != 0)
        return false;
    /* user nice system idle iowait irq softirq steal (kernels since 2.6.11 have all eight) */
    n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]);
    if (n < 7)
        return false;
    for (int i = 0; i < FAB_CPU_NJ; i++)
        j[i] = v[i];
    return true;
}

static bool fab_proc_stat_read(uint64_t j[FAB_CPU_NJ])
{
    const char *path = getenv("FABRICBENCH_PROC_STAT"); /* tests: a recorded file */
    FILE *f = fopen(path && *path ? path : "/proc/stat", "r");
    char line[512];
    bool ok = false;

    if (!f)
        return false;
    if (fgets(line, sizeof(line), f))
        ok = fab_proc_stat_parse(line, j);
    fclose(f);
    return ok;
}

void fab_cpu_mark(fab_cpu_mark_t *m, bool node)
{
    struct rusage ru;

    memset(m, 0, sizeof(*m));
    m->wall = (double)fab_now_ns() * 1e-9;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        m->self = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    else
        m->self = NAN;
    m->node = node && fab_proc_stat_read(m->j);
}

void fab_cpu_shares(const uint64_t a[FAB_CPU_NJ], const uint64_t b[FAB_CPU_NJ], double *user,
                    double *sys, double *softirq)
{
    uint64_t d[FAB_CPU_NJ], total = 0;

    for (int i = 0; i < FAB_CPU_NJ; i++) {
        d[i] = b[i] >= a[i] ? b[i] - a[i] : 0;
        total += d[i];
    }
    if (total == 0) {
        *user = *sys = *softirq = NAN;
        return;
    }
    *user = 100.0 * (double)(d[0] + d[1]) / (double)total;
    *sys = 100.0 * (double)d[2] / (double)total;
    *softirq = 100.0 * (double)d[6] / (double)total;
}

void fab_cpu_window(const fab_cpu_mark_t *a, const fab_cpu_mark_t *b, double out[4])
{
    double wall = b->wall - a->wall;

#ifdef FAB_SIM
    /* simulated time against the simulator's CPU time: meaningless (core/sim.h) */
    wall = 0;
#endif
    out[0] = wall > 0 ? 100.0 * (b->self - a->self) / wall : NAN;
    out[1] = out[2] = out[3] = NAN;
#ifdef FAB_SIM
    return;
#endif
    if (a->node && b->node)
        fab_cpu_shares(a->j, b->j, &out[1], &out[2], &out[3]);
}
