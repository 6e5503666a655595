# SPDX-License-Identifier: BSD-3-Clause
"""The pairs kernels' all-pairs matrix: verdict, worst pairs, the matrix itself (`matrix`).

Works on the dicts matrix_load.load_matrices returns. A bandwidth matrix is directed (row
sends to column): each direction is one entry; a latency matrix is symmetric: each pair is one
entry. docs/ANALYSIS.md, "matrix", describes the output.
"""
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..checks.compare import format_columns
from ..model.arrays import Array
from ..model.table import fmt_num, size_label
from ..reading.matrix_load import NOT_MEASURED, SLOW_BITS, is_bw
from ..reading.matrix_verdict import Matrix

# One entry (pair or direction) of a matrix as `matrix --json` lists it (entry()).
Entry = Dict[str, Any]

LOAD_ONLY = 8  # pair_slow of a pair slow in the parallel schedule and ok when retested alone
MATRIX_MAX = 12  # members up to which the text output prints the matrix itself
JSON_MATRIX_MAX = 64  # members up to which --json carries the matrix
LINE_FRAC = 0.90  # fabricbench's line-rate rule: slow below 90% of the line rate
LIST_MAX = 12  # members and retested pairs listed by name before "... and N more"


def status(m: Matrix) -> str:
    """'healthy', 'suspects', 'incomplete' (no verdict yet: the run was stopped) or
    'not_comparable' (the pairs kernel's row is disturbed or invalid, quality.py: its
    verdict is no measurement of the fabric)."""
    if m["complete"] and m.get("quality") in ("disturbed", "invalid"):
        return "not_comparable"
    return str(m["verdict"]) if m["complete"] else "incomplete"


def exit_status(ms: Sequence[Matrix]) -> str:
    """The command's verdict over all matrices: suspects > incomplete (or not comparable: no
    verdict) > healthy."""
    st = {status(m) for m in ms}
    return "suspects" if "suspects" in st else "incomplete" if st & {
        "incomplete", "not_comparable"} else "healthy"


def slow_words(bits: Optional[int]) -> List[str]:
    """pair_slow's bits in words: ['bandwidth', 'line rate'], ['not measured'], []."""
    if bits is None or bits < 0:
        return []
    if bits == NOT_MEASURED:
        return ["not measured"]
    words = [w for b, w in SLOW_BITS if bits & b]
    rest = bits & ~sum(b for b, _ in SLOW_BITS)
    if rest:
        words.append("bits 0x%02X" % rest)
    return words


def entry_mask(m: Matrix) -> Array:
    """n x n booleans: the entries (all directions for bandwidth, i < j for latency)."""
    n = m["members"]
    return ~np.eye(n, dtype=bool) if is_bw(m) else np.triu(np.ones((n, n), dtype=bool), 1)


def _ordered(m: Matrix, mask: Array) -> Tuple[Array, Array]:
    """(src, dst) of the entries in mask, worst first (lowest bandwidth, highest latency;
    ties in index order): numpy throughout, for matrices of thousands of members."""
    vals = m["values"][m["metric"]]
    src, dst = np.nonzero(mask)
    key = vals[src, dst] if is_bw(m) else -vals[src, dst]
    order = np.lexsort((dst, src, key))
    return src[order], dst[order]


def median(m: Matrix) -> float:
    """The median pair: the verdict's, or (no verdict yet) of the entries measured so far."""
    v = m["bw_median_MBps"] if is_bw(m) else m["lat_median_us"]
    if math.isfinite(v):
        return float(v)
    vals = m["values"][m["metric"]]
    got = vals[entry_mask(m) & np.isfinite(vals)]
    return float(np.median(got)) if got.size else math.nan


def _num(v: float, bw: bool) -> str:
    if not math.isfinite(v):
        return "-"
    return "%.0f" % v if bw and v >= 100 else fmt_num(v)


def _get(m: Matrix, name: str, s: int, d: int) -> float:
    a = m["values"].get(name)
    return float(a[s, d]) if a is not None else math.nan


def _bits(m: Matrix, s: int, d: int) -> int:
    return int(m["pair_slow"][s, d]) if m["pair_slow"] is not None else -1


def entry(m: Matrix, s: int, d: int, med: float) -> Entry:
    """One pair (direction) as a dict: names, value, share of the median, slow bits, retest."""
    bw = is_bw(m)
    v = _get(m, m["metric"], s, d)
    e: Entry = {"src": m["nodes"][s], "dst": m["nodes"][d], "value": v,
         "of_median": v / med if math.isfinite(med) and med > 0 else math.nan,
         "slow_bits": _bits(m, s, d), "slow": slow_words(_bits(m, s, d))}
    if bw:
        e["line_pct"] = _get(m, "line_pct", s, d)
        e["other_direction"] = e["slow_bits"] not in (-1, 0, NOT_MEASURED, LOAD_ONLY) and \
            not cell_slow(m, s, d, med)
    else:
        e["p99_us"] = _get(m, "lat_p99_us", s, d)
    rv = _get(m, "retest_" + m["metric"], s, d)
    if math.isfinite(rv):
        e["retest"] = {"value": rv, "of_median": rv / med if math.isfinite(med) and med > 0
                       else math.nan}
        if bw:
            e["retest"]["line_pct"] = _get(m, "retest_line_pct", s, d)
        else:
            e["retest"]["p99_us"] = _get(m, "retest_lat_p99_us", s, d)
    return e


def worst(m: Matrix, count: int) -> List[Entry]:
    """The `count` worst measured entries: lowest bandwidth or highest latency first."""
    vals = m["values"][m["metric"]]
    src, dst = _ordered(m, entry_mask(m) & np.isfinite(vals))
    med = median(m)
    return [entry(m, int(s), int(d), med) for s, d in zip(src[:max(count, 0)],
                                                          dst[:max(count, 0)])]


def retested(m: Matrix, limit: Optional[int] = None) -> List[Entry]:
    """The entries retested alone (a finite retest value), worst first; all, or `limit`."""
    r = m["values"].get("retest_" + m["metric"])
    if r is None:
        return []
    src, dst = _ordered(m, entry_mask(m) & np.isfinite(r))
    med = median(m)
    if limit is not None:
        src, dst = src[:limit], dst[:limit]
    return [entry(m, int(s), int(d), med) for s, d in zip(src, dst)]


def retested_count(m: Matrix) -> int:
    r = m["values"].get("retest_" + m["metric"])
    return 0 if r is None else int(np.count_nonzero(entry_mask(m) & np.isfinite(r)))


def slow_cells(m: Matrix) -> Array:
    """n x n booleans: cell_slow for every cell, vectorised (the heatmap's outlines)."""
    n = m["members"]
    out = np.zeros((n, n), dtype=bool)
    if m["pair_slow"] is None:
        return out
    bits = m["pair_slow"]
    slow: Array = (bits > 0) & (bits != NOT_MEASURED) & (bits != LOAD_ONLY)
    np.fill_diagonal(slow, False)
    if not is_bw(m):
        return slow
    med = median(m)
    v = m["values"]["bw_MBps"]
    lp = m["values"].get("line_pct", np.full((n, n), np.nan))
    share = m["slow_bw_share"]
    with np.errstate(invalid="ignore"):
        below = (v < share * med) if math.isfinite(share) and math.isfinite(med) else \
            np.zeros((n, n), dtype=bool)
        below |= ((bits & 4) > 0) & (lp < 100 * LINE_FRAC)
    # a slow pair with neither direction below a threshold: both cells marked (as cell_slow)
    cells: Array = slow & (below | ~below.T)
    return cells


def cell_slow(m: Matrix, s: int, d: int, med: float) -> bool:
    """Whether the matrix cell s -> d is itself slow (pair_slow judges the pair: a bandwidth
    pair is slow when either direction is, so the direction is told by the thresholds)."""
    bits = _bits(m, s, d)
    if bits <= 0 or bits == NOT_MEASURED or bits == LOAD_ONLY:
        return False  # ok; LOAD_ONLY: slow in the schedule, ok when retested alone
    if not is_bw(m):
        return True
    v = _get(m, "bw_MBps", s, d)
    share = m["slow_bw_share"]
    lp = _get(m, "line_pct", s, d)
    below = (math.isfinite(share) and math.isfinite(med) and v < share * med) or \
        (bool(bits & 4) and math.isfinite(lp) and lp < 100 * LINE_FRAC)
    if below:
        return True
    # Neither direction below a threshold (bit 8 only, or rounding): mark both.
    o = _get(m, "bw_MBps", d, s)
    olp = _get(m, "line_pct", d, s)
    other = (math.isfinite(share) and math.isfinite(med) and o < share * med) or \
        (bool(bits & 4) and math.isfinite(olp) and olp < 100 * LINE_FRAC)
    return not other


def suspect_nodes(m: Matrix) -> List[int]:
    """Indices of the members a suspect names (node_suspect >= 0)."""
    ns = m["node_suspect"]
    return [] if ns is None else [i for i in range(len(ns)) if ns[i] >= 0]


def _names(names: Sequence[str]) -> str:
    if len(names) <= LIST_MAX:
        return ", ".join(names)
    return "%s, ... and %d more" % (", ".join(names[:LIST_MAX]), len(names) - LIST_MAX)


def _switch_text(m: Matrix) -> str:
    if not m["switches"] or m["node_switch"] is None:
        return "none known (host names without '-', no --switches)"
    parts = []
    big = m["members"] > LIST_MAX  # then each switch with its count, first and last member
    for g, name in enumerate(m["switches"][:LIST_MAX] if big else m["switches"]):
        on = [m["nodes"][i] for i in range(m["members"]) if m["node_switch"][i] == g]
        if big and len(on) > 2:
            parts.append("%s: %d (%s .. %s)" % (name, len(on), on[0], on[-1]))
        else:
            parts.append("%s: %s" % (name, _names(on)))
    if big and len(m["switches"]) > LIST_MAX:
        parts.append("... and %d more switches" % (len(m["switches"]) - LIST_MAX))
    none = [m["nodes"][i] for i in range(m["members"]) if m["node_switch"][i] < 0]
    if none:
        parts.append("none: %s" % _names(none))
    return "; ".join(parts)


def headline(m: Matrix) -> str:
    """'pairs_bw (FILE run_0000): verdict SUSPECTS (2 suspects)' and the like."""
    st = status(m)
    where = "%s (%s %s)" % (m["kernel"], m["file"], m["run"])
    if st == "healthy":
        return "%s: verdict healthy" % where
    if st == "suspects":
        k = len(m["suspects"])
        return "%s: verdict SUSPECTS (%d suspect%s)" % (where, k, "" if k == 1 else "s")
    if st == "not_comparable":
        return "%s: NOT COMPARABLE, no verdict: its row is %s (fabricbench's verdict: %s)" % (
            where, m.get("quality_text") or m["quality"], m["verdict"])
    stop = m["run_status"] or "unknown"
    if m["rounds_done"] >= m["rounds"] and 0 <= m["retested"] and m["retested"] < m["retests"]:
        return "%s: INCOMPLETE, no verdict: all %d rounds done, %d of %d retests (run %s)" % (
            where, m["rounds"], m["retested"], m["retests"], stop)
    return "%s: INCOMPLETE, no verdict: %d of %d rounds done (run %s)" % (
        where, m["rounds_done"], m["rounds"], stop)


def threshold_text(m: Matrix) -> str:
    if not m["complete"]:
        return "not judged yet (the thresholds come with the verdict)"
    med = median(m)
    if is_bw(m):
        share = m["slow_bw_share"]
        line = m["line_rate_MBps"]
        t = "below %s of the median pair (%s MB/s)" % (
            "%.0f%%" % (100 * share) if math.isfinite(share) else "?",
            _num(share * med, True) if math.isfinite(share) else "-")
        if math.isfinite(line):
            t += " or below %.0f%% of the line rate (%s MB/s)" % (100 * LINE_FRAC,
                                                                 _num(line, True))
        else:
            t += "; line rate unknown: not judged"
        return t
    f = m["slow_latency_factor"]
    return "p50 above %sx the median pair's (%s us)" % (
        "%g" % f if math.isfinite(f) else "?", fmt_num(f * med) if math.isfinite(f) else "-")


def summarize(m: Matrix, count: int) -> Dict[str, Any]:
    """The matrix as a dict for --json (and the report)."""
    n = m["members"]
    med = median(m)
    d = {k: m[k] for k in ("file", "run", "run_status", "kernel", "kernel_id", "kernel_status",
                           "schedule", "pairs_per", "bytes", "members", "rounds", "rounds_done",
                           "iterations", "iterations_max", "warmup", "pairs_measured",
                           "pairs_slow",
                           "slow_bw_share", "slow_latency_factor", "line_rate_MBps",
                           "bw_median_MBps", "lat_median_us", "nodes", "switches",
                           "suspects", "retests", "retested", "pairs_load_only")}
    d["retest"] = m["retest"] or None
    d["policy"] = m["policy"] or None
    d["pair_time_s"] = m["pair_time_s"] if math.isfinite(m["pair_time_s"]) else None
    d["status"] = status(m)
    d["verdict"] = m["verdict"]
    d["metric"], d["unit"], d["median"] = m["metric"], m["unit"], med
    d["node_switch"] = None if m["node_switch"] is None else [int(x) for x in m["node_switch"]]
    d["suspect_nodes"] = [m["nodes"][i] for i in suspect_nodes(m)]
    d["worst"] = worst(m, count)
    d["retested"] = retested(m)
    if n <= JSON_MATRIX_MAX:
        d["matrix"] = [[float(x) for x in row] for row in m["values"][m["metric"]]]
    return d


def render_text(ms: Sequence[Matrix], count: int) -> str:
    out: List[str] = []
    for m in ms:
        out.extend(_text_one(m, count))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _text_one(m: Matrix, count: int) -> List[str]:
    bw = is_bw(m)
    n = m["members"]
    med = median(m)
    out = ["== " + headline(m)]
    its = "%d" % m["iterations"] if m["iterations"] >= 0 else "?"
    if m["iterations_max"] > m["iterations"] >= 0:
        its += "-%d" % m["iterations_max"]
    policy = ""
    if m["policy"] == "adaptive" and math.isfinite(m["pair_time_s"]):
        policy = ", adaptive, at most %g s each" % m["pair_time_s"]
    elif m["policy"]:
        policy = ", " + m["policy"]
    sched = "%s, %d of %d rounds; %s iterations per pair and direction (%s warm-up%s); " \
        "message size %s" % (m["schedule"] or "?", m["rounds_done"], m["rounds"], its,
                             m["warmup"] if m["warmup"] >= 0 else "?", policy,
                             bytes_text(m["bytes"]))
    if m["retest"]:
        sched += "; retest of slow pairs alone %s" % m["retest"]
        if m["retest"] == "on" and m["retests"] >= 0:
            sched += " (%s of %d retested%s)" % (
                m["retested"] if m["retested"] >= 0 else "?", m["retests"],
                "; %d slow only under load" % m["pairs_load_only"]
                if m["pairs_load_only"] >= 0 else "")
    out.append("schedule  " + sched)
    out.append("members   %d %s: %s" % (n, "ranks" if m["pairs_per"] == "rank" else "nodes",
                                        _names(m["nodes"])))
    out.append("switches  " + _switch_text(m))
    total = n * (n - 1) // 2
    vals = m["values"][m["metric"]]
    fin = np.isfinite(vals)
    measured = m["pairs_measured"] if m["complete"] and m["pairs_measured"] >= 0 else \
        int(np.count_nonzero(np.triu(fin | fin.T, 1)))
    slow = "; %d slow" % m["pairs_slow"] if m["complete"] and m["pairs_slow"] >= 0 else ""
    out.append("measured  %d of %d pairs%s" % (measured, total, slow))
    what = "MB/s per pair and direction" if bw else "us one-way p50 per pair"
    line = ""
    if bw:
        line = "; line rate %s MB/s" % _num(m["line_rate_MBps"], True) \
            if math.isfinite(m["line_rate_MBps"]) else "; line rate unknown" \
            if m["complete"] else ""
    out.append("median    %s %s%s%s" % (_num(med, bw), what, line,
                                       "" if m["complete"] else " (of the pairs so far)"))
    out.append("slow      " + threshold_text(m))
    for s in m["suspects"]:
        kind, _, text = s.partition(": ")
        out.append("suspect %s: %s" % (kind, text) if text else "suspect: %s" % s)
    if m["complete"] and not m["suspects"]:
        out.append("suspects  none")
    rows = worst(m, count)
    if rows:
        out.append("worst %d %s (%s first):" % (len(rows), ("direction" if bw else "pair") +
                                                ("" if len(rows) == 1 else "s"),
                                                "lowest bandwidth" if bw else
                                                "highest latency"))
        out.extend(_worst_table(rows, bw))
    rt = retested(m, LIST_MAX)
    nrt = retested_count(m)
    if rt:
        out.append("retested alone (%d %s): first measurement -> alone" % (
            nrt, ("direction" if bw else "pair") + ("" if nrt == 1 else "s")))
        for e in rt:
            out.append("  %s %s %s: %s -> %s %s (%s -> %s of the median)" % (
                e["src"], "->" if bw else "<->", e["dst"], _num(e["value"], bw),
                _num(e["retest"]["value"], bw), m["unit"], _pct(e["of_median"]),
                _pct(e["retest"]["of_median"])))
        if nrt > LIST_MAX:
            out.append("  ... and %d more" % (nrt - LIST_MAX))
    if n <= MATRIX_MAX:
        out.append("matrix: %s, row %s column (* slow, ~ slow only under load, - not "
                   "measured)" % ("MB/s" if bw else "p50 one-way latency, us",
                                  "sends to" if bw else "with"))
        out.extend(_matrix_table(m, med))
    return out


def bytes_text(b: int) -> str:
    """8 B, 1M (K, M = 1024^n, as on fabricbench's command line), ? unknown."""
    if b < 0:
        return "?"
    t = size_label(b)
    return t + " B" if t.isdigit() else t


def _pct(x: float) -> str:
    return "%.0f%%" % (100 * x) if math.isfinite(x) else "n/a"


def _worst_table(rows: Sequence[Entry], bw: bool) -> List[str]:
    head = ["from", "to", "MB/s" if bw else "p50 us", "of median",
            "line%" if bw else "p99 us", "pair slow", "retest alone"]
    lines = []
    for e in rows:
        rt = ""
        if "retest" in e:
            rt = "%s (%s)" % (_num(e["retest"]["value"], bw), _pct(e["retest"]["of_median"]))
        lines.append([e["src"], e["dst"], _num(e["value"], bw), _pct(e["of_median"]),
                      ("%.0f%%" % e["line_pct"] if math.isfinite(e["line_pct"]) else "n/a")
                      if bw else _num(e["p99_us"], False),
                      _slow_cell(e), rt])
    return ["  " + x for x in format_columns(head, lines, left=(0, 1, 5, 6))]


def _slow_cell(e: Entry) -> str:
    text = ", ".join(e["slow"]) or ("ok" if e["slow_bits"] == 0 else "-")
    if e.get("other_direction"):
        text += " (the other direction)"
    return text


def _matrix_table(m: Matrix, med: float) -> List[str]:
    bw = is_bw(m)
    n = m["members"]
    vals = m["values"][m["metric"]]
    names = m["nodes"]
    width = max([len(x) for x in names] + [8])
    first = max(len(x) for x in names)
    out = ["  " + " " * first + "".join(" %*s" % (width + 1, x) for x in names)]
    for s in range(n):
        cells = []
        for d in range(n):
            v = vals[s, d]
            if s == d or not math.isfinite(v):
                cells.append(" %*s " % (width, "-"))
            else:
                mark = "*" if cell_slow(m, s, d, med) else \
                    "~" if _bits(m, s, d) == LOAD_ONLY else " "
                cells.append(" %*s%s" % (width, _num(v, bw), mark))
        out.append("  %-*s%s" % (first, names[s], "".join(cells)))
    return out
