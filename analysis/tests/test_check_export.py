"""check against a baseline, export of the tidy table."""
import csv
import io
import json
import math

from conftest import assert_error, assert_ok, run_cli

from fabricbench_analysis import load


def _checks(p):
    res = json.loads(p.stdout)
    return res, [c for f in res["files"] for c in f["checks"]]


def test_check_file_against_itself_passes(results):
    p = run_cli("check", "--baseline", results.shm, results.shm)
    assert_ok(p)
    assert "result: PASS (0 FAIL, 0 WARN, 12 PASS)" in p.stdout


def test_check_fails_30_percent_less_bandwidth(results):
    p = run_cli("check", "--json", "--baseline", results.shm, results.slow)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "Traceback" not in p.stderr
    res, checks = _checks(p)
    assert res["result"] == "FAIL"
    by_kind = {}
    for c in checks:
        by_kind.setdefault(c["kernel"], []).append(c)
    # Latency (times unchanged) passes; every bandwidth and busbw row is worse by 30%: FAIL, or
    # WARN where the noise measured for that row is larger than 30% (a busy machine).
    assert all(c["status"] == "PASS" for c in by_kind["latency"])
    for k, metric in (("bw", "MBps"), ("allreduce", "busbw_GBps")):
        assert len(by_kind[k]) == 4
        for c in by_kind[k]:
            assert c["metric"] == metric
            assert math.isclose(c["change"], -0.3, rel_tol=1e-9)
            assert c["status"] == "FAIL" or (c["status"] == "WARN" and c["noise"] >= 0.3), c
            if c["status"] == "FAIL":
                assert "worse by 30.0%" in c["reason"] and c["noise"] < 0.3
    fails = [c for c in checks if c["status"] == "FAIL"]
    assert fails, "no row of the baseline was measured precisely enough: %s" % checks


def test_check_text_output(results):
    # --sigma 0.01: noise all but ignored, so that every bandwidth row FAILs on tolerance.
    p = run_cli("check", "--baseline", results.shm, results.slow, "--show", "problems",
                "--sigma", "0.01")
    assert p.returncode == 1
    assert "FAIL    bw" in p.stdout and "FAIL    allreduce" in p.stdout
    assert "PASS" not in p.stdout.replace("PASS)", "")
    assert "result: FAIL (8 FAIL, 0 WARN, 4 PASS)" in p.stdout


def test_check_within_noise_is_not_a_failure(results):
    """The same 30% loss measured with a spread far larger than 30%: WARN, exit 0."""
    p = run_cli("check", "--json", "--baseline", results.shm, results.noisy)
    assert_ok(p)
    res, checks = _checks(p)
    assert res["result"] == "WARN"
    warned = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert warned and all(c["status"] == "WARN" and "within the noise" in c["reason"]
                          for c in warned)


def test_check_tolerance(results):
    p = run_cli("check", "--baseline", results.shm, results.slow, "--tolerance", "40%")
    assert_ok(p)
    assert "result: PASS" in p.stdout
    assert_error(run_cli("check", "--baseline", results.shm, results.slow, "--tolerance", "40"),
                 2, "write a percentage")
    assert_error(run_cli("check", "--baseline", results.shm, results.slow, "--tolerance", "x"),
                 2, "is not a tolerance")


def test_check_rules(results, tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text("# bandwidth may drop by half, busbw is not judged; tail latency warns\n"
                     "bw        *      MBps         50%\n"
                     "allreduce *      busbw_GBps   skip\n"
                     "latency   <=1K   p99_us       5%     warn\n")
    p = run_cli("check", "--json", "--baseline", results.shm, results.slow, "--rules", rules)
    assert_ok(p)
    res, checks = _checks(p)
    assert not [c for c in checks if c["kernel"] == "allreduce"]
    assert all(c["status"] == "PASS" for c in checks if c["kernel"] == "bw")
    p99 = [c for c in checks if c["metric"] == "p99_us"]
    assert sorted(c["bytes"] for c in p99) == [8, 1024]
    # A stricter rule: every bw size FAILs at 5% (noise ignored with --sigma 0.01).
    rules.write_text("bw  >=8  MBps  5%\nallreduce * * skip\n")
    p = run_cli("check", "--json", "--baseline", results.shm, results.slow, "--rules", rules,
                "--sigma", "0.01")
    assert p.returncode == 1
    res, checks = _checks(p)
    assert {c["kernel"] for c in checks if c["status"] == "FAIL"} == {"bw"}
    assert len([c for c in checks if c["status"] == "FAIL"]) == 4
    # warn severity: the same excess is a WARN, exit 0.
    rules.write_text("bw  *  MBps  5%  warn\nallreduce * * skip\n")
    p = run_cli("check", "--json", "--baseline", results.shm, results.slow, "--rules", rules,
                "--sigma", "0.01")
    assert_ok(p)
    res, checks = _checks(p)
    assert res["result"] == "WARN"


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


def test_check_interrupted_run(results):
    """Missing sizes of an interrupted run are WARNs (FAILs with --strict); the run's status
    is reported."""
    p = run_cli("check", "--json", "--baseline", results.shm, results.interrupted)
    assert_ok(p)
    assert "interrupted" in p.stderr
    res, checks = _checks(p)
    assert res["result"] == "WARN"
    missing = [c for c in checks if c["metric"] == "-"]
    assert sorted(c["bytes"] for c in missing) == [65536, 1048576]
    assert any(c["metric"] == "run" and "interrupted" in c["reason"] for c in checks)
    p = run_cli("check", "--strict", "--baseline", results.shm, results.interrupted)
    assert p.returncode == 1


def test_check_transport_not_probed(results):
    """No 'transport differs' WARN when either side did not probe its transports (a run
    stopped by a signal skips the probe): a note says so instead."""
    for base, cur, who in ((results.shm, results.signalled, "this run"),
                           (results.signalled, results.shm, "the baseline")):
        p = run_cli("check", "--json", "--baseline", base, cur)
        assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stderr
        res, checks = _checks(p)
        assert not [c for c in checks if c["metric"] == "transport"], checks
        assert any("transport not compared" in n and who + " has none recorded" in n and
                   "not probed (the run stopped early)" in n for n in res["notes"]), res["notes"]
    # Both sides probed and different: still a WARN.
    p = run_cli("check", "--json", "--baseline", results.shm, results.tcp)
    res, checks = _checks(p)
    assert [c for c in checks if c["metric"] == "transport" and c["status"] == "WARN"], checks


def test_check_baseline_with_several_runs(results):
    """multi.h5: run_0000 is shm.h5's run, run_0001 a second latency run. Both pool into the
    baseline; their spread widens the noise band."""
    p = run_cli("check", "--json", "--baseline", results.multi, "--run", "0", results.multi)
    assert p.returncode in (0, 1)
    res, checks = _checks(p)
    assert len(res["baseline"]["runs"]) == 2
    lat = [c for c in checks if c["kernel"] == "latency" and c["bytes"] in (8, 1024)]
    single = run_cli("check", "--json", "--baseline", results.shm, results.shm)
    _, ref = _checks(single)
    ref_lat = {c["bytes"]: c for c in ref if c["kernel"] == "latency"}
    for c in lat:
        assert c["noise"] >= ref_lat[c["bytes"]]["noise"] * 0.999


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


def test_check_validation_errors_fail(results, tmp_path):
    """Received data that did not validate is a FAIL whatever the speed."""
    import shutil

    import h5py
    bad = str(tmp_path / "bad.h5")
    shutil.copyfile(results.shm, bad)
    with h5py.File(bad, "r+") as f:
        run = f["runs/run_0000"]
        run.attrs["status"] = "complete, validation failed"
        for k in run["kernels"].values():
            if k.attrs["kernel"] == "bw":
                v = k["table/validation_errors"][()]
                v[1] = 5
                k["table/validation_errors"][...] = v
    p = run_cli("check", "--json", "--baseline", results.shm, bad)
    assert p.returncode == 1, p.stdout + p.stderr
    res, checks = _checks(p)
    fails = [c for c in checks if c["status"] == "FAIL"]
    assert {(c["metric"], c["bytes"]) for c in fails} == {("run", None),
                                                         ("validation_errors", 1024)}
    assert "validation" in p.stderr


def test_check_setup_difference_warns(results, tmp_path):
    import shutil

    import h5py
    other = str(tmp_path / "bf16.h5")
    shutil.copyfile(results.shm, other)
    with h5py.File(other, "r+") as f:
        for k in f["runs/run_0000/kernels"].values():
            if k.attrs["kernel"] == "allreduce":
                k.attrs["dtype"] = "bfloat16"
    p = run_cli("check", "--json", "--baseline", results.shm, other)
    assert_ok(p)
    res, checks = _checks(p)
    w = [c for c in checks if c["metric"] == "element type"]
    assert len(w) == 1 and "float32" in w[0]["reason"] and "bfloat16" in w[0]["reason"]
    assert res["result"] == "WARN"


def test_check_run_spread(results, tmp_path):
    """Repeat runs of one command differ by more than each run's own standard error says, so a
    one-run baseline assumes at least --run-spread (5%) of run-to-run spread: 14% less
    bandwidth is beyond the 10% tolerance but within 3 x 5%, a WARN that exits 0; trusting the
    runs' own statistics alone (--run-spread 0) makes it a FAIL."""
    from conftest import _copy, scale_bandwidth
    mild = _copy(results.shm, str(tmp_path / "mild.h5"))
    scale_bandwidth(mild, 0.86)
    p = run_cli("check", "--json", "--baseline", results.shm, mild)
    assert_ok(p)
    res, checks = _checks(p)
    assert res["run_spread"] == 0.05
    bw = [c for c in checks if c["kernel"] in ("bw", "allreduce")]
    assert bw and all(c["status"] == "WARN" and c["noise"] >= 0.15 for c in bw), bw
    p = run_cli("check", "--json", "--baseline", results.shm, mild, "--run-spread", "0")
    assert p.returncode == 1, p.stdout + p.stderr
    res, checks = _checks(p)
    assert any(c["status"] == "FAIL" for c in checks), checks
    assert_error(run_cli("check", "--baseline", results.shm, mild, "--run-spread", "5"),
                 2, "write a percentage")


def test_check_three_run_baseline_measures_the_spread(results, tmp_path):
    """From 3 baseline runs on, their own spread replaces --run-spread: three identical runs
    (spread 0) leave only the runs' own errors, so the 14% loss that a one-run baseline WARNs
    about FAILs where those errors are small."""
    import h5py
    from conftest import _copy, scale_bandwidth
    base = _copy(results.shm, str(tmp_path / "base3.h5"))
    with h5py.File(base, "r+") as f:
        first = sorted(f["runs"])[0]
        for name in ("run_0101", "run_0102"):
            f.copy(f["runs"][first], "runs/" + name)
    mild = _copy(results.shm, str(tmp_path / "mild3.h5"))
    scale_bandwidth(mild, 0.86)
    p = run_cli("check", "--json", "--baseline", base, mild)
    res, checks = _checks(p)
    assert len(res["baseline"]["runs"]) == 3
    assert p.returncode == 1 and any(c["status"] == "FAIL" and c["noise"] < 0.14
                                     for c in checks), checks
    assert "spread measured from the baseline's runs" in run_cli(
        "check", "--baseline", base, mild).stdout
