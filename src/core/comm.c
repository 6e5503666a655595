/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/mpi_call.h"

#define FAB_COMM_TAG 9004 /* MPI_Comm_create_group's tag (disjoint groups may share it) */

typedef struct {
    int color, key, rank;
} fab_member_t;

static int fab_member_cmp(const void *a, const void *b)
{
    const fab_member_t *x = a, *y = b;

    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static fab_status_t fab_comm_split_group(MPI_Comm parent, int color, int key, MPI_Comm *out)
{
    int n = 0, me = 0, cnt = 0;
    fab_member_t mine, *all;
    int *ranks;
    MPI_Group pg = MPI_GROUP_NULL, g = MPI_GROUP_NULL;
    fab_status_t st;

    *out = MPI_COMM_NULL;
    MPI_Comm_size(parent, &n);
    MPI_Comm_rank(parent, &me);
    all = malloc(sizeof(*all) * (size_t)n);
    ranks = malloc(sizeof(*ranks) * (size_t)n);
    /* the allocations are agreed on first: no rank may wait in the gather for one that failed */
    {
        int ok = all && ranks, every = 0;

        st = FAB_MPI(MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, parent));
        if (st == FAB_OK && !every)
            st = FAB_ERR_NOMEM;
    }
    mine = (fab_member_t){color, key, me};
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Allgather(&mine, 3, MPI_INT, all, 3, MPI_INT, parent));
    if (st == FAB_OK && color != MPI_UNDEFINED) {
        for (int i = 0; i < n; i++)
            if (all[i].color == color)
                all[cnt++] = all[i];
        qsort(all, (size_t)cnt, sizeof(*all), fab_member_cmp);
        for (int i = 0; i < cnt; i++)
            ranks[i] = all[i].rank;
        st = FAB_MPI(MPI_Comm_group(parent, &pg));
        if (st == FAB_OK)
            st = FAB_MPI(MPI_Group_incl(pg, cnt, ranks, &g));
        if (st == FAB_OK)
            st = FAB_MPI(MPI_Comm_create_group(parent, g, FAB_COMM_TAG, out));
        if (g != MPI_GROUP_NULL)
            MPI_Group_free(&g);
        if (pg != MPI_GROUP_NULL)
            MPI_Group_free(&pg);
    }
    free(all);
    free(ranks);
    return st;
}

fab_status_t fab_comm_split(MPI_Comm parent, int color, int key, MPI_Comm *out)
{
#ifdef FAB_SIM
    /* SMPI has no libnbc, and its MPI_Comm_create_group costs the simulator more real time
     * (core/sim.h) */
    (void)fab_comm_split_group;
    return FAB_MPI(MPI_Comm_split(parent, color, key, out));
#else
    return fab_comm_split_group(parent, color, key, out);
#endif
}

fab_status_t fab_comm_scratch(MPI_Comm parent, MPI_Comm *out)
{
    MPI_Group g;
    fab_status_t st = FAB_MPI(MPI_Comm_group(parent, &g));

    *out = MPI_COMM_NULL;
    if (st != FAB_OK)
        return st;
    st = FAB_MPI(MPI_Comm_create_group(parent, g, FAB_COMM_TAG, out));
    MPI_Group_free(&g);
    return st;
}

fab_status_t fab_comm_node_rank(MPI_Comm parent, int key, int *rank, int *size, int *leader)
{
    MPI_Comm scratch = parent, node = MPI_COMM_NULL;
#ifdef FAB_SIM
    fab_status_t st = FAB_OK; /* no libnbc in SMPI: on the parent itself (core/sim.h) */
#else
    fab_status_t st = fab_comm_scratch(parent, &scratch);
#endif

    if (st == FAB_OK)
        st = FAB_MPI(MPI_Comm_split_type(scratch, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &node));
    if (st == FAB_OK) {
        MPI_Comm_rank(node, rank);
        MPI_Comm_size(node, size);
        if (leader) { /* the parent's rank of the part's first rank */
            MPI_Comm_rank(parent, leader);
            st = FAB_MPI(MPI_Bcast(leader, 1, MPI_INT, 0, node));
        }
    }
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    if (scratch != MPI_COMM_NULL && scratch != parent)
        MPI_Comm_free(&scratch); /* the last user of libnbc: its progress is unregistered */
    return st;
}

static int fab_find_libnbc(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "mca_coll_libnbc")) {
        void **h = data;

        *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        return 1;
    }
    return 0;
}

int fab_comm_libnbc_registered(void)
{
    typedef int (*cb_t)(void);
    int (*reg)(cb_t) = (int (*)(cb_t))dlsym(RTLD_DEFAULT, "opal_progress_register");
    int (*unreg)(cb_t) = (int (*)(cb_t))dlsym(RTLD_DEFAULT, "opal_progress_unregister");
    void *lib = NULL;
    cb_t cb = (cb_t)dlsym(RTLD_DEFAULT, "ompi_coll_libnbc_progress");
    int r;

    if (!cb) { /* a component loaded as its own object, RTLD_LOCAL */
        dl_iterate_phdr(fab_find_libnbc, &lib);
        cb = lib ? (cb_t)dlsym(lib, "ompi_coll_libnbc_progress") : NULL;
    }
    if (!reg || !unreg || !cb)
        r = -1;
    else if (unreg(cb) == 0) { /* OPAL_SUCCESS: it was registered; put it back */
        reg(cb);
        r = 1;
    } else {
        r = 0;
    }
    if (lib)
        dlclose(lib);
    return r;
}
