/* SPDX-License-Identifier: BSD-3-Clause */
/* The output options (fab_outopts_t, fab_opts_t.out): which files a run writes, whether it may
 * add to or replace them, and the text table's layout. src/output/ reads these. */
#ifndef FAB_CORE_OUTOPTS_H
#define FAB_CORE_OUTOPTS_H

#include <stdbool.h>

typedef struct fab_outopts {
    const char *output; /* -o: NULL = automatic name, "none" = no file */
    bool append, force;
    const char *json, *csv; /* NULL: none; "-": standard output (output/outputs.h) */
    const char *json_doc;   /* --json-doc: one JSON document; NULL none, "-" stdout */
    const char *prom;       /* --prom: a Prometheus textfile; NULL none, "-" stdout */
    bool wide;              /* --wide: the text table with every column (run, show) */
    const char *columns;    /* --columns: the text table's columns, checked; NULL: a layout */
} fab_outopts_t;

#endif
