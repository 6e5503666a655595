# SPDX-License-Identifier: BSD-3-Clause
"""The congestion kernels on one node, 6 ranks (oversubscribed): `run congestion` gives one row
per canary and congestor pattern (named in the table, CSV, JSON and file: congestor_name beside
its index) with the canary's statistics alone and congested, the CIFs equal
congested / alone of the row's own stored columns (unrounded), the congestors' rate, the worst
canary a canary rank, and the structured warnings this machine deserves (one node: too few nodes
and shared cores, in every row's cong_warn); the HDF5 file holds the same, `export --format gpcnet`
prints both tables from it, a baseline check fails a CIF that grew; a bad --canaries host is
refused (exit 2), and the run ends within a bound. Never a speed.

usage: test_congestion.py FABRICBENCH"""
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpirun  # noqa: E402

enter_scratch()
exe = sys.argv[1]
NP = 6
PATTERNS = ["alltoall", "incast", "put_incast", "get_bcast", "bw", "none"]
CANARIES = ["cong_lat", "cong_bw", "cong_allreduce"]
ANALYSIS = os.path.join(os.path.dirname(__file__), "..", "..", "analysis")

t0 = time.monotonic()
p = mpirun(NP, [exe, "run", "congestion", "-i", "4", "--canary-ops", "50", "-o", "c.h5",
                "--json", "c.jsonl", "--csv", "c.csv"], timeout=240)
wall = time.monotonic() - t0
check(p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
check(wall < 200, "run congestion took %.0f s (bound 200 s)" % wall)
check("too few nodes for --congestor-frac 0.8: 1 node(s), 2 canary and 4 congestor ranks, split"
      " by rank" in p.stderr, "the few-nodes warning: " + p.stderr[-2000:])
check("share a node's cores" in p.stderr, "the shared-cores warning")

with open("c.jsonl") as f:
    rows = [r for r in map(json.loads, f) if r["record"] == "row"]
check(len(rows) == len(CANARIES) * len(PATTERNS), "rows: %d" % len(rows))
got = [(r["kernel"], r["variant"]) for r in rows]
want = [(k, "--congestor " + p_) for k in CANARIES for p_ in PATTERNS]
check(got == want, "rows in order: %s" % got)


def fin(v):
    return v is not None and math.isfinite(v)


for r in rows:
    where = "%s %s" % (r["kernel"], r["variant"])
    check(r["congestor"] == PATTERNS.index(r["variant"].split()[1]), "axis: " + where)
    check(r["congestor_name"] == r["variant"].split()[1], "the pattern's name: " + where)
    for ph in ("alone", "congested"):
        st = [r["%s_%s_us" % (ph, q)] for q in ("p50", "p99", "p999")]
        check(all(fin(v) and v > 0 for v in st + [r[ph + "_mean_us"]]), "stats %s: %s" % (ph, where))
        check(st[0] <= st[1] <= st[2], "percentiles in order %s: %s %s" % (ph, where, st))
    # the CIF is congested / alone of the row's own stored (unrounded) values
    check(r["cif_mean"] == r["congested_mean_us"] / r["alone_mean_us"], "cif_mean: " + where)
    check(r["cif_p99"] == r["congested_p99_us"] / r["alone_p99_us"], "cif_p99: " + where)
    check(r["cong_warn"] in (6, 7), "cong_warn (few nodes 4 + shared 2 [+ low load 1]): %s %s"
          % (where, r["cong_warn"]))
    check(r["worst_canary_rank"] in (0, 3), "worst canary is a canary rank (0 or 3): %s %s"
          % (where, r["worst_canary_rank"]))
    if r["variant"].endswith(" none"):
        check(r["congestor_gbps"] == 0 and r["congestor_load_pct"] is None,
              "none moves nothing: " + where)
    else:
        check(fin(r["congestor_gbps"]) and r["congestor_gbps"] > 0, "congestors moved: " + where)
        low = r["congestor_load_pct"] < 50
        check(bool(int(r["cong_warn"]) & 1) == low, "low-load bit iff load < 50%%: %s %s"
              % (where, r["congestor_load_pct"]))
        if low:
            check("not a meaningful load" in p.stderr, "the low-load warning in words")

# the pattern by name, not its index: the text table (under the heading congestor), the CSV
# (congestor_name beside the number), the analysis reading the JSON Lines (a text column)
lines = p.stdout.splitlines()
named = [lines[i + 1].split()[1] for i, l in enumerate(lines[:-1])
         if l.startswith("#") and l.split()[1:3] == ["bytes", "congestor"]]
check(named == PATTERNS * len(CANARIES), "the table's congestor column: %s" % named)
import csv  # noqa: E402

with open("c.csv") as f:
    crows = list(csv.DictReader(f))
check([(c["congestor_name"], float(c["congestor"])) for c in crows] ==
      [(p_, float(PATTERNS.index(p_))) for p_ in PATTERNS] * len(CANARIES),
      "the CSV's congestor_name and congestor: %s" % [(c["congestor_name"], c["congestor"])
                                                       for c in crows])
s = subprocess.run([sys.executable, "-m", "fabricbench_analysis", "summary", "c.jsonl"],
                   capture_output=True, text=True, timeout=120,
                   env=dict(os.environ, PYTHONPATH=ANALYSIS))
check(s.returncode == 0, "the analysis reads the JSON Lines: %s" % s.stderr[-1500:])

# the HDF5 file: every instance's table, the CIFs from its own stored columns; the pattern's
# index stays a number (congestor), its name a text column beside it
import h5py  # noqa: E402

n = 0
with h5py.File("c.h5", "r") as f:
    for name, g_ in f["runs/run_0000/kernels"].items():
        t = {c: g_["table"][c][()] for c in ("bytes", "cif_mean", "cif_p99", "alone_mean_us",
                                             "congested_mean_us", "alone_p99_us",
                                             "congested_p99_us", "congestor", "congestor_name")}
        word = g_.attrs["variant"].split()[1]
        word = word.decode() if isinstance(word, bytes) else word
        check(t["congestor"].dtype.kind == "f" and
              list(t["congestor"]) == [PATTERNS.index(word)] * len(t["bytes"]) and
              [v.decode() for v in t["congestor_name"]] == [word] * len(t["bytes"]),
              "file %s: congestor %s, congestor_name %s" % (name, t["congestor"],
                                                            t["congestor_name"]))
        for i in range(len(t["bytes"])):
            n += 1
            check(t["cif_mean"][i] == t["congested_mean_us"][i] / t["alone_mean_us"][i],
                  "file cif_mean %s %d" % (name, i))
            check(t["cif_p99"][i] == t["congested_p99_us"][i] / t["alone_p99_us"][i],
                  "file cif_p99 %s %d" % (name, i))
check(n == len(rows), "rows in the file: %d" % n)

# export --format gpcnet: the two tables, a row per canary and pattern
env = dict(os.environ, PYTHONPATH=ANALYSIS)
g = subprocess.run([sys.executable, "-m", "fabricbench_analysis", "export", "c.h5", "--format",
                    "gpcnet"], capture_output=True, text=True, env=env, timeout=120)
check(g.returncode == 0, "gpcnet: %s" % g.stderr[-2000:])
out = g.stdout
check(out.startswith("Canaries alone and under congestion (18 rows") and
      "\nCongestion impact factor" in out, "gpcnet tables:\n" + out[:2000])
cif_lines = [l for l in out.split("Congestion impact factor")[1].splitlines()
             if l.startswith("| random-ring") or l.startswith("| allreduce")]
check(len(cif_lines) == 18, "gpcnet CIF lines: %d" % len(cif_lines))
lat_inc = [l for l in cif_lines if "latency" in l and "| incast 4K" in l][0]
r = [x for x in rows if x["kernel"] == "cong_lat" and x["variant"].endswith(" incast")][0]
cells = [c.strip() for c in lat_inc.strip("|").split("|")]
check(abs(float(cells[2]) - r["cif_mean"]) <= 1e-3 * r["cif_mean"], "gpcnet CIF = file's: "
      + lat_inc)
# a row not to compare (disturbed, invalid) carries its mark beside its 99% CIF
q = r.get("quality", "ok")
check((q not in ("disturbed", "invalid")) == (cells[3].find("[") < 0) and
      (q not in ("disturbed", "invalid") or "[%s]" % q in cells[3]),
      "gpcnet mark of a %s row: %s" % (q, lat_inc))

# a baseline check fails a CIF that grew: the baseline's CIFs made 10x smaller

# (both files' rows marked ok: this machine's rows are disturbed, which check never judges)
subprocess.run(["cp", "c.h5", "base.h5"], check=True)
for path in ("c.h5", "base.h5"):
    with h5py.File(path, "r+") as f:
        for g_ in f["runs/run_0000/kernels"].values():
            q = g_["table"]["quality"]
            q[...] = [b"ok"] * len(q)
            g_["table"]["quality_reason"][...] = [b""] * len(q)
            if path == "base.h5":
                g_["table"]["cif_mean"][...] = g_["table"]["cif_mean"][()] / 10
c = subprocess.run([sys.executable, "-m", "fabricbench_analysis", "check", "--baseline",
                    "base.h5", "c.h5"], capture_output=True, text=True, env=env, timeout=120)
check(c.returncode == 1 and "cif_mean" in c.stdout and "FAIL" in c.stdout,
      "check of a grown CIF: exit %d\n%s\n%s" % (c.returncode, c.stdout[-2000:], c.stderr[-800:]))

# --canaries names a host of the run, or is refused
p = mpirun(4, [exe, "run", "cong_lat", "--congestor", "none", "-i", "2", "--canaries", "nohost",
               "-o", "none"], timeout=120)
check(p.returncode == 2 and "--canaries: host 'nohost' is not one of the run's 1" in p.stderr,
      "bad --canaries: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
print("congestion: %d rows, run %.0f s" % (len(rows), wall))
