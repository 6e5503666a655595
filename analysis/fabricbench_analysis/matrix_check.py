"""check --baseline for the pairs kernels' matrices: pair by pair, matched by member names.

A pairs kernel's table row is one summary of all pairs (check.py checks it like any row). When
the run and the baseline both have the kernel's matrix, every pair the baseline measured is
also checked on its own: bandwidth per direction (row sends to column), latency per pair. The
rules are check.py's: the kernel's headline metric (MBps -> bw_MBps, p50_us -> lat_p50_us,
p99_us -> lat_p99_us, line_rate_pct -> line_pct) at the matrix's message size, with the
tolerance --tolerance or --rules give it; FAIL when worse beyond the tolerance and the noise
band, WARN when beyond the tolerance but within the noise. A matrix has no per-pair standard
error, so the noise band is sigma x the run-to-run spread: measured per pair from 3 or more
baseline runs, else at least --run-spread.
"""
import math
import statistics

from .matrix import is_bw
from .rules import checks_for
from .table import fmt_num, size_label

# Table metric of a rule -> the matrix dataset that holds it per pair.
MATRIX_METRIC = {"MBps": "bw_MBps", "p50_us": "lat_p50_us", "p99_us": "lat_p99_us",
                 "line_rate_pct": "line_pct"}
HIGHER_IS_BETTER = ("bw_MBps", "line_pct")
LIST_FAILS = 10  # FAIL pairs listed one by one; the rest in one line
MIN_SPREAD_RUNS = 3


def _pct(x):
    return "%.1f%%" % (100 * x)


def _item(status, m, metric, pair, base, value, change, noise, tol, reason, rule=None):
    return {"status": status, "kernel": m["kernel"], "bytes": m["bytes"],
            "size": size_label(m["bytes"]),
            "metric": "%s %s" % (metric, pair) if pair else metric, "pair": pair or None,
            "baseline": base, "value": value, "change": change, "noise": noise,
            "tolerance": tol, "reason": reason, "rule": rule}


def _values(m, metric):
    """{(src name, dst name): value} of the measured entries of one matrix."""
    a = m["values"].get(metric)
    if a is None:
        return {}
    names = m["nodes"]
    n = len(names)
    directed = is_bw(m)
    out = {}
    for s in range(n):
        for d in range(n):
            if s == d or (not directed and d < s):
                continue
            v = float(a[s, d])
            if math.isfinite(v):
                key = (names[s], names[d]) if directed else tuple(sorted((names[s],
                                                                          names[d])))
                out[key] = v
    return out


def _pair_text(key, directed):
    return "%s %s %s" % (key[0], "->" if directed else "<->", key[1])


def check_matrix(cm, bms, tolerance, rules, sigma, run_spread, strict, notes, label):
    """The check items of the current matrix cm against the baseline matrices bms (of the same
    kernel, one per baseline run)."""
    items = []
    bms = [b for b in bms if b["bytes"] == cm["bytes"]]
    if not bms:
        notes.append("%s: %s: the baseline's matrix is of another message size; pairs not "
                     "compared" % (label, cm["kernel"]))
        return items
    cur_names, base_names = set(cm["nodes"]), set()
    for b in bms:
        base_names.update(b["nodes"])
    gone = sorted(base_names - cur_names)
    new = sorted(cur_names - base_names)
    if gone:
        items.append(_item("FAIL" if strict else "WARN", cm, "members", None, None, None,
                           None, None, None, "%d member%s of the baseline not in this run (%s "
                           "pairs not checked): %s" % (len(gone), "" if len(gone) == 1 else "s",
                                                      "its" if len(gone) == 1 else "their",
                                                      ", ".join(gone))))
    if new:
        notes.append("%s: %s: member%s not in the baseline, pairs not checked: %s" % (
            label, cm["kernel"], "" if len(new) == 1 else "s", ", ".join(new)))
    headline = "MBps" if is_bw(cm) else "p50_us"
    plan = checks_for(cm["kernel"], cm["bytes"], headline, tolerance, rules)
    for tmetric, (tol, severity, source) in plan.items():
        metric = MATRIX_METRIC.get(tmetric)
        if metric is None or metric not in cm["values"]:
            continue
        items.extend(_check_metric(cm, bms, metric, tol, severity, source, sigma, run_spread,
                                   cur_names))
    return items


def _check_metric(cm, bms, metric, tol, severity, source, sigma, run_spread, cur_names):
    directed = is_bw(cm)
    cur = _values(cm, metric)
    base = {}
    for b in bms:
        for k, v in _values(b, metric).items():
            base.setdefault(k, []).append(v)
    higher = metric in HIGHER_IS_BETTER
    fails, warns, passes, missing = [], [], [], []
    for key, bvals in base.items():
        if key[0] not in cur_names or key[1] not in cur_names:
            continue  # a member gone: reported once above
        value = cur.get(key)
        if value is None:
            missing.append(key)
            continue
        ref = statistics.median(bvals)
        if ref <= 0:
            continue
        spread = 0.0
        if len(bvals) >= 2 and statistics.mean(bvals) > 0:
            spread = statistics.stdev(bvals) / statistics.mean(bvals)
        if len(bvals) < MIN_SPREAD_RUNS:
            spread = max(spread, run_spread)
        noise = sigma * spread
        change = value / ref - 1.0
        worse = -change if higher else change
        rec = (worse, key, ref, value, change, noise)
        if worse > tol and worse > noise:
            fails.append(rec)
        elif worse > tol:
            warns.append(rec)
        else:
            passes.append(rec)
    items = []
    fails.sort(key=lambda r: (-r[0], r[1]))
    status = "WARN" if severity == "warn" else "FAIL"
    for worse, key, ref, value, change, noise in fails[:LIST_FAILS]:
        items.append(_item(status, cm, metric, _pair_text(key, directed), ref, value, change,
                           noise, tol, "worse by %s: beyond the tolerance (%s) and the noise "
                           "+-%s" % (_pct(worse), _pct(tol), _pct(noise)), source))
    if len(fails) > LIST_FAILS:
        rest = fails[LIST_FAILS:]
        items.append(_item(status, cm, metric, None, None, None, None, None, tol,
                           "%d more %s worse beyond the tolerance and the noise (the least: "
                           "%s by %s)" % (len(rest), "directions" if directed else "pairs",
                                          _pair_text(rest[-1][1], directed),
                                          _pct(rest[-1][0])), source))
    if warns:
        warns.sort(key=lambda r: (-r[0], r[1]))
        w = warns[0]
        items.append(_item("WARN", cm, metric, None, None, None, None, None, tol,
                           "%d %s worse beyond the tolerance (%s) but within the noise: the "
                           "measurement cannot tell (the worst: %s by %s, noise +-%s)" % (
                               len(warns), _unit(len(warns), directed), _pct(tol),
                               _pair_text(w[1], directed), _pct(w[0]), _pct(w[5])), source))
    if missing:
        missing.sort()
        items.append(_item("WARN", cm, metric, None, None, None, None, None, tol,
                           "%d %s of the baseline not measured in this run%s (%s%s)" % (
                               len(missing), _unit(len(missing), directed),
                               "" if cm["complete"] else " (it stopped after %d of %d rounds)"
                               % (cm["rounds_done"], cm["rounds"]),
                               ", ".join(_pair_text(k, directed) for k in missing[:5]),
                               ", ..." if len(missing) > 5 else ""), source))
    if not fails and not warns and passes:
        worst = max(passes, key=lambda r: (r[0], r[1]))
        items.append(_item("PASS", cm, metric, None, None, None, None, None, tol,
                           "all %d %s within the tolerance (%s); the worst: %s %+.1f%% "
                           "(%s -> %s)" % (len(passes), _unit(len(passes), directed), _pct(tol),
                                           _pair_text(worst[1], directed), 100 * worst[4],
                                           fmt_num(worst[2]), fmt_num(worst[3])), source))
    return items


def _unit(k, directed):
    return ("direction" if directed else "pair") + ("" if k == 1 else "s")


def add_pair_checks(result, base_ms, cur_ms, tolerance, rules, sigma, run_spread, strict):
    """Add the pair-by-pair items of every current matrix to check's result (each file's
    checks, counts and result, and the overall result)."""
    from .check import ORDER, _worst

    for f in result["files"]:
        mine = [m for m in cur_ms if m["file"] == f["file"] and m["run"] == f["run"]]
        added = []
        for cm in mine:
            bms, seen = [], set()
            for b in base_ms:  # one matrix per baseline run and kernel (the first)
                if b["kernel"] == cm["kernel"] and (b["file"], b["run"]) not in seen:
                    seen.add((b["file"], b["run"]))
                    bms.append(b)
            if not bms:
                continue
            added.extend(check_matrix(cm, bms, tolerance, rules, sigma, run_spread, strict,
                                      result["notes"], f["label"]))
        if not added:
            continue
        f["checks"].extend(added)
        f["counts"] = {s: sum(1 for i in f["checks"] if i["status"] == s) for s in ORDER}
        f["result"] = _worst([i["status"] for i in f["checks"]])
    result["result"] = _worst([f["result"] for f in result["files"]])
    return result
