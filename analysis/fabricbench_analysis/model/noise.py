# SPDX-License-Identifier: BSD-3-Clause
"""How much a row's central value could move from run to run: its relative standard error.

docs/ANALYSIS.md ("Noise") describes the method; in short, for each row:

- mean-based values (mean_us, loop_us and every rate computed from them: MBps, Gbps, msgps,
  algbw_GBps, busbw_GBps, line_rate_pct): the standard error of the mean, stddev / sqrt(n),
  relative to the mean;
- percentiles (p50_us, p90_us, p99_us, p999_us): distribution-free. The sample p-quantile of n
  samples has the rank n*p +- sqrt(n*p*(1-p)) (one standard deviation of a binomial count), so
  its standard error is half the distance between the quantiles at p -+ sqrt(p*(1-p)/n). The
  quantile function between the stored points (min, p50, p90, p99, p999, max) is
  interpolated linearly;
- with per-iteration samples in the file (--samples): also batch means (the samples, in
  iteration order, cut into 10 contiguous batches; the spread of the batch means or batch
  quantiles / sqrt(10)), which also sees drift and correlated stretches within the run. The
  larger of the two estimates is used;
- adaptive rows (the result file's blocks/<bytes>: one median per block, blocks spread over
  the run's rounds): the spread of the block medians / sqrt(blocks), relative to their
  median, for p50 and the mean-based values: the run-to-run spread measured inside one run.
  Again the larger estimate is used.

All values are relative (0.02 = 2%); NaN where the row does not allow an estimate.
"""
import math
import statistics
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple

import numpy as np

# Standard errors are relative to these columns' values; rates computed from a mean time
# share its relative error (to first order).
MEAN_BASED = ("mean_us", "loop_us", "MBps", "Gbps", "msgps", "pair_MBps", "pair_msgps",
              "algbw_GBps", "busbw_GBps", "line_rate_pct")
QUANTILE_COLUMNS = {"p50_us": 0.5, "p90_us": 0.9, "p99_us": 0.99, "p999_us": 0.999}
NOISE_COLUMNS = ("noise_mean_rel", "noise_p50_rel", "noise_p90_rel", "noise_p99_rel",
                 "noise_p999_rel")
BATCHES = 10
MIN_PER_BATCH = 5


def noise_column(metric: str) -> Optional[str]:
    """The tidy table's noise column for a metric column, or None when there is no model."""
    if metric in MEAN_BASED:
        return "noise_mean_rel"
    if metric in QUANTILE_COLUMNS:
        return _quantile_noise(metric)
    return None


def _quantile_noise(col: str) -> str:
    """The noise column of a percentile column of QUANTILE_COLUMNS."""
    return "noise_" + col[:-3] + "_rel"


def _finite(x: Any) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def mean_rel_se(mean: Any, stddev: Any, n: Any) -> float:
    if not (_finite(mean) and _finite(stddev) and _finite(n)) or mean <= 0 or n < 2:
        return math.nan
    rel: float = stddev / math.sqrt(n) / mean
    return rel


def quantile_rel_se(q: float, n: Any, known: Mapping[float, Any]) -> float:
    """Relative standard error of the q-quantile from n samples.

    known: {probability: value} of the stored order statistics (0: min, 1: max)."""
    pts = sorted((p, v) for p, v in known.items() if _finite(v))
    if not _finite(n) or n < 2 or len(pts) < 2:
        return math.nan
    ps = np.array([p for p, _ in pts])
    vs = np.maximum.accumulate(np.array([v for _, v in pts]))  # a quantile function never falls
    if q not in known or not _finite(known[q]) or known[q] <= 0:
        return math.nan
    s = math.sqrt(q * (1 - q) / n)
    lo = float(np.interp(max(q - s, 0.0), ps, vs))
    hi = float(np.interp(min(q + s, 1.0), ps, vs))
    rel: float = (hi - lo) / 2 / known[q]
    return rel


def batch_rel_se(samples: Any) -> Dict[str, float]:
    """Batch-means estimates from per-iteration samples: {noise column: relative SE}."""
    out: Dict[str, float] = {}
    x = np.asarray(samples, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n < BATCHES * MIN_PER_BATCH:
        return out
    per = n // BATCHES
    b = x[:per * BATCHES].reshape(BATCHES, per)
    mean = float(x.mean())
    if mean > 0:
        out["noise_mean_rel"] = float(b.mean(axis=1).std(ddof=1) / math.sqrt(BATCHES) / mean)
    for col, q in QUANTILE_COLUMNS.items():
        # A batch must hold enough samples beyond the quantile for its estimate to mean anything.
        if per * (1 - q) < MIN_PER_BATCH:
            continue
        whole = float(np.quantile(x, q))
        if whole > 0:
            bq = np.quantile(b, q, axis=1)
            out[_quantile_noise(col)] = float(bq.std(ddof=1) / math.sqrt(BATCHES) / whole)
    return out


MIN_BLOCKS = 3


def block_rel_se(blocks: Any) -> float:
    """Relative standard error of a central value from block medians across time; NaN with
    fewer than MIN_BLOCKS blocks."""
    x = np.asarray(blocks if blocks is not None else [], dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < MIN_BLOCKS:
        return math.nan
    med = float(np.median(x))
    if med <= 0:
        return math.nan
    return float(x.std(ddof=1) / math.sqrt(len(x)) / med)


def regimes(row: Optional[Mapping[str, Any]]) -> int:
    """Separate levels over time that the adaptive measurement found in a row (0: not
    assessed or one level); such a row's median depends on how long each regime lasted."""
    r = row.get("regimes") if row else None
    return int(r) if isinstance(r, (int, float)) and math.isfinite(r) and r > 1 else 0


def row_noise(row: Mapping[str, Any], samples: Any = None,
              blocks: Any = None) -> Tuple[Dict[str, float], str]:
    """Noise columns for one table row (a dict of its columns), and the method's name."""
    n = row.get("iterations")
    known = {0.0: row.get("min_us"), 1.0: row.get("max_us")}
    for col, q in QUANTILE_COLUMNS.items():
        known[q] = row.get(col)
    out = {"noise_mean_rel": mean_rel_se(row.get("mean_us"), row.get("stddev_us"), n)}
    for col, q in QUANTILE_COLUMNS.items():
        out[_quantile_noise(col)] = quantile_rel_se(q, n, known)
    method = "table"
    if samples is not None:
        batch = batch_rel_se(samples)
        if batch:
            method = "table+samples"
            for k, v in batch.items():
                # The larger estimate: never claim a quieter measurement than either method sees.
                if not math.isfinite(out[k]) or v > out[k]:
                    out[k] = v
    b = block_rel_se(blocks)
    if math.isfinite(b):
        method += "+blocks"
        for k in ("noise_mean_rel", "noise_p50_rel"):
            if not math.isfinite(out[k]) or b > out[k]:
                out[k] = b
    return out, method


# Runs of one measurement (a group: grouping.py; a baseline's runs: check.py) differ by more
# than each run's own standard error says: placement, caches, neighbours, a shared-memory
# latency that settles in one of two levels per run. Their spread is measured, not modelled.
MIN_SPREAD_RUNS = 3  # runs from which the run-to-run spread counts as measured (check.py)


def run_spread(values: Iterable[Any]) -> float:
    """The run-to-run spread of a value: the standard deviation of the runs' values relative
    to their mean; NaN with fewer than 2 finite values (unknown) or a mean of 0."""
    x = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if len(x) < 2:
        return math.nan
    mean = statistics.mean(x)
    if mean == 0:
        return math.nan
    return statistics.stdev(x) / abs(mean)


def runs_noise(values: Iterable[Any]) -> float:
    """One relative standard error for several runs of a row: the median of theirs; NaN when
    any run has none (a median would hide that one cannot be estimated)."""
    x = list(values)
    if not x or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in x):
        return math.nan
    med: float = statistics.median(x)
    return med
