/* SPDX-License-Identifier: BSD-3-Clause */
/* The members of a run's JSON objects (output/jsonrec.c), shared by JSON Lines (output/export.c)
 * and the JSON document (output/jsondoc.c), so both carry the HDF5 file's names, units and
 * values (output/columns.c, output/runmeta.c, output/kernelmeta.c; docs/SCHEMA.md). */
#ifndef FAB_OUTPUT_JSONREC_H
#define FAB_OUTPUT_JSONREC_H

#include <stdbool.h>
#include <stdio.h>

#include "measure/row.h"
#include "net/runinfo.h"
#include "output/kernelmeta.h"

/* Members written into one object: each after a comma once one was written. */
typedef struct fab_jw {
    FILE *f;
    bool more;
} fab_jw_t;

/* "key": (after a comma when needed); the value is the caller's to write. */
void fab_jw_key(fab_jw_t *j, const char *key);
void fab_jw_str(fab_jw_t *j, const char *key, const char *value);
void fab_jw_int(fab_jw_t *j, const char *key, long long value);

/* The run's metadata fields of one phase (FAB_META_BEGIN: the run record; FAB_META_END: the
 * end record), as JSON Lines has them. */
void fab_jsonrec_meta(fab_jw_t *j, const fab_run_info_t *info, int when);
/* "units": column name to unit, every column. */
void fab_jsonrec_units(fab_jw_t *j);
/* The kernel's metadata fields. */
void fab_jsonrec_kernel(fab_jw_t *j, const fab_kmeta_t *m);
/* Every column of the row (17 significant digits, null where not a number), then, for a row
 * of the adaptive measurement, "block_medians_us" (the file's blocks/<bytes>). */
void fab_jsonrec_columns(fab_jw_t *j, const fab_kinst_t *ki, const fab_row_t *r);
/* A stop written at once, before the process ends (status, end_time, stop_reason and the
 * exit code it means). */
void fab_jsonrec_stop(fab_jw_t *j, const char *status, const char *reason);

#endif
