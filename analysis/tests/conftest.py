# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the analysis tests: result files written by the real fabricbench during the test
session (once, in a temporary directory), copies edited with h5py, and files of known values.

Two kinds of input, for two kinds of test:

- `results`: real runs (and copies with their metadata or structure edited). Their values are
  whatever this machine measured, as noisy as it is busy, so a test on them asserts only shapes,
  definitions and exit codes, never a verdict that depends on speed or noise.
- `known`: files of chosen values (known_values.py) in the shape of a real file. Every test of
  statistics, noise or verdicts (PASS/WARN/FAIL, better/worse, percent changes, summary
  numbers) reads these, so that its outcome is decided by the values it chose.

The fabricbench binary comes from --fabricbench PATH or the FABRICBENCH environment variable
(ctest sets it). Without it every test errors with a message saying so: nothing is skipped.
"""
import math
import os
import shutil
import signal
import subprocess
import sys
import time
import types

import h5py
import known_values
import numpy as np
import pytest

ANALYSIS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ANALYSIS)
from fabricbench_analysis.reading.loading import SCHEMA_VERSION  # noqa: E402
LAUNCHER = os.path.join(ANALYSIS, "fabricbench-analyze")

# Every launch as the other tests make it (tests/lib/fabtest.py: mpirun_cmd, mpi_env; an Open
# MPI session directory of its own for every mpirun, since two MPI jobs at once on one machine
# can race for the default one in /tmp). Short runs: this may be a 2-core machine doing other
# work.
sys.path.insert(0, os.path.join(ANALYSIS, "..", "tests", "lib"))
from fabtest import mpi_env, mpirun_cmd  # noqa: E402
MPIRUN = mpirun_cmd(2)
SIZES = "8,1K,64K,1M"
KERNELS = "latency,bw,allreduce"


def pytest_addoption(parser):
    parser.addoption("--fabricbench", default=os.environ.get("FABRICBENCH"),
                     help="the fabricbench binary that writes the result files "
                     "(default: $FABRICBENCH)")


def _mpi_env(extra=None):
    return mpi_env(extra)


@pytest.fixture(scope="session")
def fabricbench(request):
    path = request.config.getoption("--fabricbench")
    if not path:
        pytest.fail("no fabricbench binary: set FABRICBENCH=/path/to/build/fabricbench or pass "
                    "--fabricbench PATH (ctest -R analysis sets it)", pytrace=False)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail("FABRICBENCH=%s is not an executable file: build it first (cmake --build "
                    "build)" % path, pytrace=False)
    if shutil.which("mpirun") is None:
        pytest.fail("mpirun is not on PATH (apt-get install openmpi-bin)", pytrace=False)
    return os.path.abspath(path)


def _run(fb, args, env=None, timeout=180):
    cmd = MPIRUN + [fb, "run"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_mpi_env(env))
    return p


def _measure(fb, out, fabric_args, extra):
    """A run on the fabric `fabric_args` name (--fabric shm, --fabric tcp --device lo)."""
    base = [KERNELS, "-m", SIZES, "-o", out] + extra + fabric_args
    p = _run(fb, base)
    if p.returncode != 0:
        pytest.fail("fabricbench run %s failed (exit %d):\n%s\n%s" %
                    (" ".join(base), p.returncode, p.stdout[-3000:], p.stderr[-3000:]),
                    pytrace=False)


def _has_a_row(path):
    """Whether the result file holds a committed row (each commit replaces it atomically)."""
    if not os.path.exists(path):
        return False
    try:
        with h5py.File(path, "r") as f:
            return any(len(k["table/bytes"]) > 0 for _, k in _kernels(f) if "table" in k)
    except (OSError, KeyError):
        return False


def _rank_pids(fb, out):
    """The fabricbench rank processes writing `out` (found by the unique output path; mpirun,
    whose command line names it too, is left out: its argv[0] is not fabricbench)."""
    p = subprocess.run(["pgrep", "-f", out], capture_output=True, text=True)
    pids = []
    for pid in p.stdout.split():
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode()
        except OSError:
            continue
        if os.path.realpath(argv0) == os.path.realpath(fb):
            pids.append(int(pid))
    return pids


def _signalled_run(fb, out):
    """A latency run really stopped by a signal: SIGUSR1 to both ranks once the first row is
    committed; fabricbench stops after the current block, marks the run interrupted, skips the
    transport probe (ucx_transports 'not probed (the run stopped early)') and exits 4."""
    cmd = MPIRUN + [fb, "run", "latency", "-m", "8:4M", "-t", "0.3", "-o", out]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=_mpi_env())
    why = None
    try:
        deadline = time.monotonic() + 120
        while not _has_a_row(out) and why is None:
            if p.poll() is not None:
                why = "it ended (exit %d) before its first row" % p.returncode
            elif time.monotonic() > deadline:
                why = "no row within 120 s"
            time.sleep(0.1)
        ranks = _rank_pids(fb, out) if why is None else []
        if why is None and len(ranks) != 2:
            why = "found %d fabricbench ranks writing %s, not 2" % (len(ranks), out)
        for pid in ranks:
            os.kill(pid, signal.SIGUSR1)
        if why is not None and p.poll() is None:
            p.kill()
        stdout, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:  # mpirun only: our own child, which takes its ranks with it
            p.kill()
            p.communicate()
    if why is None and p.returncode != 4:
        why = "exit %d, not 4 (interrupted)" % p.returncode
    if why:
        pytest.fail("the run to be stopped by SIGUSR1 (%s): %s\n%s\n%s" %
                    (" ".join(cmd), why, stdout[-2000:], stderr[-2000:]), pytrace=False)


def _copy(src, dst):
    shutil.copyfile(src, dst)
    return dst


def _kernels(f):
    for run in f["runs"].values():
        for k in run["kernels"].values():
            yield run, k


def _interrupt(path):
    """Interrupted during allreduce: its last two sizes missing, the run marked as a signal
    leaves it (the rows present are complete)."""
    with h5py.File(path, "r+") as f:
        run = f["runs/run_0000"]
        run.attrs["status"] = "interrupted"
        run.attrs["stop_reason"] = "SIGINT"
        for name, k in run["kernels"].items():
            if k.attrs["kernel"] == "allreduce":
                for ds in k["table"].values():
                    ds.resize((2,))
                k.attrs["status"] = "interrupted"
                k.attrs["rows"] = np.int64(2)
    return path


@pytest.fixture(scope="session")
def results(fabricbench, tmp_path_factory):
    d = tmp_path_factory.mktemp("results")
    r = types.SimpleNamespace(dir=str(d))
    r.shm = str(d / "shm.h5")
    r.tcp = str(d / "tcp.h5")
    # shm.h5: the default time budget per size (0.25 s), --line-rate 100G; it is also the
    # template of the known-value files (their shape, not their values). tcp.h5 is short, with
    # samples. No test judges their speed: verdicts are tested on `known`.
    _measure(fabricbench, r.shm, ["--fabric", "shm"], ["-t", "0.25", "--line-rate", "100G"])
    _measure(fabricbench, r.tcp, ["--fabric", "tcp", "--device", "lo"],
             ["-t", "0.03", "--samples"])
    # msgrate and gradsync (a small model): the template of the known files' msgrate and
    # gradsync kernels.
    r.mg = str(d / "mg.h5")
    args = ["msgrate,gradsync", "-m", "8,1K", "--params", "1e6", "--bucket", "256K", "-t",
            "0.02", "-o", r.mg]
    p = _run(fabricbench, args)
    if p.returncode != 0:
        pytest.fail("fabricbench run %s failed (exit %d):\n%s" % (" ".join(args), p.returncode,
                                                                  p.stderr[-3000:]),
                    pytrace=False)

    # Two runs in one file: a copy of shm.h5 with a short latency run appended.
    r.multi = _copy(r.shm, str(d / "multi.h5"))
    p = _run(fabricbench, ["latency", "-m", "8,1K", "-t", "0.01", "-o", r.multi, "--append"])
    if p.returncode != 0:
        pytest.fail("fabricbench run --append failed (exit %d):\n%s" %
                    (p.returncode, p.stderr[-3000:]), pytrace=False)

    # A run really stopped by a signal (SIGUSR1 to its ranks after the first row): no
    # --fabric, so that its name comes from the transports, which it did not probe.
    r.signalled = str(d / "signalled.h5")
    _signalled_run(fabricbench, r.signalled)

    # Interrupted during allreduce (see _interrupt).
    r.interrupted = _interrupt(_copy(r.shm, str(d / "interrupted.h5")))

    # A file from a future fabricbench.
    r.newer = _copy(r.shm, str(d / "newer.h5"))
    with h5py.File(r.newer, "r+") as f:
        f.attrs["schema_version"] = np.int64(SCHEMA_VERSION + 1)

    # A file from before the fabrics work: no line_rate_pct, cpu_* columns, fabric attributes
    # (nor the nccl-tests columns count, type, redop, which came later still).
    r.old = _copy(r.shm, str(d / "old.h5"))
    gone = ("line_rate_pct", "cpu_rank_pct", "cpu_node_user_pct", "cpu_node_sys_pct",
            "cpu_node_softirq_pct", "count", "type", "redop")
    with h5py.File(r.old, "r+") as f:
        for run, k in _kernels(f):
            t = k["table"]
            for c in gone:
                del t[c]
            t.attrs["columns"] = ",".join(c for c in t.attrs["columns"].split(",")
                                          if c not in gone)
        for run in f["runs"].values():
            for a in list(run.attrs):
                if a.startswith("fabric") or a.startswith("line_rate") or a == "inventory_json":
                    del run.attrs[a]
            if "placement" in run:
                del run["placement"]

    # Two files with nothing in common: only latency in one, only allreduce in the other.
    r.only_latency = _copy(r.shm, str(d / "only_latency.h5"))
    r.only_allreduce = _copy(r.shm, str(d / "only_allreduce.h5"))
    for path, keep in ((r.only_latency, "latency"), (r.only_allreduce, "allreduce")):
        with h5py.File(path, "r+") as f:
            ks = f["runs/run_0000/kernels"]
            for name in list(ks):
                if ks[name].attrs["kernel"] != keep:
                    del ks[name]

    # Not results: random bytes, a result cut in half, an HDF5 file of something else.
    r.random = str(d / "random.h5")
    with open(r.random, "wb") as f:
        f.write(np.random.default_rng(7).bytes(65536))
    r.truncated = str(d / "truncated.h5")
    with open(r.shm, "rb") as src, open(r.truncated, "wb") as dst:
        data = src.read()
        dst.write(data[:len(data) // 2])
    # Valid HDF5 with damaged contents: the signature of the first global heap collection
    # (where variable-length strings such as the root's 'schema' attribute live) overwritten;
    # HDF5 opens the file and fails only when an attribute is read.
    r.damaged = str(d / "damaged.h5")
    with open(r.shm, "rb") as src:
        data = bytearray(src.read())
    at = data.find(b"GCOL")
    assert at >= 0, "no global heap collection (GCOL) in %s: the test needs another damage" % r.shm
    data[at:at + 4] = b"XXXX"
    with open(r.damaged, "wb") as dst:
        dst.write(data)
    r.other_hdf5 = str(d / "other.h5")
    with h5py.File(r.other_hdf5, "w") as f:
        f["x"] = np.arange(10)
    return r


@pytest.fixture(scope="session")
def known(results, tmp_path_factory):
    """Files of known values (known_values.py: the values, and the noise they give, worked by
    hand), shaped like the real shm.h5. Labelled 'shm (STEM)' where several are loaded."""
    d = tmp_path_factory.mktemp("known")
    k = types.SimpleNamespace(dir=str(d))
    run = known_values.run

    def make(name, *runs):
        return known_values.write_known(str(d / (name + ".h5")), [results.shm, results.mg],
                                        runs)

    # The baseline: every row's noise_mean_rel 1e-4 (stddev 1% of the mean, 10000 iterations).
    k.base = make("base")
    # 30% and 14% less bandwidth; the times, and so the latency checks and the noise, unchanged.
    k.slow = make("slow", run(bw_scale=0.7))
    k.mild = make("mild", run(bw_scale=0.86))
    # The 30% loss measured so noisily that it cannot be told from noise: 10 iterations per
    # size with a standard deviation of three times the mean (noise_mean_rel 3 / sqrt(10)).
    k.noisy = make("noisy", run(bw_scale=0.7, iterations=10, rel_stddev=3.0))
    # Three identical baseline runs in one file (their spread: 0).
    k.base3 = make("base3", run(), run(), run())
    # Two runs: the baseline's, and a latency run whose times are 1.2 x as long.
    k.multi = make("multi", run(), run(kernels=("latency",), time_scale=1.2))
    # No line rate known.
    k.no_line_rate = make("no_line_rate", run(line_rate_gbps=math.nan))
    # Latency with per-iteration samples that drift by 1% of t from one batch to the next.
    k.drift = make("drift", run(kernels=("latency",), drift=0.01))
    # Adaptive rows: block medians 0.9t, t, 1.1t (their spread: se 0.1 / sqrt 3); and a
    # latency run 1.5 x slower whose rows had 2 regimes over time, and the same without.
    k.blocks = make("blocks", run(kernels=("latency",), blocks=(0.9, 1.0, 1.1)))
    k.slow_regimes = make("slow_regimes", run(kernels=("latency",), time_scale=1.5,
                                              blocks=(1.0, 1.0, 1.5, 1.5), regimes=2))
    k.slow_plain = make("slow_plain", run(kernels=("latency",), time_scale=1.5))
    k.interrupted = _interrupt(make("interrupted"))
    # Repeats (one file, three runs of one command and fabric; grouping.py). The issue's
    # bimodal shared-memory latency: 8 B p50 3.075 us in one run, 0.651 us in two.
    k.bimodal3 = make("bimodal3", run(time_scale=3.075), run(time_scale=0.651),
                      run(time_scale=0.651))
    # Two fabrics clearly apart: shm's runs at 1, 1.02, 0.98 x the times and rates (spread
    # 2%), tcp's 1.5 x the times and half the rates, with the same 2% spread.
    k.fabric_a = make("fabric_a", run(), run(time_scale=1.02, bw_scale=1.02),
                      run(time_scale=0.98, bw_scale=0.98))
    k.fabric_b = make("fabric_b", *[run(fabric="tcp", time_scale=1.5 * f, bw_scale=0.5 * f)
                                    for f in (1.0, 1.02, 0.98)])
    # Before and after on one fabric, same command: each file 3 runs (spread 2%), after's
    # times 1.5 x before's: an A/B comparison of files holding their own repeats.
    k.after = make("after", *[run(time_scale=1.5 * f, bw_scale=0.5 * f)
                              for f in (1.0, 1.02, 0.98)])
    # The same tcp runs, one of which had 2 regimes over time; and one tcp run alone.
    k.regimes_b = make("regimes_b", run(fabric="tcp", time_scale=1.5, bw_scale=0.5,
                                        blocks=(1.0, 1.0, 1.5, 1.5), regimes=2),
                       *[run(fabric="tcp", time_scale=1.5 * f, bw_scale=0.5 * f)
                         for f in (1.02, 0.98)])
    k.tcp1 = make("tcp1", run(fabric="tcp", time_scale=1.5, bw_scale=0.5))
    # A fabric whose runs spread widely (0.7, 1, 1.3 x: 30%) and one 1.2 x slower that does
    # not move at all: beyond each run's own noise, within the spread.
    k.wide = make("wide", *[run(fabric="roce", time_scale=f) for f in (1.0, 1.3, 0.7)])
    k.steady = make("steady", *[run(fabric="ib", time_scale=1.2) for _ in range(3)])
    # msgrate beside bw; gradsync with one setup, over four bucket sizes (at 1 and 4 buckets
    # in flight), and over four in-flight counts.
    k.msgrate = make("msgrate", run(kernels=("bw", "msgrate")))
    k.grad1 = make("grad1", run(kernels=("gradsync",)))
    k.grad_buckets = make("grad_buckets", *[run(kernels=("gradsync",), gradsync=(b << 20, n))
                                            for n in (1, 4) for b in (1, 4, 16, 64)])
    k.grad_inflight = make("grad_inflight", *[run(kernels=("gradsync",),
                                                  gradsync=(25 << 20, n))
                                              for n in (1, 2, 4, 8)])
    return k


def run_launcher(*args, cwd=None):
    """fabricbench-analyze through its launcher, in a process of its own, as a user runs it."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("MPLBACKEND", None)
    return subprocess.run([sys.executable, LAUNCHER] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def run_cli(*args, cwd=None):
    """fabricbench-analyze's command line in this process (cli.main, which the launcher calls:
    a second Python starting numpy, h5py and matplotlib cost about a second a call, 150 s of the
    suite), its exit code, stdout and stderr caught as the launcher's would be. An exception
    that escapes main (it never should) becomes stderr's Traceback, which the assertions
    refuse. FABTEST_ANALYZE_SUBPROCESS=1 runs every call through the launcher instead;
    run_launcher always does (test_end_to_end, the --help, --version and usage checks)."""
    if os.environ.get("FABTEST_ANALYZE_SUBPROCESS") == "1":
        return run_launcher(*args, cwd=cwd)
    import contextlib
    import io
    import traceback

    from fabricbench_analysis import cli

    out, err = io.BytesIO(), io.BytesIO()
    tout = io.TextIOWrapper(out, encoding="utf-8", errors="backslashreplace", write_through=True)
    terr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(str(cwd))
        with contextlib.redirect_stdout(tout), contextlib.redirect_stderr(terr):
            try:
                code = cli.main([str(a) for a in args])
            except SystemExit as e:  # argparse: usage errors (2), --help and --version (0)
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # noqa: BLE001 -- shown as a launcher would show it
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["fabricbench-analyze"] + [str(a) for a in args],
                                       code if code is not None else 0,
                                       out.getvalue().decode("utf-8", "backslashreplace"),
                                       err.getvalue().decode("utf-8", "backslashreplace"))


QUALITY_HEADLINE = ("DISTURBED: ", "BELOW THE FLOOR: ", "a few rows not comparable: ",
                    "rows marked [disturbed] or [invalid]")


def without_quality(text):
    """summary's text without its first lines on the row quality (quality.headline), which a
    real run on a busy machine has: the table's lines as on a quiet machine."""
    lines = text.splitlines()
    while lines and lines[0].startswith(QUALITY_HEADLINE):
        lines.pop(0)
    return lines


def assert_ok(p):
    assert p.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout,
                                                                   p.stderr)
    assert "Traceback" not in p.stderr, p.stderr


def assert_error(p, code, *phrases):
    """Exit code `code`, a one-line error naming what was wrong, a hint, no traceback."""
    assert p.returncode == code, "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s" % (
        p.returncode, code, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    assert "fabricbench-analyze: error: " in p.stderr or code == 2, p.stderr
    for ph in phrases:
        assert ph in p.stderr, "%r not in stderr:\n%s" % (ph, p.stderr)


@pytest.fixture(scope="session")
def pairs(fabricbench, tmp_path_factory):
    """Pairs kernels: one real run (pairs_latency,pairs_bw on 4 ranks, --pairs-per rank; its
    verdict depends on this machine's noise: exit 0 or 1), and files of known matrices shaped
    like it (known_matrix.py): healthy, a bad node, a bad pair, a killed run, retests."""
    import known_matrix as km

    d = tmp_path_factory.mktemp("pairs")
    p = types.SimpleNamespace(dir=str(d))
    p.real = str(d / "real.h5")
    cmd = mpirun_cmd(4) + [fabricbench, "run", "pairs_latency,pairs_bw", "--pairs-per", "rank",
                           "-i", "50", "-o", p.real]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_mpi_env())
    if r.returncode not in (0, 1):
        pytest.fail("%s failed (exit %d):\n%s\n%s" % (" ".join(cmd), r.returncode,
                                                     r.stdout[-3000:], r.stderr[-3000:]),
                    pytrace=False)
    p.real_exit = r.returncode

    def make(name, spec):
        return km.write_pairs(str(d / (name + ".h5")), p.real, spec)

    p.healthy = make("healthy", km.spec())
    p.node = make("node", km.spec("node"))
    p.pair = make("pair", km.spec("pair"))
    p.killed = make("killed", km.spec(killed=True))
    p.retest = make("retest", km.spec("pair", retest=True))
    # For the check by names: 30% less bandwidth on one pair only; the same fabric with its
    # members listed in another order; one member gone and a new one.
    p.pair_slower = make("pair_slower", km.spec(pair_scale={("sw1-n02", "sw2-n07"): 0.7}))
    p.reordered = make("reordered", km.spec(nodes=list(reversed(km.NODES)),
                                            pair_scale={("sw1-n02", "sw2-n07"): 0.7}))
    p.swapped = make("swapped", km.spec(nodes=km.NODES[:-1] + ["sw2-n09"]))
    p.km = km
    return p
