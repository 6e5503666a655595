/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_get_lat: ucx_perftest -t ucp_get's latency (one operation outstanding) with UCX directly
 * (ucp/ucp.h has the context, the endpoint bootstrapped through MPI, the waits and the
 * validation; docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_get_lat_spec = {"ucp_get_lat", "ucp_get", FAB_UCP_GET, false,
                                                FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_get_lat)

const fab_kernel_t fab_kernel_ucp_get_lat = {
    .name = "ucp_get_lat",
    .summary = "UCP get latency: one ucp_get_nbx and its completion per iteration, the whole "
               "round trip (ucx_perftest -t ucp_get -O 1)",
    .kind = FAB_KIND_LATENCY,
    .layer = "ucp_get",
    FAB_UCP_MEMBERS(ucp_get_lat),
};
