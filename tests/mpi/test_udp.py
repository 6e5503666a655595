# SPDX-License-Identifier: BSD-3-Clause
"""The UDP kernels on loopback (2 ranks, one host), read back with h5py:

- udp_rate --rate 100M,200M: two instances, each its header line, variant and offered_Gbps;
  every datagram of every timed iteration either taken by the socket or a sender-side drop
  (udp_sent + udp_drops = iterations x window); loss_pct, rx_Gbps and rx_pps by their
  definitions from udp_sent, udp_received and the timed time; the pacer never offers more
  than the rate (each iteration takes its W gaps from its own start: Gbps <= offered, + 2% for
  the pacer's clock against the timer's); --validate finds no bad byte; the knee line per size
  agrees with the loss printed in the rows;
- udp_pps: unpaced, every datagram sent (no drops), msgps = window / loop time, validated;
- FABRICBENCH_TEST_CORRUPT=1: a UDP kernel's validation failure reaches the exit code (1);
- bad input, each refused with exit 2 and a message naming it, nothing measured: --rate 0,
  --rate 1T (beyond the option's 400 Gb/s), --rate 1K (an iteration longer than a second),
  -m 8 (below the 16-byte header), -m 65508 (above IPv4's largest UDP payload), a --bind
  address that is not this host's;
- an unreachable peer (FABRICBENCH_TEST_SOCK_REFUSE=1: the receiver's port closed before the
  probe): exit 3 after the 10 s bound, the receiver names what it waited for, no rank
  process is left.

usage: test_udp.py FABRICBENCH"""
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
tmp = tempfile.mkdtemp(prefix="fab_udp_")


def run(args, env=None, rc=0):
    p = mpirun(2, [exe, "run"] + args, env=env)
    check(p.returncode == rc, "%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
          % (" ".join(args), p.returncode, rc, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def groups(path):
    with h5py.File(path, "r") as f:
        return [(dict(g.attrs), {c: g["table"][c][:] for c in g["table"].attrs["columns"].split(",")})
                for g in f["runs/run_0000/kernels"].values()]


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def definitions(t, i, window, where):
    """The columns' definitions, row i of table t."""
    b, sent, got = t["bytes"][i], t["udp_sent"][i], t["udp_received"][i]
    secs = t["iterations"][i] * t["loop_us"][i] * 1e-6
    check(sent + t["udp_drops"][i] == t["iterations"][i] * window,
          "%s: sent %r + drops %r != %d iterations x %d" % (where, sent, t["udp_drops"][i],
                                                            t["iterations"][i], window))
    check(0 <= got <= sent and t["udp_dup"][i] >= 0 and t["udp_ooo"][i] >= 0 and
          t["udp_rx_overflow"][i] >= 0, "%s: counts %r" % (where, (sent, got)))
    check(close(t["loss_pct"][i], 100.0 * (sent - got) / sent, 1e-9),
          "%s: loss %r" % (where, t["loss_pct"][i]))
    offered = sent + t["udp_drops"][i]
    check(close(t["undelivered_pct"][i], 100.0 * (offered - got) / offered, 1e-9),
          "%s: undelivered %r" % (where, t["undelivered_pct"][i]))
    check(close(t["rx_Gbps"][i], got * b * 8 / secs / 1e9, 1e-6), "%s: rx_Gbps" % where)
    check(close(t["rx_pps"][i], got / secs, 1e-6), "%s: rx_pps" % where)
    check(close(t["msgps"][i], window / (t["loop_us"][i] * 1e-6), 1e-3), "%s: msgps" % where)
    check(t["jitter_us"][i] >= 0 and math.isfinite(t["jitter_us"][i]), "%s: jitter" % where)
    check(t["validation_errors"][i] == 0, "%s: bad bytes %r" % (where, t["validation_errors"][i]))


try:
    # ---- udp_rate at two rates: two instances
    path = os.path.join(tmp, "rate.h5")
    p = run(["udp_rate", "--rate", "100M,200M", "-m", "256,1460", "-w", "16", "--budget", "0.6",
             "--validate", "-o", path])
    hdr, ks = parse_tables(p.stdout)
    check([k["name"] for k in ks] == ["udp_rate", "udp_rate"], repr([k["name"] for k in ks]))
    check("# kernel: udp_rate --rate 100M:" in p.stdout and
          "# kernel: udp_rate --rate 200M:" in p.stdout, p.stdout[-3000:])
    check(ks[0]["columns"][:5] == ["bytes", "offered", "Gb/s", "rx_Gb/s", "loss%"],
          repr(ks[0]["columns"]))
    gs = groups(path)
    check([a["variant"] for a, _ in gs] == ["--rate 100M", "--rate 200M"] and
          all(a["axis"] == "offered_Gbps" for a, _ in gs), repr([a for a, _ in gs]))
    for (attrs, t), rate in zip(gs, (0.1, 0.2)):
        for i in range(len(t["bytes"])):
            where = "udp_rate %g G %d B" % (rate, t["bytes"][i])
            check(t["offered_Gbps"][i] == rate, "%s: offered %r" % (where, t["offered_Gbps"][i]))
            check(t["Gbps"][i] <= rate * 1.02, "%s: offered more than the rate: %r" %
                  (where, t["Gbps"][i]))
            definitions(t, i, 16, where)
            check(math.isnan(t["tcp_retrans"][i]) and math.isnan(t["streams"][i]), where)
    # the knee line after the last instance: recomputed from the rows in the file
    knees = [l for l in p.stdout.splitlines() if l.startswith("# knee, udp_rate ")]
    check(len(knees) == 2, "knee lines: %r" % knees)
    for size, line in zip((256, 1460), knees):
        loss = {float(t["offered_Gbps"][i]): float(t["undelivered_pct"][i])
                for _, t in gs for i in range(len(t["bytes"])) if t["bytes"][i] == size}
        over = sorted(r for r, l in loss.items() if l > 1)
        if not over:
            want = "# knee, udp_rate %d bytes: undeliv%% <= 1 at every --rate up to 200M" % size
        elif over[0] == 0.1:
            want = ("# knee, udp_rate %d bytes: undeliv%% %.3g already at the lowest --rate, "
                    "100M" % (size, loss[0.1]))
        else:
            want = "# knee, udp_rate %d bytes: undeliv%% <= 1 up to --rate 100M" % size
        check(line.startswith(want), "%r, expected %r (rows %r)" % (line, want, loss))
    print("ok udp_rate --rate 100M,200M: two instances, sent + drops = iterations x window, "
          "loss/rx by definition, never above the rate (%s Gb/s), validated"
          % [round(float(t["Gbps"][0]), 4) for _, t in gs])

    # ---- udp_pps: unpaced, nothing dropped at the sender
    path = os.path.join(tmp, "pps.h5")
    p = run(["udp_pps", "-i", "50", "--validate", "-o", path])
    (attrs, t), = groups(path)
    check(t["bytes"][0] == 64 and "variant" not in attrs and math.isnan(t["offered_Gbps"][0]),
          repr(attrs))
    check(t["udp_drops"][0] == 0, "udp_pps drops %r" % t["udp_drops"][0])
    definitions(t, 0, 64, "udp_pps")
    print("ok udp_pps: 64 B, %d datagrams, %.0f sent/s, %.0f received/s, validated"
          % (t["udp_sent"][0], t["msgps"][0], t["rx_pps"][0]))

    # ---- a validation failure reaches the exit code
    p = run(["udp_rate", "--rate", "50M", "-i", "5", "-w", "8", "--validate", "-o", "none"],
            env={"FABRICBENCH_TEST_CORRUPT": "1"}, rc=1)
    check("did not match" in p.stderr, p.stderr[-2000:])
    print("ok corrupted validation: exit 1")

    # ---- bad input: exit 2, nothing measured
    bad = [
        (["udp_rate", "--rate", "0"], "--rate"),
        (["udp_rate", "--rate", "1T"], "out of range"),
        (["udp_rate", "--rate", "1K"], "would take"),
        (["udp_pps", "-m", "8"], "16 to 65507"),
        (["udp_rate", "-m", "65508"], "16 to 65507"),
        (["udp_pps", "--bind", "192.0.2.254"], "none of these is an address of this host"),
    ]
    for args, want in bad:
        p = run(args + ["-i", "5", "-o", "none"], rc=2)
        check(want in p.stderr, "%s: no %r in\n%s" % (args, want, p.stderr[-2000:]))
        check(not any(l[:1] == " " and l.split()[0].isdigit() for l in p.stdout.splitlines()),
              "%s measured rows:\n%s" % (args, p.stdout[-1500:]))
    print("ok bad input: %d cases refused with exit 2" % len(bad))

    # ---- an unreachable peer: exit 3 on both ranks, the wait named, no process left
    mark = os.path.join(tmp, "refused.h5")
    p = run(["udp_rate", "-i", "5", "-o", mark], env={"FABRICBENCH_TEST_SOCK_REFUSE": "1"}, rc=3)
    check("no UDP datagram from rank 0" in p.stderr and "within 10 s" in p.stderr,
          p.stderr[-2000:])
    check(not fabtest.rank_pids(exe, mark), "rank processes left behind")
    print("ok unreachable peer: exit 3 after the probe's bound, named, nothing left")
finally:
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
