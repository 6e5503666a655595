/* SPDX-License-Identifier: BSD-3-Clause */
/* Claiming an output's file (output/claim.c), before the output writes anything. */
#ifndef FAB_OUTPUT_CLAIM_H
#define FAB_OUTPUT_CLAIM_H

#include <stdbool.h>

#include "core/file.h"
#include "core/outopts.h"
#include "core/status.h"

/* Before an output writes anything (its constructor): claim its file (core/file.h) and
 * refuse, with FAB_ERR_USAGE (exit 2) and a message naming `what` ("results file") and what to
 * do, a path that is not a regular file, a symbolic link (but under --force, which replaces
 * the link; never under --append), one another run is writing, a lock file that is not one of
 * ours (a link, a FIFO, a hard link), and an existing file without --append or --force.
 * taken (non-NULL, automatic names): for a name that is in use say nothing, set *taken and
 * return FAB_ERR_USAGE, so the caller tries another. */
fab_status_t fab_output_claim(const char *path, const char *what, const fab_outopts_t *oopt,
                              bool *taken, fab_claim_t *c);

#endif
