/* SPDX-License-Identifier: BSD-3-Clause */
/* What placement needs from an hwloc topology: the NUMA nodes with cores, the NIC and the
 * nodes nearest it, NUMA distances, and how to describe a set of PUs. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/topology.h"

/* Each plugin, loaded at the first topology's start, maps its libraries into every rank:
 * hwloc_gl (libX11 and friends), hwloc_opencl, hwloc_xml_libxml (libxml2, libicu) cost 3.3 MB
 * resident and 3 ms CPU here and add nothing that placement or Open MPI reads (Open MPI's
 * topology keeps its PCI devices: hwloc_pci is not in the list). hwloc matches a plugin's
 * name as a substring of the variable. */
bool fab_topo_env_prepare(void)
{
    if (getenv("HWLOC_PLUGINS_BLACKLIST"))
        return false;
    return setenv("HWLOC_PLUGINS_BLACKLIST", FAB_HWLOC_PLUGINS_UNUSED, 0) == 0;
}

fab_status_t fab_topo_load(const char *xml, bool io, hwloc_topology_t *topo, char *err,
                           size_t errlen)
{
    hwloc_topology_t t;

    *topo = NULL;
    if (xml) {
        FILE *f = fopen(xml, "r");

        if (!f) {
            snprintf(err, errlen,
                     "cannot read the topology file '%s': %s (export one with `lstopo FILE.xml` "
                     "on the machine it describes, or leave --topology out for this machine)",
                     xml, strerror(errno));
            return FAB_ERR_IO;
        }
        fclose(f);
    }
    if (hwloc_topology_init(&t) < 0) {
        snprintf(err, errlen, "hwloc could not start a topology: %s", strerror(errno));
        return FAB_ERR_NOMEM;
    }
    /* PCI devices and their OS devices (mlx5_0, ib0, eth0) tell where a NIC is; reading
     * them is most of the load's time, so only when a NIC matters. */
    hwloc_topology_set_io_types_filter(t, io ? HWLOC_TYPE_FILTER_KEEP_IMPORTANT
                                             : HWLOC_TYPE_FILTER_KEEP_NONE);
    /* Placement reads cores, PUs, NUMA nodes, their distances and the NICs, never a cache:
     * the caches (sysfs files per CPU) and the x86 backend (cpuid on every PU, the process
     * bound to each in turn; the Linux backend finds the same cores and NUMA nodes in sysfs)
     * are left out: 3.4 -> 1.7 ms of CPU a load on the 2-core development VM
     * (docs/PERFORMANCE.md). */
    hwloc_topology_set_cache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
#if HWLOC_API_VERSION >= 0x00020100
    if (!xml)
        hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
    if (xml) {
        /* No HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM: a file describes another machine, and
         * fab_place_apply refuses to bind with it. */
        hwloc_topology_set_flags(t, 0);
        if (hwloc_topology_set_xml(t, xml) < 0 || hwloc_topology_load(t) < 0) {
            snprintf(err, errlen,
                     "'%s' is not a topology hwloc can read: write one with `lstopo FILE.xml` on "
                     "the machine it describes, and check it with `lstopo --input FILE.xml`",
                     xml);
            hwloc_topology_destroy(t);
            return FAB_ERR_IO;
        }
    } else if (hwloc_topology_load(t) < 0) {
        snprintf(err, errlen, "hwloc could not read this machine's topology: %s", strerror(errno));
        hwloc_topology_destroy(t);
        return FAB_ERR_IO;
    }
    *topo = t;
    return FAB_OK;
}

/* ---------------------------------------------------------------- the topology context */
void fab_topo_ctx_free(fab_topo_ctx_t *c)
{
    free(c->nodes);
    free(c->units);
    free(c->first);
    free(c->count);
    free(c->order);
    hwloc_bitmap_free(c->cpu_nodes);
    hwloc_bitmap_free(c->nic_nodes);
    if (c->dist)
        hwloc_distances_release(c->topo, c->dist);
    memset(c, 0, sizeof(*c));
}

bool fab_topo_is_nic(hwloc_obj_t o)
{
    return o->type == HWLOC_OBJ_OS_DEVICE && o->name &&
           (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
            o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS);
}

/* The NUMA nodes nearest an OS device: those (with cores) in the nodeset of its first
 * non-I/O ancestor, where hwloc attached its PCI bus. */
void fab_topo_nic_nodes(const fab_topo_ctx_t *c, hwloc_obj_t osdev, hwloc_nodeset_t out)
{
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(c->topo, osdev);

    hwloc_bitmap_zero(out);
    if (anc && anc->nodeset)
        hwloc_bitmap_and(out, anc->nodeset, c->cpu_nodes);
}

/* ---------------------------------------------------------------- distances */
hwloc_obj_t fab_topo_node_by_os(const fab_topo_ctx_t *c, int os)
{
    for (int i = 0; i < c->nnodes; i++)
        if ((int)c->nodes[i]->os_index == os)
            return c->nodes[i];
    return NULL;
}

/* Distance from node a to node b: the latency matrix's value, 10 for a node to itself
 * without a matrix, -1 unknown. */
static int fab_node_distance(const fab_topo_ctx_t *c, hwloc_obj_t a, hwloc_obj_t b)
{
    hwloc_uint64_t ab, ba;

    if (c->dist && hwloc_distances_obj_pair_values(c->dist, a, b, &ab, &ba) == 0 && ab <= INT32_MAX)
        return (int)ab;
    return a == b ? 10 : -1;
}

/* Distance from node a to the nearest of the NIC's nodes; -1 unknown. */
int fab_topo_nic_distance(const fab_topo_ctx_t *c, hwloc_obj_t a)
{
    int best = -1;
    unsigned os;

    hwloc_bitmap_foreach_begin(os, c->nic_nodes)
    {
        hwloc_obj_t b = fab_topo_node_by_os(c, (int)os);
        int d = b ? fab_node_distance(c, a, b) : -1;

        if (d >= 0 && (best < 0 || d < best))
            best = d;
    }
    hwloc_bitmap_foreach_end();
    return best;
}

/* Policy nic's node order: the NIC's nodes (logical order), then the others by increasing
 * distance from the NIC (logical order among equals, and last where no distance is known). */
static void fab_nic_order(fab_topo_ctx_t *c)
{
    int n = 0;

    for (int i = 0; i < c->nnodes; i++)
        if (hwloc_bitmap_isset(c->nic_nodes, c->nodes[i]->os_index))
            c->order[n++] = i;
    c->norder_local = n;
    for (int i = 0; i < c->nnodes; i++) {
        int d, j = n;

        if (hwloc_bitmap_isset(c->nic_nodes, c->nodes[i]->os_index))
            continue;
        d = fab_topo_nic_distance(c, c->nodes[i]);
        c->key[i] = d < 0 ? INT32_MAX : d;
        while (j > c->norder_local && c->key[c->order[j - 1]] > c->key[i]) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = i;
        n++;
    }
}

/* The context's arrays for total_nodes NUMA nodes and c->nunits cores; false when out of
 * memory. */
static bool fab_topo_ctx_alloc(fab_topo_ctx_t *c, int total_nodes)
{
    c->nodes = calloc((size_t)total_nodes, sizeof(*c->nodes));
    c->first = calloc((size_t)total_nodes, sizeof(*c->first));
    c->count = calloc((size_t)total_nodes, sizeof(*c->count));
    c->units = calloc((size_t)c->nunits, sizeof(*c->units));
    c->order = calloc(2 * (size_t)total_nodes, sizeof(*c->order));
    c->cpu_nodes = hwloc_bitmap_alloc();
    c->nic_nodes = hwloc_bitmap_alloc();
    return c->nodes && c->first && c->count && c->units && c->order && c->cpu_nodes && c->nic_nodes;
}

/* The NUMA nodes with cores, and their cores (c->nodes, first, count, units, cpu_nodes); the
 * number of those nodes. A NUMA node's cpuset is the cores near it: CPU-less nodes (HBM, CXL
 * or GPU memory) repeat the cores of the node they hang under. Keep the first node of each set
 * of cores, and give each core to one node only. covered: scratch. */
static int fab_topo_core_nodes(fab_topo_ctx_t *c, int total_nodes, hwloc_bitmap_t covered)
{
    int n = 0, k = 0;

    for (int i = 0; i < total_nodes; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(c->topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        hwloc_obj_t u = NULL;

        if (!node->cpuset || hwloc_bitmap_iszero(node->cpuset) ||
            hwloc_bitmap_isincluded(node->cpuset, covered))
            continue;
        c->first[n] = k;
        while ((u = hwloc_get_next_obj_inside_cpuset_by_type(c->topo, node->cpuset, c->unit, u)))
            if (!hwloc_bitmap_intersects(u->cpuset, covered) && k < c->nunits)
                c->units[k++] = u;
        hwloc_bitmap_or(covered, covered, node->cpuset);
        c->count[n] = k - c->first[n];
        if (c->count[n] == 0)
            continue;
        c->nodes[n++] = node;
        hwloc_bitmap_set(c->cpu_nodes, node->os_index);
    }
    return n;
}

/* The NIC named nic ("mlx5_0:1": its device) in the topology, its NUMA nodes, and the nodes
 * in order of their distance to it. */
static void fab_topo_find_nic(fab_topo_ctx_t *c, const char *nic)
{
    hwloc_obj_t o = NULL;
    size_t len = strcspn(nic, ":");

    snprintf(c->nic_name, sizeof(c->nic_name), "%.*s", (int)len, nic);
    while ((o = hwloc_get_next_osdev(c->topo, o)))
        if (fab_topo_is_nic(o) && strcmp(o->name, c->nic_name) == 0)
            break;
    c->nic = o;
    if (o) {
        fab_topo_nic_nodes(c, o, c->nic_nodes);
        if (hwloc_bitmap_weight(c->nic_nodes) == 1)
            c->nic_numa = hwloc_bitmap_first(c->nic_nodes);
        fab_nic_order(c);
    }
}

fab_status_t fab_topo_ctx_init(fab_topo_ctx_t *c, hwloc_topology_t topo, const char *nic, char *err,
                               size_t errlen)
{
    int total_nodes;
    hwloc_bitmap_t covered;
    unsigned nr = 1;

    memset(c, 0, sizeof(*c));
    c->topo = topo;
    c->nic_numa = -1;
    c->unit = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    c->nunits = hwloc_get_nbobjs_by_type(topo, c->unit);
    total_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    if (c->nunits <= 0 || total_nodes <= 0) {
        snprintf(err, errlen, "the topology has no %s", c->nunits <= 0 ? "cores" : "NUMA node");
        return FAB_ERR_CONFIG;
    }
    covered = hwloc_bitmap_alloc();
    if (!covered || !fab_topo_ctx_alloc(c, total_nodes)) {
        hwloc_bitmap_free(covered);
        fab_topo_ctx_free(c);
        snprintf(err, errlen, "out of memory reading the topology");
        return FAB_ERR_NOMEM;
    }
    c->nnodes = fab_topo_core_nodes(c, total_nodes, covered);
    hwloc_bitmap_free(covered);
    c->key = c->order + total_nodes;
    if (c->nnodes == 0) {
        fab_topo_ctx_free(c);
        snprintf(err, errlen, "the topology has no NUMA node with cores");
        return FAB_ERR_CONFIG;
    }
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &c->dist,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) < 0 ||
        nr == 0)
        c->dist = NULL;
    if (nic && *nic)
        fab_topo_find_nic(c, nic);
    return FAB_OK;
}

/* The NICs hwloc knows, for messages: "eno1 (NUMA 0), ib0 (NUMA 1)"; "none" when it knows
 * none. */
void fab_topo_known_nics(const fab_topo_ctx_t *c, char *buf, size_t len)
{
    hwloc_obj_t o = NULL;
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    size_t used = 0;

    buf[0] = '\0';
    while (ns && (o = hwloc_get_next_osdev(c->topo, o))) {
        char nodes[64];

        if (!fab_topo_is_nic(o))
            continue;
        fab_topo_nic_nodes(c, o, ns);
        if (hwloc_bitmap_iszero(ns))
            snprintf(nodes, sizeof(nodes), "?");
        else
            hwloc_bitmap_list_snprintf(nodes, sizeof(nodes), ns);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s (NUMA %s)", used ? ", " : "",
                                     o->name, nodes);
    }
    hwloc_bitmap_free(ns);
    if (!buf[0])
        snprintf(buf, len, "none");
}

/* ---------------------------------------------------------------- describing a set of PUs */
void fab_topo_list(char *buf, size_t len, hwloc_const_bitmap_t set)
{
    int n = hwloc_bitmap_list_snprintf(buf, len, set);

    if (n >= 0 && (size_t)n >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}

void fab_topo_nodes_str(char *buf, size_t len, hwloc_const_nodeset_t ns)
{
    if (hwloc_bitmap_iszero(ns))
        snprintf(buf, len, "?");
    else
        fab_topo_list(buf, len, ns);
}

const char *fab_topo_dist_str(int d, char *buf, size_t len)
{
    if (d < 0)
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%d", d);
    return buf;
}
