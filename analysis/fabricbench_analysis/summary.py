"""One line per run: what it measured on, and the numbers people quote."""
import math

from .compare import format_columns
from .table import finite, fmt_num, size_label

MIB = 1 << 20


def _pick(rows, nbytes):
    """The row of exactly nbytes, else None."""
    for r in rows:
        if r["bytes"] == nbytes:
            return r
    return None


def _hosts_text(s):
    hosts = [h for h in (s["hosts"] or "").split(",") if h]
    if not hosts:
        return str(s["nhosts"]) if s["nhosts"] != -1 else "?"
    if len(hosts) <= 2:
        return ",".join(hosts)
    return "%s,%s +%d" % (hosts[0], hosts[1], len(hosts) - 2)


def summarize(table):
    """A list of dicts, one per series (file and run), in load order."""
    out = []
    for s in table.series():
        rows = table.where(label=s["label"])
        rec = {k: s[k] for k in ("label", "file", "run", "run_status", "stop_reason", "fabric",
                                 "fabric_device", "fabric_netdev", "transport", "ucx_transports",
                                 "hosts", "nhosts", "nranks", "line_rate_gbps", "start_time",
                                 "mpi_library", "ucx_version", "tool_version")}
        rec["hosts_text"] = _hosts_text(s)
        # Latency at 8 B (the smallest size when 8 B was not measured): of latency, else of
        # another latency kernel (pairs_latency: its median pair).
        lat = [r for r in rows if r["kernel"] == "latency"] or \
            [r for r in rows if r["kind"] == "latency"]
        r = _pick(lat, 8) or (min(lat, key=lambda x: x["bytes"]) if lat else None)
        rec["latency_bytes"] = r["bytes"] if r else None
        rec["latency_p50_us"] = r["p50_us"] if r else math.nan
        rec["latency_p99_us"] = r["p99_us"] if r else math.nan
        # Peak bandwidth: of bw, else of another bandwidth kernel.
        bwk = [r for r in rows if r["kernel"] == "bw"] or \
            [r for r in rows if r["kind"] == "bandwidth"]
        bwk = [r for r in bwk if finite(r["Gbps"])]
        r = max(bwk, key=lambda x: x["Gbps"]) if bwk else None
        rec["peak_kernel"] = r["kernel"] if r else ""
        rec["peak_bytes"] = r["bytes"] if r else None
        rec["peak_Gbps"] = r["Gbps"] if r else math.nan
        rec["peak_MBps"] = r["MBps"] if r else math.nan
        pct = r.get("line_rate_pct", math.nan) if r else math.nan
        if r and not finite(pct) and finite(s["line_rate_gbps"]) and s["line_rate_gbps"] > 0 \
                and s["nhosts"] != 1:
            # Older files: no line_rate_pct column, but the rate is known.
            pct = 100 * r["Gbps"] / (s["line_rate_gbps"] * (2 if r["kernel"] == "bibw" else 1))
        rec["peak_line_pct"] = pct
        # 8 B message rate: msgrate's aggregate, else bw's.
        mr = [r for r in rows if r["kernel"] == "msgrate"] or [r for r in rows
                                                              if r["kernel"] == "bw"]
        r = _pick(mr, 8)
        rec["msgrate_kernel"] = r["kernel"] if r else ""
        rec["msgrate_8B_msgps"] = r["msgps"] if r else math.nan
        # allreduce busbw at 1 MiB and at its largest size.
        ar = [r for r in rows if r["kernel"] == "allreduce" and finite(r["busbw_GBps"])]
        r = _pick(ar, MIB)
        rec["allreduce_busbw_1M_GBps"] = r["busbw_GBps"] if r else math.nan
        r = max(ar, key=lambda x: x["bytes"]) if ar else None
        rec["allreduce_max_bytes"] = r["bytes"] if r else None
        rec["allreduce_busbw_max_GBps"] = r["busbw_GBps"] if r else math.nan
        rec["kernels"] = s["kernels"]
        out.append(rec)
    return out


HEAD = ["run", "status", "fabric", "transport", "hosts", "ranks", "lat p50 us", "p99 us",
        "peak Gb/s", "line%", "msg/s 8B", "allreduce busbw GB/s 1M", "at max"]


def text_cells(rec):
    """The summary line of one run as cells (text and HTML use the same)."""
    lat = ""
    if rec["latency_bytes"] is not None:
        lat = fmt_num(rec["latency_p50_us"])
        if rec["latency_bytes"] != 8:
            lat += " (%sB)" % size_label(rec["latency_bytes"])
    peak = ""
    if rec["peak_bytes"] is not None:
        peak = "%s @%s" % (fmt_num(rec["peak_Gbps"]), size_label(rec["peak_bytes"]))
        if rec["peak_kernel"] != "bw":
            peak += " (%s)" % rec["peak_kernel"]
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
    return [rec["label"], status, fabric, transport, rec["hosts_text"],
            str(rec["nranks"]), lat or "-",
            fmt_num(rec["latency_p99_us"]) if rec["latency_bytes"] is not None else "-",
            peak or "-", line if peak else "-", mr or "-",
            fmt_num(rec["allreduce_busbw_1M_GBps"]) if rec["allreduce_max_bytes"] is not None
            else "-", atmax or "-"]


def render_text(recs):
    lines = [text_cells(r) for r in recs]
    out = format_columns(HEAD, lines, left=(0, 1, 2, 3, 4))
    out.append("")
    out.append("lat: latency kernel, one way, 8 B; peak: bw's highest Gb/s and its size; line%: "
               "of the line rate (n/a: unknown or one host); msg/s: msgrate's aggregate at 8 B "
               "(bw's when no msgrate); busbw at 1 MiB and at allreduce's largest size")
    for r in recs:
        out.append("%s = %s %s" % (r["label"], r["file"], r["run"]))
    return "\n".join(out) + "\n"
