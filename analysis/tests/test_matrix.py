# SPDX-License-Identifier: BSD-3-Clause
"""The pairs kernels' matrices: `matrix`, the heatmaps of `plot`, the verdict on top of
`report`, and `check --baseline` pair by pair. Verdicts and values are asserted on the known
matrices of known_matrix.py (fixture `pairs`); the real pairs run only for shapes and exit
codes."""
import json
import os

import pytest
from conftest import assert_error, assert_ok, run_cli

from fabricbench_analysis.render import matrix, matrix_plot
from fabricbench_analysis.reading.matrix_load import load_matrices


def _matrix(p, *args):
    return run_cli("matrix", *args)


def _lines(text, start):
    return [x for x in text.splitlines() if x.startswith(start)]


# --- matrix -----------------------------------------------------------------------------

def test_real_run_shapes(pairs):
    p = _matrix(pairs, pairs.real)
    assert p.returncode == pairs.real_exit, p.stderr  # the verdict fabricbench gave
    assert "Traceback" not in p.stderr
    heads = _lines(p.stdout, "== ")
    assert len(heads) == 2
    assert heads[0].startswith("== pairs_latency (") and heads[1].startswith("== pairs_bw (")
    assert "members   4 ranks: " in p.stdout
    assert p.stdout.count("matrix: ") == 2  # 4 members: the matrix itself is printed
    j = json.loads(_matrix(pairs, pairs.real, "--json").stdout)
    assert [m["kernel"] for m in j] == ["pairs_latency", "pairs_bw"]
    for m in j:
        assert m["members"] == 4 and m["status"] in ("healthy", "suspects")
        assert len(m["matrix"]) == 4 and all(len(r) == 4 for r in m["matrix"])
        assert m["matrix"][0][0] is None  # the diagonal: NaN, null in JSON


def test_healthy(pairs):
    p = _matrix(pairs, pairs.healthy)
    assert_ok(p)
    assert "== pairs_latency (%s run_0000): verdict healthy" % pairs.healthy in p.stdout
    assert "suspects  none" in p.stdout
    assert "switches  sw1: sw1-n01, sw1-n02, sw1-n03, sw1-n04; sw2: sw2-n05" in p.stdout
    assert "measured  28 of 28 pairs; 0 slow" in p.stdout
    assert "median    10000 MB/s per pair and direction; line rate 11000 MB/s" in p.stdout
    assert "below 90% of the median pair (9000 MB/s) or below 90% of the line rate" in p.stdout
    assert "p50 above 1.5x the median pair's (3.000 us)" in p.stdout
    # 8 members: the matrix, headed by the names, no cell slow
    head = [x for x in p.stdout.splitlines() if x.split() == pairs.km.NODES]
    assert len(head) == 2
    assert "*" not in p.stdout.replace("(* slow", "")


def test_bad_node(pairs):
    p = _matrix(pairs, pairs.node, "--kernel", "pairs_bw", "--worst", "3")
    assert p.returncode == 1, p.stderr
    assert "verdict SUSPECTS (1 suspect)" in p.stdout
    assert "suspect node: node sw2-n06 (or its link): slow with 7 of its 7 peers" in p.stdout
    assert "measured  28 of 28 pairs; 7 slow" in p.stdout
    worst = p.stdout.split("worst 3 directions (lowest bandwidth first):\n")[1].splitlines()
    assert worst[0].split()[:4] == ["from", "to", "MB/s", "of"]
    for row in worst[1:4]:
        cells = row.split()
        assert "sw2-n06" in cells[:2] and cells[2:5] == ["2500", "25%", "23%"]
        assert row.rstrip().endswith("bandwidth, line rate")
    assert "pairs_latency" not in p.stdout  # --kernel
    # the matrix: every cell in sw2-n06's row and column slow, no other
    rows = p.stdout.split("- not measured)\n")[1].splitlines()[1:]
    assert len(rows) == 8
    for r in rows:
        cells = r.split()
        if cells[0] == "sw2-n06":
            assert cells.count("2500*") == 7
        else:
            assert cells.count("2500*") == 1 and cells.count("10000") == 6


def test_adaptive_iterations_shown_as_a_range(pairs, tmp_path):
    """Adaptive pairs: the fewest and most timed iterations of a pair (`iterations`,
    `iterations_max`), the policy and the pair's time in the text and the JSON; a most below
    the fewest is not what fabricbench writes (exit 3)."""
    import shutil

    import h5py

    path = str(tmp_path / "adaptive.h5")
    shutil.copy(pairs.healthy, path)
    with h5py.File(path, "r+") as f:
        for k in f["runs/run_0000/kernels"].values():
            m = k["matrix"].attrs
            m["policy"], m["pair_time_s"] = "adaptive", 1.0
            m["iterations"], m["iterations_max"], m["warmup"] = 10, 34, 4
    p = _matrix(pairs, path, "--kernel", "pairs_bw")
    assert_ok(p)
    assert ("10-34 iterations per pair and direction (4 warm-up, adaptive, at most 1 s each)"
            in p.stdout), p.stdout
    j = json.loads(_matrix(pairs, path, "--json").stdout)
    assert all(m["policy"] == "adaptive" and m["iterations"] == 10 and
               m["iterations_max"] == 34 and m["pair_time_s"] == 1.0 for m in j)
    # a file without them (written before): one count, no policy
    j = json.loads(_matrix(pairs, pairs.healthy, "--json").stdout)
    assert all(m["policy"] is None and m["iterations_max"] == -1 for m in j)
    with h5py.File(path, "r+") as f:
        next(iter(f["runs/run_0000/kernels"].values()))["matrix"].attrs["iterations_max"] = 5
    assert_error(_matrix(pairs, path), 3, "iterations_max", "fewer than")


def test_bad_pair_latency(pairs):
    p = _matrix(pairs, pairs.pair, "--kernel", "pairs_latency", "--worst", "2")
    assert p.returncode == 1
    assert ("suspect pair: the link or path between sw1-n01 and sw1-n03: slow on its own"
            in p.stdout)
    rows = p.stdout.split("(highest latency first):\n")[1].splitlines()[1:3]
    assert rows[0].split()[:6] == ["sw1-n01", "sw1-n03", "5.000", "250%", "7.500", "latency"]
    assert rows[1].split()[2:6] == ["2.000", "100%", "3.000", "ok"]


def test_killed_run_is_incomplete(pairs):
    p = _matrix(pairs, pairs.killed)
    assert p.returncode == 4, p.stderr  # a verdict is missing: not "healthy"
    assert "== pairs_latency (%s run_0000): verdict healthy" % pairs.killed in p.stdout
    assert ("== pairs_bw (%s run_0000): INCOMPLETE, no verdict: 3 of 7 rounds done (run "
            "running)" % pairs.killed) in p.stdout
    bw = p.stdout.split("== pairs_bw")[1]
    assert "measured  12 of 28 pairs\n" in bw  # 3 rounds of 4 pairs
    assert "(of the pairs so far)" in bw and "not judged yet" in bw
    j = json.loads(_matrix(pairs, pairs.killed, "--json").stdout)
    assert [m["status"] for m in j] == ["healthy", "incomplete"]
    assert j[1]["verdict"] is None and j[1]["rounds_done"] == 3
    assert sum(v is not None for r in j[1]["matrix"] for v in r) == 24


def test_retest_shown_next_to_first_measurement(pairs):
    """The bad pair retested alone at the healthy values: slow only under load (pair_slow 8),
    which counts as ok: verdict healthy."""
    p = _matrix(pairs, pairs.retest, "--worst", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("retest of slow pairs alone on (1 of 1 retested; 1 slow only under "
                          "load)") == 2
    worst = [x.split() for x in p.stdout.splitlines() if x.startswith("  sw1-n01  sw1-n03")]
    assert worst == [["sw1-n01", "sw1-n03", "5.000", "250%", "7.500", "only", "under", "load",
                      "2.000", "(100%)"],
                     ["sw1-n01", "sw1-n03", "4000", "40%", "36%", "only", "under", "load",
                      "10000", "(100%)"]]
    assert "retested alone (2 directions): first measurement -> alone" in p.stdout
    assert "  sw1-n01 -> sw1-n03: 4000 -> 10000 MB/s (40% -> 100% of the median)" in p.stdout
    assert "  sw1-n01 <-> sw1-n03: 5.000 -> 2.000 us (250% -> 100% of the median)" in p.stdout
    row = [x for x in p.stdout.splitlines() if x.startswith("  sw1-n01 ")][-1]
    assert "4000~" in row and "*" not in row  # marked, not slow
    j = json.loads(_matrix(pairs, pairs.retest, "--json", "--kernel", "pairs_bw").stdout)[0]
    assert j["retest"] == "on" and j["status"] == "healthy" and j["pairs_load_only"] == 1
    w = j["worst"][0]
    assert w["slow_bits"] == 8 and w["slow"] == ["only under load"]
    assert w["retest"]["value"] == 10000.0 and w["value"] == 4000.0


def test_without_retest_fields_none_shown(pairs):
    p = _matrix(pairs, pairs.pair)
    assert "retest" not in p.stdout.replace("retest alone", "")


def test_json_worst_and_suspects(pairs):
    p = _matrix(pairs, pairs.node, "--json", "--worst", "7")
    assert p.returncode == 1
    j = json.loads(p.stdout)
    lat, bw = j
    assert bw["status"] == "suspects" and bw["suspect_nodes"] == ["sw2-n06"]
    assert bw["suspects"] == ["node: node sw2-n06 (or its link): slow with 7 of its 7 peers"]
    assert bw["median"] == 10000.0 and bw["unit"] == "MB/s"
    assert len(bw["worst"]) == 7
    assert all(w["value"] == 2500.0 and w["of_median"] == 0.25 and "sw2-n06" in
               (w["src"], w["dst"]) for w in bw["worst"])
    assert lat["worst"][0]["p99_us"] == 9.0 and lat["worst"][0]["slow"] == ["latency"]
    assert bw["switches"] == ["sw1", "sw2"] and bw["node_switch"] == [0] * 4 + [1] * 4


def test_big_matrix_not_printed_names_listed(pairs, tmp_path):
    names = ["sw1-n%02d" % i for i in range(1, 9)] + ["sw2-n%02d" % i for i in range(9, 17)]
    path = pairs.km.write_pairs(str(tmp_path / "m16.h5"), pairs.real,
                                pairs.km.spec(nodes=names))
    p = _matrix(pairs, path, "--worst", "0")
    assert_ok(p)
    assert "matrix: " not in p.stdout and "worst" not in p.stdout
    assert "members   16 nodes: sw1-n01, " in p.stdout and "... and 4 more" in p.stdout
    assert "measured  120 of 120 pairs; 0 slow" in p.stdout


def test_usage_and_no_pairs_kernel(pairs, known):
    assert_error(_matrix(pairs, pairs.node, "--kernel", "bw"), 2, "--kernel bw: no such pairs "
                 "kernel", "pairs_bw, pairs_latency")
    assert_error(_matrix(pairs, pairs.node, "--worst", "-1"), 2, "--worst -1")
    p = _matrix(pairs, known.base)
    assert_error(p, 3, "no pairs kernel (pairs_latency, pairs_bw) with a matrix", "hint: ")
    assert len(p.stderr.splitlines()) == 2


def test_help_names_the_command():
    p = run_cli("--help")
    assert "matrix" in p.stdout and "matrix: a verdict named suspects" in p.stdout
    p = run_cli("matrix", "--help")
    assert "--worst N" in p.stdout and "4 no verdict yet" in p.stdout


# --- heatmaps ---------------------------------------------------------------------------

def test_plot_writes_a_heatmap_per_matrix(pairs, tmp_path):
    out = tmp_path / "plots"
    p = run_cli("plot", pairs.node, pairs.healthy, "-o", out, "--format", "png")
    assert_ok(p)
    names = sorted(os.listdir(out))
    for n in ("pairs_bw_matrix.png", "pairs_bw_matrix_2.png", "pairs_latency_matrix.png",
              "pairs_latency_matrix_2.png"):
        assert n in names
    with open(out / "pairs_bw_matrix.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def _rects(fig, gid="slow"):
    """Cells outlined as slow (or gid: 'load_only', 'not_measured' hatched)."""
    return sum(len(c.get_paths()) for c in fig.axes[0].collections if c.get_gid() == gid)


def test_heatmap_marks_slow_cells_suspects_and_verdict(pairs):
    bw = [m for m in load_matrices([pairs.node]) if m["kernel"] == "pairs_bw"][0]
    fig, cap = matrix_plot.figure(bw)
    ax = fig.axes[0]
    assert "verdict SUSPECTS: 1" in ax.get_title()
    assert _rects(fig) == 14  # 7 pairs with sw2-n06, both directions
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[5] == "\u25b2 sw2-n06" and labels[0] == "sw1-n01" and len(labels) == 8
    assert ax.get_xticklabels()[5].get_color() == matrix_plot.SUSPECT_COLOR
    assert "14 outlined cells are slow" in cap and "Suspects: node: node sw2-n06" in cap
    assert _rects(fig, "not_measured") == 8 and _rects(fig, "load_only") == 0
    img = ax.images[0].get_array()
    assert int(img.mask.sum()) == 8  # the diagonal only: every pair measured


def test_heatmap_of_killed_run_shows_unmeasured(pairs):
    bw = [m for m in load_matrices([pairs.killed]) if m["kernel"] == "pairs_bw"][0]
    fig, cap = matrix_plot.figure(bw)
    assert "INCOMPLETE (3 of 7 rounds), no verdict" in fig.axes[0].get_title()
    assert int(fig.axes[0].images[0].get_array().mask.sum()) == 64 - 24
    assert _rects(fig) == 0 and "3 of 7 rounds" in cap
    assert _rects(fig, "not_measured") == 64 - 24


def test_plot_of_run_killed_in_its_first_kernel(pairs, tmp_path):
    """No measured row (killed during pairs_bw, its only kernel), but a matrix of 3 rounds:
    plot draws the heatmap (a note says why nothing else); summary has nothing (exit 3)."""
    import shutil

    import h5py
    path = str(tmp_path / "first.h5")
    shutil.copyfile(pairs.killed, path)
    with h5py.File(path, "r+") as f:
        del f["/runs/run_0000/kernels/00_pairs_latency"]
    out = tmp_path / "plots"
    p = run_cli("plot", path, "-o", out, "--format", "png")
    assert_ok(p)
    assert sorted(os.listdir(out)) == ["pairs_bw_matrix.png"]
    assert "only the pairs matrices are drawn" in p.stderr
    assert_error(run_cli("summary", path), 3, "no measured rows")
    assert _matrix(pairs, path).returncode == 4


def test_heatmap_load_only_cells_dashed(pairs):
    bw = [m for m in load_matrices([pairs.retest]) if m["kernel"] == "pairs_bw"][0]
    fig, cap = matrix_plot.figure(bw)
    assert _rects(fig, "load_only") == 2 and _rects(fig) == 0
    assert "verdict healthy" in fig.axes[0].get_title()
    assert "2 cells slow only under load" in cap


def test_heatmap_ticks_thinned_above_64(pairs, tmp_path):
    names = ["sw1-n%02d" % i for i in range(1, 51)] + ["sw2-n%02d" % i for i in range(51, 101)]
    path = pairs.km.write_pairs(str(tmp_path / "m100.h5"), pairs.real,
                                pairs.km.spec(nodes=names, fault="pair"))
    m = [m for m in load_matrices([path]) if m["kernel"] == "pairs_bw"][0]
    fig, cap = matrix_plot.figure(m)
    ticks = fig.axes[0].get_xticks()
    assert 30 <= len(ticks) <= 64 and list(ticks[:3]) == [0, 2, 4]
    assert "every name is not labelled" in cap
    assert matrix_plot._ticks(64) == list(range(64))


# --- report -----------------------------------------------------------------------------

def test_report_puts_verdicts_on_top(pairs, tmp_path):
    out = tmp_path / "r.html"
    p = run_cli("report", pairs.node, "--baseline", pairs.healthy, "-o", out)
    assert_ok(p)
    page = out.read_text()
    top = page.index("<h2>Pairs verdict</h2>")
    # the verdicts (the pairs', then the baseline check's) before the summary and any image
    assert top < page.index("<h2>Baseline check</h2>") < page.index("<h2>Summary</h2>") < \
        page.index("<h2>Plots</h2>") < page.index("<img")
    head = page[top:page.index("<h2>Baseline check</h2>")]
    assert head.count('class="badge FAIL"') == 2 and head.count('class="badge PASS"') == 2
    assert "suspect node: node sw2-n06 (or its link)" in head
    assert head.index("<h3>Baseline</h3>") > head.index("sw2-n06")
    assert page.count('alt="pairs_bw_matrix"') == 1
    # the baseline check has the pairs too
    assert "bw_MBps sw1-n01 -&gt; sw2-n06" in page


def test_report_without_pairs_has_no_verdict_section(known, tmp_path):
    out = tmp_path / "r.html"
    assert_ok(run_cli("report", known.base, "-o", out))
    assert "Pairs verdict" not in out.read_text()


# --- check pair by pair ------------------------------------------------------------------

def _check(base, cur, *args):
    p = run_cli("check", "--baseline", base, cur, "--json", *args)
    return p, json.loads(p.stdout) if p.stdout.strip() else None


def test_check_same_matrices_pass(pairs):
    p, j = _check(pairs.healthy, pairs.healthy)
    assert p.returncode == 0 and j["result"] == "PASS"
    pair_items = [c for c in j["files"][0]["checks"] if c["metric"] in ("bw_MBps",
                                                                         "lat_p50_us")]
    assert [c["status"] for c in pair_items] == ["PASS", "PASS"]
    assert "all 56 directions within the tolerance" in pair_items[1]["reason"]
    assert "all 28 pairs within the tolerance" in pair_items[0]["reason"]


@pytest.mark.parametrize("cur", ["pair_slower", "reordered"])
def test_check_one_pair_slower_fails_by_names(pairs, cur):
    """30% less bandwidth (and 1/0.7 the latency) on sw1-n02 <-> sw2-n07 only; `reordered`
    lists the members in reverse order: matched by names, the same pair FAILs and no other."""
    p, j = _check(pairs.healthy, getattr(pairs, cur))
    assert p.returncode == 1 and j["result"] == "FAIL"
    fails = [c for c in j["files"][0]["checks"] if c["status"] == "FAIL"]
    got = sorted((c["kernel"], c["pair"], round(c["change"], 4)) for c in fails)
    assert got == [("pairs_bw", "sw1-n02 -> sw2-n07", -0.3),
                   ("pairs_bw", "sw2-n07 -> sw1-n02", -0.3),
                   ("pairs_latency", "sw1-n02 <-> sw2-n07", round(1 / 0.7 - 1, 4))]
    assert all(c["noise"] == pytest.approx(0.15) for c in fails)
    # the kernels' table rows are still checked
    rows = [c for c in j["files"][0]["checks"] if c["metric"] in ("MBps", "p50_us")]
    assert [c["status"] for c in rows] == ["PASS", "PASS"]


def test_check_pair_within_noise_warns(pairs, tmp_path):
    """14% less on one pair: beyond the 10% tolerance, within the 15% noise floor: WARN."""
    path = pairs.km.write_pairs(str(tmp_path / "mild.h5"), pairs.real, pairs.km.spec(
        pair_scale={("sw1-n02", "sw2-n07"): 0.86}))
    p, j = _check(pairs.healthy, path, "--rules", _rules(tmp_path, "pairs_latency * p50_us "
                                                                   "skip"))
    assert p.returncode == 0 and j["result"] == "WARN"
    w = [c for c in j["files"][0]["checks"] if c["status"] == "WARN"]
    assert len(w) == 1 and w[0]["metric"] == "bw_MBps"
    assert w[0]["reason"].startswith("2 directions worse beyond the tolerance (10.0%) but "
                                     "within the noise")


def test_check_three_run_baseline_measures_the_spread(pairs, tmp_path):
    """Three identical baseline runs: the spread is measured (0), so the noise band is 0 and
    the same 14% loss FAILs (it WARNs against one run, whose spread is assumed 5%)."""
    base3 = pairs.km.write_pairs(str(tmp_path / "base3.h5"), pairs.real, pairs.km.spec(),
                                 runs=3)
    path = pairs.km.write_pairs(str(tmp_path / "mild.h5"), pairs.real, pairs.km.spec(
        pair_scale={("sw1-n02", "sw2-n07"): 0.86}))
    p, j = _check(base3, path)
    assert p.returncode == 1
    bw = [c for c in j["files"][0]["checks"] if c["metric"].startswith("bw_MBps")]
    assert [(c["status"], c["pair"], c["noise"]) for c in bw] == [
        ("FAIL", "sw1-n02 -> sw2-n07", 0.0), ("FAIL", "sw2-n07 -> sw1-n02", 0.0)]
    assert bw[0]["baseline"] == 10000.0 and bw[0]["value"] == pytest.approx(8600.0)


def _rules(tmp_path, text):
    path = tmp_path / "rules.txt"
    path.write_text(text + "\n")
    return str(path)


def test_check_rules_tolerance_applies_to_pairs(pairs, tmp_path):
    p, j = _check(pairs.healthy, pairs.pair_slower, "--rules",
                  _rules(tmp_path, "pairs_bw * MBps 40%\npairs_latency * p50_us 50%"))
    assert p.returncode == 0 and j["result"] == "PASS"


def test_check_members_by_name(pairs):
    p = run_cli("check", "--baseline", pairs.healthy, pairs.swapped)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ("1 member of the baseline not in this run (its pairs not checked): sw2-n08"
            in p.stdout)
    assert ": pairs_bw: member not in the baseline, pairs not checked: sw2-n09" in p.stdout
    assert "all 42 directions within the tolerance" in p.stdout  # 7 common members
    p = run_cli("check", "--baseline", pairs.healthy, pairs.swapped, "--strict")
    assert p.returncode == 1


def test_check_killed_run_pairs_not_measured(pairs):
    p, j = _check(pairs.healthy, pairs.killed)
    assert j is not None and "Traceback" not in p.stderr
    items = [c for c in j["files"][0]["checks"] if c["kernel"] == "pairs_bw"]
    missing = [c for c in items if "not measured in this run" in c["reason"] and
               c["metric"] == "bw_MBps"]
    assert len(missing) == 1 and missing[0]["status"] == "WARN"
    assert missing[0]["reason"].startswith("32 directions of the baseline not measured in this "
                                           "run (it stopped after 3 of 7 rounds)")


def test_check_bad_node_fails(pairs):
    p, j = _check(pairs.healthy, pairs.node)
    assert p.returncode == 1
    fails = [c for c in j["files"][0]["checks"] if c["status"] == "FAIL"]
    assert any(c["metric"] == "run" for c in fails)  # status 'complete, suspects named'
    bw = [c for c in fails if c["kernel"] == "pairs_bw" and c["pair"]]
    assert len(bw) == 10 and all("sw2-n06" in c["pair"] for c in bw)
    more = [c for c in fails if c["kernel"] == "pairs_bw" and not c["pair"]]
    assert len(more) == 1 and more[0]["reason"].startswith("4 more directions worse")


def test_status_helpers():
    assert matrix.slow_words(255) == ["not measured"]
    assert matrix.slow_words(0) == []
    assert matrix.slow_words(9) == ["bandwidth", "only under load"]
    assert matrix.slow_words(6) == ["latency", "line rate"]
    assert matrix.slow_words(0x31) == ["bandwidth", "bits 0x30"]
