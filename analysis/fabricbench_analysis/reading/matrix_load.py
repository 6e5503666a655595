# SPDX-License-Identifier: BSD-3-Clause
"""Reading the all-pairs matrices of the pairs kernels (docs/SCHEMA.md, the group `matrix`).

load_matrices(paths) reads, for every run of every file, each kernel group that holds a
`matrix` group, through hostile.py's checks: every attribute one value of its type and in its
range, every dataset of its kind, rank, shape (n x n, or n) and type, `nodes` n distinct
strings, values possible. It does not need the kernel's table: a run killed during a pairs
kernel has a matrix (its finished rounds) and no row yet.
"""
import math
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..model import hostile
from ..model.arrays import Array
from ..model.errors import AnalysisError
from . import loading, matrix_verdict
from .limits import Budget

# Members of one matrix: 4096 nodes (or ranks) make 8 million pairs, a 128 MiB dataset.
MAX_MEMBERS = 4096
SCHEDULES = ("rounds", "serial", "shift")
PAIRS_PER = ("node", "rank")
VERDICTS = ("healthy", "suspects")
POLICIES = ("adaptive", "fixed", "time")
# pair_slow: bits, and the value of a pair (or the diagonal) that was not measured.
SLOW_BITS = ((1, "bandwidth"), (2, "latency"), (4, "line rate"), (8, "only under load"))
NOT_MEASURED = 255
# The n x n float datasets: (name, what its values are)
VALUES = (("lat_p50_us", "a time"), ("lat_p99_us", "a time"), ("bw_MBps", "a bandwidth"),
          ("line_pct", "a percentage"))
RETEST = tuple(("retest_" + name, what) for name, what in VALUES)

_FLOAT_ATTRS = (("bw_median_MBps", "a bandwidth"), ("lat_median_us", "a time"),
                ("slow_latency_factor", "a factor"), ("line_rate_MBps", "a line rate"))


def is_bw(m: Dict[str, Any]) -> bool:
    """A bandwidth matrix (directed), not a latency one."""
    return bool(m["metric"] == "bw_MBps")


def _attrs(g: Any, where: str) -> Dict[str, Any]:
    a = hostile.attribute
    ge0 = hostile.int_at_least(0)
    m = {
        "schedule": a(g, where, "schedule", "str", "", hostile.one_of(SCHEDULES)),
        "pairs_per": a(g, where, "pairs_per", "str", "", hostile.one_of(PAIRS_PER)),
        "bytes": a(g, where, "bytes", "int", -1, ge0),
        "members": a(g, where, "members", "int", None, _members_ok),
        "rounds": a(g, where, "rounds", "int", 0, ge0),
        "rounds_done": a(g, where, "rounds_done", "int", 0, ge0),
        "iterations": a(g, where, "iterations", "int", -1, ge0),
        "warmup": a(g, where, "warmup", "int", -1, ge0),
        # how each pair's iterations were chosen; with adaptive or time they differ between
        # pairs: `iterations` is then the fewest, `iterations_max` the most
        "policy": a(g, where, "policy", "str", "", hostile.one_of(POLICIES)),
        "iterations_max": a(g, where, "iterations_max", "int", -1, ge0),
        "pair_time_s": a(g, where, "pair_time_s", "float", math.nan,
                         hostile.float_range(0.0, hostile.MAX_VALUE, what="a time")),
        "retest": a(g, where, "retest", "str", "", hostile.one_of(("on", "off"))),
        # --retest on: pairs to retest (-1: not known yet), retested so far, and (with the
        # verdict) those slow in the schedule but not alone
        "retests": a(g, where, "retests", "int", -1, hostile.int_at_least(-1)),
        "retested": a(g, where, "retested", "int", -1, ge0),
        "pairs_load_only": a(g, where, "pairs_load_only", "int", -1, ge0),
        "verdict": a(g, where, "verdict", "str", None, hostile.one_of(VERDICTS)),
        "pairs_measured": a(g, where, "pairs_measured", "int", -1, ge0),
        "pairs_slow": a(g, where, "pairs_slow", "int", -1, ge0),
        "slow_bw_share": a(g, where, "slow_bw_share", "float", math.nan,
                           hostile.float_range(0.0, 1.0, what="a share")),
    }
    for name, what in _FLOAT_ATTRS:
        m[name] = a(g, where, name, "float", math.nan,
                    hostile.float_range(0.0, hostile.MAX_VALUE, what=what))
    if m["members"] is None:
        raise hostile.Mismatch(where, "has no attribute members; fabricbench writes one (the "
                               "number of nodes or ranks)")
    n = m["members"]
    if m["rounds_done"] > m["rounds"]:
        raise hostile.Mismatch("the attribute rounds_done of %s" % where, "is %d, more than "
                               "the %d rounds of the schedule" % (m["rounds_done"], m["rounds"]))
    if m["iterations_max"] >= 0 and m["iterations_max"] < m["iterations"]:
        raise hostile.Mismatch("the attribute iterations_max of %s" % where, "is %d, fewer than "
                               "its fewest, iterations (%d)" % (m["iterations_max"],
                                                                m["iterations"]))
    npairs = n * (n - 1) // 2
    if m["pairs_measured"] > npairs:
        raise hostile.Mismatch("the attribute pairs_measured of %s" % where, "is %d; %d "
                               "members make %d pairs" % (m["pairs_measured"], n, npairs))
    for name in ("retests", "retested", "pairs_load_only"):
        if m[name] > npairs:
            raise hostile.Mismatch("the attribute %s of %s" % (name, where), "is %d; %d members "
                                   "make %d pairs" % (m[name], n, npairs))
    if m["pairs_slow"] > max(m["pairs_measured"], 0):
        raise hostile.Mismatch("the attribute pairs_slow of %s" % where, "is %d, more than "
                               "the %d pairs measured" % (m["pairs_slow"],
                                                          max(m["pairs_measured"], 0)))
    return m


def _members_ok(v: int) -> Optional[str]:
    if v < 1:
        return "is %d; a matrix has at least one member" % v
    if v > MAX_MEMBERS:
        return "is %d; fabricbench-analyze reads matrices of at most %d members" % (
            v, MAX_MEMBERS)
    return None


def _shape_of(ds: Any, path: str) -> Optional[Tuple[int, ...]]:
    import h5py

    try:
        space = ds.get_space()
        if space.get_simple_extent_type() == h5py.h5s.NULL:
            return None
        return tuple(int(x) for x in space.shape)
    except Exception as e:
        raise hostile.Unreadable(path, "cannot be read (%s)" % " ".join(str(e).split()))


def _square(g: Any, where: str, name: str, n: int, kind: str,
            required: bool = False) -> Optional[Array]:
    """The n x n dataset `name` as a numpy array (float64 for kind 'float', int64 for 'int'),
    or None when absent."""
    import h5py

    ds = hostile.child(g, where, name, "dataset", required=required)
    if ds is None:
        return None
    path = hostile.join(where, name)
    shape = _shape_of(ds, path)
    if shape != (n, n):
        raise hostile.Mismatch(path, "has shape %s; with %d members it is %d x %d" % (
            "(empty)" if shape is None else "(%s)" % ", ".join(str(x) for x in shape), n, n, n))
    cls = ds.get_type().get_class()
    want = h5py.h5t.FLOAT if kind == "float" else h5py.h5t.INTEGER
    if cls != want:
        raise hostile.Mismatch(path, "holds %s; it holds %s" % (
            hostile._plural(cls), "floating-point numbers" if kind == "float" else "integers"))
    try:
        data = np.empty((n, n), dtype=ds.dtype)
        ds.read(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=h5py.h5t.py_create(data.dtype))
    except Exception as e:
        raise hostile.Unreadable(path, "cannot be read (%s)" % " ".join(str(e).split()))
    if data.dtype.kind not in "iuf":
        raise hostile.Mismatch(path, "does not read as numbers")
    return data.astype(np.float64 if kind == "float" else np.int64)


def _check_values(data: Array, path: str, what: str) -> None:
    """NaN (not measured) or a finite value from 0 to MAX_VALUE."""
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(data) & ~((data >= 0) & (data <= hostile.MAX_VALUE))
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise hostile.Mismatch("%s [%d, %d]" % (path, i, j), "is %r: impossible, %s is from 0 "
                               "to %g (NaN: not measured)" % (float(data[i, j]), what,
                                                               hostile.MAX_VALUE))


def _check_ints(data: Array, path: str, lo: int, hi: Any, what: str) -> None:
    bad = (data < lo) | (data > hi)
    if bad.any():
        idx = np.argwhere(bad)[0]
        at = "[%s]" % ", ".join(str(int(x)) for x in idx)
        raise hostile.Mismatch("%s %s" % (path, at), "is %d: impossible, %s is %d to %d" % (
            int(data[tuple(idx)]), what, lo, hi))


def _vector(g: Any, where: str, name: str, n: int, what: str, lo: int,
            hi_of: Any) -> Optional[Array]:
    ds = hostile.child(g, where, name, "dataset")
    if ds is None:
        return None
    path = hostile.join(where, name)
    v = hostile.numbers(ds, path, what, "int", MAX_MEMBERS)
    if len(v) != n:
        raise hostile.Mismatch(path, "has %d elements; with %d members it has %d" % (len(v), n,
                                                                                      n))
    v = v.astype(np.int64)
    _check_ints(v, path, lo, hi_of, what)
    return v


def read_matrix(k: Any, kwhere: str, kmeta: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The matrix of the kernel group k (path kwhere) as a dict; None when it has none."""
    g = hostile.child(k, kwhere, "matrix", "group")
    if g is None:
        return None
    where = kwhere + "/matrix"
    m = dict(kmeta)
    m.update(_attrs(g, where))
    n = m["members"]
    ds = hostile.child(g, where, "nodes", "dataset", required=True)
    nodes = hostile.strings(ds, where + "/nodes", "the nodes dataset", MAX_MEMBERS)
    if len(nodes) != n:
        raise hostile.Mismatch(where + "/nodes", "has %d names; the attribute members says %d"
                               % (len(nodes), n))
    seen: Dict[str, int] = {}
    for i, name in enumerate(nodes):
        if name in seen:
            raise hostile.Mismatch("%s/nodes element %d" % (where, i), "is '%s' again (element "
                                   "%d); every member has its own name" %
                                   (hostile.name_text(name), seen[name]))
        seen[name] = i
    m["nodes"] = nodes
    sw = hostile.child(g, where, "switches", "dataset")
    m["switches"] = hostile.strings(sw, where + "/switches", "the switches dataset",
                                    MAX_MEMBERS) if sw is not None else []
    m["node_switch"] = _vector(g, where, "node_switch", n, "a switch index", -1,
                               len(m["switches"]) - 1)
    values = {}
    for name, what in VALUES + RETEST:
        data = _square(g, where, name, n, "float")
        if data is not None:
            _check_values(data, hostile.join(where, name), what)
            values[name] = data
    m["values"] = values
    if "bw_MBps" in values:
        m["metric"], m["unit"] = "bw_MBps", "MB/s"
    elif "lat_p50_us" in values:
        m["metric"], m["unit"] = "lat_p50_us", "us"
    else:
        raise hostile.Mismatch(where, "has neither bw_MBps nor lat_p50_us; a pairs kernel's "
                               "matrix holds one of them")
    rnd = _square(g, where, "round", n, "int")
    if rnd is not None:
        _check_ints(rnd, hostile.join(where, "round"), -1, max(m["rounds"] - 1, -1),
                    "a round (-1: not yet)")
    m["round"] = rnd
    head = values[m["metric"]]
    off = ~np.eye(n, dtype=bool)
    if m["rounds_done"] > 0 and n > 1 and not np.isfinite(head[off]).any():
        raise hostile.Mismatch(hostile.join(where, m["metric"]), "holds no measured pair (NaN "
                               "everywhere) although %d rounds are done; each round measures "
                               "pairs" % m["rounds_done"])
    slow = _square(g, where, "pair_slow", n, "int")
    if slow is not None:
        _check_ints(slow, hostile.join(where, "pair_slow"), 0, NOT_MEASURED,
                    "a pair's slow bits (255: not measured)")
    m["pair_slow"] = slow
    sus = hostile.child(g, where, "suspects", "dataset")
    m["suspects"] = hostile.strings(sus, where + "/suspects", "the suspects dataset",
                                    n * n + n) if sus is not None else []
    m["node_suspect"] = _vector(g, where, "node_suspect", n, "a suspect's index", -1,
                                len(m["suspects"]) - 1)
    if m["verdict"] == "suspects" and not m["suspects"]:
        raise hostile.Mismatch("the attribute verdict of %s" % where, "is 'suspects' but the "
                               "suspects dataset names none")
    m["complete"] = m["verdict"] is not None
    matrix_verdict.check(m, where)  # the verdict recomputed from the pairs: never believed
    return m


def _read(path: str, run: Optional[str], note: Callable[[str], None],
          budget: Budget) -> List[Dict[str, Any]]:
    src, head, kind = loading.open_input(path)
    try:
        if kind:
            return []  # fabricbench's JSON outputs carry no matrix
        return _read_hdf5(src, path, head, run, note, budget)
    finally:
        src.close()


def _read_hdf5(src: Any, path: str, head: bytes, run: Optional[str],
               note: Callable[[str], None], budget: Budget) -> List[Dict[str, Any]]:
    f = loading._open(src, path, head)
    try:
        loading._check_schema(f, path)
        out = []
        for name in loading._select_runs(f, path, run, budget):
            rwhere = "/runs/" + name
            g = hostile.child(f["runs"], "/runs", name, "group", required=True)
            status = hostile.attribute(g, rwhere, "status", "str", "")
            for kid, kwhere, k in loading.kernel_groups(g, rwhere, budget, path):
                kernel = hostile.attribute(k, kwhere, "kernel", "str", "", hostile.matches(
                    hostile.KERNEL_NAME, "a kernel name (a-z, 0-9 and _)")) or \
                    kid.split("_", 1)[-1]
                kmeta = {"file": path, "run": name, "run_status": status, "kernel": kernel,
                         "kernel_id": kid,
                         "kernel_status": hostile.attribute(k, kwhere, "status", "str", "")}
                m = read_matrix(k, kwhere, kmeta)
                if m is not None:
                    out.append(m)
                elif kernel.startswith("pairs_"):
                    note("%s %s: kernel %s has no matrix yet (stopped before its first round "
                         "ended)" % (path, name, kid))
        return out
    except AnalysisError:
        raise
    except hostile.Unreadable as e:
        raise AnalysisError("%s is damaged: %s" % (path, loading._one_line(e)),
                            loading._DAMAGED_HINT)
    except hostile.Mismatch as e:
        raise AnalysisError("%s: %s" % (path, loading._one_line(e)), loading._MISMATCH_HINT)
    except loading._READ_ERRORS as e:
        raise AnalysisError("%s is damaged: %s (while reading its matrices)" %
                            (path, loading._one_line(e)), loading._DAMAGED_HINT)
    except MemoryError:
        raise AnalysisError("%s: a matrix does not fit in memory" % path,
                            "read it on a machine with more memory")
    except Exception as e:
        raise loading._unexpected(path, e, "reading its matrices")
    finally:
        try:
            f.close()
        except Exception:  # a damaged file may fail to close; its error is reported above
            pass


def load_matrices(paths: Sequence[str], run: Union[str, int, None] = "all",
                  warn: Optional[Callable[[str], None]] = None) -> List[Dict[str, Any]]:
    """Every matrix of the files' selected runs, in file, run and kernel order."""
    out = []
    budget = Budget()
    which = None if run is None else str(run)  # a run's number, as on the command line
    for path in paths:
        out.extend(_read(path, which, warn or (lambda msg: None), budget))
    return out
