# SPDX-License-Identifier: BSD-3-Clause
"""Pass/fail against a baseline: PASS, WARN or FAIL per kernel, size and metric, with a reason.

A check FAILs only when the value is worse than the baseline by more than the tolerance AND by
more than the measured noise (sigma x the combined relative standard error of both, plus the
baseline's run-to-run spread when it holds several runs). Worse beyond the tolerance but within
the noise is a WARN: the measurement cannot tell. docs/ANALYSIS.md has the details.
"""
import math
import statistics
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..model import noise as noise_mod, quality
from ..model.errors import EXIT_NOTHING_IN_COMMON, AnalysisError, UsageError
from ..model.grouping import Measurement, measurements
from ..model.hostile import COLUMNS
from ..model.noise import MIN_SPREAD_RUNS, noise_column, regimes, runs_noise
from ..model.status import ORDER, worst
from ..model.table import (direction, finite, fmt_num, instance, kernel_name, row_key, setup_text,
                    size_label)
from ..model.table import Instance, Row, Series, Table
from .compare import DEFAULT_SIGMA, format_columns, headline_metric, judge
from .linecheck import RULE, Item, Result, render
from .rules import Rule, checks_for

# A file's entry of check's result (Result["files"]): label, file, run, runs, repeat, result,
# counts, checks (Items), common, judged, not_comparable.
FileResult = Dict[str, Any]
# (kernel, variant, bytes)
RowKey = Tuple[str, str, int]

def _pct(x: float) -> str:
    return "%.1f%%" % (100 * x)


def _validate_rules(rules: Sequence[Rule], base: Table, cur: Table) -> None:
    known = set(base.columns) | set(cur.columns)
    for r in rules:
        if r.metric not in ("*", "default") and r.metric not in known:
            raise UsageError("%s: no column '%s' in the files" % (r.where, r.metric),
                             "metrics are table columns: p50_us, p99_us, mean_us, MBps, Gbps, "
                             "msgps, busbw_GBps, algbw_GBps, line_rate_pct, ... or 'default'")


def _run_items(bs: List[Series], cs: Series, notes: List[str]) -> List[Item]:
    """Run-level findings: an unfinished run, a different fabric, transport, rank count or host
    count. Transports are compared only where both sides recorded them (a run stopped by a
    signal skips its probe): otherwise a note says why not."""
    items: List[Item] = []

    def item(status: str, what: str, reason: str) -> None:
        items.append({"status": status, "kernel": "", "variant": "", "bytes": None, "size": "",
                      "metric": what, "baseline": None, "value": None, "change": None,
                      "noise": None, "tolerance": None, "reason": reason})

    st = cs["run_status"]
    if st == "complete, validation failed":
        item("FAIL", "run", "received data failed validation (see the rows below)")
    elif st == "complete, suspects named":
        item("FAIL", "run", "the pairs verdict named suspect nodes or links (fabricbench "
             "show lists them)")
    elif st and st != "complete":
        item("WARN", "run", "the run's status is '%s'%s: only what it measured is checked" %
             (st, " (%s)" % cs["stop_reason"] if cs["stop_reason"] else ""))
    for col, what in (("fabric", "fabric"), ("transport", "transport"), ("nranks", "ranks"),
                      ("nhosts", "hosts")):
        known = bs
        if col == "transport":
            known = [b for b in bs if b["transport"]]
            unknown = cs if not cs["transport"] else None if known else bs[0]
            if unknown is not None:
                notes.append("%s: transport not compared with the baseline: %s has none "
                             "recorded (%s %s: ucx_transports '%s')" % (
                                 cs["label"], "this run" if unknown is cs else "the baseline",
                                 unknown["file"], unknown["run"],
                                 unknown["ucx_transports"] or "absent"))
                continue
        bvals = sorted({str(b[col]) for b in known})
        if str(cs[col]) not in bvals:
            item("WARN", what, "%s differs: baseline %s, this run %s" %
                 (what, " or ".join(bvals), cs[col]))
    return items


def _setting(row: Row, col: str) -> str:
    """A kernel setting as compared with the baseline's (the setup in words without the
    ports the OS chose: table.setup_text)."""
    return setup_text(row[col]) if col == "kernel_detail" else str(row[col])


_SETTINGS = (("dtype", "element type"), ("op", "reduction"), ("window", "window"),
             ("kernel_detail", "setup"))


def _setup_items(bsettings: Dict[Instance, Dict[str, List[str]]], crows: Sequence[Row],
                 instances: Sequence[Instance]) -> List[Item]:
    """A kernel instance measured with other settings than the baseline's (element type,
    window...). bsettings: {instance: {column: the baseline's values, sorted}}; crows: this
    run's rows."""
    items: List[Item] = []
    first: Dict[Instance, Row] = {}
    for r in crows:
        first.setdefault(instance(r), r)
    for inst in instances:
        crow = first[inst]
        for col, what in _SETTINGS:
            bvals = bsettings[inst][col]
            if _setting(crow, col) not in bvals:
                items.append({"status": "WARN", "kernel": inst[0], "variant": inst[1],
                              "bytes": None, "size": "", "metric": what, "baseline": None,
                              "value": None, "change": None, "noise": None, "tolerance": None,
                              "reason": "%s differs: baseline %s, this run %s" % (
                                  what, " or ".join(v or "-" for v in bvals),
                                  _setting(crow, col) or "-")})
    return items


DEFAULT_RUN_SPREAD = 0.05


def check(base: Table, cur: Table, tolerance: float, rules: Sequence[Rule] = (),
          sigma: float = DEFAULT_SIGMA, strict: bool = False,
          run_spread: float = DEFAULT_RUN_SPREAD,
          sets: Optional[List[Measurement]] = None) -> Result:
    """Check every measurement of `cur` (`sets`, measurements(); default: every run on its
    own) against the baseline table `base` (all its runs pooled).

    Returns dict(result, tolerance, sigma, baseline, files: [dict(label, file, run, runs,
    result, counts, checks, judged, not_comparable)], judged, not_comparable, notes)."""
    _validate_rules(rules, base, cur)
    if sets is None:
        sets = measurements(cur, run="each")
    blabels = base.labels()
    bseries = base.series()
    # Baseline rows by (kernel, variant, bytes): one per baseline run, first occurrence per run.
    bidx: Dict[RowKey, List[Row]] = {}
    seen: Set[Tuple[RowKey, str]] = set()
    for r in base.rows:
        key = row_key(r)
        if (key, r["label"]) not in seen:
            seen.add((key, r["label"]))
            bidx.setdefault(key, []).append(r)
    # per kernel instance of the baseline, computed once: its rows, its check's metric, its
    # settings (a table of thousands of rows is checked in one pass, not once per run)
    binst_rows: Dict[Instance, List[Row]] = {}
    for r in base.rows:
        binst_rows.setdefault(instance(r), []).append(r)
    bmetric = {inst: headline_metric(rows[0]["kind"], rows) for inst, rows in
               binst_rows.items()}
    bsettings = {inst: {col: sorted({_setting(r, col) for r in rows}) for col, _ in _SETTINGS}
                 for inst, rows in binst_rows.items()}
    cur_rows: Dict[str, List[Row]] = {}
    for r in cur.rows:
        cur_rows.setdefault(r["label"], []).append(r)
    files: List[FileResult] = []
    notes: List[str] = []
    any_common = False
    for m in sets:
        cs = m["members"][0]
        lab = cs["label"]
        cidx: Dict[RowKey, Row] = {}
        for r in m["rows"]:
            cidx.setdefault(row_key(r), r)
        items: List[Item] = []
        for member in m["members"]:
            for it in _run_items(bseries, member, notes):
                if it not in items:
                    items.append(it)
        common = [k for k in bidx if k in cidx]
        any_common = any_common or bool(common)
        entry: FileResult = {"label": lab, "file": cs["file"], "run": m["run"],
                             "runs": m["runs"], "repeat": m["repeat"]}
        if not common:
            entry.update({"result": "FAIL", "checks": items, "counts": {}, "common": 0,
                          "judged": 0, "not_comparable": 0})
            files.append(entry)
            continue
        items.extend(_setup_items(bsettings, cur_rows.get(lab, []),
                                  sorted({k[:2] for k in common})))
        binst = {k[:2] for k in bidx}
        extra = sorted({kernel_name(*k[:2]) for k in cidx if k[:2] not in binst})
        if extra:
            notes.append("%s: not in the baseline, not checked: %s" % (lab, ", ".join(extra)))
        for key, brows in bidx.items():
            inst, nbytes = (key[0], key[1]), key[2]
            metric0 = bmetric[inst]
            plan = checks_for(inst[0], nbytes, metric0, tolerance, rules, inst[1])
            crow = cidx.get(key)
            if not plan:
                continue
            if crow is None:
                items.append(_missing(inst, nbytes, cs, strict))
                continue
            if isinstance(crow.get("validation_errors"), int) and crow["validation_errors"] > 0:
                items.append(_item("FAIL", inst, nbytes, "validation_errors", None,
                                   crow["validation_errors"], None, None, None,
                                   "%d bytes or elements received wrong" %
                                   crow["validation_errors"]))
            for metric, (tol, severity, source) in plan.items():
                one = _check_one(inst, nbytes, metric, brows, crow, tol, severity, sigma,
                                 run_spread)
                if one:
                    one["rule"] = source
                    items.append(one)
        counts = {s: sum(1 for i in items if i["status"] == s) for s in ORDER}
        entry.update({"result": worst([i["status"] for i in items]), "counts": counts,
                      "checks": items, "common": len(common),
                      "judged": sum(1 for i in items if i.get("comparable") is True),
                      "not_comparable": sum(1 for i in items if i.get("comparable") is False)})
        files.append(entry)
    if not any_common:
        raise AnalysisError(
            "nothing in common to check: the baseline (%s) and %s share no kernel and message "
            "size" % (", ".join(sorted({s["file"] for s in bseries})),
                      ", ".join(sorted({s["file"] for s in cur.series()}))),
            "check a run of the same kernels and sizes as the baseline", EXIT_NOTHING_IN_COMMON)
    return {"result": worst([f["result"] for f in files]), "tolerance": tolerance,
            "sigma": sigma, "run_spread": run_spread,
            "baseline": {"files": sorted({s["file"] for s in bseries}), "runs": blabels},
            "files": files, "notes": notes,
            "judged": sum(f["judged"] for f in files),
            "not_comparable": sum(f["not_comparable"] for f in files)}


def pairs_not_comparable(result: Result, base_ms: Sequence[Dict[str, Any]],
                         cur_ms: Sequence[Dict[str, Any]]) -> Result:
    """A WARN, no verdict, for each pairs matrix of a checked run whose kernel row (or every
    baseline run's) is disturbed or invalid: its pairs are not judged one by one."""
    bad = ("disturbed", "invalid")
    for f in result["files"]:
        last = (f.get("runs") or [f["run"]])[-1]
        for cm in cur_ms:
            if cm["file"] != f["file"] or cm["run"] != last:
                continue
            bms = [b for b in base_ms if b["kernel"] == cm["kernel"]]
            if not bms:
                continue
            if cm.get("quality") in bad:
                why = "this run's %s row is %s" % (cm["kernel"], cm.get("quality_text"))
            elif all(b.get("quality") in bad for b in bms):
                why = "the baseline's %s row is %s" % (cm["kernel"], bms[0].get("quality_text"))
            else:
                continue
            it = _item("WARN", (cm["kernel"], ""), cm["bytes"], "pairs", None, None, None, None,
                       None, "not comparable: %s; its pairs are not judged one by one" % why)
            it["comparable"] = False
            f["checks"].append(it)
            f["not_comparable"] = f.get("not_comparable", 0) + 1
            f["counts"] = {s: sum(1 for i in f["checks"] if i["status"] == s) for s in ORDER}
            f["result"] = worst([i["status"] for i in f["checks"]])
    result["not_comparable"] = sum(f.get("not_comparable", 0) for f in result["files"])
    result["result"] = worst([f["result"] for f in result["files"]])
    return result


def _item(status: str, inst: Instance, nbytes: Optional[int], metric: str, base: Any, value: Any,
          change: Optional[float], noise: Optional[float], tol: Optional[float],
          reason: str) -> Item:
    """One check of a kernel instance inst, (kernel, variant), at a size."""
    return {"status": status, "kernel": inst[0], "variant": inst[1], "bytes": nbytes,
            "size": size_label(nbytes), "metric": metric, "baseline": base, "value": value,
            "change": change, "noise": noise, "tolerance": tol, "reason": reason}


def _missing(inst: Instance, nbytes: int, cs: Series, strict: bool) -> Item:
    why = "not measured in this run"
    if cs["run_status"] not in ("complete", "complete, validation failed",
                                "complete, suspects named"):
        why += " (it is %s)" % cs["run_status"]
    return _item("FAIL" if strict else "WARN", inst, nbytes, "-", None, None, None, None, None,
                 why)


def _not_comparable(inst: Instance, nbytes: int, metric: str, brows: Sequence[Row], crow: Row,
                    tol: float) -> Item:
    """A WARN with no verdict where this run's row, or every baseline run's, is disturbed or
    invalid (quality.py): a number that is no measurement neither passes nor fails."""
    value = crow.get(metric)
    if not quality.comparable(crow):
        n = len(crow.get("_runs") or [crow])
        why = "this run's row is %s" % quality.why(crow) if n == 1 else \
            "the row is %s in all %d runs measured" % (quality.why(crow), n)
        q = crow.get("quality")
    else:
        bad = [r for r in brows if finite(r.get(metric))]
        why = "the baseline's row is %s%s" % (
            quality.why(bad[0]), "" if len(bad) == 1 else " in all its %d runs" % len(bad))
        q = quality.worst(r.get("quality") for r in bad)
    it = _item("WARN", inst, nbytes, metric,
               statistics.median([r[metric] for r in brows if finite(r.get(metric))]),
               value if finite(value) else None, None, None, tol,
               "not comparable: %s; no verdict" % why)
    it["comparable"] = False
    it["quality"] = q
    return it


def _check_one(inst: Instance, nbytes: int, metric: str, brows: Sequence[Row], crow: Row,
               tol: float, severity: str, sigma: float, run_spread: float) -> Optional[Item]:
    bvals: List[Any] = [r.get(metric) for r in brows if finite(r.get(metric))]
    if not bvals:
        return None  # does not apply to this row (busbw of a point-to-point kernel, ...)
    ncol = noise_column(metric)
    value = crow.get(metric)
    # A value no measurement can have (a negative time, an infinite bandwidth) is not compared:
    # loading refuses such files, and a table made otherwise is judged here all the same.
    why = impossible(metric, value)
    if why:
        return _item("FAIL", inst, nbytes, metric, None, None, None, None, tol,
                     "impossible value in this run: %s is %s (%s); not compared" %
                     (metric, _num_text(value), why))
    for b in bvals:
        why = impossible(metric, b)
        if why:
            return _item("FAIL", inst, nbytes, metric, None, None, None, None, tol,
                         "impossible value in the baseline: %s is %s (%s); not compared" %
                         (metric, _num_text(b), why))
    # Only measurements are judged: this run's row and the baseline runs' rows that are
    # neither disturbed nor invalid (quality.py).
    good = [r for r in brows if finite(r.get(metric)) and quality.comparable(r)]
    if not quality.comparable(crow) or not good:
        return _not_comparable(inst, nbytes, metric, brows, crow, tol)
    left = len(bvals) - len(good)
    brows = good
    bvals = [r[metric] for r in good]
    ref = statistics.median(bvals)
    if not finite(value):
        return _item("WARN", inst, nbytes, metric, ref, None, None, None, tol,
                     "no value in this run (baseline %s)" % fmt_num(ref))
    bnoise = [r.get(ncol, math.nan) for r in brows if finite(r.get(metric))] if ncol else []
    u_ref = runs_noise(bnoise)
    u_cur = crow.get(ncol, math.nan) if ncol else math.nan
    # Runs differ by more than one run's own standard error says (noise.run_spread): the
    # spread of MIN_SPREAD_RUNS or more baseline runs, measured; with fewer, at least
    # --run-spread.
    spread = noise_mod.run_spread(bvals)
    if not finite(spread):
        spread = 0.0
    if len(bvals) < MIN_SPREAD_RUNS:
        spread = max(spread, run_spread)
    j = judge(ref, value, u_ref, u_cur, metric, sigma, spread)
    if j is None:
        return None
    d = direction(metric)
    change = j["change"]
    worse = -change * d if d else abs(change)
    noise = j["noise"]
    noise_txt = "noise +-%s" % _pct(noise) if finite(noise) else "no noise estimate"
    how = "worse" if d else "different"
    reg = regimes(crow) or max([regimes(r) for r in brows] or [0])
    if worse > tol:
        if reg:
            status = "WARN"
            reason = ("%s by %s, beyond the tolerance (%s), but noisy: %d regimes over time in "
                      "%s (block medians in separate levels; the median depends on how long "
                      "each lasted): not judged as changed" % (
                          how, _pct(worse), _pct(tol), reg,
                          "this run" if regimes(crow) else "the baseline"))
        elif finite(noise) and worse <= noise:
            status = "WARN"
            reason = ("%s by %s, beyond the tolerance (%s) but within the %s: the measurement "
                      "cannot tell" % (how, _pct(worse), _pct(tol), noise_txt))
        else:
            status = "WARN" if severity == "warn" else "FAIL"
            reason = "%s by %s: beyond the tolerance (%s) and the %s" % (
                how, _pct(worse), _pct(tol), noise_txt) if finite(noise) else \
                "%s by %s: beyond the tolerance (%s); no noise estimate" % (
                    how, _pct(worse), _pct(tol))
    elif d and change * d > tol:
        status = "PASS"
        reason = "better by %s" % _pct(change * d)
    elif finite(noise) and abs(change) > noise and worse > 0:
        status = "PASS"
        reason = "%s by %s (beyond the %s) but within the tolerance (%s)" % (
            how, _pct(worse), noise_txt, _pct(tol))
    else:
        status = "PASS"
        reason = "within the tolerance (%s)" % _pct(tol)
    it = _item(status, inst, nbytes, metric, ref, value, change, noise, tol, reason)
    it["comparable"] = True
    if left:
        it["reason"] += "; the baseline's median of %d run%s (%d disturbed or invalid left " \
            "out)" % (len(good), "" if len(good) == 1 else "s", left)
    mine = len(crow.get("_left_out") or ())
    if mine:
        n = len(crow["_runs"])
        it["reason"] += "; this measurement's median of %d run%s (%d disturbed or invalid " \
            "left out)" % (n, "" if n == 1 else "s", mine)
    return it


def _num_text(v: Any) -> str:
    return "%.6g" % v if isinstance(v, float) else str(v)


def impossible(metric: str, v: Any) -> Optional[str]:
    """Why a value of a table column cannot be a measurement, or None (NaN is 'no value')."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, float) and math.isinf(v):
        return "not finite"
    spec = COLUMNS.get(metric)
    if spec is None:
        return None
    lo, hi, what = spec[1], spec[2], spec[4]
    if v < lo:
        return "%s cannot be negative" % what if lo == 0 else "%s is at least %g" % (what, lo)
    if hi is not None and v > hi:
        return "%s is at most %g" % (what, hi)
    return None


def measured_text(f: FileResult) -> str:
    """What was checked of a file: 'F.h5 (run_0002)', or for the runs of one --repeat N,
    'F.h5 (run_0000, run_0001, run_0002: the 3 runs of its --repeat 3 as one, each row their
    median)'."""
    runs = f.get("runs") or [f["run"]]
    if len(runs) < 2:
        return "%s (%s)" % (f["file"], f["run"])
    return "%s (%s: the %d runs of its --repeat %d as one, each row their median)" % (
        f["file"], ", ".join(runs), len(runs), f.get("repeat") or len(runs))


def no_verdict(f: FileResult) -> bool:
    """Whether every row check a file needed was not comparable (disturbed or invalid)."""
    return not f.get("judged") and f.get("not_comparable", 0) > 0 and \
        not f.get("line_judged")


def _header(result: Result, f: FileResult) -> str:
    """The first line of a file's checks: what it is checked against."""
    if result["baseline"] is None:
        return "check %s: line rate only (no --baseline)" % measured_text(f)
    base = ", ".join(result["baseline"]["files"])
    nb = len(result["baseline"]["runs"])
    if nb >= MIN_SPREAD_RUNS:
        spread = "run-to-run spread measured from the baseline's runs"
    else:
        spread = ("run-to-run spread assumed %s (--run-spread: with this, a change below "
                  "about %s cannot FAIL; a baseline of %d runs measures it)" %
                  (_pct(result.get("run_spread", 0.0)),
                   _pct(result["sigma"] * result.get("run_spread", 0.0)), MIN_SPREAD_RUNS))
    return "check %s against %s (%d run%s); tolerance %s, noise %g sigma, %s" % (
        measured_text(f), base, nb, "" if nb == 1 else "s", _pct(result["tolerance"]),
        result["sigma"], spread)


def _result_line(result: Result, f: FileResult) -> str:
    c = f["counts"]
    if f["common"] == 0:
        return "result: FAIL (nothing in common with the baseline)"
    nothing = " (nothing judged against the line rate)" if "min_line_pct" in result and \
        not f.get("line_judged") else ""
    nc = f.get("not_comparable", 0)
    if no_verdict(f) and f["result"] != "FAIL":
        return "result: NO VERDICT: every row it needs is disturbed or invalid (%d not " \
            "comparable)%s" % (nc, nothing)
    if nc:
        nothing += " (%d not comparable: disturbed or invalid, no verdict)" % nc
    return "result: %s (%d FAIL, %d WARN, %d PASS)%s" % (f["result"], c["FAIL"], c["WARN"],
                                                         c["PASS"], nothing)


def render_text(result: Result, show: str = "all") -> str:
    out: List[str] = []
    for f in result["files"]:
        out.append(_header(result, f))
        head = ["status", "kernel", "bytes", "metric", "baseline", "this run", "change",
                "noise", "reason"]
        lines = []
        for i in f["checks"]:
            if i.get("rule") == RULE or (show == "problems" and i["status"] == "PASS"):
                continue
            lines.append([i["status"], kernel_name(i["kernel"], i.get("variant")), i["size"],
                          i["metric"],
                          fmt_num(i["baseline"]) if i["baseline"] is not None else "",
                          fmt_num(i["value"]) if i["value"] is not None else "",
                          "%+.1f%%" % (100 * i["change"]) if i["change"] is not None else "",
                          "+-" + _pct(i["noise"]) if finite(i["noise"]) else "",
                          i["reason"]])
        if lines:
            out.extend(format_columns(head, lines, left=(0, 1, 3, 8)))
        if "min_line_pct" in result:
            out.extend(render([i for i in f["checks"] if i.get("rule") == RULE], result, show))
        out.append(_result_line(result, f))
        out.append("")
    out.extend("note: " + n for n in result["notes"])
    return "\n".join(out).rstrip("\n") + "\n"
