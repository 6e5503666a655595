# SPDX-License-Identifier: BSD-3-Clause
"""The pairs kernels on one machine (--pairs-per rank): shapes, definitions and exit codes of
a live run; the verdict's logic itself is unit.pairs (synthetic matrices with known faults).

- pairs_latency on 5 ranks, rounds schedule: 5 rounds (odd: each member sits one out), every
  pair in exactly one round, the matrix symmetric, p99 >= p50 > 0; the verdict in the file,
  on stdout and in `show` agrees with the exit code (0 healthy, 1 suspects).
- pairs_bw on 4 ranks, serial schedule: 6 rounds of one pair, both directions measured.
- shift schedule (pairs_bw on 4 ranks, pairs_latency on 3): n-1 rounds, in round r member i
  sends to i+r+1 (mod n), every ordered pair measured once.
- The default iteration policy (adaptive, pairs_bw on 4 ranks, --pair-time 0.2): every pair
  and direction has at least 10 timed iterations (the floor) in pair_iterations, the
  attributes `iterations` and `iterations_max` are their fewest and most, the row's
  iterations the fewest and its quality not invalid, the window pairs_bw's own 8; the
  expected and the longest duration are stated at the start (stderr and the kernel's
  detail). With a line rate no pair reaches (--line-rate 10000G) and no pair slow against
  the others (--slow-bw 0.01), the fabric as a whole is named and no pair is retested (they
  all stand out from nothing). -t on pairs_latency (shift): policy time, >= --min-iters.
- --retest: with FABRICBENCH_TEST_PAIRS_LOADED=1 every pair of member 1 is slowed in the
  schedule only; with --retest on those pairs are measured again alone (both values kept;
  in the schedule every direction's mean iteration at least the hook's 50 ms, alone at most
  two of the six directions that slow), with --retest off member 1 is named and nothing is
  retested.
- Refused before measuring (exit 2): one host without --pairs-per rank; two sizes.
- kill -9 during a run: the file keeps the rounds finished, each pair in them, and no verdict.
- A rank stopped (SIGSTOP) in its pair: its partner names it within --stall-timeout plus a
  few seconds, exit 3, the file marked failed; the ranks without a pair in that round do not
  take the long round for a stall.

usage: test_pairs.py FABRICBENCH [--sanitized]
  --sanitized (asan.mpi.pairs, the ASan/UBSan build): every case but kill -9, whose SIGKILL
  leaves the sanitizers nothing to report (the killed ranks run no further code, and the
  rounds before it are those the other cases run); mpi.pairs runs it"""
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, fail, mpi_env, mpirun, mpirun_cmd  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
SANITIZED = sys.argv[2:] == ["--sanitized"]
check(len(sys.argv) == 2 or SANITIZED, "usage: test_pairs.py FABRICBENCH [--sanitized]")


def matrix(path, kernel):
    f = h5py.File(path, "r")
    k = [g for name, g in f["runs/run_0000/kernels"].items() if name.endswith(kernel)][0]
    return f, k, k["matrix"]


def check_verdict(r, path, kernel, n):
    check(r.returncode in (0, 1), "%s: exit %d\n%s" % (kernel, r.returncode, r.stderr))
    f, k, m = matrix(path, kernel)
    verdict = m.attrs["verdict"]
    nsus = len(m["suspects"])
    check(verdict == ("healthy" if r.returncode == 0 else "suspects"),
          "%s: exit %d but verdict %s" % (kernel, r.returncode, verdict))
    check((nsus > 0) == (r.returncode == 1), "%s: %d suspects, exit %d" %
          (kernel, nsus, r.returncode))
    want = "complete" if r.returncode == 0 else "complete, suspects named"
    check(k.attrs["status"] == want, "kernel status %s, want %s" % (k.attrs["status"], want))
    check(m.attrs["pairs_measured"] == n * (n - 1) // 2, "pairs_measured %s" %
          m.attrs["pairs_measured"])
    check("# verdict: %s" % ("healthy" if r.returncode == 0 else "SUSPECTS") in r.stdout,
          "no verdict line on stdout:\n" + r.stdout)
    show = subprocess.run([exe, "show", path], capture_output=True, text=True)
    check(show.returncode == 0, "show: exit %d %s" % (show.returncode, show.stderr))
    check("verdict: %s" % verdict in show.stdout, "show lacks the verdict:\n" + show.stdout)
    check(show.stdout.count("# suspect: ") == nsus, "show: suspects:\n" + show.stdout)
    f.close()


def rounds_ok(rnd, n, nrounds, per_round):
    off = ~np.eye(n, dtype=bool)
    check((rnd == rnd.T).all(), "round matrix not symmetric:\n%s" % rnd)
    check((rnd[off] >= 0).all() and (rnd[off] < nrounds).all(), "rounds:\n%s" % rnd)
    check((np.diag(rnd) == -1).all(), "diagonal:\n%s" % rnd)
    for r in range(nrounds):
        pairs = np.argwhere(np.triu(rnd == r))
        check(len(pairs) == per_round, "round %d has %d pairs:\n%s" % (r, len(pairs), rnd))
        check(len(set(pairs.flatten())) == 2 * per_round, "a member twice in round %d" % r)


# pairs_latency, 5 ranks, rounds
r = mpirun(5, [exe, "run", "pairs_latency", "--pairs-per", "rank", "-i", "200", "-o", "lat.h5"])
check_verdict(r, "lat.h5", "pairs_latency", 5)
f, k, m = matrix("lat.h5", "pairs_latency")
check(m.attrs["schedule"] == "rounds" and m.attrs["rounds"] == 5 and m.attrs["rounds_done"] == 5,
      "attrs %s" % dict(m.attrs))
names = [s.decode() for s in m["nodes"][:]]
check(len(names) == 5 and all(":%d" % i in names[i] for i in range(5)), "nodes %s" % names)
rounds_ok(m["round"][:], 5, 5, 2)
p50, p99 = m["lat_p50_us"][:], m["lat_p99_us"][:]
off = ~np.eye(5, dtype=bool)
check(np.isfinite(p50[off]).all() and (p50[off] > 0).all() and np.isnan(np.diag(p50)).all(),
      "p50:\n%s" % p50)
# 200 samples per pair are too few for a p99 (n >= 10/(1-p) = 1000): NaN, not a number that
# means nothing
check(np.isnan(p99).all() and np.allclose(p50, p50.T, equal_nan=True), "p99/p50:\n%s" % p99)
check(len(k["table/bytes"]) == 1 and k["table/bytes"][0] == 8, "one row of 8 B")
check(abs(k["table/p50_us"][0] - np.median(p50[np.triu(off)])) < 1e-3 * k["table/p50_us"][0],
      "the row's p50 is the median pair's: %s vs %s" % (k["table/p50_us"][0],
                                                        np.median(p50[np.triu(off)])))
f.close()

# pairs_bw, 4 ranks, serial
r = mpirun(4, [exe, "run", "pairs_bw", "--pairs-per", "rank", "--schedule", "serial", "-m", "64K",
               "-i", "5", "-o", "bw.h5"])
check_verdict(r, "bw.h5", "pairs_bw", 4)
f, k, m = matrix("bw.h5", "pairs_bw")
rounds_ok(m["round"][:], 4, 6, 1)
bw = m["bw_MBps"][:]
off = ~np.eye(4, dtype=bool)
check(np.isfinite(bw[off]).all() and (bw[off] > 0).all(), "bw:\n%s" % bw)
check(m.attrs["bytes"] == 65536 and m.attrs["iterations"] == 5, "attrs %s" % dict(m.attrs))
f.close()

# the default policy: adaptive per pair, the floor under every pair, the expected duration
r = mpirun(4, [exe, "run", "pairs_bw", "--pairs-per", "rank", "-m", "64K", "--pair-time", "0.2",
               "--line-rate", "10000G", "--slow-bw", "0.01", "-o", "adaptive.h5"])
check(r.returncode == 1, "adaptive: exit %d\n%s\n%s" % (r.returncode, r.stdout, r.stderr))
f, k, m = matrix("adaptive.h5", "pairs_bw")
it = m["pair_iterations"][:]
off = ~np.eye(4, dtype=bool)
check(m.attrs["policy"] == "adaptive" and m.attrs["pair_time_s"] == 0.2, "attrs %s" %
      dict(m.attrs))
check((it[off] >= 10).all() and (np.diag(it) == -1).all(), "pair_iterations below the floor "
      "of 10:\n%s" % it)
check(m.attrs["iterations"] == it[off].min() and m.attrs["iterations_max"] == it[off].max() and
      m.attrs["blocks_min"] >= 3 and m.attrs["warmup"] >= 1, "attrs %s vs\n%s" %
      (dict(m.attrs), it))
check(k["table/iterations"][0] == it[off].min() and k["table/quality"][0] != b"invalid",
      "row: %s iterations, quality %s" % (k["table/iterations"][0], k["table/quality"][0]))
check(k.attrs["window"] == 8, "pairs_bw's window %s" % k.attrs["window"])
detail = k.attrs["detail"]
check("expected" in detail and "at most" in detail and "expected" in r.stderr,
      "no expected duration: %s\n%s" % (detail, r.stderr))
sus = [s.decode() for s in m["suspects"][:]]
check(sus and sus[0].startswith("fabric: ") and m.attrs["retests"] == 0 and
      m.attrs["retested"] == 0 and "retest_bw_MBps" not in m,
      "fabric as a whole: suspects %s, retests %s" % (sus, m.attrs["retests"]))
f.close()

# shift: every member at once, each ordered pair once
for kernel, n, extra in (("pairs_bw", 4, ["-m", "64K", "-i", "5"]),
                         ("pairs_latency", 3, ["-t", "0.02"])):
    path = "shift-%s.h5" % kernel
    r = mpirun(n, [exe, "run", kernel, "--pairs-per", "rank", "--schedule", "shift", "-o", path]
               + extra)
    check_verdict(r, path, kernel, n)
    f, k, m = matrix(path, kernel)
    check(m.attrs["schedule"] == "shift" and m.attrs["rounds"] == n - 1, "attrs %s" %
          dict(m.attrs))
    rnd = m["round"][:]
    want = np.array([[-1 if i == j else (j - i - 1) % n for j in range(n)] for i in range(n)])
    check((rnd == want).all(), "shift rounds:\n%s\nwant\n%s" % (rnd, want))
    if kernel == "pairs_latency":
        it = m["pair_iterations"][:][~np.eye(n, dtype=bool)]
        check(m.attrs["policy"] == "time" and (it >= 10).all(), "-t: policy %s, iterations %s"
              % (m.attrs["policy"], it))
    v = m["bw_MBps" if kernel == "pairs_bw" else "lat_p50_us"][:]
    off = ~np.eye(n, dtype=bool)
    check(np.isfinite(v[off]).all() and (v[off] > 0).all() and np.isnan(np.diag(v)).all(),
          "shift values:\n%s" % v)
    f.close()

# --retest: member 1's pairs slowed in the schedule only (a test hook). The hook's sleep,
# FAB_PAIRS_TEST_DELAY_NS in src/pairs/pairs_measure.c: long enough that member 1 stands out
# against the median pair also when load stretches the other pairs' iterations (one took
# 18 ms beside a CPU hog and an mpirun loop).
HOOK_S = 0.050
for mode in ("on", "off"):
    path = "retest-%s.h5" % mode
    r = mpirun(4, [exe, "run", "pairs_bw", "--pairs-per", "rank", "-m", "4K", "-w", "16", "-i",
                   "10", "--retest", mode, "-o", path], env={"FABRICBENCH_TEST_PAIRS_LOADED": "1"})
    check_verdict(r, path, "pairs_bw", 4)
    f, k, m = matrix(path, "pairs_bw")
    check(m.attrs["retest"] == mode, "retest attribute %s" % m.attrs["retest"])
    bw = m["bw_MBps"][:]
    if mode == "off":
        check(r.returncode == 1 and m["node_suspect"][1] >= 0, "member 1 not named without "
              "retests: exit %d\n%s" % (r.returncode, r.stdout))
        check("retest_bw_MBps" not in m and "retests" not in m.attrs, "retest data with "
              "--retest off")
        f.close()
        continue
    re = m["retest_bw_MBps"][:]
    check(m.attrs["retests"] >= 3 and m.attrs["retested"] == m.attrs["retests"],
          "retests %s, retested %s" % (m.attrs["retests"], m.attrs["retested"]))
    # The hook sleeps HOOK_S in every timed iteration in the schedule, none alone. In the
    # schedule the mean iteration of every direction (4 KiB x 16) is therefore at least HOOK_S,
    # whatever the machine does. Alone a loaded machine may stretch a direction's iterations
    # (one took 18 ms beside a CPU hog and an mpirun loop), so the proof that the retests ran
    # without the hook is that most directions took less than HOOK_S an iteration: at most two
    # of the six at or above it (a hook left on in one direction of every pair makes three).
    per_iter = 4096 * 16 / 1e6  # MB per iteration
    sched_s, alone_s = [], []
    for j in (0, 2, 3):
        for a, b in ((1, j), (j, 1)):
            check(np.isfinite(re[a, b]) and re[a, b] > 0, "pair %d->%d: no retest value %s"
                  % (a, b, re[a, b]))
            sched_s.append(per_iter / bw[a, b])
            alone_s.append(per_iter / re[a, b])
    check(min(sched_s) >= HOOK_S * (1 - 1e-9), "in the schedule an iteration of member 1's "
          "pairs took less than the hook's %g s: %s s" % (HOOK_S, sched_s))
    check(sum(v >= HOOK_S for v in alone_s) <= 2, "alone more than two directions of member "
          "1's pairs took the hook's %g s or more an iteration (the retests slowed by the "
          "hook?): %s s" % (HOOK_S, alone_s))
    check(int(np.isfinite(re).sum()) == 2 * m.attrs["retested"], "retest values of pairs not "
          "retested:\n%s" % re)
    slow = m["pair_slow"][:]
    load = int(((slow & 8) != 0)[np.triu(np.ones((4, 4), dtype=bool), 1)].sum())
    check(load == m.attrs["pairs_load_only"] and
          all(slow[a, b] == 8 or (slow[a, b] & 8) == 0 for a in range(4) for b in range(4)
              if a != b),
          "load-only bits:\n%s, pairs_load_only %s" % (slow, m.attrs["pairs_load_only"]))
    check("# retest: %d pairs slow in the rounds schedule" % m.attrs["retests"] in r.stdout,
          "no retest line:\n" + r.stdout)
    show = subprocess.run([exe, "show", path], capture_output=True, text=True)
    check("# retest: %d of %d slow pairs" % (m.attrs["retested"], m.attrs["retests"]) in
          show.stdout, "show lacks the retest line:\n" + show.stdout)
    f.close()

# refused before measuring
r = mpirun(2, [exe, "run", "pairs_bw", "-o", "none"])
check(r.returncode == 2 and "measures pairs of nodes" in r.stderr and "--pairs-per rank" in
      r.stderr, "one host: exit %d %s" % (r.returncode, r.stderr))
r = mpirun(2, [exe, "run", "pairs_latency", "--pairs-per", "rank", "-m", "8,16", "-o", "none"])
check(r.returncode == 2 and "one message size" in r.stderr, "two sizes: exit %d %s" %
      (r.returncode, r.stderr))


def kill_case():
    """kill -9 in the middle: finished rounds kept. Rounds long enough (200000 round trips,
    about a second) that the poll below cannot miss the middle of the run on a fast machine.
    Returns the rounds kept."""
    cmd = (mpirun_cmd(4) +
           [exe, "run", "pairs_latency", "--pairs-per", "rank", "--schedule", "serial", "-i",
            "200000", "-o", "kill.h5"])
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=mpi_env(),
                         start_new_session=True)
    done, deadline = 0, time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None and done < 2:
        time.sleep(0.1)
        try:
            with h5py.File("kill.h5", "r") as f:
                done = int(f["runs/run_0000/kernels/00_pairs_latency/matrix"].attrs["rounds_done"])
        except (OSError, KeyError):
            pass
    check(p.poll() is None, "the run ended before it could be killed (rounds done: %d)" % done)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    f, k, m = matrix("kill.h5", "pairs_latency")
    kept = int(m.attrs["rounds_done"])
    rnd = m["round"][:]
    check(2 <= kept < 6, "rounds kept: %d" % kept)
    check(sorted(set(rnd[rnd >= 0].tolist())) == list(range(kept)), "rounds in the matrix %s" % rnd)
    check(np.isfinite(m["lat_p50_us"][:][rnd >= 0]).all(), "a kept round without values")
    check(np.isnan(m["lat_p50_us"][:][(rnd < 0) & ~np.eye(4, dtype=bool)]).all(), "values of "
          "rounds not finished")
    check("verdict" not in m.attrs, "a verdict without the end of the run")
    f.close()
    return kept


kept = None if SANITIZED else kill_case()

# a rank stopped in its pair: round 0 of serial is ranks 0 and 1; ranks 2 and 3 wait
def rank_pid(proc_pid, rank):
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if (b"stop.h5" in argv and os.path.basename(argv[0].decode()) == os.path.basename(exe)
                and b"OMPI_COMM_WORLD_RANK=%d" % rank in env):
            return int(pid)
    return None


cmd = (mpirun_cmd(4) +
       [exe, "run", "pairs_latency", "--pairs-per", "rank", "--schedule", "serial", "-i",
        "100000000", "--stall-timeout", "5", "-o", "stop.h5"])
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=mpi_env(), start_new_session=True)
deadline = time.monotonic() + 60
while not os.path.exists("stop.h5") and time.monotonic() < deadline:
    time.sleep(0.1)
time.sleep(2)  # into round 0's iterations
victim = rank_pid(p.pid, 1)
check(victim is not None and p.poll() is None, "no rank 1 to stop")
os.kill(victim, signal.SIGSTOP)
t0 = time.monotonic()
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    try:
        os.kill(victim, signal.SIGKILL)
    except ProcessLookupError:
        pass
    fail("a rank stopped in its pair: no end after 60 s")
took = time.monotonic() - t0
try:
    os.kill(victim, signal.SIGKILL)  # mpirun ends it; make sure
except ProcessLookupError:
    pass  # mpirun was first
check(p.returncode == 3 and took < 15, "stopped rank: exit %d after %.1f s\n%s" %
      (p.returncode, took, err))
check("waiting for rank 1" in err and "pairs_latency" in err, "the message names rank 1:\n" + err)
check("gathering" not in err, "a rank without a pair took the round for a stall:\n" + err)
with h5py.File("stop.h5", "r") as f:
    check(f["runs/run_0000"].attrs["status"] == "failed", "file status %s" %
          f["runs/run_0000"].attrs["status"])
print("ok pairs: rounds, serial, adaptive, shift, retest on/off, refusals, %s, a stopped rank "
      "named after %.1f s" % ("kill -9 in mpi.pairs" if kept is None else
                              "kill -9 after %d rounds" % kept, took))
