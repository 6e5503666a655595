#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Analysis for bench/coll_vs_peers.sh: reads its output directory (runs.txt names every run:
round, ranks, kernel, tool, output file, exit status, seconds, load) and prints, per kernel and
rank count, for every size the medians over the rounds of the per-round ratios fabricbench /
peer (both runs of a ratio were next to each other in time), then a summary per kernel and
rank count (the median over the sizes, the largest deviation, and the issue's target).

What is compared (docs/METRICS.md, "Compared with OSU and IMB"):
- `osu_avg_us` of `fabricbench --sync barrier` against OSU's "Avg Latency(us)" (the target:
  within 5%) and against IMB's t_avg; `imb_tmax_us` against IMB's t_max (IMB-MPI1's default
  -sync 1 is the same loop);
- `time_us` of fabricbench's default run (calls back to back, a call timed as its slowest
  rank) against OSU's avg: the difference of definitions a user saw before the columns.

usage: coll_vs_peers.py OUTDIR"""
import csv
import io
import math
import os
import sys
from collections import defaultdict

import numpy as np
from peer_outputs import human, read_imb, read_osu

TARGET = 0.05  # |fabricbench / OSU - 1| for osu_avg_us under --sync barrier
# (label, fabricbench tool, its column, peer tool, the peer's statistic)
RATIOS = [
    ("osu_avg/OSU avg", "fb_barrier", "osu_avg_us", "osu", "avg"),
    ("osu_avg/IMB t_avg", "fb_barrier", "osu_avg_us", "imb", "avg"),
    ("imb_tmax/IMB t_max", "fb_barrier", "imb_tmax_us", "imb", "max"),
    ("imb_tmin/IMB t_min", "fb_barrier", "imb_tmin_us", "imb", "min"),
    ("b2b osu_avg/OSU avg", "fb_none", "osu_avg_us", "osu", "avg"),
    ("b2b time_us/OSU avg", "fb_none", "mean_us", "osu", "avg"),
]
SHOWN = (8, 1024, 65536)  # and each kernel's largest size, in the summary


def read_runs(out):
    runs = []
    with open(os.path.join(out, "runs.txt")) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7:
                runs.append({"round": int(p[0]), "np": int(p[1]), "kernel": p[2], "tool": p[3],
                             "file": p[4], "rc": int(p[5]), "s": float(p[6]),
                             "load": float(p[7]) if len(p) > 7 else math.nan})
    return runs


def read_fb(path, kernel, np_):
    """{peer size: {column: value}}: alltoall's bytes are n x the peers' size."""
    with open(path) as f:
        text = f.read()
    rows = {}
    for r in csv.DictReader(io.StringIO(text)):
        b = int(r["bytes"])
        size = b // np_ if kernel == "alltoall" else b
        rows[size] = {c: float(r[c]) if r.get(c) not in (None, "") else math.nan
                      for c in ("mean_us", "osu_avg_us", "imb_tmin_us", "imb_tmax_us")}
    return rows


def fmt(x):
    return "n/a" if x is None or not math.isfinite(x) else "%.3f" % x


def main(out):
    runs = read_runs(out)
    bad = [r for r in runs if r["rc"] != 0]
    data = defaultdict(dict)  # (kernel, np, tool) -> round -> {size: values}
    for r in runs:
        if r["rc"] != 0:
            continue
        key = (r["kernel"], r["np"], r["tool"])
        if r["tool"].startswith("fb"):
            data[key][r["round"]] = read_fb(r["file"], r["kernel"], r["np"])
        elif r["tool"] == "osu":
            data[key][r["round"]] = {size: {"avg": v[0], "min": v[1], "max": v[2]}
                                     for size, v in read_osu(r["file"]).items() if len(v) >= 3}
        else:
            data[key][r["round"]] = read_imb(r["file"])
    with open(os.path.join(out, "conditions.txt")) as f:
        print("".join("# " + line for line in f), end="")
    loads = [r["load"] for r in runs if math.isfinite(r["load"])]
    if loads:
        print("# load (1 min) during the runs: %.2f to %.2f, median %.2f on %d CPUs"
              % (min(loads), max(loads), float(np.median(loads)), os.cpu_count()))
    print("# ratio = the median over rounds of fabricbench / peer, both measured in the same "
          "round; b2b: fabricbench's default, calls back to back")
    summary = []
    combos = sorted({(k, n) for k, n, _ in data})
    for kernel, np_ in combos:
        present = [x for x in RATIOS if data.get((kernel, np_, x[1])) and
                   data.get((kernel, np_, x[3]))]
        if not present:
            continue
        sizes = sorted({s for rd in data[(kernel, np_, present[0][1])].values() for s in rd})
        print("\n## %s, %d ranks (sizes: the peers'; fabricbench's alltoall bytes are %d x)"
              % (kernel, np_, np_ if kernel == "alltoall" else 1))
        print("| size | " + " | ".join(x[0] for x in present) + " | OSU avg us | fb osu_avg us |")
        print("|---|" + "---|" * (len(present) + 2))
        per = defaultdict(dict)  # label -> size -> median ratio
        rom = defaultdict(dict)  # label -> size -> ratio of the medians
        for s in sizes:
            cells = []
            for label, ft, col, pt, stat in present:
                rat, fvals, pvals = [], [], []
                for rd, fv in data[(kernel, np_, ft)].items():
                    pv = data[(kernel, np_, pt)].get(rd, {}).get(s)
                    if s in fv and pv and pv[stat] > 0 and math.isfinite(fv[s][col]):
                        rat.append(fv[s][col] / pv[stat])
                        fvals.append(fv[s][col])
                        pvals.append(pv[stat])
                per[label][s] = float(np.median(rat)) if rat else math.nan
                rom[label][s] = float(np.median(fvals) / np.median(pvals)) if rat else math.nan
                cells.append(fmt(per[label][s]))
            osu_avg = [v[s]["avg"] for v in data.get((kernel, np_, "osu"), {}).values() if s in v]
            fb_avg = [v[s]["osu_avg_us"] for v in data.get((kernel, np_, "fb_barrier"), {}).values()
                      if s in v]
            print("| %s | %s | %s | %s |" % (human(s), " | ".join(cells),
                                              fmt(float(np.median(osu_avg))) if osu_avg else "n/a",
                                              fmt(float(np.median(fb_avg))) if fb_avg else "n/a"))
        for label, *_ in present:
            vals = [v for v in per[label].values() if math.isfinite(v)]
            if vals:
                worst = max(per[label].items(), key=lambda kv: abs(kv[1] - 1)
                            if math.isfinite(kv[1]) else -1)
                near = sum(abs(v - 1) <= TARGET for v in vals)
                shown = [per[label].get(s, math.nan) for s in SHOWN] + [per[label][sizes[-1]]]
                roms = [v for v in rom[label].values() if math.isfinite(v)]
                summary.append((kernel, np_, label, float(np.median(vals)), worst, shown,
                                "%s: %s" % (human(sizes[-1]), fmt(shown[-1])),
                                "%d of %d" % (near, len(vals)),
                                "%s (%d of %d)" % (fmt(float(np.median(roms))),
                                                   sum(abs(v - 1) <= TARGET for v in roms),
                                                   len(roms))))
    pct = round(TARGET * 100)
    print("\n## Summary: per size the median over the rounds of the ratio; over the sizes their "
          "median, how many are within %d%%, the furthest from 1; and per size the ratio of the "
          "medians over the rounds (median over the sizes, how many within %d%%)" % (pct, pct))
    print("| kernel | ranks | ratio | " + " | ".join(human(s) for s in SHOWN) +
          " | largest | median | within %d%% | furthest | ratio of medians | median within %d%% |"
          % (pct, pct))
    print("|---|---|---|" + "---|" * (len(SHOWN) + 6))
    for kernel, np_, label, med, (ws, wv), shown, largest, near, roms in summary:
        target = ""
        if label == "osu_avg/OSU avg":
            target = "yes" if abs(med - 1) <= TARGET else "no"
        print("| %s | %d | %s | %s | %s | %s | %s | %s at %s | %s | %s |"
              % (kernel, np_, label, " | ".join(fmt(v) for v in shown[:-1]), largest, fmt(med),
                 near, fmt(wv), human(ws), roms, target))
    if bad:
        print("\n%d run(s) failed and are left out: %s" % (len(bad), ", ".join(
            "%s np %d %s round %d (exit %d)" % (r["kernel"], r["np"], r["tool"], r["round"], r["rc"])
            for r in bad)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit(__doc__.split("usage: ")[1].strip())
    sys.exit(main(sys.argv[1]))
