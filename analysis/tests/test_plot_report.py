# SPDX-License-Identifier: BSD-3-Clause
"""plot and report: real images, a self-contained page."""
import base64
import html.parser
import math
import re
import xml.etree.ElementTree as ET

import pytest

from conftest import assert_error, assert_ok, run_cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EXPECTED = ("latency", "bw", "allreduce_busbw", "allreduce_time")


def _png_size(data):
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _colourful_pixels(path):
    """Pixels that are clearly coloured (curves, bands), not white, grey or black."""
    import matplotlib.image as mi
    a = mi.imread(path)[..., :3]
    spread = a.max(axis=2) - a.min(axis=2)
    return int((spread > 0.25).sum())


def test_plot_png_and_svg(results, tmp_path):
    out = tmp_path / "plots"
    p = run_cli("plot", results.shm, results.tcp, "-o", out)
    assert_ok(p)
    written = p.stdout.split()
    for name in EXPECTED:
        png, svg = out / (name + ".png"), out / (name + ".svg")
        assert str(png) in written and str(svg) in written
        data = png.read_bytes()
        w, h = _png_size(data)
        assert w >= 600 and h >= 400, (name, w, h)
        # Two series drawn in colour: a few thousand coloured pixels at least. (Not the files'
        # sizes: they follow the data, and a busy machine's short runs lack the p99 bands.)
        assert _colourful_pixels(str(png)) > 2000, name
        root = ET.parse(str(svg)).getroot()
        assert root.tag.endswith("svg")
        assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 20


def test_plot_line_rate_drawn(results, tmp_path):
    """shm.h5 has --line-rate 100G: the bw plot reaches up to it (a dashed line at 100 Gb/s)
    while without a line rate the axis ends near the data."""
    import matplotlib
    matplotlib.use("Agg")
    from fabricbench_analysis import load
    from fabricbench_analysis.render import plot
    figs = {name: fig for name, _, fig in plot.figures(load([results.shm]))}
    ax = figs["bw"].axes[0]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    hlines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(hlines) == 1 and hlines[0].get_ydata()[0] == 100.0
    assert "Gb/s" in ax.get_ylabel() and "bytes" in ax.get_xlabel()
    t = load([results.tcp])
    figs = {name: fig for name, _, fig in plot.figures(t)}
    assert not [ln for ln in figs["bw"].axes[0].get_lines() if ln.get_linestyle() == "--"]
    lat = figs["latency"].axes[0]
    # the unit is the one the shortest time asks for (test_plain_numbers_and_units: known
    # values): a live TCP run reads in us unless a loaded machine stretched even its shortest
    # p50 to 1 ms
    from fabricbench_analysis.render.plot_base import _time_unit
    times = [v for r in t.where(kernel="latency") if math.isfinite(r["p50_us"]) and
             r["p50_us"] > 0 for v in (r["p50_us"], r["p99_us"]) if math.isfinite(v) and v > 0]
    unit = _time_unit(times)[1]
    assert "(%s)" % unit in lat.get_ylabel() and lat.get_yscale() == "log", lat.get_ylabel()
    # A dotted p99 line where the file has a p99: a tail quantile is NaN below 1000 samples,
    # which a short TCP run may not reach on a busy machine. One run: no run-to-run band.
    has_p99 = any(math.isfinite(r["p99_us"]) for r in t.where(kernel="latency"))
    dotted = [ln for ln in lat.get_lines() if ln.get_linestyle() == ":" and len(ln.get_xdata())]
    assert bool(dotted) == has_p99, "p99 drawn: %s, p99 in the file: %s" % (bool(dotted),
                                                                           has_p99)
    assert not lat.collections


def _legend(fig):
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_plot_line_rate_unknown(results):
    """tcp.h5 has no line rate: its legend and caption say so, and a caption mentions the
    dashed line only when one is drawn."""
    import matplotlib
    matplotlib.use("Agg")
    from fabricbench_analysis import load
    from fabricbench_analysis.render import plot
    rate_figs = ("bw", "allreduce_busbw")
    hint = "(set with fabricbench run --line-rate)"

    t = load([results.tcp])
    lab = t.labels()[0]
    got = {name: (cap, fig) for name, cap, fig in plot.figures(t)}
    for name in rate_figs:
        cap, fig = got[name]
        assert "dashed" not in cap, cap
        assert "line rate unknown for %s %s" % (lab, hint) in cap, cap
        assert "line rate unknown for %s %s" % (lab, hint) in _legend(fig), _legend(fig)

    t = load([results.shm])
    got = {name: (cap, fig) for name, cap, fig in plot.figures(t)}
    for name in rate_figs:
        cap, fig = got[name]
        assert "dashed: the line rate recorded with the run" in cap and "unknown" not in cap
        assert not [x for x in _legend(fig) if "unknown" in x], _legend(fig)

    t = load([results.shm, results.tcp])
    shm, tcp = t.labels()
    got = {name: (cap, fig) for name, cap, fig in plot.figures(t)}
    for name in rate_figs:
        cap, fig = got[name]
        assert "dashed: the line rate recorded with the run" in cap, cap
        assert "line rate unknown for %s %s" % (tcp, hint) in cap, cap
        assert "unknown for %s " % shm not in cap, cap
        dashed = [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "--"]
        assert len(dashed) == 1, name
        assert "line rate unknown for %s %s" % (tcp, hint) in _legend(fig), _legend(fig)


def test_plot_unwritable_output(results, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_error(run_cli("plot", results.shm, "-o", blocker / "sub"), 3, "cannot create")


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.scripts, self.h2 = [], [], [], []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag in ("link", "iframe", "object", "embed"):
            self.links.append(tag)
        if tag == "script":
            self.scripts.append(a)
        self._in_h2 = tag == "h2"

    def handle_data(self, data):
        if self._in_h2:
            self.h2.append(data)
            self._in_h2 = False


def test_report_self_contained(results, tmp_path):
    out = tmp_path / "report.html"
    p = run_cli("report", results.shm, results.tcp, "--baseline", results.shm, "-o", out)
    assert_ok(p)
    text = out.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    # the verdict (the baseline check) first, before the first image
    assert page.h2 == ["Baseline check", "Summary", "Comparison", "Plots", "Runs", "Method"]
    assert text.index("<h2>Baseline check</h2>") < text.index("<img")
    assert not page.links and not page.scripts
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", text)
    assert "url(" not in text
    assert len(page.imgs) == len(EXPECTED)
    for src in page.imgs:
        assert src.startswith("data:image/png;base64,")
        w, h = _png_size(base64.b64decode(src.split(",", 1)[1]))
        assert w >= 600 and h >= 400
    for word in ("lat p50 us", "vs ", "ratio", "FAIL", "PASS", "busbw_GBps", "Noise."):
        assert word in text, word


def test_report_single_file(results, tmp_path):
    out = tmp_path / "one.html"
    p = run_cli("report", results.tcp, "-o", out)
    assert_ok(p)
    text = out.read_text(encoding="utf-8")
    assert "<h2>Comparison</h2>" not in text and "<h2>Plots</h2>" in text


def test_report_nothing_in_common_still_reports(results, tmp_path):
    out = tmp_path / "nc.html"
    p = run_cli("report", results.only_latency, results.only_allreduce, "-o", out)
    assert_ok(p)
    assert "nothing in common" in out.read_text(encoding="utf-8")


def test_report_interrupted_says_so(results, tmp_path):
    out = tmp_path / "int.html"
    p = run_cli("report", results.interrupted, "-o", out)
    assert_ok(p)
    assert "interrupted" in p.stderr
    text = out.read_text(encoding="utf-8")
    assert "was interrupted (SIGINT)" in text


# --- units, msgrate, the 90% guide, gradsync (known values) ------------------------------

def _figures(*paths):
    import matplotlib
    matplotlib.use("Agg")
    from fabricbench_analysis import load
    from fabricbench_analysis.render import plot
    return {name: (cap, fig) for name, cap, fig in plot.figures(load(list(paths)))}


def _curves(ax):
    """The data lines of an axes (with markers), not the guides or band edges."""
    return [ln for ln in ax.get_lines() if ln.get_marker() not in (None, "None", "")
            and len(ln.get_xdata()) > 0]


def _guides(ax, style):
    return sorted(float(ln.get_ydata()[0]) for ln in ax.get_lines()
                  if ln.get_linestyle() == style and ln.get_marker() in (None, "None", ""))


def _tick_texts(fig):
    from fabricbench_analysis.render import plot
    plot.png_bytes(fig)  # draws: the tick labels are made
    out = []
    for ax in fig.axes:
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    return [t for t in out if t]


def _svg_text(path):
    root = ET.parse(str(path)).getroot()
    return " ".join("".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text"))


def test_msgrate_plotted_in_messages_per_second(known, tmp_path):
    """msgrate: the aggregate message rate (9e6 ... 1.2e4 msg/s) in millions of messages/s,
    not Gb/s; no line rate (it bounds bytes, not messages). The SVG's text says so too."""
    from known_values import MSGRATE_MSGPS, SIZES
    cap, fig = _figures(known.msgrate)["msgrate"]
    ax = fig.axes[0]
    assert ax.get_ylabel() == "message rate, all pairs (million messages/s)"
    (line,) = _curves(ax)
    assert list(line.get_xdata()) == list(SIZES)
    assert list(line.get_ydata()) == pytest.approx([MSGRATE_MSGPS[b] / 1e6 for b in SIZES],
                                                   rel=1e-12)
    assert not _guides(ax, "--") and not _guides(ax, "-.")
    assert "messages per second" in cap and "Gb/s" not in cap
    out = tmp_path / "p"
    assert_ok(run_cli("plot", known.msgrate, "-o", out))
    text = _svg_text(out / "msgrate.svg")
    assert "million messages/s" in text and "Gb/s" not in text, text
    assert "bandwidth (Gb/s)" in _svg_text(out / "bw.svg")


def test_line_rate_and_its_90_percent_guide(known):
    """A known line rate (100 Gb/s): bw has it dashed at 100 and dash-dotted at 90 Gb/s, its
    curve the file's Gbps (8, 40, 64, 80); busbw at 12.5 and 11.25 GB/s. No rate, no guide."""
    figs = _figures(known.base)
    cap, fig = figs["bw"]
    ax = fig.axes[0]
    assert _guides(ax, "--") == [100.0] and _guides(ax, "-.") == pytest.approx([90.0])
    (line,) = _curves(ax)
    assert list(line.get_ydata()) == pytest.approx([8.0, 40.0, 64.0, 80.0], rel=1e-12)
    assert ax.get_ylabel() == "bandwidth (Gb/s)"
    assert "dash-dotted: 90% of it" in cap
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "90% of the line rate: 90 Gb/s" in legend, legend
    cap, fig = figs["allreduce_busbw"]
    ax = fig.axes[0]
    assert _guides(ax, "--") == [12.5] and _guides(ax, "-.") == pytest.approx([11.25])
    assert list(_curves(ax)[0].get_ydata()) == pytest.approx([0.5, 2.0, 4.0, 5.0], rel=1e-12)
    for name in ("bw", "allreduce_busbw"):
        ax = _figures(known.no_line_rate)[name][1].axes[0]
        assert not _guides(ax, "--") and not _guides(ax, "-."), name


def test_gradsync_one_setup_is_a_table_row(known, tmp_path):
    """One bucket size and in-flight count: no figure (it was one point at x = 400000000 with
    a y axis of '6x10^5 us'), a table row: the report shows it, plot says why."""
    from fabricbench_analysis import load
    from fabricbench_analysis.render import plot
    assert not [n for n in _figures(known.grad1) if n.startswith("gradsync")]
    (t,) = plot.tables(load([known.grad1]))
    assert t["kernel"] == "gradsync" and len(t["rows"]) == 1
    assert t["rows"][0][1:4] == ["400 MB", "params=100 million bucket=25M inflight=1",
                                 "624 ms"], t["rows"]
    assert "one point (model parameters 100 million, bucket size 25M and buckets in flight " \
        "1; one run)" in t["why"], t["why"]
    p = run_cli("plot", known.grad1, "-o", tmp_path / "p")
    assert_error(p, 3, "nothing to plot: gradsync has one point")
    p = run_cli("plot", known.grad1, known.base, "-o", tmp_path / "p")
    assert_ok(p)
    assert "note: gradsync not plotted: one point" in p.stderr, p.stderr
    assert not list((tmp_path / "p").glob("gradsync*"))
    out = tmp_path / "r.html"
    assert_ok(run_cli("report", known.grad1, "-o", out))
    text = out.read_text(encoding="utf-8")
    table = text[text.index("<h3>gradsync</h3>"):]
    assert "<td>400 MB</td>" in table and "624 ms" in table and "a table row" in table


def test_gradsync_against_bucket_size(known):
    """Four bucket sizes at 1 and 4 buckets in flight: time per sync against the bucket size,
    in ms (6e5 x (1 + 1M / bucket) / inflight us), one curve per in-flight count, the ticks at
    the buckets; effective busbw = 4e8 B / time, against the line rate and its 90%."""
    from known_values import GRADSYNC_BYTES, gradsync_time_us
    figs = _figures(known.grad_buckets)
    buckets = [1 << 20, 4 << 20, 16 << 20, 64 << 20]
    cap, fig = figs["gradsync_time"]
    ax = fig.axes[0]
    assert ax.get_xlabel() == "bucket size (--bucket; bytes, K = 1024)"
    assert ax.get_ylabel() == "time per sync, slowest rank (ms)"
    curves = _curves(ax)
    assert len(curves) == 2
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    for n, line in zip((1, 4), curves):
        assert list(line.get_xdata()) == buckets
        assert list(line.get_ydata()) == pytest.approx(
            [gradsync_time_us(b, n) / 1000 for b in buckets], rel=1e-12)
        assert "shm, buckets in flight %d: p50" % n in legend, legend
    texts = _tick_texts(fig)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1M", "4M", "16M", "64M"]
    assert "1000" in texts, texts
    cap, fig = figs["gradsync_busbw"]
    ax = fig.axes[0]
    assert ax.get_ylabel() == "effective busbw (GB/s)"
    for n, line in zip((1, 4), _curves(ax)):
        assert list(line.get_ydata()) == pytest.approx(
            [GRADSYNC_BYTES / gradsync_time_us(b, n) / 1000 for b in buckets], rel=1e-12)
    assert _guides(ax, "--") == [12.5] and _guides(ax, "-.") == pytest.approx([11.25])


def test_gradsync_against_buckets_in_flight(known):
    from known_values import gradsync_time_us
    cap, fig = _figures(known.grad_inflight)["gradsync_time"]
    ax = fig.axes[0]
    assert ax.get_xlabel() == "buckets in flight (--inflight)"
    (line,) = _curves(ax)
    assert list(line.get_xdata()) == [1, 2, 4, 8]
    assert list(line.get_ydata()) == pytest.approx(
        [gradsync_time_us(25 << 20, n) / 1000 for n in (1, 2, 4, 8)], rel=1e-12)
    _tick_texts(fig)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "8"]


def test_axis_labels_read_right(known, results):
    """No exponent or offset labels anywhere (10^5, 6x10^5, 1e+05); times in a unit in which
    the shortest is at least 1 (latency in us here, gradsync in ms)."""
    for paths in ((known.base, known.msgrate), (known.grad_buckets,), (results.shm,
                                                                       results.tcp)):
        for name, (cap, fig) in _figures(*paths).items():
            texts = _tick_texts(fig)
            assert texts, name
            for t in texts:
                assert not any(x in t for x in ("$", "^", "\u00d7", "e+", "e-")), (name, t)
            for ax in fig.axes:
                assert not ax.yaxis.get_offset_text().get_text(), name
    lat = _figures(known.base)["latency"][1].axes[0]
    assert lat.get_ylabel() == "one-way latency (\u00b5s)"


def test_plain_numbers_and_units():
    from fabricbench_analysis.render import plot_base as plot
    assert [plot._num(v) for v in (0.0005, 0.012, 1.5, 150, 1234, 600000)] == [
        "0.0005", "0.012", "1.5", "150", "1234", "600,000"]
    assert plot._time_unit([0.3, 5000]) == (1.0, "\u00b5s")
    assert plot._time_unit([6e5, 7e5]) == (1e3, "ms")
    assert plot._time_unit([2e6]) == (1e6, "s")
    assert plot._rate_unit([0.0005, 0.05], "GB/s") == (1e-3, "MB/s")
    assert plot._rate_unit([9e6], "messages/s") == (1e6, "million messages/s")
