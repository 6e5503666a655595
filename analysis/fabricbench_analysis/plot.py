# SPDX-License-Identifier: BSD-3-Clause
"""Plots from the tidy table: latency (p50 line, p99 band), bandwidth with the line rate, busbw.

Headless: figures are matplotlib Figure objects drawn with the Agg (PNG) and SVG backends,
never through pyplot, so no display is needed or touched.
"""
import io
import math
import os
import re

from .errors import EXIT_INTERNAL, AnalysisError
from .hostile import safe_text
from .table import finite, instance, size_label

_FILE_NAME = re.compile(r"[a-z][a-z0-9_]{0,80}\Z")

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]


def _mpl():
    try:
        import matplotlib
        matplotlib.use("Agg")  # never a display, whatever MPLBACKEND says
        from matplotlib.figure import Figure
        from matplotlib import ticker
    except ImportError as e:
        raise AnalysisError("plots need matplotlib (%s)" % e,
                            "apt-get install python3-matplotlib")
    return Figure, ticker


def _style(table):
    """A colour and marker per series, the same in every figure."""
    return {lab: (COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)])
            for i, lab in enumerate(table.labels())}


def short(label):
    """A run's label as a legend shows it: at most LABEL_MAX characters ('...' at the end)."""
    return label if len(label) <= LABEL_MAX else label[:LABEL_MAX - 3] + "..."


def _legend_label(rows):
    r = rows[0]
    lab = short(r["label"])
    if r["run_status"] not in ("complete", ""):
        lab += " [%s]" % r["run_status"]
    return plain(lab)


DRAWN_MAX = 120  # characters of one text drawn (a legend entry, a title, a tick label)
LABEL_MAX = 48  # characters of a run's label in a legend


def plain(text):
    """Text from a file for matplotlib, which reads $...$ as math (a lone $ or a bad formula
    would fail the drawing) and hides legend entries that start with _; cut at DRAWN_MAX
    characters with '...' (a label of thousands overflows the rasteriser: the fabric name of
    a crafted file, even cut at hostile.MAX_TEXT, made plot fail)."""
    if len(text) > DRAWN_MAX:
        text = text[:DRAWN_MAX - 3] + "..."
    text = text.replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def _size_axis(ax, ticker, sizes, what="message size"):
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


def _log_y(ax, ticker, lo, hi):
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


def _num(v, _pos=None):
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


def _time_unit(values_us):
    """(divisor, unit) for times given in us: s or ms when even the shortest is that long
    (a gradient sync of 0.6 s reads as 600 ms, not 6x10^5 us)."""
    lo = min(values_us)
    for div, unit in _TIME_UNITS:
        if lo >= div:
            return div, unit
    return 1.0, "\u00b5s"


def _rate_unit(values, unit):
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


def _legend(ax, handles=None, labels=None):
    """Below the axes, where it can hide no data, in as many columns as fit. Beyond
    LEGEND_MAX entries, the first curves and the last entries (the guides: line rate, 90% of
    it, the band) are kept, and one entry says how many curves the legend leaves out."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if len(handles) > LEGEND_MAX:
        from matplotlib.lines import Line2D

        head, tail = LEGEND_MAX - 7, 6
        gone = len(handles) - head - tail
        handles = list(handles[:head]) + [Line2D([], [], ls="none")] + list(handles[-tail:])
        labels = list(labels[:head]) + ["... and %d more not named here" % gone] + \
            list(labels[-tail:])
    longest = max(len(x) for x in labels) if labels else 0
    ncol = 1 if len(handles) < 2 or longest > 60 else 2 if longest > 38 else 3
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol,
              fontsize=9, frameon=False)


def _new(Figure, title):
    fig = Figure(figsize=(9, 5.8), dpi=110, layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    ax.set_title(title, fontsize=12)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    return fig, ax


def _by_series(rows, labels):
    """(label, variant, rows) per series and kernel instance: the instances of a kernel run
    once per value of a list option (tcp_stream --streams 1,4) are curves of their own."""
    out = []
    variants = _variants(rows)
    for lab in labels:
        for v in variants:
            rs = sorted((r for r in rows if r["label"] == lab and instance(r)[1] == v and
                         r["bytes"] > 0), key=lambda r: r["bytes"])
            if rs:
                out.append((lab, v, rs))
    return out


def _variants(rows):
    return list(dict.fromkeys(instance(r)[1] for r in rows))


class Curve:
    """One curve of a figure: its name (a series' label, and its kernel instance), colour and
    marker, legend text, its rows and each row's x; `rate`: the line rate (Gb/s) of its run,
    NaN unknown; `run`: the series whose line rate it is (its instances share it)."""

    def __init__(self, name, style, legend, rows, xs, rate=math.nan, run=None):
        self.name, self.style, self.legend = name, style, legend
        self.rows, self.xs, self.rate = rows, xs, rate
        self.run = name if run is None else run


def _series_curves(series, style, variants):
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


def _time_figure(Figure, ticker, curves, what, title, xaxis):
    """Times (p50 line, a band to p99, or a bar where a curve has one point) against x, in a
    unit chosen for them; xaxis(ax, xs) draws the x axis."""
    from matplotlib.patches import Patch

    pts = {c.name: [(x, r["p50_us"], r["p99_us"]) for x, r in zip(c.xs, c.rows)
                    if finite(r["p50_us"]) and r["p50_us"] > 0] for c in curves}
    times = [v for p in pts.values() for x, a, b in p for v in (a, b) if finite(v) and v > 0]
    if not times:
        return None
    div, unit = _time_unit(times)
    fig, ax = _new(Figure, title)
    ys, xs = [], []
    band_drawn = False
    handles, names = [], []
    for c in curves:
        p = pts[c.name]
        if not p:
            continue
        color, marker = c.style
        x = [q[0] for q in p]
        y50 = [q[1] / div for q in p]
        line, = ax.plot(x, y50, color=color, marker=marker, ms=5, lw=1.8)
        handles.append(line)
        names.append("%s: p50" % c.legend)
        band = [(q[0], q[1] / div, q[2] / div) for q in p if finite(q[2])]
        if len(band) == 1 or (band and len(p) == 1):
            for bx, b50, b99 in band:  # one point: the band is a bar
                ax.errorbar([bx], [b50], yerr=[[0], [b99 - b50]], color=color, alpha=0.5,
                            capsize=6, lw=6)
            band_drawn = True
            ys += [b[2] for b in band]
        elif band:
            ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                            color=color, alpha=0.16, lw=0)
            ax.plot([b[0] for b in band], [b[2] for b in band], color=color, lw=0.8,
                    ls=":", alpha=0.9)
            band_drawn = True
            ys += [b[2] for b in band]
        ys += y50
        xs += x
    xaxis(ax, xs)
    _log_y(ax, ticker, min(v for v in ys if v > 0), max(ys))
    ax.set_ylabel("%s (%s)" % (what, unit))
    if band_drawn:
        handles.append(Patch(facecolor="#888888", alpha=0.3, edgecolor="none"))
        names.append("shaded (dotted edge) or bar: p50 to p99, same colour")
    _legend(ax, handles, names)
    return fig


def unknown_rate_text(labels):
    return "line rate unknown for %s (set with fabricbench run --line-rate)" % ", ".join(
        short(x) for x in labels)


GUIDE_SHARE = 0.9  # the guide line below the line rate: what a healthy link reaches


def _rate_figure(Figure, ticker, curves, column, what, unit, title, factor, rate_scale,
                 rate_text, xaxis):
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
    for c in plotted:
        color, marker = c.style
        p = pts[c.name]
        ax.plot([q[0] for q in p], [q[1] / div for q in p], color=color, marker=marker, ms=5,
                lw=1.8, label=c.legend)
        ys += [q[1] / div for q in p]
        xs += [q[0] for q in p]
    distinct = sorted(set(rates.values()))
    if len(distinct) == 1 and len(rates) == len(runs):
        lines = [(distinct[0], "black", "")]
    else:
        lines = [(rate, runs[run].style[0], "%s: " % short(run))
                 for run, rate in rates.items()]
    for rate, color, who in lines:
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
    _legend(ax)
    return fig, bool(rates), unknown


def _rate_caption(text, drawn, unknown, dashed):
    """A rate figure's caption: the dashed lines mentioned only when they are drawn."""
    parts = [text]
    if drawn:
        parts.append("dashed: %s; dash-dotted: %d%% of it" % (dashed, round(100 * GUIDE_SHARE)))
    if unknown:
        parts.append(unknown_rate_text(unknown))
    return "; ".join(parts) + ". Higher is better."


def _size_xaxis(ticker, what="message size"):
    return lambda ax, xs: _size_axis(ax, ticker, xs, what)


def _bandwidth(Figure, ticker, kernel, rows, curves):
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

    def text(rate):
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


def _busbw_text(rate):
    return "line rate %g Gb/s = %g GB/s" % (rate, rate / 8)


def _collective(Figure, ticker, kernel, rows, curves):
    out = []
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
                       "%s: time per call vs message size (p50 line, p50 to p99 band)" %
                       kernel, _size_xaxis(ticker))
    if fig:
        out.append((kernel + "_time", "%s: time per call as its slowest rank saw it; line: "
                    "median (p50), band (or bar) up to p99. Lower is better." % kernel, fig))
    return out


def tables(table):
    """What is a table row, not a plot (plot_options.tables: gradsync with one setup)."""
    from . import plot_options
    return plot_options.tables(table)


def figures(table):
    """[(name, caption, Figure)] for every kernel of the table, in kernel order: one figure
    per kernel (and kind of figure), its instances as curves of their own."""
    Figure, ticker = _mpl()
    style = _style(table)
    labels = table.labels()
    out = []
    for kernel in table.kernels():
        rows = table.where(kernel=kernel)
        series = _by_series(rows, labels)
        if not series:
            continue  # barrier: one row of 0 bytes, nothing to put on a size axis
        variants = _variants(rows)
        curves = _series_curves(series, style, variants)
        figs = _kernel_figures(Figure, ticker, table, kernel, rows, curves)
        if len(variants) > 1:
            figs = [(name, "%s One curve per run and instance of %s (%s): the colour tells "
                     "the run, the marker the instance." % (cap, kernel, ", ".join(variants)),
                     fig) for name, cap, fig in figs]
        out += figs
    return out


def _kernel_figures(Figure, ticker, table, kernel, rows, curves):
    from . import plot_options

    kind = rows[0]["kind"]
    if kind == "latency":
        title = "%s: one-way latency vs message size (p50 line, p50 to p99 band)" % kernel
        fig = _time_figure(Figure, ticker, curves, "one-way latency", title,
                           _size_xaxis(ticker))
        if not fig:
            return []
        return [(kernel, "One-way latency (round trip / 2) per message size: the line is the "
                 "median (p50) of the per-iteration times, the shaded band reaches the 99th "
                 "percentile. Lower is better.", fig)]
    if kind == "bandwidth":
        return _bandwidth(Figure, ticker, kernel, rows, curves)
    if kind == "collective" and plot_options.one_size_kernel(rows):
        return plot_options.figures(Figure, ticker, table, kernel)
    if kind == "collective":
        return _collective(Figure, ticker, kernel, rows, curves)
    return []


def png_bytes(fig, dpi=None):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def _savefig(fig, f, fmt, meta):
    """Into the open file f. SVG keeps its text as text (selectable, searchable, what a
    reader of the file sees)."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(f, format=fmt, metadata=meta)


def save(table, outdir, formats=("png", "svg"), matrices=()):
    """Write every figure (and a heatmap per pairs matrix) as outdir/NAME.FORMAT; returns the
    paths written. outdir: a files.OutputDir (or a path): every file is written to a
    temporary file in it and renamed into place, never through a link (files.py)."""
    from .files import OutputDir

    if not isinstance(outdir, OutputDir):
        outdir = OutputDir(outdir, False)
    outdir.open()
    try:
        return _save(table, outdir, formats, matrices)
    finally:
        outdir.close()


def _save(table, outdir, formats, matrices):
    written = []
    figs = figures(table)
    if matrices:
        from . import matrix_plot
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
            meta = {"Date": None} if fmt == "svg" else {"Software": None}
            path = outdir.write("%s.%s" % (name, fmt),
                                lambda f, fig=fig, fmt=fmt, meta=meta:
                                _savefig(fig, f, fmt, meta))
            written.append(path)
    return written
