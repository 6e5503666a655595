# SPDX-License-Identifier: BSD-3-Clause
"""health.sbatch's thresholds judged on a threshold run of known values, without Slurm or MPI.

The threshold run is stubbed: FB_LAUNCH=mpirun with an `mpirun` first on PATH that only runs
its arguments, and FB_BIN a stub `fabricbench` whose `run` writes a CSV of chosen values (the
columns the script reads, as `fabricbench run --csv` names them) and whose `show` says the run
completed. So what is tested is the script's own part, to the digit: the threshold options and
file, and the judging of each threshold, the line rate's above all:

  - bw at its largest size (4M, not the CSV's last row) at 93% of the line rate: PASS at
    --min-line-pct 90 (with the other thresholds passing too), FAIL at min_line_pct=95 from a
    thresholds file (exit 1), and ERROR when the line rate is unknown (an empty line_rate_pct:
    exit 3, nothing to judge);
  - min_line_pct of 0, 150 or not a number: a usage error before anything runs (exit 2).

slurm.jobs and slurm.health run the script on a real Slurm (the pairs run, the CSV of a real
threshold run).

usage: test_thresholds.py"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEALTH = os.path.join(SRC, "jobscripts", "health.sbatch")
HEAD = "kernel,bytes,p50_us,MBps,line_rate_pct"
# the threshold run's rows: the largest bw size first, the last row a smaller one
ROWS = ["latency,8,2.5,3.2,", "bw,4194304,400.0,11625.0,%s", "bw,8,0.9,100.0,0.8",
        "bw,65536,60.0,8000.0,64.0", "allreduce,8,6.0,1.3,"]

STUB = """#!/bin/sh
# a stub fabricbench: `run ... -o OUT --csv CSV` copies $FAKE_CSV to CSV; `show` says complete
if [ "$1" = show ]; then echo "# status: complete"; exit 0; fi
out="" csv=""
while [ $# -gt 0 ]; do
    case $1 in -o) out=$2; shift ;; --csv) csv=$2; shift ;; esac
    shift
done
: >"$out"
cp "$FAKE_CSV" "$csv"
"""


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def setup(work):
    bindir = os.path.join(work, "bin")
    os.mkdir(bindir)
    for name, text in (("fabricbench", STUB), ("mpirun", '#!/bin/sh\nexec "$@"\n')):
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return bindir


def health(work, bindir, line_pct, args):
    csv = os.path.join(work, "known.csv")
    with open(csv, "w") as f:
        f.write("\n".join([HEAD] + [r.replace("%s", line_pct) for r in ROWS]) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "FB_"))}
    env.update({"PATH": bindir + ":" + env.get("PATH", "/usr/bin:/bin"), "FAKE_CSV": csv,
                "FB_BIN": os.path.join(bindir, "fabricbench"), "FB_LAUNCH": "mpirun",
                "FB_PAIRS": "none", "FB_OUTDIR": os.path.join(work, "out")})
    p = subprocess.run(["bash", HEALTH] + args, capture_output=True, text=True, timeout=60,
                       env=env, cwd=work)
    return p.returncode, p.stdout + p.stderr


def main():
    work = tempfile.mkdtemp(prefix="fb-thresholds-")
    try:
        bindir = setup(work)
        rc, out = health(work, bindir, "93.0", ["--min-line-pct", "90", "--max-latency-us", "3",
                                                 "--min-bw-MBps", "11000"])
        check(rc == 0 and re.search(r"^health: check bw_line_rate_pct@4M = 93 >= 90 \(min\): "
                                    r"PASS$", out, re.M) and
              re.search(r"^health: check bw_peak_MBps = 11625 >= 11000 \(min\): PASS$", out,
                        re.M) and re.search(r"^health: PASS \(3 checks; ", out, re.M),
              "--min-line-pct 90 at 93%%: exit %d\n%s" % (rc, out))
        print("ok --min-line-pct 90: bw at 4M, 93% of the line rate: PASS", flush=True)

        conf = os.path.join(work, "strict.conf")
        with open(conf, "w") as f:
            f.write("# healthy is 95%% here\nmin_line_pct = 95\n")
        rc, out = health(work, bindir, "93.0", ["--thresholds", conf])
        check(rc == 1 and re.search(r"^health: check bw_line_rate_pct@4M = 93 >= 95 \(min\): "
                                    r"FAIL$", out, re.M) and
              re.search(r"^health: FAIL \(1 of 1 checks; ", out, re.M),
              "min_line_pct=95 at 93%%: exit %d\n%s" % (rc, out))
        print("ok min_line_pct=95 (thresholds file) at 93%: FAIL, exit 1", flush=True)

        rc, out = health(work, bindir, "", ["--min-line-pct", "90"])
        check(rc == 3 and re.search(r"^health: check bw_line_rate_pct@4M: line rate unknown "
                                    r"\(give it: -- --line-rate RATE, .*\): ERROR$", out, re.M)
              and re.search(r"^health: ERROR \(1 of 1 checks; ", out, re.M),
              "an unknown line rate: exit %d\n%s" % (rc, out))
        print("ok an unknown line rate: ERROR, exit 3 (nothing to judge)", flush=True)

        for bad in ("0", "150", "x"):
            rc, out = health(work, bindir, "93.0", ["--min-line-pct", bad])
            check(rc == 2 and "threshold min_line_pct: '%s' is not " % bad in out and
                  "health: " not in out.replace("health.sbatch", ""),
                  "--min-line-pct %s: exit %d\n%s" % (bad, rc, out))
        print("ok --min-line-pct 0, 150, x: usage errors, exit 2, nothing judged", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
