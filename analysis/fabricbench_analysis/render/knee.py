# SPDX-License-Identifier: BSD-3-Clause
"""The knee of a rate sweep: where loss starts (docs/ANALYSIS.md, "summary").

A sweep is a kernel run once per offered rate (udp_rate --rate 0.5G,1G,2G,4G: instances whose
`axis` column holds the offered rate, `offered_Gbps`) whose rows have a `loss_pct`. Per message
size, the knee is the highest offered rate whose loss stays at or below the threshold
(`--max-loss`, default 1%) at that rate and every lower one; the rate after it is the first
that loses more. A sweep that never loses more names its highest rate (the knee lies beyond);
one that loses more already at its lowest rate names that (the knee lies below).
"""
from operator import itemgetter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..checks.rules import decimal
from ..model.errors import UsageError
from ..model.hostile import safe_text
from ..model.table import Row, finite, size_label

# One size's knee (knees()): kernel, axis, unit, max_loss_pct, bytes, size, case, knee, beyond.
Knee = Dict[str, Any]

DEFAULT_MAX_LOSS = 1.0  # percent


def parse_max_loss(text: Any, where: str = "--max-loss") -> float:
    """'1%' or '1' (percent) -> 1.0; from 0 to below 100."""
    t = str(text)
    v = decimal(t[:-1] if t.endswith("%") else t)
    if v is None:
        raise UsageError("%s %s is not a percentage" % (where, safe_text(t)),
                         "write the loss in percent: 1% or 1")
    if not 0 <= v < 100:
        raise UsageError("%s %s: a loss threshold is from 0%% to below 100%%" %
                         (where, safe_text(t)))
    return v


def _sweeps(rows: Iterable[Row]) -> Dict[str, List[Row]]:
    """{kernel: its rows} of the kernels run once per value of an axis whose rows have a
    loss_pct, with two values or more."""
    by: Dict[str, List[Row]] = {}
    for r in rows:
        if r["axis"] and finite(r.get(r["axis"])) and finite(r.get("loss_pct")):
            by.setdefault(r["kernel"], []).append(r)
    return {k: rs for k, rs in by.items() if len({r["variant"] for r in rs}) >= 2}


def _point(r: Row) -> Dict[str, Any]:
    return {"variant": r["variant"], "offered": r[r["axis"]], "loss_pct": r["loss_pct"],
            "rx_Gbps": r.get("rx_Gbps")}


def knee(points: Sequence[Tuple[Any, Row]],
         max_loss: float) -> Tuple[str, Optional[Row], Optional[Row]]:
    """The knee of one size's points [(offered, row)], sorted by offered rate: (case, knee
    row, the first row beyond it); case 'knee', 'no_loss' (none beyond) or 'lowest' (loss
    already at the lowest rate: no knee)."""
    below: Optional[Row] = None
    for _, r in points:
        if r["loss_pct"] > max_loss:
            return ("lowest" if below is None else "knee"), below, r
        below = r
    return "no_loss", below, None


def knees(rows: Iterable[Row], max_loss: float = DEFAULT_MAX_LOSS,
          units: Optional[Mapping[str, str]] = None) -> List[Knee]:
    """Every sweep's knee per message size: [{kernel, axis, unit, max_loss_pct, bytes, size,
    case, knee, beyond}], knee and beyond {variant, offered, loss_pct, rx_Gbps} or None."""
    out: List[Knee] = []
    for kernel, krows in _sweeps(rows).items():
        axis = krows[0]["axis"]
        for b in sorted({r["bytes"] for r in krows}):
            pts = sorted(((r[axis], r) for r in krows if r["bytes"] == b), key=itemgetter(0))
            case, k, beyond = knee(pts, max_loss)
            out.append({"kernel": kernel, "axis": axis, "unit": (units or {}).get(axis, ""),
                        "max_loss_pct": max_loss, "bytes": b, "size": size_label(b),
                        "case": case, "knee": _point(k) if k else None,
                        "beyond": _point(beyond) if beyond else None})
    return out


def _rate(p: Mapping[str, Any], unit: str) -> str:
    return "%g%s" % (p["offered"], " " + unit if unit else "")


def _loss(p: Mapping[str, Any]) -> str:
    return "%g%%" % float("%.3g" % p["loss_pct"])


def _received(p: Mapping[str, Any]) -> str:
    return ", received %g Gb/s" % float("%.4g" % p["rx_Gbps"]) if finite(p["rx_Gbps"]) else ""


def line(k: Knee) -> str:
    """One size's knee in words."""
    u, lim = k["unit"], "%g%%" % k["max_loss_pct"]
    at = "%s:" % k["size"]
    if k["case"] == "no_loss":
        p = k["knee"]
        return "%s no loss above %s up to the highest rate offered, %s (loss %s%s)" % (
            at, lim, _rate(p, u), _loss(p), _received(p))
    if k["case"] == "lowest":
        p = k["beyond"]
        return "%s loss already at the lowest rate offered: %s loses %s (above %s)" % (
            at, _rate(p, u), _loss(p), lim)
    p, q = k["knee"], k["beyond"]
    return "%s knee at %s offered (loss %s%s); the next rate, %s, loses %s" % (
        at, _rate(p, u), _loss(p), _received(p), _rate(q, u), _loss(q))


def text(ks: Sequence[Knee], name: str) -> List[str]:
    """The summary's knee blocks of one group: per sweep kernel a title and a line per size."""
    out: List[str] = []
    for kernel in dict.fromkeys(k["kernel"] for k in ks):
        mine = [k for k in ks if k["kernel"] == kernel]
        out.append("%s knee of %s: the highest offered rate whose loss stays <= %g%% "
                   "(--max-loss)" % (kernel, name, mine[0]["max_loss_pct"]))
        out.extend("  " + line(k) for k in mine)
    return out
