# SPDX-License-Identifier: BSD-3-Clause
"""Behaviour beyond one kernel's table: --pair, --pml, fixed iterations, a validation failure,
default sizes, kernel order, progress lines, the histogram path, options from the environment.

usage: test_behaviour.py FABRICBENCH"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpirun, parse_tables  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]


def run(np, args, want_rc=0, env=None):
    p = mpirun(np, [exe, "run"] + args, env=env)
    check(p.returncode == want_rc, "%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s"
          % (" ".join(args), p.returncode, want_rc, p.stdout, p.stderr))
    header, kernels = parse_tables(p.stdout)
    return p, header, kernels


# --pair on 4 ranks: only ranks 2 and 3 measure; the table still reaches rank 0's stdout.
p, h, ks = run(4, ["latency", "-m", "8,64", "-t", "0.02", "--pair", "2,3"])
check(ks[0]["header"]["ranks"].startswith("2 (") and "<-> 3 (" in ks[0]["header"]["ranks"],
      "pair header: %s" % ks[0]["header"])
check([r["bytes"] for r in ks[0]["rows"]] == [8, 64], "pair rows")
print("ok --pair 2,3 on 4 ranks")

# --pair 1,0: the timing rank is world rank 1, which hands rows to rank 0.
p, h, ks = run(2, ["bw", "-m", "4K", "-t", "0.02", "--pair", "1,0"])
check(ks[0]["rows"][0]["MB/s"] > 0, "bw with --pair 1,0")
print("ok --pair 1,0")

# --pml ob1 is an explicit choice, and the header says so.
p, h, ks = run(2, ["latency", "-m", "8", "-t", "0.02", "--pml", "ob1"])
check(h["pml"].startswith("ob1"), "pml line with --pml ob1: " + h["pml"])
check("not used" in h["ucx"], "ucx line with ob1: " + h["ucx"])
print("ok --pml ob1: " + h["pml"])

# Fixed iterations and warm-up are honoured exactly.
p, h, ks = run(2, ["latency,bw", "-m", "16", "-i", "200", "-x", "7", "--wide"])  # iters, warmup
check([k["name"] for k in ks] == ["latency", "bw"], "kernel order")
for k in ks:
    r = k["rows"][0]
    check(r["iters"] == 200 and r["warmup"] == 7, "-i/-x: %s" % r)
print("ok -i 200 -x 7, kernels in the order given")

# A validation failure is reported in the table, on stderr, and by exit code 1.
p, h, ks = run(2, ["latency,bw", "-m", "8,1K", "-t", "0.01", "--validate"], want_rc=1,
               env={"FABRICBENCH_TEST_CORRUPT": "1"})
check(len(ks) == 2, "both kernels still ran after a validation failure")
check(all(r["errors"] > 0 for k in ks for r in k["rows"]), "errors column")
check("did not match" in p.stderr, "stderr names the validation failure: " + p.stderr)
print("ok validation failure -> exit 1")

# Default sizes: 1 B to 4 MiB, doubling.
p, h, ks = run(2, ["latency", "-t", "0.002", "--min-iters", "2", "-q"])
check([int(r["bytes"]) for r in ks[0]["rows"]] == [1 << i for i in range(23)], "default sizes")
print("ok default sizes 1..4M")

# Beyond --max-samples, percentiles come from the histogram and stay ordered.
p, h, ks = run(2, ["latency", "-m", "8", "-i", "5000", "--max-samples", "100", "--wide"])
r = ks[0]["rows"][0]
check(r["pct"] == "hist", "pct column: %s" % r)
check(r["min_us"] <= r["p50_us"] <= r["p99_us"] <= r["max_us"], "histogram percentiles: %s" % r)
print("ok histogram percentiles")

# Options from the environment; the command line wins.
p, h, ks = run(2, ["bw", "-m", "8", "-t", "0.01"], env={"FABRICBENCH_WINDOW": "8"})
check(ks[0]["header"]["window"].startswith("8 messages"), "window from env")
p, h, ks = run(2, ["bw", "-m", "8", "-t", "0.01", "-w", "4"], env={"FABRICBENCH_WINDOW": "8"})
check(ks[0]["header"]["window"].startswith("4 messages"), "command line beats env")
print("ok FABRICBENCH_WINDOW")

# A sweep longer than a few seconds prints progress lines on stderr; -q silences them. Its
# length comes from the test hook's 20 ms sleep in each of 7 x 33 iterations (about 4.6 s),
# not from --time: beside busy loops a -t 0.7 size whose calibration caught a fast moment ran
# one block of tens of seconds.
p, h, ks = run(2, ["allreduce", "--nonblocking", "-m", "8:512", "-i", "30"],
               env={"FABRICBENCH_TEST_LAG": "1"})
check("progress:" in p.stderr and "[rank 0 " in p.stderr, "progress line: " + p.stderr)
check("progress:" not in p.stdout, "progress on stdout")
print("ok progress lines")
# The timer: --timer clock always works; --timer tsc works where the CPU has an invariant TSC
# (and is refused with exit 2 where not); auto picks tsc only where the kernel's clocksource
# is tsc (here read from a recorded value through FABRICBENCH_CLOCKSOURCE_FILE).
p, h, ks = run(2, ["latency", "-m", "8", "-t", "0.02", "--timer", "clock"])
check(h["timer"].startswith("CLOCK_MONOTONIC (--timer clock)"), "timer clock: " + h["timer"])
flags = open("/proc/cpuinfo").read().split()
invariant = "constant_tsc" in flags and "nonstop_tsc" in flags
if invariant:
    p, h, ks = run(2, ["latency", "-m", "8,4K", "-t", "0.02", "--timer", "tsc", "--validate"])
    check(h["timer"].startswith("tsc ("), "timer tsc: " + h["timer"])
    for r in ks[0]["rows"]:
        check(0 < r["min_us"] <= r["p50_us"] <= r["max_us"] and r["lat_us"] > 0,
              "tsc-timed row: %s" % r)
    fixture = os.path.join(os.environ.get("TMPDIR", "/tmp"), "fab-clocksource-%d" % os.getpid())
    for value, want in (("tsc", "tsc ("), ("kvm-clock", "CLOCK_MONOTONIC (tsc not used")):
        with open(fixture, "w") as f:
            f.write(value + "\n")
        p, h, ks = run(2, ["latency", "-m", "8", "-t", "0.01"],
                       env={"FABRICBENCH_CLOCKSOURCE_FILE": fixture})
        check(h["timer"].startswith(want), "auto with clocksource %s: %s" % (value, h["timer"]))
    os.unlink(fixture)
    print("ok --timer tsc and auto selection")
else:
    p, h, ks = run(2, ["latency", "-m", "8", "--timer", "tsc"], want_rc=2)
    check("invariant TSC" in p.stderr or "x86-64" in p.stderr, p.stderr)
    print("ok --timer tsc refused without an invariant TSC")
print("PASS behaviour")
