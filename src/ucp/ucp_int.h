/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of the ucp module share (ucp/ucp.c: options, context, worker, endpoint,
 * memory, check, description; ucp/ucp_ops.c: the iterations, their waits and validation). */
#ifndef FAB_UCP_UCP_INT_H
#define FAB_UCP_UCP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucp/api/ucp.h>

#include "core/status.h"

typedef struct fab_ucp_spec fab_ucp_spec_t; /* ucp/ucp.h */
struct fab_kctx;

/* The most bytes of mapped memory a bandwidth kernel spreads its window of operations over
 * (operation j at slot j % slots), as the one-sided kernels do. */
#define FAB_UCP_SPREAD_MAX (64UL << 20)
/* The tags of the kernels' own messages (each pair has a worker of its own). */
#define FAB_UCP_TAG_DATA 0x1337a880u /* ucx_perftest's */
#define FAB_UCP_TAG_DONE 0x1337a881u /* rank 0 to 1: the window is complete */
#define FAB_UCP_TAG_ACK  0x1337a882u /* rank 1 to 0: the window arrived (tag bandwidth) */
#define FAB_UCP_AM_ID    0           /* the active messages' handler */

typedef struct fab_ucp {
    const fab_ucp_spec_t *spec;
    ucp_context_h uctx;
    ucp_worker_h worker;
    ucp_ep_h ep;
    ucp_mem_h memh;     /* region, mapped (puts land there, gets read there) */
    ucp_rkey_h rkey;    /* the peer's region */
    uint64_t peer_addr; /* the peer's region's address */
    char *region;       /* slots x max_bytes, this rank's mapped memory */
    bool region_ucx;    /* allocated by UCX (ucp_mem_map), freed by its unmap */
    char *lbuf;         /* the origin's buffer (source of puts, result of gets), as large */
    void **reqs;        /* a window of requests */
    int slots;
    int peer;
    uint8_t sn;          /* put ping-pong: the last byte's sequence number, 1 to 255 */
    uint64_t seq;        /* atomics: the iteration, which the target's word becomes */
    uint64_t operand[2]; /* atomics: the operand, and the reply (swap value, old value) */
    volatile unsigned long am_seen; /* active messages received (the handler counts) */
    char *am_dst;                   /* where a received active message's data goes */
    bool am_copy;                   /* copy eager data there (validation; else as ucx_perftest) */
    bool am_failed;                 /* a rendezvous receive failed in the handler */
    void *done_req;                 /* ucp_get_lat: rank 0's last message to rank 1, in flight */
    bool passive;                   /* ucp_get_lat: rank 1 need not progress (fab_ucp_passive) */
    char lanes[512]; /* what UCX chose for the endpoint ("posix/memory[am ...] ...") */
} fab_ucp_t;

/* Where operation j of an iteration of `bytes` goes: its offset in the slots. */
static inline size_t fab_ucp_off(const fab_ucp_t *s, int j, size_t bytes)
{
    return (size_t)(j % s->slots) * bytes;
}

/* Progress the worker until the request of `what` (an nbx call's return) completes: NULL is
 * done at once, an error pointer failed. The watchdog names `what` if it never does. */
fab_status_t fab_ucp_wait(fab_ucp_t *s, void *req, const char *what);
/* Rank 0 tells rank 1 that its operations are complete (a tag message); rank 1 progresses
 * its worker (which serves the operations where UCX emulates them) until told. */
fab_status_t fab_ucp_done(struct fab_kctx *ctx, fab_ucp_t *s);
/* Rank 0: the message fab_ucp_get_one left in flight, completed (none: FAB_OK). */
fab_status_t fab_ucp_done_flush(fab_ucp_t *s);
/* Whether every RMA lane of an endpoint's lanes ("cma/memory[rma_bw#0] ...") is a transport
 * that serves a get without the target's worker (shared memory mapped or read by the kernel,
 * RDMA hardware); false where UCX emulates RMA (no RMA lane) or the transport needs the target
 * to progress (tcp). An allow-list: a transport not named is not passive. */
bool fab_ucp_passive(const char *lanes);
/* Whether a kernel is a ping-pong, reported as half the round trip (ucp/ucp.c). */
bool fab_ucp_pingpong(const fab_ucp_spec_t *spec);
/* One ping-pong or one window of nops operations of `bytes`. */
fab_status_t fab_ucp_round(struct fab_kctx *ctx, fab_ucp_t *s, size_t bytes, int nops);
/* The active messages' handler (ucp/ucp_ops.c), registered at set-up. */
ucs_status_t fab_ucp_am_handler(void *arg, const void *header, size_t header_length, void *data,
                                size_t length, const ucp_am_recv_param_t *param);

#endif
