# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the fabricbench tests: launching the tool under mpirun (mpirun, mpirun_cmd,
mpirun_popen: the one place that knows how), failures checked hard (check, fail: the test stops)
or soft (expect: the test goes on and exits 1 at its end), parsing the text table.

Importing this module changes no directory: a test that writes files by relative names calls
enter_scratch() first (docs/DEVELOPING.md, "Write a test")."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading

# The failures expect() collected: reported, and the exit status made 1, when the test ends.
# Registered before the cleanups below, so that it runs after them (atexit runs in reverse).
FAILURES = []


def _report_failures():
    if FAILURES:
        print("FAIL: %d check(s) failed:" % len(FAILURES))
        for msg in FAILURES:
            print("  - " + msg.splitlines()[0][:300] if msg else "  -")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)


atexit.register(_report_failures)

import ompisession  # noqa: E402,F401 (every mpirun of this test: a session directory of its own)

# Every test has a scratch directory of its own (result files land there), removed at exit.
WORKDIR = tempfile.mkdtemp(prefix="fabtest-")
atexit.register(shutil.rmtree, WORKDIR, True)


def enter_scratch():
    """Make the test's scratch directory (WORKDIR) the current one; returns it."""
    os.chdir(WORKDIR)
    return WORKDIR

# mpirun options every MPI test uses: no core binding and yielding when idle, because on a
# small busy machine default binding turns microseconds into scheduler ticks.
MPIRUN_OPTS = ["--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]


def fail(msg):
    """Stop the test here: what follows depends on what failed."""
    print("FAIL: " + msg)
    sys.stdout.flush()
    sys.exit(1)


def check(cond, msg):
    """A hard check: the test stops at the first that fails (use it where later checks depend
    on this one: a run that failed has no file to read)."""
    if not cond:
        fail(msg)


def expect(cond, msg):
    """A soft check: a failure is printed and collected, the test goes on, and it exits 1 at
    its end naming every failure. Returns whether it held, for a caller that skips what
    depends on it."""
    if not cond:
        print("FAIL: " + msg)
        FAILURES.append(msg)
    return bool(cond)


def mpi_env(extra=None):
    env = dict(os.environ)
    # Open MPI refuses root without these; harmless for other users.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    env[ompisession.VAR] = ompisession.fresh()
    if extra:
        env.update(extra)
    return env


def mpirun_cmd(np, args=(), mpirun_args=(), prefix=()):
    """The command line `[prefix] mpirun -np NP --oversubscribe MPIRUN_OPTS [mpirun_args] args`:
    every launch of the tool by the tests is built here (mpirun_cmd(2) + [exe, "run", ...] where
    the arguments come later). prefix: a command mpirun runs under (["taskset", "-c", "0"])."""
    return (list(prefix) + ["mpirun", "-np", str(np), "--oversubscribe"] + MPIRUN_OPTS +
            list(mpirun_args) + list(args))


def mpirun_popen(np, args, env=None, mpirun_args=(), prefix=(), **kw):
    """Start mpirun_cmd(...) in the background with mpi_env(env); kw goes to subprocess.Popen
    (stdout=, stderr=, text=, start_new_session=, ...). The caller waits for it."""
    return subprocess.Popen(mpirun_cmd(np, args, mpirun_args, prefix), env=mpi_env(env), **kw)


def read_until(proc, marker, limit):
    """The lines of proc's stderr (a text pipe) up to and with the first that holds marker:
    the event a test waits for before it acts on a running job, instead of a fixed pause. A
    job that prints no such line within limit seconds is killed (the wait is bounded); the
    text read is returned either way, so the caller's check says what came instead."""
    timer = threading.Timer(limit, proc.kill)
    timer.start()
    seen = ""
    try:
        for line in proc.stderr:
            seen += line
            if marker in line:
                break
    finally:
        timer.cancel()
    return seen


def mpirun(np, args, timeout=120, env=None, mpirun_args=(), prefix=()):
    """Run mpirun_cmd(...) to its end; returns CompletedProcess with text stdout/stderr. A run
    past timeout fails the test (a hang is never a pass)."""
    cmd = mpirun_cmd(np, args, mpirun_args, prefix)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=mpi_env(env))
    except subprocess.TimeoutExpired as e:
        fail("timed out after %ss: %s\nstdout:%s\nstderr:%s" % (timeout, " ".join(cmd),
                                                               e.stdout, e.stderr))


def direct(args, timeout=30, env=None):
    """Run the tool without mpirun (a refusal made before MPI_Init needs no launcher); returns
    CompletedProcess with text stdout/stderr, stdin closed. A run past timeout fails the
    test."""
    try:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout,
                              env=mpi_env(env), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        fail("timed out after %ss: %s\nstdout:%s\nstderr:%s" % (timeout, " ".join(args),
                                                               e.stdout, e.stderr))


def text_lines(stdout):
    """The output's lines with every wrapped '#' line joined again: a '#' line longer than 100
    characters continues on lines starting "#   " (output/text.c), which are not a table's
    column heading (the '#' line right before a kernel's first row)."""
    lines, out = stdout.splitlines(), []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        heading = nxt.strip() != "" and not nxt.startswith("#")
        if (line.startswith("#   ") and len(line) > 4 and line[4] != " " and not heading
                and out and out[-1].startswith("#")):
            out[-1] += " " + line[4:]
        else:
            out.append(line)
    return out


def parse_tables(stdout):
    """Split the output into the global header and one table per kernel.

    The column heading of a kernel's table is the '#' line right before its first row
    (--columns may put any column first); '#' lines wrapped at 100 characters are joined.
    Returns (header: dict, kernels: list of dict(name, header, columns, rows, lines, invalid)),
    lines being the table's heading and row lines as printed, invalid whether each row's
    numbers were printed in ( ) (an INVALID row), rows holding the numbers."""
    header, kernels, cur, prev = {}, [], None, None
    for line in text_lines(stdout):
        if line.startswith("#"):
            body = line[1:].strip()
            prev = line
            if body.startswith("kernel:"):
                cur = {"name": body.split()[1].rstrip(":"), "header": {}, "columns": None,
                       "rows": [], "lines": [], "invalid": []}
                kernels.append(cur)
            elif body.startswith("ucx transports by probed pair:"):
                header["transports by pair"] = body.split(":", 1)[1].strip()
            elif body.startswith("ucx transports ("):
                header["transports"] = body.split("):", 1)[1].strip()
            elif ":" in body:
                key, val = body.split(":", 1)
                (cur["header"] if cur else header)[key.strip()] = val.strip()
            elif body.startswith("fabricbench"):
                header["version"] = body
            continue
        if not line.strip():
            continue
        check(cur is not None, "data line before a kernel: " + line)
        if cur["columns"] is None:
            check(prev is not None and ":" not in prev, "data line after no column heading: %s"
                  "\n(before it: %s)" % (line, prev))
            cur["columns"] = prev[1:].split()
            cur["lines"].append(prev)
        vals = line.split()
        check(len(vals) == len(cur["columns"]),
              "row has %d fields, header %d: %s" % (len(vals), len(cur["columns"]), line))
        cur["lines"].append(line)
        row, marked = {}, False
        for c, v in zip(cur["columns"], vals):
            # an INVALID row's measured numbers are printed in ( ): the number here, and the
            # row in the kernel's "invalid" list
            if len(v) > 2 and v[0] == "(" and v[-1] == ")":
                marked, v = True, v[1:-1]
            try:
                row[c] = float(v)
            except ValueError:
                row[c] = v
        cur["rows"].append(row)
        cur["invalid"].append(marked)
    return header, kernels


def h5_kernels(path):
    """{kernel name: (attributes, table)} of an HDF5 result file's one run (h5py, imported here:
    most tests read no HDF5)."""
    import h5py

    out = {}
    with h5py.File(path, "r") as f:
        for g in f["runs/run_0000/kernels"].values():
            name = g.attrs["kernel"]
            name = name.decode() if isinstance(name, bytes) else str(name)
            attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
            out[name] = (attrs, {c: g["table"][c][()] for c in g["table"]})
    return out


def within(a, b, rel=1e-3, abs_=1e-9):
    """Whether two values printed by the table agree: each shows at least 4 significant
    digits (output/table.h), so a printed value is within 0.05% of the number it shows."""
    return abs(a - b) <= rel * max(abs(a), abs(b)) + abs_


def rank_pids(exe, path):
    """The processes of program exe (by its file name) whose command line names path and that
    an mpirun started (OMPI_COMM_WORLD_RANK in their environment), in rank order: launch
    order is not guaranteed, so the rank is read from the environment."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
        except OSError:
            continue
        if (os.path.basename(argv[0].decode(errors="replace")) == os.path.basename(exe) and
                path.encode() in argv and b"OMPI_COMM_WORLD_RANK" in env):
            out.append((int(env[b"OMPI_COMM_WORLD_RANK"]), int(pid)))
    return [pid for _, pid in sorted(out)]
