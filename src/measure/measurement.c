/* SPDX-License-Identifier: BSD-3-Clause */
/* The steps of measuring a kernel's sizes (measure/measurement.h): untimed and timed
 * iterations, a timed block and its cross-rank reduction, the fixed policies (a count, or a
 * time budget with calibration), validation, and the measurement's state. The adaptive
 * rounds are measure/rounds.c; the kernel's run and its rows measure/runner.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/measopts.h"
#include "core/mpi_call.h"
#include "core/signals.h"
#include "core/status.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "core/world.h"
#include "kernel/fab_kernel.h"
#include "kernel/traits.h"
#include "measure/cpuload.h"
#include "measure/measurement.h"
#include "measure/plan.h"
#include "measure/row.h"
#include "measure/stats.h"

#define FAB_CALIB_SHARE 0.05 /* each calibration round lasts at least this share of --time */

/* ------------------------------------------------------------------ measuring one size */

void fab_measure_phase(const fab_measure_t *m, const char *phase, size_t bytes, double step_s)
{
    fab_watch_phase(phase, m->k->name, bytes, m->peer, step_s);
}

fab_status_t fab_iterate_n(fab_measure_t *m, size_t bytes, uint64_t n)
{
    fab_status_t st = FAB_OK;

    for (uint64_t i = 0; i < n && st == FAB_OK; i++) {
        if (m->straggle_s > 0)
            fab_coll_compute(m->straggle_s);
        st = m->k->iterate(m->ctx, m->state, bytes);
        if (st == FAB_OK && m->barrier)
            st = FAB_MPI(MPI_Barrier(m->ctx->comm));
        fab_watch_tick();
    }
    return st;
}

fab_status_t fab_sync_max(MPI_Comm comm, double *v, int *code)
{
    double in[3] = {*v, (double)fab_stop_flag, code ? (double)*code : 0.0}, out[3];
    fab_status_t st = FAB_MPI(MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, comm));

    if (st != FAB_OK)
        return st;
    *v = out[0];
    if (code)
        *code = (int)out[2];
    if (out[1] > 0) {
        fab_stop_request((int)out[1]);
        return fab_stop_status((int)out[1]);
    }
    return FAB_OK;
}

fab_status_t fab_timed_round(fab_measure_t *m, size_t bytes, uint64_t n, double *elapsed)
{
    uint64_t t0 = fab_ticks();
    fab_status_t st = fab_iterate_n(m, bytes, n);

    *elapsed = m->ctx->timer ? fab_ticks_to_s(fab_ticks() - t0) : 0.0;
    return st != FAB_OK ? st : fab_sync_max(m->ctx->comm, elapsed, NULL);
}

/* Decide the number of timed iterations; run the warm-up (and calibration) iterations. */
static fab_status_t fab_plan_size(fab_measure_t *m, size_t bytes, uint64_t *iters, uint64_t *warm)
{
    const fab_measopts_t *mopt = m->mopt;
    uint64_t k = 1;
    double t = 0.0, prev = 0.0;
    fab_status_t st = FAB_OK;

    /* An iteration's time, guessed from the previous size until calibration measures it. */
    m->per_iter = 0.0;
    fab_measure_phase(m, "warm-up and calibration", bytes,
                      m->last_bytes
                          ? m->last_per_iter *
                                (bytes > m->last_bytes ? (double)bytes / m->last_bytes : 1.0)
                          : 0.0);
    if (mopt->iters > 0) {
        *iters = (uint64_t)mopt->iters;
        *warm = fab_plan_warmup(mopt);
        st = fab_timed_round(m, bytes, *warm, &t);
        if (*warm > 0)
            m->per_iter = t / (double)*warm;
        return st;
    }
    *warm = fab_plan_warmup(mopt);
    st = fab_iterate_n(m, bytes, *warm);
    /* Calibrate: double the round until it lasts FAB_CALIB_SHARE of the budget (at least two
     * rounds, so the estimate never comes from the very first, cold, iteration alone). */
    for (int round = 0; st == FAB_OK; round++, k *= 2) {
        double per;

        st = fab_timed_round(m, bytes, k, &t);
        *warm += k;
        /* The faster of the last two rounds: one stalled round must not shrink the count. */
        per = t / (double)k;
        m->per_iter = round == 0 || per < prev ? per : prev;
        prev = per;
        if ((t >= FAB_CALIB_SHARE * mopt->time_s && round >= 1) || k >= (uint64_t)mopt->max_iters)
            break;
    }
    if (st == FAB_OK) {
        double want;

        want = m->per_iter > 0 ? mopt->time_s / m->per_iter : (double)mopt->max_iters;
        if (want < (double)mopt->min_iters)
            want = (double)mopt->min_iters;
        if (want > (double)mopt->max_iters)
            want = (double)mopt->max_iters;
        *iters = (uint64_t)llround(want);
    }
    return st;
}

/* Iterations in the next block: about FAB_BLOCK_SECONDS of work, so a stop request is
 * answered within that, and at most FAB_BLOCK. */
static uint64_t fab_block_len(const fab_measure_t *m, uint64_t left)
{
    double want = m->per_iter > 0 ? FAB_BLOCK_SECONDS / m->per_iter : 1.0;
    uint64_t b = want < 1.0 ? 1 : (want > FAB_BLOCK ? FAB_BLOCK : (uint64_t)want);

    if (fab_kbudget(m->k)->whole_block) /* all of the row at once, as far as a block holds */
        b = FAB_BLOCK;

    return b < left ? b : left;
}

/* Each call timed alone: --sync barrier (OSU's loop: an untimed barrier of the kernel's ranks
 * after each call), or --straggle's rank (its busy delay before each call, outside the call).
 * block[i] a call's time, block[b] their sum, and the wall time, delays and barriers
 * included, apart; the calls' entries are the arrivals. */
static fab_status_t fab_block_alone(fab_measure_t *m, size_t bytes, uint64_t b)
{
    fab_kctx_t *ctx = m->ctx;
    uint64_t *stamp = m->stamps, *enter = m->enter, w0 = fab_ticks();
    double sum = 0.0;
    fab_status_t st = FAB_OK;

    for (uint64_t i = 0; i < b && st == FAB_OK; i++) {
        if (m->straggle_s > 0)
            fab_coll_compute(m->straggle_s);
        enter[i] = fab_ticks();
        st = m->k->iterate(ctx, m->state, bytes);
        stamp[i] = fab_ticks() - enter[i];
        if (st == FAB_OK && m->barrier)
            st = FAB_MPI(MPI_Barrier(ctx->comm));
        fab_watch_tick();
    }
    /* like the block's total in the loop without barriers: the timing ranks' (0 elsewhere) */
    m->block_wall = ctx->timer ? fab_ticks_to_s(fab_ticks() - w0) : 0.0;
    for (uint64_t i = 0; i < b; i++) {
        m->block[i] = ctx->timer ? fab_ticks_to_s(stamp[i]) : 0.0;
        sum += m->block[i];
        if (m->arrive)
            m->arrival[i] = fab_ticks_to_s(enter[i] - w0);
    }
    m->block[b] = sum;
    return st;
}

/* Timestamps are contiguous: the end of iteration i is the start of i+1, so one timer
 * reading (on timing ranks only) is all the loop adds to an iteration. */
fab_status_t fab_block_once(fab_measure_t *m, size_t bytes, uint64_t b, const double **samples)
{
    fab_kctx_t *ctx = m->ctx;
    uint64_t *stamp = m->stamps;
    fab_status_t st = FAB_OK;

    *samples = m->block;
    if (m->arrive) /* the arrivals' clock: every rank's block starts as the barrier ends */
        st = FAB_MPI(MPI_Barrier(ctx->comm));
    if (st != FAB_OK)
        return st;
    if (m->barrier || (m->straggle_s > 0 && ctx->timer)) {
        st = fab_block_alone(m, bytes, b);
        if (st != FAB_OK)
            return st;
    } else if (ctx->timer) {
        stamp[0] = fab_ticks();
        for (uint64_t i = 0; i < b; i++) {
            st = m->k->iterate(ctx, m->state, bytes);
            if (st != FAB_OK)
                return st;
            stamp[i + 1] = fab_ticks();
            fab_watch_tick(); /* a plain store: the watchdog sees a slow block progress */
        }
        for (uint64_t i = 0; i < b; i++)
            m->block[i] = fab_ticks_to_s(stamp[i + 1] - stamp[i]);
        m->block[b] = m->block_wall = fab_ticks_to_s(stamp[b] - stamp[0]);
        for (uint64_t i = 0; m->arrive && i < b; i++) /* back to back: a call enters as the */
            m->arrival[i] = fab_ticks_to_s(stamp[i] - stamp[0]); /* previous one returns */
    } else {
        for (uint64_t i = 0; i < b; i++) {
            if (m->straggle_s > 0) /* a rank that does not time straggles as well */
                fab_coll_compute(m->straggle_s);
            st = m->k->iterate(ctx, m->state, bytes);
            if (st != FAB_OK)
                return st;
            fab_watch_tick();
        }
        memset(m->block, 0, sizeof(double) * (b + 1));
        m->block_wall = 0.0;
    }
    fab_watch_pace(0); /* the block's end: a rank may wait here for the slowest one's block */
    if (!m->reduce)
        return FAB_OK;
    /* Per iteration: the slowest timing rank's time, and which rank that was. */
    for (uint64_t i = 0; i <= b; i++) {
        m->pin[i].v = m->block[i];
        m->pin[i].rank = ctx->rank;
    }
    st = FAB_MPI(MPI_Reduce(m->pin, m->pout, (int)b + 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, ctx->comm));
    if (st == FAB_OK && ctx->rank == 0)
        for (uint64_t i = 0; i <= b; i++) {
            m->reduced[i] = m->pout[i].v;
            if (i < b)
                m->slow_count[m->pout[i].rank]++;
        }
    if (st == FAB_OK && m->arrive)
        st = fab_arrival_reduce(&m->ared, m->arrival, b, ctx->rank, ctx->comm, m->arr);
    *samples = m->reduced;
    return st;
}

/* The fixed policies' timed blocks, *iters in all. Under --time a size whose blocks have
 * taken FAB_TIME_OVERRUN x SEC (the machine slowed after the calibration) stops at that
 * block's end, with at least --min-iters: *iters is then what was measured. Every rank
 * agrees without a word more: the blocks' times are the reduced ones. */
#define FAB_TIME_OVERRUN 2.0
static fab_status_t fab_timed_blocks(fab_measure_t *m, size_t bytes, uint64_t *iters,
                                     fab_load_t *load)
{
    fab_kctx_t *ctx = m->ctx;
    const fab_measopts_t *mopt = m->mopt;
    double spent = 0.0, last = 0.0;
    uint64_t done = 0;
    fab_status_t st = FAB_OK;

    while (done < *iters && st == FAB_OK) {
        uint64_t b = fab_block_len(m, *iters - done);
        const double *src = NULL;
        double block_time;

        fab_measure_phase(m, "a timed block", bytes, m->per_iter * (double)b);
        fab_watch_pace(m->per_iter); /* each iteration ticks: a stopped peer is found soon */
        st = fab_block_once(m, bytes, b, &src);
        if (m->node_sampler && load)
            fab_load_sample(load); /* the node's runnable tasks, at each block's end */
        if (st == FAB_OK && ctx->rank == 0) {
            for (uint64_t i = 0; i < b; i++)
                fab_acc_add(&m->acc, src[i]);
            m->acc.loop_total += src[b];
        }
        if (st == FAB_OK && ctx->timer) { /* this rank's own time: the peers' definitions */
            m->own_s += m->block[b];
            m->own_n += b;
        }
        /* Block end: agree on the next block's length and on whether to stop. */
        block_time = m->block_wall;
        if (st == FAB_OK)
            st = fab_sync_max(ctx->comm, &block_time, NULL);
        if (block_time > 0)
            m->per_iter = block_time / (double)b;
        done += b;
        spent += block_time;
        last = block_time;
        if (mopt->iters == 0 && mopt->time_s > 0 && spent >= FAB_TIME_OVERRUN * mopt->time_s &&
            done >= (uint64_t)mopt->min_iters && done < *iters) {
            FAB_DEBUG("%s %zu bytes: stopped after %llu of %llu iterations (%.3g s, --time %g)",
                      m->k->name, bytes, (unsigned long long)done, (unsigned long long)*iters,
                      spent, mopt->time_s);
            *iters = done;
        }
    }
    /* The timed blocks' total and their last block (a pause of a rank longer than the total
     * was not inside them; one in the last block had nothing left to cut). */
    if (st == FAB_OK)
        FAB_DEBUG("%s %zu bytes: %llu iterations timed in %.3g s (the last block %.3g s)",
                  m->k->name, bytes, (unsigned long long)done, spent, last);
    return st;
}

fab_status_t fab_validate_size(fab_measure_t *m, size_t bytes, long *errors)
{
    long mine = 0;
    fab_status_t st = FAB_OK;

    fab_measure_phase(m, "validation", bytes, m->per_iter);
    for (uint32_t r = 0; r < FAB_VALIDATE_ROUNDS && st == FAB_OK; r++)
        st = m->k->validate(m->ctx, m->state, bytes, (uint32_t)bytes * 2654435761u + r, &mine);
    if (st != FAB_OK)
        return st;
    return FAB_MPI(MPI_Allreduce(&mine, errors, 1, MPI_LONG, MPI_SUM, m->ctx->comm));
}

/* Rank 0: no iteration counted yet for the rank that was slowest in it. */
static void fab_slow_reset(fab_measure_t *m)
{
    if (m->slow_count)
        memset(m->slow_count, 0, sizeof(uint64_t) * (size_t)m->ctx->size);
    fab_arrival_reset(&m->arr_own);
}

/* --overlap-compute: first the call alone (its time is the reference, *comm_mean), then with
 * the compute between start and wait (ctx->compute_s, for the row's blocks). */
static fab_status_t fab_overlap_reference(fab_measure_t *m, size_t bytes, uint64_t *iters,
                                          uint64_t *warm, double *comm_mean)
{
    fab_kctx_t *ctx = m->ctx;
    fab_status_t st;

    ctx->compute_s = 0.0;
    st = fab_plan_size(m, bytes, iters, warm);
    if (st == FAB_OK)
        st = fab_timed_blocks(m, bytes, iters, NULL);
    *comm_mean = m->acc.mean;
    fab_acc_reset(&m->acc);
    fab_slow_reset(m);
    ctx->compute_s = m->mopt->overlap_us * 1e-6;
    return st;
}

/* The row's iterations planned (warm-up and calibration included), then every rank starts the
 * timed blocks together. */
static fab_status_t fab_plan_together(fab_measure_t *m, size_t bytes, uint64_t *iters,
                                      uint64_t *warm)
{
    fab_status_t st = fab_plan_size(m, bytes, iters, warm);

    if (st == FAB_OK) {
        double none = 0.0;

        st = fab_sync_max(m->ctx->comm, &none, NULL);
    }
    FAB_DEBUG("%s %zu bytes: %llu iterations, %llu warm-up, %.3g us per iteration estimated",
              m->k->name, bytes, (unsigned long long)*iters, (unsigned long long)*warm,
              m->per_iter * 1e6);
    return st;
}

/* Rank 0: the row from the timed samples. */
static void fab_row_fill(fab_measure_t *m, size_t bytes, uint64_t iters, uint64_t warm,
                         double comm_mean, fab_row_t *row)
{
    row->bytes = bytes;
    row->warmup = warm;
    fab_row_samples(row, m->k, m->ctx, &m->acc, iters, comm_mean, m->slow_count,
                    m->arrive ? &m->arr_own : NULL);
}

fab_status_t fab_measure_size(fab_measure_t *m, size_t bytes, fab_row_t *row)
{
    fab_kctx_t *ctx = m->ctx;
    double comm_mean = NAN;
    uint64_t iters = 0, warm = 0;
    fab_cpu_mark_t cpu0, cpu1;
    static fab_fc_mark_t f0, f1; /* large: one pair for the process (one thread measures) */
    static fab_fc_acc_t fc;
    fab_load_t load = {0, 0};
    double kc0[FAB_KCOL_MAX], kc1[FAB_KCOL_MAX], kc[FAB_KCOL_MAX], first[FAB_KCOL_MAX];
    fab_status_t st;

    fab_row_clear(row);
    fab_acc_reset(&m->acc);
    fab_watch_take_stall(); /* a stall before this size is not this row's */
    fab_slow_reset(m);
    if (fab_kcoll(m->k)->fit_bytes)
        bytes = fab_kcoll(m->k)->fit_bytes(ctx, bytes);
    if (ctx->nonblocking && m->mopt->overlap_us > 0) {
        st = fab_overlap_reference(m, bytes, &iters, &warm, &comm_mean);
        if (st != FAB_OK)
            return st;
    }
    st = fab_plan_together(m, bytes, &iters, &warm);
    ctx->bytes = bytes;
    m->own_s = 0.0; /* not --overlap-compute's call alone */
    m->own_n = 0;
    /* The timed blocks between marks of the kernel's counters and the CPU's time. */
    fab_kc_mark(m->k, ctx, m->state, kc0);
    fab_fc_mark(&f0, m->node_sampler);
    fab_cpu_mark(&cpu0, m->node_sampler);
    if (st == FAB_OK)
        st = fab_timed_blocks(m, bytes, &iters, &load);
    fab_cpu_mark(&cpu1, m->node_sampler);
    fab_fc_mark(&f1, m->node_sampler);
    fab_kc_mark(m->k, ctx, m->state, kc1);
    for (int j = 0; j < FAB_KCOL_MAX; j++)
        kc[j] = first[j] = NAN;
    fab_kc_add(m->k, kc, first, kc0, kc1);
    if (st == FAB_OK) {
        fab_measure_phase(m, "letting the row's traffic arrive", bytes, FAB_SETTLE_S);
        st = fab_kc_settle(m->k, ctx, m->state, bytes, kc, first);
    }
    if (st == FAB_OK)
        st = fab_row_cpu(row, ctx, &cpu0, &cpu1, &load);
    fab_fc_acc_init(&fc);
    fab_fc_add(&fc, &f0, &f1);
    if (st == FAB_OK)
        st = fab_row_fabric(row, ctx, &fc);
    if (st == FAB_OK)
        st = fab_row_stall(row, ctx, fab_watch_take_stall());
    if (st == FAB_OK)
        st = fab_row_counters(row, m->k, ctx, kc);
    if (st == FAB_OK)
        st = fab_row_peers(row, ctx, fab_own_mean(m->k, m->own_s, m->own_n));
    m->last_per_iter = m->per_iter;
    m->last_bytes = bytes;
    row->validation_errors = -1;
    if (st == FAB_OK && m->mopt->validate && m->k->validate)
        st = fab_validate_size(m, bytes, &row->validation_errors);
    if (st == FAB_OK && ctx->rank == 0)
        fab_row_fill(m, bytes, iters, warm, comm_mean, row);
    return st;
}

fab_status_t fab_measure_init(fab_measure_t *m, const fab_measopts_t *mopt, const fab_kernel_t *k,
                              fab_kctx_t *ctx, void *state)
{
    int timer = ctx->timer, ntimers = 0, lead_timer = ctx->timer;
    fab_status_t st;

    memset(m, 0, sizeof(*m));
    m->ared.type = MPI_DATATYPE_NULL;
    m->ared.op = MPI_OP_NULL;
    m->mopt = mopt;
    m->k = k;
    m->peer = fab_kranks(k) != FAB_RANKS_PAIR ? -1 : ctx->rank == 0 ? mopt->pair.b : mopt->pair.a;
    m->ctx = ctx;
    m->state = state;
    m->barrier = mopt->sync == FAB_SYNC_BARRIER;
    st = FAB_MPI(MPI_Allreduce(&timer, &ntimers, 1, MPI_INT, MPI_SUM, ctx->comm));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Bcast(&lead_timer, 1, MPI_INT, 0, ctx->comm));
    if (st != FAB_OK)
        return st;
    m->reduce = !(ntimers == 1 && lead_timer);
    m->arrive = k->kind == FAB_KIND_COLLECTIVE && ctx->size >= 2 && ntimers == ctx->size;
    {
        fab_straggle_t sg;
        char err[256];
        int me = -1;

        MPI_Comm_rank(MPI_COMM_WORLD, &me); /* --straggle names a world rank */
        if (fab_straggle_parse(mopt->straggle, &sg, err, sizeof(err)) == FAB_OK && sg.rank >= 0 &&
            sg.rank == me)
            m->straggle_s = sg.delay_s;
    }
    {
        /* The node's sampler is the kernel's lowest rank on this host: the hosts' ids of the
         * kernel's ranks, rather than a communicator of its own (core/world.h). */
        int id = fab_world_node_id(), *ids = malloc(sizeof(int) * (size_t)ctx->size);

        st = fab_agree(ids ? FAB_OK : FAB_ERR_NOMEM, ctx->comm);
        if (st == FAB_OK)
            st = FAB_MPI(MPI_Allgather(&id, 1, MPI_INT, ids, 1, MPI_INT, ctx->comm));
        m->node_sampler = true;
        for (int r = 0; st == FAB_OK && r < ctx->rank; r++)
            if (ids[r] == id)
                m->node_sampler = false;
        free(ids);
        if (st != FAB_OK)
            return st;
    }
    m->block = malloc(sizeof(double) * (FAB_BLOCK + 1));
    m->stamps = malloc(sizeof(uint64_t) * (FAB_BLOCK + 1));
    m->reduced = m->reduce && ctx->rank == 0 ? malloc(sizeof(double) * (FAB_BLOCK + 1)) : NULL;
    if (m->reduce) {
        m->pin = malloc(sizeof(*m->pin) * (FAB_BLOCK + 1));
        m->pout = ctx->rank == 0 ? malloc(sizeof(*m->pout) * (FAB_BLOCK + 1)) : NULL;
        m->slow_count = ctx->rank == 0 ? calloc((size_t)ctx->size, sizeof(uint64_t)) : NULL;
        if (!m->pin || (ctx->rank == 0 && (!m->pout || !m->slow_count)))
            return FAB_ERR_NOMEM;
    }
    if (!m->block || !m->stamps || (m->reduce && ctx->rank == 0 && !m->reduced))
        return FAB_ERR_NOMEM;
    m->enter = malloc(sizeof(uint64_t) * (FAB_BLOCK + 1));
    if (!m->enter)
        return FAB_ERR_NOMEM;
    if (m->arrive) {
        m->arrival = malloc(sizeof(double) * (FAB_BLOCK + 1));
        if (!m->arrival)
            return FAB_ERR_NOMEM;
        st = fab_arrival_red_init(&m->ared, FAB_BLOCK + 1, ctx->rank == 0);
        if (st == FAB_OK && ctx->rank == 0)
            st = fab_arrival_init(&m->arr_own, ctx->size, (size_t)mopt->max_samples);
        m->arr = ctx->rank == 0 ? &m->arr_own : NULL;
        if (st != FAB_OK)
            return st;
    }
    return fab_acc_init(&m->acc, ctx->rank == 0 ? (size_t)mopt->max_samples : 0);
}

void fab_measure_free(fab_measure_t *m)
{
    free(m->pin);
    free(m->pout);
    free(m->slow_count);
    free(m->stamps);
    free(m->block);
    free(m->reduced);
    free(m->enter);
    free(m->arrival);
    if (m->arrive)
        fab_arrival_red_free(&m->ared);
    fab_arrival_free(&m->arr_own);
    fab_acc_free(&m->acc);
}
