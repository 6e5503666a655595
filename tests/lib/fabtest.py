# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the fabricbench tests: launching under mpirun, parsing the text table."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import ompisession  # noqa: F401 (every mpirun of this test: a session directory of its own)

# Every test runs in a scratch directory of its own (result files land there), removed at exit.
WORKDIR = tempfile.mkdtemp(prefix="fabtest-")
atexit.register(shutil.rmtree, WORKDIR, True)
os.chdir(WORKDIR)

# mpirun options every MPI test uses: no core binding and yielding when idle, because on a
# small busy machine default binding turns microseconds into scheduler ticks.
MPIRUN_OPTS = ["--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


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


def mpirun(np, args, timeout=120, env=None, mpirun_args=()):
    """Run `mpirun -np NP ... args`; returns CompletedProcess with text stdout/stderr."""
    cmd = ["mpirun", "-np", str(np), "--oversubscribe"] + MPIRUN_OPTS + list(mpirun_args) + args
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=mpi_env(env))
    except subprocess.TimeoutExpired as e:
        fail("timed out after %ss: %s\nstdout:%s\nstderr:%s" % (timeout, " ".join(cmd),
                                                               e.stdout, e.stderr))


def text_lines(stdout):
    """The output's lines with every wrapped '#' line joined again: a '#' line longer than 100
    characters continues on lines starting "#   " (out/text.c), which are not a table's
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


def within(a, b, rel=1e-3, abs_=1e-9):
    """Whether two values printed by the table agree: each shows at least 4 significant
    digits (out/table.h), so a printed value is within 0.05% of the number it shows."""
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
