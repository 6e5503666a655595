# SPDX-License-Identifier: BSD-3-Clause
"""--fabric on this machine (no RDMA devices): tcp and shm runs whose verified transport
matches the request, with the device named; fabrics and devices that do not exist end with
exit 3 and the inventory; --strict-fabric turns a transport that differs into exit 3 before
anything is measured; line-rate efficiency and CPU-cost columns; the result file records the
fabric, the check, the placement and the inventory.

usage: test_fabric.py FABRICBENCH"""
import json
import math
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpirun, parse_tables, text_lines  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]


def run(args, rc=0, np=2, env=None):
    p = mpirun(np, [exe, "run"] + args, env=env, timeout=120)
    check(p.returncode == rc, "%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s"
          % (" ".join(args), p.returncode, rc, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def table(run, kernel):
    """The table group of the kernel named `kernel` in a run group (kernels/NN_NAME)."""
    names = [n for n in run["kernels"] if run["kernels"][n].attrs["kernel"] in (kernel,
                                                                              kernel.encode())]
    check(len(names) == 1, "kernel %s: groups %r" % (kernel, list(run["kernels"])))
    return run["kernels"][names[0]]["table"]


def fabric_check(stdout):
    """The verdict line at the end of the output: "# fabric check: match"."""
    lines = [l for l in text_lines(stdout) if l.startswith("# fabric check:")]
    return lines[-1].split(":", 1)[1].strip() if lines else ""


# What this host has, from the tool's own inventory.
inv = json.loads(subprocess.run([exe, "inventory", "--json"], capture_output=True, text=True,
                                check=True).stdout)
up = [n for n in inv["net_interfaces"] if n["operstate"] == "up" and not n["loopback"]]
check(inv["rdma_devices"] == [], "this test expects a machine without RDMA devices")

# --fabric tcp: the default device (the fastest interface that is up) and lo, explicitly.
cases = [(["--fabric", "tcp", "--device", "lo"], "lo")]
if up:
    best = max(up, key=lambda n: (n["speed_mbps"] if n["speed_mbps"] is not None else -1))
    cases.append((["--fabric", "tcp"], best["name"]))
for extra, dev in cases:
    out = "tcp-%s.h5" % dev
    # -t 0.1: windows of 0.1 s hold several of /proc/stat's 10 ms ticks even where the
    # iterations run faster than their calibration said (a busy machine)
    p = run(["latency,bw", "-m", "8,64K", "-t", "0.1", "-o", out] + extra)
    h, ks = parse_tables(p.stdout)
    check(fabric_check(p.stdout).startswith("match"),
          "tcp over %s: fabric check %r\n%s" % (dev, fabric_check(p.stdout), p.stdout))
    check("tcp/%s" % dev in h["transports"], "transports %r lack tcp/%s" % (h["transports"], dev))
    check("UCX_TLS=tcp,self" in h.get("fabric environment", ""),
          "fabric environment: %r" % h.get("fabric environment"))
    with h5py.File(out, "r") as f:
        r = f["runs"][f.attrs["latest_run"]]
        a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in r.attrs.items()}
        check(a["fabric"] == "tcp" and a["fabric_device"] == dev, "file: %r" % a)
        check(a["fabric_check"] == "match", "file fabric_check %r" % a["fabric_check"])
        check("tcp/%s" % dev in a["ucx_transports"], "file transports %r" % a["ucx_transports"])
        inv_file = json.loads(a["inventory_json"])
        check(len(inv_file) == 1 and "net_interfaces" in list(inv_file.values())[0],
              "inventory_json: %r" % a["inventory_json"][:300])
        pl = [x.decode() for x in r["placement"][()]]
        check(len(pl) == 2 and pl[0].startswith("rank 0 ") and pl[1].startswith("rank 1 "),
              "placement: %r" % pl)
        # CPU cost columns: a busy-polling rank near one core; node shares within 0..100.
        t = table(r, "latency")
        # The node shares are NaN for a window too short for /proc/stat's 10 ms ticks
        # (METRICS.md); the ranks' own shares are always known.
        for c in ("cpu_rank_pct", "cpu_rank_min_pct", "cpu_rank_max_pct", "cpu_node_user_pct",
                  "cpu_node_sys_pct", "cpu_node_softirq_pct"):
            v = t[c][()]
            check(len(v) == 2, "%s: %r" % (c, v))
            check(all(0 <= x <= 110 for x in v if not (c.startswith("cpu_node") and
                                                       math.isnan(x))),
                  "%s out of range: %r" % (c, v))
            check(any(0 <= x <= 110 for x in v), "%s: no row has a value: %r" % (c, v))
        check(all(x > 0 for x in t["cpu_rank_pct"][()]),
              "a rank that measured used no CPU: %r" % t["cpu_rank_pct"][()])
        lo, mean, hi = (t[c][()] for c in ("cpu_rank_min_pct", "cpu_rank_pct",
                                           "cpu_rank_max_pct"))
        check(all(a - 1e-9 <= b <= c + 1e-9 for a, b, c in zip(lo, mean, hi)),
              "per-rank CPU: min %r <= mean %r <= max %r" % (lo, mean, hi))
        check(all(x in (0, 1) for x in t["cpu_rank_max_rank"][()]),
              "busiest rank: %r" % t["cpu_rank_max_rank"][()])
        s = t["cpu_node_user_pct"][()] + t["cpu_node_sys_pct"][()] + \
            t["cpu_node_softirq_pct"][()]
        check(all(math.isnan(x) or x <= 100.0 + 1e-6 for x in s),
              "node shares sum over 100: %r" % s)
        # Within one host there is no port: line_rate_pct is NaN without --line-rate.
        bw = table(r, "bw")
        check(all(math.isnan(x) for x in bw["line_rate_pct"][()]),
              "line_rate_pct without a port: %r" % bw["line_rate_pct"][()])

# --fabric shm: shared memory transports, no device.
p = run(["latency", "-m", "8", "-t", "0.02", "-o", "none", "--fabric", "shm"])
h, ks = parse_tables(p.stdout)
check(fabric_check(p.stdout).startswith("match"), "shm: %r" % fabric_check(p.stdout))
check("memory" in h["transports"] and "tcp" not in h["transports"],
      "shm transports %r" % h["transports"])

# --line-rate: efficiency = Gb/s / rate (bibw: both directions, twice the rate).
p = run(["bw,bibw", "-m", "64K,1M", "-t", "0.02", "-o", "lr.h5", "--fabric", "shm",
         "--line-rate", "40G"])
with h5py.File("lr.h5", "r") as f:
    r = f["runs"][f.attrs["latest_run"]]
    check(abs(r.attrs["line_rate_gbps"] - 40.0) < 1e-12, "line_rate_gbps %r"
          % r.attrs["line_rate_gbps"])
    for k, mult in (("bw", 1.0), ("bibw", 2.0)):
        t = table(r, k)
        for g, pct in zip(t["Gbps"][()], t["line_rate_pct"][()]):
            check(abs(pct - 100.0 * g / (40.0 * mult)) < 1e-9 * max(1.0, pct),
                  "%s: line_rate_pct %r for %r Gb/s" % (k, pct, g))
h, ks = parse_tables(p.stdout)
for k in ks:
    for row in k["rows"]:
        check(row["line%"] != "n/a", "%s: line%% n/a with --line-rate" % k["name"])

# Fabrics and devices that are not here: exit 3 before measuring, with the inventory.
for args, needle in ((["--fabric", "ib"], "no active ib port"),
                     (["--fabric", "roce", "--device", "mlx5_0"], "no RDMA device mlx5_0"),
                     (["--fabric", "tcp", "--device", "nosuch0"], "no network interface nosuch0")):
    p = run(["latency", "-m", "8", "-o", "none"] + args, rc=3)
    check(needle in p.stderr, "%s: stderr lacks %r:\n%s" % (args, needle, p.stderr))
    check("This host has RDMA ports: none; network interfaces:" in p.stderr and " lo " in
          p.stderr.replace("lo (", " lo ("), "%s: no inventory in the message:\n%s"
          % (args, p.stderr))
    check("hint:" in p.stderr, "%s: no hint" % args)
    check("bytes" not in p.stdout, "%s: something was measured:\n%s" % (args, p.stdout))

# --strict-fabric where UCX is not used (pml ob1): nothing to verify, so exit 3 before
# measuring rather than a silent pass.
p = run(["bw", "-m", "1K", "-o", "none", "--fabric", "tcp", "--strict-fabric", "--pml", "ob1"],
        rc=3)
check("UCX is not in use" in p.stderr and "hint:" in p.stderr, p.stderr)
check("bytes" not in p.stdout, "strict ob1: something was measured:\n%s" % p.stdout)

# Every measured pair is probed: on 4 ranks the first kernel's pair (0-1) and rank i with
# i + 2 (msgrate's pairs; across nodes, each rank's link to the other node). Ranks 2 and 3
# limited to TCP (mpirun MPMD, a profile that leaves UCX_TLS to the environment) make pairs
# 0-2 and 1-3 differ from 0-1: the check names them, and --strict-fabric refuses to measure.
with open("local.conf", "w") as f:
    f.write("[local]\nmatch = local\ndescription = transports from the environment\n"
            "expect = sysv,posix,cma\n")
p = run(["latency,allreduce", "-m", "8", "-t", "0.02", "-o", "pairs.h5", "--fabric", "shm"],
        np=4)
h, ks = parse_tables(p.stdout)
check(fabric_check(p.stdout) == "match" and
      h.get("transports by pair", "").endswith("(pairs 0-1 0-2 1-3)"),
      "np 4 shm: pairs %r, check %r" % (h.get("transports by pair"), fabric_check(p.stdout)))
with h5py.File("pairs.h5", "r") as f:
    r = f["runs"][f.attrs["latest_run"]]
    check("(pairs 0-1 0-2 1-3)" in r.attrs["ucx_transports_by_pair"], dict(r.attrs))
side = ["latency,allreduce", "-m", "8", "-t", "0.02", "-o", "none", "--fabric", "local",
        "--fabrics-file", "local.conf"]
for strict in ([], ["--strict-fabric"]):
    p = mpirun(2, ["-x", "UCX_TLS=sm,tcp,self", exe, "run"] + side + strict +
               [":", "-np", "2", "-x", "UCX_TLS=tcp,self", exe, "run"] + side + strict)
    check(p.returncode == (3 if strict else 0), "mixed pairs %s: exit %d\n%s\n%s"
          % (strict, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    check("transport tcp is not sysv,posix,cma (pairs 0-2 1-3)" in p.stderr,
          "mixed pairs %s: warning %r" % (strict, p.stderr[-2000:]))
    if strict:
        check("bytes" not in p.stdout, "strict mixed pairs measured:\n%s" % p.stdout)
    else:
        h, ks = parse_tables(p.stdout)
        check(fabric_check(p.stdout) == "differs: transport tcp is not sysv,posix,cma "
              "(pairs 0-2 1-3)", "mixed pairs: check %r" % fabric_check(p.stdout))
        check("(pairs 0-1) | tcp/" in h.get("transports by pair", ""),
              "mixed pairs: %r" % h.get("transports by pair"))
print("ok every measured pair is probed; a pair on another transport is named")

# An unknown fabric name: exit 2 naming the profiles.
p = run(["latency", "-o", "none", "--fabric", "warp"], rc=2)
check("no such fabric profile" in p.stderr and "tcp, shm" in p.stderr, p.stderr)

# A profile whose settings make UCX use something else than it expects: the check says
# "differs"; --strict-fabric ends the run with exit 3 before any row.
with open("odd.conf", "w") as f:
    f.write("[tcpish]\nmatch = net\ndescription = asks for shared memory, expects tcp\n"
            "UCX_TLS = sm,self\nexpect = tcp\n")
p = run(["latency", "-m", "8", "-t", "0.02", "-o", "none", "--fabrics-file", "odd.conf",
         "--fabric", "tcpish", "--device", "lo"])
h, ks = parse_tables(p.stdout)
check(fabric_check(p.stdout).startswith("differs"), "odd profile: %r" % fabric_check(p.stdout))
check("is not tcp" in p.stderr and "--strict-fabric" in p.stderr, p.stderr)
check(len(ks[0]["rows"]) == 1, "the non-strict run measured nothing")
p = run(["latency", "-m", "8", "-t", "0.02", "-o", "strict.h5", "--fabrics-file", "odd.conf",
         "--fabric", "tcpish", "--device", "lo", "--strict-fabric"], rc=3)
check("is not tcp" in p.stderr, p.stderr)
check(not any(l.strip() and not l.startswith("#") for l in p.stdout.splitlines()),
      "--strict-fabric measured something:\n" + p.stdout)
check(not os.path.exists("strict.h5"), "--strict-fabric left a result file")

# Placement in a real run (mpirun binds nothing: --bind-to none): core binds rank i to core i;
# nic binds near the fabric's interface when hwloc knows it; the default keeps mpirun's binding.
p = run(["latency", "-m", "8", "-t", "0.02", "-o", "none", "--placement", "core"])
pl = [l for l in text_lines(p.stdout) if l.startswith("# placement:")]
check(len(pl) == 2 and "rank 0 " in pl[0] and "cpus 0," in pl[0] and "cpus 1," in pl[1]
      and all("core (bound here)" in l for l in pl), "--placement core:\n" + "\n".join(pl))
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-t", "0.02", "-o", "none"],
           mpirun_args=("--bind-to", "core"))
pl = [l for l in text_lines(p.stdout) if l.startswith("# placement:")]
check(p.returncode == 0 and len(pl) == 2 and all("launcher's binding kept" in l for l in pl),
      "default placement under mpirun --bind-to core:\n" + p.stdout[-2000:] + p.stderr[-2000:])
if up and up[0]["name"] in subprocess.run([exe, "placement", "--device", up[0]["name"]],
                                          capture_output=True, text=True).stdout:
    dev = up[0]["name"]
    p = run(["latency", "-m", "8", "-t", "0.02", "-o", "none", "--fabric", "tcp", "--device", dev,
             "--placement", "nic"])
    pl = [l for l in text_lines(p.stdout) if l.startswith("# placement:")]
    check(len(pl) == 2 and all(("NIC %s on NUMA" % dev) in l and "nic (bound here)" in l
                               for l in pl), "--placement nic:\n" + "\n".join(pl))
# An explicit nic placement with a NIC hwloc does not know (lo): refused before measuring.
p = run(["latency", "-m", "8", "-o", "none", "--fabric", "tcp", "--device", "lo",
         "--placement", "nic"], rc=2)
check("'lo' is not in the topology" in p.stderr and "hint:" in p.stderr, p.stderr)

# The transport probe: on MPI's own UCX worker (found in UCX's object tree), and with
# FABRICBENCH_TEST_PROBE_OWN=1 on a context and worker of its own, as where that worker is not
# found: the same lanes both ways, for UCX's default transports, tcp alone and tcp with shared
# memory, 2 and 4 ranks (two probe runs: the first pair, then the others), and before the
# measurements (--strict-fabric, --fabric shm).
for tls, np_, kernel, extra in ((None, 2, "latency", []), ("tcp", 2, "latency", []),
                                ("sm,tcp,self", 4, "msgrate", []),
                                (None, 2, "latency", ["--fabric", "shm", "--strict-fabric"])):
    got = {}
    for own in ("0", "1"):
        env = {"FABRICBENCH_TEST_PROBE_OWN": own}
        if tls:
            env["UCX_TLS"] = tls
        args = [kernel, "-m", "8", "-i", "20", "-x", "2", "-o", "none", "-v", "-v"] + extra
        p = run(args, np=np_, env=env)
        want = ("a context of its own" if own == "1" else "on MPI's own UCX worker")
        lines = [l for l in p.stderr.splitlines() if "UCX probe:" in l]
        check(len(lines) == np_ and all(want in l for l in lines),
              "UCX_TLS=%s own=%s: %r" % (tls, own, lines))
        check("UCX  WARN" not in p.stderr and "UCX  ERROR" not in p.stderr, p.stderr[-2000:])
        hdr = parse_tables(p.stdout)[0]
        got[own] = (hdr.get("transports"), hdr.get("transports by pair"))
        check(got[own][0] and not got[own][0].startswith(("unknown", "not probed")),
              "UCX_TLS=%s own=%s: %r" % (tls, own, got[own]))
    check(got["0"] == got["1"], "UCX_TLS=%s: MPI's worker %r, own context %r"
          % (tls, got["0"], got["1"]))
print("ok: the probe's lanes on MPI's UCX worker are its own context's")

# `inventory --fabric`: what a fabric would pick here, without MPI.
q = subprocess.run([exe, "inventory", "--fabric", "tcp", "--device", "lo"], capture_output=True,
                   text=True)
check(q.returncode == 0 and "device: lo" in q.stdout and "UCX_NET_DEVICES=lo" in q.stdout,
      q.stdout + q.stderr)
print("ok: tcp (%s), shm, line rate, missing fabrics, strict check" % ", ".join(
    d for _, d in cases))
