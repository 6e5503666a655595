/* SPDX-License-Identifier: BSD-3-Clause */
/* The layer ladder (output/ladder.h): the rows of its kernels, joined per size and layer. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/text.h"
#include "kernel/registry.h"
#include "kernel/traits.h"
#include "output/columns.h"
#include "output/ladder.h"

/* One layer, and the layer it is compared with (its index, -1: none). Its kernels say which
 * layer they measure (fab_kernel_t.layer): a latency kernel's median time is the layer's
 * latency, a bandwidth kernel's MB/s its bandwidth. Latency kernels of the UCP and one-sided
 * layers say in their rows whether the time is half a round trip (halved_round_trip); the
 * others by their time divisor (a ping-pong over 2). */
typedef struct fab_rung {
    const char *layer;
    int ref;
} fab_rung_t;

static const fab_rung_t fab_rungs[] = {
    {"socket", -1}, {"ucp_tag", 0}, {"ucp_put", 0}, {"ucp_get", 0},
    {"mpi", 1},     {"mpi_put", 4}, {"mpi_get", 4},
};
#define FAB_NRUNGS     ((int)(sizeof(fab_rungs) / sizeof(fab_rungs[0])))
#define FAB_LADDER_MAX 64 /* sizes */

/* What the ladder keeps of one layer at one size. */
typedef struct fab_rung_val {
    double lat_us, halved, mbps;
    const char *lat_q, *bw_q; /* the rows' quality (a static string), NULL: none */
} fab_rung_val_t;

typedef struct fab_ladder {
    FILE *table;
    char *json;       /* the run's ladder as JSON, NULL before its end */
    const char **out; /* where the run's description reads it ("" until the run's end) */
    size_t bytes[FAB_LADDER_MAX];
    int nsizes;
    fab_rung_val_t v[FAB_LADDER_MAX][FAB_NRUNGS];
} fab_ladder_t;

/* What one layer adds over the one it is compared with at one size. */
typedef struct fab_step {
    double cmp_us, ref_cmp_us, adds_us, bw_pct;
    const char *basis;
} fab_step_t;

/* The registry's kernel of layer i and kind (NULL: none in this build). */
static const fab_kernel_t *fab_ladder_kernel(int i, fab_kind_t kind)
{
    for (int j = 0; j < fab_nkernels; j++)
        if (fab_kernels[j]->layer && strcmp(fab_kernels[j]->layer, fab_rungs[i].layer) == 0 &&
            fab_kernels[j]->kind == kind)
            return fab_kernels[j];
    return NULL;
}

static const char *fab_ladder_name(int i, fab_kind_t kind)
{
    const fab_kernel_t *k = fab_ladder_kernel(i, kind);

    return k ? k->name : NULL;
}

bool fab_ladder_knows(const char *layer)
{
    for (int i = 0; layer && i < FAB_NRUNGS; i++)
        if (strcmp(layer, fab_rungs[i].layer) == 0)
            return true;
    return false;
}

const char *fab_ladder_kernels(void)
{
    static char list[512];
    size_t at = 0;

    if (list[0])
        return list;
    for (int i = 0; i < FAB_NRUNGS; i++)
        for (int b = 0; b < 2; b++) {
            const char *n = fab_ladder_name(i, b ? FAB_KIND_BANDWIDTH : FAB_KIND_LATENCY);

            if (n)
                fab_appendf(list, sizeof(list), &at, "%s%s", at ? "," : "", n);
        }
    return list;
}

static int fab_ladder_size(fab_ladder_t *l, size_t bytes)
{
    for (int i = 0; i < l->nsizes; i++)
        if (l->bytes[i] == bytes)
            return i;
    if (l->nsizes >= FAB_LADDER_MAX)
        return -1;
    l->bytes[l->nsizes] = bytes;
    for (int r = 0; r < FAB_NRUNGS; r++)
        l->v[l->nsizes][r] = (fab_rung_val_t){NAN, NAN, NAN, NULL, NULL};
    return l->nsizes++;
}

static double fab_ladder_col(const fab_kinst_t *ki, const fab_row_t *r, const char *name)
{
    int c = fab_column_find(name);
    fab_value_t v = {0};

    if (c < 0)
        return NAN;
    fab_column_value(c, ki, r, &v);
    return v.d;
}

/* The row's quality (measure/quality.h): "invalid" rows (implausible, too few samples) are
 * no number to use, and the ladder says so beside them. */
static const char *fab_ladder_quality(const fab_kinst_t *ki, const fab_row_t *r)
{
    int c = fab_column_find("quality");
    fab_value_t v = {0};

    if (c < 0)
        return NULL;
    fab_column_value(c, ki, r, &v);
    return v.s;
}

static fab_status_t fab_ladder_row(void *arg, const fab_kinst_t *ki, const fab_row_t *r,
                                   const double *samples, size_t nsamples)
{
    fab_ladder_t *l = arg;
    int s;

    (void)samples;
    (void)nsamples;
    for (int i = 0; i < FAB_NRUNGS; i++) {
        if (!ki->k->layer || strcmp(ki->k->layer, fab_rungs[i].layer) != 0 ||
            ki->k->kind == FAB_KIND_COLLECTIVE)
            continue;
        s = fab_ladder_size(l, r->bytes);
        if (s < 0)
            return FAB_OK;
        if (ki->k->kind == FAB_KIND_LATENCY) {
            double h = fab_ladder_col(ki, r, "halved_round_trip");

            l->v[s][i].lat_us = fab_ladder_col(ki, r, "p50_us");
            l->v[s][i].lat_q = fab_ladder_quality(ki, r);
            l->v[s][i].halved = isnan(h) ? (fab_ktime_divisor(ki->k) == 2.0) : h;
        } else {
            l->v[s][i].mbps = fab_ladder_col(ki, r, "MBps");
            l->v[s][i].bw_q = fab_ladder_quality(ki, r);
        }
    }
    return FAB_OK;
}

/* Like with like: two half round trips, or two whole ones; a half round trip against a whole
 * operation is doubled, and the basis says so. */
static fab_step_t fab_ladder_step(const fab_rung_val_t *a, const fab_rung_val_t *b)
{
    fab_step_t st = {NAN, NAN, NAN, NAN, "-"};

    st.bw_pct = 100.0 * a->mbps / b->mbps;
    if (isnan(a->lat_us) || isnan(b->lat_us))
        return st;
    if (a->halved == b->halved) {
        st.cmp_us = a->lat_us;
        st.ref_cmp_us = b->lat_us;
        st.basis = a->halved != 0 ? "half" : "whole";
    } else {
        st.cmp_us = a->lat_us * (a->halved != 0 ? 2.0 : 1.0);
        st.ref_cmp_us = b->lat_us * (b->halved != 0 ? 2.0 : 1.0);
        st.basis = "whole*";
    }
    st.adds_us = st.cmp_us - st.ref_cmp_us;
    return st;
}

/* A number in the table, or "-" where there is none. */
static const char *fab_ladder_cell(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v))
        return "-";
    snprintf(buf, len, fmt, v);
    return buf;
}

static const char *fab_ladder_basis(const fab_step_t *st)
{
    if (strcmp(st->basis, "half") == 0)
        return "half round trips";
    return strcmp(st->basis, "whole") == 0 ? "whole operations"
                                           : "whole operations, a half round trip doubled";
}

static bool fab_ladder_invalid(const char *q)
{
    return q && strcmp(q, "invalid") == 0;
}

/* The notes under the table: what each layer adds at the smallest size (or takes less: a
 * socket layer that sleeps in the kernel is slower than UCX's polling), and one-sided
 * bandwidth far below two-sided at any size. */
static void fab_ladder_notes(const fab_ladder_t *l, FILE *f)
{
    for (int i = 0; l->nsizes > 0 && i < FAB_NRUNGS; i++) {
        int ref = fab_rungs[i].ref;
        fab_step_t st;

        if (ref < 0)
            continue;
        st = fab_ladder_step(&l->v[0][i], &l->v[0][ref]);
        if (!isnan(st.adds_us)) /* a layer faster than its reference: how much less it takes */
            fprintf(f,
                    st.adds_us < 0 ? "# %s takes %.3f us less than %s at %zu B (%s)%s\n"
                                   : "# %s adds %.3f us over %s at %zu B (%s)%s\n",
                    fab_rungs[i].layer, fabs(st.adds_us), fab_rungs[ref].layer, l->bytes[0],
                    fab_ladder_basis(&st),
                    fab_ladder_invalid(l->v[0][i].lat_q) || fab_ladder_invalid(l->v[0][ref].lat_q)
                        ? "; a row is invalid: not a number to use"
                        : "");
    }
    for (int s = 0; s < l->nsizes; s++)
        for (int i = 0; i < FAB_NRUNGS; i++) {
            int ref = fab_rungs[i].ref;
            fab_step_t st;

            if (ref < 0 || strncmp(fab_rungs[i].layer, "mpi_", 4) != 0)
                continue;
            st = fab_ladder_step(&l->v[s][i], &l->v[s][ref]);
            if (st.bw_pct < FAB_LADDER_LOW_PCT)
                fprintf(f,
                        "# note: %s bandwidth is %.0f%% of %s at %zu B (under %.0f%%): check "
                        "the osc component (--mca osc ucx, or --mca pml ob1 --mca osc pt2pt)\n",
                        fab_rungs[i].layer, st.bw_pct, fab_rungs[ref].layer, l->bytes[s],
                        FAB_LADDER_LOW_PCT);
        }
}

/* Whether layer i has a number at any size (a layer the run could not set up has none). */
static bool fab_ladder_measured(const fab_ladder_t *l, int i)
{
    for (int s = 0; s < l->nsizes; s++)
        if (!isnan(l->v[s][i].lat_us) || !isnan(l->v[s][i].mbps))
            return true;
    return false;
}

static void fab_ladder_print(const fab_ladder_t *l, FILE *f)
{
    int missing = 0;

    fprintf(f, "#\n# ladder: per size, each layer's median latency (us; half: half a round "
               "trip), bandwidth (MB/s),\n# and what it adds over the layer in 'vs' (whole*: "
               "compared as whole operations, a half round trip doubled)\n");
    fprintf(f, "# %9s %-8s %10s %-6s %10s %-8s %9s %-6s %8s\n", "bytes", "layer", "lat_us", "basis",
            "MBps", "vs", "adds_us", "cmp", "pct_bw");
    for (int s = 0; s < l->nsizes; s++)
        for (int i = 0; i < FAB_NRUNGS; i++) {
            const fab_rung_val_t *a = &l->v[s][i];
            int ref = fab_rungs[i].ref;
            fab_step_t st = {NAN, NAN, NAN, NAN, "-"};
            char c[4][32];

            if (isnan(a->lat_us) && isnan(a->mbps))
                continue;
            if (ref >= 0)
                st = fab_ladder_step(a, &l->v[s][ref]);
            fprintf(f, "  %9zu %-8s %10s %-6s %10s %-8s %9s %-6s %8s  %s,%s\n", l->bytes[s],
                    fab_rungs[i].layer, fab_ladder_cell(c[0], 32, "%.3f", a->lat_us),
                    isnan(a->lat_us) ? "-"
                    : a->halved != 0 ? "half"
                                     : "whole",
                    fab_ladder_cell(c[1], 32, "%.1f", a->mbps),
                    ref >= 0 ? fab_rungs[ref].layer : "-",
                    fab_ladder_cell(c[2], 32, "%.3f", st.adds_us), st.basis,
                    fab_ladder_cell(c[3], 32, "%.1f", st.bw_pct), a->lat_q ? a->lat_q : "-",
                    a->bw_q ? a->bw_q : "-");
        }
    for (int i = 0; i < FAB_NRUNGS; i++) {
        const char *lk = fab_ladder_name(i, FAB_KIND_LATENCY);

        if (fab_ladder_measured(l, i) || !lk)
            continue;
        fprintf(f, "%s %s (%s)", missing++ ? "," : "# not measured:", fab_rungs[i].layer, lk);
    }
    if (missing)
        fprintf(f, ": no row (a window the osc component could not make, or the run's end "
                   "came first: the run's warnings say which)\n");
    fab_ladder_notes(l, f);
}

static void fab_json_or_null(FILE *f, const char *s)
{
    if (s)
        fab_json_str(f, s);
    else
        fputs("null", f);
}

/* The ladder as JSON: {"layers": [...], "rows": [{bytes, layer, ...}]}; NaN as null. */
static void fab_ladder_json(const fab_ladder_t *l, FILE *f)
{
    fprintf(f, "{\"low_pct\":%g,\"layers\":[", FAB_LADDER_LOW_PCT);
    for (int i = 0; i < FAB_NRUNGS; i++) {
        fprintf(f, "%s{\"layer\":", i ? "," : "");
        fab_json_str(f, fab_rungs[i].layer);
        fprintf(f, ",\"latency_kernel\":");
        fab_json_or_null(f, fab_ladder_name(i, FAB_KIND_LATENCY));
        fprintf(f, ",\"bandwidth_kernel\":");
        fab_json_or_null(f, fab_ladder_name(i, FAB_KIND_BANDWIDTH));
        fprintf(f, ",\"vs\":");
        fab_json_or_null(f, fab_rungs[i].ref >= 0 ? fab_rungs[fab_rungs[i].ref].layer : NULL);
        fprintf(f, ",\"measured\":%s}", fab_ladder_measured(l, i) ? "true" : "false");
    }
    fprintf(f, "],\"rows\":[");
    for (int s = 0, n = 0; s < l->nsizes; s++)
        for (int i = 0; i < FAB_NRUNGS; i++) {
            const fab_rung_val_t *a = &l->v[s][i];
            int ref = fab_rungs[i].ref;
            fab_step_t st = {NAN, NAN, NAN, NAN, "-"};
            const double num[] = {a->lat_us, a->halved,  a->mbps,  st.cmp_us,
                                  NAN,       st.adds_us, st.bw_pct};
            const char *key[] = {"lat_us",    "halved",  "MBps",  "cmp_us",
                                 "vs_cmp_us", "adds_us", "pct_bw"};
            double v[7];

            if (isnan(a->lat_us) && isnan(a->mbps))
                continue;
            if (ref >= 0)
                st = fab_ladder_step(a, &l->v[s][ref]);
            memcpy(v, num, sizeof(v));
            v[3] = st.cmp_us, v[4] = st.ref_cmp_us, v[5] = st.adds_us, v[6] = st.bw_pct;
            fprintf(f, "%s{\"bytes\":%zu,\"layer\":", n++ ? "," : "", l->bytes[s]);
            fab_json_str(f, fab_rungs[i].layer);
            fprintf(f, ",\"basis\":");
            fab_json_str(f, st.basis);
            fprintf(f, ",\"lat_quality\":");
            fab_json_or_null(f, a->lat_q);
            fprintf(f, ",\"bw_quality\":");
            fab_json_or_null(f, a->bw_q);
            for (int j = 0; j < 7; j++) {
                fprintf(f, ",\"%s\":", key[j]);
                fab_json_num(f, v[j]);
            }
            fputc('}', f);
        }
    fprintf(f, "]}");
}

static fab_status_t fab_ladder_run_end(void *arg, const fab_run_info_t *info)
{
    fab_ladder_t *l = arg;
    char *buf = NULL;
    size_t n = 0;
    FILE *m;

    (void)info;
    if (l->table) {
        fab_ladder_print(l, l->table);
        fflush(l->table);
    }
    m = open_memstream(&buf, &n);
    if (!m)
        return FAB_ERR_NOMEM;
    fab_ladder_json(l, m);
    fclose(m);
    if (!buf)
        return FAB_ERR_NOMEM;
    free(l->json);
    l->json = buf;
    *l->out = buf;
    return FAB_OK;
}

/* --repeat: each run its own ladder. */
static fab_status_t fab_ladder_run_begin(void *arg, const fab_run_info_t *info)
{
    fab_ladder_t *l = arg;

    (void)info;
    l->nsizes = 0;
    free(l->json);
    l->json = NULL;
    *l->out = "";
    return FAB_OK;
}

static void fab_ladder_close(void *arg)
{
    fab_ladder_t *l = arg;

    *l->out = ""; /* the run's description outlives this output */
    free(l->json);
    free(l);
}

fab_status_t fab_out_ladder_sink(FILE *table, const char **json, fab_sink_t *sink)
{
    fab_ladder_t *l = calloc(1, sizeof(*l));

    if (!l)
        return FAB_ERR_NOMEM;
    l->table = table;
    l->out = json;
    *json = "";
    *sink = (fab_sink_t){.name = "ladder",
                         .run_begin = fab_ladder_run_begin,
                         .row = fab_ladder_row,
                         .run_end = fab_ladder_run_end,
                         .close = fab_ladder_close,
                         .arg = l};
    return FAB_OK;
}
