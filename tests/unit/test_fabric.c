/* SPDX-License-Identifier: BSD-3-Clause */
/* The inventory: line-rate parsing, classification, the sysfs scan of the fixture trees
 * (argv[1]: tests/golden) and of small trees written here for the cases fixtures do not cover
 * (Ethernet speeds, MTUs, GID tables, errors). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/status.h"
#include "net/fabric.h"
#include "net/inventory.h"
#include "net/sysfs.h"
#include "net/transport.h"

static const char *golden;

/* ---------------------------------------------------------------- line rates */

typedef struct rate_case {
    const char *rate;
    int width;
    const char *speed;
    double signal, data;
    const char *encoding;
} rate_case_t;

static void check_rate(const rate_case_t *c)
{
    int width = -1;
    char speed[16], enc[32];
    double sig = -1, data = -1;
    bool ok = fab_rate_parse(c->rate, &width, speed, sizeof(speed), &sig, &data, enc, sizeof(enc));

    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "  '%s' did not parse\n", c->rate);
        return;
    }
    CHECK(width == c->width);
    CHECK(strcmp(speed, c->speed) == 0);
    CHECK_NEAR(sig, c->signal, 1e-9);
    CHECK_NEAR(data, c->data, 1e-9);
    CHECK(strcmp(enc, c->encoding) == 0);
    if (width != c->width || strcmp(speed, c->speed) || strcmp(enc, c->encoding))
        fprintf(stderr, "  '%s': width %d speed '%s' encoding '%s'\n", c->rate, width, speed, enc);
}

static bool rate_fails(const char *rate)
{
    int width = -1;
    char speed[16] = "x", enc[32] = "x";
    double sig = -1, data = -1;
    bool ok = fab_rate_parse(rate, &width, speed, sizeof(speed), &sig, &data, enc, sizeof(enc));

    if (ok)
        fprintf(stderr, "  '%s' parsed, wanted a failure\n", rate ? rate : "(null)");
    /* On failure every output says unknown. */
    return !ok && width == 0 && speed[0] == '\0' && sig == 0 && data == 0 && enc[0] == '\0';
}

static void test_rates(void)
{
    static const rate_case_t cases[] = {
        /* the kernel's strings: "%d%s Gb/sec (%dX%s)" */
        {"2.5 Gb/sec (1X SDR)", 1, "SDR", 2.5, 2.0, "8b/10b"},
        {"10 Gb/sec (4X SDR)", 4, "SDR", 10.0, 8.0, "8b/10b"},
        {"30 Gb/sec (12X SDR)", 12, "SDR", 30.0, 24.0, "8b/10b"},
        {"20 Gb/sec (4X DDR)", 4, "DDR", 20.0, 16.0, "8b/10b"},
        {"40 Gb/sec (4X QDR)", 4, "QDR", 40.0, 32.0, "8b/10b"},
        {"120 Gb/sec (12X QDR)", 12, "QDR", 120.0, 96.0, "8b/10b"},
        {"40 Gb/sec (4X FDR10)", 4, "FDR10", 41.25, 40.0, "64b/66b"},
        {"14 Gb/sec (1X FDR)", 1, "FDR", 14.0625, 14.0625 * 64 / 66, "64b/66b"},
        {"56 Gb/sec (4X FDR)", 4, "FDR", 56.25, 56.25 * 64 / 66, "64b/66b"},
        {"25 Gb/sec (1X EDR)", 1, "EDR", 25.78125, 25.0, "64b/66b"},
        {"100 Gb/sec (4X EDR)", 4, "EDR", 103.125, 100.0, "64b/66b"},
        {"100 Gb/sec (2X HDR)", 2, "HDR", 106.25, 100.0, "64b/66b+FEC"},
        {"200 Gb/sec (4X HDR)", 4, "HDR", 212.5, 200.0, "64b/66b+FEC"},
        {"400 Gb/sec (8X HDR)", 8, "HDR", 425.0, 400.0, "64b/66b+FEC"},
        {"400 Gb/sec (4X NDR)", 4, "NDR", 425.0, 400.0, "64b/66b+FEC"},
        {"800 Gb/sec (8X NDR)", 8, "NDR", 850.0, 800.0, "64b/66b+FEC"},
        {"200 Gb/sec (1X XDR)", 1, "XDR", 212.5, 200.0, "64b/66b+FEC"},
        {"800 Gb/sec (4X XDR)", 4, "XDR", 850.0, 800.0, "64b/66b+FEC"},
        /* no speed name: the number is all there is */
        {"25 Gb/sec", 0, "", 25.0, 25.0, ""},
        {"30 Gb/sec (12X)", 12, "", 30.0, 30.0, ""},
        {" 10 Gb/s (4X SDR) ", 4, "SDR", 10.0, 8.0, "8b/10b"},
        /* a speed name from the future: kept, rates as given */
        {"1600 Gb/sec (4X GDR)", 4, "GDR", 1600.0, 1600.0, ""},
    };
    int width;
    char speed[16], enc[32];
    double sig, data;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_rate(&cases[i]);

    /* Published data rates: 4X QDR 32, 4X FDR ~54.5, 4X EDR 100, 4X HDR 200, 4X NDR 400. */
    CHECK(fab_rate_parse("56 Gb/sec (4X FDR)", &width, speed, sizeof(speed), &sig, &data, enc,
                         sizeof(enc)));
    CHECK_NEAR(data, 54.545, 0.001);

    CHECK(rate_fails(NULL));
    CHECK(rate_fails(""));
    CHECK(rate_fails("fast"));
    CHECK(rate_fails("Gb/sec (4X EDR)"));
    CHECK(rate_fails("100"));
    CHECK(rate_fails("100 Mb/sec"));
    CHECK(rate_fails("-10 Gb/sec (4X SDR)"));
    CHECK(rate_fails("0 Gb/sec"));
    CHECK(rate_fails("10 Gb/sec (3X SDR)"));
    CHECK(rate_fails("10 Gb/sec (16X SDR)"));
    CHECK(rate_fails("10 Gb/sec (4 SDR)"));
    CHECK(rate_fails("10 Gb/sec (4X SDR"));
    CHECK(rate_fails("10 Gb/sec (4X SDR) and more"));
    CHECK(rate_fails("10 Gb/sec (4X S-DR)"));
    CHECK(rate_fails("10 Gb/sec (4X SUPERCALIFRAGILISTIC)"));
    CHECK(rate_fails("nan Gb/sec"));
}

static void test_class_names(void)
{
    CHECK(strcmp(fab_class_name(FAB_CLASS_IB), "ib") == 0);
    CHECK(strcmp(fab_class_name(FAB_CLASS_ROCE), "roce") == 0);
    CHECK(strcmp(fab_class_name(FAB_CLASS_ERDMA), "erdma") == 0);
    CHECK(strcmp(fab_class_name(FAB_CLASS_IWARP), "iwarp") == 0);
    CHECK(strcmp(fab_class_name(FAB_CLASS_UNKNOWN), "unknown") == 0);
    CHECK(strcmp(fab_class_name((fab_class_t)99), "unknown") == 0);
}

/* ---------------------------------------------------------------- the fixture trees */

static fab_status_t scan_fixture(const char *name, fab_inventory_t *inv)
{
    char root[1024], err[1024] = "";
    fab_status_t st;

    snprintf(root, sizeof(root), "%s/sysfs/%s", golden, name);
    st = fab_inventory_scan(root, inv, err, sizeof(err));
    if (st != FAB_OK)
        fprintf(stderr, "  scanning %s: %s\n", root, err);
    return st;
}

static void test_fixture_roce(fab_inventory_t *inv)
{
    const fab_rdma_dev_t *d = &inv->rdma[0];
    const fab_port_t *p = &d->ports[0];
    const fab_netif_t *n;

    CHECK(scan_fixture("cx6dx-roce", inv) == FAB_OK);
    CHECK(strstr(inv->sysroot, "sysfs/cx6dx-roce") != NULL);
    CHECK(strcmp(inv->source, "sysfs") == 0);
    CHECK(inv->nrdma == 1);
    CHECK(strcmp(d->name, "mlx5_0") == 0);
    CHECK(strcmp(d->driver, "mlx5_core") == 0);
    CHECK(strcmp(d->node_type, "CA") == 0);
    CHECK(strcmp(d->fw_ver, "22.39.1002") == 0);
    CHECK(d->numa_node == 1);
    CHECK(d->nports == 1);
    CHECK(p->num == 1);
    CHECK(strcmp(p->state, "ACTIVE") == 0);
    CHECK(strcmp(p->phys_state, "LinkUp") == 0);
    CHECK(strcmp(p->link_layer, "Ethernet") == 0);
    CHECK(strcmp(p->rate, "100 Gb/sec (4X EDR)") == 0);
    CHECK(p->width == 4);
    CHECK(strcmp(p->speed, "EDR") == 0);
    CHECK(p->signal_gbps == 0);       /* Ethernet: not an IB signalling rate */
    CHECK_NEAR(p->data_gbps, 100, 0); /* ens1f0's 100000 Mb/s */
    CHECK(p->encoding[0] == '\0');
    CHECK(p->mtu == 4096); /* netdev 9000 less 96 bytes of RoCE headers */
    CHECK(strcmp(p->gid_types, "RoCE v1,RoCE v2") == 0);
    CHECK(p->rocev2_gid_index == 3); /* IPv4-mapped beats link-local 1 */
    CHECK(strcmp(p->netdev, "ens1f0") == 0);
    CHECK(p->cls == FAB_CLASS_ROCE);
    CHECK(inv->nnet == 2);
    n = &inv->net[0];
    CHECK(strcmp(n->name, "ens1f0") == 0);
    CHECK(n->speed_mbps == 100000);
    CHECK(n->mtu == 9000);
    CHECK(n->numa_node == 1);
    CHECK(strcmp(n->operstate, "up") == 0);
    CHECK(!n->loopback);
    CHECK(strcmp(n->rdma_dev, "mlx5_0") == 0);
    n = &inv->net[1];
    CHECK(strcmp(n->name, "lo") == 0);
    CHECK(n->loopback);
    CHECK(n->speed_mbps == -1);
    CHECK(n->numa_node == -1);
    CHECK(n->mtu == 65536);
    CHECK(n->rdma_dev[0] == '\0');
    CHECK(inv->note[0] == '\0');
}

static void test_fixtures(fab_inventory_t *inv)
{
    test_fixture_roce(inv);

    CHECK(scan_fixture("cx6-ib", inv) == FAB_OK);
    CHECK(inv->nrdma == 1 && inv->rdma[0].ports[0].cls == FAB_CLASS_IB);
    CHECK(strcmp(inv->rdma[0].ports[0].gid_types, "IB") == 0);
    CHECK(inv->rdma[0].ports[0].rocev2_gid_index == -1);
    CHECK_NEAR(inv->rdma[0].ports[0].data_gbps, 200, 1e-9);
    CHECK_NEAR(inv->rdma[0].ports[0].signal_gbps, 212.5, 1e-9);
    CHECK(inv->rdma[0].ports[0].mtu == 0); /* no sysfs source for an IB port's MTU */
    CHECK(strcmp(inv->rdma[0].ports[0].netdev, "ib0") == 0);
    CHECK(inv->nnet == 3 && strcmp(inv->net[1].name, "ib0") == 0 &&
          strcmp(inv->net[1].rdma_dev, "mlx5_0") == 0 && inv->net[1].speed_mbps == 200000);
    CHECK(strcmp(inv->net[0].name, "eth0") == 0 && inv->net[0].rdma_dev[0] == '\0');

    CHECK(scan_fixture("erdma", inv) == FAB_OK);
    CHECK(inv->nrdma == 1 && inv->rdma[0].ports[0].cls == FAB_CLASS_ERDMA);
    CHECK(strcmp(inv->rdma[0].driver, "erdma") == 0);
    CHECK(strcmp(inv->rdma[0].node_type, "RNIC") == 0);
    CHECK(inv->rdma[0].numa_node == -1);
    CHECK(inv->rdma[0].ports[0].gid_types[0] == '\0');
    CHECK(inv->rdma[0].ports[0].rocev2_gid_index == -1);
    CHECK(inv->rdma[0].ports[0].data_gbps == 0); /* eth0's speed is unknown */
    CHECK(inv->rdma[0].ports[0].mtu == 1024);
    CHECK(strcmp(inv->rdma[0].ports[0].netdev, "eth0") == 0);
    CHECK(inv->nnet == 2 && inv->net[0].speed_mbps == -1 &&
          strcmp(inv->net[0].rdma_dev, "erdma_0") == 0);
    CHECK(strstr(inv->note, "eth0 (virtual NIC)") != NULL);

    CHECK(scan_fixture("port-down", inv) == FAB_OK);
    CHECK(strcmp(inv->rdma[0].ports[0].state, "DOWN") == 0);
    CHECK(strcmp(inv->rdma[0].ports[0].phys_state, "Disabled") == 0);
    CHECK_NEAR(inv->rdma[0].ports[0].data_gbps, 8, 1e-9);
    CHECK(strcmp(inv->net[0].operstate, "down") == 0 && inv->net[0].speed_mbps == -1);
    CHECK(strstr(inv->note, "DOWN") != NULL && strstr(inv->note, "ib0 (down)") != NULL);

    CHECK(scan_fixture("eth-vm", inv) == FAB_OK);
    CHECK(inv->nrdma == 0 && inv->nnet == 2);
    CHECK(strstr(inv->note, "no RDMA devices") != NULL);
}

/* ---------------------------------------------------------------- trees written here */

static char scratch[256];

static void mkdirs(const char *path)
{
    char buf[1024];

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    }
    mkdir(buf, 0755);
}

/* Write root/rel with content and a newline (parents made as needed). */
static void put(const char *root, const char *rel, const char *content)
{
    char path[1024], dir[1024];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "%s\n", content);
        fclose(f);
    }
}

static void rmtree(const char *path)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;

    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode) && (d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            char child[1024];

            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
            rmtree(child);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* A fresh root under the scratch directory. */
static const char *new_root(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", scratch, name);
    rmtree(buf);
    mkdirs(buf);
    return buf;
}

#define ZERO_GID "0000:0000:0000:0000:0000:0000:0000:0000"
#define LL_GID   "fe80:0000:0000:0000:0e42:a1ff:fe00:0001"

/* One Ethernet RDMA port on netdev eth2 (speed and mtu as given; NULL speed: no file). */
static void write_eth_port(const char *root, const char *dev, const char *node_type,
                           const char *rate, const char *speed, const char *mtu, bool ndevs)
{
    char rel[256];

#define P(sub, val)                                                                                \
    do {                                                                                           \
        snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/%s", dev, sub);                        \
        put(root, rel, val);                                                                       \
    } while (0)
    P("node_type", node_type);
    P("ports/1/state", "4: ACTIVE");
    P("ports/1/phys_state", "5: LinkUp");
    P("ports/1/link_layer", "Ethernet");
    P("ports/1/rate", rate);
    P("ports/1/gids/0", LL_GID);
    P("ports/1/gid_attrs/types/0", "IB/RoCE v1");
    P("ports/1/gids/1", LL_GID);
    P("ports/1/gid_attrs/types/1", "RoCE v2");
    if (ndevs) {
        P("ports/1/gid_attrs/ndevs/0", "eth2");
        P("ports/1/gid_attrs/ndevs/1", "eth2");
    }
#undef P
    put(root, "sys/class/net/eth2/type", "1");
    put(root, "sys/class/net/eth2/operstate", "up");
    put(root, "sys/class/net/eth2/mtu", mtu);
    if (speed)
        put(root, "sys/class/net/eth2/speed", speed);
}

static fab_status_t scan(const char *root, fab_inventory_t *inv)
{
    char err[1024];

    return fab_inventory_scan(root, inv, err, sizeof(err));
}

static void test_ethernet_speeds(fab_inventory_t *inv)
{
    static const struct {
        const char *rate, *speed;
        double data;
    } cases[] = {
        {"25 Gb/sec (1X EDR)", "25000", 25},    {"100 Gb/sec (2X HDR)", "100000", 100},
        {"200 Gb/sec (4X HDR)", "200000", 200}, {"400 Gb/sec (4X NDR)", "400000", 400},
        {"40 Gb/sec (4X FDR10)", "25000", 25}, /* the netdev's speed wins */
        {"10 Gb/sec (1X FDR10)", "10000", 10},
    };
    char root[512];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const fab_port_t *p = &inv->rdma[0].ports[0];

        new_root("eth", root, sizeof(root));
        write_eth_port(root, "mlx5_0", "1: CA", cases[i].rate, cases[i].speed, "1500", true);
        CHECK(scan(root, inv) == FAB_OK);
        CHECK(inv->nrdma == 1 && p->cls == FAB_CLASS_ROCE);
        CHECK_NEAR(p->data_gbps, cases[i].data, 1e-9);
        CHECK(p->signal_gbps == 0 && p->encoding[0] == '\0');
        CHECK(strcmp(p->rate, cases[i].rate) == 0); /* kept verbatim */
        CHECK(strcmp(p->netdev, "eth2") == 0);
        CHECK(inv->nnet == 1 && inv->net[0].speed_mbps == atol(cases[i].speed));
        CHECK(strcmp(inv->net[0].rdma_dev, "mlx5_0") == 0);
        CHECK(p->mtu == 1024); /* 1500 - 96 */
    }

    /* Netdev speed unknown (-1, or no file): the data rate is unknown, and the note says so. */
    new_root("eth", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "2.5 Gb/sec (1X SDR)", "-1", "1500", true);
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->rdma[0].ports[0].data_gbps == 0);
    CHECK(inv->net[0].speed_mbps == -1);
    CHECK(strstr(inv->note, "data rate unknown (eth2 speed unknown)") != NULL);
    new_root("eth", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "2.5 Gb/sec (1X SDR)", NULL, "1500", true);
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->rdma[0].ports[0].data_gbps == 0 && inv->net[0].speed_mbps == -1);
    new_root("eth", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "25 Gb/sec (1X EDR)", "fast", "1500", true);
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->net[0].speed_mbps == -1);

    /* No netdev named anywhere: the number in the rate string (56, not FDR's 54.5). */
    new_root("eth", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "56 Gb/sec (4X FDR)", "40000", "1500", false);
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->rdma[0].ports[0].netdev[0] == '\0');
    CHECK_NEAR(inv->rdma[0].ports[0].data_gbps, 56, 1e-9);
    CHECK(inv->rdma[0].ports[0].mtu == 0);
}

static void test_mtus(fab_inventory_t *inv)
{
    static const struct {
        const char *netdev_mtu;
        int roce, iwarp;
    } cases[] = {
        {"9000", 4096, 4096}, {"4200", 4096, 4096}, {"4150", 2048, 4096}, {"2200", 2048, 2048},
        {"2100", 1024, 2048}, {"1500", 1024, 1024}, {"1400", 1024, 1024}, {"300", 0, 256},
    };
    char root[512];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        new_root("mtu", root, sizeof(root));
        write_eth_port(root, "mlx5_0", "1: CA", "100 Gb/sec (4X EDR)", "100000",
                       cases[i].netdev_mtu, true);
        write_eth_port(root, "iwp0", "4: RNIC", "10 Gb/sec (1X FDR10)", "100000",
                       cases[i].netdev_mtu, true);
        CHECK(scan(root, inv) == FAB_OK && inv->nrdma == 2);
        /* natural order: iwp0 before mlx5_0 */
        CHECK(strcmp(inv->rdma[0].name, "iwp0") == 0);
        CHECK(inv->rdma[0].ports[0].cls == FAB_CLASS_IWARP);
        CHECK(inv->rdma[1].ports[0].cls == FAB_CLASS_ROCE);
        CHECK(inv->rdma[0].ports[0].mtu == cases[i].iwarp);
        CHECK(inv->rdma[1].ports[0].mtu == cases[i].roce);
        if (inv->rdma[1].ports[0].mtu != cases[i].roce)
            fprintf(stderr, "  netdev mtu %s: RoCE mtu %d\n", cases[i].netdev_mtu,
                    inv->rdma[1].ports[0].mtu);
        /* an iWARP device's MAC-based GID ("IB/RoCE v1") is not a RoCE type */
        CHECK(strcmp(inv->rdma[0].ports[0].gid_types, "RoCE v2") == 0);
        CHECK(strcmp(inv->rdma[1].ports[0].gid_types, "RoCE v1,RoCE v2") == 0);
    }
}

static void test_gid_tables(fab_inventory_t *inv)
{
    char root[512];
    const fab_port_t *p = &inv->rdma[0].ports[0];

    /* Entry 1 is empty although a types file says RoCE v2; entry 3 is the first real v2. */
    new_root("gid", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "100 Gb/sec (4X EDR)", "100000", "9000", true);
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gids/1", ZERO_GID);
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gids/2",
        "0000:0000:0000:0000:0000:ffff:0a00:0001");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/2", "IB/RoCE v1");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gids/3",
        "0000:0000:0000:0000:0000:ffff:0a00:0001");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3", "RoCE v2");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gids/10", ZERO_GID);
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/10", "RoCE v2");
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(p->rocev2_gid_index == 3);
    CHECK(strcmp(p->gid_types, "RoCE v1,RoCE v2") == 0);

    /* Only v1 entries: no v2 index. Entry 12 sorts after 2 (numeric order). */
    new_root("gid", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "100 Gb/sec (4X EDR)", "100000", "9000", true);
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/1", "IB/RoCE v1");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gids/12", LL_GID);
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/12", "RoCE v2");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gids/2", LL_GID);
    put(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/2", "RoCE v2");
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(p->rocev2_gid_index == 2);

    /* No gid_attrs/ndevs: the netdev comes from device/net (the one whose dev_port fits). */
    new_root("gid", root, sizeof(root));
    write_eth_port(root, "mlx5_0", "1: CA", "100 Gb/sec (4X EDR)", "100000", "9000", false);
    put(root, "sys/class/infiniband/mlx5_0/device/net/eth2/dev_port", "0");
    put(root, "sys/class/infiniband/mlx5_0/device/net/eth3/dev_port", "1");
    put(root, "sys/class/infiniband/mlx5_0/ports/2/link_layer", "Ethernet");
    put(root, "sys/class/infiniband/mlx5_0/ports/2/state", "1: DOWN");
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->rdma[0].nports == 2);
    CHECK(strcmp(inv->rdma[0].ports[0].netdev, "eth2") == 0);
    CHECK(strcmp(inv->rdma[0].ports[1].netdev, "eth3") == 0);
    CHECK(inv->rdma[0].ports[1].rate[0] == '\0' && inv->rdma[0].ports[1].width == 0);
}

static void test_misc_trees(fab_inventory_t *inv)
{
    char root[512], path[1024], err[1024] = "";
    const fab_port_t *p = &inv->rdma[0].ports[0];

    /* Classification: erdma by driver, unknown link layer, natural order of names. */
    new_root("cls", root, sizeof(root));
    put(root, "sys/class/net/lo/type", "772");
    put(root, "sys/class/infiniband/erdma_10/node_type", "4: RNIC");
    put(root, "sys/class/infiniband/erdma_10/ports/1/link_layer", "Ethernet");
    put(root, "sys/class/infiniband/erdma_2/node_type", "1: CA");
    put(root, "sys/class/infiniband/erdma_2/ports/1/link_layer", "Unknown");
    snprintf(path, sizeof(path), "%s/sys/class/infiniband/erdma_10/device", root);
    mkdirs(path);
    snprintf(path, sizeof(path), "%s/sys/class/infiniband/erdma_10/device/driver", root);
    CHECK(symlink("../../../bus/pci/drivers/erdma", path) == 0);
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->nrdma == 2);
    CHECK(strcmp(inv->rdma[0].name, "erdma_2") == 0 && p->cls == FAB_CLASS_UNKNOWN);
    CHECK(strcmp(inv->rdma[1].name, "erdma_10") == 0);
    CHECK(inv->rdma[1].ports[0].cls == FAB_CLASS_ERDMA);
    CHECK(strcmp(inv->rdma[1].driver, "erdma") == 0);

    /* An IB port waiting for its subnet manager, and one that is down. */
    new_root("state", root, sizeof(root));
    put(root, "sys/class/net/lo/type", "772");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp");
    put(root, "sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand");
    put(root, "sys/class/infiniband/mlx5_0/ports/2/state", "1: DOWN");
    put(root, "sys/class/infiniband/mlx5_0/ports/2/phys_state", "2: Polling");
    put(root, "sys/class/infiniband/mlx5_0/ports/2/link_layer", "InfiniBand");
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(strcmp(inv->rdma[0].ports[0].state, "INIT") == 0);
    CHECK(strcmp(inv->rdma[0].ports[1].phys_state, "Polling") == 0);
    CHECK(strstr(inv->note, "mlx5_0 port 1 is INIT (link up, not ACTIVE)") != NULL);
    CHECK(strstr(inv->note, "mlx5_0 port 2 is DOWN: its rate is not a live link rate") != NULL);

    /* Interfaces: loopback by type, odd files, numa from device/numa_node, sorted. */
    new_root("net", root, sizeof(root));
    put(root, "sys/class/net/lo0/type", "772");
    put(root, "sys/class/net/eth10/speed", "10000");
    put(root, "sys/class/net/eth10/device/numa_node", "3");
    put(root, "sys/class/net/eth9/speed", "-1");
    put(root, "sys/class/net/eth9/mtu", "many");
    put(root, "sys/class/net/eth9/device/numa_node", "-1");
    snprintf(path, sizeof(path), "%s/sys/class/infiniband", root);
    mkdirs(path);
    CHECK(scan(root, inv) == FAB_OK);
    CHECK(inv->nnet == 3);
    CHECK(strcmp(inv->net[0].name, "eth9") == 0 && strcmp(inv->net[1].name, "eth10") == 0);
    CHECK(inv->net[0].speed_mbps == -1 && inv->net[0].mtu == 0 && inv->net[0].numa_node == -1);
    CHECK(inv->net[1].speed_mbps == 10000 && inv->net[1].numa_node == 3);
    CHECK(strcmp(inv->net[1].operstate, "unknown") == 0);
    CHECK(inv->net[2].loopback && !inv->net[0].loopback);
    CHECK(strstr(inv->note, "sys/class/infiniband is empty") != NULL);

    /* Errors: a missing root, a root without sys/class/net. */
    snprintf(root, sizeof(root), "%s/nowhere", scratch);
    CHECK(fab_inventory_scan(root, inv, err, sizeof(err)) == FAB_ERR_IO);
    CHECK(strstr(err, root) != NULL && strstr(err, "--sysfs-root") != NULL);
    CHECK(fab_status_exit_code(FAB_ERR_IO) == FAB_EXIT_ENV);
    new_root("empty", root, sizeof(root));
    CHECK(fab_inventory_scan(root, inv, err, sizeof(err)) == FAB_ERR_IO);
    CHECK(strstr(err, "sys/class/net") != NULL);
}

static void test_command(void)
{
    char root[512], buf[4096];
    FILE *out = tmpfile(), *errf = tmpfile();
    size_t n;

    CHECK(out && errf);
    if (!out || !errf)
        return;
    snprintf(root, sizeof(root), "%s/sysfs/eth-vm", golden);
    CHECK(fab_inventory_command(root, true, out, errf) == FAB_EXIT_OK);
    rewind(out);
    n = fread(buf, 1, sizeof(buf) - 1, out);
    buf[n] = '\0';
    CHECK(strncmp(buf, "{\n  \"sysfs_root\": ", 18) == 0);
    CHECK(strstr(buf, "\"rdma_devices\": [],") != NULL);
    CHECK(strstr(buf, "\"name\": \"lo\"") != NULL);
    rewind(out);
    CHECK(fab_inventory_command(root, false, out, errf) == FAB_EXIT_OK);
    snprintf(root, sizeof(root), "%s/nowhere", scratch);
    CHECK(fab_inventory_command(root, true, out, errf) == FAB_EXIT_ENV);
    rewind(errf);
    n = fread(buf, 1, sizeof(buf) - 1, errf);
    buf[n] = '\0';
    CHECK(strstr(buf, "fabricbench: error: ") != NULL && strstr(buf, root) != NULL);
    fclose(out);
    fclose(errf);
}

/* The device named by --fabric any's probed lanes, for the line% hint. */
static void test_lanes_device(void)
{
    char dev[64];

    CHECK(fab_lanes_device("rc_mlx5/mlx5_0:1[am am_bw#0] ud_mlx5/mlx5_0:1[wireup]", dev,
                           sizeof(dev)) &&
          strcmp(dev, "mlx5_0:1") == 0);
    CHECK(fab_lanes_device("tcp/eth0[rma_bw#0 am am_bw#0 wireup]", dev, sizeof(dev)) &&
          strcmp(dev, "eth0") == 0);
    CHECK(fab_lanes_device("self/memory[am] tcp/fab0[rma_bw#0 am]", dev, sizeof(dev)) &&
          strcmp(dev, "fab0") == 0);
    CHECK(fab_lanes_device("self/memory0[am] cuda_copy/cuda[rma_bw#0] rc_mlx5/mlx5_0:1[am]", dev,
                           sizeof(dev)) &&
          strcmp(dev, "mlx5_0:1") == 0);
    CHECK(fab_lanes_device("sysv/memory[am] (pairs 0-1) | tcp/eth0[am] (pairs 0-2 1-3)", dev,
                           sizeof(dev)) &&
          strcmp(dev, "eth0") == 0);
    CHECK(!fab_lanes_device("sysv/memory[am am_bw#0] cma/memory[rma_bw#0]", dev, sizeof(dev)) &&
          dev[0] == '\0');
    CHECK(!fab_lanes_device("not probed (the run stopped early)", dev, sizeof(dev)));
    CHECK(!fab_lanes_device("", dev, sizeof(dev)));
}

/* The probe's small receive pool: only where UCX's default transports are in use and no pool
 * growth of the user's is set; a user's setting is never overridden. */
static void test_probe_rx_pool(void)
{
    const char *names[] = {"UCX_MM_RX_BUFS_GROW",
                           "UCX_SYSV_RX_BUFS_GROW",
                           "UCX_POSIX_RX_BUFS_GROW",
                           "UCX_XPMEM_RX_BUFS_GROW",
                           "UCX_TLS",
                           "UCX_SHM_DEVICES"};
    const size_t n = sizeof(names) / sizeof(*names);

    for (size_t i = 0; i < n; i++)
        unsetenv(names[i]);
    CHECK(fab_probe_small_rx_pool());
    CHECK(strcmp(FAB_PROBE_RX_GROW, "8") == 0);
    for (size_t i = 0; i < n; i++) {
        setenv(names[i], "", 1); /* set, even empty: the user's */
        CHECK(!fab_probe_small_rx_pool());
        unsetenv(names[i]);
    }
    setenv("UCX_TCP_RX_BUFS_GROW", "16", 1); /* not a shared-memory pool */
    CHECK(fab_probe_small_rx_pool());
    unsetenv("UCX_TCP_RX_BUFS_GROW");
}

/* A tree given as --sysfs-root is read as hostile: a link planted as an attribute (towards any
 * file of the host) and a FIFO (which would block) are not read; a regular file is. */
static void test_sysfs_hostile(void)
{
    char reg[600], lnk[600], fifo[600], buf[64];
    FILE *f;

    snprintf(reg, sizeof(reg), "%s/operstate", scratch);
    snprintf(lnk, sizeof(lnk), "%s/operstate_link", scratch);
    snprintf(fifo, sizeof(fifo), "%s/operstate_fifo", scratch);
    f = fopen(reg, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("up\n", f);
    fclose(f);
    CHECK(symlink(reg, lnk) == 0 && mkfifo(fifo, 0600) == 0);
    CHECK(fab_inv_read(reg, buf, sizeof(buf)) && strcmp(buf, "up") == 0);
    CHECK(!fab_inv_read(lnk, buf, sizeof(buf)));
    CHECK(!fab_inv_read(fifo, buf, sizeof(buf)));
    unlink(lnk);
    unlink(fifo);
    unlink(reg);
}

int main(int argc, char **argv)
{
    fab_inventory_t *inv = malloc(sizeof(*inv));
    const char *tmp = getenv("TMPDIR");

    if (argc < 2 || !inv) {
        fprintf(stderr, "usage: test_fabric GOLDEN_DIR\n");
        free(inv);
        return 2;
    }
    golden = argv[1];
    snprintf(scratch, sizeof(scratch), "%s/fabtest-fabric-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "mkdtemp %s: %s\n", scratch, strerror(errno));
        free(inv);
        return 2;
    }

    test_rates();
    test_sysfs_hostile();
    test_probe_rx_pool();
    test_lanes_device();
    test_class_names();
    test_fixtures(inv);
    test_ethernet_speeds(inv);
    test_mtus(inv);
    test_gid_tables(inv);
    test_misc_trees(inv);
    test_command();

    rmtree(scratch);
    free(inv);
    return fab_test_report("test_fabric");
}
