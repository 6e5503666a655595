# SPDX-License-Identifier: BSD-3-Clause
"""The Slurm job scripts (jobscripts/) on a real Slurm: slurmctld and one slurmd per virtual
node (own hostname and network namespace), jobs submitted with sbatch.

  - fabricbench.sbatch over TCP on fab0, launched by srun --mpi=pmix and by mpirun: job
    COMPLETED, result file readable, one rank on each node, the fabric recorded;
  - fabric-sweep.sbatch with "ib roce tcp:fab0 shm": ib and roce skipped (absent: a line per
    node says so and then one skip line, no launcher error text), shm skipped (2 nodes), tcp
    run; one summary line per fabric;
  - health.sbatch with FB_PAIRS=none (thresholds only; the pairs default is test_health.py):
    PASS with loose thresholds (from a file; the line rate's too: fab0, a veth, reports its
    speed), FAIL with an impossible one (job FAILED, exit 1), exit 2 without thresholds
    (test_thresholds.py judges each threshold on known values, without Slurm);
  - no job script reports another run's rows: outside Slurm (plain bash, mpirun, the
    environment a user has) each run gets a name of its own, a run that fails before writing
    says it wrote no rows (not the earlier run's), and no file is written twice; in Slurm,
    files of the job's name that exist already (a requeued job's earlier attempt) are left
    alone: the run takes the next free name and counts only its own rows.

usage: test_jobs.py FABRICBENCH       (skips with exit 77 without root, Slurm or munge)"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import slurmtest  # noqa: E402
from slurmtest import JOBSCRIPTS, check, check_sweep_skip, csv_rows, read_run  # noqa: E402

T0 = time.monotonic()


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def outside_slurm(exe):
    """fabricbench.sbatch run as `bash fabricbench.sbatch` on a node, outside Slurm: a run,
    then a run that fails before writing (a bad option), then another run. Each gets a name of
    its own; the failed run says it wrote no rows (today's bug: the first run's rows, under a
    fixed name, reported as "kept"); the first run's files are never written again. No Slurm
    needed: it runs before the cluster is started."""
    tmp = tempfile.mkdtemp(prefix="fb-jobs-outside-")
    try:
        e = slurmtest.env({"FB_BIN": os.path.abspath(exe), "FB_LAUNCH": "mpirun",
                           "FB_MPIRUN_ARGS": "-np 2 --oversubscribe --bind-to none",
                           "FB_KERNELS": "latency", "FB_SIZES": "8,1K", "FB_OUTDIR": tmp,
                           "OMPI_MCA_orte_tmpdir_base": tmp,
                           "OMPI_MCA_mpi_yield_when_idle": "1"})

        def job(args):
            env = dict(e, FB_ARGS=args)
            p = subprocess.run(["bash", os.path.join(JOBSCRIPTS, "fabricbench.sbatch")],
                               capture_output=True, text=True, timeout=120, env=env, cwd=tmp)
            last = [l for l in p.stdout.splitlines() if l.startswith("fabricbench.sbatch:")]
            return p, last[-1] if last else ""

        p, last = job("-i 10 -q")
        first = sorted(f for f in os.listdir(tmp) if f.endswith(".h5"))
        check(p.returncode == 0 and len(first) == 1 and
              re.match(r"fabricbench-.+-\d{8}T\d{6}Z-\d+-any\.h5$", first[0]) and
              last.endswith("done: 2 rows in %s (status complete); CSV: %s"
                            % (os.path.join(tmp, first[0]), os.path.join(tmp, first[0][:-3] +
                                                                          ".csv"))),
              "outside Slurm, first run: exit %d, files %r, last line %r\n%s%s"
              % (p.returncode, first, last, p.stdout[-3000:], p.stderr[-2000:]))
        kept = {f: digest(os.path.join(tmp, f)) for f in os.listdir(tmp)}
        p, last = job("-i 0 -q")
        check(p.returncode == 2 and "this run wrote no result file and no rows" in last and
              "rows kept" not in p.stdout and first[0] not in last,
              "outside Slurm, a run refused before writing: exit %d, last line %r (it must "
              "speak of no other run's rows or file)\n%s" % (p.returncode, last,
                                                              p.stdout[-3000:]))
        p, last = job("-i 10 -q")
        files = sorted(f for f in os.listdir(tmp) if f.endswith(".h5"))
        check(p.returncode == 0 and len(files) == 2 and "done: 2 rows in " in last and
              first[0] not in last,
              "outside Slurm, a second run: exit %d, files %r, last line %r"
              % (p.returncode, files, last))
        check(all(digest(os.path.join(tmp, f)) == d for f, d in kept.items()),
              "outside Slurm: the first run's files were written again")
        print("ok fabricbench.sbatch outside Slurm: a name per run (%s), a failed run reports "
              "no rows, no file written twice" % first[0], flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


outside_slurm(sys.argv[1])
c, res, ENV = slurmtest.start(nodes=2)
# No core binding on a small busy machine (README, Open MPI notes).
ENV.update({"FB_ARGS": "-t 0.05 --placement none -q"})


def submit(script, args=(), opts=(), extra=None, state="COMPLETED", exit_code="0:0",
           timeout=120):
    e = dict(ENV)
    e.update(extra or {})
    jid = c.sbatch(os.path.join(JOBSCRIPTS, script), args=args, opts=opts, extra_env=e)
    info = c.wait(jid, timeout)
    out = c.output(jid)
    check(info.get("JobState") == state and info.get("ExitCode") == exit_code,
          "%s job %s: state %s exit %s, want %s %s\n--- job output:\n%s\n--- logs:\n%s"
          % (script, jid, info.get("JobState"), info.get("ExitCode"), state, exit_code,
             out[-6000:], c.logs()))
    return jid, out, info


def check_file(path, jid, fabric, device, kernels, sizes):
    check(os.path.exists(path), "no result file %s (have: %s)" % (path, os.listdir(res)))
    attrs, hosts, tables = read_run(path)
    check(attrs["status"] == "complete", "%s: status %r" % (path, attrs["status"]))
    check(sorted(hosts) == ["vnode1", "vnode2"] and len(set(hosts)) == 2,
          "%s: hostnames %r, want one rank on each of vnode1, vnode2" % (path, hosts))
    check(attrs["fabric"] == fabric and attrs["fabric_device"] == device,
          "%s: fabric %r device %r" % (path, attrs["fabric"], attrs["fabric_device"]))
    check(attrs["fabric_check"] == "match", "%s: fabric_check %r (%s)"
          % (path, attrs["fabric_check"], attrs.get("fabric_check_reason")))
    check(attrs["slurm_job_id"] == jid, "%s: slurm_job_id %r, job %s" % (path,
                                                                          attrs["slurm_job_id"],
                                                                          jid))
    check(sorted(tables) == sorted(kernels), "%s: kernels %r" % (path, sorted(tables)))
    for k, t in tables.items():
        check(list(t["bytes"]) == sizes, "%s %s: sizes %r" % (path, k, t["bytes"]))
    rows = csv_rows(path[:-3] + ".csv")
    check(len(rows) == len(kernels) * len(sizes), "%s: CSV rows %d" % (path, len(rows)))
    return attrs


# ------------------------------------------------------------------ fabricbench.sbatch, srun
jid, out, info = submit("fabricbench.sbatch",
                        args=["FB_KERNELS=latency,bw", "FB_FABRIC=tcp", "FB_DEVICE=fab0",
                              "FB_SIZES=8,64K"])
path = os.path.join(res, "fabricbench-%s-tcp.h5" % jid)
check_file(path, jid, "tcp", "fab0", ["latency", "bw"], [8, 65536])
check("running: srun --mpi=pmix " in out and "done: 4 rows in %s (status complete)" % path
      in out, "fabricbench.sbatch output:\n" + out[-3000:])
print("ok fabricbench.sbatch (srun --mpi=pmix): COMPLETED in %s s, %s: ranks on vnode1 and "
      "vnode2, tcp on fab0" % (info["waited_s"], os.path.basename(path)), flush=True)

# ------------------------------------------------------------------ fabricbench.sbatch, mpirun
jid, out, info = submit("fabricbench.sbatch",
                        extra={"FB_LAUNCH": "mpirun", "FB_MPIRUN_ARGS": "--bind-to none",
                               "FB_KERNELS": "latency,allreduce", "FB_FABRIC": "tcp",
                               "FB_DEVICE": "fab0", "FB_SIZES": "8,1K"})
path = os.path.join(res, "fabricbench-%s-tcp.h5" % jid)
check_file(path, jid, "tcp", "fab0", ["latency", "allreduce"], [8, 1024])
check("running: mpirun --bind-to none " in out, "mpirun not used:\n" + out[-3000:])
print("ok fabricbench.sbatch (FB_LAUNCH=mpirun): COMPLETED in %s s, ranks on vnode1 and vnode2"
      % info["waited_s"], flush=True)

# ------------------------------------------------------------------ fabricbench.sbatch, files
# of the job's name exist already (a requeued job's earlier attempt, here planted while the job
# is held): left alone; the run takes the next free name and counts its own rows only
jid = c.sbatch(os.path.join(JOBSCRIPTS, "fabricbench.sbatch"), opts=["--hold"],
               args=["FB_KERNELS=latency", "FB_FABRIC=tcp", "FB_DEVICE=fab0", "FB_SIZES=8"],
               extra_env=ENV)
os.makedirs(res, exist_ok=True)
planted = os.path.join(res, "fabricbench-%s-tcp" % jid)
with open(planted + ".csv", "w") as f:
    f.write("kernel,bytes\n" + "latency,8\n" * 7)
before = digest(planted + ".csv")
check(c.client(["scontrol", "release", jid]).returncode == 0, "scontrol release %s" % jid)
info = c.wait(jid, 120)
out = c.output(jid)
path = planted + "-2.h5"
check(info.get("JobState") == "COMPLETED" and "done: 1 rows in %s (status complete)" % path in out
      and digest(planted + ".csv") == before and not os.path.exists(planted + ".h5"),
      "job %s with its name taken: state %s, files %r\n%s" % (jid, info.get("JobState"),
                                                              sorted(os.listdir(res)),
                                                              out[-3000:]))
check(len(csv_rows(planted + "-2.csv")) == 1, "the run's own CSV")
print("ok fabricbench.sbatch with the job's file names taken: %s, 1 row of its own, the "
      "planted files untouched" % os.path.basename(path), flush=True)

# ------------------------------------------------------------------ fabric-sweep.sbatch
jid, out, info = submit("fabric-sweep.sbatch",
                        extra={"FB_FABRICS": "ib roce tcp:fab0 shm",
                               "FB_KERNELS": "latency,bw", "FB_SIZES": "8,64K"})
summary = dict(re.findall(r"^summary: fabric=(\S+) status=(\S+)", out, re.M))
check(summary == {"ib": "skipped", "roce": "skipped", "tcp:fab0": "ok", "shm": "skipped"},
      "sweep summary %r\n%s" % (summary, out[-5000:]))
for fab in ("ib", "roce"):
    # one line per node saying what it lacks, then the skip line; no launcher error text
    check_sweep_skip(out, fab, ["vnode1", "vnode2"])
check(re.search(r"fabric shm: skipped: shared memory connects ranks within one node; this "
                r"allocation has 2 nodes", out), "shm skip line:\n" + out[-5000:])
check(re.search(r"^summary: fabric=tcp:fab0 status=ok rows=4 peak_bw_MBps=[0-9.e+]+ "
                r"latency_p50_us=[0-9.e+]+@8B file=\S+fabric-sweep-%s-tcp-fab0\.h5$" % jid,
                out, re.M), "tcp summary line:\n" + out[-3000:])
path = os.path.join(res, "fabric-sweep-%s-tcp-fab0.h5" % jid)
check_file(path, jid, "tcp", "fab0", ["latency", "bw"], [8, 65536])
files = sorted(f for f in os.listdir(res) if f.startswith("fabric-sweep-%s-" % jid))
check(files == ["fabric-sweep-%s-tcp-fab0.csv" % jid, "fabric-sweep-%s-tcp-fab0.h5" % jid],
      "sweep files: %r (one per fabric that ran)" % files)
print("ok fabric-sweep.sbatch: COMPLETED in %s s; ib, roce skipped (absent on both nodes), shm "
      "skipped (2 nodes), tcp ran: %s" % (info["waited_s"], os.path.basename(path)), flush=True)

# ------------------------------------------------------------------ health.sbatch
thresholds = os.path.join(c.work, "loose.conf")
with open(thresholds, "w") as f:
    f.write("# loose: any working link passes\nmax_latency_us = 100000\nmin_bw_MBps = 1\n"
            "max_allreduce_us = 100000\nmin_line_pct = 0.001\n")
health_env = {"FB_FABRIC": "tcp", "FB_DEVICE": "fab0", "FB_SIZES": "8,64K,1M", "FB_PAIRS": "none"}
jid, out, info = submit("health.sbatch", args=["--thresholds", thresholds], extra=health_env)
verdicts = re.findall(r"^health: check (\S+) = \S+ (?:<=|>=) \S+ \((?:max|min)\): (\w+)$", out,
                      re.M)
check(sorted(verdicts) == [("allreduce_p50_us@8B", "PASS"), ("bw_line_rate_pct@1M", "PASS"),
                           ("bw_peak_MBps", "PASS"), ("latency_p50_us@8B", "PASS")],
      "health verdicts %r\n%s" % (verdicts, out[-3000:]))
check(re.search(r"^health: PASS \(4 checks; nodes vnode\[1-2\]; fabric tcp device fab0; ",
                out, re.M), "health PASS line:\n" + out[-3000:])
_, hosts, _ = read_run(os.path.join(res, "health-%s-tcp.h5" % jid))
check(sorted(hosts) == ["vnode1", "vnode2"], "health hostnames %r" % hosts)
print("ok health.sbatch with loose thresholds (file): PASS, COMPLETED in %s s"
      % info["waited_s"], flush=True)

jid, out, info = submit("health.sbatch", args=["--max-latency-us", "100000",
                                               "--min-bw-MBps", "1e12"],
                        extra=health_env, state="FAILED", exit_code="1:0")
check(re.search(r"^health: check bw_peak_MBps = \S+ >= 1e12 \(min\): FAIL$", out, re.M) and
      re.search(r"^health: check latency_p50_us@8B = \S+ <= 100000 \(max\): PASS$", out, re.M)
      and re.search(r"^health: FAIL \(1 of 2 checks; ", out, re.M),
      "health with an impossible bandwidth:\n" + out[-3000:])
print("ok health.sbatch with an impossible threshold: FAIL, job FAILED with exit 1 (%s s)"
      % info["waited_s"], flush=True)

jid, out, info = submit("health.sbatch", extra=health_env, state="FAILED", exit_code="2:0")
check("FB_PAIRS=none and no threshold given: nothing to check" in out,
      "health without thresholds:\n" + out[-2000:])
print("ok health.sbatch without thresholds: exit 2, nothing run", flush=True)

c.down()
print("ok all Slurm job script checks in %.0f s, nothing left behind" % (time.monotonic() - T0))
