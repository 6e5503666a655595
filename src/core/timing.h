/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer the measurement loop reads: CLOCK_MONOTONIC, or the TSC where the kernel trusts
 * it as its clocksource; calibrated, with its own cost measured for the header. */
#ifndef FAB_CORE_TIMING_H
#define FAB_CORE_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) && !defined(FAB_SIM)
#include <x86intrin.h>
#endif

#include "core/status.h"

/* Monotonic nanoseconds (CLOCK_MONOTONIC, vDSO: no system call). */
static inline uint64_t fab_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Real nanoseconds, for what costs real time whatever is measured (committing the result
 * file): fab_now_ns, but in the simulated build, whose clock_gettime is SMPI's simulated time
 * (core/sim.h), the real clock (the parentheses skip smpicc's clock_gettime macro). */
static inline uint64_t fab_real_ns(void)
{
#ifdef FAB_SIM
    struct timespec ts;

    (clock_gettime)(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#else
    return fab_now_ns();
#endif
}

extern bool fab_timer_tsc_on;

/* The timer the loop reads: TSC ticks or nanoseconds; fab_ticks_to_s converts. */
static inline uint64_t fab_ticks(void)
{
#if defined(__x86_64__) && !defined(FAB_SIM) /* simulated: core/sim.h */
    if (fab_timer_tsc_on)
        return __rdtsc();
#endif
    return fab_now_ns();
}

/* Values in the order of the option's choice list: --timer auto|tsc|clock. */
typedef enum { FAB_TIMER_AUTO = 0, FAB_TIMER_TSC = 1, FAB_TIMER_CLOCK = 2 } fab_timer_kind_t;

/* Choose the timer (auto: TSC where the kernel uses it as clocksource, else CLOCK_MONOTONIC)
 * and calibrate it. On error err says why. */
fab_status_t fab_timer_init(fab_timer_kind_t want, char *err, size_t errlen);
double fab_ticks_to_s(uint64_t ticks);
/* Which timer is in use and why, for the header. */
const char *fab_timer_describe(void);
/* Median cost of one fab_ticks() reading, in ns, measured over `n` runs of 1000 readings. */
double fab_timer_cost_ns(int n);

#endif
