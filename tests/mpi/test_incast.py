# SPDX-License-Identifier: BSD-3-Clause
"""tcp_stream --pattern incast on loopback (issue 33 item 3) and the fabric counters of a live
row (item 4), read back with h5py; shapes, definitions and exit codes, never a speed:

- 3 ranks (1 receiver, 2 senders x 2 streams), --validate: no bad byte, incast_senders 2, the
  two senders' shares of the window in which both sent add up to 100% of it
  (incast_share_min_pct + incast_share_max_pct, from incast_min/max/first_bytes), fairness
  = min / max, the aggregate follows its definition (msg/s = senders x streams x window / loop
  time, pair_MBps = MBps / streams), tcp_retrans counted;
- 4 ranks (1 receiver, 3 senders): min <= 100/3 <= max, min + max <= 100; 4 ranks with
  --receivers 2 (2 senders each way round robin... 2 receivers, one sender each);
- the fabric columns of every row: fabric_ports >= 0, each fabric_* count NaN (no port with
  it) or >= 0, fabric_signals "" or words of the list, netrx_top_cpu_pct in [0, 100] or NaN
  with netrx_top_cpu -1 then;
- counters that grow (FABRICBENCH_TEST_FABRIC=A,B: the recorded mlx5 RoCE tree, then a copy
  with 5 more symbol errors, 300 more pause frames and 7 more CNPs): a latency row holds those
  growths (one node), fabric_signals "pause,cnp,errors", fabric_error_port HOST:mlx5_0/1, the
  kernel's end warns naming the port; a pairs kernel's verdict names it (text and HDF5);
- bw --pattern incast (MPI, every sender's window at once into one receiver): 3 ranks
  --validate (no bad byte, 2 senders, shares add to 100%, the first sender's whole part in
  the window, msg/s = senders x window / loop time, pair_MBps = MBps / senders, the TCP
  columns NaN, the receiver's CPU = 100 x incast_recv_cpu_s / timed seconds), 4 ranks (3
  senders: min <= 100/3 <= max) and --receivers 2 (one sender each); a bw pair's rows carry
  no incast value;
- refused with exit 2 and the reason: --receivers 3 on 3 ranks (no sender), --pattern
  pairs on 3 ranks, 8 senders x 17 streams into one receiver (over 128), --pattern bogus;
  --receivers without --pattern incast (tcp_stream and bw), bw's receivers without senders.

usage: test_incast.py FABRICBENCH"""
import math
import os
import shutil
import socket
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import fabtest  # noqa: E402
from fabtest import check, enter_scratch, mpirun, parse_tables  # noqa: E402

enter_scratch()
exe = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="fab_incast_")
SIGNALS = {"pause", "cnp", "ecn", "seq", "errors"}


def run(np, args, rc=0, env=None):
    p = mpirun(np, [exe, "run"] + args, env=env)
    check(p.returncode == rc, "%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
          % (" ".join(args), p.returncode, rc, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def table(path):
    with h5py.File(path, "r") as f:
        (g,) = f["runs"]["run_0000"]["kernels"].values()
        t = g["table"]
        return {c: t[c][:] for c in t.attrs["columns"].split(",")}


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def fabric_columns(t, what):
    for i in range(len(t["bytes"])):
        check(t["fabric_ports"][i] >= 0, "%s fabric_ports %r" % (what, t["fabric_ports"]))
        for c in ("fabric_pause_frames", "fabric_cnp", "fabric_ecn_marked", "fabric_xmit_wait",
                  "fabric_seq_err", "fabric_port_errors"):
            v = t[c][i]
            check(math.isnan(v) or v >= 0, "%s %s %r" % (what, c, v))
            if t["fabric_ports"][i] == 0:
                check(math.isnan(v), "%s: %s %r without a port" % (what, c, v))
        sig = t["fabric_signals"][i]
        sig = sig.decode() if isinstance(sig, bytes) else str(sig)
        check(sig == "" or set(sig.split(",")) <= SIGNALS, "%s fabric_signals %r" % (what, sig))
        pct, cpu = t["netrx_top_cpu_pct"][i], t["netrx_top_cpu"][i]
        check((math.isnan(pct) and cpu == -1) or (0 < pct <= 100 and cpu >= 0),
              "%s netrx %r on CPU %r" % (what, pct, cpu))


try:
    # ---- 1 receiver, 2 senders x 2 streams
    path = os.path.join(tmp, "i3.h5")
    p = run(3, ["tcp_stream", "--pattern", "incast", "--streams", "2", "-m", "64K,256K", "-i",
                "30", "-w", "8", "--validate", "-o", path])
    check("incast: 2 sender(s) into 1 receiver(s)" in p.stdout, p.stdout[-3000:])
    _, ks = parse_tables(p.stdout)
    check(len(ks) == 1 and len(ks[0]["rows"]) == 2, repr(ks))
    t = table(path)
    for i in range(2):
        lo, hi = t["incast_share_min_pct"][i], t["incast_share_max_pct"][i]
        check(t["validation_errors"][i] == 0, repr(t["validation_errors"]))
        check(t["incast_senders"][i] == 2, repr(t["incast_senders"]))
        check(0 <= lo <= 50 <= hi <= 100, "shares %r %r" % (lo, hi))
        check(abs(lo + hi - 100.0) < 1e-6, "two senders' shares add to %r%%" % (lo + hi))
        check(close(lo, 100 * t["incast_min_bytes"][i] / t["incast_first_bytes"][i]), "min")
        check(close(t["incast_fairness"][i], lo / hi), repr(t["incast_fairness"]))
        # every iteration's window holds at least one sender's whole part, at most all of it
        part = t["bytes"][i] * 2 * 8 * t["iterations"][i]
        check(part <= t["incast_first_bytes"][i] <= 2 * part,
              "first %r, one sender's part %r" % (t["incast_first_bytes"][i], part))
        check(close(t["msgps"][i], 2 * 2 * 8 / (t["loop_us"][i] * 1e-6), 1e-3), repr(t["msgps"]))
        check(close(t["pair_MBps"][i] * 4, t["MBps"][i]), repr((t["pair_MBps"], t["MBps"])))
        check(t["tcp_retrans"][i] >= 0, repr(t["tcp_retrans"]))
    fabric_columns(t, "incast np3")
    print("ok incast 1 <- 2 x 2 streams: validated, shares %.1f%% + %.1f%% = 100%%, fairness "
          "%.2f, fabric columns shaped" % (t["incast_share_min_pct"][0],
                                           t["incast_share_max_pct"][0], t["incast_fairness"][0]))

    # ---- 1 receiver, 3 senders; 2 receivers, 1 sender each
    path = os.path.join(tmp, "i4.h5")
    run(4, ["tcp_stream", "--pattern", "incast", "-m", "128K", "-i", "20", "-w", "4", "-o", path])
    t = table(path)
    lo, hi = t["incast_share_min_pct"][0], t["incast_share_max_pct"][0]
    check(t["incast_senders"][0] == 3 and lo <= 100 / 3 <= hi and lo + hi <= 100 + 1e-6,
          repr((t["incast_senders"][0], lo, hi)))
    path = os.path.join(tmp, "i4r2.h5")
    p = run(4, ["tcp_stream", "--pattern", "incast", "--receivers", "2", "-m", "128K", "-i",
                "20", "-o", path])
    check("incast: 2 sender(s) into 2 receiver(s)" in p.stdout, p.stdout[-2000:])
    t = table(path)
    check(t["incast_senders"][0] == 1 and t["incast_share_min_pct"][0] == 100, repr(t))
    print("ok incast 1 <- 3 (min %.1f%% <= 33.3%% <= max %.1f%%), 2 <- 2" % (lo, hi))

    # ---- bw --pattern incast: MPI, every sender's window at once into one receiver
    path = os.path.join(tmp, "bw3.h5")
    p = run(3, ["bw", "--pattern", "incast", "-m", "4K,64K", "-i", "30", "-w", "8",
                "--validate", "-o", path])
    check("incast: 2 sender(s) into 1 receiver(s)" in p.stdout, p.stdout[-3000:])
    t = table(path)
    for i in range(2):
        lo, hi = t["incast_share_min_pct"][i], t["incast_share_max_pct"][i]
        check(t["validation_errors"][i] == 0, repr(t["validation_errors"]))
        check(t["incast_senders"][i] == 2, repr(t["incast_senders"]))
        check(0 <= lo <= 50 <= hi <= 100 and abs(lo + hi - 100.0) < 1e-6,
              "bw shares %r %r" % (lo, hi))
        check(close(t["incast_fairness"][i], lo / hi), repr(t["incast_fairness"]))
        part = t["bytes"][i] * 8 * t["iterations"][i]  # one sender's messages, whole
        check(part <= t["incast_first_bytes"][i] <= 2 * part,
              "bw first %r, one sender's part %r" % (t["incast_first_bytes"][i], part))
        check(t["incast_min_bytes"][i] % t["bytes"][i] == 0, "bw: shares in whole messages")
        check(close(t["msgps"][i], 2 * 8 / (t["loop_us"][i] * 1e-6), 1e-3), repr(t["msgps"]))
        check(close(t["pair_MBps"][i] * 2, t["MBps"][i]), repr((t["pair_MBps"], t["MBps"])))
        check(math.isnan(t["tcp_retrans"][i]) and math.isnan(t["streams"][i]), "bw: TCP NaN")
        cpu, secs = t["incast_recv_cpu_pct"][i], t["iterations"][i] * t["loop_us"][i] * 1e-6
        check(t["incast_recv_cpu_s"][i] >= 0 and
              close(cpu, 100 * t["incast_recv_cpu_s"][i] / secs, 1e-3),
              "bw receiver CPU %r%% of %r s over %r s" % (cpu, t["incast_recv_cpu_s"][i], secs))
        node = t["incast_recv_node_pct"][i]
        check(math.isnan(node) or 0 <= node <= 100 + 1e-6, "bw receiver node %r%%" % node)
    print("ok bw incast 1 <- 2: validated, shares %.1f%% + %.1f%%, fairness %.2f, receiver "
          "CPU %.0f%%" % (t["incast_share_min_pct"][1], t["incast_share_max_pct"][1],
                          t["incast_fairness"][1], t["incast_recv_cpu_pct"][1]))
    path = os.path.join(tmp, "bw4.h5")
    run(4, ["bw", "--pattern", "incast", "-m", "16K", "-i", "20", "-w", "4", "-o", path])
    t = table(path)
    lo, hi = t["incast_share_min_pct"][0], t["incast_share_max_pct"][0]
    check(t["incast_senders"][0] == 3 and lo <= 100 / 3 <= hi and lo + hi <= 100 + 1e-6,
          repr((t["incast_senders"][0], lo, hi)))
    path = os.path.join(tmp, "bw4r2.h5")
    p = run(4, ["bw", "--pattern", "incast", "--receivers", "2", "-m", "16K", "-i", "20", "-o",
                path])
    check("incast: 2 sender(s) into 2 receiver(s)" in p.stdout, p.stdout[-2000:])
    t = table(path)
    check(t["incast_senders"][0] == 1 and t["incast_share_min_pct"][0] == 100, repr(t))
    path = os.path.join(tmp, "bwpair.h5")
    run(2, ["bw", "-m", "16K", "-i", "20", "-o", path])
    t = table(path)
    check(all(math.isnan(t[c][0]) for c in t if c.startswith("incast_")), "bw pair: incast NaN")
    print("ok bw incast 1 <- 3 (min %.1f%% <= 33.3%% <= max %.1f%%), 2 <- 2; a pair: NaN"
          % (lo, hi))

    # ---- pairs rows carry no incast values; fabric columns there too
    path = os.path.join(tmp, "pairs.h5")
    run(2, ["tcp_stream", "-m", "64K", "-i", "20", "-o", path])
    t = table(path)
    check(math.isnan(t["incast_senders"][0]) and math.isnan(t["incast_fairness"][0]), repr(t))
    fabric_columns(t, "pairs")
    print("ok pairs: incast columns NaN")

    # ---- counters that grow: recorded tree A, then B with more errors, pauses and CNPs
    golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "sysfs")
    a = os.path.join(golden, "cx6dx-roce")
    b = os.path.join(tmp, "grown")
    shutil.copytree(a, b, symlinks=True)
    port = os.path.join(os.path.realpath(os.path.join(b, "sys/class/infiniband/mlx5_0")),
                        "ports", "1")
    for rel, more in (("counters/symbol_error", 5), ("hw_counters/np_cnp_sent", 7)):
        with open(os.path.join(port, rel)) as f:
            v = int(f.read())
        with open(os.path.join(port, rel), "w") as f:
            f.write("%d\n" % (v + more))
    eth = os.path.join(b, "ethtool", "ens1f0")
    with open(eth) as f:
        text = f.read().replace("rx_pause_ctrl_phy: 1200", "rx_pause_ctrl_phy: 1500")
    with open(eth, "w") as f:
        f.write(text)
    env = {"FABRICBENCH_TEST_FABRIC": "%s,%s" % (a, b)}
    path = os.path.join(tmp, "grown.h5")
    p = run(2, ["latency", "-m", "8", "-i", "200", "-o", path], env=env)
    t = table(path)
    host = socket.gethostname()
    sig = t["fabric_signals"][0]
    sig = sig.decode() if isinstance(sig, bytes) else str(sig)
    ep = t["fabric_error_port"][0]
    ep = ep.decode() if isinstance(ep, bytes) else str(ep)
    check(t["fabric_ports"][0] == 2, repr(t["fabric_ports"]))
    check(t["fabric_port_errors"][0] == 5 and t["fabric_pause_frames"][0] == 300 and
          t["fabric_cnp"][0] == 7, repr((t["fabric_port_errors"], t["fabric_pause_frames"],
                                         t["fabric_cnp"])))
    check(t["fabric_ecn_marked"][0] == 0 and t["fabric_seq_err"][0] == 0, "no growth: 0")
    check(sig == "pause,cnp,errors", repr(sig))
    check(ep == host + ":mlx5_0/1", repr(ep))
    check("the fabric's counters grew" in p.stderr and host + ":mlx5_0/1" in p.stderr,
          p.stderr[-2000:])
    print("ok growing counters: row %s, port %s, warned" % (sig, ep))
    path = os.path.join(tmp, "pairs_grown.h5")
    # a loose latency rule: this busy machine makes pairs slow by chance; the port is the point
    p = run(3, ["pairs_latency", "--pairs-per", "rank", "-i", "100", "--slow-latency", "1000",
                "-o", path], env=env)
    check("errors grew on port %s:mlx5_0/1" % host in p.stdout, p.stdout[-2000:])
    with h5py.File(path, "r") as f:
        (g,) = f["runs"]["run_0000"]["kernels"].values()
        attrs = {k: v for grp in g.values() if isinstance(grp, h5py.Group)
                 for k, v in grp.attrs.items()}
        attrs.update(g.attrs)
    v = attrs.get("fabric_error_port", b"")
    v = v.decode() if isinstance(v, bytes) else str(v)
    check(v == host + ":mlx5_0/1", repr(v))
    print("ok pairs verdict names the port: %s" % v)

    # ---- refused: exit 2, the reason named
    bad = [
        (3, ["--pattern", "incast", "--receivers", "3"], "leave 0 sender(s) for 3"),
        (4, ["--pattern", "incast", "--receivers", "3"], "leave 1 sender(s) for 3"),
        (3, ["--pattern", "pairs"], "even number of ranks"),
        (9, ["--pattern", "incast", "--streams", "17"], "more than 128"),
        (2, ["--pattern", "bogus"], "--pattern"),
        (2, ["--receivers", "1"], "--receivers 1 applies to --pattern incast only"),
    ]
    bad = [(np, ["tcp_stream"] + args, want) for np, args, want in bad] + [
        (2, ["bw", "--receivers", "2"], "--receivers 2 applies to --pattern incast only"),
        (3, ["bw", "--pattern", "incast", "--receivers", "2"], "leave 1 sender(s) for 2"),
        (3, ["bw", "--pattern", "incast", "--receivers", "3"], "leave 0 sender(s) for 3"),
    ]
    for np, args, want in bad:
        p = run(np, args + ["-m", "1K", "-i", "5", "-o", "none"], rc=2)
        check(want in p.stderr, "%s: no %r in\n%s" % (args, want, p.stderr[-2000:]))
    print("ok bad input: %d cases refused with exit 2" % len(bad))
finally:
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
