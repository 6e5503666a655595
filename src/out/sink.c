/* SPDX-License-Identifier: BSD-3-Clause */
/* Fan-out of a run's events to every output (text, HDF5, JSON Lines, CSV) on rank 0. The
 * first failing output's status is returned; the others still get the event, so one broken
 * output does not cost the rows the others can still keep. */
#include "core/opts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"
#include "out/runinfo.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "out/sink.h"

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
fab_status_t fab_sinks_run_begin(fab_sinks_t *s, const fab_run_info_t *info, const fab_opts_t *o)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    for (int i = 0; i < s->n && st == FAB_OK; i++)
        st = s->s[i].run_begin ? s->s[i].run_begin(s->s[i].arg, info, o) : FAB_OK;
    pthread_mutex_unlock(&fab_sinks_lock);
    return st;
}

fab_status_t fab_sinks_kernel_begin(fab_sinks_t *s, const fab_kinst_t *ki, const fab_opts_t *o,
                                    const int *pair, const fab_world_t *w, const char *detail)
{
    fab_status_t st = FAB_OK;

    pthread_mutex_lock(&fab_sinks_lock);
    FAB_SINKS_CALL(s, kernel_begin, ki, o, pair, w, detail);
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

fab_status_t fab_sinks_matrix(fab_sinks_t *s, const fab_kinst_t *ki, const fab_matrix_t *m)
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

/* A kind at the output's name that rules it out (anything but nothing, a regular file, or a
 * link that --force replaces): refused, or *taken for an automatic name. */
static fab_status_t fab_output_judge(const char *path, const char *what, const char *kind,
                                     const fab_opts_t *o, bool *taken)
{
    bool link = kind && strcmp(kind, "a symbolic link") == 0;

    if (!kind || strcmp(kind, "a regular file") == 0 || (link && o->force && !o->append))
        return FAB_OK;
    if (taken) {
        *taken = true;
        return FAB_ERR_USAGE;
    }
    if (link) {
        char to[512];
        ssize_t n = readlink(path, to, sizeof(to) - 1);

        to[n > 0 ? n : 0] = '\0';
        FAB_ERROR("%s %s is a symbolic link%s%s%s: fabricbench never writes through a link", what,
                  path, n > 0 ? " (to " : "", to, n > 0 ? ")" : "");
        fprintf(stderr, "hint: %s\n",
                o->append ? "--append does not follow a link: give the path of the file itself"
                          : "remove the link, give the path of the file itself, or --force to "
                            "replace the link by a new file (its target stays as it is)");
        return FAB_ERR_USAGE;
    }
    FAB_ERROR("%s %s is %s: results go to regular files", what, path, kind);
    fprintf(stderr, "hint: choose a file name%s\n",
            strcmp(what, "results file") == 0 ? " with -o (-o none writes no result file)" : "");
    return FAB_ERR_USAGE;
}

fab_status_t fab_output_claim(const char *path, const char *what, const fab_opts_t *o, bool *taken,
                              fab_claim_t *c)
{
    const char *kind = fab_file_kind(path);
    fab_status_t st;
    int err;

    if (taken)
        *taken = false;
    c->fd = c->dir = -1;
    if ((st = fab_output_judge(path, what, kind, o, taken)) != FAB_OK)
        return st;
    err = fab_claim(path, c);
    if (taken && (err == ELOOP || err == EINVAL || err == EMLINK))
        err = EWOULDBLOCK; /* an automatic name whose lock file is not ours: the next name */
    if (err == EWOULDBLOCK || (err == 0 && (kind = fab_claim_kind(c, NULL)) && taken)) {
        fab_claim_release(c);
        if (taken) {
            *taken = true;
            return FAB_ERR_USAGE;
        }
        FAB_ERROR("%s %s is being written by another fabricbench run (its lock file: %s)", what,
                  path, c->lock);
        fprintf(stderr, "hint: wait for that run, or choose another name\n");
        return FAB_ERR_USAGE;
    }
    if (err == ELOOP || err == EINVAL || err == EMLINK) {
        FAB_ERROR("the lock file %s of %s %s %s: fabricbench opens only a lock file of its own",
                  c->lock, what, path,
                  err == ELOOP    ? "is a symbolic link"
                  : err == EMLINK ? "has more than one hard link"
                                  : "is not a regular file");
        fprintf(stderr, "hint: no fabricbench run made it; remove it (rm %s) and run again\n",
                c->lock);
        return FAB_ERR_USAGE;
    }
    if (err) {
        FAB_ERROR("cannot create %s (the lock file of %s %s): %s", c->lock, what, path,
                  strerror(err));
        fprintf(stderr, "hint: choose a directory this user can write\n");
        return FAB_ERR_IO;
    }
    /* judged again in the directory the claim holds: what the run will write is there */
    if ((st = fab_output_judge(path, what, kind, o, NULL)) != FAB_OK) {
        fab_claim_release(c);
        return st;
    }
    if (kind && strcmp(kind, "a regular file") == 0 && !o->append && !o->force) {
        fab_claim_release(c);
        FAB_ERROR("%s %s already exists", what, path);
        fprintf(stderr, "hint: --append adds this run to it, --force replaces it, or choose "
                        "another name\n");
        return FAB_ERR_USAGE;
    }
    return FAB_OK;
}
