# SPDX-License-Identifier: BSD-3-Clause
"""Never write through a link (docs/DEVELOPING.md, "Outputs: claimed, checked, never shared").

Each output option (-o, --csv, --json, --json-doc, --prom), on a tiny run (latency, 8 B, 10
iterations), against what someone else may plant in a shared directory: a symbolic link to a
file in another directory (which must stay as it is), a dangling link (whose target must not
appear), a link at the lock file `.NAME.lock`, a FIFO there (refused at once, no hang), a file
with a second hard link under --append, links at the old predictable temporary names
`.NAME.tmp-PID` of the running rank 0 (planted while it writes), and --force, which replaces a
link by a new file. Refusals exit 2 and name the file and what to do; nothing is ever created
or changed through a link.

usage: test_links.py FABRICBENCH"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpi_env, mpirun, mpirun_cmd, rank_pids  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
OPTS = ("-o", "--csv", "--json", "--json-doc", "--prom")
TINY = ["latency", "-m", "8", "-i", "10"]
os.makedirs("elsewhere")
PRECIOUS = os.path.abspath("elsewhere/precious")
MISSING = os.path.abspath("elsewhere/missing")
with open(PRECIOUS, "w") as f:
    f.write("must stay\n")


def name(opt):
    return "r.prom" if opt == "--prom" else "r.out"


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def run(args, timeout=60):
    """A tiny run whose outputs are args (-o none unless args give -o)."""
    out = [] if "-o" in args else ["-o", "none"]
    return mpirun(2, [exe, "run"] + TINY + out + args, timeout=timeout)


def untouched(what):
    with open(PRECIOUS) as f:
        body = f.read()
    check(body == "must stay\n", "%s: the link's target was written: %r" % (what, body[:200]))
    check(not os.path.lexists(MISSING), "%s: a dangling link's target was created" % what)


def errline(p):
    return "\n".join(l for l in p.stderr.splitlines() if "error" in l or l.startswith("hint"))


def refused(p, what, *words):
    check(p.returncode == 2, "%s: exit %d, not 2\n%s" % (what, p.returncode, p.stderr[-2000:]))
    text = errline(p)
    for w in words:
        check(w in text, "%s: the message lacks %r:\n%s" % (what, w, text))


# ---------------------------------------------------------------- the output itself a link
cases = 0
for opt in OPTS[:-1]:  # --prom: below (a snapshot, replaced as an existing textfile is)
    for target, kind in ((PRECIOUS, "link"), (MISSING, "dangling link")):
        d = fresh("o")
        path = os.path.join(d, name(opt))
        os.symlink(target, path)
        what = "%s onto a %s" % (opt, kind)
        refused(run([opt, path]), what, path, "symbolic link", "never writes through",
                "--force")
        check(os.path.islink(path) and os.readlink(path) == target, "%s: link changed" % what)
        untouched(what)
        cases += 1
d = fresh("o")
path = os.path.join(d, "r.out")
os.symlink(PRECIOUS, path)
refused(run(["--csv", path, "--append"]), "--csv --append onto a link", path, "symbolic link",
        "--append does not follow a link")
untouched("--csv --append onto a link")
print("ok -o, --csv, --json, --json-doc onto a link or a dangling link, --append onto a link: "
      "refused (exit 2, the file and what to do named), the targets untouched")

# --force replaces each link by a new file, --prom without it; the targets stay (one run)
d = fresh("o")
args = []
for i, opt in enumerate(OPTS):
    path = os.path.join(d, ("f%d." % i) + name(opt))
    target = MISSING if i % 2 else os.path.abspath("elsewhere/f%d" % i)
    if target != MISSING:
        shutil.copy(PRECIOUS, target)
    os.symlink(target, path)
    args += [opt, path]
p = run(args + ["--force"])
check(p.returncode == 0, "--force onto links: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
for i in range(0, len(args), 2):
    check(not os.path.islink(args[i + 1]) and os.path.getsize(args[i + 1]) > 0,
          "--force: %s %s is not a new file" % (args[i], args[i + 1]))
for i in range(0, len(OPTS), 2):
    with open("elsewhere/f%d" % i) as f:
        check(f.read() == "must stay\n", "--force: elsewhere/f%d was written" % i)
untouched("--force onto links")
check(not [n for n in os.listdir(d) if ".tmp-" in n or n.endswith(".lock")],
      "--force: temporary or lock files left: %s" % os.listdir(d))
d = fresh("o")
os.symlink(PRECIOUS, os.path.join(d, "p.prom"))
p = run(["--prom", os.path.join(d, "p.prom")])
check(p.returncode == 0 and not os.path.islink(os.path.join(d, "p.prom")),
      "--prom onto a link: exit %d, not replaced\n%s" % (p.returncode, p.stderr[-2000:]))
untouched("--prom onto a link")
cases += 2
print("ok --force replaces a link (and a dangling one) by a new file for every output, --prom "
      "without it; the targets untouched")

# ---------------------------------------------------------------- the lock file planted
for opt in OPTS:
    d = fresh("o")
    path = os.path.join(d, name(opt))
    lock = os.path.join(d, "." + name(opt) + ".lock")
    os.symlink(MISSING, lock)
    what = "%s with a link at its lock file" % opt
    refused(run([opt, path]), what, lock, "lock file", "symbolic link", "rm " + lock)
    check(not os.path.lexists(path), "%s: the output was written" % what)
    untouched(what)
    cases += 1
d = fresh("o")
os.mkfifo(os.path.join(d, ".r.out.lock"))
refused(run(["-o", os.path.join(d, "r.out")], timeout=30), "a FIFO at the lock file",
        "lock file", "not a regular file")
os.link(PRECIOUS, os.path.join(d, ".r.csv.lock"))
refused(run(["--csv", os.path.join(d, "r.csv")]), "a hard-linked lock file", "lock file",
        "hard link")
untouched("a hard-linked lock file")
cases += 2
print("ok a lock file planted as a link (dangling) beside every output, a FIFO or a hard "
      "link: refused at once (exit 2, the lock named, rm suggested), nothing created through it")

# --append to a file with a second hard link writes into no other name
d = fresh("o")
path = os.path.join(d, "r.csv")
os.link(PRECIOUS, path)
refused(run(["--csv", path, "--append"]), "--csv --append to a hard-linked file", path,
        "hard link")
untouched("--csv --append to a hard-linked file")
cases += 1
print("ok --append to a file with another hard link: refused, the other name untouched")

# ---------------------------------------------------------------- temporaries
# The temporary files (-o, --json-doc, --prom rewrite their file) were .NAME.tmp-PID: plant
# links at rank 0's names while it writes (a run of about 2 s, committing again and again).
# Nothing may be written through them, and no temporary may be left.
d = fresh("t")
outs = {"-o": "t.h5", "--json-doc": "t.json", "--prom": "t.prom"}
cmd = (mpirun_cmd(2) +
       [exe, "run", "latency", "-m", "8:64K", "-t", "0.1", "--csv", os.path.join(d, "t.csv")] +
       [x for o, n in outs.items() for x in (o, os.path.join(d, n))])
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        env=mpi_env())
planted, deadline = [], time.time() + 20
while not planted and time.time() < deadline and proc.poll() is None:
    pids = rank_pids(exe, os.path.join(d, "t.h5"))
    if pids:
        for n in outs.values():
            for i, target in enumerate((PRECIOUS, MISSING)):
                link = os.path.join(d, ".%s.tmp-%d" % (n, pids[0] + i))
                os.symlink(target, link)
                planted.append(link)
    time.sleep(0.01)
out, err = proc.communicate(timeout=120)
check(proc.returncode == 0, "temporaries run: exit %d\n%s" % (proc.returncode, err[-2000:]))
check(planted, "rank 0 was not found while it ran")
untouched("links at the temporary names")
check(all(os.path.islink(x) for x in planted), "a planted temporary link was replaced")
left = [n for n in os.listdir(d) if (".tmp-" in n and os.path.join(d, n) not in planted) or
        n.endswith(".lock")]
check(not left, "temporary or lock files left: %s" % left)
print("ok %d links planted at the temporary names of the running rank 0: nothing written "
      "through them, no temporary left" % len(planted))
print("ok %d cases" % cases)
