/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_get_bw: ucx_perftest -t ucp_get's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_get_bw_spec = {"ucp_get_bw", "ucp_get", FAB_UCP_GET, true,
                                               FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_get_bw)

const fab_kernel_t fab_kernel_ucp_get_bw = {
    .name = "ucp_get_bw",
    .summary = "UCP get bandwidth: a window of ucp_get_nbx (-w) and ucp_ep_flush_nbx per "
               "iteration (ucx_perftest -t ucp_get)",
    .kind = FAB_KIND_BANDWIDTH,
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    FAB_UCP_MEMBERS_OPTS(ucp_get_bw, &fab_ucp_rma_bw_kopts),
};
