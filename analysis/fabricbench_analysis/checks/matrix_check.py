# SPDX-License-Identifier: BSD-3-Clause
"""check --baseline for the pairs kernels' matrices: pair by pair, matched by member names.

A pairs kernel's table row is one summary of all pairs (check.py checks it like any row). When
the run and the baseline both have the kernel's matrix, every pair the baseline measured is
also checked on its own: bandwidth per direction (row sends to column), latency per pair. The
rules are check.py's: the kernel's headline metric (MBps -> bw_MBps, p50_us -> lat_p50_us,
p99_us -> lat_p99_us, line_rate_pct -> line_pct) at the matrix's message size, with the
tolerance --tolerance or --rules give it; FAIL when worse beyond the tolerance and the noise
band, WARN when beyond the tolerance but within the noise. A matrix has no per-pair standard
error, so the noise band is sigma x the run-to-run spread: measured per pair from 3 or more
baseline runs, else at least --run-spread.
"""
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..model.arrays import Array
from ..model.noise import MIN_SPREAD_RUNS
from ..model.status import ORDER, worst
from ..model.table import fmt_num, size_label
from ..reading.matrix_load import is_bw
from ..reading.matrix_verdict import Matrix
from .rules import checks_for

# Table metric of a rule -> the matrix dataset that holds it per pair.
MATRIX_METRIC = {"MBps": "bw_MBps", "p50_us": "lat_p50_us", "p99_us": "lat_p99_us",
                 "line_rate_pct": "line_pct"}
HIGHER_IS_BETTER = ("bw_MBps", "line_pct")
LIST_FAILS = 10  # FAIL pairs listed one by one; the rest in one line

Item = Dict[str, Any]  # one line of check's output (check.py)


def _pct(x: float) -> str:
    return "%.1f%%" % (100 * x)


def _item(status: str, m: Matrix, metric: str, pair: Optional[str], base: Any, value: Any,
          change: Any, noise: Any, tol: Any, reason: str, rule: Optional[str] = None) -> Item:
    return {"status": status, "kernel": m["kernel"], "variant": "", "bytes": m["bytes"],
            "size": size_label(m["bytes"]),
            "metric": "%s %s" % (metric, pair) if pair else metric, "pair": pair or None,
            "baseline": base, "value": value, "change": change, "noise": noise,
            "tolerance": tol, "reason": reason, "rule": rule}


def _aligned(cm: Matrix, b: Matrix, metric: str) -> Array:
    """The baseline matrix b's `metric` on the current matrix cm's members (by name): n x n
    with NaN where b lacks a member or did not measure the pair."""
    n = cm["members"]
    out = np.full((n, n), np.nan)
    a = b["values"].get(metric)
    if a is None:
        return out
    where = {x: i for i, x in enumerate(b["nodes"])}
    ci = np.array([i for i, x in enumerate(cm["nodes"]) if x in where], dtype=np.int64)
    bi = np.array([where[cm["nodes"][i]] for i in ci], dtype=np.int64)
    if ci.size:
        out[np.ix_(ci, ci)] = a[np.ix_(bi, bi)]
    return out


def _pair_text(key: Tuple[str, str], directed: bool) -> str:
    return "%s %s %s" % (key[0], "->" if directed else "<->", key[1])


def check_matrix(cm: Matrix, bms: Sequence[Matrix], tolerance: Any, rules: Any, sigma: float,
                 run_spread: Any, strict: bool, notes: List[str], label: str) -> List[Item]:
    """The check items of the current matrix cm against the baseline matrices bms (of the same
    kernel, one per baseline run)."""
    items: List[Item] = []
    bms = [b for b in bms if b["bytes"] == cm["bytes"]]
    if not bms:
        notes.append("%s: %s: the baseline's matrix is of another message size; pairs not "
                     "compared" % (label, cm["kernel"]))
        return items
    cur_names, base_names = set(cm["nodes"]), set()
    for b in bms:
        base_names.update(b["nodes"])
    gone = sorted(base_names - cur_names)
    new = sorted(cur_names - base_names)
    if gone:
        items.append(_item("FAIL" if strict else "WARN", cm, "members", None, None, None,
                           None, None, None, "%d member%s of the baseline not in this run (%s "
                           "pairs not checked): %s" % (len(gone), "" if len(gone) == 1 else "s",
                                                      "its" if len(gone) == 1 else "their",
                                                      ", ".join(gone))))
    if new:
        notes.append("%s: %s: member%s not in the baseline, pairs not checked: %s" % (
            label, cm["kernel"], "" if len(new) == 1 else "s", ", ".join(new)))
    headline = "MBps" if is_bw(cm) else "p50_us"
    plan = checks_for(cm["kernel"], cm["bytes"], headline, tolerance, rules)
    for tmetric, (tol, severity, source) in plan.items():
        metric = MATRIX_METRIC.get(tmetric)
        if metric is None or metric not in cm["values"]:
            continue
        items.extend(_check_metric(cm, bms, metric, tol, severity, source, sigma, run_spread,
                                   cur_names))
    return items


def _check_metric(cm: Matrix, bms: Sequence[Matrix], metric: str, tol: Any, severity: Any,
                  source: Any, sigma: float, run_spread: Any, cur_names: Any) -> List[Item]:
    """numpy over the n x n entries (bandwidth: every direction; latency: i < j), so that a
    matrix of thousands of members is checked in seconds."""
    directed = is_bw(cm)
    n = cm["members"]
    cur = cm["values"][metric]
    stack = np.stack([_aligned(cm, b, metric) for b in bms])
    mask = ~np.eye(n, dtype=bool) if directed else np.triu(np.ones((n, n), dtype=bool), 1)
    nb = np.sum(np.isfinite(stack), axis=0)
    inbase = mask & (nb > 0)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN cells: NaN, as meant
        if len(bms) > 1:
            ref = np.nanmedian(stack, axis=0)
            spread = np.where(nb >= 2, np.nanstd(stack, axis=0, ddof=1) /
                              np.nanmean(stack, axis=0), 0.0)
        else:
            ref, spread = stack[0], np.zeros((n, n))
        spread = np.where(nb < MIN_SPREAD_RUNS, np.maximum(spread, run_spread), spread)
        noise = sigma * spread
        change = cur / ref - 1.0
    worse = -change if metric in HIGHER_IS_BETTER else change
    judged = inbase & np.isfinite(cur) & (ref > 0)
    missing = inbase & ~np.isfinite(cur)
    fails = judged & (worse > tol) & (worse > noise)
    warns = judged & (worse > tol) & ~fails
    passes = judged & ~fails & ~warns
    names = cm["nodes"]

    def pairs(sel: Array, limit: int) -> Tuple[List[Tuple[Any, ...]], int, Any]:
        """(worse, key, ref, value, change, noise) of the first `limit` selected entries,
        worst first, the number selected, and the least bad of them."""
        src, dst = np.nonzero(sel)
        order = np.lexsort((dst, src, -worse[src, dst]))

        def rec(k: int) -> Tuple[Any, ...]:
            a, b = src[k], dst[k]
            key = (names[a], names[b]) if directed else tuple(sorted((names[a], names[b])))
            return (float(worse[a, b]), key, float(ref[a, b]),
                    float(cur[a, b]), float(change[a, b]), float(noise[a, b]))
        return [rec(k) for k in order[:limit]], len(order), \
            rec(order[-1]) if len(order) else None

    items = []
    status = "WARN" if severity == "warn" else "FAIL"
    listed, nfail, least = pairs(fails, LIST_FAILS)
    for w, key, r, value, ch, nz in listed:
        items.append(_item(status, cm, metric, _pair_text(key, directed), r, value, ch, nz, tol,
                           "worse by %s: beyond the tolerance (%s) and the noise +-%s" % (
                               _pct(w), _pct(tol), _pct(nz)), source))
    if nfail > LIST_FAILS:
        items.append(_item(status, cm, metric, None, None, None, None, None, tol,
                           "%d more %s worse beyond the tolerance and the noise (the least: "
                           "%s by %s)" % (nfail - LIST_FAILS, "directions" if directed else
                                          "pairs", _pair_text(least[1], directed),
                                          _pct(least[0])), source))
    nwarn = int(np.count_nonzero(warns))
    if nwarn:
        w = pairs(warns, 1)[0][0]
        items.append(_item("WARN", cm, metric, None, None, None, None, None, tol,
                           "%d %s worse beyond the tolerance (%s) but within the noise: the "
                           "measurement cannot tell (the worst: %s by %s, noise +-%s)" % (
                               nwarn, _unit(nwarn, directed), _pct(tol),
                               _pair_text(w[1], directed), _pct(w[0]), _pct(w[5])), source))
    nmiss = int(np.count_nonzero(missing))
    if nmiss:
        src, dst = np.nonzero(missing)
        first = [_pair_text((names[a], names[b]), directed) for a, b in zip(src[:5], dst[:5])]
        items.append(_item("WARN", cm, metric, None, None, None, None, None, tol,
                           "%d %s of the baseline not measured in this run%s (%s%s)" % (
                               nmiss, _unit(nmiss, directed),
                               "" if cm["complete"] else " (it stopped after %d of %d rounds)"
                               % (cm["rounds_done"], cm["rounds"]),
                               ", ".join(first), ", ..." if nmiss > 5 else ""), source))
    npass = int(np.count_nonzero(passes))
    if not nfail and not nwarn and npass:
        w = pairs(passes, 1)[0][0]
        items.append(_item("PASS", cm, metric, None, None, None, None, None, tol,
                           "all %d %s within the tolerance (%s); the worst: %s %+.1f%% "
                           "(%s -> %s)" % (npass, _unit(npass, directed), _pct(tol),
                                           _pair_text(w[1], directed), 100 * w[4],
                                           fmt_num(w[2]), fmt_num(w[3])), source))
    return items


def _unit(k: int, directed: bool) -> str:
    return ("direction" if directed else "pair") + ("" if k == 1 else "s")


def add_pair_checks(result: Dict[str, Any], base_ms: Sequence[Matrix], cur_ms: Sequence[Matrix],
                    tolerance: Any, rules: Any, sigma: float, run_spread: Any,
                    strict: bool) -> Dict[str, Any]:
    """Add the pair-by-pair items of every current matrix to check's result (each file's
    checks, counts and result, and the overall result)."""
    for f in result["files"]:
        last = (f.get("runs") or [f["run"]])[-1]  # of the runs of a --repeat, the last's
        mine = [m for m in cur_ms if m["file"] == f["file"] and m["run"] == last]
        added: List[Item] = []
        for cm in mine:
            bms: List[Matrix] = []
            seen = set()
            for b in base_ms:  # one matrix per baseline run and kernel (the first)
                if b["kernel"] == cm["kernel"] and (b["file"], b["run"]) not in seen:
                    seen.add((b["file"], b["run"]))
                    bms.append(b)
            if not bms:
                continue
            added.extend(check_matrix(cm, bms, tolerance, rules, sigma, run_spread, strict,
                                      result["notes"], f["label"]))
        if not added:
            continue
        f["checks"].extend(added)
        f["counts"] = {s: sum(1 for i in f["checks"] if i["status"] == s) for s in ORDER}
        f["result"] = worst([i["status"] for i in f["checks"]])
    result["result"] = worst([f["result"] for f in result["files"]])
    return result
