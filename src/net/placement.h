/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a rank runs: hwloc placement near the NIC (net/placement.c) and the `fabricbench
 * placement` command (net/placement_cmd.c). */
#ifndef FAB_NET_PLACEMENT_H
#define FAB_NET_PLACEMENT_H

#include <hwloc.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"

/* --placement, in the order of its choice list. auto: nic when the NIC is known and the
 * launcher has not bound the rank already, else leave the binding as it is. */
typedef enum {
    FAB_PLACE_AUTO = 0,
    FAB_PLACE_NIC,  /* cores of the NUMA node nearest the NIC, then the next nearest */
    FAB_PLACE_NUMA, /* round-robin over NUMA nodes, one core each */
    FAB_PLACE_CORE, /* one core each, in logical order */
    FAB_PLACE_NONE, /* bind nothing */
} fab_place_policy_t;

typedef struct fab_place {
    int policy;     /* what was applied (never AUTO) */
    bool bound;     /* bound to fewer PUs than the machine allows */
    bool kept;      /* a binding from the launcher (mpirun/srun) was kept */
    char cpus[128]; /* PUs it may run on, OS indexes, list form: "8-11,40" */
    int numa;       /* OS index of the NUMA node of those PUs; -1 several or unknown */
    char nic[64];   /* the NIC placement considered ("" none) */
    int nic_numa;   /* OS index of the NUMA node nearest the NIC; -1 unknown */
    int distance;   /* NUMA distance numa -> nic_numa (10: local); -1 unknown */
    bool remote;    /* known to be on another NUMA node than the NIC */
    char note[256]; /* why this placement, or a warning */
} fab_place_t;

/* Where local rank `local` of `nlocal` on a node goes under `policy` (AUTO acts as NIC when
 * nic is found in the topology, else as NONE). Pure: binds nothing. set (allocated by the
 * caller) receives the PUs; out describes the plan. */
fab_status_t fab_place_plan(hwloc_topology_t topo, int policy, const char *nic, int local,
                            int nlocal, hwloc_bitmap_t set, fab_place_t *out, char *err,
                            size_t errlen);
/* Bind this process as planned. explicit: the user chose the policy, which overrides a
 * binding the launcher made; otherwise (AUTO) an existing binding is kept. out describes
 * where the process runs afterwards. */
fab_status_t fab_place_apply(hwloc_topology_t topo, int policy, bool explicit_policy,
                             const char *nic, int local, int nlocal, fab_place_t *out, char *err,
                             size_t errlen);
/* `fabricbench placement`: the plan for nlocal ranks on the topology, one line per rank (or
 * JSON). Exit code. */
int fab_place_command(const char *xml, int policy, const char *nic, int nlocal, bool json,
                      FILE *out, FILE *errf);
const char *fab_place_name(int policy); /* "auto", "nic", "numa", "core", "none" */

#endif
