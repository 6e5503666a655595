# SPDX-License-Identifier: BSD-3-Clause
"""The congestion kernels drawn and tabled (docs/METRICS.md, "Congestion"): one figure with a
row of axes per canary kernel, the canary alone and congested per congestor pattern at the mean
(left) and at p99 (right), each pair of bars marked with its CIF; and the report's section (the
CIFs per canary and pattern, the canaries that suffered most, the warnings stored in the file).
The rows come from model/congestion.py; every number is a stored column."""
import textwrap
from typing import Any, Dict, List

from ..model import congestion, quality
from ..model.table import Row, Table, finite, fmt_num
from .plot_base import Drawn, _mpl

ALONE, CONGESTED = "#7f7f7f", "#d62728"
# (the axes' statistic, the alone column, the congested column, the CIF column)
STATS = (("mean", "alone_mean_us", "congested_mean_us", "cif_mean"),
         ("p99", "alone_p99_us", "congested_p99_us", "cif_p99"))
NAME = "congestion"  # the figure's file name (congestion.png, congestion.svg)
LABEL_WRAP = 18  # a run's label above its patterns, wrapped at this many characters


def _tick(r: Row, several: bool) -> str:
    """'incast 4K', under the run's label (wrapped) where the figure has several runs."""
    text = congestion.where(r)
    return "%s\n%s" % (textwrap.fill(r["label"], LABEL_WRAP), text) if several else text


def _width(ticks: List[str], n: int) -> float:
    """The figure's width (inches) so that n tick labels of an axes (8 pt) and the CIF marks
    above them lie apart, 2 axes side by side: about 0.07 in per character of the longest
    line, plus the gap declutter keeps (plot.py; else it would drop the labels that touch)."""
    chars = max([len(line) for t in ticks for line in t.splitlines()] + [len("[disturbed]")])
    return max(9.0, 2 * n * (0.07 * chars + 0.25) + 1.6)


def figures(table: Table) -> List[Drawn]:
    """[(name, caption, Figure)]: one figure for the congestion rows of the table, [] for none."""
    found = congestion.rows(table)
    if not found:
        return []
    Figure, _ = _mpl()
    kernels = list(dict.fromkeys(r["kernel"] for r in found))
    several = len({r["label"] for r in found}) > 1
    width = max(_width([_tick(r, several) for r in found if r["kernel"] == k],
                       sum(1 for r in found if r["kernel"] == k)) for k in kernels)
    fig = Figure(figsize=(width, 3.8 * len(kernels) + 0.6), layout="constrained")
    axes = fig.subplots(len(kernels), 2, squeeze=False)
    hollow = False
    for row_axes, kernel in zip(axes, kernels):
        rs = [r for r in found if r["kernel"] == kernel]
        what = congestion.CANARIES[kernel][0]
        for ax, (stat, a_col, c_col, cif_col) in zip(row_axes, STATS):
            xs = list(range(len(rs)))
            for dx, col, colour, label in ((-0.2, a_col, ALONE, "alone"),
                                           (0.2, c_col, CONGESTED, "congested")):
                for x, r in zip(xs, rs):
                    v = congestion.num(r, col)
                    if not finite(v):
                        continue
                    bad = bool(quality.mark(r))
                    hollow = hollow or bad
                    ax.bar(x + dx, v, 0.4, color="none" if bad else colour, edgecolor=colour,
                           hatch="//" if bad else None, label=label if x == 0 else None)
            top = max([congestion.num(r, c) for r in rs for c in (a_col, c_col)
                       if finite(r.get(c))] or [1.0])
            for x, r in zip(xs, rs):
                cif = congestion.num(r, cif_col)
                ax.annotate("CIF %s%s" % (fmt_num(cif, 3), quality.mark(r).replace(" ", "\n")),
                            (x, top * 1.04), ha="center", va="bottom", fontsize=8,
                            color=CONGESTED if finite(cif) and cif > 1.5 else "black")
            ax.set_ylim(0, top * 1.6)  # room for the CIFs, and the legend above them
            ax.set_xticks(xs)
            ax.set_xticklabels([_tick(r, several) for r in rs], fontsize=8)
            ax.set_xlabel("congestor pattern and message size")
            ax.set_ylabel("%s time per operation (us)" % stat)
            ax.set_title("%s: %s, %s" % (kernel, what, stat), fontsize=10)
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=8, loc="upper left", ncol=2)
    fig.suptitle("congestion: the canaries alone and under each congestor pattern")
    cap = ("The congestion kernels' canaries (a row per canary kernel): the time per operation "
           "alone (grey) and under each congestor pattern (red), at the mean (left) and at "
           "the 99th percentile (right); above each pair its congestion impact factor (CIF, "
           "congested / alone of the stored times: 1 is no harm, larger is worse; for the "
           "bandwidth canary the ratio of the rates). Lower is better.")
    if hollow:
        cap += (" Hatched bars are rows marked disturbed or invalid (their CIF carries the "
                "mark): not measurements of the fabric.")
    return [(NAME, cap, fig)]


HEAD = ["canary", "congestor", "alone mean us", "congested mean us", "CIF mean",
        "alone p99 us", "congested p99 us", "CIF p99", "congestor Gb/s", "load % of alone",
        "suffered most", "warnings", "quality"]
NUMERIC = (2, 3, 4, 5, 6, 7, 8, 9)


def table_rows(found: List[Row]) -> List[List[str]]:
    """The report's table: one line per canary and pattern (and run, where several)."""
    several = len({r["label"] for r in found}) > 1
    out = []
    for r in found:
        mark = quality.mark(r)
        out.append([r["kernel"] + (" (%s)" % r["label"] if several else ""),
                    congestion.where(r), fmt_num(r.get("alone_mean_us")),
                    fmt_num(r.get("congested_mean_us")), fmt_num(r.get("cif_mean")) + mark,
                    fmt_num(r.get("alone_p99_us")), fmt_num(r.get("congested_p99_us")),
                    fmt_num(r.get("cif_p99")) + mark, fmt_num(r.get("congestor_gbps")),
                    fmt_num(r.get("congestor_load_pct")), congestion.worst_host(r) or "-",
                    ", ".join(congestion.warn_names(r)) or "-", r.get("quality", "ok")])
    return out


def suffered_lines(found: List[Row]) -> List[str]:
    """'cong_bw under incast 60K: CIF 3.930 at p99, 1.830 at the mean; the canary that
    suffered most: rank 41 (node-41)' for the rows that suffered most
    (model/congestion.suffered_most)."""
    several = len({r["label"] for r in found}) > 1
    out = []
    for r in congestion.suffered_most(found):
        who = congestion.worst_host(r)
        out.append("%s%s: CIF %s at p99, %s at the mean%s%s" % (
            congestion.name(r), " (%s)" % r["label"] if several else "",
            fmt_num(r.get("cif_p99"), 3), fmt_num(r.get("cif_mean"), 3),
            "; the canary that suffered most: " + who if who else "", quality.mark(r)))
    return out


def section(table: Table) -> Dict[str, Any]:
    """What the report's congestion section shows: rows (HEAD), the canaries that suffered
    most, the warnings; {} where the table has no congestion rows."""
    found = congestion.rows(table)
    if not found:
        return {}
    return {"rows": table_rows(found), "suffered": suffered_lines(found),
            "warnings": congestion.warn_lines(found),
            "not_comparable": sum(1 for r in found if quality.mark(r))}
