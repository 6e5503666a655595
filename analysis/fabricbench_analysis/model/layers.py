# SPDX-License-Identifier: BSD-3-Clause
"""Socket and MPI side by side: what the kernel's own TCP reaches on a path against what MPI
(over UCX, over RDMA) reaches, per message size (docs/ANALYSIS.md, "Layers").

A socket kernel is recognised by its own columns (docs/SCHEMA.md: `tcp_retrans`,
`sndbuf_bytes`, `rcvbuf_bytes`; the UDP kernels' `udp_sent`, `udp_received`, ...), which are
NaN in every other kernel's rows by definition; in a file without those columns, by its name
(`tcp_*`, `udp_*`). Every other bandwidth kernel (bw, bibw, msgrate, ...) is an MPI one.

The layers compared are the throughput kernels: a TCP kernel of the bandwidth kind
(tcp_stream, each instance) and the MPI bandwidth kernels. UDP kernels are not among them:
their throughput is the rate they were offered (udp_rate) or a packet rate (udp_pps); what
they tell is where loss starts (knee.py).
"""
import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from .table import Row, finite, fmt_num, kernel_name, size_label

TCP_COLUMNS = ("tcp_retrans",)
UDP_COLUMNS = ("udp_sent", "udp_received", "udp_drops", "udp_ooo", "udp_dup", "loss_pct")
SOCKET_COLUMNS = TCP_COLUMNS + ("sndbuf_bytes", "rcvbuf_bytes") + UDP_COLUMNS

Column = Tuple[str, str, str]  # a layers table's kernel instance: (layer, kernel, variant)
Block = Dict[str, Any]  # group_layers(), across(): columns and rows


def socket_proto(row: Mapping[str, Any]) -> str:
    """'udp' or 'tcp' for a socket kernel's row (by its own columns, else by its name), 'socket'
    for one with socket columns of neither protocol, '' for any other kernel's."""
    if any(finite(row.get(c)) for c in UDP_COLUMNS) or row["kernel"].startswith("udp_"):
        return "udp"
    if any(finite(row.get(c)) for c in TCP_COLUMNS) or row["kernel"].startswith("tcp_"):
        return "tcp"
    return "socket" if any(finite(row.get(c)) for c in SOCKET_COLUMNS) else ""


def layer(row: Mapping[str, Any]) -> str:
    """'socket' (a TCP throughput kernel), 'MPI' (an MPI bandwidth kernel) or '' (neither: a
    latency kernel, a collective, a UDP kernel) for the layers table."""
    if row["kind"] != "bandwidth":
        return ""
    proto = socket_proto(row)
    if proto == "udp":
        return ""
    return "socket" if proto else "MPI"


def _columns(rows: Sequence[Row]) -> List[Column]:
    """The layers' kernel instances of some rows: (layer, kernel, variant), sockets first,
    each in order of appearance."""
    seen: Dict[Column, None] = {}
    for r in rows:
        lay = layer(r)
        if lay:
            seen.setdefault((lay, r["kernel"], r["variant"]), None)
    return sorted(seen, key=lambda c: c[0] != "socket")


def has_layers(rows: Sequence[Row]) -> bool:
    """Whether rows hold both a socket and an MPI throughput kernel."""
    lays = {c[0] for c in _columns(rows)}
    return lays == {"socket", "MPI"}


def _row(rows: Sequence[Row], col: Column, nbytes: int) -> Optional[Row]:
    for r in rows:
        if (layer(r), r["kernel"], r["variant"]) == col and r["bytes"] == nbytes:
            return r
    return None


def _gbps(rows: Sequence[Row], col: Column, nbytes: int) -> Any:
    r = _row(rows, col, nbytes)
    return r["Gbps"] if r is not None else math.nan


def _quality(rows: Sequence[Row], col: Column, nbytes: int) -> Any:
    """The row's quality (quality.py): a disturbed or invalid value is marked, never put in a
    ratio."""
    r = _row(rows, col, nbytes)
    return r.get("quality", "ok") if r is not None else "ok"


NOT_COMPARABLE = ("disturbed", "invalid")


def _sizes(rows: Sequence[Row]) -> List[int]:
    """The sizes of the layers' table: those both layers measured (a socket kernel runs
    128K unless given -m; bw its own list); where they share none, every size either did."""
    by: Dict[str, Set[int]] = {}
    for r in rows:
        if layer(r):
            by.setdefault(layer(r), set()).add(r["bytes"])
    both = by.get("socket", set()) & by.get("MPI", set())
    return sorted(both or set().union(*by.values()))


def _mpi_ref(cols: Sequence[Column]) -> Optional[Column]:
    """The MPI kernel the ratio takes: bw where measured, else the first."""
    mpi = [c for c in cols if c[0] == "MPI"]
    return next((c for c in mpi if c[1] == "bw"), mpi[0] if mpi else None)


def group_layers(rows: Sequence[Row]) -> Optional[Block]:
    """The layers block of one group's rows (grouping.group_rows: medians over its runs), or
    None without both layers: {columns: [{layer, kernel, variant, name}], mpi: the kernel of
    the ratio, rows: [{bytes, Gbps: [per column], ratio}]}. ratio: that MPI kernel's Gb/s over
    the best socket instance's at the size (NaN where either is missing)."""
    if not has_layers(rows):
        return None
    cols = _columns(rows)
    ref: Any = _mpi_ref(cols)  # never None: has_layers saw an MPI kernel
    out: List[Dict[str, Any]] = []
    for b in _sizes(rows):
        vals = [_gbps(rows, c, b) for c in cols]
        qual = [_quality(rows, c, b) for c in cols]
        sock = [(v, q) for c, v, q in zip(cols, vals, qual)
                if c[0] == "socket" and finite(v) and v > 0]
        mpi = vals[cols.index(ref)]
        best: Any = max(sock) if sock else None  # (Gb/s, quality) of the best socket one
        ok = best is not None and best[1] not in NOT_COMPARABLE and \
            qual[cols.index(ref)] not in NOT_COMPARABLE
        out.append({"bytes": b, "Gbps": vals, "quality": qual,
                    "ratio": mpi / best[0] if ok and finite(mpi) else math.nan})
    return {"columns": [_column_json(c) for c in cols], "mpi": kernel_name(ref[1], ref[2]),
            "rows": out}


def _column_json(col: Column, group: Optional[str] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {"layer": col[0], "kernel": col[1], "variant": col[2],
           "name": kernel_name(col[1], col[2])}
    if group is not None:
        out["group"] = group
    return out


def across(named_rows: Sequence[Tuple[str, Sequence[Row]]]) -> Optional[Block]:
    """The layers table of several groups side by side: named_rows [(group name, its rows)];
    None unless the groups together hold both layers. {columns: [{group, layer, kernel,
    variant, name}], rows: [{bytes, Gbps: [per column]}]}."""
    allrows = [r for _, rows in named_rows for r in rows]
    if not has_layers(allrows):
        return None
    cols: List[Tuple[str, Column, Sequence[Row]]] = []
    out: List[Dict[str, Any]] = []
    for name, rows in named_rows:
        cols += [(name, c, rows) for c in _columns(rows)]
    for b in _sizes(allrows):
        out.append({"bytes": b, "Gbps": [_gbps(rows, c, b) for _, c, rows in cols],
                    "quality": [_quality(rows, c, b) for _, c, rows in cols]})
    return {"columns": [_column_json(c, name) for name, c, _ in cols], "rows": out}


# ------------------------------------------------------------------ text

WIDTH = 100  # a text table wider than this is cut into blocks, the bytes column repeated


def wide_columns(head_rows: List[List[str]], rows: List[List[str]],
                 width: int = WIDTH) -> List[str]:
    """Lines of a table whose header has several rows (all cells strings, right-aligned),
    cut into blocks of at most `width` columns, each block with the first column."""
    table = head_rows + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    chunks: List[List[int]] = []
    cur: List[int] = []
    used = widths[0]
    for i in range(1, len(widths)):
        if cur and used + 2 + widths[i] > width:
            chunks.append(cur)
            cur, used = [], widths[0]
        cur.append(i)
        used += 2 + widths[i]
    chunks.append(cur)
    out: List[str] = []
    for k, chunk in enumerate(chunks):
        if k:
            out.append("")
        for r in table:
            out.append("  ".join(r[i].rjust(widths[i]) for i in [0] + chunk).rstrip())
    return out


def _num(v: Any, q: str = "ok") -> str:
    """A value, marked [disturbed] or [invalid] where its row is."""
    return (fmt_num(v) + (" [%s]" % q if q in NOT_COMPARABLE else "")) if finite(v) else "-"


def cells(r: Mapping[str, Any]) -> List[str]:
    """A layers row's values as text (text and HTML)."""
    return [_num(v, q) for v, q in zip(r["Gbps"], r.get("quality") or ["ok"] * len(r["Gbps"]))]


def _heads(cols: Sequence[Mapping[str, Any]], with_group: bool) -> List[List[str]]:
    """The header rows: the group (across groups), the layer, the kernel, its variant."""
    rows: List[List[str]] = []
    if with_group:
        rows.append([""] + [c["group"] for c in cols])
    rows.append([""] + [c["layer"] for c in cols])
    rows.append(["bytes"] + [c["kernel"] for c in cols])
    if any(c["variant"] for c in cols):
        rows.append([""] + [c["variant"] for c in cols])
    return rows


def group_text(block: Block, name: str) -> List[str]:
    """The summary's layers block of one group."""
    heads = _heads(block["columns"], False)
    ratio = "%s/socket" % block["mpi"]
    for h in heads:
        h.append(ratio if h[0] == "bytes" else "")
    rows = [[size_label(r["bytes"])] + cells(r) +
            ["%.2fx" % r["ratio"] if finite(r["ratio"]) else "-"] for r in block["rows"]]
    return ["layers of %s, Gb/s per message size (%s: %s over the best socket instance)" % (
        name, ratio, block["mpi"])] + wide_columns(heads, rows)


def across_text(block: Block) -> List[str]:
    """compare's layers table: every group's socket and MPI kernels side by side."""
    rows = [[size_label(r["bytes"])] + cells(r) for r in block["rows"]]
    return ["== layers: socket (the kernel's TCP) and MPI, Gb/s per message size [higher is "
            "better]"] + \
        wide_columns(_heads(block["columns"], True), rows)
