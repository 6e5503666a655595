/* SPDX-License-Identifier: BSD-3-Clause */
/* Between MPI_Init and the first measurement (net/rankinfo.c): each rank bound as
 * --placement says, and what the run record keeps of each rank and host gathered on rank 0. */
#ifndef FAB_NET_RANKINFO_H
#define FAB_NET_RANKINFO_H

#include "core/netopts.h"
#include "core/status.h"
#include "core/world.h"
#include "net/runinfo.h"

/* Collective over MPI_COMM_WORLD. Bind each rank as --placement says (near fb's device), and gather
 * one line per rank into info->placement on rank 0. */
fab_status_t fab_setup_placement(const fab_world_t *w, const fab_netopts_t *o,
                                 const struct fab_fabric *fb, fab_run_info_t *info);
/* Gather each host's inventory (JSON, one rank per host) into info->inventory_json on rank 0. */
fab_status_t fab_setup_inventory(const fab_world_t *w, const fab_netopts_t *o,
                                 fab_run_info_t *info);

#endif
