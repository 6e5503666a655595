/* SPDX-License-Identifier: BSD-3-Clause */
/* The socket kernels' shared parts (sock/sock.h): options, full reads and writes over the
 * connections, counters. The connections themselves: sock/sock_connect.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/num.h"
#include "core/sizes.h"
#include "sock/sock.h"

fab_sock_opts_t fab_sock_opt;

#define OFF(f)           offsetof(fab_sock_opts_t, f)
#define FAB_SOCK_STR_(x) #x
#define FAB_SOCK_STR(x)  FAB_SOCK_STR_(x) /* a default as the option table's text */
/* Each kernel takes a run of consecutive rows (FAB_SOCK_ROWS): every socket kernel --bind and
 * --sockbuf, the paced UDP one --rate before them, the streaming TCP one --streams, --omit,
 * --pattern and --receivers after them, bw the last two. */
enum {
    FAB_SOCK_RATE,
    FAB_SOCK_BIND,
    FAB_SOCK_SOCKBUF,
    FAB_SOCK_STREAMS,
    FAB_SOCK_OMIT,
    FAB_SOCK_PATTERN,
    FAB_SOCK_RECEIVERS,
    FAB_SOCK_NROWS
};
static const fab_opt_t fab_sock_options[FAB_SOCK_NROWS] = {
    [FAB_SOCK_RATE] = {"rate", 0, FAB_OPT_RATES, OFF(rate), 0, FAB_UDP_MAX_RATE, "RATE[,RATE...]",
                       "Gb/s", "1G",
                       "paced UDP kernels: the payload rate the sender offers (iperf3 -u -b), "
                       "500M, 2.5G; a list (1G,2G,4G or 1G:8G) runs the kernel once per rate, so "
                       "that loss shows where it starts",
                       0, true, NULL},
    [FAB_SOCK_BIND] = {"bind", 0, FAB_OPT_STRING, OFF(bind), 0, 0, "ADDR[,ADDR...]", NULL,
                       "the fabric's interface",
                       "socket kernels: the address the sockets use; each rank takes the first "
                       "one of the list that is its host's (default: the address of --fabric's "
                       "interface, or 127.0.0.1 when the pair shares a host)",
                       0, false, fab_sock_bind_check},
    [FAB_SOCK_SOCKBUF] = {"sockbuf", 0, FAB_OPT_SIZE, OFF(sockbuf), 0, FAB_SIZE_MAX, "SIZE",
                          "bytes", "0",
                          "socket kernels: SO_SNDBUF and SO_RCVBUF (iperf3 -w); 0 keeps the OS's "
                          "autotuning",
                          0, false, NULL},
    [FAB_SOCK_STREAMS] = {"streams", 0, FAB_OPT_INTS, OFF(streams), 1, FAB_SOCK_MAX_STREAMS,
                          "N[,N...]", "streams", "1",
                          "streaming socket kernels: parallel TCP connections per pair (iperf3 "
                          "-P); a list (1,4,8 or 1:8) runs the kernel once per count",
                          0, false, NULL},
    [FAB_SOCK_OMIT] = {"omit", 0, FAB_OPT_DOUBLE, OFF(omit), 0, FAB_SOCK_MAX_OMIT, "SECONDS", "s",
                       "0",
                       "streaming socket kernels: untimed streaming after connecting, past TCP "
                       "slow start (iperf3 -O)",
                       0, false, NULL},
    [FAB_SOCK_PATTERN] = {"pattern", 0, FAB_OPT_CHOICE, OFF(pattern), 0, 0, "pairs|incast", NULL,
                          "pairs",
                          "streaming TCP kernels and bw: pairs (TCP: rank i sends to rank i + P; "
                          "bw: the pair --pair) or incast (many to one: the first --receivers "
                          "ranks receive, every other rank sends to one of them, round robin, "
                          "with --streams connections over TCP; not with --pair)",
                          0, false, NULL},
    /* the default is a description (not parsed: receivers stays 0, "not given", which
     * fab_incast_check refuses without --pattern incast), its number the constant's */
    [FAB_SOCK_RECEIVERS] = {"receivers", 0, FAB_OPT_INT, OFF(receivers), 1, 4096, "N", "ranks",
                            FAB_SOCK_STR(FAB_INCAST_RECEIVERS) " (the first)",
                            "streaming TCP kernels and bw, --pattern incast only: the receiving "
                            "ranks (the first N; at least one sender each)",
                            0, false, NULL},
};
#define FAB_SOCK_ROWS(first, last)                                                                 \
    {                                                                                              \
        &fab_sock_options[first], (last) - (first) + 1, &fab_sock_opt                              \
    }
/* every socket kernel; the paced UDP one; the streaming TCP one; bw (sock/incast.h) */
const fab_kopts_t fab_sock_kopts = FAB_SOCK_ROWS(FAB_SOCK_BIND, FAB_SOCK_SOCKBUF);
const fab_kopts_t fab_sock_paced_kopts = FAB_SOCK_ROWS(FAB_SOCK_RATE, FAB_SOCK_SOCKBUF);
const fab_kopts_t fab_sock_stream_kopts = FAB_SOCK_ROWS(FAB_SOCK_BIND, FAB_SOCK_RECEIVERS);
const fab_kopts_t fab_incast_kopts = FAB_SOCK_ROWS(FAB_SOCK_PATTERN, FAB_SOCK_RECEIVERS);

fab_status_t fab_sock_bind_check(const char *val, char *err, size_t errlen)
{
    char copy[FAB_SOCK_BIND_MAX], q[64], *save = NULL;
    fab_sockaddr_t a;

    if (strlen(val) >= sizeof(copy) || val[0] == ',' || val[strlen(val) - 1] == ',' ||
        strstr(val, ",,")) {
        fab_num_quote(val, q, sizeof(q));
        snprintf(err, errlen,
                 "%s is not a list of addresses (%s); give numeric IPv4 or IPv6 addresses "
                 "separated by commas, e.g. 10.0.0.1,10.0.0.2",
                 q, strlen(val) >= sizeof(copy) ? "it is too long" : "it has an empty entry");
        return FAB_ERR_USAGE;
    }
    snprintf(copy, sizeof(copy), "%s", val);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!fab_sa_parse(t, 0, &a)) {
            fab_num_quote(t, q, sizeof(q));
            snprintf(err, errlen,
                     "%s is not an IP address; give numeric IPv4 or IPv6 addresses (not host "
                     "names) separated by commas, no spaces, e.g. 10.0.0.1,10.0.0.2",
                     q);
            return FAB_ERR_USAGE;
        }
    return FAB_OK;
}

void fab_sock_close(fab_sock_link_t *l)
{
    for (int s = 0; s < FAB_SOCK_MAX_STREAMS; s++)
        if (l->fd[s] >= 0) {
            close(l->fd[s]);
            l->fd[s] = -1;
        }
}

/* A connection that broke: what happened and on which stream. */
static fab_status_t fab_sock_broken(const fab_sock_link_t *l, int s, const char *what, int err)
{
    FAB_ERROR("%s: stream %d of %d with rank %d (%s) %s: %s; the peer ended or the network "
              "dropped the connection (see the peer's messages)",
              l->kernel, s + 1, l->n, l->peer, l->remote, what,
              err ? strerror(err) : "closed by the peer");
    return FAB_ERR_ENV;
}

static void fab_sock_wait(int fd, short ev)
{
    struct pollfd p = {fd, ev, 0};

    poll(&p, 1, 1000); /* the watchdog bounds the wait as a whole */
}

fab_status_t fab_sock_write(fab_sock_link_t *l, int s, const char *buf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t r = send(l->fd[s], buf + done, len - done, MSG_NOSIGNAL);

        if (r > 0)
            done += (size_t)r;
        else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            fab_sock_wait(l->fd[s], POLLOUT);
        else if (r < 0 && errno == EINTR)
            continue;
        else
            return fab_sock_broken(l, s, "failed to send", r < 0 ? errno : 0);
    }
    return FAB_OK;
}

fab_status_t fab_sock_read(fab_sock_link_t *l, int s, char *buf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t r = recv(l->fd[s], buf + done, len - done, 0);

        if (r > 0)
            done += (size_t)r;
        else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            fab_sock_wait(l->fd[s], POLLIN);
        else if (r < 0 && errno == EINTR)
            continue;
        else
            return fab_sock_broken(l, s, "failed to receive", r < 0 ? errno : 0);
    }
    return FAB_OK;
}

/* count x len bytes on every stream, one direction; each call moves at most len bytes. */
/* Who delivered what before the first sender finished (fab_sock_read_incast). */
typedef struct fab_sock_share {
    const int *owner;
    int nown;
    double *got;
    bool taken;
} fab_sock_share_t;

static void fab_sock_share_take(fab_sock_share_t *sh, const fab_sock_link_t *l, const size_t *left,
                                size_t want)
{
    int left_of[FAB_SOCK_MAX_STREAMS] = {0};

    if (!sh || sh->taken)
        return;
    for (int s = 0; s < l->n; s++)
        left_of[sh->owner[s]] += left[s] > 0;
    for (int o = 0; o < sh->nown; o++)
        if (left_of[o] == 0)
            sh->taken = true;
    if (!sh->taken)
        return;
    for (int s = 0; s < l->n; s++) { /* read, and arrived but not yet read (SIOCINQ) */
        int queued = 0;

        if (left[s] > 0 && ioctl(l->fd[s], FIONREAD, &queued) == 0 && queued > 0)
            queued = (size_t)queued < left[s] ? queued : (int)left[s];
        else
            queued = 0;
        sh->got[sh->owner[s]] += (double)(want - left[s]) + queued;
    }
}

static fab_status_t fab_sock_move_all(fab_sock_link_t *l, char *buf, size_t len, size_t count,
                                      bool out, fab_sock_share_t *sh)
{
    size_t left[FAB_SOCK_MAX_STREAMS], want = len * count;
    struct pollfd p[FAB_SOCK_MAX_STREAMS];
    int busy = l->n;

    for (int s = 0; s < l->n; s++)
        left[s] = want;
    while (busy > 0) {
        int np = 0;

        for (int s = 0; s < l->n; s++) {
            while (left[s] > 0) {
                size_t chunk = left[s] < len ? left[s] : len;
                ssize_t r =
                    out ? send(l->fd[s], buf, chunk, MSG_NOSIGNAL) : recv(l->fd[s], buf, chunk, 0);

                if (r > 0) {
                    left[s] -= (size_t)r;
                    busy -= left[s] == 0;
                    if (left[s] == 0)
                        fab_sock_share_take(sh, l, left, want);
                    if (sh) /* an incast: one message per stream in turn, none favoured */
                        break;
                } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                    break;
                else if (r < 0 && errno == EINTR)
                    continue;
                else
                    return fab_sock_broken(l, s, out ? "failed to send" : "failed to receive",
                                           r < 0 ? errno : 0);
            }
            if (left[s] > 0) {
                p[np].fd = l->fd[s];
                p[np].events = out ? POLLOUT : POLLIN;
                p[np].revents = 0;
                np++;
            }
        }
        if (np > 0)
            poll(p, (nfds_t)np, 1000); /* the watchdog bounds the wait as a whole */
    }
    return FAB_OK;
}

fab_status_t fab_sock_write_all(fab_sock_link_t *l, const char *buf, size_t len, size_t count)
{
    return fab_sock_move_all(l, (char *)buf, len, count, true, NULL);
}

fab_status_t fab_sock_read_all(fab_sock_link_t *l, char *buf, size_t len, size_t count)
{
    return fab_sock_move_all(l, buf, len, count, false, NULL);
}

fab_status_t fab_sock_read_incast(fab_sock_link_t *l, char *buf, size_t len, size_t count,
                                  const int *owner, int nown, double *got)
{
    fab_sock_share_t sh = {owner, nown, got, false};

    return fab_sock_move_all(l, buf, len, count, false, &sh);
}

void fab_sock_blocking(fab_sock_link_t *l)
{
    struct timeval t = {1, 0}; /* as long as the non-blocking path's poll(2) waits */

    for (int s = 0; s < l->n; s++) {
        int fl = fcntl(l->fd[s], F_GETFL);

        if (fl >= 0)
            fcntl(l->fd[s], F_SETFL, fl & ~O_NONBLOCK);
        setsockopt(l->fd[s], SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
        setsockopt(l->fd[s], SOL_SOCKET, SO_SNDTIMEO, &t, sizeof(t));
    }
}

void fab_sock_push(fab_sock_link_t *l)
{
    int on = 1, off = 0;

    for (int s = 0; s < l->n; s++) {
        setsockopt(l->fd[s], IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
        setsockopt(l->fd[s], IPPROTO_TCP, TCP_NODELAY, &off, sizeof(off));
    }
}

void fab_sock_counters(const fab_sock_link_t *l, double *c)
{
    double retrans = 0;
    int b = 0;
    socklen_t bl = sizeof(b);

    for (int s = 0; s < l->n; s++) {
        struct tcp_info ti;
        socklen_t tl = sizeof(ti);

        memset(&ti, 0, sizeof(ti));
        if (l->fd[s] >= 0 && getsockopt(l->fd[s], IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0)
            retrans += ti.tcpi_total_retrans;
    }
    if (l->sender)
        c[0] = retrans;
    if (l->fd[0] >= 0 &&
        getsockopt(l->fd[0], SOL_SOCKET, l->sender ? SO_SNDBUF : SO_RCVBUF, &b, &bl) == 0)
        c[l->sender ? 1 : 2] = b;
}
