/* SPDX-License-Identifier: BSD-3-Clause */
/* What the UDP kernels (in kernels/) share, and all they include besides fab_kernel.h (this
 * includes sock/sock.h, whose options they use): the pair's UDP sockets
 * (sock/udp.c: the address as for the TCP kernels, sock/sock.h; each rank binds port 0,
 * the ports are exchanged over MPI and each socket is connected to the other's address, so
 * that the receiver takes datagrams from its partner only; a probe datagram proves the path
 * within FAB_SOCK_CONNECT_S), the sender and receiver of one iteration, validation, their
 * columns and counters. sock/udp_acct.h counts and paces.
 *
 * One iteration: the sender (rank 0 of the pair) sends W (-w) datagrams of `bytes`, each
 * with a sequence number and its send time, paced at the instance's rate (the paced
 * kernel's --rate) or as fast as the socket takes them; a datagram the socket refuses
 * (EAGAIN, ENOBUFS) is a sender-side drop, not sent and not numbered. Then it tells the
 * receiver over MPI the number after its last. The receiver reads datagrams (recvmmsg, the
 * kernel's receive timestamps) until it is told, takes what is there and goes on: it never
 * holds the sender back, so the queues on the way stay as full as the rate makes them. Each
 * size's datagrams are counted apart, whenever they arrive; after a row's last block its
 * settle waits for the datagrams still in flight (until the sender's last, or
 * FAB_UDP_LINGER_S of silence). docs/METRICS.md, "UDP kernels". */
#ifndef FAB_SOCK_UDP_H
#define FAB_SOCK_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sock/sock.h"
#include "sock/udp_acct.h"

#define FAB_UDP_LINGER_S  0.02       /* silence after the sender's last: the rest was lost */
#define FAB_UDP_SETTLE_S  5.0        /* after a row, the longest wait for its datagrams in flight */
#define FAB_UDP_PROBE     UINT64_MAX /* the sequence number of the path's probe datagrams */
#define FAB_UDP_PATTERNED (1ull << 62) /* in a number on the wire: --validate's pattern follows */

/* Their columns (fab_kcol_t), one table for both kernels (unpaced: offered_Gbps NaN). */
enum {
    FAB_UDP_C_OFFERED = 0, /* AXIS: --rate of the instance, Gb/s */
    FAB_UDP_C_SENT,        /* TOTAL: datagrams the sender's socket took */
    FAB_UDP_C_DROPS,       /* TOTAL: datagrams the sender's socket refused */
    FAB_UDP_C_RECEIVED,    /* TOTAL: unique datagrams received */
    FAB_UDP_C_OOO,         /* TOTAL: arrived after a higher sequence number */
    FAB_UDP_C_DUP,         /* TOTAL: arrived twice */
    FAB_UDP_C_JITTER,      /* GAUGE: RFC 3550 jitter at the block's end, us */
    FAB_UDP_C_OVERFLOW,    /* COUNTER: dropped by the receiver's full socket (SO_MEMINFO) */
    FAB_UDP_C_LOSS,        /* DERIVED: 100 x (sent - received) / sent */
    FAB_UDP_C_RX_GBPS,     /* DERIVED: received payload, Gb/s */
    FAB_UDP_C_RX_PPS,      /* DERIVED: received datagrams per s */
    FAB_UDP_C_UNDELIVERED, /* DERIVED: 100 x (sent + drops - received) / (sent + drops) */
    FAB_UDP_NKCOLS
};
extern const fab_kcol_t fab_udp_kcols[FAB_UDP_NKCOLS];

/* The parts of a descriptor both UDP kernels share (each file adds its name, summary, sizes,
 * setup, describe, check, its socket options and, for the paced one, its axis and knee): a
 * pair with a window of datagrams whose ranks sleep in poll(2), buffers of their own (the send
 * and receive batches), and rows that count a stream (1 s of the automatic budget each, used
 * whole, in one timed block). */
extern const fab_kp2p_t fab_udp_p2p;
extern const fab_kbudget_t fab_udp_budget;
extern const fab_kmem_t fab_udp_mem;
#define FAB_UDP_KERNEL                                                                             \
    .kind = FAB_KIND_BANDWIDTH, .ranks = FAB_RANKS_PAIR, .min_ranks = 2, .rank_multiple = 1,       \
    .iterate = fab_udp_iterate, .validate = fab_udp_validate, .cleanup = fab_udp_cleanup,          \
    .p2p = &fab_udp_p2p, .budget = &fab_udp_budget, .mem = &fab_udp_mem
/* Their columns' part (the columns above), which each file completes with its text table:
 * .columns = &(const fab_kcolumns_t){FAB_UDP_COLUMNS, .table = "..."} */
#define FAB_UDP_COLUMNS                                                                            \
    .kcols = fab_udp_kcols, .nkcols = FAB_UDP_NKCOLS, .counters = fab_udp_counters,                \
    .settle = fab_udp_settle, .derive = fab_udp_derive

/* The kernels' hooks; rate_gbps 0: unpaced. */
fab_status_t fab_udp_setup(fab_kctx_t *ctx, void **state, double rate_gbps, const char *kernel);
fab_status_t fab_udp_iterate(fab_kctx_t *ctx, void *state, size_t bytes);
fab_status_t fab_udp_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors);
void fab_udp_counters(const fab_kctx_t *ctx, void *state, double *c);
fab_status_t fab_udp_settle(fab_kctx_t *ctx, void *state);
double fab_udp_derive(const fab_krow_t *row, int j);
void fab_udp_cleanup(fab_kctx_t *ctx, void *state);
/* Sizes from the header (FAB_UDP_HEADER) to FAB_UDP_MAX, a window the batch holds. */
fab_status_t fab_udp_check(const fab_kctx_t *ctx, char *msg, size_t len, char *hint, size_t hlen);
/* The instance's address and pacing in words, for describe. */
void fab_udp_describe(const fab_kctx_t *ctx, char *buf, size_t len, double rate_gbps);

#endif
