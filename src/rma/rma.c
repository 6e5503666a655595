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
};
const fab_kopts_t fab_rma_kopts = {
    fab_rma_options, sizeof(fab_rma_options) / sizeof(fab_rma_options[0]), &fab_rma_opt};

static const char *const fab_rma_sync_names[] = {"auto",     "lock", "flush", "flush_local",
                                                 "lock_all", "pscw", "fence"};
static const char *const fab_rma_win_names[] = {"create", "allocate", "dynamic"};

/* The osc component of the last window this rank made, for describe (called after setup). */
static char fab_rma_last_osc[32] = "unknown";

/* ------------------------------------------------------------------ semantics */

#define FAB_RMA_STR_(x) #x
#define FAB_RMA_STR(x)  FAB_RMA_STR_(x) /* a threshold as the columns' text */

static const fab_kcol_t fab_rma_kcols[] = {
    FAB_KCOL_REMOTE,
    FAB_KCOL_HALVED,
    FAB_KCOL_PINGPONG,
    {"twosided_lat_us", "2s_us", "us",
     "one-sided kernels: the pair's MPI two-sided 8-byte half round trip (the least of 200 "
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
};
enum {
    FAB_RMA_C_REMOTE,
    FAB_RMA_C_HALVED,
    FAB_RMA_C_PP,
    FAB_RMA_C_REF,
    FAB_RMA_C_FLOOR,
    FAB_RMA_C_IMPL,
    FAB_RMA_C_REFITER,
    FAB_RMA_C_PCT
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
    return !spec->bw && (sync == FAB_RMA_SYNC_FENCE || sync == FAB_RMA_SYNC_PSCW);
}

bool fab_rma_is_origin(const fab_rma_t *s, int rank)
{
    return rank == 0 || s->spec->bidir || fab_rma_pingpong(s->spec, s->sync);
}

static bool fab_rma_passive(fab_rma_sync_t sync)
{
    return sync != FAB_RMA_SYNC_PSCW && sync != FAB_RMA_SYNC_FENCE;
}

/* ------------------------------------------------------------------ the check */

static int fab_rma_slots(const fab_rma_spec_t *spec, const fab_kctx_t *ctx)
{
    size_t most = FAB_RMA_SPREAD_MAX / (ctx->max_bytes ? ctx->max_bytes : 1);

    if (!spec->bw)
        return 1;
    if (most < 1)
        most = 1;
    return (size_t)ctx->window < most ? ctx->window : (int)most;
}

size_t fab_rma_own_bytes(const fab_rma_spec_t *spec, const fab_kctx_t *ctx)
{
    return 2 * (size_t)fab_rma_slots(spec, ctx) * ctx->max_bytes + 64;
}

fab_status_t fab_rma_check(const fab_rma_spec_t *spec, const fab_kctx_t *ctx, char *msg,
                           size_t msglen, char *hint, size_t hintlen)
{
    fab_rma_sync_t sync = fab_rma_sync_of(spec);

    if (spec->bidir && fab_rma_passive(sync)) {
        snprintf(msg, msglen,
                 "%s: --rma-sync %s is refused: both ranks put to each other at once, and a "
                 "passive-target epoch (lock, flush, flush_local, lock_all) asks nothing of its "
                 "target, so the two directions would be two unrelated streams with no common "
                 "end, not one bidirectional exchange",
                 spec->name, fab_rma_sync_names[sync]);
        snprintf(hint, hintlen,
                 "use --rma-sync pscw (its default) or fence, as %s allows, or name the kernels "
                 "without %s (`run rma` includes it)",
                 spec->osu, spec->name);
        return FAB_ERR_CONFIG;
    }
    if (spec->op == FAB_RMA_ACC || spec->op == FAB_RMA_GET_ACC)
        for (int i = 0; i < ctx->nsizes; i++)
            if (ctx->sizes[i] % 4) {
                snprintf(msg, msglen,
                         "%s accumulates 4-byte integers (MPI_INT32_T), and -m asks for %zu "
                         "bytes, not a multiple of 4",
                         spec->name, ctx->sizes[i]);
                snprintf(hint, hintlen, "give sizes that are multiples of 4 (its default: 4:4M)");
                return FAB_ERR_CONFIG;
            }
    if (spec->op == FAB_RMA_FOP || spec->op == FAB_RMA_CAS)
        for (int i = 0; i < ctx->nsizes; i++)
            if (ctx->sizes[i] != 4) {
                snprintf(msg, msglen,
                         "%s moves one 4-byte integer (MPI_INT32_T) per operation, and -m asks for "
                         "%zu bytes",
                         spec->name, ctx->sizes[i]);
                snprintf(hint, hintlen,
                         "give -m 4 (its default), or run %s apart from kernels with other sizes",
                         spec->name);
                return FAB_ERR_CONFIG;
            }
    return FAB_OK;
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

/* This rank's window over `nb` bytes, agreed by the pair: every rank fails when one does. */
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
    if (all && !bad)
        FAB_ERROR("the one-sided window failed on the other rank of the pair (see its message)");
    return all ? FAB_ERR_MPI : FAB_OK;
}

/* Dynamic windows: the target's displacement is the address of its memory. */
static fab_status_t fab_rma_exchange_base(fab_kctx_t *ctx, fab_rma_t *s)
{
    MPI_Aint mine = 0;

    if (fab_rma_opt.win != FAB_RMA_WIN_DYNAMIC)
        return FAB_OK;
    MPI_Get_address(s->base, &mine);
    return FAB_MPI(MPI_Sendrecv(&mine, 1, MPI_AINT, s->peer, ctx->tag + 3, &s->peer_base, 1,
                                MPI_AINT, s->peer, ctx->tag + 3, ctx->comm, MPI_STATUS_IGNORE));
}

static fab_status_t fab_rma_epochs_open(fab_kctx_t *ctx, fab_rma_t *s)
{
    MPI_Group all;
    fab_status_t st = FAB_OK;

    if (s->sync == FAB_RMA_SYNC_PSCW) {
        st = FAB_MPI(MPI_Comm_group(ctx->comm, &all));
        if (st == FAB_OK) {
            st = FAB_MPI(MPI_Group_incl(all, 1, &s->peer, &s->group));
            MPI_Group_free(&all);
        }
    }
    if (st == FAB_OK && ctx->rank == 0 &&
        (s->sync == FAB_RMA_SYNC_FLUSH || s->sync == FAB_RMA_SYNC_FLUSH_LOCAL)) {
        st = FAB_MPI(MPI_Win_lock(MPI_LOCK_SHARED, s->peer, 0, s->win));
        s->locked = st == FAB_OK;
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
    s->win = MPI_WIN_NULL;
    s->group = MPI_GROUP_NULL;
    s->peer = 1 - ctx->rank;
    s->slots = fab_rma_slots(spec, ctx);
    nb = (size_t)s->slots * ctx->max_bytes;
    s->lbuf = aligned_alloc(4096, (nb + 4095) / 4096 * 4096);
    s->cbuf = calloc(1, 64);
    if (!s->lbuf || !s->cbuf)
        return FAB_ERR_NOMEM;
    memset(s->lbuf, 0, nb);
    st = fab_rma_win_make(ctx, s, nb);
    if (st == FAB_OK)
        st = fab_rma_exchange_base(ctx, s);
    if (st == FAB_OK)
        st = fab_rma_epochs_open(ctx, s);
    if (st == FAB_OK)
        st = fab_rma_ref_measure(ctx, s);
    if (st == FAB_OK) {
        fab_rma_osc_name(s->win, s->osc, sizeof(s->osc));
        snprintf(fab_rma_last_osc, sizeof(fab_rma_last_osc), "%s", s->osc);
        snprintf(ctx->component, sizeof(ctx->component), "%s", s->osc); /* every row's */
        for (char *c = ctx->component; *c; c++) /* a name: letters, digits, _ */
            if (!isalnum((unsigned char)*c) && *c != '_')
                *c = '_';
    }
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter =
        (spec->bw ? ctx->window : 1) * (spec->bidir || fab_rma_pingpong(spec, s->sync) ? 2.0 : 1.0);
    return st;
}

void fab_rma_cleanup(fab_kctx_t *ctx, void *state)
{
    fab_rma_t *s = state;

    if (!s)
        return;
    (void)ctx;
    free(s->ref_iter);
    if (s->locked)
        FAB_MPI(MPI_Win_unlock(s->peer, s->win));
    if (s->group != MPI_GROUP_NULL)
        MPI_Group_free(&s->group);
    if (s->win != MPI_WIN_NULL) {
        if (fab_rma_opt.win == FAB_RMA_WIN_DYNAMIC)
            MPI_Win_detach(s->win, s->base);
        FAB_MPI(MPI_Win_free(&s->win));
    }
    free(s->alloc);
    free(s->lbuf);
    free(s->cbuf);
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
    char ops[32] = "one";

    if (spec->bw)
        snprintf(ops, sizeof(ops), "%d", ctx->window);
    snprintf(buf, len,
             "%s: %s, %s per %s%s (%s -w %s -s %s); window %s, osc %s; the time "
             "%s remote completion, whole iterations (OSU halves fence and pscw latency)",
             spec->bidir                    ? "both ways"
             : fab_rma_pingpong(spec, sync) ? "ranks 0 and 1 in turn"
                                            : "rank 0 to 1",
             fab_rma_calls[spec->op], ops, fab_rma_sync_names[sync],
             fab_rma_pingpong(spec, sync) ? ", a ping-pong" : "", spec->osu,
             fab_rma_win_names[fab_rma_opt.win], fab_rma_sync_names[sync],
             fab_rma_win_names[fab_rma_opt.win], fab_rma_last_osc,
             fab_rma_remote_completion(spec, sync) ? "includes" : "excludes");
}
