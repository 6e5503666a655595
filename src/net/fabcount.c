/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric's congestion and error counters on this node (net/fabcount.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <math.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/testhook.h"
#include "net/fabcount.h"
#include "net/sysfs.h"

#define FAB_FC_FILE_MAX  (256 * 1024) /* a fixture's ethtool text, /proc/softirqs */
#define FAB_FC_STATS_MAX 4096         /* statistics of one interface we accept */

typedef struct fab_fc_name {
    const char *pattern; /* fnmatch(3) */
    fab_fc_kind_t kind;
} fab_fc_name_t;

/* RDMA ports: counters/ (the IBTA PortCounters) and hw_counters/ (the driver's; mlx5's names). */
static const fab_fc_name_t fab_fc_ib[] = {
    {"port_xmit_wait", FAB_FC_XMIT_WAIT},
    {"symbol_error", FAB_FC_ERRORS},
    {"link_downed", FAB_FC_ERRORS},
    {"link_error_recovery", FAB_FC_ERRORS},
    {"port_rcv_errors", FAB_FC_ERRORS},
    {"port_rcv_remote_physical_errors", FAB_FC_ERRORS},
    {"port_xmit_discards", FAB_FC_ERRORS},
    {"local_link_integrity_errors", FAB_FC_ERRORS},
    {"excessive_buffer_overrun_errors", FAB_FC_ERRORS},
    {"port_rcv_constraint_errors", FAB_FC_ERRORS},
    {"port_xmit_constraint_errors", FAB_FC_ERRORS},
    {"VL15_dropped", FAB_FC_ERRORS},
    {"np_cnp_sent", FAB_FC_CNP},
    {"rp_cnp_handled", FAB_FC_CNP},
    {"np_ecn_marked_roce_packets", FAB_FC_ECN},
    {"out_of_sequence", FAB_FC_SEQ},
    {"packet_seq_err", FAB_FC_SEQ},
    {"local_ack_timeout_err", FAB_FC_SEQ},
};

/* Ethernet statistics by driver (`ethtool -S` names), then those several drivers share. */
typedef struct fab_fc_driver {
    const char *driver;
    fab_fc_name_t names[12];
} fab_fc_driver_t;

static const fab_fc_driver_t fab_fc_eth[] = {
    {"mlx5_core",
     {{"rx_pause_ctrl_phy", FAB_FC_PAUSE},
      {"tx_pause_ctrl_phy", FAB_FC_PAUSE},
      {"rx_prio[0-7]_pause", FAB_FC_PAUSE},
      {"tx_prio[0-7]_pause", FAB_FC_PAUSE},
      {"rx_ecn_mark", FAB_FC_ECN},
      {"rx_crc_errors_phy", FAB_FC_ERRORS},
      {"rx_symbol_err_phy", FAB_FC_ERRORS},
      {"rx_undersize_pkts_phy", FAB_FC_ERRORS},
      {"rx_fragments_phy", FAB_FC_ERRORS},
      {"link_down_events_phy", FAB_FC_ERRORS}}},
    {"mlx4_en",
     {{"rx_pause", FAB_FC_PAUSE}, {"tx_pause", FAB_FC_PAUSE}, {"rx_crc_errors", FAB_FC_ERRORS}}},
    {"ice",
     {{"link_xoff_rx", FAB_FC_PAUSE},
      {"link_xoff_tx", FAB_FC_PAUSE},
      {"priority_xoff_rx", FAB_FC_PAUSE},
      {"priority_xoff_tx", FAB_FC_PAUSE},
      {"rx_crc_errors", FAB_FC_ERRORS},
      {"illegal_bytes", FAB_FC_ERRORS}}},
    {"i40e",
     {{"port.link_xoff_rx", FAB_FC_PAUSE},
      {"port.link_xoff_tx", FAB_FC_PAUSE},
      {"port.priority_xoff_rx", FAB_FC_PAUSE},
      {"port.priority_xoff_tx", FAB_FC_PAUSE},
      {"port.rx_crc_errors", FAB_FC_ERRORS},
      {"port.illegal_bytes", FAB_FC_ERRORS}}},
    {"ixgbe",
     {{"lxoff_rx_count", FAB_FC_PAUSE},
      {"lxoff_tx_count", FAB_FC_PAUSE},
      {"rx_crc_errors", FAB_FC_ERRORS}}},
    {"bnxt_en",
     {{"rx_pause_frames", FAB_FC_PAUSE},
      {"tx_pause_frames", FAB_FC_PAUSE},
      {"rx_pfc_ena_frames_pri[0-7]", FAB_FC_PAUSE},
      {"tx_pfc_ena_frames_pri[0-7]", FAB_FC_PAUSE},
      {"rx_fcs_err_frames", FAB_FC_ERRORS},
      {"rx_align_err_frames", FAB_FC_ERRORS}}},
    {"", /* the names several drivers share */
     {{"rx_pause_frames", FAB_FC_PAUSE},
      {"tx_pause_frames", FAB_FC_PAUSE},
      {"rx_pause", FAB_FC_PAUSE},
      {"tx_pause", FAB_FC_PAUSE},
      {"rx_ecn_mark", FAB_FC_ECN},
      {"rx_crc_errors", FAB_FC_ERRORS}}},
};

static int fab_fc_match(const fab_fc_name_t *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n && t[i].pattern; i++)
        if (fnmatch(t[i].pattern, name, 0) == 0)
            return (int)t[i].kind;
    return -1;
}

int fab_fc_ib_kind(const char *name)
{
    return fab_fc_match(fab_fc_ib, sizeof(fab_fc_ib) / sizeof(fab_fc_ib[0]), name);
}

int fab_fc_eth_kind(const char *driver, const char *stat)
{
    size_t nd = sizeof(fab_fc_eth) / sizeof(fab_fc_eth[0]);

    for (size_t d = 0; d + 1 < nd; d++)
        if (driver && strcmp(driver, fab_fc_eth[d].driver) == 0)
            return fab_fc_match(fab_fc_eth[d].names, 12, stat);
    return fab_fc_match(fab_fc_eth[nd - 1].names, 12, stat);
}

/* A whole decimal number, nothing else but white space around it. */
static bool fab_fc_number(const char *s, double *v)
{
    char *end;
    unsigned long long x;

    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    x = strtoull(s, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    if (errno != 0 || *end != '\0')
        return false;
    *v = (double)x;
    return true;
}

static void fab_fc_port_init(fab_fc_port_t *p, const char *name)
{
    fab_inv_copy(p->name, sizeof(p->name), name);
    for (int k = 0; k < FAB_FC_N; k++)
        p->v[k] = NAN;
}

static void fab_fc_put(fab_fc_port_t *p, int kind, double v)
{
    if (kind >= 0)
        p->v[kind] = (isnan(p->v[kind]) ? 0.0 : p->v[kind]) + v;
}

static bool fab_fc_any(const fab_fc_port_t *p)
{
    for (int k = 0; k < FAB_FC_N; k++)
        if (!isnan(p->v[k]))
            return true;
    return false;
}

static void fab_fc_bad(fab_fc_mark_t *m, const char *what)
{
    static bool said;

    if (m->bad++ == 0 && !said) {
        said = true;
        FAB_WARN("fabric counters: %s is not a number; it is left out (said once)", what);
    }
}

/* One directory of an RDMA port's counter files (counters/ or hw_counters/). */
static void fab_fc_ib_dir(const char *dir, fab_fc_port_t *p, fab_fc_mark_t *m)
{
    fab_inv_list_t l;
    char path[PATH_MAX], buf[64];
    double v;

    if (!fab_inv_list(dir, &l))
        return;
    for (int i = 0; i < l.n; i++) {
        int kind = fab_fc_ib_kind(l.v[i]);

        if (kind < 0 || !fab_inv_path(path, sizeof(path), dir, "%s", l.v[i]) ||
            fab_inv_slurp(path, buf, sizeof(buf)) < 0)
            continue;
        if (fab_fc_number(buf, &v))
            fab_fc_put(p, kind, v);
        else
            fab_fc_bad(m, path);
    }
    fab_inv_list_free(&l);
}

static void fab_fc_read_ib(const char *root, fab_fc_mark_t *m)
{
    fab_inv_list_t devs, ports;
    char dir[PATH_MAX], sub[PATH_MAX], name[FAB_FC_NAME];

    if (!fab_inv_path(dir, sizeof(dir), root, "sys/class/infiniband") || !fab_inv_list(dir, &devs))
        return;
    for (int d = 0; d < devs.n; d++) {
        if (!fab_inv_path(dir, sizeof(dir), root, "sys/class/infiniband/%s/ports", devs.v[d]) ||
            !fab_inv_list(dir, &ports))
            continue;
        for (int p = 0; p < ports.n && m->nports < FAB_FC_PORTS; p++) {
            fab_fc_port_t *pt = &m->port[m->nports];

            if (fab_inv_index(ports.v[p]) < 0)
                continue;
            snprintf(name, sizeof(name), "%.30s/%.10s", devs.v[d], ports.v[p]);
            fab_fc_port_init(pt, name);
            if (fab_inv_path(sub, sizeof(sub), dir, "%s/counters", ports.v[p]))
                fab_fc_ib_dir(sub, pt, m);
            if (fab_inv_path(sub, sizeof(sub), dir, "%s/hw_counters", ports.v[p]))
                fab_fc_ib_dir(sub, pt, m);
            m->nports += fab_fc_any(pt);
        }
        fab_inv_list_free(&ports);
    }
    fab_inv_list_free(&devs);
}

bool fab_fc_parse_ethtool(const char *driver, const char *text, fab_fc_port_t *p)
{
    bool any = false;

    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[160], *colon, *name = buf;
        double v;

        if (n < sizeof(buf)) {
            memcpy(buf, line, n);
            buf[n] = '\0';
            colon = strrchr(buf, ':');
            while (*name == ' ' || *name == '\t')
                name++;
            if (colon && colon > name) {
                *colon = '\0';
                if (fab_fc_number(colon + 1, &v)) {
                    any = true;
                    fab_fc_put(p, fab_fc_eth_kind(driver, name), v);
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return any;
}

/* A fixture's interface: ROOT/ethtool/IF, "driver: NAME" then `ethtool -S`'s lines. */
static void fab_fc_read_eth_fixture(const char *root, fab_fc_mark_t *m)
{
    fab_inv_list_t l;
    char dir[PATH_MAX], path[PATH_MAX], drv[64] = "";
    char *text = malloc(FAB_FC_FILE_MAX);

    if (!text || !fab_inv_path(dir, sizeof(dir), root, "ethtool") || !fab_inv_list(dir, &l)) {
        free(text);
        return;
    }
    for (int i = 0; i < l.n && m->nports < FAB_FC_PORTS; i++) {
        fab_fc_port_t *pt = &m->port[m->nports];

        if (!fab_inv_path(path, sizeof(path), dir, "%s", l.v[i]) ||
            fab_inv_slurp(path, text, FAB_FC_FILE_MAX) < 0)
            continue;
        if (sscanf(text, "driver: %63s", drv) != 1)
            drv[0] = '\0';
        fab_fc_port_init(pt, l.v[i]);
        if (!fab_fc_parse_ethtool(drv, text, pt))
            fab_fc_bad(m, path);
        m->nports += fab_fc_any(pt);
    }
    fab_inv_list_free(&l);
    free(text);
}

/* One live interface through SIOCETHTOOL: its driver, the statistics' names and values. */
static void fab_fc_ethtool(int sk, const char *ifname, fab_fc_port_t *p)
{
    struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
    struct ethtool_gstrings *names = NULL;
    struct ethtool_stats *stats = NULL;
    struct ifreq ifr;
    uint32_t n;

    memset(&ifr, 0, sizeof(ifr));
    fab_inv_copy(ifr.ifr_name, sizeof(ifr.ifr_name), ifname);
    ifr.ifr_data = (void *)&di;
    if (ioctl(sk, SIOCETHTOOL, &ifr) != 0 || di.n_stats == 0 || di.n_stats > FAB_FC_STATS_MAX)
        return;
    n = di.n_stats;
    names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
    stats = calloc(1, sizeof(*stats) + (size_t)n * sizeof(uint64_t));
    if (names && stats) {
        names->cmd = ETHTOOL_GSTRINGS;
        names->string_set = ETH_SS_STATS;
        names->len = n;
        stats->cmd = ETHTOOL_GSTATS;
        stats->n_stats = n;
        ifr.ifr_data = (void *)names;
        if (ioctl(sk, SIOCETHTOOL, &ifr) == 0 && names->len == n) {
            ifr.ifr_data = (void *)stats;
            if (ioctl(sk, SIOCETHTOOL, &ifr) == 0 && stats->n_stats == n)
                for (uint32_t i = 0; i < n; i++) {
                    char nm[ETH_GSTRING_LEN + 1];

                    memcpy(nm, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
                    nm[ETH_GSTRING_LEN] = '\0';
                    fab_fc_put(p, fab_fc_eth_kind(di.driver, nm), (double)stats->data[i]);
                }
        }
    }
    free(names);
    free(stats);
}

static void fab_fc_read_eth_live(fab_fc_mark_t *m)
{
    fab_inv_list_t l;
    int sk;

    if (!fab_inv_list("/sys/class/net", &l))
        return;
    sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    for (int i = 0; sk >= 0 && i < l.n && m->nports < FAB_FC_PORTS; i++) {
        fab_fc_port_t *pt = &m->port[m->nports];

        if (strcmp(l.v[i], "lo") == 0 || strlen(l.v[i]) >= IFNAMSIZ)
            continue;
        fab_fc_port_init(pt, l.v[i]);
        fab_fc_ethtool(sk, l.v[i], pt);
        m->nports += fab_fc_any(pt);
    }
    if (sk >= 0)
        close(sk);
    fab_inv_list_free(&l);
}

void fab_fc_parse_softirqs(const char *text, fab_fc_mark_t *m)
{
    const char *line = strstr(text, "NET_RX:");
    char *end;

    m->ncpu = 0;
    if (!line)
        return;
    line += strlen("NET_RX:");
    while (m->ncpu < FAB_FC_CPUS) {
        unsigned long long x;

        while (*line == ' ' || *line == '\t')
            line++;
        if (*line < '0' || *line > '9')
            break;
        x = strtoull(line, &end, 10);
        m->netrx[m->ncpu++] = x;
        line = end;
    }
}

void fab_fc_read(const char *root, fab_fc_mark_t *m)
{
    char path[PATH_MAX];
    char *text = malloc(FAB_FC_FILE_MAX);

    m->nports = m->ncpu = m->bad = 0;
    fab_fc_read_ib(root ? root : "", m);
    if (root)
        fab_fc_read_eth_fixture(root, m);
    else
        fab_fc_read_eth_live(m);
    if (text && fab_inv_path(path, sizeof(path), root ? root : "", "proc/softirqs") &&
        fab_inv_slurp(path, text, FAB_FC_FILE_MAX) > 0)
        fab_fc_parse_softirqs(text, m);
    free(text);
}

void fab_fc_mark(fab_fc_mark_t *m, bool node)
{
    static unsigned turn; /* FABRICBENCH_TEST_FABRIC: a window's start, then its end */
    char root[PATH_MAX];

#ifdef FAB_SIM
    node = false; /* the simulator's host is not the simulated nodes' (core/sim.h) */
#endif
    if (node && fab_test_fabric_root((int)(turn++ % 2), root, sizeof(root)))
        fab_fc_read(root, m);
    else if (node)
        fab_fc_read(NULL, m);
    else
        m->nports = m->ncpu = m->bad = 0;
}

void fab_fc_acc_init(fab_fc_acc_t *acc)
{
    memset(acc, 0, sizeof(*acc));
    for (int k = 0; k < FAB_FC_N; k++)
        acc->d[k] = NAN;
}

void fab_fc_add(fab_fc_acc_t *acc, const fab_fc_mark_t *a, const fab_fc_mark_t *b)
{
    acc->nports = b->nports;
    for (int i = 0; i < b->nports; i++) {
        const fab_fc_port_t *pb = &b->port[i], *pa = NULL;

        for (int j = 0; j < a->nports && !pa; j++)
            if (strcmp(a->port[j].name, pb->name) == 0)
                pa = &a->port[j];
        for (int k = 0; pa && k < FAB_FC_N; k++) {
            double g;

            if (isnan(pa->v[k]) || isnan(pb->v[k]))
                continue;
            g = pb->v[k] >= pa->v[k] ? pb->v[k] - pa->v[k] : 0.0;
            acc->d[k] = (isnan(acc->d[k]) ? 0.0 : acc->d[k]) + g;
            if (k == FAB_FC_ERRORS && g > acc->worst_err) {
                acc->worst_err = g;
                fab_inv_copy(acc->worst, sizeof(acc->worst), pb->name);
            }
        }
    }
    if (a->ncpu > 0 && a->ncpu == b->ncpu) {
        acc->ncpu = b->ncpu;
        for (int c = 0; c < b->ncpu; c++)
            acc->netrx[c] += b->netrx[c] >= a->netrx[c] ? (double)(b->netrx[c] - a->netrx[c]) : 0;
    }
}

int fab_fc_netrx_top(const fab_fc_acc_t *acc, double min_events, double *share_pct)
{
    double sum = 0, top = -1;
    int cpu = -1;

    for (int c = 0; c < acc->ncpu; c++) {
        sum += acc->netrx[c];
        if (acc->netrx[c] > top) {
            top = acc->netrx[c];
            cpu = c;
        }
    }
    if (cpu < 0 || sum < min_events || sum <= 0) {
        *share_pct = NAN;
        return -1;
    }
    *share_pct = 100.0 * top / sum;
    return cpu;
}
