/* SPDX-License-Identifier: BSD-3-Clause */
/* Rank placement with hwloc: which cores each local rank of a node runs on, near its NIC.
 * The rules are in docs/FABRICS.md, "Placement". */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "net/placement.h"
#include "net/topology.h"

const char *fab_place_name(int policy)
{
    static const char *const names[] = {"auto", "nic", "numa", "core", "none"};

    return policy >= FAB_PLACE_AUTO && policy <= FAB_PLACE_NONE ? names[policy] : "unknown";
}

/* Fill cpus, numa, bound, nic, nic_numa, distance and remote for the PUs in set. */
static void fab_place_describe(const fab_topo_ctx_t *c, hwloc_const_cpuset_t set, fab_place_t *out)
{
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(c->topo);

    fab_topo_list(out->cpus, sizeof(out->cpus), set);
    out->bound = !hwloc_bitmap_isincluded(allowed, set);
    snprintf(out->nic, sizeof(out->nic), "%s", c->nic_name);
    out->nic_numa = c->nic_numa;
    out->numa = -1;
    out->distance = -1;
    out->remote = false;
    if (!ns)
        return;
    for (int i = 0; i < c->nnodes; i++)
        if (hwloc_bitmap_intersects(c->nodes[i]->cpuset, set))
            hwloc_bitmap_set(ns, c->nodes[i]->os_index);
    if (hwloc_bitmap_weight(ns) == 1) {
        out->numa = hwloc_bitmap_first(ns);
        if (c->nic && !hwloc_bitmap_iszero(c->nic_nodes))
            out->distance = fab_topo_nic_distance(c, fab_topo_node_by_os(c, out->numa));
    }
    out->remote = c->nic && !hwloc_bitmap_iszero(c->nic_nodes) && !hwloc_bitmap_iszero(ns) &&
                  !hwloc_bitmap_intersects(ns, c->nic_nodes);
    hwloc_bitmap_free(ns);
}

static void fab_append(char *note, size_t len, const char *text)
{
    size_t l = strlen(note);

    if (l + 1 < len)
        snprintf(note + l, len - l, "%s", text);
}

/* --placement nic (asked, or auto's) without the NIC in the topology: why, in err. */
static fab_status_t fab_place_no_nic(const fab_topo_ctx_t *c, char *err, size_t errlen)
{
    char known[512];

    fab_topo_known_nics(c, known, sizeof(known));
    if (!c->nic_name[0])
        snprintf(err, errlen,
                 "--placement nic needs the NIC: name it with --device (fabricbench run: "
                 "--fabric KIND --device NAME) (NICs in the topology: %s)",
                 known);
    else
        snprintf(err, errlen,
                 "NIC '%s' is not in the topology, so its NUMA node is unknown (NICs in the "
                 "topology: %s)",
                 c->nic_name, known);
    return c->nic_name[0] ? FAB_ERR_CONFIG : FAB_ERR_USAGE;
}

/* The policies (--placement): local rank `local` of nlocal on a core into set, out described.
 * Each returns the lower local rank whose core it shares (more ranks than cores), or -1. */
static int fab_place_nic(const fab_topo_ctx_t *c, int local, int nlocal,
                         hwloc_const_cpuset_t allowed, hwloc_bitmap_t set, fab_place_t *out)
{
    int ncores = 0, nlocal_cores = 0, idx, k = 0;
    hwloc_obj_t unit = NULL;
    char nodes[64], dist[16];

    for (int i = 0; i < c->nnodes; i++) {
        ncores += c->count[c->order[i]];
        if (i < c->norder_local)
            nlocal_cores += c->count[c->order[i]];
    }
    idx = local % ncores;
    for (int i = 0; i < c->nnodes && !unit; i++) {
        if (idx < k + c->count[c->order[i]])
            unit = c->units[c->first[c->order[i]] + idx - k];
        k += c->count[c->order[i]];
    }
    hwloc_bitmap_and(set, unit->cpuset, allowed);
    fab_place_describe(c, set, out);
    fab_topo_nodes_str(nodes, sizeof(nodes), c->nic_nodes);
    if (out->remote)
        snprintf(out->note, sizeof(out->note),
                 "warning: the NIC's NUMA node %s has %d cores for %d ranks: this rank "
                 "spills to node %d, distance %s",
                 nodes, nlocal_cores, nlocal, out->numa,
                 fab_topo_dist_str(out->distance, dist, sizeof(dist)));
    else
        snprintf(out->note, sizeof(out->note), "a core of NUMA node %s, nearest %s", nodes,
                 c->nic_name);
    return local >= ncores ? idx : -1;
}

static int fab_place_numa(const fab_topo_ctx_t *c, int local, hwloc_const_cpuset_t allowed,
                          hwloc_bitmap_t set, fab_place_t *out)
{
    int node = local % c->nnodes, nth = local / c->nnodes;
    hwloc_obj_t unit = c->units[c->first[node] + nth % c->count[node]];

    hwloc_bitmap_and(set, unit->cpuset, allowed);
    fab_place_describe(c, set, out);
    snprintf(out->note, sizeof(out->note), "round robin over %d NUMA node%s: node %u, core %d",
             c->nnodes, c->nnodes == 1 ? "" : "s", c->nodes[node]->os_index, nth % c->count[node]);
    return nth >= c->count[node] ? (nth % c->count[node]) * c->nnodes + node : -1;
}

static int fab_place_core(const fab_topo_ctx_t *c, hwloc_topology_t topo, int local,
                          hwloc_const_cpuset_t allowed, hwloc_bitmap_t set, fab_place_t *out)
{
    hwloc_obj_t unit = hwloc_get_obj_by_type(topo, c->unit, (unsigned)(local % c->nunits));

    hwloc_bitmap_and(set, unit->cpuset, allowed);
    fab_place_describe(c, set, out);
    snprintf(out->note, sizeof(out->note), "core %d in logical order", local % c->nunits);
    return local >= c->nunits ? local % c->nunits : -1;
}

/* Not bound (policy none, or auto without a NIC to be near): every allowed PU. */
static void fab_place_unbound(const fab_topo_ctx_t *c, int policy, hwloc_const_cpuset_t allowed,
                              hwloc_bitmap_t set, fab_place_t *out)
{
    hwloc_bitmap_copy(set, allowed);
    fab_place_describe(c, set, out);
    if (policy == FAB_PLACE_NONE)
        snprintf(out->note, sizeof(out->note), "not bound (policy none)");
    else if (!c->nic_name[0])
        snprintf(out->note, sizeof(out->note),
                 "not bound: no NIC named (--device), and auto binds only near a known NIC");
    else
        snprintf(out->note, sizeof(out->note),
                 "not bound: NIC '%s' is not in the topology (a virtual interface, or not on "
                 "this node), so its locality is unknown",
                 c->nic_name);
}

fab_status_t fab_place_plan(hwloc_topology_t topo, int policy, const char *nic, int local,
                            int nlocal, hwloc_bitmap_t set, fab_place_t *out, char *err,
                            size_t errlen)
{
    fab_topo_ctx_t c;
    fab_status_t st;
    hwloc_const_cpuset_t allowed;
    int used = policy, shared_with = -1;
    char nodes[64], dist[16];

    if (!topo || !set || !out || policy < FAB_PLACE_AUTO || policy > FAB_PLACE_NONE || nlocal < 1 ||
        local < 0 || local >= nlocal) {
        snprintf(err, errlen, "placement: local rank %d of %d, policy %d: not a valid request",
                 local, nlocal, policy);
        return FAB_ERR_USAGE;
    }
    memset(out, 0, sizeof(*out));
    st = fab_topo_ctx_init(&c, topo, nic, err, errlen);
    if (st != FAB_OK)
        return st;
    allowed = hwloc_topology_get_allowed_cpuset(topo);
    if (policy == FAB_PLACE_AUTO)
        used = c.nic ? FAB_PLACE_NIC : FAB_PLACE_NONE;
    if (used == FAB_PLACE_NIC && !c.nic) {
        st = fab_place_no_nic(&c, err, errlen);
        fab_topo_ctx_free(&c);
        return st;
    }
    if (used == FAB_PLACE_NIC)
        shared_with = fab_place_nic(&c, local, nlocal, allowed, set, out);
    else if (used == FAB_PLACE_NUMA)
        shared_with = fab_place_numa(&c, local, allowed, set, out);
    else if (used == FAB_PLACE_CORE)
        shared_with = fab_place_core(&c, topo, local, allowed, set, out);
    else
        fab_place_unbound(&c, policy, allowed, set, out);
    out->policy = used;
    if (out->remote && used != FAB_PLACE_NIC) {
        fab_topo_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
        snprintf(out->note, sizeof(out->note),
                 "warning: policy %s puts this rank on NUMA node %d, away from %s (node %s, "
                 "distance %s); --placement nic keeps ranks near it",
                 fab_place_name(used), out->numa, c.nic_name, nodes,
                 fab_topo_dist_str(out->distance, dist, sizeof(dist)));
    }
    if (shared_with >= 0) {
        char more[96];

        snprintf(more, sizeof(more), "; more ranks than cores: shares its core with local rank %d",
                 shared_with);
        fab_append(out->note, sizeof(out->note), more);
    }
    fab_topo_ctx_free(&c);
    return FAB_OK;
}

/* ---------------------------------------------------------------- binding this process */

/* Where the process is bound now (cur, before: as text) is where it stays: policy none, or the
 * launcher's binding kept. */
static void fab_place_keep(const fab_topo_ctx_t *c, int policy, bool prebound, const char *before,
                           hwloc_const_cpuset_t cur, fab_place_t *out)
{
    fab_place_describe(c, cur, out);
    out->policy = FAB_PLACE_NONE;
    out->kept = prebound;
    if (policy == FAB_PLACE_NONE)
        snprintf(out->note, sizeof(out->note), "%s (policy none)",
                 prebound ? "the launcher's binding is kept" : "not bound");
    else
        snprintf(out->note, sizeof(out->note),
                 "bound by the launcher to cpus %s: kept (--placement nic, numa or core "
                 "overrides it)",
                 before);
}

/* Bind the process where the policy puts it (set: scratch), and describe where it then is
 * (cur). */
static fab_status_t fab_place_bind(const fab_topo_ctx_t *c, hwloc_topology_t topo, int policy,
                                   const char *nic, int local, int nlocal, bool prebound,
                                   const char *before, hwloc_bitmap_t cur, hwloc_bitmap_t set,
                                   fab_place_t *out, char *err, size_t errlen)
{
    char note[sizeof(out->note)];
    fab_status_t st = fab_place_plan(topo, policy, nic, local, nlocal, set, out, err, errlen);
    int used;

    if (st != FAB_OK)
        return st;
    used = out->policy;
    memcpy(note, out->note, sizeof(note));
    if (used != FAB_PLACE_NONE) {
        if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) < 0) {
            char want[128];

            fab_topo_list(want, sizeof(want), set);
            snprintf(err, errlen, "placement: binding to cpus %s failed: %s", want,
                     strerror(errno));
            return FAB_ERR_CONFIG;
        }
        if (hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) < 0)
            hwloc_bitmap_copy(cur, set);
    }
    /* auto without a NIC to be near: the process stays where it is */
    fab_place_describe(c, cur, out);
    out->policy = used;
    out->kept = used == FAB_PLACE_NONE && prebound;
    memcpy(out->note, note, sizeof(note));
    if (used != FAB_PLACE_NONE && prebound) {
        snprintf(note, sizeof(note), "; --placement %s overrides the launcher's binding (cpus %s)",
                 fab_place_name(policy), before);
        fab_append(out->note, sizeof(out->note), note);
    }
    return FAB_OK;
}

fab_status_t fab_place_apply(hwloc_topology_t topo, int policy, bool explicit_policy,
                             const char *nic, int local, int nlocal, fab_place_t *out, char *err,
                             size_t errlen)
{
    fab_topo_ctx_t c;
    hwloc_bitmap_t cur = NULL, set = NULL;
    bool prebound;
    char before[128];
    fab_status_t st;

    if (!topo || !out) {
        snprintf(err, errlen, "placement: no topology");
        return FAB_ERR_INTERNAL;
    }
    memset(out, 0, sizeof(*out));
    if (!hwloc_topology_is_thissystem(topo)) {
        snprintf(err, errlen,
                 "placement: the topology was read from a file, not from this machine: it "
                 "cannot be used to bind");
        return FAB_ERR_CONFIG;
    }
    st = fab_topo_ctx_init(&c, topo, nic, err, errlen);
    if (st != FAB_OK)
        return st;
    cur = hwloc_bitmap_alloc();
    set = hwloc_bitmap_alloc();
    if (!cur || !set) {
        snprintf(err, errlen, "out of memory");
        st = FAB_ERR_NOMEM;
        goto done;
    }
    /* Where the launcher (mpirun, srun) or a wrapper (taskset, numactl) put the process. */
    if (hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) < 0)
        hwloc_bitmap_copy(cur, hwloc_topology_get_allowed_cpuset(topo));
    prebound = !hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(topo), cur);
    fab_topo_list(before, sizeof(before), cur);
    if (policy == FAB_PLACE_NONE || (prebound && (policy == FAB_PLACE_AUTO || !explicit_policy)))
        fab_place_keep(&c, policy, prebound, before, cur, out);
    else
        st = fab_place_bind(&c, topo, policy, nic, local, nlocal, prebound, before, cur, set, out,
                            err, errlen);
    if (st == FAB_OK && out->remote && strncmp(out->note, "warning:", 8) != 0) {
        char nodes[64], note[sizeof(out->note)];

        fab_topo_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
        snprintf(note, sizeof(note), "; warning: NUMA node %d, away from %s (node %s)", out->numa,
                 c.nic_name, nodes);
        fab_append(out->note, sizeof(out->note), note);
    }
done:
    hwloc_bitmap_free(cur);
    hwloc_bitmap_free(set);
    fab_topo_ctx_free(&c);
    return st;
}
