/* Who we are: rank, host, the hosts of all ranks, agreement on a status. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fab.h"

fab_status_t fab_mpi_fail(int mpi_rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string(mpi_rc, msg, &len);
    FAB_ERROR("%s failed: %s", what, msg);
    return FAB_ERR_MPI;
}

fab_status_t fab_world_init(fab_world_t *w)
{
    char *all = NULL;
    MPI_Comm node;
    fab_status_t st;

    memset(w, 0, sizeof(*w));
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    if (gethostname(w->host, sizeof(w->host) - 1) != 0)
        strcpy(w->host, "unknown-host");
    w->host[sizeof(w->host) - 1] = '\0';
    fab_log_init(w->rank, w->host);

    st =
        FAB_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    if (st != FAB_OK)
        return st;
    MPI_Comm_size(node, &w->local_ranks);
    MPI_Comm_free(&node);

    if (w->rank == 0) {
        all = malloc((size_t)w->size * FAB_HOST_MAX);
        w->hosts = calloc((size_t)w->size, sizeof(*w->hosts));
    }
    /* Rank 0's allocation is agreed on first: the others must not wait in the gather. */
    st = fab_agree(w->rank == 0 && (!all || !w->hosts) ? FAB_ERR_NOMEM : FAB_OK, MPI_COMM_WORLD);
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Gather(w->host, FAB_HOST_MAX, MPI_CHAR, all, FAB_HOST_MAX, MPI_CHAR, 0,
                                MPI_COMM_WORLD));
    if (st != FAB_OK && w->rank == 0) {
        free(all);
        free(w->hosts);
        w->hosts = NULL;
    }
    if (st == FAB_OK && w->rank == 0) {
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
