/* SPDX-License-Identifier: BSD-3-Clause */
/* The column table and the text tables: names unique, every cell names a column, the compact
 * layouts within 100 columns, values taken from the row (and a collective's kernel and
 * options) as each entry says, --columns checked and followed, the significant-digit rule, and
 * rows printed from known values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/launchopts.h"
#include "kernel/dtype.h"
#include "kernel/registry.h"
#include "kernel/traits.h"
#include "output/columns.h"
#include "output/ladder.h"
#include "output/table.h"
#include "output/text.h"
#include "pairs/locate.h"
#include "pairs/matrix.h"

/* What fab_text_number prints for x with `decimals` decimals. */
static int number_is(double x, int decimals, const char *want)
{
    char buf[64];

    fab_text_number(buf, sizeof(buf), x, decimals);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "fab_text_number(%g, %d) = '%s', expected '%s'\n", x, decimals, buf, want);
    return strcmp(buf, want) == 0;
}

/* The text of table t's heading and one row from d, s. */
static char *printed(const fab_text_table_t *t, const double *d, const char **s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    fab_text_heading(f, t);
    fab_text_row(f, t, d, s);
    fclose(f);
    return buf;
}

/* Every line of text at most FAB_TEXT_COLS characters. */
static int fits(const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");

        if (n > FAB_TEXT_COLS) {
            fprintf(stderr, "%zu characters: %.*s\n", n, (int)n, p);
            return 0;
        }
        p += n + (p[n] == '\n');
    }
    return 1;
}

static void check_layouts(void)
{
    const fab_kind_t kinds[] = {FAB_KIND_LATENCY, FAB_KIND_BANDWIDTH, FAB_KIND_COLLECTIVE};

    /* every cell of every layout names a column (and its second one); bytes first */
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        for (int wide = 0; wide < 2; wide++) {
            int n, line = 1;
            const fab_text_cell_t *cells = fab_text_layout(kinds[k], wide, &n);

            CHECK(n > (wide ? 10 : 8) && strcmp(cells[0].col, "bytes") == 0);
            for (int i = 0; i < n; i++) {
                int w = cells[i].head_width ? cells[i].head_width : cells[i].width;

                if (fab_column_find(cells[i].col) < 0)
                    fprintf(stderr, "layout %zu cell %d names no column: %s\n", k, i, cells[i].col);
                CHECK(fab_column_find(cells[i].col) >= 0);
                CHECK(!cells[i].col2 || fab_column_find(cells[i].col2) >= 0);
                CHECK(cells[i].width > 0 && (int)strlen(cells[i].head) <= w);
                line += 1 + (w > cells[i].width ? w : cells[i].width);
            }
            /* the compact tables fit 100 columns with their widths (values that fit them) */
            if (!wide)
                CHECK(line <= FAB_TEXT_COLS - 2);
        }
    /* the second column keeps its OSU meaning, compact and wide */
    for (int wide = 0; wide < 2; wide++) {
        int n;

        CHECK(strcmp(fab_text_layout(FAB_KIND_LATENCY, wide, &n)[1].col, "loop_us") == 0);
        CHECK(strcmp(fab_text_layout(FAB_KIND_BANDWIDTH, wide, &n)[1].col, "MBps") == 0);
        CHECK(strcmp(fab_text_layout(FAB_KIND_COLLECTIVE, wide, &n)[1].col, "mean_us") == 0);
    }
}

/* How the harness adds a kernel's counters over a row's windows (fab_kc_add): a COUNTER the
 * sum of each window's change, a GAUGE the last window's end, a TOTAL the change from the
 * first window's start to the last one's end (what happened between windows counts too). */
static void check_counter_kinds(void)
{
    static const fab_kcol_t cols[] = {
        {"a", "a", "count", "a", FAB_KCOL_COUNTER},
        {"b", "b", "bytes", "b", FAB_KCOL_GAUGE},
        {"c", "c", "count", "c", FAB_KCOL_TOTAL},
        {"d", "d", "count", "d", FAB_KCOL_DERIVED},
    };
    const fab_kernel_t k = {.name = "k",
                            .columns = &(const fab_kcolumns_t){.kcols = cols, .nkcols = 4}};
    double sum[FAB_KCOL_MAX], first[FAB_KCOL_MAX];
    /* two windows: 10..14 and 20..23 (a counter); the total moved from 100 to 130 overall */
    const double a1[] = {10, 1000, 100, 5}, b1[] = {14, 2000, 110, 6};
    const double a2[] = {20, 3000, 125, 7}, b2[] = {23, 4000, 130, 8};

    for (int j = 0; j < FAB_KCOL_MAX; j++)
        sum[j] = first[j] = NAN;
    fab_kc_add(&k, sum, first, a1, b1);
    fab_kc_add(&k, sum, first, a2, b2);
    CHECK(sum[0] == 7 && sum[1] == 4000 && sum[2] == 30 && isnan(sum[3]) && first[2] == 100);
}

/* The kernels' own columns: every one a column (room for all), one definition per name, none
 * named as a harness column; each kernel's compact table names columns and fits 100
 * characters; an axis names a list option of the kernel and an AXIS column. */
static void check_kernel_columns(void)
{
    size_t names = 0;

    CHECK(fab_columns_wanted() == fab_ncolumns && fab_ncolumns <= FAB_MAX_COLUMNS);
    for (int c = 0; c < fab_ncolumns; c++) /* the HDF5 table's "columns" list (output/hdf5.c) */
        names += strlen(fab_columns[c].name) + 1;
    CHECK(names < FAB_MAX_COLUMNS * 32);
    for (int i = 0; i < fab_nkernels; i++) {
        const fab_kernel_t *k = fab_kernels[i];
        const fab_kcolumns_t *kcs = fab_kcolumns(k);
        const fab_kopts_t *ko = fab_kopts(k);
        int axes = 0;

        CHECK(kcs->nkcols >= 0 && kcs->nkcols <= FAB_KCOL_MAX && (kcs->nkcols == 0 || kcs->kcols));
        for (int j = 0; j < kcs->nkcols; j++) {
            const fab_kcol_t *kc = &kcs->kcols[j];
            int c = fab_column_find(kc->name);
            const fab_kcol_t *def = fab_column_kcol(c);

            CHECK(c >= 0 && fab_columns[c].ctype == 'k' && def);
            /* a name shared by two kernels' tables: the same definition */
            CHECK(def && strcmp(def->unit, kc->unit) == 0 && strcmp(def->doc, kc->doc) == 0 &&
                  def->kind == kc->kind && strcmp(def->head, kc->head) == 0);
            CHECK(strpbrk(kc->name, "/ .%") == NULL && kc->head && kc->head[0]);
            CHECK((kc->kind != FAB_KCOL_DERIVED && kc->kind != FAB_KCOL_IMPLAUSIBLE) ||
                  kcs->derive);
            CHECK((kc->kind != FAB_KCOL_COUNTER && kc->kind != FAB_KCOL_GAUGE) || kcs->counters);
            axes += kc->kind == FAB_KCOL_AXIS;
        }
        if (k->axis) {
            bool list = false;

            for (int j = 0; j < ko->n; j++)
                list = list ||
                       (strcmp(ko->rows[j].name, k->axis->option) == 0 &&
                        (ko->rows[j].type == FAB_OPT_INTS || ko->rows[j].type == FAB_OPT_RATES ||
                         ko->rows[j].type == FAB_OPT_WORDS));
            if (!list || axes != 1)
                fprintf(stderr,
                        "kernel %s: axis %s is no list option of its own, or %d AXIS "
                        "columns\n",
                        k->name, k->axis->option, axes);
            CHECK(list && axes == 1);
        }
        if (kcs->table) {
            fab_text_table_t t;
            double d[FAB_MAX_COLUMNS];
            char *buf;
            int line = 1;

            CHECK(fab_text_columns_check(kcs->table, (char[256]){0}, 256, (char[2048]){0}, 2048) ==
                  FAB_OK);
            fab_text_table(k->kind, k, false, NULL, &t);
            CHECK(strcmp(t.cell[0].col, "bytes") == 0);
            for (int c = 0; c < t.n; c++)
                line += 1 + (t.cell[c].head_width > t.cell[c].width ? t.cell[c].head_width
                                                                    : t.cell[c].width);
            if (line > FAB_TEXT_COLS - 2)
                fprintf(stderr, "kernel %s: compact table of %d characters\n", k->name, line);
            CHECK(line <= FAB_TEXT_COLS - 2);
            for (int c = 0; c < fab_ncolumns; c++)
                d[c] = 1234.5;
            buf = printed(&t, d, NULL);
            CHECK(fits(buf));
            free(buf);
        }
    }
    /* tcp_stream: its own compact table; --wide: the bandwidth table, then its columns */
    {
        const fab_kernel_t *k = fab_kernel_find("tcp_stream");
        fab_text_table_t t;
        int n;

        fab_text_layout(FAB_KIND_BANDWIDTH, true, &n);
        fab_text_table(k->kind, k, true, NULL, &t);
        CHECK(t.n == n + k->columns->nkcols && strcmp(t.cell[n].head, "retr") == 0 &&
              strcmp(t.cell[n + 3].head, "streams") == 0);
        fab_text_table(k->kind, k, false, NULL, &t);
        CHECK(strcmp(t.cell[4].head, "retr") == 0 && strcmp(t.cell[9].head, "sys%") == 0);
    }
    /* cong_lat's congestor column holds its longest pattern (put_incast, wider than the
     * heading, pushed every later cell one place right) */
    {
        const fab_kernel_t *k = fab_kernel_find("cong_lat");
        fab_text_table_t t;
        bool seen = false;

        for (int wide = 0; wide < 2; wide++) {
            fab_text_table(k->kind, k, wide, NULL, &t);
            for (int c = 0; c < t.n; c++)
                if (strcmp(t.cell[c].col, "congestor_name") == 0) {
                    seen = true;
                    CHECK(t.cell[c].width >= (int)strlen("put_incast"));
                }
        }
        CHECK(seen);
    }
}

static void check_numbers(void)
{
    /* at least 4 significant digits, at least the cell's decimals, no exponent from 1e-5 */
    CHECK(number_is(0.0001234, 3, "0.0001234")); /* a small busbw: never 0.000 */
    CHECK(number_is(0.012, 3, "0.01200"));
    CHECK(number_is(0.219, 3, "0.2190"));
    CHECK(number_is(8.414, 3, "8.414"));
    CHECK(number_is(8253.6531, 3, "8253.653"));
    CHECK(number_is(26.4812, 2, "26.48"));
    CHECK(number_is(21186.32, 0, "21186"));
    CHECK(number_is(1.80649, 0, "1.806"));
    CHECK(number_is(46.0461, 0, "46.05"));
    CHECK(number_is(0.000015, 0, "0.00001500"));
    CHECK(number_is(1.5e-6, 0, "1.500e-06"));
    CHECK(number_is(0, 3, "0.000") && number_is(0, 0, "0"));
}

static void check_columns_option(void)
{
    char err[256], hint[1024];
    fab_text_table_t t;

    CHECK(fab_text_columns_check("p99_us,bytes,busbw_GBps,type", err, sizeof(err), hint,
                                 sizeof(hint)) == FAB_OK);
    CHECK(fab_text_columns_check("p99_us,p99.5_us", err, sizeof(err), hint, sizeof(hint)) ==
              FAB_ERR_USAGE &&
          strstr(err, "unknown column 'p99.5_us'") && strstr(hint, "p999_us") &&
          strstr(hint, "redop") && strstr(hint, "bytes"));
    /* the tables' headings are aliases of the files' names: accepted, headed as given, and a
     * column named both ways is named twice */
    CHECK(fab_text_columns_check("bytes,time_us,p99.9_us,ci%,MB/s,cpu%", err, sizeof(err), hint,
                                 sizeof(hint)) == FAB_OK);
    CHECK(fab_text_columns_check("bytes,time_us,mean_us", err, sizeof(err), hint, sizeof(hint)) ==
              FAB_ERR_USAGE &&
          strstr(err, "mean_us twice"));
    fab_text_table(FAB_KIND_LATENCY, NULL, false, "bytes,time_us,lat_us,p99.9_us,cpu%", &t);
    CHECK(t.n == 5 && strcmp(t.cell[1].col, "mean_us") == 0 &&
          strcmp(t.cell[1].head, "time_us") == 0 && strcmp(t.cell[2].col, "loop_us") == 0 &&
          strcmp(t.cell[3].col, "p999_us") == 0 && strcmp(t.cell[4].col, "cpu_rank_pct") == 0 &&
          strcmp(t.cell[4].head, "cpu%") == 0 && t.cell[4].width < 12);
    {
        const char *head;
        static const fab_kind_t kinds[] = {FAB_KIND_LATENCY, FAB_KIND_BANDWIDTH,
                                           FAB_KIND_COLLECTIVE};

        CHECK(fab_text_column_find("mean_us", &head) == fab_column_find("mean_us") && !head);
        CHECK(fab_text_column_find("MB/s", &head) == fab_column_find("MBps") &&
              strcmp(head, "MB/s") == 0);
        CHECK(fab_text_column_find("p99.5_us", &head) == -1);
        /* every heading of every layout names the column it shows, and no other */
        for (int k = 0; k < 3; k++)
            for (int wide = 0; wide < 2; wide++) {
                int n;
                const fab_text_cell_t *cells = fab_text_layout(kinds[k], wide, &n);

                for (int i = 0; i < n; i++)
                    CHECK(fab_text_column_find(cells[i].head, &head) ==
                          fab_column_find(cells[i].col));
            }
    }
    /* --overlap-compute: overlap in place of count in the compact collective table only */
    fab_text_table(FAB_KIND_COLLECTIVE, NULL, false, NULL, &t);
    fab_text_table_overlap(&t, true, (double[]){NAN, NAN}, 2);
    CHECK(strcmp(t.cell[2].col, "count") == 0);
    fab_text_table_overlap(&t, true, (double[]){NAN, 37.5}, 2);
    CHECK(strcmp(t.cell[2].col, "overlap_pct") == 0 && strcmp(t.cell[2].head, "overlap") == 0);
    fab_text_table(FAB_KIND_COLLECTIVE, NULL, true, NULL, &t);
    fab_text_table_overlap(&t, false, (double[]){37.5}, 1);
    CHECK(strcmp(t.cell[t.n - 9].col, "count") == 0 &&
          strcmp(t.cell[t.n - 6].col, "osu_avg_us") == 0 &&
          strcmp(t.cell[t.n - 3].col, "late_rank") == 0);
    CHECK(fab_text_columns_check("bytes,,p50_us", err, sizeof(err), hint, sizeof(hint)) ==
              FAB_ERR_USAGE &&
          strstr(err, "empty"));
    CHECK(fab_text_columns_check("bytes,p50_us,bytes", err, sizeof(err), hint, sizeof(hint)) ==
              FAB_ERR_USAGE &&
          strstr(err, "bytes twice"));
    CHECK(fab_text_columns_check("", err, sizeof(err), hint, sizeof(hint)) == FAB_ERR_USAGE);
    /* picks exactly those, in that order, headed by the files' names */
    fab_text_table(FAB_KIND_COLLECTIVE, NULL, false, "p99_us,bytes,MBps,type", &t);
    CHECK(t.n == 4 && strcmp(t.cell[0].head, "p99_us") == 0 &&
          strcmp(t.cell[1].head, "bytes") == 0 && strcmp(t.cell[2].head, "MBps") == 0 &&
          strcmp(t.cell[3].head, "type") == 0 && t.cell[3].fmt == FAB_TXT_STR);
    /* no list: the layout */
    fab_text_table(FAB_KIND_LATENCY, NULL, true, NULL, &t);
    CHECK(t.n > 20 && strcmp(t.cell[1].head, "lat_us") == 0);
}

/* A pairs kernel's verdict at the most members whose matrix is printed (12), with long names,
 * slow pairs and a suspect: every line within 100 columns; and a wrapped '#' line. */
static void check_verdict_width(void)
{
    enum { N = 12 };
    double bw[N * N], line[N * N];
    char *names[N], namebuf[N][48], *buf = NULL;
    size_t len = 0;
    fab_locate_in_t in = {N, bw, NULL, NULL, 0, 0, 0, 0, 0, 0};
    fab_locate_t l;
    fab_matrix_t m = {0};
    FILE *f;

    for (int i = 0; i < N; i++) {
        snprintf(namebuf[i], sizeof(namebuf[i]), "compute-node-with-a-long-name-%02d", i);
        names[i] = namebuf[i];
        for (int j = 0; j < N; j++) {
            bw[i * N + j] = i == j ? NAN : i == 3 || j == 3 ? 2500.0 : 12345.0 + i + j;
            line[i * N + j] = i == j ? NAN : bw[i * N + j] / 125.0;
        }
    }
    CHECK(fab_locate(&in, &l) == 0 && l.nsuspects > 0);
    m.n = N;
    m.names = names;
    m.bw = bw;
    m.line_pct = line;
    m.schedule = "rounds";
    m.rounds = m.rounds_done = N - 1;
    m.line_MBps = 12500;
    m.bw_frac = 0.9;
    m.verdict = &l;
    f = open_memstream(&buf, &len);
    fab_out_text_verdict(f, fab_kernel_find("pairs_bw"), &m);
    fab_out_text_line(f, "# a long line: %s %s %s", names[0], names[1], names[2]);
    fclose(f);
    CHECK(fits(buf) && strstr(buf, "# matrix: MB/s") && strstr(buf, "# suspect node: ") &&
          strstr(buf, "\n#   compute-node-with-a-long-name-02\n"));
    free(buf);
    fab_locate_free(&l);
}

int main(void)
{
    fab_row_t r;
    double d[FAB_MAX_COLUMNS];
    const char *s[FAB_MAX_COLUMNS];
    const fab_kinst_t allreduce_i = {fab_kernel_find("allreduce"), NAN, false};
    const fab_kinst_t bcast_i = {fab_kernel_find("bcast"), NAN, false};
    const fab_kinst_t latency_i = {fab_kernel_find("latency"), NAN, false};
    const fab_kinst_t *allreduce = &allreduce_i, *bcast = &bcast_i, *latency = &latency_i;
    fab_text_table_t t;

    /* every kernel's layer is one of the ladder's (a misspelt one would leave it out) */
    for (int i = 0; i < fab_nkernels; i++)
        CHECK(!fab_kernels[i]->layer || fab_ladder_knows(fab_kernels[i]->layer));
    CHECK(fab_ladder_knows("mpi") && !fab_ladder_knows("mpii") && !fab_ladder_knows(NULL));
    /* names: unique, file-safe; at most FAB_MAX_COLUMNS */
    CHECK(fab_ncolumns > 30 && fab_ncolumns <= FAB_MAX_COLUMNS);
    for (int i = 0; i < fab_ncolumns; i++) {
        CHECK(strpbrk(fab_columns[i].name, "/ .%") == NULL);
        CHECK(fab_columns[i].unit && fab_columns[i].doc && fab_columns[i].doc[0]);
        CHECK(fab_column_find(fab_columns[i].name) == i);
        CHECK(fab_columns[i].ctype != 'f' || fab_columns[i].fn);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(fab_columns[i].name, fab_columns[j].name) != 0);
    }
    CHECK(fab_column_find("no_such_column") == -1);
    /* the files' first columns keep their places (docs/SCHEMA.md: a column is added at the end,
     * so a column added later moves none of these); the nccl-tests columns after regimes */
    CHECK(strcmp(fab_columns[0].name, "bytes") == 0 && strcmp(fab_columns[8].name, "p999_us") == 0);
    CHECK(fab_column_find("p9999_us") == 33 && fab_column_find("stall_s") == 34);
    CHECK(fab_column_find("regimes") == 39 && fab_column_find("count") == 40 &&
          fab_column_find("type") == 41 && fab_column_find("redop") == 42);
    CHECK(fab_column_find("tcp_retrans") == 43 && fab_column_find("sndbuf_bytes") == 44 &&
          fab_column_find("rcvbuf_bytes") == 45 && fab_column_find("streams") == 46);
    CHECK(fab_columns[fab_column_find("type")].type == FAB_COL_STR &&
          fab_columns[fab_column_find("count")].type == FAB_COL_I64);
    /* the row's quality and disturbance after every kernel's own, then the peers' times, in
     * this order; checked by name, so that a column added after them breaks nothing */
    {
        static const char *const later[] = {"quality",         "quality_reason",   "cpu_steal_pct",
                                            "ctx_invol_per_s", "runnable_per_cpu", "osu_avg_us",
                                            "imb_tmin_us",     "imb_tmax_us"};
        int prev = -1;
        for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
            int at = fab_column_find(later[i]);
            CHECK(at > prev);
            prev = at;
        }
        for (int k = 0; k < fab_nkernels; k++)
            for (int c = 0; c < fab_kcolumns(fab_kernels[k])->nkcols; c++)
                CHECK(fab_column_find(fab_kernels[k]->columns->kcols[c].name) <
                      fab_column_find("quality"));
        CHECK(fab_columns[fab_column_find("quality")].type == FAB_COL_STR &&
              fab_columns[fab_column_find("quality_reason")].type == FAB_COL_STR);
    }
    check_layouts();
    check_kernel_columns();
    check_counter_kinds();
    check_numbers();
    check_columns_option();
    check_verdict_width();

    /* a row no rank timed (a pairs kernel's summary) has none of the peers' times */
    fab_row_clear(&r);
    CHECK(isnan(r.osu_avg) && isnan(r.imb_tmin) && isnan(r.imb_tmax));
    /* nor, not closed, the run's type and reduction: unknown, as a non-collective's */
    fab_column_values(allreduce, &r, d, s);
    CHECK(d[fab_column_find("count")] == -1 && strcmp(s[fab_column_find("type")], "") == 0 &&
          strcmp(s[fab_column_find("redop")], "") == 0);

    /* values: as the entries say (seconds to us, integers as integers) */
    memset(&r, 0, sizeof(r));
    r.dtype = FAB_DT_BFLOAT16; /* the run's, as fab_row_close sets them */
    r.op = FAB_OP_MAX;
    r.bytes = 4096;
    r.iters = 1000;
    r.t.p50 = 1.5e-6;
    r.t.p9999 = 9e-6;
    r.t.exact = true;
    r.validation_errors = -1;
    r.slowest_rank = 3;
    r.slowest_share = 0.25;
    r.mbps = 1234.5;
    r.busbw = 0.0001234;
    r.overlap_pct = NAN;
    r.line_pct = NAN;
    r.cpu_rank_pct = 99.0;
    r.cpu_user_pct = NAN;
    r.cpu_sys_pct = NAN;
    r.cpu_softirq_pct = NAN;
    r.ci_pct = 1.25; /* missed the target: marked * */
    r.target_met = 0;
    r.regimes = 2;
    r.t.p99 = NAN;      /* too few samples: "-" */
    r.osu_avg = 2.5e-6; /* the peers' times: seconds in the row, us in the columns */
    r.imb_tmin = 2e-6;
    r.imb_tmax = 3.25e-6;
    r.late.rank = 2; /* entered last in 75% of the calls, 1.5 us (p50) after the others */
    r.late.share = 0.75;
    r.late.p50 = 1.5e-6;
    r.late.p99 = 4e-6;
    CHECK(allreduce->k && bcast->k && latency->k);
    fab_column_values(allreduce, &r, d, s);
    CHECK(d[fab_column_find("bytes")] == 4096 && d[fab_column_find("iterations")] == 1000);
    CHECK(fabs(d[fab_column_find("p50_us")] - 1.5) < 1e-12);
    CHECK(fabs(d[fab_column_find("p9999_us")] - 9.0) < 1e-12);
    CHECK(d[fab_column_find("percentiles_exact")] == 1);
    CHECK(d[fab_column_find("validation_errors")] == -1);
    CHECK(d[fab_column_find("slowest_rank")] == 3 && d[fab_column_find("MBps")] == 1234.5);
    CHECK(fabs(d[fab_column_find("osu_avg_us")] - 2.5) < 1e-12 &&
          fabs(d[fab_column_find("imb_tmin_us")] - 2.0) < 1e-12 &&
          fabs(d[fab_column_find("imb_tmax_us")] - 3.25) < 1e-12);
    /* the nccl-tests columns: elements of 2 bytes, its names for the type and the reduction */
    CHECK(d[fab_column_find("count")] == 2048 && s[fab_column_find("count")] == NULL);
    CHECK(strcmp(s[fab_column_find("type")], "bfloat16") == 0 &&
          strcmp(s[fab_column_find("redop")], "max") == 0 && isnan(d[fab_column_find("type")]));
    r.dtype = FAB_DT_FLOAT16;
    fab_column_values(bcast, &r, d, s); /* no reduction: none */
    CHECK(strcmp(s[fab_column_find("type")], "half") == 0 &&
          strcmp(s[fab_column_find("redop")], "none") == 0 && d[fab_column_find("count")] == 2048);
    fab_column_values(latency, &r, d, s); /* not a collective: -1, "" */
    CHECK(d[fab_column_find("count")] == -1 && strcmp(s[fab_column_find("type")], "") == 0 &&
          strcmp(s[fab_column_find("redop")], "") == 0);
    /* a kernel's own columns: NaN for kernels without them; counters as gathered, the
     * instance's axis value */
    CHECK(isnan(d[fab_column_find("tcp_retrans")]) && isnan(d[fab_column_find("streams")]));
    {
        const fab_kinst_t inst = {fab_kernel_find("tcp_stream"), 4, false};

        for (int j = 0; j < FAB_KCOL_MAX; j++)
            r.kc[j] = NAN;
        r.kc[0] = 7;
        r.kc[1] = 212992;
        fab_column_values(&inst, &r, d, s);
        CHECK(d[fab_column_find("tcp_retrans")] == 7 && d[fab_column_find("streams")] == 4 &&
              d[fab_column_find("sndbuf_bytes")] == 212992 &&
              isnan(d[fab_column_find("rcvbuf_bytes")]));
        r.kc[0] = r.kc[1] = NAN;
    }
    { /* a word axis: its index a number (congestor), its word a text column beside it, in
       * the kernel's own table under the heading congestor; "" in other kernels' rows */
        const fab_kinst_t inst = {fab_kernel_find("cong_lat"), 1, false};
        int c = fab_column_find("congestor_name");
        char *buf;

        CHECK(c >= 0 && fab_columns[c].type == FAB_COL_STR &&
              fab_columns[fab_column_find("congestor")].type == FAB_COL_F64);
        CHECK(strcmp(s[c], "") == 0); /* tcp_stream's row, above */
        fab_column_values(&inst, &r, d, s);
        CHECK(d[fab_column_find("congestor")] == 1 && strcmp(s[c], "incast") == 0);
        fab_text_table(FAB_KIND_COLLECTIVE, inst.k, false, NULL, &t);
        buf = printed(&t, d, s);
        CHECK(strstr(buf, " congestor ") && strstr(buf, " incast ") && !strstr(buf, " 1.000 "));
        free(buf);
    }
    CHECK(strcmp(fab_dtype_nccl_name(FAB_DT_FLOAT32), "float") == 0 &&
          strcmp(fab_dtype_nccl_name(FAB_DT_FLOAT64), "double") == 0 &&
          fab_dtype_size(FAB_DT_FLOAT64) == 8 && fab_dtype_size(FAB_DT_BFLOAT16) == 2);

    /* the printed wide collective row: rank:share, "-" for no overlap and no validation, n/a,
     * a small busbw in significant digits, the nccl-tests columns, then the peers', then who
     * entered last (rank:share) and its lateness */
    r.dtype = FAB_DT_BFLOAT16;
    fab_column_values(allreduce, &r, d, s);
    {
        char *buf;

        fab_text_table(FAB_KIND_COLLECTIVE, NULL, true, NULL, &t);
        buf = printed(&t, d, s);
        CHECK(strstr(buf, "\n        4096 ") && strstr(buf, "      3:25% ") &&
              strstr(buf, "    n/a ") && strstr(buf, "  exact   1.25*   2      - ") &&
              strstr(buf, "    1.500         - ") && strstr(buf, "  99.0   n/a   n/a   n/a ") &&
              strstr(buf, "0.000    0.0001234    n/a ") &&
              strstr(buf,
                     "       2048 bfloat16   max       2.500       2.000       3.250      2:75%"
                     "     1.500     4.000\n"));
        CHECK(strstr(buf, "#      bytes    time_us    min_us    p50_us ") == buf);
        CHECK(strstr(buf, "    pct     ci% reg errors ") != NULL);
        CHECK(strstr(buf,
                     "  si%      count     type redop  osu_avg_us imb_tmin_us imb_tmax_us       "
                     "late  late_p50  late_p99\n") != NULL);
        free(buf);
        /* compact: within 100 columns, ci% with its regimes */
        fab_text_table(FAB_KIND_COLLECTIVE, NULL, false, NULL, &t);
        buf = printed(&t, d, s);
        CHECK(fits(buf) && strstr(buf, " 1.25*r2 ") && strstr(buf, " 0.0001234 ") &&
              strstr(buf, "     2048 "));
        CHECK(strstr(buf, "#      bytes  time_us     count   p50_us   p99_us algbw_GB/s "
                          "busbw_GB/s line%     ci% errors  cpu%\n") == buf);
        free(buf);
        /* --columns: what was asked, with the cells' formats */
        fab_text_table(FAB_KIND_COLLECTIVE, NULL, false, "redop,busbw_GBps,slowest_rank,p99_us",
                       &t);
        buf = printed(&t, d, s);
        CHECK(strcmp(buf, "# redop   busbw_GBps slowest_rank    p99_us\n"
                          "    max    0.0001234        3:25%         -\n") == 0);
        free(buf);
    }
    return fab_test_report("test_columns");
}
