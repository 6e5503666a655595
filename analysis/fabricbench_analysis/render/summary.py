# SPDX-License-Identifier: BSD-3-Clause
"""One line per run: what it measured on, and the numbers people quote."""
import math
from operator import itemgetter
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ..checks.compare import format_columns
from ..model import grouping, layers, quality, straggler
from ..model.table import Row, Table, finite, fmt_num, kernel_name, size_label
from . import knee

MIB = 1 << 20

Record = Dict[str, Any]  # one group of runs' summary (summarize())


def _pick(rows: Iterable[Row], nbytes: int) -> Optional[Row]:
    """The row of exactly nbytes, else None."""
    for r in rows:
        if r["bytes"] == nbytes:
            return r
    return None


def _hosts_text(s: Row) -> str:
    hosts = [h for h in (s["hosts"] or "").split(",") if h]
    if not hosts:
        return str(s["nhosts"]) if s["nhosts"] != -1 else "?"
    if len(hosts) <= 2:
        return ",".join(hosts)
    return "%s,%s +%d" % (hosts[0], hosts[1], len(hosts) - 2)


# The summary's numbers and the table column each is taken from (its spread: of that column).
SPREAD_OF = {"latency_p50_us": "p50_us", "latency_p99_us": "p99_us", "peak_Gbps": "Gbps",
             "msgrate_8B_msgps": "msgps", "allreduce_busbw_1M_GBps": "busbw_GBps",
             "allreduce_busbw_max_GBps": "busbw_GBps"}


def _joined(values: Iterable[Any]) -> Any:
    vals: List[Any] = []
    for v in values:
        if v not in vals:
            vals.append(v)
    return vals[0] if len(vals) == 1 else "/".join(str(v) for v in vals)


def summarize(table: Table, group_keys: Optional[Sequence[str]] = None,
              max_loss: float = knee.DEFAULT_MAX_LOSS) -> List[Record]:
    """A list of dicts, one per group of runs (grouping.py; --group none: one per run), in
    load order: each number is the median over the group's runs (at one kernel and size), its
    `spread` the runs' relative standard deviation (None: fewer than 2 runs measured it);
    `layers` (socket and MPI Gb/s side by side, layers.group_layers; None without both) and
    `knees` (a rate sweep's knee per size, knee.knees, at max_loss percent)."""
    out: List[Record] = []
    for g in grouping.make_groups(table, group_keys):
        s = g.members[0]
        rows = grouping.group_rows(table, g)
        rec = {k: s[k] for k in ("label", "file", "run", "run_status", "stop_reason", "fabric",
                                 "fabric_device", "fabric_netdev", "transport", "ucx_transports",
                                 "hosts", "nhosts", "nranks", "line_rate_gbps", "start_time",
                                 "mpi_library", "ucx_version", "tool_version")}
        rec["label"] = g.name
        rec["runs"] = len(g)
        rec["members"] = [{"label": m["label"], "file": m["file"], "run": m["run"]}
                          for m in g.members]
        rec["ranks_text"] = str(_joined(m["nranks"] for m in g.members))
        if len(g) > 1:
            for k in ("file", "run", "run_status", "stop_reason", "transport", "tool_version"):
                rec[k] = _joined(m[k] for m in g.members)
            rec["hosts"] = ",".join(h for h in dict.fromkeys(
                h for m in g.members for h in (m["hosts"] or "").split(",") if h))
            rec["start_time"] = min(m["start_time"] for m in g.members)
        rec["hosts_text"] = _hosts_text(rec)
        picked = {}
        # Latency at 8 B (the smallest size when 8 B was not measured): of latency, else of
        # another latency kernel (the first in the file's order; pairs_latency: its median
        # pair), named in the cell: its own definition (put_lat: a put and its --rma-sync,
        # not one way).
        lat = [r for r in rows if r["kernel"] == "latency"] or \
            [r for r in rows if r["kind"] == "latency"]
        r = _pick(lat, 8) or (min(lat, key=itemgetter("bytes")) if lat else None)
        rec["latency_kernel"] = r["kernel"] if r else ""
        rec["latency_variant"] = r["variant"] if r else ""
        rec["latency_bytes"] = r["bytes"] if r else None
        rec["latency_p50_us"] = r["p50_us"] if r else math.nan
        rec["latency_p99_us"] = r["p99_us"] if r else math.nan
        picked["latency_p50_us"] = picked["latency_p99_us"] = r
        # Peak bandwidth: of bw, else of another bandwidth kernel.
        bwk = [r for r in rows if r["kernel"] == "bw"] or \
            [r for r in rows if r["kind"] == "bandwidth"]
        bwk = [r for r in bwk if finite(r["Gbps"])]
        r = max(bwk, key=itemgetter("Gbps")) if bwk else None
        rec["peak_kernel"] = r["kernel"] if r else ""
        rec["peak_variant"] = r["variant"] if r else ""
        rec["peak_bytes"] = r["bytes"] if r else None
        rec["peak_Gbps"] = r["Gbps"] if r else math.nan
        rec["peak_MBps"] = r["MBps"] if r else math.nan
        picked["peak_Gbps"] = r
        pct = r.get("line_rate_pct", math.nan) if r else math.nan
        rate, nhosts = s["line_rate_gbps"], s["nhosts"]
        if r and not finite(pct) and finite(rate) and rate > 0 and nhosts != 1:
            # Older files: no line_rate_pct column, but the rate is known.
            pct = 100 * r["Gbps"] / (rate * (2 if r["kernel"] == "bibw" else 1))
        rec["peak_line_pct"] = pct
        # 8 B message rate: msgrate's aggregate, else bw's.
        mr = [r for r in rows if r["kernel"] == "msgrate"] or [r for r in rows
                                                              if r["kernel"] == "bw"]
        r = _pick(mr, 8)
        rec["msgrate_kernel"] = r["kernel"] if r else ""
        rec["msgrate_8B_msgps"] = r["msgps"] if r else math.nan
        picked["msgrate_8B_msgps"] = r
        # allreduce busbw at 1 MiB and at its largest size.
        ar = [r for r in rows if r["kernel"] == "allreduce" and finite(r["busbw_GBps"])]
        r = _pick(ar, MIB)
        rec["allreduce_busbw_1M_GBps"] = r["busbw_GBps"] if r else math.nan
        picked["allreduce_busbw_1M_GBps"] = r
        r = max(ar, key=itemgetter("bytes")) if ar else None
        rec["allreduce_max_bytes"] = r["bytes"] if r else None
        rec["allreduce_busbw_max_GBps"] = r["busbw_GBps"] if r else math.nan
        picked["allreduce_busbw_max_GBps"] = r
        rec["spread"] = {k: (grouping.spread(r, SPREAD_OF[k]) if r else math.nan)
                         for k, r in picked.items()}
        # Each number's row quality (quality.py): [disturbed] or [invalid] where it is none
        rec["row_quality"] = {k: (r.get("quality", "ok") if r else None)
                              for k, r in picked.items()}
        # and its mark in a cell: ' [invalid]', ' [implausible]' (quality.mark)
        rec["row_marks"] = {k: quality.mark(r) for k, r in picked.items()}
        rec["quality"] = quality.group_quality(table, g.members)
        rec["kernels"] = list(dict.fromkeys(kernel_name(r) for r in rows))
        # The MPI component under each kernel that names one (the one-sided kernels' osc):
        # {component: [kernels]}
        comps: Dict[str, List[str]] = {}
        for r in rows:
            c = r.get("component")
            if isinstance(c, str) and c:
                names = comps.setdefault(c, [])
                if kernel_name(r) not in names:
                    names.append(kernel_name(r))
        rec["components"] = comps
        rec["layers"] = layers.group_layers(rows)
        rec["knees"] = knee.knees(rows, max_loss, table.units)
        rec["stragglers"] = straggler.find(rows)
        out.append(rec)
    return out


# What the columns hold (the text summary's last line; the HTML report's note under its table).
LEGEND = ("lat: latency kernel, one way, 8 B (another latency kernel's where named, by its own "
          "definition); peak: bw's highest Gb/s and its size; line%: of the line rate (n/a: "
          "unknown or one host); msg/s: msgrate's aggregate at 8 B (bw's when no msgrate); "
          "busbw at 1 MiB and at allreduce's largest size")

HEAD = ["run", "runs", "status", "fabric", "transport", "hosts", "ranks", "lat p50 us", "p99 us",
        "peak Gb/s", "line%", "msg/s 8B", "allreduce busbw GB/s 1M", "at max"]


def flat(rec: Record) -> Dict[str, Any]:
    """A summary record for CSV: the spreads as spread_NAME columns, the runs as one field
    ('FILE RUN; FILE RUN'), without the kernel list."""
    out = {k: v for k, v in rec.items() if k not in ("kernels", "members", "spread", "layers",
                                                     "knees", "row_quality", "quality",
                                                     "components", "row_marks",
                                                     "stragglers")}
    out["stragglers"] = "; ".join(straggler.line(s) for s in rec.get("stragglers") or [])
    out["components"] = "; ".join("%s: %s" % (c, ",".join(n))
                                  for c, n in (rec.get("components") or {}).items())
    out["members"] = "; ".join("%s %s" % (m["file"], m["run"]) for m in rec["members"])
    for k, v in rec["spread"].items():
        out["spread_" + k] = v
    for k, v in rec["row_quality"].items():
        out["quality_" + k] = v or ""
    q = rec["quality"]
    out["quality"] = q["text"]
    for k in ("rows", "disturbed", "invalid", "noisy", "runs_disturbed"):
        out["rows_" + k if k in ("disturbed", "invalid", "noisy") else k] = q[k]
    return out


def _with_spread(rec: Record, key: str, text: str) -> str:
    """A number's cell, with its run-to-run spread for a group of several runs, and marked
    [disturbed] or [invalid] when its row is no measurement (quality.py)."""
    if not text or text == "-":
        return text
    q = (rec.get("row_quality") or {}).get(key)
    mark = (rec.get("row_marks") or {}).get(key) or (" [%s]" % q if q in quality.NOT_COMPARABLE
                                                      else "")
    if rec.get("runs", 1) < 2:
        return text + mark
    return "%s +-%s%s" % (text, _pct(rec["spread"].get(key, math.nan)), mark)


def _pct(u: Any) -> str:
    return "%s%%" % fmt_num(100 * u, 2) if finite(u) else "?"


def text_cells(rec: Record) -> List[str]:
    """The summary line of one group of runs as cells (text and HTML use the same)."""
    lat = ""
    if rec["latency_bytes"] is not None:
        lat = fmt_num(rec["latency_p50_us"])
        named = [] if rec["latency_kernel"] == "latency" else \
            [kernel_name(rec["latency_kernel"], rec.get("latency_variant"))]
        if rec["latency_bytes"] != 8:
            named.insert(0, "%sB" % size_label(rec["latency_bytes"]))
        if named:
            lat += " (%s)" % " ".join(named)
    peak = ""
    if rec["peak_bytes"] is not None:
        peak = "%s @%s" % (fmt_num(rec["peak_Gbps"]), size_label(rec["peak_bytes"]))
        if rec["peak_kernel"] != "bw":
            peak += " (%s)" % kernel_name(rec["peak_kernel"], rec.get("peak_variant"))
    line = ("%.1f%%" % rec["peak_line_pct"]) if finite(rec["peak_line_pct"]) else "n/a"
    mr = ""
    if rec["msgrate_kernel"]:
        mr = fmt_num(rec["msgrate_8B_msgps"]) + ("" if rec["msgrate_kernel"] == "msgrate"
                                                 else " (bw)")
    atmax = ""
    if rec["allreduce_max_bytes"] is not None:
        atmax = "%s @%s" % (fmt_num(rec["allreduce_busbw_max_GBps"]),
                            size_label(rec["allreduce_max_bytes"]))
    status = rec["run_status"] or "?"
    fabric = rec["fabric"]
    dev = rec["fabric_device"] or rec["fabric_netdev"]
    if dev:
        fabric += " " + dev
    transport = rec["transport"] or ("not probed" if (rec["ucx_transports"] or "").startswith(
        "not probed") else "?")
    return [rec["label"], str(rec.get("runs", 1)), status, fabric, transport, rec["hosts_text"],
            rec.get("ranks_text", str(rec["nranks"])),
            _with_spread(rec, "latency_p50_us", lat or "-"),
            _with_spread(rec, "latency_p99_us", fmt_num(rec["latency_p99_us"])
                         if rec["latency_bytes"] is not None else "-"),
            _with_spread(rec, "peak_Gbps", peak or "-"), line if peak else "-",
            _with_spread(rec, "msgrate_8B_msgps", mr or "-"),
            _with_spread(rec, "allreduce_busbw_1M_GBps",
                         fmt_num(rec["allreduce_busbw_1M_GBps"])
                         if rec["allreduce_max_bytes"] is not None else "-"),
            _with_spread(rec, "allreduce_busbw_max_GBps", atmax or "-")]


def quality_lines(recs: Sequence[Record]) -> List[str]:
    """The headline when runs were disturbed (or rows below the floor), else []."""
    return quality.headline([(r["label"], r["quality"]) for r in recs if r.get("quality")])


def render_text(recs: Sequence[Record], group_by: Optional[Sequence[str]] = None) -> str:
    lines = [text_cells(r) for r in recs]
    out = quality_lines(recs)
    out += format_columns(HEAD, lines, left=(0, 2, 3, 4, 5))
    out.append("")
    out.append(LEGEND)
    if any(r.get("runs", 1) > 1 for r in recs):
        out.append("runs: repeats of one measurement (--group %s); each number is their "
                   "median, +-N%% their run-to-run spread (relative standard deviation; ?: "
                   "measured in one run only)" % (grouping.DEFAULT if group_by is None else
                                                   ",".join(group_by) or "none"))
    for r in recs:
        members, last = [], None
        for m in r.get("members") or [{"file": r["file"], "run": r["run"]}]:
            members.append(m["run"] if m["file"] == last else "%s %s" % (m["file"], m["run"]))
            last = m["file"]
        out.append("%s = %s" % (r["label"], ", ".join(members)))
    for r in recs:
        for comp, names in (r.get("components") or {}).items():
            out.append("%s: component %s under %s" % (r["label"], comp, ", ".join(names)))
    for r in recs:
        if r.get("layers"):
            out += [""] + layers.group_text(r["layers"], r["label"])
        if r.get("knees"):
            out += [""] + knee.text(r["knees"], r["label"])
        if r.get("stragglers"):
            out += [""] + straggler.text(r["stragglers"], r["label"])
    return "\n".join(out) + "\n"
