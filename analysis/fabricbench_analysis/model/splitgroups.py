# SPDX-License-Identifier: BSD-3-Clause
"""Groups of a `--split` run compared (issue 32, item 3).

A run with `fabricbench run --split mod:K|div:K|node|rail` has one row per group and size (the
columns group, group_ranks); every group ran the collective at once on its own communicator.
For each series, kernel instance and size with two groups or more this names the slowest group:
the one with the largest mean_us, its ratio to the median group's mean_us, and the ratio of its
busbw to the median group's busbw (below 1: slower).
"""
import statistics
from typing import Any, Dict, List

from .table import Table, finite, instance, kernel_name, size_label

# One comparison: label, kernel, bytes, groups [{group, ranks, mean_us, busbw_GBps}], slowest,
# time_ratio (its mean_us / the median group's), busbw_ratio (its busbw / the median's).
Comparison = Dict[str, Any]


def compare_groups(table: Table) -> List[Comparison]:
    """The comparisons of every series, kernel instance and size that has 2 groups or more."""
    if "group" not in table.columns:
        return []
    by: Dict[Any, List[Dict[str, Any]]] = {}
    for r in table.rows:
        if not r.get("group"):
            continue
        key = (r["label"], instance(r), int(r["bytes"]))
        by.setdefault(key, []).append(r)
    out: List[Comparison] = []
    for (label, inst, nbytes), rows in by.items():
        times = [r["mean_us"] for r in rows if finite(r.get("mean_us"))]
        if len(times) < 2:
            continue
        slow = max((r for r in rows if finite(r.get("mean_us"))), key=lambda r: float(r["mean_us"]))
        med_t = statistics.median(times)
        bws = [r["busbw_GBps"] for r in rows if finite(r.get("busbw_GBps"))]
        med_b = statistics.median(bws) if bws else float("nan")
        out.append({
            "label": label, "kernel": kernel_name(inst[0], inst[1]), "bytes": nbytes,
            "groups": [{"group": r["group"], "ranks": r.get("group_ranks", ""),
                        "mean_us": r["mean_us"], "busbw_GBps": r.get("busbw_GBps")}
                       for r in rows],
            "slowest": slow["group"],
            "time_ratio": slow["mean_us"] / med_t if med_t > 0 else float("nan"),
            "busbw_ratio": (slow.get("busbw_GBps") / med_b
                            if finite(slow.get("busbw_GBps")) and finite(med_b) and med_b > 0
                            else float("nan")),
        })
    return out


def render_text(comps: List[Comparison]) -> str:
    """One line per size: its groups' times and the slowest named with its ratios."""
    if not comps:
        return ""
    lines = ["", "groups (--split; every group ran at once): the slowest per size, its time "
             "and busbw against the median group's"]
    for c in comps:
        each = ", ".join("%s [%s] %.4g us" % (g["group"], g["ranks"], g["mean_us"])
                         for g in c["groups"])
        lines.append("  %s %s %s: slowest %s, time x%.2f, busbw x%.2f of the median (%s)" % (
            c["label"], c["kernel"], size_label(c["bytes"]), c["slowest"], c["time_ratio"],
            c["busbw_ratio"], each))
    return "\n".join(lines) + "\n"
