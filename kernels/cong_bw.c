/* SPDX-License-Identifier: BSD-3-Clause */
/* cong_bw: GPCNeT's random-ring bandwidth, 8 x 128 KiB in flight canary, alone and under each
 * congestor pattern (cong/cong.h; docs/METRICS.md, "Congestion"). */
#include "fab_kernel.h"
#include "cong/cong.h"

FAB_CONG_HOOKS(cong_bw, FAB_CANARY_BW)

const fab_kernel_t fab_kernel_cong_bw = {
    .name = "cong_bw",
    .summary = "congestion: the random-ring bandwidth, 8 x 128 KiB in flight canary alone and "
               "under --congestor "
               "(CIF = congested / alone; GPCNeT)",
    .kind = FAB_KIND_COLLECTIVE,
    FAB_CONG_MEMBERS(cong_bw),
};
