/* SPDX-License-Identifier: BSD-3-Clause */
/* How much does the way a ping-pong waits for its answer cost? Two processes (fork) share one
 * TCP connection over 127.0.0.1 with TCP_NODELAY and ping-pong SIZE bytes, in blocks of ITERS
 * round trips; each round runs one block per waiting style, the order rotated every round:
 *   block      blocking socket, recv() until the message is in (sockperf ping-pong's way)
 *   eagain     non-blocking socket, recv(); on EAGAIN poll(2), then recv() again
 *              (fabricbench's fab_sock_read in src/sock/sock.c: three calls per message)
 *   pollfirst  non-blocking socket, poll(2) first, then recv() (two calls per message)
 *   timeo      blocking socket with SO_RCVTIMEO of 1 s (a blocking wait that a watchdog can
 *              still bound: what tcp_rr could do instead of eagain)
 * Both ends wait the same way in a block. Printed: per round and style the one-way p50 and
 * p99.9 (round trip / 2 of every iteration), then per style the median over the rounds of its
 * p50, and of its p50 against block's p50 of the same round (ratio and difference). Not a
 * test: docs/PERFORMANCE.md, "Issue 18".
 *
 * build: cc -O2 -o sock_wait bench/sock_wait.c
 * usage: sock_wait [ROUNDS [ITERS [SIZE]]]       (defaults 7 20000 64) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { STYLES = 4, MAX_SIZE = 1 << 20 };
static const char *style_name[STYLES] = {"block", "eagain", "pollfirst", "timeo"};

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* blocking (styles 0 and 3) or not; SO_RCVTIMEO 1 s in style 3, none otherwise */
static void set_style(int fd, int style)
{
    int fl = fcntl(fd, F_GETFL);
    bool blocking = style == 0 || style == 3;
    struct timeval tv = {style == 3 ? 1 : 0, 0};

    if (fl < 0 || fcntl(fd, F_SETFL, blocking ? fl & ~O_NONBLOCK : fl | O_NONBLOCK) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
        die("fcntl, SO_RCVTIMEO");
}

static void wait_in(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};

    if (poll(&p, 1, 10000) <= 0)
        die("poll (no answer within 10 s)");
}

/* len bytes from fd, waiting in the given style */
static void read_msg(int fd, char *buf, size_t len, int style)
{
    size_t done = 0;

    while (done < len) {
        ssize_t r;

        if (style == 2)
            wait_in(fd);
        r = recv(fd, buf + done, len - done, 0);
        if (r > 0)
            done += (size_t)r;
        else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && style != 0)
            wait_in(fd); /* style 3: the 1 s SO_RCVTIMEO passed (a watchdog would look) */
        else if (r < 0 && errno == EINTR)
            continue;
        else
            die(r == 0 ? "recv: closed" : "recv");
    }
}

static void write_msg(int fd, const char *buf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t r = send(fd, buf + done, len - done, MSG_NOSIGNAL);

        if (r > 0)
            done += (size_t)r;
        else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};

            poll(&p, 1, 10000);
        } else if (r < 0 && errno != EINTR)
            die("send");
    }
}

static double now_us(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* sorts v (in place) */
static double median_sort(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* of at most 64 values, v unchanged */
static double median(const double *v, int n)
{
    double c[64];

    memcpy(c, v, sizeof(double) * (size_t)n);
    return median_sort(c, n);
}

/* The echoing end: a block's header (style, iterations) in blocking mode, then the block. */
static void echo(int fd, size_t size, char *buf)
{
    int head[2];

    for (;;) {
        set_style(fd, 0);
        read_msg(fd, (char *)head, sizeof(head), 0);
        if (head[1] <= 0)
            exit(0);
        set_style(fd, head[0]);
        for (int i = 0; i < head[1]; i++) {
            read_msg(fd, buf, size, head[0]);
            write_msg(fd, buf, size);
        }
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7, iters = argc > 2 ? atoi(argv[2]) : 20000;
    size_t size = argc > 3 ? (size_t)atol(argv[3]) : 64;
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t al = sizeof(a);
    int one = 1, ls, fd, warm = iters / 10 + 1;
    char *buf = calloc(1, MAX_SIZE);
    double *t = calloc((size_t)iters, sizeof(double)), p50[STYLES][64], p999[STYLES][64];
    pid_t child;

    if (rounds < 1 || rounds > 64 || iters < 1000 || size < 1 || size > MAX_SIZE || !buf || !t) {
        fprintf(stderr, "usage: sock_wait [ROUNDS (1-64) [ITERS (>= 1000) [SIZE (1-1M)]]]\n");
        return 2;
    }
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ls = socket(AF_INET, SOCK_STREAM, 0);
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) < 0)
        die("listen");
    child = fork();
    if (child < 0)
        die("fork");
    if (child == 0) {
        fd = accept(ls, NULL, NULL);
        if (fd < 0)
            die("accept");
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        echo(fd, size, buf);
    }
    close(ls);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
        die("connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    printf("# %d rounds x %d styles, %d round trips of %zu B each (+%d warm-up), one-way us\n",
           rounds, STYLES, iters, size, warm);
    printf("# round style p50_us p999_us\n");
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < STYLES; k++) {
            int s = (k + r) % STYLES; /* every style first in some round */
            int head[2] = {s, warm + iters};

            set_style(fd, 0);
            write_msg(fd, (char *)head, sizeof(head));
            set_style(fd, s);
            for (int i = 0; i < warm + iters; i++) {
                double t0 = now_us();

                write_msg(fd, buf, size);
                read_msg(fd, buf, size, s);
                if (i >= warm)
                    t[i - warm] = (now_us() - t0) / 2;
            }
            p50[s][r] = median_sort(t, iters);
            p999[s][r] = t[(int)(0.999 * iters)];
            printf("%d %s %.3f %.3f\n", r + 1, style_name[s], p50[s][r], p999[s][r]);
            fflush(stdout);
        }
    {
        int head[2] = {0, 0};

        set_style(fd, 0);
        write_msg(fd, (char *)head, sizeof(head));
        waitpid(child, NULL, 0);
    }
    /* Per round, each style against block of the same round (next to it in time: the machine's
     * speed moves between rounds), then the medians over the rounds. */
    for (int s = 0; s < STYLES; s++) {
        double ratio[64], diff[64], m, q;

        for (int r = 0; r < rounds; r++) {
            ratio[r] = p50[s][r] / p50[0][r];
            diff[r] = p50[s][r] - p50[0][r];
        }
        m = median(ratio, rounds);
        q = median(diff, rounds);
        printf("# %-9s p50 median %.3f us; against block in the same round: x %.3f, %+.3f us "
               "(medians over the rounds); p99.9 median %.3f us\n",
               style_name[s], median(p50[s], rounds), m, q, median(p999[s], rounds));
    }
    return 0;
}
