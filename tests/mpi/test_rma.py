# SPDX-License-Identifier: BSD-3-Clause
"""The one-sided kernels (put_lat ... cas_lat, src/rma/): every kernel under every --rma-sync
and --win with --validate on 2 ranks and some on 4, their rows and semantics read back from
the HDF5 file with h5py, the refusals, a validation failure reaching the exit code, and a
window that cannot be made.

usage: test_rma.py FABRICBENCH"""
import json
import os
import re
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, expect, h5_kernels, mpirun  # noqa: E402

ANALYZE = [sys.executable, "-m", "fabricbench_analysis"]
AENV = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                "..", "analysis"))
enter_scratch()
exe = sys.argv[1]

PASSIVE = ("lock", "flush", "flush_local", "lock_all")
FETCHING = ("get_lat", "get_bw", "get_acc_lat", "fop_lat", "cas_lat")
BW = ("put_bw", "get_bw", "put_bibw")
SIZED = ("put_lat", "get_lat", "put_bw", "get_bw", "acc_lat", "get_acc_lat")


def check_run(path, names, sync, win, sizes, np_=2, described=True, pattern="pairs"):
    """Rows present and validated, semantics and description as the mode says."""
    ks = h5_kernels(path)
    check(sorted(ks) == sorted(names), "%s: kernels %s, not %s" % (path, sorted(ks), names))
    for name, (attrs, t) in ks.items():
        where = "%s --rma-sync %s --win %s (np %d)" % (name, sync, win, np_)
        eff = sync if sync != "auto" else ("pscw" if name == "put_bibw" else "flush")
        expect(list(t["bytes"]) == list(sizes), "%s: sizes %s" % (where, list(t["bytes"])))
        expect(all(e == 0 for e in t["validation_errors"]), "%s: validation errors %s"
               % (where, list(t["validation_errors"])))
        remote = 0.0 if eff == "flush_local" and name not in FETCHING else 1.0
        pingpong = 1.0 if eff in ("pscw", "fence") and name not in BW and pattern == "pairs" \
            else 0.0  # one-to-all and all-to-all run one way
        expect(all(v == remote for v in t["includes_remote_completion"]),
               "%s: includes_remote_completion %s, want %s"
               % (where, list(t["includes_remote_completion"]), remote))
        expect(all(v == 0.0 for v in t["halved_round_trip"]), "%s: halved_round_trip %s"
               % (where, list(t["halved_round_trip"])))
        expect(all(v == pingpong for v in t["ping_pong"]), "%s: ping_pong %s, want %s"
               % (where, list(t["ping_pong"]), pingpong))
        expect(all(v > 0 for v in t["p50_us"]), "%s: p50_us %s" % (where, list(t["p50_us"])))
        if not described:  # the description is rank 0's, which is not in the pair
            continue
        detail = attrs.get("detail", "")
        for word in ("-w %s -s %s" % (win, eff), "window %s" % win, "osc "):
            expect(word in detail, "%s: detail lacks '%s': %s" % (where, word, detail))
        expect("osc unknown" not in detail, "%s: osc component not found: %s" % (where, detail))
        expect(("includes remote completion" if remote else "excludes remote completion")
               in detail, "%s: detail's semantics: %s" % (where, detail))


def run(np_, names, sync, win, sizes, extra=(), path="r.h5", described=True):
    args = [exe, "run", ",".join(names), "-m", ",".join(str(s) for s in sizes), "-i", "20",
            "-w", "4", "--validate", "--rma-sync", sync, "--win", win, "-o", path,
            "--force"] + list(extra)
    p = mpirun(np_, args)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    pattern = extra[list(extra).index("--rma-pattern") + 1] if "--rma-pattern" in extra \
        else "pairs"
    check_run(path, names, sync, win, sizes, np_, described, pattern)
    return p


# Every synchronisation, the windows in turn; the atomics at their one size, 4 bytes.
WINS = ("allocate", "create", "dynamic")
for i, sync in enumerate(("auto",) + PASSIVE + ("pscw", "fence")):
    win = WINS[i % 3]
    run(2, list(SIZED), sync, win, [4, 4096])
    atomics = ["fop_lat", "cas_lat"] + ([] if sync in PASSIVE else ["put_bibw"])
    run(2, atomics, sync, WINS[(i + 1) % 3], [4])

# 4 ranks: the pair measured, the others idle; a pair other than 0,1 (rank 0 idle: the kernels'
# description, made on rank 0 after its set-up, is then empty; the rows carry the semantics).
run(4, ["put_lat", "put_bw", "get_acc_lat"], "flush", "create", [4, 1024])
p = run(4, ["put_lat", "get_bw", "cas_lat"], "auto", "allocate", [4], ["--pair", "2,3"],
        described=False)
expect("2 (" in p.stdout and "3 (" in p.stdout, "the pair 2,3 is not named:\n" + p.stdout)

# The table: the header names the osc component and the OSU program.
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "10"])
check(p.returncode == 0, "put_lat: exit %d\n%s" % (p.returncode, p.stderr))
expect("osu_put_latency -w allocate -s flush" in p.stdout and "osc " in p.stdout,
       "header:\n" + p.stdout)

# Refusals, before anything is measured (exit 2, the reason and what to do).
for args, words in (
        (["put_bibw", "--rma-sync", "lock"], ("refused", "both ranks", "pscw")),
        (["put_bibw", "--rma-sync", "flush"], ("refused", "fence")),
        (["fop_lat", "-m", "8"], ("4-byte", "-m 4")),
        (["cas_lat", "-m", "4,8"], ("4-byte",)),
        (["acc_lat", "-m", "6"], ("multiple of 4",))):
    p = mpirun(2, [exe, "run"] + args + ["-i", "10"])
    expect(p.returncode == 2, "%s: exit %d, not 2\n%s" % (args, p.returncode, p.stderr))
    for w in words:
        expect(w in p.stderr, "%s: message lacks '%s':\n%s" % (args, w, p.stderr))

# A validation failure reaches the table and the exit code (every check finds one bad byte).
p = mpirun(2, [exe, "run", "put_lat,fop_lat", "-m", "4", "-i", "10", "--validate"],
           env={"FABRICBENCH_TEST_CORRUPT": "1"})
expect(p.returncode != 0, "corrupted validation passed: exit 0\n" + p.stdout)
expect("did not match" in p.stderr, "no validation error:\n" + p.stderr)

# A window the osc component cannot make: the component named, what to try, exit 3.
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "10", "--win", "dynamic"],
           mpirun_args=["--mca", "osc", "sm"])
expect(p.returncode == 3, "osc sm, dynamic window: exit %d, not 3\n%s" % (p.returncode, p.stderr))
for w in ("MPI_Win_create_dynamic failed", "osc component 'sm'", "--mca osc ucx",
          "--mca osc rdma", "pt2pt", "[rank "):
    expect(w in p.stderr, "window failure message lacks '%s':\n%s" % (w, p.stderr))

# The family: `run rma` runs the nine kernels in registry order; every row names the osc
# component (the component column, as the detail does), its two-sided reference and floor.
RMA = ["put_lat", "get_lat", "put_bw", "get_bw", "put_bibw", "acc_lat", "get_acc_lat",
       "fop_lat", "cas_lat"]
p = mpirun(2, [exe, "run", "rma", "-m", "4", "-i", "20", "-w", "4", "--validate", "-o",
               "fam.h5", "--force"])
check(p.returncode == 0, "run rma: exit %d\n%s" % (p.returncode, p.stderr))
with h5py.File("fam.h5", "r") as f:
    groups = sorted(f["runs/run_0000/kernels"].values(), key=lambda g: g.name)
    order = [str(g.attrs["kernel"]) for g in groups]
    check(order == RMA, "run rma ran %s, not %s" % (order, RMA))
    for g in groups:
        name, t = str(g.attrs["kernel"]), g["table"]
        comp = [c.decode() if isinstance(c, bytes) else str(c) for c in t["component"][()]]
        detail = str(g.attrs["detail"])
        expect(comp and all(c and c != "unknown" and "osc %s;" % c in detail for c in comp),
               "%s: component %s, detail %s" % (name, comp, detail))
        ref, floor = t["twosided_lat_us"][()], t["floor_us"][()]
        expect(all(r > 0 and 0 < fl < r for r, fl in zip(ref, floor)),
               "%s: twosided_lat_us %s floor_us %s" % (name, list(ref), list(floor)))
        expect(all(v == 0 for v in t["implausible"][()]), "%s: a correct row marked implausible "
               "%s (floor %s, p50 %s)" % (name, list(t["implausible"][()]), list(floor),
                                          list(t["p50_us"][()])))
        if name in ("put_bw", "get_bw"):
            expect(all(v > 0 for v in t["twosided_iter_us"][()]) and
                   all(v > 0 for v in t["twosided_pct"][()]),
                   "%s: two-sided reference %s, pct %s" % (name, list(t["twosided_iter_us"][()]),
                                                           list(t["twosided_pct"][()])))
p = mpirun(2, [exe, "run", "rma,put_lat", "-m", "4", "-i", "10"])
expect(p.returncode == 2 and "names put_lat twice" in p.stderr and "family" in p.stderr,
       "rma,put_lat: exit %d\n%s" % (p.returncode, p.stderr))
p = mpirun(2, [exe, "run", "rmaa", "-m", "4", "-i", "10"])
expect(p.returncode == 2 and "families: rma" in p.stderr, "unknown: %s" % p.stderr)


# Implausible rows. A component that neither moves data nor waits (the NOOP hook): validation
# finds the data missing, so every row is marked (column implausible, quality invalid, reason
# implausible), the table shows IMPLAUS and a note, and the exit code says a check failed.
def rows_of(path):
    out = {}
    for name, (attrs, t) in h5_kernels(path).items():
        q = [x.decode() if isinstance(x, bytes) else str(x) for x in t["quality"]]
        why = [x.decode() if isinstance(x, bytes) else str(x) for x in t["quality_reason"]]
        out[name] = (list(t["implausible"]), q, why, t)
    return out


noop = {"FABRICBENCH_TEST_RMA_NOOP": "1"}
p = mpirun(2, [exe, "run", "put_lat,get_lat", "-m", "8,64", "-i", "20", "--validate", "-o",
               "noop.h5", "--force"], env=noop)
expect(p.returncode == 1, "no data moved, validated: exit %d, not 1\n%s" % (p.returncode,
                                                                           p.stderr))
for name, (impl, q, why, t) in rows_of("noop.h5").items():
    expect(impl == [1.0, 1.0] and q == ["invalid"] * 2 and all("implausible" in w for w in why),
           "%s, no data moved: implausible %s quality %s %s" % (name, impl, q, why))
expect("IMPLAUS" in p.stdout and "# IMPLAUSIBLE (IMPLAUS): 8, 64 (2 of 2 rows)" in p.stdout,
       "the table does not show the implausible rows:\n" + p.stdout)
expect("implausible" in p.stderr and "floor_us" in p.stderr, "no warning:\n" + p.stderr)

# Without --validate the time alone gives it away: a flush that does not wait is below the floor
# across nodes (the REMOTE hook judges the pair so: one host cannot have two nodes), and
# `fabricbench-analyze check`-style readers see quality invalid. A flush_local put (no remote
# completion) is not judged by its time.
# Two-sided over TCP (pml ob1, btl tcp; osc pt2pt for the window): its half round trip is
# microseconds, so the floor is far above an empty iteration however fast the machine is (over
# shared memory the two are tens of nanoseconds apart and a machine's speed decides).
tcp_ref = ["--mca", "osc", "pt2pt", "--mca", "pml", "ob1", "--mca", "btl", "tcp,self"]
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "200", "-o", "fast.h5", "--force"],
           env=dict(noop, FABRICBENCH_TEST_RMA_REMOTE="1"), mpirun_args=tcp_ref)
expect(p.returncode == 0, "no data moved, not validated: exit %d\n%s" % (p.returncode, p.stderr))
impl, q, why, t = rows_of("fast.h5")["put_lat"]
with h5py.File("fast.h5", "r") as f:  # a file made with a test hook says so
    env = dict(f["runs/run_0000/env"].attrs)
expect(env.get("FABRICBENCH_TEST_RMA_REMOTE") in (b"1", "1") and
       "FABRICBENCH_TEST_RMA_NOOP" in env, "the test hooks not recorded: %s" % sorted(env))
expect(impl == [1.0] and q == ["invalid"] and "implausible" in why[0].split(";"),
       "a put that completes nowhere, not marked: implausible %s quality %s %s (floor %s us, "
       "iteration %s us)" % (impl, q, why, list(t["floor_us"]), list(t["loop_us"])))
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "200", "--rma-sync", "flush_local", "-o",
               "local.h5", "--force"], env=dict(noop, FABRICBENCH_TEST_RMA_REMOTE="1"),
           mpirun_args=tcp_ref)
impl, q, why, t = rows_of("local.h5")["put_lat"]
expect(p.returncode == 0 and impl == [0.0], "flush_local judged by its time: %s" % impl)
# The real thing, judged across nodes too: osc pt2pt makes one-sided operations of two-sided
# messages, so its flush holds a two-sided round trip and is never below the floor. (osc ucx
# and osc rdma on one host put through shared memory in a few % of the two-sided half round
# trip: legitimate on one node, which the REMOTE hook denies.)
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "200", "-o", "real.h5", "--force"],
           env={"FABRICBENCH_TEST_RMA_REMOTE": "1"},
           mpirun_args=["--mca", "osc", "pt2pt", "--mca", "pml", "ob1"])
impl, q, why, t = rows_of("real.h5")["put_lat"]
expect(p.returncode == 0 and impl == [0.0], "a correct put_lat marked implausible: floor %s, "
       "iteration %s" % (list(t["floor_us"]), list(t["loop_us"])))

# The reference is taken again while the machine does not run one rank of the pair: the
# REF_SLEEP hook makes rank 1 sleep 3 ms before each answer in the first N tries (a half round
# trip of at least 1.5 ms, so a floor of at least 7.5 us on one node: a real 8-byte get, far
# below, would be marked implausible by it). One such try: a later one is kept (on a machine
# busy with other work the later tries may be disturbed too, and warned of, but not by 3 ms an
# answer). Every try: the least is kept (the sleeps' 1.5 ms) and the warning says so.
p = mpirun(2, [exe, "run", "get_lat", "-m", "8", "-i", "200", "-o", "retry.h5", "--force"],
           env={"FABRICBENCH_TEST_RMA_REF_SLEEP": "1"})
impl, q, why, t = rows_of("retry.h5")["get_lat"]
expect(p.returncode == 0 and t["twosided_lat_us"][0] < 1500,
       "a reference taken while rank 1 slept was kept: exit %d twosided_lat_us %s implausible %s"
       "\n%s" % (p.returncode, list(t["twosided_lat_us"]), impl, p.stderr))
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "20", "-o", "busy.h5", "--force"],
           env={"FABRICBENCH_TEST_RMA_REF_SLEEP": "3"})
impl, q, why, t = rows_of("busy.h5")["put_lat"]
expect(p.returncode == 0 and t["twosided_lat_us"][0] >= 1500
       and "taken on a busy machine: in each of 3 tries one rank of the pair ran under 50% of the time"
       in p.stderr,
       "every try disturbed: exit %d twosided_lat_us %s\n%s"
       % (p.returncode, list(t["twosided_lat_us"]), p.stderr))

# The bandwidth warning: a component far slower than two-sided (the SLOW hook: 20 ms after each
# put) is named, with the pair, the osc component and what to try.
p = mpirun(2, [exe, "run", "put_bw", "-m", "64K", "-w", "4", "-i", "10"],
           env={"FABRICBENCH_TEST_RMA_SLOW": "1"})
expect(p.returncode == 0, "put_bw slow: exit %d\n%s" % (p.returncode, p.stderr))
for w in ("kernel 'put_bw' between ranks 0 and 1, component ", "twosided_pct below 10 in 1 row",
          "two-sided window", "--mca osc"):
    expect(w in p.stderr, "the bandwidth warning lacks '%s':\n%s" % (w, p.stderr))

# --rma-flush: put_bw and get_bw flush per window (OSU's, the default) or per operation; the
# row records which (flush_per_op), the detail says it; where it means nothing it is refused.
def table(path):
    return {name: (attrs, t) for name, (attrs, t) in h5_kernels(path).items()}


p = run(2, ["put_bw", "get_bw"], "flush", "allocate", [8, 4096], ["--rma-flush", "op"],
        path="flop.h5")
for name, (attrs, t) in table("flop.h5").items():
    expect(list(t["flush_per_op"]) == [1.0, 1.0] and "a flush per operation" in attrs["detail"],
           "%s --rma-flush op: flush_per_op %s, detail %s" % (name, list(t["flush_per_op"]),
                                                              attrs["detail"]))
run(2, ["put_bw", "put_lat"], "flush_local", "create", [8], path="flwin.h5")
ks = table("flwin.h5")
expect(list(ks["put_bw"][1]["flush_per_op"]) == [0.0] and
       all(v != v for v in ks["put_lat"][1]["flush_per_op"]),
       "flush_per_op: put_bw %s (want 0), put_lat %s (want NaN)"
       % (list(ks["put_bw"][1]["flush_per_op"]), list(ks["put_lat"][1]["flush_per_op"])))

# --rma-pattern: one-to-all and all-to-all on 2, 3 and 4 ranks, every operation validated; the
# rows count origins and targets (bandwidth: aggregate), the detail names the pattern.
PAT_KERNELS = ["put_lat", "get_bw", "get_acc_lat", "cas_lat"]


def check_pattern(path, pattern, np_):
    origins = np_ if pattern == "all-to-all" else 1
    for name, (attrs, t) in table(path).items():
        where = "%s --rma-pattern %s (np %d)" % (name, pattern, np_)
        expect(list(t["rma_origins"]) == [origins] * len(t["bytes"]) and
               list(t["rma_targets"]) == [np_ - 1] * len(t["bytes"]),
               "%s: rma_origins %s rma_targets %s" % (where, list(t["rma_origins"]),
                                                     list(t["rma_targets"])))
        expect(pattern in attrs["detail"], "%s: detail %s" % (where, attrs["detail"]))
        expect(all(v == 0 for v in t["implausible"]), "%s: implausible %s"
               % (where, list(t["implausible"])))


for np_, pattern, sync, win in ((4, "all-to-all", "flush", "allocate"),
                                (3, "one-to-all", "pscw", "dynamic"),
                                (4, "one-to-all", "lock", "create"),
                                (2, "all-to-all", "fence", "allocate"),
                                (3, "all-to-all", "lock_all", "create")):
    run(np_, PAT_KERNELS, sync, win, [4], ["--rma-pattern", pattern], path="pat.h5")
    check_pattern("pat.h5", pattern, np_)
# bandwidth counts every origin's bytes: all-to-all on 4 ranks moves 12 streams' windows
run(4, ["put_bw"], "flush", "allocate", [4096], ["--rma-pattern", "all-to-all", "--rma-flush",
                                                 "op"], path="pat.h5")
t = table("pat.h5")["put_bw"][1]
expect(abs(t["MBps"][0] / t["pair_MBps"][0] - 12) < 1e-6,
       "all-to-all put_bw on 4 ranks: MBps %s over pair_MBps %s, not 12 streams"
       % (list(t["MBps"]), list(t["pair_MBps"])))
# lost data is caught in every pattern (the NOOP hook: no operation moves anything)
for np_, pattern in ((4, "all-to-all"), (3, "one-to-all")):
    p = mpirun(np_, [exe, "run", "put_bw,get_lat", "-m", "8", "-i", "10", "-w", "4", "--validate",
                     "--rma-pattern", pattern, "-o", "lost.h5", "--force"], env=noop)
    expect(p.returncode == 1, "%s, no data moved: exit %d\n%s" % (pattern, p.returncode, p.stderr))
    for name, (impl, q, why, t) in rows_of("lost.h5").items():
        expect(impl == [1.0] and all(e > 0 for e in t["validation_errors"]),
               "%s %s, no data moved: implausible %s errors %s"
               % (pattern, name, impl, list(t["validation_errors"])))

# --rma-target-busy: the targets compute outside MPI; the row records it, the idle-target
# reference and the ratio (no bound on it: a timing); pairs and one-to-all.
for np_, extra in ((2, ["--rma-target-busy"]),
                   (4, ["--rma-target-busy", "--rma-pattern", "one-to-all"])):
    run(np_, ["put_lat", "get_lat", "put_bw"], "lock", "allocate", [8, 4096], extra,
        path="busy.h5")
    for name, (attrs, t) in table("busy.h5").items():
        expect(list(t["target_busy"]) == [1.0, 1.0] and all(v > 0 for v in t["idle_target_us"])
               and all(r > 0 and r == r for r in t["passive_ratio"]) and
               "targets busy outside MPI" in attrs["detail"],
               "%s --rma-target-busy (np %d): target_busy %s idle %s ratio %s" %
               (name, np_, list(t["target_busy"]), list(t["idle_target_us"]),
                list(t["passive_ratio"])))
t = table("flwin.h5")["put_lat"][1]  # without it: 0 and NaN
expect(list(t["target_busy"]) == [0.0] and all(v != v for v in t["passive_ratio"]),
       "without --rma-target-busy: %s %s" % (list(t["target_busy"]), list(t["passive_ratio"])))

# The analysis's summary of a file without the latency kernel: its lat column takes put_lat's
# 8 B (a put and its synchronisation, here flush_local; not one way) and names it, so no reader
# takes it for a one-way ping-pong (the legend says so); --json names it too.
c = subprocess.run(ANALYZE + ["summary", "flwin.h5"], capture_output=True, text=True, env=AENV,
                   timeout=240)
expect(c.returncode == 0 and re.search(r"\s[0-9.]+ \(put_lat\)\s", c.stdout) is not None and
       "another latency kernel's where named" in c.stdout,
       "summary of a put_lat file: exit %d, the kernel not named:\n%s%s" %
       (c.returncode, c.stdout, c.stderr))
c = subprocess.run(ANALYZE + ["summary", "--json", "flwin.h5"], capture_output=True, text=True,
                   env=AENV, timeout=240)
expect(c.returncode == 0 and [r.get("latency_kernel") for r in json.loads(c.stdout or "[]")] ==
       ["put_lat"], "summary --json: %s%s" % (c.stdout[:500], c.stderr))

# The new options' refusals, before anything is measured (exit 2, why and what to do).
for np_, args, words in (
        (2, ["put_lat", "--rma-flush", "op"], ("--rma-flush op is refused", "one operation")),
        (2, ["put_bw", "--rma-flush", "window", "--rma-sync", "lock"],
         ("without a flush", "flush_local")),
        (2, ["put_lat", "--rma-target-busy", "--rma-sync", "fence"],
         ("--rma-target-busy is refused", "active target", "lock_all")),
        (2, ["get_lat", "--rma-target-busy", "--rma-sync", "pscw"], ("active target",)),
        (4, ["put_lat", "--rma-target-busy", "--rma-pattern", "all-to-all"],
         ("every rank is an origin", "one-to-all")),
        (4, ["put_bibw", "--rma-pattern", "all-to-all"], ("--rma-pattern all-to-all is refused",
                                                          "put_bw"))):
    p = mpirun(np_, [exe, "run"] + args + ["-m", "8", "-i", "10"])
    expect(p.returncode == 2, "%s: exit %d, not 2\n%s" % (args, p.returncode, p.stderr))
    for w in words:
        expect(w in p.stderr, "%s: message lacks '%s':\n%s" % (args, w, p.stderr))
print("PASS rma")
