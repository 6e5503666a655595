/* SPDX-License-Identifier: BSD-3-Clause */
/* Which point-to-point layer and which UCX transports are really in use: the pml selected
 * before MPI_Init and detected after it (net/transport.c), the UCX probe between measured
 * pairs (net/transport_probe.c). */
#ifndef FAB_NET_TRANSPORT_H
#define FAB_NET_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/netopts.h"
#include "core/status.h"
#include "core/world.h"

typedef struct fab_transport {
    char pml[32];     /* pml component in use: "ucx", "ob1", ... or "unknown" */
    char pml_how[64]; /* how that was found */
    char ucx_version[32];
    char ucx_tls[512];    /* UCX transports/devices a probe endpoint chose, or why unknown */
    char ucx_pairs[2048]; /* every probed pair's, grouped; "" when one pair was probed */
    char mpi_library[256];
} fab_transport_t;

/* Before MPI_Init: select the pml the options ask for, unless the environment already has. */
void fab_transport_prepare(const fab_netopts_t *o);
/* After MPI_Init: versions and the pml in use (local, nothing started). */
void fab_transport_detect(fab_transport_t *t);
/* Whether the UCX transports still have to be probed (pml ucx). */
bool fab_transport_needs_probe(const fab_transport_t *t);
/* net/transport_probe.c: probe the UCX transports of the pairs (a[i], b[i]), which share no rank,
 * all at once (collective over MPI_COMM_WORLD). On rank 0, out + i x len holds pair i's lanes, such
 * as "tcp/eth0[rma_bw#0 am am_bw#0 wireup]", or why they are unknown. at_exit: only the run's
 * end follows (the outputs' last lines, MPI_Finalize): a UCX worker and context of the probe's
 * own are left to the process's exit, whose clean-up is cheaper than UCX's. */
#define FAB_LANES_LEN 512
/* The lanes of UCX's endpoint report (ucp_ep_print_info) in short: "lane[0]: 3:sysv/memory.0
 * md[2] -> ... am am_bw#0" becomes "sysv/memory[am am_bw#0]", lanes separated by spaces (the
 * probe's, and the UCP kernels' own endpoints); "rma" first where the report's "put[0]" or
 * "get[0]" line names the lane one of the RMA lanes, which carry ucp_put and ucp_get (UCX 1.13
 * prints no word for that on the lane's line; only an endpoint of a context asking for RMA
 * has such lines). */
void fab_ucx_parse_lanes(const char *info, char *out, size_t len);
/* The probe's UCX context grows the shared-memory transports' receive pool 8 buffers at a time
 * (FAB_PROBE_RX_GROW) instead of UCX's 512 (4.2 MB a transport, for one endpoint that sends
 * nothing): true unless the user set a pool's growth (UCX_MM_, _SYSV_, _POSIX_, _XPMEM_
 * RX_BUFS_GROW), which the probe then keeps, or chose the transports (UCX_TLS, also through
 * --fabric; UCX_SHM_DEVICES). Not an attribute lanes are chosen by. */
#define FAB_PROBE_RX_GROW "8"
bool fab_probe_small_rx_pool(void);
/* Right after MPI_Init, under pml ucx: find MPI's own UCX worker in UCX's object tree, which
 * the probe then uses (its endpoint's lanes are MPI's); else the probe makes a context and
 * worker of its own. */
void fab_transport_find_mpi_worker(void);
fab_status_t fab_transport_probe_pairs(const fab_world_t *w, int n, const int *a, const int *b,
                                       bool at_exit, char *out, size_t len);

#endif
