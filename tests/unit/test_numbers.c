/* SPDX-License-Identifier: BSD-3-Clause */
/* Numbers (core/num.h) through the option parser: every kind of value (whole numbers, numbers,
 * sizes, rates, lists, rank pairs, address lists; command line and FABRICBENCH_ variables)
 * refuses hostile text before MPI_Init with a message naming what was wrong and the range it
 * takes, and accepts every form the grammar allows with the right value. */
#include <stdlib.h>

#include "check.h"
#include "cli/launcher.h"
#include "cli/options.h"
#include "core/num.h"
#include "cli/opts.h"
#include "core/status.h"
#include "kernel/fab_kernel.h"
#include "kernel/registry.h"
#include "kernel/traits.h"

/* Hostile numbers, for every kind of value (core/num.h): each command line (after "run") or
 * FABRICBENCH_ variable is refused by the parser, before MPI_Init, with a message that says
 * what was wrong and what the option accepts (the range, with its sign and unit). */
static const struct {
    const char *env, *val; /* a FABRICBENCH_ variable and its value, or NULL */
    const char *args[3];   /* after "run" */
    const char *says;
} hostile[] = {
    {NULL, NULL, {"-i", "0x10"}, "-i/--iterations: '0x10' is not a number (hexadecimal"},
    {NULL, NULL, {"-i", " 5"}, "' 5' is not a number (spaces are not accepted)"},
    {NULL, NULL, {"-i", "5 "}, "'5 ' is not a number (spaces are not accepted)"},
    {NULL,
     NULL,
     {"-i", ""},
     "'' is not a number (it is empty); give a whole number from 1 to "
     "1000000000 iterations"},
    {NULL,
     NULL,
     {"-i", "1e400"},
     "1e400 is out of range; give a whole number from 1 to "
     "1000000000 iterations"},
    {NULL, NULL, {"-i", "99999999999999999999"}, "99999999999999999999 is out of range"},
    {NULL, NULL, {"-i", "inf"}, "'inf' is not a number (it is not a finite number)"},
    {NULL, NULL, {"-i", "NaN"}, "(it is not a finite number)"},
    {NULL, NULL, {"-i", "1.5"}, "1.5 is not a whole number; give a whole number from 1 to"},
    {NULL, NULL, {"-i", "1,000"}, "'1,000' is not a number (it has more after the number)"},
    {NULL, NULL, {"-i", "a\033[31m"}, "'a\\x1B[31m' is not a number"},
    {NULL, NULL, {"-x", "-1"}, "-x/--warmup: -1 is out of range; give a whole number from 0 to "},
    {NULL,
     NULL,
     {"--stall-timeout", "1e9"},
     "--stall-timeout: 1e9 is out of range; give a whole "
     "number from 0 to 86400 s"},
    {NULL,
     NULL,
     {"--root", "-2"},
     "--root: -2 is out of range; give a whole number from -1 to "
     "10000000"},
    {NULL,
     NULL,
     {"--repeat", "1e4"},
     "1e4 is out of range; give a whole number from 1 to 1000 runs"},
    {NULL, NULL, {"-t", "0x1p-2"}, "-t/--time: '0x1p-2' is not a number (hexadecimal"},
    {NULL, NULL, {"-t", " 0.5"}, "(spaces are not accepted)"},
    {NULL,
     NULL,
     {"-t", "1e400"},
     "-t/--time: 1e400 is out of range; give a number more than 0 "
     "and at most 3600 s"},
    {NULL, NULL, {"-t", "1e-400"}, "1e-400 is out of range; give a number more than 0"},
    {NULL, NULL, {"-t", "-inf"}, "(it is not a finite number)"},
    {NULL, NULL, {"--omit", "1e9"}, "--omit: 1e9 is out of range; give a number from 0 to 60 s"},
    {NULL, NULL, {"--omit", "-1"}, "--omit: -1 is out of range; give a number from 0 to 60 s"},
    {NULL, NULL, {"--omit", "0x1"}, "(hexadecimal"},
    {NULL,
     NULL,
     {"--slow-bw", "0"},
     "--slow-bw: 0 is out of range; give a number more than 0 "
     "and at most 1"},
    {NULL, NULL, {"--precision", "200"}, "give a number from 0.01 to 100%"},
    {NULL, NULL, {"--overlap-compute", "1e8"}, "at most 10000000 us"},
    {NULL, NULL, {"--params", "0.5"}, "--params: 0.5 is not a whole number"},
    {NULL, NULL, {"--params", "1e14"}, "give a whole number from 1 to 1e13 parameters"},
    {NULL, NULL, {"--inflight", "0x2"}, "--inflight: '0x2' is not a number (hexadecimal"},
    {NULL, NULL, {"-m", " 8"}, "-m/--sizes: ' 8' is not a size (spaces are not accepted)"},
    {NULL, NULL, {"-m", "8, 16"}, "(spaces are not accepted)"},
    {NULL, NULL, {"-m", "8:16 "}, "(spaces are not accepted)"},
    {NULL, NULL, {"-m", "0x10"}, "'0x10' is not a size (hexadecimal"},
    {NULL, NULL, {"-m", "0.5"}, "'0.5' is not a whole number of bytes"},
    {NULL, NULL, {"-m", "1e400"}, "size '1e400' is out of range; give a size from 1 to 1G"},
    {NULL,
     NULL,
     {"--bucket", "2G"},
     "--bucket: size '2G' is out of range; give a size from 1 to "
     "1G bytes"},
    {NULL,
     NULL,
     {"--sockbuf", "-1"},
     "--sockbuf: size '-1' is out of range; give a size from 0 "
     "to 1G bytes"},
    {NULL, NULL, {"--line-rate", "0x10G"}, "--line-rate: '0x10G' is not a rate (hexadecimal"},
    {NULL, NULL, {"--line-rate", " 5G"}, "(spaces are not accepted)"},
    {NULL, NULL, {"--line-rate", "5G "}, "(spaces are not accepted)"},
    {NULL, NULL, {"--line-rate", "1001T"}, "give a rate more than 0 and at most 1000T"},
    {NULL, NULL, {"--line-rate", "1e400"}, "--line-rate: 1e400 is out of range"},
    {NULL, NULL, {"--rate", "1G, 2G"}, "(spaces are not accepted)"},
    {NULL, NULL, {"--rate", "1G:2G:4G"}, "--rate: '1G:2G:4G' is not a range A:B"},
    {NULL, NULL, {"--rate", ":1G"}, "is not a range A:B"},
    {NULL,
     NULL,
     {"--rate", "401G"},
     "401G is out of range; give a rate more than 0 and at most "
     "400G"},
    {NULL, NULL, {"--streams", "1:"}, "--streams: '1:' is not a range A:B"},
    {NULL, NULL, {"--streams", " 1"}, "(spaces are not accepted)"},
    {NULL,
     NULL,
     {"--streams", "129"},
     "129 is out of range; give a whole number from 1 to 128 "
     "streams"},
    {NULL,
     NULL,
     {"--pair", " 0,1"},
     "--pair: ' 0,1' is not two rank numbers A,B: ' 0' is not a "
     "number (spaces"},
    {NULL, NULL, {"--pair", "0, 1"}, "(spaces are not accepted)"},
    {NULL,
     NULL,
     {"--pair", "0,99999999999"},
     "out of range; give a whole number from 0 to "
     "10000000"},
    {NULL, NULL, {"--pair", "0x0,1"}, "(hexadecimal"},
    {NULL,
     NULL,
     {"--bind", "127.0.0.1,,::1"},
     "--bind: '127.0.0.1,,::1' is not a list of "
     "addresses (it has an empty entry)"},
    {NULL, NULL, {"--bind", "127.0.0.1,"}, "(it has an empty entry)"},
    {NULL, NULL, {"--bind", "127.1"}, "--bind: '127.1' is not an IP address"},
    {NULL, NULL, {"--bind", " 127.0.0.1"}, "is not an IP address"},
    {"FABRICBENCH_WINDOW", " 8", {NULL}, "--window: ' 8' is not a number (spaces"},
    {"FABRICBENCH_VERBOSE", " 2", {NULL}, "--verbose: ' 2' is not a number (spaces"},
    {"FABRICBENCH_VERBOSE",
     "10",
     {NULL},
     "--verbose: 10 is out of range; give a whole number "
     "from 0 to 9"},
    {"FABRICBENCH_TIME", "0x1p-2", {NULL}, "-t/--time: '0x1p-2' is not a number (hexadecimal"},
    {"FABRICBENCH_OMIT", "-1", {NULL}, "--omit: -1 is out of range; give a number from 0 to 60 s"},
    {"FABRICBENCH_SIZES", "1K, 4K", {NULL}, "(spaces are not accepted)"},
    {"FABRICBENCH_PAIR", "0,1 ", {NULL}, "(spaces are not accepted)"},
};

static int hostile_refused(void)
{
    int bad = 0;

    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        char *argv[6] = {"fabricbench", "run"}, err[1024] = "", hint[512];
        int argc = 2;
        fab_opts_t o;
        fab_cmd_t cmd;
        fab_status_t st;

        for (int a = 0; a < 3 && hostile[i].args[a]; a++)
            argv[argc++] = (char *)hostile[i].args[a];
        if (hostile[i].env)
            setenv(hostile[i].env, hostile[i].val, 1);
        st = fab_opts_parse(argc, argv, &cmd, &o, err, sizeof(err), hint, sizeof(hint));
        if (hostile[i].env)
            unsetenv(hostile[i].env);
        if (st != FAB_ERR_USAGE || !strstr(err, hostile[i].says) ||
            (hostile[i].env && !strstr(err, hostile[i].env))) {
            fprintf(stderr, "hostile %s%s%s %s %s: status %d, '%s'; wanted '%s'\n",
                    hostile[i].env ? hostile[i].env : "", hostile[i].env ? "=" : "",
                    hostile[i].env ? hostile[i].val : "", argc > 2 ? argv[2] : "",
                    argc > 3 ? argv[3] : "", (int)st, err, hostile[i].says);
            bad++;
        }
    }
    return bad;
}

/* A row's value as text (a harness option's in o, a kernel's in the kernel's own struct). */
static void value_of(const char *name, const fab_opts_t *o, char *buf, size_t len)
{
    const fab_opt_t *d = fab_opts_harness(name, strlen(name));

    buf[0] = '\0';
    if (d) {
        fab_opt_format(d, o, buf, len);
        return;
    }
    for (int k = 0; k < fab_nkernels; k++) {
        const fab_kopts_t *ko = fab_kopts(fab_kernels[k]);

        for (int i = 0; i < ko->n; i++)
            if (strcmp(ko->rows[i].name, name) == 0) {
                fab_opt_format(&ko->rows[i], ko->values, buf, len);
                return;
            }
    }
}

/* Numbers written in every form the grammar takes: each accepted with its value. */
static const struct {
    const char *args[2];
    const char *name, *value;
} valid[] = {
    {{"-i", "1e3"}, "iterations", "1000"},
    {{"-i", "+5"}, "iterations", "5"},
    {{"-i", "007"}, "iterations", "7"},
    {{"--stall-timeout", "2.0"}, "stall-timeout", "2"},
    {{"-t", ".5"}, "time", "0.5"},
    {{"-t", "5."}, "time", "5"},
    {{"-t", "2.5E-1"}, "time", "0.25"},
    {{"--budget", "0.001"}, "budget", "0.001"},
    {{"--root", "-1"}, "root", "-1"},
    {{"--omit", "0"}, "omit", "0"},
    {{"--omit", "2.5"}, "omit", "2.5"},
    {{"--sockbuf", "0"}, "sockbuf", "0"},
    {{"--sockbuf", "1.5K"}, "sockbuf", "1536"},
    {{"-m", "1.5K,1e3,8B,4KiB"}, "sizes", "1536,1000,8,4096"},
    {{"--params", "7e9"}, "params", "7000000000"},
    {{"--line-rate", "25Gb/s"}, "line-rate", "25"},
    {{"--line-rate", "1e3M"}, "line-rate", "1"},
    {{"--pair", "+2,3"}, "pair", "2,3"},
    {{"--streams", "1e1"}, "streams", "10"},
    {{"--rate", "500M:1G"}, "rate", "500M,1G"},
};

static int valid_accepted(void)
{
    int bad = 0;

    for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
        char *argv[4] = {"fabricbench", "run", (char *)valid[i].args[0], (char *)valid[i].args[1]};
        char err[1024] = "", hint[512], v[256];
        fab_opts_t o;
        fab_cmd_t cmd;
        fab_status_t st = fab_opts_parse(4, argv, &cmd, &o, err, sizeof(err), hint, sizeof(hint));

        value_of(valid[i].name, &o, v, sizeof(v));
        if (st != FAB_OK || strcmp(v, valid[i].value) != 0) {
            fprintf(stderr, "valid %s %s: status %d '%s', --%s = '%s'; wanted '%s'\n", argv[2],
                    argv[3], (int)st, err, valid[i].name, v, valid[i].value);
            bad++;
        }
    }
    return bad;
}

int main(void)
{
    CHECK(hostile_refused() == 0);
    CHECK(valid_accepted() == 0);
    {
        static const struct {
            double v;
            const char *text;
        } texts[] = {{86400, "86400"},   {-1, "-1"}, {0.25, "0.25"},      {1e13, "1e13"},
                     {2.5e-7, "2.5e-7"}, {0, "0"},   {1e9, "1000000000"}, {0.001, "0.001"}};
        fab_range_t r = {0, 60, false, false, "s"};
        char b[160];

        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
            fab_num_text(texts[i].v, b, sizeof(b));
            CHECK(strcmp(b, texts[i].text) == 0);
        }
        fab_range_text(&r, b, sizeof(b));
        CHECK(strcmp(b, "a number from 0 to 60 s") == 0);
        r.above_min = r.whole = true;
        r.unit = "%";
        fab_range_text(&r, b, sizeof(b));
        CHECK(strcmp(b, "a whole number more than 0 and at most 60%") == 0);
    }
    /* the other numbers the tool reads: `placement --ranks`, and the launcher's rank (a
     * variable that is not a rank number is passed over, not read as 0) */
    {
        char *argv[] = {"fabricbench", "placement", "--ranks", " 4"}, err[512], hint[512];
        fab_opts_t o;

        memset(&o, 0, sizeof(o));
        CHECK(fab_subcommand_parse(4, argv, FAB_CMD_PLACEMENT, &o, err, sizeof(err), hint,
                                   sizeof(hint)) == FAB_ERR_USAGE &&
              strstr(err, "--ranks: ' 4' is not a number (spaces are not accepted); give a whole "
                          "number from 1 to 4096 ranks per node"));
        argv[3] = "1e1";
        CHECK(fab_subcommand_parse(4, argv, FAB_CMD_PLACEMENT, &o, err, sizeof(err), hint,
                                   sizeof(hint)) == FAB_OK &&
              o.cmd.place_ranks == 10);
        argv[3] = "0x10";
        CHECK(fab_subcommand_parse(4, argv, FAB_CMD_PLACEMENT, &o, err, sizeof(err), hint,
                                   sizeof(hint)) == FAB_ERR_USAGE &&
              strstr(err, "hexadecimal"));
    }
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("PMIX_RANK");
    unsetenv("PMI_RANK");
    unsetenv("SLURM_PROCID");
    CHECK(fab_first_rank());
    setenv("OMPI_COMM_WORLD_RANK", " 0", 1); /* not a rank number: passed over */
    setenv("PMIX_RANK", "3", 1);
    CHECK(!fab_first_rank());
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    CHECK(fab_first_rank());
    setenv("OMPI_COMM_WORLD_RANK", "0x1", 1);
    CHECK(!fab_first_rank());
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("PMIX_RANK");
    return fab_test_report("test_numbers");
}
