/* SPDX-License-Identifier: BSD-3-Clause */
/* What placement needs from an hwloc topology (net/topology.c): for the placement and its
 * command. */
#ifndef FAB_NET_TOPOLOGY_H
#define FAB_NET_TOPOLOGY_H

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* Before MPI_Init: keep hwloc from loading the plugins no one here reads (GPU and graphics
 * devices, libxml2's XML reader; hwloc_pci stays: placement finds the NIC through it), in
 * MPI_Init's topology as in placement's, by HWLOC_PLUGINS_BLACKLIST, unless the user set
 * it. Returns whether it was set here. */
#define FAB_HWLOC_PLUGINS_UNUSED                                                                   \
    "hwloc_gl,hwloc_opencl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero,hwloc_xml_libxml"
bool fab_topo_env_prepare(void);

/* This machine's topology (xml NULL), or one exported by `lstopo file.xml`; io: with the
 * I/O devices (PCI, OS devices: where a NIC is), which take most of the time to read. */
fab_status_t fab_topo_load(const char *xml, bool io, hwloc_topology_t *topo, char *err,
                           size_t errlen);

/* What placement needs from a topology, gathered once per plan. */
typedef struct fab_topo_ctx {
    hwloc_topology_t topo;
    hwloc_obj_type_t unit; /* HWLOC_OBJ_CORE, or HWLOC_OBJ_PU on a topology without cores */
    int nunits;            /* units in the topology */
    int nnodes;
    hwloc_obj_t *nodes;        /* NUMA nodes with cores of their own, logical order */
    hwloc_obj_t *units;        /* units grouped by node: node i has units[first[i] .. +count[i]] */
    int *first, *count;        /* per node */
    hwloc_nodeset_t cpu_nodes; /* OS indexes of `nodes` */
    struct hwloc_distances_s *dist; /* NUMA latency matrix; NULL: none */
    char nic_name[64];              /* the NIC as named, without ":PORT"; "" none named */
    hwloc_obj_t nic;                /* its OS device; NULL: none named, or not in the topology */
    hwloc_nodeset_t nic_nodes;      /* the NUMA nodes nearest it (subset of cpu_nodes) */
    int nic_numa;                   /* the only one of them; -1: several or unknown */
    int *order;                     /* policy nic's node order (indexes into nodes) */
    int norder_local;               /* how many of them are the NIC's */
    int *key;                       /* scratch for the order: distance from the NIC */
} fab_topo_ctx_t;

/* Gather what placement needs from topo; nic: the NIC named by --device (":PORT" ignored),
 * or NULL. On failure err says why. */
fab_status_t fab_topo_ctx_init(fab_topo_ctx_t *c, hwloc_topology_t topo, const char *nic, char *err,
                               size_t errlen);
void fab_topo_ctx_free(fab_topo_ctx_t *c);
/* An OS device that is a network interface or an RDMA device. */
bool fab_topo_is_nic(hwloc_obj_t o);
/* The NUMA nodes with cores nearest osdev, into out. */
void fab_topo_nic_nodes(const fab_topo_ctx_t *c, hwloc_obj_t osdev, hwloc_nodeset_t out);
/* The NICs hwloc knows, for messages: "eno1 (NUMA 0), ib0 (NUMA 1)"; "none" when it knows
 * none. */
void fab_topo_known_nics(const fab_topo_ctx_t *c, char *buf, size_t len);
/* The NUMA node (with cores) whose OS index is os; NULL if none. */
hwloc_obj_t fab_topo_node_by_os(const fab_topo_ctx_t *c, int os);
/* Distance from node a to the nearest of the NIC's nodes; -1 unknown. */
int fab_topo_nic_distance(const fab_topo_ctx_t *c, hwloc_obj_t a);
/* A bitmap in list form: "0-3,8". */
void fab_topo_list(char *buf, size_t len, hwloc_const_bitmap_t set);
/* A nodeset in list form, "?" when empty. */
void fab_topo_nodes_str(char *buf, size_t len, hwloc_const_nodeset_t ns);
/* A NUMA distance, "unknown" when negative; returns buf. */
const char *fab_topo_dist_str(int d, char *buf, size_t len);

#endif
