/* SPDX-License-Identifier: BSD-3-Clause */
/* The plan of a run, before anything is measured: which sizes each kernel measures, how many
 * buffers it needs and how large, which ranks take part, the warm-up rule, and which pairs
 * the transport probe connects. The runner and the checks share it. */
#include <math.h>
#include <string.h>

#include "core/testhook.h"

#include "kernel/dtype.h"
#include "kernel/traits.h"
#include "measure/plan.h"

#define FAB_VALIDATE_SLOTS 4   /* distinct buffers a validation window uses */
#define FAB_KERNEL_TAG     100 /* the first tag a kernel owns */
#define FAB_MIN_SLOT       64  /* slots hold the acknowledgements of tiny messages too */

int fab_plan_window(const fab_kernel_t *k, const fab_measopts_t *mopt)
{
    int def = fab_kp2p(k)->default_window;

    return def > 0 && !mopt->window_given ? def : mopt->window;
}

int fab_slots(const fab_kernel_t *k, const fab_measopts_t *mopt)
{
    int w = fab_plan_window(k, mopt);

    if (!mopt->validate || !fab_kp2p(k)->uses_window)
        return 1;
    return w < FAB_VALIDATE_SLOTS ? w : FAB_VALIDATE_SLOTS;
}

size_t fab_buffer_bytes(const fab_kernel_t *k, const fab_measopts_t *mopt, size_t max_bytes)
{
    return 2 * (size_t)fab_slots(k, mopt) * max_bytes;
}

void fab_default_sizes(const fab_kernel_t *k, fab_sizes_t *out)
{
    char err[128];
    const char *def = k->kind == FAB_KIND_COLLECTIVE ? FAB_SIZES_COLL : FAB_SIZES_P2P;

    if (fab_kranks(k) == FAB_RANKS_NODES)
        def = k->kind == FAB_KIND_LATENCY ? FAB_SIZES_PAIRS_LAT : FAB_SIZES_PAIRS_BW;
    if (k->default_sizes)
        def = k->default_sizes;
    fab_sizes_parse(def, out, err, sizeof(err));
}

const fab_sizes_t *fab_kernel_sizes(const fab_kernel_t *k, const fab_measopts_t *mopt,
                                    fab_sizes_t *tmp)
{
    if (fab_kcoll(k)->no_sizes) {
        tmp->v[0] = 0;
        tmp->n = 1;
        return tmp;
    }
    if (mopt->sizes.n > 0)
        return &mopt->sizes;
    fab_default_sizes(k, tmp);
    return tmp;
}

bool fab_rank_active(const fab_kernel_t *k, const fab_measopts_t *mopt, int rank)
{
    return fab_kranks(k) != FAB_RANKS_PAIR || rank == mopt->pair.a || rank == mopt->pair.b;
}

void fab_probe_pair(const fab_world_t *w, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                    int *a, int *b)
{
    /* A pair kernel measures --pair; an all-ranks kernel, rank 0 and its partner size/2
     * (msgrate's first pair; on several nodes, the pair that crosses the network). */
    for (int i = 0; i < lopt->nkernels; i++)
        if (fab_kranks(lopt->kernels[i].k) == FAB_RANKS_PAIR) {
            *a = mopt->pair.a;
            *b = mopt->pair.b;
            return;
        }
    *a = 0;
    *b = w->size / 2;
}

int fab_probe_pairs(const fab_world_t *w, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                    int *a, int *b)
{
    int n = 1;
    bool all = false;

    fab_probe_pair(w, lopt, mopt, &a[0], &b[0]);
    for (int i = 0; i < lopt->nkernels; i++)
        all = all || fab_kranks(lopt->kernels[i].k) == FAB_RANKS_ALL;
    if (!all || w->size < 4)
        return n;
    for (int i = 0; i < w->size / 2; i++) {
        if ((i == a[0] && i + w->size / 2 == b[0]) || (i == b[0] && i + w->size / 2 == a[0]))
            continue;
        a[n] = i;
        b[n] = i + w->size / 2;
        n++;
    }
    return n;
}

/* FABRICBENCH_TEST_WRONG_OP=1: collectives sum with a deliberately wrong operation, so the
 * tests can prove that --validate catches a wrong reduction. */
static bool fab_test_wrong_op(void)
{
    static int cached = -1;

    return fab_test_switch("FABRICBENCH_TEST_WRONG_OP", &cached);
}

fab_status_t fab_plan_ctx(const fab_kinst_t *ki, const fab_measopts_t *mopt,
                          const fab_netopts_t *nopt, int nranks, const fab_sizes_t *sizes,
                          fab_kctx_t *ctx)
{
    const fab_kernel_t *k = ki->k;
    const fab_kcoll_t *coll = fab_kcoll(k);
    fab_status_t st;

    memset(ctx, 0, sizeof(*ctx));
    ctx->comm = MPI_COMM_NULL;
    ctx->size = nranks;
    ctx->window = fab_plan_window(k, mopt);
    ctx->tag = FAB_KERNEL_TAG;
    ctx->sizes = sizes->v;
    ctx->nsizes = sizes->n;
    ctx->sizes_given = sizes == &mopt->sizes;
    ctx->max_bytes = fab_sizes_max(sizes);
    if (ctx->max_bytes < FAB_MIN_SLOT)
        ctx->max_bytes = FAB_MIN_SLOT;
    ctx->slots = fab_slots(k, mopt);
    ctx->msgs_per_iter = 1;
    ctx->streams = 1;
    ctx->root = mopt->root;
    ctx->nonblocking = mopt->nonblocking && k->kind == FAB_KIND_COLLECTIVE;
    ctx->inplace = ki->inplace && coll->inplace;
    ctx->netdev = nopt->netdev ? nopt->netdev : "";
    ctx->axis = k->axis ? ki->axis : NAN;
    st = fab_dtype_init(mopt->dtype, mopt->op, fab_test_wrong_op(), &ctx->dtype);
    if (st != FAB_OK)
        return st;
    /* A collective may round a size up (one element per rank at least): room for that. */
    if (coll->fit_bytes && !coll->no_sizes) {
        size_t fitted = coll->fit_bytes(ctx, fab_sizes_max(sizes));

        if (fitted > ctx->max_bytes)
            ctx->max_bytes = fitted;
    }
    return FAB_OK;
}

size_t fab_own_bytes(const fab_kinst_t *ki, const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                     int nranks, const fab_sizes_t *sizes)
{
    size_t (*own)(const fab_kctx_t *ctx) = fab_kmem(ki->k)->own_bytes;
    fab_kctx_t ctx;
    size_t n;

    if (!own || fab_plan_ctx(ki, mopt, nopt, nranks, sizes, &ctx) != FAB_OK)
        return 0;
    n = own(&ctx);
    fab_dtype_free(&ctx.dtype);
    return n;
}

int fab_plan_ranks(const fab_kernel_t *k, const fab_world_t *w)
{
    return fab_kranks(k) != FAB_RANKS_ALL ? 2 : w->size;
}

uint64_t fab_plan_warmup(const fab_measopts_t *mopt)
{
    if (mopt->warmup >= 0)
        return (uint64_t)mopt->warmup;
    return mopt->iters > 0 ? ((uint64_t)mopt->iters + 9) / 10 : 0;
}
