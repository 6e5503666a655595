"""Helpers for the fabricbench tests: launching under mpirun, parsing the text table."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

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


def parse_tables(stdout):
    """Split the output into the global header and one table per kernel.

    Returns (header: dict, kernels: list of dict(name, header, columns, rows))."""
    header, kernels, cur = {}, [], None
    for line in stdout.splitlines():
        if line.startswith("#"):
            body = line[1:].strip()
            if body.startswith("kernel:"):
                cur = {"name": body.split()[1].rstrip(":"), "header": {}, "columns": None,
                       "rows": []}
                kernels.append(cur)
            elif body.startswith("ucx transports by probed pair:"):
                header["transports by pair"] = body.split(":", 1)[1].strip()
            elif body.startswith("ucx transports ("):
                header["transports"] = body.split("):", 1)[1].strip()
            elif body.startswith("bytes ") and cur is not None:
                cur["columns"] = body.split()
            elif ":" in body:
                key, val = body.split(":", 1)
                (cur["header"] if cur else header)[key.strip()] = val.strip()
            elif body.startswith("fabricbench"):
                header["version"] = body
            continue
        if not line.strip():
            continue
        check(cur is not None and cur["columns"], "data line before a column header: " + line)
        vals = line.split()
        check(len(vals) == len(cur["columns"]),
              "row has %d fields, header %d: %s" % (len(vals), len(cur["columns"]), line))
        row = {}
        for c, v in zip(cur["columns"], vals):
            try:
                row[c] = float(v)
            except ValueError:
                row[c] = v
        cur["rows"].append(row)
    return header, kernels
