"""Side-by-side comparison of series (files or runs) per kernel and size, noise-aware."""
import math

from .errors import EXIT_NOTHING_IN_COMMON, AnalysisError, UsageError
from .noise import noise_column, regimes
from .table import KERNEL_COLUMNS, RUN_COLUMNS, direction, finite, fmt_num, size_label

DEFAULT_SIGMA = 3.0


def headline_metric(kind, rows):
    """The one number a kind is judged by (check's default): the median time for latency, the
    bandwidth for bandwidth kernels, busbw for collectives (their time where busbw does not
    apply, as for barrier)."""
    if kind == "bandwidth":
        return "MBps"
    if kind == "collective" and any(finite(r.get("busbw_GBps")) for r in rows):
        return "busbw_GBps"
    return "p50_us"


def compare_metrics(kind, rows):
    """What compare shows by default: the headline, and the tail for latency."""
    m = headline_metric(kind, rows)
    return [m, "p99_us"] if m == "p50_us" and kind == "latency" else [m]


def metric_columns(table):
    """The columns --metric accepts: the measurements (the result table's columns, those a
    newer file adds, the noise estimates), not the run's or kernel's settings."""
    return [c for c in table.columns if c not in RUN_COLUMNS and c not in KERNEL_COLUMNS
            and c not in ("bytes", "count", "type", "redop", "noise_method")]


def check_metrics(table, metrics):
    """A UsageError (exit 2) for a --metric that is not a measurement column."""
    valid = metric_columns(table)
    for m in metrics or ():
        if m not in valid:
            raise UsageError("--metric %s: no such measurement column in these files; the "
                             "columns are: %s" % (m, ", ".join(valid)),
                             "give a column as `fabricbench-analyze export FILE "
                             "--list-columns` prints it (p50_us, p99_us, MBps, busbw_GBps, ...)")


def judge(ref, value, u_ref, u_val, metric, sigma, extra_rel=0.0):
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


def _index(table, notes):
    idx = {}
    for r in table.rows:
        key = (r["label"], r["kernel"], r["bytes"])
        if key in idx:
            if (key[0], key[1]) not in notes["dups"]:
                notes["dups"].add((key[0], key[1]))
                notes["list"].append("%s: kernel %s appears more than once; the first is "
                                     "compared (%s)" % (key[0], key[1], r["kernel_id"]))
            continue
        idx[key] = r
    return idx


def _differences(table, kernel, labels):
    """Notes on settings that differ between series for a kernel (dtype, window, ranks)."""
    out = []
    for col, what in (("dtype", "element type"), ("op", "reduction"), ("window", "window"),
                      ("nranks", "ranks"), ("nhosts", "hosts"), ("kernel_detail", "setup")):
        vals = {}
        for lab in labels:
            rows = table.where(label=lab, kernel=kernel)
            if rows:
                vals[lab] = rows[0].get(col)
        if len({str(v) for v in vals.values()}) > 1:
            out.append("%s: %s differs: %s" % (kernel, what, "; ".join(
                "%s %s" % (lab, v if v != "" else "-") for lab, v in vals.items())))
    return out


def compare(table, metrics=None, reference=None, sigma=DEFAULT_SIGMA):
    """Compare every series of the table with a reference series.

    Returns dict(reference, sigma, labels, blocks, notes); each block is one kernel and metric
    with a row per size: values and noise per series, and for each series other than the
    reference its ratio, change, noise band and verdict."""
    check_metrics(table, metrics)
    labels = table.labels()
    if len(labels) < 2:
        raise UsageError("compare needs at least two runs; the input holds one (%s)" %
                         labels[0], "give two or more files, or one file with several runs")
    ref = reference if reference is not None else labels[0]
    if ref not in labels:
        raise UsageError("--reference %s is not one of the series: %s" % (ref, ", ".join(labels)))
    notes = {"dups": set(), "list": []}
    idx = _index(table, notes)
    blocks = []
    common = 0
    for kernel in table.kernels():
        krows = table.where(kernel=kernel)
        present = [lab for lab in labels if any(r["label"] == lab for r in krows)]
        if len(present) < 2:
            notes["list"].append("%s: measured only in %s; not compared" %
                                 (kernel, present[0]))
            continue
        notes["list"].extend(_differences(table, kernel, present))
        kind = krows[0]["kind"]
        sizes = sorted({r["bytes"] for r in krows})
        for metric in (metrics or compare_metrics(kind, krows)):
            if not any(finite(r.get(metric)) for r in krows):
                continue
            ncol = noise_column(metric)
            brows = []
            for b in sizes:
                cells = {}
                for lab in present:
                    r = idx.get((lab, kernel, b))
                    if r is None or not finite(r.get(metric)):
                        continue
                    cells[lab] = {"value": r[metric],
                                  "noise_rel": r.get(ncol, math.nan) if ncol else math.nan,
                                  "regimes": regimes(r)}
                if len(cells) >= 2:
                    common += 1
                if ref in cells:
                    for lab, c in cells.items():
                        if lab != ref:
                            c.update(judge(cells[ref]["value"], c["value"],
                                           cells[ref]["noise_rel"], c["noise_rel"], metric,
                                           sigma) or {})
                            # Regimes over time in either row: its median depends on how
                            # long each lasted; a difference is noise, not a change.
                            if c.get("verdict") in ("better", "worse", "higher", "lower") and \
                                    (c["regimes"] or cells[ref]["regimes"]):
                                c["verdict"] = "noisy"
                brows.append({"bytes": b, "size": size_label(b), "cells": cells})
            blocks.append({"kernel": kernel, "kind": kind, "metric": metric,
                           "unit": table.units.get(metric, ""), "direction": direction(metric),
                           "labels": present, "rows": brows})
    if metrics:
        shown = {b["metric"] for b in blocks}
        for m in metrics:
            if m not in shown:
                notes["list"].append("--metric %s: no values in the kernels measured by two "
                                     "or more series; not compared" % m)
    if common == 0 and metrics and not blocks:
        raise AnalysisError(
            "nothing to compare: %s %s no values in the kernels the series share" %
            (", ".join(metrics), "has" if len(metrics) == 1 else "have"),
            "choose a column with values (fabricbench-analyze export FILE --columns "
            "kernel,bytes,%s shows them)" % metrics[0], EXIT_NOTHING_IN_COMMON)
    if common == 0:
        raise AnalysisError(
            "nothing in common to compare: no kernel and message size was measured in two of "
            "the series (%s)" % "; ".join(_coverage(table, lab) for lab in labels),
            "compare runs of the same kernels and sizes (fabricbench run KERNELS -m SIZES)",
            EXIT_NOTHING_IN_COMMON)
    return {"reference": ref, "sigma": sigma, "labels": labels, "blocks": blocks,
            "notes": notes["list"]}


def _coverage(table, label):
    parts = []
    for k in table.kernels():
        sizes = sorted({r["bytes"] for r in table.where(label=label, kernel=k)})
        if sizes:
            parts.append("%s %s" % (k, size_label(sizes[0]) if len(sizes) == 1 else
                                    "%s..%s" % (size_label(sizes[0]), size_label(sizes[-1]))))
    return "%s: %s" % (label, ", ".join(parts))


VERDICT_TEXT = {"better": "better", "worse": "WORSE", "higher": "higher", "lower": "lower",
                "same": "~", "unknown": "?", "noisy": "noisy"}


def better_word(d):
    return {1: "higher is better", -1: "lower is better"}.get(d, "")


def render_text(result):
    """Plain-text tables, one per kernel and metric."""
    out = []
    ref = result["reference"]
    out.append("reference: %s; ratio = value / reference; WORSE/better: the change exceeds "
               "%g x the combined standard error (se: each value's relative standard error, "
               "docs/ANALYSIS.md); ~: within it; ?: no noise estimate; noisy: regimes over "
               "time in a row (the adaptive measurement's block medians)" %
               (ref, result["sigma"]))
    for b in result["blocks"]:
        others = [lab for lab in b["labels"] if lab != ref]
        head = ["bytes"]
        if ref in b["labels"]:
            head += [ref, "se"]
        for lab in others:
            head += [lab, "se"] + (["ratio", "change", "vs ref"] if ref in b["labels"] else [])
        lines = []
        for row in b["rows"]:
            line = [row["size"]]
            labs = ([ref] if ref in b["labels"] else []) + others
            for lab in labs:
                c = row["cells"].get(lab)
                line += [fmt_num(c["value"]) if c else "-", _pct(c["noise_rel"]) if c else ""]
                if lab != ref and ref in b["labels"]:
                    if c and "ratio" in c:
                        line += [_ratio(c["ratio"]), "%+.1f%%" % (100 * c["change"]),
                                 VERDICT_TEXT[c["verdict"]]]
                    else:
                        line += ["", "", ""]
            lines.append(line)
        out.append("")
        unit = " [%s, %s]" % (b["unit"], better_word(b["direction"])) if b["unit"] else ""
        out.append("== %s: %s%s" % (b["kernel"], b["metric"], unit))
        out.extend(format_columns(head, lines))
    if result["notes"]:
        out.append("")
        out.extend("note: " + n for n in result["notes"])
    return "\n".join(out) + "\n"


def _pct(u):
    return "%s%%" % fmt_num(100 * u, 2) if finite(u) else "?"


def _ratio(r):
    return "%.3gx" % r


def format_columns(head, lines, left=()):
    """Columns padded to their widest cell; numbers right-aligned, columns in `left` left."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)] if lines else \
        [len(h) for h in head]
    out = []
    for line in [head] + lines:
        cells = []
        for i, (x, w) in enumerate(zip(line, widths)):
            cells.append(str(x).ljust(w) if i in left else str(x).rjust(w))
        out.append("  ".join(cells).rstrip())
    return out
