/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_tag_lat: ucx_perftest -t tag_lat's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_tag_lat_spec = {"ucp_tag_lat", "tag_lat", FAB_UCP_TAG, false,
                                                FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_tag_lat)

const fab_kernel_t fab_kernel_ucp_tag_lat = {
    .name = "ucp_tag_lat",
    .summary = "UCP tag latency: ping-pong of ucp_tag_send_nbx/ucp_tag_recv_nbx, half the "
               "round trip (ucx_perftest -t tag_lat)",
    .kind = FAB_KIND_LATENCY,
    .layer = "ucp_tag",
    .p2p = &(const fab_kp2p_t){.time_divisor = 2.0},
    FAB_UCP_MEMBERS(ucp_tag_lat),
};
