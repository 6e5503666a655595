# SPDX-License-Identifier: BSD-3-Clause
"""Commands that need no MPI, and the documentation agreeing with the option table.

usage: test_cli.py FABRICBENCH SOURCE_DIR"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe, src = sys.argv[1], sys.argv[2]


def run(*args):
    return subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=30)


# `list` names the kernels of the build: FAB_KERNELS in CMakeLists.txt, in that order, each
# a file in kernels/ with a one-line summary; `run --help` lists the same.
cmake = open(os.path.join(src, "CMakeLists.txt")).read()
m = re.search(r"set\(FAB_KERNELS\s+([^)]*)\)", cmake)
check(m is not None, "CMakeLists.txt has no set(FAB_KERNELS ...)")
built = m.group(1).split()
p = run("list")
check(p.returncode == 0, "list exit %d" % p.returncode)
# the kernels, then (after a blank line) the families: `run FAMILY` runs each of its kernels
kernels_text, _, families_text = p.stdout.partition("\n\n")
listed = [l.split(None, 1) for l in kernels_text.splitlines()]
names = [l[0] for l in listed]
check(names == built, "list: %s, FAB_KERNELS: %s" % (names, built))
# then the layer ladder (`run ladder`, output/ladder.c): its kernels, each a built one
families_text, _, ladder_text = families_text.partition("\n\n")
families = dict(l.split(None, 1) for l in families_text.splitlines()[1:])
ladder = dict(l.split(None, 1) for l in ladder_text.splitlines()[2:])
check(set(ladder.get("ladder", "").split(",")) >= {"latency", "bw", "tcp_rr", "tcp_stream"} and
      set(ladder["ladder"].strip().split(",")) <= set(built), "list: the ladder %r" % ladder)
rma = ["put_lat", "get_lat", "put_bw", "get_bw", "put_bibw", "acc_lat", "get_acc_lat",
       "fop_lat", "cas_lat"]
check(families.get("rma", "").strip() == ",".join(rma),
      "list: the family rma is not the nine one-sided kernels: %r" % families)
check(not set(families) & set(names), "a family named as a kernel: %r" % families)
for name, summary in ((l[0], l[1] if len(l) > 1 else "") for l in listed):
    check(os.path.isfile(os.path.join(src, "kernels", name + ".c")),
          "kernel %s has no file kernels/%s.c" % (name, name))
    check(len(summary.strip()) > 10, "kernel %s has no summary: %r" % (name, summary))

p = run("--version")
check(p.returncode == 0 and re.match(r"fabricbench \d+\.\d+\.\d+ \(git ", p.stdout), p.stdout)

p = run("--help")
check(p.returncode == 0 and "Exit codes" in p.stdout and "usage:" in p.stdout, p.stdout)

p = run("run", "--help")
check(p.returncode == 0, "run --help exit %d" % p.returncode)
kernels_part = p.stdout.split("Options", 1)[0]
for name in names:
    check(re.search(r"^  %s " % re.escape(name), kernels_part, re.M),
          "run --help does not list kernel " + name)
check(re.search(r"^  rma +put_lat,get_lat,", kernels_part, re.M),
      "run --help does not list the family rma")
opts = re.findall(r"^\s+(?:-\w, )?--([a-z-]+)", p.stdout, re.M)
check(len(opts) >= 12, "run --help lists %d options" % len(opts))
for line in p.stdout.splitlines():
    m = re.match(r"^\s+(?:-\w, )?--([a-z-]+)", line)
    if m and m.group(1) != "help":
        check("[default: " in line, "option without a default in --help: " + line)

p = run()
check(p.returncode == 2 and "no command" in p.stderr, "no command: %d %s" % (p.returncode,
                                                                         p.stderr))
p = run("frobnicate")
check(p.returncode == 2 and "unknown command 'frobnicate'" in p.stderr, p.stderr)

# `show --help` is help (exit 0), naming its options, the separator and the exit codes;
# `show` without a file, or with an option it does not take, is a usage error
p = run("show", "--help")
check(p.returncode == 0 and p.stdout.startswith("usage: fabricbench show ") and
      "--wide" in p.stdout and "--columns LIST" in p.stdout and "# ==> FILE" in p.stdout and
      "Exit codes" in p.stdout and p.stderr == "", "show --help: %d %s %s" %
      (p.returncode, p.stdout, p.stderr))
check(run("show", "-h").stdout == p.stdout, "show -h differs from show --help")
for args, says in ((["show"], "needs a result file"), (["show", "--frob", "x.h5"], "'--frob'"),
                   (["show", "--columns", "nope", "x.h5"], "unknown column 'nope'"),
                   (["show", "x.h5", "--columns"], "needs a value")):
    p = run(*args)
    check(p.returncode == 2 and says in p.stderr and "hint:" in p.stderr,
          "%s: exit %d %s" % (args, p.returncode, p.stderr))
check("show [--wide | --columns LIST] FILE.h5..." in run("--help").stdout, "--help: show usage")
# a FIFO or a device given to show is refused at once (HDF5 would wait on the FIFO for good)
os.mkfifo("fifo.h5")
for path, kind in (("fifo.h5", "a FIFO"), ("/dev/null", "a character device")):
    p = run("show", path)
    check(p.returncode == 2 and "%s is %s, not a result file" % (path, kind) in p.stderr,
          "show %s: exit %d %s" % (path, p.returncode, p.stderr))

# The README documents every option --help lists.
readme = open(os.path.join(src, "README.md")).read()
for o in opts:
    check("--" + o in readme, "README.md does not document --" + o)
print("PASS cli: %d kernels listed, %d options documented" % (len(names), len(opts)))
