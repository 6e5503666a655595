/* The columns of a result row, shared by every file format (HDF5, JSON Lines, CSV) and by
 * `fabricbench show`, so names and units are the same everywhere. Names are file-safe
 * ("MBps" for MB/s); units are decimal, as docs/METRICS.md defines them. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "measure/row.h"
#include "measure/stats.h"
#include "out/columns.h"

#define ROW(field) offsetof(fab_row_t, field)
#define US         1e6 /* seconds in the row, microseconds in the column */

/* In file order: the HDF5 table's datasets, JSON Lines' and CSV's fields follow it. */
const fab_column_t fab_columns[] = {
    {"bytes", "bytes", FAB_COL_U64, "message size", ROW(bytes), 'u', 1},
    {"iterations", "count", FAB_COL_U64, "timed iterations", ROW(iters), 'u', 1},
    {"warmup", "count", FAB_COL_U64, "untimed iterations before, calibration included", ROW(warmup),
     'u', 1},
    {"min_us", "us", FAB_COL_F64, "minimum time", ROW(t.min), 'd', US},
    {"p50_us", "us", FAB_COL_F64, "median time", ROW(t.p50), 'd', US},
    {"mean_us", "us", FAB_COL_F64, "mean of the per-iteration times", ROW(t.mean), 'd', US},
    {"p90_us", "us", FAB_COL_F64, "90th percentile time", ROW(t.p90), 'd', US},
    {"p99_us", "us", FAB_COL_F64, "99th percentile time", ROW(t.p99), 'd', US},
    {"p999_us", "us", FAB_COL_F64, "99.9th percentile time", ROW(t.p999), 'd', US},
    {"max_us", "us", FAB_COL_F64, "maximum time", ROW(t.max), 'd', US},
    {"stddev_us", "us", FAB_COL_F64, "sample standard deviation (n - 1)", ROW(t.stddev), 'd', US},
    {"loop_us", "us", FAB_COL_F64, "loop mean: timed blocks' total / iterations", ROW(t.loop_mean),
     'd', US},
    {"MBps", "MB/s", FAB_COL_F64, "10^6 bytes per second, all pairs", ROW(mbps), 'd', 1},
    {"Gbps", "Gb/s", FAB_COL_F64, "10^9 bits per second, all pairs", ROW(gbps), 'd', 1},
    {"msgps", "msg/s", FAB_COL_F64, "messages per second, all pairs", ROW(msgps), 'd', 1},
    {"pair_MBps", "MB/s", FAB_COL_F64, "MBps per pair", ROW(mbps_stream), 'd', 1},
    {"pair_msgps", "msg/s", FAB_COL_F64, "msgps per pair", ROW(msgps_stream), 'd', 1},
    {"validation_errors", "bytes", FAB_COL_I64,
     "bytes (point to point) or elements (collectives) received wrong; -1: not validated",
     ROW(validation_errors), 'l', 1},
    {"percentiles_exact", "flag", FAB_COL_I64,
     "1: percentiles from every sample; 0: from the histogram (<= 0.2% off)", ROW(t.exact), 'b', 1},
    {"algbw_GBps", "GB/s", FAB_COL_F64,
     "collectives: bytes / mean_us (nccl-tests algbw); NaN otherwise", ROW(algbw), 'd', 1},
    {"busbw_GBps", "GB/s", FAB_COL_F64,
     "collectives: algbw x the kernel's bus factor (nccl-tests busbw)", ROW(busbw), 'd', 1},
    {"slowest_rank", "rank", FAB_COL_I64,
     "the rank slowest in most iterations; -1 when one rank times", ROW(slowest_rank), 'i', 1},
    {"slowest_share", "fraction", FAB_COL_F64,
     "the share of iterations slowest_rank was the slowest in", ROW(slowest_share), 'd', 1},
    {"comm_us", "us", FAB_COL_F64, "--overlap-compute: mean time of the same call without compute",
     ROW(comm_time), 'd', US},
    {"overlap_pct", "%", FAB_COL_F64, "--overlap-compute: share of comm_us hidden by the compute",
     ROW(overlap_pct), 'd', 1},
    {"line_rate_pct", "%", FAB_COL_F64,
     "Gbps (collectives: busbw) / data rate of the port in use (bibw: 2 x); "
     "NaN unknown",
     ROW(line_pct), 'd', 1},
    {"cpu_rank_pct", "%", FAB_COL_F64,
     "CPU time / wall time of the ranks taking part, mean (100: one core)", ROW(cpu_rank_pct), 'd',
     1},
    {"cpu_node_user_pct", "%", FAB_COL_F64,
     "node-wide user share of all CPUs (/proc/stat), mean over nodes", ROW(cpu_user_pct), 'd', 1},
    {"cpu_node_sys_pct", "%", FAB_COL_F64, "node-wide system share of all CPUs, mean over nodes",
     ROW(cpu_sys_pct), 'd', 1},
    {"cpu_node_softirq_pct", "%", FAB_COL_F64,
     "node-wide softirq share of all CPUs, mean over nodes", ROW(cpu_softirq_pct), 'd', 1},
    {"cpu_rank_min_pct", "%", FAB_COL_F64,
     "CPU time / wall time of the least busy rank taking part", ROW(cpu_rank_min_pct), 'd', 1},
    {"cpu_rank_max_pct", "%", FAB_COL_F64, "CPU time / wall time of the busiest rank taking part",
     ROW(cpu_rank_max_pct), 'd', 1},
    {"cpu_rank_max_rank", "rank", FAB_COL_I64, "world rank of the busiest rank; -1 unknown",
     ROW(cpu_rank_max_rank), 'i', 1},
    {"p9999_us", "us", FAB_COL_F64, "99.99th percentile time", ROW(t.p9999), 'd', US},
    {"stall_s", "s", FAB_COL_F64,
     "longest wait of a rank beyond what its step allowed (10 x the expected step + 1 s): a stall "
     "that resumed; 0 none",
     ROW(stall_s), 'd', 1},
    {"ci_pct", "%", FAB_COL_F64,
     "half-width of the 95% confidence interval of the median (order statistics), % of p50; "
     "NaN below 6 samples (no such interval)",
     ROW(ci_pct), 'd', 1},
    {"blocks", "count", FAB_COL_U64,
     "adaptive: blocks measured, one per round the size took part in; 0 for -i and --time",
     ROW(blocks), 'u', 1},
    {"blocks_ci_pct", "%", FAB_COL_F64,
     "adaptive: ci_pct over the block medians (the spread across time); NaN otherwise",
     ROW(blocks_ci_pct), 'd', 1},
    {"target_met", "flag", FAB_COL_I64,
     "adaptive: 1 met --precision (ci_pct and blocks_ci_pct within it, no regimes), 0 stopped "
     "by the budget; -1 no target (-i, --time)",
     ROW(target_met), 'i', 1},
    {"regimes", "count", FAB_COL_I64,
     "adaptive: separate levels in the block medians over time (1: one; 2-3: regimes, see "
     "the blocks group); 0 not assessed",
     ROW(regimes), 'i', 1},
};
const int fab_ncolumns = (int)(sizeof(fab_columns) / sizeof(fab_columns[0]));

_Static_assert(sizeof(fab_columns) / sizeof(fab_columns[0]) <= FAB_MAX_COLUMNS,
               "more columns than FAB_MAX_COLUMNS in out/columns.h");

void fab_column_value(int col, const fab_row_t *r, int64_t *iv, double *dv)
{
    const fab_column_t *c = &fab_columns[col];
    const char *at = (const char *)r + c->offset;

    *iv = 0;
    *dv = NAN;
    switch (c->ctype) {
    case 'u':
        *iv = (int64_t) * (const uint64_t *)at;
        break;
    case 'l':
        *iv = *(const long *)at;
        break;
    case 'i':
        *iv = *(const int *)at;
        break;
    case 'b':
        *iv = *(const bool *)at;
        break;
    default:
        *dv = *(const double *)at * c->scale;
        break;
    }
}

void fab_column_values(const fab_row_t *r, double *v)
{
    for (int c = 0; c < fab_ncolumns; c++) {
        int64_t iv;

        fab_column_value(c, r, &iv, &v[c]);
        if (fab_columns[c].type != FAB_COL_F64)
            v[c] = (double)iv;
    }
}

int fab_column_find(const char *name)
{
    for (int c = 0; c < fab_ncolumns; c++)
        if (strcmp(fab_columns[c].name, name) == 0)
            return c;
    return -1;
}

/* ------------------------------------------------------------------ the text table's layouts */

/* A cell; one with a heading wider than its values; one that shows a second column too. */
// clang-format off
#define CELL(col, head, width, fmt)        {col, head, width, fmt, NULL, 0}
#define CELLW(col, head, width, fmt, hw)   {col, head, width, fmt, NULL, hw}
#define CELL2(col, head, width, fmt, col2) {col, head, width, fmt, col2, 0}
// clang-format on

/* The per-iteration times of the point-to-point tables. */
#define FAB_TEXT_TIMES                                                                             \
    CELL("min_us", "min_us", 9, FAB_TXT_F3), CELL("p50_us", "p50_us", 9, FAB_TXT_F3),              \
        CELL("p90_us", "p90_us", 9, FAB_TXT_F3), CELL("p99_us", "p99_us", 9, FAB_TXT_F3),          \
        CELL("p999_us", "p99.9_us", 9, FAB_TXT_F3), CELL("p9999_us", "p99.99_us", 9, FAB_TXT_F3),  \
        CELL("max_us", "max_us", 9, FAB_TXT_F3), CELL("mean_us", "mean_us", 9, FAB_TXT_F3),        \
        CELL("stddev_us", "stddev_us", 9, FAB_TXT_F3), CELL("loop_us", "loop_us", 9, FAB_TXT_F3)

/* How a row was measured: iterations, warm-up, exact or histogram percentiles, validation. */
#define FAB_TEXT_COUNTS                                                                            \
    CELL("iterations", "iters", 10, FAB_TXT_F0), CELL("warmup", "warmup", 9, FAB_TXT_F0),          \
        CELL("percentiles_exact", "pct", 6, FAB_TXT_EXACT),                                        \
        CELL2("ci_pct", "ci%", 7, FAB_TXT_CI, "target_met"),                                       \
        CELL("regimes", "reg", 3, FAB_TXT_REGIMES),                                                \
        CELL("validation_errors", "errors", 6, FAB_TXT_ERRORS)

/* The CPU cost, the last cells of every table: the ranks' own CPU (100 = one core) and the
 * node-wide user, system and softirq shares. */
#define FAB_TEXT_CPU                                                                               \
    CELLW("cpu_rank_pct", "cpu%", 5, FAB_TXT_PCT, 6),                                              \
        CELL("cpu_node_user_pct", "usr%", 5, FAB_TXT_PCT),                                         \
        CELL("cpu_node_sys_pct", "sys%", 5, FAB_TXT_PCT),                                          \
        CELL("cpu_node_softirq_pct", "si%", 5, FAB_TXT_PCT)

/* Latency: the OSU column (lat_us, the loop mean) second, then the per-iteration times. */
static const fab_text_cell_t fab_text_latency[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("loop_us", "lat_us", 10, FAB_TXT_F3),
    FAB_TEXT_TIMES,
    CELL("MBps", "MB/s", 12, FAB_TXT_F2),
    FAB_TEXT_COUNTS,
    FAB_TEXT_CPU,
};

/* Bandwidth: the OSU column (MB/s) second, then rates, then the per-iteration times. */
static const fab_text_cell_t fab_text_bandwidth[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("MBps", "MB/s", 12, FAB_TXT_F2),
    CELL("Gbps", "Gb/s", 9, FAB_TXT_F3),
    CELL("line_rate_pct", "line%", 6, FAB_TXT_PCT),
    CELL("msgps", "msg/s", 12, FAB_TXT_F0),
    CELL("pair_MBps", "pair_MB/s", 12, FAB_TXT_F2),
    CELL("pair_msgps", "pair_msg/s", 12, FAB_TXT_F0),
    FAB_TEXT_TIMES,
    FAB_TEXT_COUNTS,
    FAB_TEXT_CPU,
};

/* Collectives: time per call (the mean of per-call maxima) second, algbw and busbw as
 * nccl-tests prints them. */
static const fab_text_cell_t fab_text_collective[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("mean_us", "time_us", 10, FAB_TXT_F3),
    CELL("min_us", "min_us", 9, FAB_TXT_F3),
    CELL("p50_us", "p50_us", 9, FAB_TXT_F3),
    CELL("p99_us", "p99_us", 9, FAB_TXT_F3),
    CELL("p999_us", "p99.9_us", 9, FAB_TXT_F3),
    CELL("p9999_us", "p99.99_us", 9, FAB_TXT_F3),
    CELL("max_us", "max_us", 9, FAB_TXT_F3),
    CELL("stddev_us", "stddev_us", 9, FAB_TXT_F3),
    CELL("loop_us", "loop_us", 9, FAB_TXT_F3),
    CELL("algbw_GBps", "algbw_GB/s", 12, FAB_TXT_F3),
    CELL("busbw_GBps", "busbw_GB/s", 12, FAB_TXT_F3),
    CELL("line_rate_pct", "line%", 6, FAB_TXT_PCT),
    CELL2("slowest_rank", "slowest", 10, FAB_TXT_SLOWEST, "slowest_share"),
    FAB_TEXT_COUNTS,
    CELL("comm_us", "comm_us", 9, FAB_TXT_F3),
    CELL("overlap_pct", "overlap", 8, FAB_TXT_OVERLAP),
    FAB_TEXT_CPU,
};

#define FAB_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

const fab_text_cell_t *fab_text_layout(fab_kind_t kind, int *n)
{
    switch (kind) {
    case FAB_KIND_LATENCY:
        *n = FAB_N(fab_text_latency);
        return fab_text_latency;
    case FAB_KIND_COLLECTIVE:
        *n = FAB_N(fab_text_collective);
        return fab_text_collective;
    default:
        *n = FAB_N(fab_text_bandwidth);
        return fab_text_bandwidth;
    }
}
