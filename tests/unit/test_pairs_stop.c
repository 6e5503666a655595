/* SPDX-License-Identifier: BSD-3-Clause */
/* How long one pair is measured (pairs/pairs_stop.c): the warm-up rounds, the blocks, the
 * floor, the stop on a stable rate, the pair's time and its cap, -i and -t, and the expected
 * duration, fed with iteration times of known values. */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "measure/quality.h"
#include "pairs/pairs_stop.h"

static fab_interval_t fab_iv(double rel)
{
    fab_interval_t iv = {0};

    iv.n = 10;
    iv.centre = 1;
    iv.rel_half = rel;
    return iv;
}

static fab_pstop_conf_t fab_adaptive(double time_s)
{
    fab_pstop_conf_t c = {0};

    c.policy = FAB_PSTOP_ADAPTIVE;
    c.warmup = -1;
    c.time_s = time_s;
    c.precision = 0.01;
    return c;
}

/* Run the warm-up with every iteration taking per (the first first_per), then blocks whose
 * median is med(i) and pooled interval rel(i) until done; returns the blocks. */
static int fab_drive(fab_pstop_t *p, double first_per, double per, double (*med)(int),
                     double (*rel)(int))
{
    uint64_t k = fab_pstop_first(p);
    int rounds = 0, blocks = 0;

    while (k > 0 && rounds++ < 100)
        k = fab_pstop_warmed(p, k, (rounds == 1 ? first_per : per) * (double)k);
    CHECK(rounds < 100);
    for (uint64_t n = fab_pstop_next(p); n > 0 && blocks < 1000; n = fab_pstop_next(p)) {
        fab_interval_t iv = fab_iv(rel(blocks));

        fab_pstop_block(p, n, (double)n * per, med ? med(blocks) : per, &iv);
        blocks++;
    }
    CHECK(p->done);
    return blocks;
}

static double steady(int i)
{
    (void)i;
    return 0.0;
}

static double noisy(int i)
{
    (void)i;
    return 0.2;
}

static double wobble(int i)
{
    return i % 2 ? 0.07 : 0.09;
}

int main(void)
{
    fab_pstop_t p;
    fab_pstop_conf_t c;
    double e, most;
    int blocks;

    /* -i 20: 2 warm-up iterations, one block of 20, no target. */
    c = (fab_pstop_conf_t){.policy = FAB_PSTOP_FIXED, .fixed = 20, .warmup = -1};
    fab_pstop_init(&p, &c);
    CHECK(fab_pstop_first(&p) == 2);
    CHECK(fab_pstop_warmed(&p, 2, 0.2) == 0 && p.warm == 2);
    CHECK(fab_pstop_next(&p) == 20);
    fab_pstop_block(&p, 20, 2.0, NAN, NULL);
    CHECK(p.done && fab_pstop_next(&p) == 0 && p.samples == 20 && p.met == -1);
    /* -i 5 -x 0: no warm-up, 5 iterations (below the floor: the row says so, not the pair) */
    c = (fab_pstop_conf_t){.policy = FAB_PSTOP_FIXED, .fixed = 5, .warmup = 0};
    fab_pstop_init(&p, &c);
    CHECK(fab_pstop_first(&p) == 0 && fab_pstop_next(&p) == 5);

    /* Adaptive, 1 Gb/s and 8 MiB a window (70 ms), the first iteration slow (a connection):
     * rounds of 1, 1, 2 until settled; then the floor, 10 iterations in 3 blocks (4, 3, 3),
     * stable: done there, precise. */
    c = fab_adaptive(1.0);
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 0.1, 0.07, NULL, steady);
    CHECK(p.warm == 4 && p.warm_rounds == 3);
    CHECK(blocks == 3 && p.samples == 10 && p.met == 1);
    CHECK(p.warm_s + p.timed_s < 1.05);

    /* Short iterations (1 us): warm-up rounds doubling to 1 ms, then blocks of 5 ms (5000
     * iterations), 3 of them when stable. */
    c = fab_adaptive(1.0);
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 1e-6, 1e-6, NULL, steady);
    CHECK(p.warm == 1023 && blocks == 3 && p.samples >= 15000 && p.samples <= 15003 && p.met == 1);

    /* Never precise: blocks until the pair's time cannot pay for another, then stops there,
     * not precise; its time holds (within a block). */
    c = fab_adaptive(0.5);
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 0.01, 0.01, NULL, noisy);
    CHECK(p.met == 0 && p.samples >= 10);
    CHECK(p.warm_s + p.timed_s <= 0.5 + 0.01 && p.warm_s + p.timed_s > 0.5 - 0.02);
    /* ... nor when the blocks disagree (the medians alternate 70 and 90 ms) */
    c = fab_adaptive(3.0);
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 0.08, 0.08, wobble, steady);
    CHECK(p.met == 0 && blocks > 3);

    /* Below the floor: 0.35 s iterations and a time of 1 s. Two warm-up iterations and the
     * floor (10) cost 4.2 s, past the time, to the cap (4 s): the pair goes on to it, its last
     * block cut to what the cap leaves (one iteration). */
    c = fab_adaptive(1.0);
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 0.35, 0.35, NULL, steady);
    CHECK(fabs(fab_quality_cap(1.0) - 4.0) < 1e-12);
    CHECK(p.warm == 2 && p.samples == 10 && blocks == 4 && p.met == 1);
    CHECK(p.warm_s + p.timed_s < 4.0 + 0.35 + 1e-9);
    /* 1.5 s iterations: one warm-up iteration (it alone took the time), then blocks of one
     * until the cap: stopped short of the floor, not precise. */
    c = fab_adaptive(1.0);
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 1.5, 1.5, NULL, steady);
    CHECK(p.warm == 1 && p.samples == 2 && blocks == 2 && p.met == 0);
    CHECK(p.warm_s + p.timed_s <= 4.5 + 1e-9);

    /* -t 0.1: 1 ms iterations until 0.1 s of them; --min-iters 10 first. */
    c = (fab_pstop_conf_t){.policy = FAB_PSTOP_TIME,
                           .warmup = -1,
                           .time_s = 0.1,
                           .min_iters = 10,
                           .max_iters = 1000000};
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 0.001, 0.001, NULL, steady);
    CHECK(p.samples >= 100 && p.samples <= 105 && p.met == -1);
    c.time_s = 0.001; /* the floor beats a time shorter than 10 iterations */
    fab_pstop_init(&p, &c);
    blocks = fab_drive(&p, 0.001, 0.001, NULL, steady);
    CHECK(p.samples == 10);

    /* The expected duration at the line rate: 1 Gb/s, 8 x 1 MiB (67 ms): a warm-up of two and
     * the floor of 10, inside the pair's second; at 250 Mb/s the floor takes 3.2 s (the most
     * too: inside the 4 s cap); a ping-pong stops after 3 blocks of 5 ms; -i has no bound. */
    c = fab_adaptive(1.0);
    fab_pstop_estimate(&c, 8 * 1048576.0 / 125e6, &e, &most);
    CHECK_NEAR(e, 12 * 8 * 1048576.0 / 125e6, 1e-9);
    CHECK_NEAR(most, 1.0, 1e-12);
    fab_pstop_estimate(&c, 8 * 1048576.0 / 31.25e6, &e, &most);
    CHECK_NEAR(e, 12 * 8 * 1048576.0 / 31.25e6, 1e-9);
    CHECK_NEAR(most, e, 1e-12);
    fab_pstop_estimate(&c, 0, &e, &most);
    CHECK_NEAR(e, 0.001 + 3 * FAB_PAIRS_BLOCK_S, 1e-12);
    fab_pstop_estimate(&c, NAN, &e, &most);
    CHECK(isnan(e) && most == 1.0);
    c = (fab_pstop_conf_t){.policy = FAB_PSTOP_FIXED, .fixed = 20, .warmup = -1};
    fab_pstop_estimate(&c, 0.5, &e, &most);
    CHECK_NEAR(e, 11.0, 1e-12);
    CHECK(isnan(most));
    CHECK(fab_pstop_default_time(true, 0) == FAB_PAIRS_TIME_LAT &&
          fab_pstop_default_time(false, 0) == FAB_PAIRS_TIME_BW &&
          fab_pstop_default_time(false, 3) == 3);
    return fab_test_report("pairs_stop");
}
