# SPDX-License-Identifier: BSD-3-Clause
"""The socket kernels on loopback (2 and 4 ranks, one host), read back with h5py:

- tcp_stream with 1 and 3 streams per pair, both in one run (--streams 1,3: two instances),
  and 2 pairs x 2 streams: --validate finds no bad
  byte, the rates follow their definitions (MBps = bytes x msg/s, pair_MBps = MBps / streams,
  msg/s = pairs x streams x window / loop time), the socket columns (tcp_retrans,
  sndbuf_bytes, rcvbuf_bytes) are set for socket rows and NaN for MPI rows of the same file
  (`tcp_stream,bw`), --sockbuf reaches SO_SNDBUF, --omit runs;
- tcp_rr: one-way latency columns with tails, --validate, p50 <= loop mean x 2;
- FABRICBENCH_TEST_CORRUPT=1: a socket kernel's validation failure reaches the exit code (1);
- bad input, each refused with exit 2 and a message naming it: --streams 0 and 129, --bind
  with an address that is not this host's (the message lists the host's addresses) and with
  a name, --omit -1, tcp_stream on 3 ranks;
- an unreachable peer (FABRICBENCH_TEST_SOCK_REFUSE=1: the receiver closes its port): exit 3,
  the sender's error names the address and port, no rank process is left.

usage: test_sockets.py FABRICBENCH"""
import math
import os
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import fabtest  # noqa: E402
from fabtest import check, enter_scratch, mpirun, parse_tables  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="fab_sockets_")


def run(np, args, env=None, rc=0):
    p = mpirun(np, [exe, "run"] + args, env=env)
    check(p.returncode == rc, "%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
          % (" ".join(args), p.returncode, rc, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def kernels(path):
    out = {}
    with h5py.File(path, "r") as f:
        for name, g in f["runs"]["run_0000"]["kernels"].items():
            t = g["table"]
            out[g.attrs["name"] if "name" in g.attrs else name.split("_", 1)[1]] = (
                dict(g.attrs), {c: t[c][:] for c in t.attrs["columns"].split(",")})
    return out


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


try:
    # ---- tcp_stream: 1 and 3 streams on one pair, next to bw in one file
    for streams in (1, 3):
        path = os.path.join(tmp, "s%d.h5" % streams)
        p = run(2, ["tcp_stream,bw", "-m", "1K,128K", "-i", "20", "-w", "8", "--validate",
                    "--streams", str(streams), "-o", path])
        hdr, ks = parse_tables(p.stdout)
        check([k["name"] for k in ks] == ["tcp_stream", "bw"], repr([k["name"] for k in ks]))
        check(len(ks[0]["rows"]) == 2, repr(ks[0]["lines"]))
        desc = " ".join(v for k, v in ks[0]["header"].items() if k == "tcp_stream")
        check("%d TCP connection" % streams in desc and "127.0.0.1" in desc
              and "poll(2)" in desc, "describe line: %r" % desc)
        kd = kernels(path)
        attrs, t = kd["tcp_stream"]
        for i, b in enumerate(t["bytes"]):
            check(t["validation_errors"][i] == 0, "bad bytes: %r" % (t["validation_errors"],))
            mbps, msgps, loop = t["MBps"][i], t["msgps"][i], t["loop_us"][i] * 1e-6
            check(mbps > 0 and close(mbps, b * msgps / 1e6), repr((b, mbps, msgps)))
            check(close(msgps, streams * 8 / loop, 1e-3), repr((msgps, streams, loop)))
            check(close(t["pair_MBps"][i] * streams, mbps), repr((t["pair_MBps"][i], mbps)))
            check(t["tcp_retrans"][i] >= 0 and math.isfinite(t["tcp_retrans"][i]),
                  repr(t["tcp_retrans"]))
            check(t["sndbuf_bytes"][i] > 0 and t["rcvbuf_bytes"][i] > 0,
                  repr((t["sndbuf_bytes"], t["rcvbuf_bytes"])))
        _, bw = kd["bw"]
        check(all(math.isnan(v) for v in list(bw["tcp_retrans"]) + list(bw["sndbuf_bytes"])),
              "MPI rows carry socket counters: %r" % bw["tcp_retrans"])
        print("ok tcp_stream --streams %d: validated, rates by definition, counters set "
              "(retrans %s, sndbuf %s), bw's NaN" % (streams, list(t["tcp_retrans"]),
                                                     list(t["sndbuf_bytes"])))

    # ---- --streams 1,3 in one run: two instances, each its header and rows, the count in
    # the streams column and in the kernel's variant attribute
    path = os.path.join(tmp, "s13.h5")
    p = run(2, ["tcp_stream", "-m", "4K", "-i", "10", "-w", "4", "--streams", "1,3", "-o", path])
    hdr, ks = parse_tables(p.stdout)
    check([k["name"] for k in ks] == ["tcp_stream", "tcp_stream"], repr(ks))
    check("# kernel: tcp_stream --streams 1:" in p.stdout and
          "# kernel: tcp_stream --streams 3:" in p.stdout, p.stdout[-3000:])
    check(ks[0]["columns"][:5] == ["bytes", "MB/s", "Gb/s", "line%", "retr"],
          repr(ks[0]["columns"]))
    with h5py.File(path, "r") as f:
        groups = list(f["runs/run_0000/kernels"].values())
        check([(g.attrs["variant"], g.attrs["axis"]) for g in groups] ==
              [("--streams 1", "streams"), ("--streams 3", "streams")],
              repr([dict(g.attrs) for g in groups]))
        check([float(g["table"]["streams"][0]) for g in groups] == [1.0, 3.0], "streams column")
        check([abs(g["table"]["msgps"][0] * g["table"]["loop_us"][0] * 1e-6 - n * 4) < 1e-3 * n * 4
               for g, n in zip(groups, (1, 3))] == [True, True], "msg/s of each instance")
        check("streams=3" in groups[1].attrs["options"], groups[1].attrs["options"])
    print("ok --streams 1,3: two instances, streams column 1 and 3, variant attributes")

    # ---- 2 pairs x 2 streams, --sockbuf, --omit
    path = os.path.join(tmp, "p2.h5")
    run(4, ["tcp_stream", "-m", "64K", "-i", "20", "-w", "4", "--streams", "2", "--sockbuf",
            "256K", "--omit", "0.1", "--validate", "-o", path])
    _, t = kernels(path)["tcp_stream"]
    check(close(t["pair_MBps"][0] * 4, t["MBps"][0]), repr((t["pair_MBps"], t["MBps"])))
    check(close(t["msgps"][0], 4 * 4 / (t["loop_us"][0] * 1e-6), 1e-3), repr(t["msgps"]))
    check(t["sndbuf_bytes"][0] >= 256 * 1024, "SO_SNDBUF %r below --sockbuf" % t["sndbuf_bytes"])
    check(t["validation_errors"][0] == 0, repr(t["validation_errors"]))
    print("ok 2 pairs x 2 streams: pair_MBps = MBps / 4, --sockbuf 256K gives SO_SNDBUF %d"
          % t["sndbuf_bytes"][0])

    # ---- tcp_rr
    path = os.path.join(tmp, "rr.h5")
    p = run(2, ["tcp_rr", "-m", "1,4K", "-i", "300", "--validate", "-o", path])
    _, ks = parse_tables(p.stdout)
    check(ks[0]["columns"][:2] == ["bytes", "lat_us"], repr(ks[0]["columns"]))
    _, t = kernels(path)["tcp_rr"]
    for i in range(2):
        check(t["validation_errors"][i] == 0, repr(t["validation_errors"]))
        check(0 < t["min_us"][i] <= t["p50_us"][i] <= t["p90_us"][i] <= t["max_us"][i],
              repr((t["min_us"], t["p50_us"], t["p90_us"], t["max_us"])))
        check(t["iterations"][i] == 300, repr(t["iterations"]))
        check(t["sndbuf_bytes"][i] > 0, repr(t["sndbuf_bytes"]))
    print("ok tcp_rr: one-way p50 %.1f us (1 B), validated" % t["p50_us"][0])

    # ---- a validation failure reaches the exit code
    p = run(2, ["tcp_stream", "-m", "1K", "-i", "5", "--validate", "-o", "none"],
            env={"FABRICBENCH_TEST_CORRUPT": "1"}, rc=1)
    check("did not match" in p.stderr, p.stderr[-2000:])
    print("ok corrupted validation: exit 1")

    # ---- bad input: exit 2, nothing measured
    bad = [
        (2, ["tcp_stream", "--streams", "0"], "--streams"),
        (2, ["tcp_stream", "--streams", "129"], "--streams"),
        (2, ["tcp_rr", "--bind", "192.0.2.254"], "none of these is an address of this host"),
        (2, ["tcp_rr", "--bind", "localhost"], "is not an IP address"),
        (2, ["tcp_stream", "--omit", "-1"], "--omit"),
        (3, ["tcp_stream"], "tcp_stream"),
    ]
    for np, args, want in bad:
        p = run(np, args + ["-m", "1K", "-i", "5", "-o", "none"], rc=2)
        check(want in p.stderr, "%s: no %r in\n%s" % (args, want, p.stderr[-2000:]))
        check(not any(l[:1] == " " and l.split()[0].isdigit() for l in p.stdout.splitlines()),
              "%s measured rows:\n%s" % (args, p.stdout[-1500:]))
    p = run(2, ["tcp_rr", "--bind", "192.0.2.254", "-m", "1", "-o", "none"], rc=2)
    check("127.0.0.1" in p.stderr, "the host's addresses are not listed: " + p.stderr[-1500:])
    print("ok bad input: %d cases refused with exit 2" % (len(bad) + 1))

    # ---- an unreachable peer: exit 3 on every rank, the address named, no process left
    mark = os.path.join(tmp, "refused.h5")
    p = run(2, ["tcp_stream", "-m", "1K", "-o", mark], env={"FABRICBENCH_TEST_SOCK_REFUSE": "1"},
            rc=3)
    check("cannot connect" in p.stderr and "127.0.0.1:" in p.stderr, p.stderr[-2000:])
    check(not fabtest.rank_pids(exe, mark), "rank processes left behind")
    print("ok unreachable peer: exit 3, named, nothing left")
finally:
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
