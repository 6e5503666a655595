# SPDX-License-Identifier: BSD-3-Clause
"""The drawing pieces of the plots (plot.py): colours, markers, axes, legends, the latency and
rate figures of one kernel. plot_options.py and matrix_plot.py draw with them too, so they are
a module of their own, below all three.

matplotlib is imported in _mpl() (and a few drawing functions), when a figure is drawn: not at
import, so that the commands that draw nothing start without it.
"""
import math
import re
import textwrap
from operator import itemgetter
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..model import quality
from ..model.errors import AnalysisError
from ..model.table import Row, Table, finite, instance, size_label

# matplotlib's objects (Debian's matplotlib 3.6 has no type hints): a Figure, an Axes, the
# matplotlib.ticker module, as _mpl() returns them and the drawing functions take them.
Figure = Any
Axes = Any
Ticker = Any
# A colour and a marker (_style).
Style = Tuple[str, str]
# A figure drawn: (file name without extension, caption, figure).
Drawn = Tuple[str, str, Figure]
# Draws a figure's x axis: xaxis(ax, the xs drawn).
XAxis = Callable[[Axes, List[Any]], None]

_FILE_NAME = re.compile(r"[a-z][a-z0-9_]{0,80}\Z")

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]


def _mpl() -> Tuple[Any, Ticker]:
    try:
        import matplotlib
        matplotlib.use("Agg")  # never a display, whatever MPLBACKEND says
        from matplotlib.figure import Figure
        from matplotlib import ticker
    except ImportError as e:
        raise AnalysisError("plots need matplotlib (%s)" % e,
                            "apt-get install python3-matplotlib")
    return Figure, ticker


def _style(table: Table) -> Dict[str, Style]:
    """A colour and marker per series, the same in every figure."""
    return {lab: (COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)])
            for i, lab in enumerate(table.labels())}


def short(label: str) -> str:
    """A run's label as a legend shows it: at most LABEL_MAX characters ('...' at the end)."""
    return label if len(label) <= LABEL_MAX else label[:LABEL_MAX - 3] + "..."


def _legend_label(rows: Sequence[Row]) -> str:
    r = rows[0]
    lab = short(r["label"])
    if r["run_status"] not in ("complete", ""):
        lab += " [%s]" % r["run_status"]
    return plain(lab)


DRAWN_MAX = 120  # characters of one text drawn (a legend entry, a title, a tick label)
LABEL_MAX = 48  # characters of a run's label in a legend


def plain(text: str) -> str:
    """Text from a file for matplotlib, which reads $...$ as math (a lone $ or a bad formula
    would fail the drawing) and hides legend entries that start with _; cut at DRAWN_MAX
    characters with '...' (a label of thousands overflows the rasteriser: the fabric name of
    a crafted file, even cut at hostile.MAX_TEXT, made plot fail)."""
    if len(text) > DRAWN_MAX:
        text = text[:DRAWN_MAX - 3] + "..."
    text = text.replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def _size_axis(ax: Axes, ticker: Ticker, sizes: Iterable[Any],
               what: str = "message size") -> None:
    sizes = sorted(s for s in sizes if s > 0)
    lo, hi = math.log2(sizes[0]), math.log2(sizes[-1])
    ax.set_xscale("log", base=2)
    uniq = sorted(set(sizes))
    if len(uniq) <= 10:
        ticks = [float(x) for x in uniq]  # few sizes: label exactly the measured ones
    else:
        k0, k1 = int(math.floor(lo)), int(math.ceil(hi))
        step = max(1, int(math.ceil((k1 - k0) / 10.0)))
        if step > 1 and step % 2:
            step += 1  # ticks on powers of 4 or 16 read better than powers of 8
        ticks = [2.0 ** k for k in range(k0 - (k0 % step), k1 + 1, step)]
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: size_label(int(round(v)))))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    pad = 0.3 if hi > lo else 1.0
    ax.set_xlim(2.0 ** (lo - pad), 2.0 ** (hi + pad))
    ax.set_xlabel("%s (bytes; K = 1024, M = 1024\u00b2)" % what)


def _log_y(ax: Axes, ticker: Ticker, lo: float, hi: float) -> None:
    """A log y axis over [lo, hi] whose labels are plain numbers and never too few."""
    lo, hi = lo / 1.4, hi * 1.4
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    decades = math.log10(hi / lo)
    subs = (1.0,) if decades > 3 else (1.0, 2.0, 5.0) if decades > 1 else \
        (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=subs, numticks=30))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(_num))
    ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs="auto", numticks=30)
                               if decades <= 3 else ticker.LogLocator(base=10, subs=(
                                   2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0), numticks=30))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def _num(v: float, _pos: Any = None) -> str:
    """A tick label as a plain number, never an exponent or an offset: 3 significant digits
    (0.0005, 1.5, 150, 1234), thousands separated from 10,000 on. The units are chosen so that
    numbers stay readable (_time_unit, _rate_unit)."""
    if not v > 0:
        return ""
    if v >= 1e4:
        return "{:,.0f}".format(v)
    places = max(0, 2 - int(math.floor(math.log10(v) + 1e-9)))
    text = "%.*f" % (places, v)
    return text.rstrip("0").rstrip(".") if "." in text else text


# Time units: the largest in which the smallest value is still at least 1.
_TIME_UNITS = ((1e6, "s"), (1e3, "ms"), (1.0, "\u00b5s"))


def _time_unit(values_us: Sequence[float]) -> Tuple[float, str]:
    """(divisor, unit) for times given in us: s or ms when even the shortest is that long
    (a gradient sync of 0.6 s reads as 600 ms, not 6x10^5 us)."""
    lo = min(values_us)
    for div, unit in _TIME_UNITS:
        if lo >= div:
            return div, unit
    return 1.0, "\u00b5s"


def _rate_unit(values: Sequence[float], unit: str) -> Tuple[float, str]:
    """(divisor, unit) for rates: a thousandth of the unit when all are below a tenth of one
    (busbw of small messages in MB/s, not 0.0005 GB/s); messages/s in thousands or millions."""
    hi = max(values)
    if unit == "messages/s":
        if hi >= 1e6:
            return 1e6, "million messages/s"
        if hi >= 1e4:
            return 1e3, "thousand messages/s"
        return 1.0, unit
    smaller = {"GB/s": "MB/s", "Gb/s": "Mb/s"}
    if hi < 0.1 and unit in smaller:
        return 1e-3, smaller[unit]
    return 1.0, unit


LEGEND_MAX = 24  # legend entries: more would squeeze the axes to nothing


def _legend(ax: Axes, handles: Optional[Sequence[Any]] = None,
            labels: Optional[Sequence[str]] = None) -> None:
    """Below the axes, where it can hide no data; fit() later chooses its columns and wraps
    its texts so that it lies within the figure. Beyond LEGEND_MAX entries, the first curves
    and the last entries (the guides: line rate, 90% of it, the band) are kept, and one entry
    says how many curves the legend leaves out."""
    given = (handles, labels) if handles is not None and labels is not None else \
        ax.get_legend_handles_labels()
    handles, labels = list(given[0]), list(given[1])
    if len(handles) > LEGEND_MAX:
        from matplotlib.lines import Line2D

        head, tail = LEGEND_MAX - 7, 6
        gone = len(handles) - head - tail
        handles = list(handles[:head]) + [Line2D([], [], ls="none")] + list(handles[-tail:])
        labels = list(labels[:head]) + ["... and %d more not named here" % gone] + \
            list(labels[-tail:])
    ax.fabricbench_legend = (list(handles), list(labels))
    _place_legend(ax, 3, WRAP[0])


WRAP = (90, 70, 50, 36)  # a legend text's widest line, in characters: tried in this order
LEGEND_FONT = 9


def _place_legend(ax: Axes, ncol: int, width: int) -> None:

    handles, labels = ax.fabricbench_legend
    texts = ["\n".join(textwrap.wrap(t, width, break_on_hyphens=False)) or t for t in labels]
    ncol = max(1, min(ncol, len(handles)))
    ax.legend(handles, texts, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol,
              fontsize=LEGEND_FONT, frameon=False)


def _new(Figure: Any, title: str) -> Tuple[Figure, Axes]:
    fig = Figure(figsize=(9, 5.8), dpi=110, layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    ax.set_title(title, fontsize=12)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    return fig, ax


def _by_series(rows: Sequence[Row],
               labels: Sequence[str]) -> List[Tuple[str, str, List[Row]]]:
    """(label, variant, rows) per series and kernel instance: the instances of a kernel run
    once per value of a list option (tcp_stream --streams 1,4) are curves of their own."""
    out = []
    variants = _variants(rows)
    for lab in labels:
        for v in variants:
            rs = sorted((r for r in rows if r["label"] == lab and instance(r)[1] == v and
                         r["bytes"] > 0), key=itemgetter("bytes"))
            if rs:
                out.append((lab, v, rs))
    return out


def _variants(rows: Iterable[Row]) -> List[str]:
    return list(dict.fromkeys(instance(r)[1] for r in rows))


class Curve:
    """One curve of a figure: its name (a series' label, and its kernel instance), colour and
    marker, legend text, its rows and each row's x; `rate`: the line rate (Gb/s) of its run,
    NaN unknown; `run`: the series whose line rate it is (its instances share it)."""

    def __init__(self, name: str, style: Style, legend: str, rows: List[Row], xs: List[Any],
                 rate: float = math.nan, run: Optional[str] = None) -> None:
        self.name, self.style, self.legend = name, style, legend
        self.rows, self.xs, self.rate = rows, xs, rate
        self.run = name if run is None else run


def _series_curves(series: Sequence[Tuple[str, str, List[Row]]], style: Dict[str, Style],
                   variants: List[str]) -> List[Curve]:
    """A curve per series and instance: the series' colour; with several instances, the
    marker tells the instance (the same in every series) and the legend names it."""
    curves = []
    for lab, v, rs in series:
        color, marker = style[lab]
        if len(variants) > 1:
            marker = MARKERS[variants.index(v) % len(MARKERS)]
        legend = _legend_label(rs) + (" " + plain(v) if v else "")
        curves.append(Curve("%s %s" % (lab, v) if v else lab, (color, marker), legend, rs,
                            [r["bytes"] for r in rs], rs[0]["line_rate_gbps"], lab))
    return curves


def _runs_range(row: Row, column: str) -> Optional[Tuple[float, float]]:
    """(low, high) of a column over the runs a group row's value is the median of (their
    run-to-run range), None for a row of one run."""
    vals = [r.get(column) for r in row.get("_runs") or ()]
    vals = [v for v in vals if finite(v) and v > 0]
    return (min(vals), max(vals)) if len(vals) > 1 else None


def _band(ax: Axes, xs: Sequence[Any], rows: Sequence[Row], column: str, div: float,
          color: str) -> List[float]:
    """The run-to-run range of a column as a shaded band (a bar where a curve has one point);
    the values it reaches (for the axis), [] when no point has several runs."""
    rng = [(x, _runs_range(r, column), r[column] / div) for x, r in zip(xs, rows)]
    if not any(g for _, g, _ in rng):
        return []
    lo = [g[0] / div if g else y for _, g, y in rng]
    hi = [g[1] / div if g else y for _, g, y in rng]
    if len(xs) == 1:
        ax.errorbar(xs, [rng[0][2]], yerr=[[rng[0][2] - lo[0]], [hi[0] - rng[0][2]]],
                    color=color, alpha=0.45, capsize=6, lw=6)
    else:
        ax.fill_between(xs, lo, hi, color=color, alpha=0.18, lw=0)
    return lo + hi


def _hollow(ax: Axes, xs: Sequence[Any], ys: Sequence[float], rows: Sequence[Row], color: str,
            marker: str) -> bool:
    """Hollow markers over the points whose row is disturbed or invalid (quality.py): shown,
    as no measurement of the fabric. Whether any was drawn."""
    bad = [(x, y) for x, y, r in zip(xs, ys, rows) if not quality.comparable(r)]
    if bad:
        ax.plot([b[0] for b in bad], [b[1] for b in bad], ls="none", marker=marker, ms=9,
                mfc="white", mec=color, mew=1.6)
    return bool(bad)


def _keys(drawn: Set[str]) -> List[Tuple[Any, str]]:
    """Legend entries (grey, for every colour) for what a figure drew besides its curves."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    out = []
    if "band" in drawn:
        out.append((Patch(facecolor="#888888", alpha=0.3, edgecolor="none"),
                    "shaded (or bar): the range of a group's runs; the line is their median"))
    if "p99" in drawn:
        out.append((Line2D([], [], color="#555555", ls=":", lw=1.0),
                    "dotted: p99, same colour"))
    if "hollow" in drawn:
        out.append((Line2D([], [], ls="none", marker="o", ms=8, mfc="white", mec="#555555",
                           mew=1.6),
                    "hollow marker: row disturbed or invalid, no measurement of the fabric"))
    return out


def _time_figure(Figure: Any, ticker: Ticker, curves: Sequence[Curve], what: str, title: str,
                 xaxis: XAxis) -> Optional[Figure]:
    """Times against x, in a unit chosen for them: each curve's p50 (a group's: the median of
    its runs) as a line, its p99 dotted, the run-to-run range of the p50 shaded (a bar where a
    curve has one point), disturbed or invalid rows hollow; xaxis(ax, xs) draws the x axis."""
    pts = {c.name: [(x, r) for x, r in zip(c.xs, c.rows)
                    if finite(r["p50_us"]) and r["p50_us"] > 0] for c in curves}
    times = [v for p in pts.values() for _, r in p for v in (r["p50_us"], r["p99_us"])
             if finite(v) and v > 0]
    if not times:
        return None
    div, unit = _time_unit(times)
    fig, ax = _new(Figure, title)
    ys, xs = [], []
    drawn = set()
    handles, names = [], []
    for c in curves:
        p = pts[c.name]
        if not p:
            continue
        color, marker = c.style
        x = [q[0] for q in p]
        rows = [q[1] for q in p]
        y50 = [r["p50_us"] / div for r in rows]
        line, = ax.plot(x, y50, color=color, marker=marker, ms=5, lw=1.8)
        handles.append(line)
        names.append("%s: p50" % c.legend)
        p99 = [(a, r["p99_us"] / div) for a, r in zip(x, rows)
               if finite(r["p99_us"]) and r["p99_us"] > 0]
        if p99:
            ax.plot([a for a, _ in p99], [b for _, b in p99], color=color, lw=1.1, ls=":",
                    marker="_" if len(p99) == 1 else None, ms=12, alpha=0.9)
            drawn.add("p99")
            ys += [b for _, b in p99]
        got = _band(ax, x, rows, "p50_us", div, color)
        if got:
            drawn.add("band")
            ys += got
        if _hollow(ax, x, y50, rows, color, marker):
            drawn.add("hollow")
        ys += y50
        xs += x
    xaxis(ax, xs)
    _log_y(ax, ticker, min(v for v in ys if v > 0), max(ys))
    ax.set_ylabel("%s (%s)" % (what, unit))
    for h, n in _keys(drawn):
        handles.append(h)
        names.append(n)
    _legend(ax, handles, names)
    return fig


def unknown_rate_text(labels: Iterable[str]) -> str:
    return "line rate unknown for %s (set with fabricbench run --line-rate)" % ", ".join(
        short(x) for x in labels)


GUIDE_SHARE = 0.9  # the guide line below the line rate: what a healthy link reaches


def _rate_figure(Figure: Any, ticker: Ticker, curves: Sequence[Curve], column: str, what: str,
                 unit: str, title: str, factor: float, rate_scale: float,
                 rate_text: Optional[Callable[[float], str]],
                 xaxis: XAxis) -> Optional[Tuple[Figure, bool, List[str]]]:
    """A rate against x: one line per curve, and where the line rate is known, the line rate
    (dashed) and 90% of it (dash-dotted); the curves whose rate is unknown are named in the
    legend. factor: the line rate's multiple the kernel can reach (2 for bibw); rate_scale:
    Gb/s to the column's unit; rate_text(rate in Gb/s x factor).

    Returns (figure, whether a line rate is drawn, the plotted curves without one), or None
    when there is nothing to plot."""
    pts = {c.name: [(x, r[column]) for x, r in zip(c.xs, c.rows)
                    if finite(r.get(column)) and r[column] > 0] for c in curves}
    plotted = [c for c in curves if pts[c.name]]
    if not plotted:
        return None
    rates = {c.run: c.rate * factor for c in plotted if finite(c.rate) and c.rate > 0
             and rate_text is not None}
    runs = {c.run: c for c in reversed(plotted)}  # a run's first curve gives its colour
    values = [y for p in pts.values() for _, y in p]
    values += [v * rate_scale for v in rates.values()]
    div, yunit = _rate_unit(values, unit)
    fig, ax = _new(Figure, title)
    ys, xs = [], []
    drawn = set()
    for c in plotted:
        color, marker = c.style
        p = pts[c.name]
        x = [q[0] for q in p]
        y = [q[1] / div for q in p]
        rows = [r for x0, r in zip(c.xs, c.rows) if finite(r.get(column)) and r[column] > 0]
        ax.plot(x, y, color=color, marker=marker, ms=5, lw=1.8, label=c.legend)
        got = _band(ax, x, rows, column, div, color)
        if got:
            drawn.add("band")
            ys += got
        if _hollow(ax, x, y, rows, color, marker):
            drawn.add("hollow")
        ys += y
        xs += x
    distinct = sorted(set(rates.values()))
    if len(distinct) == 1 and len(rates) == len(runs):
        lines = [(distinct[0], "black", "")]
    else:
        lines = [(rate, runs[run].style[0], "%s: " % short(run))
                 for run, rate in rates.items()]
    for rate, color, who in lines:
        assert rate_text is not None  # lines are of `rates`, which are known only with it
        v = rate * rate_scale / div
        ax.axhline(v, color=color, ls="--", lw=1.3, label=plain(who + rate_text(rate)))
        ax.axhline(GUIDE_SHARE * v, color=color, ls="-.", lw=1.0, alpha=0.8,
                   label=plain("%s%d%% of the line rate: %s %s" % (
                       who, round(100 * GUIDE_SHARE), _num(GUIDE_SHARE * v), yunit)))
        ys += [v, GUIDE_SHARE * v]
    unknown = [run for run in dict.fromkeys(c.run for c in plotted)
               if run not in rates and rate_text is not None]
    if unknown:  # a legend entry with nothing drawn: text only
        ax.plot([], [], ls="none", label=plain(unknown_rate_text(unknown)))
    xaxis(ax, xs)
    _log_y(ax, ticker, min(ys), max(ys))
    ax.set_ylabel("%s (%s)" % (what, yunit))
    handles, names = ax.get_legend_handles_labels()
    for h, n in _keys(drawn):
        handles.append(h)
        names.append(n)
    _legend(ax, handles, names)
    return fig, bool(rates), unknown


def _rate_caption(text: str, drawn: bool, unknown: Sequence[str], dashed: str) -> str:
    """A rate figure's caption: the dashed lines mentioned only when they are drawn."""
    parts = [text]
    if drawn:
        parts.append("dashed: %s; dash-dotted: %d%% of it" % (dashed, round(100 * GUIDE_SHARE)))
    if unknown:
        parts.append(unknown_rate_text(unknown))
    return "; ".join(parts) + ". Higher is better."


def _size_xaxis(ticker: Ticker, what: str = "message size") -> XAxis:
    return lambda ax, xs: _size_axis(ax, ticker, xs, what)


def _bandwidth(Figure: Any, ticker: Ticker, kernel: str, rows: Sequence[Row],
               curves: Sequence[Curve]) -> List[Drawn]:
    """bw, bibw (Gb/s against the line rate) and msgrate (messages/s)."""
    window = rows[0].get("window")
    win = " (window %s)" % window if window else ""
    if kernel == "msgrate":
        got = _rate_figure(Figure, ticker, curves, "msgps", "message rate, all pairs",
                           "messages/s", "msgrate: message rate vs message size%s" % win, 1,
                           1.0, None, _size_xaxis(ticker))
        if not got:
            return []
        fig, _, _ = got
        return [(kernel, "msgrate: messages per second, all pairs together (osu_mbw_mr's "
                 "aggregate)%s. No line rate is drawn: it bounds bytes, not messages, and "
                 "small messages are far below it. Higher is better." %
                 (" in windows of %s messages" % window if window else ""), fig)]
    factor = 2 if kernel == "bibw" else 1

    def text(rate: float) -> str:
        return ("2 x line rate (both directions): %g Gb/s" % rate if factor == 2
                else "line rate %g Gb/s" % rate)
    got = _rate_figure(Figure, ticker, curves, "Gbps", "bandwidth", "Gb/s",
                       "%s: bandwidth vs message size%s" % (kernel, win), factor, 1.0, text,
                       _size_xaxis(ticker))
    if not got:
        return []
    fig, drawn, unknown = got
    return [(kernel, _rate_caption(
        "%s bandwidth, all pairs together, in decimal units (Gb/s = 10\u2079 bit/s)%s" %
        (kernel, " (windows of %s messages)" % window if window else ""),
        drawn, unknown, "the line rate recorded with the run%s" %
        (", twice it for bibw (both directions)" if factor == 2 else "")), fig)]


def _busbw_text(rate: float) -> str:
    return "line rate %g Gb/s = %g GB/s" % (rate, rate / 8)


def _collective(Figure: Any, ticker: Ticker, kernel: str, rows: Sequence[Row],
                curves: Sequence[Curve]) -> List[Drawn]:
    out: List[Drawn] = []
    if any(finite(r["busbw_GBps"]) for r in rows):
        got = _rate_figure(Figure, ticker, curves, "busbw_GBps", "busbw", "GB/s",
                           "%s: bus bandwidth vs message size" % kernel, 1, 1 / 8.0,
                           _busbw_text, _size_xaxis(ticker))
        if got:
            fig, drawn, unknown = got
            out.append((kernel + "_busbw", _rate_caption(
                "%s bus bandwidth (nccl-tests' busbw = algbw x the bus factor), in decimal "
                "units" % kernel, drawn, unknown, "the line rate recorded with the run"), fig))
    fig = _time_figure(Figure, ticker, curves, "time per call, slowest rank",
                       "%s: time per call vs message size (p50 line, p99 dotted)" %
                       kernel, _size_xaxis(ticker))
    if fig:
        out.append((kernel + "_time", "%s: time per call as its slowest rank saw it; line: "
                    "median (p50), dotted: p99. Lower is better." % kernel, fig))
    return out
