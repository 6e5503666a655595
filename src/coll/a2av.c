/* SPDX-License-Identifier: BSD-3-Clause */
/* The uneven all-to-all's matrix: the Zipf spread, mixture-of-experts routing, and what a row
 * records of a matrix (coll/a2av.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/a2av.h"

#define FAB_A2AV_S_MAX   64.0 /* (j+1)^-64 is 0 beside 1 for every j >= 1: all on one */
#define FAB_A2AV_REJECTS 64   /* draws of an expert already taken before a plain scan */

uint64_t fab_a2av_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double fab_a2av_unit(uint64_t *state)
{
    return (double)(fab_a2av_rand(state) >> 11) * 0x1.0p-53;
}

/* k / H(k, s): the first weight over the mean. */
static double fab_a2av_top_over_mean(int k, double s)
{
    double h = 0;

    for (int j = k - 1; j >= 0; j--) /* smallest first */
        h += pow((double)j + 1.0, -s);
    return (double)k / h;
}

double fab_a2av_zipf_s(int k, double factor)
{
    double lo = 0, hi = FAB_A2AV_S_MAX;

    if (k <= 1 || factor <= 1.0)
        return 0.0;
    if (factor >= (double)k)
        return FAB_A2AV_S_MAX;
    while (hi - lo > 1e-9) { /* the ratio grows with s */
        double mid = 0.5 * (lo + hi);

        if (fab_a2av_top_over_mean(k, mid) < factor)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The popularity order (Fisher-Yates from the seed) and the cumulative Zipf weights. */
static void fab_a2av_weights(fab_a2av_t *a)
{
    uint64_t rs = a->m.seed;
    double sum = 0;

    for (int j = 0; j < a->k; j++)
        a->order[j] = j;
    for (int j = a->k - 1; j > 0; j--) {
        int r = (int)(fab_a2av_rand(&rs) % (uint64_t)(j + 1)), t = a->order[j];

        a->order[j] = a->order[r];
        a->order[r] = t;
    }
    for (int j = 0; j < a->k; j++) {
        sum += pow((double)j + 1.0, -a->s);
        a->cum[j] = sum;
    }
    for (int j = 0; j < a->k; j++)
        a->cum[j] /= sum;
    a->cum[a->k - 1] = 1.0;
}

/* A receiver's remainder after rounding down, and its popularity. */
typedef struct fab_a2av_rem {
    double rem;
    int j;
} fab_a2av_rem_t;

/* Larger remainders first; ties to the more popular. */
static int fab_a2av_rem_cmp(const void *pa, const void *pb)
{
    const fab_a2av_rem_t *a = pa, *b = pb;

    if (a->rem != b->rem)
        return a->rem > b->rem ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

/* SPREAD's row: mean x weight per receiver, rounded down, and the elements left one each to
 * the largest remainders (ties to the more popular): every rank sends exactly `mean`. */
static fab_status_t fab_a2av_spread_row(fab_a2av_t *a)
{
    long long left = a->m.mean;
    fab_a2av_rem_t *rem = calloc((size_t)(unsigned)a->k, sizeof(*rem));

    if (!rem)
        return FAB_ERR_NOMEM;
    for (int j = 0; j < a->k; j++) {
        double w = a->cum[j] - (j > 0 ? a->cum[j - 1] : 0.0), x = (double)a->m.mean * w;

        a->base[a->order[j]] = (long long)floor(x);
        rem[j].rem = x - floor(x);
        rem[j].j = j;
        left -= a->base[a->order[j]];
    }
    qsort(rem, (size_t)(unsigned)a->k, sizeof(*rem), fab_a2av_rem_cmp);
    for (int r = 0; left > 0; r = (r + 1) % a->k, left--) /* left < k but for rounding */
        a->base[a->order[rem[r].j]]++;
    free(rem);
    return FAB_OK;
}

fab_status_t fab_a2av_init(fab_a2av_t *a, const fab_a2av_model_t *m, char *err, size_t errlen)
{
    memset(a, 0, sizeof(*a));
    a->m = *m;
    if (m->mode == FAB_A2AV_FILE)
        return FAB_OK;
    a->k = m->mode == FAB_A2AV_MOE ? m->experts : m->n;
    if (a->k < 1 || m->spread < 1.0 || m->spread > (double)a->k) {
        snprintf(err, errlen,
                 "a spread of %g over %d %s: it is at least 1 (even) and at most %d "
                 "(all to one)",
                 m->spread, a->k, m->mode == FAB_A2AV_MOE ? "experts" : "ranks", a->k);
        return FAB_ERR_CONFIG;
    }
    if (m->mode == FAB_A2AV_MOE &&
        (m->topk < 1 || m->topk > m->experts || m->topk > FAB_A2AV_TOPK_MAX)) {
        snprintf(err, errlen, "top-%d of %d experts: each token goes to 1 to %d distinct experts",
                 m->topk, m->experts,
                 m->experts < FAB_A2AV_TOPK_MAX ? m->experts : FAB_A2AV_TOPK_MAX);
        return FAB_ERR_CONFIG;
    }
    if (m->mode == FAB_A2AV_MOE &&
        (double)m->tokens * m->topk * (double)m->hidden > (double)INT_MAX) {
        snprintf(err, errlen,
                 "%lld tokens x top-%d x %lld elements per rank: more than an MPI count holds "
                 "(%d)",
                 m->tokens, m->topk, m->hidden, INT_MAX);
        return FAB_ERR_CONFIG;
    }
    a->s = fab_a2av_zipf_s(a->k, m->spread);
    a->cum = calloc((size_t)a->k, sizeof(*a->cum));
    a->order = calloc((size_t)a->k, sizeof(*a->order));
    a->base = calloc((size_t)m->n, sizeof(*a->base));
    if (!a->cum || !a->order || !a->base) {
        fab_a2av_free(a);
        return FAB_ERR_NOMEM;
    }
    fab_a2av_weights(a);
    if (m->mode == FAB_A2AV_SPREAD && fab_a2av_spread_row(a) != FAB_OK) {
        fab_a2av_free(a);
        return FAB_ERR_NOMEM;
    }
    return FAB_OK;
}

void fab_a2av_free(fab_a2av_t *a)
{
    free(a->cum);
    free(a->order);
    free(a->base);
    a->cum = NULL;
    a->order = NULL;
    a->base = NULL;
}

/* One expert by its weight (binary search of the cumulative weights), not one of taken[0..nt);
 * after FAB_A2AV_REJECTS draws of taken ones, by the weights left, scanned. */
static int fab_a2av_expert(const fab_a2av_t *a, uint64_t *rs, const int *taken, int nt)
{
    for (int tries = 0; tries < FAB_A2AV_REJECTS; tries++) {
        double u = fab_a2av_unit(rs);
        int lo = 0, hi = a->k - 1, dup = 0;

        while (lo < hi) {
            int mid = (lo + hi) / 2;

            if (a->cum[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        for (int t = 0; t < nt; t++)
            dup |= taken[t] == lo;
        if (!dup)
            return lo;
    }
    {
        double left = 0, u, acc = 0;
        int last = -1;

        for (int j = 0; j < a->k; j++) {
            int dup = 0;

            for (int t = 0; t < nt; t++)
                dup |= taken[t] == j;
            if (!dup)
                left += a->cum[j] - (j > 0 ? a->cum[j - 1] : 0.0);
        }
        u = fab_a2av_unit(rs) * left;
        for (int j = 0; j < a->k; j++) {
            int dup = 0;

            for (int t = 0; t < nt; t++)
                dup |= taken[t] == j;
            if (dup)
                continue;
            last = j;
            acc += a->cum[j] - (j > 0 ? a->cum[j - 1] : 0.0);
            if (u < acc)
                return j;
        }
        return last;
    }
}

/* MOE's row i: each of rank i's tokens goes to topk distinct experts drawn by popularity (a
 * stream of the generator per rank: seed and i); an expert of popularity j is expert order[j],
 * held by rank order[j] x n / experts (blocks of consecutive experts per rank). */
static void fab_a2av_moe_row(const fab_a2av_t *a, int i, long long *row)
{
    uint64_t rs = a->m.seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)(i + 1));
    int taken[FAB_A2AV_TOPK_MAX];

    for (long long t = 0; t < a->m.tokens; t++)
        for (int c = 0; c < a->m.topk; c++) {
            int j = fab_a2av_expert(a, &rs, taken, c);
            int e = a->order[j];

            taken[c] = j;
            row[(long long)e * a->m.n / a->m.experts] += a->m.hidden;
        }
}

void fab_a2av_row(const fab_a2av_t *a, int i, long long *row)
{
    int n = a->m.n;

    for (int j = 0; j < n; j++)
        row[j] = a->m.mode == FAB_A2AV_FILE     ? a->m.counts[(size_t)i * (size_t)n + (size_t)j]
                 : a->m.mode == FAB_A2AV_SPREAD ? a->base[j]
                                                : 0;
    if (a->m.mode == FAB_A2AV_MOE)
        fab_a2av_moe_row(a, i, row);
}

/* The statistics from the senders' and receivers' totals. */
static void fab_a2av_sum_up(const long long *sent, const long long *recv, int n,
                            fab_a2av_stats_t *st)
{
    long long smax = 0, rmax = 0;

    memset(st, 0, sizeof(*st));
    for (int j = 0; j < n; j++) {
        long long most = sent[j] > recv[j] ? sent[j] : recv[j];

        st->total += sent[j];
        smax = sent[j] > smax ? sent[j] : smax;
        rmax = recv[j] > rmax ? recv[j] : rmax;
        if (most > st->busiest) {
            st->busiest = most;
            st->busiest_rank = j;
        }
    }
    st->mean = (double)st->total / n;
    st->send_imbalance = st->mean > 0 ? (double)smax / st->mean : NAN;
    st->recv_imbalance = st->mean > 0 ? (double)rmax / st->mean : NAN;
}

/* The totals (SPREAD: one row, every rank's). */
static void fab_a2av_totals(const fab_a2av_t *a, int me, int *scounts, int *rcounts, long long *row,
                            long long *sent, long long *recv)
{
    int n = a->m.n, rows = a->m.mode == FAB_A2AV_SPREAD ? 1 : n;

    for (int i = 0; i < rows; i++) {
        fab_a2av_row(a, i, row);
        for (int j = 0; j < n; j++) {
            sent[i] += row[j];
            recv[j] += rows == 1 ? (long long)n * row[j] : row[j];
            if (rcounts && j == me)
                rcounts[rows == 1 ? 0 : i] = (int)(row[j] < INT_MAX ? row[j] : INT_MAX);
            if (scounts && (i == me || rows == 1))
                scounts[j] = (int)(row[j] < INT_MAX ? row[j] : INT_MAX);
        }
    }
    for (int i = 1; rows == 1 && i < n; i++) {
        sent[i] = sent[0];
        if (rcounts)
            rcounts[i] = rcounts[0];
    }
}

fab_status_t fab_a2av_plan(const fab_a2av_t *a, int me, int *scounts, int *rcounts,
                           fab_a2av_stats_t *st, char *err, size_t errlen)
{
    int n = a->m.n;
    long long *row = calloc((size_t)n, sizeof(*row)), *sent = calloc((size_t)n, sizeof(*sent));
    long long *recv = calloc((size_t)n, sizeof(*recv));
    fab_status_t rc = FAB_OK;

    if (!row || !sent || !recv) {
        free(row);
        free(sent);
        free(recv);
        return FAB_ERR_NOMEM;
    }
    fab_a2av_totals(a, me, scounts, rcounts, row, sent, recv);
    fab_a2av_sum_up(sent, recv, n, st);
    if (st->total == 0) {
        snprintf(err, errlen, "the matrix moves nothing (every count is 0)");
        rc = FAB_ERR_CONFIG;
    } else if (st->busiest > INT_MAX) {
        snprintf(err, errlen, "rank %d %s %lld elements: more than an MPI count holds (%d)",
                 st->busiest_rank, sent[st->busiest_rank] == st->busiest ? "sends" : "receives",
                 st->busiest, INT_MAX);
        rc = FAB_ERR_CONFIG;
    }
    free(row);
    free(sent);
    free(recv);
    return rc;
}

uint64_t fab_a2av_hash(const int *counts, int n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t nn = (size_t)n * (size_t)n;

    for (size_t i = 0; i < nn; i++) {
        uint32_t v = (uint32_t)counts[i];

        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ULL;
        }
    }
    return h;
}
