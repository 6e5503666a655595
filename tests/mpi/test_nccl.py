# SPDX-License-Identifier: BSD-3-Clause
"""nccl-tests' words and formats on a live run of 4 ranks (issue 32, item 4):

- `run allreduce -b 8 -e 1M -f 4 --format nccl-tests` read by a small parser written here from
  nccl-tests' documented columns (size, count, type, redop, root, then time, algbw, busbw,
  #wrong out of place and in place): sizes 8 .. 1M by factor 4 (1M itself is not 8 x 4^k),
  count = size / 4 (float), algbw = size / time, busbw = algbw x 2(n-1)/n, both column groups
  measured, #wrong 0 with --check 1, the closing '#' lines; the HDF5 file has the two
  instances (the in-place one marked) and the table's time is its osu_avg_us (-a 1);
- reduce, reduce_scatter, allgather, alltoall (and bcast, which has no in-place form) with
  `--inplace both --validate`: both column groups filled and #wrong 0, bcast's in-place N/A;
  the file's instances (the in-place ones marked) with validation_errors 0;
- `--format nccl-json`: the document's keys as nccl-tests writes them;
- the clashing letters: ambiguous without --nccl-tests (exit 2, both meanings named), read as
  nccl-tests does with it.

usage: test_nccl.py FABRICBENCH"""
import json
import os
import re
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, direct, enter_scratch, mpirun, within  # noqa: E402

enter_scratch()
exe = sys.argv[1]
NP = 4
BUS = 2 * (NP - 1) / NP


def nccl_table(text):
    """nccl-tests' data lines: every line not starting with '#' that has 13 fields, as dicts
    (N/A as None)."""
    def num(s):
        return None if s == "N/A" else float(s)

    rows = []
    for line in text.splitlines():
        f = line.split()
        if not f or line.startswith("#"):
            continue
        check(len(f) == 13, "a data line with %d fields: %r" % (len(f), line))
        half = lambda i: {"time": num(f[i]), "algbw": num(f[i + 1]), "busbw": num(f[i + 2]),
                          "wrong": num(f[i + 3])}
        rows.append({"size": int(f[0]), "count": int(f[1]), "type": f[2], "redop": f[3],
                     "root": int(f[4]), "oop": half(5), "ip": half(9)})
    return rows


def close(printed, value, decimals):
    """A value printed with `decimals` decimals (nccl-tests' layout) shows value."""
    return abs(printed - value) <= 0.5 * 10 ** -decimals + 1e-3 * abs(value)


# the command, with fixed iterations (fast, and the same count on every size)
p = mpirun(NP, [exe, "run", "allreduce", "-b", "8", "-e", "1M", "-f", "4", "--format",
                "nccl-tests", "-n", "200", "--check", "1", "--output", "nccl.h5"], timeout=300)
check(p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
print(p.stdout)
rows = nccl_table(p.stdout)
sizes = [8 * 4 ** k for k in range(9)]
check([r["size"] for r in rows] == sizes, "sizes %s, want %s" % ([r["size"] for r in rows], sizes))
for r in rows:
    check(r["count"] == r["size"] // 4 and r["type"] == "float" and r["redop"] == "sum" and
          r["root"] == -1, "size, count, type, redop, root: %s" % r)
    for h in ("oop", "ip"):
        c = r[h]
        check(c["time"] is not None and c["time"] > 0, "%s: no %s time" % (r["size"], h))
        check(c["wrong"] == 0, "%s %s: #wrong %s with --check 1" % (r["size"], h, c["wrong"]))
        # printed with 2 decimals while they fit: algbw from the printed time, busbw from algbw
        check(close(c["algbw"], r["size"] / (c["time"] * 1e3), 2),
              "%s %s: algbw %s is not size/time %s" % (r["size"], h, c["algbw"],
                                                       r["size"] / (c["time"] * 1e3)))
        check(close(c["busbw"], c["algbw"] * BUS, 2) or
              close(c["busbw"], r["size"] / (c["time"] * 1e3) * BUS, 2),
              "%s %s: busbw %s is not algbw x 2(n-1)/n" % (r["size"], h, c["busbw"]))
check("# Out of bounds values : 0 OK" in p.stdout, "no out-of-bounds line")
check("# Avg bus bandwidth" in p.stdout, "no average busbw line")
for want in ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong"):
    check(any(l.startswith("#") and want in l.split() for l in p.stdout.splitlines()),
          "no '%s' heading" % want)

# the result file: both instances, the in-place one marked; the table's time is osu_avg_us
with h5py.File("nccl.h5", "r") as f:
    ks = f["runs/run_0000/kernels"]
    names = sorted(ks)
    check(len(names) == 2, "kernels in the file: %s" % names)
    for i, name in enumerate(names):
        g = ks[name]
        variant = g.attrs.get("variant", b"")
        variant = variant.decode() if isinstance(variant, bytes) else str(variant)
        check(g.attrs["kernel"] in (b"allreduce", "allreduce"), "kernel %s" % name)
        check(variant == ("--inplace on" if i else ""), "%s: variant %r" % (name, variant))
        osu = g["table"]["osu_avg_us"][()]
        got = [r["ip" if i else "oop"]["time"] for r in rows]
        check(len(osu) == len(got) and all(close(a, b, 2) or within(a, b, 1e-3) for a, b in
                                           zip(got, osu)),
              "%s: table times %s, file osu_avg_us %s" % (name, got, list(osu)))

# the other collectives with an MPI_IN_PLACE form: both variants validated, both column groups
# filled, the in-place instances marked in the file (bcast has none: its in-place group is N/A)
IPK = ["reduce", "reduce_scatter", "allgather", "alltoall"]
p = mpirun(NP, [exe, "run", ",".join(IPK + ["bcast"]), "--inplace", "both", "--validate", "-m",
                "8,1000", "-i", "20", "--format", "nccl-tests", "--output", "inplace.h5"],
           timeout=300)
check(p.returncode == 0, "--inplace both: exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
tables, name = {}, None  # each kernel's lines, under its '# NAME: N ranks' line
for line in p.stdout.splitlines():
    m = re.match(r"# (\w+): %d ranks" % NP, line)
    if m:
        name = m.group(1)
        tables[name] = []
    elif name and not line.startswith("#"):
        tables[name] += nccl_table(line)
check(sorted(tables) == sorted(IPK + ["bcast"]), "kernels in the table: %s" % sorted(tables))
for name, rows in tables.items():
    check(len(rows) == 2, "%s: %d lines" % (name, len(rows)))
    for r in rows:
        check(r["oop"]["wrong"] == 0, "%s %s: out of place #wrong %s" % (name, r["size"],
                                                                        r["oop"]["wrong"]))
        if name == "bcast":
            check(r["ip"]["time"] is None and r["ip"]["wrong"] is None, "bcast in place: %s" % r)
        else:
            check(r["ip"]["time"] is not None and r["ip"]["time"] > 0 and r["ip"]["wrong"] == 0,
                  "%s %s: in place %s" % (name, r["size"], r["ip"]))
with h5py.File("inplace.h5", "r") as f:
    ks = f["runs/run_0000/kernels"]
    seen = []
    for name in sorted(ks):
        g = ks[name]
        kern = g.attrs["kernel"]
        kern = kern.decode() if isinstance(kern, bytes) else str(kern)
        variant = g.attrs.get("variant", b"")
        variant = variant.decode() if isinstance(variant, bytes) else str(variant)
        t = g["table"]
        check(len(t["bytes"][()]) == 2 and all(e == 0 for e in t["validation_errors"][()]),
              "%s: bytes %s, validation_errors %s" % (name, list(t["bytes"][()]),
                                                      list(t["validation_errors"][()])))
        seen.append((kern, variant == "--inplace on"))
    want = [(k, ip) for k in IPK for ip in (False, True)] + [("bcast", False)]
    check(seen == want, "instances in the file: %s, want %s" % (seen, want))

# the JSON document in nccl-tests' keys
p = mpirun(NP, [exe, "run", "allreduce", "-b", "1K", "-e", "4K", "-f", "2", "--format",
                "nccl-json", "-n", "50", "--output", "none"], timeout=300)
check(p.returncode == 0, "json: exit %d\n%s" % (p.returncode, p.stderr))
doc = json.loads(p.stdout)
check(set(doc) >= {"version", "config", "results", "out_of_bounds", "average_bus_bandwidth"},
      "json keys: %s" % sorted(doc))
check([r["size"] for r in doc["results"]] == [1024, 2048, 4096], "json sizes")
for r in doc["results"]:
    check(set(r) >= {"size", "count", "type", "redop", "root", "out_of_place", "in_place",
                     "actual_iterations", "experiment_name"}, "result keys %s" % sorted(r))
    for h in ("out_of_place", "in_place"):
        check(set(r[h]) == {"time", "alg_bw", "bus_bw", "nwrong"} and r[h]["time"] > 0 and
              within(r[h]["bus_bw"], r[h]["alg_bw"] * BUS, 1e-9) and
              within(r[h]["alg_bw"], r["size"] / (r[h]["time"] * 1e3), 1e-9) and
              r[h]["nwrong"] is None, "%s %s" % (h, r[h]))
    check(r["actual_iterations"] == 50 and r["experiment_name"] == "allreduce", "%s" % r)

# the clashing letters: refused before MPI_Init without --nccl-tests, naming both meanings
p = direct([exe, "run", "allreduce", "-b", "8", "-w", "5"])
check(p.returncode == 2 and "'-w' is ambiguous" in p.stderr and "--window" in p.stderr and
      "--warmup_iters" in p.stderr and "--nccl-tests" in p.stderr, "ambiguous -w: %d %s" %
      (p.returncode, p.stderr))
p = direct([exe, "run", "allreduce", "-o", "prod"])
check(p.returncode == 2 and "'-o' is ambiguous" in p.stderr, "-o prod: %s" % p.stderr)
p = direct([exe, "run", "allreduce", "-d", "fp32"])
check(p.returncode == 2 and "'fp32' is not a type nccl-tests names" in p.stderr and
      "uint64" in p.stderr, "-d fp32: %s" % p.stderr)
# nccl-tests' formats hold collectives: a point-to-point kernel, the congestion kernels and the
# ladder are refused before MPI starts
for kern in ("latency", "congestion", "ladder"):
    p = direct([exe, "run", kern, "--format", "nccl-tests"])
    check(p.returncode == 2 and "is not a collective nccl-tests measures" in p.stderr,
          "%s --format nccl-tests: %d %s" % (kern, p.returncode, p.stderr))
# the JSON document and another output on standard output: refused, not sent to stderr
p = direct([exe, "run", "allreduce", "--format", "nccl-json", "--json", "-"])
check(p.returncode == 2 and "--format nccl-json and --json - both ask for standard output" in
      p.stderr, "nccl-json beside --json -: %d %s" % (p.returncode, p.stderr))
# with it: nccl-tests' meanings (-w warm-up, -o op, -c check), prod validated
p = mpirun(NP, [exe, "run", "allreduce", "--nccl-tests", "-b", "64", "-e", "256", "-f", "4", "-w",
                "2", "-n", "20", "-o", "prod", "-c", "1", "--format", "nccl-tests", "--inplace",
                "off"], timeout=300)
check(p.returncode == 0, "--nccl-tests: exit %d\n%s" % (p.returncode, p.stderr))
rows = nccl_table(p.stdout)
check([r["size"] for r in rows] == [64, 256] and all(r["redop"] == "prod" and
                                                       r["oop"]["wrong"] == 0 and
                                                       r["ip"]["time"] is None for r in rows),
      "--nccl-tests rows: %s" % rows)
