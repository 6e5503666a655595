/* SPDX-License-Identifier: BSD-3-Clause */
/* Many to one (--pattern incast, --receivers N: sock/sock.h's options), what the kernels that
 * have it share (the streaming TCP kernel over sockets, bw over MPI): which ranks receive, the
 * refusals, and the incast columns: senders, each sender's share of the window in which every
 * sender was sending, the receivers' CPU (docs/METRICS.md, "Incast"). */
#ifndef FAB_SOCK_INCAST_H
#define FAB_SOCK_INCAST_H

#include <stdbool.h>

#include "sock/sock.h"

/* --pattern incast given */
bool fab_incast_on(void);
/* The receivers: --receivers, FAB_INCAST_RECEIVERS when not given (the first N ranks receive) */
int fab_incast_receivers(void);
/* The receiver of rank `rank` >= the receivers: (rank - R) mod R */
int fab_incast_receiver_of(int rank);
/* A pair kernel's ranks under the options: every rank with --pattern incast, else a pair
 * (fab_kernel_t.ranks_now) */
fab_ranks_t fab_incast_ranks(void);
/* The refusals of every kernel with the pattern (fab_kernel_t.check): --receivers without
 * --pattern incast, and a receiver without a sender (R receivers need R senders). */
fab_status_t fab_incast_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                              size_t hintlen);

/* A receiver's tally: its senders, and per iteration summed, the bytes it had when the first
 * sender finished, and the least and most one sender had delivered by then. */
typedef struct fab_incast {
    int nsend;
    double first, min, max;
} fab_incast_t;
/* One iteration's snapshot: got[k], sender k's bytes when the first finished */
void fab_incast_add(fab_incast_t *t, const double *got, int n);

/* The incast columns, in this order (the enum gives their index after `base`, the first's
 * index in the kernel's kcols). */
enum {
    FAB_INCAST_SENDERS = 0,
    FAB_INCAST_FIRST,
    FAB_INCAST_MIN,
    FAB_INCAST_MAX,
    FAB_INCAST_SHARE_MIN,
    FAB_INCAST_SHARE_MAX,
    FAB_INCAST_FAIRNESS,
    FAB_INCAST_CPU_S,
    FAB_INCAST_NODE_S,
    FAB_INCAST_CPU_PCT,
    FAB_INCAST_NODE_PCT,
    FAB_INCAST_NKCOLS
};
#define FAB_INCAST_DOC(WHAT) "--pattern incast (TCP streams, bw): " WHAT
#define FAB_INCAST_KCOLS                                                                           \
    {"incast_senders", "senders", "count",                                                         \
     FAB_INCAST_DOC("senders per receiver (mean over the receivers); NaN for pairs and other "     \
                    "kernels"),                                                                    \
     FAB_KCOL_GAUGE},                                                                              \
        {"incast_first_bytes", "first", "bytes",                                                   \
         FAB_INCAST_DOC("bytes the receivers had, per iteration summed, when the first of their "  \
                        "senders finished (the window in which every sender was sending)"),        \
         FAB_KCOL_COUNTER},                                                                        \
        {"incast_min_bytes", "minB", "bytes",                                                      \
         FAB_INCAST_DOC("the least one sender had delivered in that window, per iteration "        \
                        "summed"),                                                                 \
         FAB_KCOL_COUNTER},                                                                        \
        {"incast_max_bytes", "maxB", "bytes",                                                      \
         FAB_INCAST_DOC("the most one sender had delivered in that window, per iteration summed"), \
         FAB_KCOL_COUNTER},                                                                        \
        {"incast_share_min_pct", "share_min%", "%",                                                \
         FAB_INCAST_DOC("the least served sender's share of the receiver's bytes while every "     \
                        "sender was sending, % (100 / incast_senders when fair; docs/METRICS.md, " \
                        "\"Incast\")"),                                                            \
         FAB_KCOL_DERIVED},                                                                        \
        {"incast_share_max_pct", "share_max%", "%",                                                \
         FAB_INCAST_DOC("the best served sender's share of those bytes, %"), FAB_KCOL_DERIVED},    \
        {"incast_fairness", "fair", "ratio",                                                       \
         FAB_INCAST_DOC("incast_share_min_pct / incast_share_max_pct (1: every sender got the "    \
                        "same rate)"),                                                             \
         FAB_KCOL_DERIVED},                                                                        \
        {"incast_recv_cpu_s", "rcpu_s", "s",                                                       \
         FAB_INCAST_DOC("CPU time (user + system, getrusage) of the receiving ranks during the "   \
                        "timed blocks, summed over the receivers"),                                \
         FAB_KCOL_COUNTER},                                                                        \
        {"incast_recv_node_s", "rnode_s", "s",                                                     \
         FAB_INCAST_DOC("system + softirq time of the receivers' nodes during the timed blocks "   \
                        "(/proc/stat, over all CPUs, divided by their count), summed over the "    \
                        "receivers"),                                                              \
         FAB_KCOL_COUNTER},                                                                        \
        {"incast_recv_cpu_pct", "rcpu%", "%",                                                      \
         FAB_INCAST_DOC("the receiving rank's CPU time / wall time, mean over the receivers "      \
                        "(100: one core; an MPI receiver polls, so near 100)"),                    \
         FAB_KCOL_DERIVED},                                                                        \
    {                                                                                              \
        "incast_recv_node_pct", "rsys+si%", "%",                                                   \
            FAB_INCAST_DOC("the receiver's node: system + softirq share of all its CPUs during "   \
                           "the timed blocks, mean over the receivers (the receive stack's cost "  \
                           "when the receiver has a node of its own)"),                            \
            FAB_KCOL_DERIVED                                                                       \
    }
/* The columns of a kernel with the pattern, in this order (the socket kernels' TCP columns,
 * the streams, then the incast's from FAB_INCAST_BASE): a kernel that is not a TCP one (bw)
 * lists them too, NaN in its rows, so that every column keeps its place in the files
 * (docs/SCHEMA.md: the kernels' columns in registry order, where bw comes first). */
#define FAB_INCAST_TCP_KCOLS                                                                       \
    FAB_SOCK_TCP_KCOLS,                                                                            \
        {"streams", "streams", "count",                                                            \
         "streaming TCP kernels: TCP connections per pair of this row (--streams, iperf3 -P); "    \
         "NaN for other kernels",                                                                  \
         FAB_KCOL_AXIS},                                                                           \
        FAB_INCAST_KCOLS
#define FAB_INCAST_BASE       (FAB_SOCK_TCP_NKCOLS + 1)
#define FAB_INCAST_TCP_NKCOLS (FAB_INCAST_BASE + FAB_INCAST_NKCOLS)

/* A receiver's values into c[base ...] (nothing on a sender or without the pattern). */
void fab_incast_counters(const fab_incast_t *t, double *c, int base);
/* The derived incast column base + j of the row, NaN for any other. */
double fab_incast_derive(const fab_krow_t *row, int j, int base);

#endif
