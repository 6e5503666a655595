/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels (pairs/pairs.h): every pair of members (one rank per node, or every
 * rank) measured round by round as the schedule says. rounds and serial: in each round every
 * pair gets a 2-rank communicator and runs the kernel's iterate there (rank 0 of it the sender
 * and timer), one direction after the other for bandwidth kernels. shift: every member sends
 * to the one r+1 places on and receives from the one r+1 places back, all at once (the
 * kernel's shift). Rank 0 of the world gathers each round's results, so only it holds the
 * n x n matrix, and hands the matrix to the outputs after the rounds (a killed run keeps the
 * finished rounds). With --retest on, the pairs a parallel schedule found slow are measured
 * again alone; the verdict (pairs/locate.c) judges those values and names the suspects.
 * One table row summarises the distribution over the schedule's pairs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/file.h"
#include "core/log.h"
#include "core/mpi_call.h"
#include "core/opt.h"
#include "core/signals.h"
#include "core/text.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "kernel/traits.h"
#include "measure/plan.h"
#include "measure/quality.h"
#include "measure/row.h"
#include "measure/stats.h"
#include "pairs/pairs.h"
#include "pairs/pairs_int.h"
#include "pairs/schedule.h"

#define FAB_PAIRS_WAIT 4.0 /* see fab_pairs_wait_step */
/* The matrix is handed to the outputs after a round when at least FAB_COMMIT_GAP times its
 * last hand-over's duration has passed since (and after the last round): commits cost at most
 * about a tenth of the run, also at a thousand members, whose matrix is tens of MB. */
/* Retests: at most this many unordered pairs per member (the slowest first). */
#define FAB_PAIRS_RETEST_PER_MEMBER 4

/* The watchdog's step while a rank waits for the round's other pairs (in the split and the
 * gather): FAB_PAIRS_WAIT x the longest pair it knows of (the last round's, its own in this
 * one), so a pair up to 10 x FAB_PAIRS_WAIT times slower is a finding, not a stall. A rank
 * with no pair before any pair was measured knows nothing: it waits 10 x --stall-timeout,
 * while the ranks measuring watch each other. */
static double fab_pairs_wait_step(const fab_pairs_t *P, bool paired)
{
    double known = paired && P->step_s > P->round_s ? P->step_s : P->round_s;

    return known > 0 ? FAB_PAIRS_WAIT * known : (double)P->lopt->stall_timeout;
}

/* A round on every rank: the pairs partner[] names measured (each on its own 2-rank comm),
 * or with shift every member sending to partner[member] at once; the results gathered on
 * rank 0. */
static fab_status_t fab_pairs_round(fab_pairs_t *P, bool shift)
{
    fab_pair_rec_t rec[2] = {{.src = -1, .dst = -1}, {.src = -1, .dst = -1}};
    int p = P->me >= 0 ? P->partner[P->me] : -1, dirs = P->k->kind == FAB_KIND_LATENCY ? 1 : 2;
    fab_status_t st = FAB_OK;

    if (shift && P->me >= 0) {
        int from = 0;

        while (P->partner[from] != P->me)
            from++;
        fab_watch_phase("a shift round", P->k->name, P->sizes.v[0], P->member[p],
                        fab_pairs_wait_step(P, false));
        st = fab_pairs_measure(P, P->members, P->member[p], &rec[0], P->me, p, p, from);
    }
    for (int d = 0; d < dirs && st == FAB_OK && !shift; d++) {
        MPI_Comm pc = MPI_COMM_NULL;
        int color = p < 0 ? MPI_UNDEFINED : (P->me < p ? P->me : p);
        int key = (P->me < p) == (d == 0) ? 0 : 1; /* rank 0 of the pair sends and times */

        fab_watch_phase("the pairs of a round", P->k->name, P->sizes.v[0], -1,
                        fab_pairs_wait_step(P, false));
        st = fab_comm_split(MPI_COMM_WORLD, color, key, &pc);
        if (st == FAB_OK && pc != MPI_COMM_NULL) {
            st = fab_pairs_measure(P, pc, P->member[p], &rec[d], key == 0 ? P->me : p,
                                   key == 0 ? p : P->me, -1, -1);
            MPI_Comm_free(&pc);
        }
    }
    /* A rank whose pair failed still joins the gather (its record says nothing), so that no
     * rank waits for it; the failure is agreed on after. */
    fab_watch_phase("gathering the round's results", P->k->name, P->sizes.v[0], -1,
                    fab_pairs_wait_step(P, p >= 0));
    if (FAB_MPI(MPI_Gather(rec, (int)sizeof(rec), MPI_BYTE, P->all, (int)sizeof(rec), MPI_BYTE, 0,
                           MPI_COMM_WORLD)) != FAB_OK)
        return FAB_ERR_MPI;
    return fab_agree(st, MPI_COMM_WORLD);
}

/* Rank 0: a measurement's iterations into the matrix's fewest and most. */
static void fab_pairs_count(fab_matrix_t *m, const fab_pair_rec_t *c)
{
    bool first = m->iterations_max == 0;

    if (first || c->iters < m->iterations)
        m->iterations = (int)c->iters;
    if (c->iters > m->iterations_max)
        m->iterations_max = (int)c->iters;
    if (first || c->blocks < m->blocks_min)
        m->blocks_min = c->blocks;
    if (c->warm > m->warmup)
        m->warmup = (int)c->warm;
    m->imprecise += c->met == 0;
}

/* Rank 0: the round's records into the matrix (retest: into its retest values). */
static void fab_pairs_fill(fab_pairs_t *P, int r, bool retest)
{
    fab_matrix_t *m = &P->m;
    double div = fab_ktime_divisor(P->k);
    double line = P->nopt->line_rate_gbps * 1e3 / 8.0; /* MB/s */
    double *p50 = retest ? m->re_lat_p50 : m->lat_p50, *p99 = retest ? m->re_lat_p99 : m->lat_p99;
    double *bw = retest ? m->re_bw : m->bw, *lpct = retest ? m->re_line_pct : m->line_pct;
    int *iters = retest ? m->re_iters : m->iters;
    /* shift measures each ordered pair on its own; the others a pair's ping-pong both ways */
    bool directed = !retest && P->popt->schedule == FAB_SCHED_SHIFT;

    for (int i = 0; i < 2 * P->w->size; i++) {
        const fab_pair_rec_t *c = &P->all[i];
        int s = c->src, d = c->dst, at = s * m->n + d, ta = d * m->n + s;
        bool across;

        if (s < 0 || d < 0 || s >= m->n || d >= m->n)
            continue;
        P->msgs_per_iter = c->msgs_per_iter;
        if (!retest)
            m->round[at] = m->round[directed ? at : ta] = r;
        iters[at] = iters[directed || !p50 ? at : ta] = (int)c->iters;
        fab_pairs_count(m, c);
        if (p50) {
            p50[at] = p50[directed ? at : ta] = c->p50_s / div * 1e6;
            p99[at] = p99[directed ? at : ta] = c->p99_s / div * 1e6;
            continue;
        }
        bw[at] = (double)m->bytes * c->msgs_per_iter / c->mean_s / 1e6;
        across = strcmp(P->w->hosts[m->world_rank[s]], P->w->hosts[m->world_rank[d]]) != 0;
        if (line > 0 && (across || P->nopt->line_rate_given))
            lpct[at] = 100.0 * bw[at] / line;
    }
    if (!retest)
        m->rounds_done = r + 1;
}

/* Rank 0: the matrix to the outputs when FAB_COMMIT_GAP says so, or always (force).
 * Real time (as the progress lines): a simulated run's clock would make commits free. */
static void fab_pairs_commit(fab_pairs_t *P, fab_sinks_t *sinks, bool force)
{
    uint64_t t0 = fab_real_ns();

    if (!force && (double)(t0 - P->commit_at) * 1e-9 < FAB_COMMIT_GAP * P->commit_s)
        return;
    if (fab_sinks_matrix(sinks, P->ki, &P->m) != FAB_OK)
        fab_stop_request(FAB_STOP_OUTPUT);
    P->commit_at = fab_real_ns();
    P->commit_s = (double)(P->commit_at - t0) * 1e-9;
}

/* What the verdict judges: the schedule's values and the thresholds in effect. */
static fab_locate_in_t fab_pairs_locate_in(const fab_matrix_t *m)
{
    fab_locate_in_t in;

    memset(&in, 0, sizeof(in));
    in.n = m->n;
    in.bw = m->bw;
    in.lat = m->lat_p50;
    in.group = m->group;
    in.bw_frac = m->bw_frac;
    in.lat_factor = m->lat_factor;
    in.line_MBps = m->line_MBps;
    return in;
}

/* Rank 0: the verdict. With retests, on the retest's values where a pair was measured again
 * alone and the schedule's elsewhere, against the schedule's median pair; a retested pair slow
 * in the schedule and ok alone gets FAB_SLOW_LOAD. 0, or -1 when out of memory. */
static int fab_pairs_judge(fab_pairs_t *P, fab_locate_t *verdict)
{
    fab_matrix_t *m = &P->m;
    size_t nn = (size_t)m->n * (size_t)m->n;
    fab_locate_in_t in = fab_pairs_locate_in(m);
    fab_locate_t first;
    double *v = NULL, *re = m->bw ? m->re_bw : m->re_lat_p50;
    int rc;

    if (!m->retest || m->retested == 0)
        return fab_locate(&in, verdict);
    v = malloc(sizeof(double) * nn);
    if (!v || fab_locate(&in, &first) != 0) {
        free(v);
        return -1;
    }
    /* Judged against the schedule's typical pair: pairs measured alone would otherwise move
     * the median and make the schedule's own pairs look slow (or fine). */
    for (size_t i = 0; i < nn; i++)
        v[i] = isfinite(re[i]) ? re[i] : m->bw ? m->bw[i] : m->lat_p50[i];
    in.bw_ref = first.bw_median;
    in.lat_ref = first.lat_median;
    if (m->bw)
        in.bw = v;
    else
        in.lat = v;
    rc = fab_locate(&in, verdict);
    for (int i = 0; rc == 0 && i < m->n; i++)
        for (int j = i + 1; j < m->n; j++) {
            size_t a = (size_t)i * m->n + j, b = (size_t)j * m->n + i;

            if ((isfinite(re[a]) || isfinite(re[b])) && first.slow[a] != 0 &&
                first.slow[a] != 0xff && verdict->slow[a] == 0) {
                verdict->slow[a] = verdict->slow[b] = FAB_SLOW_LOAD;
                m->load_only++;
            }
        }
    fab_locate_free(&first);
    free(v);
    return rc;
}

/* Rank 0: the row that summarises the schedule's pairs (each pair and direction one sample:
 * its median iteration time for latency, its mean for bandwidth) and the verdict. */
static fab_status_t fab_pairs_finish(fab_pairs_t *P, fab_sinks_t *sinks, fab_locate_t *verdict)
{
    fab_matrix_t *m = &P->m;
    fab_acc_t acc;
    fab_row_t row;
    fab_kctx_t ctx;
    double div = fab_ktime_divisor(P->k);
    bool directed = P->popt->schedule == FAB_SCHED_SHIFT;
    fab_status_t st;

    fab_row_clear(&row);
    memset(&ctx, 0, sizeof(ctx));
    m->seconds = (double)(fab_now_ns() - P->start) * 1e-9;
    if (fab_pairs_judge(P, verdict) != 0 ||
        fab_acc_init(&acc, (size_t)m->n * (size_t)m->n) != FAB_OK)
        return FAB_ERR_NOMEM;
    m->verdict = verdict;
    for (int i = 0; i < m->n * m->n; i++) {
        double v = m->lat_p50 ? m->lat_p50[i] * div * 1e-6
                              : (double)m->bytes * P->msgs_per_iter / (m->bw[i] * 1e6);

        if (isfinite(v) && (m->lat_p50 && !directed ? i / m->n < i % m->n : 1)) {
            fab_acc_add(&acc, v);
            acc.loop_total += v;
        }
    }
    if (acc.n > 0) {
        row.bytes = m->bytes;
        /* every pair's measurement meets the floor, or the row says which fell short */
        row.iters = (uint64_t)m->iterations;
        row.warmup = (uint64_t)m->warmup;
        if (P->stop.policy == FAB_PSTOP_ADAPTIVE) {
            row.blocks = (uint64_t)m->blocks_min;
            row.target_met = m->imprecise == 0;
        }
        fab_acc_stats(&acc, div, &row.t);
        row.iter_time = acc.loop_total / (double)acc.n;
        ctx.msgs_per_iter = P->msgs_per_iter;
        ctx.size = 2;
        fab_row_rates(&row, P->k, &ctx, NAN);
        row.cpu_rank_pct = row.cpu_user_pct = row.cpu_sys_pct = NAN;
        row.cpu_softirq_pct = row.cpu_rank_min_pct = row.cpu_rank_max_pct = NAN;
        fab_row_close(&row, P->w, P->mopt, P->nopt, P->ki);
        st = fab_sinks_row(sinks, P->ki, &row, NULL, 0);
    } else {
        st = FAB_OK;
    }
    fab_acc_free(&acc);
    if (st == FAB_OK)
        st = fab_sinks_matrix(sinks, P->ki, m);
    return st;
}

/* Every rank learns whether any was asked to stop (then the stop's status), and the longest
 * time a pair of the last round took (the watchdog's step for the waits of the next). */
static fab_status_t fab_pairs_stop(fab_pairs_t *P)
{
    double in[2] = {(double)fab_stop_flag, P->step_s}, out[2] = {0, 0};
    fab_status_t st = FAB_MPI(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));

    if (st != FAB_OK)
        return st;
    P->round_s = out[1];
    if (out[0] > 0) {
        fab_stop_request((int)out[0]);
        return fab_stop_status((int)out[0]);
    }
    return FAB_OK;
}

static void fab_pairs_progress(const fab_pairs_t *P, int r, int of, const char *what,
                               uint64_t start, uint64_t *last)
{
    uint64_t now = fab_real_ns();
    double el = (double)(now - start) * 1e-9;

    if (P->lopt->quiet || (r > 0 && (now - *last) * 1e-9 < 2.0 && r + 1 < of))
        return;
    *last = now;
    fab_log_progress("%s: %s %d/%d done (%d members, %s schedule), %.1f s elapsed, about "
                     "%.0f s left",
                     P->k->name, what, r + 1, of, P->n, P->m.schedule, el,
                     el / (r + 1) * (of - r - 1));
}

/* Rank 0, before the first round: the rounds ahead and how long they take, expected (each pair
 * and direction at the line rate, stopping at the floor), at most at that rate (each at its
 * time) and at most in all (each pair short of the floor on to the cap: a slow fabric); the
 * time left follows each round. Also into detail (the kernel's header line and attribute). */
static void fab_pairs_estimate(fab_pairs_t *P, int rounds, char *detail, size_t len)
{
    int dirs = P->popt->schedule == FAB_SCHED_SHIFT || P->k->kind == FAB_KIND_LATENCY ? 1 : 2;
    int redirs = P->k->kind == FAB_KIND_LATENCY ? 1 : 2; /* a retest: both directions */
    double slots = (double)rounds * dirs, iter = NAN, e, most, bound;
    char ex[320] = "", mo[320] = "", re[96] = "", line[32];
    size_t at = strlen(detail);

    if (P->k->kind == FAB_KIND_LATENCY)
        iter = 0; /* a ping-pong: far less than a block */
    else if (P->m.line_MBps > 0)
        iter = (double)P->sizes.v[0] * P->window / (P->m.line_MBps * 1e6);
    fab_pstop_estimate(&P->stop, iter, &e, &most);
    /* a pair slower than the line rate may go on to the cap (adaptive, time) */
    bound = isfinite(most) ? fmax(most, fab_quality_cap(P->stop.time_s)) : NAN;
    fab_rate_text(P->m.line_MBps * 8e-3, line, sizeof(line));
    if (isfinite(e) && iter > 0)
        snprintf(ex, sizeof(ex),
                 "expected %.3g s (every pair at the line rate, %sb/s: %.3g s per pair and "
                 "direction, %.2g s an iteration of %d x %zu B)",
                 slots * e, line, e, iter, P->window, P->sizes.v[0]);
    else if (isfinite(e))
        snprintf(ex, sizeof(ex),
                 "expected %.3g s (%.3g s per pair: a stable pair stops after "
                 "%d blocks of %g ms)",
                 slots * e, e, FAB_FLOOR_BLOCKS, FAB_PAIRS_BLOCK_S * 1e3);
    else
        snprintf(ex, sizeof(ex), "expected time unknown (the line rate is unknown)");
    if (isfinite(most) && bound > most)
        snprintf(mo, sizeof(mo),
                 ", at most %.3g s at that rate (%.3g s per pair%s), %.3g s if no pair reaches "
                 "%d timed iterations in that time (each then goes on up to %.3g s)",
                 slots * most, most, dirs == 2 ? " and direction" : "", slots * bound,
                 FAB_FLOOR_SAMPLES, bound);
    else if (isfinite(most))
        snprintf(mo, sizeof(mo), ", at most %.3g s (%.3g s per pair%s)", slots * most, most,
                 dirs == 2 ? " and direction" : "");
    if (P->m.retest && isfinite(bound))
        snprintf(re, sizeof(re), "; retesting a slow pair alone adds up to %.3g s", redirs * bound);
    P->m.expect_s = slots * e;
    P->m.most_s = slots * most;
    fab_appendf(detail, len, &at, "; %s%s%s", ex, mo, re);
    if (!P->lopt->quiet)
        fab_log_progress("%s: %d members, %s schedule: %d rounds; %s%s%s; the time left follows "
                         "each round",
                         P->k->name, P->n, P->m.schedule, rounds, ex, mo, re);
}

/* Rank 0: the unordered pairs of the schedule's verdict to measure again alone
 * (fab_locate_retests: those that stand out from the rest, the slowest first, at most
 * FAB_PAIRS_RETEST_PER_MEMBER per member); none where every round of the schedule was one pair
 * (rounds of 2 or 3 members: each pair was alone already). list[2 * i], list[2 * i + 1];
 * *stood: the pairs that stood out. -1: out of memory. */
static int fab_pairs_flagged(fab_pairs_t *P, int **list, int *stood)
{
    fab_matrix_t *m = &P->m;
    fab_locate_in_t in = fab_pairs_locate_in(m);
    fab_locate_t l;
    int cnt = -1;

    *stood = 0;
    if (P->popt->schedule == FAB_SCHED_ROUNDS && m->n <= 3) {
        *list = malloc(sizeof(int));
        return *list ? 0 : -1;
    }
    if (fab_locate(&in, &l) != 0)
        return -1;
    *list = malloc(sizeof(int) * (2 * (size_t)l.nslow + 1));
    if (*list)
        cnt = fab_locate_retests(&in, &l, FAB_PAIRS_RETEST_PER_MEMBER, *list, stood);
    fab_locate_free(&l);
    return cnt;
}

/* Every rank: the pairs rank 0 found slow, measured again one at a time (--retest on). */
static fab_status_t fab_pairs_retests(fab_pairs_t *P, fab_sinks_t *sinks)
{
    int cnt = 0, stood = 0, *list = NULL;
    uint64_t start = fab_real_ns(), last = start;
    fab_status_t st;

    if (P->w->rank == 0) {
        cnt = fab_pairs_flagged(P, &list, &stood);
        P->m.retests = cnt < 0 ? 0 : cnt;
    }
    fab_watch_phase("the list of pairs to retest", P->k->name, P->sizes.v[0], 0, P->round_s);
    st = FAB_MPI(MPI_Bcast(&cnt, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (st == FAB_OK && cnt < 0)
        st = FAB_ERR_NOMEM;
    if (st != FAB_OK || cnt == 0) {
        free(list);
        return st;
    }
    if (P->w->rank != 0 && !(list = malloc(sizeof(int) * 2 * (size_t)cnt)))
        st = FAB_ERR_NOMEM;
    if (fab_agree(st, MPI_COMM_WORLD) != FAB_OK ||
        FAB_MPI(MPI_Bcast(list, 2 * cnt, MPI_INT, 0, MPI_COMM_WORLD)) != FAB_OK) {
        free(list);
        return st != FAB_OK ? st : FAB_ERR_MPI;
    }
    if (P->w->rank == 0 && !P->lopt->quiet && stood > cnt)
        fab_log_progress("%s: %d pairs stand out as slow in the %s schedule: measuring %d of "
                         "them again alone (the slowest, at most %d per member; the others are "
                         "judged as the schedule measured them)",
                         P->k->name, stood, P->m.schedule, cnt, FAB_PAIRS_RETEST_PER_MEMBER);
    else if (P->w->rank == 0 && !P->lopt->quiet)
        fab_log_progress("%s: %d pair%s slow in the %s schedule: measuring %s again alone",
                         P->k->name, cnt, cnt == 1 ? "" : "s", P->m.schedule,
                         cnt == 1 ? "it" : "them");
    P->retesting = true;
    for (int t = 0; t < cnt && st == FAB_OK; t++) {
        for (int i = 0; i < P->n; i++)
            P->partner[i] = -1;
        P->partner[list[2 * t]] = list[2 * t + 1];
        P->partner[list[2 * t + 1]] = list[2 * t];
        fab_watch_phase("agreeing on the next retest", P->k->name, P->sizes.v[0], -1, P->round_s);
        st = fab_pairs_stop(P);
        if (st == FAB_OK)
            st = fab_pairs_round(P, false);
        if (st == FAB_OK && P->w->rank == 0) {
            fab_pairs_fill(P, t, true);
            P->m.retested = t + 1;
            fab_pairs_commit(P, sinks, t + 1 == cnt);
            fab_pairs_progress(P, t, cnt, "retest", start, &last);
        }
    }
    free(list);
    return st;
}

/* Every rank: the pairs' state for kernel k (buffers, the members and this rank's place among
 * them, their communicator for the shift schedule; rank 0: the matrix), not yet agreed on;
 * msg: why rank 0's matrix could not be made. P holds the world and the options. */
static fab_status_t fab_pairs_setup(fab_pairs_t *P, const fab_kernel_t *k, char *msg, size_t msglen)
{
    const fab_world_t *w = P->w;
    const fab_measopts_t *mopt = P->mopt;
    const fab_pairopts_t *popt = P->popt;
    fab_sizes_t tmp;
    fab_status_t st = FAB_OK;

    P->k = k;
    P->sizes = *fab_kernel_sizes(k, mopt, &tmp);
    P->start = fab_now_ns();
    fab_pairs_stop_conf(k, mopt, popt, &P->stop);
    P->window = fab_plan_window(k, mopt);
    P->member = malloc(sizeof(int) * (size_t)w->size);
    P->partner = malloc(sizeof(int) * (size_t)w->size);
    P->ticks = malloc(sizeof(uint64_t) * FAB_PAIRS_BLOCK_MAX);
    P->secs = malloc(sizeof(double) * FAB_PAIRS_BLOCK_MAX);
    if (!P->member || !P->partner || !P->ticks || !P->secs)
        st = FAB_ERR_NOMEM;
    if (st == FAB_OK) {
        P->n = fab_pairs_members(w, popt, P->member);
        P->me = -1;
        for (int i = 0; i < P->n; i++)
            if (P->member[i] == w->rank)
                P->me = i;
    }
    P->members = MPI_COMM_NULL;
    if (st == FAB_OK && popt->schedule == FAB_SCHED_SHIFT)
        st = fab_comm_split(MPI_COMM_WORLD, P->me >= 0 ? 0 : MPI_UNDEFINED, P->me, &P->members);
    if (st == FAB_OK && w->rank == 0)
        st = fab_pairs_matrix_init(P, msg, msglen);
    return st;
}

/* Rank 0: the kernel's begin in the outputs, with the plan of its rounds. */
static void fab_pairs_begin(fab_pairs_t *P, fab_sinks_t *sinks, int rounds)
{
    char detail[1024], policy[640];

    snprintf(detail, sizeof(detail), "%d %ss, %s schedule (%d rounds)%s", P->n, P->m.pairs_per,
             P->m.schedule, P->m.rounds, P->m.retest ? ", slow pairs retested alone" : "");
    fab_pairs_estimate(P, rounds, detail, sizeof(detail));
    fab_pairs_policy(P->k, P->mopt, P->popt, policy, sizeof(policy));
    if (fab_sinks_kernel_begin(sinks, P->ki, NULL, P->w, detail, policy) != FAB_OK)
        fab_stop_request(FAB_STOP_OUTPUT);
}

/* The schedule's rounds, each committed to the outputs by rank 0 as it ends (its progress
 * counted from start). */
static fab_status_t fab_pairs_rounds(fab_pairs_t *P, fab_sinks_t *sinks, int rounds, uint64_t start)
{
    const fab_pairopts_t *popt = P->popt;
    uint64_t last = start;
    fab_status_t st = FAB_OK;

    for (int r = 0; r < rounds && st == FAB_OK; r++) {
        fab_watch_phase("agreeing on the next round", P->k->name, P->sizes.v[0], -1, P->round_s);
        st = fab_pairs_stop(P);
        if (st == FAB_OK) {
            fab_sched_round((fab_sched_t)popt->schedule, P->n, r, P->partner);
            st = fab_pairs_round(P, popt->schedule == FAB_SCHED_SHIFT);
        }
        if (st == FAB_OK && P->w->rank == 0) {
            fab_pairs_fill(P, r, false);
            fab_pairs_commit(P, sinks, r + 1 == rounds);
            fab_pairs_progress(P, r, rounds, "round", start, &last);
        }
    }
    return st;
}

/* The kernel's end, its rounds having ended with st: rank 0's verdict (into verdict) and the
 * kernel's end in the outputs, then every rank learns the status (exit 1 everywhere when a
 * suspect is named). */
static fab_status_t fab_pairs_end(fab_pairs_t *P, fab_sinks_t *sinks, fab_status_t st,
                                  fab_locate_t *verdict, bool *agreed)
{
    const fab_world_t *w = P->w;

    if (w->rank == 0 && (st == FAB_OK || st == FAB_ERR_INTERRUPTED || st == FAB_ERR_IO)) {
        fab_status_t fst = fab_pairs_finish(P, sinks, verdict);

        if (fst != FAB_OK)
            fab_stop_request(FAB_STOP_OUTPUT);
        else if (st == FAB_OK && verdict->nsuspects > 0)
            st = FAB_ERR_SUSPECT;
    }
    if (w->rank == 0 && fab_sinks_kernel_end(sinks, P->ki, st) != FAB_OK)
        fab_stop_request(FAB_STOP_OUTPUT);
    if (st == FAB_ERR_MPI) {
        *agreed = false; /* the others may wait in a collective: the caller ends the job */
    } else {
        int code = st;

        fab_watch_phase("agreeing with every rank on the kernel's end", P->k->name, 0, -1, 0);
        if (FAB_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD)) != FAB_OK)
            *agreed = false;
        else if (st == FAB_OK)
            st = (fab_status_t)code;
    }
    return st;
}

fab_status_t fab_run_pairs(const fab_world_t *w, const fab_launchopts_t *lopt,
                           const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                           const fab_pairopts_t *popt, const fab_kinst_t *ki, fab_sinks_t *sinks,
                           bool *agreed)
{
    const fab_kernel_t *k = ki->k;
    fab_pairs_t P;
    fab_locate_t verdict;
    char msg[512] = "";
    int rounds;
    uint64_t start = fab_real_ns();
    fab_status_t st;

    P = (fab_pairs_t){.w = w, .lopt = lopt, .mopt = mopt, .nopt = nopt, .popt = popt, .ki = ki};
    memset(&verdict, 0, sizeof(verdict));
    *agreed = true;
    st = fab_pairs_setup(&P, k, msg, sizeof(msg));
    st = fab_agree_msg(w, st,
                       st == FAB_OK ? NULL
                       : msg[0]     ? msg
                                    : "pairs set-up failed",
                       "check the file --switches names");
    if (st == FAB_OK) {
        rounds = fab_sched_rounds((fab_sched_t)popt->schedule, P.n);
        fab_pairs_fabric_mark(&P);
        if (w->rank == 0)
            fab_pairs_begin(&P, sinks, rounds);
        st = fab_pairs_rounds(&P, sinks, rounds, start);
        if (st == FAB_OK && popt->retest && popt->schedule != FAB_SCHED_SERIAL)
            st = fab_pairs_retests(&P, sinks);
        st = st == FAB_OK ? fab_pairs_fabric(&P) : st;
        st = fab_pairs_end(&P, sinks, st, &verdict, agreed);
    }
    fab_locate_free(&verdict);
    if (w->rank == 0)
        fab_pairs_matrix_free(&P.m);
    if (P.members != MPI_COMM_NULL)
        MPI_Comm_free(&P.members);
    free(P.all);
    free(P.ticks);
    free(P.secs);
    free(P.member);
    free(P.partner);
    return st;
}
