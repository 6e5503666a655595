# SPDX-License-Identifier: BSD-3-Clause
"""JSON for monitoring and scripts, on live runs, read by Python's json and csv modules:

- `--json -`: every line on stdout parses as JSON (UCX logging at info level, which UCX writes
  to stdout by default, goes to stderr with the table); the records are run, kernel, row,
  kernel_end, end, and every value equals the HDF5 file of the same run; -q drops the table;
- `--csv -`: stdout is CSV only, equal to the HDF5 file;
- two outputs asking for stdout, and -o -: refused (exit 2), nothing measured;
- `--json-doc FILE`: read while the run goes (every read a whole document, status running),
  then complete, equal to the HDF5 file; --repeat 2; an existing file refused, --append
  refused, --force replaces; kill -9 leaves a whole document (status running);
- `--json-doc -`: one document on stdout, also after SIGTERM (exit 4, status interrupted, the
  rows the HDF5 file has) and after a stall (the watchdog: exit 3, status failed).

usage: test_json_out.py FABRICBENCH"""
import csv
import io
import json
import math
import os
import signal
import subprocess
import sys
import time

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import fabtest  # noqa: E402
from fabtest import check, enter_scratch, mpi_env, mpirun, mpirun_cmd, parse_tables  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
END_FIELDS = ("status", "end_time", "stop_reason", "ucx_transports", "ucx_transports_by_pair",
              "fabric_check", "fabric_check_reason", "exit_code")


def table_lines(text):
    """The text table's lines out of stderr (which also has logs)."""
    return "\n".join(l for l in text.splitlines()
                     if l.startswith("#") or (l[:1] == " " and l.split()[0].isdigit()))


def h5_kernels(path, run="run_0000"):
    """[(attrs, {column: values})] of a run's kernels, in order."""
    out = []
    with h5py.File(path, "r") as f:
        ks = f["runs"][run]["kernels"]
        for name in sorted(ks):
            t = ks[name]["table"]
            cols = t.attrs["columns"].split(",")
            out.append((dict(ks[name].attrs), {c: t[c][:] for c in cols},
                        {c: ks[name]["blocks"][c][:] for c in ks[name]["blocks"]}
                        if "blocks" in ks[name] else {}))
    return out


def same(a, b):
    if isinstance(b, float) and math.isnan(b):
        return a is None
    return a == b and type(a) is (int if isinstance(b, int) else type(a))


def compare_rows(rows, h5, what):
    """JSON rows (dicts) against one kernel's HDF5 columns: every column, exactly."""
    cols = h5[1]
    n = len(cols["bytes"])
    check(len(rows) == n, "%s: %d rows in JSON, %d in the HDF5 file" % (what, len(rows), n))
    for i, r in enumerate(rows):
        for c, v in cols.items():
            want = v[i]
            # a text column (type, redop) reads as bytes: a JSON string
            want = want.decode() if isinstance(want, bytes) else want.item()
            check(c in r, "%s row %d lacks %s" % (what, i, c))
            check(same(r[c], want), "%s row %d %s: JSON %r, HDF5 %r" % (what, i, c, r[c], want))
        blocks = h5[2].get(str(cols["bytes"][i]))
        if blocks is not None:
            check(r.get("block_medians_us") == list(blocks),
                  "%s row %d: block medians differ from the file's" % (what, i))


def compare_kernel_meta(rec, attrs, what):
    for key, v in attrs.items():
        if key in ("status", "rows"):
            continue
        want = v.item() if hasattr(v, "item") else v
        check(rec.get(key) == want, "%s: kernel field %s: JSON %r, HDF5 %r" %
              (what, key, rec.get(key), want))


def run_attrs(path, run="run_0000"):
    with h5py.File(path, "r") as f:
        return {k: (v.item() if hasattr(v, "item") else v)
                for k, v in f["runs"][run].attrs.items()}


def start(args, np=2):
    """mpirun in a session of its own, so that stop() can end it with its ranks."""
    cmd = mpirun_cmd(np) + [exe, "run"] + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env(), start_new_session=True)


def rank_pids(path):
    return fabtest.rank_pids(exe, path)


def h5_rows(path):
    try:
        with h5py.File(path, "r") as f:
            return sum(len(k["table/bytes"]) for k in f["runs/run_0000/kernels"].values())
    except (OSError, KeyError):
        return 0


def wait_for(cond, proc, what, limit=90):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if cond():
            return
        time.sleep(0.05)
    check(False, "%s: not within %d s (exit %s)" % (what, limit, proc.poll()))


def stop(proc):
    """End our mpirun and its ranks if a check left them running. The whole process group: a
    rank that outlived a killed mpirun would hold the pipes, and communicate() would wait for
    it (seen beside busy loops: the test ran into ctest's limit instead of saying why)."""
    try:  # also when mpirun has exited: a rank of its group may still hold the pipes
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        check(False, "mpirun %d: its output pipes still open 30 s after SIGKILL" % proc.pid)


# ---------------------------------------------------------------- --json -: JSON Lines on stdout
args = ["latency,bw,allreduce", "-m", "8,1K,64K", "--budget", "0.6", "-o", "j.h5", "--json", "-"]
p = mpirun(2, [exe, "run"] + args, env={"UCX_LOG_LEVEL": "info"})
check(p.returncode == 0, "--json -: exit %d\n%s" % (p.returncode, p.stderr[-3000:]))
lines = p.stdout.splitlines()
recs = []
for i, line in enumerate(lines):
    try:
        recs.append(json.loads(line))
    except ValueError as e:
        check(False, "--json -: stdout line %d is not JSON (%s): %r" % (i + 1, e, line[:200]))
check("UCX  INFO" in p.stderr and "UCX  INFO" not in p.stdout,
      "UCX's log (on stdout by default) went to stderr")
kinds = [r["record"] for r in recs]
check(kinds[0] == "run" and kinds[-1] == "end" and kinds.count("kernel") == 3 and
      kinds.count("kernel_end") == 3, "--json -: records %s" % kinds)
header, tables = parse_tables(table_lines(p.stderr))
check([t["name"] for t in tables] == ["latency", "bw", "allreduce"] and
      header.get("results") == "j.h5", "the table went to stderr: %s" % [t["name"] for t in tables])
h5 = h5_kernels("j.h5")
at = 0
for ki, (attrs, cols, _) in enumerate(h5):
    while recs[at]["record"] != "kernel":
        at += 1
    compare_kernel_meta(recs[at], attrs, "--json - kernel %s" % attrs["kernel"])
    rows = []
    at += 1
    while recs[at]["record"] == "row":
        check(recs[at]["kernel"] == attrs["kernel"] and recs[at]["kind"] == attrs["kind"],
              "row record names its kernel")
        rows.append(recs[at])
        at += 1
    check(recs[at]["record"] == "kernel_end" and recs[at]["status"] == attrs["status"] and
          recs[at]["rows"] == len(rows), "kernel_end %r vs %r" % (recs[at], attrs["status"]))
    compare_rows(rows, h5[ki], "--json - %s" % attrs["kernel"])
    check(len(tables[ki]["rows"]) == len(rows), "the table on stderr has every row")
ra = run_attrs("j.h5")
end = recs[-1]
for k in END_FIELDS[:-1]:
    check(end[k] == ra[k], "end record %s: %r vs the file's %r" % (k, end[k], ra[k]))
check(end["exit_code"] == 0 and recs[0]["units"]["p50_us"] == "us", "end %r" % end)
for k in ("tool_version", "git_commit", "command_line", "start_time", "nranks"):
    check(recs[0][k] == ra[k], "run record %s: %r vs %r" % (k, recs[0][k], ra[k]))
print("ok --json -: %d lines on stdout, every one JSON, equal to the HDF5 file; the table and "
      "UCX's log on stderr" % len(lines))

p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "100", "-o", "none", "--json", "-", "-q"])
check(p.returncode == 0 and not [l for l in p.stderr.splitlines() if l.startswith("#")],
      "-q with --json -: no table on stderr\n%s" % p.stderr)
check([json.loads(l)["record"] for l in p.stdout.splitlines()] ==
      ["run", "kernel", "row", "kernel_end", "end"], "-q: %s" % p.stdout[:300])
print("ok --json - -q: no table, the JSON Lines alone")

# ---------------------------------------------------------------- --csv -
p = mpirun(2, [exe, "run", "latency,bw", "-m", "8,4K", "-i", "200", "-o", "c.h5", "--csv", "-"],
           env={"UCX_LOG_LEVEL": "info"})
check(p.returncode == 0, "--csv -: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
rows = list(csv.reader(io.StringIO(p.stdout)))
h5 = h5_kernels("c.h5")
cols = list(h5[0][1])
check(rows[0] == ["kernel"] + cols, "--csv -: header %s" % rows[0][:5])
check(len(rows) == 1 + sum(len(k[1]["bytes"]) for k in h5), "--csv -: %d lines" % len(rows))
for r in rows[1:]:
    check(len(r) == len(cols) + 1, "--csv -: a line of %d fields" % len(r))
    k = [x for x in h5 if x[0]["kernel"] == r[0]][0][1]
    i = list(k["bytes"]).index(int(r[1]))
    for c, v in zip(cols, r[1:]):
        want = k[c][i]
        if isinstance(want, bytes):  # a text column (type, redop): the CSV field as it is
            check(v == want.decode(), "--csv - %s %s %s: %r vs %r" % (r[0], r[1], c, v, want))
            continue
        want = want.item()
        got = float(v) if v else math.nan
        check(got == want or (math.isnan(got) and math.isnan(want)),
              "--csv - %s %s %s: %r vs %r" % (r[0], r[1], c, v, want))
print("ok --csv -: stdout is CSV alone, %d rows equal to the HDF5 file" % (len(rows) - 1))

# ---------------------------------------------------------------- refusals
for bad, words in ((["--json", "-", "--csv", "-"], "--json - and --csv -"),
                   (["--json", "-", "--json-doc", "-"], "--json - and --json-doc -"),
                   (["--csv", "-", "--prom", "-"], "--csv - and --prom -"),
                   (["-o", "-"], "-o -")):
    p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "10"] + bad)
    check(p.returncode == 2 and p.stdout == "" and p.stderr.count(words) == 1 and
          "hint:" in p.stderr, "%s: exit %d, stdout %r\n%s" % (bad, p.returncode,
                                                             p.stdout[:200], p.stderr))
check(not [n for n in os.listdir(".") if n.startswith("fabricbench-")], "a refused run wrote")
print("ok two outputs on stdout, and -o -: exit 2, one error line, nothing written")

# ---------------------------------------------------------------- --json-doc FILE
proc = start(["latency,bw", "-m", "8:1K", "-t", "0.2", "-o", "d.h5", "--json-doc", "d.json"])
reads, running_rows = 0, 0
try:
    while proc.poll() is None:
        try:
            with open("d.json") as f:
                text = f.read()
        except FileNotFoundError:
            time.sleep(0.02)
            continue
        doc = json.loads(text)  # a whole document at every moment (replaced atomically)
        reads += 1
        if proc.poll() is None and doc["status"] == "running":
            running_rows = max(running_rows, sum(len(k["rows"]) for k in
                                                 doc["runs"][0]["kernels"]))
            check(doc["runs"][0]["end"] is None, "a running document has no end yet")
        time.sleep(0.05)
    out, err = proc.communicate(timeout=60)
finally:
    stop(proc)
check(proc.returncode == 0, "--json-doc: exit %d\n%s" % (proc.returncode, err[-2000:]))
check(reads > 5 and running_rows > 0, "read %d times while it ran; at most %d rows seen running"
      % (reads, running_rows))
doc = json.load(open("d.json"))
check(doc["schema"] == "fabricbench-results" and doc["schema_version"] == 2 and
      doc["status"] == "complete" and len(doc["runs"]) == 1, "document: %s" %
      {k: doc[k] for k in doc if k != "runs"})
run = doc["runs"][0]
h5 = h5_kernels("d.h5")
ra = run_attrs("d.h5")
check(run["status"] == "complete" and run["end"]["exit_code"] == 0 and
      all(run["end"][k] == ra[k] for k in END_FIELDS[:-1]), "end %r" % run["end"])
check(run["run"]["units"]["MBps"] == "MB/s" and run["run"]["command_line"] == ra["command_line"]
      and run["run"]["hostnames"] == [os.uname().nodename] * 2, "the run object")
check([k["kernel"] for k in run["kernels"]] == [a["kernel"] for a, _, _ in h5], "kernels")
for k, h in zip(run["kernels"], h5):
    compare_kernel_meta(k, h[0], "--json-doc kernel %s" % k["kernel"])
    check(k["status"] == h[0]["status"], "kernel status %s" % k["status"])
    compare_rows(k["rows"], h, "--json-doc %s" % k["kernel"])
check(not [n for n in os.listdir(".") if ".tmp-" in n or n.endswith(".lock")],
      "temporary or lock files left: %s" % os.listdir("."))
print("ok --json-doc FILE: %d whole reads while it ran (up to %d rows, status running), then "
      "complete and equal to the HDF5 file" % (reads, running_rows))

p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "10", "-o", "none", "--json-doc",
               "d.json"])
check(p.returncode == 2 and "already exists" in p.stderr and "--force" in p.stderr,
      "an existing document: exit %d\n%s" % (p.returncode, p.stderr))
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "10", "-o", "none", "--json-doc",
               "d.json", "--append"])
check(p.returncode == 2 and "--append does not apply" in p.stderr, "--append: %s" % p.stderr)
check(json.load(open("d.json"))["runs"][0]["run"]["command_line"] == ra["command_line"],
      "a refused run left the document as it was")
p = mpirun(2, [exe, "run", "latency", "-m", "8,64", "-i", "10", "-o", "none", "--repeat", "2",
               "--json-doc", "d.json", "--force", "--json", "r2.jsonl"])
doc = json.load(open("d.json"))
check(p.returncode == 0 and doc["status"] == "complete" and len(doc["runs"]) == 2 and
      all(r["status"] == "complete" and len(r["kernels"][0]["rows"]) == 2 for r in doc["runs"]),
      "--force --repeat 2: %s" % p.stderr[-1000:])
kinds = [json.loads(l)["record"] for l in open("r2.jsonl")]
check(kinds.count("run") == 2 and kinds.count("end") == 2, "--json --repeat 2: %s" % kinds)
print("ok --json-doc: an existing file refused (also with --append), --force replaces it; "
      "--repeat 2 is two runs in one document")

# kill -9 in the middle: the file is the last whole document, status running
proc = start(["latency", "-m", "1:64K", "-t", "0.2", "-o", "none", "--json-doc", "k.json"])
try:
    def has_row():
        try:
            d = json.load(open("k.json"))
        except (OSError, ValueError):
            return False
        return any(k["rows"] for k in d["runs"][0]["kernels"])
    wait_for(has_row, proc, "a row in k.json")
    pids = rank_pids("k.json")
    check(len(pids) == 2, "ranks writing k.json: %s" % pids)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=60)
finally:
    stop(proc)
doc = json.load(open("k.json"))
n = sum(len(k["rows"]) for k in doc["runs"][0]["kernels"])
check(doc["status"] == "running" and doc["runs"][0]["end"] is None and n > 0,
      "after kill -9: status %s, %d rows" % (doc["status"], n))
print("ok kill -9: the document is whole, status running, %d rows" % n)

# ---------------------------------------------------------------- --json-doc - after SIGTERM
proc = start(["latency,bw", "-m", "1:64K", "-t", "0.2", "-o", "t.h5", "--json-doc", "-"])
try:
    wait_for(lambda: h5_rows("t.h5") >= 2, proc, "two rows in t.h5")
    pids = rank_pids("t.h5")
    check(len(pids) == 2, "ranks writing t.h5: %s" % pids)
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
finally:
    stop(proc)
check(proc.returncode == 4, "--json-doc - after SIGTERM: exit %d\n%s" % (proc.returncode,
                                                                         err[-2000:]))
doc = json.loads(out)  # stdout is the one document
run = doc["runs"][0]
rows = sum(len(k["rows"]) for k in run["kernels"])
check(doc["status"] == "interrupted" and run["status"] == "interrupted" and
      run["end"]["status"] == "interrupted" and run["end"]["exit_code"] == 4 and
      "Terminated" in run["end"]["stop_reason"], "after SIGTERM: %s %s" % (doc["status"],
                                                                          run["end"]))
check(rows == h5_rows("t.h5") and rows >= 2, "rows: %d in the document, %d in the file" %
      (rows, h5_rows("t.h5")))
check("# run interrupted" in err, "the table (on stderr) says the run was interrupted")
print("ok --json-doc - after SIGTERM: exit 4, one document on stdout, status interrupted, the "
      "file's %d rows" % rows)

# ---------------------------------------------------------------- --json-doc - after a stall
proc = start(["latency", "-m", "1:64K", "-t", "0.2", "-o", "s.h5", "--json-doc", "-",
              "--stall-timeout", "3"])
stopped = []
try:
    wait_for(lambda: h5_rows("s.h5") >= 1, proc, "a row in s.h5")
    stopped = rank_pids("s.h5")[1:]
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    out, err = proc.communicate(timeout=90)
finally:
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    stop(proc)
check(proc.returncode == 3 and "stalled" in err, "a stall: exit %d\n%s" % (proc.returncode,
                                                                          err[-2000:]))
doc = json.loads(out)
run = doc["runs"][0]
check(doc["status"] == "failed" and run["end"]["status"] == "failed" and
      run["end"]["exit_code"] == 3 and "stalled" in run["end"]["stop_reason"] and
      sum(len(k["rows"]) for k in run["kernels"]) >= 1, "after a stall: %s" % run["end"])
print("ok --json-doc - after a stall: exit 3, one document on stdout, status failed")

# ---------------------------------------------------------------- a full disk
# A write error mid-run (a 48 KiB tmpfs: the document grows by about 1 KB a row and each
# replacement needs the old and the new one side by side): exit 3, one message, the file is the
# last whole document. The --prom textfile, written at the end into a directory left full:
# exit 3, the textfile before kept.
if os.geteuid() != 0:
    print("SKIP full-disk checks: mounting a small tmpfs needs root")
else:
    os.mkdir("small")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", "small"], check=True)
    try:
        p = mpirun(2, [exe, "run", "latency,bw", "-m", "1:4M", "-i", "50", "-o", "none",
                       "--json-doc", "small/full.json"])
        check(p.returncode == 3 and p.stderr.count("No space left on device") == 1 and
              "the JSON document small/full.json keeps what was written before" in p.stderr,
              "--json-doc on a full disk: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
        doc = json.load(open("small/full.json"))
        rows = [r["bytes"] for k in doc["runs"][0]["kernels"] for r in k["rows"]]
        check(doc["status"] == "running" and 0 < len(rows) < 46 and
              rows == [1 << i for i in range(len(rows))][:len(rows)],
              "after the write error: status %s, rows %s" % (doc["status"], rows))
        check(os.listdir("small") == ["full.json"], "left: %s" % os.listdir("small"))
        os.unlink("small/full.json")
        with open("small/old.prom", "w") as f:
            f.write("# an earlier textfile\n")
        with open("small/filler", "wb", buffering=0) as f:  # the disk full
            try:
                while True:
                    f.write(b"x" * 1024)
            except OSError:
                pass
        p = mpirun(2, [exe, "run", "latency", "-m", "8,1K", "-i", "50", "-o", "none",
                       "--prom", "small/old.prom"])
        check(p.returncode == 3 and "cannot write the Prometheus textfile" in p.stderr,
              "--prom on a full disk: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
        check(open("small/old.prom").read() == "# an earlier textfile\n" and
              sorted(os.listdir("small")) == ["filler", "old.prom"],
              "the textfile before is kept, nothing else left: %s" % os.listdir("small"))
    finally:
        subprocess.run(["umount", "small"], check=False)
    print("ok a full disk: --json-doc exit 3, the last whole document kept (%d rows); --prom "
          "exit 3, the textfile before kept" % len(rows))
