# SPDX-License-Identifier: BSD-3-Clause
"""The result schema as the C side declares it: schema.json, at the top of the package
(beside model/).

Its name and version are the file's own (CMake reads them into fab_schema.h); its columns (name,
unit, type, description), run attributes and kernel attributes (name, type) are made from
fabricbench's tables (output/columns.c, output/runmeta.c, output/kernelmeta.c) by
tests/unit/test_schema.c, which fails while the committed file differs. The analysis takes
names and types from here; what it accepts as a value (ranges, defaults) is its own
(hostile.py, runmeta.py).
"""
import json
import os
from typing import Any, Dict, Tuple

# One column or attribute as schema.json declares it: name, type and, for a column, unit and
# description.
Entry = Dict[str, Any]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(_PACKAGE_DIR, "schema.json"), encoding="utf-8") as _f:
    _SCHEMA: Dict[str, Any] = json.load(_f)

NAME: str = _SCHEMA["name"]
VERSION: int = _SCHEMA["version"]

# The schema's types as the analysis reads values: a column's u64/i64/f64/str, an attribute's
# int/f64/str ("strs", "json" and "env" are read by code of their own).
_KINDS: Dict[str, str] = {"u64": "int", "i64": "int", "f64": "float", "int": "int", "str": "str"}

# column name -> {"name", "unit", "type", "description"}, in the files' order
COLUMNS: Dict[str, Entry] = {c["name"]: c for c in _SCHEMA["columns"]}
RUN_ATTRIBUTES: Dict[str, Entry] = {a["name"]: a for a in _SCHEMA["run_attributes"]}
KERNEL_ATTRIBUTES: Dict[str, Entry] = {a["name"]: a for a in _SCHEMA["kernel_attributes"]}


def kind(entry: Entry) -> str:
    """'int', 'float' or 'str': how a value of a column or attribute entry is read."""
    return _KINDS[entry["type"]]


def column_kind(name: str) -> str:
    """kind() of the column called name (a KeyError for one the schema does not have)."""
    return kind(COLUMNS[name])


def text_columns() -> Tuple[str, ...]:
    """The text columns, in the schema's order."""
    return tuple(n for n, c in COLUMNS.items() if c["type"] == "str")
