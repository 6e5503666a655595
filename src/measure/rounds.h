/* The adaptive measurement of one kernel (measure/rounds.c): its sizes measured in
 * interleaved rounds, one short block per unfinished size and round, each size stopping when
 * its median is precise enough and its blocks agree (measure/adaptive.h), or when its share
 * of the budget is spent. docs/METRICS.md defines what a row then reports. */
#ifndef FAB_MEASURE_ROUNDS_H
#define FAB_MEASURE_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sizes.h"
#include "core/status.h"
#include "measure/measure_int.h"
#include "measure/row.h"

/* The adaptive measurement's defaults (measure/rounds.c, docs/METRICS.md): the budget of a
 * run per row (size of a kernel) and the target precision, % half-width of the median's
 * 95% interval; see docs/PERFORMANCE.md for the measurements behind them. */
#define FAB_BUDGET_PER_ROW 0.025
#define FAB_PRECISION_PCT  1

/* A block's target duration: short, so that rounds are short and every size samples every
 * stretch of time; long enough that a block of a 1 us iteration holds thousands. */
#define FAB_ROUND_BLOCK_S 0.005
/* Untimed warm-up before a size's first block: doubling rounds until they have lasted this
 * long (at least one iteration), the last one giving the first estimate of an iteration. */
#define FAB_ROUND_WARM_S 0.001

typedef struct fab_rounds fab_rounds_t;

/* Rows the adaptive budget covers (every size of every kernel but the pairs kernels, which
 * measure a fixed count per pair) and the run's budget: --budget, else FAB_BUDGET_PER_ROW
 * per row. 0 rows: 0 s. */
double fab_rounds_budget(const fab_opts_t *o, int *rows);
/* Rows of kernel k the budget covers (0 for pairs kernels). */
int fab_rounds_budget_rows(const fab_kernel_t *k, const fab_opts_t *o);
/* How each size's iterations are chosen, in words (the table's header, the file's
 * iteration_policy): adaptive, -i, or --time. Not for pairs kernels. */
void fab_rounds_policy(const fab_opts_t *o, char *buf, size_t len);

/* The run's budget (fab_plan_budget) starts now (every rank, before the first kernel). */
void fab_rounds_budget_begin(const fab_opts_t *o);
/* Kernel k's share of what is left of it, in proportion to its rows; 0 once spent. */
double fab_rounds_budget_take(const fab_opts_t *o, const fab_kernel_t *k);

/* All of the kernel's ranks (collective over m->ctx->comm only where noted). sizes: the
 * kernel's list; the sizes that fit_bytes rounds to the previous one's value are skipped,
 * as the caller skips them. budget_s: the kernel's share of the run's budget, from now. */
fab_status_t fab_rounds_new(fab_rounds_t **out, fab_measure_t *m, const fab_sizes_t *sizes,
                            double budget_s);
/* Measure rounds until size i (an index into sizes) has stopped, then fill its row (rank 0
 * of the kernel; collective). *samples and *n: its samples kept (rank 0). After a stop
 * request, sizes that have blocks still get their rows (target missed); the first without
 * one returns the stop's status. */
fab_status_t fab_rounds_row(fab_rounds_t *r, int i, fab_row_t *row, const double **samples,
                            size_t *n);
/* FAB_ERR_INTERRUPTED (or the stop's status) when the rounds ended on a stop request. */
fab_status_t fab_rounds_status(const fab_rounds_t *r);
void fab_rounds_free(fab_rounds_t *r);

#endif
