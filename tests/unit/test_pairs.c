/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels' schedules and the localisation of slow pairs, on synthetic matrices
 * whose faults are known. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "pairs/locate.h"
#include "pairs/schedule.h"

/* Every unordered pair meets exactly once, no member twice in a round, partner symmetric;
 * shift: every member sends to one and receives from one in every round, and every ordered
 * pair meets exactly once. */
static void test_schedule(fab_sched_t s, int n)
{
    int rounds = fab_sched_rounds(s, n), *met = calloc((size_t)n * n, sizeof(int));
    int *p = malloc(sizeof(int) * (size_t)n), ok = 1, byes = 0;

    CHECK(rounds == (s == FAB_SCHED_SERIAL  ? n * (n - 1) / 2
                     : s == FAB_SCHED_SHIFT ? n - 1
                     : n % 2                ? n
                                            : n - 1));
    for (int r = 0; r < rounds; r++) {
        int active = 0, *recv = calloc((size_t)n, sizeof(int));

        fab_sched_round(s, n, r, p);
        for (int i = 0; s == FAB_SCHED_SHIFT && i < n; i++) {
            ok &= p[i] >= 0 && p[i] < n && p[i] != i;
            if (p[i] >= 0 && p[i] < n) {
                recv[p[i]]++;
                met[i * n + p[i]]++;
            }
        }
        for (int i = 0; s == FAB_SCHED_SHIFT && i < n; i++)
            ok &= recv[i] == 1;
        free(recv);
        for (int i = 0; s != FAB_SCHED_SHIFT && i < n; i++) {
            if (p[i] < 0) {
                byes++;
                continue;
            }
            active++;
            ok &= p[i] >= 0 && p[i] < n && p[i] != i && p[p[i]] == i;
            if (p[i] > i)
                met[i * n + p[i]]++;
        }
        if (s == FAB_SCHED_ROUNDS)
            ok &= active == (n % 2 ? n - 1 : n); /* n/2 pairs at a time, one bye if odd */
        else if (s == FAB_SCHED_SERIAL)
            ok &= active == 2;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (s == FAB_SCHED_SHIFT)
                ok &= met[i * n + j] == (i != j);
            else if (j > i)
                ok &= met[i * n + j] == 1;
    if (s == FAB_SCHED_ROUNDS)
        ok &= byes == (n % 2 ? n : 0); /* each member of an odd n sits out once */
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  schedule %s, n = %d\n", fab_sched_name(s), n);
    free(met);
    free(p);
}

/* A fabric of n nodes in groups of g (node i on switch i / g), bandwidth 1000 MB/s and
 * latency 2 us with noise of +-amp (deterministic), then the faults. */
typedef struct fab_fab {
    int n;
    double *bw, *lat;
    int *group;
} fab_fab_t;

static fab_fab_t fab_make(int n, int g, double amp, unsigned seed)
{
    fab_fab_t f = {n, malloc(sizeof(double) * n * n), malloc(sizeof(double) * n * n),
                   malloc(sizeof(int) * n)};

    srand(seed);
    for (int i = 0; i < n; i++) {
        f.group[i] = g > 0 ? i / g : -1;
        for (int j = 0; j < n; j++) {
            double u = (double)rand() / RAND_MAX * 2 - 1, v = (double)rand() / RAND_MAX * 2 - 1;

            f.bw[i * n + j] = i == j ? NAN : 1000.0 * (1 + amp * u);
            f.lat[i * n + j] = i == j ? NAN : 2.0 * (1 + amp * v);
        }
    }
    return f;
}

static void fab_free(fab_fab_t *f)
{
    free(f->bw);
    free(f->lat);
    free(f->group);
}

static void fab_slow_pair(fab_fab_t *f, int s, int d, double share)
{
    f->bw[s * f->n + d] *= share;
}

static fab_locate_t fab_judge(const fab_fab_t *f, int groups)
{
    fab_locate_in_t in = {f->n, f->bw, f->lat, groups ? f->group : NULL, 0, 0, 0, 0, 0, 0};
    fab_locate_t l;

    CHECK(fab_locate(&in, &l) == 0);
    return l;
}

static void fab_print(const fab_locate_t *l)
{
    for (int i = 0; i < l->nsuspects; i++) {
        char buf[256];

        fab_suspect_text(&l->suspects[i], NULL, NULL, buf, sizeof(buf));
        fprintf(stderr, "  suspect: %s\n", buf);
    }
}

static int fab_only(const fab_locate_t *l, fab_suspect_kind_t kind, int a, int b)
{
    int ok = l->nsuspects == 1 && l->suspects[0].kind == kind && l->suspects[0].a == a &&
             l->suspects[0].b == b;

    if (!ok)
        fab_print(l);
    return ok;
}

/* A bad link between leaf `leaf` and spine k on a fat tree of leaves of h nodes with
 * destination routing (node d reached over spine d % h): ways 1 the uplink (leaf to spine),
 * 2 the downlink, 3 both; each pair crossing it at half speed. */
static void fab_bad_leaf_link(fab_fab_t *f, int h, int leaf, int k, int ways)
{
    for (int s = 0; s < f->n; s++)
        for (int d = 0; d < f->n; d++) {
            bool off = s / h != d / h, up = s / h == leaf && d % h == k,
                 down = d / h == leaf && d % h == k;

            if (off && (((ways & 1) && up) || ((ways & 2) && down)))
                fab_slow_pair(f, s, d, 0.5);
        }
}

static void fab_leaf_link(int leaves, int h, int leaf, int k)
{
    fab_fab_t f = fab_make(leaves * h, h, 0.05, 37);
    int x = leaf * h + k, off = (leaves - 1) * h;

    fab_bad_leaf_link(&f, h, leaf, k, 3);
    fab_locate_t l = fab_judge(&f, 1);
    CHECK(fab_only(&l, FAB_SUSPECT_GROUP, leaf, -1));
    /* the path into x (off slow pairs) and the rest of the leaf's to the nodes k serves */
    CHECK(l.nsuspects == 1 && l.suspects[0].slow == off + (h - 1) * (leaves - 1) &&
          l.suspects[0].pairs == h * off);
    for (int i = 0; i < leaves * h; i++)
        CHECK(l.node_suspect[i] == (i / h == leaf ? 0 : -1));
    CHECK(l.node_suspect[x] == 0);
    fab_locate_free(&l);
    fab_free(&f);
}

int main(void)
{
    for (int n = 2; n <= 33; n++) {
        test_schedule(FAB_SCHED_ROUNDS, n);
        test_schedule(FAB_SCHED_SERIAL, n);
        test_schedule(FAB_SCHED_SHIFT, n);
    }
    test_schedule(FAB_SCHED_ROUNDS, 256);
    CHECK(fab_sched_parse("rounds") == FAB_SCHED_ROUNDS);
    CHECK(fab_sched_parse("serial") == FAB_SCHED_SERIAL);
    CHECK(fab_sched_parse("shift") == FAB_SCHED_SHIFT);
    CHECK(fab_sched_parse("x") == -1);

    /* A healthy fabric with +-5% noise: nothing slow, nobody named (several seeds, sizes). */
    for (unsigned seed = 1; seed <= 20; seed++) {
        fab_fab_t f = fab_make(4 + (int)seed * 3, 4, 0.05, seed);
        fab_locate_t l = fab_judge(&f, 1);

        CHECK(l.nslow == 0 && l.nsuspects == 0);
        CHECK_NEAR(l.bw_median, 1000.0, 60.0);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* One bad node (its link at 40%, both directions): that node, nothing else. */
    {
        fab_fab_t f = fab_make(16, 4, 0.05, 7);

        for (int j = 0; j < 16; j++)
            if (j != 5) {
                fab_slow_pair(&f, 5, j, 0.4);
                fab_slow_pair(&f, j, 5, 0.4);
            }
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(fab_only(&l, FAB_SUSPECT_NODE, 5, -1));
        CHECK(l.node_suspect[5] == 0 && l.node_suspect[4] == -1);
        CHECK(l.nslow == 15);
        fab_locate_free(&l);
        /* The same without switch groups known: still the node. */
        l = fab_judge(&f, 0);
        CHECK(fab_only(&l, FAB_SUSPECT_NODE, 5, -1));
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* A bad node by latency only (3x): that node. */
    {
        fab_fab_t f = fab_make(8, 4, 0.05, 9);

        for (int j = 0; j < 8; j++)
            if (j != 2)
                f.lat[2 * 8 + j] = f.lat[j * 8 + 2] = 6.0;
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(fab_only(&l, FAB_SUSPECT_NODE, 2, -1));
        CHECK(l.suspects[0].slow == 7);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* One bad link (one direction at 50%): that pair, no node. */
    {
        fab_fab_t f = fab_make(16, 4, 0.05, 11);

        fab_slow_pair(&f, 3, 12, 0.5);
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(fab_only(&l, FAB_SUSPECT_PAIR, 3, 12));
        CHECK(l.slow[3 * 16 + 12] == FAB_SLOW_BW && l.slow[12 * 16 + 3] == FAB_SLOW_BW);
        CHECK(l.node_suspect[3] == -1 && l.node_suspect[12] == -1);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* A slow downlink into node 9 (from every node off its switch, destination routing): the
     * path into 9, not the node, since its switch neighbours reach it at full speed. */
    {
        fab_fab_t f = fab_make(16, 4, 0.05, 13);

        for (int s = 0; s < 16; s++)
            if (s / 4 != 9 / 4)
                fab_slow_pair(&f, s, 9, 0.5);
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(fab_only(&l, FAB_SUSPECT_PATH, 9, -1));
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* A bad switch group: the uplink of switch 2 (nodes 8-11) towards the destinations routed
     * over spine 1 of 2 (odd nodes): pairs spread over the group, none inside it. */
    {
        fab_fab_t f = fab_make(16, 4, 0.05, 17);

        for (int s = 8; s < 12; s++)
            for (int d = 1; d < 16; d += 2)
                if (d / 4 != 2)
                    fab_slow_pair(&f, s, d, 0.5);
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(fab_only(&l, FAB_SUSPECT_GROUP, 2, -1));
        CHECK(l.suspects[0].slow == 24 && l.suspects[0].pairs == 48);
        CHECK(l.node_suspect[8] == 0 && l.node_suspect[11] == 0 && l.node_suspect[0] == -1);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* One bad leaf-spine link, both ways, on a fat tree of 8 leaves x 8 with destination
     * routing (spine k serves the nodes i % 8 == k): its downlink slows every off-leaf sender
     * to node 21 (leaf 2, k = 5), its uplink leaf 2's pairs to the nodes k serves elsewhere.
     * One suspect: the group (the path into 21 folded into it), no node. */
    fab_leaf_link(8, 8, 2, 5);
    /* The same at 256 nodes (16 leaves x 16), with a bad host link (node 37) and a bad
     * downlink (spine 7 into leaf 12: the path into node 199) at once: each named once. */
    {
        int n = 256;
        fab_fab_t f = fab_make(n, 16, 0.05, 41);

        for (int j = 0; j < n; j++)
            if (j != 37) {
                fab_slow_pair(&f, 37, j, 0.25);
                fab_slow_pair(&f, j, 37, 0.25);
            }
        fab_bad_leaf_link(&f, 16, 9, 3, 3);
        fab_bad_leaf_link(&f, 16, 12, 7, 2);
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(l.nsuspects == 3);
        CHECK(l.nsuspects > 0 && l.suspects[0].kind == FAB_SUSPECT_NODE && l.suspects[0].a == 37);
        CHECK(l.nsuspects > 1 && l.suspects[1].kind == FAB_SUSPECT_PATH && l.suspects[1].a == 199);
        CHECK(l.nsuspects > 2 && l.suspects[2].kind == FAB_SUSPECT_GROUP && l.suspects[2].a == 9);
        CHECK(l.node_suspect[37] == 0 && l.node_suspect[199] == 1 && l.node_suspect[147] == 2);
        CHECK(l.node_suspect[192] == -1 && l.node_suspect[0] == -1);
        if (l.nsuspects != 3)
            fab_print(&l);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Three faults at once on 64 nodes: a node, a pair, a group; each named, nothing else. */
    {
        int n = 64;
        fab_fab_t f = fab_make(n, 8, 0.05, 19);

        for (int j = 0; j < n; j++)
            if (j != 40) {
                fab_slow_pair(&f, 40, j, 0.3);
                fab_slow_pair(&f, j, 40, 0.3);
            }
        fab_slow_pair(&f, 1, 60, 0.6);
        for (int s = 16; s < 24; s++)
            for (int d = 0; d < n; d += 4)
                if (d / 8 != 2 && d != 40)
                    fab_slow_pair(&f, s, d, 0.5);
        fab_locate_t l = fab_judge(&f, 1);
        CHECK(l.nsuspects == 3);
        CHECK(l.nsuspects > 0 && l.suspects[0].kind == FAB_SUSPECT_NODE && l.suspects[0].a == 40);
        CHECK(l.nsuspects > 1 && l.suspects[1].kind == FAB_SUSPECT_GROUP && l.suspects[1].a == 2);
        CHECK(l.nsuspects > 2 && l.suspects[2].kind == FAB_SUSPECT_PAIR && l.suspects[2].a == 1 &&
              l.suspects[2].b == 60);
        if (l.nsuspects != 3)
            fab_print(&l);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Against the line rate: every pair at 1000 MB/s on a 1250 MB/s line (80%) is slow, and
     * with everything slow no one node explains it: the fabric as a whole is named. */
    {
        fab_fab_t f = fab_make(4, 0, 0.0, 23);
        fab_locate_in_t in = {4, f.bw, NULL, NULL, 0, 0, 1250.0, 0, 0, 0};
        fab_locate_t l;

        CHECK(fab_locate(&in, &l) == 0);
        CHECK(l.nslow == 6 && l.slow[1] == FAB_SLOW_LINE);
        CHECK(fab_only(&l, FAB_SUSPECT_FABRIC, -1, -1) && l.suspects[0].slow == 6 &&
              l.suspects[0].pairs == 6);
        for (int i = 0; i < 4; i++)
            CHECK(l.node_suspect[i] == -1);
        fab_locate_free(&l);
        in.line_MBps = 1100.0; /* 91%: healthy */
        CHECK(fab_locate(&in, &l) == 0);
        CHECK(l.nslow == 0);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* The whole fabric below the line rate (8 nodes at 80% of it) and one node at half the
     * median pair besides: the fabric, and that node, and nothing else. Below half the pairs
     * under the line rate, no fabric suspect: one node's 7 pairs of 28 name the node. */
    {
        fab_fab_t f = fab_make(8, 0, 0.02, 41);
        fab_locate_in_t in = {8, f.bw, NULL, NULL, 0, 0, 1250.0, 0, 0, 0};
        fab_locate_t l;

        for (int j = 0; j < 8; j++)
            if (j != 3) {
                fab_slow_pair(&f, 3, j, 0.5);
                fab_slow_pair(&f, j, 3, 0.5);
            }
        CHECK(fab_locate(&in, &l) == 0);
        CHECK(l.nsuspects == 2 && l.suspects[0].kind == FAB_SUSPECT_FABRIC &&
              l.suspects[1].kind == FAB_SUSPECT_NODE && l.suspects[1].a == 3);
        if (l.nsuspects != 2)
            fab_print(&l);
        fab_locate_free(&l);
        in.line_MBps = 1050.0; /* the others at 95%: only node 3's pairs below it */
        CHECK(fab_locate(&in, &l) == 0);
        CHECK(fab_only(&l, FAB_SUSPECT_NODE, 3, -1));
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Four nodes, one at a quarter, the others at 95% of the line rate: half the directions
     * below it, not more: the node alone, not the fabric. */
    {
        fab_fab_t f = fab_make(4, 0, 0.02, 47);
        fab_locate_in_t in = {4, f.bw, NULL, NULL, 0, 0, 1050.0, 0, 0, 0};
        fab_locate_t l;

        for (int j = 0; j < 4; j++)
            if (j != 2) {
                fab_slow_pair(&f, 2, j, 0.25);
                fab_slow_pair(&f, j, 2, 0.25);
            }
        CHECK(fab_locate(&in, &l) == 0);
        CHECK(fab_only(&l, FAB_SUSPECT_NODE, 2, -1));
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Two switches of two nodes, the traffic from the first to the second at a quarter (its
     * uplink): both its nodes' paths out, so the switch group, and no node. */
    {
        fab_fab_t f = fab_make(4, 2, 0.02, 43);
        fab_locate_t l;

        for (int s = 0; s < 2; s++)
            for (int d = 2; d < 4; d++)
                fab_slow_pair(&f, s, d, 0.25);
        l = fab_judge(&f, 1);
        CHECK(fab_only(&l, FAB_SUSPECT_GROUP, 0, -1) && l.suspects[0].slow == 4);
        CHECK(l.node_suspect[0] == 0 && l.node_suspect[1] == 0 && l.node_suspect[2] == -1 &&
              l.node_suspect[3] == -1);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Two members: one pair, nothing typical to compare it with; its directions at 1000 and
     * 500 MB/s are not slow, unless the line rate says so. */
    {
        fab_fab_t f = fab_make(2, 0, 0.0, 31);
        fab_locate_in_t in = {2, f.bw, f.lat, NULL, 0, 0, 0, 0, 0, 0};
        fab_locate_t l;

        fab_slow_pair(&f, 1, 0, 0.5);
        CHECK(fab_locate(&in, &l) == 0);
        CHECK(l.npairs == 1 && l.nslow == 0 && l.nsuspects == 0);
        fab_locate_free(&l);
        in.line_MBps = 1000.0;
        CHECK(fab_locate(&in, &l) == 0);
        CHECK(l.nslow == 1 && l.slow[1] == FAB_SLOW_LINE && l.nsuspects == 1 &&
              l.suspects[0].kind == FAB_SUSPECT_PAIR);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Which slow pairs stand out (the retest rule): 4 nodes at 1000 MB/s, node 2's link at a
     * quarter. No line rate: node 2's three pairs. A line rate the whole fabric misses (a
     * veth's 10 Gb/s): the fabric is named for all six, and only node 2's stand out. A line
     * rate the fabric meets: node 2's pairs, slow by both rules. One pair below the line rate
     * alone, the fabric not named: it stands out. */
    {
        fab_fab_t f = fab_make(4, 0, 0.0, 41);
        fab_locate_in_t in = {4, f.bw, NULL, NULL, 0, 0, 0, 0, 0, 0};
        double lines[3] = {0, 1250.0, 1000.0};

        for (int j = 0; j < 4; j++)
            if (j != 2) {
                fab_slow_pair(&f, 2, j, 0.25);
                fab_slow_pair(&f, j, 2, 0.25);
            }
        for (int t = 0; t < 3; t++) {
            fab_locate_t l;
            int out = 0, node2 = 0;

            in.line_MBps = lines[t];
            CHECK(fab_locate(&in, &l) == 0);
            for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++)
                    if (fab_locate_stands_out(&l, 4, i, j)) {
                        out++;
                        node2 += i == 2 || j == 2;
                    }
            CHECK(out == 3 && node2 == 3);
            CHECK(l.nslow == (t == 1 ? 6 : 3));
            CHECK((t == 1) == (l.nsuspects == 2 && l.suspects[0].kind == FAB_SUSPECT_FABRIC));
            CHECK(!fab_locate_stands_out(&l, 4, 0, 0)); /* the diagonal: not measured */
            fab_locate_free(&l);
        }
        fab_free(&f);
        f = fab_make(4, 0, 0.0, 43);
        fab_slow_pair(&f, 0, 1, 0.85); /* 850 MB/s: within 90% of no median, below the line's */
        in.bw = f.bw;
        in.bw_frac = 0.8;
        in.line_MBps = 1000.0;
        {
            fab_locate_t l;

            CHECK(fab_locate(&in, &l) == 0);
            CHECK(l.nslow == 1 && l.slow[1] == FAB_SLOW_LINE && fab_locate_stands_out(&l, 4, 0, 1));
            fab_locate_free(&l);
        }
        fab_free(&f);
    }
    /* The retest list: 8 nodes, node 5 slow with all 7 peers (each pair a little slower than
     * the one before: 0.30 with node 0, ... 0.36 with node 7), named on its own, and the pair
     * 1-2 at 0.5. With 2 per member: node 5's two slowest pairs (0 and 1), then 1-2, the
     * slowest first; 8 stood out. With 4 per member: four of node 5's and 1-2. A latency
     * matrix: the highest latency first. */
    {
        fab_fab_t f = fab_make(8, 0, 0.0, 47);
        fab_locate_in_t in = {8, f.bw, NULL, NULL, 0, 0, 0, 0, 0, 0};
        fab_locate_t l;
        int list[2 * 28], stood = -1, k = 0;

        for (int j = 0; j < 8; j++)
            if (j != 5) {
                fab_slow_pair(&f, 5, j, 0.30 + 0.01 * j);
                fab_slow_pair(&f, j, 5, 0.30 + 0.01 * j);
            }
        fab_slow_pair(&f, 1, 2, 0.5);
        CHECK(fab_locate(&in, &l) == 0 && l.nslow == 8);
        k = fab_locate_retests(&in, &l, 2, list, &stood);
        CHECK(k == 3 && stood == 8);
        CHECK(list[0] == 0 && list[1] == 5 && list[2] == 1 && list[3] == 5 && list[4] == 1 &&
              list[5] == 2);
        k = fab_locate_retests(&in, &l, 4, list, &stood);
        CHECK(k == 5 && stood == 8 && list[6] == 3 && list[7] == 5 && list[8] == 1 && list[9] == 2);
        fab_locate_free(&l);
        for (int j = 0; j < 8; j++)
            f.lat[3 * 8 + j] = f.lat[j * 8 + 3] = j == 3 ? NAN : 2.0 * (3 + 0.1 * j);
        in.bw = NULL;
        in.lat = f.lat;
        CHECK(fab_locate(&in, &l) == 0 && l.nslow == 7);
        k = fab_locate_retests(&in, &l, 3, list, &stood);
        CHECK(k == 3 && stood == 7 && list[0] == 3 && list[1] == 7 && list[2] == 3 &&
              list[3] == 6 && list[4] == 3 && list[5] == 5);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* ... but the pairs between two switch groups (3 switches of 4 nodes, every pair between
     * the first two at half the rate: 4 slow pairs a node, no node named on its own) are all
     * retested, contention among them being what a retest finds, up to per_member x n. */
    {
        fab_fab_t f = fab_make(12, 4, 0.0, 53);
        fab_locate_in_t in = {12, f.bw, NULL, f.group, 0, 0, 0, 0, 0, 0};
        fab_locate_t l;
        int list[2 * 66], stood = -1;

        for (int i = 0; i < 4; i++)
            for (int j = 4; j < 8; j++) {
                fab_slow_pair(&f, i, j, 0.5);
                fab_slow_pair(&f, j, i, 0.5);
            }
        CHECK(fab_locate(&in, &l) == 0 && l.nslow == 16 && l.nsuspects >= 1);
        for (int s = 0; s < l.nsuspects; s++)
            CHECK(l.suspects[s].kind != FAB_SUSPECT_NODE);
        CHECK(fab_locate_retests(&in, &l, 2, list, &stood) == 16 && stood == 16);
        CHECK(fab_locate_retests(&in, &l, 1, list, &stood) == 12 && stood == 16);
        fab_locate_free(&l);
        fab_free(&f);
    }
    /* Unmeasured pairs (NaN) are neither slow nor counted. */
    {
        fab_fab_t f = fab_make(6, 0, 0.0, 29);

        f.bw[1 * 6 + 2] = f.bw[2 * 6 + 1] = NAN;
        f.lat[1 * 6 + 2] = f.lat[2 * 6 + 1] = NAN;
        fab_locate_t l = fab_judge(&f, 0);
        CHECK(l.npairs == 14 && l.nslow == 0 && l.slow[1 * 6 + 2] == 0xff);
        fab_locate_free(&l);
        fab_free(&f);
    }
    return fab_test_report("pairs");
}
