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
from .table import finite, size_label

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


def _legend_label(rows):
    r = rows[0]
    lab = r["label"]
    if r["run_status"] not in ("complete", ""):
        lab += " [%s]" % r["run_status"]
    return plain(lab)


def plain(text):
    """Text from a file for matplotlib, which reads $...$ as math (a lone $ or a bad formula
    would fail the drawing) and hides legend entries that start with _."""
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
    if v <= 0:
        return ""
    if v >= 1e5 or v < 1e-3:
        e = int(math.floor(math.log10(v) + 1e-9))
        m = v / 10 ** e
        return ("10$^{%d}$" % e) if abs(m - 1) < 1e-6 else ("%g\u00d710$^{%d}$" % (m, e))
    return "%g" % float("%.3g" % v)


def _legend(ax, handles=None, labels=None):
    """Below the axes, where it can hide no data, in as many columns as fit."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    ncol = 1 if len(handles) < 2 else 2 if max(len(x) for x in labels) > 38 else 3
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
    out = []
    for lab in labels:
        rs = sorted((r for r in rows if r["label"] == lab and r["bytes"] > 0),
                    key=lambda r: r["bytes"])
        if rs:
            out.append((lab, rs))
    return out


def _time_figure(Figure, ticker, kernel, kind, series, style, ylabel, title):
    from matplotlib.patches import Patch

    fig, ax = _new(Figure, title)
    ys, sizes = [], []
    band_drawn = False
    handles, names = [], []
    for lab, rs in series:
        color, marker = style[lab]
        pts = [(r["bytes"], r["p50_us"], r["p99_us"]) for r in rs if finite(r["p50_us"])]
        if not pts:
            continue
        x = [p[0] for p in pts]
        y50 = [p[1] for p in pts]
        line, = ax.plot(x, y50, color=color, marker=marker, ms=5, lw=1.8)
        handles.append(line)
        names.append("%s: p50" % _legend_label(rs))
        band = [(p[0], p[1], p[2]) for p in pts if finite(p[2])]
        if len(band) == 1:  # one size (gradsync): the band is an error bar
            ax.errorbar([band[0][0]], [band[0][1]], yerr=[[0], [band[0][2] - band[0][1]]],
                        color=color, alpha=0.5, capsize=6, lw=6)
            band_drawn = True
            ys.append(band[0][2])
        elif band:
            ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                            color=color, alpha=0.16, lw=0)
            ax.plot([b[0] for b in band], [b[2] for b in band], color=color, lw=0.8,
                    ls=":", alpha=0.9)
            band_drawn = True
            ys += [b[2] for b in band]
        ys += y50
        sizes += x
    if not ys:
        return None
    _size_axis(ax, ticker, sizes, "gradient size" if kernel == "gradsync" else "message size")
    _log_y(ax, ticker, min(v for v in ys if v > 0), max(ys))
    ax.set_ylabel(ylabel)
    if band_drawn:
        handles.append(Patch(facecolor="#888888", alpha=0.3, edgecolor="none"))
        names.append("shaded (dotted edge) or bar: p50 to p99, same colour")
    _legend(ax, handles, names)
    return fig


def _line_rates(series, factor):
    rates = {}
    for lab, rs in series:
        r = rs[0]["line_rate_gbps"]
        if finite(r) and r > 0:
            rates[lab] = r * factor
    return rates


def unknown_rate_text(labels):
    return "line rate unknown for %s (set with fabricbench run --line-rate)" % ", ".join(labels)


def _rate_figure(Figure, ticker, series, style, column, ylabel, title, rates, rate_scale,
                 rate_text):
    """Bandwidth-like figure: one curve per series, and the line rate(s) as dashed lines; the
    series whose line rate is unknown are named in the legend.

    Returns (figure, whether a dashed line is drawn, the plotted series without a line rate),
    or None when there is nothing to plot."""
    fig, ax = _new(Figure, title)
    ys, sizes, plotted = [], [], []
    for lab, rs in series:
        color, marker = style[lab]
        pts = [(r["bytes"], r[column]) for r in rs if finite(r.get(column)) and r[column] > 0]
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker=marker, ms=5,
                lw=1.8, label=_legend_label(rs))
        ys += [p[1] for p in pts]
        sizes += [p[0] for p in pts]
        plotted.append(lab)
    if not ys:
        return None
    rates = {lab: rate for lab, rate in rates.items() if lab in plotted}
    distinct = sorted(set(rates.values()))
    if len(distinct) == 1 and len(rates) == len(plotted):
        v = distinct[0] * rate_scale
        ax.axhline(v, color="black", ls="--", lw=1.3, label=rate_text(distinct[0]))
        ys.append(v)
    else:
        for lab, rate in rates.items():
            v = rate * rate_scale
            ax.axhline(v, color=style[lab][0], ls="--", lw=1.2,
                       label=plain("%s: %s" % (lab, rate_text(rate))))
            ys.append(v)
    unknown = [lab for lab in plotted if lab not in rates]
    if unknown:  # a legend entry with nothing drawn: text only
        ax.plot([], [], ls="none", label=plain(unknown_rate_text(unknown)))
    _size_axis(ax, ticker, sizes)
    _log_y(ax, ticker, min(ys), max(ys))
    ax.set_ylabel(ylabel)
    _legend(ax)
    return fig, bool(rates), unknown


def _rate_caption(text, drawn, unknown, dashed):
    """A rate figure's caption: the dashed line mentioned only when one is drawn."""
    parts = [text]
    if drawn:
        parts.append("dashed: " + dashed)
    if unknown:
        parts.append(unknown_rate_text(unknown))
    return "; ".join(parts) + ". Higher is better."


def figures(table):
    """[(name, caption, Figure)] for every kernel of the table, in kernel order."""
    Figure, ticker = _mpl()
    style = _style(table)
    labels = table.labels()
    out = []
    for kernel in table.kernels():
        rows = table.where(kernel=kernel)
        kind = rows[0]["kind"]
        series = _by_series(rows, labels)
        if not series:
            continue  # barrier: one row of 0 bytes, nothing to put on a size axis
        if kind == "latency":
            title = "%s: one-way latency vs message size (p50 line, p50 to p99 band)" % kernel
            fig = _time_figure(Figure, ticker, kernel, kind, series, style,
                               "one-way latency (\u00b5s)", title)
            if fig:
                out.append((kernel, "One-way latency (round trip / 2) per message size: the "
                            "line is the median (p50) of the per-iteration times, the shaded "
                            "band reaches the 99th percentile. Lower is better.", fig))
        elif kind == "bandwidth":
            factor = 2 if kernel == "bibw" else 1
            window = rows[0].get("window")
            title = "%s: bandwidth vs message size%s" % (
                kernel, " (window %s)" % window if window else "")

            def text(rate, factor=factor):
                return ("2 x line rate (both directions): %g Gb/s" % rate if factor == 2
                        else "line rate %g Gb/s" % rate)
            got = _rate_figure(Figure, ticker, series, style, "Gbps",
                               "bandwidth (Gb/s, 10\u2079 bit/s)", title,
                               _line_rates(series, factor), 1.0, text)
            if got:
                fig, drawn, unknown = got
                out.append((kernel, _rate_caption(
                    "%s bandwidth in Gb/s (10\u2079 bit/s), all pairs together%s" %
                    (kernel, " (windows of %s messages)" % window if window else ""),
                    drawn, unknown, "the line rate recorded with the run%s" %
                    (", twice it for bibw (both directions)" if factor == 2 else "")), fig))
        elif kind == "collective":
            if any(finite(r["busbw_GBps"]) for r in rows):
                title = "%s: bus bandwidth vs message size" % kernel

                def text(rate):
                    return "line rate %g Gb/s = %g GB/s" % (rate, rate / 8)
                got = _rate_figure(Figure, ticker, series, style, "busbw_GBps",
                                   "busbw (GB/s, 10\u2079 byte/s)", title,
                                   _line_rates(series, 1), 1 / 8.0, text)
                if got:
                    fig, drawn, unknown = got
                    out.append((kernel + "_busbw", _rate_caption(
                        "%s bus bandwidth (nccl-tests' busbw = algbw x the bus factor) in GB/s"
                        % kernel, drawn, unknown, "the line rate recorded with the run, in GB/s"),
                        fig))
            title = "%s: time per call vs %s size (p50 line, p50 to p99 band)" % (
                kernel, "gradient" if kernel == "gradsync" else "message")
            fig = _time_figure(Figure, ticker, kernel, kind, series, style,
                               "time per call, slowest rank (\u00b5s)", title)
            if fig:
                out.append((kernel + "_time", "%s: time per call as its slowest rank saw it; "
                            "line: median (p50), band (or bar) up to p99. Lower is better." %
                            kernel, fig))
    return out


def png_bytes(fig, dpi=None):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def save(table, outdir, formats=("png", "svg"), matrices=()):
    """Write every figure (and a heatmap per pairs matrix) as outdir/NAME.FORMAT; returns the
    paths written."""
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        raise AnalysisError("cannot create the output directory %s: %s" %
                            (outdir, e.strerror or e), "choose another -o DIR")
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
        raise AnalysisError("nothing to plot: the input has no kernel with message sizes "
                            "(only barrier?)", "measure latency, bw or a collective")
    for name, _caption, fig in figs:
        # The names are kernel names (loading admits only [a-z][a-z0-9_]*) and fixed suffixes;
        # checked again here, so that no name from a file can ever leave the directory.
        if not _FILE_NAME.match(name):
            raise AnalysisError("a plot would be named '%s', which is not a plain file name" %
                                safe_text(name), "this is a bug of fabricbench-analyze",
                                EXIT_INTERNAL)
        for fmt in formats:
            path = os.path.join(outdir, "%s.%s" % (name, fmt))
            meta = {"Date": None} if fmt == "svg" else {"Software": None}
            try:
                fig.savefig(path, format=fmt, metadata=meta)
            except OSError as e:
                raise AnalysisError("cannot write %s: %s" % (path, e.strerror or e),
                                    "choose another -o DIR")
            written.append(path)
    return written
