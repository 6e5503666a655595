/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON Lines and CSV exports (output/export.c): the same columns, names and units as the HDF5
 * table, for monitoring and scripts. */
#ifndef FAB_OUTPUT_EXPORT_H
#define FAB_OUTPUT_EXPORT_H

#include <stdbool.h>

#include "core/measopts.h"
#include "core/outopts.h"
#include "measure/sink.h"

/* JSON Lines (csv false) or CSV at path; refuses an existing file unless --append/--force. */
fab_status_t fab_out_export_sink(const char *path, bool csv, const fab_measopts_t *mopt,
                                 const fab_outopts_t *oopt, fab_sink_t *sink);

#endif
