/* SPDX-License-Identifier: BSD-3-Clause */
/* Message buffers: one send and one receive area per process, anonymous mappings kept from
 * kernel to kernel and grown when a kernel needs more.
 *
 * Why not malloc per kernel: where a large block comes from (brk heap or mmap) depends on
 * what the heap did before (glibc's dynamic mmap threshold), and which physical pages back a
 * buffer changes from one allocation to the next. On the development machine either one
 * alone moved 1 MiB shared-memory bandwidth by 10%. One pair of mappings for the whole run
 * keeps that the same for every kernel and size, and lets bench/overhead.c run its plain loop
 * on the very same pages. */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/log.h"
#include "core/watchdog.h"
#include "core/status.h"
#include "kernel/dtype.h"
#include "measure/plan.h"
#include "measure/buffers.h"
#ifdef FAB_SIM
#include <smpi/smpi.h>
#endif

static struct {
    char *s, *r;
    size_t bytes;
} fab_pool;

void fab_buffers_free(void)
{
#ifdef FAB_SIM
    if (fab_pool.s)
        SMPI_SHARED_FREE(fab_pool.s);
    if (fab_pool.r)
        SMPI_SHARED_FREE(fab_pool.r);
    memset(&fab_pool, 0, sizeof(fab_pool));
    return;
#endif
    if (fab_pool.s)
        munmap(fab_pool.s, fab_pool.bytes);
    if (fab_pool.r)
        munmap(fab_pool.r, fab_pool.bytes);
    memset(&fab_pool, 0, sizeof(fab_pool));
}

static char *fab_buffer_map(size_t bytes)
{
#ifdef FAB_SIM
    /* One copy for every simulated rank, whose content SMPI does not copy (core/sim.h). */
    return SMPI_SHARED_MALLOC(bytes);
#endif
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

fab_status_t fab_buffers_get(size_t bytes, char **sbuf, char **rbuf)
{
    if (bytes > fab_pool.bytes) {
        fab_buffers_free();
        fab_pool.s = fab_buffer_map(bytes);
        fab_pool.r = fab_buffer_map(bytes);
        fab_pool.bytes = bytes;
        if (!fab_pool.s || !fab_pool.r) {
            fab_buffers_free();
            return FAB_ERR_NOMEM;
        }
    }
#ifdef FAB_SIM
    /* Shared by all ranks: their content means nothing (no --validate), and touching it at
     * every pair's set-up would cost the simulator real time. */
    *sbuf = fab_pool.s;
    *rbuf = fab_pool.r;
    return FAB_OK;
#endif
    /* Touch every page, so no first-touch fault lands in a timed iteration, and start from a
     * known content. */
    memset(fab_pool.s, 'a', bytes);
    memset(fab_pool.r, 0, bytes);
    *sbuf = fab_pool.s;
    *rbuf = fab_pool.r;
    return FAB_OK;
}

fab_status_t fab_ctx_setup(const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                           const fab_kinst_t *ki, const fab_sizes_t *sizes, MPI_Comm comm,
                           fab_kctx_t *ctx, void **state)
{
    const fab_kernel_t *k = ki->k;
    size_t bytes;
    int nranks = 0;
    fab_status_t st;

    MPI_Comm_size(comm, &nranks);
    st = fab_plan_ctx(ki, mopt, nopt, nranks, sizes, ctx);
    if (st != FAB_OK)
        return st;
    ctx->comm = comm;
    MPI_Comm_rank(comm, &ctx->rank);
    bytes = (size_t)ctx->slots * ctx->max_bytes;
    ctx->reqs = calloc(2 * (size_t)ctx->window, sizeof(*ctx->reqs));
    /* Seconds per GiB where the memory is new to the process (a virtual machine's pages): a
     * long wait here is said as what it is (core/watchdog.h). */
    fab_watch_phase("setting the kernel up: writing every page of its send and receive buffers",
                    k->name, ctx->max_bytes, -1, 0);
    if (!ctx->reqs || fab_buffers_get(bytes, &ctx->sbuf, &ctx->rbuf) != FAB_OK) {
        FAB_ERROR("cannot allocate %zu bytes of message buffers for kernel '%s'", 2 * bytes,
                  k->name);
        return FAB_ERR_NOMEM;
    }
    fab_watch_phase("setting the kernel up", k->name, 0, -1, 0);
    ctx->timer = k->kind == FAB_KIND_COLLECTIVE;
    return k->setup ? k->setup(ctx, state) : FAB_OK;
}

void fab_ctx_free(fab_kctx_t *ctx)
{
    free(ctx->reqs); /* the message buffers stay for the next kernel */
    fab_dtype_free(&ctx->dtype);
    ctx->sbuf = ctx->rbuf = NULL;
    ctx->reqs = NULL;
}
