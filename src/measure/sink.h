/* SPDX-License-Identifier: BSD-3-Clause */
/* The outputs of a run on rank 0 (measure/sink.c): each is a fab_sink_t fed with the run's
 * events as they happen. */
#ifndef FAB_MEASURE_SINK_H
#define FAB_MEASURE_SINK_H

#include "core/launchopts.h"
#include "core/status.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "measure/row.h"
#include "net/runinfo.h"

/* A pairs kernel's matrix (pairs/matrix.h): the outputs read it, the sinks only pass it on. */
struct fab_matrix;

/* Where rank 0 sends what a run produces, as it is produced. Every callback may be NULL;
 * a failing callback makes the run stop after the current block (exit 3). The kernel a
 * callback is about is an instance of the run's kernels (ki->k its descriptor, ki->axis its
 * value). The events carry no options: an output is given the options it reads when it is
 * made (output/). */
typedef struct fab_sink {
    const char *name;
    fab_status_t (*run_begin)(void *arg, const fab_run_info_t *info);
    /* pair: the ranks of a pair kernel, else NULL; detail: the kernel's own words on what it
     * does (describe); policy: how its iterations are chosen, in words (fab_rounds_policy,
     * fab_pairs_policy) */
    fab_status_t (*kernel_begin)(void *arg, const fab_kinst_t *ki, const int *pair,
                                 const fab_world_t *w, const char *detail, const char *policy);
    /* samples: the first nsamples per-iteration times in seconds, whole iterations (divide
     * by the kernel's time divisor for the table's times), in iteration order; NULL unless
     * --samples */
    fab_status_t (*row)(void *arg, const fab_kinst_t *ki, const fab_row_t *r, const double *samples,
                        size_t nsamples);
    /* Pairs kernels: the matrix as it stands after each round, and with its verdict at the
     * end (m->verdict set); before kernel_end. */
    fab_status_t (*matrix)(void *arg, const fab_kinst_t *ki, const struct fab_matrix *m);
    fab_status_t (*kernel_end)(void *arg, const fab_kinst_t *ki, fab_status_t st);
    fab_status_t (*run_end)(void *arg, const fab_run_info_t *info);
    /* The run's status as it now stands, written at once from the watchdog's thread (a stall,
     * a signal the run may not live to handle); final: the process ends right after. */
    void (*mark)(void *arg, const char *status, const char *reason, bool final);
    void (*close)(void *arg);
    void *arg;
} fab_sink_t;

/* The outputs of a run, in the order they get each event. Start from {0}. */
typedef struct fab_sinks {
    fab_sink_t *s;
    int n, cap;
} fab_sinks_t;

/* Add an output (it now belongs to s). On FAB_ERR_NOMEM it was closed. */
fab_status_t fab_sinks_add(fab_sinks_t *s, fab_sink_t sink);

fab_status_t fab_sinks_run_begin(fab_sinks_t *s, const fab_run_info_t *info);
fab_status_t fab_sinks_kernel_begin(fab_sinks_t *s, const fab_kinst_t *ki, const int *pair,
                                    const fab_world_t *w, const char *detail, const char *policy);
fab_status_t fab_sinks_row(fab_sinks_t *s, const fab_kinst_t *ki, const fab_row_t *r,
                           const double *samples, size_t nsamples);
fab_status_t fab_sinks_matrix(fab_sinks_t *s, const fab_kinst_t *ki, const struct fab_matrix *m);
fab_status_t fab_sinks_kernel_end(fab_sinks_t *s, const fab_kinst_t *ki, fab_status_t st);
fab_status_t fab_sinks_run_end(fab_sinks_t *s, const fab_run_info_t *info);
/* Mark every output (sink.mark): callable from another thread while the main thread is not
 * in an output (the outputs are used under one lock); gives up after half a second. */
void fab_sinks_mark(fab_sinks_t *s, const char *status, const char *reason, bool final);
/* Close every output and forget them. */
void fab_sinks_close(fab_sinks_t *s);

#endif
