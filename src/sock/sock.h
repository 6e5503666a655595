/* SPDX-License-Identifier: BSD-3-Clause */
/* What the socket kernels (kernels/tcp_*.c) share: their options, the address the sockets use,
 * the connections of a pair and full reads and writes over them (sock/sock.c, sock_connect.c).
 * MPI only coordinates (addresses, ports, the agreement that every connection is up).
 *
 * The address: --bind's first address that is this host's; else the IPv4 (else IPv6) address
 * of the interface of --fabric on this host; else, when both ranks of the pair are on one
 * host, 127.0.0.1; else an error that says what to give. The receiver listens on port 0 (the
 * OS chooses, so runs never collide) and accepts only connections from the sender's address.
 * docs/METRICS.md, "Socket kernels". */
#ifndef FAB_SOCK_SOCK_H
#define FAB_SOCK_SOCK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "kernel/kext.h"

#define FAB_SOCK_MAX_STREAMS 128 /* --streams */
#define FAB_SOCK_CONNECT_S   10  /* a connection that is not up within this ends the run */
#define FAB_SOCK_MAX_OMIT    60  /* --omit, seconds */
#define FAB_UDP_MAX_RATE     400 /* --rate, Gb/s: a flood is bounded in rate as in time */
#define FAB_INCAST_RECEIVERS 1   /* --receivers not given (sock/incast.h) */
/* The socket kernels' own options: one table, a kernel taking the rows it reads (sock.c). */
typedef struct fab_sock_opts {
    const char *bind;       /* --bind ADDR[,ADDR...]: NULL none */
    fab_list_t streams;     /* --streams: TCP connections per pair (a streaming kernel's axis) */
    size_t sockbuf;         /* --sockbuf: SO_SNDBUF and SO_RCVBUF, bytes; 0: the OS's autotuning */
    double omit;            /* --omit: seconds of untimed streaming after connecting (slow start) */
    fab_list_t rate;        /* --rate: payload Gb/s a paced UDP kernel offers (its axis) */
    int pattern, receivers; /* --pattern (FAB_SOCK_PAIRS, _INCAST), --receivers (0: not given) */
} fab_sock_opts_t;
enum { FAB_SOCK_PAIRS = 0, FAB_SOCK_INCAST = 1 };
extern fab_sock_opts_t fab_sock_opt;
extern const fab_kopts_t fab_sock_kopts, fab_sock_paced_kopts, fab_sock_stream_kopts,
    fab_incast_kopts; /* the incast's alone (--pattern, --receivers): bw, no socket kernel */

/* --bind's check (fab_opt_t.check), before MPI_Init: numeric addresses separated by commas,
 * none empty, at most FAB_SOCK_BIND_MAX - 1 characters in all. */
#define FAB_SOCK_BIND_MAX 512
fab_status_t fab_sock_bind_check(const char *val, char *err, size_t errlen);

/* The connections of one rank of a pair. */
typedef struct fab_sock_link {
    int n;                        /* streams */
    int fd[FAB_SOCK_MAX_STREAMS]; /* -1 closed */
    bool sender;                  /* connected out (the pair's first rank) */
    int peer;                     /* the other rank, in ctx->comm */
    char local[64], remote[64];   /* addresses as text, "10.0.0.1:45678" */
    const char *kernel;           /* for messages */
} fab_sock_link_t;

/* What the two ranks of a pair tell each other before connecting. */
typedef struct fab_sock_end {
    int st;     /* fab_status_t of the sender of this hello */
    int family; /* AF_INET or AF_INET6 */
    int port;   /* the listening (TCP) or bound (UDP) port */
    char addr[INET6_ADDRSTRLEN];
    char host[MPI_MAX_PROCESSOR_NAME];
} fab_sock_end_t;

typedef union fab_sockaddr {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
    struct sockaddr_storage ss;
} fab_sockaddr_t;

/* Addresses: text to fab_sockaddr_t (false: not a numeric address), its length, its text
 * ("10.0.0.1:4567", "[::1]:4567"), whether two are the same host address. */
bool fab_sa_parse(const char *text, int port, fab_sockaddr_t *a);
socklen_t fab_sa_len(const fab_sockaddr_t *a);
void fab_sa_text(const fab_sockaddr_t *a, char *buf, size_t len);
bool fab_sa_same_ip(const fab_sockaddr_t *a, const fab_sockaddr_t *b);
/* This rank's address for the pair (the rule above), into me->addr and me->family; me->host
 * is this host's name, peer_host the partner's. FAB_ERR_CONFIG or FAB_ERR_ENV, said here. */
fab_status_t fab_sock_choose(const fab_kctx_t *ctx, const char *peer_host, const char *kernel,
                             fab_sock_end_t *me);
/* Say an error on this rank, "KERNEL: MESSAGE; HINT", and return st. */
fab_status_t fab_sock_fail(fab_status_t st, const char *kernel, const char *hint, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));
double fab_sock_now(void); /* CLOCK_MONOTONIC, s */
/* --sockbuf's SO_SNDBUF and SO_RCVBUF on fd, and TCP_NODELAY when nodelay. */
void fab_sock_tune(int fd, bool nodelay);

/* Connect the pair (this rank and peer in ctx->comm, sender connecting to peer) with n TCP
 * connections; nodelay: TCP_NODELAY (no Nagle). Every rank of the pair calls it; it ends on
 * both with the same outcome: FAB_OK, FAB_ERR_CONFIG (--bind names no address of this host,
 * the hosts differ and no interface was chosen: exit 2) or FAB_ERR_ENV (no address on the
 * interface, a port that cannot be bound, a peer not reachable within FAB_SOCK_CONNECT_S:
 * exit 3), said on the rank that found it, with what to do. */
fab_status_t fab_sock_connect(fab_kctx_t *ctx, int peer, bool sender, int n, bool nodelay,
                              const char *kernel, fab_sock_link_t *l);
void fab_sock_close(fab_sock_link_t *l);
/* FABRICBENCH_TEST_SOCK_REFUSE=1: the receiver closes its port (TCP: before it tells the sender
 * the port, so that no connect reaches the backlog first; UDP: before the probe): what an
 * unreachable peer gives (the sender's error or the receiver's time-out, exit 3 on both). */
bool fab_sock_refuse_for_tests(void);

/* Write len bytes on stream s / read exactly len bytes from it (poll(2) while it would
 * block). FAB_ERR_ENV with a message when the connection breaks. */
fab_status_t fab_sock_write(fab_sock_link_t *l, int s, const char *buf, size_t len);
fab_status_t fab_sock_read(fab_sock_link_t *l, int s, char *buf, size_t len);
/* Every stream at once: `count` writes (reads) of `len` bytes on each, driven by one poll(2)
 * over the streams that still have bytes to move. */
fab_status_t fab_sock_write_all(fab_sock_link_t *l, const char *buf, size_t len, size_t count);
fab_status_t fab_sock_read_all(fab_sock_link_t *l, char *buf, size_t len, size_t count);
/* An incast receiver's read_all, one message per stream in turn: when a sender's streams are all
 * read, what each sender owner[s] delivered (read or queued) is added to got (METRICS.md). */
fab_status_t fab_sock_read_incast(fab_sock_link_t *l, char *buf, size_t len, size_t count,
                                  const int *owner, int nown, double *got);
/* Make the streams blocking with 1 s send and receive time-outs: a read then waits in the
 * kernel's recv, as sockperf's does, instead of recv, poll(2), recv (1.7 us more per message
 * one way on loopback: docs/PERFORMANCE.md); a time-out returns EAGAIN, which fab_sock_read
 * and fab_sock_write take as "wait again", so the watchdog still bounds the wait. */
void fab_sock_blocking(fab_sock_link_t *l);
/* Send what Nagle's algorithm still holds on every stream now (TCP_NODELAY on, then off: Linux
 * pushes pending data when it is set), so that the end of an iteration does not wait for the
 * peer's delayed acknowledgement, which a continuous stream never does. */
void fab_sock_push(fab_sock_link_t *l);

/* The TCP kernels' own columns (fab_kcol_t), in this order at the start of their kcols:
 * retransmitted segments (COUNTER), the senders' send buffer and the receivers' receive
 * buffer (GAUGE). */
#define FAB_SOCK_TCP_KCOLS                                                                         \
    {"tcp_retrans", "retr", "count",                                                               \
     "socket kernels: TCP segments the senders retransmitted during the timed blocks "             \
     "(TCP_INFO tcpi_total_retrans, iperf3's Retr); NaN for other kernels",                        \
     FAB_KCOL_COUNTER},                                                                            \
        {"sndbuf_bytes", "sndbuf", "bytes",                                                        \
         "socket kernels: the senders' socket send buffer (SO_SNDBUF as the OS reports it, mean "  \
         "over senders); NaN for other kernels",                                                   \
         FAB_KCOL_GAUGE},                                                                          \
    {                                                                                              \
        "rcvbuf_bytes", "rcvbuf", "bytes",                                                         \
            "socket kernels: the receivers' socket receive buffer (SO_RCVBUF, after autotuning); " \
            "NaN for other kernels",                                                               \
            FAB_KCOL_GAUGE                                                                         \
    }
#define FAB_SOCK_TCP_NKCOLS 3

/* This rank's values of FAB_SOCK_TCP_KCOLS into c[0..2]: retransmitted segments summed over
 * the streams (the sender's), the socket buffer of the first stream (SO_SNDBUF on the sender,
 * SO_RCVBUF on the receiver). */
void fab_sock_counters(const fab_sock_link_t *l, double *c);

#endif
