# SPDX-License-Identifier: BSD-3-Clause
"""Figures for people who did not run the test: rendered at the sizes they are shipped at (the
PNG files and the report's images at the figure's 110 dpi, the SVG files at 72), every
legend and text lies within the canvas and no two tick labels of an axis overlap; the repeats
of one measurement are one curve (their median, their range shaded), disturbed points hollow;
a pairs kernel (one message size) is no single dot."""
import math

import pytest
from conftest import assert_ok, run_cli
from known_values import run, write_known

from fabricbench_analysis import load

SHIPPED_DPI = (110, 72)  # PNG (plot and report), SVG
GAP = 0.25  # the least gap between tick labels asserted, in font sizes


@pytest.fixture(scope="module")
def figs_files(results, tmp_path_factory):
    """3 + 3 runs of two fabrics whose line rate is unknown: the legend names every run then
    (the issue's clipped bw.png and allreduce_busbw.png)."""
    d = tmp_path_factory.mktemp("figures")

    def make(name, *runs):
        return write_known(str(d / (name + ".h5")), [results.shm, results.mg], runs)

    shm = make("shm3", *[run(line_rate_gbps=math.nan, time_scale=f, bw_scale=f)
                         for f in (1.0, 1.1, 0.9)])
    tcp = make("tcp3", *[run(fabric="tcp", line_rate_gbps=math.nan, time_scale=1.5 * f,
                             bw_scale=0.5 * f) for f in (1.0, 1.1, 0.9)])
    mixed = make("mixed", run(cpu_min={8: 20.0, 1024: 20.0}))
    return shm, tcp, mixed


def _figures(paths, **kw):
    """The figures as shipped: laid out as png_bytes and save lay them out (plot.fit)."""
    import matplotlib
    matplotlib.use("Agg")
    from fabricbench_analysis.render import plot
    figs = plot.figures(load(list(paths)), **kw)
    for _, _, fig in figs:
        plot.fit(fig)
    return {name: (cap, fig) for name, cap, fig in figs}


def _drawn_tick_labels(axis, renderer):
    lo, hi = sorted(axis.get_view_interval())
    return [t.label1 for loc, t in zip(axis.get_majorticklocs(), axis.get_major_ticks())
            if t.label1.get_visible() and t.label1.get_text() and lo <= loc <= hi]


def _at(fig, dpi):
    """The figure laid out at dpi, and its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(fig)
    fig.set_dpi(dpi)
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def _outside(fig, renderer):
    """The legends and texts of a figure that reach beyond its canvas (1 pixel allowed)."""
    from matplotlib.text import Text
    w, h = fig.bbox.width, fig.bbox.height
    bad = []
    items = [("legend", ax.get_legend()) for ax in fig.axes if ax.get_legend()]
    items += [("text %r" % t.get_text(), t) for t in fig.findobj(Text)
              if t.get_visible() and t.get_text() and not _is_tick_label(t, fig)]
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            items += [("tick %r" % t.get_text(), t) for t in _drawn_tick_labels(axis, renderer)]
    for what, artist in items:
        b = artist.get_window_extent(renderer)
        if b.x0 < -1 or b.y0 < -1 or b.x1 > w + 1 or b.y1 > h + 1:
            bad.append("%s: %s outside %gx%g" % (what, [round(x) for x in b.extents], w, h))
    return bad


def _is_tick_label(t, fig):
    return any(t is tick.label1 or t is tick.label2 for ax in fig.axes
               for axis in (ax.xaxis, ax.yaxis)
               for tick in axis.get_major_ticks() + axis.get_minor_ticks())


def _overlapping_ticks(fig, renderer):
    bad = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = _drawn_tick_labels(axis, renderer)
            boxes = [(t.get_text(), t.get_window_extent(renderer),
                      t.get_fontsize() * fig.dpi / 72.0 * GAP) for t in labels]
            for i, (ta, a, gap) in enumerate(boxes):
                for tb, b, _ in boxes[i + 1:]:
                    if a.x0 < b.x1 + gap and b.x0 < a.x1 + gap and a.y0 < b.y1 + gap and \
                            b.y0 < a.y1 + gap:
                        bad.append("%s axis: %r and %r" % (axis.axis_name, ta, tb))
    return bad


def _sets(figs_files, known):
    shm, tcp, mixed = figs_files
    return [("3 + 3 runs, line rate unknown", [shm, tcp], {}),
            ("the same, a curve per run", [shm, tcp], {"per_run": True}),
            ("a disturbed file, msgrate", [mixed, known.msgrate], {"per_run": True}),
            ("gradsync against the bucket size", [known.grad_buckets], {})]


@pytest.fixture(scope="module")
def shipped(figs_files, known, results, congestion):
    """Every figure of the sets above (and of the real runs, the congestion kernels' once and
    twice: labels above the patterns) laid out at each shipped dpi: ([what is outside the
    canvas], [tick labels that overlap])."""
    outside, overlap = [], []
    sets = _sets(figs_files, known) + [("real runs", [results.shm, results.tcp], {}),
                                       ("congestion", [congestion.h5], {}),
                                       ("congestion twice", [congestion.h5] * 2, {})]
    for what, paths, kw in sets:
        for name, (cap, fig) in _figures(paths, **kw).items():
            for dpi in SHIPPED_DPI:
                renderer = _at(fig, dpi)
                where = "%s, %s at %d dpi: " % (what, name, dpi)
                outside += [where + b for b in _outside(fig, renderer)]
                overlap += [where + b for b in _overlapping_ticks(fig, renderer)]
    return outside, overlap


def test_legends_and_texts_within_the_canvas(shipped):
    """Every legend, title, axis label and drawn tick label of every figure lies within the
    figure at the sizes shipped (today's bw and allreduce_busbw of 3 + 3 runs without a line
    rate: the legend cut off left and right)."""
    assert not shipped[0], "\n".join(shipped[0])


def test_tick_labels_apart(shipped):
    """No two tick labels of an axis overlap (a gap of a quarter of the font size at least)
    in any figure, at the sizes shipped."""
    assert not shipped[1], "\n".join(shipped[1])


def _curves(ax):
    """The data lines of an axes (with markers and a line), not the guides, bands or hollow
    marks."""
    return [ln for ln in ax.get_lines() if ln.get_marker() not in (None, "None", "")
            and ln.get_linestyle() not in ("None", "none", "") and len(ln.get_xdata()) > 0]


def test_repeats_are_one_curve(known):
    """3 shm runs (1, 1.02, 0.98 x) and 3 tcp runs: one curve per group, its median (bw 8,
    40, 64, 80 Gb/s for shm), the range of its runs shaded (0.98 to 1.02 x); --per-run: six."""
    cap, fig = _figures([known.fabric_a, known.fabric_b])["bw"]
    ax = fig.axes[0]
    curves = _curves(ax)
    assert len(curves) == 2
    assert list(curves[0].get_ydata()) == pytest.approx([8.0, 40.0, 64.0, 80.0], rel=1e-12)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:2] == ["shm (3 runs)", "tcp (3 runs)"], legend
    assert any(t.startswith("shaded (or bar): the range of a group's runs") for t in legend)
    (band, _) = ax.collections
    lo, hi = band.get_paths()[0].vertices[:, 1].min(), band.get_paths()[0].vertices[:, 1].max()
    assert (lo, hi) == pytest.approx((8.0 * 0.98, 80.0 * 1.02), rel=1e-9)
    assert "their median; the shaded band is the range of its runs" in cap
    cap, fig = _figures([known.fabric_a, known.fabric_b], per_run=True)["bw"]
    assert len(_curves(fig.axes[0])) == 6 and not fig.axes[0].collections


def test_disturbed_points_are_hollow(figs_files):
    """The rows measured while a rank ran 20% of the time (8 B and 1K) are hollow markers,
    named in the legend."""
    cap, fig = _figures([figs_files[2]])["bw"]
    ax = fig.axes[0]
    hollow = [ln for ln in ax.get_lines() if ln.get_linestyle() in ("None", "none")
              and ln.get_markerfacecolor() == "white" and len(ln.get_xdata())]
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [8, 1024]
    assert "hollow marker: row disturbed or invalid, no measurement of the fabric" in \
        [t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts()]


def test_pairs_kernels_are_no_single_dot(pairs, tmp_path):
    """pairs_bw and pairs_latency measure one size: no figure against the size (it was one
    dot), a note pointing to the heatmaps, which are drawn; the report shows a table row."""
    out = tmp_path / "p"
    p = run_cli("plot", pairs.healthy, "-o", out)
    assert_ok(p)
    names = sorted(x.name for x in out.iterdir())
    assert "pairs_bw.png" not in names and "pairs_latency.png" not in names, names
    assert "pairs_bw_matrix.png" in names and "pairs_latency_matrix.png" in names, names
    assert "note: pairs_bw not plotted: one message size (1M) in every run: a point, not a " \
        "curve" in p.stderr, p.stderr
    page = tmp_path / "r.html"
    assert_ok(run_cli("report", pairs.healthy, "-o", page))
    text = page.read_text(encoding="utf-8")
    assert "<h3>pairs_bw</h3>" in text and "heatmap pairs_bw_matrix" in text
