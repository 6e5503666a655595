/* SPDX-License-Identifier: BSD-3-Clause */
/* The pairs kernels' set-up (pairs/pairs.h, pairs_int.h): iterations, the members, the
 * checks before measuring, the switch groups and the matrix rank 0 keeps. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/text.h"
#include "core/watchdog.h"
#include "kernel/traits.h"
#include "measure/quality.h"
#include "measure/row.h"
#include "net/fabcount.h"
#include "pairs/pairs.h"
#include "pairs/pairs_int.h"
#include "pairs/schedule.h"

void fab_pairs_stop_conf(const fab_kernel_t *k, const fab_measopts_t *mopt,
                         const fab_pairopts_t *popt, fab_pstop_conf_t *c)
{
    memset(c, 0, sizeof(*c));
    c->warmup = mopt->warmup;
    c->precision = mopt->precision_pct / 100.0;
    if (mopt->iters > 0) {
        c->policy = FAB_PSTOP_FIXED;
        c->fixed = (uint64_t)mopt->iters;
    } else if (!mopt->adaptive) {
        c->policy = FAB_PSTOP_TIME;
        c->time_s = mopt->time_s;
        c->min_iters = (uint64_t)mopt->min_iters;
        c->max_iters = (uint64_t)mopt->max_iters;
    } else {
        c->policy = FAB_PSTOP_ADAPTIVE;
        c->time_s = fab_pstop_default_time(k->kind == FAB_KIND_LATENCY, popt->pair_time_s);
    }
}

void fab_pairs_policy(const fab_kernel_t *k, const fab_measopts_t *mopt, const fab_pairopts_t *popt,
                      char *buf, size_t len)
{
    fab_pstop_conf_t c;
    char warm[96];

    fab_pairs_stop_conf(k, mopt, popt, &c);
    if (c.warmup >= 0)
        snprintf(warm, sizeof(warm), "warm-up %lld", (long long)c.warmup);
    else if (c.policy == FAB_PSTOP_FIXED)
        snprintf(warm, sizeof(warm), "warm-up %llu", (unsigned long long)(c.fixed + 9) / 10);
    else
        snprintf(warm, sizeof(warm), "warm-up until the time per iteration settles");
    if (c.policy == FAB_PSTOP_FIXED)
        snprintf(buf, len, "pairs: fixed, %llu iterations per pair and direction, %s",
                 (unsigned long long)c.fixed, warm);
    else if (c.policy == FAB_PSTOP_TIME)
        snprintf(buf, len,
                 "pairs: time, about %g s of timed iterations per pair and direction (%llu to "
                 "%llu iterations), %s",
                 c.time_s, (unsigned long long)c.min_iters, (unsigned long long)c.max_iters, warm);
    else
        snprintf(buf, len,
                 "pairs: adaptive, at most %g s per pair and direction (--pair-time, warm-up "
                 "included); %s, then blocks of about %g ms until the pair's median is within "
                 "+-%g%% and its blocks agree, at least %d timed iterations in %d blocks (a pair "
                 "short of them goes on up to %g s)",
                 c.time_s, warm, FAB_PAIRS_BLOCK_S * 1e3, mopt->precision_pct, FAB_FLOOR_SAMPLES,
                 FAB_FLOOR_BLOCKS, fab_quality_cap(c.time_s));
}

int fab_pairs_members(const fab_world_t *w, const fab_pairopts_t *popt, int *member)
{
    int n = 0;

    for (int r = 0; r < w->size; r++) {
        bool first = true;

        for (int q = 0; q < r && popt->pairs_per == 0 && first; q++)
            first = strcmp(w->hosts[q], w->hosts[r]) != 0;
        if (first)
            member[n++] = r;
    }
    return n;
}

fab_status_t fab_pairs_check(const fab_world_t *w, const fab_measopts_t *mopt,
                             const fab_pairopts_t *popt, const fab_kernel_t *k, char *msg,
                             size_t len, char *hint, size_t hlen)
{
    int *member = malloc(sizeof(int) * (size_t)w->size), n;
    struct stat sb;

    if (!member)
        return FAB_ERR_NOMEM;
    n = fab_pairs_members(w, popt, member);
    free(member);
    if (n < 2) {
        snprintf(msg, len,
                 "kernel '%s' measures pairs of %s, and this run has %d (%d rank%s on %d host%s)",
                 k->name, popt->pairs_per ? "ranks" : "nodes", n, w->size, w->size == 1 ? "" : "s",
                 w->nhosts, w->nhosts == 1 ? "" : "s");
        snprintf(hint, hlen, "%s",
                 popt->pairs_per ? "start it with at least 2 ranks"
                                 : "run one rank on each of two or more nodes, or add --pairs-per "
                                   "rank to measure the pairs of ranks within a node");
        return FAB_ERR_CONFIG;
    }
    if (popt->switches) {
        const char *why = NULL;

        if (stat(popt->switches, &sb) != 0)
            why = strerror(errno);
        else if (!S_ISREG(sb.st_mode))
            why = "not a regular file";
        else if (access(popt->switches, R_OK) != 0)
            why = strerror(errno);
        if (why) {
            snprintf(msg, len, "--switches %s: %s", popt->switches, why);
            snprintf(hint, hlen,
                     "name a readable file of 'NODE SWITCH' lines, or leave the "
                     "option out to group nodes by host name");
            return FAB_ERR_CONFIG;
        }
    }
    if (popt->schedule == FAB_SCHED_SHIFT && !fab_kp2p(k)->shift) {
        snprintf(msg, len, "kernel '%s' has no --schedule shift", k->name);
        snprintf(hint, hlen, "use --schedule rounds or serial with it");
        return FAB_ERR_CONFIG;
    }
    if (mopt->sizes.n > 1) {
        snprintf(msg, len, "kernel '%s' measures one message size per pair; -m gives %d", k->name,
                 mopt->sizes.n);
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
    FILE *f = P->popt->switches ? fopen(P->popt->switches, "r") : NULL;
    char line[512], node[256], sw[256], missing[160] = "";
    size_t at = 0;
    int nmissing = 0;

    if (P->popt->switches && !f) {
        snprintf(msg, len, "--switches %s: %s", P->popt->switches, strerror(errno));
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
                 P->popt->switches, nmissing, m->n, missing, nmissing > 4 ? ", ..." : "");
    return FAB_OK;
}

double *fab_nan_matrix(int n)
{
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)n + 1);

    for (size_t i = 0; v && i < (size_t)n * (size_t)n; i++)
        v[i] = NAN;
    return v;
}

/* Rank 0: the matrix, all NaN, with the members' names and groups. */
fab_status_t fab_pairs_matrix_init(fab_pairs_t *P, char *msg, size_t len)
{
    fab_matrix_t *m = &P->m;
    int n = P->n;
    bool lat = P->k->kind == FAB_KIND_LATENCY;

    m->n = n;
    m->names = calloc((size_t)n, sizeof(char *));
    m->world_rank = P->member;
    m->group = malloc(sizeof(int) * (size_t)n);
    m->gnames = calloc((size_t)n, sizeof(char *));
    m->schedule = fab_sched_name((fab_sched_t)P->popt->schedule);
    m->pairs_per = P->popt->pairs_per ? "rank" : "node";
    m->bytes = P->sizes.v[0];
    m->rounds = fab_sched_rounds((fab_sched_t)P->popt->schedule, n);
    m->policy = P->stop.policy == FAB_PSTOP_FIXED  ? "fixed"
                : P->stop.policy == FAB_PSTOP_TIME ? "time"
                                                   : "adaptive";
    m->pair_time_s = P->stop.policy == FAB_PSTOP_FIXED ? NAN : P->stop.time_s;
    m->iterations = m->iterations_max = m->blocks_min = m->warmup = 0;
    m->expect_s = m->most_s = m->seconds = NAN;
    m->lat_p50 = lat ? fab_nan_matrix(n) : NULL;
    m->lat_p99 = lat ? fab_nan_matrix(n) : NULL;
    m->bw = lat ? NULL : fab_nan_matrix(n);
    m->line_pct = lat ? NULL : fab_nan_matrix(n);
    m->round = malloc(sizeof(int) * (size_t)n * (size_t)n + 1);
    m->iters = malloc(sizeof(int) * (size_t)n * (size_t)n + 1);
    m->retest = P->popt->retest && P->popt->schedule != FAB_SCHED_SERIAL;
    m->retests = -1;
    if (m->retest) {
        m->re_lat_p50 = lat ? fab_nan_matrix(n) : NULL;
        m->re_lat_p99 = lat ? fab_nan_matrix(n) : NULL;
        m->re_bw = lat ? NULL : fab_nan_matrix(n);
        m->re_line_pct = lat ? NULL : fab_nan_matrix(n);
        m->re_iters = malloc(sizeof(int) * (size_t)n * (size_t)n + 1);
        if (!m->re_iters || (lat ? !m->re_lat_p50 || !m->re_lat_p99 : !m->re_bw || !m->re_line_pct))
            return FAB_ERR_NOMEM;
        for (int i = 0; i < n * n; i++)
            m->re_iters[i] = -1;
    }
    /* the line rate the verdict uses: a port's between hosts, or one given */
    if (P->nopt->line_rate_gbps > 0 && (P->w->nhosts > 1 || P->nopt->line_rate_given))
        m->line_MBps = P->nopt->line_rate_gbps * 1e3 / 8.0;
    m->bw_frac = P->popt->slow_bw;
    m->lat_factor = P->popt->slow_latency;
    P->all = calloc(2 * (size_t)P->w->size, sizeof(fab_pair_rec_t));
    if (!m->names || !m->group || !m->gnames || !m->round || !m->iters || !P->all ||
        (lat ? !m->lat_p50 || !m->lat_p99 : !m->bw || !m->line_pct))
        return FAB_ERR_NOMEM;
    for (int i = 0; i < n * n; i++)
        m->round[i] = m->iters[i] = -1;
    for (int i = 0; i < n; i++) {
        char buf[FAB_HOST_MAX + 16];

        snprintf(buf, sizeof(buf), P->popt->pairs_per ? "%s:%d" : "%s", P->w->hosts[P->member[i]],
                 P->member[i]);
        m->names[i] = strdup(buf);
        if (!m->names[i])
            return FAB_ERR_NOMEM;
    }
    return fab_pairs_groups(P, msg, len);
}

void fab_pairs_matrix_free(fab_matrix_t *m)
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
    free(m->iters);
    free(m->re_iters);
    free(m->re_lat_p50);
    free(m->re_lat_p99);
    free(m->re_bw);
    free(m->re_line_pct);
}

static fab_fc_mark_t fab_pairs_fc0; /* the kernel's first reading (one kernel at a time) */

void fab_pairs_fabric_mark(fab_pairs_t *P)
{
    fab_fc_mark(&fab_pairs_fc0, P->w->local_rank == 0);
}

fab_status_t fab_pairs_fabric(fab_pairs_t *P)
{
    static fab_fc_mark_t b;
    static fab_fc_acc_t acc;
    static fab_row_t row;
    fab_kctx_t ctx;
    fab_status_t st;

    fab_fc_mark(&b, P->w->local_rank == 0);
    fab_fc_acc_init(&acc);
    fab_fc_add(&acc, &fab_pairs_fc0, &b);
    memset(&ctx, 0, sizeof(ctx));
    ctx.comm = MPI_COMM_WORLD;
    ctx.rank = P->w->rank;
    ctx.size = P->w->size;
    fab_row_clear(&row);
    fab_watch_phase("reading the fabric's counters", P->k->name, 0, -1, 0);
    st = fab_row_fabric(&row, &ctx, &acc);
    if (st == FAB_OK && P->w->rank == 0) {
        snprintf(P->m.err_port, sizeof(P->m.err_port), "%s", row.fab.err_port);
        snprintf(P->m.signals, sizeof(P->m.signals), "%s", row.fab.signals);
    }
    return st;
}
