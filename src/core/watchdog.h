/* SPDX-License-Identifier: BSD-3-Clause */
/* The watchdog: no rank waits without a bound, from main's first instruction to the
 * process's exit. One thread of each rank (it makes no MPI call) guards three parts:
 * - start-up (armed first thing in main, before MPI_Init): it must reach fab_watch_start
 *   within --startup-timeout, else the rank says which phase it was in and ends (exit 3);
 * - the run: the main thread ticks a progress counter at every step (every iteration, timed
 *   or not, an agreement); when it stops moving for longer than the step allows, the rank asks
 *   the ranks it waits for over a side channel (core/peers.h) and names the one that does not
 *   answer, the run is marked failed where this rank can write it, and the process ends (exit
 *   3), which ends the job;
 * - the end (MPI_Finalize and what follows it): --startup-timeout again.
 * docs/DEVELOPING.md, "Stalls". */
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

/* What the main thread waits in below the harness's step, named in a stall's message (a UCP
 * request: "ucp_tag_recv_nbx"); NULL none. One writer, a plain store: cheap in timed loops. */
extern _Atomic(const char *) fab_watch_in;
static inline void fab_watch_within(const char *what)
{
    atomic_store_explicit(&fab_watch_in, what, memory_order_relaxed);
}

/* What ends the process when a stall (or a stop that cannot be agreed on) is found: status
 * "failed", a one-line reason. Called on the watchdog thread; it may write the outputs (rank
 * 0 registers one that marks them) but must not call MPI. */
typedef void (*fab_watch_fail_fn)(void *arg, const char *status, const char *reason);

/* The start-up guard, armed first thing in main with the default and again once the options
 * are parsed: start-up must reach fab_watch_start within startup_s of the first arming (0:
 * no bound). rank: this process's rank from the launcher's environment (-1 unknown). */
void fab_watch_arm(int rank, double startup_s);
/* The start-up phase this rank enters: a short key ("parse", "fabric", "init", "world", the
 * names FABRICBENCH_TEST_STOP_AT takes) and what it is, for the message. */
void fab_watch_startup(const char *key, const char *phase);
/* The hand-over from start-up to the run (collective over MPI_COMM_WORLD, after
 * fab_world_init): the side channel is set up, then a step may last at most max(timeout_s,
 * 10 x what it is expected to take: the phase's step, or its pace, fab_watch_pace); 0 turns
 * the run's deadline off. Rank 0 says a wait that lasts long before it counts as a stall (a
 * progress line, what it is in; not when quiet). */
void fab_watch_start(const fab_world_t *w, double timeout_s, bool quiet);
/* The end: from here to the process's exit, --startup-timeout again ("finalize" before
 * MPI_Finalize, "exit" after it). The thread lives until the process ends. */
void fab_watch_end(const char *key, const char *phase);
/* On rank 0: what marks the outputs before the process ends (NULL: nothing). */
void fab_watch_on_fail(fab_watch_fail_fn fn, void *arg);
/* What the next steps are: a phase ("a timed block", "warm-up", "agreeing with every rank"),
 * the kernel and size (NULL, 0: none), the rank waited for (-1: all ranks of the kernel), and
 * how long one step should take, in seconds (0: unknown). Ticks too. */
void fab_watch_phase(const char *phase, const char *kernel, uint64_t bytes, int peer,
                     double step_s);
/* Within the current phase, ticks come every tick_s seconds (a timed block's iterations,
 * each ticking): the wait for the next one may last max(timeout_s, 10 x tick_s), not 10 x the
 * phase's whole step (a block of a 20 s stream would allow 200 s to a stopped peer). 0 goes
 * back to the step (a block's end, where a rank may wait for the slowest); fab_watch_phase
 * resets it. */
void fab_watch_pace(double tick_s);
/* Waiting by design (a rank outside a pair kernel, rank 0 waiting for rows): no deadline
 * until the next fab_watch_phase. */
void fab_watch_idle(const char *phase);
/* The longest wait beyond 10 x the expected step seen since the last call (a stall that
 * resumed), in seconds; 0 none. Resets it. */
double fab_watch_take_stall(void);

#endif
