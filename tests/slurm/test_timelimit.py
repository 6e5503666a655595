"""Jobs that reach their time limit in the middle of a fabric sweep, on a real Slurm.

Three sweeps ("ib tcp:fab0 tcp:fab1", latency over 21 sizes at 4 s each: longer than the
limit) with a 1-minute limit, submitted at once (two fit on the 2-core nodes, C waits for A):
  A  as shipped, but warned 10 s before the limit (--signal=B:USR1@10): the batch shell passes
     SIGUSR1 on to the ranks through srun; the job ends before its limit (FAILED, exit 4);
  B  without any warning signal (the #SBATCH --signal line removed, as on a site that strips
     it): Slurm's SIGTERM at the limit reaches the ranks and the batch shell (TIMEOUT);
  C  as A, launched with mpirun (FB_LAUNCH=mpirun), which passes SIGUSR1 on to the ranks.
Each: the tcp:fab0 file holds the completed rows only (no ragged columns; as many rows as the
CSV) and is marked interrupted, tcp:fab1 is not run, the job output says where the partial
results are. Slurm acts on ~30 s cycles: a warning comes 20-50 s after a job's start, B's
SIGTERM 60-90 s after it.

usage: test_timelimit.py FABRICBENCH  (skips with exit 77 without root, Slurm or munge)"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import slurmtest  # noqa: E402
from slurmtest import JOBSCRIPTS, check, csv_rows, read_run  # noqa: E402

exe = os.path.abspath(sys.argv[1])
slurmtest.require()
T0 = time.monotonic()
c = slurmtest.Cluster(nodes=2)
c.up()
res = os.path.join(c.work, "results")
ENV = {"FB_BIN": exe, "FB_OUTDIR": res, "OMPI_MCA_mpi_yield_when_idle": "1",
       "FB_FABRICS": "ib tcp:fab0 tcp:fab1", "FB_KERNELS": "latency", "FB_SIZES": "1:1M",
       "FB_ARGS": "-t 4 --placement none -q"}
SIZES = [1 << i for i in range(21)]
sweep = os.path.join(JOBSCRIPTS, "fabric-sweep.sbatch")
with open(sweep) as f:
    text = f.read()
check("#SBATCH --signal=B:USR1@" in text, "fabric-sweep.sbatch asks for no warning signal")
no_warning = "".join(l for l in text.splitlines(True) if not l.startswith("#SBATCH --signal"))

t_submit = time.monotonic()
jid_a = c.sbatch(sweep, opts=["-t", "1", "--signal=B:USR1@10"], extra_env=ENV)
jid_b = c.sbatch(None, opts=["-t", "1"], input=no_warning, extra_env=ENV)
env_c = dict(ENV, FB_LAUNCH="mpirun", FB_MPIRUN_ARGS="--bind-to none")
jid_c = c.sbatch(sweep, opts=["-t", "1", "--signal=B:USR1@10"], extra_env=env_c)
info = {j: c.wait(j, 200) for j in (jid_a, jid_b, jid_c)}
print("jobs %s (warned), %s (time limit) and %s (warned, mpirun) ended %.0f s after submission"
      % (jid_a, jid_b, jid_c, time.monotonic() - t_submit), flush=True)

for jid, state, sig, how in ((jid_a, "FAILED", "USR1", "warned with SIGUSR1, srun"),
                             (jid_b, "TIMEOUT", "TERM", "time limit, srun"),
                             (jid_c, "FAILED", "USR1", "warned with SIGUSR1, mpirun")):
    out = c.output(jid)
    i = info[jid]
    what = "job %s (%s)" % (jid, how)
    check(i.get("JobState") == state and i.get("ExitCode") == "4:0",
          "%s: state %s exit %s, want %s 4:0\n--- job output:\n%s\n--- logs:\n%s"
          % (what, i.get("JobState"), i.get("ExitCode"), state, out[-6000:], c.logs()))
    check(re.search(r"got SIG%s" % sig, out), "%s: the batch shell did not report SIG%s:\n%s"
          % (what, sig, out[-4000:]))
    path = os.path.join(res, "fabric-sweep-%s-tcp-fab0.h5" % jid)
    summary = dict(re.findall(r"^summary: fabric=(\S+) status=(\S+)", out, re.M))
    check(summary == {"ib": "skipped", "tcp:fab0": "interrupted", "tcp:fab1": "not-run"},
          "%s: summary %r\n%s" % (what, summary, out[-4000:]))
    m = re.search(r"fabric tcp:fab0: interrupted \(SIG%s\): partial results saved: (\d+) "
                  r"completed rows in (\S+) \(status interrupted\)" % sig, out)
    check(m and m.group(2) == path, "%s: no 'partial results saved' line for %s:\n%s"
          % (what, path, out[-4000:]))
    attrs, hosts, tables = read_run(path)
    check(attrs["status"] == "interrupted", "%s: file status %r (%s)"
          % (what, attrs["status"], attrs.get("stop_reason")))
    t = tables["latency"]
    rows = len(t["bytes"])
    check(0 < rows < len(SIZES), "%s: %d rows (some, not all %d)" % (what, rows, len(SIZES)))
    check(t["bytes"] == SIZES[:rows], "%s: sizes %r" % (what, t["bytes"]))
    check(all(len(v) == rows for k, v in t.items() if k != "__status__"),
          "%s: ragged columns" % what)
    check(t["__status__"] == "interrupted", "%s: kernel status %r" % (what, t["__status__"]))
    check(all(x > 0 for x in t["p50_us"]), "%s: empty rows %r" % (what, t["p50_us"]))
    check(int(m.group(1)) == rows == len(csv_rows(path[:-3] + ".csv")),
          "%s: rows: output %s, file %d, CSV %d" % (what, m.group(1), rows,
                                                   len(csv_rows(path[:-3] + ".csv"))))
    check(sorted(hosts) == ["vnode1", "vnode2"], "%s: hostnames %r" % (what, hosts))
    check(not os.path.exists(os.path.join(res, "fabric-sweep-%s-tcp-fab1.h5" % jid)),
          "%s: tcp:fab1 was started after the signal" % what)
    print("ok %s: %s, exit 4, RunTime %s; %s: %d of %d rows, status interrupted"
          % (what, state, i.get("RunTime"), os.path.basename(path), rows, len(SIZES)),
          flush=True)

c.down()
print("ok time-limit checks in %.0f s, nothing left behind" % (time.monotonic() - T0))
