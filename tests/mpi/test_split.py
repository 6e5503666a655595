# SPDX-License-Identifier: BSD-3-Clause
"""--split on a live run of 4 ranks (issue 32, item 3):

- `run allreduce,alltoall --split mod:2 -i 20 -m 8:64`: two groups per size, mod2=0 with
  ranks 0,2 and mod2=1 with 1,3, each size's rows in group order; the HDF5 file has every
  group's rows (group and group_ranks columns, bytes twice each) and the text table a group
  column; busbw is the group's own (2 ranks: busbw = algbw for allreduce);
- `--split div:2`: groups 0,1 and 2,3;
- fabricbench-analyze summary names the slowest group of every kernel and size (a ratio to the
  median group's time of at least 1; never which group: that is the machine's);
- refusals (exit 2, the message naming the part): a value that is no split, K of 0, the
  adaptive policy, a kernel that is not a collective, nccl-tests' formats, and on 4 ranks of one host a split into
  groups of one rank (mod:4) or one group of all (node).

usage: test_split.py FABRICBENCH"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, direct, enter_scratch, h5_kernels, mpirun  # noqa: E402

enter_scratch()
exe = sys.argv[1]
NP = 4
SIZES = [8, 16, 32, 64]


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def groups_of(path, kernel):
    """[(bytes, group, group_ranks)] of a kernel's rows, in file order."""
    _, t = h5_kernels(path)[kernel]
    return [(int(b), text(g), text(m)) for b, g, m in zip(t["bytes"], t["group"],
                                                           t["group_ranks"])]


p = mpirun(NP, [exe, "run", "allreduce,alltoall", "--split", "mod:2", "-i", "20", "-m", "8:64",
                "-o", "split.h5"], timeout=240)
check(p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
print(p.stdout)
want = [(b, g, m) for b in SIZES for g, m in (("mod2=0", "0,2"), ("mod2=1", "1,3"))]
for k in ("allreduce", "alltoall"):
    got = groups_of("split.h5", k)
    check(got == want, "%s: rows %s, want %s" % (k, got, want))
    _, t = h5_kernels("split.h5")[k]
    for c in t:
        check(len(t[c]) == len(want), "%s: column %s has %d rows, want %d"
              % (k, c, len(t[c]), len(want)))
    check(all(x > 0 for x in t["mean_us"]), "%s: a group's row without a time" % k)
_, t = h5_kernels("split.h5")["allreduce"]
for a, b in zip(t["algbw_GBps"], t["busbw_GBps"]):  # 2(n-1)/n with n = 2, the group's size
    check(abs(a - b) <= 1e-9 * max(abs(a), 1e-30), "allreduce busbw %s is not algbw %s" % (b, a))
data = [l.split() for l in p.stdout.splitlines() if l.strip() and not l.startswith("#")
        and l.split()[0].isdigit()]
heads = [l.split() for l in p.stdout.splitlines() if l.startswith("#") and "group" in l.split()
         and l.split()[1] == "bytes"]
check("--split mod:2: every group runs the call at once" in p.stdout.replace("\n#   ", " "),
      "the kernel's header does not say the groups run at once")
check(heads, "no table heading with a group column")
gi = heads[0].index("group") - 1  # '#' is a field of the heading
got = [(int(f[0]), f[gi]) for f in data]
check(got == [(b, g) for b, g, _ in want] * 2, "table rows %s" % got)

ANALYZE = [sys.executable, "-m", "fabricbench_analysis"]
AENV = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..",
                                                "analysis"))
a = subprocess.run(ANALYZE + ["summary", "split.h5"], capture_output=True, text=True, env=AENV,
                   timeout=120)
check(a.returncode == 0, "summary exit %d\n%s" % (a.returncode, a.stderr))
named = re.findall(r"^  \S+ (allreduce|alltoall) (\d+): slowest (mod2=[01]), time x([0-9.]+)",
                   a.stdout, re.M)
check(sorted((k, int(b)) for k, b, _, _ in named) ==
      sorted((k, b) for k in ("allreduce", "alltoall") for b in SIZES),
      "summary's group lines %s\n%s" % (named, a.stdout))
check(all(float(x) >= 1.0 for _, _, _, x in named), "a slowest group faster than the median")

p = mpirun(NP, [exe, "run", "allreduce", "--split", "div:2", "-i", "10", "-m", "8", "-o",
                "div.h5"], timeout=120)
check(p.returncode == 0, "div:2 exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
got = groups_of("div.h5", "allreduce")
check(got == [(8, "div2=0", "0,1"), (8, "div2=1", "2,3")], "div:2 rows %s" % got)

# refusals before MPI_Init: each names the part
for args, words in (
        (["allreduce", "--split", "ring", "-i", "5"], ["'ring' is not a split"]),
        (["allreduce", "--split", "mod:0", "-i", "5"], ["--split"]),
        (["allreduce", "--split", "mod:2"], ["--split needs a fixed policy", "-i"]),
        (["latency", "--split", "mod:2", "-i", "5"], ["kernel 'latency'", "not a collective"]),
        (["cong_lat", "--split", "mod:2", "-i", "5"], ["kernel 'cong_lat'", "splits the ranks"]),
        (["allreduce", "--split", "mod:2", "-i", "5", "--format", "nccl-tests"],
         ["--split: nccl-tests' formats"])):
    p = direct([exe, "run"] + args)
    msg = p.stdout + p.stderr
    check(p.returncode == 2, "%s: exit %d, want 2\n%s" % (args, p.returncode, msg))
    for w in words:
        check(w in msg, "%s: message lacks %r\n%s" % (args, w, msg))
# refusals that need the ranks' hosts: groups of one rank, one group of all (one host)
for split, words in (("mod:4", "has 1 rank"), ("node", "one group of all 4 ranks")):
    p = mpirun(NP, [exe, "run", "allreduce", "--split", split, "-i", "5", "-m", "8"],
               timeout=120)
    msg = p.stdout + p.stderr
    check(p.returncode == 2, "%s: exit %d, want 2\n%s" % (split, p.returncode, msg))
    check(words in msg and "--split" in msg, "%s: message lacks %r\n%s" % (split, words, msg))
print("ok")
