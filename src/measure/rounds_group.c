/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive measurement across kernels (measure/rounds.h): the run's budget, which
 * kernels are measured together, and their rounds. A round of a group is every kernel's
 * part of it in turn (measure/rounds.c: its open sizes, one block each); after each part
 * every rank of the run learns the states of that kernel's sizes, the cost of its next part
 * and any stop request: in one reduction when the kernel runs on every rank, else through
 * the kernel's lead, which hears from every other rank in turn (ranks outside the kernel
 * wait for it sleeping). The budget left is shared between the kernels' parts in proportion to
 * their cost, so every open size of every kernel gets a share in proportion to its block's
 * cost, as fab_adapt_schedule gives it within one kernel: all sizes meet their budget stop in
 * the same round, whichever kernel they belong to. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/signals.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "kernel/traits.h"
#include "measure/adaptive.h"
#include "measure/handoff.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "measure/rounds_int.h"

#define FAB_ROUND_TAG 9003 /* the agreement after a kernel's part, on MPI_COMM_WORLD */
/* The agreement's values, reduced with MPI_MAX (only the kernel's rank 0 sets the cost, the
 * pace and the reserve; the others add 0): stop flag, cost, pace (block_s, + FAB_SYNC_LATE
 * when late, + FAB_SYNC_HARD when the cap is reached too), the floor's reserve, then the
 * sizes' states. */
#define FAB_SYNC_HEAD 4
#define FAB_SYNC_LATE 10.0
#define FAB_SYNC_HARD 20.0

/* ------------------------------------------------------------------ which kernels together */

bool fab_rounds_groupable(const fab_kernel_t *k)
{
    return fab_kranks(k) != FAB_RANKS_NODES && !fab_kmem(k)->own_bytes;
}

int fab_rounds_group(const fab_launchopts_t *lopt, const fab_measopts_t *mopt, int i, int *first)
{
    int a = i, b = i;

    *first = i;
    if (!mopt->adaptive || i < 0 || i >= lopt->nkernels ||
        !fab_rounds_groupable(lopt->kernels[i].k))
        return 1;
    while (a > 0 && fab_rounds_groupable(lopt->kernels[a - 1].k))
        a--;
    while (b + 1 < lopt->nkernels && fab_rounds_groupable(lopt->kernels[b + 1].k))
        b++;
    *first = a;
    return b - a + 1;
}

/* ------------------------------------------------------------------ the run's budget */

int fab_rounds_budget_rows(const fab_kernel_t *k, const fab_measopts_t *mopt)
{
    fab_sizes_t tmp;

    return fab_kranks(k) == FAB_RANKS_NODES ? 0 : fab_kernel_sizes(k, mopt, &tmp)->n;
}

/* Kernel k's weight in the budget: its rows x what each asks for (the automatic budget is
 * the sum of the weights; --budget is split in proportion to them). */
static double fab_rounds_weight(const fab_kernel_t *k, const fab_measopts_t *mopt)
{
    double row_s = fab_kbudget(k)->row_s;

    return fab_rounds_budget_rows(k, mopt) * (row_s > 0 ? row_s : FAB_BUDGET_PER_ROW);
}

double fab_rounds_budget(const fab_launchopts_t *lopt, const fab_measopts_t *mopt, int *rows)
{
    int n = 0;
    double w = 0;

    for (int i = 0; i < lopt->nkernels; i++) {
        n += fab_rounds_budget_rows(lopt->kernels[i].k, mopt);
        w += fab_rounds_weight(lopt->kernels[i].k, mopt);
    }
    *rows = n;
    if (n == 0)
        return 0.0;
    return mopt->budget_s > 0 ? mopt->budget_s : w;
}

bool fab_rounds_budget_auto(const fab_launchopts_t *lopt, const fab_measopts_t *mopt)
{
    for (int i = 0; i < lopt->nkernels; i++)
        if (fab_kbudget(lopt->kernels[i].k)->row_s > 0 &&
            fab_rounds_budget_rows(lopt->kernels[i].k, mopt) > 0)
            return false;
    return true;
}

void fab_rounds_policy(const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                       const fab_kinst_t *ki, char *buf, size_t len)
{
    int rows, first = 0, n = 1, at = 0;
    double budget = fab_rounds_budget(lopt, mopt, &rows);
    char with[256] = "";

    for (int i = 0; i < lopt->nkernels; i++)
        if (&lopt->kernels[i] == ki)
            n = fab_rounds_group(lopt, mopt, i, &first);
    if (n > 1) {
        at = snprintf(with, sizeof(with), " of ");
        for (int i = first; i < first + n && at < (int)sizeof(with); i++)
            at += snprintf(with + at, sizeof(with) - (size_t)at, "%s%s",
                           i == first           ? ""
                           : i + 1 == first + n ? " and "
                                                : ", ",
                           lopt->kernels[i].k->name);
        if (at < (int)sizeof(with))
            snprintf(with + at, sizeof(with) - (size_t)at, " together");
    }
    if (mopt->adaptive)
        snprintf(buf, len,
                 "adaptive: rounds over the sizes%s, one block of about %g ms per size and "
                 "round; a size stops when its median's 95%% interval is within +-%g%% and its "
                 "blocks agree, or when its share of the budget (%.3g s for the run's %d rows) "
                 "is spent",
                 with, FAB_ROUND_BLOCK_S * 1e3, mopt->precision_pct, budget, rows);
    else if (mopt->iters > 0)
        snprintf(buf, len, "fixed: %ld iterations per size, warm-up %llu", mopt->iters,
                 (unsigned long long)fab_plan_warmup(mopt));
    else
        snprintf(buf, len,
                 "time: about %g s per size (%ld to %ld iterations); warm-up includes "
                 "calibration",
                 mopt->time_s, mopt->min_iters, mopt->max_iters);
    if (mopt->sync == FAB_SYNC_BARRIER) {
        size_t at2 = strlen(buf);

        snprintf(buf + at2, len - at2, "; %s", FAB_SYNC_BARRIER_WORDS);
    }
}

static struct {
    uint64_t start_ns, end_ns; /* end: the last round's end so far (0: none yet) */
    double total_s, cap_s;     /* the budget and its overrun cap (fab_quality_cap) */
    double weight_left;        /* of the kernels not measured yet (fab_rounds_weight) */
    bool capped;               /* a group reached its part of the cap */
} fab_budget;

void fab_rounds_budget_begin(const fab_launchopts_t *lopt, const fab_measopts_t *mopt)
{
    int rows;

    fab_budget.total_s = fab_rounds_budget(lopt, mopt, &rows);
    fab_budget.cap_s = fab_quality_cap(fab_budget.total_s);
    fab_budget.capped = false;
    fab_budget.weight_left = 0;
    for (int i = 0; i < lopt->nkernels; i++)
        fab_budget.weight_left += fab_rounds_weight(lopt->kernels[i].k, mopt);
    fab_budget.start_ns = fab_now_ns();
    fab_budget.end_ns = 0;
}

double fab_rounds_measured_s(void)
{
    return fab_budget.end_ns ? (double)(fab_budget.end_ns - fab_budget.start_ns) * 1e-9 : 0.0;
}

double fab_rounds_cap_s(void)
{
    return fab_budget.cap_s;
}

bool fab_rounds_capped(void)
{
    return fab_budget.capped;
}

double fab_rounds_budget_take(const fab_launchopts_t *lopt, const fab_measopts_t *mopt, int first,
                              int n, double *cap_s)
{
    double w = 0, elapsed = (double)(fab_now_ns() - fab_budget.start_ns) * 1e-9;
    double left = fab_budget.total_s - elapsed, cap_left = fab_budget.cap_s - elapsed;
    double share;

    for (int j = first; j < first + n && j < lopt->nkernels; j++)
        w += fab_rounds_weight(lopt->kernels[j].k, mopt);
    share = fab_budget.weight_left > 0 && left > 0 ? left * w / fab_budget.weight_left : 0.0;
    /* the cap left is shared as the budget is: a busy start cannot take all of it */
    *cap_s =
        fab_budget.weight_left > 0 && cap_left > 0 ? cap_left * w / fab_budget.weight_left : 0.0;
    if (*cap_s < share)
        *cap_s = share;
    fab_budget.weight_left -= w;
    return share;
}

/* ------------------------------------------------------------------ the group */

typedef struct fab_rgroup_kernel {
    const fab_kernel_t *k;
    fab_rounds_t *r; /* NULL on ranks outside the kernel */
    int n;
    double *state;  /* FAB_RS_* per size, as every rank knows it */
    double cost;    /* s: the kernel's next part of a round (its rank 0's estimate) */
    double reserve; /* s: what its sizes short of the floor need to reach it */
    int open;       /* sizes not stopped */
    bool world;     /* its ranks are all the run's */
    int lead;       /* the world rank of its rank 0 */
} fab_rgroup_kernel_t;

struct fab_rgroup {
    int nk;
    fab_rgroup_kernel_t *k;
    double *vec, *red; /* a part's reduction: stop flag, cost, states */
    int veclen;
    uint64_t start_ns, deadline_ns, cap_ns, said_ns;
    uint64_t first_ns, end_ns; /* when the first round, and the last, ended (0: not yet) */
    fab_pace_t pace;           /* agreed after the last kernel's part */
    int rounds;
    bool quiet;
    bool capped;       /* the cap was reached */
    bool extended;     /* sizes short of the floor went on after the budget was spent */
    fab_status_t stop; /* a stop request ended the rounds (every rank alike) */
};

fab_status_t fab_rgroup_new(fab_rgroup_t **out, int nk, double budget_s, double cap_s, bool quiet)
{
    fab_rgroup_t *g = calloc(1, sizeof(*g));

    *out = g;
    if (!g || !(g->k = calloc((size_t)nk, sizeof(*g->k))))
        return FAB_ERR_NOMEM;
    g->nk = nk;
    g->quiet = quiet;
    g->stop = FAB_OK;
    g->start_ns = g->said_ns = fab_now_ns();
    g->pace.block_s = FAB_ROUND_BLOCK_S;
    g->deadline_ns = g->start_ns + (uint64_t)(budget_s > 0 ? budget_s * 1e9 : 0);
    g->cap_ns = g->start_ns + (uint64_t)(cap_s > budget_s ? cap_s * 1e9 : budget_s * 1e9);
    return FAB_OK;
}

fab_status_t fab_rgroup_add(fab_rgroup_t *g, int j, const fab_kernel_t *k, int n, fab_rounds_t *r,
                            bool world, int lead)
{
    fab_rgroup_kernel_t *gk = &g->k[j];
    double *grown;

    gk->k = k;
    gk->r = r;
    gk->n = n;
    gk->world = world;
    gk->lead = lead;
    if (!(gk->state = calloc((size_t)(n > 0 ? n : 1), sizeof(double))))
        return FAB_ERR_NOMEM;
    if (n + FAB_SYNC_HEAD > g->veclen) {
        if (!(grown = realloc(g->vec, sizeof(double) * (size_t)(n + FAB_SYNC_HEAD))))
            return FAB_ERR_NOMEM;
        g->vec = grown;
        if (!(grown = realloc(g->red, sizeof(double) * (size_t)(n + FAB_SYNC_HEAD))))
            return FAB_ERR_NOMEM;
        g->red = grown;
        g->veclen = n + FAB_SYNC_HEAD;
    }
    /* Before the first round: what every rank can know alike. Sizes a collective skips are
     * known to all of its ranks, which are all the run's. */
    if (r)
        fab_rounds_states(r, gk->state);
    gk->open = 0;
    for (int i = 0; i < n; i++)
        gk->open += gk->state[i] < FAB_RS_PRECISE;
    gk->cost = gk->open * FAB_ROUND_BLOCK_S;
    gk->reserve = gk->open * FAB_ADAPT_MIN_BLOCKS * FAB_ROUND_BLOCK_S;
    return FAB_OK;
}

void fab_rgroup_free(fab_rgroup_t *g)
{
    if (!g)
        return;
    for (int j = 0; g->k && j < g->nk; j++)
        free(g->k[j].state);
    free(g->k);
    free(g->vec);
    free(g->red);
    free(g);
}

bool fab_rgroup_measured(const fab_rgroup_t *g, int j)
{
    for (int i = 0; i < g->k[j].n; i++)
        if (g->k[j].state[i] >= FAB_RS_OPEN && g->k[j].state[i] != FAB_RS_SKIP)
            return true;
    return false;
}

fab_status_t fab_rgroup_status(const fab_rgroup_t *g)
{
    return g ? g->stop : FAB_OK;
}

void fab_rgroup_report(const fab_rgroup_t *g)
{
    /* Against the run's budget, from its start: the set-up and earlier kernels count too. */
    double budget = fab_budget.total_s;
    double took = g->end_ns ? (double)(g->end_ns - fab_budget.start_ns) * 1e-9 : 0.0;
    double first = g->first_ns ? (double)(g->first_ns - fab_budget.start_ns) * 1e-9 : 0.0;
    char why[256];
    bool whole = true; /* every kernel's rows are one block: more blocks are no remedy */

    if (g->stop != FAB_OK || took <= FAB_BUDGET_SLACK * budget)
        return;
    for (int j = 0; j < g->nk; j++)
        whole = whole && fab_kbudget(g->k[j].k)->whole_block;
    if (first >= budget && whole)
        snprintf(why, sizeof(why), "its rows' blocks took longer than their share");
    else if (first >= budget)
        snprintf(why, sizeof(why),
                 "the first round alone, one block of every size, ended %.2f s into it; --budget "
                 "%.0f would give each size %d blocks",
                 first, ceil(FAB_ADAPT_MIN_BLOCKS * first), FAB_ADAPT_MIN_BLOCKS);
    else
        snprintf(why, sizeof(why), "its first round ended %.2f s into it", first);
    if (g->extended)
        FAB_WARN("the measurement took %.2f s, over its budget of %.3g s (%s): sizes short of "
                 "the floor (%d timed iterations in %d blocks) went on past their share%s; a "
                 "busy or slow machine, or long iterations (see the quality column and the last "
                 "lines)",
                 took, budget, why, FAB_FLOOR_SAMPLES, FAB_ADAPT_MIN_BLOCKS,
                 g->capped ? ", until the run's cap: those still short are marked invalid" : "");
    else
        FAB_WARN("the measurement took %.2f s, over its budget of %.3g s (%s): blocks took longer "
                 "than their pace asked; a busy or slow machine (see the quality column and the "
                 "last lines)",
                 took, budget, why);
}

/* A kernel on some of the run's ranks: its lead gathers every other rank's stop flag, one
 * rank at a time (so that a rank that stopped answering is the one the watchdog names), and
 * sends each the agreement. On the lead g->vec holds its own figures; the result is in
 * g->red on every rank. */
static fab_status_t fab_rgroup_gather(fab_rgroup_t *g, fab_rgroup_kernel_t *gk, int len)
{
    int me = 0, size = 0;
    double flag;
    MPI_Request req;
    fab_status_t st = FAB_OK;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (me == gk->lead) {
        for (int p = 0; p < size && st == FAB_OK; p++) {
            if (p == me)
                continue;
            fab_watch_phase("agreeing with every rank after the kernel's part of a round",
                            gk->k->name, 0, p, 0);
            st = FAB_MPI(MPI_Recv(&flag, 1, MPI_DOUBLE, p, FAB_ROUND_TAG, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
            if (flag > g->vec[0])
                g->vec[0] = flag;
        }
        memcpy(g->red, g->vec, sizeof(double) * (size_t)len);
        for (int p = 0; p < size && st == FAB_OK; p++)
            if (p != me)
                st = FAB_MPI(MPI_Send(g->red, len, MPI_DOUBLE, p, FAB_ROUND_TAG, MPI_COMM_WORLD));
        return st;
    }
    flag = g->vec[0];
    st = FAB_MPI(MPI_Send(&flag, 1, MPI_DOUBLE, gk->lead, FAB_ROUND_TAG, MPI_COMM_WORLD));
    if (st == FAB_OK)
        st = FAB_MPI(
            MPI_Irecv(g->red, len, MPI_DOUBLE, gk->lead, FAB_ROUND_TAG, MPI_COMM_WORLD, &req));
    if (st != FAB_OK)
        return st;
    if (!gk->r) {
        fab_watch_idle("waiting while another kernel measures its part of a round (this rank "
                       "is not one of its ranks)");
        return fab_idle_wait(&req);
    }
    fab_watch_phase("agreeing with every rank after the kernel's part of a round", gk->k->name, 0,
                    gk->lead, 0);
    return FAB_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

/* After kernel j's part: every rank of the run learns its states, its cost, the pace and
 * any stop. pace: rank 0 of the kernel's. */
static fab_status_t fab_rgroup_sync(fab_rgroup_t *g, int j, const fab_pace_t *pace)
{
    fab_rgroup_kernel_t *gk = &g->k[j];
    int len = gk->n + FAB_SYNC_HEAD, rank = -1;
    fab_status_t st;

    memset(g->vec, 0, sizeof(double) * (size_t)len);
    g->vec[0] = (double)fab_stop_flag;
    if (gk->r) {
        g->vec[1] = fab_rounds_cost(gk->r);
        g->vec[3] = fab_rounds_reserve(gk->r);
        fab_rounds_states(gk->r, g->vec + FAB_SYNC_HEAD);
        rank = fab_rounds_rank(gk->r);
    }
    if (rank == 0)
        g->vec[2] = pace->block_s + (pace->hard ? FAB_SYNC_HARD : pace->late ? FAB_SYNC_LATE : 0.0);
    if (gk->world) {
        fab_watch_phase("agreeing with every rank after the kernel's part of a round", gk->k->name,
                        0, -1, 0);
        st = FAB_MPI(MPI_Allreduce(g->vec, g->red, len, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    } else
        st = fab_rgroup_gather(g, gk, len);
    if (st != FAB_OK)
        return st;
    gk->cost = g->red[1];
    gk->reserve = g->red[3];
    g->pace.hard = g->red[2] >= FAB_SYNC_HARD;
    g->pace.late = g->red[2] >= FAB_SYNC_LATE;
    g->pace.block_s = g->red[2] - (g->pace.hard   ? FAB_SYNC_HARD
                                   : g->pace.late ? FAB_SYNC_LATE
                                                  : 0.0);
    gk->open = 0;
    for (int i = 0; i < gk->n; i++) {
        gk->state[i] = g->red[i + FAB_SYNC_HEAD];
        gk->open += gk->state[i] < FAB_RS_PRECISE;
    }
    fab_watch_take_stall(); /* waiting here is none of the next part's sizes' */
    if (g->red[0] > 0) {
        fab_stop_request((int)g->red[0]);
        g->stop = fab_stop_status((int)g->red[0]);
    }
    return FAB_OK;
}

/* Rank 0 of the run, after a round of a long measurement (from 3 s on, every 2 s at most,
 * not with -q): how far the rounds are. */
static void fab_rgroup_progress(fab_rgroup_t *g)
{
    uint64_t now = fab_now_ns();
    double elapsed = (double)(now - g->start_ns) * 1e-9;
    double budget = (double)(g->deadline_ns - g->start_ns) * 1e-9;
    int open = 0, met = 0, live = 0;
    char per[256] = "";
    size_t at = 0;

    if (g->quiet || elapsed < 3.0 || (double)(now - g->said_ns) * 1e-9 < 2.0)
        return;
    g->said_ns = now;
    for (int j = 0; j < g->nk; j++) {
        for (int i = 0; i < g->k[j].n; i++) {
            double s = g->k[j].state[i];

            live += s != FAB_RS_SKIP;
            met += s == FAB_RS_PRECISE;
        }
        open += g->k[j].open;
        if (g->k[j].open && at < sizeof(per))
            at += (size_t)snprintf(per + at, sizeof(per) - at, "%s%s %d", at ? ", " : " (",
                                   g->k[j].k->name, g->k[j].open);
    }
    if (at && at < sizeof(per) && g->nk > 1)
        snprintf(per + at, sizeof(per) - at, ")");
    else
        per[0] = '\0';
    fab_log_progress("round %d: %d of %d sizes still measuring%s, %d met --precision; %.1f s "
                     "of the %.3g s budget spent",
                     g->rounds, open, live, per, met, elapsed, budget);
}

/* Kernel gk's part of the budget left: its floor's reserve (all of them when they fit, else in
 * proportion), then the rest in proportion to its round's cost, as fab_adapt_schedule shares
 * within a kernel. */
static double fab_rgroup_part(double left, const fab_rgroup_kernel_t *gk, double total,
                              double reserve)
{
    double rest = reserve < left ? left - reserve : 0.0;
    double part = reserve <= left ? gk->reserve : (reserve > 0 ? left * gk->reserve / reserve : 0);

    return part + (total > 0 ? rest * gk->cost / total : 0.0);
}

/* One round: every kernel with open sizes, its part, then the agreement on it. */
static fab_status_t fab_rgroup_round(fab_rgroup_t *g)
{
    uint64_t now = fab_now_ns();
    double left = now < g->deadline_ns ? (double)(g->deadline_ns - now) * 1e-9 : 0.0;
    double total = 0.0, reserve = 0.0;
    int rank = 0;

    for (int j = 0; j < g->nk; j++)
        if (g->k[j].open) {
            total += g->k[j].cost;
            reserve += g->k[j].reserve;
        }
    for (int j = 0; j < g->nk && g->stop == FAB_OK; j++) {
        fab_rgroup_kernel_t *gk = &g->k[j];
        fab_status_t st = FAB_OK;

        fab_pace_t pace = g->pace;
        int later = 0;

        if (!gk->open)
            continue;
        for (int l = j + 1; l < g->nk; l++)
            for (int i = 0; i < g->k[l].n; i++)
                later += g->k[l].state[i] == FAB_RS_NONE;
        if (gk->r)
            st = fab_rounds_one(gk->r, fab_rgroup_part(left, gk, total, reserve), g->deadline_ns,
                                g->cap_ns, later, &pace);
        /* A stop agreed among the kernel's ranks reaches the others in the agreement. */
        if (st != FAB_OK && st != FAB_ERR_INTERRUPTED && st != FAB_ERR_IO)
            return st;
        st = fab_rgroup_sync(g, j, &pace);
        if (st != FAB_OK)
            return st;
        FAB_DEBUG("round %d, %s's part: ended %.3f s into the budget of %.3f s; pace %.3g ms%s",
                  g->rounds + 1, gk->k->name, (double)(fab_now_ns() - g->start_ns) * 1e-9,
                  (double)(g->deadline_ns - g->start_ns) * 1e-9, g->pace.block_s * 1e3,
                  g->pace.late ? ", late" : "");
    }
    /* The budget ran out in this round: what has met the floor is done (past the cap: what
     * has a block), here and now, and not after the rows of the kernels already done are
     * written (a round would then start only to stop them, its time counted against the
     * budget: 0.3 s beside a busy core). Sizes below the floor go on. */
    if (g->pace.hard)
        fab_budget.capped = g->capped = true;
    for (int j = 0; j < g->nk && g->pace.late && g->stop == FAB_OK; j++) {
        fab_rgroup_kernel_t *gk = &g->k[j];

        if (gk->r)
            fab_rounds_close(gk->r, g->pace.hard);
        gk->open = 0;
        for (int i = 0; i < gk->n; i++) {
            if (gk->state[i] == FAB_RS_FLOOR || (g->pace.hard && gk->state[i] == FAB_RS_OPEN))
                gk->state[i] = FAB_RS_BUDGET;
            g->extended = g->extended || gk->state[i] == FAB_RS_OPEN;
            gk->open += gk->state[i] < FAB_RS_PRECISE;
        }
    }
    g->rounds++;
    if (g->rounds == 1)
        g->first_ns = fab_now_ns();
    g->end_ns = fab_budget.end_ns = fab_now_ns();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fab_rgroup_progress(g);
    return FAB_OK;
}

fab_status_t fab_rgroup_row(fab_rgroup_t *g, int j, int i, fab_row_t *row, const double **samples,
                            size_t *n)
{
    fab_rgroup_kernel_t *gk = &g->k[j];

    *samples = NULL;
    *n = 0;
    while (gk->state[i] < FAB_RS_PRECISE && g->stop == FAB_OK) {
        fab_status_t st = fab_rgroup_round(g);

        if (st != FAB_OK)
            return st;
    }
    if (!gk->r || !row)
        return gk->state[i] == FAB_RS_NONE ? (g->stop != FAB_OK ? g->stop : FAB_ERR_INTERNAL)
                                           : FAB_OK;
    return fab_rounds_fill_row(gk->r, i, g->stop, row, samples, n);
}
