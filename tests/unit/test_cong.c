/* SPDX-License-Identifier: BSD-3-Clause */
/* The congestion kernels' pure functions (src/cong/cong_split.c): the split into canaries and
 * congestors (spread over the nodes, the fraction, a host list, one node by rank), a window's
 * statistics, the CIF from unrounded values, the phases' order; and the WORDS option type
 * their --congestor axis uses (core/opt.c). */
#include <math.h>
#include <stdbool.h>

#include "check.h"
#include "cong/cong.h"
#include "core/opt.h"

static const char *const fab_hosts[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"};

/* nnodes nodes of per ranks each, rank r on node r / per. */
static void fab_nodes(int *node, int nnodes, int per)
{
    for (int r = 0; r < nnodes * per; r++)
        node[r] = r / per;
}

static void test_split_fraction(void)
{
    int node[40];
    bool can[40];
    fab_cong_split_t s;

    /* 10 nodes x 2 ranks, 0.8: 2 canary nodes, the first and the middle one */
    fab_nodes(node, 10, 2);
    CHECK(fab_cong_split(20, node, 10, fab_hosts, 0.8, NULL, can, &s) == FAB_OK);
    CHECK(s.ncanary == 4 && s.ncongestor == 16 && s.canary_nodes == 2);
    CHECK(can[0] && can[1] && can[10] && can[11] && !can[2] && !can[19]);
    CHECK(s.warn == 0); /* whole nodes, the fraction exact */
    /* 0.5 of 10: 5 canary nodes spread 0, 2, 4, 6, 8 */
    CHECK(fab_cong_split(20, node, 10, fab_hosts, 0.5, NULL, can, &s) == FAB_OK);
    for (int n = 0; n < 10; n++)
        CHECK(can[2 * n] == (n % 2 == 0) && can[2 * n + 1] == can[2 * n]);
    /* 3 nodes at 0.8: 1 canary node, 2 congest (0.67, off by more than 0.1: few nodes) */
    fab_nodes(node, 3, 2);
    CHECK(fab_cong_split(6, node, 3, fab_hosts, 0.8, NULL, can, &s) == FAB_OK);
    CHECK(s.canary_nodes == 1 && can[0] && can[1] && !can[2] && (s.warn & FAB_CONG_W_FEW_NODES));
    CHECK(!(s.warn & FAB_CONG_W_SHARED));
    /* one rank per node, 2 nodes: 1 canary rank only: refused */
    fab_nodes(node, 2, 1);
    CHECK(fab_cong_split(2, node, 2, fab_hosts, 0.5, NULL, can, &s) == FAB_ERR_CONFIG);
    CHECK(strstr(s.why, "1 canary") != NULL);
}

static void test_split_hosts(void)
{
    int node[8];
    bool can[8];
    fab_cong_split_t s;

    fab_nodes(node, 4, 2);
    CHECK(fab_cong_split(8, node, 4, fab_hosts, 0.8, "n1,n3", can, &s) == FAB_OK);
    CHECK(!can[0] && !can[1] && can[2] && can[3] && !can[4] && can[6] && can[7]);
    CHECK(s.ncanary == 4 && s.canary_nodes == 2);
    CHECK(fab_cong_split(8, node, 4, fab_hosts, 0.8, "n1,n7", can, &s) == FAB_ERR_CONFIG);
    CHECK(strstr(s.why, "'n7'") != NULL);
    /* a prefix of a name is not the name */
    CHECK(fab_cong_split(8, node, 4, fab_hosts, 0.8, "n", can, &s) == FAB_ERR_CONFIG);
}

static void test_split_one_node(void)
{
    int node[6] = {0};
    bool can[6];
    fab_cong_split_t s;

    /* 6 ranks at 0.8: 6 - 5 = 1, raised to 2 canaries: ranks 0 and 3 */
    CHECK(fab_cong_split(6, node, 1, fab_hosts, 0.8, NULL, can, &s) == FAB_OK);
    CHECK(can[0] && can[3] && !can[1] && !can[2] && !can[4] && !can[5]);
    CHECK((s.warn & FAB_CONG_W_FEW_NODES) && (s.warn & FAB_CONG_W_SHARED));
    /* 4 ranks at 0.5: canaries 0 and 2 */
    CHECK(fab_cong_split(4, node, 1, fab_hosts, 0.5, NULL, can, &s) == FAB_OK);
    CHECK(can[0] && can[2] && !can[1] && !can[3]);
    /* 2 ranks: no congestor left */
    CHECK(fab_cong_split(2, node, 1, fab_hosts, 0.8, NULL, can, &s) == FAB_ERR_CONFIG);
}

static void test_stats_cif(void)
{
    double v[1000];
    fab_cong_stats_t st;

    for (int i = 0; i < 1000; i++)
        v[i] = 1000 - i; /* 1..1000, unsorted */
    fab_cong_stats(v, 1000, &st);
    CHECK_NEAR(st.mean, 500.5, 1e-12);
    CHECK(st.p50 == 500 && st.p99 == 990 && st.p999 == 999);
    fab_cong_stats(v, 0, &st);
    CHECK(isnan(st.mean) && isnan(st.p99));
    /* congested / alone, unrounded; a rate's alone / congested is the same number */
    CHECK(fab_cong_cif(2.0, 3.0) == 1.5);
    CHECK(fab_cong_cif(1.234567, 1.234567 * 7.654321) == 1.234567 * 7.654321 / 1.234567);
    CHECK(fab_cong_cif(8.0 / 2.0, 8.0 / 1.0) == (8.0 / 1.0) / (8.0 / 2.0));
    CHECK(isnan(fab_cong_cif(0, 1)) && isnan(fab_cong_cif(1, NAN)) && isnan(fab_cong_cif(-1, 1)));
}

static void test_phases(void)
{
    /* alone first, then congested, alternating: drift shows in both */
    for (int i = 0; i < 10; i++)
        CHECK(fab_cong_phase(i) == i % 2);
}

static void test_words(void)
{
    fab_list_t l;
    fab_opt_t d = {"congestor", 0,      FAB_OPT_WORDS, 0, 0,     0,   FAB_CONG_PATTERNS,
                   NULL,        "none", "x",           0, false, NULL};
    char err[256], buf[128];

    CHECK(fab_opt_apply(&d, &l, "incast,none,alltoall", err, sizeof(err)) == FAB_OK);
    CHECK(l.n == 3 && l.v[0] == FAB_CONG_INCAST && l.v[1] == FAB_CONG_NONE && l.v[2] == 0);
    fab_opt_format(&d, &l, buf, sizeof(buf));
    CHECK(strcmp(buf, "incast,none,alltoall") == 0);
    CHECK(fab_opt_apply(&d, &l, "incast,bogus", err, sizeof(err)) == FAB_ERR_USAGE);
    CHECK(strstr(err, "'bogus'") != NULL);
    CHECK(fab_opt_apply(&d, &l, "incast:none", err, sizeof(err)) == FAB_ERR_USAGE);
    CHECK(fab_opt_apply(&d, &l, "bw,bw", err, sizeof(err)) == FAB_ERR_USAGE);
    fab_opt_default(&d, &l);
    CHECK(l.n == 1 && l.v[0] == FAB_CONG_NONE);
}

int main(void)
{
    test_split_fraction();
    test_split_hosts();
    test_split_one_node();
    test_stats_cif();
    test_phases();
    test_words();
    return fab_test_report("unit.cong");
}
