# SPDX-License-Identifier: BSD-3-Clause
"""Reading a result file as hostile: every object checked against docs/SCHEMA.md before use.

loading.py reads files only through these functions. Each checks the object it reads (a hard
link to a group or a dataset; an attribute that is one value of the schema's type; a column
that is a 1-D dataset of numbers; strings that are valid UTF-8; values in their possible
range) and raises Mismatch, naming the object by its HDF5 path and saying what was wrong, at
the first thing that does not match. Text from a file comes back with its control characters
escaped (safe_text), so nothing read from a file can drive a terminal.
"""
import math
import re
from typing import Any, Callable, Dict, List, Optional, Pattern, Sequence, Tuple, Union

import numpy as np

from . import schema
from .arrays import Array

# A check of a value read: None when it is possible, else what is wrong.
Check = Callable[[Any], Optional[str]]

# Names that reach output file names (kernel names: plot's NAME.png) or messages: a fixed
# pattern, so no path separator, no "..", no control character, nothing a shell or a
# terminal reads specially.
KERNEL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
KERNEL_ID = re.compile(r"[0-9]{1,6}_[a-z][a-z0-9_]{0,63}\Z")
RUN_NAME = re.compile(r"run_[0-9]{1,9}\Z")
COLUMN_NAME = re.compile(r"[A-Za-z0-9_]{1,64}\Z")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,255}\Z")  # an environment variable's name

# No quantity of the table comes near 1e15 in its unit (1e15 us are 31 years; 1e15 MB/s are a
# zettabyte per second): a larger value is not a measurement. The bound also keeps every
# computation of the analysis (ratios, squares, log axes) within floating point.
MAX_VALUE = 1e15
MAX_ROWS = 100000  # rows of one table (fabricbench measures at most 64 sizes per kernel)
MAX_BLOCKS = 256  # block medians of one size (FAB_ADAPT_MAX_BLOCKS)
MAX_SAMPLES = 100000000  # per-iteration samples of one size (--max-samples is at most 1e8)
MAX_HOSTS = 1 << 22  # entries of the hostnames dataset (one per rank)

KINDS = ("latency", "bandwidth", "collective")


class Mismatch(Exception):
    """The file does not match the schema: `where` (an HDF5 path, or 'the attribute A of
    PATH') and `what` was wrong, to be put in one line."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__("%s %s" % (where, what))
        self.where = where
        self.what = what


class Unreadable(Mismatch):
    """HDF5 cannot read the object (a damaged heap or header): the file is damaged."""


# C0 controls, DEL, C1 controls; Unicode's line and paragraph separators and bidirectional
# embeddings, overrides and isolates (they reorder what a terminal shows); surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff]")


def _escape(m: "re.Match[str]") -> str:
    o = ord(m.group())
    if o < 0x20 or o == 0x7F:
        return "\\x%02X" % o
    if 0xDC80 <= o <= 0xDCFF:  # surrogateescape: the byte o - 0xDC00
        return "\\x%02X" % (o - 0xDC00)
    return "\\u%04X" % o


def safe_text(s: str) -> str:
    """Text from a file made safe for a terminal and a one-line message: control characters
    (C0, DEL) as \\xNN; C1 controls, line separators and bidirectional overrides as \\uNNNN;
    bytes that were not UTF-8 (surrogate escapes, only in names h5py decoded) as \\xNN."""
    return _UNSAFE.sub(_escape, s)


# A string read from a file (an attribute, an element of a string dataset, a JSON string) is at
# most MAX_TEXT characters: fabricbench writes none longer but a command line (whose words it
# records in full) or a variable's value. A longer one is cut there and ends with a visible
# marker giving its length and the start of its SHA-256, so that two long values that differ
# stay different (grouping compares command lines) and nothing read from a file can make an
# output grow with it.
MAX_TEXT = 4096


def cut_text(s: str) -> str:
    """s itself when it has at most MAX_TEXT characters; else its first MAX_TEXT and the marker
    ` [... cut: N characters in the file, SHA-256 0123456789abcdef]`."""
    if len(s) <= MAX_TEXT:
        return s
    import hashlib

    digest = hashlib.sha256(s.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return "%s [... cut: %d characters in the file, SHA-256 %s]" % (s[:MAX_TEXT], len(s),
                                                                    digest)


def file_text(s: str) -> str:
    """A string from a file as the analysis keeps it: cut (cut_text), then made safe for a
    terminal (safe_text)."""
    return safe_text(cut_text(s))


def name_text(name: object) -> str:
    """A name from the file for a message: escaped, and cut when it is very long."""
    t = safe_text(str(name))
    return t if len(t) <= 80 else t[:77] + "..."


def child(parent: Any, where: str, name: str, want: str, required: bool = False) -> Any:
    """The group (an h5py Group) or dataset (its low-level DatasetID: cheaper, and all that is
    read of it) `name` of the group `parent`, whose path is `where`; None when absent
    (Mismatch when required). Only hard links are followed: a soft or external link could
    point anywhere, even into another file."""
    import h5py

    path = join(where, name)
    bname = name.encode("utf-8", "surrogateescape")
    try:
        if not parent.id.links.exists(bname):
            if required:
                raise Mismatch(where, "has no %s; fabricbench writes one" % name_text(name))
            return None
        link = parent.id.links.get_info(bname).type
    except Mismatch:
        raise
    except Exception as e:  # a name or link HDF5 cannot even look up
        raise Unreadable(path, "cannot be looked up (%s)" % _one_line(e))
    if link == h5py.h5l.TYPE_SOFT:
        raise Mismatch(path, "is a soft link; fabricbench writes a %s there" % want)
    if link == h5py.h5l.TYPE_EXTERNAL:
        raise Mismatch(path, "is a link into another file; fabricbench writes a %s there" %
                       want)
    if link != h5py.h5l.TYPE_HARD:
        raise Mismatch(path, "is a link of a kind fabricbench never writes")
    try:
        oid = h5py.h5o.open(parent.id, bname)
    except Exception as e:
        raise Unreadable(path, "cannot be opened (%s)" % _one_line(e))
    is_group = isinstance(oid, h5py.h5g.GroupID)
    is_dataset = isinstance(oid, h5py.h5d.DatasetID)
    what = "a group" if is_group else "a dataset" if is_dataset else "a named datatype"
    if want == "group" and not is_group:
        raise Mismatch(path, "is %s; fabricbench writes a group there" % what)
    if want == "dataset" and not is_dataset:
        raise Mismatch(path, "is %s; fabricbench writes a dataset there" % what)
    return h5py.Group(oid) if is_group else oid


def children(group: Any, where: str) -> List[str]:
    """The names of a group's members, in name order. h5py gives a name that is not UTF-8 as
    bytes: it comes back decoded with surrogate escapes (which no name pattern admits, and
    safe_text shows as \\xNN)."""
    try:
        return sorted(k if isinstance(k, str) else bytes(k).decode("utf-8", "surrogateescape")
                      for k in group.keys())
    except Exception as e:
        raise Unreadable(where, "cannot be listed (%s)" % _one_line(e))


def attribute_names(obj: Any, where: str, limit: int) -> List[str]:
    """The names of an object's attributes, in name order (as children() decodes them); more
    than `limit` is a Mismatch."""
    import h5py

    try:
        n = h5py.h5a.get_num_attrs(obj.id)
    except Exception as e:
        raise Unreadable(where, "has attributes that cannot be counted (%s)" % _one_line(e))
    if n > limit:
        raise Mismatch(where, "has %d attributes; fabricbench writes at most %d there" %
                       (n, limit))
    try:
        return sorted(k if isinstance(k, str) else bytes(k).decode("utf-8", "surrogateescape")
                      for k in obj.attrs.keys())
    except Exception as e:
        raise Unreadable(where, "has attributes that cannot be listed (%s)" % _one_line(e))


def join(where: str, name: str) -> str:
    """The HDF5 path of member `name` of the group at `where` ('' or '/' for the root)."""
    return where.rstrip("/") + "/" + name_text(name)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


# HDF5 type classes in words.
def _class_words(cls: int) -> str:
    import h5py

    t = h5py.h5t
    return {t.INTEGER: "an integer", t.FLOAT: "a floating-point number", t.STRING: "a string",
            t.COMPOUND: "a compound (record)", t.ENUM: "an enumeration (a boolean?)",
            t.ARRAY: "an HDF5 array type", t.VLEN: "a variable-length sequence",
            t.OPAQUE: "an opaque value", t.REFERENCE: "a reference",
            t.BITFIELD: "a bit field", t.TIME: "a time"}.get(cls, "of type class %s" % cls)


_KIND_WORDS = {"str": "a string", "int": "an integer", "float": "a number"}


def attribute(obj: Any, where: str, name: str, kind: str, default: Any,
              check: Optional[Check] = None) -> Any:
    """Attribute `name` of `obj` (whose path is `where`): one value of `kind` ('str', 'int' or
    'float'; an integer is also a valid 'float'), or `default` when absent. A string comes
    back as safe_text; check(value) returns what is wrong with a value, or None."""
    import h5py

    label = "the attribute %s of %s" % (name, where or "/")
    bname = name.encode("utf-8")
    try:
        oid = obj.id if isinstance(obj, h5py.HLObject) else obj  # or a low-level id
        if not h5py.h5a.exists(oid, bname):
            return default
        aid = h5py.h5a.open(oid, bname)
        shape = aid.shape
        cls = aid.get_type().get_class()
    except Exception as e:
        raise Unreadable(label, "cannot be read (%s)" % _one_line(e))
    want = _KIND_WORDS[kind]
    if shape is None:
        raise Mismatch(label, "holds no value (an empty dataspace); %s is expected" % want)
    n = int(np.prod(shape)) if shape else 1
    if n != 1:
        raise Mismatch(label, "is an array of shape %s; one value (%s) is expected" %
                       (_shape(shape), want))
    ok = {"str": (h5py.h5t.STRING,), "int": (h5py.h5t.INTEGER,),
          "float": (h5py.h5t.INTEGER, h5py.h5t.FLOAT)}[kind]
    if cls not in ok:
        raise Mismatch(label, "is %s; %s is expected" % (_class_words(cls), want))
    try:
        # Read as h5py's attrs[] does, but keep a string's bytes: they are decoded strictly
        # below (h5py would let bytes that are not UTF-8 through as surrogate escapes).
        dtype = aid.dtype
        arr = np.zeros(shape, dtype=dtype)
        aid.read(arr, mtype=h5py.h5t.py_create(dtype))
        v = arr.reshape(-1)[0]
    except Exception as e:
        raise Unreadable(label, "cannot be read (%s)" % _one_line(e))
    if kind == "str":
        v = _decode(v, label)
    elif kind == "int":
        v = int(v)
    else:
        v = float(v)
    if check is not None:
        bad = check(v)
        if bad:
            raise Mismatch(label, bad)
    return v


def _decode(v: Any, label: str) -> str:
    """A string value (bytes or str) as text, strictly UTF-8, at most MAX_TEXT characters
    (cut_text), control characters escaped."""
    if isinstance(v, (bytes, np.bytes_)):
        try:
            v = bytes(v).decode("utf-8")
        except UnicodeDecodeError as e:
            raise Mismatch(label, "is not valid UTF-8 (byte 0x%02X at offset %d); fabricbench "
                           "writes UTF-8 only" % (bytes(v)[e.start], e.start))
    elif isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError as e:
            # h5py decodes with surrogateescape: a lone surrogate is a byte that was not UTF-8
            o = ord(v[e.start])
            raise Mismatch(label, "is not valid UTF-8 (byte 0x%02X at character %d); "
                           "fabricbench writes UTF-8 only" % (o - 0xDC00 if 0xDC80 <= o <=
                                                              0xDCFF else o, e.start))
    else:
        raise Mismatch(label, "is not a string")
    return file_text(v)


def _shape(shape: Sequence[int]) -> str:
    return "(%s)" % ", ".join(str(int(x)) for x in shape) if len(shape) != 1 else \
        "(%d,)" % int(shape[0])


def _dataset_shape(ds: Any, path: str, what: str, limit: int) -> int:
    """The length of a 1-D dataset (a DatasetID), or Mismatch."""
    import h5py

    try:
        space = ds.get_space()
        shape = None if space.get_simple_extent_type() == h5py.h5s.NULL else space.shape
    except Exception as e:
        raise Unreadable(path, "cannot be read (%s)" % _one_line(e))
    if shape is None:
        raise Mismatch(path, "has an empty dataspace; %s is a 1-D dataset" % what)
    if len(shape) != 1:
        raise Mismatch(path, "is a %s dataset of shape %s; %s is 1-D" % (
            "scalar" if len(shape) == 0 else "%d-D" % len(shape), _shape(shape), what))
    n = int(shape[0])
    if n > limit:
        raise Mismatch(path, "has %d elements; %s has at most %d" % (n, what, limit))
    return n


def numbers(ds: Any, path: str, what: str, kind: str, limit: int) -> Array:
    """A 1-D dataset of numbers as a numpy array: kind 'int' (an integer type), 'float' (a
    floating-point type) or 'num' (either)."""
    import h5py

    n = _dataset_shape(ds, path, what, limit)
    try:
        cls = ds.get_type().get_class()
    except Exception as e:
        raise Unreadable(path, "cannot be read (%s)" % _one_line(e))
    ok = {"int": (h5py.h5t.INTEGER,), "float": (h5py.h5t.FLOAT,),
          "num": (h5py.h5t.INTEGER, h5py.h5t.FLOAT)}[kind]
    if cls not in ok:
        want = {"int": "integers", "float": "floating-point numbers", "num": "numbers"}[kind]
        raise Mismatch(path, "holds %s; %s holds %s" % (_plural(cls), what, want))
    try:
        data = np.empty((n,), dtype=ds.dtype)
        if n:
            ds.read(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=h5py.h5t.py_create(data.dtype))
    except Exception as e:
        raise Unreadable(path, "cannot be read (%s)" % _one_line(e))
    if data.dtype.kind not in "iuf":
        raise Mismatch(path, "does not read as numbers")
    return data


def strings(ds: Any, path: str, what: str, limit: int) -> List[str]:
    """A 1-D dataset of strings as a list of safe texts."""
    import h5py

    _dataset_shape(ds, path, what, limit)
    try:
        cls = ds.get_type().get_class()
    except Exception as e:
        raise Unreadable(path, "cannot be read (%s)" % _one_line(e))
    if cls != h5py.h5t.STRING:
        raise Mismatch(path, "holds %s; %s holds strings" % (_plural(cls), what))
    try:
        data = h5py.Dataset(ds)[()]
    except Exception as e:
        raise Unreadable(path, "cannot be read (%s)" % _one_line(e))
    out = []
    for i, v in enumerate(np.asarray(data, dtype=object).reshape(-1)):
        out.append(_decode(v, "%s element %d" % (path, i)))
    return out


def _plural(cls: int) -> str:
    import h5py

    t = h5py.h5t
    return {t.INTEGER: "integers", t.FLOAT: "floating-point numbers", t.STRING: "strings",
            t.ENUM: "enumeration values (booleans?)"}.get(
                cls, "values of another type (%s)" % _class_words(cls))


# Value checks: each takes a value and returns what is wrong with it, or None.

def int_at_least(lo: int) -> Check:
    def check(v: int) -> Optional[str]:
        if v < lo:
            return "is %d; it cannot be below %d" % (v, lo)
        return None
    return check


def float_range(lo: float, hi: float, nan_ok: bool = True, what: str = "the value") -> Check:
    def check(v: float) -> Optional[str]:
        if math.isnan(v):
            return None if nan_ok else "is NaN; %s is a number" % what
        if math.isinf(v):
            return "is %s: impossible, %s is finite" % (v, what)
        if v < lo:
            return "is %r: impossible, %s cannot be below %g" % (v, what, lo)
        if v > hi:
            return "is %r: impossible, %s is at most %g" % (v, what, hi)
        return None
    return check


def one_of(values: Sequence[str]) -> Check:
    def check(v: str) -> Optional[str]:
        if v not in values:
            return "is '%s'; it is one of %s" % (name_text(v), ", ".join(values))
        return None
    return check


def matches(pattern: "Pattern[str]", what: str) -> Check:
    def check(v: str) -> Optional[str]:
        if not pattern.match(v):
            return "is '%s', not %s" % (name_text(v), what)
        return None
    return check


def at_most(n: int, what: str) -> Check:
    """A string of at most n characters."""
    def check(v: str) -> Optional[str]:
        if len(v) > n:
            return "is %d characters long; %s is at most %d" % (len(v), what, n)
        return None
    return check


# A kernel instance's variant (`--streams 4`, `--rate 2.5G`; fabricbench's buffer holds 95
# bytes) and axis (the column holding its value, "" for a kernel without one).
MAX_VARIANT = 256
AXIS_NAME = re.compile(r"(?:[A-Za-z0-9_]{1,64})?\Z")


# What the analysis accepts in a column: (lowest, highest, NaN allowed, what the value is),
# as docs/SCHEMA.md defines them; its type (int, float) is the schema's (schema.json, from
# output/columns.c). NaN "rate": a rate is NaN only in a row of no timed iteration. A column
# not listed here is read as a number of either type ('num').
_TIME = (0.0, MAX_VALUE, True, "a time")
_RATE = (0.0, MAX_VALUE, "rate", "a measured rate")
_PCT = (0.0, MAX_VALUE, True, "a percentage")
# (lowest, highest or None, NaN allowed: True, False or "rate", what)
_Range = Tuple[float, Optional[float], Union[bool, str], str]
_RANGES: Dict[str, _Range] = {
    "bytes": (0, None, False, "a message size"),
    "iterations": (0, None, False, "a count of iterations"),
    "warmup": (0, None, False, "a count of iterations"),
    "validation_errors": (-1, None, False, "a count of errors (-1: not validated)"),
    "percentiles_exact": (0, 1, False, "a flag"),
    "slowest_rank": (-1, None, False, "a rank (-1: none)"),
    "cpu_rank_max_rank": (-1, None, False, "a rank (-1: unknown)"),
    "MBps": _RATE, "Gbps": _RATE, "msgps": _RATE, "pair_MBps": _RATE, "pair_msgps": _RATE,
    "algbw_GBps": (0.0, MAX_VALUE, True, "a bandwidth"),
    "busbw_GBps": (0.0, MAX_VALUE, True, "a bandwidth"),
    "slowest_share": (0.0, 1.0, True, "a share"),
    "late_rank": (-1, None, False, "a rank (-1: none)"),
    "straggler_rank": (-1, None, False, "a rank (-1: none)"),
    "late_share": (0.0, 1.0, True, "a share"),
    "late_explains": (0.0, 1.0, True, "a share"),
    "overlap_pct": (0.0, 100.0, True, "a share in percent"),
    "line_rate_pct": _PCT, "cpu_rank_pct": _PCT, "cpu_node_user_pct": _PCT,
    "cpu_node_sys_pct": _PCT, "cpu_node_softirq_pct": _PCT, "cpu_rank_min_pct": _PCT,
    "cpu_rank_max_pct": _PCT,
    # The machine's disturbance during a row (schema version 2; docs/SCHEMA.md).
    "cpu_steal_pct": _PCT,
    "ctx_invol_per_s": (0.0, MAX_VALUE, True, "a rate of context switches"),
    "runnable_per_cpu": (0.0, MAX_VALUE, True, "a count of tasks per CPU"),
}
for _c in ("min_us", "p50_us", "mean_us", "p90_us", "p99_us", "p999_us", "p9999_us", "max_us",
           "stddev_us", "loop_us", "comm_us", "osu_avg_us", "imb_tmin_us", "imb_tmax_us",
           "late_p50_us", "late_p99_us"):
    _RANGES[_c] = _TIME
_RANGES["count"] = (-1, None, False, "a count of elements (-1: not a collective)")
# column -> (type, lowest, highest, NaN allowed, what)
COLUMNS: Dict[str, Tuple[Any, ...]] = {c: (schema.column_kind(c),) + r for c, r in _RANGES.items()}


# Text columns (the schema's str columns: a collective's type and reduction as nccl-tests
# names them, "" for other kernels, "none" where there is none): short names of letters,
# digits and _. A row's quality (one of four words) and its reasons (words of a-z joined by
# ';', at most 79 characters), a --split group's name and members.
TEXT_COLUMNS = schema.text_columns()
TEXT_NAME = re.compile(r"[A-Za-z0-9_]{0,32}\Z")
TEXT_RULES: Dict[str, Tuple["Pattern[str]", str]] = {
    "quality": (re.compile(r"(?:ok|noisy|disturbed|invalid)\Z"),
                "one of ok, noisy, disturbed, invalid"),
    "quality_reason": (re.compile(r"[a-z;]{0,79}\Z"),
                       "words of a-z joined by ';' (at most 79 characters)"),
    # --split: mod2=1, div4=0, node=HOST, rail=0 (a host name: letters, digits, . - _)
    "group": (re.compile(r"[A-Za-z0-9_.=-]{0,63}\Z"),
              "a group's name (letters, digits, _ . = -; at most 63)"),
    "group_ranks": (re.compile(r"[0-9,.]{0,191}\Z"),
                    "ranks joined by ',' (at most 191 characters)"),
}


def column_kind(name: str) -> str:
    """'int' or 'float' for a column of the schema, 'str' for a text column, 'num' for one it
    does not list."""
    if name in TEXT_COLUMNS:
        return "str"
    spec = COLUMNS.get(name)
    return str(spec[0]) if spec else "num"


def holds_strings(ds: Any) -> bool:
    """Whether a dataset holds strings (a text column the schema does not list)."""
    import h5py

    try:
        return bool(ds.get_type().get_class() == h5py.h5t.STRING)
    except Exception as e:
        raise Unreadable(ds.name, "cannot be read (%s)" % _one_line(e))


def check_text_column(name: str, values: Sequence[str], path: str,
                      sizes: Optional[Array]) -> None:
    """Mismatch at the first value of a text column that is not a short name (or, for the
    quality columns, not what TEXT_RULES admit)."""
    pattern, what = TEXT_RULES.get(name, (TEXT_NAME, "a name (letters, digits, _; at most 32)"))
    for i, v in enumerate(values):
        if not pattern.match(v):
            raise Mismatch(_row(path, i, sizes), "is '%s', not %s" % (name_text(v), what))


def check_column(name: str, data: Array, path: str, sizes: Optional[Array],
                 iterations: Optional[Array]) -> None:
    """Mismatch at the first impossible value of a column (a numpy array); `sizes` and
    `iterations` are the table's bytes and iterations columns (or None) to name the row and
    to know which rows measured nothing."""
    spec = COLUMNS.get(name)
    with np.errstate(invalid="ignore"):
        if spec is None:  # a column the schema does not list (yet): numbers, not infinite
            if data.dtype.kind == "f":
                bad = np.isinf(data)
                if bad.any():
                    i = int(np.argmax(bad))
                    raise Mismatch(_row(path, i, sizes),
                                   "is %s; a table value is finite (NaN: not available)" %
                                   float(data[i]))
            return
        kind, lo, hi, nan_ok, what = spec
        if kind == "int":
            bad = data < lo
            if hi is not None:
                bad |= data > hi
            if bad.any():
                i = int(np.argmax(bad))
                rng = "%d or %d" % (lo, hi) if hi is not None and hi - lo == 1 else \
                    "at least %d" % lo if hi is None else "%d to %d" % (lo, hi)
                raise Mismatch(_row(path, i, sizes), "is %d: impossible, %s is %s" %
                               (int(data[i]), what, rng))
            return
        x = data.astype(np.float64)
        nan = np.isnan(x)
        if nan_ok == "rate":
            measured = np.ones(len(x), dtype=bool) if iterations is None else iterations > 0
            badnan = nan & measured
            if badnan.any():
                i = int(np.argmax(badnan))
                raise Mismatch(_row(path, i, sizes), "is NaN: impossible, %s of a row with "
                               "timed iterations is a number" % what)
        elif not nan_ok and nan.any():
            i = int(np.argmax(nan))
            raise Mismatch(_row(path, i, sizes), "is NaN: impossible, %s is a number" % what)
        bad = ~nan & ((x < lo) | (x > hi))
        if bad.any():
            i = int(np.argmax(bad))
            v = float(x[i])
            why = "%s cannot be negative" % what if v < 0 and lo == 0 else \
                "%s is at least %g" % (what, lo) if v < lo else \
                "%s is finite" % what if math.isinf(v) else "%s is at most %g" % (what, hi)
            raise Mismatch(_row(path, i, sizes), "is %r: impossible, %s" % (v, why))


def check_samples(data: Array, path: str) -> None:
    """Per-iteration times: finite and not negative."""
    x = data.astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(x) | (x < 0) | (x > MAX_VALUE)
    if bad.any():
        i = int(np.argmax(bad))
        raise Mismatch("%s element %d" % (path, i), "is %r: impossible, a time is a finite "
                       "number from 0 to %g us" % (float(x[i]), MAX_VALUE))


def _row(path: str, i: int, sizes: Optional[Array]) -> str:
    if sizes is not None and i < len(sizes):
        return "%s row %d (%d B)" % (path, i, int(sizes[i]))
    return "%s row %d" % (path, i)
