/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 result file (output/hdf5.c; schema in docs/SCHEMA.md), committed atomically: after a
 * row unless the last commit was less than FAB_COMMIT_GAP of its own durations ago, and always
 * at a kernel's and the run's end. */
#ifndef FAB_OUTPUT_HDF5_H
#define FAB_OUTPUT_HDF5_H

#include <stdbool.h>

#include "core/measopts.h"
#include "core/outopts.h"
#include "measure/sink.h"

/* The HDF5 result file at path as a sink: claimed now (fab_output_claim: refused, exit 2,
 * when it is not a regular file, another run writes it, or it exists without --append or
 * --force; taken: see there), written from run_begin on. */
fab_status_t fab_out_hdf5_sink(const char *path, const fab_measopts_t *mopt,
                               const fab_outopts_t *oopt, bool *taken, fab_sink_t *sink);

#endif
