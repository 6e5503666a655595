# SPDX-License-Identifier: BSD-3-Clause
"""A real Slurm on a virtual cluster, for the job script tests (tests/slurm).

The virtual cluster (tests/lib/vcluster.sh: network and UTS namespaces, nodes vnode1..N) and
Slurm on it (tests/lib/slurm-local.sh: slurmctld in vnode1, one slurmd per node, a private
munged) run under one instance name, so that they cannot clash with another test's cluster or
with a system Slurm. Every Slurm client runs inside vnode1 with SLURM_CONF set (slurm-local.sh
run): without it the clients would look for a controller in DNS.

Tests that cannot run here (not root, no right to create namespaces, Slurm, munge or h5py not
installed) exit with SKIP (77, the ctest SKIP_RETURN_CODE of these tests) and say why.
Everything the cluster created is removed at exit, also when a check fails or the test is
interrupted."""
import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import ompisession  # noqa: F401 (the jobs' mpirun: a session directory of this test's own)
from nsprobe import namespace_problem

LIB = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(LIB))
JOBSCRIPTS = os.path.join(SRC, "jobscripts")
SKIP = 77

# Instance names: distinct from the cluster tests' own (tests/cluster).
NAME = os.environ.get("FB_SLURM_TEST_NAME", "fbslurm")
VCLUSTER = os.path.join(LIB, "vcluster.sh")
SLURM_LOCAL = os.path.join(LIB, "slurm-local.sh")
TERMINAL = {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
            "PREEMPTED", "BOOT_FAIL", "DEADLINE"}


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def skip(reason):
    print("SKIP: " + reason, flush=True)
    sys.exit(SKIP)


def require():
    """Skip (exit 77) with the reason when this machine cannot run a Slurm test."""
    if os.geteuid() != 0:
        skip("needs root (network and UTS namespaces, slurmd, munged)")
    missing = [p for p in ("slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "munged",
                           "mungekey", "munge", "nsenter", "unshare", "ip", "srun", "mpirun")
               if not shutil.which(p, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")]
    if missing:
        skip("not installed: %s (apt-get install slurm-wlm slurmctld slurmd slurm-client munge;"
             " scripts/quickstart.sh test does it)" % " ".join(missing))
    if not os.path.exists(VCLUSTER):
        skip("no virtual cluster script at %s" % VCLUSTER)
    # root without CAP_SYS_ADMIN (a container) cannot build the cluster
    why = namespace_problem()
    if why:
        skip(why)
    try:
        import h5py  # noqa: F401 (read_run needs it; here, so that its absence is a skip)
    except ImportError:
        skip("h5py not installed (apt-get install python3-h5py): the tests read the result "
             "files with it")


def env(extra=None):
    """The environment for the helper scripts and the Slurm clients: ours without any Slurm
    variable of an enclosing job (the clients would take them as options) and without the
    job scripts' and fabricbench's own settings (the tests set those), plus the instance
    names."""
    e = {k: v for k, v in os.environ.items()
         if not re.match(r"(SLURM|SBATCH|SRUN|SALLOC|SQUEUE|FB|FABRICBENCH)_", k)}
    e.update({"VC_NAME": NAME, "SL_NAME": NAME, "VCLUSTER": VCLUSTER,
              "SL_STATE": "/run/%s-slurm" % NAME})
    if extra:
        e.update(extra)
    return e


def sh(args, timeout=120, check_rc=True, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env(), **kw)
    if check_rc and p.returncode != 0:
        fail("%s: exit %d\nstdout:\n%s\nstderr:\n%s" % (" ".join(args), p.returncode,
                                                         p.stdout[-3000:], p.stderr[-3000:]))
    return p


class Cluster:
    """vcluster.sh up N + slurm-local.sh start; down() (also run at exit) removes it all."""

    def __init__(self, nodes=2):
        self.nodes = nodes
        self.up_done = False
        # results and job outputs: a directory every node sees (they share the filesystem)
        self.work = tempfile.mkdtemp(prefix="%s-" % NAME, dir="/var/tmp")
        os.chmod(self.work, 0o755)
        atexit.register(self.down)
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, self._on_signal)

    def _on_signal(self, sig, _frame):
        print("test: got signal %d, cleaning up" % sig, flush=True)
        sys.exit(1)  # runs the atexit cleanup

    def up(self):
        t0 = time.monotonic()
        # what a killed earlier run of this same instance may have left
        self._teardown(quiet=True)
        sh([VCLUSTER, "up", str(self.nodes)], timeout=60)
        self.up_done = True
        p = sh([SLURM_LOCAL, "start", "vcluster"], timeout=90, check_rc=False)
        if p.returncode != 0:
            fail("slurm-local.sh start: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
        print("ok Slurm on %d virtual nodes up in %.1f s" % (self.nodes, time.monotonic() - t0),
              flush=True)

    def _teardown(self, quiet=False):
        out = []
        for args in ([SLURM_LOCAL, "stop"], [VCLUSTER, "down"]):
            try:
                p = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env())
                out.append("%s: exit %d %s%s" % (" ".join(args[-1:]), p.returncode,
                                                   p.stdout.strip(), p.stderr.strip()))
            except (OSError, subprocess.TimeoutExpired) as e:
                out.append("%s: %s" % (args[-1], e))
        if not quiet:
            print("cleanup: " + "; ".join(out), flush=True)

    def down(self):
        if self.work is None:
            return
        self._teardown()
        shutil.rmtree(self.work, ignore_errors=True)
        self.work = None
        left = leftovers()
        if left:
            print("FAIL: left behind: " + "; ".join(left), flush=True)
            os._exit(1)

    # ------------------------------------------------------------------ Slurm clients
    def client(self, args, input=None, timeout=60, extra_env=None):
        """A Slurm client command in vnode1, SLURM_CONF set (slurm-local.sh run)."""
        return subprocess.run([SLURM_LOCAL, "run"] + args, capture_output=True, text=True,
                              timeout=timeout, input=input, env=env(extra_env))

    def sbatch(self, script, args=(), opts=(), extra_env=None, input=None):
        """Submit a job script (or, with input=, the script text on stdin); returns the id."""
        cmd = ["sbatch", "--parsable", "-o", os.path.join(self.work, "job-%j.out")]
        cmd += list(opts) + ([script] if script else []) + list(args)
        p = self.client(cmd, input=input, extra_env=extra_env)
        check(p.returncode == 0 and p.stdout.strip().split(";")[0].isdigit(),
              "sbatch %s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
        return p.stdout.strip().split(";")[0]

    def job(self, jid):
        """scontrol show job as a dict (JobState, ExitCode, RunTime, ...)."""
        p = self.client(["scontrol", "-o", "show", "job", jid])
        info = {}
        for m in re.finditer(r"(\w+)=(\S*)", p.stdout):
            info.setdefault(m.group(1), m.group(2))
        return info

    def wait(self, jid, timeout):
        """Poll until the job has ended (not COMPLETING); returns scontrol's fields."""
        t0 = time.monotonic()
        while True:
            info = self.job(jid)
            if info.get("JobState") in TERMINAL:
                info["waited_s"] = "%.1f" % (time.monotonic() - t0)
                return info
            if time.monotonic() - t0 > timeout:
                self.client(["scancel", jid])
                fail("job %s not done after %d s: %r\n%s" % (jid, timeout, info,
                                                             self.output(jid)))
            time.sleep(1)

    def output(self, jid):
        try:
            with open(os.path.join(self.work, "job-%s.out" % jid)) as f:
                return f.read()
        except OSError as e:
            return "(no job output: %s)" % e

    def logs(self):
        d = "/run/%s-slurm/log" % NAME
        out = []
        for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            with open(os.path.join(d, n), errors="replace") as f:
                out.append("== %s\n%s" % (n, "".join(f.readlines()[-15:])))
        return "\n".join(out)


def start(nodes=2):
    """What every Slurm test starts with: skip unless this machine can run it, then a cluster
    of `nodes` with Slurm up. Returns the cluster, the results directory every node sees,
    and the job environment every test uses (fabricbench from argv[1], its output there,
    ranks that yield when idle on a small machine)."""
    exe = os.path.abspath(sys.argv[1])
    require()
    c = Cluster(nodes=nodes)
    c.up()
    res = os.path.join(c.work, "results")
    return c, res, {"FB_BIN": exe, "FB_OUTDIR": res, "OMPI_MCA_mpi_yield_when_idle": "1"}


def leftovers():
    """What this instance could leave behind: processes, namespaces, state directories."""
    left = []
    p = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    ns = [l.split()[0] for l in p.stdout.splitlines() if l.split() and NAME in l.split()[0]]
    if ns:
        left.append("network namespaces " + " ".join(ns))
    for d in ("/run/vcluster-%s" % NAME, "/run/%s-slurm" % NAME):
        if os.path.exists(d):
            left.append("directory " + d)
    with open("/proc/self/mountinfo") as f:
        mounts = [l.split()[4] for l in f
                  if re.search(r"/(vcluster-)?%s(-slurm)?(/|$)" % NAME, l.split()[4])]
    if mounts:
        left.append("mounts " + " ".join(mounts))
    procs = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "/run/%s-slurm/" % NAME in cmd:
            procs.append("%s %s" % (pid, cmd[:80]))
    if procs:
        left.append("processes " + ", ".join(procs))
    return left


def read_run(path):
    """The latest run of a result file: (attributes, hostnames, {kernel: table columns})."""
    import h5py  # /usr/bin/python3 (Debian's) has it; imported here so that a skip needs none
    with h5py.File(path, "r") as f:
        r = f["runs"][f.attrs["latest_run"]]
        attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in r.attrs.items()}
        hosts = [h.decode() if isinstance(h, bytes) else h for h in r["hostnames"][()]]
        tables = {}
        for g in r["kernels"].values():
            k = g.attrs["kernel"]
            k = k.decode() if isinstance(k, bytes) else k
            tables[k] = {c: list(g["table"][c][()]) for c in g["table"]}
            st = g.attrs["status"]
            tables[k]["__status__"] = st.decode() if isinstance(st, bytes) else st
        return attrs, hosts, tables


def sweep_skip_lines(out, fab):
    """The lines fabric-sweep.sbatch printed between its 'fabric FAB: checking every node' line
    and its 'fabric FAB: skipped: not present on every node' line, or None when either is
    missing. For a planned skip they are the nodes' own lines only ('    NODE: fabricbench:
    ...'): no launcher error line (srun's 'Exited with exit code 3'), no mpirun banner."""
    lines = out.splitlines()
    start = [i for i, l in enumerate(lines) if re.search(r"fabric %s: checking every node: "
                                                         % re.escape(fab), l)]
    end = [i for i, l in enumerate(lines) if re.search(r"fabric %s: skipped: not present on "
                                                       "every node" % re.escape(fab), l)]
    if len(start) != 1 or len(end) != 1 or end[0] < start[0]:
        return None
    return lines[start[0] + 1:end[0]]


def check_sweep_skip(out, fab, nodes):
    """A planned skip of FAB reads as one line per node lacking it and the skip line."""
    got = sweep_skip_lines(out, fab)
    want = [r"    %s: fabricbench: error: --fabric %s: no active %s port " % (n, fab, fab)
            for n in nodes]
    check(got is not None and len(got) == len(want) and
          all(any(l.startswith(w) for l in got) for w in want),
          "the skip of %s: want only the lines of %s saying they lack it between the check and "
          "the skip line, got %r\n%s" % (fab, ", ".join(nodes), got, out[-5000:]))
    for banner in ("Primary job  terminated normally", "mpirun detected that one or more",
                   "Exited with exit code"):
        check(banner not in out, "launcher failure text %r in the output:\n%s"
              % (banner, out[-5000:]))


def csv_rows(path):
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l]
    return lines[1:] if lines else []
