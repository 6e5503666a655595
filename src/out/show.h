/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench show FILE.h5...` (out/show.c): a result file back in the live layout. */
#ifndef FAB_OUT_SHOW_H
#define FAB_OUT_SHOW_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"

/* Print every run and table of a result file in the live layout: the compact table, the wide
 * one, or the columns of a checked --columns list (out/table.h). */
fab_status_t fab_show(const char *path, FILE *f, bool wide, const char *columns);
/* `fabricbench show FILE...`: each file in order, after a line naming it when there are
 * several ("# ==> FILE (file 2 of 3) <=="); a file that cannot be shown gets its one error
 * line on stderr and the next one is shown. Returns the exit code: 0 when every file was
 * shown, else the first failed file's (2: not a result file of this schema version; 3:
 * missing, unreadable or damaged). */
int fab_show_files(char *const *paths, int n, FILE *f, bool wide, const char *columns);

#endif
