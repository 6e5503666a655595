/* The columns of a result row, shared by every file format (HDF5, JSON Lines, CSV) and by
 * `fabricbench show`, so names and units are the same everywhere. Names are file-safe
 * ("MBps" for MB/s); units are decimal, as docs/METRICS.md defines them. */
#include <math.h>

#include "fab.h"

enum {
    C_BYTES,
    C_ITERS,
    C_WARMUP,
    C_MIN,
    C_P50,
    C_MEAN,
    C_P90,
    C_P99,
    C_P999,
    C_MAX,
    C_STDDEV,
    C_LOOP,
    C_MBPS,
    C_GBPS,
    C_MSGPS,
    C_PAIR_MBPS,
    C_PAIR_MSGPS,
    C_ERRORS,
    C_EXACT,
    C_COUNT
};

const fab_column_t fab_columns[] = {
    [C_BYTES] = {"bytes", "bytes", FAB_COL_U64, "message size"},
    [C_ITERS] = {"iterations", "count", FAB_COL_U64, "timed iterations"},
    [C_WARMUP] = {"warmup", "count", FAB_COL_U64,
                  "untimed iterations before, calibration included"},
    [C_MIN] = {"min_us", "us", FAB_COL_F64, "minimum time"},
    [C_P50] = {"p50_us", "us", FAB_COL_F64, "median time"},
    [C_MEAN] = {"mean_us", "us", FAB_COL_F64, "mean of the per-iteration times"},
    [C_P90] = {"p90_us", "us", FAB_COL_F64, "90th percentile time"},
    [C_P99] = {"p99_us", "us", FAB_COL_F64, "99th percentile time"},
    [C_P999] = {"p999_us", "us", FAB_COL_F64, "99.9th percentile time"},
    [C_MAX] = {"max_us", "us", FAB_COL_F64, "maximum time"},
    [C_STDDEV] = {"stddev_us", "us", FAB_COL_F64, "sample standard deviation (n - 1)"},
    [C_LOOP] = {"loop_us", "us", FAB_COL_F64, "loop mean: timed blocks' total / iterations"},
    [C_MBPS] = {"MBps", "MB/s", FAB_COL_F64, "10^6 bytes per second, all pairs"},
    [C_GBPS] = {"Gbps", "Gb/s", FAB_COL_F64, "10^9 bits per second, all pairs"},
    [C_MSGPS] = {"msgps", "msg/s", FAB_COL_F64, "messages per second, all pairs"},
    [C_PAIR_MBPS] = {"pair_MBps", "MB/s", FAB_COL_F64, "MBps per pair"},
    [C_PAIR_MSGPS] = {"pair_msgps", "msg/s", FAB_COL_F64, "msgps per pair"},
    [C_ERRORS] = {"validation_errors", "bytes", FAB_COL_I64,
                  "received bytes that differed from what was sent; -1: not validated"},
    [C_EXACT] = {"percentiles_exact", "flag", FAB_COL_I64,
                 "1: percentiles from every sample; 0: from the histogram (<= 0.2% off)"},
};
const int fab_ncolumns = C_COUNT;

void fab_column_value(int col, const fab_row_t *r, int64_t *iv, double *dv)
{
    const fab_stats_t *s = &r->t;
    const double us = 1e6;

    *iv = 0;
    *dv = NAN;
    switch (col) {
    case C_BYTES:
        *iv = (int64_t)r->bytes;
        break;
    case C_ITERS:
        *iv = (int64_t)r->iters;
        break;
    case C_WARMUP:
        *iv = (int64_t)r->warmup;
        break;
    case C_MIN:
        *dv = s->min * us;
        break;
    case C_P50:
        *dv = s->p50 * us;
        break;
    case C_MEAN:
        *dv = s->mean * us;
        break;
    case C_P90:
        *dv = s->p90 * us;
        break;
    case C_P99:
        *dv = s->p99 * us;
        break;
    case C_P999:
        *dv = s->p999 * us;
        break;
    case C_MAX:
        *dv = s->max * us;
        break;
    case C_STDDEV:
        *dv = s->stddev * us;
        break;
    case C_LOOP:
        *dv = s->loop_mean * us;
        break;
    case C_MBPS:
        *dv = r->mbps;
        break;
    case C_GBPS:
        *dv = r->gbps;
        break;
    case C_MSGPS:
        *dv = r->msgps;
        break;
    case C_PAIR_MBPS:
        *dv = r->mbps_stream;
        break;
    case C_PAIR_MSGPS:
        *dv = r->msgps_stream;
        break;
    case C_ERRORS:
        *iv = r->validation_errors;
        break;
    case C_EXACT:
        *iv = s->exact;
        break;
    default:
        break;
    }
}

/* The inverse, for `fabricbench show`: set column col of r from a stored value. */
void fab_column_set(int col, fab_row_t *r, int64_t iv, double dv)
{
    fab_stats_t *s = &r->t;
    const double us = 1e-6;

    switch (col) {
    case C_BYTES:
        r->bytes = (uint64_t)iv;
        break;
    case C_ITERS:
        r->iters = (uint64_t)iv;
        s->n = (uint64_t)iv;
        break;
    case C_WARMUP:
        r->warmup = (uint64_t)iv;
        break;
    case C_MIN:
        s->min = dv * us;
        break;
    case C_P50:
        s->p50 = dv * us;
        break;
    case C_MEAN:
        s->mean = dv * us;
        break;
    case C_P90:
        s->p90 = dv * us;
        break;
    case C_P99:
        s->p99 = dv * us;
        break;
    case C_P999:
        s->p999 = dv * us;
        break;
    case C_MAX:
        s->max = dv * us;
        break;
    case C_STDDEV:
        s->stddev = dv * us;
        break;
    case C_LOOP:
        s->loop_mean = dv * us;
        break;
    case C_MBPS:
        r->mbps = dv;
        break;
    case C_GBPS:
        r->gbps = dv;
        break;
    case C_MSGPS:
        r->msgps = dv;
        break;
    case C_PAIR_MBPS:
        r->mbps_stream = dv;
        break;
    case C_PAIR_MSGPS:
        r->msgps_stream = dv;
        break;
    case C_ERRORS:
        r->validation_errors = (long)iv;
        break;
    case C_EXACT:
        s->exact = iv != 0;
        break;
    default:
        break;
    }
}
