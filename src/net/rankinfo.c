/* SPDX-License-Identifier: BSD-3-Clause */
/* Between MPI_Init and the first measurement: bind the ranks (--placement) and gather what
 * the result file records about each host (its inventory) and each rank (where it runs). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/log.h"
#include "core/mpi_call.h"
#include "core/netopts.h"
#include "core/status.h"
#include "core/world.h"
#include "net/fabric.h"
#include "net/inventory.h"
#include "net/placement.h"
#include "net/rankinfo.h"
#include "net/runinfo.h"
#include "net/topology.h"

#define FAB_PLACE_LINE 320

fab_status_t fab_setup_placement(const fab_world_t *w, const fab_netopts_t *o,
                                 const fab_fabric_t *fb, fab_run_info_t *info)
{
    hwloc_topology_t topo = NULL;
    fab_place_t pl;
    int local = w->local_rank, nlocal = w->local_ranks, remote = 0, nremote = 0;
    char err[256] = "", hint[256] = "", line[FAB_PLACE_LINE], *all = NULL;
    const char *nic = fb && fb->device[0] ? fb->device : NULL;
    fab_status_t st;

#ifdef FAB_SIM
    /* Binding would bind the whole simulator, and the real machine's placement says nothing
     * of a simulated rank (core/sim.h): no placement lines. */
    (void)w, (void)o, (void)fb, (void)info;
    return FAB_OK;
#endif
    memset(&pl, 0, sizeof(pl));
    st = fab_topo_load(NULL, nic || o->placement == FAB_PLACE_NIC, &topo, err, sizeof(err));
    if (st == FAB_OK)
        st = fab_place_apply(topo, o->placement, o->placement_set, nic, local, nlocal, &pl, err,
                             sizeof(err));
    if (st != FAB_OK)
        snprintf(hint, sizeof(hint),
                 "'fabricbench placement --device NIC' shows what hwloc sees; --placement none "
                 "leaves the binding to mpirun/srun");
    if (topo)
        hwloc_topology_destroy(topo);
    st = fab_agree_msg(w, st, err, hint);
    if (st != FAB_OK)
        return st;

    if (snprintf(line, sizeof(line), "rank %d %s: cpus %s, NUMA %d, %s %s", w->rank, w->host,
                 pl.cpus[0] ? pl.cpus : "?", pl.numa, fab_place_name(pl.policy),
                 pl.kept    ? "(launcher's binding kept)"
                 : pl.bound ? "(bound here)"
                            : "(not bound)") < 0)
        line[0] = '\0';
    if (pl.nic[0]) {
        size_t n = strlen(line);

        if (snprintf(line + n, sizeof(line) - n, "; NIC %s on NUMA %d, distance %d%s", pl.nic,
                     pl.nic_numa, pl.distance, pl.remote ? ", REMOTE" : "") < 0)
            line[n] = '\0';
    }
    remote = pl.remote;
    if (w->rank == 0) {
        all = malloc((size_t)w->size * FAB_PLACE_LINE);
        if (!all)
            return FAB_ERR_NOMEM;
    }
    st = FAB_MPI(MPI_Gather(line, FAB_PLACE_LINE, MPI_CHAR, all, FAB_PLACE_LINE, MPI_CHAR, 0,
                            MPI_COMM_WORLD));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Reduce(&remote, &nremote, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (st != FAB_OK || w->rank != 0) {
        free(all);
        return st;
    }
    info->placement = calloc((size_t)w->size, sizeof(char *));
    for (int r = 0; info->placement && r < w->size; r++)
        info->placement[r] = strndup(all + (size_t)r * FAB_PLACE_LINE, FAB_PLACE_LINE - 1);
    free(all);
    info->nwarn_remote = nremote;
    if (nremote > 0)
        FAB_WARN("%d rank%s run on another NUMA node than NIC %s: the results include the "
                 "cross-socket path (see the placement lines of the header)",
                 nremote, nremote == 1 ? "" : "s", nic ? nic : "?");
    return info->placement ? FAB_OK : FAB_ERR_NOMEM;
}

fab_status_t fab_setup_inventory(const fab_world_t *w, const fab_netopts_t *o, fab_run_info_t *info)
{
    int len = 0, *lens = NULL, *offs = NULL;
    char *mine = NULL, *all = NULL, err[256] = "";
    size_t mlen = 0;
    fab_status_t st = FAB_OK;

#ifdef FAB_SIM
    (void)w, (void)o, (void)info; /* the simulated hosts have no inventory (core/sim.h) */
    return FAB_OK;
#endif
    /* Each host's first rank (its leader) scans it; the others add nothing to the gather
     * (one gather over every rank: no communicator of leaders to make). */
    if (w->local_rank == 0) {
        fab_inventory_t *inv = calloc(1, sizeof(*inv));
        FILE *f = open_memstream(&mine, &mlen);

        if (inv && f) {
            fab_json_str(f, w->host);
            fprintf(f, ": ");
            if (fab_inventory_scan(o->sysfs_root, inv, err, sizeof(err)) == FAB_OK)
                fab_inventory_json(inv, f);
            else
                fprintf(f, "{\"error\": \"cannot read the inventory\"}");
        }
        if (f)
            fclose(f);
        free(inv);
        if (!mine)
            mlen = 0;
    }
    len = (int)mlen;
    if (w->rank == 0) {
        lens = calloc((size_t)w->size, sizeof(int));
        offs = calloc((size_t)w->size, sizeof(int));
        if (!lens || !offs)
            st = FAB_ERR_NOMEM;
    }
    /* rank 0 alone may have failed: agreed before anyone waits in the gather */
    st = fab_agree(st, MPI_COMM_WORLD);
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (st == FAB_OK && w->rank == 0) {
        int total = 0;

        for (int i = 0; i < w->size; i++) {
            offs[i] = total;
            total += lens[i];
        }
        all = malloc((size_t)total + 1);
        if (!all)
            st = FAB_ERR_NOMEM;
    }
    if (st == FAB_OK)
        st =
            FAB_MPI(MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (st == FAB_OK && w->rank == 0) {
        FILE *f = open_memstream(&info->inventory_json, &mlen);

        if (f) {
            bool first = true;

            fprintf(f, "{");
            for (int i = 0; i < w->size; i++)
                if (lens[i] > 0) { /* the hosts' leaders, in rank order */
                    fprintf(f, "%s%.*s", first ? "" : ", ", lens[i], all + offs[i]);
                    first = false;
                }
            fprintf(f, "}");
            fclose(f);
            if (info->inventory_json)
                fab_json_compact(info->inventory_json);
        }
    }
    free(mine);
    free(all);
    free(lens);
    free(offs);
    return st;
}
