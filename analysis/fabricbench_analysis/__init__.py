# SPDX-License-Identifier: BSD-3-Clause
"""fabricbench-analyze: summaries, comparisons, plots, reports and baseline checks of
fabricbench result files (docs/ANALYSIS.md).

    from fabricbench_analysis import load
    table = load(["a.h5", "b.h5"])      # one tidy table: run x kernel x size rows
"""
from .errors import AnalysisError

__all__ = ["load", "AnalysisError"]
__version__ = "0.1.0"


def load(paths, run="all", labels=None, warn=None):
    """Read fabricbench result files into one Table (see loading.load)."""
    from .loading import load as _load  # lazy: importing the package loads no numpy
    return _load(paths, run=run, labels=labels, warn=warn)
