/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks before anything is measured (measure/check.c). */
#ifndef FAB_MEASURE_CHECK_H
#define FAB_MEASURE_CHECK_H

#include "core/opts.h"
#include "core/status.h"
#include "core/world.h"

/* Check the timer, every kernel's rank needs and the memory the run needs, on every rank,
 * agreeing on the outcome. On failure rank 0 has printed the reason. */
fab_status_t fab_run_check(const fab_world_t *w, const fab_opts_t *o);

#endif
