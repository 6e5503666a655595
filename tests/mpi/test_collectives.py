# SPDX-License-Identifier: BSD-3-Clause
"""Collectives under mpirun -np 2 and -np 4 (oversubscribed), every dtype, with --validate;
algbw and busbw as nccl-tests defines them; a deliberately wrong reduction must be caught;
roots; the result file carries the collective columns; the peers' definitions (OSU, IMB) and
--sync barrier.

usage: test_collectives.py FABRICBENCH"""
import csv
import json
import math
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpi_env, mpirun, mpirun_cmd, parse_tables  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
KERNELS = ["allreduce", "reduce_scatter", "allgather", "alltoall", "bcast", "reduce", "barrier"]
BUS = {"allreduce": lambda n: 2 * (n - 1) / n, "reduce_scatter": lambda n: (n - 1) / n,
       "allgather": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
       "bcast": lambda n: 1.0, "reduce": lambda n: 1.0}
SIZE = {"float32": 4, "float64": 8, "int32": 4, "bfloat16": 2, "float16": 2, "int8": 1,
        "uint8": 1, "uint32": 4, "int64": 8, "uint64": 8}
PER_RANK = {"reduce_scatter", "allgather", "alltoall"}  # sizes are whole blocks per rank


def fitted(kernel, want, dtype, n):
    unit = SIZE[dtype] * (n if kernel in PER_RANK else 1)
    return max(unit, want // unit * unit)


def run(np, args, rc=0, env=None):
    # --wide: every column (slowest, comm_us, overlap, p99.99); tests/mpi/test_table.py checks
    # the compact table and the nccl-tests columns
    p = mpirun(np, [exe, "run"] + args + ["-o", "none", "-t", "0.01", "--wide"], env=env)
    check(p.returncode == rc, "%s np=%d: exit %d, want %d\n%s\n%s"
          % (" ".join(args), np, p.returncode, rc, p.stdout[-3000:], p.stderr[-3000:]))
    return p, parse_tables(p.stdout)


sizes = [8, 1000, 65536]
for np in (2, 4):
    for dtype in ("float32", "float64", "int32", "bfloat16", "float16"):
        p, (h, ks) = run(np, [",".join(KERNELS), "-m", ",".join(map(str, sizes)), "--validate",
                              "--dtype", dtype])
        check([k["name"] for k in ks] == KERNELS, "kernels %s" % [k["name"] for k in ks])
        for k in ks:
            name = k["name"]
            check(k["header"]["ranks"] == "all %d" % np, "ranks line %s" % k["header"])
            want = [0] if name == "barrier" else \
                sorted(set(fitted(name, s, dtype, np) for s in sizes))
            got = [int(r["bytes"]) for r in k["rows"]]
            check(got == want, "%s %s np=%d sizes %s, want %s" % (name, dtype, np, got, want))
            for r in k["rows"]:
                where = "%s %s np=%d %d B: %s" % (name, dtype, np, r["bytes"], r)
                # tail quantiles with too few samples print "-" (stats.h: n >= 10/(1-p))
                shown = [r[c] for c in ("min_us", "p50_us", "p99_us", "p99.9_us", "p99.99_us",
                                        "max_us") if r[c] != "-"]
                check(shown == sorted(shown) and len(shown) >= 3, "order: " + where)
                check(r["min_us"] <= r["time_us"] <= r["max_us"], "time_us in range: " + where)
                rank, share = r["slowest"].split(":")
                check(0 <= int(rank) < np and 0 < float(share.rstrip("%")) <= 100,
                      "slowest: " + where)
                if name == "barrier":
                    check(r["errors"] == "-" and r["algbw_GB/s"] == "-", where)
                    continue
                check(r["errors"] == 0, "validation: " + where)
                algbw = r["bytes"] / r["time_us"] / 1e3  # GB/s = bytes / us / 1000
                check(abs(r["algbw_GB/s"] - algbw) <= 0.0006 + 0.002 * algbw, "algbw: " + where)
                check(abs(r["busbw_GB/s"] - r["algbw_GB/s"] * BUS[name](np)) <=
                      0.0011 + 0.002 * r["busbw_GB/s"], "busbw: " + where)
        print("ok np=%d %s: 7 collectives validated, algbw/busbw consistent" % (np, dtype))

# the integer types of nccl-tests and --op avg (the sum divided by the ranks after the call):
# 3 ranks, so avg's integer division truncates and unsigned sums of negative inputs wrap; the
# reduction kernels validated (the check computes in the type's own wrapping arithmetic), the
# type and op recorded in the file
RED = ["allreduce", "reduce", "reduce_scatter"]
for dtype, op in (("int8", "avg"), ("uint8", "sum"), ("uint32", "avg"), ("int64", "prod"),
                  ("uint64", "max"), ("float32", "avg"), ("bfloat16", "avg"), ("int32", "min")):
    name = "t_%s_%s.h5" % (dtype, op)
    p = mpirun(3, [exe, "run", ",".join(RED), "-m", "8,1000", "--validate", "--dtype", dtype,
                   "--op", op, "-t", "0.01", "-o", name])
    check(p.returncode == 0, "%s %s: exit %d\n%s" % (dtype, op, p.returncode, p.stderr[-2000:]))
    h, ks = parse_tables(p.stdout)
    check([k["name"] for k in ks] == RED, "kernels %s" % [k["name"] for k in ks])
    for k in ks:
        got = [int(r["bytes"]) for r in k["rows"]]
        want = sorted(set(fitted(k["name"], s, dtype, 3) for s in (8, 1000)))
        check(got == want and all(r["errors"] == 0 for r in k["rows"]),
              "%s %s %s: sizes %s (want %s), errors %s"
              % (k["name"], dtype, op, got, want, [r["errors"] for r in k["rows"]]))
    with h5py.File(name, "r") as f:
        groups = [v for v in f["runs"].values()][0]["kernels"].values()
        kinds = [(g.attrs["kernel"], g.attrs["dtype"], g.attrs["op"]) for g in groups]
        check(sorted(kinds) == sorted((kn, dtype, op) for kn in RED),
              "%s %s: the file says %s" % (dtype, op, kinds))
p = mpirun(4, [exe, "run", "gradsync", "--dtype", "int32", "--op", "avg", "--inflight", "2",
               "--params", "100000", "--bucket", "64K",
               "--validate", "-t", "0.01", "-o", "none"])
check(p.returncode == 0 and parse_tables(p.stdout)[1][0]["rows"][0]["errors"] == 0,
      "gradsync avg: %s" % p.stderr[-2000:])
# avg that does not divide is caught (the test-only wrong sum adds 1 to element 0)
p, (h, ks) = run(3, ["allreduce", "-m", "8", "--validate", "--dtype", "float32", "--op", "avg"],
                 rc=1, env={"FABRICBENCH_TEST_WRONG_OP": "1"})
check(ks[0]["rows"][0]["errors"] > 0, "wrong avg not caught")
print("ok int8, uint8, uint32, int64, uint64 and --op avg validated on 3 ranks; gradsync avg")

# 2 polling ranks confined to one core (taskset; the binding is inherited and kept) wait for it
# in turn: the run says so, naming the kernel and sizes (a rank that polls should run all the
# time)
cmd = mpirun_cmd(2, prefix=["taskset", "-c", "0"]) + \
    [exe, "run", "allreduce", "-m", "8,1K", "-t", "0.2", "-o", "none"]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=mpi_env())
check(p.returncode == 0, p.stderr[-2000:])
check("kernel 'allreduce': in 2 rows (8, 1K) a rank ran only" in p.stderr and
      "scheduler delays" in p.stderr, "no descheduling warning:\n%s" % p.stderr[-2000:])
print("ok oversubscribed ranks are reported as waiting for a core")

# a deliberately wrong reduction is caught, with the element named
for dtype in ("float32", "bfloat16", "int32"):
    p, (h, ks) = run(4, ["allreduce,reduce,reduce_scatter", "-m", "64", "--validate", "--dtype",
                         dtype], rc=1, env={"FABRICBENCH_TEST_WRONG_OP": "1"})
    check(all(r["errors"] > 0 for k in ks for r in k["rows"]), "wrong op not caught (%s)" % dtype)
    check("element 0 is" in p.stderr and "expected" in p.stderr, p.stderr[-2000:])
print("ok a wrong reduction is caught (exit 1, element named)")

# sizes that round to the same value are measured once (here 1, 3 -> 4 bytes; the samples
# dataset of a size can exist only once); forced corruption is counted by the collectives too
p = mpirun(2, [exe, "run", "allreduce,reduce_scatter", "-m", "1,3,8", "-t", "0.01", "--samples",
               "-o", "dedup.h5"])
check(p.returncode == 0, "dedup: %s" % p.stderr[-2000:])
h, ks = parse_tables(p.stdout)
check([[int(r["bytes"]) for r in k["rows"]] for k in ks] == [[4, 8], [8]],
      "deduplicated sizes: %s" % [[r["bytes"] for r in k["rows"]] for k in ks])
p, (h, ks) = run(2, ["allreduce", "-m", "64", "--validate"], rc=1,
                 env={"FABRICBENCH_TEST_CORRUPT": "1"})
check(ks[0]["rows"][0]["errors"] > 0, "forced corruption not counted")
print("ok duplicate sizes measured once; forced corruption counted")

# max and min, fixed roots
for op in ("max", "min"):
    run(3, ["allreduce,reduce,reduce_scatter", "-m", "48,96", "--validate", "--op", op,
            "--dtype", "float16"])
p, (h, ks) = run(4, ["bcast,reduce", "-m", "1K", "--validate", "--root", "3"])
check(all("fixed" in k["header"]["root"] for k in ks), "root header")
print("ok --op max/min, --root")

# the result file carries the collective columns
p = mpirun(4, [exe, "run", "allreduce", "-m", "1K,4K", "-t", "0.01", "--dtype", "bfloat16",
               "-o", "c.h5"])
check(p.returncode == 0, p.stderr)
check("# bfloat16: emulated: 16-bit storage" in p.stdout, "emulation not said: %s" % p.stdout)
with h5py.File("c.h5", "r") as f:
    g = f["runs/run_0000/kernels/00_allreduce"]
    check(g.attrs["kind"] == "collective" and g.attrs["dtype"] == "bfloat16" and
          g.attrs["op"] == "sum" and abs(g.attrs["bus_factor"] - 1.5) < 1e-12 and
          g.attrs["dtype_arithmetic"].startswith("emulated"), dict(g.attrs))
    t = g["table"]
    for c in ("algbw_GBps", "busbw_GBps", "slowest_rank", "slowest_share"):
        check(c in t and "units" in t[c].attrs, "column %s" % c)
    check(t["algbw_GBps"].attrs["units"] == "GB/s", "algbw units")
    a = t["algbw_GBps"][:]
    check(all(abs(a * 1.5 - t["busbw_GBps"][:]) < 1e-12), "busbw = 1.5 algbw")
    check(all(abs(t["bytes"][:] / t["mean_us"][:] / 1e3 - a) < 1e-9), "algbw from mean_us")
# non-blocking collectives, alone and with synthetic compute between start and wait
for np_ in (2, 4):
    p, (h, ks) = run(np_, [",".join(KERNELS), "-m", "64,4K", "--validate", "--nonblocking"])
    check(all(r["errors"] in (0, "-") for k in ks for r in k["rows"]), "nonblocking validation")
    check(all(r["overlap"] == "-" for k in ks for r in k["rows"]), "no overlap without compute")
# --validate checks the non-blocking calls themselves: damage done only to what a non-blocking
# call delivered (a test-only switch) is caught for every collective, with compute in between
# too, and the same switch leaves the blocking calls alone
COLL = KERNELS[:-1]
nbc = {"FABRICBENCH_TEST_NB_CORRUPT": "1"}
for extra in ([], ["--overlap-compute", "5"]):
    p, (h, ks) = run(2, [",".join(COLL), "-m", "64", "--validate", "--nonblocking", "--dtype",
                         "int32"] + extra, rc=1, env=nbc)
    check([k["name"] for k in ks] == COLL and all(k["rows"][0]["errors"] > 0 for k in ks),
          "non-blocking damage not caught %s: %s" % (extra, [k["rows"] for k in ks]))
    check("element 0 is" in p.stderr, p.stderr[-2000:])
p, (h, ks) = run(2, [",".join(COLL), "-m", "64", "--validate", "--dtype", "int32"], env=nbc)
check(all(k["rows"][0]["errors"] == 0 for k in ks), "blocking calls damaged by the NB switch")
p, (h, ks) = run(2, ["allreduce,bcast", "-m", "64K", "--nonblocking", "--overlap-compute", "100"])
check("algbw from comm_us" in p.stdout, "header: algbw source under overlap")
for k in ks:
    r = k["rows"][0]
    ovl = float(r["overlap"].rstrip("%"))
    check(0.0 <= ovl <= 100.0 and r["comm_us"] > 0, "overlap row: %s" % r)
    # the call with 100 us of compute takes at least the compute
    check(r["time_us"] >= 100.0, "time with compute: %s" % r)
    check(abs(r["algbw_GB/s"] - r["bytes"] / r["comm_us"] / 1e3) <= 0.0006 + 0.002 *
          r["algbw_GB/s"], "algbw from the call alone: %s" % r)
print("ok --nonblocking on 2 and 4 ranks, --overlap-compute reports overlap")

# gradsync: one row = one full sync of the whole gradient, blocking and with buckets in flight;
# a last partial bucket (3e6 x 2 B is not a multiple of 1 MiB); every bucket validated
for inflight in ("1", "3"):
    for np_ in (2, 4):
        p, (h, ks) = run(np_, ["gradsync", "--params", "3e6", "--dtype", "bfloat16", "--bucket",
                               "1M", "--inflight", inflight, "--validate"])
        k = ks[0]
        r = k["rows"][0]
        check(len(k["rows"]) == 1 and r["bytes"] == 6000000 and r["errors"] == 0,
              "gradsync row: %s" % k["rows"])
        check("6 buckets of 1048576 B (last 757120 B)" in k["header"]["gradsync"],
              "gradsync header: %s" % k["header"])
        check(abs(r["busbw_GB/s"] - r["algbw_GB/s"] * 2 * (np_ - 1) / np_) <=
              0.0011 + 0.002 * r["busbw_GB/s"], "gradsync busbw: %s" % r)
p, (h, ks) = run(2, ["gradsync", "--params", "1e6", "--bucket", "300K", "--inflight", "2",
                     "--validate"], rc=1, env={"FABRICBENCH_TEST_WRONG_OP": "1"})
check(ks[0]["rows"][0]["errors"] > 0 and "gradsync (float32): element" in p.stderr,
      "gradsync wrong op: %s" % p.stderr[-1000:])
# its own options, as in effect (the environment's too), are recorded with the kernel and shown
p = mpirun(2, [exe, "run", "gradsync", "--params", "2e5", "-i", "5", "-o", "g.h5"],
           env={"FABRICBENCH_BUCKET": "64K"})
check(p.returncode == 0, "gradsync to a file: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
with h5py.File("g.h5", "r") as f:
    g = f["runs/run_0000/kernels/00_gradsync"]
    check(g.attrs["options"] == "params=200000 bucket=65536 inflight=1 compute=0",
          "gradsync options attribute: %r" % g.attrs["options"])
s = subprocess.run([exe, "show", "g.h5"], capture_output=True, text=True, timeout=30)
check(s.returncode == 0 and "# options: params=200000 bucket=65536 inflight=1 compute=0" in s.stdout
      and "# gradsync: 2e+05 params x float32" in s.stdout, "show: %s" % s.stdout[-2000:])
# a kernel's option for a run without that kernel has no effect, and the run says so
p, (h, ks) = run(2, ["latency", "-m", "8", "--params", "7e9"])
check("--params is an option of kernel 'gradsync', which this run does not measure"
      in p.stderr, "no warning for an option of a kernel not run: %s" % p.stderr[-1000:])
print("ok gradsync: blocking and 3 in flight, partial last bucket, validated, wrong op caught, "
      "options recorded")

# The peers' definitions (docs/METRICS.md): each rank's own mean time per call over the row;
# osu_avg_us their mean (OSU's avg, IMB's t_avg), imb_tmin_us/imb_tmax_us their least and
# largest; time_us (the mean of per-call maxima) is never below any of them. A kernel that one
# rank times has them all equal to loop_us. The fixed policy and the adaptive one; the same
# values in HDF5, JSON Lines and CSV.
PEERS = ("osu_avg_us", "imb_tmin_us", "imb_tmax_us")


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


def peer_rows(path):
    out = {}
    with h5py.File(path, "r") as f:
        run_ = f["runs/run_0000"]
        for name, g in run_["kernels"].items():
            t = g["table"]
            out[name] = [{c: float(t[c][i]) for c in ("mean_us", "loop_us", "bytes") + PEERS}
                         for i in range(len(t["bytes"]))]
        return out, run_.attrs["sync"], [g.attrs["iteration_policy"]
                                         for g in run_["kernels"].values()]


def check_peers(rows, where):
    for name, krows in rows.items():
        for r in krows:
            w = "%s %s %d B: %s" % (where, name, r["bytes"], r)
            if name.endswith("latency"):  # one timing rank: its loop mean, three times
                check(all(close(r[c], r["loop_us"]) for c in PEERS), "one timer: " + w)
                continue
            check(all(r[c] > 0 and math.isfinite(r[c]) for c in PEERS), "finite: " + w)
            check(r["imb_tmin_us"] <= r["osu_avg_us"] * (1 + 1e-12) and
                  r["osu_avg_us"] <= r["imb_tmax_us"] * (1 + 1e-12), "tmin <= avg <= tmax: " + w)
            check(r["imb_tmax_us"] <= r["mean_us"] * (1 + 1e-9), "tmax <= time_us: " + w)


p = mpirun(3, [exe, "run", "allreduce,alltoall,latency", "-m", "8,4K", "-i", "50", "-o", "p.h5",
               "--json", "p.jsonl", "--csv", "p.csv", "-q"])
check(p.returncode == 0, "peers, fixed: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
rows, sync, policies = peer_rows("p.h5")
check(sync == "none" and not any("--sync" in x for x in policies), "sync none: %s" % policies)
check_peers(rows, "fixed")
with open("p.jsonl") as f:
    recs = [json.loads(line) for line in f]
check(recs[0]["sync"] == "none" and all(recs[0]["units"][c] == "us" for c in PEERS),
      "json run record: %s" % {k: recs[0].get(k) for k in ("sync", "units")})
jrows = [r for r in recs if r["record"] == "row"]
with open("p.csv") as f:
    crows = list(csv.DictReader(f))
hrows = [(k[3:], r) for k, krows in sorted(rows.items()) for r in krows]
check(len(jrows) == len(crows) == len(hrows) == 6, "rows: %d %d %d" % (len(jrows), len(crows),
                                                                       len(hrows)))
for (name, h), j, c in zip(hrows, jrows, crows):
    check(j["kernel"] == c["kernel"] == name, "kernel order %s %s %s" % (name, j, c))
    for col in PEERS:
        check(j[col] == h[col] and float(c[col]) == h[col], "%s %s: h5 %r json %r csv %r"
              % (name, col, h[col], j[col], c[col]))
s = subprocess.run([exe, "show", "p.h5", "--columns", "bytes,osu_avg_us,imb_tmax_us"],
                   capture_output=True, text=True, timeout=30)
check(s.returncode == 0 and "osu_avg_us" in s.stdout, "show --columns: %s" % s.stdout[-1000:])
p = mpirun(4, [exe, "run", "allreduce", "-m", "8,64K", "--budget", "0.2", "-o", "q.h5", "-q"])
check(p.returncode == 0, "peers, adaptive: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
check_peers(peer_rows("q.h5")[0], "adaptive")
print("ok osu_avg_us, imb_tmin_us, imb_tmax_us: tmin <= avg <= tmax <= time_us (fixed, "
      "adaptive), one timer's loop_us; the same in HDF5, JSON Lines, CSV")

# --sync barrier: a barrier after every call, outside the timed call. One rank lags 20 ms after
# each call (a test hook, non-blocking calls only): back to back, every rank's next call waits
# for it (t_min near 20 ms); with the barrier, the barrier does (the others' calls stay short,
# t_max is the lagging rank's 20 ms). Recorded in the run and the iteration policy.
LAG_US = 20000.0
lag = {"FABRICBENCH_TEST_LAG": "1"}
for sync in ("none", "barrier"):
    p = mpirun(3, [exe, "run", "allreduce", "--nonblocking", "-m", "8", "-i", "20", "--sync",
                   sync, "-o", "s-%s.h5" % sync, "--json", "s-%s.jsonl" % sync, "-q"], env=lag)
    check(p.returncode == 0, "--sync %s: exit %d\n%s" % (sync, p.returncode, p.stderr[-2000:]))
    rows, got, policies = peer_rows("s-%s.h5" % sync)
    r = rows["00_allreduce"][0]
    check(got == sync and json.loads(open("s-%s.jsonl" % sync).readline())["sync"] == sync,
          "sync recorded: %r" % got)
    check(("--sync barrier" in policies[0]) == (sync == "barrier"), "policy: %s" % policies)
    check_peers(rows, "--sync " + sync)
    check(r["imb_tmax_us"] >= LAG_US * 0.95, "the lagging rank's own time: %s" % r)
    if sync == "none":
        check(r["imb_tmin_us"] >= LAG_US / 2, "back to back, every call waits: %s" % r)
    else:
        check(r["imb_tmin_us"] < LAG_US / 2, "the barrier takes the wait: %s" % r)
print("ok --sync barrier recorded, and the wait moves from the next call to the barrier")
print("PASS collectives")
