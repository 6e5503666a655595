# SPDX-License-Identifier: BSD-3-Clause
"""The kernel's communicator and the harness leave libnbc's progress unregistered (issue 29).

In Open MPI 4.1 a communicator from MPI_Comm_split (or _split_type, _dup, an MPI_Ibarrier on
MPI_COMM_WORLD) registers libnbc's progress callback with opal_progress for the rest of the run,
and every MPI_Test of the small-message kernels pays for it (docs/PERFORMANCE.md, "Issue 29").
FABRICBENCH_TEST_LIBNBC=1 makes every rank of a kernel say, after each size's measurement,
whether the callback is registered (core/comm.h: opal_progress_unregister finds it or not).
Nothing is timed. 4 ranks (two idle beside the pair kernels: the idle barrier), in order:

- allreduce --nonblocking: registered (its own MPI_Iallreduce; shows that the probe sees it);
- latency, bw, bibw, msgrate after it: not registered (the allreduce's communicator was freed,
  and nothing of the harness registered it again).

A probe that cannot tell (not Open MPI's libnbc) skips the test (exit 77).

usage: test_libnbc.py FABRICBENCH"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, mpirun  # noqa: E402

exe = sys.argv[1]
kernels = ["allreduce", "latency", "bw", "bibw", "msgrate"]
args = [exe, "run", ",".join(kernels), "--nonblocking", "-m", "8", "-i", "200", "-x", "20"]
p = mpirun(4, args, env={"FABRICBENCH_TEST_LIBNBC": "1"})
check(p.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout, p.stderr))
said = {}
for m in re.finditer(r"\[rank (\d+) [^]]*\] warning: test: libnbc's progress after (\w+) at "
                     r"\d+ bytes: (registered|not registered|unknown)", p.stderr):
    said.setdefault(m.group(2), []).append((int(m.group(1)), m.group(3)))
if any(v == "unknown" for lines in said.values() for _, v in lines):
    print("skipped: libnbc's progress callback not found (not Open MPI 4.1's libnbc?)")
    sys.exit(77)
check(sorted(said) == sorted(kernels), "kernels that reported: %s\n%s" % (sorted(said), p.stderr))
check(sorted(r for r, _ in said["allreduce"]) == [0, 1, 2, 3],
      "allreduce's ranks: %s" % said["allreduce"])
check(all(v == "registered" for _, v in said["allreduce"]),
      "allreduce --nonblocking did not register libnbc's progress: the probe sees nothing: %s"
      % said["allreduce"])
for k in kernels[1:]:
    ranks = [0, 1, 2, 3] if k == "msgrate" else [0, 1]
    check(sorted(r for r, _ in said[k]) == ranks, "%s's ranks: %s" % (k, said[k]))
    check(all(v == "not registered" for _, v in said[k]),
          "libnbc's progress registered while %s measured (a kernel communicator from "
          "MPI_Comm_split, or a non-blocking collective in the harness?): %s" % (k, said[k]))
print("ok: %s" % said)
