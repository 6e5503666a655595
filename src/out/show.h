/* `fabricbench show FILE.h5` (out/show.c): a result file back in the live layout. */
#ifndef FAB_OUT_SHOW_H
#define FAB_OUT_SHOW_H

#include <stdio.h>

#include "core/status.h"

/* Print every run and table of a result file in the live layout. */
fab_status_t fab_show(const char *path, FILE *f);

#endif
