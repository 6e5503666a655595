# SPDX-License-Identifier: BSD-3-Clause
"""Jobs that reach their time limit in the middle of a fabric sweep, on a real Slurm.

Three sweeps ("ib tcp:fab0 tcp:fab1"; latency, bw and bibw over 21 sizes at 2 s each, about
140 s: longer than the limit, with a row every 2 s), submitted at once and running side by
side (--oversubscribe: three 2-node jobs on the 2-core nodes):
  A  as shipped, but warned WARN s before the limit (--signal=B:USR1@WARN): the batch shell
     passes SIGUSR1 on to the ranks through srun; the job ends before its limit (FAILED,
     exit 4);
  B  without any warning signal (the #SBATCH --signal line removed, as on a site that strips
     it): Slurm's SIGTERM at the limit reaches the ranks and the batch shell (TIMEOUT);
  C  as A, launched with mpirun (FB_LAUNCH=mpirun), which passes SIGUSR1 on to the ranks.
Each: the tcp:fab0 file holds the completed rows only (no ragged columns; as many rows as the
CSV) and is marked interrupted, tcp:fab1 is not run, the job output says where the partial
results are.

Time: Slurm's limits are whole minutes, and slurmctld looks at them (and sends the warnings)
every 30 s (PERIODIC_TIMEOUT): with `-t 1` a warning came 20-50 s after a job's start and the
time limit's SIGTERM 60-90 s after it. Here each job is submitted with a limit it cannot reach
by itself (-t 5), and once its tcp:fab0 run has a row (so that the signal always finds
completed rows and a sweep in the middle) its end is moved to a time of our choosing by
`scontrol update EndTime=`, the same end time that `-t` sets: A's and C's to WARN + 30 s from
then, so that the next 30 s check sends the warning (Slurm warns when the end is within WARN +
30 s) and WARN to WARN + 30 s remain for the job to end by itself; B's to 2 s from then, so
that the first check after it ends B by its time limit. Each job then ends 0-35 s after its
first row, and the three together in about 30-60 s from the start.

usage: test_timelimit.py FABRICBENCH  (skips with exit 77 without root, Slurm or munge)"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import slurmtest  # noqa: E402
from slurmtest import JOBSCRIPTS, check, csv_rows, read_run, sweep_skip_lines  # noqa: E402

WARN = 30  # --signal=B:USR1@WARN: seconds of warning before the limit
T0 = time.monotonic()
c, res, ENV = slurmtest.start(nodes=2)
ENV.update({"FB_FABRICS": "ib tcp:fab0 tcp:fab1", "FB_KERNELS": "latency,bw,bibw",
            "FB_SIZES": "1:1M", "FB_ARGS": "-t 2 --placement none -q"})
SIZES = [1 << i for i in range(21)]
KERNELS = ["latency", "bw", "bibw"]
sweep = os.path.join(JOBSCRIPTS, "fabric-sweep.sbatch")
with open(sweep) as f:
    text = f.read()
check("#SBATCH --signal=B:USR1@" in text, "fabric-sweep.sbatch asks for no warning signal")
no_warning = "".join(l for l in text.splitlines(True) if not l.startswith("#SBATCH --signal"))


def fab0(jid):
    return os.path.join(res, "fabric-sweep-%s-tcp-fab0.h5" % jid)


t_submit = time.monotonic()
# -t 5: no warning (at 5 min - WARN - 30 s) nor limit before the end is moved (below)
opts = ["-t", "5", "--oversubscribe"]
warned = opts + ["--signal=B:USR1@%d" % WARN]
jid_a = c.sbatch(sweep, opts=warned, extra_env=ENV)
jid_b = c.sbatch(None, opts=opts, input=no_warning, extra_env=ENV)
env_c = dict(ENV, FB_LAUNCH="mpirun", FB_MPIRUN_ARGS="--bind-to none")
jid_c = c.sbatch(sweep, opts=warned, extra_env=env_c)
# The end of each job moved once its tcp:fab0 run has a row (see the docstring).
end_in = {jid_a: WARN + 30, jid_b: 2, jid_c: WARN + 30}
moved = {}
while len(moved) < len(end_in):
    for jid in end_in:
        if jid in moved:
            continue
        i = c.job(jid)
        csv = fab0(jid)[:-3] + ".csv"
        check(i.get("JobState") in ("PENDING", "CONFIGURING", "RUNNING"),
              "job %s is %s before its first tcp:fab0 row\n--- job output:\n%s\n--- logs:\n%s"
              % (jid, i.get("JobState"), c.output(jid)[-5000:], c.logs()))
        if i.get("JobState") == "RUNNING" and os.path.exists(csv) and csv_rows(csv):
            p = c.client(["scontrol", "update", "JobId=%s" % jid,
                          "EndTime=now+%d" % end_in[jid]])
            check(p.returncode == 0, "scontrol update JobId=%s EndTime=now+%d: exit %d %s%s"
                  % (jid, end_in[jid], p.returncode, p.stdout, p.stderr))
            moved[jid] = time.monotonic()
    check(time.monotonic() - t_submit < 150, "no tcp:fab0 row within 150 s of submission in "
          "jobs %s" % ", ".join(j for j in end_in if j not in moved))
    time.sleep(0.5)
print("the jobs' ends moved %s s after submission" % ", ".join(
    "%.0f" % (moved[j] - t_submit) for j in end_in), flush=True)
info = {j: c.wait(j, 120) for j in (jid_a, jid_b, jid_c)}
print("jobs %s (warned), %s (time limit) and %s (warned, mpirun) ended %.0f s after submission"
      % (jid_a, jid_b, jid_c, time.monotonic() - t_submit), flush=True)

for jid, state, sig, how in ((jid_a, "FAILED", "USR1", "warned with SIGUSR1, srun"),
                             (jid_b, "TIMEOUT", "TERM", "time limit, srun"),
                             (jid_c, "FAILED", "USR1", "warned with SIGUSR1, mpirun")):
    out = c.output(jid)
    i = info[jid]
    what = "job %s (%s)" % (jid, how)

    def expect(cond, msg):
        check(cond, "%s: %s\n--- job output:\n%s" % (what, msg, out[-5000:]))

    expect(i.get("JobState") == state and i.get("ExitCode") == "4:0",
           "state %s exit %s, want %s 4:0\n--- logs:\n%s"
           % (i.get("JobState"), i.get("ExitCode"), state, c.logs()))
    stamps = re.findall(r"^fabric-sweep\.sbatch: \S+T(\d+):(\d+):(\d+) (job|got SIG%s)" % sig,
                        out, re.M)
    expect(len(stamps) == 2 and stamps[0][3] == "job",
           "the batch shell did not report SIG%s" % sig)
    after = [int(h) * 3600 + int(m) * 60 + int(x) for h, m, x, _ in stamps]
    after = (after[1] - after[0]) % 86400
    path = fab0(jid)
    summary = dict(re.findall(r"^summary: fabric=(\S+) status=(\S+)", out, re.M))
    expect(summary == {"ib": "skipped", "tcp:fab0": "interrupted", "tcp:fab1": "not-run"},
           "summary %r" % summary)
    # the planned skip of ib: the nodes' lines only (with mpirun: no abort banner)
    skip_lines = sweep_skip_lines(out, "ib")
    expect(skip_lines is not None and len(skip_lines) == 2 and
           all(l.startswith("    vnode") and ": fabricbench: error: --fabric ib: " in l
               for l in skip_lines), "the skip of ib: %r" % skip_lines)
    m = re.search(r"fabric tcp:fab0: interrupted \(SIG%s\): partial results saved: (\d+) "
                  r"completed rows in (\S+) \(status interrupted\)" % sig, out)
    expect(m and m.group(2) == path, "no 'partial results saved' line for %s" % path)
    attrs, hosts, tables = read_run(path)
    expect(attrs["status"] == "interrupted", "file status %r (%s)"
           % (attrs["status"], attrs.get("stop_reason")))
    # kernels run in order: complete ones, then the interrupted one with the rows it finished
    rows = 0
    for k in KERNELS:
        if k not in tables:
            break
        t = tables[k]
        n = len(t["bytes"])
        rows += n
        expect(t["bytes"] == SIZES[:n], "%s sizes %r" % (k, t["bytes"]))
        expect(all(len(v) == n for c_, v in t.items() if c_ != "__status__"),
               "%s: ragged columns" % k)
        expect(t["__status__"] == ("complete" if n == len(SIZES) else "interrupted"),
               "%s: %d rows, kernel status %r" % (k, n, t["__status__"]))
        expect(all(x > 0 for x in t["p50_us"]), "%s: empty rows %r" % (k, t["p50_us"]))
    expect(sorted(tables) == sorted(KERNELS[:len(tables)]), "kernels %r" % sorted(tables))
    total = len(KERNELS) * len(SIZES)
    expect(0 < rows < total, "%d rows (some, not all %d), SIG%s %d s after the start"
           % (rows, total, sig, after))
    csv = len(csv_rows(path[:-3] + ".csv"))
    expect(int(m.group(1)) == rows == csv, "rows: output %s, file %d, CSV %d"
           % (m.group(1), rows, csv))
    expect(sorted(hosts) == ["vnode1", "vnode2"], "hostnames %r" % hosts)
    expect(not os.path.exists(os.path.join(res, "fabric-sweep-%s-tcp-fab1.h5" % jid)),
           "tcp:fab1 was started after the signal")
    print("ok %s: SIG%s %d s after the start, %s, exit 4, RunTime %s; %s: %d of %d rows, "
          "status interrupted" % (what, sig, after, state, i.get("RunTime"),
                                  os.path.basename(path), rows, total), flush=True)

c.down()
print("ok time-limit checks in %.0f s, nothing left behind" % (time.monotonic() - T0))
