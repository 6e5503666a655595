# SPDX-License-Identifier: BSD-3-Clause
"""Repeats of one measurement: groups of runs that share a command and a fabric.

`compare` and `summary` (and the report) work on groups, not on single runs: a group's value of
a kernel, size and metric is the median over its runs, and its run-to-run spread is the
runs' relative standard deviation (noise.run_spread, the rule `check` applies to a baseline of
several runs). docs/ANALYSIS.md ("Groups") says what follows; in short, two runs share

- a command when fabricbench was given the same kernels and options (the command line after
  `run`, as typed, and the FABRICBENCH_* variables it recorded), leaving out the options that
  only say where and how the results go (OUTPUT_OPTIONS: -o, --append, --repeat, --json, ...);
  when their kernels recorded the same settings (element type, reduction, window, a kernel's
  own options: a safety net for a default that changed); and when they ran on as many ranks
  and hosts (mpirun's -np is not in the command line);
- a fabric when they used the same fabric profile, device and network interface, and where
  UCX chose (`--fabric any`), the same transports.

`--label`, given per file, is always part of the key: files with different labels are never
merged, and the copies of a file given twice are never repeats of each other.
"""
import math
import shlex
import statistics
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar

from . import quality
from .errors import UsageError
from .hostile import safe_text
from .noise import regimes, run_spread, runs_noise
from .table import KERNEL_COLUMNS, RUN_COLUMNS, Row, Series, Table, finite, row_key

# What check judges at once (measurements()): label, file, run, runs, members (the series),
# repeat and rows.
Measurement = Dict[str, Any]
# What runs are grouped by (parse_keys): a subset of KEYS, in KEYS' order; () for none.
Keys = Tuple[str, ...]
_T = TypeVar("_T")

# fabricbench run's options that say where and how results go, not what is measured
# (src/cli/option_table.c, and --json-doc, --prom, --wide, --columns of issue 17): left out of
# the command a run is grouped by. The value: whether the option takes an argument.
OUTPUT_OPTIONS = {"output": True, "append": False, "force": False, "repeat": True,
                  "samples": False, "max-samples": True, "json": True, "csv": True,
                  "json-doc": True, "prom": True, "wide": False, "columns": True,
                  "quiet": False, "verbose": False, "stall-timeout": True,
                  "startup-timeout": True, "help": False}
SHORT_OUTPUT = {"o": "output", "q": "quiet", "v": "verbose"}

KEYS = ("command", "fabric", "hosts", "file")
DEFAULT = "command,fabric"
# Row columns that are not measured quantities: a group row keeps its first run's.
_LABEL_COLUMNS = ("bytes", "slowest_rank", "cpu_rank_max_rank", "noise_method", "late_rank",
                  "straggler_rank")
# Counts and flags where the worst run speaks for the group.
_MAX_COLUMNS = ("validation_errors", "regimes")
_MIN_COLUMNS = ("target_met", "percentiles_exact")


def parse_keys(text: Optional[str]) -> Keys:
    """--group: 'none' or a comma-separated subset of KEYS; a UsageError otherwise."""
    words = [w.strip() for w in (text or DEFAULT).split(",") if w.strip()]
    if words == ["none"]:
        return ()
    bad = [w for w in words if w not in KEYS]
    if bad or not words:
        raise UsageError("--group %s: group by none, or by any of %s (comma-separated)" %
                         (safe_text(str(text)), ", ".join(KEYS)),
                         "--group command,fabric (the default) makes repeats of one "
                         "measurement a group; --group none compares every run on its own")
    return tuple(w for w in KEYS if w in words)


def command_words(command_line: Optional[str]) -> Tuple[str, ...]:
    """What a run measured, as its command line says: the words after `run`, without the
    output options (OUTPUT_OPTIONS) and their values, `--name=value` as two words."""
    try:
        words = shlex.split(command_line or "")
    except ValueError:  # unbalanced quotes (an edited file): the words as they stand
        words = (command_line or "").split()
    if "run" in words[:2]:
        words = words[words.index("run") + 1:]
    else:
        words = words[1:]
    out: List[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            out.extend(words[i - 1:])
            break
        if w.startswith("--"):
            name, eq, value = w[2:].partition("=")
            if name in OUTPUT_OPTIONS:
                if OUTPUT_OPTIONS[name] and not eq:
                    i += 1
                continue
            out.extend(["--" + name, value] if eq else [w])
        elif w.startswith("-") and len(w) > 1:
            kept = _short(w[1:])
            if kept is None:  # -o FILE: the value is the next word
                i += 1
            elif kept:
                out.append("-" + kept)
        else:
            out.append(w)
    return tuple(out)


def _short(chars: str) -> Optional[str]:
    """A cluster of short options without the output ones: the rest ('' when nothing is
    left), or None when it ends in -o whose value is the next word."""
    for j, c in enumerate(chars):
        name = SHORT_OUTPUT.get(c)
        if name is None:
            return chars[j:]  # an option of the measurement: the rest is its own business
        if OUTPUT_OPTIONS[name]:
            return "" if j + 1 < len(chars) else None  # -oFILE, or -o FILE
    return ""


def env_words(env_options: Optional[str]) -> Tuple[str, ...]:
    """The FABRICBENCH_* variables a run recorded (loading's env_options), without those of
    the output options and the analysis's own (FABRICBENCH_ANALYZE_*: they shape no run)."""
    out = []
    for w in (env_options or "").split(" "):
        name = w.partition("=")[0]
        opt = name[len("FABRICBENCH_"):].lower().replace("_", "-")
        if w and opt not in OUTPUT_OPTIONS and not name.startswith("FABRICBENCH_ANALYZE_"):
            out.append(w)
    return tuple(out)


def _kernel_settings(rows: Iterable[Row]) -> Tuple[Tuple[str, ...], ...]:
    seen: Dict[Any, Tuple[str, ...]] = {}
    for r in rows:
        seen.setdefault(r["kernel_id"], tuple(str(r.get(c, "")) for c in (
            "kernel", "variant", "dtype", "op", "window", "kernel_options")))
    return tuple(seen.values())


def key_parts(series: Series, rows: Iterable[Row]) -> Dict[str, Any]:
    """Every part a run can be grouped by (KEYS), from its series dict and rows."""
    fabric = (series["fabric"], series["fabric_device"], series["fabric_netdev"],
              series["transport"] if series["fabric"] in ("any", "auto", "") else "")
    return {
        "command": (command_words(series["command_line"]), env_words(series["env_options"]),
                    _kernel_settings(rows), series["nranks"], series["nhosts"]),
        "fabric": fabric, "hosts": series["hosts"], "file": series["file"]}


class Group:
    """Runs that are repeats of one measurement: `name`, `members` (their series dicts, in
    load order) and what they share (`shared`: the key parts grouped by)."""

    def __init__(self, members: List[Series], shared: Keys) -> None:
        self.members = members
        self.shared = shared
        self.name: str = members[0]["label"]

    @property
    def labels(self) -> List[str]:
        return [m["label"] for m in self.members]

    def __len__(self) -> int:
        return len(self.members)


def _split_files(groups: List[Group]) -> List[Group]:
    """The default grouping's one refinement: where two or more files each hold repeats (2+
    runs) of a group, each file is a side of an A/B comparison (before.h5 against after.h5,
    each from --repeat 3) with its own run-to-run spread, so the group is split by file.
    Files of one run each stay together: three single runs are three repeats."""
    out: List[Group] = []
    for g in groups:
        files: Dict[str, List[Series]] = {}
        for m in g.members:
            files.setdefault(m["file"], []).append(m)
        if sum(1 for ms in files.values() if len(ms) >= 2) < 2:
            out.append(g)
            continue
        for ms in files.values():
            out.append(Group(ms, g.shared + ("file",)))
    return out


def make_groups(table: Table, keys: Optional[Sequence[str]] = None) -> List[Group]:
    """The table's runs in groups (load order of their first run); keys: parse_keys'
    result, None for the default (which also splits by file where files hold repeats of
    their own: _split_files)."""
    default = keys is None
    keys = parse_keys(DEFAULT) if keys is None else tuple(keys)  # Group.shared is a tuple
    series = table.series()
    groups: List[Group] = []
    index: Dict[Tuple[Any, ...], int] = {}
    for s in series:
        if keys:
            parts = key_parts(s, table.where(label=s["label"]))
            k = (s.get("label_given", ""),) + tuple(repr(parts[p]) for p in keys)
        else:
            k = (s["label"],)
        if k in index:
            groups[index[k]].members.append(s)
        else:
            index[k] = len(groups)
            groups.append(Group([s], keys))
    if default:
        groups = _split_files(groups)
    _name(groups)
    return groups


def _name(groups: List[Group]) -> None:
    """A group of one run keeps the run's label; a group of several is named by what its runs
    share (the --label, else the fabric or the transports UCX chose), then, where that is not
    unique, with its files' names added, then numbered."""
    def base(g: Group) -> str:
        return "+".join(_unique(m.get("label_given") or m.get("label_base") or m["label"]
                                for m in g.members))

    def stems(g: Group) -> str:
        return "+".join(_unique(m["file_name"].rsplit(".", 1)[0] for m in g.members))

    for g in groups:
        if len(g) > 1:
            g.name = base(g)
    names = [g.name for g in groups]
    for g in groups:
        if len(g) > 1 and names.count(g.name) > 1:
            g.name = "%s (%s)" % (g.name, stems(g))
    names = [g.name for g in groups]
    seen: Dict[str, int] = {}
    for g in groups:
        if names.count(g.name) > 1:
            seen[g.name] = seen.get(g.name, 0) + 1
            g.name = "%s #%d" % (g.name, seen[g.name])


def _unique(it: Iterable[_T]) -> List[_T]:
    out: List[_T] = []
    for x in it:
        if x not in out:
            out.append(x)
    return out


def find(groups: Sequence[Group], ref: str) -> Optional[Group]:
    """The group --reference names: a group's name, its number from 1, a run's label or a
    file given; None when none."""
    for g in groups:
        if ref == g.name:
            return g
    if ref.isdigit() and 1 <= int(ref) <= len(groups):
        return groups[int(ref) - 1]
    for g in groups:
        for m in g.members:
            if ref in (m["label"], m["file"], m["file_name"]):
                return g
    return None


def group_rows(table: Table, group: Group) -> List[Row]:
    """A group's rows, one per kernel instance and size its runs measured (in the order they
    first appear; row_key): the first run's row, every measured quantity replaced by the
    median over the runs that measured it, and `_runs` (those runs' rows, one per run: a
    kernel instance measured twice in a run counts once, its first time).

    Row quality (quality.py): only the runs whose row is comparable (not disturbed, not
    invalid) count where there are any; the others are in `_left_out`. A group row's
    `quality` is the worst of the runs it counts: disturbed or invalid only when every run's
    row was."""
    labels = group.labels
    by: Dict[Tuple[str, str, int], List[Row]] = {}
    order: List[Tuple[str, str, int]] = []
    for r in table.rows:
        if r["label"] not in labels:
            continue
        key = row_key(r)
        lst = by.get(key)
        if lst is None:
            lst = by[key] = []
            order.append(key)
        if all(x["label"] != r["label"] for x in lst):
            lst.append(r)
    out: List[Row] = []
    for key in order:
        every = by[key]
        runs = [x for x in every if quality.comparable(x)] or every
        row = dict(runs[0])
        if len(runs) > 1:
            for c, v in runs[0].items():
                if c in RUN_COLUMNS or c in KERNEL_COLUMNS or c in _LABEL_COLUMNS or \
                        isinstance(v, str) or isinstance(v, bool):
                    continue
                vals: List[Any] = [x.get(c) for x in runs]
                if c.startswith("noise_") and c.endswith("_rel"):
                    row[c] = runs_noise(vals)
                    continue
                vals = [v for v in vals if finite(v)]
                if not vals:
                    row[c] = math.nan if isinstance(v, float) else v
                elif c in _MAX_COLUMNS:
                    row[c] = max(vals)
                elif c in _MIN_COLUMNS:
                    row[c] = min(vals)
                else:
                    row[c] = statistics.median(vals)
        row["_runs"] = runs
        row["_left_out"] = [x for x in every if not any(x is y for y in runs)]
        if len(every) > 1:
            row["quality"] = quality.worst(x.get("quality") for x in runs)
            row["quality_reason"] = quality.merge_reasons(runs)
        out.append(row)
    return out


def repeat_count(series: Series) -> int:
    """N of the `--repeat N` (or FABRICBENCH_REPEAT=N) a run was measured with; 1 without."""
    try:
        words = shlex.split(series.get("command_line") or "")
    except ValueError:
        words = (series.get("command_line") or "").split()
    n = None
    for i, w in enumerate(words):
        if w == "--repeat" and i + 1 < len(words):
            n = words[i + 1]
        elif w.startswith("--repeat="):
            n = w.partition("=")[2]
    if n is None:
        for w in (series.get("env_options") or "").split(" "):
            if w.startswith("FABRICBENCH_REPEAT="):
                n = w.partition("=")[2].strip("'")
    try:
        return max(1, int(n)) if n is not None else 1
    except ValueError:
        return 1


def invocations(series: Sequence[Series]) -> List[List[Series]]:
    """The runs of one file (series dicts in file order) cut into what one `fabricbench run`
    wrote: consecutive runs of one command line (and environment) measured with --repeat N,
    N at a time (a run that did not complete ends its invocation: --repeat stops there);
    every other run alone."""
    out: List[List[Series]] = []
    for s in series:
        cur = out[-1] if out else None
        n = repeat_count(s)
        if cur and n > 1 and len(cur) < n and repeat_count(cur[0]) == n and \
                cur[-1]["command_line"] == s["command_line"] and \
                cur[-1]["env_options"] == s["env_options"] and \
                cur[-1]["run_status"] == "complete":
            cur.append(s)
        else:
            out.append([s])
    return out


def members_group(members: Iterable[Series]) -> Group:
    """A group of the given runs (series dicts), as a check of several repeats takes them."""
    return Group(list(members), ())


def spread(row: Row, metric: str) -> float:
    """The run-to-run spread of a group row's metric (NaN: fewer than 2 runs with a value)."""
    return run_spread([r.get(metric) for r in row["_runs"]])


def runs_with(row: Row, metric: str) -> int:
    return sum(1 for r in row["_runs"] if finite(r.get(metric)))


def row_regimes(row: Row) -> int:
    """The most regimes over time any run of the group row had (noise.regimes)."""
    return max(regimes(r) for r in row["_runs"])


def differences(group: Group) -> List[str]:
    """Notes on what the runs of a group do not share (hosts, versions, transports) though
    they are grouped: the spread then includes it."""
    out: List[str] = []
    for col, what in (("hosts", "hosts"), ("tool_version", "fabricbench version"),
                      ("transport", "transports"), ("fabric", "fabric"),
                      ("command_line", "command line")):
        if col in group.shared or (col == "fabric" and "fabric" in group.shared):
            continue
        vals = _unique(str(m.get(col, "")) for m in group.members)
        if len(vals) > 1 and not (col == "command_line" and "command" in group.shared):
            out.append("%s: its runs differ in %s (%s); their spread includes that" % (
                group.name, what, "; ".join(v or "-" for v in vals[:4]) +
                ("; ..." if len(vals) > 4 else "")))
    return out


def measurements(cur: Table, run: Optional[str] = "all") -> List[Measurement]:
    """What check judges in `cur`, one entry per measurement: the runs one `fabricbench run`
    wrote (invocations: the N runs of --repeat N together, their median), of every
    file, or (run 'latest') the last of each file; a run named (run_0001) alone. Each entry:
    dict(label, file, run (its runs' names, comma-separated), runs, members (series dicts),
    rows (one per kernel instance and size: the median over its runs, group_rows))."""
    by_file: Dict[str, List[Series]] = {}
    for s in cur.series():
        by_file.setdefault(s["file"], []).append(s)
    out: List[Measurement] = []
    for file, series in by_file.items():
        sets = invocations(series) if run in ("all", "latest", None) else \
            [[s] for s in series]
        if run == "latest":
            sets = sets[-1:]
        for members in sets:
            rows = group_rows(cur, members_group(members))
            out.append({"label": members[0]["label"], "file": file,
                        "run": ", ".join(m["run"] for m in members),
                        "runs": [m["run"] for m in members], "members": members,
                        "repeat": repeat_count(members[0]), "rows": rows})
    return out
