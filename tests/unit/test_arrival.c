/* SPDX-License-Identifier: BSD-3-Clause */
/* --straggle RANK:DELAY's parser (every bad part refused with its words, before MPI_Init, also
 * through the option parser) and the arrivals' accumulator (measure/arrival.h): who arrived
 * last most often, its share, the percentiles of its lateness, what it explains, and the one
 * rule that names a straggler. */
#include <stdlib.h>

#include "check.h"
#include "optparse.h"
#include "cli/options.h"
#include "cli/opts.h"
#include "core/status.h"
#include "measure/arrival.h"

static fab_cmd_t cmd; /* what the last parse found */

static const struct {
    const char *in;
    int rank;
    double s;
} good[] = {
    {"2:20ms", 2, 0.02},    {"0:500us", 0, 500e-6}, {"3:1s", 3, 1.0},     {"1:1e3us", 1, 1e-3},
    {"7:250ns", 7, 250e-9}, {"1:0.5ms", 1, 5e-4},   {"12:10s", 12, 10.0},
};

/* Each bad input and the words that name its bad part. */
static const struct {
    const char *in, *says;
} bad[] = {
    {"2", "has no ':'"},
    {"2-20ms", "has no ':'"},
    {":20ms", "the rank before ':' is missing"},
    {"x:20ms", "the rank in 'x:20ms'"},
    {"-1:20ms", "the rank in '-1:20ms'"},
    {"1.5:20ms", "the rank in '1.5:20ms'"},
    {"0x2:20ms", "hexadecimal"},
    {"2:20", "the delay '20' has no unit"},
    {"2:", "the delay '' does not start with a number"},
    {"2:ms", "the delay 'ms' does not start with a number"},
    {"2:20 ms", "has the unit ' ms'"},
    {"2:20min", "has the unit 'min'"},
    {"2:20MS", "has the unit 'MS'"},
    {"2:0ms", "the delay '0ms' is out of range"},
    {"2:-5ms", "the delay '-5ms' is out of range"},
    {"2:11s", "the delay '11s' is out of range"},
    {"2:20ms:3", "has the unit 'ms:3'"},
};

static void check_parser(void)
{
    fab_straggle_t sg;
    char err[256];

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        err[0] = '\0';
        CHECK(fab_straggle_parse(good[i].in, &sg, err, sizeof(err)) == FAB_OK);
        CHECK(sg.rank == good[i].rank);
        CHECK_NEAR(sg.delay_s, good[i].s, good[i].s * 1e-12);
        if (err[0])
            fprintf(stderr, "%s: %s\n", good[i].in, err);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECK(fab_straggle_parse(bad[i].in, &sg, err, sizeof(err)) == FAB_ERR_USAGE);
        CHECK(sg.rank == -1);
        CHECK(strstr(err, bad[i].says) != NULL);
        if (!strstr(err, bad[i].says))
            fprintf(stderr, "'%s': '%s' lacks '%s'\n", bad[i].in, err, bad[i].says);
    }
    CHECK(fab_straggle_parse(NULL, &sg, err, sizeof(err)) == FAB_OK && sg.rank == -1);
    CHECK(fab_straggle_parse("", &sg, err, sizeof(err)) == FAB_OK && sg.rank == -1);
}

/* Through the option parser: the option's name and the bad part, before MPI_Init; the value
 * kept as given for the measurement. */
static void check_option(void)
{
    fab_opts_t o;
    char err[256];

    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "--straggle", "2:20ms") == FAB_OK);
    CHECK(o.meas.straggle && strcmp(o.meas.straggle, "2:20ms") == 0);
    CHECK(fab_test_parse(&o, &cmd, err, 2, "run", "allreduce") == FAB_OK &&
          o.meas.straggle == NULL);
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "--straggle", "2:20") ==
          FAB_ERR_USAGE);
    CHECK(strstr(err, "--straggle") && strstr(err, "has no unit"));
    CHECK(fab_test_parse(&o, &cmd, err, 4, "run", "allreduce", "--straggle", "two:20ms") ==
          FAB_ERR_USAGE);
    CHECK(strstr(err, "--straggle") && strstr(err, "the rank in"));
    if (!strstr(err, "the rank in"))
        fprintf(stderr, "--straggle two:20ms: %s\n", err);
}

static void check_accumulator(void)
{
    fab_arrival_t a;
    fab_late_t l;

    CHECK(fab_arrival_init(&a, 4, 1000) == FAB_OK);
    fab_arrival_summary(&a, 1.0, &l);
    CHECK(l.rank == -1 && isnan(l.share) && !fab_late_names(&l));
    fab_arrival_add(&a, -1, 0.0); /* only ties: calls, but no rank last in any */
    fab_arrival_summary(&a, 1.0, &l);
    CHECK(l.rank == -1 && l.share == 0.0 && l.explains == 0.0 && !fab_late_names(&l));
    fab_arrival_reset(&a);
    /* 100 calls: rank 2 last in 90 with lateness 1..90 ms, rank 0 in 10 with 1 ms */
    for (int i = 1; i <= 90; i++)
        fab_arrival_add(&a, 2, i * 1e-3);
    for (int i = 0; i < 10; i++)
        fab_arrival_add(&a, 0, 1e-3);
    fab_arrival_add(&a, 9, 1.0);  /* not a rank of the kernel: ignored */
    fab_arrival_add(&a, -2, 1.0); /* nor a rank that is none */
    fab_arrival_add(&a, 1, NAN);  /* nor a lateness that is not one */
    fab_arrival_add(&a, 1, -1.0); /* nor a negative one */
    CHECK(a.calls == 100);
    /* the calls took 100 x 50 ms: rank 2's lateness (4.095 s) explains 81.9% */
    fab_arrival_summary(&a, 5.0, &l);
    CHECK(l.rank == 2);
    CHECK_NEAR(l.share, 0.9, 1e-12);
    CHECK_NEAR(l.p50, 45.5e-3, 1e-6); /* of 1..90 ms, as fab_percentile_sorted interpolates */
    CHECK(l.p99 > 89e-3 && l.p99 <= 90e-3 + 1e-9);
    CHECK_NEAR(l.explains, 4.095 / 5.0, 1e-9);
    CHECK(fab_late_names(&l));
    /* the same lateness over calls ten times as long: not the time's cause, not named */
    fab_arrival_summary(&a, 50.0, &l);
    CHECK(l.rank == 2 && !fab_late_names(&l));
    /* calls without a last rank (ties) count among the calls: 90 of 110 */
    for (int i = 0; i < 10; i++)
        fab_arrival_add(&a, -1, 0.0);
    fab_arrival_summary(&a, 5.0, &l);
    CHECK(a.calls == 110 && l.rank == 2);
    CHECK_NEAR(l.share, 90.0 / 110.0, 1e-12);
    /* last in under half the calls: not named, however late */
    fab_arrival_reset(&a);
    for (int i = 0; i < 40; i++)
        fab_arrival_add(&a, 3, 0.1);
    for (int i = 0; i < 30; i++) {
        fab_arrival_add(&a, 1, 1e-6);
        fab_arrival_add(&a, 2, 1e-6);
    }
    fab_arrival_summary(&a, 5.0, &l);
    CHECK(l.rank == 3 && fabs(l.share - 0.4) < 1e-12 && !fab_late_names(&l));
    /* lateness beyond the summed time (clocks aligned per block) is capped at all of it */
    fab_arrival_summary(&a, 1.0, &l);
    CHECK(l.explains == 1.0);
    fab_arrival_free(&a);
    /* kept samples capped: the counts go on, the percentiles use what was kept */
    CHECK(fab_arrival_init(&a, 2, 3) == FAB_OK);
    for (int i = 0; i < 10; i++)
        fab_arrival_add(&a, 1, 2e-3);
    fab_arrival_summary(&a, 1.0, &l);
    CHECK(a.calls == 10 && a.n == 3 && l.rank == 1 && l.share == 1.0);
    CHECK_NEAR(l.p50, 2e-3, 1e-9);
    fab_arrival_free(&a);
}

int main(void)
{
    check_parser();
    check_option();
    check_accumulator();
    return fab_test_report("arrival");
}
