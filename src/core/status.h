/* SPDX-License-Identifier: BSD-3-Clause */
/* One status type for the whole tool, and the exit codes it maps to. */
#ifndef FAB_STATUS_H
#define FAB_STATUS_H

typedef enum {
    FAB_OK = 0,
    FAB_ERR_USAGE = -1,       /* bad command line: exit 2 */
    FAB_ERR_CONFIG = -2,      /* run cannot be set up as asked (ranks, memory): exit 2 */
    FAB_ERR_NOMEM = -3,       /* allocation failed: exit 3 */
    FAB_ERR_MPI = -4,         /* an MPI call failed: exit 3 */
    FAB_ERR_IO = -5,          /* reading or writing a file failed: exit 3 */
    FAB_ERR_SUSPECT = -6,     /* measured; the pairs verdict named a suspect node or link: exit 1 */
    FAB_ERR_VALIDATION = -7,  /* measured, but received data was wrong: exit 1 */
    FAB_ERR_INTERRUPTED = -8, /* stopped by a signal, partial results kept: exit 4 */
    FAB_ERR_INTERNAL = -9,    /* a bug: exit 3 */
    FAB_ERR_ENV = -10,        /* this host lacks what was asked (fabric, device, sysfs): exit 3 */
} fab_status_t;

/* Exit codes (documented in --help and README). */
enum {
    FAB_EXIT_OK = 0,
    FAB_EXIT_CHECK_FAILED = 1,
    FAB_EXIT_USAGE = 2,
    FAB_EXIT_ENV = 3,
    FAB_EXIT_INTERRUPTED = 4,
};

/* The status of a run or kernel that ended with st, as the files record it: "complete",
 * "complete, validation failed", "complete, suspects named", "interrupted", "failed". */
const char *fab_status_done(fab_status_t st);
const char *fab_status_string(fab_status_t st);
int fab_status_exit_code(fab_status_t st);

#endif
