# SPDX-License-Identifier: BSD-3-Clause
"""The numpy array types the analysis passes around, for the type checker: a column, a row's
samples or block medians, a pairs matrix."""
from typing import Any

import numpy as np
import numpy.typing as npt

# Any numpy array (a column of integers or floats; a matrix).
Array = npt.NDArray[Any]
# An array of float64 (times in us, samples, block medians).
FloatArray = npt.NDArray[np.float64]
