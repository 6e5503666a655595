/* SPDX-License-Identifier: BSD-3-Clause */
/* Row metrics: from a size's statistics to the rates, bus bandwidth, overlap, slowest rank,
 * CPU cost and line-rate efficiency of its row (docs/METRICS.md defines each). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/sizes.h"
#include "core/text.h"
#include "kernel/traits.h"
#include "measure/row.h"
#include "measure/row_int.h"

int fab_comm_world_rank(MPI_Comm comm, int r)
{
    MPI_Group g, world;
    int out = r;

    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(g, 1, &r, world, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    return out;
}

void fab_row_clear(fab_row_t *row)
{
    memset(row, 0, sizeof(*row));
    row->validation_errors = -1;
    row->slowest_rank = -1;
    row->late.rank = row->late.straggler = -1;
    row->late.share = row->late.p50 = row->late.p99 = row->late.explains = NAN;
    row->cpu_rank_max_rank = -1;
    row->ci_pct = row->blocks_ci_pct = NAN;
    row->cpu_steal_pct = row->runnable_per_cpu = row->ctxsw_per_s = NAN;
    row->osu_avg = row->imb_tmin = row->imb_tmax = row->rank0_avg = NAN;
    row->target_met = -1;
    row->line_rate_gbps = NAN;
    row->dtype = row->op = -1;
    for (int j = 0; j < FAB_KCOL_MAX; j++)
        row->kc[j] = NAN;
    for (int k = 0; k < FAB_FC_N; k++)
        row->fab.grew[k] = NAN;
    row->fab.netrx_pct = NAN;
    row->fab.netrx_cpu = -1;
}

void fab_kc_mark(const fab_kernel_t *k, const fab_kctx_t *ctx, void *state, double *c)
{
    const fab_kcolumns_t *kc = fab_kcolumns(k);

    for (int j = 0; j < FAB_KCOL_MAX; j++)
        c[j] = NAN;
    if (kc->counters)
        kc->counters(ctx, state, c);
}

void fab_kc_add(const fab_kernel_t *k, double *sum, double *first, const double *a, const double *b)
{
    const fab_kcolumns_t *kc = fab_kcolumns(k);

    for (int j = 0; j < kc->nkcols && j < FAB_KCOL_MAX; j++) {
        fab_kcol_kind_t kind = kc->kcols[j].kind;

        if (isnan(a[j]) || isnan(b[j]))
            continue;
        if (kind == FAB_KCOL_GAUGE)
            sum[j] = b[j];
        else if (kind == FAB_KCOL_TOTAL) {
            if (isnan(first[j]))
                first[j] = a[j];
            sum[j] = b[j] >= first[j] ? b[j] - first[j] : 0.0;
        } else if (kind == FAB_KCOL_COUNTER)
            sum[j] = (isnan(sum[j]) ? 0.0 : sum[j]) + (b[j] >= a[j] ? b[j] - a[j] : 0.0);
    }
}

fab_status_t fab_kc_settle(const fab_kernel_t *k, fab_kctx_t *ctx, void *state, size_t bytes,
                           double *sum, double *first)
{
    double a[FAB_KCOL_MAX], b[FAB_KCOL_MAX];
    fab_status_t st;

    if (!fab_kcolumns(k)->settle)
        return FAB_OK;
    ctx->bytes = bytes;
    fab_kc_mark(k, ctx, state, a);
    st = k->columns->settle(ctx, state);
    fab_kc_mark(k, ctx, state, b);
    fab_kc_add(k, sum, first, a, b);
    return st;
}

fab_status_t fab_row_counters(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx,
                              const double *mine)
{
    const fab_kcolumns_t *kc = fab_kcolumns(k);
    double in[2 * FAB_KCOL_MAX], out[2 * FAB_KCOL_MAX];
    fab_status_t st;

    if (!kc->counters)
        return FAB_OK;
    for (int j = 0; j < FAB_KCOL_MAX; j++) {
        in[j] = isnan(mine[j]) ? 0.0 : mine[j];
        in[FAB_KCOL_MAX + j] = isnan(mine[j]) ? 0.0 : 1.0;
    }
    st = FAB_MPI(MPI_Reduce(in, out, 2 * FAB_KCOL_MAX, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
    if (st != FAB_OK || ctx->rank != 0)
        return st;
    for (int j = 0; j < kc->nkcols && j < FAB_KCOL_MAX; j++) {
        double n = out[FAB_KCOL_MAX + j];

        row->kc[j] = n == 0 ? NAN : kc->kcols[j].kind == FAB_KCOL_GAUGE ? out[j] / n : out[j];
    }
    return FAB_OK;
}

double fab_row_kcol(const fab_kinst_t *ki, const fab_row_t *row, int j)
{
    const fab_kcolumns_t *kc;
    fab_krow_t kr;

    if (!ki)
        return NAN;
    kc = fab_kcolumns(ki->k);
    if (j < 0 || j >= kc->nkcols || j >= FAB_KCOL_MAX)
        return NAN;
    switch (kc->kcols[j].kind) {
    case FAB_KCOL_AXIS:
    case FAB_KCOL_AXIS_WORD: /* its index (the outputs write the word) */
        return ki->k->axis ? ki->axis : NAN;
    case FAB_KCOL_DERIVED:
    case FAB_KCOL_IMPLAUSIBLE:
        if (!kc->derive)
            return NAN;
        kr.bytes = row->bytes;
        kr.iterations = row->iters;
        kr.seconds = (double)row->iters * row->t.loop_mean;
        kr.axis = ki->k->axis ? ki->axis : NAN;
        kr.validation_errors = row->validation_errors;
        kr.median = row->t.p50;
        kr.mean = row->t.mean;
        kr.c = row->kc;
        return kc->derive(&kr, j);
    default:
        return row->kc[j];
    }
}

/* The median's interval of acc (the row's samples) into row->ci_pct. */
static void fab_row_precision(fab_row_t *row, struct fab_acc *acc)
{
    fab_interval_t ci;

    fab_acc_median_ci(acc, &ci);
    /* Below 6 samples no pair of order statistics covers the median with 95%: no interval. */
    row->ci_pct =
        isfinite(ci.rel_half) && ci.ranks.coverage >= FAB_CI_LEVEL ? 100.0 * ci.rel_half : NAN;
}

/* The disturbance figures' maxima over the ranks (-1: unknown there). */
static fab_status_t fab_row_disturbance(fab_row_t *row, const fab_kctx_t *ctx,
                                        const fab_cpu_mark_t *a, const fab_cpu_mark_t *b,
                                        const fab_load_t *load)
{
    double in[3], out[3] = {-1, -1, -1};
    fab_status_t st;

    fab_cpu_disturbance(a, b, &in[0], &in[1]);
    in[2] = load && load->n > 0 ? load->sum / load->n : NAN;
    for (int i = 0; i < 3; i++)
        in[i] = isnan(in[i]) ? -1.0 : in[i];
    st = FAB_MPI(MPI_Reduce(in, out, 3, MPI_DOUBLE, MPI_MAX, 0, ctx->comm));
    row->ctxsw_per_s = out[0] < 0 ? NAN : out[0];
    row->cpu_steal_pct = out[1] < 0 ? NAN : out[1];
    row->runnable_per_cpu = out[2] < 0 ? NAN : out[2];
    return st;
}

fab_status_t fab_row_cpu(fab_row_t *row, const fab_kctx_t *ctx, const fab_cpu_mark_t *a,
                         const fab_cpu_mark_t *b, const fab_load_t *load)
{
    /* The window's CPU cost: rank shares averaged over the ranks, node shares over the nodes
     * (one sampler each). */
    double w[4], in[5], out[5] = {0};
    struct {
        double v;
        int rank;
    } ext[2], extout[2] = {{-INFINITY, -1}, {-INFINITY, -1}};
    fab_status_t st;

    fab_cpu_window(a, b, w);
    in[0] = w[0];
    in[4] = isnan(w[1]) ? 0.0 : 1.0;
    for (int i = 1; i < 4; i++)
        in[i] = isnan(w[i]) ? 0.0 : w[i];
    ext[0].v = isnan(w[0]) ? -INFINITY : w[0];
    ext[1].v = isnan(w[0]) ? -INFINITY : -w[0];
    ext[0].rank = ext[1].rank = ctx->rank;
    st = FAB_MPI(MPI_Reduce(in, out, 5, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
    /* each rank's own share: the busiest (MAXLOC) and the least busy (MAXLOC of -v) */
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Reduce(ext, extout, 2, MPI_DOUBLE_INT, MPI_MAXLOC, 0, ctx->comm));
    row->cpu_rank_max_pct = isinf(extout[0].v) ? NAN : extout[0].v;
    row->cpu_rank_min_pct = isinf(extout[1].v) ? NAN : -extout[1].v;
    row->cpu_rank_max_rank =
        isinf(extout[0].v) ? -1 : fab_comm_world_rank(ctx->comm, extout[0].rank);
    row->cpu_rank_pct = out[0] / ctx->size;
    row->cpu_user_pct = out[4] > 0 ? out[1] / out[4] : NAN;
    row->cpu_sys_pct = out[4] > 0 ? out[2] / out[4] : NAN;
    row->cpu_softirq_pct = out[4] > 0 ? out[3] / out[4] : NAN;
    return st == FAB_OK ? fab_row_disturbance(row, ctx, a, b, load) : st;
}

fab_status_t fab_row_peers(fab_row_t *row, const fab_kctx_t *ctx, double mine)
{
    /* [0] the largest mean, [1] minus the least, [2] the sum of the means, [3] how many */
    double in[4], out[4] = {-INFINITY, -INFINITY, 0, 0};
    fab_status_t st;

    in[0] = isnan(mine) ? -INFINITY : mine;
    in[1] = isnan(mine) ? -INFINITY : -mine;
    in[2] = isnan(mine) ? 0.0 : mine;
    in[3] = isnan(mine) ? 0.0 : 1.0;
    /* at the row's end, not per block: MPI_MAX of [0..1], MPI_SUM of [2..3] */
    st = FAB_MPI(MPI_Reduce(in, out, 2, MPI_DOUBLE, MPI_MAX, 0, ctx->comm));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Reduce(in + 2, out + 2, 2, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
    if (st != FAB_OK || ctx->rank != 0 || out[3] < 1)
        return st;
    row->imb_tmax = out[0];
    row->imb_tmin = -out[1];
    row->osu_avg = out[2] / out[3];
    row->rank0_avg = mine;
    return FAB_OK;
}

static fab_quality_tally_t fab_tally = {.cpu_lo = NAN, .cpu_hi = NAN};

void fab_row_tally_reset(void)
{
    fab_quality_tally_init(&fab_tally);
}

const fab_quality_tally_t *fab_row_tally(void)
{
    return &fab_tally;
}

/* Whether a column of the kernel's own (FAB_KCOL_IMPLAUSIBLE) marks the row implausible. */
static bool fab_row_implausible(const fab_kinst_t *ki, const fab_row_t *row)
{
    const fab_kcolumns_t *kc = fab_kcolumns(ki->k);

    for (int j = 0; j < kc->nkcols && j < FAB_KCOL_MAX; j++)
        if (kc->kcols[j].kind == FAB_KCOL_IMPLAUSIBLE) {
            double v = fab_row_kcol(ki, row, j);

            if (!isnan(v) && v != 0)
                return true;
        }
    return false;
}

/* A finished row's quality (measure/quality.h), added to the run's tally. */
static void fab_row_quality(fab_row_t *row, const fab_kinst_t *ki)
{
    const fab_kernel_t *k = ki->k;
    fab_quality_in_t in = {
        .iters = row->iters,
        .blocks = row->blocks,
        /* an adaptive row (it has a target) has blocks; a whole-block kernel's is one */
        .min_blocks = row->target_met < 0           ? 0
                      : fab_kbudget(k)->whole_block ? 1
                                                    : FAB_ADAPT_MIN_BLOCKS,
        .sleeps = fab_kp2p(k)->sleeps,
        .cpu_min_pct = row->cpu_rank_min_pct,
        .steal_pct = row->cpu_steal_pct,
        .runnable_per_cpu = row->runnable_per_cpu,
        .ctxsw_per_s = row->ctxsw_per_s,
        .regimes = row->regimes,
        .target_met = row->target_met,
        .implausible = fab_row_implausible(ki, row),
    };
    unsigned r = fab_quality_reasons(&in);

    row->quality_reasons = r;
    row->quality = (int)fab_quality_of(r);
    fab_quality_words(r, row->quality_reason, sizeof(row->quality_reason));
    fab_quality_tally_add(&fab_tally, &in, r);
}

fab_status_t fab_row_stall(fab_row_t *row, const fab_kctx_t *ctx, double mine)
{
    double most = 0;
    fab_status_t st = FAB_MPI(MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, ctx->comm));

    row->stall_s = most;
    return st;
}

void fab_row_rates(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx, double comm_mean)
{
    row->streams = ctx->streams > 0 ? ctx->streams : 1;
    row->msgps = ctx->msgs_per_iter / row->iter_time;
    row->mbps = (double)row->bytes * row->msgps / 1e6;
    row->gbps = row->mbps * 8.0 / 1e3;
    row->msgps_stream = row->msgps / row->streams;
    row->mbps_stream = row->mbps / row->streams;
    row->algbw = NAN;
    row->busbw = NAN;
    if (fab_kcoll(k)->bus_factor) {
        /* The time of a call is its slowest rank's (the per-iteration maximum), so algbw comes
         * from the mean of those maxima; with --overlap-compute, of the call without compute. */
        row->algbw = (double)row->bytes / (isnan(comm_mean) ? row->t.mean : comm_mean) / 1e9;
        row->busbw = row->algbw * k->coll->bus_factor(ctx->size);
    }
    row->comm_time = comm_mean;
    row->overlap_pct = NAN;
    if (!isnan(comm_mean) && comm_mean > 0) {
        /* OSU's definition: the share of the call's own time that the compute hid. */
        double hidden = 1.0 - (row->t.mean - ctx->compute_s) / comm_mean;

        row->overlap_pct = 100.0 * (hidden < 0 ? 0 : hidden > 1 ? 1 : hidden);
    }
    row->line_pct = NAN; /* rank 0 of the world knows the hosts: fab_row_close */
}

/* The rank slowest in most iterations, from per-rank counts (NULL: one timer, none). */
static void fab_row_slowest(fab_row_t *row, const fab_kctx_t *ctx, const uint64_t *slow_count)
{
    int r = 0;

    row->slowest_rank = -1;
    row->slowest_share = NAN;
    if (!slow_count)
        return;
    for (int i = 1; i < ctx->size; i++)
        if (slow_count[i] > slow_count[r])
            r = i;
    row->slowest_rank = fab_comm_world_rank(ctx->comm, r);
    row->slowest_share = (double)slow_count[r] / (double)row->iters;
}

/* The rank that arrived last in most calls, from the arrivals (NULL: not recorded). */
static void fab_row_late(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx,
                         const fab_arrival_t *arr)
{
    bool named;

    fab_arrival_summary(arr, row->t.mean * fab_ktime_divisor(k) * (double)row->iters, &row->late);
    named = fab_late_names(&row->late);
    if (row->late.rank >= 0) /* the kernel's rank as the world's */
        row->late.rank = fab_comm_world_rank(ctx->comm, row->late.rank);
    row->late.straggler = named ? row->late.rank : -1;
}

void fab_row_samples(fab_row_t *row, const fab_kernel_t *k, const fab_kctx_t *ctx, fab_acc_t *acc,
                     uint64_t iters, double comm_mean, const uint64_t *slow,
                     const fab_arrival_t *arr)
{
    row->iters = iters;
    fab_acc_stats(acc, fab_ktime_divisor(k), &row->t);
    fab_row_precision(row, acc);
    row->iter_time = iters ? acc->loop_total / (double)iters : NAN;
    fab_row_rates(row, k, ctx, comm_mean);
    fab_row_slowest(row, ctx, slow);
    fab_row_late(row, k, ctx, arr);
    snprintf(row->component, sizeof(row->component), "%s", ctx->component);
}

/* Efficiency against the line rate (world rank 0): bandwidth kernels' Gb/s, collectives'
 * busbw, over the data rate of the port in use (--line-rate or the fabric's), twice that when
 * the kernel sends both ways at once (into row->line_rate_gbps). Only when the traffic crosses
 * hosts (within a node no port carries it) unless --line-rate was given. NaN when not known. */
static void fab_row_line_pct(fab_row_t *r, const fab_world_t *w, const fab_measopts_t *mopt,
                             const fab_netopts_t *nopt, const fab_kernel_t *k)
{
    double gbps, rate = nopt->line_rate_gbps * (fab_kp2p(k)->duplex ? 2.0 : 1.0);
    bool crosses = false;

    r->line_pct = r->line_rate_gbps = NAN;
    if (rate <= 0 || k->kind == FAB_KIND_LATENCY || !w->hosts)
        return;
    if (fab_kranks(k) == FAB_RANKS_PAIR)
        crosses = strcmp(w->hosts[mopt->pair.a], w->hosts[mopt->pair.b]) != 0;
    else
        crosses = w->nhosts > 1;
    if (!crosses && !nopt->line_rate_given)
        return;
    gbps = k->kind == FAB_KIND_COLLECTIVE ? r->busbw * 8.0 : r->gbps;
    r->line_rate_gbps = rate;
    r->line_pct = isnan(gbps) ? NAN : 100.0 * gbps / rate;
}

void fab_row_close(fab_row_t *row, const fab_world_t *w, const fab_measopts_t *mopt,
                   const fab_netopts_t *nopt, const fab_kinst_t *ki)
{
    row->dtype = mopt->dtype;
    row->op = mopt->op;
    fab_row_line_pct(row, w, mopt, nopt, ki->k);
    fab_row_quality(row, ki);
}

void fab_row_notes_init(fab_row_notes_t *n)
{
    memset(n, 0, sizeof(*n));
    n->idle_min = 100.0;
    n->pair[0] = n->pair[1] = -1;
}

/* "8, 1K, 64K": the sizes of the rows a note is about. */
static void fab_row_notes_size(char *list, size_t len, size_t *at, int count, uint64_t bytes)
{
    char sz[32];

    fab_size_format((size_t)bytes, sz, sizeof(sz));
    fab_appendf(list, len, at, "%s%s", count ? ", " : "", sz);
}

void fab_row_notes_add(fab_row_notes_t *n, const fab_kinst_t *ki, const fab_row_t *r)
{
    const fab_kcolumns_t *kc = fab_kcolumns(ki->k);

    for (int j = 0; kc->low_col && j < kc->nkcols && j < FAB_KCOL_MAX; j++) {
        double v = strcmp(kc->kcols[j].name, kc->low_col) ? NAN : fab_row_kcol(ki, r, j);
        char sz[32];

        if (!(v < kc->low_below)) /* NaN: not known, not noted */
            continue;
        fab_size_format((size_t)r->bytes, sz, sizeof(sz));
        fab_appendf(n->low_sizes, sizeof(n->low_sizes), &n->low_len, "%s%s: %.3g",
                    n->low_rows++ ? ", " : "", sz, v);
    }
    snprintf(n->component, sizeof(n->component), "%s", r->component);
    if (r->validation_errors > 0)
        n->bad += r->validation_errors;
    if (r->quality_reasons & FAB_QR_IMPLAUSIBLE)
        fab_row_notes_size(n->implausible_sizes, sizeof(n->implausible_sizes), &n->implausible_len,
                           n->implausible_rows++, r->bytes);
    else if (r->quality == FAB_Q_INVALID)
        fab_row_notes_size(n->invalid_sizes, sizeof(n->invalid_sizes), &n->invalid_len,
                           n->invalid_rows++, r->bytes);
    if (r->cpu_rank_min_pct < FAB_DISTURB_CPU_PCT) { /* NaN: unknown, not noted */
        fab_row_notes_size(n->idle_sizes, sizeof(n->idle_sizes), &n->idle_len, n->idle_rows++,
                           r->bytes);
        if (r->cpu_rank_min_pct < n->idle_min)
            n->idle_min = r->cpu_rank_min_pct;
    }
    fab_row_notes_fabric(n, ki->k, r);
    if (r->stall_s > 0) {
        fab_row_notes_size(n->stall_sizes, sizeof(n->stall_sizes), &n->stall_len, n->stall_rows++,
                           r->bytes);
        if (r->stall_s > n->stall_max)
            n->stall_max = r->stall_s;
    }
}

bool fab_row_notes_report(const fab_row_notes_t *n, const fab_kernel_t *k)
{
    if (n->idle_rows > 0 && !fab_kp2p(k)->sleeps)
        FAB_WARN("kernel '%s': in %d row%s (%s%s) a rank ran only %.0f%% of the time: it waited "
                 "for a core (another process on it, or more ranks than cores), so those times "
                 "include scheduler delays; see the cpu%% column and cpu_rank_min_pct",
                 k->name, n->idle_rows, n->idle_rows == 1 ? "" : "s", n->idle_sizes,
                 n->idle_len >= sizeof(n->idle_sizes) ? "..." : "", n->idle_min);
    if (n->invalid_rows > 0)
        FAB_WARN("kernel '%s': %d row%s (%s%s) below the floor of %d timed iterations (and, "
                 "adaptive, %d blocks): written, marked invalid (column quality), not "
                 "measurements",
                 k->name, n->invalid_rows, n->invalid_rows == 1 ? "" : "s", n->invalid_sizes,
                 n->invalid_len >= sizeof(n->invalid_sizes) ? "..." : "", FAB_FLOOR_SAMPLES,
                 FAB_ADAPT_MIN_BLOCKS);
    if (n->low_rows > 0 && n->pair[0] >= 0)
        FAB_WARN("kernel '%s' between ranks %d and %d%s%s: %s below %g in %d row%s (%s%s): %s",
                 k->name, n->pair[0], n->pair[1], n->component[0] ? ", component " : "",
                 n->component, fab_kcolumns(k)->low_col, fab_kcolumns(k)->low_below, n->low_rows,
                 n->low_rows == 1 ? "" : "s", n->low_sizes,
                 n->low_len >= sizeof(n->low_sizes) ? "..." : "", fab_kcolumns(k)->low_why);
    else if (n->low_rows > 0)
        FAB_WARN("kernel '%s'%s%s: %s below %g in %d row%s (%s%s): %s", k->name,
                 n->component[0] ? ", component " : "", n->component, fab_kcolumns(k)->low_col,
                 fab_kcolumns(k)->low_below, n->low_rows, n->low_rows == 1 ? "" : "s", n->low_sizes,
                 n->low_len >= sizeof(n->low_sizes) ? "..." : "", fab_kcolumns(k)->low_why);
    if (n->implausible_rows > 0)
        FAB_WARN("kernel '%s': %d row%s (%s%s) implausible: %s; written, marked invalid "
                 "(column quality, reason implausible), not measurements",
                 k->name, n->implausible_rows, n->implausible_rows == 1 ? "" : "s",
                 n->implausible_sizes,
                 n->implausible_len >= sizeof(n->implausible_sizes) ? "..." : "",
                 fab_kcolumns(k)->implausible_why ? fab_kcolumns(k)->implausible_why
                                                  : "the kernel's own check says so");
    if (n->stall_rows > 0)
        FAB_WARN("kernel '%s': in %d row%s (%s%s) a rank stalled and resumed (up to %.1f s "
                 "beyond its expected step): those times include the stall; see the column "
                 "stall_s",
                 k->name, n->stall_rows, n->stall_rows == 1 ? "" : "s", n->stall_sizes,
                 n->stall_len >= sizeof(n->stall_sizes) ? "..." : "", n->stall_max);
    fab_row_notes_fabric_report(n, k);
    if (n->bad > 0 && k->kind == FAB_KIND_COLLECTIVE)
        FAB_ERROR("kernel '%s': %ld elements differed from the expected result, counted over all "
                  "ranks (the first on each rank is named above)",
                  k->name, n->bad);
    else if (n->bad > 0)
        FAB_ERROR("kernel '%s': %ld received bytes did not match what was sent", k->name, n->bad);
    return n->bad > 0;
}
