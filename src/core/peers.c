/* SPDX-License-Identifier: BSD-3-Clause */
/* The watchdog's side channel (core/peers.h): one UDP socket per rank, bound to every
 * address of its host on a port the kernel picks; its addresses go to every rank in one
 * MPI_Allgather. A datagram is one fixed-size message carrying the job's random token (rank
 * 0's, sent with the addresses): anything else arriving on the port is dropped unanswered.
 * The token keeps other jobs' and strangers' datagrams out; it is no secret from someone who
 * can read the cluster's network, who could disturb MPI's own traffic as well. */
#define _GNU_SOURCE /* getrandom, NI_MAXHOST */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/comm.h"
#include "core/log.h"
#include "core/peers.h"
#include "core/testhook.h"
#include "core/text.h"

#define FAB_PEER_MAGIC   0x46425744u /* "FBWD" */
#define FAB_PEER_VERSION 1
#define FAB_PEER_ADDRS   8   /* addresses of a host that are advertised */
#define FAB_PEER_PROBE_S 2.0 /* the start-up probe's bound */
#define FAB_PEER_RCVBUF  (1 << 20)

enum { FAB_PMSG_PROBE = 1, FAB_PMSG_ACK, FAB_PMSG_QUERY, FAB_PMSG_ANSWER, FAB_PMSG_ENDED };
/* The outcome of the start-up check, agreed with MAXLOC: the worst and its lowest rank. */
enum { FAB_PEERS_OK = 0, FAB_PEERS_OFF, FAB_PEERS_NOSOCK, FAB_PEERS_NOANSWER };

/* On the wire: integers big-endian, strings NUL-padded. */
typedef struct fab_pmsg {
    uint32_t magic;
    uint8_t version, type, mode, idle;
    uint32_t seq;
    int32_t from, waits_for;
    uint32_t stuck_ms, frozen_ms, spare; /* spare: 0, keeps the 64-bit fields aligned */
    uint64_t token, bytes;
    char phase[FAB_PEER_PHASE_MAX], kernel[FAB_PEER_KERNEL_MAX], text[FAB_PEER_TEXT_MAX];
} fab_pmsg_t;
_Static_assert(sizeof(fab_pmsg_t) ==
                   48 + FAB_PEER_PHASE_MAX + FAB_PEER_KERNEL_MAX + FAB_PEER_TEXT_MAX,
               "fab_pmsg_t has no padding");

/* One rank's entry of the exchange. */
typedef struct fab_peer_addr {
    uint64_t token;
    uint16_t port; /* network order; 0: no socket */
    uint8_t naddr, pad;
    uint8_t fam[FAB_PEER_ADDRS]; /* 4 or 6 */
    uint8_t addr[FAB_PEER_ADDRS][16];
} fab_peer_addr_t;

static struct {
    int fd, family, me, size;
    uint64_t token;
    uint32_t seq;
    const fab_world_t *w;
    fab_peer_addr_t *all;
    int target; /* the start-up probe's */
    bool acked;
    bool drop; /* FABRICBENCH_TEST_PEERS_DROP: a firewall in front of this rank */
} fab_peers = {.fd = -1, .target = -1};
static atomic_int fab_peers_ready; /* the watchdog may use the socket */

static double fab_peers_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifndef FAB_SIM /* the side channel is off in the simulated build (core/sim.h) */
/* This host's addresses other peers can reach: up, not loopback, not IPv6 link-local. */
static void fab_peers_local(fab_peer_addr_t *a)
{
    struct ifaddrs *ifs = NULL;

    if (getifaddrs(&ifs) != 0)
        return;
    for (struct ifaddrs *i = ifs; i && a->naddr < FAB_PEER_ADDRS; i = i->ifa_next) {
        if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        if (i->ifa_addr->sa_family == AF_INET) {
            a->fam[a->naddr] = 4;
            memcpy(a->addr[a->naddr++], &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4);
        } else if (i->ifa_addr->sa_family == AF_INET6 && fab_peers.family == AF_INET6) {
            const struct in6_addr *v6 = &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;

            if (IN6_IS_ADDR_LINKLOCAL(v6) || IN6_IS_ADDR_V4MAPPED(v6))
                continue;
            a->fam[a->naddr] = 6;
            memcpy(a->addr[a->naddr++], v6, 16);
        }
    }
    freeifaddrs(ifs);
}

/* A dual-stack IPv6 socket where the host has IPv6, else IPv4; every address, any port. */
static int fab_peers_open(uint16_t *port)
{
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), off = 0;
    int rcv = FAB_PEER_RCVBUF;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    memset(&ss, 0, sizeof(ss));
    if (fd >= 0) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_any;
        if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0 ||
            bind(fd, (struct sockaddr *)s6, sizeof(*s6)) != 0) {
            close(fd);
            fd = -1;
        }
    }
    fab_peers.family = AF_INET6;
    if (fd < 0) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

        fab_peers.family = AF_INET;
        memset(&ss, 0, sizeof(ss));
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(INADDR_ANY);
        if (fd >= 0 && bind(fd, (struct sockaddr *)s4, sizeof(*s4)) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv)); /* many answers at once */
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        close(fd);
        return -1;
    }
    *port = ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                     : ((struct sockaddr_in *)&ss)->sin_port;
    return fd;
}

#endif

/* The socket address of rank r's i-th address (i == -1: loopback) for this socket. */
static socklen_t fab_peers_sockaddr(int r, int i, struct sockaddr_storage *ss)
{
    const fab_peer_addr_t *a = &fab_peers.all[r];
    uint8_t v4[4] = {127, 0, 0, 1};
    const uint8_t *ip = i < 0 ? v4 : a->addr[i];
    int fam = i < 0 ? 4 : a->fam[i];

    memset(ss, 0, sizeof(*ss));
    if (fab_peers.family == AF_INET) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

        s4->sin_family = AF_INET;
        s4->sin_port = a->port;
        memcpy(&s4->sin_addr, ip, 4);
        return sizeof(*s4);
    }
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

    s6->sin6_family = AF_INET6;
    s6->sin6_port = a->port;
    if (fam == 6) {
        memcpy(&s6->sin6_addr, ip, 16);
    } else { /* v4-mapped: ::ffff:a.b.c.d */
        s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
        memcpy(&s6->sin6_addr.s6_addr[12], ip, 4);
    }
    return sizeof(*s6);
}

static bool fab_peers_same_host(int r)
{
    const fab_world_t *w = fab_peers.w;

    return w->hosts && strcmp(w->hosts[r], w->host) == 0;
}

/* To every address of rank r (loopback on this host); errors are what a lost datagram is. */
static void fab_peers_send(int r, fab_pmsg_t *m)
{
    struct sockaddr_storage ss;

    if (r < 0 || r >= fab_peers.size || r == fab_peers.me || fab_peers.all[r].port == 0)
        return;
    m->magic = htonl(FAB_PEER_MAGIC);
    m->version = FAB_PEER_VERSION;
    m->from = (int32_t)htonl((uint32_t)fab_peers.me);
    m->token = htobe64(fab_peers.token);
    if (fab_peers_same_host(r)) {
        socklen_t n = fab_peers_sockaddr(r, -1, &ss);

        sendto(fab_peers.fd, m, sizeof(*m), MSG_DONTWAIT, (struct sockaddr *)&ss, n);
        return;
    }
    for (int i = 0; i < fab_peers.all[r].naddr && i < FAB_PEER_ADDRS; i++) {
        socklen_t n;

        if (fab_peers.all[r].fam[i] != 4 &&
            (fab_peers.all[r].fam[i] != 6 || fab_peers.family != AF_INET6))
            continue; /* an IPv6 address this IPv4 socket cannot reach */
        n = fab_peers_sockaddr(r, i, &ss);

        sendto(fab_peers.fd, m, sizeof(*m), MSG_DONTWAIT, (struct sockaddr *)&ss, n);
    }
}

static void fab_peers_text(char *dst, const char *src, size_t len)
{
    size_t i = 0;

    for (; i + 1 < len && src[i]; i++) /* what goes on the wire is only printable text */
        dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
    memset(dst + i, 0, len - i);
}

static void fab_peers_fill(fab_pmsg_t *m, int type, uint32_t seq, const fab_peer_state_t *s)
{
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)type;
    m->seq = htonl(seq);
    if (!s)
        return;
    m->mode = (uint8_t)s->mode;
    m->idle = s->idle;
    m->waits_for = (int32_t)htonl((uint32_t)s->waits_for);
    m->stuck_ms = htonl(s->stuck_s > 4e6 ? 4000000000u : (uint32_t)(s->stuck_s * 1e3));
    m->frozen_ms = htonl(s->frozen_s > 4e6 ? 4000000000u : (uint32_t)(s->frozen_s * 1e3));
    m->bytes = htobe64(s->bytes);
    fab_peers_text(m->phase, s->phase, sizeof(m->phase));
    fab_peers_text(m->kernel, s->kernel, sizeof(m->kernel));
}

/* Whether the source address is one of rank r's (loopback for a rank of this host). */
static bool fab_peers_from(int r, const struct sockaddr_storage *src)
{
    const uint8_t *ip;
    int fam;

    if (src->ss_family == AF_INET) {
        ip = (const uint8_t *)&((const struct sockaddr_in *)src)->sin_addr;
        fam = 4;
    } else {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)src)->sin6_addr;

        fam = IN6_IS_ADDR_V4MAPPED(a) ? 4 : 6;
        ip = fam == 4 ? &a->s6_addr[12] : a->s6_addr;
    }
    if (fam == 4 && ip[0] == 127)
        return fab_peers_same_host(r);
    if (fam == 6 && IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)(const void *)ip))
        return fab_peers_same_host(r);
    for (int i = 0; i < fab_peers.all[r].naddr && i < FAB_PEER_ADDRS; i++)
        if (fab_peers.all[r].fam[i] == fam &&
            memcmp(fab_peers.all[r].addr[i], ip, fam == 4 ? 4 : 16) == 0)
            return true;
    return false;
}

/* What one ask is waiting for: the answers of ranks (idx: rank -> index, -1 none). */
typedef struct fab_ask {
    uint32_t seq;
    const int *idx;
    fab_peer_state_t *out;
    bool *got;
} fab_ask_t;

static void fab_peers_answer_to(fab_pmsg_t *m, fab_peer_state_t *s)
{
    m->phase[sizeof(m->phase) - 1] = m->kernel[sizeof(m->kernel) - 1] = '\0';
    s->mode = m->mode;
    s->idle = m->idle != 0;
    s->waits_for = (int32_t)ntohl((uint32_t)m->waits_for);
    if (s->waits_for < -2 || s->waits_for >= fab_peers.size)
        s->waits_for = -2;
    s->stuck_s = (double)ntohl(m->stuck_ms) * 1e-3;
    s->frozen_s = (double)ntohl(m->frozen_ms) * 1e-3;
    s->bytes = be64toh(m->bytes);
    fab_text_safe(m->phase, s->phase, sizeof(s->phase));
    fab_text_safe(m->kernel, s->kernel, sizeof(s->kernel));
}

/* Everything queued, without waiting. */
static void fab_peers_drain(const fab_peer_state_t *me, fab_peer_ended_t *ended, fab_ask_t *ask)
{
    for (int k = 0; k < 4096; k++) {
        fab_pmsg_t m, reply;
        struct sockaddr_storage src;
        socklen_t sl = sizeof(src);
        ssize_t n =
            recvfrom(fab_peers.fd, &m, sizeof(m), MSG_DONTWAIT, (struct sockaddr *)&src, &sl);
        int from;
        uint32_t seq;

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        from = (int32_t)ntohl((uint32_t)m.from);
        seq = ntohl(m.seq);
        if (fab_peers.drop || n != (ssize_t)sizeof(m) || ntohl(m.magic) != FAB_PEER_MAGIC ||
            m.version != FAB_PEER_VERSION || be64toh(m.token) != fab_peers.token || from < 0 ||
            from >= fab_peers.size || from == fab_peers.me)
            continue; /* not this job's */
        if (m.type == FAB_PMSG_PROBE || m.type == FAB_PMSG_QUERY) {
            fab_peers_fill(&reply, m.type == FAB_PMSG_PROBE ? FAB_PMSG_ACK : FAB_PMSG_ANSWER, seq,
                           m.type == FAB_PMSG_QUERY ? me : NULL);
            reply.magic = htonl(FAB_PEER_MAGIC);
            reply.version = FAB_PEER_VERSION;
            reply.from = (int32_t)htonl((uint32_t)fab_peers.me);
            reply.token = htobe64(fab_peers.token);
            sendto(fab_peers.fd, &reply, sizeof(reply), MSG_DONTWAIT, (struct sockaddr *)&src, sl);
        } else if (m.type == FAB_PMSG_ACK && from == fab_peers.target) {
            fab_peers.acked = true;
        } else if (m.type == FAB_PMSG_ANSWER && ask && seq == ask->seq && ask->idx[from] >= 0) {
            fab_peers_answer_to(&m, &ask->out[ask->idx[from]]);
            ask->got[ask->idx[from]] = true;
        } else if (m.type == FAB_PMSG_ENDED && ended && ended->from < 0 &&
                   fab_peers_from(from, &src)) {
            m.text[sizeof(m.text) - 1] = '\0';
            ended->from = from;
            fab_text_safe(m.text, ended->text, sizeof(ended->text));
        }
    }
}

static void fab_peers_wait(double s)
{
    struct pollfd p = {fab_peers.fd, POLLIN, 0};

    poll(&p, 1, s <= 0 ? 0 : (int)(s * 1e3) + 1);
}

#ifndef FAB_SIM
/* The start-up probe's target: the next rank on another host (the next rank on one host). */
static int fab_peers_probe_target_of(const fab_world_t *w, int r)
{
    for (int k = 1; k < w->size; k++) {
        int t = (r + k) % w->size;

        if (strcmp(w->hosts[t], w->hosts[r]) != 0)
            return t;
    }
    return (r + 1) % w->size;
}

/* Probe the target until it answers or the bound passes, answering the probes of others
 * until every rank has its outcome (a non-blocking MPI_Iallreduce, MAXLOC, on comm). */
static void fab_peers_check_on(const fab_world_t *w, int mine, int out[2], MPI_Comm comm)
{
    int in[2] = {mine, w->rank};
    double t0 = fab_peers_now(), sent = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    bool started = false;
    int done = 0;

    fab_peers.target =
        mine == FAB_PEERS_OK && w->size > 1 ? fab_peers_probe_target_of(w, w->rank) : -1;
    fab_peers.acked = fab_peers.target < 0;
    while (!done) {
        double now = fab_peers_now();

        if (fab_peers.fd >= 0)
            fab_peers_drain(NULL, NULL, NULL);
        if (!fab_peers.acked && now - t0 < FAB_PEER_PROBE_S && (sent < 0 || now - sent > 0.25)) {
            fab_pmsg_t m;

            fab_peers_fill(&m, FAB_PMSG_PROBE, 1, NULL);
            fab_peers_send(fab_peers.target, &m);
            sent = now;
        }
        if (!started && (fab_peers.acked || now - t0 >= FAB_PEER_PROBE_S)) {
            if (!fab_peers.acked)
                in[0] = FAB_PEERS_NOANSWER;
            if (MPI_Iallreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm, &req) != MPI_SUCCESS) {
                out[0] = FAB_PEERS_NOSOCK;
                out[1] = w->rank;
                return;
            }
            started = true;
        }
        if (started && MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            out[0] = FAB_PEERS_NOSOCK;
            return;
        }
        if (!done) {
            if (fab_peers.fd >= 0)
                fab_peers_wait(0.001);
            else
                usleep(1000);
        }
    }
}

/* The allreduce runs on a copy of the world that is freed after it: on MPI_COMM_WORLD, libnbc's
 * progress would stay registered for the whole run (core/comm.h). */
static void fab_peers_check(const fab_world_t *w, int mine, int out[2])
{
    MPI_Comm c = MPI_COMM_NULL;

    if (fab_comm_scratch(MPI_COMM_WORLD, &c) != FAB_OK || c == MPI_COMM_NULL) {
        out[0] = FAB_PEERS_NOSOCK;
        out[1] = w->rank;
        return;
    }
    fab_peers_check_on(w, mine, out, c);
    MPI_Comm_free(&c);
}

static void fab_peers_close(void)
{
    if (fab_peers.fd >= 0)
        close(fab_peers.fd);
    fab_peers.fd = -1;
    free(fab_peers.all);
    fab_peers.all = NULL;
}

#endif

bool fab_peers_setup(const fab_world_t *w, bool want)
{
#ifdef FAB_SIM
    (void)w;
    (void)want;
    return false; /* the watchdog is off (core/sim.h) */
#else
    fab_peer_addr_t mine;
    int state = want ? FAB_PEERS_OK : FAB_PEERS_OFF, out[2] = {FAB_PEERS_OK, 0};
    uint16_t port = 0;

    memset(&mine, 0, sizeof(mine));
    fab_peers.w = w;
    fab_peers.me = w->rank;
    fab_peers.drop = fab_test_peers_drop(w->rank);
    fab_peers.size = w->size;
    if (want && (fab_peers.fd = fab_peers_open(&port)) < 0) {
        FAB_WARN("the watchdog's side channel: no UDP socket (%s)", strerror(errno));
        state = FAB_PEERS_NOSOCK;
    }
    if (fab_peers.fd >= 0) {
        mine.port = port;
        fab_peers_local(&mine);
        if (getrandom(&mine.token, sizeof(mine.token), GRND_NONBLOCK) != sizeof(mine.token))
            mine.token = ((uint64_t)getpid() << 32) ^ (uint64_t)(fab_peers_now() * 1e9);
    }
    fab_peers.all = calloc((size_t)w->size, sizeof(*fab_peers.all));
    /* Every rank takes part in the gather, with or without a socket (port 0). */
    if (MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, fab_peers.all ? (void *)fab_peers.all : NULL,
                      fab_peers.all ? (int)sizeof(mine) : 0, MPI_BYTE,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
        state = FAB_PEERS_NOSOCK;
    if (!fab_peers.all)
        state = FAB_PEERS_NOSOCK;
    if (fab_peers.all)
        fab_peers.token = fab_peers.all[0].token;
    if (fab_peers.all && state == FAB_PEERS_OK)
        for (int r = 0; r < w->size && state == FAB_PEERS_OK; r++)
            if (fab_peers.all[r].port == 0)
                state = FAB_PEERS_OFF; /* that rank says why, if it wanted one */
    fab_peers_check(w, state, out);
    if (out[0] == FAB_PEERS_NOANSWER && w->rank == 0)
        FAB_WARN("the watchdog's side channel is off: rank %d (%s) got no answer over UDP from "
                 "rank %d (%s) within %.0f s (a firewall between them?); a stall then names the "
                 "rank it waited for without asking whether it is alive",
                 out[1], w->hosts[out[1]], fab_peers_probe_target_of(w, out[1]),
                 w->hosts[fab_peers_probe_target_of(w, out[1])], FAB_PEER_PROBE_S);
    if (out[0] == FAB_PEERS_NOSOCK && w->rank == 0)
        FAB_WARN("the watchdog's side channel is off: rank %d (%s) has none (see its warning); a "
                 "stall then names the rank it waited for without asking whether it is alive",
                 out[1], w->hosts[out[1]]);
    if (out[0] != FAB_PEERS_OK) {
        fab_peers_close();
        return false;
    }
    atomic_store(&fab_peers_ready, 1);
    return true;
#endif
}

int fab_peers_fd(void)
{
    return atomic_load(&fab_peers_ready) ? fab_peers.fd : -1;
}

void fab_peers_serve(const fab_peer_state_t *me, fab_peer_ended_t *ended)
{
    if (fab_peers_fd() >= 0)
        fab_peers_drain(me, ended, NULL);
}

int fab_peers_ask(const int *ranks, int n, double wait_s, const fab_peer_state_t *me,
                  fab_peer_state_t *out, bool *got, fab_peer_ended_t *ended)
{
    int *idx, answered = 0;
    fab_ask_t ask;
    double t0, sent = -1;

    if (fab_peers_fd() < 0)
        return -1;
    idx = malloc(sizeof(int) * (size_t)fab_peers.size);
    if (!idx)
        return -1;
    for (int r = 0; r < fab_peers.size; r++)
        idx[r] = -1;
    for (int i = 0; i < n; i++) {
        got[i] = false;
        if (ranks[i] >= 0 && ranks[i] < fab_peers.size)
            idx[ranks[i]] = i;
    }
    ask = (fab_ask_t){++fab_peers.seq, idx, out, got};
    t0 = fab_peers_now();
    for (;;) {
        double now = fab_peers_now();

        fab_peers_drain(me, ended, &ask);
        answered = 0;
        for (int i = 0; i < n; i++)
            answered += got[i];
        if (answered == n || now - t0 >= wait_s)
            break;
        if (sent < 0 || now - sent >= wait_s / 3) { /* again to those silent: a datagram lost */
            fab_pmsg_t m;

            fab_peers_fill(&m, FAB_PMSG_QUERY, ask.seq, NULL);
            for (int i = 0; i < n; i++)
                if (!got[i])
                    fab_peers_send(ranks[i], &m);
            sent = now;
        }
        fab_peers_wait(0.02);
    }
    free(idx);
    return answered;
}

void fab_peers_tell_end(int to, const char *reason)
{
    fab_pmsg_t m;

    if (fab_peers_fd() < 0)
        return;
    fab_peers_fill(&m, FAB_PMSG_ENDED, 0, NULL);
    fab_peers_text(m.text, reason, sizeof(m.text));
    fab_peers_send(to, &m);
    fab_peers_send(to, &m);
}

static const char *fab_peers_host(int r)
{
    const fab_world_t *w = fab_peers.w;

    return w && w->hosts && r >= 0 && r < w->size ? w->hosts[r] : "?";
}

void fab_peer_describe(const fab_peer_state_t *s, char *buf, size_t len)
{
    char what[160] = "", wait[320] = "";

    if (s->kernel[0])
        snprintf(what, sizeof(what), " (kernel '%s', %llu bytes)", s->kernel,
                 (unsigned long long)s->bytes);
    if (s->idle)
        snprintf(wait, sizeof(wait), ", waiting by design");
    else if (s->waits_for >= 0)
        snprintf(wait, sizeof(wait), ", waiting for rank %d (%s)", s->waits_for,
                 fab_peers_host(s->waits_for));
    else if (s->waits_for == -1)
        snprintf(wait, sizeof(wait), ", waiting for the other ranks");
    snprintf(buf, len, "in '%s'%s, no progress for %.1f s%s", s->phase, what, s->stuck_s, wait);
}
