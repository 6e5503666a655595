/* SPDX-License-Identifier: BSD-3-Clause */
/* What a stalled rank says about the ranks it waited for (core/blame.c): asked over the
 * watchdog's side channel (core/peers.h), so that every stall names a rank and its host. */
#ifndef FAB_CORE_BLAME_H
#define FAB_CORE_BLAME_H

#include <stddef.h>

#include "core/peers.h"
#include "core/world.h"

/* On the watchdog thread, once this rank's deadline passed: ask the ranks it may wait for (me
 * ->waits_for, or every other rank when it waits for all of them) and write what they said
 * into out, as text that follows "waiting for rank R (HOST)" or "waiting for the other ranks":
 * ", which did not answer (stopped, dead or unreachable)", ": rank 2 (host) did not answer
 * (...); 1 other rank waits in the same step", following a chain of waits up to 3 ranks.
 * Empty without a side channel. waited: how long this rank has waited, s. */
void fab_blame(const fab_world_t *w, const fab_peer_state_t *me, double waited,
               fab_peer_ended_t *ended, char *out, size_t len);

#endif
