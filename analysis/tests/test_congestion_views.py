# SPDX-License-Identifier: BSD-3-Clause
"""The congestion kernels in plot, report and check (docs/ANALYSIS.md, "Congestion"), on a real
run of cong_lat, cong_bw and cong_allreduce under incast and none (inputs.make_congestion).
The figure is checked as matplotlib objects (axes, titles, labels, the CIF marks), not pixels;
the report by its section's text; check by a copy whose CIF grew. The values are whatever this
machine measured: the tests compare what is drawn and printed with the file's own columns."""
import html
import re
import shutil

import h5py
import numpy as np

from conftest import assert_ok, run_cli
from fabricbench_analysis import load
from fabricbench_analysis.model import congestion as model
from fabricbench_analysis.model.table import fmt_num
from fabricbench_analysis.model import quality
from fabricbench_analysis.render import congestion as view
from fabricbench_analysis.render import plot

KERNELS = ["cong_lat", "cong_bw", "cong_allreduce"]
PATTERNS = ["incast 4K", "none 4K"]


def _rows(path):
    return model.rows(load([path]))


def test_rows_of_the_file(congestion):
    rows = _rows(congestion.h5)
    assert [(r["kernel"], model.where(r)) for r in rows] == \
        [(k, p) for k in KERNELS for p in PATTERNS]
    for r in rows:
        # one node: split by rank, so few nodes (4) and shared nodes (2) in every row
        assert {"few nodes", "shared nodes"} <= set(model.warn_names(r)), r["cong_warn"]
        assert r["worst_canary_host"], "the worst canary's host from the run's hostnames"


def test_pattern_from_congestor_name():
    """The pattern is the row's congestor_name (the C side's word for congestor) where the row
    has one, whatever its instance says; in older files without the column, the instance's."""
    row = {"kernel": "cong_lat", "bytes": 4096, "variant": "--congestor incast",
           "congestor_name": "alltoall"}
    assert model.pattern(row) == "alltoall" and model.where(row) == "alltoall 4K"
    assert model.pattern(dict(row, congestor_name=b"bw")) == "bw"
    for old in ({}, {"congestor_name": None}, {"congestor_name": ""}):
        r = dict(row, **old) if old else {k: v for k, v in row.items() if k != "congestor_name"}
        assert model.pattern(r) == "incast" and model.where(r) == "incast 4K"
    assert model.pattern({"variant": "none"}) == "none"


def test_plot_draws_congestion_rows(congestion, tmp_path):
    p = run_cli("plot", congestion.h5, "-o", tmp_path / "p")
    assert_ok(p)
    for fmt in ("png", "svg"):
        f = tmp_path / "p" / ("congestion." + fmt)
        assert str(f) in p.stdout.split() and f.stat().st_size > 0
    # the congestion kernels are drawn in their figure only: no figure (or plot table) of
    # their own as one-size kernels
    assert sorted(x.name for x in (tmp_path / "p").iterdir()) == ["congestion.png",
                                                                   "congestion.svg"]


def test_congestion_figure_axes(congestion):
    table = load([congestion.h5])
    rows = model.rows(table)
    figs = [f for f in plot.figures(table) if f[0] == "congestion"]
    assert len(figs) == 1 and plot.tables(table) == []
    _, cap, fig = figs[0]
    assert "congestion impact factor" in cap and "alone (grey)" in cap
    axes = fig.get_axes()
    assert len(axes) == 2 * len(KERNELS)  # a row per canary kernel: mean, p99
    for i, kernel in enumerate(KERNELS):
        mine = [r for r in rows if r["kernel"] == kernel]
        for j, (stat, a_col, c_col, cif_col) in enumerate(view.STATS):
            ax = axes[2 * i + j]
            assert ax.get_title().startswith("%s: " % kernel) and ax.get_title().endswith(stat)
            assert ax.get_ylabel() == "%s time per operation (us)" % stat
            assert ax.get_xlabel() == "congestor pattern and message size"
            assert [t.get_text() for t in ax.get_xticklabels()] == PATTERNS
            assert [t.get_text() for t in ax.get_legend().get_texts()] == ["alone",
                                                                          "congested"]
            # the bars: alone then congested per pattern, their heights the stored columns
            heights = sorted((b.get_x(), b.get_height()) for b in ax.patches)
            want = [v for r in mine for v in (r[a_col], r[c_col])]
            assert np.allclose([h for _, h in heights], want)
            # the CIF marked above each pair, the stored value with the row's quality mark
            marks = [t.get_text() for t in ax.texts]
            assert marks == ["CIF %s%s" % (fmt_num(r[cif_col], 3),
                                           model_mark(r).replace(" ", "\n")) for r in mine]


def test_congestion_figure_keeps_every_tick(congestion):
    """Laid out as shipped (plot.fit drops tick labels that would overlap), every pattern's
    label is still there: the figure is made wide enough, for one run and for two."""
    for paths, n in (([congestion.h5], 2), ([congestion.h5] * 2, 4)):
        _, _, fig = [f for f in plot.figures(load(paths)) if f[0] == "congestion"][0]
        plot.fit(fig)
        for ax in fig.get_axes():
            lo, hi = sorted(ax.xaxis.get_view_interval())
            shown = [t for loc, t in zip(ax.get_xticks(), ax.get_xticklabels())
                     if t.get_text() and lo <= loc <= hi]
            assert len(shown) == n, [t.get_text() for t in shown]


def model_mark(r):
    return quality.mark(r)


def _section(page):
    i = page.index("<h2>Congestion</h2>")
    j = page.index("<h2>", i + 1)
    text = re.sub(r"</t[dh]>\s*<t[dh][^>]*>", "|", page[i:j])  # a table row: a|b|c
    text = re.sub(r"</tr>|</li>|</p>|</h[23]>", "\n", text)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def test_report_congestion_section(congestion, tmp_path):
    out = tmp_path / "r.html"
    assert_ok(run_cli("report", congestion.h5, "-o", out))
    page = out.read_text()
    text = _section(page)
    rows = _rows(congestion.h5)
    # the table: the CIF at the mean and at p99 per canary and pattern, as stored
    for r in rows:
        cells = "%s|%s|" % (r["kernel"], model.where(r))
        line = [x for x in text.splitlines() if x.startswith(cells)]
        assert len(line) == 1, (cells, text)
        line = line[0] + "|"
        assert "|%s%s|" % (fmt_num(r["cif_mean"]), model_mark(r)) in line, line
        assert "|%s%s|" % (fmt_num(r["cif_p99"]), model_mark(r)) in line, line
        assert model.worst_host(r) in line
    # the canaries that suffered most: the rows with the largest CIF at p99, named
    assert "The canaries that suffered most" in text or "No canary suffered" in text
    for r in model.suffered_most(rows):
        assert "%s: CIF %s at p99" % (model.name(r), fmt_num(r["cif_p99"], 3)) in text
    # the warnings stored in the file, in words
    assert "Warnings stored in the file" in text
    assert "few nodes: too few nodes for --congestor-frac" in text
    assert "shared nodes: a node holds canaries and congestors" in text
    # and the figure among the plots
    assert 'alt="congestion"' in page


def test_report_without_congestion_has_no_section(results, tmp_path):
    out = tmp_path / "r.html"
    assert_ok(run_cli("report", results.shm, "-o", out))
    assert "<h2>Congestion</h2>" not in out.read_text()


def test_suffered_most_order():
    rows = [{"cif_p99": 1.2, "cif_mean": 1.1}, {"cif_p99": 4.0, "cif_mean": 1.5},
            {"cif_p99": 0.9, "cif_mean": 0.95}, {"cif_p99": float("nan"), "cif_mean": 2.0}]
    assert model.suffered_most(rows) == [rows[1], rows[0], rows[3]]


def test_check_fails_a_cif_that_grew(congestion, tmp_path):
    """A baseline whose CIFs were a tenth of these: check FAILs the congestion rows on
    cif_mean (lower is better). Both files marked ok: a disturbed row is never judged."""
    base, now = tmp_path / "base.h5", tmp_path / "now.h5"
    shutil.copy(congestion.h5, base)
    shutil.copy(congestion.h5, now)
    for path in (base, now):
        with h5py.File(path, "r+") as f:
            for g in f["runs/run_0000/kernels"].values():
                t = g["table"]
                t["quality"][...] = [b"ok"] * len(t["quality"])
                t["quality_reason"][...] = [b""] * len(t["quality"])
                if path == base:
                    t["cif_mean"][...] = t["cif_mean"][()] / 10
    p = run_cli("check", "--baseline", base, now)
    assert p.returncode == 1, p.stdout + p.stderr
    fails = [line for line in p.stdout.splitlines() if "FAIL" in line and "cif_mean" in line]
    assert len(fails) >= len(KERNELS), p.stdout
    p = run_cli("check", "--baseline", now, now)
    assert p.returncode == 0, p.stdout + p.stderr
