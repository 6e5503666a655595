# SPDX-License-Identifier: BSD-3-Clause
"""Reading the layer ladder of `fabricbench run ladder` (docs/METRICS.md, "The layer ladder"):
the run attribute `ladder`, a JSON document {"low_pct", "layers": [{layer, latency_kernel,
bandwidth_kernel, vs}], "rows": [{bytes, layer, basis, lat_us, halved, MBps, cmp_us,
vs_cmp_us, adds_us, pct_bw}]} that the tool computed from the ladder kernels' rows
(output/ladder.c). It is read as hostile input: every field of its type, numbers finite or
null, layers named in `layers`; and the arithmetic is checked, never believed
(adds_us = cmp_us - vs_cmp_us, pct_bw = 100 x MBps / the compared layer's MBps).
"""
import json
import math
from typing import Any, Dict, List, Optional, Sequence, Union

from ..model import hostile
from ..model.errors import AnalysisError
from . import loading
from .limits import Budget

NUMS = ("lat_us", "halved", "MBps", "cmp_us", "vs_cmp_us", "adds_us", "pct_bw")
BASES = ("-", "half", "whole", "whole*")
QUALITIES = (None, "ok", "disturbed", "invalid")  # the rows' quality (docs/METRICS.md)
MAX_TEXT = 1 << 20


def _num(v: Any, where: str) -> float:
    if v is None:
        return math.nan
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise AnalysisError("%s: a ladder value is not a finite number or null" % where,
                            loading._MISMATCH_HINT)
    return float(v)


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def parse(text: str, where: str) -> Dict[str, Any]:
    """The ladder document, checked (AnalysisError on anything else)."""
    bad = AnalysisError("%s: attribute ladder is not the ladder fabricbench writes" % where,
                        loading._MISMATCH_HINT)
    if len(text) > MAX_TEXT:
        raise bad
    try:
        doc = json.loads(text)
    except ValueError:
        raise bad
    if not isinstance(doc, dict) or not isinstance(doc.get("layers"), list) or \
            not isinstance(doc.get("rows"), list):
        raise bad
    layers = []
    for g in doc["layers"]:
        if not isinstance(g, dict) or not isinstance(g.get("layer"), str) or \
                not hostile.KERNEL_NAME.match(g["layer"]):
            raise bad
        layer = {k: g.get(k) if isinstance(g.get(k), str) else None
                 for k in ("layer", "latency_kernel", "bandwidth_kernel", "vs")}
        # whether the layer has a row (files before the key: None, not said)
        layer["measured"] = g.get("measured") if isinstance(g.get("measured"), bool) else None
        layers.append(layer)
    names = [g["layer"] for g in layers]
    rows = []
    for r in doc["rows"]:
        if not isinstance(r, dict) or r.get("layer") not in names or \
                r.get("basis") not in BASES or isinstance(r.get("bytes"), bool) or \
                not isinstance(r.get("bytes"), int) or r["bytes"] < 0:
            raise bad
        row = {"bytes": r["bytes"], "layer": r["layer"], "basis": r["basis"]}
        for q in ("lat_quality", "bw_quality"):
            if r.get(q) not in QUALITIES:
                raise bad
            row[q] = r.get(q) or "-"
        row.update({k: _num(r.get(k), where) for k in NUMS})
        rows.append(row)
    by = {(r["bytes"], r["layer"]): r for r in rows}
    vs = {g["layer"]: g["vs"] for g in layers}
    have = {r["layer"] for r in rows}
    for g in layers:  # measured, where said, is whether the layer has a row
        if g["measured"] is not None and g["measured"] != (g["layer"] in have):
            raise AnalysisError("%s: the ladder's layer %s says measured %s against its rows" %
                                (where, g["layer"], str(g["measured"]).lower()),
                                loading._MISMATCH_HINT)
    for r in rows:  # the arithmetic, recomputed
        ref = by.get((r["bytes"], vs[r["layer"]] or ""))
        if not _close(r["adds_us"], r["cmp_us"] - r["vs_cmp_us"]) or \
                (ref is not None and not _close(r["pct_bw"], 100.0 * r["MBps"] / ref["MBps"]
                                                if ref["MBps"] else math.nan)):
            raise AnalysisError("%s: the ladder's row %s at %d B does not add up" %
                                (where, r["layer"], r["bytes"]), loading._MISMATCH_HINT)
    low = _num(doc.get("low_pct"), where)
    return {"layers": layers, "rows": rows, "low_pct": low}


def _text(g: Any, where: str) -> str:
    """The attribute `ladder` whole (hostile.attribute cuts strings at 4 KiB), or ""."""
    if "ladder" not in g.attrs:
        return ""
    v = g.attrs["ladder"]
    if isinstance(v, bytes):
        try:
            v = v.decode("utf-8")
        except UnicodeDecodeError:
            v = None
    if not isinstance(v, str):
        raise AnalysisError("%s: attribute ladder is not one string" % where,
                            loading._MISMATCH_HINT)
    return v


def load_ladders(paths: Sequence[str], run: Union[str, int, None] = "all"
                 ) -> List[Dict[str, Any]]:
    """Every ladder of the files' selected runs: {file, run, layers, rows, low_pct}."""
    out: List[Dict[str, Any]] = []
    budget = Budget()
    which: Optional[str] = None if run is None else str(run)
    for path in paths:
        src, head, kind = loading.open_input(path)
        try:
            if kind:
                continue  # the JSON outputs: the ladder is in their run record, not read here
            f = loading._open(src, path, head)
            try:
                for name in loading._select_runs(f, path, which, budget):
                    g = f["runs"][name]
                    text = _text(g, "%s /runs/%s" % (path, name))
                    if text:
                        lad = parse(text, "%s /runs/%s" % (path, name))
                        lad.update({"file": path, "run": name})
                        out.append(lad)
            finally:
                f.close()
        finally:
            src.close()
    return out
