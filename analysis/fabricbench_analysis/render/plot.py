# SPDX-License-Identifier: BSD-3-Clause
"""Plots from the tidy table: latency (p50 line, p99 band), bandwidth with the line rate, busbw.

Headless: figures are matplotlib Figure objects drawn with the Agg (PNG) and SVG backends,
never through pyplot, so no display is needed or touched.
"""
import functools
import io
import math
from operator import itemgetter
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple, Union

from ..reading.files import OutputDir
from ..model import congestion as cong_rows
from ..model import grouping
from ..model.errors import EXIT_INTERNAL, AnalysisError
from ..model.hostile import safe_text
from ..model.table import Row, Table, instance
from ..reading.matrix_verdict import Matrix
from . import congestion, ladder, matrix_plot, plot_options
from .plot_base import (COLORS, MARKERS, WRAP, _FILE_NAME, Curve, _bandwidth, _by_series,
                        _collective, _mpl, _place_legend, _series_curves, _size_xaxis, _style,
                        _time_figure, _variants, plain)
from .plot_base import Axes, Drawn, Figure, Ticker


def tables(table: Table) -> List[Dict[str, Any]]:
    """What is a table row, not a plot (plot_options.tables: gradsync with one setup); not the
    congestion kernels, which have a figure of their own (congestion.py)."""
    return [t for t in plot_options.tables(table) if not cong_rows.is_congestion(t["kernel"])]


def _group_curves(table: Table, groups: Sequence[grouping.Group], kernel: str,
                  variants: List[str], cache: Dict[str, List[Row]]) -> List[Curve]:
    """A curve per group of runs (grouping.py: repeats of one measurement) and kernel
    instance: the group rows (the median over its runs, grouping.group_rows), the group's
    colour; with several instances, the marker tells the instance."""
    curves = []
    for i, g in enumerate(groups):
        if g.name not in cache:
            cache[g.name] = grouping.group_rows(table, g)
        color, marker = COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)]
        status = [m["run_status"] for m in g.members if m["run_status"] not in ("complete", "")]
        name = g.name + (" (%d runs)" % len(g) if len(g) > 1 else "")
        name += "".join(" [%s]" % st for st in dict.fromkeys(status))
        for v in variants:
            rs = sorted((r for r in cache[g.name] if r["kernel"] == kernel and
                         instance(r)[1] == v and r["bytes"] > 0), key=itemgetter("bytes"))
            if not rs:
                continue
            if len(variants) > 1:
                marker = MARKERS[variants.index(v) % len(MARKERS)]
            curves.append(Curve("%s %s" % (g.name, v) if v else g.name, (color, marker),
                                plain(name) + (" " + plain(v) if v else ""), rs,
                                [r["bytes"] for r in rs], rs[0]["line_rate_gbps"], g.name))
    return curves


def figures(table: Table, per_run: bool = False,
            group_keys: Optional[Sequence[str]] = None) -> List[Drawn]:
    """[(name, caption, Figure)] for every kernel of the table, in kernel order: one figure
    per kernel (and kind of figure), its instances as curves of their own. A curve per group
    of runs (grouping.py, group_keys as --group): the median of its runs, their range shaded;
    per_run: a curve per run. A kernel of one message size in every run is a table row, not
    a figure (tables()). The congestion kernels: one figure of their own, last (congestion.py).
    """
    Figure, ticker = _mpl()
    style = _style(table)
    labels = table.labels()
    groups = None if per_run else grouping.make_groups(table, group_keys)
    several = groups is not None and any(len(g) > 1 for g in groups)
    points = {t["kernel"] for t in tables(table)}
    cache: Dict[str, List[Row]] = {}
    out: List[Drawn] = []
    for kernel in table.kernels():
        if kernel in points or cong_rows.is_congestion(kernel):
            continue
        rows = table.where(kernel=kernel)
        variants = _variants(rows)
        if groups is None:
            series = _by_series(rows, labels)
            curves = _series_curves(series, style, variants)
        else:
            curves = _group_curves(table, groups, kernel, variants, cache)
        if not curves:
            continue  # barrier: one row of 0 bytes, nothing to put on a size axis
        figs = _kernel_figures(Figure, ticker, table, kernel, rows, curves)
        if len(variants) > 1:
            figs = [(name, "%s One curve per %s and instance of %s (%s): the colour tells "
                     "the %s, the marker the instance." % (
                         cap, "run" if groups is None else "group of runs", kernel,
                         ", ".join(variants), "run" if groups is None else "group"), fig)
                    for name, cap, fig in figs]
        if several:
            figs = [(name, cap + " A group's runs (repeats of one measurement) are one curve, "
                     "their median; the shaded band is the range of its runs "
                     "(fabricbench-analyze plot --per-run draws each run).", fig)
                    for name, cap, fig in figs]
        out += figs
    return out + congestion.figures(table)


def fit(fig: Figure) -> None:
    """Lay a figure out so that it can be read as it is shipped (png_bytes and save do it
    before writing, once): every legend within the figure (its texts wrapped and its columns
    chosen to fit; the figure taller where the legend needs it), and no two tick labels of an
    axis overlapping (declutter)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if getattr(fig, "fabricbench_fitted", False):
        return
    fig.fabricbench_fitted = True
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    drawn = False
    for ax in fig.axes:
        if not hasattr(ax, "fabricbench_legend"):
            continue
        n = len(ax.fabricbench_legend[0])
        tries = [(ncol, width) for width in WRAP for ncol in range(min(3, n), 0, -1)]
        # A legend's width does not depend on the layout: the widest that leaves 9% of the
        # figure's width (the axes are off centre by the y label) is tried first; a layout
        # then says whether it lies within, with 2% to spare (at 72 dpi, SVG, text runs a
        # little wider).
        narrow = next((t for t in tries if _legend_width(ax, renderer, *t) <=
                       0.91 * fig.bbox.width), None)
        for ncol, width in ([narrow] if narrow else []) + tries:
            _place_legend(ax, ncol, width)
            _layout(fig)
            box = ax.get_legend().get_window_extent(renderer)
            spare = 0.02 * fig.bbox.width
            if inside(fig, box) and box.x0 >= spare and box.x1 <= fig.bbox.width - spare:
                break
        # A legend of many entries leaves the axes too little height: the figure grows.
        for _ in range(3):
            if ax.get_position().height >= 0.45:
                break
            leg = ax.get_legend().get_window_extent(renderer)
            w, h = fig.get_size_inches()
            fig.set_size_inches(w, h + leg.height / fig.dpi)
            _layout(fig)
        drawn = True
    if not drawn:
        _layout(fig)
    declutter(fig, renderer)


def _layout(fig: Figure) -> None:
    """The figure's constrained layout, without drawing it (the positions fit() measures)."""
    fig.get_layout_engine().execute(fig)


def _legend_width(ax: Axes, renderer: Any, ncol: int, width: int) -> float:
    _place_legend(ax, ncol, width)
    return float(ax.get_legend().get_window_extent(renderer).width)


def inside(fig: Figure, box: Any, margin: float = 1.0) -> bool:
    """Whether a box (display units) lies within the figure, `margin` pixels beyond it
    allowed (negative: that far inside)."""
    return bool(box.x0 >= -margin and box.y0 >= -margin and
                box.x1 <= fig.bbox.width + margin and box.y1 <= fig.bbox.height + margin)


def _tick_priority(axis: Any, loc: float, i: int) -> int:
    """Which tick labels stay when they would overlap: on a log axis, decades first, then 2
    and 5 x a decade; on others every other, every fourth, ... label first."""
    if axis.get_scale() == "log" and loc > 0 and axis.axis_name == "y":
        m = loc / 10 ** math.floor(math.log10(loc) + 1e-9)
        return 0 if abs(m - 1) < 1e-6 else 1 if min(abs(m - 2), abs(m - 5)) < 1e-6 else 2
    if i == 0:
        return 0
    return -((i & -i).bit_length())


TICK_GAP = 0.35  # the least gap between tick labels, in multiples of their font size


def declutter(fig: Figure, renderer: Any) -> None:
    """No two tick labels of an axis overlap (with a gap of TICK_GAP x the font size, room
    for an SVG viewer's font to be wider): where they would, the axis keeps the labels of
    most weight (_tick_priority) that fit, its locator fixed to them."""
    from matplotlib.ticker import FixedLocator

    changed = False
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            got: List[Tuple[float, int, Any, float]] = []
            for i, (loc, tick) in enumerate(zip(axis.get_majorticklocs(),
                                                axis.get_major_ticks())):
                lab = tick.label1
                if lab.get_visible() and lab.get_text() and lo <= loc <= hi:
                    got.append((loc, i, lab.get_window_extent(renderer),
                                lab.get_fontsize() * fig.dpi / 72.0))
            kept: List[Tuple[float, int, Any, float]] = []
            for loc, i, box, size in sorted(got, key=lambda g: (
                    _tick_priority(axis, g[0], g[1]), g[1])):
                if all(not _overlap(box, k[2], size * TICK_GAP) for k in kept):
                    kept.append((loc, i, box, size))
            if len(kept) < len(got):
                axis.set_major_locator(FixedLocator(sorted(k[0] for k in kept)))
                changed = True
    if changed:
        _layout(fig)


def _overlap(a: Any, b: Any, gap: float) -> bool:
    return bool(a.x0 < b.x1 + gap and b.x0 < a.x1 + gap and a.y0 < b.y1 + gap and
                b.y0 < a.y1 + gap)


def _kernel_figures(Figure: Any, ticker: Ticker, table: Table, kernel: str, rows: List[Row],
                    curves: List[Curve]) -> List[Drawn]:
    kind = rows[0]["kind"]
    if kind == "latency":
        title = "%s: one-way latency vs message size (p50 line, p99 dotted)" % kernel
        fig = _time_figure(Figure, ticker, curves, "one-way latency", title,
                           _size_xaxis(ticker))
        if not fig:
            return []
        return [(kernel, "One-way latency (round trip / 2) per message size: the line is the "
                 "median (p50) of the per-iteration times, the dotted line of the same colour "
                 "the 99th percentile. Lower is better.", fig)]
    if kind == "bandwidth":
        return _bandwidth(Figure, ticker, kernel, rows, curves)
    if kind == "collective" and plot_options.one_size_kernel(rows):
        return plot_options.figures(Figure, ticker, table, kernel)
    if kind == "collective":
        return _collective(Figure, ticker, kernel, rows, curves)
    return []


def png_bytes(fig: Figure, dpi: Optional[float] = None) -> bytes:
    fit(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def _savefig(fig: Figure, f: IO[Any], fmt: str, meta: Dict[str, Any]) -> None:
    """Into the open file f. SVG keeps its text as text (selectable, searchable, what a
    reader of the file sees)."""
    import matplotlib

    fit(fig)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(f, format=fmt, metadata=meta)


def save(table: Table, outdir: Union[OutputDir, str], formats: Sequence[str] = ("png", "svg"),
         matrices: Sequence[Matrix] = (), per_run: bool = False,
         group_keys: Optional[Sequence[str]] = None,
         ladders: Sequence[Dict[str, Any]] = ()) -> List[str]:
    """Write every figure (and a heatmap per pairs matrix) as outdir/NAME.FORMAT; returns the
    paths written. per_run: a curve per run, not per group of runs. outdir: a files.OutputDir
    (or a path): every file is written to a temporary file in it and renamed into place, never
    through a link (files.py)."""
    if not isinstance(outdir, OutputDir):
        outdir = OutputDir(outdir, False)
    outdir.open()
    try:
        return _save(table, outdir, formats, matrices, per_run, group_keys, ladders)
    finally:
        outdir.close()


def _save(table: Table, outdir: OutputDir, formats: Sequence[str], matrices: Sequence[Matrix],
          per_run: bool, group_keys: Optional[Sequence[str]],
          ladders: Sequence[Dict[str, Any]] = ()) -> List[str]:
    written = []
    figs = figures(table, per_run=per_run, group_keys=group_keys) if len(table) else []
    figs += ladder.figures(ladders)  # `run ladder`: named ladder, ladder_2, ...
    if matrices:
        used = {name for name, _, _ in figs}
        for name, cap, fig in matrix_plot.figures(matrices):
            k = 2
            while name in used:  # a kernel named like another's heatmap: never overwrite
                name = "%s_%d" % (name.rsplit("_", 1)[0] if k > 2 else name, k)
                k += 1
            used.add(name)
            figs.append((name, cap, fig))
    if not figs:
        rows = tables(table)
        if rows:
            raise AnalysisError(
                "nothing to plot: %s" % "; ".join("%s has %s" % (t["kernel"], t["why"])
                                                  for t in rows),
                "fabricbench-analyze report shows it; runs of several --bucket or --inflight "
                "values are plotted against them")
        raise AnalysisError("nothing to plot: the input has no kernel with message sizes "
                            "(only barrier?)", "measure latency, bw or a collective")
    for name, _caption, _fig in figs:
        # The names are kernel names (loading admits only [a-z][a-z0-9_]*) and fixed suffixes;
        # checked again here, so that no name from a file can ever leave the directory.
        if not _FILE_NAME.match(name):
            raise AnalysisError("a plot would be named '%s', which is not a plain file name" %
                                safe_text(name), "this is a bug of fabricbench-analyze",
                                EXIT_INTERNAL)
        # Every file's entry checked before the first is written (a planted link among them
        # refuses the command before it writes anything); each is checked again when written.
        for fmt in formats:
            outdir.check_entry("%s.%s" % (name, fmt))
    for name, _caption, fig in figs:
        for fmt in formats:
            meta: Dict[str, Any] = {"Date": None} if fmt == "svg" else {"Software": None}
            path = outdir.write("%s.%s" % (name, fmt),
                                functools.partial(_savefig, fig, fmt=fmt, meta=meta))
            written.append(path)
    return written
