/* SPDX-License-Identifier: BSD-3-Clause */
/* put_bw: osu_put_bw's measurement with MPI_Put (rma/rma.h has the window, the synchronisations
 * of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t put_bw_spec = {"put_bw", "osu_put_bw", FAB_RMA_PUT, true, false};

FAB_RMA_HOOKS(put_bw)

const fab_kernel_t fab_kernel_put_bw = {
    .name = "put_bw",
    .summary = "MPI_Put bandwidth: a window of puts (-w) and one synchronisation per iteration "
               "(--rma-sync, default flush; osu_put_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .layer = "mpi_put",
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    FAB_RMA_MEMBERS(put_bw),
};
