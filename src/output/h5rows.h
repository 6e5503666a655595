/* SPDX-License-Identifier: BSD-3-Clause */
/* A result row's vectors in the HDF5 file (output/h5rows.c): its samples (--samples) and the
 * adaptive measurement's block medians, one dataset per row named by its bytes. */
#ifndef FAB_OUTPUT_H5ROWS_H
#define FAB_OUTPUT_H5ROWS_H

#include <hdf5.h>
#include <stddef.h>

#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"

/* samples/<bytes>: the per-iteration times in us (reported time: / time_divisor), with
 * attributes iterations and complete (every timed iteration is there). */
fab_status_t fab_h5_row_samples(hid_t group, const fab_kernel_t *k, const fab_row_t *r,
                                const double *samples, size_t n);
/* blocks/<bytes> in the kernel's group (created at the first): the block medians in us, in
 * round order, with the row's regimes as an attribute. */
fab_status_t fab_h5_row_blocks(hid_t kernel, const fab_row_t *r);

#endif
