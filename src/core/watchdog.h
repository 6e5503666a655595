/* SPDX-License-Identifier: BSD-3-Clause */
/* The watchdog: no rank waits without a bound. A thread of each rank (it makes no MPI call)
 * watches a progress counter the main thread ticks at every step (every iteration, timed or
 * not, an agreement). When it stops moving for longer than the step allows, the rank
 * says what it waited for, the run is marked failed where this rank can write it, and the
 * process ends (exit 3), which ends the job. docs/DEVELOPING.md, "Stalls". */
#ifndef FAB_CORE_WATCHDOG_H
#define FAB_CORE_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/world.h"

/* Ticked by the main thread at every step; read by the watchdog. */
extern _Atomic uint64_t fab_watch_ticks;

/* One writer (the main thread): a plain load and store, no locked instruction. */
static inline void fab_watch_tick(void)
{
    atomic_store_explicit(&fab_watch_ticks,
                          atomic_load_explicit(&fab_watch_ticks, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* What ends the process when a stall (or a stop that cannot be agreed on) is found: status
 * "failed", a one-line reason. Called on the watchdog thread; it may write the outputs (rank
 * 0 registers one that marks them) but must not call MPI. */
typedef void (*fab_watch_fail_fn)(void *arg, const char *status, const char *reason);

/* Start watching (after MPI_Init and fab_world_init): a step may last at most
 * max(timeout_s, 10 x what it is expected to take); 0 turns the watchdog off. */
void fab_watch_start(const fab_world_t *w, double timeout_s);
/* Stop watching (before the process ends). */
void fab_watch_stop(void);
/* On rank 0: what marks the outputs before the process ends (NULL: nothing). */
void fab_watch_on_fail(fab_watch_fail_fn fn, void *arg);
/* What the next steps are: a phase ("a timed block", "warm-up", "agreeing with every rank"),
 * the kernel and size (NULL, 0: none), the rank waited for (-1: all ranks of the kernel), and
 * how long one step should take, in seconds (0: unknown). Ticks too. */
void fab_watch_phase(const char *phase, const char *kernel, uint64_t bytes, int peer,
                     double step_s);
/* Waiting by design (a rank outside a pair kernel, rank 0 waiting for rows): no deadline
 * until the next fab_watch_phase. */
void fab_watch_idle(const char *phase);
/* The longest wait beyond 10 x the expected step seen since the last call (a stall that
 * resumed), in seconds; 0 none. Resets it. */
double fab_watch_take_stall(void);

#endif
