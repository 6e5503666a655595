/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_am_lat: ucx_perftest -t ucp_am_lat's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_am_lat_spec = {"ucp_am_lat", "ucp_am_lat", FAB_UCP_AM, false,
                                               FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_am_lat)

const fab_kernel_t fab_kernel_ucp_am_lat = {
    .name = "ucp_am_lat",
    .summary = "UCP active message latency: ping-pong of ucp_am_send_nbx, half the round trip "
               "(ucx_perftest -t ucp_am_lat)",
    .kind = FAB_KIND_LATENCY,
    .p2p = &(const fab_kp2p_t){.time_divisor = 2.0},
    FAB_UCP_MEMBERS(ucp_am_lat),
};
