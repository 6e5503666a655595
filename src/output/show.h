/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench show FILE.h5...` (output/show.c): a result file back in the live layout. */
#ifndef FAB_OUTPUT_SHOW_H
#define FAB_OUTPUT_SHOW_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"

/* Print every run and table of a result file in the live layout: the compact table, the wide
 * one, or the columns of a checked --columns list (output/table.h). */
fab_status_t fab_show(const char *path, FILE *f, bool wide, const char *columns);
#endif
