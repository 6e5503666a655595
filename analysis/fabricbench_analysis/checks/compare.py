# SPDX-License-Identifier: BSD-3-Clause
"""Side-by-side comparison of series (files or runs) per kernel and size, noise-aware."""
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..model import grouping, layers, quality
from ..model.errors import EXIT_NOTHING_IN_COMMON, AnalysisError, UsageError
from ..model.noise import noise_column
from ..model.table import (KERNEL_COLUMNS, RUN_COLUMNS, direction, finite, fmt_num, instance,
                    kernel_name, row_key, setup_text, size_label)
from ..model.table import Instance, Row, Table

DEFAULT_SIGMA = 3.0

# compare()'s result, as `compare --json` prints it: reference, sigma, labels, group_by,
# groups, blocks, layers, notes. A block: one kernel instance and metric, a row per size; a
# cell: one group's value of a size (its median, noise, spread and verdict).
Result = Dict[str, Any]
Block = Dict[str, Any]
Cell = Dict[str, Any]
# {group name: {(kernel, variant, bytes): group row}}
GroupIndex = Dict[str, Dict[Tuple[str, str, int], Row]]


def headline_metric(kind: str, rows: Iterable[Row]) -> str:
    """The one number a kind is judged by (check's default): the median time for latency, the
    bandwidth for bandwidth kernels, busbw for collectives (their time where busbw does not
    apply, as for barrier); the congestion kernels' CIF at the mean (docs/METRICS.md,
    "Congestion")."""
    if any(finite(r.get("cif_mean")) for r in rows):
        return "cif_mean"
    if kind == "bandwidth":
        return "MBps"
    if kind == "collective" and any(finite(r.get("busbw_GBps")) for r in rows):
        return "busbw_GBps"
    return "p50_us"


def compare_metrics(kind: str, rows: Sequence[Row]) -> List[str]:
    """What compare shows by default: the headline, and the tail for latency."""
    m = headline_metric(kind, rows)
    return [m, "p99_us"] if m == "p50_us" and kind == "latency" else [m]


def metric_columns(table: Table) -> List[str]:
    """The columns --metric accepts: the measurements (the result table's columns, those a
    newer file adds, the noise estimates), not the run's or kernel's settings."""
    return [c for c in table.columns if c not in RUN_COLUMNS and c not in KERNEL_COLUMNS
            and c not in ("bytes", "count", "type", "redop", "noise_method", "quality",
                          "quality_reason", "quality_from")]


def check_metrics(table: Table, metrics: Optional[Sequence[str]]) -> None:
    """A UsageError (exit 2) for a --metric that is not a measurement column."""
    valid = metric_columns(table)
    for m in metrics or ():
        if m not in valid:
            raise UsageError("--metric %s: no such measurement column in these files; the "
                             "columns are: %s" % (m, ", ".join(valid)),
                             "give a column as `fabricbench-analyze export FILE "
                             "--list-columns` prints it (p50_us, p99_us, MBps, busbw_GBps, ...)")


def judge(ref: Any, value: Any, u_ref: Any, u_val: Any, metric: str, sigma: float,
          extra_rel: float = 0.0) -> Optional[Dict[str, Any]]:
    """Relative change of value against ref and whether it exceeds the noise.

    Returns dict(ratio, change, noise (z x combined relative SE, NaN unknown), verdict) with
    verdict one of better, worse, higher, lower, same (within noise), unknown (no noise
    estimate), or None when either value is missing."""
    if not (finite(ref) and finite(value)) or ref == 0:
        return None
    ratio = value / ref
    change = ratio - 1.0
    # hypot, not sqrt of squares: a huge relative error squared would overflow
    combined = math.hypot(u_ref, u_val, extra_rel) if finite(u_ref) and finite(u_val) \
        else math.nan
    noise = sigma * combined
    d = direction(metric)
    if not finite(noise):
        verdict = "unknown"
    elif abs(change) <= noise:
        verdict = "same"
    elif d == 0:
        verdict = "higher" if change > 0 else "lower"
    else:
        verdict = "better" if change * d > 0 else "worse"
    return {"ratio": ratio, "change": change, "noise": noise, "verdict": verdict}


def _group_index(table: Table, groups: Sequence[grouping.Group],
                 notes: List[str]) -> GroupIndex:
    """{group name: {(kernel, variant, bytes): group row}} (grouping.group_rows); a kernel
    instance measured twice in a run is noted, its first time is compared."""
    dups = set()
    seen: Dict[Tuple[Any, ...], bool] = {}
    for r in table.rows:
        key = (r["label"],) + row_key(r)
        if key in seen and key[:3] not in dups:
            dups.add(key[:3])
            notes.append("%s: kernel %s appears more than once; the first is compared (%s)" %
                         (r["label"], kernel_name(r), r["kernel_id"]))
        seen[key] = True
    return {g.name: {row_key(row): row for row in grouping.group_rows(table, g)}
            for g in groups}


def _instance_rows(gidx: GroupIndex, name: str, inst: Instance) -> List[Row]:
    """The rows of group `name` of kernel instance inst, (kernel, variant)."""
    return [r for k, r in gidx[name].items() if k[:2] == inst]


def _differences(gidx: GroupIndex, inst: Instance, names: Sequence[str]) -> List[str]:
    """Notes on settings that differ between groups for a kernel instance (dtype, window,
    ranks, its setup in words)."""
    out = []
    for col, what in (("dtype", "element type"), ("op", "reduction"), ("window", "window"),
                      ("nranks", "ranks"), ("nhosts", "hosts"), ("kernel_detail", "setup")):
        vals: Dict[str, Any] = {}
        for name in names:
            rows = _instance_rows(gidx, name, inst)
            if rows:
                vals[name] = rows[0].get(col)
        shown = {setup_text(v) if col == "kernel_detail" else str(v) for v in vals.values()}
        if len(shown) > 1:
            out.append("%s: %s differs: %s" % (kernel_name(*inst), what, "; ".join(
                "%s %s" % (lab, v if v != "" else "-") for lab, v in vals.items())))
    return out


def _cell(row: Row, metric: str, ncol: Optional[str]) -> Cell:
    values = [r[metric] for r in row["_runs"] if finite(r.get(metric))]
    return {"value": row[metric], "noise_rel": row.get(ncol, math.nan) if ncol else math.nan,
            "regimes": grouping.row_regimes(row), "runs": len(values), "values": values,
            "spread": grouping.spread(row, metric), "quality": row.get("quality", "ok"),
            "quality_reason": row.get("quality_reason", ""), "quality_text": quality.why(row),
            "left_out": len(row.get("_left_out", ()))}


def _judge_cells(ref: str, lab: str, cells: Dict[str, Cell], metric: str, sigma: float) -> None:
    """The verdict of group lab's cell against the reference's: judge() with both groups'
    run-to-run spreads added to their own noise (an unknown spread, a group of one run, adds
    nothing: spread_used says which entered the band)."""
    a, c = cells[ref], cells[lab]
    used = [name for name, x in ((ref, a["spread"]), (lab, c["spread"])) if finite(x)]
    extra = math.hypot(*[cells[name]["spread"] for name in used]) if used else 0.0
    u_a, u_c = a["noise_rel"], c["noise_rel"]
    if len(used) == 2:
        # Both spreads measured: they already hold what a run's own noise varies by, so a
        # column without a noise model (min_us, cpu_*) is still judged, by the spreads.
        u_a = u_a if finite(u_a) else 0.0
        u_c = u_c if finite(u_c) else 0.0
    c.update(judge(a["value"], c["value"], u_a, u_c, metric, sigma, extra) or {})
    c["spread_used"] = used
    # Regimes over time in either row: its median depends on how long each lasted; a
    # difference is noise, not a change.
    if c.get("verdict") in ("better", "worse", "higher", "lower") and \
            (c["regimes"] or a["regimes"]):
        c["verdict"] = "noisy"
    # A disturbed or invalid row is no measurement of the fabric (quality.py): no verdict, in
    # either direction, whatever the numbers say.
    bad = [(who, x["quality"]) for who, x in (("", c), ("reference ", a))
           if x["quality"] in quality.NOT_COMPARABLE]
    if bad and "verdict" in c:
        c["verdict"] = "not_comparable"
        c["not_comparable"] = "both " + bad[0][1] if len(bad) == 2 and \
            bad[0][1] == bad[1][1] else ", ".join(who + q for who, q in bad)


def compare(table: Table, metrics: Optional[Sequence[str]] = None,
            reference: Optional[str] = None,
            sigma: float = DEFAULT_SIGMA, group_keys: Optional[Sequence[str]] = None) -> Result:
    """Compare every group of runs (grouping.py: repeats of one measurement) with a
    reference group.

    Returns dict(reference, sigma, labels (the groups' names), groups, group_by, blocks,
    notes); each block is one kernel and metric with a row per size: per group its median,
    own noise, spread and runs, and for each group other than the reference its ratio,
    change, noise band and verdict. With one group (all runs repeats of one measurement) the
    blocks hold its median and spread only."""
    check_metrics(table, metrics)
    if len(table.labels()) < 2:
        raise UsageError("compare needs at least two runs; the input holds one (%s)" %
                         table.labels()[0], "give two or more files, or one file with several "
                         "runs (fabricbench run --repeat 3)")
    groups = grouping.make_groups(table, group_keys)
    labels = [g.name for g in groups]
    ref = labels[0]
    if reference is not None:
        g = grouping.find(groups, reference)
        if g is None:
            raise UsageError("--reference %s is not a group of runs: %s" %
                             (reference, ", ".join(labels)),
                             "give a name as printed, a number from 1, a run's label or a "
                             "file name")
        ref = g.name
    notes: List[str] = []
    for g in groups:
        notes.extend(grouping.differences(g))
    gidx = _group_index(table, groups, notes)
    single = len(groups) == 1
    blocks: List[Block] = []
    common = 0
    for inst in table.instances():
        kernel = kernel_name(*inst)
        present = [name for name in labels if _instance_rows(gidx, name, inst)]
        if not present:
            continue
        if len(present) < 2 and not single:
            notes.append("%s: measured only in %s; not compared" % (kernel, present[0]))
            continue
        notes.extend(_differences(gidx, inst, present))
        krows = [r for name in present for r in _instance_rows(gidx, name, inst)]
        kind = krows[0]["kind"]
        sizes = sorted({r["bytes"] for r in krows})
        for metric in (metrics or compare_metrics(kind, krows)):
            if not any(finite(r.get(metric)) for r in krows):
                continue
            ncol = noise_column(metric)
            brows = []
            for b in sizes:
                cells: Dict[str, Cell] = {}
                for name in present:
                    row = gidx[name].get(inst + (b,))
                    if row is not None and finite(row.get(metric)):
                        cells[name] = _cell(row, metric, ncol)
                if len(cells) >= 2 or (single and cells):
                    common += 1
                if ref in cells:
                    for lab in cells:
                        if lab != ref:
                            _judge_cells(ref, lab, cells, metric, sigma)
                brows.append({"bytes": b, "size": size_label(b), "cells": cells})
            blocks.append({"kernel": inst[0], "variant": inst[1], "name": kernel, "kind": kind,
                           "metric": metric,
                           "unit": table.units.get(metric, ""), "direction": direction(metric),
                           "labels": present, "rows": brows})
    if metrics:
        shown = {b["metric"] for b in blocks}
        for m in metrics:
            if m not in shown:
                notes.append("--metric %s: no values in the kernels measured by two or more "
                             "groups; not compared" % m)
    if common == 0 and metrics and not blocks:
        raise AnalysisError(
            "nothing to compare: %s %s no values in the kernels the groups share" %
            (", ".join(metrics), "has" if len(metrics) == 1 else "have"),
            "choose a column with values (fabricbench-analyze export FILE --columns "
            "kernel,bytes,%s shows them)" % metrics[0], EXIT_NOTHING_IN_COMMON)
    if common == 0:
        raise AnalysisError(
            "nothing in common to compare: no kernel and message size was measured in two of "
            "the groups (%s)" % "; ".join(_coverage(table, g) for g in groups),
            "compare runs of the same kernels and sizes (fabricbench run KERNELS -m SIZES)",
            EXIT_NOTHING_IN_COMMON)
    return {"reference": ref, "sigma": sigma, "labels": labels,
            "group_by": list(groups[0].shared), "groups": [_group_json(g) for g in groups],
            "blocks": blocks, "layers": _layers(table, groups, gidx), "notes": notes}


def _layers(table: Table, groups: Sequence[grouping.Group],
            gidx: GroupIndex) -> Optional[layers.Block]:
    """The socket and MPI layers of groups on different fabrics side by side (layers.across),
    None when the groups share one fabric or lack one of the layers."""
    fabrics = {repr(grouping.key_parts(g.members[0], table.where(label=g.members[0]["label"]))
                    ["fabric"]) for g in groups}
    if len(fabrics) < 2:
        return None
    return layers.across([(g.name, list(gidx[g.name].values())) for g in groups])


def _group_json(g: grouping.Group) -> Dict[str, Any]:
    return {"name": g.name, "runs": [{"label": m["label"], "file": m["file"], "run": m["run"]}
                                     for m in g.members]}


def _coverage(table: Table, group: grouping.Group) -> str:
    parts = []
    for inst in table.instances():
        sizes = sorted({r["bytes"] for r in table.rows
                        if r["label"] in group.labels and instance(r) == inst})
        if sizes:
            span = size_label(sizes[0]) if len(sizes) == 1 else \
                "%s..%s" % (size_label(sizes[0]), size_label(sizes[-1]))
            parts.append("%s %s" % (kernel_name(*inst), span))
    return "%s: %s" % (group.name, ", ".join(parts))


VERDICT_TEXT = {"better": "better", "worse": "WORSE", "higher": "higher", "lower": "lower",
                "same": "~", "unknown": "?", "noisy": "noisy",
                "not_comparable": "not comparable"}


def better_word(d: int) -> str:
    return {1: "higher is better", -1: "lower is better"}.get(d, "")


FLAGGED = ("better", "worse", "higher", "lower")


def verdict_text(c: Cell) -> str:
    """A cell's verdict in words; a difference judged without both groups' spreads (one has a
    single run) carries '*'."""
    v = VERDICT_TEXT[c["verdict"]]
    if c["verdict"] == "not_comparable":
        return "%s: %s" % (v, c.get("not_comparable", ""))
    return v + "*" if c["verdict"] in FLAGGED and len(c.get("spread_used", ())) < 2 else v


def group_sizes(result: Result) -> Dict[str, int]:
    return {g["name"]: len(g["runs"]) for g in result.get("groups", [])}


def spread_text(c: Cell, runs: int) -> str:
    """The run-to-run spread of a cell ('?': one run), with the count of runs that measured
    it when that is fewer than the group's."""
    t = _pct(c["spread"])
    return t + (" (%d)" % c["runs"] if c["runs"] < runs else "")


def header_lines(result: Result) -> List[str]:
    """What the columns and marks mean, and which runs each group holds."""
    ref, sizes = result["reference"], group_sizes(result)
    by = ",".join(result.get("group_by") or ()) or "none"
    groups = "; ".join("%s = %s" % (g["name"], _runs_text(g)) for g in result["groups"])
    if len(result["groups"]) == 1:
        return ["one group (--group %s): %s; they share a command and fabric, so they are "
                "repeats of one measurement and nothing is compared: below, their median, "
                "their run-to-run spread (relative standard deviation) and se (a run's own "
                "relative standard error, the median over the runs)" % (by, groups),
                "to compare files with each other: --group file, or a --label per file; "
                "--group none: every run on its own"]
    lines = ["reference: %s; ratio = value / reference; WORSE/better: the change exceeds %g x "
             "sqrt(se_ref^2 + se^2 + spread_ref^2 + spread^2) (docs/ANALYSIS.md); ~: within "
             "it; ?: no noise estimate; noisy: regimes over time in a row (the adaptive "
             "measurement's block medians)" % (ref, result["sigma"]),
             "groups (--group %s): %s; value: the median of a group's runs; spread: their "
             "run-to-run relative standard deviation; se: a run's own relative standard error "
             "(the median over the runs)" % (by, groups)]
    if any(c["quality"] in quality.NOT_COMPARABLE for b in result["blocks"]
           for row in b["rows"] for c in row["cells"].values()):
        lines.append("[disturbed], [invalid]: a row measured while the machine took the ranks' "
                     "CPU, or below the floor of samples (docs/METRICS.md, Row quality): no "
                     "measurement of the fabric, so not comparable: no verdict either way")
    if any(n == 1 for n in sizes.values()):
        lines.append("*: judged without the spread of a group of one run (?: unknown): the "
                     "band holds only what is known (each run's own noise, the other group's "
                     "spread), which can miss how much runs differ; repeat the runs "
                     "(fabricbench run --repeat 3) to measure it")
    return lines


def _runs_text(g: Mapping[str, Any]) -> str:
    n = len(g["runs"])
    parts: List[str] = []
    last = None
    for m in g["runs"]:
        parts.append(m["run"] if m["file"] == last else "%s %s" % (m["file"], m["run"]))
        last = m["file"]
    return "%d run%s (%s)" % (n, "" if n == 1 else "s", ", ".join(parts))


def render_text(result: Result) -> str:
    """Plain-text tables, one per kernel and metric."""
    out = header_lines(result)
    ref, sizes = result["reference"], group_sizes(result)
    for b in result["blocks"]:
        has_ref = ref in b["labels"] and len(b["labels"]) > 1
        others = [lab for lab in b["labels"] if lab != ref]
        labs = ([ref] if ref in b["labels"] else []) + others
        with_spread = any(sizes.get(lab, 1) > 1 for lab in labs)
        head = ["bytes"]
        for lab in labs:
            head += [lab] + (["spread"] if with_spread else []) + ["se"]
            if lab != ref and has_ref:
                head += ["ratio", "change", "vs ref"]
        lines = []
        for row in b["rows"]:
            line = [row["size"]]
            for lab in labs:
                c = row["cells"].get(lab)
                line.append(value_text(c) if c else "-")
                if with_spread:
                    line.append(spread_text(c, sizes.get(lab, 1)) if c else "")
                line.append(_pct(c["noise_rel"]) if c else "")
                if lab != ref and has_ref:
                    if c and "ratio" in c:
                        line += [_ratio(c["ratio"]), "" if c["verdict"] == "not_comparable"
                                 else "%+.1f%%" % (100 * c["change"]), verdict_text(c)]
                    else:
                        line += ["", "", ""]
            lines.append(line)
        out.append("")
        unit = " [%s, %s]" % (b["unit"], better_word(b["direction"])) if b["unit"] else ""
        out.append("== %s: %s%s" % (b["name"], b["metric"], unit))
        out.extend(format_columns(head, lines))
    if result.get("layers"):
        out += [""] + layers.across_text(result["layers"])
    if result["notes"]:
        out.append("")
        out.extend("note: " + n for n in result["notes"])
    return "\n".join(out) + "\n"


def _pct(u: Any) -> str:
    return "%s%%" % fmt_num(100 * u, 2) if finite(u) else "?"


def value_text(c: Cell) -> str:
    """A cell's value, marked [disturbed] or [invalid] when it is no measurement."""
    mark = " [%s]" % c["quality"] if c.get("quality") in quality.NOT_COMPARABLE else ""
    return fmt_num(c["value"]) + mark


def _ratio(r: float) -> str:
    return "%.3gx" % r


def format_columns(head: Sequence[Any], lines: Sequence[Sequence[Any]],
                   left: Sequence[int] = ()) -> List[str]:
    """Columns padded to their widest cell; numbers right-aligned, columns in `left` left."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)] if lines else \
        [len(h) for h in head]
    out = []
    for line in [head, *lines]:
        cells = []
        for i, (x, w) in enumerate(zip(line, widths)):
            cells.append(str(x).ljust(w) if i in left else str(x).rjust(w))
        out.append("  ".join(cells).rstrip())
    return out
