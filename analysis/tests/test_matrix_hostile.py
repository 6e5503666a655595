# SPDX-License-Identifier: BSD-3-Clause
"""Hostile matrices: copies of the known healthy pairs file with one object of its `matrix`
group edited. Every command that reads matrices (matrix, plot, report, check) ends with exit 3
and one error line naming the object, never a traceback; text from the file is escaped."""
import shutil
import types

import h5py
import numpy as np
import pytest
from conftest import assert_error, run_cli

M = "/runs/run_0000/kernels/01_pairs_bw/matrix"


def _edit(pairs, tmp_path, fn, src=None):
    path = str(tmp_path / "hostile.h5")
    shutil.copyfile(src or pairs.healthy, path)
    with h5py.File(path, "r+") as f:
        fn(f[M])
    return path


def _replace(g, name, data, **kw):
    del g[name]
    g.create_dataset(name, data=data, **kw)


def _to_dataset(g):
    k = g.parent
    del k["matrix"]
    k.create_dataset("matrix", data=[1])


def _one_error(p, *phrases):
    assert_error(p, 3, *phrases)
    errors = [x for x in p.stderr.splitlines() if x.startswith("fabricbench-analyze: error:")]
    assert len(errors) == 1, p.stderr
    assert "hint: " in p.stderr


CASES = {
    "not square": (lambda g: _replace(g, "bw_MBps", np.full((8, 7), 1000.0)),
                   [M + "/bw_MBps has shape (8, 7); with 8 members it is 8 x 8"]),
    "1-D": (lambda g: _replace(g, "bw_MBps", np.full(64, 1000.0)),
            [M + "/bw_MBps has shape (64); with 8 members it is 8 x 8"]),
    "integers": (lambda g: _replace(g, "bw_MBps", np.full((8, 8), 1000, dtype=np.int32)),
                 [M + "/bw_MBps holds integers; it holds floating-point numbers"]),
    "strings": (lambda g: _replace(g, "bw_MBps", np.array([["x"] * 8] * 8, dtype="S3")),
                [M + "/bw_MBps holds strings"]),
    "names count": (lambda g: _replace(g, "nodes", np.array([b"a"] * 7, dtype=object),
                                       dtype=h5py.string_dtype()),
                    [M + "/nodes has 7 names; the attribute members says 8"]),
    "names twice": (lambda g: _replace(g, "nodes", np.array([b"a"] * 8, dtype=object),
                                       dtype=h5py.string_dtype()),
                    [M + "/nodes element 1 is 'a' again (element 0)"]),
    "NaN everywhere": (lambda g: _replace(g, "bw_MBps", np.full((8, 8), np.nan)),
                       [M + "/bw_MBps holds no measured pair (NaN everywhere) although 7 "
                        "rounds are done"]),
    "negative": (lambda g: g["bw_MBps"].__setitem__((2, 3), -5.0),
                 [M + "/bw_MBps [2, 3] is -5.0: impossible"]),
    "infinite": (lambda g: g["line_pct"].__setitem__((0, 1), np.inf),
                 [M + "/line_pct [0, 1] is inf: impossible"]),
    "huge n": (lambda g: g.attrs.__setitem__("members", np.int64(10 ** 9)),
               ["the attribute members of " + M + " is 1000000000; fabricbench-analyze reads "
                "matrices of at most 4096 members"]),
    "huge dataset": (lambda g: _replace(g, "bw_MBps", None, shape=(10 ** 6, 10 ** 6),
                                        dtype="f8", chunks=(64, 64)),
                     [M + "/bw_MBps has shape (1000000, 1000000); with 8 members"]),
    "members array": (lambda g: g.attrs.__setitem__("members", np.arange(8)),
                      ["the attribute members of " + M + " is an array of shape (8,)"]),
    "schedule": (lambda g: g.attrs.__setitem__("schedule", "chaos"),
                 ["the attribute schedule of " + M + " is 'chaos'; it is one of rounds, "
                  "serial, shift"]),
    "verdict": (lambda g: g.attrs.__setitem__("verdict", np.int64(1)),
                ["the attribute verdict of " + M + " is an integer; a string is expected"]),
    "rounds_done": (lambda g: g.attrs.__setitem__("rounds_done", np.int64(99)),
                    ["the attribute rounds_done of " + M + " is 99, more than the 7 rounds"]),
    "pair_slow float": (lambda g: _replace(g, "pair_slow", np.zeros((8, 8))),
                        [M + "/pair_slow holds floating-point numbers; it holds integers"]),
    "pair_slow range": (lambda g: _replace(g, "pair_slow", np.full((8, 8), 300, np.int32)),
                        [M + "/pair_slow [0, 0] is 300: impossible"]),
    "node_switch": (lambda g: _replace(g, "node_switch", np.full(8, 5, np.int32)),
                    [M + "/node_switch [0] is 5: impossible, a switch index is -1 to 1"]),
    "node_suspect len": (lambda g: _replace(g, "node_suspect", np.full(3, -1, np.int32)),
                         [M + "/node_suspect has 3 elements; with 8 members it has 8"]),
    "suspects not UTF-8": (lambda g: _replace(g, "suspects", np.array([b"node: \xff"],
                                                                      dtype="S9")),
                           [M + "/suspects element 0 is not valid UTF-8"]),
    "suspects missing": (lambda g: g.attrs.__setitem__("verdict", "suspects"),
                         ["the attribute verdict of " + M + " is 'suspects' but the suspects "
                          "dataset names none"]),
    "matrix a dataset": (lambda g: _to_dataset(g),
                         [M + " is a dataset; fabricbench writes a group there"]),
    "soft link": (lambda g: (g.__delitem__("bw_MBps"),
                             g.__setitem__("bw_MBps", h5py.SoftLink(M + "/line_pct"))),
                  [M + "/bw_MBps is a soft link"]),
    "no headline": (lambda g: (g.__delitem__("bw_MBps"),),
                    [M + " has neither bw_MBps nor lat_p50_us"]),
    "retest shape": (lambda g: g.create_dataset("retest_bw_MBps", data=np.zeros((2, 2))),
                     [M + "/retest_bw_MBps has shape (2, 2)"]),
    "retest attr": (lambda g: g.attrs.__setitem__("retest", "maybe"),
                    ["the attribute retest of " + M + " is 'maybe'; it is one of on, off"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_matrix_one_error_line(pairs, tmp_path, capsys, case):
    """In this process (cli.main, as the launcher calls it), to keep the many cases quick;
    test_hostile_matrix_in_every_command goes through the launcher."""
    from fabricbench_analysis import cli

    fn, phrases = CASES[case]
    path = _edit(pairs, tmp_path, fn)
    code = cli.main(["matrix", path])
    out = capsys.readouterr()
    _one_error(types.SimpleNamespace(returncode=code, stdout=out.out, stderr=out.err),
               *phrases)


@pytest.mark.parametrize("case", ["not square", "NaN everywhere", "huge n"])
def test_hostile_matrix_in_every_command(pairs, tmp_path, case):
    fn, phrases = CASES[case]
    path = _edit(pairs, tmp_path, fn)
    _one_error(run_cli("plot", path, "-o", tmp_path / "plots"), *phrases)
    _one_error(run_cli("report", path, "-o", tmp_path / "r.html"), *phrases)
    _one_error(run_cli("check", "--baseline", pairs.healthy, path), *phrases)
    _one_error(run_cli("check", "--baseline", path, pairs.healthy), *phrases)


def test_names_and_suspects_escaped(pairs, tmp_path):
    evil = ["sw1-\x1b[31mred", "sw1-n02\u202e", "sw1-n03\nforged: line", "sw1-$x$"] + \
        ["sw2-n%02d" % i for i in range(5, 9)]

    def fn(g):
        _replace(g, "nodes", np.array(evil, dtype=object), dtype=h5py.string_dtype())
        _replace(g, "suspects", np.array(["node: \x1b[2J cleared"], dtype=object),
                 dtype=h5py.string_dtype())
        g.attrs["verdict"] = "suspects"

    path = _edit(pairs, tmp_path, fn, src=pairs.node)  # a verdict with suspects: believed
    p = run_cli("matrix", path, "--kernel", "pairs_bw")
    assert p.returncode == 1, p.stderr
    assert "\x1b" not in p.stdout and "\u202e" not in p.stdout
    assert "sw1-\\x1B[31mred" in p.stdout and "sw1-n02\\u202E" in p.stdout
    assert "sw1-n03\\x0Aforged: line" in p.stdout
    assert "suspect node: \\x1B[2J cleared" in p.stdout
    assert not any(x.startswith("forged") for x in p.stdout.splitlines())
    # the heatmap draws '$' as text, not as a formula
    out = tmp_path / "plots"
    p = run_cli("plot", path, "-o", out, "--format", "png")
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in out.iterdir() if "matrix" in x.name) == [
        "pairs_bw_matrix.png", "pairs_latency_matrix.png"]


def test_hostile_kernel_name_never_a_file_name(pairs, tmp_path):
    path = str(tmp_path / "k.h5")
    shutil.copyfile(pairs.healthy, path)
    with h5py.File(path, "r+") as f:
        f["/runs/run_0000/kernels/01_pairs_bw"].attrs["kernel"] = "../../evil"
    _one_error(run_cli("matrix", path), "the attribute kernel of "
               "/runs/run_0000/kernels/01_pairs_bw is '../../evil'")


# --- the verdict is recomputed from the pairs, never believed (matrix_verdict.py) ------------

def _lie_healthy(g, traces=False):
    """The verdict of the file with a bad node (sw2-n06 slow with its 7 peers) set to healthy;
    with traces, also its suspects, counts, pair_slow bits and node_suspect wiped, as a
    careful editor would: only the pair values are left to tell."""
    g.attrs["verdict"] = "healthy"
    if traces:
        _replace(g, "suspects", np.array([], dtype=object), dtype=h5py.string_dtype())
        slow = np.zeros((8, 8), dtype=np.uint8)
        np.fill_diagonal(slow, 255)
        _replace(g, "pair_slow", slow)
        _replace(g, "node_suspect", np.full(8, -1, np.int32))
        g.attrs["pairs_slow"] = np.int64(0)


LIES = {
    "healthy with suspects": (
        lambda g: _lie_healthy(g), "node",
        "it says healthy, but 7 of its 28 pairs measured are slow by its own values and "
        "thresholds; e.g. sw1-n01 -> sw2-n06 2500 MB/s, below 0.9 of the median pair's 10000, "
        "and it names 1 suspect"),
    "healthy, every trace wiped": (
        lambda g: _lie_healthy(g, traces=True), "node",
        "it says healthy, but 7 of its 28 pairs measured are slow"),
    "suspects on a healthy fabric": (
        lambda g: (g.attrs.__setitem__("verdict", "suspects"),
                   _replace(g, "suspects", np.array(["node: node sw1-n01 (or its link)"],
                                                    dtype=object), dtype=h5py.string_dtype())),
        "healthy", "it names suspects, but none of its 28 pairs measured is slow"),
    "a threshold edited": (
        lambda g: g.attrs.__setitem__("bw_median_MBps", np.float64(2000.0)), "node",
        "it rests on bw_median_MBps 2000.0, but the median pair of bw_MBps is 10000.0"),
    "pair_slow edited": (
        lambda g: g["pair_slow"].__setitem__((0, 5), 0), "node",
        "it marks the pair sw1-n01, sw2-n06 with pair_slow 0, but its own values and "
        "thresholds give 5"),
    "a count edited": (
        lambda g: g.attrs.__setitem__("pairs_slow", np.int64(3)), "node",
        "it counts pairs_slow 3, but its own values and thresholds give 7"),
}


@pytest.mark.parametrize("case", sorted(LIES))
def test_lying_verdict_is_inconsistent(pairs, tmp_path, case):
    """Was: `matrix` printed the verdict the file claimed (healthy, exit 0) whatever its own
    pairs and suspects said."""
    fn, src, phrase = LIES[case]
    path = _edit(pairs, tmp_path, fn, src=getattr(pairs, src))
    p = run_cli("matrix", path)
    _one_error(p, "the verdict of " + M + " is inconsistent: " + phrase,
               "a verdict that disagrees with the file's own pairs is not believed")
    assert p.stdout == ""


def test_lying_verdict_in_every_command(pairs, tmp_path):
    path = _edit(pairs, tmp_path, lambda g: _lie_healthy(g, traces=True), src=pairs.node)
    for args in (("plot", path, "-o", tmp_path / "plots"), ("report", path, "-o", "-"),
                 ("check", "--baseline", pairs.node, path)):
        _one_error(run_cli(*args), "the verdict of " + M + " is inconsistent")


def test_true_verdicts_are_believed(pairs):
    """fabricbench's own verdicts agree with the recomputation: the real run's (retests
    included, judged on this machine's noise), and the known files'."""
    p = run_cli("matrix", pairs.real)
    assert p.returncode == (1 if pairs.real_exit == 1 else 0), p.stderr
    for name, code in (("healthy", 0), ("node", 1), ("pair", 1), ("retest", 0),
                       ("killed", 4)):
        p = run_cli("matrix", getattr(pairs, name))
        assert p.returncode == code, (name, p.stderr)
