/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators made without libnbc's progress. In Open MPI 4.1, MPI_Comm_split, _split_type,
 * _dup and _create agree on the new context id with a non-blocking allreduce on the parent
 * (libnbc's), and libnbc then registers its progress callback with opal_progress until every
 * communicator that ran a non-blocking collective is freed: MPI_COMM_WORLD never is, so every
 * MPI_Test and MPI_Wait of the run would pay for it (docs/PERFORMANCE.md, "Issue 29").
 * MPI_Comm_create_group agrees through point-to-point messages instead. */
#ifndef FAB_CORE_COMM_H
#define FAB_CORE_COMM_H

#include <mpi.h>
#include <stdbool.h>

#include "core/status.h"

/* MPI_Comm_split's meaning (color MPI_UNDEFINED: MPI_COMM_NULL; ranks ordered by key, then by
 * the parent's rank), made by an MPI_Allgather and MPI_Comm_create_group. Collective over
 * parent. */
fab_status_t fab_comm_split(MPI_Comm parent, int color, int key, MPI_Comm *out);
/* The rank and size of this rank's MPI_COMM_TYPE_SHARED part of parent (ordered by key) and,
 * where leader is not NULL, the parent's rank of that part's first rank, from
 * an MPI_Comm_split_type on a copy of parent made by MPI_Comm_create_group and freed again, so
 * that libnbc's progress is unregistered when this returns. Collective over parent. */
fab_status_t fab_comm_node_rank(MPI_Comm parent, int key, int *rank, int *size, int *leader);
/* A copy of parent made by MPI_Comm_create_group, for a non-blocking collective that must not
 * leave libnbc's progress registered: free it (MPI_Comm_free) when the collective is done. */
fab_status_t fab_comm_scratch(MPI_Comm parent, MPI_Comm *out);
/* FABRICBENCH_TEST_LIBNBC=1 (tests only): whether libnbc's progress callback is registered with
 * opal_progress now (1), is not (0), or this cannot be told (-1: not Open MPI's libnbc). */
int fab_comm_libnbc_registered(void);

#endif
