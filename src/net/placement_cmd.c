/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench placement`: where the ranks of a node would be bound, near which NIC, as
 * lines or JSON (the golden tests compare both exactly). */
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "net/placement.h"
#include "net/topology.h"

static const char *fab_locality(const fab_topo_ctx_t *c, hwloc_const_cpuset_t set,
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
    fab_topo_nodes_str(numas, len, ns);
    if (p->remote)
        word = "remote";
    else if (hwloc_bitmap_iszero(c->nic_nodes))
        word = "locality unknown";
    else if (!hwloc_bitmap_isincluded(ns, c->nic_nodes))
        word = "partly local";
    hwloc_bitmap_free(ns);
    return word;
}

static void fab_json_nics(const fab_topo_ctx_t *c, FILE *out)
{
    hwloc_obj_t o = NULL;
    hwloc_nodeset_t ns = hwloc_bitmap_alloc();
    int n = 0;

    fprintf(out, "  \"nics\": [");
    while (ns && (o = hwloc_get_next_osdev(c->topo, o))) {
        char nodes[64];

        if (!fab_topo_is_nic(o))
            continue;
        fab_topo_nic_nodes(c, o, ns);
        fab_topo_nodes_str(nodes, sizeof(nodes), ns);
        fprintf(out, "%s\n    {\n      \"name\": ", n++ ? "," : "");
        fab_json_str(out, o->name);
        fprintf(out, ",\n      \"kind\": \"%s\",\n      \"numa_nodes\": ",
                o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS ? "openfabrics" : "network");
        if (hwloc_bitmap_iszero(ns))
            fprintf(out, "null");
        else
            fab_json_str(out, nodes);
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
    fab_topo_ctx_t c;
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
    st = fab_topo_load(xml, true, &topo, err, sizeof(err));
    if (st != FAB_OK) {
        fprintf(errf, "fabricbench: error: placement: %s\n", err);
        return FAB_EXIT_ENV;
    }
    st = fab_topo_ctx_init(&c, topo, nic, err, sizeof(err));
    if (st != FAB_OK) {
        fprintf(errf, "fabricbench: error: placement on %s: %s\n", where, err);
        hwloc_topology_destroy(topo);
        return FAB_EXIT_ENV;
    }
    fab_topo_known_nics(&c, known, sizeof(known));
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
    fab_topo_nodes_str(nodes, sizeof(nodes), c.nic_nodes);
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
            fab_json_str(out, xml);
        else
            fprintf(out, "null");
        fprintf(out, ",\n  \"policy_asked\": \"%s\",\n  \"policy\": \"%s\",\n  \"nic\": ",
                fab_place_name(policy), fab_place_name(used));
        if (c.nic_name[0])
            fab_json_str(out, c.nic_name);
        else
            fprintf(out, "null");
        fprintf(out, ",\n  \"nic_found\": %s,\n  \"nic_numa\": %d,\n  \"nic_numa_nodes\": ",
                c.nic ? "true" : "false", c.nic_numa);
        if (c.nic)
            fab_json_str(out, nodes);
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
            fab_json_str(out, p->cpus);
            fprintf(out, ",\n      \"bound\": %s,\n      \"numa\": %d,\n      \"numa_nodes\": ",
                    p->bound ? "true" : "false", p->numa);
            fab_json_str(out, numas);
            fprintf(out, ",\n      \"nic\": ");
            if (p->nic[0])
                fab_json_str(out, p->nic);
            else
                fprintf(out, "null");
            fprintf(out,
                    ",\n      \"nic_numa\": %d,\n      \"distance\": %d,\n      \"remote\": "
                    "%s,\n      \"note\": ",
                    p->nic_numa, p->distance, p->remote ? "true" : "false");
            fab_json_str(out, p->note);
            fprintf(out, "\n    }");
        }
        fprintf(out, "\n  ],\n  \"remote_ranks\": %d,\n  \"note\": ", nremote);
        if (note[0])
            fab_json_str(out, note);
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
    fab_topo_ctx_free(&c);
    hwloc_topology_destroy(topo);
    return rc;
}
