#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Analysis for bench/sweep_vs_osu.sh: reads its output directory and prints
(a) wall time per tool and the ratio of medians, (b) each tool's run-to-run spread per
kernel and size class, (c) the ratio of medians fabricbench / OSU per size.
With --file-cost outputs (times of fb_none, fb_file, fb_file_samples) it prints those."""
import glob
import os
import sys
from collections import defaultdict

import numpy as np
from peer_outputs import human, read_fb, read_osu

# kernel -> (OSU program, OSU column index (0 = size; read_osu drops it), fabricbench CSV column, unit)
METRICS = [
    ("latency", "osu_latency", 1, "loop_us", "us"),
    ("bw", "osu_bw", 1, "MBps", "MB/s"),
    ("bibw", "osu_bibw", 1, "MBps", "MB/s"),
    ("msgrate", "osu_mbw_mr", 2, "msgps", "msg/s"),
]
CLASSES = [("small", 0, 1024), ("medium", 1025, 65535), ("large", 65536, 1 << 62)]


def cls(size):
    return next(name for name, lo, hi in CLASSES if lo <= size <= hi)


def read_times(out):
    t = defaultdict(dict)  # name -> round -> seconds
    with open(os.path.join(out, "times.txt")) as f:
        for line in f:
            r, name, s = line.split()
            t[name][int(r)] = float(s)
    return t


def spread(xs):
    xs = np.asarray(xs, float)
    return (xs.max() - xs.min()) / np.median(xs)


def fmt(x, nd=3):
    if x is None or not np.isfinite(x):
        return "n/a"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.{nd}f}"


def file_cost(out, t):
    names = ["fb_none", "fb_file", "fb_file_samples"]
    rounds = sorted(t["fb_none"])
    print(f"## fabricbench wall time: -o none | -o FILE | -o FILE --samples ({len(rounds)} rounds, interleaved)")
    print("| round | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for r in rounds:
        print(f"| {r} | " + " | ".join(f"{t[n][r]:.2f}" for n in names) + " |")
    med = {n: np.median([t[n][r] for r in rounds]) for n in names}
    print("| median | " + " | ".join(f"{med[n]:.2f}" for n in names) + " |")
    for n in names[1:]:
        paired = [t[n][r] / t["fb_none"][r] for r in rounds]
        print(f"{n} / fb_none: ratio of medians {med[n] / med['fb_none']:.3f}; "
              f"per round median {np.median(paired):.3f} (min {min(paired):.3f}, max {max(paired):.3f})")
    paired = [t["fb_file_samples"][r] / t["fb_file"][r] for r in rounds]
    print(f"fb_file_samples / fb_file: ratio of medians {med['fb_file_samples'] / med['fb_file']:.3f}; "
          f"per round median {np.median(paired):.3f} (min {min(paired):.3f}, max {max(paired):.3f})")
    fp = os.path.join(out, "files.txt")
    if os.path.exists(fp):
        sizes = defaultdict(list)
        for line in open(fp):
            b, p = line.split()
            sizes["--samples" if os.path.basename(p).startswith("fbs-") else "plain"].append(int(b))
        print("file sizes (bytes, median): " + ", ".join(f"{k} {int(np.median(v))}" for k, v in sizes.items()))
    # the run's own account of its commits (SCHEMA.md): independent of the load's swings
    try:
        import h5py
    except ImportError:
        return
    for label, pat in (("-o FILE", "fb-*.h5"), ("-o FILE --samples", "fbs-*.h5")):
        tot, mx, n = [], [], []
        for path in sorted(glob.glob(os.path.join(out, pat))):
            with h5py.File(path, "r") as f:
                for run in f["runs"].values():
                    tot.append(float(run.attrs["commit_seconds_total"]))
                    mx.append(float(run.attrs["commit_seconds_max"]))
                    n.append(int(run.attrs["commits"]))
        if tot:
            print(f"{label}: commits {int(np.median(n))}, commit time in all: median {np.median(tot):.3f} s "
                  f"(range {min(tot):.3f}-{max(tot):.3f}), largest commit {max(mx) * 1000:.1f} ms")


def fixed_costs(out, t, rounds):
    """Where fabricbench's time goes: timed iterations, warm-up (calibration included), rest."""
    print("\n## fabricbench: where the wall time goes (median over rounds, seconds)")
    print("| kernel | timed | warm-up + calibration (estimated) | sizes |")
    print("|---|---|---|---|")
    tot_t, tot_w = [], []
    per = defaultdict(lambda: defaultdict(list))
    for r in rounds:
        fb = read_fb(os.path.join(out, f"fb-{r}.csv"))
        st = sw = 0.0
        for k, rows in fb.items():
            kt = kw = 0.0
            for row in rows.values():
                it_s = float(row["loop_us"]) * 1e-6 * (2 if k == "latency" else 1)
                kt += int(row["iterations"]) * it_s
                kw += int(row["warmup"]) * it_s
            per[k]["t"].append(kt)
            per[k]["w"].append(kw)
            per[k]["n"].append(len(rows))
            st += kt
            sw += kw
        tot_t.append(st)
        tot_w.append(sw)
    for k in per:
        print(f"| {k} | {np.median(per[k]['t']):.2f} | {np.median(per[k]['w']):.2f} | {int(np.median(per[k]['n']))} |")
    wall = np.median([t["fabricbench"][r] for r in rounds])
    print(f"| all | {np.median(tot_t):.2f} | {np.median(tot_w):.2f} | wall {wall:.2f}; "
          f"rest (start-up, MPI_Init, agreement between sizes, probe, exit) {wall - np.median(tot_t) - np.median(tot_w):.2f} |")
    print("(warm-up seconds = warm-up iterations x the size's timed iteration time: an estimate; "
          "calibration iterations are counted in warm-up)")


def main():
    out = sys.argv[1]
    t = read_times(out)
    if "fb_none" in t:
        file_cost(out, t)
        return
    rounds = sorted(r for r in t["fabricbench"] if r in t.get("osu_total", {}))
    # (a) wall time
    print(f"## (a) wall time ({len(rounds)} rounds, A B interleaved)")
    names = ["fabricbench", "osu_latency", "osu_bw", "osu_bibw", "osu_mbw_mr", "osu_total"]
    print("| round | " + " | ".join(names) + " | fabricbench / osu_total |")
    print("|---|" + "---|" * (len(names) + 1))
    for r in rounds:
        print(f"| {r} | " + " | ".join(f"{t[n][r]:.2f}" for n in names)
              + f" | {t['fabricbench'][r] / t['osu_total'][r]:.2f} |")
    med = {n: np.median([t[n][r] for r in rounds]) for n in names}
    print("| median | " + " | ".join(f"{med[n]:.2f}" for n in names)
          + f" | **{med['fabricbench'] / med['osu_total']:.2f}** (ratio of medians) |")

    # values[tool][kernel][size] = list over rounds
    fbv = defaultdict(lambda: defaultdict(list))
    osv = defaultdict(lambda: defaultdict(list))
    for r in rounds:
        fb = read_fb(os.path.join(out, f"fb-{r}.csv"))
        for k, prog, col, fcol, _ in METRICS:
            for size, row in fb.get(k, {}).items():
                fbv[k][size].append(float(row[fcol]))
            for size, v in read_osu(os.path.join(out, f"{prog}-{r}.out")).items():
                osv[k][size].append(v[col - 1])

    # (b) spreads
    print("\n## (b) run-to-run spread: per size (max - min) / median over the rounds, "
          "then the median over the sizes of the class")
    print("size classes: small <= 1 KiB, medium 2 KiB - 32 KiB, large >= 64 KiB")
    print("| kernel | class | sizes | fabricbench | OSU | fabricbench - OSU |")
    print("|---|---|---|---|---|---|")
    for k, prog, _, _, _ in METRICS:
        for name, lo, hi in CLASSES:
            sizes = [s for s in sorted(fbv[k]) if lo <= s <= hi and s in osv[k]]
            if not sizes:
                continue
            f = np.median([spread(fbv[k][s]) for s in sizes]) * 100
            o = np.median([spread(osv[k][s]) for s in sizes]) * 100
            print(f"| {k} | {name} | {len(sizes)} | {f:.0f}% | {o:.0f}% | {f - o:+.0f} |")

    # (c) ratio of medians per size
    print("\n## (c) per size: medians over the rounds and fabricbench / OSU")
    print("`disjoint`: the two tools' ranges over the rounds do not overlap (the tools were in "
          "different regimes, or differ for real); `regimes`: the medians lie on either side of the "
          "geometric middle of all values of the size (which span over 1.5x): one tool mostly in "
          "one regime, the other in the other; `~`: ratio within 5%")
    split = defaultdict(list)
    for k, prog, _, _, unit in METRICS:
        print(f"\n### {k} ({unit}; fabricbench vs {prog})")
        print("| bytes | fabricbench median | range | OSU median | range | ratio | |")
        print("|---|---|---|---|---|---|---|")
        ratios = defaultdict(list)
        for s in sorted(fbv[k]):
            if s not in osv[k]:
                continue
            f, o = np.asarray(fbv[k][s]), np.asarray(osv[k][s])
            ratio = np.median(f) / np.median(o)
            ratios[cls(s)].append(ratio)
            disjoint = f.max() < o.min() or o.max() < f.min()
            # two levels: the pooled values span over 1.5x and the medians lie on either side
            # of their geometric middle (one tool mostly in the fast regime, the other not)
            both = np.concatenate([f, o])
            mid = np.sqrt(both.min() * both.max())
            regimes = both.max() > 1.5 * both.min() and (np.median(f) - mid) * (np.median(o) - mid) < 0
            if regimes:
                split[k].append(s)
            mark = ("disjoint" if disjoint else "") + (" regimes" if regimes else "") \
                + (" ~" if abs(ratio - 1) <= 0.05 else "")
            print(f"| {human(s)} | {fmt(np.median(f))} | {fmt(f.min())}-{fmt(f.max())} | "
                  f"{fmt(np.median(o))} | {fmt(o.min())}-{fmt(o.max())} | {ratio:.2f} | {mark.strip()} |")
        print("per class, median of the per-size ratios: "
              + ", ".join(f"{c} {np.median(v):.2f} (range {min(v):.2f}-{max(v):.2f})" for c, v in ratios.items()))
        print("sizes in different regimes: " + (", ".join(human(x) for x in split[k]) or "none"))
    fixed_costs(out, t, rounds)


if __name__ == "__main__":
    main()
