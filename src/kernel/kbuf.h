/* SPDX-License-Identifier: BSD-3-Clause */
/* Inline helpers of the timed path: a kernel's message buffers and a collective's root.
 * Included by kernel/fab_kernel.h. */
#ifndef FAB_KERNEL_KBUF_H
#define FAB_KERNEL_KBUF_H

#include <stdint.h>

#include "kernel/descriptor.h"

/* Inline: they run in timed iterations. Slot i of the send/receive buffers: */
static inline char *fab_sbuf(const fab_kctx_t *ctx, int slot)
{
    return ctx->sbuf + (size_t)slot * ctx->max_bytes;
}
static inline char *fab_rbuf(const fab_kctx_t *ctx, int slot)
{
    return ctx->rbuf + (size_t)slot * ctx->max_bytes;
}
/* The root of call `turn` of a collective: --root, or rotating (turn mod ranks) when -1. */
static inline int fab_coll_root(const fab_kctx_t *ctx, uint64_t turn)
{
    return ctx->root >= 0 ? ctx->root : (int)(turn % (uint64_t)ctx->size);
}

#endif
