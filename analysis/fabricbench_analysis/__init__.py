# SPDX-License-Identifier: BSD-3-Clause
"""fabricbench-analyze: summaries, comparisons, plots, reports and baseline checks of
fabricbench result files (docs/ANALYSIS.md).

    from fabricbench_analysis import load
    table = load(["a.h5", "b.h5"])      # one tidy table: run x kernel x size rows
"""
from typing import TYPE_CHECKING, Callable, Optional, Sequence, Union

from .model.errors import AnalysisError

if TYPE_CHECKING:
    from .model.table import Table

__all__ = ["load", "AnalysisError"]
__version__ = "0.1.0"


def load(paths: Sequence[str], run: Union[str, int, None] = "all",
         labels: Optional[Sequence[str]] = None,
         warn: Optional[Callable[[str], None]] = None) -> "Table":
    """Read fabricbench result files into one Table (see loading.load)."""
    from .reading.loading import load as _load  # lazy: importing the package loads no numpy
    return _load(paths, run=run, labels=labels, warn=warn)
