/* SPDX-License-Identifier: BSD-3-Clause */
/* Adaptive measurement: interval ranks against hand-computed values and an exact binomial,
 * regimes in block medians, the stop rule on synthetic sample streams, the round scheduler.
 * Known values only: the streams come from a seeded generator, nothing is timed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/options.h"
#include "core/status.h"
#include "kernel/registry.h"
#include "measure/adaptive.h"
#include "measure/quality.h"
#include "measure/rounds.h"
#include "measure/stats.h"

/* ---- a seeded generator: xorshift64*, uniform in (0, 1), normal by Box-Muller */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((double)((rng_state * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
    return sqrt(-2.0 * log(rng_uniform())) * cos(6.283185307179586 * rng_uniform());
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The exact interval of the median computed here independently: P(Bin(n, 1/2) <= i) from
 * Pascal's triangle, then the widest symmetric pair whose coverage reaches 0.95. */
static void exact_median_ranks(size_t n, size_t *lo, double *coverage)
{
    double row[64] = {1.0}, cdf = 0.0;
    size_t best = 1;

    for (size_t r = 1; r <= n; r++)
        for (size_t i = r; i > 0; i--)
            row[i] += row[i - 1];
    *coverage = 1.0 - 2.0 * row[0] / pow(2.0, (double)n);
    for (size_t j = 1; j <= (n + 1) / 2; j++) {
        double cov;

        cdf += row[j - 1] / pow(2.0, (double)n); /* P(X <= j-1) = P(X < j) */
        cov = 1.0 - 2.0 * cdf;
        if (cov >= 0.95 && 2 * j <= n) {
            best = j;
            *coverage = cov;
        }
    }
    *lo = best;
}

static void test_ranks(void)
{
    fab_ci_ranks_t r;
    fab_interval_t ci;
    double v[100];

    /* n = 5: even (1, 5) covers only 1 - 2/32 = 0.9375: the whole range, exact */
    r = fab_median_ci_ranks(5);
    CHECK(r.lo == 1 && r.hi == 5 && r.exact);
    CHECK_NEAR(r.coverage, 0.9375, 1e-15);
    /* n = 6: (1, 6) covers 1 - 2/64 = 0.96875 */
    r = fab_median_ci_ranks(6);
    CHECK(r.lo == 1 && r.hi == 6);
    CHECK_NEAR(r.coverage, 0.96875, 1e-15);
    /* n = 10: P(X <= 1) = 11/1024 <= 0.025 < P(X <= 2) = 56/1024: (2, 9), 1 - 22/1024 */
    r = fab_median_ci_ranks(10);
    CHECK(r.lo == 2 && r.hi == 9);
    CHECK_NEAR(r.coverage, 1.0 - 22.0 / 1024.0, 1e-15);
    /* n = 19: P(X <= 4) = 5036/2^19 <= 0.025 < P(X <= 5) = 16664/2^19: (5, 15) */
    r = fab_median_ci_ranks(19);
    CHECK(r.lo == 5 && r.hi == 15 && r.exact);
    CHECK_NEAR(r.coverage, 1.0 - 2.0 * 5036.0 / 524288.0, 1e-15);
    /* n = 20, normal approximation: 1.96 sqrt(20) = 8.765; floor(5.617) = 5, ceil(15.38) = 16 */
    r = fab_median_ci_ranks(20);
    CHECK(r.lo == 5 && r.hi == 16 && !r.exact);
    /* n = 100: floor((100 - 19.6)/2) = 40, ceil(1 + 119.6/2) = 61; coverage with continuity
     * correction Phi(2.1) - Phi(-2.1) = 0.96427 (exact P(40 <= X <= 60) = 0.9648) */
    r = fab_median_ci_ranks(100);
    CHECK(r.lo == 40 && r.hi == 61);
    CHECK_NEAR(r.coverage, 0.964271, 1e-5);
    /* n = 10^4: (10^4 - 196)/2 = 4902 and 1 + 10196/2 = 5099, both exact integers */
    r = fab_median_ci_ranks(10000);
    CHECK(r.lo == 4902 && r.hi == 5099);
    /* n = 2500: 1.96 x 50 = 98, (2500 - 98)/2 = 1201, 1 + 2598/2 = 1300: integers again */
    r = fab_median_ci_ranks(2500);
    CHECK(r.lo == 1201 && r.hi == 1300);
    r = fab_median_ci_ranks(0);
    CHECK(r.lo == 0 && r.hi == 0 && r.coverage == 0.0);
    r = fab_median_ci_ranks(1);
    CHECK(r.lo == 1 && r.hi == 1 && r.coverage == 0.0);

    /* every n below the threshold against the independent exact computation */
    for (size_t n = 2; n < FAB_CI_EXACT_BELOW; n++) {
        size_t lo;
        double cov;

        exact_median_ranks(n, &lo, &cov);
        r = fab_median_ci_ranks(n);
        CHECK(r.exact && r.lo == lo && r.hi == n + 1 - lo);
        CHECK_NEAR(r.coverage, cov, 1e-12);
        CHECK(n <= 5 ? r.coverage < 0.95 : r.coverage >= 0.95);
    }

    /* tail quantiles, n = 10^4: p99: np = 9900, 1.96 sqrt(99) = 19.50: (9880, 9921);
     * p99.9: np = 9990, 1.96 sqrt(9.99) = 6.195: (9983, 9998) */
    r = fab_quantile_ci_ranks(10000, 0.99);
    CHECK(r.lo == 9880 && r.hi == 9921);
    r = fab_quantile_ci_ranks(10000, 0.999);
    CHECK(r.lo == 9983 && r.hi == 9998);
    /* p = 1/2 is the median's approximation */
    r = fab_quantile_ci_ranks(100, 0.5);
    CHECK(r.lo == 40 && r.hi == 61);
    /* clamped to [1, n]: n = 10, p99.9 */
    r = fab_quantile_ci_ranks(10, 0.999);
    CHECK(r.lo == 9 && r.hi == 10);
    CHECK(fab_quantile_enough(1000, 0.99) && !fab_quantile_enough(999, 0.99));
    CHECK(fab_quantile_enough(10000, 0.999) && !fab_quantile_enough(9999, 0.999));
    CHECK(fab_quantile_enough(20, 0.5) && !fab_quantile_enough(19, 0.5));

    /* values 1..100: median 50.5, interval [40, 61], rel_half = 10.5 / 50.5 */
    for (int i = 0; i < 100; i++)
        v[i] = i + 1;
    fab_median_ci(v, 100, &ci);
    CHECK_NEAR(ci.centre, 50.5, 1e-12);
    CHECK_NEAR(ci.lo, 40.0, 0.0);
    CHECK_NEAR(ci.hi, 61.0, 0.0);
    CHECK_NEAR(ci.rel_half, 10.5 / 50.5, 1e-12);
    fab_quantile_ci(v, 100, 0.9, &ci); /* np = 90, 1.96 x 3 = 5.88: (84, 97) */
    CHECK_NEAR(ci.lo, 84.0, 0.0);
    CHECK_NEAR(ci.hi, 97.0, 0.0);
    CHECK_NEAR(ci.centre, 90.1, 1e-12);
    /* ties: no width at all */
    for (int i = 0; i < 100; i++)
        v[i] = 2.0;
    fab_median_ci(v, 100, &ci);
    CHECK(ci.rel_half == 0.0);
    fab_median_ci(v, 0, &ci);
    CHECK(isinf(ci.rel_half));
}

/* ---- regimes */

static void fill_levels(double *v, size_t n, const double *level, const size_t *count,
                        unsigned nlevels, double noise)
{
    size_t left[FAB_REGIME_MAX], k = 0;

    memcpy(left, count, sizeof(left[0]) * nlevels);
    /* interleave the levels the way rounds would meet them */
    while (k < n)
        for (unsigned g = 0; g < nlevels && k < n; g++)
            if (left[g] > 0) {
                left[g]--;
                v[k++] = level[g] * exp(noise * rng_normal());
            }
}

static void test_regimes(void)
{
    double v[FAB_ADAPT_MAX_BLOCKS + 1];
    fab_regimes_t r;

    /* unimodal, 5% log-normal noise over 30 blocks: no regimes */
    for (int i = 0; i < 30; i++)
        v[i] = 1e-6 * exp(0.05 * rng_normal());
    CHECK(fab_regimes_find(v, 30, &r) == FAB_OK);
    CHECK(r.n == 1 && r.count[0] == 30);
    CHECK_NEAR(r.share[0], 1.0, 0.0);
    CHECK_NEAR(r.level[0], 1e-6, 0.05e-6);
    /* bimodal: 12 blocks at 0.18 us, 8 at 0.65 us (this VM's regimes), 2% noise */
    {
        const double level[] = {0.18e-6, 0.65e-6};
        const size_t count[] = {12, 8};

        fill_levels(v, 20, level, count, 2, 0.02);
        CHECK(fab_regimes_find(v, 20, &r) == FAB_OK);
        CHECK(r.n == 2);
        CHECK(r.count[0] == 12 && r.count[1] == 8);
        CHECK_NEAR(r.share[0], 0.6, 1e-12);
        CHECK_NEAR(r.share[1], 0.4, 1e-12);
        CHECK_NEAR(r.level[0], 0.18e-6, 0.18e-6 * 0.03);
        CHECK_NEAR(r.level[1], 0.65e-6, 0.65e-6 * 0.03);
    }
    /* trimodal: 1, 2, 4 us, 8 + 6 + 6 blocks */
    {
        const double level[] = {1e-6, 2e-6, 4e-6};
        const size_t count[] = {8, 6, 6};

        fill_levels(v, 20, level, count, 3, 0.02);
        CHECK(fab_regimes_find(v, 20, &r) == FAB_OK);
        CHECK(r.n == 3);
        CHECK(r.count[0] == 8 && r.count[1] == 6 && r.count[2] == 6);
        CHECK_NEAR(r.share[0], 0.4, 1e-12);
        CHECK_NEAR(r.level[1], 2e-6, 2e-6 * 0.03);
        CHECK_NEAR(r.level[2], 4e-6, 4e-6 * 0.03);
    }
    /* one odd block of 10 is an outlier, not a regime (a group needs 2 blocks) */
    for (int i = 0; i < 10; i++)
        v[i] = 1e-6 * (1.0 + 0.001 * i);
    v[4] = 3.5e-6;
    CHECK(fab_regimes_find(v, 10, &r) == FAB_OK && r.n == 1);
    /* two blocks of 40 (5%): below the 10% share */
    for (int i = 0; i < 40; i++)
        v[i] = 1e-6 * (1.0 + 0.0005 * i);
    v[7] = v[30] = 3.5e-6;
    CHECK(fab_regimes_find(v, 40, &r) == FAB_OK && r.n == 1);
    v[19] = v[22] = 3.5e-6; /* four of 40: 10% */
    CHECK(fab_regimes_find(v, 40, &r) == FAB_OK && r.n == 2 && r.count[1] == 4);
    /* clearly separate but only 10% apart: below the 1.2 ratio */
    for (int i = 0; i < 20; i++)
        v[i] = (i % 2 ? 1.1e-6 : 1e-6) * (1.0 + 0.0001 * i);
    CHECK(fab_regimes_find(v, 20, &r) == FAB_OK && r.n == 1);
    /* identical values; too few blocks; too many */
    for (int i = 0; i < 8; i++)
        v[i] = 5e-6;
    CHECK(fab_regimes_find(v, 8, &r) == FAB_OK && r.n == 1);
    v[0] = 1e-6;
    v[1] = 1e-6;
    v[2] = 9e-6;
    CHECK(fab_regimes_find(v, 3, &r) == FAB_OK && r.n == 1);
    CHECK(fab_regimes_find(v, FAB_ADAPT_MAX_BLOCKS + 1, &r) == FAB_ERR_INTERNAL && r.n == 1);
}

/* ---- the stop rule on synthetic streams, several sizes sharing a budget in rounds */

enum { PER_BLOCK = 200, NSIZES = 4 };

typedef struct stream {
    double (*level)(size_t block);
    double noise;   /* relative sd of a sample */
    double block_s; /* what a block costs */
    double *pool;   /* every sample of the size so far */
    size_t npool;
} stream_t;

static double level_steady(size_t b)
{
    (void)b;
    return 1e-6;
}

static double level_bimodal(size_t b) /* alternating regimes 3.6x apart */
{
    return b % 2 ? 0.65e-6 : 0.18e-6;
}

static double level_bimodal_aab(size_t b) /* two thirds fast: the medians look precise */
{
    return b % 3 == 2 ? 0.65e-6 : 0.18e-6;
}

static double level_drift(size_t b) /* rising 2% a block: more than the 1% target */
{
    return 1e-6 * (1.0 + 0.02 * (double)b);
}

static void block_of(stream_t *s, size_t b, double *median)
{
    double blk[PER_BLOCK];

    for (int i = 0; i < PER_BLOCK; i++) {
        blk[i] = s->level(b) * (1.0 + s->noise * rng_normal());
        s->pool[s->npool++] = blk[i];
    }
    qsort(blk, PER_BLOCK, sizeof(blk[0]), cmp_double);
    *median = fab_percentile_sorted(blk, PER_BLOCK, 0.5);
}

/* Rounds until every size stopped; checks that every unstopped size is in every round, that
 * the shares sum to the remaining budget, and that the budget is not overrun. */
static size_t simulate(stream_t *st, size_t n, double budget_s, fab_adapt_t *rows,
                       fab_adapt_verdict_t *v)
{
    bool in[NSIZES], after[NSIZES];
    double share[NSIZES], remaining = budget_s;
    double *sorted = malloc(sizeof(double) * FAB_ADAPT_MAX_BLOCKS * PER_BLOCK);
    size_t rounds = 0;

    for (size_t i = 0; i < n; i++) {
        fab_adapt_init(&rows[i], 0.01, FAB_ADAPT_MIN_BLOCKS, st[i].block_s);
        st[i].pool = malloc(sizeof(double) * FAB_ADAPT_MAX_BLOCKS * PER_BLOCK);
        st[i].npool = 0;
    }
    while (fab_adapt_schedule(rows, n, remaining, in, share) > 0) {
        double sum = 0.0;

        for (size_t i = 0; i < n; i++) {
            sum += share[i];
            CHECK(in[i] == (rows[i].decision == FAB_ADAPT_CONTINUE));
        }
        CHECK_NEAR(sum, remaining, 1e-12);
        rounds++;
        for (size_t i = 0; i < n; i++) {
            double med;

            if (!in[i])
                continue;
            CHECK(rows[i].nblocks == rounds - 1); /* it took every round so far */
            block_of(&st[i], rows[i].nblocks, &med);
            CHECK(fab_adapt_add_block(&rows[i], med, st[i].block_s, PER_BLOCK) == FAB_OK);
            remaining -= st[i].block_s;
        }
        /* the shares after this round's blocks: does one more block fit? */
        fab_adapt_schedule(rows, n, remaining, after, share);
        for (size_t i = 0; i < n; i++) {
            fab_interval_t pooled;

            if (!in[i])
                continue;
            memcpy(sorted, st[i].pool, sizeof(double) * st[i].npool);
            qsort(sorted, st[i].npool, sizeof(double), cmp_double);
            fab_median_ci(sorted, st[i].npool, &pooled);
            fab_adapt_decide(&rows[i], &pooled, share[i], &v[i]);
        }
    }
    CHECK(remaining >= -1e-12);
    for (size_t i = 0; i < n; i++)
        free(st[i].pool);
    free(sorted);
    return rounds;
}

static void test_streams(void)
{
    stream_t st[NSIZES] = {
        {level_steady, 0.001, 0.010, NULL, 0},
        {level_bimodal, 0.01, 0.010, NULL, 0},
        {level_bimodal_aab, 0.01, 0.020, NULL, 0},
        {level_drift, 0.005, 0.010, NULL, 0},
    };
    fab_adapt_t rows[NSIZES];
    fab_adapt_verdict_t v[NSIZES];
    size_t rounds;

    /* 2.06 s: 3 rounds of 0.05 s, then the steady size has stopped and a round costs 0.04 s:
     * after round 50, 0.03 s are left, less than a round */
    rounds = simulate(st, NSIZES, 2.06, rows, v);
    /* steady: precise as soon as allowed */
    CHECK(rows[0].decision == FAB_ADAPT_STOP_PRECISE && rows[0].nblocks == FAB_ADAPT_MIN_BLOCKS);
    CHECK(v[0].pooled_rel <= 0.01 && v[0].blocks_rel <= 0.01 && v[0].regimes.n == 1);
    /* the others run until the budget holds no further round: all in the same round */
    CHECK(rounds == 50);
    for (int i = 1; i < NSIZES; i++) {
        CHECK(rows[i].decision == FAB_ADAPT_STOP_BUDGET);
        CHECK(rows[i].nblocks == 50);
    }
    /* bimodal over time: no precision claimed, both regimes with their shares */
    CHECK(v[1].blocks_rel > 0.5);
    CHECK(v[1].regimes.n == 2);
    CHECK_NEAR(v[1].regimes.level[0], 0.18e-6, 0.18e-6 * 0.01);
    CHECK_NEAR(v[1].regimes.level[1], 0.65e-6, 0.65e-6 * 0.01);
    CHECK_NEAR(v[1].regimes.share[0], 0.5, 1e-12);
    CHECK_NEAR(v[1].regimes.share[1], 0.5, 1e-12);
    /* two thirds in one regime: both intervals narrow, yet not precise, for the regime */
    CHECK(v[2].pooled_rel <= 0.01 && v[2].blocks_rel <= 0.01);
    CHECK(v[2].regimes.n == 2 && v[2].regimes.count[0] == 34 && v[2].regimes.count[1] == 16);
    /* drifting: the pooled interval alone would claim 1% (it takes the samples as
     * independent); the blocks never agree; a drift is not a set of regimes */
    CHECK(v[3].pooled_rel <= 0.01 && v[3].blocks_rel > 0.05);
    CHECK(v[3].regimes.n == 1);
    /* a stopped size takes no more blocks */
    CHECK(fab_adapt_add_block(&rows[0], 1e-6, 0.01, 100) == FAB_ERR_INTERNAL);
}

/* ---- the floor and the overrun cap on synthetic streams: a busy machine gives blocks of one
 * or two samples, each costing far more than its share of the budget. Every size runs in
 * every round; after each block the size decides with its share of what is left; the cap is
 * the run's (fab_quality_cap), reached once the blocks so far have taken that long. */
typedef struct floor_run {
    size_t rounds;
    double elapsed;
    unsigned reasons[NSIZES];
} floor_run_t;

static floor_run_t simulate_floor(size_t n, const unsigned *per_block, double block_s,
                                  double budget_s, fab_adapt_t *rows)
{
    bool in[NSIZES];
    double share[NSIZES], cap = fab_quality_cap(budget_s);
    floor_run_t fr = {0, 0.0, {0}};

    for (size_t i = 0; i < n; i++)
        fab_adapt_init(&rows[i], 0.01, FAB_ADAPT_MIN_BLOCKS, block_s);
    while (fab_adapt_schedule(rows, n, budget_s - fr.elapsed, in, share) > 0) {
        fr.rounds++;
        for (size_t i = 0; i < n; i++) {
            fab_interval_t pooled = {.rel_half = 0.5, .n = 0}; /* never precise */
            fab_adapt_verdict_t v;

            if (!in[i])
                continue;
            CHECK(fab_adapt_add_block(&rows[i], 1e-6, block_s, per_block[i]) == FAB_OK);
            fr.elapsed += block_s;
            rows[i].capped = fr.elapsed >= cap;
            fab_adapt_schedule(rows, n, budget_s - fr.elapsed, in, share);
            in[i] = true;
            fab_adapt_decide(&rows[i], &pooled, share[i], &v);
        }
        CHECK(fr.rounds < 1000);
    }
    for (size_t i = 0; i < n; i++) {
        fab_quality_in_t q = {.iters = rows[i].samples,
                              .blocks = rows[i].nblocks,
                              .min_blocks = FAB_ADAPT_MIN_BLOCKS,
                              .cpu_min_pct = NAN,
                              .steal_pct = NAN,
                              .runnable_per_cpu = NAN,
                              .ctxsw_per_s = NAN,
                              .regimes = 1,
                              .target_met = rows[i].decision == FAB_ADAPT_STOP_PRECISE};

        fr.reasons[i] = fab_quality_reasons(&q);
    }
    return fr;
}

static void test_floor(void)
{
    fab_adapt_t rows[NSIZES];
    unsigned one[NSIZES] = {1, 1, 1, 1}, mixed[NSIZES] = {1, 2, 5, 200};
    floor_run_t fr;

    /* the cap: 4 x the budget or the budget + 2 s, whichever is longer */
    CHECK_NEAR(fab_quality_cap(2.3), 9.2, 1e-12);
    CHECK_NEAR(fab_quality_cap(0.075), 2.075, 1e-12);
    CHECK_NEAR(fab_quality_cap(0.5), 2.5, 1e-12);
    CHECK_NEAR(fab_quality_cap(1.0), 4.0, 1e-12);
    CHECK(fab_quality_cap(0.0) == 0.0);

    /* one sample per block of 0.1 s, 4 sizes, a 1 s budget (2.5 rounds): the old rule stopped
     * every size after 2 blocks of 1 sample; now each goes on to 10 samples (10 blocks: 4 s,
     * within the cap of 4 s), and every row is at the floor, none precise but marked */
    fr = simulate_floor(NSIZES, one, 0.1, 1.0, rows);
    CHECK(fr.rounds == FAB_FLOOR_SAMPLES);
    CHECK_NEAR(fr.elapsed, 4.0, 1e-9);
    for (int i = 0; i < NSIZES; i++) {
        CHECK(rows[i].decision == FAB_ADAPT_STOP_BUDGET && rows[i].samples == FAB_FLOOR_SAMPLES);
        CHECK(fab_adapt_floor_met(&rows[i]));
        CHECK(fab_quality_of(fr.reasons[i]) == FAB_Q_NOISY && fr.reasons[i] == FAB_QR_PRECISION);
    }
    /* mixed: 200 samples a block meet the samples' floor in a block, but take 3 blocks; 5 a
     * block take 2 blocks for 10 and a third for the blocks' floor; nobody stops below */
    fr = simulate_floor(NSIZES, mixed, 0.1, 1.0, rows);
    CHECK(rows[3].nblocks == FAB_ADAPT_MIN_BLOCKS && rows[2].nblocks == FAB_ADAPT_MIN_BLOCKS);
    CHECK(rows[1].nblocks == 5 && rows[0].nblocks == 10);
    for (int i = 0; i < NSIZES; i++)
        CHECK(fab_adapt_floor_met(&rows[i]) && !(fr.reasons[i] & FAB_QR_INVALID));
    /* a slower machine: blocks of 0.5 s, a 0.5 s budget; the cap (2.5 s) is reached in the
     * second round: every size stops there, below the floor, and is invalid */
    fr = simulate_floor(NSIZES, one, 0.5, 0.5, rows);
    CHECK(fr.rounds == 2);
    for (int i = 0; i < NSIZES; i++) {
        CHECK(rows[i].decision == FAB_ADAPT_STOP_BUDGET && !fab_adapt_floor_met(&rows[i]));
        CHECK(fab_quality_of(fr.reasons[i]) == FAB_Q_INVALID);
        CHECK(fr.reasons[i] & FAB_QR_SAMPLES);
        CHECK((fr.reasons[i] & FAB_QR_BLOCKS) ==
              (rows[i].nblocks < FAB_ADAPT_MIN_BLOCKS ? FAB_QR_BLOCKS : 0u));
    }
    /* precision is not enough below the floor: 3 blocks of 2 identical samples are "precise"
     * yet 6 samples: no PRECISE stop; the 4th and 5th blocks bring 10 */
    {
        fab_adapt_t a;
        fab_adapt_verdict_t v;
        fab_interval_t pooled = {.rel_half = 0.0};

        fab_adapt_init(&a, 0.01, FAB_ADAPT_MIN_BLOCKS, 1.0);
        for (int i = 0; i < 3; i++)
            CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 2) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 100.0, &v) == FAB_ADAPT_CONTINUE);
        CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 2) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 100.0, &v) == FAB_ADAPT_CONTINUE);
        CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 2) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 100.0, &v) == FAB_ADAPT_STOP_PRECISE);
    }
}

/* ---- a row's quality from known figures; a run's tally in words */
static fab_quality_in_t quality_in(uint64_t iters, uint64_t blocks, unsigned min_blocks)
{
    fab_quality_in_t q = {iters, blocks, min_blocks, false, 100.0, 0.0, 1.0, 10.0, 1, 1, false};

    return q;
}

static void test_quality(void)
{
    fab_quality_in_t q;
    fab_quality_tally_t t;
    char words[80], line[400];

    /* the floor: 10 samples; adaptive 3 blocks; a fixed policy has no blocks to count */
    q = quality_in(9, 3, 3);
    CHECK(fab_quality_reasons(&q) == FAB_QR_SAMPLES);
    CHECK(fab_quality_of(fab_quality_reasons(&q)) == FAB_Q_INVALID);
    q = quality_in(10, 2, 3);
    CHECK(fab_quality_reasons(&q) == FAB_QR_BLOCKS);
    q = quality_in(10, 0, 0);
    q.target_met = -1;
    q.regimes = 0;
    CHECK(fab_quality_reasons(&q) == 0 && fab_quality_of(0) == FAB_Q_OK);
    q = quality_in(10, 1, 1); /* a one-block row by design */
    CHECK(fab_quality_reasons(&q) == 0);
    /* disturbed: each threshold just past, and just at (not beyond) */
    q = quality_in(1000, 5, 3);
    q.cpu_min_pct = 79.9;
    CHECK(fab_quality_reasons(&q) == FAB_QR_CPU);
    q.cpu_min_pct = FAB_DISTURB_CPU_PCT;
    CHECK(fab_quality_reasons(&q) == 0);
    q.cpu_min_pct = 10.0;
    q.sleeps = true; /* socket kernels: their ranks sleep by design */
    CHECK(fab_quality_reasons(&q) == 0);
    q = quality_in(1000, 5, 3);
    q.steal_pct = 5.01;
    q.runnable_per_cpu = 1.26;
    q.ctxsw_per_s = 100.5;
    CHECK(fab_quality_reasons(&q) == (FAB_QR_STEAL | FAB_QR_RUNNABLE | FAB_QR_CTXSW));
    CHECK(fab_quality_of(fab_quality_reasons(&q)) == FAB_Q_DISTURBED);
    q.steal_pct = FAB_DISTURB_STEAL_PCT;
    q.runnable_per_cpu = FAB_DISTURB_RUNNABLE;
    q.ctxsw_per_s = FAB_DISTURB_CTXSW_PER_S;
    CHECK(fab_quality_reasons(&q) == 0);
    /* preemptions alone: a row only above the second threshold; beside another sign, from
     * the first */
    q = quality_in(1000, 5, 3);
    q.ctxsw_per_s = 480.0;
    CHECK(fab_quality_reasons(&q) == 0);
    q.ctxsw_per_s = FAB_DISTURB_CTXSW_ALONE_PER_S;
    CHECK(fab_quality_reasons(&q) == 0);
    q.ctxsw_per_s = FAB_DISTURB_CTXSW_ALONE_PER_S + 0.5;
    CHECK(fab_quality_reasons(&q) == FAB_QR_CTXSW);
    q.ctxsw_per_s = 100.5;
    q.cpu_min_pct = 79.9;
    CHECK(fab_quality_reasons(&q) == (FAB_QR_CPU | FAB_QR_CTXSW));
    q.cpu_min_pct = q.steal_pct = q.runnable_per_cpu = q.ctxsw_per_s = NAN; /* unknown */
    CHECK(fab_quality_reasons(&q) == 0);
    /* noisy: regimes, a missed target */
    q = quality_in(1000, 5, 3);
    q.regimes = 2;
    q.target_met = 0;
    CHECK(fab_quality_reasons(&q) == (FAB_QR_REGIMES | FAB_QR_PRECISION));
    CHECK(fab_quality_of(fab_quality_reasons(&q)) == FAB_Q_NOISY);
    /* the worst class wins; every reason is kept, in order */
    q = quality_in(1, 1, 3);
    q.cpu_min_pct = 20;
    q.regimes = 2;
    CHECK(fab_quality_of(fab_quality_reasons(&q)) == FAB_Q_INVALID);
    fab_quality_words(fab_quality_reasons(&q), words, sizeof(words));
    CHECK(strcmp(words, "samples;blocks;cpu;regimes") == 0);
    CHECK(fab_quality_parse_words(words) == fab_quality_reasons(&q));
    CHECK(fab_quality_parse_words("cpu;nonsense;;steal") == (FAB_QR_CPU | FAB_QR_STEAL));
    fab_quality_words(FAB_QR_NOISY | FAB_QR_DISTURBED | FAB_QR_INVALID, words, sizeof(words));
    CHECK(strcmp(words, "samples;blocks;cpu;steal;runnable;ctxsw;regimes;precision;implausible") ==
          0);
    CHECK(strlen(words) < sizeof(((fab_row_t *)0)->quality_reason)); /* fits the row's */
    CHECK(fab_quality_of(FAB_QR_IMPLAUSIBLE) == FAB_Q_INVALID);
    fab_quality_words(0, words, sizeof(words));
    CHECK(words[0] == '\0');
    CHECK(strcmp(fab_quality_name(FAB_Q_OK), "ok") == 0 &&
          strcmp(fab_quality_name(FAB_Q_NOISY), "noisy") == 0 &&
          strcmp(fab_quality_name(FAB_Q_DISTURBED), "disturbed") == 0 &&
          strcmp(fab_quality_name(FAB_Q_INVALID), "invalid") == 0);

    /* the tally: 4 rows, two disturbed by CPU (20% and 45%), one by runnable tasks too, one
     * invalid, one ok */
    fab_quality_tally_init(&t);
    q = quality_in(1000, 5, 3);
    q.cpu_min_pct = 45;
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    q.cpu_min_pct = 20;
    q.runnable_per_cpu = 2.5;
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    q = quality_in(3, 1, 3);
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    q = quality_in(1000, 5, 3);
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    CHECK(t.rows == 4 && t.disturbed == 2 && t.invalid == 1 && t.noisy == 0);
    fab_quality_tally_text(&t, line, sizeof(line));
    CHECK(strcmp(line, "busy: a rank ran only 20-45% of the time, up to 2.5 runnable tasks per "
                       "CPU; 2 of 4 rows disturbed, 1 invalid") == 0);
    fab_quality_tally_init(&t);
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    fab_quality_tally_text(&t, line, sizeof(line));
    CHECK(strcmp(line, "quiet") == 0);
    q = quality_in(3, 1, 3);
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    fab_quality_tally_text(&t, line, sizeof(line));
    CHECK(strcmp(line, "quiet; 1 of 2 rows invalid (below the floor)") == 0);
    /* shares that print alike are one figure, not a range "14-14%" */
    fab_quality_tally_init(&t);
    q = quality_in(1000, 5, 3);
    q.cpu_min_pct = 14.0;
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    q.cpu_min_pct = 14.4;
    fab_quality_tally_add(&t, &q, fab_quality_reasons(&q));
    fab_quality_tally_text(&t, line, sizeof(line));
    CHECK(strcmp(line, "busy: a rank ran only 14% of the time; 2 of 2 rows disturbed") == 0);
}

static void test_schedule(void)
{
    fab_adapt_t rows[4];
    bool in[4];
    double share[4];

    fab_adapt_init(&rows[0], 0.01, 3, 1.0);
    fab_adapt_init(&rows[1], 0.01, 3, 2.0);
    fab_adapt_init(&rows[2], 0.01, 3, 5.0);
    fab_adapt_init(&rows[3], 0.01, 3, 3.0);
    rows[2].decision = FAB_ADAPT_STOP_PRECISE;
    /* in proportion to a block's cost 1 : 2 : 3 of 12 s, the stopped size out */
    CHECK(fab_adapt_schedule(rows, 4, 12.0, in, share) == 3);
    CHECK(in[0] && in[1] && !in[2] && in[3]);
    CHECK_NEAR(share[0], 2.0, 1e-12);
    CHECK_NEAR(share[1], 4.0, 1e-12);
    CHECK_NEAR(share[2], 0.0, 0.0);
    CHECK_NEAR(share[3], 6.0, 1e-12);
    /* measured blocks replace the estimate: 2 blocks in 8 s cost 4 s each */
    CHECK(fab_adapt_add_block(&rows[0], 1e-6, 3.0, 100) == FAB_OK);
    CHECK(fab_adapt_add_block(&rows[0], 1e-6, 5.0, 100) == FAB_OK);
    CHECK_NEAR(fab_adapt_block_cost(&rows[0]), 4.0, 1e-12);
    CHECK(fab_adapt_schedule(rows, 4, 9.0, in, share) == 3);
    CHECK_NEAR(share[0] + share[1] + share[3], 9.0, 1e-12);
    /* the floor first: size 0 lacks 1 block (4 s), sizes 1 and 3 their 3 (6 s, 9 s); 19 s do
     * not fit in 9: in proportion to them */
    CHECK_NEAR(fab_adapt_floor_reserve(&rows[0]), 4.0, 1e-12);
    CHECK_NEAR(fab_adapt_floor_reserve(&rows[1]), 6.0, 1e-12);
    CHECK_NEAR(share[0], 9.0 * 4.0 / 19.0, 1e-12);
    CHECK_NEAR(share[3], 9.0 * 9.0 / 19.0, 1e-12);
    /* 30 s: the reserves whole, the 11 s left by cost (4 : 2 : 3) */
    CHECK(fab_adapt_schedule(rows, 4, 30.0, in, share) == 3);
    CHECK_NEAR(share[0], 4.0 + 11.0 * 4.0 / 9.0, 1e-12);
    CHECK_NEAR(share[1], 6.0 + 11.0 * 2.0 / 9.0, 1e-12);
    CHECK_NEAR(share[0] + share[1] + share[3], 30.0, 1e-12);
    /* short of samples, not blocks: 3 blocks of 2 lack 4 samples, 2 more blocks; at the
     * floor nothing is reserved */
    {
        fab_adapt_t a;

        fab_adapt_init(&a, 0.01, 3, 1.0);
        for (int i = 0; i < 3; i++)
            CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 2) == FAB_OK);
        CHECK_NEAR(fab_adapt_floor_reserve(&a), 2.0, 1e-12);
        CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 4) == FAB_OK);
        CHECK_NEAR(fab_adapt_floor_reserve(&a), 0.0, 0.0);
    }
    /* costs all 0: an even split; no budget left: shares 0 */
    fab_adapt_init(&rows[0], 0.01, 3, 0.0);
    fab_adapt_init(&rows[1], 0.01, 3, 0.0);
    CHECK(fab_adapt_schedule(rows, 2, 6.0, in, share) == 2);
    CHECK_NEAR(share[0], 3.0, 1e-12);
    CHECK_NEAR(share[1], 3.0, 1e-12);
    CHECK(fab_adapt_schedule(rows, 2, -1.0, in, share) == 2);
    CHECK(share[0] == 0.0 && share[1] == 0.0);
    /* a budget stop: the share does not buy one more block; precision wins over budget */
    {
        fab_adapt_t a;
        fab_adapt_verdict_t v;
        fab_interval_t pooled = {.rel_half = 0.001};

        fab_adapt_init(&a, 0.01, 3, 1.0);
        for (int i = 0; i < 2; i++)
            CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 100) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 5.0, &v) == FAB_ADAPT_CONTINUE); /* 2 < 3 blocks */
        /* below the floor (2 < 3 blocks) a spent share does not stop it; the cap does */
        CHECK(fab_adapt_decide(&a, &pooled, 0.5, &v) == FAB_ADAPT_CONTINUE);
        a.capped = true;
        CHECK(fab_adapt_decide(&a, &pooled, 0.5, &v) == FAB_ADAPT_STOP_BUDGET);
        a.capped = false;
        a.decision = FAB_ADAPT_CONTINUE;
        CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 100) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 0.0, &v) == FAB_ADAPT_STOP_PRECISE);
        /* the block cap is a budget */
        fab_adapt_init(&a, 0.0, 3, 1.0);
        for (int i = 0; i < FAB_ADAPT_MAX_BLOCKS; i++)
            CHECK(fab_adapt_add_block(&a, 1e-6 * (1 + i % 2), 1.0, 100) == FAB_OK);
        CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 100) == FAB_ERR_INTERNAL);
        CHECK(fab_adapt_decide(&a, &pooled, 1e9, &v) == FAB_ADAPT_STOP_BUDGET);
        /* spend (a loss count): precise goes on while the share buys a block, then stops
         * PRECISE; not precise, it stops BUDGET as before */
        fab_adapt_init(&a, 0.01, 3, 1.0);
        a.spend = true;
        for (int i = 0; i < 3; i++)
            CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 100) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 1.5, &v) == FAB_ADAPT_CONTINUE);
        CHECK(fab_adapt_add_block(&a, 1e-6, 1.0, 100) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 0.5, &v) == FAB_ADAPT_STOP_PRECISE);
        fab_adapt_init(&a, 0.01, 3, 1.0);
        a.spend = true;
        for (int i = 0; i < 3; i++)
            CHECK(fab_adapt_add_block(&a, 1e-6 * (1 + i), 1.0, 100) == FAB_OK);
        CHECK(fab_adapt_decide(&a, &pooled, 0.5, &v) == FAB_ADAPT_STOP_BUDGET);
    }
}

/* ---- which kernels are measured together: consecutive ones but the pairs kernels and
 * those with buffers of their own (gradsync); none without the adaptive policy */
static void test_groups(void)
{
    static const char *names[] = {"latency",  "bw",       "pairs_bw", "allreduce",
                                  "gradsync", "alltoall", "bcast",    "reduce"};
    fab_opts_t o;
    int first, n;
    char policy[512];

    fab_opts_defaults(&o);
    o.launch.nkernels = 8;
    for (int i = 0; i < 8; i++) {
        o.launch.kernels[i] = (fab_kinst_t){fab_kernel_find(names[i]), NAN, false};
        CHECK(o.launch.kernels[i].k != NULL);
    }
    o.meas.adaptive = true;
    CHECK(fab_rounds_groupable(o.launch.kernels[0].k) &&
          !fab_rounds_groupable(o.launch.kernels[2].k) &&
          !fab_rounds_groupable(o.launch.kernels[4].k));
    n = fab_rounds_group(&o.launch, &o.meas, 0, &first);
    CHECK(first == 0 && n == 2);
    n = fab_rounds_group(&o.launch, &o.meas, 1, &first);
    CHECK(first == 0 && n == 2);
    n = fab_rounds_group(&o.launch, &o.meas, 2, &first);
    CHECK(first == 2 && n == 1);
    n = fab_rounds_group(&o.launch, &o.meas, 3, &first);
    CHECK(first == 3 && n == 1);
    n = fab_rounds_group(&o.launch, &o.meas, 4, &first);
    CHECK(first == 4 && n == 1);
    n = fab_rounds_group(&o.launch, &o.meas, 6, &first);
    CHECK(first == 5 && n == 3);
    fab_rounds_policy(&o.launch, &o.meas, &o.launch.kernels[6], policy, sizeof(policy));
    CHECK(strstr(policy, "rounds over the sizes of alltoall, bcast and reduce together,") != NULL);
    fab_rounds_policy(&o.launch, &o.meas, &o.launch.kernels[3], policy, sizeof(policy));
    CHECK(strstr(policy, "rounds over the sizes, one block") != NULL);
    o.meas.adaptive = false;
    o.meas.iters = 100;
    n = fab_rounds_group(&o.launch, &o.meas, 6, &first);
    CHECK(first == 6 && n == 1);
    fab_rounds_policy(&o.launch, &o.meas, &o.launch.kernels[6], policy, sizeof(policy));
    CHECK(strncmp(policy, "fixed: 100 iterations", 21) == 0);
}

/* A block's length: the pace; below the floor at least the floor spread over its blocks. */
static void test_block_want(void)
{
    fab_adapt_t a;

    fab_adapt_init(&a, 0.01, 3, 0.005); /* floor: 3 blocks, FAB_FLOOR_SAMPLES samples */
    CHECK(a.min_samples == 10);
    /* a short iteration: the pace's 5 ms hold far more than the floor */
    CHECK_NEAR(fab_adapt_block_want(&a, 0, 0, 1e-6, 0.005, false, false), 5000.0, 1e-9);
    /* a 21 ms iteration (bw, 4 MiB): the first block at the pace (the first round must fit
     * the budget), then the floor's 10 samples over its 3 blocks, 1 + 5 + 4, not 1 a round */
    CHECK_NEAR(fab_adapt_block_want(&a, 0, 0, 0.021, 0.005, false, false), 1.0, 0.0);
    CHECK_NEAR(fab_adapt_block_want(&a, 1, 1, 0.021, 0.005, false, false), 5.0, 0.0);
    CHECK_NEAR(fab_adapt_block_want(&a, 6, 2, 0.021, 0.005, false, false), 4.0, 0.0);
    /* at the floor: one iteration, the most the pace allows, never 0 */
    CHECK_NEAR(fab_adapt_block_want(&a, 10, 3, 0.021, 0.005, false, false), 1.0, 0.0);
    /* blocks met, samples short: the rest in one block */
    CHECK_NEAR(fab_adapt_block_want(&a, 6, 3, 0.021, 0.005, false, false), 4.0, 0.0);
    /* after the budget: exactly what is lacking, also for a short iteration */
    CHECK_NEAR(fab_adapt_block_want(&a, 2, 1, 1e-6, 0.005, true, false), 4.0, 0.0);
    /* past the cap: the pace, whatever is lacking */
    CHECK_NEAR(fab_adapt_block_want(&a, 0, 0, 0.021, 0.005, true, true), 1.0, 0.0);
    /* no time known yet: one */
    CHECK_NEAR(fab_adapt_block_want(&a, 10, 3, 0.0, 0.005, false, false), 1.0, 0.0);
}

int main(void)
{
    test_ranks();
    test_groups();
    test_regimes();
    test_streams();
    test_floor();
    test_quality();
    test_schedule();
    test_block_want();
    /* fab_median_select against sorting: random lengths 1..300, values with many ties */
    {
        unsigned seed = 12345;
        double v[300], w[300];

        for (int t = 0; t < 2000; t++) {
            size_t n = 1 + (size_t)(t % 300);

            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                v[i] = (double)((seed >> 16) % (t % 3 == 0 ? 5 : 1000));
                w[i] = v[i];
            }
            qsort(w, n, sizeof(w[0]), cmp_double);
            CHECK_NEAR(fab_median_select(v, n), fab_percentile_sorted(w, n, 0.5), 0.0);
        }
        CHECK(isnan(fab_median_select(v, 0)));
    }
    return fab_test_report("test_adaptive");
}
