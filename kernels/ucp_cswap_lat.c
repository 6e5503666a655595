/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_cswap_lat: ucx_perftest -t ucp_cswap's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_cswap_lat_spec = {"ucp_cswap_lat", "ucp_cswap", FAB_UCP_AMO, false,
                                                  FAB_UCP_CSWAP};

FAB_UCP_HOOKS(ucp_cswap_lat)

const fab_kernel_t fab_kernel_ucp_cswap_lat = {
    .name = "ucp_cswap_lat",
    .summary = "UCP atomic compare-and-swap latency: one 64-bit UCP_ATOMIC_OP_CSWAP per "
               "iteration, its result back (ucx_perftest -t ucp_cswap)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "8",
    FAB_UCP_MEMBERS(ucp_cswap_lat),
};
