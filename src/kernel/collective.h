/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for collective kernels: validation values and checks, the non-blocking finish, bus
 * factors and size fitting. Included by fab_kernel.h. */
#ifndef FAB_KERNEL_COLLECTIVE_H
#define FAB_KERNEL_COLLECTIVE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

struct fab_kctx;

/* Collectives' validation: element i of rank r's contribution is a small integer (-2 to 2,
 * so sums are exact in every floating type for up to 128 ranks), varied by seed; the integer
 * types get values whose reduction stays in their range (collective.c, fab_coll_elem). */
double fab_coll_value(int rank, size_t i, uint32_t seed);
/* Fill count elements of buf with rank's values for elements first, first+1, ... */
void fab_coll_fill(const struct fab_kctx *ctx, void *buf, size_t count, int rank, size_t first,
                   uint32_t seed);
/* Count the elements of buf that differ from what they should be: the reduction (--op) over
 * every rank's value when from < 0, else rank `from`'s value. Floating types allow
 * ranks x epsilon(type) relative error. The first mismatch is logged with the element index. */
long fab_coll_check(const struct fab_kctx *ctx, const void *buf, size_t count, size_t first,
                    int from, uint32_t seed, const char *what);
/* --op avg: the result's count elements in buf divided by the ranks (kernel/dtype.h); a
 * reduction kernel calls it where its result is complete, inside the timed call (an MPI
 * program averages so). Nothing for the other operations. */
void fab_coll_avg(const struct fab_kctx *ctx, void *buf, size_t count);
/* Synthetic compute: s seconds of a busy loop on the harness's timer, no MPI call, no sleep
 * (--overlap-compute, --straggle, a kernel's own). */
void fab_coll_compute(double s);
/* Non-blocking collectives: the synthetic compute (ctx->compute_s), then MPI_Wait. */
fab_status_t fab_coll_finish(struct fab_kctx *ctx, MPI_Request *req);
/* Bus factors (nccl-tests): allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall (n-1)/n;
 * bcast, reduce 1. */
double fab_bus_allreduce(int n);
double fab_bus_ring(int n);
double fab_bus_one(int n);
/* fit_bytes for collectives: whole elements, or whole blocks of one element per rank. */
size_t fab_fit_elements(const struct fab_kctx *ctx, size_t bytes);
size_t fab_fit_blocks(const struct fab_kctx *ctx, size_t bytes);
/* Bytes rounded down to whole `unit`s of elements (at least one unit). */
size_t fab_coll_fit(const struct fab_kctx *ctx, size_t bytes, size_t unit);

#endif
