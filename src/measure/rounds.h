/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive measurement (measure/rounds.c, measure/rounds_group.c): the sizes of the kernels
 * measured together go in interleaved rounds, one short block per unfinished size and round,
 * each size stopping when its median is precise enough and its blocks agree
 * (measure/adaptive.h), or when its share of the budget is spent. docs/METRICS.md defines
 * what a row then reports. */
#ifndef FAB_MEASURE_ROUNDS_H
#define FAB_MEASURE_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sizes.h"
#include "core/status.h"
#include "measure/measurement.h"
#include "measure/row.h"

/* The adaptive measurement's defaults (measure/rounds.c, docs/METRICS.md): the budget of a
 * run per row (size of a kernel) and the target precision, % half-width of the median's
 * 95% interval; see docs/PERFORMANCE.md for the measurements behind them. */
#define FAB_BUDGET_PER_ROW 0.025
#define FAB_PRECISION_PCT  1

/* A block's target duration: short, so that rounds are short and every size samples every
 * stretch of time; long enough that a block of a 1 us iteration holds thousands. */
#define FAB_ROUND_BLOCK_S 0.005
/* Untimed warm-up before a size's first block (without -x): rounds of 1, 2, 4, ... iterations
 * until they have lasted FAB_ROUND_WARM_S, at least two rounds ran (never a single call: the
 * first call of a collective can take 10x a warm one, and so can the second) and the last
 * round's time per iteration is within FAB_WARM_SETTLE of the round before (it stopped getting
 * faster); or, unsettled, once they have lasted FAB_WARM_MAX_S (two blocks; at a short pace 10)
 * after at least two calls. The last round gives the first estimate of an iteration. */
#define FAB_ROUND_WARM_S 0.001
#define FAB_WARM_SETTLE  0.10
#define FAB_WARM_MAX_S   0.01

typedef struct fab_rounds fab_rounds_t;
typedef struct fab_rgroup fab_rgroup_t;

/* Kernels measured together: under the adaptive policy, consecutive kernels of the run that
 * are neither pairs kernels nor allocate buffers of their own (fab_kmem_t, which would all
 * be held at once) share their rounds: a round is every open size of every such kernel, one
 * block each, kernel after kernel, so that every kernel samples the whole run's stretch of
 * time, not only its own part of it. The group of kernel index i: its first index (*first)
 * and length; 1 for a kernel measured alone (always, without the adaptive policy). */
bool fab_rounds_groupable(const fab_kernel_t *k);
int fab_rounds_group(const fab_launchopts_t *lopt, const fab_measopts_t *mopt, int i, int *first);

/* Rows the adaptive budget covers (every size of every kernel but the pairs kernels, which
 * measure a fixed count per pair) and the run's budget: --budget, else FAB_BUDGET_PER_ROW
 * per row (a kernel's fab_kbudget_t.row_s for its rows). 0 rows: 0 s. Kernels share it in
 * proportion to those per-row seconds. */
double fab_rounds_budget(const fab_launchopts_t *lopt, const fab_measopts_t *mopt, int *rows);
/* Rows of kernel k the budget covers (0 for pairs kernels). */
int fab_rounds_budget_rows(const fab_kernel_t *k, const fab_measopts_t *mopt);
/* Whether the automatic budget is FAB_BUDGET_PER_ROW for every row (no kernel of the run asks
 * for more per row: fab_kbudget_t.row_s). */
bool fab_rounds_budget_auto(const fab_launchopts_t *lopt, const fab_measopts_t *mopt);
/* How instance ki's sizes' iterations are chosen, in words (the table's header, the file's
 * iteration_policy): adaptive (naming the kernels measured with it, when ki is one of
 * lopt->kernels), -i, or --time. Not for pairs kernels. */
void fab_rounds_policy(const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                       const fab_kinst_t *ki, char *buf, size_t len);

/* The run's budget (fab_plan_budget) starts now (every rank, before the first kernel). */
void fab_rounds_budget_begin(const fab_launchopts_t *lopt, const fab_measopts_t *mopt);
/* Seconds from the budget's start to the end of the last round measured (0: none). */
double fab_rounds_measured_s(void);
/* The run's overrun cap (fab_quality_cap of its budget), and whether a group reached its part
 * of it (rows below the floor were then stopped as they were). */
double fab_rounds_cap_s(void);
bool fab_rounds_capped(void);
/* The share of what is left of it for kernels first .. first+n-1 (indices in lopt->kernels),
 * in proportion to their rows; 0 once spent. *cap_s: their share of what is left of the cap,
 * in the same proportion (at least the budget's share). */
double fab_rounds_budget_take(const fab_launchopts_t *lopt, const fab_measopts_t *mopt, int first,
                              int n, double *cap_s);

/* One kernel's part, on the kernel's ranks: its sizes (the kernel's list; the sizes that
 * fit_bytes rounds to the previous one's value are skipped, as the caller skips them). */
fab_status_t fab_rounds_new(fab_rounds_t **out, fab_measure_t *m, const fab_sizes_t *sizes);
void fab_rounds_free(fab_rounds_t *r);

/* A group of nk kernels (every rank of the run, alike), with budget_s from now and its cap
 * cap_s (sizes below the floor go on past the budget until then); then each
 * kernel j added in order: k, its size count n, r (NULL on ranks outside it), whether its
 * ranks are all the run's and the world rank of its rank 0 (lead). The parts stay the caller's
 * (freed after the group). */
fab_status_t fab_rgroup_new(fab_rgroup_t **out, int nk, double budget_s, double cap_s, bool quiet);
fab_status_t fab_rgroup_add(fab_rgroup_t *g, int j, const fab_kernel_t *k, int n, fab_rounds_t *r,
                            bool world, int lead);
void fab_rgroup_free(fab_rgroup_t *g);
/* Every rank of the run: measure rounds until size i of kernel j has stopped, then, on the
 * kernel's ranks, fill its row (rank 0 of the kernel; collective over the kernel's ranks).
 * row NULL on ranks outside the kernel. *samples and *n: its samples kept (rank 0 of the
 * kernel). After a stop request, sizes that have blocks still get their rows (target missed);
 * the first without one returns the stop's status. */
fab_status_t fab_rgroup_row(fab_rgroup_t *g, int j, int i, fab_row_t *row, const double **samples,
                            size_t *n);
/* Whether kernel j has a measured size (a block) yet: every rank alike. */
bool fab_rgroup_measured(const fab_rgroup_t *g, int j);
/* FAB_ERR_INTERRUPTED (or the stop's status) when the rounds ended on a stop request. */
fab_status_t fab_rgroup_status(const fab_rgroup_t *g);
/* Rank 0 of the run, after the group's rows: a warning when the rounds ended later than
 * FAB_BUDGET_SLACK x the budget (sizes short of the floor went on; the first round, one
 * block of every size, may not have fitted), naming the first round's time, a budget that
 * would fit it, and whether the cap was reached. */
#define FAB_BUDGET_SLACK 1.10
void fab_rgroup_report(const fab_rgroup_t *g);

#endif
