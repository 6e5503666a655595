/* The columns of a result row (out/columns.c): one table shared by every output, so a column
 * has one name, unit and meaning in the HDF5 file, JSON Lines, CSV, `show` and the text
 * table. Adding a column is one entry there (and, to show it in the text table, a cell in the
 * layouts of the kinds that have it). */
#ifndef FAB_OUT_COLUMNS_H
#define FAB_OUT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/fab_kernel.h"
#include "measure/row.h"

#define FAB_MAX_COLUMNS 64 /* room for every column (checked where the table is) */

typedef enum { FAB_COL_U64, FAB_COL_I64, FAB_COL_F64 } fab_col_type_t;

typedef struct fab_column {
    const char *name; /* file-safe: "MBps", "p999_us" */
    const char *unit; /* decimal units: bytes, count, us, MB/s, Gb/s, msg/s, flag */
    fab_col_type_t type;
    const char *doc;
    size_t offset; /* of the value in fab_row_t */
    char ctype;    /* its C type there: 'u' uint64_t, 'l' long, 'i' int, 'b' bool, 'd' double */
    double scale;  /* the column is the value x scale (seconds to us: 1e6) */
} fab_column_t;

extern const fab_column_t fab_columns[];
extern const int fab_ncolumns;
/* Column col of row r: integer columns in *iv, floating ones in *dv. */
void fab_column_value(int col, const fab_row_t *r, int64_t *iv, double *dv);
/* Every column of row r as a double (integers converted), v[0 .. fab_ncolumns-1]. */
void fab_column_values(const fab_row_t *r, double *v);
/* The index of the column called name, or -1. */
int fab_column_find(const char *name);

/* How a cell of the text table prints its column's value. */
typedef enum {
    FAB_TXT_F0,      /* %.0f */
    FAB_TXT_F2,      /* %.2f */
    FAB_TXT_F3,      /* %.3f */
    FAB_TXT_PCT,     /* %.1f, n/a for NaN */
    FAB_TXT_ERRORS,  /* -: not validated, else the count */
    FAB_TXT_EXACT,   /* exact, or hist (percentiles from the histogram) */
    FAB_TXT_SLOWEST, /* rank:share% (the share from col2), - when one rank times */
    FAB_TXT_OVERLAP, /* %.1f%%, - for NaN */
    FAB_TXT_CI,      /* %.2f, then * when col2 (target_met) is 0; - for NaN */
    FAB_TXT_REGIMES, /* the count, - for 0 (not assessed) */
} fab_txt_fmt_t;

/* One cell of a kind's text table: the column, its heading, widths and format. */
typedef struct fab_text_cell {
    const char *col;  /* column name */
    const char *head; /* heading in the table */
    int width;        /* of the value */
    fab_txt_fmt_t fmt;
    const char *col2; /* FAB_TXT_SLOWEST: the share column; FAB_TXT_CI: the target's */
    int head_width;   /* of the heading, when it differs from width (0: the same) */
} fab_text_cell_t;

/* The cells of kind's text table, in order; *n receives their number. */
const fab_text_cell_t *fab_text_layout(fab_kind_t kind, int *n);

#endif
