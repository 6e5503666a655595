# SPDX-License-Identifier: BSD-3-Clause
"""fabricbench across nodes of a virtual cluster (tests/lib/vcluster.sh): network and UTS
namespaces joined by two bridged fabrics, fab0 shaped to 1 Gbit/s and fab1 to 250 Mbit/s.
One rank per node, mpirun started inside vnode1 through the cluster's rsh agent.

- latency, bw, msgrate, allreduce, alltoall with --fabric tcp --device fab0, then fab1: ranks
  on distinct hosts, the verified transport is tcp on the requested interface (text and
  result file), that interface's byte counters moved by at least what bw sent and the other
  interface's did not, each device's bw at most its shaping (htb's ceiling) and fab1's at
  least half of its 250 Mb/s (a rate no CPU is short of); fab0/fab1 (4 by the shaping) is
  printed, not asserted: fab0's 1 Gb/s path is CPU-bound on 2 cores, and load slows it; every
  row is sane, line_rate_pct = Gb/s / the veth's line rate;
- allreduce and alltoall on 3 nodes;
- --device nosuch across nodes: exit 3, the message names the host and its interfaces.
- pairs_bw on 4 nodes over fab1 (issue 15): healthy, nobody is named (exit 0); vnode3's link
  shaped to a quarter, vnode3 and nothing else is named as a node (exit 1); only the path
  between vnode1 and vnode2 shaped (a per-destination htb class on each end), that pair and
  no node is named (exit 1); with --switches putting vnode1, vnode2 on sw-a and vnode3, vnode4
  on sw-b and the traffic from sw-a's nodes to sw-b's shaped, the group sw-a and nothing else
  is named (exit 1). The slow share is --slow-bw 0.6, not the default 0.9, so that a
  busy machine's noise between healthy pairs cannot make a suspect; the faults are at 25%.
  The pairs run adaptive (the default; 64 KiB x pairs_bw's window of 8, --pair-time 0.3):
  every pair and direction has at least the floor's 10 timed iterations, and only the pairs
  that stand out are retested (the slow node's 3, the slow path's 1, the group's 4).
  --line-rate 100M stands for the shaping (the veths report 10 Gb/s, which no shaped pair
  reaches), so the line-rate rule is tested too: a healthy pair passes it, a slow one fails.
  It is 40% of the 250 Mb/s shaping, not more: beside two CPU hogs healthy pairs fell to
  22 MB/s (70% of 250 Mb/s), below 90% of 200M; the slow ones run at 7 MB/s, under 90% of
  100M.

Needs root, ip, tc (iproute2), nsenter and unshare (util-linux), the right to create
namespaces (tests/lib/nsprobe.py) and h5py; without them it exits with SKIP (77) and says
why. Everything it creates is
removed at the end, also when it fails.

usage: test_cluster.py FABRICBENCH"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

if len(sys.argv) != 2:
    sys.exit(__doc__)
EXE = os.path.abspath(sys.argv[1])  # before fabtest (imported by clustertest) changes directory
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import clustertest as ct  # noqa: E402
from clustertest import budget, counters, hint, skip, vc  # noqa: E402

ct.require_cluster(extra_tools=("mpirun",))
try:
    import h5py  # noqa: E402 (here, after the checks, so that a skip for another reason needs none)
except ImportError:
    skip("h5py not installed (apt-get install python3-h5py): the test reads the result files "
         "with it")
from fabtest import WORKDIR, check, enter_scratch, parse_tables, text_lines  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

VC_NAME = ct.VC_NAME
RATES = {"fab0": "1gbit", "fab1": "250mbit"}  # ratio 4: faster shaping is CPU-bound on 2 cores
RATE_MBPS = {"fab0": 125.0, "fab1": 31.25}  # the shaping in MB/s (10^6 bytes)
# control traffic (mpirun's out-of-band channel, ARP) allowed on the interface not measured
ALLOWANCE = 256 * 1024
KERNELS = "latency,bw,msgrate,allreduce,alltoall"
SIZES = [8, 65536, 1 << 20, 2 << 20]
BIG = 1 << 20  # the bandwidth ratio is the median over sizes from here up


def mpirun_in_cluster(hosts, args, timeout=150):
    """mpirun inside vnode1, one rank per host, launched through the agent."""
    return ct.mpirun_in_cluster(EXE, hosts, args, timeout)


def attrs(run):
    return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in run.attrs.items()}


def tables(run):
    """{kernel: {column: list}} of a run group."""
    out = {}
    for g in run["kernels"].values():
        t = g["table"]
        out[g.attrs["kernel"]] = {c: list(t[c][()]) for c in t.attrs["columns"].split(",")}
        out[g.attrs["kernel"]]["_window"] = int(g.attrs["window"])
    return out


def finite_pos(values):
    return all(math.isfinite(v) and v > 0 for v in values)


def check_rows(t, where, kernels, sizes):
    for k in kernels:
        check(k in t, "%s: no %s table (%s)" % (where, k, sorted(t)))
        c = t[k]
        got = [int(b) for b in c["bytes"]]
        # (alltoall on 3 ranks rounds a size to whole elements per rank: 8 -> 12)
        check(got == sizes or (k == "alltoall" and len(got) == len(sizes) and all(
            abs(g - w) < 4 * 3 for g, w in zip(got, sizes))), "%s %s: sizes %s, asked %s"
            % (where, k, got, sizes))
        check(finite_pos(c["mean_us"]) and finite_pos(c["p50_us"]),
              "%s %s: times %s" % (where, k, c["mean_us"]))
        check(all(i >= 1 for i in c["iterations"]), "%s %s: iterations" % (where, k))
        if k in ("allreduce", "alltoall"):
            check(finite_pos(c["algbw_GBps"]) and finite_pos(c["busbw_GBps"]),
                  "%s %s: algbw %s busbw %s" % (where, k, c["algbw_GBps"], c["busbw_GBps"]))
        else:
            check(finite_pos(c["MBps"]), "%s %s: MB/s %s" % (where, k, c["MBps"]))
        if k == "msgrate":
            check(finite_pos(c["msgps"]), "%s msgrate: msg/s %s" % (where, c["msgps"]))


def run_fabric(dev, line_rate):
    """One run on fabric interface dev; returns (bw MB/s by size, bytes bw sent)."""
    other = "fab1" if dev == "fab0" else "fab0"
    out = os.path.join(WORKDIR, "%s.h5" % dev)
    before = counters()
    p = mpirun_in_cluster(["vnode1", "vnode2"], [
        "run", KERNELS, "--fabric", "tcp", "--device", dev, "-m", ",".join(map(str, SIZES)),
        "-t", "0.05", "-w", "8", "--min-iters", "3", "-o", out])
    after = counters()
    check(p.returncode == 0, "%s: exit %d\nstdout:\n%s\nstderr:\n%s%s"
          % (dev, p.returncode, p.stdout[-4000:], p.stderr[-4000:], hint(p)))

    # The text: the probe's transports and the verdict are the last header lines.
    tail = text_lines(p.stdout)[-4:]  # '#' lines wrapped at 100 characters joined
    want = "# ucx transports (probe endpoint, after the measurements): tcp/%s[" % dev
    check(any(l.startswith(want) for l in tail), "%s: no %r in the last lines:\n%s"
          % (dev, want, "\n".join(tail)))
    check("# fabric check: match" in tail, "%s: verdict:\n%s" % (dev, "\n".join(tail)))
    check(not re.search(r"tcp/(?!%s\[)" % dev, [l for l in tail if l.startswith(want)][0]),
          "%s: a lane on another interface: %s" % (dev, tail))
    header, ks = parse_tables(p.stdout)
    check(header.get("ranks", "").startswith("2 on 2 hosts: vnode1 (1), vnode2 (1)"),
          "%s: ranks line %r" % (dev, header.get("ranks")))
    check([k["name"] for k in ks] == KERNELS.split(",") and all(
        len(k["rows"]) == len(SIZES) for k in ks), "%s: text tables %s"
        % (dev, [(k["name"], len(k["rows"])) for k in ks]))

    # The result file.
    with h5py.File(out, "r") as f:
        run = f["runs"][f.attrs["latest_run"]]
        a = attrs(run)
        hosts = list(run["hostnames"].asstr()[()])
        t = tables(run)
    check(hosts == ["vnode1", "vnode2"], "%s: hostnames %s" % (dev, hosts))
    check(a["nhosts"] == 2 and a["nranks"] == 2, "%s: nhosts %s" % (dev, a["nhosts"]))
    check(a["status"] == "complete", "%s: status %r" % (dev, a["status"]))
    check(a["fabric"] == "tcp" and a["fabric_device"] == dev,
          "%s: fabric %r device %r" % (dev, a["fabric"], a["fabric_device"]))
    check(a["fabric_check"] == "match", "%s: fabric_check %r (%r)"
          % (dev, a["fabric_check"], a.get("fabric_check_reason")))
    check("tcp/%s" % dev in a["ucx_transports"] and "tcp/%s" % other not in a["ucx_transports"],
          "%s: ucx_transports %r" % (dev, a["ucx_transports"]))
    inv = json.loads(a["inventory_json"])
    check(sorted(inv) == ["vnode1", "vnode2"], "%s: inventory hosts %s" % (dev, sorted(inv)))
    check_rows(t, dev, KERNELS.split(","), SIZES)

    # line_rate_pct = Gb/s (collectives: busbw x 8) / the port's line rate; none for latency.
    if line_rate is None:
        check(math.isnan(a["line_rate_gbps"]), "%s: line rate %r without a known speed"
              % (dev, a["line_rate_gbps"]))
    else:
        check(abs(a["line_rate_gbps"] - line_rate) < 1e-9, "%s: line_rate_gbps %r, inventory %r"
              % (dev, a["line_rate_gbps"], line_rate))
        check(all(math.isnan(x) for x in t["latency"]["line_rate_pct"]),
              "%s: latency has a line_rate_pct %s" % (dev, t["latency"]["line_rate_pct"]))
        for k, c in t.items():
            if k == "latency":
                continue
            gbps = c["Gbps"] if k in ("bw", "msgrate") else [8 * x for x in c["busbw_GBps"]]
            for g, pct in zip(gbps, c["line_rate_pct"]):
                check(abs(pct - 100.0 * g / line_rate) <= 1e-9 * max(1.0, abs(pct)),
                      "%s %s: line_rate_pct %r for %r Gb/s at %r Gb/s" % (dev, k, pct, g,
                                                                           line_rate))

    # Byte counters: what bw sent from vnode1 to vnode2 at least, and nothing on the other.
    bw = t["bw"]
    sent = sum(int(i) * bw["_window"] * int(b) for i, b in zip(bw["iterations"], bw["bytes"]))
    d = {key: after[key] - before[key] for key in after}
    check(d[("vnode1", dev, "tx")] >= sent and d[("vnode2", dev, "rx")] >= sent,
          "%s: bw sent %d bytes, but vnode1 %s tx moved %d, vnode2 %s rx %d"
          % (dev, sent, dev, d[("vnode1", dev, "tx")], dev, d[("vnode2", dev, "rx")]))
    moved = d[("vnode1", dev, "tx")] + d[("vnode1", dev, "rx")]
    for node in ("vnode1", "vnode2"):
        o = d[(node, other, "tx")] + d[(node, other, "rx")]
        check(o < min(ALLOWANCE, moved / 100), "%s run: %s %s moved %d bytes (allowed < %d)"
              % (dev, node, other, o, min(ALLOWANCE, moved // 100)))
    print("  %s: bw sent >= %.1f MB; %s moved %.1f MB on vnode1; %s: %d/%d bytes on "
          "vnode1/vnode2" % (dev, sent / 1e6, dev, moved / 1e6, other,
                             d[("vnode1", other, "tx")] + d[("vnode1", other, "rx")],
                             d[("vnode2", other, "tx")] + d[("vnode2", other, "rx")]))
    return dict(zip((int(b) for b in bw["bytes"]), bw["MBps"])), a["fabric_device"]


def main():
    ct.up(4)
    for f, dev in ((0, "fab0"), (1, "fab1")):
        vc("shape", str(f), RATES[dev])

    # What a node sees: its own interfaces only, veth speeds.
    p = vc("exec", "vnode1", EXE, "inventory", "--json")
    inv = json.loads(p.stdout)
    names = {n["name"]: n for n in inv["net_interfaces"]}
    check(sorted(names) == ["fab0", "fab1", "lo"], "interfaces in vnode1: %s" % sorted(names))
    check(vc("exec", "vnode2", "hostname").stdout.strip() == "vnode2", "hostname of vnode2")
    speed = names["fab0"]["speed_mbps"]
    line_rate = speed / 1000.0 if speed else None
    print("vnode1 inventory: fab0 %s Mb/s, fab1 %s Mb/s" % (speed, names["fab1"]["speed_mbps"]))

    bw = {}
    devices = []
    for dev in ("fab0", "fab1"):
        bw[dev], d = run_fabric(dev, line_rate)
        devices.append(d)
    check(devices == ["fab0", "fab1"], "the result files carry %s" % devices)

    ratios = [bw["fab0"][s] / bw["fab1"][s] for s in SIZES if s >= BIG]
    ratio = statistics.median(ratios)
    print("bw MB/s fab0 %s, fab1 %s; ratio fab0/fab1 %s, median %.2f (shaping 4)"
          % (["%.1f" % bw["fab0"][s] for s in SIZES], ["%.1f" % bw["fab1"][s] for s in SIZES],
             ["%.2f" % r for r in ratios], ratio))
    # htb's ceiling holds whatever the load (TCP's payload is below the shaped wire rate), and
    # the slow link's rate is not CPU-bound; the fast one's is (the ratio is printed above; the
    # device each run used is proven by the byte counters and the transport check)
    for dev in ("fab0", "fab1"):
        check(all(bw[dev][s] <= RATE_MBPS[dev] * 1.05 for s in SIZES if s >= BIG),
              "%s: %s MB/s above its shaping of %g MB/s" % (dev, [bw[dev][s] for s in SIZES],
                                                           RATE_MBPS[dev]))
    check(statistics.median(bw["fab1"][s] for s in SIZES if s >= BIG) >= RATE_MBPS["fab1"] / 2,
          "fab1: %s MB/s, not half of its shaping of %g MB/s" % ([bw["fab1"][s] for s in SIZES],
                                                                RATE_MBPS["fab1"]))

    # Three nodes: collectives.
    out = os.path.join(WORKDIR, "three.h5")
    p = mpirun_in_cluster(["vnode1", "vnode2", "vnode3"], [
        "run", "allreduce,alltoall", "--fabric", "tcp", "--device", "fab0", "-m", "8,65536",
        "-t", "0.05", "-o", out])
    check(p.returncode == 0, "3 nodes: exit %d\n%s\n%s%s"
          % (p.returncode, p.stdout, p.stderr, hint(p)))
    with h5py.File(out, "r") as f:
        run = f["runs"][f.attrs["latest_run"]]
        a = attrs(run)
        hosts = list(run["hostnames"].asstr()[()])
        t = tables(run)
    check(hosts == ["vnode1", "vnode2", "vnode3"], "3 nodes: hostnames %s" % hosts)
    check(a["fabric_check"] == "match" and "tcp/fab0" in a["ucx_transports"],
          "3 nodes: %r %r" % (a["fabric_check"], a["ucx_transports"]))
    check_rows(t, "3 nodes", ["allreduce", "alltoall"], [8, 65536])

    # A device no node has: every node says so, exit 3, nothing measured, nothing hangs.
    p = mpirun_in_cluster(["vnode1", "vnode2"], [
        "run", "latency", "-m", "8", "-o", "none", "--fabric", "tcp", "--device", "nosuch"],
        timeout=60)
    check(p.returncode == 3, "--device nosuch: exit %d, want 3\n%s\n%s"
          % (p.returncode, p.stdout, p.stderr))
    for node in ("vnode1", "vnode2"):
        m = [l for l in p.stderr.splitlines() if l.startswith("[%s] fabricbench: error:" % node)]
        check(m and "no network interface nosuch" in m[0] and
              "network interfaces: fab0 (up, " in m[0] and "fab1 (up, " in m[0] and
              "lo (" in m[0], "--device nosuch: no message from %s listing its interfaces:\n%s"
              % (node, p.stderr))
    check(not any(l.strip() and not l.startswith("#") for l in p.stdout.splitlines()),
          "--device nosuch measured something:\n" + p.stdout)

    pairs_checks()


NODES4 = ["vnode1", "vnode2", "vnode3", "vnode4"]
SLOW_RATE = "60mbit"  # a quarter of fab1's 250mbit


def pairs_run(tag, extra=()):
    """pairs_bw on the 4 nodes over fab1: (exit code, verdict, suspect lines, bw matrix)."""
    out = os.path.join(WORKDIR, "pairs-%s.h5" % tag)
    p = mpirun_in_cluster(NODES4, [
        "run", "pairs_bw", "--fabric", "tcp", "--device", "fab1", "-m", "64K", "--pair-time",
        "0.3", "--slow-bw", "0.6", "--line-rate", "100M", "-o", out] + list(extra))
    check(p.returncode in (0, 1), "pairs %s: exit %d\n%s\n%s%s"
          % (tag, p.returncode, p.stdout, p.stderr, hint(p)))
    with h5py.File(out, "r") as f:
        run = f["runs"][f.attrs["latest_run"]]
        m = run["kernels/00_pairs_bw/matrix"]
        nodes = list(m["nodes"].asstr()[()])
        check(nodes == NODES4, "pairs %s: members %s" % (tag, nodes))
        verdict = m.attrs["verdict"]
        m_policy = m.attrs["policy"]
        suspects = list(m["suspects"].asstr()[()])
        bw = m["bw_MBps"][()]
        it = m["pair_iterations"][()]
        retests = int(m.attrs["retests"])
        slow = m["pair_slow"][()]
    off = [[i != j for j in range(4)] for i in range(4)]
    check(all(it[i][j] >= 10 for i in range(4) for j in range(4) if off[i][j]) and
          m_policy == "adaptive", "pairs %s: a pair below the floor of 10 timed iterations (%s):"
          "\n%s" % (tag, m_policy, it))
    # no fabric-wide suspect here: every pair slow in the schedule stands out and is retested
    # (8 after it when fine alone), every other pair is not
    standing = sum(1 for i in range(4) for j in range(i + 1, 4) if slow[i][j] not in (0, 255))
    check(retests == standing, "pairs %s: %d pairs retested, %d slow in the schedule"
          % (tag, retests, standing))
    print("pairs %s: exit %d, %s, %s; MB/s %s" % (tag, p.returncode, verdict, suspects,
                                                   [["%.1f" % x for x in r] for r in bw]))
    return p.returncode, verdict, suspects


def tc_node(node, *args):
    p = subprocess.run(["tc", "-n", "%s-%s" % (VC_NAME, node)] + list(args),
                       capture_output=True, text=True, timeout=budget(30))
    check(p.returncode == 0, "tc %s in %s: %s" % (" ".join(args), node, p.stderr))


def pairs_checks():
    rc, verdict, suspects = pairs_run("healthy")
    check(rc == 0 and verdict == "healthy" and not suspects, "healthy fabric: exit %d, %s %s"
          % (rc, verdict, suspects))

    vc("shape", "1", SLOW_RATE, "vnode3")
    rc, verdict, suspects = pairs_run("slow-node")
    check(rc == 1 and len(suspects) == 1 and suspects[0].startswith("node: node vnode3 "),
          "vnode3's link at a quarter: exit %d, suspects %s" % (rc, suspects))
    vc("shape", "1", RATES["fab1"], "vnode3")

    # Only the path between vnode1 and vnode2: on each, traffic to the other's fab1 address
    # goes through a slower htb class (the root qdisc is the one `shape` made).
    for a, b in (("vnode1", "vnode2"), ("vnode2", "vnode1")):
        ip = vc("ip", b, "1").stdout.strip()
        tc_node(a, "class", "add", "dev", "fab1", "parent", "1:", "classid", "1:20", "htb",
                "rate", SLOW_RATE, "ceil", SLOW_RATE, "burst", "65536", "cburst", "65536")
        tc_node(a, "filter", "add", "dev", "fab1", "parent", "1:", "protocol", "ip", "prio", "1",
                "u32", "match", "ip", "dst", ip + "/32", "flowid", "1:20")
    rc, verdict, suspects = pairs_run("slow-path")
    check(rc == 1 and len(suspects) == 1 and suspects[0].startswith("pair: ") and
          "vnode1" in suspects[0] and "vnode2" in suspects[0],
          "the path vnode1-vnode2 at a quarter: exit %d, suspects %s" % (rc, suspects))
    vc("shape", "1", RATES["fab1"], "vnode1", "vnode2")

    # A switch's links out: vnode1 and vnode2 on switch sw-a, vnode3 and vnode4 on sw-b
    # (--switches), the traffic from sw-a's nodes to sw-b's at a quarter: the group sw-a.
    switches = os.path.join(WORKDIR, "switches")
    with open(switches, "w") as f:
        f.write("# node switch\nvnode1 sw-a\nvnode2 sw-a\nvnode3 sw-b\nvnode4 sw-b\n")
    os.chmod(switches, 0o644)
    for a in ("vnode1", "vnode2"):
        tc_node(a, "class", "add", "dev", "fab1", "parent", "1:", "classid", "1:20", "htb",
                "rate", SLOW_RATE, "ceil", SLOW_RATE, "burst", "65536", "cburst", "65536")
        for b in ("vnode3", "vnode4"):
            ip = vc("ip", b, "1").stdout.strip()
            tc_node(a, "filter", "add", "dev", "fab1", "parent", "1:", "protocol", "ip", "prio",
                    "1", "u32", "match", "ip", "dst", ip + "/32", "flowid", "1:20")
    rc, verdict, suspects = pairs_run("slow-group", ["--switches", switches])
    check(rc == 1 and len(suspects) == 1 and suspects[0].startswith("group: switch group sw-a "),
          "sw-a's links out at a quarter: exit %d, suspects %s" % (rc, suspects))
    vc("shape", "1", RATES["fab1"], "vnode1", "vnode2")


ct.session(main)
print("ok: 2 nodes on fab0 and fab1, 3 nodes, missing device, pairs verdicts on 4 nodes (%.0f s)"
      % (time.monotonic() - ct.T0))
