/* SPDX-License-Identifier: BSD-3-Clause */
/* Who we are (rank, host, every rank's host) and how ranks agree on an outcome, so that no
 * rank is left waiting for another that gave up. */
#ifndef FAB_CORE_WORLD_H
#define FAB_CORE_WORLD_H

#include <mpi.h>

#include "core/status.h"

#define FAB_HOST_MAX 256

typedef struct fab_world {
    int rank, size;
    char host[FAB_HOST_MAX];
    char **hosts;    /* per world rank (every rank has them) */
    int nhosts;      /* distinct hosts */
    int local_ranks; /* ranks on this rank's host */
    int local_rank;  /* this rank among them (0: its host's first, the host's leader) */
    int node_id;     /* the world rank of its host's first rank: the same on one host */
} fab_world_t;

/* Collective over MPI_COMM_WORLD; also sets the log prefix. */
fab_status_t fab_world_init(fab_world_t *w);
void fab_world_free(fab_world_t *w);

/* This process's node_id (above; -1 before fab_world_init): for code without the world, so
 * that it needs no communicator of its own to tell the ranks of one host apart. */
int fab_world_node_id(void);
/* Every rank agrees on the worst status (the most negative one). */
fab_status_t fab_agree(fab_status_t st, MPI_Comm comm);
/* Every rank agrees on st; the lowest failing rank's msg and hint are printed by rank 0,
 * naming that rank and its host. */
fab_status_t fab_agree_msg(const fab_world_t *w, fab_status_t st, const char *msg,
                           const char *hint);

#endif
