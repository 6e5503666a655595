/* SPDX-License-Identifier: BSD-3-Clause */
/* What the UDP kernels (in kernels/) count and how they pace, without any
 * I/O, so that unit tests can feed known sequences and clocks (tests/unit/test_udp.c):
 *
 * - the receiver's accounting of datagrams by their sequence numbers: unique datagrams,
 *   duplicates, out-of-order arrivals, the sequence gap so far, and the interarrival jitter
 *   of RFC 3550 (section 6.4.1) as iperf3 computes it;
 * - the sender's pacing schedule: datagram k of a stream is due at start + k x gap, so that
 *   the rate holds over any stretch without drift; a sender that fell behind by more than a
 *   bounded burst starts the schedule again from now instead of catching up in one burst.
 *
 * docs/METRICS.md, "UDP kernels", defines each number. */
#ifndef FAB_SOCK_UDP_ACCT_H
#define FAB_SOCK_UDP_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The header every datagram starts with (network byte order on the wire). */
#define FAB_UDP_HEADER   16    /* bytes: sequence number (8), sender's clock in ns (8) */
#define FAB_UDP_MAX      65507 /* the largest UDP payload over IPv4 */
#define FAB_UDP_SEEN_LOG 16    /* a window of 2^16 sequence numbers tells duplicates */

/* RFC 3550's interarrival jitter of a stream of datagrams in arrival order. */
typedef struct fab_udp_jitter {
    double j_ns;        /* J */
    int64_t transit_ns; /* arrival - send time of the previous datagram */
    bool have;
} fab_udp_jitter_t;

/* One datagram: the sender's clock when it was sent, the receiver's when it arrived (any two
 * clocks: only differences of transit times count). */
void fab_udp_jitter_add(fab_udp_jitter_t *j, uint64_t sent_ns, uint64_t arrival_ns);

typedef struct fab_udp_acct {
    uint64_t received;       /* unique datagrams */
    uint64_t dup;            /* a sequence number seen before (within the window) */
    uint64_t ooo;            /* arrived after a datagram with a higher sequence number */
    uint64_t next;           /* one past the highest sequence number seen */
    fab_udp_jitter_t jitter; /* over every unique datagram, in arrival order */
    uint64_t seen[(1u << FAB_UDP_SEEN_LOG) / 64]; /* bit s mod 2^16: sequence s arrived */
} fab_udp_acct_t;

/* What a sequence number was: new and in order, new but late (out of order), or a dup. */
typedef enum { FAB_UDP_NEW = 0, FAB_UDP_LATE = 1, FAB_UDP_DUP = 2 } fab_udp_seq_t;

void fab_udp_acct_init(fab_udp_acct_t *a);
/* One arriving datagram: its sequence number, send and arrival times (the jitter's). */
fab_udp_seq_t fab_udp_acct_add(fab_udp_acct_t *a, uint64_t seq, uint64_t sent_ns,
                               uint64_t arrival_ns);
/* The sequence number alone (a datagram without a send time). */
fab_udp_seq_t fab_udp_acct_seq(fab_udp_acct_t *a, uint64_t seq);
/* Datagrams the receiver has not seen among those up to the highest sequence number seen
 * (what iperf3 calls lost while a test runs; the tail's loss needs the sender's count). */
uint64_t fab_udp_acct_gap(const fab_udp_acct_t *a);

/* The sender's schedule: a datagram of `bytes` at rate_gbps (payload bits, 10^9 per s) every
 * gap_ns; at most `burst` datagrams may go back to back to catch up. rate_gbps <= 0: no
 * pacing (as fast as the socket takes them). */
typedef struct fab_udp_pace {
    double gap_ns;  /* 0: unpaced */
    double next_ns; /* when the next datagram is due */
    double burst_ns;
    bool started;
    uint64_t restarts; /* times the schedule was started again after falling behind */
} fab_udp_pace_t;

#define FAB_UDP_BURST    32   /* datagrams a late sender may send back to back, */
#define FAB_UDP_BURST_NS 10e6 /* or as many as fall due in this many ns, the more */

void fab_udp_pace_init(fab_udp_pace_t *p, double rate_gbps, size_t bytes);
/* Whether a datagram may go at now_ns: 0 (and the schedule moves on by one gap), or how many
 * ns to wait. */
uint64_t fab_udp_pace_wait(fab_udp_pace_t *p, uint64_t now_ns);
/* Start the schedule again at the next datagram (every paced iteration's start, sock/udp.c: no
 * datagram due before an iteration began is sent in it). */
void fab_udp_pace_reset(fab_udp_pace_t *p);

/* The datagram header: put and take (16 bytes, big-endian). */
void fab_udp_put_header(char *buf, uint64_t seq, uint64_t sent_ns);
void fab_udp_get_header(const char *buf, uint64_t *seq, uint64_t *sent_ns);

#endif
