# SPDX-License-Identifier: BSD-3-Clause
"""The layer ladder across two nodes (issue 31) and the group split across four (issue 32), on
a virtual cluster (tests/lib/vcluster.sh, tests/lib/clustertest.py). Never a speed: the
checks are on definitions, marks and names.

A. `run ladder -m 8,64K -i 20 --fabric tcp --device fab0`, rank 0 on vnode1, rank 1 on vnode2:
   sockets, UCP (UCX over tcp/fab0) and MPI (pml ucx over tcp/fab0, windows by osc ucx, named
   with `mpirun --mca osc ucx`: Debian's openmpi-mca-params.conf excludes it, and no other
   component here makes a window across nodes). Checked: the ladder printed under the tables
   (a line per size and layer) and stored as the run attribute `ladder` (h5py), its layers in
   the order and with the kernels and comparisons output/ladder.c defines, each row's latency
   the stored p50_us of its latency kernel, positive and finite, bandwidth likewise, the basis
   (half, whole, whole*) what the two layers' times are; the UCX transports tcp/fab0 only.
   The one-sided rows (issue 31: osc ucx over TCP published 0.09 us against 8.7 us two-sided):
   the pair is judged across nodes (floor_us = 0.25 x twosided_lat_us), and each put_lat /
   get_lat row, and the ladder's mpi_put / mpi_get row, is either marked (quality invalid,
   implausible 1) or at least the floor. Then a fake-fast one-sided component
   (FABRICBENCH_TEST_RMA_NOOP=1: no operation, no synchronisation) across the nodes: every row
   must be marked implausible, none accepted.
B. `--split` on 4 nodes x 2 ranks (block placement: ranks 2i-2, 2i-1 on vnodeI). Rail r is
   local rank r on every node, over a fabric of its own as in a rail-optimised cluster: a
   launcher sets UCX_NET_DEVICES=fab<local rank> (pml ucx over tcp between nodes, shared memory
   inside one; a rank of rail 0 reaches one of rail 1 through the nodes' routes, which only the
   hand-offs to rank 0 need). vnode3's fab1 is shaped to 100 Mbit/s (`vcluster.sh shape 1
   100mbit vnode3`, htb on both ends): `run allreduce --split rail -m 1M -i 10`: two rows,
   rail=0 with ranks 0,2,4,6 and rail=1 with 1,3,5,7; the shaped link moved at least 10 MiB
   each way (rail 1 crossed it); the slow group, by the rows' mean_us and by
   fabricbench-analyze summary's "slowest rail=1 [1,3,5,7]", is rail=1, whose members include
   vnode3's rank on the shaped link. Then `--split node -m 8 -i 5`: four groups node=vnode1..4,
   members 0,1 .. 6,7 (on one host a node split is refused, so only a cluster shows it; a
   node's group talks inside the node, so no shaping can slow it).

Measured (2 shared cores, load 11, 2026-12-07): osc ucx over tcp put_lat 27 to 89 us and
get_lat 27 to 34 us at 8 B against floors of 1.5 to 8.1 us (a quarter of two-sided 6.2 to 32.6
us: the load); the noop component 0.010 us, marked; rail=1 0.24 to 0.26 s, rail=0 0.027 to
0.062 s per 1 MiB allreduce. 19 to 23 s.

Needs root, ip, tc, nsenter, unshare, mpirun, h5py and the right to create namespaces: without
them it exits with SKIP (77). The cluster is removed at the end, also on a failure
(clustertest.session).

usage: test_layers_cluster.py FABRICBENCH"""
import json
import math
import os
import re
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

if len(sys.argv) != 2:
    sys.exit(__doc__)
EXE = os.path.abspath(sys.argv[1])  # before fabtest (imported by clustertest) changes directory
ANALYSIS = os.path.abspath(os.path.join(HERE, "..", "..", "analysis"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import clustertest as ct  # noqa: E402

ct.require_cluster(extra_tools=("mpirun",))
try:
    import h5py  # noqa: E402
except ImportError:
    ct.skip("h5py not installed (apt-get install python3-h5py): the test reads the result files")
from fabtest import WORKDIR, check, enter_scratch, expect, h5_kernels, text_lines  # noqa: E402

enter_scratch()

# The ladder as output/ladder.c defines it: layer -> (latency kernel, bandwidth kernel, the
# layer it is compared with), in its order; which latency kernels are half round trips.
LAYERS = {"socket": ("tcp_rr", "tcp_stream", None),
          "ucp_tag": ("ucp_tag_lat", "ucp_tag_bw", "socket"),
          "ucp_put": ("ucp_put_lat", "ucp_put_bw", "socket"),
          "ucp_get": ("ucp_get_lat", None, "socket"),
          "mpi": ("latency", "bw", "ucp_tag"),
          "mpi_put": ("put_lat", "put_bw", "mpi"),
          "mpi_get": ("get_lat", None, "mpi")}
HALVED = {"tcp_rr", "latency", "ucp_tag_lat", "ucp_put_lat"}
ONESIDED = {"mpi_put": "put_lat", "mpi_get": "get_lat"}
FLOOR_REMOTE = 0.25  # FAB_RMA_FLOOR_REMOTE (src/rma/rma_int.h): the floor across nodes
LADDER_SIZES = [8, 65536]
PAIR = ["vnode1", "vnode2"]
NET = ["--fabric", "tcp", "--device", "fab0"]
# The one-sided layer over TCP: osc ucx (issue 31's case). Debian's openmpi-mca-params.conf
# excludes it (osc = ^ucx,pt2pt), which leaves no component that makes a window across nodes.
OSC = ["--mca", "osc", "ucx"]

NODES4 = ["vnode1", "vnode2", "vnode3", "vnode4"]
SHAPED_NODE, SHAPED_FAB, SHAPED_RATE = "vnode3", "1", "100mbit"
SPLIT_SIZE = 1 << 20
SPLIT_ITERS = 10  # FAB_FLOOR_SAMPLES: fewer make the rows invalid


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def num(v):
    return math.nan if v is None else float(v)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def finite_pos(v):
    return v is not None and math.isfinite(float(v)) and float(v) > 0


def run_ok(where, hosts, args, np=None, mpirun_args=(), timeout=150):
    p = ct.mpirun_in_cluster(EXE, hosts, args, timeout=timeout, np=np, mpirun_args=mpirun_args)
    check(p.returncode == 0, "%s: exit %d\nstdout:\n%s\nstderr:\n%s%s"
          % (where, p.returncode, p.stdout[-4000:], p.stderr[-4000:], ct.hint(p)))
    return p


def run_file(path):
    """(attributes, hostnames) of the file's latest run."""
    with h5py.File(path, "r") as f:
        run = f["runs"][text(f.attrs["latest_run"])]
        a = {k: (text(v) if isinstance(v, bytes) else v) for k, v in run.attrs.items()}
        return a, list(run["hostnames"].asstr()[()])


def onesided_rows(where, ks, kernel, sizes):
    """Each row of a one-sided latency kernel judged across nodes; returns [(bytes, p50_us,
    floor_us, twosided_lat_us, quality, implausible)]."""
    _, t = ks[kernel]
    out = []
    check([int(b) for b in t["bytes"]] == sizes, "%s %s: sizes %s" % (where, kernel,
                                                                      list(t["bytes"])))
    for i, b in enumerate(t["bytes"]):
        two, floor = float(t["twosided_lat_us"][i]), float(t["floor_us"][i])
        p50, q = float(t["p50_us"][i]), text(t["quality"][i])
        imp, remote = float(t["implausible"][i]), float(t["includes_remote_completion"][i])
        w = "%s %s at %d B" % (where, kernel, int(b))
        check(finite_pos(two), "%s: twosided_lat_us %r" % (w, two))
        # across nodes: the floor is a quarter of the two-sided half round trip (a pair judged
        # as on one node would let a fake-fast number through at 0.005 x)
        check(abs(floor - FLOOR_REMOTE * two) <= 1e-6 * two,
              "%s: floor_us %r is not %g x twosided_lat_us %r: the pair was not judged as "
              "across nodes" % (w, floor, FLOOR_REMOTE, two))
        check(remote == 1, "%s: includes_remote_completion %r" % (w, remote))
        marked = q == "invalid" and imp == 1
        check(imp in (0, 1) and (imp == 0 or q == "invalid"),
              "%s: implausible %r with quality %r" % (w, imp, q))
        out.append((int(b), p50, floor, two, q, marked))
    return out


def ladder_part():
    path = os.path.join(WORKDIR, "ladder.h5")
    p = run_ok("run ladder", PAIR, ["run", "ladder", "-m", ",".join(map(str, LADDER_SIZES)),
                                    "-i", "20", "-o", path] + NET, mpirun_args=OSC,
                timeout=240)
    out = p.stdout
    a, hosts = run_file(path)
    check(hosts == PAIR, "ladder: hostnames %s" % hosts)
    # the wire: UCX over tcp on fab0 only (the probe's endpoint and the run's attribute)
    check("tcp/fab0" in a.get("ucx_transports", "") and "fab1" not in a["ucx_transports"],
          "ladder: ucx_transports %r" % a.get("ucx_transports"))
    lad = json.loads(a["ladder"])
    got = [(g["layer"], g["latency_kernel"], g["bandwidth_kernel"], g["vs"])
           for g in lad["layers"]]
    check(got == [(k,) + v for k, v in LAYERS.items()],
          "ladder layers %s, want %s" % (got, list(LAYERS.items())))
    ks = h5_kernels(path)
    want_k = {k for lat, bw, _ in LAYERS.values() for k in (lat, bw) if k}
    check(set(ks) == want_k, "ladder kernels %s, want %s" % (sorted(ks), sorted(want_k)))
    rows = {(r["bytes"], r["layer"]): r for r in lad["rows"]}
    check(len(rows) == len(lad["rows"]) == len(LADDER_SIZES) * len(LAYERS)
          and [(r["bytes"], r["layer"]) for r in lad["rows"]]
          == [(b, g) for b in LADDER_SIZES for g in LAYERS],
          "ladder rows %s: want each size's layers in the ladder's order"
          % [(r["bytes"], r["layer"]) for r in lad["rows"]])
    # the table printed under the kernels' tables: its heading, then one line per size and layer
    lines = text_lines(out)
    check(any(l.startswith("# ladder:") for l in lines), "no ladder table:\n" + out[-3000:])
    printed = [l.split() for l in lines[[i for i, l in enumerate(lines)
                                         if l.startswith("# ladder:")][0]:]
               if l.startswith("  ") and len(l.split()) >= 9]
    check([(int(f[0]), f[1]) for f in printed] == list(rows),
          "printed ladder lines %s" % [f[:2] for f in printed])

    def stored(kernel, col, size):
        t = ks[kernel][1]
        return float(t[col][[int(b) for b in t["bytes"]].index(size)])

    for (size, layer), r in rows.items():
        lat_k, bw_k, vs = LAYERS[layer]
        w = "ladder %s at %d B" % (layer, size)
        expect(finite_pos(r["lat_us"]), "%s: latency %r" % (w, r["lat_us"]))
        expect(close(num(r["lat_us"]), stored(lat_k, "p50_us", size)),
               "%s: lat_us %r, %s's p50_us %r" % (w, r["lat_us"], lat_k,
                                                  stored(lat_k, "p50_us", size)))
        expect(r["halved"] == (1 if lat_k in HALVED else 0), "%s: halved %r" % (w, r["halved"]))
        if bw_k:
            expect(finite_pos(r["MBps"]) and close(num(r["MBps"]), stored(bw_k, "MBps", size)),
                   "%s: MBps %r, %s's %r" % (w, r["MBps"], bw_k, stored(bw_k, "MBps", size)))
        if vs is None:
            expect(r["basis"] == "-" and r["adds_us"] is None, "%s: compared with %r"
                   % (w, r["basis"]))
            continue
        ref = rows[(size, vs)]
        basis = (("half" if r["halved"] else "whole") if r["halved"] == ref["halved"]
                 else "whole*")
        expect(r["basis"] == basis, "%s: basis %r, want %s" % (w, r["basis"], basis))
        expect(abs(num(r["adds_us"]) - (num(r["cmp_us"]) - num(r["vs_cmp_us"])))
               <= 1e-9 * max(1.0, abs(num(r["cmp_us"]))), "%s: adds_us %r" % (w, r["adds_us"]))
        print("  %s: %.3f us (%s), MB/s %s, %+.3f us against %s (%s), quality %s"
              % (w, num(r["lat_us"]), "half" if r["halved"] else "whole", r["MBps"],
                 num(r["adds_us"]), vs, r["basis"], r["lat_quality"]))

    # The one-sided layer across nodes: marked, or at least the wire's floor; never a number
    # below it published as a latency.
    comp = text(ks["put_lat"][0].get("detail", ""))
    print("  one-sided: %s" % comp)
    for layer, kernel in ONESIDED.items():
        for size, p50, floor, two, q, marked in onesided_rows("ladder", ks, kernel,
                                                              LADDER_SIZES):
            r = rows[(size, layer)]
            print("  %s at %d B: p50 %.3f us, floor %.3f us (two-sided %.3f us), quality %s%s"
                  % (kernel, size, p50, floor, two, q, ", IMPLAUSIBLE" if marked else ""))
            check(marked or p50 >= floor,
                  "%s at %d B: %.3f us below the floor %.3f us (two-sided %.3f us) and not "
                  "marked (quality %s): a one-sided latency faster than the wire allows was "
                  "published" % (kernel, size, p50, floor, two, q))
            check(r["lat_quality"] == q, "ladder %s at %d B: quality %r, the row's %r"
                  % (layer, size, r["lat_quality"], q))
            check(r["lat_quality"] == "invalid" or num(r["lat_us"]) >= floor,
                  "ladder %s at %d B: %r us below the floor %.3f us, quality %r"
                  % (layer, size, r["lat_us"], floor, r["lat_quality"]))
            if size == LADDER_SIZES[0] and r["lat_quality"] == "invalid":
                check(re.search(r"# %s (adds .* over|takes .* less than) \S+ at %d B .*a row "
                                r"is invalid" % (layer, size),
                                "\n".join(lines)),
                      "the ladder's %s sentence does not say its row is invalid" % layer)

    # A fake-fast component across the nodes: no operation, no synchronisation. Every row is
    # below the floor, so every row must be marked, never accepted.
    path = os.path.join(WORKDIR, "noop.h5")
    p = run_ok("one-sided noop", PAIR, ["run", "put_lat,get_lat", "-m", "8", "-i", "20", "-o",
                                        path] + NET,
               mpirun_args=OSC + ["-x", "FABRICBENCH_TEST_RMA_NOOP=1"], timeout=120)
    ks = h5_kernels(path)
    for kernel in ("put_lat", "get_lat"):
        for size, p50, floor, two, q, marked in onesided_rows("noop", ks, kernel, [8]):
            print("  noop %s: p50 %.3f us, floor %.3f us, quality %s%s"
                  % (kernel, p50, floor, q, ", IMPLAUSIBLE" if marked else ""))
            check(p50 < floor, "noop %s: p50 %.3f us not below the floor %.3f us: the test hook "
                  "did nothing" % (kernel, p50, floor))
            check(marked, "noop %s: %.3f us against a floor of %.3f us accepted (quality %s): "
                  "a fake-fast one-sided number across nodes is not marked implausible"
                  % (kernel, p50, floor, q))
    check("IMPLAUS" in p.stdout, "noop: the table shows no IMPLAUS:\n" + p.stdout[-2000:])

    # The ladder under the host's own osc choice (Debian's: osc rdma, which makes no window
    # across nodes over TCP): the layers available are measured and the run completes; a
    # one-sided layer that could not be set up is named (warning, table, the JSON's
    # measured: false), never a failed run. Where the host's choice makes the window, the
    # layer's rows are there instead.
    path = os.path.join(WORKDIR, "ladder-default.h5")
    p = run_ok("run ladder, the host's osc", PAIR, ["run", "ladder", "-m", "8", "-i", "20",
                                                    "-o", path] + NET, timeout=240)
    a, _ = run_file(path)
    lad = json.loads(a["ladder"])
    measured = {g["layer"]: g["measured"] for g in lad["layers"]}
    have = {r["layer"] for r in lad["rows"]}
    check(a.get("status") == "complete", "ladder, the host's osc: run status %r"
          % a.get("status"))
    check(all(measured[g] for g in LAYERS if g not in ONESIDED) and
          {g for g, m in measured.items() if m} == have,
          "ladder, the host's osc: measured %s, rows of %s" % (measured, sorted(have)))
    for layer, kernel in ONESIDED.items():
        if measured[layer]:
            continue
        check(re.search(r"warning: run ladder: layer %s \(kernel %s\) not measured" %
                        (layer, kernel), p.stderr) and
              re.search(r"# not measured: .*%s \(%s\)" % (layer, kernel), p.stdout),
              "ladder, the host's osc: %s without rows is not named:\n%s\n%s"
              % (layer, p.stdout[-1500:], p.stderr[-1500:]))
    print("  the host's osc: layers measured %s" % sorted(have))


def rail_wrapper():
    """A launcher that gives local rank r the interfaces of rail r (what a rail-optimised node
    gives each GPU's rank: a NIC of its own)."""
    path = os.path.join(WORKDIR, "rail.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                "# rail 0: fab0; rail 1: fab1 (UCX's interfaces; shared memory inside a node)\n"
                "UCX_NET_DEVICES=fab$OMPI_COMM_WORLD_LOCAL_RANK exec \"$@\"\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def split_rows(path):
    _, t = h5_kernels(path)["allreduce"]
    return [(int(b), text(g), text(m), float(x)) for b, g, m, x in
            zip(t["bytes"], t["group"], t["group_ranks"], t["mean_us"])]


def split_part():
    ct.vc("shape", SHAPED_FAB, SHAPED_RATE, SHAPED_NODE)
    hosts = ["%s:2" % n for n in NODES4]
    wrap = rail_wrapper()
    path = os.path.join(WORKDIR, "rail.h5")
    dev = "fab" + SHAPED_FAB
    before = ct.counters(nodes=[SHAPED_NODE], devs=[dev])
    p = ct.mpirun_in_cluster(wrap, hosts, [EXE, "run", "allreduce", "--split", "rail", "-m",
                                           str(SPLIT_SIZE), "-i", str(SPLIT_ITERS), "-o",
                                           path], np=8, timeout=180)
    check(p.returncode == 0, "--split rail: exit %d\nstdout:\n%s\nstderr:\n%s%s"
          % (p.returncode, p.stdout[-4000:], p.stderr[-4000:], ct.hint(p)))
    after = ct.counters(nodes=[SHAPED_NODE], devs=[dev])
    _, names = run_file(path)
    check(names == [n for n in NODES4 for _ in range(2)], "--split rail: hostnames %s" % names)
    # rail 1's allreduce crossed the shaped link: a ring of 4 sends 1.5 x the size per rank and
    # operation each way; at least one size per timed operation counted
    moved = {d: after[(SHAPED_NODE, dev, d)] - before[(SHAPED_NODE, dev, d)] for d in ("rx", "tx")}
    print("  %s %s moved rx %d tx %d bytes" % (SHAPED_NODE, dev, moved["rx"], moved["tx"]))
    check(min(moved.values()) >= SPLIT_ITERS * SPLIT_SIZE,
          "--split rail: %s's %s moved %s, less than %d x %d B: rail 1 did not use it"
          % (SHAPED_NODE, dev, moved, SPLIT_ITERS, SPLIT_SIZE))
    rows = split_rows(path)
    for r in rows:
        print("  --split rail, %s on %s shaped to %s: %d B group %s ranks %s mean %.1f us"
              % (SHAPED_NODE, "fab" + SHAPED_FAB, SHAPED_RATE, *r))
    check([r[:3] for r in rows] == [(SPLIT_SIZE, "rail=0", "0,2,4,6"),
                                    (SPLIT_SIZE, "rail=1", "1,3,5,7")],
          "--split rail: rows %s" % [r[:3] for r in rows])
    slow = max(rows, key=lambda r: r[3])
    members = [int(x) for x in slow[2].split(",")]
    check(slow[1] == "rail=1" and any(names[m] == SHAPED_NODE for m in members),
          "--split rail: the slow group is %s (ranks %s), not rail=1 with %s's rank on the "
          "shaped fab%s: rows %s" % (slow[1], slow[2], SHAPED_NODE, SHAPED_FAB, rows))
    # what the analysis names: the slowest group of the kernel at the size
    a = subprocess.run([sys.executable, "-m", "fabricbench_analysis", "summary", path],
                       capture_output=True, text=True, timeout=ct.budget(120),
                       env=dict(os.environ, PYTHONPATH=ANALYSIS))
    check(a.returncode == 0, "summary: exit %d\n%s" % (a.returncode, a.stderr))
    named = re.findall(r"^  \S+ allreduce (\S+): slowest (\S+?),.*(rail=1 \[[0-9,]+\])",
                       a.stdout, re.M)
    print("  summary names: %s" % named)
    check(named == [("1M", "rail=1", "rail=1 [1,3,5,7]")],
          "summary names %s, want rail=1 [1,3,5,7] at 1M:\n%s" % (named, a.stdout))
    ct.vc("unshape", SHAPED_FAB, SHAPED_NODE)

    # --split node: a group per node, named by the node
    path = os.path.join(WORKDIR, "node.h5")
    run_ok("--split node", hosts, ["run", "allreduce", "--split", "node", "-m", "8", "-i", "5",
                                   "-o", path], np=8)
    rows = split_rows(path)
    want = [(8, "node=%s" % n, "%d,%d" % (2 * i, 2 * i + 1)) for i, n in enumerate(NODES4)]
    check([r[:3] for r in rows] == want, "--split node: rows %s, want %s"
          % ([r[:3] for r in rows], want))
    check(all(r[3] > 0 for r in rows), "--split node: a group without a time %s" % rows)


def main():
    ct.up(4)
    t = time.monotonic()
    ladder_part()
    print("A (ladder) %.1f s" % (time.monotonic() - t))
    t = time.monotonic()
    split_part()
    print("B (split) %.1f s" % (time.monotonic() - t))


ct.session(main)
print("ok: layers and groups across nodes (%.0f s)" % (time.monotonic() - ct.T0))
