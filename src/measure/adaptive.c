/* SPDX-License-Identifier: BSD-3-Clause */
/* Adaptive measurement: order-statistic intervals, regimes in block medians, the stop rule
 * and the budget split. The definitions are in adaptive.h; here is only how.
 *
 * Why the blocks are tested on their own (rule (2)): the pooled interval assumes independent
 * samples. On a shared host the samples of one block share the host's state of that moment
 * (issue 16: 8 B latency at 0.18 or 0.65 us for seconds at a time), so the pooled interval
 * is too narrow; the block medians, taken rounds apart, are close to independent, and their
 * own interval is as wide as the run-to-run spread the user would see.
 *
 * Why the regime thresholds: a gap of 3 spreads between neighbouring sorted values rarely
 * occurs by chance in one noisy level of a few dozen blocks; levels less than 20% apart are
 * ordinary noise on shared hosts, while the regimes seen there are 3.5x apart (0.18 and
 * 0.65 us); one odd block is an outlier, not a regime (2 blocks at least), and two odd blocks
 * of a hundred are not a regime either (10% at least).
 *
 * Why the budget goes in proportion to a block's cost: every unstopped size takes one block
 * per round, so a round costs the sum of their blocks; an even split would leave cheap sizes
 * budget they cannot use while expensive ones overrun theirs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "measure/adaptive.h"
#include "measure/stats.h"

#define FAB_CI_MARGIN 1e-9

/* P(Bin(n, 1/2) < j), exact for the small n it is used with (n < FAB_CI_EXACT_BELOW: the
 * coefficients and their sum stay far below 2^53). */
static double fab_binom_half_below(size_t n, size_t j)
{
    uint64_t c = 1, sum = 0;

    for (size_t i = 0; i < j && i <= n; i++) {
        sum += c;
        c = c * (n - i) / (i + 1);
    }
    return ldexp((double)sum, -(int)n);
}

static double fab_phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

static fab_ci_ranks_t fab_ranks_normal(size_t n, double p)
{
    fab_ci_ranks_t r = {0, 0, 0.0, false};
    double np = (double)n * p, s = sqrt((double)n * p * (1.0 - p));
    double lo = floor(np - FAB_CI_Z * s + FAB_CI_MARGIN);
    double hi = ceil(1.0 + np + FAB_CI_Z * s - FAB_CI_MARGIN);

    if (n == 0)
        return r;
    r.lo = lo < 1.0 ? 1 : (lo > (double)n ? n : (size_t)lo);
    r.hi = hi > (double)n ? n : (hi < 1.0 ? 1 : (size_t)hi);
    if (s > 0.0)
        r.coverage =
            fab_phi(((double)r.hi - 0.5 - np) / s) - fab_phi(((double)r.lo - 0.5 - np) / s);
    return r;
}

fab_ci_ranks_t fab_median_ci_ranks(size_t n)
{
    fab_ci_ranks_t r = {0, 0, 0.0, true};

    if (n == 0)
        return r;
    if (n >= FAB_CI_EXACT_BELOW)
        return fab_ranks_normal(n, 0.5);
    /* The coverage of (j, n+1-j) falls as j grows: take the largest j that keeps 0.95. */
    r.lo = 1;
    for (size_t j = 2; j <= (n + 1) / 2; j++)
        if (1.0 - 2.0 * fab_binom_half_below(n, j) >= FAB_CI_LEVEL)
            r.lo = j;
    r.hi = n + 1 - r.lo;
    r.coverage = r.hi > r.lo ? 1.0 - 2.0 * fab_binom_half_below(n, r.lo) : 0.0;
    return r;
}

fab_ci_ranks_t fab_quantile_ci_ranks(size_t n, double p)
{
    return fab_ranks_normal(n, p);
}

static void fab_interval_fill(const double *sorted, size_t n, double centre, fab_ci_ranks_t r,
                              fab_interval_t *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->ranks = r;
    if (n == 0) {
        out->centre = out->lo = out->hi = NAN;
        out->rel_half = INFINITY;
        return;
    }
    out->centre = centre;
    out->lo = sorted[r.lo - 1];
    out->hi = sorted[r.hi - 1];
    if (out->hi == out->lo)
        out->rel_half = 0.0;
    else if (centre <= 0.0)
        out->rel_half = INFINITY;
    else
        out->rel_half = (out->hi - out->lo) / 2.0 / centre;
}

void fab_median_ci(const double *sorted, size_t n, fab_interval_t *out)
{
    fab_interval_fill(sorted, n, fab_percentile_sorted(sorted, n, 0.5), fab_median_ci_ranks(n),
                      out);
}

void fab_quantile_ci(const double *sorted, size_t n, double p, fab_interval_t *out)
{
    fab_interval_fill(sorted, n, fab_percentile_sorted(sorted, n, p), fab_quantile_ci_ranks(n, p),
                      out);
}

void fab_acc_median_ci(fab_acc_t *a, fab_interval_t *out)
{
    fab_ci_ranks_t r = fab_median_ci_ranks(a->n);
    const double *sorted = fab_acc_sort(a); /* one sort, when exact */
    double v[2];

    memset(out, 0, sizeof(*out));
    if (sorted) {
        fab_median_ci(sorted, a->n, out);
        return;
    }
    if (a->n == 0) {
        fab_interval_fill(v, 0, NAN, r, out);
        return;
    }
    v[0] = fab_acc_order(a, r.lo);
    v[1] = fab_acc_order(a, r.hi);
    r.lo = 1; /* v holds the two order statistics */
    r.hi = 2;
    fab_interval_fill(
        v, a->n, 0.5 * (fab_acc_order(a, (a->n + 1) / 2) + fab_acc_order(a, a->n / 2 + 1)), r, out);
    out->ranks = fab_median_ci_ranks(a->n);
}

/* The k-th smallest (0-based) of v[0..n-1] by Hoare's selection; v is reordered so that
 * v[k] holds it, everything before it is <= and everything after >=. */
static double fab_select(double *v, long n, long k)
{
    long lo = 0, hi = n - 1;

    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        long i = lo, j = hi;

        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];

                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break; /* j < k < i: v[k] equals the pivot, in place */
    }
    return v[k];
}

double fab_median_select(double *v, size_t n)
{
    long k = ((long)n - 1) / 2;
    double a, b;

    if (n == 0)
        return NAN;
    a = fab_select(v, (long)n, k);
    b = a;
    if (n % 2 == 0) { /* the next order statistic: the least of those after position k */
        b = v[k + 1];
        for (size_t i = (size_t)k + 2; i < n; i++)
            if (v[i] < b)
                b = v[i];
    }
    return 0.5 * (a + b);
}

/* ---- regimes */

static int fab_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* 1.4826 x the median absolute deviation of y[0..n-1] (sorted), about its median. */
static double fab_mad_spread(const double *y, size_t n)
{
    double dev[FAB_ADAPT_MAX_BLOCKS];
    double m = fab_percentile_sorted(y, n, 0.5);

    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(y[i] - m);
    qsort(dev, n, sizeof(dev[0]), fab_cmp_double);
    return 1.4826 * fab_percentile_sorted(dev, n, 0.5);
}

/* Groups [cut[g], cut[g+1]) of the sorted values (log values y, linear values x), g < m. */
static bool fab_regimes_accept(const double *y, const double *x, size_t n, const size_t *cut,
                               unsigned m, fab_regimes_t *out)
{
    double spread[FAB_REGIME_MAX];

    for (unsigned g = 0; g < m; g++) {
        size_t cnt = cut[g + 1] - cut[g];

        if (cnt < FAB_REGIME_MIN_BLOCKS || (double)cnt < FAB_REGIME_MIN_SHARE * (double)n)
            return false;
        spread[g] = fab_mad_spread(y + cut[g], cnt);
        out->level[g] = fab_percentile_sorted(x + cut[g], cnt, 0.5);
        out->count[g] = (unsigned)cnt;
        out->share[g] = (double)cnt / (double)n;
    }
    for (unsigned g = 0; g + 1 < m; g++) {
        double gap = y[cut[g + 1]] - y[cut[g + 1] - 1];

        if (!(gap > FAB_REGIME_GAP * fmax(spread[g], spread[g + 1])))
            return false;
        if (!(out->level[g + 1] >= FAB_REGIME_RATIO * out->level[g]))
            return false;
    }
    out->n = m;
    return true;
}

/* Position i (1..n-1) of the largest gap y[i] - y[i-1], skipping `skip`; ties: the lowest. */
static size_t fab_largest_gap(const double *y, size_t n, size_t skip)
{
    size_t best = 0;
    double best_gap = -1.0;

    for (size_t i = 1; i < n; i++) {
        if (i == skip)
            continue;
        if (y[i] - y[i - 1] > best_gap) {
            best_gap = y[i] - y[i - 1];
            best = i;
        }
    }
    return best;
}

fab_status_t fab_regimes_find(const double *v, size_t n, fab_regimes_t *out)
{
    double x[FAB_ADAPT_MAX_BLOCKS], y[FAB_ADAPT_MAX_BLOCKS];
    size_t g1, g2, cut[FAB_REGIME_MAX + 1];

    memset(out, 0, sizeof(*out));
    out->n = 1;
    out->share[0] = 1.0;
    out->count[0] = (unsigned)(n > FAB_ADAPT_MAX_BLOCKS ? 0 : n);
    if (n > FAB_ADAPT_MAX_BLOCKS)
        return FAB_ERR_INTERNAL;
    for (size_t i = 0; i < n; i++)
        x[i] = v[i] > 0.0 ? v[i] : 1e-300;
    qsort(x, n, sizeof(x[0]), fab_cmp_double);
    for (size_t i = 0; i < n; i++)
        y[i] = log(x[i]);
    out->level[0] = n ? fab_percentile_sorted(x, n, 0.5) : NAN;
    if (n < 2 * FAB_REGIME_MIN_BLOCKS)
        return FAB_OK;

    g1 = fab_largest_gap(y, n, 0);
    g2 = fab_largest_gap(y, n, g1);
    cut[0] = 0;
    cut[1] = g1 < g2 ? g1 : g2;
    cut[2] = g1 < g2 ? g2 : g1;
    cut[3] = n;
    if (n >= 3 * FAB_REGIME_MIN_BLOCKS && fab_regimes_accept(y, x, n, cut, 3, out))
        return FAB_OK;
    cut[1] = g1;
    cut[2] = n;
    if (fab_regimes_accept(y, x, n, cut, 2, out))
        return FAB_OK;
    /* not accepted: back to one level (accept may have written the groups' fields) */
    memset(out, 0, sizeof(*out));
    out->n = 1;
    out->level[0] = fab_percentile_sorted(x, n, 0.5);
    out->share[0] = 1.0;
    out->count[0] = (unsigned)n;
    return FAB_OK;
}

/* ---- the stop rule of one size */

void fab_adapt_init(fab_adapt_t *a, double precision, unsigned min_blocks, double est_block_s)
{
    memset(a, 0, sizeof(*a));
    a->precision = precision;
    a->min_blocks = min_blocks ? min_blocks : 1;
    a->min_samples = FAB_FLOOR_SAMPLES;
    a->est_block_s = est_block_s;
    a->decision = FAB_ADAPT_CONTINUE;
}

fab_status_t fab_adapt_add_block(fab_adapt_t *a, double block_median, double block_s,
                                 uint64_t samples)
{
    if (a->nblocks >= FAB_ADAPT_MAX_BLOCKS || a->decision != FAB_ADAPT_CONTINUE)
        return FAB_ERR_INTERNAL;
    a->median[a->nblocks++] = block_median;
    a->spent_s += block_s;
    a->samples += samples;
    return FAB_OK;
}

bool fab_adapt_floor_met(const fab_adapt_t *a)
{
    return a->nblocks >= a->min_blocks && a->samples >= a->min_samples;
}

double fab_adapt_block_cost(const fab_adapt_t *a)
{
    return a->nblocks ? a->spent_s / (double)a->nblocks : a->est_block_s;
}

/* Iterations in a size's next block, from its samples and blocks so far (every rank's
 * count: a's own are rank 0's) and its iteration's time: a block of pace_s; below the floor,
 * after its first block, at least what it lacks spread over the blocks it still needs (after
 * the budget, exactly that, the first block too; past the cap, the pace). A size whose
 * iteration outlasts the pace (bw at 4 MiB: 21 ms against 5) would otherwise gain one
 * iteration a round and reach its floor rounds after the budget, the whole run waiting for
 * it; its first block keeps the pace, which fits the first round into the budget. At least
 * 1. */
double fab_adapt_block_want(const fab_adapt_t *a, uint64_t samples, uint64_t nblocks,
                            double per_iter, double pace_s, bool late, bool hard)
{
    double want = per_iter > 0 ? pace_s / per_iter : 1.0;

    if (!hard && (nblocks < a->min_blocks || samples < a->min_samples)) {
        uint64_t lack = samples < a->min_samples ? a->min_samples - samples : 1;
        uint64_t blocks = nblocks < a->min_blocks ? a->min_blocks - nblocks : 1;
        double floor_want = ceil((double)lack / (double)blocks);

        if (late || (nblocks > 0 && want < floor_want))
            want = floor_want;
    }
    return want < 1.0 ? 1.0 : want;
}

fab_adapt_decision_t fab_adapt_decide(fab_adapt_t *a, const fab_interval_t *pooled, double share_s,
                                      fab_adapt_verdict_t *out)
{
    double sorted[FAB_ADAPT_MAX_BLOCKS];
    fab_interval_t blocks;
    bool precise, more, at_floor;

    memset(out, 0, sizeof(*out));
    out->pooled_rel = pooled ? pooled->rel_half : INFINITY;
    out->blocks_rel = INFINITY;
    memcpy(sorted, a->median, sizeof(sorted[0]) * a->nblocks);
    qsort(sorted, a->nblocks, sizeof(sorted[0]), fab_cmp_double);
    if (a->nblocks >= 2) {
        fab_median_ci(sorted, a->nblocks, &blocks);
        out->blocks_rel = blocks.rel_half;
    }
    (void)fab_regimes_find(a->median, a->nblocks, &out->regimes);

    at_floor = fab_adapt_floor_met(a);
    precise = at_floor && out->pooled_rel <= a->precision && out->blocks_rel <= a->precision &&
              out->regimes.n == 1;
    more = a->nblocks < FAB_ADAPT_MAX_BLOCKS && share_s >= fab_adapt_block_cost(a);
    if (precise && (!a->spend || !more))
        a->decision = FAB_ADAPT_STOP_PRECISE;
    else if (!more && (at_floor || a->capped || a->nblocks >= FAB_ADAPT_MAX_BLOCKS))
        a->decision = FAB_ADAPT_STOP_BUDGET;
    else
        a->decision = FAB_ADAPT_CONTINUE;
    out->decision = a->decision;
    return a->decision;
}

/* ---- the rounds */

double fab_adapt_floor_reserve(const fab_adapt_t *a)
{
    double need = 0.0;

    if (a->decision != FAB_ADAPT_CONTINUE || fab_adapt_floor_met(a))
        return 0.0;
    if (a->nblocks == 0)
        need = a->min_blocks; /* a block's samples not known yet: the blocks' floor */
    else {
        double per = (double)a->samples / (double)a->nblocks;
        double more = a->samples < a->min_samples && per > 0
                          ? ceil((double)(a->min_samples - a->samples) / per)
                          : 0.0;

        need = a->nblocks < a->min_blocks ? (double)(a->min_blocks - a->nblocks) : 0.0;
        if (more > need)
            need = more;
    }
    return need * fab_adapt_block_cost(a);
}

size_t fab_adapt_schedule(const fab_adapt_t *rows, size_t n, double remaining_s, bool *in_round,
                          double *share_s)
{
    double total = 0.0, reserve = 0.0, rest;
    size_t open = 0;

    if (remaining_s < 0.0)
        remaining_s = 0.0;
    for (size_t i = 0; i < n; i++) {
        in_round[i] = rows[i].decision == FAB_ADAPT_CONTINUE;
        share_s[i] = 0.0;
        if (in_round[i]) {
            open++;
            total += fab_adapt_block_cost(&rows[i]);
            reserve += fab_adapt_floor_reserve(&rows[i]);
        }
    }
    /* first what the floor needs, all of it or in proportion to it; then the rest */
    rest = reserve < remaining_s ? remaining_s - reserve : 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!in_round[i])
            continue;
        share_s[i] = reserve <= remaining_s
                         ? fab_adapt_floor_reserve(&rows[i])
                         : remaining_s * fab_adapt_floor_reserve(&rows[i]) / reserve;
        share_s[i] +=
            total > 0.0 ? rest * fab_adapt_block_cost(&rows[i]) / total : rest / (double)open;
    }
    return open;
}
