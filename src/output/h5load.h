/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 library, loaded when the first HDF5 call is made (output/h5load.c): a run that writes
 * no HDF5 file, and every rank but rank 0, never loads it nor its ~35 dependencies. */
#ifndef FAB_OUTPUT_H5LOAD_H
#define FAB_OUTPUT_H5LOAD_H

#include <stdbool.h>

/* Load it now (once; later calls return the first outcome). On failure every HDF5 call
 * returns its error value and the reason was logged once. */
bool fab_h5_load(void);

/* The loaded library's version ("1.10.8"), loading it; "unavailable" when it cannot be. */
const char *fab_h5_version(void);

#endif
