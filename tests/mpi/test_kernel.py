# SPDX-License-Identifier: BSD-3-Clause
"""Run one kernel under mpirun with --validate and check the table's shape and sanity.

usage: test_kernel.py FABRICBENCH KERNEL NP [extra fabricbench args...]"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpirun, parse_tables  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe, kernel, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = sys.argv[4:]
sizes = [1, 8, 1024, 65536, 1048576]
# -t 0.02: the fixed time policy, short; with --budget in the extra arguments the adaptive one
fixed = [] if "--budget" in extra else ["-t", "0.02"]
# --wide: every column of the table (tests/mpi/test_table.py checks the compact one)
args = [exe, "run", kernel, "-m", ",".join(str(s) for s in sizes), "--validate", "--wide"] + \
    fixed + extra
p = mpirun(np, args)
check(p.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout, p.stderr))
header, kernels = parse_tables(p.stdout)

for key in ("date", "command", "ranks", "mpi", "pml", "ucx"):
    check(key in header, "global header lacks '%s': %s" % (key, header))
check(header["version"].startswith("fabricbench "), "no version line")
check(header["ranks"].startswith("%d on" % np), "ranks line: " + header["ranks"])
check("Open MPI" in header["mpi"], "mpi line: " + header["mpi"])
check(header["pml"].startswith("ucx"), "default run is not on pml ucx: " + header["pml"])
check("probed after the measurements" in header["ucx"], "ucx line: " + header["ucx"])
# On one host the transports are shared memory ones (RECIPES: sysv/posix + cma).
check("transports" in header and "memory" in header["transports"]
      and "unknown" not in header["transports"],
      "UCX transports not found: %s" % header.get("transports"))

check(len(kernels) == 1 and kernels[0]["name"] == kernel, "kernels: %s" % kernels)
k = kernels[0]
rows = k["rows"]
check([int(r["bytes"]) for r in rows] == sizes, "size column %s != %s"
      % ([r["bytes"] for r in rows], sizes))
latency = "lat_us" in k["columns"]
for r in rows:
    where = "%s at %d B: %s" % (kernel, r["bytes"], r)
    # A tail quantile needs 10 samples beyond it (n >= 10/(1-p)); with fewer it prints "-".
    tails = {"p90_us": 0.9, "p99_us": 0.99, "p99.9_us": 0.999, "p99.99_us": 0.9999}
    for c in ("min_us", "p50_us", "p90_us", "p99_us", "p99.9_us", "p99.99_us", "max_us",
              "mean_us", "loop_us"):
        if c in tails and r["iters"] * (1 - tails[c]) < 10 - 1e-9:
            check(r[c] == "-", c + " shown with too few samples: " + where)
            continue
        check(isinstance(r[c], float) and r[c] > 0 and math.isfinite(r[c]), c + " > 0: " + where)
    # MB/s is checked against its definition below; printed with two decimals it reads 0.00
    # when a busy machine makes a 1-byte round trip last hundreds of microseconds.
    check(isinstance(r["MB/s"], float) and r["MB/s"] >= 0 and math.isfinite(r["MB/s"]),
          "MB/s >= 0: " + where)
    shown = [r[c] for c in ("min_us", "p50_us", "p90_us", "p99_us", "p99.9_us", "p99.99_us",
                            "max_us") if r[c] != "-"]
    check(shown == sorted(shown), "percentiles out of order: " + where)
    check(r["min_us"] <= r["mean_us"] <= r["max_us"], "mean outside [min,max]: " + where)
    adaptive = "--budget" in extra
    check(r["iters"] >= (1 if adaptive else 10) and r["warmup"] >= (1 if adaptive else 2),
          "iterations/warm-up: " + where)
    check(r["errors"] == 0, "validation errors: " + where)
    check(r["pct"] == "exact", "percentiles not exact: " + where)
    if latency:
        # one-way latency: MB/s = bytes / latency
        check(abs(r["MB/s"] - r["bytes"] / r["lat_us"]) <= 0.01 * r["MB/s"] + 0.01,
              "MB/s != bytes / lat_us: " + where)
    # Several pairs time at once (msgrate on 4 ranks): their times are reduced per iteration,
    # so the samples' mean is not the loop's. One timing rank: contiguous timestamps, the
    # samples add up to the loop exactly.
    pairs = re.search(r"\((\d+) pairs", k["header"].get("ranks", ""))
    if not pairs or int(pairs.group(1)) == 1:
        check(abs(r["mean_us"] - r["loop_us"]) <= 0.0011 + 1e-6 * r["loop_us"],
              "mean_us != loop_us for a single-timer kernel: " + where)
    if not latency:
        # A bandwidth row: MB/s = bytes x messages per iteration / loop-mean iteration time; an
        # iteration moves whole messages, and a windowed kernel whole windows of them.
        m = re.search(r"(\d+) messages per iteration", k["header"].get("window", ""))
        window = int(m.group(1)) if m else 1
        per_iter = r["msg/s"] * r["loop_us"] / 1e6
        # msg/s is printed in whole messages: its rounding (up to 0.5/s) moves per_iter by up
        # to 0.5 x loop_us / 1e6 messages, which is more than 0.01 when iterations are slow;
        # loop_us is printed with 4 significant digits: up to 5e-4 of per_iter (CI once read
        # 63.987 messages of a window of 64 from loop_us 2.228)
        tol = 0.01 + 0.5 * r["loop_us"] / 1e6 + 5e-4 * per_iter
        check(per_iter >= window - tol and abs(per_iter - window * round(per_iter / window))
              <= tol, "messages per iteration %.3f is not whole windows of %d: %s"
              % (per_iter, window, where))
        npairs = int(pairs.group(1)) if pairs else 1
        want = r["bytes"] * per_iter / r["loop_us"]
        check(abs(r["MB/s"] - want) <= 0.01 * want + 0.01, "MB/s != bytes*msgs/loop: " + where)
        check(abs(r["Gb/s"] - r["MB/s"] * 8 / 1000) <= 0.001 + 0.001 * r["Gb/s"],
              "Gb/s != MB/s*8/1000: " + where)
        check(abs(r["msg/s"] * r["bytes"] / 1e6 - r["MB/s"]) <= 0.01 * r["MB/s"] + 0.01,
              "msg/s x bytes != MB/s: " + where)
        check(abs(r["pair_MB/s"] * npairs - r["MB/s"]) <= 0.01 * r["MB/s"] + 0.02,
              "per-pair MB/s x pairs != aggregate: " + where)
print("PASS %s np=%d: %d rows" % (kernel, np, len(rows)))
