/* The HDF5 result file (out/hdf5.c; schema in docs/SCHEMA.md), committed atomically after
 * every row. */
#ifndef FAB_OUT_HDF5_H
#define FAB_OUT_HDF5_H

#include <stdbool.h>

#include "out/sink.h"

/* The HDF5 result file at path as a sink (opened at run_begin). */
fab_status_t fab_out_hdf5_sink(const char *path, bool samples, fab_sink_t *sink);

#endif
