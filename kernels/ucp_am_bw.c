/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_am_bw: ucx_perftest -t ucp_am_bw's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_am_bw_spec = {"ucp_am_bw", "ucp_am_bw", FAB_UCP_AM, true,
                                              FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_am_bw)

const fab_kernel_t fab_kernel_ucp_am_bw = {
    .name = "ucp_am_bw",
    .summary = "UCP active message bandwidth: a window of ucp_am_send_nbx (-w) and the "
               "receiver's acknowledgement per iteration (ucx_perftest -t ucp_am_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    FAB_UCP_MEMBERS(ucp_am_bw),
};
