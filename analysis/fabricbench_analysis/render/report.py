# SPDX-License-Identifier: BSD-3-Clause
"""One self-contained HTML page: the verdicts (pairs, baseline check) first, then summary,
comparison, plots, runs and method.

No external resource of any kind: CSS inline, plots as PNG data: URIs, no scripts.
"""
import base64
import datetime
import html
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from .. import __version__
from ..checks.check import measured_text, no_verdict
from ..checks.compare import (better_word, group_sizes, header_lines, spread_text, value_text,
                              verdict_text)
from ..checks.linecheck import sizes_text
from ..model import grouping, quality, splitgroups, straggler
from ..model.errors import EXIT_NOTHING_IN_COMMON, AnalysisError
from ..model.layers import cells
from ..model.quality import NOT_COMPARABLE, tally_text
from ..model.layers import Block
from ..model.table import Series, Table, finite, fmt_num, kernel_name, size_label
from ..reading.matrix_verdict import Matrix
from . import congestion, knee, ladder, matrix, matrix_plot, plot
from .summary import HEAD as SUMMARY_HEAD, LEGEND as SUMMARY_LEGEND, Record, summarize, \
    text_cells

# The result of compare (compare.Result) and of check (check.Result): dicts, as --json prints.
Result = Dict[str, Any]
# Classes of a table's cells (None: none), row by row.
Classes = Sequence[Sequence[Optional[str]]]

CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
       color: #1d2329; margin: 0; background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #dfe3e8; }
h3 { font-size: 15px; margin: 22px 0 6px; }
p.sub { color: #5b6670; margin: 0 0 18px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0 12px; }
th, td { border: 1px solid #dfe3e8; padding: 4px 8px; vertical-align: top; }
th { background: #eef1f4; text-align: left; font-weight: 600; }
td.n { text-align: right; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace;
       white-space: nowrap; }
tr:nth-child(even) td { background: #fafbfc; }
td.worse, tr:nth-child(even) td.worse { background: #fde2e1; color: #8a1c14; font-weight: 600; }
td.better, tr:nth-child(even) td.better { background: #e2f4e6; color: #17602b; font-weight: 600; }
td.same { color: #6b7680; }
td.warn, tr:nth-child(even) td.warn { background: #fff1d6; color: #7a4b00; font-weight: 600; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 700;
         font-size: 12px; color: #fff; }
.PASS { background: #2e8540; } .WARN { background: #c77c02; } .FAIL { background: #c62828; }
.notes { background: #fff8e1; border-left: 4px solid #f0b400; padding: 8px 14px; margin: 10px 0;
         font-size: 13px; }
.notes li { margin: 2px 0; }
figure { margin: 18px 0 26px; page-break-inside: avoid; }
figure img { max-width: 100%; border: 1px solid #dfe3e8; }
figcaption { font-size: 13px; color: #47525c; margin-top: 4px; }
details { margin: 6px 0; font-size: 13px; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
pre { white-space: pre-wrap; word-break: break-all; background: #f3f5f7; padding: 6px 8px; }
.small { font-size: 12px; color: #5b6670; }
td.nc, tr:nth-child(even) td.nc { background: repeating-linear-gradient(135deg, #eceff1,
    #eceff1 4px, #f8f9fa 4px, #f8f9fa 8px); color: #5b6670; font-style: italic; }
.quality { border-left: 6px solid #c62828; background: #fdecea; padding: 10px 16px;
           margin: 12px 0 18px; }
.quality.quiet { border-left-color: #2e8540; background: #edf7ee; padding: 6px 16px; }
.quality.few { border-left-color: #c77c02; background: #fff8e1; }
.quality p { margin: 4px 0; }
.howto { background: #f3f5f7; padding: 10px 16px; margin: 10px 0 18px; font-size: 14px; }
@media print { body { background: #fff; } main { padding: 0; } h2 { page-break-after: avoid; } }
"""


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _table(head: Sequence[Any], rows: Sequence[Sequence[Any]],
           numeric: Union[Sequence[int], Set[int]] = (),
           classes: Optional[Classes] = None) -> str:
    out = ["<table><thead><tr>"]
    out += ["<th>%s</th>" % _e(h) for h in head]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        out.append("<tr>")
        for j, cell in enumerate(row):
            cls = []
            if j in numeric:
                cls.append("n")
            named = classes[i][j] if classes and classes[i] else None
            if named:
                cls.append(named)
            out.append("<td%s>%s</td>" % (' class="%s"' % " ".join(cls) if cls else "",
                                          _e(cell)))
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return '<div class="notes"><ul>%s</ul></div>' % "".join("<li>%s</li>" % _e(n) for n in notes)


def _runs(table: Table) -> str:
    head = ["run", "file", "status", "start (UTC)", "hosts", "ranks", "fabric", "transports",
            "line rate", "machine", "MPI", "UCX", "fabricbench", "timer"]
    rows = []
    details = []
    for s in table.series():
        fabric = s["fabric"]
        dev = s["fabric_device"] or s["fabric_netdev"]
        if dev:
            fabric += " (%s)" % dev
        if s["fabric_check"] and s["fabric_check"] not in ("not requested",):
            fabric += "; check: %s" % s["fabric_check"]
        rate = "%g Gb/s (%s)" % (s["line_rate_gbps"], s["line_rate_source"] or "?") \
            if finite(s["line_rate_gbps"]) else "unknown"
        status = s["run_status"] + (" (%s)" % s["stop_reason"] if s["stop_reason"] else "")
        rows.append([s["label"], "%s %s" % (s["file_name"], s["run"]), status,
                     s["start_time"].replace("T", " ").rstrip("Z"), s["hosts"] or "?",
                     s["nranks"], fabric, s["ucx_transports"] or s["pml"], rate,
                     _machine(s, quality.tally(table.where(label=s["label"]))),
                     s["mpi_library"], s["ucx_version"],
                     "%s %s" % (s["tool_version"], s["git_commit"]), s["timer"]])
        details.append("<b>%s</b> (%s %s): <pre>%s</pre>" % (
            _e(s["label"]), _e(s["file"]), _e(s["run"]), _e(s["command_line"])))
    return _table(head, rows) + "<details><summary>Command lines</summary>%s</details>" % \
        "".join(details)


def _machine(s: Series, tally: quality.Tally) -> str:
    """How disturbed a run was: the line fabricbench wrote (schema version 2), else the
    analysis's from the rows; with the budget and what the measurement took."""
    text: str = s.get("disturbance") or tally_text(tally)
    if finite(s.get("budget_s")) and finite(s.get("measure_s")):
        text += "; budget %.1f s, took %.1f s" % (s["budget_s"], s["measure_s"])
    return text


def _layers(block: Block, name: Optional[str] = None) -> str:
    """A layers table (layers.group_layers, or across groups: layers.across)."""
    cols = block["columns"]
    head = ["bytes"] + ["%s%s: %s" % (c["group"] + " " if "group" in c else "", c["layer"],
                                      c["name"]) for c in cols]
    rows = [[size_label(r["bytes"])] + cells(r) for r in block["rows"]]
    if name is not None:
        head.append("%s/socket" % block["mpi"])
        for line, r in zip(rows, block["rows"]):
            line.append("%.2fx" % r["ratio"] if finite(r["ratio"]) else "-")
    title = "Layers of %s" % name if name is not None else "Layers: socket and MPI"
    what = ("Gb/s per message size: the kernel's own TCP (socket kernels) and MPI's bandwidth "
            "kernels%s." % (", and %s over the best socket instance" % block["mpi"]
                            if name is not None else ", of each group side by side"))
    return "<h3>%s</h3>%s<p class=\"small\">%s</p>" % (
        _e(title), _table(head, rows, numeric=set(range(1, len(head))),
                          classes=[[_nc_class(c) for c in row] for row in rows]), _e(what))


def _knees(ks: Sequence[knee.Knee], name: str) -> str:
    out = []
    for kernel in dict.fromkeys(k["kernel"] for k in ks):
        mine = [k for k in ks if k["kernel"] == kernel]
        out.append("<h3>%s knee of %s</h3><p>The highest offered rate whose loss stays at or "
                   "below %g%% (--max-loss), per message size:</p><ul>%s</ul>" % (
                       _e(kernel), _e(name), mine[0]["max_loss_pct"],
                       "".join("<li>%s</li>" % _e(knee.line(k)) for k in mine)))
    return "".join(out)


def _stragglers(found: Sequence[straggler.Straggler], name: str) -> str:
    return ("<h3>Straggler in %s</h3><p>One rank entered most calls last and waiting for it is "
            "most of the time (late_rank, straggler_rank):</p><ul>%s</ul>" % (
                _e(name), "".join("<li>%s</li>" % _e(straggler.line(s)) for s in found)))


def _summary(table: Table, group_keys: Optional[Sequence[str]] = None, max_loss: float = 1.0,
             recs: Optional[List[Record]] = None) -> str:
    recs = recs if recs is not None else summarize(table, group_keys, max_loss)
    rows = [[c.replace("+-", "\u00b1") for c in text_cells(r)] for r in recs]
    classes = [[_nc_class(c) for c in row] for row in rows]
    grouped = any(r["runs"] > 1 for r in recs)
    extra = "".join((_layers(r["layers"], r["label"]) if r["layers"] else "") +
                    (_knees(r["knees"], r["label"]) if r["knees"] else "") +
                    (_stragglers(r["stragglers"], r["label"]) if r.get("stragglers") else "")
                    for r in recs)
    return _table(SUMMARY_HEAD, rows, numeric={1} | set(range(6, len(SUMMARY_HEAD))),
                  classes=classes) + extra + (
        '<p class="small">%s.%s</p>' % (
            _e(SUMMARY_LEGEND),
            " runs: repeats of one measurement (runs sharing a command and fabric, or as "
            "--group says): each number is their median, &plusmn;N% their run-to-run spread "
            "(relative standard deviation; ? where one run measured it)." if grouped else "") +
        (" [disturbed] and [invalid] (hatched): the row was measured while the machine took "
         "the ranks' CPU, or below the floor of samples: no measurement of the fabric." if
         any(c for row in classes for c in row) else ""))


def _split_groups(table: Table) -> str:
    """--split runs: per size, every group's time and the slowest named (model/splitgroups)."""
    comps = splitgroups.compare_groups(table)
    if not comps:
        return ""
    rows = [[c["label"], c["kernel"], size_label(c["bytes"]), c["slowest"],
             "%.2f" % c["time_ratio"], "%.2f" % c["busbw_ratio"],
             "; ".join("%s [%s] %.4g us" % (g["group"], g["ranks"], g["mean_us"])
                       for g in c["groups"])] for c in comps]
    return "<h2>Groups</h2>" + _table(
        ["run", "kernel", "bytes", "slowest group", "time / median", "busbw / median",
         "groups"], rows, numeric={4, 5}) + (
        '<p class="small">--split: every group ran the collective at once on its own '
        'communicator; the slowest group has the largest mean time.</p>')


def _nc_class(text: str) -> Optional[str]:
    """The class of a table cell marked [disturbed] or [invalid] (quality.mark)."""
    return "nc" if text.endswith("[disturbed]") or text.endswith("[invalid]") else None



def _comparison(result: Result) -> str:
    ref, sizes = result["reference"], group_sizes(result)
    out = ["<p>%s</p>" % _e(line) for line in header_lines(result)]
    for b in result["blocks"]:
        has_ref = ref in b["labels"] and len(b["labels"]) > 1
        others = [lab for lab in b["labels"] if lab != ref]
        labs = ([ref] if ref in b["labels"] else []) + others
        with_spread = any(sizes.get(lab, 1) > 1 for lab in labs)
        head = ["bytes"]
        for lab in labs:
            head += [lab] + (["spread"] if with_spread else [])
            if lab != ref and has_ref:
                head += ["ratio", "vs %s" % ref]
        rows: List[List[Any]] = []
        classes: List[List[Optional[str]]] = []
        for row in b["rows"]:
            line: List[Any] = [row["size"]]
            cls: List[Optional[str]] = [None]
            for lab in labs:
                c = row["cells"].get(lab)
                line.append(value_text(c) if c else "-")
                cls.append("nc" if c and c["quality"] in NOT_COMPARABLE else None)
                if with_spread:
                    line.append(spread_text(c, sizes.get(lab, 1)) if c else "")
                    cls.append(None)
                if lab != ref and has_ref:
                    if c and "ratio" in c:
                        v = c["verdict"]
                        text = verdict_text(c)
                        line += ["%.3gx" % c["ratio"], text if v == "not_comparable" else
                                 "%s %+.1f%%" % (text.lower() if v in ("better", "worse")
                                                 else text, 100 * c["change"])]
                        cls += [None, "nc" if v == "not_comparable" else
                                v if v in ("better", "worse", "same") else None]
                    else:
                        line += ["", ""]
                        cls += [None, None]
            rows.append(line)
            classes.append(cls)
        unit = " [%s, %s]" % (b["unit"], better_word(b["direction"])) if b["unit"] else ""
        out.append("<h3>%s: %s%s</h3>" % (_e(b["name"]), _e(b["metric"]), _e(unit)))
        out.append(_table(head, rows, numeric=set(range(1, len(head))), classes=classes))
    if result.get("layers"):
        out.append(_layers(result["layers"]))
    out.append(_notes(result["notes"]))
    return "".join(out)


def _plot_tables(ts: Sequence[Dict[str, Any]]) -> str:
    """What is a table row, not a plot (plot.tables: gradsync with one setup)."""
    out = []
    for t in ts:
        out.append("<h3>%s</h3>" % _e(t["kernel"]))
        out.append(_table(t["head"], t["rows"], numeric=set(range(3, len(t["head"])))))
        out.append('<p class="small">%s</p>' % _e(t["caption"]))
    return "".join(out)


def _check(result: Result) -> str:
    out = []
    for f in result["files"]:
        c = f.get("counts") or {}
        against = [", ".join(result["baseline"]["files"])] if result["baseline"] else []
        if "min_line_pct" in result:
            against.append("%g%% of the line rate" % result["min_line_pct"])
        nv = no_verdict(f) and f["result"] != "FAIL"
        out.append('<h3><span class="badge %s">%s</span> %s against %s</h3>' % (
            f["result"], "NO VERDICT" if nv else f["result"], _e(measured_text(f)),
            _e(" and ".join(against))))
        how = ["tolerance %.1f%%, noise %g sigma" % (100 * result["tolerance"], result["sigma"])
               ] if result["baseline"] else []
        if "min_line_pct" in result:
            how.append("line rate judged at %s%s" % (
                sizes_text(result["line_pct_sizes"]), "" if f.get("line_judged") else
                ": nothing could be judged"))
        nc = f.get("not_comparable", 0)
        out.append("<p>%s%d FAIL, %d WARN, %d PASS%s; %s.</p>" % (
            "No verdict: every row it needs is disturbed or invalid. " if nv else "",
            c.get("FAIL", 0), c.get("WARN", 0), c.get("PASS", 0),
            " (%d of the WARN not comparable: disturbed or invalid, no verdict)" % nc
            if nc else "", "; ".join(how)))
        head = ["status", "kernel", "bytes", "metric", "baseline", "this run", "change",
                "noise", "reason"]

        def line(i: Dict[str, Any]) -> List[Any]:
            return [i["status"], kernel_name(i["kernel"], i.get("variant")), i["size"],
                    i["metric"],
                    fmt_num(i["baseline"]) if i["baseline"] is not None else "",
                    fmt_num(i["value"]) if i["value"] is not None else "",
                    "%+.1f%%" % (100 * i["change"]) if i["change"] is not None else "",
                    "\u00b1%.1f%%" % (100 * i["noise"]) if finite(i["noise"]) else "",
                    i["reason"].replace("+-", "\u00b1")]
        probs = [i for i in f["checks"] if i["status"] != "PASS"]

        def status_class(i: Dict[str, Any]) -> Optional[str]:
            return "nc" if i.get("comparable") is False else \
                {"FAIL": "worse", "WARN": "warn"}.get(i["status"])
        cls = [[status_class(i)] + [None] * 8 for i in probs]
        if probs:
            out.append(_table(head, [line(i) for i in probs], numeric={4, 5, 6, 7},
                              classes=cls))
        out.append("<details><summary>Every check (%d)</summary>%s</details>" % (
            len(f["checks"]), _table(head, [line(i) for i in f["checks"]],
                                     numeric={4, 5, 6, 7}, classes=[
                                         [status_class(i)] + [None] * 8
                                         for i in f["checks"]])))
    out.append(_notes(result["notes"]))
    return "".join(out)


METHOD = """
<p>Units are decimal: &micro;s = 10<sup>-6</sup> s, MB/s = 10<sup>6</sup> byte/s, Gb/s =
10<sup>9</sup> bit/s, GB/s = 10<sup>9</sup> byte/s; message sizes in bytes with K = 1024.
Latency is one way (round trip / 2) for the ping-pongs; a one-sided or atomic
latency (one operation and its completion) is whole: its rows' <code>halved_round_trip</code>
says which. p50 and p99 are percentiles of the per-iteration
times. Bandwidth is osu_bw's (a window of messages per iteration). busbw is nccl-tests'
bus bandwidth; it is what is compared with the line rate for collectives.</p>
<p><b>Noise.</b> Every value carries a relative standard error estimated from the run
itself: stddev / &radic;n for the mean and everything computed from it (bandwidth, busbw);
for a percentile, half the spread between the percentiles at p &plusmn; &radic;(p(1-p)/n)
(distribution-free, interpolated between the stored percentiles); with per-iteration samples
in the file, also batch means over 10 contiguous stretches of the run, the larger estimate
winning; for the adaptive measurement, also the spread of its block medians across the run.
Runs that share a command and fabric are repeats of one measurement (a group): the summary and
the comparison show their median and their run-to-run spread (relative standard deviation).
A difference counts only when it exceeds the chosen number of combined standard errors of the
two values and both groups' spreads (and, in a baseline check, also the tolerance); a group of
one run has no spread, and a difference judged without it is marked *. Run-to-run effects a
single run cannot see (placement, other jobs, clock changes) are what the spread and the
tolerance are for; a baseline file with several runs adds their measured spread.</p>
<p><b>Row quality.</b> fabricbench marks every row (docs/METRICS.md, Row quality):
<i>invalid</i> below the floor of samples (fewer than 10 timed iterations, or an adaptive row
of fewer than 3 blocks), <i>disturbed</i> when the machine took time from the ranks while it
was measured (a rank's CPU share below 80%, time stolen by the hypervisor, more runnable tasks
than CPUs, frequent preemptions), <i>noisy</i> for regimes over time or a missed
--precision, else ok; files from before those marks are judged by their iterations, interval
and the ranks' CPU share. A disturbed or invalid row is no measurement of the fabric: it is
shown, marked and hatched, but never compared, checked or counted in a group's median where
the group has runs whose row is comparable.</p>
"""


def _verdicts(ms: Sequence[Matrix], base_ms: Sequence[Matrix]) -> str:
    """The pairs kernels' verdicts (and the baseline's), for the top of the page."""
    badge = {"healthy": "PASS", "suspects": "FAIL", "incomplete": "WARN",
             "not_comparable": "WARN"}
    out = []
    for title, group in (("", ms), ("Baseline", base_ms)):
        if not group:
            continue
        if title:
            out.append("<h3>%s</h3>" % _e(title))
        for m in group:
            st = matrix.status(m)
            out.append('<p><span class="badge %s">%s</span> %s</p>' % (
                badge[st], _e(st.upper().replace("_", " ") if st != "healthy" else st),
                _e(matrix.headline(m))))
            if m["suspects"]:
                out.append("<ul>%s</ul>" % "".join("<li>suspect %s</li>" % _e(s)
                                                  for s in m["suspects"]))
            med = matrix.median(m)
            out.append('<p class="small">median pair %s %s; slow: %s</p>' % (
                _e(fmt_num(med)), _e(m["unit"]), _e(matrix.threshold_text(m))))
            rows = [e for e in matrix.worst(m, 5) if e["slow_bits"] not in (0, -1)]
            if rows:
                out.append(_table(["from", "to", m["unit"], "of median", "pair slow",
                                   "retest alone"],
                                  [[e["src"], e["dst"], fmt_num(e["value"]),
                                    "%.0f%%" % (100 * e["of_median"]) if finite(e["of_median"])
                                    else "n/a", ", ".join(e["slow"]),
                                    fmt_num(e["retest"]["value"]) if "retest" in e else ""]
                                   for e in rows], numeric=(2, 3, 5)))
    return "".join(out)


def _congestion(table: Table) -> str:
    """The congestion kernels' section (docs/METRICS.md, "Congestion"), "" without their rows:
    the CIF at the mean and at p99 per canary and congestor pattern, the canaries that
    suffered most, the warnings the file stores."""
    sec = congestion.section(table)
    if not sec:
        return ""
    out = ["<h2>Congestion</h2>",
           "<p>How much the congestors' traffic hurt each canary: the congestion impact factor "
           "(CIF) is the canary's time under the congestors over its time alone, at the mean "
           "and at the 99th percentile (for the bandwidth canary the ratio of its rates): 1 is "
           "no harm, larger is worse (docs/METRICS.md, \"Congestion\").</p>",
           _table(congestion.HEAD, sec["rows"], numeric=congestion.NUMERIC,
                  classes=[[("nc" if row[-1] in NOT_COMPARABLE else None)
                            if j in (4, 7) else None for j in range(len(row))]
                           for row in sec["rows"]])]
    if sec["suffered"]:
        out.append("<h3>The canaries that suffered most</h3>" +
                   "<ul>%s</ul>" % "".join("<li>%s</li>" % _e(x) for x in sec["suffered"]))
    else:
        out.append("<p>No canary suffered: every CIF is 1 or below.</p>")
    if sec["warnings"]:
        out.append("<h3>Warnings stored in the file</h3>" + _notes(sec["warnings"]))
    if sec["not_comparable"]:
        out.append(_notes(["%d row%s marked disturbed or invalid: not measurements of the "
                           "fabric; their CIFs are shown, marked, and never judged" % (
                               sec["not_comparable"],
                               "" if sec["not_comparable"] == 1 else "s")]))
    return "".join(out)


def build(table: Table, compare_result: Optional[Result] = None,
          compare_error: Optional[str] = None, check_result: Optional[Result] = None,
          title: Optional[str] = None, matrices: Sequence[Matrix] = (),
          base_matrices: Sequence[Matrix] = (), group_keys: Optional[Sequence[str]] = None,
          max_loss: float = 1.0, per_run: bool = False,
          ladders: Sequence[Dict[str, Any]] = ()) -> str:
    """The page as a string; matrices (and the baseline's): the pairs kernels' verdicts on
    top, their heatmaps with the plots."""
    labels = table.labels()
    groups = grouping.make_groups(table, group_keys)
    recs = summarize(table, group_keys, max_loss)
    title = title or "fabricbench report: %s" % group_title(groups)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
             "<title>%s</title><style>%s</style></head><body><main>" % (_e(title), CSS),
             "<h1>%s</h1>" % _e(title),
             '<p class="sub">%d run%s from %s; made %s by fabricbench-analyze %s.</p>' % (
                 len(labels), "" if len(labels) == 1 else "s",
                 _e(", ".join(sorted({s["file_name"] for s in table.series()}))), now,
                 __version__)]
    # How disturbed the machine was, before anything measured on it.
    head = quality.headline([(r["label"], r["quality"]) for r in recs])
    if head:
        parts.append('<div class="quality%s"><p><b>%s</b></p><p>%s</p></div>' % (
            " few" if quality.severity(head) == "few" else "", _e(head[0]),
            _e(head[1][:1].upper() + head[1][1:])))
    else:
        parts.append('<div class="quality quiet"><p>Measured on a quiet machine: no row was '
                     'disturbed or below the floor of samples.</p></div>')
    parts.append('<div class="howto">%s</div>' % HOW_TO_READ)
    parts.append(_notes(table.notes))
    # The verdicts first: what a reader forwards the page for, before any plot.
    if matrices or base_matrices:
        parts.append("<h2>Pairs verdict</h2>" + _verdicts(matrices, base_matrices))
    if check_result is not None:
        parts.append("<h2>%s</h2>" % ("Baseline check" if check_result["baseline"] else
                                      "Line-rate check") + _check(check_result))
    parts.append("<h2>Summary</h2>" + _summary(table, group_keys, max_loss, recs))
    parts.append(_split_groups(table))
    if compare_result is not None:
        parts.append("<h2>Comparison</h2>" + _comparison(compare_result))
    elif compare_error:
        parts.append("<h2>Comparison</h2>" + _notes([compare_error]))
    parts.append(_congestion(table))
    for lad in ladders:  # `run ladder` (docs/METRICS.md, "The layer ladder")
        parts.append("<h2>Layer ladder: %s %s</h2>" % (_e(lad["file"]), _e(lad["run"])) +
                     _table(ladder.HEAD, ladder.rows(lad)) + _notes(ladder.notes(lad)))
    parts.append("<h2>Plots</h2>")
    figs = plot.figures(table, per_run=per_run, group_keys=group_keys)
    figs += ladder.figures(ladders)
    if matrices:
        figs += matrix_plot.figures(matrices)
    for name, cap, fig in figs:
        data = base64.b64encode(plot.png_bytes(fig)).decode("ascii")
        parts.append('<figure><img alt="%s" src="data:image/png;base64,%s"><figcaption>%s'
                     "</figcaption></figure>" % (_e(name), data, _e(cap)))
    parts.append(_plot_tables(plot.tables(table)))
    parts.append("<h2>Runs</h2>" + _runs(table))
    parts.append("<h2>Method</h2>" + METHOD)
    parts.append("</main></body></html>\n")
    return "".join(parts)


HOW_TO_READ = """<b>How to read this.</b> Runs of the same command on the same fabric are
one group, one measurement repeated: its number is the median of its runs, &plusmn;N% how
much they differ from run to run. Verdicts come first (a baseline check's PASS, WARN or
FAIL, a pairs verdict). In the comparison, <i>WORSE</i> or <i>better</i> means a difference
larger than the noise of both groups and their run-to-run spread; <i>~</i> means the two
cannot be told apart. A value marked [disturbed] (the machine took CPU time from the ranks
while it was measured) or [invalid] (too few samples) is no measurement of the fabric: it is
shown hatched and never judged. Plots draw each group's median as a line and the range of its
runs as a shaded band; hollow markers are disturbed or invalid points. Units are decimal; the
Method section at the end has the details."""


def group_title(groups: Sequence[grouping.Group]) -> str:
    """'shm (3 runs) vs tcp (3 runs)': the groups of runs a report compares (4 named, then
    how many more)."""
    def one(g: grouping.Group) -> str:
        return "%s (%d run%s)" % (g.name, len(g), "" if len(g) == 1 else "s")
    text = " vs ".join(one(g) for g in groups[:4])
    return text + (" and %d more" % (len(groups) - 4) if len(groups) > 4 else "")


def compare_or_note(table: Table, compare_fn: Callable[[Table], Result]
                    ) -> Tuple[Optional[Result], Optional[str]]:
    """The comparison for the report, or the reason there is none."""
    if len(table.labels()) < 2:
        return None, None
    try:
        return compare_fn(table), None
    except AnalysisError as e:
        if e.code == EXIT_NOTHING_IN_COMMON:
            return None, e.message
        raise
