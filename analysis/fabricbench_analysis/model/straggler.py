# SPDX-License-Identifier: BSD-3-Clause
"""Stragglers: the rows that name one (docs/METRICS.md, "Stragglers: arrival skew").

fabricbench judges a row once, on its rank 0 (measure/arrival.h): `straggler_rank` is the rank
that entered most of the row's calls last (`late_share` >= 0.5) when its lateness explains most
of the time (`late_explains` >= 0.5), else -1. The analysis reads that verdict, never judges it
again, and adds the rank's host (`straggler_host`, from the run's hostnames)."""
from typing import Any, Dict, Iterable, List

from .table import Row, finite, fmt_num, kernel_name, size_label

Straggler = Dict[str, Any]


def find(rows: Iterable[Row]) -> List[Straggler]:
    """One record per row that names a straggler, in row order: kernel, bytes, rank, host,
    share of calls, lateness p50 and p99 (us), the share of the time it explains."""
    out: List[Straggler] = []
    for r in rows:
        rank = r.get("straggler_rank", -1)
        if not finite(rank) or rank < 0:
            continue
        out.append({"kernel": kernel_name(r), "bytes": r.get("bytes"), "rank": int(rank),
                    "host": r.get("straggler_host") or "?", "share": r.get("late_share"),
                    "late_p50_us": r.get("late_p50_us"), "late_p99_us": r.get("late_p99_us"),
                    "explains": r.get("late_explains"), "run": r.get("label", "")})
    return out


def _pct(x: Any) -> str:
    return "%.0f%%" % (100 * x) if finite(x) else "?"


def line(s: Straggler) -> str:
    """'allreduce 1K: rank 2 (n3) entered last in 99% of the calls, 2.0e4 us (p50) after ...'"""
    return ("%s %s: rank %d (%s) entered last in %s of the calls, %s us after the "
            "second-to-last (p50; p99 %s us); waiting for it is %s of the time" %
            (s["kernel"], size_label(s["bytes"]) if finite(s["bytes"]) else "?", s["rank"],
             s["host"], _pct(s["share"]), fmt_num(s["late_p50_us"]), fmt_num(s["late_p99_us"]),
             _pct(s["explains"])))


def text(found: List[Straggler], label: str) -> List[str]:
    """The summary's lines for one group of runs: a heading and one line per row, or []."""
    if not found:
        return []
    return ["%s: straggler named (late_rank, straggler_rank; docs/METRICS.md):" % label] + \
        ["  " + line(s) for s in found]
