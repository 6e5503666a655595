# SPDX-License-Identifier: BSD-3-Clause
"""Reading: result files (HDF5, JSON Lines) into the model's Table, their run metadata, the pairs
kernels' matrices, the limits on what is read, the output directory. Imports the model only.
(Not named load: the package's own load() keeps that name.)"""
