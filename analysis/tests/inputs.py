# SPDX-License-Identifier: BSD-3-Clause
"""The input files of the analysis tests, made once: the real runs of fabricbench (every
`mpirun` of these tests is here), copies of them edited with h5py, and the files of known
values shaped like them. Not a pytest module (no test_ prefix).

Two ways to use it:
- ctest: the test `analysis.inputs` (a FIXTURES_SETUP test, tests/CMakeLists.txt) runs
  `make_inputs.py DIR`, which calls make_all(FABRICBENCH, DIR) and writes DIR/inputs.json
  last; the `analysis.pytest.*` tests find DIR in FABTEST_ANALYSIS_INPUTS and read the files
  through load() (conftest.py), so that parts that run side by side make nothing twice and
  launch no MPI job;
- by hand (`pytest analysis/tests`, without FABTEST_ANALYSIS_INPUTS): conftest.py's fixtures
  call the makers below themselves, in the session's temporary directory, as they need them.

Every maker takes the fabricbench binary (or the files it derives from) and a directory of its
own, and returns a types.SimpleNamespace of paths (and a few values) whose attribute names the
tests use. A failure raises InputError with what failed and the tool's output."""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
import types

import h5py
import known_matrix
import known_values
import numpy as np

ANALYSIS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ANALYSIS)
from fabricbench_analysis.reading.loading import SCHEMA_VERSION  # noqa: E402

# Every launch as the other tests make it (tests/lib/fabtest.py: mpirun_cmd, mpi_env; an Open
# MPI session directory of its own for every mpirun, since two MPI jobs at once on one machine
# can race for the default one in /tmp). Short runs: this may be a 2-core machine doing other
# work.
sys.path.insert(0, os.path.join(ANALYSIS, "..", "tests", "lib"))
from fabtest import mpi_env, mpirun_cmd  # noqa: E402
MPIRUN = mpirun_cmd(2)
SIZES = "8,1K,64K,1M"
KERNELS = "latency,bw,allreduce"
# The sets of inputs, in the order make_all makes them (known derives from results).
SETS = ("results", "known", "pairs", "live", "repeats", "congestion")
STAMP = "inputs.json"  # written last by make_all: what was made, where


class InputError(Exception):
    """An input could not be made (a run failed): the message says which and why."""


def _run(fb, args, env=None, timeout=180):
    cmd = MPIRUN + [fb, "run"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=mpi_env(env))


def _run_ok(fb, args, codes=(0,)):
    p = _run(fb, args)
    if p.returncode not in codes:
        raise InputError("fabricbench run %s failed (exit %d):\n%s\n%s" %
                         (" ".join(args), p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p


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
                         env=mpi_env())
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
        raise InputError("the run to be stopped by SIGUSR1 (%s): %s\n%s\n%s" %
                         (" ".join(cmd), why, stdout[-2000:], stderr[-2000:]))


def _copy(src, dst):
    shutil.copyfile(src, dst)
    return dst


def _kernels(f):
    for run in f["runs"].values():
        for k in run["kernels"].values():
            yield run, k


def interrupt(path):
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


def make_results(fb, d):
    """Real runs (and copies with their metadata or structure edited). Their values are
    whatever this machine measured: the tests on them assert shapes, definitions and exit
    codes only."""
    os.makedirs(d, exist_ok=True)
    r = types.SimpleNamespace(dir=d)
    r.shm = os.path.join(d, "shm.h5")
    r.tcp = os.path.join(d, "tcp.h5")
    # shm.h5: the default time budget per size (0.25 s), --line-rate 100G; it is also the
    # template of the known-value files (their shape, not their values). tcp.h5 is short, with
    # samples. No test judges their speed: verdicts are tested on `known`.
    for out, fabric, extra in ((r.shm, ["--fabric", "shm"], ["-t", "0.25", "--line-rate",
                                                            "100G"]),
                               (r.tcp, ["--fabric", "tcp", "--device", "lo"],
                                ["-t", "0.03", "--samples"])):
        _run_ok(fb, [KERNELS, "-m", SIZES, "-o", out] + extra + fabric)
    # msgrate and gradsync (a small model): the template of the known files' msgrate and
    # gradsync kernels.
    r.mg = os.path.join(d, "mg.h5")
    _run_ok(fb, ["msgrate,gradsync", "-m", "8,1K", "--params", "1e6", "--bucket", "256K", "-t",
                 "0.02", "-o", r.mg])

    # Two runs in one file: a copy of shm.h5 with a short latency run appended.
    r.multi = _copy(r.shm, os.path.join(d, "multi.h5"))
    _run_ok(fb, ["latency", "-m", "8,1K", "-t", "0.01", "-o", r.multi, "--append"])

    # A run really stopped by a signal (SIGUSR1 to its ranks after the first row): no
    # --fabric, so that its name comes from the transports, which it did not probe.
    r.signalled = os.path.join(d, "signalled.h5")
    _signalled_run(fb, r.signalled)

    # Interrupted during allreduce (see interrupt).
    r.interrupted = interrupt(_copy(r.shm, os.path.join(d, "interrupted.h5")))

    # A file from a future fabricbench.
    r.newer = _copy(r.shm, os.path.join(d, "newer.h5"))
    with h5py.File(r.newer, "r+") as f:
        f.attrs["schema_version"] = np.int64(SCHEMA_VERSION + 1)

    # A file from before the fabrics work: no line_rate_pct, cpu_* columns, fabric attributes
    # (nor the nccl-tests columns count, type, redop, which came later still).
    r.old = _copy(r.shm, os.path.join(d, "old.h5"))
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
    r.only_latency = _copy(r.shm, os.path.join(d, "only_latency.h5"))
    r.only_allreduce = _copy(r.shm, os.path.join(d, "only_allreduce.h5"))
    for path, keep in ((r.only_latency, "latency"), (r.only_allreduce, "allreduce")):
        with h5py.File(path, "r+") as f:
            ks = f["runs/run_0000/kernels"]
            for name in list(ks):
                if ks[name].attrs["kernel"] != keep:
                    del ks[name]

    # Not results: random bytes, a result cut in half, an HDF5 file of something else.
    r.random = os.path.join(d, "random.h5")
    with open(r.random, "wb") as f:
        f.write(np.random.default_rng(7).bytes(65536))
    r.truncated = os.path.join(d, "truncated.h5")
    with open(r.shm, "rb") as src, open(r.truncated, "wb") as dst:
        data = src.read()
        dst.write(data[:len(data) // 2])
    # Valid HDF5 with damaged contents: the signature of the first global heap collection
    # (where variable-length strings such as the root's 'schema' attribute live) overwritten;
    # HDF5 opens the file and fails only when an attribute is read.
    r.damaged = os.path.join(d, "damaged.h5")
    with open(r.shm, "rb") as src:
        data = bytearray(src.read())
    at = data.find(b"GCOL")
    if at < 0:
        raise InputError("no global heap collection (GCOL) in %s: the test needs another "
                         "damage" % r.shm)
    data[at:at + 4] = b"XXXX"
    with open(r.damaged, "wb") as dst:
        dst.write(data)
    r.other_hdf5 = os.path.join(d, "other.h5")
    with h5py.File(r.other_hdf5, "w") as f:
        f["x"] = np.arange(10)
    return r


def make_known(results, d):
    """Files of known values (known_values.py: the values, and the noise they give, worked by
    hand), shaped like the real shm.h5. Labelled 'shm (STEM)' where several are loaded."""
    os.makedirs(d, exist_ok=True)
    k = types.SimpleNamespace(dir=d)
    run = known_values.run

    def make(name, *runs):
        return known_values.write_known(os.path.join(d, name + ".h5"), [results.shm, results.mg],
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
    k.interrupted = interrupt(make("interrupted"))
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


def make_pairs(fb, d):
    """Pairs kernels: one real run (pairs_latency,pairs_bw on 4 ranks, --pairs-per rank; its
    verdict depends on this machine's noise: exit 0 or 1), and files of known matrices shaped
    like it (known_matrix.py): healthy, a bad node, a bad pair, a killed run, retests."""
    km = known_matrix
    os.makedirs(d, exist_ok=True)
    p = types.SimpleNamespace(dir=d)
    p.real = os.path.join(d, "real.h5")
    cmd = mpirun_cmd(4) + [fb, "run", "pairs_latency,pairs_bw", "--pairs-per", "rank",
                           "-i", "50", "-o", p.real]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=mpi_env())
    if r.returncode not in (0, 1):
        raise InputError("%s failed (exit %d):\n%s\n%s" % (" ".join(cmd), r.returncode,
                                                          r.stdout[-3000:], r.stderr[-3000:]))
    p.real_exit = r.returncode

    def make(name, spec):
        return km.write_pairs(os.path.join(d, name + ".h5"), p.real, spec)

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
    return p


def make_live(fb, d):
    """One real run written three ways (-o, --json, --json-doc), with --repeat 2
    (test_json_input.py: the reader and the writer agree on the format)."""
    os.makedirs(d, exist_ok=True)
    live = types.SimpleNamespace(h5=os.path.join(d, "r.h5"), jsonl=os.path.join(d, "r.jsonl"),
                                 doc=os.path.join(d, "r.json"))
    _run_ok(fb, ["latency,bw,allreduce", "-m", "8,1K,64K", "--budget", "0.6", "--repeat", "2",
                 "-o", live.h5, "--json", live.jsonl, "--json-doc", live.doc, "-q"])
    return live


def make_repeats(fb, d):
    """`fabricbench run latency -m 8,1K --repeat 3 -o F`, and one more of the same command
    into G with other output options (--json, --samples, -q): one group of 4 runs for compare
    and summary (test_summary_compare.py)."""
    os.makedirs(d, exist_ok=True)
    rep = types.SimpleNamespace(f=os.path.join(d, "F.h5"), g=os.path.join(d, "G.h5"))
    for args in (["latency", "-m", "8,1K", "--repeat", "3", "-o", rep.f],
                 ["latency", "-m", "8,1K", "-o", rep.g, "--json", os.path.join(d, "g.jsonl"),
                  "--samples", "-q"]):
        _run_ok(fb, args)
    return rep


def make_congestion(fb, d):
    """The congestion kernels on 4 ranks of this machine (split by rank: 2 canaries, 2
    congestors; so every row carries the few-nodes and shared-nodes warnings), incast and none:
    the rows test_congestion.py plots and reports (their values are this machine's; the tests
    assert shapes, labels and the stored values as the page shows them). About 2 s."""
    os.makedirs(d, exist_ok=True)
    c = types.SimpleNamespace(h5=os.path.join(d, "cong.h5"))
    cmd = mpirun_cmd(4) + [fb, "run", "cong_lat,cong_bw,cong_allreduce", "--congestor",
                           "incast,none", "-i", "10", "-x", "1", "--canary-ops", "10", "-q",
                           "-o", c.h5]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=mpi_env())
    if p.returncode != 0:
        raise InputError("fabricbench run congestion failed (exit %d):\n%s\n%s" %
                         (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return c


def make(name, fb, d, made):
    """Make the set `name` in d/name; `made`: the sets made already (known needs results)."""
    where = os.path.join(d, name)
    if name == "known":
        return make_known(made["results"], where)
    return {"results": make_results, "pairs": make_pairs, "live": make_live,
            "repeats": make_repeats, "congestion": make_congestion}[name](fb, where)


def make_all(fb, d):
    """Every set into d, then d/inputs.json (what load reads). Returns seconds per set."""
    made, spent = {}, {}
    for name in SETS:
        t = time.monotonic()
        made[name] = make(name, fb, d, made)
        spent[name] = time.monotonic() - t
    with open(os.path.join(d, STAMP + ".tmp"), "w") as f:
        json.dump({"fabricbench": fb, "sets": {k: vars(v) for k, v in made.items()}}, f,
                  indent=1)
    os.replace(os.path.join(d, STAMP + ".tmp"), os.path.join(d, STAMP))
    return spent


def load(d, name):
    """The set `name` make_all wrote into d, or InputError saying how to make it."""
    try:
        with open(os.path.join(d, STAMP)) as f:
            sets = json.load(f)["sets"]
    except (OSError, ValueError, KeyError) as e:
        raise InputError("FABTEST_ANALYSIS_INPUTS=%s holds no complete set of inputs (%s): "
                         "run the ctest analysis.inputs (ctest -R analysis.pytest runs it "
                         "first), or unset FABTEST_ANALYSIS_INPUTS to make them in the "
                         "session" % (d, e))
    ns = types.SimpleNamespace(**sets[name])
    missing = [v for v in vars(ns).values() if isinstance(v, str) and not os.path.exists(v)]
    if missing:
        raise InputError("FABTEST_ANALYSIS_INPUTS=%s: %s missing: run analysis.inputs again"
                         % (d, ", ".join(missing[:3])))
    return ns
