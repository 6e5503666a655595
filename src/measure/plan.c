/* The plan of a run, before anything is measured: which sizes each kernel measures, how many
 * buffers it needs and how large, which ranks take part, the warm-up rule, and which pairs
 * the transport probe connects. The runner and the checks share it. */
#include <string.h>

#include "kernel/dtype.h"
#include "measure/plan.h"

#define FAB_VALIDATE_SLOTS 4 /* distinct buffers a validation window uses */

int fab_slots(const fab_kernel_t *k, const fab_opts_t *o)
{
    if (!o->validate || !k->uses_window)
        return 1;
    return o->window < FAB_VALIDATE_SLOTS ? o->window : FAB_VALIDATE_SLOTS;
}

size_t fab_buffer_bytes(const fab_kernel_t *k, const fab_opts_t *o, size_t max_bytes)
{
    return 2 * (size_t)fab_slots(k, o) * max_bytes;
}

void fab_default_sizes(const fab_kernel_t *k, fab_sizes_t *out)
{
    char err[128];

    fab_sizes_parse(k->kind == FAB_KIND_COLLECTIVE ? "8:4M" : "1:4M", out, err, sizeof(err));
}

const fab_sizes_t *fab_kernel_sizes(const fab_kernel_t *k, const fab_opts_t *o, fab_sizes_t *tmp)
{
    if (k->no_sizes) {
        tmp->v[0] = 0;
        tmp->n = 1;
        return tmp;
    }
    if (o->sizes.n > 0)
        return &o->sizes;
    fab_default_sizes(k, tmp);
    return tmp;
}

bool fab_rank_active(const fab_kernel_t *k, const fab_opts_t *o, int rank)
{
    return k->ranks == FAB_RANKS_ALL || rank == o->pair_a || rank == o->pair_b;
}

/* Buffers a kernel allocates itself (gradsync's buckets), from its own_bytes. */
size_t fab_own_bytes(const fab_kernel_t *k, const fab_opts_t *o)
{
    fab_kctx_t ctx;
    size_t n;

    if (!k->own_bytes)
        return 0;
    memset(&ctx, 0, sizeof(ctx));
    ctx.params = o->params;
    ctx.bucket = o->bucket;
    ctx.inflight = o->inflight;
    ctx.window = o->window;
    ctx.root = o->root;
    if (fab_dtype_init(o->dtype, FAB_OP_SUM, false, &ctx.dtype) != FAB_OK)
        return 0;
    n = k->own_bytes(&ctx);
    fab_dtype_free(&ctx.dtype);
    return n;
}

void fab_probe_pair(const fab_world_t *w, const fab_opts_t *o, int *a, int *b)
{
    /* A pair kernel measures --pair; an all-ranks kernel, rank 0 and its partner size/2
     * (msgrate's first pair; on several nodes, the pair that crosses the network). */
    for (int i = 0; i < o->nkernels; i++)
        if (o->kernels[i]->ranks == FAB_RANKS_PAIR) {
            *a = o->pair_a;
            *b = o->pair_b;
            return;
        }
    *a = 0;
    *b = w->size / 2;
}

int fab_probe_pairs(const fab_world_t *w, const fab_opts_t *o, int *a, int *b)
{
    int n = 1;
    bool all = false;

    fab_probe_pair(w, o, &a[0], &b[0]);
    for (int i = 0; i < o->nkernels; i++)
        all = all || o->kernels[i]->ranks == FAB_RANKS_ALL;
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
