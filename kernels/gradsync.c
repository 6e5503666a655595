/* SPDX-License-Identifier: BSD-3-Clause */
/* gradsync: the gradient synchronisation of data-parallel training. A model of --params
 * parameters of --dtype has a gradient of params x element-size bytes, split into buckets of
 * --bucket bytes (the last one partial); every bucket is allreduced, blocking, or with up to
 * --inflight buckets outstanding (MPI_Iallreduce). One iteration is one full sync. The
 * buckets reuse --inflight pairs of buffers: the model is never allocated whole. --compute MS
 * puts a busy compute of MS before each bucket's allreduce (the backward pass that makes the
 * bucket), so that the row tells how much of the sync the compute does not hide (exposed_us).
 * --params, --bucket, --inflight and --compute are this kernel's own options. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_kernel.h"

#define GRADSYNC_MAX_BUCKETS 1e6 /* buckets per sync; more is not a gradient sync any more */

typedef struct gradsync_opts {
    long params;
    size_t bucket; /* bytes */
    int inflight;
    double compute_ms; /* per bucket, before its allreduce */
} gradsync_opts_t;

static gradsync_opts_t gradsync_opt;

static const fab_opt_t gradsync_options[] = {
    {"params", 0, FAB_OPT_LONG, offsetof(gradsync_opts_t, params), 1, 1e13, "N", "parameters",
     "1e8", "gradsync: model parameters (a whole number, e.g. 7e9) whose gradient is synchronised",
     0, false, NULL},
    {"bucket", 0, FAB_OPT_SIZE, offsetof(gradsync_opts_t, bucket), 0, 0, "SIZE", "bytes", "25M",
     "gradsync: gradient bucket size (each bucket is one allreduce)", 0, false, NULL},
    {"inflight", 0, FAB_OPT_INT, offsetof(gradsync_opts_t, inflight), 1, 1024, "K", "buckets", "1",
     "gradsync: buckets in flight (1: blocking MPI_Allreduce; more: MPI_Iallreduce)", 0, false,
     NULL},
    {"compute", 0, FAB_OPT_DOUBLE, offsetof(gradsync_opts_t, compute_ms), 0, 1e5, "MS", "ms", "0",
     "gradsync: busy compute per bucket before its allreduce (the backward pass that makes it); "
     "the row's exposed_us is the step's time beyond the compute",
     0, false, NULL},
};
static const fab_kopts_t gradsync_kopts = {
    gradsync_options, sizeof(gradsync_options) / sizeof(gradsync_options[0]), &gradsync_opt};

typedef struct gradsync {
    size_t total, nbuckets, last, bucket; /* bytes */
    char *send, *recv;                    /* inflight buckets each */
    MPI_Request *reqs;
} gradsync_t;

/* The row's bytes: the whole gradient, whatever -m says. */
static size_t gradsync_fit(const fab_kctx_t *ctx, size_t bytes)
{
    (void)bytes;
    return (size_t)gradsync_opt.params * ctx->dtype.size;
}

/* The split of the gradient into buckets of whole elements (at least one): their number and
 * the bytes of the last one (<= bucket); returns the bytes one buffer slot needs. */
static size_t gradsync_split(const fab_kctx_t *ctx, gradsync_t *g)
{
    size_t elem = ctx->dtype.size;

    g->total = gradsync_fit(ctx, 0);
    g->bucket = gradsync_opt.bucket / elem * elem;
    if (g->bucket == 0)
        g->bucket = elem;
    g->nbuckets = g->total == 0 ? 0 : (g->total + g->bucket - 1) / g->bucket;
    g->last = g->total == 0 ? 0 : g->total - (g->nbuckets - 1) * g->bucket;
    return g->nbuckets > 1 ? g->bucket : g->last;
}

/* Before measuring: buckets of at least one element and not too many of them, and no
 * --nonblocking (the buckets in flight are this kernel's own). --params is a whole number of
 * at least 1 by its option row. */
static fab_status_t gradsync_check(const fab_kctx_t *ctx, char *msg, size_t len, char *hint,
                                   size_t hlen)
{
    size_t esz = ctx->dtype.size, bucket = gradsync_opt.bucket;
    double params = (double)gradsync_opt.params;
    double nb = params * (double)esz / (double)(bucket / esz * esz);

    if (ctx->nonblocking) {
        snprintf(msg, len,
                 "kernel 'gradsync' has its own non-blocking mode; --nonblocking and "
                 "--overlap-compute do not apply to it");
        snprintf(hint, hlen, "use --inflight K for buckets in flight");
        return FAB_ERR_CONFIG;
    }
    if (bucket < esz || nb > GRADSYNC_MAX_BUCKETS) {
        snprintf(msg, len, "--bucket %zu bytes: %s", bucket,
                 bucket < esz ? "smaller than one element"
                              : "more than a million buckets per sync");
        snprintf(hint, hlen,
                 "use buckets of at least %zu bytes and at most %.0f buckets; frameworks use tens "
                 "of MiB (25M is the default)",
                 bucket < esz ? esz : (size_t)(params * (double)esz / GRADSYNC_MAX_BUCKETS),
                 GRADSYNC_MAX_BUCKETS);
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

/* Send and receive buffers for --inflight buckets. */
static size_t gradsync_own_bytes(const fab_kctx_t *ctx)
{
    gradsync_t g;

    return 2 * gradsync_split(ctx, &g) * (size_t)gradsync_opt.inflight;
}
static fab_status_t gradsync_setup(fab_kctx_t *ctx, void **state)
{
    gradsync_t *g = calloc(1, sizeof(*g));
    size_t slot;

    if (!g)
        return FAB_ERR_NOMEM;
    slot = gradsync_split(ctx, g);
    g->send = malloc(slot * (size_t)gradsync_opt.inflight);
    g->recv = malloc(slot * (size_t)gradsync_opt.inflight);
    g->reqs = calloc((size_t)gradsync_opt.inflight, sizeof(*g->reqs));
    *state = g;
    if (!g->send || !g->recv || !g->reqs) {
        FAB_ERROR("gradsync: cannot allocate 2 x %d buckets of %zu bytes", gradsync_opt.inflight,
                  slot);
        return FAB_ERR_NOMEM;
    }
    memset(g->send, 0, slot * (size_t)gradsync_opt.inflight);
    memset(g->recv, 0, slot * (size_t)gradsync_opt.inflight);
    ctx->timer = true;
    return FAB_OK;
}

static size_t gradsync_len(const gradsync_t *g, size_t b)
{
    return b + 1 == g->nbuckets ? g->last : g->bucket;
}

/* All buckets of one sync; with --validate, each bucket's input is filled and its result
 * checked (seed != 0). */
static fab_status_t gradsync_sync(fab_kctx_t *ctx, gradsync_t *g, uint32_t seed, long *errors)
{
    int k = gradsync_opt.inflight;
    size_t esz = ctx->dtype.size;
    fab_status_t st = FAB_OK;

    for (size_t b = 0; b < g->nbuckets && st == FAB_OK; b++) {
        size_t slot = b % (size_t)k, len = gradsync_len(g, b);
        char *s = g->send + slot * g->bucket, *r = g->recv + slot * g->bucket;

        if (b >= (size_t)k) { /* reuse a slot: its previous bucket must be done */
            st = FAB_MPI(MPI_Wait(&g->reqs[slot], MPI_STATUS_IGNORE));
            if (st == FAB_OK && k > 1) /* --op avg, on the bucket now complete */
                fab_coll_avg(ctx, r, gradsync_len(g, b - (size_t)k) / esz);
        }
        if (st == FAB_OK && errors && b >= (size_t)k)
            *errors += fab_coll_check(ctx, r, gradsync_len(g, b - (size_t)k) / esz,
                                      (b - (size_t)k) * g->bucket / esz, -1, seed, "gradsync");
        if (st == FAB_OK && errors)
            fab_coll_fill(ctx, s, len / esz, ctx->rank, b * g->bucket / esz, seed);
        if (st != FAB_OK)
            break;
        fab_coll_compute(gradsync_opt.compute_ms * 1e-3); /* making the bucket (none: 0) */
        st = k == 1 ? FAB_MPI(MPI_Allreduce(s, r, (int)(len / esz), ctx->dtype.mpi, ctx->dtype.op,
                                            ctx->comm))
                    : FAB_MPI(MPI_Iallreduce(s, r, (int)(len / esz), ctx->dtype.mpi, ctx->dtype.op,
                                             ctx->comm, &g->reqs[slot]));
        if (k == 1) {
            g->reqs[slot] = MPI_REQUEST_NULL;
            if (st == FAB_OK)
                fab_coll_avg(ctx, r, len / esz); /* --op avg */
        }
    }
    /* Drain the buckets still in flight (in order, so the checks know which is which). */
    for (size_t b = g->nbuckets > (size_t)k ? g->nbuckets - (size_t)k : 0;
         b < g->nbuckets && st == FAB_OK; b++) {
        size_t slot = b % (size_t)k;

        st = FAB_MPI(MPI_Wait(&g->reqs[slot], MPI_STATUS_IGNORE));
        if (st == FAB_OK && k > 1)
            fab_coll_avg(ctx, g->recv + slot * g->bucket, gradsync_len(g, b) / esz);
        if (st == FAB_OK && errors)
            *errors += fab_coll_check(ctx, g->recv + slot * g->bucket, gradsync_len(g, b) / esz,
                                      b * g->bucket / esz, -1, seed, "gradsync");
    }
    return st;
}

static fab_status_t gradsync_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    (void)bytes;
    return gradsync_sync(ctx, state, 0, NULL);
}

static fab_status_t gradsync_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                      long *errors)
{
    (void)bytes;
    return gradsync_sync(ctx, state, seed, errors);
}

static void gradsync_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    gradsync_t g;
    char how[64], comp[288];

    gradsync_split(ctx, &g);
    if (gradsync_opt.compute_ms > 0)
        snprintf(comp, sizeof(comp),
                 ", each after %g ms of busy compute (--compute); time_us = one training step, "
                 "compute included; exposed_us = its time beyond the compute (the communication "
                 "the compute did not hide; --wide, or --columns with compute_us,exposed_us)",
                 gradsync_opt.compute_ms);
    else
        snprintf(comp, sizeof(comp),
                 "; time_us = one full sync = the communication time per "
                 "training step when nothing overlaps it");
    if (gradsync_opt.inflight == 1)
        snprintf(how, sizeof(how), "blocking MPI_Allreduce");
    else
        snprintf(how, sizeof(how), "MPI_Iallreduce, %d in flight", gradsync_opt.inflight);
    snprintf(buf, len,
             "%.4g params x %s (%zu B) = %.4g MB gradient in %zu buckets of %zu B (last %zu B), "
             "%s%s",
             (double)gradsync_opt.params, ctx->dtype.name, ctx->dtype.size, (double)g.total / 1e6,
             g.nbuckets, g.nbuckets > 1 ? g.bucket : g.last, g.last, how, comp);
}

/* The step's view with --compute: the compute per step (a gauge, the same on every rank), and
 * what of the step is communication the compute did not hide (derived from the row). */
static const fab_kcol_t gradsync_kcols[] = {
    {"compute_us", "compute_us", "us",
     "gradsync: the busy compute of one step (--compute x buckets); 0 without --compute",
     FAB_KCOL_GAUGE},
    {"exposed_us", "exposed_us", "us",
     "gradsync: exposed communication per step, mean: time_us - compute_us (0 <= it <= time_us;"
     " without --compute, time_us)",
     FAB_KCOL_DERIVED},
    {"exposed_p50_us", "exposed_p50", "us",
     "gradsync: the same from the median step: p50_us - compute_us, at least 0", FAB_KCOL_DERIVED},
};

static void gradsync_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    const gradsync_t *g = state;

    (void)ctx;
    c[0] = g ? (double)g->nbuckets * gradsync_opt.compute_ms * 1e3 : NAN;
}

static double gradsync_derive(const fab_krow_t *row, int j)
{
    double step = j == 1 ? row->mean : row->median, exposed = step * 1e6 - row->c[0];

    if (isnan(step) || isnan(row->c[0]))
        return NAN;
    return exposed < 0 ? 0 : exposed > step * 1e6 ? step * 1e6 : exposed;
}

static void gradsync_cleanup(fab_kctx_t *ctx, void *state)
{
    gradsync_t *g = state;

    (void)ctx;
    if (!g)
        return;
    free(g->send);
    free(g->recv);
    free(g->reqs);
    free(g);
}

const fab_kernel_t fab_kernel_gradsync = {
    .name = "gradsync",
    .summary = "data-parallel gradient sync: --params split in --bucket allreduces "
               "(--inflight at once)",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = gradsync_setup,
    .iterate = gradsync_iterate,
    .validate = gradsync_validate,
    .cleanup = gradsync_cleanup,
    .describe = gradsync_describe,
    .check = gradsync_check,
    .options = &gradsync_kopts,
    .columns = &(const fab_kcolumns_t){gradsync_kcols, 3, .counters = gradsync_counters,
                                       .derive = gradsync_derive},
    .coll = &(const fab_kcoll_t){.bus_factor = fab_bus_allreduce, /* a sync is allreduces */
                                 .fit_bytes = gradsync_fit,
                                 .uses_dtype = true,
                                 .uses_op = true,
                                 .no_sizes = true},
    /* A sync of the default model (400 MB of float32 gradient) takes 0.1-0.7 s: its row asks
     * for 10 of them, the floor's samples for a median (docs/METRICS.md, "gradsync"). */
    .budget = &(const fab_kbudget_t){.row_s = 10.0},
    .mem = &(const fab_kmem_t){gradsync_own_bytes, "lower --bucket or --inflight"},
};
