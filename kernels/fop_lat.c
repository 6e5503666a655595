/* SPDX-License-Identifier: BSD-3-Clause */
/* fop_lat: osu_fop_latency's measurement with MPI_Fetch_and_op (rma/rma.h has the window, the
 * synchronisations of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t fop_lat_spec = {"fop_lat", "osu_fop_latency", FAB_RMA_FOP, false,
                                            false};

FAB_RMA_HOOKS(fop_lat)

const fab_kernel_t fab_kernel_fop_lat = {
    .name = "fop_lat",
    .summary =
        "MPI_Fetch_and_op latency (one int32, MPI_SUM) with its synchronisation (osu_fop_latency)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "4",
    FAB_RMA_MEMBERS(fop_lat),
};
