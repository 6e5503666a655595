# SPDX-License-Identifier: BSD-3-Clause
"""End to end: the files the real fabricbench wrote during this session, through every analysis
command. Their values are whatever this machine measured, quiet or busy, so only shapes,
definitions and exit codes are asserted here; the numbers and verdicts are tested on known
values (known_values.py)."""
import json
import math

from conftest import assert_ok, run_launcher as run_cli

from fabricbench_analysis import load

STATUSES = ("PASS", "WARN", "FAIL")
NC = ("disturbed", "invalid")
HEADLINE = {"latency": "p50_us", "bw": "MBps", "allreduce": "busbw_GBps"}
SIZES = [8, 1024, 65536, 1048576]


def test_real_runs_through_every_command(results, tmp_path):
    shm, tcp = results.shm, results.tcp
    t = load([shm, tcp])
    labels = t.labels()
    assert len(labels) == 2 and len(t) == 2 * 3 * 4

    # summary: one record per run, in load order.
    p = run_cli("summary", "--json", shm, tcp)
    assert_ok(p)
    assert [r["label"] for r in json.loads(p.stdout)] == labels

    # compare: a block per kernel and metric, a row per size; ratio = value / reference and
    # change = ratio - 1 (definitions); each verdict one of compare's words.
    p = run_cli("compare", "--json", shm, tcp)
    assert_ok(p)
    res = json.loads(p.stdout)
    assert res["reference"] == labels[0]
    # p99 needs 1000 samples: a busy machine's short runs may have none at any size, and a
    # metric with no value anywhere has no block
    p99 = any(not math.isnan(r["p99_us"]) for r in t.where(kernel="latency"))
    assert [(b["kernel"], b["metric"]) for b in res["blocks"]] == [
        ("latency", "p50_us")] + [("latency", "p99_us")] * p99 + [
        ("bw", "MBps"), ("allreduce", "busbw_GBps")]
    for b in res["blocks"]:
        assert [row["bytes"] for row in b["rows"]] == SIZES
        both = [row for row in b["rows"] if set(labels) <= set(row["cells"])]
        # a cell is missing only where the value is (p99 with too few samples is NaN)
        for row in b["rows"]:
            for lab in set(labels) - set(row["cells"]):
                r = t.where(label=lab, kernel=b["kernel"], bytes=row["bytes"])
                assert len(r) == 1 and math.isnan(r[0][b["metric"]]), (lab, row)
        assert both or b["metric"] == "p99_us", b
        for row in both:
            ref, other = row["cells"][labels[0]], row["cells"][labels[1]]
            assert math.isclose(other["ratio"], other["value"] / ref["value"], rel_tol=1e-12)
            assert math.isclose(other["change"], other["ratio"] - 1, rel_tol=1e-9, abs_tol=1e-12)
            assert other["verdict"] in ("better", "worse", "same", "unknown", "noisy",
                                        "not_comparable"), other
            # a disturbed or invalid row (a busy machine) is never judged (quality.py)
            assert (other["verdict"] == "not_comparable") == (
                other["quality"] in NC or ref["quality"] in NC), other

    # check tcp.h5 against shm.h5: one check of the headline metric per kernel and size, each
    # change = value / baseline - 1; the result is the worst status, and exit 1 exactly when it
    # is FAIL, 4 when every row was disturbed or invalid (a busy machine: no verdict). The
    # transports differ (recorded, not measured): a WARN.
    p = run_cli("check", "--json", "--baseline", shm, tcp)
    assert p.returncode in (0, 1, 4) and "Traceback" not in p.stderr, p.stderr
    res = json.loads(p.stdout)
    checks = [c for f in res["files"] for c in f["checks"]]
    assert all(c["status"] in STATUSES for c in checks), checks
    worst = max((c["status"] for c in checks), key=STATUSES.index)
    judged = [c for c in checks if c.get("comparable") is True]
    assert res["result"] == worst and p.returncode == (
        1 if worst == "FAIL" else 0 if judged else 4), (p.returncode, worst, len(judged))
    values = [c for c in checks if c["kernel"] in HEADLINE and c["bytes"] is not None]
    assert sorted((c["kernel"], c["bytes"], c["metric"]) for c in values) == sorted(
        (k, b, m) for k, m in HEADLINE.items() for b in SIZES)
    for c in values:
        if c["comparable"] is False:
            assert c["status"] == "WARN" and c["change"] is None, c
            assert c["reason"].startswith("not comparable: "), c
            continue
        assert math.isclose(c["change"], c["value"] / c["baseline"] - 1, rel_tol=1e-9,
                            abs_tol=1e-12), c
        assert c["noise"] is None or c["noise"] >= 0, c
    assert [c["status"] for c in checks if c["metric"] == "transport"] == ["WARN"]

    # export: one row per run, kernel and size.
    out = tmp_path / "all.csv"
    assert_ok(run_cli("export", shm, tcp, "--csv", "-o", out))
    assert len(out.read_text().splitlines()) == 1 + len(t)
    # plot and report on these files: test_plot_report.py.
