# SPDX-License-Identifier: BSD-3-Clause
"""No hang from the first instruction to the last: start-up and the end are bounded by
--startup-timeout, and a file-size limit is a reported error, never a death by a signal.

Each rank is stopped or hung at a chosen point by FABRICBENCH_TEST_STOP_AT=RANK:POINT[:hang]
(SIGSTOP on itself, or a sleep), with --startup-timeout 3:
- rank 1 stopped before MPI_Init: rank 0, waiting in MPI_Init, ends the job with exit 3
  within the bound, naming the phase, its rank and host;
- rank 1 stopped after MPI_Init, before the first collectives: rank 0 names that phase;
- rank 1 hanging while it prepares the fabric (an MPMD launch gives rank 0 a longer bound):
  rank 1's own guard names the phase;
- rank 1 stopped before MPI_Finalize: rank 0 names MPI_Finalize, the file is complete;
- rank 1 hanging after MPI_Finalize: its own guard ends it;
- the ranks under `ulimit -f` (a limit too small for MPI's shared-memory files): exit 3 before
  MPI_Init naming the limit; no rank dies by SIGXFSZ.
After each, no fabricbench process of the case is left.

The cases run side by side, LANES at a time (each waits mostly on a stopped or hung rank and a
bound of 2-3 s; files, session directories and the processes looked for are each case's own);
their checks follow in the order above.

usage: test_startup.py FABRICBENCH"""
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import fabtest  # noqa: E402
from fabtest import check, enter_scratch, mpi_env, mpirun_cmd  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
HOST = socket.gethostname()
BOUND = 3  # --startup-timeout of the cases
LANES = 3  # cases at once


def launch(np, args, env=None, limit=40):
    """mpirun NP fabricbench run ARGS: (exit code, stdout, stderr, seconds)."""
    cmd = mpirun_cmd(np) + [exe, "run"] + args
    return timed(cmd, env, limit)


def timed(cmd, env, limit):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=mpi_env(env))
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        fail_left(cmd)
        check(False, "the job hung: no end within %d s:\n%s" % (limit, err[-2000:]))
    return p.returncode, out, err, time.monotonic() - t0


def fail_left(cmd):
    """Kill what a failed case left (its ranks name a file of their own)."""
    for pid in fabtest.rank_pids(exe, cmd[-1]):
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def nothing_left(path):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and fabtest.rank_pids(exe, path):
        time.sleep(0.1)
    left = fabtest.rank_pids(exe, path)
    for pid in left:
        os.kill(pid, 9)
    check(not left, "processes of the job left behind: %r" % left)


def case(point, path, np=2, extra=()):
    env = {"FABRICBENCH_TEST_STOP_AT": point}
    args = ["latency", "-m", "8", "-i", "100", "--startup-timeout", str(BOUND)] + list(extra)
    rc, out, err, took = launch(np, args + ["-o", path], env)
    nothing_left(path)
    return rc, out, err, took


def said(err, rank, text):
    """A line of rank RANK (prefix [rank N HOST]) holding every piece of text."""
    pre = "[rank %d %s] error: " % (rank, HOST)
    return any(line.startswith(pre) and all(t in line for t in text)
               for line in err.splitlines())


# MPMD: rank 0 with a bound of 30 s, rank 1 with 2 s: rank 1's own guard is the one to end it.
def case_fabric():
    base = ["run", "latency", "-m", "8", "-i", "100", "-o", "fabric.h5", "--startup-timeout"]
    cmd = mpirun_cmd(1, [exe] + base + ["30"] + [":", "-np", "1", exe] + base + ["2"])
    res = timed(cmd, {"FABRICBENCH_TEST_STOP_AT": "1:fabric:hang"}, 40)
    nothing_left("fabric.h5")
    return res


# The limit on the ranks only (mpirun itself breaks under it: its PMIx data store is a file).
def case_fsize():
    res = timed(mpirun_cmd(2) +
                ["sh", "-c", 'ulimit -f 600; exec "$0" "$@"', exe, "run", "latency",
                 "-m", "8", "-i", "100", "-o", "fsize.h5"], None, 60)
    nothing_left("fsize.h5")
    return res


# Every case's run, LANES at a time; a check that fails inside one (a hang, a process left)
# stops the test when its result is taken below.
with ThreadPoolExecutor(LANES) as pool:
    RUNS = {"init": pool.submit(case, "1:init", "init.h5"),
            "world": pool.submit(case, "1:world", "world.h5"),
            "fabric": pool.submit(case_fabric),
            "fin": pool.submit(case, "1:finalize", "fin.h5"),
            "exit": pool.submit(case, "1:exit:hang", "exit.h5"),
            "fsize": pool.submit(case_fsize)}
    RUNS = {name: f.result() for name, f in RUNS.items()}

# ---------------------------------------------------------------- stopped before MPI_Init
rc, out, err, took = RUNS["init"]
check(rc == 3 and took < BOUND + 10, "rank 1 stopped before MPI_Init: exit %d after %.1f s\n%s"
      % (rc, took, err[-2000:]))
check(said(err, 0, ["start-up did not finish within %d s (--startup-timeout)" % BOUND,
                    "in MPI_Init"]), "rank 0 names MPI_Init:\n%s" % err[-2000:])
check(not os.path.exists("init.h5"), "a file appeared although no run started")
print("ok rank 1 stopped before MPI_Init: rank 0 (%s) names MPI_Init, exit 3 after %.1f s"
      % (HOST, took))

# ---------------------------------------------------------------- stopped after MPI_Init
rc, out, err, took = RUNS["world"]
check(rc == 3 and took < BOUND + 10, "rank 1 stopped after MPI_Init: exit %d after %.1f s\n%s"
      % (rc, took, err[-2000:]))
check(said(err, 0, ["start-up did not finish", "setting up after MPI_Init"]),
      "rank 0 names the world's set-up:\n%s" % err[-2000:])
print("ok rank 1 stopped after MPI_Init: rank 0 names the set-up, exit 3 after %.1f s" % took)

# ---------------------------------------------------------------- hung before MPI_Init
# MPMD: rank 0 with a bound of 30 s, rank 1 with 2 s (case_fabric)
rc, out, err, took = RUNS["fabric"]
check(rc == 3 and took < 2 + 10, "rank 1 hung before MPI_Init: exit %d after %.1f s\n%s"
      % (rc, took, err[-2000:]))
check(said(err, 1, ["start-up did not finish within 2 s", "preparing the fabric"]),
      "rank 1 names its phase:\n%s" % err[-2000:])
print("ok rank 1 hung preparing the fabric: it names the phase itself, exit 3 after %.1f s"
      % took)

# ---------------------------------------------------------------- stopped before MPI_Finalize
rc, out, err, took = RUNS["fin"]
check(rc == 3, "rank 1 stopped before MPI_Finalize: exit %d\n%s" % (rc, err[-2000:]))
check(said(err, 0, ["the run's end did not finish within %d s" % BOUND, "in MPI_Finalize"]),
      "rank 0 names MPI_Finalize:\n%s" % err[-2000:])
with h5py.File("fin.h5", "r") as f:
    st = f["runs/run_0000"].attrs["status"]
check(st == "complete", "the file of a run that ended before MPI_Finalize: %s" % st)
print("ok rank 1 stopped before MPI_Finalize: rank 0 names it, exit 3 after %.1f s, the file "
      "complete" % took)

# ---------------------------------------------------------------- hung after MPI_Finalize
rc, out, err, took = RUNS["exit"]
check(rc == 3, "rank 1 hung after MPI_Finalize: exit %d\n%s" % (rc, err[-2000:]))
check(said(err, 1, ["the run's end did not finish", "exiting after MPI_Finalize"]),
      "rank 1 names its exit:\n%s" % err[-2000:])
print("ok rank 1 hung after MPI_Finalize: its own guard ends it, exit 3 after %.1f s" % took)

# ---------------------------------------------------------------- a file-size limit
# The limit on the ranks only (case_fsize)
rc, out, err, took = RUNS["fsize"]
check(rc == 3 and "exited on signal" not in err,
      "ulimit -f: exit %d (3 expected, no death by a signal)\n%s" % (rc, err[-2000:]))
check(said(err, 0, ["file-size limit here (ulimit -f) is 300 KiB", "exit 3"]) and
      said(err, 1, ["file-size limit"]), "the limit named on every rank:\n%s" % err[-2000:])
check(not os.path.exists("fsize.h5"), "a file appeared although MPI never started")
print("ok ulimit -f 300 KiB on the ranks: exit 3 before MPI_Init, named on each rank")
print("PASS startup")
