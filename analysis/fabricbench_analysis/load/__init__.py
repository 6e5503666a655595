# SPDX-License-Identifier: BSD-3-Clause
"""Loading: result files (HDF5, JSON Lines) into the model's Table, their run metadata, the pairs
kernels' matrices, the limits on what is read, the output directory. Imports the model only."""
