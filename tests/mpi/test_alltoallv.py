# SPDX-License-Identifier: BSD-3-Clause
"""alltoallv on 4 ranks (oversubscribed): the rows of --spread, --counts and --experts are
present, their imbalance columns equal the matrix's (computed here from the counts file, and
bounded by the generator's definition for --spread and --experts), bytes and busbw as
docs/METRICS.md defines them, --validate checks the data (a test-only switch that damages what
a non-blocking call delivered is caught), every bad counts file is refused with its line, ranks
with different copies of the file refuse to measure, the memory check counts the busiest rank's
buffers, and the options are in --help.

usage: test_alltoallv.py FABRICBENCH"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpirun, parse_tables, within  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
NP = 4


def run(args, rc=0, env=None):
    p = mpirun(NP, [exe, "run", "alltoallv"] + args + ["-o", "none", "-i", "20"], env=env)
    check(p.returncode == rc, "%s: exit %d, want %d\n%s\n%s"
          % (" ".join(args), p.returncode, rc, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def rows(path):
    with open(path) as f:
        recs = [json.loads(line) for line in f]
    return [r for r in recs if r["record"] == "row"]


def check_bw(r, where):
    # algbw = bytes (the busiest rank's) / time; busbw = algbw x (n-1)/n
    check(within(r["algbw_GBps"], r["bytes"] / (r["mean_us"] * 1e-6) / 1e9, 1e-6),
          "algbw: %s %s" % (where, r))
    check(within(r["busbw_GBps"], r["algbw_GBps"] * (NP - 1) / NP, 1e-9), "busbw: " + where)


# --counts: the imbalance and the busiest rank's bytes from the file itself
M = [[0, 10, 20, 30], [5, 0, 5, 5], [1, 1, 1, 1], [100, 0, 0, 0]]
with open("m.txt", "w") as f:
    f.write("# send counts, row = sender\n")
    f.write("".join(" ".join(map(str, row)) + "\n" for row in M))
sent = [sum(row) for row in M]
recv = [sum(M[i][j] for i in range(NP)) for j in range(NP)]
mean = sum(sent) / NP
for dtype, esz in (("int32", 4), ("float64", 8)):
    p = run(["--counts", "m.txt", "--dtype", dtype, "--validate", "--json", "c.jsonl"])
    (r,) = rows("c.jsonl")
    os.unlink("c.jsonl")
    check(r["bytes"] == max(sent + recv) * esz, "counts bytes: %s" % r)
    check(within(r["recv_imbalance"], max(recv) / mean, 1e-12) and
          within(r["send_imbalance"], max(sent) / mean, 1e-12) and
          within(r["mean_bytes"], mean * esz, 1e-12), "counts imbalance: %s" % r)
    check(r["validation_errors"] == 0, "counts validated: %s" % r)
    check_bw(r, "counts " + dtype)
print("ok --counts: bytes, imbalance per receiver and sender, busbw, validated")

# --spread: every rank sends -m's bytes; the busiest receiver gets F x the mean within one
# element per sender; the text table shows the columns
sizes = [4096, 65536]
p = run(["--spread", "3", "--seed", "5", "-m", ",".join(map(str, sizes)), "--validate",
         "--json", "s.jsonl"])
rs = rows("s.jsonl")
check([r["mean_bytes"] for r in rs] == sizes, "spread sizes: %s" % rs)
for r in rs:
    elems = r["mean_bytes"] / 4
    check(abs(r["recv_imbalance"] - 3.0) <= NP / elems + 1e-9 and r["send_imbalance"] == 1.0,
          "spread imbalance: %s" % r)
    check(within(r["bytes"], r["recv_imbalance"] * r["mean_bytes"], 1e-9), "busiest: %s" % r)
    check(r["validation_errors"] == 0, "spread validated: %s" % r)
    check_bw(r, "spread")
h, ks = parse_tables(p.stdout)
check({"rx_imb", "tx_imb", "busbw_GB/s"} <= set(ks[0]["columns"]) and len(ks[0]["rows"]) == 2,
      "table: %s" % ks[0]["columns"])
check("seed 5" in ks[0]["header"]["alltoallv"], "describe: %s" % ks[0]["header"])
# the same seed gives the same matrix, another seed another popular receiver (same factor)
p = run(["--spread", "3", "--seed", "5", "-m", "4096", "--json", "t.jsonl"])
check(rows("t.jsonl")[0]["bytes"] == rs[0]["bytes"], "same seed, same bytes")
print("ok --spread: factor within rounding, totals, busbw, validated, seeded")

# even counts (--spread 1, -m a multiple of n elements): the row is alltoall's row
p = mpirun(NP, [exe, "run", "alltoall,alltoallv", "-m", "64K", "-o", "none", "-i", "20",
                "--json", "u.jsonl"])
check(p.returncode == 0, p.stderr[-2000:])
a, v = rows("u.jsonl")
check(a["kernel"] == "alltoall" and v["kernel"] == "alltoallv" and a["bytes"] == v["bytes"] ==
      v["mean_bytes"] == 65536 and v["recv_imbalance"] == v["send_imbalance"] == 1.0,
      "even: %s %s" % (a, v))
check_bw(v, "even")
print("ok --spread 1: alltoall's bytes and bus factor")

# --experts: every rank sends tokens x topk x hidden elements; routing is random, so the
# receivers are uneven, the senders even
p = run(["--experts", "16", "--topk", "2", "--tokens", "300", "--hidden", "64", "--dtype",
         "bfloat16", "--spread", "4", "--validate", "--json", "e.jsonl"])
(r,) = rows("e.jsonl")
check(r["mean_bytes"] == 300 * 2 * 64 * 2 and r["send_imbalance"] == 1.0 and
      r["recv_imbalance"] > 1.0 and within(r["bytes"], r["recv_imbalance"] * r["mean_bytes"],
                                           1e-9), "experts: %s" % r)
check(r["validation_errors"] == 0, "experts validated: %s" % r)
check_bw(r, "experts")
print("ok --experts: tokens x topk x hidden per rank, uneven receivers, validated")

# --validate checks the call itself: damage to what the non-blocking call delivered is caught
p = run(["--counts", "m.txt", "--validate", "--nonblocking", "--json", "n.jsonl"], rc=1,
        env={"FABRICBENCH_TEST_NB_CORRUPT": "1"})
check(rows("n.jsonl")[0]["validation_errors"] > 0, "damage not caught")
check("alltoallv" in p.stderr and "element" in p.stderr, p.stderr[-2000:])
print("ok --validate catches damaged data")

# Every bad input refused before measuring (exit 2) with the file, its line and what to do
BAD = [("0 1 2 3\n1 2 3\n", "bad.txt:2: row 2: 3 counts"),
       ("0 1 2 3\n" * 5, "bad.txt:5: too many rows"),
       ("0 1 2 3\n0 1 -2 3\n" + "0 1 2 3\n" * 2, "bad.txt:2: count (column 3): a negative"),
       ("0 1 2 3\n" * 3 + "0 1 2 3e4\n", "bad.txt:4: count (column 4): 'e'"),
       ("0 1 2 3\n" * 3 + "0 1 2 3000000000\n", "bad.txt:4: count 3000000000"),
       ("0 0 0 0\n" * 4, "the matrix moves nothing"),
       ("0 1 2 3\n# only one row\n", "bad.txt:2: too few rows: 1")]
for text, want in BAD:
    with open("bad.txt", "w") as f:
        f.write(text)
    p = run(["--counts", "bad.txt"], rc=2)
    check(want in p.stderr and "hint:" in p.stderr, "refusal %r: %s" % (want, p.stderr[-1500:]))
os.mkdir("dir.txt")
for args, want in ((["--counts", "dir.txt"], "dir.txt:0: not a regular file"),
                   (["--counts", "none.txt"], "none.txt:0: No such file"),
                   (["--counts", "m.txt", "--spread", "2"], "--spread and --experts do not"),
                   (["--spread", "5"], "at most 4"),
                   (["--experts", "4", "--topk", "5"], "top-5 of 4 experts"),
                   (["--experts", "8", "--tokens", "1e6", "--hidden", "1e8"], "MPI count")):
    p = run(args, rc=2)
    check(want in p.stderr, "refusal %s: %s" % (args, p.stderr[-1500:]))
# Ranks that read different counts files (two app contexts, each in its own directory: hosts
# without one shared file system) compare their matrices and refuse to measure
os.mkdir("other")
with open("other/m.txt", "w") as f:
    f.write("".join(" ".join(map(str, row)) + "\n" for row in M[:-1]) + "100 0 0 1\n")
one = [exe, "run", "alltoallv", "--counts", "m.txt", "-o", "none", "-i", "5"]
p = mpirun(NP // 2, one + [":", "-np", str(NP // 2), "-wdir", os.path.abspath("other")] + one)
check(p.returncode == 2 and "the ranks' matrices differ" in p.stderr, "copies: %d %s"
      % (p.returncode, p.stderr[-1500:]))
# The memory check counts the buffers of the busiest rank (8 GB here), not -m's largest size;
# under a 12 GB address-space limit, so that a check that missed it fails to map, not the host
with open("big.txt", "w") as f:
    f.write((" ".join(["500000000"] * NP) + "\n") * NP)
p = mpirun(NP, [exe, "run", "alltoallv", "--counts", "big.txt", "-o", "none", "-i", "5"],
           prefix=["prlimit", "--as=12000000000"])
check(p.returncode == 2 and "needs 16.00 GB of buffers" in p.stderr, "memory: %d %s"
      % (p.returncode, p.stderr[-1500:]))
# The MoE shape's options without --experts would be ignored: refused, naming the option
for opt, val in (("--topk", "4"), ("--tokens", "100"), ("--hidden", "8")):
    p = mpirun(2, [exe, "run", "alltoallv", opt, val, "-o", "none", "-i", "5"])
    check(p.returncode == 2 and "%s shapes the mixture-of-experts routing" % opt in p.stderr and
          "--experts N" in p.stderr, "%s without --experts: %d %s"
          % (opt, p.returncode, p.stderr[-1500:]))
print("ok bad counts files and options refused with their line; the busiest rank's buffers "
      "counted")

h = subprocess.run([exe, "run", "--help"], capture_output=True, text=True, timeout=30)
check(all("--" + o in h.stdout for o in ("spread", "counts", "experts", "topk", "tokens",
                                           "hidden", "seed")), "help: " + h.stdout[-2000:])
print("ok --help lists the options")
