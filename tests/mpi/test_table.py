# SPDX-License-Identifier: BSD-3-Clause
"""The text table (issue 17): the compact default within 100 columns for every kernel, its
columns and significant digits, --wide as the table was, --columns, the nccl-tests columns
count, type, redop in the HDF5 file and the closing avg busbw line, `show` of several files.

Live runs of every kernel (the point-to-point ones, every collective and gradsync on 2 ranks,
the pairs kernels on 4), each printed value compared with the file read by h5py; a golden
compact table (--timer clock -i: the layout fixed, the measured values masked) that does not
depend on the terminal's width.

usage: test_table.py FABRICBENCH GOLDEN_DIR"""
import math
import os
import re
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpirun, parse_tables, text_lines, within  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe, golden = sys.argv[1], sys.argv[2]
COLS = 100
P2P = ["latency", "bw", "bibw", "msgrate"]
COLL = ["allreduce", "reduce_scatter", "allgather", "alltoall", "bcast", "reduce", "barrier",
        "gradsync"]
KIND = dict([(k, "latency") for k in ("latency", "pairs_latency")] +
            [(k, "bandwidth") for k in ("bw", "bibw", "msgrate", "pairs_bw")] +
            [(k, "collective") for k in COLL])
COMPACT = {
    "latency": "bytes lat_us min_us p50_us p99_us p99.9_us max_us ci% errors cpu%",
    "bandwidth": "bytes MB/s Gb/s line% msg/s p50_us p99_us ci% errors cpu%",
    "collective": "bytes time_us count p50_us p99_us algbw_GB/s busbw_GB/s line% ci% errors "
                  "cpu%",
}
# The tables' column headings before the compact table (fabricbench 0.1.0 at 49d8b77): --wide
# prints them exactly, a collective's nccl-tests columns after them.
WIDE = {
    "latency": "#      bytes     lat_us    min_us    p50_us    p90_us    p99_us  p99.9_us "
               "p99.99_us    max_us   mean_us stddev_us   loop_us         MB/s      iters    "
               "warmup    pct     ci% reg errors   cpu%  usr%  sys%   si%",
    "bandwidth": "#      bytes         MB/s      Gb/s  line%        msg/s    pair_MB/s   "
                 "pair_msg/s    min_us    p50_us    p90_us    p99_us  p99.9_us p99.99_us    "
                 "max_us   mean_us stddev_us   loop_us      iters    warmup    pct     ci% reg "
                 "errors   cpu%  usr%  sys%   si%",
    "collective": "#      bytes    time_us    min_us    p50_us    p99_us  p99.9_us p99.99_us    "
                  "max_us stddev_us   loop_us   algbw_GB/s   busbw_GB/s  line%    slowest      "
                  "iters    warmup    pct     ci% reg errors   comm_us  overlap   cpu%  usr%  "
                  "sys%   si%",
}
NCCL = "      count     type redop"
PEERS = "  osu_avg_us imb_tmin_us imb_tmax_us"  # appended after them: the layout before stays
LATE = "       late  late_p50  late_p99"  # then who entered last (rank:share) and its lateness
# printed heading -> the file's column
STORED = {"bytes": "bytes", "lat_us": "loop_us", "min_us": "min_us", "p50_us": "p50_us",
          "p99_us": "p99_us", "p99.9_us": "p999_us", "max_us": "max_us", "MB/s": "MBps",
          "Gb/s": "Gbps", "line%": "line_rate_pct", "msg/s": "msgps", "time_us": "mean_us",
          "count": "count", "algbw_GB/s": "algbw_GBps", "busbw_GB/s": "busbw_GBps",
          "errors": "validation_errors", "cpu%": "cpu_rank_pct", "ci%": "ci_pct",
          "osu_avg_us": "osu_avg_us", "imb_tmin_us": "imb_tmin_us", "imb_tmax_us": "imb_tmax_us",
          "late_p50": "late_p50_us", "late_p99": "late_p99_us"}


def run(np_, args, rcs=(0,), env=None):
    p = mpirun(np_, [exe, "run"] + args, env=env)
    check(p.returncode in rcs, "%s: exit %d\n%s\n%s" % (" ".join(args), p.returncode,
                                                      p.stdout[-3000:], p.stderr[-3000:]))
    return p


def show(*args, rc=0):
    s = subprocess.run([exe, "show"] + list(args), capture_output=True, text=True, timeout=60)
    check(s.returncode == rc, "show %s: exit %d, want %d\n%s" % (" ".join(args), s.returncode,
                                                                 rc, s.stderr))
    return s


def tables(path, run_name="run_0000"):
    """{kernel: {column: array or list of str}} of one run, read by h5py."""
    out = {}
    with h5py.File(path, "r") as f:
        for g in f["runs/%s/kernels" % run_name].values():
            t = g["table"]
            out[g.attrs["kernel"]] = {
                c: list(t[c].asstr()[()]) if t[c].dtype.kind == "O" else t[c][()]
                for c in t.attrs["columns"].split(",")}
    return out


def fits(stdout, what):
    """Every line of the output within 100 characters, but those that quote what the user gave
    (the command line, the result file's path: never wrapped, so that they can be copied)."""
    for line in stdout.splitlines():
        if line.startswith(("# command: ", "# results: ", "# file: ")):
            continue
        check(len(line) <= COLS, "%s: a line of %d characters:\n%s" % (what, len(line), line))


def sig_digits(text):
    """The significant digits a printed number shows (1.500e-06: 4; 0.01234: 4; 21186: 5)."""
    mant = text.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    return len(mant)


def shown_rel(line, v):
    """The relative precision a ( )-cell of an INVALID row printed v with: half a unit of its
    last significant digit over the value (5e-3 where the cell is not found)."""
    for cell in re.findall(r"\(([-+0-9.eE]+)\)", line):
        try:
            if float(cell) != v:
                continue
        except ValueError:
            continue
        mant = cell.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
        mant = mant or "1"
        return 0.5 * 10 ** (1 - len(mant)) / int(mant[0]) + 1e-9
    return 5e-3


def same_as_file(k, cols, where):
    """Each printed cell of kernel section k equals the file's value: a number shows at least
    4 significant digits (output/table.h), so it is within 0.05% of the stored one."""
    n = 0
    for i, r in enumerate(k["rows"]):
        # an INVALID row (quality invalid in the file) and no other shows its numbers in ( )
        # and INVALID for its ci%; a disturbed one a ! after its ci%
        q = cols["quality"][i]
        shown = any(STORED.get(h) in ("loop_us", "p50_us", "mean_us", "MBps") for h in r)
        check(k["invalid"][i] == (q == "invalid" and shown),
              "%s row %d: quality %s, printed %s" % (where, i, q, k["lines"][i + 1]))
        if "ci%" in r:
            check((r["ci%"] == "INVALID") == (q == "invalid") and
                  str(r["ci%"]).endswith("!") == (q == "disturbed"),
                  "%s row %d: quality %s, ci%% printed %s" % (where, i, q, r["ci%"]))
        for head, v in r.items():
            col = STORED.get(head)
            if col is None:
                continue
            want = cols[col][i]
            if isinstance(v, str):  # -, n/a, 1.25*, 0.30*r2
                if v in ("-", "n/a"):
                    check(math.isnan(want) or (col in ("validation_errors", "count") and
                                               want == -1),
                          "%s %s row %d: printed %s, stored %r" % (where, head, i, v, want))
                elif head == "ci%" and v == "INVALID":
                    pass  # checked above against the quality column
                elif head == "ci%" and re.fullmatch(r">999\*?(r\d)?!?", v):
                    check(want >= 999.5, "%s ci%% row %d: printed %s, stored %r" %
                          (where, i, v, want))
                elif head == "ci%" and re.fullmatch(r"-\*(r\d)?!?", v):
                    # no interval (below 6 samples), the target missed
                    check(math.isnan(want) and cols["target_met"][i] == 0,
                          "%s ci%% row %d: printed %s, stored %r" % (where, i, v, want))
                else:
                    m = re.fullmatch(r"([0-9.]+)(\*?)(r(\d))?!?", v)
                    check(head == "ci%" and m and within(float(m.group(1)), want, 0.01, 0.006),
                          "%s %s row %d: printed %s, stored %r" % (where, head, i, v, want))
                n += 1
                continue
            if head in ("line%", "cpu%"):
                check(abs(v - want) <= 0.05 + 1e-9, "%s %s row %d: %s vs %r" % (where, head, i,
                                                                              v, want))
            elif head == "ci%":
                # 2 decimals below 10%, 1 below 100%, none above (output/table.c fab_text_ci)
                half = 0.005 if want < 9.995 else 0.05 if want < 99.95 else 0.5
                check(abs(v - want) <= half + 1e-9, "%s ci%% row %d: %s vs %r" % (where, i, v,
                                                                                 want))
            else:
                # an INVALID row's ( ) may leave room for fewer digits (output/table.c): the
                # tolerance is half a unit of the last digit the row printed for this value
                check(within(v, float(want), shown_rel(k["lines"][i + 1], v)
                             if k["invalid"][i] else 1e-3),
                      "%s %s row %d: printed %r, stored %r" % (where, head, i, v, want))
            n += 1
    return n


def text_cells(stdout):
    """The printed text of every number cell of the tables (for the significant digits)."""
    cells = []
    for k in parse_tables(stdout)[1]:
        for line in k["lines"][1:]:
            for head, tok in zip(k["columns"], line.split()):
                if tok.startswith("("):
                    continue  # an INVALID row's numbers: fewer digits where ( ) needs room
                if head not in ("bytes", "count", "errors", "line%", "cpu%", "ci%", "msg/s") \
                        and re.fullmatch(r"[0-9.e+-]+", tok) and tok != "-":
                    cells.append((k["name"], head, tok))
    return cells


# ---------------------------------------------------------------- every kernel, compact
SIZES = "1,8,1K,1M"
p = run(2, [",".join(P2P + COLL), "-m", SIZES, "--params", "300000", "--budget", "2",
            "-o", "all.h5"])
fits(p.stdout, "default run")
h, ks = parse_tables(p.stdout)
check([k["name"] for k in ks] == P2P + COLL, "kernels %s" % [k["name"] for k in ks])
stored = tables("all.h5")
compared = 0
for k in ks:
    kind = KIND[k["name"]]
    check(k["columns"] == COMPACT[kind].split(), "%s: compact columns %s" % (k["name"],
                                                                           k["columns"]))
    compared += same_as_file(k, stored[k["name"]], k["name"])
    # the nccl-tests closing line: the mean busbw of the rows printed, from the file
    avg = k["header"].get("avg busbw")
    bus = [b for b in stored[k["name"]]["busbw_GBps"] if math.isfinite(b)]
    if k["name"] == "barrier" or kind != "collective":
        check(avg is None, "%s: an avg busbw line: %s" % (k["name"], avg))
        continue
    m = re.match(r"([0-9.e+-]+) GB/s \(the mean over the (\d+) sizes? above", avg or "")
    check(m and int(m.group(2)) == len(bus) == len(k["rows"]) and
          within(float(m.group(1)), float(np.mean(bus))),
          "%s: avg busbw %r, rows' mean %r" % (k["name"], avg, np.mean(bus)))
# small values in significant digits, never 0.000: every number cell shows 4 digits or more
for kname, head, tok in text_cells(p.stdout):
    check(sig_digits(tok) >= 4 or float(tok) == 0, "%s %s printed %s" % (kname, head, tok))
small = [r["busbw_GB/s"] for k in ks if k["name"] == "allreduce" for r in k["rows"]][0]
check(isinstance(small, float) and 0 < small < 0.1, "8 B allreduce busbw printed %r" % small)
# show prints the same tables, and each kernel's whole policy (wrapped, not cut)
s = show("all.h5")
fits(s.stdout, "show of the default run")
shown = parse_tables(s.stdout)[1]
check([k["lines"] for k in shown] == [k["lines"] for k in ks], "show's tables differ")
with h5py.File("all.h5", "r") as f:
    policies = [g.attrs["iteration_policy"] for g in f["runs/run_0000/kernels"].values()]
check([k["header"]["iterations"] for k in shown] == policies and len(policies[0]) > 200,
      "show's policy lines: %s" % [k["header"]["iterations"] for k in shown][:1])
print("ok every kernel's compact table within %d columns; %d values equal the file; avg busbw "
      "lines the rows' mean; small values in 4 significant digits" % (COLS, compared))

# the nccl-tests columns in the file, read by h5py: elements, type and reduction by name
for kname, t in stored.items():
    n = len(t["bytes"])
    if kname in P2P:
        check(list(t["count"]) == [-1] * n and t["type"] == [""] * n and t["redop"] == [""] * n,
              "%s: count %s type %s redop %s" % (kname, t["count"], t["type"], t["redop"]))
    elif kname == "barrier":
        check(list(t["count"]) == [0] and t["type"] == ["none"] and t["redop"] == ["none"],
              "barrier: %s %s %s" % (t["count"], t["type"], t["redop"]))
    else:
        red = "sum" if kname in ("allreduce", "reduce_scatter", "reduce", "gradsync") else "none"
        check(list(t["count"]) == [b // 4 for b in t["bytes"]] and t["type"] == ["float"] * n
              and t["redop"] == [red] * n, "%s: bytes %s count %s type %s redop %s" %
              (kname, t["bytes"], t["count"], t["type"], t["redop"]))
with h5py.File("all.h5", "r") as f:
    t = f["runs/run_0000/kernels/04_allreduce/table"]
    check(t["count"].attrs["units"] == "elements" and t["type"].attrs["units"] == "name" and
          h5py.check_string_dtype(t["redop"].dtype) is not None, "units, string types")
p16 = run(2, ["allreduce,bcast", "-m", "64", "-i", "20", "--dtype", "float16", "--op", "max",
              "-o", "f16.h5", "--wide"])
t16 = tables("f16.h5")
check(t16["allreduce"]["type"] == ["half"] and t16["allreduce"]["redop"] == ["max"] and
      t16["bcast"]["redop"] == ["none"] and list(t16["allreduce"]["count"]) == [32],
      "float16: %s" % t16)
_, k16 = parse_tables(p16.stdout)
check([(r["count"], r["type"], r["redop"]) for k in k16 for r in k["rows"]] ==
      [(32, "half", "max"), (32, "half", "none")], "wide nccl-tests cells: %s" % k16)
check("(nccl-tests: type half, redop max)" in p16.stdout, "dtype line: " + p16.stdout[-2000:])
print("ok count, type, redop in the file (h5py) and the wide table")

# the pairs kernels: their table, the verdict and the matrix within 100 columns
p = run(4, ["pairs_latency,pairs_bw", "--pairs-per", "rank", "-o", "pairs.h5"], rcs=(0, 1))
fits(p.stdout, "pairs run")
_, kp = parse_tables(p.stdout)
check([k["columns"] for k in kp] == [COMPACT["latency"].split(), COMPACT["bandwidth"].split()]
      and "# matrix: " in p.stdout and "# verdict: " in p.stdout, "pairs:\n" + p.stdout)
pt = tables("pairs.h5")
for k in kp:
    same_as_file(k, pt[k["name"]], k["name"])
s = show("pairs.h5", rc=0)
fits(s.stdout, "show of the pairs run")
print("ok pairs kernels: table, verdict and matrix within %d columns" % COLS)

# ---------------------------------------------------------------- --wide: the table as it was
p = run(2, ["latency,bw,allreduce", "-m", "8,64K", "-i", "30", "-o", "wide.h5", "--wide"])
_, kw = parse_tables(p.stdout)
for k in kw:
    want = WIDE[KIND[k["name"]]] + (NCCL + PEERS + LATE if KIND[k["name"]] == "collective"
                                     else "")
    check(k["lines"][0] == want, "%s --wide heading:\n%s\nwant:\n%s" % (k["name"], k["lines"][0],
                                                                       want))
wt = tables("wide.h5")
for k in kw:  # the peers' times among them
    same_as_file(k, wt[k["name"]], k["name"] + " --wide")
s = show("--wide", "wide.h5")
check([k["lines"] for k in parse_tables(s.stdout)[1]] == [k["lines"] for k in kw],
      "show --wide differs from the live --wide table")
s = show("wide.h5")
c = run(2, ["latency,bw,allreduce", "-m", "8,64K", "-i", "30", "-o", "none"])
check([k["columns"] for k in parse_tables(s.stdout)[1]] ==
      [k["columns"] for k in parse_tables(c.stdout)[1]] ==
      [COMPACT[KIND[k]].split() for k in ("latency", "bw", "allreduce")],
      "show without --wide: the compact table")
print("ok --wide: the columns and headings of before (nccl-tests', then the peers' last); show "
      "--wide the same")

# ---------------------------------------------------------------- --columns
want = ["p99_us", "bytes", "type", "busbw_GBps", "loop_us"]
p = run(2, ["latency,allreduce", "-m", "8,4K", "-i", "30", "-o", "cols.h5", "--columns",
            ",".join(want)])
_, kc = parse_tables(p.stdout)
ct = tables("cols.h5")
for k in kc:
    check(k["columns"] == want, "%s --columns: %s" % (k["name"], k["columns"]))
    for i, r in enumerate(k["rows"]):
        t = ct[k["name"]]
        check(r["bytes"] == t["bytes"][i] and within(r["loop_us"], t["loop_us"][i]) and
              r["type"] == (t["type"][i] or "-") and
              (r["busbw_GBps"] == "-" if k["name"] == "latency" else
               within(r["busbw_GBps"], t["busbw_GBps"][i])), "%s row %d: %s" % (k["name"], i, r))
s = show("--columns", ",".join(want), "cols.h5")
check([k["lines"] for k in parse_tables(s.stdout)[1]] == [k["lines"] for k in kc],
      "show --columns differs from the live table")
s = subprocess.run([exe, "show", "cols.h5"], capture_output=True, text=True,
                   env=dict(os.environ, FABRICBENCH_COLUMNS="bytes,p50_us"))
check(s.returncode == 0 and all(k["columns"] == ["bytes", "p50_us"]
                                for k in parse_tables(s.stdout)[1]), "FABRICBENCH_COLUMNS")
# the table's headings name the files' columns too (time_us is mean_us, p99.9_us p999_us):
# headed as given, the same values, in run and show
heads = ["bytes", "time_us", "p99.9_us", "ci%", "lat_us"]
p = run(2, ["latency,allreduce", "-m", "8,4K", "-i", "30", "-o", "heads.h5", "--columns",
            ",".join(heads)])
ht = tables("heads.h5")
for k in parse_tables(p.stdout)[1]:
    check(k["columns"] == heads, "%s --columns by headings: %s" % (k["name"], k["columns"]))
    check(same_as_file(k, ht[k["name"]], k["name"] + " --columns by headings") ==
          5 * len(k["rows"]), "%s: every cell compared" % k["name"])
    check(all(within(r["time_us"], ht[k["name"]]["mean_us"][i]) for i, r in enumerate(k["rows"])),
          "time_us is mean_us")
s = show("--columns", "bytes,time_us,p99.9_us,ci%,lat_us", "heads.h5")
check([k["lines"] for k in parse_tables(s.stdout)[1]] ==
      [k["lines"] for k in parse_tables(p.stdout)[1]], "show --columns by headings differs")
bad = run(2, ["latency", "--columns", "p50_us,p99.5_us"], rcs=(2,))
with h5py.File("cols.h5", "r") as f:
    names = f["runs/run_0000/kernels/00_latency/table"].attrs["columns"].split(",")
hint = [l for l in bad.stderr.splitlines() if l.startswith("hint:")]
check("unknown column 'p99.5_us'" in bad.stderr and len(hint) == 1 and
      hint[0].split(":", 1)[1].split(":", 1)[1].replace(" ", "").split(",") == names,
      "the refusal lists every column of the files:\n%s" % bad.stderr)
check("# kernel" not in bad.stdout, "measured despite a bad --columns")
print("ok --columns picks and orders the files' columns, by their names or the table's headings "
      "(run, show, FABRICBENCH_COLUMNS); an "
      "unknown name refused with the list")

# ---------------------------------------------------------------- golden compact table


def masked(stdout):
    """The '# kernel', '# dtype', '# avg busbw' lines and the tables, in order, the measured
    numbers masked: each number cell as N, right-aligned where it was (bytes, count kept)."""
    table = {}
    for k in parse_tables(stdout)[1]:
        head = k["lines"][0]
        table[head] = head
        ends = [m.end() for m in re.finditer(r"\S+", head)][1:]
        for line in k["lines"][1:]:
            cells = list(re.finditer(r"\S+", line))
            check([m.end() for m in cells] == ends, "%s: a cell not under its heading:\n%s\n%s"
                  % (k["name"], head, line))
            row = [" "] * len(line)
            for col, m in zip(k["columns"], cells):
                tok = m.group()
                # a measured number, also as the quality marks print it: (1.234) for an
                # INVALID row, 0.35! for a disturbed one
                # and >999 for a wide interval, INVALID in ci%: each what a busy machine gives
                bare = tok.strip("()").rstrip("!")
                if col not in ("bytes", "count") and bare != "-" and \
                        (re.fullmatch(r"[0-9.e+-]+", bare) or
                         (col == "ci%" and re.fullmatch(r">999\*?(r\d)?|INVALID|-\*", bare))):
                    tok = "N"
                row[m.end() - len(tok):m.end()] = tok
            table[line] = "".join(row).rstrip()
    out = []
    for line in text_lines(stdout):
        if line.startswith(("# kernel:", "# dtype:", "# avg busbw:")):
            out.append(re.sub(r"\d+\.\d+(e-\d+)? GB/s", "N GB/s", line))
        elif line in table:
            out.append(table[line])
    return "\n".join(out) + "\n"


outs = {}
for width in ("80", "100"):
    p = run(2, ["latency,bw,allreduce", "-m", "8,1K", "--timer", "clock", "-i", "20", "-x", "2",
                "-o", "none"], env={"COLUMNS": width})
    fits(p.stdout, "golden run")
    outs[width] = masked(p.stdout)
check(outs["80"] == outs["100"], "the table depends on the terminal's width:\n%s\n%s"
      % (outs["80"], outs["100"]))
with open(os.path.join(golden, "compact.expected")) as f:
    expected = f.read()
check(outs["100"] == expected, "the compact table differs from %s:\n%s\n--- expected:\n%s"
      % (os.path.join(golden, "compact.expected"), outs["100"], expected))
print("ok golden compact table, the same at COLUMNS=80 and 100")

# ---------------------------------------------------------------- show: several files
with open("plain.h5", "w") as f:
    f.write("not HDF5\n")
with h5py.File("other.h5", "w") as f:
    f.attrs["schema"] = "someone-else"
alone = [show(x).stdout for x in ("wide.h5", "cols.h5")]
s = show("wide.h5", "missing.h5", "cols.h5", "plain.h5", rc=3)
parts = re.split(r"^# ==> .* <==\n", s.stdout, flags=re.M)
seps = re.findall(r"^# ==> (.*) <==$", s.stdout, re.M)
check(seps == ["wide.h5 (file 1 of 4)", "missing.h5 (file 2 of 4)", "cols.h5 (file 3 of 4)",
               "plain.h5 (file 4 of 4)"], "separators: %s" % seps)
check(parts[1] == alone[0] + "#\n" and parts[2] == "#\n" and parts[3] == alone[1] + "#\n" and
      parts[4] == "", "each file's runs as show prints them alone:\n%s" % s.stdout)
err = [l for l in s.stderr.splitlines() if l.strip()]
check(len(err) == 2 and "missing.h5" in err[0] and "plain.h5" in err[1],
      "one error line per bad file: %s" % err)
s = show("other.h5", "wide.h5", "missing.h5", rc=2)  # the first failed file's code
check(s.stdout.count("# kernel: ") == 3 and "not a fabricbench result file" in s.stderr,
      "show other.h5 wide.h5 missing.h5: %s" % s.stderr)
s = show("wide.h5")
check("==>" not in s.stdout, "a separator for one file")
print("ok show of several files: separators, every good file shown, one line per bad file, "
      "the first failure's exit code")
print("PASS table")
