/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP kernels' accounting and pacing (sock/udp_acct.h) on sequences and clocks with
 * values worked out by hand: loss by sequence numbers with a gap, reordering, duplicates
 * (within the window and beyond it), the RFC 3550 jitter, the pacing schedule (on time,
 * early, a late sender catching up within a burst, a restart beyond it, unpaced), and the
 * datagram header's byte order. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sock/udp_acct.h"

static void feed(fab_udp_acct_t *a, const uint64_t *seq, int n)
{
    for (int i = 0; i < n; i++)
        fab_udp_acct_add(a, seq[i], 1000 * seq[i], 1000 * seq[i] + 50000);
}

static void check_sequences(void)
{
    fab_udp_acct_t a;

    /* in order: nothing lost, nothing late */
    {
        const uint64_t s[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

        fab_udp_acct_init(&a);
        feed(&a, s, 10);
        CHECK(a.received == 10 && a.ooo == 0 && a.dup == 0 && a.next == 10);
        CHECK(fab_udp_acct_gap(&a) == 0);
    }
    /* a gap: 3 and 4 never come */
    {
        const uint64_t s[] = {0, 1, 2, 5, 6};

        fab_udp_acct_init(&a);
        feed(&a, s, 5);
        CHECK(a.received == 5 && a.next == 7 && fab_udp_acct_gap(&a) == 2 && a.ooo == 0);
    }
    /* reordering: 2 after 3 is late, not lost */
    {
        const uint64_t s[] = {0, 1, 3, 2, 4};

        fab_udp_acct_init(&a);
        feed(&a, s, 5);
        CHECK(a.received == 5 && a.ooo == 1 && a.dup == 0 && fab_udp_acct_gap(&a) == 0);
    }
    /* a late one that fills a gap, then a duplicate of it and of the latest */
    {
        const uint64_t s[] = {0, 2, 3, 1, 1, 3, 4};

        fab_udp_acct_init(&a);
        feed(&a, s, 7);
        CHECK(a.received == 5 && a.ooo == 1 && a.dup == 2 && a.next == 5);
        CHECK(fab_udp_acct_gap(&a) == 0);
    }
    /* the first datagrams lost: the gap counts them */
    {
        const uint64_t s[] = {3, 4};

        fab_udp_acct_init(&a);
        feed(&a, s, 2);
        CHECK(a.received == 2 && a.next == 5 && fab_udp_acct_gap(&a) == 3);
    }
    /* a jump beyond the duplicate window clears it: an old number is then taken as late and
     * unique (it cannot be told apart), a number inside the new window as a duplicate */
    {
        uint64_t far = 10 + (1u << FAB_UDP_SEEN_LOG) + 5;

        fab_udp_acct_init(&a);
        fab_udp_acct_add(&a, 10, 0, 0);
        fab_udp_acct_add(&a, far, 0, 0);
        CHECK(a.received == 2 && a.next == far + 1 && a.dup == 0);
        fab_udp_acct_add(&a, 10, 0, 0); /* older than the window */
        CHECK(a.received == 3 && a.ooo == 1 && a.dup == 0);
        fab_udp_acct_add(&a, far, 0, 0);
        CHECK(a.dup == 1 && a.received == 3);
        /* the skipped numbers near the top are not marked seen */
        fab_udp_acct_add(&a, far - 1, 0, 0);
        CHECK(a.received == 4 && a.ooo == 2 && a.dup == 1);
        fab_udp_acct_add(&a, far - 1, 0, 0);
        CHECK(a.dup == 2);
    }
    /* the window wraps: numbers 2^16 apart do not collide while both are recent */
    {
        uint64_t w = 1u << FAB_UDP_SEEN_LOG;

        fab_udp_acct_init(&a);
        for (uint64_t s = 0; s < 2 * w + 3; s++)
            fab_udp_acct_add(&a, s, 0, 0);
        CHECK(a.received == 2 * w + 3 && a.dup == 0 && a.ooo == 0 && fab_udp_acct_gap(&a) == 0);
        fab_udp_acct_add(&a, w + 7, 0, 0); /* within the window: a duplicate */
        CHECK(a.dup == 1);
    }
    /* the sequence part alone (validation datagrams): no jitter; what each number was */
    fab_udp_acct_init(&a);
    CHECK(fab_udp_acct_seq(&a, 0) == FAB_UDP_NEW && fab_udp_acct_seq(&a, 2) == FAB_UDP_NEW &&
          fab_udp_acct_seq(&a, 2) == FAB_UDP_DUP);
    CHECK(fab_udp_acct_seq(&a, 1) == FAB_UDP_LATE && fab_udp_acct_seq(&a, 1) == FAB_UDP_DUP);
    CHECK(a.received == 3 && a.dup == 2 && a.ooo == 1);
    fab_udp_acct_init(&a);
    CHECK(fab_udp_acct_seq(&a, 0) == FAB_UDP_NEW && fab_udp_acct_seq(&a, 2) == FAB_UDP_NEW &&
          fab_udp_acct_seq(&a, 2) == FAB_UDP_DUP);
    CHECK(a.received == 2 && a.dup == 1 && a.jitter.j_ns == 0 && !a.jitter.have);
}

static void check_jitter(void)
{
    fab_udp_acct_t a;

    /* sent every 10 us; transit 100, 102, 99, 103 us: |D| = 2, 3, 4 us;
     * J = 2/16 = 0.125; 0.125 + (3 - 0.125)/16 = 0.3046875; + (4 - 0.3046875)/16 */
    fab_udp_acct_init(&a);
    fab_udp_acct_add(&a, 0, 0, 100000);
    CHECK(a.jitter.j_ns == 0);
    fab_udp_acct_add(&a, 1, 10000, 112000);
    CHECK_NEAR(a.jitter.j_ns, 125.0, 1e-9);
    fab_udp_acct_add(&a, 2, 20000, 119000);
    CHECK_NEAR(a.jitter.j_ns, 304.6875, 1e-9);
    fab_udp_acct_add(&a, 3, 30000, 133000);
    CHECK_NEAR(a.jitter.j_ns, 304.6875 + (4000 - 304.6875) / 16, 1e-9);
    /* a duplicate does not move it; a late datagram does, in arrival order (transit 95 us:
     * |D| = 8 us from the previous arrival's 103) */
    {
        double j = a.jitter.j_ns;

        fab_udp_acct_add(&a, 3, 30000, 140000);
        CHECK(a.jitter.j_ns == j);
        fab_udp_acct_add(&a, 5, 50000, 153000); /* transit 103: D = 0 */
        CHECK_NEAR(a.jitter.j_ns, j + (0 - j) / 16, 1e-9);
        j = a.jitter.j_ns;
        fab_udp_acct_add(&a, 4, 40000, 135000); /* transit 95: D = 8 us */
        CHECK_NEAR(a.jitter.j_ns, j + (8000 - j) / 16, 1e-9);
        CHECK(a.ooo == 1);
    }
    /* any clock offset between the two ends cancels */
    {
        fab_udp_acct_t b;

        fab_udp_acct_init(&b);
        fab_udp_acct_add(&b, 0, 0, 100000 + 777000000000ull);
        fab_udp_acct_add(&b, 1, 10000, 112000 + 777000000000ull);
        CHECK_NEAR(b.jitter.j_ns, 125.0, 1e-9);
    }
}

static void check_pacing(void)
{
    fab_udp_pace_t p;

    /* 1 Gb/s of 125-byte datagrams: one every 1000 ns, bursts of 32 */
    fab_udp_pace_init(&p, 1.0, 125);
    CHECK_NEAR(p.gap_ns, 1000.0, 1e-9);
    CHECK(fab_udp_pace_wait(&p, 5000) == 0); /* the first goes at once, the schedule starts */
    CHECK(fab_udp_pace_wait(&p, 5500) == 500);
    CHECK(fab_udp_pace_wait(&p, 6000) == 0);
    CHECK(fab_udp_pace_wait(&p, 6999) == 1);
    /* late by 600 ns: it goes, and the next is still due on the schedule (catch up) */
    CHECK(fab_udp_pace_wait(&p, 7600) == 0);
    CHECK(fab_udp_pace_wait(&p, 7601) == 399);
    /* 10 datagrams due while the sender slept: they go back to back, then it waits */
    for (int i = 0; i < 10; i++)
        CHECK(fab_udp_pace_wait(&p, 17000) == 0);
    CHECK(fab_udp_pace_wait(&p, 17000) == 1000 && p.restarts == 0);
    /* behind by up to the burst (the more of 32 gaps and 10 ms): caught up; beyond it the
     * schedule starts again from now */
    CHECK(fab_udp_pace_wait(&p, 9000000) == 0 && p.restarts == 0);
    CHECK(fab_udp_pace_wait(&p, 30000000) == 0 && p.restarts == 1);
    CHECK(fab_udp_pace_wait(&p, 30000000) == 1000);
    /* reset: the next goes at once, whenever that is */
    fab_udp_pace_reset(&p);
    CHECK(fab_udp_pace_wait(&p, 30000100) == 0 && fab_udp_pace_wait(&p, 30000100) == 1000);
    /* An iteration (sock/udp.c) resets the schedule at its start, sends its n datagrams and
     * waits for the next one's due time: it lasts at least n gaps even when it starts late (the
     * last iteration's end told to the receiver slowly, the harness between blocks), so no
     * block offers more than the rate. Here the schedule was left 5 ms behind (within the
     * burst, which would have been caught up in this iteration, before the block's timer):
     * 16 datagrams at 1 Gb/s of 125 bytes take 16 us from the iteration's start. */
    fab_udp_pace_init(&p, 1.0, 125);
    CHECK(fab_udp_pace_wait(&p, 100000) == 0); /* the earlier iteration's last datagram */
    {
        uint64_t begin = 5100000, now = begin;
        int sent = 0;

        fab_udp_pace_reset(&p);
        while (sent < 16) {
            uint64_t w = fab_udp_pace_wait(&p, now);

            if (w == 0)
                sent++;
            now += w > 0 ? w : 50; /* a send takes 50 ns */
        }
        CHECK(p.next_ns >= (double)begin + 16 * p.gap_ns);
    }
    /* at 10 Mb/s of 1460-byte datagrams (1168 us apart) the burst is 32 gaps, 37.4 ms */
    fab_udp_pace_init(&p, 0.01, 1460);
    CHECK_NEAR(p.burst_ns, 32 * 1168000.0, 1e-3);
    /* 2.5 Gb/s of 1460-byte datagrams: 4672 ns */
    fab_udp_pace_init(&p, 2.5, 1460);
    CHECK_NEAR(p.gap_ns, 4672.0, 1e-9);
    /* unpaced: never waits */
    fab_udp_pace_init(&p, 0, 64);
    CHECK(fab_udp_pace_wait(&p, 1) == 0 && fab_udp_pace_wait(&p, 1) == 0 && p.gap_ns == 0);
}

static void check_header(void)
{
    char buf[FAB_UDP_HEADER];
    uint64_t seq, t;
    const unsigned char want[FAB_UDP_HEADER] = {0, 0, 0, 0, 0, 0, 1, 2, 0x80, 0, 0, 0, 0, 0, 0, 9};

    fab_udp_put_header(buf, 0x0102, 0x8000000000000009ull);
    CHECK(memcmp(buf, want, sizeof(want)) == 0); /* big-endian on the wire */
    fab_udp_get_header(buf, &seq, &t);
    CHECK(seq == 0x0102 && t == 0x8000000000000009ull);
}

int main(void)
{
    check_sequences();
    check_jitter();
    check_pacing();
    check_header();
    return fab_test_report("test_udp");
}
