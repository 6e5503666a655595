/* SPDX-License-Identifier: BSD-3-Clause */
/* Status strings and exit codes. */
#include "core/status.h"

const char *fab_status_string(fab_status_t st)
{
    switch (st) {
    case FAB_OK:
        return "success";
    case FAB_ERR_USAGE:
        return "usage error";
    case FAB_ERR_CONFIG:
        return "configuration error";
    case FAB_ERR_NOMEM:
        return "out of memory";
    case FAB_ERR_MPI:
        return "MPI error";
    case FAB_ERR_IO:
        return "I/O error";
    case FAB_ERR_VALIDATION:
        return "received data did not validate";
    case FAB_ERR_SUSPECT:
        return "the pairs verdict named a suspect";
    case FAB_ERR_INTERRUPTED:
        return "interrupted";
    case FAB_ERR_INTERNAL:
        return "internal error";
    case FAB_ERR_ENV:
        return "not available on this host";
    }
    return "unknown status";
}

int fab_status_exit_code(fab_status_t st)
{
    switch (st) {
    case FAB_OK:
        return FAB_EXIT_OK;
    case FAB_ERR_VALIDATION:
    case FAB_ERR_SUSPECT:
        return FAB_EXIT_CHECK_FAILED;
    case FAB_ERR_USAGE:
    case FAB_ERR_CONFIG:
        return FAB_EXIT_USAGE;
    case FAB_ERR_INTERRUPTED:
        return FAB_EXIT_INTERRUPTED;
    case FAB_ERR_NOMEM:
    case FAB_ERR_MPI:
    case FAB_ERR_IO:
    case FAB_ERR_INTERNAL:
    case FAB_ERR_ENV:
        break;
    }
    return FAB_EXIT_ENV;
}

const char *fab_status_done(fab_status_t st)
{
    return st == FAB_OK                ? "complete"
           : st == FAB_ERR_VALIDATION  ? "complete, validation failed"
           : st == FAB_ERR_SUSPECT     ? "complete, suspects named"
           : st == FAB_ERR_INTERRUPTED ? "interrupted"
                                       : "failed";
}
