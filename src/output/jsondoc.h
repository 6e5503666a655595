/* SPDX-License-Identifier: BSD-3-Clause */
/* One JSON document per invocation (output/jsondoc.c), like `iperf3 -J`: every run with its
 * metadata, kernels and rows, and its end (docs/SCHEMA.md, "The JSON document"). */
#ifndef FAB_OUTPUT_JSONDOC_H
#define FAB_OUTPUT_JSONDOC_H

#include "core/opts.h"
#include "measure/sink.h"

/* The document at path, replaced atomically as rows come (at least after every kernel), with
 * a status (running, complete, interrupted, failed); "-": printed to stdout once, when the
 * run ends (also after a stop). An existing file is refused unless --force (--append does
 * not apply: one document per invocation). */
fab_status_t fab_out_jsondoc_sink(const char *path, const fab_opts_t *o, fab_sink_t *sink);

#endif
