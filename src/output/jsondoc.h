/* SPDX-License-Identifier: BSD-3-Clause */
/* One JSON document per invocation (output/jsondoc.c), like `iperf3 -J`: every run with its
 * metadata, kernels and rows, and its end (docs/SCHEMA.md, "The JSON document"). */
#ifndef FAB_OUTPUT_JSONDOC_H
#define FAB_OUTPUT_JSONDOC_H

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/outopts.h"
#include "measure/sink.h"

/* The document at path, replaced atomically as rows come (at least after every kernel), with
 * a status (running, complete, interrupted, failed); "-": printed to stdout once, when the
 * run ends (also after a stop). An existing file is refused unless --force (--append does
 * not apply: one document per invocation). */
fab_status_t fab_out_jsondoc_sink(const char *path, const fab_launchopts_t *lopt,
                                  const fab_measopts_t *mopt, const fab_outopts_t *oopt,
                                  fab_sink_t *sink);

#endif
