/* SPDX-License-Identifier: BSD-3-Clause */
/* The text table: the kinds' layouts, --columns, and how a cell prints its column. Column
 * names carry decimal units: us = 10^-6 s, MB/s = 10^6 B/s, Gb/s = 10^9 bit/s. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/sizes.h"
#include "core/text.h"
#include "kernel/traits.h"
#include "measure/adaptive.h"
#include "measure/quality.h"
#include "output/columns.h"
#include "output/table.h"

/* A cell; one with a heading wider than its values; one that shows a second column too. */
// clang-format off
#define CELL(col, head, width, fmt)        {col, head, width, fmt, NULL, 0}
#define CELLW(col, head, width, fmt, hw)   {col, head, width, fmt, NULL, hw}
#define CELL2(col, head, width, fmt, col2) {col, head, width, fmt, col2, 0}
// clang-format on

/* ------------------------------------------------------------------ the compact layouts */

/* The default: what a person reads first, every line within FAB_TEXT_COLS. The second column
 * keeps its OSU meaning; ci% carries the wide table's reg as rN; numbers show FAB_TEXT_SIG
 * significant digits. */
static const fab_text_cell_t fab_compact_latency[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("loop_us", "lat_us", 8, FAB_TXT_F0),
    CELL("min_us", "min_us", 8, FAB_TXT_F0),
    CELL("p50_us", "p50_us", 8, FAB_TXT_F0),
    CELL("p99_us", "p99_us", 8, FAB_TXT_F0),
    CELL("p999_us", "p99.9_us", 8, FAB_TXT_F0),
    CELL("max_us", "max_us", 8, FAB_TXT_F0),
    CELL2("ci_pct", "ci%", 7, FAB_TXT_CIREG, "target_met"),
    CELL("validation_errors", "errors", 6, FAB_TXT_ERRORS),
    CELL("cpu_rank_pct", "cpu%", 5, FAB_TXT_PCT),
};

static const fab_text_cell_t fab_compact_bandwidth[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("MBps", "MB/s", 10, FAB_TXT_F0),
    CELL("Gbps", "Gb/s", 9, FAB_TXT_F0),
    CELL("line_rate_pct", "line%", 5, FAB_TXT_PCT),
    CELL("msgps", "msg/s", 10, FAB_TXT_F0),
    CELL("p50_us", "p50_us", 8, FAB_TXT_F0),
    CELL("p99_us", "p99_us", 8, FAB_TXT_F0),
    CELL2("ci_pct", "ci%", 7, FAB_TXT_CIREG, "target_met"),
    CELL("validation_errors", "errors", 6, FAB_TXT_ERRORS),
    CELL("cpu_rank_pct", "cpu%", 5, FAB_TXT_PCT),
};

/* Collectives: time per call second (as OSU's collectives), count (nccl-tests), then the
 * times, algbw and busbw; the type and reduction are in the kernel's header line. */
static const fab_text_cell_t fab_compact_collective[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("mean_us", "time_us", 8, FAB_TXT_F0),
    CELL("count", "count", 9, FAB_TXT_ERRORS),
    CELL("p50_us", "p50_us", 8, FAB_TXT_F0),
    CELL("p99_us", "p99_us", 8, FAB_TXT_F0),
    CELL("algbw_GBps", "algbw_GB/s", 10, FAB_TXT_F0),
    CELL("busbw_GBps", "busbw_GB/s", 10, FAB_TXT_F0),
    CELL("line_rate_pct", "line%", 5, FAB_TXT_PCT),
    CELL2("ci_pct", "ci%", 7, FAB_TXT_CIREG, "target_met"),
    CELL("validation_errors", "errors", 6, FAB_TXT_ERRORS),
    CELL("cpu_rank_pct", "cpu%", 5, FAB_TXT_PCT),
};

/* ------------------------------------------------------------------ the wide layouts */

/* --wide: every column the tables had before the compact ones, in their order (scripts that
 * count fields keep working); new columns go at the end. */

/* The per-iteration times of the point-to-point tables. */
#define FAB_TEXT_TIMES                                                                             \
    CELL("min_us", "min_us", 9, FAB_TXT_F3), CELL("p50_us", "p50_us", 9, FAB_TXT_F3),              \
        CELL("p90_us", "p90_us", 9, FAB_TXT_F3), CELL("p99_us", "p99_us", 9, FAB_TXT_F3),          \
        CELL("p999_us", "p99.9_us", 9, FAB_TXT_F3), CELL("p9999_us", "p99.99_us", 9, FAB_TXT_F3),  \
        CELL("max_us", "max_us", 9, FAB_TXT_F3), CELL("mean_us", "mean_us", 9, FAB_TXT_F3),        \
        CELL("stddev_us", "stddev_us", 9, FAB_TXT_F3), CELL("loop_us", "loop_us", 9, FAB_TXT_F3)

/* How a row was measured: iterations, warm-up, exact or histogram percentiles, validation. */
#define FAB_TEXT_COUNTS                                                                            \
    CELL("iterations", "iters", 10, FAB_TXT_F0), CELL("warmup", "warmup", 9, FAB_TXT_F0),          \
        CELL("percentiles_exact", "pct", 6, FAB_TXT_EXACT),                                        \
        CELL2("ci_pct", "ci%", 7, FAB_TXT_CI, "target_met"),                                       \
        CELL("regimes", "reg", 3, FAB_TXT_REGIMES),                                                \
        CELL("validation_errors", "errors", 6, FAB_TXT_ERRORS)

/* The CPU cost, the last cells of every table: the ranks' own CPU (100 = one core) and the
 * node-wide user, system and softirq shares. */
#define FAB_TEXT_CPU                                                                               \
    CELLW("cpu_rank_pct", "cpu%", 5, FAB_TXT_PCT, 6),                                              \
        CELL("cpu_node_user_pct", "usr%", 5, FAB_TXT_PCT),                                         \
        CELL("cpu_node_sys_pct", "sys%", 5, FAB_TXT_PCT),                                          \
        CELL("cpu_node_softirq_pct", "si%", 5, FAB_TXT_PCT)

/* Latency: the OSU column (lat_us, the loop mean) second, then the per-iteration times. */
static const fab_text_cell_t fab_wide_latency[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("loop_us", "lat_us", 10, FAB_TXT_F3),
    FAB_TEXT_TIMES,
    CELL("MBps", "MB/s", 12, FAB_TXT_F2),
    FAB_TEXT_COUNTS,
    FAB_TEXT_CPU,
};

/* Bandwidth: the OSU column (MB/s) second, then rates, then the per-iteration times. */
static const fab_text_cell_t fab_wide_bandwidth[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("MBps", "MB/s", 12, FAB_TXT_F2),
    CELL("Gbps", "Gb/s", 9, FAB_TXT_F3),
    CELL("line_rate_pct", "line%", 6, FAB_TXT_PCT),
    CELL("msgps", "msg/s", 12, FAB_TXT_F0),
    CELL("pair_MBps", "pair_MB/s", 12, FAB_TXT_F2),
    CELL("pair_msgps", "pair_msg/s", 12, FAB_TXT_F0),
    FAB_TEXT_TIMES,
    FAB_TEXT_COUNTS,
    FAB_TEXT_CPU,
};

/* Collectives: time per call (the mean of per-call maxima) second, algbw and busbw as
 * nccl-tests prints them; its count, type and redop, then OSU's and IMB's times, last. */
static const fab_text_cell_t fab_wide_collective[] = {
    CELL("bytes", "bytes", 10, FAB_TXT_F0),
    CELL("mean_us", "time_us", 10, FAB_TXT_F3),
    CELL("min_us", "min_us", 9, FAB_TXT_F3),
    CELL("p50_us", "p50_us", 9, FAB_TXT_F3),
    CELL("p99_us", "p99_us", 9, FAB_TXT_F3),
    CELL("p999_us", "p99.9_us", 9, FAB_TXT_F3),
    CELL("p9999_us", "p99.99_us", 9, FAB_TXT_F3),
    CELL("max_us", "max_us", 9, FAB_TXT_F3),
    CELL("stddev_us", "stddev_us", 9, FAB_TXT_F3),
    CELL("loop_us", "loop_us", 9, FAB_TXT_F3),
    CELL("algbw_GBps", "algbw_GB/s", 12, FAB_TXT_F3),
    CELL("busbw_GBps", "busbw_GB/s", 12, FAB_TXT_F3),
    CELL("line_rate_pct", "line%", 6, FAB_TXT_PCT),
    CELL2("slowest_rank", "slowest", 10, FAB_TXT_SLOWEST, "slowest_share"),
    FAB_TEXT_COUNTS,
    CELL("comm_us", "comm_us", 9, FAB_TXT_F3),
    CELL("overlap_pct", "overlap", 8, FAB_TXT_OVERLAP),
    FAB_TEXT_CPU,
    CELL("count", "count", 10, FAB_TXT_ERRORS),
    CELL("type", "type", 8, FAB_TXT_STR),
    CELL("redop", "redop", 5, FAB_TXT_STR),
    CELL("osu_avg_us", "osu_avg_us", 11, FAB_TXT_F3),
    CELL("imb_tmin_us", "imb_tmin_us", 11, FAB_TXT_F3),
    CELL("imb_tmax_us", "imb_tmax_us", 11, FAB_TXT_F3),
    CELL2("late_rank", "late", 10, FAB_TXT_SLOWEST, "late_share"),
    CELL("late_p50_us", "late_p50", 9, FAB_TXT_F3),
    CELL("late_p99_us", "late_p99", 9, FAB_TXT_F3),
};

#define FAB_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

const fab_text_cell_t *fab_text_layout(fab_kind_t kind, bool wide, int *n)
{
    switch (kind) {
    case FAB_KIND_LATENCY:
        *n = wide ? FAB_N(fab_wide_latency) : FAB_N(fab_compact_latency);
        return wide ? fab_wide_latency : fab_compact_latency;
    case FAB_KIND_COLLECTIVE:
        *n = wide ? FAB_N(fab_wide_collective) : FAB_N(fab_compact_collective);
        return wide ? fab_wide_collective : fab_compact_collective;
    default:
        *n = wide ? FAB_N(fab_wide_bandwidth) : FAB_N(fab_compact_bandwidth);
        return wide ? fab_wide_bandwidth : fab_compact_bandwidth;
    }
}

void fab_text_table_group(fab_text_table_t *t, bool split)
{
    for (int i = 0; split && i < t->n; i++)
        if (strcmp(t->cell[i].col, "count") == 0)
            t->cell[i] = (fab_text_cell_t)CELL("group", "group", 10, FAB_TXT_STR);
}

/* ------------------------------------------------------------------ --columns */

/* The next name of a comma-separated list at *p (advanced past it) into name; false at the
 * end. An empty or overlong name comes back as "" or truncated, for the caller to refuse. */
static bool fab_text_next_name(const char **p, char *name, size_t len, size_t *full)
{
    size_t n;

    if (!*p)
        return false;
    n = strcspn(*p, ",");
    *full = n;
    snprintf(name, len, "%.*s", (int)(n < len ? n : len - 1), *p);
    *p = (*p)[n] == ',' ? *p + n + 1 : NULL;
    return true;
}

int fab_text_column_find(const char *name, const char **head)
{
    static const fab_kind_t kinds[] = {FAB_KIND_LATENCY, FAB_KIND_BANDWIDTH, FAB_KIND_COLLECTIVE};
    int c = fab_column_find(name);

    *head = NULL;
    if (c >= 0)
        return c;
    for (int k = 0; k < 3; k++)
        for (int wide = 0; wide < 2; wide++) {
            int n;
            const fab_text_cell_t *cells = fab_text_layout(kinds[k], wide, &n);

            for (int i = 0; i < n; i++)
                if (strcmp(cells[i].head, name) == 0) {
                    *head = cells[i].head;
                    return fab_column_find(cells[i].col);
                }
        }
    for (c = 0; c < fab_ncolumns; c++) { /* a kernel's own column by its heading */
        const fab_kcol_t *kc = fab_column_kcol(c);

        if (kc && kc->head && strcmp(kc->head, name) == 0) {
            *head = kc->head;
            return c;
        }
    }
    return -1;
}

void fab_text_table_overlap(fab_text_table_t *t, bool compact, const double *overlap, size_t n)
{
    bool any = false;

    for (size_t i = 0; overlap && i < n && !any; i++)
        any = !isnan(overlap[i]);
    for (int i = 0; compact && any && i < t->n; i++)
        if (strcmp(t->cell[i].col, "count") == 0)
            t->cell[i] = (fab_text_cell_t)CELL("overlap_pct", "overlap", 9, FAB_TXT_OVERLAP);
}

fab_status_t fab_text_columns_check(const char *list, char *err, size_t errlen, char *hint,
                                    size_t hintlen)
{
    const char *p = list;
    char name[64];
    size_t full, at = 0;
    int seen[FAB_MAX_COLUMNS] = {0}, count = 0;

    err[0] = '\0';
    while (fab_text_next_name(&p, name, sizeof(name), &full)) {
        const char *head;
        int c = full < sizeof(name) ? fab_text_column_find(name, &head) : -1;

        if (!name[0])
            snprintf(err, errlen, "--columns '%s' has an empty name", list);
        else if (c < 0)
            snprintf(err, errlen, "--columns: unknown column '%s'", name);
        else if (seen[c]++)
            snprintf(err, errlen, "--columns names %s twice", name);
        if (err[0])
            break;
        count++;
    }
    if (!err[0] && count == 0)
        snprintf(err, errlen, "--columns needs at least one column name");
    if (!err[0])
        return FAB_OK;
    at = 0;
    hint[0] = '\0';
    fab_appendf(hint, hintlen, &at,
                "columns (as in the result files, comma-separated; the table's headings, as "
                "time_us or p99.9_us, name them too):");
    for (int c = 0; c < fab_ncolumns; c++)
        fab_appendf(hint, hintlen, &at, "%s %s", c ? "," : "", fab_columns[c].name);
    return FAB_ERR_USAGE;
}

/* A cell for a kernel's own column (ctype 'k'): headed by the kernel's heading (--columns:
 * the name), as wide as that, formatted by its unit. */
static fab_text_cell_t fab_text_kcol_cell(int col, bool by_name)
{
    const fab_column_t *c = &fab_columns[col];
    const fab_kcol_t *kc = fab_column_kcol(col);
    const char *head = by_name || !kc || !kc->head ? c->name : kc->head;
    int w = fab_column_word_width(col, (int)strlen(head));
    fab_text_cell_t cell = /* a text column: a word (the congestor pattern) */
        CELL(c->name, head, w < 7 ? 7 : w, c->type == FAB_COL_STR ? FAB_TXT_STR : FAB_TXT_F0);

    if (strcmp(c->unit, "%") == 0)
        cell.fmt = FAB_TXT_PCT2;
    else if (strcmp(c->unit, "count") == 0)
        cell.fmt = FAB_TXT_ERRORS;
    return cell;
}

/* A cell for column col in a table of kind: a wide layout's cell for it where there is one
 * (its format and width; kind's first, so lat_us's loop_us prints as in the latency table),
 * else one from the column's type; headed by head (a table's heading it was named by), else
 * by the column's name. */
static fab_text_cell_t fab_text_named_cell(fab_kind_t kind, int col, const char *head)
{
    const fab_kind_t order[] = {kind, FAB_KIND_COLLECTIVE, FAB_KIND_BANDWIDTH, FAB_KIND_LATENCY};
    const fab_column_t *c = &fab_columns[col];
    int len = (int)strlen(head ? head : c->name);
    fab_text_cell_t cell = CELL(c->name, c->name, 9, FAB_TXT_F3);
    bool found = false;

    if (c->ctype == 'k')
        return fab_text_kcol_cell(col, !head);
    if (c->type == FAB_COL_STR)
        cell = (fab_text_cell_t)CELL(c->name, c->name, 9, FAB_TXT_STR);
    else if (c->type != FAB_COL_F64)
        cell = (fab_text_cell_t)CELL(c->name, c->name, 8, FAB_TXT_F0);
    else if (strcmp(c->unit, "%") == 0)
        cell = (fab_text_cell_t)CELL(c->name, c->name, 6, FAB_TXT_PCT);
    for (int k = 0; k < 4 && !found; k++) {
        int n;
        const fab_text_cell_t *wide = fab_text_layout(order[k], true, &n);

        for (int i = 0; i < n && !found; i++)
            if (strcmp(wide[i].col, c->name) == 0) {
                cell = wide[i];
                found = true;
            }
    }
    cell.head = head ? head : c->name;
    cell.head_width = 0;
    if (cell.width < len)
        cell.width = len;
    return cell;
}

/* A cell of a kernel's own compact table (fab_kcolumns_t.table) for column col: the kind's
 * compact cell where it has one (its heading), the kernel's column's, else as --columns. */
static fab_text_cell_t fab_text_compact_cell(fab_kind_t kind, int col)
{
    int n;
    const fab_text_cell_t *compact = fab_text_layout(kind, false, &n);

    for (int i = 0; i < n; i++)
        if (strcmp(compact[i].col, fab_columns[col].name) == 0)
            return compact[i];
    if (fab_columns[col].ctype == 'k')
        return fab_text_kcol_cell(col, false);
    compact = fab_text_layout(kind, true, &n); /* the wide table's heading (sys%, si%) */
    for (int i = 0; i < n; i++)
        if (strcmp(compact[i].col, fab_columns[col].name) == 0) {
            fab_text_cell_t cell = compact[i];

            cell.head_width = 0;
            if (cell.width < (int)strlen(cell.head))
                cell.width = (int)strlen(cell.head);
            return cell;
        }
    return fab_text_named_cell(kind, col, NULL);
}

void fab_text_table(fab_kind_t kind, const fab_kernel_t *k, bool wide, const char *columns,
                    fab_text_table_t *t)
{
    const char *p = columns;
    char name[64];
    size_t full;
    int n;
    const fab_text_cell_t *cells;
    const fab_kcolumns_t *kc = k ? fab_kcolumns(k) : NULL;

    t->n = 0;
    if (columns || (kc && kc->table && !wide)) {
        bool own = !columns;

        p = own ? kc->table : columns;
        while (t->n < FAB_MAX_COLUMNS && fab_text_next_name(&p, name, sizeof(name), &full)) {
            const char *head;
            int c = fab_text_column_find(name, &head);

            if (c < 0)
                continue;
            t->cell[t->n++] =
                own ? fab_text_compact_cell(kind, c) : fab_text_named_cell(kind, c, head);
        }
        return;
    }
    cells = fab_text_layout(kind, wide, &n);
    for (int i = 0; i < n && i < FAB_MAX_COLUMNS; i++)
        t->cell[t->n++] = cells[i];
    for (int j = 0; wide && kc && j < kc->nkcols && t->n < FAB_MAX_COLUMNS; j++) {
        int c = fab_column_find(kc->kcols[j].name);

        if (c >= 0 && (!kc->wide_shows || kc->wide_shows(j)))
            t->cell[t->n++] = fab_text_kcol_cell(c, false);
    }
}

/* ------------------------------------------------------------------ printing */

void fab_text_number(char *buf, size_t len, double x, int decimals)
{
    double a = fabs(x);
    int d = decimals;

    if (a > 0 && isfinite(a)) {
        int mag = (int)floor(log10(a)); /* 0.0123 -> -2: 3 + 2 decimals show 4 digits */

        if (FAB_TEXT_SIG - 1 - mag > d)
            d = FAB_TEXT_SIG - 1 - mag;
    }
    if (d > 8)
        snprintf(buf, len, "%.*e", FAB_TEXT_SIG - 1, x);
    else
        snprintf(buf, len, "%.*f", d, x);
}

/* The value of column name in d[], NaN when the table has no such column. */
static double fab_text_value(const double *d, const char *name)
{
    int col = name ? fab_column_find(name) : -1;

    return col >= 0 ? d[col] : NAN;
}

fab_quality_t fab_text_row_quality(const double *d, const char *const *s, unsigned *reasons)
{
    int qc = fab_column_find("quality"), rc = fab_column_find("quality_reason");
    const char *q = qc >= 0 && s ? s[qc] : NULL;
    fab_quality_in_t in;

    if (q && q[0]) { /* as judged when measured */
        *reasons = fab_quality_parse_words(rc >= 0 && s[rc] ? s[rc] : "");
        for (int v = FAB_Q_OK; v <= FAB_Q_INVALID; v++)
            if (strcmp(q, fab_quality_name((fab_quality_t)v)) == 0)
                return (fab_quality_t)v;
        return fab_quality_of(*reasons);
    }
    /* a file from before the column: what its columns tell (docs/SCHEMA.md) */
    memset(&in, 0, sizeof(in));
    in.iters = isnan(fab_text_value(d, "iterations")) ? FAB_FLOOR_SAMPLES
                                                      : (uint64_t)fab_text_value(d, "iterations");
    in.cpu_min_pct = fab_text_value(d, "cpu_rank_min_pct");
    in.steal_pct = in.runnable_per_cpu = in.ctxsw_per_s = NAN;
    in.regimes = isnan(fab_text_value(d, "regimes")) ? 0 : (int)fab_text_value(d, "regimes");
    in.target_met =
        isnan(fab_text_value(d, "target_met")) ? -1 : (int)fab_text_value(d, "target_met");
    *reasons = fab_quality_reasons(&in);
    return fab_quality_of(*reasons);
}

void fab_text_marks_init(fab_text_marks_t *m)
{
    memset(m, 0, sizeof(*m));
    fab_quality_tally_init(&m->tally);
}

void fab_text_marks_add(fab_text_marks_t *m, const double *d, const char *const *s)
{
    unsigned why;
    fab_quality_t q = fab_text_row_quality(d, s, &why);
    fab_quality_in_t in = {
        .cpu_min_pct = fab_text_value(d, "cpu_rank_min_pct"),
        .steal_pct = fab_text_value(d, "cpu_steal_pct"),
        .runnable_per_cpu = fab_text_value(d, "runnable_per_cpu"),
        .ctxsw_per_s = fab_text_value(d, "ctx_invol_per_s"),
    };
    char sz[32];
    double bytes = fab_text_value(d, "bytes");

    fab_quality_tally_add(&m->tally, &in, why);
    fab_size_format(isnan(bytes) ? 0 : (size_t)bytes, sz, sizeof(sz));
    if (q == FAB_Q_INVALID && (why & FAB_QR_IMPLAUSIBLE) && ++m->nimplausible)
        fab_appendf(m->implausible, sizeof(m->implausible), &m->plen, "%s%s", m->plen ? ", " : "",
                    sz);
    else if (q == FAB_Q_INVALID)
        fab_appendf(m->invalid, sizeof(m->invalid), &m->ilen, "%s%s", m->ilen ? ", " : "", sz);
    else if (q == FAB_Q_DISTURBED)
        fab_appendf(m->disturbed, sizeof(m->disturbed), &m->dlen, "%s%s", m->dlen ? ", " : "", sz);
}

/* The precision mark of a row: ci%, * where it missed --precision, rN for N regimes, ! when
 * the row was disturbed; INVALID for a row below the floor, IMPLAUS for one its kernel marked
 * implausible. Within the cell's width: rN goes
 * first (the note under the table names the regimes' rows). */
static void fab_text_ci(const fab_text_cell_t *c, double x, const double *d, const char *const *sv,
                        char *s, size_t len)
{
    double met = fab_text_value(d, c->col2), reg = fab_text_value(d, "regimes");
    unsigned why;
    fab_quality_t q = fab_text_row_quality(d, sv, &why);
    const char *bang = q == FAB_Q_DISTURBED ? "!" : "";
    size_t at;

    if (q == FAB_Q_INVALID) { /* implausible: the kernel's own check (measure/quality.h) */
        snprintf(s, len, "%s", why & FAB_QR_IMPLAUSIBLE ? "IMPLAUS" : "INVALID");
        return;
    }
    /* No interval (too few samples): "-", a missed target still marked. A half-width of
     * 1000% or more (a busy machine's) says no more than ">999", and fits the cell. */
    if (isnan(x))
        snprintf(s, len, "-%s", met == 0 ? "*" : "");
    else if (x >= 999.5)
        snprintf(s, len, ">999%s", met == 0 ? "*" : "");
    else
        snprintf(s, len, "%.*f%s", x < 9.995 ? 2 : x < 99.95 ? 1 : 0, x, met == 0 ? "*" : "");
    at = strlen(s);
    if (c->fmt == FAB_TXT_CIREG && reg > 1 && at + 2 + strlen(bang) <= (size_t)c->width)
        snprintf(s + at, len - at, "r%.0f", reg);
    at = strlen(s);
    snprintf(s + at, len - at, "%s", bang);
}

/* One cell's text (without its padding). */
static void fab_text_cell(const fab_text_cell_t *c, const double *d, const char *const *s,
                          char *buf, size_t len)
{
    int col = fab_column_find(c->col);
    double x = col >= 0 ? d[col] : NAN;
    char num[48];
    unsigned why;

    switch (c->fmt) {
    case FAB_TXT_F0:
    case FAB_TXT_F2:
    case FAB_TXT_F3:
        if (isnan(x)) /* a quantile with too few samples to mean anything (stats.h) */
            snprintf(buf, len, "-");
        else if (col >= 0 && fab_columns[col].type != FAB_COL_F64)
            snprintf(buf, len, "%.0f", x);
        else if (fab_text_row_quality(d, s, &why) == FAB_Q_INVALID) {
            /* not a measurement: never a plain number; fewer digits where ( ) would not fit */
            fab_text_number(num, sizeof(num), x,
                            c->fmt == FAB_TXT_F0   ? 0
                            : c->fmt == FAB_TXT_F2 ? 2
                                                   : 3);
            snprintf(buf, len, "(%s)", num);
            for (int g = 3; g > 0 && (int)strlen(buf) > c->width; g--)
                snprintf(buf, len, "(%.*g)", g, x);
        } else
            fab_text_number(buf, len, x, c->fmt == FAB_TXT_F0 ? 0 : c->fmt == FAB_TXT_F2 ? 2 : 3);
        break;
    case FAB_TXT_CI:
    case FAB_TXT_CIREG:
        fab_text_ci(c, x, d, s, buf, len);
        break;
    case FAB_TXT_REGIMES:
    case FAB_TXT_ERRORS:
        if (c->fmt == FAB_TXT_REGIMES ? x > 0 : x >= 0)
            snprintf(buf, len, "%.0f", x);
        else
            snprintf(buf, len, "-");
        break;
    case FAB_TXT_PCT:
        if (isnan(x))
            snprintf(buf, len, "n/a");
        else
            snprintf(buf, len, "%.1f", x);
        break;
    case FAB_TXT_PCT2:
        if (isnan(x))
            snprintf(buf, len, "-");
        else
            snprintf(buf, len, "%.*f", fabs(x) < 9.995 ? 2 : 1, x);
        break;
    case FAB_TXT_EXACT:
        snprintf(buf, len, "%s", isnan(x) ? "-" : x != 0 ? "exact" : "hist");
        break;
    case FAB_TXT_SLOWEST:
        if (x >= 0)
            snprintf(buf, len, "%.0f:%.0f%%", x, 100.0 * fab_text_value(d, c->col2));
        else
            snprintf(buf, len, "-");
        break;
    case FAB_TXT_OVERLAP:
        if (isnan(x))
            snprintf(buf, len, "-");
        else
            snprintf(buf, len, "%.1f%%", x);
        break;
    case FAB_TXT_STR:
        snprintf(buf, len, "%s", col >= 0 && s && s[col] && s[col][0] ? s[col] : "-");
        break;
    }
}

/* The heading line: "#", then each cell's heading right-aligned in its width. */
void fab_text_heading(FILE *f, const fab_text_table_t *t)
{
    fputc('#', f);
    for (int i = 0; i < t->n; i++)
        fprintf(f, " %*s", t->cell[i].head_width ? t->cell[i].head_width : t->cell[i].width,
                t->cell[i].head);
    fputc('\n', f);
}

void fab_text_row(FILE *f, const fab_text_table_t *t, const double *d, const char *const *s)
{
    fputc(' ', f);
    for (int i = 0; i < t->n; i++) {
        char buf[64];

        fab_text_cell(&t->cell[i], d, s, buf, sizeof(buf));
        fprintf(f, " %*s", t->cell[i].width, buf);
    }
    fputc('\n', f);
    fflush(f);
}
