/* SPDX-License-Identifier: BSD-3-Clause */
/* The UCX transport probe: an endpoint between two measured ranks, whose lanes say which
 * transport and device UCX chose. It is made on MPI's own UCX worker (pml ucx) when UCX's object
 * tree shows it, else on a context and worker of its own built from the same UCX_* environment
 * MPI's pml ucx reads. It runs after the measurements (or before them under --strict-fabric). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>
#if defined(__has_include)
#if __has_include(<ucs/vfs/base/vfs_obj.h>)
#include <ucs/datastruct/string_buffer.h>
#include <ucs/vfs/base/vfs_obj.h>
#define FAB_HAVE_UCS_VFS 1
#endif
#endif

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/testhook.h"
#include "net/transport.h"

/* Whether UCX's report lists lane `lane` among the endpoint's RMA lanes (those that carry
 * ucp_put and ucp_get): UCX 1.13 gives them no word on the lane's line but a "put[N]:" and a
 * "get[N]:" line each; -1 (no lane number): no. */
static bool fab_ucx_rma_lane(const char *info, long lane)
{
    char put[32], get[32];

    if (lane < 0)
        return false;
    snprintf(put, sizeof(put), " put[%ld]:", lane);
    snprintf(get, sizeof(get), " get[%ld]:", lane);
    return strstr(info, put) || strstr(info, get);
}

/* Whether a role list ("rma_bw#0 am am_bw#0") already has an RMA word: "rma" or "rma#N" (as
 * UCX versions that print it on the lane's line do), not "rma_bw#N". */
static bool fab_ucx_has_rma_word(const char *roles, size_t n)
{
    size_t i = 0;

    while (i < n) {
        size_t w = 0;

        while (i + w < n && roles[i + w] != ' ')
            w++;
        if (w >= 3 && strncmp(roles + i, "rma", 3) == 0 && (w == 3 || roles[i + 3] == '#'))
            return true;
        i += w + 1;
    }
    return false;
}

/* "#  lane[0]:  3:sysv/memory.0 md[2] -> ... am am_bw#0" -> "sysv/memory[am am_bw#0]", with
 * "rma" first where the report's put or get lines name the lane and its line does not */
void fab_ucx_parse_lanes(const char *info, char *out, size_t len)
{
    size_t n = 0;
    const char *p = info;

    out[0] = '\0';
    while ((p = strstr(p, "lane[")) != NULL) {
        const char *colon = strstr(p, "]:"), *tl, *dot, *arrow, *eol, *roles = NULL;
        char tlname[96], rolebuf[256], *num_end;
        long lane = strtol(p + 5, &num_end, 10);
        size_t nroles = 0;
        bool add;

        if (!colon)
            break;
        if (num_end == p + 5 || num_end != colon)
            lane = -1; /* "lane[" without a number and "]:" after it */
        tl = strchr(colon + 2, ':');
        eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        if (!tl || tl > eol) {
            p = eol;
            continue;
        }
        tl++;
        dot = tl;
        while (dot < eol && *dot != '.' && *dot != ' ')
            dot++;
        snprintf(tlname, sizeof(tlname), "%.*s", (int)(dot - tl), tl);
        arrow = strstr(tl, "->");
        if (arrow && arrow < eol) {
            roles = strchr(arrow + 3, ' ');
            if (roles && roles < eol) {
                roles++;
                nroles = (size_t)(eol - roles);
                while (nroles > 0 && (roles[nroles - 1] == ' ' || roles[nroles - 1] == '\r'))
                    nroles--;
            }
        }
        add = fab_ucx_rma_lane(info, lane) && !fab_ucx_has_rma_word(roles, nroles);
        snprintf(rolebuf, sizeof(rolebuf), "%s%s%.*s", add ? "rma" : "", add && nroles ? " " : "",
                 (int)nroles, nroles ? roles : "");
        n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s[%s]", n ? " " : "", tlname,
                              rolebuf);
        p = eol;
    }
    if (!out[0])
        snprintf(out, len, "unknown (no lanes in UCX endpoint info)");
}

bool fab_probe_small_rx_pool(void)
{
    /* UCX warns of a setting no transport of the context takes (MM_RX_BUFS_GROW under
     * UCX_TLS=tcp): only where its default transports, shared memory among them, are in use. */
    const char *mm[] = {"UCX_MM_RX_BUFS_GROW",
                        "UCX_SYSV_RX_BUFS_GROW",
                        "UCX_POSIX_RX_BUFS_GROW",
                        "UCX_XPMEM_RX_BUFS_GROW",
                        "UCX_TLS",
                        "UCX_SHM_DEVICES"};

    for (size_t i = 0; i < sizeof(mm) / sizeof(*mm); i++)
        if (getenv(mm[i]))
            return false;
    return true;
}

/* MPI's own UCX worker (pml ucx), or NULL: the probe then makes a context of its own. */
static ucp_worker_h fab_mpi_worker;

#ifdef FAB_HAVE_UCS_VFS
typedef struct {
    int n;
    char name[64];
} fab_vfs_dir_t;

/* ucs_vfs_path_list_dir's callback: count the entries, keep the first name. */
static void fab_vfs_entry(const char *name, void *arg)
{
    fab_vfs_dir_t *d = arg;

    if (d->n++ == 0)
        snprintf(d->name, sizeof(d->name), "%s", name);
}

/* The one entry of a directory of UCX's object tree, or false. */
static bool fab_vfs_only(const char *path, fab_vfs_dir_t *d)
{
    memset(d, 0, sizeof(*d));
    return ucs_vfs_path_list_dir(path, fab_vfs_entry, d) == UCS_OK && d->n == 1 &&
           strlen(d->name) < sizeof(d->name) - 1;
}
#endif

/* Right after MPI_Init under pml ucx the process has one UCP context, the pml's, with one
 * worker; UCX lists them in its object tree (UCX >= 1.11; UCX_VFS_ENABLE=n turns off only its
 * FUSE view) under their addresses. Anything else (no tree, more contexts or workers): NULL. */
static ucp_worker_h fab_vfs_mpi_worker(void)
{
    void *p = NULL;
#ifdef FAB_HAVE_UCS_VFS
    fab_vfs_dir_t ctx, wrk;
    char path[256], want[80];
    ucs_string_buffer_t sb;
    bool same = false;

    if (!fab_vfs_only("/ucp/context", &ctx))
        return NULL;
    snprintf(path, sizeof(path), "/ucp/context/%s/worker", ctx.name);
    if (!fab_vfs_only(path, &wrk))
        return NULL;
    snprintf(path, sizeof(path), "/ucp/context/%s/worker/%s/memory_address", ctx.name, wrk.name);
    ucs_string_buffer_init(&sb);
    /* The worker's directory is named by its address too: both must say the same. */
    if (ucs_vfs_path_read_file(path, &sb) == UCS_OK &&
        sscanf(ucs_string_buffer_cstr(&sb), "%p", &p) == 1 && p) {
        snprintf(want, sizeof(want), "%p", p);
        same = strcmp(want, wrk.name) == 0;
    }
    ucs_string_buffer_cleanup(&sb);
    if (!same)
        p = NULL;
#endif
    return p;
}

void fab_transport_find_mpi_worker(void)
{
    static int own = -1; /* FABRICBENCH_TEST_PROBE_OWN=1: as where MPI's worker is not found */

    fab_mpi_worker =
        fab_test_switch("FABRICBENCH_TEST_PROBE_OWN", &own) ? NULL : fab_vfs_mpi_worker();
    FAB_DEBUG("UCX probe: %s", fab_mpi_worker ? "on MPI's own UCX worker (pml ucx)"
                                              : "MPI's UCX worker not found; a context of its own");
}

/* A UCX context and worker from the UCX_* environment, and the worker's address; *alen 0
 * (said once) when a step failed. */
static void fab_ucx_open(ucp_context_h *ctx, ucp_worker_h *worker, ucp_address_t **addr,
                         size_t *alen)
{
    ucp_config_t *cfg = NULL;
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    ucs_status_t us = ucp_config_read(NULL, NULL, &cfg);

    /* Memory only: the pool's growth is no attribute lanes are chosen by (the lanes with and
     * without it: docs/PERFORMANCE.md, start-up). */
    if (us == UCS_OK && fab_probe_small_rx_pool() &&
        ucp_config_modify(cfg, "MM_RX_BUFS_GROW", FAB_PROBE_RX_GROW) != UCS_OK)
        FAB_DEBUG("UCX probe: MM_RX_BUFS_GROW not accepted; the pool grows as UCX's default");
    if (us == UCS_OK) {
        us = ucp_init(&params, cfg, ctx);
        ucp_config_release(cfg);
    }
    if (us == UCS_OK)
        us = ucp_worker_create(*ctx, &wp, worker);
    if (us == UCS_OK)
        us = ucp_worker_get_address(*worker, addr, alen);
    if (us != UCS_OK) {
        FAB_WARN("UCX probe could not start: %s", ucs_status_string(us));
        *alen = 0;
    }
}

/* The lanes UCX prints for the endpoint, parsed into out. */
static void fab_ucx_ep_lanes(ucp_ep_h ep, char *out, size_t len)
{
    char *info = NULL;
    size_t infolen = 0;
    FILE *mem = open_memstream(&info, &infolen);

    if (!mem)
        return;
    ucp_ep_print_info(ep, mem);
    fclose(mem);
    fab_ucx_parse_lanes(info, out, len);
    free(info);
}

/* Close the endpoint, progressing the worker until it is closed. A forced close needs an
 * endpoint made for error handling (UCX refuses it otherwise, "Invalid parameter", and the
 * endpoint stays), which MPI's pml ucx does not make and whose lanes could differ: the close
 * flushes, the peer closing its own at the same moment. Bounded: a peer that stopped leaves
 * the request to complete later (freed now, released by UCX then). */
static void fab_ucx_ep_close(ucp_worker_h worker, ucp_ep_h ep)
{
    ucp_request_param_t rp = {.op_attr_mask = 0};
    void *req = ucp_ep_close_nbx(ep, &rp);
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS) {
        ucp_worker_progress(worker);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > 5.0) {
            FAB_WARN("UCX probe: its endpoint did not close within 5 s (the peer does not "
                     "answer); left to UCX");
            break;
        }
    }
    if (UCS_PTR_IS_PTR(req))
        ucp_request_free(req);
    else if (UCS_PTR_STATUS(req) != UCS_OK)
        FAB_WARN("UCX probe: closing its endpoint: %s", ucs_status_string(UCS_PTR_STATUS(req)));
}

/* Both sides have an address (alen, plen bytes): exchange them, make the endpoint to the peer's
 * and keep its lanes in out; close it only after both sides have theirs. */
static fab_status_t fab_ucx_connect(ucp_worker_h worker, int peer, ucp_address_t *addr, size_t alen,
                                    size_t plen, char *out, size_t len)
{
    void *paddr = malloc(plen);
    ucp_ep_h ep = NULL;
    char dummy = 0;
    fab_status_t st;

    /* Without memory for the peer's address, receive nothing: MPI reports a truncation
     * instead of the peer waiting forever. */
    st = FAB_MPI(MPI_Sendrecv(addr, (int)alen, MPI_BYTE, peer, 9101, paddr ? paddr : addr,
                              paddr ? (int)plen : 0, MPI_BYTE, peer, 9101, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
    if (!paddr && st == FAB_OK)
        st = FAB_ERR_NOMEM;
    if (st == FAB_OK && paddr) {
        ucp_ep_params_t ep_params = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                                     .address = paddr};
        ucs_status_t us = ucp_ep_create(worker, &ep_params, &ep);

        if (us != UCS_OK)
            FAB_WARN("UCX probe endpoint failed: %s", ucs_status_string(us));
    }
    if (ep)
        fab_ucx_ep_lanes(ep, out, len);
    MPI_Sendrecv(&dummy, 1, MPI_CHAR, peer, 9102, &dummy, 1, MPI_CHAR, peer, 9102, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (ep)
        fab_ucx_ep_close(worker, ep);
    free(paddr);
    return st;
}

/* The context and worker of a probe left to the exit: still reachable, for leak checkers. */
static void *volatile fab_probe_kept[2];

/* A probe endpoint between world ranks a and b, on MPI's worker or on one of the probe's own
 * built from the same UCX_* environment MPI's pml ucx reads; UCX prints the lanes it chose
 * and we keep rank a's view.
 *
 * It runs after the measurements: measured on a 2-core VM, a second UCX context created
 * before measuring made the following 1 MiB shared-memory bandwidth of MPI up to 20% higher
 * than a plain MPI program's, so a probe first would make fabricbench disagree with tools
 * that have none. */
static fab_status_t fab_ucx_probe(int peer, bool at_exit, char *out, size_t len)
{
    ucp_context_h ctx = NULL;
    ucp_worker_h worker = NULL;
    ucp_address_t *addr = NULL;
    size_t alen = 0, plen = 0;
    fab_status_t st;

    snprintf(out, len, "unknown (UCX probe failed)");
    if (fab_mpi_worker) {
        /* MPI's worker: the lanes are MPI's own for this peer (the same worker, the peer's
         * address, the pml's endpoint parameters), at the cost of one endpoint. */
        ucs_status_t us = ucp_worker_get_address(fab_mpi_worker, &addr, &alen);

        worker = fab_mpi_worker;
        if (us != UCS_OK) {
            FAB_WARN("UCX probe could not start: %s", ucs_status_string(us));
            addr = NULL;
            alen = 0;
        }
    } else {
        fab_ucx_open(&ctx, &worker, &addr, &alen);
    }
    /* Both sides exchange lengths even on failure, so neither waits forever. */
    st = FAB_MPI(MPI_Sendrecv(&alen, sizeof(alen), MPI_BYTE, peer, 9100, &plen, sizeof(plen),
                              MPI_BYTE, peer, 9100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (st == FAB_OK && alen && plen)
        st = fab_ucx_connect(worker, peer, addr, alen, plen, out, len);
    if (addr)
        ucp_worker_release_address(worker, addr);
    /* At the end of the run the worker and the context are left to the process's exit, which
     * frees the same: their clean-up cost 2.2-2.9 ms of CPU a rank (UCX 1.13 queries each TCP
     * interface again for every active message handler it resets, and UCM reads
     * /proc/self/maps for every shared-memory segment detached; docs/PERFORMANCE.md). */
    if (worker == fab_mpi_worker) /* MPI's: nothing of the probe's own is left */
        return st;
    if (at_exit) {
        fab_probe_kept[0] = ctx;
        fab_probe_kept[1] = worker;
        return st;
    }
    if (worker)
        ucp_worker_destroy(worker);
    if (ctx)
        ucp_cleanup(ctx);
    return st;
}

/* Two distinct ranks of this world. */
static bool fab_pair_ok(const fab_world_t *w, int a, int b)
{
    return a != b && a >= 0 && b >= 0 && a < w->size && b < w->size;
}

fab_status_t fab_transport_probe_pairs(const fab_world_t *w, int n, const int *a, const int *b,
                                       bool at_exit, char *out, size_t len)
{
    char mine[FAB_LANES_LEN] = "not probed (this rank is in no probed pair)";
    fab_status_t st = FAB_OK;

    for (int i = 0; i < n; i++) {
        if (w->rank == 0)
            snprintf(out + (size_t)i * len, len, "not probed (needs two distinct ranks)");
        if (!fab_pair_ok(w, a[i], b[i]))
            continue;
        if (w->rank == a[i] || w->rank == b[i])
            st = fab_ucx_probe(w->rank == a[i] ? b[i] : a[i], at_exit, mine, sizeof(mine));
    }
    /* Each pair's rank a reports to rank 0 whatever happened, so rank 0 never waits for
     * nothing. */
    for (int i = 0; i < n; i++) {
        fab_status_t sst = FAB_OK;
        char got[FAB_LANES_LEN];

        if (!fab_pair_ok(w, a[i], b[i]))
            continue;
        if (a[i] == 0) {
            if (w->rank == 0)
                snprintf(out + (size_t)i * len, len, "%s", mine);
            continue;
        }
        if (w->rank == a[i])
            sst = FAB_MPI(MPI_Send(mine, sizeof(mine), MPI_CHAR, 0, 9103, MPI_COMM_WORLD));
        else if (w->rank == 0) {
            sst = FAB_MPI(MPI_Recv(got, sizeof(got), MPI_CHAR, a[i], 9103, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
            if (sst == FAB_OK)
                snprintf(out + (size_t)i * len, len, "%s", got);
        }
        if (st == FAB_OK)
            st = sst;
    }
    return st;
}
