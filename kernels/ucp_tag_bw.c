/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_tag_bw: ucx_perftest -t tag_bw's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_tag_bw_spec = {"ucp_tag_bw", "tag_bw", FAB_UCP_TAG, true,
                                               FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_tag_bw)

const fab_kernel_t fab_kernel_ucp_tag_bw = {
    .name = "ucp_tag_bw",
    .summary = "UCP tag bandwidth: a window of ucp_tag_send_nbx (-w) and one acknowledgement "
               "per iteration (ucx_perftest -t tag_bw)",
    .kind = FAB_KIND_BANDWIDTH,
    .layer = "ucp_tag",
    .p2p = &(const fab_kp2p_t){.uses_window = true},
    FAB_UCP_MEMBERS(ucp_tag_bw),
};
