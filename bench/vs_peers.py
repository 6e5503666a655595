#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Analysis for bench/vs_peers.sh: reads its output directory (runs.txt names every run:
round, case, tool, output file, exit status, seconds, load) and prints one Markdown table:
per case, the median over the rounds of the per-round ratio fabricbench / peer (rates:
fabricbench's rate / the peer's; times, CPU and memory: fabricbench's / the peer's), with
the range over the rounds, for fabricbench's fixed iterations and its adaptive default;
then the same per speed regime of the round when both regimes occur (the regime: OSU's 8 B
one-way latency in that round below or above REGIME_US).

usage: vs_peers.py OUTDIR [REGIME_US]"""
import math
import os
import sys
from collections import defaultdict

import numpy as np
from peer_outputs import human, read_fb, read_imb, read_osu

# pt2pt case -> (fabricbench kernel, size, fabricbench column, OSU column, unit, a rate)
PT2PT = {
    "lat8": ("latency", 8, "loop_us", 0, "us", False),
    "lat64k": ("latency", 65536, "loop_us", 0, "us", False),
    "bw8": ("bw", 8, "MBps", 0, "MB/s", True),
    "bibw8": ("bibw", 8, "MBps", 0, "MB/s", True),
    "msgrate8": ("msgrate", 8, "msgps", 1, "msg/s", True),
}
# collective case -> (kernel, ranks, the peers' sizes)
COLL = {
    "ar2": ("allreduce", 2, (8, 65536, 1048576)),
    "ar4": ("allreduce", 4, (8, 65536, 1048576)),
    "a2a4": ("alltoall", 4, (8, 65536)),
    "ar8": ("allreduce", 8, (8, 65536, 1048576)),
}
ORDER = ["lat8", "lat64k", "bw8", "bibw8", "msgrate8", "ar2", "ar4", "a2a4", "ar8",
         "startup", "sweep"]


def read_runs(out):
    runs = []
    with open(os.path.join(out, "runs.txt")) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7:
                runs.append({"round": int(p[0]), "case": p[1], "tool": p[2], "file": p[3],
                             "rc": int(p[4]), "s": float(p[5]),
                             "load": float(p[6])})
    return runs


def values(run):
    """{metric: value} of one successful run."""
    c, t, f = run["case"], run["tool"], run["file"]
    v = {}
    if c in PT2PT or c == "probe":
        kernel, size, fcol, ocol, _, _ = PT2PT.get(c, PT2PT["lat8"])
        if t.startswith("fb"):
            row = read_fb(f + ".csv").get(kernel, {}).get(size)
            if row and row.get(fcol):
                v[c] = float(row[fcol])
        else:
            row = read_osu(f).get(size)
            if row and len(row) > ocol:
                v[c] = row[ocol]
    elif c in COLL:
        kernel, n, sizes = COLL[c]
        if t.startswith("fb"):
            rows = read_fb(f + ".csv").get(kernel, {})
            for b, row in rows.items():
                s = b // n if kernel == "alltoall" else b
                if s in sizes and row.get("osu_avg_us"):
                    v[s] = float(row["osu_avg_us"])
        elif t == "osu":
            v = {s: r[0] for s, r in read_osu(f).items() if s in sizes and r}
        else:
            v = {s: r["avg"] for s, r in read_imb(f).items() if s in sizes}
    elif c == "startup":
        v["wall"] = run["s"]
        ranks = []
        for rank in range(2):
            try:
                with open("%s.time.%d" % (f, rank)) as tf:
                    ranks.append([float(x) for x in tf.read().split()[-4:]])
            except (OSError, ValueError):
                pass
        if len(ranks) == 2:
            v["cpu"] = sum(x[1] + x[2] for x in ranks)
            v["rss"] = max(x[3] for x in ranks) / 1024.0
    elif c == "sweep":
        v["wall"] = run["s"]
    return v


def size_name(n):
    """8 -> 8 B, 65536 -> 64 KiB, 1048576 -> 1 MiB."""
    h = human(n)
    return h[:-1] + " " + h[-1] + "iB" if h[-1] in "KM" else h + " B"


def rows_of(case, imb):
    """(label, metric, fixed tool, adaptive tool, peer tool, unit, a rate)"""
    if case in PT2PT:
        kernel, size, _, _, unit, rate = PT2PT[case]
        return [("%s %s" % (kernel, size_name(size)), case, "fb_fixed", "fb_adapt", "osu", unit,
                 rate)]
    if case in COLL:
        kernel, n, sizes = COLL[case]
        per = " a peer" if kernel == "alltoall" else ""
        out = [("%s %d ranks %s%s, osu_avg_us / OSU avg" % (kernel, n, size_name(s), per), s,
                "fb_fixed", "fb_adapt", "osu", "us", False) for s in sizes]
        if imb:
            out += [("%s %d ranks %s%s, osu_avg_us / IMB t_avg" % (kernel, n, size_name(s), per),
                     s, "fb_fixed", "fb_adapt", "imb", "us", False) for s in sizes]
        return out
    if case == "startup":
        return [("start-up, whole mpirun: wall", "wall", "fb_start", None, "osu_start", "s", False),
                ("start-up: CPU user+sys, both ranks", "cpu", "fb_start", None, "osu_start", "s",
                 False),
                ("start-up: peak RSS (the larger rank)", "rss", "fb_start", None, "osu_start",
                 "MiB", False)]
    if case == "sweep":
        return [("default sweep wall / OSU's four defaults", "wall", None, "fb_sweep",
                 "osu_sweep", "s", False)]
    return []


def fmt(x, nd=3):
    if x is None or not math.isfinite(x):
        return "n/a"
    if abs(x) >= 1000:
        return "%.0f" % x
    return "%.*f" % (nd, x)


def cell(rat):
    if not rat:
        return "n/a"
    if len(rat) == 1:
        return "**%s**" % fmt(rat[0])
    return "**%s** (%s-%s, %d)" % (fmt(float(np.median(rat))), fmt(min(rat)), fmt(max(rat)),
                                  len(rat))


def main(out, regime_us):
    runs = read_runs(out)
    bad = [r for r in runs if r["rc"] != 0]
    data = defaultdict(dict)  # (case, tool) -> round -> {metric: value}
    for r in runs:
        if r["rc"] != 0:
            continue
        key = (r["case"], r["tool"])
        try:
            v = values(r)
        except (OSError, ValueError, KeyError) as e:
            print("note: %s %s round %d unreadable (%s)" % (r["case"], r["tool"], r["round"], e),
                  file=sys.stderr)
            continue
        old = data[key].get(r["round"], {})
        if r["case"] == "sweep":  # OSU's four programs: the sum of their wall times
            v = {"wall": old.get("wall", 0.0) + v["wall"]}
        elif r["case"] in COLL:  # OSU: one run a size
            v = {**old, **v}
        data[key][r["round"]] = v
    rounds = sorted({r["round"] for r in runs})
    lat = {}
    for rd in rounds:
        for key in (("lat8", "osu"), ("probe", "osu")):
            x = data.get(key, {}).get(rd, {}).get(key[0])
            if x is not None:
                lat[rd] = x
                break
    reg = {rd: ("fast" if x < regime_us else "slow") for rd, x in lat.items()}

    with open(os.path.join(out, "conditions.txt")) as f:
        for line in f:
            print("- " + line.rstrip())
    loads = [r["load"] for r in runs if math.isfinite(r["load"])]
    if loads:
        print("- load (1 min) after each run: %.2f to %.2f, median %.2f on %d CPUs"
              % (min(loads), max(loads), float(np.median(loads)), os.cpu_count()))
    print("- regime per round (OSU 8 B latency, us; fast below %s): %s" % (
        regime_us, ", ".join("%d: %s %s" % (rd, fmt(lat[rd]), reg[rd]) for rd in sorted(lat))
        or "unknown"))
    print("\nEach cell: the median over the rounds of fabricbench / peer in the same round "
          "(rates: fabricbench's rate / the peer's; times: fabricbench's / the peer's), "
          "(the least-the largest, rounds). Medians of the values: fabricbench fixed, "
          "adaptive, peer.\n")
    table = []
    for case in ORDER:
        for label, m, ft, at, pt, unit, _ in rows_of(case, any(k[1] == "imb" for k in data)):
            cols = {}
            for name, tool in (("fixed", ft), ("adapt", at)):
                rat = defaultdict(list)
                vals = []
                if tool:
                    for rd, fv in data.get((case, tool), {}).items():
                        pv = data.get((case, pt), {}).get(rd, {}).get(m)
                        x = fv.get(m)
                        if x is not None and pv and math.isfinite(x):
                            rat["all"].append(x / pv)
                            rat[reg.get(rd, "?")].append(x / pv)
                            vals.append(x)
                cols[name] = (rat, vals)
            peer = [v[m] for v in data.get((case, pt), {}).values() if m in v]
            if any(cols[n][0] for n in cols) or peer:
                table.append((label, cols, peer, unit))
    print("| case | fixed iterations | adaptive (default) | fabricbench fixed / adaptive / peer |")
    print("|---|---|---|---|")
    for label, cols, peer, unit in table:
        med = [fmt(float(np.median(cols[n][1]))) if cols[n][1] else "-" for n in ("fixed", "adapt")]
        print("| %s | %s | %s | %s / %s / %s %s |" % (
            label, cell(cols["fixed"][0]["all"]) if cols["fixed"][0] else "-",
            cell(cols["adapt"][0]["all"]) if cols["adapt"][0] else "-", med[0], med[1],
            fmt(float(np.median(peer))) if peer else "n/a", unit))
    if len(set(reg.values())) > 1:
        print("\nPer regime (fast: OSU 8 B latency below %s us):\n" % regime_us)
        print("| case | fixed, fast | fixed, slow | adaptive, fast | adaptive, slow |")
        print("|---|---|---|---|---|")
        for label, cols, _, _ in table:
            print("| %s | %s |" % (label, " | ".join(
                cell(cols[n][0].get(g, [])) for n in ("fixed", "adapt") for g in ("fast", "slow"))))
    if bad:
        print("\n%d run(s) failed and are left out: %s" % (len(bad), ", ".join(
            "%s %s round %d (exit %d%s)" % (r["case"], r["tool"], r["round"], r["rc"],
                                            ", timed out" if r["rc"] in (124, 137) else "")
            for r in bad)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or not os.path.isdir(sys.argv[1]):
        sys.exit(__doc__.split("usage: ")[1].strip())
    sys.exit(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3 else 0.25))
