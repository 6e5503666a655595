# SPDX-License-Identifier: BSD-3-Clause
"""The smallest --budget (0.001 s) said as given: the warning of an overrun ("over its budget
of 0.001 s") and the progress lines print the budget with its significant digits, as the
header's '# budget:' and the end's '# measured:' lines do, not rounded to "0.00 s".

usage: test_budget_small.py FABRICBENCH"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpi_env, mpirun_cmd  # noqa: E402

enter_scratch()
exe = sys.argv[1]

# 1 ms for two sizes of two kernels: the first round alone outlasts it on any machine
cmd = mpirun_cmd(2) + [exe, "run", "latency,bw", "-m", "8,64K", "--budget", "0.001"]
p = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env(), timeout=240)
check(p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
check(re.search(r"^# budget: 0\.001 s for 4 rows", p.stdout, re.M) is not None,
      "header:\n" + p.stdout)
check(re.search(r"^# measured: budget 0\.001 s, took", p.stdout, re.M) is not None,
      "end line:\n" + p.stdout)
warn = re.findall(r"over its budget of ([0-9.e+-]+) s", p.stderr)
check(warn == ["0.001"], "the overrun warning's budget: %s\n%s" % (warn, p.stderr))
for m in re.finditer(r"s of the ([0-9.e+-]+) s budget spent", p.stderr):
    check(float(m.group(1)) > 0, "a progress line's budget: %s" % m.group(0))
print("ok --budget 0.001: the overrun warning says 0.001 s")
