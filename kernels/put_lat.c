/* SPDX-License-Identifier: BSD-3-Clause */
/* put_lat: osu_put_latency's measurement with MPI_Put (rma/rma.h has the window, the
 * synchronisations of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t put_lat_spec = {"put_lat", "osu_put_latency", FAB_RMA_PUT, false,
                                            false};

FAB_RMA_HOOKS(put_lat)

const fab_kernel_t fab_kernel_put_lat = {
    .name = "put_lat",
    .summary = "MPI_Put latency: one put of the size and its synchronisation per iteration "
               "(--rma-sync, default flush; osu_put_latency)",
    .kind = FAB_KIND_LATENCY,
    .layer = "mpi_put",
    FAB_RMA_MEMBERS(put_lat),
};
