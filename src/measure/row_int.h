/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of measure/row.h share beyond its callers: the fabric counters' notes
 * (measure/row_fabric.c), added and said by the row notes of measure/row.c. */
#ifndef FAB_MEASURE_ROW_INT_H
#define FAB_MEASURE_ROW_INT_H

#include <mpi.h>

struct fab_row_notes;
struct fab_row;
struct fab_kernel;
void fab_row_notes_fabric(struct fab_row_notes *n, const struct fab_kernel *k,
                          const struct fab_row *r);
void fab_row_notes_fabric_report(const struct fab_row_notes *n, const struct fab_kernel *k);
/* The world rank of rank r of comm. */
int fab_comm_world_rank(MPI_Comm comm, int r);

#endif
