/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided kernels' pure logic: --rma-flush, --rma-pattern and --rma-target-busy parsed,
 * where each applies (the refusals' messages), the ranks a pattern runs on, the counts the rows
 * record and the description. */
#include <stdarg.h>
#include <stdlib.h>

#include "check.h"
#include "optparse.h"
#include "kernel/fab_kernel.h"
#include "kernel/registry.h"
#include "kernel/traits.h"
#include "rma/rma.h"
#include "rma/rma_int.h"

static const size_t sizes[] = {4, 4096};

/* The help of option `name` among the one-sided kernels' options (NULL none). */
static const char *rma_help(const char *name)
{
    for (int i = 0; i < fab_rma_kopts.n; i++)
        if (strcmp(fab_rma_kopts.rows[i].name, name) == 0)
            return fab_rma_kopts.rows[i].help;
    return NULL;
}

/* The meaning of column `name` among the one-sided kernels' columns (NULL none). */
static const char *rma_doc(const char *name)
{
    for (int i = 0; i < fab_rma_columns.nkcols; i++)
        if (strcmp(fab_rma_columns.kcols[i].name, name) == 0)
            return fab_rma_columns.kcols[i].doc;
    return NULL;
}

/* The kernel's check on `size` ranks after parsing the words; *msg its message ("" none). */
static fab_status_t check_of(const char *name, int size, char *msg, int n, ...)
{
    const fab_kernel_t *k = fab_kernel_find(name);
    fab_opts_t o;
    fab_cmd_t cmd;
    fab_kctx_t ctx;
    char err[256], hint[256] = "";
    char *argv[16] = {"run", (char *)name};
    va_list ap;
    fab_status_t st;

    va_start(ap, n);
    for (int i = 0; i < n && i < 14; i++)
        argv[2 + i] = va_arg(ap, char *);
    va_end(ap);
    msg[0] = '\0';
    switch (n) { /* fab_test_parse takes its words as arguments */
    case 0:
        st = fab_test_parse(&o, &cmd, err, 2, argv[0], argv[1]);
        break;
    case 2:
        st = fab_test_parse(&o, &cmd, err, 4, argv[0], argv[1], argv[2], argv[3]);
        break;
    case 3:
        st = fab_test_parse(&o, &cmd, err, 5, argv[0], argv[1], argv[2], argv[3], argv[4]);
        break;
    case 4:
        st = fab_test_parse(&o, &cmd, err, 6, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]);
        break;
    default:
        return FAB_ERR_INTERNAL;
    }
    if (st != FAB_OK || !k) {
        snprintf(msg, 256, "%.200s", err);
        return FAB_ERR_INTERNAL;
    }
    memset(&ctx, 0, sizeof(ctx));
    ctx.size = size;
    ctx.window = 4;
    ctx.max_bytes = 4096;
    ctx.sizes = sizes;
    ctx.nsizes = strcmp(name, "fop_lat") && strcmp(name, "cas_lat") ? 2 : 1;
    st = k->check(&ctx, msg, 256, hint, sizeof(hint));
    if (st != FAB_OK && !hint[0])
        return FAB_ERR_INTERNAL; /* every refusal says what to do */
    return st;
}

int main(void)
{
    char msg[256];
    const fab_kernel_t *put_bw = fab_kernel_find("put_bw"), *put_lat = fab_kernel_find("put_lat");
    fab_rma_spec_t bw = {"put_bw", "osu_put_bw", FAB_RMA_PUT, true, false};
    fab_rma_spec_t lat = {"put_lat", "osu_put_latency", FAB_RMA_PUT, false, false};
    fab_kctx_t ctx;
    char buf[1024];

    CHECK(put_bw && put_lat);
    /* --rma-flush: defaults to a flush per window; op only for bandwidth under flush(_local) */
    CHECK(check_of("put_bw", 2, msg, 0) == FAB_OK);
    CHECK(fab_rma_flush_applies(&bw, FAB_RMA_SYNC_FLUSH) &&
          !fab_rma_flush_per_op(&bw, FAB_RMA_SYNC_FLUSH));
    CHECK(check_of("put_bw", 2, msg, 2, "--rma-flush", "op") == FAB_OK);
    CHECK(fab_rma_flush_per_op(&bw, FAB_RMA_SYNC_FLUSH) &&
          fab_rma_flush_per_op(&bw, FAB_RMA_SYNC_FLUSH_LOCAL));
    CHECK(!fab_rma_flush_per_op(&bw, FAB_RMA_SYNC_LOCK) &&
          !fab_rma_flush_per_op(&lat, FAB_RMA_SYNC_FLUSH));
    CHECK(check_of("get_bw", 2, msg, 4, "--rma-flush", "window", "--rma-sync", "flush_local") ==
          FAB_OK);
    CHECK(check_of("put_lat", 2, msg, 2, "--rma-flush", "op") == FAB_ERR_CONFIG &&
          strstr(msg, "--rma-flush op is refused") && strstr(msg, "one operation per iteration"));
    CHECK(check_of("put_bw", 2, msg, 4, "--rma-flush", "window", "--rma-sync", "lock") ==
              FAB_ERR_CONFIG &&
          strstr(msg, "--rma-sync lock completes its operations without a flush"));
    CHECK(check_of("get_bw", 2, msg, 4, "--rma-flush", "op", "--rma-sync", "fence") ==
              FAB_ERR_CONFIG &&
          strstr(msg, "active target"));

    /* --rma-pattern: the ranks, the counts, put_bibw refused */
    CHECK(check_of("put_lat", 2, msg, 0) == FAB_OK && fab_kranks(put_lat) == FAB_RANKS_PAIR);
    CHECK(fab_rma_origins(4) == 1 && fab_rma_targets(4) == 1);
    CHECK(check_of("put_bw", 4, msg, 2, "--rma-pattern", "one-to-all") == FAB_OK);
    CHECK(fab_kranks(put_bw) == FAB_RANKS_ALL && fab_kranks(put_lat) == FAB_RANKS_ALL);
    CHECK(fab_rma_origins(4) == 1 && fab_rma_targets(4) == 3 && fab_rma_targets(2) == 1);
    memset(&ctx, 0, sizeof(ctx));
    ctx.window = 8;
    put_bw->describe(&ctx, buf, sizeof(buf));
    CHECK(strstr(buf, "one-to-all, rank 0 to every other rank") &&
          strstr(buf, "8 to each target per flush") && strstr(buf, "a flush per window"));
    CHECK(check_of("put_bw", 3, msg, 2, "--rma-pattern", "all-to-all") == FAB_OK);
    CHECK(fab_rma_origins(3) == 3 && fab_rma_targets(3) == 2);
    CHECK(!fab_rma_pingpong(&lat, FAB_RMA_SYNC_FENCE)); /* one way in a pattern */
    CHECK(check_of("put_bibw", 4, msg, 2, "--rma-pattern", "all-to-all") == FAB_ERR_CONFIG &&
          strstr(msg, "--rma-pattern all-to-all is refused"));
    CHECK(check_of("put_lat", 2, msg, 2, "--rma-pattern", "pairs") == FAB_OK &&
          fab_rma_pingpong(&lat, FAB_RMA_SYNC_FENCE));
    /* kernels' memory: every rank's region in a pattern */
    CHECK(check_of("put_bw", 4, msg, 2, "--rma-pattern", "all-to-all") == FAB_OK);
    ctx.size = 4;
    ctx.window = 4;
    ctx.max_bytes = 4096;
    CHECK(fab_kmem(put_bw)->own_bytes(&ctx) == 2 * 4 * 4 * 4096 + 8 * 4 + 64);

    /* --rma-target-busy: passive target only, not all-to-all */
    CHECK(check_of("put_lat", 2, msg, 2, "--rma-target-busy", "--rma-sync=lock") == FAB_OK);
    CHECK(check_of("get_lat", 2, msg, 3, "--rma-target-busy", "--rma-sync", "fence") ==
              FAB_ERR_CONFIG &&
          strstr(msg, "--rma-target-busy is refused with --rma-sync fence") &&
          strstr(msg, "active target"));
    CHECK(check_of("acc_lat", 2, msg, 3, "--rma-target-busy", "--rma-sync", "pscw") ==
          FAB_ERR_CONFIG);
    CHECK(check_of("put_lat", 4, msg, 3, "--rma-target-busy", "--rma-pattern", "all-to-all") ==
              FAB_ERR_CONFIG &&
          strstr(msg, "every rank is an origin"));
    CHECK(check_of("put_lat", 4, msg, 3, "--rma-target-busy", "--rma-pattern", "one-to-all") ==
          FAB_OK);
    memset(&ctx, 0, sizeof(ctx));
    put_lat->describe(&ctx, buf, sizeof(buf));
    CHECK(strstr(buf, "targets busy outside MPI (--rma-target-busy)") != NULL);

    /* The numbers the help and the columns name are the constants the code uses */
    CHECK(rma_help("rma-target-busy") && rma_doc("idle_target_us") && rma_doc("passive_ratio") &&
          rma_doc("twosided_lat_us"));
    snprintf(buf, sizeof(buf), "per iteration %dx as long", FAB_RMA_BUSY_FACTOR);
    CHECK(strstr(rma_help("rma-target-busy"), buf) != NULL);
    snprintf(buf, sizeof(buf), "near %d: it waits", FAB_RMA_BUSY_FACTOR);
    CHECK(strstr(rma_help("rma-target-busy"), buf) != NULL);
    snprintf(buf, sizeof(buf), "(%d after %d); each target computes %dx that", FAB_RMA_IDLE_ITERS,
             FAB_RMA_IDLE_WARM, FAB_RMA_BUSY_FACTOR);
    CHECK(strstr(rma_doc("idle_target_us"), buf) != NULL);
    snprintf(buf, sizeof(buf), "near %d it waits", FAB_RMA_BUSY_FACTOR);
    CHECK(strstr(rma_doc("passive_ratio"), buf) != NULL);
    snprintf(buf, sizeof(buf), "the least of %d MPI_Send", FAB_RMA_REF_ITERS);
    CHECK(strstr(rma_doc("twosided_lat_us"), buf) != NULL);

    return fab_test_report("test_rma");
}
