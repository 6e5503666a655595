/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_add_lat: ucx_perftest -t ucp_add's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_add_lat_spec = {"ucp_add_lat", "ucp_add", FAB_UCP_AMO, false,
                                                FAB_UCP_ADD};

FAB_UCP_HOOKS(ucp_add_lat)

const fab_kernel_t fab_kernel_ucp_add_lat = {
    .name = "ucp_add_lat",
    .summary = "UCP atomic add latency: one 64-bit UCP_ATOMIC_OP_ADD and ucp_ep_flush_nbx per "
               "iteration, whole (ucx_perftest -t ucp_add)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "8",
    FAB_UCP_MEMBERS(ucp_add_lat),
};
