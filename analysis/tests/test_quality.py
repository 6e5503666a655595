# SPDX-License-Identifier: BSD-3-Clause
"""Row quality on files of known values: no verdict from a disturbed or invalid row, a
headline that says how disturbed the runs were, the runs of a --repeat checked as one, and
figures that a reader can read as they are shipped (legends and texts within the canvas, tick
labels apart, repeats as one curve, no single dot for a pairs kernel).

The known files (known_values.py) are those of the other tests, slowed down (bandwidth x 0.7,
times x 1.5: worse by 30% and 50%, far beyond the 10% tolerance and the noise) and disturbed
as a busy machine does: a rank that ran 20% of the time (cpu_min: read from a file without the
quality columns, whose quality the analysis derives), 3 runnable tasks per CPU (a reason only
the quality columns of schema version 2 carry), or 3 timed iterations (below the floor).
"""
import json
import math
import re

import h5py
import numpy as np
import pytest
from conftest import assert_error, assert_ok, run_cli
from known_values import run, write_known

from fabricbench_analysis import load

SLOW = {"bw_scale": 0.7, "time_scale": 1.5}
BUSY = {"cpu_min": 20.0}


@pytest.fixture(scope="module")
def q(results, tmp_path_factory):
    import types

    d = tmp_path_factory.mktemp("quality")
    k = types.SimpleNamespace(dir=str(d))

    def make(name, *runs):
        return write_known(str(d / (name + ".h5")), [results.shm, results.mg], runs)

    k.base = make("base", run())
    # Every row disturbed: a rank ran 20% of the time (a file without the quality columns).
    k.busy = make("busy", run(quality_columns=False, **SLOW, **BUSY))
    # Disturbed by 3 runnable tasks per CPU, which only the quality columns tell.
    k.busy_v2 = make("busy_v2", run(runnable=3.0, quality_columns=True, **SLOW))
    # Disturbed at 8 B and 1K only; 64K and 1M measured on a quiet machine.
    k.mixed = make("mixed", run(cpu_min={8: 20.0, 1024: 20.0}, **SLOW))
    # Below the floor: 3 timed iterations per size.
    k.invalid = make("invalid", run(iterations=3, **SLOW))
    # fabricbench run --repeat 3: the last run slow, the median not.
    k.rep3 = make("rep3", run(repeat=3), run(repeat=3), run(repeat=3, **SLOW))
    # --repeat 3: two runs slow but disturbed, one quiet and as fast as the baseline.
    k.rep3_busy = make("rep3_busy", run(repeat=3), run(repeat=3, **SLOW, **BUSY),
                       run(repeat=3, **SLOW, **BUSY))
    # The comparison: 3 shm runs and 3 tcp runs, on a busy machine and a quiet one.
    k.busy_a = make("busy_a", *[run(**BUSY) for _ in range(3)])
    k.busy_b = make("busy_b", *[run(fabric="tcp", time_scale=1.5, bw_scale=0.5, **BUSY)
                                for _ in range(3)])
    k.quiet_a = make("quiet_a", *[run() for _ in range(3)])
    # One group of 4 runs, one of them disturbed at 8 B: 3 of 48 rows (a few, below a quarter).
    k.few = make("few", run(), run(), run(), run(cpu_min={8: 20.0}))
    k.quiet_b = make("quiet_b", *[run(fabric="tcp", time_scale=1.5, bw_scale=0.5)
                                  for _ in range(3)])
    # No line rate known (the legend names every run whose rate is unknown), 3 + 3 runs.
    k.shm3 = make("shm3", *[run(line_rate_gbps=math.nan, time_scale=f, bw_scale=f)
                            for f in (1.0, 1.1, 0.9)])
    k.tcp3 = make("tcp3", *[run(fabric="tcp", line_rate_gbps=math.nan, time_scale=1.5 * f,
                                bw_scale=0.5 * f) for f in (1.0, 1.1, 0.9)])
    return k


def _check(*args):
    p = run_cli("check", "--json", *args)
    assert "Traceback" not in p.stderr, p.stderr
    return p, json.loads(p.stdout)


def _checks(res):
    return [c for f in res["files"] for c in f["checks"] if c["bytes"] is not None]


# ------------------------------------------------------------------ quality read or derived


def test_quality_from_the_file_or_derived(q):
    """A file without the quality columns: derived (a rank's 20% CPU share: disturbed, cpu);
    with them: as written (runnable, which the CPU share would not show); the quiet ones ok."""
    for path, quality, reason, source in ((q.busy, "disturbed", "cpu", "derived"),
                                          (q.busy_v2, "disturbed", "runnable", "file"),
                                          (q.invalid, "invalid", "samples", None),
                                          (q.base, "ok", "", None)):
        rows = load([path]).rows
        assert {r["quality"] for r in rows} == {quality}, path
        assert {r["quality_reason"] for r in rows} == {reason}, path
        if source:
            assert {r["quality_from"] for r in rows} == {source}
    rows = load([q.mixed]).rows
    assert sorted({(r["bytes"], r["quality"]) for r in rows}) == [
        (8, "disturbed"), (1024, "disturbed"), (65536, "ok"), (1048576, "ok")]


def test_quality_column_is_checked(q, tmp_path):
    """A quality that is none of the four words is refused, naming the row (hostile.py)."""
    bad = str(tmp_path / "bad.h5")
    with open(q.busy_v2, "rb") as src, open(bad, "wb") as dst:
        dst.write(src.read())
    with h5py.File(bad, "r+") as f:
        ds = f["runs/run_0000/kernels/00_latency/table/quality"]
        data = ds.asstr()[:]
        data[1] = "great"
        ds[...] = np.array(data, dtype=object)
    assert_error(run_cli("summary", bad), 3, "quality row 1 (1024 B) is 'great', not one of "
                 "ok, noisy, disturbed, invalid")


# ------------------------------------------------------------------ check


@pytest.mark.parametrize("name,why", [
    ("busy", "this run's row is disturbed (a rank ran only 20% of the time)"),
    ("busy_v2", "this run's row is disturbed (3.0 runnable tasks per CPU)"),
    ("invalid", "this run's row is invalid (3 timed iterations, below the floor of 10)")])
def test_check_no_verdict_from_disturbed_rows(q, name, why):
    """30% less bandwidth, 50% longer times, every row disturbed (or below the floor): no
    FAIL, every row a WARN 'not comparable', and exit 4: no verdict."""
    p, res = _check("--baseline", q.base, getattr(q, name))
    assert p.returncode == 4, p.stdout + p.stderr
    assert "no verdict: every row the check needs is disturbed or invalid (12 not " \
        "comparable" in p.stderr, p.stderr
    checks = _checks(res)
    assert len(checks) == 12
    for c in checks:
        assert c["status"] == "WARN" and c["comparable"] is False, c
        assert c["reason"] == "not comparable: %s; no verdict" % why, c
        assert c["change"] is None
    assert res["result"] == "WARN" and res["judged"] == 0 and res["not_comparable"] == 12
    p = run_cli("check", "--baseline", q.base, getattr(q, name))
    assert not re.search(r"^FAIL", p.stdout, re.M), p.stdout
    assert "result: NO VERDICT: every row it needs is disturbed or invalid (12 not " \
        "comparable)" in p.stdout, p.stdout
    # The baseline's rows disturbed: the same, from the other side.
    p, res = _check("--baseline", getattr(q, name), q.base)
    assert p.returncode == 4 and {c["comparable"] for c in _checks(res)} == {False}
    assert all(c["reason"].startswith("not comparable: the baseline's row is ")
               for c in _checks(res))


def test_check_judges_the_quiet_rows(q):
    """Disturbed at 8 B and 1K, quiet at 64K and 1M: the quiet rows FAIL (30% and 50% worse),
    the disturbed ones are WARNs without a verdict; exit 1."""
    p, res = _check("--baseline", q.base, q.mixed)
    assert p.returncode == 1
    got = {(c["kernel"], c["bytes"]): (c["status"], c["comparable"]) for c in _checks(res)}
    for (kernel, nbytes), st in got.items():
        assert st == (("WARN", False) if nbytes in (8, 1024) else ("FAIL", True)), (kernel,
                                                                                    nbytes, st)
    assert res["judged"] == 6 and res["not_comparable"] == 6
    text = run_cli("check", "--baseline", q.base, q.mixed).stdout
    assert "result: FAIL (6 FAIL, 6 WARN, 0 PASS) (6 not comparable: disturbed or invalid, " \
        "no verdict)" in text, text


def test_check_takes_every_run_of_a_repeat(q):
    """A --repeat 3 file is one measurement: each row the median of its 3 runs (the last is
    30% slower, the median is not: PASS), and the header says so; --run run_0002 checks that
    run alone (FAIL)."""
    p, res = _check("--baseline", q.base, q.rep3)
    assert p.returncode == 0, p.stdout
    (f,) = res["files"]
    assert f["runs"] == ["run_0000", "run_0001", "run_0002"] and f["repeat"] == 3
    assert {c["status"] for c in _checks(res)} == {"PASS"}
    assert all(c["change"] == pytest.approx(0.0, abs=1e-12) for c in _checks(res))
    text = run_cli("check", "--baseline", q.base, q.rep3).stdout
    assert text.startswith("check %s (run_0000, run_0001, run_0002: the 3 runs of its --repeat "
                           "3 as one, each row their median) against %s (1 run)" %
                           (q.rep3, q.base)), text
    p, res = _check("--baseline", q.base, q.rep3, "--run", "run_0002")
    assert p.returncode == 1 and res["files"][0]["runs"] == ["run_0002"]


def test_check_repeat_leaves_out_disturbed_runs(q):
    """Of a --repeat 3, two runs slow and disturbed, one quiet: the row is the quiet run's,
    so the check PASSes, and its reason says 2 were left out (counting them would FAIL)."""
    p, res = _check("--baseline", q.base, q.rep3_busy)
    assert p.returncode == 0, p.stdout
    for c in _checks(res):
        assert c["status"] == "PASS" and c["comparable"] is True, c
        assert c["reason"].endswith("; this measurement's median of 1 run (2 disturbed or "
                                    "invalid left out)"), c


def test_check_line_rate_not_judged_when_disturbed(q):
    """--min-line-pct: a disturbed row below the threshold is not judged (no FAIL); nothing
    judged at all: exit 4."""
    p, res = _check("--min-line-pct", "90", q.busy)
    assert p.returncode == 4, p.stdout + p.stderr
    line = [c for c in _checks(res) if c["metric"] == "line_rate_pct"]
    assert line and all(c["status"] == "WARN" and c["reason"].startswith(
        "not judged: not comparable: disturbed") for c in line), line


# ------------------------------------------------------------------ compare, summary


def _cells(res):
    out = {}
    for b in res["blocks"]:
        for row in b["rows"]:
            for lab, c in row["cells"].items():
                if "verdict" in c:
                    out[(b["kernel"], b["metric"], row["bytes"])] = c
    return out


def test_compare_never_judges_a_disturbed_row(q):
    """WORSE where both rows are quiet (64K, 1M), 'not comparable' where one is disturbed, in
    JSON and text; the whole busy comparison has no WORSE or better at all."""
    p = run_cli("compare", "--json", "--group", "file", q.base, q.mixed)
    assert_ok(p)
    for (kernel, metric, nbytes), c in _cells(json.loads(p.stdout)).items():
        if nbytes in (8, 1024):
            assert c["verdict"] == "not_comparable" and c["not_comparable"] == "disturbed", c
        else:
            assert c["verdict"] == "worse", (kernel, metric, nbytes, c)
    text = run_cli("compare", "--group", "file", q.base, q.mixed).stdout
    assert re.search(r"\n +8 +1\.000 .* 1\.500 \[disturbed\] .* 1\.5x +not comparable: "
                     r"disturbed\n", text), text
    p = run_cli("compare", "--json", q.busy_a, q.busy_b)
    cells = _cells(json.loads(p.stdout))
    assert cells and {c["verdict"] for c in cells.values()} == {"not_comparable"}
    text = run_cli("compare", q.busy_a, q.busy_b).stdout
    verdicts = [line.split()[-1] for line in text.split("\n== ", 1)[1].splitlines()
                if line[:1] == " "]  # the rows of the blocks: their last column
    assert verdicts and set(verdicts) == {"disturbed"}, text


def test_summary_headline_says_how_disturbed(q):
    """The busy runs: the first line names the disturbance and how much, every number marked;
    the quiet runs: no such line, the table first, as before."""
    p = run_cli("summary", q.busy_a, q.busy_b)
    assert_ok(p)
    lines = p.stdout.splitlines()
    assert lines[0] == ("DISTURBED: shm (3 runs): busy: a rank ran only 20% of the time; 36 of "
                        "36 rows disturbed (in 3 of 3 runs); tcp (3 runs): busy: a rank ran "
                        "only 20% of the time; 36 of 36 rows disturbed (in 3 of 3 runs)"), lines
    assert lines[1].startswith("rows marked [disturbed] or [invalid] are not measurements")
    assert lines[2].startswith("run ") and "lat p50 us" in lines[2]
    assert "1.000 +-0% [disturbed]" in lines[3] and "80.00 @1M +-0% [disturbed]" in lines[3], \
        lines[3]
    recs = json.loads(run_cli("summary", "--json", q.busy_a, q.busy_b).stdout)
    assert recs[0]["quality"]["disturbed"] == 36 and recs[0]["quality"]["runs_disturbed"] == 3
    assert recs[0]["row_quality"]["latency_p50_us"] == "disturbed"
    p = run_cli("summary", q.quiet_a, q.quiet_b)
    assert p.stdout.startswith("run "), p.stdout
    assert "[disturbed]" not in p.stdout and "DISTURBED" not in p.stdout
    p = run_cli("summary", q.few)
    assert p.stdout.startswith("a few rows not comparable: shm (4 runs): busy: a rank ran only "
                               "20% of the time; 3 of 48 rows disturbed (in 1 of 4 runs)\n"), \
        p.stdout
    table = p.stdout.split("\nrun ", 1)[1]  # the quiet runs' median, not marked
    assert "1.000 +-0%" in table and "[disturbed]" not in table, p.stdout
    p = run_cli("summary", q.invalid)
    assert p.stdout.startswith("BELOW THE FLOOR: shm (1 run): quiet; 12 of 12 rows invalid "
                               "(below the floor)\n"), p.stdout


# ------------------------------------------------------------------ report


def test_report_names_the_disturbance_first(q, tmp_path):
    """The busy comparison: a title naming the groups, the disturbance before any section,
    then 'how to read this'; no cell judged worse or better; the quiet one says quiet and
    judges as before."""
    out = tmp_path / "busy.html"
    assert_ok(run_cli("report", q.busy_a, q.busy_b, "--baseline", q.base, "-o", out))
    page = out.read_text(encoding="utf-8")
    assert "<title>fabricbench report: shm (3 runs) vs tcp (3 runs)</title>" in page
    first = page.index('<div class="quality">')
    assert first < page.index("How to read this") < page.index("<h2>")
    assert "DISTURBED: shm (3 runs): busy: a rank ran only 20% of the time" in page
    assert 'class="n worse"' not in page and 'class="n better"' not in page
    assert "not comparable: both disturbed" in page
    assert "NO VERDICT" in page and 'class="badge FAIL"' not in page
    out = tmp_path / "quiet.html"
    assert_ok(run_cli("report", q.quiet_a, q.quiet_b, "-o", out))
    page = out.read_text(encoding="utf-8")
    assert "<title>fabricbench report: shm (3 runs) vs tcp (3 runs)</title>" in page
    assert "Measured on a quiet machine" in page and "DISTURBED" not in page
    # latency p50 and p99, bw, allreduce at 4 sizes: tcp is worse everywhere
    assert page.count('class="n worse"') == 16, page.count('class="n worse"')


# ------------------------------------------------------------------ matrix


def test_matrix_verdict_of_a_disturbed_run_is_none(pairs, tmp_path):
    """The bad-node file (suspects: exit 1) with its pairs kernels' rows disturbed (a rank at
    20% of the time): no verdict (exit 4), said in the headline."""
    path = str(tmp_path / "node_busy.h5")
    with open(pairs.node, "rb") as src, open(path, "wb") as dst:
        dst.write(src.read())
    with h5py.File(path, "r+") as f:
        for k in f["runs/run_0000/kernels"].values():
            k["table/cpu_rank_min_pct"][...] = 20.0
            if "quality" in k["table"]:  # schema version 2: the mark fabricbench would write
                k["table/quality"][...] = np.array(["disturbed"], dtype=object)
                k["table/quality_reason"][...] = np.array(["cpu"], dtype=object)
    assert run_cli("matrix", pairs.node).returncode == 1
    p = run_cli("matrix", path)
    assert p.returncode == 4, p.stdout + p.stderr
    assert "NOT COMPARABLE, no verdict: its row is disturbed (a rank ran only 20% of the " \
        "time) (fabricbench's verdict: suspects)" in p.stdout, p.stdout
