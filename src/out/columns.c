/* The columns of a result row, shared by every file format (HDF5, JSON Lines, CSV) and by
 * `fabricbench show`, so names and units are the same everywhere. Names are file-safe
 * ("MBps" for MB/s); units are decimal, as docs/METRICS.md defines them. */
#include <math.h>

#include "measure/row.h"
#include "measure/stats.h"
#include "out/columns.h"

const fab_column_t fab_columns[] = {
    [FAB_COL_BYTES] = {"bytes", "bytes", FAB_COL_U64, "message size"},
    [FAB_COL_ITERS] = {"iterations", "count", FAB_COL_U64, "timed iterations"},
    [FAB_COL_WARMUP] = {"warmup", "count", FAB_COL_U64,
                        "untimed iterations before, calibration included"},
    [FAB_COL_MIN] = {"min_us", "us", FAB_COL_F64, "minimum time"},
    [FAB_COL_P50] = {"p50_us", "us", FAB_COL_F64, "median time"},
    [FAB_COL_MEAN] = {"mean_us", "us", FAB_COL_F64, "mean of the per-iteration times"},
    [FAB_COL_P90] = {"p90_us", "us", FAB_COL_F64, "90th percentile time"},
    [FAB_COL_P99] = {"p99_us", "us", FAB_COL_F64, "99th percentile time"},
    [FAB_COL_P999] = {"p999_us", "us", FAB_COL_F64, "99.9th percentile time"},
    [FAB_COL_MAX] = {"max_us", "us", FAB_COL_F64, "maximum time"},
    [FAB_COL_STDDEV] = {"stddev_us", "us", FAB_COL_F64, "sample standard deviation (n - 1)"},
    [FAB_COL_LOOP] = {"loop_us", "us", FAB_COL_F64, "loop mean: timed blocks' total / iterations"},
    [FAB_COL_MBPS] = {"MBps", "MB/s", FAB_COL_F64, "10^6 bytes per second, all pairs"},
    [FAB_COL_GBPS] = {"Gbps", "Gb/s", FAB_COL_F64, "10^9 bits per second, all pairs"},
    [FAB_COL_MSGPS] = {"msgps", "msg/s", FAB_COL_F64, "messages per second, all pairs"},
    [FAB_COL_PAIR_MBPS] = {"pair_MBps", "MB/s", FAB_COL_F64, "MBps per pair"},
    [FAB_COL_PAIR_MSGPS] = {"pair_msgps", "msg/s", FAB_COL_F64, "msgps per pair"},
    [FAB_COL_ERRORS] =
        {"validation_errors", "bytes", FAB_COL_I64,
         "bytes (point to point) or elements (collectives) received wrong; -1: not validated"},
    [FAB_COL_EXACT] = {"percentiles_exact", "flag", FAB_COL_I64,
                       "1: percentiles from every sample; 0: from the histogram (<= 0.2% off)"},
    [FAB_COL_ALGBW] = {"algbw_GBps", "GB/s", FAB_COL_F64,
                       "collectives: bytes / mean_us (nccl-tests algbw); NaN otherwise"},
    [FAB_COL_BUSBW] = {"busbw_GBps", "GB/s", FAB_COL_F64,
                       "collectives: algbw x the kernel's bus factor (nccl-tests busbw)"},
    [FAB_COL_SLOWEST] = {"slowest_rank", "rank", FAB_COL_I64,
                         "the rank slowest in most iterations; -1 when one rank times"},
    [FAB_COL_SLOWEST_SHARE] = {"slowest_share", "fraction", FAB_COL_F64,
                               "the share of iterations slowest_rank was the slowest in"},
    [FAB_COL_COMM] = {"comm_us", "us", FAB_COL_F64,
                      "--overlap-compute: mean time of the same call without compute"},
    [FAB_COL_OVERLAP] = {"overlap_pct", "%", FAB_COL_F64,
                         "--overlap-compute: share of comm_us hidden by the compute"},
    [FAB_COL_LINE] = {"line_rate_pct", "%", FAB_COL_F64,
                      "Gbps (collectives: busbw) / data rate of the port in use (bibw: 2 x); "
                      "NaN unknown"},
    [FAB_COL_CPU_RANK] = {"cpu_rank_pct", "%", FAB_COL_F64,
                          "CPU time / wall time of the ranks taking part, mean (100: one core)"},
    [FAB_COL_CPU_USER] = {"cpu_node_user_pct", "%", FAB_COL_F64,
                          "node-wide user share of all CPUs (/proc/stat), mean over nodes"},
    [FAB_COL_CPU_SYS] = {"cpu_node_sys_pct", "%", FAB_COL_F64,
                         "node-wide system share of all CPUs, mean over nodes"},
    [FAB_COL_CPU_SOFTIRQ] = {"cpu_node_softirq_pct", "%", FAB_COL_F64,
                             "node-wide softirq share of all CPUs, mean over nodes"},
    [FAB_COL_CPU_RANK_MIN] = {"cpu_rank_min_pct", "%", FAB_COL_F64,
                              "CPU time / wall time of the least busy rank taking part"},
    [FAB_COL_CPU_RANK_MAX] = {"cpu_rank_max_pct", "%", FAB_COL_F64,
                              "CPU time / wall time of the busiest rank taking part"},
    [FAB_COL_CPU_RANK_MAX_RANK] = {"cpu_rank_max_rank", "rank", FAB_COL_I64,
                                   "world rank of the busiest rank; -1 unknown"},
};
const int fab_ncolumns = FAB_COL_COUNT;

void fab_column_value(int col, const fab_row_t *r, int64_t *iv, double *dv)
{
    const fab_stats_t *s = &r->t;
    const double us = 1e6;

    *iv = 0;
    *dv = NAN;
    switch (col) {
    case FAB_COL_BYTES:
        *iv = (int64_t)r->bytes;
        break;
    case FAB_COL_ITERS:
        *iv = (int64_t)r->iters;
        break;
    case FAB_COL_WARMUP:
        *iv = (int64_t)r->warmup;
        break;
    case FAB_COL_MIN:
        *dv = s->min * us;
        break;
    case FAB_COL_P50:
        *dv = s->p50 * us;
        break;
    case FAB_COL_MEAN:
        *dv = s->mean * us;
        break;
    case FAB_COL_P90:
        *dv = s->p90 * us;
        break;
    case FAB_COL_P99:
        *dv = s->p99 * us;
        break;
    case FAB_COL_P999:
        *dv = s->p999 * us;
        break;
    case FAB_COL_MAX:
        *dv = s->max * us;
        break;
    case FAB_COL_STDDEV:
        *dv = s->stddev * us;
        break;
    case FAB_COL_LOOP:
        *dv = s->loop_mean * us;
        break;
    case FAB_COL_MBPS:
        *dv = r->mbps;
        break;
    case FAB_COL_GBPS:
        *dv = r->gbps;
        break;
    case FAB_COL_MSGPS:
        *dv = r->msgps;
        break;
    case FAB_COL_PAIR_MBPS:
        *dv = r->mbps_stream;
        break;
    case FAB_COL_PAIR_MSGPS:
        *dv = r->msgps_stream;
        break;
    case FAB_COL_ERRORS:
        *iv = r->validation_errors;
        break;
    case FAB_COL_EXACT:
        *iv = s->exact;
        break;
    case FAB_COL_ALGBW:
        *dv = r->algbw;
        break;
    case FAB_COL_BUSBW:
        *dv = r->busbw;
        break;
    case FAB_COL_SLOWEST:
        *iv = r->slowest_rank;
        break;
    case FAB_COL_SLOWEST_SHARE:
        *dv = r->slowest_share;
        break;
    case FAB_COL_COMM:
        *dv = r->comm_time * 1e6;
        break;
    case FAB_COL_OVERLAP:
        *dv = r->overlap_pct;
        break;
    case FAB_COL_LINE:
        *dv = r->line_pct;
        break;
    case FAB_COL_CPU_RANK:
        *dv = r->cpu_rank_pct;
        break;
    case FAB_COL_CPU_USER:
        *dv = r->cpu_user_pct;
        break;
    case FAB_COL_CPU_SYS:
        *dv = r->cpu_sys_pct;
        break;
    case FAB_COL_CPU_SOFTIRQ:
        *dv = r->cpu_softirq_pct;
        break;
    case FAB_COL_CPU_RANK_MIN:
        *dv = r->cpu_rank_min_pct;
        break;
    case FAB_COL_CPU_RANK_MAX:
        *dv = r->cpu_rank_max_pct;
        break;
    case FAB_COL_CPU_RANK_MAX_RANK:
        *iv = r->cpu_rank_max_rank;
        break;
    default:
        break;
    }
}
