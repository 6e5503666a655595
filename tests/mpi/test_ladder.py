# SPDX-License-Identifier: BSD-3-Clause
"""The layer ladder (`fabricbench run ladder`, output/ladder.c) on 2 ranks of this machine:
every layer's kernels run and their rows are in the file; the ladder printed under the tables
and stored as the run attribute `ladder` (read back with h5py) has one row per size and layer
present, each layer's latency and bandwidth are its kernels' stored p50_us and MBps, the basis
is like with like (half vs half, whole vs whole, else both whole with the half round trip
doubled), "adds" is the difference of the compared values and pct_bw the ratio of the stored
bandwidths; `fabricbench-analyze plot` draws ladder.png and `report` has its table. Never a
speed.

usage: test_ladder.py FABRICBENCH"""
import json
import math
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, expect, h5_kernels, mpirun  # noqa: E402

enter_scratch()
exe = sys.argv[1]
ANALYZE = [sys.executable, "-m", "fabricbench_analysis"]
AENV = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..",
                                                "analysis"))
# layer: (latency kernel, bandwidth kernel or None, the layer it is compared with or None)
LAYERS = {"socket": ("tcp_rr", "tcp_stream", None), "ucp_tag": ("ucp_tag_lat", "ucp_tag_bw",
                                                                "socket"),
          "ucp_put": ("ucp_put_lat", "ucp_put_bw", "socket"),
          "ucp_get": ("ucp_get_lat", None, "socket"), "mpi": ("latency", "bw", "ucp_tag"),
          "mpi_put": ("put_lat", "put_bw", "mpi"), "mpi_get": ("get_lat", None, "mpi")}
HALVED = {"tcp_rr", "latency", "ucp_tag_lat", "ucp_put_lat"}  # ping-pongs over 2
SIZES = [8, 65536]


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def num(v):
    return math.nan if v is None else float(v)


# The ladder's own sizes without -m are 8,4K,64K,1M; two keep the test short.
p = mpirun(2, [exe, "run", "ladder", "-m", ",".join(map(str, SIZES)), "-i", "30", "-o",
               "l.h5", "--force"], timeout=280)
check(p.returncode == 0, "run ladder: exit %d\n%s" % (p.returncode, p.stderr))
out = p.stdout
check("# ladder:" in out, "no ladder table on stdout:\n" + out[-3000:])
ks = h5_kernels("l.h5")
kernels = {k for lat, bw, _ in LAYERS.values() for k in (lat, bw) if k}
check(set(ks) == kernels, "kernels %s, want %s" % (sorted(ks), sorted(kernels)))
for name, (_, t) in ks.items():
    expect(list(t["bytes"]) == SIZES, "%s: sizes %s" % (name, list(t["bytes"])))

with h5py.File("l.h5", "r") as f:
    raw = f["runs/run_0000"].attrs["ladder"]
lad = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
check([g["layer"] for g in lad["layers"]] == list(LAYERS), "layers %s" % lad["layers"])
for g in lad["layers"]:
    want = LAYERS[g["layer"]]
    expect((g["latency_kernel"], g["bandwidth_kernel"], g["vs"]) == want,
           "layer %s: %s, want %s" % (g["layer"], g, want))
rows = {(r["bytes"], r["layer"]): r for r in lad["rows"]}
check(len(rows) == len(lad["rows"]) == len(SIZES) * len(LAYERS),
      "%d ladder rows, want one per size and layer (%d)" % (len(lad["rows"]),
                                                            len(SIZES) * len(LAYERS)))


def stored(kernel, col, size):
    t = ks[kernel][1]
    return float(t[col][list(t["bytes"]).index(size)])


def squality(kernel, size):
    t = ks[kernel][1]
    q = t["quality"][list(t["bytes"]).index(size)]
    return q.decode() if isinstance(q, bytes) else str(q)


for (size, layer), r in rows.items():
    lat_k, bw_k, vs = LAYERS[layer]
    where = "%s at %d B" % (layer, size)
    expect(close(num(r["lat_us"]), stored(lat_k, "p50_us", size)),
           "%s: lat_us %s, stored p50_us %s" % (where, r["lat_us"],
                                                stored(lat_k, "p50_us", size)))
    expect(r["halved"] == (1 if lat_k in HALVED else 0), "%s: halved %s" % (where, r["halved"]))
    expect(r["lat_quality"] == squality(lat_k, size), "%s: lat_quality" % where)
    if bw_k:
        expect(close(num(r["MBps"]), stored(bw_k, "MBps", size)), "%s: MBps" % where)
        expect(r["bw_quality"] == squality(bw_k, size), "%s: bw_quality" % where)
    else:
        expect(r["MBps"] is None, "%s: MBps %s without a bandwidth kernel" % (where, r["MBps"]))
    if vs is None:
        expect(r["adds_us"] is None and r["basis"] == "-", "%s: compared with nothing" % where)
        continue
    ref = rows[(size, vs)]
    if r["halved"] == ref["halved"]:
        basis, f_a, f_b = ("half" if r["halved"] else "whole"), 1.0, 1.0
    else:  # like with like: both whole, the half round trip doubled
        basis = "whole*"
        f_a, f_b = (2.0 if r["halved"] else 1.0), (2.0 if ref["halved"] else 1.0)
    expect(r["basis"] == basis, "%s: basis %s, want %s" % (where, r["basis"], basis))
    expect(close(num(r["cmp_us"]), num(r["lat_us"]) * f_a) and
           close(num(r["vs_cmp_us"]), num(ref["lat_us"]) * f_b), "%s: compared values" % where)
    expect(close(num(r["adds_us"]), num(r["cmp_us"]) - num(r["vs_cmp_us"])),
           "%s: adds_us %s is not %s - %s" % (where, r["adds_us"], r["cmp_us"], r["vs_cmp_us"]))
    if bw_k and LAYERS[vs][1]:
        expect(close(num(r["pct_bw"]), 100.0 * num(r["MBps"]) / num(ref["MBps"])),
               "%s: pct_bw" % where)
    # the printed line carries the same numbers (3 decimals)
    line = [ln.split() for ln in out.splitlines() if ln.split()[:2] == [str(size), layer]]
    expect(len(line) == 1 and abs(float(line[0][6]) - num(r["adds_us"])) < 1e-3 + 1e-6,
           "%s: printed line %s, adds_us %s" % (where, line, r["adds_us"]))
# the sentence under the table: what mpi adds over ucp_tag at 8 B, or what it takes less
mpi8 = num(rows[(8, "mpi")]["adds_us"])
if not math.isfinite(mpi8):
    expect(False, "mpi at 8 B: adds_us %r, no number" % rows[(8, "mpi")]["adds_us"])
else:
    want = ("# mpi adds %.3f us over ucp_tag at 8 B" % mpi8 if mpi8 >= 0 else
            "# mpi takes %.3f us less than ucp_tag at 8 B" % -mpi8)
    expect(want in out, "no sentence %r:\n%s" % (want, out))

# The analysis: the figure and the report's table.
c = subprocess.run(ANALYZE + ["plot", "l.h5", "-o", "plots", "--format", "png"],
                   capture_output=True, text=True, env=AENV, timeout=240)
expect(c.returncode == 0 and os.path.getsize("plots/ladder.png") > 1000 if c.returncode == 0
       else False, "plot: exit %d\n%s" % (c.returncode, c.stderr))
c = subprocess.run(ANALYZE + ["report", "l.h5", "-o", "r.html"], capture_output=True, text=True,
                   env=AENV, timeout=240)
expect(c.returncode == 0, "report: exit %d\n%s" % (c.returncode, c.stderr))
if c.returncode == 0:
    page = open("r.html").read()
    expect("Layer ladder" in page and "ucp_tag" in page, "report has no ladder table")
# A doctored ladder (adds not the difference) is refused, never drawn.
with h5py.File("l.h5", "r+") as f:
    bad = dict(lad)
    bad["rows"] = [dict(r) for r in lad["rows"]]
    for r in bad["rows"]:
        if r["layer"] == "mpi":
            r["adds_us"] = (r["adds_us"] or 0) + 1.0
    f["runs/run_0000"].attrs["ladder"] = json.dumps(bad)
c = subprocess.run(ANALYZE + ["report", "l.h5", "-o", "bad.html"], capture_output=True,
                   text=True, env=AENV, timeout=240)
expect(c.returncode == 3 and "does not add up" in c.stderr,
       "doctored ladder: exit %d\n%s" % (c.returncode, c.stderr))

# A one-sided layer this host cannot set up: osc sm makes no --win create window, on every
# host. The ladder leaves mpi_put and mpi_get out (the window's error and hint, a warning, the
# table's 'not measured' line, measured false in the JSON, no rows of theirs), measures every
# other layer and completes: exit 0. (It failed with exit 3 at put_lat before.)
p = mpirun(2, [exe, "run", "ladder", "-m", "8", "-i", "10", "--win", "create", "-o", "nw.h5",
               "--force"], timeout=280, mpirun_args=["--mca", "osc", "sm"])
check(p.returncode == 0, "run ladder, osc sm --win create: exit %d\n%s" % (p.returncode,
                                                                           p.stderr[-3000:]))
with h5py.File("nw.h5", "r") as f:
    run = f["runs/run_0000"]
    raw, status = run.attrs["ladder"], run.attrs["status"]
nw = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
status = status.decode() if isinstance(status, bytes) else str(status)
measured = {g["layer"]: g["measured"] for g in nw["layers"]}
onesided = {"mpi_put": "put_lat", "mpi_get": "get_lat"}
expect(status == "complete", "run ladder, osc sm: run status %r" % status)
expect(measured == {g: g not in onesided for g in LAYERS}, "measured: %s" % measured)
expect({r["layer"] for r in nw["rows"]} == set(LAYERS) - set(onesided),
       "rows of %s" % sorted({r["layer"] for r in nw["rows"]}))
expect(set(h5_kernels("nw.h5")) == kernels - {"put_lat", "put_bw", "get_lat"},
       "kernels stored: %s" % sorted(h5_kernels("nw.h5")))
expect("# not measured: mpi_put (put_lat), mpi_get (get_lat): no row" in p.stdout,
       "no 'not measured' line:\n" + p.stdout[-2000:])
for layer, kernel in (("mpi_put", "put_lat"), ("mpi_put", "put_bw"), ("mpi_get", "get_lat")):
    expect("warning: run ladder: layer %s (kernel %s) not measured" % (layer, kernel) in p.stderr,
           "no warning for %s:\n%s" % (kernel, p.stderr[-2000:]))
expect("could not make a --win create window" in p.stderr and "--mca osc ucx" in p.stderr,
       "the window's error and hint:\n" + p.stderr[-2000:])
# A kernel asked for by itself still fails on it (exit 3), as every run without the ladder.
p = mpirun(2, [exe, "run", "put_lat", "-m", "8", "-i", "10", "--win", "create", "-o", "none"],
           timeout=120, mpirun_args=["--mca", "osc", "sm"])
expect(p.returncode == 3 and "not measured" not in p.stderr,
       "run put_lat, osc sm --win create: exit %d\n%s" % (p.returncode, p.stderr[-1500:]))
# ... and the report says so under its ladder table.
c = subprocess.run(ANALYZE + ["report", "nw.h5", "-o", "nw.html"], capture_output=True,
                   text=True, env=AENV, timeout=240)
expect(c.returncode == 0 and
       "not measured: mpi_put (put_lat), mpi_get (get_lat)" in open("nw.html").read(),
       "report of the ladder without one-sided layers: exit %d, no 'not measured'\n%s"
       % (c.returncode, c.stderr))
# A ladder whose measured contradicts its rows (a layer said measured without a row) is
# refused, as one that does not add up.
with h5py.File("nw.h5", "r+") as f:
    doc = json.loads(f["runs/run_0000"].attrs["ladder"])
    for g in doc["layers"]:
        if g["layer"] == "mpi_put":
            g["measured"] = True
    f["runs/run_0000"].attrs["ladder"] = json.dumps(doc)
c = subprocess.run(ANALYZE + ["report", "nw.h5", "-o", "bad2.html"], capture_output=True,
                   text=True, env=AENV, timeout=240)
expect(c.returncode == 3 and "says measured true against its rows" in c.stderr,
       "a ladder saying mpi_put measured without rows: exit %d\n%s" % (c.returncode, c.stderr))
