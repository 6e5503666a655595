# SPDX-License-Identifier: BSD-3-Clause
"""Reading fabricbench result files (docs/SCHEMA.md) into one tidy table.

load(paths) is the only reader; everything else works on the Table it returns.
"""
import math
import os
import re
from typing import (Any, BinaryIO, Callable, Dict, Iterator, List, Mapping, Optional, Sequence,
                    Tuple, Union, cast)

from ..model import hostile, quality
from ..model.errors import AnalysisError, NoRows, UsageError
from ..model.noise import row_noise
from ..model.table import (DERIVED_COLUMNS, INT_DEFAULTS, KERNEL_COLUMNS, META_UNITS, RUN_COLUMNS,
                    TABLE_COLUMNS, Row, Table)
from ..model.arrays import Array
from . import files, jsonload, limits
from .rundata import KernelData, Note, RowData, RunData
from .runmeta import (KERNEL_ATTRS, MAX_ENV, RESERVED, RUN_ATTRS, SCHEMA, SCHEMA_VERSION,
                      AttrSpec, env_options, finish_run_meta, transport_short)

# SCHEMA, SCHEMA_VERSION, transport_short, ...: runmeta.py's, read through this module too.
__all__ = ["load", "SCHEMA", "SCHEMA_VERSION", "MAX_ENV", "env_options", "finish_run_meta",
           "transport_short"]


def _attrs(obj: Any, where: str, spec: Mapping[str, AttrSpec]) -> Dict[str, Any]:
    """The attributes of `spec` (tidy column -> (attribute, type, default[, check])), each
    checked (hostile.attribute)."""
    out: Dict[str, Any] = {}
    for col, (name, kind, default, *check) in spec.items():
        out[col] = hostile.attribute(obj, where, name, kind, default,
                                     check[0] if check else None)
    return out


STATUS_COMPLETE = "complete"


class _Damaged(Exception):
    pass


def _open(f: BinaryIO, path: str, head: bytes) -> Any:
    """The HDF5 file of the open input f (files.open_input), opened by HDF5 through
    /proc/self/fd: the file checked is the file read."""
    import h5py

    name = files.fd_path(f, path)
    if not h5py.is_hdf5(name):
        what = "it is empty" if not head else _guess_format(head)
        raise AnalysisError("%s is not an HDF5 file (%s)" % (path, what),
                            "give the .h5 result file fabricbench wrote (-o FILE.h5), or its "
                            "--json or --json-doc output; CSV is not read here")
    try:
        return h5py.File(name, "r")
    except (OSError, ValueError, RuntimeError, KeyError) as e:
        msg = _one_line(e)
        m = re.search(r"truncated file: eof = (\d+).*stored_eof = (\d+)", msg)
        if m:
            raise AnalysisError(
                "%s is truncated: it holds %s bytes, its HDF5 header says %s" %
                (path, m.group(1), m.group(2)),
                "the copy was cut short (fabricbench replaces its result file atomically, so "
                "the original is whole); copy it again")
        raise AnalysisError("%s is damaged: HDF5 cannot open it (%s)" % (path, msg),
                            "copy the file again from where fabricbench wrote it")


def open_input(path: str) -> Tuple[BinaryIO, bytes, Optional[str]]:
    """(open file object, its first 64 KiB, 'jsonl' | 'document' | None): a result file is
    a regular file (files.open_input); what it is, is decided by its content."""
    f = files.open_input(path, "a result file")
    try:
        head = f.read(1 << 16)
        f.seek(0)
    except OSError as e:
        f.close()
        raise AnalysisError("cannot read %s: %s" % (path, e.strerror or e),
                            "check its permissions")
    return f, head, jsonload.sniff(head)


def _guess_format(head: bytes) -> str:
    text = head.lstrip()
    if text.startswith(b"kernel,"):
        return "it looks like CSV, fabricbench's --csv output"
    if text.startswith(b"#"):
        return "it looks like fabricbench's text output"
    return "its first bytes are not the HDF5 signature"


def _check_schema(f: Any, path: str) -> None:
    schema = hostile.attribute(f, "", "schema", "str", None)
    if schema is None:
        raise AnalysisError("%s is an HDF5 file but not a fabricbench result: the root has no "
                            "'schema' attribute" % path,
                            "give files written by `fabricbench run -o FILE.h5`")
    if schema != SCHEMA:
        raise AnalysisError("%s is not a fabricbench result: its schema is '%s', not '%s'" %
                            (path, hostile.name_text(schema), SCHEMA),
                            "give files written by fabricbench run")
    version = hostile.attribute(f, "", "schema_version", "int", None)
    if version is None:
        raise AnalysisError("%s has no schema_version attribute" % path,
                            "the file is damaged or was not written by fabricbench")
    if version > SCHEMA_VERSION:
        tool = ""
        try:
            runs = f["runs"]
            last = sorted(runs.keys())[-1]
            tool = hostile.attribute(runs[last], "", "tool", "str", "")
        except Exception:  # the hint is a courtesy; the error stands without it
            pass
        raise AnalysisError(
            "%s has schema_version %d; this fabricbench-analyze reads version %d only" %
            (path, version, SCHEMA_VERSION),
            "use the fabricbench-analyze installed with the fabricbench that wrote it%s" %
            (" (%s)" % tool if tool else ""))
    if version < 1:
        raise AnalysisError("%s has schema_version %d, which no fabricbench wrote" %
                            (path, version), "the file is damaged")


def kernel_groups(g: Any, where: str, budget: Optional[limits.Budget] = None,
                  path: str = "") -> Iterator[Tuple[str, str, Any]]:
    """(id, where, group) of each kernel group of run group g (called where), in order; a
    group not named NN_KERNEL, or not a group, is a Mismatch. budget (limits.Budget) counts
    them before any is read."""
    kgroup = hostile.child(g, where, "kernels", "group")
    if kgroup is not None and budget is not None:
        budget.add("kernels", _count(kgroup, where + "/kernels"), path, where)
    kids = hostile.children(kgroup, where + "/kernels") if kgroup is not None else []
    for kid in kids:
        kwhere = hostile.join(where + "/kernels", kid)
        if not hostile.KERNEL_ID.match(kid):
            raise hostile.Mismatch(kwhere, "is not named NN_KERNEL (00_latency); a kernel's "
                                   "group is named by its number and kernel name")
        yield kid, kwhere, hostile.child(kgroup, where + "/kernels", kid, "group", required=True)


def _count(group: Any, where: str) -> int:
    """The number of members of a group, without listing them."""
    try:
        return int(group.id.get_num_objs())
    except Exception as e:
        raise hostile.Unreadable(where, "cannot be listed (%s)" % _one_line(e))


def _select_runs(f: Any, path: str, run: Optional[str],
                 budget: Optional[limits.Budget] = None) -> List[str]:
    """The names of the runs selected (--run); budget (limits.Budget) counts them."""
    runs = hostile.child(f, "", "runs", "group")
    if runs is not None and _count(runs, "/runs") > limits.MAX_RUN_GROUPS:
        raise AnalysisError("%s holds %d runs; fabricbench-analyze lists at most %d" % (
            path, _count(runs, "/runs"), limits.MAX_RUN_GROUPS),
            "split the file (h5copy copies runs into a file of their own)")
    names = _selected(f, path, run, runs)
    if budget is not None:
        budget.add("runs", len(names), path)
    return names


def _selected(f: Any, path: str, run: Optional[str], runs: Any) -> List[str]:
    names = hostile.children(runs, "/runs") if runs is not None else []
    if not names:
        raise AnalysisError("%s holds no runs (no groups under /runs)" % path,
                            "the run that wrote it stopped before its first commit; run again")
    for n in names:
        if not hostile.RUN_NAME.match(n):
            raise hostile.Mismatch(hostile.join("/runs", n), "is not named run_NNNN; /runs "
                                   "holds one group per run, run_0000, run_0001, ...")
    if run is None or run == "all":
        return names
    if run == "latest":
        latest = hostile.attribute(f, "", "latest_run", "str", "")
        return [latest if latest in names else names[-1]]
    want = run
    if re.fullmatch(r"\d+", run):
        want = "run_%04d" % int(run)
    if want not in names:
        raise UsageError("%s has no run '%s' (it has %s)" % (path, run, ", ".join(names)),
                         "--run takes all, latest, a run name or its number")
    return [want]


def _read_run(f: Any, path: str, name: str, warn: Note, budget: limits.Budget) -> RunData:
    where = "/runs/" + name
    g = hostile.child(f["runs"], "/runs", name, "group", required=True)
    meta = _attrs(g, where, RUN_ATTRS)
    hosts: List[str] = []
    ds = hostile.child(g, where, "hostnames", "dataset")
    if ds is not None:
        hosts = hostile.strings(ds, where + "/hostnames", "the hostnames dataset",
                                hostile.MAX_HOSTS)
    finish_run_meta(meta, hosts, path, name)
    meta["env_options"] = _env_options(g, where)

    kernels: List[KernelData] = []
    for kid, kwhere, k in kernel_groups(g, where, budget, path):
        kmeta = _attrs(k, kwhere, KERNEL_ATTRS)
        kmeta["kernel_id"] = kid
        if not kmeta["kernel"]:
            kmeta["kernel"] = kid.split("_", 1)[-1]
        t = hostile.child(k, kwhere, "table", "group")
        if t is None:
            warn("%s %s: kernel %s has no table; skipped" % (path, name, kid))
            continue
        rows, units = _read_table(t, kwhere + "/table", path, name, kid, warn, budget)
        samples = hostile.child(k, kwhere, "samples", "group")
        blocks = hostile.child(k, kwhere, "blocks", "group")
        out = []
        for row in rows:
            key = str(row["bytes"]) if "bytes" in row else None
            s = _row_vector(samples, kwhere + "/samples", key, "a samples dataset",
                            hostile.MAX_SAMPLES)
            b = _row_vector(blocks, kwhere + "/blocks", key, "a block medians dataset",
                            hostile.MAX_BLOCKS)
            out.append(RowData(row, s, b))
        kernels.append(KernelData(kmeta, out, units))
    return RunData(meta, kernels)


def _env_options(g: Any, where: str) -> str:
    """env_options of an HDF5 run's env group (its attributes, checked as hostile)."""
    env = hostile.child(g, where, "env", "group")
    if env is None:
        return ""
    ewhere = where + "/env"
    names = hostile.attribute_names(env, ewhere, MAX_ENV)
    return env_options((n, hostile.attribute(env, ewhere, n, "str", "")) for n in names
                       if n.startswith("FABRICBENCH_") and hostile.ENV_NAME.match(n))


def _row_vector(group: Any, gwhere: str, key: Optional[str], what: str,
                limit: int) -> Optional[Array]:
    """A row's vector (samples/<bytes>, blocks/<bytes>) of times in us, checked; None when
    the file has none for it."""
    if group is None or key is None:
        return None
    ds = hostile.child(group, gwhere, key, "dataset")
    if ds is None:
        return None
    path = "%s/%s" % (gwhere, key)
    v = hostile.numbers(ds, path, what, "num", limit)
    hostile.check_samples(v, path)
    return v


def _read_table(t: Any, twhere: str, path: str, name: str, kid: str, warn: Note,
                budget: limits.Budget) -> Tuple[List[Row], Dict[str, str]]:
    """The rows of one table (a list of {column: value}) and its columns' units. Every
    column is a 1-D dataset of the schema's type, all of one length, its values possible."""
    listed = hostile.attribute(t, twhere, "columns", "str", None)
    if listed is None:
        cols = hostile.children(t, twhere)
    else:
        cols = [c for c in listed.split(",") if c]
    seen = set()
    for c in cols:
        if not hostile.COLUMN_NAME.match(c):
            raise hostile.Mismatch("the attribute columns of %s" % twhere if listed is not None
                                   else hostile.join(twhere, c),
                                   "names a column '%s'; column names are letters, digits and "
                                   "_" % hostile.name_text(c))
        if c in seen:
            raise hostile.Mismatch("the attribute columns of %s" % twhere,
                                   "lists %s twice" % c)
        if c in RESERVED:
            raise hostile.Mismatch(hostile.join(twhere, c), "is named like a column the "
                                   "analysis adds itself (docs/ANALYSIS.md); no table column "
                                   "has that name")
        seen.add(c)
    data: Dict[str, Union[List[str], Array]] = {}
    units: Dict[str, str] = {}
    length_of: Optional[str] = None
    for c in cols:
        cpath = "%s/%s" % (twhere, c)
        ds = hostile.child(t, twhere, c, "dataset")
        if ds is None:
            warn("%s %s %s: column %s is listed but absent; read as not available" %
                 (path, name, kid, c))
            continue
        kind = hostile.column_kind(c)
        if kind == "num" and hostile.holds_strings(ds):
            warn("%s %s %s: column %s holds text this analysis does not know (a newer "
                 "fabricbench's); not read" % (path, name, kid, c))
            continue
        v: Union[List[str], Array]
        if kind == "str":
            v = hostile.strings(ds, cpath, "a table column of text", hostile.MAX_ROWS)
        else:
            v = hostile.numbers(ds, cpath, "a table column", kind, hostile.MAX_ROWS)
        if length_of is None:
            length_of = c
            budget.add("rows", len(v), path, twhere)
        elif len(v) != len(data[length_of]):
            raise hostile.Mismatch(cpath, "has %d rows, %s/%s %d; every column of a table has "
                                   "one element per row" % (len(v), twhere, length_of,
                                                            len(data[length_of])))
        data[c] = v
        units[c] = hostile.attribute(ds, cpath, "units", "str", "")
    if data and "bytes" not in data:
        raise hostile.Mismatch(twhere, "has no bytes column; every table has one (the message "
                               "size of each row)")
    # integer columns (the schema's u64): arrays, never text
    sizes = cast(Optional[Array], data.get("bytes"))
    iterations = cast(Optional[Array], data.get("iterations"))
    for c, v in data.items():
        if isinstance(v, list):
            hostile.check_text_column(c, v, "%s/%s" % (twhere, c), sizes)
        else:
            hostile.check_column(c, v, "%s/%s" % (twhere, c), sizes, iterations)
    nrows = len(data[length_of]) if length_of is not None else 0
    rows = []
    for i in range(nrows):
        rows.append({c: (v[i] if isinstance(v, list) else int(v[i]) if v.dtype.kind in "iu"
                         else float(v[i])) for c, v in data.items()})
    return rows, units


# What h5py and numpy raise on a file whose structure is valid HDF5 but whose contents are
# not (a damaged heap, a dataset of the wrong shape or type, a missing object).
_READ_ERRORS = (OSError, KeyError, ValueError, RuntimeError, TypeError, AttributeError,
                IndexError, LookupError, ArithmeticError)
_DAMAGED_HINT = "copy the file again from where fabricbench wrote it"
_MISMATCH_HINT = ("fabricbench does not write this (docs/SCHEMA.md): the file was damaged or "
                  "edited; copy it again from where fabricbench wrote it")


def _read_file(path: str, run: Optional[str], note: Note,
               budget: limits.Budget) -> List[RunData]:
    """The runs of one file as [(meta, kernels)]; anything that does not match the schema is
    an AnalysisError naming the file and the object, never a traceback. A file of JSON
    (fabricbench's --json or --json-doc output, by its content) is read by jsonload.py."""
    src, head, kind = open_input(path)
    try:
        if kind:
            try:
                return jsonload.read_file(src, path, kind, run, note, budget)
            except AnalysisError:
                raise
            except Exception as e:  # last resort: what no damaged file is known to raise
                raise _unexpected(path, e, "reading it as JSON")
        return _read_hdf5(src, path, head, run, note, budget)
    finally:
        src.close()


def _read_hdf5(src: BinaryIO, path: str, head: bytes, run: Optional[str], note: Note,
               budget: limits.Budget) -> List[RunData]:
    f = _open(src, path, head)
    where = "reading its root attributes"
    try:
        _check_schema(f, path)
        where = "listing its runs"
        names = _select_runs(f, path, run, budget)
        out = []
        for name in names:
            where = "reading /runs/%s" % name
            out.append(_read_run(f, path, name, note, budget))
        return out
    except AnalysisError:
        raise
    except hostile.Unreadable as e:
        raise AnalysisError("%s is damaged: %s" % (path, _one_line(e)), _DAMAGED_HINT)
    except hostile.Mismatch as e:
        raise AnalysisError("%s: %s" % (path, _one_line(e)), _MISMATCH_HINT)
    except _READ_ERRORS as e:
        raise AnalysisError("%s is damaged: %s (while %s)" % (path, _one_line(e), where),
                            _DAMAGED_HINT)
    except Exception as e:  # last resort: what no damaged file is known to raise
        raise _unexpected(path, e, where)
    finally:
        try:
            f.close()
        except Exception:  # closing a damaged file can fail too; its error is reported above
            pass


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _unexpected(path: str, e: BaseException, where: str) -> AnalysisError:
    return AnalysisError("%s could not be read: %s: %s (while %s)" %
                         (path, type(e).__name__, _one_line(e), where),
                         "the file may be damaged in a way not recognised; if `h5dump -H %s` "
                         "reads it, report this as a bug of fabricbench-analyze" % path)


def _run_note(meta: Mapping[str, Any], nrows: int, kernels: Sequence[KernelData]) -> Optional[str]:
    path, name, st = meta["file"], meta["run"], meta["run_status"]
    why = " (%s)" % meta["stop_reason"] if meta["stop_reason"] else ""
    got = "%d rows of %d kernels loaded" % (nrows, len(kernels))
    if st == "interrupted":
        return ("%s %s was interrupted%s: %s; what it had not measured yet is missing" %
                (path, name, why, got))
    if st == "running":
        return ("%s %s never finished (status running: still going, or killed): %s, each "
                "complete" % (path, name, got))
    if st == "failed":
        return "%s %s failed%s: %s" % (path, name, why, got)
    if st == "complete, validation failed":
        return ("%s %s: received data failed validation (rows with validation_errors > 0)" %
                (path, name))
    if st == "complete, suspects named":
        return ("%s %s: the pairs verdict named suspect nodes or links (fabricbench show "
                "lists them)" % (path, name))
    if st and st != STATUS_COMPLETE:
        return "%s %s has status '%s'%s: %s" % (path, name, st, why, got)
    return None


def _labels(runs: List[Dict[str, Any]], user_labels: Optional[Sequence[str]]) -> List[str]:
    """A short unique name per run: the fabric (or the transport UCX chose); the file's name
    and then the run's are added only where that is not unique."""
    files: List[str] = []
    for m in runs:
        if m["file"] not in files:
            files.append(m["file"])

    def make(m: Mapping[str, Any], level: int) -> str:
        stem = os.path.splitext(m["file_name"])[0]
        if user_labels:
            base = user_labels[files.index(m["file"])]
            qual = [m["run"]] if level >= 1 else []
        else:
            if m["fabric"] and m["fabric"] not in ("any", "auto"):
                base = m["fabric"]
            else:
                base = m["transport"] or stem
            qual = [stem] if level >= 1 and stem != base else []
            if level >= 2:
                qual.append(m["run"])
        return base + (" (%s)" % " ".join(qual) if qual else "")

    levels = [0] * len(runs)
    for _ in range(3):
        labs = [make(m, lv) for m, lv in zip(runs, levels)]
        for i, lab in enumerate(labs):
            if labs.count(lab) > 1 and levels[i] < 2:
                levels[i] += 1
    labs = [make(m, lv) for m, lv in zip(runs, levels)]
    for m in runs:
        m["label_base"] = make(m, 0)
        m["label_given"] = user_labels[files.index(m["file"])] if user_labels else ""
    # The same file given twice: number every copy, counting in the names as made (counting
    # in the list being renamed would leave the last copy unnumbered).
    made = list(labs)
    seen: Dict[str, int] = {}
    for i, lab in enumerate(made):
        if made.count(lab) > 1:
            seen[lab] = seen.get(lab, 0) + 1
            labs[i] = "%s #%d" % (lab, seen[lab])
            # copies of one run are never repeats of each other (grouping.py)
            runs[i]["label_given"] = ("%s #%d" % (runs[i]["label_given"], seen[lab])).strip()
    return labs


def load(paths: Sequence[str], run: Union[str, int, None] = "all",
         labels: Optional[Sequence[str]] = None,
         warn: Optional[Callable[[str], None]] = None) -> Table:
    """Read result files into one Table (run x kernel x size rows, run metadata on each row).

    run: 'all', 'latest', a run name (run_0001) or number; labels: one per path, or None.
    warn: called with each note (interrupted runs, skipped parts); they are also kept in
    Table.notes. Raises AnalysisError with a message naming the file for anything unreadable.
    """
    notes: List[str] = []

    def note(msg: str) -> None:
        notes.append(msg)
        if warn:
            warn(msg)

    if labels and len(labels) != len(paths):
        raise UsageError("%d labels for %d files" % (len(labels), len(paths)),
                         "give one --label per file, in the files' order")
    # a run's number (1) is its name's (run_0001), as given on the command line
    which = None if run is None else str(run)
    runs: List[RunData] = []
    budget = limits.Budget()
    for path in paths:
        runs.extend(_read_file(path, which, note, budget))

    metas = [r.meta for r in runs]
    for m, lab in zip(metas, _labels(metas, labels)):
        m["label"] = lab

    rows: List[Row] = []
    units: Dict[str, str] = {}
    extra_cols: List[str] = []
    for rd in runs:
        meta = rd.meta
        try:
            _add_rows(meta, rd.kernels, rows, units, extra_cols, note)
        except _READ_ERRORS as e:  # values of the wrong type or shape: the file's fault
            raise AnalysisError("%s is damaged: %s (while reading the values of /runs/%s)" %
                                (meta["file"], _one_line(e), meta["run"]), _DAMAGED_HINT)
        except Exception as e:
            raise _unexpected(meta["file"], e, "reading the values of /runs/%s" % meta["run"])
    if not rows:
        raise NoRows("nothing to analyse: no measured rows in %s" % ", ".join(paths),
                     "the runs stopped before their first row; run fabricbench again")
    columns = list(RUN_COLUMNS) + list(KERNEL_COLUMNS) + list(TABLE_COLUMNS) + extra_cols + \
        list(DERIVED_COLUMNS)
    for r in rows:
        for c in TABLE_COLUMNS + tuple(extra_cols):
            if c not in r:  # a file written before the column: its "none" value
                r[c] = "" if c in hostile.TEXT_COLUMNS else INT_DEFAULTS.get(c, math.nan)
    for c in columns:
        units.setdefault(c, META_UNITS.get(c, ""))
    return Table(rows, columns, units, notes)


def rank_host(meta: Dict[str, Any], rank: Any) -> str:
    """The host of a rank of the run (its hostnames, one per rank); "" for none (-1, NaN) or a
    rank the run did not record."""
    hosts = meta.get("rank_hosts") or []
    try:
        r = int(rank)
    except (TypeError, ValueError):
        return ""
    return str(hosts[r]) if 0 <= r < len(hosts) else ""


def _add_rows(meta: Dict[str, Any], kernels: List[KernelData], rows: List[Row],
              units: Dict[str, str], extra_cols: List[str], note: Note) -> None:
    """The tidy rows of one run, appended to rows; its columns' units and the columns no
    schema lists to units and extra_cols."""
    nrows = sum(len(k.rows) for k in kernels)
    msg = _run_note(meta, nrows, kernels)
    if msg:
        note(msg)
    if nrows == 0:
        note("%s %s has no measured rows; it is left out" % (meta["file"], meta["run"]))
        return
    for kd in kernels:
        kmeta, kunits = kd.meta, kd.units
        if kmeta["kernel_status"] not in ("", STATUS_COMPLETE) and \
                meta["run_status"] == STATUS_COMPLETE:
            note("%s %s: kernel %s has status '%s'" % (meta["file"], meta["run"],
                                                      kmeta["kernel_id"],
                                                      kmeta["kernel_status"]))
        for c, u in kunits.items():
            units.setdefault(c, u)
            if c not in TABLE_COLUMNS and c not in extra_cols:
                extra_cols.append(c)
        for rowdata in kd.rows:
            trow, samples = rowdata.values, rowdata.samples
            row = {c: meta[c] for c in RUN_COLUMNS}
            row.update({c: kmeta[c] for c in KERNEL_COLUMNS})
            row.update(trow)
            if "quality" in trow:
                row["quality_from"] = "file"
            else:  # a file from before the quality columns: judged by what it has
                row["quality"], row["quality_reason"] = quality.derive(trow, kmeta["kernel"])
                row["quality_from"] = "derived"
            noise, method = row_noise(trow, samples, rowdata.blocks)
            row.update(noise)
            row["noise_method"] = method
            row["n_samples"] = 0 if samples is None else int(len(samples))
            row["straggler_host"] = rank_host(meta, trow.get("straggler_rank", -1))
            if "worst_canary_rank" in trow:  # the congestion kernels' (model/congestion.py)
                row["worst_canary_host"] = rank_host(meta, trow["worst_canary_rank"])
            rows.append(row)
