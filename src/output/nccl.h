/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives' rows in nccl-tests' layout (output/nccl.c), for the scripts and dashboards
 * that read nccl-tests: --format nccl-tests (its text table: size, count, type, redop, root,
 * then time, algbw, busbw, #wrong out of place and in place) or --format nccl-json (its JSON
 * document's keys). docs/METRICS.md, "nccl-tests' options and formats", has the mapping. */
#ifndef FAB_OUTPUT_NCCL_H
#define FAB_OUTPUT_NCCL_H

#include <stdio.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/outopts.h"
#include "measure/sink.h"

/* The format oopt->format names on f, the time -a chose (oopt->average); lopt: the run's
 * instances (an in-place instance right after its out-of-place one shares its lines). */
fab_status_t fab_out_nccl_sink(FILE *f, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                               const fab_outopts_t *oopt, fab_sink_t *sink);
/* One row's time in nccl-tests' sense (-a: rank 0's, the mean, least or largest of the ranks'
 * own means), seconds; NaN when the row has none. */
double fab_nccl_time(const fab_row_t *r, int average);
/* A number in w characters as nccl-tests' columns show it: two decimals while they fit, then
 * one, none, and an exponent beyond. */
void fab_nccl_num(char *buf, size_t len, double v, int w);

#endif
