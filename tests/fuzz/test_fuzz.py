# SPDX-License-Identifier: BSD-3-Clause
"""Fuzz test of the readers of result files (issue 14): mutants of a good result file, each read
by `fabricbench show` (the ASan/UBSan build under ctest) and by `fabricbench-analyze summary`,
`export`, `check --baseline GOOD` and `matrix`.

The good file is written by the real tool at the start (latency, bw and allreduce at 8 B and
1 KiB, 20 iterations, --samples; then, appended, a pairs_latency run with its matrix group and
retests).
Every object of it (the root's attributes; every group, dataset and attribute of the runs,
the environment, the kernels, their tables, columns, samples and matrices) is mutated in
turn: removed; the wrong type (a string for a number, a number for a string, a boolean, a
compound); the wrong rank (2-D, scalar; a matrix 1-D or not square); the wrong length (one
more, one less, none, more rows than any table has); an array for a scalar; strings for
numbers; huge values (1e308, -1e308, inf, -inf, nan, the largest and smallest
64-bit integers, negative counts); strings that are not UTF-8, or carry control characters, a
path ("../"), or are very long; a group replaced by a dataset, a soft link or a link into
another file; a group emptied or renamed to a hostile name; an unknown extra member.

Each mutant must give:
  show:    exit 0, 3, or 2 (not a fabricbench file / another schema version); no signal, no
           sanitizer report; at most one line on standard error;
  analyze: exit 0 or 3 (check and matrix: also 1, a FAIL or suspects, and 4, nothing in
           common or no verdict); never 5 (a bug), never a traceback; on standard error at most
           one `error:` line and its `hint:` line (besides `note:` lines), nothing else; at
           most 1 MiB on standard output (a string of 500,000 characters is cut when read);
           matrix exit 3 after a mutation that makes the verdict disagree with the pairs (the
           verdict flipped, a pair made 10 times slower than the slowest): never believed;
  both:    standard output and error valid UTF-8 without control characters (but newline and
           tab): text from the file reaches a terminal escaped.

Every object gets at least one mutation (see plan: attribute mutations are packed several to a
mutant, and read again one by one when a reader refuses the pack); then a sample of the other
mutations, shuffled with a fixed seed, up to BUDGET mutants: the run is the same every time
and takes about 45 s on a quiet 2-core machine. The analysis runs in one Python process per
lane that calls the launcher's own entry point, fabricbench_analysis.cli.main, per command
(no interpreter start per call), and that reads each mutant once for the four readers (the
good file once for the run: see WORKER); a few mutants (LAUNCHER_CHECKS) are also read through
the launcher itself, a fresh Python reading every file, whose exit code and error lines must
agree. Two mutants are read at a time
(LANES). The counts of exit codes per reader are printed at the end, then where the time went
(the good file, making the mutants, each reader: the analysis's readers take most of it,
`check` the most, as it reads two files), then every failure with the mutation that caused it.

usage: test_fuzz.py FABRICBENCH SHOW_BINARY ANALYZE_LAUNCHER [--budget N] [--all]
                    [--kinds K,K] [--keep DIR] [--log FILE]
  FABRICBENCH writes the good file; SHOW_BINARY runs `show` on the mutants (the ASan build);
  ANALYZE_LAUNCHER is analysis/fabricbench-analyze. --all: every mutation of every object,
  one per mutant (about 15 minutes); --kinds: only these mutation kinds, every object they
  apply to; --keep DIR: copy failing mutants there; --log FILE: every mutant's outcome as
  JSON Lines."""
import argparse
import json
import os
import queue
import random
import select
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np

_CWD = os.getcwd()  # enter_scratch() below moves to the scratch directory: paths are from here
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from fabtest import WORKDIR, check, enter_scratch, fail, mpirun  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

SEED = 14
BUDGET = 380  # mutants in a default run: those covering every object, then a sample
PACK = 8  # attribute mutations in one mutant at most (see plan)
LANES = 2  # mutants read at the same time (this machine: 2 cores)
LAUNCHER_CHECKS = 6  # mutants also read through the launcher itself
SHOW_OK = (0, 2, 3)
ANALYZE_OK = {"summary": (0, 3), "export": (0, 3), "check": (0, 1, 3, 4), "matrix": (0, 1, 3, 4)}
# What one reader may print of a mutant: every string read from a file is cut at 4096
# characters (docs/ANALYSIS.md, "Bounds"), so a "long" string (LONG characters) never reaches
# an output whole; the good file's outputs are a few KB.
LONG = 500000
OUT_MAX = 1 << 20
# Mutations after which `matrix` must refuse the file (exit 3): a verdict that disagrees with
# the file's own pairs is never believed (flip: the verdict attribute healthy <-> suspects;
# slow_pair: one pair of the headline matrix made 10 times slower than the slowest, a pair
# that was ok).
MUST_REFUSE_MATRIX = ("flip", "slow_pair")
SANITIZER = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
             "AddressSanitizer:DEADLYSIGNAL", "UndefinedBehaviorSanitizer")

# ---------------------------------------------------------------------------------------------
# The objects of the good file and the mutations that apply to each.

ATTR_NUM = ["remove", "type_str", "numstr", "array", "rank2", "empty", "bool", "compound",
            "f1e308", "fneg1e308", "inf", "neginf", "nan", "int_max", "int_min", "uint_max",
            "negative", "float_for_int"]
ATTR_STR = ["remove", "type_num", "array", "rank2", "empty", "bool", "nonutf8", "fixed_nonutf8",
            "control", "path", "abspath", "long", "empty_str", "float_num"]
DS_NUM = ["remove", "strings", "rank2", "scalar", "longer", "shorter", "zero_len", "huge_len",
          "f1e308", "fneg1e308", "inf", "nan", "negative", "int_max", "uint_max",
          "float_for_int", "int_for_float", "bool", "compound", "group", "softlink", "extlink"]
DS_STR = ["remove", "numbers", "rank2", "scalar", "longer", "zero_len", "nonutf8", "control",
          "group", "softlink", "extlink", "long"]
PAIRS_RUN = "/runs/run_0001"  # the appended pairs_latency run (main)
DS_2D = ["remove", "strings", "rank1", "scalar", "nonsquare", "f1e308", "inf", "nan",
         "negative", "int_max", "float_for_int", "int_for_float", "bool", "compound", "group",
         "softlink", "extlink"]  # a pairs kernel's n x n matrices
GROUP = ["remove", "dataset", "softlink", "extlink", "emptied", "rename_dotdot",
         "rename_control", "rename_nonutf8", "extra_dataset"]


def inventory(path):
    """[(kind, object path, attribute name or None, mutation kinds)] of every object."""
    out = []
    with h5py.File(path, "r") as f:
        def attrs_of(obj, opath):
            for name in sorted(obj.attrs):
                v = obj.attrs[name]
                kinds = ATTR_STR if isinstance(v, (str, bytes)) else ATTR_NUM
                if name == "columns":
                    kinds = kinds + ["col_unknown", "col_dup", "col_extra_str", "col_extra_2d"]
                if name == "verdict":
                    kinds = kinds + ["flip"]
                out.append(("attr", opath, name, kinds))

        attrs_of(f, "/")

        def visit(name, obj):
            opath = "/" + name
            # the appended pairs run: only what the first run has not (its matrix); its run
            # attributes and table are mutated in the first run already
            if opath.startswith(PAIRS_RUN) and "/matrix" not in opath:
                return
            if isinstance(obj, h5py.Group):
                out.append(("group", opath, None, GROUP))
            else:
                kinds = DS_STR if h5py.check_string_dtype(obj.dtype) else DS_NUM
                if len(obj.shape) == 2:
                    kinds = DS_2D + (["slow_pair"] if opath.endswith(("/lat_p50_us",
                                                                      "/bw_MBps")) else [])
                out.append(("dataset", opath, None, kinds))
            attrs_of(obj, opath)

        f.visititems(visit)
    return out


# ---------------------------------------------------------------------------------------------
# Applying one mutation (to a copy of the good file, opened r+).

BAD_UTF8 = b"ab\xff\xfe\xc3(cd"
CONTROL = "x\x1b[2J\x1b[31mred\x07\r\nforged line\x9b1m\x7f"


def _vlen(data):
    return np.array(data, dtype=h5py.string_dtype("utf-8"))


def _replace_dataset(parent, name, data, **kw):
    old = parent[name]
    attrs = dict(old.attrs)
    del parent[name]
    ds = parent.create_dataset(name, data=data, **kw)
    for a, v in attrs.items():
        ds.attrs[a] = v
    return ds


def mutate_attr(f, opath, name, kind):
    obj = f[opath]
    v = obj.attrs[name]
    num = np.asarray(v)
    a = obj.attrs
    if kind == "remove":
        del a[name]
    elif kind == "type_str":
        a[name] = "not a number"
    elif kind == "type_num":
        a[name] = np.int64(7)
    elif kind == "float_num":
        a[name] = np.float64(1.5)
    elif kind == "numstr":
        a[name] = str(num.item())
    elif kind == "array":
        a[name] = np.array([num, num]) if not isinstance(v, str) else _vlen([v, v])
    elif kind == "rank2":
        a[name] = np.array([[num, num], [num, num]]) if not isinstance(v, str) else \
            _vlen([[v, v], [v, v]])
    elif kind == "empty":
        a[name] = h5py.Empty("f8" if not isinstance(v, str) else h5py.string_dtype())
    elif kind == "bool":
        a[name] = np.bool_(True)
    elif kind == "compound":
        a[name] = np.zeros((), dtype=[("a", "<i4"), ("b", "<f8")])
    elif kind in VALUES:
        a[name] = VALUES[kind]
    elif kind == "negative":
        a[name] = np.int64(-5) if num.dtype.kind in "iu" else np.float64(-5.0)
    elif kind == "float_for_int":
        a[name] = np.float64(num.item()) + 0.5
    elif kind == "nonutf8":
        a.create(name, _vlen(BAD_UTF8), dtype=h5py.string_dtype("utf-8"))
    elif kind == "fixed_nonutf8":
        a[name] = np.bytes_(BAD_UTF8)
    elif kind == "control":
        a[name] = CONTROL
    elif kind == "path":
        a[name] = "../../fuzz-escape/x"
    elif kind == "abspath":
        a[name] = os.path.join(WORKDIR, "abs-escape", "x")
    elif kind == "long":
        a[name] = "L" * LONG
    elif kind == "flip":
        a[name] = "suspects" if str(v) == "healthy" else "healthy"
    elif kind == "empty_str":
        a[name] = ""
    elif kind == "col_unknown":
        a[name] = str(v) + ",no_such_column"
    elif kind == "col_dup":
        a[name] = str(v) + ",bytes"
    elif kind in ("col_extra_str", "col_extra_2d"):
        n = len(obj["bytes"]) if "bytes" in obj else 2
        extra = "zz_extra"
        obj[extra] = _vlen(["x"] * n) if kind == "col_extra_str" else np.zeros((n, 2))
        a[name] = str(v) + "," + extra
    else:
        raise ValueError(kind)


VALUES = {"f1e308": np.float64(1e308), "fneg1e308": np.float64(-1e308), "inf": np.float64("inf"),
          "neginf": np.float64("-inf"), "nan": np.float64("nan"),
          "int_max": np.int64(2 ** 63 - 1), "int_min": np.int64(-2 ** 63),
          "uint_max": np.uint64(2 ** 64 - 1)}


def mutate_dataset(f, opath, kind):
    parent_path, name = opath.rsplit("/", 1)
    parent = f[parent_path or "/"]
    ds = parent[name]
    data = ds[()]
    n = len(data) if ds.shape else 1
    is_str = h5py.check_string_dtype(ds.dtype) is not None
    if kind == "remove":
        del parent[name]
    elif kind == "strings":
        _replace_dataset(parent, name, _vlen([str(x) for x in np.ravel(data)]).reshape(
            np.shape(data)))
    elif kind == "rank1":
        _replace_dataset(parent, name, np.ravel(data))
    elif kind == "nonsquare":
        _replace_dataset(parent, name, data[:-1])
    elif kind == "numbers":
        _replace_dataset(parent, name, np.arange(n, dtype=np.int64))
    elif kind == "rank2":
        _replace_dataset(parent, name, np.stack([data, data], axis=1))
    elif kind == "scalar":
        _replace_dataset(parent, name, data[0] if n else (b"" if is_str else 0.0))
    elif kind == "longer":
        _replace_dataset(parent, name, np.concatenate([data, data[:1]]) if n else data)
    elif kind == "shorter":
        _replace_dataset(parent, name, data[:-1])
    elif kind == "zero_len":
        _replace_dataset(parent, name, data[:0], maxshape=(None,), chunks=(16,))
    elif kind == "huge_len":
        ds.resize((200000,))  # extensible, as the tool writes them: fill values, no storage
    elif kind in VALUES:
        v = VALUES[kind]
        new = np.array(data)
        if new.dtype.kind == "f" or np.asarray(v).dtype.kind != "f":
            try:
                new[0] = v
            except (OverflowError, ValueError):
                new = new.astype(np.asarray(v).dtype)
                new[0] = v
        else:  # a float value in an integer column: the column becomes floating point
            new = new.astype(np.float64)
            new[0] = v
        _replace_dataset(parent, name, new)
    elif kind == "negative":
        new = np.array(data).astype(np.int64 if data.dtype.kind in "iu" else np.float64)
        new[0] = -5
        _replace_dataset(parent, name, new)
    elif kind == "float_for_int":
        _replace_dataset(parent, name, np.array(data, dtype=np.float64) + 0.5)
    elif kind == "int_for_float":
        _replace_dataset(parent, name, np.nan_to_num(np.array(data)).astype(np.int64))
    elif kind == "bool":
        _replace_dataset(parent, name, np.ones(ds.shape or n, dtype=bool))
    elif kind == "compound":
        _replace_dataset(parent, name, np.zeros(ds.shape or n, dtype=[("a", "<i4"), ("b", "<f8")]))
    elif kind == "group":
        del parent[name]
        parent.create_group(name)
    elif kind == "nonutf8":
        _replace_dataset(parent, name, _vlen([BAD_UTF8] * n))
    elif kind == "control":
        _replace_dataset(parent, name, _vlen([CONTROL] * n))
    elif kind == "long":
        _replace_dataset(parent, name, _vlen(["L" * LONG] * n))
    elif kind == "slow_pair":  # the pair of the first and last member: 10 x the slowest
        new = np.array(data, dtype=np.float64)
        m = new.shape[0] - 1
        v = np.nanmin(new) / 10 if name == "bw_MBps" else np.nanmax(new) * 10
        new[0, m] = new[m, 0] = v
        _replace_dataset(parent, name, new)
    elif kind in ("softlink", "extlink"):
        _link(parent, name, opath, kind)
    else:
        raise ValueError(kind)


def _link(parent, name, opath, kind):
    del parent[name]
    if kind == "softlink":
        parent[name] = h5py.SoftLink(opath.rsplit("/", 1)[0] or "/")  # its own parent: a cycle
    else:  # the same object in the good file: a reader must not follow it into another file
        parent[name] = h5py.ExternalLink(GOOD, opath)


def mutate_group(f, opath, kind):
    parent_path, name = opath.rsplit("/", 1)
    parent = f[parent_path or "/"]
    g = parent[name]
    if kind == "remove":
        del parent[name]
    elif kind == "dataset":
        del parent[name]
        parent[name] = np.arange(3.0)
    elif kind in ("softlink", "extlink"):
        _link(parent, name, opath, kind)
    elif kind == "emptied":
        for k in list(g.keys()):
            del g[k]
    elif kind.startswith("rename_"):
        new = {"rename_dotdot": "..", "rename_control": name + "\x1b[2J\n",
               "rename_nonutf8": name.encode() + b"\xff"}[kind]
        parent.move(name, new)
    elif kind == "extra_dataset":
        g["zz_unknown"] = np.arange(4.0)
    else:
        raise ValueError(kind)


def apply(f, entry, kind):
    what, opath, name, _kinds = entry
    if what == "attr":
        mutate_attr(f, opath, name, kind)
    elif what == "dataset":
        mutate_dataset(f, opath, kind)
    else:
        mutate_group(f, opath, kind)


def make_mutant(good_bytes, path, muts):
    """A copy of the good file with the mutations [(entry, kind)] made. A mutation h5py
    cannot make here (a dataset of fixed size cannot grow) is replaced by the object's next
    kind; returns the mutations made and those that could not be."""
    with open(path, "wb") as out:
        out.write(good_bytes)
    done, notmade = [], []
    with h5py.File(path, "r+") as f:
        for entry, kind in muts:
            for k in [kind] + [k for k in entry[3] if k != kind]:
                try:
                    apply(f, entry, k)
                except Exception as e:
                    notmade.append("%s (%s: %s)" % (describe(entry, k), type(e).__name__, e))
                    continue
                done.append((entry, k))
                break
    return done, notmade


def describe(entry, kind):
    what, opath, name, _kinds = entry
    if what == "attr":
        return "attribute %s of %s: %s" % (name, opath, kind)
    return "%s %s: %s" % (what, opath, kind)


# ---------------------------------------------------------------------------------------------
# Running the readers.

# The analysis, in one process: each request runs fabricbench_analysis.cli.main(argv) with
# sys.stdout and sys.stderr captured, and with file descriptors 1 and 2 sent to a file so
# that the C libraries' own writes are seen too. An exception that escapes main is a traceback.
#
# One reading per file and mutant: the four readers of a mutant read it (and `check` the good
# file) with the same two functions, loading.load and matrix_load.load_matrices, called with
# the same arguments several times (check: the good file and the mutant, rows and matrices;
# matrix: matrices and rows). The worker keeps what each call returned (or the exception it
# raised, and the notes it gave its warn callback) and answers the same call again with a
# deep copy of it (the exception raised again, the notes given again to the new caller's
# callback), until the next mutant is written ("fresh": the mutant's entries are dropped; the
# good file's stay, as it never changes). Every reader still runs its own code on what was
# read, and the first reader of each mutant (summary) reads it from the file, so that what a
# reading prints besides its notes (a Python warning) is seen there.
WORKER = r'''
import copy, inspect, io, json, os, sys, tempfile, traceback, warnings
sys.path.insert(0, sys.argv[1])
os.environ.pop("FABRICBENCH_ANALYZE_DEBUG", None)
warnings.simplefilter("always")  # every warning shows, not only a location's first
from fabricbench_analysis.cli import main
from fabricbench_analysis.reading import loading, matrix_load
KEEP = set(json.loads(sys.argv[2]))  # files that never change: read once
memo = {}

def remember(fn, name):
    sig = inspect.signature(fn)
    def call(*args, **kw):
        bound = sig.bind(*args, **kw)
        bound.apply_defaults()  # the same call however its arguments were given
        warn = bound.arguments.pop("warn")
        paths = tuple(bound.arguments["paths"])
        key = (name, paths, repr(sorted((k, v) for k, v in bound.arguments.items()
                                        if k != "paths")))
        if key not in memo:
            notes = []
            bound.arguments["warn"] = notes.append
            try:
                memo[key] = (fn(*bound.args, **bound.kwargs), None, notes)
            except Exception as e:
                memo[key] = (None, e, notes)
        value, exc, notes = memo[key]
        for msg in notes:
            if warn:
                warn(msg)
        if exc is not None:
            raise exc
        return copy.deepcopy(value)
    return call

loading.load = remember(loading.load, "load")
matrix_load.load_matrices = remember(matrix_load.load_matrices, "matrices")
proto = os.fdopen(os.dup(1), "w")
cap = tempfile.TemporaryFile()
saved = (os.dup(1), os.dup(2))
for line in sys.stdin:
    req = json.loads(line)
    argv = req["argv"]
    if req["fresh"]:
        for key in [k for k in memo if not set(k[1]) <= KEEP]:
            del memo[key]
    cap.seek(0); cap.truncate()
    os.dup2(cap.fileno(), 1); os.dup2(cap.fileno(), 2)
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    tb = None
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 2
    except BaseException:
        rc, tb = None, traceback.format_exc()
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        os.dup2(saved[0], 1); os.dup2(saved[1], 2)
    cap.seek(0)
    raw = cap.read().decode("utf-8", "replace")
    proto.write(json.dumps({"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue() + raw,
                            "traceback": tb}) + "\n")
    proto.flush()
proto.close()
cap.close()
'''


class Analyzer:
    def __init__(self, launcher, keep=()):
        self.pkgdir = os.path.dirname(os.path.realpath(launcher))
        check(os.path.isdir(os.path.join(self.pkgdir, "fabricbench_analysis")),
              "no fabricbench_analysis package next to %s" % launcher)
        self.keep = list(keep)  # files that never change (the good file): read once
        self.p = None
        self.start()

    def start(self):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        self.p = subprocess.Popen([sys.executable, "-c", WORKER, self.pkgdir,
                                   json.dumps(self.keep)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=env, encoding="utf-8", errors="surrogateescape")

    def run(self, argv, timeout=120, fresh=True):
        """(exit code or None, stdout, stderr, traceback or None). fresh: the files were
        written since the last call (a new mutant): read them again (else the readings of the
        same files and arguments since the last fresh call are reused)."""
        try:
            self.p.stdin.write(json.dumps({"argv": argv, "fresh": fresh}) + "\n")
            self.p.stdin.flush()
            ready, _, _ = select.select([self.p.stdout], [], [], timeout)
            line = self.p.stdout.readline() if ready else None
        except BrokenPipeError:
            line = ""
        if not line:
            if line is None:
                self.p.kill()
            rc = self.p.wait()
            self.start()
            return None, "", "", ("no answer within %d s" % timeout if line is None else
                                  "the analysis process died (exit %s)" % rc)
        r = json.loads(line)
        return r["rc"], r["stdout"], r["stderr"], r["traceback"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def text_problem(text, what="standard output"):
    """What is wrong with output meant for a terminal, or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return "%s is not valid UTF-8 (at character %d)" % (what, e.start)
    for i, ch in enumerate(text):
        o = ord(ch)
        if (o < 0x20 and ch not in "\n\t") or o == 0x7F or 0x80 <= o <= 0x9F:
            return "%s carries the control character 0x%02X (at character %d: %r)" % (
                what, o, i, text[max(0, i - 40):i + 20])
    return None


def judge_show(rc, out, err):
    if rc is None:
        return "did not end within its time limit"
    if rc < 0:
        return "killed by signal %d" % -rc
    if any(s in err for s in SANITIZER):
        return "sanitizer report"
    if rc not in SHOW_OK:
        return "exit %d (allowed: %s)" % (rc, ", ".join(map(str, SHOW_OK)))
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if len(lines) > 1:
        return "%d lines on standard error, not at most one" % len(lines)
    if rc != 0 and not lines:
        return "exit %d without a message" % rc
    return text_problem(out) or text_problem("\n".join(lines), "standard error")


def judge_analyze(cmd, rc, out, err, tb):
    if tb:  # a Python traceback, or the process hung or died
        return ("traceback: " if tb.startswith("Traceback") else "") + \
            tb.strip().splitlines()[-1]
    if rc == 5:
        return "exit 5 (a bug of the analysis)"
    if rc not in ANALYZE_OK[cmd]:
        return "exit %s (allowed: %s)" % (rc, ", ".join(map(str, ANALYZE_OK[cmd])))
    if "Traceback" in err:
        return "a traceback on standard error"
    lines = [ln for ln in err.splitlines()
             if ln.strip() and not ln.startswith("fabricbench-analyze: note: ")]
    errors = [ln for ln in lines if ln.startswith("fabricbench-analyze: error: ")]
    hints = [ln for ln in lines if ln.startswith("hint: ")]
    if len(errors) > 1:
        return "%d error lines" % len(errors)
    if len(lines) != len(errors) + len(hints) or len(hints) > len(errors):
        return "stray lines on standard error: %r" % [ln for ln in lines if ln not in errors][:3]
    if rc in (0, 1) and errors:
        return "an error line with exit %d" % rc
    if rc in (3, 4) and not errors and not (cmd == "matrix" and rc == 4):
        return "exit %d without an error line" % rc  # matrix 4: no verdict yet, shown
    if len(out) > OUT_MAX:
        return "%d bytes on standard output (a string of the file reached it whole?)" % len(out)
    return text_problem(out) or text_problem("\n".join(lines), "standard error")


def run_show(exe, mutant):
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    return subprocess.Popen([exe, "show", mutant], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)


def finish(p, timeout=60):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out.decode("utf-8", "surrogateescape"), \
            err.decode("utf-8", "surrogateescape")
    return p.returncode, out.decode("utf-8", "surrogateescape"), \
        err.decode("utf-8", "surrogateescape")


def launcher_run(launcher, argv):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("FABRICBENCH_ANALYZE_DEBUG", None)
    p = subprocess.run([sys.executable, launcher] + argv, capture_output=True, timeout=120,
                       env=env)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape"), \
        p.stderr.decode("utf-8", "replace")


def error_lines(err):
    return [ln for ln in err.splitlines() if ln.startswith("fabricbench-analyze: error: ")]


# ---------------------------------------------------------------------------------------------

def plan(entries, everything):
    """The mutants that cover every object, and the other (entry, kind) pairs shuffled with
    the fixed seed (the sample is taken from their start).

    Every object gets one mutation, the kinds of its type taken in turn so that every kind is
    used. Datasets and groups get a mutant each. Attributes are packed, up to PACK to a mutant,
    with the same attribute of other objects (every column's `units`, every kernel's
    `summary`) or with the other attributes of the same object where each name is its own
    (the recorded environment): a packed mutant that every reader accepts (exit 0) covers
    all its objects; one that any reader refuses is read again as one mutant per attribute
    (split), since the first refusal hides the rest."""
    rng = random.Random(SEED)
    turn, first, rest = {}, [], []
    for e in entries:
        kinds = tuple(e[3])
        i = turn.get(kinds, 0)
        turn[kinds] = i + 1
        k = kinds[i % len(kinds)]
        first.append((e, k))
        rest.extend((e, kk) for kk in kinds if kk != k)
    rng.shuffle(rest)
    if everything:
        return [[m] for m in first + rest], []
    cover, groups = [], {}
    for e, k in first:
        if e[0] != "attr":
            cover.append([(e, k)])
            continue
        same_name = sum(1 for x in entries if x[0] == "attr" and x[2] == e[2]) > 1
        key = ("name", e[2]) if same_name else ("object", e[1])
        groups.setdefault(key, []).append((e, k))
    for key in groups:
        g = groups[key]
        if key[0] == "name":  # the same attribute everywhere: one kind for the pack
            g = [(e, g[0][1] if g[0][1] in e[3] else k) for e, k in g]
        for i in range(0, len(g), PACK):
            cover.append(g[i:i + PACK])
    # Every mutation kind at least once for every type of object, then the rest at random.
    seen = {(e[0], k) for e, k in first}
    extra = []
    for e, k in rest:
        if (e[0], k) not in seen:
            seen.add((e[0], k))
            extra.append((e, k))
    rest = extra + [m for m in rest if m not in extra]
    return cover, [[m] for m in rest]


# Mutations every run makes, each alone (whatever the plan's turn and sample give): a long
# string where it reaches every output (the run's fabric, which names it; its command line,
# which grouping parses; a host name), and the pairs verdict made to disagree with its pairs.
FOCUS = [("attr", "/runs/run_0000", "fabric", "long"),
         ("attr", "/runs/run_0000", "command_line", "long"),
         ("dataset", "/runs/run_0000/hostnames", None, "long"),
         ("attr", "MATRIX", "verdict", "flip"),
         ("dataset", "MATRIX/lat_p50_us", None, "slow_pair")]


def focus(entries):
    matrix = [e[1] for e in entries if e[0] == "group" and e[1].startswith(PAIRS_RUN) and
              e[1].endswith("/matrix")]
    check(len(matrix) == 1, "the good file's pairs run has %d matrices, not 1" % len(matrix))
    out = []
    for what, opath, name, kind in FOCUS:
        opath = opath.replace("MATRIX", matrix[0])
        e = [x for x in entries if x[:3] == (what, opath, name)]
        check(len(e) == 1 and kind in e[0][3], "no %s %s %s to mutate (%s)" %
              (what, opath, name or "", kind))
        out.append([(e[0], kind)])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fabricbench")
    ap.add_argument("show")
    ap.add_argument("launcher")
    ap.add_argument("--all", action="store_true", help="every mutation of every object, one "
                    "per mutant (some hours)")
    ap.add_argument("--budget", type=int, default=BUDGET, help="mutants in all [%d]" % BUDGET)
    ap.add_argument("--kinds", help="only these mutation kinds (comma-separated), every object "
                    "they apply to, one per mutant")
    ap.add_argument("--keep", help="copy failing mutants into this directory")
    ap.add_argument("--log", help="write every mutant's outcome here (JSON Lines)")
    args = ap.parse_args()
    fb, show, launcher = (os.path.join(_CWD, p) for p in (args.fabricbench, args.show,
                                                      args.launcher))
    keep = os.path.join(_CWD, args.keep) if args.keep else None
    logpath = os.path.join(_CWD, args.log) if args.log else None
    t0 = time.monotonic()
    spent = {}  # where the time went: {what: [calls, seconds]} (printed at the end)
    spent_lock = threading.Lock()

    def spend(what, since):
        with spent_lock:
            c = spent.setdefault(what, [0, 0.0])
            c[0] += 1
            c[1] += time.monotonic() - since

    global GOOD
    GOOD = os.path.join(WORKDIR, "good.h5")
    p = mpirun(2, [fb, "run", "latency,bw,allreduce", "-m", "8,1K", "-i", "20", "--samples",
                   "-o", GOOD], timeout=120)
    check(p.returncode == 0, "the good file: fabricbench run exit %d\n%s" % (p.returncode,
                                                                          p.stderr[-3000:]))
    # a second run with a pairs kernel: its matrix group, with retests (3 ranks; the test hook
    # slows member 1's pairs in the schedule, so they are measured again alone)
    p = mpirun(3, [fb, "run", "pairs_latency", "--pairs-per", "rank", "-i", "20", "--append",
                   "-o", GOOD], timeout=120, env={"FABRICBENCH_TEST_PAIRS_LOADED": "1"})
    check(p.returncode in (0, 1), "the good file's pairs run: exit %d\n%s" % (p.returncode,
                                                                           p.stderr[-3000:]))
    with open(GOOD, "rb") as fh:
        good_bytes = fh.read()
    spend("the good file (2 mpirun)", t0)
    t_good = time.monotonic()

    analyzers = [Analyzer(launcher, keep=[GOOD]) for _ in range(LANES)]
    # The good file itself passes everywhere, with nothing on standard error.
    rc, out, err = finish(run_show(show, GOOD))
    check(rc == 0 and not err.strip(), "show of the good file: exit %s %s" % (rc, err))
    readers = (["summary"], ["export"], ["check", "--baseline", GOOD], ["matrix"])
    for cmd in readers:
        rc, out, err, tb = analyzers[0].run(cmd + [GOOD])
        ok = (0, 1) if cmd[0] == "matrix" else (0,)  # its verdict: this machine's noise
        check(rc in ok and not tb and not err.strip(), "%s of the good file: exit %s\n%s%s" %
              (cmd[0], rc, err, tb or ""))
    # slow_pair makes the pair of the first and last member slow: a finding only where that
    # pair was ok (it is not one the test hook slows)
    with h5py.File(GOOD, "r") as f:
        mats = [k["matrix"] for k in f[PAIRS_RUN + "/kernels"].values() if "matrix" in k]
        slow_pair_ok = all("pair_slow" in g and int(g["pair_slow"][0, -1]) == 0 for g in mats)
    spend("the good file read (show, 4 readers, 2 analysis processes started)", t_good)

    entries = inventory(GOOD)
    cover, sample = plan(entries, args.all)
    cover += focus(entries)
    if args.kinds:
        want = args.kinds.split(",")
        cover, sample = [[(e, k)] for e in entries for k in e[3] if k in want], []
        entries = [e for e in entries if any(k in want for k in e[3])]
    made = threading.Lock()  # h5py: one thread at a time
    lanes = queue.Queue()
    for i, an in enumerate(analyzers):
        lanes.put((os.path.join(WORKDIR, "mutant-%d.h5" % i), an))
    serial = iter(range(1, 1 << 30))

    def one(muts, through_launcher):
        """Make one mutant and read it with every reader: (mutations made, {reader: exit
        code}, [(reader, problem, output)], [mutations that could not be made])."""
        mutant, an = lanes.get()
        try:
            t = time.monotonic()
            with made:
                index = next(serial)
                done, notmade = make_mutant(good_bytes, mutant, muts)
            spend("make (h5py, one lane at a time)", t)
            if not done:
                return done, None, [], notmade
            probs, outcome = [], {}
            t_show = time.monotonic()
            sp = run_show(show, mutant)
            for n, cmd in enumerate(readers):
                t = time.monotonic()
                rc, out, err, tb = an.run(cmd + [mutant], fresh=n == 0)
                spend("analyze " + cmd[0], t)
                outcome[cmd[0]] = rc
                bad = judge_analyze(cmd[0], rc, out, err, tb)
                if bad:
                    probs.append(("fabricbench-analyze " + cmd[0], bad, (tb or err)[-1500:]))
                if through_launcher and cmd[0] != "export":
                    t = time.monotonic()
                    lrc, lout, lerr = launcher_run(launcher, cmd + [mutant])
                    spend("launcher (a Python of its own)", t)
                    outcome["launcher " + cmd[0]] = lrc
                    if lrc != rc or error_lines(lerr) != error_lines(err):
                        probs.append(("launcher " + cmd[0], "the launcher differs from the "
                                      "in-process run: exit %s, not %s" % (lrc, rc),
                                      lerr[-1500:]))
            for _e, k in done:
                if k in MUST_REFUSE_MATRIX and (k != "slow_pair" or slow_pair_ok) and \
                        outcome["matrix"] != 3:
                    probs.append(("fabricbench-analyze matrix", "a verdict that disagrees with "
                                  "its pairs was believed (%s: exit %s, not 3)" %
                                  (k, outcome["matrix"]), ""))
            t = time.monotonic()
            rc, out, err = finish(sp)
            spend("show: waited for after the analysis", t)
            spend("show: start to end (beside the analysis)", t_show)
            outcome["show"] = rc
            bad = judge_show(rc, out, err)
            if bad:
                probs.append(("fabricbench show", bad, err[-3000:]))
            if probs and keep:
                os.makedirs(keep, exist_ok=True)
                shutil.copyfile(mutant, os.path.join(keep, "mutant-%04d.h5" % index))
            return done, outcome, probs, notmade
        finally:
            lanes.put((mutant, an))

    counts, failures, skipped, log = {}, [], [], []
    covered = set()

    def run_all(jobs, first_index):
        """Read the mutants `jobs` (lists of mutations), LANES at a time; returns the packed
        ones that a reader refused."""
        refused = []
        every = max(1, (len(cover) + args.budget) // LAUNCHER_CHECKS)
        with ThreadPoolExecutor(LANES) as pool:
            futures = [pool.submit(one, muts, (first_index + i) % every == 0)
                       for i, muts in enumerate(jobs)]
            for fu in futures:
                done, outcome, probs, notmade = fu.result()
                skipped.extend(notmade)
                if outcome is None:
                    continue
                what = " + ".join(describe(e, k) for e, k in done)
                accepted = all(rc == 0 for rc in outcome.values())
                if len(done) == 1 or accepted:
                    covered.update((e[0], e[1], e[2]) for e, _ in done)
                if len(done) > 1 and (probs or not accepted):
                    refused.append(done)  # read again one by one: which did it, what hid
                for reader, rc in outcome.items():
                    key = (reader, "signal" if rc is not None and rc < 0 else
                           "timeout" if rc is None else "exit %d" % rc)
                    counts[key] = counts.get(key, 0) + 1
                log.append({"mutant": what, "outcome": outcome,
                            "problems": [p[:2] for p in probs]})
                failures.extend((what,) + p for p in probs)
        return refused

    t = time.monotonic()
    refused = run_all(cover, 0)
    spend("the mutants covering every object (%d lanes)" % LANES, t)
    splits = [[m] for muts in refused for m in muts]
    more = sample[:max(0, args.budget - len(cover) - len(splits))] if sample else []
    t = time.monotonic()
    run_all(splits + more, len(cover))
    spend("the packs split again and the sample (%d lanes)" % LANES, t)
    for _ in range(LANES):
        lanes.get()[1].close()
    if logpath:
        with open(logpath, "w") as fh:
            for rec in log:
                fh.write(json.dumps(rec) + "\n")

    missing = [e for e in entries if (e[0], e[1], e[2]) not in covered]
    kinds = {k for muts in cover + splits + more for _, k in muts}
    print("fuzz: %d mutants (%d packed, %d split again, %d sampled) of %d objects, %d mutation "
          "kinds, seed %d, %.1f s" % (len(log), sum(1 for m in cover if len(m) > 1),
                                      len(splits), len(more), len(entries), len(kinds), SEED,
                                      time.monotonic() - t0))
    for reader in ("show", "summary", "export", "check", "matrix", "launcher summary",
                   "launcher check", "launcher matrix"):
        print("  %-16s %s" % (reader, ", ".join("%s: %d" % (k[1], v) for k, v in
                                             sorted(counts.items()) if k[0] == reader)))
    print("  where the time went (wall seconds; the lanes' add up beyond the run's):")
    for what, (n, sec) in spent.items():
        print("    %-66s %7.1f s  %5d x %6.1f ms" % (what, sec, n, 1000 * sec / n))
    if skipped:
        print("  mutations h5py could not make (the next kind was made instead): %d" %
              len(skipped))
        for line in skipped[:5]:
            print("    " + line)
    if missing:
        fail("objects never mutated: %s" % ", ".join(describe(e, "") for e in missing[:10]))
    if failures:
        print("FAILURES: %d" % len(failures))
        for what, reader, bad, err in failures:
            print("--- %s\n    %s: %s\n    %s" % (what, reader, bad,
                                                 err.strip().replace("\n", "\n    ")[-1500:]))
        fail("%d mutant reads broke the rules (above)" % len(failures))
    print("ok fuzz: every mutant read ended with an allowed exit code and at most one error line")


GOOD = None

if __name__ == "__main__":
    main()
