/* SPDX-License-Identifier: BSD-3-Clause */
/* The notes under a table (output/text.h): which of its rows are INVALID (below the floor,
 * measure/adaptive.h) and which the machine disturbed, and by what (measure/quality.h); a row's
 * straggler (measure/arrival.h); the collectives' average bus bandwidth. */
#include <math.h>
#include <stdio.h>

#include "core/text.h"
#include "measure/adaptive.h"
#include "measure/quality.h"
#include "measure/row.h"
#include "output/table.h"
#include "output/text.h"

void fab_out_text_marks(FILE *f, const fab_text_marks_t *m)
{
    const fab_quality_tally_t *t = &m->tally;
    char why[320];
    size_t at = 0;

    if (t->invalid > m->nimplausible)
        fab_out_text_line(f,
                          "# INVALID: %s%s (%d of %d rows): below the floor of %d timed "
                          "iterations (adaptive: in %d blocks); not measurements, their numbers "
                          "in ( )",
                          m->invalid, m->ilen >= sizeof(m->invalid) - 1 ? "..." : "",
                          t->invalid - m->nimplausible, t->rows, FAB_FLOOR_SAMPLES,
                          FAB_ADAPT_MIN_BLOCKS);
    if (m->nimplausible)
        fab_out_text_line(f,
                          "# IMPLAUSIBLE (IMPLAUS): %s%s (%d of %d rows): the kernel's check says "
                          "these numbers cannot be true (column implausible; docs/METRICS.md); "
                          "not measurements, their numbers in ( )",
                          m->implausible, m->plen >= sizeof(m->implausible) - 1 ? "..." : "",
                          m->nimplausible, t->rows);
    if (!t->disturbed)
        return;
    why[0] = '\0';
    if ((t->reasons & FAB_QR_CPU) && lround(t->cpu_hi) != lround(t->cpu_lo))
        fab_appendf(why, sizeof(why), &at, ", a rank ran only %.0f-%.0f%% of the time", t->cpu_lo,
                    t->cpu_hi);
    else if (t->reasons & FAB_QR_CPU)
        fab_appendf(why, sizeof(why), &at, ", a rank ran only %.0f%% of the time", t->cpu_lo);
    if (t->reasons & FAB_QR_RUNNABLE)
        fab_appendf(why, sizeof(why), &at, ", up to %.2g runnable tasks per CPU", t->runnable_max);
    if (t->reasons & FAB_QR_STEAL)
        fab_appendf(why, sizeof(why), &at, ", up to %.0f%% of the CPUs stolen", t->steal_max);
    if (t->reasons & FAB_QR_CTXSW)
        fab_appendf(why, sizeof(why), &at, ", a rank preempted up to %.0f times a second",
                    t->ctxsw_max);
    fab_out_text_line(f,
                      "# ! disturbed: %s%s (%d of %d rows): the machine took time from the "
                      "ranks%s; their times include waiting for it",
                      m->disturbed, m->dlen >= sizeof(m->disturbed) - 1 ? "..." : "", t->disturbed,
                      t->rows, why);
}

void fab_out_text_avg_busbw(FILE *f, double sum, int n)
{
    char v[64];

    if (n <= 0)
        return;
    fab_text_number(v, sizeof(v), sum / n, 3);
    fab_out_text_line(f,
                      "# avg busbw: %s GB/s (the mean over the %d size%s above, as nccl-tests' "
                      "Avg bus bandwidth)",
                      v, n, n == 1 ? "" : "s");
}

void fab_out_text_straggler(FILE *f, const fab_row_t *r, char *const *hosts, int nranks)
{
    int k = r->late.straggler;

    if (k < 0)
        return;
    fab_out_text_line(f,
                      "#   ^ straggler: rank %d (%s) entered last in %.0f%% of the calls, %.3g us "
                      "after the second-to-last (p50; p99 %.3g us): waiting for it is %.0f%% of "
                      "the time (late_*, straggler_rank)",
                      k, hosts && k < nranks && hosts[k] ? hosts[k] : "?", 100.0 * r->late.share,
                      r->late.p50 * 1e6, r->late.p99 * 1e6, 100.0 * r->late.explains);
}
