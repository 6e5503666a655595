/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels (measure/pairs.h): every pair of members (one rank per node, or every
 * rank) measured round by round as the schedule says. rounds and serial: in each round every
 * pair gets a 2-rank communicator and runs the kernel's iterate there (rank 0 of it the sender
 * and timer), one direction after the other for bandwidth kernels. shift: every member sends
 * to the one r+1 places on and receives from the one r+1 places back, all at once (the
 * kernel's shift). Rank 0 of the world gathers each round's results, so only it holds the
 * n x n matrix, and hands the matrix to the outputs after the rounds (a killed run keeps the
 * finished rounds). With --retest on, the pairs a parallel schedule found slow are measured
 * again alone; the verdict (measure/locate.c) judges those values and names the suspects.
 * One table row summarises the distribution over the schedule's pairs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/file.h"
#include "core/log.h"
#include "core/mpi_call.h"
#include "core/signals.h"
#include "core/testhook.h"
#include "core/watchdog.h"
#include "measure/buffers.h"
#include "measure/pairs.h"
#include "measure/pairs_int.h"
#include "measure/plan.h"
#include "measure/row.h"
#include "measure/schedule.h"
#include "measure/stats.h"
#include "measure/timing.h"

#define FAB_PAIRS_WAIT 4.0 /* see fab_pairs_wait_step */
/* The matrix is handed to the outputs after a round when at least FAB_COMMIT_GAP times its
 * last hand-over's duration has passed since (and after the last round): commits cost at most
 * about a tenth of the run, also at a thousand members, whose matrix is tens of MB. */
/* Retests: at most this many unordered pairs per member (the slowest first). */
#define FAB_PAIRS_RETEST_PER_MEMBER 4

/* FABRICBENCH_TEST_PAIRS_LOADED=1: in the schedule (not in retests) every timed iteration of
 * a pair with member 1 takes FAB_PAIRS_TEST_DELAY_NS longer, so the tests can prove that a
 * pair slow only under the schedule is retested, and its two values are kept. */
#define FAB_PAIRS_TEST_DELAY_NS 20000000L

static void fab_pairs_test_delay(const fab_pairs_t *P, int src, int dst)
{
    static int cached = -1;
    struct timespec ts = {0, FAB_PAIRS_TEST_DELAY_NS};

    if ((src == 1 || dst == 1) && !P->retesting &&
        fab_test_switch("FABRICBENCH_TEST_PAIRS_LOADED", &cached))
        nanosleep(&ts, NULL);
}

/* One direction of the pair on comm pc (to < 0), or this member's part of a shift round on
 * the members' comm (sending to member `to`, receiving from `from`): warm-up, then timed
 * iterations; the timing rank fills rec with (src, dst). peer: the world rank waited for. */
static fab_status_t fab_pairs_measure(fab_pairs_t *P, MPI_Comm pc, int peer, fab_pair_rec_t *rec,
                                      int src, int dst, int to, int from)
{
    const fab_kernel_t *k = P->k;
    fab_kctx_t ctx;
    void *state = NULL;
    fab_acc_t acc;
    fab_stats_t s;
    uint64_t t0 = fab_now_ns(), first, last;
    fab_status_t st = fab_ctx_setup(P->o, k, &P->sizes, pc, &ctx, &state);
    size_t bytes = P->sizes.v[0];

    if (to >= 0)
        ctx.timer = true; /* shift: every member times its own sends */
    if (st == FAB_OK)
        st = fab_acc_init(&acc, ctx.timer ? (size_t)P->iters : 0);
    if (st != FAB_OK) {
        fab_ctx_free(&ctx);
        return st;
    }
    fab_watch_phase("a pair's warm-up", k->name, bytes, peer, P->step_s / (double)(P->iters + 1));
    for (uint64_t i = 0; i < P->warm && st == FAB_OK; i++) {
        st = to >= 0 ? k->shift(&ctx, state, bytes, to, from) : k->iterate(&ctx, state, bytes);
        fab_watch_tick();
    }
    fab_watch_phase("a pair's timed iterations", k->name, bytes, peer,
                    P->step_s / (double)(P->iters + 1));
    /* Contiguous timestamps, as the runner's timed blocks: one timer reading per iteration. */
    first = last = fab_ticks();
    for (uint64_t i = 0; i < P->iters && st == FAB_OK; i++) {
        st = to >= 0 ? k->shift(&ctx, state, bytes, to, from) : k->iterate(&ctx, state, bytes);
        if (ctx.timer) {
            uint64_t now;

            fab_pairs_test_delay(P, src, dst);
            now = fab_ticks();
            fab_acc_add(&acc, fab_ticks_to_s(now - last));
            last = now;
        }
        fab_watch_tick();
    }
    if (st == FAB_OK && ctx.timer) {
        acc.loop_total = fab_ticks_to_s(last - first);
        fab_acc_stats(&acc, 1.0, &s);
        *rec = (fab_pair_rec_t){src, dst, s.p50, s.p99, s.mean, ctx.msgs_per_iter};
    }
    if (k->cleanup)
        k->cleanup(&ctx, state);
    fab_acc_free(&acc);
    fab_ctx_free(&ctx);
    P->step_s = (double)(fab_now_ns() - t0) * 1e-9;
    return st;
}

/* The watchdog's step while a rank waits for the round's other pairs (in the split and the
 * gather): FAB_PAIRS_WAIT x the longest pair it knows of (the last round's, its own in this
 * one), so a pair up to 10 x FAB_PAIRS_WAIT times slower is a finding, not a stall. A rank
 * with no pair before any pair was measured knows nothing: it waits 10 x --stall-timeout,
 * while the ranks measuring watch each other. */
static double fab_pairs_wait_step(const fab_pairs_t *P, bool paired)
{
    double known = paired && P->step_s > P->round_s ? P->step_s : P->round_s;

    return known > 0 ? FAB_PAIRS_WAIT * known : (double)P->o->stall_timeout;
}

/* A round on every rank: the pairs partner[] names measured (each on its own 2-rank comm),
 * or with shift every member sending to partner[member] at once; the results gathered on
 * rank 0. */
static fab_status_t fab_pairs_round(fab_pairs_t *P, bool shift)
{
    fab_pair_rec_t rec[2] = {{-1, -1, 0, 0, 0, 0}, {-1, -1, 0, 0, 0, 0}};
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
        st = FAB_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, key, &pc));
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

/* Rank 0: the round's records into the matrix (retest: into its retest values). */
static void fab_pairs_fill(fab_pairs_t *P, int r, bool retest)
{
    fab_matrix_t *m = &P->m;
    double div = P->k->time_divisor > 0 ? P->k->time_divisor : 1.0;
    double line = P->o->line_rate_gbps * 1e3 / 8.0; /* MB/s */
    double *p50 = retest ? m->re_lat_p50 : m->lat_p50, *p99 = retest ? m->re_lat_p99 : m->lat_p99;
    double *bw = retest ? m->re_bw : m->bw, *lpct = retest ? m->re_line_pct : m->line_pct;
    /* shift measures each ordered pair on its own; the others a pair's ping-pong both ways */
    bool directed = !retest && P->o->schedule == FAB_SCHED_SHIFT;

    for (int i = 0; i < 2 * P->w->size; i++) {
        const fab_pair_rec_t *c = &P->all[i];
        int s = c->src, d = c->dst, at = s * m->n + d, ta = d * m->n + s;
        bool across;

        if (s < 0 || d < 0 || s >= m->n || d >= m->n)
            continue;
        P->msgs_per_iter = c->msgs_per_iter;
        if (!retest)
            m->round[at] = m->round[directed ? at : ta] = r;
        if (p50) {
            p50[at] = p50[directed ? at : ta] = c->p50_s / div * 1e6;
            p99[at] = p99[directed ? at : ta] = c->p99_s / div * 1e6;
            continue;
        }
        bw[at] = (double)m->bytes * c->msgs_per_iter / c->mean_s / 1e6;
        across = strcmp(P->w->hosts[m->world_rank[s]], P->w->hosts[m->world_rank[d]]) != 0;
        if (line > 0 && (across || P->o->line_rate_given))
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
    if (fab_sinks_matrix(sinks, P->k, &P->m) != FAB_OK)
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
    double div = P->k->time_divisor > 0 ? P->k->time_divisor : 1.0;
    bool directed = P->o->schedule == FAB_SCHED_SHIFT;
    fab_status_t st;

    fab_row_clear(&row);
    memset(&ctx, 0, sizeof(ctx));
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
        row.iters = P->iters;
        row.warmup = P->warm;
        fab_acc_stats(&acc, div, &row.t);
        row.iter_time = acc.loop_total / (double)acc.n;
        ctx.msgs_per_iter = P->msgs_per_iter;
        ctx.size = 2;
        fab_row_rates(&row, P->k, &ctx, NAN);
        row.line_pct = fab_row_line_pct(P->w, P->o, P->k, &row);
        row.cpu_rank_pct = row.cpu_user_pct = row.cpu_sys_pct = NAN;
        row.cpu_softirq_pct = row.cpu_rank_min_pct = row.cpu_rank_max_pct = NAN;
        fab_row_quality(&row, P->k);
        st = fab_sinks_row(sinks, P->k, &row, NULL, 0);
    } else {
        st = FAB_OK;
    }
    fab_acc_free(&acc);
    if (st == FAB_OK)
        st = fab_sinks_matrix(sinks, P->k, m);
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

    if (P->o->quiet || (r > 0 && (now - *last) * 1e-9 < 2.0 && r + 1 < of))
        return;
    *last = now;
    fab_log_progress("%s: %s %d/%d done (%d members, %s schedule), %.1f s elapsed, about "
                     "%.0f s left",
                     P->k->name, what, r + 1, of, P->n, P->m.schedule, el,
                     el / (r + 1) * (of - r - 1));
}

/* Rank 0, before the first round: the rounds ahead and, for bandwidth with a known line rate,
 * the least time they take (every byte at the line rate); the time left follows each round. */
static void fab_pairs_estimate(const fab_pairs_t *P, int rounds)
{
    char at[128] = "";
    double dirs = P->o->schedule == FAB_SCHED_SHIFT ? 1 : 2;

    if (P->o->quiet)
        return;
    if (P->m.line_MBps > 0 && P->k->uses_window)
        snprintf(at, sizeof(at), "; at least %.2g s at the line rate, ",
                 rounds * dirs * (double)P->sizes.v[0] * P->o->window *
                     (double)(P->iters + P->warm) / (P->m.line_MBps * 1e6));
    fab_log_progress("%s: %d members, %s schedule: %d rounds%sthe time left follows each round",
                     P->k->name, P->n, P->m.schedule, rounds, at[0] ? at : "; ");
}

typedef struct fab_flagged {
    double score; /* the pair's worst share of the median (latency: its inverse) */
    int a, b;
} fab_flagged_t;

static int fab_flagged_cmp(const void *x, const void *y)
{
    double a = ((const fab_flagged_t *)x)->score, b = ((const fab_flagged_t *)y)->score;

    return (a > b) - (a < b);
}

/* Rank 0: the unordered pairs the schedule's verdict finds slow, the slowest first, at most
 * FAB_PAIRS_RETEST_PER_MEMBER per member; list[2 * i], list[2 * i + 1]. -1: out of memory. */
static int fab_pairs_flagged(fab_pairs_t *P, int **list)
{
    fab_matrix_t *m = &P->m;
    fab_locate_in_t in = fab_pairs_locate_in(m);
    fab_locate_t l;
    fab_flagged_t *f;
    int cnt = 0, cap = FAB_PAIRS_RETEST_PER_MEMBER * m->n;

    if (fab_locate(&in, &l) != 0)
        return -1;
    f = malloc(sizeof(*f) * ((size_t)l.nslow + 1));
    for (int i = 0; f && i < m->n; i++)
        for (int j = i + 1; j < m->n; j++) {
            size_t a = (size_t)i * m->n + j, b = (size_t)j * m->n + i;
            double sc = m->bw ? fmin(m->bw[a], m->bw[b]) / l.bw_median
                              : l.lat_median / fmax(m->lat_p50[a], m->lat_p50[b]);

            if (l.slow[a] != 0 && l.slow[a] != 0xff && cnt < l.nslow)
                f[cnt++] = (fab_flagged_t){isfinite(sc) ? sc : 0, i, j};
        }
    fab_locate_free(&l);
    if (!f)
        return -1;
    qsort(f, (size_t)cnt, sizeof(*f), fab_flagged_cmp);
    if (cnt > cap) {
        FAB_WARN("%s: %d pairs were slow in the %s schedule; the %d slowest are measured again "
                 "alone, the others are judged as the schedule measured them",
                 P->k->name, cnt, m->schedule, cap);
        cnt = cap;
    }
    *list = malloc(sizeof(int) * (2 * (size_t)cnt + 1));
    for (int i = 0; *list && i < cnt; i++) {
        (*list)[2 * i] = f[i].a;
        (*list)[2 * i + 1] = f[i].b;
    }
    free(f);
    return *list ? cnt : -1;
}

/* Every rank: the pairs rank 0 found slow, measured again one at a time (--retest on). */
static fab_status_t fab_pairs_retests(fab_pairs_t *P, fab_sinks_t *sinks)
{
    int cnt = 0, *list = NULL;
    uint64_t start = fab_real_ns(), last = start;
    fab_status_t st;

    if (P->w->rank == 0) {
        cnt = fab_pairs_flagged(P, &list);
        P->m.retests = cnt < 0 ? 0 : cnt;
    }
    fab_watch_phase("the list of pairs to retest", P->k->name, P->sizes.v[0], 0, P->round_s);
    st = FAB_MPI(MPI_Bcast(&cnt, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (st == FAB_OK && cnt < 0)
        st = FAB_ERR_NOMEM;
    if (st != FAB_OK || cnt == 0)
        return st;
    if (P->w->rank != 0 && !(list = malloc(sizeof(int) * 2 * (size_t)cnt)))
        st = FAB_ERR_NOMEM;
    if (fab_agree(st, MPI_COMM_WORLD) != FAB_OK ||
        FAB_MPI(MPI_Bcast(list, 2 * cnt, MPI_INT, 0, MPI_COMM_WORLD)) != FAB_OK) {
        free(list);
        return st != FAB_OK ? st : FAB_ERR_MPI;
    }
    if (P->w->rank == 0 && !P->o->quiet)
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

fab_status_t fab_run_pairs(const fab_world_t *w, const fab_opts_t *o, const fab_kernel_t *k,
                           fab_sinks_t *sinks, bool *agreed)
{
    fab_pairs_t P;
    fab_locate_t verdict;
    fab_sizes_t tmp;
    char msg[512] = "";
    int rounds;
    uint64_t start = fab_real_ns(), last = start;
    fab_status_t st = FAB_OK;

    memset(&P, 0, sizeof(P));
    memset(&verdict, 0, sizeof(verdict));
    *agreed = true;
    P.w = w;
    P.o = o;
    P.k = k;
    P.sizes = *fab_kernel_sizes(k, o, &tmp);
    P.iters = fab_pairs_iters(k, o);
    P.warm = fab_pairs_warmup(k, o);
    P.member = malloc(sizeof(int) * (size_t)w->size);
    P.partner = malloc(sizeof(int) * (size_t)w->size);
    if (!P.member || !P.partner)
        st = FAB_ERR_NOMEM;
    if (st == FAB_OK) {
        P.n = fab_pairs_members(w, o, P.member);
        P.me = -1;
        for (int i = 0; i < P.n; i++)
            if (P.member[i] == w->rank)
                P.me = i;
    }
    P.members = MPI_COMM_NULL;
    if (st == FAB_OK && o->schedule == FAB_SCHED_SHIFT)
        st = FAB_MPI(
            MPI_Comm_split(MPI_COMM_WORLD, P.me >= 0 ? 0 : MPI_UNDEFINED, P.me, &P.members));
    if (st == FAB_OK && w->rank == 0)
        st = fab_pairs_matrix_init(&P, msg, sizeof(msg));
    st = fab_agree_msg(w, st,
                       st == FAB_OK ? NULL
                       : msg[0]     ? msg
                                    : "pairs set-up failed",
                       "check the file --switches names");
    if (st != FAB_OK)
        goto out;
    if (w->rank == 0) {
        char detail[256];

        snprintf(detail, sizeof(detail),
                 "%d %ss, %s schedule (%d rounds), %llu iterations per pair and direction%s", P.n,
                 P.m.pairs_per, P.m.schedule, P.m.rounds, (unsigned long long)P.iters,
                 P.m.retest ? ", slow pairs retested alone" : "");
        if (fab_sinks_kernel_begin(sinks, k, o, NULL, w, detail) != FAB_OK)
            fab_stop_request(FAB_STOP_OUTPUT);
    }
    rounds = fab_sched_rounds((fab_sched_t)o->schedule, P.n);
    if (w->rank == 0)
        fab_pairs_estimate(&P, rounds);
    for (int r = 0; r < rounds && st == FAB_OK; r++) {
        fab_watch_phase("agreeing on the next round", k->name, P.sizes.v[0], -1, P.round_s);
        st = fab_pairs_stop(&P);
        if (st == FAB_OK) {
            fab_sched_round((fab_sched_t)o->schedule, P.n, r, P.partner);
            st = fab_pairs_round(&P, o->schedule == FAB_SCHED_SHIFT);
        }
        if (st == FAB_OK && w->rank == 0) {
            fab_pairs_fill(&P, r, false);
            fab_pairs_commit(&P, sinks, r + 1 == rounds);
            fab_pairs_progress(&P, r, rounds, "round", start, &last);
        }
    }
    if (st == FAB_OK && o->retest && o->schedule != FAB_SCHED_SERIAL)
        st = fab_pairs_retests(&P, sinks);
    if (w->rank == 0 && (st == FAB_OK || st == FAB_ERR_INTERRUPTED || st == FAB_ERR_IO)) {
        fab_status_t fst = fab_pairs_finish(&P, sinks, &verdict);

        if (fst != FAB_OK)
            fab_stop_request(FAB_STOP_OUTPUT);
        else if (st == FAB_OK && verdict.nsuspects > 0)
            st = FAB_ERR_SUSPECT;
    }
    if (w->rank == 0 && fab_sinks_kernel_end(sinks, k, st) != FAB_OK)
        fab_stop_request(FAB_STOP_OUTPUT);
    if (st == FAB_ERR_MPI) {
        *agreed = false; /* the others may wait in a collective: the caller ends the job */
    } else {
        /* Every rank learns the verdict's status (exit 1 everywhere when a suspect is named) */
        int code = st;

        fab_watch_phase("agreeing with every rank on the kernel's end", k->name, 0, -1, 0);
        if (FAB_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD)) != FAB_OK)
            *agreed = false;
        else if (st == FAB_OK)
            st = (fab_status_t)code;
    }
out:
    fab_locate_free(&verdict);
    if (w->rank == 0)
        fab_pairs_matrix_free(&P.m);
    if (P.members != MPI_COMM_NULL)
        MPI_Comm_free(&P.members);
    free(P.all);
    free(P.member);
    free(P.partner);
    return st;
}
