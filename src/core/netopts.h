/* SPDX-License-Identifier: BSD-3-Clause */
/* The options about the network and the host (fab_netopts_t, fab_opts_t.net): which fabric,
 * device, transport and placement a run asks for, and what is known of the port before the
 * run. src/net/ reads these and nothing else of the options. */
#ifndef FAB_CORE_NETOPTS_H
#define FAB_CORE_NETOPTS_H

#include <stdbool.h>

/* Values in the order of --pml's choice list: ucx|ob1|env. */
typedef enum { FAB_PML_UCX = 0, FAB_PML_OB1 = 1, FAB_PML_ENV = 2 } fab_pml_t;

typedef struct fab_netopts {
    const char *fabric;       /* --fabric: a profile name, auto, or NULL/any (UCX chooses) */
    const char *device;       /* --device NAME[:PORT], NULL: chosen by the fabric profile */
    bool strict_fabric;       /* a verified transport that differs from the request: exit 3 */
    int pml;                  /* fab_pml_t */
    bool pml_set;             /* --pml given explicitly */
    double line_rate_gbps;    /* --line-rate, or the port in use (set before the run); 0 unknown */
    bool line_rate_given;     /* --line-rate was given: applies within a node too */
    const char *netdev;       /* the network interface of --fabric on this host (set before
                                 the run); NULL or "" none */
    int placement;            /* FAB_PLACE_* */
    bool placement_set;       /* --placement given explicitly (overrides a launcher binding) */
    const char *sysfs_root;   /* NULL: "/" */
    const char *fabrics_file; /* NULL: the installed profile table */
} fab_netopts_t;

#endif
