/* SPDX-License-Identifier: BSD-3-Clause */
/* The UCP kernels' options, context, worker, endpoint, memory, semantics, check and
 * description (ucp/ucp.h). */
#define _GNU_SOURCE /* open_memstream */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "net/transport.h"
#include "ucp/ucp.h"
#include "ucp/ucp_int.h"

fab_ucp_opts_t fab_ucp_opt;

/* --ucp-tls: UCX's list syntax, checked before MPI_Init (names UCX knows are its to say): names
 * of letters, digits and '_' separated by commas, the first optionally after '^' (all but). */
#define FAB_UCP_TLS_MAX 256
static fab_status_t fab_ucp_tls_check(const char *val, char *err, size_t errlen)
{
    const char *p = val + (val[0] == '^');
    char q[64];
    bool ok = *p && *p != ',' && val[strlen(val) - 1] != ',' && !strstr(val, ",,");

    if (strlen(val) > FAB_UCP_TLS_MAX) { /* UCX's own lists are tens of characters */
        snprintf(err, errlen,
                 "%zu characters, more than %d: name the transports, "
                 "e.g. tcp,self or posix,self",
                 strlen(val), FAB_UCP_TLS_MAX);
        return FAB_ERR_USAGE;
    }

    for (; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_' || *p == ',';
    if (ok)
        return FAB_OK;
    fab_num_quote(val, q, sizeof(q));
    snprintf(err, errlen,
             "%s is not a list of UCX transports; give names separated by commas, no spaces "
             "(tcp,self; posix,self; ^ib for all but InfiniBand), as UCX_TLS takes them",
             q);
    return FAB_ERR_USAGE;
}

#define OFF(f) offsetof(fab_ucp_opts_t, f)
static const fab_opt_t fab_ucp_options[] = {
    {"ucp-tls", 0, FAB_OPT_STRING, OFF(tls), 0, 0, "LIST", NULL, "UCX_TLS's",
     "UCP kernels: the UCX transports of their own context (UCX_TLS for it alone: tcp,self; "
     "posix,self; rc,ud,self ...); MPI keeps the environment's",
     0, false, fab_ucp_tls_check},
    {"ucp-same-buffer", 0, FAB_OPT_FLAG, OFF(same), 0, 0, NULL, NULL, "off",
     "ucp_put_bw, ucp_get_bw: every operation of a window at one place of each end's memory, "
     "as ucx_perftest's (a working set of one message, in cache while a message fits in it); "
     "default: spread over the window (operation j at slot j, up to 64 MiB), as the one-sided "
     "kernels",
     0, false, NULL},
};
/* Every UCP kernel reads the first row; the put and get bandwidth kernels both. */
const fab_kopts_t fab_ucp_kopts = {fab_ucp_options, 1, &fab_ucp_opt};
const fab_kopts_t fab_ucp_rma_bw_kopts = {fab_ucp_options, 2, &fab_ucp_opt};

/* The lanes of the last endpoint this rank made, for describe (called after setup), and
 * whether its get was passive (ucp_get_lat). */
static char fab_ucp_last_lanes[512] = "unknown";
static bool fab_ucp_last_passive;

bool fab_ucp_passive(const char *lanes)
{
    static const char *const hw[] = {"posix",    "sysv",    "xpmem",   "cma", "knem",
                                     "rc_verbs", "rc_mlx5", "dc_mlx5", "rc",  "dc"};
    bool any = false;

    /* lanes: "tl/dev[roles] ...", roles separated by spaces ("rma am am_bw#0", "rma_bw#0") */
    for (const char *p = lanes; p && *p;) {
        size_t head = strcspn(p, " ["), tl = strcspn(p, "/");
        const char *end, *r;
        bool rma = false, known = false;

        /* a lane: a name with a slash, then "[" before any space, then "]" */
        if (p[head] != '[' || tl >= head || !(end = strchr(p + head, ']')))
            return false; /* not a lane's shape: nothing is known of the rest */
        for (r = p + head + 1; r < end;) {
            size_t w = strcspn(r, " ]");

            rma = rma || (w >= 3 && strncmp(r, "rma", 3) == 0); /* rma, rma#N, rma_bw#N */
            r += w + (r[w] == ' ');
        }
        for (size_t i = 0; rma && i < sizeof(hw) / sizeof(hw[0]); i++)
            known = known || (strlen(hw[i]) == tl && strncmp(p, hw[i], tl) == 0);
        if (rma && !known)
            return false;
        any = any || rma;
        p = end + 1;
        p += strspn(p, " ");
    }
    return any;
}

/* ------------------------------------------------------------------ semantics */

static const fab_kcol_t fab_ucp_kcols[] = {FAB_KCOLS_SEMANTICS};

/* Every UCP row includes remote completion (an answer, an acknowledgement, a flush or a
 * fetched result); the latency kernels but the get and the atomics are ping-pongs reported as
 * half the round trip (the get and the atomics: one operation and its completion, whole, as
 * ucx_perftest's). */
bool fab_ucp_pingpong(const fab_ucp_spec_t *spec)
{
    return !spec->bw && spec->op != FAB_UCP_AMO && spec->op != FAB_UCP_GET;
}

static void fab_ucp_counters(const fab_kctx_t *ctx, void *state, double *c)
{
    const fab_ucp_t *s = state;

    if (!s || ctx->rank != 0)
        return;
    c[0] = 1.0;
    c[1] = c[2] = fab_ucp_pingpong(s->spec) ? 1.0 : 0.0;
}

const fab_kcolumns_t fab_ucp_columns = {
    .kcols = fab_ucp_kcols,
    .nkcols = sizeof(fab_ucp_kcols) / sizeof(fab_ucp_kcols[0]),
    .counters = fab_ucp_counters,
};

/* ------------------------------------------------------------------ the check */

static int fab_ucp_slots(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx)
{
    size_t most = FAB_UCP_SPREAD_MAX / (ctx->max_bytes ? ctx->max_bytes : 1);

    if (!spec->bw || spec->op == FAB_UCP_TAG || spec->op == FAB_UCP_AM || fab_ucp_opt.same)
        return 1;
    if (most < 1)
        most = 1;
    return (size_t)ctx->window < most ? ctx->window : (int)most;
}

fab_status_t fab_ucp_check(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx, char *msg,
                           size_t msglen, char *hint, size_t hintlen)
{
    for (int i = 0; spec->op == FAB_UCP_AMO && i < ctx->nsizes; i++)
        if (ctx->sizes[i] != 8) {
            snprintf(msg, msglen,
                     "%s operates on one 64-bit word (ucp_atomic_op_nbx, ucp_dt_make_contig(8)), "
                     "and -m asks for %zu bytes",
                     spec->name, ctx->sizes[i]);
            snprintf(hint, hintlen,
                     "give -m 8 (its default), or run %s apart from kernels with other sizes",
                     spec->name);
            return FAB_ERR_CONFIG;
        }
    return FAB_OK;
}

size_t fab_ucp_own_bytes(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx)
{
    return 2 * (size_t)fab_ucp_slots(spec, ctx) * ctx->max_bytes;
}

/* ------------------------------------------------------------------ set-up */

static const char *fab_ucp_tls(void)
{
    const char *env = getenv("UCX_TLS");

    return fab_ucp_opt.tls ? fab_ucp_opt.tls : env ? env : "UCX's default (UCX_TLS unset)";
}

/* A UCX step failed on this rank: what, UCX's reason and what to try. */
static void fab_ucp_failed(const fab_ucp_spec_t *spec, const char *step, ucs_status_t us)
{
    FAB_ERROR("%s: UCX could not %s: %s (transports: %s%s)", spec->name, step,
              ucs_status_string(us), fab_ucp_tls(), fab_ucp_opt.tls ? ", from --ucp-tls" : "");
    FAB_ERROR("hint: `ucx_info -d` lists this host's transports and devices; name ones both ranks "
              "have with --ucp-tls (tcp,self between hosts over IP; posix,self or sysv,self on one "
              "host; rc,ud,self on InfiniBand or RoCE), or set UCX_NET_DEVICES to a device they "
              "share");
}

static ucp_params_t fab_ucp_params(const fab_ucp_spec_t *spec)
{
    ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};

    if (spec->op == FAB_UCP_PUT || spec->op == FAB_UCP_GET)
        p.features |= UCP_FEATURE_RMA;
    if (spec->op == FAB_UCP_AM)
        p.features |= UCP_FEATURE_AM;
    if (spec->op == FAB_UCP_AMO)
        p.features |= UCP_FEATURE_AMO64;
    return p;
}

/* The context (the UCX_* environment, --ucp-tls over it) and its worker. */
static ucs_status_t fab_ucp_open(fab_ucp_t *s, const char **step)
{
    ucp_config_t *cfg = NULL;
    ucp_params_t params = fab_ucp_params(s->spec);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    ucs_status_t us;

    *step = "read its configuration (ucp_config_read)";
    us = ucp_config_read(NULL, NULL, &cfg);
    if (us == UCS_OK && fab_ucp_opt.tls) {
        *step = "take --ucp-tls as UCX_TLS (ucp_config_modify)";
        us = ucp_config_modify(cfg, "TLS", fab_ucp_opt.tls);
    }
    if (us == UCS_OK) {
        *step = "create its context (ucp_init)";
        us = ucp_init(&params, cfg, &s->uctx);
    }
    if (cfg)
        ucp_config_release(cfg);
    if (us == UCS_OK) {
        *step = "create a worker (ucp_worker_create)";
        us = ucp_worker_create(s->uctx, &wp, &s->worker);
    }
    return us;
}

/* Sends `len` bytes at `mine` to the peer and receives its `len` (both lengths first). */
static fab_status_t fab_ucp_swap(fab_kctx_t *ctx, const void *mine, size_t len, void **theirs,
                                 size_t *tlen)
{
    fab_status_t st = FAB_MPI(MPI_Sendrecv(&len, sizeof(len), MPI_BYTE, 1 - ctx->rank, ctx->tag + 5,
                                           tlen, sizeof(*tlen), MPI_BYTE, 1 - ctx->rank,
                                           ctx->tag + 5, ctx->comm, MPI_STATUS_IGNORE));

    *theirs = NULL;
    if (st != FAB_OK)
        return st;
    *theirs = malloc(*tlen ? *tlen : 1);
    /* without memory, receive nothing: MPI reports a truncation instead of a wait */
    st = FAB_MPI(MPI_Sendrecv(mine, (int)len, MPI_BYTE, 1 - ctx->rank, ctx->tag + 6,
                              *theirs ? *theirs : NULL, *theirs ? (int)*tlen : 0, MPI_BYTE,
                              1 - ctx->rank, ctx->tag + 6, ctx->comm, MPI_STATUS_IGNORE));
    return st == FAB_OK && !*theirs ? FAB_ERR_NOMEM : st;
}

/* Whether every rank of the pair got here without a failure (a UCX failure logged on one is
 * said on the other too); each rank of the pair calls it at the same steps. */
static fab_status_t fab_ucp_agree(fab_kctx_t *ctx, bool bad)
{
    int mine = bad, all = 0;

    if (FAB_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, ctx->comm)) != FAB_OK)
        return FAB_ERR_MPI;
    if (all && !bad)
        FAB_ERROR("the UCP set-up failed on the other rank of the pair (see its message)");
    return all ? FAB_ERR_ENV : FAB_OK;
}

/* The endpoint to the peer's worker, from its address; its lanes in s->lanes. */
static fab_status_t fab_ucp_connect(fab_kctx_t *ctx, fab_ucp_t *s)
{
    ucp_address_t *addr = NULL;
    size_t alen = 0, plen = 0;
    void *paddr = NULL;
    ucs_status_t us = ucp_worker_get_address(s->worker, &addr, &alen);
    fab_status_t st;
    char *info = NULL;
    size_t ilen = 0;
    FILE *mem;

    if (us != UCS_OK)
        fab_ucp_failed(s->spec, "give the worker's address (ucp_worker_get_address)", us);
    st = fab_ucp_swap(ctx, addr, us == UCS_OK ? alen : 0, &paddr, &plen);
    if (st == FAB_OK && us == UCS_OK && plen) {
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = paddr};

        us = ucp_ep_create(s->worker, &ep, &s->ep);
        if (us != UCS_OK)
            fab_ucp_failed(s->spec, "make an endpoint to the other rank (ucp_ep_create)", us);
    }
    if (addr)
        ucp_worker_release_address(s->worker, addr);
    free(paddr);
    if (st == FAB_OK)
        st = fab_ucp_agree(ctx, us != UCS_OK || !plen);
    if (st == FAB_OK && (mem = open_memstream(&info, &ilen)) != NULL) {
        ucp_ep_print_info(s->ep, mem);
        fclose(mem);
        fab_ucx_parse_lanes(info, s->lanes, sizeof(s->lanes));
        free(info);
    }
    return st;
}

/* The region: memory UCX allocates and maps (UCP_MEM_MAP_ALLOCATE, as ucx_perftest's buffers:
 * on one host a shared-memory transport can then give the peer a direct mapping of it, and a
 * put or get is a copy), its address and packed key to the peer, the peer's key unpacked. */
static fab_status_t fab_ucp_memory(fab_kctx_t *ctx, fab_ucp_t *s, size_t nb)
{
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                                             UCP_MEM_MAP_PARAM_FIELD_FLAGS,
                               .address = NULL,
                               .length = nb,
                               .flags = UCP_MEM_MAP_ALLOCATE};
    ucp_mem_attr_t at = {.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS};
    void *packed = NULL, *theirs = NULL;
    size_t plen = 0, tlen = 0;
    uint64_t mine = 0;
    ucs_status_t us = ucp_mem_map(s->uctx, &mp, &s->memh);
    fab_status_t st;

    if (us == UCS_OK && (us = ucp_mem_query(s->memh, &at)) == UCS_OK) {
        free(s->region); /* ours until now, for the kernels without mapped memory */
        s->region = at.address;
        s->region_ucx = true;
        memset(s->region, 0, nb);
        mine = (uint64_t)(uintptr_t)s->region;
    }

    if (us == UCS_OK && (us = ucp_rkey_pack(s->uctx, s->memh, &packed, &plen)) != UCS_OK)
        fab_ucp_failed(s->spec, "pack the memory's remote key (ucp_rkey_pack)", us);
    else if (us != UCS_OK)
        fab_ucp_failed(s->spec, "allocate and map the memory (ucp_mem_map, ucp_mem_query)", us);
    st = fab_ucp_swap(ctx, packed, us == UCS_OK ? plen : 0, &theirs, &tlen);
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Sendrecv(&mine, 1, MPI_UINT64_T, s->peer, ctx->tag + 7, &s->peer_addr, 1,
                                  MPI_UINT64_T, s->peer, ctx->tag + 7, ctx->comm,
                                  MPI_STATUS_IGNORE));
    if (st == FAB_OK && us == UCS_OK && tlen &&
        (us = ucp_ep_rkey_unpack(s->ep, theirs, &s->rkey)) != UCS_OK)
        fab_ucp_failed(s->spec, "unpack the other rank's remote key (ucp_ep_rkey_unpack)", us);
    if (packed)
        ucp_rkey_buffer_release(packed);
    free(theirs);
    return st != FAB_OK ? st : fab_ucp_agree(ctx, us != UCS_OK || !tlen);
}

static fab_status_t fab_ucp_am_register(fab_ucp_t *s)
{
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = FAB_UCP_AM_ID,
        .cb = fab_ucp_am_handler,
        .arg = s,
        .flags = UCP_AM_FLAG_WHOLE_MSG};
    ucs_status_t us = ucp_worker_set_am_recv_handler(s->worker, &hp);

    if (us != UCS_OK)
        fab_ucp_failed(s->spec, "register an active message handler", us);
    return us == UCS_OK ? FAB_OK : FAB_ERR_ENV;
}

static void *fab_ucp_page_alloc(size_t nb)
{
    void *p = aligned_alloc(4096, (nb + 4095) / 4096 * 4096);

    if (p)
        memset(p, 0, nb);
    return p;
}

fab_status_t fab_ucp_setup(const fab_ucp_spec_t *spec, fab_kctx_t *ctx, void **state)
{
    fab_ucp_t *s = calloc(1, sizeof(*s));
    const char *step = "";
    ucs_status_t us;
    fab_status_t st;
    size_t nb;

    *state = s;
    if (!s)
        return FAB_ERR_NOMEM;
    s->spec = spec;
    s->peer = 1 - ctx->rank;
    s->slots = fab_ucp_slots(spec, ctx);
    snprintf(s->lanes, sizeof(s->lanes), "unknown");
    nb = (size_t)s->slots * ctx->max_bytes;
    s->region = fab_ucp_page_alloc(nb);
    s->lbuf = fab_ucp_page_alloc(nb);
    s->reqs = calloc((size_t)(ctx->window > 0 ? ctx->window : 1) + 2, sizeof(void *));
    s->am_dst = ctx->rbuf;
    /* a rank without memory says so to its peer instead of leaving it in the agreement */
    us = !s->region || !s->lbuf || !s->reqs ? UCS_ERR_NO_MEMORY : fab_ucp_open(s, &step);
    if (us != UCS_OK)
        fab_ucp_failed(spec, us == UCS_ERR_NO_MEMORY && !s->uctx ? "get its buffers" : step, us);
    st = fab_ucp_agree(ctx, us != UCS_OK);
    if (st == FAB_OK && spec->op == FAB_UCP_AM)
        st = fab_ucp_agree(ctx, fab_ucp_am_register(s) != FAB_OK);
    if (st == FAB_OK)
        st = fab_ucp_connect(ctx, s);
    if (st == FAB_OK && spec->op != FAB_UCP_TAG && spec->op != FAB_UCP_AM)
        st = fab_ucp_memory(ctx, s, nb);
    if (st == FAB_OK && spec->op == FAB_UCP_GET && !spec->bw) { /* rank 0's endpoint decides */
        int passive = ctx->rank == 0 && fab_ucp_passive(s->lanes);

        st = FAB_MPI(MPI_Bcast(&passive, 1, MPI_INT, 0, ctx->comm));
        s->passive = passive != 0;
    }
    if (st == FAB_OK) {
        snprintf(fab_ucp_last_lanes, sizeof(fab_ucp_last_lanes), "%s", s->lanes);
        fab_ucp_last_passive = s->passive;
    }
    ctx->timer = ctx->rank == 0;
    ctx->msgs_per_iter = spec->bw ? ctx->window : fab_ucp_pingpong(spec) ? 2.0 : 1.0;
    return st;
}

/* Close the endpoint, progressing the worker until it is: UCX flushes it first (a forced
 * close needs an endpoint made for error handling: "Invalid parameter" otherwise). */
static void fab_ucp_ep_close(fab_ucp_t *s)
{
    ucp_request_param_t rp = {.op_attr_mask = 0}; /* flush, then close (both ranks progress) */

    fab_ucp_wait(s, ucp_ep_close_nbx(s->ep, &rp), "ucp_ep_close_nbx");
}

void fab_ucp_cleanup(fab_kctx_t *ctx, void *state)
{
    fab_ucp_t *s = state;

    if (!s)
        return;
    (void)fab_ucp_done_flush(s); /* a failure was named; the endpoint closes all the same */
    /* neither rank closes while the other may still use the endpoint: both have finished
     * their operations (the harness's iterations end in step) */
    MPI_Barrier(ctx->comm);
    if (s->rkey)
        ucp_rkey_destroy(s->rkey);
    if (s->ep)
        fab_ucp_ep_close(s);
    if (s->memh)
        ucp_mem_unmap(s->uctx, s->memh);
    if (s->worker)
        ucp_worker_destroy(s->worker);
    if (s->uctx)
        ucp_cleanup(s->uctx);
    if (!s->region_ucx)
        free(s->region);
    free(s->lbuf);
    free(s->reqs);
    free(s);
}

/* ------------------------------------------------------------------ description */

static const char *const fab_ucp_calls[] = {"ucp_tag_send_nbx/ucp_tag_recv_nbx", "ucp_put_nbx",
                                            "ucp_get_nbx", "ucp_am_send_nbx", "ucp_atomic_op_nbx"};
static const char *const fab_ucp_amos[] = {"UCP_ATOMIC_OP_ADD, then ucp_ep_flush_nbx",
                                           "UCP_ATOMIC_OP_ADD with its result",
                                           "UCP_ATOMIC_OP_SWAP", "UCP_ATOMIC_OP_CSWAP"};
static const char *const fab_ucp_bw_ends[] = {"rank 1's acknowledgement", "ucp_ep_flush_nbx",
                                              "ucp_ep_flush_nbx", "rank 1's acknowledgement"};

void fab_ucp_describe(const fab_ucp_spec_t *spec, const fab_kctx_t *ctx, char *buf, size_t len)
{
    if (spec->op == FAB_UCP_AMO)
        snprintf(buf, len,
                 "rank 0 to 1: one %s (%s) on a 64-bit word of rank 1's memory, completed, then "
                 "a 1-byte tag message to rank 1; whole iterations, including remote completion "
                 "(ucx_perftest -t %s -O 1); UCX_TLS %s; lanes %s",
                 fab_ucp_calls[spec->op], fab_ucp_amos[spec->amo], spec->perftest, fab_ucp_tls(),
                 fab_ucp_last_lanes);
    else if (spec->op == FAB_UCP_GET && !spec->bw)
        snprintf(buf, len,
                 "rank 0 from 1: one %s of the size, completed (the data is here)%s; whole "
                 "iterations, the round trip (ucx_perftest -t %s -O 1); UCX_TLS %s; lanes %s",
                 fab_ucp_calls[spec->op],
                 fab_ucp_last_passive
                     ? "; rank 1 passive (its transport serves the get without it)"
                     : ", then a 1-byte tag message to rank 1, which progresses meanwhile (its "
                       "transport needs it to serve the get)",
                 spec->perftest, fab_ucp_tls(), fab_ucp_last_lanes);
    else if (spec->bw)
        snprintf(buf, len,
                 "rank 0 to 1: %d x %s of the size%s, then %s; whole iterations, including remote "
                 "completion (ucx_perftest -t %s streams without a completion per window); "
                 "UCX_TLS %s; lanes %s",
                 ctx->window, fab_ucp_calls[spec->op],
                 spec->op != FAB_UCP_PUT && spec->op != FAB_UCP_GET ? ""
                 : fab_ucp_opt.same ? " at one place (--ucp-same-buffer, ucx_perftest's)"
                                    : " spread over the window",
                 fab_ucp_bw_ends[spec->op], spec->perftest, fab_ucp_tls(), fab_ucp_last_lanes);
    else
        snprintf(buf, len,
                 "ranks 0 and 1 in turn: %s of the size%s; a ping-pong reported as half the "
                 "round trip, including remote completion (ucx_perftest -t %s); UCX_TLS %s; "
                 "lanes %s",
                 fab_ucp_calls[spec->op],
                 spec->op == FAB_UCP_PUT ? ", its arrival seen by its last byte" : "",
                 spec->perftest, fab_ucp_tls(), fab_ucp_last_lanes);
}
