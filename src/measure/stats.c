/* SPDX-License-Identifier: BSD-3-Clause */
/* Statistics over per-iteration samples.
 *
 * Every sample goes into exact running moments (min, max, Welford mean and variance) and a
 * log-linear histogram. The first raw_cap samples are also kept as they are; while every
 * sample fits there, percentiles are exact. Beyond the cap they come from the histogram,
 * whose buckets are 1/256 of a power of two wide, so a percentile is off by at most 0.2%. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "measure/stats.h"

#define FAB_ACC_FIRST_ALLOC 4096 /* raw samples allocated at first; grows to raw_cap */

fab_status_t fab_acc_init(fab_acc_t *a, size_t raw_cap)
{
    memset(a, 0, sizeof(*a));
    a->raw_cap = raw_cap;
    a->raw_alloc = raw_cap < FAB_ACC_FIRST_ALLOC ? raw_cap : FAB_ACC_FIRST_ALLOC;
    a->raw = a->raw_alloc ? malloc(sizeof(*a->raw) * a->raw_alloc) : NULL;
    a->hist = calloc(FAB_HIST_BUCKETS, sizeof(*a->hist));
    if ((a->raw_alloc && !a->raw) || !a->hist) {
        fab_acc_free(a);
        return FAB_ERR_NOMEM;
    }
    fab_acc_reset(a);
    return FAB_OK;
}

void fab_acc_reset(fab_acc_t *a)
{
    a->raw_n = 0;
    a->n = 0;
    a->min = INFINITY;
    a->max = -INFINITY;
    a->mean = 0.0;
    a->m2 = 0.0;
    a->loop_total = 0.0;
    if (a->hist)
        memset(a->hist, 0, sizeof(*a->hist) * FAB_HIST_BUCKETS);
}

void fab_acc_free(fab_acc_t *a)
{
    free(a->raw);
    free(a->sorted);
    free(a->hist);
    a->raw = NULL;
    a->sorted = NULL;
    a->raw_alloc = a->sorted_alloc = 0;
    a->hist = NULL;
}

/* Bucket of a time in seconds: octave of its nanoseconds, then 256 linear steps inside. */
static size_t fab_hist_index(double v)
{
    double ns = v * 1e9;
    int e;
    double m;
    size_t sub;

    if (!(ns >= 1.0))
        return 0;
    m = frexp(ns, &e); /* ns = m * 2^e, m in [0.5, 1) */
    e -= 1;            /* ns = (2m) * 2^e, 2m in [1, 2) */
    if (e >= FAB_HIST_OCTAVES)
        return FAB_HIST_BUCKETS - 1;
    sub = (size_t)((2.0 * m - 1.0) * (1 << FAB_HIST_SUB_BITS));
    return ((size_t)(e + 1) << FAB_HIST_SUB_BITS) + sub;
}

/* Middle of a bucket, seconds. */
static double fab_hist_value(size_t idx)
{
    size_t oct = idx >> FAB_HIST_SUB_BITS, sub = idx & ((1u << FAB_HIST_SUB_BITS) - 1);

    if (oct == 0)
        return 0.5e-9;
    return ldexp(1.0 + (sub + 0.5) / (1 << FAB_HIST_SUB_BITS), (int)oct - 1) * 1e-9;
}

/* Room for one more raw sample: double the allocation up to raw_cap. Out of memory: keep
 * what is there (percentiles then come from the histogram, which has every sample). */
static bool fab_acc_room(fab_acc_t *a)
{
    if (a->raw_n < a->raw_alloc)
        return true;
    if (a->raw_alloc < a->raw_cap) {
        size_t want = a->raw_alloc * 2 > a->raw_cap ? a->raw_cap : a->raw_alloc * 2;
        double *p = realloc(a->raw, sizeof(*a->raw) * want);

        if (p) {
            a->raw = p;
            a->raw_alloc = want;
            return true;
        }
        a->raw_cap = a->raw_alloc;
    }
    return false;
}

/* The sorted scratch, n long: NULL when out of memory. */
static double *fab_acc_sorted(fab_acc_t *a, size_t n)
{
    if (n > a->sorted_alloc) {
        double *p = realloc(a->sorted, sizeof(*a->sorted) * n);

        if (!p)
            return NULL;
        a->sorted = p;
        a->sorted_alloc = n;
    }
    return a->sorted;
}

void fab_acc_add(fab_acc_t *a, double v)
{
    double d;

    if (a->raw_n < a->raw_cap && fab_acc_room(a))
        a->raw[a->raw_n++] = v;
    a->hist[fab_hist_index(v)]++;
    a->n++;
    if (v < a->min)
        a->min = v;
    if (v > a->max)
        a->max = v;
    d = v - a->mean;
    a->mean += d / (double)a->n;
    a->m2 += d * (v - a->mean);
}

double fab_percentile_sorted(const double *v, size_t n, double q)
{
    double pos, frac;
    size_t lo;

    if (n == 0)
        return NAN;
    pos = q * (double)(n - 1);
    lo = (size_t)pos;
    if (lo >= n - 1)
        return v[n - 1];
    frac = pos - (double)lo;
    return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

/* Same interpolation rule as above, on the histogram: the values at ranks lo and lo+1 are
 * the middles of the buckets holding them, clamped to the exact min and max. */
static double fab_hist_rank(const fab_acc_t *a, uint64_t rank)
{
    uint64_t seen = 0;

    for (size_t i = 0; i < FAB_HIST_BUCKETS; i++) {
        seen += a->hist[i];
        if (seen > rank) {
            double v = fab_hist_value(i);
            return v < a->min ? a->min : (v > a->max ? a->max : v);
        }
    }
    return a->max;
}

static double fab_hist_percentile(const fab_acc_t *a, double q)
{
    double pos = q * (double)(a->n - 1), frac;
    uint64_t lo = (uint64_t)pos;
    double vlo = fab_hist_rank(a, lo);

    if (lo >= a->n - 1)
        return vlo;
    frac = pos - (double)lo;
    return vlo + (fab_hist_rank(a, lo + 1) - vlo) * frac;
}

static int fab_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/* The percentiles a row reports, and where each goes. */
static const struct {
    double q;
    size_t at; /* offset in fab_stats_t */
} fab_quantiles[] = {
    {0.50, offsetof(fab_stats_t, p50)},     {0.90, offsetof(fab_stats_t, p90)},
    {0.99, offsetof(fab_stats_t, p99)},     {0.999, offsetof(fab_stats_t, p999)},
    {0.9999, offsetof(fab_stats_t, p9999)},
};

#define FAB_NQUANTILES (sizeof(fab_quantiles) / sizeof(fab_quantiles[0]))

static double *fab_stats_q(fab_stats_t *s, size_t i)
{
    return (double *)((char *)s + fab_quantiles[i].at);
}

void fab_acc_stats(fab_acc_t *a, double divisor, fab_stats_t *s)
{
    memset(s, 0, sizeof(*s));
    s->n = a->n;
    if (a->n == 0) {
        s->min = s->max = s->mean = s->stddev = s->loop_mean = NAN;
        for (size_t i = 0; i < FAB_NQUANTILES; i++)
            *fab_stats_q(s, i) = NAN;
        return;
    }
    s->exact = a->raw_n == a->n && fab_acc_sorted(a, a->raw_n);
    if (s->exact) {
        /* Sort a copy: the samples stay in iteration order for --samples. */
        memcpy(a->sorted, a->raw, sizeof(*a->raw) * a->raw_n);
        qsort(a->sorted, a->raw_n, sizeof(*a->sorted), fab_cmp_double);
    }
    for (size_t i = 0; i < FAB_NQUANTILES; i++)
        *fab_stats_q(s, i) =
            (s->exact ? fab_percentile_sorted(a->sorted, a->raw_n, fab_quantiles[i].q)
                      : fab_hist_percentile(a, fab_quantiles[i].q)) /
            divisor;
    for (size_t i = 0; i < FAB_NQUANTILES; i++)
        if (fab_quantiles[i].q > 0.5 && !fab_quantile_enough(a->n, fab_quantiles[i].q))
            *fab_stats_q(s, i) = NAN;
    s->min = a->min / divisor;
    s->max = a->max / divisor;
    s->mean = a->mean / divisor;
    /* Sample standard deviation (n-1); 0 for a single sample. */
    s->stddev = a->n > 1 ? sqrt(a->m2 / (double)(a->n - 1)) / divisor : 0.0;
    s->loop_mean = a->loop_total / (double)a->n / divisor;
}

const double *fab_acc_sort(fab_acc_t *a)
{
    if (a->n == 0 || a->raw_n != a->n || a->n > FAB_ACC_EXACT_ORDER || !fab_acc_sorted(a, a->n))
        return NULL;
    memcpy(a->sorted, a->raw, sizeof(*a->raw) * a->n);
    qsort(a->sorted, a->n, sizeof(*a->sorted), fab_cmp_double);
    return a->sorted;
}

double fab_acc_order(fab_acc_t *a, size_t r)
{
    const double *s;

    if (a->n == 0 || r == 0)
        return NAN;
    if (r > a->n)
        r = a->n;
    s = fab_acc_sort(a);
    return s ? s[r - 1] : fab_hist_rank(a, r - 1);
}

bool fab_quantile_enough(size_t n, double p)
{
    /* n (1 - p) >= 10, with a margin so that p99 at n = 1000 counts as enough */
    return p < 1.0 && (double)n * (1.0 - p) >= 10.0 - 1e-9;
}
