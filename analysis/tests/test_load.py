"""load(): one tidy table from files the C tool wrote."""
import math

import h5py
import pytest

from fabricbench_analysis import load
from fabricbench_analysis.loading import transport_short
from fabricbench_analysis.errors import AnalysisError
from fabricbench_analysis.table import RUN_COLUMNS, TABLE_COLUMNS

SIZES = [8, 1024, 65536, 1048576]


def test_one_row_per_run_kernel_size(results):
    t = load([results.shm, results.tcp])
    assert len(t) == 2 * 3 * 4
    assert t.kernels() == ["latency", "bw", "allreduce"]
    assert len(t.labels()) == 2
    for lab in t.labels():
        for k in ("latency", "bw", "allreduce"):
            assert sorted(r["bytes"] for r in t.where(label=lab, kernel=k)) == SIZES
    for r in t:
        assert set(t.columns) <= set(r)


def test_values_are_the_files_values(results):
    t = load([results.tcp])
    with h5py.File(results.tcp, "r") as f:
        run = f["runs/run_0000"]
        for kid, k in run["kernels"].items():
            tab = k["table"]
            rows = t.where(kernel_id=kid)
            assert len(rows) == len(tab["bytes"])
            for i, r in enumerate(rows):
                for c in ("bytes", "iterations", "p50_us", "p99_us", "MBps", "busbw_GBps"):
                    v = tab[c][i]
                    if isinstance(r[c], float) and math.isnan(r[c]):
                        assert math.isnan(v)
                    else:
                        assert r[c] == v, (kid, i, c)
        assert all(r["nranks"] == run.attrs["nranks"] for r in t)
        assert all(r["run_status"] == "complete" for r in t)
        assert all(r["kind"] in ("latency", "bandwidth", "collective") for r in t)


def test_run_metadata_and_units(results):
    t = load([results.shm, results.tcp])
    shm, tcp = (t.where(file=results.shm)[0], t.where(file=results.tcp)[0])
    assert shm["line_rate_gbps"] == 100.0
    assert math.isnan(tcp["line_rate_gbps"])
    assert shm["nhosts"] == 1 and shm["hosts"]
    assert "tcp" in tcp["transport"] and "tcp" not in shm["transport"]
    assert shm["fabric"] == "shm" and tcp["fabric"] == "tcp"
    for c in RUN_COLUMNS:
        assert c in t.columns
    assert t.units["p50_us"] == "us"
    assert t.units["MBps"] == "MB/s"
    assert t.units["busbw_GBps"] == "GB/s"
    assert t.units["line_rate_gbps"] == "Gb/s"


def test_noise_estimates(results):
    t = load([results.shm, results.tcp])
    for r in t:
        assert r["noise_mean_rel"] > 0 and r["noise_p50_rel"] >= 0, r["label"]
    # tcp.h5 has --samples: rows with enough of them use the batch method too.
    tcp = t.where(file=results.tcp)
    assert all(r["n_samples"] == r["iterations"] for r in tcp)
    assert any(r["noise_method"] == "table+samples" for r in tcp)
    assert all(r["noise_method"] == "table" for r in t.where(file=results.shm))


def test_noise_grows_with_spread(results):
    """The noisy copy has the same values but 10 iterations with stddev = 3 x mean."""
    quiet = {(r["kernel"], r["bytes"]): r for r in load([results.slow])}
    for r in load([results.noisy]):
        q = quiet[(r["kernel"], r["bytes"])]
        assert r["MBps"] == q["MBps"]
        assert r["noise_mean_rel"] == pytest.approx(3 / math.sqrt(10))
        assert r["noise_mean_rel"] > q["noise_mean_rel"]


def test_several_runs(results):
    t = load([results.multi])
    assert sorted({r["run"] for r in t}) == ["run_0000", "run_0001"]
    assert len(t.labels()) == 2
    latest = load([results.multi], run="latest")
    assert {r["run"] for r in latest} == {"run_0001"}
    assert latest.kernels() == ["latency"]
    first = load([results.multi], run="0")
    assert {r["run"] for r in first} == {"run_0000"}
    with pytest.raises(AnalysisError) as e:
        load([results.multi], run="run_0007")
    assert "run_0000, run_0001" in e.value.message and e.value.code == 2


def test_labels(results):
    t = load([results.shm, results.tcp], labels=["week 1", "week 2"])
    assert t.labels() == ["week 1", "week 2"]
    # The same file twice (or three times): one name each, every copy numbered alike.
    t = load([results.shm, results.shm])
    labs = t.labels()
    assert len(labs) == 2 and labs[0].endswith(" #1") and labs[1].endswith(" #2"), labs
    assert labs[0][:-3] == labs[1][:-3], labs
    t = load([results.shm, results.tcp, results.shm, results.shm])
    labs = t.labels()
    assert len(set(labs)) == 4, labs
    assert [lab[-3:] for lab in labs if lab != labs[1]] == [" #1", " #2", " #3"], labs


def test_old_file_without_new_columns(results):
    t = load([results.old])
    r = t.where(kernel="bw")[0]
    assert math.isnan(r["line_rate_pct"]) and math.isnan(r["cpu_rank_pct"])
    assert r["fabric"] == "any" and math.isnan(r["line_rate_gbps"])
    assert len(t) == 12
    for c in TABLE_COLUMNS:
        assert c in t.columns


def test_interrupted_loads_what_is_complete(results):
    notes = []
    t = load([results.interrupted], warn=notes.append)
    assert len(t) == 4 + 4 + 2
    assert [r["bytes"] for r in t.where(kernel="allreduce")] == [8, 1024]
    assert any("interrupted" in n and "SIGINT" in n for n in notes), notes
    assert t.notes == notes


def test_run_stopped_by_a_signal(results):
    """signalled.h5: the real tool stopped by SIGUSR1 after its first row. It skipped the
    transport probe, so its transport is unknown (not the placeholder text made a name)."""
    notes = []
    t = load([results.signalled], warn=notes.append)
    assert len(t) >= 1
    r = t.rows[0]
    assert r["run_status"] == "interrupted" and "signal" in r["stop_reason"], r["stop_reason"]
    assert r["ucx_transports"] == "not probed (the run stopped early)"
    assert r["transport"] == ""
    assert t.labels() == ["signalled"]  # no --fabric, no transport: the file's name
    assert any("was interrupted" in n and results.signalled in n for n in notes), notes


def test_transport_short():
    assert transport_short("sysv/memory[am am_bw#0] cma/memory[rma_bw#0]", "ucx") == "sysv+cma"
    assert transport_short("tcp/lo[am#0] self/memory[am#1]", "ucx") == "tcp/lo"
    for placeholder in ("not probed (the run stopped early)", "not probed (needs two ranks)",
                        "probed after the measurements (last line)", ""):
        assert transport_short(placeholder, "ucx") == "", placeholder
    assert transport_short("not used (pml ob1; btl loaded: sm,self)", "ob1") == "ob1"
