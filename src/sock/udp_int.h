/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP kernels' state, shared by sock/udp.c (the iterations, counters) and
 * sock/udp_connect.c (the pair's sockets). Not for kernels/: they see sock/udp.h. */
#ifndef FAB_SOCK_UDP_INT_H
#define FAB_SOCK_UDP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "kernel/descriptor.h"
#include "sock/udp_acct.h"

#define FAB_UDP_BATCH 64 /* datagrams one recvmmsg takes */

/* One size's datagrams: what the sender's socket took or refused, what the receiver got;
 * the columns of a row are these counts' changes over it (FAB_KCOL_TOTAL), so that datagrams
 * of one size arriving during another size's block count for their own. */
typedef struct fab_udp_size {
    size_t bytes;
    uint64_t sent, drops;        /* sender */
    uint64_t received, ooo, dup; /* receiver */
    fab_udp_jitter_t jitter;     /* receiver, over this size's datagrams */
} fab_udp_size_t;

typedef struct fab_udp {
    int fd;
    bool sender;
    int peer;
    const char *kernel;
    char local[64], remote[64];
    double rate;  /* Gb/s, 0 unpaced */
    size_t paced; /* the size the schedule is for */
    fab_udp_pace_t pace;
    uint64_t seq;         /* sender: the next datagram's number */
    fab_udp_acct_t acct;  /* receiver: every datagram's number (late, duplicate) */
    fab_udp_size_t *size; /* per size measured (ctx->sizes): its datagrams' counts */
    int nsizes;
    char *batch; /* the send batch (unpaced) or the receive batch */
    size_t slot; /* bytes of a batch entry */
    struct mmsghdr msg[FAB_UDP_BATCH];
    struct iovec iov[FAB_UDP_BATCH];
    char ctrl[FAB_UDP_BATCH][64];
    long *errors;  /* validation: where wrong bytes go; NULL when timed */
    uint32_t seed; /* validation: the round's seed */
} fab_udp_t;

/* Open the pair's sockets (sock/udp.h): u->sender, peer and kernel set; on success u->fd,
 * local and remote set and the path proven by a probe datagram. Every rank of the pair ends
 * with the same outcome, said on the rank that found it. */
fab_status_t fab_udp_open(fab_kctx_t *ctx, fab_udp_t *u);

#endif
