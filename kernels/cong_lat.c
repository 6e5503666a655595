/* SPDX-License-Identifier: BSD-3-Clause */
/* cong_lat: GPCNeT's random-ring latency, 8 B canary, alone and under each congestor pattern
 * (cong/cong.h; docs/METRICS.md, "Congestion"). */
#include "fab_kernel.h"
#include "cong/cong.h"

FAB_CONG_HOOKS(cong_lat, FAB_CANARY_LAT)

const fab_kernel_t fab_kernel_cong_lat = {
    .name = "cong_lat",
    .summary = "congestion: the random-ring latency, 8 B canary alone and under --congestor "
               "(CIF = congested / alone; GPCNeT)",
    .kind = FAB_KIND_COLLECTIVE,
    FAB_CONG_MEMBERS(cong_lat),
};
