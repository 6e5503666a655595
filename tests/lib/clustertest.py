# SPDX-License-Identifier: BSD-3-Clause
"""What the tests on the virtual cluster (tests/cluster, tests/lib/vcluster.sh) share: the
checks that decide a skip, an instance of their own with its time budget and cleanup, mpirun
started inside vnode1 through the cluster's agent, and the interfaces' byte counters.

A test computes its absolute paths first (fabtest, imported here, changes the directory),
then calls require_cluster() (exit 77 with the reason when this machine cannot build the
cluster), and runs its checks in session(main), which sweeps the instances of runs that were
killed, owns its own, and takes it down in a `finally`, also on a failed check or SIGTERM.

Instances are named fbct<pid> (FAB_VC_NAME overrides it): one name pattern for every cluster
test, so that each run's sweep removes what any killed run left (tests/cluster/README.md)."""
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from nsprobe import namespace_problem  # the standard library only

T0 = time.monotonic()
HERE = os.path.dirname(os.path.abspath(__file__))
VCLUSTER = os.path.join(HERE, "vcluster.sh")
SKIP = 77  # ctest: SKIP_RETURN_CODE
# One time budget for the whole test, below ctest's TIMEOUT (tests/CMakeLists.txt passes it in
# FAB_CTEST_TIMEOUT): every step's own timeout is cut to what is left of it, so that a hanging
# step makes the test fail and take its cluster down (CLEANUP_S) before ctest's SIGKILL, which
# would leave the cluster behind.
CTEST_TIMEOUT = float(os.environ.get("FAB_CTEST_TIMEOUT", "600"))
CLEANUP_S = 90  # vcluster.sh down takes about 1 s
DEADLINE = T0 + CTEST_TIMEOUT - CLEANUP_S - 30  # 30 s for starting, sweeping up, exiting

# A name of its own, so that concurrent runs (another CI job, a Slurm test) do not clash.
VC_NAME = os.environ.get("FAB_VC_NAME", "fbct%d" % os.getpid())
# (the cluster's other settings at their defaults: vnode1.., two fabrics, MTU 1500; one leaf
# unless up() asks for two)
VC_ENV = {k: v for k, v in os.environ.items() if not k.startswith("VC_")}
VC_ENV["VC_NAME"] = VC_NAME
# Owner files: a run holds an flock on /run/vcluster-NAME.owner while its instance may exist;
# the kernel drops it when the run ends, however it ends (also on SIGKILL).
OWNER = "/run/vcluster-%s.owner"
AGENT = None  # the cluster's rsh agent for mpirun, once up() ran


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def require_cluster(extra_tools=()):
    """Exit 77 with the reason unless this machine can build the cluster: root, ip and tc
    (iproute2), nsenter and unshare (util-linux), the right to create namespaces; and the
    tools in extra_tools."""
    if os.geteuid() != 0:
        skip("needs root (network and UTS namespaces, tc)")
    for tool in ("ip", "tc", "nsenter", "unshare") + tuple(extra_tools):
        if shutil.which(tool) is None:
            skip("%s not found (ip, tc: iproute2; nsenter, unshare: util-linux)" % tool)
    why = namespace_problem()  # root without CAP_SYS_ADMIN (a container) cannot build it
    if why:
        skip(why)


from fabtest import check, mpi_env, mpirun_cmd  # noqa: E402


def budget(want):
    """A step's timeout: `want` seconds, or what is left of the test's budget when less."""
    left = DEADLINE - time.monotonic()
    check(left > 1, "out of the test's time budget (%.0f s of ctest's %.0f s)"
          % (DEADLINE - T0, CTEST_TIMEOUT))
    return min(want, left)


def vc(*args, timeout=60, check_rc=True, env=None):
    """vcluster.sh ARGS on our instance (env: more VC_ variables, e.g. {"VC_LEAVES": "2"})."""
    t = budget(timeout)
    try:
        p = subprocess.run([VCLUSTER] + list(args), capture_output=True, text=True,
                           env=dict(VC_ENV, **(env or {})), timeout=t)
    except subprocess.TimeoutExpired as e:
        check(False, "vcluster.sh %s: timed out after %.0f s\n%s%s"
              % (" ".join(args), t, e.stdout, e.stderr))
    if check_rc:
        check(p.returncode == 0, "vcluster.sh %s: exit %d\n%s%s"
              % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def up(nodes, leaves=1):
    """vcluster.sh up NODES (leaves=2: two leaf bridges per fabric joined by a trunk, nodes
    1..ceil(N/2) on leaf a); sets AGENT."""
    global AGENT
    t = time.monotonic()
    vc("up", str(nodes), timeout=120, env={"VC_LEAVES": str(leaves)})
    AGENT = vc("agent-path").stdout.strip()
    print("vcluster %s up %d (%d leaves) in %.1f s" % (VC_NAME, nodes, leaves,
                                                     time.monotonic() - t))


def vc_down(name, timeout=CLEANUP_S):
    """vcluster.sh down for instance `name`: (ok, what it said)."""
    env = dict(VC_ENV, VC_NAME=name)
    try:
        p = subprocess.run([VCLUSTER, "down"], capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "vcluster.sh down timed out after %.0f s" % timeout
    return p.returncode == 0, (p.stdout + p.stderr).strip().replace("\n", "; ")


def down():
    ok, said = vc_down(VC_NAME)
    print("cleanup: " + said)
    if ok:  # else a later run removes what is left (sweep_leftovers)
        try:
            os.unlink(OWNER % VC_NAME)
        except OSError:
            pass


def own_instance():
    """Take the owner file of VC_NAME (locked before it is visible under its name, so that a
    concurrent sweep never sees it unlocked); returns its descriptor, held until exit."""
    tmp = (OWNER % VC_NAME) + ".%d.tmp" % os.getpid()
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"%d\n" % os.getpid())
    os.rename(tmp, OWNER % VC_NAME)
    return fd


def sweep_leftovers():
    """Take down the fbct<pid> instances of runs that are gone: ctest's TIMEOUT kills with
    SIGKILL, which leaves no chance to clean up. Gone: the owner file is not locked, or (an
    instance without one, from a run of an older version) no process <pid> exists. An
    instance of our own name is a leftover too: ours does not exist yet."""
    names = set()
    p = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    names.update(re.findall(r"^(fbct\d+)-", p.stdout, re.M))
    for d, pat in (("/run", r"vcluster-(fbct\d+)(?:\.owner)?"), ("/etc/netns", r"(fbct\d+)-.*")):
        for e in os.listdir(d) if os.path.isdir(d) else []:
            m = re.fullmatch(pat, e)
            if m:
                names.add(m.group(1))
    for name in sorted(names):
        try:
            fd = os.open(OWNER % name, os.O_RDWR)
        except FileNotFoundError:
            fd = None
            if name != VC_NAME and os.path.exists("/proc/%s" % name[4:]):
                continue  # no owner file, and its process lives
        if fd is not None:
            try:
                # held while taking it down, so that a concurrent sweep leaves it alone
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue  # its run is still going
        ok, said = vc_down(name, budget(CLEANUP_S))
        print("removed the leftover instance %s (its run is gone): %s" % (name, said))
        check(ok, "could not remove the leftover instance %s" % name)
        if fd is not None:
            os.unlink(OWNER % name)
            os.close(fd)


def on_signal(signum, frame):
    raise SystemExit("interrupted by signal %d" % signum)


def session(main):
    """Run main() on an instance of our own: leftovers of killed runs removed first, ours
    taken down at the end however main ends (a failed check, an exception, SIGTERM, SIGINT),
    and no namespace of it left."""
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        sweep_leftovers()
        own_instance()  # its descriptor held until this process ends
        main()
    finally:
        down()
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        check(not re.search(r"^%s-" % VC_NAME, left, re.M), "namespaces left: %s" % left)


def counters(nodes=("vnode1", "vnode2"), devs=("fab0", "fab1")):
    """{(node, iface, 'rx'/'tx'): bytes} of the nodes' interfaces."""
    out = {}
    for node in nodes:
        for dev in devs:
            rx, tx = map(int, vc("counters", node, dev).stdout.split())
            out[(node, dev, "rx")], out[(node, dev, "tx")] = rx, tx
    return out


def mpirun_in_cluster(exe, hosts, args, timeout=150, np=None, mpirun_args=()):
    """mpirun inside vnode1, launched through the agent: one rank per host, or np ranks on
    hosts given with slots ("vnode1:2"); mpirun_args go before the program (-x VAR=VALUE)."""
    cmd = mpirun_cmd(np or len(hosts), [exe] + args, prefix=[VCLUSTER, "exec", "vnode1"],
                     mpirun_args=["--mca", "plm_rsh_agent", AGENT, "--host", ",".join(hosts)] +
                     list(mpirun_args))
    env = {k: v for k, v in mpi_env().items() if not k.startswith("VC_")}
    env["VC_NAME"] = VC_NAME
    t = time.monotonic()
    timeout = budget(timeout)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        check(False, "timed out after %d s: %s\nstdout:%s\nstderr:%s"
              % (timeout, " ".join(args), e.stdout, e.stderr))
    print("  %.1f s: fabricbench %s" % (time.monotonic() - t, " ".join(args)))
    return p


def hint(p):
    """A note for a run that a signal from outside stopped."""
    if "signal Terminated" in p.stdout + p.stderr:
        return ("\n(a SIGTERM from outside the test: is another test on this machine "
                "signalling fabricbench processes by name?)")
    return ""
