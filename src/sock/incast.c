/* SPDX-License-Identifier: BSD-3-Clause */
/* Many to one (sock/incast.h): the receivers, the refusals, the tally and the columns. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sock/incast.h"

bool fab_incast_on(void)
{
    return fab_sock_opt.pattern == FAB_SOCK_INCAST;
}

int fab_incast_receivers(void)
{
    return fab_sock_opt.receivers > 0 ? fab_sock_opt.receivers : FAB_INCAST_RECEIVERS;
}

int fab_incast_receiver_of(int rank)
{
    int nrecv = fab_incast_receivers();

    return (rank - nrecv) % nrecv;
}

fab_ranks_t fab_incast_ranks(void)
{
    return fab_incast_on() ? FAB_RANKS_ALL : FAB_RANKS_PAIR;
}

fab_status_t fab_incast_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                              size_t hintlen)
{
    int nrecv = fab_incast_receivers();

    if (!fab_incast_on() && fab_sock_opt.receivers > 0) {
        snprintf(msg, msglen,
                 "--receivers %d applies to --pattern incast only, and this run has --pattern "
                 "pairs (it would be ignored)",
                 fab_sock_opt.receivers);
        snprintf(hint, hintlen, "add --pattern incast, or leave --receivers out");
        return FAB_ERR_CONFIG;
    }
    if (fab_incast_on() && ctx->size - nrecv < nrecv) { /* at least one sender each */
        snprintf(msg, msglen,
                 "--pattern incast: %d rank(s) leave %d sender(s) for %d receiver(s); every "
                 "receiver needs one",
                 ctx->size, ctx->size > nrecv ? ctx->size - nrecv : 0, nrecv);
        snprintf(hint, hintlen, "give --receivers %d at most, or run %d ranks or more",
                 ctx->size / 2 > 0 ? ctx->size / 2 : 1, 2 * nrecv);
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

void fab_incast_add(fab_incast_t *t, const double *got, int n)
{
    double sum = 0, lo = INFINITY, hi = 0;

    for (int k = 0; k < n; k++) {
        sum += got[k];
        lo = got[k] < lo ? got[k] : lo;
        hi = got[k] > hi ? got[k] : hi;
    }
    t->first += sum;
    t->min += n > 0 ? lo : 0;
    t->max += hi;
}

/* The node's system + softirq time in seconds of the whole node (/proc/stat's first line over
 * the online CPUs); NaN when unreadable. */
static double fab_incast_node_s(void)
{
    unsigned long long v[7] = {0};
    long tck = sysconf(_SC_CLK_TCK), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    FILE *f = fopen("/proc/stat", "r");
    int n = 0;

    if (f) {
        n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6]);
        fclose(f);
    }
    if (n != 7 || tck <= 0 || ncpu <= 0)
        return NAN;
    return (double)(v[2] + v[6]) / (double)tck / (double)ncpu;
}

void fab_incast_counters(const fab_incast_t *t, double *c, int base)
{
    struct rusage ru;

    if (t->nsend == 0)
        return;
    c[base + FAB_INCAST_SENDERS] = t->nsend;
    c[base + FAB_INCAST_FIRST] = t->first;
    c[base + FAB_INCAST_MIN] = t->min;
    c[base + FAB_INCAST_MAX] = t->max;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        c[base + FAB_INCAST_CPU_S] = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                                     1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    c[base + FAB_INCAST_NODE_S] = fab_incast_node_s();
}

double fab_incast_derive(const fab_krow_t *row, int j, int base)
{
    const double *c = row->c + base;
    double first = c[FAB_INCAST_FIRST], lo = c[FAB_INCAST_MIN], hi = c[FAB_INCAST_MAX];
    double wall = row->seconds * fab_incast_receivers();

    switch (j - base) {
    case FAB_INCAST_CPU_PCT:
        return wall > 0 && c[FAB_INCAST_CPU_S] >= 0 ? 100.0 * c[FAB_INCAST_CPU_S] / wall : NAN;
    case FAB_INCAST_NODE_PCT: {
        /* /proc/stat counts in ticks: under 100 ticks of the node's CPUs in the window the share
         * is coarser than a point (a 20 ms row once read 148%), so none; the counters' marks
         * enclose the timed blocks, a little longer than the row's seconds: at most 100 */
        long tck = sysconf(_SC_CLK_TCK), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        double pct = 100.0 * c[FAB_INCAST_NODE_S] / wall;

        if (!(wall > 0 && c[FAB_INCAST_NODE_S] >= 0) || tck <= 0 || ncpu <= 0 ||
            row->seconds * (double)tck * (double)ncpu < 100.0)
            return NAN;
        return pct < 100.0 ? pct : 100.0;
    }
    default:
        break;
    }
    if (isnan(first) || first <= 0)
        return NAN;
    if (j - base == FAB_INCAST_SHARE_MIN)
        return 100.0 * lo / first;
    if (j - base == FAB_INCAST_SHARE_MAX)
        return 100.0 * hi / first;
    if (j - base == FAB_INCAST_FAIRNESS)
        return hi > 0 ? lo / hi : NAN;
    return NAN;
}
