/* SPDX-License-Identifier: BSD-3-Clause */
/* The UCP kernels' support (ucp_tag_lat ... in kernels/, ucx_perftest's UCP tests): UCX used
 * directly, below MPI. Each kernel's pair gets its own UCX context, worker and endpoint,
 * bootstrapped through MPI on the kernel's communicator (worker addresses, the mapped
 * memory's address and remote key); one timed iteration and its validation per operation;
 * the rows' semantics columns, the lanes UCX chose in the description; a bounded wait the
 * watchdog names. Each kernel is a fab_ucp_spec_t and thin wrappers around these functions. */
#ifndef FAB_UCP_UCP_H
#define FAB_UCP_UCP_H

#include "kernel/fab_kernel.h"

/* The operation of a kernel. */
typedef enum {
    FAB_UCP_TAG = 0, /* ucp_tag_send_nbx / ucp_tag_recv_nbx of `bytes` */
    FAB_UCP_PUT,     /* ucp_put_nbx of `bytes` into the peer's mapped memory */
    FAB_UCP_GET,     /* ucp_get_nbx of `bytes` from the peer's mapped memory */
    FAB_UCP_AM,      /* ucp_am_send_nbx of `bytes`, received by a handler */
    FAB_UCP_AMO,     /* ucp_atomic_op_nbx on one 64-bit word of the peer's mapped memory */
} fab_ucp_op_t;

/* The atomic operation of a FAB_UCP_AMO kernel. */
typedef enum { FAB_UCP_ADD = 0, FAB_UCP_FADD, FAB_UCP_SWAP, FAB_UCP_CSWAP } fab_ucp_amo_t;

typedef struct fab_ucp_opts {
    const char *tls; /* --ucp-tls: UCX_TLS of the kernels' own context (NULL: the environment's) */
    bool same;       /* --ucp-same-buffer: a window's puts or gets all at one place (ucp_put_bw,
                      * ucp_get_bw), as ucx_perftest; else spread over the window */
} fab_ucp_opts_t;
extern fab_ucp_opts_t fab_ucp_opt;
/* Their rows, values in fab_ucp_opt: every UCP kernel's (--ucp-tls), and the put and get
 * bandwidth kernels' (--ucp-tls, --ucp-same-buffer). */
extern const fab_kopts_t fab_ucp_kopts, fab_ucp_rma_bw_kopts;

/* What a kernel is: its operation, and a ping-pong (latency, half the round trip, as
 * ucx_perftest's pingpong tests) or a window of operations per completion (bandwidth). */
typedef struct fab_ucp_spec {
    const char *name;     /* the kernel's */
    const char *perftest; /* the ucx_perftest test it follows (-t) */
    fab_ucp_op_t op;
    bool bw;           /* ctx->window operations, then their completion, per iteration */
    fab_ucp_amo_t amo; /* FAB_UCP_AMO: which */
} fab_ucp_spec_t;

/* The semantics columns every UCP row carries (the one-sided kernels' definitions:
 * includes_remote_completion, halved_round_trip, ping_pong). */
extern const fab_kcolumns_t fab_ucp_columns;

fab_status_t fab_ucp_setup(const fab_ucp_spec_t *spec, fab_kctx_t *ctx, void **state);
fab_status_t fab_ucp_iterate(fab_kctx_t *ctx, void *state, size_t bytes);
fab_status_t fab_ucp_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors);
void fab_ucp_cleanup(fab_kctx_t *ctx, void *state);
void fab_ucp_describe(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx, char *buf, size_t len);
fab_status_t fab_ucp_check(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx, char *msg,
                           size_t msglen, char *hint, size_t hintlen);
size_t fab_ucp_own_bytes(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx);

/* The hooks a UCP kernel wraps around its spec, which it names NAME_spec: NAME_setup,
 * NAME_describe, NAME_check and NAME_own_bytes (kernels/ucp_tag_lat.c). */
#define FAB_UCP_HOOKS(NAME)                                                                        \
    static fab_status_t NAME##_setup(fab_kctx_t *ctx, void **state)                                \
    {                                                                                              \
        return fab_ucp_setup(&NAME##_spec, ctx, state);                                            \
    }                                                                                              \
    static void NAME##_describe(const fab_kctx_t *ctx, char *buf, size_t len)                      \
    {                                                                                              \
        fab_ucp_describe(&NAME##_spec, ctx, buf, len);                                             \
    }                                                                                              \
    static fab_status_t NAME##_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,  \
                                     size_t hintlen)                                               \
    {                                                                                              \
        return fab_ucp_check(&NAME##_spec, ctx, msg, msglen, hint, hintlen);                       \
    }                                                                                              \
    static size_t NAME##_own_bytes(const fab_kctx_t *ctx)                                          \
    {                                                                                              \
        return fab_ucp_own_bytes(&NAME##_spec, ctx);                                               \
    }

/* The descriptor's members every UCP kernel has (after its name, summary, kind and p2p): the
 * family ucp (`fabricbench run ucp` runs all of them), and the options it reads
 * (FAB_UCP_MEMBERS: --ucp-tls alone). */
#define FAB_UCP_MEMBERS(NAME) FAB_UCP_MEMBERS_OPTS(NAME, &fab_ucp_kopts)
#define FAB_UCP_MEMBERS_OPTS(NAME, OPTS)                                                           \
    .family = "ucp", .ranks = FAB_RANKS_PAIR, .min_ranks = 2, .rank_multiple = 1,                  \
    .setup = NAME##_setup, .iterate = fab_ucp_iterate, .validate = fab_ucp_validate,               \
    .cleanup = fab_ucp_cleanup, .describe = NAME##_describe, .check = NAME##_check,                \
    .options = (OPTS), .columns = &fab_ucp_columns, .mem = &(const fab_kmem_t)                     \
    {                                                                                              \
        NAME##_own_bytes, "lower the largest size (-m) or the window (-w)"                         \
    }

#endif
