# SPDX-License-Identifier: BSD-3-Clause
"""Hostile files (issue 14): every dataset and attribute the analysis reads is checked against
docs/SCHEMA.md before use; a file that does not match is exit 3 with one error line naming the
object; output file names come only from names of a fixed pattern; impossible values are
reported, never compared; text from files reaches the terminal escaped.

The inputs are copies of the known-value file (known_values.py) edited with h5py, so that each
test changes exactly one thing."""
import math
import os
import shutil

import h5py
import numpy as np
import pytest
from conftest import assert_error, assert_ok, run_cli

from fabricbench_analysis.checks import check as check_mod
from fabricbench_analysis import cli
from fabricbench_analysis.reading import loading
from fabricbench_analysis.model import hostile
from fabricbench_analysis.model.errors import AnalysisError

RUN = "runs/run_0000"
LAT = RUN + "/kernels/00_latency"
BW = RUN + "/kernels/01_bw"
ESC = "\x1b[2J\x1b[31mred\x07\nforged line\x9b1m"


def _ids(f):
    """The kernel groups of the known file are the template's: latency first, bw second."""
    ks = sorted(f[RUN + "/kernels"])
    assert [f[RUN + "/kernels/" + k].attrs["kernel"] for k in ks[:2]] == ["latency", "bw"], ks
    return ks


def edited(known, tmp_path, fn, name="edited.h5"):
    dst = str(tmp_path / name)
    shutil.copyfile(known.base, dst)
    with h5py.File(dst, "r+") as f:
        _ids(f)
        fn(f)
    return dst


def replace(group, name, data):
    attrs = dict(group[name].attrs)
    del group[name]
    ds = group.create_dataset(name, data=data)
    for a, v in attrs.items():
        ds.attrs[a] = v


def load_error(path):
    """The AnalysisError loading `path` raises (its code must be 3)."""
    with pytest.raises(AnalysisError) as e:
        loading.load([path])
    assert e.value.code == 3, e.value.message
    assert "\n" not in e.value.message
    return e.value.message


def assert_hostile(p, *phrases):
    """Exit 3, exactly one error line (and its hint), nothing on standard output."""
    assert_error(p, 3, *phrases)
    lines = [ln for ln in p.stderr.splitlines() if ": note: " not in ln]
    assert len(lines) == 2 and lines[0].startswith("fabricbench-analyze: error: ") and \
        lines[1].startswith("hint: "), p.stderr
    assert p.stdout == "", p.stdout


# --- A: every object checked before use ------------------------------------------------------

COMMANDS = [("summary",), ("compare", "BASE"), ("plot", "-o", "OUT"), ("report", "-o", "OUT"),
            ("check", "--baseline", "BASE"), ("export", "--csv")]


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_2d_column_every_command(known, tmp_path, cmd):
    """Was exit 5 ("a bug"), and export printed the 2-D values."""
    bad = edited(known, tmp_path, lambda f: replace(
        f[LAT + "/table"], "p50_us", np.stack([f[LAT + "/table/p50_us"][()]] * 2, axis=1)))
    args = [known.base if a == "BASE" else str(tmp_path / "out") if a == "OUT" else a
            for a in cmd] + [bad]
    p = run_cli(*args)
    assert_hostile(p, bad + ": /runs/run_0000/kernels/00_latency/table/p50_us is a 2-D dataset "
                   "of shape (4, 2); a table column is 1-D")
    assert not (tmp_path / "out").exists() or not os.listdir(tmp_path / "out")


def test_column_of_strings(known, tmp_path):
    """Was exit 5, and export printed the strings as values."""
    bad = edited(known, tmp_path, lambda f: replace(
        f[LAT + "/table"], "p50_us", np.array(["1", "2", "3", "4"], dtype=h5py.string_dtype())))
    for cmd in ("summary", "export"):
        assert_hostile(run_cli(cmd, bad), "/runs/run_0000/kernels/00_latency/table/p50_us "
                       "holds strings; a table column holds floating-point numbers")


@pytest.mark.parametrize("data, says", [
    (np.array(["float", "\x1b[31mred", "", ""], dtype=h5py.string_dtype()),
     "type row 1 (1024 B) is '\\x1B[31mred', not a name"),
    (np.array(["x" * 40] * 4, dtype=h5py.string_dtype()), "type row 0 (8 B) is 'xxxx"),
    (np.array([1.0, 2.0, 3.0, 4.0]), "type holds floating-point numbers; a table column of "
     "text holds strings"),
])
def test_text_column_is_a_short_name(known, tmp_path, data, says):
    """A collective's type and redop are names: escape sequences, long strings and numbers
    where text belongs are refused (exit 3), naming the row."""
    bad = edited(known, tmp_path, lambda f: replace(f[BW + "/table"], "type", data))
    msg = load_error(bad)
    assert "/runs/run_0000/kernels/01_bw/table/" + says in msg, msg
    assert "\x1b" not in msg


def test_unknown_text_column_is_a_note(known, tmp_path):
    """A text column the analysis does not know (a newer tool's) is not read, and said so;
    the docs' rule: readers ignore names they do not know. (Before the schema had text
    columns, a column of strings was refused as not numbers.)"""
    def add(f):
        t = f[BW + "/table"]
        t.create_dataset("future", data=np.array(["a"] * len(t["bytes"]),
                                                 dtype=h5py.string_dtype()))
        t.attrs["columns"] = t.attrs["columns"] + ",future"
    good = edited(known, tmp_path, add)
    assert "future" not in loading.load([good]).columns
    p = run_cli("summary", good)
    assert_ok(p)
    assert "column future holds text this analysis does not know" in p.stderr, p.stderr


# (what to do to the known file, what the one error line must say)
CASES = {
    "array_for_scalar": (lambda f: f[RUN].attrs.__setitem__("nranks", np.array([2, 3])),
                         "the attribute nranks of /runs/run_0000 is an array of shape (2,); "
                         "one value (an integer) is expected"),
    "2d_attribute": (lambda f: f[LAT].attrs.__setitem__("window", np.zeros((2, 2), np.int64)),
                     "the attribute window of /runs/run_0000/kernels/00_latency is an array of "
                     "shape (2, 2)"),
    "number_for_string": (lambda f: f[RUN].attrs.__setitem__("fabric", np.int64(7)),
                          "the attribute fabric of /runs/run_0000 is an integer; a string is "
                          "expected"),
    "string_for_number": (lambda f: f[RUN].attrs.__setitem__("nranks", "2"),
                          "the attribute nranks of /runs/run_0000 is a string; an integer is "
                          "expected"),
    "float_for_int": (lambda f: f[LAT].attrs.__setitem__("window", np.float64(1.5)),
                      "the attribute window of /runs/run_0000/kernels/00_latency is a "
                      "floating-point number; an integer is expected"),
    "boolean": (lambda f: f[RUN].attrs.__setitem__("nhosts", np.bool_(True)),
                "the attribute nhosts of /runs/run_0000 is an enumeration"),
    "empty_attribute": (lambda f: f[RUN].attrs.__setitem__("line_rate_gbps", h5py.Empty("f8")),
                        "the attribute line_rate_gbps of /runs/run_0000 holds no value"),
    "not_utf8_attribute": (lambda f: f[RUN].attrs.create(
        "fabric", np.array(b"ib\xff0", dtype=h5py.string_dtype()),
        dtype=h5py.string_dtype()),
        "the attribute fabric of /runs/run_0000 is not valid UTF-8 (byte 0xFF at offset 2)"),
    "not_utf8_fixed_length": (lambda f: f[RUN].attrs.__setitem__("status", np.bytes_(b"ok\xfe")),
                              "the attribute status of /runs/run_0000 is not valid UTF-8"),
    "not_utf8_hostname": (lambda f: replace(f[RUN], "hostnames", np.array(
        [b"a", b"b\xff"], dtype=h5py.string_dtype())),
        "/runs/run_0000/hostnames element 1 is not valid UTF-8"),
    "hostnames_2d": (lambda f: replace(f[RUN], "hostnames", np.array(
        [["a", "b"], ["a", "b"]], dtype=h5py.string_dtype())),
        "/runs/run_0000/hostnames is a 2-D dataset"),
    "hostnames_numbers": (lambda f: replace(f[RUN], "hostnames", np.arange(2)),
                          "/runs/run_0000/hostnames holds integers; the hostnames dataset holds "
                          "strings"),
    "schema_version_array": (lambda f: f.attrs.__setitem__("schema_version", np.array([1, 1])),
                             "the attribute schema_version of / is an array"),
    "schema_number": (lambda f: f.attrs.__setitem__("schema", np.float64(1.0)),
                      "the attribute schema of / is a floating-point number; a string is "
                      "expected"),
    "columns_shorter": (lambda f: replace(f[LAT + "/table"], "p99_us",
                                          f[LAT + "/table/p99_us"][:3]),
                        "/runs/run_0000/kernels/00_latency/table/p99_us has 3 rows, "
                        "/runs/run_0000/kernels/00_latency/table/bytes 4"),
    "scalar_column": (lambda f: replace(f[LAT + "/table"], "mean_us", 1.0),
                      "/runs/run_0000/kernels/00_latency/table/mean_us is a scalar dataset"),
    "float_bytes": (lambda f: replace(f[LAT + "/table"], "bytes", np.array([8.0, 1024, 65536,
                                                                          1048576])),
                    "/runs/run_0000/kernels/00_latency/table/bytes holds floating-point "
                    "numbers; a table column holds integers"),
    "integer_times": (lambda f: replace(f[LAT + "/table"], "p50_us", np.arange(4)),
                      "/runs/run_0000/kernels/00_latency/table/p50_us holds integers"),
    "compound_column": (lambda f: replace(f[LAT + "/table"], "max_us", np.zeros(
        4, dtype=[("a", "<i4"), ("b", "<f8")])),
        "/runs/run_0000/kernels/00_latency/table/max_us holds values of another type"),
    "table_is_dataset": (lambda f: (f[LAT].__delitem__("table"),
                                    f[LAT].__setitem__("table", np.arange(3))),
                         "/runs/run_0000/kernels/00_latency/table is a dataset; fabricbench "
                         "writes a group there"),
    "runs_is_dataset": (lambda f: (f.__delitem__("runs"), f.__setitem__("runs", np.arange(3))),
                        "/runs is a dataset; fabricbench writes a group there"),
    "kernel_is_dataset": (lambda f: (f[RUN + "/kernels"].__delitem__("00_latency"),
                                     f[RUN + "/kernels"].__setitem__("00_latency", [1.0])),
                          "/runs/run_0000/kernels/00_latency is a dataset"),
    "soft_link": (lambda f: (f[LAT].__delitem__("table"),
                             f[LAT].__setitem__("table", h5py.SoftLink("/" + BW + "/table"))),
                  "/runs/run_0000/kernels/00_latency/table is a soft link"),
    "external_link": (lambda f: (f[RUN].__delitem__("kernels"), f[RUN].__setitem__(
        "kernels", h5py.ExternalLink("/etc/passwd", "/"))),
        "/runs/run_0000/kernels is a link into another file"),
    "run_name": (lambda f: f["runs"].move("run_0000", "run_0000\x1b[31m"),
                 "/runs/run_0000\\x1B[31m is not named run_NNNN"),
    "kernel_group_name": (lambda f: f[RUN + "/kernels"].move("00_latency", ".."),
                          "/runs/run_0000/kernels/.. is not named NN_KERNEL"),
    "kernel_group_not_utf8": (lambda f: f[RUN + "/kernels"].move("00_latency", b"00_l\xffx"),
                              "/runs/run_0000/kernels/00_l\\xFFx is not named NN_KERNEL"),
    "unknown_kind": (lambda f: f[LAT].attrs.__setitem__("kind", "telepathy"),
                     "the attribute kind of /runs/run_0000/kernels/00_latency is 'telepathy'; it "
                     "is one of latency, bandwidth, collective"),
    "column_name": (lambda f: f[LAT + "/table"].attrs.__setitem__(
        "columns", f[LAT + "/table"].attrs["columns"] + ",x y"),
        "the attribute columns of /runs/run_0000/kernels/00_latency/table names a column 'x y'"),
    "column_twice": (lambda f: f[LAT + "/table"].attrs.__setitem__(
        "columns", f[LAT + "/table"].attrs["columns"] + ",p50_us"),
        "lists p50_us twice"),
    "reserved_column_name": (lambda f: (
        f[LAT + "/table"].__setitem__("label", np.arange(4.0)),
        f[LAT + "/table"].attrs.__setitem__("columns",
                                            f[LAT + "/table"].attrs["columns"] + ",label")),
        "/runs/run_0000/kernels/00_latency/table/label is named like a column the analysis "
        "adds itself"),
    "no_bytes_column": (lambda f: f[LAT + "/table"].__delitem__("bytes"),
                        "/runs/run_0000/kernels/00_latency/table has no bytes column"),
    "units_number": (lambda f: f[LAT + "/table/p50_us"].attrs.__setitem__("units", np.int64(1)),
                     "the attribute units of /runs/run_0000/kernels/00_latency/table/p50_us is "
                     "an integer; a string is expected"),
    "too_many_rows": (lambda f: [f[LAT + "/table/" + c].resize((hostile.MAX_ROWS + 1,))
                                 for c in f[LAT + "/table"]],
                      "/runs/run_0000/kernels/00_latency/table/"),
    "samples_2d": (lambda f: f[LAT].create_group("samples").create_dataset(
        "8", data=np.ones((10, 2))),
        "/runs/run_0000/kernels/00_latency/samples/8 is a 2-D dataset"),
    "samples_strings": (lambda f: f[LAT].create_group("samples").create_dataset(
        "8", data=np.array(["1"] * 10, dtype=h5py.string_dtype())),
        "/runs/run_0000/kernels/00_latency/samples/8 holds strings"),
    "nranks_zero": (lambda f: f[RUN].attrs.__setitem__("nranks", np.int64(0)),
                    "the attribute nranks of /runs/run_0000 is 0; it cannot be below 1"),
    "line_rate_infinite": (lambda f: f[RUN].attrs.__setitem__("line_rate_gbps",
                                                              np.float64("inf")),
                           "the attribute line_rate_gbps of /runs/run_0000 is inf: impossible"),
    # the FABRICBENCH_* variables of a run (its env group) say what was measured (grouping.py)
    "env_option_number": (lambda f: f[RUN + "/env"].attrs.__setitem__("FABRICBENCH_SIZES",
                                                                      np.int64(8)),
                          "the attribute FABRICBENCH_SIZES of /runs/run_0000/env is an "
                          "integer; a string is expected"),
    "env_option_not_utf8": (lambda f: f[RUN + "/env"].attrs.__setitem__(
        "FABRICBENCH_SIZES", np.void(b"8\xff")),
        "the attribute FABRICBENCH_SIZES of /runs/run_0000/env is an opaque value"),
    "env_is_dataset": (lambda f: (f[RUN].__delitem__("env"), f[RUN].__setitem__(
        "env", np.arange(3))), "/runs/run_0000/env is a dataset; fabricbench writes a group"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_mismatch_is_one_line_naming_the_object(known, tmp_path, case):
    fn, says = CASES[case]
    bad = edited(known, tmp_path, fn)
    msg = load_error(bad)
    assert says in msg, msg
    assert msg.startswith(bad), msg


@pytest.mark.parametrize("case", ["array_for_scalar", "not_utf8_attribute", "string_for_number"])
def test_mismatch_through_the_launcher(known, tmp_path, case):
    fn, says = CASES[case]
    bad = edited(known, tmp_path, fn)
    for cmd in ("summary", "export"):
        assert_hostile(run_cli(cmd, bad), says)


def test_extra_objects_stay_allowed(known, tmp_path):
    """The schema grows: an unknown numeric column, attribute, dataset or group is fine."""
    def grow(f):
        t = f[LAT + "/table"]
        t["zz_new_us"] = np.arange(4.0)
        t["zz_new_us"].attrs["units"] = "us"
        t.attrs["columns"] = t.attrs["columns"] + ",zz_new_us"
        f[RUN].attrs["a_new_attribute"] = np.array([1, 2, 3])
        f[LAT].attrs["a_new_attribute"] = "x"
        f[RUN]["new_dataset"] = np.ones((3, 3))
        f[RUN].create_group("new_group")
    good = edited(known, tmp_path, grow)
    t = loading.load([good])
    assert "zz_new_us" in t.columns and t.units["zz_new_us"] == "us"
    assert [r["zz_new_us"] for r in t.where(kernel="latency")] == [0.0, 1.0, 2.0, 3.0]
    p = run_cli("export", good, "--columns", "kernel,bytes,zz_new_us")
    assert_ok(p)
    assert p.stderr == ""
    assert "latency,8,0.0" in p.stdout


def test_listed_column_absent_is_a_note(known, tmp_path):
    bad = edited(known, tmp_path, lambda f: f[LAT + "/table"].__delitem__("p99_us"))
    p = run_cli("summary", bad)
    assert_ok(p)
    assert "column p99_us is listed but absent" in p.stderr


def test_huge_integers_are_values(known, tmp_path):
    """The largest uint64 is a message size the analysis can print and check (no overflow)."""
    def huge(f):
        b = f[LAT + "/table/bytes"]
        b[3] = np.uint64(2 ** 64 - 1)
    good = edited(known, tmp_path, huge)
    for cmd in (("summary",), ("export",), ("check", "--baseline", known.base)):
        p = run_cli(*(cmd + (good,)))
        assert p.returncode in (0, 1), p.stderr
        assert "Traceback" not in p.stderr
    p = run_cli("export", good, "--columns", "kernel,bytes")
    assert "latency,18446744073709551615" in p.stdout


# --- B: output names only from the tool's own words ------------------------------------------

@pytest.mark.parametrize("name", ["../x", "../../escape", "/tmp/abs-plot", "a/b", "x\x1b", "",
                                  "Latency", "bw.png"])
def test_kernel_name_outside_the_pattern(known, tmp_path, name):
    """plot made NAME.png from the kernel attribute: '../x' wrote outside -o DIR."""
    bad = edited(known, tmp_path, lambda f: f[LAT].attrs.__setitem__("kernel", name))
    out = tmp_path / "sub" / "plots"
    before = set(os.listdir(tmp_path))
    p = run_cli("plot", bad, "-o", out)
    assert_hostile(p, "the attribute kernel of /runs/run_0000/kernels/00_latency is '%s', not "
                   "a kernel name" % hostile.safe_text(name))
    assert set(os.listdir(tmp_path)) == before | {"sub"} or set(os.listdir(tmp_path)) == before
    assert not os.path.exists("/tmp/abs-plot.png")


def test_plot_refuses_a_name_that_is_not_a_plain_word(known, tmp_path):
    """The guard in plot.save itself: even a table made without loading cannot name a file
    outside the directory."""
    from fabricbench_analysis.render import plot
    t = loading.load([known.base])
    for r in t.rows:
        if r["kernel"] == "latency":
            r["kernel"] = "../escape"
    with pytest.raises(AnalysisError) as e:
        plot.save(t, str(tmp_path / "plots"), ["png"])
    assert "not a plain file name" in e.value.message
    assert not (tmp_path / "escape.png").exists()


def test_plot_names_are_kernel_names(known, tmp_path):
    p = run_cli("plot", known.base, "-o", tmp_path / "plots", "--format", "png")
    assert_ok(p)
    names = sorted(os.listdir(tmp_path / "plots"))
    assert names == ["allreduce_busbw.png", "allreduce_time.png", "bw.png", "latency.png"]
    assert all(hostile.KERNEL_NAME.match(n[:-4].replace("_busbw", "").replace("_time", ""))
               for n in names)


# --- C: impossible values are reported as such, never compared -------------------------------

def test_negative_latency_is_not_better(known, tmp_path):
    """check used to answer a negative latency with 'better by 164%'."""
    def negative(f):
        f[LAT + "/table/p50_us"][0] = -0.64
    bad = edited(known, tmp_path, negative)
    p = run_cli("check", "--baseline", known.base, bad)
    assert_hostile(p, "/runs/run_0000/kernels/00_latency/table/p50_us row 0 (8 B) is -0.64: "
                   "impossible, a time cannot be negative")
    assert "better" not in p.stdout + p.stderr and "%" not in p.stdout


@pytest.mark.parametrize("column,value,says", [
    ("MBps", math.nan, "MBps row 1 (1024 B) is NaN: impossible, a measured rate of a row with "
     "timed iterations is a number"),
    ("MBps", -5.0, "MBps row 1 (1024 B) is -5.0: impossible, a measured rate cannot be "
     "negative"),
    ("Gbps", math.inf, "Gbps row 1 (1024 B) is inf: impossible, a measured rate is finite"),
    ("p99_us", 1e308, "p99_us row 1 (1024 B) is 1e+308: impossible, a time is at most 1e+15"),
    ("stddev_us", -math.inf, "stddev_us row 1 (1024 B) is -inf: impossible"),
    ("slowest_share", 1.5, "slowest_share row 1 (1024 B) is 1.5: impossible, a share is at most 1"),
    ("iterations", -1, "iterations row 1 (1024 B) is -1: impossible, a count of iterations is at "
     "least 0"),
    ("percentiles_exact", 7, "percentiles_exact row 1 (1024 B) is 7: impossible, a flag is 0 or "
     "1"),
    ("validation_errors", -2, "validation_errors row 1 (1024 B) is -2: impossible"),
])
def test_impossible_values(known, tmp_path, column, value, says):
    def put(f):
        ds = f[BW + "/table/" + column]
        if ds.dtype.kind == "u" and value < 0:
            replace(f[BW + "/table"], column, ds[()].astype(np.int64))
            ds = f[BW + "/table/" + column]
        ds[1] = value
    bad = edited(known, tmp_path, put)
    msg = load_error(bad)
    assert "/runs/run_0000/kernels/01_bw/table/" + says in msg, msg


def test_nan_time_is_not_available(known, tmp_path):
    """NaN in a time column is 'not available' (p9999_us of old files), not impossible."""
    def nan(f):
        f[LAT + "/table/p999_us"][0] = math.nan
    good = edited(known, tmp_path, nan)
    t = loading.load([good])
    assert math.isnan(t.where(kernel="latency", bytes=8)[0]["p999_us"])


def test_check_judges_an_impossible_value_in_a_table(known):
    """A table made without loading (the loader refuses such files) still gets a FAIL naming
    the value as impossible, with no change and no percentage."""
    base = loading.load([known.base])
    cur = loading.load([known.base])
    for r in cur.rows:
        if r["kernel"] == "latency" and r["bytes"] == 8:
            r["p50_us"] = -0.64
        if r["kernel"] == "bw" and r["bytes"] == 1024:
            r["MBps"] = math.inf
    res = check_mod.check(base, cur, 0.1)
    items = {(i["kernel"], i["bytes"]): i for i in res["files"][0]["checks"] if i["bytes"]}
    lat, bw = items[("latency", 8)], items[("bw", 1024)]
    assert lat["status"] == "FAIL" and lat["change"] is None
    assert lat["reason"] == ("impossible value in this run: p50_us is -0.64 (a time cannot be "
                             "negative); not compared")
    assert bw["status"] == "FAIL" and "impossible value in this run: MBps is inf" in bw["reason"]
    text = check_mod.render_text(res)
    line = [ln for ln in text.splitlines() if "impossible" in ln and "latency" in ln][0]
    assert "%" not in line.split("impossible")[0] and "better" not in line
    assert res["result"] == "FAIL"


# --- D: control characters from files are escaped --------------------------------------------

def _hostile_text(f):
    f[RUN].attrs["fabric"] = "ib" + ESC
    f[RUN].attrs["command_line"] = "fabricbench run" + ESC
    f[RUN].attrs["status"] = "interrupted"
    f[RUN].attrs["stop_reason"] = "SIG" + ESC
    f[RUN].attrs["mpi_library"] = "Open MPI" + ESC
    replace(f[RUN], "hostnames", np.array(["node" + ESC, "n2"], dtype=h5py.string_dtype()))


def _raw_controls(text):
    return [hex(ord(c)) for c in text if (ord(c) < 0x20 and c not in "\n\t") or
            0x7F <= ord(c) <= 0x9F]


def test_control_characters_escaped(known, tmp_path):
    bad = edited(known, tmp_path, _hostile_text)
    escaped = "ib\\x1B[2J\\x1B[31mred\\x07\\x0Aforged line\\u009B1m"
    for args in (("summary", bad), ("summary", "--csv", bad), ("compare", known.base, bad),
                 ("check", "--baseline", known.base, bad), ("report", "-o", "-", bad),
                 ("export", bad)):
        p = run_cli(*args)
        assert p.returncode in (0, 1), (args, p.stderr)
        assert not _raw_controls(p.stdout), (args, _raw_controls(p.stdout))
        assert not _raw_controls(p.stderr), (args, p.stderr)
        assert "forged line" not in "".join(
            ln for ln in (p.stdout + p.stderr).splitlines() if ln.startswith("forged")), args
    p = run_cli("summary", bad)
    assert escaped in p.stdout
    assert "node\\x1B[2J" in p.stdout  # the hosts column
    assert "interrupted (SIG\\x1B[2J" in p.stderr  # the loading note
    p = run_cli("report", "-o", "-", bad)
    assert "fabricbench run\\x1B[2J" in p.stdout  # the command line, in the page


def test_safe_text():
    assert hostile.safe_text("a\x1b[0m\tb\n\x7f\x9b\u00e9") == \
        "a\\x1B[0m\\x09b\\x0A\\x7F\\u009B\u00e9"
    assert hostile.safe_text("x\udcff") == "x\\xFF"  # a byte that was not UTF-8
    assert hostile.safe_text("a\u202eb\u2028") == "a\\u202Eb\\u2028"  # bidi, line separator
    assert hostile.safe_text("plain: latency 8 B") == "plain: latency 8 B"


def test_dollar_in_a_label_plots(known, tmp_path):
    """matplotlib reads $...$ as a formula: a fabric name with one must not break a plot."""
    odd = edited(known, tmp_path, lambda f: f[RUN].attrs.__setitem__("fabric", "$\\frac{x"))
    p = run_cli("plot", odd, "-o", tmp_path / "plots", "--format", "png")
    assert_ok(p)


def test_hostile_kernel_options_plot(known, tmp_path):
    """A kernel's own options come from the file: an option named like a formula, a value
    that is no number, one beyond any measurement; the plot is drawn (against what remains a
    number), the table row escapes the text."""
    dst = str(tmp_path / "opts.h5")
    shutil.copyfile(known.grad_buckets, dst)
    with h5py.File(dst, "r+") as f:
        for i, name in enumerate(sorted(f["runs"])):
            k = f["runs"][name]["kernels"]
            kid = [x for x in k if k[x].attrs["kernel"] == "gradsync"][0]
            k[kid].attrs["options"] = "params=1e+08 $\\frac{x=%d weird=%s huge=%s" % (
                i + 1, "a\x1b[31m" if i % 2 else "b", "1e300" if i else "1")
    p = run_cli("plot", dst, "-o", tmp_path / "plots", "--format", "png,svg")
    assert_ok(p)
    assert (tmp_path / "plots" / "gradsync_time.png").exists()
    out = tmp_path / "r.html"
    assert_ok(run_cli("report", dst, "-o", out))
    assert "\x1b" not in out.read_text(encoding="utf-8")


def test_error_line_of_a_path_with_a_newline(known, tmp_path):
    """A path given on the command line is escaped too: still one line."""
    weird = tmp_path / "a\nb.h5"
    p = run_cli("summary", weird)
    assert_error(p, 3, "a\\x0Ab.h5: no such file")
    assert len(p.stderr.splitlines()) == 2


def test_cli_main_in_process(known, tmp_path, capsys):
    """The same through cli.main (what the launcher calls): exit 3, one line."""
    bad = edited(known, tmp_path, CASES["array_for_scalar"][0])
    assert cli.main(["export", bad]) == 3
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.splitlines()
    assert len(lines) == 2 and "is an array of shape (2,)" in lines[0], cap.err
