# SPDX-License-Identifier: BSD-3-Clause
"""A check's statuses and their order: PASS < WARN < FAIL. Shared by check.py, linecheck.py and
matrix_check.py, which each add items to one result."""
from typing import Dict, Sequence

ORDER: Dict[str, int] = {"PASS": 0, "WARN": 1, "FAIL": 2}


def worst(statuses: Sequence[str]) -> str:
    """The worst of `statuses`; PASS when there are none."""
    return max(statuses, key=lambda s: ORDER[s]) if statuses else "PASS"
