/* SPDX-License-Identifier: BSD-3-Clause */
/* A Prometheus textfile for node-exporter's textfile collector (output/prom.c): the latest
 * run's rows as gauges in base units, and run-level metrics (status, exit code, when it
 * ended), README "Monitoring" and docs/SCHEMA.md "The Prometheus textfile". */
#ifndef FAB_OUTPUT_PROM_H
#define FAB_OUTPUT_PROM_H

#include "core/launchopts.h"
#include "measure/sink.h"

/* The textfile at path (a name ending in .prom, the only files the collector reads),
 * replaced atomically at every run's end and when a stop is asked; "-": printed to stdout
 * once, at the end. A textfile is a snapshot: an existing one is replaced without --force. */
fab_status_t fab_out_prom_sink(const char *path, const fab_launchopts_t *lopt, fab_sink_t *sink);

#endif
