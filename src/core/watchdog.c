/* SPDX-License-Identifier: BSD-3-Clause */
/* The watchdog (core/watchdog.h). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/signals.h"
#include "core/watchdog.h"

#define FAB_WATCH_FACTOR  10.0 /* a step may take this many times what is expected */
#define FAB_WATCH_POLL_MS 200  /* how often the thread looks */
#define FAB_WATCH_STOP_S  3.0  /* a stop asked by a signal must be agreed within this */
#define FAB_WATCH_RESUMED 1.0  /* a wait beyond 10 x the step and this is reported */
#define FAB_WATCH_CHAIN   0.25 /* a wait on a partner allows this share of the timeout more */

_Atomic uint64_t fab_watch_ticks;

typedef struct fab_watch {
    pthread_t thread;
    pthread_mutex_t lock; /* guards the fields below */
    bool running, idle;
    double timeout_s;
    char phase[96], kernel[64];
    uint64_t bytes;
    int peer;
    double step_s;
    double stall_max; /* longest resumed wait beyond the step's allowance, s */
    fab_watch_fail_fn fail;
    void *fail_arg;
    const fab_world_t *w;
    int pipe[2]; /* a signal wakes the thread at once */
} fab_watch_t;

static fab_watch_t fab_watch = {.lock = PTHREAD_MUTEX_INITIALIZER, .pipe = {-1, -1}};

static double fab_watch_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *fab_watch_host(const fab_world_t *w, int rank)
{
    return w->hosts && rank >= 0 && rank < w->size ? w->hosts[rank] : "?";
}

/* The stall, said where it was found; the outputs marked; the process ends. */
static void fab_watch_fail(fab_watch_t *d, double waited, double allowed, bool stop_asked)
{
    char reason[768], where[256] = "", peer[160];

    pthread_mutex_lock(&d->lock);
    if (d->kernel[0])
        snprintf(where, sizeof(where), " in kernel '%s' at %llu bytes", d->kernel,
                 (unsigned long long)d->bytes);
    if (d->peer >= 0)
        snprintf(peer, sizeof(peer), "rank %d (%s)", d->peer, fab_watch_host(d->w, d->peer));
    else
        snprintf(peer, sizeof(peer), "the other ranks%s", d->kernel[0] ? " of the kernel" : "");
    if (stop_asked)
        snprintf(reason, sizeof(reason),
                 "a stop was asked (signal %s) %.1f s ago, but %s did not answer%s (%s); "
                 "ended without them",
                 strsignal(fab_stop_signal), waited, peer, where, d->phase);
    else
        snprintf(reason, sizeof(reason),
                 "stalled: no progress for %.1f s (allowed %.1f s: --stall-timeout or 10 x the "
                 "expected step)%s (%s), waiting for %s",
                 waited, allowed, where, d->phase, peer);
    pthread_mutex_unlock(&d->lock);
    FAB_ERROR("%s; ending the job (exit 3): the rows measured before are kept", reason);
    if (!stop_asked)
        fprintf(stderr, "hint: if one step really takes this long here (a huge message on a "
                        "slow link), raise --stall-timeout\n");
    if (d->fail)
        d->fail(d->fail_arg, "failed", reason);
    fflush(stdout);
    fflush(stderr);
    _exit(3);
}

static void *fab_watch_main(void *arg)
{
    fab_watch_t *d = arg;
    uint64_t seen = atomic_load_explicit(&fab_watch_ticks, memory_order_relaxed);
    double since = fab_watch_now(), stop_since = 0, last = since;
    bool marked = false;

    for (;;) {
        struct pollfd p = {.fd = d->pipe[0], .events = POLLIN};
        uint64_t now_ticks;
        double now, waited, allowed, step;
        bool idle;

        if (poll(&p, 1, FAB_WATCH_POLL_MS) > 0) {
            char buf[16];

            if (read(d->pipe[0], buf, sizeof(buf)) <= 0) /* the write end closed: stop */
                return NULL;
        }
        now = fab_watch_now();
        /* This thread itself did not run for a long while: the whole process was stopped
         * (SIGSTOP, a frozen machine), not waiting for a peer. Its wait starts anew. */
        if (now - last > 1.0 + 5 * FAB_WATCH_POLL_MS * 1e-3)
            since = now;
        last = now;
        now_ticks = atomic_load_explicit(&fab_watch_ticks, memory_order_relaxed);
        pthread_mutex_lock(&d->lock);
        idle = d->idle;
        step = d->step_s;
        if (now_ticks != seen) {
            double gap = now - since, allow = FAB_WATCH_FACTOR * step + FAB_WATCH_RESUMED;

            if (!idle && step > 0 && gap > allow && gap - allow > d->stall_max)
                d->stall_max = gap - allow; /* resumed after a long wait: reported */
            seen = now_ticks;
            since = now;
        }
        pthread_mutex_unlock(&d->lock);
        waited = now - since;
        allowed = FAB_WATCH_FACTOR * step > d->timeout_s ? FAB_WATCH_FACTOR * step : d->timeout_s;
        /* A partner (not rank 0, where chains end) may itself wait for a third rank, as a
         * pair's lead handing its row to rank 0: it must be the one to fire and name it. */
        if (d->peer > 0)
            allowed += FAB_WATCH_CHAIN * d->timeout_s;
        /* A signal: rank 0 marks the outputs at once (a job ended from outside may get
         * SIGKILL a second later); the run itself stops at the next block end. */
        if (fab_stop_flag == FAB_STOP_SIGNAL && !marked && d->fail) {
            char reason[192];

            snprintf(reason, sizeof(reason),
                     "signal %s on rank 0; stopping after the current block (if the job ended "
                     "before, its error output says why)",
                     strsignal(fab_stop_signal));
            d->fail(d->fail_arg, "interrupted", reason);
            marked = true;
        }
        if (fab_stop_flag == FAB_STOP_SIGNAL && !idle) {
            if (stop_since == 0)
                stop_since = now;
            if (now - stop_since > FAB_WATCH_STOP_S && waited > FAB_WATCH_STOP_S)
                fab_watch_fail(d, now - stop_since, FAB_WATCH_STOP_S, true);
        }
        if (!idle && waited > allowed)
            fab_watch_fail(d, waited, allowed, false);
    }
}

void fab_watch_start(const fab_world_t *w, double timeout_s)
{
    fab_watch_t *d = &fab_watch;

#ifdef FAB_SIM
    /* Its thread is no simulated rank and its deadlines are real time (core/sim.h). */
    (void)w;
    (void)timeout_s;
    return;
#endif
    if (timeout_s <= 0 || d->running)
        return;
    d->w = w;
    d->timeout_s = timeout_s;
    d->peer = -1;
    snprintf(d->phase, sizeof(d->phase), "setting up");
    if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        FAB_WARN("no watchdog (pipe: %s): a stalled rank would not be noticed", strerror(errno));
        return;
    }
    fab_signal_wake_fd = d->pipe[1];
    if (pthread_create(&d->thread, NULL, fab_watch_main, d) != 0) {
        FAB_WARN("no watchdog (no thread): a stalled rank would not be noticed");
        fab_signal_wake_fd = -1;
        close(d->pipe[0]);
        close(d->pipe[1]);
        return;
    }
    d->running = true;
}

void fab_watch_stop(void)
{
    fab_watch_t *d = &fab_watch;

    if (!d->running)
        return;
    fab_signal_wake_fd = -1;
    close(d->pipe[1]); /* the thread reads end-of-file and returns */
    pthread_join(d->thread, NULL);
    close(d->pipe[0]);
    d->running = false;
}

void fab_watch_on_fail(fab_watch_fail_fn fn, void *arg)
{
    pthread_mutex_lock(&fab_watch.lock);
    fab_watch.fail = fn;
    fab_watch.fail_arg = arg;
    pthread_mutex_unlock(&fab_watch.lock);
}

void fab_watch_phase(const char *phase, const char *kernel, uint64_t bytes, int peer, double step_s)
{
    fab_watch_t *d = &fab_watch;

    fab_watch_tick();
    pthread_mutex_lock(&d->lock);
    snprintf(d->phase, sizeof(d->phase), "%s", phase);
    snprintf(d->kernel, sizeof(d->kernel), "%s", kernel ? kernel : "");
    d->bytes = bytes;
    d->peer = peer;
    d->step_s = step_s;
    d->idle = false;
    pthread_mutex_unlock(&d->lock);
}

void fab_watch_idle(const char *phase)
{
    fab_watch_t *d = &fab_watch;

    fab_watch_tick();
    pthread_mutex_lock(&d->lock);
    snprintf(d->phase, sizeof(d->phase), "%s", phase);
    d->idle = true;
    pthread_mutex_unlock(&d->lock);
}

double fab_watch_take_stall(void)
{
    double v;

    pthread_mutex_lock(&fab_watch.lock);
    v = fab_watch.stall_max;
    fab_watch.stall_max = 0;
    pthread_mutex_unlock(&fab_watch.lock);
    return v;
}
