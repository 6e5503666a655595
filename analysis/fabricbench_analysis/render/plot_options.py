# SPDX-License-Identifier: BSD-3-Clause
"""Plots of a kernel that measures one size per run (gradsync: its gradient), against what
varies between its runs: a kernel option of its own (--bucket, --inflight) or the size; a table
row where nothing varies (one point). plot.py draws the figures; this finds the points.
"""
import math
import statistics
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from ..model import grouping, quality
from ..model.hostile import MAX_VALUE
from ..model.table import Row, Table, finite, size_label
from .plot_base import (COLORS, MARKERS, Curve, _busbw_text, _num, _rate_caption, _rate_figure,
                        _time_figure, _time_unit, plain)
from .plot_base import Axes, Drawn, Style, Ticker

# A kernel option's value as kernel_options() reads it: a number, or text.
OptionValue = Union[float, str]
# What a table row of plot (tables()) holds: kernel, why, caption, head, rows.
PlotTable = Dict[str, Any]


def _decimal_bytes(v: float) -> str:
    """4000000 -> '4 MB', 400000000 -> '400 MB' (decimal units: a gradient is parameters x
    element size, not a power of 2)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if v >= scale:
            return "%s %s" % (_num(v / scale), unit)
    return "%s B" % _num(v)


def _values_axis(ax: Axes, ticker: Ticker, values: Iterable[Any], label: str,
                 fmt: Callable[[float], str]) -> None:
    """An x axis at exactly the values given (a kernel's option, a gradient size): log 2 when
    they span 4x or more, labelled by fmt."""
    uniq = sorted(set(v for v in values if v > 0))
    lo, hi = uniq[0], uniq[-1]
    if hi >= 4 * lo:
        ax.set_xscale("log", base=2)
        pad = 2 ** (0.3 * max(1.0, math.log2(hi / lo)) / 4)
        ax.set_xlim(lo / pad, hi * pad)
    else:
        span = (hi - lo) or lo
        ax.set_xlim(lo - 0.15 * span, hi + 0.15 * span)
    ax.xaxis.set_major_locator(ticker.FixedLocator([float(v) for v in uniq]))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: fmt(v)))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel(label)


def kernel_options(text: Optional[str]) -> Dict[str, OptionValue]:
    """A kernel's own options as the file records them ('params=1e+06 bucket=262144
    inflight=1'), {name: number or text}, in their order."""
    out: Dict[str, OptionValue] = {}
    for w in (text or "").split():
        k, eq, v = w.partition("=")
        if eq:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


# How a kernel's own option reads on an axis: (words, whether its values are bytes).
OPTION_AXES = {"bucket": ("bucket size", True), "inflight": ("buckets in flight", False),
               "params": ("model parameters", False)}


def _option_label(name: str, v: float) -> str:
    words, is_bytes = OPTION_AXES.get(name, (name, False))
    if not (finite(v) and 0 <= v <= MAX_VALUE):
        return "%g" % v  # not a measurement's value (an edited file): as it is
    if is_bytes:
        return size_label(int(round(v)))
    for scale, word in ((1e9, "billion"), (1e6, "million")):
        if v >= scale:
            return "%s %s" % (_num(v / scale), word)
    return _num(v)


def one_size_points(table: Table, kernel: str) -> Tuple[Optional[str], List[Row]]:
    """For a kernel that measures one size per run (gradsync: its gradient): what varies
    between its runs. Returns (x, rows): x is the name of the kernel option varying over most
    values ('bucket', 'inflight'), 'bytes' when only the size varies, None when nothing does
    (one point: a table row, not a plot); rows are the kernel's rows, each with `_options`."""
    rows = [dict(r, _options=kernel_options(r.get("kernel_options"))) for r in
            table.where(kernel=kernel) if r["bytes"] > 0]
    varying: Dict[str, Set[OptionValue]] = {}
    for r in rows:
        for k, v in r["_options"].items():
            varying.setdefault(k, set()).add(v)
    numeric = [k for k, vs in varying.items() if len(vs) > 1 and k != "params" and
               all(isinstance(v, float) and 0 < v <= MAX_VALUE for v in vs)]
    if numeric:
        return max(numeric, key=lambda k: len(varying[k])), rows
    if len({r["bytes"] for r in rows}) > 1:
        return "bytes", rows
    return None, rows


def _one_size_curves(table: Table, rows: List[Row], x: str,
                     style_of: Callable[[int], Style]) -> Tuple[List[Curve], bool]:
    """Curves of a one-size kernel against x: one per group of runs on one fabric (the
    grouping's fabric key) and value of the other options that vary; the median over the
    runs at each x."""
    groups = grouping.make_groups(table, ("fabric",))
    group_of = {lab: g for g in groups for lab in g.labels}
    others = [k for k in dict.fromkeys(k for r in rows for k in r["_options"])
              if k != x and len({r["_options"].get(k) for r in rows}) > 1]
    by: Dict[Tuple[str, Tuple[Tuple[str, Any], ...]], Dict[Any, List[Row]]] = {}
    for r in rows:
        g = group_of[r["label"]]
        other = tuple((k, r["_options"].get(k)) for k in others)
        xv = r["bytes"] if x == "bytes" else r["_options"][x]
        by.setdefault((g.name, other), {}).setdefault(xv, []).append(r)
    curves: List[Curve] = []
    for (name, other), pts in by.items():
        xs = sorted(pts)
        med = [_median_row(pts[v]) for v in xs]
        legend = name + "".join(", %s %s" % (OPTION_AXES.get(k, (k,))[0], _option_label(k, v)
                                             if isinstance(v, float) else v)
                                for k, v in other)
        curves.append(Curve(legend, style_of(len(curves)), plain(legend), med, xs,
                            med[0]["line_rate_gbps"]))
    merged = any(len(v) > 1 for pts in by.values() for v in pts.values())
    return curves, merged


def _median_row(rows: List[Row]) -> Row:
    """The median of runs meeting at a point: of those whose row is comparable where there
    are any (quality.py), marked with their worst quality."""
    rows = [r for r in rows if quality.comparable(r)] or rows
    if len(rows) == 1:
        return rows[0]
    out = dict(rows[0])
    out["quality"] = quality.worst(r.get("quality") for r in rows)
    for c in ("p50_us", "p99_us", "busbw_GBps", "algbw_GBps"):
        vals = [r[c] for r in rows if finite(r.get(c))]
        out[c] = statistics.median(vals) if vals else math.nan
    return out


def figures(Figure: Any, ticker: Ticker, table: Table, kernel: str) -> List[Drawn]:
    """gradsync and the like: time per sync and effective busbw against the option (or the
    size) that varies between runs; [] when nothing varies (see tables())."""
    x, rows = one_size_points(table, kernel)
    if x is None:
        return []

    def style_of(i: int) -> Style:
        return COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)]
    curves, merged = _one_size_curves(table, rows, x, style_of)
    if x == "bytes":
        what, label = "gradient size", "gradient size (MB = 10\u2076 bytes)"

        def xaxis(ax: Axes, xs: List[Any]) -> None:
            _values_axis(ax, ticker, xs, label, _decimal_bytes)
    else:
        what = plain(OPTION_AXES.get(x, (x,))[0])
        label = plain("%s (--%s%s)" % (what, x, "; bytes, K = 1024" if OPTION_AXES.get(
            x, (x, False))[1] else ""))

        def xaxis(ax: Axes, xs: List[Any]) -> None:
            _values_axis(ax, ticker, xs, label, lambda v: _option_label(str(x), v))
    sync = "sync" if kernel == "gradsync" else "call"
    med = " (the median of the runs at each point)" if merged else ""
    out: List[Drawn] = []
    fig = _time_figure(Figure, ticker, curves, "time per %s, slowest rank" % sync,
                       "%s: time per %s vs %s (p50 line, p99 dotted)" % (kernel, sync, what),
                       xaxis)
    if fig:
        out.append((kernel + "_time", "%s: time of one full %s as its slowest rank saw it, "
                    "against the %s of each run%s; line: median (p50), dotted: p99 where "
                    "measured. Lower is better." % (kernel, sync, what, med), fig))
    got = _rate_figure(Figure, ticker, curves, "busbw_GBps", "effective busbw", "GB/s",
                       "%s: effective bus bandwidth vs %s" % (kernel, what), 1, 1 / 8.0,
                       _busbw_text, xaxis)
    if got:
        fig, drawn, unknown = got
        out.append((kernel + "_busbw", _rate_caption(
            "%s: effective bus bandwidth of a whole %s (all its buckets), in decimal units%s" %
            (kernel, sync, med), drawn, unknown, "the line rate recorded with the run"), fig))
    return out


def _and(words: Iterable[str]) -> str:
    words = list(words)
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def tables(table: Table) -> List[PlotTable]:
    """[dict(kernel, why, caption, head, rows)]: what is a table row, not a plot (a one-size
    kernel such as gradsync whose runs all have one bucket size and in-flight count; any other
    kernel of one message size in every run, the pairs kernels' median pair among them)."""
    out: List[PlotTable] = []
    for kernel in table.kernels():
        rows = table.where(kernel=kernel)
        if not one_size_kernel(rows):
            t = _one_point(kernel, [r for r in rows if r["bytes"] > 0])
            if t:
                out.append(t)
            continue
        x, pts = one_size_points(table, kernel)
        if x is not None or not pts:
            continue
        head = ["run", "bytes", "options", "time p50", "p99", "busbw GB/s", "algbw GB/s"]
        lines = []
        for r in pts:
            times = [v for v in (r["p50_us"], r["p99_us"]) if finite(v) and v > 0]
            div, unit = _time_unit(times) if times else (1.0, "\u00b5s")
            lines.append([r["label"], _decimal_bytes(r["bytes"]),
                          " ".join("%s=%s" % (k, _option_label(k, v) if isinstance(v, float)
                                              else v) for k, v in r["_options"].items()),
                          "%s %s" % (_num(r["p50_us"] / div), unit) if finite(r["p50_us"])
                          else "n/a",
                          "%s %s" % (_num(r["p99_us"] / div), unit) if finite(r["p99_us"])
                          else "n/a",
                          _num(r["busbw_GBps"]) if finite(r["busbw_GBps"]) else "n/a",
                          _num(r["algbw_GBps"]) if finite(r["algbw_GBps"]) else "n/a"])
        setup = _and("%s %s" % (OPTION_AXES.get(k, (k,))[0], _option_label(k, v) if
                                isinstance(v, float) else v)
                     for k, v in pts[0]["_options"].items())
        why = "one point (%s; %s)" % (setup or "one setup", "one run" if len(pts) == 1 else
                                      "the same in all %d runs" % len(pts))
        out.append({"kernel": kernel, "why": why, "head": head, "rows": lines,
                    "caption": "%s: %s, so a table row, not a plot: time per %s as its "
                    "slowest rank saw it (p99 n/a below 100 iterations), effective busbw and "
                    "algbw of the whole %s. Runs of several --bucket or --inflight values are "
                    "plotted against them." % (kernel, why, "sync" if kernel == "gradsync"
                                               else "call", "sync" if kernel == "gradsync"
                                               else "call")})
    return out


PAIRS = {"pairs_bw": "the median pair's bandwidth per direction",
         "pairs_latency": "the median pair's one-way latency"}


def _one_point(kernel: str, rows: List[Row]) -> Optional[PlotTable]:
    """The table of a kernel whose every row has one message size (a point, not a curve): a
    line per run with its headline numbers; None for a kernel of several sizes."""
    if not rows or len({r["bytes"] for r in rows}) != 1:
        return None
    kind = rows[0]["kind"]
    size = size_label(rows[0]["bytes"])
    head = ["run", "bytes", "quality", "time p50", "p99"]
    if kind == "bandwidth":
        head += ["Gb/s", "MB/s"]
    elif kind == "collective":
        head += ["busbw GB/s", "algbw GB/s"]
    lines = []
    for r in rows:
        times = [v for v in (r["p50_us"], r["p99_us"]) if finite(v) and v > 0]
        div, unit = _time_unit(times) if times else (1.0, "\u00b5s")
        line = [r["label"], size, quality.why(r) if not quality.comparable(r) else
                r.get("quality", "ok") or "ok"]
        line += ["%s %s" % (_num(r[c] / div), unit) if finite(r[c]) and r[c] > 0 else "n/a"
                 for c in ("p50_us", "p99_us")]
        cols = ("Gbps", "MBps") if kind == "bandwidth" else \
            ("busbw_GBps", "algbw_GBps") if kind == "collective" else ()
        line += [_num(r[c]) if finite(r.get(c)) and r[c] > 0 else "n/a" for c in cols]
        lines.append(line)
    what = PAIRS.get(kernel)
    why = "one message size (%s) in every run: a point, not a curve" % size
    more = ("%s over the pairs of each run; its pairs are the heatmap %s_matrix, and "
            "fabricbench-analyze matrix lists them" % (what, kernel)) if what else \
        "measure several sizes (-m 8,1K,64K,1M) for a curve"
    return {"kernel": kernel, "why": why, "head": head, "rows": lines,
            "caption": "%s: %s, so a table row per run, not a plot: %s." % (kernel, why, more)}


def one_size_kernel(rows: Sequence[Row]) -> bool:
    """A collective with its own options that measured one size per run (gradsync)."""
    per: Dict[str, Set[int]] = {}
    for r in rows:
        per.setdefault(r["label"], set()).add(r["bytes"])
    return bool(rows[0]["kind"] == "collective" and
                any(r.get("kernel_options") for r in rows) and
                all(len(v) == 1 for v in per.values()))
