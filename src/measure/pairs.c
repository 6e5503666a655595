/* The pairs kernels (measure/pairs.h): every pair of members (one rank per node, or every
 * rank) measured round by round as the schedule says. In each round every pair gets a 2-rank
 * communicator and runs the kernel's iterate there (rank 0 of it the sender and timer), one
 * direction after the other for bandwidth kernels; rank 0 of the world gathers each round's
 * results, so only it holds the n x n matrix, and hands the matrix to the outputs after every
 * round (a killed run keeps the finished rounds). At the end the verdict (measure/locate.c)
 * names the suspects; one table row summarises the distribution over the pairs. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/text.h"
#include "core/signals.h"
#include "core/watchdog.h"
#include "measure/buffers.h"
#include "measure/matrix.h"
#include "measure/pairs.h"
#include "measure/plan.h"
#include "measure/row.h"
#include "measure/schedule.h"
#include "measure/stats.h"
#include "measure/timing.h"

/* One direction of one pair, as its timing rank sends it to rank 0. */
#define FAB_PAIRS_WAIT 4.0 /* see fab_pairs_wait_step */

typedef struct fab_pair_rec {
    int32_t src, dst;            /* members; src -1: no record */
    double p50_s, p99_s, mean_s; /* per iteration */
    double msgs_per_iter;
} fab_pair_rec_t;

typedef struct fab_pairs {
    const fab_world_t *w;
    const fab_opts_t *o;
    const fab_kernel_t *k;
    fab_sizes_t sizes;
    int n, me, *member, *partner;
    uint64_t iters, warm;
    double step_s;       /* seconds this rank's pair took in the last round (0: none) */
    double round_s;      /* the longest pair of the last round, every rank's (watchdog steps) */
    fab_matrix_t m;      /* rank 0 */
    fab_pair_rec_t *all; /* rank 0: 2 per world rank */
    double msgs_per_iter;
} fab_pairs_t;

uint64_t fab_pairs_iters(const fab_kernel_t *k, const fab_opts_t *o)
{
    if (o->iters > 0)
        return (uint64_t)o->iters;
    return k->kind == FAB_KIND_LATENCY ? FAB_PAIRS_ITERS_LAT : FAB_PAIRS_ITERS_BW;
}

uint64_t fab_pairs_warmup(const fab_kernel_t *k, const fab_opts_t *o)
{
    return o->warmup >= 0 ? (uint64_t)o->warmup : (fab_pairs_iters(k, o) + 9) / 10;
}

int fab_pairs_members(const fab_world_t *w, const fab_opts_t *o, int *member)
{
    int n = 0;

    for (int r = 0; r < w->size; r++) {
        bool first = true;

        for (int q = 0; q < r && o->pairs_per == 0 && first; q++)
            first = strcmp(w->hosts[q], w->hosts[r]) != 0;
        if (first)
            member[n++] = r;
    }
    return n;
}

fab_status_t fab_pairs_check(const fab_world_t *w, const fab_opts_t *o, const fab_kernel_t *k,
                             char *msg, size_t len, char *hint, size_t hlen)
{
    int *member = malloc(sizeof(int) * (size_t)w->size), n;
    struct stat sb;

    if (!member)
        return FAB_ERR_NOMEM;
    n = fab_pairs_members(w, o, member);
    free(member);
    if (n < 2) {
        snprintf(msg, len,
                 "kernel '%s' measures pairs of %s, and this run has %d (%d rank%s on %d host%s)",
                 k->name, o->pairs_per ? "ranks" : "nodes", n, w->size, w->size == 1 ? "" : "s",
                 w->nhosts, w->nhosts == 1 ? "" : "s");
        snprintf(hint, hlen, "%s",
                 o->pairs_per ? "start it with at least 2 ranks"
                              : "run one rank on each of two or more nodes, or add --pairs-per "
                                "rank to measure the pairs of ranks within a node");
        return FAB_ERR_CONFIG;
    }
    if (o->switches) {
        const char *why = NULL;

        if (stat(o->switches, &sb) != 0)
            why = strerror(errno);
        else if (!S_ISREG(sb.st_mode))
            why = "not a regular file";
        else if (access(o->switches, R_OK) != 0)
            why = strerror(errno);
        if (why) {
            snprintf(msg, len, "--switches %s: %s", o->switches, why);
            snprintf(hint, hlen,
                     "name a readable file of 'NODE SWITCH' lines, or leave the "
                     "option out to group nodes by host name");
            return FAB_ERR_CONFIG;
        }
    }
    if (o->sizes.n > 1) {
        snprintf(msg, len, "kernel '%s' measures one message size per pair; -m gives %d", k->name,
                 o->sizes.n);
        snprintf(hint, hlen, "give one size (-m 1M), or run the kernel once per size");
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

/* The switch group of each member: --switches FILE ("NODE SWITCH" lines, # comments), else
 * the host name's part before its last '-' (none: no group). Rank 0. */
static fab_status_t fab_pairs_groups(fab_pairs_t *P, char *msg, size_t len)
{
    fab_matrix_t *m = &P->m;
    FILE *f = P->o->switches ? fopen(P->o->switches, "r") : NULL;
    char line[512], node[256], sw[256], missing[160] = "";
    size_t at = 0;
    int nmissing = 0;

    if (P->o->switches && !f) {
        snprintf(msg, len, "--switches %s: %s", P->o->switches, strerror(errno));
        return FAB_ERR_CONFIG;
    }
    for (int i = 0; i < m->n; i++) {
        const char *h = P->w->hosts[m->world_rank[i]], *dash = strrchr(h, '-');

        m->group[i] = -1;
        snprintf(sw, sizeof(sw), "%.*s", dash ? (int)(dash - h) : 0, h);
        if (f) {
            sw[0] = '\0';
            rewind(f);
            while (!sw[0] && fgets(line, sizeof(line), f))
                if (line[0] == '#' || sscanf(line, "%255s %255s", node, sw) != 2 ||
                    strcmp(node, h) != 0)
                    sw[0] = '\0';
            if (!sw[0] && nmissing++ < 4)
                fab_appendf(missing, sizeof(missing), &at, "%s%s", at ? ", " : "", h);
        }
        if (!sw[0])
            continue;
        for (int g = 0; g < m->ngroups && m->group[i] < 0; g++)
            if (strcmp(m->gnames[g], sw) == 0)
                m->group[i] = g;
        if (m->group[i] < 0) {
            m->gnames[m->ngroups] = strdup(sw);
            if (!m->gnames[m->ngroups]) {
                if (f)
                    fclose(f);
                return FAB_ERR_NOMEM;
            }
            m->group[i] = m->ngroups++;
        }
    }
    if (f)
        fclose(f);
    if (nmissing)
        FAB_WARN("--switches %s names no switch for %d of the %d members (%s%s): they are "
                 "judged without one (node and pair rules only)",
                 P->o->switches, nmissing, m->n, missing, nmissing > 4 ? ", ..." : "");
    return FAB_OK;
}

static double *fab_nan_matrix(int n)
{
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)n + 1);

    for (size_t i = 0; v && i < (size_t)n * (size_t)n; i++)
        v[i] = NAN;
    return v;
}

/* Rank 0: the matrix, all NaN, with the members' names and groups. */
static fab_status_t fab_pairs_matrix_init(fab_pairs_t *P, char *msg, size_t len)
{
    fab_matrix_t *m = &P->m;
    int n = P->n;
    bool lat = P->k->kind == FAB_KIND_LATENCY;

    m->n = n;
    m->names = calloc((size_t)n, sizeof(char *));
    m->world_rank = P->member;
    m->group = malloc(sizeof(int) * (size_t)n);
    m->gnames = calloc((size_t)n, sizeof(char *));
    m->schedule = fab_sched_name((fab_sched_t)P->o->schedule);
    m->pairs_per = P->o->pairs_per ? "rank" : "node";
    m->bytes = P->sizes.v[0];
    m->rounds = fab_sched_rounds((fab_sched_t)P->o->schedule, n);
    m->iterations = (int)P->iters;
    m->warmup = (int)P->warm;
    m->lat_p50 = lat ? fab_nan_matrix(n) : NULL;
    m->lat_p99 = lat ? fab_nan_matrix(n) : NULL;
    m->bw = lat ? NULL : fab_nan_matrix(n);
    m->line_pct = lat ? NULL : fab_nan_matrix(n);
    m->round = malloc(sizeof(int) * (size_t)n * (size_t)n + 1);
    m->bw_frac = P->o->slow_bw;
    m->lat_factor = P->o->slow_latency;
    P->all = calloc(2 * (size_t)P->w->size, sizeof(fab_pair_rec_t));
    if (!m->names || !m->group || !m->gnames || !m->round || !P->all ||
        (lat ? !m->lat_p50 || !m->lat_p99 : !m->bw || !m->line_pct))
        return FAB_ERR_NOMEM;
    for (int i = 0; i < n * n; i++)
        m->round[i] = -1;
    for (int i = 0; i < n; i++) {
        char buf[FAB_HOST_MAX + 16];

        snprintf(buf, sizeof(buf), P->o->pairs_per ? "%s:%d" : "%s", P->w->hosts[P->member[i]],
                 P->member[i]);
        m->names[i] = strdup(buf);
        if (!m->names[i])
            return FAB_ERR_NOMEM;
    }
    return fab_pairs_groups(P, msg, len);
}

static void fab_pairs_matrix_free(fab_matrix_t *m)
{
    for (int i = 0; m->names && i < m->n; i++)
        free(m->names[i]);
    for (int g = 0; m->gnames && g < m->ngroups; g++)
        free(m->gnames[g]);
    free(m->names);
    free(m->gnames);
    free(m->group);
    free(m->lat_p50);
    free(m->lat_p99);
    free(m->bw);
    free(m->line_pct);
    free(m->round);
}

/* One direction of the pair on comm pc: warm-up, then timed iterations; the timing rank
 * fills rec. */
static fab_status_t fab_pairs_measure(fab_pairs_t *P, MPI_Comm pc, int peer, fab_pair_rec_t *rec,
                                      int src, int dst)
{
    const fab_kernel_t *k = P->k;
    fab_kctx_t ctx;
    void *state = NULL;
    fab_acc_t acc;
    fab_stats_t s;
    uint64_t t0 = fab_now_ns(), first, last;
    fab_status_t st = fab_ctx_setup(P->o, k, &P->sizes, pc, &ctx, &state);
    size_t bytes = P->sizes.v[0];

    if (st == FAB_OK)
        st = fab_acc_init(&acc, ctx.timer ? (size_t)P->iters : 0);
    if (st != FAB_OK) {
        fab_ctx_free(&ctx);
        return st;
    }
    fab_watch_phase("a pair's warm-up", k->name, bytes, peer, P->step_s / (double)(P->iters + 1));
    for (uint64_t i = 0; i < P->warm && st == FAB_OK; i++) {
        st = k->iterate(&ctx, state, bytes);
        fab_watch_tick();
    }
    fab_watch_phase("a pair's timed iterations", k->name, bytes, peer,
                    P->step_s / (double)(P->iters + 1));
    /* Contiguous timestamps, as the runner's timed blocks: one timer reading per iteration. */
    first = last = fab_ticks();
    for (uint64_t i = 0; i < P->iters && st == FAB_OK; i++) {
        st = k->iterate(&ctx, state, bytes);
        if (ctx.timer) {
            uint64_t now = fab_ticks();

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

/* One round on every rank: the pairs of it measured, the results gathered on rank 0. */
static fab_status_t fab_pairs_round(fab_pairs_t *P, int r)
{
    fab_pair_rec_t rec[2] = {{-1, -1, 0, 0, 0, 0}, {-1, -1, 0, 0, 0, 0}};
    int p = -1, dirs = P->k->kind == FAB_KIND_LATENCY ? 1 : 2;
    fab_status_t st = FAB_OK;

    fab_sched_round((fab_sched_t)P->o->schedule, P->n, r, P->partner);
    if (P->me >= 0)
        p = P->partner[P->me];
    for (int d = 0; d < dirs && st == FAB_OK; d++) {
        MPI_Comm pc = MPI_COMM_NULL;
        int color = p < 0 ? MPI_UNDEFINED : (P->me < p ? P->me : p);
        int key = (P->me < p) == (d == 0) ? 0 : 1; /* rank 0 of the pair sends and times */

        fab_watch_phase("the pairs of a round", P->k->name, P->sizes.v[0], -1,
                        fab_pairs_wait_step(P, false));
        st = FAB_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, key, &pc));
        if (st == FAB_OK && pc != MPI_COMM_NULL) {
            st = fab_pairs_measure(P, pc, P->member[p], &rec[d], key == 0 ? P->me : p,
                                   key == 0 ? p : P->me);
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

/* Rank 0: the round's records into the matrix. */
static void fab_pairs_fill(fab_pairs_t *P, int r)
{
    fab_matrix_t *m = &P->m;
    double div = P->k->time_divisor > 0 ? P->k->time_divisor : 1.0;
    double line = P->o->line_rate_gbps * 1e3 / 8.0; /* MB/s */

    for (int i = 0; i < 2 * P->w->size; i++) {
        const fab_pair_rec_t *c = &P->all[i];
        int s = c->src, d = c->dst, at = s * m->n + d;
        bool across;

        if (s < 0 || d < 0 || s >= m->n || d >= m->n)
            continue;
        P->msgs_per_iter = c->msgs_per_iter;
        m->round[at] = m->round[d * m->n + s] = r;
        if (m->lat_p50) { /* ping-pong: both directions at once */
            m->lat_p50[at] = m->lat_p50[d * m->n + s] = c->p50_s / div * 1e6;
            m->lat_p99[at] = m->lat_p99[d * m->n + s] = c->p99_s / div * 1e6;
            continue;
        }
        m->bw[at] = (double)m->bytes * c->msgs_per_iter / c->mean_s / 1e6;
        across = strcmp(P->w->hosts[m->world_rank[s]], P->w->hosts[m->world_rank[d]]) != 0;
        if (line > 0 && (across || P->o->line_rate_given))
            m->line_pct[at] = 100.0 * m->bw[at] / line;
    }
    m->rounds_done = r + 1;
}

/* Rank 0: the row that summarises the pairs (each pair and direction one sample: its median
 * iteration time for latency, its mean for bandwidth) and the verdict. */
static fab_status_t fab_pairs_finish(fab_pairs_t *P, fab_sinks_t *sinks, fab_locate_t *verdict)
{
    fab_matrix_t *m = &P->m;
    fab_locate_in_t in = {m->n, m->bw, m->lat_p50, m->group, m->bw_frac, m->lat_factor, 0, 0};
    fab_acc_t acc;
    fab_row_t row;
    fab_kctx_t ctx;
    double div = P->k->time_divisor > 0 ? P->k->time_divisor : 1.0;
    fab_status_t st;

    memset(&row, 0, sizeof(row));
    memset(&ctx, 0, sizeof(ctx));
    if (P->o->line_rate_gbps > 0 && (P->w->nhosts > 1 || P->o->line_rate_given))
        in.line_MBps = m->line_MBps = P->o->line_rate_gbps * 1e3 / 8.0;
    if (fab_locate(&in, verdict) != 0 || fab_acc_init(&acc, (size_t)m->n * (size_t)m->n) != FAB_OK)
        return FAB_ERR_NOMEM;
    m->verdict = verdict;
    for (int i = 0; i < m->n * m->n; i++) {
        double v = m->lat_p50 ? m->lat_p50[i] * div * 1e-6
                              : (double)m->bytes * P->msgs_per_iter / (m->bw[i] * 1e6);

        if (isfinite(v) && (m->lat_p50 ? i / m->n < i % m->n : 1)) {
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
        row.validation_errors = -1;
        row.slowest_rank = -1;
        row.cpu_rank_max_rank = -1;
        row.cpu_rank_pct = row.cpu_user_pct = row.cpu_sys_pct = NAN;
        row.cpu_softirq_pct = row.cpu_rank_min_pct = row.cpu_rank_max_pct = NAN;
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

static void fab_pairs_progress(const fab_pairs_t *P, int r, uint64_t start, uint64_t *last)
{
    uint64_t now = fab_now_ns();
    double el = (double)(now - start) * 1e-9;

    if (P->o->quiet || (r > 0 && (now - *last) * 1e-9 < 2.0 && r + 1 < P->m.rounds))
        return;
    *last = now;
    fab_log_progress("%s: round %d/%d done (%d members, %s schedule), %.1f s elapsed, about "
                     "%.0f s left",
                     P->k->name, r + 1, P->m.rounds, P->n, P->m.schedule, el,
                     el / (r + 1) * (P->m.rounds - r - 1));
}

fab_status_t fab_run_pairs(const fab_world_t *w, const fab_opts_t *o, const fab_kernel_t *k,
                           fab_sinks_t *sinks, bool *agreed)
{
    fab_pairs_t P;
    fab_locate_t verdict;
    fab_sizes_t tmp;
    char msg[512] = "";
    int rounds;
    uint64_t start = fab_now_ns(), last = start;
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
                 "%d %ss, %s schedule (%d rounds), %llu iterations per pair and direction", P.n,
                 P.m.pairs_per, P.m.schedule, P.m.rounds, (unsigned long long)P.iters);
        if (fab_sinks_kernel_begin(sinks, k, o, NULL, w, detail) != FAB_OK)
            fab_stop_request(FAB_STOP_OUTPUT);
    }
    rounds = fab_sched_rounds((fab_sched_t)o->schedule, P.n);
    for (int r = 0; r < rounds && st == FAB_OK; r++) {
        fab_watch_phase("agreeing on the next round", k->name, P.sizes.v[0], -1, P.round_s);
        st = fab_pairs_stop(&P);
        if (st == FAB_OK)
            st = fab_pairs_round(&P, r);
        if (st == FAB_OK && w->rank == 0) {
            fab_pairs_fill(&P, r);
            if (fab_sinks_matrix(sinks, k, &P.m) != FAB_OK)
                fab_stop_request(FAB_STOP_OUTPUT);
            fab_pairs_progress(&P, r, start, &last);
        }
    }
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
    free(P.all);
    free(P.member);
    free(P.partner);
    return st;
}
