/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_swap_lat: ucx_perftest -t ucp_swap's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_swap_lat_spec = {"ucp_swap_lat", "ucp_swap", FAB_UCP_AMO, false,
                                                 FAB_UCP_SWAP};

FAB_UCP_HOOKS(ucp_swap_lat)

const fab_kernel_t fab_kernel_ucp_swap_lat = {
    .name = "ucp_swap_lat",
    .summary = "UCP atomic swap latency: one 64-bit UCP_ATOMIC_OP_SWAP per iteration, its "
               "result back (ucx_perftest -t ucp_swap)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "8",
    FAB_UCP_MEMBERS(ucp_swap_lat),
};
