/* SPDX-License-Identifier: BSD-3-Clause */
/* The columns of a result row (output/columns.c): one table shared by every output, so a column
 * has one name, unit and meaning in the HDF5 file, JSON Lines, CSV, `show` and the text
 * table. Adding a harness column is one entry there (and, to show it in the text table, a
 * cell in the layouts of output/table.c); a kernel's own columns come from its descriptor
 * (fab_kcolumns_t.kcols). */
#ifndef FAB_OUTPUT_COLUMNS_H
#define FAB_OUTPUT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "core/launchopts.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"

#define FAB_MAX_COLUMNS 160 /* room for every column (unit.columns checks it) */

/* FAB_COL_STR: text, a short name (a collective's element type, its reduction) */
typedef enum { FAB_COL_U64, FAB_COL_I64, FAB_COL_F64, FAB_COL_STR } fab_col_type_t;

/* One column's value: integer columns in i, floating ones in d, text ones in s (a static
 * string or the row's own text, valid while the row is; "" where the column does not
 * apply). */
typedef struct fab_value {
    int64_t i;
    double d;
    const char *s;
} fab_value_t;

/* A column derived from the row and its kernel (the row's dtype and op -1: unknown, then -1
 * or ""). */
typedef void (*fab_col_fn_t)(const fab_kernel_t *k, const fab_row_t *r, fab_value_t *v);

typedef struct fab_column {
    const char *name; /* file-safe: "MBps", "p999_us" */
    const char *unit; /* decimal units: bytes, count, us, MB/s, Gb/s, msg/s, flag */
    fab_col_type_t type;
    const char *doc;
    size_t offset;   /* of the value in fab_row_t */
    char ctype;      /* its C type there: 'u' uint64_t, 'l' long, 'i' int, 'b' bool, 'd' double;
                        'f': none, fn gives the value; 'k': a kernel's own (fab_row_kcol) */
    double scale;    /* the column is the value x scale (seconds to us: 1e6) */
    fab_col_fn_t fn; /* ctype 'f' */
} fab_column_t;

/* The harness's columns, then the registered kernels' own (fab_kcolumns_t.kcols), each name
 * once: every output has all of them, NaN (or "", -1) where a row's kernel has none. */
extern const fab_column_t *const fab_columns;
extern int fab_ncolumns;
/* The columns there would be without the room's limit (unit.columns: at most
 * FAB_MAX_COLUMNS); kernels sharing a column table count it twice. */
int fab_columns_wanted(void);
/* Column col of row r (closed: fab_row_close), measured by instance ki (NULL: unknown). */
void fab_column_value(int col, const fab_kinst_t *ki, const fab_row_t *r, fab_value_t *v);
/* Every column of row r: as a double in d[0 .. fab_ncolumns-1] (integers converted, text
 * NaN) and, for text columns, in s[] (NULL for the others). */
void fab_column_values(const fab_kinst_t *ki, const fab_row_t *r, double *d, const char **s);
/* A kernel's own column's definition (ctype 'k'), NULL for the harness's. */
const fab_kcol_t *fab_column_kcol(int col);
/* A table cell's width for column col: at least min, and for a kernel's word column
 * (FAB_KCOL_AXIS_WORD) the longest word its kernels' axis option takes (put_incast). */
int fab_column_word_width(int col, int min);
/* The index of the column called name, or -1. */
int fab_column_find(const char *name);

#endif
