/* SPDX-License-Identifier: BSD-3-Clause */
/* The text table (output/table.c): which cells a kind's table has (the compact layout by default,
 * the wide one with --wide, any columns with --columns), how each prints its column's value,
 * and the rule for numbers. `run` and `show` print through it, so a row read back from a
 * file prints exactly as it did live. */
#ifndef FAB_OUTPUT_TABLE_H
#define FAB_OUTPUT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "measure/quality.h"
#include "output/columns.h"

/* Every line of the table (its heading and rows) and every '#' line the text output wraps
 * fits in this many characters. */
#define FAB_TEXT_COLS 100
/* Numbers show at least this many significant digits (fab_text_number). */
#define FAB_TEXT_SIG 4

/* How a cell of the text table prints its column's value. F0, F2, F3: a number with at least
 * 0, 2, 3 decimals and at least FAB_TEXT_SIG significant digits (an integer column: the
 * integer); "-" for NaN. */
typedef enum {
    FAB_TXT_F0,
    FAB_TXT_F2,
    FAB_TXT_F3,
    FAB_TXT_PCT,     /* %.1f, n/a for NaN */
    FAB_TXT_ERRORS,  /* the count, - when negative (errors: not validated; count: none) */
    FAB_TXT_EXACT,   /* exact, or hist (percentiles from the histogram) */
    FAB_TXT_SLOWEST, /* rank:share% (the share from col2), - when one rank times */
    FAB_TXT_OVERLAP, /* %.1f%%, - for NaN */
    FAB_TXT_CI,      /* %.2f, then * when col2 (target_met) is 0; - for NaN */
    FAB_TXT_CIREG,   /* FAB_TXT_CI, then rN when the column regimes is N > 1 (compact) */
    FAB_TXT_REGIMES, /* the count, - for 0 (not assessed) */
    FAB_TXT_STR,     /* a text column, - when empty */
    FAB_TXT_PCT2,    /* %.2f below 10, %.1f above; - for NaN (a kernel's % column: loss) */
} fab_txt_fmt_t;

/* One cell of a table: the column, its heading, widths and format. */
typedef struct fab_text_cell {
    const char *col;  /* column name */
    const char *head; /* heading in the table */
    int width;        /* of the value */
    fab_txt_fmt_t fmt;
    const char *col2; /* FAB_TXT_SLOWEST: the share column; FAB_TXT_CI*: the target's */
    int head_width;   /* of the heading, when it differs from width (0: the same) */
} fab_text_cell_t;

/* The cells of kind's compact (the default) or wide layout, in order; *n their number. */
const fab_text_cell_t *fab_text_layout(fab_kind_t kind, bool wide, int *n);

/* A table as printed: a layout, or the columns --columns names. */
typedef struct fab_text_table {
    fab_text_cell_t cell[FAB_MAX_COLUMNS];
    int n;
} fab_text_table_t;

/* The column a --columns name means: a column of the files, or a heading of the tables
 * (time_us, p99.9_us, MB/s, ci%, a kernel's own heading) as an alias of the file's column it
 * shows (*head: that heading, a static string; NULL for a file's name). -1: none. */
int fab_text_column_find(const char *name, const char **head);
/* With --overlap-compute (overlap: the rows' overlap_pct, n of them; any not NaN), a compact
 * collective table (compact) shows overlap in place of count. */
void fab_text_table_overlap(fab_text_table_t *t, bool compact, const double *overlap, size_t n);
/* With --split (split; not --columns) a collective's table shows the row's group for count. */
void fab_text_table_group(fab_text_table_t *t, bool split);
/* Whether list (--columns) names columns of the files, comma-separated, each once: else
 * FAB_ERR_USAGE with what is wrong in err and the names there are in hint. */
fab_status_t fab_text_columns_check(const char *list, char *err, size_t errlen, char *hint,
                                    size_t hintlen);
/* The table of kind (k: the kernel, NULL when not known): columns (a checked --columns list,
 * NULL: none) in its order, headed by the files' names; else the wide layout and then k's own
 * columns; else k's own compact table (fab_kcolumns_t.table) or the kind's. */
void fab_text_table(fab_kind_t kind, const fab_kernel_t *k, bool wide, const char *columns,
                    fab_text_table_t *t);
/* The heading line, and one row from its columns' values (d[i], s[i]: column i of
 * output/columns.c as the files store it; s[i] NULL for a number column or when unknown). */
void fab_text_heading(FILE *f, const fab_text_table_t *t);
void fab_text_row(FILE *f, const fab_text_table_t *t, const double *d, const char *const *s);
/* A row's quality from its columns: the quality column as judged when it was measured
 * (*reasons from quality_reason), or, in a file from before that column, what its iterations,
 * regimes, target and CPU share say. */
fab_quality_t fab_text_row_quality(const double *d, const char *const *s, unsigned *reasons);
/* The marks of a table's rows, for the notes under it (output/text.h fab_out_text_marks). */
typedef struct fab_text_marks {
    fab_quality_tally_t tally;
    char invalid[160], disturbed[160]; /* the rows' sizes: "8, 1K" */
    size_t ilen, dlen;
    char implausible[160]; /* the invalid rows a kernel's check marked implausible */
    size_t plen;
    int nimplausible;
} fab_text_marks_t;
void fab_text_marks_init(fab_text_marks_t *m);
void fab_text_marks_add(fab_text_marks_t *m, const double *d, const char *const *s);

/* x as the table prints numbers: at least `decimals` decimals and FAB_TEXT_SIG significant
 * digits (with no decimals asked: 0.01234, 1.234, 12.35, 1235, 123457), in fixed notation
 * from 1e-5 up, with an exponent below (1.234e-06). */
void fab_text_number(char *buf, size_t len, double x, int decimals);

#endif
