/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests' words (cli/nccl_words.c) and their output (output/nccl.c): the letters that
 * are fabricbench's too, the clashing ones with and without --nccl-tests, the sweep -b/-e/-f,
 * the types, --inplace's instances, and the numbers' layout. */
#include <stdlib.h>

#include "check.h"
#include "optparse.h"
#include "cli/options.h"
#include "cli/nccl_words.h"
#include "cli/opts.h"
#include "core/status.h"
#include "kernel/dtype.h"
#include "output/nccl.h"

static fab_cmd_t cmd; /* what the last parse found */

/* o's sizes are want[0 .. n-1] */
static bool sizes_are(const fab_opts_t *o, int n, const size_t *want)
{
    if (o->meas.sizes.n != n)
        fprintf(stderr, "%d sizes, expected %d\n", o->meas.sizes.n, n);
    for (int i = 0; o->meas.sizes.n == n && i < n; i++)
        if (o->meas.sizes.v[i] != want[i])
            return false;
    return o->meas.sizes.n == n;
}

static void test_sweep(void)
{
    fab_opts_t o;
    char err[256];
    const size_t by4[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288};
    const size_t by_step[] = {1024, 1024 + 4096, 1024 + 8192};
    const size_t dflt[] = {32u << 20};

    /* -b -e -f: nccl-tests' sweep, the largest size included when the factor reaches it */
    CHECK(fab_test_parse(&o, &cmd, err, 8, "run", "allreduce", "-b", "8", "-e", "1M", "-f", "4") ==
          FAB_OK);
    CHECK(sizes_are(&o, 9, by4));
    CHECK(fab_test_parse(&o, &cmd, err, 8, "run", "allreduce", "-b", "1K", "-e", "9K",
                         "--stepbytes", "4K") == FAB_OK);
    CHECK(sizes_are(&o, 3, by_step));
    /* -b alone: nccl-tests' defaults are 32M for both ends */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-b", "32M") == FAB_OK &&
          sizes_are(&o, 1, dflt));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-b", "64M") == FAB_ERR_USAGE &&
          strstr(err, "larger than -e/--maxbytes"));
    /* too many sizes, -m beside -b, -f beside --stepbytes: refused */
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "-b", "8", "-e", "100M") ==
              FAB_ERR_USAGE &&
          strstr(err, "more than 64 sizes") && strstr(fab_test_hint, "-f 2"));
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "-b", "8", "--sizes", "8:1K") ==
              FAB_ERR_USAGE &&
          strstr(err, "both choose sizes"));
    CHECK(fab_test_parse(&o, &cmd, err, 7, "run", "allreduce", "-b", "8", "-f", "2",
                         "--stepbytes=8") == FAB_ERR_USAGE &&
          strstr(err, "both space the sizes"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-f", "1") == FAB_ERR_USAGE);
}

static void test_letters(void)
{
    fab_opts_t o;
    char err[256];

    /* the letters both read alike: -n iterations, -z barrier, -a, -r root, -d type, -c flag */
    CHECK(fab_test_parse(&o, &cmd, err, 13, "run", "allreduce", "-n", "20", "-z", "1", "-a", "3",
                         "-r", "2", "-d", "bfloat16",
                         "-c") == FAB_ERR_USAGE); /* -c beside nccl-tests' letters: ambiguous */
    CHECK(strstr(err, "'-c' is ambiguous") && strstr(err, "--validate") &&
          strstr(fab_test_hint, "--nccl-tests"));
    CHECK(fab_test_parse(&o, &cmd, err, 15, "run", "allreduce", "-n", "20", "-z", "1", "-a", "3",
                         "-r", "2", "-d", "bfloat16", "--validate", "--format",
                         "nccl-tests") == FAB_OK);
    CHECK(o.meas.iters == 20 && o.meas.sync == FAB_SYNC_BARRIER && o.out.average == 3 &&
          o.meas.root == 2 && o.meas.dtype == FAB_DT_BFLOAT16 && o.meas.validate);
    /* nccl-tests' type names and fabricbench's, the integer types included */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-d", "half") == FAB_OK &&
          o.meas.dtype == FAB_DT_FLOAT16);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-d", "double") == FAB_OK &&
          o.meas.dtype == FAB_DT_FLOAT64);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "--datatype", "float") == FAB_OK &&
          o.meas.dtype == FAB_DT_FLOAT32);
    {
        static const char *const names[] = {"int8", "uint8", "uint32", "int64", "uint64"};
        static const int ids[] = {FAB_DT_INT8, FAB_DT_UINT8, FAB_DT_UINT32, FAB_DT_INT64,
                                  FAB_DT_UINT64};

        for (int i = 0; i < 5; i++)
            CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-d", names[i]) == FAB_OK &&
                  o.meas.dtype == ids[i] && strcmp(fab_dtype_name(ids[i]), names[i]) == 0 &&
                  strcmp(fab_dtype_nccl_name(ids[i]), names[i]) == 0);
    }
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-d", "fp32") == FAB_ERR_USAGE &&
          strstr(err, "not a type nccl-tests names"));
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "-d", "half", "--dtype",
                         "float32") == FAB_ERR_USAGE &&
          strstr(err, "disagree"));
    /* without --nccl-tests: -w -i -t beside nccl-tests' letters are ambiguous, -o before a
     * reduction too; alone they keep fabricbench's meaning */
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "-b", "8", "-w", "5") ==
              FAB_ERR_USAGE &&
          strstr(err, "'-w' is ambiguous") && strstr(err, "--window") &&
          strstr(err, "--warmup_iters") && strstr(err, "-b"));
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "-e", "1M", "-i", "1M") ==
              FAB_ERR_USAGE &&
          strstr(err, "'-i' is ambiguous") && strstr(err, "--stepbytes"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-o", "prod") == FAB_ERR_USAGE &&
          strstr(err, "'-o' is ambiguous") && strstr(err, "--output"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bw", "-w", "5") == FAB_OK && o.meas.window == 5);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-i", "7") == FAB_OK &&
          o.meas.iters == 7);
    /* with --nccl-tests: nccl-tests' meanings, joined values too */
    CHECK(fab_test_parse(&o, &cmd, err, 15, "run", "allreduce", "--nccl-tests", "-b", "8", "-e",
                         "64", "-i", "8", "-w", "3", "-o", "prod", "-c", "1") == FAB_OK);
    CHECK(o.meas.sizes.n == 8 && o.meas.sizes.v[7] == 64 && o.meas.warmup == 3 &&
          o.meas.op == FAB_OP_PROD && o.meas.validate && o.nccl.stepbytes == 8);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "--nccl-tests", "-w7", "-omax",
                         "-c0") == FAB_OK &&
          o.meas.warmup == 7 && o.meas.op == FAB_OP_MAX && !o.meas.validate);
    CHECK(fab_test_parse(&o, &cmd, err, 7, "run", "allreduce", "--nccl-tests", "-t", "1", "-g",
                         "1") == FAB_OK);
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "allreduce", "--nccl-tests", "-g", "8") ==
              FAB_ERR_USAGE &&
          strstr(err, "one rank per process") && strstr(fab_test_hint, "mpirun -np"));
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "allreduce", "--nccl-tests", "-m", "4") ==
              FAB_ERR_USAGE &&
          strstr(err, "--agg_iters"));
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "allreduce", "--nccl-tests", "-o", "avg") ==
              FAB_OK &&
          o.meas.op == FAB_OP_AVG && strcmp(fab_op_name(o.meas.op), "avg") == 0);
    CHECK(fab_test_parse(&o, &cmd, err, 5, "run", "allreduce", "--nccl-tests", "-o", "mean") ==
          FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-a", "4") == FAB_ERR_USAGE);
    /* -a chooses the nccl-tests formats' time: beside fabricbench's table it would change
     * nothing, and is refused (naming what to use); with a format of nccl-tests' it applies */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "-a", "0") == FAB_ERR_USAGE &&
          strstr(err, "-a/--average") && strstr(err, "no effect") &&
          strstr(fab_test_hint, "--format nccl-tests"));
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "--average", "2", "--format",
                         "table") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "-a", "0", "--format",
                         "nccl-json") == FAB_OK &&
          o.out.average == FAB_AVERAGE_RANK0);
}

static void test_inplace(void)
{
    fab_opts_t o;
    char err[256];

    /* default: out of place only; nccl-tests' formats: both, the in-place instance right after */
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "allreduce,bcast") == FAB_OK &&
          o.launch.nkernels == 2 && !o.launch.kernels[0].inplace);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce,bcast", "--format", "nccl-tests") ==
              FAB_OK &&
          o.launch.nkernels == 3 && !o.launch.kernels[0].inplace && o.launch.kernels[1].inplace &&
          o.launch.kernels[1].k == o.launch.kernels[0].k && !o.launch.kernels[2].inplace);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "--inplace", "on") == FAB_OK &&
          o.launch.nkernels == 1 && o.launch.kernels[0].inplace);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "allreduce", "--format", "nccl-json", "--inplace",
                         "off") == FAB_OK &&
          o.launch.nkernels == 1 && !o.launch.kernels[0].inplace);
    /* bcast has none (MPI_Bcast has no MPI_IN_PLACE form): refused alone, the hint naming the
     * collectives that have one (from the registry) */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bcast", "--inplace", "both") == FAB_ERR_USAGE &&
          strstr(err, "no kernel of this run has an in-place variant") &&
          strstr(fab_test_hint, " reduce_scatter") && strstr(fab_test_hint, " alltoall") &&
          !strstr(fab_test_hint, "bcast"));
    /* reduce, reduce_scatter, allgather, alltoall have one: each followed by its twin, bcast
     * left single */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "reduce,reduce_scatter,bcast,allgather,alltoall",
                         "--inplace", "both") == FAB_OK &&
          o.launch.nkernels == 9);
    for (int i = 0; i < o.launch.nkernels && o.launch.nkernels == 9; i++) {
        bool twin = i == 1 || i == 3 || i == 6 || i == 8;

        CHECK(o.launch.kernels[i].inplace == twin &&
              (!twin || o.launch.kernels[i].k == o.launch.kernels[i - 1].k));
    }
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "alltoall,bcast", "--inplace", "on") == FAB_OK &&
          o.launch.nkernels == 2 && o.launch.kernels[0].inplace && !o.launch.kernels[1].inplace);
    /* --op other than sum with no reducing kernel (bcast --op avg was run as a plain bcast):
     * refused, the hint naming the kernels that reduce; beside one that does, or sum, or in
     * nccl-tests' formats (its binaries take -o whatever the collective), accepted */
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bcast", "--op", "avg") == FAB_ERR_USAGE &&
          strstr(err, "--op avg") && strstr(err, "no kernel of this run reduces") &&
          strstr(fab_test_hint, " allreduce") && strstr(fab_test_hint, " gradsync") &&
          !strstr(fab_test_hint, "bcast"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "latency,allgather", "--op", "max") ==
          FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 3, "run", "--op", "min") == FAB_ERR_USAGE);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bcast,reduce", "--op", "avg") == FAB_OK);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "bcast", "--op", "sum") == FAB_OK);
    CHECK(fab_test_parse(&o, &cmd, err, 6, "run", "alltoall", "--op", "max", "--format",
                         "nccl-tests") == FAB_OK);
}

static void test_output(void)
{
    fab_row_t r;
    char b[32];

    memset(&r, 0, sizeof(r));
    r.rank0_avg = 1;
    r.osu_avg = 2;
    r.imb_tmin = 3;
    r.imb_tmax = 4;
    for (int a = 0; a < 4; a++)
        CHECK(fab_nccl_time(&r, a) == a + 1);
    fab_nccl_num(b, sizeof(b), 135.84, 7);
    CHECK(strcmp(b, " 135.84") == 0);
    fab_nccl_num(b, sizeof(b), 12646.2, 7);
    CHECK(strcmp(b, "12646.2") == 0);
    fab_nccl_num(b, sizeof(b), 123456.7, 7);
    CHECK(strcmp(b, " 123457") == 0);
    fab_nccl_num(b, sizeof(b), 0.001, 6);
    CHECK(strcmp(b, "  0.00") == 0);
    fab_nccl_num(b, sizeof(b), 338.8, 6);
    CHECK(strcmp(b, "338.80") == 0);
    fab_nccl_num(b, sizeof(b), 1234.56, 6);
    CHECK(strcmp(b, "1234.6") == 0);
    fab_nccl_num(b, sizeof(b), NAN, 6);
    CHECK(strcmp(b, "   N/A") == 0);
    fab_nccl_num(b, sizeof(b), 3e9, 6);
    CHECK(strchr(b, 'e') != NULL);
}

int main(void)
{
    test_sweep();
    test_letters();
    test_inplace();
    test_output();
    return fab_test_report("test_nccl");
}
