"""summary and compare: their shapes and definitions on real result files, their numbers and
verdicts on files of known values (known_values.py)."""
import json
import math

import pytest
from conftest import assert_error, assert_ok, run_cli
from known_values import NOISE_MEAN_REL, NOISE_P50_REL

from fabricbench_analysis import load


def test_summary_text(results):
    p = run_cli("summary", results.shm, results.tcp)
    assert_ok(p)
    lines = p.stdout.splitlines()
    assert "lat p50 us" in lines[0] and "peak Gb/s" in lines[0] and "busbw" in lines[0]
    t = load([results.shm, results.tcp])
    for lab in t.labels():
        row = [line for line in lines[1:3] if line.startswith(lab)]
        assert len(row) == 1, (lab, lines)
    shm_line = [line for line in lines[1:3] if line.startswith(t.labels()[0])][0]
    tcp_line = [line for line in lines[1:3] if line.startswith(t.labels()[1])][0]
    assert "%" in shm_line  # 100G line rate: a percentage
    assert " n/a " in tcp_line  # no line rate known
    assert "@1M" in shm_line  # allreduce at its largest size


def test_summary_json_numbers(results):
    """Each number of a real run's summary is the value of the table row it names."""
    p = run_cli("summary", "--json", results.shm, results.tcp)
    assert_ok(p)
    recs = json.loads(p.stdout)
    assert len(recs) == 2
    t = load([results.shm, results.tcp])
    for rec in recs:
        rows = t.where(label=rec["label"])
        lat8 = [r for r in rows if r["kernel"] == "latency" and r["bytes"] == 8][0]
        assert rec["latency_p50_us"] == lat8["p50_us"]
        assert rec["latency_p99_us"] == lat8["p99_us"]
        bw = [r for r in rows if r["kernel"] == "bw"]
        assert rec["peak_Gbps"] == max(r["Gbps"] for r in bw)
        ar1m = [r for r in rows if r["kernel"] == "allreduce" and r["bytes"] == 1 << 20][0]
        assert rec["allreduce_busbw_1M_GBps"] == ar1m["busbw_GBps"]
        assert rec["msgrate_8B_msgps"] == [r for r in bw if r["bytes"] == 8][0]["msgps"]
    shm = recs[0]
    assert abs(shm["peak_line_pct"] - shm["peak_Gbps"]) < 1e-6 * shm["peak_Gbps"]  # 100 Gb/s
    assert recs[1]["peak_line_pct"] is None


def test_summary_known_numbers(known):
    """The numbers people quote, from known values: latency p50 and p99 at 8 B (1 and 1.2 us);
    bw's peak, 10000 MB/s = 80 Gb/s at 1M, 80% of the 100 Gb/s line rate (none where no line
    rate is known); bw's message rate at 8 B, 1000 MB/s / 8 B = 1.25e8 msg/s; allreduce busbw
    at 1M, its largest size: 5 GB/s. 30% less bandwidth: 56 Gb/s, 56%."""
    p = run_cli("summary", "--json", known.base, known.no_line_rate, known.slow)
    assert_ok(p)
    recs = json.loads(p.stdout)
    assert len(recs) == 3
    for rec, scale in zip(recs, (1.0, 1.0, 0.7)):
        assert rec["latency_bytes"] == 8 and rec["latency_p50_us"] == 1.0
        assert rec["latency_p99_us"] == pytest.approx(1.2, rel=1e-12)
        assert rec["peak_kernel"] == "bw" and rec["peak_bytes"] == 1 << 20
        assert rec["peak_MBps"] == pytest.approx(10000 * scale, rel=1e-12)
        assert rec["peak_Gbps"] == pytest.approx(80 * scale, rel=1e-12)
        assert rec["msgrate_kernel"] == "bw"
        assert rec["msgrate_8B_msgps"] == pytest.approx(1.25e8 * scale, rel=1e-12)
        assert rec["allreduce_busbw_1M_GBps"] == pytest.approx(5 * scale, rel=1e-12)
        assert rec["allreduce_max_bytes"] == 1 << 20
        assert rec["allreduce_busbw_max_GBps"] == rec["allreduce_busbw_1M_GBps"]
    assert recs[0]["peak_line_pct"] == pytest.approx(80.0, rel=1e-12)
    assert recs[1]["peak_line_pct"] is None
    assert recs[2]["peak_line_pct"] == pytest.approx(56.0, rel=1e-12)
    p = run_cli("summary", known.base)
    assert_ok(p)
    line = p.stdout.splitlines()[1]
    for cell in ("1.000", "1.200", "80.00 @1M", "80.0%", "125000000 (bw)", "5.000 @1M"):
        assert cell in line, (cell, line)


def test_summary_csv(results):
    p = run_cli("summary", "--csv", results.shm)
    assert_ok(p)
    head, row = p.stdout.splitlines()[:2]
    assert head.startswith("label,") and "peak_Gbps" in head


def test_compare_two_fabrics(results):
    p = run_cli("compare", results.shm, results.tcp)
    assert_ok(p)
    out = p.stdout
    for block in ("== latency: p50_us", "== latency: p99_us", "== bw: MBps",
                  "== allreduce: busbw_GBps"):
        assert block in out, out
    assert "ratio" in out and "vs ref" in out


def test_compare_identical_is_within_noise(known):
    """A file against itself: ratio 1, '~' (same) everywhere. compare adds no run-to-run
    spread: the band is 3 x sqrt(2) x the rows' own noise, 1e-4 for the rates (0.042%) and
    5.625e-4 for the latency p50 (0.24%)."""
    p = run_cli("compare", "--json", known.base, known.base)
    assert_ok(p)
    res = json.loads(p.stdout)
    n = 0
    for b in res["blocks"]:
        for row in b["rows"]:
            for lab, c in row["cells"].items():
                if lab != res["reference"]:
                    assert c["ratio"] == 1.0 and c["change"] == 0 and c["verdict"] == "same"
                    own = {"p50_us": NOISE_P50_REL, "MBps": NOISE_MEAN_REL,
                           "busbw_GBps": NOISE_MEAN_REL}.get(b["metric"])
                    if own is not None:
                        assert c["noise"] == pytest.approx(3 * math.sqrt(2) * own, rel=1e-6)
                    n += 1
    assert n == 4 * 4  # latency p50 and p99, bw, allreduce at 4 sizes


def _compare_cells(p):
    """{kernel: [the non-reference cell of each size]} of compare --json with two series."""
    assert_ok(p)
    res = json.loads(p.stdout)
    out = {}
    for b in res["blocks"]:
        other = [lab for lab in b["labels"] if lab != res["reference"]][0]
        out.setdefault(b["kernel"], []).extend(row["cells"][other] for row in b["rows"])
    return out


def test_compare_marks_a_real_difference(known):
    """30% less bandwidth, every rate measured to 1e-4: the band is 3 x sqrt(2) x 1e-4 =
    0.042%, so every bw and busbw row is WORSE (ratio 0.7x, -30.0%); latency, whose times are
    unchanged, is the same (ratio 1). Measured with 3 x the mean as stddev over 10 iterations
    (noise 3 / sqrt(10) = 95%, a band of 3 x sqrt(1e-4^2 + 0.9) = 285%), the same loss is '~'."""
    cells = _compare_cells(run_cli("compare", "--json", known.base, known.slow))
    assert len(cells["latency"]) == 8  # p50 and p99
    assert all(c["verdict"] == "same" and c["ratio"] == 1.0 for c in cells["latency"])
    rates = cells["bw"] + cells["allreduce"]
    assert len(rates) == 8
    for c in rates:
        assert c["ratio"] == pytest.approx(0.7, rel=1e-12) and c["verdict"] == "worse", c
        assert c["change"] == pytest.approx(-0.3, rel=1e-9)
        assert c["noise"] == pytest.approx(3 * math.sqrt(2) * NOISE_MEAN_REL, rel=1e-9)
    p = run_cli("compare", known.base, known.slow)
    assert_ok(p)
    bw = p.stdout.split("== bw: MBps")[1].split("==")[0]
    assert bw.count("0.7x  -30.0%   WORSE") == 4, bw
    cells = _compare_cells(run_cli("compare", "--json", known.base, known.noisy))
    for c in cells["bw"] + cells["allreduce"]:
        assert c["ratio"] == pytest.approx(0.7, rel=1e-12) and c["verdict"] == "same", c
        assert c["noise"] == pytest.approx(3 * math.sqrt(NOISE_MEAN_REL ** 2 + 0.9), rel=1e-9)


def test_compare_metric_and_reference(results):
    p = run_cli("compare", "--metric", "msgps", "--reference", "2", results.shm, results.tcp)
    assert_ok(p)
    assert "== bw: msgps" in p.stdout and "== latency: msgps" in p.stdout
    t = load([results.shm, results.tcp])
    assert p.stdout.startswith("reference: %s;" % t.labels()[1])


def test_compare_unknown_metric(results, tmp_path):
    """A --metric that is no column is a usage error naming it and listing the columns, as
    check --rules does; not 'nothing in common'."""
    for metrics in (["nosuch"], ["p50_us", "nosuch"]):
        args = [a for m in metrics for a in ("--metric", m)]
        p = run_cli("compare", *args, results.shm, results.tcp)
        assert_error(p, 2, "--metric nosuch: no such measurement column", "p50_us, ",
                     "busbw_GBps", "hint: ")
        assert "nothing in common" not in p.stderr
    # A setting, not a measurement.
    assert_error(run_cli("compare", "--metric", "nranks", results.shm, results.tcp), 2,
                 "--metric nranks: no such measurement column")
    # report refuses it too, even with one series (no comparison to make).
    assert_error(run_cli("report", "--metric", "nosuch", "-o", tmp_path / "r.html",
                         results.shm), 2, "--metric nosuch")
    assert not (tmp_path / "r.html").exists()


def test_compare_metric_without_values(results):
    """A real column with no values where the series meet: said so, not 'nothing in common'."""
    p = run_cli("compare", "--metric", "busbw_GBps", results.only_latency, results.shm)
    assert_error(p, 4, "nothing to compare: busbw_GBps has no values")
    p = run_cli("compare", "--metric", "busbw_GBps", "--metric", "p50_us", results.only_latency,
                results.shm)
    assert_ok(p)
    assert "note: --metric busbw_GBps: no values" in p.stdout, p.stdout


def test_compare_runs_of_one_file(results):
    p = run_cli("compare", results.multi)
    assert_ok(p)
    assert "== latency: p50_us" in p.stdout
    assert "bw: measured only in" in p.stdout


def test_compare_needs_two(results):
    assert_error(run_cli("compare", results.shm), 2, "at least two runs")


def test_compare_nothing_in_common(results):
    p = run_cli("compare", results.only_latency, results.only_allreduce)
    assert_error(p, 4, "nothing in common", "latency 8..1M", "allreduce 8..1M")


def test_signalled_run_summary_and_compare(results):
    """A run stopped by a signal records 'not probed (the run stopped early)': shown as not
    probed, never made into a name (not+probed+(the+run+stopped+early))."""
    p = run_cli("summary", results.signalled)
    assert_ok(p)
    assert "not+probed" not in p.stdout and "+(" not in p.stdout, p.stdout
    line = p.stdout.splitlines()[1]
    assert line.startswith("signalled ") and "interrupted" in line and "not probed" in line, line
    assert "was interrupted (signal" in p.stderr, p.stderr
    p = run_cli("compare", results.shm, results.signalled)
    assert_ok(p)
    assert "not+probed" not in p.stdout and "signalled" in p.stdout, p.stdout


def test_compare_regimes_are_noisy(known):
    """Latency 1.5 x slower: WORSE where the rows are plain; where they had 2 regimes over time
    the verdict is 'noisy', in the JSON and the text."""
    plain = _compare_cells(run_cli("compare", "--json", known.base, known.slow_plain))
    assert all(c["verdict"] == "worse" for c in plain["latency"]), plain
    reg = _compare_cells(run_cli("compare", "--json", known.base, known.slow_regimes))
    assert len(reg["latency"]) == 8
    for c in reg["latency"]:
        assert c["ratio"] == pytest.approx(1.5, rel=1e-12) and c["verdict"] == "noisy", c
    p = run_cli("compare", known.base, known.slow_regimes)
    assert_ok(p)
    assert p.stdout.count("noisy") >= 8, p.stdout
