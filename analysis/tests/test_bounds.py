# SPDX-License-Identifier: BSD-3-Clause
"""Readers bounded (docs/ANALYSIS.md, "Bounds"): every string read from a file is cut at
hostile.MAX_TEXT characters with a visible marker; the runs, kernel groups and rows one command
reads have caps (limits.py) with a clear error, lowered here through their documented
environment variables (FABRICBENCH_ANALYZE_MAX_RUNS, _MAX_KERNELS, _MAX_ROWS) on the known
files rather than by writing files of thousands of runs; a JSON file has a size cap.

What the caps are for, on crafted files of the issue's size (a 50 MB attribute, a JSON
document of 5,000 runs, an HDF5 file of 3,000 runs, 1.7 GB), is measured by
bench/analysis_bounds.py, not here: a test does not time this machine."""
import json
import shutil

import h5py
import known_json
import numpy as np
import pytest
from conftest import assert_error, assert_ok, run_cli

from fabricbench_analysis.reading import jsonload, loading
from fabricbench_analysis.model import hostile

RUN = "runs/run_0000"
BIG = 50 * 1000 * 1000  # the attribute: 50 MB
MARK = " [... cut: %d characters in the file, SHA-256 "


def _copy(known, tmp_path, name="big.h5", src=None):
    dst = str(tmp_path / name)
    shutil.copyfile(src or known.base, dst)
    return dst


def _first_kernel(f):
    return RUN + "/kernels/" + sorted(f[RUN + "/kernels"])[0]


# --- strings ---------------------------------------------------------------------------------

def test_50MB_attribute_is_cut(known, tmp_path):
    """Was: summary printed 250 MB (the run's fabric names the run on every line), export
    1.8 GB, compare 1.1 GB; plot and report ran for minutes."""
    path = _copy(known, tmp_path)
    with h5py.File(path, "r+") as f:
        f[RUN].attrs["fabric"] = "ab" * (BIG // 2)
    t = loading.load([path])
    fab = t.rows[0]["fabric"]
    assert fab.startswith("ab" * (hostile.MAX_TEXT // 2)) and (MARK % BIG) in fab
    assert len(fab) < hostile.MAX_TEXT + 100
    for args in (("summary", path), ("export", "--csv", path), ("compare", known.base, path)):
        p = run_cli(*args)
        assert_ok(p)
        assert MARK % BIG in p.stdout, args[0]
        assert len(p.stdout) < 20 * hostile.MAX_TEXT * 12, (args[0], len(p.stdout))


def _long(f, where):
    """Every place a string is read from: a run attribute (command_line, which grouping
    parses), a kernel attribute (detail), an element of a string dataset (hostnames)."""
    long = "L" * 1000000
    if where == "command_line":
        f[RUN].attrs["command_line"] = "fabricbench run " + long
    elif where == "detail":
        f[_first_kernel(f)].attrs["detail"] = long
    else:
        names = [x.decode() if isinstance(x, bytes) else x for x in f[RUN + "/hostnames"][()]]
        del f[RUN + "/hostnames"]
        f[RUN].create_dataset("hostnames", data=np.array([long] + names[1:], dtype=object),
                              dtype=h5py.string_dtype())


@pytest.mark.parametrize("where", ["command_line", "detail", "hostnames"])
def test_every_string_is_cut(known, tmp_path, where):
    """Was: a 1 MB command line made summary parse it for a minute (50 MB: past 60 s), and
    every string went whole into every output."""
    path = _copy(known, tmp_path)
    with h5py.File(path, "r+") as f:
        _long(f, where)
    p = run_cli("export", "--json", path)
    assert_ok(p)
    rec = json.loads(p.stdout.splitlines()[0])
    col = {"command_line": "command_line", "detail": "kernel_detail", "hostnames": "hosts"}
    v = rec[col[where]]
    assert len(v) < hostile.MAX_TEXT + 100 and " [... cut: " in v, v[-100:]
    assert_ok(run_cli("summary", path))


def test_cut_keeps_long_values_apart():
    """Two long values that differ only beyond the cut stay different (grouping compares
    command lines), and a value at the cap is kept whole."""
    a = "x" * hostile.MAX_TEXT
    assert hostile.cut_text(a) == a
    b, c = hostile.cut_text(a + "1"), hostile.cut_text(a + "2")
    assert b != c and b.startswith(a) and c.startswith(a)


def test_long_string_in_json_is_cut(known, tmp_path):
    doc = tmp_path / "big.json"
    known_json.write_document(known.base, str(doc))
    d = json.loads(doc.read_text())
    d["runs"][0]["run"]["fabric"] = "j" * 5000000
    doc.write_text(json.dumps(d))
    p = run_cli("summary", doc)
    assert_ok(p)
    assert MARK % 5000000 in p.stdout and len(p.stdout) < 20 * hostile.MAX_TEXT


# --- runs, kernels, rows ---------------------------------------------------------------------

def _counts(path):
    with h5py.File(path, "r") as f:
        runs = sorted(f["runs"])
        ks = [f["runs"][r]["kernels"][k] for r in runs for k in f["runs"][r]["kernels"]]
        return len(runs), len(ks), sum(len(k["table/bytes"]) for k in ks)


@pytest.mark.parametrize("what", ["runs", "kernels", "rows"])
def test_caps_refuse_with_a_clear_error(known, monkeypatch, what):
    """Was: no cap; every command read whatever a file held (the issue's 3,000 runs: past
    60 s each)."""
    n = dict(zip(("runs", "kernels", "rows"), _counts(known.base3)))[what]
    var = "FABRICBENCH_ANALYZE_MAX_" + what.upper()
    monkeypatch.setenv(var, str(n))
    assert_ok(run_cli("summary", known.base3))
    monkeypatch.setenv(var, str(n - 1))
    for args in (("summary", known.base3), ("export", known.base3),
                 ("check", "--baseline", known.base3, known.base),
                 ("report", known.base3, "-o", "-")):
        p = run_cli(*args)
        assert_error(p, 3, "base3.h5", "more than the %d fabricbench-analyze reads in one "
                     "command (%s)" % (n - 1, var), "hint: ")
        assert p.stdout == ""


def test_run_cap_counts_before_reading(known, tmp_path, monkeypatch):
    """The runs are counted before any is read: a third run damaged beyond reading is not
    what the error is about. --run selects what an HDF5 file's count is."""
    path = _copy(known, tmp_path, src=known.base3)
    with h5py.File(path, "r+") as f:
        del f["runs/run_0002/kernels"]
        f["runs/run_0002"]["kernels"] = h5py.SoftLink("/nowhere")
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_RUNS", "2")
    assert_error(run_cli("summary", path), 3, "runs read to 3, more than the 2")
    assert_ok(run_cli("summary", "--run", "latest", known.base3))
    assert_ok(run_cli("summary", known.base, known.slow))
    assert_error(run_cli("summary", known.base, known.slow, known.mild), 3,
                 "mild.h5: reading it would bring the runs read to 3")


@pytest.mark.parametrize("fmt", ["jsonl", "document"])
def test_caps_in_json(known, tmp_path, monkeypatch, fmt):
    """A JSON file is read whole: all its runs count, whatever --run selects; the error names
    the record."""
    path = str(tmp_path / ("base3.jsonl" if fmt == "jsonl" else "base3.json"))
    (known_json.write_jsonl if fmt == "jsonl" else known_json.write_document)(known.base3,
                                                                              path)
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_RUNS", "2")
    p = run_cli("summary", "--run", "latest", path)
    assert_error(p, 3, "runs read to 3, more than the 2")
    if fmt == "jsonl":
        assert "(line " in p.stderr and "(run record))" in p.stderr
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_RUNS", "3")
    _, kernels, rows = _counts(known.base3)
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_ROWS", str(rows - 1))
    assert_error(run_cli("summary", path), 3, "table rows read to %d" % rows)
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_ROWS", str(rows))
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_KERNELS", str(kernels - 1))
    assert_error(run_cli("summary", path), 3, "kernel instances of runs) read to %d" % kernels)


def test_json_size_cap(known, tmp_path, monkeypatch):
    """A JSON file beyond jsonload.MAX_DOCUMENT (256 MiB; lowered here) is refused before it
    is parsed."""
    path = str(tmp_path / "base.jsonl")
    known_json.write_jsonl(known.base, path)
    monkeypatch.setattr(jsonload, "MAX_DOCUMENT", 1000)
    assert_error(run_cli("summary", path), 3, "base.jsonl (JSON Lines) holds",
                 "fabricbench-analyze reads JSON files of at most 1000 bytes")


def test_run_groups_listed_at_most(known, monkeypatch):
    from fabricbench_analysis.reading import limits

    monkeypatch.setattr(limits, "MAX_RUN_GROUPS", 2)
    assert_error(run_cli("summary", "--run", "latest", known.base3), 3,
                 "base3.h5 holds 3 runs; fabricbench-analyze lists at most 2")


def test_matrix_reader_has_the_caps(pairs, tmp_path, monkeypatch):
    path = pairs.km.write_pairs(str(tmp_path / "two.h5"), pairs.real, pairs.km.spec(), runs=2)
    assert_ok(run_cli("matrix", path))
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_RUNS", "1")
    assert_error(run_cli("matrix", path), 3, "runs read to 2, more than the 1")


@pytest.mark.parametrize("value", ["0", "-1", "0x10", " 5", "5 ", "1e3", "10000000000", ""])
def test_cap_variables_parsed_strictly(known, monkeypatch, value):
    monkeypatch.setenv("FABRICBENCH_ANALYZE_MAX_ROWS", value)
    assert_error(run_cli("summary", known.base), 2, "the environment variable "
                 "FABRICBENCH_ANALYZE_MAX_ROWS is '%s'; it is a whole number from 1 to "
                 "1000000000 (digits only)" % value)
