# SPDX-License-Identifier: BSD-3-Clause
"""summary and compare: their shapes and definitions on real result files, their numbers and
verdicts on files of known values (known_values.py)."""
import csv
import json
import math
import re
import statistics

import pytest
from conftest import assert_error, assert_ok, run_cli, without_quality
from known_values import NOISE_MEAN_REL, NOISE_P50_REL

from fabricbench_analysis import load


def test_summary_text(results):
    p = run_cli("summary", results.shm, results.tcp)
    assert_ok(p)
    lines = without_quality(p.stdout)
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
        # a p99 needs 1000 samples: a busy machine's short run may have none (null, NaN)
        assert (rec["latency_p99_us"] is None) if math.isnan(lat8["p99_us"]) else \
            rec["latency_p99_us"] == lat8["p99_us"]
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
    p = run_cli("summary", "--json", "--group", "file", known.base, known.no_line_rate,
                known.slow)
    assert_ok(p)
    recs = json.loads(p.stdout)
    assert len(recs) == 3 and [r["runs"] for r in recs] == [1, 1, 1]
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
    assert "+-" not in line  # one run: no spread
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
    # p99 needs 1000 samples: a busy machine's short runs may have none, and then no block
    t = load([results.shm, results.tcp])
    p99 = any(not math.isnan(r["p99_us"]) for r in t.where(kernel="latency"))
    for block in ("== latency: p50_us", "== bw: MBps", "== allreduce: busbw_GBps") + \
            ("== latency: p99_us",) * p99:
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
    cells = _compare_cells(run_cli("compare", "--json", "--group", "file", known.base,
                                   known.slow))
    assert len(cells["latency"]) == 8  # p50 and p99
    assert all(c["verdict"] == "same" and c["ratio"] == 1.0 for c in cells["latency"])
    rates = cells["bw"] + cells["allreduce"]
    assert len(rates) == 8
    for c in rates:
        assert c["ratio"] == pytest.approx(0.7, rel=1e-12) and c["verdict"] == "worse", c
        assert c["change"] == pytest.approx(-0.3, rel=1e-9)
        assert c["noise"] == pytest.approx(3 * math.sqrt(2) * NOISE_MEAN_REL, rel=1e-9)
    p = run_cli("compare", "--group", "file", known.base, known.slow)
    assert_ok(p)
    bw = p.stdout.split("== bw: MBps")[1].split("==")[0]
    # one run each: no spread, the verdict is marked as judged by the runs' own noise only
    assert bw.count("0.7x  -30.0%  WORSE*") == 4, bw
    assert "*: judged without the spread of a group of one run" in p.stdout, p.stdout
    cells = _compare_cells(run_cli("compare", "--json", "--group", "file", known.base,
                                   known.noisy))
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
    line = without_quality(p.stdout)[1]
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


# --- repeats: groups of runs (grouping.py) ------------------------------------------------

# A verdict at the end of a table line (not "higher is better" in a block's title).
VERDICT_CELL = re.compile(r"(WORSE|better|higher|lower|~)\*?$", re.M)


def _blocks(p):
    assert_ok(p)
    res = json.loads(p.stdout)
    return res, {(b["kernel"], b["metric"]): b for b in res["blocks"]}


def _cell(blocks, kernel, metric, nbytes, label):
    b = blocks[(kernel, metric)]
    return [row for row in b["rows"] if row["bytes"] == nbytes][0]["cells"][label]


def test_compare_three_bimodal_runs_is_one_group(known):
    """The issue: three back-to-back runs whose 8 B latency settled at 3.075 us in one and
    0.651 us in two. They share a command and fabric: one group, their median (0.651) and
    spread (stdev / mean of the three), and no difference reported: nothing is compared."""
    res, blocks = _blocks(run_cli("compare", "--json", known.bimodal3))
    assert res["group_by"] == ["command", "fabric"]
    assert [len(g["runs"]) for g in res["groups"]] == [3] and res["labels"] == ["shm"]
    vals = [3.075, 0.651, 0.651]
    c = _cell(blocks, "latency", "p50_us", 8, "shm")
    assert c["value"] == pytest.approx(0.651, rel=1e-12) and c["runs"] == 3
    assert sorted(c["values"]) == pytest.approx(sorted(vals), rel=1e-12)
    assert c["spread"] == pytest.approx(statistics.stdev(vals) / statistics.mean(vals),
                                        rel=1e-9)
    assert c["noise_rel"] == pytest.approx(NOISE_P50_REL, rel=1e-6)
    for b in res["blocks"]:
        for row in b["rows"]:
            assert list(row["cells"]) == ["shm"]
            assert "verdict" not in row["cells"]["shm"] and "ratio" not in row["cells"]["shm"]
    # the rates did not move: spread 0
    assert _cell(blocks, "bw", "MBps", 8, "shm")["spread"] == 0
    p = run_cli("compare", known.bimodal3)
    assert_ok(p)
    assert p.stdout.startswith("one group (--group command,fabric): shm = 3 runs ("), p.stdout
    assert not VERDICT_CELL.search(p.stdout) and "ratio" not in p.stdout, p.stdout
    lat = p.stdout.split("== latency: p50_us")[1].split("==")[0].splitlines()
    assert lat[1].split() == ["bytes", "shm", "spread", "se"], lat
    assert lat[2].split() == ["8", "0.6510", "96%", "0.056%"], lat


def test_compare_runs_one_by_one_says_the_spread_is_unknown(known):
    """--group none compares each run on its own, as before: run_0001 against run_0000 is the
    issue's -78.8% "better", judged by each run's own noise only, so marked '*' (no spread)."""
    res, blocks = _blocks(run_cli("compare", "--json", "--group", "none", known.bimodal3))
    assert res["group_by"] == [] and [len(g["runs"]) for g in res["groups"]] == [1, 1, 1]
    ref = res["reference"]
    other = res["labels"][1]
    c = _cell(blocks, "latency", "p50_us", 8, other)
    assert res["labels"][0] == ref and "run_0000" in ref and "run_0001" in other
    assert c["change"] == pytest.approx(0.651 / 3.075 - 1, rel=1e-9)
    assert c["verdict"] == "better" and c["spread"] is None and c["spread_used"] == []
    assert c["noise"] == pytest.approx(3 * math.sqrt(2) * NOISE_P50_REL, rel=1e-6)
    p = run_cli("compare", "--group", "none", known.bimodal3)
    assert_ok(p)
    assert "-78.8%  better*" in p.stdout, p.stdout
    assert "*: judged without the spread of a group of one run (?: unknown)" in p.stdout


def test_compare_two_groups_apart_beyond_their_spreads(known):
    """shm: 3 runs at 1, 1.02, 0.98 x (spread 2%); tcp: 3 runs at 1.5 x the times and half the
    rates, spread 2% too. 8 B p50: medians 1 and 1.5 us, +50.0% WORSE (lower is better); bw
    at 1M: 10000 and 5000 MB/s, -50.0% WORSE. The band holds both spreads: 3 x sqrt(se^2 +
    se^2 + 0.02^2 + 0.02^2). Against tcp as the reference the signs turn: -33.3% better,
    +100.0% better."""
    res, blocks = _blocks(run_cli("compare", "--json", known.fabric_a, known.fabric_b))
    assert res["labels"] == ["shm", "tcp"] and res["reference"] == "shm"
    assert [len(g["runs"]) for g in res["groups"]] == [3, 3]
    lat = _cell(blocks, "latency", "p50_us", 8, "tcp")
    assert lat["value"] == pytest.approx(1.5, rel=1e-12)
    assert lat["spread"] == pytest.approx(0.02, rel=1e-9)
    assert lat["change"] == pytest.approx(0.5, rel=1e-9) and lat["verdict"] == "worse"
    assert lat["spread_used"] == ["shm", "tcp"]
    assert lat["noise"] == pytest.approx(3 * math.sqrt(2 * NOISE_P50_REL ** 2 + 2 * 0.02 ** 2),
                                         rel=1e-6)
    ref = _cell(blocks, "latency", "p50_us", 8, "shm")
    assert ref["value"] == pytest.approx(1.0, rel=1e-12)
    assert ref["spread"] == pytest.approx(0.02, rel=1e-9)
    bw = _cell(blocks, "bw", "MBps", 1 << 20, "tcp")
    assert bw["value"] == pytest.approx(5000, rel=1e-12)
    assert bw["change"] == pytest.approx(-0.5, rel=1e-9) and bw["verdict"] == "worse"
    p = run_cli("compare", known.fabric_a, known.fabric_b)
    assert_ok(p)
    assert "groups (--group command,fabric): shm = 3 runs (" in p.stdout
    block = p.stdout.split("== latency: p50_us")[1].split("==")[0]
    assert "1.5x  +50.0%   WORSE" in block, block
    assert "*" not in block, block
    block = p.stdout.split("== bw: MBps")[1].split("==")[0]
    assert block.count("0.5x  -50.0%   WORSE") == 4, block
    # the other way round
    res, blocks = _blocks(run_cli("compare", "--json", "--reference", "tcp", known.fabric_a,
                                  known.fabric_b))
    lat = _cell(blocks, "latency", "p50_us", 8, "shm")
    assert lat["change"] == pytest.approx(1 / 1.5 - 1, rel=1e-9) and lat["verdict"] == "better"
    bw = _cell(blocks, "bw", "MBps", 1 << 20, "shm")
    assert bw["change"] == pytest.approx(1.0, rel=1e-9) and bw["verdict"] == "better"
    p = run_cli("compare", "--reference", "2", known.fabric_a, known.fabric_b)
    assert_ok(p)
    assert "0.667x  -33.3%  better" in p.stdout and "2x  +100.0%  better" in p.stdout, p.stdout


def test_compare_within_the_spread_is_not_a_difference(known):
    """roce's runs at 1, 1.3, 0.7 x the times (spread 30%), ib's three at 1.2 x: +20%, far
    beyond each run's own noise (0.06%), within 3 x the 30% spread: '~'. Compared run by run,
    the same +20% is WORSE, marked '*' (judged without a spread)."""
    res, blocks = _blocks(run_cli("compare", "--json", known.wide, known.steady))
    assert res["labels"] == ["roce", "ib"]
    c = _cell(blocks, "latency", "p50_us", 8, "ib")
    assert c["change"] == pytest.approx(0.2, rel=1e-9) and c["verdict"] == "same"
    assert c["spread"] == 0 and _cell(blocks, "latency", "p50_us", 8, "roce")["spread"] == \
        pytest.approx(0.3, rel=1e-9)
    assert c["noise"] == pytest.approx(3 * math.sqrt(2 * NOISE_P50_REL ** 2 + 0.3 ** 2),
                                       rel=1e-6)
    res, blocks = _blocks(run_cli("compare", "--json", "--group", "none", known.wide,
                                  known.steady))
    first_ib = [g["name"] for g in res["groups"] if g["name"].startswith("ib")][0]
    c = _cell(blocks, "latency", "p50_us", 8, first_ib)
    assert c["change"] == pytest.approx(0.2, rel=1e-9) and c["verdict"] == "worse"
    assert c["spread_used"] == []


def test_compare_files_each_holding_repeats_are_two_groups(known):
    """before (fabric_a: shm, 3 runs, spread 2%) and after (the same command on shm, 3 runs at
    1.5 x the times, spread 2%): by default each file is a group of its own (both hold
    repeats), so the change is reported: 8 B p50 +50.0% WORSE; with --group command,fabric
    given explicitly the six runs are one group and nothing is reported."""
    res, blocks = _blocks(run_cli("compare", "--json", known.fabric_a, known.after))
    assert [len(g["runs"]) for g in res["groups"]] == [3, 3]
    names = [g["name"] for g in res["groups"]]
    lat = _cell(blocks, "latency", "p50_us", 8, names[1])
    assert lat["change"] == pytest.approx(0.5, rel=1e-9) and lat["verdict"] == "worse"
    assert lat["spread"] == pytest.approx(0.02, rel=1e-9)
    p = run_cli("compare", "--group", "command,fabric", known.fabric_a, known.after)
    assert_ok(p)
    assert p.stdout.startswith("one group (--group command,fabric): ") and "6 runs" in p.stdout


def test_compare_one_run_against_a_group(known):
    """shm's 3 runs (spread 2%) against one tcp run: the band has shm's spread only (as check
    against a baseline of 3 runs), the tcp spread is unknown ('?'), the verdict marked '*'."""
    res, blocks = _blocks(run_cli("compare", "--json", known.fabric_a, known.tcp1))
    c = _cell(blocks, "latency", "p50_us", 8, "tcp")
    assert c["runs"] == 1 and c["spread"] is None and c["spread_used"] == ["shm"]
    assert c["verdict"] == "worse"
    assert c["noise"] == pytest.approx(3 * math.sqrt(2 * NOISE_P50_REL ** 2 + 0.02 ** 2),
                                       rel=1e-6)
    p = run_cli("compare", known.fabric_a, known.tcp1)
    assert_ok(p)
    block = p.stdout.split("== latency: p50_us")[1].split("==")[0].splitlines()
    assert block[1].split()[:7] == ["bytes", "shm", "spread", "se", "tcp", "spread", "se"]
    assert block[2].split()[4:] == ["1.500", "?", "0.056%", "1.5x", "+50.0%", "WORSE*"], block


def test_compare_group_with_regimes_is_noisy(known):
    """One of tcp's three runs had 2 regimes over time: its group's rows are 'noisy', not
    changed, though 50% apart from shm's."""
    res, blocks = _blocks(run_cli("compare", "--json", known.fabric_a, known.regimes_b))
    for (kernel, metric), b in blocks.items():
        for row in b["rows"]:
            c = row["cells"]["tcp"]
            assert c["regimes"] == 2 and c["verdict"] == "noisy", (kernel, metric, c)


def test_summary_of_repeats(known):
    """One line per group: the median of its runs and their spread (+-N%); shm 3 runs, tcp 3
    runs: latency 1 and 1.5 us, peak 80 and 40 Gb/s, each +-2%."""
    vals = [3.075, 0.651, 0.651]
    p = run_cli("summary", "--json", known.bimodal3)
    assert_ok(p)
    (rec,) = json.loads(p.stdout)
    assert rec["label"] == "shm" and rec["runs"] == 3 and len(rec["members"]) == 3
    assert rec["latency_p50_us"] == pytest.approx(0.651, rel=1e-12)
    assert rec["spread"]["latency_p50_us"] == pytest.approx(
        statistics.stdev(vals) / statistics.mean(vals), rel=1e-9)
    assert rec["spread"]["peak_Gbps"] == 0
    p = run_cli("summary", known.bimodal3)
    assert_ok(p)
    head, line = p.stdout.splitlines()[:2]
    assert head.split()[:2] == ["run", "runs"]
    assert line.split()[:2] == ["shm", "3"] and "0.6510 +-96%" in line, line
    assert "shm = " in p.stdout and "run_0000, run_0001, run_0002" in p.stdout
    p = run_cli("summary", "--json", known.fabric_a, known.fabric_b)
    assert_ok(p)
    recs = json.loads(p.stdout)
    assert [(r["label"], r["runs"]) for r in recs] == [("shm", 3), ("tcp", 3)]
    for rec, t, gbps in zip(recs, (1.0, 1.5), (80.0, 40.0)):
        assert rec["latency_p50_us"] == pytest.approx(t, rel=1e-12)
        assert rec["peak_Gbps"] == pytest.approx(gbps, rel=1e-12)
        for k in ("latency_p50_us", "peak_Gbps", "allreduce_busbw_1M_GBps"):
            assert rec["spread"][k] == pytest.approx(0.02, rel=1e-9), k
    p = run_cli("summary", "--csv", known.fabric_a)
    assert_ok(p)
    rows = list(csv.DictReader(p.stdout.splitlines()))
    assert rows[0]["runs"] == "3" and float(rows[0]["spread_peak_Gbps"]) == pytest.approx(0.02)
    assert rows[0]["members"].count(" run_000") == 3


def test_group_option_refused(known):
    assert_error(run_cli("compare", "--group", "nosuch", known.base, known.slow), 2,
                 "--group nosuch", "command, fabric, hosts, file")
    assert_error(run_cli("summary", "--group", "none,file", known.base), 2, "--group")


def test_compare_repeats_live(repeats):
    """Real runs: `fabricbench run latency -m 8,1K --repeat 3 -o F`, and one more of the same
    command into another file with other output options (--json, --samples, -q; conftest.py
    `repeats`): compare and summary make them one group of 4 runs, report no difference, and
    show the median and spread. Only shapes: the values are this machine's."""
    f, g = repeats.f, repeats.g
    p = run_cli("compare", f)
    assert_ok(p)
    assert p.stdout.startswith("one group (--group command,fabric): ") and "3 runs" in p.stdout
    assert not VERDICT_CELL.search(p.stdout) and "ratio" not in p.stdout, p.stdout
    res, blocks = _blocks(run_cli("compare", "--json", f, g))
    assert [len(x["runs"]) for x in res["groups"]] == [4]
    name = res["labels"][0]
    for b in res["blocks"]:
        assert b["kernel"] == "latency"
        for row in b["rows"]:
            c = row["cells"].get(name)
            if b["metric"] != "p50_us" and c is None:
                continue  # a p99 needs 1000 samples, which a busy machine may not give
            assert "verdict" not in c and c["runs"] >= 1
            if b["metric"] == "p50_us":
                # the runs whose row was disturbed or invalid (a busy machine) are left out
                assert c["runs"] + c["left_out"] == 4 and c["value"] == pytest.approx(
                    statistics.median(c["values"]), rel=1e-12)
                if c["runs"] > 1:
                    assert c["spread"] == pytest.approx(
                        statistics.stdev(c["values"]) / statistics.mean(c["values"]),
                        rel=1e-9)
    p = run_cli("summary", "--json", f, g)
    assert_ok(p)
    (rec,) = json.loads(p.stdout)
    assert rec["runs"] == 4
    # by file: two groups, the second of one run (spread unknown)
    res, blocks = _blocks(run_cli("compare", "--json", "--group", "file", f, g))
    assert [len(x["runs"]) for x in res["groups"]] == [3, 1]
    c = _cell(blocks, "latency", "p50_us", 8, res["labels"][1])
    ref = _cell(blocks, "latency", "p50_us", 8, res["labels"][0])
    assert c["spread"] is None and len(c["spread_used"]) == (1 if ref["runs"] > 1 else 0)
