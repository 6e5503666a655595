/* Checks before anything is measured: rank counts, option combinations a kernel refuses, and
 * whether the buffers fit (memory available on the host, the address-space limit), agreed
 * by every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/log.h"
#include "kernel/dtype.h"
#include "measure/check.h"
#include "measure/plan.h"
#include "measure/timing.h"

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

static fab_status_t fab_check_ranks(const fab_world_t *w, const fab_opts_t *o,
                                    const fab_kernel_t *k, char *msg, size_t len, char *hint,
                                    size_t hlen)
{
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
    if (k->no_sizes && k->fit_bytes && o->nonblocking) {
        snprintf(msg, len,
                 "kernel '%s' has its own non-blocking mode; --nonblocking and "
                 "--overlap-compute do not apply to it",
                 k->name);
        snprintf(hint, hlen, "use --inflight K for buckets in flight");
        return FAB_ERR_CONFIG;
    }
    if (k->no_sizes && k->fit_bytes) { /* gradsync: buckets of whole elements, not too many */
        size_t esz = o->dtype == FAB_DT_FLOAT64                                  ? 8
                     : o->dtype == FAB_DT_BFLOAT16 || o->dtype == FAB_DT_FLOAT16 ? 2
                                                                                 : 4;
        double nb = o->params * (double)esz / (double)(o->bucket / esz * esz);

        if (!(o->params >= 1.0) || o->params != floor(o->params)) {
            snprintf(msg, len, "--params %g: not a whole number of parameters of at least 1",
                     o->params);
            snprintf(hint, hlen, "give the model's parameter count, e.g. --params 7e9");
            return FAB_ERR_CONFIG;
        }
        if (o->bucket < esz || nb > 1e6) {
            snprintf(msg, len, "--bucket %zu bytes: %s", o->bucket,
                     o->bucket < esz ? "smaller than one element"
                                     : "more than a million buckets per sync");
            snprintf(hint, hlen,
                     "use buckets of at least %zu bytes and at most %.0f buckets; "
                     "frameworks use tens of MiB (25M is the default)",
                     o->bucket < esz ? esz : (size_t)(o->params * (double)esz / 1e6), 1e6);
            return FAB_ERR_CONFIG;
        }
    }
    if (k->uses_root && o->root >= w->size) {
        snprintf(msg, len, "--root %d: rank %d does not exist; this run has ranks 0 to %d", o->root,
                 o->root, w->size - 1);
        snprintf(hint, hlen, "pick a root below %d, or -1 to rotate it", w->size);
        return FAB_ERR_CONFIG;
    }
    if (k->ranks == FAB_RANKS_PAIR && (o->pair_a >= w->size || o->pair_b >= w->size)) {
        snprintf(msg, len, "--pair %d,%d: rank %d does not exist; this run has ranks 0 to %d",
                 o->pair_a, o->pair_b, o->pair_a >= w->size ? o->pair_a : o->pair_b, w->size - 1);
        snprintf(hint, hlen, "pick two ranks below %d", w->size);
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

fab_status_t fab_run_check(const fab_world_t *w, const fab_opts_t *o)
{
    char msg[512] = "", hint[256] = "";
    fab_status_t st;
    size_t avail = fab_mem_available(), headroom = fab_address_headroom();

    /* The timer first: the header reports it, and --timer tsc may be refused. */
    st = fab_timer_init(o->timer, msg, sizeof(msg));
    if (st != FAB_OK)
        snprintf(hint, sizeof(hint), "use --timer auto or --timer clock");

    /* Rank counts are the same everywhere: every rank reaches the same verdict. */
    for (int i = 0; i < o->nkernels && st == FAB_OK; i++)
        st = fab_check_ranks(w, o, o->kernels[i], msg, sizeof(msg), hint, sizeof(hint));
    /* Memory is per host: each rank checks its own host, counting every rank there that takes
     * part (a pair kernel: at most two). */
    for (int i = 0; i < o->nkernels && st == FAB_OK; i++) {
        const fab_kernel_t *k = o->kernels[i];
        fab_sizes_t tmp;
        size_t maxb = fab_sizes_max(fab_kernel_sizes(k, o, &tmp));
        size_t own = fab_own_bytes(k, o), need = fab_buffer_bytes(k, o, maxb) + own;
        int here = k->ranks == FAB_RANKS_PAIR && w->local_ranks > 2 ? 2 : w->local_ranks;
        size_t host_need = need * (size_t)here;
        char what[160], sz[32];
        const char *lower = own * 2 > need && k->own_bytes_hint ? k->own_bytes_hint
                                                                : "lower the largest size in -m";

        if (!fab_rank_active(k, o, w->rank))
            continue;
        fab_size_format(maxb, sz, sizeof(sz));
        if (k->no_sizes)
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
