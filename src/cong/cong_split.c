/* SPDX-License-Identifier: BSD-3-Clause */
/* The congestion kernels' pure functions (part of cong/cong.h): the split of the ranks into
 * canaries and congestors, a window's statistics, the congestion impact factor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cong/cong.h"

/* k of n items spread evenly, the first at 0: item i is chosen when it is floor(j x n / k). */
static void fab_cong_spread(int n, int k, bool *chosen)
{
    for (int i = 0; i < n; i++)
        chosen[i] = false;
    for (int j = 0; j < k; j++)
        chosen[(int)((long long)j * n / k)] = true;
}

/* Whether `name` is one of the comma-separated `hosts`. */
static bool fab_cong_listed(const char *hosts, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = hosts; *p;) {
        size_t l = strcspn(p, ",");

        if (l == n && strncmp(p, name, n) == 0)
            return true;
        p += l + (p[l] == ',');
    }
    return false;
}

/* Every host of the list is one of the run's nodes; else its name in s->why. */
static bool fab_cong_hosts_known(const char *hosts, int nnodes, const char *const *names,
                                 fab_cong_split_t *s)
{
    for (const char *p = hosts; *p;) {
        size_t l = strcspn(p, ",");
        bool found = false;

        for (int n = 0; n < nnodes && !found; n++)
            found = strlen(names[n]) == l && strncmp(names[n], p, l) == 0;
        if (!found) {
            snprintf(s->why, sizeof(s->why), "--canaries: host '%.*s' is not one of the run's %d",
                     (int)(l < 64 ? l : 64), p, nnodes);
            return false;
        }
        p += l + (p[l] == ',');
    }
    return true;
}

static int fab_cong_count(int n, double frac)
{
    int k = n - (int)lround(frac * n);

    return k < 1 ? 1 : k;
}

fab_status_t fab_cong_split(int size, const int *node, int nnodes, const char *const *names,
                            double frac, const char *hosts, bool *canary, fab_cong_split_t *s)
{
    bool *cn = calloc((size_t)(nnodes > size ? nnodes : size), sizeof(bool));

    memset(s, 0, sizeof(*s));
    s->nodes = nnodes;
    if (!cn)
        return FAB_ERR_NOMEM;
    if (hosts && *hosts) {
        if (!fab_cong_hosts_known(hosts, nnodes, names, s)) {
            free(cn);
            return FAB_ERR_CONFIG;
        }
        for (int n = 0; n < nnodes; n++)
            cn[n] = fab_cong_listed(hosts, names[n]);
    } else if (nnodes > 1) {
        int k = fab_cong_count(nnodes, frac);

        fab_cong_spread(nnodes, k, cn);
        if (fabs((double)(nnodes - k) / nnodes - frac) > 0.1 || k == nnodes)
            s->warn |= FAB_CONG_W_FEW_NODES;
    } else {
        int k = fab_cong_count(size, frac);

        fab_cong_spread(size, k < 2 ? 2 : k, cn);
        s->warn |= FAB_CONG_W_FEW_NODES;
    }
    for (int r = 0; r < size; r++) {
        canary[r] = nnodes > 1 || (hosts && *hosts) ? cn[node[r]] : cn[r];
        s->ncanary += canary[r];
    }
    s->ncongestor = size - s->ncanary;
    for (int n = 0; n < nnodes; n++) {
        bool c = false, g = false;

        for (int r = 0; r < size; r++)
            if (node[r] == n)
                *(canary[r] ? &c : &g) = true;
        s->canary_nodes += c;
        if (c && g)
            s->warn |= FAB_CONG_W_SHARED;
    }
    free(cn);
    if (s->ncanary < 2 || s->ncongestor < 1) {
        snprintf(s->why, sizeof(s->why),
                 "the split gives %d canary and %d congestor ranks (at least 2 and 1 needed)",
                 s->ncanary, s->ncongestor);
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

static int fab_cong_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least q of them at or below it. */
static double fab_cong_q(const double *v, size_t n, double q)
{
    size_t i = (size_t)ceil(q * (double)n);

    return v[i > 0 ? i - 1 : 0];
}

void fab_cong_stats(double *v, size_t n, fab_cong_stats_t *out)
{
    double sum = 0;

    if (n == 0) {
        out->mean = out->p50 = out->p99 = out->p999 = NAN;
        return;
    }
    qsort(v, n, sizeof(*v), fab_cong_cmp);
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->mean = sum / (double)n;
    out->p50 = fab_cong_q(v, n, 0.5);
    out->p99 = fab_cong_q(v, n, 0.99);
    out->p999 = fab_cong_q(v, n, 0.999);
}

double fab_cong_cif(double alone, double congested)
{
    if (!(alone > 0) || !(congested > 0))
        return NAN;
    return congested / alone;
}

int fab_cong_phase(int i)
{
    return i % 2;
}
