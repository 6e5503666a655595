# SPDX-License-Identifier: BSD-3-Clause
"""check against a baseline, export of the tidy table.

Every verdict asserted here is decided by known values (known_values.py, the `known` fixture):
every row's own noise is NOISE_MEAN_REL = 1e-4 (stddev 1% of the mean, 10000 iterations), so
check's noise band, sigma x sqrt(u_base^2 + u_run^2 + spread^2) (check.py, compare.judge), is
3 x sqrt(2 x 1e-4^2 + 0.05^2) = 15.00006% with a one-run baseline (--run-spread 5%) and
3 x sqrt(2) x 1e-4 = 0.042% where the spread is 0. The real runs (`results`) serve only the
tests of usage errors, metadata and export shapes.
"""
import csv
import io
import json
import math
import shutil
import statistics

import h5py
import pytest
from conftest import assert_error, assert_ok, run_cli
from known_values import NOISE_MEAN_REL, NOISE_P50_REL

from fabricbench_analysis import load

SIGMA = 3.0
# The noise band of a bandwidth row against a one-run baseline (--run-spread 5%): 0.1500006.
ONE_RUN_NOISE = SIGMA * math.sqrt(2 * NOISE_MEAN_REL ** 2 + 0.05 ** 2)
# ... and where the run-to-run spread is 0 (--run-spread 0, or 3 identical runs): 4.24e-4.
OWN_NOISE = SIGMA * math.sqrt(2) * NOISE_MEAN_REL


def _checks(p):
    res = json.loads(p.stdout)
    return res, [c for f in res["files"] for c in f["checks"]]


def test_check_file_against_itself_passes(known):
    """A change of 0 is within any tolerance and noise: 12 PASS (4 sizes of latency p50_us, bw
    MBps, allreduce busbw_GBps), no run-level finding."""
    p = run_cli("check", "--baseline", known.base, known.base)
    assert_ok(p)
    assert "result: PASS (0 FAIL, 0 WARN, 12 PASS)" in p.stdout


def test_check_fails_30_percent_less_bandwidth(known):
    """30% less bandwidth, every row measured to 1e-4: the noise band is 15.00006% (the
    one-run baseline's 5% spread dominates), so each bandwidth and busbw row is worse beyond
    the tolerance (10%) and the noise: FAIL, exit 1. Latency, whose times are unchanged,
    passes."""
    p = run_cli("check", "--json", "--baseline", known.base, known.slow)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "Traceback" not in p.stderr
    res, checks = _checks(p)
    assert res["result"] == "FAIL"
    by_kind = {}
    for c in checks:
        by_kind.setdefault(c["kernel"], []).append(c)
    assert sorted(by_kind) == ["allreduce", "bw", "latency"], checks
    assert [c["status"] for c in by_kind["latency"]] == ["PASS"] * 4
    for k, metric in (("bw", "MBps"), ("allreduce", "busbw_GBps")):
        assert len(by_kind[k]) == 4
        for c in by_kind[k]:
            assert c["metric"] == metric and c["status"] == "FAIL", c
            assert math.isclose(c["change"], -0.3, rel_tol=1e-9)
            assert c["noise"] == pytest.approx(ONE_RUN_NOISE, rel=1e-9)
            assert c["noise"] == pytest.approx(0.1500006, abs=1e-7)
            assert "worse by 30.0%" in c["reason"] and "noise +-15.0%" in c["reason"], c


def test_check_text_output(known):
    """--show problems lists the 8 FAILs of 30% less bandwidth and no PASS (--sigma 0.01: a
    noise band of 0.01 x sqrt(2 x 1e-4^2 + 0.05^2) = 0.05%, far below 30%)."""
    p = run_cli("check", "--baseline", known.base, known.slow, "--show", "problems",
                "--sigma", "0.01")
    assert p.returncode == 1
    assert "FAIL    bw" in p.stdout and "FAIL    allreduce" in p.stdout
    assert "PASS" not in p.stdout.replace("PASS)", "")
    assert "result: FAIL (8 FAIL, 0 WARN, 4 PASS)" in p.stdout


def test_check_within_noise_is_not_a_failure(known):
    """The same 30% loss measured with a spread far larger than 30%: 10 iterations with a
    standard deviation of 3 x the mean, a relative standard error of 3 / sqrt(10) = 0.9487, so
    the band is 3 x sqrt(1e-4^2 + 0.9 + 0.05^2) = 285%: WARN, exit 0."""
    p = run_cli("check", "--json", "--baseline", known.base, known.noisy)
    assert_ok(p)
    res, checks = _checks(p)
    assert res["result"] == "WARN"
    warned = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert len(warned) == 8
    for c in warned:
        assert c["status"] == "WARN" and "within the noise +-285.0%" in c["reason"], c
        assert c["noise"] == pytest.approx(SIGMA * math.sqrt(NOISE_MEAN_REL ** 2 + 9 / 10 +
                                                             0.05 ** 2), rel=1e-9)
        assert c["noise"] == pytest.approx(2.85, rel=1e-6)
    assert all(c["status"] == "PASS" for c in checks if c["kernel"] == "latency")


def test_check_tolerance(known):
    """30% worse is within a tolerance of 40%: PASS, however precise the rows; beyond one of
    20% (and the 15.00006% noise band): FAIL."""
    p = run_cli("check", "--baseline", known.base, known.slow, "--tolerance", "40%")
    assert_ok(p)
    assert "result: PASS (0 FAIL, 0 WARN, 12 PASS)" in p.stdout
    p = run_cli("check", "--baseline", known.base, known.slow, "--tolerance", "20%")
    assert p.returncode == 1 and "result: FAIL (8 FAIL, 0 WARN, 4 PASS)" in p.stdout, p.stdout
    assert_error(run_cli("check", "--baseline", known.base, known.slow, "--tolerance", "40"),
                 2, "write a percentage")
    assert_error(run_cli("check", "--baseline", known.base, known.slow, "--tolerance", "x"),
                 2, "is not a tolerance")


def test_check_rules(known, tmp_path):
    """Rules on 30% less bandwidth (times unchanged): bw may drop by half (PASS), allreduce is
    not judged, latency's p99 (unchanged) is judged at <= 1K; then bw at 5% FAILs, or WARNs with
    severity warn."""
    rules = tmp_path / "rules.txt"
    rules.write_text("# bandwidth may drop by half, busbw is not judged; tail latency warns\n"
                     "bw        *      MBps         50%\n"
                     "allreduce *      busbw_GBps   skip\n"
                     "latency   <=1K   p99_us       5%     warn\n")
    p = run_cli("check", "--json", "--baseline", known.base, known.slow, "--rules", rules)
    assert_ok(p)
    res, checks = _checks(p)
    assert res["result"] == "PASS"
    assert not [c for c in checks if c["kernel"] == "allreduce"]
    assert all(c["status"] == "PASS" for c in checks if c["kernel"] == "bw")
    p99 = [c for c in checks if c["metric"] == "p99_us"]
    assert sorted(c["bytes"] for c in p99) == [8, 1024]
    assert all(c["status"] == "PASS" and c["change"] == 0 for c in p99), p99
    # A stricter rule: every bw size FAILs at 5% (noise ignored with --sigma 0.01).
    rules.write_text("bw  >=8  MBps  5%\nallreduce * * skip\n")
    p = run_cli("check", "--json", "--baseline", known.base, known.slow, "--rules", rules,
                "--sigma", "0.01")
    assert p.returncode == 1
    res, checks = _checks(p)
    assert {c["kernel"] for c in checks if c["status"] == "FAIL"} == {"bw"}
    assert len([c for c in checks if c["status"] == "FAIL"]) == 4
    # warn severity: the same excess is a WARN, exit 0.
    rules.write_text("bw  *  MBps  5%  warn\nallreduce * * skip\n")
    p = run_cli("check", "--json", "--baseline", known.base, known.slow, "--rules", rules,
                "--sigma", "0.01")
    assert_ok(p)
    res, checks = _checks(p)
    assert res["result"] == "WARN"
    assert [c["status"] for c in checks if c["kernel"] == "bw"] == ["WARN"] * 4


def test_check_bad_rules(results, tmp_path):
    rules = tmp_path / "bad.txt"
    rules.write_text("bw * MBps\n")
    assert_error(run_cli("check", "--baseline", results.shm, results.shm, "--rules", rules), 2,
                 "bad.txt line 1", "KERNEL SIZES METRIC TOLERANCE")
    rules.write_text("\n# fine\nbw * Mbps 5%\n")
    assert_error(run_cli("check", "--baseline", results.shm, results.shm, "--rules", rules), 2,
                 "line 3", "no column 'Mbps'")
    rules.write_text("bw 2X MBps 5%\n")
    assert_error(run_cli("check", "--baseline", results.shm, results.shm, "--rules", rules), 2,
                 "'2X' is not a size")
    assert_error(run_cli("check", "--baseline", results.shm, results.shm, "--rules",
                         rules.with_name("missing.txt")), 2, "cannot read the rules file")


def test_check_interrupted_run(known):
    """Missing sizes of an interrupted run are WARNs (FAILs with --strict); the run's status
    is reported. The rows it has are the baseline's values: PASS."""
    p = run_cli("check", "--json", "--baseline", known.base, known.interrupted)
    assert_ok(p)
    assert "interrupted" in p.stderr
    res, checks = _checks(p)
    assert res["result"] == "WARN"
    missing = [c for c in checks if c["metric"] == "-"]
    assert sorted(c["bytes"] for c in missing) == [65536, 1048576]
    assert any(c["metric"] == "run" and "interrupted" in c["reason"] for c in checks)
    assert [c["status"] for c in checks if c["change"] is not None] == ["PASS"] * 10
    p = run_cli("check", "--strict", "--baseline", known.base, known.interrupted)
    assert p.returncode == 1


def test_check_transport_not_probed(results):
    """No 'transport differs' WARN when either side did not probe its transports (a run
    stopped by a signal skips the probe): a note says so instead."""
    for base, cur, who in ((results.shm, results.signalled, "this run"),
                           (results.signalled, results.shm, "the baseline")):
        p = run_cli("check", "--json", "--baseline", base, cur)
        # 4: no verdict where every row was disturbed (this machine may be busy)
        assert p.returncode in (0, 1, 4) and "Traceback" not in p.stderr, p.stderr
        res, checks = _checks(p)
        assert not [c for c in checks if c["metric"] == "transport"], checks
        assert any("transport not compared" in n and who + " has none recorded" in n and
                   "not probed (the run stopped early)" in n for n in res["notes"]), res["notes"]
    # Both sides probed and different: still a WARN.
    p = run_cli("check", "--json", "--baseline", results.shm, results.tcp)
    res, checks = _checks(p)
    assert [c for c in checks if c["metric"] == "transport" and c["status"] == "WARN"], checks


def test_check_baseline_with_several_runs(known):
    """multi.h5 (known values): run_0000 is the baseline's run, run_0001 a latency run whose
    times are all 1.2 x as long. Both pool into the baseline: the reference is their median,
    1.1 t, and their spread, stdev(1, 1.2) / 1.1 = 12.86%, replaces the 5% floor, so the
    latency band widens from 3 x sqrt(2 x 5.625e-4^2 + 0.05^2) = 15.0% to
    3 x sqrt(2 x 5.625e-4^2 + 0.1286^2) = 38.6%. bw and allreduce, in one run only, keep the
    floor. run_0000 checked against it: latency 9.1% faster, within the tolerance: PASS."""
    p = run_cli("check", "--json", "--baseline", known.multi, "--run", "0", known.multi)
    assert_ok(p)
    res, checks = _checks(p)
    assert len(res["baseline"]["runs"]) == 2 and res["result"] == "PASS"
    spread = statistics.stdev([1.0, 1.2]) / 1.1
    lat = [c for c in checks if c["kernel"] == "latency"]
    assert sorted(c["bytes"] for c in lat) == [8, 1024, 65536, 1048576]
    for c in lat:
        assert c["metric"] == "p50_us" and c["status"] == "PASS", c
        assert c["baseline"] == pytest.approx(1.1 * c["value"], rel=1e-12)
        assert c["change"] == pytest.approx(1 / 1.1 - 1, rel=1e-9)
        assert c["noise"] == pytest.approx(SIGMA * math.sqrt(2 * NOISE_P50_REL ** 2 +
                                                             spread ** 2), rel=1e-6)
        assert c["noise"] == pytest.approx(0.3857, abs=1e-4)
    other = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert len(other) == 8
    assert all(c["noise"] == pytest.approx(ONE_RUN_NOISE, rel=1e-9) for c in other), other
    # One run of the same baseline: the latency band is the floor's.
    _, single = _checks(run_cli("check", "--json", "--baseline", known.base, known.base))
    for c in single:
        if c["kernel"] == "latency":
            assert c["noise"] == pytest.approx(
                SIGMA * math.sqrt(2 * NOISE_P50_REL ** 2 + 0.05 ** 2), rel=1e-6)


def test_check_nothing_in_common(results):
    assert_error(run_cli("check", "--baseline", results.only_latency, results.only_allreduce),
                 4, "nothing in common")


def test_check_usage(results):
    p = run_cli("check", results.shm)
    assert p.returncode == 2 and "--baseline" in p.stderr


def test_export_csv(results, tmp_path):
    out = tmp_path / "t.csv"
    p = run_cli("export", results.shm, results.tcp, "--csv", "-o", out)
    assert_ok(p)
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    t = load([results.shm, results.tcp])
    assert len(rows) == len(t) == 24
    assert list(rows[0]) == t.columns
    for got, want in zip(rows, t.rows):
        assert got["label"] == want["label"] and int(got["bytes"]) == want["bytes"]
        assert float(got["p50_us"]) == want["p50_us"]  # exact round trip
        assert float(got["MBps"]) == want["MBps"]
        if math.isnan(want["busbw_GBps"]):
            assert got["busbw_GBps"] == ""


def test_export_stdout_json_and_columns(results):
    p = run_cli("export", results.tcp, "--json", "--columns", "kernel,bytes,p50_us,busbw_GBps")
    assert_ok(p)
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(recs) == 12 and list(recs[0]) == ["kernel", "bytes", "p50_us", "busbw_GBps"]
    assert recs[0]["busbw_GBps"] is None
    p = run_cli("export", results.tcp, "--csv")
    assert_ok(p)
    assert p.stdout.splitlines()[0].startswith("label,file,")
    assert_error(run_cli("export", results.tcp, "--columns", "bytes,nope"), 2, "no column nope")
    p = run_cli("export", results.tcp, "--list-columns")
    assert_ok(p)
    assert "p50_us\tus" in p.stdout


def test_check_validation_errors_fail(known, tmp_path):
    """Received data that did not validate is a FAIL whatever the speed: the values are the
    baseline's, so the only FAILs are the run's status and the row with errors."""
    bad = str(tmp_path / "bad.h5")
    shutil.copyfile(known.base, bad)
    with h5py.File(bad, "r+") as f:
        run = f["runs/run_0000"]
        run.attrs["status"] = "complete, validation failed"
        for k in run["kernels"].values():
            if k.attrs["kernel"] == "bw":
                v = k["table/validation_errors"][()]
                v[1] = 5
                k["table/validation_errors"][...] = v
    p = run_cli("check", "--json", "--baseline", known.base, bad)
    assert p.returncode == 1, p.stdout + p.stderr
    res, checks = _checks(p)
    fails = [c for c in checks if c["status"] == "FAIL"]
    assert {(c["metric"], c["bytes"]) for c in fails} == {("run", None),
                                                         ("validation_errors", 1024)}
    assert "validation" in p.stderr


def test_check_setup_difference_warns(known, tmp_path):
    """allreduce measured on another element type: a WARN naming both, whatever the values (here
    the baseline's)."""
    other = str(tmp_path / "bf16.h5")
    shutil.copyfile(known.base, other)
    with h5py.File(other, "r+") as f:
        for k in f["runs/run_0000/kernels"].values():
            if k.attrs["kernel"] == "allreduce":
                k.attrs["dtype"] = "bfloat16"
    p = run_cli("check", "--json", "--baseline", known.base, other)
    assert_ok(p)
    res, checks = _checks(p)
    assert [c["metric"] for c in checks if c["status"] != "PASS"] == ["element type"], checks
    w = [c for c in checks if c["metric"] == "element type"]
    assert len(w) == 1 and "float32" in w[0]["reason"] and "bfloat16" in w[0]["reason"]
    assert res["result"] == "WARN"


def test_check_run_spread(known):
    """Repeat runs of one command differ by more than each run's own standard error says, so a
    one-run baseline assumes at least --run-spread (5%) of run-to-run spread. With every row's
    own noise 1e-4, the band is 3 x sqrt(1e-4^2 + 1e-4^2 + 0.05^2) = 15.00006%: 14% less
    bandwidth is beyond the 10% tolerance but within it, a WARN that exits 0. Trusting the
    runs' own statistics alone (--run-spread 0) the band is 3 x sqrt(2) x 1e-4 = 0.042%: the
    same 14% FAILs."""
    p = run_cli("check", "--json", "--baseline", known.base, known.mild)
    assert_ok(p)
    res, checks = _checks(p)
    assert res["run_spread"] == 0.05 and res["result"] == "WARN"
    bw = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert len(bw) == 8
    for c in bw:
        assert c["status"] == "WARN" and "within the noise +-15.0%" in c["reason"], c
        assert math.isclose(c["change"], -0.14, rel_tol=1e-9)
        assert c["noise"] == pytest.approx(ONE_RUN_NOISE, rel=1e-9)
    assert all(c["status"] == "PASS" for c in checks if c["kernel"] == "latency")
    p = run_cli("check", "--json", "--baseline", known.base, known.mild, "--run-spread", "0")
    assert p.returncode == 1, p.stdout + p.stderr
    res, checks = _checks(p)
    assert res["result"] == "FAIL"
    bw = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert len(bw) == 8
    for c in bw:
        assert c["status"] == "FAIL" and "worse by 14.0%" in c["reason"], c
        assert c["noise"] == pytest.approx(OWN_NOISE, rel=1e-9)
    assert_error(run_cli("check", "--baseline", known.base, known.mild, "--run-spread", "5"),
                 2, "write a percentage")


def test_check_three_run_baseline_measures_the_spread(known):
    """From 3 baseline runs on, their own spread replaces --run-spread: three identical runs
    (spread 0) leave only the runs' own errors, 3 x sqrt(1e-4^2 + 1e-4^2) = 0.042%, so the 14%
    loss that a one-run baseline WARNs about (test_check_run_spread) FAILs."""
    p = run_cli("check", "--json", "--baseline", known.base3, known.mild)
    assert p.returncode == 1, p.stdout + p.stderr
    res, checks = _checks(p)
    assert len(res["baseline"]["runs"]) == 3 and res["result"] == "FAIL"
    bw = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert len(bw) == 8
    for c in bw:
        assert c["status"] == "FAIL" and "worse by 14.0%" in c["reason"], c
        assert c["noise"] == pytest.approx(OWN_NOISE, rel=1e-9)
    assert all(c["status"] == "PASS" for c in checks if c["kernel"] == "latency")
    assert "spread measured from the baseline's runs" in run_cli(
        "check", "--baseline", known.base3, known.mild).stdout


def _latency_checks(p):
    res, checks = _checks(p)
    return [c for c in checks if c["kernel"] == "latency" and c["metric"] == "p50_us"]


def test_check_regimes_are_noisy_not_failed(known):
    """Latency 1.5 x slower (worse by 50%). The rows' block medians (1, 1, 1.5, 1.5) x 1.5t
    give a noise of 3 x sqrt(5.625e-4^2 + 0.11547^2 + 0.05^2) = 37.7% (se: stdev 0.2887 /
    sqrt 4 / median 1.25), so 50% is beyond tolerance and noise: FAIL, as it is for the same
    run without blocks. With regimes = 2 the rows' medians depend on how long each regime
    lasted: WARN, noisy, never FAIL."""
    plain = _latency_checks(run_cli("check", "--json", "--baseline", known.base,
                                    known.slow_plain))
    assert [c["status"] for c in plain] == ["FAIL"] * 4, plain
    p = run_cli("check", "--json", "--baseline", known.base, known.slow_regimes)
    assert "Traceback" not in p.stderr
    reg = _latency_checks(p)
    assert len(reg) == 4
    for c in reg:
        assert c["status"] == "WARN" and c["change"] == pytest.approx(0.5, rel=1e-9), c
        assert "noisy: 2 regimes over time in this run" in c["reason"], c
    res, _ = _checks(p)
    assert res["result"] != "FAIL" and p.returncode == 0, p.stdout
