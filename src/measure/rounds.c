/* The adaptive measurement (measure/rounds.h). Every rank of the kernel runs the same
 * rounds: the sizes still open, in order, one block each. Rank 0 of the kernel pools each
 * size's samples, keeps its block medians and decides (measure/adaptive.c); the decision
 * travels with the block's closing reduction, so every rank knows at once which sizes go on.
 * The budget: the run's (fab_plan_budget) is shared between kernels in proportion to their
 * rows, from what is left when each starts; within a kernel fab_adapt_schedule shares it
 * between the open sizes in proportion to a block's cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/signals.h"
#include "core/watchdog.h"
#include "measure/adaptive.h"
#include "measure/cpuload.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "measure/timing.h"

typedef struct fab_size_run {
    size_t bytes;
    bool skip;    /* fit_bytes gave the previous size's value: measured once, there */
    bool warmed;  /* the warm-up ran */
    bool stopped; /* its decision was not to go on (every rank knows) */
    unsigned nblocks;
    uint64_t warm;
    double per_iter;       /* estimate, s (0: unknown) */
    double stall;          /* the longest resumed stall during its blocks, s */
    fab_cpu_mark_t cpu;    /* sums over its blocks' windows */
    fab_acc_t acc;         /* rank 0 */
    uint64_t *slow;        /* rank 0 with more than one timer: per-rank slowest counts */
    fab_adapt_verdict_t v; /* rank 0: the last decision's figures */
} fab_size_run_t;

struct fab_rounds {
    fab_measure_t *m;
    int n;
    fab_size_run_t *s;
    fab_adapt_t *ad; /* rank 0: one per size */
    bool *in_round;
    double *share;
    double *scratch; /* FAB_BLOCK samples: a block's, sorted for its median */
    uint64_t deadline_ns;
    uint64_t start_ns, said_ns; /* the rounds' start; the last progress line */
    int rounds;
    fab_status_t stop;  /* a stop request ended the rounds */
    uint64_t *own_slow; /* m->slow_count as fab_measure_init made it (restored after use) */
};

/* ------------------------------------------------------------------ the run's budget */

int fab_rounds_budget_rows(const fab_kernel_t *k, const fab_opts_t *o)
{
    fab_sizes_t tmp;

    return k->ranks == FAB_RANKS_NODES ? 0 : fab_kernel_sizes(k, o, &tmp)->n;
}

double fab_rounds_budget(const fab_opts_t *o, int *rows)
{
    int n = 0;

    for (int i = 0; i < o->nkernels; i++)
        n += fab_rounds_budget_rows(o->kernels[i], o);
    *rows = n;
    if (n == 0)
        return 0.0;
    return o->budget_s > 0 ? o->budget_s : FAB_BUDGET_PER_ROW * n;
}

void fab_rounds_policy(const fab_opts_t *o, char *buf, size_t len)
{
    int rows;
    double budget = fab_rounds_budget(o, &rows);

    if (o->adaptive)
        snprintf(buf, len,
                 "adaptive: rounds over the sizes, one block of about %g ms per size and round; a "
                 "size stops when its median's 95%% interval is within +-%g%% and its blocks "
                 "agree, or when its share of the budget (%.3g s for the run's %d rows) is spent",
                 FAB_ROUND_BLOCK_S * 1e3, o->precision_pct, budget, rows);
    else if (o->iters > 0)
        snprintf(buf, len, "fixed: %ld iterations per size, warm-up %llu", o->iters,
                 (unsigned long long)fab_plan_warmup(o));
    else
        snprintf(buf, len,
                 "time: about %g s per size (%ld to %ld iterations); warm-up includes "
                 "calibration",
                 o->time_s, o->min_iters, o->max_iters);
}

static struct {
    uint64_t start_ns;
    double total_s;
    int rows_left;
} fab_budget;

void fab_rounds_budget_begin(const fab_opts_t *o)
{
    fab_budget.total_s = fab_rounds_budget(o, &fab_budget.rows_left);
    fab_budget.start_ns = fab_now_ns();
}

double fab_rounds_budget_take(const fab_opts_t *o, const fab_kernel_t *k)
{
    int rows = fab_rounds_budget_rows(k, o);
    double left = fab_budget.total_s - (double)(fab_now_ns() - fab_budget.start_ns) * 1e-9;
    double share = fab_budget.rows_left > 0 && left > 0
                       ? left * (double)rows / (double)fab_budget.rows_left
                       : 0.0;

    fab_budget.rows_left -= rows;
    return share;
}

/* ------------------------------------------------------------------ set-up */

fab_status_t fab_rounds_new(fab_rounds_t **out, fab_measure_t *m, const fab_sizes_t *sizes,
                            double budget_s)
{
    fab_rounds_t *r = calloc(1, sizeof(*r));
    const fab_kernel_t *k = m->k;
    bool root = m->ctx->rank == 0;
    size_t last = 0;

    *out = r;
    if (!r)
        return FAB_ERR_NOMEM;
    r->m = m;
    r->own_slow = m->slow_count;
    r->n = sizes->n;
    r->stop = FAB_OK;
    r->start_ns = r->said_ns = fab_now_ns();
    r->deadline_ns = r->start_ns + (uint64_t)(budget_s * 1e9);
    r->s = calloc((size_t)r->n, sizeof(*r->s));
    r->ad = calloc((size_t)r->n, sizeof(*r->ad));
    r->in_round = calloc((size_t)r->n, sizeof(*r->in_round));
    r->share = calloc((size_t)r->n, sizeof(*r->share));
    r->scratch = root ? malloc(sizeof(double) * FAB_BLOCK) : NULL;
    if (!r->s || !r->ad || !r->in_round || !r->share || (root && !r->scratch))
        return FAB_ERR_NOMEM;
    fab_watch_take_stall(); /* a stall before the kernel's rounds is none of its sizes' */
    for (int i = 0; i < r->n; i++) {
        fab_size_run_t *s = &r->s[i];

        s->bytes = k->fit_bytes ? k->fit_bytes(m->ctx, sizes->v[i]) : sizes->v[i];
        s->skip = k->fit_bytes && !k->no_sizes && i > 0 && s->bytes == last;
        last = s->bytes;
        s->cpu.node = m->node_sampler;
        fab_adapt_init(&r->ad[i], m->o->precision_pct / 100.0, FAB_ADAPT_MIN_BLOCKS,
                       FAB_ROUND_BLOCK_S);
        if (s->skip) {
            s->stopped = true;
            r->ad[i].decision = FAB_ADAPT_STOP_BUDGET;
        }
        if (!root || s->skip)
            continue;
        if (fab_acc_init(&s->acc, (size_t)m->o->max_samples) != FAB_OK)
            return FAB_ERR_NOMEM;
        if (m->reduce && !(s->slow = calloc((size_t)m->ctx->size, sizeof(uint64_t))))
            return FAB_ERR_NOMEM;
    }
    return FAB_OK;
}

void fab_rounds_free(fab_rounds_t *r)
{
    if (!r)
        return;
    r->m->slow_count = r->own_slow;
    for (int i = 0; r->s && i < r->n; i++) {
        fab_acc_free(&r->s[i].acc);
        free(r->s[i].slow);
    }
    free(r->s);
    free(r->ad);
    free(r->in_round);
    free(r->share);
    free(r->scratch);
    free(r);
}

fab_status_t fab_rounds_status(const fab_rounds_t *r)
{
    return r ? r->stop : FAB_OK;
}

/* ------------------------------------------------------------------ one block */

/* Warm-up: -x iterations, or doubling rounds until FAB_ROUND_WARM_S has passed. */
static fab_status_t fab_round_warm(fab_rounds_t *r, fab_size_run_t *s, double guess)
{
    fab_measure_t *m = r->m;
    double t = 0.0, total = 0.0;
    fab_status_t st = FAB_OK;

    s->warmed = true;
    s->per_iter = guess;
    fab_measure_phase(m, "warm-up", s->bytes, guess);
    if (m->o->warmup >= 0) {
        s->warm = (uint64_t)m->o->warmup;
        if (s->warm > 0)
            st = fab_timed_round(m, s->bytes, s->warm, &t);
        if (st == FAB_OK && s->warm > 0 && t > 0)
            s->per_iter = t / (double)s->warm;
        return st;
    }
    for (uint64_t k = 1; st == FAB_OK; k *= 2) {
        st = fab_timed_round(m, s->bytes, k, &t);
        s->warm += k;
        total += t;
        if (t > 0)
            s->per_iter = t / (double)k;
        if (total >= FAB_ROUND_WARM_S || k >= (uint64_t)m->o->max_iters)
            break;
    }
    return st;
}

static void fab_cpu_add(fab_cpu_mark_t *sum, const fab_cpu_mark_t *a, const fab_cpu_mark_t *b)
{
    sum->wall += b->wall - a->wall;
    sum->self += b->self - a->self;
    sum->node = sum->node && a->node && b->node;
    for (int j = 0; j < FAB_CPU_NJ; j++)
        sum->j[j] += b->j[j] >= a->j[j] ? b->j[j] - a->j[j] : 0;
}

/* Rank 0: pool the block, add its median, decide. Returns the decision. */
static int fab_round_decide(fab_rounds_t *r, int i, const double *src, uint64_t b, double block_s)
{
    fab_size_run_t *s = &r->s[i];
    fab_adapt_t *ad = &r->ad[i];
    fab_interval_t pooled = {.rel_half = INFINITY};

    for (uint64_t j = 0; j < b; j++)
        fab_acc_add(&s->acc, src[j]);
    s->acc.loop_total += src[b];
    memcpy(r->scratch, src, sizeof(double) * b);
    if (fab_adapt_add_block(ad, fab_median_select(r->scratch, b), block_s) != FAB_OK)
        return FAB_ADAPT_STOP_BUDGET;
    if (ad->nblocks >= ad->min_blocks)
        fab_acc_median_ci(&s->acc, &pooled);
    return (int)fab_adapt_decide(ad, &pooled, r->share[i] - block_s, &s->v);
}

static fab_status_t fab_round_block(fab_rounds_t *r, int i, double guess)
{
    fab_measure_t *m = r->m;
    fab_size_run_t *s = &r->s[i];
    const double *src = NULL;
    fab_cpu_mark_t c0, c1;
    uint64_t t0, b;
    double want, block_time;
    int code = FAB_ADAPT_CONTINUE;
    fab_status_t st = FAB_OK;

    if (!s->warmed)
        st = fab_round_warm(r, s, guess);
    if (st != FAB_OK)
        return st;
    want = s->per_iter > 0 ? FAB_ROUND_BLOCK_S / s->per_iter : 1.0;
    b = want < 1.0 ? 1 : want > FAB_BLOCK ? FAB_BLOCK : (uint64_t)want;
    m->per_iter = s->per_iter;
    m->slow_count = s->slow;
    fab_measure_phase(m, "a timed block", s->bytes, s->per_iter * (double)b);
    fab_cpu_mark(&c0, m->node_sampler);
    t0 = fab_now_ns();
    st = fab_block_once(m, s->bytes, b, &src);
    m->slow_count = r->own_slow; /* s->slow is this size's, freed with the rounds */
    fab_cpu_mark(&c1, m->node_sampler);
    fab_cpu_add(&s->cpu, &c0, &c1);
    block_time = fab_watch_take_stall();
    if (block_time > s->stall)
        s->stall = block_time;
    if (st != FAB_OK)
        return st;
    if (m->ctx->rank == 0)
        code = fab_round_decide(r, i, src, b, (double)(fab_now_ns() - t0) * 1e-9);
    block_time = m->block[b];
    st = fab_sync_max(m->ctx->comm, &block_time, &code);
    if (st != FAB_OK)
        return st;
    s->nblocks++;
    if (block_time > 0)
        s->per_iter = block_time / (double)b;
    if (code != FAB_ADAPT_CONTINUE) {
        s->stopped = true;
        r->ad[i].decision = (fab_adapt_decision_t)code; /* the same on every rank */
    }
    return FAB_OK;
}

/* Rank 0 of the kernel, after a round of a long measurement (from 3 s on, every 2 s at
 * most, not with -q): how far the rounds are. */
static void fab_round_progress(fab_rounds_t *r)
{
    uint64_t now = fab_now_ns();
    double elapsed = (double)(now - r->start_ns) * 1e-9;
    double budget = (double)(r->deadline_ns - r->start_ns) * 1e-9;
    int open = 0, met = 0, live = 0;

    if (r->m->o->quiet || elapsed < 3.0 || (double)(now - r->said_ns) * 1e-9 < 2.0)
        return;
    r->said_ns = now;
    for (int i = 0; i < r->n; i++) {
        if (r->s[i].skip)
            continue;
        live++;
        open += !r->s[i].stopped;
        met += r->ad[i].decision == FAB_ADAPT_STOP_PRECISE;
    }
    fab_log_progress("%s: round %d, %d of %d sizes still measuring, %d met --precision; "
                     "%.1f s of the kernel's %.1f s budget spent",
                     r->m->k->name, r->rounds, open, live, met, elapsed, budget);
}

/* One round: every open size, in order, one block. */
static fab_status_t fab_round(fab_rounds_t *r)
{
    double guess = 0.0;
    size_t gbytes = 0;

    if (r->m->ctx->rank == 0) {
        uint64_t now = fab_now_ns();
        double left = now < r->deadline_ns ? (double)(r->deadline_ns - now) * 1e-9 : 0.0;

        fab_adapt_schedule(r->ad, (size_t)r->n, left, r->in_round, r->share);
    }
    for (int i = 0; i < r->n; i++) {
        fab_size_run_t *s = &r->s[i];
        fab_status_t st;

        if (s->skip || s->stopped)
            continue;
        /* The first estimate of a cold size: the previous one's, scaled up by the bytes. */
        if (!s->warmed && gbytes)
            guess = guess * (s->bytes > gbytes ? (double)s->bytes / (double)gbytes : 1.0);
        st = fab_round_block(r, i, guess);
        if (st != FAB_OK)
            return st;
        guess = s->per_iter;
        gbytes = s->bytes;
    }
    r->rounds++;
    if (r->m->ctx->rank == 0)
        fab_round_progress(r);
    return FAB_OK;
}

/* ------------------------------------------------------------------ a row */

/* Rank 0: the row's statistics and the adaptive figures. */
static void fab_rounds_fill(fab_rounds_t *r, int i, fab_row_t *row)
{
    fab_measure_t *m = r->m;
    fab_size_run_t *s = &r->s[i];
    fab_adapt_t *ad = &r->ad[i];
    double div = m->k->time_divisor;

    row->bytes = s->bytes;
    row->iters = s->acc.n;
    row->warmup = s->warm;
    fab_acc_stats(&s->acc, div, &row->t);
    fab_row_precision(row, &s->acc);
    row->iter_time = s->acc.n ? s->acc.loop_total / (double)s->acc.n : NAN;
    fab_row_rates(row, m->k, m->ctx, NAN);
    fab_row_slowest(row, m->ctx, s->slow);
    row->blocks = ad->nblocks;
    row->blocks_ci_pct = isfinite(s->v.blocks_rel) ? 100.0 * s->v.blocks_rel : NAN;
    row->target_met = ad->decision == FAB_ADAPT_STOP_PRECISE;
    row->regimes = (int)s->v.regimes.n;
    for (unsigned g = 0; g < s->v.regimes.n && g < FAB_REGIME_MAX; g++) {
        row->regime_level[g] = s->v.regimes.level[g] / div;
        row->regime_share[g] = s->v.regimes.share[g];
    }
    row->nblock_medians = (unsigned)ad->nblocks;
    for (size_t b = 0; b < ad->nblocks; b++)
        row->block_median[b] = ad->median[b] / div;
}

fab_status_t fab_rounds_row(fab_rounds_t *r, int i, fab_row_t *row, const double **samples,
                            size_t *n)
{
    fab_measure_t *m = r->m;
    fab_size_run_t *s = &r->s[i];
    fab_cpu_mark_t zero;
    fab_status_t st = FAB_OK;

    fab_row_clear(row);
    *samples = NULL;
    *n = 0;
    while (!s->stopped && r->stop == FAB_OK) {
        st = fab_round(r);
        if (st == FAB_ERR_INTERRUPTED || st == FAB_ERR_IO)
            r->stop = st; /* agreed by every rank in the reduction that said so */
        else if (st != FAB_OK)
            return st;
    }
    if (s->nblocks == 0)
        return r->stop != FAB_OK ? r->stop : FAB_ERR_INTERNAL;
    memset(&zero, 0, sizeof(zero));
    zero.node = s->cpu.node;
    st = fab_row_cpu(row, m->ctx, &zero, &s->cpu);
    if (st == FAB_OK)
        st = fab_row_stall(row, m->ctx, s->stall);
    m->per_iter = s->per_iter;
    if (st == FAB_OK && r->stop == FAB_OK && m->o->validate && m->k->validate)
        st = fab_validate_size(m, s->bytes, &row->validation_errors);
    if (st != FAB_OK || m->ctx->rank != 0)
        return st;
    fab_rounds_fill(r, i, row);
    row->stop_status = r->stop;
    free(s->acc.sorted); /* the statistics are done; the samples stay for the outputs */
    s->acc.sorted = NULL;
    s->acc.sorted_alloc = 0;
    *samples = s->acc.raw;
    *n = s->acc.raw_n;
    return FAB_OK;
}
