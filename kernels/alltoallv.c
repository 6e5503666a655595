/* SPDX-License-Identifier: BSD-3-Clause */
/* alltoallv: MPI_Alltoallv with uneven counts, the traffic of mixture-of-experts layers. The
 * send-count matrix (coll/a2av.h) comes from one of three sources: --spread F (every rank sends
 * -m's bytes, Zipf-spread over the receivers so that the most popular gets F x the mean),
 * --counts FILE (an N x N matrix of elements), or --experts N --topk K --tokens T --hidden H
 * (T tokens per rank, each to K of N experts of Zipf popularity --spread, H elements of --dtype
 * per token and expert). --seed picks the popular ranks (experts) and the routing. `bytes` is
 * the busiest rank's: the most any rank sends or receives, itself included; busbw = algbw x
 * (n-1)/n as alltoall's (docs/METRICS.md, "alltoallv"). Every rank computes the same matrix;
 * a counts file is read by every rank (a shared file system) and the ranks compare copies. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/a2av.h"
#include "fab_kernel.h"

typedef struct a2av_opts {
    double spread;
    const char *counts;
    int experts, topk;
    long tokens, hidden, seed;
} a2av_opts_t;

static a2av_opts_t a2av_opt;

#define OFF(f) offsetof(a2av_opts_t, f)
static const fab_opt_t a2av_options[] = {
    {"spread", 0, FAB_OPT_DOUBLE, OFF(spread), 1, 65536, "F", "x the mean", "1",
     "alltoallv: the most popular receiver (with --experts: expert) gets F x the mean, the rest "
     "a Zipf distribution; 1 is even",
     0, false, NULL},
    {"counts", 0, FAB_OPT_STRING, OFF(counts), 0, 0, "FILE", NULL, "none",
     "alltoallv: an N x N send-count matrix in elements (row i: what rank i sends to each rank; "
     "'#' comments); -m and --spread are refused beside it",
     0, false, NULL},
    {"experts", 0, FAB_OPT_INT, OFF(experts), 0, 1048576, "N", "experts", "0",
     "alltoallv: mixture-of-experts routing to N experts spread over the ranks in blocks (0: "
     "off); with --topk, --tokens, --hidden, --dtype; -m is refused beside it",
     0, false, NULL},
    {"topk", 0, FAB_OPT_INT, OFF(topk), 1, 64, "K", "experts", "2",
     "alltoallv: experts each token goes to (with --experts)", 0, false, NULL},
    {"tokens", 0, FAB_OPT_LONG, OFF(tokens), 1, 1e6, "T", "tokens", "4096",
     "alltoallv: tokens each rank routes (with --experts)", 0, false, NULL},
    {"hidden", 0, FAB_OPT_LONG, OFF(hidden), 1, 1e8, "H", "elements", "4096",
     "alltoallv: a token's elements of --dtype (with --experts): bytes = tokens x hidden x size", 0,
     false, NULL},
    {"seed", 0, FAB_OPT_LONG, OFF(seed), 0, 1e15, "S", NULL, "1",
     "alltoallv: which ranks (experts) are popular, and the routing; the same on every rank", 0,
     false, NULL},
};
static const fab_kopts_t a2av_kopts = {a2av_options, sizeof(a2av_options) / sizeof(a2av_options[0]),
                                       &a2av_opt};

static const fab_kcol_t a2av_kcols[] = {
    {"recv_imbalance", "rx_imb", "ratio",
     "alltoallv: the most elements one rank receives over the mean per rank (1: even), itself "
     "included",
     FAB_KCOL_GAUGE},
    {"send_imbalance", "tx_imb", "ratio",
     "alltoallv: the most elements one rank sends over the mean per rank (1: even), itself "
     "included",
     FAB_KCOL_GAUGE},
    {"mean_bytes", "mean_B", "bytes",
     "alltoallv: the bytes a rank sends on average (the matrix's total over the ranks); the row's "
     "bytes are the busiest rank's",
     FAB_KCOL_GAUGE},
};

/* One size's matrix on this rank: its counts and displacements, what the row records. */
typedef struct a2av_size {
    size_t bytes; /* fitted: the busiest rank's */
    int *sc, *sd, *rc, *rd;
    fab_a2av_stats_t st;
} a2av_size_t;

typedef struct a2av {
    int nsz, last; /* sizes: -m's (--spread), else one matrix for every size */
    a2av_size_t *sz;
} a2av_t;

static int *a2av_file;  /* the counts file's matrix, read once per process */
static int a2av_file_n; /* its ranks */

static fab_a2av_mode_t a2av_mode(void)
{
    return a2av_opt.counts ? FAB_A2AV_FILE : a2av_opt.experts > 0 ? FAB_A2AV_MOE : FAB_A2AV_SPREAD;
}

/* The model for a requested size (SPREAD: -m's bytes a rank sends; the others ignore it). */
static fab_status_t a2av_model(const fab_kctx_t *ctx, size_t bytes, fab_a2av_t *a, char *err,
                               size_t len, char *hint, size_t hlen)
{
    size_t mean = bytes / ctx->dtype.size;
    fab_a2av_model_t m = {a2av_mode(),
                          ctx->size,
                          a2av_opt.spread,
                          (uint64_t)a2av_opt.seed,
                          mean > 0 ? (long long)mean : 1,
                          a2av_opt.experts,
                          a2av_opt.topk,
                          a2av_opt.tokens,
                          a2av_opt.hidden,
                          NULL};
    fab_status_t st;

    memset(a, 0, sizeof(*a));
    if (m.mode == FAB_A2AV_FILE && (!a2av_file || a2av_file_n != ctx->size)) {
        free(a2av_file);
        a2av_file_n = ctx->size;
        st = fab_a2av_read(a2av_opt.counts, ctx->size, &a2av_file, err, len, hint, hlen);
        if (st != FAB_OK)
            return st;
    }
    m.counts = a2av_file;
    snprintf(hint, hlen,
             "--spread is at most the ranks (with --experts: the experts), --topk at "
             "most --experts; a rank sends or receives at most 2^31-1 elements");
    return fab_a2av_init(a, &m, err, len);
}

/* The matrix's statistics for a requested size, and rank me's counts (when sc is not NULL). */
static fab_status_t a2av_plan(const fab_kctx_t *ctx, size_t bytes, int me, int *sc, int *rc,
                              fab_a2av_stats_t *st)
{
    char err[256], hint[160];
    fab_a2av_t a;
    fab_status_t rc_ = a2av_model(ctx, bytes, &a, err, sizeof(err), hint, sizeof(hint));

    if (rc_ == FAB_OK)
        rc_ = fab_a2av_plan(&a, me, sc, rc, st, err, sizeof(err));
    fab_a2av_free(&a);
    return rc_;
}

/* The options that make the matrix are the same as o's. */
static bool a2av_same_opts(const a2av_opts_t *o)
{
    return o->spread == a2av_opt.spread && o->counts == a2av_opt.counts &&
           o->experts == a2av_opt.experts && o->topk == a2av_opt.topk &&
           o->tokens == a2av_opt.tokens && o->hidden == a2av_opt.hidden && o->seed == a2av_opt.seed;
}

/* The row's bytes: the busiest rank's (cached: the matrix of the last size asked). */
static size_t a2av_fit(const fab_kctx_t *ctx, size_t bytes)
{
    static struct {
        a2av_opts_t o;
        int n;
        size_t esz, bytes, fitted;
    } c;
    fab_a2av_stats_t st;

    if (a2av_mode() != FAB_A2AV_SPREAD)
        bytes = 0;
    if (c.fitted && c.n == ctx->size && c.esz == ctx->dtype.size && c.bytes == bytes &&
        a2av_same_opts(&c.o))
        return c.fitted;
    if (a2av_plan(ctx, bytes, 0, NULL, NULL, &st) != FAB_OK)
        return fab_coll_fit(ctx, bytes, 1); /* refused by the check */
    c.o = a2av_opt;
    c.n = ctx->size;
    c.esz = ctx->dtype.size;
    c.bytes = bytes;
    c.fitted = (size_t)st.busiest * ctx->dtype.size;
    return c.fitted;
}

/* The MoE options that act only with --experts (rows 3-5 of the table): the first one whose
 * value is not its default, NULL when none is (a default given again changes nothing). */
static const char *a2av_moe_given(void)
{
    const double v[] = {a2av_opt.topk, (double)a2av_opt.tokens, (double)a2av_opt.hidden};

    for (int i = 0; i < 3; i++)
        if (v[i] != strtod(a2av_options[3 + i].def, NULL))
            return a2av_options[3 + i].name;
    return NULL;
}

/* Before measuring: one source of counts, a model that can be, counts that fit. */
static fab_status_t a2av_check(const fab_kctx_t *ctx, char *msg, size_t len, char *hint,
                               size_t hlen)
{
    fab_a2av_t a;
    fab_a2av_stats_t st;
    size_t most = 0;
    fab_status_t rc;

    if (a2av_opt.counts && (a2av_opt.experts > 0 || a2av_opt.spread != 1.0)) {
        snprintf(msg, len, "--counts gives the whole matrix: --spread and --experts do not apply");
        snprintf(hint, hlen, "give --counts FILE alone, or --spread/--experts without it");
        return FAB_ERR_CONFIG;
    }
    if (a2av_mode() != FAB_A2AV_SPREAD && ctx->sizes_given) { /* one matrix, whatever -m says */
        snprintf(msg, len, "-m/--sizes does not apply with %s",
                 a2av_opt.counts ? "--counts: the file gives every rank's elements"
                                 : "--experts: a rank's bytes are --tokens x --topk x --hidden x "
                                   "the --dtype's size (the mixture-of-experts shorthand)");
        snprintf(hint, hlen,
                 "drop -m (a kernel that needs it goes in a run of its own), or drop %s and "
                 "spread -m's bytes with --spread F",
                 a2av_opt.counts ? "--counts" : "--experts");
        return FAB_ERR_CONFIG;
    }
    if (a2av_opt.experts == 0 && a2av_moe_given()) {
        snprintf(msg, len,
                 "--%s shapes the mixture-of-experts routing, which only --experts N "
                 "turns on",
                 a2av_moe_given());
        snprintf(hint, hlen, "add --experts N (with --topk, --tokens, --hidden), or drop --%s",
                 a2av_moe_given());
        return FAB_ERR_CONFIG;
    }
    for (int i = 0; i < ctx->nsizes; i++)
        most = ctx->sizes[i] > most ? ctx->sizes[i] : most;
    rc = a2av_model(ctx, most, &a, msg, len, hint, hlen);
    if (rc == FAB_OK)
        rc = fab_a2av_plan(&a, 0, NULL, NULL, &st, msg, len);
    fab_a2av_free(&a);
    return rc;
}

static void a2av_cleanup(fab_kctx_t *ctx, void *state)
{
    a2av_t *a = state;

    (void)ctx;
    for (int i = 0; a && a->sz && i < a->nsz; i++) {
        free(a->sz[i].sc);
        free(a->sz[i].sd);
        free(a->sz[i].rc);
        free(a->sz[i].rd);
    }
    if (a)
        free(a->sz);
    free(a);
}

/* Size i's counts and displacements on this rank (they fit the harness's buffers). */
static fab_status_t a2av_size_setup(fab_kctx_t *ctx, a2av_t *a, int i, uint64_t *h)
{
    a2av_size_t *z = &a->sz[i];
    size_t n = (size_t)ctx->size;
    long long ds = 0, dr = 0;
    fab_status_t st;

    z->sc = calloc(n, sizeof(int));
    z->sd = calloc(n, sizeof(int));
    z->rc = calloc(n, sizeof(int));
    z->rd = calloc(n, sizeof(int));
    if (!z->sc || !z->sd || !z->rc || !z->rd)
        return FAB_ERR_NOMEM;
    z->bytes = a2av_fit(ctx, ctx->sizes[i]);
    st = a2av_plan(ctx, ctx->sizes[i], ctx->rank, z->sc, z->rc, &z->st);
    for (size_t j = 0; j < n && st == FAB_OK; j++) {
        z->sd[j] = (int)ds;
        z->rd[j] = (int)dr;
        ds += z->sc[j];
        dr += z->rc[j];
    }
    if (st == FAB_OK && (size_t)(ds > dr ? ds : dr) * ctx->dtype.size > ctx->max_bytes) {
        FAB_ERROR("alltoallv: size %zu needs %lld elements, more than a buffer of %zu bytes",
                  ctx->sizes[i], ds > dr ? ds : dr, ctx->max_bytes);
        st = FAB_ERR_INTERNAL;
    }
    *h = (*h ^ (uint64_t)z->st.total) * 0x100000001b3ULL;
    *h = (*h ^ (uint64_t)z->st.busiest ^ ((uint64_t)z->st.busiest_rank << 48)) * 0x100000001b3ULL;
    return st;
}

/* Every size's counts; the ranks agree that they computed (or read) the same matrices. */
static fab_status_t a2av_setup(fab_kctx_t *ctx, void **state)
{
    a2av_t *a = calloc(1, sizeof(*a));
    uint64_t h = 0xcbf29ce484222325ULL, mine[2], most[2];
    fab_status_t st = FAB_OK;

    *state = a;
    if (a) {
        a->nsz = a2av_mode() == FAB_A2AV_SPREAD ? ctx->nsizes : 1;
        a->sz = calloc((size_t)a->nsz, sizeof(*a->sz));
    }
    if (!a || !a->sz)
        st = FAB_ERR_NOMEM;
    for (int i = 0; i < a->nsz && st == FAB_OK; i++)
        st = a2av_size_setup(ctx, a, i, &h);
    if (a2av_file)
        h ^= fab_a2av_hash(a2av_file, a2av_file_n);
    /* A rank that failed takes part too, with a value no matrix gives: the others stop. */
    mine[0] = st == FAB_OK ? h : UINT64_MAX;
    mine[1] = st == FAB_OK ? ~h : UINT64_MAX;
    if (FAB_MPI(MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, ctx->comm)) != FAB_OK)
        st = FAB_ERR_MPI;
    if (st == FAB_OK && (most[0] != mine[0] || most[1] != mine[1])) {
        if (ctx->rank == 0)
            FAB_ERROR("alltoallv: the ranks' matrices differ (a counts file that differs between "
                      "hosts, a different build), or another rank could not make its own");
        st = FAB_ERR_CONFIG;
    }
    ctx->timer = true;
    return st;
}

static a2av_size_t *a2av_find(a2av_t *a, size_t bytes)
{
    if (a->sz[a->last].bytes == bytes)
        return &a->sz[a->last];
    for (int i = 0; i < a->nsz; i++)
        if (a->sz[i].bytes == bytes) {
            a->last = i;
            return &a->sz[i];
        }
    return NULL;
}

static fab_status_t a2av_call(fab_kctx_t *ctx, const a2av_size_t *z)
{
    MPI_Datatype t = ctx->dtype.mpi;

    if (ctx->nonblocking) {
        MPI_Request q;
        fab_status_t st = FAB_MPI(
            MPI_Ialltoallv(ctx->sbuf, z->sc, z->sd, t, ctx->rbuf, z->rc, z->rd, t, ctx->comm, &q));

        return st != FAB_OK ? st : fab_coll_finish(ctx, &q);
    }
    return FAB_MPI(
        MPI_Alltoallv(ctx->sbuf, z->sc, z->sd, t, ctx->rbuf, z->rc, z->rd, t, ctx->comm));
}

static fab_status_t a2av_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    a2av_size_t *z = a2av_find(state, bytes);

    return z ? a2av_call(ctx, z) : FAB_ERR_INTERNAL;
}

/* The block for rank j holds this rank's values for elements j, j+1, ...; after the exchange,
 * the block from rank k must hold k's values for elements me, me+1, ... */
static fab_status_t a2av_validate(fab_kctx_t *ctx, void *state, size_t bytes, uint32_t seed,
                                  long *errors)
{
    a2av_size_t *z = a2av_find(state, bytes);
    size_t esz = ctx->dtype.size, n = (size_t)ctx->size;
    fab_status_t st;

    if (!z)
        return FAB_ERR_INTERNAL;
    for (size_t j = 0; j < n; j++)
        fab_coll_fill(ctx, ctx->sbuf + (size_t)z->sd[j] * esz, (size_t)z->sc[j], ctx->rank, j,
                      seed);
    memset(ctx->rbuf, 0xff, ((size_t)z->rd[n - 1] + (size_t)z->rc[n - 1]) * esz);
    st = a2av_call(ctx, z);
    for (size_t k = 0; k < n && st == FAB_OK; k++)
        *errors += fab_coll_check(ctx, ctx->rbuf + (size_t)z->rd[k] * esz, (size_t)z->rc[k],
                                  (size_t)ctx->rank, (int)k, seed, "alltoallv");
    return st;
}

/* The imbalance columns: the matrix of the size being measured. */
static void a2av_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    a2av_size_t *z = a2av_find(state, ctx->bytes);

    if (!z)
        return;
    c[0] = z->st.recv_imbalance;
    c[1] = z->st.send_imbalance;
    c[2] = z->st.mean * (double)ctx->dtype.size;
}

static void a2av_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    const char *sz = "bytes = the busiest rank's bytes (sent or received, itself included); "
                     "busbw = algbw x (n-1)/n";

    if (a2av_mode() == FAB_A2AV_FILE)
        snprintf(buf, len, "counts from %s (%d x %d elements of %s); %s", a2av_opt.counts,
                 ctx->size, ctx->size, ctx->dtype.name, sz);
    else if (a2av_mode() == FAB_A2AV_MOE)
        snprintf(buf, len,
                 "%ld tokens per rank to top-%d of %d experts (Zipf popularity: spread %g, "
                 "exponent %.4g, seed %ld), %ld x %s (%zu B) per token; %s",
                 a2av_opt.tokens, a2av_opt.topk, a2av_opt.experts, a2av_opt.spread,
                 fab_a2av_zipf_s(a2av_opt.experts, a2av_opt.spread), a2av_opt.seed, a2av_opt.hidden,
                 ctx->dtype.name, ctx->dtype.size, sz);
    else
        snprintf(buf, len,
                 "every rank sends -m's bytes, Zipf-spread over the receivers (spread %g, "
                 "exponent %.4g, seed %ld); %s",
                 a2av_opt.spread, fab_a2av_zipf_s(ctx->size, a2av_opt.spread), a2av_opt.seed, sz);
}

const fab_kernel_t fab_kernel_alltoallv = {
    .name = "alltoallv",
    .summary = "MPI_Alltoallv, uneven (--spread, --counts, --experts); bytes = the busiest "
               "rank's; busbw = algbw x (n-1)/n",
    .kind = FAB_KIND_COLLECTIVE,
    .ranks = FAB_RANKS_ALL,
    .min_ranks = 2,
    .rank_multiple = 1,
    .setup = a2av_setup,
    .iterate = a2av_iterate,
    .validate = a2av_validate,
    .cleanup = a2av_cleanup,
    .describe = a2av_describe,
    .check = a2av_check,
    .options = &a2av_kopts,
    .coll =
        &(const fab_kcoll_t){.bus_factor = fab_bus_ring, .fit_bytes = a2av_fit, .uses_dtype = true},
    .columns = &(const fab_kcolumns_t){a2av_kcols, 3, .counters = a2av_counters,
                                       .table = "bytes,mean_us,p50_us,algbw_GBps,"
                                                "busbw_GBps,recv_imbalance,send_imbalance,"
                                                "ci_pct,validation_errors,cpu_rank_pct"},
};
