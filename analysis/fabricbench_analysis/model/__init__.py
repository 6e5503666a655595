# SPDX-License-Identifier: BSD-3-Clause
"""The model: the table of rows (runs x kernels x sizes), the schema, row quality, noise, groups of
repeated runs, and the bounds every input is held to. Imports nothing of the other subpackages."""
