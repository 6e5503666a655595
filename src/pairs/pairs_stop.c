/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels' iteration policy for one pair and direction (pairs/pairs_stop.h). */
#include <math.h>
#include <string.h>

#include "measure/quality.h"
#include "measure/rounds.h"
#include "pairs/pairs_stop.h"

void fab_pstop_init(fab_pstop_t *p, const fab_pstop_conf_t *c)
{
    memset(p, 0, sizeof(*p));
    p->c = *c;
    if (p->c.max_iters == 0)
        p->c.max_iters = UINT64_MAX;
    if (c->policy == FAB_PSTOP_ADAPTIVE)
        p->c.min_iters = FAB_FLOOR_SAMPLES;
    p->cap_s = c->policy == FAB_PSTOP_FIXED ? INFINITY : fab_quality_cap(c->time_s);
    fab_adapt_init(&p->a, c->precision, FAB_FLOOR_BLOCKS, FAB_PAIRS_BLOCK_S);
    p->met = c->policy == FAB_PSTOP_ADAPTIVE ? 0 : -1;
}

double fab_pstop_default_time(bool latency, double pair_time_s)
{
    if (pair_time_s > 0)
        return pair_time_s;
    return latency ? FAB_PAIRS_TIME_LAT : FAB_PAIRS_TIME_BW;
}

uint64_t fab_pstop_first(fab_pstop_t *p)
{
    uint64_t k = 1;

    if (p->c.warmup >= 0)
        k = (uint64_t)p->c.warmup;
    else if (p->c.policy == FAB_PSTOP_FIXED)
        k = (p->c.fixed + 9) / 10;
    p->warm_done = k == 0;
    return k;
}

uint64_t fab_pstop_warmed(fab_pstop_t *p, uint64_t k, double round_s)
{
    double per = k > 0 ? round_s / (double)k : 0.0;
    double most = FAB_PAIRS_WARM_SHARE * p->c.time_s;
    bool settled;
    uint64_t next;

    p->warm += k;
    p->warm_s += round_s;
    if (per > 0)
        p->per_iter = per;
    if (p->warm_done || p->c.warmup >= 0 || p->c.policy == FAB_PSTOP_FIXED) {
        p->warm_done = true;
        return 0;
    }
    p->warm_rounds++;
    settled = p->warm_rounds >= 2 && per >= (1.0 - FAB_WARM_SETTLE) * p->warm_prev;
    if ((p->warm_s >= FAB_ROUND_WARM_S && settled) ||
        (p->warm_s >= most && (p->warm >= 2 || p->warm_s >= p->c.time_s)) ||
        p->warm >= p->c.max_iters) {
        p->warm_done = true;
        return 0;
    }
    p->warm_prev = per;
    /* a round that alone took the time: the next has the same length (a long iteration warms
     * in a call or two), else the rounds double; none beyond the warm-up's share */
    next = round_s >= FAB_ROUND_WARM_S && k == 1 && p->warm_rounds == 1 ? 1 : 2 * k;
    if (per > 0 && most > p->warm_s) {
        double fit = ceil((most - p->warm_s) / per);

        if (fit < (double)next)
            next = fit < 1 ? 1 : (uint64_t)fit;
    }
    return next;
}

uint64_t fab_pstop_next(const fab_pstop_t *p)
{
    const fab_pstop_conf_t *c = &p->c;
    double per = p->samples > 0 ? p->timed_s / (double)p->samples : p->per_iter;
    double len = per > 0 ? ceil(FAB_PAIRS_BLOCK_S / per) : 1.0, spent = p->warm_s + p->timed_s;
    uint64_t n;

    if (p->done)
        return 0;
    if (c->policy == FAB_PSTOP_FIXED)
        return p->samples == 0 ? c->fixed : 0;
    if (len > FAB_PAIRS_BLOCK_MAX)
        len = FAB_PAIRS_BLOCK_MAX;
    if (p->samples < c->min_iters) { /* the floor: its samples spread over its missing blocks */
        unsigned missing = p->a.nblocks < FAB_FLOOR_BLOCKS && c->policy == FAB_PSTOP_ADAPTIVE
                               ? FAB_FLOOR_BLOCKS - (unsigned)p->a.nblocks
                               : 1;
        double need = ceil((double)(c->min_iters - p->samples) / missing);

        if (need > len)
            len = need;
    } else if (c->policy == FAB_PSTOP_TIME && per > 0 && ceil((c->time_s - p->timed_s) / per) < len)
        len = ceil((c->time_s - p->timed_s) / per);
    /* never far past the cap: a pair that cannot reach the floor in it stops there */
    if (per > 0 && spent + len * per > p->cap_s)
        len = floor((p->cap_s - spent) / per);
    if (len < 1)
        len = 1;
    n = len > (double)FAB_PAIRS_BLOCK_MAX ? FAB_PAIRS_BLOCK_MAX : (uint64_t)len;
    if (c->max_iters - p->samples < n)
        n = c->max_iters - p->samples;
    return n;
}

void fab_pstop_block(fab_pstop_t *p, uint64_t n, double block_s, double block_median,
                     const fab_interval_t *pooled)
{
    const fab_pstop_conf_t *c = &p->c;
    double spent;
    fab_adapt_verdict_t v;

    p->samples += n;
    p->timed_s += block_s;
    spent = p->warm_s + p->timed_s;
    if (p->samples > 0 && p->timed_s > 0)
        p->per_iter = p->timed_s / (double)p->samples;
    if (p->done)
        return; /* shift: a member done goes on while another is not */
    if (p->samples >= c->max_iters) {
        p->done = true;
        return;
    }
    switch (c->policy) {
    case FAB_PSTOP_FIXED:
        p->done = true;
        break;
    case FAB_PSTOP_TIME:
        p->done = (p->timed_s >= c->time_s && p->samples >= c->min_iters) || spent >= p->cap_s;
        break;
    default:
        if (fab_adapt_add_block(&p->a, block_median, block_s, n) != FAB_OK) {
            p->done = true; /* FAB_ADAPT_MAX_BLOCKS */
            break;
        }
        p->a.capped = spent >= p->cap_s;
        fab_adapt_decide(&p->a, pooled, c->time_s - spent, &v);
        p->done = v.decision != FAB_ADAPT_CONTINUE;
        p->met = v.decision == FAB_ADAPT_STOP_PRECISE;
    }
}

void fab_pstop_estimate(const fab_pstop_conf_t *c, double iter_s, double *expect, double *most)
{
    double t = iter_s, cap = fab_quality_cap(c->time_s), warm;

    warm = c->warmup >= 0 ? (double)c->warmup * t : fmax(2 * t, FAB_ROUND_WARM_S);
    switch (c->policy) {
    case FAB_PSTOP_FIXED:
        *expect = t > 0 ? (double)(c->fixed +
                                   (c->warmup >= 0 ? (uint64_t)c->warmup : (c->fixed + 9) / 10)) *
                              t
                        : NAN;
        *most = NAN;
        break;
    case FAB_PSTOP_TIME:
        *expect = isnan(t) ? NAN : warm + fmax(c->time_s, (double)c->min_iters * t);
        *most = isnan(*expect) ? cap : fmax(cap, *expect);
        break;
    default:
        *expect = isnan(t) ? NAN
                           : warm + fmax((double)FAB_FLOOR_SAMPLES * t,
                                         FAB_FLOOR_BLOCKS * FAB_PAIRS_BLOCK_S);
        *most = isnan(*expect) || *expect <= c->time_s ? c->time_s : fmin(*expect, cap);
    }
}
