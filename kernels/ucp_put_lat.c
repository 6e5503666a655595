/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_put_lat: ucx_perftest -t ucp_put_lat's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_put_lat_spec = {"ucp_put_lat", "ucp_put_lat", FAB_UCP_PUT, false,
                                                FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_put_lat)

const fab_kernel_t fab_kernel_ucp_put_lat = {
    .name = "ucp_put_lat",
    .summary = "UCP put latency: ping-pong of ucp_put_nbx, arrival seen by the last byte, half "
               "the round trip (ucx_perftest -t ucp_put_lat)",
    .kind = FAB_KIND_LATENCY,
    .layer = "ucp_put",
    .p2p = &(const fab_kp2p_t){.time_divisor = 2.0},
    FAB_UCP_MEMBERS(ucp_put_lat),
};
