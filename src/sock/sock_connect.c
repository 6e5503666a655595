/* SPDX-License-Identifier: BSD-3-Clause */
/* The socket kernels' connections (sock/sock.h): the address each rank uses, the pair's
 * exchange over MPI, listening, dialling and accepting with a time-out. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/testhook.h"
#include "sock/sock.h"

socklen_t fab_sa_len(const fab_sockaddr_t *a)
{
    return a->sa.sa_family == AF_INET6 ? sizeof(a->in6) : sizeof(a->in);
}

bool fab_sa_parse(const char *text, int port, fab_sockaddr_t *a)
{
    memset(a, 0, sizeof(*a));
    if (inet_pton(AF_INET, text, &a->in.sin_addr) == 1) {
        a->in.sin_family = AF_INET;
        a->in.sin_port = htons((uint16_t)port);
        return true;
    }
    if (inet_pton(AF_INET6, text, &a->in6.sin6_addr) == 1) {
        a->in6.sin6_family = AF_INET6;
        a->in6.sin6_port = htons((uint16_t)port);
        return true;
    }
    return false;
}

void fab_sa_text(const fab_sockaddr_t *a, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";

    if (a->sa.sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof(ip));
        snprintf(buf, len, "[%s]:%d", ip, ntohs(a->in6.sin6_port));
    } else {
        inet_ntop(AF_INET, &a->in.sin_addr, ip, sizeof(ip));
        snprintf(buf, len, "%s:%d", ip, ntohs(a->in.sin_port));
    }
}

/* The same host address (the ports aside). */
bool fab_sa_same_ip(const fab_sockaddr_t *a, const fab_sockaddr_t *b)
{
    if (a->sa.sa_family != b->sa.sa_family)
        return false;
    if (a->sa.sa_family == AF_INET6)
        return memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, sizeof(a->in6.sin6_addr)) == 0;
    return a->in.sin_addr.s_addr == b->in.sin_addr.s_addr;
}

/* This host's addresses as text ("lo 127.0.0.1, eth0 10.0.0.1"), for messages. */
static void fab_sock_list_addrs(char *out, size_t len)
{
    struct ifaddrs *ifs = NULL;
    size_t at = 0;

    out[0] = '\0';
    if (getifaddrs(&ifs) != 0)
        return;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        char ip[INET6_ADDRSTRLEN];
        const void *src;
        int n;

        if (!i->ifa_addr ||
            (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
            continue;
        src = i->ifa_addr->sa_family == AF_INET
                  ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
                  : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
        inet_ntop(i->ifa_addr->sa_family, src, ip, sizeof(ip));
        n = snprintf(out + at, len - at, "%s%s %s", at ? ", " : "", i->ifa_name, ip);
        if (n < 0 || (size_t)n >= len - at)
            break;
        at += (size_t)n;
    }
    freeifaddrs(ifs);
}

/* Whether text is an address of an interface of this host that is up. */
static bool fab_sock_is_local(const char *text)
{
    fab_sockaddr_t want, have;
    struct ifaddrs *ifs = NULL;
    bool found = false;

    if (!fab_sa_parse(text, 0, &want) || getifaddrs(&ifs) != 0)
        return false;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != want.sa.sa_family || !(i->ifa_flags & IFF_UP))
            continue;
        memset(&have, 0, sizeof(have));
        memcpy(&have, i->ifa_addr,
               want.sa.sa_family == AF_INET6 ? sizeof(have.in6) : sizeof(have.in));
        found = fab_sa_same_ip(&want, &have);
    }
    freeifaddrs(ifs);
    return found;
}

/* The address of interface dev: its IPv4 one, else a global IPv6 one. */
static bool fab_sock_dev_addr(const char *dev, char *out, size_t len)
{
    struct ifaddrs *ifs = NULL;
    bool found = false;

    if (getifaddrs(&ifs) != 0)
        return false;
    for (int pass = 0; pass < 2 && !found; pass++)
        for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
            if (!i->ifa_addr || strcmp(i->ifa_name, dev) != 0)
                continue;
            if (pass == 0 && i->ifa_addr->sa_family == AF_INET) {
                inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out,
                          (socklen_t)len);
                found = true;
            } else if (pass == 1 && i->ifa_addr->sa_family == AF_INET6) {
                const struct in6_addr *a6 = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

                if (IN6_IS_ADDR_LINKLOCAL(a6))
                    continue; /* needs a scope: not across hosts without more set-up */
                inet_ntop(AF_INET6, a6, out, (socklen_t)len);
                found = true;
            }
        }
    freeifaddrs(ifs);
    return found;
}

fab_status_t fab_sock_fail(fab_status_t st, const char *kernel, const char *hint, const char *fmt,
                           ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    FAB_ERROR("%s: %s; %s", kernel, msg, hint);
    return st;
}

fab_status_t fab_sock_choose(const fab_kctx_t *ctx, const char *peer_host, const char *kernel,
                             fab_sock_end_t *me)
{
    char list[512];
    fab_sockaddr_t a;

    if (fab_sock_opt.bind) {
        char copy[FAB_SOCK_BIND_MAX], *save = NULL;

        snprintf(copy, sizeof(copy), "%s", fab_sock_opt.bind);
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (!fab_sa_parse(t, 0, &a))
                return fab_sock_fail(FAB_ERR_CONFIG, kernel,
                                     "give numeric IPv4 or IPv6 addresses, e.g. --bind "
                                     "10.0.0.1,10.0.0.2",
                                     "--bind %s: '%s' is not an IP address", fab_sock_opt.bind, t);
            if (fab_sock_is_local(t)) {
                snprintf(me->addr, sizeof(me->addr), "%s", t);
                me->family = a.sa.sa_family;
                return FAB_OK;
            }
        }
        fab_sock_list_addrs(list, sizeof(list));
        return fab_sock_fail(FAB_ERR_CONFIG, kernel,
                             "give each host's address on the interface to test (one list for "
                             "all ranks: each takes the first of its own)",
                             "--bind %s: none of these is an address of this host (%s), whose "
                             "interfaces have %s",
                             fab_sock_opt.bind, me->host, list[0] ? list : "no address");
    }
    if (ctx->netdev && ctx->netdev[0]) {
        if (!fab_sock_dev_addr(ctx->netdev, me->addr, sizeof(me->addr)))
            return fab_sock_fail(FAB_ERR_ENV, kernel,
                                 "give the interface an address, or choose another one with "
                                 "--device or --bind",
                                 "interface %s (the fabric's on this host, %s) has no IPv4 or "
                                 "global IPv6 address",
                                 ctx->netdev, me->host);
        fab_sa_parse(me->addr, 0, &a);
        me->family = a.sa.sa_family;
        return FAB_OK;
    }
    if (strcmp(me->host, peer_host) == 0) {
        snprintf(me->addr, sizeof(me->addr), "127.0.0.1");
        me->family = AF_INET;
        return FAB_OK;
    }
    return fab_sock_fail(FAB_ERR_CONFIG, kernel,
                         "say which interface carries the sockets: --fabric tcp [--device IF], "
                         "or --bind ADDR_A,ADDR_B",
                         "the pair's ranks are on different hosts (%s and %s) and no interface "
                         "was chosen",
                         me->host, peer_host);
}

double fab_sock_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fab_sock_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void fab_sock_tune(int fd, bool nodelay)
{
    int one = 1;

    if (nodelay)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (fab_sock_opt.sockbuf > 0) {
        int b = fab_sock_opt.sockbuf > (size_t)0x3fffffff ? 0x3fffffff : (int)fab_sock_opt.sockbuf;

        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &b, sizeof(b));
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &b, sizeof(b));
    }
}

/* The receiver's listening socket on me->addr, port 0; its port into me->port. */
static fab_status_t fab_sock_listen(fab_sock_end_t *me, int n, const char *kernel, int *lfd)
{
    fab_sockaddr_t a;
    socklen_t len;

    fab_sa_parse(me->addr, 0, &a);
    *lfd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*lfd < 0)
        return fab_sock_fail(FAB_ERR_ENV, kernel, "check the limit on open files (ulimit -n)",
                             "cannot open a TCP socket on %s: %s", me->host, strerror(errno));
    fab_sock_tune(*lfd, false); /* buffers set before listen are inherited */
    len = fab_sa_len(&a);
    if (bind(*lfd, &a.sa, len) != 0 || listen(*lfd, n) != 0 || getsockname(*lfd, &a.sa, &len) != 0)
        return fab_sock_fail(FAB_ERR_ENV, kernel,
                             "check that the address is up and that the OS has free ports",
                             "cannot listen on %s port 0 (any free one) on %s: %s", me->addr,
                             me->host, strerror(errno));
    me->port = ntohs(a.sa.sa_family == AF_INET6 ? a.in6.sin6_port : a.in.sin_port);
    fab_sock_nonblock(*lfd);
    return FAB_OK;
}

/* The sender: n connections from me->addr to the receiver's address and port. */
static fab_status_t fab_sock_dial(fab_sock_link_t *l, const fab_sock_end_t *me,
                                  const fab_sock_end_t *peer, int peer_rank, bool nodelay)
{
    fab_sockaddr_t from, to;
    char where[96];

    fab_sa_parse(me->addr, 0, &from);
    fab_sa_parse(peer->addr, peer->port, &to);
    fab_sa_text(&to, where, sizeof(where));
    for (int s = 0; s < l->n; s++) {
        struct pollfd p;
        int fd, err = 0, r;
        socklen_t el = sizeof(err);
        double end = fab_sock_now() + FAB_SOCK_CONNECT_S;

        fd = socket(to.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            return fab_sock_fail(FAB_ERR_ENV, l->kernel,
                                 "check the limit on open files (ulimit -n) or lower --streams",
                                 "cannot open TCP socket %d of %d on %s: %s", s + 1, l->n, me->host,
                                 strerror(errno));
        l->fd[s] = fd;
        fab_sock_tune(fd, nodelay);
        if (bind(fd, &from.sa, fab_sa_len(&from)) != 0)
            return fab_sock_fail(FAB_ERR_ENV, l->kernel, "check that the address is up",
                                 "cannot bind a socket to %s on %s: %s", me->addr, me->host,
                                 strerror(errno));
        if (connect(fd, &to.sa, fab_sa_len(&to)) != 0 && errno != EINPROGRESS)
            err = errno;
        else {
            do {
                p.fd = fd;
                p.events = POLLOUT;
                p.revents = 0;
                r = poll(&p, 1, (int)fmax(1.0, (end - fab_sock_now()) * 1e3));
            } while ((r < 0 && errno == EINTR) || (r == 0 && fab_sock_now() < end));
            if (r == 0)
                err = ETIMEDOUT;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
                err = errno;
        }
        if (err)
            return fab_sock_fail(FAB_ERR_ENV, l->kernel,
                                 "check that the address is reachable from this host (route, "
                                 "firewall) or choose another with --bind / --device",
                                 "cannot connect from %s to rank %d (host %s) at %s: %s%s",
                                 me->addr, peer_rank, peer->host, where, strerror(err),
                                 err == ETIMEDOUT ? " (no answer within the connection "
                                                    "time-out)"
                                                  : "");
    }
    return FAB_OK;
}

/* The receiver: n connections from the sender's address (any other is refused). */
static fab_status_t fab_sock_take(fab_sock_link_t *l, int lfd, const fab_sock_end_t *me,
                                  const fab_sock_end_t *peer, int peer_rank, bool nodelay)
{
    fab_sockaddr_t want, got;

    fab_sa_parse(peer->addr, 0, &want);
    for (int s = 0; s < l->n;) {
        double end = fab_sock_now() + FAB_SOCK_CONNECT_S + 2; /* the sender gives up first */
        struct pollfd p = {lfd, POLLIN, 0};
        socklen_t len = sizeof(got);
        char who[96];
        int fd, r;

        do {
            r = poll(&p, 1, (int)fmax(1.0, (end - fab_sock_now()) * 1e3));
        } while ((r < 0 && errno == EINTR) || (r == 0 && fab_sock_now() < end));
        if (r <= 0)
            return fab_sock_fail(FAB_ERR_ENV, l->kernel,
                                 "see the sender's error; check the route and firewall between "
                                 "the two addresses",
                                 "no connection %d of %d from rank %d (host %s, %s) reached %s "
                                 "port %d within %d s",
                                 s + 1, l->n, peer_rank, peer->host, peer->addr, me->addr, me->port,
                                 FAB_SOCK_CONNECT_S);
        fd = accept4(lfd, &got.sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                continue;
            return fab_sock_fail(FAB_ERR_ENV, l->kernel, "check the limit on open files",
                                 "accept on %s failed: %s", me->addr, strerror(errno));
        }
        if (!fab_sa_same_ip(&got, &want)) {
            fab_sa_text(&got, who, sizeof(who));
            FAB_WARN("%s: refused a connection from %s (not rank %d's address %s)", l->kernel, who,
                     peer_rank, peer->addr);
            close(fd);
            continue;
        }
        fab_sock_tune(fd, nodelay);
        l->fd[s++] = fd;
    }
    return FAB_OK;
}

bool fab_sock_refuse_for_tests(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_SOCK_REFUSE", &cached);
}

fab_status_t fab_sock_connect(fab_kctx_t *ctx, int peer, bool sender, int n, bool nodelay,
                              const char *kernel, fab_sock_link_t *l)
{
    fab_sock_end_t me, them;
    fab_status_t st;
    int lfd = -1, len = 0;

    memset(l, 0, sizeof(*l));
    for (int s = 0; s < FAB_SOCK_MAX_STREAMS; s++)
        l->fd[s] = -1;
    l->n = n;
    l->sender = sender;
    l->peer = peer;
    l->kernel = kernel;
    memset(&me, 0, sizeof(me));
    MPI_Get_processor_name(me.host, &len);
    /* 1. hosts, to know whether the pair shares one */
    st = FAB_MPI(MPI_Sendrecv(me.host, sizeof(me.host), MPI_CHAR, peer, ctx->tag + 15, them.host,
                              sizeof(them.host), MPI_CHAR, peer, ctx->tag + 15, ctx->comm,
                              MPI_STATUS_IGNORE));
    if (st != FAB_OK)
        return st;
    st = fab_sock_choose(ctx, them.host, kernel, &me);
    if (st == FAB_OK && !sender)
        st = fab_sock_listen(&me, n, kernel, &lfd);
    if (st == FAB_OK && !sender && fab_sock_refuse_for_tests()) {
        close(lfd); /* closed before the port is sent: the sender's connect is always refused */
        lfd = -1;
    }
    me.st = (int)st;
    /* 2. addresses and the port, with each side's outcome so far */
    {
        char host[MPI_MAX_PROCESSOR_NAME];

        memcpy(host, them.host, sizeof(host));
        st = FAB_MPI(MPI_Sendrecv(&me, sizeof(me), MPI_BYTE, peer, ctx->tag + 15, &them,
                                  sizeof(them), MPI_BYTE, peer, ctx->tag + 15, ctx->comm,
                                  MPI_STATUS_IGNORE));
        memcpy(them.host, host, sizeof(host));
    }
    if (st == FAB_OK && me.st == FAB_OK && them.st != FAB_OK)
        st = (fab_status_t)them.st; /* the peer said why; the same exit code on both */
    else if (st == FAB_OK)
        st = (fab_status_t)me.st;
    if (st == FAB_OK && sender)
        st = fab_sock_dial(l, &me, &them, peer, nodelay);
    else if (st == FAB_OK && lfd >= 0)
        st = fab_sock_take(l, lfd, &me, &them, peer, nodelay);
    if (lfd >= 0)
        close(lfd);
    /* 3. both ends up, or both fail with the worse status */
    {
        int mine = (int)st, other = 0;
        fab_status_t mst =
            FAB_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, peer, ctx->tag + 15, &other, 1, MPI_INT, peer,
                                 ctx->tag + 15, ctx->comm, MPI_STATUS_IGNORE));

        if (mst != FAB_OK)
            st = mst;
        else if (st == FAB_OK && other != FAB_OK)
            st = (fab_status_t)other;
    }
    if (st != FAB_OK) {
        fab_sock_close(l);
        return st;
    }
    snprintf(l->local, sizeof(l->local), "%s", me.addr);
    if (sender)
        snprintf(l->remote, sizeof(l->remote), "%s%s%s:%d", me.family == AF_INET6 ? "[" : "",
                 them.addr, me.family == AF_INET6 ? "]" : "", them.port);
    else
        snprintf(l->remote, sizeof(l->remote), "%s", them.addr);
    return FAB_OK;
}
