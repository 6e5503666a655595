/* SPDX-License-Identifier: BSD-3-Clause */
/* The uneven all-to-all's matrix (coll/a2av.h): the Zipf exponent, known seeds giving known
 * counts, the spread holding within rounding, totals preserved, mixture-of-experts routing,
 * the counts file's refusals (each with its line), and the row's bytes and busbw through the
 * kernel's own descriptor and the harness's rates (measure/row.c). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "coll/a2av.h"
#include "kernel/traits.h"
#include "measure/row.h"

extern const fab_kernel_t fab_kernel_alltoallv;

/* k / H(k, s), computed here apart from the library. */
static double top_over_mean(int k, double s)
{
    double h = 0;

    for (int j = 1; j <= k; j++)
        h += pow(j, -s);
    return k / h;
}

static void test_zipf(void)
{
    CHECK(fab_a2av_zipf_s(8, 1.0) == 0.0);
    CHECK_NEAR(top_over_mean(8, fab_a2av_zipf_s(8, 3.0)), 3.0, 1e-6);
    CHECK_NEAR(top_over_mean(64, fab_a2av_zipf_s(64, 5.5)), 5.5, 1e-6);
    /* s = 1 over 4: 4 / (1 + 1/2 + 1/3 + 1/4) = 48/25 */
    CHECK_NEAR(fab_a2av_zipf_s(4, 48.0 / 25.0), 1.0, 1e-6);
    CHECK(fab_a2av_zipf_s(4, 4.0) >= 60.0); /* all to one */
}

/* Known seeds give known counts: the row every rank sends for 1000 elements over 8 ranks,
 * spread 3, seeds 1 and 2 (the popular receiver moves with the seed). */
static void test_spread_known(void)
{
    static const long long want1[8] = {51, 45, 122, 184, 375, 72, 60, 91};
    static const long long want2[8] = {51, 72, 184, 60, 91, 375, 45, 122};
    const long long *want[2] = {want1, want2};

    for (int seed = 1; seed <= 2; seed++) {
        fab_a2av_model_t m = {FAB_A2AV_SPREAD, 8, 3.0, (uint64_t)seed, 1000, 0, 0, 0, 0, NULL};
        fab_a2av_t a;
        long long row[8], sum = 0;
        char err[200];
        int same = 1;

        CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_OK);
        fab_a2av_row(&a, 5, row);
        for (int j = 0; j < 8; j++) {
            sum += row[j];
            same &= row[j] == want[seed - 1][j];
        }
        if (!same) {
            fprintf(stderr, "seed %d: row", seed);
            for (int j = 0; j < 8; j++)
                fprintf(stderr, " %lld", row[j]);
            fprintf(stderr, "\n");
        }
        CHECK(same);
        CHECK(sum == 1000);
        fab_a2av_free(&a);
    }
}

/* The factor holds within rounding and the totals are preserved, for several shapes. */
static void test_spread_factor(void)
{
    static const struct {
        int n;
        double f;
        long long mean;
    } cases[] = {{4, 1.0, 1024}, {8, 2.5, 100000}, {16, 7.0, 4096}, {32, 32.0, 999}, {5, 1.5, 7}};

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        fab_a2av_model_t m = {
            FAB_A2AV_SPREAD, cases[c].n, cases[c].f, 7, cases[c].mean, 0, 0, 0, 0, NULL};
        fab_a2av_t a;
        fab_a2av_stats_t st;
        int *sc = calloc((size_t)m.n, sizeof(int)), *rc = calloc((size_t)m.n, sizeof(int));
        char err[200];
        long long rsum = 0;

        CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_OK);
        CHECK(fab_a2av_plan(&a, 1, sc, rc, &st, err, sizeof(err)) == FAB_OK);
        CHECK(st.total == (long long)m.n * m.mean);
        CHECK_NEAR(st.mean, (double)m.mean, 1e-9);
        CHECK_NEAR(st.send_imbalance, 1.0, 1e-12);
        /* each receiver's count per sender is within one element of mean x weight */
        CHECK_NEAR(st.recv_imbalance, m.spread, (double)m.n / (double)m.mean + 1e-9);
        CHECK(st.busiest == (long long)llround(st.recv_imbalance * st.mean));
        for (int j = 0; j < m.n; j++)
            rsum += rc[j];
        CHECK(rsum == (long long)m.n * sc[1]); /* rank 1 gets its share from every rank */
        free(sc);
        free(rc);
        fab_a2av_free(&a);
    }
}

static void test_refusals(void)
{
    fab_a2av_model_t m = {FAB_A2AV_SPREAD, 4, 5.0, 1, 100, 0, 0, 0, 0, NULL};
    fab_a2av_t a;
    fab_a2av_stats_t st;
    char err[200];

    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_ERR_CONFIG);
    CHECK(strstr(err, "at most 4") != NULL);
    m.spread = 4.0;
    m.mean = 1LL << 30; /* 4 x 2^30 elements into one rank */
    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_OK);
    CHECK(fab_a2av_plan(&a, 0, NULL, NULL, &st, err, sizeof(err)) == FAB_ERR_CONFIG);
    CHECK(strstr(err, "MPI count") != NULL);
    fab_a2av_free(&a);
    m = (fab_a2av_model_t){FAB_A2AV_MOE, 4, 1.0, 1, 0, 8, 9, 10, 10, NULL};
    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_ERR_CONFIG);
    CHECK(strstr(err, "top-9 of 8") != NULL);
    m.topk = 2;
    m.tokens = 100000000;
    m.hidden = 1000; /* refused before any routing is drawn */
    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_ERR_CONFIG);
    CHECK(strstr(err, "MPI count") != NULL);
}

/* Mixture of experts: every rank sends tokens x topk x hidden; known seeds, known counts;
 * a popular expert's rank receives more. */
static void test_moe(void)
{
    fab_a2av_model_t m = {FAB_A2AV_MOE, 4, 1.0, 42, 0, 16, 2, 1000, 3, NULL};
    fab_a2av_t a;
    fab_a2av_stats_t st, st2;
    long long row[4];
    char err[200];
    static const long long want[4] = {1485, 1467, 1542, 1506};
    int same = 1;

    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_OK);
    CHECK(fab_a2av_plan(&a, 0, NULL, NULL, &st, err, sizeof(err)) == FAB_OK);
    CHECK(st.total == 4LL * 1000 * 2 * 3);
    CHECK_NEAR(st.send_imbalance, 1.0, 1e-12);
    CHECK(st.recv_imbalance > 1.0 && st.recv_imbalance < 1.2); /* sampling alone */
    fab_a2av_row(&a, 2, row);
    for (int j = 0; j < 4; j++)
        same &= row[j] == want[j] && row[j] % 3 == 0;
    if (!same)
        fprintf(stderr, "moe row 2: %lld %lld %lld %lld\n", row[0], row[1], row[2], row[3]);
    CHECK(same);
    fab_a2av_free(&a);
    m.spread = 8.0; /* one expert of 16 gets 8 x the mean weight: its rank gets more */
    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_OK);
    CHECK(fab_a2av_plan(&a, 0, NULL, NULL, &st2, err, sizeof(err)) == FAB_OK);
    CHECK(st2.total == st.total);
    CHECK(st2.recv_imbalance > 1.5);
    fab_a2av_free(&a);
}

/* Each bad counts file is refused with its line. */
static void test_file(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"1 2\n3 4\n5 6\n", "f:3: too many rows"},
        {"1 2\n3\n", "f:2: row 2: 1 counts"},
        {"1 2 3\n4 5\n", "f:1: row 1: more than 2"},
        {"# c\n1 2\n", "f:2: too few rows: 1"},
        {"1 -2\n3 4\n", "f:1: count (column 2): a negative"},
        {"1 2\n3 4x\n", "f:2: count (column 2): 'x'"},
        {"1 2\n\n0x3 4\n", "f:3: count (column 1): 'x'"},
        {"1 2.5\n3 4\n", "f:1: count (column 2): '.'"},
        {"1 2\n3 2147483648\n", "f:2: count 2147483648... (column 2) is larger"},
        {"1 2\n3 99999999999\n", "f:2: count 9999999999"},
        {"1,2\n3 4\n", "f:1: count (column 1): ','"},
        {"1 2\n3 \0014\n", "f:2: count (column 2): byte 0x01"},
        {"", "f:1: too few rows: 0"},
    };
    int counts[4];
    char err[300], hint[300];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fab_status_t st = fab_a2av_parse(bad[i].text, strlen(bad[i].text), "f", 2, counts, err,
                                         sizeof(err), hint, sizeof(hint));

        CHECK(st == FAB_ERR_CONFIG);
        if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
            fprintf(stderr, "case %zu: got '%s', want '%s...'\n", i, err, bad[i].want);
        CHECK(strncmp(err, bad[i].want, strlen(bad[i].want)) == 0);
        CHECK(hint[0] != '\0');
    }
    {
        const char *good = "# send counts\n 1\t2 # rank 0\r\n\n3 4\n";

        CHECK(fab_a2av_parse(good, strlen(good), "f", 2, counts, err, sizeof(err), hint,
                             sizeof(hint)) == FAB_OK);
        CHECK(counts[0] == 1 && counts[1] == 2 && counts[2] == 3 && counts[3] == 4);
    }
}

/* The file itself: a directory, a missing file, an oversized one are refused with ":0:"; a
 * good one is read. */
static void test_read(void)
{
    char dir[] = "/tmp/fab_a2av_XXXXXX", path[64], err[300], hint[300];
    int *counts = NULL;
    FILE *f;

    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    CHECK(fab_a2av_read(dir, 2, &counts, err, sizeof(err), hint, sizeof(hint)) == FAB_ERR_CONFIG);
    CHECK(strstr(err, ":0: not a regular file") != NULL);
    snprintf(path, sizeof(path), "%s/m", dir);
    CHECK(fab_a2av_read(path, 2, &counts, err, sizeof(err), hint, sizeof(hint)) == FAB_ERR_CONFIG);
    f = fopen(path, "w");
    fputs("0 5\n7 0\n", f);
    fclose(f);
    CHECK(fab_a2av_read(path, 2, &counts, err, sizeof(err), hint, sizeof(hint)) == FAB_OK);
    CHECK(counts && counts[1] == 5 && counts[2] == 7);
    free(counts);
    CHECK(truncate(path, FAB_A2AV_FILE_MAX + 1) == 0);
    CHECK(fab_a2av_read(path, 2, &counts, err, sizeof(err), hint, sizeof(hint)) == FAB_ERR_CONFIG);
    CHECK(strstr(err, "larger than 16 MiB") != NULL);
    unlink(path);
    rmdir(dir);
}

/* The matrix of a file: busiest rank, imbalance, and the row's bytes and busbw through the
 * kernel's descriptor (fit_bytes) and the harness's fab_row_rates. */
static void test_busbw(void)
{
    /* rank 0 sends 10+20+30+40 = 100; rank 2 receives 30+30+30+30 = 120 */
    static const int counts[16] = {10, 20, 30, 40, 5, 5, 30, 0, 0, 0, 30, 0, 1, 1, 30, 8};
    fab_a2av_model_t m = {FAB_A2AV_FILE, 4, 1.0, 1, 0, 0, 0, 0, 0, counts};
    fab_a2av_t a;
    fab_a2av_stats_t st;
    char err[200];
    const fab_kernel_t *k = &fab_kernel_alltoallv;
    const fab_kopts_t *ko = fab_kopts(k);
    fab_kctx_t ctx;
    fab_row_t row;

    CHECK(fab_a2av_init(&a, &m, err, sizeof(err)) == FAB_OK);
    CHECK(fab_a2av_plan(&a, 0, NULL, NULL, &st, err, sizeof(err)) == FAB_OK);
    CHECK(st.total == 100 + 40 + 30 + 40);
    CHECK(st.busiest == 120 && st.busiest_rank == 2);
    CHECK_NEAR(st.recv_imbalance, 120.0 / 52.5, 1e-12);
    CHECK_NEAR(st.send_imbalance, 100.0 / 52.5, 1e-12);
    fab_a2av_free(&a);

    /* The kernel with its defaults (--spread 1): 4096 bytes of float32 on 4 ranks is an even
     * alltoall, the row's bytes are -m's; with --spread 4 every rank sends all to one, which
     * receives 4 x 4096 bytes. busbw = bytes / time x (n-1)/n. */
    for (int i = 0; i < ko->n; i++)
        fab_opt_default(&ko->rows[i], ko->values);
    memset(&ctx, 0, sizeof(ctx));
    ctx.size = 4;
    ctx.dtype.size = 4;
    ctx.dtype.name = "float32";
    CHECK(fab_kcoll(k)->fit_bytes(&ctx, 4096) == 4096);
    for (int i = 0; i < ko->n; i++)
        if (strcmp(ko->rows[i].name, "spread") == 0)
            CHECK(fab_opt_apply(&ko->rows[i], ko->values, "4", err, sizeof(err)) == FAB_OK);
    CHECK(fab_kcoll(k)->fit_bytes(&ctx, 4096) == 4 * 4096);
    memset(&row, 0, sizeof(row));
    row.bytes = fab_kcoll(k)->fit_bytes(&ctx, 4096);
    row.t.mean = 1e-3;
    row.iter_time = 1e-3;
    ctx.msgs_per_iter = 1;
    fab_row_rates(&row, k, &ctx, NAN);
    CHECK_NEAR(row.algbw, 16384.0 / 1e-3 / 1e9, 1e-12);
    CHECK_NEAR(row.busbw, 16384.0 / 1e-3 / 1e9 * 3.0 / 4.0, 1e-12);
}

int main(void)
{
    test_zipf();
    test_spread_known();
    test_spread_factor();
    test_refusals();
    test_moe();
    test_file();
    test_read();
    test_busbw();
    return fab_test_report("a2av");
}
