# SPDX-License-Identifier: BSD-3-Clause
"""A row's quality (ok, noisy, disturbed, invalid) and how disturbed a run or group was.

fabricbench writes every row's `quality` and `quality_reason` (docs/METRICS.md, "Row
quality"; the thresholds are src/measure/quality.h): `invalid` below the floor (fewer than 10
timed iterations, or an adaptive row of fewer than 3 blocks), `disturbed` when the machine
took time from the ranks (a rank's CPU share, the hypervisor's steal time, runnable tasks per
CPU, involuntary context switches), `noisy` for regimes over time or a missed --precision,
else `ok`; the worst class wins. Files written before those columns get a quality derived
from what they have (derive()): iterations below 10 or no interval of the median (ci_pct NaN)
is invalid, a rank's CPU share below 80% disturbed, regimes or a missed --precision noisy.

What the analysis does with it (docs/ANALYSIS.md, "Row quality"): an invalid or disturbed row
is NOT COMPARABLE. It is shown, marked, but never called better or worse, never fails a
baseline, and a group's value is the median of its comparable runs where it has any.
"""
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .layers import socket_proto
from .table import Row, Table, finite

QUALITIES = ("ok", "noisy", "disturbed", "invalid")  # better to worse
RANK = {q: i for i, q in enumerate(QUALITIES)}
NOT_COMPARABLE = ("disturbed", "invalid")

# The thresholds fabricbench applies (src/measure/quality.h, docs/METRICS.md): the floor and
# the CPU share, which are what a file without quality columns can be judged by.
FLOOR_SAMPLES = 10  # FAB_FLOOR_SAMPLES
DISTURB_CPU_PCT = 80.0  # FAB_DISTURB_CPU_PCT

# quality_reason's words in the order fabricbench writes them, and the class of each.
REASONS = (("samples", "invalid"), ("blocks", "invalid"), ("cpu", "disturbed"),
           ("steal", "disturbed"), ("runnable", "disturbed"), ("ctxsw", "disturbed"),
           ("regimes", "noisy"), ("precision", "noisy"), ("implausible", "invalid"))
REASON_WORDS = {
    "samples": "fewer than %d timed iterations" % FLOOR_SAMPLES,
    "blocks": "fewer blocks than the floor",
    "cpu": "a rank starved of CPU",
    "steal": "time stolen by the hypervisor",
    "runnable": "more runnable tasks than CPUs",
    "ctxsw": "ranks preempted often",
    "regimes": "regimes over time",
    "precision": "--precision not met",
    "implausible": "implausible: its kernel's check says the number cannot be true",
}
# The pairs kernels' summary row has no interval of its own (its matrix holds the pairs).
PAIRS_KERNELS = ("pairs_latency", "pairs_bw")

Tally = Dict[str, Any]  # tally(): counts per quality and the worst figures


def _is_socket(row: Row) -> bool:
    return bool(socket_proto(row))


def derive(trow: Mapping[str, Any], kernel: str) -> Tuple[str, str]:
    """(quality, quality_reason) of a row of a file without those columns, from the columns
    it has (trow: the file's columns only, so that a column the file lacks is told from a
    NaN value), as fabricbench would judge it with what that file recorded."""
    reasons: List[str] = []
    it = trow.get("iterations")
    if isinstance(it, int) and it < FLOOR_SAMPLES:
        reasons.append("samples")
    elif "ci_pct" in trow and not finite(trow["ci_pct"]) and kernel not in PAIRS_KERNELS:
        reasons.append("samples")  # no 95% interval of the median: too few samples for one
    cpu: Any = trow.get("cpu_rank_min_pct")
    # Socket kernels' ranks sleep in the OS by design: their CPU share is no sign.
    if finite(cpu) and cpu < DISTURB_CPU_PCT and \
            not _is_socket(dict(trow, kernel=kernel)):
        reasons.append("cpu")
    reg: Any = trow.get("regimes")
    if finite(reg) and reg > 1:
        reasons.append("regimes")
    if trow.get("target_met") == 0:
        reasons.append("precision")
    return of_reasons(reasons), ";".join(reasons)


def of_reasons(words: Iterable[str]) -> str:
    """The worst class among reason words ('ok' for none)."""
    cls = dict(REASONS)
    return worst([cls[w] for w in words if w in cls] or ["ok"])


def worst(qualities: Iterable[Optional[str]]) -> str:
    qs = [q for q in qualities if q in RANK]
    return max(qs, key=lambda q: RANK[q]) if qs else "ok"


def comparable(row: Mapping[str, Any]) -> bool:
    """Whether a row (or a group row) is a measurement that may be judged: not disturbed,
    not invalid."""
    return row.get("quality", "ok") not in NOT_COMPARABLE


def disturbed_by(row: Mapping[str, Any]) -> List[str]:
    """The disturbance reasons of a row (cpu, steal, runnable, ctxsw), whatever its class."""
    return [w for w in reasons(row) if dict(REASONS).get(w) == "disturbed"]


def reasons(row: Mapping[str, Any]) -> List[str]:
    return [w for w in (row.get("quality_reason") or "").split(";") if w]


def merge_reasons(rows: Iterable[Mapping[str, Any]]) -> str:
    """The reasons of several rows, once each, in fabricbench's order."""
    got = {w for r in rows for w in reasons(r)}
    order = [w for w, _ in REASONS]
    return ";".join([w for w in order if w in got] + sorted(got - set(order)))


def mark(row: Optional[Mapping[str, Any]]) -> str:
    """A value's mark in a table: '' for a comparable row, ' [disturbed]', ' [invalid]' or
    ' [implausible]' (an invalid row its kernel's check marked so)."""
    q = row.get("quality", "ok") if row else "ok"
    if q == "invalid" and row and "implausible" in reasons(row):
        return " [implausible]"
    return " [%s]" % q if q in NOT_COMPARABLE else ""


def why(row: Mapping[str, Any]) -> str:
    """A not comparable row's quality in words: 'disturbed (a rank starved of CPU: 23% at
    least)', 'invalid (fewer than 10 timed iterations: 3)'."""
    q: str = row.get("quality", "ok")
    parts: List[str] = []
    for w in reasons(row):
        if dict(REASONS).get(w) not in NOT_COMPARABLE:
            continue
        text = REASON_WORDS.get(w, w)
        if w == "cpu" and finite(row.get("cpu_rank_min_pct")):
            text = "a rank ran only %.0f%% of the time" % row["cpu_rank_min_pct"]
        elif w == "samples" and isinstance(row.get("iterations"), int) and \
                row["iterations"] < FLOOR_SAMPLES:
            text = "%d timed iteration%s, below the floor of %d" % (
                row["iterations"], "" if row["iterations"] == 1 else "s", FLOOR_SAMPLES)
        elif w == "runnable" and finite(row.get("runnable_per_cpu")):
            text = "%.1f runnable tasks per CPU" % row["runnable_per_cpu"]
        elif w == "steal" and finite(row.get("cpu_steal_pct")):
            text = "%.0f%% stolen by the hypervisor" % row["cpu_steal_pct"]
        elif w == "ctxsw" and finite(row.get("ctx_invol_per_s")):
            text = "a rank preempted %.0f times a second" % row["ctx_invol_per_s"]
        parts.append(text)
    return q + (" (%s)" % ", ".join(parts) if parts else "")


def _range(values: Iterable[Any], fmt: str) -> Optional[str]:
    vals = [v for v in values if finite(v)]
    if not vals:
        return None
    lo, hi = min(vals), max(vals)
    text: str = fmt % lo if fmt % lo == fmt % hi else (fmt % lo).rstrip("%") + "-" + fmt % hi
    return text


def tally(rows: Sequence[Mapping[str, Any]]) -> Tally:
    """How disturbed a set of rows (a run's, a group's) was: counts per quality, and the worst
    figures of the disturbed rows (the least CPU share of a rank, the most runnable tasks per
    CPU, steal, preemptions)."""
    t: Tally = {q: 0 for q in QUALITIES}
    for r in rows:
        t[r.get("quality", "ok") if r.get("quality") in RANK else "ok"] += 1
    # The figures come from every row the machine disturbed, whatever its worst class (a row
    # below the floor may also have been starved of CPU).
    dis = [r for r in rows if disturbed_by(r)]
    t["rows"] = len(rows)
    t["busy"] = len(dis)
    t["cpu_min_pct"] = min([r["cpu_rank_min_pct"] for r in dis if "cpu" in reasons(r) and
                            finite(r.get("cpu_rank_min_pct"))] or [math.nan])
    t["cpu_range"] = _range([r.get("cpu_rank_min_pct") for r in dis if "cpu" in reasons(r)],
                            "%.0f%%")
    for key, col, word in (("runnable_max", "runnable_per_cpu", "runnable"),
                           ("steal_max_pct", "cpu_steal_pct", "steal"),
                           ("ctxsw_max_per_s", "ctx_invol_per_s", "ctxsw")):
        t[key] = max([r[col] for r in dis if word in reasons(r) and finite(r.get(col))] or
                     [math.nan])
    return t


def tally_text(t: Tally) -> str:
    """'busy: a rank ran only 2-20% of the time, up to 3.5 runnable tasks per CPU; 14 of 92
    rows disturbed, 3 invalid', or 'quiet' ('quiet; 3 of 92 rows invalid (below the floor)'),
    as fabricbench words a run's disturbance."""
    if not t["busy"]:
        return "quiet" + ("; %d of %d rows invalid (below the floor)" % (t["invalid"], t["rows"])
                          if t["invalid"] else "")
    what: List[str] = []
    if t["cpu_range"]:
        what.append("a rank ran only %s of the time" % t["cpu_range"])
    if finite(t["runnable_max"]):
        what.append("up to %.1f runnable tasks per CPU" % t["runnable_max"])
    if finite(t["steal_max_pct"]):
        what.append("up to %.0f%% stolen by the hypervisor" % t["steal_max_pct"])
    if finite(t["ctxsw_max_per_s"]):
        what.append("up to %.0f preemptions per second of a rank" % t["ctxsw_max_per_s"])
    if t["disturbed"]:
        counts = "%d of %d rows disturbed" % (t["disturbed"], t["rows"])
        if t["invalid"]:
            counts += ", %d invalid" % t["invalid"]
    else:  # every row the machine disturbed was below the floor as well
        counts = "%d of %d rows invalid" % (t["invalid"], t["rows"])
    return "busy: " + (", ".join(what) + "; " if what else "") + counts


def group_quality(table: Table, members: Sequence[Mapping[str, Any]]) -> Tally:
    """The quality of a group of runs (series dicts): its rows' tally, how many of its runs
    had disturbed (or invalid) rows, and a line saying so."""
    labels = {m["label"] for m in members}
    rows = [r for r in table.rows if r["label"] in labels]
    t = tally(rows)
    busy = [m for m in members if any(disturbed_by(r) for r in rows
                                      if r["label"] == m["label"])]
    t["runs"] = len(members)
    t["runs_disturbed"] = len(busy)
    t["text"] = tally_text(t)
    if len(members) > 1 and t["busy"]:
        t["text"] += " (in %d of %d runs)" % (len(busy), len(members))
    t["not_comparable"] = t["disturbed"] + t["invalid"]
    return t


# The share of a group's rows from which the headline says the runs were DISTURBED (rows the
# machine disturbed, whatever their class) or BELOW THE FLOOR (rows not comparable), as
# fabricbench's last line blames a busy machine only from a quarter of the rows on; below
# it, a few rows of an otherwise quiet run: FEW.
BUSY_SHARE = 0.25
FEW = "a few rows not comparable"


def severity(lines: Sequence[str]) -> Optional[str]:
    """'many' for a headline of runs DISTURBED or BELOW THE FLOOR, 'few', or None."""
    if not lines:
        return None
    return "few" if lines[0].startswith(FEW + ":") else "many"


def headline(entries: Sequence[Tuple[str, Tally]]) -> List[str]:
    """Lines for the top of summary and report: [(name, group_quality)] -> [] when every
    group was quiet with no invalid row; else what was disturbed and by how much, then what
    follows from it."""
    bad = [(n, q) for n, q in entries if q["not_comparable"]]
    if not bad:
        return []
    def most(key: str) -> bool:
        return any(q[key] >= BUSY_SHARE * q["rows"] for _, q in bad)
    word = "DISTURBED" if most("busy") else "BELOW THE FLOOR" if most("invalid") else \
        "DISTURBED" if most("not_comparable") else FEW
    lines = ["%s: %s" % (word, "; ".join("%s (%d run%s): %s" % (
        n, q["runs"], "" if q["runs"] == 1 else "s", q["text"]) for n, q in entries))]
    lines.append("rows marked [disturbed] or [invalid] are not measurements of the fabric: "
                 "they are shown, never compared (no better/WORSE, no FAIL); a group's value "
                 "is the median of its runs whose row is comparable where it has any")
    return lines


def annotate_matrices(ms: List[Dict[str, Any]],
                      table: Optional[Table]) -> List[Dict[str, Any]]:
    """Each pairs matrix (matrix_load) gets the quality of its kernel's row in the same run
    (`quality`, `quality_text`): a verdict from a disturbed or invalid measurement is none."""
    if table is None:
        return ms
    rows = {(r["file"], r["run"], r["kernel"]): r for r in table.rows}
    for m in ms:
        r = rows.get((m["file"], m["run"], m["kernel"]))
        if r is not None:
            m["quality"] = r.get("quality", "ok")
            m["quality_text"] = why(r)
    return ms
