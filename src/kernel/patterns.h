/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point helpers for kernels: --validate's data patterns and the windowed one-way
 * exchange of bw and msgrate. Included by fab_kernel.h. */
#ifndef FAB_KERNEL_PATTERNS_H
#define FAB_KERNEL_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

struct fab_kctx;

/* Fill `bytes` of buf with a pattern that depends on seed and position. */
void fab_pattern_fill(void *buf, size_t bytes, uint32_t seed);
/* Count the bytes of buf that differ from fab_pattern_fill(seed). */
long fab_pattern_check(const void *buf, size_t bytes, uint32_t seed);
/* A seed for message `msg` sent by comm rank `from`, derived from the round's seed. */
uint32_t fab_pattern_seed(uint32_t round_seed, int from, int msg);
/* FABRICBENCH_TEST_CORRUPT=1: every check finds one bad byte more (0 otherwise). */
long fab_pattern_corrupt_for_tests(void);

/* Ping-pong (osu_latency): rank 0 of ctx->comm sends `bytes` with a blocking send, rank 1
 * receives and sends the same size back. */
fab_status_t fab_pingpong_iterate(struct fab_kctx *ctx, size_t bytes);

/* The windowed one-way pattern shared by bw and msgrate (osu_bw): the sender posts
 * ctx->window non-blocking sends of `bytes` to `peer` and waits for a 4-byte acknowledgement;
 * the receiver posts the matching receives, waits, and sends the acknowledgement. */
fab_status_t fab_window_iterate(struct fab_kctx *ctx, size_t bytes, int peer, bool sender);
/* Under load (--schedule shift): every rank sends ctx->window messages to `to` while it
 * receives as many from `from`, then acknowledges to `from` and waits for `to`'s
 * acknowledgement (mpiGraph's pattern, windowed). to == from is a bidirectional exchange. */
fab_status_t fab_window_shift(struct fab_kctx *ctx, size_t bytes, int to, int from);
/* Ping-pong under load: every rank pings `to` and answers `from`'s ping at the same time; the
 * iteration ends with `to`'s answer (one round trip with `to`). */
fab_status_t fab_pingpong_shift(struct fab_kctx *ctx, size_t bytes, int to, int from);
/* The same exchange with patterned data in distinct slots, every received byte checked. */
fab_status_t fab_window_validate(struct fab_kctx *ctx, size_t bytes, int peer, bool sender,
                                 uint32_t seed, long *errors);

#endif
