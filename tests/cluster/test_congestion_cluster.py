# SPDX-License-Identifier: BSD-3-Clause
"""The congestion kernels (cong_lat, cong_bw) on a two-leaf virtual cluster (issue 33): 4 nodes
(tests/lib/vcluster.sh with VC_LEAVES=2: vnode1, vnode2 on leaf a, vnode3, vnode4 on leaf b,
the leaves joined by one trunk), the trunk and every node's link on fabric 0 shaped to
200 Mbit/s, one rank per node, MPI over TCP on fab0, mpirun inside vnode1 through the agent.
The congestors run the `bw` pattern (pairs from the even to the odd congestor, 8 x 256 KiB in
flight): with the congestors on different leaves it fills the trunk from a to b.

- case A, `--canaries vnode1,vnode3`: the canaries' ring crosses the trunk that the
  congestors (vnode2 -> vnode4) fill: a shared bottleneck;
- case B, `--canaries vnode1,vnode2`: the canaries stay on leaf a, the congestors (vnode3 ->
  vnode4) on leaf b; they share no link, and the congestors' load (200 Mbit/s on their own
  shaped links) costs the machine's CPUs what it costs in case A.

Asserted: both runs' hosts (vnode1..4, what --canaries matches), the split (the canary ranks
are those of the named hosts, the worst canary one of them), the congestors moving data, and
the contrast as ratios, never an absolute figure: case A's cong_lat cif_p99 and cong_bw cif_mean
at least RATIO_MIN times case B's.

Measured (2 shared cores, load about 8, 2026-12-06): see MEASURED below and
tests/cluster/README.md.

Needs root, ip, tc (iproute2), nsenter and unshare (util-linux), mpirun and the right to
create namespaces (tests/lib/nsprobe.py): without them it exits with SKIP (77) and says why.
The cluster is removed at the end, also when the test fails or is interrupted.

usage: test_congestion_cluster.py FABRICBENCH"""
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

if len(sys.argv) != 2:
    sys.exit(__doc__)
EXE = os.path.abspath(sys.argv[1])  # before fabtest (imported by clustertest) changes directory
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import clustertest as ct  # noqa: E402

ct.require_cluster(extra_tools=("mpirun",))
from fabtest import WORKDIR, check, enter_scratch  # noqa: E402

enter_scratch()

NODES = ["vnode1", "vnode2", "vnode3", "vnode4"]  # rank i on NODES[i]
LEAF = {"vnode1": "a", "vnode2": "a", "vnode3": "b", "vnode4": "b"}
TRUNK = "200mbit"  # the shared link
NODE_RATE = "1gbit"  # each node's own link: faster, so the congestors' queue is at the trunk
CASES = (("A", ["vnode1", "vnode3"]), ("B", ["vnode1", "vnode2"]))
# The congestors: bw pairs, 8 x 1 MiB in flight (8 MiB, 0.34 s at 200 Mbit/s, per operation).
# The congestors agree on stopping after every operation (an allreduce between them, behind
# their own data), so the trunk's queue drains at each operation's end: long operations keep
# it full for most of the time (with 8 x 8 KiB the canaries saw almost no queue).
CONGESTOR = ["--congestor", "bw", "-m", "1M", "--fabric", "tcp", "--device", "fab0", "-i", "3"]
# Two runs per case: cong_lat with a long window (200 operations of about 50 us alone span
# several congestor operations), cong_bw with a short one (10 x 1 MiB each way, 42 ms at
# 200 Mbit/s alone).
RUNS = (("cong_lat", "200", "cif_p99"), ("cong_bw", "10", "cif_mean"))
RATIO_MIN = 2.0


def run_case(tag, canaries, kernel, ops):
    """One run of kernel with --canaries: its row (JSON Lines)."""
    path = os.path.join(WORKDIR, "case%s-%s.jsonl" % (tag, kernel))
    args = ["run", kernel] + CONGESTOR + ["--canary-ops", ops, "--canaries", ",".join(canaries),
                                          "-o", "none", "--json", path]
    p = ct.mpirun_in_cluster(EXE, NODES, args, timeout=180)
    where = "case %s %s" % (tag, kernel)
    check(p.returncode == 0, "%s: exit %d\nstdout:\n%s\nstderr:\n%s%s"
          % (where, p.returncode, p.stdout[-4000:], p.stderr[-4000:], ct.hint(p)))
    recs = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            recs.setdefault(r["record"], []).append(r)
    # the hosts the ranks report to MPI (what --canaries matches): the nodes' UTS names
    check(recs["run"][0]["hostnames"] == NODES, "%s: hostnames %s"
          % (where, recs["run"][0]["hostnames"]))
    rows = recs["row"]
    check([(r["kernel"], r["variant"]) for r in rows] == [(kernel, "--congestor bw")],
          "%s: rows %s" % (where, [(r["kernel"], r["variant"]) for r in rows]))
    r = rows[0]
    for key in ("cif_mean", "cif_p99"):
        check(r[key] is not None and math.isfinite(r[key]) and r[key] > 0,
              "%s: %s %r" % (where, key, r[key]))
    canary_ranks = [NODES.index(h) for h in canaries]
    check(r["worst_canary_rank"] in canary_ranks, "%s: worst canary rank %r, canaries %s"
          % (where, r["worst_canary_rank"], canary_ranks))
    # one rank per node: no node holds canaries and congestors (bit 2)
    check(not int(r["cong_warn"]) & 2, "%s: cong_warn %r says a node is shared"
          % (where, r["cong_warn"]))
    check(r["congestor_gbps"] > 0, "%s: congestors moved %r Gb/s" % (where, r["congestor_gbps"]))
    print("  %s: alone p50 %.1f p99 %.1f us, congested p50 %.1f p99 %.1f us, cif_mean %.3f "
          "cif_p99 %.3f, congestors %.4f Gb/s (load %.0f%%), cong_warn %s"
          % (where, r["alone_p50_us"], r["alone_p99_us"], r["congested_p50_us"],
             r["congested_p99_us"], r["cif_mean"], r["cif_p99"], r["congestor_gbps"],
             r["congestor_load_pct"], r["cong_warn"]))
    return r


def main():
    ct.up(4, leaves=2)
    for n in NODES:
        got = ct.vc("leaf", n).stdout.strip()
        check(got == LEAF[n], "%s on leaf %r, expected %s" % (n, got, LEAF[n]))
    ct.vc("shape", "0", NODE_RATE)
    ct.vc("shape-trunk", "0", TRUNK)
    res = {}
    for tag, canaries in CASES:
        if tag == "B":  # every path at the trunk's rate, as the paths through it in case A
            ct.vc("shape", "0", TRUNK)
        for kernel, ops, _ in RUNS:
            res[(tag, kernel)] = run_case(tag, canaries, kernel, ops)
    bad = []
    for kernel, _, key in RUNS:
        a, b = res[("A", kernel)][key], res[("B", kernel)][key]
        print("  %s %s: A %.3f / B %.3f = %.2f (at least %g)" % (kernel, key, a, b, a / b,
                                                                  RATIO_MIN))
        if a < RATIO_MIN * b:
            bad.append("%s %s: case A (shared trunk) %.3f, case B (separate links) %.3f: "
                       "ratio %.2f < %g" % (kernel, key, a, b, a / b, RATIO_MIN))
    check(not bad, "no contrast between a shared trunk and separate links:\n" + "\n".join(bad))


ct.session(main)
print("ok: congestion on two leaves (%.0f s)" % (time.monotonic() - ct.T0))
