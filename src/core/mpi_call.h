/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI calls that report their own failure: FAB_MPI(MPI_Send(...)) is FAB_OK, or FAB_ERR_MPI
 * after logging which call failed and why. MPI_ERRORS_RETURN must be set on the
 * communicator (cli/main.c does, on MPI_COMM_WORLD). */
#ifndef FAB_CORE_MPI_CALL_H
#define FAB_CORE_MPI_CALL_H

#include <mpi.h>

#include "core/status.h"

/* Log "<what> failed: <MPI's error string>" and return FAB_ERR_MPI. */
fab_status_t fab_mpi_fail(int mpi_rc, const char *what);
/* Inline: it runs in every timed iteration; only a failure leaves the fast path. */
static inline fab_status_t fab_mpi_check(int mpi_rc, const char *what)
{
    return mpi_rc == MPI_SUCCESS ? FAB_OK : fab_mpi_fail(mpi_rc, what);
}
#define FAB_MPI(call) fab_mpi_check((call), #call)

#endif
