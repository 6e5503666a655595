/* SPDX-License-Identifier: BSD-3-Clause */
/* A pairs kernel's matrix in the result file (output/h5matrix.c; docs/SCHEMA.md, "matrix"). */
#ifndef FAB_OUTPUT_H5MATRIX_H
#define FAB_OUTPUT_H5MATRIX_H

#include <hdf5.h>

#include "pairs/matrix.h"

/* Write (or rewrite) the group `matrix` of the kernel group kg as m stands. */
herr_t fab_h5_matrix(hid_t kg, const fab_matrix_t *m);

#endif
