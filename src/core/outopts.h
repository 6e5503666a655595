/* SPDX-License-Identifier: BSD-3-Clause */
/* The output options (fab_outopts_t, fab_opts_t.out): which files a run writes, whether it may
 * add to or replace them, and the text table's layout. src/output/ reads these. */
#ifndef FAB_CORE_OUTOPTS_H
#define FAB_CORE_OUTOPTS_H

#include <stdbool.h>

/* --format: fabricbench's table, or nccl-tests' text table or JSON document on stdout. */
typedef enum { FAB_FORMAT_TABLE = 0, FAB_FORMAT_NCCL = 1, FAB_FORMAT_NCCL_JSON = 2 } fab_format_t;
/* -a/--average (nccl-tests' numbers): whose time the nccl-tests formats report. */
typedef enum {
    FAB_AVERAGE_RANK0 = 0, /* rank 0's own mean time per call */
    FAB_AVERAGE_MEAN = 1,  /* the mean over ranks of their own means (osu_avg_us) */
    FAB_AVERAGE_MIN = 2,   /* the least of them (imb_tmin_us) */
    FAB_AVERAGE_MAX = 3,   /* the largest (imb_tmax_us) */
} fab_average_t;

typedef struct fab_outopts {
    const char *output; /* -o: NULL = automatic name, "none" = no file */
    bool append, force;
    const char *json, *csv; /* NULL: none; "-": standard output (output/outputs.h) */
    const char *json_doc;   /* --json-doc: one JSON document; NULL none, "-" stdout */
    const char *prom;       /* --prom: a Prometheus textfile; NULL none, "-" stdout */
    bool wide;              /* --wide: the text table with every column (run, show) */
    const char *columns;    /* --columns: the text table's columns, checked; NULL: a layout */
    int format;             /* --format: fab_format_t, the text on stdout */
    int average;            /* -a/--average: fab_average_t, the nccl-tests formats' time */
} fab_outopts_t;

#endif
