# SPDX-License-Identifier: BSD-3-Clause
"""load(): one tidy table from files the C tool wrote."""
import math
import shutil

import h5py
import known_values
import pytest
from known_values import NOISE_MEAN_REL, NOISE_P50_REL

from fabricbench_analysis import load
from fabricbench_analysis.reading.loading import transport_short
from fabricbench_analysis.model.errors import AnalysisError
from fabricbench_analysis.model.table import RUN_COLUMNS, TABLE_COLUMNS

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
    """Real runs: every row has its estimates (relative standard errors, >= 0); tcp.h5 has
    --samples, and exactly its rows with enough of them (10 batches of 5) use the batch method
    too. How large they are is the machine's business: test_noise_* below use known values."""
    t = load([results.shm, results.tcp])
    for r in t:
        assert r["noise_mean_rel"] >= 0 and r["noise_p50_rel"] >= 0, r["label"]
    tcp = t.where(file=results.tcp)
    assert all(r["n_samples"] == r["iterations"] for r in tcp)
    for r in tcp:
        assert r["noise_method"] == ("table+samples" if r["n_samples"] >= 50 else "table"), r
    assert all(r["noise_method"] == "table" for r in t.where(file=results.shm))


def test_noise_known_values(known):
    """Every row of the known baseline: stddev 1% of the mean over 10000 iterations, so
    noise_mean_rel = 0.01 / sqrt(10000) = 1e-4; its p50's standard error, from the quantiles
    interpolated at 0.5 -+ sqrt(0.25 / 10000), is (1.000625 - 0.9995) / 2 = 5.625e-4."""
    t = load([known.base])
    assert len(t) == 12
    for r in t:
        assert r["noise_method"] == "table" and r["n_samples"] == 0
        assert r["noise_mean_rel"] == pytest.approx(1e-4, rel=1e-9)
        assert r["noise_p50_rel"] == pytest.approx(5.625e-4, rel=1e-9)
    assert NOISE_MEAN_REL == pytest.approx(1e-4) and NOISE_P50_REL == 5.625e-4


def test_noise_grows_with_spread(known):
    """The noisy file has the slow file's values but 10 iterations with stddev = 3 x mean:
    noise_mean_rel 3 / sqrt(10) = 0.949 instead of 1e-4."""
    quiet = {(r["kernel"], r["bytes"]): r for r in load([known.slow])}
    for r in load([known.noisy]):
        q = quiet[(r["kernel"], r["bytes"])]
        assert r["MBps"] == q["MBps"]
        assert r["noise_mean_rel"] == pytest.approx(3 / math.sqrt(10), rel=1e-9)
        assert q["noise_mean_rel"] == pytest.approx(1e-4, rel=1e-9)


def test_noise_from_samples(known):
    """With --samples the larger of the table's and the batch-means estimate counts. The known
    samples step by 1% of t from one of their 10 batches to the next (a drift the table's 1%
    stddev over 10000 iterations, 1e-4, does not show): the batch means' standard error is
    0.01 x stdev(0..9) / sqrt(10) = 0.01 x 3.0277 / 3.1623 = 0.9574%, for the mean and the
    median (constant batches: a batch's median is its mean; the whole median is t)."""
    t = load([known.drift])
    assert t.kernels() == ["latency"] and len(t) == 4
    for r in t:
        assert r["noise_method"] == "table+samples" and r["n_samples"] == 10000
        assert r["noise_mean_rel"] == pytest.approx(0.009574271, rel=1e-6)
        assert r["noise_p50_rel"] == pytest.approx(0.009574271, rel=1e-6)


def test_known_files_have_the_real_shape(results, known):
    """The known-value files are what fabricbench writes, only with chosen numbers: the same
    root and kernel attributes, the run attributes, and per kernel the same table columns, in
    the same order, with the same dtypes and attributes (whatever columns this fabricbench
    writes)."""
    def shape(path):
        out = {}
        with h5py.File(path, "r") as f:
            out["root"] = sorted(f.attrs)
            run = f["runs"][sorted(f["runs"])[0]]
            out["run"] = sorted(run.attrs)
            out["run objects"] = sorted(run)
            for k in run["kernels"].values():
                t = k["table"]
                out[k.name.rsplit("/", 1)[1]] = (
                    sorted(k.attrs), t.attrs["columns"],
                    [(c, t[c].dtype.str, t[c].maxshape, sorted(t[c].attrs))
                     for c in t.attrs["columns"].split(",")])
        return out
    real = shape(results.shm)
    assert shape(known.base) == real
    with h5py.File(known.base, "r") as f:
        assert f.attrs["latest_run"] == "run_0000"
    with h5py.File(known.base3, "r") as f:
        assert sorted(f["runs"]) == ["run_0000", "run_0001", "run_0002"]
        assert f.attrs["latest_run"] == "run_0002"


def test_known_files_follow_the_template_columns(results, tmp_path):
    """The known files take their columns from the real file: a column a newer fabricbench adds
    appears, with its known value where known_values.py defines one (p9999_us: 2 t) and NaN
    (-1 for integers) where not; a column an older one lacks is absent, as in its files."""
    template = str(tmp_path / "template.h5")
    shutil.copyfile(results.shm, template)
    with h5py.File(template, "r+") as f:
        for k in f["runs/run_0000/kernels"].values():
            t = k["table"]
            cols = t.attrs["columns"].split(",")
            for c, like, after in (("p9999_us", "p999_us", "p999_us"),
                                   ("future_us", "p999_us", "p9999_us"),
                                   ("future_rank", "slowest_rank", "slowest_rank")):
                if c not in t:
                    t.create_dataset(c, data=t[like][()], maxshape=(None,), chunks=(64,))
                    for a, v in t[like].attrs.items():
                        t[c].attrs[a] = v
                    cols.insert(cols.index(after) + 1, c)
            del t["line_rate_pct"]
            cols.remove("line_rate_pct")
            t.attrs["columns"] = ",".join(cols)
    path = known_values.write_known(str(tmp_path / "known.h5"), template)
    with h5py.File(template, "r") as f:
        want = {name: k["table"].attrs["columns"]
                for name, k in f["runs/run_0000/kernels"].items()}
    with h5py.File(path, "r") as f:
        for name, k in f["runs/run_0000/kernels"].items():
            t = k["table"]
            assert t.attrs["columns"] == want[name] and sorted(t) == sorted(want[name].split(","))
            assert "line_rate_pct" not in t and "p9999_us" in t and "future_us" in t
            assert list(t["p9999_us"][()]) == list(2 * t["p50_us"][()])
            assert all(math.isnan(x) for x in t["future_us"][()])
            assert list(t["future_rank"][()]) == [-1] * 4
    t = load([path])
    r = t.where(kernel="latency", bytes=8)[0]
    assert r["p9999_us"] == 2.0 and math.isnan(r["line_rate_pct"])


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


def test_nccl_tests_columns(results):
    """count, type and redop as fabricbench writes them: a collective's elements, its type and
    reduction in nccl-tests' words; -1 and "" for the other kernels; "" in older files."""
    t = load([results.tcp])
    for r in t.where(kernel="allreduce"):
        assert (r["type"], r["redop"]) == ("float", "sum") and r["count"] == r["bytes"] // 4
    for r in t.where(kernel="latency") + t.where(kernel="bw"):
        assert (r["type"], r["redop"], r["count"]) == ("", "", -1)
    assert t.units["count"] == "elements" and t.units["type"] == "name"
    assert "type" not in load([results.old]).columns  # no file has it: no such column
    both = load([results.old, results.tcp])
    old = both.where(file=results.old)
    assert old and all(r["type"] == "" and r["redop"] == "" and math.isnan(r["count"])
                       for r in old)
    from fabricbench_analysis.checks.compare import metric_columns
    assert not {"count", "type", "redop"} & set(metric_columns(t))


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


def test_noise_from_blocks(known):
    """An adaptive row's block medians (0.9t, t, 1.1t) spread across the run: their standard
    deviation 0.1t / sqrt(3) / their median t = 5.7735% is the standard error of p50 and the
    mean (larger than the table's 1e-4 and 5.6e-4), method table+blocks."""
    t = load([known.blocks])
    assert t.kernels() == ["latency"] and len(t) == 4
    for r in t:
        assert r["noise_method"] == "table+blocks" and r["blocks"] == 3
        assert r["noise_p50_rel"] == pytest.approx(0.1 / math.sqrt(3), rel=1e-9)
        assert r["noise_mean_rel"] == pytest.approx(0.1 / math.sqrt(3), rel=1e-9)
        # the tails keep the table's estimate
        assert r["noise_p99_rel"] < 0.05
