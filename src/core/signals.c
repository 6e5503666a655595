/* SPDX-License-Identifier: BSD-3-Clause */
/* Signals: Slurm sends SIGUSR1 (with --signal) before a time limit and SIGTERM at it, then
 * SIGKILL after KillWait; users press Ctrl-C. Each asks the run to stop after the current
 * iteration block, keep what was measured, mark the run interrupted and exit 4. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "core/signals.h"
#include "core/status.h"

volatile sig_atomic_t fab_stop_flag;
volatile sig_atomic_t fab_stop_signal;
volatile sig_atomic_t fab_signal_wake_fd = -1;

static void fab_on_signal(int sig)
{
    int fd = fab_signal_wake_fd, saved = errno;

    if (fab_stop_flag == FAB_STOP_NONE)
        fab_stop_flag = FAB_STOP_SIGNAL;
    fab_stop_signal = sig;
    if (fd >= 0 && write(fd, "s", 1) < 0) /* async-signal-safe; a full pipe wakes it anyway */
        errno = saved;
    errno = saved;
}

void fab_signals_install(void)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP};
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fab_on_signal;
    sigemptyset(&sa.sa_mask);
    /* A second Ctrl-C (SIGINT) takes the default action: an impatient user is never ignored.
     * Repeats of SIGTERM and SIGUSR1 are absorbed: at a time limit a task under srun gets
     * SIGTERM twice (from its slurmstepd, and from srun, which the time limit also signals and
     * which forwards it), and launchers may pass a warning on more than once. The scheduler's
     * last word is the SIGKILL that follows after KillWait. */
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        sa.sa_flags = SA_RESTART | (sigs[i] == SIGINT ? SA_RESETHAND : 0);
        sigaction(sigs[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
}

void fab_stop_request(int why)
{
    if (why > fab_stop_flag)
        fab_stop_flag = why;
}

fab_status_t fab_stop_status(int why)
{
    return why == FAB_STOP_OUTPUT ? FAB_ERR_IO : FAB_ERR_INTERRUPTED;
}
