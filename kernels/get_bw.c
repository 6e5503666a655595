/* SPDX-License-Identifier: BSD-3-Clause */
/* get_bw: osu_get_bw's measurement with MPI_Get (rma/rma.h has the window, the synchronisations
 * of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t get_bw_spec = {"get_bw", "osu_get_bw", FAB_RMA_GET, true, false};

FAB_RMA_HOOKS(get_bw)

const fab_kernel_t fab_kernel_get_bw = {
    .name = "get_bw",
    .summary = "MPI_Get bandwidth: a window of gets (-w) and one synchronisation per iteration "
               "(--rma-sync, default flush; osu_get_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    FAB_RMA_MEMBERS(get_bw),
};
