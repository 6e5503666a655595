# SPDX-License-Identifier: BSD-3-Clause
"""A pairs matrix's verdict, recomputed from the file's own pair values and thresholds and
held against what the file says (docs/ANALYSIS.md, "Hostile files": the verdict is never
believed).

fabricbench judges every pair (src/pairs/locate.c, fab_loc_judge): with three members or
more, a pair is slow when in either direction its bandwidth is below slow_bw_share of the
median pair (bit 1) or its p50 latency above slow_latency_factor times the median pair's
(bit 2); with a known line rate, when its bandwidth is below 90% of it (bit 4). The median
pair is the median of the measured directions (NaN not measured, the diagonal left out).
With retests (src/pairs/pairs.c, fab_pairs_judge) a retested pair is judged on its value
alone against the schedule's median pair, and a pair slow in the schedule and ok alone is
bit 8 (slow only under load, counted as ok). Every slow pair is explained by a suspect, so
the verdict is `suspects` exactly when a pair is slow.

check(m, where) recomputes that and raises hostile.Mismatch when the file's verdict, its
counts (pairs_measured, pairs_slow, pairs_load_only), its medians, its pair_slow bits or its
suspects disagree: a file edited to say `healthy` while its own pairs are slow is reported as
inconsistent (exit 3), never believed.
"""
import math
from typing import Any, Dict, Tuple

import numpy as np

from ..model import hostile
from ..model.arrays import Array

BW_FRAC, LAT_FACTOR, LINE_FRAC = 0.90, 1.5, 0.90  # FAB_LOCATE_* (src/pairs/locate.h)
SLOW_BW, SLOW_LAT, SLOW_LINE, SLOW_LOAD, NOT_MEASURED = 1, 2, 4, 8, 255

# A matrix as matrix_load reads it, and what recompute() gives for it.
Matrix = Dict[str, Any]
Verdict = Dict[str, Any]


def _median(v: Array) -> float:
    """fab_loc_median: the median of the finite off-diagonal entries (NaN: none)."""
    off = ~np.eye(v.shape[0], dtype=bool)
    x = v[off & np.isfinite(v)]
    return float(np.median(x)) if x.size else math.nan


def _judge(v: Array, is_bw: bool, ref: float, frac: float, factor: float,
           line: float) -> Tuple[Array, float]:
    """(bits n x n uint8, symmetric, 255 not measured; the median used) as fab_locate judges
    the values v (bandwidth or latency) against the median pair (ref when above 0)."""
    n = v.shape[0]
    med = ref if ref > 0 else _median(v)
    fin = np.isfinite(v)
    bits = np.zeros((n, n), dtype=np.int64)
    with np.errstate(invalid="ignore"):
        if n >= 3 and math.isfinite(med):
            slow = fin & ((v < frac * med) if is_bw else (v > factor * med))
            bits |= np.where(slow | slow.T, SLOW_BW if is_bw else SLOW_LAT, 0)
        if is_bw and line > 0:
            below = fin & (v < LINE_FRAC * line)
            bits |= np.where(below | below.T, SLOW_LINE, 0)
    measured = fin | fin.T
    bits[~measured] = NOT_MEASURED
    np.fill_diagonal(bits, NOT_MEASURED)
    return bits, med


def recompute(m: Matrix) -> Verdict:
    """{'bits', 'median', 'measured', 'slow', 'load_only'} of the matrix m (matrix_load's
    dict with a verdict) as fabricbench's verdict gives them."""
    is_bw = m["metric"] == "bw_MBps"
    v = m["values"][m["metric"]]
    share, factor = m["slow_bw_share"], m["slow_latency_factor"]
    frac = share if share > 0 else BW_FRAC  # NaN (a file without it): the default
    factor = factor if factor > 0 else LAT_FACTOR
    line = m["line_rate_MBps"] if m["line_rate_MBps"] > 0 else 0.0
    bits, med = _judge(v, is_bw, 0.0, frac, factor, line)
    re = m["values"].get("retest_" + m["metric"])
    if m["retest"] == "on" and m["retested"] > 0 and re is not None:
        first = bits
        mixed = np.where(np.isfinite(re), re, v)
        bits, med = _judge(mixed, is_bw, med, frac, factor, line)
        retested = np.isfinite(re) | np.isfinite(re).T
        load = retested & (first != 0) & (first != NOT_MEASURED) & (bits == 0)
        slow_count = int(np.count_nonzero(np.triu((bits != 0) & (bits != NOT_MEASURED), 1)))
        bits[load] = SLOW_LOAD
    else:
        slow_count = int(np.count_nonzero(np.triu((bits != 0) & (bits != NOT_MEASURED), 1)))
    upper = np.triu(np.ones(bits.shape, dtype=bool), 1)
    return {"bits": bits, "median": med, "is_bw": is_bw, "frac": frac, "factor": factor,
            "line": line, "measured": int(np.count_nonzero(upper & (bits != NOT_MEASURED))),
            "slow": slow_count,
            "load_only": int(np.count_nonzero(upper & (bits == SLOW_LOAD)))}


def _why(m: Matrix, r: Verdict, i: int, j: int) -> str:
    """Why the pair (i, j) is slow by the file's values, in words."""
    v = m["values"][m["metric"]]
    re = m["values"].get("retest_" + m["metric"])
    names = m["nodes"]
    for s, d in ((i, j), (j, i)):
        x = float(v[s, d])
        if re is not None and m["retest"] == "on" and math.isfinite(re[s, d]):
            x = float(re[s, d])
        if not math.isfinite(x):
            continue
        pair = "%s %s %s" % (hostile.name_text(names[s]), "->" if r["is_bw"] else "<->",
                             hostile.name_text(names[d]))
        if r["is_bw"] and math.isfinite(r["median"]) and x < r["frac"] * r["median"]:
            return "%s %.6g MB/s, below %g of the median pair's %.6g" % (
                pair, x, r["frac"], r["median"])
        if r["is_bw"] and r["line"] > 0 and x < LINE_FRAC * r["line"]:
            return "%s %.6g MB/s, below 90%% of the line rate %.6g MB/s" % (pair, x, r["line"])
        if not r["is_bw"] and math.isfinite(r["median"]) and x > r["factor"] * r["median"]:
            return "%s %.6g us, above %g x the median pair's %.6g us" % (
                pair, x, r["factor"], r["median"])
    return "%s <-> %s" % (hostile.name_text(names[i]), hostile.name_text(names[j]))


def check(m: Matrix, where: str) -> None:
    """Mismatch when the verdict of the matrix m (at where) disagrees with its own pairs."""
    if not m["complete"]:
        return
    r = recompute(m)
    label = "the verdict of %s" % where
    bits = r["bits"]
    slow = np.triu((bits != 0) & (bits != NOT_MEASURED) & (bits != SLOW_LOAD), 1)
    first = np.argwhere(slow)
    example = "; e.g. %s" % _why(m, r, *(int(x) for x in first[0])) if len(first) else ""
    bad = None
    if m["verdict"] == "healthy" and r["slow"]:
        bad = "says healthy, but %d of its %d pairs measured are slow by its own values and " \
            "thresholds%s" % (r["slow"], r["measured"], example)
        if m["suspects"]:
            bad += ", and it names %d suspect%s" % (len(m["suspects"]),
                                                    "" if len(m["suspects"]) == 1 else "s")
    elif m["verdict"] == "healthy" and m["suspects"]:
        bad = "says healthy, but it names %d suspect%s" % (
            len(m["suspects"]), "" if len(m["suspects"]) == 1 else "s")
    elif m["verdict"] == "healthy" and m["node_suspect"] is not None and \
            (m["node_suspect"] >= 0).any():
        bad = "says healthy, but node_suspect names suspects"
    elif m["verdict"] == "suspects" and not r["slow"]:
        bad = "names suspects, but none of its %d pairs measured is slow by its own values " \
            "and thresholds" % r["measured"]
    if bad is None:
        med_name = "bw_median_MBps" if r["is_bw"] else "lat_median_us"
        stored = m[med_name]
        if math.isfinite(stored) != math.isfinite(r["median"]) or (
                math.isfinite(stored) and
                abs(stored - r["median"]) > 1e-9 * max(abs(r["median"]), 1e-300)):
            bad = "rests on %s %r, but the median pair of %s is %r" % (
                med_name, stored, m["metric"], r["median"])
    if bad is None:
        for attr, got in (("pairs_measured", r["measured"]), ("pairs_slow", r["slow"]),
                          ("pairs_load_only", r["load_only"])):
            if m[attr] >= 0 and m[attr] != got:
                bad = "counts %s %d, but its own values and thresholds give %d" % (
                    attr, m[attr], got)
                break
    if bad is None and m["pair_slow"] is not None:
        stored = m["pair_slow"]
        diff = np.argwhere(stored != bits)
        if len(diff):
            i, j = (int(x) for x in diff[0])
            bad = "marks the pair %s, %s with pair_slow %d, but its own values and thresholds " \
                "give %d" % (hostile.name_text(m["nodes"][i]), hostile.name_text(m["nodes"][j]),
                             int(stored[i, j]), int(bits[i, j]))
    if bad is not None:
        raise hostile.Mismatch(label, "is inconsistent: it %s; a verdict that disagrees with "
                               "the file's own pairs is not believed" % bad)
