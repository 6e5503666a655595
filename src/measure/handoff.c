/* SPDX-License-Identifier: BSD-3-Clause */
/* The hand-off of rows from a kernel's lead rank to rank 0 (measure/handoff.h). */
#include <time.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/signals.h"
#include "measure/handoff.h"

#define FAB_ROW_TAG       9001
#define FAB_IDLE_TAG      9005 /* fab_idle_barrier */
#define FAB_IDLE_SLEEP_NS 1000000L

fab_status_t fab_idle_wait(MPI_Request *req)
{
    const struct timespec nap = {0, FAB_IDLE_SLEEP_NS};
    int done = 0;

    for (;;) {
        fab_status_t st = FAB_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));

        if (st != FAB_OK || done)
            return st;
        nanosleep(&nap, NULL);
    }
}

/* A dissemination barrier of point-to-point messages: MPI_Ibarrier would register libnbc's
 * progress for the rest of the run on a communicator never freed (core/comm.h). */
fab_status_t fab_idle_barrier(MPI_Comm comm)
{
    int n = 1, me = 0;
    char out = 0, in = 0;
    fab_status_t st = FAB_OK;

    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    for (int k = 1; k < n && st == FAB_OK; k <<= 1) {
        MPI_Request q[2];

        st = FAB_MPI(MPI_Irecv(&in, 1, MPI_CHAR, (me - k + n) % n, FAB_IDLE_TAG, comm, &q[0]));
        if (st != FAB_OK)
            break;
        st = FAB_MPI(MPI_Isend(&out, 1, MPI_CHAR, (me + k) % n, FAB_IDLE_TAG, comm, &q[1]));
        if (st == FAB_OK)
            st = fab_idle_wait(&q[0]);
        if (st == FAB_OK)
            st = fab_idle_wait(&q[1]);
    }
    return st;
}

fab_status_t fab_handoff_send(fab_handoff_t *h, const double *samples, uint64_t n)
{
    int ack = 0;
    fab_status_t st;

    if (!h->want_samples)
        n = 0;
    st = FAB_MPI(MPI_Send(&h->row, sizeof(h->row), MPI_BYTE, 0, FAB_ROW_TAG, MPI_COMM_WORLD));
    if (st != FAB_OK || h->row.iters == 0)
        return st;
    if (h->want_samples) {
        st = FAB_MPI(MPI_Send(&n, 1, MPI_UINT64_T, 0, FAB_ROW_TAG, MPI_COMM_WORLD));
        if (st == FAB_OK && n > 0)
            st = FAB_MPI(MPI_Send(samples, (int)n, MPI_DOUBLE, 0, FAB_ROW_TAG, MPI_COMM_WORLD));
    }
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Recv(&ack, 1, MPI_INT, 0, FAB_ROW_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (st == FAB_OK && ack != FAB_STOP_NONE)
        fab_stop_request(ack);
    return st;
}

fab_status_t fab_handoff_recv(fab_handoff_t *h, int lead, bool active)
{
    MPI_Request req;
    uint64_t n = 0;
    fab_status_t st = FAB_MPI(
        MPI_Irecv(&h->row, sizeof(h->row), MPI_BYTE, lead, FAB_ROW_TAG, MPI_COMM_WORLD, &req));

    if (st == FAB_OK)
        st = active ? FAB_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE)) : fab_idle_wait(&req);
    h->nsamples = 0;
    if (st != FAB_OK || h->row.iters == 0 || !h->want_samples)
        return st;
    st = FAB_MPI(
        MPI_Recv(&n, 1, MPI_UINT64_T, lead, FAB_ROW_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (st == FAB_OK && n > h->cap) {
        FAB_ERROR("rank %d sent %llu samples, more than the %zu expected", lead,
                  (unsigned long long)n, h->cap);
        return FAB_ERR_INTERNAL;
    }
    if (st == FAB_OK && n > 0)
        st = FAB_MPI(MPI_Recv(h->samples, (int)n, MPI_DOUBLE, lead, FAB_ROW_TAG, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
    h->nsamples = (size_t)n;
    return st;
}

fab_status_t fab_handoff_answer(int lead)
{
    int ack = fab_stop_flag;

    return FAB_MPI(MPI_Send(&ack, 1, MPI_INT, lead, FAB_ROW_TAG, MPI_COMM_WORLD));
}
