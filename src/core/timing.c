/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer: CLOCK_MONOTONIC through the vDSO, or the CPU's time-stamp counter where the
 * kernel itself trusts it.
 *
 * A timestamp sits between two iterations on the critical path of a ping-pong, so its cost
 * is part of every measured iteration. On x86-64 `rdtsc` costs about half of a vDSO
 * clock_gettime. It is only used where it is safe: the CPU says the counter runs at a constant
 * rate and does not stop (constant_tsc, nonstop_tsc) and the kernel has chosen it as its own
 * clocksource, which it does only after checking the counters agree across CPUs. Its rate is
 * calibrated against CLOCK_MONOTONIC at start-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/status.h"
#include "core/timing.h"

bool fab_timer_tsc_on;
static double fab_tsc_ns_per_tick = 1.0;
static char fab_timer_desc[160] = "CLOCK_MONOTONIC";

#if defined(__x86_64__) && !defined(FAB_SIM)
static bool fab_file_has_word(const char *path, const char *word)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    bool found = false;
    size_t n = strlen(word);

    if (!f)
        return false;
    while (!found && fgets(line, sizeof(line), f)) {
        for (char *p = strstr(line, word); p && !found; p = strstr(p + 1, word))
            found = (p == line || p[-1] == ' ' || p[-1] == '\t') &&
                    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0');
    }
    fclose(f);
    return found;
}

/* One (clock, counter) pair whose counter readings bracket the clock reading tightly: of a
 * few tries, the one with the narrowest bracket, so a preemption between the two readings
 * cannot skew the pair. */
static void fab_tsc_pair(uint64_t *ns, uint64_t *ticks)
{
    uint64_t best = UINT64_MAX;

    *ns = 0;
    *ticks = 0;
    for (int i = 0; i < 16; i++) {
        uint64_t c0 = __rdtsc(), n = fab_now_ns(), c1 = __rdtsc();

        if (c1 - c0 < best) {
            best = c1 - c0;
            *ns = n;
            *ticks = c0 + (c1 - c0) / 2;
        }
    }
}

/* Nanoseconds per tick against CLOCK_MONOTONIC over about 2 ms: each pair is exact to its
 * bracket (tens of ns), so the rate is within about 50 ppm, far below any timing noise (a
 * 1 us latency off by 0.05 ns); 20 ms, as before, added 18 ms to every start-up. Only the
 * two pairs count, so the rank sleeps between them (before: 2 ms of CPU spinning a rank). */
#define FAB_TSC_CALIB_NS 2000000u
static double fab_tsc_calibrate(void)
{
    uint64_t n0, c0, n1, c1;

    fab_tsc_pair(&n0, &c0);
    for (;;) {
        struct timespec nap = {0, 0};

        fab_tsc_pair(&n1, &c1);
        if (n1 - n0 >= FAB_TSC_CALIB_NS)
            break;
        nap.tv_nsec = (long)(FAB_TSC_CALIB_NS - (n1 - n0));
        nanosleep(&nap, NULL);
    }
    return (double)(n1 - n0) / (double)(c1 - c0);
}
#endif

fab_status_t fab_timer_init(fab_timer_kind_t want, char *err, size_t errlen)
{
    const char *cs_path = getenv("FABRICBENCH_CLOCKSOURCE_FILE");
    char cs[64] = "unknown";
    FILE *f;

    if (!cs_path)
        cs_path = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    f = fopen(cs_path, "r");
    if (f) {
        if (fgets(cs, sizeof(cs), f))
            cs[strcspn(cs, "\n")] = '\0';
        fclose(f);
    }
    fab_timer_tsc_on = false;
#ifdef FAB_SIM
    /* SMPI maps CLOCK_MONOTONIC to simulated time; the TSC counts the simulator's real time. */
    if (want == FAB_TIMER_TSC) {
        snprintf(err, errlen, "--timer tsc: a simulated build has only simulated time");
        return FAB_ERR_CONFIG;
    }
    snprintf(fab_timer_desc, sizeof(fab_timer_desc), "CLOCK_MONOTONIC (simulated time, SMPI)");
    return FAB_OK;
#endif
    if (want == FAB_TIMER_CLOCK) {
        snprintf(fab_timer_desc, sizeof(fab_timer_desc), "CLOCK_MONOTONIC (--timer clock)");
        return FAB_OK;
    }
#if defined(__x86_64__) && !defined(FAB_SIM)
    {
        bool invariant = fab_file_has_word("/proc/cpuinfo", "constant_tsc") &&
                         fab_file_has_word("/proc/cpuinfo", "nonstop_tsc");
        bool kernel_uses = strcmp(cs, "tsc") == 0;

        if (want == FAB_TIMER_TSC && !invariant) {
            snprintf(err, errlen,
                     "--timer tsc: this CPU does not report an invariant TSC "
                     "(constant_tsc and nonstop_tsc)");
            return FAB_ERR_CONFIG;
        }
        if (want == FAB_TIMER_TSC || (invariant && kernel_uses)) {
            fab_tsc_ns_per_tick = fab_tsc_calibrate();
            fab_timer_tsc_on = true;
            snprintf(fab_timer_desc, sizeof(fab_timer_desc),
                     "tsc (%.4f GHz, calibrated against CLOCK_MONOTONIC; kernel clocksource %s%s)",
                     1.0 / fab_tsc_ns_per_tick, cs, want == FAB_TIMER_TSC ? ", --timer tsc" : "");
            return FAB_OK;
        }
        snprintf(fab_timer_desc, sizeof(fab_timer_desc), "CLOCK_MONOTONIC (tsc not used: %s)",
                 invariant ? "the kernel's clocksource is not tsc" : "no invariant TSC");
        (void)kernel_uses;
    }
#else
    if (want == FAB_TIMER_TSC) {
        snprintf(err, errlen, "--timer tsc is only available on x86-64");
        return FAB_ERR_CONFIG;
    }
    snprintf(fab_timer_desc, sizeof(fab_timer_desc), "CLOCK_MONOTONIC");
#endif
    (void)err;
    (void)errlen;
    return FAB_OK;
}

const char *fab_timer_describe(void)
{
    return fab_timer_desc;
}

double fab_ticks_to_s(uint64_t ticks)
{
    return fab_timer_tsc_on ? (double)ticks * fab_tsc_ns_per_tick * 1e-9 : (double)ticks * 1e-9;
}

static int fab_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double fab_timer_cost_ns(int n)
{
    enum { CALLS = 1000 };
    double *per = malloc(sizeof(*per) * (size_t)n);
    double med;

    if (!per || n <= 0) {
        free(per);
        return -1.0;
    }
    for (int r = 0; r < n; r++) {
        uint64_t t0 = fab_ticks(), t1 = t0;

        for (int i = 0; i < CALLS; i++)
            t1 = fab_ticks();
        per[r] = fab_ticks_to_s(t1 - t0) * 1e9 / CALLS;
    }
    qsort(per, (size_t)n, sizeof(*per), fab_cmp_double);
    med = per[n / 2];
    free(per);
    return med;
}
