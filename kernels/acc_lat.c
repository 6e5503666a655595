/* SPDX-License-Identifier: BSD-3-Clause */
/* acc_lat: osu_acc_latency's measurement with MPI_Accumulate (rma/rma.h has the window, the
 * synchronisations of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t acc_lat_spec = {"acc_lat", "osu_acc_latency", FAB_RMA_ACC, false,
                                            false};

FAB_RMA_HOOKS(acc_lat)

const fab_kernel_t fab_kernel_acc_lat = {
    .name = "acc_lat",
    .summary = "MPI_Accumulate latency (MPI_INT32_T, MPI_SUM): one call and its synchronisation "
               "per iteration (osu_acc_latency)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "4:4M",
    FAB_RMA_MEMBERS(acc_lat),
};
