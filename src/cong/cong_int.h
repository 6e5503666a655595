/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of cong/cong.h share: the state of one instance, the traffic (cong_traffic.c)
 * and the bounded waits. */
#ifndef FAB_CONG_CONG_INT_H
#define FAB_CONG_CONG_INT_H

#include "kernel/fab_kernel.h"

typedef struct fab_cong_opts {
    fab_list_t congestor; /* the axis: fab_congestor_t values */
    double frac;          /* --congestor-frac */
    const char *canaries; /* --canaries HOST,HOST */
    int ops;              /* --canary-ops: canary operations per window */
    double wait_s;        /* --cong-wait: the bound of every wait */
} fab_cong_opts_t;
extern fab_cong_opts_t fab_cong_opt;

/* The kernel's columns, in kcols order. */
enum {
    FAB_CC_CONGESTOR = 0,
    FAB_CC_ALONE, /* mean, p50, p99, p99.9 */
    FAB_CC_CONG = FAB_CC_ALONE + 4,
    FAB_CC_CIF_MEAN = FAB_CC_CONG + 4,
    FAB_CC_CIF_P99,
    FAB_CC_GBPS,
    FAB_CC_LOAD,
    FAB_CC_WORST,
    FAB_CC_WARN,
    FAB_CC_NAME, /* the pattern's word (text: FAB_KCOL_AXIS_WORD) */
    FAB_CC_N,
};

/* The lead canary's record of one size (one row), and what the other ranks need of it. */
typedef struct fab_cong_row {
    double *pool[2]; /* the recorded samples, alone and congested, s (lead) */
    size_t npool[2];
    double *rsum;         /* per canary: its sums alone and congested (lead) */
    double cbytes, csecs; /* the congestors' bytes and seconds while recording (lead) */
    double alone_gbps;    /* the congestors alone at this size (lead) */
    bool rated;           /* the rate alone is measured (every rank) */
    bool recording;       /* its first timed block has begun */
    bool recorded;        /* a trial was recorded */
    double col[FAB_CC_N]; /* the lead's columns now */
} fab_cong_row_t;

typedef struct fab_cong_state {
    int canary;  /* fab_canary_t */
    int pattern; /* fab_congestor_t */
    bool is_canary;
    MPI_Comm sub;               /* the canaries' or the congestors' communicator */
    int sub_rank, sub_size;     /* in sub */
    int lead_canary, lead_cong; /* their ranks in ctx->comm */
    int *cong_ranks;            /* the congestors' ranks in ctx->comm (lead canary) */
    int *canary_world;          /* the canaries' ranks in ctx->comm, by sub rank (lead) */
    int left, right;            /* the random ring's neighbours, in sub */
    char *buf;                  /* own buffers: 2 x buflen */
    size_t buflen;
    MPI_Win win; /* put_incast, get_bcast */
    bool win_open;
    double *mine;         /* this canary's samples of a trial: 2 x ops, s */
    fab_cong_row_t *rows; /* one per size (ctx->sizes), the lead's record of each */
    fab_cong_row_t *r;    /* the size being measured */
    size_t cap;           /* samples one row keeps per phase */
    unsigned warn;        /* FAB_CONG_W_SHARED, FAB_CONG_W_FEW_NODES */
    char (*names)[64];    /* every rank's host (ctx->comm order) */
} fab_cong_state_t;

/* Tags: ctx->tag + these. */
enum { FAB_CT_START = 1, FAB_CT_RUNNING, FAB_CT_STOP, FAB_CT_DONE, FAB_CT_RING };

/* Wait for r within fab_cong_opt.wait_s, sleeping `nap_us` between tests; on timeout log what
 * was awaited and from whom, and return FAB_ERR_MPI. */
fab_status_t fab_cong_wait(const fab_kctx_t *ctx, MPI_Request *r, int nap_us, const char *what,
                           int peer);
/* One canary operation on the canaries' communicator. */
fab_status_t fab_cong_canary_op(fab_kctx_t *ctx, fab_cong_state_t *s);
/* The congestors' window: wait for the start, run the pattern until the lead canary says
 * stop (agreed every operation), the lead hands bytes and seconds to the lead canary. */
fab_status_t fab_cong_congest(fab_kctx_t *ctx, fab_cong_state_t *s, size_t bytes);
/* The lead canary's side of it: start the congestors and wait until they run; stop them and
 * take their bytes and seconds. */
fab_status_t fab_cong_start(fab_kctx_t *ctx, fab_cong_state_t *s);
fab_status_t fab_cong_stop(fab_kctx_t *ctx, fab_cong_state_t *s, double *bytes, double *secs);
/* Sleep us microseconds (0: none). */
void fab_cong_nap(int us);
/* Bytes one congestor operation moves, all congestors together. */
double fab_cong_op_bytes(int p, int n, size_t bytes);

#endif
