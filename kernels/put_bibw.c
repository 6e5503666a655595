/* SPDX-License-Identifier: BSD-3-Clause */
/* put_bibw: osu_put_bibw's measurement with MPI_Put (rma/rma.h has the window, the synchronisations
 * of --rma-sync and the validation; docs/METRICS.md, "One-sided kernels"). */
#include "fab_kernel.h"
#include "rma/rma.h"

static const fab_rma_spec_t put_bibw_spec = {"put_bibw", "osu_put_bibw", FAB_RMA_PUT, true, true};

FAB_RMA_HOOKS(put_bibw)

const fab_kernel_t fab_kernel_put_bibw = {
    .name = "put_bibw",
    .summary = "MPI_Put bidirectional bandwidth: a window of puts each way in one active-target "
               "epoch (--rma-sync pscw or fence; osu_put_bibw)",
    .kind = FAB_KIND_BANDWIDTH,
    .p2p = &(const fab_kp2p_t){.uses_window = true, .duplex = true},
    FAB_RMA_MEMBERS(put_bibw),
};
