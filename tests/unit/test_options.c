/* SPDX-License-Identifier: BSD-3-Clause */
/* The option table and the parser built on it. */
#include <stdlib.h>

#include "check.h"
#include "optparse.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/timing.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "kernel/registry.h"
#include "net/transport.h"
#include "sock/incast.h"
#include "ucp/ucp_int.h"

/* gradsync's own options reach it: its description of the buckets after parsing them (the
 * dtype set by hand: a 16-bit type needs MPI for its operation). */
static int gradsync_says(const char *params, const char *bucket, size_t elem, const char *want)
{
    const fab_kernel_t *k = fab_kernel_find("gradsync");
    fab_opts_t o;
    fab_cmd_t cmd;
    fab_kctx_t ctx;
    char err[256], buf[512];

    memset(&ctx, 0, sizeof(ctx));
    ctx.dtype.size = elem;
    ctx.dtype.name = elem == 2 ? "bfloat16" : "float32";
    if (fab_test_parse(&o, &cmd, err, 6, "run", "gradsync", "--params", params, "--bucket",
                       bucket) != FAB_OK)
        return 0;
    k->describe(&ctx, buf, sizeof(buf));
    if (!strstr(buf, want))
        fprintf(stderr, "gradsync %s x %zu B, bucket %s: '%s' lacks '%s'\n", params, elem, bucket,
                buf, want);
    return strstr(buf, want) != NULL;
}

/* alltoallv's check on 4 ranks after parsing `run alltoallv` and its options, with -m's sizes
 * (given) or its default (not): FAB_OK, or its refusal's message in msg. */
static fab_status_t a2av_checks(bool given, char *msg, int n, const char *a, const char *b)
{
    const fab_kernel_t *k = fab_kernel_find("alltoallv");
    const size_t sizes[] = {1 << 20};
    fab_opts_t o;
    fab_cmd_t cmd;
    fab_kctx_t ctx;
    char err[256], hint[256];

    memset(&ctx, 0, sizeof(ctx));
    ctx.size = 4;
    ctx.sizes = sizes;
    ctx.nsizes = 1;
    ctx.sizes_given = given;
    ctx.dtype.size = 4;
    msg[0] = '\0';
    if (fab_test_parse(&o, &cmd, err, n, "run", "alltoallv", a, b) != FAB_OK)
        return FAB_ERR_USAGE;
    return k->check(&ctx, msg, 256, hint, sizeof(hint));
}

/* Who takes an option: a kernel's option names, in the warning of a run that measures none of
 * them, the kernels that read it (bw shares the socket kernels' table for --pattern and
 * --receivers alone); --dtype without a kernel of elements and --pair beside an incast are
 * refused, naming what to use. */
static void option_users(void)
{
    const char *const sock[] = {"'tcp_stream'", "'tcp_rr'", "'udp_rate'", "'udp_pps'"};
    fab_opts_t o;
    fab_cmd_t cmd;
    char err[256];

    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bw", "--sockbuf", "1M") == FAB_OK &&
          strstr(o.note, "--sockbuf is an option of kernels 'tcp_stream'") &&
          !strstr(o.note, "'bw'") && strstr(o.note, "no effect"));
    for (size_t i = 0; i < sizeof(sock) / sizeof(sock[0]); i++)
        CHECK(strstr(o.note, sock[i]) != NULL);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency", "--sockbuf", "1M") == FAB_OK &&
          strstr(o.note, "--sockbuf is an option of kernels 'tcp_stream', 'tcp_rr'") &&
          !strstr(o.note, "'bw'"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bw", "--streams", "4") == FAB_OK &&
          strstr(o.note, "--streams is an option of kernel 'tcp_stream', which"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_rr", "--omit", "1") == FAB_OK &&
          strstr(o.note, "--omit is an option of kernel 'tcp_stream', which"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "udp_pps", "--rate", "2G") == FAB_OK &&
          strstr(o.note, "--rate is an option of kernel 'udp_rate', which"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--sockbuf", "1M") == FAB_OK &&
          !o.note[0]);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "bw", "--pattern", "incast", "--receivers",
                         "1") == FAB_OK &&
          !o.note[0]);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency", "--pattern", "incast") == FAB_OK &&
          strstr(o.note, "--pattern is an option of kernels 'bw', 'tcp_stream', which"));
    /* --receivers' default: the constant's number in the help, "not given" in the value */
    for (int i = 0; i < fab_opts_count(); i++)
        if (strcmp(fab_opts_name(i), "receivers") == 0)
            CHECK(strtol(fab_opts_row(i)->def, NULL, 10) == FAB_INCAST_RECEIVERS &&
                  !strstr(fab_opts_row(i)->def, "one"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bw", "--pattern", "incast") == FAB_OK &&
          fab_sock_opt.receivers == 0 && fab_incast_receivers() == FAB_INCAST_RECEIVERS);
    /* --dtype: refused where no kernel has elements, the hint naming those that do */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency", "--dtype", "int8") == FAB_ERR_USAGE &&
          strstr(err, "--dtype int8: no kernel of this run has an element type") &&
          strstr(fab_test_hint, "allreduce") && strstr(fab_test_hint, "bcast") &&
          strstr(fab_test_hint, "gradsync") && !strstr(fab_test_hint, "barrier") &&
          !strstr(fab_test_hint, "latency"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bw,put_lat,tcp_rr", "--dtype", "float64") ==
          FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "barrier", "-d", "int8") == FAB_ERR_USAGE &&
          strstr(err, "-d/--datatype int8"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency,allreduce", "--dtype", "int8") ==
          FAB_OK);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "barrier", "--dtype", "int8", "--format",
                         "nccl-tests") == FAB_OK); /* nccl-tests' way: -d on every binary */
    setenv("FABRICBENCH_DTYPE", "int8", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "bibw") == FAB_ERR_USAGE &&
          strstr(err, "--dtype int8"));
    unsetenv("FABRICBENCH_DTYPE");
    /* --pair beside a pair kernel that its options put on every rank: refused */
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "bw", "--pattern", "incast", "--pair", "2,3") ==
              FAB_ERR_USAGE &&
          strstr(err, "--pair 2,3") &&
          strstr(err, "bw runs on every rank under --pattern incast") &&
          strstr(err, "ignore --pair") && strstr(fab_test_hint, "leave --pair out"));
    CHECK(fab_test_parse(&o, &cmd, err, 8, "run", "latency,bw", "--pattern", "incast",
                         "--receivers", "2", "--pair", "0,1") == FAB_ERR_USAGE &&
          strstr(err, "--pattern incast --receivers 2"));
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "bw", "--pattern", "pairs", "--pair", "2,3") ==
          FAB_OK);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bw", "--pattern", "incast") == FAB_OK);
    /* ... and beside kernels that all choose their own ranks (tcp_stream's incast as bw's) */
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "tcp_stream", "--pattern", "incast", "--pair",
                         "0,1") == FAB_ERR_USAGE &&
          strstr(err, "no kernel of this run measures one pair (tcp_stream chooses its own") &&
          strstr(fab_test_hint, "leave --pair out") && strstr(fab_test_hint, " latency bw bibw") &&
          strstr(fab_test_hint, "families: rma ucp"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce,msgrate", "--pair", "2,3") ==
              FAB_ERR_USAGE &&
          strstr(err, "allreduce and the others choose their own ranks"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "put_lat", "--pair", "2,3") == FAB_OK);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce,latency", "--pair", "2,3") == FAB_OK);
}

int main(void)
{
    fab_opts_t o;
    fab_cmd_t cmd;
    char err[256];
    int help_rows = 0;

    /* table: every row has a unique name */
    for (int i = 0; i < fab_opts_count(); i++) {
        CHECK(fab_opts_name(i) != NULL);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(fab_opts_name(i), fab_opts_name(j)) != 0);
        help_rows++;
    }
    CHECK(help_rows >= 12);
    /* run --help shows every option's argument whole (its left column was cut at 63
     * characters: --dtype's list ended in "uint8|u") */
    {
        char *help = NULL, want[256];
        size_t len = 0;
        FILE *f = open_memstream(&help, &len);

        CHECK(f != NULL);
        if (f) {
            fab_opts_print_run_help(f);
            fclose(f);
            for (int i = 0; i < fab_opts_count(); i++) {
                const fab_opt_t *d = fab_opts_row(i);

                const char *at;
                bool whole;

                snprintf(want, sizeof(want), "--%s%s%s", d->name, d->arg ? " " : "",
                         d->arg ? d->arg : "");
                whole = false;
                for (at = strstr(help, want); at && !whole; at = strstr(at + 1, want))
                    whole = at[strlen(want)] == ' ' || at[strlen(want)] == '\n';
                if (!whole)
                    fprintf(stderr, "run --help lacks '%s'\n", want);
                CHECK(whole);
            }
        }
        free(help);
    }
    CHECK(fab_opts_name(-1) == NULL && fab_opts_name(fab_opts_count()) == NULL);

    /* defaults: the point-to-point suite, time budget, window 64 */
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_OK && cmd == FAB_CMD_RUN);
    CHECK(o.launch.nkernels == 4 && strcmp(o.launch.kernels[0].k->name, "latency") == 0 &&
          strcmp(o.launch.kernels[3].k->name, "msgrate") == 0);
    CHECK(o.meas.iters == 0 && o.meas.window == 64 && o.meas.time_s > 0 && !o.meas.validate);
    CHECK(o.meas.pair.a == 0 && o.meas.pair.b == 1 && o.net.pml == FAB_PML_UCX && !o.net.pml_set);

    CHECK(fab_test_parse(&o, &cmd, err, 9, "run", "bw,latency", "-m", "8,1K", "-i", "100", "-x5",
                         "--validate", "--window=16") == FAB_OK);
    CHECK(o.launch.nkernels == 2 && strcmp(o.launch.kernels[0].k->name, "bw") == 0);
    CHECK(o.meas.sizes.n == 2 && o.meas.sizes.v[1] == 1024);
    CHECK(o.meas.iters == 100 && o.meas.warmup == 5 && o.meas.validate && o.meas.window == 16);
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "--pair", "2,3", "--pml", "ob1") == FAB_OK);
    CHECK(o.meas.pair.a == 2 && o.meas.pair.b == 3 && o.net.pml == FAB_PML_OB1 && o.net.pml_set);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "-t", "0.5", "-vv") == FAB_OK &&
          o.launch.verbose == 2);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "-qcv") == FAB_OK && o.launch.quiet &&
          o.meas.validate && o.launch.verbose == 1);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "-qm8") == FAB_ERR_USAGE && strstr(err, "-m"));
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "-qh") == FAB_OK && cmd == FAB_CMD_RUN_HELP);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", ",") == FAB_ERR_USAGE &&
          strstr(err, "empty entry"));
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "latency,") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", ",latency") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "-i", "10", "-t", "1") == FAB_OK && o.note[0]);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "-i", "10") == FAB_OK && !o.note[0]);
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "-t", "0.5", "-v", "-v") == FAB_OK &&
          o.launch.verbose == 2 && o.meas.time_s == 0.5);

    /* commands */
    CHECK(fab_test_parse(&o, &cmd, err, 1, "list") == FAB_OK && cmd == FAB_CMD_LIST);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "--version") == FAB_OK && cmd == FAB_CMD_VERSION);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "--help") == FAB_OK && cmd == FAB_CMD_HELP);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "--help") == FAB_OK && cmd == FAB_CMD_RUN_HELP);

    /* errors name the problem */
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "nosuch") == FAB_ERR_USAGE &&
          strstr(err, "nosuch"));
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "--frobnicate") == FAB_ERR_USAGE &&
          strstr(err, "--frobnicate"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "-i", "-5") == FAB_ERR_USAGE &&
          strstr(err, "range"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "-w", "0") == FAB_ERR_USAGE &&
          strstr(err, "window"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "-t", "0") == FAB_ERR_USAGE &&
          strstr(err, "time"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--pair", "0,0") == FAB_ERR_USAGE &&
          strstr(err, "twice"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--pair", "0") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "-i") == FAB_ERR_USAGE &&
          strstr(err, "needs a value"));
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "--validate=1") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "latency", "bw") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "frob") == FAB_ERR_USAGE && strstr(err, "frob"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--pml", "psm") == FAB_ERR_USAGE &&
          strstr(err, "psm"));
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--pml", "uc") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--pml", "env") == FAB_OK &&
          o.net.pml == FAB_PML_ENV);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_OK && o.meas.timer == FAB_TIMER_AUTO);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--timer", "tsc") == FAB_OK &&
          o.meas.timer == FAB_TIMER_TSC);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--timer", "clock") == FAB_OK &&
          o.meas.timer == FAB_TIMER_CLOCK);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--timer", "sundial") == FAB_ERR_USAGE &&
          strstr(err, "auto|tsc|clock"));
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "--min-iters", "50", "--max-iters", "5") ==
          FAB_ERR_USAGE);

    /* a kernel's own options: in the rows, parsed, from the environment, checked by the
     * kernel; buckets of whole elements with a partial last one */
    {
        const fab_kernel_t *k = fab_kernel_find("gradsync");
        int found = 0;

        for (int i = 0; i < fab_opts_count(); i++)
            found += strcmp(fab_opts_name(i), "params") == 0 ||
                     strcmp(fab_opts_name(i), "bucket") == 0 ||
                     strcmp(fab_opts_name(i), "inflight") == 0;
        CHECK(found == 3 && strcmp(fab_opts_name(fab_opts_count() - 1), "help") == 0);
        CHECK(gradsync_says("2500", "4096", 4, "3 buckets of 4096 B (last 1808 B)"));
        CHECK(gradsync_says("2048", "4096", 4, "2 buckets of 4096 B (last 4096 B)"));
        CHECK(gradsync_says("50", "4096", 2, "1 buckets of 100 B (last 100 B)"));
        CHECK(gradsync_says("7", "10", 4, "4 buckets of 8 B (last 4 B)")); /* 10 B: 2 float32 */
        CHECK(gradsync_says("7e9", "25M", 2, "535 buckets of 26214400 B (last 1510400 B)"));
        setenv("FABRICBENCH_INFLIGHT", "3", 1);
        CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "gradsync", "--bucket", "4K") == FAB_OK);
        unsetenv("FABRICBENCH_INFLIGHT");
        {
            fab_kctx_t ctx;
            char msg[256], hint[256];

            memset(&ctx, 0, sizeof(ctx));
            ctx.dtype.size = 4;
            ctx.size = 2;
            CHECK(k->mem->own_bytes(&ctx) ==
                  2 * 4096 * 3); /* 1e8 params: full buckets, 3 in flight */
            CHECK(k->check(&ctx, msg, sizeof(msg), hint, sizeof(hint)) == FAB_OK);
            ctx.nonblocking = true;
            CHECK(k->check(&ctx, msg, sizeof(msg), hint, sizeof(hint)) == FAB_ERR_CONFIG &&
                  strstr(msg, "own non-blocking mode") && strstr(hint, "--inflight"));
            ctx.nonblocking = false;
            /* a fraction of a parameter: refused by the option row, before MPI_Init */
            CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "gradsync", "--params", "0.5") ==
                      FAB_ERR_USAGE &&
                  strstr(err, "--params: 0.5 is not a whole number; give a whole number from 1 "
                              "to 1e13 parameters"));
            CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "gradsync", "--bucket", "2") == FAB_OK);
            CHECK(k->check(&ctx, msg, sizeof(msg), hint, sizeof(hint)) == FAB_ERR_CONFIG &&
                  strstr(msg, "smaller than one element"));
        }
        CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "gradsync", "--inflight", "0") ==
                  FAB_ERR_USAGE &&
              strstr(err, "--inflight"));
    }
    /* the UCP kernels: --ucp-tls in UCX's list syntax (else refused before MPI_Init, naming
     * the option); their own memory (the bandwidth kernels' window of slots); the latency
     * kernels halve the round trip */
    {
        const fab_kernel_t *pl = fab_kernel_find("ucp_put_lat"),
                           *tb = fab_kernel_find("ucp_tag_bw");
        const fab_kernel_t *pb = fab_kernel_find("ucp_put_bw"), *gb = fab_kernel_find("ucp_get_bw");
        fab_kctx_t ctx;

        CHECK(pl && tb && pb && gb);
        CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "ucp_tag_lat", "--ucp-tls", "tcp,self") ==
                  FAB_OK &&
              !o.note[0]);
        CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "ucp_tag_lat", "--ucp-tls", "^ib") == FAB_OK);
        CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "ucp_tag_lat", "--ucp-tls=") ==
                  FAB_ERR_USAGE &&
              strstr(err, "--ucp-tls"));
        for (int i = 0; i < 5; i++) {
            const char *bad[] = {"tcp,,self", ",tcp", "tcp,", "tcp self", "tcp,^self"};

            CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "ucp_tag_lat", "--ucp-tls", bad[i]) ==
                      FAB_ERR_USAGE &&
                  strstr(err, "--ucp-tls") && strstr(err, "not a list of UCX transports"));
        }
        { /* a list of the right syntax but no sane length: refused, not handed to UCX */
            char longtls[300];

            memset(longtls, 'a', sizeof(longtls) - 1);
            longtls[sizeof(longtls) - 1] = '\0';
            CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "ucp_tag_lat", "--ucp-tls", longtls) ==
                      FAB_ERR_USAGE &&
                  strstr(err, "--ucp-tls") && strstr(err, "299 characters, more than 256"));
        }
        memset(&ctx, 0, sizeof(ctx));
        ctx.size = 2;
        ctx.window = 4;
        ctx.max_bytes = 1024;
        CHECK(pb && gb && tb && pl && pb->mem->own_bytes(&ctx) == 2 * 4 * 1024 &&
              gb->mem->own_bytes(&ctx) == 2 * 4 * 1024 && tb->mem->own_bytes(&ctx) == 2 * 1024 &&
              pl->mem->own_bytes(&ctx) == 2 * 1024);
        /* ucp_get_lat's target is passive only where every RMA lane is a transport of the
         * allow-list (shared memory, RDMA); tcp, emulation (no RMA lane), an unknown name or
         * a name that only starts like a known one are not */
        CHECK(fab_ucp_passive("sysv/memory[am am_bw#0] cma/memory[rma_bw#0]"));
        CHECK(fab_ucp_passive("posix/memory[rma rma_bw#0 am] self/memory[wireup]"));
        CHECK(fab_ucp_passive("rc_mlx5/mlx5_0:1[rma_bw#0 am] ud_mlx5/mlx5_0:1[wireup]"));
        CHECK(!fab_ucp_passive("tcp/lo[rma_bw#0 am am_bw#0] tcp/eth0[rma_bw#1 wireup]"));
        CHECK(!fab_ucp_passive("cma/memory[rma_bw#0] tcp/eth0[rma_bw#1]"));
        CHECK(!fab_ucp_passive("sysv/memory[am am_bw#0]"));
        CHECK(!fab_ucp_passive("cmax/memory[rma_bw#0]") && !fab_ucp_passive("c/memory[rma]"));
        CHECK(!fab_ucp_passive("unknown") && !fab_ucp_passive("") && !fab_ucp_passive(NULL));
        /* a role after the first, and a lane list that is not one */
        CHECK(!fab_ucp_passive("tcp/lo[am rma_bw#0] posix/memory[rma]"));
        CHECK(!fab_ucp_passive("cma/memory[rma_bw#0] posix/memory[rma"));
        CHECK(!fab_ucp_passive("cma/memory[rma_bw#0] garbage"));
        CHECK(!fab_ucp_passive("garbage cma/memory[rma_bw#0]"));
        CHECK(fab_ucp_passive("posix/memory[rma#0 am]") &&
              !fab_ucp_passive("tcp/lo[am  rma#0] posix/memory[rma]"));
        { /* UCX 1.13's reports (ucp_ep_print_info) as they read here: RMA lanes are named by
           * their put[N] and get[N] lines, not on the lane's line */
            static const char *const posix =
                "#\n# UCP endpoint \n#\n#               peer: <no debug data>\n"
                "#                 lane[0]:  1:posix/memory.0 md[1]          -> "
                "md[1]/posix/sysdev[255] am am_bw#0\n#\n"
                "#                tag_send: 0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf)\n"
                "#                  put[0]: 0..<short>..4294967296..<bcopy>..(inf)\n"
                "#                  get[0]: 0..<bcopy>..(inf)\n#\n"
                "#                  rma_bw: mds rndv_rkey_size 9\n#\n";
            static const char *const tcp =
                "#                 lane[0]:  1:tcp/lo.0 md[1]                -> "
                "md[1]/tcp/sysdev[255] rma_bw#0 am am_bw#0\n"
                "#                 lane[1]:  2:tcp/eth0.0 md[1]              -> "
                "md[1]/tcp/sysdev[255] rma_bw#1 wireup\n#\n"
                "#                  rma_bw: mds [1] rndv_rkey_size 10\n";
            static const char *const shm =
                "#                 lane[0]:  3:sysv/memory.0 md[2]           -> "
                "md[2]/sysv/sysdev[255] am am_bw#0\n"
                "#                 lane[1]:  4:posix/memory.0 md[3]          -> "
                "md[3]/posix/sysdev[255]\n"
                "#                 lane[2]:  5:cma/memory.0 md[4]            -> "
                "md[4]/cma/sysdev[255] rma_bw#0\n#\n"
                "#                  put[0]: 0..<short>..4294967296..<bcopy>..(inf)\n"
                "#                  get[0]: 0..<bcopy>..(inf)\n"
                "#                  put[1]: 0..<short>..4294967296..<bcopy>..(inf)\n"
                "#                  get[1]: 0..<bcopy>..(inf)\n";
            char lanes[FAB_LANES_LEN];

            fab_ucx_parse_lanes(posix, lanes, sizeof(lanes));
            CHECK(strcmp(lanes, "posix/memory[rma am am_bw#0]") == 0 && fab_ucp_passive(lanes));
            fab_ucx_parse_lanes(tcp, lanes, sizeof(lanes));
            CHECK(strcmp(lanes, "tcp/lo[rma_bw#0 am am_bw#0] tcp/eth0[rma_bw#1 wireup]") == 0 &&
                  !fab_ucp_passive(lanes));
            /* a version that names the RMA lane on its line: no second word; a lane line
             * without a number gets none; trailing blanks dropped */
            fab_ucx_parse_lanes("#  lane[0]:  1:posix/memory.0 md[1] -> md[1]/posix/sysdev[255] "
                                "rma#0 am  \n#  put[0]: 0..<short>..(inf)\n",
                                lanes, sizeof(lanes));
            CHECK(strcmp(lanes, "posix/memory[rma#0 am]") == 0);
            fab_ucx_parse_lanes("#  lane[x]:  1:posix/memory.0 md[1] -> md[1]/posix/sysdev[255] "
                                "am\n#  put[0]: 0..<short>..(inf)\n",
                                lanes, sizeof(lanes));
            CHECK(strcmp(lanes, "posix/memory[am]") == 0);
            fab_ucx_parse_lanes(shm, lanes, sizeof(lanes));
            CHECK(strcmp(lanes,
                         "sysv/memory[rma am am_bw#0] posix/memory[rma] cma/memory[rma_bw#0]") ==
                      0 &&
                  fab_ucp_passive(lanes));
        }
        { /* the atomics: one 64-bit word, other sizes refused with what to give */
            const fab_kernel_t *fa = fab_kernel_find("ucp_fadd_lat");
            size_t sz[2] = {8, 16};
            char msg[256], hint[256];

            ctx.sizes = sz;
            ctx.nsizes = 1;
            CHECK(fa && fa->check(&ctx, msg, sizeof(msg), hint, sizeof(hint)) == FAB_OK);
            ctx.nsizes = 2;
            CHECK(fa && fa->check(&ctx, msg, sizeof(msg), hint, sizeof(hint)) == FAB_ERR_CONFIG &&
                  strstr(msg, "64-bit word") && strstr(msg, "16 bytes") && strstr(hint, "-m 8"));
            CHECK(pb && pb->check(&ctx, msg, sizeof(msg), hint, sizeof(hint)) == FAB_OK);
            CHECK(fa && strcmp(fa->default_sizes, "8") == 0 && !fa->p2p);
            ctx.sizes = NULL;
            ctx.nsizes = 0;
        }
        ctx.max_bytes = 64UL << 20; /* the window spreads over 64 MiB at most: one slot here */
        CHECK(pb && pb->mem->own_bytes(&ctx) == 2 * (64UL << 20));
        CHECK(pb && pl && pb->p2p->uses_window && pl->p2p->time_divisor == 2.0 &&
              !pl->p2p->uses_window);
    }
    /* a kernel's option for a run without that kernel: a warning, not an error */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency", "--params", "5") == FAB_OK &&
          strstr(o.note, "--params is an option of kernel 'gradsync'") &&
          strstr(o.note, "no effect"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency,gradsync", "--params", "5") == FAB_OK &&
          !o.note[0]);
    setenv("FABRICBENCH_INFLIGHT", "2", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "latency", "-i", "3", "-t", "1") == FAB_OK &&
          strstr(o.note, "-t/--time is ignored") && strstr(o.note, "; --inflight is"));
    unsetenv("FABRICBENCH_INFLIGHT");
    /* values as text, as they would be given */
    CHECK(fab_test_parse(&o, &cmd, err, 8, "run", "latency,allreduce", "--dtype", "bfloat16",
                         "--pair", "2,5", "-m", "8,1K") == FAB_OK);
    for (int i = 0; i < fab_opts_count(); i++) {
        const fab_opt_t *d = fab_opts_row(i);
        char v[128];

        if (fab_opts_harness(d->name, strlen(d->name)) != d)
            continue; /* a kernel's row: its values are the kernel's, not in o */
        fab_opt_format(d, &o, v, sizeof(v));
        if (strcmp(d->name, "dtype") == 0)
            CHECK(strcmp(v, "bfloat16") == 0);
        if (strcmp(d->name, "pair") == 0)
            CHECK(strcmp(v, "2,5") == 0);
        if (strcmp(d->name, "sizes") == 0)
            CHECK(strcmp(v, "8,1024") == 0);
        if (strcmp(d->name, "window") == 0)
            CHECK(strcmp(v, "64") == 0);
        if (strcmp(d->name, "validate") == 0)
            CHECK(strcmp(v, "off") == 0);
        if (strcmp(d->name, "time") == 0)
            CHECK(strcmp(v, "0.25") == 0);
        if (strcmp(d->name, "output") == 0)
            CHECK(strcmp(v, "") == 0);
    }

    /* a kernel whose option clashes with one of the harness or of another kernel */
    {
        static const fab_opt_t mine[] = {{"window", 0, FAB_OPT_FLAG, 0, 0, 0, NULL, NULL, "off",
                                          "a clash with the harness's --window", 0, false, NULL}};
        static const fab_opt_t other[] = {{"quack", 'q', FAB_OPT_FLAG, 0, 0, 0, NULL, NULL, "off",
                                           "a clash with -q", 0, false, NULL}};
        static bool v;
        const fab_kopts_t bad_opts = {mine, 1, &v}, bad2_opts = {other, 1, &v};
        const fab_kernel_t bad = {.name = "bad", .options = &bad_opts};
        const fab_kernel_t bad2 = {.name = "bad2", .options = &bad2_opts};
        const fab_kernel_t *list[] = {fab_kernel_find("gradsync"), &bad, &bad2};

        CHECK(fab_opts_check_kernels(list, 1, err, 256) == FAB_OK);
        CHECK(fab_opts_check_kernels(list, 2, err, 256) == FAB_ERR_INTERNAL &&
              strstr(err, "--window of kernel 'bad'"));
        list[1] = &bad2;
        CHECK(fab_opts_check_kernels(list, 2, err, 256) == FAB_ERR_INTERNAL &&
              strstr(err, "--quack of kernel 'bad2' clashes with --quiet"));
        list[1] = list[0]; /* two kernels sharing one table: once */
        CHECK(fab_opts_check_kernels(list, 2, err, 256) == FAB_OK);
    }

    /* environment: FABRICBENCH_<NAME>, overridden by the command line */
    setenv("FABRICBENCH_WINDOW", "8", 1);
    setenv("FABRICBENCH_SIZES", "1K:4K", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_OK && o.meas.window == 8 &&
          o.meas.sizes.n == 3);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "-w", "2") == FAB_OK && o.meas.window == 2);
    setenv("FABRICBENCH_WINDOW", "zero", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_ERR_USAGE &&
          strstr(err, "FABRICBENCH_WINDOW"));
    /* a bad variable does not matter when the command line sets that option, nor for --help */
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "-w", "4") == FAB_OK && o.meas.window == 4);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "--help") == FAB_OK && cmd == FAB_CMD_RUN_HELP);
    unsetenv("FABRICBENCH_WINDOW");
    unsetenv("FABRICBENCH_SIZES");
    /* an unknown FABRICBENCH_ variable: refused, naming the closest known one; not --help */
    {
        char *argv[] = {"fabricbench", "run", "latency"}, hint[256];

        setenv("FABRICBENCH_SIZE", "8", 1);
        CHECK(fab_opts_parse(3, argv, &cmd, &o, err, 256, hint, sizeof(hint)) == FAB_ERR_USAGE &&
              strstr(err, "FABRICBENCH_SIZE ") && strstr(hint, "FABRICBENCH_SIZES?"));
        CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "--help") == FAB_OK &&
              cmd == FAB_CMD_RUN_HELP);
        unsetenv("FABRICBENCH_SIZE");
        setenv("FABRICBENCH_TEST_CORRUPT", "0", 1); /* a test hook: known */
        CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "latency") == FAB_OK);
        unsetenv("FABRICBENCH_TEST_CORRUPT");
    }
    /* flags and counts from the environment */
    setenv("FABRICBENCH_VALIDATE", "false", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_OK && !o.meas.validate);
    setenv("FABRICBENCH_VALIDATE", "yes", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_OK && o.meas.validate);
    setenv("FABRICBENCH_VALIDATE", "maybe", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_ERR_USAGE &&
          strstr(err, "FABRICBENCH_VALIDATE"));
    unsetenv("FABRICBENCH_VALIDATE");
    setenv("FABRICBENCH_VERBOSE", "2", 1);
    CHECK(fab_test_parse(&o, &cmd, err, 1, "run") == FAB_OK && o.launch.verbose == 2);
    unsetenv("FABRICBENCH_VERBOSE");
    /* list options and kernel instances: --streams 1,4,8 runs tcp_stream three times, each
     * its value; ranges double; bad lists refused with the option named */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream,bw", "--streams", "1,4,8") ==
              FAB_OK &&
          o.launch.nkernels == 4 && strcmp(o.launch.kernels[0].k->name, "tcp_stream") == 0 &&
          o.launch.kernels[0].axis == 1 && o.launch.kernels[1].axis == 4 &&
          o.launch.kernels[2].axis == 8 && o.launch.kernels[0].k == o.launch.kernels[1].k &&
          strcmp(o.launch.kernels[3].k->name, "bw") == 0 && !o.launch.kernels[3].k->axis &&
          isnan(o.launch.kernels[3].axis));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "1:8") == FAB_OK &&
          o.launch.nkernels == 4 && o.launch.kernels[3].axis == 8 && o.launch.kernels[2].axis == 4);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "3:10") == FAB_OK &&
          o.launch.nkernels == 3 && o.launch.kernels[2].axis == 10 &&
          o.launch.kernels[1].axis == 6);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "tcp_stream") == FAB_OK &&
          o.launch.nkernels == 1 && o.launch.kernels[0].axis == 1);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "0") ==
              FAB_ERR_USAGE &&
          strstr(err, "--streams") && strstr(err, "out of range"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "4,4") ==
              FAB_ERR_USAGE &&
          strstr(err, "twice"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "8:1") ==
              FAB_ERR_USAGE &&
          strstr(err, "backwards"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "1,,2") ==
              FAB_ERR_USAGE &&
          strstr(err, "not a list"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "1,x") ==
              FAB_ERR_USAGE &&
          strstr(err, "'x' is not a number"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "tcp_stream", "--streams", "1:128") == FAB_OK &&
          o.launch.nkernels == 8);
    /* more instances than a run holds: refused, saying why */
    CHECK(fab_test_parse(
              &o, &cmd, err, 6, "run", "tcp_stream,udp_rate", "--streams",
              "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
              "31,32",
              "--rate", "1G") == FAB_ERR_USAGE &&
          strstr(err, "too many kernels"));
    /* a kernel named twice: refused (its rows would be two kernels of one name) */
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "latency,bw,latency") == FAB_ERR_USAGE &&
          strstr(err, "kernel list 'latency,bw,latency' names latency twice"));
    /* a rate list: one udp_rate instance per rate, doubling ranges, written as given */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "udp_rate", "--rate", "500M,1G") == FAB_OK &&
          o.launch.nkernels == 2 && fabs(o.launch.kernels[0].axis - 0.5) < 1e-12 &&
          o.launch.kernels[1].axis == 1.0);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "udp_rate", "--rate", "1G:4G") == FAB_OK &&
          o.launch.nkernels == 3 && o.launch.kernels[2].axis == 4.0);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "udp_rate", "--rate", "2,1G") == FAB_OK &&
          o.launch.nkernels == 2 && o.launch.kernels[0].axis == 2.0);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "udp_rate", "--rate", "1G,1000M") ==
              FAB_ERR_USAGE &&
          strstr(err, "twice"));
    {
        char b[32];

        fab_rate_text(0.1, b, sizeof(b));
        CHECK(strcmp(b, "100M") == 0);
        fab_rate_text(2.5, b, sizeof(b));
        CHECK(strcmp(b, "2.5G") == 0);
        fab_rate_text(0.0005, b, sizeof(b));
        CHECK(strcmp(b, "500K") == 0);
        fab_rate_text(1600, b, sizeof(b));
        CHECK(strcmp(b, "1.6T") == 0);
    }
    /* rates: units K, M, G, T; beyond the option's range named as such */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency", "--line-rate", "500M") == FAB_OK &&
          fabs(o.net.line_rate_gbps - 0.5) < 1e-12);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency", "--line-rate", "2000T") ==
              FAB_ERR_USAGE &&
          strstr(err, "out of range"));
    /* alltoallv: -m beside --experts or --counts would be ignored (one matrix whatever it
     * says): its check refuses it, saying where the sizes come from */
    {
        char msg[256];

        CHECK(a2av_checks(true, msg, 4, "--experts", "8") == FAB_ERR_CONFIG &&
              strstr(msg, "-m/--sizes does not apply with --experts") && strstr(msg, "--tokens"));
        CHECK(a2av_checks(false, msg, 4, "--experts", "8") == FAB_OK);
        CHECK(a2av_checks(true, msg, 4, "--counts", "m.txt") == FAB_ERR_CONFIG &&
              strstr(msg, "-m/--sizes does not apply with --counts"));
        CHECK(a2av_checks(true, msg, 4, "--spread", "2") == FAB_OK); /* -m's bytes, spread */
    }
    option_users();
    return fab_test_report("test_options");
}
