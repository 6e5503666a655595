/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric's own congestion and error signals on this node (net/fabcount.c): the RDMA
 * ports' counters and hw_counters (sysfs), the Ethernet drivers' pause, ECN and error
 * statistics (SIOCETHTOOL, names per driver) and the receive softirq work per CPU
 * (/proc/softirqs NET_RX), read before and after a row (docs/METRICS.md, "Fabric counters").
 * Every file is read as hostile: regular files only (no link followed below the device's own
 * directory), bounded reads, strict decimal numbers; what cannot be read counts as absent. */
#ifndef FAB_NET_FABCOUNT_H
#define FAB_NET_FABCOUNT_H

#include <stdbool.h>
#include <stddef.h>

/* What a counter says, summed over the counters of one kind. */
typedef enum {
    FAB_FC_PAUSE = 0, /* pause frames (IEEE 802.3x and PFC), received and sent */
    FAB_FC_CNP,       /* RoCE congestion notification packets sent or handled */
    FAB_FC_ECN,       /* packets that arrived ECN-marked */
    FAB_FC_XMIT_WAIT, /* InfiniBand port_xmit_wait: ticks with data to send and no credit */
    FAB_FC_SEQ,       /* RDMA transport: out-of-sequence packets, sequence errors, timeouts */
    FAB_FC_ERRORS,    /* link and packet errors: symbol, CRC, receive errors, link downed */
    FAB_FC_N
} fab_fc_kind_t;

#define FAB_FC_PORTS 16   /* ports (RDMA ports and Ethernet interfaces) one node reads */
#define FAB_FC_CPUS  1024 /* CPUs of /proc/softirqs */
#define FAB_FC_NAME  48   /* "mlx5_0/1", "eth0" */

typedef struct fab_fc_port {
    char name[FAB_FC_NAME];
    double v[FAB_FC_N]; /* NaN: the port has no counter of that kind */
} fab_fc_port_t;

/* One reading of the node. */
typedef struct fab_fc_mark {
    int nports;
    fab_fc_port_t port[FAB_FC_PORTS];
    int ncpu; /* CPUs /proc/softirqs listed; 0: not read */
    unsigned long long netrx[FAB_FC_CPUS];
    int bad; /* files that could not be parsed (said once per run) */
} fab_fc_mark_t;

/* A row's growth, summed over its windows (fab_fc_add). */
typedef struct fab_fc_acc {
    double d[FAB_FC_N]; /* NaN: no port had the kind */
    int nports;         /* ports read (the last window's) */
    char worst[FAB_FC_NAME];
    double worst_err; /* the port whose errors grew most, and by how much (0: none) */
    int ncpu;
    double netrx[FAB_FC_CPUS];
} fab_fc_acc_t;

/* What a result row holds of them (measure/row.h), summed over the nodes. */
typedef struct fab_fc_row {
    double grew[FAB_FC_N]; /* NaN where no node had a port with the kind */
    int ports;             /* ports read, summed over the nodes; 0 none */
    char err_port[80];     /* "host:mlx5_0/1": the port whose errors grew most; "" none */
    char signals[40];      /* what grew: "pause,cnp,ecn,seq,errors" (comma list); "" none */
    double netrx_pct;      /* the busiest CPU's share of receive softirqs, worst node, % */
    int netrx_cpu;         /* that CPU; -1 unknown */
    char netrx_host[80];   /* its host */
} fab_fc_row_t;

/* What a kernel's end says of its rows: rows in which something grew (their sizes, words and
 * the last port named), socket rows whose receive work one CPU did below line rate. */
#define FAB_NETRX_MIN_EVENTS   1000 /* fewer receive softirqs than this: no judgement */
#define FAB_NETRX_ONE_CORE_PCT 60.0 /* one CPU's share of them that is noted */
#define FAB_NETRX_LINE_PCT     90.0 /* ... in a row below this share of the line rate */
typedef struct fab_fc_notes {
    int rows, netrx_rows, netrx_cpu;
    char sizes[200], err_port[80], netrx_sizes[160], netrx_host[80];
    size_t len, netrx_len;
    double netrx_max, netrx_line;
} fab_fc_notes_t;

/* The kind of an RDMA port's counters/ or hw_counters/ file, -1 for none we read. */
int fab_fc_ib_kind(const char *name);
/* The kind of an Ethernet statistic of a driver ("mlx5_core", "ice"): the driver's own table,
 * then the names several drivers share; -1 for none. */
int fab_fc_eth_kind(const char *driver, const char *stat);
/* Parse /proc/softirqs' text: the NET_RX count of each CPU into m (ncpu 0 when absent). */
void fab_fc_parse_softirqs(const char *text, fab_fc_mark_t *m);
/* Parse `ethtool -S`'s text ("NIC statistics:", "     name: value" lines) of a driver's
 * port into p (a fixture's form of the SIOCETHTOOL answer); false: no line was one. */
bool fab_fc_parse_ethtool(const char *driver, const char *text, fab_fc_port_t *p);
/* Read the node: root NULL reads the live system (sysfs, SIOCETHTOOL, /proc/softirqs);
 * otherwise a fixture tree (ROOT/sys/class/infiniband, ROOT/ethtool/IF: `ethtool -i`'s
 * "driver: NAME" line then `ethtool -S`'s text, ROOT/proc/softirqs). */
void fab_fc_read(const char *root, fab_fc_mark_t *m);
/* The live system when node (the node's sampling rank), else an empty reading. */
void fab_fc_mark(fab_fc_mark_t *m, bool node);
void fab_fc_acc_init(fab_fc_acc_t *acc);
/* Add the growth from a to b (ports matched by name; a counter that went back adds 0). */
void fab_fc_add(fab_fc_acc_t *acc, const fab_fc_mark_t *a, const fab_fc_mark_t *b);
/* The CPU that did most of the receive softirq work in acc and its share, % (-1 and NaN when
 * fewer than min_events were counted). */
int fab_fc_netrx_top(const fab_fc_acc_t *acc, double min_events, double *share_pct);

#endif
