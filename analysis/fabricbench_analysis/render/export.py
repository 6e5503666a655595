# SPDX-License-Identifier: BSD-3-Clause
"""The tidy table as CSV or JSON Lines."""
import csv
import json
import math
from typing import IO, Any, List, Optional, Sequence

from ..model.errors import UsageError
from ..model.table import Table


def _cell_csv(v: Any) -> Any:
    if isinstance(v, float):
        return "" if not math.isfinite(v) else repr(v)
    return v


def _cell_json(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def select_columns(table: Table, columns: Optional[Sequence[str]]) -> List[str]:
    if not columns:
        return list(table.columns)
    unknown = [c for c in columns if c not in table.columns]
    if unknown:
        raise UsageError("no column %s in the table" % ", ".join(unknown),
                         "docs/ANALYSIS.md lists the columns; `export --list-columns` too")
    return list(columns)


def write_csv(table: Table, out: IO[str], columns: Optional[Sequence[str]] = None) -> None:
    """One header line, then one line per row; a value that is not a number is empty; floats
    with repr() (shortest text that reads back as the same double)."""
    cols = select_columns(table, columns)
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for r in table.rows:
        w.writerow([_cell_csv(r[c]) for c in cols])


def write_jsonl(table: Table, out: IO[str], columns: Optional[Sequence[str]] = None) -> None:
    """One JSON object per row; NaN is null."""
    cols = select_columns(table, columns)
    for r in table.rows:
        out.write(json.dumps({c: _cell_json(r[c]) for c in cols}, allow_nan=False) + "\n")
