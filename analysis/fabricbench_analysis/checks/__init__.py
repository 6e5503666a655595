# SPDX-License-Identifier: BSD-3-Clause
"""Judging: comparisons, baseline and line-rate checks, rules files, pair-by-pair checks. Imports
the model and reading."""
