/* SPDX-License-Identifier: BSD-3-Clause */
/* A pairs kernel's verdict as '#' lines of the text output (output/text.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/text.h"

#define FAB_VERDICT_MATRIX_MAX 12 /* members up to which the matrix itself is printed */
#define FAB_VERDICT_WORST      5  /* slow pairs listed */

/* A value the verdict judged: the retest's where the pair was measured again alone. */
static double fab_verdict_of(const double *v, const double *re, int at)
{
    return re && isfinite(re[at]) ? re[at] : v ? v[at] : NAN;
}

/* The pair's headline value: bandwidth (MB/s) or one-way latency p50 (us). */
static double fab_verdict_value(const fab_matrix_t *m, int s, int d)
{
    return m->bw ? fab_verdict_of(m->bw, m->re_bw, s * m->n + d)
                 : fab_verdict_of(m->lat_p50, m->re_lat_p50, s * m->n + d);
}

/* Whether the direction s -> d is itself slow (the verdict judges pairs, either direction) */
static int fab_verdict_slow(const fab_matrix_t *m, int s, int d, double med)
{
    unsigned char bits = m->verdict->slow[s * m->n + d];
    double line = fab_verdict_of(m->line_pct, m->re_line_pct, s * m->n + d);

    if (!(bits & ~FAB_SLOW_LOAD) || bits == 0xff)
        return 0;
    if (!m->bw)
        return 1;
    return fab_verdict_value(m, s, d) < m->bw_frac * med ||
           (m->line_MBps > 0 && isfinite(line) && line < 100.0 * FAB_LOCATE_LINE_FRAC);
}

/* The retests: how many, and the pairs slow only under the schedule's load. */
static void fab_verdict_retests(FILE *f, const fab_matrix_t *m)
{
    int shown = 0, n = m->n;

    if (!m->retest || m->retests <= 0)
        return;
    fab_out_text_line(f,
                      "# retest: %d pair%s slow in the %s schedule measured again alone%s; %d "
                      "fine alone (slow only under load: contention or a passing disturbance, "
                      "not a fault)",
                      m->retested, m->retested == 1 ? "" : "s", m->schedule,
                      m->retested < m->retests ? " (interrupted)" : "", m->load_only);
    for (int i = 0; i < n && shown < FAB_VERDICT_WORST; i++)
        for (int j = i + 1; j < n && shown < FAB_VERDICT_WORST; j++) {
            int a = i * n + j;

            if (m->verdict->slow[a] != FAB_SLOW_LOAD)
                continue;
            shown++;
            if (m->bw)
                fab_out_text_line(f,
                                  "# only under load: %s <-> %s %.0f / %.0f MB/s in the "
                                  "schedule, %.0f / %.0f MB/s alone",
                                  m->names[i], m->names[j], m->bw[a], m->bw[j * n + i], m->re_bw[a],
                                  m->re_bw[j * n + i]);
            else
                fab_out_text_line(f,
                                  "# only under load: %s <-> %s %.2f us p50 in the schedule, "
                                  "%.2f us alone",
                                  m->names[i], m->names[j],
                                  fmax(m->lat_p50[a], m->lat_p50[j * n + i]), m->re_lat_p50[a]);
        }
}

/* The matrix itself: "#" and the row's number in 3, then 8 per member (a value in 6, its mark,
 * a space), so FAB_VERDICT_MATRIX_MAX members fit FAB_TEXT_COLS. */
static void fab_verdict_matrix(FILE *f, const fab_matrix_t *m, double med)
{
    fab_out_text_line(f, "# matrix: %s, row i %s column j (members numbered as below; * slow%s)",
                      m->bw ? "MB/s" : "p50 one-way latency, us", m->bw ? "sends to" : "with",
                      m->retested ? "; retested pairs as measured alone" : "");
    for (int i = 0; i < m->n; i++)
        fab_out_text_line(f, "#   %2d = %s", i, m->names[i]);
    fprintf(f, "#%3s", "");
    for (int j = 0; j < m->n; j++)
        fprintf(f, " %6d ", j);
    fputc('\n', f);
    for (int i = 0; i < m->n; i++) {
        fprintf(f, "#%3d", i);
        for (int j = 0; j < m->n; j++) {
            double v = fab_verdict_value(m, i, j);

            if (i == j || !isfinite(v))
                fprintf(f, " %6s ", "-");
            else
                fprintf(f, " %6.*f%c", v < 100 ? 2 : 0, v,
                        fab_verdict_slow(m, i, j, med) ? '*' : ' ');
        }
        fputc('\n', f);
    }
}

/* The slow pairs, worst first (by their share of the median), at most FAB_VERDICT_WORST. */
static void fab_verdict_worst(FILE *f, const fab_matrix_t *m, double med)
{
    int shown = 0, n = m->n;
    char *done = calloc((size_t)n * (size_t)n + 1, 1);

    while (done && shown < FAB_VERDICT_WORST) {
        int bs = -1, bd = -1;
        double bq = 0;

        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                double v = fab_verdict_value(m, s, d), q = m->bw ? med / v : v / med;
                if (s == d || done[s * n + d] || !fab_verdict_slow(m, s, d, med) || !isfinite(q))
                    continue;
                if (!m->bw && d < s)
                    continue; /* latency: one entry per pair */
                if (bs < 0 || q > bq) {
                    bs = s;
                    bd = d;
                    bq = q;
                }
            }
        if (bs < 0)
            break;
        done[bs * n + bd] = 1;
        if (m->bw && isfinite(fab_verdict_of(m->line_pct, m->re_line_pct, bs * n + bd)))
            fab_out_text_line(f,
                              "# slow pair: %s -> %s %.0f MB/s (%.0f%% of the median pair, "
                              "%.0f%% of the line rate)",
                              m->names[bs], m->names[bd], fab_verdict_value(m, bs, bd), 100.0 / bq,
                              fab_verdict_of(m->line_pct, m->re_line_pct, bs * n + bd));
        else if (m->bw)
            fab_out_text_line(f, "# slow pair: %s -> %s %.0f MB/s (%.0f%% of the median pair)",
                              m->names[bs], m->names[bd], fab_verdict_value(m, bs, bd), 100.0 / bq);
        else
            fab_out_text_line(f,
                              "# slow pair: %s <-> %s %.2f us p50, %.2f us p99 (%.2fx the median "
                              "pair)",
                              m->names[bs], m->names[bd], fab_verdict_value(m, bs, bd),
                              fab_verdict_of(m->lat_p99, m->re_lat_p99, bs * n + bd), bq);
        shown++;
    }
    free(done);
}

void fab_out_text_verdict(FILE *f, const fab_kernel_t *k, const fab_matrix_t *m)
{
    const fab_locate_t *v = m->verdict;
    double med = m->bw ? v->bw_median : v->lat_median;

    char expect[48] = "";

    if (isfinite(m->expect_s))
        snprintf(expect, sizeof(expect), ", expected %.3g s", m->expect_s);
    fab_out_text_line(f,
                      "# %s: %d of %d pairs measured in %d of %d rounds in %.3g s%s; median pair "
                      "%.*f %s",
                      k->name, v->npairs, m->n * (m->n - 1) / 2, m->rounds_done, m->rounds,
                      m->seconds, expect, m->bw ? 0 : 2, med, m->bw ? "MB/s" : "us");
    if (m->bw)
        fprintf(f, "# slow: below %.0f%% of the median pair%s\n", 100.0 * m->bw_frac,
                m->line_MBps > 0 ? " or of the line rate" : " (line rate unknown: not judged)");
    else
        fprintf(f, "# slow: above %.3gx the median pair's latency\n", m->lat_factor);
    if (m->n <= FAB_VERDICT_MATRIX_MAX)
        fab_verdict_matrix(f, m, med);
    fab_verdict_worst(f, m, med);
    fab_verdict_retests(f, m);
    if (m->err_port[0]) /* a port failing slowly: errors before the pairs slow down */
        fab_out_text_line(f, "# fabric: error counters grew during the kernel on port %s (%s)",
                          m->err_port, m->signals);
    if (v->nsuspects == 0) {
        fprintf(f, "# verdict: healthy: %d slow pairs, no suspect%s%s\n", v->nslow,
                m->err_port[0] ? "; but errors grew on port " : "", m->err_port);
        return;
    }
    fab_out_text_line(
        f, "# verdict: SUSPECTS: %d slow pairs of %d, explained by %d suspect%s (exit 1)", v->nslow,
        v->npairs, v->nsuspects, v->nsuspects == 1 ? "" : "s");
    for (int i = 0; i < v->nsuspects; i++) {
        char buf[1024];

        fab_suspect_text(&v->suspects[i], m->names, m->gnames, buf, sizeof(buf));
        fab_out_text_line(f, "# suspect %s: %s", fab_suspect_kind_name(v->suspects[i].kind), buf);
    }
}
