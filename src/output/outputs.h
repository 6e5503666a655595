/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a run's outputs go (output/outputs.c): a machine output may take standard output (`-`),
 * one at a time, and the text table then moves to stderr (or, with -q, nowhere), so that
 * every line on stdout belongs to that output. */
#ifndef FAB_OUTPUT_OUTPUTS_H
#define FAB_OUTPUT_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/launchopts.h"
#include "core/outopts.h"
#include "core/status.h"

/* Whether an output's path means standard output. */
bool fab_output_is_stdout(const char *path);
/* The command line's outputs, before MPI_Init (every rank alike): at most one of --json,
 * --csv, --json-doc, --prom may be `-`, and -o cannot be (FAB_ERR_USAGE, exit 2). */
fab_status_t fab_outputs_check(const fab_outopts_t *oopt, char *err, size_t errlen, char *hint,
                               size_t hintlen);
/* The option whose output takes stdout ("--json", ...), or NULL. */
const char *fab_outputs_stdout_taker(const fab_outopts_t *oopt);
/* Where the text table goes: stdout, or stderr when an output takes stdout; NULL (none)
 * then with -q. */
FILE *fab_outputs_table(const fab_launchopts_t *lopt, const fab_outopts_t *oopt);
/* Before MPI_Init: when an output takes stdout, the process's descriptor 1 is moved to
 * stderr, so that nothing else (UCX logs on stdout by default, any library's printf) can
 * reach stdout; the output alone writes to the real one (fab_outputs_stdout). SIGPIPE is
 * ignored then: a reader that goes away is a write error. */
void fab_outputs_prepare(const fab_outopts_t *oopt);
/* The real standard output for the output that took it (NULL when it could not be kept). */
FILE *fab_outputs_stdout(void);

#endif
