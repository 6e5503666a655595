#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Analysis for bench/sockets_vs_peers.sh: reads its output directory (runs.txt names every
run: round, case, tool, output file, exit status, seconds) and prints, per case, the medians
over the rounds of fabricbench and of its peer, fabricbench / peer (the ratio of the medians,
and the median of the per-round ratios, whose two runs were next to each other in time), each
tool's spread (max - min) / median, and the issue's targets.

What is compared (docs/PERFORMANCE.md, "Issue 18"):
- tcp_stream: fabricbench `Gbps` (payload bytes delivered to the receiving rank / the
  sender's time to the receiver's answer) against iperf3's receiver bitrate
  (`end.sum_received`, bytes the server read in its own measuring interval); iperf3's sender
  bitrate and both tools' retransmits are shown beside it. Target: within 5%.
- tcp_rr: fabricbench `p50_us`, `p999_us`, `loop_us` (one-way = round trip / 2, per
  iteration; the loop mean) against sockperf ping-pong's `percentile 50.000`, `99.900` and
  `avg-latency` (round trip / 2 of every message of its valid window). Target: p50 within 10%.
- udp_rate: fabricbench `loss_pct` (and `rx_Gbps`, `jitter_us`) against iperf3 -u's
  receiver-side `lost_percent` (and receiver bitrate, jitter).

usage: sockets_vs_peers.py OUTDIR"""
import json
import os
import re
import sys
from collections import defaultdict

import h5py
import numpy as np

TARGET = {"Gbps": 0.05, "p50 us": 0.10}  # metric -> allowed |fabricbench / peer - 1|
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def read_fb(path):
    """The first row of the newest run's first kernel, as {column: value}, and its detail."""
    with h5py.File(path, "r") as f:
        run = f["runs"][f.attrs["latest_run"]]
        if not len(run["kernels"]):
            raise ValueError("no kernel in %s (status %s)" % (path, run.attrs.get("status")))
        k = run["kernels"][sorted(run["kernels"])[0]]
        t = k["table"]
        row = {}
        for c in t.attrs["columns"].split(","):
            v = t[c][0] if len(t[c]) else None
            row[c] = v.decode() if isinstance(v, bytes) else v
        row["_detail"] = k.attrs.get("detail", "")
        row["_status"] = run.attrs.get("status", "")
        return row


def fb_metrics(kind, row):
    g = lambda c: float(row[c]) if c in row and row[c] is not None else float("nan")  # noqa: E731
    if kind == "stream":
        return {"Gbps": g("Gbps"), "retrans": g("tcp_retrans"), "sender Gbps": g("Gbps"),
                "sndbuf MB": g("sndbuf_bytes") / 1e6, "rcvbuf MB": g("rcvbuf_bytes") / 1e6}
    if kind == "rr":
        return {"p50 us": g("p50_us"), "p99.9 us": g("p999_us"), "mean us": g("loop_us"),
                "samples": g("iterations")}
    return {"loss %": g("loss_pct"), "rx Gbps": g("rx_Gbps"), "sent Gbps": g("Gbps"),
            "offered Gbps": g("offered_Gbps"), "jitter us": g("jitter_us"),
            "drops": g("udp_drops"), "rx overflow": g("udp_rx_overflow")}


def read_iperf3(kind, path):
    with open(path) as f:
        d = json.load(f)
    if "error" in d:
        raise ValueError("iperf3: " + d["error"])
    e = d["end"]
    if kind == "stream":
        return {"Gbps": e["sum_received"]["bits_per_second"] / 1e9,
                "sender Gbps": e["sum_sent"]["bits_per_second"] / 1e9,
                "retrans": float(e["sum_sent"].get("retransmits", float("nan")))}
    # UDP: the receiver's view (3.12 has sum_received; older ones only sum)
    rx = e.get("sum_received", e["sum"])
    return {"loss %": rx["lost_percent"], "rx Gbps": rx["bits_per_second"] / 1e9,
            "sent Gbps": e.get("sum_sent", e["sum"])["bits_per_second"] / 1e9,
            "jitter us": e["sum"]["jitter_ms"] * 1000, "offered Gbps": float("nan"),
            "drops": float("nan"), "rx overflow": float("nan")}


def read_sockperf(path):
    text = ""
    for p in (path, path + ".err"):
        if os.path.exists(p):
            with open(p, errors="replace") as f:
                text += ANSI.sub("", f.read())

    def num(pattern):
        m = re.search(pattern, text)
        if not m:
            raise ValueError("sockperf output without '%s' (%s)" % (pattern, path))
        return float(m.group(1))
    return {"p50 us": num(r"percentile 50\.000 =\s*([0-9.]+)"),
            "p99.9 us": num(r"percentile 99\.900 =\s*([0-9.]+)"),
            "mean us": num(r"avg-latency=([0-9.]+)"),
            "samples": num(r"\[Valid Duration\].*ReceivedMessages=([0-9]+)")}


def kind_of(case):
    return "stream" if "_stream_" in case else "rr" if "_rr_" in case else "udp"


# the metrics of each kind, the first one the case's headline
METRICS = {"stream": ["Gbps", "sender Gbps", "retrans"],
           "rr": ["p50 us", "p99.9 us", "mean us", "samples"],
           "udp": ["loss %", "rx Gbps", "sent Gbps", "jitter us", "drops", "rx overflow"]}


def spread(xs):
    xs = np.asarray(xs, float)
    return (xs.max() - xs.min()) / np.median(xs) if len(xs) and np.median(xs) else float("nan")


def pct(x):
    return f"{x * 100:.0f}%" if np.isfinite(x) else "n/a"


def fmt(x):
    if x is None or not np.isfinite(x):
        return "n/a"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}" \
        if abs(x) >= 1 else f"{x:.3f}"


def main():
    out = sys.argv[1]
    runs = []  # (round, case, tool, file, rc, seconds)
    with open(os.path.join(out, "runs.txt")) as f:
        for line in f:
            r, case, tool, path, rc, s = line.split()
            runs.append((int(r), case, tool, path, int(rc), float(s)))
    # vals[case][tool][metric][round] = value
    vals = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    peer_of, failed, details = {}, [], {}
    for r, case, tool, path, rc, s in runs:
        kind = kind_of(case)
        if tool != "fabricbench":
            peer_of[case] = tool
        if rc != 0:
            failed.append(f"round {r} {case} {tool}: exit {rc}" + (" (time-out)" if rc == 124 else "")
                          + f", {path}.err")
            continue
        try:
            if tool == "fabricbench":
                row = read_fb(path[:-len(".out")] + ".h5")
                m = fb_metrics(kind, row)
                details.setdefault(case, row["_detail"])
            elif tool == "iperf3":
                m = read_iperf3(kind, path)
            else:
                m = read_sockperf(path)
        except (OSError, ValueError, KeyError) as e:
            failed.append(f"round {r} {case} {tool}: unreadable ({e})")
            continue
        for k, v in m.items():
            vals[case][tool][k][r] = v

    cases = list(dict.fromkeys(c for _, c, _, _, _, _ in runs))
    rounds = sorted({r for r, *_ in runs})
    cp = os.path.join(out, "conditions.txt")
    if os.path.exists(cp):
        with open(cp) as f:
            for line in f:
                if line.startswith("udp:"):
                    print("UDP " + line[len("udp:"):].strip() + "\n")
    if not runs:
        print("no runs (PARTS selected nothing that this build can run)")
        return
    print(f"## Summary ({len(rounds)} rounds, fabricbench and peer next to each other in every round, "
          "A B in odd rounds, B A in even ones)")
    print("spread = (max - min) / median over the rounds; ratio = fabricbench median / peer median; "
          "per round = the median (min-max) of the rounds' own ratios; difference = the median of "
          "the rounds' own fabricbench - peer; target: judged on the per-round median")
    print("| case | metric | fabricbench | spread | peer | peer median | spread | ratio | per round | "
          "difference | target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    scan = []
    for case in cases:
        kind, peer = kind_of(case), peer_of.get(case, "?")
        for i, met in enumerate(METRICS[kind]):
            a = vals[case]["fabricbench"].get(met, {})
            b = vals[case][peer].get(met, {})
            av = [v for v in a.values() if np.isfinite(v)]
            bv = [v for v in b.values() if np.isfinite(v)]
            if not av and not bv:
                continue
            am = np.median(av) if av else float("nan")
            bm = np.median(bv) if bv else float("nan")
            ratio = am / bm if av and bv and bm else float("nan")
            paired = [a[r] / b[r] for r in rounds if r in a and r in b and b[r]
                      and np.isfinite(a[r]) and np.isfinite(b[r])]
            per = f"{np.median(paired):.3f} ({min(paired):.3f}-{max(paired):.3f})" if paired else "n/a"
            diffs = [a[r] - b[r] for r in rounds if r in a and r in b
                     and np.isfinite(a[r]) and np.isfinite(b[r])]
            diff = f"{np.median(diffs):+.3g}" if diffs else "n/a"
            tgt = ""
            judged = np.median(paired) if paired else ratio  # the rounds' own ratios first
            if met in TARGET and np.isfinite(judged):
                ok = abs(judged - 1) <= TARGET[met]
                tgt = f"{'met' if ok else '**missed**'} (within {TARGET[met] * 100:.0f}%)"
            if kind == "udp" and met == "loss %" and np.isfinite(ratio):
                tgt = f"medians differ by {am - bm:+.2f} points"
            ratio_s = f"**{ratio:.3f}**" if i == 0 and np.isfinite(ratio) else \
                f"{ratio:.3f}" if np.isfinite(ratio) else "n/a"
            print(f"| {case if i == 0 else ''} | {met} | {fmt(am)} | {pct(spread(av))} | "
                  f"{peer if i == 0 else ''} | {fmt(bm)} | {pct(spread(bv))} | {ratio_s} | {per} | {diff} | {tgt} |")
            if i == 0 and "_w" in case:
                scan.append((case, ratio, paired))

    if scan:
        # the rounds' own ratios (each from two adjacent runs) first: they cancel the drift
        # that the medians of a loaded machine carry
        def off(x):
            return abs(np.median(x[2]) - 1) if x[2] else 9
        best = min(scan, key=off)
        print(f"\n-w closest to iperf3: {best[0]} (median of the rounds' ratios "
              f"{np.median(best[2]):.3f}, ratio of medians {best[1]:.3f}); all: "
              + ", ".join(f"{c.rsplit('_', 1)[1]} {np.median(p):.3f}" for c, _, p in scan if p))

    print("\n## Per round (the headline metric; each case's two runs were adjacent)")
    print("| case | metric | tool | " + " | ".join(f"r{r}" for r in rounds) + " |")
    print("|---|---|---|" + "---|" * len(rounds))
    for case in cases:
        kind, peer = kind_of(case), peer_of.get(case, "?")
        mets = METRICS[kind][:1] + (["p99.9 us"] if kind == "rr" else [])
        for met in mets:
            for tool in ("fabricbench", peer):
                v = vals[case][tool].get(met, {})
                print(f"| {case} | {met} | {tool} | " + " | ".join(fmt(v.get(r)) for r in rounds) + " |")

    if details:
        print("\n## fabricbench's own description of its runs (the first round's)")
        for case, d in details.items():
            print(f"- {case}: {d}")
    lp = os.path.join(out, "load.txt")
    if os.path.exists(lp):
        with open(lp) as f:
            print("\nload average (1 min) at each round's start: "
                  + ", ".join(line.split()[1] for line in f if line.strip()))
    wall = defaultdict(list)
    for r, case, tool, path, rc, s in runs:
        wall["fabricbench" if tool == "fabricbench" else "peers"].append(s)
    print("wall time of all runs: " + ", ".join(f"{k} {sum(v):.0f} s" for k, v in wall.items()))
    if failed:
        print(f"\n## Failed or unreadable runs ({len(failed)})")
        for x in failed:
            print("- " + x)


if __name__ == "__main__":
    main()
