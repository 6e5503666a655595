/* SPDX-License-Identifier: BSD-3-Clause */
/* The failure path of FAB_MPI: name the call and MPI's reason. */
#include "core/mpi_call.h"

#include "core/log.h"

fab_status_t fab_mpi_fail(int mpi_rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string(mpi_rc, msg, &len);
    FAB_ERROR("%s failed: %s", what, msg);
    return FAB_ERR_MPI;
}
