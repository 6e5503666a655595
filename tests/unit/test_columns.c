/* The column table and the text layouts: names unique, every cell names a column, values
 * taken from the row as each entry says, and the table printed from a row of known values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "out/columns.h"
#include "out/text.h"

int main(void)
{
    fab_row_t r;
    double v[FAB_MAX_COLUMNS];
    const fab_kind_t kinds[] = {FAB_KIND_LATENCY, FAB_KIND_BANDWIDTH, FAB_KIND_COLLECTIVE};

    /* names: unique, file-safe; at most FAB_MAX_COLUMNS */
    CHECK(fab_ncolumns > 30 && fab_ncolumns <= FAB_MAX_COLUMNS);
    for (int i = 0; i < fab_ncolumns; i++) {
        CHECK(strpbrk(fab_columns[i].name, "/ .%") == NULL);
        CHECK(fab_columns[i].unit && fab_columns[i].doc && fab_columns[i].doc[0]);
        CHECK(fab_column_find(fab_columns[i].name) == i);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(fab_columns[i].name, fab_columns[j].name) != 0);
    }
    CHECK(fab_column_find("no_such_column") == -1);
    /* the files' first columns keep their places (docs/SCHEMA.md: append-only) */
    CHECK(strcmp(fab_columns[0].name, "bytes") == 0 && strcmp(fab_columns[8].name, "p999_us") == 0);
    CHECK(fab_column_find("p9999_us") == 33 && fab_column_find("stall_s") == 34);

    /* every cell of every layout names a column (and its second one) */
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        int n;
        const fab_text_cell_t *cells = fab_text_layout(kinds[k], &n);

        CHECK(n > 10 && strcmp(cells[0].col, "bytes") == 0);
        for (int i = 0; i < n; i++) {
            if (fab_column_find(cells[i].col) < 0)
                fprintf(stderr, "layout %zu cell %d names no column: %s\n", k, i, cells[i].col);
            CHECK(fab_column_find(cells[i].col) >= 0);
            CHECK(!cells[i].col2 || fab_column_find(cells[i].col2) >= 0);
            CHECK(cells[i].width > 0 &&
                  (int)strlen(cells[i].head) <=
                      (cells[i].head_width ? cells[i].head_width : cells[i].width));
        }
    }

    /* values: as the entries say (seconds to us, integers as integers) */
    memset(&r, 0, sizeof(r));
    r.bytes = 4096;
    r.iters = 1000;
    r.t.p50 = 1.5e-6;
    r.t.p9999 = 9e-6;
    r.t.exact = true;
    r.validation_errors = -1;
    r.slowest_rank = 3;
    r.slowest_share = 0.25;
    r.mbps = 1234.5;
    r.overlap_pct = NAN;
    r.line_pct = NAN;
    r.cpu_rank_pct = 99.0;
    r.cpu_user_pct = NAN;
    r.cpu_sys_pct = NAN;
    r.cpu_softirq_pct = NAN;
    r.ci_pct = 1.25; /* missed the target: marked * */
    r.target_met = 0;
    r.regimes = 2;
    r.t.p99 = NAN; /* too few samples: "-" */
    fab_column_values(&r, v);
    CHECK(v[fab_column_find("bytes")] == 4096 && v[fab_column_find("iterations")] == 1000);
    CHECK(fabs(v[fab_column_find("p50_us")] - 1.5) < 1e-12);
    CHECK(fabs(v[fab_column_find("p9999_us")] - 9.0) < 1e-12);
    CHECK(v[fab_column_find("percentiles_exact")] == 1);
    CHECK(v[fab_column_find("validation_errors")] == -1);
    CHECK(v[fab_column_find("slowest_rank")] == 3 && v[fab_column_find("MBps")] == 1234.5);

    /* the printed collective row: rank:share, "-" for no overlap and no validation, n/a */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        CHECK(f != NULL);
        fab_out_text_values(f, FAB_KIND_COLLECTIVE, v);
        fab_out_text_columns(f, FAB_KIND_COLLECTIVE);
        fclose(f);
        CHECK(strstr(buf, "       4096 ") == buf + 1 && strstr(buf, "      3:25% ") &&
              strstr(buf, "    n/a ") && strstr(buf, "  exact   1.25*   2      - ") &&
              strstr(buf, "    1.500         - ") && strstr(buf, "  99.0   n/a   n/a   n/a\n") &&
              strstr(buf, "     1.500 "));
        CHECK(strstr(buf, "\n#      bytes    time_us    min_us    p50_us ") != NULL);
        CHECK(strstr(buf, "    pct     ci% reg errors ") != NULL);
        free(buf);
    }
    return fab_test_report("test_columns");
}
