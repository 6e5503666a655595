# SPDX-License-Identifier: BSD-3-Clause
"""--prom against the real Prometheus node-exporter (Debian's prometheus-node-exporter), started
on 127.0.0.1 on a free port with its textfile collector alone, scraped over HTTP:

- a live run's textfile: node_textfile_scrape_error 0; every column of every row of the HDF5
  file of the same run is there in base units under its documented name (times in seconds,
  MB/s and GB/s in bytes per second, % as a ratio), with the labels kernel, bytes, fabric,
  device, the pair's hosts and statistic; a value that is NaN in the file has no series; the
  run-level metrics (status, exit code, healthy, start and end times) agree with the file;
- a crafted textfile (test_prom --write: a host name with a quote, a backslash, a newline and
  a byte that is not UTF-8; values +Inf and -Inf) is accepted, and the labels read back;
- a run stopped by SIGTERM: the textfile says interrupted, exit code 4, not healthy;
- --prom - prints the same format on stdout; a name node-exporter would not read is refused.
node-exporter is stopped and the directory removed also when a check fails.

usage: test_node_exporter.py FABRICBENCH TEST_PROM"""
import atexit
import calendar
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpi_env, mpirun, mpirun_cmd  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe, test_prom = sys.argv[1], sys.argv[2]
HOST = os.uname().nodename

node_exporter = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
if not node_exporter:
    print("SKIP: prometheus-node-exporter is not installed (apt-get install "
          "prometheus-node-exporter; scripts/quickstart.sh test installs it)")
    sys.exit(77)

TEXTFILES = os.path.abspath("textfiles")
os.mkdir(TEXTFILES)
exporter = None


def stop_exporter():
    global exporter
    if exporter is not None and exporter.poll() is None:
        exporter.terminate()
        try:
            exporter.wait(timeout=10)
        except subprocess.TimeoutExpired:
            exporter.kill()
            exporter.wait()
    exporter = None
    shutil.rmtree(TEXTFILES, ignore_errors=True)


atexit.register(stop_exporter)  # also when a check fails (fabtest's fail exits)


def _die_with_us():
    """node-exporter gets SIGTERM when this test process dies, even by SIGKILL (ctest's
    timeout), so that it never outlives the test."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_exporter():
    global exporter
    for _ in range(5):  # a port found free may be taken before the exporter binds it
        port = free_port()
        exporter = subprocess.Popen(
            [node_exporter, "--web.listen-address=127.0.0.1:%d" % port,
             "--collector.disable-defaults", "--collector.textfile",
             "--collector.textfile.directory=" + TEXTFILES],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            preexec_fn=_die_with_us)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and exporter.poll() is None:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2).read()
                return port
            except OSError:
                time.sleep(0.1)
        if exporter.poll() is None:
            exporter.kill()
        exporter.wait()
    check(False, "node-exporter did not start: %s" % exporter.stderr.read()[-2000:])


def parse_labels(s):
    """'a="x",b="y\\"z"' -> {a: x, b: y"z}, unescaping as the text format says."""
    out, i = {}, 0
    while i < len(s):
        m = re.match(r'([a-zA-Z_][a-zA-Z0-9_]*)="', s[i:])
        check(m is not None, "label at %r" % s[i:i + 40])
        i += m.end()
        v = []
        while s[i] != '"':
            if s[i] == "\\":
                v.append({"\\": "\\", '"': '"', "n": "\n"}[s[i + 1]])
                i += 2
            else:
                v.append(s[i])
                i += 1
        out[m.group(1)] = "".join(v)
        i += 1
        if i < len(s) and s[i] == ",":
            i += 1
    return out


def scrape(port):
    """{(name, frozenset(labels)): value} of every sample node-exporter serves."""
    text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
    out = {}
    for line in text.decode("utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$", line)
        check(m is not None, "not a sample line: %r" % line)
        labels = frozenset(parse_labels(m.group(2) or "").items())
        key = (m.group(1), labels)
        check(key not in out, "a series twice: %r" % line)
        out[key] = float(m.group(3))
    return out


def series(samples, name, **labels):
    """The values of `name` whose labels include `labels`."""
    want = set(labels.items())
    return [v for (n, ls), v in samples.items() if n == name and want <= ls]


def expected_metric(column, unit):
    """The documented name of a column (README "Monitoring"), its scale and statistic."""
    for u, family, token, scale in (("us", "time_seconds", "_us", 1e-6),
                                    ("MB/s", "bandwidth_bytes_per_second", "MBps", 1e6),
                                    ("GB/s", "bandwidth_bytes_per_second", "GBps", 1e9),
                                    ("msg/s", "messages_per_second", "msgps", 1)):
        if unit == u:
            stat = column[:-len(token)].strip("_") or "total"
            return "fabricbench_" + family, scale, stat
    if unit == "Gb/s" or column == "bytes":
        return None, None, None
    suffix, token, scale = {"%": ("_ratio", "_pct", 0.01), "fraction": ("_ratio", "", 1),
                            "s": ("_seconds", "_s", 1)}.get(unit, ("", "", 1))
    stem = column[:-len(token)] if token and column.endswith(token) else column
    return "fabricbench_" + stem + suffix, scale, None


def unix(iso):
    return calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))


port = start_exporter()

# ---------------------------------------------------------------- a live run, against its file
prom = os.path.join(TEXTFILES, "fabricbench.prom")
p = mpirun(2, [exe, "run", "latency,bw,allreduce", "-m", "8,1K,64K", "--budget", "0.6", "-o",
               "p.h5", "--prom", prom])
check(p.returncode == 0, "--prom run: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
check(sorted(os.listdir(TEXTFILES)) == ["fabricbench.prom"],
      "the collector's directory holds the textfile alone: %s" % os.listdir(TEXTFILES))
s = scrape(port)
check(series(s, "node_textfile_scrape_error") == [0.0], "scrape error: %s" %
      series(s, "node_textfile_scrape_error"))
check(series(s, "node_textfile_mtime_seconds", file=prom), "node-exporter read %s" % prom)
run_labels = {"fabric": "any", "device": "", "kernels": "latency,bw,allreduce"}
with h5py.File("p.h5", "r") as f:
    run = f["runs/run_0000"]
    ra = run.attrs
    check(series(s, "fabricbench_exit_code", **run_labels) == [0.0] and
          series(s, "fabricbench_healthy", **run_labels) == [1.0], "exit code, healthy")
    check(series(s, "fabricbench_run_status", status="complete", **run_labels) == [1.0] and
          sum(series(s, "fabricbench_run_status", **run_labels)) == 1.0, "run status")
    check(series(s, "fabricbench_run_end_timestamp_seconds") == [unix(ra["end_time"])] and
          series(s, "fabricbench_run_start_timestamp_seconds") == [unix(ra["start_time"])],
          "run times: %s vs %s" % (series(s, "fabricbench_run_end_timestamp_seconds"),
                                   ra["end_time"]))
    check(series(s, "fabricbench_run_info", version=ra["tool_version"],
                 git_commit=ra["git_commit"], host=HOST) == [1.0], "run_info labels")
    check(series(s, "fabricbench_ranks") == [2.0] and series(s, "fabricbench_hosts") == [1.0],
          "ranks, hosts")
    checked = absent = 0
    for kname in sorted(run["kernels"]):
        k = run["kernels"][kname]
        t = k["table"]
        kernel = k.attrs["kernel"]
        pair = {"host_a": HOST, "host_b": HOST} if k.attrs["ranks"] == "0,1" else \
            {"host_a": "", "host_b": ""}
        for i, size in enumerate(t["bytes"][:]):
            for c in t.attrs["columns"].split(","):
                if t[c].dtype.kind in "OSU":  # text columns (type, redop): no series
                    continue
                name, scale, stat = expected_metric(c, t[c].attrs["units"])
                if name is None:
                    continue
                labels = dict(run_labels, kernel=kernel, bytes=str(size), **pair)
                if stat:
                    labels["statistic"] = stat
                got = series(s, name, **labels)
                v = t[c][i].item()
                if isinstance(v, float) and math.isnan(v):
                    check(got == [], "%s %d %s is NaN in the file: no series, got %s" %
                          (kernel, size, c, got))
                    absent += 1
                    continue
                check(got == [v * scale], "%s %d B %s: %s %s scraped %s, the file %r x %g" %
                      (kernel, size, c, name, labels, got, v, scale))
                checked += 1
    rows = sum(len(run["kernels"][k]["table/bytes"]) for k in run["kernels"])
fb = [k for k in s if k[0].startswith("fabricbench_")]
# run_info, 5 x run_status, healthy, exit_code, start and end, ranks, hosts (no line rate known)
check(len(fb) == checked + 12, "fabricbench series: %d, expected %d rows' values + 12 of the "
      "run" % (len(fb), checked))
print("ok node-exporter serves the textfile of a live run: %d values of %d rows equal to the "
      "HDF5 file (in base units), %d NaN values without a series, scrape error 0"
      % (checked, rows, absent))

# ---------------------------------------------------------------- a crafted textfile
odd = os.path.join(TEXTFILES, "odd.prom")
r = subprocess.run([test_prom, "--write", odd], capture_output=True, text=True, timeout=60)
check(r.returncode == 0, "test_prom --write: %s" % r.stderr)
s = scrape(port)
weird = "node\"1\\evil\nhost\\xFF"
check(series(s, "node_textfile_scrape_error") == [0.0], "the crafted file broke the scrape")
check(series(s, "fabricbench_time_seconds", kernels="latency", host_a=weird, statistic="p50",
             bytes="1024") == [math.inf] and
      series(s, "fabricbench_time_seconds", kernels="latency", host_b=weird, statistic="mean",
             bytes="1024") == [-math.inf], "+Inf and -Inf with the odd host name read back")
check(series(s, "fabricbench_run_info", kernels="latency", host=weird) == [1.0],
      "the odd host name in run_info")
os.unlink(odd)
print("ok a crafted textfile (quote, backslash, newline, non-UTF-8 byte in a host name; +Inf, "
      "-Inf) is accepted and reads back")

# ---------------------------------------------------------------- SIGTERM: interrupted
proc = subprocess.Popen(mpirun_cmd(2) +
                        [exe, "run", "latency", "-m", "1:64K", "-t", "0.2", "-o", "t.h5",
                         "--json", "t.jsonl", "--prom", prom], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True, env=mpi_env())
try:
    deadline = time.monotonic() + 60
    pids = []
    while time.monotonic() < deadline and len(pids) < 2 and proc.poll() is None:
        time.sleep(0.5)
        pids = [int(x) for x in subprocess.run(["pgrep", "-x", "-P", str(proc.pid),
                                                "fabricbench"], capture_output=True,
                                               text=True).stdout.split()]
    check(len(pids) == 2, "the ranks of the run: %s" % pids)
    # a row in (its JSON record written; however slow the machine), then the signal
    while time.monotonic() < deadline and proc.poll() is None and not (
            os.path.exists("t.jsonl") and '"record":"row"' in open("t.jsonl").read()):
        time.sleep(0.1)
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
finally:
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
check(proc.returncode == 4, "SIGTERM: exit %d\n%s" % (proc.returncode, err[-2000:]))
s = scrape(port)
labels = {"kernels": "latency"}
check(series(s, "fabricbench_run_status", status="interrupted", **labels) == [1.0] and
      series(s, "fabricbench_exit_code", **labels) == [4.0] and
      series(s, "fabricbench_healthy", **labels) == [0.0], "after SIGTERM: %s" %
      [(k, v) for k, v in s.items() if k[0] in ("fabricbench_exit_code", "fabricbench_healthy")])
with h5py.File("t.h5", "r") as f:
    n = len(f["runs/run_0000/kernels/00_latency/table/bytes"])
check(len(series(s, "fabricbench_iterations", kernel="latency")) == n and n > 0,
      "the interrupted run's %d rows" % n)
print("ok SIGTERM: the textfile says interrupted (exit code 4, not healthy) with its %d rows" % n)
stop_exporter()

# ---------------------------------------------------------------- --prom -, refusals
p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "100", "-o", "none", "--prom", "-", "-q"],
           env={"UCX_LOG_LEVEL": "info"})
check(p.returncode == 0, "--prom -: exit %d" % p.returncode)
lines = p.stdout.splitlines()
check(lines and all(l.startswith("# HELP fabricbench_") or l.startswith("# TYPE fabricbench_") or
                    re.match(r"fabricbench_[a-z_]+\{.*\} \S+$", l) for l in lines),
      "--prom -: stdout is the textfile alone:\n%s" % p.stdout[:2000])
check(any(l.startswith("fabricbench_exit_code{") and l.endswith(" 0") for l in lines),
      "--prom -: exit code 0")
for bad in ("x.txt", "prom", "dir/.prom"):
    p = mpirun(2, [exe, "run", "latency", "-m", "8", "-i", "10", "-o", "none", "--prom", bad])
    check(p.returncode == 2 and "reads only files named *.prom" in p.stderr,
          "--prom %s: exit %d\n%s" % (bad, p.returncode, p.stderr[-1000:]))
print("ok --prom - prints the textfile on stdout; --prom x.txt is refused (exit 2)")
