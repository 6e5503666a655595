/* The columns of a result row, shared by every output (out/columns.c). */
#ifndef FAB_OUT_COLUMNS_H
#define FAB_OUT_COLUMNS_H

#include <stdint.h>

#include "measure/row.h"

typedef enum { FAB_COL_U64, FAB_COL_I64, FAB_COL_F64 } fab_col_type_t;
/* Column ids, in file order. */
enum {
    FAB_COL_BYTES,
    FAB_COL_ITERS,
    FAB_COL_WARMUP,
    FAB_COL_MIN,
    FAB_COL_P50,
    FAB_COL_MEAN,
    FAB_COL_P90,
    FAB_COL_P99,
    FAB_COL_P999,
    FAB_COL_MAX,
    FAB_COL_STDDEV,
    FAB_COL_LOOP,
    FAB_COL_MBPS,
    FAB_COL_GBPS,
    FAB_COL_MSGPS,
    FAB_COL_PAIR_MBPS,
    FAB_COL_PAIR_MSGPS,
    FAB_COL_ERRORS,
    FAB_COL_EXACT,
    FAB_COL_ALGBW,
    FAB_COL_BUSBW,
    FAB_COL_SLOWEST,
    FAB_COL_SLOWEST_SHARE,
    FAB_COL_COMM,
    FAB_COL_OVERLAP,
    FAB_COL_LINE,
    FAB_COL_CPU_RANK,
    FAB_COL_CPU_USER,
    FAB_COL_CPU_SYS,
    FAB_COL_CPU_SOFTIRQ,
    FAB_COL_CPU_RANK_MIN,
    FAB_COL_CPU_RANK_MAX,
    FAB_COL_CPU_RANK_MAX_RANK,
    FAB_COL_COUNT
};
typedef struct fab_column {
    const char *name; /* file-safe: "MBps", "p999_us" */
    const char *unit; /* decimal units: bytes, count, us, MB/s, Gb/s, msg/s, flag */
    fab_col_type_t type;
    const char *doc;
} fab_column_t;
extern const fab_column_t fab_columns[];
extern const int fab_ncolumns;
/* Column col of row r: integer columns in *iv, floating ones in *dv. */
void fab_column_value(int col, const fab_row_t *r, int64_t *iv, double *dv);

#endif
