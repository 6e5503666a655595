# SPDX-License-Identifier: BSD-3-Clause
"""Reading fabricbench's JSON outputs into what loading.py makes of a result file.

`fabricbench run --json FILE` writes JSON Lines (a run record, kernel, row and kernel_end
records, an end record; one run after another with --repeat or --append) and `--json-doc FILE`
one JSON document ({"schema", "schema_version", "status", "runs": [{"status", "run",
"kernels": [{..., "rows": [...]}], "end"}]}), docs/SCHEMA.md. Both carry the HDF5 file's run
and kernel metadata, every column by the same name and unit, and the adaptive rows' block
medians; not the per-iteration samples (--samples) nor a pairs kernel's matrix.

Which one a file is, is decided by its content (sniff), not its name. Like an HDF5 file, it is
read as hostile: every line parses as one JSON object (no NaN or Infinity, which JSON has not,
no number beyond a double or a 64-bit integer, no key twice in an object), every field has the
type the schema gives it, every row has every column its run's `units` lists, and the values
pass hostile.py's checks. The first that does not is an AnalysisError naming the file and the
line (JSON Lines) or the record (runs[0].kernels[1].rows[3]) and what was wrong. A run without
its end record is one that never finished (status running: killed), as in an HDF5 file; a last
line cut short is what a kill leaves while that line was written, and is left out with a note.
"""
import json
import math
import re
from typing import (Any, BinaryIO, Dict, FrozenSet, Iterator, List, Mapping, Optional, Tuple,
                    Union, cast)

import numpy as np

from ..model import hostile
from ..model.arrays import Array
from ..model.errors import AnalysisError, UsageError
from . import runmeta
from .limits import Budget
from .rundata import KernelData, Note, RowData, RunData

MAX_LINE = 64 << 20  # a line of JSON Lines (a run record of a huge cluster is the longest)
MAX_DOCUMENT = 256 << 20  # a JSON file (Lines or document), read whole: about 10 s to parse
RECORDS = ("run", "kernel", "row", "kernel_end", "end")

_HINT = ("fabricbench does not write this (docs/SCHEMA.md): the file was damaged or edited; "
         "copy it again from where fabricbench wrote it")


class Bad(Exception):
    """What is wrong (`what`) at a place of the file (`where`: 'line 7 (row record)',
    'runs[0].kernels[1]')."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__("%s: %s" % (where, what))
        self.where = where
        self.what = what


class _Obj(Dict[str, Any]):
    """A JSON object; `dup` names a key it had twice."""
    dup: Optional[str] = None


class _Wrong:
    """A value JSON's grammar lets through and fabricbench never writes: NaN, Infinity, a
    number beyond a double or a 64-bit integer. Reported where it is read."""

    def __init__(self, what: str) -> None:
        self.what = what


def _pairs(pairs: List[Tuple[str, Any]]) -> _Obj:
    d = _Obj()
    for k, v in pairs:
        if k in d and d.dup is None:
            d.dup = k
        d[k] = v
    return d


def _constant(name: str) -> _Wrong:
    return _Wrong("%s, which is not JSON (fabricbench writes null for a value that is not a "
                  "number)" % name)


def _float(s: str) -> Union[float, _Wrong]:
    v = float(s)
    if not math.isfinite(v):
        return _Wrong("the number %s, beyond the range of a double" % _cut(s))
    return v


def _int(s: str) -> Union[int, _Wrong]:
    if len(s) > 21 or not -(1 << 63) <= int(s) < (1 << 64):
        return _Wrong("the number %s, beyond the range of a 64-bit integer" % _cut(s))
    return int(s)


def _cut(s: str) -> str:
    return s if len(s) <= 24 else s[:21] + "..."


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant,
                            parse_float=_float, parse_int=_int)


def sniff(head: bytes) -> Optional[str]:
    """'jsonl', 'document' or None (not JSON: HDF5 or anything else), by a file's first bytes
    (up to 64 KiB)."""
    text = head.lstrip(b" \t\r\n")
    if not text.startswith(b"{"):
        return None
    first = text.split(b"\n", 1)[0]
    try:
        rec = json.loads(first.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        # a document spread over lines; or JSON Lines whose first line is damaged
        return "jsonl" if first.startswith(b'{"record"') else "document"
    return "jsonl" if isinstance(rec, dict) and "record" in rec else "document"


# ------------------------------------------------------------------ values


def _obj(v: Any, where: str, what: str = "an object") -> Dict[str, Any]:
    if isinstance(v, _Wrong):
        raise Bad(where, "holds %s" % v.what)
    if not isinstance(v, dict):
        raise Bad(where, "is %s; %s is expected" % (_type(v), what))
    dup = v.dup if isinstance(v, _Obj) else None
    if dup is not None:
        raise Bad(where, "has the key %s twice" % hostile.name_text(dup))
    return v


def _type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean (%s)" % ("true" if v else "false")
    if isinstance(v, int):
        return "the integer %d" % v
    if isinstance(v, float):
        return "the number %r" % v
    if isinstance(v, str):
        return "a string (\"%s\")" % hostile.name_text(v)
    if isinstance(v, list):
        return "an array"
    if isinstance(v, _Wrong):
        return v.what
    return "an object"


def _value(v: Any, kind: str, where: str) -> Any:
    """A field of kind 'str', 'int' (a JSON integer), 'float' (a number, or null: NaN) or
    'num' (int or float as written)."""
    if isinstance(v, _Wrong):
        raise Bad(where, "is %s" % v.what)
    if kind == "str":
        if not isinstance(v, str):
            raise Bad(where, "is %s; a string is expected" % _type(v))
        return hostile.file_text(v)
    if kind == "int":
        if not isinstance(v, int) or isinstance(v, bool):
            raise Bad(where, "is %s; an integer is expected" % _type(v))
        return v
    if v is None:
        return math.nan
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise Bad(where, "is %s; a number (or null) is expected" % _type(v))
    return float(v) if kind == "float" else v


def _fields(obj: Mapping[str, Any], where: str,
            spec: Mapping[str, runmeta.AttrSpec]) -> Dict[str, Any]:
    """The fields of `spec` (tidy column -> (key, kind, default[, check])) of obj, checked."""
    out: Dict[str, Any] = {}
    for col, (key, kind, default, *check) in spec.items():
        if key not in obj:
            out[col] = default
            continue
        fwhere = "%s: field %s" % (where, key)
        v = _value(obj[key], kind, fwhere)
        if check:
            bad = check[0](v)
            if bad:
                raise Bad(fwhere, bad)
        out[col] = v
    return out


# ------------------------------------------------------------------ one run


class _Kernel:
    def __init__(self, fields: Dict[str, Any], where: str) -> None:
        self.fields = fields  # the kernel record's (or the document's kernel object's)
        self.where = where
        self.status = ""
        self.rows: List[Tuple[Dict[str, Any], str]] = []  # (row object, where)


class _Run:
    def __init__(self, rec: Dict[str, Any], where: str) -> None:
        self.rec = rec  # the run record, or the document's run object
        self.where = where
        self.end: Optional[Dict[str, Any]] = None
        self.status: Optional[str] = None
        self.kernels: List[_Kernel] = []


def _units(run: _Run) -> Tuple[List[str], Dict[str, str]]:
    where = run.where
    if "units" not in run.rec:
        raise Bad(where, "has no units (column name to unit); fabricbench writes them")
    units = _obj(run.rec["units"], where + ": field units")
    cols = []
    for c, u in units.items():
        if not hostile.COLUMN_NAME.match(c):
            raise Bad(where + ": field units", "names a column '%s'; column names are letters, "
                      "digits and _" % hostile.name_text(c))
        if c in _reserved():
            raise Bad(where + ": field units", "names a column %s, as a column the analysis "
                      "adds itself is named; no table column has that name" % c)
        _value(u, "str", "%s: the unit of %s" % (where, c))
        cols.append(c)
    if "bytes" not in cols:
        raise Bad(where + ": field units", "has no bytes column; every table has one")
    return cols, {c: hostile.file_text(units[c]) for c in cols}


def _reserved() -> FrozenSet[str]:
    return runmeta.RESERVED


def _column(kernel: _Kernel, c: str, kind: str) -> Union[List[str], Array]:
    """Column c of a kernel's rows as a numpy array (every row must have it)."""
    vals = []
    for row, where in kernel.rows:
        if c not in row:
            raise Bad(where, "has no %s; every row has every column of its run's units" % c)
        v = row[c]
        if isinstance(v, _Wrong):
            raise Bad(where, "%s is %s" % (c, v.what))
        if kind == "str":
            if not isinstance(v, str):
                raise Bad(where, "%s is %s; a string is expected" % (c, _type(v)))
        elif kind == "int":
            if not isinstance(v, int) or isinstance(v, bool):
                raise Bad(where, "%s is %s; an integer is expected" % (c, _type(v)))
        elif v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)):
            raise Bad(where, "%s is %s; a number (or null) is expected" % (c, _type(v)))
        vals.append(v)
    if kind == "str":
        return vals
    if kind == "int":
        if any(v >= (1 << 63) for v in vals):
            i = next(i for i, v in enumerate(vals) if v >= (1 << 63))
            raise Bad(kernel.rows[i][1], "%s is %d, beyond what fabricbench writes" %
                      (c, vals[i]))
        return np.array(vals, dtype=np.int64)
    return np.array([math.nan if v is None else float(v) for v in vals], dtype=np.float64)


def _table(kernel: _Kernel, cols: List[str]) -> List[RowData]:
    """The rows of a kernel (a list of {column: value}) with their block medians, checked."""
    if len(kernel.rows) > hostile.MAX_ROWS:
        raise Bad(kernel.where, "has %d rows; a table has at most %d" %
                  (len(kernel.rows), hostile.MAX_ROWS))
    data = {c: _column(kernel, c, hostile.column_kind(c)) for c in cols}
    # integer columns (the schema's u64): arrays, never text
    sizes = cast(Array, data["bytes"])
    iterations = cast(Optional[Array], data.get("iterations"))
    for c, v in data.items():
        try:
            if isinstance(v, list):  # a text column (type, redop): short names
                hostile.check_text_column(c, v, c, sizes)
            else:
                hostile.check_column(c, v, c, sizes, iterations)
        except hostile.Mismatch as e:
            m = re.search(r" row (\d+)", e.where)
            at = kernel.rows[int(m.group(1))][1] if m else kernel.where
            raise Bad(at, "%s %s" % (c, e.what))
    out = []
    for i, (row, where) in enumerate(kernel.rows):
        r = {c: (hostile.file_text(v[i]) if isinstance(v, list) else
                 int(v[i]) if v.dtype.kind in "iu" else float(v[i])) for c, v in data.items()}
        out.append(RowData(r, None, _blocks(row, where)))
    return out


def _blocks(row: Dict[str, Any], where: str) -> Optional[Array]:
    if "block_medians_us" not in row:
        return None
    v = row["block_medians_us"]
    bwhere = where + ": block_medians_us"
    if not isinstance(v, list):
        raise Bad(bwhere, "is %s; an array of times is expected" % _type(v))
    if len(v) > hostile.MAX_BLOCKS:
        raise Bad(bwhere, "has %d elements; a row has at most %d block medians" %
                  (len(v), hostile.MAX_BLOCKS))
    for i, x in enumerate(v):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise Bad("%s element %d" % (bwhere, i), "is %s; a time is expected" % _type(x))
    arr = np.array(v, dtype=np.float64)
    try:
        hostile.check_samples(arr, bwhere)
    except hostile.Mismatch as e:
        raise Bad(e.where, e.what)
    return arr


def _meta(run: _Run, path: str, name: str) -> Dict[str, Any]:
    merged = _Obj(run.rec)
    if run.end is not None:
        merged.update(run.end)
    if run.status is not None:
        merged["status"] = run.status
    elif run.end is None:
        merged["status"] = "running"  # no end record: killed, or still going
    if "schema" not in merged:
        raise Bad(run.where, "has no schema; fabricbench writes \"schema\": \"%s\"" %
                  runmeta.SCHEMA)
    schema = _value(merged["schema"], "str", run.where + ": field schema")
    if schema != runmeta.SCHEMA:
        raise Bad(run.where + ": field schema", "is '%s', not '%s'" % (schema, runmeta.SCHEMA))
    version = merged.get("schema_version")
    if version is None:
        raise Bad(run.where, "has no schema_version; fabricbench writes one")
    version = _value(version, "int", run.where + ": field schema_version")
    if version > runmeta.SCHEMA_VERSION:
        raise AnalysisError(
            "%s has schema_version %d; this fabricbench-analyze reads version %d only" %
            (path, version, runmeta.SCHEMA_VERSION),
            "use the fabricbench-analyze installed with the fabricbench that wrote it")
    if version < 1:
        raise Bad(run.where + ": field schema_version", "is %d, which no fabricbench wrote" %
                  version)
    meta = _fields(merged, run.where, runmeta.RUN_ATTRS)
    hosts = merged.get("hostnames", [])
    if not isinstance(hosts, list):
        raise Bad(run.where + ": field hostnames", "is %s; an array of host names is expected" %
                  _type(hosts))
    if len(hosts) > hostile.MAX_HOSTS:
        raise Bad(run.where + ": field hostnames", "has %d entries; at most %d" %
                  (len(hosts), hostile.MAX_HOSTS))
    hosts = [_value(h, "str", "%s: hostnames element %d" % (run.where, i))
             for i, h in enumerate(hosts)]
    runmeta.finish_run_meta(meta, hosts, path, name)
    env = merged.get("env", {})
    if not isinstance(env, dict):
        raise Bad(run.where + ": field env", "is %s; an object of variables is expected" %
                  _type(env))
    if len(env) > runmeta.MAX_ENV:
        raise Bad(run.where + ": field env", "has %d entries; at most %d" %
                  (len(env), runmeta.MAX_ENV))
    meta["env_options"] = runmeta.env_options(
        (k, _value(v, "str", "%s: env %s" % (run.where, k))) for k, v in env.items()
        if isinstance(k, str))
    return meta


def _kernels(run: _Run, path: str, name: str, cols: List[str],
             units: Dict[str, str]) -> List[KernelData]:
    out = []
    for i, k in enumerate(run.kernels):
        fields = _Obj(k.fields)
        fields["status"] = k.status
        kmeta = _fields(fields, k.where, runmeta.KERNEL_ATTRS)
        if not kmeta["kernel"]:
            raise Bad(k.where, "names no kernel")
        kmeta["kernel_id"] = "%02d_%s" % (i, kmeta["kernel"])
        out.append(KernelData(kmeta, _table(k, cols), dict(units)))
    return out


def _runs_selected(runs: List[_Run], path: str, run: Optional[str]) -> List[Tuple[str, _Run]]:
    names = ["run_%04d" % i for i in range(len(runs))]
    if not runs:
        raise AnalysisError("%s holds no run (no run record)" % path,
                            "the run that wrote it stopped before it started; run again")
    if run is None or run == "all":
        return list(zip(names, runs))
    if run == "latest":
        return [(names[-1], runs[-1])]
    want = "run_%04d" % int(run) if re.fullmatch(r"\d+", run) else run
    if want not in names:
        raise UsageError("%s has no run '%s' (it has %s)" % (path, run, ", ".join(names)),
                         "--run takes all, latest, a run name or its number")
    return [(want, runs[names.index(want)])]


def _result(runs: List[_Run], path: str, run: Optional[str]) -> List[RunData]:
    out = []
    for name, r in _runs_selected(runs, path, run):
        cols, units = _units(r)
        meta = _meta(r, path, name)
        out.append(RunData(meta, _kernels(r, path, name, cols, units)))
    return out


# ------------------------------------------------------------------ JSON Lines


def _lines(f: BinaryIO, path: str, note: Note) -> Iterator[Tuple[int, Any]]:
    """(line number, record) of every line of the open file f; a last line cut short is left
    out (note)."""
    n = 0
    while True:
        raw = f.readline(MAX_LINE + 1)
        if not raw:
            return
        n += 1
        if len(raw) > MAX_LINE:
            raise Bad("line %d" % n, "is longer than %d MiB; fabricbench's lines are "
                      "shorter" % (MAX_LINE >> 20))
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Bad("line %d" % n, "is not valid UTF-8 (byte 0x%02X at offset %d); "
                      "fabricbench writes UTF-8 only" % (raw[e.start], e.start))
        try:
            rec = _DECODER.decode(text)
        except ValueError as e:
            if not raw.endswith(b"\n") and not f.read(1):
                note("%s: line %d is cut short (%s): the run was stopped while writing it; "
                     "left out" % (path, n, _msg(e)))
                return
            raise Bad("line %d" % n, "is not JSON (%s)" % _msg(e))
        yield n, rec


def _msg(e: ValueError) -> str:
    m = getattr(e, "msg", None)
    return ("%s, column %d" % (m, e.colno)) if m and hasattr(e, "colno") else str(e)


def _read_jsonl(f: BinaryIO, path: str, run: Optional[str], note: Note,
                budget: Budget) -> List[RunData]:
    runs = []
    cur: Optional[_Run] = None
    for n, rec in _lines(f, path, note):
        where = "line %d" % n
        rec = _obj(rec, where, "a JSON object (one record per line)")
        if "record" not in rec:
            raise Bad(where, "has no \"record\" (run, kernel, row, kernel_end or end)")
        kind = _value(rec["record"], "str", where + ": field record")
        where = "line %d (%s record)" % (n, kind)
        if kind not in RECORDS:
            continue  # a newer fabricbench's record: not read here
        if kind == "run":
            budget.add("runs", 1, path, where)
            cur = _Run(rec, where)
            runs.append(cur)
            continue
        if cur is None:
            raise Bad(where, "comes before any run record; a file starts with one")
        if cur.end is not None:
            raise Bad(where, "comes after its run's end record")
        if kind == "end":
            cur.end = rec
        elif kind == "kernel":
            budget.add("kernels", 1, path, where)
            cur.kernels.append(_Kernel(rec, where))
        elif kind == "kernel_end":
            name = _value(rec.get("kernel"), "str", where + ": field kernel")
            if not cur.kernels or cur.kernels[-1].fields.get("kernel") != name:
                raise Bad(where, "ends kernel %s, which is not the kernel running" %
                          hostile.name_text(name))
            cur.kernels[-1].status = _value(rec.get("status", ""), "str",
                                            where + ": field status")
        else:
            name = _value(rec.get("kernel"), "str", where + ": field kernel")
            if not cur.kernels or cur.kernels[-1].fields.get("kernel") != name:
                # files from before the kernel records: rows name their kernel
                budget.add("kernels", 1, path, where)
                cur.kernels.append(_Kernel({"kernel": name, "kind": rec.get("kind", "")},
                                           where))
            budget.add("rows", 1, path, where)
            cur.kernels[-1].rows.append((rec, where))
    return _result(runs, path, run)


# ------------------------------------------------------------------ the JSON document


def _read_document(f: BinaryIO, path: str, run: Optional[str], budget: Budget) -> List[RunData]:
    data = f.read(MAX_DOCUMENT + 1)
    if len(data) > MAX_DOCUMENT:
        raise Bad("the document", "is larger than %d MiB" % (MAX_DOCUMENT >> 20))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Bad("byte %d" % e.start, "is not valid UTF-8 (0x%02X); fabricbench writes UTF-8 "
                  "only" % data[e.start])
    try:
        doc = _DECODER.decode(text)
    except ValueError as e:
        where = "line %d" % e.lineno if hasattr(e, "lineno") else "the document"
        raise Bad(where, "is not JSON (%s)%s" % (_msg(e), "; the copy may have been cut "
                                                 "short" if "Expecting" in str(e) and
                                                 getattr(e, "pos", -1) >= len(text.rstrip())
                                                 else ""))
    doc = _obj(doc, "the document", "one JSON object")
    if "runs" not in doc:
        raise Bad("the document", "has no runs; fabricbench's JSON document has them")
    if not isinstance(doc["runs"], list):
        raise Bad("runs", "is %s; an array is expected" % _type(doc["runs"]))
    budget.add("runs", len(doc["runs"]), path)
    runs = []
    for i, r in enumerate(doc["runs"]):
        where = "runs[%d]" % i
        r = _obj(r, where)
        inner = _obj(r.get("run"), where + ".run")
        for key in ("schema", "schema_version"):  # the document's, for every run
            if key in doc and key not in inner:
                inner = _Obj(inner)
                inner[key] = doc[key]
        run_ = _Run(inner, where + ".run")
        if "status" in r:
            run_.status = _value(r["status"], "str", where + ".status")
        if r.get("end") is not None:
            run_.end = _obj(r["end"], where + ".end")
        kernels = r.get("kernels", [])
        if not isinstance(kernels, list):
            raise Bad(where + ".kernels", "is %s; an array is expected" % _type(kernels))
        budget.add("kernels", len(kernels), path, where)
        for j, k in enumerate(kernels):
            kwhere = "%s.kernels[%d]" % (where, j)
            k = _obj(k, kwhere)
            kern = _Kernel(k, kwhere)
            kern.status = _value(k.get("status", ""), "str", kwhere + ".status")
            rows = k.get("rows", [])
            if not isinstance(rows, list):
                raise Bad(kwhere + ".rows", "is %s; an array is expected" % _type(rows))
            budget.add("rows", len(rows), path, kwhere)
            for m, row in enumerate(rows):
                rwhere = "%s.rows[%d]" % (kwhere, m)
                kern.rows.append((_obj(row, rwhere), rwhere))
            run_.kernels.append(kern)
        runs.append(run_)
    return _result(runs, path, run)


def read_file(f: BinaryIO, path: str, kind: str, run: Optional[str], note: Note,
              budget: Budget) -> List[RunData]:
    """The runs of a JSON Lines file or JSON document (open as f) as loading._read_file
    returns them; budget (limits.Budget) counts its runs, kernels and rows as they are
    parsed. A file larger than MAX_DOCUMENT is refused before it is parsed."""
    import os

    size = os.fstat(f.fileno()).st_size
    if size > MAX_DOCUMENT:
        raise AnalysisError("%s (%s) holds %d bytes; fabricbench-analyze reads JSON files of "
                            "at most %d bytes (%.0f MiB)" % (
                                path, "JSON Lines" if kind == "jsonl" else "JSON document",
                                size, MAX_DOCUMENT, MAX_DOCUMENT / (1 << 20)),
                            "give the HDF5 file of the same runs (-o), which is read run by "
                            "run, or split the file")
    try:
        if kind == "jsonl":
            return _read_jsonl(f, path, run, note, budget)
        return _read_document(f, path, run, budget)
    except Bad as e:
        raise AnalysisError("%s (%s): %s" % (path, "JSON Lines" if kind == "jsonl" else
                                             "JSON document", hostile.safe_text(str(e))), _HINT)
    except OSError as e:
        raise AnalysisError("cannot read %s: %s" % (path, e.strerror or e),
                            "check its permissions")
