/* SPDX-License-Identifier: BSD-3-Clause */
/* Who we are: rank, host, the hosts of all ranks; agreement on a status. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/comm.h"
#include "core/log.h"
#include "core/mpi_call.h"
#include "core/world.h"

#define FAB_MSG_TAG 9002

static int fab_node_id = -1; /* fab_world_node_id */

fab_status_t fab_world_init(fab_world_t *w)
{
    char *all = NULL;
    fab_status_t st;

    memset(w, 0, sizeof(*w));
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
#ifdef FAB_SIM
    {
        /* every simulated rank runs in one process on one real host (core/sim.h) */
        int len = 0;

        if (MPI_Get_processor_name(w->host, &len) != MPI_SUCCESS || len <= 0)
            strcpy(w->host, "unknown-host");
    }
#else
    if (gethostname(w->host, sizeof(w->host) - 1) != 0)
        strcpy(w->host, "unknown-host");
#endif
    w->host[sizeof(w->host) - 1] = '\0';
    fab_log_init(w->rank, w->host);

    st = fab_comm_node_rank(MPI_COMM_WORLD, 0, &w->local_rank, &w->local_ranks, &w->node_id);
    if (st != FAB_OK)
        return st;
    /* The host's ranks and leader, once for the run: placement, inventory and measurement
     * used to make communicators of their own (each costs Open MPI several collectives). */
    fab_node_id = w->node_id;

    /* Every rank knows every rank's host: messages (a stalled peer) name them. */
    all = malloc((size_t)w->size * FAB_HOST_MAX);
    w->hosts = calloc((size_t)w->size, sizeof(*w->hosts));
    /* The allocations are agreed on first: no rank may wait in the gather for one that failed. */
    st = fab_agree(!all || !w->hosts ? FAB_ERR_NOMEM : FAB_OK, MPI_COMM_WORLD);
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Allgather(w->host, FAB_HOST_MAX, MPI_CHAR, all, FAB_HOST_MAX, MPI_CHAR,
                                   MPI_COMM_WORLD));
    if (st != FAB_OK) {
        free(all);
        free(w->hosts);
        w->hosts = NULL;
    }
    if (st == FAB_OK) {
        for (int i = 0; i < w->size; i++) {
            bool seen = false;

            w->hosts[i] = all + (size_t)i * FAB_HOST_MAX;
            for (int j = 0; j < i && !seen; j++)
                seen = strcmp(w->hosts[j], w->hosts[i]) == 0;
            w->nhosts += !seen;
        }
    }
    return st;
}

int fab_world_node_id(void)
{
    return fab_node_id;
}

void fab_world_free(fab_world_t *w)
{
    if (w->hosts)
        free(w->hosts[0]);
    free(w->hosts);
    w->hosts = NULL;
}

fab_status_t fab_agree(fab_status_t st, MPI_Comm comm)
{
    int mine = (int)st, all = (int)st;

    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return (fab_status_t)all;
}

/* Agree on the worst status; the lowest failing rank's message reaches rank 0, which prints
 * it with the failing rank's name. */
fab_status_t fab_agree_msg(const fab_world_t *w, fab_status_t st, const char *msg, const char *hint)
{
    struct {
        int st;
        int rank;
    } in = {(int)st, st == FAB_OK ? w->size : w->rank}, out;
    char text[1024] = "";

    MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (out.st == FAB_OK)
        return FAB_OK;
    /* MINLOC over the status picks the worst; among equal statuses the lowest rank. */
    if (w->rank == out.rank && out.rank != 0)
        snprintf(text, sizeof(text), "%s|%s", msg ? msg : "", hint ? hint : "");
    if (out.rank != 0) {
        if (w->rank == out.rank)
            MPI_Send(text, sizeof(text), MPI_CHAR, 0, FAB_MSG_TAG, MPI_COMM_WORLD);
        else if (w->rank == 0)
            MPI_Recv(text, sizeof(text), MPI_CHAR, out.rank, FAB_MSG_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    if (w->rank == 0) {
        const char *m = msg, *h = hint;
        char *bar;

        if (out.rank != 0) {
            bar = strchr(text, '|');
            if (bar)
                *bar = '\0';
            m = text;
            h = bar ? bar + 1 : "";
        }
        if (out.rank != 0)
            FAB_ERROR("on rank %d (%s): %s", out.rank, w->hosts[out.rank], m);
        else
            FAB_ERROR("%s", m ? m : fab_status_string((fab_status_t)out.st));
        if (h && *h)
            fprintf(stderr, "hint: %s\n", h);
    }
    return (fab_status_t)out.st;
}
