/* SPDX-License-Identifier: BSD-3-Clause */
/* Splitting the ranks into groups that run a collective each: the rules alone, pure functions
 * (core/split.c). mod:K groups ranks by rank mod K (by local rank when K is the ranks per node
 * under block placement), div:K by rank / K (K consecutive ranks: a node under block
 * placement), node by host name, rail by the rank's index among its host's ranks (the same
 * local GPU and NIC of every node: one leaf switch on a rail-optimised fabric). `run --split`
 * (measure/runner.c) runs a collective in every group at once, one row per group. */
#ifndef FAB_CORE_SPLIT_H
#define FAB_CORE_SPLIT_H

#include <stddef.h>

#include "core/status.h"

typedef enum {
    FAB_SPLIT_NONE = 0,
    FAB_SPLIT_MOD,  /* mod:K */
    FAB_SPLIT_DIV,  /* div:K */
    FAB_SPLIT_NODE, /* node */
    FAB_SPLIT_RAIL, /* rail */
} fab_split_kind_t;

typedef struct fab_split {
    int kind; /* fab_split_kind_t */
    int k;    /* mod, div: K (>= 1); else 0 */
} fab_split_t;

/* "mod:K", "div:K", "node", "rail" into *sp; FAB_ERR_USAGE with the reason in err. */
fab_status_t fab_split_parse(const char *s, fab_split_t *sp, char *err, size_t errlen);
/* --split's check before MPI_Init (core/opt.h): fab_split_parse, the value dropped. */
fab_status_t fab_split_check_text(const char *s, char *err, size_t errlen);
/* The group of every rank 0 .. n-1 (hosts[r]: rank r's host name) into group[], numbered 0,
 * 1, ... in the order of each group's lowest rank; returns the number of groups. */
int fab_split_groups(const fab_split_t *sp, int n, const char *const *hosts, int *group);
/* Whether the split makes groups a collective can run in: at least two groups, each of at
 * least two ranks (FAB_ERR_CONFIG naming the smallest group otherwise). */
fab_status_t fab_split_check(const fab_split_t *sp, int n, const char *const *hosts, char *err,
                             size_t errlen);
/* Group g's name in the rows' group column: "mod4=1", "div2=3", "node=HOST", "rail=0" (the
 * group's lowest rank stands for it: its residue, quotient, host or local index). */
void fab_split_name(const fab_split_t *sp, int n, const char *const *hosts, int g, char *buf,
                    size_t len);

/* Group g's members, ascending, as "0,2,4" into buf (cut at len, ending "..."). */
void fab_split_members(int n, const int *group, int g, char *buf, size_t len);

#endif
