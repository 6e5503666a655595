/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' options, window, semantics, check and description (rma/rma.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"
#include "rma/rma_int.h"

fab_rma_opts_t fab_rma_opt;

#define OFF(f) offsetof(fab_rma_opts_t, f)
static const fab_opt_t fab_rma_options[] = {
    {"win", 0, FAB_OPT_CHOICE, OFF(win), 0, 0, "create|allocate|dynamic", NULL, "allocate",
     "one-sided kernels: the window's memory: MPI_Win_create on our buffer, MPI_Win_allocate "
     "(MPI's), or MPI_Win_create_dynamic with the buffer attached (osu_* -w)",
     0, false, NULL},
    {"rma-sync", 0, FAB_OPT_CHOICE, OFF(sync), 0, 0,
     "auto|lock|flush|flush_local|lock_all|pscw|fence", NULL, "auto",
     "one-sided kernels: the synchronisation per iteration (osu_* -s): auto is flush (pscw for "
     "put_bibw); lock and lock_all open and close an epoch per iteration, flush and flush_local "
     "keep one for the run; pscw and fence are active target (latency kernels: a ping-pong, "
     "reported whole)",
     0, false, NULL},
    {"rma-flush", 0, FAB_OPT_CHOICE, OFF(flush), 0, 0, "auto|window|op", NULL, "auto",
     "put_bw, get_bw under --rma-sync flush or flush_local: window (auto; OSU's, aggregate) "
     "flushes once per window of -w operations, op after every operation (non-aggregate, as "
     "IMB-RMA's); refused where it means nothing",
     0, false, NULL},
    {"rma-pattern", 0, FAB_OPT_CHOICE, OFF(pattern), 0, 0, "pairs|one-to-all|all-to-all", NULL,
     "pairs",
     "one-sided kernels: pairs (--pair's two ranks), one-to-all (rank 0 is origin to every "
     "other rank: its operations to each in turn, one epoch) or all-to-all (every rank to "
     "every other, one epoch); bandwidth rows count every origin's bytes (aggregate)",
     0, false, NULL},
    {"rma-target-busy", 0, FAB_OPT_FLAG, OFF(target_busy), 0, 0, NULL, NULL, "off",
     "one-sided kernels under a passive-target --rma-sync (lock, flush, flush_local, "
     "lock_all): each target computes outside MPI, per iteration " FAB_RMA_STR(
         FAB_RMA_BUSY_FACTOR) "x as long as an iteration takes with it idle in MPI (measured at "
                              "set-up), polling MPI "
                              "only between iterations; the row's passive_ratio is its time over "
                              "the idle-target time "
                              "(near 1: the osc component progresses without the target; "
                              "near " FAB_RMA_STR(
                                  FAB_RMA_BUSY_FACTOR) ": it waits for the target's polls)",
     0, false, NULL},
};
const fab_kopts_t fab_rma_kopts = {
    fab_rma_options, sizeof(fab_rma_options) / sizeof(fab_rma_options[0]), &fab_rma_opt};

const char *const fab_rma_sync_names[] = {"auto",     "lock", "flush", "flush_local",
                                          "lock_all", "pscw", "fence"};
static const char *const fab_rma_win_names[] = {"create", "allocate", "dynamic"};
const char *const fab_rma_pattern_names[] = {"pairs", "one-to-all", "all-to-all"};

/* The osc component of the last window this rank made, for describe (called after setup). */
static char fab_rma_last_osc[32] = "unknown";

/* ------------------------------------------------------------------ semantics */

static const fab_kcol_t fab_rma_kcols[] = {
    FAB_KCOL_REMOTE,
    FAB_KCOL_HALVED,
    FAB_KCOL_PINGPONG,
    {"twosided_lat_us", "2s_us", "us",
     "one-sided kernels: the pair's MPI two-sided 8-byte half round trip (the least "
     "of " FAB_RMA_STR(
         FAB_RMA_REF_ITERS) " "
                            "MPI_Send/MPI_Recv ping-pongs at set-up), the reference of floor_us",
     FAB_KCOL_GAUGE},
    {"floor_us", "floor", "us",
     "one-sided kernels: the least an iteration that includes remote completion can take: "
     "twosided_lat_us x " FAB_RMA_STR(FAB_RMA_FLOOR_REMOTE) " across nodes, x " FAB_RMA_STR(
         FAB_RMA_FLOOR_LOCAL) " on one node (docs/METRICS.md, \"Implausible one-sided rows\")",
     FAB_KCOL_GAUGE},
    {"implausible", "implaus", "flag",
     "one-sided kernels: 1 when the row cannot be true: a median iteration with remote completion "
     "faster than floor_us, or --validate found data that did not arrive; its quality is then "
     "invalid (reason implausible)",
     FAB_KCOL_IMPLAUSIBLE},
    {"twosided_iter_us", "2s_iter", "us",
     "put_bw, get_bw: the pair's two-sided window of the same size and -w (osu_bw's: the sends "
     "and an acknowledgement), the best of 2 at set-up; NaN for the other kernels",
     FAB_KCOL_GAUGE},
    {"twosided_pct", "2s%", "%",
     "put_bw, get_bw: the row's bandwidth as % of that two-sided window's (twosided_iter_us / "
     "the row's median iteration, p50_us); below " FAB_RMA_STR(
         FAB_RMA_BW_WARN_PCT) " fabricbench warns",
     FAB_KCOL_DERIVED},
    {"rma_origins", "orig", "ranks",
     "one-sided kernels: the ranks that issue operations in an iteration (--rma-pattern: pairs 1, "
     "or 2 for ping-pongs and put_bibw; one-to-all 1; all-to-all every rank)",
     FAB_KCOL_GAUGE},
    {"rma_targets", "targ", "ranks",
     "one-sided kernels: the ranks each origin operates on in an iteration (pairs 1, one-to-all "
     "and all-to-all every other rank); a bandwidth row counts origins x targets x -w "
     "operations per iteration (aggregate)",
     FAB_KCOL_GAUGE},
    {"flush_per_op", "fl/op", "flag",
     "put_bw, get_bw under flush, flush_local: 1 when each operation is flushed alone "
     "(--rma-flush op, non-aggregate), 0 when a window of -w is flushed at once (window, OSU's); "
     "NaN where no flush is timed",
     FAB_KCOL_GAUGE},
    {"target_busy", "busy", "flag",
     "one-sided kernels: 1 when the targets computed outside MPI during the row "
     "(--rma-target-busy), 0 when they waited inside MPI",
     FAB_KCOL_GAUGE},
    {"idle_target_us", "idle_us", "us",
     "--rma-target-busy: the median iteration with the targets waiting inside MPI, measured at "
     "set-up (" FAB_RMA_STR(FAB_RMA_IDLE_ITERS) " after " FAB_RMA_STR(
         FAB_RMA_IDLE_WARM) "); each target computes " FAB_RMA_STR(FAB_RMA_BUSY_FACTOR) "x that "
                                                                                        "per "
                                                                                        "iteration;"
                                                                                        " NaN "
                                                                                        "without "
                                                                                        "it",
     FAB_KCOL_GAUGE},
    {"passive_ratio", "passive", "ratio",
     "--rma-target-busy: the row's median iteration (p50_us) over idle_target_us; near 1 the "
     "osc component completes operations without the target's MPI calls (truly passive), "
     "near " FAB_RMA_STR(FAB_RMA_BUSY_FACTOR) " "
                                              "it waits for the target's polls between its "
                                              "computes (docs/METRICS.md)",
     FAB_KCOL_DERIVED},
};
enum {
    FAB_RMA_C_REMOTE,
    FAB_RMA_C_HALVED,
    FAB_RMA_C_PP,
    FAB_RMA_C_REF,
    FAB_RMA_C_FLOOR,
    FAB_RMA_C_IMPL,
    FAB_RMA_C_REFITER,
    FAB_RMA_C_PCT,
    FAB_RMA_C_ORIG,
    FAB_RMA_C_TARG,
    FAB_RMA_C_FLOP,
    FAB_RMA_C_BUSY,
    FAB_RMA_C_IDLE,
    FAB_RMA_C_RATIO
};

static void fab_rma_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    const fab_rma_t *s = state;
    int i;

    if (!s || ctx->rank != 0)
        return;
    c[FAB_RMA_C_REMOTE] = fab_rma_remote_completion(s->spec, s->sync) ? 1.0 : 0.0;
    c[FAB_RMA_C_HALVED] = 0.0;
    c[FAB_RMA_C_PP] = fab_rma_pingpong(s->spec, s->sync) ? 1.0 : 0.0;
    c[FAB_RMA_C_REF] = s->ref_lat * 1e6;
    c[FAB_RMA_C_FLOOR] = s->floor * 1e6;
    i = s->ref_iter ? fab_rma_size_index(ctx, ctx->bytes) : -1;
    c[FAB_RMA_C_REFITER] = i >= 0 ? s->ref_iter[i] * 1e6 : NAN;
    c[FAB_RMA_C_ORIG] = s->pattern != FAB_RMA_PAIRS     ? fab_rma_origins(ctx->size)
                        : fab_rma_is_origin(s, s->peer) ? 2.0
                                                        : 1.0;
    c[FAB_RMA_C_TARG] = fab_rma_targets(ctx->size);
    c[FAB_RMA_C_FLOP] = !fab_rma_flush_applies(s->spec, s->sync) ? NAN
                        : fab_rma_flush_per_op(s->spec, s->sync) ? 1.0
                                                                 : 0.0;
    c[FAB_RMA_C_BUSY] = s->idle_iter ? 1.0 : 0.0;
    i = s->idle_iter ? fab_rma_size_index(ctx, ctx->bytes) : -1;
    c[FAB_RMA_C_IDLE] = i >= 0 ? s->idle_iter[i] * 1e6 : NAN;
}

/* From the row alone (on rank 0 of the run, which may not be one of the pair's). */
static double fab_rma_derive(const fab_krow_t *row, int j)
{
    /* the median iteration: one descheduled iteration moves the mean above the floor on a
     * busy machine and would hide a row whose every other iteration is impossible */
    double iter_us = row->median > 0   ? row->median * 1e6
                     : row->iterations ? row->seconds / (double)row->iterations * 1e6
                                       : NAN;

    if (j == FAB_RMA_C_PCT) /* the median: one descheduled iteration moves the mean */
        return 100.0 * row->c[FAB_RMA_C_REFITER] / (row->median * 1e6);
    if (j == FAB_RMA_C_RATIO)
        return iter_us / row->c[FAB_RMA_C_IDLE]; /* NaN without an idle reference */
    if (j != FAB_RMA_C_IMPL)
        return NAN;
    if (row->validation_errors > 0) /* the data did not arrive as the operations said */
        return 1.0;
    if (row->c[FAB_RMA_C_REMOTE] != 1.0 || isnan(row->c[FAB_RMA_C_FLOOR]) || isnan(iter_us))
        return 0.0; /* local completion only, or no floor: not judged by time */
    return iter_us < row->c[FAB_RMA_C_FLOOR] ? 1.0 : 0.0;
}

const fab_kcolumns_t fab_rma_columns = {
    .kcols = fab_rma_kcols,
    .nkcols = sizeof(fab_rma_kcols) / sizeof(fab_rma_kcols[0]),
    .counters = fab_rma_counters,
    .derive = fab_rma_derive,
    .implausible_why = "an iteration with remote completion faster than the floor the pair's "
                       "two-sided latency allows (floor_us), or data that did not arrive "
                       "(validation_errors): the osc component or the synchronisation does not "
                       "do what the row's semantics say",
    .low_col = "twosided_pct",
    .low_below = FAB_RMA_BW_WARN_PCT,
    .low_why = "its one-sided bandwidth is below that share (%) of the same pair's two-sided "
               "window at the same size: that is the osc component, not the fabric; try another "
               "(mpirun --mca osc rdma, or --mca osc pt2pt with --pml ob1; osc ucx with pml ucx), "
               "another --rma-sync (lock_all, pscw, fence) or --win create",
};

fab_rma_sync_t fab_rma_sync_of(const fab_rma_spec_t *spec)
{
    fab_rma_sync_t s = (fab_rma_sync_t)fab_rma_opt.sync;

    if (s != FAB_RMA_SYNC_AUTO)
        return s;
    return spec->bidir ? FAB_RMA_SYNC_PSCW : FAB_RMA_SYNC_FLUSH;
}

bool fab_rma_flush_applies(const fab_rma_spec_t *spec, fab_rma_sync_t sync)
{
    return spec->bw && (sync == FAB_RMA_SYNC_FLUSH || sync == FAB_RMA_SYNC_FLUSH_LOCAL);
}

bool fab_rma_flush_per_op(const fab_rma_spec_t *spec, fab_rma_sync_t sync)
{
    return fab_rma_flush_applies(spec, sync) && fab_rma_opt.flush == FAB_RMA_FLUSH_OP;
}

fab_ranks_t fab_rma_ranks(void)
{
    return fab_rma_opt.pattern == FAB_RMA_PAIRS ? FAB_RANKS_PAIR : FAB_RANKS_ALL;
}

int fab_rma_origins(int size)
{
    return fab_rma_opt.pattern == FAB_RMA_ALL_TO_ALL ? size : 1;
}

int fab_rma_targets(int size)
{
    return fab_rma_opt.pattern == FAB_RMA_PAIRS ? 1 : size - 1;
}

static bool fab_rma_fetches(fab_rma_op_t op)
{
    return op == FAB_RMA_GET || op == FAB_RMA_GET_ACC || op == FAB_RMA_FOP || op == FAB_RMA_CAS;
}

bool fab_rma_remote_completion(const fab_rma_spec_t *spec, fab_rma_sync_t sync)
{
    return fab_rma_fetches(spec->op) || sync != FAB_RMA_SYNC_FLUSH_LOCAL;
}

bool fab_rma_pingpong(const fab_rma_spec_t *spec, fab_rma_sync_t sync)
{
    return !spec->bw && fab_rma_opt.pattern == FAB_RMA_PAIRS &&
           (sync == FAB_RMA_SYNC_FENCE || sync == FAB_RMA_SYNC_PSCW);
}

bool fab_rma_is_origin(const fab_rma_t *s, int rank)
{
    if (s->pattern == FAB_RMA_ALL_TO_ALL)
        return true;
    return rank == 0 ||
           (s->pattern == FAB_RMA_PAIRS && (s->spec->bidir || fab_rma_pingpong(s->spec, s->sync)));
}

bool fab_rma_is_target(const fab_rma_t *s, int rank)
{
    if (s->pattern == FAB_RMA_PAIRS)
        return fab_rma_is_origin(s, 1 - rank);
    return s->pattern == FAB_RMA_ALL_TO_ALL || rank != 0;
}

bool fab_rma_passive(int sync)
{
    return sync != FAB_RMA_SYNC_PSCW && sync != FAB_RMA_SYNC_FENCE;
}

/* ------------------------------------------------------------------ the osc component */

/* The string value of Open MPI's MCA variable `name` through MPI_T ("" when unknown). */
static void fab_rma_mca(const char *name, char *buf, size_t len)
{
#ifdef FAB_SIM
    (void)name; /* SMPI has no MPI_T and no MCA variables (core/sim.h) */
    if (len)
        buf[0] = '\0';
#else
    int prov, idx, verb, bind, scope, count, nl, dl;
    MPI_Datatype dt;
    MPI_T_enum en;
    MPI_T_cvar_handle h;
    char val[4096] = "", nm[256], desc[1024];

    buf[0] = '\0';
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS &&
        (nl = sizeof(nm), dl = sizeof(desc),
         MPI_T_cvar_get_info(idx, nm, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope)) ==
            MPI_SUCCESS &&
        dt == MPI_CHAR && MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
        if (count < (int)sizeof(val) && MPI_T_cvar_read(h, val) == MPI_SUCCESS)
            snprintf(buf, len, "%s", val);
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
#endif
}

void fab_rma_osc_name(MPI_Win win, char *buf, size_t len)
{
    char name[MPI_MAX_OBJECT_NAME] = "", sel[128];
    char *sp;
    int n = 0;

    if (MPI_Win_get_name(win, name, &n) == MPI_SUCCESS && (sp = strstr(name, " window ")) &&
        sp > name) {
        *sp = '\0';
        snprintf(buf, len, "%s", name);
        return;
    }
    fab_rma_mca("osc", sel, sizeof(sel));
    snprintf(buf, len, "%s", sel[0] && !strpbrk(sel, "^,") ? sel : "unknown");
}

/* ------------------------------------------------------------------ the window */

static void fab_rma_win_failed(const char *call, int rc)
{
    char err[MPI_MAX_ERROR_STRING] = "", sel[128], pml[64];
    int n = 0;

    MPI_Error_string(rc, err, &n);
    fab_rma_mca("osc", sel, sizeof(sel));
    fab_rma_mca("pml", pml, sizeof(pml));
    if (sel[0] && !strpbrk(sel, "^,"))
        FAB_ERROR("%s failed: %s: osc component '%s' (mpirun --mca osc %s, pml '%s') could not "
                  "make a --win %s window",
                  call, err, sel, sel, pml, fab_rma_win_names[fab_rma_opt.win]);
    else
        FAB_ERROR("%s failed: %s: the osc component Open MPI chose from osc='%s' (pml '%s') "
                  "could not make a --win %s window",
                  call, err, sel, pml, fab_rma_win_names[fab_rma_opt.win]);
    FAB_ERROR("hint: name the component: mpirun --mca osc ucx (with pml ucx, fabricbench's "
              "default), --mca osc rdma, or --mca osc pt2pt with --pml ob1; or try another --win "
              "than %s (create, allocate, dynamic)",
              fab_rma_win_names[fab_rma_opt.win]);
}

/* This rank's window over `nb` bytes, agreed by the pair: every rank fails when one does, with
 * FAB_ERR_ENV (the MPI here cannot make this window: `run ladder` leaves the layer out). A
 * window made here while the other rank's failed is dropped, not freed: MPI_Win_free is
 * collective, and that rank has no window to free. */
static fab_status_t fab_rma_win_make(fab_kctx_t *ctx, fab_rma_t *s, size_t nb)
{
    int rc = MPI_SUCCESS, bad, all = 0;
    const char *call = "MPI_Win_allocate";

    if (fab_rma_opt.win == FAB_RMA_WIN_ALLOCATE) {
        rc = MPI_Win_allocate((MPI_Aint)nb, 1, MPI_INFO_NULL, ctx->comm, &s->base, &s->win);
    } else {
        s->alloc = aligned_alloc(4096, (nb + 4095) / 4096 * 4096);
        if (!s->alloc)
            return FAB_ERR_NOMEM;
        s->base = s->alloc;
        call = fab_rma_opt.win == FAB_RMA_WIN_CREATE ? "MPI_Win_create" : "MPI_Win_create_dynamic";
        if (fab_rma_opt.win == FAB_RMA_WIN_CREATE)
            rc = MPI_Win_create(s->base, (MPI_Aint)nb, 1, MPI_INFO_NULL, ctx->comm, &s->win);
        else
            rc = MPI_Win_create_dynamic(MPI_INFO_NULL, ctx->comm, &s->win);
        if (rc == MPI_SUCCESS && fab_rma_opt.win == FAB_RMA_WIN_DYNAMIC) {
            MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN);
            call = "MPI_Win_attach";
            rc = MPI_Win_attach(s->win, s->base, (MPI_Aint)nb);
        }
    }
    if (rc != MPI_SUCCESS)
        fab_rma_win_failed(call, rc);
    else {
        memset(s->base, 0, nb);
        MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN);
    }
    bad = rc != MPI_SUCCESS;
    if (FAB_MPI(MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, ctx->comm)) != FAB_OK)
        return FAB_ERR_MPI;
    if (all && !bad) {
        FAB_ERROR("the one-sided window failed on the other rank of the pair (see its message)");
        s->win = MPI_WIN_NULL;
    }
    return all ? FAB_ERR_ENV : FAB_OK;
}

/* Every rank's displacement of its slot 0: dynamic windows, the address of its memory. */
static fab_status_t fab_rma_exchange_base(fab_kctx_t *ctx, fab_rma_t *s)
{
    MPI_Aint mine = 0;

    s->bases = calloc((size_t)ctx->size, sizeof(MPI_Aint));
    if (!s->bases)
        return FAB_ERR_NOMEM;
    if (fab_rma_opt.win != FAB_RMA_WIN_DYNAMIC)
        return FAB_OK;
    MPI_Get_address(s->base, &mine);
    return FAB_MPI(MPI_Allgather(&mine, 1, MPI_AINT, s->bases, 1, MPI_AINT, ctx->comm));
}

/* The ranks this rank is origin to, and those origin to it. */
static fab_status_t fab_rma_roles(const fab_kctx_t *ctx, fab_rma_t *s)
{
    s->tg = calloc((size_t)ctx->size, sizeof(int));
    s->orig = calloc((size_t)ctx->size, sizeof(int));
    if (!s->tg || !s->orig)
        return FAB_ERR_NOMEM;
    for (int r = 0; r < ctx->size; r++) {
        if (r == ctx->rank)
            continue;
        if (fab_rma_is_origin(s, ctx->rank) && (s->pattern != FAB_RMA_PAIRS || r == s->peer))
            s->tg[s->ntg++] = r;
        if (fab_rma_is_origin(s, r) && fab_rma_is_target(s, ctx->rank) &&
            (s->pattern != FAB_RMA_PAIRS || r == s->peer))
            s->orig[s->nor++] = r;
    }
    return FAB_OK;
}

static fab_status_t fab_rma_epochs_open(fab_kctx_t *ctx, fab_rma_t *s)
{
    MPI_Group all;
    fab_status_t st = FAB_OK;
    bool flush = s->sync == FAB_RMA_SYNC_FLUSH || s->sync == FAB_RMA_SYNC_FLUSH_LOCAL;

    if (s->sync == FAB_RMA_SYNC_PSCW) {
        st = FAB_MPI(MPI_Comm_group(ctx->comm, &all));
        if (st == FAB_OK && s->pattern == FAB_RMA_PAIRS)
            st = FAB_MPI(MPI_Group_incl(all, 1, &s->peer, &s->group));
        else if (st == FAB_OK) {
            st = FAB_MPI(MPI_Group_incl(all, s->ntg, s->tg, &s->group));
            if (st == FAB_OK)
                st = FAB_MPI(MPI_Group_incl(all, s->nor, s->orig, &s->ogroup));
        }
        if (st == FAB_OK)
            MPI_Group_free(&all);
    }
    if (st == FAB_OK && flush && s->pattern == FAB_RMA_PAIRS && ctx->rank == 0) {
        st = FAB_MPI(MPI_Win_lock(MPI_LOCK_SHARED, s->peer, 0, s->win));
        s->locked = st == FAB_OK;
    } else if (st == FAB_OK && flush && s->pattern != FAB_RMA_PAIRS && s->ntg > 0) {
        st = FAB_MPI(MPI_Win_lock_all(0, s->win));
        s->locked = s->locked_all = st == FAB_OK;
    }
    return st;
}

fab_status_t fab_rma_setup(const fab_rma_spec_t *spec, fab_kctx_t *ctx, void **state)
{
    fab_rma_t *s = calloc(1, sizeof(*s));
    size_t nb;
    fab_status_t st;

    *state = s;
    if (!s)
        return FAB_ERR_NOMEM;
    s->spec = spec;
    s->sync = fab_rma_sync_of(spec);
    s->pattern = fab_rma_opt.pattern;
    s->win = MPI_WIN_NULL;
    s->group = s->ogroup = MPI_GROUP_NULL;
    s->peer = s->pattern == FAB_RMA_PAIRS ? 1 - ctx->rank : -1;
    s->slots = fab_rma_slots(spec, ctx);
    s->regions = fab_rma_regions(ctx);
    nb = (size_t)s->regions * (size_t)s->slots * ctx->max_bytes;
    s->lbuf = aligned_alloc(4096, (nb + 4095) / 4096 * 4096);
    s->res = spec->op == FAB_RMA_GET_ACC ? aligned_alloc(4096, (nb + 4095) / 4096 * 4096) : NULL;
    s->cbuf = calloc(1, 8 * (size_t)ctx->size + 64);
    if (!s->lbuf || !s->cbuf || (spec->op == FAB_RMA_GET_ACC && !s->res))
        return FAB_ERR_NOMEM;
    memset(s->lbuf, 0, nb);
    if (s->res)
        memset(s->res, 0, nb);
    st = fab_rma_roles(ctx, s);
    if (st == FAB_OK)
        st = fab_rma_win_make(ctx, s, nb);
    if (st == FAB_OK)
        st = fab_rma_exchange_base(ctx, s);
    if (st == FAB_OK)
        st = fab_rma_epochs_open(ctx, s);
    if (st == FAB_OK)
        st = fab_rma_ref_measure(ctx, s);
    if (st == FAB_OK && fab_rma_opt.target_busy)
        st = fab_rma_idle_measure(ctx, s);
    if (st == FAB_OK) {
        fab_rma_osc_name(s->win, s->osc, sizeof(s->osc));
        snprintf(fab_rma_last_osc, sizeof(fab_rma_last_osc), "%s", s->osc);
        snprintf(ctx->component, sizeof(ctx->component), "%s", s->osc); /* every row's */
        for (char *c = ctx->component; *c; c++) /* a name: letters, digits, _ */
            if (!isalnum((unsigned char)*c) && *c != '_')
                *c = '_';
    }
    /* pairs: rank 0 times (ping-pongs and bibw: its iteration holds both ways); else every
     * origin, the slowest's iteration counts */
    ctx->timer = s->pattern == FAB_RMA_PAIRS ? ctx->rank == 0 : s->ntg > 0;
    ctx->msgs_per_iter = (spec->bw ? ctx->window : 1) *
                         (spec->bidir || fab_rma_pingpong(spec, s->sync) ? 2.0 : 1.0) *
                         fab_rma_origins(ctx->size) * fab_rma_targets(ctx->size);
    ctx->streams = fab_rma_origins(ctx->size) * fab_rma_targets(ctx->size);
    return st;
}

void fab_rma_cleanup(fab_kctx_t *ctx, void *state)
{
    fab_rma_t *s = state;

    if (!s)
        return;
    (void)ctx;
    free(s->ref_iter);
    free(s->idle_iter);
    if (s->locked_all)
        FAB_MPI(MPI_Win_unlock_all(s->win));
    else if (s->locked)
        FAB_MPI(MPI_Win_unlock(s->peer, s->win));
    if (s->group != MPI_GROUP_NULL)
        MPI_Group_free(&s->group);
    if (s->ogroup != MPI_GROUP_NULL)
        MPI_Group_free(&s->ogroup);
    if (s->win != MPI_WIN_NULL) {
        if (fab_rma_opt.win == FAB_RMA_WIN_DYNAMIC)
            MPI_Win_detach(s->win, s->base);
        FAB_MPI(MPI_Win_free(&s->win));
    }
    free(s->alloc);
    free(s->lbuf);
    free(s->res);
    free(s->cbuf);
    free(s->bases);
    free(s->tg);
    free(s->orig);
    free(s);
}

/* ------------------------------------------------------------------ description */

static const char *const fab_rma_calls[] = {"MPI_Put of the size",
                                            "MPI_Get of the size",
                                            "MPI_Accumulate (MPI_INT32_T, MPI_SUM) of the size",
                                            "MPI_Get_accumulate (MPI_INT32_T, MPI_SUM) of the size",
                                            "MPI_Fetch_and_op (one MPI_INT32_T, MPI_SUM)",
                                            "MPI_Compare_and_swap (one MPI_INT32_T)"};

void fab_rma_describe(const fab_rma_spec_t *spec, const fab_kctx_t *ctx, char *buf, size_t len)
{
    fab_rma_sync_t sync = fab_rma_sync_of(spec);
    char ops[48] = "one", extra[160] = "";
    int pat = fab_rma_opt.pattern;

    if (spec->bw)
        snprintf(ops, sizeof(ops), "%d", ctx->window);
    if (pat != FAB_RMA_PAIRS)
        snprintf(ops + strlen(ops), sizeof(ops) - strlen(ops), " to each target");
    if (fab_rma_flush_applies(spec, sync))
        snprintf(extra, sizeof(extra), "; %s",
                 fab_rma_flush_per_op(spec, sync) ? "a flush per operation (--rma-flush op)"
                                                  : "a flush per window (--rma-flush window)");
    if (fab_rma_opt.target_busy)
        snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
                 "; targets busy outside MPI (--rma-target-busy)");
    snprintf(buf, len,
             "%s: %s, %s per %s%s (%s -w %s -s %s); window %s, osc %s%s; the time "
             "%s remote completion, whole iterations (OSU halves fence and pscw latency)",
             pat == FAB_RMA_ONE_TO_ALL      ? "one-to-all, rank 0 to every other rank"
             : pat == FAB_RMA_ALL_TO_ALL    ? "all-to-all, every rank to every other rank"
             : spec->bidir                  ? "both ways"
             : fab_rma_pingpong(spec, sync) ? "ranks 0 and 1 in turn"
                                            : "rank 0 to 1",
             fab_rma_calls[spec->op], ops, fab_rma_sync_names[sync],
             fab_rma_pingpong(spec, sync) ? ", a ping-pong" : "", spec->osu,
             fab_rma_win_names[fab_rma_opt.win], fab_rma_sync_names[sync],
             fab_rma_win_names[fab_rma_opt.win], fab_rma_last_osc, extra,
             fab_rma_remote_completion(spec, sync) ? "includes" : "excludes");
}
