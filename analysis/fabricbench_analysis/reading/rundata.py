# SPDX-License-Identifier: BSD-3-Clause
"""What a reader (loading.py for HDF5, jsonload.py for JSON) makes of one run of a result file,
before load() turns it into the tidy table's rows: the run's metadata, its kernels, and each
kernel's rows with their per-iteration samples and block medians."""
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from ..model.arrays import Array
from ..model.table import Row

# Where a reader's notes go (an interrupted run, a column it skipped): load()'s note().
Note = Callable[[str], None]


@dataclass
class RowData:
    """One row of a kernel's table (column -> value, the file's columns only) and its vectors
    of times in us: per-iteration samples (HDF5 with --samples) and block medians (adaptive
    rows); None where the file has none."""

    values: Row
    samples: Optional[Array] = None
    blocks: Optional[Array] = None


@dataclass
class KernelData:
    """One kernel of a run: its metadata (tidy kernel column -> value, runmeta.KERNEL_ATTRS and
    kernel_id), its rows, and its columns' units."""

    meta: Dict[str, Any]
    rows: List[RowData] = field(default_factory=list)
    units: Dict[str, str] = field(default_factory=dict)


@dataclass
class RunData:
    """One run of a file: its metadata (tidy run column -> value, runmeta.RUN_ATTRS and what
    finish_run_meta adds) and its kernels, in order."""

    meta: Dict[str, Any]
    kernels: List[KernelData] = field(default_factory=list)
