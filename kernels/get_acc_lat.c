/* SPDX-License-Identifier: BSD-3-Clause */
/* get_acc_lat: osu_get_acc_latency's measurement with MPI_Get_accumulate (rma/rma.h has the window,
 * the synchronisations of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t get_acc_lat_spec = {"get_acc_lat", "osu_get_acc_latency",
                                                FAB_RMA_GET_ACC, false, false};

FAB_RMA_HOOKS(get_acc_lat)

const fab_kernel_t fab_kernel_get_acc_lat = {
    .name = "get_acc_lat",
    .summary = "MPI_Get_accumulate latency (MPI_INT32_T, MPI_SUM): one call and its "
               "synchronisation per iteration (osu_get_acc_latency)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "4:4M",
    FAB_RMA_MEMBERS(get_acc_lat),
};
