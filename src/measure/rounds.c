/* SPDX-License-Identifier: BSD-3-Clause */
/* One kernel's part of the adaptive measurement (measure/rounds.h). Every rank of the
 * kernel runs the same rounds: the sizes still open, in order, one block each. Rank 0 of the
 * kernel pools each size's samples, keeps its block medians and decides (measure/adaptive.c);
 * the decision travels with the block's closing reduction, so every rank of the kernel knows
 * at once which sizes go on. The rounds across kernels, the budget and the grouping are
 * measure/rounds_group.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/signals.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "kernel/traits.h"
#include "measure/adaptive.h"
#include "measure/cpuload.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "measure/rounds_int.h"

typedef struct fab_size_run {
    size_t bytes;
    bool skip;    /* fit_bytes gave the previous size's value: measured once, there */
    bool warmed;  /* the warm-up ran */
    bool stopped; /* its decision was not to go on (every rank knows) */
    unsigned nblocks;
    uint64_t samples; /* timed iterations so far (every rank: the blocks' lengths agree) */
    double own_s;     /* a timing rank's own timed seconds over its blocks (fab_row_peers) */
    uint64_t warm;
    double per_iter;               /* estimate, s (0: unknown) */
    double stall;                  /* the longest resumed stall during its blocks, s */
    fab_cpu_mark_t cpu;            /* sums over its blocks' windows */
    fab_load_t load;               /* the node's runnable tasks at its blocks' ends (sampler) */
    double kc[FAB_KCOL_MAX];       /* the kernel's counters over its blocks (fab_kc_add) */
    double kc_first[FAB_KCOL_MAX]; /* its totals at the first block's start */
    fab_fc_acc_t fc;               /* the fabric's counters over its blocks (sampler) */
    fab_acc_t acc;                 /* rank 0 */
    uint64_t *slow;                /* rank 0 with more than one timer: per-rank slowest counts */
    fab_arrival_t arr;             /* rank 0 of a collective: who arrived last (arrival.h) */
    fab_adapt_verdict_t v;         /* rank 0: the last decision's figures */
} fab_size_run_t;

struct fab_rounds {
    fab_measure_t *m;
    fab_pace_t pace;      /* the part's pace, as the kernel's ranks agreed it */
    uint64_t deadline_ns; /* the budget's end (rank 0's clock decides) */
    uint64_t cap_ns;      /* the run's overrun cap for this part's group */
    int later;            /* sizes without a block in the kernels after this one */
    int n;
    fab_size_run_t *s;
    fab_adapt_t *ad; /* rank 0: one per size */
    bool *in_round;
    unsigned *nblocks_before; /* each size's blocks at the round's start (fab_rounds_fabric) */
    double *share;
    double *scratch;    /* FAB_BLOCK samples: a block's, sorted for its median */
    uint64_t *own_slow; /* m->slow_count as fab_measure_init made it (restored after use) */
};

/* ------------------------------------------------------------------ set-up */

fab_status_t fab_rounds_new(fab_rounds_t **out, fab_measure_t *m, const fab_sizes_t *sizes)
{
    fab_rounds_t *r = calloc(1, sizeof(*r));
    const fab_kernel_t *k = m->k;
    const fab_kcoll_t *coll = fab_kcoll(k);
    bool root = m->ctx->rank == 0;
    size_t last = 0;

    *out = r;
    if (!r)
        return FAB_ERR_NOMEM;
    r->m = m;
    r->own_slow = m->slow_count;
    r->n = sizes->n;
    r->s = calloc((size_t)r->n, sizeof(*r->s));
    r->ad = calloc((size_t)r->n, sizeof(*r->ad));
    r->in_round = calloc((size_t)r->n, sizeof(*r->in_round));
    r->nblocks_before = calloc((size_t)r->n, sizeof(*r->nblocks_before));
    r->share = calloc((size_t)r->n, sizeof(*r->share));
    r->scratch = root ? malloc(sizeof(double) * FAB_BLOCK) : NULL;
    if (!r->s || !r->ad || !r->in_round || !r->nblocks_before || !r->share || (root && !r->scratch))
        return FAB_ERR_NOMEM;
    fab_watch_take_stall(); /* a stall before the kernel's rounds is none of its sizes' */
    for (int i = 0; i < r->n; i++) {
        fab_size_run_t *s = &r->s[i];

        s->bytes = coll->fit_bytes ? coll->fit_bytes(m->ctx, sizes->v[i]) : sizes->v[i];
        s->skip = coll->fit_bytes && !coll->no_sizes && i > 0 && s->bytes == last;
        last = s->bytes;
        s->cpu.node = s->cpu.steal = m->node_sampler;
        for (int j = 0; j < FAB_KCOL_MAX; j++)
            s->kc[j] = s->kc_first[j] = NAN;
        fab_fc_acc_init(&s->fc);
        /* the floor's blocks: one for a kernel whose row is one block by design */
        fab_adapt_init(&r->ad[i], m->mopt->precision_pct / 100.0,
                       fab_kbudget(k)->whole_block ? 1 : FAB_ADAPT_MIN_BLOCKS, FAB_ROUND_BLOCK_S);
        r->ad[i].spend = fab_kbudget(k)->spend_all;
        if (s->skip) {
            s->stopped = true;
            r->ad[i].decision = FAB_ADAPT_STOP_BUDGET;
        }
        if (!root || s->skip)
            continue;
        if (fab_acc_init(&s->acc, (size_t)m->mopt->max_samples) != FAB_OK)
            return FAB_ERR_NOMEM;
        if (m->reduce && !(s->slow = calloc((size_t)m->ctx->size, sizeof(uint64_t))))
            return FAB_ERR_NOMEM;
        if (m->arrive &&
            fab_arrival_init(&s->arr, m->ctx->size, (size_t)m->mopt->max_samples) != FAB_OK)
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
        fab_arrival_free(&r->s[i].arr);
    }
    free(r->s);
    free(r->ad);
    free(r->in_round);
    free(r->nblocks_before);
    free(r->share);
    free(r->scratch);
    free(r);
}

int fab_rounds_nsizes(const fab_rounds_t *r)
{
    return r->n;
}

int fab_rounds_rank(const fab_rounds_t *r)
{
    return r->m->ctx->rank;
}

/* Whether size i met the floor (measure/adaptive.h), as every rank of the kernel knows it. */
static bool fab_size_floor(const fab_rounds_t *r, int i)
{
    return r->s[i].nblocks >= r->ad[i].min_blocks && r->s[i].samples >= r->ad[i].min_samples;
}

void fab_rounds_states(const fab_rounds_t *r, double *st)
{
    for (int i = 0; i < r->n; i++) {
        const fab_size_run_t *s = &r->s[i];

        if (s->skip)
            st[i] = FAB_RS_SKIP;
        else if (!s->stopped)
            st[i] = !s->nblocks ? FAB_RS_NONE : fab_size_floor(r, i) ? FAB_RS_FLOOR : FAB_RS_OPEN;
        else
            st[i] = r->ad[i].decision == FAB_ADAPT_STOP_PRECISE ? FAB_RS_PRECISE : FAB_RS_BUDGET;
    }
}

double fab_rounds_cost(const fab_rounds_t *r)
{
    double cost = 0.0;

    if (r->m->ctx->rank != 0)
        return 0.0;
    for (int i = 0; i < r->n; i++)
        if (!r->s[i].stopped)
            cost += fab_adapt_block_cost(&r->ad[i]);
    return cost;
}

double fab_rounds_reserve(const fab_rounds_t *r)
{
    double reserve = 0.0;

    if (r->m->ctx->rank != 0)
        return 0.0;
    for (int i = 0; i < r->n; i++)
        if (!r->s[i].stopped)
            reserve += fab_adapt_floor_reserve(&r->ad[i]);
    return reserve;
}

/* ------------------------------------------------------------------ one block */

/* Warm-up: -x iterations, or doubling rounds until they have settled (FAB_ROUND_WARM_S,
 * FAB_WARM_SETTLE, FAB_WARM_MAX_S; at a slower pace a fifth of the block and 10 blocks). Every
 * rank decides alike: the rounds' times are the slowest rank's (fab_timed_round). */
static fab_status_t fab_round_warm(fab_rounds_t *r, fab_size_run_t *s, double guess)
{
    fab_measure_t *m = r->m;
    double t = 0.0, total = 0.0, prev = 0.0;
    double target = r->pace.block_s / 5 < FAB_ROUND_WARM_S ? r->pace.block_s / 5 : FAB_ROUND_WARM_S;
    double most = 10 * r->pace.block_s < FAB_WARM_MAX_S ? 10 * r->pace.block_s : FAB_WARM_MAX_S;
    fab_status_t st = FAB_OK;

    s->warmed = true;
    s->per_iter = guess;
    fab_measure_phase(m, "warm-up", s->bytes, guess);
    if (m->mopt->warmup < 0 && r->pace.hard)
        return FAB_OK; /* the cap is reached: one short block, no warm-up before it */
    if (m->mopt->warmup >= 0) {
        s->warm = (uint64_t)m->mopt->warmup;
        if (s->warm > 0)
            st = fab_timed_round(m, s->bytes, s->warm, &t);
        if (st == FAB_OK && s->warm > 0 && t > 0)
            s->per_iter = t / (double)s->warm;
        return st;
    }
    for (uint64_t k = 1, rounds = 1; st == FAB_OK; rounds++) {
        double per;
        bool settled;

        st = fab_timed_round(m, s->bytes, k, &t);
        s->warm += k;
        total += t;
        per = t / (double)k;
        if (t > 0)
            s->per_iter = per;
        settled = rounds >= 2 && per >= (1.0 - FAB_WARM_SETTLE) * prev;
        if ((total >= target && settled) || (total >= most && s->warm >= 2) ||
            k >= (uint64_t)m->mopt->max_iters)
            break;
        prev = per;
        /* a round that alone took the time: the next has the same length, so the second call
         * is timed on its own too (a long iteration warms in a call or two) */
        if (!(t >= target && k == 1 && rounds == 1))
            k *= 2;
    }
    return st;
}

static void fab_cpu_add(fab_cpu_mark_t *sum, const fab_cpu_mark_t *a, const fab_cpu_mark_t *b)
{
    sum->wall += b->wall - a->wall;
    sum->self += b->self - a->self;
    sum->nivcsw += b->nivcsw >= a->nivcsw ? b->nivcsw - a->nivcsw : 0;
    sum->node = sum->node && a->node && b->node;
    sum->steal = sum->steal && a->steal && b->steal;
    for (int j = 0; j < FAB_CPU_NJ; j++)
        sum->j[j] += b->j[j] >= a->j[j] ? b->j[j] - a->j[j] : 0;
}

/* Rank 0: pool the block, add its median, decide. Returns the decision. */
static int fab_round_decide(fab_rounds_t *r, int i, const double *src, uint64_t b, double block_s)
{
    fab_size_run_t *s = &r->s[i];
    fab_adapt_t *ad = &r->ad[i];
    fab_interval_t pooled = {.rel_half = INFINITY};
    double share = r->share[i];

    for (uint64_t j = 0; j < b; j++)
        fab_acc_add(&s->acc, src[j]);
    s->acc.loop_total += src[b];
    memcpy(r->scratch, src, sizeof(double) * b);
    if (fab_adapt_add_block(ad, fab_median_select(r->scratch, b), block_s, b) != FAB_OK)
        return FAB_ADAPT_STOP_BUDGET;
    ad->capped = fab_now_ns() >= r->cap_ns; /* below the floor stops too */
    if (ad->nblocks >= ad->min_blocks)
        fab_acc_median_ci(&s->acc, &pooled);
    if (pooled.ranks.coverage < FAB_CI_LEVEL)
        pooled.rel_half = INFINITY; /* fewer than 6 samples: no 95% interval to meet */
    /* A size's share is in proportion to its block's cost, which before its first block was
     * an estimate (FAB_ROUND_BLOCK_S): a block of one 26 ms iteration (bw at 4 MiB) would
     * otherwise use up a share sized for 5 ms and stop at one block. */
    if (ad->nblocks == 1 && ad->est_block_s > 0)
        share *= block_s / ad->est_block_s;
    return (int)fab_adapt_decide(ad, &pooled, share - block_s, &s->v);
}

/* Rank 0 of the kernel after size i's block (fab_pace_t): the pace from here on. */
static fab_pace_t fab_rounds_pace(const fab_rounds_t *r, int i)
{
    uint64_t now = fab_now_ns();
    fab_pace_t p = {FAB_ROUND_BLOCK_S, now >= r->deadline_ns, now >= r->cap_ns};
    int u = r->later;

    for (int j = i + 1; j < r->n; j++)
        u += !r->s[j].skip && !r->s[j].stopped && r->s[j].nblocks == 0;
    if (u > 0) {
        double left = p.late ? 0.0 : (double)(r->deadline_ns - now) * 1e-9;

        p.block_s = left / FAB_PACE_MARGIN / u;
        if (p.block_s > FAB_ROUND_BLOCK_S)
            p.block_s = FAB_ROUND_BLOCK_S;
        if (p.block_s < FAB_PACE_MIN_S)
            p.block_s = FAB_PACE_MIN_S;
    }
    return p;
}

/* A block's decision and the pace, in the int the block's reduction carries (only rank 0
 * of the kernel sets it; the others add 0): decision | late << 2 | hard << 3 | block in
 * 0.1 us << 4. */
static int fab_pace_encode(int decision, fab_pace_t p)
{
    return decision | (p.late ? 4 : 0) | (p.hard ? 8 : 0) | (int)lround(p.block_s * 1e7) << 4;
}

static int fab_pace_decode(int code, fab_pace_t *p)
{
    p->late = (code & 4) != 0;
    p->hard = (code & 8) != 0;
    p->block_s = (double)(code >> 4) * 1e-7;
    return code & 3;
}

/* Iterations of size i's next block (fab_adapt_block_want), from what every rank knows. */
static double fab_block_want(const fab_rounds_t *r, int i)
{
    const fab_size_run_t *s = &r->s[i];

    return fab_adapt_block_want(&r->ad[i], s->samples, s->nblocks, s->per_iter, r->pace.block_s,
                                r->pace.late, r->pace.hard);
}

static fab_status_t fab_round_block(fab_rounds_t *r, int i, double guess)
{
    fab_measure_t *m = r->m;
    fab_size_run_t *s = &r->s[i];
    const double *src = NULL;
    fab_cpu_mark_t c0, c1;
    double k0[FAB_KCOL_MAX], k1[FAB_KCOL_MAX];
    uint64_t t0, b;
    double want, block_time;
    int code = FAB_ADAPT_CONTINUE;
    fab_status_t st = FAB_OK;

    if (!s->warmed)
        st = fab_round_warm(r, s, guess);
    if (st != FAB_OK)
        return st;
    want = fab_block_want(r, i);
    if (fab_kbudget(m->k)->whole_block && s->per_iter > 0) /* the row's whole share in one block */
        want = (r->share[i] > r->pace.block_s ? r->share[i] : r->pace.block_s) / s->per_iter;
    b = want < 1.0 ? 1 : want > FAB_BLOCK ? FAB_BLOCK : (uint64_t)want;
    /* the share is rank 0's: every rank takes its length */
    if (fab_kbudget(m->k)->whole_block)
        st = FAB_MPI(MPI_Bcast(&b, 1, MPI_UINT64_T, 0, m->ctx->comm));
    if (st != FAB_OK)
        return st;
    m->per_iter = s->per_iter;
    m->slow_count = s->slow;
    m->arr = m->ctx->rank == 0 ? &s->arr : NULL;
    fab_measure_phase(m, "a timed block", s->bytes, s->per_iter * (double)b);
    fab_watch_pace(s->per_iter); /* each iteration ticks (fab_block_once) */
    m->ctx->bytes = s->bytes;
    fab_kc_mark(m->k, m->ctx, m->state, k0);
    fab_cpu_mark(&c0, m->node_sampler);
    t0 = fab_now_ns();
    st = fab_block_once(m, s->bytes, b, &src);
    m->slow_count = r->own_slow; /* s->slow is this size's, freed with the rounds */
    m->arr = m->ctx->rank == 0 ? &m->arr_own : NULL;
    fab_cpu_mark(&c1, m->node_sampler);
    fab_kc_mark(m->k, m->ctx, m->state, k1);
    fab_cpu_add(&s->cpu, &c0, &c1);
    if (m->node_sampler)
        fab_load_sample(&s->load);
    fab_kc_add(m->k, s->kc, s->kc_first, k0, k1);
    block_time = fab_watch_take_stall();
    if (block_time > s->stall)
        s->stall = block_time;
    if (st != FAB_OK)
        return st;
    if (m->ctx->timer)
        s->own_s += m->block[b];
    if (m->ctx->rank == 0) {
        fab_pace_t p;

        code = fab_round_decide(r, i, src, b, (double)(fab_now_ns() - t0) * 1e-9);
        p = fab_rounds_pace(r, i);
        /* the budget is spent: this block was its last, if it met the floor (the cap: in
         * any case) */
        if (code == FAB_ADAPT_CONTINUE && (p.hard || (p.late && fab_adapt_floor_met(&r->ad[i]))))
            code = FAB_ADAPT_STOP_BUDGET;
        code = fab_pace_encode(code, p);
    }
    block_time = m->block_wall;
    st = fab_sync_max(m->ctx->comm, &block_time, &code);
    if (st != FAB_OK)
        return st;
    code = fab_pace_decode(code, &r->pace); /* the same on every rank */
    s->nblocks++;
    s->samples += b;
    if (block_time > 0)
        s->per_iter = block_time / (double)b;
    if (code != FAB_ADAPT_CONTINUE) {
        s->stopped = true;
        r->ad[i].decision = (fab_adapt_decision_t)code;
    }
    return FAB_OK;
}

void fab_rounds_close(fab_rounds_t *r, bool hard)
{
    for (int i = 0; i < r->n; i++)
        if (!r->s[i].skip && !r->s[i].stopped && r->s[i].nblocks > 0 &&
            (hard || fab_size_floor(r, i))) {
            r->s[i].stopped = true;
            r->ad[i].decision = FAB_ADAPT_STOP_BUDGET;
        }
}

/* The fabric's counters around a round (not each block: an RDMA port's counters are device
 * queries, too slow for 5 ms blocks): their growth goes to every size that had a block in it. */
static void fab_rounds_fabric(fab_rounds_t *r, const fab_fc_mark_t *a, const unsigned *before)
{
    static fab_fc_mark_t b; /* large: one for the process (one thread measures) */

    fab_fc_mark(&b, r->m->node_sampler);
    for (int i = 0; i < r->n; i++)
        if (r->s[i].nblocks != before[i])
            fab_fc_add(&r->s[i].fc, a, &b);
}

/* One round: every open size, in order, one block. */
fab_status_t fab_rounds_one(fab_rounds_t *r, double left_s, uint64_t deadline_ns, uint64_t cap_ns,
                            int later, fab_pace_t *pace)
{
    static fab_fc_mark_t fa; /* the round's start (one thread measures) */
    unsigned *before = r->nblocks_before;
    double guess = 0.0;
    size_t gbytes = 0;

    r->pace = *pace;
    r->deadline_ns = deadline_ns;
    r->cap_ns = cap_ns;
    r->later = later;
    /* The budget was spent before this part: what has met the floor has had its last block
     * (past the cap: whatever has a block). */
    if (r->pace.late)
        fab_rounds_close(r, r->pace.hard);
    if (r->m->ctx->rank == 0)
        fab_adapt_schedule(r->ad, (size_t)r->n, left_s, r->in_round, r->share);
    for (int i = 0; i < r->n; i++)
        before[i] = r->s[i].nblocks;
    fab_fc_mark(&fa, r->m->node_sampler);
    for (int i = 0; i < r->n; i++) {
        fab_size_run_t *s = &r->s[i];
        fab_status_t st;

        if (s->skip || s->stopped)
            continue;
        /* The budget ran out during this part (the pace every rank decoded from the last
         * block): a size that has met the floor stops now rather than take one more, so that a
         * slowed machine overruns by what the floor needs, not by a block of every size left;
         * past the cap, every size that has a block. */
        if (s->nblocks > 0 && (r->pace.hard || (r->pace.late && fab_size_floor(r, i)))) {
            s->stopped = true;
            r->ad[i].decision = FAB_ADAPT_STOP_BUDGET;
            continue;
        }
        /* The first estimate of a cold size: the previous one's, scaled up by the bytes. */
        if (!s->warmed && gbytes)
            guess = guess * (s->bytes > gbytes ? (double)s->bytes / (double)gbytes : 1.0);
        st = fab_round_block(r, i, guess);
        if (st != FAB_OK)
            return st;
        guess = s->per_iter;
        gbytes = s->bytes;
    }
    fab_rounds_fabric(r, &fa, before);
    if (r->m->ctx->rank == 0)
        *pace = fab_rounds_pace(r, r->n - 1);
    return FAB_OK;
}

/* ------------------------------------------------------------------ a row */

/* Rank 0: the row's statistics and the adaptive figures. */
static void fab_rounds_fill(fab_rounds_t *r, int i, fab_row_t *row)
{
    fab_measure_t *m = r->m;
    fab_size_run_t *s = &r->s[i];
    fab_adapt_t *ad = &r->ad[i];
    double div = fab_ktime_divisor(m->k);

    row->bytes = s->bytes;
    row->warmup = s->warm;
    fab_row_samples(row, m->k, m->ctx, &s->acc, s->acc.n, NAN, s->slow, m->arrive ? &s->arr : NULL);
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

fab_status_t fab_rounds_fill_row(fab_rounds_t *r, int i, fab_status_t stop, fab_row_t *row,
                                 const double **samples, size_t *n)
{
    fab_measure_t *m = r->m;
    fab_size_run_t *s = &r->s[i];
    fab_cpu_mark_t zero;
    fab_status_t st = FAB_OK;

    fab_row_clear(row);
    *samples = NULL;
    *n = 0;
    if (s->nblocks == 0)
        return stop != FAB_OK ? stop : FAB_ERR_INTERNAL;
    memset(&zero, 0, sizeof(zero));
    zero.node = s->cpu.node;
    zero.steal = s->cpu.steal;
    st = fab_row_cpu(row, m->ctx, &zero, &s->cpu, &s->load);
    if (st == FAB_OK)
        st = fab_row_fabric(row, m->ctx, &s->fc);
    if (st == FAB_OK)
        st = fab_row_stall(row, m->ctx, s->stall);
    if (st == FAB_OK) {
        fab_measure_phase(m, "letting the row's traffic arrive", s->bytes, FAB_SETTLE_S);
        st = fab_kc_settle(m->k, m->ctx, m->state, s->bytes, s->kc, s->kc_first);
    }
    if (st == FAB_OK)
        st = fab_row_counters(row, m->k, m->ctx, s->kc);
    if (st == FAB_OK) /* its iterations: s->samples, the same on every rank */
        st = fab_row_peers(row, m->ctx,
                           fab_own_mean(m->k, s->own_s, m->ctx->timer ? s->samples : 0));
    m->per_iter = s->per_iter;
    if (st == FAB_OK && stop == FAB_OK && m->mopt->validate && m->k->validate)
        st = fab_validate_size(m, s->bytes, &row->validation_errors);
    if (st != FAB_OK || m->ctx->rank != 0)
        return st;
    fab_rounds_fill(r, i, row);
    row->stop_status = stop;
    free(s->acc.sorted); /* the statistics are done; the samples stay for the outputs */
    s->acc.sorted = NULL;
    s->acc.sorted_alloc = 0;
    *samples = s->acc.raw;
    *n = s->acc.raw_n;
    return FAB_OK;
}
