/* SPDX-License-Identifier: BSD-3-Clause */
/* Statistics: percentiles against hand-computed values, n = 1, ties, the histogram path. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "core/status.h"
#include "core/timing.h"
#include "kernel/patterns.h"
#include "measure/stats.h"

static void add_all(fab_acc_t *a, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fab_acc_add(a, v[i]);
}

int main(void)
{
    fab_acc_t a;
    fab_stats_t s;

    /* 1..10 in scrambled order. Linear interpolation (numpy default): p50 at rank 4.5 -> 5.5.
     * The tail quantiles need n >= 10/(1-p): with 10 samples every one of them is NaN. */
    {
        const double v[] = {7, 1, 10, 3, 5, 2, 9, 4, 8, 6};

        CHECK(fab_acc_init(&a, 100) == FAB_OK);
        add_all(&a, v, 10);
        a.loop_total = 55.0;
        fab_acc_stats(&a, 1.0, &s);
        CHECK(s.n == 10 && s.exact);
        CHECK_NEAR(s.min, 1.0, 1e-12);
        CHECK_NEAR(s.max, 10.0, 1e-12);
        CHECK_NEAR(s.p50, 5.5, 1e-12);
        CHECK(isnan(s.p90) && isnan(s.p99) && isnan(s.p999) && isnan(s.p9999));
        CHECK_NEAR(s.mean, 5.5, 1e-12);
        /* sample variance of 1..10 = 55/6 */
        CHECK_NEAR(s.stddev, 3.0276503540974917, 1e-12);
        CHECK_NEAR(s.loop_mean, 5.5, 1e-12);
        /* divisor: every time halves (ping-pong round trip -> one way) */
        fab_acc_stats(&a, 2.0, &s);
        CHECK_NEAR(s.p50, 2.75, 1e-12);
        CHECK_NEAR(s.stddev, 3.0276503540974917 / 2, 1e-12);
        CHECK_NEAR(s.loop_mean, 2.75, 1e-12);
        fab_acc_free(&a);
    }
    /* n = 1: every statistic is the sample, stddev 0 */
    {
        CHECK(fab_acc_init(&a, 10) == FAB_OK);
        fab_acc_add(&a, 3e-6);
        a.loop_total = 3e-6;
        fab_acc_stats(&a, 1.0, &s);
        CHECK(s.n == 1 && s.exact);
        CHECK_NEAR(s.min, 3e-6, 1e-18);
        CHECK_NEAR(s.p50, 3e-6, 1e-18);
        CHECK(isnan(s.p90) && isnan(s.p999) && isnan(s.p9999));
        CHECK_NEAR(s.max, 3e-6, 1e-18);
        CHECK_NEAR(s.stddev, 0.0, 0.0);
        fab_acc_free(&a);
    }
    /* ties: 80 x 2 and 20 x 9 (n = 100, enough for p90 only): p50 = 2; p90 at rank
     * 0.9 x 99 = 89.1, between the 90th and 91st sorted values, 9 and 9 -> 9; p99 NaN */
    {
        CHECK(fab_acc_init(&a, 1000) == FAB_OK);
        for (int i = 0; i < 100; i++)
            fab_acc_add(&a, i % 5 == 4 ? 9.0 : 2.0);
        fab_acc_stats(&a, 1.0, &s);
        CHECK_NEAR(s.p50, 2.0, 1e-12);
        CHECK_NEAR(s.p90, 9.0, 1e-12);
        CHECK(isnan(s.p99));
        CHECK_NEAR(s.min, 2.0, 1e-12);
        fab_acc_free(&a);
    }
    /* 1..100000 x 0.1 us (the raw store grows from its first allocation to hold all):
     * p90 at rank 0.9 x 99999 = 89999.1 -> 90000.1 x 0.1 us; p99 -> 99000.01; p99.9 ->
     * 99900.001; p99.99 at 99989.0001 -> 99990.0001. n = 999 has no p99, n = 1000 has. */
    {
        CHECK(fab_acc_init(&a, 1000000) == FAB_OK);
        for (int i = 1; i <= 100000; i++)
            fab_acc_add(&a, (double)i * 1e-7);
        fab_acc_stats(&a, 1.0, &s);
        CHECK(s.exact && a.raw_n == 100000);
        CHECK_NEAR(s.p90, 90000.1e-7, 1e-12);
        CHECK_NEAR(s.p99, 99000.01e-7, 1e-12);
        CHECK_NEAR(s.p999, 99900.001e-7, 1e-12);
        CHECK_NEAR(s.p9999, 99990.0001e-7, 1e-12);
        /* order statistics: beyond FAB_ACC_EXACT_ORDER samples from the histogram (0.2%) */
        CHECK_NEAR(fab_acc_order(&a, 50000), 50000e-7, 50000e-7 * 0.002);
        CHECK_NEAR(fab_acc_order(&a, 1), 1e-7, 1e-7 * 0.002);
        fab_acc_reset(&a);
        for (int i = 1; i <= 999; i++)
            fab_acc_add(&a, (double)i);
        fab_acc_stats(&a, 1.0, &s);
        CHECK(isnan(s.p99) && !isnan(s.p90));
        /* exact order statistics while few: the 10th smallest of 1..999 is 10 */
        CHECK_NEAR(fab_acc_order(&a, 10), 10.0, 0.0);
        CHECK(isnan(fab_acc_order(&a, 0)));
        fab_acc_add(&a, 1000.0);
        fab_acc_stats(&a, 1.0, &s);
        CHECK(!isnan(s.p99) && isnan(s.p999));
        CHECK(fab_quantile_enough(1000, 0.99) && !fab_quantile_enough(999, 0.99));
        CHECK(fab_quantile_enough(10000, 0.999) && !fab_quantile_enough(9999, 0.999));
        fab_acc_free(&a);
    }
    /* reset really empties the accumulator */
    {
        CHECK(fab_acc_init(&a, 4) == FAB_OK);
        fab_acc_add(&a, 1.0);
        fab_acc_reset(&a);
        fab_acc_add(&a, 4.0);
        fab_acc_stats(&a, 1.0, &s);
        CHECK(s.n == 1);
        CHECK_NEAR(s.min, 4.0, 0);
        fab_acc_free(&a);
    }
    /* Beyond the raw cap: percentiles from the histogram, within 0.2% of the exact value;
     * min, max and mean stay exact. Samples: 1..100000 ns. */
    {
        const size_t n = 100000;
        double *v = malloc(sizeof(double) * n);

        CHECK(fab_acc_init(&a, 1000) == FAB_OK);
        for (size_t i = 0; i < n; i++) {
            v[i] = (double)((i * 7919) % n + 1) * 1e-9;
            fab_acc_add(&a, v[i]);
        }
        fab_acc_stats(&a, 1.0, &s);
        CHECK(!s.exact && s.n == n);
        CHECK_NEAR(s.min, 1e-9, 1e-21);
        CHECK_NEAR(s.max, 1e-4, 1e-16);
        CHECK_NEAR(s.mean, 50000.5e-9, 1e-15);
        /* exact: rank q*(n-1) of 1..n is 1 + q*(n-1) ns */
        CHECK_NEAR(s.p50, (1 + 0.5 * (n - 1)) * 1e-9, 0.002 * (1 + 0.5 * (n - 1)) * 1e-9);
        CHECK_NEAR(s.p99, (1 + 0.99 * (n - 1)) * 1e-9, 0.002 * (1 + 0.99 * (n - 1)) * 1e-9);
        CHECK_NEAR(s.p999, (1 + 0.999 * (n - 1)) * 1e-9, 0.002 * (1 + 0.999 * (n - 1)) * 1e-9);
        CHECK_NEAR(s.p9999, (1 + 0.9999 * (n - 1)) * 1e-9, 0.002 * (1 + 0.9999 * (n - 1)) * 1e-9);
        fab_acc_free(&a);
        free(v);
    }
    /* fab_percentile_sorted edge cases */
    {
        const double v[] = {1.0, 3.0};

        CHECK_NEAR(fab_percentile_sorted(v, 2, 0.0), 1.0, 0);
        CHECK_NEAR(fab_percentile_sorted(v, 2, 1.0), 3.0, 0);
        CHECK_NEAR(fab_percentile_sorted(v, 2, 0.25), 1.5, 1e-12);
        CHECK(isnan(fab_percentile_sorted(v, 0, 0.5)));
    }
    /* validation patterns: a filled buffer checks clean against its seed; every changed byte
     * and a different seed are found */
    {
        unsigned char buf[4099];
        uint32_t sa = fab_pattern_seed(7, 0, 1), sb = fab_pattern_seed(7, 1, 1);

        CHECK(sa != sb && fab_pattern_seed(7, 0, 2) != sa && fab_pattern_seed(8, 0, 1) != sa);
        fab_pattern_fill(buf, sizeof(buf), sa);
        CHECK(fab_pattern_check(buf, sizeof(buf), sa) == 0);
        buf[0] ^= 1;
        buf[4098] ^= 0x80;
        CHECK(fab_pattern_check(buf, sizeof(buf), sa) == 2);
        fab_pattern_fill(buf, sizeof(buf), sa);
        CHECK(fab_pattern_check(buf, sizeof(buf), sb) > (long)sizeof(buf) * 9 / 10);
        memset(buf, 0, sizeof(buf));
        CHECK(fab_pattern_check(buf, sizeof(buf), sa) > (long)sizeof(buf) * 9 / 10);
    }
    /* the TSC timer, where the CPU has an invariant one, agrees with CLOCK_MONOTONIC */
    {
        char err[256];

        if (fab_timer_init(FAB_TIMER_TSC, err, sizeof(err)) == FAB_OK) {
            /* A preemption between the two clocks' readings (a busy machine) widens the gap,
             * never narrows it: the best of five tries is the timer's own error. */
            double best = INFINITY;

            for (int t = 0; t < 5; t++) {
                uint64_t n0 = fab_now_ns(), c0 = fab_ticks(), n1, c1;
                struct timespec nap = {0, 30000000};

                nanosleep(&nap, NULL);
                n1 = fab_now_ns();
                c1 = fab_ticks();
                best = fmin(best, fabs(fab_ticks_to_s(c1 - c0) - (double)(n1 - n0) * 1e-9));
            }
            CHECK(best <= 0.001 * 0.03);
            CHECK(strncmp(fab_timer_describe(), "tsc (", 5) == 0);
        } else {
            printf("no invariant TSC here: %s\n", err);
        }
        CHECK(fab_timer_init(FAB_TIMER_CLOCK, err, sizeof(err)) == FAB_OK);
        CHECK(strncmp(fab_timer_describe(), "CLOCK_MONOTONIC", 15) == 0);
    }
    /* the timer moves forward and costs something measurable */
    {
        uint64_t t0 = fab_now_ns(), t1 = fab_now_ns();
        double c = fab_timer_cost_ns(11);

        CHECK(t1 >= t0);
        CHECK(c > 0 && c < 10000);
    }
    return fab_test_report("test_stats");
}
