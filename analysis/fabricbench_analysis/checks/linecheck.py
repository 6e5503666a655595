# SPDX-License-Identifier: BSD-3-Clause
"""check --min-line-pct: ">= 90% of nominal is healthy", judged on line_rate_pct.

A throughput row (a bandwidth kernel's, by its Gb/s; a collective's, by its busbw, as
fabricbench computes line_rate_pct) whose line% is known PASSes at or above the threshold and
FAILs below it. A row whose line rate is unknown (or that stayed within one host, where no port
carries the traffic) is reported as not judged, a WARN: it never passes silently. By default
only the largest message size of each kernel instance is judged (small messages never reach
the line rate); --line-pct-sizes all judges every size. UDP kernels are not judged: their
throughput is the rate they were offered (udp_rate) or a packet rate (udp_pps).
"""
import math
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ..model import quality
from ..model.errors import UsageError
from ..model.grouping import measurements
from ..model.hostile import safe_text
from ..model.layers import socket_proto
from ..model.status import ORDER, worst
from ..model.table import Row, finite, fmt_num, instance, kernel_name, size_label
from .compare import format_columns
from .rules import decimal

SIZES = ("largest", "all")
RULE = "--min-line-pct"

Item = Dict[str, Any]  # one line of check's output: status, kernel, variant, size, reason, ...
Result = Dict[str, Any]  # check's result: result, files, notes, ... (check.py)


def parse_min_line_pct(text: Any) -> float:
    """'90' or '90%' (percent of the line rate) -> 90.0; above 0, at most 100."""
    t = str(text)
    v = decimal(t[:-1] if t.endswith("%") else t)
    if v is None:
        raise UsageError("--min-line-pct %s is not a percentage" % safe_text(t),
                         "write the share of the line rate in percent: 90 or 90%")
    if not 0 < v <= 100:
        raise UsageError("--min-line-pct %s: a share of the line rate is above 0%% and at most "
                         "100%%" % safe_text(t), "90 is what a healthy link reaches")
    return v


def throughput(row: Row) -> Any:
    """The Gb/s a row's line% is of: a bandwidth kernel's Gbps, a collective's busbw in Gb/s;
    NaN for a row that has none (latency kernels, barrier) or is not judged (UDP)."""
    if socket_proto(row) == "udp":
        return math.nan
    if row["kind"] == "bandwidth":
        return row["Gbps"]
    if row["kind"] == "collective" and finite(row.get("busbw_GBps")):
        return row["busbw_GBps"] * 8
    return math.nan


def judged_rows(rows: Iterable[Row], sizes: str = "largest") -> List[Row]:
    """The throughput rows judged: every one (sizes 'all'), or each kernel instance's
    largest size."""
    rows = [r for r in rows if finite(throughput(r))]
    if sizes == "all":
        return rows
    largest: Dict[Any, Row] = {}
    for r in rows:
        k = instance(r)
        if k not in largest or r["bytes"] > largest[k]["bytes"]:
            largest[k] = r
    return [r for r in rows if largest[instance(r)] is r]


def _item(row: Row, status: str, threshold: float, reason: str) -> Item:
    return {"status": status, "kernel": row["kernel"], "variant": row["variant"],
            "bytes": row["bytes"], "size": size_label(row["bytes"]), "metric": "line_rate_pct",
            "baseline": None, "value": row.get("line_rate_pct"), "change": None, "noise": None,
            "tolerance": None, "threshold": threshold, "Gbps": throughput(row),
            "line_rate_gbps": row.get("line_rate_gbps"), "reason": reason, "rule": RULE}


def _unknown(row: Row) -> str:
    if finite(row.get("line_rate_gbps")) and row.get("nhosts") == 1:
        return ("not judged: within one host, where no port carries the traffic "
                "(fabricbench run --line-rate applies a rate all the same)")
    return "not judged: line rate unknown (give the tool --line-rate)"


def line_items(rows: Iterable[Row], threshold: float, sizes: str = "largest") -> List[Item]:
    """The line-rate checks of one run's rows: PASS at or above `threshold` percent, FAIL
    below, WARN (not judged) where line_rate_pct is unknown."""
    items: List[Item] = []
    for r in judged_rows(rows, sizes):
        pct: Any = r.get("line_rate_pct")  # a number or None: finite() tells
        if not quality.comparable(r):  # no measurement: neither passes nor fails
            items.append(_item(r, "WARN", threshold, "not judged: not comparable: %s" %
                               quality.why(r)))
            items[-1]["comparable"] = False
        elif not finite(pct):
            items.append(_item(r, "WARN", threshold, _unknown(r)))
        elif pct >= threshold:
            items.append(_item(r, "PASS", threshold, "%.1f%% of the line rate, at or above %g%%"
                               % (pct, threshold)))
        else:
            items.append(_item(r, "FAIL", threshold, "%.1f%% of the line rate, below %g%%" %
                               (pct, threshold)))
    return items


def judged(items: Iterable[Item]) -> int:
    return sum(1 for i in items if i.get("rule") == RULE and i["status"] != "WARN")


def _udp_note(rows: Iterable[Row], label: str) -> Optional[str]:
    names = sorted({r["kernel"] for r in rows if socket_proto(r) == "udp"})
    if not names:
        return None
    return ("%s: %s not judged against the line rate: a UDP kernel's throughput is the rate it "
            "was offered, or a packet rate (summary shows where loss starts)" %
            (label, ", ".join(names)))


def add_line_checks(result: Result, cur: Any, threshold: float, sizes: str = "largest",
                    sets: Optional[Iterable[Any]] = None) -> Result:
    """Add the line-rate checks of every measurement of `cur` (`sets`, grouping.measurements();
    default every run on its own) to check's result (each file's checks, counts and result,
    the overall result); one check.py did not list (no baseline) gets a file entry of its
    own. Sets result's min_line_pct, line_pct_sizes, line_judged."""
    files = {(f["file"], f["run"]): f for f in result["files"]}
    for m in (sets if sets is not None else measurements(cur, "each")):
        s = m["members"][0]
        f = files.get((m["file"], m["run"]))
        if f is None:
            f = {"label": s["label"], "file": m["file"], "run": m["run"], "runs": m["runs"],
                 "repeat": m["repeat"], "checks": [], "common": None, "judged": 0,
                 "not_comparable": 0}
            result["files"].append(f)
        rows = m["rows"]
        got = line_items(rows, threshold, sizes)
        f["checks"].extend(got)
        f["not_comparable"] = f.get("not_comparable", 0) + sum(
            1 for i in got if i.get("comparable") is False)
        f["line_judged"] = judged(f["checks"])
        f["counts"] = {st: sum(1 for i in f["checks"] if i["status"] == st) for st in ORDER}
        # a run with nothing in common with the baseline stays a FAIL (check.py)
        f["result"] = worst([i["status"] for i in f["checks"]] +
                             (["FAIL"] if f["common"] == 0 else []))
        note = _udp_note(rows, s["label"])
        if note:
            result["notes"].append(note)
    result["result"] = worst([f["result"] for f in result["files"]])
    result["min_line_pct"] = threshold
    result["line_pct_sizes"] = sizes
    result["line_judged"] = sum(f.get("line_judged", 0) for f in result["files"])
    result["not_comparable"] = sum(f.get("not_comparable", 0) for f in result["files"])
    return result


def sizes_text(sizes: str) -> str:
    return ("every size (--line-pct-sizes all)" if sizes == "all" else
            "the largest size of each bandwidth kernel instance and collective")


def render(items: Iterable[Item], result: Result, show: str = "all") -> List[str]:
    """check's text block of the line-rate checks of one file."""
    head = ["status", "kernel", "bytes", "Gb/s", "line Gb/s", "line%", "min", "reason"]
    lines: List[List[str]] = []
    for i in items:
        if show == "problems" and i["status"] == "PASS":
            continue
        lines.append([i["status"], kernel_name(i["kernel"], i["variant"]), i["size"],
                      fmt_num(i["Gbps"]), fmt_num(i["line_rate_gbps"])
                      if finite(i["line_rate_gbps"]) else "?",
                      "%.1f%%" % i["value"] if finite(i["value"]) else "?",
                      "%g%%" % i["threshold"], i["reason"]])
    out = ["line rate >= %g%% (--min-line-pct) at %s" % (
        result["min_line_pct"], sizes_text(result["line_pct_sizes"]))]
    return out + (format_columns(head, lines, left=(0, 1, 7)) if lines else [])


def without_baseline(sigma: float, run_spread: Optional[float]) -> Result:
    """The skeleton of check's result when --min-line-pct is the only check."""
    return {"result": "PASS", "tolerance": None, "sigma": sigma, "run_spread": run_spread,
            "baseline": None, "files": [], "notes": []}
