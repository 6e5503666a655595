/* SPDX-License-Identifier: BSD-3-Clause */
/* Fan-out of a run's events to every output (text, HDF5, JSON Lines, CSV) on rank 0. The
 * first failing output's status is returned; the others still get the event, so one broken
 * output does not cost the rows the others can still keep. */
#include "core/launchopts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"
#include "net/runinfo.h"
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "measure/sink.h"

/* The outputs are used by the main thread and, when a run cannot end normally, by the
 * watchdog's (fab_sinks_mark): one at a time. */
static pthread_mutex_t fab_sinks_lock = PTHREAD_MUTEX_INITIALIZER;

#define FAB_SINKS_CALL(s, fn, ...)                                                                 \
    do {                                                                                           \
        for (int i_ = 0; i_ < (s)->n; i_++) {                                                      \
            fab_sink_t *k_ = &(s)->s[i_];                                                          \
            fab_status_t r_ = k_->fn ? k_->fn(k_->arg, __VA_ARGS__) : FAB_OK;                      \
            if (r_ != FAB_OK && st == FAB_OK)                                                      \
                st = r_;                                                                           \
        }                                                                                          \
    } while (0)

/* In order, stopping at the first refusal: the files come before the table, so a refused
 * file (it exists, its directory is not writable) stops the run before any header. */
fab_status_t fab_sinks_run_begin(fab_sinks_t *s, const fab_run_info_t *info)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    for (int i = 0; i < s->n && st == FAB_OK; i++)
        st = s->s[i].run_begin ? s->s[i].run_begin(s->s[i].arg, info) : FAB_OK;
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_kernel_begin(fab_sinks_t *s, const fab_kinst_t *ki, const int *pair,
                                    const fab_world_t *w, const char *detail, const char *policy)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    FAB_SINKS_CALL(s, kernel_begin, ki, pair, w, detail, policy);
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_row(fab_sinks_t *s, const fab_kinst_t *ki, const fab_row_t *r,
                           const double *samples, size_t nsamples)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    FAB_SINKS_CALL(s, row, ki, r, samples, nsamples);
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_matrix(fab_sinks_t *s, const fab_kinst_t *ki, const struct fab_matrix *m)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    FAB_SINKS_CALL(s, matrix, ki, m);
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_kernel_end(fab_sinks_t *s, const fab_kinst_t *ki, fab_status_t kst)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    FAB_SINKS_CALL(s, kernel_end, ki, kst);
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_run_end(fab_sinks_t *s, const fab_run_info_t *info)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    FAB_SINKS_CALL(s, run_end, info);
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_add(fab_sinks_t *s, fab_sink_t sink)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 4;
        fab_sink_t *grown = realloc(s->s, sizeof(*grown) * (size_t)cap);

        if (!grown) {
            if (sink.close)
                sink.close(sink.arg);
            return FAB_ERR_NOMEM;
        }
        s->s = grown;
        s->cap = cap;
    }
    s->s[s->n++] = sink;
    return FAB_OK;
}

void fab_sinks_mark(fab_sinks_t *s, const char *status, const char *reason, bool final)
{
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 500000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    if (pthread_mutex_timedlock(&fab_sinks_lock, &until) != 0)
        return; /* the main thread is writing: it will say the end itself */
    for (int i = 0; i < s->n; i++)
        if (s->s[i].mark)
            s->s[i].mark(s->s[i].arg, status, reason, final);
    pthread_mutex_unlock(&fab_sinks_lock);
}

void fab_sinks_close(fab_sinks_t *s)
{
    pthread_mutex_lock(&fab_sinks_lock);
    for (int i = 0; i < s->n; i++)
        if (s->s[i].close)
            s->s[i].close(s->s[i].arg);
    free(s->s);
    s->s = NULL;
    s->n = s->cap = 0;
    pthread_mutex_unlock(&fab_sinks_lock);
}
