# SPDX-License-Identifier: BSD-3-Clause
"""The congestion kernels' rows (cong_lat, cong_bw, cong_allreduce; docs/METRICS.md,
"Congestion"): which rows they are, their congestor pattern, their structured warnings (the
cong_warn bits) in words, and the rows that suffered most. Read by export --format gpcnet,
plot and report; the values are the file's own columns, never recomputed (the CIFs are
congested / alone of the unrounded times, as stored)."""
import math
from typing import Any, List, Tuple

from .table import Row, Table, finite, kernel_name, size_label

# The canaries as GPCNeT names its tests (our words), their unit in GPCNeT's tables, and the
# bytes per operation of the bandwidth canary (8 messages of 128 KiB: src/cong/cong.h).
CANARIES = {"cong_lat": ("random-ring latency (8 B)", "usec", 0),
            "cong_bw": ("random-ring bandwidth (8 x 128 KiB)", "MiB/s/rank", 8 * 128 * 1024),
            "cong_allreduce": ("allreduce (8 B)", "usec", 0)}
# The cong_warn bits (src/cong/cong.h, FAB_CONG_W_*): a short name, and what it means.
WARN_BITS: Tuple[Tuple[int, str, str], ...] = (
    (1, "low load", "the congestors reached under half their rate alone: not a meaningful "
     "load, the CIF understates what a loaded network does"),
    (2, "shared nodes", "a node holds canaries and congestors: what the canary loses may be "
     "the host's cores and memory, not the network"),
    (4, "few nodes", "too few nodes for --congestor-frac (one node, or a split more than 0.1 "
     "off the fraction): GPCNeT's CIFs mean something only on a large share of a machine"))


def num(r: Row, column: str) -> float:
    """The row's value of a column as a float, NaN where it has none."""
    v: Any = r.get(column)
    return float(v) if finite(v) else math.nan


def is_congestion(kernel: str) -> bool:
    return kernel in CANARIES


def pattern(r: Row) -> str:
    """The row's congestor pattern ('incast'): its column congestor_name; in files older than
    that column, from its instance (`--congestor incast`)."""
    name = r.get("congestor_name")
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    if isinstance(name, str) and name:
        return name
    v = str(r.get("variant") or "")
    return v.split(" ", 1)[1] if v.startswith("--congestor ") else v


def where(r: Row) -> str:
    """'incast 4K': the pattern and the congestors' message size."""
    return "%s %s" % (pattern(r), size_label(r.get("bytes")))


def rows(table: Table) -> List[Row]:
    """The congestion kernels' rows that hold a measurement (alone_mean_us), in table order;
    [] when there are none."""
    return [r for r in table.rows if is_congestion(r["kernel"]) and finite(r.get("alone_mean_us"))]


def warn_bits(r: Row) -> int:
    w = num(r, "cong_warn")
    return int(w) if w >= 0 else 0


def warn_names(r: Row) -> List[str]:
    """['low load', 'few nodes']: the row's warnings by their short names."""
    bits = warn_bits(r)
    return [name for bit, name, _ in WARN_BITS if bits & bit]


def warn_lines(found: List[Row]) -> List[str]:
    """One line per warning stored in the rows: what it means and which rows carry it."""
    out = []
    for bit, name, words in WARN_BITS:
        which = [r for r in found if warn_bits(r) & bit]
        if not which:
            continue
        rws = ", ".join(dict.fromkeys("%s under %s" % (r["kernel"], where(r)) for r in which))
        if bit == 1:
            loads = [num(r, "congestor_load_pct") for r in which]
            rws += " (load %s%% of alone)" % ", ".join(
                "%.0f" % x if finite(x) else "?" for x in loads)
        out.append("%s: %s (%s)" % (name, words, rws))
    return out


def worst_host(r: Row) -> str:
    """The canary that suffered most in the row: 'rank 41 (node-41)', or '' for none."""
    rank = num(r, "worst_canary_rank")
    if not rank >= 0:
        return ""
    host = r.get("worst_canary_host") or ""
    return "rank %d (%s)" % (int(rank), host) if host else "rank %d" % int(rank)


def suffered_most(found: List[Row], n: int = 3) -> List[Row]:
    """The rows whose canary suffered most: by the CIF at p99 (then at the mean), largest
    first; only rows with a CIF, and only those above 1 (no harm is not suffering)."""
    def key(r: Row) -> Tuple[float, float]:
        p99, mean = num(r, "cif_p99"), num(r, "cif_mean")
        return (p99 if finite(p99) else -math.inf, mean if finite(mean) else -math.inf)
    hurt = [r for r in found if max(key(r)) > 1]
    return sorted(hurt, key=key, reverse=True)[:n]


def name(r: Row) -> str:
    """'cong_bw under incast 60K' (with the run's label where the table has several)."""
    return "%s under %s" % (kernel_name(r["kernel"]), where(r))
