# SPDX-License-Identifier: BSD-3-Clause
"""Result files: HDF5 written by the tool and read back by independent readers (h5py, h5dump,
`fabricbench show`), the JSON Lines and CSV exports, never clobbering, unwritable outputs and
write errors, kill -9 at random moments, SIGTERM.

usage: test_results.py FABRICBENCH"""
import csv
import hashlib
import json
import math
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from datetime import datetime

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import (FAILURES, check, enter_scratch, expect, mpi_env, mpirun,  # noqa: E402
                     mpirun_cmd, parse_tables)

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
ALLOWED_ENV = ("UCX_", "OMPI_MCA_", "SLURM_", "FABRICBENCH_")


def data_lines(text):
    return [l for l in text.splitlines() if l.strip() and not l.startswith("#")]


def read_table(h5, run="run_0000"):
    """{kernel name: {column: numpy array}} for one run."""
    out = {}
    for name, g in h5["runs"][run]["kernels"].items():
        t = g["table"]
        cols = t.attrs["columns"].split(",")
        out[g.attrs["kernel"]] = {c: t[c].asstr()[:] if t[c].dtype.kind == "O" else t[c][:]
                                  for c in cols}
    return out


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---------------------------------------------------------------- round trip
sizes = [8, 1024, 65536]
KERNELS = ["latency", "bw", "msgrate", "allreduce"]
# --wide: every column of the table, each compared with the file (tests/mpi/test_table.py: the
# compact table)
p = mpirun(2, [exe, "run", ",".join(KERNELS), "-m", ",".join(map(str, sizes)), "-t", "0.02",
               "--validate", "--samples", "-o", "r.h5", "--json", "r.jsonl", "--csv", "r.csv",
               "--wide"],
           env={"UCX_LOG_LEVEL": "warn", "FABRICBENCH_QUIET": "1", "UNRELATED_SECRET": "x"})
check(p.returncode == 0, "run: exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
header, kernels = parse_tables(p.stdout)
check(header["results"] == "r.h5", "header names the results file: %s" % header.get("results"))

with h5py.File("r.h5", "r") as f:
    check(f.attrs["schema"] == "fabricbench-results" and f.attrs["schema_version"] == 2,
          "root schema attributes: %s" % dict(f.attrs))
    check(list(f["runs"]) == ["run_0000"] and f.attrs["latest_run"] == "run_0000", "runs")
    run = f["runs/run_0000"]
    a = run.attrs
    for key in ("tool_version", "git_commit", "start_time", "end_time", "command_line",
                "mpi_library", "ucx_version", "hwloc_version", "hdf5_version", "pml",
                "ucx_transports", "ranks_per_node", "timer", "status", "slurm_job_id"):
        check(key in a, "run attribute %s missing: %s" % (key, sorted(a)))
    for key in ("start_time", "end_time"):
        datetime.strptime(a[key], "%Y-%m-%dT%H:%M:%SZ")
    check(a["status"] == "complete", "status %s" % a["status"])
    check(a["nranks"] == 2 and a["nhosts"] == 1, "ranks/hosts")
    check(list(run["hostnames"].asstr()[:]) == [os.uname().nodename] * 2,
          "hostnames %s" % run["hostnames"][:])
    check(a["ranks_per_node"] == "%s:2" % os.uname().nodename, a["ranks_per_node"])
    check("r.h5" in a["command_line"] and a["command_line"].startswith(exe), a["command_line"])
    check(a["pml"] == "ucx" and "memory" in a["ucx_transports"], a["ucx_transports"])
    check(a["hdf5_version"] == ".".join(map(str, h5py.version.hdf5_version_tuple)),
          "HDF5 version %s vs h5py's %s" % (a["hdf5_version"], h5py.version.hdf5_version))
    env = dict(run["env"].attrs)
    check(env.get("UCX_LOG_LEVEL") == "warn" and env.get("FABRICBENCH_QUIET") == "1",
          "recorded environment: %s" % env)
    check(env.get("OMPI_MCA_pml") == "ucx", "the pml selection is recorded: %s" % env)
    check(all(k.startswith(ALLOWED_ENV) for k in env), "foreign variables recorded: %s" % env)
    check("UNRELATED_SECRET" not in env, "unrelated variable recorded")
    # secrets under the recorded prefixes are not: Open MPI's per-job transport key, and any
    # name with KEY, TOKEN, SECRET, PASSW, CRED or AUTH in it
    check("OMPI_MCA_orte_precondition_transports" not in env and
          not any(w in k.upper() for k in env for w in ("KEY", "TOKEN", "SECRET", "PASSW")),
          "a secret recorded: %s" % sorted(env))
    tables = read_table(f)
    check(list(tables) == KERNELS, "kernel groups %s" % list(tables))
    for kname, g in run["kernels"].items():
        t = g["table"]
        for c in t.attrs["columns"].split(","):
            check("units" in t[c].attrs, "column %s/%s has no units" % (kname, c))
        check(g.attrs["status"] == "complete", "%s status %s" % (kname, g.attrs["status"]))
    check(run["kernels/00_latency/table/p50_us"].attrs["units"] == "us", "units of p50_us")
    check(run["kernels/01_bw/table/MBps"].attrs["units"] == "MB/s", "units of MBps")

    # every printed value equals the stored one, to the printed precision
    live = {k["name"]: k for k in kernels}
    mapping = {"bytes": "bytes", "iters": "iterations", "warmup": "warmup", "min_us": "min_us",
               "p50_us": "p50_us", "p90_us": "p90_us", "p99_us": "p99_us",
               "p99.9_us": "p999_us", "p99.99_us": "p9999_us", "max_us": "max_us",
               "mean_us": "mean_us",
               "stddev_us": "stddev_us", "loop_us": "loop_us", "MB/s": "MBps", "Gb/s": "Gbps",
               "msg/s": "msgps", "pair_MB/s": "pair_MBps", "pair_msg/s": "pair_msgps",
               "lat_us": "loop_us", "time_us": "mean_us", "algbw_GB/s": "algbw_GBps",
               "busbw_GB/s": "busbw_GBps", "count": "count"}
    whole = ("bytes", "iters", "warmup", "msg/s", "pair_msg/s", "count")  # printed as integers
    compared = 0
    for kname, cols in tables.items():
        rows = live[kname]["rows"]
        check(len(rows) == len(sizes) and list(cols["bytes"]) == sizes,
              "%s rows: %s" % (kname, cols["bytes"]))
        for i, r in enumerate(rows):
            for printed, stored in mapping.items():
                if printed not in r:
                    continue
                want = float(cols[stored][i])
                if r[printed] == "-":  # a quantile with too few samples: NaN in the file
                    expect(math.isnan(want), "%s %d B %s: printed -, stored %s"
                          % (kname, r["bytes"], printed, want))
                    compared += 1
                    continue
                # at least 3 decimals (times, Gb/s, GB/s) or 2 (MB/s), and at least 4
                # significant digits, which small values need (output/table.h)
                tol = 0.0051 * max(1.0, abs(want)) if printed.endswith("_us") else \
                    0.5 + 1e-6 * abs(want) if printed in whole else 0.005 + 5e-4 * abs(want)
                expect(abs(r[printed] - want) <= tol, "%s %d B %s: printed %s, stored %s"
                      % (kname, r["bytes"], printed, r[printed], want))
                compared += 1
            expect(cols["validation_errors"][i] == 0 and r["errors"] == 0, "validation column")
            expect(cols["percentiles_exact"][i] == 1, "exact flag")
            # nccl-tests' names: a collective's type and reduction, "" (printed -) elsewhere
            want = ("float", "sum") if kname == "allreduce" else ("", "")
            expect((cols["type"][i], cols["redop"][i]) == want and
                  (r.get("type"), r.get("redop")) == ((want[0], want[1]) if want[0] else
                                                      (None, None)),
                  "%s type, redop: stored %r %r, printed %r %r" % (
                      kname, cols["type"][i], cols["redop"][i], r.get("type"), r.get("redop")))
            compared += 2
    # --samples: per-iteration times, compressed, consistent with the table
    for kname, g in run["kernels"].items():
        s = g["samples"]
        cols = tables[g.attrs["kernel"]]
        for i, b in enumerate(sizes):
            d = s[str(b)]
            expect(d.compression == "gzip" and d.chunks is not None, "samples compressed")
            expect(d.attrs["units"] == "us" and d.shape[0] == cols["iterations"][i],
                  "%s %d: %d samples for %d iterations" % (kname, b, d.shape[0],
                                                            cols["iterations"][i]))
            v = d[:]
            expect(abs(v.mean() - cols["mean_us"][i]) <= 1e-6 * cols["mean_us"][i] + 1e-9,
                  "%s %d: mean of samples %r vs mean_us %r" % (kname, b, v.mean(),
                                                                cols["mean_us"][i]))
            expect(abs(v.min() - cols["min_us"][i]) < 1e-9 and
                  abs(v.max() - cols["max_us"][i]) < 1e-9, "samples min/max")
            expect(abs(np.percentile(v, 50) - cols["p50_us"][i]) < 1e-6 * cols["p50_us"][i],
                  "%s %d: numpy p50 %r vs stored %r" % (kname, b, np.percentile(v, 50),
                                                          cols["p50_us"][i]))
print("%s round trip: %d printed values compared with the HDF5 file read by h5py"
      % ("FAIL" if FAILURES else "ok", compared))

# h5dump reads it
d = subprocess.run(["h5dump", "-A", "r.h5"], capture_output=True, text=True, timeout=60)
check(d.returncode == 0 and "fabricbench-results" in d.stdout, "h5dump: %s" % d.stderr)
print("ok h5dump")

# fabricbench show prints the same rows as the live table
s = subprocess.run([exe, "show", "--wide", "r.h5"], capture_output=True, text=True, timeout=60)
check(s.returncode == 0, "show: exit %d %s" % (s.returncode, s.stderr))
check(data_lines(s.stdout) == data_lines(p.stdout),
      "show's rows differ from the live table:\n%s\n---\n%s" % (s.stdout, p.stdout))
check("# status: complete" in s.stdout, "show prints the kernel status")
shown = len(data_lines(s.stdout))
# and the run's context: the transports, the fabric check and each rank's placement
check("# ucx transports: " in s.stdout and "# fabric: any" in s.stdout and
      "# placement: rank 0 " in s.stdout and "# placement: rank 1 " in s.stdout,
      "show lacks the run's context:\n%s" % s.stdout[:3000])
# a collective's element type and how it is reduced
c = mpirun(2, [exe, "run", "allreduce,bcast", "-m", "64", "-t", "0.01", "--dtype", "float16",
               "--root", "1", "-o", "coll.h5"])
check(c.returncode == 0, "coll.h5: %s" % c.stderr[-2000:])
s = subprocess.run([exe, "show", "coll.h5"], capture_output=True, text=True, timeout=60)
check("# dtype: float16, op sum (emulated: 16-bit storage" in s.stdout and
      "# root: fixed, rank 1" in s.stdout, "show lacks dtype/root:\n%s" % s.stdout[:3000])
# Bytes that are not UTF-8 in an argument and in a recorded variable: every output is valid
# UTF-8 (the bytes written as \xNN), parsed by strict readers
cmd = [x.encode() for x in mpirun_cmd(2)] + \
    [exe.encode(), b"run", b"latency", b"-m", b"8", b"-i", b"5", b"-o", b"u8.h5", b"--json",
     b"u8.json", b"--fabrics-file", b"/nonexistent/\xff\xfe.conf"]
env_b = {k.encode(): v.encode() for k, v in mpi_env().items()}
env_b[b"UCX_FABTEST_BYTES"] = b"ok\xc3\x28\xff"
env_b[b"UCX_FABTEST_TOKEN"] = b"hidden"
u = subprocess.run(cmd, capture_output=True, timeout=120, env=env_b)
check(u.returncode == 0, "non-UTF-8 run: exit %d\n%s" % (u.returncode, u.stderr[-2000:]))
with open("u8.json", encoding="utf-8", errors="strict") as jf:
    recs = [json.loads(line) for line in jf]
check(recs[0]["env"].get("UCX_FABTEST_BYTES") == "ok\\xC3(\\xFF" and
      "\\xFF\\xFE" in recs[0]["command_line"] and "UCX_FABTEST_TOKEN" not in recs[0]["env"],
      "JSON strings: %r %r" % (recs[0]["env"].get("UCX_FABTEST_BYTES"), recs[0]["command_line"]))
with h5py.File("u8.h5", "r") as f:
    r0 = f["runs/run_0000"]
    for k, v in list(r0.attrs.items()) + list(r0["env"].attrs.items()):
        if isinstance(v, bytes):
            v.decode("utf-8")  # raises on invalid UTF-8
    check(r0["env"].attrs["UCX_FABTEST_BYTES"] == "ok\\xC3(\\xFF" and
          "\\xFF\\xFE" in r0.attrs["command_line"], "HDF5 strings: %r" % r0.attrs["command_line"])
print("ok non-UTF-8 bytes in arguments and environment: JSON and HDF5 valid UTF-8, \\xNN")

# crafted files: an attribute that is an array, a 2-D column, a column of strings, a run that
# is a dataset: no crash, one error line naming the object, exit 3
def crafted(edit):
    shutil.copyfile("coll.h5", "crafted.h5")
    with h5py.File("crafted.h5", "r+") as f:
        k = f["runs/run_0000/kernels"]
        edit(f, k[sorted(k)[0]])
    s = subprocess.run([exe, "show", "crafted.h5"], capture_output=True, text=True, timeout=60)
    return s.returncode, [l for l in s.stderr.splitlines() if l.strip()]


def fabric_array(f, g):
    f["runs/run_0000"].attrs["fabric"] = np.arange(64, dtype=np.float64)


def column_2d(f, g):
    n = len(g["table/bytes"])
    del g["table/p50_us"]
    g["table/p50_us"] = np.zeros((n, 3))


def column_strings(f, g):
    n = len(g["table/bytes"])
    del g["table/max_us"]
    g["table/max_us"] = np.array([b"\x1b[31mred"] * n)


def run_dataset(f, g):
    f["runs/run_0001"] = np.arange(3)


for edit, says in ((fabric_array, "attribute fabric of /runs/run_0000 holds 64 values"),
                   (column_2d, "column /runs/run_0000/kernels/00_allreduce/table/p50_us is "
                               "not 1-D"),
                   (column_strings, "table/max_us is not numeric"),
                   (run_dataset, "/runs/run_0001 is not a group")):
    rc, err = crafted(edit)
    check(rc == 3 and len(err) == 1 and says in err[0], "show of a crafted file (%s): exit %d %s"
          % (edit.__name__, rc, err))
# text from the file reaches the terminal with its control characters escaped
shutil.copyfile("coll.h5", "crafted.h5")
with h5py.File("crafted.h5", "r+") as f:
    f["runs/run_0000"].attrs["command_line"] = "evil \x1b]0;title\x07 \x1b[2J"
s = subprocess.run([exe, "show", "crafted.h5"], capture_output=True, text=True, timeout=60)
check(s.returncode == 0 and "\x1b" not in s.stdout and "evil \\x1B]0;title\\x07" in s.stdout,
      "control characters: %r" % s.stdout[:400])
print("ok show: %d rows identical to the live table; a crafted file refused" % shown)

# JSON Lines: every line parses; the rows equal the HDF5 table exactly
with h5py.File("r.h5", "r") as f:
    tables = read_table(f)
    columns = f["runs/run_0000/kernels/00_latency/table"].attrs["columns"].split(",")
recs = [json.loads(l) for l in open("r.jsonl")]
check(recs[0]["record"] == "run" and recs[-1]["record"] == "end", "record order")
check(recs[0]["schema"] == "fabricbench-results" and set(recs[0]["units"]) == set(columns),
      "run record units: %s" % recs[0].get("units"))
check(recs[-1]["status"] == "complete", "end record")
rows = [r for r in recs if r["record"] == "row"]
check(len(rows) == len(KERNELS) * len(sizes), "%d row records" % len(rows))
seen = {}
for r in rows:
    i = seen.get(r["kernel"], 0)
    seen[r["kernel"]] = i + 1
    for c in columns:
        want = tables[r["kernel"]][c][i]
        if isinstance(want, str):  # type, redop
            same = r[c] == want
        else:
            same = (r[c] is None and np.isnan(want)) or r[c] == want  # NaN is null in JSON
        expect(same, "json %s %s: %r vs %r" % (r["kernel"], c, r[c], want))
# CSV: the header is the HDF5 columns; values equal
with open("r.csv") as fh:
    rd = csv.reader(fh)
    head = next(rd)
    check(head == ["kernel"] + columns, "CSV header %s vs HDF5 columns %s" % (head, columns))
    seen = {}
    n = 0
    for line in rd:
        k = line[0]
        i = seen.get(k, 0)
        seen[k] = i + 1
        for c, v in zip(columns, line[1:]):
            want = tables[k][c][i]
            if isinstance(want, str):  # type, redop
                same = v == want
            else:
                want = float(want)
                same = (v == "" and np.isnan(want)) or (v != "" and float(v) == want)  # NaN: ""
            expect(same, "csv %s %s: %s vs %r" % (k, c, v, want))
        n += 1
    check(n == len(KERNELS) * len(sizes), "%d CSV rows" % n)
print("%s JSON Lines and CSV carry the HDF5 values" % ("FAIL" if FAILURES else "ok"))

# ---------------------------------------------------------------- never clobber
before = sha("r.h5")
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-t", "0.01", "-o", "r.h5"])
check(p.returncode == 2 and "already exists" in p.stderr and "--append" in p.stderr,
      "clobber: exit %d %s" % (p.returncode, p.stderr))
check("# kernel" not in p.stdout and sha("r.h5") == before, "clobber touched something")
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-t", "0.01", "-o", "r.h5", "--json",
               "r.jsonl"])
check(p.returncode == 2 and sha("r.h5") == before, "append needed for json too")
p = mpirun(2, [exe, "run", "latency", "-m", "8,16", "-t", "0.01", "-o", "r.h5", "--append"])
check(p.returncode == 0, "append: %d %s" % (p.returncode, p.stderr))
with h5py.File("r.h5", "r") as f:
    check(list(f["runs"]) == ["run_0000", "run_0001"] and f.attrs["latest_run"] == "run_0001",
          "append adds a run: %s" % list(f["runs"]))
    check(len(read_table(f, "run_0000")["bw"]["bytes"]) == 3, "first run kept")
    check(list(read_table(f, "run_0001")["latency"]["bytes"]) == [8, 16], "second run")
p = mpirun(2, [exe, "run", "latency", "-m", "32", "-t", "0.01", "-o", "r.h5", "--force"])
with h5py.File("r.h5", "r") as f:
    check(p.returncode == 0 and list(f["runs"]) == ["run_0000"] and
          list(read_table(f)["latency"]["bytes"]) == [32], "--force replaces")
with open("plain.h5", "w") as fh:
    fh.write("not hdf5")
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-t", "0.01", "-o", "plain.h5", "--append"])
check(p.returncode == 2 and "not a fabricbench result file" in p.stderr, p.stderr)
s = subprocess.run([exe, "show", "plain.h5"], capture_output=True, text=True)
check(s.returncode == 3 and "cannot open plain.h5" in s.stderr, "show non-HDF5: %s" % s.stderr)
print("ok never clobber, --append, --force, foreign files")

# ---------------------------------------------------------------- outputs that cannot work
for target, why in (("/nonexistent-dir/x.h5", "No such file or directory"),
                    ("/proc/x.h5", "")):
    p = mpirun(2, [exe, "run", "latency", "-m", "8", "-t", "0.01", "-o", target], timeout=30)
    check(p.returncode == 3 and "cannot create" in p.stderr and why in p.stderr,
          "unwritable %s: exit %d %s" % (target, p.returncode, p.stderr))
    check("# kernel" not in p.stdout, "measured although the output was unwritable")
print("ok unwritable outputs refused before measuring (exit 3)")

# A file-size limit on the ranks: a write error, exit 3 with a message, the rows before kept.
# A real `ulimit -f` must leave MPI_Init 4.5 MiB (mpi.startup refuses less before MPI_Init),
# which takes about 600,000 ping-pongs of samples to outgrow: minutes beside busy loops. So the
# ranks lower their own limit to 640 KiB just after MPI_Init (FABRICBENCH_TEST_FSIZE): the
# file holds about 475 KB with its first row (the run's description, the inventory, the
# columns) and grows by 60-90 KB a row (samples), so the eight sizes' file (over 900 KB)
# cannot be written whole: a row from the second to the fourth fails. The run must be marked failed every time: a commit leaves 32 KiB below the limit
# for that mark (output/hdf5.c; without it, once in a few runs under load the last good image
# was within the mark's 6 KiB of the limit and the file kept "running").
p = mpirun(2, [exe, "run", "latency", "-m", "1:128", "-i", "10000", "-x", "100", "--samples",
               "-q", "-o", "fsize.h5", "--json", "fsize.json"],
           env={"FABRICBENCH_TEST_FSIZE": "640"},
           timeout=600)  # a bound for a busy machine, not a speed
check(p.returncode == 3 and "File too large" in p.stderr and
      p.stderr.count("cannot write") == 1, "ulimit -f: exit %d\n%s" % (p.returncode, p.stderr))
with h5py.File("fsize.h5", "r") as f:
    kept = len(read_table(f)["latency"]["bytes"])
    run = f["runs"][sorted(f["runs"])[-1]]
    check(run.attrs["status"] == "failed" and "File too large" in run.attrs["stop_reason"],
          "ulimit -f: the HDF5 run says %r" % dict(run.attrs))
with open("fsize.json") as jf:
    end = json.loads(jf.readlines()[-1])
check(kept >= 1 and end["record"] == "end" and end["status"] == "failed",
      "ulimit -f: %d rows kept, JSON end %r" % (kept, end))
print("ok ulimit -f: exit 3, one message, %d rows kept, the run marked failed (JSON, HDF5)" % kept)

# A write error mid-run (a full disk: a 1 MiB tmpfs): exit 3, rows written before intact.
if os.geteuid() != 0:
    print("SKIP write-error check: mounting a small tmpfs needs root")
else:
    os.mkdir("small")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", "small"], check=True)
    try:
        # Fixed iterations: 160 KB of samples a row; the file with one row is 280-330 KB and
        # with none about 190 KB, so the first row always fits (old and new file side by side)
        # and the fourth or fifth cannot (1 MiB: 3-4 rows kept; 400 KiB kept none once beside
        # busy loops).
        p = mpirun(2, [exe, "run", "latency", "-m", "1:64K", "-i", "20000", "-x", "10",
                       "--samples", "-o", "small/full.h5"])
        check(p.returncode == 3 and "No space left on device" in p.stderr and
              "keeps everything written before" in p.stderr,
              "write error: exit %d\n%s" % (p.returncode, p.stderr))
        with h5py.File("small/full.h5", "r") as f:
            t = read_table(f)["latency"]
            n = len(t["bytes"])
            check(0 < n < 17 and list(t["bytes"]) == [1 << i for i in range(n)],
                  "rows kept after the write error: %s" % t["bytes"])
            check(all(len(c) == n for c in t.values()), "ragged columns")
            # Marked failed where a second copy of the file fits; else left as committed.
            run = f["runs"][sorted(f["runs"])[-1]]
            st = run.attrs["status"]
            check((st == "failed" and "No space left" in run.attrs["stop_reason"]) or
                  (st == "running" and run.attrs["end_time"] == ""),
                  "disk full: the HDF5 run says %r" % dict(run.attrs))
        check(len(data_lines(p.stdout)) >= n, "the table printed the rows in the file")
        check(not [x for x in os.listdir("small") if ".tmp-" in x], "temporary file left")
    finally:
        subprocess.run(["umount", "small"], check=False)
    print("ok write error (disk full): exit 3, %d complete rows kept, status %s" % (n, st))

# ---------------------------------------------------------------- SIGTERM to the ranks
def start(out):
    return subprocess.Popen(mpirun_cmd(2) +
                            [exe, "run", "latency,bw", "-m", "1:64K", "-t", "0.1", "-o", out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env())


def children(proc):
    """The ranks of this test's mpirun (never other fabricbench jobs on the machine)."""
    return [int(x) for x in subprocess.run(["pgrep", "-x", "-P", str(proc.pid), "fabricbench"],
                                           capture_output=True, text=True).stdout.split()]


def committed_rows(out):
    """Rows the result file holds (a commit replaces it whole), 0 while it cannot be read."""
    try:
        with h5py.File(out, "r") as f:
            return sum(len(k["table/bytes"]) for k in f["runs/run_0000/kernels"].values()
                       if "table" in k)
    except (OSError, KeyError):
        return 0


def ranks(proc, out):
    """children(proc), once the run has committed a row to its result file (MPI is up,
    measuring, a row to keep): polled, not a fixed wait, which a busy machine outlasted (no
    row yet) and a quiet one spent idle. The bound is for a busy machine, not a speed."""
    t0 = time.monotonic()
    while (proc.poll() is None and committed_rows(out) < 1 and
           time.monotonic() - t0 < 120):
        time.sleep(0.05)
    check(proc.poll() is None, "%s: the run ended before a signal could reach it" % out)
    return children(proc)


proc = start("term.h5")
for pid in ranks(proc, "term.h5"):
    os.kill(pid, signal.SIGTERM)
t0 = time.monotonic()
out, err = proc.communicate(timeout=60)
check(time.monotonic() - t0 < 10, "took %.1f s to stop after SIGTERM" % (time.monotonic() - t0))
check(proc.returncode == 4, "SIGTERM: exit %d\n%s" % (proc.returncode, err))
with h5py.File("term.h5", "r") as f:
    a = f["runs/run_0000"].attrs
    check(a["status"] == "interrupted" and "Terminated" in a["stop_reason"], dict(a))
    t = read_table(f)
    printed = data_lines(out)
    stored = sum(len(c["bytes"]) for c in t.values())
    check(stored == len(printed) and stored > 0, "rows: %d stored, %d printed" % (stored,
                                                                            len(printed)))
check("# run interrupted" in out, "the table says the run was interrupted")
print("ok SIGTERM: exit 4, run marked interrupted, %d rows kept" % stored)

# SIGUSR1 (Slurm's warning) to all ranks, SIGINT and SIGHUP to one rank only: every rank
# stops.
for sig, targets in ((signal.SIGUSR1, "all"), (signal.SIGINT, "one"), (signal.SIGHUP, "one")):
    path = "sig%d.h5" % sig
    proc = start(path)
    pids = ranks(proc, path)
    check(len(pids) == 2, "ranks of mpirun %d: %r" % (proc.pid, pids))
    for pid in (pids if targets == "all" else pids[-1:]):
        os.kill(pid, sig)
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == 4, "%s to %s rank(s): exit %d\n%s" % (sig.name, targets,
                                                                  proc.returncode, err))
    with h5py.File(path, "r") as f:
        check(f["runs/run_0000"].attrs["status"] == "interrupted", "status after %s" % sig.name)
        stored = sum(len(c["bytes"]) for c in read_table(f).values())
    check(stored == len(data_lines(out)), "%s: rows stored %d, printed %d"
          % (sig.name, stored, len(data_lines(out))))
    print("ok %s to %s rank(s): exit 4, %d rows kept" % (sig.name, targets, stored))

# ---------------------------------------------------------------- the automatic name
# Three runs in one directory without -o: three files, never clobbering. SLURM_JOB_ID goes into
# the automatic name only as a job number (core/num.h): a job id that is a path ("../x") or
# padded is left out (those two runs take the plain name, a second after the other), never a
# way to write elsewhere.
os.mkdir("autojob")
host = os.uname().nodename
for job in ("4242", "../escape", " 7"):
    p = subprocess.run(mpirun_cmd(2) +
                       [exe, "run", "latency", "-m", "8", "-i", "5"], cwd="autojob",
                       capture_output=True, text=True, timeout=60,
                       env=dict(mpi_env(), SLURM_JOB_ID=job))
    check(p.returncode == 0, "auto name with SLURM_JOB_ID=%r: %s" % (job, p.stderr[-2000:]))
names = sorted(os.listdir("autojob"))
plain = [n for n in names if re.match(r"fabricbench-%s-\d{8}T\d{6}Z(-\d+)?\.h5$"
                                      % re.escape(host), n)]
check(len(names) == 3 and
      len([n for n in names if re.match(r"fabricbench-%s-\d{8}T\d{6}Z-job4242\.h5$"
                                        % re.escape(host), n)]) == 1 and
      len(plain) == 2 and not os.path.exists("escape.h5"),
      "automatic names with SLURM_JOB_ID: %s" % names)
check("# results: " + plain[-1] in p.stdout or "# results: " + plain[0] in p.stdout,
      "the header names the automatic file")
print("ok automatic names, never clobbering; SLURM_JOB_ID in the name only as a job number: %s"
      % names)

# ---------------------------------------------------------------- runs that meet
# Three runs with automatic names started together, 4 times: three files, all complete.
os.mkdir("meet")
cmd = mpirun_cmd(2) + [exe, "run", "latency", "-m", "8,1K", "-i", "50", "-q"]
for i in range(4):
    qs = [subprocess.Popen(cmd, cwd="meet", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env=mpi_env()) for _ in range(3)]
    for q in qs:
        q.wait(timeout=120)
        check(q.returncode == 0, "a run of three started together: exit %d %s"
              % (q.returncode, q.stderr.read()[-2000:]))
names = sorted(n for n in os.listdir("meet") if n.endswith(".h5"))
check(len(names) == 12 and not any(n.endswith(".lock") for n in os.listdir("meet")),
      "12 runs, files: %s" % sorted(os.listdir("meet")))
for n in names:
    with h5py.File(os.path.join("meet", n), "r") as f:
        check(f["runs/run_0000"].attrs["status"] == "complete" and
              len(read_table(f)["latency"]["bytes"]) == 2, "%s incomplete" % n)
print("ok 4 times three runs started together: 12 files, all complete")

# Two --append runs at once: each lands in the file or is refused (exit 2) before measuring.
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "5", "-q", "-o", "shared.h5"])
check(p.returncode == 0, "shared.h5: %s" % p.stderr[-1000:])
landed = refused = 0
for i in range(3):
    qs = [subprocess.Popen(mpirun_cmd(2) +
                           [exe, "run", "latency", "-m", "8,1K,64K", "-t", "0.05", "-q", "-o",
                            "shared.h5", "--append"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=mpi_env()) for _ in range(2)]
    for q in qs:
        out, err = q.communicate(timeout=120)
        check(q.returncode in (0, 2), "an appending run: exit %d %s" % (q.returncode, err))
        if q.returncode == 2:
            check("being written by another fabricbench run" in err and "# kernel" not in out,
                  "refused appender: %s" % err)
            refused += 1
        else:
            landed += 1
with h5py.File("shared.h5", "r") as f:
    check(len(f["runs"]) == 1 + landed and all(f["runs"][r].attrs["status"] == "complete"
                                                for r in f["runs"]), "shared.h5 runs")
print("ok two appenders at once, 3 times: %d landed, %d refused before measuring"
      % (landed, refused))

# The same file for two outputs (also spelled differently): refused, nothing created.
for args in (["-o", "same.h5", "--csv", "same.h5"], ["-o", "same.h5", "--json", "./same.h5"],
             ["-o", "none", "--json", "same.json", "--csv", "../%s/same.json"
              % os.path.basename(os.getcwd())]):
    p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "5"] + args)
    check(p.returncode == 2 and "name the same file" in p.stderr and
          not os.path.exists("same.h5") and not os.path.exists("same.json"),
          "%s: exit %d %s" % (args, p.returncode, p.stderr))
# Not regular files, also with --force: refused with a message that does not suggest --force;
# the FIFO is never opened (no hang), the device node stays as it was.
os.mkfifo("fifo")
dev = "devnode"
try:
    os.mknod(dev, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
except PermissionError:
    dev = "/dev/null"
for args in (["-o", "fifo", "--force"], ["-o", "none", "--json", "fifo", "--append"],
             ["-o", dev, "--force"], ["-o", "none", "--csv", dev, "--force"]):
    p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "5"] + args, timeout=30)
    check(p.returncode == 2 and "results go to regular files" in p.stderr and
          "--force" not in p.stderr.split("error:")[-1], "%s: exit %d %s"
          % (args, p.returncode, p.stderr))
check(stat.S_ISFIFO(os.stat("fifo").st_mode) and stat.S_ISCHR(os.stat(dev).st_mode),
      "the FIFO or device node changed")
print("ok outputs: the same file twice, a FIFO, a device node: refused (exit 2), untouched")

# ---------------------------------------------------------------- kill -9 at random moments
rng = random.Random(os.environ.get("FAB_TEST_SEED", str(time.time())))
for i in range(5):
    path = "kill%d.h5" % i
    proc = start(path)
    # the file exists once the run has started; kill at a random moment after that
    deadline = time.monotonic() + 20
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    delay = rng.uniform(0.0, 2.5)
    time.sleep(delay)
    for pid in children(proc):
        os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    with h5py.File(path, "r") as f:
        run = f["runs/run_0000"]
        t = read_table(f)
        nrows = 0
        groups = list(run["kernels"].values()) if "kernels" in run else []
        order = groups[0]["table"].attrs["columns"].split(",") if groups else ["redop"]
        # the kernels' own columns: after redop, before the row's quality (docs/SCHEMA.md)
        own = set(order[order.index("redop") + 1:order.index("quality")] if "quality" in order
                  else order[order.index("redop") + 1:])
        check(not groups or ("tcp_retrans" in own and "loss_pct" in own),
              "kill %d: kernels' own columns %s" % (i, sorted(own)))
        for kname, cols in t.items():
            n = len(cols["bytes"])
            check(all(len(c) == n for c in cols.values()), "kill %d: ragged %s" % (i, kname))
            check(list(cols["bytes"]) == [1 << j for j in range(n)], "kill %d: %s rows %s"
                  % (i, kname, cols["bytes"]))
            tails = {"p90_us": 0.9, "p99_us": 0.99, "p999_us": 0.999, "p9999_us": 0.9999}
            for c, v in cols.items():
                # (columns of collectives are NaN by definition for point-to-point; within one
                # host there is no line rate; a window shorter than a /proc/stat tick has no
                # node shares; a tail quantile needs n >= 10/(1-p); blocks_ci_pct is the
                # adaptive measurement's; the kernels' own columns are theirs)
                if c in tails:
                    enough = cols["iterations"] * (1 - tails[c]) >= 10 - 1e-9
                    check(np.all(np.isfinite(v[enough])) and np.all(np.isnan(v[~enough])),
                          "kill %d: %s.%s NaN where n is enough, or not where it is too "
                          "small: %s" % (i, kname, c, v))
                elif c in own:
                    # the kernels' own columns (after redop: docs/SCHEMA.md), the socket
                    # kernels': NaN for the MPI kernels measured here
                    # (a text column, such as congestor_name: empty)
                    unset = (np.all([not x for x in v]) if v.dtype.kind in "SUO"
                             else np.all(np.isnan(v)))
                    check(unset, "kill %d: %s.%s set for an MPI kernel: %s" % (i, kname, c, v))
                elif v.dtype.kind == "f" and c not in ("algbw_GBps", "busbw_GBps", "comm_us",
                                                       "slowest_share", "overlap_pct",
                                                       "line_rate_pct", "blocks_ci_pct",
                                                       "cpu_steal_pct", "ctx_invol_per_s",
                                                       "runnable_per_cpu") and \
                        not c.startswith(("cpu_node_", "fabric_", "netrx_", "late_",
                                          "exposed_")) and c != "compute_us":
                    check(np.all(np.isfinite(v)), "kill %d: %s.%s not finite: %s"
                          % (i, kname, c, v))
            # the fabric's counters: NaN exactly where no port was read (this host has no RDMA
            # port and no ethtool statistics: docs/METRICS.md, "Fabric counters")
            if "fabric_ports" in cols:
                none = np.asarray(cols["fabric_ports"]) == 0
                check(np.all(np.isnan(cols["fabric_port_errors"][none])) and
                      np.all(np.isfinite(cols["fabric_port_errors"][~none])),
                      "kill %d: %s fabric counters against fabric_ports %s: %s" %
                      (i, kname, cols["fabric_ports"], cols["fabric_port_errors"]))
            check(np.all(cols["iterations"] >= 10), "kill %d: iterations" % i)
            nrows += n
        status = run.attrs["status"]
    leftovers = [x for x in os.listdir(".") if x.startswith(".%s.tmp" % path)]
    print("ok kill -9 #%d after %.2f s: file opens, %d complete rows, status %s%s"
          % (i + 1, delay, nrows, status, ", temporary file left" if leftovers else ""))
print("PASS results" if not FAILURES else "results: the failed checks follow")
