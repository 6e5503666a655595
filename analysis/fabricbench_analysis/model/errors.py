# SPDX-License-Identifier: BSD-3-Clause
"""Errors that end a command with a message (never a traceback) and a documented exit code."""
from typing import Optional

EXIT_OK = 0  # success; check: no FAIL (WARN allowed)
EXIT_FAIL = 1  # check: at least one FAIL
EXIT_USAGE = 2  # bad command line or rules file
EXIT_INPUT = 3  # an input could not be read (not HDF5, damaged, newer schema) or an output written
EXIT_NOTHING_IN_COMMON = 4  # readable inputs, but no kernel and size measured in both
EXIT_INTERNAL = 5  # an unexpected error: a bug of fabricbench-analyze, reported in one line


class AnalysisError(Exception):
    """An error the user can act on: what was wrong, with which file, and what to do."""

    def __init__(self, message: str, hint: Optional[str] = None, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code


class UsageError(AnalysisError):
    def __init__(self, message: str, hint: Optional[str] = None) -> None:
        super().__init__(message, hint, EXIT_USAGE)


class NoRows(AnalysisError):
    """Readable files without a measured row (runs stopped before their first): `plot` still
    draws the pairs matrices such a run may hold."""
