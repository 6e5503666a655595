/* SPDX-License-Identifier: BSD-3-Clause */
/* cong_allreduce: GPCNeT's allreduce of 8 B canary, alone and under each congestor pattern
 * (cong/cong.h; docs/METRICS.md, "Congestion"). */
#include "fab_kernel.h"
#include "cong/cong.h"

FAB_CONG_HOOKS(cong_allreduce, FAB_CANARY_ALLREDUCE)

const fab_kernel_t fab_kernel_cong_allreduce = {
    .name = "cong_allreduce",
    .summary = "congestion: the allreduce of 8 B canary alone and under --congestor "
               "(CIF = congested / alone; GPCNeT)",
    .kind = FAB_KIND_COLLECTIVE,
    FAB_CONG_MEMBERS(cong_allreduce),
};
