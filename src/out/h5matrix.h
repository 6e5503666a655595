/* SPDX-License-Identifier: BSD-3-Clause */
/* A pairs kernel's matrix in the result file (out/h5matrix.c; docs/SCHEMA.md, "matrix"). */
#ifndef FAB_OUT_H5MATRIX_H
#define FAB_OUT_H5MATRIX_H

#include <hdf5.h>

#include "measure/matrix.h"

/* Write (or rewrite) the group `matrix` of the kernel group kg as m stands. */
herr_t fab_h5_matrix(hid_t kg, const fab_matrix_t *m);

#endif
