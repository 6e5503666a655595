/* SPDX-License-Identifier: BSD-3-Clause */
/* The process's message buffers (one pair of page-aligned mappings for the whole run), and a
 * kernel's context on them. */
#ifndef FAB_MEASURE_BUFFERS_H
#define FAB_MEASURE_BUFFERS_H

#include <stddef.h>

#include <mpi.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/netopts.h"
#include "core/sizes.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"

/* The process's send and receive areas, at least `bytes` each, pages touched, the send area
 * filled with 'a' and the receive area with zeros. They stay mapped until fab_buffers_free. */
fab_status_t fab_buffers_get(size_t bytes, char **sbuf, char **rbuf);
void fab_buffers_free(void);

/* An instance's context on comm (its ranks): planned, buffers and requests allocated, the
 * kernel's setup run; fab_ctx_free undoes all but the setup (the kernel's cleanup). */
fab_status_t fab_ctx_setup(const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                           const fab_kinst_t *ki, const fab_sizes_t *sizes, MPI_Comm comm,
                           fab_kctx_t *ctx, void **state);
void fab_ctx_free(fab_kctx_t *ctx);

#endif
