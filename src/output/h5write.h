/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 attributes and string datasets for the result file (output/h5write.c). */
#ifndef FAB_OUTPUT_H5WRITE_H
#define FAB_OUTPUT_H5WRITE_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "output/columns.h"

/* A string attribute (replaced when it exists), UTF-8. */
herr_t fab_h5_attr_str(hid_t obj, const char *name, const char *value);
/* A scalar number attribute of HDF5 type `type` (replaced when it exists). */
herr_t fab_h5_attr_num(hid_t obj, const char *name, hid_t type, const void *value);
herr_t fab_h5_attr_i64(hid_t obj, const char *name, int64_t v);
herr_t fab_h5_attr_f64(hid_t obj, const char *name, double v);
/* A 1-D dataset of n strings, UTF-8 (one per rank: hosts can outgrow an attribute's 64 KiB). */
herr_t fab_h5_strings(hid_t parent, const char *name, char *const *v, hsize_t n);
/* A group `name` with one string attribute per "NAME=value" string. */
void fab_h5_env(hid_t run, const char *name, char *const *kv, int n);
/* Whether an attribute holds one value (reading an array into one would overrun it). */
bool fab_h5_one_value(hid_t attr);
/* A variable-length UTF-8 string type (the caller closes it): string attributes, datasets and
 * the table's text columns. */
hid_t fab_h5_str_type(void);
/* The file type of a table column of type t (FAB_COL_*; the caller closes it). */
hid_t fab_h5_col_type(fab_col_type_t t);
/* Append v (fab_column_value's) to the column `name` of type t, at index `at`. */
herr_t fab_h5_append_value(hid_t table, const char *name, fab_col_type_t t, hsize_t at,
                           const fab_value_t *v);
/* Write one element at index `at` of the extendible 1-D dataset `name`, growing it to at + 1. */
herr_t fab_h5_append(hid_t table, const char *name, hid_t type, hsize_t at, const void *value);
/* The length of the 1-D dataset `name` in `parent`; 0 when it cannot be read. */
hsize_t fab_h5_length(hid_t parent, const char *name);

/* The group `name` in parent, created when missing; < 0 on error. The caller closes it. */
hid_t fab_h5_group(hid_t parent, const char *name);
/* A 1-D dataset `name` of n doubles (us) with a "units" attribute "us"; compress: chunked,
 * shuffled and deflated. Returns the open dataset (the caller closes it), < 0 on error. */
hid_t fab_h5_vector(hid_t parent, const char *name, const double *v, size_t n, bool compress);

#endif
