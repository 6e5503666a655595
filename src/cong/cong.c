/* SPDX-License-Identifier: BSD-3-Clause */
/* The congestion kernels: their options, columns, the split at setup and one trial per
 * iteration (alone, then congested), the lead canary's statistics (docs/METRICS.md,
 * "Congestion"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cong/cong.h"
#include "cong/cong_int.h"
#include "core/timing.h"

fab_cong_opts_t fab_cong_opt;

#define OFF(f) offsetof(fab_cong_opts_t, f)
static const fab_opt_t fab_cong_options[] = {
    {"congestor", 0, FAB_OPT_WORDS, OFF(congestor), 0, 0, FAB_CONG_PATTERNS, NULL,
     "alltoall,incast,put_incast,get_bcast,bw,none",
     "congestion kernels: the congestors' patterns, a list (incast,none), one instance each "
     "(at -m's size, default "
     "4 KiB; put_incast and get_bcast one-sided; none: no traffic, a control)",
     0, false, NULL},
    {"congestor-frac", 0, FAB_OPT_DOUBLE, OFF(frac), 0, 1, "F", NULL, "0.8",
     "congestion kernels: the share of the nodes that congest (the rest, spread over the "
     "allocation, are canaries; on one node, of the ranks)",
     0, true, NULL},
    {"canaries", 0, FAB_OPT_STRING, OFF(canaries), 0, 0, "HOST[,HOST...]", NULL,
     "by --congestor-frac", "congestion kernels: the canaries' hosts; the other nodes congest", 0,
     false, NULL},
    {"canary-ops", 0, FAB_OPT_INT, OFF(ops), 1, 100000, "N", "operations", "100",
     "congestion kernels: the canary's operations per window (alone, and congested)", 0, false,
     NULL},
    {"cong-wait", 0, FAB_OPT_DOUBLE, OFF(wait_s), 0, 3600, "SECONDS", "s", "30",
     "congestion kernels: the bound of every wait between canaries and congestors", 0, true, NULL},
};
const fab_kopts_t fab_cong_kopts = {
    fab_cong_options, sizeof(fab_cong_options) / sizeof(fab_cong_options[0]), &fab_cong_opt};

#define FAB_CK_STAT(NAME, HEAD, WHEN, Q)                                                           \
    {                                                                                              \
        NAME, HEAD, "us", "congestion kernels: the canary's " Q " time per operation " WHEN,       \
            FAB_KCOL_GAUGE                                                                         \
    }
static const fab_kcol_t fab_cong_kcols[FAB_CC_N] = {
    {"congestor", "congestor#", "pattern",
     "congestion kernels: the congestors' pattern (index in " FAB_CONG_PATTERNS
     "; congestor_name is its name)",
     FAB_KCOL_AXIS},
    FAB_CK_STAT("alone_mean_us", "alone", "alone", "mean"),
    FAB_CK_STAT("alone_p50_us", "alone_p50", "alone", "median"),
    FAB_CK_STAT("alone_p99_us", "alone_p99", "alone", "p99"),
    FAB_CK_STAT("alone_p999_us", "alone_p99.9", "alone", "p99.9"),
    FAB_CK_STAT("congested_mean_us", "congested", "under the congestors", "mean"),
    FAB_CK_STAT("congested_p50_us", "cong_p50", "under the congestors", "median"),
    FAB_CK_STAT("congested_p99_us", "cong_p99", "under the congestors", "p99"),
    FAB_CK_STAT("congested_p999_us", "cong_p99.9", "under the congestors", "p99.9"),
    {"cif_mean", "CIF", "ratio",
     "congestion kernels: the congestion impact factor at the mean, congested_mean_us / "
     "alone_mean_us (a rate's alone / congested)",
     FAB_KCOL_DERIVED},
    {"cif_p99", "CIF_p99", "ratio",
     "congestion kernels: the congestion impact factor at p99, congested_p99_us / alone_p99_us",
     FAB_KCOL_DERIVED},
    {"congestor_gbps", "cong_Gb/s", "Gb/s",
     "congestion kernels: the congestors' aggregate rate during the canary's congested windows",
     FAB_KCOL_GAUGE},
    {"congestor_load_pct", "load%", "%",
     "congestion kernels: congestor_gbps over the congestors' rate alone (no canary), x 100",
     FAB_KCOL_GAUGE},
    {"worst_canary_rank", "worst", "rank",
     "congestion kernels: the canary rank whose mean time grew most under the congestors",
     FAB_KCOL_GAUGE},
    {"cong_warn", "warn", "bits",
     "congestion kernels: warnings, 1 the congestors ran under half their rate alone, 2 "
     "canaries and congestors share a node's cores, 4 too few nodes for --congestor-frac",
     FAB_KCOL_GAUGE},
    {"congestor_name", "congestor", "name",
     "congestion kernels: the congestors' pattern by name (" FAB_CONG_PATTERNS
     "), the word of congestor's index; text",
     FAB_KCOL_AXIS_WORD},
};

/* The row of a size (the first for a size not in the list: cannot happen). */
static fab_cong_row_t *fab_cong_row_of(const fab_kctx_t *ctx, fab_cong_state_t *s, size_t bytes)
{
    for (int i = 0; i < ctx->nsizes; i++)
        if (ctx->sizes[i] == bytes)
            return &s->rows[i];
    return &s->rows[0];
}

static void fab_cong_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    fab_cong_state_t *s = state;

    s->r = fab_cong_row_of(ctx, s, ctx->bytes);
    s->r->recording = true; /* the first timed block has begun: warm-up is over */
    for (int j = 1; j < FAB_CC_N; j++)
        if (fab_cong_kcols[j].kind == FAB_KCOL_GAUGE && s->is_canary && s->sub_rank == 0)
            c[j] = isnan(s->r->col[j]) && !s->r->recorded ? 0 : s->r->col[j]; /* a block's start */
}

static double fab_cong_derive(const fab_krow_t *row, int j)
{
    if (j == FAB_CC_CIF_MEAN)
        return fab_cong_cif(row->c[FAB_CC_ALONE], row->c[FAB_CC_CONG]);
    if (j == FAB_CC_CIF_P99)
        return fab_cong_cif(row->c[FAB_CC_ALONE + 2], row->c[FAB_CC_CONG + 2]);
    return NAN;
}

const fab_kcolumns_t fab_cong_kcolumns = {
    .kcols = fab_cong_kcols,
    .nkcols = FAB_CC_N,
    .counters = fab_cong_counters,
    .derive = fab_cong_derive,
    .table = "bytes,congestor_name,alone_mean_us,congested_mean_us,cif_mean,alone_p99_us,"
             "congested_p99_us,cif_p99,congestor_gbps,congestor_load_pct",
};

/* Every rank's host, and its node (numbered by first rank). */
static fab_status_t fab_cong_hosts(fab_kctx_t *ctx, fab_cong_state_t *s, int *node, int *nnodes)
{
    char me[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0;

    s->names = calloc((size_t)ctx->size, sizeof(*s->names));
    if (!s->names)
        return FAB_ERR_NOMEM;
    MPI_Get_processor_name(me, &len);
    snprintf(s->names[ctx->rank], sizeof(s->names[0]), "%s", me);
    if (FAB_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->names, sizeof(s->names[0]),
                              MPI_CHAR, ctx->comm)) != FAB_OK)
        return FAB_ERR_MPI;
    *nnodes = 0;
    for (int r = 0; r < ctx->size; r++) {
        node[r] = -1;
        for (int q = 0; q < r && node[r] < 0; q++)
            if (strcmp(s->names[q], s->names[r]) == 0)
                node[r] = node[q];
        if (node[r] < 0)
            node[r] = (*nnodes)++;
    }
    return FAB_OK;
}

/* The canaries' and congestors' communicators (point to point: core/comm.h's reason), the
 * leads, the random ring (seeded: the same on every canary). */
static fab_status_t fab_cong_comms(fab_kctx_t *ctx, fab_cong_state_t *s, const bool *canary)
{
    int *mine = calloc((size_t)ctx->size, sizeof(int)), n = 0, m = 0, *perm;
    MPI_Group world, g;
    fab_status_t st;

    s->cong_ranks = calloc((size_t)ctx->size, sizeof(int));
    s->canary_world = calloc((size_t)ctx->size, sizeof(int));
    perm = calloc((size_t)ctx->size, sizeof(int));
    if (!mine || !s->cong_ranks || !s->canary_world || !perm) {
        free(mine);
        free(perm);
        return FAB_ERR_NOMEM;
    }
    s->lead_canary = s->lead_cong = -1;
    for (int r = 0; r < ctx->size; r++) {
        if (canary[r] == s->is_canary)
            mine[n++] = r;
        if (canary[r])
            s->canary_world[m++] = r;
        else
            s->cong_ranks[r - m] = r;
        if (canary[r] && s->lead_canary < 0)
            s->lead_canary = r;
        if (!canary[r] && s->lead_cong < 0)
            s->lead_cong = r;
    }
    MPI_Comm_group(ctx->comm, &world);
    MPI_Group_incl(world, n, mine, &g);
    st = FAB_MPI(MPI_Comm_create_group(ctx->comm, g, ctx->tag + FAB_CT_RING, &s->sub));
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    if (st == FAB_OK) {
        MPI_Comm_rank(s->sub, &s->sub_rank);
        MPI_Comm_size(s->sub, &s->sub_size);
        uint64_t x = 0x6770636eu; /* a fixed random ring (a 64-bit LCG, Knuth's MMIX) */

        for (int i = 0; i < s->sub_size; i++)
            perm[i] = i;
        for (int i = s->sub_size - 1; i > 0; i--) {
            int j, t = perm[i];

            x = x * 6364136223846793005u + 1442695040888963407u;
            j = (int)((x >> 33) % (uint64_t)(i + 1));

            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i = 0; i < s->sub_size; i++)
            if (perm[i] == s->sub_rank) {
                s->right = perm[(i + 1) % s->sub_size];
                s->left = perm[(i + s->sub_size - 1) % s->sub_size];
            }
    }
    free(mine);
    free(perm);
    return st;
}

/* Buffers, the one-sided window and the samples. */
static fab_status_t fab_cong_buffers(fab_kctx_t *ctx, fab_cong_state_t *s)
{
    size_t each = ctx->max_bytes *
                  (size_t)(s->sub_size > FAB_CONG_BW_WINDOW ? s->sub_size : FAB_CONG_BW_WINDOW);
    size_t ops = (size_t)fab_cong_opt.ops;

    s->buflen = s->is_canary ? (size_t)FAB_CONG_BW_WINDOW * FAB_CONG_BW_BYTES : each;
    s->buf = calloc(2, s->buflen);
    s->mine = calloc(2 * ops, sizeof(double));
    if (!s->buf || !s->mine)
        return FAB_ERR_NOMEM;
    s->rows = calloc((size_t)ctx->nsizes, sizeof(*s->rows));
    if (!s->rows)
        return FAB_ERR_NOMEM;
    s->cap = ((size_t)1 << 20) / (size_t)ctx->nsizes;
    for (int i = 0; i < ctx->nsizes; i++) {
        fab_cong_row_t *r = &s->rows[i];

        for (int j = 0; j < FAB_CC_N; j++)
            r->col[j] = NAN;
        if (!s->is_canary || s->sub_rank != 0)
            continue;
        r->pool[0] = malloc(s->cap * sizeof(double));
        r->pool[1] = malloc(s->cap * sizeof(double));
        r->rsum = calloc(2 * (size_t)s->sub_size, sizeof(double));
        if (!r->pool[0] || !r->pool[1] || !r->rsum)
            return FAB_ERR_NOMEM;
    }
    s->r = &s->rows[0];
    if (s->is_canary || (s->pattern != FAB_CONG_PUT_INCAST && s->pattern != FAB_CONG_GET_BCAST))
        return FAB_OK;
    if (FAB_MPI(MPI_Win_create(s->buf + s->buflen, (MPI_Aint)s->buflen, 1, MPI_INFO_NULL, s->sub,
                               &s->win)) != FAB_OK)
        return FAB_ERR_MPI;
    s->win_open = true;
    return FAB_MPI(MPI_Win_lock_all(0, s->win));
}

/* The warnings of the split, once per instance on the kernel's rank 0. */
static void fab_cong_split_warn(const fab_kctx_t *ctx, const fab_cong_split_t *sp)
{
    if (ctx->rank != 0)
        return;
    if (sp->warn & FAB_CONG_W_FEW_NODES)
        FAB_WARN("congestion: too few nodes for --congestor-frac %g: %d node(s), %d canary and %d "
                 "congestor ranks%s (GPCNeT asks for 10 nodes or more)",
                 fab_cong_opt.frac, sp->nodes, sp->ncanary, sp->ncongestor,
                 sp->nodes == 1 ? ", split by rank" : "");
    if (sp->warn & FAB_CONG_W_SHARED)
        FAB_WARN("congestion: canaries and congestors share a node's cores and memory: what "
                 "the canary loses may be the host's, not the network's");
}

/* The congestors' rate alone (no canary traffic) at this size: the better of two windows of
 * 50 ms, while the canaries wait. */
static fab_status_t fab_cong_alone_rate(fab_kctx_t *ctx, fab_cong_state_t *s, size_t bytes)
{
    fab_status_t st = FAB_OK;

    s->r->alone_gbps = 0;
    if (s->pattern == FAB_CONG_NONE)
        return FAB_OK;
    for (int i = 0; i < 2 && st == FAB_OK; i++) {
        if (!s->is_canary) {
            st = fab_cong_congest(ctx, s, bytes);
        } else if (s->sub_rank == 0) {
            double b = 0, t = 0;
            uint64_t end;

            st = fab_cong_start(ctx, s);
            end = fab_now_ns() + 50000000u;
            while (st == FAB_OK && fab_now_ns() < end)
                fab_cong_nap(1000);
            if (st == FAB_OK)
                st = fab_cong_stop(ctx, s, &b, &t);
            if (st == FAB_OK && t > 0 && b * 8e-9 / t > s->r->alone_gbps)
                s->r->alone_gbps = b * 8e-9 / t;
        }
    }
    return st;
}

fab_status_t fab_cong_setup(fab_kctx_t *ctx, void **state, fab_canary_t canary)
{
    fab_cong_state_t *s = calloc(1, sizeof(*s));
    int *node = calloc((size_t)ctx->size, sizeof(int)), nnodes = 0;
    bool *can = calloc((size_t)ctx->size, sizeof(bool));
    const char **names = calloc((size_t)ctx->size, sizeof(char *));
    fab_cong_split_t sp;
    fab_status_t st = s && node && can && names ? FAB_OK : FAB_ERR_NOMEM;

    *state = s;
    if (st == FAB_OK) {
        s->canary = canary;
        s->pattern = (int)ctx->axis;
        st = fab_cong_hosts(ctx, s, node, &nnodes);
    }
    for (int n = 0; st == FAB_OK && n < nnodes; n++)
        for (int r = ctx->size - 1; r >= 0; r--)
            if (node[r] == n)
                names[n] = s->names[r];
    if (st == FAB_OK)
        st = fab_cong_split(ctx->size, node, nnodes, names, fab_cong_opt.frac,
                            fab_cong_opt.canaries, can, &sp);
    if (st == FAB_ERR_CONFIG && ctx->rank == 0)
        FAB_ERROR("congestion: %s", sp.why);
    if (st == FAB_OK) {
        s->is_canary = can[ctx->rank];
        s->warn = sp.warn;
        fab_cong_split_warn(ctx, &sp);
        st = fab_cong_comms(ctx, s, can);
    }
    if (st == FAB_OK)
        st = fab_cong_buffers(ctx, s);
    ctx->timer = true; /* an iteration is a trial: alone, then congested */
    ctx->msgs_per_iter = 1;
    free(node);
    free(can);
    free(names);
    return st;
}

/* The lead canary's record of one trial: every canary's samples, the congestors' traffic. */
static void fab_cong_record(fab_cong_state_t *s, const double *all, double b, double t)
{
    size_t ops = (size_t)fab_cong_opt.ops;

    for (int r = 0; r < s->sub_size; r++)
        for (int ph = 0; ph < 2; ph++)
            for (size_t i = 0; i < ops; i++) {
                double v = all[((size_t)r * 2 + (size_t)ph) * ops + i];

                if (s->r->npool[ph] < s->cap)
                    s->r->pool[ph][s->r->npool[ph]++] = v;
                s->r->rsum[r * 2 + ph] += v;
            }
    s->r->cbytes += b;
    s->r->csecs += t;
}

/* The lead canary's columns from what it recorded. */
static void fab_cong_columns(fab_cong_state_t *s)
{
    fab_cong_stats_t st[2];
    double worst = -1;

    for (int ph = 0; ph < 2; ph++) {
        double *v = malloc((s->r->npool[ph] + 1) * sizeof(double));

        if (!v)
            return;
        memcpy(v, s->r->pool[ph], s->r->npool[ph] * sizeof(double));
        fab_cong_stats(v, s->r->npool[ph], &st[ph]);
        free(v);
        s->r->col[FAB_CC_ALONE + 4 * ph] = st[ph].mean * 1e6;
        s->r->col[FAB_CC_ALONE + 4 * ph + 1] = st[ph].p50 * 1e6;
        s->r->col[FAB_CC_ALONE + 4 * ph + 2] = st[ph].p99 * 1e6;
        s->r->col[FAB_CC_ALONE + 4 * ph + 3] = st[ph].p999 * 1e6;
    }
    for (int r = 0; r < s->sub_size; r++) {
        double f = fab_cong_cif(s->r->rsum[r * 2], s->r->rsum[r * 2 + 1]);

        if (f > worst) {
            worst = f;
            s->r->col[FAB_CC_WORST] = s->canary_world[r];
        }
    }
    s->r->col[FAB_CC_GBPS] = s->r->csecs > 0 ? s->r->cbytes * 8e-9 / s->r->csecs : 0;
    s->r->col[FAB_CC_LOAD] =
        s->r->alone_gbps > 0 ? 100 * s->r->col[FAB_CC_GBPS] / s->r->alone_gbps : NAN;
    s->r->col[FAB_CC_WARN] = s->warn | (s->r->col[FAB_CC_LOAD] < 50 ? FAB_CONG_W_LOW_LOAD : 0);
}

/* The canaries' window: ops operations, each timed, into out. */
static fab_status_t fab_cong_window(fab_kctx_t *ctx, fab_cong_state_t *s, double *out)
{
    fab_status_t st = FAB_MPI(MPI_Barrier(s->sub));

    for (int i = 0; st == FAB_OK && i < fab_cong_opt.ops; i++) {
        uint64_t t0 = fab_now_ns();

        st = fab_cong_canary_op(ctx, s);
        out[i] = (double)(fab_now_ns() - t0) * 1e-9;
    }
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Barrier(s->sub));
    return st;
}

/* A canary's trial: the phases in fab_cong_phase's order, the lead driving the congestors. */
static fab_status_t fab_cong_canary_trial(fab_kctx_t *ctx, fab_cong_state_t *s)
{
    size_t ops = (size_t)fab_cong_opt.ops;
    double b = 0, t = 0, *all = NULL;
    bool lead = s->sub_rank == 0;
    fab_status_t st = FAB_OK;

    for (int i = 0; i < 2 && st == FAB_OK; i++) {
        int ph = fab_cong_phase(i);

        if (ph == 1 && lead)
            st = fab_cong_start(ctx, s);
        if (st == FAB_OK)
            st = fab_cong_window(ctx, s, s->mine + (size_t)ph * ops);
        if (st == FAB_OK && ph == 1 && lead)
            st = fab_cong_stop(ctx, s, &b, &t);
    }
    if (st == FAB_OK && lead && !(all = malloc((size_t)s->sub_size * 2 * ops * sizeof(double))))
        st = FAB_ERR_NOMEM;
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Gather(s->mine, (int)(2 * ops), MPI_DOUBLE, all, (int)(2 * ops),
                                MPI_DOUBLE, 0, s->sub));
    if (st == FAB_OK && lead && s->r->recording) {
        s->r->recorded = true;
        fab_cong_record(s, all, b, t);
        fab_cong_columns(s);
    }
    free(all);
    return st;
}

fab_status_t fab_cong_iterate(fab_kctx_t *ctx, void *state, size_t bytes)
{
    fab_cong_state_t *s = state;
    fab_status_t st;

    s->r = fab_cong_row_of(ctx, s, bytes);
    if (!s->r->rated) { /* a size's first trial (warm-up): the congestors' rate alone first */
        s->r->rated = true;
        st = fab_cong_alone_rate(ctx, s, bytes);
        if (st != FAB_OK)
            return st;
    }
    return s->is_canary ? fab_cong_canary_trial(ctx, s) : fab_cong_congest(ctx, s, bytes);
}

/* The lead canary's words on a row at the kernel's end: the canary that suffered most, and a
 * load that was not meaningful. */
static void fab_cong_row_report(const fab_cong_state_t *s, const fab_cong_row_t *r, size_t bytes)
{
    char pat[32];
    int w;

    if (!s->is_canary || s->sub_rank != 0 || isnan(r->col[FAB_CC_WORST]))
        return;
    w = (int)r->col[FAB_CC_WORST];
    fab_opt_word(&fab_cong_options[0], s->pattern, pat, sizeof(pat));
    FAB_INFO("congestion: under %s at %zu B the canary that suffered most is rank %d on %s", pat,
             bytes, w, s->names[w]);
    if ((int)r->col[FAB_CC_WARN] & FAB_CONG_W_LOW_LOAD)
        FAB_WARN("congestion: the %s congestors at %zu B reached %.0f%% of their rate alone "
                 "(%.3g of %.3g Gb/s): not a meaningful load; the CIF understates congestion",
                 pat, bytes, r->col[FAB_CC_LOAD], r->col[FAB_CC_GBPS], r->alone_gbps);
}

void fab_cong_cleanup(fab_kctx_t *ctx, void *state)
{
    fab_cong_state_t *s = state;

    if (!s)
        return;
    for (int i = 0; s->rows && i < ctx->nsizes; i++) {
        fab_cong_row_report(s, &s->rows[i], ctx->sizes[i]);
        free(s->rows[i].pool[0]);
        free(s->rows[i].pool[1]);
        free(s->rows[i].rsum);
    }
    free(s->rows);
    if (s->win_open) {
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
    }
    if (s->sub != MPI_COMM_NULL && s->sub)
        MPI_Comm_free(&s->sub);
    free(s->buf);
    free(s->mine);
    free(s->cong_ranks);
    free(s->canary_world);
    free(s->names);
    free(s);
}

void fab_cong_describe(const fab_kctx_t *ctx, char *buf, size_t len, fab_canary_t c)
{
    static const char *const what[] = {"random-ring latency, 8 B sendrecv",
                                       "random-ring bandwidth, 8 x 128 KiB in flight",
                                       "allreduce of 8 B"};
    (void)ctx;
    snprintf(buf, len,
             "canary %s, %d operations alone then %d under the congestors per trial (GPCNeT's "
             "question; CIF = congested / alone)",
             what[c], fab_cong_opt.ops, fab_cong_opt.ops);
}

fab_status_t fab_cong_check(const fab_kctx_t *ctx, char *msg, size_t msglen, char *hint,
                            size_t hintlen)
{
    if (ctx->max_bytes > (64u << 20)) {
        snprintf(msg, msglen, "congestion: a congestor message of %zu bytes is too large",
                 ctx->max_bytes);
        snprintf(hint, hintlen, "give -m 64M or less");
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}
