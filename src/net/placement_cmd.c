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

/* What the command plans and prints: each local rank's place and its cpuset, under the policy
 * asked and the one used. */
typedef struct fab_place_cmd {
    fab_topo_ctx_t c;
    int policy, used, nlocal, nremote;
    fab_place_t *plans;
    hwloc_bitmap_t *cpusets;
    const char *xml, *where;
    char nodes[64], known[512], note[1024]; /* the NIC's NUMA nodes, the NICs there are */
} fab_place_cmd_t;

/* Every local rank's place (pc->plans, pc->cpusets); an exit code other than FAB_EXIT_OK, said
 * on errf, when one cannot be placed. */
static int fab_place_ranks(fab_place_cmd_t *pc, hwloc_topology_t topo, const char *nic, FILE *errf)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char err[1024];
    int rc = FAB_EXIT_OK;

    for (int r = 0; set && r < pc->nlocal && rc == FAB_EXIT_OK; r++) {
        fab_status_t st = fab_place_plan(topo, pc->policy, nic, r, pc->nlocal, set, &pc->plans[r],
                                         err, sizeof(err));

        if (st != FAB_OK) {
            fprintf(errf, "fabricbench: error: placement on %s: %s\n", pc->where, err);
            if (st == FAB_ERR_USAGE)
                fprintf(errf, "hint: fabricbench placement --device NIC --placement nic, or "
                              "--placement auto|numa|core|none\n");
            else
                fprintf(errf, "hint: name one of those NICs with --device, or choose --placement "
                              "auto, numa, core or none\n");
            rc = st == FAB_ERR_USAGE ? FAB_EXIT_USAGE : FAB_EXIT_ENV;
            break;
        }
        pc->cpusets[r] = hwloc_bitmap_dup(set);
        if (!pc->cpusets[r]) {
            fprintf(errf, "fabricbench: error: placement: out of memory\n");
            rc = FAB_EXIT_ENV;
        }
        pc->nremote += pc->plans[r].remote;
    }
    if (!set) {
        fprintf(errf, "fabricbench: error: placement: out of memory\n");
        rc = FAB_EXIT_ENV;
    }
    hwloc_bitmap_free(set);
    return rc;
}

/* Why auto binds nothing, into pc->note (or nothing). */
static void fab_place_note(fab_place_cmd_t *pc)
{
    if (pc->policy != FAB_PLACE_AUTO || pc->used != FAB_PLACE_NONE)
        return;
    if (pc->c.nic_name[0])
        snprintf(pc->note, sizeof(pc->note),
                 "NIC %s is not in the topology (a virtual interface, or not on this node): its "
                 "locality is unknown and auto binds nothing (NICs in the topology: %s)",
                 pc->c.nic_name, pc->known);
    else
        snprintf(pc->note, sizeof(pc->note),
                 "no NIC named (--device): auto binds nothing (NICs in the topology: %s)",
                 pc->known);
}

/* A string, or null when it is empty. */
static void fab_json_str_or_null(FILE *out, const char *s)
{
    if (s && s[0])
        fab_json_str(out, s);
    else
        fprintf(out, "null");
}

static void fab_place_json_rank(const fab_place_cmd_t *pc, int r, FILE *out)
{
    const fab_place_t *p = &pc->plans[r];
    char numas[64];

    fab_locality(&pc->c, pc->cpusets[r], p, numas, sizeof(numas));
    fprintf(out, "%s\n    {\n      \"rank\": %d,\n      \"cpus\": ", r ? "," : "", r);
    fab_json_str(out, p->cpus);
    fprintf(out, ",\n      \"bound\": %s,\n      \"numa\": %d,\n      \"numa_nodes\": ",
            p->bound ? "true" : "false", p->numa);
    fab_json_str(out, numas);
    fprintf(out, ",\n      \"nic\": ");
    fab_json_str_or_null(out, p->nic);
    fprintf(out,
            ",\n      \"nic_numa\": %d,\n      \"distance\": %d,\n      \"remote\": "
            "%s,\n      \"note\": ",
            p->nic_numa, p->distance, p->remote ? "true" : "false");
    fab_json_str(out, p->note);
    fprintf(out, "\n    }");
}

static void fab_place_json(const fab_place_cmd_t *pc, FILE *out)
{
    fprintf(out, "{\n  \"topology\": ");
    if (pc->xml)
        fab_json_str(out, pc->xml);
    else
        fprintf(out, "null");
    fprintf(out, ",\n  \"policy_asked\": \"%s\",\n  \"policy\": \"%s\",\n  \"nic\": ",
            fab_place_name(pc->policy), fab_place_name(pc->used));
    fab_json_str_or_null(out, pc->c.nic_name);
    fprintf(out, ",\n  \"nic_found\": %s,\n  \"nic_numa\": %d,\n  \"nic_numa_nodes\": ",
            pc->c.nic ? "true" : "false", pc->c.nic_numa);
    if (pc->c.nic)
        fab_json_str(out, pc->nodes);
    else
        fprintf(out, "null");
    fprintf(out, ",\n");
    fab_json_nics(&pc->c, out);
    fprintf(out, "  \"ranks\": [");
    for (int r = 0; r < pc->nlocal; r++)
        fab_place_json_rank(pc, r, out);
    fprintf(out, "\n  ],\n  \"remote_ranks\": %d,\n  \"note\": ", pc->nremote);
    fab_json_str_or_null(out, pc->note);
    fprintf(out, "\n}\n");
}

static void fab_place_text_rank(const fab_place_cmd_t *pc, int r, FILE *out)
{
    const fab_topo_ctx_t *c = &pc->c;
    const fab_place_t *p = &pc->plans[r];
    char numas[64], dist[16];
    const char *word = fab_locality(c, pc->cpusets[r], p, numas, sizeof(numas));

    fprintf(out, "rank %d: cpus %s numa %s", r, p->cpus, numas);
    if (c->nic) {
        if (p->distance >= 0)
            snprintf(dist, sizeof(dist), "%d", p->distance);
        else
            snprintf(dist, sizeof(dist), "?");
        fprintf(out, " nic %s (numa %s, distance %s) %s", c->nic_name, pc->nodes, dist, word);
        if (p->remote)
            fprintf(out, ": %s", p->note);
    } else if (c->nic_name[0]) {
        fprintf(out, " nic %s (not in the topology)", c->nic_name);
    } else {
        fprintf(out, " nic none");
    }
    fputc('\n', out);
}

static void fab_place_text(const fab_place_cmd_t *pc, FILE *out)
{
    const fab_topo_ctx_t *c = &pc->c;
    int nlocal = pc->nlocal;

    fprintf(out, "placement on %s: policy %s (asked %s), ", pc->where, fab_place_name(pc->used),
            fab_place_name(pc->policy));
    if (c->nic)
        fprintf(out, "NIC %s on NUMA node%s %s", c->nic_name,
                hwloc_bitmap_weight(c->nic_nodes) == 1 ? "" : "s", pc->nodes);
    else if (c->nic_name[0])
        fprintf(out, "NIC %s not in the topology", c->nic_name);
    else
        fprintf(out, "no NIC named");
    fprintf(out, ", %d rank%s\n", nlocal, nlocal == 1 ? "" : "s");
    if (pc->note[0])
        fprintf(out, "note: %s\n", pc->note);
    for (int r = 0; r < nlocal; r++)
        fab_place_text_rank(pc, r, out);
    if (pc->nremote)
        fprintf(out, "warning: %d of %d ranks run away from %s's NUMA node%s %s\n", pc->nremote,
                nlocal, c->nic_name, hwloc_bitmap_weight(c->nic_nodes) == 1 ? "" : "s", pc->nodes);
    if (pc->used != FAB_PLACE_NONE && nlocal > c->nunits)
        fprintf(out,
                "warning: %d ranks for %d cores: ranks %d and up share a core with a lower "
                "rank\n",
                nlocal, c->nunits, c->nunits);
}

int fab_place_command(const char *xml, int policy, const char *nic, int nlocal, bool json,
                      FILE *out, FILE *errf)
{
    fab_place_cmd_t pc = {.policy = policy, .used = FAB_PLACE_NONE, .nlocal = nlocal, .xml = xml};
    hwloc_topology_t topo = NULL;
    char err[1024];
    fab_status_t st;
    int rc;

    pc.where = xml ? xml : "this machine";
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
    st = fab_topo_ctx_init(&pc.c, topo, nic, err, sizeof(err));
    if (st != FAB_OK) {
        fprintf(errf, "fabricbench: error: placement on %s: %s\n", pc.where, err);
        hwloc_topology_destroy(topo);
        return FAB_EXIT_ENV;
    }
    fab_topo_known_nics(&pc.c, pc.known, sizeof(pc.known));
    pc.plans = calloc((size_t)nlocal, sizeof(*pc.plans));
    pc.cpusets = calloc((size_t)nlocal, sizeof(*pc.cpusets));
    if (!pc.plans || !pc.cpusets) {
        fprintf(errf, "fabricbench: error: placement: out of memory\n");
        rc = FAB_EXIT_ENV;
    } else {
        rc = fab_place_ranks(&pc, topo, nic, errf);
    }
    if (rc == FAB_EXIT_OK) {
        pc.used = pc.plans[0].policy;
        fab_topo_nodes_str(pc.nodes, sizeof(pc.nodes), pc.c.nic_nodes);
        fab_place_note(&pc);
        if (json)
            fab_place_json(&pc, out);
        else
            fab_place_text(&pc, out);
    }
    if (pc.cpusets)
        for (int r = 0; r < nlocal; r++)
            hwloc_bitmap_free(pc.cpusets[r]);
    free(pc.cpusets);
    free(pc.plans);
    fab_topo_ctx_free(&pc.c);
    hwloc_topology_destroy(topo);
    return rc;
}
