/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' check (part of rma/rma.h): what a kernel refuses before anything is
 * measured, and the memory of its window and buffers. */
#include <stdio.h>

#include "rma/rma.h"
#include "rma/rma_int.h"

int fab_rma_regions(const fab_kctx_t *ctx)
{
    return fab_rma_opt.pattern == FAB_RMA_PAIRS || ctx->size < 1 ? 1 : ctx->size;
}

/* Slots per region: -w, as long as every region's together fit FAB_RMA_SPREAD_MAX. */
int fab_rma_slots(const fab_rma_spec_t *spec, const fab_kctx_t *ctx)
{
    size_t most =
        FAB_RMA_SPREAD_MAX / (ctx->max_bytes ? ctx->max_bytes : 1) / (size_t)fab_rma_regions(ctx);

    if (!spec->bw)
        return 1;
    if (most < 1)
        most = 1;
    return (size_t)ctx->window < most ? ctx->window : (int)most;
}

size_t fab_rma_own_bytes(const fab_rma_spec_t *spec, const fab_kctx_t *ctx)
{
    size_t one = (size_t)fab_rma_regions(ctx) * (size_t)fab_rma_slots(spec, ctx) * ctx->max_bytes;

    return (spec->op == FAB_RMA_GET_ACC ? 3 : 2) * one + 8 * (size_t)ctx->size + 64;
}

/* Why --rma-flush means nothing for the kernel under sync (after fab_rma_flush_applies). */
static fab_status_t fab_rma_check_flush(const fab_rma_spec_t *spec, fab_rma_sync_t sync, char *msg,
                                        size_t msglen, char *hint, size_t hintlen)
{
    const char *mode = fab_rma_opt.flush == FAB_RMA_FLUSH_OP ? "op" : "window";

    if (fab_rma_opt.flush == FAB_RMA_FLUSH_AUTO || fab_rma_flush_applies(spec, sync))
        return FAB_OK;
    if (!spec->bw)
        snprintf(msg, msglen,
                 "%s: --rma-flush %s is refused: it says how often a bandwidth kernel's window "
                 "of -w operations is flushed, and %s issues one operation per iteration",
                 spec->name, mode, spec->name);
    else
        snprintf(msg, msglen,
                 "%s: --rma-flush %s is refused: it chooses between one MPI_Win_flush per "
                 "window and one per operation, and --rma-sync %s completes its operations "
                 "without a flush (%s)",
                 spec->name, mode, fab_rma_sync_names[sync],
                 fab_rma_passive(sync) ? "its epoch's unlock" : "active target");
    snprintf(hint, hintlen,
             "give --rma-flush with put_bw or get_bw and --rma-sync flush or flush_local, or "
             "leave it out");
    return FAB_ERR_CONFIG;
}

/* --rma-target-busy and --rma-pattern against the kernel and its synchronisation. */
static fab_status_t fab_rma_check_modes(const fab_rma_spec_t *spec, fab_rma_sync_t sync, char *msg,
                                        size_t msglen, char *hint, size_t hintlen)
{
    if (spec->bidir && fab_rma_opt.pattern != FAB_RMA_PAIRS) {
        snprintf(msg, msglen,
                 "%s: --rma-pattern %s is refused: %s is the two directions of one pair at "
                 "once; all-to-all already runs every direction and one-to-all only one",
                 spec->name, fab_rma_pattern_names[fab_rma_opt.pattern], spec->name);
        snprintf(hint, hintlen,
                 "use put_bw --rma-pattern all-to-all (or one-to-all), or leave %s out",
                 spec->name);
        return FAB_ERR_CONFIG;
    }
    if (!fab_rma_opt.target_busy)
        return FAB_OK;
    if (!fab_rma_passive(sync)) {
        snprintf(msg, msglen,
                 "%s: --rma-target-busy is refused with --rma-sync %s: that is active target, "
                 "where the target opens and closes every epoch with its own MPI calls, so it "
                 "cannot compute outside MPI while the operation is under way and there is no "
                 "passive progress to measure",
                 spec->name, fab_rma_sync_names[sync]);
        snprintf(hint, hintlen,
                 "use a passive-target --rma-sync: lock, flush, flush_local or "
                 "lock_all");
        return FAB_ERR_CONFIG;
    }
    if (fab_rma_opt.pattern == FAB_RMA_ALL_TO_ALL) {
        snprintf(msg, msglen,
                 "%s: --rma-target-busy is refused with --rma-pattern all-to-all: every rank is "
                 "an origin there, so no rank is only a target that could compute outside MPI",
                 spec->name);
        snprintf(hint, hintlen, "use --rma-pattern pairs or one-to-all");
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

fab_status_t fab_rma_check(const fab_rma_spec_t *spec, const fab_kctx_t *ctx, char *msg,
                           size_t msglen, char *hint, size_t hintlen)
{
    fab_rma_sync_t sync = fab_rma_sync_of(spec);

    if (fab_rma_check_flush(spec, sync, msg, msglen, hint, hintlen) != FAB_OK ||
        fab_rma_check_modes(spec, sync, msg, msglen, hint, hintlen) != FAB_OK)
        return FAB_ERR_CONFIG;
    if (spec->bidir && fab_rma_passive(sync)) {
        snprintf(msg, msglen,
                 "%s: --rma-sync %s is refused: both ranks put to each other at once, and a "
                 "passive-target epoch (lock, flush, flush_local, lock_all) asks nothing of its "
                 "target, so the two directions would be two unrelated streams with no common "
                 "end, not one bidirectional exchange",
                 spec->name, fab_rma_sync_names[sync]);
        snprintf(hint, hintlen,
                 "use --rma-sync pscw (its default) or fence, as %s allows, or name the kernels "
                 "without %s (`run rma` includes it)",
                 spec->osu, spec->name);
        return FAB_ERR_CONFIG;
    }
    if (spec->op == FAB_RMA_ACC || spec->op == FAB_RMA_GET_ACC)
        for (int i = 0; i < ctx->nsizes; i++)
            if (ctx->sizes[i] % 4) {
                snprintf(msg, msglen,
                         "%s accumulates 4-byte integers (MPI_INT32_T), and -m asks for %zu "
                         "bytes, not a multiple of 4",
                         spec->name, ctx->sizes[i]);
                snprintf(hint, hintlen, "give sizes that are multiples of 4 (its default: 4:4M)");
                return FAB_ERR_CONFIG;
            }
    if (spec->op == FAB_RMA_FOP || spec->op == FAB_RMA_CAS)
        for (int i = 0; i < ctx->nsizes; i++)
            if (ctx->sizes[i] != 4) {
                snprintf(msg, msglen,
                         "%s moves one 4-byte integer (MPI_INT32_T) per operation, and -m asks for "
                         "%zu bytes",
                         spec->name, ctx->sizes[i]);
                snprintf(hint, hintlen,
                         "give -m 4 (its default), or run %s apart from kernels with other sizes",
                         spec->name);
                return FAB_ERR_CONFIG;
            }
    return FAB_OK;
}
