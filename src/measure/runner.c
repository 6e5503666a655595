/* SPDX-License-Identifier: BSD-3-Clause */
/* The runner: for each kernel and size the iteration policy (a fixed count, or a time budget
 * with calibration), the timed blocks, the cross-rank reduction, statistics and validation.
 * The plan (sizes, buffers) is measure/plan.c, the row's metrics measure/row.c, the hand-over
 * of each row to rank 0's outputs measure/handoff.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/comm.h"
#include "core/launchopts.h"
#include "core/log.h"
#include "core/measopts.h"
#include "core/mpi_call.h"
#include "core/netopts.h"
#include "core/signals.h"
#include "core/sizes.h"
#include "core/status.h"
#include "core/testhook.h"
#include "core/text.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "core/world.h"
#include "kernel/dtype.h"
#include "kernel/fab_kernel.h"
#include "kernel/traits.h"
#include "measure/buffers.h"
#include "measure/cpuload.h"
#include "measure/handoff.h"
#include "measure/measurement.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "measure/row.h"
#include "measure/runner.h"
#include "measure/sink.h"
#include "measure/stats.h"

/* ------------------------------------------------------------------ one kernel */

typedef struct fab_progress {
    uint64_t start, last, prev; /* prev: when the size before ended */
    double prev_took;           /* the time the size before took (0: none yet) */
    int done, total;
} fab_progress_t;

static void fab_progress_update(fab_progress_t *p, const fab_launchopts_t *lopt,
                                const fab_measopts_t *mopt, const fab_kernel_t *k,
                                const fab_sizes_t *sizes, int i)
{
    uint64_t now = fab_now_ns();
    double elapsed = (double)(now - p->start) * 1e-9, took = (double)(now - p->prev) * 1e-9;
    double before = p->prev_took, left;
    char sz[32];

    p->done++;
    p->prev = now;
    p->prev_took = took;
    if (lopt->quiet || p->done == p->total || elapsed < 3.0 || (now - p->last) * 1e-9 < 2.0)
        return;
    p->last = now;
    /* --time: every size takes about its time; -i: larger sizes take longer */
    left = mopt->iters > 0 ? fab_sizes_time_left(sizes, i, took, before)
                           : elapsed / p->done * (p->total - p->done);
    fab_size_format(sizes->v[i], sz, sizeof(sz));
    fab_log_progress("%s %d/%d sizes done (last: %s bytes in %.1f s), %.1f s elapsed, about "
                     "%.0f s left",
                     k->name, p->done, p->total, sz, took, elapsed, left);
}

/* FABRICBENCH_TEST_LIBNBC=1: whether libnbc's progress was registered when a size's
 * measurement ended (core/comm.h); the tests expect it not to be for the point-to-point
 * kernels, whose communicator and harness use no non-blocking collective. */
static void fab_test_libnbc(const fab_kernel_t *k, size_t bytes)
{
    static int cached = -1;

    if (fab_test_switch("FABRICBENCH_TEST_LIBNBC", &cached)) {
        int reg = fab_comm_libnbc_registered();

        FAB_WARN("test: libnbc's progress after %s at %zu bytes: %s", k->name, bytes,
                 reg > 0    ? "registered"
                 : reg == 0 ? "not registered"
                            : "unknown");
    }
}

/* The kernel's communicator: its ranks (a pair, or all), or under --split (fab_krun_split)
 * the rank's group, key the world rank so that each group's rank 0 is its lowest. */
static fab_status_t fab_kernel_comm(const fab_world_t *w, const fab_measopts_t *mopt,
                                    const fab_kernel_t *k, const int *group, MPI_Comm *comm)
{
    bool active = fab_rank_active(k, mopt, w->rank);
    int key = w->rank, color = active ? 0 : MPI_UNDEFINED;

    if (fab_kranks(k) == FAB_RANKS_PAIR)
        key = w->rank == mopt->pair.a ? 0 : 1;
    if (group)
        color = group[w->rank];
    /* not MPI_Comm_split: libnbc's progress would stay registered (core/comm.h) */
    return fab_comm_split(MPI_COMM_WORLD, color, key, comm);
}

/* Rank 0: the row goes to every sink; an output that fails stops the run (exit 3). */
static void fab_root_emit(fab_sinks_t *sinks, const fab_kinst_t *ki, fab_handoff_t *h,
                          const double *samples, size_t n)
{
    if (fab_sinks_row(sinks, ki, &h->row, h->want_samples ? samples : NULL, n) != FAB_OK) {
        FAB_ERROR("an output failed (see above): stopping after the current block; rows "
                  "written before are kept");
        fab_stop_request(FAB_STOP_OUTPUT);
    }
}

/* One kernel's run, on every rank of the run: its communicator, context and state, its
 * measurement (on its ranks), and rank 0's room for rows handed over by another lead. */
typedef struct fab_krun {
    const fab_kinst_t *ki;
    const fab_kernel_t *k; /* ki->k */
    fab_sizes_t tmp;
    const fab_sizes_t *sizes;
    MPI_Comm comm;
    fab_kctx_t ctx;
    fab_measure_t m;
    fab_handoff_t h;
    fab_rounds_t *rounds; /* the adaptive part, on the kernel's ranks */
    void *state;
    bool active, ready;
    int lead; /* this rank's group's lead (world rank): the kernel's lead without --split */
    /* --split: the group of every world rank, and each group's lead (its lowest rank); without
     * it one group, lead r->lead, group NULL */
    int ngroups, *group, *leads;
} fab_krun_t;

/* --split (every rank alike, from the host names all ranks have): the groups, or
 * FAB_ERR_CONFIG (said by rank 0) when they cannot run a collective. */
static fab_status_t fab_krun_split(fab_krun_t *r, const fab_world_t *w, const fab_split_t *sp)
{
    const char *const *hosts = (const char *const *)w->hosts;
    char err[400];

    r->ngroups = 1;
    r->leads = malloc(sizeof(int) * (size_t)w->size);
    if (!r->leads)
        return FAB_ERR_NOMEM;
    r->leads[0] = r->lead;
    if (sp->kind == FAB_SPLIT_NONE)
        return FAB_OK;
    if (fab_split_check(sp, w->size, hosts, err, sizeof(err)) != FAB_OK) {
        if (w->rank == 0)
            FAB_ERROR("--split on %d ranks: %s", w->size, err);
        return FAB_ERR_CONFIG;
    }
    r->group = malloc(sizeof(int) * (size_t)w->size);
    if (!r->group)
        return FAB_ERR_NOMEM;
    r->ngroups = fab_split_groups(sp, w->size, hosts, r->group);
    for (int q = w->size - 1; q >= 0; q--) /* each group's lowest rank */
        r->leads[r->group[q]] = q;
    r->lead = r->leads[r->group[w->rank]];
    return FAB_OK;
}

/* Every rank of the run (collective): set instance ki up. Set-up problems end it on every rank
 * before anything is measured: local steps (allocations) are agreed on before the next
 * collective, so a rank that failed never leaves a peer waiting in one. */
static fab_status_t fab_krun_setup(fab_krun_t *r, const fab_world_t *w, const fab_measopts_t *mopt,
                                   const fab_netopts_t *nopt, const fab_kinst_t *ki)
{
    const fab_kernel_t *k = ki->k;
    fab_status_t st;

    memset(r, 0, sizeof(*r));
    r->ki = ki;
    r->k = k;
    r->comm = MPI_COMM_NULL;
    r->sizes = fab_kernel_sizes(k, mopt, &r->tmp); /* r is not moved after this */
    r->active = fab_rank_active(k, mopt, w->rank);
    r->lead = fab_kranks(k) == FAB_RANKS_PAIR ? mopt->pair.a : 0;
    r->h.want_samples = mopt->samples;
    fab_watch_phase("setting the kernel up", k->name, 0, -1, 0);
    st = fab_krun_split(r, w, &mopt->split);
    if (st == FAB_ERR_CONFIG)
        return st; /* every rank alike, said by rank 0 */
    if (st == FAB_OK)
        st = fab_kernel_comm(w, mopt, k, r->group, &r->comm);
    if (st == FAB_OK && r->active) {
        st = fab_ctx_setup(mopt, nopt, ki, r->sizes, r->comm, &r->ctx, &r->state);
        r->ready = st == FAB_OK;
    }
    if (st == FAB_OK && w->rank == 0 && (r->lead != 0 || r->ngroups > 1) && mopt->samples) {
        r->h.cap = (size_t)mopt->max_samples;
        r->h.samples = malloc(sizeof(double) * (r->h.cap ? r->h.cap : 1));
        st = r->h.samples ? FAB_OK : FAB_ERR_NOMEM;
    }
    st = fab_agree_msg(w, st, st == FAB_OK ? NULL : "kernel set-up failed (see above)", NULL);
    if (st != FAB_OK)
        return st; /* said once, by the agreement */
    if (r->active)
        st = fab_measure_init(&r->m, mopt, k, &r->ctx, r->state); /* collectives, then memory */
    if (st == FAB_OK && r->active && mopt->adaptive)
        st = fab_rounds_new(&r->rounds, &r->m, r->sizes);
    return fab_agree_msg(w, st, st == FAB_OK ? NULL : "kernel set-up failed (see above)", NULL);
}

static void fab_krun_free(fab_krun_t *r)
{
    if (r->ready && r->k->cleanup)
        r->k->cleanup(&r->ctx, r->state);
    free(r->h.samples);
    free(r->group);
    free(r->leads);
    fab_rounds_free(r->rounds);
    fab_measure_free(&r->m);
    fab_ctx_free(&r->ctx);
    if (r->comm != MPI_COMM_NULL)
        MPI_Comm_free(&r->comm);
    memset(r, 0, sizeof(*r));
    r->comm = MPI_COMM_NULL;
}

/* Rank 0: the kernel's begin in the outputs. */
static void fab_krun_begin(const fab_krun_t *r, const fab_launchopts_t *lopt,
                           const fab_measopts_t *mopt, fab_sinks_t *sinks, const fab_world_t *w)
{
    const fab_kernel_t *k = r->k;
    int pair[2] = {mopt->pair.a, mopt->pair.b};
    char detail[512] = "", policy[512];

    if (k->describe && r->active)
        k->describe(&r->ctx, detail, sizeof(detail));
    fab_rounds_policy(lopt, mopt, r->ki, policy, sizeof(policy));
    if (mopt->split.kind != FAB_SPLIT_NONE)
        snprintf(policy + strlen(policy), sizeof(policy) - strlen(policy),
                 "; --split %s: every group runs the call at once on its own communicator, a "
                 "row per group (busbw: the group's size)",
                 mopt->split_text);
    if (fab_sinks_kernel_begin(sinks, r->ki, fab_kranks(k) == FAB_RANKS_PAIR ? pair : NULL, w,
                               detail, policy) != FAB_OK)
        fab_stop_request(FAB_STOP_OUTPUT);
}

/* Sizes a collective rounds to the same value are measured once. (Every rank of a collective
 * is active, so all of them skip alike.) */
static bool fab_krun_same_size(fab_krun_t *r, int i, size_t *last_fitted)
{
    const fab_kernel_t *k = r->k;
    size_t fitted;

    if (!r->active || !fab_kcoll(k)->fit_bytes || fab_kcoll(k)->no_sizes)
        return false;
    fitted = fab_kcoll(k)->fit_bytes(&r->ctx, r->sizes->v[i]);
    if (fitted == *last_fitted)
        return true;
    *last_fitted = fitted;
    return false;
}

/* Size i's row on the kernel's ranks (the fixed policies, or the group g's rounds) into r->h.row,
 * with its samples (*smp, *nsmp); the other ranks wait. */
static fab_status_t fab_krun_measure(fab_krun_t *r, const fab_world_t *w, fab_rgroup_t *g, int j,
                                     int i, const double **smp, size_t *nsmp)
{
    fab_handoff_t *h = &r->h;
    size_t bytes = r->sizes->v[i];
    fab_status_t st = FAB_OK;

    memset(&h->row, 0, sizeof(h->row));
    *smp = r->m.acc.raw;
    *nsmp = r->m.acc.raw_n;
    if (g) {
        st = fab_rgroup_row(g, j, i, r->active ? &h->row : NULL, smp, nsmp);
        if (w->rank == 0 && !r->active)
            fab_watch_idle("waiting for the kernel's rows (rank 0 is not one of its ranks)");
    } else if (r->active) {
        st = fab_measure_size(&r->m, bytes, &h->row);
        fab_test_libnbc(r->k, bytes);
        *smp = r->m.acc.raw;
        *nsmp = r->m.acc.raw_n;
    } else if (w->rank == 0)
        fab_watch_idle("waiting for the kernel's rows (rank 0 is not one of its ranks)");
    else
        fab_watch_idle("waiting while the kernel runs (this rank is not one of its ranks)");
    return st;
}

/* Rank 0: size i's row of the group led by `lead` (received from it when it is another rank)
 * given to the outputs; *stopped: the lead's rounds ended on a stop request. */
static fab_status_t fab_krun_emit(fab_krun_t *r, const fab_world_t *w, const fab_measopts_t *mopt,
                                  const fab_netopts_t *nopt, fab_sinks_t *sinks, int lead,
                                  const double *smp, size_t nsmp, fab_row_notes_t *notes,
                                  int *stopped)
{
    const fab_kernel_t *k = r->k;
    fab_handoff_t *h = &r->h;

    if (lead != 0) {
        smp = h->samples;
        nsmp = h->nsamples;
    }
    fab_row_close(&h->row, w, mopt, nopt, r->ki);
    fab_watch_phase("writing the row", k->name, h->row.bytes, -1, 0);
    fab_root_emit(sinks, r->ki, h, smp, nsmp);
    if (h->row.stop_status)
        *stopped = h->row.stop_status;
    fab_row_notes_add(notes, r->ki, &h->row);
    return lead != 0 ? fab_handoff_answer(lead) : FAB_OK;
}

/* Rank 0, --split: group g's name and members in its row. */
static void fab_krun_group_row(const fab_krun_t *r, const fab_world_t *w,
                               const fab_measopts_t *mopt, int g, fab_row_t *row)
{
    if (!r->group)
        return;
    fab_split_name(&mopt->split, w->size, (const char *const *)w->hosts, g, row->group,
                   sizeof(row->group));
    fab_split_members(w->size, r->group, g, row->group_ranks, sizeof(row->group_ranks));
}

/* Rank 0: size i's rows, one per group (its own first: rank 0 leads group 0), each received
 * from its lead when another rank, given to the outputs. A lead whose rounds stopped sends an
 * empty row (iters 0): the others are still received, then the stop is returned. */
static fab_status_t fab_krun_collect(fab_krun_t *r, const fab_world_t *w,
                                     const fab_launchopts_t *lopt, const fab_measopts_t *mopt,
                                     const fab_netopts_t *nopt, fab_sinks_t *sinks, int i,
                                     const double *smp, size_t nsmp, fab_row_notes_t *notes,
                                     fab_progress_t *prog, int *stopped)
{
    fab_status_t st = FAB_OK, gst;
    bool empty = false;

    for (int g = 0; g < r->ngroups && st == FAB_OK; g++) {
        int lead = r->leads[g];

        if (lead != 0)
            st = fab_handoff_recv(&r->h, lead, r->active);
        if (st != FAB_OK)
            break;
        if (r->h.row.iters == 0) {
            empty = true;
            continue;
        }
        if (empty)
            continue; /* a group stopped: no partial size in the outputs */
        fab_krun_group_row(r, w, mopt, g, &r->h.row);
        gst = fab_krun_emit(r, w, mopt, nopt, sinks, lead, smp, nsmp, notes, stopped);
        if (gst != FAB_OK)
            st = gst;
    }
    if (st == FAB_OK && empty)
        return fab_stop_status(fab_stop_flag ? fab_stop_flag : FAB_STOP_SIGNAL);
    if (st == FAB_OK && !mopt->adaptive) /* the rounds say how far they are themselves */
        fab_progress_update(prog, lopt, mopt, r->k, r->sizes, i);
    return st;
}

/* The kernel's end, its rows having ended with st: every rank agrees (unless a rank failed),
 * rank 0 reports the rows' notes and ends the kernel in the outputs. */
static fab_status_t fab_krun_end(fab_krun_t *r, const fab_world_t *w, fab_sinks_t *sinks,
                                 fab_rgroup_t *g, fab_status_t st, int stopped,
                                 fab_row_notes_t *notes, bool *agreed)
{
    const fab_kernel_t *k = r->k;

    if (st == FAB_OK && g)
        st = fab_rgroup_status(g); /* rows measured before a stop were kept */
    if (st == FAB_OK && stopped)
        st = (fab_status_t)stopped; /* rank 0 outside the kernel: the lead's stop */
    if (st == FAB_OK || st == FAB_ERR_INTERRUPTED || st == FAB_ERR_IO) {
        fab_status_t bst;

        if (r->active || w->rank == 0)
            fab_watch_phase("agreeing with every rank on the kernel's end", k->name, 0, -1, 0);
        bst = fab_idle_barrier(MPI_COMM_WORLD);

        *agreed = bst == FAB_OK;
        if (bst != FAB_OK)
            st = bst;
    }
    if (w->rank == 0 && fab_row_notes_report(notes, k) && st == FAB_OK)
        st = FAB_ERR_VALIDATION;
    if (w->rank == 0 && fab_sinks_kernel_end(sinks, r->ki, st) != FAB_OK)
        fab_stop_request(FAB_STOP_OUTPUT);
    return st;
}

/* Every rank of the run: the kernel's rows, each measured (the fixed policies, or the
 * group g's rounds, the kernel being its j-th) and handed to rank 0, which gives it to the
 * outputs between the kernel's begin and end. */
static fab_status_t fab_krun_rows(fab_krun_t *r, const fab_world_t *w, const fab_launchopts_t *lopt,
                                  const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                                  fab_sinks_t *sinks, fab_rgroup_t *g, int j, bool *agreed)
{
    const fab_sizes_t *sizes = r->sizes;
    fab_handoff_t *h = &r->h;
    int lead = r->lead; /* this rank's group's */
    fab_row_notes_t notes;
    size_t last_fitted = 0;
    fab_progress_t prog = {fab_now_ns(), fab_now_ns(), fab_now_ns(), 0.0, 0, sizes->n};
    int stopped = 0; /* rank 0: a row said the lead's rounds ended on a stop request */
    fab_status_t st = FAB_OK, kst;

    fab_row_notes_init(&notes);
    if (fab_kranks(r->k) == FAB_RANKS_PAIR) {
        notes.pair[0] = mopt->pair.a;
        notes.pair[1] = mopt->pair.b;
    }
    if (w->rank == 0)
        fab_krun_begin(r, lopt, mopt, sinks, w);
    *agreed = false; /* from here on a failure is known only where it happened */
    for (int i = 0; i < sizes->n && st == FAB_OK; i++) {
        const double *smp;
        size_t nsmp;

        if (fab_krun_same_size(r, i, &last_fitted))
            continue;
        st = fab_krun_measure(r, w, g, j, i, &smp, &nsmp);
        /* A stop agreed among the kernel's ranks: the lead tells rank 0 there is no row. */
        kst = st;
        if (st == FAB_ERR_INTERRUPTED || st == FAB_ERR_IO)
            memset(&h->row, 0, sizeof(h->row));
        else if (st != FAB_OK)
            break;
        if (w->rank == lead && lead != 0) {
            fab_watch_phase("handing the row to rank 0", r->k->name, sizes->v[i], 0, 0);
            st = fab_handoff_send(h, smp, nsmp);
        } else if (w->rank == 0)
            st = fab_krun_collect(r, w, lopt, mopt, nopt, sinks, i, smp, nsmp, &notes, &prog,
                                  &stopped);
        if (st != FAB_OK)
            break;
        if (kst != FAB_OK)
            st = kst;
    }
    return fab_krun_end(r, w, sinks, g, st, stopped, &notes, agreed);
}

/* A kernel measured alone: the fixed policies, a kernel with buffers of its own (the pairs
 * kernels are pairs/pairs.c's, run by the caller). */
static fab_status_t fab_run_alone(const fab_world_t *w, const fab_launchopts_t *lopt,
                                  const fab_measopts_t *mopt, const fab_netopts_t *nopt, int i,
                                  fab_sinks_t *sinks, bool *agreed)
{
    const fab_kinst_t *ki = &lopt->kernels[i];
    const fab_kernel_t *k = ki->k;
    fab_krun_t r;
    fab_rgroup_t *g = NULL;
    fab_status_t st;

    *agreed = true;
    st = fab_krun_setup(&r, w, mopt, nopt, ki);
    if (lopt->ladder && k->layer && strncmp(k->layer, "mpi_", 4) == 0 && st == FAB_ERR_ENV) {
        /* `run ladder` measures each layer available: a one-sided layer whose window the osc
         * component Open MPI chose cannot make (rma/rma.c says so with FAB_ERR_ENV) is left
         * out, its error said above and the ladder's table naming it (the one-sided kernels run
         * alone: their window is their own memory). The status is every rank's: fab_krun_setup
         * agreed it. The kernel's cleanup takes the state its failed set-up left (its buffers;
         * no window), since the run goes on. */
        if (w->rank == 0)
            FAB_WARN("run ladder: layer %s (kernel %s) not measured: this MPI could not make "
                     "its window (the error above); the other layers go on",
                     k->layer, k->name);
        r.ready = r.state != NULL;
        fab_krun_free(&r);
        return FAB_OK;
    }
    if (st == FAB_OK && mopt->adaptive) {
        /* every rank alike: from the same clock start */
        double cap, budget = fab_rounds_budget_take(lopt, mopt, i, 1, &cap);

        st = fab_rgroup_new(&g, 1, budget, cap, lopt->quiet);
        if (st == FAB_OK)
            st = fab_rgroup_add(g, 0, k, r.sizes->n, r.rounds, fab_plan_ranks(k, w) == w->size,
                                r.lead);
        st = fab_agree_msg(w, st, st == FAB_OK ? NULL : "kernel set-up failed (see above)", NULL);
    }
    if (st == FAB_OK)
        st = fab_krun_rows(&r, w, lopt, mopt, nopt, sinks, g, 0, agreed);
    if (g && w->rank == 0)
        fab_rgroup_report(g);
    fab_rgroup_free(g);
    fab_krun_free(&r);
    return st;
}

/* The pool of message buffers (measure/buffers.c) grows by mapping anew: before the group's
 * kernels point into it, it must hold the largest of them. Every rank of the run. */
static fab_status_t fab_group_buffers(const fab_world_t *w, const fab_launchopts_t *lopt,
                                      const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                                      int first, int n)
{
    size_t most = 0;
    bool active = false;
    char *sbuf, *rbuf;

    for (int j = first; j < first + n; j++) {
        const fab_kernel_t *k = lopt->kernels[j].k;
        fab_sizes_t tmp;
        fab_kctx_t ctx;

        if (!fab_rank_active(k, mopt, w->rank))
            continue;
        active = true;
        memset(&ctx, 0, sizeof(ctx));
        if (fab_plan_ctx(&lopt->kernels[j], mopt, nopt, fab_plan_ranks(k, w),
                         fab_kernel_sizes(k, mopt, &tmp), &ctx) == FAB_OK &&
            (size_t)ctx.slots * ctx.max_bytes > most)
            most = (size_t)ctx.slots * ctx.max_bytes;
        fab_dtype_free(&ctx.dtype);
    }
    if (!active || most == 0 || fab_buffers_get(most, &sbuf, &rbuf) == FAB_OK)
        return FAB_OK;
    FAB_ERROR("cannot allocate %zu bytes of message buffers for the kernels measured together",
              2 * most);
    return FAB_ERR_NOMEM;
}

/* Kernels first .. first+n-1 measured together (fab_rounds_group): set up at once, their
 * rounds shared, their rows given to the outputs kernel after kernel, each as soon as its
 * turn comes and it has stopped. After a stop request every kernel that has a measured size
 * still gets its rows (the outputs keep what was measured); one that has none is left out. */
static fab_status_t fab_run_group(const fab_world_t *w, const fab_launchopts_t *lopt,
                                  const fab_measopts_t *mopt, const fab_netopts_t *nopt, int first,
                                  int n, fab_sinks_t *sinks, bool *agreed)
{
    fab_krun_t *r = calloc((size_t)n, sizeof(*r));
    fab_rgroup_t *g = NULL;
    double budget, cap;
    int set = 0;
    fab_status_t st = r ? FAB_OK : FAB_ERR_NOMEM, worst = FAB_OK;

    *agreed = true;
    if (st == FAB_OK)
        st = fab_group_buffers(w, lopt, mopt, nopt, first, n);
    st = fab_agree_msg(w, st, st == FAB_OK ? NULL : "kernel set-up failed (see above)", NULL);
    for (; set < n && st == FAB_OK; set++)
        st = fab_krun_setup(&r[set], w, mopt, nopt, &lopt->kernels[first + set]);
    if (st == FAB_OK) {
        /* From now: the set-up's time came out of the budget (as a lone kernel's does), and
         * rank 0's clock, which decides, starts the rounds' deadline after it. */
        budget = fab_rounds_budget_take(lopt, mopt, first, n, &cap);
        st = fab_rgroup_new(&g, n, budget, cap, lopt->quiet);
        for (int j = 0; j < n && st == FAB_OK; j++)
            st = fab_rgroup_add(g, j, r[j].k, r[j].sizes->n, r[j].rounds,
                                fab_plan_ranks(r[j].k, w) == w->size, r[j].lead);
        st = fab_agree_msg(w, st, st == FAB_OK ? NULL : "kernel set-up failed (see above)", NULL);
    }
    for (int j = 0; j < n && st == FAB_OK; j++) {
        fab_status_t kst;

        if (fab_rgroup_status(g) != FAB_OK && !fab_rgroup_measured(g, j))
            continue;
        kst = fab_krun_rows(&r[j], w, lopt, mopt, nopt, sinks, g, j, agreed);
        if (!*agreed)
            st = kst;
        else {
            fab_watch_phase("agreeing with every rank after the kernel", r[j].k->name, 0, -1, 0);
            kst = fab_agree(kst, MPI_COMM_WORLD);
            /* Findings and a stop do not end the group: its measured rows are kept. */
            if (kst != FAB_OK && kst != FAB_ERR_VALIDATION && kst != FAB_ERR_SUSPECT &&
                kst != FAB_ERR_INTERRUPTED)
                st = kst;
            else if (kst < worst)
                worst = kst;
        }
    }
    if (g && w->rank == 0)
        fab_rgroup_report(g);
    fab_rgroup_free(g);
    for (int j = 0; r && j < set; j++)
        fab_krun_free(&r[j]);
    free(r);
    return st != FAB_OK ? st : worst;
}

fab_status_t fab_run_kernels_at(const fab_world_t *w, const fab_launchopts_t *lopt,
                                const fab_measopts_t *mopt, const fab_netopts_t *nopt, int i,
                                int *count, fab_sinks_t *sinks, bool *agreed)
{
    int first, n;

    /* The pairs kernels are pairs/'s (fab_run_pairs), which measure/ does not name. */
    if (fab_kranks(lopt->kernels[i].k) == FAB_RANKS_NODES) {
        FAB_ERROR("kernel '%s' is a pairs kernel: fab_run_pairs runs it, not fab_run_kernels_at "
                  "(this is a bug)",
                  lopt->kernels[i].k->name);
        *count = 1;
        return FAB_ERR_INTERNAL;
    }
    n = fab_rounds_group(lopt, mopt, i, &first);
    if (first != i)
        n = 1; /* not the start of its group (not asked so by the caller) */
    *count = n;
    if (n > 1)
        return fab_run_group(w, lopt, mopt, nopt, i, n, sinks, agreed);
    return fab_run_alone(w, lopt, mopt, nopt, i, sinks, agreed);
}
