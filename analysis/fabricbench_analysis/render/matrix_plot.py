# SPDX-License-Identifier: BSD-3-Clause
"""Heatmaps of the pairs kernels' matrices (plot, report): one figure per matrix.

Bandwidth (MB/s, row sends to column) or one-way p50 latency (us); cells not measured (and
the diagonal) grey and hatched; slow cells outlined; suspect members' tick labels red and
marked with a triangle; the verdict in the title. Headless, as plot.py.
"""
import math
from typing import Any, Dict, Iterable, List, Tuple

import numpy as np

from . import matrix
from ..reading.matrix_load import is_bw
from .plot_base import _mpl, plain

TICKS_ALL = 64  # members up to which every name is a tick label; above, thinned
NOT_MEASURED_COLOR = "#d0d0d0"
HATCH_MAX = 20000  # cells not measured hatched up to this many
SLOW_COLOR = "#ff2a2a"
SUSPECT_COLOR = "#c62828"
LOAD_COLOR = "#ff9f1c"  # slow only under load: ok when retested alone

Matrix = Dict[str, Any]  # a matrix as matrix_load reads it (annotated by quality)


def _ticks(n: int) -> List[int]:
    """Tick positions: all up to TICKS_ALL members, else about TICKS_ALL of them, evenly."""
    if n <= TICKS_ALL:
        return list(range(n))
    step = int(math.ceil(n / float(TICKS_ALL)))
    return list(range(0, n, step))


def _label_size(n: int) -> int:
    return 9 if n <= 16 else 8 if n <= 32 else 6 if n <= 48 else 5


def title(m: Matrix) -> str:
    st = matrix.status(m)
    verdict = "verdict healthy" if st == "healthy" else \
        "verdict SUSPECTS: %d" % len(m["suspects"]) if st == "suspects" else \
        "NOT COMPARABLE (row %s), no verdict" % m["quality"] if st == "not_comparable" else \
        "INCOMPLETE (%d of %d rounds), no verdict" % (m["rounds_done"], m["rounds"])
    what = "bandwidth, MB/s" if is_bw(m) else "one-way latency p50, \u00b5s"
    return "%s (%s): %s, %s; %s" % (m["kernel"], m["run"], what,
                                    matrix.bytes_text(m["bytes"]), verdict)


def figure(m: Matrix) -> Tuple[Any, str]:
    """(Figure, caption) for one matrix."""
    Figure, _ticker = _mpl()
    from matplotlib import colormaps
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Patch, Rectangle

    n = m["members"]
    bw = is_bw(m)
    vals = np.array(m["values"][m["metric"]], dtype=float)
    np.fill_diagonal(vals, np.nan)
    side = min(16.0, max(6.5, 4.0 + n * 0.16))
    fig = Figure(figsize=(side + 1.8, side + 0.9), dpi=100, layout="constrained")
    gs = fig.add_gridspec(2, 1, height_ratios=[side, 0.7])
    ax = fig.add_subplot(gs[0])
    lax = fig.add_subplot(gs[1])  # the legend's own row: it can hide neither cells nor names
    lax.axis("off")
    cmap = colormaps["viridis" if bw else "viridis_r"].copy()
    cmap.set_bad(NOT_MEASURED_COLOR)
    masked = np.ma.masked_invalid(vals)  # type: ignore[no-untyped-call]
    finite = vals[np.isfinite(vals)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi <= lo:
        lo, hi = lo * 0.9, hi * 1.1 + 1e-9
    im = ax.imshow(masked, cmap=cmap, vmin=lo, vmax=hi, interpolation="nearest",
                   aspect="equal")
    # Hatch what was not measured, so that grey never reads as a value (up to HATCH_MAX
    # cells: beyond, the grey alone, which the legend names, keeps a huge matrix quick).
    nan = np.argwhere(~np.isfinite(vals))
    if len(nan) <= HATCH_MAX:
        ax.add_collection(PatchCollection(
            [Rectangle((d - 0.5, s - 0.5), 1, 1) for s, d in nan], facecolor="none",
            edgecolor="#808080", linewidth=0, hatch="//", gid="not_measured"))
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label("MB/s (10\u2076 B/s), higher is better" if bw else
                 "one-way latency p50 (\u00b5s), lower is better")
    slow = [(int(s), int(d)) for s, d in zip(*np.nonzero(matrix.slow_cells(m)))]
    lw = 2.5 if n <= 16 else 1.5 if n <= 64 else 0.6
    if slow:
        ax.add_collection(PatchCollection(
            [Rectangle((d - 0.5, s - 0.5), 1, 1) for s, d in slow], facecolor="none",
            edgecolor=SLOW_COLOR, linewidth=lw, gid="slow"))
    load = [] if m["pair_slow"] is None else \
        [(int(s), int(d)) for s, d in zip(*np.nonzero(m["pair_slow"] == matrix.LOAD_ONLY))]
    if load:
        ax.add_collection(PatchCollection(
            [Rectangle((d - 0.5, s - 0.5), 1, 1) for s, d in load], facecolor="none",
            edgecolor=LOAD_COLOR, linewidth=lw, linestyle="--", gid="load_only"))
    ticks = _ticks(n)
    names = [plain(m["nodes"][i]) for i in ticks]
    suspects = set(matrix.suspect_nodes(m))
    labels = [("\u25b2 " + x) if i in suspects else x for i, x in zip(ticks, names)]
    fs = _label_size(len(ticks))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xticklabels(labels, rotation=90, fontsize=fs)
    ax.set_yticklabels(labels, fontsize=fs)
    for axis in (ax.get_xticklabels(), ax.get_yticklabels()):
        for i, t in zip(ticks, axis):
            if i in suspects:
                t.set_color(SUSPECT_COLOR)
                t.set_fontweight("bold")
    ax.set_xlabel("receiver (column)" if bw else "member")
    ax.set_ylabel("sender (row)" if bw else "member")
    ax.set_title(plain(title(m)), fontsize=11)
    handles = [Patch(facecolor=NOT_MEASURED_COLOR, hatch="//", edgecolor="#808080",
                     label="not measured (diagonal: the member itself)")]
    if slow:
        handles.append(Patch(facecolor="none", edgecolor=SLOW_COLOR, linewidth=1.6,
                             label="slow (the verdict's thresholds)"))
    if load:
        handles.append(Patch(facecolor="none", edgecolor=LOAD_COLOR, linewidth=1.6,
                             linestyle="--", label="slow only under load (ok alone)"))
    if suspects:
        handles.append(Patch(facecolor="none", edgecolor="none",
                             label="\u25b2 red name: a suspect names this member"))
    lax.legend(handles=handles, loc="center", ncol=1 if side < 9 else len(handles),
               fontsize=8, frameon=False)
    caption = _caption(m, len(slow), len(suspects), len(ticks) < n)
    if load:
        caption += " Dashed orange: %d cell%s slow only under load (slow in the schedule, ok " \
            "when retested alone)." % (len(load), "" if len(load) == 1 else "s")
    return fig, caption


def _caption(m: Matrix, nslow: int, nsus: int, thinned: bool) -> str:
    bw = is_bw(m)
    parts = ["%s of every pair of %d %s (%s, %s)" % (
        "Bandwidth in MB/s from the row's member to the column's" if bw else
        "One-way latency (p50, \u00b5s) of", m["members"],
        "ranks" if m["pairs_per"] == "rank" else "nodes", m["file"], m["run"])]
    parts.append("grey hatched cells were not measured")
    if nslow:
        parts.append("%d outlined cell%s slow (%s)" % (nslow, " is" if nslow == 1 else "s are",
                                                      matrix.threshold_text(m)))
    if nsus:
        parts.append("names marked \u25b2 in red are members a suspect names")
    if thinned:
        parts.append("every name is not labelled at this size")
    text = "; ".join(parts) + "."
    if m["suspects"]:
        text += " Suspects: " + "; ".join(m["suspects"]) + "."
    elif not m["complete"]:
        text += " The run stopped before the verdict: %d of %d rounds." % (m["rounds_done"],
                                                                          m["rounds"])
    return text


def figures(ms: Iterable[Matrix]) -> List[Tuple[str, str, Any]]:
    """[(name, caption, Figure)]: KERNEL_matrix, then KERNEL_matrix_2, ... for further
    matrices of the same kernel (other runs or files). Names are kernel names (loading admits
    only [a-z][a-z0-9_]*) and fixed suffixes: plot.save checks them again."""
    out: List[Tuple[str, str, Any]] = []
    seen: Dict[str, int] = {}
    for m in ms:
        seen[m["kernel"]] = seen.get(m["kernel"], 0) + 1
        k = seen[m["kernel"]]
        name = "%s_matrix%s" % (m["kernel"], "" if k == 1 else "_%d" % k)
        fig, cap = figure(m)
        out.append((name, cap, fig))
    return out
