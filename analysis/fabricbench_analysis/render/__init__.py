# SPDX-License-Identifier: BSD-3-Clause
"""Output: summary, export, matrix text, plots, the HTML report, the knee. Imports the model,
reading and checks."""
