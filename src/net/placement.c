/* Rank placement with hwloc: which cores each local rank of a node runs on, near its NIC.
 * The rules are in docs/FABRICS.md, "Placement". */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "net/placement.h"

/* What placement needs from a topology, gathered once per plan. */
typedef struct fab_place_ctx {
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
} fab_place_ctx_t;

const char *fab_place_name(int policy)
{
    static const char *const names[] = {"auto", "nic", "numa", "core", "none"};

    return policy >= FAB_PLACE_AUTO && policy <= FAB_PLACE_NONE ? names[policy] : "unknown";
}

fab_status_t fab_topo_load(const char *xml, hwloc_topology_t *topo, char *err, size_t errlen)
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
    /* PCI devices and their OS devices (mlx5_0, ib0, eth0) tell where a NIC is. */
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
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
static void fab_ctx_free(fab_place_ctx_t *c)
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

static bool fab_is_nic(hwloc_obj_t o)
{
    return o->type == HWLOC_OBJ_OS_DEVICE && o->name &&
           (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
            o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS);
}

/* The NUMA nodes nearest an OS device: those (with cores) in the nodeset of its first
 * non-I/O ancestor, where hwloc attached its PCI bus. */
static void fab_nic_nodes(const fab_place_ctx_t *c, hwloc_obj_t osdev, hwloc_nodeset_t out)
{
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(c->topo, osdev);

    hwloc_bitmap_zero(out);
    if (anc && anc->nodeset)
        hwloc_bitmap_and(out, anc->nodeset, c->cpu_nodes);
}

/* ---------------------------------------------------------------- distances */
static hwloc_obj_t fab_node_by_os(const fab_place_ctx_t *c, int os)
{
    for (int i = 0; i < c->nnodes; i++)
        if ((int)c->nodes[i]->os_index == os)
            return c->nodes[i];
    return NULL;
}

/* Distance from node a to node b: the latency matrix's value, 10 for a node to itself
 * without a matrix, -1 unknown. */
static int fab_node_distance(const fab_place_ctx_t *c, hwloc_obj_t a, hwloc_obj_t b)
{
    hwloc_uint64_t ab, ba;

    if (c->dist && hwloc_distances_obj_pair_values(c->dist, a, b, &ab, &ba) == 0 && ab <= INT32_MAX)
        return (int)ab;
    return a == b ? 10 : -1;
}

/* Distance from node a to the nearest of the NIC's nodes; -1 unknown. */
static int fab_nic_distance(const fab_place_ctx_t *c, hwloc_obj_t a)
{
    int best = -1;
    unsigned os;

    hwloc_bitmap_foreach_begin(os, c->nic_nodes)
    {
        hwloc_obj_t b = fab_node_by_os(c, (int)os);
        int d = b ? fab_node_distance(c, a, b) : -1;

        if (d >= 0 && (best < 0 || d < best))
            best = d;
    }
    hwloc_bitmap_foreach_end();
    return best;
}

/* Policy nic's node order: the NIC's nodes (logical order), then the others by increasing
 * distance from the NIC (logical order among equals, and last where no distance is known). */
static void fab_nic_order(fab_place_ctx_t *c)
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
        d = fab_nic_distance(c, c->nodes[i]);
        c->key[i] = d < 0 ? INT32_MAX : d;
        while (j > c->norder_local && c->key[c->order[j - 1]] > c->key[i]) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = i;
        n++;
    }
}

static fab_status_t fab_ctx_init(fab_place_ctx_t *c, hwloc_topology_t topo, const char *nic,
                                 char *err, size_t errlen)
{
    int total_nodes, n = 0, k = 0;
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
    c->nodes = calloc((size_t)total_nodes, sizeof(*c->nodes));
    c->first = calloc((size_t)total_nodes, sizeof(*c->first));
    c->count = calloc((size_t)total_nodes, sizeof(*c->count));
    c->units = calloc((size_t)c->nunits, sizeof(*c->units));
    c->order = calloc(2 * (size_t)total_nodes, sizeof(*c->order));
    c->cpu_nodes = hwloc_bitmap_alloc();
    c->nic_nodes = hwloc_bitmap_alloc();
    covered = hwloc_bitmap_alloc();
    if (!c->nodes || !c->first || !c->count || !c->units || !c->order || !c->cpu_nodes ||
        !c->nic_nodes || !covered) {
        hwloc_bitmap_free(covered);
        fab_ctx_free(c);
        snprintf(err, errlen, "out of memory reading the topology");
        return FAB_ERR_NOMEM;
    }
    /* A NUMA node's cpuset is the cores near it: CPU-less nodes (HBM, CXL or GPU memory)
     * repeat the cores of the node they hang under. Keep the first node of each set of
     * cores, and give each core to one node only. */
    for (int i = 0; i < total_nodes; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        hwloc_obj_t u = NULL;

        if (!node->cpuset || hwloc_bitmap_iszero(node->cpuset) ||
            hwloc_bitmap_isincluded(node->cpuset, covered))
            continue;
        c->first[n] = k;
        while ((u = hwloc_get_next_obj_inside_cpuset_by_type(topo, node->cpuset, c->unit, u)))
            if (!hwloc_bitmap_intersects(u->cpuset, covered) && k < c->nunits)
                c->units[k++] = u;
        hwloc_bitmap_or(covered, covered, node->cpuset);
        c->count[n] = k - c->first[n];
        if (c->count[n] == 0)
            continue;
        c->nodes[n++] = node;
        hwloc_bitmap_set(c->cpu_nodes, node->os_index);
    }
    hwloc_bitmap_free(covered);
    c->nnodes = n;
    c->key = c->order + total_nodes;
    if (n == 0) {
        fab_ctx_free(c);
        snprintf(err, errlen, "the topology has no NUMA node with cores");
        return FAB_ERR_CONFIG;
    }
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &c->dist,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) < 0 ||
        nr == 0)
        c->dist = NULL;

    if (nic && *nic) {
        hwloc_obj_t o = NULL;
        size_t len = strcspn(nic, ":");

        snprintf(c->nic_name, sizeof(c->nic_name), "%.*s", (int)len, nic);
        while ((o = hwloc_get_next_osdev(topo, o)))
            if (fab_is_nic(o) && strcmp(o->name, c->nic_name) == 0)
                break;
        c->nic = o;
        if (o) {
            fab_nic_nodes(c, o, c->nic_nodes);
            if (hwloc_bitmap_weight(c->nic_nodes) == 1)
                c->nic_numa = hwloc_bitmap_first(c->nic_nodes);
            fab_nic_order(c);
        }
    }
    return FAB_OK;
}

/* The NICs hwloc knows, for messages: "eno1 (NUMA 0), ib0 (NUMA 1)"; "none" when it knows
 * none. */
static void fab_known_nics(const fab_place_ctx_t *c, char *buf, size_t len)
{
    hwloc_obj_t o = NULL;
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    size_t used = 0;

    buf[0] = '\0';
    while (ns && (o = hwloc_get_next_osdev(c->topo, o))) {
        char nodes[64];

        if (!fab_is_nic(o))
            continue;
        fab_nic_nodes(c, o, ns);
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
static void fab_list(char *buf, size_t len, hwloc_const_bitmap_t set)
{
    int n = hwloc_bitmap_list_snprintf(buf, len, set);

    if (n >= 0 && (size_t)n >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}

/* Fill cpus, numa, bound, nic, nic_numa, distance and remote for the PUs in set. */
static void fab_describe(const fab_place_ctx_t *c, hwloc_const_cpuset_t set, fab_place_t *out)
{
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(c->topo);

    fab_list(out->cpus, sizeof(out->cpus), set);
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
            out->distance = fab_nic_distance(c, fab_node_by_os(c, out->numa));
    }
    out->remote = c->nic && !hwloc_bitmap_iszero(c->nic_nodes) && !hwloc_bitmap_iszero(ns) &&
                  !hwloc_bitmap_intersects(ns, c->nic_nodes);
    hwloc_bitmap_free(ns);
}

/* ---------------------------------------------------------------- the plan */
static void fab_nodes_str(char *buf, size_t len, hwloc_const_nodeset_t ns)
{
    if (hwloc_bitmap_iszero(ns))
        snprintf(buf, len, "?");
    else
        fab_list(buf, len, ns);
}

static const char *fab_dist_str(int d, char *buf, size_t len)
{
    if (d < 0)
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%d", d);
    return buf;
}

static void fab_append(char *note, size_t len, const char *text)
{
    size_t l = strlen(note);

    if (l + 1 < len)
        snprintf(note + l, len - l, "%s", text);
}

fab_status_t fab_place_plan(hwloc_topology_t topo, int policy, const char *nic, int local,
                            int nlocal, hwloc_bitmap_t set, fab_place_t *out, char *err,
                            size_t errlen)
{
    fab_place_ctx_t c;
    fab_status_t st;
    hwloc_const_cpuset_t allowed;
    hwloc_obj_t unit = NULL;
    int used = policy, shared_with = -1;
    char known[512], nodes[64], dist[16];

    if (!topo || !set || !out || policy < FAB_PLACE_AUTO || policy > FAB_PLACE_NONE || nlocal < 1 ||
        local < 0 || local >= nlocal) {
        snprintf(err, errlen, "placement: local rank %d of %d, policy %d: not a valid request",
                 local, nlocal, policy);
        return FAB_ERR_USAGE;
    }
    memset(out, 0, sizeof(*out));
    st = fab_ctx_init(&c, topo, nic, err, errlen);
    if (st != FAB_OK)
        return st;
    allowed = hwloc_topology_get_allowed_cpuset(topo);
    if (policy == FAB_PLACE_AUTO)
        used = c.nic ? FAB_PLACE_NIC : FAB_PLACE_NONE;
    if (used == FAB_PLACE_NIC && !c.nic) {
        fab_known_nics(&c, known, sizeof(known));
        if (!c.nic_name[0])
            snprintf(err, errlen,
                     "--placement nic needs the NIC: name it with --device (fabricbench run: "
                     "--fabric KIND --device NAME) (NICs in the topology: %s)",
                     known);
        else
            snprintf(err, errlen,
                     "NIC '%s' is not in the topology, so its NUMA node is unknown (NICs in the "
                     "topology: %s)",
                     c.nic_name, known);
        st = c.nic_name[0] ? FAB_ERR_CONFIG : FAB_ERR_USAGE;
        fab_ctx_free(&c);
        return st;
    }

    switch (used) {
    case FAB_PLACE_NIC: {
        int ncores = 0, nlocal_cores = 0, idx, k = 0;

        for (int i = 0; i < c.nnodes; i++) {
            ncores += c.count[c.order[i]];
            if (i < c.norder_local)
                nlocal_cores += c.count[c.order[i]];
        }
        idx = local % ncores;
        for (int i = 0; i < c.nnodes && !unit; i++) {
            if (idx < k + c.count[c.order[i]])
                unit = c.units[c.first[c.order[i]] + idx - k];
            k += c.count[c.order[i]];
        }
        if (local >= ncores)
            shared_with = idx;
        hwloc_bitmap_and(set, unit->cpuset, allowed);
        fab_describe(&c, set, out);
        fab_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
        if (out->remote)
            snprintf(out->note, sizeof(out->note),
                     "warning: the NIC's NUMA node %s has %d cores for %d ranks: this rank "
                     "spills to node %d, distance %s",
                     nodes, nlocal_cores, nlocal, out->numa,
                     fab_dist_str(out->distance, dist, sizeof(dist)));
        else
            snprintf(out->note, sizeof(out->note), "a core of NUMA node %s, nearest %s", nodes,
                     c.nic_name);
        break;
    }
    case FAB_PLACE_NUMA: {
        int node = local % c.nnodes, nth = local / c.nnodes;

        if (nth >= c.count[node])
            shared_with = (nth % c.count[node]) * c.nnodes + node;
        unit = c.units[c.first[node] + nth % c.count[node]];
        hwloc_bitmap_and(set, unit->cpuset, allowed);
        fab_describe(&c, set, out);
        snprintf(out->note, sizeof(out->note), "round robin over %d NUMA node%s: node %u, core %d",
                 c.nnodes, c.nnodes == 1 ? "" : "s", c.nodes[node]->os_index, nth % c.count[node]);
        break;
    }
    case FAB_PLACE_CORE:
        unit = hwloc_get_obj_by_type(topo, c.unit, (unsigned)(local % c.nunits));
        if (local >= c.nunits)
            shared_with = local % c.nunits;
        hwloc_bitmap_and(set, unit->cpuset, allowed);
        fab_describe(&c, set, out);
        snprintf(out->note, sizeof(out->note), "core %d in logical order", local % c.nunits);
        break;
    default:
        hwloc_bitmap_copy(set, allowed);
        fab_describe(&c, set, out);
        if (policy == FAB_PLACE_NONE)
            snprintf(out->note, sizeof(out->note), "not bound (policy none)");
        else if (!c.nic_name[0])
            snprintf(out->note, sizeof(out->note),
                     "not bound: no NIC named (--device), and auto binds only near a known NIC");
        else
            snprintf(out->note, sizeof(out->note),
                     "not bound: NIC '%s' is not in the topology (a virtual interface, or not on "
                     "this node), so its locality is unknown",
                     c.nic_name);
        break;
    }
    out->policy = used;
    if (out->remote && used != FAB_PLACE_NIC) {
        fab_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
        snprintf(out->note, sizeof(out->note),
                 "warning: policy %s puts this rank on NUMA node %d, away from %s (node %s, "
                 "distance %s); --placement nic keeps ranks near it",
                 fab_place_name(used), out->numa, c.nic_name, nodes,
                 fab_dist_str(out->distance, dist, sizeof(dist)));
    }
    if (shared_with >= 0) {
        char more[96];

        snprintf(more, sizeof(more), "; more ranks than cores: shares its core with local rank %d",
                 shared_with);
        fab_append(out->note, sizeof(out->note), more);
    }
    fab_ctx_free(&c);
    return FAB_OK;
}

/* ---------------------------------------------------------------- binding this process */

fab_status_t fab_place_apply(hwloc_topology_t topo, int policy, bool explicit_policy,
                             const char *nic, int local, int nlocal, fab_place_t *out, char *err,
                             size_t errlen)
{
    fab_place_ctx_t c;
    hwloc_bitmap_t cur = NULL, set = NULL;
    bool prebound;
    char before[128], note[sizeof(out->note)];
    int used;
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
    st = fab_ctx_init(&c, topo, nic, err, errlen);
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
    fab_list(before, sizeof(before), cur);

    if (policy == FAB_PLACE_NONE || (prebound && (policy == FAB_PLACE_AUTO || !explicit_policy))) {
        fab_describe(&c, cur, out);
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
    } else {
        st = fab_place_plan(topo, policy, nic, local, nlocal, set, out, err, errlen);
        if (st != FAB_OK)
            goto done;
        used = out->policy;
        memcpy(note, out->note, sizeof(note));
        if (used != FAB_PLACE_NONE) {
            if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) < 0) {
                char want[128];

                fab_list(want, sizeof(want), set);
                snprintf(err, errlen, "placement: binding to cpus %s failed: %s", want,
                         strerror(errno));
                st = FAB_ERR_CONFIG;
                goto done;
            }
            if (hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) < 0)
                hwloc_bitmap_copy(cur, set);
        }
        /* auto without a NIC to be near: the process stays where it is */
        fab_describe(&c, cur, out);
        out->policy = used;
        out->kept = used == FAB_PLACE_NONE && prebound;
        memcpy(out->note, note, sizeof(note));
        if (used != FAB_PLACE_NONE && prebound) {
            snprintf(note, sizeof(note),
                     "; --placement %s overrides the launcher's binding (cpus %s)",
                     fab_place_name(policy), before);
            fab_append(out->note, sizeof(out->note), note);
        }
    }
    if (out->remote && strncmp(out->note, "warning:", 8) != 0) {
        char nodes[64];

        fab_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
        snprintf(note, sizeof(note), "; warning: NUMA node %d, away from %s (node %s)", out->numa,
                 c.nic_name, nodes);
        fab_append(out->note, sizeof(out->note), note);
    }
done:
    hwloc_bitmap_free(cur);
    hwloc_bitmap_free(set);
    fab_ctx_free(&c);
    return st;
}

/* ---------------------------------------------------------------- the command */
static void fab_json_s(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static const char *fab_locality(const fab_place_ctx_t *c, hwloc_const_cpuset_t set,
                                const fab_place_t *p, char *numas, size_t len)
{
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    const char *word = "local";

    numas[0] = '\0';
    if (!ns)
        return "";
    for (int i = 0; i < c->nnodes; i++)
        if (hwloc_bitmap_intersects(c->nodes[i]->cpuset, set))
            hwloc_bitmap_set(ns, c->nodes[i]->os_index);
    fab_nodes_str(numas, len, ns);
    if (p->remote)
        word = "remote";
    else if (hwloc_bitmap_iszero(c->nic_nodes))
        word = "locality unknown";
    else if (!hwloc_bitmap_isincluded(ns, c->nic_nodes))
        word = "partly local";
    hwloc_bitmap_free(ns);
    return word;
}

static void fab_json_nics(const fab_place_ctx_t *c, FILE *out)
{
    hwloc_obj_t o = NULL;
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    int n = 0;

    fprintf(out, "  \"nics\": [");
    while (ns && (o = hwloc_get_next_osdev(c->topo, o))) {
        char nodes[64];

        if (!fab_is_nic(o))
            continue;
        fab_nic_nodes(c, o, ns);
        fab_nodes_str(nodes, sizeof(nodes), ns);
        fprintf(out, "%s\n    {\n      \"name\": ", n++ ? "," : "");
        fab_json_s(out, o->name);
        fprintf(out, ",\n      \"kind\": \"%s\",\n      \"numa_nodes\": ",
                o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS ? "openfabrics" : "network");
        if (hwloc_bitmap_iszero(ns))
            fprintf(out, "null");
        else
            fab_json_s(out, nodes);
        fprintf(out, "\n    }");
    }
    hwloc_bitmap_free(ns);
    fprintf(out, "%s],\n", n ? "\n  " : "");
}

int fab_place_command(const char *xml, int policy, const char *nic, int nlocal, bool json,
                      FILE *out, FILE *errf)
{
    hwloc_topology_t topo = NULL;
    hwloc_bitmap_t set = NULL;
    fab_place_ctx_t c;
    fab_place_t *plans = NULL;
    hwloc_bitmap_t *cpusets = NULL;
    char err[1024], nodes[64], known[512], note[1024] = "";
    const char *where = xml ? xml : "this machine";
    fab_status_t st;
    int used = FAB_PLACE_NONE, nremote = 0, rc = FAB_EXIT_OK;

    if (nlocal < 1 || policy < FAB_PLACE_AUTO || policy > FAB_PLACE_NONE) {
        fprintf(errf, "fabricbench: error: placement: %d ranks, policy %d: not a valid request\n",
                nlocal, policy);
        return FAB_EXIT_USAGE;
    }
    st = fab_topo_load(xml, &topo, err, sizeof(err));
    if (st != FAB_OK) {
        fprintf(errf, "fabricbench: error: placement: %s\n", err);
        return FAB_EXIT_ENV;
    }
    st = fab_ctx_init(&c, topo, nic, err, sizeof(err));
    if (st != FAB_OK) {
        fprintf(errf, "fabricbench: error: placement on %s: %s\n", where, err);
        hwloc_topology_destroy(topo);
        return FAB_EXIT_ENV;
    }
    fab_known_nics(&c, known, sizeof(known));
    set = hwloc_bitmap_alloc();
    plans = calloc((size_t)nlocal, sizeof(*plans));
    cpusets = calloc((size_t)nlocal, sizeof(*cpusets));
    if (!set || !plans || !cpusets) {
        fprintf(errf, "fabricbench: error: placement: out of memory\n");
        rc = FAB_EXIT_ENV;
        goto done;
    }
    for (int r = 0; r < nlocal; r++) {
        st = fab_place_plan(topo, policy, nic, r, nlocal, set, &plans[r], err, sizeof(err));
        if (st != FAB_OK) {
            fprintf(errf, "fabricbench: error: placement on %s: %s\n", where, err);
            if (st == FAB_ERR_USAGE)
                fprintf(errf, "hint: fabricbench placement --device NIC --placement nic, or "
                              "--placement auto|numa|core|none\n");
            else
                fprintf(errf, "hint: name one of those NICs with --device, or choose --placement "
                              "auto, numa, core or none\n");
            rc = st == FAB_ERR_USAGE ? FAB_EXIT_USAGE : FAB_EXIT_ENV;
            goto done;
        }
        cpusets[r] = hwloc_bitmap_dup(set);
        if (!cpusets[r]) {
            fprintf(errf, "fabricbench: error: placement: out of memory\n");
            rc = FAB_EXIT_ENV;
            goto done;
        }
        nremote += plans[r].remote;
    }
    used = plans[0].policy;
    fab_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
    if (policy == FAB_PLACE_AUTO && used == FAB_PLACE_NONE && c.nic_name[0])
        snprintf(note, sizeof(note),
                 "NIC %s is not in the topology (a virtual interface, or not on this node): its "
                 "locality is unknown and auto binds nothing (NICs in the topology: %s)",
                 c.nic_name, known);
    else if (policy == FAB_PLACE_AUTO && used == FAB_PLACE_NONE)
        snprintf(note, sizeof(note),
                 "no NIC named (--device): auto binds nothing (NICs in the topology: %s)", known);

    if (json) {
        fprintf(out, "{\n  \"topology\": ");
        if (xml)
            fab_json_s(out, xml);
        else
            fprintf(out, "null");
        fprintf(out, ",\n  \"policy_asked\": \"%s\",\n  \"policy\": \"%s\",\n  \"nic\": ",
                fab_place_name(policy), fab_place_name(used));
        if (c.nic_name[0])
            fab_json_s(out, c.nic_name);
        else
            fprintf(out, "null");
        fprintf(out, ",\n  \"nic_found\": %s,\n  \"nic_numa\": %d,\n  \"nic_numa_nodes\": ",
                c.nic ? "true" : "false", c.nic_numa);
        if (c.nic)
            fab_json_s(out, nodes);
        else
            fprintf(out, "null");
        fprintf(out, ",\n");
        fab_json_nics(&c, out);
        fprintf(out, "  \"ranks\": [");
        for (int r = 0; r < nlocal; r++) {
            char numas[64];
            const fab_place_t *p = &plans[r];

            fab_locality(&c, cpusets[r], p, numas, sizeof(numas));
            fprintf(out, "%s\n    {\n      \"rank\": %d,\n      \"cpus\": ", r ? "," : "", r);
            fab_json_s(out, p->cpus);
            fprintf(out, ",\n      \"bound\": %s,\n      \"numa\": %d,\n      \"numa_nodes\": ",
                    p->bound ? "true" : "false", p->numa);
            fab_json_s(out, numas);
            fprintf(out, ",\n      \"nic\": ");
            if (p->nic[0])
                fab_json_s(out, p->nic);
            else
                fprintf(out, "null");
            fprintf(out,
                    ",\n      \"nic_numa\": %d,\n      \"distance\": %d,\n      \"remote\": "
                    "%s,\n      \"note\": ",
                    p->nic_numa, p->distance, p->remote ? "true" : "false");
            fab_json_s(out, p->note);
            fprintf(out, "\n    }");
        }
        fprintf(out, "\n  ],\n  \"remote_ranks\": %d,\n  \"note\": ", nremote);
        if (note[0])
            fab_json_s(out, note);
        else
            fprintf(out, "null");
        fprintf(out, "\n}\n");
        goto done;
    }

    fprintf(out, "placement on %s: policy %s (asked %s), ", where, fab_place_name(used),
            fab_place_name(policy));
    if (c.nic)
        fprintf(out, "NIC %s on NUMA node%s %s", c.nic_name,
                hwloc_bitmap_weight(c.nic_nodes) == 1 ? "" : "s", nodes);
    else if (c.nic_name[0])
        fprintf(out, "NIC %s not in the topology", c.nic_name);
    else
        fprintf(out, "no NIC named");
    fprintf(out, ", %d rank%s\n", nlocal, nlocal == 1 ? "" : "s");
    if (note[0])
        fprintf(out, "note: %s\n", note);
    for (int r = 0; r < nlocal; r++) {
        char numas[64], dist[16];
        const fab_place_t *p = &plans[r];
        const char *word = fab_locality(&c, cpusets[r], p, numas, sizeof(numas));

        fprintf(out, "rank %d: cpus %s numa %s", r, p->cpus, numas);
        if (c.nic) {
            if (p->distance >= 0)
                snprintf(dist, sizeof(dist), "%d", p->distance);
            else
                snprintf(dist, sizeof(dist), "?");
            fprintf(out, " nic %s (numa %s, distance %s) %s", c.nic_name, nodes, dist, word);
            if (p->remote)
                fprintf(out, ": %s", p->note);
        } else if (c.nic_name[0]) {
            fprintf(out, " nic %s (not in the topology)", c.nic_name);
        } else {
            fprintf(out, " nic none");
        }
        fputc('\n', out);
    }
    if (nremote)
        fprintf(out, "warning: %d of %d ranks run away from %s's NUMA node%s %s\n", nremote, nlocal,
                c.nic_name, hwloc_bitmap_weight(c.nic_nodes) == 1 ? "" : "s", nodes);
    if (used != FAB_PLACE_NONE && nlocal > c.nunits)
        fprintf(out,
                "warning: %d ranks for %d cores: ranks %d and up share a core with a lower "
                "rank\n",
                nlocal, c.nunits, c.nunits);

done:
    if (cpusets)
        for (int r = 0; r < nlocal; r++)
            hwloc_bitmap_free(cpusets[r]);
    free(cpusets);
    free(plans);
    hwloc_bitmap_free(set);
    fab_ctx_free(&c);
    hwloc_topology_destroy(topo);
    return rc;
}
