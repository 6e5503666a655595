/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the benchmarks in bench/: the harness called as a library, and medians. */
#ifndef FAB_BENCH_UTIL_H
#define FAB_BENCH_UTIL_H

#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/opts.h"
#include "core/status.h"
#include "core/timing.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "kernel/registry.h"
#include "measure/buffers.h"
#include "measure/row.h"
#include "measure/runner.h"
#include "measure/sink.h"
#include "net/transport.h"

static fab_status_t keep_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                             const double *samples, size_t nsamples)
{
    (void)ki, (void)samples, (void)nsamples;
    *(fab_row_t *)arg = *r;
    return FAB_OK;
}

/* One size of one kernel through fab_run_kernels_at, fixed iterations, a tenth as warm-up. */
static fab_row_t harness_run(const fab_world_t *w, const char *kernel, size_t bytes, long iters,
                             int dtype)
{
    fab_row_t row;
    fab_sink_t keep = {.name = "keep", .row = keep_row, .arg = &row};
    fab_sinks_t sinks = {0};
    fab_opts_t o;
    bool agreed;
    int count;

    fab_opts_defaults(&o);
    if (fab_sinks_add(&sinks, keep) != FAB_OK)
        MPI_Abort(MPI_COMM_WORLD, 3);
    o.launch.kernels[0] = (fab_kinst_t){fab_kernel_find(kernel), NAN, false};
    o.launch.nkernels = 1;
    o.meas.sizes.v[0] = bytes;
    o.meas.sizes.n = 1;
    o.meas.iters = iters;
    o.meas.warmup = iters / 10;
    o.launch.quiet = true;
    o.meas.dtype = dtype;
    memset(&row, 0, sizeof(row));
    if (fab_run_kernels_at(w, &o.launch, &o.meas, &o.net, 0, &count, &sinks, &agreed) != FAB_OK)
        MPI_Abort(MPI_COMM_WORLD, 3);
    fab_sinks_close(&sinks);
    return row;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
