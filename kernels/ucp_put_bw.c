/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_put_bw: ucx_perftest -t ucp_put_bw's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_put_bw_spec = {"ucp_put_bw", "ucp_put_bw", FAB_UCP_PUT, true,
                                               FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_put_bw)

const fab_kernel_t fab_kernel_ucp_put_bw = {
    .name = "ucp_put_bw",
    .summary = "UCP put bandwidth: a window of ucp_put_nbx (-w) and ucp_ep_flush_nbx per "
               "iteration (ucx_perftest -t ucp_put_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .layer = "ucp_put",
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    FAB_UCP_MEMBERS_OPTS(ucp_put_bw, &fab_ucp_rma_bw_kopts),
};
