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

#include "core/blame.h"
#include "core/log.h"
#include "core/peers.h"
#include "core/signals.h"
#include "core/testhook.h"
#include "core/watchdog.h"

#define FAB_WATCH_FACTOR   10.0 /* a step may take this many times what is expected */
#define FAB_WATCH_POLL_MS  200  /* how often the thread looks */
#define FAB_WATCH_STOP_S   3.0  /* a stop asked by a signal must be agreed within this */
#define FAB_WATCH_RESUMED  1.0  /* a wait beyond 10 x the step and this is reported */
#define FAB_WATCH_CHAIN    0.25 /* a wait on a partner allows this share of the timeout more */
#define FAB_WATCH_REASON   2048
#define FAB_WATCH_FROZEN_S 30.0 /* a freeze this recent is what a peer asking is told */
/* Rank 0 says a wait this long (or half what a step is allowed, if less; at least twice the
 * step) while it goes on: a slow step is told from a stall before the stall ends the job. */
#define FAB_WATCH_NOTE_S 10.0

enum { FAB_WATCH_STARTING = 0, FAB_WATCH_RUNNING = 1, FAB_WATCH_ENDING = 2 };

_Atomic uint64_t fab_watch_ticks;
_Atomic(const char *) fab_watch_in;

typedef struct fab_watch {
    pthread_t thread;
    pthread_mutex_t lock; /* guards the fields below */
    bool running, idle;
    int mode;
    int rank; /* the launcher's before the hand-over, then the world's */
    char host[FAB_HOST_MAX];
    double t0;                  /* the first arming: start-up's bound counts from here */
    double guard_s;             /* --startup-timeout: start-up's and the end's bound; 0 none */
    double end_t0;              /* the end's start */
    double timeout_s;           /* --stall-timeout */
    bool quiet;                 /* --quiet: no progress lines (the note of a long wait) */
    double noted;               /* the wait (its since) the note was said for */
    double since;               /* the counter's last move, or the thread's return from a freeze */
    double moved;               /* the counter's last move */
    double frozen_s, frozen_at; /* the last time the whole process did not run, and its end */
    char phase[160], kernel[64];
    uint64_t bytes;
    int peer;
    double step_s;
    double tick_s;    /* fab_watch_pace: the expected gap between ticks (0: the step) */
    double stall_max; /* longest resumed wait beyond the step's allowance, s */
    fab_watch_fail_fn fail;
    void *fail_arg;
    const fab_world_t *w;
    fab_peer_ended_t ended; /* rank 0: a rank that ended the job, and why */
    int pipe[2];            /* a signal wakes the thread at once */
} fab_watch_t;

static fab_watch_t fab_watch = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                .pipe = {-1, -1},
                                .rank = -1,
                                .peer = -1,
                                .ended = {.from = -1}};

static double fab_watch_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *fab_watch_host(const fab_world_t *w, int rank)
{
    return w && w->hosts && rank >= 0 && rank < w->size ? w->hosts[rank] : "?";
}

static void fab_watch_exit(void)
{
    fflush(stdout);
    fflush(stderr);
    _exit(3);
}

/* What this rank says of itself on the side channel. Called with the lock held. */
static void fab_watch_me(const fab_watch_t *d, double now, fab_peer_state_t *me)
{
    const char *in;

    memset(me, 0, sizeof(*me));
    me->mode = d->mode;
    me->idle = d->idle;
    me->waits_for = d->mode == FAB_WATCH_RUNNING ? d->peer : -1;
    me->stuck_s = now - d->moved;
    me->frozen_s = now - d->frozen_at < FAB_WATCH_FROZEN_S ? d->frozen_s : 0;
    me->bytes = d->bytes;
    in = atomic_load_explicit(&fab_watch_in, memory_order_relaxed);
    snprintf(me->phase, sizeof(me->phase), "%s", d->phase);
    if (in) { /* a wait below the step (fab_watch_within) */
        size_t n = strlen(me->phase);

        snprintf(me->phase + n, sizeof(me->phase) - n, ", waiting in %s", in);
    }
    snprintf(me->kernel, sizeof(me->kernel), "%s", d->kernel);
}

/* This rank's state now, where it waits (" in kernel 'K' at N bytes", or "") and for whom. */
static void fab_watch_where(fab_watch_t *d, fab_peer_state_t *me, char *where, size_t wn,
                            char *peer, size_t pn)
{
    pthread_mutex_lock(&d->lock);
    fab_watch_me(d, fab_watch_now(), me);
    if (d->kernel[0])
        snprintf(where, wn, " in kernel '%s' at %llu bytes", d->kernel,
                 (unsigned long long)d->bytes);
    if (d->peer >= 0)
        snprintf(peer, pn, "rank %d (%s)", d->peer, fab_watch_host(d->w, d->peer));
    else
        snprintf(peer, pn, "the other ranks%s", d->kernel[0] ? " of the kernel" : "");
    pthread_mutex_unlock(&d->lock);
}

/* The stall, said where it was found, with what the ranks waited for answered; the outputs
 * marked; rank 0 told; the process ends. */
static void fab_watch_fail(fab_watch_t *d, double waited, double allowed, bool stop_asked)
{
    char reason[FAB_WATCH_REASON], where[256] = "", peer[160], blame[1536] = "";
    fab_peer_state_t me;

    fab_watch_where(d, &me, where, sizeof(where), peer, sizeof(peer));
    /* Who it is, asked without MPI (a second or a few; the thread answers others meanwhile). */
    fab_blame(d->w, &me, waited, &d->ended, blame, sizeof(blame));
    if (stop_asked)
        snprintf(reason, sizeof(reason),
                 "a stop was asked (signal %s) %.1f s ago, but %s did not answer%s (%s)%s; "
                 "ended without them",
                 strsignal(fab_stop_signal), waited, peer, where, me.phase, blame);
    else
        snprintf(reason, sizeof(reason),
                 "stalled: no progress for %.1f s (allowed %.1f s: --stall-timeout or 10 x the "
                 "expected step)%s (%s), waiting for %s%s",
                 waited, allowed, where, me.phase, peer, blame);
    FAB_ERROR("%s; ending the job (exit 3): the rows measured before are kept", reason);
    if (!stop_asked)
        fprintf(stderr, "hint: if one step really takes this long here (a huge message on a "
                        "slow link), raise --stall-timeout\n");
    if (d->rank != 0)
        fab_peers_tell_end(0, reason); /* rank 0's files say why, even if it was stopped */
    if (d->fail)
        d->fail(d->fail_arg, "failed", reason);
    fab_watch_exit();
}

/* Rank 0: the current wait has lasted `waited` s, more than a step should: what it is in and
 * when it counts as a stall, once per wait. */
static void fab_watch_note(fab_watch_t *d, double waited, double allowed)
{
    char where[256] = "", peer[160];
    fab_peer_state_t me;

    fab_watch_where(d, &me, where, sizeof(where), peer, sizeof(peer));
    fab_log_progress("no progress for %.1f s%s (%s): a slow step (a huge message, a busy "
                     "machine) or %s not answering; the job ends at %.1f s without progress "
                     "(--stall-timeout, or 10 x the expected step)",
                     waited, where, me.phase, peer, allowed);
}

/* Start-up or the end took longer than --startup-timeout. */
static void fab_watch_guard_fail(fab_watch_t *d)
{
    char phase[sizeof(d->phase)];
    bool ending;

    pthread_mutex_lock(&d->lock);
    snprintf(phase, sizeof(phase), "%s", d->phase);
    ending = d->mode == FAB_WATCH_ENDING;
    pthread_mutex_unlock(&d->lock);
    if (!d->w) /* before the world is known: the launcher's rank and this host */
        fab_log_init(d->rank, d->host);
    FAB_ERROR("%s did not finish within %.0f s (--startup-timeout): this rank was %s; ending it "
              "(exit 3)%s",
              ending ? "the run's end" : "start-up", d->guard_s, phase,
              ending ? ": the outputs were complete before" : "");
    fprintf(stderr,
            "hint: the other ranks' messages say where they were; if %s this slow is "
            "expected (thousands of nodes, a slow file system), raise --startup-timeout\n",
            ending ? "an end" : "a start-up");
    if (ending && d->rank > 0) {
        char reason[sizeof(phase) + 64];

        snprintf(reason, sizeof(reason), "the run's end did not finish: this rank was %s", phase);
        fab_peers_tell_end(0, reason);
    }
    fab_watch_exit();
}

/* Rank 0: another rank ended the job and said why. Its account goes into the outputs (this
 * rank may have been the stopped one: it runs again when the launcher ends the job). */
static void fab_watch_ended(fab_watch_t *d)
{
    char reason[FAB_WATCH_REASON];
    int from = d->ended.from;

    snprintf(reason, sizeof(reason), "on rank %d (%s): %s", from, fab_watch_host(d->w, from),
             d->ended.text);
    FAB_ERROR("rank %d (%s) ended the job (its message says why); the outputs are marked failed "
              "with its account; ending (exit 3)",
              from, fab_watch_host(d->w, from));
    if (d->fail)
        d->fail(d->fail_arg, "failed", reason);
    fab_watch_exit();
}

/* One look: the run's deadlines (today's watchdog), called with nothing held. */
static void fab_watch_check_run(fab_watch_t *d, double now, double waited, bool *marked,
                                double *stop_since)
{
    double allowed, step, note_at;
    bool idle, noted;
    int peer;

    pthread_mutex_lock(&d->lock);
    idle = d->idle;
    noted = d->quiet || d->rank != 0 || d->noted == d->since;
    step = d->tick_s > 0 ? d->tick_s : d->step_s; /* the next tick's deadline */
    peer = d->peer;
    pthread_mutex_unlock(&d->lock);
    if (d->timeout_s <= 0)
        return;
    allowed = FAB_WATCH_FACTOR * step > d->timeout_s ? FAB_WATCH_FACTOR * step : d->timeout_s;
    /* A partner (not rank 0, where chains end) may itself wait for a third rank, as a
     * pair's lead handing its row to rank 0: it must be the one to fire and name it. */
    if (peer > 0)
        allowed += FAB_WATCH_CHAIN * d->timeout_s;
    note_at = FAB_WATCH_NOTE_S < allowed / 2 ? FAB_WATCH_NOTE_S : allowed / 2;
    if (note_at < 2 * step)
        note_at = 2 * step;
    if (!idle && !noted && waited >= note_at && waited < allowed) {
        pthread_mutex_lock(&d->lock);
        d->noted = d->since;
        pthread_mutex_unlock(&d->lock);
        fab_watch_note(d, waited, allowed);
    }
    /* A signal: rank 0 marks the outputs at once (a job ended from outside may get
     * SIGKILL a second later); the run itself stops at the next block end. */
    if (fab_stop_flag == FAB_STOP_SIGNAL && !*marked && d->fail) {
        char reason[192];

        snprintf(reason, sizeof(reason),
                 "signal %s on rank 0; stopping after the current block (if the job ended "
                 "before, its error output says why)",
                 strsignal(fab_stop_signal));
        d->fail(d->fail_arg, "interrupted", reason);
        *marked = true;
    }
    if (fab_stop_flag == FAB_STOP_SIGNAL && !idle) {
        if (*stop_since == 0)
            *stop_since = now;
        if (now - *stop_since > FAB_WATCH_STOP_S && waited > FAB_WATCH_STOP_S)
            fab_watch_fail(d, now - *stop_since, FAB_WATCH_STOP_S, true);
    }
    if (!idle && waited > allowed)
        fab_watch_fail(d, waited, allowed, false);
}

static void *fab_watch_main(void *arg)
{
    fab_watch_t *d = arg;
    uint64_t seen = atomic_load_explicit(&fab_watch_ticks, memory_order_relaxed);
    double last = fab_watch_now(), stop_since = 0;
    bool marked = false;

    for (;;) {
        struct pollfd p[2] = {{.fd = d->pipe[0], .events = POLLIN},
                              {.fd = fab_peers_fd(), .events = POLLIN}};
        fab_peer_state_t me;
        uint64_t now_ticks;
        double now, gap, waited;
        int mode;

        if (poll(p, p[1].fd >= 0 ? 2 : 1, FAB_WATCH_POLL_MS) > 0 && (p[0].revents & POLLIN)) {
            char buf[16];

            if (read(d->pipe[0], buf, sizeof(buf)) == 0) /* the write end closed: stop */
                return NULL;
        }
        now = fab_watch_now();
        gap = now - last;
        last = now;
        now_ticks = atomic_load_explicit(&fab_watch_ticks, memory_order_relaxed);
        pthread_mutex_lock(&d->lock);
        /* This thread itself did not run for a long while: the whole process was stopped
         * (SIGSTOP, a frozen machine), not waiting for a peer. Its wait starts anew. */
        if (gap > 1.0 + 5 * FAB_WATCH_POLL_MS * 1e-3) {
            d->since = now;
            d->frozen_s = gap;
            d->frozen_at = now;
            d->t0 += gap;
            d->end_t0 += gap;
        }
        if (now_ticks != seen) {
            double wait = now - d->since, allow = FAB_WATCH_FACTOR * d->step_s + FAB_WATCH_RESUMED;

            if (!d->idle && d->step_s > 0 && wait > allow && wait - allow > d->stall_max)
                d->stall_max = wait - allow; /* resumed after a long wait: reported */
            seen = now_ticks;
            d->since = d->moved = now;
        }
        mode = d->mode;
        waited = now - d->since;
        fab_watch_me(d, now, &me);
        pthread_mutex_unlock(&d->lock);
        /* Questions first: a rank that ended the job has told rank 0 why before the launcher's
         * SIGCONT and SIGTERM arrive, so its account, not the signal, is what the files say. */
        fab_peers_serve(&me, &d->ended);
        if (d->ended.from >= 0 && d->rank == 0)
            fab_watch_ended(d);
        if (mode == FAB_WATCH_STARTING && d->guard_s > 0 && now - d->t0 > d->guard_s)
            fab_watch_guard_fail(d);
        else if (mode == FAB_WATCH_ENDING && d->guard_s > 0 && now - d->end_t0 > d->guard_s)
            fab_watch_guard_fail(d);
        else if (mode == FAB_WATCH_RUNNING)
            fab_watch_check_run(d, now, waited, &marked, &stop_since);
    }
}

/* The thread, started once; signals go to the main thread, as they would without it. */
static bool fab_watch_run_thread(fab_watch_t *d)
{
    sigset_t all, old;
    int rc;

    if (d->running)
        return true;
    if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        FAB_WARN("no watchdog (pipe: %s): a stalled rank would not be noticed", strerror(errno));
        return false;
    }
    d->since = d->moved = fab_watch_now();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&d->thread, NULL, fab_watch_main, d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        FAB_WARN("no watchdog (no thread): a stalled rank would not be noticed");
        close(d->pipe[0]);
        close(d->pipe[1]);
        d->pipe[0] = d->pipe[1] = -1;
        return false;
    }
    pthread_detach(d->thread); /* it lives until the process ends: the end is guarded too */
    fab_signal_wake_fd = d->pipe[1];
    d->running = true;
    return true;
}

void fab_watch_arm(int rank, double startup_s)
{
    fab_watch_t *d = &fab_watch;

#ifdef FAB_SIM
    /* Its thread is no simulated rank and its deadlines are real time (core/sim.h). */
    (void)rank;
    (void)startup_s;
    return;
#endif
    pthread_mutex_lock(&d->lock);
    if (d->t0 == 0) {
        d->t0 = fab_watch_now();
        if (gethostname(d->host, sizeof(d->host) - 1) != 0)
            snprintf(d->host, sizeof(d->host), "unknown-host");
        snprintf(d->phase, sizeof(d->phase), "parsing the command line");
    }
    d->rank = rank;
    d->guard_s = startup_s > 0 ? startup_s : 0;
    pthread_mutex_unlock(&d->lock);
    if (startup_s > 0)
        fab_watch_run_thread(d);
}

void fab_watch_startup(const char *key, const char *phase)
{
    fab_watch_t *d = &fab_watch;

    pthread_mutex_lock(&d->lock);
    snprintf(d->phase, sizeof(d->phase), "%s", phase);
    pthread_mutex_unlock(&d->lock);
    fab_test_stop_at(key, d->rank);
    fab_test_fsize(key);
}

void fab_watch_start(const fab_world_t *w, double timeout_s, bool quiet)
{
    fab_watch_t *d = &fab_watch;
    bool on = d->running;

#ifndef FAB_SIM
    if (!on && timeout_s > 0)
        on = fab_watch_run_thread(d);
#endif
    double t = fab_watch_now(), t_main = d->t0;

    /* Collective: every rank takes part, with a socket or without. */
    fab_peers_setup(w, on);
    if (fab_log_get_level() >= FAB_LOG_DEBUG) {
        struct timespec cpu = {0, 0};

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu); /* from exec: the loader, MPI_Init */
        FAB_DEBUG("start-up: main to the watchdog's hand-over took %.1f ms, its side channel "
                  "%.1f ms; CPU since the process started %.1f ms",
                  t_main > 0 ? (fab_watch_now() - t_main) * 1e3 : 0.0, (fab_watch_now() - t) * 1e3,
                  (double)cpu.tv_sec * 1e3 + (double)cpu.tv_nsec * 1e-6);
    }
    pthread_mutex_lock(&d->lock);
    d->w = w;
    d->rank = w->rank;
    d->timeout_s = timeout_s > 0 ? timeout_s : 0;
    d->quiet = quiet;
    d->peer = -1;
    d->kernel[0] = '\0';
    snprintf(d->phase, sizeof(d->phase), "setting up");
    d->since = d->moved = fab_watch_now();
    d->mode = FAB_WATCH_RUNNING; /* the same thread, one lock: no moment unguarded */
    pthread_mutex_unlock(&d->lock);
    fab_watch_tick();
}

void fab_watch_end(const char *key, const char *phase)
{
    fab_watch_t *d = &fab_watch;

    pthread_mutex_lock(&d->lock);
    if (d->mode != FAB_WATCH_ENDING)
        d->end_t0 = fab_watch_now();
    d->mode = FAB_WATCH_ENDING;
    snprintf(d->phase, sizeof(d->phase), "%s", phase);
    d->kernel[0] = '\0';
    d->peer = -1;
    d->idle = false;
    pthread_mutex_unlock(&d->lock);
    fab_watch_tick();
    fab_test_stop_at(key, d->rank);
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
    d->tick_s = 0;
    d->idle = false;
    pthread_mutex_unlock(&d->lock);
}

void fab_watch_pace(double tick_s)
{
    fab_watch_t *d = &fab_watch;

    fab_watch_tick();
    pthread_mutex_lock(&d->lock);
    d->tick_s = tick_s > 0 ? tick_s : 0;
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
