/* The measurement of one kernel over its sizes (measure/runner.c). */
#ifndef FAB_MEASURE_RUNNER_H
#define FAB_MEASURE_RUNNER_H

#include <stdbool.h>

#include "core/opts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "out/sink.h"

/* Run one kernel over its size list; rank 0 hands each row to the sinks as soon as it is
 * measured. *agreed tells whether every rank knows the outcome (else the caller must abort
 * the job). */
fab_status_t fab_run_kernel(const fab_world_t *w, const fab_opts_t *o, const fab_kernel_t *k,
                            fab_sinks_t *sinks, bool *agreed);

#endif
