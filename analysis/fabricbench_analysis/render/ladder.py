# SPDX-License-Identifier: BSD-3-Clause
"""The layer ladder drawn (docs/METRICS.md, "The layer ladder"): one figure per ladder, the
median latency and the bandwidth of each layer against the message size; and its table for the
report. The ladders come from reading/ladder_load.py."""
import math
from typing import Any, Dict, List, Sequence

from ..model.table import fmt_num, size_label
from .plot_base import COLORS, MARKERS, Drawn, _mpl

BASIS = {"half": "half round trips", "whole": "whole operations",
         "whole*": "whole operations (a half round trip doubled)", "-": ""}


def figures(ladders: Sequence[Dict[str, Any]]) -> List[Drawn]:
    """(name, caption, figure) per ladder: latency and bandwidth per layer against size."""
    Figure, _ = _mpl()
    out: List[Drawn] = []
    for n, lad in enumerate(ladders):
        fig = Figure(figsize=(11, 4.5), layout="constrained")
        ax_l, ax_b = fig.subplots(1, 2)
        for i, g in enumerate(lad["layers"]):
            rows = sorted((r for r in lad["rows"] if r["layer"] == g["layer"]),
                          key=lambda r: int(r["bytes"]))
            style = dict(color=COLORS[i % len(COLORS)], marker=MARKERS[i % len(MARKERS)])
            lat = [(r["bytes"], r["lat_us"]) for r in rows if math.isfinite(r["lat_us"])]
            bw = [(r["bytes"], r["MBps"]) for r in rows if math.isfinite(r["MBps"])]
            if lat:
                half = any(r["halved"] == 1 for r in rows)
                ax_l.plot(*zip(*lat), label="%s (%s%s)" % (g["layer"], g["latency_kernel"],
                                                          ", half RTT" if half else ""), **style)
            if bw:
                ax_b.plot(*zip(*bw), label="%s (%s)" % (g["layer"], g["bandwidth_kernel"]),
                          **style)
        for ax, what in ((ax_l, "median latency (us)"), (ax_b, "bandwidth (MB/s)")):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("message size (bytes)")
            ax.set_ylabel(what)
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        fig.suptitle("layer ladder: %s %s" % (lad["file"].rsplit("/", 1)[-1], lad["run"]))
        name = "ladder" if n == 0 else "ladder_%d" % (n + 1)
        out.append((name, "Layer ladder of %s %s: latency (left; half RTT: half a round trip) "
                    "and bandwidth (right) per layer against message size" %
                    (lad["file"], lad["run"]), fig))
    return out


def rows(lad: Dict[str, Any]) -> List[List[str]]:
    """The ladder as table cells: size, layer, latency, basis, MB/s, vs, adds, % of bandwidth,
    the rows' quality."""
    vs = {g["layer"]: g["vs"] or "-" for g in lad["layers"]}
    return [[size_label(r["bytes"]), r["layer"], fmt_num(r["lat_us"]),
             "-" if math.isnan(r["lat_us"]) else ("half" if r["halved"] == 1 else "whole"),
             fmt_num(r["MBps"]), vs[r["layer"]], fmt_num(r["adds_us"]),
             BASIS.get(r["basis"], r["basis"]), fmt_num(r["pct_bw"]),
             "%s, %s" % (r["lat_quality"], r["bw_quality"])] for r in lad["rows"]]


HEAD = ["size", "layer", "latency us", "time is", "MB/s", "vs", "adds us", "compared as",
        "% of vs MB/s", "quality (latency, bandwidth)"]


def notes(lad: Dict[str, Any]) -> List[str]:
    """The layers the run could not set up, and one-sided bandwidth far below two-sided (the
    threshold the tool used)."""
    missing = ["%s (%s)" % (g["layer"], g["latency_kernel"] or g["bandwidth_kernel"] or "-")
               for g in lad["layers"] if g.get("measured") is False]
    out = ["not measured: %s: no row (a window the osc component could not make, or the run's "
           "end came first)" % ", ".join(missing)] if missing else []
    for r in lad["rows"]:
        if r["layer"].startswith("mpi_") and r["pct_bw"] < lad["low_pct"]:
            out.append("%s bandwidth is %.0f%% of its two-sided at %s (under %.0f%%): check "
                       "the osc component" % (r["layer"], r["pct_bw"], size_label(r["bytes"]),
                                              lad["low_pct"]))
    return out
