/* SPDX-License-Identifier: BSD-3-Clause */
/* How a result column becomes a Prometheus metric, and the text format's spelling
 * (output/promtext.c), for the textfile (output/prom.c). */
#ifndef FAB_OUTPUT_PROMTEXT_H
#define FAB_OUTPUT_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define FAB_PROM "fabricbench_"

/* Column c (output/columns.c) as a metric: its family's name, the label statistic where the
 * family holds several columns ("" otherwise), the scale to the family's base unit and, for
 * a family shared by columns, its HELP (NULL: the column's own). false: not exported (the
 * label bytes, a rate said twice in other units, a name the format does not allow). */
bool fab_prom_column(int c, char *family, size_t flen, char *stat, size_t slen, double *scale,
                     const char **help);
/* "# HELP name help" (\\ and \n escaped) and "# TYPE name gauge". */
void fab_prom_help(FILE *f, const char *name, const char *help);
/* A label value as the text format wants it: \\, \" and \n escaped; a byte that is not UTF-8
 * or a control character as the text \xNN (its backslash escaped). */
void fab_prom_label_value(FILE *f, const char *s);
/* A sample's value: the shortest text that reads back as v; NaN, +Inf, -Inf as the format
 * spells them. */
void fab_prom_value(FILE *f, double v);

#endif
