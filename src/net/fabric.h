/* SPDX-License-Identifier: BSD-3-Clause */
/* --fabric: a profile of the profile table resolved to a device on each host before
 * MPI_Init (net/fabric.c), and the check of what UCX then chose (net/fabric_check.c). */
#ifndef FAB_NET_FABRIC_H
#define FAB_NET_FABRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/netopts.h"
#include "core/status.h"
#include "net/inventory.h"

/* --fabric: a profile from the profile table (share/fabricbench/fabrics.conf), resolved on
 * each host to a device before MPI_Init, then checked against what UCX chose. */
typedef struct fab_fabric {
    char requested[32]; /* as given: "roce", "auto"; "" for any */
    char name[32];      /* the profile used ("" for any) */
    char match[32];     /* its match rule */
    char description[160];
    char device[64];         /* RDMA device or network interface used ("" none) */
    int port;                /* RDMA port (0: none) */
    char netdev[32];         /* the network interface behind it */
    int gid_index;           /* RoCE v2 GID index, -1 none */
    double line_rate_gbps;   /* data rate of the port, 0 unknown */
    char line_rate_from[96]; /* where that came from */
    char expect[128];        /* transports that count as this fabric */
    char env[1024];          /* "NAME=value ..." set for UCX and Open MPI */
    char why[256];           /* how the device was chosen */
    char profiles_file[512];
    char verified[512]; /* what UCX chose (probe), "" before the probe */
    char verdict[32];   /* "match", "differs", "not verified" */
    char verdict_why[256];
} fab_fabric_t;

/* Before MPI_Init, on every rank: resolve o->fabric on this host (reading the inventory under
 * o->sysfs_root) and set the profile's environment. Nothing is set on failure; msg and hint
 * say what is wrong and what exists. FAB_ERR_USAGE: unknown profile or bad --device syntax;
 * FAB_ERR_ENV: the fabric or device does not exist here, or the profile table is unreadable.
 * note receives a warning to print (an environment variable overridden), or "". */
fab_status_t fab_fabric_prepare(const fab_netopts_t *o, fab_fabric_t *fb, char *msg, size_t msglen,
                                char *hint, size_t hintlen, char *note, size_t notelen);
/* The names --fabric takes, one a line into out: any, auto and every profile of the table
 * (o->fabrics_file, else the installed one). FAB_ERR_ENV or FAB_ERR_USAGE with msg when the
 * table cannot be found or read (the shell completion, cli/completion.c). */
fab_status_t fab_fabric_names(const fab_netopts_t *o, char *out, size_t len, char *msg,
                              size_t msglen);
/* After the UCX probe: compare the lanes it reported ("tcp/eth0[am] ...") with the profile.
 * Returns true when they match (or nothing was asked). */
bool fab_fabric_verify(fab_fabric_t *fb, const char *lanes);
/* With --fabric any and no line rate: the network device UCX's first network lane used
 * ("mlx5_0:1", "eth0") into dev, for a hint on how to get line%. False when the lanes name no
 * network device (shared memory, not probed). */
bool fab_lanes_device(const char *lanes, char *dev, size_t len);
/* Rank 0: the probed pairs (a[i], b[i]) and their lanes (lanes + i x FAB_LANES_LEN) grouped by
 * what UCX chose ("LANES (pairs 0-2 1-3) | ...", into out), each group checked against
 * --fabric. The verdict lands in fb: the first group that differs (its pairs named), or a
 * match; *bad_a, *bad_b: that pair. Returns whether every pair matched. */
bool fab_fabric_verify_pairs(fab_fabric_t *fb, int n, const int *a, const int *b, const char *lanes,
                             char *out, size_t outlen, int *bad_a, int *bad_b);

#endif
