# SPDX-License-Identifier: BSD-3-Clause
"""The congestion kernels' rows in GPCNeT's layout (`export --format gpcnet`): first the canaries
alone and under each congestor (average and 99th percentile, in GPCNeT's units: microseconds,
MiB/s per rank for the bandwidth canary), then the congestion impact factors. The values are
the file's own columns, unrounded until printed; the CIFs are the stored ones (cif_mean,
cif_p99), which are congested / alone of the stored times (docs/METRICS.md, "Congestion")."""
import math
from typing import IO, List, Sequence

from ..model import congestion, quality
from ..model.congestion import CANARIES
from ..model.errors import UsageError
from ..model.table import Row, Table, finite, fmt_num


def _value(r: Row, col: str, nbytes: int) -> float:
    """A time column in GPCNeT's unit: us, or MiB/s per rank for the bandwidth canary (the
    time's percentile is the rate's low tail: a rate is bytes over a time)."""
    v = r.get(col)
    if v is None or not finite(v):
        return math.nan
    t = float(v)
    if not nbytes:
        return t
    return nbytes / (t * 1e-6) / (1 << 20) if t > 0 else math.nan


def rows_of(table: Table) -> List[Row]:
    rows = congestion.rows(table)
    if not rows:
        raise UsageError("no congestion kernel's rows in the files (cong_lat, cong_bw, "
                         "cong_allreduce)", "run `fabricbench run congestion` first")
    return rows


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    last = len(cells) - 1
    return "| " + " | ".join(c.ljust(w) if i < 2 or (i == last and not c[:1].isdigit())
                             else c.rjust(w)
                             for i, (c, w) in enumerate(zip(cells, widths))) + " |"


def _table(title: str, head: Sequence[str], body: List[List[str]]) -> str:
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [title, rule, _line(head, widths), rule]
    out += [_line(b, widths) for b in body]
    out.append(rule)
    return "\n".join(out)


def render(table: Table) -> str:
    rows = rows_of(table)
    perf: List[List[str]] = []
    cif: List[List[str]] = []
    for r in rows:
        name, unit, nbytes = CANARIES[r["kernel"]]
        mark = quality.mark(r)  # ' [disturbed]', ' [invalid]': not a number to compare
        where = congestion.where(r)
        perf.append([name, "alone (with %s)" % where,
                     fmt_num(_value(r, "alone_mean_us", nbytes)),
                     fmt_num(_value(r, "alone_p99_us", nbytes)) + mark, unit])
        perf.append([name, "under " + where,
                     fmt_num(_value(r, "congested_mean_us", nbytes)),
                     fmt_num(_value(r, "congested_p99_us", nbytes)) + mark, unit])
        words = "; ".join(congestion.warn_names(r)) or "-"
        cif.append([name, where, fmt_num(r.get("cif_mean")), fmt_num(r.get("cif_p99")) + mark,
                    fmt_num(r.get("congestor_gbps")), words])
    return "\n\n".join([
        _table("Canaries alone and under congestion (%d rows; averages and 99th percentiles)"
               % len(rows), ["test", "condition", "avg", "99%", "units"], perf),
        _table("Congestion impact factor (congested / alone of the times; for bandwidth "
               "alone / congested)", ["test", "congestor", "avg", "99%", "congestor Gb/s",
                                      "warnings (low load: congestors under half their rate "
                                      "alone)"], cif)]) + "\n" + (
        "\n[disturbed], [invalid]: the row's quality (the machine took time from its ranks, or "
        "it is short of samples): not a number to compare with a published one\n"
        if any(quality.mark(r) for r in rows) else "")


def write(table: Table, out: IO[str]) -> None:
    out.write(render(table))
