/* SPDX-License-Identifier: BSD-3-Clause */
/* The congestion kernels' traffic (part of cong/cong.h): the canaries' operations, the
 * congestors' patterns and the flag protocol between them, every wait bounded and named. */
#include <time.h>

#include "cong/cong.h"
#include "cong/cong_int.h"
#include "core/timing.h"

void fab_cong_nap(int us)
{
    struct timespec ts = {0, (long)us * 1000L};

    if (us > 0)
        nanosleep(&ts, NULL);
}

fab_status_t fab_cong_wait(const fab_kctx_t *ctx, MPI_Request *r, int nap_us, const char *what,
                           int peer)
{
    uint64_t end = fab_now_ns() + (uint64_t)(fab_cong_opt.wait_s * 1e9);
    int done = 0;

    for (;;) {
        if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return FAB_ERR_MPI;
        if (done)
            return FAB_OK;
        if (fab_now_ns() > end)
            break;
        fab_cong_nap(nap_us);
    }
    FAB_ERROR("congestion: rank %d waited %.0f s (--cong-wait) for %s from rank %d; it never came",
              ctx->rank, fab_cong_opt.wait_s, what, peer);
    MPI_Cancel(r);
    MPI_Request_free(r);
    return FAB_ERR_MPI;
}

fab_status_t fab_cong_canary_op(fab_kctx_t *ctx, fab_cong_state_t *s)
{
    char *sb = s->buf, *rb = s->buf + s->buflen;
    MPI_Request q[2 * FAB_CONG_BW_WINDOW];
    int t = ctx->tag + FAB_CT_RING;

    switch (s->canary) {
    case FAB_CANARY_LAT: /* the random ring: to the right, from the left, at once */
        return FAB_MPI(MPI_Sendrecv(sb, FAB_CONG_CANARY_BYTES, MPI_BYTE, s->right, t, rb,
                                    FAB_CONG_CANARY_BYTES, MPI_BYTE, s->left, t, s->sub,
                                    MPI_STATUS_IGNORE));
    case FAB_CANARY_BW:
        for (int i = 0; i < FAB_CONG_BW_WINDOW; i++) {
            MPI_Irecv(rb + (size_t)i * FAB_CONG_BW_BYTES, FAB_CONG_BW_BYTES, MPI_BYTE, s->left, t,
                      s->sub, &q[i]);
            MPI_Isend(sb, FAB_CONG_BW_BYTES, MPI_BYTE, s->right, t, s->sub,
                      &q[FAB_CONG_BW_WINDOW + i]);
        }
        return FAB_MPI(MPI_Waitall(2 * FAB_CONG_BW_WINDOW, q, MPI_STATUSES_IGNORE));
    case FAB_CANARY_ALLREDUCE:
        return FAB_MPI(MPI_Allreduce(sb, rb, 1, MPI_DOUBLE, MPI_SUM, s->sub));
    }
    return FAB_ERR_INTERNAL;
}

double fab_cong_op_bytes(int p, int n, size_t bytes)
{
    switch (p) {
    case FAB_CONG_ALLTOALL:
        return (double)n * (n - 1) * (double)bytes;
    case FAB_CONG_INCAST:
    case FAB_CONG_PUT_INCAST:
    case FAB_CONG_GET_BCAST:
        return (double)(n - 1) * (double)bytes;
    case FAB_CONG_BW:
        return (double)(n / 2) * FAB_CONG_BW_WINDOW * (double)bytes;
    case FAB_CONG_NONE:
        break;
    }
    return 0;
}

/* One operation of the pattern, on the congestors' communicator (rank 0 the hot spot). */
static fab_status_t fab_cong_pattern_op(fab_kctx_t *ctx, fab_cong_state_t *s, size_t bytes)
{
    char *sb = s->buf, *rb = s->buf + s->buflen;
    int me = s->sub_rank, n = s->sub_size, t = ctx->tag + FAB_CT_RING, k = 0;
    MPI_Request q[2 * FAB_CONG_BW_WINDOW];

    switch (s->pattern) {
    case FAB_CONG_ALLTOALL:
        return FAB_MPI(MPI_Alltoall(sb, (int)bytes, MPI_BYTE, rb, (int)bytes, MPI_BYTE, s->sub));
    case FAB_CONG_INCAST:
        if (me != 0)
            return FAB_MPI(MPI_Send(sb, (int)bytes, MPI_BYTE, 0, t, s->sub));
        for (int r = 1; r < n; r++)
            MPI_Recv(rb + (size_t)r * bytes, (int)bytes, MPI_BYTE, MPI_ANY_SOURCE, t, s->sub,
                     MPI_STATUS_IGNORE);
        return FAB_OK;
    case FAB_CONG_PUT_INCAST:
        if (me == 0)
            return FAB_OK;
        MPI_Put(sb, (int)bytes, MPI_BYTE, 0, (MPI_Aint)((size_t)me * bytes), (int)bytes, MPI_BYTE,
                s->win);
        return FAB_MPI(MPI_Win_flush(0, s->win));
    case FAB_CONG_GET_BCAST:
        if (me == 0)
            return FAB_OK;
        MPI_Get(rb, (int)bytes, MPI_BYTE, 0, 0, (int)bytes, MPI_BYTE, s->win);
        return FAB_MPI(MPI_Win_flush(0, s->win));
    case FAB_CONG_BW: /* pairs (0,1), (2,3) ...: a window of 8 from the even to the odd */
        if ((n % 2 && me == n - 1))
            return FAB_OK;
        for (; k < FAB_CONG_BW_WINDOW; k++)
            if (me % 2 == 0)
                MPI_Isend(sb, (int)bytes, MPI_BYTE, me + 1, t, s->sub, &q[k]);
            else
                MPI_Irecv(rb + (size_t)k * bytes, (int)bytes, MPI_BYTE, me - 1, t, s->sub, &q[k]);
        return FAB_MPI(MPI_Waitall(k, q, MPI_STATUSES_IGNORE));
    case FAB_CONG_NONE: /* no traffic: a sleep between the stop's agreements */
        fab_cong_nap(200);
        return FAB_OK;
    }
    return FAB_ERR_INTERNAL;
}

fab_status_t fab_cong_congest(fab_kctx_t *ctx, fab_cong_state_t *s, size_t bytes)
{
    MPI_Request go, stop = MPI_REQUEST_NULL, run = MPI_REQUEST_NULL;
    int lead = s->sub_rank == 0, any = 0, mine = 0, flag = 0;
    double done[2], ops = 0;
    uint64_t t0;
    fab_status_t st;

    MPI_Irecv(NULL, 0, MPI_BYTE, s->lead_canary, ctx->tag + FAB_CT_START, ctx->comm, &go);
    st = fab_cong_wait(ctx, &go, 200, "the canaries' start signal", s->lead_canary);
    if (st != FAB_OK)
        return st;
    if (lead)
        MPI_Irecv(NULL, 0, MPI_BYTE, s->lead_canary, ctx->tag + FAB_CT_STOP, ctx->comm, &stop);
    t0 = fab_now_ns();
    while (!any && st == FAB_OK) {
        st = fab_cong_pattern_op(ctx, s, bytes);
        ops++;
        if (lead && ops == 1)
            MPI_Isend(NULL, 0, MPI_BYTE, s->lead_canary, ctx->tag + FAB_CT_RUNNING, ctx->comm,
                      &run);
        if (lead && !mine)
            MPI_Test(&stop, &mine, MPI_STATUS_IGNORE);
        flag = mine;
        if (st == FAB_OK)
            st = FAB_MPI(MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, s->sub));
    }
    if (st != FAB_OK || !lead)
        return st;
    done[0] = ops * fab_cong_op_bytes(s->pattern, s->sub_size, bytes);
    done[1] = (double)(fab_now_ns() - t0) * 1e-9;
    MPI_Wait(&run, MPI_STATUS_IGNORE); /* received before the stop was sent */
    return FAB_MPI(
        MPI_Send(done, 2, MPI_DOUBLE, s->lead_canary, ctx->tag + FAB_CT_DONE, ctx->comm));
}

fab_status_t fab_cong_start(fab_kctx_t *ctx, fab_cong_state_t *s)
{
    MPI_Request run;
    int n = ctx->size - s->sub_size;

    for (int i = 0; i < n; i++)
        MPI_Send(NULL, 0, MPI_BYTE, s->cong_ranks[i], ctx->tag + FAB_CT_START, ctx->comm);
    MPI_Irecv(NULL, 0, MPI_BYTE, s->lead_cong, ctx->tag + FAB_CT_RUNNING, ctx->comm, &run);
    return fab_cong_wait(ctx, &run, 0, "the congestors' first operation (running)", s->lead_cong);
}

fab_status_t fab_cong_stop(fab_kctx_t *ctx, fab_cong_state_t *s, double *bytes, double *secs)
{
    MPI_Request done;
    double d[2] = {0, 0};
    fab_status_t st;

    MPI_Send(NULL, 0, MPI_BYTE, s->lead_cong, ctx->tag + FAB_CT_STOP, ctx->comm);
    MPI_Irecv(d, 2, MPI_DOUBLE, s->lead_cong, ctx->tag + FAB_CT_DONE, ctx->comm, &done);
    st = fab_cong_wait(ctx, &done, 0, "the congestors' end (bytes and seconds)", s->lead_cong);
    *bytes = d[0];
    *secs = d[1];
    return st;
}
