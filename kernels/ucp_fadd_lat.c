/* SPDX-License-Identifier: BSD-3-Clause */
/* ucp_fadd_lat: ucx_perftest -t ucp_fadd's measurement with UCX directly (ucp/ucp.h has the
 * context, the endpoint bootstrapped through MPI, the waits and the validation;
 * docs/METRICS.md, "UCP kernels"). */
#include "fab_kernel.h"
#include "ucp/ucp.h"

static const fab_ucp_spec_t ucp_fadd_lat_spec = {"ucp_fadd_lat", "ucp_fadd", FAB_UCP_AMO, false,
                                                 FAB_UCP_FADD};

FAB_UCP_HOOKS(ucp_fadd_lat)

const fab_kernel_t fab_kernel_ucp_fadd_lat = {
    .name = "ucp_fadd_lat",
    .summary = "UCP atomic fetch-and-add latency: one 64-bit fetching UCP_ATOMIC_OP_ADD per "
               "iteration, its result back (ucx_perftest -t ucp_fadd)",
    .kind = FAB_KIND_LATENCY,
    .default_sizes = "8",
    FAB_UCP_MEMBERS(ucp_fadd_lat),
};
