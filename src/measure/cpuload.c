/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU cost of a measurement window: this rank's own CPU time (getrusage) and, on one rank per
 * node, the node-wide user / system / softirq shares from /proc/stat. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/timing.h"
#include "measure/cpuload.h"

int fab_proc_stat_fields(const char *line, uint64_t j[FAB_CPU_NJ])
{
    unsigned long long v[FAB_CPU_NJ] = {0};
    int n;

    if (strncmp(line, "cpu ", 4) != 0)
        return 0;
    /* user nice system idle iowait irq softirq steal (kernels since 2.6.11 have all eight) */
    n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]);
    if (n < 7)
        return 0;
    for (int i = 0; i < FAB_CPU_NJ; i++)
        j[i] = v[i];
    return n;
}

bool fab_proc_stat_parse(const char *line, uint64_t j[FAB_CPU_NJ])
{
    return fab_proc_stat_fields(line, j) > 0;
}

/* The first line of the file the variable names (tests: a recorded file), else of path, read
 * as hostile input: a regular file only (no FIFO to block on, no device), one bounded read, cut
 * at the first newline (the parsers then refuse or read in part what does not fit). */
static bool fab_proc_first_line(const char *var, const char *path, char *line, size_t len)
{
    const char *alt = getenv(var);
    int fd = open(alt && *alt ? alt : path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat sb;
    ssize_t n = -1;

    if (fd < 0)
        return false;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
        n = read(fd, line, len - 1);
    close(fd);
    if (n <= 0)
        return false;
    line[n] = '\0';
    line[strcspn(line, "\n")] = '\0';
    return true;
}

static int fab_proc_stat_read(uint64_t j[FAB_CPU_NJ])
{
    char line[512];

    if (!fab_proc_first_line("FABRICBENCH_PROC_STAT", "/proc/stat", line, sizeof(line)))
        return 0;
    return fab_proc_stat_fields(line, j);
}

long fab_loadavg_parse(const char *line)
{
    double l1, l5, l15;
    long running = -1, total = -1;

    if (sscanf(line, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running, &total) != 5 || running < 0 ||
        total < running || running > 1000000000L)
        return -1;
    return running;
}

void fab_load_sample(fab_load_t *l)
{
    static long ncpu;
    char line[256];
    long running;

    if (ncpu == 0)
        ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu <= 0 ||
        !fab_proc_first_line("FABRICBENCH_PROC_LOADAVG", "/proc/loadavg", line, sizeof(line)))
        return;
    running = fab_loadavg_parse(line);
    if (running < 0)
        return;
    l->sum += (double)running / (double)ncpu;
    l->n++;
}

void fab_cpu_mark(fab_cpu_mark_t *m, bool node)
{
    struct rusage ru;

    memset(m, 0, sizeof(*m));
    m->wall = (double)fab_now_ns() * 1e-9;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        m->self = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
        m->nivcsw = ru.ru_nivcsw > 0 ? (uint64_t)ru.ru_nivcsw : 0;
    } else
        m->self = NAN;
    if (node) {
        int n = fab_proc_stat_read(m->j);

        m->node = n > 0;
        m->steal = n >= FAB_CPU_NJ;
    }
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

void fab_cpu_disturbance(const fab_cpu_mark_t *a, const fab_cpu_mark_t *b, double *ctxsw_per_s,
                         double *steal_pct)
{
    double wall = b->wall - a->wall;
    uint64_t total = 0;

    *ctxsw_per_s = *steal_pct = NAN;
#ifdef FAB_SIM
    return; /* simulated time (core/sim.h) */
#endif
    /* a rate needs time: one switch in a 5 us window is no 200,000 a second */
    if (wall >= FAB_CTXSW_MIN_S && !isnan(a->self) && !isnan(b->self))
        *ctxsw_per_s = (double)(b->nivcsw >= a->nivcsw ? b->nivcsw - a->nivcsw : 0) / wall;
    if (!(a->node && b->node && a->steal && b->steal))
        return;
    for (int i = 0; i < FAB_CPU_NJ; i++)
        total += b->j[i] >= a->j[i] ? b->j[i] - a->j[i] : 0;
    if (total > 0)
        *steal_pct = 100.0 * (double)(b->j[7] >= a->j[7] ? b->j[7] - a->j[7] : 0) / (double)total;
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
