"""Reading fabricbench result files (docs/SCHEMA.md) into one tidy table.

load(paths) is the only reader; everything else works on the Table it returns.
"""
import json
import math
import os
import re

from .errors import AnalysisError, UsageError
from .noise import row_noise
from .table import (DERIVED_COLUMNS, INT_DEFAULTS, KERNEL_COLUMNS, META_UNITS, RUN_COLUMNS,
                    TABLE_COLUMNS, Table)

# The schema's name and version: schema.json, which the C side reads too (CMakeLists.txt).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json"),
          encoding="utf-8") as _f:
    _SCHEMA = json.load(_f)
SCHEMA = _SCHEMA["name"]
SCHEMA_VERSION = _SCHEMA["version"]

# tidy column -> (run attribute, default)
_RUN_ATTRS = {
    "run_status": ("status", ""), "stop_reason": ("stop_reason", ""),
    "start_time": ("start_time", ""), "end_time": ("end_time", ""),
    "tool_version": ("tool_version", ""), "git_commit": ("git_commit", ""),
    "command_line": ("command_line", ""), "mpi_library": ("mpi_library", ""),
    "ucx_version": ("ucx_version", ""), "pml": ("pml", ""),
    "ucx_transports": ("ucx_transports", ""), "fabric": ("fabric", ""),
    "fabric_requested": ("fabric_requested", ""), "fabric_device": ("fabric_device", ""),
    "fabric_port": ("fabric_port", 0), "fabric_netdev": ("fabric_netdev", ""),
    "fabric_check": ("fabric_check", ""), "fabric_check_reason": ("fabric_check_reason", ""),
    "line_rate_gbps": ("line_rate_gbps", math.nan), "line_rate_source": ("line_rate_source", ""),
    "nranks": ("nranks", -1), "nhosts": ("nhosts", -1), "ranks_per_node": ("ranks_per_node", ""),
    "slurm_job_id": ("slurm_job_id", ""), "timer": ("timer", ""),
    "timer_cost_ns": ("timer_cost_ns", math.nan),
}
_KERNEL_ATTRS = {
    "kernel": ("kernel", ""), "kind": ("kind", ""), "kernel_status": ("status", ""),
    "dtype": ("dtype", ""), "op": ("op", ""), "bus_factor": ("bus_factor", math.nan),
    "window": ("window", 0), "kernel_detail": ("detail", ""), "time_columns": ("time_columns", ""),
}

STATUS_COMPLETE = "complete"


def _py(v):
    """An h5py attribute or element as a plain Python value."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if hasattr(v, "item") and getattr(v, "shape", ()) == ():
        v = v.item()
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
    return v


def _attr(obj, name, default):
    if name not in obj.attrs:
        return default
    v = _py(obj.attrs[name])
    if isinstance(default, str) and not isinstance(v, str):
        return str(v)
    if isinstance(default, float) and isinstance(v, (int, float)):
        return float(v)
    return v


def transport_short(ucx_transports, pml):
    """'sysv/memory[am am_bw#0] cma/memory[rma_bw#0]' -> 'sysv+cma'; 'tcp/lo[...]' -> 'tcp/lo'.

    What fabricbench writes when it has no probe result is not a transport: 'not used (pml
    ob1; ...)' gives the pml; 'not probed (the run stopped early)', 'not probed (needs two
    ranks)' and 'probed after the measurements (last line)' (a run killed before its probe)
    give '' (unknown)."""
    s = (ucx_transports or "").strip()
    if not s or s.startswith("not ") or s.startswith("probed"):
        return pml if pml and pml != "ucx" else ""
    parts = []
    for tok in re.sub(r"\[[^\]]*\]", " ", s).split():
        tl, _, dev = tok.partition("/")
        if tl == "self":
            continue
        p = tl if dev in ("", "memory") else tl + "/" + dev
        if p not in parts:
            parts.append(p)
    return "+".join(parts)


class _Damaged(Exception):
    pass


def _open(path):
    import h5py

    if not os.path.exists(path):
        raise AnalysisError("%s: no such file" % path, "check the path")
    if os.path.isdir(path):
        raise AnalysisError("%s is a directory, not a result file" % path,
                            "give the .h5 files fabricbench wrote (-o FILE.h5)")
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError as e:
        raise AnalysisError("cannot read %s: %s" % (path, e.strerror or e),
                            "check its permissions")
    if not h5py.is_hdf5(path):
        what = "it is empty" if not head else _guess_format(head)
        raise AnalysisError("%s is not an HDF5 file (%s)" % (path, what),
                            "give the .h5 result file fabricbench wrote (-o FILE.h5); the JSON "
                            "and CSV outputs are not read here")
    try:
        return h5py.File(path, "r")
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


def _guess_format(head):
    text = head.lstrip()
    if text.startswith(b"{"):
        return "it looks like JSON Lines, fabricbench's --json output"
    if text.startswith(b"kernel,"):
        return "it looks like CSV, fabricbench's --csv output"
    if text.startswith(b"#"):
        return "it looks like fabricbench's text output"
    return "its first bytes are not the HDF5 signature"


def _check_schema(f, path):
    schema = _attr(f, "schema", None)
    if schema is None:
        raise AnalysisError("%s is an HDF5 file but not a fabricbench result: the root has no "
                            "'schema' attribute" % path,
                            "give files written by `fabricbench run -o FILE.h5`")
    if schema != SCHEMA:
        raise AnalysisError("%s is not a fabricbench result: its schema is '%s', not '%s'" %
                            (path, schema, SCHEMA), "give files written by fabricbench run")
    version = _attr(f, "schema_version", None)
    if not isinstance(version, int):
        raise AnalysisError("%s has no valid schema_version attribute (%r)" % (path, version),
                            "the file is damaged or was not written by fabricbench")
    if version > SCHEMA_VERSION:
        tool = ""
        try:
            runs = f["runs"]
            last = sorted(runs.keys())[-1]
            tool = _attr(runs[last], "tool", "")
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


def _select_runs(f, path, run):
    if "runs" not in f or not len(f["runs"]):
        raise AnalysisError("%s holds no runs (no groups under /runs)" % path,
                            "the run that wrote it stopped before its first commit; run again")
    names = sorted(f["runs"].keys())
    if run in (None, "all"):
        return names
    if run == "latest":
        latest = _attr(f, "latest_run", "")
        return [latest if latest in names else names[-1]]
    want = run
    if re.fullmatch(r"\d+", run):
        want = "run_%04d" % int(run)
    if want not in names:
        raise UsageError("%s has no run '%s' (it has %s)" % (path, run, ", ".join(names)),
                         "--run takes all, latest, a run name or its number")
    return [want]


def _read_run(f, path, name, warn):
    g = f["runs"][name]
    meta = {col: _attr(g, a, d) for col, (a, d) in _RUN_ATTRS.items()}
    hosts = []
    if "hostnames" in g:
        hosts = [_py(h) for h in g["hostnames"][()]]
    uniq = []
    for h in hosts:
        if h not in uniq:
            uniq.append(h)
    meta["hosts"] = ",".join(uniq)
    if meta["nhosts"] == -1 and uniq:
        meta["nhosts"] = len(uniq)
    if meta["nranks"] == -1 and hosts:
        meta["nranks"] = len(hosts)
    if not meta["fabric"]:
        meta["fabric"] = "any"  # files from before --fabric: UCX chose
    meta["transport"] = transport_short(meta["ucx_transports"], meta["pml"])
    meta["file"] = path
    meta["file_name"] = os.path.basename(path)
    meta["run"] = name

    kernels = []
    kgroup = g["kernels"] if "kernels" in g else {}
    for kid in sorted(kgroup.keys()):
        k = kgroup[kid]
        kmeta = {col: _attr(k, a, d) for col, (a, d) in _KERNEL_ATTRS.items()}
        kmeta["kernel_id"] = kid
        if not kmeta["kernel"]:
            kmeta["kernel"] = kid.split("_", 1)[-1]
        if "table" not in k:
            warn("%s %s: kernel %s has no table; skipped" % (path, name, kid))
            continue
        t = k["table"]
        cols = [c for c in _attr(t, "columns", "").split(",") if c] or list(t.keys())
        data, units = {}, {}
        for c in cols:
            if c not in t:
                warn("%s %s %s: column %s is listed but absent; read as not available" %
                     (path, name, kid, c))
                continue
            ds = t[c]
            data[c] = ds[()]
            units[c] = _attr(ds, "units", "")
        lens = {len(v) for v in data.values()}
        nrows = min(lens) if lens else 0
        if len(lens) > 1:
            warn("%s %s %s: columns differ in length (%s); using the first %d rows" %
                 (path, name, kid, ",".join(map(str, sorted(lens))), nrows))
        samples = k["samples"] if "samples" in k else None
        rows = []
        for i in range(nrows):
            row = {c: _py(v[i]) for c, v in data.items()}
            s = None
            if samples is not None and "bytes" in row and str(row["bytes"]) in samples:
                s = samples[str(row["bytes"])][()]
            rows.append((row, s))
        kernels.append((kmeta, rows, units))
    return meta, kernels


# What h5py and numpy raise on a file whose structure is valid HDF5 but whose contents are
# not (a damaged heap, a dataset of the wrong shape or type, a missing object).
_READ_ERRORS = (OSError, KeyError, ValueError, RuntimeError, TypeError, AttributeError,
                IndexError, LookupError, ArithmeticError)
_DAMAGED_HINT = "copy the file again from where fabricbench wrote it"


def _read_file(path, run, note):
    """The runs of one file as [(meta, kernels)]; anything the file's contents make h5py or
    numpy raise is an AnalysisError naming the file, never a traceback."""
    f = _open(path)
    where = "reading its root attributes"
    try:
        _check_schema(f, path)
        where = "listing its runs"
        names = _select_runs(f, path, run)
        out = []
        for name in names:
            where = "reading /runs/%s" % name
            out.append(_read_run(f, path, name, note))
        return out
    except AnalysisError:
        raise
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


def _one_line(e):
    return " ".join(str(e).split()) or type(e).__name__


def _unexpected(path, e, where):
    return AnalysisError("%s could not be read: %s: %s (while %s)" %
                         (path, type(e).__name__, _one_line(e), where),
                         "the file may be damaged in a way not recognised; if `h5dump -H %s` "
                         "reads it, report this as a bug of fabricbench-analyze" % path)


def _run_note(meta, nrows, kernels):
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
    if st and st != STATUS_COMPLETE:
        return "%s %s has status '%s'%s: %s" % (path, name, st, why, got)
    return None


def _labels(runs, user_labels):
    """A short unique name per run: the fabric (or the transport UCX chose); the file's name
    and then the run's are added only where that is not unique."""
    files = []
    for m in runs:
        if m["file"] not in files:
            files.append(m["file"])

    def make(m, level):
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
    # The same file given twice: number every copy, counting in the names as made (counting
    # in the list being renamed would leave the last copy unnumbered).
    made = list(labs)
    seen = {}
    for i, lab in enumerate(made):
        if made.count(lab) > 1:
            seen[lab] = seen.get(lab, 0) + 1
            labs[i] = "%s #%d" % (lab, seen[lab])
    return labs


def load(paths, run="all", labels=None, warn=None):
    """Read result files into one Table (run x kernel x size rows, run metadata on each row).

    run: 'all', 'latest', a run name (run_0001) or number; labels: one per path, or None.
    warn: called with each note (interrupted runs, skipped parts); they are also kept in
    Table.notes. Raises AnalysisError with a message naming the file for anything unreadable.
    """
    notes = []

    def note(msg):
        notes.append(msg)
        if warn:
            warn(msg)

    if labels and len(labels) != len(paths):
        raise UsageError("%d labels for %d files" % (len(labels), len(paths)),
                         "give one --label per file, in the files' order")
    runs = []
    for path in paths:
        runs.extend(_read_file(path, run, note))

    metas = [m for m, _ in runs]
    for m, lab in zip(metas, _labels(metas, labels)):
        m["label"] = lab

    rows, units, extra_cols = [], {}, []
    for meta, kernels in runs:
        try:
            _add_rows(meta, kernels, rows, units, extra_cols, note)
        except _READ_ERRORS as e:  # values of the wrong type or shape: the file's fault
            raise AnalysisError("%s is damaged: %s (while reading the values of /runs/%s)" %
                                (meta["file"], _one_line(e), meta["run"]), _DAMAGED_HINT)
        except Exception as e:
            raise _unexpected(meta["file"], e, "reading the values of /runs/%s" % meta["run"])
    if not rows:
        raise AnalysisError("nothing to analyse: no measured rows in %s" % ", ".join(paths),
                            "the runs stopped before their first row; run fabricbench again")
    columns = list(RUN_COLUMNS) + list(KERNEL_COLUMNS) + list(TABLE_COLUMNS) + extra_cols + \
        list(DERIVED_COLUMNS)
    for r in rows:
        for c in TABLE_COLUMNS + tuple(extra_cols):
            if c not in r:
                r[c] = INT_DEFAULTS.get(c, math.nan)
    for c in columns:
        units.setdefault(c, META_UNITS.get(c, ""))
    return Table(rows, columns, units, notes)


def _add_rows(meta, kernels, rows, units, extra_cols, note):
    """The tidy rows of one run, appended to rows; its columns' units and the columns no
    schema lists to units and extra_cols."""
    nrows = sum(len(r) for _, r, _ in kernels)
    msg = _run_note(meta, nrows, kernels)
    if msg:
        note(msg)
    if nrows == 0:
        note("%s %s has no measured rows; it is left out" % (meta["file"], meta["run"]))
        return
    for kmeta, krows, kunits in kernels:
        if kmeta["kernel_status"] not in ("", STATUS_COMPLETE) and \
                meta["run_status"] == STATUS_COMPLETE:
            note("%s %s: kernel %s has status '%s'" % (meta["file"], meta["run"],
                                                      kmeta["kernel_id"],
                                                      kmeta["kernel_status"]))
        for c, u in kunits.items():
            units.setdefault(c, u)
            if c not in TABLE_COLUMNS and c not in extra_cols:
                extra_cols.append(c)
        for trow, samples in krows:
            row = {c: meta[c] for c in RUN_COLUMNS}
            row.update({c: kmeta[c] for c in KERNEL_COLUMNS})
            row.update(trow)
            noise, method = row_noise(trow, samples)
            row.update(noise)
            row["noise_method"] = method
            row["n_samples"] = 0 if samples is None else int(len(samples))
            rows.append(row)
