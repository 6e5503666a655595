# SPDX-License-Identifier: BSD-3-Clause
"""Result files of pairs kernels with KNOWN matrices, for the tests of `matrix`, the heatmap,
the report's verdict and the pair-by-pair check.

The SHAPE comes from a real file fabricbench wrote during the session (`template`: a run of
pairs_latency,pairs_bw under mpirun -np 4): the root and run attributes, and each pairs kernel's
group with its attributes and its one-row table. The group `matrix` is written here as
src/output/h5matrix.c writes it (the same attribute and dataset names and types), with these
values:

  members     8 nodes on 2 switches: sw1-n01..sw1-n04, sw2-n05..sw2-n08 (switches sw1, sw2)
  pairs_bw    10000 MB/s every pair and direction; line rate 11000 MB/s (line_pct 90.9)
  pairs_lat   2.0 us p50, 3.0 us p99 every pair
  schedule    rounds: 7 rounds of 4 pairs (the circle method), all done

Variants (`spec`): a bad node (every pair with sw2-n06 at 2500 MB/s, 6 us), a bad pair
(sw1-n01 <-> sw1-n03 at 4000 MB/s, 5 us), scaled values (all pairs x f), a killed run (killed
during pairs_bw after 3 of its 7 rounds: pairs of later rounds NaN, no verdict, no table row,
run status running; pairs_latency complete), the retest fields (the bad
pair retested alone at 10000 MB/s / 2.0 us: slow only under load, bit 8), and members renamed
or dropped (for the check by names). The verdict written is what fabricbench's rules give for
these values (a pair below 90% of the median's bandwidth or above 1.5 x its latency is slow;
below 90% of the line rate too): the analysis recomputes it and refuses a file whose verdict
disagrees (matrix_verdict.py). So one pair made slower (pair_scale, for the check pair by
pair) is a run of `--slow-bw 0.5` on a port of unknown line rate, whose verdict stays
healthy, as fabricbench's would.
"""
import math

import h5py
import numpy as np

from known_values import _set, _strings  # one writer of fixture attributes and strings

NODES = ["sw1-n01", "sw1-n02", "sw1-n03", "sw1-n04", "sw2-n05", "sw2-n06", "sw2-n07",
         "sw2-n08"]
SWITCHES = ["sw1", "sw2"]
BW = 10000.0
LINE_MBPS = 11000.0
LAT_P50 = 2.0
LAT_P99 = 3.0  # 1.5 x p50, also for the slow pairs
BAD_NODE = "sw2-n06"
BAD_PAIR = ("sw1-n01", "sw1-n03")
BAD_NODE_BW, BAD_NODE_LAT = 2500.0, 6.0
BAD_PAIR_BW, BAD_PAIR_LAT = 4000.0, 5.0
ROUNDS_DONE_KILLED = 3


def spec(fault=None, scale=1.0, killed=False, retest=False, nodes=None, pair_scale=None):
    """fault: None, 'node' or 'pair'; scale: every value x scale (bandwidth; latency / scale);
    pair_scale: {(a, b): f} one pair's bandwidth x f (latency / f); nodes: the member names
    (default NODES)."""
    return {"fault": fault, "scale": scale, "killed": killed, "retest": retest,
            "nodes": list(nodes or NODES), "pair_scale": dict(pair_scale or {}),
            "slow_bw": 0.5 if pair_scale else 0.9,
            "line_MBps": math.nan if pair_scale else LINE_MBPS}


def rounds(n):
    """The circle method's rounds (n even): round r pairs (i, j) as fabricbench schedules."""
    out = []
    others = list(range(1, n))
    for r in range(n - 1):
        ring = [0] + others[r:] + others[:r]
        out.append([(ring[i], ring[n - 1 - i]) for i in range(n // 2)])
    return out


def values(sp, killed=False):
    """The n x n matrices (bw, line_pct, p50, p99, round), and the set of slow pairs with their
    bits, as the verdict sees them."""
    names = sp["nodes"]
    n = len(names)
    bw = np.full((n, n), BW * sp["scale"])
    p50 = np.full((n, n), LAT_P50 / sp["scale"])
    p99 = np.full((n, n), LAT_P99 / sp["scale"])
    idx = {x: i for i, x in enumerate(names)}
    if sp["fault"] == "node" and BAD_NODE in idx:
        b = idx[BAD_NODE]
        bw[b, :] = bw[:, b] = BAD_NODE_BW * sp["scale"]
        p50[b, :] = p50[:, b] = BAD_NODE_LAT / sp["scale"]
        p99[b, :] = p99[:, b] = 1.5 * BAD_NODE_LAT / sp["scale"]
    if sp["fault"] == "pair":
        a, b = idx[BAD_PAIR[0]], idx[BAD_PAIR[1]]
        bw[a, b] = bw[b, a] = BAD_PAIR_BW * sp["scale"]
        p50[a, b] = p50[b, a] = BAD_PAIR_LAT / sp["scale"]
        p99[a, b] = p99[b, a] = 1.5 * BAD_PAIR_LAT / sp["scale"]
    for (x, y), f in sp["pair_scale"].items():
        a, b = idx[x], idx[y]
        bw[a, b] *= f
        bw[b, a] *= f
        for x in (p50, p99):
            x[a, b] /= f
            x[b, a] /= f
    rnd = np.full((n, n), -1, dtype=np.int32)
    for r, pairs in enumerate(rounds(n)):
        for i, j in pairs:
            rnd[i, j] = rnd[j, i] = r
    done = ROUNDS_DONE_KILLED if killed else n - 1
    unmeasured = (rnd < 0) | (rnd >= done)
    for a in (bw, p50, p99):
        a[unmeasured] = np.nan
    line = 100.0 * bw / sp["line_MBps"]
    return bw, line, p50, p99, rnd, done




def write_matrix(kg, kernel, sp):
    """The group `matrix` of the kernel group kg, as h5matrix.c writes it. A killed run
    (sp['killed']) was killed during pairs_bw: pairs_latency has its verdict."""
    killed = sp["killed"] and kernel == "pairs_bw"
    bw, line, p50, p99, rnd, done = values(sp, killed)
    names = sp["nodes"]
    n = len(names)
    is_bw = kernel == "pairs_bw"
    g = kg.create_group("matrix")
    for a, v in (("schedule", "rounds"), ("pairs_per", "node"),
                 ("bytes", 1048576 if is_bw else 8), ("members", n), ("rounds", n - 1),
                 ("iterations", 20 if is_bw else 1000), ("warmup", 2 if is_bw else 100),
                 ("rounds_done", done)):
        _set(g.attrs, a, v)
    _strings(g, "nodes", names)
    _strings(g, "switches", SWITCHES)
    g.create_dataset("node_switch", data=np.array([SWITCHES.index(x.split("-")[0])
                                                   for x in names], dtype="<i4"))
    if is_bw:
        g.create_dataset("bw_MBps", data=bw)
        g.create_dataset("line_pct", data=line)
    else:
        g.create_dataset("lat_p50_us", data=p50)
        g.create_dataset("lat_p99_us", data=p99)
    g.create_dataset("round", data=rnd)
    if sp["retest"]:
        _set(g.attrs, "retest", "on")
    if killed:
        return
    idx = {x: i for i, x in enumerate(names)}
    slow = np.zeros((n, n), dtype=np.uint8)
    np.fill_diagonal(slow, 255)
    head = bw if is_bw else p50
    off = ~np.eye(n, dtype=bool)
    med = float(np.median(head[off]))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if is_bw and min(bw[i, j], bw[j, i]) < sp["slow_bw"] * med:
                slow[i, j] |= 1
            if is_bw and min(line[i, j], line[j, i]) < 90.0:
                slow[i, j] |= 4
            if not is_bw and p50[i, j] > 1.5 * med:
                slow[i, j] |= 2
    suspects, node_suspect = [], np.full(n, -1, dtype=np.int32)
    if sp["fault"] == "node" and BAD_NODE in idx:
        node_suspect[idx[BAD_NODE]] = 0
        suspects.append("node: node %s (or its link): slow with %d of its %d peers" %
                        (BAD_NODE, n - 1, n - 1))
    elif sp["fault"] == "pair":
        suspects.append("pair: the link or path between %s and %s: slow on its own" %
                        BAD_PAIR)
    if sp["retest"]:
        rv = {k: np.full((n, n), np.nan) for k in ("retest_bw_MBps", "retest_line_pct",
                                                   "retest_lat_p50_us", "retest_lat_p99_us")}
        # Every slow pair retested alone at the healthy values: as pairs/pairs.c judges
        # it, slow in the schedule and ok alone, pair_slow exactly 8, no suspect from it.
        for i, j in zip(*np.nonzero((slow > 0) & (slow < 255))):
            rv["retest_bw_MBps"][i, j] = BW * sp["scale"]
            rv["retest_line_pct"][i, j] = 100.0 * BW * sp["scale"] / LINE_MBPS
            rv["retest_lat_p50_us"][i, j] = LAT_P50 / sp["scale"]
            rv["retest_lat_p99_us"][i, j] = LAT_P99 / sp["scale"]
            slow[i, j] = 8
        if sp["fault"] == "pair":
            suspects = []
        for k in (("retest_bw_MBps", "retest_line_pct") if is_bw else
                  ("retest_lat_p50_us", "retest_lat_p99_us")):
            g.create_dataset(k, data=rv[k])
    npairs = n * (n - 1) // 2
    if sp["retest"]:  # as h5matrix.c: retests known after the schedule, then the verdict's
        retests = int(np.count_nonzero(np.triu(slow == 8, 1)))
        _set(g.attrs, "retests", retests)
        _set(g.attrs, "retested", retests)
        _set(g.attrs, "pairs_load_only", retests)
    _set(g.attrs, "verdict", "suspects" if suspects else "healthy")
    _set(g.attrs, "bw_median_MBps", med if is_bw else math.nan)
    _set(g.attrs, "lat_median_us", med if not is_bw else math.nan)
    _set(g.attrs, "pairs_measured", npairs)
    _set(g.attrs, "pairs_slow", int(np.count_nonzero(np.triu(slow, 1) & 7)))
    _set(g.attrs, "slow_bw_share", sp["slow_bw"])
    _set(g.attrs, "slow_latency_factor", 1.5)
    _set(g.attrs, "line_rate_MBps", sp["line_MBps"])
    g.create_dataset("pair_slow", data=slow)
    g.create_dataset("node_suspect", data=node_suspect)
    _strings(g, "suspects", suspects)


def write_pairs(path, template, sp, runs=1):
    """A result file at `path` shaped like the real pairs file `template`, with the known
    matrices of `sp` in its pairs_latency and pairs_bw kernels, in `runs` identical runs
    (run_0000, ...). Returns path."""
    with h5py.File(template, "r") as src, h5py.File(path, "w") as dst:
        for a in ("schema", "schema_version"):
            dst.attrs[a] = src.attrs[a]
        for r in range(runs):
            _write_run(dst.create_group("runs/run_%04d" % r), src["runs/run_0000"], sp)
        _set(dst.attrs, "latest_run", "run_%04d" % (runs - 1))
    return path


def _write_run(g, tr, sp):
    for a, v in tr.attrs.items():
        g.attrs[a] = v
    _strings(g, "hostnames", sp["nodes"])
    _set(g.attrs, "nranks", len(sp["nodes"]))
    _set(g.attrs, "nhosts", len(sp["nodes"]))
    suspects = sp["fault"] is not None and not sp["killed"] and \
        not (sp["retest"] and sp["fault"] == "pair")  # retested: ok alone
    _set(g.attrs, "status", "running" if sp["killed"] else
         "complete, suspects named" if suspects else "complete")
    ks = g.create_group("kernels")
    for kid in sorted(tr["kernels"]):
        tk = tr["kernels"][kid]
        kernel = tk.attrs["kernel"]
        kg = ks.create_group(kid)
        for a, v in tk.attrs.items():
            kg.attrs[a] = v
        killed = sp["killed"] and kernel == "pairs_bw"
        _set(kg.attrs, "status", "running" if killed else
             "complete, suspects named" if suspects else "complete")
        tk.copy("table", kg)
        if killed:  # its row is written when the kernel ends: none yet
            for ds in kg["table"].values():
                ds.resize((0,))
            _set(kg.attrs, "rows", 0)
        write_matrix(kg, kernel, sp)
