/* SPDX-License-Identifier: BSD-3-Clause */
/* The UCP kernels' iterations, their waits and validation (part of ucp/ucp.h). */
#include <string.h>

#include "core/watchdog.h"
#include "ucp/ucp.h"
#include "ucp/ucp_int.h"

/* No fields: contiguous bytes, no callback (the caller waits on the request). */
static const ucp_request_param_t fab_ucp_plain = {.op_attr_mask = 0};

static fab_status_t fab_ucp_failed_op(const fab_ucp_t *s, const char *what, ucs_status_t us)
{
    FAB_ERROR("%s: %s failed: %s (UCX, to or from the other rank of the pair)", s->spec->name, what,
              ucs_status_string(us));
    return FAB_ERR_ENV;
}

fab_status_t fab_ucp_wait(fab_ucp_t *s, void *req, const char *what)
{
    ucs_status_t us;

    if (req == NULL)
        return FAB_OK;
    if (UCS_PTR_IS_ERR(req))
        return fab_ucp_failed_op(s, what, UCS_PTR_STATUS(req));
    fab_watch_within(what);
    while ((us = ucp_request_check_status(req)) == UCS_INPROGRESS)
        ucp_worker_progress(s->worker);
    fab_watch_within(NULL);
    ucp_request_free(req);
    return us == UCS_OK ? FAB_OK : fab_ucp_failed_op(s, what, us);
}

/* Both requests waited for (neither left behind when the first fails). */
static fab_status_t fab_ucp_wait2(fab_ucp_t *s, void *a, const char *wa, void *b, const char *wb)
{
    fab_status_t st = fab_ucp_wait(s, a, wa), st2 = fab_ucp_wait(s, b, wb);

    return st != FAB_OK ? st : st2;
}

static char fab_ucp_one;

fab_status_t fab_ucp_done_flush(fab_ucp_t *s)
{
    void *req = s->done_req;

    s->done_req = NULL;
    return fab_ucp_wait(s, req, "ucp_tag_send_nbx (the operation's end)");
}

fab_status_t fab_ucp_done(fab_kctx_t *ctx, fab_ucp_t *s)
{
    static char one;
    fab_status_t st;

    if (ctx->rank == 0) {
        st = fab_ucp_done_flush(s);
        return st != FAB_OK
                   ? st
                   : fab_ucp_wait(
                         s, ucp_tag_send_nbx(s->ep, &one, 1, FAB_UCP_TAG_DONE, &fab_ucp_plain),
                         "ucp_tag_send_nbx (the window's end)");
    }
    return fab_ucp_wait(
        s, ucp_tag_recv_nbx(s->worker, &one, 1, FAB_UCP_TAG_DONE, (ucp_tag_t)-1, &fab_ucp_plain),
        "ucp_tag_recv_nbx (waiting for the window's end)");
}

/* ------------------------------------------------------------------ ping-pongs */

static fab_status_t fab_ucp_tag_pingpong(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes)
{
    void *sr, *rr;
    const ucp_tag_t all = (ucp_tag_t)-1;

    if (ctx->rank == 0) {
        sr = ucp_tag_send_nbx(s->ep, ctx->sbuf, bytes, FAB_UCP_TAG_DATA, &fab_ucp_plain);
        rr = ucp_tag_recv_nbx(s->worker, ctx->rbuf, bytes, FAB_UCP_TAG_DATA, all, &fab_ucp_plain);
        return fab_ucp_wait2(s, sr, "ucp_tag_send_nbx", rr, "ucp_tag_recv_nbx");
    }
    rr = ucp_tag_recv_nbx(s->worker, ctx->rbuf, bytes, FAB_UCP_TAG_DATA, all, &fab_ucp_plain);
    if (fab_ucp_wait(s, rr, "ucp_tag_recv_nbx") != FAB_OK)
        return FAB_ERR_ENV;
    sr = ucp_tag_send_nbx(s->ep, ctx->sbuf, bytes, FAB_UCP_TAG_DATA, &fab_ucp_plain);
    return fab_ucp_wait(s, sr, "ucp_tag_send_nbx");
}

/* A put's arrival: its last byte becomes sn (the target progresses, which serves the put where
 * UCX emulates it); then cleared, so that only the next put can set it. */
static void fab_ucp_arrival(fab_ucp_t *s, size_t bytes, uint8_t sn)
{
    volatile uint8_t *last = (volatile uint8_t *)s->region + bytes - 1;

    fab_watch_within("ucp_worker_progress (waiting for a put's last byte)");
    while (*last != sn)
        ucp_worker_progress(s->worker);
    fab_watch_within(NULL);
    *last = 0;
}

/* ucx_perftest's ucp_put_lat: each rank puts to the other in turn, the last byte a sequence
 * number the other polls for; the buffers' other bytes stay zero. */
static fab_status_t fab_ucp_put_pingpong(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes)
{
    uint8_t sn = (uint8_t)(s->sn % 255 + 1);
    void *req;
    fab_status_t st;

    s->sn = sn;
    if (ctx->rank == 1)
        fab_ucp_arrival(s, bytes, sn);
    s->lbuf[bytes - 1] = (char)sn;
    req = ucp_put_nbx(s->ep, s->lbuf, bytes, s->peer_addr, s->rkey, &fab_ucp_plain);
    if (ctx->rank == 0 && !UCS_PTR_IS_ERR(req))
        fab_ucp_arrival(s, bytes, sn);
    st = fab_ucp_wait(s, req, "ucp_put_nbx");
    s->lbuf[bytes - 1] = 0;
    return st;
}

static fab_status_t fab_ucp_am_pingpong(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes)
{
    unsigned long want = s->am_seen + 1;
    void *req = NULL;
    fab_status_t st = FAB_OK;

    if (ctx->rank == 0)
        req = ucp_am_send_nbx(s->ep, FAB_UCP_AM_ID, NULL, 0, ctx->sbuf, bytes, &fab_ucp_plain);
    fab_watch_within("ucp_worker_progress (waiting for an active message)");
    while (s->am_seen < want && !s->am_failed && !UCS_PTR_IS_ERR(req))
        ucp_worker_progress(s->worker);
    fab_watch_within(NULL);
    if (ctx->rank == 1)
        req = ucp_am_send_nbx(s->ep, FAB_UCP_AM_ID, NULL, 0, ctx->sbuf, bytes, &fab_ucp_plain);
    st = fab_ucp_wait(s, req, "ucp_am_send_nbx");
    if (st == FAB_OK && s->am_failed)
        st = fab_ucp_failed_op(s, "ucp_am_recv_data_nbx", UCS_ERR_IO_ERROR);
    return st;
}

static void fab_ucp_am_recv_done(void *request, ucs_status_t status, size_t length, void *user_data)
{
    fab_ucp_t *s = user_data;

    (void)length;
    if (request)
        ucp_request_free(request);
    if (status != UCS_OK)
        s->am_failed = true;
    s->am_seen = s->am_seen + 1;
}

ucs_status_t fab_ucp_am_handler(void *arg, const void *header, size_t header_length, void *data,
                                size_t length, const ucp_am_recv_param_t *param)
{
    fab_ucp_t *s = arg;

    (void)header;
    (void)header_length;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) { /* the data is fetched into am_dst */
        ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                 UCP_OP_ATTR_FIELD_USER_DATA |
                                                 UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
                                 .cb.recv_am = fab_ucp_am_recv_done,
                                 .user_data = s};
        void *r = ucp_am_recv_data_nbx(s->worker, data, s->am_dst, length, &p);

        if (UCS_PTR_IS_ERR(r))
            fab_ucp_am_recv_done(NULL, UCS_PTR_STATUS(r), 0, s);
        return UCS_INPROGRESS; /* the callback frees the request (freed here, none would come) */
    }
    if (s->am_copy)
        memcpy(s->am_dst, data, length);
    s->am_seen = s->am_seen + 1;
    return UCS_OK;
}

/* ucx_perftest's ucp_get with one operation outstanding: rank 0 gets n bytes of rank 1's
 * memory and waits for the request (the data is here: the whole round trip), then tells rank 1,
 * which progressed meanwhile (where UCX emulates the get, rank 1 answers it). Rank 0 leaves
 * that message in flight, completed at its next operation: its time is the get's and the
 * message's injection, not the message's journey. Where the transport serves the get without
 * rank 1 (fab_ucp_passive: shared memory, RDMA), rank 1 is not called upon, as
 * ucx_perftest's target. */
static fab_status_t fab_ucp_get_one(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes)
{
    fab_status_t st;
    void *req;

    if (ctx->rank == 1)
        return s->passive ? FAB_OK : fab_ucp_done(ctx, s);
    st = fab_ucp_done_flush(s);
    if (st == FAB_OK)
        st = fab_ucp_wait(s,
                          ucp_get_nbx(s->ep, s->lbuf, bytes, s->peer_addr, s->rkey, &fab_ucp_plain),
                          "ucp_get_nbx");
    if (st != FAB_OK || s->passive)
        return st;
    req = ucp_tag_send_nbx(s->ep, &fab_ucp_one, 1, FAB_UCP_TAG_DONE, &fab_ucp_plain);
    if (UCS_PTR_IS_ERR(req))
        return fab_ucp_wait(s, req, "ucp_tag_send_nbx (the operation's end)");
    s->done_req = req;
    return FAB_OK;
}

/* ------------------------------------------------------------------ windows */

/* Rank 0: nops active messages, each completed locally; rank 1 progresses until its handler
 * has counted them all (a rendezvous message fetched into its buffer), then acknowledges. */
static fab_status_t fab_ucp_am_window(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes, int nops)
{
    static char ack[4];
    fab_status_t st = FAB_OK;
    const ucp_tag_t all = (ucp_tag_t)-1;

    if (ctx->rank == 1) {
        unsigned long want = s->am_seen + (unsigned long)nops;

        fab_watch_within("ucp_worker_progress (waiting for a window of active messages)");
        while (s->am_seen < want && !s->am_failed)
            ucp_worker_progress(s->worker);
        fab_watch_within(NULL);
        if (s->am_failed)
            return fab_ucp_failed_op(s, "ucp_am_recv_data_nbx", UCS_ERR_IO_ERROR);
        return fab_ucp_wait(
            s, ucp_tag_send_nbx(s->ep, ack, sizeof(ack), FAB_UCP_TAG_ACK, &fab_ucp_plain),
            "ucp_tag_send_nbx (the window's acknowledgement)");
    }
    for (int j = 0; j < nops; j++)
        s->reqs[j] =
            ucp_am_send_nbx(s->ep, FAB_UCP_AM_ID, NULL, 0, ctx->sbuf, bytes, &fab_ucp_plain);
    for (int j = 0; j < nops; j++) {
        fab_status_t sj = fab_ucp_wait(s, s->reqs[j], "ucp_am_send_nbx");

        st = st != FAB_OK ? st : sj;
    }
    if (st != FAB_OK)
        return st;
    return fab_ucp_wait(
        s, ucp_tag_recv_nbx(s->worker, ack, sizeof(ack), FAB_UCP_TAG_ACK, all, &fab_ucp_plain),
        "ucp_tag_recv_nbx (the window's acknowledgement)");
}

static fab_status_t fab_ucp_tag_window(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes, int nops,
                                       int slots)
{
    static char ack[4];
    fab_status_t st = FAB_OK;
    const ucp_tag_t all = (ucp_tag_t)-1;

    for (int j = 0; j < nops; j++)
        s->reqs[j] = ctx->rank == 0 ? ucp_tag_send_nbx(s->ep, fab_sbuf(ctx, j % slots), bytes,
                                                       FAB_UCP_TAG_DATA, &fab_ucp_plain)
                                    : ucp_tag_recv_nbx(s->worker, fab_rbuf(ctx, j % slots), bytes,
                                                       FAB_UCP_TAG_DATA, all, &fab_ucp_plain);
    for (int j = 0; j < nops; j++) {
        fab_status_t sj =
            fab_ucp_wait(s, s->reqs[j], ctx->rank == 0 ? "ucp_tag_send_nbx" : "ucp_tag_recv_nbx");
        st = st != FAB_OK ? st : sj;
    }
    if (st != FAB_OK)
        return st;
    if (ctx->rank == 0)
        return fab_ucp_wait(
            s, ucp_tag_recv_nbx(s->worker, ack, sizeof(ack), FAB_UCP_TAG_ACK, all, &fab_ucp_plain),
            "ucp_tag_recv_nbx (the window's acknowledgement)");
    return fab_ucp_wait(s,
                        ucp_tag_send_nbx(s->ep, ack, sizeof(ack), FAB_UCP_TAG_ACK, &fab_ucp_plain),
                        "ucp_tag_send_nbx (the window's acknowledgement)");
}

/* Rank 0: nops puts or gets (operation j at slot j), then ucp_ep_flush_nbx, which completes
 * them at the target; then it tells rank 1, which progressed meanwhile. */
static fab_status_t fab_ucp_rma_window(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes, int nops)
{
    bool put = s->spec->op == FAB_UCP_PUT;
    fab_status_t st = FAB_OK;

    if (ctx->rank == 1)
        return fab_ucp_done(ctx, s);
    for (int j = 0; j < nops; j++) {
        size_t off = fab_ucp_off(s, j, bytes);
        void *req = put ? ucp_put_nbx(s->ep, s->lbuf + off, bytes, s->peer_addr + off, s->rkey,
                                      &fab_ucp_plain)
                        : ucp_get_nbx(s->ep, s->lbuf + off, bytes, s->peer_addr + off, s->rkey,
                                      &fab_ucp_plain);

        if (UCS_PTR_IS_ERR(req))
            st = fab_ucp_wait(s, req, put ? "ucp_put_nbx" : "ucp_get_nbx");
        else if (req)
            ucp_request_free(req); /* completed by the flush */
    }
    if (st == FAB_OK)
        st = fab_ucp_wait(s, ucp_ep_flush_nbx(s->ep, &fab_ucp_plain), "ucp_ep_flush_nbx");
    return st != FAB_OK ? st : fab_ucp_done(ctx, s);
}

/* ucx_perftest's ucp_add, ucp_fadd, ucp_swap and ucp_cswap with one operation outstanding:
 * rank 0 operates on rank 1's word (which becomes the iteration's number: add and fetch-and-add
 * add 1, swap writes it, compare-and-swap replaces the one before), waits for its completion
 * (the result; add: a flush), then tells rank 1, which progresses meanwhile: where UCX emulates
 * the atomic, rank 1 applies it and answers the flush, and seeing the word change is not
 * enough (it would leave for the harness's next collective before the flush's answer). */
static fab_status_t fab_ucp_amo_round(fab_kctx_t *ctx, fab_ucp_t *s)
{
    static const ucp_atomic_op_t ops[] = {UCP_ATOMIC_OP_ADD, UCP_ATOMIC_OP_ADD, UCP_ATOMIC_OP_SWAP,
                                          UCP_ATOMIC_OP_CSWAP};
    fab_ucp_amo_t a = s->spec->amo;
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                             .datatype = ucp_dt_make_contig(8)};
    uint64_t seq = ++s->seq;
    fab_status_t st;

    if (ctx->rank == 1)
        return fab_ucp_done(ctx, s);
    s->operand[0] = a == FAB_UCP_SWAP ? seq : a == FAB_UCP_CSWAP ? seq - 1 : 1;
    s->operand[1] = seq; /* compare-and-swap: the value swapped in; fetching: the old value */
    if (a != FAB_UCP_ADD) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = &s->operand[1];
    }
    st = fab_ucp_wait(
        s, ucp_atomic_op_nbx(s->ep, ops[a], &s->operand[0], 1, s->peer_addr, s->rkey, &p),
        "ucp_atomic_op_nbx");
    if (st == FAB_OK && a == FAB_UCP_ADD)
        st = fab_ucp_wait(s, ucp_ep_flush_nbx(s->ep, &fab_ucp_plain), "ucp_ep_flush_nbx");
    return st != FAB_OK ? st : fab_ucp_done(ctx, s);
}

fab_status_t fab_ucp_round(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes, int nops)
{
    switch (s->spec->op) {
    case FAB_UCP_TAG:
        return s->spec->bw ? fab_ucp_tag_window(ctx, s, bytes, nops, 1)
                           : fab_ucp_tag_pingpong(ctx, s, bytes);
    case FAB_UCP_PUT:
        return s->spec->bw ? fab_ucp_rma_window(ctx, s, bytes, nops)
                           : fab_ucp_put_pingpong(ctx, s, bytes);
    case FAB_UCP_GET:
        return s->spec->bw ? fab_ucp_rma_window(ctx, s, bytes, nops)
                           : fab_ucp_get_one(ctx, s, bytes);
    case FAB_UCP_AM:
        return s->spec->bw ? fab_ucp_am_window(ctx, s, bytes, nops)
                           : fab_ucp_am_pingpong(ctx, s, bytes);
    case FAB_UCP_AMO:
        return fab_ucp_amo_round(ctx, s);
    }
    return FAB_ERR_INTERNAL;
}

fab_status_t fab_ucp_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    fab_ucp_t *s = state;

    return fab_ucp_round(ctx, s, bytes, s->spec->bw ? ctx->window : 1);
}

/* ------------------------------------------------------------------ validation */

/* Tag and active messages: rank 0 sends pattern A (one message, or one per slot), rank 1
 * checks; a ping-pong then answers with pattern B, which rank 0 checks. */
static fab_status_t fab_ucp_vmsg(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes, uint32_t seed,
                                 long *errors)
{
    bool am = s->spec->op == FAB_UCP_AM; /* one buffer receives active messages */
    int n = s->spec->bw && !am ? ctx->slots : 1, me = ctx->rank;
    fab_status_t st;

    for (int j = 0; j < n; j++) {
        fab_pattern_fill(fab_sbuf(ctx, j), bytes, fab_pattern_seed(seed, me, j));
        memset(fab_rbuf(ctx, j), 0, bytes);
    }
    s->am_copy = true;
    st = !s->spec->bw ? fab_ucp_round(ctx, s, bytes, 1)
         : am         ? fab_ucp_am_window(ctx, s, bytes, 1)
                      : fab_ucp_tag_window(ctx, s, bytes, n, n);
    s->am_copy = false;
    if (st != FAB_OK)
        return st;
    if (me == 1 || !s->spec->bw)
        for (int j = 0; j < n; j++)
            *errors +=
                fab_pattern_check(fab_rbuf(ctx, j), bytes, fab_pattern_seed(seed, 1 - me, j));
    return FAB_OK;
}

/* Puts and gets: rank 0's operations (one per slot) with patterned data, completed by the
 * flush; rank 1, told, checks its memory (put), or rank 0 its results (get). Both buffers are
 * zero again afterwards (the put ping-pong's sequence byte needs them so). */
static fab_status_t fab_ucp_vrma(fab_kctx_t *ctx, fab_ucp_t *s, size_t bytes, uint32_t seed,
                                 long *errors)
{
    int nops = s->spec->bw ? (ctx->window < s->slots ? ctx->window : s->slots) : 1;
    bool put = s->spec->op == FAB_UCP_PUT;
    int from = put ? 0 : 1;
    char *src = put ? s->lbuf : s->region, *dst = put ? s->region : s->lbuf;
    fab_status_t st;

    for (int j = 0; j < nops && ctx->rank == from; j++)
        fab_pattern_fill(src + fab_ucp_off(s, j, bytes), bytes, fab_pattern_seed(seed, from, j));
    st = FAB_MPI(MPI_Barrier(ctx->comm));
    if (st == FAB_OK)
        st = fab_ucp_rma_window(ctx, s, bytes, nops);
    for (int j = 0; j < nops && st == FAB_OK && ctx->rank != from; j++)
        *errors += fab_pattern_check(dst + fab_ucp_off(s, j, bytes), bytes,
                                     fab_pattern_seed(seed, from, j));
    memset(s->lbuf, 0, (size_t)s->slots * ctx->max_bytes);
    memset(s->region, 0, (size_t)s->slots * ctx->max_bytes);
    /* the next operations must not land before the check is done */
    return st != FAB_OK ? st : FAB_MPI(MPI_Barrier(ctx->comm));
}

/* Atomics: rank 1's word is the iteration's number and rank 0's result the one before
 * (fetch-and-add, swap, compare-and-swap): 8 wrong bytes otherwise. (Rank 1's message that
 * the operation is complete may come in the same progress call as rank 0's next operation.) */
static fab_status_t fab_ucp_vamo(fab_kctx_t *ctx, fab_ucp_t *s, long *errors)
{
    fab_status_t st = fab_ucp_amo_round(ctx, s);

    if (st != FAB_OK)
        return st;
    if (ctx->rank == 1)
        *errors += *(volatile uint64_t *)(void *)s->region != s->seq ? 8 : 0;
    else if (s->spec->amo != FAB_UCP_ADD)
        *errors += s->operand[1] != s->seq - 1 ? 8 : 0;
    *errors += fab_pattern_corrupt_for_tests();
    /* rank 0's next operation must not change the word before rank 1 has read it */
    return FAB_MPI(MPI_Barrier(ctx->comm));
}

fab_status_t fab_ucp_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                              long *errors)
{
    fab_ucp_t *s = state;

    if (s->spec->op == FAB_UCP_AMO)
        return fab_ucp_vamo(ctx, s, errors);

    if (s->spec->op == FAB_UCP_PUT || s->spec->op == FAB_UCP_GET)
        return fab_ucp_vrma(ctx, s, bytes, seed, errors);
    return fab_ucp_vmsg(ctx, s, bytes, seed, errors);
}
