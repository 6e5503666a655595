/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric counters (net/fabcount.h): the names per driver, the recorded mlx5 InfiniBand and
 * RoCE fixtures (tests/golden/sysfs), the growth between two readings, the receive softirq
 * spread, and hostile files (a link, a bad number) left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "net/fabcount.h"

static const fab_fc_port_t *port(const fab_fc_mark_t *m, const char *name)
{
    for (int i = 0; i < m->nports; i++)
        if (strcmp(m->port[i].name, name) == 0)
            return &m->port[i];
    return NULL;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[320];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void names(void)
{
    CHECK(fab_fc_ib_kind("port_xmit_wait") == FAB_FC_XMIT_WAIT);
    CHECK(fab_fc_ib_kind("symbol_error") == FAB_FC_ERRORS);
    CHECK(fab_fc_ib_kind("np_cnp_sent") == FAB_FC_CNP && fab_fc_ib_kind("rp_cnp_handled") == 1);
    CHECK(fab_fc_ib_kind("out_of_sequence") == FAB_FC_SEQ);
    CHECK(fab_fc_ib_kind("port_rcv_data") == -1 && fab_fc_ib_kind("rp_cnp_ignored") == -1);
    CHECK(fab_fc_eth_kind("mlx5_core", "rx_prio3_pause") == FAB_FC_PAUSE);
    CHECK(fab_fc_eth_kind("mlx5_core", "rx_prio3_pause_duration") == -1);
    CHECK(fab_fc_eth_kind("mlx5_core", "rx_pause_ctrl_phy") == FAB_FC_PAUSE);
    CHECK(fab_fc_eth_kind("mlx5_core", "rx_ecn_mark") == FAB_FC_ECN);
    CHECK(fab_fc_eth_kind("ice", "link_xoff_rx") == FAB_FC_PAUSE);
    CHECK(fab_fc_eth_kind("i40e", "port.rx_crc_errors") == FAB_FC_ERRORS);
    CHECK(fab_fc_eth_kind("bnxt_en", "rx_pfc_ena_frames_pri5") == FAB_FC_PAUSE);
    CHECK(fab_fc_eth_kind("ixgbe", "lxoff_tx_count") == FAB_FC_PAUSE);
    /* a driver without a table: the shared names only */
    CHECK(fab_fc_eth_kind("virtio_net", "rx_pause_frames") == FAB_FC_PAUSE);
    CHECK(fab_fc_eth_kind("veth", "peer_ifindex") == -1);
    CHECK(fab_fc_eth_kind(NULL, "rx_crc_errors") == FAB_FC_ERRORS);
    /* a driver's table is its own: ice's name means nothing to mlx5 */
    CHECK(fab_fc_eth_kind("mlx5_core", "link_xoff_rx") == -1);
}

static void fixtures(const char *golden, fab_fc_mark_t *ib, fab_fc_mark_t *roce)
{
    char root[512];
    const fab_fc_port_t *p;

    snprintf(root, sizeof(root), "%s/sysfs/cx6-ib", golden);
    fab_fc_read(root, ib);
    CHECK(ib->nports == 1 && ib->bad == 0);
    p = port(ib, "mlx5_0/1");
    CHECK(p != NULL);
    if (p) {
        CHECK(p->v[FAB_FC_XMIT_WAIT] == 1934567);
        CHECK(p->v[FAB_FC_ERRORS] == 13); /* link_downed 1, rcv_errors 3, discards 2, symbol 7 */
        CHECK(p->v[FAB_FC_SEQ] == 0);
        CHECK(isnan(p->v[FAB_FC_CNP]) && isnan(p->v[FAB_FC_PAUSE])); /* InfiniBand: none */
    }
    CHECK(ib->ncpu == 4 && ib->netrx[0] == 9000000 && ib->netrx[3] == 30000);
    snprintf(root, sizeof(root), "%s/sysfs/cx6dx-roce", golden);
    fab_fc_read(root, roce);
    CHECK(roce->nports == 2 && roce->bad == 0);
    p = port(roce, "mlx5_0/1");
    CHECK(p && p->v[FAB_FC_CNP] == 5021 + 4870 && p->v[FAB_FC_ECN] == 5110 &&
          p->v[FAB_FC_SEQ] == 1 + 17 + 2);
    p = port(roce, "ens1f0");
    CHECK(p && p->v[FAB_FC_PAUSE] == 1200 + 40 + 9000 + 25 && p->v[FAB_FC_ECN] == 311 &&
          p->v[FAB_FC_ERRORS] == 3);
}

static void growth(const fab_fc_mark_t *roce)
{
    static fab_fc_mark_t a, b;
    static fab_fc_acc_t acc;
    double share;

    a = *roce;
    b = *roce;
    b.port[0].v[FAB_FC_ERRORS] += 5; /* mlx5_0/1 */
    b.port[1].v[FAB_FC_PAUSE] += 300;
    b.port[1].v[FAB_FC_ERRORS] += 1;
    b.port[1].v[FAB_FC_ECN] -= 11; /* a counter that went back (cleared): no growth */
    b.netrx[0] += 900;
    b.netrx[2] += 100;
    fab_fc_acc_init(&acc);
    CHECK(isnan(acc.d[FAB_FC_PAUSE]));
    fab_fc_add(&acc, &a, &b);
    CHECK(acc.d[FAB_FC_PAUSE] == 300 && acc.d[FAB_FC_ERRORS] == 6 && acc.d[FAB_FC_ECN] == 0);
    CHECK(acc.d[FAB_FC_CNP] == 0 && acc.d[FAB_FC_XMIT_WAIT] == 0);
    CHECK(strcmp(acc.worst, "mlx5_0/1") == 0 && acc.worst_err == 5);
    /* a second window adds; a port only in one reading counts nothing */
    b.nports = 1;
    fab_fc_add(&acc, &a, &b);
    CHECK(acc.d[FAB_FC_ERRORS] == 11 && acc.d[FAB_FC_PAUSE] == 300);
    CHECK(fab_fc_netrx_top(&acc, 1000, &share) == 0); /* 1800 of 2000 softirqs on CPU 0 */
    CHECK_NEAR(share, 90.0, 1e-9);
    CHECK(fab_fc_netrx_top(&acc, 5000, &share) == -1 && isnan(share)); /* too few to judge */
}

static void hostile(void)
{
    char tmp[] = "/tmp/fab_fcXXXXXX", dir[256], path[320];
    static fab_fc_mark_t m;
    static const char *const sub[] = {"sys",
                                      "sys/class",
                                      "sys/class/infiniband",
                                      "sys/class/infiniband/d0",
                                      "sys/class/infiniband/d0/ports",
                                      "sys/class/infiniband/d0/ports/1",
                                      "sys/class/infiniband/d0/ports/1/counters"};

    if (!mkdtemp(tmp)) {
        CHECK(!"mkdtemp");
        return;
    }
    for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
        snprintf(dir, sizeof(dir), "%s/%s", tmp, sub[i]);
        mkdir(dir, 0700);
    }
    put(dir, "port_xmit_wait", "42\n");
    put(dir, "port_rcv_errors", "12abc\n"); /* not a number */
    put(dir, "link_downed", "-3\n");        /* not a count */
    put(tmp, "secret", "1000\n");           /* a link's target */
    snprintf(path, sizeof(path), "%s/symbol_error", dir);
    CHECK(symlink("../../../../../../secret", path) == 0); /* never followed */
    fab_fc_read(tmp, &m);
    CHECK(m.nports == 1 && m.bad == 2);
    CHECK(m.nports == 1 && m.port[0].v[FAB_FC_XMIT_WAIT] == 42);
    CHECK(m.nports == 1 && isnan(m.port[0].v[FAB_FC_ERRORS]));
    CHECK(m.ncpu == 0); /* no proc/softirqs */
    fab_fc_parse_softirqs("NET_RX: 1 2 x 4\n", &m);
    CHECK(m.ncpu == 2);
    {
        fab_fc_port_t p = {"x", {NAN, NAN, NAN, NAN, NAN, NAN}};

        CHECK(
            !fab_fc_parse_ethtool("mlx5_core", "NIC statistics:\n rx_pause_ctrl_phy: many\n", &p));
        CHECK(isnan(p.v[FAB_FC_PAUSE]));
    }
    unlink(path);
    snprintf(path, sizeof(path), "%s/secret", tmp);
    unlink(path);
    /* the rest of the tree stays in /tmp (a few empty directories) */
}

int main(int argc, char **argv)
{
    static fab_fc_mark_t ib, roce;

    names();
    fixtures(argc > 1 ? argv[1] : "tests/golden", &ib, &roce);
    growth(&roce);
    hostile();
    return fab_test_report("fabcount");
}
