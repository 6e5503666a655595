/* SPDX-License-Identifier: BSD-3-Clause */
/* The layer ladder (`fabricbench run ladder`, output/ladder.c): one pair through each layer
 * (the socket path, UCP, MPI two-sided, MPI one-sided), measured by the kernels it names;
 * per size each layer's median latency and bandwidth and what it adds over the layer it is
 * compared with. docs/METRICS.md "The layer ladder". */
#ifndef FAB_OUTPUT_LADDER_H
#define FAB_OUTPUT_LADDER_H

#include <stdbool.h>
#include <stdio.h>

#include "measure/sink.h"

/* Its sizes without -m. */
#define FAB_LADDER_SIZES "8,4K,64K,1M"
/* Below this share of two-sided bandwidth, one-sided bandwidth gets a note (check the osc
 * component; ompi #9508, #10573). */
#define FAB_LADDER_LOW_PCT 50.0

/* The ladder's kernels, comma-separated, in the order they run. */
const char *fab_ladder_kernels(void);
/* Whether a layer name is one of the ladder's (a kernel's .layer must be: else it would be
 * left out of the ladder without a word; unit.columns checks every kernel's). */
bool fab_ladder_knows(const char *layer);
/* The ladder's sink: keeps the ladder kernels' rows, and at each run's end prints the ladder
 * on table (NULL: none) and writes it as JSON into a buffer of its own, *json, which the run's
 * info points to (its `ladder` field, "" until the end) for the outputs after it: add it
 * before them. */
fab_status_t fab_out_ladder_sink(FILE *table, const char **json, fab_sink_t *sink);

#endif
