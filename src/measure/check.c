/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks before anything is measured: rank counts, option combinations a kernel refuses, and
 * whether the buffers fit (memory available on the host, the address-space limit), agreed
 * by every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/log.h"
#include "core/timing.h"
#include "kernel/dtype.h"
#include "kernel/traits.h"
#include "measure/arrival.h"
#include "measure/check.h"
#include "measure/plan.h"

/* Memory this host can give: MemAvailable from /proc/meminfo, bytes (0 if unknown). */
static size_t fab_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)kb * 1024;
}

/* Bytes this process may still map under its address-space limit (ulimit -v); SIZE_MAX
 * when there is none. */
static size_t fab_address_headroom(void)
{
    struct rlimit rl;
    unsigned long long pages = 0;
    size_t used;
    FILE *f;

    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
    return rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 0;
}

static fab_status_t fab_check_ranks(const fab_world_t *w, const fab_measopts_t *mopt,
                                    const fab_netopts_t *nopt, const fab_kinst_t *ki, char *msg,
                                    size_t len, char *hint, size_t hlen,
                                    fab_nodes_check_fn nodes_check, const void *nodes_arg)
{
    const fab_kernel_t *k = ki->k;

    if (w->size < k->min_ranks) {
        snprintf(msg, len, "kernel '%s' needs at least %d ranks; this run has %d", k->name,
                 k->min_ranks, w->size);
        snprintf(hint, hlen, "start it with mpirun -np %d (or srun -n %d)", k->min_ranks,
                 k->min_ranks);
        return FAB_ERR_CONFIG;
    }
    if (k->rank_multiple > 1 && w->size % k->rank_multiple != 0) {
        snprintf(msg, len,
                 "kernel '%s' needs a multiple of %d ranks (the first half sends to the second "
                 "half); this run has %d",
                 k->name, k->rank_multiple, w->size);
        snprintf(hint, hlen, "use mpirun -np %d or -np %d", w->size - w->size % k->rank_multiple,
                 w->size - w->size % k->rank_multiple + k->rank_multiple);
        return FAB_ERR_CONFIG;
    }
    if (k->check) { /* what the kernel itself refuses (its own options, say) */
        fab_sizes_t tmp;
        fab_kctx_t ctx;
        fab_status_t st = fab_plan_ctx(ki, mopt, nopt, fab_plan_ranks(k, w),
                                       fab_kernel_sizes(k, mopt, &tmp), &ctx);

        if (st != FAB_OK) {
            snprintf(msg, len, "kernel '%s': %s while checking it", k->name, fab_status_string(st));
            return st;
        }
        st = k->check(&ctx, msg, len, hint, hlen);
        fab_dtype_free(&ctx.dtype);
        if (st != FAB_OK)
            return st;
    }
    if (fab_kcoll(k)->uses_root && mopt->root >= w->size) {
        snprintf(msg, len, "--root %d: rank %d does not exist; this run has ranks 0 to %d",
                 mopt->root, mopt->root, w->size - 1);
        snprintf(hint, hlen, "pick a root below %d, or -1 to rotate it", w->size);
        return FAB_ERR_CONFIG;
    }
    {
        fab_straggle_t sg;

        if (fab_straggle_parse(mopt->straggle, &sg, msg, len) == FAB_OK && sg.rank >= w->size) {
            snprintf(msg, len,
                     "--straggle %.40s: rank %d does not exist; this run has ranks 0 to %d",
                     mopt->straggle, sg.rank, w->size - 1);
            snprintf(hint, hlen, "pick a rank below %d", w->size);
            return FAB_ERR_CONFIG;
        }
    }
    if (fab_kranks(k) == FAB_RANKS_NODES)
        return nodes_check(w, mopt, nodes_arg, k, msg, len, hint, hlen);
    if (fab_kranks(k) == FAB_RANKS_PAIR && (mopt->pair.a >= w->size || mopt->pair.b >= w->size)) {
        snprintf(msg, len, "--pair %d,%d: rank %d does not exist; this run has ranks 0 to %d",
                 mopt->pair.a, mopt->pair.b, mopt->pair.a >= w->size ? mopt->pair.a : mopt->pair.b,
                 w->size - 1);
        snprintf(hint, hlen, "pick two ranks below %d", w->size);
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

/* The slot of a kernel's message buffers: its largest size, or what the kernel fits that to
 * (a collective's whole blocks; an uneven all-to-all's busiest rank, several times -m's bytes), as
 * fab_plan_ctx gives the buffers. */
static size_t fab_check_slot(const fab_kinst_t *ki, const fab_measopts_t *mopt,
                             const fab_netopts_t *nopt, int nranks, const fab_sizes_t *sizes)
{
    size_t slot = fab_sizes_max(sizes);
    fab_kctx_t ctx;

    if (fab_kcoll(ki->k)->fit_bytes &&
        fab_plan_ctx(ki, mopt, nopt, nranks, sizes, &ctx) == FAB_OK) {
        slot = ctx.max_bytes > slot ? ctx.max_bytes : slot;
        fab_dtype_free(&ctx.dtype);
    }
    return slot;
}

/* `run ladder`: one pair through every layer (a socket kernel of all ranks would measure several
 * pairs), said before a message about one of its kernels, which would not say so. */
static fab_status_t fab_check_ladder(const fab_world_t *w, const fab_launchopts_t *lopt, char *msg,
                                     size_t len, char *hint, size_t hlen)
{
    if (!lopt->ladder || w->size == 2)
        return FAB_OK;
    snprintf(msg, len,
             "run ladder measures one pair through each layer and needs 2 ranks; this run has %d",
             w->size);
    snprintf(hint, hlen,
             "start it with mpirun -np 2 (or srun -n 2), one rank on each host to compare; with "
             "more ranks, name the layers' kernels instead (fabricbench list)");
    return FAB_ERR_CONFIG;
}

fab_status_t fab_run_check(const fab_world_t *w, const fab_launchopts_t *lopt,
                           const fab_measopts_t *mopt, const fab_netopts_t *nopt,
                           fab_nodes_check_fn nodes_check, const void *nodes_arg)
{
    char msg[512] = "", hint[256] = "";
    fab_status_t st;
    size_t avail = fab_mem_available(), headroom = fab_address_headroom();

    /* The timer first: the header reports it, and --timer tsc may be refused. */
    st = fab_timer_init(mopt->timer, msg, sizeof(msg));
    if (st != FAB_OK)
        snprintf(hint, sizeof(hint), "use --timer auto or --timer clock");
#ifdef FAB_SIM
    if (st == FAB_OK && mopt->validate) { /* the ranks share their buffers (core/sim.h) */
        snprintf(msg, sizeof(msg), "--validate: a simulated build moves no data to check");
        snprintf(hint, sizeof(hint), "leave --validate out, or run the normal build");
        st = FAB_ERR_CONFIG;
    }
    if (st == FAB_OK && ((nopt->fabric && strcmp(nopt->fabric, "any") != 0) || nopt->device)) {
        snprintf(msg, sizeof(msg), "--fabric/--device: a simulated build has no fabric to choose");
        snprintf(hint, sizeof(hint), "leave them out (the platform describes the network)");
        st = FAB_ERR_CONFIG;
    }
#endif

    /* Rank counts are the same everywhere: every rank reaches the same verdict. */
    if (st == FAB_OK)
        st = fab_check_ladder(w, lopt, msg, sizeof(msg), hint, sizeof(hint));
    for (int i = 0; i < lopt->nkernels && st == FAB_OK; i++)
        st = fab_check_ranks(w, mopt, nopt, &lopt->kernels[i], msg, sizeof(msg), hint, sizeof(hint),
                             nodes_check, nodes_arg);
    /* Memory is per host: each rank checks its own host, counting every rank there that takes
     * part (a pair kernel: at most two). */
    for (int i = 0; i < lopt->nkernels && st == FAB_OK; i++) {
        const fab_kernel_t *k = lopt->kernels[i].k;
        fab_sizes_t tmp;
        const fab_sizes_t *sizes = fab_kernel_sizes(k, mopt, &tmp);
        size_t own = fab_own_bytes(&lopt->kernels[i], mopt, nopt, fab_plan_ranks(k, w), sizes);
        size_t slot = fab_check_slot(&lopt->kernels[i], mopt, nopt, fab_plan_ranks(k, w), sizes);
        size_t need = fab_buffer_bytes(k, mopt, slot) + own;
        int here = fab_kranks(k) == FAB_RANKS_PAIR && w->local_ranks > 2 ? 2 : w->local_ranks;
        size_t host_need = need * (size_t)here;
        char what[160], sz[32];
        const char *lower = own * 2 > need && fab_kmem(k)->hint ? fab_kmem(k)->hint
                                                                : "lower the largest size in -m";

        if (!fab_rank_active(k, mopt, w->rank))
            continue;
        fab_size_format(slot, sz, sizeof(sz));
        if (fab_kcoll(k)->no_sizes)
            snprintf(what, sizeof(what), "kernel '%s'", k->name);
        else
            snprintf(what, sizeof(what), "kernel '%s' at %s per message", k->name, sz);
        if (need > headroom) {
            snprintf(msg, sizeof(msg),
                     "%s needs %.2f GB of buffers, but this process may map only %.2f GB more "
                     "(address-space limit, ulimit -v)",
                     what, need / 1e9, headroom / 1e9);
            snprintf(hint, sizeof(hint), "%s, or raise ulimit -v", lower);
            st = FAB_ERR_CONFIG;
            break;
        }
        if (avail == 0 || host_need <= avail / 10 * 9)
            continue;
        snprintf(msg, sizeof(msg),
                 "%s needs %.2f GB of buffers per rank, %.2f GB for the %d ranks on host %s, "
                 "which has %.2f GB available",
                 what, need / 1e9, host_need / 1e9, here, w->host, avail / 1e9);
        snprintf(hint, sizeof(hint), "%s, or run fewer ranks per node", lower);
        st = FAB_ERR_CONFIG;
    }
    return fab_agree_msg(w, st, msg, hint);
}
