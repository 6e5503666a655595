# SPDX-License-Identifier: BSD-3-Clause
"""What one command reads at most (docs/ANALYSIS.md, "Bounds"): runs, kernel groups and rows,
all inputs together, so that every command ends in bounded time on any input.

A file is refused (exit 3, one line naming it, the count and the cap) as soon as reading it
would pass a cap: HDF5 runs are counted from /runs before any is read, kernel groups from
each run's /kernels before any is read, rows from a table's first column; JSON records as
they are parsed. The caps can be lowered or raised per command through the environment
(FABRICBENCH_ANALYZE_MAX_RUNS, _MAX_KERNELS, _MAX_ROWS: a whole number from 1 to 10^9,
digits only); raising them lets a command take longer.
"""
import os
import re
from typing import Dict

from ..model.errors import AnalysisError, UsageError

# Defaults: measured so that every command (report, which also draws every plot, is the
# slowest) ends within 30 s at them on a 2-core machine (docs/ANALYSIS.md, "Bounds").
MAX_RUNS = 200  # runs read
MAX_KERNELS = 1000  # kernel groups (kernel instances of runs) read
MAX_ROWS = 20000  # table rows read
MAX_RUN_GROUPS = 100000  # groups under an HDF5 file's /runs listed (to select with --run)

ENV = "FABRICBENCH_ANALYZE_"
_WHOLE = re.compile(r"[1-9][0-9]{0,9}\Z")


def env_cap(name: str, default: int) -> int:
    """FABRICBENCH_ANALYZE_<name> as a whole number from 1 to 10^9, else default; anything
    else in it (a sign, blanks, hex, 0) is a usage error naming it."""
    var = ENV + name
    text = os.environ.get(var)
    if text is None:
        return default
    if not _WHOLE.match(text) or int(text) > 10 ** 9:
        from ..model.hostile import name_text  # lazy: hostile loads numpy; cli parses options first
        raise UsageError("the environment variable %s is '%s'; it is a whole number from 1 to "
                         "1000000000 (digits only)" % (var, name_text(text)),
                         "unset it for the default, %d" % default)
    return int(text)


class Budget:
    """The runs, kernel groups and rows one reading pass (load(), load_matrices()) has read,
    against the caps (read from the environment when the pass starts)."""

    def __init__(self) -> None:
        self.caps: Dict[str, int] = {"runs": env_cap("MAX_RUNS", MAX_RUNS),
                     "kernels": env_cap("MAX_KERNELS", MAX_KERNELS),
                     "rows": env_cap("MAX_ROWS", MAX_ROWS)}
        self.used: Dict[str, int] = {"runs": 0, "kernels": 0, "rows": 0}

    def add(self, what: str, n: int, path: object, where: str = "") -> None:
        """Count n more `what` ('runs', 'kernels', 'rows') read from path (at where); an
        AnalysisError when that passes the cap."""
        self.used[what] += n
        if self.used[what] <= self.caps[what]:
            return
        from ..model.hostile import safe_text  # lazy: hostile loads numpy; cli parses options first
        var = ENV + "MAX_" + what.upper()
        words = {"runs": "runs", "kernels": "kernel groups (kernel instances of runs)",
                 "rows": "table rows"}[what]
        raise AnalysisError(
            "%s%s: reading it would bring the %s read to %d, more than the %d "
            "fabricbench-analyze reads in one command (%s)" % (
                safe_text(str(path)), " (%s)" % where if where else "", words,
                self.used[what], self.caps[what], var),
            "read fewer files or runs at once (--run selects the runs of an HDF5 file), or "
            "raise %s (the command then takes longer)" % var)
