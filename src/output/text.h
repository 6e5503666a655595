/* SPDX-License-Identifier: BSD-3-Clause */
/* The human output on stdout (output/text.c): '#' header lines, one table per kernel
 * (output/table.h), a closing line. Units are decimal: us = 10^-6 s, MB/s = 10^6 B/s, Gb/s =
 * 10^9 bit/s. */
#ifndef FAB_OUTPUT_TEXT_H
#define FAB_OUTPUT_TEXT_H

#include <stdio.h>

#include "core/launchopts.h"
#include "core/measopts.h"
#include "core/outopts.h"
#include "kernel/fab_kernel.h"
#include "measure/sink.h"
#include "output/table.h"
#include "pairs/matrix.h"

/* The text table on f as a sink: the layout --wide and --columns choose (oopt), the header's
 * measurement and collective lines (mopt), the run's kernels (lopt). */
fab_sink_t fab_out_text_sink(FILE *f, const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                             const fab_outopts_t *oopt);
/* A '#' line: printf's fmt, wrapped at spaces to FAB_TEXT_COLS characters (output/table.h), the
 * continuation lines starting "#   ". A word longer than the line is kept whole. */
void fab_out_text_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A collective's closing line, as nccl-tests' "Avg bus bandwidth": the mean busbw of the n
 * rows printed above (sum their busbw_GBps); nothing when n is 0 (barrier: no busbw). */
void fab_out_text_avg_busbw(FILE *f, double sum, int n);
/* Under a row that names its straggler (straggler_rank, measure/arrival.h): the rank, its host
 * (hosts: per rank of the run), how often and how late it entered its calls. */
void fab_out_text_straggler(FILE *f, const struct fab_row *r, char *const *hosts, int nranks);
/* The notes under a table on its rows' marks: which rows are INVALID (below the floor) and
 * which disturbed (!), and by what; nothing when every row is ok or noisy. */
void fab_out_text_marks(FILE *f, const fab_text_marks_t *m);
/* A pairs kernel's verdict (output/text_verdict.c): the slow pairs, the worst ones, the matrix when
 * it is small, and the suspects. */
void fab_out_text_verdict(FILE *f, const fab_kernel_t *k, const fab_matrix_t *m);

#endif
