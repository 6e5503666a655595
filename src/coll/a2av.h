/* SPDX-License-Identifier: BSD-3-Clause */
/* The uneven all-to-all's support (its kernel is in kernels/): its send-count matrix, made by a
 * model (a Zipf spread over receivers, mixture-of-experts routing) or read from a counts file,
 * and what a row records of it (the busiest rank's elements, the imbalance per receiver and
 * per sender). Pure functions but the file's read: every rank computes the same matrix from
 * the same inputs (docs/METRICS.md, "Uneven all-to-all"). Counts are elements of the row's type. */
#ifndef FAB_COLL_A2AV_H
#define FAB_COLL_A2AV_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define FAB_A2AV_FILE_MAX  (16L << 20) /* bytes of a counts file read at most */
#define FAB_A2AV_RANKS_MAX 4096        /* ranks of a counts file: 16 MiB holds < 2900 */
#define FAB_A2AV_TOPK_MAX  64          /* experts one token goes to */

typedef enum {
    FAB_A2AV_SPREAD = 0, /* every rank sends `mean` elements, Zipf-spread over the receivers */
    FAB_A2AV_FILE,       /* the matrix of a counts file */
    FAB_A2AV_MOE,        /* `tokens` per rank routed to `topk` of `experts` (Zipf popularity) */
} fab_a2av_mode_t;

/* What makes the matrix. */
typedef struct fab_a2av_model {
    fab_a2av_mode_t mode;
    int n;          /* ranks */
    double spread;  /* the Zipf weights' max/mean (receivers; MOE: experts), >= 1 */
    uint64_t seed;  /* which receivers (experts) are popular; MOE: the routing too */
    long long mean; /* SPREAD: elements one rank sends (itself included) */
    int experts, topk;
    long long tokens, hidden; /* MOE: tokens per rank, elements per token and expert */
    const int *counts;        /* FILE: n x n, row i what rank i sends to each rank */
} fab_a2av_model_t;

/* A model made ready: the Zipf exponent and the popularity order. */
typedef struct fab_a2av {
    fab_a2av_model_t m;
    int k;           /* weighted items: n receivers, or the experts */
    double s;        /* the Zipf exponent: weight of popularity j is (j+1)^-s */
    double *cum;     /* cumulative weights in popularity order, the last 1 */
    int *order;      /* order[j]: the receiver (expert) of popularity j */
    long long *base; /* SPREAD: the row every rank sends */
} fab_a2av_t;

/* What a row records of a matrix (elements; ratios). */
typedef struct fab_a2av_stats {
    long long busiest;     /* max over ranks of the elements sent or received, itself included */
    int busiest_rank;      /* the lowest rank that moves them */
    long long total;       /* elements of the whole matrix */
    double mean;           /* total / n: what a rank sends (and receives) on average */
    double recv_imbalance; /* max over receivers / mean (1: even) */
    double send_imbalance; /* max over senders / mean */
} fab_a2av_stats_t;

/* The Zipf exponent s >= 0 for which k items weighted (j+1)^-s give the first factor x their
 * mean (k / H(k, s) = factor; 1 <= factor <= k, s within 1e-9). */
double fab_a2av_zipf_s(int k, double factor);
/* The 64-bit generator every rank runs alike (splitmix64): the next value of *state. */
uint64_t fab_a2av_rand(uint64_t *state);

/* Make a model ready (FAB_ERR_NOMEM, or FAB_ERR_CONFIG with why in err for a model that
 * cannot be: a spread above the items, top-k above the experts). */
fab_status_t fab_a2av_init(fab_a2av_t *a, const fab_a2av_model_t *m, char *err, size_t errlen);
void fab_a2av_free(fab_a2av_t *a);
/* Row i of the matrix: the elements rank i sends to each of the n ranks. */
void fab_a2av_row(const fab_a2av_t *a, int i, long long *row);
/* The matrix's statistics, and rank me's counts when scounts/rcounts are not NULL (me's row
 * and column, n each). FAB_ERR_CONFIG with why in err when a rank's elements sent or received
 * do not fit an int (MPI's counts and displacements) or the matrix moves nothing. */
fab_status_t fab_a2av_plan(const fab_a2av_t *a, int me, int *scounts, int *rcounts,
                           fab_a2av_stats_t *st, char *err, size_t errlen);

/* A counts file: n lines of n whole numbers (elements rank i sends to rank j), separated by
 * spaces or tabs; '#' to the line's end is a comment, blank lines are skipped. Parsed from
 * text (len bytes, name for messages) into counts (n x n). On error FAB_ERR_CONFIG with
 * "name:line: what" in err and what to do in hint. */
fab_status_t fab_a2av_parse(const char *text, size_t len, const char *name, int n, int *counts,
                            char *err, size_t errlen, char *hint, size_t hintlen);
/* Read and parse the file at path as hostile input: a regular file (no FIFO or device), at
 * most FAB_A2AV_FILE_MAX bytes, one bounded read. *counts is malloc'ed (n x n). */
fab_status_t fab_a2av_read(const char *path, int n, int **counts, char *err, size_t errlen,
                           char *hint, size_t hintlen);
/* A checksum of a matrix (FNV-1a over its counts), for the ranks to agree on their copies. */
uint64_t fab_a2av_hash(const int *counts, int n);

#endif
