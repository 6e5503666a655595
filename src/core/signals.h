/* SPDX-License-Identifier: BSD-3-Clause */
/* Stopping early: signals (Slurm's SIGUSR1/SIGTERM, Ctrl-C) and failed outputs only set a
 * flag; the ranks agree on it at block ends (docs/DEVELOPING.md, "Stopping early"). */
#ifndef FAB_CORE_SIGNALS_H
#define FAB_CORE_SIGNALS_H

#include <signal.h>

#include "core/status.h"

/* Why the run should stop after the current block: 0 not, else one of these. Set by the
 * signal handlers and by rank 0 when an output fails; ranks agree on it at block ends. */
enum { FAB_STOP_NONE = 0, FAB_STOP_SIGNAL = 1, FAB_STOP_OUTPUT = 2 };
extern volatile sig_atomic_t fab_stop_flag;
extern volatile sig_atomic_t fab_stop_signal;
/* A descriptor the handlers write a byte to, waking the watchdog at once (-1: none). */
extern volatile sig_atomic_t fab_signal_wake_fd;
/* SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP: stop after the current block (a second SIGINT
 * ends the process). SIGXFSZ ignored, so a file-size limit is a write error, not a crash.
 * SIGQUIT keeps its default: it ends the process at once (README, "Signals"). */
void fab_signals_install(void);
void fab_stop_request(int why);
/* The status a stop maps to: FAB_ERR_INTERRUPTED or FAB_ERR_IO. */
fab_status_t fab_stop_status(int why);

#endif
