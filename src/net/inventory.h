/* SPDX-License-Identifier: BSD-3-Clause */
/* What RDMA devices and network interfaces a node has (net/inventory.c), and how it is
 * printed (net/inventory_print.c): `fabricbench inventory`, the result file's record. */
#ifndef FAB_NET_INVENTORY_H
#define FAB_NET_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/status.h"
#include "net/ports.h"

/* What RDMA devices and network interfaces a node has, read from sysfs under a root that
 * tests point at fixture trees (libibverbs adds to it where the root is the real "/"). */
#define FAB_MAX_RDMA  16
#define FAB_MAX_PORTS 4
#define FAB_MAX_NETIF 64

typedef struct fab_port {
    int num;              /* port number, from 1 */
    char state[32];       /* "ACTIVE", "DOWN", "INIT", ... (sysfs "4: ACTIVE" -> "ACTIVE") */
    char phys_state[32];  /* "LinkUp", "Disabled", ... */
    char link_layer[16];  /* "InfiniBand", "Ethernet" */
    char rate[64];        /* the sysfs string as read: "200 Gb/sec (4X HDR)" */
    int width;            /* active lanes: 1, 2, 4, 8, 12; 0 unknown */
    char speed[16];       /* lane speed name: "SDR" ... "XDR"; "" unknown */
    double signal_gbps;   /* signalling rate of all lanes, Gb/s; 0 unknown (always on Ethernet) */
    double data_gbps;     /* data rate after line encoding, Gb/s (Ethernet: the netdev's speed,
                             docs/FABRICS.md); 0 unknown */
    char encoding[32];    /* "8b/10b", "64b/66b", ...; "" unknown */
    int mtu;              /* active RDMA MTU, bytes; 0 unknown */
    char gid_types[64];   /* distinct GID types in table order: "IB", "RoCE v1,RoCE v2" */
    int rocev2_gid_index; /* preferred RoCE v2 GID index (fab_inv_gid_rank); -1 none */
    char netdev[32];      /* the network interface behind the port ("" none) */
    fab_class_t cls;      /* the port's classification */
} fab_port_t;

typedef struct fab_rdma_dev {
    char name[64];      /* mlx5_0 */
    char driver[32];    /* mlx5_core, erdma, ... ("" unknown) */
    char node_type[32]; /* "CA", "RNIC", ... */
    char fw_ver[64];
    int numa_node; /* -1 unknown */
    int nports;
    fab_port_t ports[FAB_MAX_PORTS];
} fab_rdma_dev_t;

typedef struct fab_netif {
    char name[32];
    long speed_mbps; /* sysfs speed, Mb/s; -1 unknown (VMs, virtual devices, link down) */
    int mtu;
    int numa_node;      /* -1 unknown */
    char operstate[16]; /* "up", "down", "unknown" */
    bool loopback;
    char rdma_dev[64]; /* the RDMA device it backs ("" none) */
    /* Its receive path (net/inventory_queues.c): queues/rx-N and tx-N (-1 unknown), their
     * rps_cpus and xps_cpus masks (one hex mask when all agree, else "mixed: A,B"; "0": off;
     * "" unknown), and its IRQs (/proc/interrupts names with the interface or its PCI address)
     * as "IRQ:smp_affinity_list" (the first ones; nirqs all of them). */
    int rx_queues, tx_queues, nirqs;
    char rps_cpus[64], xps_cpus[64], irqs[192];
} fab_netif_t;

typedef struct fab_inventory {
    char sysroot[512]; /* "/" or a fixture tree */
    char source[64];   /* "sysfs", "sysfs+libibverbs" */
    int nrdma;
    fab_rdma_dev_t rdma[FAB_MAX_RDMA];
    int nnet;
    fab_netif_t net[FAB_MAX_NETIF];
    char note[256]; /* what could not be read, e.g. "no RDMA devices (no class/infiniband)" */
} fab_inventory_t;

/* Read the inventory under sysroot (NULL or "" : "/"). A missing class/infiniband is not an
 * error (no RDMA devices); an unreadable sysroot is (FAB_ERR_IO, exit 3; err says which path). */
/* An interface's queues, RPS/XPS masks and IRQ affinity under root (inventory_queues.c). */
void fab_inv_scan_queues(const char *root, fab_netif_t *n);
fab_status_t fab_inventory_scan(const char *sysroot, fab_inventory_t *inv, char *err,
                                size_t errlen);
/* The inventory as one JSON object (stable key order; the golden tests compare it exactly),
 * and as text for people. */
void fab_inventory_json(const fab_inventory_t *inv, FILE *f);
void fab_inventory_text(const fab_inventory_t *inv, FILE *f);
/* A short inventory of this host for error messages: "RDMA: mlx5_0:1 roce ACTIVE 100 Gb/s;
 * net: eth0 up 25 Gb/s, lo". */
void fab_inventory_brief(const fab_inventory_t *inv, char *buf, size_t len);
/* `fabricbench inventory [--json]`: exit code (0, or 3 when sysroot cannot be read). */
int fab_inventory_command(const char *sysroot, bool json, FILE *out, FILE *errf);

#endif
