/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP kernels' accounting and pacing (sock/udp_acct.h): pure functions of what they
 * are given. */
#include <math.h>
#include <string.h>

#include "sock/udp_acct.h"

#define FAB_UDP_WINDOW (1ull << FAB_UDP_SEEN_LOG)
#define FAB_UDP_MASK   (FAB_UDP_WINDOW - 1)

void fab_udp_acct_init(fab_udp_acct_t *a)
{
    memset(a, 0, sizeof(*a));
}

static bool fab_udp_seen(const fab_udp_acct_t *a, uint64_t seq)
{
    uint64_t i = seq & FAB_UDP_MASK;

    return (a->seen[i / 64] >> (i % 64)) & 1u;
}

static void fab_udp_mark(fab_udp_acct_t *a, uint64_t seq, bool on)
{
    uint64_t i = seq & FAB_UDP_MASK;

    if (on)
        a->seen[i / 64] |= 1ull << (i % 64);
    else
        a->seen[i / 64] &= ~(1ull << (i % 64));
}

/* RFC 3550, 6.4.1: J += (|D(i-1, i)| - J) / 16, D the difference of two transit times. */
void fab_udp_jitter_add(fab_udp_jitter_t *j, uint64_t sent_ns, uint64_t arrival_ns)
{
    int64_t transit = (int64_t)(arrival_ns - sent_ns);

    if (j->have) {
        double d = fabs((double)(transit - j->transit_ns));

        j->j_ns += (d - j->j_ns) / 16.0;
    }
    j->transit_ns = transit;
    j->have = true;
}

fab_udp_seq_t fab_udp_acct_seq(fab_udp_acct_t *a, uint64_t seq)
{
    if (seq >= a->next) {
        /* the numbers skipped since the highest seen are not seen (their bits may hold an
         * older turn of the window) */
        if (seq - a->next >= FAB_UDP_WINDOW)
            memset(a->seen, 0, sizeof(a->seen));
        else
            for (uint64_t s = a->next; s < seq; s++)
                fab_udp_mark(a, s, false);
        a->next = seq + 1;
        fab_udp_mark(a, seq, true);
        a->received++;
        return FAB_UDP_NEW;
    }
    if (a->next - seq <= FAB_UDP_WINDOW && fab_udp_seen(a, seq)) {
        a->dup++;
        return FAB_UDP_DUP;
    }
    a->ooo++; /* late: after a higher number (older than the window: taken as unique) */
    if (a->next - seq <= FAB_UDP_WINDOW)
        fab_udp_mark(a, seq, true); /* beyond the window its bit is a newer number's now */
    a->received++;
    return FAB_UDP_LATE;
}

fab_udp_seq_t fab_udp_acct_add(fab_udp_acct_t *a, uint64_t seq, uint64_t sent_ns,
                               uint64_t arrival_ns)
{
    fab_udp_seq_t r = fab_udp_acct_seq(a, seq);

    if (r != FAB_UDP_DUP)
        fab_udp_jitter_add(&a->jitter, sent_ns, arrival_ns);
    return r;
}

uint64_t fab_udp_acct_gap(const fab_udp_acct_t *a)
{
    return a->next > a->received ? a->next - a->received : 0;
}

void fab_udp_pace_init(fab_udp_pace_t *p, double rate_gbps, size_t bytes)
{
    memset(p, 0, sizeof(*p));
    /* rate in Gb/s is bits per ns */
    p->gap_ns = rate_gbps > 0 ? (double)bytes * 8.0 / rate_gbps : 0.0;
    p->burst_ns =
        FAB_UDP_BURST * p->gap_ns > FAB_UDP_BURST_NS ? FAB_UDP_BURST * p->gap_ns : FAB_UDP_BURST_NS;
}

uint64_t fab_udp_pace_wait(fab_udp_pace_t *p, uint64_t now_ns)
{
    double now = (double)now_ns;

    if (p->gap_ns <= 0)
        return 0;
    if (!p->started) {
        p->next_ns = now;
        p->started = true;
    }
    if (now < p->next_ns)
        return (uint64_t)ceil(p->next_ns - now);
    if (now - p->next_ns > p->burst_ns) { /* behind by more than a burst: start again */
        p->next_ns = now;
        p->restarts++;
    }
    p->next_ns += p->gap_ns;
    return 0;
}

void fab_udp_pace_reset(fab_udp_pace_t *p)
{
    p->started = false;
}

static void fab_udp_put64(char *b, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        b[i] = (char)(v & 0xff);
}

static uint64_t fab_udp_get64(const char *b)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = (v << 8) | (unsigned char)b[i];
    return v;
}

void fab_udp_put_header(char *buf, uint64_t seq, uint64_t sent_ns)
{
    fab_udp_put64(buf, seq);
    fab_udp_put64(buf + 8, sent_ns);
}

void fab_udp_get_header(const char *buf, uint64_t *seq, uint64_t *sent_ns)
{
    *seq = fab_udp_get64(buf);
    *sent_ns = fab_udp_get64(buf + 8);
}
