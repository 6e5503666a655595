# SPDX-License-Identifier: BSD-3-Clause
"""Bad command lines: each must end within a few seconds with exit 2 and a message that
names the problem (on rank 0 only), and no rank may be left waiting.

Most are refused by the option parser before MPI_Init ("fabricbench: error:"): those run once
each without mpirun (fabtest.direct, a twentieth of a second), which also shows that they are
refused before MPI starts. The refusals that need the ranks (their count, a rank that does not
exist, the memory of a rank) run under mpirun (AFTER_INIT), and so do a few of the others
(UNDER_MPIRUN), to show that a refusal before MPI_Init also ends every rank of a real launch;
one of them once more with rank 0 started 0.5 s after the others, whose refusal must not end
the job before rank 0's message is out.

usage: test_bad_input.py FABRICBENCH"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import FAILURES, check, direct, enter_scratch, expect, mpirun  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
# (ranks, arguments after `fabricbench run`, text the error must contain)
CASES = [
    (2, ["nosuchkernel"], "unknown kernel 'nosuchkernel'"),
    (2, ["latency", "-m", "0"], "size '0' is out of range; give a size from 1 to 1G bytes"),
    (2, ["latency", "-m", "8:abc"], "'abc' is not a size"),
    (2, ["latency", "-m", "1G:1K"], "runs backwards"),
    (2, ["latency", "-i", "-5"], "--iterations"),
    (2, ["latency", "-x", "-1"], "--warmup"),
    (2, ["bw", "-w", "0"], "--window"),
    (3, ["msgrate"], "multiple of 2 ranks"),
    (1, ["latency"], "needs at least 2 ranks"),
    (2, ["latency", "--pair", "0,0"], "names rank 0 twice"),
    (2, ["latency", "--pair", "0,9"], "rank 9 does not exist"),
    (2, ["latency", "--no-such-option"], "unknown option '--no-such-option'"),
    (2, ["latency", "-t", "0"], "--time"),
    (2, ["latency", "-m", "4X"], "unknown unit"),
    (2, ["latency", "-i"], "needs a value"),
    (2, ["latency", "--pml", "psm2"], "--pml"),
    (2, ["latency", "bw"], "unexpected argument 'bw'"),
    (2, ["latency", "--timer", "sundial"], "--timer"),
    (2, ["latency", "--fabric", "tcp", "--fabrics-file", "/dev/zero"], "not a regular file or a pipe"),
    (2, [","], "empty entry"),
    (2, ["allreduce", "--dtype", "complex"], "--dtype"),
    (2, ["latency,bw", "--dtype", "int8"], "--dtype int8: no kernel of this run has an element type"),
    (4, ["bw", "--pattern", "incast", "--pair", "2,3"], "bw runs on every rank under --pattern incast"),
    (2, ["bcast", "--root", "5"], "rank 5 does not exist"),
    (2, ["reduce", "--root", "-2"], "--root"),
    (2, ["gradsync", "--bucket", "0"], "--bucket"),
    (2, ["gradsync", "--bucket", "1"], "smaller than one element"),
    (2, ["gradsync", "--params", "1e12", "--bucket", "4K"], "more than a million buckets"),
    (2, ["gradsync", "--nonblocking"], "own non-blocking mode"),
    (2, ["allreduce", "--overlap-compute", "50"], "needs --nonblocking"),
    (2, ["gradsync", "--params", "-1"], "--params"),
    (2, ["gradsync", "--params", "0.4"], "not a whole number"),
    (2, ["gradsync", "--params", "1.5"], "not a whole number"),
    (2, ["gradsync", "--params", "0"], "--params: 0 is out of range"),
    (2, ["gradsync", "--inflight", "0"], "--inflight"),
    (2, ["latency,"], "empty entry"),
    (2, ["latency", "-m", "1,2:8"], "mixes a range and a list"),
    (2, ["latency", "--append", "--force"], "contradict"),
    (2, ["latency", "--line-rate", "fast"], "is not a rate"),
    (2, ["latency", "--fabric", "roce", "--device", "mlx5_0:x"], "the port after ':'"),
    (2, ["latency", "--device", "eth0"], "needs --fabric"),
    (2, ["latency", "--fabric", "warp"], "no such fabric profile"),
    (2, ["latency", "--placement", "everywhere"], "--placement"),
    (2, ["allreduce", "--sync", "fence"], "--sync: 'fence' is not one of none|barrier"),
    (2, ["latency", "--columns", "p50_us,p99.5_us"], "unknown column 'p99.5_us'"),
    (2, ["latency", "--columns", "bytes,,p50_us"], "has an empty name"),
    (2, ["latency", "--columns", "bytes,p50_us,bytes"], "names bytes twice"),
    (2, ["latency", "--wide", "--columns", "bytes"], "--wide and --columns"),
    # options that would be ignored: refused, saying what to use instead
    (2, ["allreduce", "-a", "3"], "-a/--average chooses the time of nccl-tests' formats only"),
    (2, ["alltoallv", "--experts", "8", "-m", "1M"], "-m/--sizes does not apply with --experts"),
    (2, ["alltoallv", "--counts", "m.txt", "-m", "1M"], "-m/--sizes does not apply with --counts"),
    (3, ["ladder"], "run ladder measures one pair through each layer and needs 2 ranks; this run "
                    "has 3"),
]

# Numbers (core/num.h, README "Numbers"): refused by the option parser before MPI_Init (the
# line is "fabricbench: error:", not a rank's), the message stating the range with its sign and
# unit. Kernel options too, through the kernel's option rows.
PRE_MPI = [
    (["tcp_stream", "--omit", "1e9"], "--omit: 1e9 is out of range; give a number from 0 to 60 s"),
    (["tcp_stream", "--omit", "-1"], "--omit: -1 is out of range; give a number from 0 to 60 s"),
    (["latency", "--stall-timeout", "1e9"],
     "--stall-timeout: 1e9 is out of range; give a whole number from 0 to 86400 s"),
    (["latency", "-i", "0x10"], "'0x10' is not a number (hexadecimal is not accepted"),
    (["latency", "-i", " 5"], "' 5' is not a number (spaces are not accepted)"),
    (["latency", "-t", "0x1p-2"], "-t/--time: '0x1p-2' is not a number (hexadecimal"),
    (["gradsync", "--params", "0.5"], "--params: 0.5 is not a whole number; give a whole number "
                                      "from 1 to 1e13 parameters"),
    (["latency", "--pair", "0,99999999999"], "out of range; give a whole number from 0 to 10000000"),
    (["tcp_stream", "--bind", "127.0.0.1,,::1"], "is not a list of addresses (it has an empty entry)"),
    (["latency", "--fabric", "tcp", "--device", "lo: 1"], "' 1' is not a number (spaces"),
]
CASES += [(2, args, needle) for args, needle in PRE_MPI]

# A size beyond memory, for real: 1G messages under a 2 GB address-space limit (ulimit -v) on
# each rank; the check refuses before anything is allocated.
LIMITED = ["bash", "-c", 'ulimit -v 2000000 && exec "$@"', "sh"]
CASES.append((2, ["latency", "-m", "1G"], "ulimit -v"))
# gradsync's own bucket buffers count too: 2 x 8 buckets of 256 MiB is more than 2 GB.
CASES.append((2, ["gradsync", "--params", "1e9", "--bucket", "256M", "--inflight", "8"],
              "lower --bucket or --inflight, or raise ulimit -v"))

# Refused by rank 0 after MPI_Init: they need the ranks (their count, a rank that does not
# exist, the memory of each). Every other case is refused before MPI_Init and runs directly.
AFTER_INIT = ("multiple of 2 ranks", "needs at least 2 ranks", "rank 9 does not exist",
              "rank 5 does not exist", "smaller than one element", "more than a million buckets",
              "own non-blocking mode", "ulimit -v", "lower --bucket or --inflight",
              "-m/--sizes does not apply", "run ladder measures one pair")
# Refused before MPI_Init, and also run under mpirun (2 and 3 ranks): every rank ends, rank 0
# alone says why.
UNDER_MPIRUN = ("unknown kernel 'nosuchkernel'", "'abc' is not a size",
                "--omit: 1e9 is out of range; give a number from 0 to 60 s")


def judge(np, args, needle, p, took, launched):
    """Check one refusal (soft: every case is checked and the failures reported at the end)."""
    errs = p.stderr
    problems = []
    if p.returncode != 2:
        problems.append("exit %d, want 2" % p.returncode)
    if needle not in errs:
        problems.append("stderr lacks %r" % needle)
    lines = [l for l in errs.splitlines() if "error:" in l]
    if len(lines) != 1:
        problems.append("want exactly one error line, got %d" % len(lines))
    elif not (lines[0].startswith("fabricbench: error:") or
              lines[0].startswith("[rank 0 ")):
        problems.append("the error line is not rank 0's: " + lines[0])
    if "hint:" not in errs:
        problems.append("no hint line")
    before_init = not any(n in needle for n in AFTER_INIT)
    if before_init and not (lines and lines[0].startswith("fabricbench: error:")):
        problems.append("not refused before MPI_Init (the error is not 'fabricbench: error:')")
    if took > 15:
        problems.append("took %.1f s" % took)
    if p.stdout.strip() and "# kernel" in p.stdout:
        problems.append("something was measured")
    status = "ok" if not problems else "FAIL (" + "; ".join(problems) + ")"
    print("%-8s np=%d %-40s %.2fs %s" % (launched, np, " ".join(args), took, status))
    if problems:
        print("    stderr: " + errs.replace("\n", "\n    "))
    expect(not problems, "%s %s (np=%d): %s" % (launched, " ".join(args), np,
                                                "; ".join(problems)))


launches = 0
for np, args, needle in CASES:
    launch = (LIMITED if "ulimit" in needle else []) + [exe, "run"]
    after_init = any(n in needle for n in AFTER_INIT)
    runs = []
    if not after_init:
        runs.append("direct")
    if after_init or needle in UNDER_MPIRUN:
        runs.append("mpirun")
    for how in runs:
        t0 = time.monotonic()
        if how == "direct":
            p = direct(launch + args, timeout=30)
            judge(1, args, needle, p, time.monotonic() - t0, how)
        else:
            launches += 1
            p = mpirun(np, launch + args, timeout=30)
            judge(np, args, needle, p, time.monotonic() - t0, how)
        if how == "mpirun" and not after_init and np == 2:
            launches += 1  # the same refusal on 3 ranks
            t0 = time.monotonic()
            p = mpirun(3, launch + args, timeout=30)
            judge(3, args, needle, p, time.monotonic() - t0, how)
# Rank 0 late (0.5 s, as a loaded machine once made it): the other ranks refuse at once, and
# mpirun ends the job at their non-zero exit; they linger (FAB_REFUSE_LINGER_S, 2 s) so that
# rank 0's message is out first. Without the lingering this case has no error line at all.
LATE0 = ["sh", "-c", 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then sleep 0.5; fi; exec "$0" "$@"']
launches += 1
t0 = time.monotonic()
p = mpirun(3, LATE0 + [exe, "run", "tcp_stream", "--omit", "1e9"], timeout=30)
judge(3, ["tcp_stream", "--omit", "1e9", "(rank 0 late)"], UNDER_MPIRUN[2], p,
      time.monotonic() - t0, "mpirun")
check(all(any(n in c[2] for c in CASES) for n in AFTER_INIT + UNDER_MPIRUN),
      "a name in AFTER_INIT or UNDER_MPIRUN matches no case")
print("%s: %d bad command lines, %d mpirun launches" % ("FAIL" if FAILURES else "PASS",
                                                       len(CASES), launches))
