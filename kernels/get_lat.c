/* SPDX-License-Identifier: BSD-3-Clause */
/* get_lat: osu_get_latency's measurement with MPI_Get (rma/rma.h has the window, the
 * synchronisations of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t get_lat_spec = {"get_lat", "osu_get_latency", FAB_RMA_GET, false,
                                            false};

FAB_RMA_HOOKS(get_lat)

const fab_kernel_t fab_kernel_get_lat = {
    .name = "get_lat",
    .summary = "MPI_Get latency: one get of the size and its synchronisation per iteration "
               "(--rma-sync, default flush; osu_get_latency)",
    .kind = FAB_KIND_LATENCY,
    .layer = "mpi_get",
    FAB_RMA_MEMBERS(get_lat),
};
