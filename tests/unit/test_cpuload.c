/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU cost arithmetic: /proc/stat parsing and node-wide shares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "measure/cpuload.h"

int main(void)
{
    uint64_t a[FAB_CPU_NJ], b[FAB_CPU_NJ];
    double user, sys, si;
    fab_cpu_mark_t m0, m1;
    double w[4];

    /* user nice system idle iowait irq softirq steal */
    CHECK(fab_proc_stat_parse("cpu  100 20 30 1000 5 1 4 0 0 0\n", a));
    CHECK(a[0] == 100 && a[1] == 20 && a[2] == 30 && a[3] == 1000 && a[6] == 4 && a[7] == 0);
    CHECK(fab_proc_stat_parse("cpu  10 0 5 100 0 0 1\n", a)); /* seven fields: old kernels */
    CHECK(!fab_proc_stat_parse("cpu0 1 2 3 4 5 6 7 8\n", a)); /* a per-CPU line */
    CHECK(!fab_proc_stat_parse("cpu  1 2\n", a));
    CHECK(!fab_proc_stat_parse("intr 1 2 3 4 5 6 7 8\n", a));

    /* 200 ticks pass: 50 user + 10 nice, 40 system, 20 softirq, 80 idle. */
    CHECK(fab_proc_stat_parse("cpu  100 20 30 1000 5 1 4 0\n", a));
    CHECK(fab_proc_stat_parse("cpu  150 30 70 1080 5 1 24 0\n", b));
    fab_cpu_shares(a, b, &user, &sys, &si);
    CHECK_NEAR(user, 30.0, 1e-12);
    CHECK_NEAR(sys, 20.0, 1e-12);
    CHECK_NEAR(si, 10.0, 1e-12);
    /* No time passed: unknown, not zero. */
    fab_cpu_shares(a, a, &user, &sys, &si);
    CHECK(isnan(user) && isnan(sys) && isnan(si));
    /* A counter that went backwards (a CPU taken offline) counts as no time, not as 2^64. */
    b[0] = 50;
    fab_cpu_shares(a, b, &user, &sys, &si);
    CHECK(user >= 0 && user <= 100);

    /* The rank's own share: CPU seconds over wall seconds, known values (0.3 s of CPU in
     * 0.4 s: 75%); no wall time: unknown. */
    memset(&m0, 0, sizeof(m0));
    memset(&m1, 0, sizeof(m1));
    m0.wall = 10.0, m0.self = 2.0, m1.wall = 10.4, m1.self = 2.3;
    fab_cpu_window(&m0, &m1, w);
    CHECK_NEAR(w[0], 75.0, 1e-9);
    CHECK(isnan(w[1]) && isnan(w[2]) && isnan(w[3]));
    m1.wall = m0.wall;
    fab_cpu_window(&m0, &m1, w);
    CHECK(isnan(w[0]));
    /* Live marks over a busy window: a share above 0 and, for one thread, at most one core
     * (with slack for clock granularity); its size depends on what else runs, so no floor.
     * Without /proc/stat (node false) the node shares are NaN. */
    fab_cpu_mark(&m0, false);
    for (volatile long i = 0; i < 40000000L; i++)
        ;
    fab_cpu_mark(&m1, false);
    fab_cpu_window(&m0, &m1, w);
    CHECK(w[0] > 0.0 && w[0] < 110.0);
    CHECK(isnan(w[1]) && isnan(w[2]) && isnan(w[3]));
    /* With a node reading: shares between 0 and 100 and their sum at most 100. */
    fab_cpu_mark(&m0, true);
    for (volatile long i = 0; i < 40000000L; i++)
        ;
    fab_cpu_mark(&m1, true);
    fab_cpu_window(&m0, &m1, w);
    CHECK(m0.node && m1.node);
    CHECK(w[1] >= 0 && w[2] >= 0 && w[3] >= 0 && w[1] + w[2] + w[3] <= 100.0 + 1e-9);
    /* /proc/loadavg: R of "R/T"; anything else unknown (-1) */
    CHECK(fab_loadavg_parse("0.50 0.40 0.30 3/456 12345") == 3);
    CHECK(fab_loadavg_parse("9.00 9.00 9.00 40/500 1") == 40);
    CHECK(fab_loadavg_parse("0.5 0.4 0.3 7/5 1") == -1); /* more running than tasks */
    CHECK(fab_loadavg_parse("0.5 0.4 0.3 -1/5 1") == -1);
    CHECK(fab_loadavg_parse("xxxxxxxxxxxxxxxxxxx") == -1);
    CHECK(fab_loadavg_parse("") == -1);
    /* steal: known only with the eighth field; 50 of 200 ticks stolen is 25% */
    CHECK(fab_proc_stat_fields("cpu  10 0 5 100 0 0 1\n", a) == 7);
    CHECK(fab_proc_stat_fields("cpu  100 20 30 1000 5 1 4 0 0 0\n", a) == 8);
    memset(&m0, 0, sizeof(m0));
    memset(&m1, 0, sizeof(m1));
    m0.node = m1.node = m0.steal = m1.steal = true;
    CHECK(fab_proc_stat_parse("cpu  100 0 0 1000 0 0 0 0\n", m0.j));
    CHECK(fab_proc_stat_parse("cpu  200 0 0 1050 0 0 0 50\n", m1.j));
    m1.wall = 0.5; /* 5 involuntary switches in 0.5 s: 10 a second */
    m1.nivcsw = 5;
    {
        double cs, steal;

        fab_cpu_disturbance(&m0, &m1, &cs, &steal);
        CHECK_NEAR(steal, 25.0, 1e-12);
        CHECK_NEAR(cs, 10.0, 1e-12);
        m1.steal = false; /* a kernel without the field: unknown, not 0 */
        m1.wall = 0.005;  /* shorter than a tick: no rate */
        fab_cpu_disturbance(&m0, &m1, &cs, &steal);
        CHECK(isnan(steal) && isnan(cs));
    }
    return fab_test_report("test_cpuload");
}
