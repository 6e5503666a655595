/* SPDX-License-Identifier: BSD-3-Clause */
/* cas_lat: osu_cas_latency's measurement with MPI_Compare_and_swap (rma/rma.h has the window, the
 * synchronisations of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t cas_lat_spec = {"cas_lat", "osu_cas_latency", FAB_RMA_CAS, false,
                                            false};

FAB_RMA_HOOKS(cas_lat)

const fab_kernel_t fab_kernel_cas_lat = {
    .name = "cas_lat",
    .summary =
        "MPI_Compare_and_swap latency (one int32) with its synchronisation (osu_cas_latency)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "4",
    FAB_RMA_MEMBERS(cas_lat),
};
