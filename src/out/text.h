/* The human output on stdout (out/text.c): '#' header lines, one table per kernel, a closing
 * line. Units are decimal: us = 10^-6 s, MB/s = 10^6 B/s, Gb/s = 10^9 bit/s. */
#ifndef FAB_OUT_TEXT_H
#define FAB_OUT_TEXT_H

#include <stdio.h>

#include "kernel/fab_kernel.h"
#include "out/sink.h"

/* The text table on f as a sink. */
fab_sink_t fab_out_text_sink(FILE *f);
/* Pieces of it, for `fabricbench show`: the column-name line, and one row from the values of
 * its columns (v[FAB_COL_*], as stored in the files). */
void fab_out_text_columns(FILE *f, fab_kind_t kind);
void fab_out_text_values(FILE *f, fab_kind_t kind, const double *v);
/* A pairs kernel's verdict (out/verdict.c): the slow pairs, the worst ones, the matrix when
 * it is small, and the suspects. */
void fab_out_text_verdict(FILE *f, const fab_kernel_t *k, const fab_matrix_t *m);

#endif
