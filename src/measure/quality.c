/* SPDX-License-Identifier: BSD-3-Clause */
/* A row's quality (measure/quality.h): the floor, the disturbance thresholds, the noise marks,
 * and a run's tally of them. A row is judged on what it measured; a threshold is only applied
 * to a figure that is known (NaN: the kernel or the OS did not report it). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "measure/quality.h"

static const char *const fab_qr_words[FAB_QR_NWORDS] = {
    "samples", "blocks", "cpu", "steal", "runnable", "ctxsw", "regimes", "precision", "implausible",
};

double fab_quality_cap(double budget_s)
{
    double f = FAB_CAP_FACTOR * budget_s, m = budget_s + FAB_CAP_MIN_S;

    return budget_s > 0 ? (f > m ? f : m) : 0.0;
}

unsigned fab_quality_reasons(const fab_quality_in_t *in)
{
    unsigned r = 0;

    if (in->iters < FAB_FLOOR_SAMPLES)
        r |= FAB_QR_SAMPLES;
    if (in->min_blocks > 0 && in->blocks < in->min_blocks)
        r |= FAB_QR_BLOCKS;
    /* a comparison with NaN is false: an unknown figure is not judged */
    if (!in->sleeps && in->cpu_min_pct < FAB_DISTURB_CPU_PCT)
        r |= FAB_QR_CPU;
    if (in->steal_pct > FAB_DISTURB_STEAL_PCT)
        r |= FAB_QR_STEAL;
    if (in->runnable_per_cpu > FAB_DISTURB_RUNNABLE)
        r |= FAB_QR_RUNNABLE;
    if (in->ctxsw_per_s > FAB_DISTURB_CTXSW_ALONE_PER_S ||
        (in->ctxsw_per_s > FAB_DISTURB_CTXSW_PER_S && (r & FAB_QR_DISTURBED)))
        r |= FAB_QR_CTXSW;
    if (in->regimes > 1)
        r |= FAB_QR_REGIMES;
    if (in->target_met == 0)
        r |= FAB_QR_PRECISION;
    if (in->implausible)
        r |= FAB_QR_IMPLAUSIBLE;
    return r;
}

fab_quality_t fab_quality_of(unsigned reasons)
{
    if (reasons & FAB_QR_INVALID)
        return FAB_Q_INVALID;
    if (reasons & FAB_QR_DISTURBED)
        return FAB_Q_DISTURBED;
    if (reasons & FAB_QR_NOISY)
        return FAB_Q_NOISY;
    return FAB_Q_OK;
}

const char *fab_quality_name(fab_quality_t q)
{
    switch (q) {
    case FAB_Q_NOISY:
        return "noisy";
    case FAB_Q_DISTURBED:
        return "disturbed";
    case FAB_Q_INVALID:
        return "invalid";
    default:
        return "ok";
    }
}

void fab_quality_words(unsigned reasons, char *buf, size_t len)
{
    size_t at = 0;

    if (len)
        buf[0] = '\0';
    for (int i = 0; i < FAB_QR_NWORDS; i++)
        if (reasons & (1u << i))
            fab_appendf(buf, len, &at, "%s%s", at ? ";" : "", fab_qr_words[i]);
}

unsigned fab_quality_parse_words(const char *text)
{
    unsigned r = 0;

    while (text && *text) {
        size_t n = strcspn(text, ";");

        for (int i = 0; i < FAB_QR_NWORDS; i++)
            if (strlen(fab_qr_words[i]) == n && strncmp(text, fab_qr_words[i], n) == 0)
                r |= 1u << i;
        text += n + (text[n] == ';');
    }
    return r;
}

void fab_quality_tally_init(fab_quality_tally_t *t)
{
    memset(t, 0, sizeof(*t));
    t->cpu_lo = t->cpu_hi = NAN;
    t->steal_max = t->runnable_max = t->ctxsw_max = NAN;
}

static double fab_max_known(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : (a > b ? a : b);
}

void fab_quality_tally_add(fab_quality_tally_t *t, const fab_quality_in_t *in, unsigned reasons)
{
    fab_quality_t q = fab_quality_of(reasons);

    t->rows++;
    t->invalid += q == FAB_Q_INVALID;
    t->disturbed += q == FAB_Q_DISTURBED;
    t->noisy += q == FAB_Q_NOISY;
    t->reasons |= reasons;
    if (reasons & FAB_QR_CPU) {
        t->cpu_lo = isnan(t->cpu_lo) || in->cpu_min_pct < t->cpu_lo ? in->cpu_min_pct : t->cpu_lo;
        t->cpu_hi = isnan(t->cpu_hi) || in->cpu_min_pct > t->cpu_hi ? in->cpu_min_pct : t->cpu_hi;
    }
    if (reasons & FAB_QR_STEAL)
        t->steal_max = fab_max_known(t->steal_max, in->steal_pct);
    if (reasons & FAB_QR_RUNNABLE)
        t->runnable_max = fab_max_known(t->runnable_max, in->runnable_per_cpu);
    if (reasons & FAB_QR_CTXSW)
        t->ctxsw_max = fab_max_known(t->ctxsw_max, in->ctxsw_per_s);
}

void fab_quality_tally_text(const fab_quality_tally_t *t, char *buf, size_t len)
{
    size_t at = 0;
    int parts = 0;

    if (len)
        buf[0] = '\0';
    if (!(t->reasons & FAB_QR_DISTURBED)) {
        fab_appendf(buf, len, &at, "quiet");
        if (t->invalid)
            fab_appendf(buf, len, &at, "; %d of %d rows invalid (below the floor)", t->invalid,
                        t->rows);
        return;
    }
    fab_appendf(buf, len, &at, "busy:");
    if ((t->reasons & FAB_QR_CPU) && lround(t->cpu_hi) != lround(t->cpu_lo)) /* a range: 2-20% */
        fab_appendf(buf, len, &at, "%s a rank ran only %.0f-%.0f%% of the time", parts++ ? "," : "",
                    t->cpu_lo, t->cpu_hi);
    else if (t->reasons & FAB_QR_CPU)
        fab_appendf(buf, len, &at, "%s a rank ran only %.0f%% of the time", parts++ ? "," : "",
                    t->cpu_lo);
    if (t->reasons & FAB_QR_RUNNABLE)
        fab_appendf(buf, len, &at, "%s up to %.2g runnable tasks per CPU", parts++ ? "," : "",
                    t->runnable_max);
    if (t->reasons & FAB_QR_STEAL)
        fab_appendf(buf, len, &at, "%s up to %.0f%% stolen by the hypervisor", parts++ ? "," : "",
                    t->steal_max);
    if (t->reasons & FAB_QR_CTXSW)
        fab_appendf(buf, len, &at, "%s up to %.0f preemptions per second of a rank",
                    parts++ ? "," : "", t->ctxsw_max);
    fab_appendf(buf, len, &at, "; %d of %d rows disturbed", t->disturbed, t->rows);
    if (t->invalid)
        fab_appendf(buf, len, &at, ", %d invalid", t->invalid);
}
