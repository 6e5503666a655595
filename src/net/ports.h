/* SPDX-License-Identifier: BSD-3-Clause */
/* What a port is: its class and its line rate (net/ports.c; docs/FABRICS.md). */
#ifndef FAB_NET_PORTS_H
#define FAB_NET_PORTS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    FAB_CLASS_UNKNOWN = 0,
    FAB_CLASS_IB,    /* link layer InfiniBand */
    FAB_CLASS_ROCE,  /* link layer Ethernet (not erdma, not node type RNIC) */
    FAB_CLASS_ERDMA, /* driver erdma: Alibaba Elastic RDMA (iWARP-style, RC only, no UD) */
    FAB_CLASS_IWARP, /* node type RNIC, not erdma */
} fab_class_t;

const char *fab_class_name(fab_class_t c); /* "ib", "roce", "erdma", "iwarp", "unknown" */
/* Parse a sysfs rate string ("56 Gb/sec (4X FDR)", "2.5 Gb/sec (1X SDR)"): lanes, lane speed
 * name, signalling and data rates (Gb/s, all lanes) and the encoding. false if unparseable. */
bool fab_rate_parse(const char *rate, int *width, char *speed, size_t speedlen, double *signal_gbps,
                    double *data_gbps, char *encoding, size_t enclen);
/* The leading number of a rate string ("25 Gb/sec (1X EDR)" -> 25), 0 if none. */
double fab_inv_rate_number(const char *rate);
/* A port's class from its device's driver and node type and its link layer. */
fab_class_t fab_inv_classify(const char *driver, const char *node_type, const char *link_layer);
/* The largest RDMA MTU (256 ... 4096 bytes) not above n bytes; 0 if n < 256. */
int fab_inv_ib_mtu(long n);

#endif
